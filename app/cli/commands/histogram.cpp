#include "app/cli/commands/histogram.h"
#include "app/cli/output.h"

#include "io/sources/sql_source.h"

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <charconv>
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

// Options of `dpx histogram`; --column, --bins and --type may repeat, --no-header takes no value.
Expected<HistogramQuery> parseQuery(const std::vector<std::string>& argv) {
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
        static const char* const kKnown[] = {
            "data", "column",  "bins",  "delimiter",        "on-error",   "id-column",     "cap",
            "type", "threads", "table", "max-record-bytes", "max-fields", "max-file-bytes"};
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

}  // namespace

Expected<data::SourceHistograms> histogramsFromSource(const HistogramQuery& q) {
    if (data::isSqlUri(q.data)) {
        // The counting runs inside the database (io/sources/sql_source.h); the URI may hold a
        // password, so messages name the source by its description, never by the URI.
        if (q.table.empty()) {
            return Error{
                "--table is required for a database source (sqlite:PATH, "
                "postgresql://...)"};
        }
        // The same bad-value policy as a CSV file (--on-error, default stop).
        return data::histogramsFromUri(q.data, q.table, q.requests, q.cap, {}, q.csv.onBadRow);
    }
    if (!q.table.empty()) {
        return Error{
            "--table applies to database sources (sqlite:PATH, postgresql://...), not "
            "to a CSV file"};
    }
    return data::csvHistograms(q.data, q.csv, q.requests, q.cap);
}

int cmdHistogram(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto q = parseQuery(argv);
    if (!q) {
        return fail(err, q.error());
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
