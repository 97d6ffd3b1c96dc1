// The exponential mechanism (McSherry & Talwar 2007; seed 003 §1.3.4, Prop. 1.3.5, there with a
// distance g(ω, ω_D) in place of −u) selecting one bin of a histogram — the mode or the bin
// holding a quantile — and report-noisy-max for comparison.
//
// P(j) ∝ exp(c·u(D, j)) with c = ε/(2Δu), Δu = max over neighbours D ~ D' and candidates j of
// |u(D, j) − u(D', j)|: ε-DP for any utility. When the utility is monotone under the
// neighbouring relation (for every neighbouring pair either u(D, j) ≤ u(D', j) for all j or ≥ for
// all j) the normalising constant moves in the same direction as the numerator, so c = ε/Δu is
// ε-DP too (Dwork & Roth 2014, §3.4).
//
// Utilities and sensitivities (derived here; the seed does not give them):
// - mode: u(D, j) = c_j (the count of bin j). Add/remove changes one count by 1: Δu = 1, and all
//   utilities move the same way (monotone), so c = ε may be used. Replace-one moves one record
//   from bin a to bin b: c_a − 1, c_b + 1, every per-candidate change ≤ 1, so Δu = 1 (not 2: the
//   exponential mechanism needs the per-candidate change, not the L1 change), but the utilities
//   move in opposite directions (not monotone): c = ε/2.
// - quantile q ∈ [0, 1]: with B_j = Σ_{i<j} c_i, A_j = B_j + c_j and t = q·n, the distance from
//   the target rank to the bin, u(D, j) = −max(B_j − t, t − A_j, 0); 0 exactly for the bins
//   containing rank t. Replace-one (n fixed): B_j, A_j move by at most 1, Δu = 1. Add/remove: B_j,
//   A_j move by 0 or 1 and t by q, so Δu = max(q, 1 − q). Not monotone for 0 < q < 1 (c = ε/(2Δu));
//   q = 0 (u = −B_j) and q = 1 (u = A_j − n) are monotone under both relations.
// Probabilities are computed with log-sum-exp, stable for any utilities.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/histogram/histogram.h"  // Neighbouring

namespace dpx {

enum class SelectionTask { Mode, Quantile };
const char* selectionTaskName(SelectionTask t);  // "mode" / "quantile"

struct SelectionParams {
    double epsilon = 1;  // ε > 0
    SelectionTask task = SelectionTask::Mode;
    double quantile = 0.5;  // q ∈ [0, 1] (quantile task)
    Neighbouring neighbouring = Neighbouring::AddRemove;
    bool useMonotone = true;  // use c = ε/Δu where the utility is monotone (mode, add/remove)
    Status validate() const;
};

struct SelectionUtility {
    std::vector<double> utility;  // u(D, j), one per bin
    double sensitivity = 1;       // Δu
    bool monotone = false;        // monotone under the relation
    double factor = 0;  // c: P(j) ∝ exp(c·u_j); ε/Δu if monotone and used, else ε/(2Δu)
    std::vector<std::size_t> best;  // the exact answers: bins of maximal utility
    std::string rationale;          // one sentence: why Δu and c are what they are
};
// Counts non-empty and ≥ 0 (the quantile task needs n ≥ 1).
Expected<SelectionUtility> selectionUtility(std::span<const std::int64_t> counts,
                                            const SelectionParams& params);

// P(j) = exp(c·u_j − logΣ_i exp(c·u_i)) by log-sum-exp. u finite, c ≥ 0 finite.
std::vector<double> exponentialMechanismProbabilities(std::span<const double> utility,
                                                      double factor);
// Same, as natural logarithms (finite even where P(j) underflows).
std::vector<double> exponentialMechanismLogProbabilities(std::span<const double> utility,
                                                         double factor);

enum class NoisyMaxNoise {
    Laplace,      // report argmax_j u_j + Laplace(s)
    Exponential,  // report argmax_j u_j + Exp(s) (one-sided; "permute-and-flip" in distribution)
};
const char* noisyMaxNoiseName(NoisyMaxNoise n);  // "laplace" / "exponential"

// Selection probabilities of report-noisy-max, P(j) = ∫ f(x − u_j) Π_{i≠j} F(x − u_i) dx, by
// numerical integration: 20-point Gauss–Legendre on pieces of length ≤ s/2 between the distinct
// utilities, over [max u − 60s, max u + 60s] (outside it the integrand is below e^{−60});
// candidates with equal utility share one integral. Absolute error ~1e-12. At most 100 000
// candidates and 2 000 distinct utilities within 60s of the maximum (an error otherwise). s > 0
// finite. With s = 1/c the mechanism is ε-DP under the same conditions as the exponential mechanism
// (Laplace: Dwork & Roth Claim 3.9 for monotone counting queries, 2Δu/ε in general).
Expected<std::vector<double>> reportNoisyMaxProbabilities(std::span<const double> utility,
                                                          double noiseScale, NoisyMaxNoise noise);

struct SelectionResult {
    SelectionUtility utility;
    std::vector<double> exponential;          // exponential-mechanism probabilities, one per bin
    std::vector<double> noisyMaxLaplace;      // report-noisy-max, Laplace(1/c), by quadrature
    std::vector<double> noisyMaxExponential;  // report-noisy-max, Exp(1/c), by quadrature
    double exactProbability = 0;  // P(the output is one of utility.best), exponential mechanism
    std::vector<std::string> warnings;
};
// Everything for the bar chart. Report-noisy-max is left empty (with a warning) when it is out of
// reportNoisyMaxProbabilities' limits.
Expected<SelectionResult> selectBin(std::span<const std::int64_t> counts,
                                    const SelectionParams& params);

// "It is a mechanism matrix too": columns = datasets along a path of neighbours, rows = outputs.
struct SelectionPathMatrix {
    std::size_t from = 0, to = 0;                     // the mode bin and the runner-up
    std::string description;                          // what each step does
    std::vector<std::vector<std::int64_t>> datasets;  // one histogram per column
    std::vector<std::vector<double>> probability;     // [output][column]
    double achievedEpsilon = 0;  // max over adjacent columns, outputs |ln P[i][t] − ln P[i][t+1]|
    double epsilon = 0;
    bool verified = false;  // achievedEpsilon ≤ ε (up to 1e-9 relative)
};
// Path from `counts`: replace-one moves one record per step from the mode bin (first largest
// count) to the runner-up (first largest of the others); add/remove adds one record per step to
// the runner-up. steps = 0: until the runner-up leads by 2 (replace: min(c_a, ⌊(c_a−c_b)/2⌋ + 2),
// add/remove: c_a − c_b + 2). At most 10 000 steps and 10^7 matrix entries; needs ≥ 2 bins and a
// non-empty histogram.
Expected<SelectionPathMatrix> selectionPathMatrix(std::span<const std::int64_t> counts,
                                                  const SelectionParams& params,
                                                  std::size_t steps = 0);

}  // namespace dpx
