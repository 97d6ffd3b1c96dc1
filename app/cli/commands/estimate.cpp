#include "app/cli/commands/estimate.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>
#include <ostream>
#include <span>

#include "app/cli/args.h"
#include "app/cli/commands/table_input.h"
#include "app/cli/output.h"
#include "core/accuracy/expected_error.h"
#include "core/base/validation.h"
#include "core/estimators/estimator.h"
#include "core/estimators/noisefirst_estimator.h"
#include "core/histogram/histogram.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/mechanism.h"

namespace dpx::cli {

QJsonObject mechanismJson(const CalibratedMechanism& m) {
    QJsonObject o;
    o[QStringLiteral("name")] = qs(m.name);
    o[QStringLiteral("noise")] = qs(m.noise.describe());
    o[QStringLiteral("noise_variance")] = m.noise.variance();
    o[QStringLiteral("epsilon")] = m.guarantee.epsilon;
    o[QStringLiteral("delta")] = m.guarantee.delta;
    if (m.guarantee.rho) {
        o[QStringLiteral("rho")] = *m.guarantee.rho;
    }
    // A sensitivity the caller did not give (dpx estimate) is left out rather than shown as 0.
    if (m.l1Sensitivity > 0) {
        o[QStringLiteral("l1_sensitivity")] = m.l1Sensitivity;
    }
    if (m.l2Sensitivity > 0) {
        o[QStringLiteral("l2_sensitivity")] = m.l2Sensitivity;
    }
    if (!m.calibration.empty()) {
        o[QStringLiteral("calibration")] = qs(m.calibration);
    }
    o[QStringLiteral("guarantee")] = qs(m.guarantee.sentence);
    o[QStringLiteral("warnings")] = toArray(m.warnings);
    return o;
}

// Mechanism from --mechanism/--epsilon/--delta/--calibration and a sensitivity.
Expected<CalibratedMechanism> mechanismFromArgs(const Args& a, const Sensitivity& s) {
    auto kind = mechanismFromName(a.text("mechanism", "laplace"));
    if (!kind) {
        return kind.error();
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return eps.error();
    }
    MechanismSpec spec;
    spec.kind = *kind;
    spec.privacy.epsilon = *eps;
    if (*kind == MechanismKind::Gaussian) {
        auto delta = a.number("delta");
        if (!delta) {
            return Error{"the Gaussian mechanism needs --delta (0 < δ < 1)"};
        }
        spec.privacy.delta = *delta;
        auto cal = gaussianCalibrationFromName(a.text("calibration", "analytic"));
        if (!cal) {
            return cal.error();
        }
        spec.calibration = *cal;
    } else if (a.has("delta")) {
        return Error{std::string("--delta applies to the Gaussian mechanism only; the ") +
                     mechanismName(*kind) + " mechanism is pure ε-DP (δ = 0)"};
    } else if (a.has("calibration")) {
        return Error{"--calibration applies to the Gaussian mechanism only"};
    }
    return calibrate(spec, s);
}

int cmdEstimate(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2,
                            {"counts", "estimator", "epsilon", "mechanism", "sensitivity", "delta",
                             "calibration", "counts-file", "counts-layout"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto noisy = countsListFromArgs(a, &err);
    if (!noisy) {
        return fail(err, noisy.error());
    }
    auto kindName = a.text("estimator");
    if (!kindName) {
        return fail(err, kindName.error());
    }
    auto kind = estimatorFromName(*kindName);
    if (!kind) {
        return fail(err, kind.error());
    }
    QJsonObject o;
    o[QStringLiteral("estimator")] = QString::fromLatin1(estimatorName(*kind));
    if (*kind != EstimatorKind::NoiseFirst) {
        for (const char* opt : {"epsilon", "mechanism", "sensitivity", "delta", "calibration"}) {
            if (a.has(opt)) {
                return fail(err, Error{std::string("--") + opt +
                                       " is only used by the noisefirst estimator"});
            }
        }
        auto est = estimate(EstimatorSpec{*kind, 0}, *noisy);
        if (!est) {
            return fail(err, est.error());
        }
        o[QStringLiteral("estimate")] = toArray(*est);
        printJson(out, o);
        return kOk;
    }
    if (!a.has("epsilon")) {
        return fail(err, Error{"the noisefirst estimator needs --epsilon (the ε of the release, "
                               "which fixes the noise variance)"});
    }
    auto sens = a.number("sensitivity", 1.0);
    if (!sens) {
        return fail(err, sens.error());
    }
    // --sensitivity is Δ1 for Laplace/geometric and Δ2 for Gaussian.
    const Sensitivity s{*sens, *sens, std::floor(*sens) == *sens};
    auto mech = mechanismFromArgs(a, s);
    if (mech && mech->name == "gaussian") {
        mech->l1Sensitivity = 0;
    } else if (mech) {
        mech->l2Sensitivity = 0;
    }
    if (!mech) {
        return fail(err, mech.error());
    }
    const double variance = mech->noise.variance();
    auto nf = noiseFirst(*noisy, variance);
    if (!nf) {
        return fail(err, nf.error());
    }
    o[QStringLiteral("estimate")] = toArray(nf->estimate);
    o[QStringLiteral("buckets")] = static_cast<qint64>(nf->buckets);
    QJsonArray ends;
    for (std::size_t e : nf->bucketEnd) {
        ends.append(static_cast<qint64>(e));
    }
    o[QStringLiteral("bucket_ends")] = ends;
    o[QStringLiteral("noise_variance")] = variance;
    o[QStringLiteral("mechanism")] = mechanismJson(*mech);
    printJson(out, o);
    return kOk;
}

int cmdExpectedError(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args =
        Args::parse(argv, 2,
                    {"counts", "edges", "mechanism", "epsilon", "delta", "calibration",
                     "neighbouring", "max-bins", "max-per-bin", "estimator", "metric", "scale",
                     "method", "trials", "seed", "threads", "counts-file", "counts-layout"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    if (!a.has("mechanism")) {
        return fail(err,
                    Error{"missing required option --mechanism (laplace, geometric or gaussian)"});
    }
    auto raw = countsListFromArgs(a, &err);
    if (!raw) {
        return fail(err, raw.error());
    }
    std::vector<std::int64_t> counts;
    for (std::size_t i = 0; i < raw->size(); ++i) {
        const double c = (*raw)[i];
        if (!std::isfinite(c) || std::floor(c) != c) {
            return fail(err, Error{"true count " + std::to_string(i + 1) +
                                   " must be an integer (got '" + formatNumber(c) + "')"});
        }
        if (std::abs(c) > 9e15) {
            return fail(err, Error{"true count " + std::to_string(i + 1) +
                                   " is larger than 9e15, beyond the counts handled exactly"});
        }
        counts.push_back(static_cast<std::int64_t>(c));
    }
    std::vector<double> edges;
    if (a.has("edges")) {
        auto e = a.numberList("edges");
        if (!e) {
            return fail(err, e.error());
        }
        edges = *e;
    }
    auto hist = Histogram::create(counts, {}, edges);
    if (!hist) {
        return fail(err, hist.error());
    }
    auto relation = neighbouringFromName(a.text("neighbouring", "add-remove"));
    if (!relation) {
        return fail(err, relation.error());
    }
    auto maxBins = a.integer("max-bins", 1);
    auto maxPerBin = a.integer("max-per-bin", 1);
    if (!maxBins) {
        return fail(err, maxBins.error());
    }
    if (!maxPerBin) {
        return fail(err, maxPerBin.error());
    }
    auto sens = histogramSensitivity(hist->size(), *relation, {*maxBins, *maxPerBin});
    if (!sens) {
        return fail(err, sens.error());
    }
    auto mech = mechanismFromArgs(a, *sens);
    if (!mech) {
        return fail(err, mech.error());
    }
    auto estName = a.text("estimator");
    if (!estName) {
        return fail(err, estName.error());
    }
    auto kind = estimatorFromName(*estName);
    if (!kind) {
        return fail(err, kind.error());
    }
    auto metricText = a.text("metric");
    if (!metricText) {
        return fail(err, metricText.error());
    }
    auto metric = metricFromName(*metricText);
    if (!metric) {
        return fail(err, metric.error());
    }
    auto scale = scaleFromName(a.text("scale", "counts"));
    if (!scale) {
        return fail(err, scale.error());
    }
    const std::string method = a.text("method", "exact");
    if (method != "exact" && method != "monte-carlo") {
        return fail(err, Error{"unknown method '" + method + "' (use exact or monte-carlo)"});
    }
    if (method == "exact") {
        for (const char* opt : {"trials", "seed", "threads"}) {
            if (a.has(opt)) {
                return fail(
                    err, Error{std::string("--") + opt + " applies to --method monte-carlo only"});
            }
        }
    }
    auto trials = a.unsignedInt("trials", 100000);
    auto seed = a.unsignedInt("seed", 1);
    auto threads = a.unsignedInt("threads", 0);
    for (const auto* v : {&trials, &seed, &threads}) {
        if (!*v) {
            return fail(err, v->error());
        }
    }
    if (*threads > 1024) {
        return fail(err, Error{"--threads must be at most 1024"});
    }

    const TruthModel truth{hist->countsAsDouble(), hist->positions()};
    const EstimatorSpec est{*kind, mech->noise.variance()};
    const MetricSpec ms{*metric, *scale};
    ErrorEstimate r;
    if (method == "exact") {
        auto e = exactExpectedError(truth, mech->noise, est, ms);
        if (!e) {
            return fail(err, e.error());
        }
        r = *e;
    } else {
        MonteCarloOptions opt;
        opt.trials = *trials;
        opt.seed = *seed;
        opt.threads = static_cast<unsigned>(*threads);
        auto mc =
            monteCarloExpectedError(truth, mech->noise, std::span(&est, 1), std::span(&ms, 1), opt);
        if (!mc) {
            return fail(err, mc.error());
        }
        r = mc->values[0][0];
    }
    QJsonObject o;
    o[QStringLiteral("value")] = r.value;
    o[QStringLiteral("stderr")] = r.stdError;
    o[QStringLiteral("ci95")] = QJsonArray{r.ciLow, r.ciHigh};
    o[QStringLiteral("method")] = qs(method);
    o[QStringLiteral("detail")] = qs(r.method);
    if (method == "exact") {
        o[QStringLiteral("error_bound")] = r.errorBound;
        o[QStringLiteral("trials")] = 0;
    } else {
        o[QStringLiteral("trials")] = static_cast<qint64>(r.trials);
        o[QStringLiteral("seed")] = QString::number(*seed);
    }
    o[QStringLiteral("mechanism")] = mechanismJson(*mech);
    o[QStringLiteral("estimator")] = QString::fromLatin1(estimatorName(*kind));
    o[QStringLiteral("metric")] = QString::fromLatin1(metricName(*metric));
    o[QStringLiteral("scale")] = QString::fromLatin1(scaleName(*scale));
    o[QStringLiteral("neighbouring")] = QString::fromLatin1(neighbouringName(*relation));
    o[QStringLiteral("bins")] = static_cast<qint64>(hist->size());
    o[QStringLiteral("total")] = static_cast<qint64>(hist->total());
    printJson(out, o);
    return kOk;
}

int cmdSigma(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2, {"epsilon", "delta", "sensitivity", "calibration"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto eps = a.number("epsilon");
    auto delta = a.number("delta");
    auto sens = a.number("sensitivity");
    for (const auto* v : {&eps, &delta, &sens}) {
        if (!*v) {
            return fail(err, v->error());
        }
    }
    auto cal = gaussianCalibrationFromName(a.text("calibration", "analytic"));
    if (!cal) {
        return fail(err, cal.error());
    }
    auto m = calibrateGaussian({*eps, *delta, *sens, *cal});
    if (!m) {
        return fail(err, m.error());
    }
    const double sigma = m->noise.parameter();
    QJsonObject o;
    o[QStringLiteral("sigma")] = sigma;
    o[QStringLiteral("rho")] = *m->guarantee.rho;
    o[QStringLiteral("calibration")] = QString::fromLatin1(gaussianCalibrationName(*cal));
    o[QStringLiteral("epsilon")] = *eps;
    o[QStringLiteral("delta")] = *delta;
    o[QStringLiteral("l2_sensitivity")] = *sens;
    o[QStringLiteral("exact_delta")] = gaussianExactDelta(sigma, *eps, *sens);
    o[QStringLiteral("warnings")] = toArray(m->warnings);
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
