#include "app/cli/commands/tradeoff.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <charconv>
#include <cmath>
#include <optional>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands/histogram.h"
#include "app/cli/commands/table_input.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "core/accuracy/metrics.h"
#include "core/base/validation.h"
#include "core/choosing/public_proxy.h"
#include "core/count/lp_objective.h"
#include "core/histogram/dataset.h"
#include "core/histogram/histogram.h"
#include "io/sources/proxy_source.h"

namespace dpx::cli {

namespace {

Expected<int> wholeNumber(const std::string& text, const std::string& what) {
    int v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) {
        return Error{what + ": '" + text + "' is not a whole number"};
    }
    return v;
}

QJsonValue numberOrNull(double v) {
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonObject pointJson(const std::string& config, const CurvePoint& p) {
    QJsonObject o;
    o[QStringLiteral("config")] = qs(config);
    o[QStringLiteral("epsilon")] = p.epsilon;
    o[QStringLiteral("value")] = numberOrNull(p.value);
    o[QStringLiteral("ci95")] =
        p.valid() ? QJsonValue(QJsonArray{p.ciLow, p.ciHigh}) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("method")] = qs(p.method);
    if (!p.exact && p.valid()) {
        o[QStringLiteral("trials")] = static_cast<qint64>(p.trials);
    }
    return o;
}

// LO:HI for --range.
Expected<std::pair<double, double>> parseRange(const std::string& text) {
    const auto parts = split(text, ':');
    if (parts.size() != 2) {
        return Error{"--range: expected LO:HI, got '" + text + "'"};
    }
    auto lo = parseNumber(parts[0], "--range LO");
    auto hi = parseNumber(parts[1], "--range HI");
    if (!lo) {
        return lo.error();
    }
    if (!hi) {
        return hi.error();
    }
    if (!(*lo > 0 && *lo < *hi && std::isfinite(*hi))) {
        return Error{"--range: need 0 < LO < HI (finite), got '" + text + "'"};
    }
    return std::pair{*lo, *hi};
}

// --configs: split at the commas outside parentheses (an algorithm's parameter list,
// algo:mwem(rounds=20,ratio=0.25), holds commas of its own).
std::vector<std::string> splitConfigs(const std::string& text) {
    std::vector<std::string> out(1);
    int depth = 0;
    for (char ch : text) {
        if (ch == ',' && depth == 0) {
            out.emplace_back();
            continue;
        }
        depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
        out.back() += ch;
    }
    return out;
}

}  // namespace

Expected<TradeoffConfig> parseTradeoffConfig(const std::string& text,
                                             std::optional<std::string>* deprecation) {
    if (isAlgorithmConfigName(text)) {
        // A workload algorithm of issue #20 (core/choosing/tradeoff.h): algo:ID[(NAME=VALUE,…)].
        return algorithmConfigFromName(text);
    }
    // The estimator follows the LAST ':' so that the objective may hold one (optimal-l0d:3:clamp).
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
        return Error{"configuration '" + text +
                     "' is not MECHANISM:ESTIMATOR (e.g. laplace:clamp, gm:identity, "
                     "optimal-l1:identity, oue:identity) or algo:ID (e.g. algo:dawa)"};
    }
    const std::string mech = text.substr(0, colon);
    const std::string est = text.substr(colon + 1);
    TradeoffConfig c;
    if (mech == "laplace") {
        c.mechanism = TradeoffMechanism::Laplace;
    } else if (mech == "geometric") {
        c.mechanism = TradeoffMechanism::Geometric;
    } else if (mech == "gaussian") {
        c.mechanism = TradeoffMechanism::Gaussian;
    } else if (mech == "sparse") {
        c.mechanism = TradeoffMechanism::SparseThreshold;
    } else if (mech == "gm") {
        c.mechanism = TradeoffMechanism::CountGeometric;
    } else if (mech == "em") {
        c.mechanism = TradeoffMechanism::CountExplicitFair;
    } else if (mech == "optimal" || mech.rfind("optimal-", 0) == 0) {
        c.mechanism = TradeoffMechanism::CountOptimal;
        c.lp.cost = LpCostKind::L1;
        if (mech != "optimal") {
            auto objective = parseLpObjective(mech.substr(8));
            if (!objective) {
                return Error{"configuration '" + text + "': " + objective.error().message};
            }
            applyLpObjective(objective->objective, c.lp);
            if (deprecation && objective->deprecation) {
                *deprecation = "configuration '" + text + "': " + *objective->deprecation;
            }
        }
    } else if (mech == "rr" || mech == "grr" || mech == "oue" || mech == "sue" || mech == "olh" ||
               mech == "hrr" || mech.rfind("dbitflip", 0) == 0) {
        // A local protocol (core/choosing/tradeoff.h localProtocolFromConfigName): dbitflipD, D
        // bits.
        auto spec = localProtocolFromConfigName(mech);
        if (!spec) {
            return Error{"configuration '" + text + "': " + spec.error().message};
        }
        c.mechanism = TradeoffMechanism::Local;
        c.local = *spec;
    } else {
        return Error{"configuration '" + text + "': unknown mechanism '" + mech +
                     "' (use laplace, geometric, gaussian, sparse, gm, em, optimal[-OBJ], a "
                     "local protocol rr, grr, oue, sue, olh, hrr, dbitflipD, or a workload "
                     "algorithm algo:ID)"};
    }
    auto kind = estimatorFromName(est);
    if (!kind) {
        return Error{"configuration '" + text + "': " + kind.error().message};
    }
    c.estimator = *kind;
    return c;
}

Expected<std::vector<double>> parseEpsilonGrid(const std::string& text) {
    if (text.find(':') != std::string::npos) {
        const auto parts = split(text, ':');
        if (parts.size() != 3) {
            return Error{"--epsilons: expected LO:HI:COUNT or E1,E2,..., got '" + text + "'"};
        }
        auto lo = parseNumber(parts[0], "--epsilons LO");
        auto hi = parseNumber(parts[1], "--epsilons HI");
        auto count = wholeNumber(parts[2], "--epsilons COUNT");
        if (!lo) {
            return lo.error();
        }
        if (!hi) {
            return hi.error();
        }
        if (!count) {
            return count.error();
        }
        if (*count < 1) {
            return Error{"--epsilons: COUNT must be at least 1, got " + parts[2]};
        }
        auto g = logSpacedEpsilons(*lo, *hi, static_cast<std::size_t>(*count));
        if (!g) {
            return Error{"--epsilons: " + g.error().message};
        }
        return g;
    }
    std::vector<double> g;
    for (const auto& part : split(text, ',')) {
        auto e = parseNumber(part, "--epsilons");
        if (!e) {
            return e.error();
        }
        if (auto s = validateEpsilon(*e); !s) {
            return Error{"--epsilons: " + s.error().message};
        }
        g.push_back(*e);
    }
    return g;
}

int cmdTradeoff(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    // --frontier is a flag; everything else is "--name value".
    std::vector<std::string> rest;
    bool frontier = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (i >= 2 && argv[i] == "--frontier") {
            if (frontier) {
                return fail(err, "option --frontier given more than once");
            }
            frontier = true;
        } else {
            rest.push_back(argv[i]);
        }
    }
    auto args = Args::parse(
        rest, 2,
        {"counts",        "data",    "column",           "bins",    "table",       "configs",
         "metric",        "scale",   "epsilons",         "delta",   "calibration", "trials",
         "seed",          "threads", "target",           "range",   "n",           "counts-file",
         "counts-layout", "joint",   "algorithm-trials", "plan-on", "population"},
        kJointFlags, kJointRepeatable);
    if (!args) {
        return fail(err, args.error().message);
    }
    const Args& a = *args;

    // The true histogram: --counts, or one column of --data.
    std::vector<std::size_t> shape;
    auto truth = trueHistogramFromArgs(a, &err, nullptr, nullptr, &shape);
    if (!truth) {
        return fail(err, truth.error().message);
    }

    // Choosing ε without leaking (issue #22): --plan-on a public proxy replaces the true counts by
    // a proxy with the same bins scaled to the declared --population
    // (core/choosing/public_proxy.h); the data's counts and size are not used. With --plan-on the
    // JSON states "computed_on".
    std::optional<PlanOn> planOn;
    if (a.has("plan-on")) {
        auto plan = parsePlanOn(*a.get("plan-on"));
        if (!plan) {
            return fail(err, "--plan-on: " + plan.error().message);
        }
        if (plan->isProxy()) {
            if (!a.has("population")) {
                return fail(err, "--plan-on " + plan->text() +
                                     " needs --population N, the declared population (it is "
                                     "not read from the data: the data's size is itself "
                                     "private)");
            }
            auto n = a.integer("population", 0);
            if (!n) {
                return fail(err, n.error().message);
            }
            plan->population = *n;
            auto loaded = data::loadPlanOnFile(*plan);
            if (!loaded) {
                return fail(err, "--plan-on: " + loaded.error().message);
            }
            // Only the binning of the data is used: its number of bins, labels and edges.
            auto proxy =
                buildProxyHistogram(*loaded, truth->size(), truth->labels(), truth->edges());
            if (!proxy) {
                return fail(err, "--plan-on: " + proxy.error().message);
            }
            truth = std::move(*proxy);
        } else if (a.has("population")) {
            return fail(err,
                        "--population applies to a public proxy (--plan-on uniform, normal:..., "
                        "weights:..., shape:FILE or release:FILE), not to the confidential data");
        }
        planOn = std::move(*plan);
    } else if (a.has("population")) {
        return fail(err, "--population applies with --plan-on (a public proxy's declared size)");
    }
    // The JSON's statement of what the numbers were computed on (with --plan-on only, so that
    // the output of existing commands is unchanged).
    const auto stateBasis = [&](QJsonObject& o) {
        if (planOn) {
            o[QStringLiteral("computed_on")] = qs(planOn->computedOn());
            QJsonObject p;
            p[QStringLiteral("kind")] = QString::fromLatin1(planOnKindName(planOn->kind));
            if (planOn->isProxy()) {
                p[QStringLiteral("proxy")] = qs(planOn->text());
                p[QStringLiteral("population")] = static_cast<qint64>(planOn->population);
                p[QStringLiteral("population_declared")] = true;
            }
            o[QStringLiteral("plan_on")] = p;
        }
    };

    // Configurations, metric, scale, δ.
    if (!a.has("configs")) {
        return fail(err, "missing required option --configs (e.g. laplace:clamp,gm:identity)");
    }
    auto metricText = a.text("metric");
    if (!metricText) {
        return fail(err, metricText.error().message);
    }
    auto metric = metricFromName(*metricText);
    if (!metric) {
        return fail(err, metric.error().message);
    }
    auto scale = scaleFromName(a.text("scale", "counts"));
    if (!scale) {
        return fail(err, scale.error().message);
    }
    std::vector<TradeoffConfig> configs;
    bool anyGaussian = false;
    for (const auto& text : splitConfigs(*a.get("configs"))) {
        std::optional<std::string> deprecation;
        auto c = parseTradeoffConfig(text, &deprecation);
        if (!c) {
            return fail(err, c.error().message);
        }
        if (deprecation) {
            warn(err, *deprecation);
        }
        c->metric = {*metric, *scale};
        if (c->mechanism == TradeoffMechanism::Algorithm && shape.size() >= 2) {
            c->cellShape = shape;  // a table's cells in C order: the algorithm sees its shape
        }
        anyGaussian = anyGaussian || c->mechanism == TradeoffMechanism::Gaussian;
        configs.push_back(*c);
    }
    if (anyGaussian) {
        if (!a.has("delta")) {
            return fail(err, "the Gaussian mechanism needs --delta (0 < δ < 1)");
        }
        auto delta = a.number("delta");
        if (!delta) {
            return fail(err, delta.error().message);
        }
        if (auto s = validateDelta(*delta); !s) {
            return fail(err, "--delta: " + s.error().message);
        }
        auto cal = gaussianCalibrationFromName(a.text("calibration", "analytic"));
        if (!cal) {
            return fail(err, cal.error().message);
        }
        for (auto& c : configs) {
            c.delta = *delta;
            c.calibration = *cal;
        }
    } else if (a.has("delta") || a.has("calibration")) {
        return fail(err, std::string("--") + (a.has("delta") ? "delta" : "calibration") +
                             " applies to gaussian configurations only");
    }
    if (a.has("n")) {
        auto n = wholeNumber(*a.get("n"), "--n");
        if (!n) {
            return fail(err, n.error().message);
        }
        if (*n < 1 || *n > kMaxCountPeople) {
            return fail(err, "--n must be in [1, " + std::to_string(kMaxCountPeople) + "]");
        }
        for (auto& c : configs) {
            c.countPeople = *n;
        }
    }
    for (const auto& c : configs) {
        if (auto s = c.validate(); !s) {
            return fail(err, c.name() + ": " + s.error().message);
        }
    }

    // Accuracy first: --target VALUE (expected error) or --target within:K:Q (per bin).
    if (a.has("target")) {
        for (const char* opt : {"epsilons", "trials", "seed", "threads", "algorithm-trials"}) {
            if (a.has(opt)) {
                return fail(err, std::string("--") + opt +
                                     " does not apply with --target (solving uses the exact "
                                     "error over --range)");
            }
        }
        if (frontier) {
            return fail(err, "--frontier does not apply with --target");
        }
        auto range = parseRange(a.text("range", "0.001:20"));
        if (!range) {
            return fail(err, range.error().message);
        }
        const std::string t = *a.get("target");
        bool perBin = false;
        double k = 0, q = 0, target = 0;
        if (t.rfind("within:", 0) == 0) {
            const auto parts = split(t.substr(7), ':');
            if (parts.size() != 2) {
                return fail(err,
                            "--target within:K:Q expects a half-width K and a probability Q, "
                            "got '" +
                                t + "'");
            }
            auto kk = parseNumber(parts[0], "--target within K");
            auto qq = parseNumber(parts[1], "--target within Q");
            if (!kk) {
                return fail(err, kk.error().message);
            }
            if (!qq) {
                return fail(err, qq.error().message);
            }
            if (!(*kk > 0 && std::isfinite(*kk))) {
                return fail(err, "--target within: K must be positive and finite");
            }
            if (!(*qq > 0 && *qq < 1)) {
                return fail(err, "--target within: Q must be in (0, 1)");
            }
            perBin = true;
            k = *kk;
            q = *qq;
        } else {
            auto v = parseNumber(t, "--target");
            if (!v) {
                return fail(err, v.error().message);
            }
            if (!(*v > 0 && std::isfinite(*v))) {
                return fail(err, "--target must be a positive, finite error (got '" + t + "')");
            }
            target = *v;
        }
        QJsonArray solutions;
        std::string firstError;
        int solved = 0;
        for (const auto& c : configs) {
            auto s = perBin ? smallestEpsilonPerBin(k, q, c, range->first, range->second)
                            : smallestEpsilonFor(target, c, *truth, range->first, range->second);
            QJsonObject o;
            o[QStringLiteral("config")] = qs(c.name());
            if (s) {
                ++solved;
                o[QStringLiteral("epsilon")] = s->epsilon;
                o[QStringLiteral("value")] = s->value;
                o[QStringLiteral("method")] = qs(s->method);
            } else {
                o[QStringLiteral("error")] = qs(s.error().message);
                if (firstError.empty()) {
                    firstError = c.name() + ": " + s.error().message;
                }
            }
            solutions.append(o);
        }
        if (solved == 0) {
            return fail(err, firstError);
        }
        QJsonObject o;
        if (perBin) {
            o[QStringLiteral("target")] =
                QJsonObject{{QStringLiteral("within"), k}, {QStringLiteral("probability"), q}};
        } else {
            o[QStringLiteral("target")] = target;
            o[QStringLiteral("metric")] = QString::fromLatin1(metricName(*metric));
            o[QStringLiteral("scale")] = QString::fromLatin1(scaleName(*scale));
        }
        o[QStringLiteral("range")] = QJsonArray{range->first, range->second};
        o[QStringLiteral("solutions")] = solutions;
        stateBasis(o);
        printJson(out, o);
        return kOk;
    }
    if (a.has("range")) {
        return fail(err, "--range applies with --target only (use --epsilons for curves)");
    }

    // Curves.
    if (!a.has("epsilons")) {
        return fail(err, "missing required option --epsilons (LO:HI:COUNT or E1,E2,...)");
    }
    auto grid = parseEpsilonGrid(*a.get("epsilons"));
    if (!grid) {
        return fail(err, grid.error().message);
    }
    auto trials = a.unsignedInt("trials", 20000);
    auto seed = a.unsignedInt("seed", 1);
    auto threads = a.unsignedInt("threads", 0);
    auto algorithmTrials = a.unsignedInt("algorithm-trials", 100);
    for (const auto* v : {&trials, &seed, &threads, &algorithmTrials}) {
        if (!*v) {
            return fail(err, v->error().message);
        }
    }
    if (*trials < 2 || *trials > 100'000'000) {
        return fail(err, "--trials must be in [2, 1e8]");
    }
    if (*threads > 1024) {
        return fail(err, "--threads must be at most 1024");
    }
    if (*algorithmTrials < 2 || *algorithmTrials > 1'000'000) {
        return fail(err, "--algorithm-trials must be in [2, 1e6]");
    }
    CurveOptions opt;
    opt.trials = *trials;
    opt.seed = *seed;
    opt.threads = static_cast<unsigned>(*threads);
    opt.algorithmTrials = *algorithmTrials;
    std::vector<ErrorCurve> curves;
    QJsonArray points;
    for (const auto& c : configs) {
        auto curve = errorCurve(*truth, c, *grid, opt);
        if (!curve) {
            return fail(err, c.name() + ": " + curve.error().message);
        }
        for (const auto& p : curve->points) {
            points.append(pointJson(curve->label, p));
        }
        curves.push_back(std::move(*curve));
    }
    if (!frontier) {
        if (planOn) {
            QJsonObject o;
            o[QStringLiteral("points")] = points;
            stateBasis(o);
            printJson(out, o);
        } else {
            printJson(out, points);
        }
        return kOk;
    }
    // Monte Carlo noise does not pick the winner: statistical ties go to the exact (or first)
    // curve.
    const Frontier f = resolveStatisticalTies(curves, lowerEnvelope(curves));
    QJsonArray fp, segs;
    for (const auto& p : f.points) {
        fp.append(QJsonObject{{QStringLiteral("epsilon"), p.epsilon},
                              {QStringLiteral("value"), p.value},
                              {QStringLiteral("config"), qs(curves[p.curve].label)},
                              {QStringLiteral("interpolated"), p.interpolated}});
    }
    for (const auto& s : f.segments) {
        segs.append(QJsonObject{{QStringLiteral("config"), qs(s.label)},
                                {QStringLiteral("from"), s.epsilonFrom},
                                {QStringLiteral("to"), s.epsilonTo}});
    }
    QJsonObject o;
    o[QStringLiteral("points")] = points;
    o[QStringLiteral("frontier")] = fp;
    o[QStringLiteral("frontier_segments")] = segs;
    stateBasis(o);
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
