#include "core/matrix_mechanism/p_identity.h"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Eigen::Index;

Index ix(std::size_t v) {
    return static_cast<Index>(v);
}

Status checkTheta(std::size_t n, std::size_t p, std::span<const double> theta) {
    if (n < 1 || p < 1) {
        return Error{"p-Identity: the domain and p must be at least 1"};
    }
    if (p > std::numeric_limits<std::size_t>::max() / n || theta.size() != p * n) {
        return Error{"p-Identity: Θ has " + std::to_string(theta.size()) + " entries, expected " +
                     std::to_string(p) + " × " + std::to_string(n)};
    }
    for (double v : theta) {
        if (!std::isfinite(v) || v < 0) {
            return Error{"p-Identity: every entry of Θ must be finite and ≥ 0"};
        }
    }
    return okStatus();
}

}  // namespace

Expected<std::unique_ptr<PIdentityStrategy>> PIdentityStrategy::make(std::size_t n, std::size_t p,
                                                                     std::vector<double> theta) {
    if (auto s = checkTheta(n, p, theta); !s) {
        return s.error();
    }
    std::unique_ptr<PIdentityStrategy> s(new PIdentityStrategy);
    s->n_ = n;
    s->p_ = p;
    s->shape_ = {n};
    s->theta_ = std::move(theta);
    Eigen::Map<const RowMat> t(s->theta_.data(), ix(p), ix(n));
    s->d_.resize(n);
    s->l1_ = 0;
    s->l2_ = 0;
    for (std::size_t j = 0; j < n; ++j) {
        const double sum = t.col(ix(j)).sum();
        const double sq = t.col(ix(j)).squaredNorm();
        s->d_[j] = 1 + sum;
        s->l1_ = std::max(s->l1_, (1 + sum) / s->d_[j]);
        s->l2_ = std::max(s->l2_, std::sqrt(1 + sq) / s->d_[j]);
    }
    Eigen::MatrixXd c = Eigen::MatrixXd::Identity(ix(p), ix(p)) + t * t.transpose();
    Eigen::LLT<Eigen::MatrixXd> llt(c);
    if (llt.info() != Eigen::Success) {
        return Error{"p-Identity: I + ΘΘᵀ is not positive definite (Θ too large?)"};
    }
    const Eigen::MatrixXd inv = llt.solve(Eigen::MatrixXd::Identity(ix(p), ix(p)));
    s->cInv_.resize(p * p);
    Eigen::Map<RowMat>(s->cInv_.data(), ix(p), ix(p)) = inv;
    return s;
}

void PIdentityStrategy::measure(std::span<const double> x, std::span<double> y) const {
    std::fill(y.begin() + static_cast<std::ptrdiff_t>(n_), y.end(), 0.0);
    for (std::size_t j = 0; j < n_; ++j) {
        y[j] = x[j] / d_[j];
    }
    for (std::size_t a = 0; a < p_; ++a) {
        const double* row = theta_.data() + a * n_;
        double s = 0;
        for (std::size_t j = 0; j < n_; ++j) {
            s += row[j] * y[j];
        }
        y[n_ + a] = s;
    }
}

void PIdentityStrategy::transposeMeasure(std::span<const double> y, std::span<double> x) const {
    for (std::size_t j = 0; j < n_; ++j) {
        x[j] = y[j];
    }
    for (std::size_t a = 0; a < p_; ++a) {
        const double* row = theta_.data() + a * n_;
        const double ya = y[n_ + a];
        for (std::size_t j = 0; j < n_; ++j) {
            x[j] += row[j] * ya;
        }
    }
    for (std::size_t j = 0; j < n_; ++j) {
        x[j] /= d_[j];
    }
}

void PIdentityStrategy::solveGram(std::span<const double> b, std::span<double> out) const {
    // (AᵀA)⁻¹ = diag(d)·M⁻¹·diag(d) with M⁻¹u = u − Θᵀ C⁻¹ (Θu).
    std::vector<double> u(n_), tu(p_, 0.0), ctu(p_, 0.0);
    for (std::size_t j = 0; j < n_; ++j) {
        u[j] = d_[j] * b[j];
    }
    for (std::size_t a = 0; a < p_; ++a) {
        const double* row = theta_.data() + a * n_;
        double s = 0;
        for (std::size_t j = 0; j < n_; ++j) {
            s += row[j] * u[j];
        }
        tu[a] = s;
    }
    for (std::size_t a = 0; a < p_; ++a) {
        double s = 0;
        for (std::size_t c = 0; c < p_; ++c) {
            s += cInv_[a * p_ + c] * tu[c];
        }
        ctu[a] = s;
    }
    for (std::size_t a = 0; a < p_; ++a) {
        const double* row = theta_.data() + a * n_;
        for (std::size_t j = 0; j < n_; ++j) {
            u[j] -= row[j] * ctu[a];
        }
    }
    for (std::size_t j = 0; j < n_; ++j) {
        out[j] = d_[j] * u[j];
    }
}

void PIdentityStrategy::leastSquares(std::span<const double> y, std::span<double> xhat) const {
    std::vector<double> aty(n_);
    transposeMeasure(y, aty);
    solveGram(aty, xhat);
}

std::string PIdentityStrategy::describe() const {
    return "p-Identity (p = " + std::to_string(p_) + ", McKenna et al. 2018)";
}

Expected<double> pIdentityObjective(const GramOperator& g, std::size_t p,
                                    std::span<const double> theta, std::span<double> gradient) {
    const std::size_t n = g.size();
    if (auto s = checkTheta(n, p, theta); !s) {
        return s.error();
    }
    if (!gradient.empty() && gradient.size() != theta.size()) {
        return Error{"p-Identity: the gradient has the wrong size"};
    }
    Eigen::Map<const RowMat> t(theta.data(), ix(p), ix(n));
    const Eigen::VectorXd d = (t.colwise().sum().array() + 1).matrix().transpose();
    Eigen::MatrixXd c = Eigen::MatrixXd::Identity(ix(p), ix(p));
    c.noalias() += t * t.transpose();
    Eigen::LLT<Eigen::MatrixXd> llt(c);
    if (llt.info() != Eigen::Success) {
        return Error{"p-Identity: I + ΘΘᵀ is not positive definite"};
    }
    // P = Θ Ĝ = ((Θ·diag(d))·G)·diag(d).
    RowMat td = t * d.asDiagonal();
    RowMat pm(ix(p), ix(n));
    g.multiply(std::span<const double>(td.data(), p * n), p, std::span<double>(pm.data(), p * n));
    pm = pm * d.asDiagonal();
    const Eigen::MatrixXd q = pm * t.transpose();
    const auto& diag = g.diagonal();
    double traceG = 0;
    for (std::size_t j = 0; j < n; ++j) {
        traceG += d(ix(j)) * d(ix(j)) * diag[j];
    }
    const double f = traceG - llt.solve(q).trace();
    if (gradient.empty()) {
        return f;
    }
    const RowMat b = llt.solve(RowMat(t));  // C⁻¹Θ
    const RowMat z = llt.solve(pm);         // C⁻¹P
    const Eigen::MatrixXd zt = z * t.transpose();
    const RowMat thetaY = z - zt * b;  // Θ M⁻¹ Ĝ M⁻¹
    const RowMat bd = b * d.asDiagonal();
    RowMat r(ix(p), ix(n));
    g.multiply(std::span<const double>(bd.data(), p * n), p, std::span<double>(r.data(), p * n));
    Eigen::Map<RowMat> grad(gradient.data(), ix(p), ix(n));
    for (std::size_t j = 0; j < n; ++j) {
        const Index jj = ix(j);
        const double v = diag[j] * d(jj) - t.col(jj).dot(r.col(jj));
        grad.col(jj) = (-2 * thetaY.col(jj).array() + 2 * v).matrix();
    }
    return f;
}

Expected<PIdentityResult> optimizePIdentity(const GramOperator& g, std::size_t p,
                                            const StrategyOptimizeOptions& options,
                                            std::stop_token stop,
                                            const ProgressCallback& progress) {
    const std::size_t n = g.size();
    if (p < 1 || p > n) {
        return Error{"p-Identity: p must be in [1, " + std::to_string(n) +
                     "] (the domain size), got " + std::to_string(p)};
    }
    if (p * n > (std::size_t{1} << 24)) {
        return Error{"p-Identity: p × n = " + groupThousands(static_cast<long long>(p * n)) +
                     " parameters, more than 16,777,216"};
    }
    if (options.restarts < 1 || options.restarts > 1000) {
        return Error{"p-Identity: restarts must be in [1, 1000]"};
    }
    PIdentityResult out;
    out.objective = std::numeric_limits<double>::infinity();
    std::vector<double> best;
    const std::vector<double> lower(p * n, 0.0),
        upper(p * n, std::numeric_limits<double>::infinity());
    const ObjectiveWithGradient f = [&](std::span<const double> x, std::span<double> grad) {
        auto v = pIdentityObjective(g, p, x, grad);
        return v ? *v : std::numeric_limits<double>::quiet_NaN();
    };
    for (std::size_t r = 0; r < options.restarts; ++r) {
        SimulationRng rng(options.seed, r);
        std::vector<double> x0(p * n);
        for (double& v : x0) {
            v = rng.uniform();
        }
        const double base = static_cast<double>(r) / static_cast<double>(options.restarts);
        const IterationCallback onIteration = [&](std::size_t it, double) {
            if (progress) {
                // Within a restart: a saturating guess (L-BFGS-B's iterations are not known ahead).
                const double within = static_cast<double>(it) / (static_cast<double>(it) + 50.0);
                progress(base + within / static_cast<double>(options.restarts));
            }
        };
        auto res =
            minimizeBounded(f, std::move(x0), lower, upper, options.minimizer, stop, onIteration);
        if (!res) {
            return res.error();
        }
        out.iterations += res->iterations;
        out.evaluations += res->evaluations;
        out.restartObjectives.push_back(res->value);
        if (res->value < out.objective) {
            out.objective = res->value;
            best = std::move(res->x);
        }
    }
    auto strategy = PIdentityStrategy::make(n, p, std::move(best));
    if (!strategy) {
        return strategy.error();
    }
    out.strategy = std::move(strategy).value();
    if (progress) {
        progress(1.0);
    }
    return out;
}

double laplaceRmse(double objective, std::uint64_t queries, double epsilon) {
    return std::sqrt(2 * objective / (epsilon * epsilon * static_cast<double>(queries)));
}

}  // namespace dpx
