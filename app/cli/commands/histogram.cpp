#include "app/cli/commands/histogram.h"
#include "app/cli/commands/table_input.h"
#include "app/cli/output.h"

#include "io/release/release_files.h"
#include "io/sources/sql_source.h"

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <ostream>

namespace dpx::cli {

namespace {

bool startsWith(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

Expected<std::int64_t> positive(const std::string& option, const std::string& text) {
    std::int64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 1) {
        return Error{"--" + option + ": '" + text + "' is not a whole number of at least 1"};
    }
    return v;
}

Expected<char> delimiterFrom(const std::string& s) {
    if (s == "tab" || s == "\\t" || s == "\t") {
        return '\t';
    }
    if (s == "," || s == ";" || s == "|" || s == "comma" || s == "semicolon" || s == "pipe") {
        return s == "comma" ? ',' : s == "semicolon" ? ';' : s == "pipe" ? '|' : s[0];
    }
    return Error{"--delimiter: '" + s + "' is not one of , ; | tab"};
}

Expected<data::ValueType> typeFrom(const std::string& s) {
    for (auto t : {data::ValueType::Integer, data::ValueType::Float, data::ValueType::Categorical,
                   data::ValueType::Date}) {
        if (s == data::valueTypeName(t)) {
            return t;
        }
    }
    return Error{"--type: '" + s + "' is not integer, float, categorical or date"};
}

// The options of the joint table (issue #19): --joint, --sparse (flags), --format json|csv.
struct JointOptions {
    bool joint = false;
    bool sparse = false;
    std::string format;  // empty: json
};

// Options of `dpx histogram`; --column, --bins and --type may repeat, --no-header, --joint and
// --sparse take no value.
Expected<HistogramQuery> parseQuery(const std::vector<std::string>& argv, JointOptions& joint) {
    HistogramQuery q;
    std::vector<std::string> columns, specs;
    std::map<std::string, std::string> once;
    std::string capText;
    for (std::size_t i = 2; i < argv.size(); ++i) {
        std::string name = argv[i];
        if (!startsWith(name, "--") || name.size() == 2) {
            return Error{"unexpected argument '" + name + "' (options look like --name value)"};
        }
        name = name.substr(2);
        std::string value;
        bool hasValue = false;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            hasValue = true;
        }
        if (name == "no-header") {
            if (hasValue) {
                return Error{"option --no-header takes no value"};
            }
            q.csv.header = false;
            continue;
        }
        if (name == "joint" || name == "sparse") {
            if (hasValue) {
                return Error{"option --" + name + " takes no value"};
            }
            bool& flag = name == "joint" ? joint.joint : joint.sparse;
            if (flag) {
                return Error{"option --" + name + " given more than once"};
            }
            flag = true;
            continue;
        }
        static const char* const kKnown[] = {"data",
                                             "column",
                                             "bins",
                                             "delimiter",
                                             "on-error",
                                             "id-column",
                                             "cap",
                                             "type",
                                             "threads",
                                             "table",
                                             "max-record-bytes",
                                             "max-fields",
                                             "max-file-bytes",
                                             "format",
                                             "sql-dialect"};
        if (std::find_if(std::begin(kKnown), std::end(kKnown),
                         [&](const char* k) { return name == k; }) == std::end(kKnown)) {
            return Error{"unknown option --" + name + " for this command"};
        }
        if (!hasValue) {
            if (i + 1 >= argv.size()) {
                return Error{"option --" + name + " needs a value"};
            }
            value = argv[++i];
        }
        if (name == "column") {
            columns.push_back(value);
        } else if (name == "bins") {
            specs.push_back(value);
        } else if (name == "type") {
            const auto eq = value.rfind('=');
            if (eq == std::string::npos || eq == 0) {
                return Error{"--type: expected COLUMN=integer|float|categorical|date, got '" +
                             value + "'"};
            }
            auto t = typeFrom(value.substr(eq + 1));
            if (!t) {
                return t.error();
            }
            q.csv.types.emplace_back(value.substr(0, eq), *t);
        } else if (!once.emplace(name, value).second) {
            return Error{"option --" + name + " given more than once"};
        }
    }
    if (once.count("format")) {
        joint.format = once["format"];
        if (!joint.joint) {
            return Error{"--format goes with --joint (the table of several columns)"};
        }
        if (joint.format != "json" && joint.format != "csv") {
            return Error{"--format: '" + joint.format + "' is not json or csv"};
        }
    }
    if (joint.sparse && !joint.joint) {
        return Error{"--sparse goes with --joint (the table of several columns)"};
    }
    if (!once.count("data")) {
        return Error{"--data is required (a CSV/TSV file, sqlite:PATH or postgresql://...)"};
    }
    q.data = once["data"];
    q.table = once.count("table") ? once["table"] : std::string();
    if (columns.empty()) {
        return Error{"--column is required (one or more)"};
    }
    if (specs.empty()) {
        return Error{
            "--bins is required (LO:HI:COUNT, edges:E1,E2,..., integers:LO:HI, "
            "categories:A,B,... or categories)"};
    }
    if (joint.joint && specs.size() != columns.size()) {
        return Error{"--joint needs one --bins per --column, in the same order (" +
                     std::to_string(columns.size()) + " columns, " + std::to_string(specs.size()) +
                     " --bins)"};
    }
    if (specs.size() != 1 && specs.size() != columns.size()) {
        return Error{"give one --bins for all columns or one per --column (" +
                     std::to_string(columns.size()) + " columns, " + std::to_string(specs.size()) +
                     " --bins)"};
    }
    for (std::size_t c = 0; c < columns.size(); ++c) {
        auto b = parseBinSpec(specs.size() == 1 ? specs[0] : specs[c]);
        if (!b) {
            return Error{"--bins: " + b.error().message};
        }
        q.requests.push_back({columns[c], std::move(b).value()});
    }
    if (once.count("sql-dialect")) {
        auto d = data::parseSqlDialect(once["sql-dialect"]);
        if (!d) {
            return Error{"--sql-dialect: " + d.error().message};
        }
        q.dialect = *d;
        q.dialectGiven = true;
    }
    if (once.count("delimiter")) {
        auto d = delimiterFrom(once["delimiter"]);
        if (!d) {
            return d.error();
        }
        q.csv.delimiter = *d;
    }
    if (once.count("on-error")) {
        const std::string& p = once["on-error"];
        if (p != "skip" && p != "stop") {
            return Error{"--on-error: '" + p + "' is not skip or stop"};
        }
        q.csv.onBadRow = p == "skip" ? data::BadRowPolicy::Skip : data::BadRowPolicy::Stop;
    }
    if (once.count("threads")) {
        auto t = positive("threads", once["threads"]);
        if (!t) {
            return t.error();
        }
        q.csv.threads = static_cast<unsigned>(std::min<std::int64_t>(*t, 256));
    }
    // Hard limits of the CSV reader (CsvLimits): a record or a file over them is an error.
    if (once.count("max-record-bytes")) {
        auto v = positive("max-record-bytes", once["max-record-bytes"]);
        if (!v) {
            return v.error();
        }
        q.csv.limits.maxRecordBytes = static_cast<std::size_t>(*v);
    }
    if (once.count("max-fields")) {
        auto v = positive("max-fields", once["max-fields"]);
        if (!v) {
            return v.error();
        }
        q.csv.limits.maxFields = static_cast<std::size_t>(*v);
    }
    if (once.count("max-file-bytes")) {
        auto v = positive("max-file-bytes", once["max-file-bytes"]);
        if (!v) {
            return v.error();
        }
        q.csv.limits.maxFileBytes = static_cast<std::uint64_t>(*v);
    }
    if (once.count("id-column") != once.count("cap")) {
        return Error{"--id-column and --cap go together (rows per person are capped by id)"};
    }
    if (once.count("cap")) {
        auto k = positive("cap", once["cap"]);
        if (!k) {
            return k.error();
        }
        q.cap.idColumn = once["id-column"];
        q.cap.maxRowsPerPerson = *k;
        if (q.cap.idColumn.empty()) {
            return Error{"--id-column: the column name is empty"};
        }
    }
    return q;
}

QJsonObject columnJson(const data::ColumnRequest& rq, const data::SourceHistograms& h,
                       std::size_t index) {
    const BinnedColumn& c = h.columns[index];
    QJsonObject o;
    o[QStringLiteral("column")] = qs(rq.column);
    o[QStringLiteral("bins")] = qs(rq.binning.describe());
    QJsonArray counts;
    for (std::int64_t n : c.histogram.counts()) {
        counts.append(static_cast<qint64>(n));
    }
    o[QStringLiteral("counts")] = counts;
    QJsonArray labels;
    for (const auto& l : c.histogram.labels()) {
        labels.append(qs(l));
    }
    if (c.histogram.hasEdges()) {
        QJsonArray edges;
        for (double e : c.histogram.edges()) {
            edges.append(e);
        }
        o[QStringLiteral("edges")] = edges;
        o[QStringLiteral("labels")] = labels;
    } else {
        o[QStringLiteral("categories")] = labels;
    }
    const BinningReport& r = c.report;
    o[QStringLiteral("counted")] = static_cast<qint64>(r.used);
    o[QStringLiteral("missing")] = static_cast<qint64>(r.missing);
    o[QStringLiteral("clipped")] =
        static_cast<qint64>(r.droppedLow + r.droppedHigh + r.clampedLow + r.clampedHigh);
    o[QStringLiteral("clipped_low")] = static_cast<qint64>(r.droppedLow + r.clampedLow);
    o[QStringLiteral("clipped_high")] = static_cast<qint64>(r.droppedHigh + r.clampedHigh);
    o[QStringLiteral("clipped_counted")] = rq.binning.outOfRange == OutOfRange::Clamp;
    o[QStringLiteral("unknown_categories")] = static_cast<qint64>(r.unknownCategories);
    o[QStringLiteral("other_categories")] = static_cast<qint64>(r.otherCategories);
    // Against every row read: rows skipped as bad or over the cap are in the total (issue #17:
    // "2 of 2 rows counted" when 2 of 4 rows were skipped).
    o[QStringLiteral("report")] = qs(data::describeColumnReport(h, index, rq.column));
    return o;
}

// The summary of a joint table: rows read, counted, dropped per column, cells, occupied cells and
// the sensitivity of the table (a histogram over its cells: one record touches one cell; with a
// cap of K rows per person Δ1 = K and Δ2 ≤ K).
QJsonObject jointSummary(const HistogramQuery& q, const data::SourceTable& t) {
    QJsonObject o;
    o[QStringLiteral("rows")] = static_cast<qint64>(t.rows);
    o[QStringLiteral("counted")] = static_cast<qint64>(t.counted);
    QJsonObject dropped;
    for (std::size_t c = 0; c < q.requests.size() && c < t.reports.size(); ++c) {
        const BinningReport& r = t.reports[c];
        QJsonObject d;
        d[QStringLiteral("missing")] = static_cast<qint64>(r.missing);
        d[QStringLiteral("out_of_range")] = static_cast<qint64>(r.droppedLow + r.droppedHigh);
        d[QStringLiteral("unknown_categories")] = static_cast<qint64>(r.unknownCategories);
        dropped[qs(q.requests[c].column)] = d;
    }
    o[QStringLiteral("dropped")] = dropped;
    QJsonObject skipped;
    for (const auto& [reason, n] : t.skipped) {
        skipped[qs(reason)] = static_cast<qint64>(n);
    }
    o[QStringLiteral("skipped")] = skipped;
    o[QStringLiteral("capped")] = static_cast<qint64>(t.cappedRows);
    o[QStringLiteral("cells")] = cellCountJson(t.table.cellCount());
    o[QStringLiteral("occupied")] = cellCountJson(t.table.occupiedCount());
    const std::int64_t cap = q.cap.enabled() ? q.cap.maxRowsPerPerson : 1;
    auto sens = tableSensitivity(t.table, Neighbouring::AddRemove, {1, cap});
    QJsonObject s;
    if (sens) {
        s[QStringLiteral("l1")] = sens->l1;
        s[QStringLiteral("l2")] = sens->l2;
    }
    s[QStringLiteral("neighbouring")] = QStringLiteral("add-remove");
    s[QStringLiteral("contribution_cap")] = static_cast<qint64>(cap);
    o[QStringLiteral("sensitivity")] = s;
    return o;
}

int printJointTable(const HistogramQuery& q, const JointOptions& joint, std::ostream& out,
                    std::ostream& err) {
    auto t = jointTableFromSource(q);
    if (!t) {
        return fail(err, t.error());
    }
    const ContingencyTable& table = t->table;
    const bool sparse = joint.sparse || !table.isDense();
    if (joint.format == "csv") {
        // One column per attribute (its bin label) and the count; every cell of a dense table in
        // C order, or only the occupied cells (--sparse, and always for a sparse table).
        std::string text;
        for (const Attribute& a : table.attributes()) {
            text += data::neutraliseCsvCell(a.name) + ",";
        }
        text += "count\n";
        auto line = [&](std::uint64_t index, std::int64_t count) {
            const auto c = table.coordinates(index);
            for (std::size_t a = 0; a < c.size(); ++a) {
                text += data::neutraliseCsvCell(
                            table.attribute(a).labels[static_cast<std::size_t>(c[a])]) +
                        ",";
            }
            text += std::to_string(count) + "\n";
        };
        if (sparse) {
            if (!joint.sparse) {
                err << "dpx: note: the table has " << cellCountText(table.cellCount())
                    << " cells; only its occupied cells are written\n";
            }
            table.forEachOccupied(line);
        } else {
            for (std::size_t i = 0; i < table.denseCounts().size(); ++i) {
                line(i, table.denseCounts()[i]);
            }
        }
        out << text;
        err << "dpx: note: " << t->rows << " rows read, " << t->counted << " counted; "
            << cellCountText(table.cellCount()) << " cells, " << table.occupiedCount()
            << " occupied\n";
        return kOk;
    }
    QJsonObject o;
    QJsonArray attributes, shape;
    for (std::size_t a = 0; a < table.attributeCount(); ++a) {
        const Attribute& at = table.attribute(a);
        QJsonObject ao;
        ao[QStringLiteral("name")] = qs(at.name);
        ao[QStringLiteral("bins")] = qs(q.requests[a].binning.describe());
        ao[QStringLiteral("labels")] = toArray(at.labels);
        if (!at.edges.empty()) {
            ao[QStringLiteral("edges")] = toArray(at.edges);
        }
        ao[QStringLiteral("declared")] = at.declared;
        attributes.append(ao);
        shape.append(static_cast<qint64>(at.size()));
    }
    o[QStringLiteral("attributes")] = attributes;
    o[QStringLiteral("shape")] = shape;
    o[QStringLiteral("order")] = QStringLiteral("C");
    if (sparse) {
        QJsonArray cells;
        table.forEachOccupied([&](std::uint64_t i, std::int64_t c) {
            cells.append(QJsonArray{cellCountJson(i), static_cast<qint64>(c)});
        });
        o[QStringLiteral("cells")] = cells;
    } else {
        QJsonArray counts;
        for (std::int64_t c : table.denseCounts()) {
            counts.append(static_cast<qint64>(c));
        }
        o[QStringLiteral("counts")] = counts;
    }
    o[QStringLiteral("summary")] = jointSummary(q, *t);
    printJson(out, o);
    return kOk;
}

}  // namespace

namespace {

// The --table rule of every source: required for a database, refused for a file.
Status tableOptionFits(const HistogramQuery& q) {
    if (data::isSqlUri(q.data) && q.table.empty()) {
        return Error{
            "--table is required for a database source (sqlite:PATH, "
            "postgresql://...)"};
    }
    if (!data::isSqlUri(q.data) && q.dialectGiven) {
        return Error{
            "--sql-dialect applies to database sources (sqlite:PATH, postgresql://..., "
            "odbc:...), not to a CSV file"};
    }
    if (!data::isSqlUri(q.data) && !q.table.empty()) {
        return Error{
            "--table applies to database sources (sqlite:PATH, postgresql://...), not "
            "to a CSV file"};
    }
    return okStatus();
}

// The connection of a database source with the dialect of --sql-dialect (checked against the
// driver: postgresql does not fit a SQLite file, nor sqlite a PostgreSQL server).
Expected<data::SqlConnectionSpec> sqlSpec(const HistogramQuery& q) {
    auto spec = data::parseSqlUri(q.data);
    if (!spec) {
        return spec.error();
    }
    spec->dialect = q.dialect;
    if (auto ok = spec->validate(); !ok) {
        return Error{"--sql-dialect: " + ok.error().message};
    }
    return spec;
}

}  // namespace

Expected<data::SourceHistograms> histogramsFromSource(const HistogramQuery& q) {
    if (auto st = tableOptionFits(q); !st) {
        return st.error();
    }
    if (data::isSqlUri(q.data)) {
        // The counting runs inside the database (io/sources/sql_source.h); the URI may hold a
        // password, so messages name the source by its description, never by the URI. The same
        // bad-value policy as a CSV file (--on-error, default stop).
        if (q.dialectGiven) {
            auto spec = sqlSpec(q);
            if (!spec) {
                return spec.error();
            }
            return data::sqlHistograms(*spec, q.table, q.requests, q.cap, {}, q.csv.onBadRow);
        }
        return data::histogramsFromUri(q.data, q.table, q.requests, q.cap, {}, q.csv.onBadRow);
    }
    return data::csvHistograms(q.data, q.csv, q.requests, q.cap);
}

Expected<data::SourceTable> jointTableFromSource(const HistogramQuery& q) {
    if (auto st = tableOptionFits(q); !st) {
        return st.error();
    }
    if (data::isSqlUri(q.data)) {
        if (q.dialectGiven) {
            auto spec = sqlSpec(q);
            if (!spec) {
                return spec.error();
            }
            return data::sqlJointTable(*spec, q.table, q.requests, q.cap, {}, q.csv.onBadRow);
        }
        return data::jointTableFromUri(q.data, q.table, q.requests, q.cap, {}, q.csv.onBadRow);
    }
    return data::csvJointTable(q.data, q.csv, q.requests, q.cap);
}

int cmdHistogram(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    JointOptions joint;
    auto q = parseQuery(argv, joint);
    if (!q) {
        return fail(err, q.error());
    }
    if (joint.joint) {
        return printJointTable(*q, joint, out, err);
    }
    auto h = histogramsFromSource(*q);
    if (!h) {
        return fail(err, h.error());
    }
    QJsonObject skipped;
    for (const auto& [reason, n] : h->skipped) {
        skipped[qs(reason)] = static_cast<qint64>(n);
    }
    QJsonObject o;
    if (h->columns.size() == 1) {
        o = columnJson(q->requests[0], *h, 0);
    } else {
        QJsonArray cols;
        for (std::size_t c = 0; c < h->columns.size(); ++c) {
            cols.append(columnJson(q->requests[c], *h, c));
        }
        o[QStringLiteral("columns")] = cols;
    }
    o[QStringLiteral("rows")] = static_cast<qint64>(h->rows);
    o[QStringLiteral("skipped")] = skipped;
    o[QStringLiteral("capped")] = static_cast<qint64>(h->cappedRows);
    if (q->cap.enabled()) {
        o[QStringLiteral("cap")] = static_cast<qint64>(q->cap.maxRowsPerPerson);
        o[QStringLiteral("id_column")] = qs(q->cap.idColumn);
    }
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
