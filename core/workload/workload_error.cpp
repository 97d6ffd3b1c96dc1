// Realized errors of an estimate on a workload with DPBench's scaled metrics (issue #20).
#include "core/workload/workload_error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/base/validation.h"

namespace dpx {

namespace {

inline constexpr std::uint64_t kMaxEnumeratedQueries = std::uint64_t{1} << 27;

// Applies the 1-D Gram matrix of a product kind to v in place, in O(n) (closed forms of
// workload.cpp's gram1d written as running sums):
//  Prefix   (Gv)_j = Σ_k (n − max(j,k)) v_k = Σ_{i ≥ j} Σ_{k ≤ i} v_k   (WᵀW v, W = prefix sums)
//  AllRange (Gv)_j = (n − j)·Σ_{k ≤ j} (k + 1) v_k + (j + 1)·Σ_{k > j} (n − k) v_k
//  windows of width e: WᵀW v with W v the window sums.
void applyGram1d(WorkloadKind kind, std::size_t e, std::vector<double>& v) {
    const std::size_t n = v.size();
    switch (kind) {
        case WorkloadKind::Identity:
            return;
        case WorkloadKind::Total: {
            long double s = 0;
            for (double x : v) {
                s += x;
            }
            std::fill(v.begin(), v.end(), static_cast<double>(s));
            return;
        }
        case WorkloadKind::Prefix: {
            long double run = 0;
            std::vector<long double> pre(n);
            for (std::size_t k = 0; k < n; ++k) {
                run += v[k];
                pre[k] = run;
            }
            long double suf = 0;
            for (std::size_t j = n; j-- > 0;) {
                suf += pre[j];
                v[j] = static_cast<double>(suf);
            }
            return;
        }
        case WorkloadKind::AllRange: {
            std::vector<long double> left(n), right(n + 1, 0.0L);
            long double run = 0;
            for (std::size_t k = 0; k < n; ++k) {
                run += static_cast<long double>(k + 1) * v[k];
                left[k] = run;
            }
            for (std::size_t k = n; k-- > 0;) {
                right[k] = right[k + 1] + static_cast<long double>(n - k) * v[k];
            }
            for (std::size_t j = 0; j < n; ++j) {
                v[j] = static_cast<double>(static_cast<long double>(n - j) * left[j] +
                                           static_cast<long double>(j + 1) * right[j + 1]);
            }
            return;
        }
        case WorkloadKind::Rectangles: {
            std::vector<long double> pre(n + 1, 0.0L);
            for (std::size_t k = 0; k < n; ++k) {
                pre[k + 1] = pre[k] + v[k];
            }
            std::vector<long double> diff(n + 1, 0.0L);
            for (std::size_t l = 0; l + e <= n; ++l) {
                const long double s = pre[l + e] - pre[l];
                diff[l] += s;
                diff[l + e] -= s;
            }
            long double run = 0;
            for (std::size_t k = 0; k < n; ++k) {
                run += diff[k];
                v[k] = static_cast<double>(run);
            }
            return;
        }
        default:
            return;
    }
}

// dᵀ(WᵀW)d without the queries: mode-wise for the product kinds, Σ of squared marginals for
// marginals.
double gramQuadraticForm(const Workload& w, std::span<const double> d) {
    const DomainShape& shape = w.shape();
    const std::size_t dims = shape.size(), cells = d.size();
    std::vector<std::size_t> stride(dims, 1);
    for (std::size_t k = dims - 1; k-- > 0;) {
        stride[k] = stride[k + 1] * shape[k + 1];
    }
    const WorkloadSpec& spec = w.spec();
    if (spec.kind == WorkloadKind::RandomRange || spec.kind == WorkloadKind::Boxes) {
        // Listed queries (parts of a large union): ‖W d‖² from the answers.
        long double sq = 0;
        if (auto a = w.answers(d)) {
            for (double v : *a) {
                sq += static_cast<long double>(v) * v;
            }
        }
        return static_cast<double>(sq);
    }
    if (spec.kind == WorkloadKind::Union) {
        // dᵀ(Σ c_i² W_iᵀW_i)d.
        double total = 0;
        for (std::size_t p = 0; p < w.parts().size(); ++p) {
            total += spec.partWeights[p] * spec.partWeights[p] * gramQuadraticForm(w.parts()[p], d);
        }
        return total;
    }
    if (spec.kind == WorkloadKind::Marginals) {
        long double total = 0;
        for (std::size_t k : spec.ways) {
            // Every k-subset of the dimensions, by a bit mask walk.
            std::vector<std::size_t> members(k);
            for (std::size_t i = 0; i < k; ++i) {
                members[i] = i;
            }
            while (true) {
                std::size_t margCells = 1;
                for (std::size_t m : members) {
                    margCells *= shape[m];
                }
                std::vector<long double> marg(margCells, 0.0L);
                for (std::size_t c = 0; c < cells; ++c) {
                    std::size_t at = 0;
                    for (std::size_t m : members) {
                        at = at * shape[m] + (c / stride[m]) % shape[m];
                    }
                    marg[at] += d[c];
                }
                for (long double v : marg) {
                    total += v * v;
                }
                // Next subset in lexicographic order.
                std::size_t i = k;
                while (i > 0 && members[i - 1] == dims - k + i - 1) {
                    --i;
                }
                if (i == 0) {
                    break;
                }
                ++members[i - 1];
                for (std::size_t t = i; t < k; ++t) {
                    members[t] = members[t - 1] + 1;
                }
            }
        }
        return static_cast<double>(total);
    }
    // Product kinds: G = ⊗ G_d; apply G_d along every fibre of dimension d.
    std::vector<double> g(d.begin(), d.end());
    std::vector<double> fibre;
    for (std::size_t k = 0; k < dims; ++k) {
        const std::size_t n = shape[k], st = stride[k];
        fibre.resize(n);
        for (std::size_t base = 0; base < cells; ++base) {
            if ((base / st) % n != 0) {
                continue;
            }
            for (std::size_t i = 0; i < n; ++i) {
                fibre[i] = g[base + i * st];
            }
            applyGram1d(spec.kind, spec.kind == WorkloadKind::Rectangles ? spec.extent[k] : 0,
                        fibre);
            for (std::size_t i = 0; i < n; ++i) {
                g[base + i * st] = fibre[i];
            }
        }
    }
    long double s = 0;
    for (std::size_t c = 0; c < cells; ++c) {
        s += static_cast<long double>(d[c]) * g[c];
    }
    return static_cast<double>(s);
}

}  // namespace

Expected<WorkloadError> workloadError(const Workload& w, std::span<const double> truth,
                                      std::span<const double> estimate, double scale,
                                      bool keepPerQuery) {
    const std::size_t cells = shapeCells(w.shape());
    if (truth.size() != cells || estimate.size() != cells) {
        return Error{"workload error: the true data has " + std::to_string(truth.size()) +
                     " cells and the estimate " + std::to_string(estimate.size()) +
                     " but the domain has " + std::to_string(cells)};
    }
    for (std::size_t i = 0; i < cells; ++i) {
        if (!std::isfinite(truth[i]) || !std::isfinite(estimate[i])) {
            return Error{"workload error: cell " + std::to_string(i) + " of the " +
                         (std::isfinite(truth[i]) ? "estimate" : "true data") + " is not finite"};
        }
    }
    if (!std::isfinite(scale) || scale <= 0) {
        return Error{
            "workload error: the scale m (DPBench's norm factor) must be > 0 and "
            "finite, not " +
            formatNumber(scale)};
    }
    std::vector<double> diff(cells);
    for (std::size_t i = 0; i < cells; ++i) {
        diff[i] = estimate[i] - truth[i];
    }
    WorkloadError e;
    e.queries = w.queryCount();
    if (w.explicitQueries()) {
        auto d = w.answers(diff);  // W x̂ − W x = W (x̂ − x): linear
        if (!d) {
            return d.error();
        }
        long double abs = 0, sq = 0;
        for (double v : *d) {
            abs += std::fabs(v);
            sq += static_cast<long double>(v) * v;
            e.maxAbs = std::max(e.maxAbs, std::fabs(v));
        }
        e.sumAbs = static_cast<double>(abs);
        e.sumSquares = static_cast<double>(sq);
        if (keepPerQuery) {
            e.perQuery = std::move(*d);
        }
    } else {
        e.sumSquares = gramQuadraticForm(w, diff);
        if (w.queryCount() <= kMaxEnumeratedQueries) {
            // One query at a time through a summed-area table of d (Boxes of one cell each).
            const std::size_t dims = w.shape().size();
            std::vector<std::size_t> stride(dims, 1);
            for (std::size_t k = dims - 1; k-- > 0;) {
                stride[k] = stride[k + 1] * w.shape()[k + 1];
            }
            std::vector<long double> s(diff.begin(), diff.end());
            for (std::size_t k = 0; k < dims; ++k) {
                for (std::size_t c = 0; c < cells; ++c) {
                    if ((c / stride[k]) % w.shape()[k] != 0) {
                        s[c] += s[c - stride[k]];
                    }
                }
            }
            long double abs = 0;
            for (std::uint64_t qi = 0; qi < w.queryCount(); ++qi) {
                const RangeQuery q = w.query(qi);
                long double sum = 0;
                for (std::size_t mask = 0; mask < (std::size_t{1} << dims); ++mask) {
                    std::size_t at = 0;
                    int sign = 1;
                    bool skip = false;
                    for (std::size_t k = 0; k < dims && !skip; ++k) {
                        if (mask & (std::size_t{1} << k)) {
                            if (q.box[k].lo == 0) {
                                skip = true;
                            }
                            at += static_cast<std::size_t>(q.box[k].lo - 1) * stride[k];
                            sign = -sign;
                        } else {
                            at += static_cast<std::size_t>(q.box[k].hi) * stride[k];
                        }
                    }
                    if (!skip) {
                        sum += sign * s[at];
                    }
                }
                const double v = q.weight * static_cast<double>(sum);
                abs += std::fabs(v);
                e.maxAbs = std::max(e.maxAbs, std::fabs(v));
            }
            e.sumAbs = static_cast<double>(abs);
        } else {
            e.sumAbs = std::numeric_limits<double>::quiet_NaN();
            e.maxAbs = std::numeric_limits<double>::quiet_NaN();
        }
    }
    const double q = static_cast<double>(e.queries);
    e.rmse = std::sqrt(e.sumSquares / q);
    // dpcomp_core metric.py calculate_error(): L2 = ‖diff‖₂ / q / m, L1 = ‖diff‖₁ / q / m,
    // L∞ = ‖diff‖∞ / m.
    e.scaledL2 = std::sqrt(e.sumSquares) / q / scale;
    e.scaledL1 = e.sumAbs / q / scale;
    e.scaledLinf = e.maxAbs / scale;
    return e;
}

}  // namespace dpx
