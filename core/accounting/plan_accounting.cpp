#include "core/accounting/plan_accounting.h"

#include <cmath>
#include <map>
#include <tuple>

#include "core/base/validation.h"

namespace dpx::accounting {

AccountedMechanism statisticMechanism(const PlanStatistic& s, const StatisticAllocation& a) {
    AccountedMechanism m;
    switch (a.mechanism) {
        case MechanismKind::Laplace:
            m = laplaceLoss(a.noise.scale, s.l1Sensitivity);
            break;
        case MechanismKind::Geometric:
            // α = e^{−ε/Δ1}: the ε of the noise actually used.
            m = geometricLoss(-s.l1Sensitivity * std::log(a.noise.scale), s.l1Sensitivity);
            break;
        case MechanismKind::Gaussian:
            m = gaussianLoss(a.noise.scale, s.l2Sensitivity);
            break;
    }
    m.samplingRate = s.samplingRate;
    return m;
}

std::vector<AccountedMechanism> mergeEqualMechanisms(const std::vector<AccountedMechanism>& mechs) {
    std::map<std::tuple<int, double, double, std::int64_t, double>, std::size_t> seen;
    std::vector<AccountedMechanism> merged;
    for (const auto& m : mechs) {
        const auto key = std::make_tuple(static_cast<int>(m.kind), m.parameter, m.sensitivity,
                                         m.categories, m.samplingRate);
        if (auto it = seen.find(key); it != seen.end()) {
            merged[it->second].count += m.count;
        } else {
            seen.emplace(key, merged.size());
            merged.push_back(m);
        }
    }
    return merged;
}

Expected<std::vector<AccountedMechanism>> planMechanisms(const BudgetPlan& plan,
                                                         const PlanResult& result) {
    if (!plan.spent.empty() && plan.spentLosses.size() != plan.spent.size()) {
        return Error{
            "the plan starts from ledger charges that record no mechanism; only basic "
            "composition and zCDP can count them"};
    }
    if (plan.statistics.size() != result.statistics.size()) {
        return Error{"internal: the plan and its allocation differ in their statistics"};
    }
    std::vector<AccountedMechanism> mechs;
    for (std::size_t i = 0; i < plan.spentLosses.size() && !plan.spent.empty(); ++i) {
        mechs.push_back(plan.spentLosses[i]);
        if (auto st = mechs.back().validate(); !st) {
            return Error{"release " + std::to_string(i + 1) +
                         " already spent: " + st.error().message};
        }
    }
    for (std::size_t i = 0; i < plan.statistics.size(); ++i) {
        const PlanStatistic& s = plan.statistics[i];
        mechs.push_back(statisticMechanism(s, result.statistics[i]));
        if (auto st = mechs.back().validate(); !st) {
            return Error{"statistic '" + s.label + "': " + st.error().message};
        }
    }
    return mergeEqualMechanisms(mechs);
}

namespace {

Expected<PlanAccounting> atTotal(const PlanAccountant& acc, const PlanResult& result,
                                 Accountant accountant) {
    PlanAccounting out;
    out.accountant = accountant;
    if (result.total.delta > 0) {
        auto e = acc.epsilon(accountant, result.total.delta);
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
    auto d = acc.delta(accountant, result.total.epsilon);
    if (!d) {
        return d.error();
    }
    out.delta = *d;
    return out;
}

}  // namespace

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
    return atTotal(*acc, result, accountant);
}

Expected<PlanProfile> planProfile(const BudgetPlan& plan, const PlanResult& result,
                                  const std::vector<double>& epsilons, const PldOptions& options) {
    if (epsilons.empty()) {
        return Error{"the privacy profile needs at least one ε"};
    }
    for (double e : epsilons) {
        if (!(e >= 0) || !std::isfinite(e)) {
            return Error{"the privacy profile's ε must be finite and ≥ 0 (got " + formatNumber(e) +
                         ")"};
        }
    }
    auto mechs = planMechanisms(plan, result);
    if (!mechs) {
        return mechs.error();
    }
    auto acc = PlanAccountant::create(std::move(*mechs), options);
    if (!acc) {
        return acc.error();
    }
    PlanProfile out;
    out.epsilons = epsilons;
    out.pldInterval = options.interval;
    for (Accountant a : kAllAccountants) {
        ProfileCurve c;
        c.accountant = a;
        for (double e : epsilons) {
            auto d = acc->delta(a, e);
            if (!d) {
                return d.error();
            }
            c.delta.push_back(d->value);
            if (d->lower) {
                c.deltaLower.push_back(*d->lower);
            }
        }
        auto t = atTotal(*acc, result, a);
        if (!t) {
            return t.error();
        }
        c.atTotal = *t;
        out.curves.push_back(std::move(c));
    }
    return out;
}

}  // namespace dpx::accounting
