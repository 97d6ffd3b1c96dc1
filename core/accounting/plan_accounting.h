// The accountants (accountant.h) applied to an allocated budget plan (core/choosing/budget_plan.h):
// the noise each statistic got, as the mechanisms the accountants compose, and the plan's privacy
// under each accountant at the plan's total (ε, δ). The allocation itself is unchanged (made by
// basic composition, zCDP or PLD); the accountants say what the same noise costs under each.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/accounting/accountant.h"
#include "core/base/expected.h"
#include "core/choosing/budget_plan.h"

namespace dpx::accounting {

// The mechanism of one allocated statistic (as below), with its sampling rate.
AccountedMechanism statisticMechanism(const PlanStatistic& statistic,
                                      const StatisticAllocation& allocation);
// Equal mechanisms (kind, parameter, sensitivity, categories, sampling rate) merged into one whose
// count is the sum, in the order of first appearance.
std::vector<AccountedMechanism> mergeEqualMechanisms(const std::vector<AccountedMechanism>& mechs);

// One accounted mechanism per statistic: Laplace b = its noise scale, Δ = Δ1; geometric
// ε = −Δ1 ln α; Gaussian σ, Δ = Δ2; statistics with the same mechanism, noise and sensitivity
// become one entry used `count` times (a plan of equal weights composes in a few steps); each
// keeps its statistic's sampling rate (PlanStatistic::samplingRate). A plan that starts from a
// PLD ledger's releases (BudgetPlan::spentLosses, one per spent charge) has them first. Errors: a
// plan that starts from ledger charges without their losses (basic and zCDP ledgers record no
// mechanism, so only basic composition and zCDP can count them).
Expected<std::vector<AccountedMechanism>> planMechanisms(const BudgetPlan& plan,
                                                         const PlanResult& result);

struct PlanAccounting {
    Accountant accountant = Accountant::Pld;
    // ε at the plan's total δ (when δ > 0) and δ at its total ε; PLD also the lower bounds.
    std::optional<AccountantAnswer> epsilon;
    std::optional<AccountantAnswer> delta;
    std::string note;  // why ε is absent (δ = 0, or no finite ε)
};
// Errors: those of planMechanisms and PlanAccountant::create.
Expected<PlanAccounting> accountPlan(const BudgetPlan& plan, const PlanResult& result,
                                     Accountant accountant, const PldOptions& options = {});

// The privacy profile of a plan under every accountant: δ(ε) on `epsilons` (upper bounds; the
// PLD's lower bound too) and each accountant's ε at the total δ and δ at the total ε.
struct ProfileCurve {
    Accountant accountant = Accountant::Pld;
    std::vector<double> delta;       // δ(ε_i), an upper bound
    std::vector<double> deltaLower;  // PLD only: lower bound
    PlanAccounting atTotal;
};
struct PlanProfile {
    std::vector<double> epsilons;
    std::vector<ProfileCurve> curves;  // basic, zCDP, Rényi, PLD
    double pldInterval = 0;
};
// Errors: those of accountPlan (for any accountant), an empty or invalid ε grid.
Expected<PlanProfile> planProfile(const BudgetPlan& plan, const PlanResult& result,
                                  const std::vector<double>& epsilons,
                                  const PldOptions& options = {});

}  // namespace dpx::accounting
