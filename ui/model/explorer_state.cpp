#include "ui/model/explorer_state.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/algorithms/algorithm.h"
#include "core/base/validation.h"
#include "core/choosing/public_proxy.h"
#include "core/choosing/tradeoff.h"
#include "core/count/lp_objective.h"
#include "core/histogram/example_datasets.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/workload/builtin_shapes.h"

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
    {MechanismChoice::LocalDBitFlip, "local-dbitflip", "dBitFlip (Ding et al. 2017)"},
};

constexpr const char* kBinnings[] = {"auto", "equal-width", "integer", "categories", "edges"};
constexpr const char* kSources[] = {"example", "csv", "sqlite", "postgresql"};
constexpr const char* kUnknown[] = {"drop", "other", "error"};
constexpr const char* kTypes[] = {"integer", "float", "categorical", "date"};

QString str(const char* s) {
    return QString::fromLatin1(s);
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

namespace {

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

// The typed readers of one object of a session, which sits at `path` ("mechanism.lp"; "" for
// the root): a missing key keeps the value given, a value of the wrong type or shape is an error
// naming the whole key ("mechanism.epsilon", not "epsilon", which the budget has too).
class SessionFields {
public:
    SessionFields(const QJsonObject& o, QString path) : o_(o), path_(std::move(path)) {}

    QString key(const char* k) const {
        return path_.isEmpty() ? QString::fromLatin1(k)
                               : path_ + QLatin1Char('.') + QLatin1String(k);
    }
    QJsonValue value(const char* k) const { return o_.value(QLatin1String(k)); }

    Status text(const char* k, QString& out) const {
        const QJsonValue v = value(k);
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isString()) {
            return keyError(key(k),
                            QStringLiteral("expected a string, got %1").arg(jsonTypeName(v)));
        }
        out = v.toString();
        return okStatus();
    }
    Status number(const char* k, double& out) const {
        const QJsonValue v = value(k);
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isDouble() || !std::isfinite(v.toDouble())) {
            return keyError(
                key(k), QStringLiteral("expected a finite number, got %1").arg(jsonTypeName(v)));
        }
        out = v.toDouble();
        return okStatus();
    }
    template <class Int>
    Status integer(const char* k, qint64 lo, qint64 hi, Int& out) const {
        double d = static_cast<double>(out);
        if (auto st = number(k, d); !st) {
            return st;
        }
        if (d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
            return keyError(key(k),
                            QStringLiteral("expected an integer in [%1, %2]").arg(lo).arg(hi));
        }
        out = static_cast<Int>(d);
        return okStatus();
    }
    Status boolean(const char* k, bool& out) const {
        const QJsonValue v = value(k);
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isBool()) {
            return keyError(key(k),
                            QStringLiteral("expected true or false, got %1").arg(jsonTypeName(v)));
        }
        out = v.toBool();
        return okStatus();
    }
    // One of two names for a flag ("skip" / "stop"); anything else is `expected`.
    Status flag(const char* k, const char* whenTrue, const char* whenFalse, const char* expected,
                bool& out) const {
        QString name = QString::fromLatin1(out ? whenTrue : whenFalse);
        if (auto st = text(k, name); !st) {
            return st;
        }
        if (name != QLatin1String(whenTrue) && name != QLatin1String(whenFalse)) {
            return keyError(key(k), QString::fromUtf8(expected));
        }
        out = name == QLatin1String(whenTrue);
        return okStatus();
    }
    // A name read by `parse` (QString -> Expected<T>); `current` names the value kept if absent.
    template <class T, class Parse>
    Status named(const char* k, const char* current, Parse parse, T& out) const {
        QString name = QString::fromLatin1(current);
        if (auto st = text(k, name); !st) {
            return st;
        }
        auto parsed = parse(name);
        if (!parsed) {
            return keyError(key(k), QString::fromStdString(parsed.error().message));
        }
        out = *parsed;
        return okStatus();
    }
    // An array of strings; `expected` is the whole message for anything else (absent: the
    // default message names the type found).
    Status strings(const char* k, QStringList& out, const char* expected = nullptr) const {
        const QJsonValue v = value(k);
        if (v.isUndefined()) {
            return okStatus();
        }
        const auto wrong = [&](const QString& what) {
            return keyError(key(k), expected ? QString::fromUtf8(expected) : what);
        };
        if (!v.isArray()) {
            return wrong(
                QStringLiteral("expected an array of strings, got %1").arg(jsonTypeName(v)));
        }
        out.clear();
        for (const QJsonValue& e : v.toArray()) {
            if (!e.isString()) {
                return wrong(QStringLiteral("expected an array of strings, found %1 in it")
                                 .arg(jsonTypeName(e)));
            }
            out << e.toString();
        }
        return okStatus();
    }
    Status numbers(const char* k, std::vector<double>& out) const {
        const QJsonValue v = value(k);
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isArray()) {
            return keyError(key(k), QStringLiteral("expected an array of numbers"));
        }
        out.clear();
        for (const QJsonValue& e : v.toArray()) {
            if (!e.isDouble()) {
                return keyError(key(k), QStringLiteral("expected an array of numbers"));
            }
            out.push_back(e.toDouble());
        }
        return okStatus();
    }
    // [a, b]; `expected` is "[low, high]" or "[from, to]".
    Status pair(const char* k, const char* expected, double& a, double& b) const {
        const QJsonValue r = value(k);
        if (r.isUndefined()) {
            return okStatus();
        }
        const QJsonArray arr = r.toArray();
        if (!r.isArray() || arr.size() != 2 || !arr[0].isDouble() || !arr[1].isDouble()) {
            return keyError(key(k), QStringLiteral("expected ") + QLatin1String(expected));
        }
        a = arr[0].toDouble();
        b = arr[1].toDouble();
        return okStatus();
    }
    // An object (absent: empty); anything else is an error ("data": [1, 2] must not be ignored).
    Expected<QJsonObject> object(const char* k) const {
        const QJsonValue v = value(k);
        if (v.isUndefined()) {
            return QJsonObject{};
        }
        if (!v.isObject()) {
            return keyError(key(k),
                            QStringLiteral("expected an object, got %1").arg(jsonTypeName(v)));
        }
        return v.toObject();
    }
    // An array of objects read by `read(object, path)` (absent: none).
    template <class T, class Read>
    Status objects(const char* k, Read read, std::vector<T>& out) const {
        const QJsonValue v = value(k);
        if (v.isUndefined()) {
            return okStatus();
        }
        if (!v.isArray()) {
            return keyError(
                key(k),
                QStringLiteral("expected an array of objects, got %1").arg(jsonTypeName(v)));
        }
        const QJsonArray entries = v.toArray();
        for (qsizetype i = 0; i < entries.size(); ++i) {
            const QString at = QStringLiteral("%1[%2]").arg(key(k)).arg(i);
            if (!entries[i].isObject()) {
                return keyError(
                    at, QStringLiteral("expected an object, got %1").arg(jsonTypeName(entries[i])));
            }
            auto item = read(entries[i].toObject(), at);
            if (!item) {
                return item.error();
            }
            out.push_back(std::move(*item));
        }
        return okStatus();
    }

private:
    const QJsonObject& o_;
    QString path_;
};

#define DPX_TRY(expr)                  \
    do {                               \
        if (auto st_ = (expr); !st_) { \
            return st_.error();        \
        }                              \
    } while (false)

Expected<UnknownCategory> unknownCategoryFromId(const QString& id) {
    for (int i = 0; i < 3; ++i) {
        if (id == str(kUnknown[i])) {
            return static_cast<UnknownCategory>(i);
        }
    }
    return Error{"expected drop, other or error"};
}

template <class T, class Parse>
auto viaStd(Parse parse) {
    return [parse](const QString& name) -> Expected<T> { return parse(name.toStdString()); };
}

}  // namespace

// ---- ColumnBinning, ColumnChoice

Status ColumnBinning::validate() const {
    if (bins < 1 || bins > 100000) {
        return Error{"the number of bins must be in [1, 100000], got " + std::to_string(bins)};
    }
    if (!std::isfinite(rangeLo) || !std::isfinite(rangeHi) || rangeLo > rangeHi) {
        return Error{"the bin range must be two finite numbers, low ≤ high"};
    }
    if (kind == BinningChoice::Edges) {
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
    return okStatus();
}

void ColumnBinning::writeJson(QJsonObject& o) const {
    QJsonArray edgeArray;
    for (double e : edges) {
        edgeArray.append(e);
    }
    o.insert(QStringLiteral("binning"), str(binningChoiceId(kind)));
    o.insert(QStringLiteral("bins"), bins);
    o.insert(QStringLiteral("range"), QJsonArray{rangeLo, rangeHi});
    o.insert(QStringLiteral("closed"), closedHi);
    o.insert(QStringLiteral("edges"), edgeArray);
    o.insert(QStringLiteral("categories"), QJsonArray::fromStringList(categories));
    o.insert(QStringLiteral("unknown_category"), str(kUnknown[static_cast<int>(unknownCategory)]));
}

Expected<ColumnBinning> ColumnBinning::fromJson(const QJsonObject& o, const QString& path) {
    const SessionFields f(o, path);
    ColumnBinning b;
    DPX_TRY(f.boolean("closed", b.closedHi));
    DPX_TRY(f.numbers("edges", b.edges));
    DPX_TRY(f.strings("categories", b.categories));
    DPX_TRY(f.named("unknown_category", kUnknown[static_cast<int>(b.unknownCategory)],
                    unknownCategoryFromId, b.unknownCategory));
    DPX_TRY(f.named("binning", binningChoiceId(b.kind), binningChoiceFromId, b.kind));
    DPX_TRY(f.integer("bins", 1, 100000, b.bins));
    DPX_TRY(f.pair("range", "[low, high]", b.rangeLo, b.rangeHi));
    return b;
}

Status ColumnChoice::validate() const {
    if (auto st = binning.validate(); !st) {
        return st;
    }
    if (source.isEmpty()) {
        return Error{"no source"};
    }
    return okStatus();
}

QJsonObject AttributeChoice::toJson() const {
    QJsonObject o{{QStringLiteral("column"), column}};
    binning.writeJson(o);
    return o;
}

Expected<AttributeChoice> AttributeChoice::fromJson(const QJsonObject& o, const QString& path) {
    const SessionFields f(o, path);
    AttributeChoice c;
    DPX_TRY(f.text("column", c.column));
    auto b = ColumnBinning::fromJson(o, path);
    if (!b) {
        return b.error();
    }
    c.binning = std::move(*b);
    return c;
}

QJsonObject ColumnChoice::toJson() const {
    QJsonObject o = AttributeChoice::toJson();
    o.insert(QStringLiteral("source"), source);
    o.insert(QStringLiteral("table"), table);
    return o;
}

Expected<ColumnChoice> ColumnChoice::fromJson(const QJsonObject& o, const QString& path) {
    const SessionFields f(o, path);
    ColumnChoice c;
    DPX_TRY(f.text("source", c.source));
    DPX_TRY(f.text("table", c.table));
    auto a = AttributeChoice::fromJson(o, path);
    if (!a) {
        return a.error();
    }
    static_cast<AttributeChoice&>(c) = std::move(*a);
    return c;
}

// ---- DataChoices

Status CsvImportOptions::validate() const {
    if (!isCsvDelimiterId(delimiter)) {
        return Error{"unknown CSV delimiter '" + delimiter.toStdString() +
                     "' (auto, comma, semicolon, tab, pipe)"};
    }
    for (const QString& t : types) {
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
    return okStatus();
}

QJsonObject CsvImportOptions::toJson() const {
    return QJsonObject{
        {QStringLiteral("delimiter"), delimiter},
        {QStringLiteral("header"), header},
        {QStringLiteral("bad_rows"), skipBadRows ? QStringLiteral("skip") : QStringLiteral("stop")},
        {QStringLiteral("types"), QJsonArray::fromStringList(types)}};
}

Expected<CsvImportOptions> CsvImportOptions::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("data.csv_options"));
    CsvImportOptions c;
    DPX_TRY(f.text("delimiter", c.delimiter));
    DPX_TRY(f.boolean("header", c.header));
    DPX_TRY(f.flag("bad_rows", "skip", "stop", "expected \"skip\" or \"stop\"", c.skipBadRows));
    DPX_TRY(f.strings("types", c.types));
    return c;
}

Status PostgresConnection::validate() const {
    if (port < 1 || port > 65535) {
        return Error{"the PostgreSQL port must be in [1, 65535]"};
    }
    if (connectTimeout < 1 || connectTimeout > 3600) {
        return Error{"the connect timeout must be in [1, 3600] s"};
    }
    if (statementTimeout < 0) {
        return Error{"the statement timeout must be ≥ 0 ms (0: none)"};
    }
    return okStatus();
}

QJsonObject PostgresConnection::toJson() const {
    // No password here, ever: a session file is shared and kept; see ui/panels/pg_dialog.h.
    return QJsonObject{{QStringLiteral("host"), host},
                       {QStringLiteral("port"), port},
                       {QStringLiteral("database"), database},
                       {QStringLiteral("user"), user},
                       {QStringLiteral("connect_timeout"), connectTimeout},
                       {QStringLiteral("statement_timeout"), statementTimeout}};
}

Expected<PostgresConnection> PostgresConnection::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("data.postgresql"));
    PostgresConnection c;
    DPX_TRY(f.text("host", c.host));
    DPX_TRY(f.integer("port", 1, 65535, c.port));
    DPX_TRY(f.text("database", c.database));
    DPX_TRY(f.text("user", c.user));
    DPX_TRY(f.integer("connect_timeout", 1, 3600, c.connectTimeout));
    DPX_TRY(f.integer("statement_timeout", 0, 2147483647, c.statementTimeout));
    return c;
}

Status DataChoices::validate() const {
    if (auto st = binning.validate(); !st) {
        return st;
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
            if (postgres.host.isEmpty() || postgres.database.isEmpty()) {
                return Error{"a PostgreSQL source needs a host and a database"};
            }
            break;
    }
    if (auto st = csvOptions.validate(); !st) {
        return st;
    }
    if (auto st = postgres.validate(); !st) {
        return st;
    }
    if (cap < 1 || cap > 1'000'000) {
        return Error{"the cap must be in [1, 1 000 000] rows per person"};
    }
    if (otherColumns.size() > kMaxColumnChoices) {
        return Error{"at most " + std::to_string(kMaxColumnChoices) +
                     " remembered column binnings are kept"};
    }
    for (const ColumnChoice& c : otherColumns) {
        if (auto st = c.validate(); !st) {
            return Error{"the remembered binning of column '" + c.column.toStdString() + "' of " +
                         c.source.toStdString() + ": " + st.error().message};
        }
    }
    if (attributeCount() > kMaxAttributes) {
        return Error{"a table has at most " + std::to_string(kMaxAttributes) + " attributes, got " +
                     std::to_string(attributeCount())};
    }
    for (std::size_t a = 1; a < attributeCount(); ++a) {
        const QString& name = columnOf(a);
        if (name.isEmpty()) {
            return Error{"attribute " + std::to_string(a + 1) + " names no column"};
        }
        for (std::size_t b = 0; b < a; ++b) {
            if (columnOf(b) == name) {
                return Error{"the column '" + name.toStdString() +
                             "' is chosen twice: a table's attributes are different columns"};
            }
        }
        if (auto st = binningOf(a).validate(); !st) {
            return Error{"the binning of column '" + name.toStdString() +
                         "': " + st.error().message};
        }
    }
    if (exampleRows < 0 || exampleRows > 10'000'000) {
        return Error{"the example's number of rows must be in [0, 10 000 000]"};
    }
    return okStatus();
}

QJsonObject DataChoices::toJson() const {
    QJsonArray others;
    for (const ColumnChoice& c : otherColumns) {
        others.append(c.toJson());
    }
    QJsonObject data{{QStringLiteral("source"), str(sourceKindId(source))},
                     {QStringLiteral("example"), exampleId},
                     {QStringLiteral("example_rows"), exampleRows},
                     {QStringLiteral("csv"), csvPath},
                     {QStringLiteral("csv_options"), csvOptions.toJson()},
                     {QStringLiteral("sqlite"), sqlitePath},
                     {QStringLiteral("postgresql"), postgres.toJson()},
                     {QStringLiteral("table"), sqlTable},
                     {QStringLiteral("column"), column},
                     {QStringLiteral("id_column"), idColumn},
                     {QStringLiteral("cap"), cap},
                     {QStringLiteral("neighbouring"), str(neighbouringName(neighbouring))},
                     {QStringLiteral("other_columns"), others}};
    binning.writeJson(data);
    // Only tables of several attributes have the key: a session of one column is written exactly
    // as before (tests/ui/model/tst_session_compat).
    if (!moreColumns.empty()) {
        QJsonArray more;
        for (const AttributeChoice& a : moreColumns) {
            more.append(a.toJson());
        }
        data.insert(QStringLiteral("more_columns"), more);
    }
    return data;
}

Expected<DataChoices> DataChoices::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("data"));
    auto csvObject = f.object("csv_options");
    if (!csvObject) {
        return csvObject.error();
    }
    auto pgObject = f.object("postgresql");
    if (!pgObject) {
        return pgObject.error();
    }
    DataChoices d;
    DPX_TRY(f.text("example", d.exampleId));
    DPX_TRY(f.integer("example_rows", 0, 10'000'000, d.exampleRows));
    DPX_TRY(f.text("csv", d.csvPath));
    // Sessions from before issue #5 have no "source": a CSV path means a CSV file.
    DPX_TRY(f.named("source", d.csvPath.isEmpty() ? "example" : "csv", sourceKindFromId, d.source));
    auto csv = CsvImportOptions::fromJson(*csvObject);
    if (!csv) {
        return csv.error();
    }
    d.csvOptions = std::move(*csv);
    DPX_TRY(f.text("sqlite", d.sqlitePath));
    auto pg = PostgresConnection::fromJson(*pgObject);
    if (!pg) {
        return pg.error();
    }
    d.postgres = std::move(*pg);
    DPX_TRY(f.text("table", d.sqlTable));
    auto binning = ColumnBinning::fromJson(o, QStringLiteral("data"));
    if (!binning) {
        return binning.error();
    }
    d.binning = std::move(*binning);
    DPX_TRY(f.text("id_column", d.idColumn));
    DPX_TRY(f.integer("cap", 1, 1'000'000, d.cap));
    DPX_TRY(f.text("column", d.column));
    DPX_TRY(f.named("neighbouring", neighbouringName(d.neighbouring),
                    viaStd<Neighbouring>(neighbouringFromName), d.neighbouring));
    // The binnings remembered for other columns (sessions from before they were kept have none).
    DPX_TRY(f.objects("other_columns", ColumnChoice::fromJson, d.otherColumns));
    // The attributes after the first (absent: a table of one column).
    DPX_TRY(f.objects("more_columns", AttributeChoice::fromJson, d.moreColumns));
    return d;
}

// ---- MechanismChoices

Status LpChoices::validate() const {
    if (!(binomialP < 0 || (binomialP >= 0 && binomialP <= 1))) {
        return Error{"the Binomial prior's p must be in [0, 1]"};
    }
    if (!(minDiagonal >= 0 && minDiagonal <= 1)) {
        return Error{"the minimum diagonal must be in [0, 1]"};
    }
    for (const QString& c : constraints) {
        static const QStringList known = {
            QStringLiteral("rh"), QStringLiteral("rm"), QStringLiteral("ch"), QStringLiteral("cm"),
            QStringLiteral("f"),  QStringLiteral("wh"), QStringLiteral("s")};
        if (!known.contains(c)) {
            return Error{"unknown LP constraint '" + c.toStdString() +
                         "' (known: rh, rm, ch, cm, f, wh, s)"};
        }
    }
    // The one grammar (core/count/lp_objective.h); D ≤ n is checked when n is known.
    if (auto parsed = parseLpObjective(objective.toStdString()); !parsed) {
        return parsed.error();
    }
    return okStatus();
}

QJsonObject LpChoices::toJson() const {
    return QJsonObject{{QStringLiteral("objective"), objective},
                       {QStringLiteral("constraints"), QJsonArray::fromStringList(constraints)},
                       {QStringLiteral("binomial_p"), binomialP},
                       {QStringLiteral("min_diagonal"), minDiagonal}};
}

Expected<LpChoices> LpChoices::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("mechanism.lp"));
    LpChoices lp;
    DPX_TRY(f.text("objective", lp.objective));
    // An old spelling ("l0d3") opens in the canonical one ("l0d:3"); deprecations() says so.
    if (auto parsed = parseLpObjective(lp.objective.toStdString()); parsed && parsed->deprecation) {
        lp.objective = QString::fromStdString(formatLpObjective(parsed->objective));
    }
    DPX_TRY(f.strings("constraints", lp.constraints, "expected an array of names"));
    DPX_TRY(f.number("binomial_p", lp.binomialP));
    DPX_TRY(f.number("min_diagonal", lp.minDiagonal));
    return lp;
}

Status MechanismChoices::validate() const {
    if (!(epsilon >= kMinEpsilon && epsilon <= kMaxEpsilon)) {
        return Error{"ε must be between " + formatNumber(kMinEpsilon) + " and " +
                     formatNumber(kMaxEpsilon) + ", got " + formatNumber(epsilon)};
    }
    if (usesDelta(kind) && !(delta >= kMinDelta && delta <= kMaxDelta)) {
        return Error{"δ must be between " + formatNumber(kMinDelta) + " and " +
                     formatNumber(kMaxDelta) + ", got " + formatNumber(delta)};
    }
    if (countN < 0 || countN > 2000) {
        return Error{"the group size n must be in [0, 2000] (0: the largest bin count)"};
    }
    if (ldpBits < 1 || ldpBits > kMaxLdpBits) {
        return Error{"dBitFlip's d (buckets per user) must be in [1, " +
                     std::to_string(kMaxLdpBits) + "]"};
    }
    return lp.validate();
}

QJsonObject MechanismChoices::toJson() const {
    return QJsonObject{{QStringLiteral("name"), str(mechanismChoiceId(kind))},
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
                       {QStringLiteral("lp"), lp.toJson()}};
}

Expected<MechanismChoices> MechanismChoices::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("mechanism"));
    auto lpObject = f.object("lp");
    if (!lpObject) {
        return lpObject.error();
    }
    MechanismChoices m;
    DPX_TRY(f.named("name", mechanismChoiceId(m.kind), mechanismChoiceFromId, m.kind));
    DPX_TRY(f.number("epsilon", m.epsilon));
    DPX_TRY(f.number("delta", m.delta));
    DPX_TRY(f.named("calibration", gaussianCalibrationName(m.calibration),
                    viaStd<GaussianCalibration>(gaussianCalibrationFromName), m.calibration));
    DPX_TRY(f.named("estimator", estimatorName(m.estimator),
                    viaStd<EstimatorKind>(estimatorFromName), m.estimator));
    if (const QJsonValue v = f.value("seed"); !v.isUndefined()) {
        bool ok = false;
        const quint64 seed = v.toString().toULongLong(&ok);
        if (!v.isString() || !ok) {
            return keyError(f.key("seed"),
                            QStringLiteral("expected an unsigned integer as a string"));
        }
        m.seed = seed;
    }
    DPX_TRY(f.integer("group_size", 0, 2000, m.countN));
    DPX_TRY(f.integer("ldp_bits", 1, kMaxLdpBits, m.ldpBits));
    DPX_TRY(f.flag("ldp_simulator", "per-user", "aggregate", "expected aggregate or per-user",
                   m.ldpPerUser));
    auto lp = LpChoices::fromJson(*lpObject);
    if (!lp) {
        return lp.error();
    }
    m.lp = std::move(*lp);
    return m;
}

// ---- ViewChoices, TradeoffChoices

Status ViewChoices::validate() const {
    static const QStringList tabs = {QStringLiteral("histogram"),
                                     QStringLiteral("matrix"),
                                     QStringLiteral("errors"),
                                     QStringLiteral("risk"),
                                     QStringLiteral("tradeoff"),
                                     QStringLiteral("budget"),
                                     QStringLiteral("ldp-experiment"),
                                     QStringLiteral("ldp-ranges"),
                                     QStringLiteral("ldp-marginals"),
                                     QStringLiteral("ldp-means"),
                                     QStringLiteral("mechanisms"),
                                     QStringLiteral("sparse"),
                                     QStringLiteral("rdp"),
                                     QStringLiteral("select"),
                                     QStringLiteral("vector-mean"),
                                     QStringLiteral("kde"),
                                     QStringLiteral("table"),
                                     QStringLiteral("workbench"),
                                     QStringLiteral("strategy")};
    if (!tabs.contains(tab)) {
        return Error{"unknown tab '" + tab.toStdString() +
                     "' (histogram, matrix, errors, risk, tradeoff, budget, ldp-experiment, "
                     "ldp-ranges, ldp-marginals, ldp-means, mechanisms, sparse, rdp, select, "
                     "vector-mean, kde, table, workbench, strategy)"};
    }
    if (!(intervalLevel > 0 && intervalLevel < 1)) {
        return Error{"the interval level must be strictly between 0 and 1, e.g. 0.95 (got " +
                     formatNumber(intervalLevel) + ")"};
    }
    if (samplePopulation != 0 &&
        !(std::isfinite(samplePopulation) && samplePopulation >= 2 && samplePopulation <= 1e10)) {
        return Error{
            "the population of 'sample of N' must be 0 (not a sample) or a number in "
            "[2, 1e10] (got " +
            formatNumber(samplePopulation) + ")"};
    }
    if (!(std::isfinite(designEffect) && designEffect >= 1 && designEffect <= 1e6)) {
        return Error{
            "the design effect must be a number in [1, 1e6], 1 for a simple random "
            "sample (got " +
            formatNumber(designEffect) + ")"};
    }
    if (samplePopulation != 0 && samplePopulation < 2 * designEffect) {
        return Error{
            "'sample of N' needs N ≥ 2 × the design effect (N = " + formatNumber(samplePopulation) +
            ", design effect " + formatNumber(designEffect) + ")"};
    }
    return okStatus();
}

QJsonObject ViewChoices::toJson() const {
    QJsonObject o{{QStringLiteral("overlay"), overlay},
                  {QStringLiteral("matrix_log"), matrixLog},
                  {QStringLiteral("scale"), str(scaleName(scale))},
                  {QStringLiteral("dark"), dark},
                  {QStringLiteral("tab"), tab}};
    if (intervalLevel != 0.95) {  // older sessions stay byte-identical
        o[QStringLiteral("interval_level")] = intervalLevel;
    }
    if (samplePopulation > 0) {  // issue #22; older sessions stay byte-identical
        o[QStringLiteral("sample_of")] = samplePopulation;
        if (designEffect != 1) {
            o[QStringLiteral("design_effect")] = designEffect;
        }
    }
    return o;
}

Expected<ViewChoices> ViewChoices::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("view"));
    ViewChoices v;
    DPX_TRY(f.boolean("overlay", v.overlay));
    DPX_TRY(f.boolean("matrix_log", v.matrixLog));
    DPX_TRY(f.named("scale", scaleName(v.scale), viaStd<Scale>(scaleFromName), v.scale));
    DPX_TRY(f.boolean("dark", v.dark));
    DPX_TRY(f.text("tab", v.tab));
    DPX_TRY(f.number("interval_level", v.intervalLevel));
    DPX_TRY(f.number("sample_of", v.samplePopulation));
    DPX_TRY(f.number("design_effect", v.designEffect));
    return v;
}

Status TradeoffChoices::validate() const {
    for (const QString& id : configs) {
        if (!isTradeoffConfigId(id)) {
            return Error{"unknown trade-off configuration '" + id.toStdString() +
                         "' (laplace, geometric or gaussian with identity, clamp, resize or "
                         "noisefirst; sparse, gm, em or optimal with identity or resize; rr, "
                         "grr, oue, sue, olh, hrr or dbitflipD with identity, clamp or resize; "
                         "or a workload algorithm algo:ID, e.g. algo:dawa)"};
        }
    }
    if (!(epsLo >= kMinEpsilon && epsLo < epsHi && epsHi <= kMaxEpsilon)) {
        return Error{"the trade-off ε range must satisfy " + formatNumber(kMinEpsilon) +
                     " ≤ from < to ≤ " + formatNumber(kMaxEpsilon) + ", got " +
                     formatNumber(epsLo) + " to " + formatNumber(epsHi)};
    }
    if (!(popLo >= 1 && popLo < popHi && popHi <= kMaxTradeoffPopulation)) {
        return Error{"the trade-off population range must satisfy 1 ≤ from < to ≤ " +
                     formatNumber(kMaxTradeoffPopulation) + ", got " + formatNumber(popLo) +
                     " to " + formatNumber(popHi)};
    }
    if (points < 2 || points > kMaxTradeoffPoints) {
        return Error{"the trade-off curves need 2 to " + std::to_string(kMaxTradeoffPoints) +
                     " points, got " + std::to_string(points)};
    }
    const QString kind = planOn.section(QLatin1Char(':'), 0, 0);
    if (!QStringList{QStringLiteral("confidential"), QStringLiteral("uniform"),
                     QStringLiteral("normal"), QStringLiteral("weights"), QStringLiteral("shape"),
                     QStringLiteral("release")}
             .contains(kind)) {
        return Error{"tradeoff.plan_on: unknown '" + planOn.toStdString() +
                     "' (confidential, uniform, normal:MEAN,SD, weights:W1,..., shape:FILE or "
                     "release:FILE)"};
    }
    if (planPopulation < 0 || planPopulation > kMaxProxyPopulation) {
        return Error{"tradeoff.plan_population: the proxy's population must be in [1, 1e15], got " +
                     std::to_string(planPopulation)};
    }
    return okStatus();
}

QJsonObject TradeoffChoices::toJson() const {
    QJsonObject o{{QStringLiteral("configs"), QJsonArray::fromStringList(configs)},
                  {QStringLiteral("metric"), str(metricName(metric))},
                  {QStringLiteral("against"),
                   againstPopulation ? QStringLiteral("population") : QStringLiteral("epsilon")},
                  {QStringLiteral("epsilon_range"), QJsonArray{epsLo, epsHi}},
                  {QStringLiteral("population_range"), QJsonArray{popLo, popHi}},
                  {QStringLiteral("points"), points}};
    // Issue #22: only when not at their defaults, so older sessions keep their bytes.
    if (planOn != TradeoffChoices{}.planOn) {
        o[QStringLiteral("plan_on")] = planOn;
    }
    if (planPopulation != 0) {
        o[QStringLiteral("plan_population")] = planPopulation;
    }
    return o;
}

Expected<TradeoffChoices> TradeoffChoices::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("tradeoff"));
    TradeoffChoices t;
    DPX_TRY(f.strings("configs", t.configs, "expected an array of MECHANISM:ESTIMATOR"));
    DPX_TRY(f.named("metric", metricName(t.metric), viaStd<Metric>(metricFromName), t.metric));
    DPX_TRY(f.flag("against", "population", "epsilon", "expected epsilon or population",
                   t.againstPopulation));
    DPX_TRY(f.pair("epsilon_range", "[from, to]", t.epsLo, t.epsHi));
    DPX_TRY(f.pair("population_range", "[from, to]", t.popLo, t.popHi));
    DPX_TRY(f.integer("points", 2, kMaxTradeoffPoints, t.points));
    DPX_TRY(f.text("plan_on", t.planOn));
    DPX_TRY(f.integer("plan_population", 0, kMaxProxyPopulation, t.planPopulation));
    return t;
}

// ---- WorkbenchChoices

namespace {

const QStringList kWorkbenchPages = {QStringLiteral("epsilon"), QStringLiteral("scale"),
                                     QStringLiteral("product"), QStringLiteral("output"),
                                     QStringLiteral("numbers")};

bool isWorkbenchDataName(const QString& name) {
    if (name == QLatin1String("table")) {
        return true;
    }
    for (const std::string& shape : builtinShapeNames()) {
        const QString base = QString::fromStdString(shape);
        if (name == base + QStringLiteral("-1d") || name == base + QStringLiteral("-2d")) {
            return true;
        }
    }
    return false;
}

bool isWholeScale(double m) {
    return std::isfinite(m) && m >= 0 && m <= kMaxWorkbenchScale && m == std::floor(m);
}

}  // namespace

Status WorkbenchChoices::validate() const {
    if (!isWorkbenchDataName(data)) {
        QStringList names{QStringLiteral("table")};
        for (const std::string& shape : builtinShapeNames()) {
            names << QString::fromStdString(shape) + QStringLiteral("-1d")
                  << QString::fromStdString(shape) + QStringLiteral("-2d");
        }
        return Error{"workbench.data: unknown data '" + data.toStdString() + "' (" +
                     names.join(QStringLiteral(", ")).toStdString() + ")"};
    }
    if (domain.size() > 2) {
        return Error{"workbench.domain: expected 1 or 2 sizes, got " +
                     std::to_string(domain.size())};
    }
    for (double n : domain) {
        if (!(std::isfinite(n) && n >= 1 && n <= 1e9 && n == std::floor(n))) {
            return Error{"workbench.domain: every size must be a whole number ≥ 1, got " +
                         formatNumber(n)};
        }
    }
    if (scales.empty() || epsilons.empty()) {
        return Error{"workbench: give at least one scale and one ε"};
    }
    for (double m : scales) {
        if (!isWholeScale(m)) {
            return Error{
                "workbench.scales: every scale must be 0 (the data as it is) or a whole "
                "number of records ≤ 10¹², got " +
                formatNumber(m)};
        }
    }
    for (double e : epsilons) {
        if (!(std::isfinite(e) && e > 0)) {
            return Error{"workbench.epsilons: every ε must be a finite number > 0, got " +
                         formatNumber(e)};
        }
    }
    if (workload.trimmed().isEmpty()) {
        return Error{"workbench.workload: empty (range:2000, identity, prefix, allrange, ...)"};
    }
    if (gaussian && !(delta > 0 && delta < 1)) {
        return Error{"workbench.hdmm_delta: Gaussian measurement needs 0 < δ < 1, got δ = " +
                     formatNumber(delta)};
    }
    for (const QString& id : algorithms) {
        if (findAlgorithm(id.toStdString()) == nullptr) {
            return Error{"workbench.algorithms: unknown algorithm '" + id.toStdString() +
                         "' (dpx algorithms lists them)"};
        }
    }
    if (trials < 1 || trials > kMaxWorkbenchTrials) {
        return Error{"workbench.trials: expected 1 to " + std::to_string(kMaxWorkbenchTrials) +
                     ", got " + std::to_string(trials)};
    }
    if (seed < 0 || seed > kMaxWorkbenchSeed) {
        return Error{"workbench.seed: expected 0 to " + std::to_string(kMaxWorkbenchSeed) +
                     ", got " + std::to_string(seed)};
    }
    if (!kWorkbenchPages.contains(page)) {
        return Error{"workbench.page: unknown page '" + page.toStdString() +
                     "' (epsilon, scale, product, output, numbers)"};
    }
    if (!(plotScale == -1 || isWholeScale(plotScale))) {
        return Error{"workbench.plot_scale: expected a scale of the list (0: the data), got " +
                     formatNumber(plotScale)};
    }
    if (!(plotEpsilon == -1 || (std::isfinite(plotEpsilon) && plotEpsilon > 0))) {
        return Error{"workbench.plot_epsilon: expected an ε of the list, got " +
                     formatNumber(plotEpsilon)};
    }
    if (!pointAlgorithm.isEmpty() &&
        (findAlgorithm(pointAlgorithm.toStdString()) == nullptr || !isWholeScale(pointScale) ||
         !(std::isfinite(pointEpsilon) && pointEpsilon > 0))) {
        return Error{
            "workbench.point: expected {algorithm (a known id), m (a scale of the list, "
            "0: the data), epsilon (> 0)}"};
    }
    return okStatus();
}

QJsonObject WorkbenchChoices::toJson() const {
    QJsonArray dom, sc, ep;
    for (double n : domain) {
        dom.append(n);
    }
    for (double m : scales) {
        sc.append(m);
    }
    for (double e : epsilons) {
        ep.append(e);
    }
    QJsonObject o{
        {QStringLiteral("data"), data},
        {QStringLiteral("domain"), dom},
        {QStringLiteral("scales"), sc},
        {QStringLiteral("epsilons"), ep},
        {QStringLiteral("workload"), workload},
        {QStringLiteral("algorithms"), QJsonArray::fromStringList(algorithms)},
        {QStringLiteral("trials"), trials},
        {QStringLiteral("seed"), seed},
        {QStringLiteral("metric"), rmse ? QStringLiteral("rmse") : QStringLiteral("scaled_l2")},
        {QStringLiteral("page"), page},
        {QStringLiteral("plot_scale"), plotScale},
        {QStringLiteral("plot_epsilon"), plotEpsilon}};
    if (gaussian) {
        o[QStringLiteral("hdmm_noise")] = QStringLiteral("gaussian");
        o[QStringLiteral("hdmm_delta")] = delta;
    }
    if (!pointAlgorithm.isEmpty()) {
        o[QStringLiteral("point")] = QJsonObject{{QStringLiteral("algorithm"), pointAlgorithm},
                                                 {QStringLiteral("m"), pointScale},
                                                 {QStringLiteral("epsilon"), pointEpsilon}};
    }
    return o;
}

Expected<WorkbenchChoices> WorkbenchChoices::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("workbench"));
    WorkbenchChoices w;
    DPX_TRY(f.text("data", w.data));
    DPX_TRY(f.numbers("domain", w.domain));
    DPX_TRY(f.numbers("scales", w.scales));
    DPX_TRY(f.numbers("epsilons", w.epsilons));
    DPX_TRY(f.text("workload", w.workload));
    DPX_TRY(f.strings("algorithms", w.algorithms));
    DPX_TRY(f.integer("trials", 1, kMaxWorkbenchTrials, w.trials));
    DPX_TRY(f.integer("seed", 0, kMaxWorkbenchSeed, w.seed));
    DPX_TRY(f.flag("metric", "rmse", "scaled_l2", "expected scaled_l2 or rmse", w.rmse));
    DPX_TRY(
        f.flag("hdmm_noise", "gaussian", "laplace", "expected laplace or gaussian", w.gaussian));
    DPX_TRY(f.number("hdmm_delta", w.delta));
    DPX_TRY(f.text("page", w.page));
    DPX_TRY(f.number("plot_scale", w.plotScale));
    DPX_TRY(f.number("plot_epsilon", w.plotEpsilon));
    auto point = f.object("point");
    if (!point) {
        return point.error();
    }
    if (!point->isEmpty()) {
        const SessionFields pf(*point, QStringLiteral("workbench.point"));
        DPX_TRY(pf.text("algorithm", w.pointAlgorithm));
        DPX_TRY(pf.number("m", w.pointScale));
        DPX_TRY(pf.number("epsilon", w.pointEpsilon));
        if (w.pointAlgorithm.isEmpty()) {
            return keyError(QStringLiteral("workbench.point.algorithm"),
                            QStringLiteral("expected an algorithm id"));
        }
    }
    if (auto st = w.validate(); !st) {
        return st.error();
    }
    return w;
}

// ---- StrategyChoices

Status StrategyChoices::validate() const {
    if (domain != QLatin1String("1d") && domain != QLatin1String("2d") &&
        domain != QLatin1String("table")) {
        return Error{"strategy.domain: expected 1d, 2d or table, got '" + domain.toStdString() +
                     "'"};
    }
    for (const int v : {n, rows, cols}) {
        if (v < 1 || v > kMaxStrategySize) {
            return Error{"strategy: the domain sizes n, rows and cols must be 1 to " +
                         std::to_string(kMaxStrategySize) + ", got " + std::to_string(v)};
        }
    }
    if (workload.trimmed().isEmpty()) {
        return Error{"strategy.workload: empty (allrange, prefix, range:2000, marginals:2, ...)"};
    }
    for (double v : p) {
        if (!(v >= 1 && v <= 1e6 && v == std::floor(v))) {
            return Error{"strategy.p: every p must be a whole number from 1 to 10^6, got " +
                         formatNumber(v)};
        }
    }
    if (restarts < 1 || restarts > 100) {
        return Error{"strategy.restarts: expected 1 to 100, got " + std::to_string(restarts)};
    }
    if (!designTemplateFromName(templ.toStdString())) {
        return Error{"strategy.template: expected auto, pidentity, marginals or union, got '" +
                     templ.toStdString() + "'"};
    }
    if (seed < 0 || seed > kMaxStrategySeed || applySeed < 0 || applySeed > kMaxStrategySeed) {
        return Error{"strategy: seeds must be 0 to " + std::to_string(kMaxStrategySeed)};
    }
    if (!(std::isfinite(epsilon) && epsilon > 0)) {
        return Error{"strategy.epsilon: expected a finite number > 0, got " +
                     formatNumber(epsilon)};
    }
    if (noise != QLatin1String("laplace") && noise != QLatin1String("gaussian")) {
        return Error{"strategy.noise: expected laplace or gaussian, got '" + noise.toStdString() +
                     "'"};
    }
    if (!(delta > 0 && delta < 1)) {
        return Error{"strategy.delta: expected 0 < δ < 1, got " + formatNumber(delta)};
    }
    if (page != QLatin1String("error") && page != QLatin1String("matrices") &&
        page != QLatin1String("apply")) {
        return Error{"strategy.page: expected error, matrices or apply, got '" +
                     page.toStdString() + "'"};
    }
    return okStatus();
}

QJsonObject StrategyChoices::toJson() const {
    QJsonArray pj;
    for (double v : p) {
        pj.append(v);
    }
    return QJsonObject{
        {QStringLiteral("domain"), domain},       {QStringLiteral("n"), n},
        {QStringLiteral("rows"), rows},           {QStringLiteral("cols"), cols},
        {QStringLiteral("workload"), workload},   {QStringLiteral("p"), pj},
        {QStringLiteral("restarts"), restarts},   {QStringLiteral("seed"), seed},
        {QStringLiteral("template"), templ},      {QStringLiteral("epsilon"), epsilon},
        {QStringLiteral("noise"), noise},         {QStringLiteral("delta"), delta},
        {QStringLiteral("page"), page},           {QStringLiteral("nnls"), nnls},
        {QStringLiteral("apply_seed"), applySeed}};
}

Expected<StrategyChoices> StrategyChoices::fromJson(const QJsonObject& o) {
    const SessionFields f(o, QStringLiteral("strategy"));
    StrategyChoices c;
    DPX_TRY(f.text("domain", c.domain));
    DPX_TRY(f.integer("n", 1, kMaxStrategySize, c.n));
    DPX_TRY(f.integer("rows", 1, kMaxStrategySize, c.rows));
    DPX_TRY(f.integer("cols", 1, kMaxStrategySize, c.cols));
    DPX_TRY(f.text("workload", c.workload));
    DPX_TRY(f.numbers("p", c.p));
    DPX_TRY(f.integer("restarts", 1, 100, c.restarts));
    DPX_TRY(f.integer("seed", 0, kMaxStrategySeed, c.seed));
    DPX_TRY(f.text("template", c.templ));
    DPX_TRY(f.number("epsilon", c.epsilon));
    DPX_TRY(f.text("noise", c.noise));
    DPX_TRY(f.number("delta", c.delta));
    DPX_TRY(f.text("page", c.page));
    DPX_TRY(f.boolean("nnls", c.nnls));
    DPX_TRY(f.integer("apply_seed", 0, kMaxStrategySeed, c.applySeed));
    if (auto st = c.validate(); !st) {
        return st.error();
    }
    return c;
}

// ---- BudgetChoices

Status DatasetBudget::validate() const {
    if (!(std::isfinite(epsilon) && epsilon > 0) ||
        !(std::isfinite(delta) && delta >= 0 && delta < 1)) {
        return Error{"the budget total needs ε > 0 and 0 ≤ δ < 1, got ε = " +
                     formatNumber(epsilon) + ", δ = " + formatNumber(delta)};
    }
    for (const BudgetRow& r : rows) {
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
        if (!(r.samplingRate > 0 && r.samplingRate <= 1)) {
            return Error{"budget statistic '" + name + "': the sampling rate must be in (0, 1]"};
        }
    }
    return okStatus();
}

QJsonObject DatasetBudget::toJson() const {
    QJsonArray statistics;
    for (const BudgetRow& r : rows) {
        QJsonObject row{{QStringLiteral("column"), r.column},
                        {QStringLiteral("bins"), r.bins},
                        {QStringLiteral("mechanism"), r.mechanism},
                        {QStringLiteral("weight"), r.weight},
                        {QStringLiteral("hold"), r.hold},
                        {QStringLiteral("hold_value"), r.holdValue}};
        if (r.samplingRate != 1) {
            row[QStringLiteral("sampling_rate")] = r.samplingRate;  // new key: only when sampled
        }
        statistics.append(row);
    }
    return QJsonObject{
        {QStringLiteral("dataset"), dataset},
        {QStringLiteral("epsilon"), epsilon},
        {QStringLiteral("delta"), delta},
        {QStringLiteral("composition"), QString::fromLatin1(compositionName(composition))},
        {QStringLiteral("statistics"), statistics},
        {QStringLiteral("ledger"), ledger}};
}

Expected<DatasetBudget> DatasetBudget::fromJson(const QJsonObject& o, const QString& path) {
    const SessionFields f(o, path);
    DatasetBudget b;
    DPX_TRY(f.text("dataset", b.dataset));
    DPX_TRY(f.number("epsilon", b.epsilon));
    DPX_TRY(f.number("delta", b.delta));
    DPX_TRY(f.named(
        "composition", compositionName(b.composition),
        [](const QString& name) { return compositionFromName(name.toStdString()); },
        b.composition));
    DPX_TRY(f.text("ledger", b.ledger));
    const auto readRow = [](const QJsonObject& ro, const QString& at) -> Expected<BudgetRow> {
        const SessionFields rf(ro, at);
        BudgetRow r;
        DPX_TRY(rf.text("column", r.column));
        DPX_TRY(rf.integer("bins", 1, 10'000'000, r.bins));
        DPX_TRY(rf.text("mechanism", r.mechanism));
        DPX_TRY(rf.number("weight", r.weight));
        DPX_TRY(rf.text("hold", r.hold));
        DPX_TRY(rf.number("hold_value", r.holdValue));
        DPX_TRY(rf.number("sampling_rate", r.samplingRate));
        return r;
    };
    DPX_TRY(f.objects("statistics", readRow, b.rows));
    return b;
}

Status BudgetChoices::validate() const {
    if (auto st = plan.validate(); !st) {
        return st;
    }
    if (otherPlans.size() > kMaxBudgetPlans) {
        return Error{"at most " + std::to_string(kMaxBudgetPlans) +
                     " budget plans of other datasets are kept"};
    }
    for (const DatasetBudget& b : otherPlans) {
        if (auto st = b.validate(); !st) {
            return Error{"the budget plan of " + b.dataset.toStdString() + ": " +
                         st.error().message};
        }
    }
    return okStatus();
}

QJsonObject BudgetChoices::toJson() const {
    QJsonObject budget = plan.toJson();
    QJsonArray others;
    for (const DatasetBudget& b : otherPlans) {
        others.append(b.toJson());
    }
    budget[QStringLiteral("other_datasets")] = others;
    return budget;
}

Expected<BudgetChoices> BudgetChoices::fromJson(const QJsonObject& o,
                                                const QString& sessionDataset) {
    const QString path = QStringLiteral("budget");
    BudgetChoices b;
    auto plan = DatasetBudget::fromJson(o, path);
    if (!plan) {
        return plan.error();
    }
    b.plan = std::move(*plan);
    // Sessions written before plans had a dataset: the plan is the session's dataset's.
    if (!o.contains(QStringLiteral("dataset"))) {
        b.plan.dataset = sessionDataset;
    }
    const auto readOther = [](const QJsonObject& po, const QString& at) -> Expected<DatasetBudget> {
        auto other = DatasetBudget::fromJson(po, at);
        if (other && other->dataset.isEmpty()) {
            return keyError(at + QStringLiteral(".dataset"),
                            QStringLiteral("a plan without its dataset"));
        }
        return other;
    };
    DPX_TRY(SessionFields(o, path).objects("other_datasets", readOther, b.otherPlans));
    return b;
}

// ---- ExplorerState

Status ExplorerState::validate() const {
    for (const Status& st :
         {mechanism.validate(), data.validate(), tradeoff.validate(), budget.validate(),
          view.validate(), workbench.validate(), strategy.validate()}) {
        if (!st) {
            return st;
        }
    }
    return okStatus();
}

QJsonObject ExplorerState::toJson() const {
    QJsonObject o{{QStringLiteral("format"), QStringLiteral("dpexplorer-session")},
                  {QStringLiteral("version"), 1},
                  {QStringLiteral("tradeoff"), tradeoff.toJson()},
                  {QStringLiteral("budget"), budget.toJson()},
                  {QStringLiteral("data"), data.toJson()},
                  {QStringLiteral("mechanism"), mechanism.toJson()},
                  {QStringLiteral("view"), view.toJson()}};
    // Written only when not at its defaults: sessions without it keep their bytes.
    if (workbench != WorkbenchChoices{}) {
        o[QStringLiteral("workbench")] = workbench.toJson();
    }
    if (strategy != StrategyChoices{}) {
        o[QStringLiteral("strategy")] = strategy.toJson();
    }
    return o;
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
    const SessionFields f(root, QString());
    QJsonObject sections[5];
    const char* names[5] = {"data", "mechanism", "view", "tradeoff", "budget"};
    for (int i = 0; i < 5; ++i) {
        auto o = f.object(names[i]);
        if (!o) {
            return o.error();
        }
        sections[i] = std::move(*o);
    }
    ExplorerState s;
    auto data = DataChoices::fromJson(sections[0]);
    if (!data) {
        return data.error();
    }
    s.data = std::move(*data);
    auto mechanism = MechanismChoices::fromJson(sections[1]);
    if (!mechanism) {
        return mechanism.error();
    }
    s.mechanism = std::move(*mechanism);
    auto view = ViewChoices::fromJson(sections[2]);
    if (!view) {
        return view.error();
    }
    s.view = std::move(*view);
    auto tradeoff = TradeoffChoices::fromJson(sections[3]);
    if (!tradeoff) {
        return tradeoff.error();
    }
    s.tradeoff = std::move(*tradeoff);
    auto budget = BudgetChoices::fromJson(sections[4], budgetDatasetKey(s.data));
    if (!budget) {
        return budget.error();
    }
    s.budget = std::move(*budget);
    auto workbenchSection = f.object("workbench");
    if (!workbenchSection) {
        return workbenchSection.error();
    }
    auto workbench = WorkbenchChoices::fromJson(*workbenchSection);
    if (!workbench) {
        return workbench.error();
    }
    s.workbench = std::move(*workbench);
    auto strategySection = f.object("strategy");
    if (!strategySection) {
        return strategySection.error();
    }
    auto strategy = StrategyChoices::fromJson(*strategySection);
    if (!strategy) {
        return strategy.error();
    }
    s.strategy = std::move(*strategy);
    if (auto st = s.validate(); !st) {
        return st.error();
    }
    return s;
}

QStringList ExplorerState::deprecations(const QJsonObject& root) {
    QStringList out;
    const QJsonValue objective = root.value(QStringLiteral("mechanism"))
                                     .toObject()
                                     .value(QStringLiteral("lp"))
                                     .toObject()
                                     .value(QStringLiteral("objective"));
    if (objective.isString()) {
        if (auto parsed = parseLpObjective(objective.toString().toStdString());
            parsed && parsed->deprecation) {
            out << QStringLiteral("mechanism.lp.objective: ") +
                       QString::fromStdString(*parsed->deprecation);
        }
    }
    return out;
}

#undef DPX_TRY

bool isTradeoffConfigId(const QString& id) {
    // A workload algorithm of issue #20 at its default parameters: "algo:dawa".
    if (isAlgorithmConfigName(id.toStdString())) {
        auto c = algorithmConfigFromName(id.toStdString());
        return c && c->algorithmParameters.empty();
    }
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

const QString& DataChoices::columnOf(std::size_t a) const {
    return a == 0 ? column : moreColumns.at(a - 1).column;
}

QString& DataChoices::columnOf(std::size_t a) {
    return a == 0 ? column : moreColumns.at(a - 1).column;
}

const ColumnBinning& DataChoices::binningOf(std::size_t a) const {
    return a == 0 ? binning : moreColumns.at(a - 1).binning;
}

ColumnBinning& DataChoices::binningOf(std::size_t a) {
    return a == 0 ? binning : moreColumns.at(a - 1).binning;
}

void DataChoices::forgetSourceChoices() {
    sqlTable.clear();
    moreColumns.clear();
    column.clear();
    idColumn.clear();
    binning.categories.clear();
    binning.edges.clear();
    binning.kind = BinningChoice::Auto;
    binning.rangeLo = binning.rangeHi = 0;
}

QString dataSourceKey(const DataChoices& d) {
    switch (d.source) {
        case SourceKind::Example:
            return QStringLiteral("example:") + d.exampleId;
        case SourceKind::Csv:
            return QStringLiteral("csv:") + d.csvPath;
        case SourceKind::Sqlite:
            return QStringLiteral("sqlite:") + d.sqlitePath;
        case SourceKind::Postgres:
            return QStringLiteral("postgresql://%1@%2:%3/%4")
                .arg(d.postgres.user, d.postgres.host)
                .arg(d.postgres.port)
                .arg(d.postgres.database);
    }
    return {};
}

namespace {

// A column without a remembered binning: automatic bins (the equal-width count and the closed
// upper end stay as the user's defaults).
void automaticBinning(ColumnBinning& b) {
    b.kind = BinningChoice::Auto;
    b.rangeLo = b.rangeHi = 0;
    b.edges.clear();
    b.categories.clear();
    b.unknownCategory = UnknownCategory::Drop;
}

}  // namespace

void DataChoices::rememberColumnChoice(const QString& columnInForce, std::size_t a) {
    ColumnChoice c;
    c.source = dataSourceKey(*this);
    c.table = sqlTable;
    c.column = columnOf(a).isEmpty() ? columnInForce : columnOf(a);
    c.binning = binningOf(a);
    std::erase_if(otherColumns, [&](const ColumnChoice& o) {
        return o.source == c.source && o.table == c.table && o.column == c.column;
    });
    otherColumns.push_back(std::move(c));
    while (otherColumns.size() > kMaxColumnChoices) {
        otherColumns.erase(otherColumns.begin());
    }
}

bool DataChoices::recallColumnChoice(const QString& next, std::size_t a) {
    const QString key = dataSourceKey(*this);
    for (auto it = otherColumns.rbegin(); it != otherColumns.rend(); ++it) {
        if (it->source == key && it->table == sqlTable && it->column == next) {
            columnOf(a) = it->column;
            binningOf(a) = it->binning;
            otherColumns.erase(std::next(it).base());
            return true;
        }
    }
    columnOf(a) = next;
    automaticBinning(binningOf(a));
    return false;
}

void DataChoices::addAttribute(const QString& next) {
    AttributeChoice added;
    added.binning.bins = binning.bins;  // the user's equal-width default, as for a new column
    moreColumns.push_back(std::move(added));
    recallColumnChoice(next, attributeCount() - 1);
}

bool DataChoices::removeAttribute(std::size_t a, const QString& columnInForce) {
    if (attributeCount() < 2 || a >= attributeCount()) {
        return false;
    }
    rememberColumnChoice(a == 0 ? columnInForce : QString(), a);
    if (a == 0) {
        column = moreColumns.front().column;
        binning = moreColumns.front().binning;
        moreColumns.erase(moreColumns.begin());
    } else {
        moreColumns.erase(moreColumns.begin() + static_cast<std::ptrdiff_t>(a - 1));
    }
    return true;
}

void DataChoices::enterSource(const DataChoices& left, const QString& columnInForce) {
    DataChoices before = left;
    before.otherColumns = otherColumns;
    // The attributes after the first are remembered too; the first last (the newest choice with
    // this source is the one that comes back).
    for (std::size_t a = before.attributeCount(); a-- > 1;) {
        before.rememberColumnChoice({}, a);
    }
    before.rememberColumnChoice(columnInForce);
    otherColumns = std::move(before.otherColumns);
    const QString table = sqlTable;
    const bool sameSource = dataSourceKey(left) == dataSourceKey(*this);
    const QString id = idColumn;
    forgetSourceChoices();
    if (sameSource) {
        idColumn = id;  // the person id column belongs to the source, not to a column
    }
    automaticBinning(binning);
    // The newest choice made with this source (and table, when one is named).
    const QString key = dataSourceKey(*this);
    for (auto it = otherColumns.rbegin(); it != otherColumns.rend(); ++it) {
        if (it->source == key && (table.isEmpty() || it->table == table)) {
            sqlTable = it->table;
            column = it->column;
            binning = it->binning;
            otherColumns.erase(std::next(it).base());
            if (sameSource && sqlTable == left.sqlTable) {
                keepAttributesOf(left);
            }
            return;
        }
    }
    sqlTable = table;
}

void DataChoices::keepAttributesOf(const DataChoices& left) {
    // The same source and table chosen again: its table of several attributes stays as it was.
    moreColumns = left.moreColumns;
    const QString key = dataSourceKey(*this);
    std::erase_if(otherColumns, [&](const ColumnChoice& o) {
        return o.source == key && o.table == sqlTable &&
               std::any_of(moreColumns.begin(), moreColumns.end(),
                           [&](const AttributeChoice& a) { return a.column == o.column; });
    });
}

QStringList ExplorerState::unknownKeys(const QJsonObject& root) {
    QStringList out;
    if (auto s = fromJson(root)) {
        QJsonObject known = s->toJson();
        // The workbench section is left out at its defaults; its keys are known all the same.
        known[QStringLiteral("workbench")] = s->workbench.toJson();
        known[QStringLiteral("strategy")] = s->strategy.toJson();
        collectUnknown(root, known, QString(), out);
    }
    return out;
}

unsigned changesBetween(const ExplorerState& a, const ExplorerState& b) {
    unsigned f = 0;
    // The remembered binnings of other columns change nothing drawn.
    DataChoices dataA = a.data;
    dataA.otherColumns = b.data.otherColumns;
    if (dataA != b.data) {
        f |= DataChanged;
    }
    MechanismChoices mechanismA = a.mechanism;
    mechanismA.estimator = b.mechanism.estimator;
    mechanismA.seed = b.mechanism.seed;
    if (mechanismA != b.mechanism) {
        f |= MechanismChanged;
    }
    if (a.mechanism.estimator != b.mechanism.estimator) {
        f |= EstimatorChanged;
    }
    if (a.mechanism.seed != b.mechanism.seed) {
        f |= SeedChanged;
    }
    ViewChoices viewA = a.view;
    viewA.tab = b.view.tab;
    if (viewA != b.view) {
        f |= ViewChanged;
    }
    if (a.view.tab != b.view.tab) {
        f |= TabChanged;
    }
    if (a.tradeoff != b.tradeoff) {
        f |= TradeoffChanged;
    }
    if (a.workbench != b.workbench) {
        f |= WorkbenchChanged;
    }
    if (a.strategy != b.strategy) {
        f |= StrategyChanged;
    }
    if (a.budget != b.budget || ((f & DataChanged) != 0 && currentBudget(a) != currentBudget(b))) {
        f |= BudgetChanged;
    }
    return f;
}

QString budgetDatasetKey(const DataChoices& d) {
    switch (d.source) {
        case SourceKind::Example: {
            const ExampleDataset* ex = findExample(d.exampleId.toStdString());
            const qint64 rows =
                d.exampleRows > 0 ? d.exampleRows : (ex ? static_cast<qint64>(ex->defaultRows) : 0);
            return QStringLiteral("example:%1:%2").arg(d.exampleId).arg(rows);
        }
        case SourceKind::Csv:
            return QStringLiteral("csv:") + d.csvPath;
        case SourceKind::Sqlite:
            return QStringLiteral("sqlite:%1#%2").arg(d.sqlitePath, d.sqlTable);
        case SourceKind::Postgres:
            return QStringLiteral("postgresql://%1@%2:%3/%4#%5")
                .arg(d.postgres.user, d.postgres.host)
                .arg(d.postgres.port)
                .arg(d.postgres.database, d.sqlTable);
    }
    return {};
}

DatasetBudget currentBudget(const ExplorerState& s) {
    const QString key = budgetDatasetKey(s.data);
    const DatasetBudget& plan = s.budget.plan;
    if (plan.dataset.isEmpty() || plan.dataset == key) {
        DatasetBudget current = plan;
        current.dataset = key;
        return current;
    }
    for (const auto& b : s.budget.otherPlans) {
        if (b.dataset == key) {
            return b;
        }
    }
    DatasetBudget empty;
    empty.dataset = key;
    return empty;
}

namespace {

// Makes s.budget.plan the current dataset's plan: the plan it held goes to the other datasets'
// plans (unless it is empty), the current dataset's comes out of them.
void pinBudget(ExplorerState& s) {
    const QString key = budgetDatasetKey(s.data);
    DatasetBudget& plan = s.budget.plan;
    if (plan.dataset == key) {
        return;
    }
    if (plan.dataset.isEmpty()) {
        plan.dataset = key;
        return;
    }
    DatasetBudget next = currentBudget(s);
    const DatasetBudget previous = plan;
    auto& others = s.budget.otherPlans;
    std::erase_if(others, [&](const DatasetBudget& b) {
        return b.dataset == key || b.dataset == previous.dataset;
    });
    DatasetBudget empty;
    empty.dataset = previous.dataset;
    if (previous != empty) {
        others.push_back(previous);
    }
    while (others.size() > kMaxBudgetPlans) {
        others.erase(others.begin());
    }
    plan = std::move(next);
    plan.dataset = key;
}

}  // namespace

void setBudgetLedger(ExplorerState& s, const QString& ledgerPath) {
    pinBudget(s);
    s.budget.plan.ledger = ledgerPath;
}

BudgetPlan budgetPlanOf(const ExplorerState& state) {
    const DatasetBudget b = currentBudget(state);
    BudgetPlan p;
    p.total = BudgetTotal{b.epsilon, b.delta};
    p.composition = b.composition;
    for (const BudgetRow& r : b.rows) {
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
        st.samplingRate = r.samplingRate;
        p.statistics.push_back(st);
    }
    return p;
}

void setBudgetPlan(ExplorerState& s, const BudgetPlan& plan) {
    pinBudget(s);
    DatasetBudget& b = s.budget.plan;
    b.epsilon = plan.total.epsilon;
    b.delta = plan.total.delta;
    b.composition = plan.composition;
    b.rows.clear();
    for (const PlanStatistic& st : plan.statistics) {
        BudgetRow r;
        r.column = QString::fromStdString(st.label);
        r.bins = static_cast<int>(std::clamp<std::int64_t>(st.bins, 1, 10'000'000));
        r.mechanism = QString::fromLatin1(mechanismName(st.mechanism));
        r.weight = st.weight;
        r.hold = QString::fromLatin1(holdKindName(st.hold.kind));
        r.holdValue = st.hold.kind == HoldKind::None ? 0 : st.hold.value;
        r.samplingRate = st.samplingRate;
        b.rows.push_back(r);
    }
}

}  // namespace dpx::ui
