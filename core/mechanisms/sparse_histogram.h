// Sparse histograms by thresholded Laplace noise (seed 003, Hall's thesis, §2.4.1, eq. (2.3),
// after Cormode et al. 2011): add Laplace noise of scale b = 2/ε to every cell, then release 0 in
// every cell where h_i + L_i ≤ τ, and h_i + L_i elsewhere.
//
// Guarantee: ε-DP under replace-one neighbours (datasets of the same size n differing in one
// record), whose histogram L1 sensitivity is 2, so Laplace(2/ε) per cell is ε-DP (seed 003 Prop.
// 1.3.1) and thresholding is post-processing (Prop. 1.2.5). τ must be fixed before seeing the data
// (the default (2/ε)·ln p depends only on ε and the number of cells p). The same release is also
// ε-DP under add/remove neighbours (sensitivity 1 there); scale 2/ε is what the seed uses.
//
// "Laplace with negatives clamped to 0" (the seed's comparison in Figs. 2.3–2.4) is the same rule
// with τ = 0: max(h + L, 0) equals 0 exactly where h + L ≤ 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/accuracy/expected_error.h"  // MonteCarloOptions
#include "core/base/expected.h"
#include "core/base/simulation_rng.h"

namespace dpx {

enum class SparseMethod {
    Thresholded,  // release 0 where h + L ≤ τ (seed 003 eq. (2.3))
    Clamped,      // Laplace with negatives clamped to 0 (= thresholded with τ = 0)
};
const char* sparseMethodName(SparseMethod m);  // "thresholded" / "clamped"

// τ(p, ε) = (2/ε)·ln p, seed 003 eq. (2.4). Preconditions as SparseHistogramParams::validate.
double defaultSparseThreshold(double epsilon, std::size_t cells);

struct SparseHistogramParams {
    double epsilon = 1;
    // τ ≥ 0 (finite); unset: the default (2/ε)·ln p for the histogram at hand. A negative τ would
    // release negative counts, which thresholding is meant to avoid, so it is refused.
    std::optional<double> threshold;
    Status validate() const;
    double noiseScale() const { return 2 / epsilon; }  // b = 2/ε (replace-one, Δ1 = 2)
    // τ for a histogram of `cells` cells: the user's τ, else the default.
    double thresholdFor(std::size_t cells) const;
};

// Counts must be non-empty and ≥ 0; p = counts.size() ≥ 1.
Status validateSparseCounts(std::span<const std::int64_t> counts);

// Exact E|out − h| for one cell with true count h ≥ 0, out = (h + L)·1[h + L > τ], L ~ Laplace(b):
// with t = τ − h,  E = G(t) + h·F(t), F the Laplace cdf and G(t) = E[|L|·1{L > t}] =
//   ½e^{−t/b}(t + b)          (t ≥ 0),
//   b − ½e^{t/b}(b − t)       (t < 0).
// (Derived here; the seed only bounds it by τ + b for h > 0 and gives ½e^{−τ/b}(τ + b) for h = 0.)
// τ = 0 gives the clamped Laplace: E = b − (b/2)e^{−h/b}.
double sparseCellExpectedL1(double h, double scale, double threshold);

// Bound on E‖h − out‖₁ for a histogram with p cells of which at most q are non-zero, at threshold
// τ ≥ 0 and scale b: (p − q)·½e^{−τ/b}(τ + b) + q(τ + b) (each zero cell errs by L·1{L > τ}; each
// occupied cell by at most τ + |L|). At the default τ = b ln p it is ≤ ((2q+1)/ε)(ln p + 1).
double sparseRiskBoundAt(std::size_t cells, std::size_t occupied, double scale, double threshold);
// Seed 003 Prop. 2.4.3: ((2q+1)/ε)(ln p + 1). Checked: it holds, as ≤ rather than the printed
// "smaller than" (equality for q = 0, where the exact risk is ½(τ + b) = (1/ε)(ln p + 1)).
double sparseRiskBound(std::size_t cells, std::size_t occupied, double epsilon);

struct SparseExpectedError {
    double threshold = 0;             // τ used by the thresholded method
    double scale = 0;                 // b = 2/ε
    std::size_t cells = 0;            // p
    std::size_t occupied = 0;         // q = #{h_i > 0}
    double thresholdedL1 = 0;         // exact E‖h − out‖₁, thresholded
    double clampedL1 = 0;             // exact E‖h − out‖₁, Laplace clamped at 0
    double plainLaplaceL1 = 0;        // p·b: Laplace without post-processing
    double boundAtThreshold = 0;      // sparseRiskBoundAt(p, q, b, τ)
    std::optional<double> seedBound;  // ((2q+1)/ε)(ln p + 1), only when τ is the default
    std::vector<std::string> warnings;
};
Expected<SparseExpectedError> sparseExpectedError(std::span<const std::int64_t> counts,
                                                  const SparseHistogramParams& params);

// One simulated release on the simulation generator (NOT a publishable release: that needs the OS
// CSPRNG). Laplace draws in cell order.
Expected<std::vector<double>> simulateSparseHistogram(std::span<const std::int64_t> counts,
                                                      const SparseHistogramParams& params,
                                                      SparseMethod method, SimulationRng& rng);

struct SparseMonteCarloResult {
    // Per-trial L1 errors ‖h − out‖₁ in trial order, on common random numbers (trial t draws
    // L_1..L_p from stream t of the seed; both methods see the same L), so the output does not
    // depend on the thread count.
    std::vector<double> thresholdedL1;
    std::vector<double> clampedL1;
    double meanThresholded = 0, seThresholded = 0;  // mean and standard error over trials
    double meanClamped = 0, seClamped = 0;
    // Mean number of non-zero cells released by each method (sparsity of the output).
    double meanReleasedThresholded = 0, meanReleasedClamped = 0;
    SparseExpectedError expected;  // the exact values for comparison
    std::uint64_t trials = 0;      // completed (fewer if cancelled)
    bool cancelled = false;
    std::vector<std::string> warnings;
};
// options.trials in [2, 10^7]; keepSamples is ignored (every per-trial value is returned).
Expected<SparseMonteCarloResult> sparseMonteCarlo(std::span<const std::int64_t> counts,
                                                  const SparseHistogramParams& params,
                                                  const MonteCarloOptions& options);

}  // namespace dpx
