#include "core/matrix_mechanism/p_identity.h"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

#include "core/base/simulation_rng.h"
#include "core/base/trial_blocks.h"
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
                                                                     std::vector<double> theta,
                                                                     MeasurementNoise norm) {
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
        s->d_[j] = norm == MeasurementNoise::Laplace ? 1 + sum : std::sqrt(1 + sq);
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
    // x = diag(d)⁻¹·(y_I + Θᵀ·y_Θ), as Eigen's vectorised products (a release's simulated
    // intervals call this thousands of times).
    const Index p = ix(p_), n = ix(n_);
    Eigen::Map<const RowMat> t(theta_.data(), p, n);
    Eigen::Map<const Eigen::VectorXd> yi(y.data(), n), yt(y.data() + n_, p);
    Eigen::Map<const Eigen::VectorXd> d(d_.data(), n);
    Eigen::Map<Eigen::VectorXd> out(x.data(), n);
    out.noalias() = t.transpose() * yt;
    out = (out + yi).cwiseQuotient(d);
}

void PIdentityStrategy::solveGram(std::span<const double> b, std::span<double> out) const {
    // (AᵀA)⁻¹ = diag(d)·M⁻¹·diag(d) with M⁻¹u = u − Θᵀ C⁻¹ (Θu).
    const Index p = ix(p_), n = ix(n_);
    Eigen::Map<const RowMat> t(theta_.data(), p, n), cInv(cInv_.data(), p, p);
    Eigen::Map<const Eigen::VectorXd> d(d_.data(), n), bv(b.data(), n);
    const Eigen::VectorXd u = d.cwiseProduct(bv);
    const Eigen::VectorXd ctu = cInv * (t * u);
    Eigen::Map<Eigen::VectorXd> o(out.data(), n);
    o.noalias() = t.transpose() * ctu;
    o = d.cwiseProduct(u - o);
}

void PIdentityStrategy::leastSquares(std::span<const double> y, std::span<double> xhat) const {
    std::vector<double> aty(n_);
    transposeMeasure(y, aty);
    solveGram(aty, xhat);
}

std::string PIdentityStrategy::describe() const {
    return "p-Identity (p = " + std::to_string(p_) + ", McKenna et al. 2018)";
}

namespace {

// The objective and gradient with their work matrices kept between evaluations (an optimisation
// evaluates it hundreds of times; p × n temporaries of 0.5 MB each would be allocated, faulted in
// and freed every time). Every product is a GEMM with the explicit C⁻¹ (C = I + ΘΘᵀ has
// eigenvalues ≥ 1, so its inverse is well conditioned). With P = ΘĜ = ΘDGD and Q = PΘᵀ:
//   ΘM⁻¹ĜM⁻¹ = C⁻¹P − C⁻¹(PΘᵀ)C⁻¹Θ = C⁻¹P − (C⁻¹QC⁻¹)·Θ,
//   R = C⁻¹Θ·D·G = C⁻¹·(ΘDGD)·D⁻¹ = (C⁻¹P)·D⁻¹        (C⁻¹ symmetric, d_j ≥ 1),
// so one evaluation costs the rank update (p²n/2), Q, C⁻¹P and the last product (p²n each) —
// 3.5·p²n multiply-adds (it was 4.5·p²n with B = C⁻¹Θ, Q·B and a second product with G) — plus
// one product with G and O(p³).
class PIdentityEvaluator {
public:
    PIdentityEvaluator(const GramOperator& g, std::size_t p, MeasurementNoise law)
        : g_(g), p_(p), n_(g.size()), law_(law) {}

    double evaluate(std::span<const double> theta, std::span<double> gradient) {
        const Index p = ix(p_), n = ix(n_);
        Eigen::Map<const RowMat> t(theta.data(), p, n);
        if (law_ == MeasurementNoise::Laplace) {
            d_ = (t.colwise().sum().array() + 1).matrix().transpose();
        } else {
            d_ = (t.colwise().squaredNorm().array() + 1).sqrt().matrix().transpose();
        }
        c_.setIdentity(p, p);
        c_.selfadjointView<Eigen::Lower>().rankUpdate(t);
        c_.triangularView<Eigen::StrictlyUpper>() = c_.transpose();
        llt_.compute(c_);
        cInv_.setIdentity(p, p);
        llt_.solveInPlace(cInv_);
        // P = Θ Ĝ = ((Θ·diag(d))·G)·diag(d).
        td_.noalias() = t * d_.asDiagonal();
        pm_.resize(p, n);
        g_.multiply(std::span<const double>(td_.data(), p_ * n_), p_,
                    std::span<double>(pm_.data(), p_ * n_));
        pm_ = pm_ * d_.asDiagonal();
        q_.noalias() = pm_ * t.transpose();
        const auto& diag = g_.diagonal();
        double traceG = 0;
        for (std::size_t j = 0; j < n_; ++j) {
            traceG += d_(ix(j)) * d_(ix(j)) * diag[j];
        }
        const double f = traceG - (cInv_.cwiseProduct(q_.transpose())).sum();
        if (gradient.empty()) {
            return f;
        }
        cp_.noalias() = cInv_ * pm_;  // C⁻¹P
        s_.noalias() = cInv_ * q_;    // C⁻¹Q
        s2_.noalias() = s_ * cInv_;   // C⁻¹QC⁻¹
        // v_j = G_jj d_j − Σ_a Θ_aj R_aj with R = (C⁻¹P)·D⁻¹.
        v_ = (Eigen::Map<const Eigen::VectorXd>(diag.data(), n).cwiseProduct(d_)).transpose() -
             (t.cwiseProduct(cp_).colwise().sum().array() / d_.transpose().array()).matrix();
        // −2·Θ M⁻¹ĜM⁻¹ = 2·((C⁻¹QC⁻¹)·Θ − C⁻¹P), written in place.
        Eigen::Map<RowMat> grad(gradient.data(), p, n);
        grad.noalias() = s2_ * t;
        grad -= cp_;
        grad *= 2;
        if (law_ == MeasurementNoise::Laplace) {
            grad.rowwise() += 2 * v_;  // ∂d_j/∂Θ_aj = 1
        } else {
            // ∂d_j/∂Θ_aj = Θ_aj / d_j (see the header).
            const Eigen::RowVectorXd vd = v_.cwiseQuotient(d_.transpose());
            grad += 2 * (t.array().rowwise() * vd.array()).matrix();
        }
        return f;
    }

private:
    const GramOperator& g_;
    std::size_t p_, n_;
    MeasurementNoise law_;
    Eigen::VectorXd d_;
    Eigen::RowVectorXd v_;
    Eigen::MatrixXd c_, cInv_, q_, s_, s2_;
    Eigen::LLT<Eigen::MatrixXd> llt_;
    RowMat td_, pm_, cp_;
};

}  // namespace

Expected<double> pIdentityObjective(const GramOperator& g, std::size_t p,
                                    std::span<const double> theta, std::span<double> gradient,
                                    MeasurementNoise law) {
    if (auto s = checkTheta(g.size(), p, theta); !s) {
        return s.error();
    }
    if (!gradient.empty() && gradient.size() != theta.size()) {
        return Error{"p-Identity: the gradient has the wrong size"};
    }
    PIdentityEvaluator e(g, p, law);
    return e.evaluate(theta, gradient);
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
    if (!options.start.empty()) {
        if (auto s = checkTheta(n, p, options.start); !s) {
            return s.error();
        }
    }
    PIdentityResult out;
    const std::vector<double> lower(p * n, 0.0),
        upper(p * n, std::numeric_limits<double>::infinity());
    // Θ stays ≥ 0 and finite inside L-BFGS-B (it enforces the bounds and refuses non-finite
    // values), so the evaluator needs no checks.
    const ObjectiveFactory makeObjective = [&g, p, &options]() -> ObjectiveWithGradient {
        auto evaluator = std::make_shared<PIdentityEvaluator>(g, p, options.measurement);
        return [evaluator](std::span<const double> x, std::span<double> grad) {
            return evaluator->evaluate(x, grad);
        };
    };
    auto run =
        minimizeFromStarts(makeObjective, p * n, lower, upper, options, std::move(stop), progress);
    if (!run) {
        return run.error();
    }
    out.iterations = run->iterations;
    out.evaluations = run->evaluations;
    out.restartObjectives = std::move(run->restartObjectives);
    out.objective = run->objective;
    std::vector<double> best = std::move(run->best);
    auto strategy = PIdentityStrategy::make(n, p, std::move(best), options.measurement);
    if (!strategy) {
        return strategy.error();
    }
    out.strategy = std::move(strategy).value();
    if (progress) {
        progress(1.0);
    }
    return out;
}

Expected<MultiStartResult> minimizeFromStarts(const ObjectiveFactory& makeObjective,
                                              std::size_t size, std::span<const double> lower,
                                              std::span<const double> upper,
                                              const StrategyOptimizeOptions& options,
                                              std::stop_token stop,
                                              const ProgressCallback& progress) {
    const std::size_t restarts = options.restarts;
    TrialBlockOptions engine;
    engine.trials = restarts;
    engine.blockSize = 1;
    engine.threads = options.threads;
    engine.stop = stop;
    std::vector<ObjectiveWithGradient> objectives(trialBlockWorkers(engine));
    for (ObjectiveWithGradient& f : objectives) {
        f = makeObjective();
    }
    std::vector<std::optional<Expected<BoundedMinimizeResult>>> results(restarts);
    // Guarded by progressMutex: how far each restart is (1 once finished).
    std::mutex progressMutex;
    std::vector<double> within(restarts, 0.0);
    const auto report = [&](std::size_t r, double fraction) {
        if (!progress) {
            return;
        }
        const std::lock_guard lock(progressMutex);
        within[r] = fraction;
        double sum = 0;
        for (double v : within) {
            sum += v;
        }
        progress(sum / static_cast<double>(restarts));
    };
    const TrialBlocksRun run = runTrialBlocks(engine, [&](const TrialBlock& b) {
        const std::size_t r = static_cast<std::size_t>(b.index);
        std::vector<double> x0(size);
        if (r == 0 && !options.start.empty()) {
            x0 = options.start;
        } else {
            SimulationRng rng(options.seed, r);
            for (double& v : x0) {
                v = rng.uniform();
            }
        }
        const IterationCallback onIteration = [&report, r](std::size_t it, double) {
            report(r, static_cast<double>(it) / (static_cast<double>(it) + 50.0));
        };
        results[r] = minimizeBounded(objectives[b.worker], std::move(x0), lower, upper,
                                     options.minimizer, stop, onIteration);
        const bool ok = results[r]->hasValue();
        if (ok) {
            report(r, 1.0);
        }
        return ok;
    });
    // Every restart's failure (a cancellation included) in restart order; a restart never
    // started because another failed or the stop came first says why through its neighbour.
    for (auto& res : results) {
        if (res && !*res) {
            return res->error();
        }
    }
    if (!run.complete()) {
        return Error{"cancelled"};
    }
    MultiStartResult out;
    out.objective = std::numeric_limits<double>::infinity();
    for (auto& res : results) {
        BoundedMinimizeResult& one = res->value();
        out.iterations += one.iterations;
        out.evaluations += one.evaluations;
        out.restartObjectives.push_back(one.value);
        if (one.value < out.objective) {
            out.objective = one.value;
            out.best = std::move(one.x);
        }
    }
    return out;
}

double laplaceRmse(double objective, std::uint64_t queries, double epsilon) {
    return std::sqrt(2 * objective / (epsilon * epsilon * static_cast<double>(queries)));
}

double gaussianRmse(double objective, std::uint64_t queries, double sigma) {
    return std::sqrt(sigma * sigma * objective / static_cast<double>(queries));
}

}  // namespace dpx
