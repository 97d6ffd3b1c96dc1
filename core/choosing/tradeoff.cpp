#include "core/choosing/tradeoff.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include "core/accuracy/expected_error.h"
#include "core/base/moments.h"
#include "core/base/random_variates.h"
#include "core/base/simulation_rng.h"
#include "core/base/trial_blocks.h"
#include "core/base/validation.h"
#include "core/choosing/tradeoff_algorithm.h"
#include "core/count/count_analysis.h"
#include "core/ldp/metrics.h"
#include "core/mechanisms/mechanism.h"
#include "core/mechanisms/sparse_histogram.h"

namespace dpx {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string num(double v) {
    return formatNumber(v);
}

const char* lpObjectiveName(const CountLpSpec& lp) {
    if (lp.aggregate == LpAggregate::Max) {
        switch (lp.cost) {
            case LpCostKind::L0:
                return "minimax-l0";
            case LpCostKind::L0d:
                return "minimax-l0d";
            case LpCostKind::L1:
                return "minimax-l1";
            case LpCostKind::L2:
                return "minimax-l2";
            case LpCostKind::Custom:
                return "minimax-custom";
        }
    }
    switch (lp.cost) {
        case LpCostKind::L0:
            return "l0";
        case LpCostKind::L0d:
            return "l0d";
        case LpCostKind::L1:
            return "l1";
        case LpCostKind::L2:
            return "l2";
        case LpCostKind::Custom:
            return "custom";
    }
    return "?";
}

// The truth as the error computations see it, n for count mechanisms, and for local protocols
// the protocol with its domain (ε is set per point) and the number of users N.
struct Prepared {
    std::vector<std::int64_t> counts;
    TruthModel truth;
    int n = 0;
    ldp::ProtocolSpec local;
    std::uint64_t users = 0;
    std::shared_ptr<const detail::AlgorithmSetup> algorithm;  // workload algorithms
};

// The checks of a local configuration that need the histogram: D = the number of bins.
Status prepareLocal(const Histogram& h, const TradeoffConfig& config, Prepared& p) {
    const std::size_t bins = h.size();
    const std::string name = localProtocolConfigName(config.local);
    if (bins < 2) {
        return Error{"local protocols need a domain of at least 2 values; the histogram has 1 bin"};
    }
    if (bins > ldp::kMaxDomain) {
        return Error{"local protocols work on domains of at most " +
                     std::to_string(ldp::kMaxDomain) + " values; the histogram has " +
                     std::to_string(bins) + " bins"};
    }
    if (config.local.protocol == ldp::Protocol::RR && bins != 2) {
        return Error{"rr (binary randomized response) needs exactly 2 bins; the histogram has " +
                     std::to_string(bins) + " (use grr for larger domains)"};
    }
    if (config.local.protocol == ldp::Protocol::DBitFlip && config.local.bits > bins) {
        return Error{name + " samples d = " + std::to_string(config.local.bits) +
                     " buckets per user, but the histogram has only " + std::to_string(bins) +
                     " bins (d must be in [1, " + std::to_string(bins) + "])"};
    }
    const std::int64_t n = h.total();
    if (n < 1) {
        return Error{"local protocols need at least one user: the histogram's total is 0"};
    }
    if (static_cast<std::uint64_t>(n) > kMaxBinomialTrials) {
        return Error{"local protocols simulate at most 2^62 users; the histogram's total is " +
                     std::to_string(n)};
    }
    p.local = config.local;
    p.local.domain = bins;
    p.local.epsilon = 1;  // any valid value: the spec is checked here, ε per point
    if (auto s = p.local.validate(); !s) {
        return s;
    }
    p.users = static_cast<std::uint64_t>(n);
    return okStatus();
}

Expected<Prepared> prepare(const Histogram& h, const TradeoffConfig& config) {
    if (auto s = config.validate(); !s) {
        return s.error();
    }
    Prepared p;
    if (config.mechanism == TradeoffMechanism::Algorithm) {
        // The algorithm's own checks (shape, dimensions, parameters); its metrics need no
        // TruthModel (a total of 0 is refused there only where a metric divides by it).
        auto setup = detail::prepareAlgorithm(h, config);
        if (!setup) {
            return setup.error();
        }
        p.counts = h.counts();
        p.algorithm = std::make_shared<const detail::AlgorithmSetup>(std::move(setup).value());
        return p;
    }
    p.counts = h.counts();
    p.truth = TruthModel{h.countsAsDouble(), h.positions()};
    if (auto s = p.truth.validate(); !s) {
        return s.error();
    }
    if (isLocalTradeoffMechanism(config.mechanism)) {
        if (auto s = prepareLocal(h, config, p); !s) {
            return s.error();
        }
    }
    if (isCountTradeoffMechanism(config.mechanism)) {
        const std::int64_t largest = *std::max_element(p.counts.begin(), p.counts.end());
        if (largest > kMaxCountPeople) {
            return Error{"count mechanisms work on counts up to " +
                         std::to_string(kMaxCountPeople) + ", but the largest bin holds " +
                         std::to_string(largest)};
        }
        const int n = config.countPeople > 0 ? config.countPeople
                                             : static_cast<int>(std::max<std::int64_t>(largest, 1));
        if (largest > n) {
            return Error{"the group size n = " + std::to_string(n) +
                         " is smaller than the largest bin count (" + std::to_string(largest) +
                         "): every count must be in 0…n"};
        }
        p.n = n;
    }
    return p;
}

Expected<CalibratedMechanism> calibrateAt(const TradeoffConfig& c, double epsilon) {
    MechanismSpec spec;
    spec.kind = additiveMechanismOf(c.mechanism).value_or(MechanismKind::Gaussian);
    spec.privacy = {epsilon, c.mechanism == TradeoffMechanism::Gaussian ? c.delta : 0};
    spec.calibration = c.calibration;
    return calibrate(spec, c.sensitivity);
}

// The matrix of a count mechanism at ε (LP: one cold solve).
Expected<CountMechanism> matrixAt(const TradeoffConfig& c, int n, double epsilon,
                                  const std::stop_token& stop) {
    switch (c.mechanism) {
        case TradeoffMechanism::CountGeometric:
            return truncatedGeometric(n, epsilon);
        case TradeoffMechanism::CountExplicitFair:
            return explicitFair(n, epsilon);
        case TradeoffMechanism::CountOptimal: {
            CountLpSpec spec = c.lp;
            spec.n = n;
            spec.epsilon = epsilon;
            auto r = designCountMechanism(spec, stop);
            if (!r) {
                return r.error();
            }
            if (r->status != LpStatus::Optimal) {
                return Error{std::string("the linear program ended '") + lpStatusName(r->status) +
                             "' at ε = " + num(epsilon)};
            }
            return *r->mechanism;
        }
        default:
            return Error{"not a count mechanism"};
    }
}

double scaleDivisor(const MetricSpec& m, double total) {
    return detail::metricScaleDivisor(m, total);
}

// Exact error of a count matrix, or nullopt when there is no exact method (see the header).
std::optional<double> exactCountError(const CountMechanism& m, const Prepared& p,
                                      const TradeoffConfig& c) {
    if (c.estimator != EstimatorKind::Identity && c.estimator != EstimatorKind::Clamp) {
        return std::nullopt;
    }
    const Metric metric = c.metric.metric;
    if (metric == Metric::W1) {
        return std::nullopt;
    }
    std::vector<InputErrorDistribution> laws;
    laws.reserve(p.counts.size());
    for (std::int64_t j : p.counts) {
        laws.push_back(*inputErrorDistribution(m, static_cast<std::size_t>(j)));
    }
    double sum = 0;
    if (metric == Metric::SSE || metric == Metric::L1) {
        for (const auto& d : laws) {
            sum += metric == Metric::SSE ? d.meanSquare : d.meanAbs;
        }
    } else {
        // E[max_i |e_i|] = Σ_{t=0}^{n−1} Pr[max |e_i| > t] = Σ_t (1 − Π_i (1 − Pr[|e_i| > t])),
        // bins independent; the product as exp(Σ log1p(−p_i)) keeps small tails accurate.
        for (int t = 0; t < p.n; ++t) {
            double logKeep = 0;
            for (const auto& d : laws) {
                logKeep += std::log1p(-std::min(1.0, d.pOffByMoreThan(t)));
            }
            sum += -std::expm1(logKeep);
        }
    }
    return sum / scaleDivisor(c.metric, p.truth.total());
}

std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Monte Carlo over a count matrix: trial t draws every bin from its column with seed
// splitmix(seed ⊕ splitmix(t)) (sampleOutputs), so results depend on the seed only.
CurvePoint monteCarloCount(const CountMechanism& m, const Prepared& p, const TradeoffConfig& c,
                           double epsilon, const CurveOptions& o,
                           const std::function<void(double)>& progress) {
    CurvePoint pt;
    pt.epsilon = epsilon;
    EstimatorWorkspace ws;
    std::vector<double> work(p.counts.size());
    double sum = 0, sumSq = 0;
    std::uint64_t done = 0;
    const double total = p.truth.total();
    for (; done < o.trials; ++done) {
        if (o.stop.stop_requested()) {
            break;
        }
        auto drawn = sampleOutputs(m, p.counts, splitmix(o.seed ^ splitmix(done)));
        if (!drawn) {
            pt.value = kNaN;
            pt.method = "unavailable: " + drawn.error().message;
            return pt;
        }
        std::copy(drawn->begin(), drawn->end(), work.begin());
        if (c.estimator != EstimatorKind::Identity) {
            estimateInPlace({c.estimator, 0}, work, ws);
        }
        const double v = evaluateMetric(c.metric, p.truth.counts, work, p.truth.positions, total);
        sum += v;
        sumSq += v * v;
        if (progress && done % 1024 == 0) {
            progress(static_cast<double>(done) / static_cast<double>(o.trials));
        }
    }
    pt.trials = done;
    if (done < 2) {
        pt.value = kNaN;
        pt.method =
            o.stop.stop_requested() ? "unavailable: cancelled" : "unavailable: fewer than 2 trials";
        return pt;
    }
    const double n = static_cast<double>(done);
    const double mean = sum / n;
    const double var = std::max(0.0, (sumSq - n * mean * mean) / (n - 1));
    const double half = 1.96 * std::sqrt(var / n);
    pt.value = mean;
    pt.ciLow = mean - half;
    pt.ciHigh = mean + half;
    pt.method = "Monte Carlo";
    if (o.stop.stop_requested()) {
        pt.method = "unavailable: cancelled";
        pt.value = kNaN;
    }
    return pt;
}

CurvePoint missing(double epsilon, const std::string& why) {
    CurvePoint p;
    p.epsilon = epsilon;
    p.value = p.ciLow = p.ciHigh = kNaN;
    p.method = "unavailable: " + why;
    return p;
}

CurvePoint exactPoint(double epsilon, double value, const std::string& method) {
    CurvePoint p;
    p.epsilon = epsilon;
    p.value = p.ciLow = p.ciHigh = value;
    p.method = "exact (" + method + ")";
    p.exact = true;
    return p;
}

// One point of a noise-per-bin configuration.
CurvePoint noisePoint(const Prepared& p, const TradeoffConfig& c, double epsilon,
                      const CurveOptions& o, const std::function<void(double)>& progress) {
    auto mech = calibrateAt(c, epsilon);
    if (!mech) {
        return missing(epsilon, mech.error().message);
    }
    const EstimatorSpec est{c.estimator, mech->noise.variance()};
    if (!o.forceMonteCarlo && exactMethodAvailable(p.truth, mech->noise, est, c.metric)) {
        auto e = exactExpectedError(p.truth, mech->noise, est, c.metric);
        if (e) {
            return exactPoint(epsilon, e->value, e->method);
        }
    }
    MonteCarloOptions mo;
    mo.trials = o.trials;
    mo.seed = o.seed;  // the same seed at every ε: common random numbers along the curve
    mo.threads = o.threads;
    mo.stop = o.stop;
    mo.progress = progress;
    auto mc = monteCarloExpectedError(p.truth, mech->noise, std::span(&est, 1),
                                      std::span(&c.metric, 1), mo);
    if (!mc) {
        return missing(epsilon, mc.error().message);
    }
    if (mc->cancelled) {
        return missing(epsilon, "cancelled");
    }
    const ErrorEstimate& r = mc->values[0][0];
    CurvePoint pt;
    pt.epsilon = epsilon;
    pt.value = r.value;
    pt.ciLow = r.ciLow;
    pt.ciHigh = r.ciHigh;
    pt.method = "Monte Carlo";
    pt.trials = r.trials;
    return pt;
}

CurvePoint countPoint(const CountMechanism& m, const Prepared& p, const TradeoffConfig& c,
                      double epsilon, const CurveOptions& o,
                      const std::function<void(double)>& progress) {
    if (!o.forceMonteCarlo) {
        if (auto v = exactCountError(m, p, c)) {
            return exactPoint(epsilon, *v, "per-bin error laws of the matrix");
        }
    }
    return monteCarloCount(m, p, c, epsilon, o, progress);
}

// ---------------------------------------------------------------------------------------------
// Sparse histograms (see the header): Laplace(b = Δ1/ε), then 0 where h + L ≤ τ = b·ln p.

double sparseScale(const TradeoffConfig& c, double epsilon) {
    return c.sensitivity.l1 / epsilon;
}

double sparseThreshold(const Prepared& p, double scale) {
    return scale * std::log(static_cast<double>(p.counts.size()));
}

bool sparseExactAvailable(const TradeoffConfig& c) {
    return c.metric.metric == Metric::L1 &&
           (c.estimator == EstimatorKind::Identity || c.estimator == EstimatorKind::Clamp);
}

constexpr const char* kSparseExactMethod = "per-bin closed form of thresholded Laplace";

double sparseExactL1(const Prepared& p, const TradeoffConfig& c, double epsilon) {
    const double b = sparseScale(c, epsilon);
    const double tau = sparseThreshold(p, b);
    double sum = 0;
    for (std::int64_t h : p.counts) {
        sum += sparseCellExpectedL1(static_cast<double>(h), b, tau);
    }
    return sum / scaleDivisor(c.metric, p.truth.total());
}

// Trial t draws L_1..L_p in bin order on SimulationRng(seed, t) (common random numbers along
// the curve), blocks of trials over `threads` (core/base/trial_blocks.h): thread-count independent.
CurvePoint sparseMonteCarlo(const Prepared& p, const TradeoffConfig& c, double epsilon,
                            const CurveOptions& o, const std::function<void(double)>& progress) {
    const double b = sparseScale(c, epsilon);
    const double tau = sparseThreshold(p, b);
    const std::size_t bins = p.counts.size();
    const double total = p.truth.total();
    std::vector<double> values(o.trials, 0.0);
    const auto kept =
        runTrialBlocks(o.trials, 256, o.threads, o.stop, progress, [&](std::uint64_t t) {
            SimulationRng rng(o.seed, t);
            std::vector<double> work(bins);
            for (std::size_t i = 0; i < bins; ++i) {
                bool negative = false;
                const double l = b * rng.exponential(&negative);
                const double y = p.truth.counts[i] + (negative ? -l : l);
                work[i] = y > tau ? y : 0.0;
            }
            if (c.estimator != EstimatorKind::Identity) {
                EstimatorWorkspace ws;
                estimateInPlace({c.estimator, 2 * b * b}, work, ws);
            }
            values[static_cast<std::size_t>(t)] =
                evaluateMetric(c.metric, p.truth.counts, work, p.truth.positions, total);
        });
    if (kept < o.trials && o.stop.stop_requested()) {
        return missing(epsilon, "cancelled");
    }
    values.resize(static_cast<std::size_t>(kept));
    if (kept < 2) {
        return missing(epsilon, "fewer than 2 trials");
    }
    const auto [mean, se] = meanAndStandardError(values);
    CurvePoint pt;
    pt.epsilon = epsilon;
    pt.value = mean;
    pt.ciLow = mean - 1.96 * se;
    pt.ciHigh = mean + 1.96 * se;
    pt.method = "Monte Carlo";
    pt.trials = kept;
    return pt;
}

CurvePoint sparsePoint(const Prepared& p, const TradeoffConfig& c, double epsilon,
                       const CurveOptions& o, const std::function<void(double)>& progress) {
    if (!o.forceMonteCarlo && sparseExactAvailable(c)) {
        return exactPoint(epsilon, sparseExactL1(p, c, epsilon), kSparseExactMethod);
    }
    return sparseMonteCarlo(p, c, epsilon, o, progress);
}

// ---------------------------------------------------------------------------------------------
// Local protocols (see the header).

bool localExactAvailable(const TradeoffConfig& c) {
    return c.estimator == EstimatorKind::Identity && c.metric.metric == Metric::SSE;
}

constexpr const char* kLocalExactMethod = "Σ Var[f̂_j] of the oracle's estimator";

// E[SSE] of the identity estimate at ε: Σ_j Var[f̂_j] (frequencies), ×N² on the counts scale
// (the release is N·f̂). Var[f̂_j] is ldp::estimatorVariance at f_j = θ_j/N, exact for every
// protocol (seed 001 §2.4; Wang et al. 2017, Thm 2; HRR and dBitFlip derived in ldp.cpp).
Expected<double> localExactSse(const Prepared& p, const TradeoffConfig& c, double epsilon) {
    ldp::ProtocolSpec spec = p.local;
    spec.epsilon = epsilon;
    const auto n = static_cast<double>(p.users);
    double sum = 0;
    for (const std::int64_t theta : p.counts) {
        auto v = ldp::estimatorVariance(spec, p.users, static_cast<double>(theta) / n);
        if (!v) {
            return v.error();
        }
        sum += *v;
    }
    return c.metric.scale == Scale::Counts ? sum * n * n : sum;
}

// Trials per block of the local Monte Carlo (the unit of work of a thread).
constexpr std::uint64_t kLocalBlock = 128;

// Monte Carlo of a local configuration at ε: trial t simulates one collection with
// ldp::simulateAggregate and seed splitmix(seed ⊕ splitmix(t)) — the same at every ε, so a curve
// uses common random numbers —, applies the estimator to f̂, releases N·f̂ and evaluates the
// metric. Blocks of kLocalBlock trials run on the trials engine (core/base/trial_blocks.h),
// merged in block order: the result depends on the seed only.
CurvePoint localMonteCarlo(const Prepared& p, const TradeoffConfig& c, double epsilon,
                           const CurveOptions& o, const std::function<void(double)>& progress) {
    ldp::ProtocolSpec spec = p.local;
    spec.epsilon = epsilon;
    std::mutex failureMutex;
    std::string failure;  // guarded by failureMutex
    const auto users = static_cast<double>(p.users);
    const double total = p.truth.total();
    auto fail = [&](const std::string& why) {
        const std::lock_guard lock(failureMutex);
        if (failure.empty()) {
            failure = why;
        }
        return std::optional<Moments>();
    };
    TrialBlockOptions blocks;
    blocks.trials = o.trials;
    blocks.blockSize = kLocalBlock;
    blocks.threads = o.threads;
    blocks.stop = o.stop;
    blocks.progress = progress;
    Moments all;
    const TrialBlocksRun run = runTrialBlocksInOrder(
        blocks,
        [&](const TrialBlock& b) -> std::optional<Moments> {
            std::vector<double> release(p.counts.size());
            std::vector<double> values(b.size());
            for (std::uint64_t t = b.begin; t < b.end; ++t) {
                auto est =
                    ldp::simulateAggregate(spec, p.counts, splitmix(o.seed ^ splitmix(t)), o.stop);
                if (!est) {
                    return fail(est.error().message);
                }
                if (est->cancelled) {
                    return std::nullopt;
                }
                std::vector<double>& f = est->frequencies;
                if (c.estimator == EstimatorKind::Clamp) {
                    for (double& x : f) {
                        x = std::max(x, 0.0);
                    }
                } else if (c.estimator == EstimatorKind::Resize) {
                    auto projected =
                        ldp::postProcessFrequencies(f, ldp::FrequencyPostProcess::Simplex);
                    if (!projected) {
                        return fail(projected.error().message);
                    }
                    f = std::move(*projected);
                }
                for (std::size_t j = 0; j < f.size(); ++j) {
                    release[j] = users * f[j];
                }
                values[t - b.begin] =
                    evaluateMetric(c.metric, p.truth.counts, release, p.truth.positions, total);
            }
            return Moments::of(values.data(), values.size());
        },
        [&](const Moments& m) { all.merge(m); });
    if (!failure.empty()) {
        return missing(epsilon, failure);
    }
    if (!run.complete()) {
        return missing(epsilon, "cancelled");
    }
    CurvePoint pt;
    pt.epsilon = epsilon;
    pt.value = all.mean;
    const double half = 1.96 * all.standardError();
    pt.ciLow = all.mean - half;
    pt.ciHigh = all.mean + half;
    pt.method = "Monte Carlo";
    pt.trials = o.trials;
    return pt;
}

CurvePoint localPoint(const Prepared& p, const TradeoffConfig& c, double epsilon,
                      const CurveOptions& o, const std::function<void(double)>& progress) {
    ldp::ProtocolSpec spec = p.local;
    spec.epsilon = epsilon;
    if (auto s = spec.validate(); !s) {
        return missing(epsilon, s.error().message);  // e.g. ε beyond what the protocol accepts
    }
    if (!o.forceMonteCarlo && localExactAvailable(c)) {
        auto v = localExactSse(p, c, epsilon);
        return v ? exactPoint(epsilon, *v, kLocalExactMethod) : missing(epsilon, v.error().message);
    }
    return localMonteCarlo(p, c, epsilon, o, progress);
}

// The exact error at ε, or an error saying why there is none.
Expected<double> exactErrorAt(const Prepared& p, const TradeoffConfig& c, double epsilon) {
    if (c.mechanism == TradeoffMechanism::Algorithm) {
        return detail::algorithmExactError(*p.algorithm, c, epsilon);
    }
    if (isLocalTradeoffMechanism(c.mechanism)) {
        if (!localExactAvailable(c)) {
            return Error{"solving for ε needs an exact error, and " + c.name() +
                         " has none (local protocols: identity with SSE; the others are Monte "
                         "Carlo)"};
        }
        return localExactSse(p, c, epsilon);
    }
    if (c.mechanism == TradeoffMechanism::SparseThreshold) {
        if (!sparseExactAvailable(c)) {
            return Error{"solving for ε needs an exact error, and " + c.name() +
                         " has none (sparse: identity or clamp with L1; the others are Monte "
                         "Carlo)"};
        }
        return sparseExactL1(p, c, epsilon);
    }
    if (!isCountTradeoffMechanism(c.mechanism)) {
        auto mech = calibrateAt(c, epsilon);
        if (!mech) {
            return mech.error();
        }
        const EstimatorSpec est{c.estimator, mech->noise.variance()};
        if (auto s = exactMethodAvailable(p.truth, mech->noise, est, c.metric); !s) {
            return Error{"solving for ε needs an exact error, and " + c.name() +
                         " with this metric has none (" + s.error().message + ")"};
        }
        auto e = exactExpectedError(p.truth, mech->noise, est, c.metric);
        if (!e) {
            return e.error();
        }
        return e->value;
    }
    auto m = matrixAt(c, p.n, epsilon, {});
    if (!m) {
        return m.error();
    }
    if (auto v = exactCountError(*m, p, c)) {
        return *v;
    }
    return Error{"solving for ε needs an exact error, and " + c.name() +
                 " has none (count matrices: identity or clamp with SSE, L1 or L∞)"};
}

// Smallest ε in [lo, hi] with f(ε) ≤ target, f decreasing (checked on 17 points).
// `show(value)` formats a value for messages, `unmet` the comparison that fails ("> 2.5").
template <class F, class Show>
Expected<EpsilonSolution> bisectDecreasing(const F& f, double target, double lo, double hi,
                                           const Show& show, const std::string& unmet) {
    if (!(std::isfinite(lo) && std::isfinite(hi) && lo > 0 && lo < hi)) {
        return Error{"the ε range must satisfy 0 < lo < hi (finite), got [" + num(lo) + ", " +
                     num(hi) + "]"};
    }
    if (!std::isfinite(target)) {
        return Error{"the target must be finite"};
    }
    EpsilonSolution s;
    auto eval = [&](double e) -> Expected<double> {
        ++s.evaluations;
        return f(e);
    };
    auto fHi = eval(hi);
    if (!fHi) {
        return fHi.error();
    }
    if (!(*fHi <= target)) {
        return Error{"the target is not reachable in the range: even ε = " + num(hi) + " gives " +
                     show(*fHi) + " " + unmet};
    }
    // Monotonicity on the bracket.
    constexpr int kChecks = 17;
    const double a0 = std::log(lo), b0 = std::log(hi);
    double prevE = 0, prevV = 0;
    for (int k = 0; k < kChecks; ++k) {
        const double e =
            k == kChecks - 1 ? hi : std::exp(a0 + (b0 - a0) * k / static_cast<double>(kChecks - 1));
        auto v = k == kChecks - 1 ? Expected<double>(*fHi) : eval(e);
        if (!v) {
            return v.error();
        }
        if (k > 0 && *v > prevV + 1e-9 * std::max(std::abs(prevV), 1e-300)) {
            return Error{"the error is not decreasing in ε on [" + num(lo) + ", " + num(hi) +
                         "]: ε = " + num(prevE) + " gives " + show(prevV) + " but ε = " + num(e) +
                         " gives " + show(*v) + "; bisection would not be reliable"};
        }
        prevE = e;
        prevV = *v;
    }
    auto fLo = eval(lo);
    if (!fLo) {
        return fLo.error();
    }
    if (*fLo <= target) {
        s.epsilon = lo;
        s.value = *fLo;
        return s;
    }
    double a = a0, b = b0, fb = *fHi;
    const double tol = std::log1p(1e-6);
    while (b - a > tol) {
        const double mid = 0.5 * (a + b);
        auto v = eval(std::exp(mid));
        if (!v) {
            return v.error();
        }
        if (*v <= target) {
            b = mid;
            fb = *v;
        } else {
            a = mid;
        }
    }
    s.epsilon = std::exp(b);
    s.value = fb;
    return s;
}

// OLH (Wang et al. 2017 §4.4) hashes to g = round(e^ε + 1) values, an integer. With g fixed,
// x = e^ε and u = g − 1, its exact identity SSE on the frequency scale is, times N (Wang et al.
// Thm 2 with Σ_j f_j = 1: D·q(1−q)/(p−q)² + (1−p−q)/(p−q), p = x/(x + u), q = 1/g),
//   N·SSE = D(x + u)²/((x − 1)²u) + (u² − x)/(u(x − 1)),
// whose two terms both decrease in x for u ≥ 1: the SSE decreases on each piece of constant g,
// e^ε ∈ [g − 3/2, g − 1/2), and jumps at every switch of g — up wherever the second term's jump
// exceeds the first's fall (e.g. for D < 7 at e^ε = 1.5). The infimum of piece g, its left limit
// at x = g − ½, is R_g = D·A(x) + B(x) with A = (2x − ½)²/((x − 1)²(x − ½)) and
// B = ((x − ½)² − x)/((x − ½)(x − 1)); A′ = −(4x − 1)(4x² + x − 2)/((x − 1)³(2x − 1)²) < 0 and
// (2A + B)′ = −3(20x³ − 9x + 1)/(2(x − 1)³(2x − 1)²) < 0 for x ≥ 3/2, so R_g decreases with g
// for every D ≥ 2. The smallest ε meeting a target therefore lies in the first piece whose R_g
// meets it (bisection over g), where the SSE is decreasing (bisection in ε).
double olhScaledSse(double x, double g, double domain) {
    const double u = g - 1;
    return domain * (x + u) * (x + u) / ((x - 1) * (x - 1) * u) + (u * u - x) / (u * (x - 1));
}

Expected<EpsilonSolution> smallestEpsilonOlh(const Prepared& p, const TradeoffConfig& c,
                                             double target, double lo, double hi) {
    if (!(std::isfinite(lo) && std::isfinite(hi) && lo > 0 && lo < hi)) {
        return Error{"the ε range must satisfy 0 < lo < hi (finite), got [" + num(lo) + ", " +
                     num(hi) + "]"};
    }
    int evaluations = 0;
    auto f = [&](double e) {
        ++evaluations;
        return exactErrorAt(p, c, e);
    };
    auto hashAt = [&](double e) -> Expected<std::uint64_t> {
        ldp::ProtocolSpec spec = p.local;
        spec.epsilon = e;
        auto k = ldp::oracleConstants(spec);
        if (!k) {
            return k.error();
        }
        return static_cast<std::uint64_t>(k->hashRange);
    };
    auto gLo = hashAt(lo);
    auto gHi = hashAt(hi);
    if (!gLo || !gHi) {
        return (gLo ? gHi : gLo).error();
    }
    auto fLo = f(lo);
    if (!fLo) {
        return fLo.error();
    }
    if (*fLo <= target) {
        return EpsilonSolution{lo, *fLo, evaluations, {}};
    }
    const auto users = static_cast<double>(p.users);
    const double scale = c.metric.scale == Scale::Counts ? users : 1 / users;
    const auto domain = static_cast<double>(p.local.domain);
    auto infimum = [&](std::uint64_t g) {
        const auto gd = static_cast<double>(g);
        return scale * olhScaledSse(gd - 0.5, gd, domain);
    };
    // The first piece g in [gLo, gHi) whose infimum meets the target (gHi: none of them).
    std::uint64_t a = *gLo, b = *gHi;
    while (a < b) {
        const std::uint64_t mid = a + (b - a) / 2;
        if (infimum(mid) <= target) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    // Piece g as [left, right] in doubles with hash range g: log(g − 3/2) and log(g − 1/2)
    // moved by a few ulps where rounding put them in the neighbouring piece. Empty if no double
    // has hash range g (only for e^ε beyond ~10^14, where a piece is narrower than an ulp of ε):
    // then the next piece that has one. A piece whose right end misses the target by rounding
    // passes to the next one too; kAttempts bounds both.
    constexpr int kUlpSteps = 64;
    constexpr int kAttempts = 256;
    std::uint64_t g = a;
    for (int attempt = 0; attempt < kAttempts && g <= *gHi; ++attempt) {
        double left = lo;
        double right = hi;
        if (g > *gLo) {
            left = std::log(static_cast<double>(g) - 1.5);
            for (int k = 0; k < kUlpSteps; ++k) {
                auto h = hashAt(left);
                if (!h) {
                    return h.error();
                }
                if (*h >= g) {
                    break;
                }
                left = std::nextafter(left, hi);
            }
        }
        if (g < *gHi) {
            right = std::log(static_cast<double>(g) - 0.5);
            for (int k = 0; k < kUlpSteps; ++k) {
                auto h = hashAt(right);
                if (!h) {
                    return h.error();
                }
                if (*h <= g) {
                    break;
                }
                right = std::nextafter(right, lo);
            }
        }
        auto hl = hashAt(left);
        auto hr = hashAt(right);
        if (!hl || !hr) {
            return (hl ? hr : hl).error();
        }
        if (*hl != g || *hr != g || left > right) {
            // No double in this piece: on to the piece of the first double above it.
            auto next = hashAt(std::nextafter(std::max(left, right), hi));
            if (!next) {
                return next.error();
            }
            g = std::max(g + 1, *next);
            continue;
        }
        auto fRight = f(right);
        if (!fRight) {
            return fRight.error();
        }
        if (!(*fRight <= target)) {
            // The target lies within rounding of this piece's infimum: the next piece (after
            // the last one, g = gHi + 1 says the range is exhausted).
            ++g;
            continue;
        }
        if (left == right) {
            return EpsilonSolution{right, *fRight, evaluations, {}};
        }
        auto show = [](double v) { return num(v); };
        auto s = bisectDecreasing(f, target, left, right, show, "> " + num(target));
        if (s) {
            s->evaluations = evaluations;
        }
        return s;
    }
    if (g <= *gHi) {  // kAttempts pieces without a double or within rounding of the target
        return Error{
            "OLH's hash range g = round(e^ε + 1) changes faster than ε can be resolved "
            "near ε = " +
            num(std::log(static_cast<double>(g))) + ": no ε could be found for the target " +
            num(target)};
    }
    // Unreachable: the least error in the range is the last piece's value at hi or the infimum
    // of the piece before it.
    auto fHi = f(hi);
    if (!fHi) {
        return fHi.error();
    }
    double bestE = hi;
    double best = *fHi;
    if (*gHi > *gLo && infimum(*gHi - 1) < best) {
        best = infimum(*gHi - 1);
        bestE = std::log(static_cast<double>(*gHi) - 1.5);
    }
    return Error{"the target is not reachable in the range: even ε = " + num(bestE) + " gives " +
                 num(best) + " > " + num(target)};
}

struct SortedCurve {
    std::vector<std::pair<double, double>> pts;  // valid (ε, value), ε increasing
};

SortedCurve sortedValid(const ErrorCurve& c) {
    SortedCurve s;
    for (const auto& p : c.points) {
        if (p.valid() && p.epsilon > 0 && std::isfinite(p.epsilon)) {
            s.pts.emplace_back(p.epsilon, p.value);
        }
    }
    std::stable_sort(s.pts.begin(), s.pts.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    return s;
}

bool sameEpsilon(double a, double b) {
    return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

double valueAt(const SortedCurve& s, double e, bool* interpolated) {
    if (interpolated) {
        *interpolated = false;
    }
    const auto& v = s.pts;
    if (v.empty()) {
        return kNaN;
    }
    auto it = std::lower_bound(v.begin(), v.end(), e,
                               [](const auto& p, double x) { return p.first < x; });
    if (it != v.end() && sameEpsilon(it->first, e)) {
        return it->second;
    }
    if (it != v.begin() && sameEpsilon(std::prev(it)->first, e)) {
        return std::prev(it)->second;
    }
    if (it == v.begin() || it == v.end()) {
        return kNaN;  // outside the curve's range: no extrapolation
    }
    const auto& [e0, v0] = *std::prev(it);
    const auto& [e1, v1] = *it;
    const double t = (std::log(e) - std::log(e0)) / (std::log(e1) - std::log(e0));
    if (interpolated) {
        *interpolated = true;
    }
    if (v0 > 0 && v1 > 0) {
        return std::exp(std::log(v0) + t * (std::log(v1) - std::log(v0)));
    }
    return v0 + t * (v1 - v0);
}

}  // namespace

std::optional<MechanismKind> additiveMechanismOf(TradeoffMechanism m) {
    switch (m) {
        case TradeoffMechanism::Laplace:
            return MechanismKind::Laplace;
        case TradeoffMechanism::Geometric:
            return MechanismKind::Geometric;
        case TradeoffMechanism::Gaussian:
            return MechanismKind::Gaussian;
        default:
            return std::nullopt;
    }
}

const char* tradeoffMechanismName(TradeoffMechanism m) {
    if (const auto kind = additiveMechanismOf(m)) {
        return mechanismName(*kind);  // the same names as everywhere else
    }
    switch (m) {
        case TradeoffMechanism::CountGeometric:
            return "gm";
        case TradeoffMechanism::CountExplicitFair:
            return "em";
        case TradeoffMechanism::CountOptimal:
            return "optimal";
        case TradeoffMechanism::Local:
            return "local";
        case TradeoffMechanism::SparseThreshold:
            return "sparse";
        case TradeoffMechanism::Algorithm:
            return "algo";
        default:
            break;
    }
    return "?";
}

bool isCountTradeoffMechanism(TradeoffMechanism m) {
    return m == TradeoffMechanism::CountGeometric || m == TradeoffMechanism::CountExplicitFair ||
           m == TradeoffMechanism::CountOptimal;
}

bool isLocalTradeoffMechanism(TradeoffMechanism m) {
    return m == TradeoffMechanism::Local;
}

std::string localProtocolConfigName(const ldp::ProtocolSpec& spec) {
    std::string s = ldp::protocolName(spec.protocol);
    if (spec.protocol == ldp::Protocol::DBitFlip) {
        s += std::to_string(spec.bits);
    }
    return s;
}

Expected<ldp::ProtocolSpec> localProtocolFromConfigName(const std::string& name) {
    ldp::ProtocolSpec spec;
    const std::string dbit = "dbitflip";
    if (name.rfind(dbit, 0) == 0) {
        spec.protocol = ldp::Protocol::DBitFlip;
        const std::string digits = name.substr(dbit.size());
        if (digits.empty()) {
            spec.bits = 1;
            return spec;
        }
        // A whole number ≥ 1 without sign or leading zeros, at most 9 digits (d ≤ kMaxDomain).
        const bool wellFormed = digits.size() <= 9 && digits.front() != '0' &&
                                std::all_of(digits.begin(), digits.end(),
                                            [](char ch) { return ch >= '0' && ch <= '9'; });
        if (!wellFormed) {
            return Error{"local protocol '" + name +
                         "': the bits of dbitflipD must be a whole number ≥ 1 (e.g. dbitflip2)"};
        }
        spec.bits = static_cast<std::size_t>(std::stoul(digits));
        return spec;
    }
    for (const ldp::Protocol p : {ldp::Protocol::RR, ldp::Protocol::GRR, ldp::Protocol::OUE,
                                  ldp::Protocol::SUE, ldp::Protocol::OLH, ldp::Protocol::HRR}) {
        if (name == ldp::protocolName(p)) {
            spec.protocol = p;
            return spec;
        }
    }
    return Error{"unknown local protocol '" + name +
                 "' (use rr, grr, oue, sue, olh, hrr or dbitflipD, e.g. dbitflip2)"};
}

std::string TradeoffConfig::defaultLabel() const {
    if (mechanism == TradeoffMechanism::Algorithm) {
        return algorithmConfigName(algorithm, algorithmParameters);
    }
    if (mechanism == TradeoffMechanism::Local) {
        return localProtocolConfigName(local) + ":" + estimatorName(estimator);
    }
    std::string s = tradeoffMechanismName(mechanism);
    if (mechanism == TradeoffMechanism::CountOptimal) {
        s += std::string("(") + lpObjectiveName(lp);
        if (lp.cost == LpCostKind::L0d) {
            s += "=" + std::to_string(lp.d);
        }
        s += ")";
    }
    return s + ":" + estimatorName(estimator);
}

Status TradeoffConfig::validate() const {
    if (mechanism == TradeoffMechanism::Algorithm) {
        // The shape and the algorithm's dimensions depend on the histogram: checked by
        // errorCurve and the solver (detail::prepareAlgorithm).
        return detail::validateAlgorithmConfig(*this);
    }
    if (mechanism == TradeoffMechanism::Local) {
        // The domain and RR's 2 bins, dBitFlip's d ≤ D and D ≤ ldp::kMaxDomain depend on the
        // histogram: checked by errorCurve and the solvers (prepareLocal).
        const std::string name = localProtocolConfigName(local);
        if (std::string_view(ldp::protocolName(local.protocol)) == "?") {
            return Error{"unknown local protocol"};
        }
        if (estimator == EstimatorKind::NoiseFirst) {
            return Error{"NoiseFirst is not applicable to local protocols (" + name +
                         "): it assumes one noise variance in every bin, and an oracle's "
                         "variance depends on the bin's frequency (use identity, clamp or "
                         "resize)"};
        }
        if (local.protocol == ldp::Protocol::DBitFlip && local.bits < 1) {
            return Error{"the bits d of dbitflip must be at least 1"};
        }
        return okStatus();
    }
    if (mechanism == TradeoffMechanism::SparseThreshold && estimator == EstimatorKind::NoiseFirst) {
        return Error{
            "NoiseFirst is not applicable to the sparse (thresholded) release: it assumes "
            "untouched Laplace noise in every bin (use identity, clamp or resize)"};
    }
    if (mechanism == TradeoffMechanism::Gaussian) {
        if (auto s = validateDelta(delta); !s) {
            return s;
        }
    }
    if (isCountTradeoffMechanism(mechanism)) {
        if (sensitivity.l1 != 1) {
            return Error{std::string("count mechanisms (") + tradeoffMechanismName(mechanism) +
                         ") treat each bin as a count with Δ = 1; the histogram's sensitivity "
                         "is Δ1 = " +
                         num(sensitivity.l1)};
        }
        if (estimator == EstimatorKind::NoiseFirst) {
            return Error{
                "NoiseFirst assumes the same noise variance in every bin; count "
                "mechanisms do not have one"};
        }
        if (countPeople < 0 || countPeople > kMaxCountPeople) {
            return Error{"the group size n must be in [1, " + std::to_string(kMaxCountPeople) +
                         "] (or 0 for the largest count), got " + std::to_string(countPeople)};
        }
    }
    return okStatus();
}

bool CurvePoint::valid() const {
    return std::isfinite(value);
}

Expected<std::vector<double>> logSpacedEpsilons(double lo, double hi, std::size_t count) {
    return logSpaced(lo, hi, count);
}

Expected<ErrorCurve> errorCurve(const Histogram& truth, const TradeoffConfig& config,
                                std::span<const double> epsilons, const CurveOptions& options) {
    auto prep = prepare(truth, config);
    if (!prep) {
        return prep.error();
    }
    if (epsilons.empty()) {
        return Error{"the ε grid is empty"};
    }
    for (double e : epsilons) {
        if (auto s = validateEpsilon(e); !s) {
            return s.error();
        }
    }
    if (options.trials < 2) {
        return Error{"Monte Carlo needs at least 2 trials per point"};
    }
    if (config.mechanism == TradeoffMechanism::Algorithm &&
        (options.algorithmTrials < 2 || options.algorithmTrials > 1'000'000)) {
        return Error{"workload algorithms need 2 to 10^6 runs per Monte Carlo point, got " +
                     std::to_string(options.algorithmTrials)};
    }
    ErrorCurve curve;
    curve.label = config.name();
    const std::size_t total = epsilons.size();
    const bool lp = config.mechanism == TradeoffMechanism::CountOptimal;
    // LP designs: solved first, all together (warm-started sweep); that is the first half of
    // the progress.
    const double lpShare = lp ? 0.5 : 0.0;
    std::vector<CountLpResult> designs;
    if (lp) {
        CountLpSpec spec = config.lp;
        spec.n = prep->n;
        auto sweep =
            designCountMechanismSweep(spec, std::vector<double>(epsilons.begin(), epsilons.end()),
                                      options.stop, [&](std::size_t done, std::size_t all) {
                                          if (options.progress) {
                                              options.progress(lpShare * static_cast<double>(done) /
                                                               static_cast<double>(all));
                                          }
                                      });
        if (!sweep) {
            return sweep.error();
        }
        designs = std::move(*sweep);
    }
    for (std::size_t k = 0; k < total; ++k) {
        const double e = epsilons[k];
        if (options.stop.stop_requested()) {
            curve.cancelled = true;
            curve.points.push_back(missing(e, "cancelled"));
            continue;
        }
        auto sub = [&](double f) {
            if (options.progress) {
                options.progress(lpShare + (1 - lpShare) * (static_cast<double>(k) + f) /
                                               static_cast<double>(total));
            }
        };
        CurvePoint pt;
        if (config.mechanism == TradeoffMechanism::Algorithm) {
            pt = detail::algorithmPoint(*prep->algorithm, config, e, options, sub);
        } else if (isLocalTradeoffMechanism(config.mechanism)) {
            pt = localPoint(*prep, config, e, options, sub);
        } else if (config.mechanism == TradeoffMechanism::SparseThreshold) {
            pt = sparsePoint(*prep, config, e, options, sub);
        } else if (!isCountTradeoffMechanism(config.mechanism)) {
            pt = noisePoint(*prep, config, e, options, sub);
        } else if (lp) {
            const CountLpResult& r = designs[k];
            if (r.status != LpStatus::Optimal || !r.mechanism) {
                pt = missing(
                    e, std::string("the linear program ended '") + lpStatusName(r.status) + "'");
            } else {
                pt = countPoint(*r.mechanism, *prep, config, e, options, sub);
            }
        } else {
            auto m = matrixAt(config, prep->n, e, options.stop);
            pt = m ? countPoint(*m, *prep, config, e, options, sub) : missing(e, m.error().message);
        }
        if (options.stop.stop_requested() && !pt.valid()) {
            curve.cancelled = true;
        }
        curve.points.push_back(std::move(pt));
        sub(1);
    }
    return curve;
}

// ---------------------------------------------------------------------------------------------

double curveValueAt(const ErrorCurve& curve, double epsilon, bool* interpolated) {
    return valueAt(sortedValid(curve), epsilon, interpolated);
}

Frontier lowerEnvelope(std::span<const ErrorCurve> curves, double tieTolerance) {
    std::vector<SortedCurve> sorted;
    std::vector<double> grid;
    for (const auto& c : curves) {
        sorted.push_back(sortedValid(c));
        for (const auto& p : sorted.back().pts) {
            grid.push_back(p.first);
        }
    }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end(), sameEpsilon), grid.end());
    Frontier f;
    for (double e : grid) {
        FrontierPoint best;
        bool found = false;
        for (std::size_t c = 0; c < sorted.size(); ++c) {
            bool interp = false;
            const double v = valueAt(sorted[c], e, &interp);
            if (!std::isfinite(v)) {
                continue;
            }
            const bool tie =
                found && std::abs(v - best.value) <=
                             tieTolerance * std::max(std::abs(v), std::abs(best.value));
            if (!found || (!tie && v < best.value)) {
                best = {e, v, c, interp};
                found = true;
            }
        }
        if (found) {
            f.points.push_back(best);
        }
    }
    // Segments; boundaries at the crossing of the two curves between neighbouring grid points.
    for (std::size_t k = 0; k < f.points.size(); ++k) {
        const FrontierPoint& p = f.points[k];
        if (f.segments.empty() || f.segments.back().curve != p.curve) {
            double from = p.epsilon;
            if (!f.segments.empty()) {
                const FrontierPoint& q = f.points[k - 1];
                const double a0 = valueAt(sorted[q.curve], q.epsilon, nullptr);
                const double b0 = valueAt(sorted[p.curve], q.epsilon, nullptr);
                const double a1 = valueAt(sorted[q.curve], p.epsilon, nullptr);
                const double b1 = valueAt(sorted[p.curve], p.epsilon, nullptr);
                const double x0 = std::log(q.epsilon), x1 = std::log(p.epsilon);
                double t = 0.5;
                if (std::isfinite(a0) && std::isfinite(b0) && std::isfinite(a1) &&
                    std::isfinite(b1)) {
                    const bool logs = a0 > 0 && b0 > 0 && a1 > 0 && b1 > 0;
                    auto g = [&](double v) { return logs ? std::log(v) : v; };
                    const double d0 = g(a0) - g(b0), d1 = g(a1) - g(b1);
                    if (d0 <= 0 && d1 > 0 && d1 - d0 > 0) {
                        t = -d0 / (d1 - d0);
                    } else if (d0 >= 0 && d1 < 0 && d0 - d1 > 0) {
                        t = d0 / (d0 - d1);
                    }
                }
                from = std::exp(x0 + t * (x1 - x0));
                f.segments.back().epsilonTo = from;
            }
            f.segments.push_back({p.curve, curves[p.curve].label, from, p.epsilon});
        } else {
            f.segments.back().epsilonTo = p.epsilon;
        }
    }
    return f;
}

// ---------------------------------------------------------------------------------------------

Frontier resolveStatisticalTies(std::span<const ErrorCurve> curves, Frontier frontier) {
    auto pointOf = [&curves](std::size_t c, double x) -> const CurvePoint* {
        if (c >= curves.size()) {
            return nullptr;
        }
        for (const CurvePoint& p : curves[c].points) {
            if (p.epsilon == x && p.valid()) {
                return &p;
            }
        }
        return nullptr;
    };
    auto half = [](const CurvePoint& p) {
        return p.exact ? 0.0 : std::max(p.ciHigh - p.value, p.value - p.ciLow);
    };
    for (FrontierPoint& fp : frontier.points) {
        const CurvePoint* pw = pointOf(fp.curve, fp.epsilon);
        if (!pw) {
            continue;
        }
        std::size_t best = fp.curve;
        const CurvePoint* pb = pw;
        for (std::size_t j = 0; j < curves.size(); ++j) {
            const CurvePoint* pj = j == fp.curve ? nullptr : pointOf(j, fp.epsilon);
            if (!pj || (pw->exact && pj->exact) ||
                std::abs(pj->value - pw->value) > half(*pw) + half(*pj)) {
                continue;
            }
            if ((pj->exact && !pb->exact) || (pj->exact == pb->exact && j < best)) {
                best = j;
                pb = pj;
            }
        }
        fp.curve = best;
    }
    // Segments again from the runs of one curve; a boundary keeps the envelope's interpolated
    // crossing where one lies between the two points, else it is where the new run starts.
    const std::vector<FrontierSegment> crossings = frontier.segments;
    frontier.segments.clear();
    for (std::size_t k = 0; k < frontier.points.size(); ++k) {
        const FrontierPoint& fp = frontier.points[k];
        if (!frontier.segments.empty() && frontier.segments.back().curve == fp.curve) {
            frontier.segments.back().epsilonTo = fp.epsilon;
            continue;
        }
        double from = fp.epsilon;
        if (k > 0) {
            const double previous = frontier.points[k - 1].epsilon;
            for (const FrontierSegment& c : crossings) {
                if (c.epsilonFrom > previous && c.epsilonFrom <= fp.epsilon) {
                    from = c.epsilonFrom;
                }
            }
            frontier.segments.back().epsilonTo = from;
        }
        frontier.segments.push_back({fp.curve, curves[fp.curve].label, from, fp.epsilon});
    }
    return frontier;
}

Expected<Histogram> scaleToPopulation(const Histogram& truth, std::int64_t population) {
    __extension__ using Int128 = __int128;
    if (population < 0 || population > 1'000'000'000'000'000) {
        return Error{"the population N must be in [0, 1e15], got " + std::to_string(population)};
    }
    const std::int64_t t = truth.total();
    if (t <= 0) {
        return Error{"the histogram has total 0: it has no shape to scale"};
    }
    const auto& c = truth.counts();
    std::vector<std::int64_t> out(c.size());
    std::vector<std::int64_t> rem(c.size());
    std::int64_t assigned = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const Int128 q = static_cast<Int128>(population) * c[i];
        out[i] = static_cast<std::int64_t>(q / t);
        rem[i] = static_cast<std::int64_t>(q % t);
        assigned += out[i];
    }
    std::vector<std::size_t> order(c.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rem[a] > rem[b]; });
    const std::int64_t left = population - assigned;  // < number of bins with rem > 0
    for (std::int64_t k = 0; k < left; ++k) {
        ++out[order[static_cast<std::size_t>(k)]];
    }
    return Histogram::create(std::move(out), truth.labels(), truth.edges());
}

Expected<std::vector<PopulationPoint>> errorVsPopulation(const Histogram& truth,
                                                         const TradeoffConfig& config,
                                                         double epsilon,
                                                         std::span<const std::int64_t> populations,
                                                         const CurveOptions& options) {
    // Bad input is an error; a size the configuration cannot handle (a count mechanism whose
    // largest scaled bin exceeds kMaxCountPeople) is a missing point with its reason, so the
    // sizes it can handle are still drawn.
    if (auto st = config.validate(); !st) {
        return st.error();
    }
    if (isLocalTradeoffMechanism(config.mechanism)) {
        // A protocol's checks depend on the bins, not on N: an error, not missing points.
        Prepared probe;
        if (auto st = prepareLocal(truth, config, probe); !st) {
            return st.error();
        }
    }
    for (std::int64_t n : populations) {
        if (n < 1) {
            return Error{"population sizes must be at least 1, got " + std::to_string(n)};
        }
    }
    std::vector<PopulationPoint> out;
    for (std::size_t k = 0; k < populations.size(); ++k) {
        auto h = scaleToPopulation(truth, populations[k]);
        if (!h) {
            return h.error();
        }
        CurveOptions o = options;
        o.progress = [&, k](double f) {
            if (options.progress) {
                options.progress((static_cast<double>(k) + f) /
                                 static_cast<double>(populations.size()));
            }
        };
        CurvePoint missing;
        missing.epsilon = epsilon;
        missing.value = missing.ciLow = missing.ciHigh = kNaN;
        if (options.stop.stop_requested()) {
            missing.method = "unavailable: cancelled";
            out.push_back({populations[k], missing});
            continue;
        }
        auto c = errorCurve(*h, config, std::span(&epsilon, 1), o);
        if (!c) {
            missing.method = "unavailable: " + c.error().message;
            out.push_back({populations[k], missing});
            continue;
        }
        out.push_back({populations[k], c->points[0]});
    }
    return out;
}

// ---------------------------------------------------------------------------------------------

Expected<EpsilonSolution> smallestEpsilonFor(double target, const TradeoffConfig& config,
                                             const Histogram& truth, double lo, double hi) {
    auto prep = prepare(truth, config);
    if (!prep) {
        return prep.error();
    }
    if (!(std::isfinite(target) && target > 0)) {
        return Error{"the target error must be positive and finite, got " + num(target)};
    }
    if (isLocalTradeoffMechanism(config.mechanism) && config.local.protocol == ldp::Protocol::OLH &&
        localExactAvailable(config)) {
        auto s = smallestEpsilonOlh(*prep, config, target, lo, hi);
        if (s) {
            s->method =
                "bisection in log ε on the exact error, within the first piece of OLH's hash "
                "range g that meets the target";
        }
        return s;
    }
    auto f = [&](double e) { return exactErrorAt(*prep, config, e); };
    auto show = [](double v) { return num(v); };
    auto s = bisectDecreasing(f, target, lo, hi, show, "> " + num(target));
    if (s) {
        s->method = "bisection in log ε on the exact error";
    }
    return s;
}

Expected<double> perBinWithinProbability(const TradeoffConfig& config, double epsilon, double k) {
    if (config.mechanism == TradeoffMechanism::Algorithm) {
        return Error{
            "the per-bin target is for noise-per-bin mechanisms (laplace, geometric, "
            "gaussian); a workload algorithm's error in a bin depends on what it measured "
            "(and, if data-dependent, on the data): use the expected-error target"};
    }
    if (isCountTradeoffMechanism(config.mechanism) || isLocalTradeoffMechanism(config.mechanism) ||
        config.mechanism == TradeoffMechanism::SparseThreshold) {
        return Error{
            "the per-bin target is for noise-per-bin mechanisms (laplace, geometric, "
            "gaussian); the error law of a count matrix, a local protocol or a thresholded "
            "(sparse) release depends on the count"};
    }
    if (auto s = config.validate(); !s) {
        return s.error();
    }
    if (!(std::isfinite(k) && k > 0)) {
        return Error{"the half-width k must be positive and finite, got " + num(k)};
    }
    auto mech = calibrateAt(config, epsilon);
    if (!mech) {
        return mech.error();
    }
    return 1 - mech->noise.absSurvival(k);
}

Expected<EpsilonSolution> smallestEpsilonPerBin(double k, double q, const TradeoffConfig& config,
                                                double lo, double hi) {
    if (!(q > 0 && q < 1)) {
        return Error{"the probability q must be in (0, 1), got " + num(q)};
    }
    if (auto p = perBinWithinProbability(config, hi, k); !p) {
        return p.error();
    }
    const std::string claim = "Pr[|Z| ≤ " + num(k) + "]";
    if (config.mechanism == TradeoffMechanism::Laplace) {
        // 1 − e^{−kε/Δ1} ≥ q  ⇔  ε ≥ Δ1·ln(1/(1−q))/k.
        if (!(std::isfinite(lo) && std::isfinite(hi) && lo > 0 && lo < hi)) {
            return Error{"the ε range must satisfy 0 < lo < hi (finite), got [" + num(lo) + ", " +
                         num(hi) + "]"};
        }
        const double e = -config.sensitivity.l1 * std::log1p(-q) / k;
        EpsilonSolution s;
        s.method = "closed form ε = Δ1·ln(1/(1−q))/k";
        if (e > hi) {
            return Error{"the target is not reachable in the range: even ε = " + num(hi) +
                         " gives " + claim + " = " +
                         num(-std::expm1(-k * hi / config.sensitivity.l1)) + " < " + num(q)};
        }
        s.epsilon = std::max(e, lo);
        s.value = -std::expm1(-k * s.epsilon / config.sensitivity.l1);
        return s;
    }
    // Pr[|Z| > k] is decreasing in ε; solve Pr[|Z| > k] ≤ 1 − q.
    auto f = [&](double e) -> Expected<double> {
        auto mech = calibrateAt(config, e);
        if (!mech) {
            return mech.error();
        }
        return mech->noise.absSurvival(k);
    };
    auto show = [&](double out) { return claim + " = " + num(1 - out); };
    auto s = bisectDecreasing(f, 1 - q, lo, hi, show, "< " + num(q));
    if (s) {
        s->value = 1 - s->value;
        s->method = "bisection in log ε on the closed-form probability";
    }
    return s;
}

}  // namespace dpx
