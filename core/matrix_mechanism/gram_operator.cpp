#include "core/matrix_mechanism/gram_operator.h"

#include <algorithm>
#include <cmath>

#include "core/base/validation.h"

namespace dpx {

Expected<GramOperator> GramOperator::of(const Workload& w, double weight) {
    if (w.shape().size() != 1) {
        return Error{"the Gram operator is one-dimensional; " + w.describe() + " has " +
                     std::to_string(w.shape().size()) + " dimensions"};
    }
    if (!std::isfinite(weight) || weight <= 0) {
        return Error{"a workload's weight must be > 0 and finite, got " + formatNumber(weight)};
    }
    if (w.spec().kind == WorkloadKind::Union) {
        // c²·Σ_i c_i² G_i.
        std::vector<GramOperator> parts;
        for (std::size_t i = 0; i < w.parts().size(); ++i) {
            auto part = of(w.parts()[i], weight * w.spec().partWeights[i]);
            if (!part) {
                return part.error();
            }
            parts.push_back(std::move(*part));
        }
        auto g = unionOf(parts);
        if (g) {
            g->describe_ = w.describe();
        }
        return g;
    }
    GramOperator g;
    g.n_ = w.shape()[0];
    g.queries_ = w.queryCount();
    g.describe_ = w.describe();
    Part p;
    p.weight2 = weight * weight;
    const double n = static_cast<double>(g.n_);
    g.diagonal_.resize(g.n_);
    switch (w.spec().kind) {
        case WorkloadKind::Identity:
            p.kind = Kind::Identity;
            std::fill(g.diagonal_.begin(), g.diagonal_.end(), p.weight2);
            break;
        case WorkloadKind::Total:
            p.kind = Kind::Total;
            std::fill(g.diagonal_.begin(), g.diagonal_.end(), p.weight2);
            break;
        case WorkloadKind::Prefix:
            p.kind = Kind::Prefix;
            for (std::size_t j = 0; j < g.n_; ++j) {
                g.diagonal_[j] = p.weight2 * (n - static_cast<double>(j));
            }
            break;
        case WorkloadKind::AllRange:
            p.kind = Kind::AllRange;
            for (std::size_t j = 0; j < g.n_; ++j) {
                g.diagonal_[j] =
                    p.weight2 * (static_cast<double>(j) + 1) * (n - static_cast<double>(j));
            }
            break;
        default:
            if (w.explicitQueries()) {
                p.kind = Kind::Ranges;
                const std::uint64_t q = w.queryCount();
                p.lo.resize(q);
                p.hi.resize(q);
                p.queryWeight.resize(q);
                std::fill(g.diagonal_.begin(), g.diagonal_.end(), 0.0);
                // The diagonal by a difference array: G_jj = Σ_q w_q² [j ∈ q].
                std::vector<double> diff(g.n_ + 1, 0.0);
                for (std::uint64_t i = 0; i < q; ++i) {
                    const RangeQuery r = w.query(i);
                    p.lo[i] = static_cast<std::size_t>(r.box[0].lo);
                    p.hi[i] = static_cast<std::size_t>(r.box[0].hi);
                    p.queryWeight[i] = r.weight;
                    diff[p.lo[i]] += r.weight * r.weight;
                    diff[p.hi[i] + 1] -= r.weight * r.weight;
                }
                double run = 0;
                for (std::size_t j = 0; j < g.n_; ++j) {
                    run += diff[j];
                    g.diagonal_[j] = p.weight2 * run;
                }
            } else {
                auto d = w.gram();
                if (!d) {
                    return d.error();
                }
                p.kind = Kind::Dense;
                p.denseMatrix = std::move(*d);
                for (std::size_t j = 0; j < g.n_; ++j) {
                    g.diagonal_[j] = p.weight2 * p.denseMatrix[j * g.n_ + j];
                }
            }
            break;
    }
    g.parts_.push_back(std::move(p));
    return g;
}

Expected<GramOperator> GramOperator::unionOf(std::span<const GramOperator> parts) {
    if (parts.empty()) {
        return Error{"a union of workloads needs at least one workload"};
    }
    GramOperator g;
    g.n_ = parts[0].n_;
    g.diagonal_.assign(g.n_, 0.0);
    for (const GramOperator& p : parts) {
        if (p.n_ != g.n_) {
            return Error{"the workloads of a union must share the domain: " + std::to_string(p.n_) +
                         " cells against " + std::to_string(g.n_)};
        }
        g.queries_ += p.queries_;
        g.parts_.insert(g.parts_.end(), p.parts_.begin(), p.parts_.end());
        for (std::size_t j = 0; j < g.n_; ++j) {
            g.diagonal_[j] += p.diagonal_[j];
        }
        g.describe_ += (g.describe_.empty() ? "" : " + ") + p.describe_;
    }
    return g;
}

Expected<GramOperator> GramOperator::ranges(std::size_t n, std::span<const BinRange> ranges,
                                            std::span<const double> coefficients) {
    if (n < 1) {
        return Error{"a range workload needs at least one cell"};
    }
    if (ranges.size() != coefficients.size()) {
        return Error{"one coefficient per range is needed"};
    }
    GramOperator g;
    g.n_ = n;
    g.queries_ = ranges.size();
    g.describe_ = std::to_string(ranges.size()) + " weighted ranges";
    Part p;
    p.kind = Kind::Ranges;
    std::vector<double> diff(n + 1, 0.0);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const double c = coefficients[i];
        if (!std::isfinite(c) || c < 0) {
            return Error{"a range's coefficient must be ≥ 0 and finite, got " + formatNumber(c)};
        }
        if (ranges[i].lo > ranges[i].hi || ranges[i].hi >= n) {
            return Error{"range " + std::to_string(i + 1) + " is not inside the " +
                         std::to_string(n) + " cells"};
        }
        p.lo.push_back(static_cast<std::size_t>(ranges[i].lo));
        p.hi.push_back(static_cast<std::size_t>(ranges[i].hi));
        p.queryWeight.push_back(std::sqrt(c));  // the part adds w_q²·r rᵀ
        diff[p.lo.back()] += c;
        diff[p.hi.back() + 1] -= c;
    }
    g.diagonal_.resize(n);
    double run = 0;
    for (std::size_t j = 0; j < n; ++j) {
        run += diff[j];
        g.diagonal_[j] = run;
    }
    g.parts_.push_back(std::move(p));
    return g;
}

Expected<GramOperator> GramOperator::scaled(double c) const {
    if (!std::isfinite(c) || c <= 0) {
        return Error{"a workload's scale must be > 0 and finite, got " + formatNumber(c)};
    }
    GramOperator g = *this;
    for (Part& p : g.parts_) {
        p.weight2 *= c;
    }
    for (double& v : g.diagonal_) {
        v *= c;
    }
    return g;
}

double GramOperator::traceWith(std::span<const double> s) const {
    std::vector<double> prod(n_ * n_);
    multiply(s, n_, prod);
    long double t = 0;
    for (std::size_t j = 0; j < n_; ++j) {
        t += prod[j * n_ + j];
    }
    return static_cast<double>(t);
}

double GramOperator::trace() const {
    double t = 0;
    for (double v : diagonal_) {
        t += v;
    }
    return t;
}

void GramOperator::multiply(std::span<const double> x, std::size_t rows,
                            std::span<double> out) const {
    std::fill(out.begin(), out.end(), 0.0);
    std::vector<double> scratch(n_ + 1), scratch2(n_ + 1), partOut(n_);
    for (std::size_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * n_;
        double* o = out.data() + r * n_;
        for (const Part& p : parts_) {
            multiplyPart(p, xr, partOut.data(), scratch, scratch2);
            for (std::size_t j = 0; j < n_; ++j) {
                o[j] += p.weight2 * partOut[j];
            }
        }
    }
}

void GramOperator::multiplyPart(const Part& p, const double* x, double* out,
                                std::vector<double>& scratch, std::vector<double>& scratch2) const {
    const std::size_t n = n_;
    const double nd = static_cast<double>(n);
    switch (p.kind) {
        case Kind::Identity:
            std::copy(x, x + n, out);
            return;
        case Kind::Total: {
            double s = 0;
            for (std::size_t k = 0; k < n; ++k) {
                s += x[k];
            }
            std::fill(out, out + n, s);
            return;
        }
        case Kind::Prefix: {
            // (xG)_j = (n − j)·Σ_{k ≤ j} x_k + Σ_{k > j} (n − k)·x_k.
            double suffix = 0;  // Σ_{k > j} (n − k) x_k
            for (std::size_t j = n; j-- > 0;) {
                scratch[j] = suffix;
                suffix += (nd - static_cast<double>(j)) * x[j];
            }
            double prefix = 0;
            for (std::size_t j = 0; j < n; ++j) {
                prefix += x[j];
                out[j] = (nd - static_cast<double>(j)) * prefix + scratch[j];
            }
            return;
        }
        case Kind::AllRange: {
            // (xG)_j = (n − j)·Σ_{k ≤ j} (k + 1)·x_k + (j + 1)·Σ_{k > j} (n − k)·x_k.
            double suffix = 0;
            for (std::size_t j = n; j-- > 0;) {
                scratch[j] = suffix;
                suffix += (nd - static_cast<double>(j)) * x[j];
            }
            double prefix = 0;
            for (std::size_t j = 0; j < n; ++j) {
                const double jd = static_cast<double>(j);
                prefix += (jd + 1) * x[j];
                out[j] = (nd - jd) * prefix + (jd + 1) * scratch[j];
            }
            return;
        }
        case Kind::Ranges: {
            // W·x from prefix sums, then Wᵀ(W·x) by a difference array.
            scratch[0] = 0;
            for (std::size_t k = 0; k < n; ++k) {
                scratch[k + 1] = scratch[k] + x[k];
            }
            std::fill(scratch2.begin(), scratch2.end(), 0.0);
            for (std::size_t q = 0; q < p.lo.size(); ++q) {
                const double wq = p.queryWeight[q];
                const double a = wq * wq * (scratch[p.hi[q] + 1] - scratch[p.lo[q]]);
                scratch2[p.lo[q]] += a;
                scratch2[p.hi[q] + 1] -= a;
            }
            double run = 0;
            for (std::size_t j = 0; j < n; ++j) {
                run += scratch2[j];
                out[j] = run;
            }
            return;
        }
        case Kind::Dense:
            for (std::size_t j = 0; j < n; ++j) {
                double s = 0;
                const double* row = p.denseMatrix.data() + j * n;  // G symmetric: column j
                for (std::size_t k = 0; k < n; ++k) {
                    s += x[k] * row[k];
                }
                out[j] = s;
            }
            return;
    }
}

std::vector<double> GramOperator::dense() const {
    std::vector<double> g(n_ * n_), e(n_, 0.0);
    for (std::size_t i = 0; i < n_; ++i) {
        e[i] = 1;
        multiply(e, 1, std::span<double>(g.data() + i * n_, n_));
        e[i] = 0;
    }
    return g;
}

}  // namespace dpx
