#include "ui/model/computations.h"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/accuracy/expected_error.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/count/count_analysis.h"
#include "core/histogram/example_datasets.h"
#include "core/ldp/metrics.h"
#include "core/mechanisms/mechanism.h"
#include "core/table/joint_binning.h"
#include "io/sources/csv_reader.h"
#include "io/sources/sql_source.h"

namespace dpx::ui {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString num(double v) {
    return q(formatNumber(v));
}

// The binning a column's choice declares, with [lo, hi] for equal-width and integer bins when no
// range is declared (the data's range). Auto is the caller's business.
Expected<Binning> declaredBinning(const ColumnBinning& c, double lo, double hi, bool dataRange) {
    switch (c.kind) {
        case BinningChoice::EqualWidth: {
            Binning b = Binning::equalWidth(c.bins, lo, hi > lo ? hi : lo + 1, OutOfRange::Drop);
            // The data's maximum must be counted: a range taken from the data is closed.
            b.closedHi = dataRange || c.closedHi;
            return b;
        }
        case BinningChoice::Integer:
            return Binning::integers(std::floor(lo), std::ceil(hi), 1, OutOfRange::Drop);
        case BinningChoice::Categories: {
            if (c.categories.isEmpty()) {
                return Binning::distinctValues(CategoryOrder::Sorted);
            }
            std::vector<std::string> list;
            for (const QString& cat : c.categories) {
                list.push_back(cat.toStdString());
            }
            return Binning::fixedCategories(std::move(list), c.unknownCategory);
        }
        case BinningChoice::Edges:
            return Binning::fromEdges(c.edges, OutOfRange::Drop, c.closedHi);
        case BinningChoice::Auto:
            break;
    }
    return Error{"internal error: no declared binning"};
}

// The binning a column's choice asks for, for this column of an in-memory table (examples);
// `example`: the example's own binning applies to its default column.
Expected<Binning> binningFor(const ColumnBinning& c, const DataColumn& column,
                             const ExampleDataset* example) {
    switch (c.kind) {
        case BinningChoice::Auto:
            if (example && column.name() == example->defaultColumn) {
                return example->defaultBinning;
            }
            return suggestBinning(column);
        case BinningChoice::EqualWidth:
        case BinningChoice::Integer: {
            if (!column.isNumeric()) {
                return Error{"the column '" + column.name() +
                             "' holds text: use categories to bin it"};
            }
            double lo = c.rangeLo;
            double hi = c.rangeHi;
            const bool dataRange = lo == hi;
            if (dataRange) {  // the data's range
                const ColumnProfile p = profileColumn(column);
                if (p.rows == p.missing) {
                    return Error{"the column '" + column.name() + "' has no values"};
                }
                lo = p.min;
                hi = p.max > p.min ? p.max : p.min + 1;
            }
            return declaredBinning(c, lo, hi, dataRange);
        }
        case BinningChoice::Categories:
        case BinningChoice::Edges:
            return declaredBinning(c, 0, 1, false);
    }
    return Error{"unknown binning"};
}

}  // namespace

double quantileOfColumn(const CountMechanism& m, std::size_t j, double p, bool upper) {
    // Smallest i with Σ_{k ≤ i} P[k][j] ≥ p (lower) or largest i with Σ_{k ≥ i} ≥ p (upper).
    const std::size_t size = m.size();
    double c = 0;
    if (!upper) {
        for (std::size_t i = 0; i < size; ++i) {
            c += m.at(i, j);
            if (c >= p) {
                return static_cast<double>(i);
            }
        }
        return static_cast<double>(size - 1);
    }
    for (std::size_t i = size; i-- > 0;) {
        c += m.at(i, j);
        if (c >= p) {
            return static_cast<double>(i);
        }
    }
    return 0;
}

namespace {

Expected<CountMechanism> countMatrix(const ExplorerState& s, int n,
                                     std::optional<CountLpResult>& lp,
                                     const std::stop_token& stop) {
    switch (s.mechanism.kind) {
        case MechanismChoice::CountGeometric:
            return truncatedGeometric(n, s.mechanism.epsilon);
        case MechanismChoice::CountExplicitFair:
            return explicitFair(n, s.mechanism.epsilon);
        case MechanismChoice::CountUniform:
            return uniformMechanism(n);
        case MechanismChoice::CountLaplace:
            return discretizedLaplace(n, s.mechanism.epsilon);
        case MechanismChoice::CountGaussian:
            return discretizedGaussian(n, s.mechanism.epsilon, s.mechanism.delta);
        case MechanismChoice::CountOptimal: {
            auto spec = lpSpecOf(s, n);
            if (!spec) {
                return spec.error();
            }
            auto r = designCountMechanism(*spec, stop);
            if (!r) {
                return r.error();
            }
            lp = *r;
            if (r->status != LpStatus::Optimal) {
                return Error{std::string("the linear program ended with status '") +
                             lpStatusName(r->status) + "'" +
                             (r->status == LpStatus::Infeasible
                                  ? ": no ε-DP mechanism has the requested properties and "
                                    "accuracy floor; relax them or raise ε"
                                  : "")};
            }
            return *r->mechanism;
        }
        default:
            return Error{"not a count mechanism"};
    }
}

}  // namespace

Expected<CountLpSpec> lpSpecOf(const ExplorerState& s, int n) {
    CountLpSpec spec;
    spec.n = n;
    spec.epsilon = s.mechanism.epsilon;
    // The one grammar (core/count/lp_objective.h): an unknown name or l0d:D with D > n is an
    // error, never a silent L0 or a clamp.
    LpObjectiveRules rules;
    rules.n = n;
    auto objective = parseLpObjective(s.mechanism.lp.objective.toStdString(), rules);
    if (!objective) {
        return objective.error();
    }
    applyLpObjective(objective->objective, spec);
    for (const QString& c : s.mechanism.lp.constraints) {
        for (CountProperty p : kAllCountProperties) {
            if (c.compare(QLatin1String(countPropertyName(p)), Qt::CaseInsensitive) == 0) {
                spec.constraints.push_back(p);
            }
        }
    }
    if (s.mechanism.lp.binomialP >= 0) {
        auto w = binomialWeights(n, s.mechanism.lp.binomialP);
        if (!w) {
            return w.error();
        }
        spec.weights = *w;
    }
    spec.minDiagonal = s.mechanism.lp.minDiagonal;
    return spec;
}

bool sameSource(const ExplorerState& a, const ExplorerState& b) {
    // Only examples are tables in memory; external sources are streamed or counted by the database
    // on every load.
    return a.data.source == SourceKind::Example && b.data.source == SourceKind::Example &&
           a.data.exampleId == b.data.exampleId && a.data.exampleRows == b.data.exampleRows;
}

Expected<Sensitivity> cappedSensitivity(std::size_t bins, Neighbouring relation, int cap) {
    return histogramSensitivity(bins, relation, ContributionBound{1, std::max(cap, 1)});
}

namespace {

data::CsvOptions csvOptionsOf(const ExplorerState& s) {
    data::CsvOptions o;
    o.delimiter = csvDelimiterChar(s.data.csvOptions.delimiter);
    o.header = s.data.csvOptions.header;
    o.onBadRow =
        s.data.csvOptions.skipBadRows ? data::BadRowPolicy::Skip : data::BadRowPolicy::Stop;
    for (const QString& t : s.data.csvOptions.types) {
        const qsizetype eq = t.lastIndexOf(QLatin1Char('='));
        const std::string type = t.mid(eq + 1).toStdString();
        for (auto v : {data::ValueType::Integer, data::ValueType::Float,
                       data::ValueType::Categorical, data::ValueType::Date}) {
            if (type == data::valueTypeName(v)) {
                o.types.emplace_back(t.left(eq).toStdString(), v);
            }
        }
    }
    return o;
}

}  // namespace

data::SqlConnectionSpec sqlSpecOf(const ExplorerState& s) {
    data::SqlConnectionSpec spec;
    if (s.data.source == SourceKind::Sqlite) {
        spec.driver = data::SqlDriver::SQLite;
        spec.path = s.data.sqlitePath.toStdString();
        return spec;
    }
    spec.driver = data::SqlDriver::PostgreSQL;
    spec.host = s.data.postgres.host.toStdString();
    spec.port = s.data.postgres.port;
    spec.database = s.data.postgres.database.toStdString();
    spec.user = s.data.postgres.user.toStdString();
    spec.password = s.data.postgres.password.toStdString();
    spec.connectTimeoutSeconds = s.data.postgres.connectTimeout;
    spec.statementTimeoutMs = s.data.postgres.statementTimeout;
    return spec;
}

namespace {

// "2,990 of 3,000 rows counted in a cell. 'age': 10 missing values skipped." Each row not counted
// is reported once, by the first column that dropped it (core/table/joint_binning.h): only the
// columns that dropped rows are named.
QString jointReportText(std::int64_t counted, std::int64_t rows,
                        const std::vector<std::string>& names,
                        const std::vector<BinningReport>& reports) {
    QString text = QObject::tr("%L1 of %L2 rows counted in a cell.").arg(counted).arg(rows);
    for (std::size_t a = 0; a < names.size() && a < reports.size(); ++a) {
        if (reports[a].used < reports[a].rows) {
            text += QStringLiteral(" '%1': %2").arg(q(names[a]), q(reports[a].describe()));
        }
    }
    return text;
}

// The histogram the views draw is the table flattened; a table too large for them keeps only
// the table, with the reason.
Status setJointTable(DatasetResult& r, ContingencyTable table, Neighbouring relation, int cap) {
    auto sens = tableSensitivity(table, relation, ContributionBound{1, std::max(cap, 1)});
    if (!sens) {
        return sens.error();
    }
    r.sensitivity = *sens;
    QStringList texts;
    for (std::size_t a = 0; a < table.attributeCount() && a < r.binnings.size(); ++a) {
        texts << QStringLiteral("%1: %2").arg(q(table.attribute(a).name),
                                              q(r.binnings[a].describe()));
    }
    r.binningText = texts.join(QStringLiteral("; "));
    if (table.isDense() && table.cellCount() <= static_cast<CellCount>(kMaxBins)) {
        auto h = table.toHistogram();
        if (!h) {
            return h.error();
        }
        r.histogram = std::move(*h);
    } else {
        r.histogramWhy = QObject::tr(
                             "The table has %1 cells (%L2 occupied), more than the %L3 bins the "
                             "histogram views draw and release: see it in the Table tab and on the "
                             "Sparse histograms page.")
                             .arg(q(cellCountText(table.cellCount())))
                             .arg(static_cast<qulonglong>(table.occupiedCount()))
                             .arg(static_cast<qlonglong>(kMaxBins));
    }
    r.jointTable = std::make_shared<const ContingencyTable>(std::move(table));
    return okStatus();
}

// A table of one column: its histogram's bins as the one attribute (declared unless the bins
// came from the data).
void setSingleColumnTable(DatasetResult& r) {
    auto t = ContingencyTable::fromHistogram(*r.histogram, r.column.toStdString(),
                                             r.binningText.toStdString(), !r.dataDependent);
    if (!t) {
        r.error = q(t.error().message);
        return;
    }
    r.jointTable = std::make_shared<const ContingencyTable>(std::move(*t));
    if (r.attributeColumns.isEmpty()) {
        r.attributeColumns << r.column;
    }
    if (r.binnings.empty() && r.binning) {
        r.binnings.push_back(*r.binning);
    }
}

QString delimiterText(char d) {
    return d == '\t' ? QObject::tr("tab") : QStringLiteral("'%1'").arg(QLatin1Char(d));
}

DatasetResult loadExternal(const ExplorerState& s, const std::stop_token& stop,
                           const LoadProgress& progress) {
    DatasetResult r;
    r.source = s.data.source;
    const bool csv = s.data.source == SourceKind::Csv;
    data::CsvOptions options;
    data::SqlConnectionSpec spec;
    std::vector<data::ColumnInfo> cols;
    std::string table;
    if (csv) {
        r.sourceTitle = QFileInfo(s.data.csvPath).fileName();
        options = csvOptionsOf(s);
        auto schema = data::inspectCsv(s.data.csvPath.toStdString(), options);
        if (!schema) {
            r.error = q(schema.error().message);
            return r;
        }
        options.delimiter = schema->delimiter;  // the same dialect for the counting pass
        r.description =
            QObject::tr("CSV file %1 · delimiter %2%3 · %4")
                .arg(s.data.csvPath, delimiterText(schema->delimiter),
                     csvDelimiterChar(s.data.csvOptions.delimiter) == 0 ? QObject::tr(" (detected)")
                                                                        : QString(),
                     schema->header ? QObject::tr("header row") : QObject::tr("no header row"));
        cols = schema->columns;
        r.typeOverridden = schema->overridden;
    } else {
        spec = sqlSpecOf(s);
        r.description = q(spec.describe());
        auto tables = data::sqlListTables(spec, stop);
        if (!tables) {
            r.error = q(tables.error().message);
            r.sourceTitle = q(spec.describe());
            return r;
        }
        for (const std::string& t : *tables) {
            r.tables << q(t);
        }
        if (tables->empty()) {
            r.error = QObject::tr("The %1 has no tables.").arg(q(spec.describe()));
            return r;
        }
        table = s.data.sqlTable.isEmpty() ? tables->front() : s.data.sqlTable.toStdString();
        r.sqlTable = q(table);
        r.sourceTitle =
            s.data.source == SourceKind::Sqlite
                ? QStringLiteral("%1 — %2").arg(r.sqlTable, QFileInfo(s.data.sqlitePath).fileName())
                : QStringLiteral("%1 — %2").arg(r.sqlTable, s.data.postgres.database);
        auto c = data::sqlListColumns(spec, table, stop);
        if (!c) {
            r.error = q(c.error().message);
            return r;
        }
        cols = std::move(c).value();
    }
    for (const data::ColumnInfo& c : cols) {
        r.columns << q(c.name);
        r.columnTypes << QString::fromLatin1(data::valueTypeName(c.type));
    }
    r.typeOverridden.resize(cols.size(), false);
    if (cols.empty()) {
        r.error = QObject::tr("The source has no columns.");
        return r;
    }
    // The attributes: each one's column (the first may name none: the source's first column)
    // and the type the reader or the database gives it.
    const std::size_t k = s.data.attributeCount();
    std::vector<std::string> names(k);
    std::vector<data::ValueType> types(k);
    for (std::size_t a = 0; a < k; ++a) {
        const QString& named = s.data.columnOf(a);
        names[a] = named.isEmpty() ? cols.front().name : named.toStdString();
        const auto it = std::find_if(cols.begin(), cols.end(),
                                     [&](const data::ColumnInfo& c) { return c.name == names[a]; });
        if (it == cols.end()) {
            r.error = QObject::tr("There is no column '%1' (columns: %2).")
                          .arg(q(names[a]), r.columns.join(QStringLiteral(", ")));
            return r;
        }
        types[a] = it->type;
        r.attributeColumns << q(names[a]);
    }
    r.column = r.attributeColumns.front();
    data::ContributionCap cap;
    if (!s.data.idColumn.isEmpty()) {
        cap.idColumn = s.data.idColumn.toStdString();
        cap.maxRowsPerPerson = s.data.cap;
        r.cap = s.data.cap;
        r.idColumn = s.data.idColumn;
    }
    const auto badValues =
        s.data.csvOptions.skipBadRows ? data::BadRowPolicy::Skip : data::BadRowPolicy::Stop;
    auto csvProgress = [&progress](double from, double to) {
        ProgressCallback cb;
        if (progress) {
            cb = [&progress, from, to](double f) { progress(from + f * (to - from)); };
        }
        return cb;
    };
    // A note about the bins of attribute `a` taken from the data (named by column when there are
    // several attributes).
    QStringList dataDependentNotes;
    auto noteDataDependent = [&](std::size_t a, const QString& text) {
        r.dataDependent = true;
        dataDependentNotes << (k == 1 ? text : QStringLiteral("'%1': %2").arg(q(names[a]), text));
    };

    // The range, when the bins need one and none is declared: a first pass (CSV: the reader's
    // Binner tracks min/max whatever the bins, all such columns in one pass; SQL: one aggregate
    // query per column).
    std::vector<double> lo(k), hi(k);
    std::vector<bool> needRange(k, false);
    std::vector<data::ColumnRequest> rangeRequests;
    std::vector<std::size_t> rangeOf;
    for (std::size_t a = 0; a < k; ++a) {
        const ColumnBinning& cb = s.data.binningOf(a);
        const bool numeric = types[a] != data::ValueType::Categorical;
        const bool rangeBinning =
            cb.kind == BinningChoice::EqualWidth || cb.kind == BinningChoice::Integer;
        needRange[a] = (cb.kind == BinningChoice::Auto && numeric) ||
                       (rangeBinning && cb.rangeLo == cb.rangeHi);
        lo[a] = cb.rangeLo;
        hi[a] = cb.rangeHi;
        if (needRange[a] && rangeBinning && !numeric) {
            r.error = QObject::tr("The column '%1' holds text (%2): bin it by categories.")
                          .arg(q(names[a]), QString::fromLatin1(data::valueTypeName(types[a])));
            return r;
        }
        if (needRange[a]) {
            rangeRequests.push_back({names[a], Binning::equalWidth(1, 0, 1)});
            rangeOf.push_back(a);
        }
    }
    double passStart = 0;
    if (!rangeRequests.empty()) {
        std::vector<std::int64_t> numbers(k, 0);
        if (csv) {
            auto first = data::csvHistograms(s.data.csvPath.toStdString(), options, rangeRequests,
                                             cap, stop, csvProgress(0, 0.5));
            if (!first) {
                r.error = q(first.error().message);
                return r;
            }
            for (std::size_t i = 0; i < rangeOf.size(); ++i) {
                const BinningReport& rep = first->columns[i].report;
                numbers[rangeOf[i]] = rep.numbers;
                lo[rangeOf[i]] = rep.min;
                hi[rangeOf[i]] = rep.max;
            }
            passStart = 0.5;
        } else {
            for (std::size_t a : rangeOf) {
                auto range = data::sqlColumnRange(spec, table, names[a], stop);
                if (!range) {
                    r.error = q(range.error().message);
                    return r;
                }
                numbers[a] = range->numbers;
                lo[a] = range->min;
                hi[a] = range->max;
            }
        }
        for (std::size_t a : rangeOf) {
            if (numbers[a] == 0) {
                r.error = QObject::tr(
                              "The column '%1' has no numbers to take a range from: declare "
                              "the bins (range, edges or categories).")
                              .arg(q(names[a]));
                return r;
            }
            noteDataDependent(a, QObject::tr("Data-dependent range [%1, %2] (the data's min and "
                                             "max): declare it for a release.")
                                     .arg(num(lo[a]), num(hi[a])));
        }
    }
    std::vector<data::ColumnRequest> requests;
    for (std::size_t a = 0; a < k; ++a) {
        const ColumnBinning& cb = s.data.binningOf(a);
        Expected<Binning> binning = Error{""};
        if (cb.kind == BinningChoice::Auto) {
            if (types[a] == data::ValueType::Categorical) {
                binning = Binning::distinctValues(CategoryOrder::Sorted);
            } else if ((types[a] == data::ValueType::Integer ||
                        types[a] == data::ValueType::Date) &&
                       hi[a] - lo[a] < 200) {
                binning = Binning::integers(std::floor(lo[a]), std::ceil(hi[a]));
            } else {
                Binning b = Binning::equalWidth(cb.bins, lo[a], hi[a] > lo[a] ? hi[a] : lo[a] + 1);
                b.closedHi = true;
                binning = b;
            }
        } else {
            binning = declaredBinning(cb, lo[a], hi[a], needRange[a]);
        }
        if (binning && binning->kind == BinningKind::Categories && binning->categories.empty()) {
            noteDataDependent(a, QObject::tr("Data-dependent categories (the values found in the "
                                             "data): declare the list for a release."));
        }
        if (!binning) {
            r.error = q(binning.error().message);
            return r;
        }
        if (auto ok = binning->validate(); !ok) {
            r.error = q(ok.error().message);
            return r;
        }
        r.binnings.push_back(*binning);
        requests.push_back({names[a], *binning});
    }
    r.dataDependentText = dataDependentNotes.join(QLatin1Char(' '));
    r.binning = r.binnings.front();
    // Rows not counted by reason and rows over the cap, for the panel.
    auto describeSkipped = [&](const std::vector<std::pair<std::string, std::int64_t>>& skipped,
                               std::int64_t capped) {
        r.cappedRows = capped;
        QStringList skippedParts;
        for (const auto& [reason, n] : skipped) {
            r.skipped.emplace_back(q(reason), n);
            skippedParts << QObject::tr("%1: %L2").arg(q(reason)).arg(n);
        }
        if (!skippedParts.isEmpty()) {
            r.skippedText =
                QObject::tr("Rows skipped — %1.").arg(skippedParts.join(QStringLiteral(", ")));
        }
        if (cap.enabled()) {
            r.skippedText += (r.skippedText.isEmpty() ? QString() : QStringLiteral(" ")) +
                             QObject::tr(
                                 "%L1 rows over the cap of %L2 per person (by '%3') "
                                 "dropped.")
                                 .arg(r.cappedRows)
                                 .arg(s.data.cap)
                                 .arg(s.data.idColumn);
        }
    };

    if (k > 1) {
        // The joint table in one pass (CSV) or one GROUP BY (SQL).
        auto joint = csv ? data::csvJointTable(s.data.csvPath.toStdString(), options, requests, cap,
                                               stop, csvProgress(passStart, 1))
                         : data::sqlJointTable(spec, table, requests, cap, stop, badValues);
        if (progress && !csv) {
            progress(1);
        }
        if (!joint) {
            r.error = q(joint.error().message);
            return r;
        }
        r.rows = joint->rows;
        describeSkipped(joint->skipped, joint->cappedRows);
        r.reportText = jointReportText(joint->counted, joint->rows, names, joint->reports);
        if (auto st = setJointTable(r, std::move(joint->table), s.data.neighbouring,
                                    cap.enabled() ? s.data.cap : 1);
            !st) {
            r.error = q(st.error().message);
        }
        return r;
    }

    const std::string& column = names.front();
    const std::vector<data::ColumnRequest> req{{column, r.binnings.front()}};
    auto h = csv ? data::csvHistograms(s.data.csvPath.toStdString(), options, req, cap, stop,
                                       csvProgress(passStart, 1))
                 // The same skip/stop rule as the CSV reader (issue #17 item 11: one rule for
                 // all sources).
                 : data::sqlHistograms(spec, table, req, cap, stop, badValues);
    if (progress && !csv) {
        progress(1);
    }
    if (!h) {
        r.error = q(h.error().message);
        return r;
    }
    BinnedColumn& binned = h->columns.front();
    r.rows = h->rows;
    describeSkipped(h->skipped, h->cappedRows);
    r.binningText = q(r.binnings.front().describe());
    // Counted against every row read, skipped and capped rows included ("2 of 4 rows counted;
    // 2 rows skipped (not a number: 2)"), as dpx histogram reports it.
    r.reportText = q(data::describeColumnReport(*h, 0, column));
    auto sens = cappedSensitivity(binned.histogram.size(), s.data.neighbouring,
                                  cap.enabled() ? s.data.cap : 1);
    if (!sens) {
        r.error = q(sens.error().message);
        return r;
    }
    r.sensitivity = *sens;
    r.histogram = std::move(binned.histogram);
    setSingleColumnTable(r);
    return r;
}

}  // namespace

namespace {

// The joint table of several columns of a built-in example (core/table/joint_binning.h).
DatasetResult loadExampleJoint(const ExplorerState& s, const ExampleDataset& example,
                               const DataTable& table, DatasetResult r) {
    std::vector<ColumnRequest> requests;
    for (std::size_t a = 0; a < s.data.attributeCount(); ++a) {
        std::string column = s.data.columnOf(a).toStdString();
        if (column.empty()) {
            column = example.defaultColumn;
        }
        const DataColumn* col = table.find(column);
        if (!col) {
            r.error = QObject::tr("The dataset has no column '%1' (columns: %2).")
                          .arg(q(column), r.columns.join(QStringLiteral(", ")));
            return r;
        }
        auto binning = binningFor(s.data.binningOf(a), *col, &example);
        if (!binning) {
            r.error = q(binning.error().message);
            return r;
        }
        if (binning->kind == BinningKind::Categories && binning->categories.empty()) {
            r.dataDependent = true;
            r.dataDependentText +=
                (r.dataDependentText.isEmpty() ? QString() : QStringLiteral(" ")) +
                QObject::tr(
                    "'%1': data-dependent categories (the values found in the data): "
                    "declare the list for a release.")
                    .arg(q(column));
        }
        r.attributeColumns << q(column);
        r.binnings.push_back(*binning);
        requests.push_back({column, *binning});
    }
    r.column = r.attributeColumns.front();
    r.binning = r.binnings.front();
    auto joint = binJoint(table, requests);
    if (!joint) {
        r.error = q(joint.error().message);
        return r;
    }
    std::vector<std::string> names;
    for (const ColumnRequest& request : requests) {
        names.push_back(request.column);
    }
    r.reportText = jointReportText(joint->table.total(), r.rows, names, joint->reports);
    if (auto st = setJointTable(r, std::move(joint->table), s.data.neighbouring, 1); !st) {
        r.error = q(st.error().message);
    }
    return r;
}

}  // namespace

DatasetResult loadDataset(const ExplorerState& s, std::shared_ptr<const DataTable> cached,
                          const std::stop_token& stop, const LoadProgress& progress) {
    if (isExternalSource(s.data.source)) {
        return loadExternal(s, stop, progress);
    }
    DatasetResult r;
    const ExampleDataset* example = findExample(s.data.exampleId.toStdString());
    if (!example) {
        r.error = QObject::tr("There is no built-in example called '%1'.").arg(s.data.exampleId);
        return r;
    }
    r.sourceTitle = q(example->title);
    r.description = q(example->description);
    if (!cached) {
        auto t = makeExampleTable(s.data.exampleId.toStdString(), s.data.exampleRows);
        if (!t) {
            r.error = q(t.error().message);
            return r;
        }
        cached = std::make_shared<const DataTable>(std::move(*t));
    }
    if (stop.stop_requested()) {
        r.error = QStringLiteral("cancelled");
        return r;
    }
    r.table = cached;
    r.rows = static_cast<qint64>(cached->rowCount());
    for (const std::string& c : cached->columnNames()) {
        r.columns << q(c);
    }
    if (s.data.attributeCount() > 1) {
        return loadExampleJoint(s, *example, *cached, std::move(r));
    }
    std::string column = s.data.column.toStdString();
    if (column.empty()) {
        column = example->defaultColumn;
    }
    const DataColumn* col = cached->find(column);
    if (!col) {
        r.error = QObject::tr("The dataset has no column '%1' (columns: %2).")
                      .arg(q(column), r.columns.join(QStringLiteral(", ")));
        return r;
    }
    r.column = q(column);
    if (column == example->defaultColumn) {
        r.unit = q(example->unit);
    }
    auto binning = binningFor(s.data.binning, *col, example);
    if (!binning) {
        r.error = q(binning.error().message);
        return r;
    }
    auto binned = binColumn(*col, *binning);
    if (!binned) {
        r.error = q(binned.error().message);
        return r;
    }
    r.binningText = q(binning->describe());
    r.binning = *binning;
    r.reportText = q(binned->report.describe());
    auto sens = histogramSensitivity(binned->histogram.size(), s.data.neighbouring, {});
    if (!sens) {
        r.error = q(sens.error().message);
        return r;
    }
    r.sensitivity = *sens;
    r.histogram = std::move(binned->histogram);
    setSingleColumnTable(r);
    return r;
}

const std::vector<EstimatorKind>& allEstimators() {
    static const std::vector<EstimatorKind> list = {EstimatorKind::Identity, EstimatorKind::Clamp,
                                                    EstimatorKind::Resize,
                                                    EstimatorKind::NoiseFirst};
    return list;
}

const std::vector<Metric>& allMetrics() {
    static const std::vector<Metric> list = {Metric::SSE, Metric::L1, Metric::LInf, Metric::W1};
    return list;
}

Expected<std::vector<double>> localEstimate(EstimatorKind e, std::span<const double> noisy,
                                            double users) {
    if (!(users > 0)) {
        return Error{"no reports"};
    }
    switch (e) {
        case EstimatorKind::Identity:
            return std::vector<double>(noisy.begin(), noisy.end());
        case EstimatorKind::Clamp: {
            std::vector<double> out(noisy.begin(), noisy.end());
            for (double& v : out) {
                v = std::max(v, 0.0);
            }
            return out;
        }
        case EstimatorKind::Resize: {
            std::vector<double> f(noisy.begin(), noisy.end());
            for (double& v : f) {
                v /= users;
            }
            auto p = ldp::postProcessFrequencies(f, ldp::FrequencyPostProcess::Simplex);
            if (!p) {
                return p.error();
            }
            std::vector<double> out = std::move(p).value();
            for (double& v : out) {
                v *= users;
            }
            return out;
        }
        case EstimatorKind::NoiseFirst:
            break;
    }
    return Error{"NoiseFirst does not apply to local protocols"};
}

namespace {

// The local model's release: one report per person (record), simulated; the collector's unbiased
// estimate N·f̂ of the counts with its exact per-bin variance.
Status localRelease(const Histogram& h, const DatasetResult& data, const ExplorerState& s,
                    ReleaseResult& r, const std::stop_token& stop) {
    ldp::ProtocolSpec spec;
    spec.protocol = localProtocolOf(s.mechanism.kind);
    spec.epsilon = s.mechanism.epsilon;
    spec.domain = h.size();
    spec.bits = static_cast<std::size_t>(s.mechanism.ldpBits);
    if (spec.protocol == ldp::Protocol::RR && h.size() != 2) {
        return Error{"Randomized response reports one bit: it needs exactly 2 bins, the data has " +
                     std::to_string(h.size()) + ". Use generalized RR (direct encoding) for more."};
    }
    if (spec.protocol == ldp::Protocol::DBitFlip && spec.bits > h.size()) {
        return Error{"dBitFlip: d = " + std::to_string(spec.bits) +
                     " buckets per user, but there are only " + std::to_string(h.size()) +
                     " bins (d must be at most the number of bins)"};
    }
    if (auto st = spec.validate(); !st) {
        return st;
    }
    const std::int64_t total = h.total();
    if (total <= 0) {
        return Error{
            "No records were counted: the local model needs at least one person's "
            "report."};
    }
    const auto users = static_cast<std::uint64_t>(total);
    Expected<ldp::FrequencyEstimate> est = Error{""};
    if (s.mechanism.ldpPerUser) {
        if (users > kMaxPerUserReports) {
            return Error{"Simulating every report holds one value per person: at most " +
                         groupThousands(static_cast<long long>(kMaxPerUserReports)) +
                         " people (the data has " + groupThousands(static_cast<long long>(users)) +
                         "). Use the aggregate simulator, which has the same distribution."};
        }
        std::vector<std::uint32_t> values;
        values.reserve(users);
        for (std::size_t j = 0; j < h.size(); ++j) {
            values.insert(values.end(), static_cast<std::size_t>(h.counts()[j]),
                          static_cast<std::uint32_t>(j));
        }
        est = ldp::simulatePerUser(spec, values, s.mechanism.seed, 0, stop);
    } else {
        est = ldp::simulateAggregate(spec, h.counts(), s.mechanism.seed, stop);
    }
    if (!est) {
        return est.error();
    }
    if (est->cancelled || stop.stop_requested()) {
        return okStatus();  // r.noisy stays empty: the caller reports the cancellation
    }
    auto constants = ldp::oracleConstants(spec);
    if (!constants) {
        return constants.error();
    }
    const double n = static_cast<double>(users);
    r.local = spec;
    r.localUsers = users;
    r.localPerUser = s.mechanism.ldpPerUser;
    r.noisy.resize(h.size());
    r.localVariance.resize(h.size());
    for (std::size_t j = 0; j < h.size(); ++j) {
        r.noisy[j] = n * est->frequencies[j];
        auto v = ldp::estimatorVariance(spec, users, static_cast<double>(h.counts()[j]) / n);
        if (!v) {
            return v.error();
        }
        r.localVariance[j] = n * n * *v;
        const double half = 1.959963984540054 * std::sqrt(r.localVariance[j]);
        r.bandLo.push_back(r.truth[j] - half);
        r.bandHi.push_back(r.truth[j] + half);
    }
    r.bandText = QObject::tr("95% range of the estimate (normal approximation)");
    // The heatmap lists every report: at most kMaxReportRows rows (GRR over 100 000 bins would be
    // an 80 GB matrix).
    constexpr std::size_t kMaxReportRows = 1024;
    if ((spec.protocol == ldp::Protocol::GRR || spec.protocol == ldp::Protocol::RR) &&
        h.size() > kMaxReportRows) {
        r.reportMatrixWhy = QObject::tr("%L1 reports: the heatmap shows at most %L2")
                                .arg(h.size())
                                .arg(kMaxReportRows);
    } else if (auto m = ldp::reportMatrix(spec)) {
        r.reportMatrix = std::move(m).value();
    } else {
        r.reportMatrixWhy = q(m.error().message);
    }
    QString detail;
    switch (spec.protocol) {
        case ldp::Protocol::OLH:
            detail = QObject::tr("hash range g = %1, p = %2")
                         .arg(constants->hashRange)
                         .arg(num(constants->p));
            break;
        case ldp::Protocol::DBitFlip:
            detail = QObject::tr("d = %1 of %2 buckets per person").arg(spec.bits).arg(h.size());
            break;
        case ldp::Protocol::HRR:
            detail = QObject::tr("Hadamard size %1, ±1 entry kept with p = %2")
                         .arg(ldp::hadamardSize(h.size()))
                         .arg(num(constants->p));
            break;
        default:
            detail = QObject::tr("p = %1, q = %2").arg(num(constants->p), num(constants->q));
            break;
    }
    QString how;
    switch (spec.protocol) {
        case ldp::Protocol::RR:
            how = QObject::tr(
                "Each person keeps their bit with probability p and flips it "
                "otherwise.");
            break;
        case ldp::Protocol::GRR:
            how = QObject::tr(
                      "Each person reports their own value with probability p, else one "
                      "of the other %1 values uniformly (probability q each).")
                      .arg(h.size() - 1);
            break;
        case ldp::Protocol::OUE:
        case ldp::Protocol::SUE:
            how = QObject::tr(
                      "Each person sends a %1-bit vector: their own bit is 1 with "
                      "probability p, every other bit is 1 with probability q.")
                      .arg(h.size());
            break;
        case ldp::Protocol::OLH:
            how = QObject::tr(
                      "Each person draws a hash function h from a universal family onto "
                      "g = %1 values and sends h and generalized RR of h(value) over g "
                      "values.")
                      .arg(constants->hashRange);
            break;
        case ldp::Protocol::HRR:
            how = QObject::tr(
                      "Each person samples a row ℓ of the %1×%1 Hadamard matrix and sends "
                      "ℓ with their value's ±1 entry in that row, kept with probability "
                      "p.")
                      .arg(ldp::hadamardSize(h.size()));
            break;
        case ldp::Protocol::DBitFlip:
            how = QObject::tr(
                      "Each person samples %1 of the %2 buckets and sends one bit for "
                      "each: 1 with probability p if it is their bucket, q otherwise "
                      "(ε/2 per bit, Ding, Kulkarni & Yekhanin 2017, the protocol of seed "
                      "002's experiment; the report as a whole is ε-LDP).")
                      .arg(spec.bits)
                      .arg(h.size());
            break;
    }
    double sse = 0;
    for (double v : r.localVariance) {
        sse += v;
    }
    r.localDetails =
        how + QLatin1Char(' ') +
        QObject::tr(
            "p = %1, q = %2. The collector's estimate of every count is unbiased; its "
            "standard deviation here is %3 to %4 reports per bin (expected SSE %5, "
            "exact).")
            .arg(num(constants->p), num(constants->q),
                 num(std::sqrt(*std::min_element(r.localVariance.begin(), r.localVariance.end()))),
                 num(std::sqrt(*std::max_element(r.localVariance.begin(), r.localVariance.end()))),
                 num(sse));
    r.mechanismTitle = mechanismChoiceTitle(s.mechanism.kind) + QStringLiteral(": ") + detail +
                       QObject::tr(", %L1 reports").arg(users);
    const int rowsPerPerson = data.cap > 1 ? data.cap : 1;
    r.guarantee = QObject::tr(
                      "ε-local DP with ε = %1: each person randomises their own value before it "
                      "leaves their device, so no collector needs to be trusted; the estimated "
                      "histogram is also ε-DP when one person's value is changed (the number of "
                      "people N is not hidden).")
                      .arg(num(s.mechanism.epsilon));
    if (rowsPerPerson > 1) {
        r.warnings << QObject::tr(
                          "Up to %1 rows per person are counted: a person sends up to "
                          "%1 reports, so their protection is %1·ε = %2 in total.")
                          .arg(rowsPerPerson)
                          .arg(num(rowsPerPerson * s.mechanism.epsilon));
    }
    if (est->users != users) {
        return Error{"internal error: the simulation saw a different number of reports"};
    }
    return okStatus();
}

}  // namespace

ReleaseResult computeRelease(const DatasetResult& data, const ExplorerState& s,
                             const std::stop_token& stop) {
    ReleaseResult r;
    if (!data.error.isEmpty() || !data.histogram) {
        r.error = !data.error.isEmpty()          ? data.error
                  : !data.histogramWhy.isEmpty() ? data.histogramWhy
                                                 : QObject::tr("No data.");
        return r;
    }
    if (auto st = s.validate(); !st) {
        r.error = q(st.error().message);
        return r;
    }
    const Histogram& h = *data.histogram;
    r.truth = h.countsAsDouble();
    r.positions = h.positions();
    for (std::size_t i = 0; i < h.size(); ++i) {
        r.labels.push_back(i < h.labels().size() ? q(h.labels()[i])
                                                 : QString::number(static_cast<qulonglong>(i)));
    }
    const std::size_t bins = h.size();
    const auto& ests = allEstimators();
    const auto& mets = allMetrics();
    r.estimatorApplies.assign(ests.size(), true);
    SimulationRng rng(s.mechanism.seed, 0);  // simulation only: not a release

    if (!isCountMechanism(s.mechanism.kind) && !isLocalMechanism(s.mechanism.kind)) {
        MechanismSpec spec;
        spec.kind = s.mechanism.kind == MechanismChoice::Laplace     ? MechanismKind::Laplace
                    : s.mechanism.kind == MechanismChoice::Geometric ? MechanismKind::Geometric
                                                                     : MechanismKind::Gaussian;
        spec.privacy = {s.mechanism.epsilon, usesDelta(s.mechanism.kind) ? s.mechanism.delta : 0};
        spec.calibration = s.mechanism.calibration;
        auto mech = calibrate(spec, data.sensitivity);
        if (!mech) {
            r.error = q(mech.error().message);
            return r;
        }
        r.calibrated = *mech;
        r.mechanismTitle = q(mech->noise.describe()) + QObject::tr(" noise per bin");
        r.guarantee = q(mech->guarantee.sentence);
        for (const auto& w : mech->warnings) {
            r.warnings << q(w);
        }
        const NoiseDistribution& noise = mech->noise;
        r.noiseVariance = noise.variance();
        r.noisy = r.truth;
        for (double& v : r.noisy) {
            v += sampleNoise(noise, rng);
        }
        const double band = noise.absQuantile(0.95);
        for (double t : r.truth) {
            r.bandLo.push_back(t - band);
            r.bandHi.push_back(t + band);
        }
    } else if (isLocalMechanism(s.mechanism.kind)) {
        if (auto st = localRelease(h, data, s, r, stop); !st) {
            r.error = q(st.error().message);
            return r;
        }
        if (r.noisy.empty()) {  // cancelled
            r.error = QStringLiteral("cancelled");
            return r;
        }
        r.estimatorApplies[3] = false;  // NoiseFirst's bucket rule assumes Laplace noise
    } else {
        std::int64_t largest = 0;
        for (std::int64_t c : h.counts()) {
            largest = std::max(largest, c);
        }
        const int n = s.mechanism.countN > 0 ? s.mechanism.countN
                                             : static_cast<int>(std::max<std::int64_t>(largest, 1));
        if (largest > kMaxCountPeople) {
            r.error = QObject::tr(
                          "Count mechanisms work on counts up to %1, but the largest bin "
                          "holds %2. Use fewer rows (or more bins), or a noise-per-bin "
                          "mechanism.")
                          .arg(kMaxCountPeople)
                          .arg(largest);
            return r;
        }
        if (largest > n) {
            r.error = QObject::tr(
                          "The group size n = %1 is smaller than the largest bin count "
                          "(%2): every count must be in 0…n. Raise n or set it to auto.")
                          .arg(n)
                          .arg(largest);
            return r;
        }
        std::optional<CountLpResult> lp;
        auto m = countMatrix(s, n, lp, stop);
        r.lp = lp;
        if (!m) {
            r.error = q(m.error().message);
            return r;
        }
        r.count = true;
        r.matrix = *m;
        r.mechanismTitle = mechanismChoiceTitle(s.mechanism.kind) + QObject::tr(", n = %1").arg(n);
        const double achieved = m->achievedEpsilon();
        r.guarantee = usesDelta(s.mechanism.kind)
                          ? QObject::tr(
                                "(ε, δ)-DP with ε = %1, δ = %2 (Gaussian noise; not pure ε-DP: "
                                "the matrix's own pure level is %3).")
                                .arg(num(s.mechanism.epsilon), num(s.mechanism.delta),
                                     std::isinf(achieved) ? QStringLiteral("∞") : num(achieved))
                      : achieved <= s.mechanism.epsilon * (1 + 1e-12)
                          ? QObject::tr(
                                "ε-DP with ε = %1 for each count (verified: achieved ε "
                                "= %2).")
                                .arg(num(s.mechanism.epsilon), num(achieved))
                          : QObject::tr("NOT ε-DP at ε = %1: the matrix's achieved ε is %2.")
                                .arg(num(s.mechanism.epsilon),
                                     std::isinf(achieved) ? QStringLiteral("∞") : num(achieved));
        auto outputs = sampleOutputs(*m, h.counts(), s.mechanism.seed);
        if (!outputs) {
            r.error = q(outputs.error().message);
            return r;
        }
        r.noisy.assign(outputs->begin(), outputs->end());
        for (std::size_t i = 0; i < bins; ++i) {
            const auto j = static_cast<std::size_t>(h.counts()[i]);
            r.bandLo.push_back(quantileOfColumn(*m, j, 0.025, false));
            r.bandHi.push_back(quantileOfColumn(*m, j, 0.025, true));
        }
        r.estimatorApplies[3] = false;  // NoiseFirst needs a constant per-bin noise variance
    }
    // NoiseFirst's dynamic programme over k-bucket histograms costs about a second per draw at
    // 65 536 bins, so its Monte Carlo (thousands of draws) would never finish: not evaluated.
    const bool noiseFirstTooLarge = bins > kMaxNoiseFirstBins;
    if (noiseFirstTooLarge) {
        r.estimatorApplies[3] = false;
    }

    // Estimates and realized errors of this draw.
    const TruthModel truth{r.truth, r.positions};
    r.estimates.assign(ests.size(), {});
    r.realized.assign(ests.size(), std::vector<double>(mets.size(), std::nan("")));
    r.expected.assign(ests.size(), std::vector<ExpectedCell>(mets.size()));
    for (std::size_t e = 0; e < ests.size(); ++e) {
        if (!r.estimatorApplies[e]) {
            for (auto& c : r.expected[e]) {
                c.why = noiseFirstTooLarge && !r.local && !r.count
                            ? QObject::tr(
                                  "NoiseFirst is not evaluated above %L1 bins (its "
                                  "dynamic programme is too slow for a Monte Carlo)")
                                  .arg(kMaxNoiseFirstBins)
                        : r.local ? QObject::tr(
                                        "NoiseFirst's bucket rule is derived for Laplace "
                                        "noise; local estimates have a different law")
                                  : QObject::tr(
                                        "NoiseFirst assumes the same noise variance in "
                                        "every bin; count mechanisms do not have one");
            }
            continue;
        }
        auto est = r.local ? localEstimate(ests[e], r.noisy, static_cast<double>(r.localUsers))
                           : estimate({ests[e], r.noiseVariance}, r.noisy);
        r.estimates[e] = est ? *est : r.noisy;
        for (std::size_t m = 0; m < mets.size(); ++m) {
            r.realized[e][m] = evaluateMetric({mets[m], s.view.scale}, r.truth, r.estimates[e],
                                              r.positions, truth.total() > 0 ? truth.total() : 1);
        }
    }
    // Exact expected errors where a method exists.
    for (std::size_t e = 0; e < ests.size(); ++e) {
        if (!r.estimatorApplies[e]) {
            continue;
        }
        for (std::size_t m = 0; m < mets.size(); ++m) {
            ExpectedCell& c = r.expected[e][m];
            if (stop.stop_requested()) {
                return r;
            }
            if (r.local) {
                // Unbiased estimates: E[SSE] of the identity is the sum of the variances.
                if (ests[e] == EstimatorKind::Identity && mets[m] == Metric::SSE) {
                    double sum = 0;
                    for (double v : r.localVariance) {
                        sum += v;
                    }
                    if (s.view.scale == Scale::Frequencies) {
                        const double n = static_cast<double>(r.localUsers);
                        sum /= n * n;
                    }
                    c = {sum,  0,    QObject::tr("exact (sum of the estimator's variances)"),
                         true, true, {}};
                } else {
                    c.why = QObject::tr("Monte Carlo");
                }
            } else if (r.calibrated) {
                auto x = exactExpectedError(truth, r.calibrated->noise, {ests[e], r.noiseVariance},
                                            {mets[m], s.view.scale});
                if (x) {
                    c = {x->value, 0, QObject::tr("exact (%1)").arg(q(x->method)), true, true, {}};
                } else {
                    c.why =
                        QObject::tr("no exact method (%1): Monte Carlo").arg(q(x.error().message));
                }
            } else if (ests[e] == EstimatorKind::Identity || ests[e] == EstimatorKind::Clamp) {
                // Outputs are already in 0…n, so clamping changes nothing: per-bin error laws.
                if (mets[m] == Metric::SSE || mets[m] == Metric::L1) {
                    double sum = 0;
                    for (std::int64_t j : h.counts()) {
                        auto d = inputErrorDistribution(*r.matrix, static_cast<std::size_t>(j));
                        sum += mets[m] == Metric::SSE ? d->meanSquare : d->meanAbs;
                    }
                    if (s.view.scale == Scale::Frequencies) {
                        const double t = truth.total() > 0 ? truth.total() : 1;
                        sum /= mets[m] == Metric::SSE ? t * t : t;
                    }
                    c = {sum,  0,    QObject::tr("exact (per-bin error laws of the matrix)"),
                         true, true, {}};
                } else {
                    c.why = QObject::tr("Monte Carlo");
                }
            } else {
                c.why = QObject::tr("Monte Carlo");
            }
        }
    }
    return r;
}

namespace {

// Running sums of every estimator × metric over Monte Carlo trials, the first kKeep values kept
// for the error histogram; finish() turns them into means with 95% half-widths.
struct TrialSums {
    static constexpr std::uint64_t kKeep = 20000;
    std::size_t metrics;
    std::vector<double> sum, sumSq;
    TrialSums(std::size_t estimators, std::size_t metricCount)
        : metrics(metricCount),
          sum(estimators * metricCount, 0),
          sumSq(estimators * metricCount, 0) {}
    void add(MonteCarloErrors& out, std::size_t e, std::size_t m, double v, std::uint64_t trial) {
        sum[e * metrics + m] += v;
        sumSq[e * metrics + m] += v * v;
        if (trial < kKeep) {
            out.samples[e][m].push_back(v);
        }
    }
    void finish(MonteCarloErrors& out, const ReleaseResult& release, std::uint64_t done,
                const QString& method) const {
        out.trials = done;
        for (std::size_t e = 0; e < out.expected.size(); ++e) {
            for (std::size_t m = 0; m < metrics; ++m) {
                ExpectedCell& c = out.expected[e][m];
                if (!release.estimatorApplies[e] || done < 2) {
                    c.why = release.estimatorApplies[e] ? QObject::tr("too few trials")
                                                        : release.expected[e][m].why;
                    continue;
                }
                const double t = static_cast<double>(done);
                const double mean = sum[e * metrics + m] / t;
                const double var =
                    std::max(0.0, (sumSq[e * metrics + m] - t * mean * mean) / (t - 1));
                c = {mean, 1.96 * std::sqrt(var / t), method, false, true, {}};
            }
        }
    }
};

// Local protocols: each trial is one simulated collection (aggregate simulator, exact in
// distribution), seeded per trial, through every estimator and metric.
MonteCarloErrors localMonteCarlo(const ReleaseResult& release, Scale scale, std::uint64_t trials,
                                 std::uint64_t seed, const std::stop_token& stop,
                                 const std::function<void(double)>& progress) {
    MonteCarloErrors out;
    const auto& ests = allEstimators();
    const auto& mets = allMetrics();
    out.expected.assign(ests.size(), std::vector<ExpectedCell>(mets.size()));
    out.samples.assign(ests.size(), std::vector<std::vector<double>>(mets.size()));
    std::vector<std::int64_t> counts;
    for (double t : release.truth) {
        counts.push_back(static_cast<std::int64_t>(t));
    }
    const double n = static_cast<double>(release.localUsers);
    const double total = n > 0 ? n : 1;
    TrialSums sums(ests.size(), mets.size());
    std::vector<double> noisy(counts.size());
    std::uint64_t done = 0;
    for (; done < trials; ++done) {
        if (stop.stop_requested()) {
            out.cancelled = true;
            break;
        }
        auto est = ldp::simulateAggregate(*release.local, counts,
                                          seed ^ (0x9e3779b97f4a7c15ULL * (done + 1)), stop);
        if (!est) {
            out.error = q(est.error().message);
            return out;
        }
        if (est->cancelled) {
            out.cancelled = true;
            break;
        }
        for (std::size_t j = 0; j < counts.size(); ++j) {
            noisy[j] = n * est->frequencies[j];
        }
        for (std::size_t e = 0; e < ests.size(); ++e) {
            if (!release.estimatorApplies[e]) {
                continue;
            }
            auto work = localEstimate(ests[e], noisy, n);
            if (!work) {
                out.error = q(work.error().message);
                return out;
            }
            for (std::size_t m = 0; m < mets.size(); ++m) {
                sums.add(out, e, m,
                         evaluateMetric({mets[m], scale}, release.truth, *work, release.positions,
                                        total),
                         done);
            }
        }
        if (progress && (done % 64 == 0)) {
            progress(static_cast<double>(done) / static_cast<double>(trials));
        }
    }
    sums.finish(out, release, done,
                QObject::tr("Monte Carlo, %L1 simulated collections").arg(done));
    return out;
}

}  // namespace

MonteCarloErrors computeMonteCarlo(const ReleaseResult& release, Scale scale, std::uint64_t trials,
                                   std::uint64_t seed, const std::stop_token& stop,
                                   const std::function<void(double)>& progress) {
    MonteCarloErrors out;
    const auto& ests = allEstimators();
    const auto& mets = allMetrics();
    out.expected.assign(ests.size(), std::vector<ExpectedCell>(mets.size()));
    out.samples.assign(ests.size(), std::vector<std::vector<double>>(mets.size()));
    const TruthModel truth{release.truth, release.positions};
    constexpr std::uint64_t kKeep = TrialSums::kKeep;
    std::vector<MetricSpec> metricSpecs;
    for (Metric m : mets) {
        metricSpecs.push_back({m, scale});
    }
    if (release.calibrated) {
        // Only the estimators that apply (NoiseFirst is left out above kMaxNoiseFirstBins).
        std::vector<EstimatorSpec> specs;
        std::vector<std::size_t> index;  // row of specs → row of ests
        for (std::size_t e = 0; e < ests.size(); ++e) {
            if (release.estimatorApplies[e]) {
                specs.push_back({ests[e], release.noiseVariance});
                index.push_back(e);
            }
        }
        MonteCarloOptions opt;
        opt.trials = trials;
        opt.seed = seed;
        opt.stop = stop;
        opt.keepSamples = kKeep;
        opt.progress = progress;
        auto mc =
            monteCarloExpectedError(truth, release.calibrated->noise, specs, metricSpecs, opt);
        if (!mc) {
            out.error = q(mc.error().message);
            return out;
        }
        out.trials = mc->trials;
        out.cancelled = mc->cancelled;
        for (std::size_t e = 0; e < ests.size(); ++e) {
            if (!release.estimatorApplies[e]) {
                for (std::size_t m = 0; m < mets.size(); ++m) {
                    out.expected[e][m].why = release.expected[e][m].why;
                }
            }
        }
        for (std::size_t k = 0; k < index.size(); ++k) {
            const std::size_t e = index[k];
            for (std::size_t m = 0; m < mets.size(); ++m) {
                const ErrorEstimate& x = mc->values[k][m];
                out.expected[e][m] = {x.value,
                                      1.96 * x.stdError,
                                      QObject::tr("Monte Carlo, %L1 trials").arg(x.trials),
                                      false,
                                      x.trials > 1,
                                      {}};
                if (!mc->samples.empty()) {
                    out.samples[e][m] = std::move(mc->samples[k][m]);
                }
            }
        }
        return out;
    }
    if (release.local) {
        return localMonteCarlo(release, scale, trials, seed, stop, progress);
    }
    if (!release.matrix) {
        out.error = QObject::tr("nothing to simulate");
        return out;
    }
    // Count mechanisms: draw every bin from its column, trial by trial (seeded per trial).
    std::vector<std::int64_t> counts;
    for (double t : release.truth) {
        counts.push_back(static_cast<std::int64_t>(t));
    }
    TrialSums sums(ests.size(), mets.size());
    std::uint64_t done = 0;
    EstimatorWorkspace ws;
    std::vector<double> noisy(counts.size()), work(counts.size());
    const double total = truth.total() > 0 ? truth.total() : 1;
    for (; done < trials; ++done) {
        if (stop.stop_requested()) {
            out.cancelled = true;
            break;
        }
        auto drawn =
            sampleOutputs(*release.matrix, counts, seed ^ (0x9e3779b97f4a7c15ULL * (done + 1)));
        if (!drawn) {
            out.error = q(drawn.error().message);
            return out;
        }
        std::copy(drawn->begin(), drawn->end(), noisy.begin());
        for (std::size_t e = 0; e < ests.size(); ++e) {
            if (!release.estimatorApplies[e]) {
                continue;
            }
            work = noisy;
            if (ests[e] != EstimatorKind::Identity) {
                estimateInPlace({ests[e], 0}, work, ws);
            }
            for (std::size_t m = 0; m < mets.size(); ++m) {
                sums.add(
                    out, e, m,
                    evaluateMetric(metricSpecs[m], release.truth, work, release.positions, total),
                    done);
            }
        }
        if (progress && (done % 256 == 0)) {
            progress(static_cast<double>(done) / static_cast<double>(trials));
        }
    }
    sums.finish(out, release, done, QObject::tr("Monte Carlo, %L1 trials").arg(done));
    return out;
}

}  // namespace dpx::ui
