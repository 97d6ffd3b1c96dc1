#include "core/matrix_mechanism/integer_strategy.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/base/validation.h"
#include "core/matrix_mechanism/marginals_strategy.h"
#include "core/matrix_mechanism/p_identity.h"

namespace dpx {

namespace {

constexpr std::int64_t kMaxScale = std::int64_t{1} << 30;

bool addChecked(std::int64_t a, std::int64_t b, std::int64_t& out) {
    return !__builtin_add_overflow(a, b, &out);
}
bool mulChecked(std::int64_t a, std::int64_t b, std::int64_t& out) {
    return !__builtin_mul_overflow(a, b, &out);
}

Error overflowError() {
    return Error{
        "strategy release: the integer measurements K·x would leave the 64-bit range (counts "
        "too large for this strategy's rounding)"};
}

// ⌊m·A_d⌋ for one p-Identity factor A_d = [I; Θ]·D (m real ≥ 1), D normalising the columns to
// unit L1 norm (1/(1 + Σ_a Θ_aj)) or unit L2 norm (1/√(1 + Σ_a Θ_aj²), Gaussian designs).
Expected<IntegerPIdentity> roundPIdentity(std::size_t n, std::size_t p,
                                          const std::vector<double>& theta, double m,
                                          MeasurementNoise norm) {
    if (theta.size() != n * p) {
        return Error{"strategy rounding: Θ has the wrong size"};
    }
    IntegerPIdentity f;
    f.n = n;
    f.p = p;
    f.diagonal.resize(n);
    f.extra.resize(n * p);
    for (std::size_t j = 0; j < n; ++j) {
        double s = 0, sq = 0;
        for (std::size_t a = 0; a < p; ++a) {
            s += theta[a * n + j];
            sq += theta[a * n + j] * theta[a * n + j];
        }
        const double dj = norm == MeasurementNoise::Laplace ? 1 + s : std::sqrt(1 + sq);
        const double g = std::floor(m / dj);
        if (g < 1) {
            return Error{"strategy rounding: scale " + formatNumber(m) +
                         " is too small for column " + std::to_string(j + 1) +
                         " (its identity entry rounds to 0)"};
        }
        f.diagonal[j] = static_cast<std::int64_t>(g);
        for (std::size_t a = 0; a < p; ++a) {
            f.extra[a * n + j] = static_cast<std::int64_t>(std::floor(m * theta[a * n + j] / dj));
        }
    }
    return f;
}

std::vector<std::int64_t> factorColumnL1(const IntegerPIdentity& f) {
    std::vector<std::int64_t> c(f.diagonal);
    for (std::size_t a = 0; a < f.p; ++a) {
        for (std::size_t j = 0; j < f.n; ++j) {
            c[j] += f.extra[a * f.n + j];
        }
    }
    return c;
}

std::vector<std::int64_t> factorColumnL2Squared(const IntegerPIdentity& f) {
    std::vector<std::int64_t> c(f.n);
    for (std::size_t j = 0; j < f.n; ++j) {
        c[j] = f.diagonal[j] * f.diagonal[j];
    }
    for (std::size_t a = 0; a < f.p; ++a) {
        for (std::size_t j = 0; j < f.n; ++j) {
            const std::int64_t t = f.extra[a * f.n + j];
            c[j] += t * t;
        }
    }
    return c;
}

// K_d as a real matrix: PIdentity(T·diag(1/g)) times diag(column sums).
Expected<std::unique_ptr<LinearStrategy>> factorLinear(const IntegerPIdentity& f) {
    std::vector<double> theta(f.n * f.p);
    for (std::size_t a = 0; a < f.p; ++a) {
        for (std::size_t j = 0; j < f.n; ++j) {
            theta[a * f.n + j] =
                static_cast<double>(f.extra[a * f.n + j]) / static_cast<double>(f.diagonal[j]);
        }
    }
    auto inner = PIdentityStrategy::make(f.n, f.p, std::move(theta));
    if (!inner) {
        return inner.error();
    }
    const auto l1 = factorColumnL1(f);
    const auto l2 = factorColumnL2Squared(f);
    std::vector<double> c(l1.begin(), l1.end());
    return columnScaledStrategy(
        std::move(inner).value(), std::move(c),
        static_cast<double>(*std::max_element(l1.begin(), l1.end())),
        std::sqrt(static_cast<double>(*std::max_element(l2.begin(), l2.end()))));
}

// Column norms of a Kronecker product: the product of the factors' norms, per cell (C order).
std::vector<std::int64_t> productColumns(const std::vector<std::vector<std::int64_t>>& per) {
    std::vector<std::int64_t> out{1};
    for (const auto& f : per) {
        std::vector<std::int64_t> next;
        next.reserve(out.size() * f.size());
        for (std::int64_t a : out) {
            for (std::int64_t b : f) {
                next.push_back(a * b);
            }
        }
        out.swap(next);
    }
    return out;
}

Expected<IntegerStrategy> roundAt(const DomainShape& shape, const DesignedStrategy& design,
                                  double m) {
    IntegerStrategy k;
    k.kind = design.kind;
    k.shape = shape;
    const std::size_t dims = shape.size();
    if (design.kind == DesignTemplate::Union) {
        std::vector<std::unique_ptr<LinearStrategy>> linear;
        if (design.parts.size() != design.partScales.size() || design.parts.empty()) {
            return Error{"strategy rounding: a stacked design needs its parts and scales"};
        }
        for (std::size_t i = 0; i < design.parts.size(); ++i) {
            auto part = roundAt(shape, *design.parts[i], m * design.partScales[i]);
            if (!part) {
                return Error{"strategy rounding, part " + std::to_string(i + 1) + ": " +
                             part.error().message};
            }
            linear.push_back(std::move(part->linear));
            k.parts.push_back(std::make_unique<IntegerStrategy>(std::move(part).value()));
        }
        auto stacked = stackedStrategy(std::move(linear), std::vector<double>(k.parts.size(), 1.0));
        if (!stacked) {
            return stacked.error();
        }
        k.linear = std::move(stacked).value();
    } else if (design.kind == DesignTemplate::Marginals) {
        std::vector<double> w(design.marginalWeights.size());
        bool any = false;
        for (std::size_t a = 0; a < w.size(); ++a) {
            const double v = std::floor(m * design.marginalWeights[a]);
            k.marginalWeights.push_back(static_cast<std::int64_t>(v));
            w[a] = v;
            any = any || v > 0;
        }
        if (!any) {
            return Error{"strategy rounding: every marginal weight rounds to 0 at scale " +
                         formatNumber(m)};
        }
        auto inner = MarginalsStrategy::make(shape, w);
        if (!inner) {
            return inner.error();
        }
        std::int64_t sum = 0, sq = 0;
        for (std::int64_t v : k.marginalWeights) {
            sum += v;
            sq += v * v;
        }
        auto scaled =
            columnScaledStrategy(std::move(inner).value(), {static_cast<double>(sum)},
                                 static_cast<double>(sum), std::sqrt(static_cast<double>(sq)));
        if (!scaled) {
            return scaled.error();
        }
        k.linear = std::move(scaled).value();
    } else {
        if (design.p.size() != dims || design.theta.size() != dims) {
            return Error{"strategy rounding: one p and one Θ per dimension are needed"};
        }
        const double perFactor = std::pow(m, 1.0 / static_cast<double>(dims));
        std::vector<std::unique_ptr<LinearStrategy>> linear;
        for (std::size_t d = 0; d < dims; ++d) {
            auto f = roundPIdentity(shape[d], design.p[d], design.theta[d], perFactor,
                                    design.measurement);
            if (!f) {
                return f.error();
            }
            auto lin = factorLinear(*f);
            if (!lin) {
                return lin.error();
            }
            linear.push_back(std::move(lin).value());
            k.factors.push_back(std::move(f).value());
        }
        if (linear.size() == 1) {
            // One dimension: the factor itself (as strategyFromDesign does), so the exact error
            // takes the Gram-column path (n solves) rather than one solve per listed query.
            k.linear = std::move(linear[0]);
        } else {
            auto kron = kroneckerStrategy(std::move(linear));
            if (!kron) {
                return kron.error();
            }
            k.linear = std::move(kron).value();
        }
    }
    const auto l1 = k.columnL1();
    const auto l2 = k.columnL2Squared();
    k.l1 = *std::max_element(l1.begin(), l1.end());
    k.l2Squared = *std::max_element(l2.begin(), l2.end());
    k.scale = static_cast<std::int64_t>(std::llround(m));
    return k;
}

// out = (W_1 ⊗ … ⊗ W_k)·u for square n_d × n_d factors (row-major), u and out in C order: the
// factors applied mode by mode.
std::vector<double> kroneckerApply(const std::vector<std::vector<double>>& w,
                                   const DomainShape& shape, std::vector<double> u) {
    std::vector<double> next(u.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const std::size_t n = shape[d];
        std::size_t outer = 1, inner = 1;
        for (std::size_t e = 0; e < d; ++e) {
            outer *= shape[e];
        }
        for (std::size_t e = d + 1; e < shape.size(); ++e) {
            inner *= shape[e];
        }
        std::fill(next.begin(), next.end(), 0.0);
        for (std::size_t o = 0; o < outer; ++o) {
            for (std::size_t a = 0; a < n; ++a) {
                double* dst = &next[(o * n + a) * inner];
                for (std::size_t b = 0; b < n; ++b) {
                    const double c = w[d][a * n + b];
                    const double* src = &u[(o * n + b) * inner];
                    for (std::size_t i = 0; i < inner; ++i) {
                        dst[i] += c * src[i];
                    }
                }
            }
        }
        u.swap(next);
    }
    return u;
}

// The cell forms of a stack of two Kronecker products of p-Identity factors, exactly and without
// a solve per cell: KᵀK = ⊗_d G_1d + ⊗_d G_2d with G_id = K_idᵀK_id = diag(g²) + TᵀT. Per
// dimension the symmetric-definite pencil G_2d v = λ G_1d v (G_1d positive definite: g ≥ 1) has
// V_d with V_dᵀG_1dV_d = I and V_dᵀG_2dV_d = Λ_d (simultaneous diagonalisation, Golub & Van
// Loan, Matrix Computations, 4th ed. 2013, §8.7.1). With V = ⊗V_d, KᵀK = V⁻ᵀ(I + ⊗Λ_d)V⁻¹, so
// (KᵀK)⁻¹ = V(I + ⊗Λ_d)⁻¹Vᵀ, whose diagonal is (⊗_d V_d∘V_d)·u with u_k = 1/(1 + ∏_d λ_{d,k_d}):
// one Kronecker product applied to a vector, O(cells·Σ n_d) after k eigenproblems of n_d × n_d.
// Empty when the stack is not of that form.
std::optional<std::vector<double>> twoProductForms(const IntegerStrategy& k) {
    const std::size_t dims = k.shape.size();
    if (k.kind != DesignTemplate::Union || k.parts.size() != 2) {
        return std::nullopt;
    }
    for (const auto& part : k.parts) {
        if (part->kind != DesignTemplate::PIdentity || part->factors.size() != dims) {
            return std::nullopt;
        }
    }
    const auto gram = [](const IntegerPIdentity& f) {
        const auto n = static_cast<Eigen::Index>(f.n);
        Eigen::MatrixXd g = Eigen::MatrixXd::Zero(n, n);
        for (Eigen::Index j = 0; j < n; ++j) {
            const auto d = static_cast<double>(f.diagonal[static_cast<std::size_t>(j)]);
            g(j, j) = d * d;
        }
        for (std::size_t a = 0; a < f.p; ++a) {
            for (Eigen::Index i = 0; i < n; ++i) {
                const auto ti = static_cast<double>(f.extra[a * f.n + static_cast<std::size_t>(i)]);
                for (Eigen::Index j = 0; j < n; ++j) {
                    g(i, j) +=
                        ti * static_cast<double>(f.extra[a * f.n + static_cast<std::size_t>(j)]);
                }
            }
        }
        return g;
    };
    std::vector<std::vector<double>> squares(dims);
    std::vector<std::vector<double>> lambdas(dims);
    for (std::size_t d = 0; d < dims; ++d) {
        const IntegerPIdentity& f1 = k.parts[0]->factors[d];
        const IntegerPIdentity& f2 = k.parts[1]->factors[d];
        if (f1.n != k.shape[d] || f2.n != k.shape[d]) {
            return std::nullopt;
        }
        Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(gram(f2), gram(f1));
        if (es.info() != Eigen::Success) {
            return std::nullopt;
        }
        const Eigen::MatrixXd& v = es.eigenvectors();
        const std::size_t n = f1.n;
        squares[d].resize(n * n);
        for (std::size_t a = 0; a < n; ++a) {
            for (std::size_t b = 0; b < n; ++b) {
                const double x = v(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
                squares[d][a * n + b] = x * x;
            }
        }
        lambdas[d].assign(es.eigenvalues().data(), es.eigenvalues().data() + n);
    }
    const std::size_t cells = shapeCells(k.shape);
    std::vector<double> u(cells);
    std::vector<std::size_t> digit(dims, 0);
    for (std::size_t c = 0; c < cells; ++c) {
        double prod = 1;
        for (std::size_t d = 0; d < dims; ++d) {
            prod *= std::max(0.0, lambdas[d][digit[d]]);  // G_2d is semi-definite
        }
        u[c] = 1 / (1 + prod);
        for (std::size_t d = dims; d-- > 0;) {
            if (++digit[d] < k.shape[d]) {
                break;
            }
            digit[d] = 0;
        }
    }
    return kroneckerApply(squares, k.shape, std::move(u));
}

}  // namespace

std::size_t IntegerStrategy::rows() const {
    if (linear) {
        return linear->rows();
    }
    // A stacked strategy's parts hand their implicit matrices to the stack: count from the
    // structure.
    std::size_t r = 0;
    switch (kind) {
        case DesignTemplate::Union:
            for (const auto& part : parts) {
                r += part->rows();
            }
            return r;
        case DesignTemplate::Marginals:
            for (std::size_t a = 0; a < marginalWeights.size(); ++a) {
                if (marginalWeights[a] > 0) {
                    std::size_t cells = 1;
                    for (std::size_t i = 0; i < shape.size(); ++i) {
                        cells *= (a >> i) & 1U ? shape[i] : 1;
                    }
                    r += cells;
                }
            }
            return r;
        default:
            r = factors.empty() ? 0 : 1;
            for (const auto& f : factors) {
                r *= f.n + f.p;
            }
            return r;
    }
}

std::vector<std::int64_t> IntegerStrategy::columnNorms(bool squared) const {
    const std::size_t cells = shapeCells(shape);
    switch (kind) {
        case DesignTemplate::Union: {
            // A stack: every part's rows in the column, so the norms add up.
            std::vector<std::int64_t> sum(cells, 0);
            for (const auto& part : parts) {
                const auto c = part->columnNorms(squared);
                for (std::size_t j = 0; j < cells; ++j) {
                    sum[j] += c[j];
                }
            }
            return sum;
        }
        case DesignTemplate::Marginals: {
            // Every cell lies in exactly one cell of each measured marginal.
            std::int64_t s = 0;
            for (std::int64_t v : marginalWeights) {
                s += squared ? v * v : v;
            }
            return std::vector<std::int64_t>(cells, s);
        }
        default: {
            std::vector<std::vector<std::int64_t>> per;
            for (const auto& f : factors) {
                per.push_back(squared ? factorColumnL2Squared(f) : factorColumnL1(f));
            }
            return productColumns(per);
        }
    }
}

std::vector<std::int64_t> IntegerStrategy::columnL1() const {
    return columnNorms(false);
}

std::vector<std::int64_t> IntegerStrategy::columnL2Squared() const {
    return columnNorms(true);
}

Expected<std::vector<std::int64_t>> IntegerStrategy::measure(
    std::span<const std::int64_t> x) const {
    const std::size_t cells = shapeCells(shape);
    if (x.size() != cells) {
        return Error{"strategy release: " + std::to_string(x.size()) + " counts for " +
                     std::to_string(cells) + " cells"};
    }
    if (kind == DesignTemplate::Union) {
        std::vector<std::int64_t> y;
        for (const auto& part : parts) {
            auto py = part->measure(x);
            if (!py) {
                return py.error();
            }
            y.insert(y.end(), py->begin(), py->end());
        }
        return y;
    }
    if (kind == DesignTemplate::Marginals) {
        // Rows: every marginal a with w_a > 0 in increasing a (bit i = attribute i kept), each in
        // C order of its kept attributes (MarginalsStrategy's order).
        const std::size_t dims = shape.size();
        std::vector<std::int64_t> y;
        for (std::size_t a = 0; a < marginalWeights.size(); ++a) {
            if (marginalWeights[a] <= 0) {
                continue;
            }
            std::vector<std::size_t> stride(dims, 0);
            std::size_t size = 1;
            for (std::size_t i = dims; i-- > 0;) {
                if (a >> i & 1) {
                    stride[i] = size;
                    size *= shape[i];
                }
            }
            std::vector<std::int64_t> m(size, 0);
            std::vector<std::size_t> digit(dims, 0);
            std::size_t index = 0;
            for (std::size_t c = 0; c < cells; ++c) {
                if (!addChecked(m[index], x[c], m[index])) {
                    return overflowError();
                }
                for (std::size_t i = dims; i-- > 0;) {
                    if (++digit[i] < shape[i]) {
                        index += stride[i];
                        break;
                    }
                    digit[i] = 0;
                    index -= (shape[i] - 1) * stride[i];
                }
            }
            for (std::int64_t& v : m) {
                if (!mulChecked(v, marginalWeights[a], v)) {
                    return overflowError();
                }
            }
            y.insert(y.end(), m.begin(), m.end());
        }
        return y;
    }
    // A Kronecker product: mode d multiplied by K_d for every d, C order throughout (the same
    // order as the Kronecker strategy of core/workload/strategy.cpp).
    std::vector<std::size_t> dimsNow(shape.begin(), shape.end());
    std::vector<std::int64_t> cur(x.begin(), x.end()), next;
    for (std::size_t d = 0; d < factors.size(); ++d) {
        const IntegerPIdentity& f = factors[d];
        const std::size_t len = dimsNow[d], outLen = f.n + f.p;
        std::size_t outer = 1, inner = 1;
        for (std::size_t e = 0; e < d; ++e) {
            outer *= dimsNow[e];
        }
        for (std::size_t e = d + 1; e < dimsNow.size(); ++e) {
            inner *= dimsNow[e];
        }
        next.assign(outer * outLen * inner, 0);
        for (std::size_t o = 0; o < outer; ++o) {
            for (std::size_t i = 0; i < inner; ++i) {
                const auto in = [&](std::size_t t) { return cur[(o * len + t) * inner + i]; };
                const auto out = [&](std::size_t t) -> std::int64_t& {
                    return next[(o * outLen + t) * inner + i];
                };
                for (std::size_t j = 0; j < len; ++j) {
                    if (!mulChecked(f.diagonal[j], in(j), out(j))) {
                        return overflowError();
                    }
                }
                for (std::size_t a = 0; a < f.p; ++a) {
                    std::int64_t s = 0;
                    for (std::size_t j = 0; j < len; ++j) {
                        std::int64_t term = 0;
                        if (!mulChecked(f.extra[a * f.n + j], in(j), term) ||
                            !addChecked(s, term, s)) {
                            return overflowError();
                        }
                    }
                    out(len + a) = s;
                }
            }
        }
        cur.swap(next);
        dimsNow[d] = outLen;
    }
    return cur;
}

bool IntegerStrategy::fullColumnRank() const {
    switch (kind) {
        case DesignTemplate::Union:
            return std::any_of(parts.begin(), parts.end(),
                               [](const auto& p) { return p->fullColumnRank(); });
        case DesignTemplate::Marginals:
            // The full table (every attribute kept) must be measured.
            return !marginalWeights.empty() && marginalWeights.back() > 0;
        default:
            return true;  // every diagonal entry g_j ≥ 1
    }
}

Expected<std::vector<double>> IntegerStrategy::cellVarianceForms() const {
    if (!fullColumnRank() || !linear) {
        return Error{"strategy release: the strategy does not determine every cell"};
    }
    const std::size_t cells = shapeCells(shape);
    if (kind == DesignTemplate::PIdentity) {
        std::vector<std::vector<double>> per;
        for (const auto& f : factors) {
            auto lin = factorLinear(f);
            if (!lin) {
                return lin.error();
            }
            std::vector<double> e(f.n, 0.0), out(f.n), diag(f.n);
            for (std::size_t j = 0; j < f.n; ++j) {
                e[j] = 1;
                (*lin)->solveGram(e, out);
                diag[j] = out[j];
                e[j] = 0;
            }
            per.push_back(std::move(diag));
        }
        std::vector<double> forms{1.0};
        for (const auto& d : per) {
            std::vector<double> next;
            next.reserve(forms.size() * d.size());
            for (double a : forms) {
                for (double b : d) {
                    next.push_back(a * b);
                }
            }
            forms.swap(next);
        }
        return forms;
    }
    if (kind == DesignTemplate::Marginals) {
        // Every cell has the same form (the eigenspaces' projections of e_j have norms that do
        // not depend on j), so it is trace((KᵀK)⁻¹)/cells: the identity workload's objective
        // divided by Δ1(K)² and the number of cells.
        std::vector<double> identity(marginalWeights.size(), 0.0);
        identity.back() = 1;
        std::vector<double> theta(marginalWeights.begin(), marginalWeights.end());
        auto f = marginalsObjective(shape, identity, theta, {});
        if (!f) {
            return f.error();
        }
        const double l = static_cast<double>(l1);
        return std::vector<double>(cells, *f / (l * l) / static_cast<double>(cells));
    }
    if (auto exact = twoProductForms(*this)) {
        return std::move(exact).value();
    }
    if (cells > kMaxStackCellForms) {
        return Error{"strategy release: a stacked (OPT₊) strategy over " +
                     groupThousands(static_cast<long long>(cells)) +
                     " cells; its per-cell variances are computed for at most " +
                     groupThousands(static_cast<long long>(kMaxStackCellForms)) +
                     " cells (one solve per cell) unless it stacks two Kronecker products of "
                     "p-Identity factors (a union workload of two parts)"};
    }
    std::vector<double> e(cells, 0.0), out(cells), forms(cells);
    for (std::size_t j = 0; j < cells; ++j) {
        e[j] = 1;
        linear->solveGram(e, out);
        forms[j] = out[j];
        e[j] = 0;
    }
    return forms;
}

std::string IntegerStrategy::describe() const {
    return "⌊" + groupThousands(static_cast<long long>(scale)) +
           "·A⌋: " + groupThousands(static_cast<long long>(rows())) +
           " rows, Δ1 = " + groupThousands(static_cast<long long>(l1)) +
           ", Δ2² = " + groupThousands(static_cast<long long>(l2Squared));
}

Expected<IntegerStrategy> roundStrategy(const DomainShape& shape, const DesignedStrategy& design,
                                        std::int64_t q) {
    if (q < 1 || q > kMaxScale) {
        return Error{"strategy rounding: the scale must be in [1, 2^30] (got " + std::to_string(q) +
                     ")"};
    }
    if (auto s = validateShape(shape); !s) {
        return s.error();
    }
    return roundAt(shape, design, static_cast<double>(q));
}

Expected<double> integerStrategyObjective(const IntegerStrategy& k, const Workload& w,
                                          MeasurementNoise law) {
    if (!k.linear) {
        return Error{"strategy rounding: no strategy"};
    }
    if (k.kind == DesignTemplate::Marginals) {
        // Scale-free: (Σw)²·trace((KᵀK)⁺WᵀW) (Laplace) or (Σw²)·trace((KᵀK)⁺WᵀW) (Gaussian) with
        // K's own weights.
        if (auto weights = marginalsWorkloadWeights(w)) {
            std::vector<double> theta(k.marginalWeights.begin(), k.marginalWeights.end());
            return marginalsObjective(k.shape, *weights, theta, {}, law);
        }
    }
    auto e = expectedLeastSquaresError(*k.linear, w, MeasurementSpec::laplace(1.0));
    if (!e) {
        return e.error();
    }
    // totalSquared = 2·Δ1(view)²·trace((KᵀK)⁻¹WᵀW) at ε = 1.
    const double view = k.linear->sensitivityL1();
    const double trace = e->totalSquared / (2 * view * view);
    return law == MeasurementNoise::Laplace
               ? trace * static_cast<double>(k.l1) * static_cast<double>(k.l1)
               : trace * static_cast<double>(k.l2Squared);
}

Expected<IntegerStrategy> chooseIntegerStrategy(const Workload& w, const DesignedStrategy& design,
                                                double tolerance, std::int64_t maxL1) {
    if (!std::isfinite(tolerance) || tolerance < 0) {
        return Error{"strategy rounding: the tolerance must be ≥ 0"};
    }
    if (!(design.objective > 0)) {
        return Error{"strategy rounding: the design has no objective"};
    }
    std::optional<IntegerStrategy> best;
    std::string lastError;
    for (std::int64_t q = 16; q <= std::min(maxL1, kMaxScale); q *= 2) {
        auto k = roundStrategy(w.shape(), design, q);
        if (!k) {
            lastError = k.error().message;
            continue;  // too coarse: try a larger scale
        }
        if (k->l1 > maxL1) {
            break;
        }
        auto f = integerStrategyObjective(*k, w, design.measurement);
        if (!f || !std::isfinite(*f)) {
            lastError = f ? "the rounded strategy does not answer the workload" : f.error().message;
            continue;
        }
        k->roundedObjective = *f;
        k->designObjective = design.objective;
        const bool better = !best || *f < best->roundedObjective;
        if (better) {
            best = std::move(k).value();
        }
        if (best->roundedObjective <= (1 + tolerance) * design.objective) {
            break;
        }
    }
    if (!best) {
        return Error{"strategy rounding: no integer rounding with Δ1 ≤ " +
                     groupThousands(static_cast<long long>(maxL1)) + " works (" + lastError + ")"};
    }
    return std::move(best).value();
}

}  // namespace dpx
