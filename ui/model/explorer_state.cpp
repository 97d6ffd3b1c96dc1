#include "ui/model/explorer_state.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/base/validation.h"
#include "core/choosing/tradeoff.h"
#include "core/histogram/example_datasets.h"

namespace dpx::ui {

namespace {

struct MechanismInfo {
    MechanismChoice choice;
    const char* id;
    const char* title;
};
constexpr MechanismInfo kMechanisms[] = {
    {MechanismChoice::Laplace, "laplace", "Laplace"},
    {MechanismChoice::Geometric, "geometric", "Geometric (discrete Laplace)"},
    {MechanismChoice::Gaussian, "gaussian", "Gaussian"},
    {MechanismChoice::CountGeometric, "count-geometric", "Truncated geometric (GM)"},
    {MechanismChoice::CountExplicitFair, "count-explicit-fair", "Explicit fair (EM)"},
    {MechanismChoice::CountUniform, "count-uniform", "Uniform (UM)"},
    {MechanismChoice::CountLaplace, "count-laplace", "Laplace, rounded and clamped"},
    {MechanismChoice::CountGaussian, "count-gaussian", "Gaussian, rounded and clamped"},
    {MechanismChoice::CountOptimal, "count-optimal", "Optimal (LP)"},
    {MechanismChoice::LocalRR, "local-rr", "Randomized response (2 bins)"},
    {MechanismChoice::LocalGRR, "local-grr", "Generalized RR (direct encoding)"},
    {MechanismChoice::LocalOUE, "local-oue", "Optimal unary encoding (OUE)"},
    {MechanismChoice::LocalSUE, "local-sue", "Symmetric unary encoding (RAPPOR)"},
    {MechanismChoice::LocalOLH, "local-olh", "Optimal local hashing (OLH)"},
    {MechanismChoice::LocalHRR, "local-hrr", "Hadamard randomized response (HRR)"},
    {MechanismChoice::LocalDBitFlip, "local-dbitflip", "dBitFlip (telemetry, seed 002)"},
};

constexpr const char* kBinnings[] = {"auto", "equal-width", "integer", "categories", "edges"};
constexpr const char* kSources[] = {"example", "csv", "sqlite", "postgresql"};
constexpr const char* kUnknown[] = {"drop", "other", "error"};
constexpr const char* kTypes[] = {"integer", "float", "categorical", "date"};

QString str(const char* s) {
    return QString::fromLatin1(s);
}

Error keyError(const QString& key, const QString& what) {
    return Error{"session key '" + key.toStdString() + "': " + what.toStdString()};
}

// "a string", "an array", …: what a session value is, for messages about the wrong type.
QString jsonTypeName(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Null:
            return QStringLiteral("null");
        case QJsonValue::Bool:
            return QStringLiteral("true or false");
        case QJsonValue::Double:
            return QStringLiteral("a number");
        case QJsonValue::String:
            return QStringLiteral("a string");
        case QJsonValue::Array:
            return QStringLiteral("an array");
        case QJsonValue::Object:
            return QStringLiteral("an object");
        case QJsonValue::Undefined:
            break;
    }
    return QStringLiteral("nothing");
}

// A budget plan's total and rows, with a message naming the first field out of range.
Status validateBudget(double epsilon, double delta,
                      const std::vector<ExplorerState::BudgetRow>& rows) {
    if (!(std::isfinite(epsilon) && epsilon > 0) ||
        !(std::isfinite(delta) && delta >= 0 && delta < 1)) {
        return Error{"the budget total needs ε > 0 and 0 ≤ δ < 1, got ε = " +
                     formatNumber(epsilon) + ", δ = " + formatNumber(delta)};
    }
    for (const ExplorerState::BudgetRow& r : rows) {
        const std::string name =
            r.column.isEmpty() ? std::string("(no column)") : r.column.toStdString();
        if (r.bins < 1 || r.bins > 10'000'000) {
            return Error{"budget statistic '" + name + "': bins must be 1 to 10,000,000"};
        }
        if (!mechanismFromName(r.mechanism.toStdString())) {
            return Error{"budget statistic '" + name + "': unknown mechanism '" +
                         r.mechanism.toStdString() + "' (laplace, geometric, gaussian)"};
        }
        if (!(std::isfinite(r.weight) && r.weight >= 0)) {
            return Error{"budget statistic '" + name + "': the weight must be finite and ≥ 0"};
        }
        if (r.hold != QLatin1String("none") && r.hold != QLatin1String("epsilon") &&
            r.hold != QLatin1String("accuracy")) {
            return Error{"budget statistic '" + name + "': unknown hold '" + r.hold.toStdString() +
                         "' (none, epsilon, accuracy)"};
        }
        if (r.hold != QLatin1String("none") && !(std::isfinite(r.holdValue) && r.holdValue > 0)) {
            return Error{"budget statistic '" + name + "': a held value must be finite and > 0"};
        }
    }
    return okStatus();
}

QJsonObject budgetJson(const ExplorerState::DatasetBudget& b) {
    QJsonArray rows;
    for (const ExplorerState::BudgetRow& r : b.rows) {
        rows.append(QJsonObject{{QStringLiteral("column"), r.column},
                                {QStringLiteral("bins"), r.bins},
                                {QStringLiteral("mechanism"), r.mechanism},
                                {QStringLiteral("weight"), r.weight},
                                {QStringLiteral("hold"), r.hold},
                                {QStringLiteral("hold_value"), r.holdValue}});
    }
    return QJsonObject{
        {QStringLiteral("dataset"), b.dataset},
        {QStringLiteral("epsilon"), b.epsilon},
        {QStringLiteral("delta"), b.delta},
        {QStringLiteral("composition"), b.zcdp ? QStringLiteral("zcdp") : QStringLiteral("basic")},
        {QStringLiteral("statistics"), rows},
        {QStringLiteral("ledger"), b.ledger}};
}

// A remembered column binning (ExplorerState::ColumnChoice): the same rules as the state's own.
Status validateColumnChoice(const ExplorerState::ColumnChoice& c) {
    if (c.bins < 1 || c.bins > 100000) {
        return Error{"the number of bins must be in [1, 100000], got " + std::to_string(c.bins)};
    }
    if (!std::isfinite(c.rangeLo) || !std::isfinite(c.rangeHi) || c.rangeLo > c.rangeHi) {
        return Error{"the bin range must be two finite numbers, low ≤ high"};
    }
    if (c.binning == BinningChoice::Edges) {
        if (c.edges.size() < 2) {
            return Error{"edges: give at least two increasing numbers"};
        }
        for (std::size_t i = 0; i < c.edges.size(); ++i) {
            if (!std::isfinite(c.edges[i]) || (i > 0 && !(c.edges[i] > c.edges[i - 1]))) {
                return Error{"edges: give finite, strictly increasing numbers"};
            }
        }
    }
    for (const QString& x : c.categories) {
        if (x.isEmpty()) {
            return Error{"categories: an entry is empty"};
        }
    }
    if (c.categories.size() != QSet<QString>(c.categories.begin(), c.categories.end()).size()) {
        return Error{"categories: an entry appears twice"};
    }
    if (c.source.isEmpty()) {
        return Error{"no source"};
    }
    return okStatus();
}

}  // namespace

const char* mechanismChoiceId(MechanismChoice m) {
    for (const auto& info : kMechanisms) {
        if (info.choice == m) {
            return info.id;
        }
    }
    return "?";
}

QString mechanismChoiceTitle(MechanismChoice m) {
    for (const auto& info : kMechanisms) {
        if (info.choice == m) {
            return QString::fromUtf8(info.title);
        }
    }
    return QStringLiteral("?");
}

Expected<MechanismChoice> mechanismChoiceFromId(const QString& id) {
    QStringList known;
    for (const auto& info : kMechanisms) {
        if (id == str(info.id)) {
            return info.choice;
        }
        known << str(info.id);
    }
    return Error{"unknown mechanism '" + id.toStdString() +
                 "' (known: " + known.join(QStringLiteral(", ")).toStdString() + ")"};
}

bool isCountMechanism(MechanismChoice m) {
    return m != MechanismChoice::Laplace && m != MechanismChoice::Geometric &&
           m != MechanismChoice::Gaussian && !isLocalMechanism(m);
}

bool isLocalMechanism(MechanismChoice m) {
    switch (m) {
        case MechanismChoice::LocalRR:
        case MechanismChoice::LocalGRR:
        case MechanismChoice::LocalOUE:
        case MechanismChoice::LocalSUE:
        case MechanismChoice::LocalOLH:
        case MechanismChoice::LocalHRR:
        case MechanismChoice::LocalDBitFlip:
            return true;
        default:
            return false;
    }
}

ldp::Protocol localProtocolOf(MechanismChoice m) {
    switch (m) {
        case MechanismChoice::LocalRR:
            return ldp::Protocol::RR;
        case MechanismChoice::LocalOUE:
            return ldp::Protocol::OUE;
        case MechanismChoice::LocalSUE:
            return ldp::Protocol::SUE;
        case MechanismChoice::LocalOLH:
            return ldp::Protocol::OLH;
        case MechanismChoice::LocalHRR:
            return ldp::Protocol::HRR;
        case MechanismChoice::LocalDBitFlip:
            return ldp::Protocol::DBitFlip;
        default:
            return ldp::Protocol::GRR;
    }
}

bool usesDelta(MechanismChoice m) {
    return m == MechanismChoice::Gaussian || m == MechanismChoice::CountGaussian;
}

const char* binningChoiceId(BinningChoice b) {
    return kBinnings[static_cast<int>(b)];
}

Expected<BinningChoice> binningChoiceFromId(const QString& id) {
    for (int i = 0; i < 5; ++i) {
        if (id == str(kBinnings[i])) {
            return static_cast<BinningChoice>(i);
        }
    }
    return Error{"unknown binning '" + id.toStdString() +
                 "' (known: auto, equal-width, integer, categories, edges)"};
}

const char* sourceKindId(SourceKind k) {
    return kSources[static_cast<int>(k)];
}

Expected<SourceKind> sourceKindFromId(const QString& id) {
    for (int i = 0; i < 4; ++i) {
        if (id == str(kSources[i])) {
            return static_cast<SourceKind>(i);
        }
    }
    return Error{"unknown source '" + id.toStdString() +
                 "' (known: example, csv, sqlite, postgresql)"};
}

char csvDelimiterChar(const QString& id) {
    return id == QLatin1String("comma")       ? ','
           : id == QLatin1String("semicolon") ? ';'
           : id == QLatin1String("tab")       ? '\t'
           : id == QLatin1String("pipe")      ? '|'
                                              : '\0';
}

bool isCsvDelimiterId(const QString& id) {
    return id == QLatin1String("auto") || csvDelimiterChar(id) != 0;
}

Status ExplorerState::validate() const {
    if (!(epsilon >= kMinEpsilon && epsilon <= kMaxEpsilon)) {
        return Error{"ε must be between " + formatNumber(kMinEpsilon) + " and " +
                     formatNumber(kMaxEpsilon) + ", got " + formatNumber(epsilon)};
    }
    if (usesDelta(mechanism) && !(delta >= kMinDelta && delta <= kMaxDelta)) {
        return Error{"δ must be between " + formatNumber(kMinDelta) + " and " +
                     formatNumber(kMaxDelta) + ", got " + formatNumber(delta)};
    }
    if (bins < 1 || bins > 100000) {
        return Error{"the number of bins must be in [1, 100000], got " + std::to_string(bins)};
    }
    if (!std::isfinite(rangeLo) || !std::isfinite(rangeHi) || rangeLo > rangeHi) {
        return Error{"the bin range must be two finite numbers, low ≤ high"};
    }
    switch (source) {
        case SourceKind::Example:
            break;
        case SourceKind::Csv:
            if (csvPath.isEmpty()) {
                return Error{"a CSV source needs a file"};
            }
            break;
        case SourceKind::Sqlite:
            if (sqlitePath.isEmpty()) {
                return Error{"a SQLite source needs a file"};
            }
            break;
        case SourceKind::Postgres:
            if (pgHost.isEmpty() || pgDatabase.isEmpty()) {
                return Error{"a PostgreSQL source needs a host and a database"};
            }
            break;
    }
    if (!isCsvDelimiterId(csvDelimiter)) {
        return Error{"unknown CSV delimiter '" + csvDelimiter.toStdString() +
                     "' (auto, comma, semicolon, tab, pipe)"};
    }
    for (const QString& t : csvTypes) {
        const qsizetype eq = t.lastIndexOf(QLatin1Char('='));
        bool known = false;
        for (const char* k : kTypes) {
            known = known || (eq > 0 && t.mid(eq + 1) == str(k));
        }
        if (!known) {
            return Error{"CSV type override '" + t.toStdString() +
                         "': expected column=integer|float|categorical|date"};
        }
    }
    if (pgPort < 1 || pgPort > 65535) {
        return Error{"the PostgreSQL port must be in [1, 65535]"};
    }
    if (pgConnectTimeout < 1 || pgConnectTimeout > 3600) {
        return Error{"the connect timeout must be in [1, 3600] s"};
    }
    if (pgStatementTimeout < 0) {
        return Error{"the statement timeout must be ≥ 0 ms (0: none)"};
    }
    if (cap < 1 || cap > 1'000'000) {
        return Error{"the cap must be in [1, 1 000 000] rows per person"};
    }
    if (binning == BinningChoice::Edges) {
        if (edges.size() < 2) {
            return Error{"edges: give at least two increasing numbers"};
        }
        for (std::size_t i = 0; i < edges.size(); ++i) {
            if (!std::isfinite(edges[i]) || (i > 0 && !(edges[i] > edges[i - 1]))) {
                return Error{"edges: give finite, strictly increasing numbers"};
            }
        }
    }
    for (const QString& c : categories) {
        if (c.isEmpty()) {
            return Error{"categories: an entry is empty"};
        }
    }
    if (categories.size() != QSet<QString>(categories.begin(), categories.end()).size()) {
        return Error{"categories: an entry appears twice"};
    }
    if (otherColumns.size() > kMaxColumnChoices) {
        return Error{"at most " + std::to_string(kMaxColumnChoices) +
                     " remembered column binnings are kept"};
    }
    for (const ColumnChoice& c : otherColumns) {
        if (auto st = validateColumnChoice(c); !st) {
            return Error{"the remembered binning of column '" + c.column.toStdString() + "' of " +
                         c.source.toStdString() + ": " + st.error().message};
        }
    }
    if (exampleRows < 0 || exampleRows > 10'000'000) {
        return Error{"the example's number of rows must be in [0, 10 000 000]"};
    }
    if (countN < 0 || countN > 2000) {
        return Error{"the group size n must be in [0, 2000] (0: the largest bin count)"};
    }
    if (ldpBits < 1 || ldpBits > kMaxLdpBits) {
        return Error{"dBitFlip's d (buckets per user) must be in [1, " +
                     std::to_string(kMaxLdpBits) + "]"};
    }
    if (!(lpBinomialP < 0 || (lpBinomialP >= 0 && lpBinomialP <= 1))) {
        return Error{"the Binomial prior's p must be in [0, 1]"};
    }
    if (!(lpMinDiagonal >= 0 && lpMinDiagonal <= 1)) {
        return Error{"the minimum diagonal must be in [0, 1]"};
    }
    for (const QString& c : lpConstraints) {
        static const QStringList known = {
            QStringLiteral("rh"), QStringLiteral("rm"), QStringLiteral("ch"), QStringLiteral("cm"),
            QStringLiteral("f"),  QStringLiteral("wh"), QStringLiteral("s")};
        if (!known.contains(c)) {
            return Error{"unknown LP constraint '" + c.toStdString() +
                         "' (known: rh, rm, ch, cm, f, wh, s)"};
        }
    }
    const QString obj =
        lpObjective.startsWith(QLatin1String("minimax-")) ? lpObjective.mid(8) : lpObjective;
    if (obj != QLatin1String("l0") && obj != QLatin1String("l1") && obj != QLatin1String("l2") &&
        !obj.startsWith(QLatin1String("l0d:"))) {
        return Error{"unknown LP objective '" + lpObjective.toStdString() + "'"};
    }
    for (const QString& id : tradeoffConfigs) {
        if (!isTradeoffConfigId(id)) {
            return Error{"unknown trade-off configuration '" + id.toStdString() +
                         "' (laplace, geometric or gaussian with identity, clamp, resize or "
                         "noisefirst; sparse, gm, em or optimal with identity or resize; rr, "
                         "grr, oue, sue, olh, hrr or dbitflipD with identity, clamp or resize)"};
        }
    }
    if (!(tradeoffEpsLo >= kMinEpsilon && tradeoffEpsLo < tradeoffEpsHi &&
          tradeoffEpsHi <= kMaxEpsilon)) {
        return Error{"the trade-off ε range must satisfy " + formatNumber(kMinEpsilon) +
                     " ≤ from < to ≤ " + formatNumber(kMaxEpsilon) + ", got " +
                     formatNumber(tradeoffEpsLo) + " to " + formatNumber(tradeoffEpsHi)};
    }
    if (!(tradeoffPopLo >= 1 && tradeoffPopLo < tradeoffPopHi &&
          tradeoffPopHi <= kMaxTradeoffPopulation)) {
        return Error{"the trade-off population range must satisfy 1 ≤ from < to ≤ " +
                     formatNumber(kMaxTradeoffPopulation) + ", got " + formatNumber(tradeoffPopLo) +
                     " to " + formatNumber(tradeoffPopHi)};
    }
    if (tradeoffPoints < 2 || tradeoffPoints > kMaxTradeoffPoints) {
        return Error{"the trade-off curves need 2 to " + std::to_string(kMaxTradeoffPoints) +
                     " points, got " + std::to_string(tradeoffPoints)};
    }
    if (auto st = validateBudget(budgetEpsilon, budgetDelta, budgetRows); !st) {
        return st;
    }
    if (budgetOtherPlans.size() > kMaxBudgetPlans) {
        return Error{"at most " + std::to_string(kMaxBudgetPlans) +
                     " budget plans of other datasets are kept"};
    }
    for (const DatasetBudget& b : budgetOtherPlans) {
        if (auto st = validateBudget(b.epsilon, b.delta, b.rows); !st) {
            return Error{"the budget plan of " + b.dataset.toStdString() + ": " +
                         st.error().message};
        }
    }
    if (tab != QLatin1String("histogram") && tab != QLatin1String("matrix") &&
        tab != QLatin1String("errors") && tab != QLatin1String("risk") &&
        tab != QLatin1String("tradeoff") && tab != QLatin1String("budget") &&
        tab != QLatin1String("ldp-experiment") && tab != QLatin1String("ldp-ranges") &&
        tab != QLatin1String("ldp-marginals") && tab != QLatin1String("ldp-means") &&
        tab != QLatin1String("mechanisms") && tab != QLatin1String("sparse") &&
        tab != QLatin1String("rdp") && tab != QLatin1String("select") &&
        tab != QLatin1String("vector-mean") && tab != QLatin1String("kde")) {
        return Error{"unknown tab '" + tab.toStdString() +
                     "' (histogram, matrix, errors, risk, tradeoff, budget, ldp-experiment, "
                     "ldp-ranges, ldp-marginals, ldp-means, mechanisms, sparse, rdp, select, "
                     "vector-mean, kde)"};
    }
    return okStatus();
}

bool isTradeoffConfigId(const QString& id) {
    const QStringList parts = id.split(QLatin1Char(':'));
    if (parts.size() != 2 || !estimatorFromName(parts[1].toStdString())) {
        return false;
    }
    const QString& m = parts[0];
    if (m == QLatin1String("laplace") || m == QLatin1String("geometric") ||
        m == QLatin1String("gaussian")) {
        return true;
    }
    // The sparse (thresholded Laplace) release: identity or resize (clamp = identity there).
    if (m == QLatin1String("sparse")) {
        return parts[1] == QLatin1String("identity") || parts[1] == QLatin1String("resize");
    }
    // Local protocols (core/choosing/tradeoff.h names: "grr", "oue", "dbitflip2", …): no
    // NoiseFirst.
    if (localProtocolFromConfigName(m.toStdString())) {
        return parts[1] != QLatin1String("noisefirst");
    }
    return (m == QLatin1String("gm") || m == QLatin1String("em") ||
            m == QLatin1String("optimal")) &&
           (parts[1] == QLatin1String("identity") || parts[1] == QLatin1String("resize"));
}

namespace {

QJsonArray columnChoicesJson(const std::vector<ExplorerState::ColumnChoice>& choices) {
    QJsonArray out;
    for (const ExplorerState::ColumnChoice& c : choices) {
        QJsonArray edges;
        for (double e : c.edges) {
            edges.append(e);
        }
        out.append(
            QJsonObject{{QStringLiteral("source"), c.source},
                        {QStringLiteral("table"), c.table},
                        {QStringLiteral("column"), c.column},
                        {QStringLiteral("binning"), str(binningChoiceId(c.binning))},
                        {QStringLiteral("bins"), c.bins},
                        {QStringLiteral("range"), QJsonArray{c.rangeLo, c.rangeHi}},
                        {QStringLiteral("closed"), c.closedHi},
                        {QStringLiteral("edges"), edges},
                        {QStringLiteral("categories"), QJsonArray::fromStringList(c.categories)},
                        {QStringLiteral("unknown_category"),
                         str(kUnknown[static_cast<int>(c.unknownCategory)])}});
    }
    return out;
}

}  // namespace

QJsonObject ExplorerState::toJson() const {
    QJsonArray edgeArray;
    for (double e : edges) {
        edgeArray.append(e);
    }
    // No password here, ever: a session file is shared and kept; see ui/panels/pg_dialog.h.
    QJsonObject pg{{QStringLiteral("host"), pgHost},
                   {QStringLiteral("port"), pgPort},
                   {QStringLiteral("database"), pgDatabase},
                   {QStringLiteral("user"), pgUser},
                   {QStringLiteral("connect_timeout"), pgConnectTimeout},
                   {QStringLiteral("statement_timeout"), pgStatementTimeout}};
    QJsonObject csvOptions{{QStringLiteral("delimiter"), csvDelimiter},
                           {QStringLiteral("header"), csvHeader},
                           {QStringLiteral("bad_rows"),
                            csvSkipBadRows ? QStringLiteral("skip") : QStringLiteral("stop")},
                           {QStringLiteral("types"), QJsonArray::fromStringList(csvTypes)}};
    QJsonObject data{
        {QStringLiteral("source"), str(sourceKindId(source))},
        {QStringLiteral("example"), exampleId},
        {QStringLiteral("example_rows"), exampleRows},
        {QStringLiteral("csv"), csvPath},
        {QStringLiteral("csv_options"), csvOptions},
        {QStringLiteral("sqlite"), sqlitePath},
        {QStringLiteral("postgresql"), pg},
        {QStringLiteral("table"), sqlTable},
        {QStringLiteral("column"), column},
        {QStringLiteral("binning"), str(binningChoiceId(binning))},
        {QStringLiteral("bins"), bins},
        {QStringLiteral("range"), QJsonArray{rangeLo, rangeHi}},
        {QStringLiteral("closed"), closedHi},
        {QStringLiteral("edges"), edgeArray},
        {QStringLiteral("categories"), QJsonArray::fromStringList(categories)},
        {QStringLiteral("unknown_category"), str(kUnknown[static_cast<int>(unknownCategory)])},
        {QStringLiteral("id_column"), idColumn},
        {QStringLiteral("cap"), cap},
        {QStringLiteral("neighbouring"), str(neighbouringName(neighbouring))},
        {QStringLiteral("other_columns"), columnChoicesJson(otherColumns)}};
    QJsonObject lp{{QStringLiteral("objective"), lpObjective},
                   {QStringLiteral("constraints"), QJsonArray::fromStringList(lpConstraints)},
                   {QStringLiteral("binomial_p"), lpBinomialP},
                   {QStringLiteral("min_diagonal"), lpMinDiagonal}};
    QJsonObject mech{{QStringLiteral("name"), str(mechanismChoiceId(mechanism))},
                     {QStringLiteral("epsilon"), epsilon},
                     {QStringLiteral("delta"), delta},
                     {QStringLiteral("calibration"), str(gaussianCalibrationName(calibration))},
                     {QStringLiteral("estimator"), str(estimatorName(estimator))},
                     // A string: JSON numbers cannot hold every 64-bit seed exactly.
                     {QStringLiteral("seed"), QString::number(seed)},
                     {QStringLiteral("group_size"), countN},
                     {QStringLiteral("ldp_bits"), ldpBits},
                     {QStringLiteral("ldp_simulator"),
                      ldpPerUser ? QStringLiteral("per-user") : QStringLiteral("aggregate")},
                     {QStringLiteral("lp"), lp}};
    QJsonObject view{{QStringLiteral("overlay"), overlay},
                     {QStringLiteral("matrix_log"), matrixLog},
                     {QStringLiteral("scale"), str(scaleName(scale))},
                     {QStringLiteral("dark"), dark},
                     {QStringLiteral("tab"), tab}};
    QJsonObject tradeoff{
        {QStringLiteral("configs"), QJsonArray::fromStringList(tradeoffConfigs)},
        {QStringLiteral("metric"), str(metricName(tradeoffMetric))},
        {QStringLiteral("against"),
         tradeoffAgainstPopulation ? QStringLiteral("population") : QStringLiteral("epsilon")},
        {QStringLiteral("epsilon_range"), QJsonArray{tradeoffEpsLo, tradeoffEpsHi}},
        {QStringLiteral("population_range"), QJsonArray{tradeoffPopLo, tradeoffPopHi}},
        {QStringLiteral("points"), tradeoffPoints}};
    // The plan of `budgetDataset` at the top level (as before plans had a dataset), the other
    // datasets' plans in "other_datasets".
    QJsonObject budget = budgetJson(
        {budgetDataset, budgetEpsilon, budgetDelta, budgetZcdp, budgetRows, budgetLedger});
    QJsonArray others;
    for (const DatasetBudget& b : budgetOtherPlans) {
        others.append(budgetJson(b));
    }
    budget[QStringLiteral("other_datasets")] = others;
    return QJsonObject{{QStringLiteral("format"), QStringLiteral("dpexplorer-session")},
                       {QStringLiteral("version"), 1},
                       {QStringLiteral("tradeoff"), tradeoff},
                       {QStringLiteral("budget"), budget},
                       {QStringLiteral("data"), data},
                       {QStringLiteral("mechanism"), mech},
                       {QStringLiteral("view"), view}};
}

namespace {

void collectUnknown(const QJsonObject& given, const QJsonObject& known, const QString& prefix,
                    QStringList& out) {
    for (auto it = given.begin(); it != given.end(); ++it) {
        const QString path = prefix.isEmpty() ? it.key() : prefix + QLatin1Char('.') + it.key();
        const auto k = known.find(it.key());
        if (k == known.end()) {
            out << path;
        } else if (it->isObject() && k->isObject()) {
            collectUnknown(it->toObject(), k->toObject(), path, out);
        } else if (it->isArray() && k->isArray()) {
            // Arrays of objects (budget statistics, remembered binnings): element by element.
            const QJsonArray g = it->toArray();
            const QJsonArray kn = k->toArray();
            for (qsizetype i = 0; i < g.size() && i < kn.size(); ++i) {
                if (g[i].isObject() && kn[i].isObject()) {
                    collectUnknown(g[i].toObject(), kn[i].toObject(),
                                   path + QStringLiteral("[%1]").arg(i), out);
                }
            }
        }
    }
}

}  // namespace

void ExplorerState::forgetSourceChoices() {
    sqlTable.clear();
    column.clear();
    idColumn.clear();
    categories.clear();
    edges.clear();
    binning = BinningChoice::Auto;
    rangeLo = rangeHi = 0;
}

QString dataSourceKey(const ExplorerState& s) {
    switch (s.source) {
        case SourceKind::Example:
            return QStringLiteral("example:") + s.exampleId;
        case SourceKind::Csv:
            return QStringLiteral("csv:") + s.csvPath;
        case SourceKind::Sqlite:
            return QStringLiteral("sqlite:") + s.sqlitePath;
        case SourceKind::Postgres:
            return QStringLiteral("postgresql://%1@%2:%3/%4")
                .arg(s.pgUser, s.pgHost)
                .arg(s.pgPort)
                .arg(s.pgDatabase);
    }
    return {};
}

namespace {

// The binning fields of `c` into `s` (the column too).
void restoreChoice(ExplorerState& s, const ExplorerState::ColumnChoice& c) {
    s.column = c.column;
    s.binning = c.binning;
    s.bins = c.bins;
    s.rangeLo = c.rangeLo;
    s.rangeHi = c.rangeHi;
    s.closedHi = c.closedHi;
    s.edges = c.edges;
    s.categories = c.categories;
    s.unknownCategory = c.unknownCategory;
}

// A column without a remembered binning: automatic bins (the equal-width count and the closed
// upper end stay as the user's defaults).
void automaticBinning(ExplorerState& s) {
    s.binning = BinningChoice::Auto;
    s.rangeLo = s.rangeHi = 0;
    s.edges.clear();
    s.categories.clear();
    s.unknownCategory = UnknownCategory::Drop;
}

}  // namespace

void ExplorerState::rememberColumnChoice(const QString& columnInForce) {
    ColumnChoice c;
    c.source = dataSourceKey(*this);
    c.table = sqlTable;
    c.column = column.isEmpty() ? columnInForce : column;
    c.binning = binning;
    c.bins = bins;
    c.rangeLo = rangeLo;
    c.rangeHi = rangeHi;
    c.closedHi = closedHi;
    c.edges = edges;
    c.categories = categories;
    c.unknownCategory = unknownCategory;
    std::erase_if(otherColumns, [&](const ColumnChoice& o) {
        return o.source == c.source && o.table == c.table && o.column == c.column;
    });
    otherColumns.push_back(std::move(c));
    while (otherColumns.size() > kMaxColumnChoices) {
        otherColumns.erase(otherColumns.begin());
    }
}

bool ExplorerState::recallColumnChoice(const QString& next) {
    const QString key = dataSourceKey(*this);
    for (auto it = otherColumns.rbegin(); it != otherColumns.rend(); ++it) {
        if (it->source == key && it->table == sqlTable && it->column == next) {
            restoreChoice(*this, *it);
            otherColumns.erase(std::next(it).base());
            return true;
        }
    }
    column = next;
    automaticBinning(*this);
    return false;
}

void ExplorerState::enterSource(const ExplorerState& left, const QString& columnInForce) {
    ExplorerState before = left;
    before.otherColumns = otherColumns;
    before.rememberColumnChoice(columnInForce);
    otherColumns = std::move(before.otherColumns);
    const QString table = sqlTable;
    const bool sameSource = dataSourceKey(left) == dataSourceKey(*this);
    const QString id = idColumn;
    forgetSourceChoices();
    if (sameSource) {
        idColumn = id;  // the person id column belongs to the source, not to a column
    }
    automaticBinning(*this);
    // The newest choice made with this source (and table, when one is named).
    const QString key = dataSourceKey(*this);
    for (auto it = otherColumns.rbegin(); it != otherColumns.rend(); ++it) {
        if (it->source == key && (table.isEmpty() || it->table == table)) {
            sqlTable = it->table;
            restoreChoice(*this, *it);
            otherColumns.erase(std::next(it).base());
            return;
        }
    }
    sqlTable = table;
}

QStringList ExplorerState::unknownKeys(const QJsonObject& root) {
    QStringList out;
    if (auto s = fromJson(root)) {
        collectUnknown(root, s->toJson(), QString(), out);
    }
    return out;
}

Expected<ExplorerState> ExplorerState::fromJson(const QJsonObject& root) {
    if (root.value(QStringLiteral("format")).toString() != QLatin1String("dpexplorer-session")) {
        return Error{
            "not a DP Explorer session (the key \"format\" must be "
            "\"dpexplorer-session\")"};
    }
    if (root.value(QStringLiteral("version")).toInt(-1) != 1) {
        return Error{"unsupported session version (this DP Explorer reads version 1)"};
    }
    ExplorerState s;
    // The objects of the session; `where` says where each one sits so that every message names
    // the whole key ("mechanism.epsilon", not "epsilon", which the budget has too).
    QJsonObject data, mech, lp, view, tradeoff, budget, csvOptions, pg;
    std::vector<std::pair<const QJsonObject*, QString>> where;
    auto pathOf = [&where](const QJsonObject& o, const char* key) -> QString {
        for (const auto& [object, path] : where) {
            if (object == &o) {
                return path + QLatin1Char('.') + QLatin1String(key);
            }
        }
        return QString::fromLatin1(key);
    };

    // Typed readers: absent keeps the default, wrong type is an error.
    auto text = [&](const QJsonObject& o, const char* key, QString& out) -> Status {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isString()) {
            return keyError(pathOf(o, key),
                            QStringLiteral("expected a string, got %1").arg(jsonTypeName(v)));
        }
        out = v.toString();
        return okStatus();
    };
    auto number = [&](const QJsonObject& o, const char* key, double& out) -> Status {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isDouble() || !std::isfinite(v.toDouble())) {
            return keyError(
                pathOf(o, key),
                QStringLiteral("expected a finite number, got %1").arg(jsonTypeName(v)));
        }
        out = v.toDouble();
        return okStatus();
    };
    auto integer = [&](const QJsonObject& o, const char* key, qint64 lo, qint64 hi,
                       qint64& out) -> Status {
        double d = static_cast<double>(out);
        if (auto st = number(o, key, d); !st) {
            return st;
        }
        if (d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
            return keyError(pathOf(o, key),
                            QStringLiteral("expected an integer in [%1, %2]").arg(lo).arg(hi));
        }
        out = static_cast<qint64>(d);
        return okStatus();
    };
    auto boolean = [&](const QJsonObject& o, const char* key, bool& out) -> Status {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isBool()) {
            return keyError(pathOf(o, key),
                            QStringLiteral("expected true or false, got %1").arg(jsonTypeName(v)));
        }
        out = v.toBool();
        return okStatus();
    };
#define DPX_TRY(expr)                  \
    do {                               \
        if (auto st_ = (expr); !st_) { \
            return st_.error();        \
        }                              \
    } while (false)

    // An object of the session: absent keeps the defaults; anything else but an object is an
    // error (a "data": [1, 2] must not be ignored silently).
    auto section = [&](const QJsonObject& parent, const char* key, QJsonObject& out) -> Status {
        const QString path = pathOf(parent, key);
        where.emplace_back(&out, path);
        const QJsonValue v = parent.value(QLatin1String(key));
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isObject()) {
            return keyError(path,
                            QStringLiteral("expected an object, got %1").arg(jsonTypeName(v)));
        }
        out = v.toObject();
        return okStatus();
    };
    DPX_TRY(section(root, "data", data));
    DPX_TRY(section(data, "csv_options", csvOptions));
    DPX_TRY(section(data, "postgresql", pg));
    DPX_TRY(section(root, "mechanism", mech));
    DPX_TRY(section(mech, "lp", lp));
    DPX_TRY(section(root, "view", view));
    DPX_TRY(section(root, "tradeoff", tradeoff));
    DPX_TRY(section(root, "budget", budget));

    DPX_TRY(text(data, "example", s.exampleId));
    qint64 rows = s.exampleRows;
    DPX_TRY(integer(data, "example_rows", 0, 10'000'000, rows));
    s.exampleRows = rows;
    DPX_TRY(text(data, "csv", s.csvPath));
    QString name;
    // Sessions from before issue #5 have no "source": a CSV path means a CSV file.
    name = s.csvPath.isEmpty() ? str("example") : str("csv");
    DPX_TRY(text(data, "source", name));
    auto source = sourceKindFromId(name);
    if (!source) {
        return keyError(QStringLiteral("data.source"),
                        QString::fromStdString(source.error().message));
    }
    s.source = *source;
    auto stringList = [&](const QJsonObject& o, const char* key, QStringList& out) -> Status {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isArray()) {
            return keyError(
                pathOf(o, key),
                QStringLiteral("expected an array of strings, got %1").arg(jsonTypeName(v)));
        }
        out.clear();
        for (const QJsonValue& e : v.toArray()) {
            if (!e.isString()) {
                return keyError(pathOf(o, key),
                                QStringLiteral("expected an array of strings, found %1 in it")
                                    .arg(jsonTypeName(e)));
            }
            out << e.toString();
        }
        return okStatus();
    };
    DPX_TRY(text(csvOptions, "delimiter", s.csvDelimiter));
    DPX_TRY(boolean(csvOptions, "header", s.csvHeader));
    name = s.csvSkipBadRows ? str("skip") : str("stop");
    DPX_TRY(text(csvOptions, "bad_rows", name));
    if (name != QLatin1String("skip") && name != QLatin1String("stop")) {
        return keyError(QStringLiteral("data.csv_options.bad_rows"),
                        QStringLiteral("expected \"skip\" or \"stop\""));
    }
    s.csvSkipBadRows = name == QLatin1String("skip");
    DPX_TRY(stringList(csvOptions, "types", s.csvTypes));
    DPX_TRY(text(data, "sqlite", s.sqlitePath));
    DPX_TRY(text(pg, "host", s.pgHost));
    qint64 port = s.pgPort;
    DPX_TRY(integer(pg, "port", 1, 65535, port));
    s.pgPort = static_cast<int>(port);
    DPX_TRY(text(pg, "database", s.pgDatabase));
    DPX_TRY(text(pg, "user", s.pgUser));
    qint64 timeout = s.pgConnectTimeout;
    DPX_TRY(integer(pg, "connect_timeout", 1, 3600, timeout));
    s.pgConnectTimeout = static_cast<int>(timeout);
    timeout = s.pgStatementTimeout;
    DPX_TRY(integer(pg, "statement_timeout", 0, 2147483647, timeout));
    s.pgStatementTimeout = static_cast<int>(timeout);
    DPX_TRY(text(data, "table", s.sqlTable));
    DPX_TRY(boolean(data, "closed", s.closedHi));
    if (const QJsonValue v = data.value(QStringLiteral("edges")); !v.isUndefined()) {
        if (!v.isArray()) {
            return keyError(QStringLiteral("data.edges"),
                            QStringLiteral("expected an array of numbers"));
        }
        s.edges.clear();
        for (const QJsonValue& e : v.toArray()) {
            if (!e.isDouble()) {
                return keyError(QStringLiteral("data.edges"),
                                QStringLiteral("expected an array of numbers"));
            }
            s.edges.push_back(e.toDouble());
        }
    }
    DPX_TRY(stringList(data, "categories", s.categories));
    name = str(kUnknown[static_cast<int>(s.unknownCategory)]);
    DPX_TRY(text(data, "unknown_category", name));
    bool unknownOk = false;
    for (int i = 0; i < 3; ++i) {
        if (name == str(kUnknown[i])) {
            s.unknownCategory = static_cast<UnknownCategory>(i);
            unknownOk = true;
        }
    }
    if (!unknownOk) {
        return keyError(QStringLiteral("data.unknown_category"),
                        QStringLiteral("expected drop, other or error"));
    }
    DPX_TRY(text(data, "id_column", s.idColumn));
    qint64 cap = s.cap;
    DPX_TRY(integer(data, "cap", 1, 1'000'000, cap));
    s.cap = static_cast<int>(cap);
    DPX_TRY(text(data, "column", s.column));
    name = str(binningChoiceId(s.binning));
    DPX_TRY(text(data, "binning", name));
    auto binning = binningChoiceFromId(name);
    if (!binning) {
        return keyError(QStringLiteral("data.binning"),
                        QString::fromStdString(binning.error().message));
    }
    s.binning = *binning;
    qint64 bins = s.bins;
    DPX_TRY(integer(data, "bins", 1, 100000, bins));
    s.bins = static_cast<int>(bins);
    if (const QJsonValue r = data.value(QStringLiteral("range")); !r.isUndefined()) {
        const QJsonArray a = r.toArray();
        if (!r.isArray() || a.size() != 2 || !a[0].isDouble() || !a[1].isDouble()) {
            return keyError(QStringLiteral("data.range"), QStringLiteral("expected [low, high]"));
        }
        s.rangeLo = a[0].toDouble();
        s.rangeHi = a[1].toDouble();
    }
    name = str(neighbouringName(s.neighbouring));
    DPX_TRY(text(data, "neighbouring", name));
    auto nb = neighbouringFromName(name.toStdString());
    if (!nb) {
        return keyError(QStringLiteral("data.neighbouring"),
                        QString::fromStdString(nb.error().message));
    }
    s.neighbouring = *nb;
    // The binnings remembered for other columns (sessions from before they were kept have none).
    if (const QJsonValue v = data.value(QStringLiteral("other_columns")); !v.isUndefined()) {
        if (!v.isArray()) {
            return keyError(
                QStringLiteral("data.other_columns"),
                QStringLiteral("expected an array of objects, got %1").arg(jsonTypeName(v)));
        }
        const QJsonArray entries = v.toArray();
        for (qsizetype i = 0; i < entries.size(); ++i) {
            const QString path = QStringLiteral("data.other_columns[%1]").arg(i);
            if (!entries[i].isObject()) {
                return keyError(
                    path,
                    QStringLiteral("expected an object, got %1").arg(jsonTypeName(entries[i])));
            }
            const QJsonObject o = entries[i].toObject();
            where.emplace_back(&o, path);
            ColumnChoice c;
            DPX_TRY(text(o, "source", c.source));
            DPX_TRY(text(o, "table", c.table));
            DPX_TRY(text(o, "column", c.column));
            QString kind = str(binningChoiceId(c.binning));
            DPX_TRY(text(o, "binning", kind));
            auto b = binningChoiceFromId(kind);
            if (!b) {
                return keyError(path + QStringLiteral(".binning"),
                                QString::fromStdString(b.error().message));
            }
            c.binning = *b;
            qint64 k = c.bins;
            DPX_TRY(integer(o, "bins", 1, 100000, k));
            c.bins = static_cast<int>(k);
            if (const QJsonValue r = o.value(QStringLiteral("range")); !r.isUndefined()) {
                const QJsonArray a = r.toArray();
                if (!r.isArray() || a.size() != 2 || !a[0].isDouble() || !a[1].isDouble()) {
                    return keyError(path + QStringLiteral(".range"),
                                    QStringLiteral("expected [low, high]"));
                }
                c.rangeLo = a[0].toDouble();
                c.rangeHi = a[1].toDouble();
            }
            DPX_TRY(boolean(o, "closed", c.closedHi));
            if (const QJsonValue e = o.value(QStringLiteral("edges")); !e.isUndefined()) {
                if (!e.isArray()) {
                    return keyError(path + QStringLiteral(".edges"),
                                    QStringLiteral("expected an array of numbers"));
                }
                for (const QJsonValue& x : e.toArray()) {
                    if (!x.isDouble()) {
                        return keyError(path + QStringLiteral(".edges"),
                                        QStringLiteral("expected an array of numbers"));
                    }
                    c.edges.push_back(x.toDouble());
                }
            }
            DPX_TRY(stringList(o, "categories", c.categories));
            QString unknown = str(kUnknown[static_cast<int>(c.unknownCategory)]);
            DPX_TRY(text(o, "unknown_category", unknown));
            bool known = false;
            for (int u = 0; u < 3; ++u) {
                if (unknown == str(kUnknown[u])) {
                    c.unknownCategory = static_cast<UnknownCategory>(u);
                    known = true;
                }
            }
            if (!known) {
                return keyError(path + QStringLiteral(".unknown_category"),
                                QStringLiteral("expected drop, other or error"));
            }
            where.pop_back();
            s.otherColumns.push_back(std::move(c));
        }
    }

    name = str(mechanismChoiceId(s.mechanism));
    DPX_TRY(text(mech, "name", name));
    auto mc = mechanismChoiceFromId(name);
    if (!mc) {
        return keyError(QStringLiteral("mechanism.name"),
                        QString::fromStdString(mc.error().message));
    }
    s.mechanism = *mc;
    DPX_TRY(number(mech, "epsilon", s.epsilon));
    DPX_TRY(number(mech, "delta", s.delta));
    name = str(gaussianCalibrationName(s.calibration));
    DPX_TRY(text(mech, "calibration", name));
    auto cal = gaussianCalibrationFromName(name.toStdString());
    if (!cal) {
        return keyError(QStringLiteral("mechanism.calibration"),
                        QString::fromStdString(cal.error().message));
    }
    s.calibration = *cal;
    name = str(estimatorName(s.estimator));
    DPX_TRY(text(mech, "estimator", name));
    auto est = estimatorFromName(name.toStdString());
    if (!est) {
        return keyError(QStringLiteral("mechanism.estimator"),
                        QString::fromStdString(est.error().message));
    }
    s.estimator = *est;
    if (const QJsonValue v = mech.value(QStringLiteral("seed")); !v.isUndefined()) {
        bool ok = false;
        const quint64 seed = v.toString().toULongLong(&ok);
        if (!v.isString() || !ok) {
            return keyError(QStringLiteral("mechanism.seed"),
                            QStringLiteral("expected an unsigned integer as a string"));
        }
        s.seed = seed;
    }
    qint64 n = s.countN;
    DPX_TRY(integer(mech, "group_size", 0, 2000, n));
    s.countN = static_cast<int>(n);
    qint64 bits = s.ldpBits;
    DPX_TRY(integer(mech, "ldp_bits", 1, kMaxLdpBits, bits));
    s.ldpBits = static_cast<int>(bits);
    QString simulator = s.ldpPerUser ? str("per-user") : str("aggregate");
    DPX_TRY(text(mech, "ldp_simulator", simulator));
    if (simulator != QLatin1String("per-user") && simulator != QLatin1String("aggregate")) {
        return keyError(QStringLiteral("mechanism.ldp_simulator"),
                        QStringLiteral("expected aggregate or per-user"));
    }
    s.ldpPerUser = simulator == QLatin1String("per-user");
    DPX_TRY(text(lp, "objective", s.lpObjective));
    if (const QJsonValue v = lp.value(QStringLiteral("constraints")); !v.isUndefined()) {
        if (!v.isArray()) {
            return keyError(QStringLiteral("mechanism.lp.constraints"),
                            QStringLiteral("expected an array of names"));
        }
        s.lpConstraints.clear();
        for (const QJsonValue& c : v.toArray()) {
            if (!c.isString()) {
                return keyError(QStringLiteral("mechanism.lp.constraints"),
                                QStringLiteral("expected an array of names"));
            }
            s.lpConstraints << c.toString();
        }
    }
    DPX_TRY(number(lp, "binomial_p", s.lpBinomialP));
    DPX_TRY(number(lp, "min_diagonal", s.lpMinDiagonal));

    DPX_TRY(boolean(view, "overlay", s.overlay));
    DPX_TRY(boolean(view, "matrix_log", s.matrixLog));
    name = str(scaleName(s.scale));
    DPX_TRY(text(view, "scale", name));
    auto sc = scaleFromName(name.toStdString());
    if (!sc) {
        return keyError(QStringLiteral("view.scale"), QString::fromStdString(sc.error().message));
    }
    s.scale = *sc;
    DPX_TRY(boolean(view, "dark", s.dark));
    DPX_TRY(text(view, "tab", s.tab));

    if (const QJsonValue v = tradeoff.value(QStringLiteral("configs")); !v.isUndefined()) {
        if (!v.isArray()) {
            return keyError(QStringLiteral("tradeoff.configs"),
                            QStringLiteral("expected an array of MECHANISM:ESTIMATOR"));
        }
        s.tradeoffConfigs.clear();
        for (const QJsonValue& c : v.toArray()) {
            if (!c.isString()) {
                return keyError(QStringLiteral("tradeoff.configs"),
                                QStringLiteral("expected an array of MECHANISM:ESTIMATOR"));
            }
            s.tradeoffConfigs << c.toString();
        }
    }
    name = str(metricName(s.tradeoffMetric));
    DPX_TRY(text(tradeoff, "metric", name));
    auto metric = metricFromName(name.toStdString());
    if (!metric) {
        return keyError(QStringLiteral("tradeoff.metric"),
                        QString::fromStdString(metric.error().message));
    }
    s.tradeoffMetric = *metric;
    name = s.tradeoffAgainstPopulation ? QStringLiteral("population") : QStringLiteral("epsilon");
    DPX_TRY(text(tradeoff, "against", name));
    if (name != QLatin1String("epsilon") && name != QLatin1String("population")) {
        return keyError(QStringLiteral("tradeoff.against"),
                        QStringLiteral("expected epsilon or population"));
    }
    s.tradeoffAgainstPopulation = name == QLatin1String("population");
    for (const auto& [key, lo, hi] :
         {std::tuple{"epsilon_range", &s.tradeoffEpsLo, &s.tradeoffEpsHi},
          std::tuple{"population_range", &s.tradeoffPopLo, &s.tradeoffPopHi}}) {
        if (const QJsonValue r = tradeoff.value(QLatin1String(key)); !r.isUndefined()) {
            const QJsonArray a = r.toArray();
            if (!r.isArray() || a.size() != 2 || !a[0].isDouble() || !a[1].isDouble()) {
                return keyError(QStringLiteral("tradeoff.") + QLatin1String(key),
                                QStringLiteral("expected [from, to]"));
            }
            *lo = a[0].toDouble();
            *hi = a[1].toDouble();
        }
    }
    qint64 points = s.tradeoffPoints;
    DPX_TRY(integer(tradeoff, "points", 2, kMaxTradeoffPoints, points));
    s.tradeoffPoints = static_cast<int>(points);

    // One plan (`path`: where it sits, "budget" or "budget.other_datasets[2]"): its dataset,
    // total, composition, rows and ledger.
    auto readBudget = [&](const QJsonObject& o, const QString& path, DatasetBudget& b) -> Status {
        where.emplace_back(&o, path);
        DPX_TRY(text(o, "dataset", b.dataset));
        DPX_TRY(number(o, "epsilon", b.epsilon));
        DPX_TRY(number(o, "delta", b.delta));
        QString comp = b.zcdp ? QStringLiteral("zcdp") : QStringLiteral("basic");
        DPX_TRY(text(o, "composition", comp));
        if (comp != QLatin1String("basic") && comp != QLatin1String("zcdp")) {
            return keyError(path + QStringLiteral(".composition"),
                            QStringLiteral("expected basic or zcdp"));
        }
        b.zcdp = comp == QLatin1String("zcdp");
        DPX_TRY(text(o, "ledger", b.ledger));
        if (const QJsonValue v = o.value(QStringLiteral("statistics")); !v.isUndefined()) {
            const QString list = path + QStringLiteral(".statistics");
            if (!v.isArray()) {
                return keyError(
                    list,
                    QStringLiteral("expected an array of objects, got %1").arg(jsonTypeName(v)));
            }
            const QJsonArray entries = v.toArray();
            for (qsizetype i = 0; i < entries.size(); ++i) {
                const QString at = QStringLiteral("%1[%2]").arg(list).arg(i);
                if (!entries[i].isObject()) {
                    return keyError(
                        at,
                        QStringLiteral("expected an object, got %1").arg(jsonTypeName(entries[i])));
                }
                const QJsonObject ro = entries[i].toObject();
                where.emplace_back(&ro, at);
                BudgetRow r;
                DPX_TRY(text(ro, "column", r.column));
                qint64 rowBins = r.bins;
                DPX_TRY(integer(ro, "bins", 1, 10'000'000, rowBins));
                r.bins = static_cast<int>(rowBins);
                DPX_TRY(text(ro, "mechanism", r.mechanism));
                DPX_TRY(number(ro, "weight", r.weight));
                DPX_TRY(text(ro, "hold", r.hold));
                DPX_TRY(number(ro, "hold_value", r.holdValue));
                where.pop_back();  // the next row may sit at the same address
                b.rows.push_back(r);
            }
        }
        where.pop_back();
        return okStatus();
    };
    {
        DatasetBudget b;
        DPX_TRY(readBudget(budget, QStringLiteral("budget"), b));
        // Sessions written before plans had a dataset: the plan is the session's dataset's.
        s.budgetDataset =
            budget.contains(QStringLiteral("dataset")) ? b.dataset : budgetDatasetKey(s);
        s.budgetEpsilon = b.epsilon;
        s.budgetDelta = b.delta;
        s.budgetZcdp = b.zcdp;
        s.budgetRows = std::move(b.rows);
        s.budgetLedger = b.ledger;
    }
    if (const QJsonValue v = budget.value(QStringLiteral("other_datasets")); !v.isUndefined()) {
        if (!v.isArray()) {
            return keyError(
                QStringLiteral("budget.other_datasets"),
                QStringLiteral("expected an array of objects, got %1").arg(jsonTypeName(v)));
        }
        const QJsonArray plans = v.toArray();
        for (qsizetype i = 0; i < plans.size(); ++i) {
            const QString at = QStringLiteral("budget.other_datasets[%1]").arg(i);
            if (!plans[i].isObject()) {
                return keyError(
                    at, QStringLiteral("expected an object, got %1").arg(jsonTypeName(plans[i])));
            }
            DatasetBudget b;
            const QJsonObject po = plans[i].toObject();
            DPX_TRY(readBudget(po, at, b));
            if (b.dataset.isEmpty()) {
                return keyError(at + QStringLiteral(".dataset"),
                                QStringLiteral("a plan without its dataset"));
            }
            s.budgetOtherPlans.push_back(std::move(b));
        }
    }
#undef DPX_TRY
    if (auto st = s.validate(); !st) {
        return st.error();
    }
    return s;
}

unsigned changesBetween(const ExplorerState& a, const ExplorerState& b) {
    unsigned f = 0;
    if (a.source != b.source || a.exampleId != b.exampleId || a.exampleRows != b.exampleRows ||
        a.csvPath != b.csvPath || a.csvDelimiter != b.csvDelimiter || a.csvHeader != b.csvHeader ||
        a.csvSkipBadRows != b.csvSkipBadRows || a.csvTypes != b.csvTypes ||
        a.sqlitePath != b.sqlitePath || a.pgHost != b.pgHost || a.pgPort != b.pgPort ||
        a.pgDatabase != b.pgDatabase || a.pgUser != b.pgUser || a.pgPassword != b.pgPassword ||
        a.pgConnectTimeout != b.pgConnectTimeout || a.pgStatementTimeout != b.pgStatementTimeout ||
        a.sqlTable != b.sqlTable || a.column != b.column || a.binning != b.binning ||
        a.bins != b.bins || a.rangeLo != b.rangeLo || a.rangeHi != b.rangeHi ||
        a.closedHi != b.closedHi || a.edges != b.edges || a.categories != b.categories ||
        a.unknownCategory != b.unknownCategory || a.idColumn != b.idColumn || a.cap != b.cap ||
        a.neighbouring != b.neighbouring) {
        f |= DataChanged;
    }
    if (a.mechanism != b.mechanism || a.epsilon != b.epsilon || a.delta != b.delta ||
        a.calibration != b.calibration || a.countN != b.countN || a.ldpBits != b.ldpBits ||
        a.ldpPerUser != b.ldpPerUser || a.lpObjective != b.lpObjective ||
        a.lpConstraints != b.lpConstraints || a.lpBinomialP != b.lpBinomialP ||
        a.lpMinDiagonal != b.lpMinDiagonal) {
        f |= MechanismChanged;
    }
    if (a.estimator != b.estimator) {
        f |= EstimatorChanged;
    }
    if (a.seed != b.seed) {
        f |= SeedChanged;
    }
    if (a.overlay != b.overlay || a.matrixLog != b.matrixLog || a.scale != b.scale ||
        a.dark != b.dark) {
        f |= ViewChanged;
    }
    if (a.tab != b.tab) {
        f |= TabChanged;
    }
    if (a.tradeoffConfigs != b.tradeoffConfigs || a.tradeoffMetric != b.tradeoffMetric ||
        a.tradeoffAgainstPopulation != b.tradeoffAgainstPopulation ||
        a.tradeoffEpsLo != b.tradeoffEpsLo || a.tradeoffEpsHi != b.tradeoffEpsHi ||
        a.tradeoffPopLo != b.tradeoffPopLo || a.tradeoffPopHi != b.tradeoffPopHi ||
        a.tradeoffPoints != b.tradeoffPoints) {
        f |= TradeoffChanged;
    }
    if (a.budgetEpsilon != b.budgetEpsilon || a.budgetDelta != b.budgetDelta ||
        a.budgetZcdp != b.budgetZcdp || a.budgetRows != b.budgetRows ||
        a.budgetLedger != b.budgetLedger || a.budgetDataset != b.budgetDataset ||
        a.budgetOtherPlans != b.budgetOtherPlans ||
        ((f & DataChanged) != 0 && currentBudget(a) != currentBudget(b))) {
        f |= BudgetChanged;
    }
    return f;
}

QString budgetDatasetKey(const ExplorerState& s) {
    switch (s.source) {
        case SourceKind::Example: {
            const ExampleDataset* ex = findExample(s.exampleId.toStdString());
            const qint64 rows =
                s.exampleRows > 0 ? s.exampleRows : (ex ? static_cast<qint64>(ex->defaultRows) : 0);
            return QStringLiteral("example:%1:%2").arg(s.exampleId).arg(rows);
        }
        case SourceKind::Csv:
            return QStringLiteral("csv:") + s.csvPath;
        case SourceKind::Sqlite:
            return QStringLiteral("sqlite:%1#%2").arg(s.sqlitePath, s.sqlTable);
        case SourceKind::Postgres:
            return QStringLiteral("postgresql://%1@%2:%3/%4#%5")
                .arg(s.pgUser, s.pgHost)
                .arg(s.pgPort)
                .arg(s.pgDatabase, s.sqlTable);
    }
    return {};
}

ExplorerState::DatasetBudget currentBudget(const ExplorerState& s) {
    const QString key = budgetDatasetKey(s);
    if (s.budgetDataset.isEmpty() || s.budgetDataset == key) {
        return {key, s.budgetEpsilon, s.budgetDelta, s.budgetZcdp, s.budgetRows, s.budgetLedger};
    }
    for (const auto& b : s.budgetOtherPlans) {
        if (b.dataset == key) {
            return b;
        }
    }
    ExplorerState::DatasetBudget empty;
    empty.dataset = key;
    return empty;
}

namespace {

// Makes the budget* fields the current dataset's plan: the plan they held goes to the other
// datasets' plans (unless it is empty), the current dataset's comes out of them.
void pinBudget(ExplorerState& s) {
    const QString key = budgetDatasetKey(s);
    if (s.budgetDataset == key) {
        return;
    }
    if (s.budgetDataset.isEmpty()) {
        s.budgetDataset = key;
        return;
    }
    const ExplorerState::DatasetBudget next = currentBudget(s);
    const ExplorerState::DatasetBudget previous{s.budgetDataset, s.budgetEpsilon, s.budgetDelta,
                                                s.budgetZcdp,    s.budgetRows,    s.budgetLedger};
    auto& others = s.budgetOtherPlans;
    std::erase_if(others, [&](const ExplorerState::DatasetBudget& b) {
        return b.dataset == key || b.dataset == previous.dataset;
    });
    ExplorerState::DatasetBudget empty;
    empty.dataset = previous.dataset;
    if (previous != empty) {
        others.push_back(previous);
    }
    while (others.size() > kMaxBudgetPlans) {
        others.erase(others.begin());
    }
    s.budgetDataset = key;
    s.budgetEpsilon = next.epsilon;
    s.budgetDelta = next.delta;
    s.budgetZcdp = next.zcdp;
    s.budgetRows = next.rows;
    s.budgetLedger = next.ledger;
}

}  // namespace

void setBudgetLedger(ExplorerState& s, const QString& ledgerPath) {
    pinBudget(s);
    s.budgetLedger = ledgerPath;
}

BudgetPlan budgetPlanOf(const ExplorerState& state) {
    const ExplorerState::DatasetBudget b = currentBudget(state);
    BudgetPlan p;
    p.total = BudgetTotal{b.epsilon, b.delta};
    p.composition = b.zcdp ? Composition::Zcdp : Composition::Basic;
    for (const ExplorerState::BudgetRow& r : b.rows) {
        PlanStatistic st;
        st.label = r.column.toStdString();
        st.bins = r.bins;
        if (auto m = mechanismFromName(r.mechanism.toStdString())) {
            st.mechanism = *m;
        }
        st.weight = r.weight;
        st.hold.kind = r.hold == QLatin1String("epsilon")    ? HoldKind::Epsilon
                       : r.hold == QLatin1String("accuracy") ? HoldKind::Accuracy
                                                             : HoldKind::None;
        st.hold.value = st.hold.kind == HoldKind::None ? 0 : r.holdValue;
        p.statistics.push_back(st);
    }
    return p;
}

void setBudgetPlan(ExplorerState& s, const BudgetPlan& plan) {
    pinBudget(s);
    s.budgetEpsilon = plan.total.epsilon;
    s.budgetDelta = plan.total.delta;
    s.budgetZcdp = plan.composition == Composition::Zcdp;
    s.budgetRows.clear();
    for (const PlanStatistic& st : plan.statistics) {
        ExplorerState::BudgetRow r;
        r.column = QString::fromStdString(st.label);
        r.bins = static_cast<int>(std::clamp<std::int64_t>(st.bins, 1, 10'000'000));
        r.mechanism = QString::fromLatin1(mechanismName(st.mechanism));
        r.weight = st.weight;
        r.hold = QString::fromLatin1(holdKindName(st.hold.kind));
        r.holdValue = st.hold.kind == HoldKind::None ? 0 : st.hold.value;
        s.budgetRows.push_back(r);
    }
}

}  // namespace dpx::ui
