#include "app/cli/commands/release.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cmath>
#include <ostream>
#include <set>

#include "app/cli/args.h"
#include "app/cli/commands/histogram.h"
#include "app/cli/commands/strategy.h"
#include "app/cli/commands/table_input.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "app/version.h"
#include "core/choosing/public_proxy.h"
#include "core/histogram/dataset.h"
#include "core/release/release.h"
#include "io/release/privacy_ledger.h"
#include "io/release/release_files.h"
#include "io/release/release_job.h"
#include "io/report/decision_report_files.h"

namespace dpx::cli {

namespace {

constexpr const char* kCountsSource = "counts given on the command line";

Expected<std::int64_t> wholeNumber(const Args& a, const std::string& name, std::int64_t fallback,
                                   std::int64_t lo, std::int64_t hi) {
    auto v = a.integer(name, fallback);
    if (!v) {
        return v.error();
    }
    if (*v < lo || *v > hi) {
        return Error{"--" + name + ": must be a whole number in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "] (got " + std::to_string(*v) + ")"};
    }
    return v;
}

// ReleaseSpec's messages start with the parameter's name; on the command line, the option's.
std::string asOption(const std::string& message) {
    static const std::pair<const char*, const char*> names[] = {
        {"epsilon:", "--epsilon:"},
        {"delta:", "--delta:"},
        {"group size n:", "--n:"},
        {"contribution cap:", "--cap:"},
        {"post-processing:", "--postprocess:"},
        {"mechanism:", "--mechanism:"},
        {"bins:", "--bins:"},
        {"confidence:", "--confidence:"},
        {"sample of:", "--sample-of:"},
        {"design effect:", "--design-effect:"}};
    for (const auto& [from, to] : names) {
        if (message.rfind(from, 0) == 0) {
            return to + message.substr(std::string(from).size());
        }
    }
    return message;
}

// The true histogram with declared bins, and where it came from.
struct Truth {
    Histogram histogram;
    bool declared = false;
    std::string source;
    std::string dataset;  // the ledger's dataset description
    std::int64_t cap = 1;
    std::optional<ContingencyTable> table;  // --counts-file, --data --joint (issue #19)
};

// A table: --counts-file, or --data --joint with one declared --bins per --column.
Expected<Truth> tableTruthFromArgs(const Args& a) {
    data::ContributionCap cap;
    if (a.has("id-column") != a.has("cap")) {
        return Error{"--id-column and --cap go together (rows per person are capped by id)"};
    }
    if (a.has("cap")) {
        if (a.has("counts-file")) {
            return Error{"--cap goes with --data, not --counts-file"};
        }
        auto k = wholeNumber(a, "cap", 1, 1, kMaxReleaseCap);
        if (!k) {
            return k.error();
        }
        cap.idColumn = *a.get("id-column");
        cap.maxRowsPerPerson = *k;
        if (cap.idColumn.empty()) {
            return Error{"--id-column: the column name is empty"};
        }
    }
    for (const std::string& spec : a.all("bins")) {
        auto b = parseBinSpec(spec);
        if (b && b->kind == BinningKind::Categories && b->categories.empty()) {
            return Error{
                "--bins: 'categories' without a list takes the bins from the data, which "
                "reveals which values occur; declare them (categories:A,B,...)"};
        }
    }
    auto t = tableFromArgs(a, cap);
    if (!t) {
        return t.error();
    }
    if (!t->table.isDense() || t->table.cellCount() > CellCount{kMaxReleaseCells}) {
        return Error{"table: " + tableShapeText(t->table) +
                     "; a release noises every cell and takes at most " +
                     std::to_string(kMaxReleaseCells) +
                     " cells (use fewer bins, fewer attributes or a marginal)"};
    }
    auto cells = t->table.toHistogram();
    if (!cells) {
        return cells.error();
    }
    return Truth{*cells,
                 t->table.allDeclared(),
                 t->source,
                 t->dataset,
                 cap.enabled() ? cap.maxRowsPerPerson : 1,
                 std::move(t->table)};
}

Expected<Truth> truthFromArgs(const Args& a) {
    if (auto st = checkCountsExclusive(a); !st) {
        return st.error();
    }
    if (asksForTable(a)) {
        return tableTruthFromArgs(a);
    }
    if (a.all("column").size() > 1 || a.all("bins").size() > 1) {
        return Error{"several --column (each with its --bins) make a joint table: add --joint"};
    }
    if (a.has("counts") == a.has("data")) {
        return Error{
            "give the data as --data FILE --column C --bins SPEC or, for tests and "
            "teaching, --counts C1,C2,... (one of them)"};
    }
    if (a.has("counts")) {
        for (const char* opt : {"column", "bins", "table", "id-column", "cap"}) {
            if (a.has(opt)) {
                return Error{std::string("--") + opt + " goes with --data, not --counts"};
            }
        }
        auto raw = a.numberList("counts");
        if (!raw) {
            return raw.error();
        }
        auto counts = wholeCounts(*raw, [](std::size_t i, double) {
            return "--counts: count " + std::to_string(i) + " must be a whole number in [0, 9e15]";
        });
        if (!counts) {
            return counts.error();
        }
        auto h = Histogram::create(*counts);
        if (!h) {
            return Error{"--counts: " + h.error().message};
        }
        // The bins are the positions of the list, fixed by whoever typed it.
        return Truth{*h, true, kCountsSource, kCountsSource, 1, std::nullopt};
    }
    if (!a.has("column") || !a.has("bins")) {
        return Error{"--data needs --column C and --bins SPEC"};
    }
    if (a.has("id-column") != a.has("cap")) {
        return Error{"--id-column and --cap go together (rows per person are capped by id)"};
    }
    HistogramQuery q;
    q.data = *a.get("data");
    q.table = a.text("table", "");
    auto b = parseBinSpec(*a.get("bins"));
    if (!b) {
        return Error{"--bins: " + b.error().message};
    }
    const bool declared = !(b->kind == BinningKind::Categories && b->categories.empty());
    if (!declared) {
        return Error{
            "--bins: 'categories' without a list takes the bins from the data, which "
            "reveals which values occur; declare them (categories:A,B,...)"};
    }
    q.requests.push_back({*a.get("column"), std::move(b).value()});
    std::int64_t cap = 1;
    if (a.has("cap")) {
        auto k = wholeNumber(a, "cap", 1, 1, kMaxReleaseCap);
        if (!k) {
            return k.error();
        }
        cap = *k;
        q.cap.idColumn = *a.get("id-column");
        q.cap.maxRowsPerPerson = cap;
        if (q.cap.idColumn.empty()) {
            return Error{"--id-column: the column name is empty"};
        }
    }
    auto h = histogramsFromSource(q);
    if (!h) {
        return h.error();
    }
    std::string source = "column '" + q.requests[0].column + "' of " + q.data;
    if (!q.table.empty()) {
        source += " table " + q.table;
    }
    std::string dataset = q.data + (q.table.empty() ? "" : " table " + q.table);
    return Truth{h->columns.at(0).histogram, declared, source, dataset, cap, std::nullopt};
}

}  // namespace

int cmdRelease(const std::vector<std::string>& argvIn, std::ostream& out, std::ostream& err) {
    // --overwrite is a flag (no value); Args takes "--name value" pairs.
    std::vector<std::string> argv;
    bool overwrite = false;
    for (std::size_t i = 0; i < argvIn.size(); ++i) {
        if (i >= 2 && argvIn[i] == "--overwrite") {
            if (overwrite) {
                return fail(err, "--overwrite given twice", kInvalid);
            }
            overwrite = true;
        } else {
            argv.push_back(argvIn[i]);
        }
    }
    const std::set<std::string> known{
        "data",        "column",       "bins",      "table",       "id-column",
        "cap",         "counts",       "mechanism", "epsilon",     "delta",
        "n",           "postprocess",  "out",       "ledger",      "budget",
        "composition", "neighbouring", "joint",     "counts-file", "counts-layout",
        "confidence",  "report",       "strategy",  "template",    "p",
        "restarts",    "seed",         "ftol",      "pld-interval"};
    // Issue #22: --post-intervals states intervals after resize / noisefirst (a flag);
    // --plan-on/--population record what ε was chosen on.
    std::set<std::string> knownAll = known;
    std::set<std::string> flags = kJointFlags;
    knownAll.insert("post-intervals");
    flags.insert("post-intervals");
    knownAll.insert({"plan-on", "population"});
    // Issue #22: the data are a sample of a declared population (sampling intervals).
    knownAll.insert({"sample-of", "design-effect"});
    auto args = Args::parse(argv, 2, knownAll, flags, kJointRepeatable);
    if (!args) {
        return fail(err, args.error().message, kInvalid);
    }
    const Args& a = *args;
    for (const char* required : {"mechanism", "epsilon", "out", "ledger"}) {
        if (!a.has(required)) {
            return fail(err, std::string("--") + required + " is required", kInvalid);
        }
    }
    auto mech = releaseMechanismFromName(*a.get("mechanism"));
    if (!mech) {
        return fail(err, "--" + mech.error().message, kInvalid);
    }
    auto post =
        estimatorFromName(a.text("postprocess", "none") == "none" ? std::string("identity")
                                                                  : a.text("postprocess", "none"));
    if (!post || a.text("postprocess", "none") == "identity") {
        return fail(err,
                    "--postprocess: '" + a.text("postprocess", "") +
                        "' is not one of none, clamp, resize, noisefirst",
                    kInvalid);
    }
    auto relation = neighbouringFromName(a.text("neighbouring", "add-remove"));
    if (!relation) {
        return fail(err, "--neighbouring: " + relation.error().message, kInvalid);
    }
    std::int64_t n = 0;
    if (a.has("n")) {
        auto v = wholeNumber(a, "n", 0, 1, kMaxReleaseGroupSize);
        if (!v) {
            return fail(err, v.error().message, kInvalid);
        }
        n = *v;
    } else if (*mech == ReleaseMechanism::GeometricMatrix) {
        return fail(err, "--n: geometric-matrix needs the group size n (outputs 0..n)", kInvalid);
    }
    auto composition = compositionFromName(a.text("composition", "basic"));
    if (!composition) {
        return fail(err, "--composition: " + composition.error().message, kInvalid);
    }
    const std::string csvPath = *a.get("out");
    const std::string jsonPath = data::metadataPathFor(csvPath);
    const std::string ledgerPath = *a.get("ledger");

    // The decision report (issue #22) is written after the release; its path is checked first, so
    // that a report that could not be written refuses the release before anything is spent.
    const std::string reportPath = a.text("report", "");
    if (a.has("report")) {
        if (auto st = data::checkReportPath(reportPath, overwrite, {csvPath, jsonPath, ledgerPath});
            !st) {
            return fail(err, "--" + st.error().message, kInvalid);
        }
    }

    // The spec is checked before any data is read.
    ReleaseSpec spec;
    spec.mechanism = *mech;
    spec.epsilon = *a.get("epsilon");
    spec.delta = a.text("delta", "");
    spec.groupSize = n;
    spec.relation = *relation;
    spec.postProcessing = *post;
    spec.appVersion = DPX_VERSION_STRING;
    spec.timestamp = utcTimestampNow();
    spec.binsDeclared = true;  // checked on the bins below
    if (a.has("cap")) {
        auto k = wholeNumber(a, "cap", 1, 1, kMaxReleaseCap);
        if (!k) {
            return fail(err, k.error().message, kInvalid);
        }
        spec.contributionCap = *k;
    }
    {
        auto level = a.number("confidence", 0.95);
        if (!level) {
            return fail(err, level.error().message, kInvalid);
        }
        spec.confidenceLevel = *level;
    }
    if (a.has("post-intervals")) {
        if (spec.postProcessing != EstimatorKind::Resize &&
            spec.postProcessing != EstimatorKind::NoiseFirst) {
            return fail(err,
                        "--post-intervals: only with --postprocess resize or noisefirst (the "
                        "intervals of none and clamp are stated without it)",
                        kInvalid);
        }
        spec.postProcessedIntervals = true;
    }
    if (a.has("plan-on")) {
        // Issue #22: what ε was chosen on, recorded as "epsilon_chosen_on" (the syntax of dpx
        // tradeoff --plan-on; nothing is read or computed from it here).
        auto plan = parsePlanOn(*a.get("plan-on"));
        if (!plan) {
            return fail(err, "--plan-on: " + plan.error().message, kInvalid);
        }
        if (plan->isProxy()) {
            auto population = a.integer("population", 0);
            if (!population) {
                return fail(err, population.error().message, kInvalid);
            }
            if (*population < 1 || *population > kMaxProxyPopulation) {
                return fail(err,
                            "--plan-on " + plan->text() +
                                " needs --population N (1 ≤ N ≤ 1e15), the population the proxy "
                                "was scaled to",
                            kInvalid);
            }
            plan->population = *population;
        } else if (a.has("population")) {
            return fail(err,
                        "--population applies to a public proxy, not to --plan-on "
                        "confidential",
                        kInvalid);
        }
        spec.epsilonChosenOn = plan->computedOn();
    } else if (a.has("population")) {
        return fail(err, "--population applies with --plan-on", kInvalid);
    }
    if (a.has("sample-of")) {
        auto population = a.number("sample-of", 0);
        if (!population) {
            return fail(err, population.error().message, kInvalid);
        }
        spec.samplePopulation = *population;
        if (spec.samplePopulation == 0) {
            return fail(err, "--sample-of: the population size N must be a number in [2, 1e15]",
                        kInvalid);
        }
    }
    if (a.has("design-effect")) {
        if (!a.has("sample-of")) {
            return fail(err, "--design-effect goes with --sample-of N", kInvalid);
        }
        auto d = a.number("design-effect", 1);
        if (!d) {
            return fail(err, d.error().message, kInvalid);
        }
        spec.designEffect = *d;
    }
    if (auto v = spec.validate(); !v) {
        return fail(err, asOption(v.error().message), kInvalid);
    }

    data::ReleaseRequest request;
    request.spec = spec;
    request.csvPath = csvPath;
    request.jsonPath = jsonPath;
    request.ledgerPath = ledgerPath;
    request.overwrite = overwrite;
    request.dataset =
        a.has("counts") ? std::string(kCountsSource)
        : a.has("counts-file")
            ? a.text("counts-file", "")
            : a.text("data", "") +
                  (a.text("table", "").empty() ? "" : " table " + a.text("table", ""));
    if (a.has("budget")) {
        const std::string b = *a.get("budget");
        const auto comma = b.find(',');
        data::LedgerBudgetText total;
        total.epsilon = b.substr(0, comma);
        if (comma != std::string::npos) {
            total.delta = b.substr(comma + 1);
        }
        request.newBudget = total;
    }
    if (a.has("composition")) {
        request.composition = *composition;
    }
    if (a.has("pld-interval")) {
        if (*composition != Composition::Pld) {
            return fail(err, "--pld-interval goes with --composition pld", kInvalid);
        }
        request.pldInterval = *a.get("pld-interval");
        request.pldIntervalGiven = true;
    }
    if (a.has("strategy")) {
        // Issue #23: measure through a strategy designed for this workload (HDMM) once the
        // declared shape is known; the design sees the shape only.
        auto workload = WorkloadSpec::parse(*a.get("strategy"));
        if (!workload) {
            return fail(err, "--strategy: " + workload.error().message, kInvalid);
        }
        auto design =
            strategyDesignArgs(a, a.all("column").size() > 1 ? a.all("column").size() : 1);
        if (!design) {
            return fail(err, design.error().message, kInvalid);
        }
        // A discrete Gaussian release measures a strategy designed for Gaussian noise
        // (‖A‖₂²·trace), a discrete Laplace one a strategy designed for Laplace (‖A‖₁²·trace).
        design->options.measurement = strategyMeasurementFor(spec.mechanism);
        auto planner = strategyPlanner(*workload, design->templ, design->p, design->options);
        request.planStrategy =
            [planner](
                const DomainShape& shape) -> Expected<std::shared_ptr<const StrategyReleasePlan>> {
            auto plan = planner(shape);
            if (!plan) {
                return Error{"--strategy: " + plan.error().message};
            }
            return plan;
        };
    } else {
        for (const char* opt : {"template", "p", "restarts", "seed", "ftol"}) {
            if (a.has(opt)) {
                return fail(err, std::string("--") + opt + " goes with --strategy", kInvalid);
            }
        }
    }
    request.loadTruth = [&a]() -> Expected<data::ReleaseTruth> {
        auto truth = truthFromArgs(a);
        if (!truth) {
            return truth.error();
        }
        return data::ReleaseTruth{truth->histogram, truth->declared, truth->source,
                                  std::move(truth->table)};
    };
    data::ReleaseFailure failure;
    auto outcome = data::runRelease(request, &failure);
    if (!outcome) {
        std::string message = outcome.error().message;
        if (failure.field == "out") {
            message += " (use --overwrite)";
        } else if (failure.field == "budget" || failure.field == "composition" ||
                   failure.field == "ledger") {
            message = "--" + failure.field + ": " + message;
            if (failure.field == "budget" && message.find("does not exist") != std::string::npos) {
                message += " (--budget EPS or --budget EPS,DELTA)";
            }
        } else if (failure.field.empty()) {
            message = asOption(message);
        }
        return fail(err, message, failure.invalidInput ? kInvalid : kRefused);
    }
    const HistogramRelease* release = &outcome->release;

    const BudgetUsage u = outcome->usage;
    QJsonObject o;
    o[QStringLiteral("csv")] = QString::fromStdString(csvPath);
    o[QStringLiteral("metadata")] = QString::fromStdString(jsonPath);
    o[QStringLiteral("ledger")] = QString::fromStdString(ledgerPath);
    o[QStringLiteral("mechanism")] = QString::fromStdString(release->metadata.mechanism);
    o[QStringLiteral("epsilon")] = QString::fromStdString(release->metadata.epsilon);
    o[QStringLiteral("delta")] = QString::fromStdString(release->metadata.delta);
    o[QStringLiteral("rho")] = QString::fromStdString(release->metadata.rho);
    const StrategyReleaseStatement* published =
        release->metadata.strategy && !release->metadata.strategy->publishedMarginals.empty()
            ? &*release->metadata.strategy
            : nullptr;
    // A release through an OPT_M strategy without the full table publishes marginals, not bins.
    o[QStringLiteral("bins")] = static_cast<qint64>(published ? release->metadata.binLabels.size()
                                                              : release->values.size());
    if (!release->metadata.attributes.empty()) {
        QJsonArray attributes;
        for (const ReleaseAttribute& at : release->metadata.attributes) {
            attributes.append(qs(at.name));
        }
        o[QStringLiteral("attributes")] = attributes;
    }
    o[QStringLiteral("composition")] = QLatin1String(compositionName(u.composition));
    o[QStringLiteral("releases_in_ledger")] = static_cast<qint64>(outcome->releasesInLedger);
    // Spent amounts are the smallest doubles whose decimals are ≥ the exact sums
    // (core/choosing/budget.h): 1e-06, not 1.0000000000000002e-06.
    o[QStringLiteral("epsilon_spent")] = u.epsilonSpent;
    o[QStringLiteral("epsilon_remaining")] = u.epsilonRemaining;
    o[QStringLiteral("delta_spent")] = u.deltaSpent;
    o[QStringLiteral("delta_remaining")] = u.deltaRemaining;
    if (u.composition == Composition::Zcdp) {
        o[QStringLiteral("rho_spent")] = u.rhoSpent;
        o[QStringLiteral("rho_remaining")] = u.rhoRemaining;
    }
    o[QStringLiteral("guarantee")] = QString::fromStdString(release->metadata.guarantee);
    if (const auto& iv = release->metadata.intervals) {
        // Issue #22: the level, the per-bin and all-bins-at-once half-widths, the sentence.
        o[QStringLiteral("confidence")] = iv->level;
        o[QStringLiteral("half_width")] = iv->halfWidth;
        o[QStringLiteral("half_width_all_bins")] = iv->simultaneousHalfWidth;
        o[QStringLiteral("interval")] = QString::fromStdString(iv->sentence);
    } else {
        // The text is pinned by the golden tests; --post-intervals states intervals instead.
        o[QStringLiteral("interval")] = QStringLiteral(
            "not stated: resize and NoiseFirst change each value by an amount that depends on "
            "every bin, which the noise law alone does not bound");
    }
    if (const auto& sm = release->metadata.sampling) {
        // Issue #22: the data were declared a sample of a population.
        o[QStringLiteral("sampling")] = qs(sm->sentence);
    }
    if (const auto& st = release->metadata.strategy) {
        QJsonObject so;
        so[QStringLiteral("workload")] = qs(st->workload);
        so[QStringLiteral("template")] = qs(st->templateName);
        so[QStringLiteral("integer_strategy")] = qs(st->integerStrategy);
        so[QStringLiteral("rows")] = static_cast<qint64>(st->measurements.size());
        so[QStringLiteral("expected_rmse")] = st->expectedRmse;
        so[QStringLiteral("rounding_loss")] = st->roundingLoss;
        if (published) {
            // The CSV holds these marginals (the metadata lists them with their CSV rows).
            QJsonArray names;
            for (const PublishedMarginalStatement& pm : st->publishedMarginals) {
                std::string name;
                for (std::size_t i : pm.attributes) {
                    const auto& at = release->metadata.attributes;
                    name += (name.empty() ? "" : " × ") +
                            (i < at.size() ? at[i].name : std::string("bin"));
                }
                names.append(qs(name.empty() ? std::string("total") : name));
            }
            so[QStringLiteral("published")] = qs(st->published);
            so[QStringLiteral("published_marginals")] = names;
            so[QStringLiteral("published_values")] = static_cast<qint64>(release->values.size());
        }
        o[QStringLiteral("strategy")] = so;
    }
    if (!outcome->ledgerWarning.empty()) {
        o[QStringLiteral("ledger_warning")] = qs(outcome->ledgerWarning);
        err << "dpx: warning: " << outcome->ledgerWarning << '\n';
    }
    if (!outcome->recoveryNotes.empty()) {
        QJsonArray notes;
        for (const auto& note : outcome->recoveryNotes) {
            notes.append(QString::fromStdString(note));
            err << "dpx: note: " << note << '\n';
        }
        o[QStringLiteral("recovered")] = notes;
    }
    if (a.has("report")) {
        // The release is charged and published: a report that fails now cannot undo it, and the
        // message says so.
        auto input = data::decisionReportInputFor(*outcome, spec, request.dataset);
        Status written = okStatus();
        if (!input) {
            written = input.error();
        } else if (auto report = data::writeDecisionReportOf(*input, reportPath, overwrite);
                   !report) {
            written = report.error();
        }
        if (!written) {
            o[QStringLiteral("report_error")] = qs(written.error().message);
            printJson(out, o);
            return fail(err,
                        "the release was charged and published (" + csvPath + ", " + jsonPath +
                            ", ledger " + ledgerPath + "), but the decision report " + reportPath +
                            " was not written: " + written.error().message,
                        kFailure);
        }
        o[QStringLiteral("report")] = qs(reportPath);
    }
    printJson(out, o);
    return kOk;
}

int cmdReport(const std::vector<std::string>& argvIn, std::ostream& out, std::ostream& err) {
    std::vector<std::string> argv;
    bool overwrite = false;
    for (std::size_t i = 0; i < argvIn.size(); ++i) {
        if (i >= 2 && argvIn[i] == "--overwrite") {
            if (overwrite) {
                return fail(err, "--overwrite given twice", kInvalid);
            }
            overwrite = true;
        } else {
            argv.push_back(argvIn[i]);
        }
    }
    auto args = Args::parse(argv, 2, {"release", "csv", "ledger", "out"});
    if (!args) {
        return fail(err, args.error().message, kInvalid);
    }
    const Args& a = *args;
    for (const char* required : {"release", "out"}) {
        if (!a.has(required)) {
            return fail(err,
                        std::string("--") + required +
                            " is required (dpx report --release "
                            "FILE.json --out report.pdf|report.html)",
                        kInvalid);
        }
    }
    data::ReleaseFilesForReport files;
    files.metadataPath = *a.get("release");
    files.csvPath = a.text("csv", "");
    files.ledgerPath = a.text("ledger", "");
    files.toolVersion = DPX_VERSION_STRING;
    if (a.has("csv") && files.csvPath.empty()) {
        return fail(err, "--csv: the path is empty", kInvalid);
    }
    if (a.has("ledger") && files.ledgerPath.empty()) {
        return fail(err, "--ledger: the path is empty", kInvalid);
    }
    const std::string reportPath = *a.get("out");
    const std::string csvPath =
        files.csvPath.empty() ? data::csvPathForMetadata(files.metadataPath) : files.csvPath;
    if (auto st = data::checkReportPath(reportPath, overwrite,
                                        {files.metadataPath, csvPath, files.ledgerPath});
        !st) {
        return fail(err, "--out: " + st.error().message, kInvalid);
    }
    auto input = data::decisionReportInputFromFiles(files);
    if (!input) {
        return fail(err, "--release: " + input.error().message, kRefused);
    }
    auto report = data::writeDecisionReportOf(*input, reportPath, overwrite);
    if (!report) {
        return fail(err, "--out: " + report.error().message, kFailure);
    }
    QJsonObject o;
    o[QStringLiteral("report")] = qs(reportPath);
    o[QStringLiteral("metadata")] = qs(files.metadataPath);
    o[QStringLiteral("csv")] = qs(input->files.at(0).path);
    o[QStringLiteral("csv_sha256")] = qs(input->files.at(0).sha256);
    o[QStringLiteral("metadata_sha256")] = qs(input->files.at(1).sha256);
    o[QStringLiteral("released")] = qs(input->metadata.timestamp);
    o[QStringLiteral("mechanism")] = qs(input->metadata.mechanism);
    o[QStringLiteral("epsilon")] = qs(input->metadata.epsilon);
    if (input->ledgerGiven) {
        o[QStringLiteral("ledger")] = qs(files.ledgerPath);
        o[QStringLiteral("ledger_release")] = static_cast<qint64>(input->budget.releasesInLedger);
        o[QStringLiteral("budget_before")] = qs(input->budget.before);
        o[QStringLiteral("budget_after")] = qs(input->budget.after);
    } else {
        o[QStringLiteral("ledger")] = QJsonValue();
        o[QStringLiteral("budget")] = QStringLiteral(
            "not stated: no ledger given, the files' SHA-256 were not compared "
            "with the ledger's record");
    }
    o[QStringLiteral("sections")] = static_cast<qint64>(report->sections.size());
    printJson(out, o);
    return kOk;
}

bool releaseNeedsGui(const std::vector<std::string>& argv) {
    // The report's path: `dpx report --out`, `dpx release --report`.
    const char* option = argv.size() < 2        ? nullptr
                         : argv[1] == "report"  ? "--out"
                         : argv[1] == "release" ? "--report"
                                                : nullptr;
    for (std::size_t i = 2; option != nullptr && i + 1 < argv.size(); ++i) {
        if (argv[i] == option) {
            auto format = data::reportFormatFor(argv[i + 1]);
            return format && *format == data::ReportFormat::Pdf;
        }
    }
    return false;
}

int cmdLedger(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2, {"ledger"});
    if (!args) {
        return fail(err, args.error().message, kInvalid);
    }
    if (!args->has("ledger")) {
        return fail(err, "--ledger is required", kInvalid);
    }
    auto c = data::checkLedger(*args->get("ledger"));
    if (!c) {
        return fail(err, "--ledger: " + c.error().message, kRefused);
    }
    const BudgetUsage& u = c->usage;
    QJsonObject o;
    o[QStringLiteral("ledger")] = QString::fromStdString(c->path);
    o[QStringLiteral("dataset")] = QString::fromStdString(c->dataset);
    o[QStringLiteral("composition")] = QLatin1String(compositionName(c->composition));
    o[QStringLiteral("total_epsilon")] = QString::fromStdString(c->totalEpsilon);
    o[QStringLiteral("total_delta")] = QString::fromStdString(c->totalDelta);
    o[QStringLiteral("releases")] = static_cast<qint64>(c->releases);
    o[QStringLiteral("not_published")] = static_cast<qint64>(c->notPublished);
    o[QStringLiteral("read_only")] = c->readOnly;
    o[QStringLiteral("epsilon_spent")] = u.epsilonSpent;
    o[QStringLiteral("delta_spent")] = u.deltaSpent;
    o[QStringLiteral("left")] =
        QString::fromStdString(data::budgetUsageText(u, c->totalEpsilon, c->totalDelta));
    QJsonArray notes;
    for (const auto& n : c->recoveryNotes) {
        notes.append(QString::fromStdString(n));
        err << "dpx: note: " << n << '\n';
    }
    o[QStringLiteral("recovered")] = notes;
    if (!c->warning.empty()) {
        o[QStringLiteral("warning")] = qs(c->warning);
        err << "dpx: warning: " << c->warning << '\n';
    }
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
