#include "app/cli/commands/budget.h"

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <charconv>
#include <map>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/output.h"
#include "core/accounting/plan_accounting.h"
#include "core/choosing/budget_plan.h"
#include "core/release/exact_samplers.h"
#include "io/release/privacy_ledger.h"
#include "io/release/release_job.h"

namespace dpx::cli {

namespace {

// LABEL:BINS[:MECHANISM[:WEIGHT]]
Expected<PlanStatistic> parseStat(const std::string& text) {
    const auto parts = split(text, ':');
    if (parts.size() < 2 || parts.size() > 4 || parts[0].empty()) {
        return Error{"--stat: expected LABEL:BINS[:MECHANISM[:WEIGHT]], got '" + text + "'"};
    }
    PlanStatistic s;
    s.label = parts[0];
    const std::string& b = parts[1];
    long long bins = 0;
    const auto r = std::from_chars(b.data(), b.data() + b.size(), bins);
    if (r.ec != std::errc() || r.ptr != b.data() + b.size() || bins < 1) {
        return Error{"--stat " + s.label + ": BINS '" + b + "' is not a whole number ≥ 1"};
    }
    s.bins = bins;
    if (parts.size() >= 3) {
        auto m = mechanismFromName(parts[2]);
        if (!m) {
            return Error{"--stat " + s.label + ": " + m.error().message};
        }
        s.mechanism = *m;
    }
    if (parts.size() == 4) {
        auto w = parseNumber(parts[3], "--stat " + s.label + " WEIGHT");
        if (!w) {
            return w.error();
        }
        s.weight = *w;
    }
    return s;
}

// LABEL=VALUE
Expected<std::pair<std::string, double>> parseHold(const std::string& option,
                                                   const std::string& text) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0) {
        return Error{"--" + option + ": expected LABEL=VALUE, got '" + text + "'"};
    }
    auto v = parseNumber(text.substr(eq + 1), "--" + option + " " + text.substr(0, eq));
    if (!v) {
        return v.error();
    }
    return std::pair{text.substr(0, eq), *v};
}

QJsonObject usageJson(const BudgetUsage& u) {
    QJsonObject o;
    o[QStringLiteral("epsilon_spent")] = u.epsilonSpent;
    o[QStringLiteral("delta_spent")] = u.deltaSpent;
    o[QStringLiteral("epsilon_remaining")] = u.epsilonRemaining;
    o[QStringLiteral("delta_remaining")] = u.deltaRemaining;
    if (u.composition == Composition::Zcdp) {
        o[QStringLiteral("rho_spent")] = u.rhoSpent;
        o[QStringLiteral("rho_remaining")] = u.rhoRemaining;
        o[QStringLiteral("rho_budget")] = u.rhoBudget;
    } else if (u.composition == Composition::Basic) {
        o[QStringLiteral("epsilon_spent_exact")] = qs(u.epsilonSpentExact);
        o[QStringLiteral("delta_spent_exact")] = qs(u.deltaSpentExact);
    }
    return o;
}

const char* scaleName(MechanismKind m) {
    switch (m) {
        case MechanismKind::Laplace:
            return "b";
        case MechanismKind::Geometric:
            return "alpha";
        case MechanismKind::Gaussian:
            return "sigma";
    }
    return "b";
}

// How each accountant treats the Poisson-sampled statistics (core/accounting/accountant.h).
std::string samplingNote(accounting::Accountant a) {
    switch (a) {
        case accounting::Accountant::Basic:
            return "Poisson sampling amplified per statistic: (ln(1 + q(e^ε − 1)), qδ) (Li, "
                   "Qardaji "
                   "& Su 2012; Balle, Barthe & Gaboardi 2018)";
        case accounting::Accountant::Zcdp:
            return "Poisson sampling not amplified: zCDP has no tight amplification-by-sampling "
                   "result, the sampled statistics are charged their ρ without sampling (a valid "
                   "upper bound)";
        case accounting::Accountant::Renyi:
            return "Poisson sampling amplified: the sampled Gaussian's Rényi DP (Mironov, Talwar "
                   "& Zhang 2019), pure mechanisms at ln(1 + q(e^ε − 1))";
        case accounting::Accountant::Pld:
            return "Poisson sampling amplified: add and remove neighbours composed separately, "
                   "the worse reported (Zhu, Dong & Wang 2022)";
    }
    return "";
}

}  // namespace

int cmdBudget(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    // The repeatable options are taken out first; the rest goes through the strict parser.
    std::vector<std::string> rest(argv.begin(),
                                  argv.begin() + std::min<std::size_t>(2, argv.size()));
    std::vector<std::string> statTexts;
    std::vector<std::pair<std::string, std::string>> holdTexts;  // option, LABEL=VALUE
    for (std::size_t i = 2; i < argv.size(); ++i) {
        std::string name = argv[i];
        std::string value;
        bool inlineValue = false;
        if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            inlineValue = true;
        }
        if (name == "--stat" || name == "--hold-epsilon" || name == "--hold-accuracy" ||
            name == "--sample-rate") {
            if (!inlineValue) {
                if (i + 1 >= argv.size()) {
                    return fail(err, Error{"option " + name + " needs a value"});
                }
                value = argv[++i];
            }
            if (name == "--stat") {
                statTexts.push_back(value);
            } else {
                holdTexts.emplace_back(name.substr(2), value);
            }
            continue;
        }
        rest.push_back(argv[i]);
    }
    auto args = Args::parse(
        rest, 2,
        {"epsilon", "delta", "composition", "records", "accountant", "pld-interval", "ledger"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    BudgetPlan plan;
    // --ledger: the plan starts from what the ledger has spent; its total, composition (and PLD
    // grid) are the ledger's.
    std::optional<data::PrivacyLedger> ledger;
    if (a.has("ledger")) {
        for (const char* fixed : {"epsilon", "delta", "composition"}) {
            if (a.has(fixed)) {
                return fail(err,
                            Error{"--" + std::string(fixed) +
                                  ": the total and the composition are the ledger's (--ledger)"});
            }
        }
        auto l = data::PrivacyLedger::load(a.text("ledger", ""));
        if (!l) {
            return fail(err, Error{"--ledger: " + l.error().message});
        }
        ledger = std::move(*l);
        plan.total = {parseDecimal(ledger->totalEpsilon()).value().toDouble(),
                      parseDecimal(ledger->totalDelta()).value().toDouble()};
        plan.composition = ledger->composition();
        const bool pld = plan.composition == Composition::Pld;
        if (pld) {
            if (a.has("pld-interval")) {
                return fail(err, Error{"--pld-interval: a PLD ledger composes on its own grid (" +
                                       ledger->pldInterval() + ")"});
            }
            plan.pldInterval = parseDecimal(ledger->pldInterval()).value().toDouble();
            plan.spentExcess = ledger->pldExcess();
        }
        for (const data::LedgerRelease& r : ledger->releases()) {
            auto c = data::ledgerCharge(r);
            if (!c) {
                return fail(err, Error{"--ledger: " + c.error().message});
            }
            plan.spent.push_back(*c);
            if (pld) {
                auto m = data::ledgerAccountedMechanism(r.loss);
                if (!m) {
                    return fail(err, Error{"--ledger: " + m.error().message});
                }
                plan.spentLosses.push_back(*m);
            }
        }
    } else {
        auto eps = a.number("epsilon");
        if (!eps) {
            return fail(err, eps.error());
        }
        auto delta = a.number("delta", 0.0);
        if (!delta) {
            return fail(err, delta.error());
        }
        auto composition = compositionFromName(a.text("composition", "basic"));
        if (!composition) {
            return fail(err, Error{"--composition: " + composition.error().message});
        }
        plan.total = {*eps, *delta};
        plan.composition = *composition;
    }
    std::optional<double> records;
    if (a.has("records")) {
        auto n = a.number("records");
        if (!n) {
            return fail(err, n.error());
        }
        records = *n;
    }
    if (statTexts.empty()) {
        return fail(err, Error{"give at least one --stat LABEL:BINS[:MECHANISM[:WEIGHT]]"});
    }
    // --pld-interval: the grid of the PLD composition (--composition pld) and of --accountant pld.
    accounting::PldOptions pldOptions;
    if (a.has("pld-interval")) {
        const bool pldAccountant = a.text("accountant", "") == "pld";
        if (plan.composition != Composition::Pld && !pldAccountant) {
            return fail(err, Error{"--pld-interval needs --composition pld or --accountant pld"});
        }
        auto h = a.number("pld-interval");
        if (!h) {
            return fail(err, h.error());
        }
        pldOptions.interval = *h;
        plan.pldInterval = *h;
    } else if (plan.composition == Composition::Pld) {
        pldOptions.interval = plan.pldInterval;
    }
    std::map<std::string, std::size_t> index;
    for (const auto& t : statTexts) {
        auto s = parseStat(t);
        if (!s) {
            return fail(err, s.error());
        }
        s->records = records;
        if (!index.emplace(s->label, plan.statistics.size()).second) {
            return fail(err, Error{"--stat: the label '" + s->label + "' is given twice"});
        }
        plan.statistics.push_back(*s);
    }
    std::map<std::string, bool> rateGiven;
    for (const auto& [option, text] : holdTexts) {
        auto h = parseHold(option, text);
        if (!h) {
            return fail(err, h.error());
        }
        const auto it = index.find(h->first);
        if (it == index.end()) {
            return fail(err, Error{"--" + option + ": no --stat is labelled '" + h->first + "'"});
        }
        PlanStatistic& s = plan.statistics[it->second];
        if (option == "sample-rate") {
            // Poisson sampling (issue #22): validated with the plan (q ∈ (0, 1]).
            if (!rateGiven.emplace(h->first, true).second) {
                return fail(err, Error{"--sample-rate: '" + h->first + "' is given a rate twice"});
            }
            s.samplingRate = h->second;
            continue;
        }
        if (s.hold.kind != HoldKind::None) {
            return fail(err, Error{"--" + option + ": '" + h->first + "' is already held"});
        }
        s.hold = {option == "hold-epsilon" ? HoldKind::Epsilon : HoldKind::Accuracy, h->second};
    }
    auto result = allocatePlan(plan);
    if (!result) {
        return fail(err, result.error());
    }
    // --accountant: the same noise under one of the four accountants (issue #22).
    std::optional<accounting::PlanAccounting> accounted;
    if (a.has("accountant")) {
        auto which = accounting::accountantFromName(a.text("accountant", ""));
        if (!which) {
            return fail(err, Error{"--accountant: " + which.error().message});
        }
        auto acc = accounting::accountPlan(plan, *result, *which, pldOptions);
        if (!acc) {
            return fail(err,
                        Error{"--accountant " + std::string(accounting::accountantName(*which)) +
                              ": " + acc.error().message});
        }
        accounted = *acc;
    }

    const bool sampled = std::any_of(plan.statistics.begin(), plan.statistics.end(),
                                     [](const PlanStatistic& st) { return st.samplingRate < 1; });
    QJsonObject o;
    o[QStringLiteral("composition")] = QString::fromLatin1(compositionName(result->composition));
    QJsonObject total;
    total[QStringLiteral("epsilon")] = result->total.epsilon;
    total[QStringLiteral("delta")] = result->total.delta;
    if (result->composition == Composition::Zcdp) {
        total[QStringLiteral("rho")] = result->rhoBudget;
    }
    if (result->composition == Composition::Pld) {
        total[QStringLiteral("pld_interval")] = result->pldInterval;
    }
    o[QStringLiteral("total")] = total;
    if (ledger) {
        QJsonObject l;
        l[QStringLiteral("path")] = qs(a.text("ledger", ""));
        l[QStringLiteral("releases")] = static_cast<qint64>(ledger->releases().size());
        l[QStringLiteral("before_plan")] = usageJson(result->start);
        l[QStringLiteral("left")] = qs(
            data::budgetUsageText(ledger->usage(), ledger->totalEpsilon(), ledger->totalDelta()));
        o[QStringLiteral("ledger")] = l;
    }
    QJsonArray stats;
    for (std::size_t i = 0; i < result->statistics.size(); ++i) {
        const StatisticAllocation& s = result->statistics[i];
        QJsonObject j;
        j[QStringLiteral("label")] = qs(s.label);
        j[QStringLiteral("bins")] = static_cast<qint64>(s.bins);
        j[QStringLiteral("mechanism")] = QString::fromLatin1(mechanismName(s.mechanism));
        j[QStringLiteral("weight")] = plan.statistics[i].weight;
        j[QStringLiteral("hold")] = QString::fromLatin1(holdKindName(s.hold.kind));
        if (s.hold.kind != HoldKind::None) {
            j[QStringLiteral("hold_value")] = s.hold.value;
        }
        if (plan.statistics[i].samplingRate < 1) {
            j[QStringLiteral("sampling_rate")] = plan.statistics[i].samplingRate;
        }
        if (s.epsilonWithoutSampling) {
            // The noise's ε without sampling; `epsilon` is its amplified cost.
            j[QStringLiteral("epsilon_without_sampling")] = *s.epsilonWithoutSampling;
        }
        j[QStringLiteral("epsilon")] = s.epsilon;
        j[QStringLiteral("delta")] = s.delta;
        j[QStringLiteral("rho")] = s.rho;
        j[QStringLiteral("share")] = s.share;
        j[QStringLiteral("noise_parameter")] = QString::fromLatin1(scaleName(s.mechanism));
        j[QStringLiteral("noise_scale")] = s.noise.scale;
        j[QStringLiteral("half_width_95")] = s.noise.halfWidth95;
        j[QStringLiteral("expected_l1")] = s.expectedL1;
        if (s.expectedL1Percent) {
            j[QStringLiteral("expected_l1_percent")] = *s.expectedL1Percent;
        }
        j[QStringLiteral("per_bin_variance")] = s.perBinVariance;
        stats.append(j);
    }
    o[QStringLiteral("statistics")] = stats;
    o[QStringLiteral("usage")] = usageJson(result->usage);
    QJsonObject other;
    other[QStringLiteral("composition")] =
        QString::fromLatin1(compositionName(result->other.composition));
    other[QStringLiteral("available")] = result->other.available;
    if (result->other.available) {
        other[QStringLiteral("epsilon")] = result->other.epsilon;
        other[QStringLiteral("delta")] = result->other.delta;
    }
    if (result->other.composition == Composition::Zcdp) {
        other[QStringLiteral("rho")] = result->other.rho;
    }
    other[QStringLiteral("note")] = qs(result->other.note);
    o[QStringLiteral("other_accountant")] = other;
    if (accounted) {
        QJsonObject j;
        j[QStringLiteral("accountant")] =
            QString::fromLatin1(accounting::accountantName(accounted->accountant));
        j[QStringLiteral("method")] = qs(accounting::accountantTitle(accounted->accountant));
        if (accounted->epsilon) {
            j[QStringLiteral("at_delta")] = result->total.delta;
            j[QStringLiteral("epsilon")] = accounted->epsilon->value;
            if (accounted->epsilon->lower) {
                j[QStringLiteral("epsilon_lower")] = *accounted->epsilon->lower;
            }
        }
        j[QStringLiteral("at_epsilon")] = result->total.epsilon;
        j[QStringLiteral("delta")] = accounted->delta->value;
        if (accounted->delta->lower) {
            j[QStringLiteral("delta_lower")] = *accounted->delta->lower;
        }
        if (accounted->accountant == accounting::Accountant::Pld) {
            j[QStringLiteral("pld_interval")] = pldOptions.interval;
        }
        if (!accounted->note.empty()) {
            j[QStringLiteral("note")] = qs(accounted->note);
        }
        if (sampled) {
            j[QStringLiteral("sampling")] = qs(samplingNote(accounted->accountant));
        }
        o[QStringLiteral("accounting")] = j;
    }
    QJsonArray warnings;
    for (const auto& w : result->warnings) {
        warnings.append(qs(w));
    }
    if (!result->sampling.empty()) {
        o[QStringLiteral("sampling")] = qs(result->sampling);
    }
    o[QStringLiteral("warnings")] = warnings;
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
