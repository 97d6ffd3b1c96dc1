#include "app/cli/commands/rdp.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <ostream>
#include <set>

#include "app/cli/args.h"
#include "app/cli/commands/sparse.h"
#include "app/cli/commands/truth.h"
#include "core/mechanisms/random_dp.h"
#include "core/base/validation.h"

namespace dpx::cli {

namespace {

constexpr int kOk = 0;
constexpr int kInvalid = 2;

int fail(std::ostream& err, const Error& e) {
    err << "dpx: error: " << e.message << '\n';
    return kInvalid;
}

QJsonArray toArray(const std::vector<double>& v) {
    QJsonArray a;
    for (double x : v) {
        a.append(x);
    }
    return a;
}

QJsonObject meanSe(double mean, double se) {
    QJsonObject o;
    o[QStringLiteral("mean")] = mean;
    o[QStringLiteral("std_error")] = se;
    return o;
}

}  // namespace

int cmdRdp(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::set<std::string> known = {"example", "epsilon", "gamma",    "trials",
                                   "seed",    "threads", "per-trial"};
    for (const char* t : kTruthOptions) {
        known.insert(t);
    }
    auto args = Args::parse(argv, 2, known);
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto hist = seed003HistogramFromArgs(a);
    if (!hist) {
        return fail(err, hist.error());
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return fail(err, Error{"--epsilon: " + s.error().message});
    }
    auto gamma = a.number("gamma");
    if (!gamma) {
        return fail(err, gamma.error());
    }
    const RandomDpParams params{*eps, *gamma};
    if (auto s = params.validate(); !s) {
        return fail(err, Error{"--gamma: " + s.error().message});
    }
    auto trials = a.unsignedInt("trials", 1000);
    auto seed = a.unsignedInt("seed", 1);
    auto threads = a.unsignedInt("threads", 0);
    for (const auto* v : {&trials, &seed, &threads}) {
        if (!*v) {
            return fail(err, v->error());
        }
    }
    if (*trials != 0 && (*trials < 2 || *trials > 10'000'000)) {
        return fail(err, Error{"--trials must be 0 (no Monte Carlo) or in [2, 10000000] (got " +
                               std::to_string(*trials) + ")"});
    }
    if (*threads > 1024) {
        return fail(err, Error{"--threads must be at most 1024"});
    }
    const std::string perTrial = a.text("per-trial", "no");
    if (perTrial != "yes" && perTrial != "no") {
        return fail(err, Error{"--per-trial must be yes or no (got '" + perTrial + "')"});
    }
    if (*trials == 0) {
        for (const char* opt : {"seed", "threads", "per-trial"}) {
            if (a.has(opt)) {
                return fail(err, Error{std::string("--") + opt +
                                       " applies to the Monte Carlo only (--trials ≥ 2)"});
            }
        }
    }
    auto plan = planRandomDp(hist->counts(), params);
    if (!plan) {
        return fail(err, plan.error());
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = QStringLiteral("random-dp-histogram");
    o[QStringLiteral("weaker_than_dp")] = true;
    o[QStringLiteral("guarantee")] = QString::fromStdString(plan->guarantee);
    o[QStringLiteral("dp_guarantee")] = QString::fromStdString(
        "the comparison adds Laplace 2/(nε) to every cell: ε = " + formatNumber(*eps) +
        "-differential privacy under replace-one neighbours");
    o[QStringLiteral("epsilon")] = *eps;
    o[QStringLiteral("gamma")] = *gamma;
    o[QStringLiteral("cells")] = static_cast<qint64>(plan->cells);
    o[QStringLiteral("records")] = static_cast<qint64>(plan->records);
    o[QStringLiteral("noise_scale")] = plan->scale;
    o[QStringLiteral("max_noise_free_count")] = plan->maxNoiseFreeCount;
    o[QStringLiteral("noise_free_cells")] = static_cast<qint64>(plan->noiseFreeCells);
    QJsonArray free;
    for (char f : plan->noiseFree) {
        free.append(f != 0);
    }
    o[QStringLiteral("noise_free")] = free;
    QJsonObject ex;
    QJsonObject exR;
    exR[QStringLiteral("l1")] = plan->expectedL1Rdp;
    exR[QStringLiteral("squared_l2")] = plan->expectedSquaredL2Rdp;
    QJsonObject exD;
    exD[QStringLiteral("l1")] = plan->expectedL1Dp;
    exD[QStringLiteral("squared_l2")] = plan->expectedSquaredL2Dp;
    ex[QStringLiteral("rdp")] = exR;
    ex[QStringLiteral("dp")] = exD;
    o[QStringLiteral("expected")] = ex;
    std::vector<std::string> warnings = plan->warnings;
    if (*trials > 0) {
        MonteCarloOptions mc;
        mc.trials = *trials;
        mc.seed = *seed;
        mc.threads = static_cast<unsigned>(*threads);
        auto r = randomDpMonteCarlo(hist->counts(), params, mc);
        if (!r) {
            return fail(err, r.error());
        }
        QJsonObject m;
        m[QStringLiteral("trials")] = static_cast<qint64>(r->trials);
        m[QStringLiteral("seed")] = QString::number(*seed);
        QJsonObject mr;
        mr[QStringLiteral("l1")] = meanSe(r->meanRdpL1, r->seRdpL1);
        mr[QStringLiteral("l2")] = meanSe(r->meanRdpL2, r->seRdpL2);
        QJsonObject md;
        md[QStringLiteral("l1")] = meanSe(r->meanDpL1, r->seDpL1);
        md[QStringLiteral("l2")] = meanSe(r->meanDpL2, r->seDpL2);
        if (perTrial == "yes") {
            mr[QStringLiteral("l1_per_trial")] = toArray(r->rdpL1);
            mr[QStringLiteral("l2_per_trial")] = toArray(r->rdpL2);
            md[QStringLiteral("l1_per_trial")] = toArray(r->dpL1);
            md[QStringLiteral("l2_per_trial")] = toArray(r->dpL2);
        }
        m[QStringLiteral("rdp")] = mr;
        m[QStringLiteral("dp")] = md;
        o[QStringLiteral("monte_carlo")] = m;
    }
    QJsonArray w;
    for (const auto& s : warnings) {
        w.append(QString::fromStdString(s));
    }
    o[QStringLiteral("warnings")] = w;
    out << QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
    return kOk;
}

}  // namespace dpx::cli
