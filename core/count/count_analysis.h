// Verification and analysis of count mechanism matrices (issue #3, "Verification and analysis (for
// every matrix)"): the error law of every input, seeded sampling of outputs for a vector of group
// counts, and the matrix of a central noise mechanism restricted to the counts {0..n} by clamping,
// so that Laplace, the geometric and the Gaussian mechanism can be compared cell by cell with GM,
// EM and the LP designs. Conventions as in count_mechanism.h: P[i][j] = Pr[output i | true count
// j], n = people(), and every fallible call returns Expected with a message naming the bad value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/noise_distribution.h"
#include "core/count/count_mechanism.h"

namespace dpx {

// ---------------------------------------------------------------------------------------------
// Error laws

// The law of the error e = output − true count, stored densely over the integers
// minError..maxError(). Every statistic is a plain left-to-right sum over the stored entries (index
// order, so results are reproducible bit for bit): pCorrect = Pr[e = 0], bias = Σ e·Pr[e],
// meanAbs = Σ |e|·Pr[e], meanSquare = Σ e²·Pr[e]. Probabilities are the matrix entries as stored,
// so they sum to 1 within kColumnSumTolerance, not exactly.
struct ErrorDistribution {
    int minError = 0;
    std::vector<double> probabilities;  // probabilities[k] = Pr[e = minError + k]
    double pCorrect = 0;
    double bias = 0;
    double meanAbs = 0;
    double meanSquare = 0;

    int maxError() const { return minError + static_cast<int>(probabilities.size()) - 1; }
    // Pr[e = error]; 0 outside minError..maxError().
    double probability(int error) const;
    // Pr[|e| > d] = Σ_{|e| > d} Pr[e], summed directly over the tail entries rather than as
    // 1 − Pr[|e| ≤ d], so small tail probabilities keep their relative accuracy. d < 0 gives the
    // total mass.
    double pOffByMoreThan(int d) const;
};

// The error law of one true count j: e ∈ [−j, n−j], Pr[e] = P[j+e][j], i.e. column j shifted so
// that index k ↔ e = k − j (minError = −j, n+1 entries, pCorrect = P[j][j]).
struct InputErrorDistribution : ErrorDistribution {
    std::size_t input = 0;  // the true count j
};

// The error law of true count `input`. Error if input > n.
Expected<InputErrorDistribution> inputErrorDistribution(const CountMechanism& mechanism,
                                                        std::size_t input);
// The error laws of all inputs j = 0..n, in order ((n+1)² doubles in total).
std::vector<InputErrorDistribution> inputErrorDistributions(const CountMechanism& mechanism);

// The error law when the true count is drawn from the prior w: Pr[e] = Σ_j w_j·P[j+e][j] over
// e ∈ [−n, n] (minError = −n, 2n+1 entries; each Pr[e] summed over j in increasing order).
// Under w: pCorrect = Σ_j w_j P[j][j] = 1 − n/(n+1)·L0(w), meanAbs = expectedLoss(w, L1),
// meanSquare = expectedLoss(w, L2). The weights follow the rules of CountMechanism::l0: size n+1,
// finite, ≥ 0, summing to 1 within 1e-9; errors name the offending entry.
Expected<ErrorDistribution> mixtureErrorDistribution(const CountMechanism& mechanism,
                                                     const std::vector<double>& weights);

// ---------------------------------------------------------------------------------------------
// Sampling (simulation only)

// The output the inverse-CDF method assigns to the uniform u ∈ [0, 1) for true count j: with
// C_i = P[0][j] + … + P[i][j] (summed in order) and i* the last row with P[i*][j] > 0, thresholds
// t_i = C_i / C_n for i < i* and t_i = 1 for i ≥ i*; the output is the smallest i with u < t_i.
// Because t_{i*} = 1 > u the draw can never fall off the end even when the column sums to slightly
// less than 1, and a row with P[i][j] = 0 is never returned (its threshold equals the previous
// one). Errors: j > n, or u outside [0, 1) (or NaN).
Expected<int> outputForUniform(const CountMechanism& mechanism, std::size_t trueCount, double u);

// One output per group: outputs[g] = outputForUniform(mechanism, trueCounts[g], u_g) where u_g is
// the g-th value of SimulationRng(seed, 0).uniform(). The result therefore depends only on the
// matrix, the seed and the counts up to g (a prefix of the counts gives a prefix of the outputs):
// same seed, same outputs, on every platform and thread count. Threshold tables are built only for
// the columns that occur (O(n) each), then every draw is a binary search: O(N log n) for N groups.
// Errors: a count outside [0, n]; the message names the index and the value. An empty vector of
// counts gives an empty result. SimulationRng is not a CSPRNG: these draws are for previews and
// Monte Carlo checks, never for releasing data.
Expected<std::vector<int>> sampleOutputs(const CountMechanism& mechanism,
                                         const std::vector<std::int64_t>& trueCounts,
                                         std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// Central mechanisms as count matrices

// The matrix of "add noise Z to the true count j, then map to {0..n}":
//   continuous Z (Laplace, Gaussian): output = clamp(round(j + Z), 0, n), rounding half up, so
//     output i collects j + Z ∈ [i − ½, i + ½):
//       P[0][j] = Pr[Z < ½ − j],  P[n][j] = Pr[Z ≥ n − ½ − j],
//       P[i][j] = Pr[i − j − ½ ≤ Z < i − j + ½]  (0 < i < n);
//   integer Z (discrete Laplace): output = clamp(j + Z, 0, n):
//       P[0][j] = Pr[Z ≤ −j],  P[n][j] = Pr[Z ≥ n − j],  P[i][j] = Pr[Z = i − j].
// (The integer case is the continuous formula with the same half-integer interval ends.) Entries
// are computed without cancellation: the end rows as a single lower-tail cdf or upper-tail
// survival value; the interior entries (which depend only on d = |i − j|, by the symmetry of the
// laws) in closed form for Laplace (½e^{−(d−½)/b}·(1 − e^{−1/b}) via expm1, and 1 − e^{−1/(2b)} at
// d = 0), as the probability mass for the discrete law, and for the Gaussian as erf(1/(2√2σ)) at
// d = 0 and a difference of upper-tail survival values Pr[Z ≥ d − ½] − Pr[Z ≥ d + ½] for d ≥ 1
// (relative error grows like σ·1e-16 when σ ≫ 1). The Laplace closed form matters for wide noise:
// with cdf/survival differences the achieved ε at ε = 1e-6 would be off by ~1e-10. Each column is
// then divided by its computed sum (which is 1 up to rounding).
//
// Privacy (all with neighbouring counts j, j+1, i.e. Δ = 1):
//   * Laplace(b): the matrix is post-processing of the Laplace mechanism, so it is (1/b)-DP. The
//     bound is attained: rows whose intervals lie in the same tail for columns j and j+1 (end rows
//     with j ≥ 1, and interior rows with i ≠ j, j+1) have ratio exactly e^{1/b}; only the
//     intervals containing 0 give less (ratio e^{1/b}·2x/(1+x), x = e^{−1/(2b)}). achievedEpsilon()
//     is therefore ε up to rounding for n ≥ 2 (within 1e-12; observed ≤ 9e-14 for n ≤ 2000, the
//     ulp of ln of the smallest entries), and ln(2e^{ε/2} − 1) < ε for n = 1 (0.832 at ε = 1).
//   * discrete Laplace(α): the matrix is GM (truncatedGeometric) with ε = −ln α, equal up to
//     rounding (≤ 6e-16 per entry for n ≤ 2000).
//   * Gaussian(σ): (ε, δ)-DP for the (ε, δ) σ was calibrated to (post-processing), and NOT ε-DP
//     in general. Gaussian tail ratios grow without bound, so achievedEpsilon() of the clamped
//     matrix (the exact pure-DP level of the finite matrix) grows with n, dominated by the end rows
//     (Pr[Z ≥ n − ½ − j] against Pr[Z ≥ n − 3/2 − j]): for ε = 1, δ = 1e-6 (σ ≈ 4.22) it is 0.19
//     at n = 1, 0.59 at n = 10, above ε = 1 from n = 18 on, 5.56 at n = 100, and +∞ (underflow)
//     from n ≈ 170. Small-n values below ε do not make the Gaussian an ε-DP mechanism; they are a
//     property of that finite matrix only. Never label such a matrix "ε-DP" with the calibration ε:
//     report the (ε, δ) of the Gaussian mechanism, and achievedEpsilon() as the matrix's own pure
//     level.
//   * Entries far in the tails can underflow to 0 (for Laplace when (n − ½)/b ≳ 745, e.g. n = 2000,
//     ε = 1). achievedEpsilon() of the stored matrix is then +∞: a zero facing a non-zero is not
//     ε-DP for any ε, which is the honest statement about the matrix as stored (and sampled from),
//     even though the mechanism it approximates is ε-DP.
// Requires 1 ≤ n ≤ kMaxCountPeople and a valid noise parameter (b > 0 finite, α ∈ (0, 1), σ > 0
// finite); errors name the parameter.
Expected<CountMechanism> centralMechanismMatrix(const NoiseDistribution& noise, int n,
                                                std::string name);

// Laplace with b = 1/ε (calibrateLaplace with Δ1 = 1: a count changes by 1), rounded and clamped.
// ε-DP (see above). Name "discretized Laplace".
Expected<CountMechanism> discretizedLaplace(int n, double epsilon);

// Discrete Laplace with α = e^(−ε) (calibrateGeometric with Δ1 = 1), clamped: equal to
// truncatedGeometric(n, ε) up to rounding (see above). ε-DP. Name "clamped geometric".
Expected<CountMechanism> clampedGeometric(int n, double epsilon);

// Gaussian with σ from the analytic calibration (calibrateGaussian, Balle & Wang 2018, Δ2 = 1),
// rounded and clamped. (ε, δ)-DP only — NOT ε-DP (see above). Name "discretized Gaussian".
Expected<CountMechanism> discretizedGaussian(int n, double epsilon, double delta);

}  // namespace dpx
