#include "app/cli/commands/sparse.h"

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <limits>
#include <ostream>
#include <set>
#include <utility>

#include "app/cli/commands/table_input.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/histogram/example_datasets.h"
#include "core/mechanisms/sparse_domain.h"
#include "core/mechanisms/sparse_histogram.h"

namespace dpx::cli {

namespace {

// Mean, standard error and the 5/50/95% points of per-trial values.
QJsonObject summary(std::vector<double> v, double mean, double se) {
    QJsonObject o;
    o[QStringLiteral("mean")] = mean;
    o[QStringLiteral("std_error")] = se;
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
        const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
        return v[std::min(i, v.size() - 1)];
    };
    o[QStringLiteral("p05")] = at(0.05);
    o[QStringLiteral("median")] = at(0.5);
    o[QStringLiteral("p95")] = at(0.95);
    return o;
}

}  // namespace

Expected<Histogram> histogramOrExampleFromArgs(const Args& a, std::ostream* err,
                                               std::size_t* attributes) {
    if (!a.has("example")) {
        return trueHistogramFromArgs(a, err, nullptr, attributes);
    }
    if (attributes) {
        *attributes = 1;
    }
    for (const char* opt : {"counts", "data", "column", "bins", "table", "counts-file", "joint"}) {
        if (a.has(opt)) {
            return Error{std::string("--example and --") + opt +
                         " cannot be combined: give one source of the histogram"};
        }
    }
    auto h = makeExample(*a.get("example"));
    if (!h) {
        return Error{"--example: " + h.error().message};
    }
    return h;
}

Expected<HistogramInput> histogramInputFromArgs(const std::vector<std::string>& argv,
                                                std::set<std::string> known, std::ostream* err) {
    known.insert("example");
    auto args = parseWithTruthOptions(argv, std::move(known));
    if (!args) {
        return args.error();
    }
    std::size_t attributes = 1;
    auto hist = histogramOrExampleFromArgs(*args, err, &attributes);
    if (!hist) {
        return hist.error();
    }
    auto eps = args->number("epsilon");
    if (!eps) {
        return eps.error();
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return Error{"--epsilon: " + s.error().message};
    }
    return HistogramInput{*args, *hist, *eps, attributes};
}

Expected<MonteCarloArgs> monteCarloArgsFrom(const Args& a) {
    auto trials = a.unsignedInt("trials", 1000);
    auto seed = a.unsignedInt("seed", 1);
    auto threads = a.unsignedInt("threads", 0);
    for (const auto* v : {&trials, &seed, &threads}) {
        if (!*v) {
            return v->error();
        }
    }
    if (*trials != 0 && (*trials < 2 || *trials > 10'000'000)) {
        return Error{"--trials must be 0 (no Monte Carlo) or in [2, 10000000] (got " +
                     std::to_string(*trials) + ")"};
    }
    if (*threads > 1024) {
        return Error{"--threads must be at most 1024"};
    }
    const std::string perTrial = a.text("per-trial", "no");
    if (perTrial != "yes" && perTrial != "no") {
        return Error{"--per-trial must be yes or no (got '" + perTrial + "')"};
    }
    if (*trials == 0) {
        for (const char* opt : {"seed", "threads", "per-trial"}) {
            if (a.has(opt)) {
                return Error{std::string("--") + opt +
                             " applies to the Monte Carlo only (--trials ≥ 2)"};
            }
        }
    }
    return MonteCarloArgs{*trials, *seed, static_cast<unsigned>(*threads), perTrial == "yes"};
}

namespace {

// ε and --threshold (default: none, i.e. (2/ε)·ln p), validated; messages name the option.
Expected<SparseHistogramParams> sparseParamsFrom(const Args& a, double epsilon) {
    SparseHistogramParams params{epsilon, std::nullopt};
    if (a.has("threshold")) {
        auto t = a.number("threshold");
        if (!t) {
            return t.error();
        }
        params.threshold = *t;
    }
    if (auto st = params.validate(); !st) {
        return Error{"--threshold: " + st.error().message};
    }
    return params;
}

// The most released cells listed in the JSON (the count is always given).
constexpr std::size_t kMaxListedCells = 1000;

// dpx sparse on a table (issue #19): thresholded Laplace over the whole domain without visiting
// its empty cells (core/mechanisms/sparse_domain.h) — exact expectations and one seeded
// simulated release.
int sparseOnTable(const Args& a, std::ostream& out, std::ostream& err) {
    for (const char* opt : {"trials", "threads", "per-trial", "example"}) {
        if (a.has(opt)) {
            return fail(err, std::string("--") + opt +
                                 " applies to a histogram given as --counts, --data or "
                                 "--example, not to a table (--counts-file, --joint)");
        }
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto st = validateEpsilon(*eps); !st) {
        return fail(err, "--epsilon: " + st.error().message);
    }
    auto params = sparseParamsFrom(a, *eps);
    if (!params) {
        return fail(err, params.error());
    }
    auto seed = a.unsignedInt("seed", 1);
    if (!seed) {
        return fail(err, seed.error());
    }
    auto t = tableFromArgs(a);
    if (!t) {
        return fail(err, t.error());
    }
    const ContingencyTable& table = t->table;
    auto exact = sparseDomainExpectedError(table, *params);
    if (!exact) {
        return fail(err, exact.error());
    }
    SimulationRng rng(*seed, 0);
    auto sim = simulateSparseDomain(table, *params, rng);
    if (!sim) {
        return fail(err, sim.error());
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = QStringLiteral("sparse-domain");
    o[QStringLiteral("guarantee")] = QString::fromStdString(
        "ε = " + formatNumber(*eps) +
        "-differential privacy under replace-one neighbours (one record touches one cell: L1 "
        "sensitivity 2, Laplace scale 2/ε per cell of the whole domain; thresholding is "
        "post-processing; τ is fixed before seeing the data). Cormode, Procopiuc, Srivastava, "
        "Shen & Yu 2012; the empty cells that cross τ are drawn as a Binomial count at uniform "
        "positions, the same distribution as noising every cell.");
    o[QStringLiteral("source")] = qs(t->source);
    QJsonArray names, shape;
    for (const Attribute& at : table.attributes()) {
        names.append(qs(at.name));
        shape.append(static_cast<qint64>(at.size()));
    }
    o[QStringLiteral("attributes")] = names;
    o[QStringLiteral("shape")] = shape;
    o[QStringLiteral("epsilon")] = *eps;
    o[QStringLiteral("noise_scale")] = exact->scale;
    o[QStringLiteral("threshold")] = exact->threshold;
    o[QStringLiteral("threshold_default")] = !params->threshold.has_value();
    o[QStringLiteral("cells")] = cellCountJson(exact->cells);
    o[QStringLiteral("occupied")] = static_cast<qint64>(exact->occupied);
    o[QStringLiteral("records")] = static_cast<qint64>(table.total());
    QJsonObject e;
    e[QStringLiteral("empty_release_probability")] = exact->emptyReleaseProbability;
    e[QStringLiteral("released_empty")] = exact->expectedReleasedEmpty;
    e[QStringLiteral("released_occupied")] = exact->expectedReleasedOccupied;
    QJsonObject l1;
    l1[QStringLiteral("thresholded")] = exact->thresholdedL1;
    l1[QStringLiteral("empty_cells")] = exact->emptyL1;
    l1[QStringLiteral("occupied_cells")] = exact->occupiedL1;
    l1[QStringLiteral("plain_laplace")] = exact->plainLaplaceL1;
    e[QStringLiteral("l1")] = l1;
    o[QStringLiteral("expected")] = e;
    QJsonObject r;
    r[QStringLiteral("seed")] = QString::number(*seed);
    r[QStringLiteral("released_cells")] = static_cast<qint64>(sim->cells.size());
    r[QStringLiteral("released_occupied")] = static_cast<qint64>(sim->releasedOccupied);
    r[QStringLiteral("released_empty")] = static_cast<qint64>(sim->releasedEmpty);
    if (sim->cells.size() <= kMaxListedCells) {
        QJsonArray cells;
        for (const auto& [index, value] : sim->cells) {
            cells.append(QJsonArray{cellCountJson(index), value});
        }
        r[QStringLiteral("cells")] = cells;
    }
    r[QStringLiteral("note")] =
        QStringLiteral("simulated on a seeded generator: a preview, not a release");
    o[QStringLiteral("simulated")] = r;
    o[QStringLiteral("warnings")] = toArray(undeclaredDomainWarnings(table));
    printJson(out, o);
    return kOk;
}

}  // namespace

int cmdSparse(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    {
        std::set<std::string> known{"epsilon", "threshold", "trials", "seed",
                                    "threads", "per-trial", "example"};
        auto args = parseWithTruthOptions(argv, known);
        if (args && asksForTable(*args)) {
            return sparseOnTable(*args, out, err);
        }
    }
    auto input = histogramInputFromArgs(
        argv, {"epsilon", "threshold", "trials", "seed", "threads", "per-trial"}, &err);
    if (!input) {
        return fail(err, input.error());
    }
    const Args& a = input->args;
    const Histogram& hist = input->histogram;
    const double eps = input->epsilon;
    auto checked = sparseParamsFrom(a, eps);
    if (!checked) {
        return fail(err, checked.error());
    }
    const SparseHistogramParams params = *checked;
    auto mcArgs = monteCarloArgsFrom(a);
    if (!mcArgs) {
        return fail(err, mcArgs.error());
    }
    const auto& counts = hist.counts();
    auto exact = sparseExpectedError(counts, params);
    if (!exact) {
        return fail(err, exact.error());
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = QStringLiteral("sparse-histogram");
    o[QStringLiteral("guarantee")] = QString::fromStdString(
        "ε = " + formatNumber(eps) +
        "-differential privacy under replace-one neighbours (histogram L1 sensitivity 2, "
        "Laplace scale 2/ε per cell; thresholding and clamping are post-processing; τ is fixed "
        "before seeing the data). Hall 2012, §2.4.1.");
    o[QStringLiteral("epsilon")] = eps;
    o[QStringLiteral("noise_scale")] = exact->scale;
    o[QStringLiteral("threshold")] = exact->threshold;
    o[QStringLiteral("threshold_default")] = !params.threshold.has_value();
    o[QStringLiteral("cells")] = static_cast<qint64>(exact->cells);
    o[QStringLiteral("occupied")] = static_cast<qint64>(exact->occupied);
    o[QStringLiteral("records")] = static_cast<qint64>(hist.total());
    QJsonObject e;
    e[QStringLiteral("thresholded")] = exact->thresholdedL1;
    e[QStringLiteral("clamped")] = exact->clampedL1;
    e[QStringLiteral("plain_laplace")] = exact->plainLaplaceL1;
    o[QStringLiteral("expected_l1")] = e;
    o[QStringLiteral("bound_at_threshold")] = exact->boundAtThreshold;
    if (exact->seedBound) {
        o[QStringLiteral("risk_bound")] = *exact->seedBound;
    }
    std::vector<std::string> warnings = exact->warnings;
    if (mcArgs->trials > 0) {
        MonteCarloOptions mc;
        mc.trials = mcArgs->trials;
        mc.seed = mcArgs->seed;
        mc.threads = mcArgs->threads;
        auto r = sparseMonteCarlo(counts, params, mc);
        if (!r) {
            return fail(err, r.error());
        }
        QJsonObject m;
        m[QStringLiteral("trials")] = static_cast<qint64>(r->trials);
        // A string: JSON numbers cannot hold every 64-bit seed exactly.
        m[QStringLiteral("seed")] = QString::number(mcArgs->seed);
        m[QStringLiteral("thresholded")] =
            summary(r->thresholdedL1, r->meanThresholded, r->seThresholded);
        m[QStringLiteral("clamped")] = summary(r->clampedL1, r->meanClamped, r->seClamped);
        m[QStringLiteral("released_cells_thresholded")] = r->meanReleasedThresholded;
        m[QStringLiteral("released_cells_clamped")] = r->meanReleasedClamped;
        if (mcArgs->perTrial) {
            m[QStringLiteral("l1_thresholded")] = toArray(r->thresholdedL1);
            m[QStringLiteral("l1_clamped")] = toArray(r->clampedL1);
        }
        o[QStringLiteral("monte_carlo")] = m;
    }
    o[QStringLiteral("warnings")] = toArray(warnings);
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
