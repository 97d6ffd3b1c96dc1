#include "app/cli/cli.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands/audit.h"
#include "app/cli/commands/budget.h"
#include "app/cli/commands/histogram.h"
#include "app/cli/commands/kde.h"
#include "app/cli/commands/ldp.h"
#include "app/cli/commands/ldp_experiment.h"
#include "app/cli/commands/ldp_mean.h"
#include "app/cli/commands/mean.h"
#include "app/cli/commands/rdp.h"
#include "app/cli/commands/release.h"
#include "app/cli/commands/risk.h"
#include "app/cli/commands/select.h"
#include "app/cli/commands/sparse.h"
#include "app/cli/commands/tradeoff.h"
#include "app/version.h"
#include "core/accuracy/expected_error.h"
#include "core/base/validation.h"
#include "core/count/count_analysis.h"
#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"
#include "core/count/count_mechanism_io.h"
#include "core/estimators/estimator.h"
#include "core/estimators/noisefirst_estimator.h"
#include "core/histogram/histogram.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/mechanism.h"

namespace dpx::cli {

namespace {

constexpr int kOk = 0;
constexpr int kFailure = 1;
constexpr int kInvalid = 2;

const char* const kUsage = R"(dpx — DP Explorer command-line tool (JSON on stdout)

Usage:
  dpx estimate --counts LIST --estimator identity|clamp|resize|noisefirst
               [--epsilon E] [--mechanism laplace|geometric|gaussian] [--sensitivity S]
               [--delta D] [--calibration classic|seed|analytic]
  dpx expected-error --counts LIST --mechanism laplace|geometric|gaussian --epsilon E
               --estimator NAME --metric sse|l1|linf|w1 [--scale counts|frequencies]
               [--method exact|monte-carlo] [--trials N] [--seed S] [--threads T]
               [--delta D] [--calibration classic|seed|analytic]
               [--neighbouring add-remove|replace] [--max-bins M] [--max-per-bin C]
               [--edges e0,e1,...]
  dpx sigma --epsilon E --delta D --sensitivity S [--calibration classic|seed|analytic]
  dpx matrix --mechanism geometric|explicit-fair|uniform|randomized-response|laplace|gaussian|
                         grr|optimal
             --n N --epsilon E [--k K (grr)] [--delta D (gaussian)] [--format json|csv]
             [--sample C1,C2,... [--seed S]: one output per group count]
             optimal: [--objective l0|l1|l2|l0d:D|custom:COSTS.csv|minimax-...]
                      [--constraints rh,rm,ch,cm,f,wh,s]
                      [--weights uniform|binomial:P|w0,w1,...] [--time-limit SECONDS]
                      [--min-diagonal T (every count reported correctly w.p. ≥ T)]
                      [--sweep E1,E2,... instead of --epsilon: warm-started ε sweep]
  dpx matrix --check FILE.csv|FILE.json --epsilon E
  dpx histogram --data FILE.csv --column C [--column C2 ...] --bins SPEC [--bins SPEC2 ...]
               SPEC: LO:HI:COUNT | edges:E1,E2,... | integers:LO:HI[:W] | categories[:A,B,...]
                     [;closed] [;clamp] [;other] [;error]
               [--delimiter ,|;|tab|'|'] [--no-header] [--on-error stop|skip]
               [--type C=integer|float|categorical|date] [--id-column ID --cap K] [--threads T]
               [--max-record-bytes N] [--max-fields N] [--max-file-bytes N]
  dpx release (--data FILE|sqlite:PATH|postgresql://... --column C --bins SPEC [--table T]
               [--id-column ID --cap K] | --counts C1,C2,...)
               --mechanism discrete-laplace|discrete-gaussian|geometric-matrix --epsilon E
               [--delta D (discrete-gaussian)] [--n N (geometric-matrix group size)]
               [--neighbouring add-remove|replace] [--postprocess none|clamp|resize|noisefirst]
               --out release.csv --ledger ledger.json [--budget EPS[,DELTA] (new ledger)]
               [--composition basic|zcdp] [--overwrite]
               (exact samplers, OS randomness; writes release.csv + release.json, charges the
               ledger; a refused release exits non-zero and writes nothing; the budget is
               charged before the files appear, and a later run resolves a release that was
               interrupted)
  dpx ledger --ledger ledger.json
               (a ledger's state as JSON; completes or marks "charged, not published" the
               releases an interrupted run left pending, removes its stale temporary files)
               --data also takes sqlite:PATH or postgresql://user@host:port/db, with --table T
  dpx tradeoff (--counts LIST | --data FILE --column C --bins SPEC [--table T])
               --configs MECH:EST,... (MECH laplace|geometric|gaussian|gm|em|optimal[-OBJ],
                                       or local rr|grr|oue|sue|olh|hrr|dbitflipD)
               --metric sse|l1|linf|w1 [--scale counts|frequencies] [--n N (gm, em, optimal)]
               --epsilons LO:HI:COUNT (log-spaced) | E1,E2,... [--delta D] [--calibration C]
               [--trials N] [--seed S] [--threads T] [--frontier]
               or --target VALUE | within:K:Q [--range LO:HI]: the smallest ε meeting it
  dpx risk --epsilon E [--delta D (default 0: pure DP)] [--prior P (default 0.5)]
           [--group K] [--epsilons LO:HI:COUNT (log-spaced)] [--points N] [--slack T]
           [--mu M (Gaussian trade-off curve, μ = Δ2/σ)]
  dpx budget --epsilon E [--delta D] [--composition basic|zcdp]
             --stat LABEL:BINS[:laplace|geometric|gaussian[:WEIGHT]] [--stat ...]
             [--hold-epsilon LABEL=E] [--hold-accuracy LABEL=A (±A per bin, 95%)] [--records N]
  dpx ldp --protocol rr|grr|oue|sue|olh|hrr|dbitflip[:d]|hh:B[:consistent]|haar --epsilon E
          (--shape normal|uniform|constant --domain D --users N | --counts LIST [--users N]
           | --data FILE --column C --bins SPEC [--table T] [--users N])
          [--oracle grr|oue|sue|olh|hrr|dbitflip[:d] (hh:B, default oue)]
          [--queries ranges|prefixes [--range-samples K]] [--postprocess none|clamp|simplex]
          [--trials T (10)] [--seed S] [--simulator aggregate|per-user] [--threads T]
  dpx ldp --protocol inpht:K|onehot:K[:ORACLE] --attributes d --epsilon E
          (--counts C0,...,C(2^d−1) [--users N] | --shape uniform|skewed --users N)
          [--postprocess none|simplex] [--trials T] [--seed S] [--simulator ...] [--threads T]
  dpx ldp-experiment [--preset seed002] (seed 002's telemetry experiment; options override it)
             --protocols rr|grr|oue|sue|olh|hrr|dbitflip[:D],... --shapes normal|uniform|constant,...
             --users LO:HI:COUNT (log-spaced, whole) | N1,N2,... --epsilons LO:HI:COUNT | E1,E2,...
             [--buckets K (32)] [--repetitions R (10)] [--seed S] [--postprocess none|clamp|simplex]
             [--threads T]
  dpx ldp-mean --epsilon E (--shape normal|uniform|constant --users N [--buckets K] |
               --counts LIST | --data FILE --column C --bins SPEC) [--trials T] [--seed S]
               (1BitMean: every user sends one ε-LDP bit; values at the bins' centres)
  dpx sparse (--counts LIST | --example edwards-like|nltcs-like | --data FILE --column C --bins SPEC)
             --epsilon E [--threshold T (default (2/ε)·ln p)] [--trials N (1000; 0: none)]
             [--seed S] [--threads T] [--per-trial yes|no]
  dpx rdp (--counts LIST | --example ID | --data ...) --epsilon E --gamma G
          [--trials N (1000; 0: none)] [--seed S] [--threads T] [--per-trial yes|no]
          (random DP: a WEAKER guarantee than DP, beside the ε-DP Laplace histogram)
  dpx select (--counts LIST | --example ID | --data ...) --epsilon E [--task mode|quantile]
             [--quantile Q (0.5)] [--neighbouring add-remove|replace] [--monotone yes|no]
             [--path yes|no] [--path-steps N]
  dpx mean --n N --d D --epsilon E --delta D
           [--mechanism gaussian|gaussian-printed|laplace|knorm|all (default all)]
           [--calibration analytic|seed|classic (gaussian)] [--population bias|uniform-prior]
           [--bias B (each coordinate's mean, −1…1; default 0)] [--trials T (1000)] [--seed S]
  dpx kde (--data FILE --column C --bandwidth H --epsilon E --delta D | --example fig32)
          [--grid LO:HI:COUNT (2…2000 points)] [--samples K (3)] [--seed S]
  dpx audit [--mechanism discrete-laplace|discrete-gaussian|gm|laplace|all (default all)]
            [--epsilon E (1)] [--delta D (1e-5, discrete-gaussian)] [--samples N (10^6 per input)]
            [--seed S] [--broken laplace-half-scale|naive-float-laplace|perturbed-matrix]
            (statistical DP audit; exit 0: correct mechanisms pass / the broken one is caught)
  dpx --help | --version

Errors go to stderr as "dpx: error: ..." with exit code 2 (invalid input) or 1 (failure).
See docs/cli.md for every field of the JSON output.
)";

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QJsonArray toArray(const std::vector<double>& v) {
    QJsonArray a;
    for (double x : v) {
        a.append(x);
    }
    return a;
}

QJsonArray toArray(const std::vector<std::string>& v) {
    QJsonArray a;
    for (const auto& x : v) {
        a.append(qs(x));
    }
    return a;
}

void print(std::ostream& out, const QJsonObject& o) {
    out << QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

int fail(std::ostream& err, const Error& e, int code = kInvalid) {
    err << "dpx: error: " << e.message << '\n';
    return code;
}

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
    auto args = Args::parse(
        argv, 2,
        {"counts", "estimator", "epsilon", "mechanism", "sensitivity", "delta", "calibration"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto noisy = a.numberList("counts");
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
        print(out, o);
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
    print(out, o);
    return kOk;
}

int cmdExpectedError(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2,
                            {"counts", "edges", "mechanism", "epsilon", "delta", "calibration",
                             "neighbouring", "max-bins", "max-per-bin", "estimator", "metric",
                             "scale", "method", "trials", "seed", "threads"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    if (!a.has("mechanism")) {
        return fail(err,
                    Error{"missing required option --mechanism (laplace, geometric or gaussian)"});
    }
    auto raw = a.numberList("counts");
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
    print(out, o);
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
    print(out, o);
    return kOk;
}

// ---------------------------------------------------------------------------------------------
// dpx matrix: count-query mechanism matrices (core/count/count_mechanism.h)

// JSON has no infinity: an infinite achieved ε is written as the string "inf".
QJsonValue epsilonValue(double e) {
    if (std::isinf(e)) {
        return QStringLiteral("inf");
    }
    return e;
}

// The report shared by the generated and the checked matrices. `allPairs`: local-DP neighbours
// (every pair of columns, GRR) instead of adjacent counts.
QJsonObject matrixReport(const CountMechanism& m, const std::string& mechanism, double epsilon,
                         bool allPairs) {
    QJsonObject o;
    o[QStringLiteral("mechanism")] = qs(mechanism);
    o[QStringLiteral("n")] = static_cast<qint64>(m.people());
    o[QStringLiteral("epsilon")] = epsilon;
    o[QStringLiteral("alpha")] = std::exp(-epsilon);
    QJsonArray rows;
    for (std::size_t i = 0; i < m.size(); ++i) {
        QJsonArray row;
        for (std::size_t j = 0; j < m.size(); ++j) {
            row.append(m.at(i, j));
        }
        rows.append(row);
    }
    o[QStringLiteral("matrix")] = rows;
    o[QStringLiteral("l0")] = m.l0();
    const double achieved = allPairs ? m.achievedEpsilonAllPairs() : m.achievedEpsilon();
    o[QStringLiteral("achieved_epsilon")] = epsilonValue(achieved);
    o[QStringLiteral("neighbours")] =
        allPairs ? QStringLiteral("all-pairs") : QStringLiteral("adjacent");
    const CountProperties props = m.properties();
    QJsonObject holds;
    QJsonObject violations;
    for (const CountProperty p : kAllCountProperties) {
        const PropertyCheck& c = props.get(p);
        const QString name = QString::fromLatin1(countPropertyName(p));
        holds[name] = c.holds;
        if (!c.holds) {
            violations[name] = qs(c.reason);
        }
    }
    o[QStringLiteral("properties")] = holds;
    o[QStringLiteral("violations")] = violations;
    bool sumsOk = true;
    for (std::size_t j = 0; j < m.size(); ++j) {
        sumsOk = sumsOk && std::abs(m.columnSum(j) - 1) <= kColumnSumTolerance;
    }
    o[QStringLiteral("column_sums_ok")] = sumsOk;
    // The error law of every true count j (the column j of the matrix, shifted by j), summarised.
    QJsonArray perInput;
    for (const InputErrorDistribution& d : inputErrorDistributions(m)) {
        perInput.append(QJsonObject{{QStringLiteral("input"), static_cast<qint64>(d.input)},
                                    {QStringLiteral("p_correct"), d.pCorrect},
                                    {QStringLiteral("bias"), d.bias},
                                    {QStringLiteral("mean_abs_error"), d.meanAbs},
                                    {QStringLiteral("rmse"), std::sqrt(d.meanSquare)},
                                    {QStringLiteral("p_off_by_more_than_1"), d.pOffByMoreThan(1)}});
    }
    o[QStringLiteral("per_input")] = perInput;
    return o;
}

Expected<CountMechanism> readMatrixFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return Error{"cannot read '" + path + "': it is a directory"};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error{"cannot read '" + path + "': " + std::strerror(errno)};
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) {
        return Error{"cannot read '" + path + "'"};
    }
    const std::string text = buf.str();
    auto endsWith = [&](const char* ext) {
        const std::size_t k = std::strlen(ext);
        if (path.size() < k) {
            return false;
        }
        for (std::size_t i = 0; i < k; ++i) {
            const char c = path[path.size() - k + i];
            if (static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != ext[i]) {
                return false;
            }
        }
        return true;
    };
    bool json = false;
    if (endsWith(".json")) {
        json = true;
    } else if (!endsWith(".csv")) {
        const std::size_t first = text.find_first_not_of(" \t\r\n");
        json = first != std::string::npos && text[first] == '{';
    }
    auto m = json ? fromJson(text, "file") : fromCsv(text, "file");
    if (!m) {
        return Error{"'" + path + "': " + m.error().message};
    }
    return m;
}

// --objective l0|l1|l2|l0d:D (prefix "minimax-" for the max over inputs), --constraints
// rh,rm,ch,cm,f,wh,s (or none), --weights uniform|binomial:P, --time-limit S.
Expected<CountLpSpec> lpSpecFromArgs(const Args& a, int n, double epsilon) {
    CountLpSpec spec;
    spec.n = n;
    spec.epsilon = epsilon;
    std::string objective = a.text("objective", "l0");
    if (objective.rfind("minimax-", 0) == 0) {
        spec.aggregate = LpAggregate::Max;
        objective = objective.substr(8);
    }
    if (objective == "l0") {
        spec.cost = LpCostKind::L0;
    } else if (objective == "l1") {
        spec.cost = LpCostKind::L1;
    } else if (objective == "l2") {
        spec.cost = LpCostKind::L2;
    } else if (objective.rfind("l0d:", 0) == 0) {
        auto d = parseNumber(objective.substr(4), "--objective l0d:D");
        if (!d || *d != std::floor(*d) || *d < 0 || *d > n) {
            return Error{"--objective l0d:D needs an integer D in [0, n]"};
        }
        spec.cost = LpCostKind::L0d;
        spec.d = static_cast<int>(*d);
    } else if (objective.rfind("custom:", 0) == 0) {
        const std::string path = objective.substr(7);
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) {
            return Error{"cannot read the cost matrix '" + path + "': it is a directory"};
        }
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            return Error{"cannot read the cost matrix '" + path + "': " + std::strerror(errno)};
        }
        std::ostringstream buf;
        buf << in.rdbuf();
        auto grid = readNumberGridCsv(buf.str());
        if (!grid) {
            return Error{"cost matrix '" + path + "': " + grid.error().message};
        }
        const auto m = static_cast<std::size_t>(n) + 1;
        if (grid->size() != m || (*grid)[0].size() != m) {
            return Error{"cost matrix '" + path + "': expected " + std::to_string(m) + "×" +
                         std::to_string(m) +
                         " costs c(i, j) (line i+1 = output i, field j+1 = "
                         "true count j) for n = " +
                         std::to_string(n) + ", got " + std::to_string(grid->size()) + "×" +
                         std::to_string((*grid)[0].size())};
        }
        spec.cost = LpCostKind::Custom;
        for (const auto& row : *grid) {
            spec.customCost.insert(spec.customCost.end(), row.begin(), row.end());
        }
    } else {
        return Error{"unknown objective '" + a.text("objective", "") +
                     "' (use l0, l1, l2, l0d:D or custom:FILE.csv, optionally prefixed with "
                     "minimax-)"};
    }
    const std::string constraints = a.text("constraints", "none");
    if (constraints != "none" && !constraints.empty()) {
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = constraints.find(',', start);
            std::string item = constraints.substr(
                start, comma == std::string::npos ? std::string::npos : comma - start);
            for (char& c : item) {
                c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            }
            bool found = false;
            for (const CountProperty p : kAllCountProperties) {
                std::string name = countPropertyName(p);
                for (char& c : name) {
                    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
                }
                if (name == item) {
                    spec.constraints.push_back(p);
                    found = true;
                }
            }
            if (!found) {
                return Error{"unknown constraint '" + item + "' (use rh, rm, ch, cm, f, wh, s)"};
            }
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    const std::string weights = a.text("weights", "uniform");
    if (weights.rfind("binomial:", 0) == 0) {
        auto pr = parseNumber(weights.substr(9), "--weights binomial:P");
        if (!pr) {
            return pr.error();
        }
        auto w = binomialWeights(n, *pr);
        if (!w) {
            return w.error();
        }
        spec.weights = *w;
    } else if (weights != "uniform") {
        auto list = a.numberList("weights");
        if (!list) {
            return Error{"unknown weights '" + weights +
                         "' (use uniform, binomial:P or a list of n+1 numbers w0,w1,... that sum "
                         "to 1)"};
        }
        spec.weights = *list;
    }
    auto limit = a.number("time-limit", 60.0);
    if (!limit) {
        return limit.error();
    }
    spec.timeLimitSeconds = *limit;
    auto floor = a.number("min-diagonal", 0.0);
    if (!floor) {
        return floor.error();
    }
    spec.minDiagonal = *floor;
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    return spec;
}

int cmdMatrixCheck(const Args& a, std::ostream& out, std::ostream& err) {
    for (const char* opt : {"mechanism", "n", "k", "format"}) {
        if (a.has(opt)) {
            return fail(err, Error{std::string("--") + opt +
                                   " cannot be combined with --check (the matrix comes from "
                                   "the file)"});
        }
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return fail(err, s.error());
    }
    const std::string path = *a.get("check");
    auto m = readMatrixFile(path);
    if (!m) {
        return fail(err, m.error());
    }
    QJsonObject o = matrixReport(*m, "file", *eps, false);
    o[QStringLiteral("file")] = qs(path);
    const double achieved = m->achievedEpsilon();
    o[QStringLiteral("dp_ok")] = achieved <= *eps * (1 + 1e-12);
    print(out, o);
    return kOk;
}

// dpx matrix --mechanism optimal --sweep E1,E2,...: the same LP for every ε, warm-started.
// One summary object per ε (no matrices: use a single --epsilon for the matrix itself).
int cmdMatrixSweep(const Args& a, std::ostream& out, std::ostream& err) {
    for (const char* opt : {"epsilon", "format", "k"}) {
        if (a.has(opt)) {
            return fail(err, Error{std::string("--") + opt +
                                   " cannot be combined with --sweep (the sweep lists the ε "
                                   "values and reports JSON summaries)"});
        }
    }
    auto epsilons = a.numberList("sweep");
    if (!epsilons) {
        return fail(err, epsilons.error());
    }
    if (epsilons->size() > 1000) {
        return fail(err, Error{"--sweep takes at most 1000 ε values, got " +
                               std::to_string(epsilons->size())});
    }
    constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
    auto n = a.integer("n", kUnset);
    if (!n) {
        return fail(err, n.error());
    }
    if (*n == kUnset) {
        return fail(err, Error{"missing required option --n (the number of people)"});
    }
    if (*n < 1 || *n > kMaxCountPeople) {
        return fail(err, Error{"--n (the number of people) must be an integer in [1, " +
                               std::to_string(kMaxCountPeople) + "], got " + std::to_string(*n)});
    }
    for (double e : *epsilons) {
        if (auto s = validateEpsilon(e); !s) {
            return fail(err, s.error());
        }
    }
    auto spec = lpSpecFromArgs(a, static_cast<int>(*n), epsilons->front());
    if (!spec) {
        return fail(err, spec.error());
    }
    const auto start = std::chrono::steady_clock::now();
    auto results = designCountMechanismSweep(*spec, *epsilons);
    if (!results) {
        return fail(err, results.error());
    }
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QJsonArray rows;
    for (std::size_t k = 0; k < results->size(); ++k) {
        const CountLpResult& r = (*results)[k];
        QJsonObject o;
        o[QStringLiteral("epsilon")] = (*epsilons)[k];
        o[QStringLiteral("alpha")] = std::exp(-(*epsilons)[k]);
        o[QStringLiteral("status")] = QString::fromLatin1(lpStatusName(r.status));
        o[QStringLiteral("warm_started")] = r.warmStarted;
        o[QStringLiteral("iterations")] = r.iterations;
        o[QStringLiteral("solve_seconds")] = r.seconds;
        if (r.mechanism) {
            o[QStringLiteral("objective")] = r.objective;
            o[QStringLiteral("objective_solver")] = r.solverObjective;
            if (r.normalised) {
                o[QStringLiteral("objective_normalised")] = *r.normalised;
            }
            o[QStringLiteral("l0")] = r.mechanism->l0();
            o[QStringLiteral("achieved_epsilon")] = epsilonValue(r.mechanism->achievedEpsilon());
            o[QStringLiteral("repair_uniform_share")] = r.repairUniformShare;
            o[QStringLiteral("repair_cost")] = r.repairCost;
            o[QStringLiteral("gaps")] = static_cast<qint64>(r.gaps.size());
            o[QStringLiteral("spikes")] = static_cast<qint64>(r.spikes.size());
        }
        rows.append(o);
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = QStringLiteral("optimal");
    o[QStringLiteral("n")] = static_cast<qint64>(*n);
    o[QStringLiteral("sweep")] = rows;
    o[QStringLiteral("total_seconds")] = total;
    print(out, o);
    return kOk;
}

int cmdMatrix(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(
        argv, 2,
        {"mechanism", "n", "epsilon", "k", "format", "check", "objective", "constraints", "weights",
         "time-limit", "sweep", "min-diagonal", "delta", "sample", "seed"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    if (a.has("check")) {
        return cmdMatrixCheck(a, out, err);
    }
    auto mechText = a.text("mechanism");
    if (!mechText) {
        return fail(err, Error{"missing required option --mechanism (geometric, explicit-fair, "
                               "uniform, randomized-response or grr), or --check FILE"});
    }
    const std::string& mech = *mechText;
    const bool grr = mech == "grr";
    const bool optimal = mech == "optimal";
    if (a.has("sweep")) {
        if (!optimal) {
            return fail(err, Error{"--sweep applies to --mechanism optimal only"});
        }
        return cmdMatrixSweep(a, out, err);
    }
    if (mech != "geometric" && mech != "explicit-fair" && mech != "uniform" &&
        mech != "randomized-response" && mech != "laplace" && mech != "gaussian" && !grr &&
        !optimal) {
        return fail(err, Error{"unknown mechanism '" + mech +
                               "' (use geometric, explicit-fair, uniform, randomized-response, "
                               "laplace, gaussian, grr or optimal)"});
    }
    if (a.has("delta") && mech != "gaussian") {
        return fail(err, Error{"--delta applies to --mechanism gaussian only"});
    }
    if (!optimal) {
        for (const char* opt :
             {"objective", "constraints", "weights", "time-limit", "min-diagonal"}) {
            if (a.has(opt)) {
                return fail(
                    err, Error{std::string("--") + opt + " applies to --mechanism optimal only"});
            }
        }
    }
    const std::string format = a.text("format", "json");
    if (format != "json" && format != "csv") {
        return fail(err, Error{"unknown format '" + format + "' (use json or csv)"});
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return fail(err, s.error());
    }
    constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
    auto n = a.integer("n", kUnset);
    if (!n) {
        return fail(err, n.error());
    }
    auto k = a.integer("k", kUnset);
    if (!k) {
        return fail(err, k.error());
    }
    // Range checks here so that values beyond int are reported as given.
    auto inRange = [](std::int64_t v, std::int64_t lo, std::int64_t hi, const char* what) {
        if (v < lo || v > hi) {
            return Status(Error{std::string(what) + " must be an integer in [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                std::to_string(v)});
        }
        return okStatus();
    };
    if (!grr && *k != kUnset) {
        return fail(err, Error{"--k applies to --mechanism grr only"});
    }
    Expected<CountMechanism> m = Error{""};
    std::optional<CountLpResult> lp;
    if (optimal) {
        if (*n == kUnset) {
            return fail(err, Error{"missing required option --n (the number of people)"});
        }
        if (auto s = inRange(*n, 1, kMaxCountPeople, "--n (the number of people)"); !s) {
            return fail(err, s.error());
        }
        auto spec = lpSpecFromArgs(a, static_cast<int>(*n), *eps);
        if (!spec) {
            return fail(err, spec.error());
        }
        auto r = designCountMechanism(*spec);
        if (!r) {
            return fail(err, r.error());
        }
        if (r->status != LpStatus::Optimal) {
            return fail(err,
                        Error{std::string("the linear program ended with status '") +
                              lpStatusName(r->status) + "' after " + formatNumber(r->seconds) +
                              " s; no mechanism to show"},
                        kFailure);
        }
        lp = *r;
        m = *r->mechanism;
    } else if (grr) {
        if (*k == kUnset) {
            return fail(err, Error{"--mechanism grr needs --k (the number of categories, "
                                   "2 ≤ k ≤ " +
                                   std::to_string(kMaxCountPeople + 1) + ")"});
        }
        if (*n != kUnset && *n != *k - 1) {
            return fail(err, Error{"--n must be k − 1 for grr (the matrix is k×k); got --n " +
                                   std::to_string(*n) + " with --k " + std::to_string(*k)});
        }
        if (auto s = inRange(*k, 2, kMaxCountPeople + 1, "--k (the number of categories)"); !s) {
            return fail(err, s.error());
        }
        m = generalizedRandomizedResponse(static_cast<int>(*k), *eps);
    } else if (mech == "randomized-response") {
        if (*n != kUnset && *n != 1) {
            return fail(err, Error{"randomized response is the n = 1 mechanism; --n must be 1 "
                                   "or left out (got " +
                                   std::to_string(*n) + ")"});
        }
        m = randomizedResponse(*eps);
    } else {
        if (*n == kUnset) {
            return fail(err, Error{"missing required option --n (the number of people, 1 ≤ n ≤ " +
                                   std::to_string(kMaxCountPeople) + ")"});
        }
        if (auto s = inRange(*n, 1, kMaxCountPeople, "--n (the number of people)"); !s) {
            return fail(err, s.error());
        }
        const int people = static_cast<int>(*n);
        if (mech == "geometric") {
            m = truncatedGeometric(people, *eps);
        } else if (mech == "laplace") {
            m = discretizedLaplace(people, *eps);
        } else if (mech == "gaussian") {
            auto delta = a.number("delta");
            if (!delta) {
                return fail(err, Error{"--mechanism gaussian needs --delta (0 < δ < 1)"});
            }
            m = discretizedGaussian(people, *eps, *delta);
        } else if (mech == "explicit-fair") {
            m = explicitFair(people, *eps);
        } else {
            m = uniformMechanism(people);
        }
    }
    if (!m) {
        return fail(err, m.error());
    }
    std::optional<std::vector<int>> samples;
    std::uint64_t seed = 0;
    if (a.has("sample")) {
        if (format == "csv") {
            return fail(err, Error{"--sample needs the JSON report (not --format csv)"});
        }
        auto counts = a.numberList("sample");
        if (!counts) {
            return fail(err, counts.error());
        }
        if (counts->size() > 10'000'000) {
            return fail(err, Error{"--sample takes at most 10 000 000 group counts"});
        }
        std::vector<std::int64_t> groups;
        groups.reserve(counts->size());
        for (std::size_t g = 0; g < counts->size(); ++g) {
            const double c = (*counts)[g];
            if (c != std::floor(c) || c < 0 || c > static_cast<double>(m->people())) {
                return fail(err, Error{"--sample: group count [" + std::to_string(g) +
                                       "] = " + formatNumber(c) + " is not an integer in [0, n = " +
                                       std::to_string(m->people()) + "]"});
            }
            groups.push_back(static_cast<std::int64_t>(c));
        }
        auto sd = a.unsignedInt("seed", 1);
        if (!sd) {
            return fail(err, sd.error());
        }
        seed = *sd;
        auto drawn = sampleOutputs(*m, groups, seed);
        if (!drawn) {
            return fail(err, drawn.error());
        }
        samples = std::move(*drawn);
    } else if (a.has("seed")) {
        return fail(err, Error{"--seed applies to --sample only"});
    }
    if (format == "csv") {
        out << toCsv(*m);
        return kOk;
    }
    QJsonObject o = matrixReport(*m, mech, *eps, grr);
    if (mech == "gaussian") {
        o[QStringLiteral("delta")] = *a.number("delta");
        o[QStringLiteral("guarantee")] = QStringLiteral(
            "(epsilon, delta)-DP only: achieved_epsilon is the matrix's own pure level, which "
            "exceeds epsilon for large n");
    }
    if (samples) {
        QJsonArray arr;
        for (int v : *samples) {
            arr.append(v);
        }
        o[QStringLiteral("samples")] = arr;
        // A string: JSON numbers cannot hold every 64-bit seed exactly.
        o[QStringLiteral("seed")] = QString::number(seed);
    }
    if (grr) {
        o[QStringLiteral("k")] = static_cast<qint64>(m->size());
    }
    if (lp) {
        o[QStringLiteral("status")] = QString::fromLatin1(lpStatusName(lp->status));
        o[QStringLiteral("objective")] = lp->objective;
        o[QStringLiteral("objective_solver")] = lp->solverObjective;
        if (lp->normalised) {
            o[QStringLiteral("objective_normalised")] = *lp->normalised;
        }
        o[QStringLiteral("repair_uniform_share")] = lp->repairUniformShare;
        o[QStringLiteral("repair_cost")] = lp->repairCost;
        o[QStringLiteral("solve_seconds")] = lp->seconds;
        o[QStringLiteral("iterations")] = lp->iterations;
        o[QStringLiteral("symmetry_reduced")] = lp->symmetryReduced;
        o[QStringLiteral("lp_rows")] = lp->lpRows;
        o[QStringLiteral("lp_columns")] = lp->lpColumns;
        QJsonArray gaps;
        for (std::size_t g : lp->gaps) {
            gaps.append(static_cast<qint64>(g));
        }
        QJsonArray spikes;
        for (std::size_t sp : lp->spikes) {
            spikes.append(static_cast<qint64>(sp));
        }
        o[QStringLiteral("gaps")] = gaps;
        o[QStringLiteral("spikes")] = spikes;
    }
    print(out, o);
    return kOk;
}

}  // namespace

int run(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    if (argv.size() < 2) {
        err << kUsage;
        return kInvalid;
    }
    const std::string& cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        out << kUsage;
        return kOk;
    }
    if (cmd == "--version") {
        out << "dpx " << DPX_VERSION_STRING << '\n';
        return kOk;
    }
    if (argv.size() >= 3 && (argv[2] == "--help" || argv[2] == "-h")) {
        out << kUsage;
        return kOk;
    }
    try {
        if (cmd == "estimate") {
            return cmdEstimate(argv, out, err);
        }
        if (cmd == "expected-error") {
            return cmdExpectedError(argv, out, err);
        }
        if (cmd == "sigma") {
            return cmdSigma(argv, out, err);
        }
        if (cmd == "matrix") {
            return cmdMatrix(argv, out, err);
        }
        if (cmd == "histogram") {
            return cmdHistogram(argv, out, err);
        }
        if (cmd == "release") {
            return cmdRelease(argv, out, err);
        }
        if (cmd == "ledger") {
            return cmdLedger(argv, out, err);
        }
        if (cmd == "risk") {
            return cmdRisk(argv, out, err);
        }
        if (cmd == "sparse") {
            return cmdSparse(argv, out, err);
        }
        if (cmd == "rdp") {
            return cmdRdp(argv, out, err);
        }
        if (cmd == "select") {
            return cmdSelect(argv, out, err);
        }
        if (cmd == "budget") {
            return cmdBudget(argv, out, err);
        }
        if (cmd == "tradeoff") {
            return cmdTradeoff(argv, out, err);
        }
        if (cmd == "ldp") {
            return cmdLdp(argv, out, err);
        }
        if (cmd == "ldp-experiment") {
            return cmdLdpExperiment(argv, out, err);
        }
        if (cmd == "ldp-mean") {
            return cmdLdpMean(argv, out, err);
        }
        if (cmd == "mean") {
            return cmdMean(argv, out, err);
        }
        if (cmd == "kde") {
            return cmdKde(argv, out, err);
        }
        if (cmd == "audit") {
            return cmdAudit(argv, out, err);
        }
    } catch (const std::exception& e) {
        err << "dpx: internal error: " << e.what() << '\n';
        return kFailure;
    }
    err << "dpx: error: unknown command '" << cmd << "'\n" << kUsage;
    return kInvalid;
}

}  // namespace dpx::cli
