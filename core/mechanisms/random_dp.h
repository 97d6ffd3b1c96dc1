// Random differential privacy (RDP) histograms, seed 003 (Hall's thesis) ch. 5, eq. (5.3).
//
// WEAKER THAN DIFFERENTIAL PRIVACY. (ε, γ)-RDP (seed 003 Def. 5.1.1 with β = 0) asks the ε-DP
// inequality to hold only with probability ≥ 1 − γ over data drawn i.i.d. from an unknown
// distribution P together with the replacing record x_{n+1} ~ P; on the remaining γ it promises
// nothing. Every ε-DP mechanism is (ε, γ)-RDP, not conversely.
//
// Mechanism (5.3), k cells, n records, p̂_j = c_j/n: cells with p̂_j + 1/n ≤ γ/(2k) (equivalently
// 2k(c_j + 1) ≤ γn) are released exactly; every other cell gets p̂_j + (2/(nε))·L_j with L_j iid
// standard Laplace (the seed writes one "L"; independent draws per cell are meant, as in (5.2)).
// Prop. 5.2.3 proves (ε, γ)-RDP for it; the seed's Prop. 5.2.2 states a different rule ("θ_j = 0
// and 2d ≤ γn"), which we do not use. The DP comparison (Fig. 5.1) adds Laplace 2/(nε) to every
// cell: ε-DP under replace-one neighbours (proportion L1 sensitivity 2/n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/accuracy/expected_error.h"  // MonteCarloOptions
#include "core/base/expected.h"
#include "core/base/simulation_rng.h"

namespace dpx {

struct RandomDpParams {
    double epsilon = 1;  // ε > 0
    double gamma = 0.1;  // γ ∈ (0, 1): probability that the DP inequality may fail
    Status validate() const;
};

// Plain-words statement of what (ε, γ)-RDP promises, saying that it is weaker than DP.
std::string randomDpGuaranteeText(const RandomDpParams& params);

struct RandomDpPlan {
    std::size_t cells = 0;         // k
    std::int64_t records = 0;      // n (≥ 1)
    double scale = 0;              // 2/(nε), the Laplace scale on proportions
    double maxNoiseFreeCount = 0;  // γn/(2k) − 1: cells with c_j ≤ this are released exactly
    std::vector<double> proportions;  // p̂_j
    std::vector<char> noiseFree;      // 1 where the cell is released without noise (j ∈ U)
    std::size_t noiseFreeCells = 0;   // |U|
    // Exact expected errors on the proportions: L1 = m·b, squared L2 = 2m·b² with m noisy cells.
    double expectedL1Rdp = 0, expectedL1Dp = 0;
    double expectedSquaredL2Rdp = 0, expectedSquaredL2Dp = 0;
    std::string guarantee;  // randomDpGuaranteeText
    std::vector<std::string> warnings;
};
// Counts non-empty, ≥ 0, total n ≥ 1.
Expected<RandomDpPlan> planRandomDp(std::span<const std::int64_t> counts,
                                    const RandomDpParams& params);

// One simulated (ε, γ)-RDP release of the proportions (simulation generator, not a publishable
// release). Laplace draws only for the noisy cells, in cell order.
Expected<std::vector<double>> simulateRandomDp(std::span<const std::int64_t> counts,
                                               const RandomDpParams& params, SimulationRng& rng);
// The DP comparison: every cell p̂_j + Laplace(2/(nε)).
Expected<std::vector<double>> simulateDpProportions(std::span<const std::int64_t> counts,
                                                    double epsilon, SimulationRng& rng);

struct RandomDpMonteCarloResult {
    // Per-trial ‖p̃ − p̂‖₁ and ‖p̃ − p̂‖₂ in trial order (trial t uses stream t of the seed; the RDP
    // and DP releases of a trial share the Laplace draws of the noisy cells).
    std::vector<double> rdpL1, dpL1, rdpL2, dpL2;
    double meanRdpL1 = 0, seRdpL1 = 0, meanDpL1 = 0, seDpL1 = 0;
    double meanRdpL2 = 0, seRdpL2 = 0, meanDpL2 = 0, seDpL2 = 0;
    RandomDpPlan plan;
    std::uint64_t trials = 0;
    bool cancelled = false;
    std::vector<std::string> warnings;
};
// options.trials in [2, 10^7].
Expected<RandomDpMonteCarloResult> randomDpMonteCarlo(std::span<const std::int64_t> counts,
                                                      const RandomDpParams& params,
                                                      const MonteCarloOptions& options);

}  // namespace dpx
