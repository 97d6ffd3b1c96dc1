// Seed 002's low-population telemetry experiment as a reusable runner (issue #7): for every
// protocol × data shape × population n × ε, simulate `repetitions` collections of n users whose
// values fall into k equal buckets on [0, 24] h, and report the mean "histogram error"
// max_v |f̂(v) − f(v)| and Wasserstein-1 distance (seed 002, §"Low population experiments"), with
// 95% confidence intervals, next to the analytic expectation of the estimator. Used by the LDP
// experiment window and `dpx ldp-experiment`. No Qt.
//
// Simulation: simulateAggregate (core/ldp/protocols.h), exact in distribution for RR, GRR, OUE,
// SUE, HRR; for dBitFlip and OLH every bucket's estimate has the protocol's exact law but buckets
// are drawn independently (the protocols' O(1/k) correlations between buckets are not reproduced;
// see simulateAggregate). The truth is telemetryCounts (core/ldp/metrics.h): the shape's
// probabilities scaled to exactly n users.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/ldp/metrics.h"
#include "core/ldp/protocols.h"

namespace dpx::ldp {

// Upper bounds checked by ExperimentSpec::validate().
inline constexpr unsigned kMaxExperimentRepetitions = 100'000;
inline constexpr std::uint64_t kMaxExperimentUsers = 1'000'000'000'000'000;  // telemetryCounts
// The largest experimentWork() accepted: 0.5–2 minutes of one core (one unit, a binomial draw or
// an erf evaluation, took 10–35 ns on the machine of docs/performance.md;
// telemetryExperimentPreset() is 1.2·10^8 units, 1.2 s on one core).
inline constexpr double kMaxExperimentWork = 3e9;

struct ExperimentSpec {
    // ε and domain of each are set per point (domain = buckets); protocol and, for dBitFlip, bits
    // are kept. Non-empty, no two equal (same protocol and, for dBitFlip, same d).
    std::vector<ProtocolSpec> protocols;
    std::vector<TelemetryShape> shapes;      // non-empty, no repeats
    std::size_t buckets = 32;                // k equal buckets on [0, 24] h, 2 ≤ k ≤ kMaxDomain
    std::vector<std::uint64_t> populations;  // n, each in [1, 10^15], no repeats
    std::vector<double> epsilons;            // each finite > 0 (and valid for every protocol)
    unsigned repetitions = 10;               // 1 … kMaxExperimentRepetitions
    std::uint64_t seed = 1;
    FrequencyPostProcess postProcess = FrequencyPostProcess::None;  // before both metrics

    // Every rule above, each protocol at every ε with D = buckets (ProtocolSpec::validate: RR
    // needs k = 2, dBitFlip d ≤ k, OLH ε ≤ 40, …), and experimentWork() ≤ kMaxExperimentWork.
    // Messages name the field ("epsilons[2]", "protocols[1] (dBitFlip d=40)", "repetitions").
    Status validate() const;
};

// Seed 002 (k = 32 buckets on [0, 24] h; normal, uniform and constant data; dBitFlip with
// d ∈ {1, 2, 4}; 10 repetitions; no post-processing, negatives clamped inside the W1 metric).
// The seed varies n in [10^3, 3·10^5] and ε in [0.1, 10] and reports values at n = 10^4, 10^5,
// 3·10^5 and ε = 1, 3. No geometric grid contains 10^4 and 3·10^5 (or 0.1, 1 and 3: log10 3 is
// irrational), so both grids are the 1-2-3-5 preferred-number series, ratios 1.5–2 (≈ log-spaced):
//   n ∈ {1, 2, 3, 5}·10^3 … {1, 2, 3}·10^5   (11 values: 1e3, 2e3, 3e3, 5e3, 1e4, …, 2e5, 3e5)
//   ε ∈ {0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10}   (9 values)
// 3 × 3 × 11 × 9 = 891 points. Seed 002 also memoises reports for repeated collection, which
// does not change a single collection's estimate.
ExperimentSpec telemetryExperimentPreset();

struct ExperimentPoint {
    std::size_t protocol = 0;  // index into spec.protocols
    TelemetryShape shape{};
    std::uint64_t users = 0;
    double epsilon = 0;
    // Means over the repetitions and 95% confidence half-widths t_{0.975, R−1}·s/√R (Student t;
    // 0 when R = 1, with a warning), both metrics on the post-processed estimate.
    double maxError = 0, maxErrorCi95 = 0;        // max_v |f̂(v) − f(v)|, frequencies
    double wasserstein = 0, wassersteinCi95 = 0;  // hours: wasserstein1Normalized at the bucket
                                                  // centres (negatives clamped, renormalised)
    // Of the unbiased estimate before post-processing (a warning says so when postProcess is set):
    double expectedMaxError = 0;  // expectedMaxAbsNormal of the per-bucket estimatorVariance
    double expectedMse = 0;       // exact: mean over buckets of Var[f̂_j] (estimatorVariance)
};

struct ExperimentResult {
    // Protocol-major, then shape, users, epsilon (each in the spec's order). When cancelled, only
    // the points whose every repetition finished, still in that order.
    std::vector<ExperimentPoint> points;
    bool cancelled = false;
    std::vector<std::string> warnings;
};

// Runs the experiment on `threads` threads (0: hardware concurrency; never more than the number
// of points or 256), one point at a time per thread. Repetition r of a point uses the simulation
// seed repetitionSeed(spec.seed, …) derived from the point's content, never from its position or
// the thread that ran it: the result does not depend on the thread count, and any point is
// reproduced alone by a spec holding only its protocol, shape, n and ε (same buckets, repetitions,
// seed and post-processing). `progress` gets the fraction of points done (thread-safe callback,
// called with increasing values, at most ~1000 times). A stop request returns the finished points
// with cancelled = true. Errors: spec.validate().
Expected<ExperimentResult> runExperiment(const ExperimentSpec& spec,
                                         const std::stop_token& stop = {},
                                         const ProgressCallback& progress = {},
                                         unsigned threads = 0);

// The simulation seed of repetition `repetition` of a point: SplitMix64 mixing (Steele, Lea &
// Flood 2014) of the experiment seed with the protocol (kind, d for dBitFlip, ε, D), the shape,
// n and r. `protocol` is the point's ProtocolSpec (ε and domain set).
std::uint64_t repetitionSeed(std::uint64_t seed, const ProtocolSpec& protocol, TelemetryShape shape,
                             std::uint64_t users, unsigned repetition);

// Number of points: protocols × shapes × populations × epsilons.
std::size_t experimentPointCount(const ExperimentSpec& spec);

// Estimated cost in elementary steps (binomial draws, erf evaluations), the quantity capped by
// validate(): per point, repetitions × (the aggregate simulator's draws + 3k for post-processing
// and metrics) + 4001·k for the expected maximum (expectedMaxAbsNormal's 4000 Simpson intervals).
// Draws per simulation: RR/GRR, OUE, SUE, OLH 2k; dBitFlip 4k; HRR k + min(n, k·k′) + 2k′ +
// k′·log2 k′ (k′ = 2^⌈log2 k⌉).
double experimentWork(const ExperimentSpec& spec);

// "RR", "GRR", "OUE", "SUE", "OLH", "HRR", "dBitFlip d=2".
std::string protocolLabel(const ProtocolSpec& p);

}  // namespace dpx::ldp
