// Everything the user has chosen in the window, as one value: the dataset and its binning, the
// mechanism and its parameters, the estimator, the seed, the LP settings of the optimal count
// mechanism, and view options. The document (ui/model/document.h) holds one and records every
// change on its undo stack; a session file is this value as JSON.
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <cstdint>

#include <vector>

#include "core/accuracy/metrics.h"
#include "core/base/expected.h"
#include "core/choosing/budget_plan.h"
#include "core/estimators/estimator.h"
#include "core/histogram/dataset.h"
#include "core/histogram/histogram.h"
#include "core/ldp/protocols.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/table/table.h"

namespace dpx::ui {

// The mechanisms of the window. Histogram mechanisms add noise to every bin
// (core/mechanisms/mechanism.h); count mechanisms release each bin's count through an (n+1)×(n+1)
// matrix (core/count/count_mechanism.h, core/count/count_lp.h), n = the group size.
enum class MechanismChoice {
    Laplace,
    Geometric,
    Gaussian,
    CountGeometric,     // GM, truncated geometric
    CountExplicitFair,  // EM
    CountUniform,       // UM
    CountLaplace,       // Laplace rounded and clamped to {0..n}
    CountGaussian,      // Gaussian rounded and clamped to {0..n}: (ε, δ) only
    CountOptimal,       // LP design
    // Local protocols (core/ldp/protocols.h): every record is one person who randomises their own
    // value before it leaves their device; the collector estimates the histogram from the reports.
    LocalRR,        // binary randomized response (2 bins)
    LocalGRR,       // generalized RR / direct encoding
    LocalOUE,       // optimal unary encoding
    LocalSUE,       // symmetric unary encoding (basic RAPPOR)
    LocalOLH,       // optimal local hashing
    LocalHRR,       // Hadamard randomized response
    LocalDBitFlip,  // Microsoft's dBitFlip (seed 002), ldpBits buckets per user
};
const char* mechanismChoiceId(MechanismChoice m);  // "laplace", ..., "count-optimal"
QString mechanismChoiceTitle(MechanismChoice m);   // "Laplace", ..., "Optimal (LP)"
Expected<MechanismChoice> mechanismChoiceFromId(const QString& id);
bool isCountMechanism(MechanismChoice m);
bool usesDelta(MechanismChoice m);  // Gaussian and CountGaussian
bool isLocalMechanism(MechanismChoice m);
// The core protocol of a local mechanism (precondition: isLocalMechanism(m)).
ldp::Protocol localProtocolOf(MechanismChoice m);
inline constexpr MechanismChoice kAllMechanismChoices[] = {
    MechanismChoice::Laplace,           MechanismChoice::Geometric,
    MechanismChoice::Gaussian,          MechanismChoice::CountGeometric,
    MechanismChoice::CountExplicitFair, MechanismChoice::CountUniform,
    MechanismChoice::CountLaplace,      MechanismChoice::CountGaussian,
    MechanismChoice::CountOptimal,      MechanismChoice::LocalRR,
    MechanismChoice::LocalGRR,          MechanismChoice::LocalOUE,
    MechanismChoice::LocalSUE,          MechanismChoice::LocalOLH,
    MechanismChoice::LocalHRR,          MechanismChoice::LocalDBitFlip};
// Largest dBitFlip d the window accepts (it must also be at most the number of bins).
inline constexpr int kMaxLdpBits = 1024;

enum class BinningChoice { Auto, EqualWidth, Integer, Categories, Edges };
// "auto", "equal-width", "integer", "categories", "edges"
const char* binningChoiceId(BinningChoice b);
Expected<BinningChoice> binningChoiceFromId(const QString& id);

// Where the data comes from: a built-in example (an in-memory table), a CSV/TSV file (streamed,
// io/sources/csv_reader.h), a SQLite file or a PostgreSQL server (counted in the database,
// io/sources/sql_source.h).
enum class SourceKind { Example, Csv, Sqlite, Postgres };
const char* sourceKindId(SourceKind k);  // "example", "csv", "sqlite", "postgresql"
Expected<SourceKind> sourceKindFromId(const QString& id);
inline bool isExternalSource(SourceKind k) {
    return k != SourceKind::Example;
}
inline bool isSqlSource(SourceKind k) {
    return k == SourceKind::Sqlite || k == SourceKind::Postgres;
}

// CSV delimiters of the import options: "auto" (detected), "comma", "semicolon", "tab", "pipe".
char csvDelimiterChar(const QString& id);  // 0 for "auto"
bool isCsvDelimiterId(const QString& id);

// Limits of the ε and δ controls (the slider spans these; typed values outside are refused).
inline constexpr double kMinEpsilon = 0.01;
inline constexpr double kMaxEpsilon = 20;
inline constexpr double kMinDelta = 1e-12;
inline constexpr double kMaxDelta = 0.1;
// Trade-off grids: points per curve and the population range.
inline constexpr int kMaxTradeoffPoints = 200;
inline constexpr double kMaxTradeoffPopulation = 1e12;
// True for "MECHANISM:ESTIMATOR" ids the trade-off tab draws (laplace, geometric, gaussian with any
// estimator; gm, em, optimal with identity or resize).
bool isTradeoffConfigId(const QString& id);

// The binning of one column: how its values become bins. The current column's is
// DataChoices::binning; the binnings of other columns are remembered with their column.
struct ColumnBinning {
    BinningChoice kind = BinningChoice::Auto;
    int bins = 32;
    double rangeLo = 0, rangeHi = 0;  // equal for "the data's range"
    bool closedHi = true;             // equal-width and edges: the last bin includes its upper end
    std::vector<double> edges;        // BinningChoice::Edges
    QStringList categories;           // BinningChoice::Categories; empty: taken from the data
    UnknownCategory unknownCategory = UnknownCategory::Drop;

    Status validate() const;
    // Written into (and read from) the object holding the column: keys binning, bins, range,
    // closed, edges, categories, unknown_category. `path` names that object in messages.
    void writeJson(QJsonObject& o) const;
    static Expected<ColumnBinning> fromJson(const QJsonObject& o, const QString& path);
    bool operator==(const ColumnBinning&) const = default;
};

// One attribute of the data: a column and its binning. The first attribute of DataChoices is
// its `column` and `binning`; the attributes after it (a table of several attributes, issue #19)
// are DataChoices::moreColumns.
struct AttributeChoice {
    QString column;  // "" = the source's default column (the first attribute only)
    ColumnBinning binning;

    // Keys column, binning, bins, range, closed, edges, categories, unknown_category.
    QJsonObject toJson() const;
    static Expected<AttributeChoice> fromJson(const QJsonObject& o, const QString& path);
    bool operator==(const AttributeChoice&) const = default;
};

// A binning remembered for another column or source of the session: it comes back when that
// column is chosen again.
struct ColumnChoice : AttributeChoice {
    QString source;  // dataSourceKey(): the file, database or example (without the table)
    QString table;   // SQL sources: the table

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<ColumnChoice> fromJson(const QJsonObject& o, const QString& path);
    bool operator==(const ColumnChoice&) const = default;
};

// CSV import options ("data.csv_options").
struct CsvImportOptions {
    QString delimiter = QStringLiteral("auto");
    bool header = true;
    bool skipBadRows = false;  // false: the first bad row is the error
    QStringList types;         // per-column type overrides, "column=integer|float|..."

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<CsvImportOptions> fromJson(const QJsonObject& o);
    bool operator==(const CsvImportOptions&) const = default;
};

// A PostgreSQL connection ("data.postgresql"). The password is held in memory only: it is never
// part of the session JSON (the connection dialog may keep it in the settings if the user asks).
struct PostgresConnection {
    QString host = QStringLiteral("localhost");
    int port = 5432;
    QString database, user, password;
    int connectTimeout = 10;        // s
    int statementTimeout = 300000;  // ms, 0 = none

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<PostgresConnection> fromJson(const QJsonObject& o);
    bool operator==(const PostgresConnection&) const = default;
};

// The data ("data"): the source; for Example the built-in example exampleId (exampleRows rows,
// 0 = its default); the column, its binning and the contribution bounding.
struct DataChoices {
    SourceKind source = SourceKind::Example;
    QString exampleId = QStringLiteral("telemetry");
    qint64 exampleRows = 0;
    QString csvPath;
    CsvImportOptions csvOptions;
    QString sqlitePath;
    PostgresConnection postgres;
    QString sqlTable;  // empty: the first table
    QString column;    // empty: the dataset's default column
    ColumnBinning binning;
    // Contribution bounding (external sources): at most `cap` rows per value of idColumn.
    QString idColumn;  // empty: one row per person
    int cap = 1;
    Neighbouring neighbouring = Neighbouring::AddRemove;
    // The binning chosen for the other columns and sources of this session: a column's binning
    // comes back when it is chosen again (rememberColumnChoice, recallColumnChoice, enterSource).
    // Newest last, at most kMaxColumnChoices; the current column's binning is `binning`.
    std::vector<ColumnChoice> otherColumns;
    // The attributes after the first (`column`, `binning`): several make a joint table (a
    // contingency table, core/table/table.h) over the product of their bins. Each names its
    // column (never "", never one chosen twice); at most kMaxAttributes attributes in all.
    // Session key "more_columns", written only when there are some.
    std::vector<AttributeChoice> moreColumns;

    // The attributes: 1 + moreColumns.size(); attribute 0 is `column` and `binning`.
    std::size_t attributeCount() const { return 1 + moreColumns.size(); }
    const QString& columnOf(std::size_t a) const;
    QString& columnOf(std::size_t a);
    const ColumnBinning& binningOf(std::size_t a) const;
    ColumnBinning& binningOf(std::size_t a);

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<DataChoices> fromJson(const QJsonObject& o);
    bool operator==(const DataChoices&) const = default;

    // A new source (file, database, example) makes the previous table, column, id column,
    // category list and declared bins meaningless: clear them and go back to automatic bins.
    void forgetSourceChoices();
    // Leaving the column of attribute `a` (or the source): its binning joins otherColumns, under
    // `columnInForce` when the column is "" (the default column, as loaded) and it is known.
    void rememberColumnChoice(const QString& columnInForce = {}, std::size_t a = 0);
    // Choosing `column` of the current source and table for attribute `a`: the binning
    // remembered for it comes back (true), or automatic bins (false).
    bool recallColumnChoice(const QString& column, std::size_t a = 0);
    // A new last attribute over `column`, with the binning remembered for it (or automatic bins).
    void addAttribute(const QString& column);
    // Attribute `a` leaves (its binning is remembered); removing the first makes the second the
    // first. The only attribute cannot be removed (false).
    bool removeAttribute(std::size_t a, const QString& columnInForce = {});
    // This holds a new source's fields (kind, path, example, connection, table or none) and
    // `left` is the data before: left's column and binning are remembered, the table, column
    // and binning last used with the new source come back (or its default column, automatic
    // bins), and the previous source's id column and categories are cleared. Choosing the same
    // source again keeps its column and binning.
    void enterSource(const DataChoices& left, const QString& columnInForce = {});

private:
    void keepAttributesOf(const DataChoices& left);
};

// The LP of CountOptimal ("mechanism.lp").
struct LpChoices {
    QString objective = QStringLiteral("l0");  // core/count/lp_objective.h: l0, l1, l0d:D, ...
    QStringList constraints = {QStringLiteral("wh")};
    double binomialP = -1;  // < 0: uniform weights
    double minDiagonal = 0;

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<LpChoices> fromJson(const QJsonObject& o);
    bool operator==(const LpChoices&) const = default;
};

// The mechanism and its parameters, the estimator and the seed ("mechanism").
struct MechanismChoices {
    MechanismChoice kind = MechanismChoice::Laplace;
    double epsilon = 1;
    double delta = 1e-6;
    GaussianCalibration calibration = GaussianCalibration::Analytic;
    EstimatorKind estimator = EstimatorKind::Identity;
    std::uint64_t seed = 1;
    int countN = 0;  // group size n of count mechanisms; 0: the largest bin count
    // Local protocols: dBitFlip's d (buckets reported per user), and whether every report is
    // simulated (per user) instead of the collector's counts drawn directly (aggregate, exact in
    // distribution; the default, fast for any N).
    int ldpBits = 1;
    bool ldpPerUser = false;
    LpChoices lp;

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<MechanismChoices> fromJson(const QJsonObject& o);
    bool operator==(const MechanismChoices&) const = default;
};

// View options ("view").
struct ViewChoices {
    bool overlay = true;     // histogram: true and noisy bars overlaid (else side by side)
    bool matrixLog = false;  // heatmap colour scale: log10
    Scale scale = Scale::Counts;
    bool dark = false;
    QString tab = QStringLiteral("histogram");  // histogram, …, budget, ldp-experiment
    // The level of the intervals the Histogram and Table tabs show (issue #22), in (0, 1);
    // written as "interval_level" only when not 0.95.
    double intervalLevel = 0.95;
    // The Histogram tab's "sample of N" (issue #22): the data are a sample of a population of
    // N rows (0: not a sample; else in [2, 1e10]) with design effect D in [1, 1e6], N ≥ 2·D.
    // Written as "sample_of" (and "design_effect" when D ≠ 1) only when N > 0, so that older
    // sessions stay byte-identical.
    double samplePopulation = 0;
    double designEffect = 1;

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<ViewChoices> fromJson(const QJsonObject& o);
    bool operator==(const ViewChoices&) const = default;
};

// The Trade-off tab ("tradeoff"): the curves drawn ("laplace:clamp", see ui/tabs/tradeoff_tab.h),
// the metric, the x axis (ε, or the population N at the current ε) and the grids (log-spaced).
struct TradeoffChoices {
    QStringList configs = {QStringLiteral("laplace:identity"), QStringLiteral("laplace:clamp"),
                           QStringLiteral("geometric:clamp"), QStringLiteral("gaussian:clamp"),
                           QStringLiteral("gm:identity")};
    Metric metric = Metric::L1;
    bool againstPopulation = false;
    double epsLo = 0.01, epsHi = 10;
    double popLo = 100, popHi = 1e7;
    int points = 25;
    // What the curves are computed on (issue #22, core/choosing/public_proxy.h): the plan-on text
    // ("confidential", "uniform", "normal:5,2", "weights:1,2,3", "shape:FILE", "release:FILE") and
    // the proxy's declared population N (0: not declared yet). Written as "plan_on" and
    // "plan_population" only when not at these defaults. Only the kind is checked here; the tab
    // reports a bad parameter or file when it builds the proxy.
    QString planOn = QStringLiteral("confidential");
    qint64 planPopulation = 0;

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<TradeoffChoices> fromJson(const QJsonObject& o);
    bool operator==(const TradeoffChoices&) const = default;
};

// The Workbench tab ("workbench", issue #20): its inputs and what it shows. The section is
// written only when some value differs from these defaults, so sessions without it keep their
// bytes. Values that depend on the data (a domain size that does not divide it, algorithms that do
// not run on its dimension) are checked by the tab when the data is there: it falls back to the
// data's own size or the default algorithms and says so.
struct WorkbenchChoices {
    QString data = QStringLiteral("table");  // "table" or a built-in shape, "sparse-1d", "zipf-2d"
    std::vector<double> domain;              // cells per dimension; empty: the data's own size
    std::vector<double> scales{0, 1000, 100000, 10000000};  // 0: the data as it is
    std::vector<double> epsilons{0.01, 0.1, 1, 10};
    QString workload = QStringLiteral("range:2000");
    QStringList algorithms;  // DPBench ids; empty: the default list for the data's dimension
    int trials = 5;
    qint64 seed = 1;
    // HDMM's measurement (session 33): Gaussian at (ε, delta) instead of Laplace. Written only
    // when Gaussian, so sessions without it keep their bytes.
    bool gaussian = false;
    double delta = 1e-6;
    bool rmse = false;                         // plot the RMSE per query, not the scaled L2 error
    QString page = QStringLiteral("epsilon");  // epsilon, scale, product, output, numbers
    double plotScale = -1;    // the m the ε plot shows (0: data; -1: the first scale)
    double plotEpsilon = -1;  // the ε the scale plot shows (-1: 0.1 if listed, else the middle)
    // The point whose output the Output page shows (algorithm empty: none).
    QString pointAlgorithm;
    double pointScale = 0, pointEpsilon = 0;

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<WorkbenchChoices> fromJson(const QJsonObject& o);
    bool operator==(const WorkbenchChoices&) const = default;
};
inline constexpr int kMaxWorkbenchTrials = 1000;
inline constexpr qint64 kMaxWorkbenchSeed = 1000000000;
inline constexpr double kMaxWorkbenchScale = 1e12;

// The Strategy tab ("strategy", issue #23: the strategy designer): its inputs and what it shows.
// The section is written only when some value differs from these defaults, so sessions without it
// keep their bytes.
struct StrategyChoices {
    QString domain = QStringLiteral("1d");  // "1d" (n cells), "2d" (rows × cols), "table"
    int n = 256;
    int rows = 16, cols = 16;
    QString workload = QStringLiteral("allrange");  // WorkloadSpec text
    std::vector<double> p;                          // per dimension; empty: HDMM's n/16
    int restarts = 3;
    qint64 seed = 0;
    QString templ = QStringLiteral("auto");     // auto, pidentity, marginals, union
    double epsilon = 1;                         // the ε of the error map and the simulation
    QString noise = QStringLiteral("laplace");  // laplace, gaussian
    double delta = 1e-6;                        // Gaussian
    QString page = QStringLiteral("error");     // error, matrices, apply
    bool nnls = false;                          // the simulation's inference
    qint64 applySeed = 1;                       // the simulation's noise

    Status validate() const;
    QJsonObject toJson() const;
    static Expected<StrategyChoices> fromJson(const QJsonObject& o);
    bool operator==(const StrategyChoices&) const = default;
};
inline constexpr int kMaxStrategySize = 1 << 20;
inline constexpr qint64 kMaxStrategySeed = 1000000000;

// One statistic of a budget plan (core/choosing/budget_plan.h) without what the dataset supplies
// (sensitivities, N). Each row owns its bins.
struct BudgetRow {
    QString column;
    int bins = 1;
    QString mechanism = QStringLiteral("laplace");  // laplace, geometric, gaussian
    double weight = 1;
    QString hold = QStringLiteral("none");  // none, epsilon, accuracy
    double holdValue = 0;                   // the held ε or ±95% half-width
    double samplingRate = 1;  // Poisson sampling rate q ∈ (0, 1]; written only when < 1
    bool operator==(const BudgetRow&) const = default;
};

// The budget plan of one dataset.
struct DatasetBudget {
    QString dataset;  // budgetDatasetKey of the data the plan is for
    double epsilon = 1, delta = 1e-6;
    dpx::Composition composition = dpx::Composition::Basic;  // "basic", "zcdp" or "pld"
    std::vector<BudgetRow> rows;  // none: the plan starts with the current column
    QString ledger;               // the privacy ledger the plan starts from; "" none chosen

    Status validate() const;
    QJsonObject toJson() const;
    // `path`: where the plan sits, "budget" or "budget.other_datasets[2]".
    static Expected<DatasetBudget> fromJson(const QJsonObject& o, const QString& path);
    bool operator==(const DatasetBudget&) const = default;
};

// The Budget tab ("budget"). A plan belongs to a dataset (budgetDatasetKey): `plan` is the plan
// of plan.dataset ("": of the current dataset, not yet pinned), the plans of other datasets wait
// in otherPlans; read the current dataset's plan with currentBudget() and change it with
// setBudgetPlan/setBudgetLedger, which swap the plans when the dataset changed.
struct BudgetChoices {
    DatasetBudget plan;
    std::vector<DatasetBudget> otherPlans;  // at most kMaxBudgetPlans, oldest first

    Status validate() const;
    // The plan at the top level (as before plans had a dataset), the others in "other_datasets".
    QJsonObject toJson() const;
    // A plan without "dataset" (written before plans had one) is `sessionDataset`'s.
    static Expected<BudgetChoices> fromJson(const QJsonObject& o, const QString& sessionDataset);
    bool operator==(const BudgetChoices&) const = default;
};

struct ExplorerState {
    using ColumnChoice = ui::ColumnChoice;
    using BudgetRow = ui::BudgetRow;
    using DatasetBudget = ui::DatasetBudget;

    DataChoices data;
    MechanismChoices mechanism;
    ViewChoices view;
    TradeoffChoices tradeoff;
    BudgetChoices budget;
    WorkbenchChoices workbench;
    StrategyChoices strategy;

    // Every field in range, with a message naming the first one that is not.
    Status validate() const;
    QJsonObject toJson() const;
    // Missing keys keep their defaults; unknown keys are ignored; a present but invalid value is
    // an error naming the key.
    static Expected<ExplorerState> fromJson(const QJsonObject& o);
    // Keys of a session that fromJson does not read ("data.bogus"): what toJson of the loaded
    // state does not write back. A newer version's keys or a typo; the caller warns about them.
    static QStringList unknownKeys(const QJsonObject& o);
    // Messages about spellings a session used that still open but will not forever (the old LP
    // objective "l0d3"); the caller shows them.
    static QStringList deprecations(const QJsonObject& o);

    bool operator==(const ExplorerState&) const = default;
};

// What a change touches, so that only the affected computations re-run.
enum ChangeFlag : unsigned {
    DataChanged = 1u << 0,       // source and its options, column, binning, cap, neighbouring
    MechanismChanged = 1u << 1,  // mechanism, ε, δ, calibration, n, LP settings
    EstimatorChanged = 1u << 2,
    SeedChanged = 1u << 3,
    ViewChanged = 1u << 4,       // overlay, log colour scale, error scale, theme
    TabChanged = 1u << 5,        // the current tab only: nothing to recompute or redraw
    TradeoffChanged = 1u << 6,   // the trade-off tab's curves, metric, axis or grids
    BudgetChanged = 1u << 7,     // the budget tab's plan
    WorkbenchChanged = 1u << 8,  // the workbench tab's inputs or view
    StrategyChanged = 1u << 9,   // the strategy tab's inputs or view
};
unsigned changesBetween(const ExplorerState& a, const ExplorerState& b);

// Remembered column choices kept in a state (and its sessions).
inline constexpr std::size_t kMaxColumnChoices = 200;
// The source of the data without its table: "example:telemetry", "csv:/abs/path",
// "sqlite:/abs/path", "postgresql://user@host:port/db".
QString dataSourceKey(const DataChoices& d);

// Other datasets' plans kept in a state (and its sessions).
inline constexpr std::size_t kMaxBudgetPlans = 50;
// The dataset a budget plan belongs to: "example:telemetry:50000" (id and rows), "csv:/abs/path",
// "sqlite:/abs/path#table", "postgresql://user@host:port/db#table".
QString budgetDatasetKey(const DataChoices& d);
// The plan of the state's current dataset (an empty plan with the default total if it has none).
DatasetBudget currentBudget(const ExplorerState& s);
// The budget plan of the current dataset (sensitivities 1 and N unknown: the dataset fills them
// in) and back; setBudgetPlan keeps the dataset's ledger, setBudgetLedger its plan.
BudgetPlan budgetPlanOf(const ExplorerState& s);
void setBudgetPlan(ExplorerState& s, const BudgetPlan& plan);
void setBudgetLedger(ExplorerState& s, const QString& ledgerPath);

}  // namespace dpx::ui
