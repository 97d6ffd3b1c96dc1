#include "core/matrix_mechanism/marginals_strategy.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/matrix_mechanism/lbfgsb.h"

namespace dpx {

namespace {

// A workload marginal's weight never goes below this (before normalisation; starts are
// U[0, 1)): it keeps λ_s > 0 wherever the workload needs it (see the header).
constexpr double kWorkloadFloor = 1e-9;
// Largest number of measured rows of a marginals strategy.
constexpr std::size_t kMaxStrategyRows = std::size_t{1} << 28;

// F[s] ← Σ_{a ⊇ s} F[a].
void supersetSum(std::vector<double>& f, std::size_t d) {
    for (std::size_t i = 0; i < d; ++i) {
        const std::size_t bit = std::size_t{1} << i;
        for (std::size_t s = 0; s < f.size(); ++s) {
            if (!(s & bit)) {
                f[s] += f[s | bit];
            }
        }
    }
}

// F[a] ← Σ_{s ⊆ a} F[s].
void subsetSum(std::vector<double>& f, std::size_t d) {
    for (std::size_t i = 0; i < d; ++i) {
        const std::size_t bit = std::size_t{1} << i;
        for (std::size_t a = 0; a < f.size(); ++a) {
            if (a & bit) {
                f[a] += f[a ^ bit];
            }
        }
    }
}

Status checkShape(const DomainShape& shape) {
    if (auto s = validateShape(shape); !s) {
        return s;
    }
    if (shape.size() > kMaxMarginalsAttributes) {
        return Error{"the marginals template (OPT_M) takes at most " +
                     std::to_string(kMaxMarginalsAttributes) + " attributes, the table has " +
                     std::to_string(shape.size())};
    }
    return okStatus();
}

// P_a = ∏_{i∉a} n_i, m_s = ∏_{i∈s} (n_i − 1), μ_s = Σ_{b ⊇ s} w_b P_b.
struct Spectrum {
    std::vector<double> p, m, mu;
};

Spectrum spectrumOf(const DomainShape& shape, std::span<const double> workload) {
    const std::size_t d = shape.size(), size = std::size_t{1} << d;
    Spectrum sp;
    sp.p.assign(size, 1.0);
    sp.m.assign(size, 1.0);
    for (std::size_t a = 0; a < size; ++a) {
        for (std::size_t i = 0; i < d; ++i) {
            if (a >> i & 1) {
                sp.m[a] *= static_cast<double>(shape[i]) - 1;
            } else {
                sp.p[a] *= static_cast<double>(shape[i]);
            }
        }
    }
    sp.mu.resize(size);
    for (std::size_t b = 0; b < size; ++b) {
        sp.mu[b] = workload[b] * sp.p[b];
    }
    supersetSum(sp.mu, d);
    return sp;
}

std::vector<double> eigenvalues(const DomainShape& shape, const std::vector<double>& p,
                                std::span<const double> theta) {
    std::vector<double> lambda(theta.size());
    for (std::size_t a = 0; a < theta.size(); ++a) {
        lambda[a] = theta[a] * theta[a] * p[a];
    }
    supersetSum(lambda, shape.size());
    return lambda;
}

// f and ∇f for θ already validated; +∞ when a needed λ_s is 0.
double evaluate(const DomainShape& shape, const Spectrum& sp, std::span<const double> theta,
                std::span<double> gradient, MeasurementNoise law) {
    const bool l2 = law == MeasurementNoise::Gaussian;
    const std::size_t d = shape.size();
    const std::vector<double> lambda = eigenvalues(shape, sp.p, theta);
    long double sum = 0, t = 0;
    for (double v : theta) {
        sum += l2 ? v * v : v;  // Σθ² (‖A‖₂²) or Σθ (‖A‖₁)
    }
    std::vector<double> h(gradient.empty() ? 0 : theta.size(), 0.0);
    for (std::size_t s = 0; s < theta.size(); ++s) {
        const double need = sp.m[s] * sp.mu[s];
        if (need > 0) {
            if (!(lambda[s] > 0)) {
                return std::numeric_limits<double>::infinity();
            }
            t += need / lambda[s];
            if (!h.empty()) {
                h[s] = need / (lambda[s] * lambda[s]);
            }
        }
    }
    const double sumD = static_cast<double>(sum), tD = static_cast<double>(t);
    if (!gradient.empty()) {
        subsetSum(h, d);
        for (std::size_t a = 0; a < theta.size(); ++a) {
            // ∂T/∂θ_a = −2θ_a P_a h_a (the Laplace expression in its original order, so that
            // Laplace designs stay bit for bit what they were).
            gradient[a] = l2 ? 2 * theta[a] * tD - sumD * 2 * theta[a] * sp.p[a] * h[a]
                             : 2 * sumD * tD - sumD * sumD * 2 * theta[a] * sp.p[a] * h[a];
        }
    }
    return l2 ? sumD * tD : sumD * sumD * tD;
}

Status checkTheta(const DomainShape& shape, std::span<const double> theta) {
    const std::size_t size = std::size_t{1} << shape.size();
    if (theta.size() != size) {
        return Error{"marginals strategy: " + std::to_string(theta.size()) + " weights for 2^" +
                     std::to_string(shape.size()) + " = " + std::to_string(size) + " marginals"};
    }
    double sum = 0;
    for (double v : theta) {
        if (!std::isfinite(v) || v < 0) {
            return Error{"marginals strategy: every weight must be finite and ≥ 0"};
        }
        sum += v;
    }
    if (!(sum > 0)) {
        return Error{"marginals strategy: at least one marginal needs a positive weight"};
    }
    return okStatus();
}

}  // namespace

Expected<std::vector<double>> marginalsWorkloadWeights(const Workload& w) {
    const DomainShape& shape = w.shape();
    if (auto s = checkShape(shape); !s) {
        return s.error();
    }
    const std::size_t d = shape.size(), size = std::size_t{1} << d;
    std::vector<double> weights(size, 0.0);
    switch (w.spec().kind) {
        case WorkloadKind::Identity:
            weights[size - 1] = 1;
            break;
        case WorkloadKind::Total:
            weights[0] = 1;
            break;
        case WorkloadKind::Marginals:
            for (std::size_t k : w.spec().ways) {
                for (std::size_t b = 0; b < size; ++b) {
                    if (static_cast<std::size_t>(std::popcount(b)) == k) {
                        weights[b] += 1;
                    }
                }
            }
            break;
        case WorkloadKind::Union:
            // Σ_i c_i² × the part's weights (c_i scales the part's rows).
            for (std::size_t p = 0; p < w.parts().size(); ++p) {
                auto part = marginalsWorkloadWeights(w.parts()[p]);
                if (!part) {
                    return Error{"the marginals template (OPT_M) is for marginal workloads; " +
                                 w.describe() + " has a part that is not one"};
                }
                const double c2 = w.spec().partWeights[p] * w.spec().partWeights[p];
                for (std::size_t b = 0; b < size; ++b) {
                    weights[b] += c2 * (*part)[b];
                }
            }
            break;
        default:
            return Error{"the marginals template (OPT_M) is for marginal workloads; " +
                         w.describe() + " is not one"};
    }
    return weights;
}

Expected<double> marginalsObjective(const DomainShape& shape, std::span<const double> workload,
                                    std::span<const double> theta, std::span<double> gradient,
                                    MeasurementNoise law) {
    if (auto s = checkShape(shape); !s) {
        return s.error();
    }
    if (auto s = checkTheta(shape, theta); !s) {
        return s.error();
    }
    if (workload.size() != theta.size()) {
        return Error{"marginals strategy: one workload weight per marginal is needed"};
    }
    if (!gradient.empty() && gradient.size() != theta.size()) {
        return Error{"marginals strategy: the gradient has the wrong size"};
    }
    const double f = evaluate(shape, spectrumOf(shape, workload), theta, gradient, law);
    if (!std::isfinite(f)) {
        return Error{
            "marginals strategy: the strategy does not measure every marginal the "
            "workload asks for (a needed eigenvalue is 0)"};
    }
    return f;
}

Expected<MarginalsDesign> optimizeMarginals(const DomainShape& shape,
                                            std::span<const double> workload,
                                            const StrategyOptimizeOptions& options,
                                            std::stop_token stop,
                                            const ProgressCallback& progress) {
    if (auto s = checkShape(shape); !s) {
        return s.error();
    }
    const std::size_t size = std::size_t{1} << shape.size();
    if (workload.size() != size) {
        return Error{"marginals strategy: one workload weight per marginal is needed"};
    }
    bool any = false;
    for (double v : workload) {
        if (!std::isfinite(v) || v < 0) {
            return Error{"marginals strategy: workload weights must be finite and ≥ 0"};
        }
        any = any || v > 0;
    }
    if (!any) {
        return Error{"marginals strategy: the workload is empty"};
    }
    if (options.restarts < 1 || options.restarts > 1000) {
        return Error{"marginals strategy: restarts must be in [1, 1000]"};
    }
    const Spectrum sp = spectrumOf(shape, workload);
    std::vector<double> lower(size, 0.0), upper(size, std::numeric_limits<double>::infinity());
    for (std::size_t b = 0; b < size; ++b) {
        if (workload[b] > 0) {
            lower[b] = kWorkloadFloor;
        }
    }
    // evaluate() keeps no state: every worker's objective shares the spectrum.
    const ObjectiveFactory makeObjective = [&shape, &sp, &options]() -> ObjectiveWithGradient {
        return [&shape, &sp, &options](std::span<const double> x, std::span<double> g) {
            return evaluate(shape, sp, x, g, options.measurement);
        };
    };
    if (!options.start.empty()) {
        if (auto s = checkTheta(shape, options.start); !s) {
            return s.error();
        }
    }
    auto run =
        minimizeFromStarts(makeObjective, size, lower, upper, options, std::move(stop), progress);
    if (!run) {
        return run.error();
    }
    MarginalsDesign out;
    out.iterations = run->iterations;
    out.restartObjectives = std::move(run->restartObjectives);
    out.theta = std::move(run->best);
    // Σθ = 1. Weights below 10⁻⁷ of the largest are the optimiser's zeros (marginals it pushed
    // to their bound, 0 or the workload floor): dropped when the strategy still answers the
    // workload, so they cost no rows. Either way the objective is recomputed exactly.
    const auto normalise = [](std::vector<double>& theta) {
        double sum = 0;
        for (double v : theta) {
            sum += v;
        }
        for (double& v : theta) {
            v /= sum;
        }
    };
    normalise(out.theta);
    std::vector<double> pruned = out.theta;
    const double largest = *std::max_element(pruned.begin(), pruned.end());
    for (double& v : pruned) {
        if (v < 1e-7 * largest) {
            v = 0;
        }
    }
    normalise(pruned);
    if (auto p = marginalsObjective(shape, workload, pruned, {}, options.measurement)) {
        out.theta = std::move(pruned);
        out.objective = *p;
    } else {
        auto exact = marginalsObjective(shape, workload, out.theta, {}, options.measurement);
        if (!exact) {
            return exact.error();
        }
        out.objective = *exact;
    }
    if (progress) {
        progress(1.0);
    }
    return out;
}

// ---- The strategy ------------------------------------------------------------------------------

Expected<std::unique_ptr<MarginalsStrategy>> MarginalsStrategy::make(DomainShape shape,
                                                                     std::vector<double> theta) {
    if (auto s = checkShape(shape); !s) {
        return s.error();
    }
    if (auto s = checkTheta(shape, theta); !s) {
        return s.error();
    }
    std::unique_ptr<MarginalsStrategy> m(new MarginalsStrategy());
    const std::size_t d = shape.size();
    double sum = 0;
    for (double v : theta) {
        sum += v;
    }
    double l2 = 0;
    for (double& v : theta) {
        v /= sum;
        l2 += v * v;
    }
    m->l2_ = std::sqrt(l2);
    for (std::size_t a = 0; a < theta.size(); ++a) {
        if (theta[a] > 0) {
            std::vector<std::size_t> stride(d, 0);
            std::size_t cells = 1;
            for (std::size_t i = d; i-- > 0;) {
                if (a >> i & 1) {
                    stride[i] = cells;
                    cells *= shape[i];
                }
            }
            if (m->rows_ + cells > kMaxStrategyRows) {
                return Error{"marginals strategy: more than " +
                             groupThousands(static_cast<long long>(kMaxStrategyRows)) +
                             " measured cells"};
            }
            m->active_.push_back(a);
            m->offset_.push_back(m->rows_);
            m->stride_.push_back(std::move(stride));
            m->rows_ += cells;
        }
    }
    std::vector<double> p(theta.size(), 1.0);
    for (std::size_t a = 0; a < theta.size(); ++a) {
        for (std::size_t i = 0; i < d; ++i) {
            if (!(a >> i & 1)) {
                p[a] *= static_cast<double>(shape[i]);
            }
        }
    }
    m->lambda_ = eigenvalues(shape, p, theta);
    // Q per attribute: column 0 = 1/√n, column j ≥ 1 = Helmert's contrast
    // (1, …, 1, −j, 0, …)/√(j(j+1)) with j ones.
    for (std::size_t n : shape) {
        std::vector<double> q(n * n, 0.0);
        for (std::size_t l = 0; l < n; ++l) {
            q[l * n] = 1 / std::sqrt(static_cast<double>(n));
        }
        for (std::size_t j = 1; j < n; ++j) {
            const double jd = static_cast<double>(j), norm = std::sqrt(jd * (jd + 1));
            for (std::size_t l = 0; l < j; ++l) {
                q[l * n + j] = 1 / norm;
            }
            q[j * n + j] = -jd / norm;
        }
        m->basis_.push_back(std::move(q));
    }
    m->shape_ = std::move(shape);
    m->theta_ = std::move(theta);
    return m;
}

template <class F>
void MarginalsStrategy::forEachCell(F&& f) const {
    const std::size_t d = shape_.size(), cells = shapeCells(shape_), k = active_.size();
    std::vector<std::size_t> digit(d, 0), index(k, 0);
    for (std::size_t c = 0; c < cells; ++c) {
        f(c, index);
        for (std::size_t i = d; i-- > 0;) {
            if (++digit[i] < shape_[i]) {
                for (std::size_t a = 0; a < k; ++a) {
                    index[a] += stride_[a][i];
                }
                break;
            }
            digit[i] = 0;
            for (std::size_t a = 0; a < k; ++a) {
                index[a] -= (shape_[i] - 1) * stride_[a][i];
            }
        }
    }
}

void MarginalsStrategy::measure(std::span<const double> x, std::span<double> y) const {
    std::fill(y.begin(), y.end(), 0.0);
    forEachCell([&](std::size_t c, const std::vector<std::size_t>& index) {
        for (std::size_t a = 0; a < active_.size(); ++a) {
            y[offset_[a] + index[a]] += x[c];
        }
    });
    for (std::size_t a = 0; a < active_.size(); ++a) {
        const std::size_t end = a + 1 < active_.size() ? offset_[a + 1] : rows_;
        for (std::size_t r = offset_[a]; r < end; ++r) {
            y[r] *= theta_[active_[a]];
        }
    }
}

void MarginalsStrategy::transposeMeasure(std::span<const double> y, std::span<double> x) const {
    forEachCell([&](std::size_t c, const std::vector<std::size_t>& index) {
        double s = 0;
        for (std::size_t a = 0; a < active_.size(); ++a) {
            s += theta_[active_[a]] * y[offset_[a] + index[a]];
        }
        x[c] = s;
    });
}

void MarginalsStrategy::solveGram(std::span<const double> b, std::span<double> out) const {
    const std::size_t d = shape_.size(), cells = shapeCells(shape_);
    std::vector<double> v(b.begin(), b.end()), fiber;
    // v ← (Q_1 ⊗ … ⊗ Q_d)ᵀ·v (transposed = true) or (Q_1 ⊗ … ⊗ Q_d)·v, one attribute at a time.
    const auto transform = [&](bool transposed) {
        std::size_t inner = cells;
        for (std::size_t i = 0; i < d; ++i) {
            const std::size_t n = shape_[i];
            inner /= n;
            const std::size_t outer = cells / (n * inner);
            const std::vector<double>& q = basis_[i];
            fiber.resize(n);
            for (std::size_t o = 0; o < outer; ++o) {
                for (std::size_t t = 0; t < inner; ++t) {
                    double* base = v.data() + o * n * inner + t;
                    for (std::size_t l = 0; l < n; ++l) {
                        fiber[l] = base[l * inner];
                    }
                    for (std::size_t j = 0; j < n; ++j) {
                        double s = 0;
                        for (std::size_t l = 0; l < n; ++l) {
                            s += (transposed ? q[l * n + j] : q[j * n + l]) * fiber[l];
                        }
                        base[j * inner] = s;
                    }
                }
            }
        }
    };
    transform(true);
    // Coordinate (j_1, …, j_d) lies in E_s with s = {i : j_i ≠ 0}.
    std::vector<std::size_t> digit(d, 0);
    std::size_t s = 0;
    for (std::size_t c = 0; c < cells; ++c) {
        v[c] = lambda_[s] > 0 ? v[c] / lambda_[s] : 0.0;
        for (std::size_t i = d; i-- > 0;) {
            const std::size_t bit = std::size_t{1} << i;
            if (++digit[i] < shape_[i]) {
                s |= bit;
                break;
            }
            digit[i] = 0;
            s &= ~bit;
        }
    }
    transform(false);
    std::copy(v.begin(), v.end(), out.begin());
}

void MarginalsStrategy::leastSquares(std::span<const double> y, std::span<double> xhat) const {
    std::vector<double> aty(shapeCells(shape_));
    transposeMeasure(y, aty);
    solveGram(aty, xhat);
}

std::string MarginalsStrategy::describe() const {
    return "marginals strategy (HDMM OPT_M): " + std::to_string(active_.size()) + " of " +
           std::to_string(theta_.size()) + " marginals measured, " +
           groupThousands(static_cast<long long>(rows_)) + " rows";
}

}  // namespace dpx
