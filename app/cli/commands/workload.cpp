#include "app/cli/commands/workload.h"

#include <QJsonArray>
#include <cmath>
#include <ostream>

#include "app/cli/commands/table_input.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "core/algorithms/algorithm_error.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/workload/data_scale.h"
#include "core/workload/workload_error.h"

namespace dpx::cli {

namespace {

// Answers and the estimate are printed unasked up to this many values (--answers: always, up to
// kMaxListed).
constexpr std::uint64_t kSmallList = 64;
constexpr std::uint64_t kMaxListed = std::uint64_t{1} << 20;
// Largest scale --scale accepts (data_scale.h).
constexpr std::uint64_t kMaxScale = 1'000'000'000'000ULL;

std::string knownIds(const std::vector<const Algorithm*>& list) {
    std::string out;
    for (const Algorithm* a : list) {
        out += (out.empty() ? "" : ", ") + a->info().id;
    }
    return out.empty() ? "none registered" : out;
}

QJsonObject meanJson(const MeanWithError& m) {
    QJsonObject o;
    o[QStringLiteral("mean")] = m.mean;
    o[QStringLiteral("se")] = m.standardError;
    return o;
}

QJsonObject realizedJson(const WorkloadError& e) {
    QJsonObject o;
    o[QStringLiteral("L2")] = e.scaledL2;
    o[QStringLiteral("L1")] = e.scaledL1;
    o[QStringLiteral("Linf")] = e.scaledLinf;
    o[QStringLiteral("rmse")] = e.rmse;
    o[QStringLiteral("sum_squares")] = e.sumSquares;
    o[QStringLiteral("max_abs")] = e.maxAbs;
    return o;
}

}  // namespace

Expected<DataVector> dataVectorFromTable(const ContingencyTable& table, std::string source) {
    if (!table.isDense() ||
        table.cellCount() > CellCount{static_cast<std::uint64_t>(kMaxWorkloadCells)}) {
        return Error{"the table has " + tableShapeText(table) +
                     "; workloads and algorithms take a dense domain of at most 2^26 cells (use "
                     "fewer bins)"};
    }
    if (table.total() <= 0) {
        return Error{"the table has total 0: there is nothing to measure error against"};
    }
    DataVector d;
    for (std::uint64_t s : table.shape()) {
        d.shape.push_back(static_cast<std::size_t>(s));
    }
    d.x.reserve(table.denseCounts().size());
    for (std::int64_t c : table.denseCounts()) {
        d.x.push_back(static_cast<double>(c));
    }
    d.source = std::move(source);
    return d;
}

Expected<DataVector> dataVectorFromArgs(const Args& a, std::ostream* err) {
    if (auto st = checkCountsExclusive(a); !st) {
        return st.error();
    }
    DataVector d;
    if (asksForTable(a)) {
        auto t = tableFromArgs(a);
        if (!t) {
            return t.error();
        }
        return dataVectorFromTable(t->table, t->source);
    }
    auto h = trueHistogramFromArgs(a, err);
    if (!h) {
        return h.error();
    }
    d.shape = {h->counts().size()};
    for (std::int64_t c : h->counts()) {
        d.x.push_back(static_cast<double>(c));
    }
    d.source = a.has("counts") ? "--counts (" + std::to_string(d.x.size()) + " cells)"
                               : "column '" + a.text("column", "") + "' of " + a.text("data", "");
    return d;
}

Expected<DomainShape> parseDomain(const std::string& text, std::size_t dims) {
    DomainShape shape;
    for (const std::string& part : split(text, 'x')) {
        auto v = parseNumber(part, "--domain");
        if (!v || *v < 1 || *v != std::floor(*v) || *v > double(kMaxWorkloadCells)) {
            return Error{"--domain: '" + part + "' in '" + text +
                         "' is not a whole number of cells ≥ 1 (e.g. 256 or 64x64)"};
        }
        shape.push_back(static_cast<std::size_t>(*v));
    }
    if (shape.size() != dims) {
        return Error{"--domain: '" + text + "' has " + std::to_string(shape.size()) +
                     " size(s) but the data has " + std::to_string(dims) +
                     " dimension(s) (give one size per dimension, 'x' between)"};
    }
    return shape;
}

std::string domainText(const DomainShape& shape) {
    std::string out;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        out += (d ? "x" : "") + std::to_string(shape[d]);
    }
    return out;
}

Expected<const Algorithm*> algorithmFromId(const std::string& id) {
    if (const Algorithm* a = findAlgorithm(id)) {
        return a;
    }
    return Error{"unknown algorithm '" + id + "'; known: " + knownIds(allAlgorithms()) +
                 " (dpx algorithms lists them)"};
}

Status algorithmRunsOn(const Algorithm& a, const DomainShape& shape) {
    const AlgorithmInfo& info = a.info();
    for (std::size_t d : info.dimensions) {
        if (d == shape.size()) {
            return okStatus();
        }
    }
    std::string dims;
    for (std::size_t d : info.dimensions) {
        dims += (dims.empty() ? "" : " or ") + std::to_string(d) + "-D";
    }
    std::vector<const Algorithm*> fitting;
    for (const Algorithm* other : allAlgorithms()) {
        for (std::size_t d : other->info().dimensions) {
            if (d == shape.size()) {
                fitting.push_back(other);
            }
        }
    }
    return Error{info.id + " runs on " + dims + " data; the data is " +
                 std::to_string(shape.size()) + "-D (" + domainText(shape) + "). " +
                 (fitting.empty() ? std::string("No algorithm runs on it.")
                                  : "Algorithms for " + std::to_string(shape.size()) +
                                        "-D data: " + knownIds(fitting))};
}

Expected<std::map<std::string, double>> parametersFromArgs(const std::vector<std::string>& items) {
    std::map<std::string, double> out;
    for (const std::string& item : items) {
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0) {
            return Error{"--param '" + item + "': expected NAME=VALUE (e.g. rho=0.25)"};
        }
        const std::string name = item.substr(0, eq);
        auto v = parseNumber(item.substr(eq + 1), "--param " + name);
        if (!v) {
            return v.error();
        }
        if (!out.emplace(name, *v).second) {
            return Error{"--param " + name + " is given twice"};
        }
    }
    return out;
}

QJsonObject algorithmJson(const AlgorithmInfo& info) {
    QJsonObject o;
    o[QStringLiteral("id")] = qs(info.id);
    o[QStringLiteral("name")] = qs(info.name);
    o[QStringLiteral("citation")] = qs(info.citation);
    QJsonArray dims;
    for (std::size_t d : info.dimensions) {
        dims.append(static_cast<qint64>(d));
    }
    o[QStringLiteral("dimensions")] = dims;
    o[QStringLiteral("data_dependent")] = info.dataDependent;
    o[QStringLiteral("uses_workload")] = info.usesWorkload;
    o[QStringLiteral("total_is_public")] = info.totalIsPublic;
    QJsonArray params;
    for (const AlgorithmParameter& p : info.parameters) {
        QJsonObject j;
        j[QStringLiteral("name")] = qs(p.name);
        j[QStringLiteral("default")] = p.defaultValue;
        j[QStringLiteral("min")] = p.minValue;
        j[QStringLiteral("max")] = p.maxValue;
        j[QStringLiteral("integer")] = p.integer;
        j[QStringLiteral("description")] = qs(p.description);
        params.append(j);
    }
    o[QStringLiteral("parameters")] = params;
    o[QStringLiteral("doc")] = qs(info.docPage);
    return o;
}

std::string totalIsPublicWarning(const AlgorithmInfo& info) {
    return info.id +
           " uses the true total m as public, as its reference code does: the result is ε-DP "
           "only for a data set whose size is already public";
}

int cmdAlgorithms(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2, {"id", "dim"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto dim = a.unsignedInt("dim", 0);
    if (!dim) {
        return fail(err, dim.error());
    }
    std::vector<const Algorithm*> list;
    if (a.has("id")) {
        auto alg = algorithmFromId(*a.get("id"));
        if (!alg) {
            return fail(err, alg.error());
        }
        list.push_back(*alg);
    } else {
        list = allAlgorithms();
    }
    QJsonArray arr;
    for (const Algorithm* alg : list) {
        const auto& dims = alg->info().dimensions;
        if (*dim == 0 || std::find(dims.begin(), dims.end(), *dim) != dims.end()) {
            arr.append(algorithmJson(alg->info()));
        }
    }
    QJsonObject o;
    o[QStringLiteral("algorithms")] = arr;
    o[QStringLiteral("source")] = QStringLiteral(
        "the DPBench family: Hay, Machanavajjhala, Miklau, Chen & Zhang, \"Principled "
        "evaluation of differentially private algorithms using DPBench\", SIGMOD 2016");
    printJson(out, o);
    return kOk;
}

int cmdWorkload(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::set<std::string> known{"workload", "algorithm", "epsilon", "param",
                                "seed",     "data-seed", "trials",  "threads",
                                "scale",    "domain",    "answers", "joint"};
    known.insert(std::begin(kTruthOptions), std::end(kTruthOptions));
    known.insert(std::begin(kCountsFileOptions), std::end(kCountsFileOptions));
    std::set<std::string> repeatable = kJointRepeatable;
    repeatable.insert("param");
    auto args = Args::parse(argv, 2, known, {"joint", "answers"}, repeatable);
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    for (const char* required : {"algorithm", "epsilon"}) {
        if (!a.has(required)) {
            return fail(err, std::string("--") + required + " is required");
        }
    }
    auto epsilon = a.number("epsilon");
    if (!epsilon) {
        return fail(err, epsilon.error());
    }
    if (auto s = validateEpsilon(*epsilon); !s) {
        return fail(err, "--epsilon: " + s.error().message);
    }
    auto seed = a.unsignedInt("seed", 1);
    auto dataSeed = a.unsignedInt("data-seed", 0);
    auto trials = a.unsignedInt("trials", 10);
    auto threads = a.unsignedInt("threads", 0);
    for (const auto* v : {&seed, &dataSeed, &trials, &threads}) {
        if (!*v) {
            return fail(err, v->error());
        }
    }
    if (*trials > 1'000'000) {
        return fail(err, "--trials must be at most 10^6 (0: the realized run only)");
    }
    if (*threads > 1024) {
        return fail(err, "--threads must be at most 1024 (0: every core)");
    }
    auto params = parametersFromArgs(a.all("param"));
    if (!params) {
        return fail(err, params.error());
    }
    auto alg = algorithmFromId(*a.get("algorithm"));
    if (!alg) {
        return fail(err, alg.error());
    }
    const AlgorithmInfo& info = (*alg)->info();
    auto spec = WorkloadSpec::parse(a.text("workload", "range:2000"));
    if (!spec) {
        return fail(err, "--workload: " + spec.error().message);
    }

    // The data: as given, then (DPBench's order) resampled to m records on the full domain,
    // then coarsened.
    auto data = dataVectorFromArgs(a, &err);
    if (!data) {
        return fail(err, data.error());
    }
    DomainShape shape = data->shape;
    std::vector<double> x = std::move(data->x);
    const DomainShape original = shape;
    std::optional<std::uint64_t> scale;
    if (a.has("scale")) {
        auto m = a.unsignedInt("scale", 0);
        if (!m) {
            return fail(err, m.error());
        }
        if (*m < 1 || *m > kMaxScale) {
            return fail(err, "--scale: the number of records m must be in 1..10^12 (got " +
                                 *a.get("scale") + ")");
        }
        SimulationRng dataRng(*dataSeed, 0);
        auto r = resample(x, *m, dataRng);
        if (!r) {
            return fail(err, "--scale: " + r.error().message);
        }
        x = std::move(*r);
        scale = *m;
    }
    if (a.has("domain")) {
        auto to = parseDomain(*a.get("domain"), shape.size());
        if (!to) {
            return fail(err, to.error());
        }
        auto c = coarsen(x, shape, *to);
        if (!c) {
            return fail(err, "--domain: " + c.error().message);
        }
        x = std::move(*c);
        shape = *to;
    }
    if (auto s = algorithmRunsOn(**alg, shape); !s) {
        return fail(err, s.error());
    }
    auto w = Workload::make(*spec, shape);
    if (!w) {
        return fail(err, "--workload: " + w.error().message);
    }
    double m = 0;
    for (double v : x) {
        m += v;
    }

    // The realized run: stream 0 of the seed (the same draw as trial 1 of the trials).
    SimulationRng rng(*seed, 0);
    AlgorithmContext context;
    context.shape = shape;
    context.x = x;
    context.workload = &*w;
    context.epsilon = *epsilon;
    context.parameters = *params;
    context.rng = &rng;
    auto run = (*alg)->run(context);
    if (!run) {
        return fail(err, run.error());
    }
    auto realized = workloadError(*w, x, run->estimate, m);
    if (!realized) {
        return fail(err, realized.error(), kFailure);
    }
    auto used = checkAlgorithmContext(info, context);  // every parameter's value
    if (!used) {
        return fail(err, used.error());
    }

    QJsonObject o;
    QJsonObject algJson = algorithmJson(info);
    QJsonObject values;
    for (const auto& [name, value] : *used) {
        values[qs(name)] = value;
    }
    algJson[QStringLiteral("parameter_values")] = values;
    o[QStringLiteral("algorithm")] = algJson;
    QJsonObject dataJson;
    dataJson[QStringLiteral("source")] = qs(data->source);
    dataJson[QStringLiteral("original_domain")] = qs(domainText(original));
    dataJson[QStringLiteral("domain")] = qs(domainText(shape));
    dataJson[QStringLiteral("cells")] = static_cast<qint64>(x.size());
    dataJson[QStringLiteral("m")] = m;
    if (scale) {
        dataJson[QStringLiteral("resampled")] = QStringLiteral(
            "m records drawn from the data's shape (multinomial), then coarsened, as DPBench does");
        dataJson[QStringLiteral("data_seed")] = QString::number(*dataSeed);
    }
    o[QStringLiteral("data")] = dataJson;
    QJsonObject wJson;
    wJson[QStringLiteral("text")] = qs(w->spec().text());
    wJson[QStringLiteral("description")] = qs(w->describe());
    wJson[QStringLiteral("queries")] = static_cast<qint64>(w->queryCount());
    o[QStringLiteral("workload")] = wJson;
    o[QStringLiteral("epsilon")] = *epsilon;
    QJsonArray budget;
    double spent = 0;
    for (const BudgetStep& s : run->spent) {
        QJsonObject j;
        j[QStringLiteral("step")] = qs(s.what);
        j[QStringLiteral("epsilon")] = s.epsilon;
        budget.append(j);
        spent += s.epsilon;
    }
    o[QStringLiteral("budget")] = budget;
    o[QStringLiteral("budget_total")] = spent;
    o[QStringLiteral("summary")] = qs(run->summary);
    const bool listAll = a.has("answers");
    if (x.size() <= kSmallList || (listAll && x.size() <= kMaxListed)) {
        o[QStringLiteral("estimate")] = toArray(run->estimate);
    }
    if (w->explicitQueries() &&
        (w->queryCount() <= kSmallList || (listAll && w->queryCount() <= kMaxListed))) {
        auto truth = w->answers(x);
        auto noisy = w->answers(run->estimate);
        if (truth && noisy) {
            QJsonObject ans;
            ans[QStringLiteral("true")] = toArray(*truth);
            ans[QStringLiteral("noisy")] = toArray(*noisy);
            o[QStringLiteral("answers")] = ans;
        }
    } else if (listAll) {
        warn(err, "the workload has " + std::to_string(w->queryCount()) +
                      " queries: answers are listed up to " + std::to_string(kMaxListed));
    }
    QJsonObject errors;
    errors[QStringLiteral("realized")] = realizedJson(*realized);
    if (*trials > 0) {
        AlgorithmErrorRequest req;
        req.algorithm = *alg;
        req.shape = shape;
        req.x = x;
        req.workload = &*w;
        req.epsilon = *epsilon;
        req.parameters = *params;
        req.trials = *trials;
        req.seed = *seed;
        req.scale = m;
        req.threads = static_cast<unsigned>(*threads);
        auto r = algorithmError(req);
        if (!r) {
            return fail(err, r.error(), kFailure);
        }
        QJsonObject t;
        t[QStringLiteral("trials")] = static_cast<qint64>(r->trials);
        t[QStringLiteral("L2")] = meanJson(r->scaledL2);
        t[QStringLiteral("L1")] = meanJson(r->scaledL1);
        t[QStringLiteral("Linf")] = meanJson(r->scaledLinf);
        t[QStringLiteral("rmse")] = meanJson(r->rmse);
        t[QStringLiteral("seconds")] = r->secondsMedian;
        errors[QStringLiteral("over_trials")] = t;
        if (r->exactRmse) {
            QJsonObject e;
            e[QStringLiteral("rmse")] = *r->exactRmse;
            e[QStringLiteral("method")] = QStringLiteral(
                "least squares on the algorithm's strategy A with Laplace noise: "
                "E‖W x̂ − W x‖² = 2(Δ₁/ε)²·trace(W (AᵀA)⁻¹ Wᵀ) (Li et al., VLDB J. 2015)");
            errors[QStringLiteral("exact_expected")] = e;
        }
    }
    if (!errors.contains(QStringLiteral("exact_expected"))) {
        errors[QStringLiteral("exact_expected")] = QJsonValue::Null;
    }
    errors[QStringLiteral("definitions")] = QStringLiteral(
        "d = W x̂ − W x over q queries, m = the data's total: L2 = ‖d‖₂/q/m, L1 = ‖d‖₁/q/m, "
        "Linf = ‖d‖∞/m (DPBench, Hay et al. 2016), rmse = ‖d‖₂/√q");
    o[QStringLiteral("errors")] = errors;
    o[QStringLiteral("seed")] = QString::number(*seed);
    std::vector<std::string> warnings;
    if (info.totalIsPublic) {
        warnings.push_back(totalIsPublicWarning(info));
        warn(err, warnings.back());
    }
    o[QStringLiteral("warnings")] = toArray(warnings);
    o[QStringLiteral("note")] = QStringLiteral(
        "simulated on a seeded generator for comparison and planning: not a release");
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
