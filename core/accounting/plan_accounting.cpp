#include "core/accounting/plan_accounting.h"

#include <cmath>

#include "core/base/validation.h"

namespace dpx::accounting {

Expected<std::vector<AccountedMechanism>> planMechanisms(const BudgetPlan& plan,
                                                         const PlanResult& result) {
    if (!plan.spent.empty()) {
        return Error{
            "the plan starts from ledger charges that record no mechanism; only basic "
            "composition and zCDP can count them"};
    }
    if (plan.statistics.size() != result.statistics.size()) {
        return Error{"internal: the plan and its allocation differ in their statistics"};
    }
    std::vector<AccountedMechanism> mechs;
    for (std::size_t i = 0; i < plan.statistics.size(); ++i) {
        const PlanStatistic& s = plan.statistics[i];
        const StatisticAllocation& a = result.statistics[i];
        switch (a.mechanism) {
            case MechanismKind::Laplace:
                mechs.push_back(laplaceLoss(a.noise.scale, s.l1Sensitivity));
                break;
            case MechanismKind::Geometric:
                // α = e^{−ε/Δ1}: the ε of the noise actually used.
                mechs.push_back(
                    geometricLoss(-s.l1Sensitivity * std::log(a.noise.scale), s.l1Sensitivity));
                break;
            case MechanismKind::Gaussian:
                mechs.push_back(gaussianLoss(a.noise.scale, s.l2Sensitivity));
                break;
        }
        if (auto st = mechs.back().validate(); !st) {
            return Error{"statistic '" + s.label + "': " + st.error().message};
        }
    }
    return mechs;
}

Expected<PlanAccounting> accountPlan(const BudgetPlan& plan, const PlanResult& result,
                                     Accountant accountant, const PldOptions& options) {
    auto mechs = planMechanisms(plan, result);
    if (!mechs) {
        return mechs.error();
    }
    auto acc = PlanAccountant::create(std::move(*mechs), options, accountant == Accountant::Pld);
    if (!acc) {
        return acc.error();
    }
    PlanAccounting out;
    out.accountant = accountant;
    if (result.total.delta > 0) {
        auto e = acc->epsilon(accountant, result.total.delta);
        if (e) {
            out.epsilon = *e;
        } else {
            out.note = e.error().message;
        }
    } else {
        out.note =
            "the total δ is 0: ε at δ = 0 is not defined for this accountant; δ at the "
            "total ε is shown";
    }
    auto d = acc->delta(accountant, result.total.epsilon);
    if (!d) {
        return d.error();
    }
    out.delta = *d;
    return out;
}

}  // namespace dpx::accounting
