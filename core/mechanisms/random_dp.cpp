#include "core/mechanisms/random_dp.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/base/moments.h"
#include "core/base/trial_blocks.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr std::uint64_t kMaxRdpTrials = 10'000'000;
constexpr std::uint64_t kTrialBlock = 16;

double laplace(SimulationRng& rng, double b) {
    bool negative = false;
    const double e = rng.exponential(&negative);
    return negative ? -b * e : b * e;
}

}  // namespace

Status RandomDpParams::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (!std::isfinite(gamma) || gamma <= 0 || gamma >= 1) {
        return Error{"gamma γ must be in (0, 1) (got " + formatNumber(gamma) + ")"};
    }
    return okStatus();
}

std::string randomDpGuaranteeText(const RandomDpParams& params) {
    return "(ε = " + formatNumber(params.epsilon) + ", γ = " + formatNumber(params.gamma) +
           ")-random differential privacy: a WEAKER guarantee than ε-differential privacy. It "
           "assumes the records are a random sample from some population and only promises that "
           "the ε-DP bound holds with probability at least 1 − γ over that sampling; with "
           "probability up to γ it may fail completely. Rare cells are published exactly, without "
           "noise, so a person in a rare cell can be exposed. Not differential privacy (Hall 2012, "
           "ch. 5).";
}

Expected<RandomDpPlan> planRandomDp(std::span<const std::int64_t> counts,
                                    const RandomDpParams& params) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    if (counts.empty()) {
        return Error{"counts: the histogram needs at least one cell"};
    }
    RandomDpPlan r;
    for (std::size_t j = 0; j < counts.size(); ++j) {
        if (counts[j] < 0) {
            return Error{"counts: cell " + std::to_string(j + 1) + " is negative (" +
                         std::to_string(counts[j]) + ")"};
        }
        r.records += counts[j];
    }
    if (r.records < 1) {
        return Error{"n (the number of records, the sum of the counts) must be at least 1"};
    }
    r.cells = counts.size();
    const auto n = static_cast<double>(r.records);
    const auto k = static_cast<double>(r.cells);
    r.scale = 2 / (n * params.epsilon);
    r.maxNoiseFreeCount = params.gamma * n / (2 * k) - 1;
    r.proportions.resize(r.cells);
    r.noiseFree.assign(r.cells, 0);
    for (std::size_t j = 0; j < r.cells; ++j) {
        const auto c = static_cast<double>(counts[j]);
        r.proportions[j] = c / n;
        // p̂_j + 1/n ≤ γ/(2k)  ⇔  2k(c_j + 1) ≤ γn (integers and one product: no rounding
        // surprises at the boundary beyond γ's own).
        if (2 * k * (c + 1) <= params.gamma * n) {
            r.noiseFree[j] = 1;
            ++r.noiseFreeCells;
        }
    }
    const auto noisy = static_cast<double>(r.cells - r.noiseFreeCells);
    r.expectedL1Rdp = noisy * r.scale;
    r.expectedL1Dp = k * r.scale;
    r.expectedSquaredL2Rdp = 2 * noisy * r.scale * r.scale;
    r.expectedSquaredL2Dp = 2 * k * r.scale * r.scale;
    r.guarantee = randomDpGuaranteeText(params);
    if (r.noiseFreeCells == 0) {
        r.warnings.push_back(
            "no cell qualifies for noise-free release (that needs 2k(c_j + 1) ≤ γn, i.e. n ≥ " +
            formatNumber(2 * k / params.gamma) +
            " for an empty cell): the RDP release equals the DP release here");
    }
    r.warnings.push_back(
        "random differential privacy is weaker than differential privacy: see the guarantee");
    return r;
}

Expected<std::vector<double>> simulateRandomDp(std::span<const std::int64_t> counts,
                                               const RandomDpParams& params, SimulationRng& rng) {
    auto plan = planRandomDp(counts, params);
    if (!plan) {
        return plan.error();
    }
    std::vector<double> out = plan->proportions;
    for (std::size_t j = 0; j < out.size(); ++j) {
        if (!plan->noiseFree[j]) {
            out[j] += laplace(rng, plan->scale);
        }
    }
    return out;
}

Expected<std::vector<double>> simulateDpProportions(std::span<const std::int64_t> counts,
                                                    double epsilon, SimulationRng& rng) {
    auto plan = planRandomDp(counts, RandomDpParams{epsilon, 0.5});
    if (!plan) {
        return plan.error();
    }
    std::vector<double> out = plan->proportions;
    for (double& x : out) {
        x += laplace(rng, plan->scale);
    }
    return out;
}

Expected<RandomDpMonteCarloResult> randomDpMonteCarlo(std::span<const std::int64_t> counts,
                                                      const RandomDpParams& params,
                                                      const MonteCarloOptions& options) {
    auto plan = planRandomDp(counts, params);
    if (!plan) {
        return plan.error();
    }
    if (options.trials < 2 || options.trials > kMaxRdpTrials) {
        return Error{"trials must be in [2, " + groupThousands(kMaxRdpTrials) + "] (got " +
                     std::to_string(options.trials) + ")"};
    }
    const std::uint64_t trials = options.trials;
    const std::size_t k = plan->cells;
    const double b = plan->scale;
    RandomDpMonteCarloResult r;
    for (auto* v : {&r.rdpL1, &r.dpL1, &r.rdpL2, &r.dpL2}) {
        v->assign(trials, 0.0);
    }
    const auto kept = static_cast<std::size_t>(runTrialBlocks(
        trials, kTrialBlock, options.threads, options.stop, options.progress, [&](std::uint64_t t) {
            SimulationRng rng(options.seed, t);
            double r1 = 0, d1 = 0, r2 = 0, d2 = 0;
            for (std::size_t j = 0; j < k; ++j) {
                const double l = laplace(rng, b);
                d1 += std::abs(l);
                d2 += l * l;
                if (!plan->noiseFree[j]) {
                    r1 += std::abs(l);
                    r2 += l * l;
                }
            }
            const auto ti = static_cast<std::size_t>(t);
            r.rdpL1[ti] = r1;
            r.dpL1[ti] = d1;
            r.rdpL2[ti] = std::sqrt(r2);
            r.dpL2[ti] = std::sqrt(d2);
        }));
    r.cancelled = kept < trials;
    r.trials = kept;
    for (auto* v : {&r.rdpL1, &r.dpL1, &r.rdpL2, &r.dpL2}) {
        v->resize(kept);
    }
    std::tie(r.meanRdpL1, r.seRdpL1) = meanAndStandardError(r.rdpL1);
    std::tie(r.meanDpL1, r.seDpL1) = meanAndStandardError(r.dpL1);
    std::tie(r.meanRdpL2, r.seRdpL2) = meanAndStandardError(r.rdpL2);
    std::tie(r.meanDpL2, r.seDpL2) = meanAndStandardError(r.dpL2);
    r.plan = std::move(plan).value();
    r.warnings = r.plan.warnings;
    if (r.cancelled) {
        r.warnings.push_back("cancelled after " + std::to_string(kept) + " of " +
                             std::to_string(trials) + " trials");
    }
    return r;
}

}  // namespace dpx
