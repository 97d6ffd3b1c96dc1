// Expected error of (mechanism, estimator, metric) on a given true histogram.
//
// Exact methods (the method used is reported; value to ≤ 1e-9 relative, and errorBound says how far
// it can be off — larger only where the counts dwarf the noise, e.g. 1e9 ± 4, because the
// estimators then evaluate h + z at the rounding limit of double precision):
//  * identity: closed forms, Σ Var for SSE, n·E|Z| for L1, and E[max_i |Z_i|] as a 1-D integral
//    (Laplace: b·H_n, the n-th harmonic number) or a sum (discrete law) for L∞;
//  * clamp: per-bin closed forms (Laplace, Gaussian) or sums (discrete law) for SSE and L1, and a
//    1-D integral / sum of 1 − Π_i Pr[|e_i| ≤ t] for L∞;
//  * resize and NoiseFirst on 2 bins: the error is a polynomial of degree ≤ 2 on each cell of an
//    arrangement of lines (the estimator's regimes and the metric's kinks), so the inner integral
//    is exact from partial moments of the noise and the outer one is adaptive Gauss–Kronrod between
//    the arrangement's vertices (continuous noise) or a sum (discrete law);
//  * the frequency scale divides the count-scale value by N (N² for SSE).
// Anything else (W1, resize/NoiseFirst beyond 2 bins) has no exact method: use Monte Carlo.
//
// Monte Carlo: trials are cut into fixed blocks, block b draws from stream b of the seed, and block
// sums are combined in block order, so the result depends on the seed only, not on the thread
// count.
#pragma once

#include <cstdint>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/accuracy/metrics.h"
#include "core/base/expected.h"
#include "core/base/noise_distribution.h"
#include "core/base/stop_token.h"
#include "core/estimators/estimator.h"

namespace dpx {

struct ErrorEstimate {
    double value = 0;
    double stdError = 0;  // 0 for exact methods
    double ciLow = 0;     // 95% interval (equal to value for exact methods)
    double ciHigh = 0;
    std::string method;        // "closed form", "per-bin closed form", "summation", ...
    std::uint64_t trials = 0;  // Monte Carlo only
    double errorBound = 0;     // exact methods: estimated absolute numerical error
};

// The true histogram as the error computations see it.
struct TruthModel {
    std::vector<double> counts;     // true counts (non-negative, finite, total > 0)
    std::vector<double> positions;  // bin positions for W1, strictly increasing
    Status validate() const;
    double total() const;
};

// Whether an exact method exists for this combination (and if not, why not).
Status exactMethodAvailable(const TruthModel& truth, const NoiseDistribution& noise,
                            const EstimatorSpec& estimator, const MetricSpec& metric);

Expected<ErrorEstimate> exactExpectedError(const TruthModel& truth, const NoiseDistribution& noise,
                                           const EstimatorSpec& estimator,
                                           const MetricSpec& metric);

struct MonteCarloOptions {
    std::uint64_t trials = 100000;
    std::uint64_t seed = 1;
    unsigned threads = 0;       // 0: std::thread::hardware_concurrency()
    ProgressCallback progress;  // optional, called from worker threads
    std::stop_token stop;       // cancellation
    // Keep the individual error values of the first keepSamples trials (in trial order, so the
    // same for any thread count), e.g. to draw their distribution. 0: keep none.
    std::uint64_t keepSamples = 0;
};

struct MonteCarloResult {
    // values[e][m]: estimator e, metric m; on common random numbers (every estimator sees the same
    // noisy histograms), so differences between estimators are estimated precisely.
    std::vector<std::vector<ErrorEstimate>> values;
    std::uint64_t trials = 0;  // completed trials (fewer than asked if cancelled)
    // samples[e][m][t]: the error of trial t (t < keepSamples and < trials); empty if not asked.
    std::vector<std::vector<std::vector<double>>> samples;
    bool cancelled = false;
};

// Block size of the deterministic partition of trials (trials of block b use stream b).
inline constexpr std::uint64_t kMonteCarloBlock = 4096;

Expected<MonteCarloResult> monteCarloExpectedError(const TruthModel& truth,
                                                   const NoiseDistribution& noise,
                                                   std::span<const EstimatorSpec> estimators,
                                                   std::span<const MetricSpec> metrics,
                                                   const MonteCarloOptions& options);

}  // namespace dpx
