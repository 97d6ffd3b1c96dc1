#include "app/cli/commands/rdp.h"

#include <QJsonArray>
#include <QJsonObject>
#include <ostream>
#include <set>

#include "app/cli/args.h"
#include "app/cli/commands/sparse.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "core/base/validation.h"
#include "core/mechanisms/random_dp.h"

namespace dpx::cli {

namespace {

QJsonObject meanSe(double mean, double se) {
    QJsonObject o;
    o[QStringLiteral("mean")] = mean;
    o[QStringLiteral("std_error")] = se;
    return o;
}

}  // namespace

int cmdRdp(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto input = histogramInputFromArgs(
        argv, {"epsilon", "gamma", "trials", "seed", "threads", "per-trial"}, &err);
    if (!input) {
        return fail(err, input.error());
    }
    const Args& a = input->args;
    const Histogram& hist = input->histogram;
    const double eps = input->epsilon;
    auto gamma = a.number("gamma");
    if (!gamma) {
        return fail(err, gamma.error());
    }
    const RandomDpParams params{eps, *gamma};
    if (auto s = params.validate(); !s) {
        return fail(err, Error{"--gamma: " + s.error().message});
    }
    auto mcArgs = monteCarloArgsFrom(a);
    if (!mcArgs) {
        return fail(err, mcArgs.error());
    }
    auto plan = planRandomDp(hist.counts(), params);
    if (!plan) {
        return fail(err, plan.error());
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = QStringLiteral("random-dp-histogram");
    o[QStringLiteral("weaker_than_dp")] = true;
    o[QStringLiteral("guarantee")] = QString::fromStdString(plan->guarantee);
    o[QStringLiteral("dp_guarantee")] = QString::fromStdString(
        "the comparison adds Laplace 2/(nε) to every cell: ε = " + formatNumber(eps) +
        "-differential privacy under replace-one neighbours");
    o[QStringLiteral("epsilon")] = eps;
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
    if (mcArgs->trials > 0) {
        MonteCarloOptions mc;
        mc.trials = mcArgs->trials;
        mc.seed = mcArgs->seed;
        mc.threads = mcArgs->threads;
        auto r = randomDpMonteCarlo(hist.counts(), params, mc);
        if (!r) {
            return fail(err, r.error());
        }
        QJsonObject m;
        m[QStringLiteral("trials")] = static_cast<qint64>(r->trials);
        m[QStringLiteral("seed")] = QString::number(mcArgs->seed);
        QJsonObject mr;
        mr[QStringLiteral("l1")] = meanSe(r->meanRdpL1, r->seRdpL1);
        mr[QStringLiteral("l2")] = meanSe(r->meanRdpL2, r->seRdpL2);
        QJsonObject md;
        md[QStringLiteral("l1")] = meanSe(r->meanDpL1, r->seDpL1);
        md[QStringLiteral("l2")] = meanSe(r->meanDpL2, r->seDpL2);
        if (mcArgs->perTrial) {
            mr[QStringLiteral("l1_per_trial")] = toArray(r->rdpL1);
            mr[QStringLiteral("l2_per_trial")] = toArray(r->rdpL2);
            md[QStringLiteral("l1_per_trial")] = toArray(r->dpL1);
            md[QStringLiteral("l2_per_trial")] = toArray(r->dpL2);
        }
        m[QStringLiteral("rdp")] = mr;
        m[QStringLiteral("dp")] = md;
        o[QStringLiteral("monte_carlo")] = m;
    }
    o[QStringLiteral("warnings")] = toArray(warnings);
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
