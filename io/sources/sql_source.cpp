#include "io/sources/sql_source.h"

#include <QDate>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlField>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QString>
#include <QUrl>
#include <QUrlQuery>
#include <QVariant>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include "core/base/validation.h"
#include "io/sources/csv_reader.h"  // parseIsoDate: dates are days since 1970-01-01 everywhere

namespace dpx::data {

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

std::string quotedName(std::string_view s) {
    return "'" + std::string(s) + "'";
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return out;
}

bool contains(std::string_view hay, std::string_view needle) {
    return hay.find(needle) != std::string_view::npos;
}

// Shortest text that reads back as the same double (std::to_chars), so a double sent to
// PostgreSQL as text (float8in, correctly rounded) arrives bit for bit.
std::string exactDouble(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string joinNames(const std::vector<std::string>& names, std::size_t max = 20) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < max; ++i) {
        s += (i ? ", " : "") + quotedName(names[i]);
    }
    if (names.size() > max) {
        s += ", … (" + groupThousands(static_cast<long long>(names.size())) + " in all)";
    }
    return s.empty() ? "none" : s;
}

// Reason codes of the binning expression (a bin index is ≥ 0).
enum Code : int {
    kMissing = -1,
    kLow = -2,
    kHigh = -3,
    kUnknown = -4,
    kInvalid = -5,    // not a finite number (text, blob, ±Infinity, NaN) in a numeric column
    kCapped = -6,     // over the contribution cap
    kNotWhole = -7,   // integer bins, value not whole
    kMissingId = -8,  // id column NULL
    kClientText =
        -9,  // SQLite, standard: text or a date in a numeric binning, parsed by the client
};

// SQLite's default SQLITE_MAX_VARIABLE_NUMBER (since 3.32): edges and categories are bound
// parameters, a few are needed for the range and the cap.
constexpr std::size_t kSqliteMaxParams = 32000;

// ---------------------------------------------------------------------------------------------
// Connections

std::atomic<std::uint64_t> connectionCounter{0};

struct TableRef {
    std::string schema;  // PostgreSQL only
    std::string name;
    std::string display;  // as sqlListTables gives it
};

// One Qt Sql connection under a unique name, opened on the constructing thread and closed and
// removed by the destructor on the same thread (Qt Sql connections are thread-affine).
class Connection {
public:
    explicit Connection(const SqlConnectionSpec& spec)
        : spec_(spec),
          name_(QStringLiteral("dpx-sql-%1").arg(connectionCounter.fetch_add(1) + 1)) {}
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() {
        {
            QSqlDatabase db = QSqlDatabase::database(name_, false);
            if (db.isValid()) {
                db.close();
            }
        }
        if (added_) {
            QSqlDatabase::removeDatabase(name_);
        }
    }

    Status open();
    QSqlDatabase db() const { return QSqlDatabase::database(name_, false); }
    const SqlConnectionSpec& spec() const { return spec_; }
    // The SQL dialect: the driver's own, or for ODBC the database behind it (PostgreSQL or
    // SQLite), known after open(). In the standard dialect it is ODBC (neither) and standard()
    // is true.
    SqlDriver dialect() const { return dialect_; }
    bool standard() const { return standard_; }
    // The standard dialect: a quoted identifier, with the driver's quote character (SQL:
    // `"`; MySQL through ODBC: a backtick), the character doubled inside.
    std::string quote(std::string_view name) const;
    std::int64_t backendPid() const { return backendPid_; }

    // Runs one statement with positional parameters; the error names `what`.
    Expected<QSqlQuery> run(const std::string& sql, const std::vector<QVariant>& params,
                            const std::string& what, const std::stop_token& stop = {});

private:
    SqlConnectionSpec spec_;
    QString name_;
    bool added_ = false;
    SqlDriver dialect_ = SqlDriver::SQLite;
    bool standard_ = false;
    char quoteChar_ = '"';
    std::int64_t backendPid_ = 0;
};

std::string Connection::quote(std::string_view name) const {
    std::string s(1, quoteChar_);
    for (char ch : name) {
        s += ch;
        if (ch == quoteChar_) {
            s += ch;
        }
    }
    return s + quoteChar_;
}

std::string errorText(const QSqlError& e) {
    std::string s = e.databaseText().trimmed().toStdString();
    const std::string d = e.driverText().trimmed().toStdString();
    if (s.empty()) {
        s = d;
    }
    return s.empty() ? "unknown error" : s;
}

Status Connection::open() {
    if (auto ok = spec_.validate(); !ok) {
        return ok.error();
    }
    const bool odbc = spec_.driver == SqlDriver::ODBC;
    const QString driver = odbc                                    ? QStringLiteral("QODBC")
                           : spec_.driver == SqlDriver::PostgreSQL ? QStringLiteral("QPSQL")
                                                                   : QStringLiteral("QSQLITE");
    if (!QSqlDatabase::isDriverAvailable(driver)) {
        const char* package = odbc                                    ? "libqt6sql6-odbc"
                              : spec_.driver == SqlDriver::PostgreSQL ? "libqt6sql6-psql"
                                                                      : "libqt6sql6-sqlite";
        return Error{std::string("the Qt ") + sqlDriverName(spec_.driver) + " driver (" +
                     driver.toStdString() + ") is not installed (Debian package " + package + ")"};
    }
    QSqlDatabase db = QSqlDatabase::addDatabase(driver, name_);
    added_ = true;
    if (spec_.driver == SqlDriver::PostgreSQL) {
        db.setHostName(qs(spec_.host));
        db.setPort(spec_.port);
        db.setDatabaseName(qs(spec_.database));
        db.setUserName(qs(spec_.user));
        db.setPassword(qs(spec_.password));
        // Bounded connect; application_name shows the tool in pg_stat_activity.
        db.setConnectOptions(QStringLiteral("connect_timeout=%1;application_name=dpx")
                                 .arg(spec_.connectTimeoutSeconds));
    } else if (odbc) {
        // The connection string goes to the driver manager as it is (SQLDriverConnect).
        db.setDatabaseName(qs(spec_.odbc));
        // ODBC's own request timeout (SQL_ATTR_CONNECTION_TIMEOUT, in whole seconds), the one
        // limit on a statement that ODBC offers through Qt's connect options (the statement
        // attribute SQL_ATTR_QUERY_TIMEOUT is not reachable); a driver may ignore it. PostgreSQL
        // behind ODBC in its own dialect also gets statement_timeout below.
        QString options =
            QStringLiteral("SQL_ATTR_LOGIN_TIMEOUT=%1").arg(spec_.connectTimeoutSeconds);
        if (spec_.statementTimeoutMs > 0) {
            options += QStringLiteral(";SQL_ATTR_CONNECTION_TIMEOUT=%1")
                           .arg((static_cast<long long>(spec_.statementTimeoutMs) + 999) / 1000);
        }
        db.setConnectOptions(options);
    } else {
        // Never create a file: a typo in the path must not leave an empty database behind.
        db.setDatabaseName(qs(spec_.path));
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"));
    }
    if (!db.open()) {
        return Error{"cannot open the " + spec_.describe() + ": " + errorText(db.lastError())};
    }
    dialect_ = spec_.driver;
    if (odbc) {
        // The dialect of the database behind the ODBC driver (Qt reads SQL_DBMS_NAME); any other
        // engine gets the standard dialect.
        switch (db.driver()->dbmsType()) {
            case QSqlDriver::PostgreSQL:
                dialect_ = SqlDriver::PostgreSQL;
                break;
            case QSqlDriver::SQLite:
                dialect_ = SqlDriver::SQLite;
                break;
            default:
                standard_ = true;
        }
    }
    switch (spec_.dialect) {
        case SqlDialect::Auto:
            break;
        case SqlDialect::PostgreSQL:  // validate() allows it on QPSQL and ODBC only
            dialect_ = SqlDriver::PostgreSQL;
            standard_ = false;
            break;
        case SqlDialect::SQLite:  // on QSQLITE and ODBC only
            dialect_ = SqlDriver::SQLite;
            standard_ = false;
            break;
        case SqlDialect::Standard:
            standard_ = true;
    }
    if (standard_) {
        // No engine-specific statement: no session settings, no backend id (so no server-side
        // cancel). The driver's identifier quote (Qt asks ODBC for SQL_IDENTIFIER_QUOTE_CHAR).
        dialect_ = SqlDriver::ODBC;
        const QString probe =
            db.driver()->escapeIdentifier(QStringLiteral("x"), QSqlDriver::FieldName);
        if (probe.size() == 3 && probe.front() == probe.back() && probe.front().unicode() < 128 &&
            probe.front() != QLatin1Char('x')) {
            quoteChar_ = static_cast<char>(probe.front().unicode());
        }
        return okStatus();
    }
    const bool pg = dialect_ == SqlDriver::PostgreSQL;
    if (pg) {
        // The server-side limit on every statement (a timeout surfaces as an error message), and
        // fixed output formats: the cap orders rows by the md5 of their text, which must not
        // depend on the server's or the user's defaults (time zone, date style, float digits).
        QSqlQuery q(db);
        bool ok =
            q.exec(QStringLiteral("SET statement_timeout = %1").arg(spec_.statementTimeoutMs));
        for (const QString& set :
             {QStringLiteral("SET TimeZone = 'UTC'"), QStringLiteral("SET DateStyle = 'ISO, YMD'"),
              QStringLiteral("SET IntervalStyle = 'postgres'"),
              QStringLiteral("SET extra_float_digits = 1"),
              QStringLiteral("SET bytea_output = 'hex'")}) {
            ok = ok && q.exec(set);
        }
        if (!ok || !q.exec(QStringLiteral("SELECT pg_backend_pid()")) || !q.next()) {
            return Error{"cannot set up the session on the " + spec_.describe() + ": " +
                         errorText(q.lastError())};
        }
        backendPid_ = q.value(0).toLongLong();
    } else {
        // SQLite opens lazily: read the schema now so that "not a database" shows up here.
        QSqlQuery q(db);
        if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master"))) {
            return Error{"cannot read the " + spec_.describe() + ": " + errorText(q.lastError())};
        }
    }
    return okStatus();
}

Expected<QSqlQuery> Connection::run(const std::string& sql, const std::vector<QVariant>& params,
                                    const std::string& what, const std::stop_token& stop) {
    QSqlQuery q(db());
    q.setForwardOnly(true);
    // The standard dialect reads numbers as binary doubles (SQL_C_DOUBLE): an ODBC driver's text
    // for a double need not round-trip (the SQLite ODBC driver prints 15 digits).
    q.setNumericalPrecisionPolicy(standard_ ? QSql::LowPrecisionDouble : QSql::HighPrecision);
    auto fail = [&](const QSqlError& e) -> Error {
        const std::string text = errorText(e);
        if (stop.stop_requested()) {
            return Error{what + ": cancelled"};
        }
        if (contains(text, "statement timeout")) {
            return Error{what + ": timed out after " + groupThousands(spec_.statementTimeoutMs) +
                         " ms (the statement timeout; raise it with ?statement_timeout=MS)"};
        }
        return Error{what + " failed on the " + spec_.describe() + ": " + text};
    };
    if (!q.prepare(qs(sql))) {
        return fail(q.lastError());
    }
    for (const QVariant& p : params) {
        q.addBindValue(p);
    }
    if (!q.exec()) {
        return fail(q.lastError());
    }
    return q;
}

// While alive, a stop request on `stop` cancels the statement running on the PostgreSQL backend
// `pid`: a watcher thread opens a second connection and calls pg_cancel_backend (the session's
// own connection is busy in a blocking call, and libpq's PQcancel is not reachable through Qt).
class PgCanceller {
public:
    PgCanceller(const SqlConnectionSpec& spec, std::int64_t pid, std::stop_token stop) {
        if (!stop.stop_possible()) {
            return;
        }
        watcher_ = std::thread([this, spec, pid, stop] {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, stop, [this] { return done_; });
            if (done_) {
                return;
            }
            lock.unlock();
            SqlConnectionSpec s = spec;
            s.statementTimeoutMs = 10000;
            Connection c(s);
            if (!c.open()) {
                return;
            }
            // Again every 250 ms until the caller is done: a cancel that arrives between two
            // statements (after the caller's last stop check) cancels nothing.
            lock.lock();
            while (!done_) {
                lock.unlock();
                auto r = c.run("SELECT pg_cancel_backend(?::int4)", {QVariant::fromValue(pid)},
                               "cancelling the query");
                static_cast<void>(r);
                lock.lock();
                cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return done_; });
            }
        });
    }
    PgCanceller(const PgCanceller&) = delete;
    PgCanceller& operator=(const PgCanceller&) = delete;
    ~PgCanceller() {
        if (watcher_.joinable()) {
            {
                std::lock_guard lock(mutex_);
                done_ = true;
            }
            cv_.notify_all();
            watcher_.join();
        }
    }

private:
    std::mutex mutex_;
    std::condition_variable_any cv_;
    bool done_ = false;
    std::thread watcher_;
};

// ---------------------------------------------------------------------------------------------
// Tables and columns

// The standard dialect: tables and views from the driver's catalogue (Qt's tables(), ODBC
// SQLTables), by the name the driver gives; the native PostgreSQL driver names tables outside
// `public` "schema.table".
std::vector<TableRef> catalogueTables(Connection& c) {
    QStringList names = c.db().tables(QSql::Tables);
    names += c.db().tables(QSql::Views);
    std::vector<TableRef> out;
    const bool qpsql = c.spec().driver == SqlDriver::PostgreSQL;
    for (const QString& n : names) {
        TableRef t{"", n.toStdString(), n.toStdString()};
        const auto dot = t.name.find('.');
        if (qpsql && dot != std::string::npos) {
            t.schema = t.name.substr(0, dot);
            t.name = t.name.substr(dot + 1);
        }
        out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(),
              [](const TableRef& a, const TableRef& b) { return a.display < b.display; });
    out.erase(
        std::unique(out.begin(), out.end(),
                    [](const TableRef& a, const TableRef& b) { return a.display == b.display; }),
        out.end());
    return out;
}

// A column's type from the type the driver reports (Qt's QSqlField from ODBC SQLColumns).
ValueType catalogueType(QMetaType::Type t) {
    switch (t) {
        case QMetaType::Short:
        case QMetaType::UShort:
        case QMetaType::Int:
        case QMetaType::UInt:
        case QMetaType::Long:
        case QMetaType::ULong:
        case QMetaType::LongLong:
        case QMetaType::ULongLong:
            return ValueType::Integer;
        case QMetaType::Float:
        case QMetaType::Double:
            return ValueType::Float;
        case QMetaType::QDate:
            return ValueType::Date;
        default:
            return ValueType::Categorical;
    }
}

Expected<std::vector<TableRef>> listTableRefs(Connection& c) {
    if (c.standard()) {
        return catalogueTables(c);
    }
    const bool pg = c.dialect() == SqlDriver::PostgreSQL;
    const std::string sql =
        pg ? "SELECT table_schema, table_name FROM information_schema.tables "
             "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') "
             "AND table_schema NOT LIKE 'pg\\_toast%' ORDER BY 1, 2"
           : "SELECT '', name FROM sqlite_master WHERE type IN ('table', 'view') "
             "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY 2";
    auto q = c.run(sql, {}, "listing the tables");
    if (!q) {
        return q.error();
    }
    std::vector<TableRef> out;
    while (q->next()) {
        TableRef t{q->value(0).toString().toStdString(), q->value(1).toString().toStdString(), {}};
        t.display = (!pg || t.schema == "public") ? t.name : t.schema + "." + t.name;
        out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(),
              [](const TableRef& a, const TableRef& b) { return a.display < b.display; });
    return out;
}

Expected<TableRef> resolveTable(Connection& c, const std::string& table) {
    auto tables = listTableRefs(c);
    if (!tables) {
        return tables.error();
    }
    for (const TableRef& t : *tables) {
        if (t.display == table) {
            return t;
        }
    }
    std::vector<std::string> names;
    for (const TableRef& t : *tables) {
        names.push_back(t.display);
    }
    return Error{"no table " + quotedName(table) + " in the " + c.spec().describe() +
                 "; tables: " + joinNames(names)};
}

Expected<std::vector<ColumnInfo>> listColumnsOf(Connection& c, const TableRef& t) {
    if (c.standard()) {
        const QSqlRecord rec = c.db().record(qs(t.display));
        if (rec.isEmpty()) {
            const QSqlError e = c.db().lastError();
            return Error{"listing the columns of " + quotedName(t.display) + " failed on the " +
                         c.spec().describe() + ": " +
                         (e.isValid() ? errorText(e) : "the driver lists no column")};
        }
        std::vector<ColumnInfo> out;
        for (int i = 0; i < rec.count(); ++i) {
            const QSqlField f = rec.field(i);
            ColumnInfo ci;
            ci.name = f.name().toStdString();
            ci.declaredType = f.metaType().name() ? f.metaType().name() : "unknown";
            ci.type = catalogueType(static_cast<QMetaType::Type>(f.metaType().id()));
            out.push_back(std::move(ci));
        }
        return out;
    }
    const bool pg = c.dialect() == SqlDriver::PostgreSQL;
    // The table name is a bound parameter here (pragma_table_info takes it as an argument).
    auto q = pg ? c.run(
                      "SELECT column_name, data_type FROM information_schema.columns "
                      "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
                      {qs(t.schema), qs(t.name)}, "listing the columns of " + quotedName(t.display))
                : c.run("SELECT name, type FROM pragma_table_info(?)", {qs(t.name)},
                        "listing the columns of " + quotedName(t.display));
    if (!q) {
        return q.error();
    }
    std::vector<ColumnInfo> out;
    while (q->next()) {
        ColumnInfo ci;
        ci.name = q->value(0).toString().toStdString();
        ci.declaredType = q->value(1).toString().toStdString();
        ci.type = sqlValueType(c.dialect(), ci.declaredType);
        out.push_back(std::move(ci));
    }
    return out;
}

Expected<ColumnInfo> findColumn(const std::vector<ColumnInfo>& cols, const std::string& name,
                                const std::string& table) {
    for (const ColumnInfo& ci : cols) {
        if (ci.name == name) {
            return ci;
        }
    }
    std::vector<std::string> names;
    for (const ColumnInfo& ci : cols) {
        names.push_back(ci.name);
    }
    return Error{"no column " + quotedName(name) + " in table " + quotedName(table) +
                 "; columns: " + joinNames(names)};
}

Expected<std::string> qualifiedName(SqlDriver driver, const TableRef& t) {
    auto name = quoteSqlIdentifier(t.name);
    if (!name) {
        return name.error();
    }
    if (driver == SqlDriver::PostgreSQL && !t.schema.empty()) {
        auto schema = quoteSqlIdentifier(t.schema);
        if (!schema) {
            return schema.error();
        }
        return *schema + "." + *name;
    }
    return *name;
}

// ---------------------------------------------------------------------------------------------
// The binning expression

enum class Mode { Edges, FixedCategories, Distinct };

// What the query of one column computes and how to read its result back.
struct Plan {
    Mode mode = Mode::Edges;
    bool numeric = true;  // values compared as numbers (else as text)
    bool dates = false;   // numeric binning of a date column: days since 1970-01-01
    Binning binning;
    // Core's bins (binLayout): labels, edges, closed upper end, "other" bin.
    BinLayout layout;
    // Edges: the lower edges searched; values below lo or above hi (at hi too unless hiInside)
    // are out of range.
    std::vector<double> lower;
    double lo = 0, hi = 0;
    bool hiInside = true;
    // Fixed categories: the list as numbers (numeric) for the client-side lookup.
    std::vector<double> numericCategories;
    // The pieces of the query: the column in the inner select, the CASE giving the code `b` and
    // the value `v` sent back with it; and the whole query for this column alone.
    std::string innerItem, caseSql, valueSql;
    // Standard dialect: values may come back as kClientText with the value as key.
    bool clientText = false;
    std::string sql;
    std::vector<QVariant> params;
    std::vector<std::string> paramText;  // for sqlHistogramQuery: the parameters as text
};

// One (code, key, count, first position) row of a column's result.
struct ResultRow {
    int code = 0;
    QVariant key;
    std::int64_t n = 0;
    std::int64_t pos = std::numeric_limits<std::int64_t>::max();
};

bool isPgText(const ColumnInfo& c) {
    const std::string t = lower(c.declaredType);
    return t == "text" || t == "character varying" || t == "character" || t == "name" ||
           t == "citext";
}

// A text[] literal for PostgreSQL: every element double-quoted, " and \ escaped.
std::string pgTextArray(const std::vector<std::string>& items) {
    std::string s = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
        s += i ? ",\"" : "\"";
        for (char ch : items[i]) {
            if (ch == '"' || ch == '\\') {
                s += '\\';
            }
            s += ch;
        }
        s += '"';
    }
    return s + "}";
}

std::string pgFloatArray(const std::vector<double>& items) {
    std::string s = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
        s += (i ? "," : "") + exactDouble(items[i]);
    }
    return s + "}";
}

class PlanBuilder {
public:
    PlanBuilder(SqlDriver driver, Plan& plan) : pg_(driver == SqlDriver::PostgreSQL), p_(plan) {}

    // A double parameter: bound as a double in SQLite (exact), as exact text in PostgreSQL.
    std::string number(double v) {
        p_.paramText.push_back(exactDouble(v));
        if (pg_) {
            p_.params.emplace_back(qs(exactDouble(v)));
            return "?::float8";
        }
        p_.params.emplace_back(v);
        return "?";
    }
    std::string text(const std::string& v, const char* cast) {
        p_.paramText.push_back(v.size() > 60 ? "'" + v.substr(0, 57) + "...'" : "'" + v + "'");
        p_.params.emplace_back(qs(v));
        return std::string("?") + cast;
    }
    std::string integer(std::int64_t v) {
        p_.paramText.push_back(std::to_string(v));
        p_.params.emplace_back(QVariant::fromValue(static_cast<qlonglong>(v)));
        return pg_ ? "?::int8" : "?";
    }
    // SQLite: the bin of `v` among the lower edges lower[a..b] as a balanced CASE tree
    // (depth log2 k): the largest i with lower[i] ≤ v, i.e. [e_i, e_{i+1}) like core.
    std::string tree(const std::string& v, std::size_t a, std::size_t b) {
        if (a == b) {
            return std::to_string(a);
        }
        const std::size_t mid = (a + b + 1) / 2;
        std::string s = "CASE WHEN " + v + " < " + number(p_.lower[mid]) + " THEN ";
        s += tree(v, a, mid - 1);
        s += " ELSE " + tree(v, mid, b) + " END";
        return s;
    }

private:
    bool pg_;
    Plan& p_;
};

// The inner select's items for the contribution cap: the id and each row's number among its
// person's rows, in the order that decides which rows are kept — PostgreSQL the md5 of the whole
// row's text (ROW(t.*) cannot be shadowed by a column name), SQLite the rowid. The id column has
// been checked against the table's columns (quoting cannot fail then).
std::string capItems(SqlDriver driver, const ContributionCap& cap) {
    if (!cap.enabled()) {
        return {};
    }
    const std::string id = "t." + quoteSqlIdentifier(cap.idColumn).value();
    return ", " + id + " AS dpx_id, row_number() OVER (PARTITION BY " + id +
           (driver == SqlDriver::PostgreSQL ? " ORDER BY md5(ROW(t.*)::text)"
                                            : " ORDER BY t.rowid") +
           ") AS dpx_rn";
}

// `alias` names the column's value in the generated SQL (dpx_v; dpx_v0, dpx_v1, … when several
// columns share one query).
// The bounds of an edges plan from its layout (every dialect; the client's classify() reads them
// too). Integer bins end at hi + 1 (exclusive): the whole numbers above the range are the ones
// ≥ hi + 1, as core's x > hi. Equal-width and edges: hi belongs to the last bin if closed.
void setEdgeBounds(Plan& p, const Binning& binning) {
    const auto& e = p.layout.edges;
    p.lower.assign(e.begin(), e.end() - 1);
    p.lo = e.front();
    p.hi = e.back();
    p.hiInside = binning.kind != BinningKind::Integer && p.layout.closedHi;
}

Expected<Plan> buildPlan(SqlDriver driver, const std::string& tableSql, const ColumnInfo& column,
                         const Binning& binning, const ContributionCap& cap,
                         const std::string& alias = "dpx_v") {
    if (auto ok = binning.validate(); !ok) {
        return Error{"column " + quotedName(column.name) + ": " + ok.error().message};
    }
    const bool pg = driver == SqlDriver::PostgreSQL;
    Plan p;
    p.binning = binning;
    PlanBuilder pb(driver, p);
    const bool numericColumn = column.type == ValueType::Integer || column.type == ValueType::Float;
    const bool dateColumn = column.type == ValueType::Date;
    const bool pgText = pg && isPgText(column);
    auto col = quoteSqlIdentifier(column.name);
    if (!col) {
        return col.error();
    }
    if (cap.enabled()) {
        if (auto id = quoteSqlIdentifier(cap.idColumn); !id) {
            return id.error();
        }
    }

    // Core's bins, to the last bit: the SQL only looks values up among these edges.
    auto layout = binLayout(binning);
    if (!layout) {
        return Error{"column " + quotedName(column.name) + ": " + layout.error().message};
    }
    p.layout = std::move(layout).value();

    if (binning.kind == BinningKind::Categories) {
        p.mode = binning.categories.empty() ? Mode::Distinct : Mode::FixedCategories;
        p.numeric = numericColumn;
    } else {
        p.mode = Mode::Edges;
        p.numeric = true;
        p.dates = dateColumn;
        if (!numericColumn && !dateColumn &&
            !(pgText || (!pg && column.type == ValueType::Categorical))) {
            return Error{"column " + quotedName(column.name) + " has the type " +
                         quotedName(column.declaredType) + "; " + binningKindName(binning.kind) +
                         " bins need numbers (use categories)"};
        }
    }

    // Inner select: the value, and the id with its row number for the cap. The table alias `t`
    // keeps column references unambiguous; the outer queries see only the dpx_ aliases.
    std::string inner = "SELECT t." + *col + " AS dpx_v";
    const bool needPos =
        !pg && p.mode == Mode::Distinct && binning.order == CategoryOrder::FirstSeen;
    if (needPos) {
        inner += ", t.rowid AS dpx_pos";
    }
    inner += capItems(driver, cap) + " FROM " + tableSql + " AS t";

    // The CASE that maps a row to a bin index or a reason code; its WHENs are evaluated in order
    // (guaranteed by both databases), so a cast only meets values that passed the checks before.
    std::string cs = "CASE";
    if (cap.enabled()) {
        cs += " WHEN dpx_id IS NULL THEN " + std::to_string(kMissingId);
        cs += " WHEN dpx_rn > " + pb.integer(cap.maxRowsPerPerson) + " THEN " +
              std::to_string(kCapped);
    }
    std::string num;  // the value as a number, valid after the checks
    if (p.numeric) {
        if (pg && pgText) {
            // Core's parseNumber in SQL: trimmed of spaces and tabs, an optional sign, digits with
            // an optional point, an optional exponent; and a double that is neither infinite nor
            // underflows to 0 (std::from_chars refuses both, subnormals pass). numeric checks the
            // range before the float8 cast, which would fail on 1e400. The bounds are the
            // midpoints where rounding to nearest reaches ±infinity (DBL_MAX + ulp/2) and 0 (half
            // the smallest subnormal), a little inside, since the midpoints themselves round to
            // even (infinity, 0).
            const std::string t = "btrim(dpx_v, E' \\t')";
            cs += " WHEN dpx_v IS NULL OR " + t + " = '' THEN " + std::to_string(kMissing);
            cs += " WHEN NOT (" + t +
                  " ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]{1,4})?$') THEN " +
                  std::to_string(kInvalid);
            cs += " WHEN abs(" + t + "::numeric) >= 1.797693134862315807937289714053e308 OR (" + t +
                  "::numeric <> 0 AND abs(" + t +
                  "::numeric) <= 2.470328229206232720882778e-324) THEN " + std::to_string(kInvalid);
            num = "(" + t + "::numeric::float8)";
        } else if (pg && p.dates) {
            // Dates as days since 1970-01-01, as the CSV reader bins them; ±infinity is no day.
            cs += " WHEN dpx_v IS NULL THEN " + std::to_string(kMissing);
            cs += " WHEN NOT isfinite(dpx_v) THEN " + std::to_string(kInvalid);
            num = "(dpx_v - DATE '1970-01-01')::float8";
        } else if (pg) {
            // A value that is not a finite double is not a number, as in the CSV reader
            // (core's parseNumber): ±Infinity and NaN (float4, float8, numeric), and a numeric
            // beyond the double range (checked as numeric, before the float8 cast would fail),
            // with the same bounds as the text path above.
            cs += " WHEN dpx_v IS NULL THEN " + std::to_string(kMissing);
            if (lower(column.declaredType) == "numeric") {
                cs +=
                    " WHEN dpx_v = 'NaN'::numeric OR abs(dpx_v) >= "
                    "1.797693134862315807937289714053e308 OR (dpx_v <> 0 AND abs(dpx_v) <= "
                    "2.470328229206232720882778e-324) THEN " +
                    std::to_string(kInvalid);
            }
            cs +=
                " WHEN dpx_v::float8 IN ('Infinity'::float8, '-Infinity'::float8, "
                "'NaN'::float8) THEN " +
                std::to_string(kInvalid);
            num = "dpx_v::float8";
        } else {
            // SQLite stores any value in any column: text goes to the client (parsed there with
            // core's parseNumber), blobs are not numbers.
            cs +=
                " WHEN dpx_v IS NULL OR (typeof(dpx_v) = 'text' AND trim(dpx_v, ' ' || "
                "char(9)) = '') THEN " +
                std::to_string(kMissing);
            cs += " WHEN typeof(dpx_v) = 'text' THEN " + std::to_string(kClientText);
            // SQLite has no date type: a date column holds text yyyy-mm-dd (parsed by the
            // client); a number there is not a date.
            // ±Infinity in a REAL column (9e999 is SQLite's infinity; SQLite stores NaN as NULL)
            // is not a finite number: not a number, as in the CSV reader.
            cs += p.dates ? " WHEN typeof(dpx_v) <> 'text' THEN "
                          : " WHEN typeof(dpx_v) = 'blob' OR (typeof(dpx_v) = 'real' AND "
                            "abs(dpx_v) = 9e999) THEN ";
            cs += std::to_string(kInvalid);
            num = "dpx_v";
        }
    } else {
        num = pg ? "dpx_v::text" : "CAST(dpx_v AS TEXT)";
        cs += " WHEN dpx_v IS NULL OR " + num + " = '' THEN " + std::to_string(kMissing);
    }

    if (p.mode == Mode::Edges) {
        setEdgeBounds(p, binning);
        if (!pg && p.lower.size() > kSqliteMaxParams) {
            return Error{"column " + quotedName(column.name) + ": at most " +
                         groupThousands(static_cast<long long>(kSqliteMaxParams)) +
                         " bins can be counted inside SQLite"};
        }
        if (binning.kind == BinningKind::Integer) {
            // Core refuses a value that is not whole before looking at the range.
            cs += pg ? " WHEN " + num + " <> floor(" + num + ") THEN "
                     : " WHEN typeof(dpx_v) = 'real' AND abs(dpx_v) < 4503599627370496.0 AND "
                       "dpx_v <> CAST(dpx_v AS INTEGER) THEN ";
            cs += std::to_string(kNotWhole);
        }
        cs += " WHEN " + num + " < " + pb.number(p.lo) + " THEN " + std::to_string(kLow);
        cs += " WHEN " + num + (p.hiInside ? " > " : " >= ") + pb.number(p.hi) + " THEN " +
              std::to_string(kHigh);
        if (pg) {
            // width_bucket with an array of lower bounds: the number of bounds ≤ v, so a value
            // on an edge opens the bin (exact float8 comparisons against core's edges). The
            // 4-argument width_bucket(v, lo, hi, k) computes its own edges and can disagree with
            // core on values sitting exactly on an edge.
            cs += " ELSE width_bucket(" + num + ", " +
                  pb.text(pgFloatArray(p.lower), "::float8[]") + ") - 1 END";
        } else {
            cs += " ELSE " + pb.tree(num, 0, p.lower.size() - 1) + " END";
        }
    } else if (p.mode == Mode::FixedCategories) {
        if (p.numeric) {
            for (const std::string& c : binning.categories) {
                double v = 0;
                if (!parseNumber(c, v)) {
                    return Error{"the category " + quotedName(c) + " is not a number, but column " +
                                 quotedName(column.name) + " is numeric (" + column.declaredType +
                                 ")"};
                }
                p.numericCategories.push_back(v == 0 ? 0.0 : v);
            }
            std::vector<double> sorted = p.numericCategories;
            std::sort(sorted.begin(), sorted.end());
            if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
                return Error{"the category list has a value twice"};
            }
        }
        if (!pg && binning.categories.size() > kSqliteMaxParams) {
            return Error{"column " + quotedName(column.name) + ": at most " +
                         groupThousands(static_cast<long long>(kSqliteMaxParams)) +
                         " categories can be counted inside SQLite"};
        }
        if (pg) {
            cs += " ELSE COALESCE(array_position(" +
                  (p.numeric ? pb.text(pgFloatArray(p.numericCategories), "::float8[]")
                             : pb.text(pgTextArray(binning.categories), "::text[]")) +
                  ", " + num + ") - 1, " + std::to_string(kUnknown) + ") END";
        } else {
            cs += " ELSE CASE " + num;
            for (std::size_t i = 0; i < binning.categories.size(); ++i) {
                cs += " WHEN " +
                      (p.numeric ? pb.number(p.numericCategories[i])
                                 : pb.text(binning.categories[i], "")) +
                      " THEN " + std::to_string(i);
            }
            cs += " ELSE " + std::to_string(kUnknown) + " END END";
        }
    } else {
        cs += " ELSE 0 END";
    }

    // Only (code, key, count) rows leave the database. The key is the value itself for
    // categories from the data and for SQLite text that the client parses.
    const std::string key =
        p.mode == Mode::Distinct
            ? "CASE WHEN b = 0 OR b = " + std::to_string(kClientText) + " THEN v END"
            : "CASE WHEN b = " + std::to_string(kClientText) + " THEN v END";
    const std::string v = p.mode == Mode::Distinct ? num : "dpx_v";
    // The CASE and the value name the column as dpx_v; under another alias they are rewritten.
    // This is safe as text: they hold no user text (names are only in the inner select, values
    // are parameters) and no other word starting with dpx_v.
    auto renamed = [&](std::string sqlText) {
        if (alias == "dpx_v") {
            return sqlText;
        }
        std::string out;
        for (std::size_t i = 0; i < sqlText.size();) {
            if (sqlText.compare(i, 5, "dpx_v") == 0) {
                out += alias;
                i += 5;
            } else {
                out += sqlText[i++];
            }
        }
        return out;
    };
    p.innerItem = "t." + *col + " AS " + alias;
    p.caseSql = renamed(cs);
    p.valueSql = renamed(v);
    p.sql = "SELECT b, " + key + " AS k, count(*) AS n" + (needPos ? ", min(pos)" : "") +
            " FROM (SELECT " + cs + " AS b, " + v + " AS v" + (needPos ? ", dpx_pos AS pos" : "") +
            " FROM (" + inner + ") AS s) AS q GROUP BY 1, 2";
    if (p.mode == Mode::Distinct) {
        // More distinct values than bins allowed is an error; stop reading early.
        p.sql += " LIMIT " + std::to_string(kMaxBins + 16);
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// The standard dialect (SQL:2003 core): CASE, comparisons, CAST(… AS DOUBLE PRECISION / BIGINT),
// IS NULL, COUNT(*), derived tables, GROUP BY column names (not ordinals: SQL Server and Oracle
// have none), ROW_NUMBER() OVER for the cap. No array, regular expression, hash, typeof or date
// arithmetic. What cannot be written so is done on the client from aggregates: text in a numeric
// binning and date columns come back grouped by value (code kClientText) and are parsed with core's
// parseNumber / parseIsoDate, as SQLite text is.

// The double bounds of the checks: beyond ±DBL_MAX is not a finite number (±infinity;
// PostgreSQL's NaN sorts above every number; the bound is the PostgreSQL path's), and a nonzero
// decimal closer to 0 than half the smallest subnormal underflows. Literals, not parameters:
// compared with the column as declared (before any cast, which would fail on a decimal beyond the
// double range), a parameter would take the column's type (an integer column: an integer
// parameter). The small bound is 2.4703282292062328e-324, a hair above the midpoint where decimals
// round to 0, not the PostgreSQL path's hair below it: read as a double it must be the smallest
// subnormal (PostgreSQL refuses a double literal that underflows to 0), so for a double column the
// test is never true; for a decimal column it calls the decimals between the two bounds (17th
// significant digit) not a number where the PostgreSQL path reads 5e-324.
constexpr const char* kStdMax = "1.797693134862315807937289714053E308";
constexpr const char* kStdTiny = "2.4703282292062328E-324";

Expected<Plan> buildStandardPlan(const Connection& c, const ColumnInfo& column,
                                 const Binning& binning, const std::string& alias) {
    if (auto ok = binning.validate(); !ok) {
        return Error{"column " + quotedName(column.name) + ": " + ok.error().message};
    }
    Plan p;
    p.binning = binning;
    auto layout = binLayout(binning);
    if (!layout) {
        return Error{"column " + quotedName(column.name) + ": " + layout.error().message};
    }
    p.layout = std::move(layout).value();
    if (column.name.empty() || column.name.find('\0') != std::string::npos) {
        return Error{"the column name " + quotedName(column.name) + " cannot be quoted"};
    }
    const bool numericColumn = column.type == ValueType::Integer || column.type == ValueType::Float;
    const bool dateColumn = column.type == ValueType::Date;
    const std::string v = alias;
    // A double bound as a parameter (SQL_C_DOUBLE: exact) and cast to DOUBLE PRECISION, so that
    // no engine infers its type from the other operand.
    auto number = [&](double x) {
        p.paramText.push_back(exactDouble(x));
        p.params.emplace_back(x);
        return std::string("CAST(? AS DOUBLE PRECISION)");
    };
    auto text = [&](const std::string& x) {
        p.paramText.push_back(x.size() > 60 ? "'" + x.substr(0, 57) + "...'" : "'" + x + "'");
        p.params.emplace_back(qs(x));
        return std::string("?");
    };
    if (binning.kind == BinningKind::Categories) {
        p.mode = binning.categories.empty() ? Mode::Distinct : Mode::FixedCategories;
        p.numeric = numericColumn;
        if (dateColumn && p.mode == Mode::FixedCategories) {
            return Error{"column " + quotedName(column.name) + " of the " + c.spec().describe() +
                         " holds dates: a fixed category list of dates cannot be compared "
                         "portably in the standard SQL dialect (use categories from the data, "
                         "or date bins)"};
        }
    } else {
        p.mode = Mode::Edges;
        p.numeric = true;
        p.dates = dateColumn;
        if (!numericColumn && !dateColumn && column.type != ValueType::Categorical) {
            return Error{"column " + quotedName(column.name) + " has the type " +
                         quotedName(column.declaredType) + "; " + binningKindName(binning.kind) +
                         " bins need numbers (use categories)"};
        }
    }
    const std::size_t limit = kSqliteMaxParams;
    if ((p.mode == Mode::Edges && p.layout.edges.size() > limit) ||
        (p.mode == Mode::FixedCategories && binning.categories.size() > limit)) {
        return Error{"column " + quotedName(column.name) + ": at most " +
                     groupThousands(static_cast<long long>(limit)) +
                     " bins or categories can be counted on the " + c.spec().describe() +
                     " in the standard SQL dialect (each is a bound parameter)"};
    }

    if (p.mode == Mode::Edges) {
        setEdgeBounds(p, binning);
    }
    std::string cs = "CASE WHEN " + v + " IS NULL THEN " + std::to_string(kMissing);
    std::string num;
    if ((p.mode == Mode::Edges && !numericColumn) || (dateColumn && p.mode == Mode::Distinct)) {
        // Text binned as numbers, and dates: grouped by value, parsed by the client (a text that
        // is blank is missing there, as in SQLite).
        p.clientText = p.mode == Mode::Edges;
        cs += " ELSE " + std::to_string(p.clientText ? kClientText : 0) + " END";
        p.innerItem = "t." + c.quote(column.name) + " AS " + alias;
        p.caseSql = cs;
        p.valueSql = v;
        return p;
    }
    if (p.numeric) {
        // Not a finite double: beyond ±DBL_MAX (±infinity, PostgreSQL's NaN), NaN (x <> x), or
        // underflowing to 0 — checked on the value as declared, before the cast.
        cs += " WHEN " + v + " > " + kStdMax + " OR " + v + " < -" + kStdMax + " OR " + v + " <> " +
              v + " OR (" + v + " <> 0 AND " + v + " < " + kStdTiny + " AND " + v + " > -" +
              kStdTiny + ") THEN " + std::to_string(kInvalid);
        num = "CAST(" + v + " AS DOUBLE PRECISION)";
    } else {
        num = v;
        cs += " WHEN " + v + " = '' THEN " + std::to_string(kMissing);
    }
    if (p.mode == Mode::Edges) {
        if (binning.kind == BinningKind::Integer) {
            // Not whole: differs from its BIGINT cast (rounded or truncated, either way equal only
            // for a whole number); beyond 2^52 every double is whole, and the nested CASE keeps
            // the cast from meeting a value it would overflow on.
            cs += " WHEN (CASE WHEN " + num + " > -4503599627370496.0 AND " + num +
                  " < 4503599627370496.0 THEN CASE WHEN " + num + " <> CAST(" + num +
                  " AS BIGINT) THEN 1 ELSE 0 END ELSE 0 END) = 1 THEN " + std::to_string(kNotWhole);
        }
        cs += " WHEN " + num + " < " + number(p.lo) + " THEN " + std::to_string(kLow);
        cs += " WHEN " + num + (p.hiInside ? " > " : " >= ") + number(p.hi) + " THEN " +
              std::to_string(kHigh);
        // The bin among core's lower edges: a balanced CASE tree (depth log2 k), as in SQLite.
        std::function<std::string(std::size_t, std::size_t)> tree = [&](std::size_t a,
                                                                        std::size_t b) {
            if (a == b) {
                return std::to_string(a);
            }
            const std::size_t mid = (a + b + 1) / 2;
            std::string t = "CASE WHEN " + num + " < " + number(p.lower[mid]) + " THEN ";
            t += tree(a, mid - 1);
            return t + " ELSE " + tree(mid, b) + " END";
        };
        cs += " ELSE " + tree(0, p.lower.size() - 1) + " END";
    } else if (p.mode == Mode::FixedCategories) {
        if (p.numeric) {
            for (const std::string& cat : binning.categories) {
                double x = 0;
                if (!parseNumber(cat, x)) {
                    return Error{"the category " + quotedName(cat) +
                                 " is not a number, but column " + quotedName(column.name) +
                                 " is numeric (" + column.declaredType + ")"};
                }
                p.numericCategories.push_back(x == 0 ? 0.0 : x);
            }
            std::vector<double> sorted = p.numericCategories;
            std::sort(sorted.begin(), sorted.end());
            if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
                return Error{"the category list has a value twice"};
            }
        }
        for (std::size_t i = 0; i < binning.categories.size(); ++i) {
            cs += " WHEN " + num + " = " +
                  (p.numeric ? number(p.numericCategories[i]) : text(binning.categories[i])) +
                  " THEN " + std::to_string(i);
        }
        cs += " ELSE " + std::to_string(kUnknown) + " END";
    } else {
        cs += " ELSE 0 END";
    }
    p.innerItem = "t." + c.quote(column.name) + " AS " + alias;
    p.caseSql = cs;
    p.valueSql = p.mode == Mode::Distinct ? num : v;
    return p;
}

// The one GROUP BY of the standard dialect over the columns `plans` (their values aliased dpx_v0,
// dpx_v1, …): result columns b0, k0, b1, k1, …, n — a code, the value where the client needs it
// (categories from the data, kClientText) else NULL, and the count.
//   SELECT b0, k0, …, COUNT(*) AS n FROM (
//     [cap: SELECT CASE WHEN dpx_id IS NULL THEN -8 WHEN dpx_rn > C THEN -6 ELSE b0 END AS b0, …
//           FROM (SELECT …, ROW_NUMBER() OVER (PARTITION BY dpx_id ORDER BY b0, k0, …) AS dpx_rn]
//     SELECT b0, CASE WHEN b0 = 0 THEN v0 END AS k0, …, dpx_id
//     FROM (SELECT <case0> AS b0, <value0> AS v0, …, dpx_id
//           FROM (SELECT t."c0" AS dpx_v0, …, t."id" AS dpx_id FROM "T" AS t) AS s) AS q) AS r
//   GROUP BY b0, k0, …
// The cap's order is the codes and values themselves, so it is the same on every engine (except
// that text values sort in the engine's collation); its integer is a literal (to_string of a
// validated int64, no user text).
struct StandardQuery {
    std::string sql;
    std::vector<QVariant> params;
};

StandardQuery standardQuery(const Connection& c, const std::vector<const Plan*>& plans,
                            const std::string& tableSql, const ContributionCap& cap) {
    StandardQuery out;
    const bool capped = cap.enabled();
    std::string inner = "SELECT ";
    std::string mid = "SELECT ";
    std::string keyed = "SELECT ";
    std::string ranked = "SELECT ";
    std::string order;
    std::string applied = "SELECT ";
    std::string outer = "SELECT ";
    std::string groups;
    for (std::size_t j = 0; j < plans.size(); ++j) {
        const Plan& p = *plans[j];
        const std::string sep = j ? ", " : "";
        const std::string b = "b" + std::to_string(j);
        const std::string v = "v" + std::to_string(j);
        const std::string k = "k" + std::to_string(j);
        inner += sep + p.innerItem;
        mid += sep + p.caseSql + " AS " + b + ", " + p.valueSql + " AS " + v;
        const bool keyNeeded = p.mode == Mode::Distinct || p.clientText;
        const std::string keyCode =
            p.mode == Mode::Distinct ? "0" : std::to_string(static_cast<int>(kClientText));
        keyed += sep + b +
                 (keyNeeded ? ", CASE WHEN " + b + " = " + keyCode + " THEN " + v + " END AS " + k
                            : std::string());
        ranked += sep + b + (keyNeeded ? ", " + k : "");
        order += sep + b + (keyNeeded ? ", " + k : "");
        if (capped) {
            applied += sep + "CASE WHEN dpx_id IS NULL THEN " + std::to_string(kMissingId) +
                       " WHEN dpx_rn > " + std::to_string(cap.maxRowsPerPerson) + " THEN " +
                       std::to_string(kCapped) + " ELSE " + b + " END AS " + b;
            if (keyNeeded) {
                applied += ", CASE WHEN dpx_id IS NULL OR dpx_rn > " +
                           std::to_string(cap.maxRowsPerPerson) + " THEN NULL ELSE " + k +
                           " END AS " + k;
            }
        }
        outer += b + ", " + (keyNeeded ? k : "NULL AS " + k) + ", ";
        groups += sep + b + (keyNeeded ? ", " + k : "");
        out.params.insert(out.params.end(), p.params.begin(), p.params.end());
    }
    if (capped) {
        inner += ", t." + c.quote(cap.idColumn) + " AS dpx_id";
        mid += ", dpx_id";
        keyed += ", dpx_id";
    }
    inner += " FROM " + tableSql + " AS t";
    std::string from = keyed + " FROM (" + mid + " FROM (" + inner + ") AS s) AS q";
    if (capped) {
        ranked += ", dpx_id, ROW_NUMBER() OVER (PARTITION BY dpx_id ORDER BY " + order +
                  ") AS dpx_rn FROM (" + from + ") AS r";
        from = applied + " FROM (" + ranked + ") AS w";
    }
    out.sql = outer + "COUNT(*) AS n FROM (" + from + ") AS x GROUP BY " + groups;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Reading the result back

std::optional<double> variantNumber(const QVariant& v) {
    if (v.typeId() == QMetaType::Double) {
        return v.toDouble();
    }
    if (v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Int) {
        return static_cast<double>(v.toLongLong());
    }
    double d = 0;
    if (parseNumber(v.toString().toStdString(), d)) {
        return d;
    }
    return std::nullopt;
}

// A date value as the driver reads a date column (the standard dialect's keys).
bool isDriverDate(const QVariant& v) {
    return v.typeId() == QMetaType::QDate || v.typeId() == QMetaType::QDateTime;
}

// One column's (code, key) rows decoded: the bins of declared binnings, the reasons, the
// categories from the data. sqlHistograms feeds it the rows of its per-column query, sqlJointTable
// each column of the rows of its one GROUP BY — so both read a code the same way.
struct Decoded {
    int code = 0;           // a bin ≥ 0, or kMissing, kLow, kHigh, kUnknown, kInvalid, kNotWhole
    bool category = false;  // categories from the data: the value is `num` or `text`
    double num = 0;
    std::string text;
};

class ColumnDecoder {
public:
    explicit ColumnDecoder(const Plan& p) : p_(p) {
        if (p.mode != Mode::Distinct) {
            counts.assign(p.layout.labels.size(), 0);
        }
    }

    // The meaning of a code (not kCapped or kMissingId) and its key; SQLite text values are parsed
    // here with core's parseNumber / the ISO date reader and classified like the SQL does.
    Decoded decode(int code, const QVariant& key) const {
        Decoded d;
        d.code = code;
        if (code == kClientText) {
            double v = 0;
            std::int64_t days = 0;
            // The standard dialect sends dates here as the driver's dates (an invalid one, e.g.
            // PostgreSQL's infinity, is no date) and blank text (missing).
            if (isDriverDate(key) && !key.toDate().isValid()) {
                d.code = kInvalid;
                return d;
            }
            const std::string text = isDriverDate(key)
                                         ? key.toDate().toString(Qt::ISODate).toStdString()
                                         : key.toString().toStdString();
            if (text.find_first_not_of(" \t") == std::string::npos) {
                d.code = kMissing;
                return d;
            }
            if (p_.dates && parseIsoDate(text, days)) {
                d.code = classify(static_cast<double>(days));
            } else if (p_.dates || !parseNumber(text, v)) {
                d.code = kInvalid;
            } else if (p_.mode == Mode::Distinct) {
                d.code = 0;
                d.category = true;
                d.num = v == 0 ? 0.0 : v;
            } else {
                d.code = classify(v);
            }
            return d;
        }
        if (p_.mode == Mode::Distinct && code == 0) {
            d.category = true;
            if (p_.numeric) {
                const auto v = variantNumber(key);
                if (!v) {
                    d.code = kInvalid;  // e.g. ±Infinity in a float column
                    d.category = false;
                } else {
                    d.num = *v == 0 ? 0.0 : *v;
                }
            } else if (isDriverDate(key)) {
                // Categories of dates from the data in the standard dialect: ISO text, as the
                // native dialects give; an invalid date (PostgreSQL's infinity) is no date.
                if (!key.toDate().isValid()) {
                    d.code = kInvalid;
                    d.category = false;
                } else {
                    d.text = key.toDate().toString(Qt::ISODate).toStdString();
                }
            } else {
                d.text = key.toString().toStdString();
            }
        }
        return d;
    }

    // Accounts for n rows of a decoded value in the report: the bin (declared bins) or the
    // category's id (from the data), or −1 when they are not counted. Not a number: `invalid`,
    // outside the report, as the CSV reader skips such rows.
    std::int64_t record(const Decoded& d, std::int64_t n, std::int64_t pos) {
        if (d.code == kInvalid) {
            invalid += n;
            return -1;
        }
        report.rows += n;
        const Binning& b = p_.binning;
        const bool clamp = b.outOfRange == OutOfRange::Clamp;
        std::int64_t bin = -1;
        switch (d.code) {
            case kMissing:
                report.missing += n;
                break;
            case kLow:
                if (clamp) {
                    report.clampedLow += n;
                    bin = 0;
                } else {
                    report.droppedLow += n;
                }
                break;
            case kHigh:
                if (clamp) {
                    report.clampedHigh += n;
                    bin = static_cast<std::int64_t>(counts.size()) - 1;
                } else {
                    report.droppedHigh += n;
                }
                break;
            case kUnknown:
                if (b.unknown == UnknownCategory::Other) {
                    report.otherCategories += n;
                    bin = static_cast<std::int64_t>(counts.size()) - 1;
                } else {
                    report.unknownCategories += n;  // Error: refused by check()
                }
                break;
            case kNotWhole:
                notWhole += n;
                break;
            default:
                bin = d.category ? categoryId(d, pos) : d.code;
        }
        if (bin >= 0) {
            counts[static_cast<std::size_t>(bin)] += n;
        }
        return bin;
    }

    // The errors a binning makes of some values (as dpx::binColumn, with their number).
    Status check(const ColumnInfo& column) const {
        const Binning& b = p_.binning;
        if (b.kind == BinningKind::Categories && b.unknown == UnknownCategory::Error &&
            report.unknownCategories > 0) {
            return Error{"column " + quotedName(column.name) + " holds " +
                         groupThousands(report.unknownCategories) +
                         (report.unknownCategories == 1 ? " value" : " values") +
                         " not in the category list (the binning makes that an error; count them "
                         "in an \"other\" bin or drop them instead)"};
        }
        if (notWhole > 0) {
            return Error{"column " + quotedName(column.name) + " holds " +
                         groupThousands(notWhole) + (notWhole == 1 ? " value" : " values") +
                         " that " + (notWhole == 1 ? "is" : "are") +
                         " not whole numbers; integer bins need whole numbers (use equal-width "
                         "bins)"};
        }
        if (p_.mode == Mode::Distinct) {
            if (ids_.size() > static_cast<std::size_t>(kMaxBins)) {
                return Error{"column " + quotedName(column.name) + " has more than " +
                             groupThousands(kMaxBins) +
                             " distinct values, too many to give each its own bin (use "
                             "equal-width bins, or a fixed category list)"};
            }
            if (ids_.empty()) {
                return Error{"column " + quotedName(column.name) +
                             " has only missing values, so there are no categories to make bins "
                             "of"};
            }
        }
        return okStatus();
    }

    // The bins: labels, edges, and for each bin index record() returned its final bin (categories
    // from the data: sorted — numbers ascending, text in byte order, as core's Sorted — or, for
    // FirstSeen, by their first position: rowid in SQLite; PostgreSQL has no row order, sorted).
    void finishBins(std::vector<std::string>& labels, std::vector<double>& edges,
                    std::vector<std::size_t>& finalBin) const {
        if (p_.mode != Mode::Distinct) {
            labels = p_.layout.labels;
            edges = p_.layout.edges;
            finalBin.resize(labels.size());
            std::iota(finalBin.begin(), finalBin.end(), std::size_t{0});
            return;
        }
        std::vector<std::size_t> order;  // ids in bin order
        if (p_.numeric) {
            for (const auto& [v, id] : numIds_) {
                order.push_back(id);
            }
        } else {
            for (const auto& [v, id] : textIds_) {
                order.push_back(id);
            }
        }
        if (p_.binning.order == CategoryOrder::FirstSeen) {
            std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
                return firstPos_[x] < firstPos_[y];
            });
        }
        finalBin.assign(ids_.size(), 0);
        labels.clear();
        for (std::size_t i = 0; i < order.size(); ++i) {
            finalBin[order[i]] = i;
            labels.push_back(ids_[order[i]]);
        }
        edges.clear();
    }

    const Plan& plan() const { return p_; }

    BinningReport report;
    std::vector<std::int64_t> counts;  // per bin, or per category id
    std::int64_t invalid = 0;
    std::int64_t notWhole = 0;

private:
    // The same decisions as the SQL for a number parsed by the client (SQLite text values).
    int classify(double v) const {
        const Binning& b = p_.binning;
        if (p_.mode == Mode::Edges) {
            if (b.kind == BinningKind::Integer && std::floor(v) != v) {
                return kNotWhole;
            }
            if (v < p_.lo) {
                return kLow;
            }
            if (p_.hiInside ? v > p_.hi : v >= p_.hi) {
                return kHigh;
            }
            const auto it = std::upper_bound(p_.lower.begin(), p_.lower.end(), v);
            return static_cast<int>(it - p_.lower.begin()) - 1;
        }
        const double z = v == 0 ? 0.0 : v;
        const auto it = std::find(p_.numericCategories.begin(), p_.numericCategories.end(), z);
        return it == p_.numericCategories.end()
                   ? kUnknown
                   : static_cast<int>(it - p_.numericCategories.begin());
    }

    std::int64_t categoryId(const Decoded& d, std::int64_t pos) {
        std::size_t id = ids_.size();
        if (p_.numeric) {
            const auto [it, fresh] = numIds_.try_emplace(d.num, id);
            id = it->second;
            if (fresh) {
                ids_.push_back(formatShortest(d.num));
            }
        } else {
            const auto [it, fresh] = textIds_.try_emplace(d.text, id);
            id = it->second;
            if (fresh) {
                ids_.push_back(d.text);
            }
        }
        if (id == counts.size()) {
            counts.push_back(0);
            firstPos_.push_back(pos);
        }
        firstPos_[id] = std::min(firstPos_[id], pos);
        return static_cast<std::int64_t>(id);
    }

    const Plan& p_;
    std::map<double, std::size_t> numIds_;
    std::map<std::string, std::size_t> textIds_;
    std::vector<std::string> ids_;  // label of each category id
    std::vector<std::int64_t> firstPos_;
};

struct ColumnResult {
    std::optional<BinnedColumn> binned;
    std::int64_t rows = 0;  // every row of the table
    std::int64_t capped = 0;
    std::int64_t missingId = 0;
    std::int64_t invalid = 0;
};

Expected<ColumnResult> readResult(const std::vector<ResultRow>& rows, const Plan& p,
                                  const ColumnInfo& column) {
    ColumnResult r;
    ColumnDecoder dec(p);
    std::int64_t resultRows = 0;
    for (const ResultRow& row : rows) {
        ++resultRows;
        r.rows += row.n;
        if (row.code == kCapped) {
            r.capped += row.n;
            continue;
        }
        if (row.code == kMissingId) {
            r.missingId += row.n;
            continue;
        }
        dec.record(dec.decode(row.code, row.key), row.n, row.pos);
    }
    if (auto ok = dec.check(column); !ok) {
        return ok.error();
    }
    // The query stops at kMaxBins + 16 groups: reaching it means too many values (never a
    // silently truncated result).
    if (p.mode == Mode::Distinct && resultRows >= kMaxBins + 16) {
        return Error{"column " + quotedName(column.name) + " has more than " +
                     groupThousands(kMaxBins) +
                     " distinct values, too many to give each its own bin (use equal-width "
                     "bins, or a fixed category list)"};
    }
    std::vector<std::string> labels;
    std::vector<double> edges;
    std::vector<std::size_t> finalBin;
    dec.finishBins(labels, edges, finalBin);
    std::vector<std::int64_t> counts(labels.size(), 0);
    for (std::size_t i = 0; i < dec.counts.size(); ++i) {
        counts[finalBin[i]] += dec.counts[i];
    }
    BinningReport rep = dec.report;
    rep.used = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
    r.invalid = dec.invalid;
    auto h = Histogram::create(std::move(counts), std::move(labels), std::move(edges));
    if (!h) {
        return h.error();
    }
    r.binned = BinnedColumn{std::move(h).value(), rep};
    return r;
}

// The checks and the connection every count starts with: the cap, the connection, and on
// PostgreSQL the canceller that turns a stop request into pg_cancel_backend.
Status openForCounting(Connection& c, std::optional<PgCanceller>& canceller,
                       const ContributionCap& cap, const std::stop_token& stop) {
    if (cap.enabled() && cap.maxRowsPerPerson < 1) {
        return Error{"the contribution cap must be at least 1 row per person, not " +
                     std::to_string(cap.maxRowsPerPerson)};
    }
    if (auto ok = c.open(); !ok) {
        return ok;
    }
    if (c.dialect() == SqlDriver::PostgreSQL) {
        canceller.emplace(c.spec(), c.backendPid(), stop);
    }
    return okStatus();
}

// The table, its columns and a plan for each requested column: every name is checked and every
// binning validated before any query runs. `aliased`: the columns' values are named dpx_v0,
// dpx_v1, … (for queries over several columns), else each dpx_v.
struct PreparedColumns {
    TableRef table;
    std::string tableSql;
    std::vector<ColumnInfo> infos;
    std::vector<Plan> plans;
};

Expected<PreparedColumns> prepareColumns(Connection& c, const std::string& table,
                                         const std::vector<ColumnRequest>& columns,
                                         const ContributionCap& cap, bool aliased) {
    PreparedColumns out;
    auto t = resolveTable(c, table);
    if (!t) {
        return t.error();
    }
    out.table = *t;
    auto cols = listColumnsOf(c, *t);
    if (!cols) {
        return cols.error();
    }
    auto tableSql =
        c.standard()
            ? Expected<std::string>((t->schema.empty() ? std::string() : c.quote(t->schema) + ".") +
                                    c.quote(t->name))
            : qualifiedName(c.dialect(), *t);
    if (!tableSql) {
        return tableSql.error();
    }
    out.tableSql = *tableSql;
    if (cap.enabled()) {
        if (auto id = findColumn(*cols, cap.idColumn, t->display); !id) {
            return id.error();
        }
    }
    for (std::size_t i = 0; i < columns.size(); ++i) {
        auto ci = findColumn(*cols, columns[i].column, t->display);
        if (!ci) {
            return ci.error();
        }
        const std::string alias = aliased ? "dpx_v" + std::to_string(i) : std::string("dpx_v");
        auto plan = c.standard()
                        ? buildStandardPlan(c, *ci, columns[i].binning, alias)
                        : buildPlan(c.dialect(), *tableSql, *ci, columns[i].binning, cap, alias);
        if (!plan) {
            return plan.error();
        }
        out.infos.push_back(std::move(ci).value());
        out.plans.push_back(std::move(plan).value());
    }
    return out;
}

// Under BadRowPolicy::Stop: the first reason of `skipped` as the error. The database counts, so
// there is no first bad row to name: say how many.
Error badValueError(const std::string& table,
                    const std::vector<std::pair<std::string, std::int64_t>>& skipped) {
    const auto& [reason, n] = skipped.front();
    const auto colon = reason.rfind(": ");
    const std::string where =
        colon == std::string::npos ? "" : "column " + quotedName(reason.substr(0, colon)) + ": ";
    const std::string kind = colon == std::string::npos ? reason : reason.substr(colon + 2);
    const std::string detail =
        kind == "not a number"
            ? " (text or a blob that is not a number, ±infinity, NaN or a number beyond the "
              "double range)"
        : kind == "missing id" ? " (rows without an id under the contribution cap)"
                               : "";
    return Error{"table " + quotedName(table) + ", " + where + groupThousands(n) +
                 (n == 1 ? " value is " : " values are ") + kind + detail +
                 "; the bad-row policy is stop (skip them to count the rest)"};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API

const char* sqlDialectName(SqlDialect dialect) {
    switch (dialect) {
        case SqlDialect::Auto:
            return "auto";
        case SqlDialect::PostgreSQL:
            return "postgresql";
        case SqlDialect::SQLite:
            return "sqlite";
        case SqlDialect::Standard:
            return "standard";
    }
    return "?";
}

Expected<SqlDialect> parseSqlDialect(std::string_view text) {
    for (SqlDialect d :
         {SqlDialect::Auto, SqlDialect::PostgreSQL, SqlDialect::SQLite, SqlDialect::Standard}) {
        if (text == sqlDialectName(d)) {
            return d;
        }
    }
    return Error{"the SQL dialect " + quotedName(text) +
                 " is not auto, postgresql, sqlite or standard"};
}

const char* sqlDriverName(SqlDriver driver) {
    switch (driver) {
        case SqlDriver::SQLite:
            return "SQLite";
        case SqlDriver::PostgreSQL:
            return "PostgreSQL";
        case SqlDriver::ODBC:
            return "ODBC";
    }
    return "?";
}

namespace {

// The key=value attributes of an ODBC connection string (ODBC 3.8 SQLDriverConnect grammar: pairs
// separated by ';', a value in braces may hold ';' and '}}' stands for '}').
struct OdbcAttribute {
    std::string key, value;  // key as written; value as written (braces kept)
};

Expected<std::vector<OdbcAttribute>> odbcAttributes(std::string_view text) {
    std::vector<OdbcAttribute> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ';' || text[i] == ' ')) {
            ++i;
        }
        if (i >= text.size()) {
            break;
        }
        const std::size_t eq = text.find('=', i);
        if (eq == std::string_view::npos) {
            return Error{"the ODBC connection string has " +
                         quotedName(text.substr(i, std::min<std::size_t>(text.size() - i, 40))) +
                         " without '=' (expected KEY=VALUE;KEY=VALUE…)"};
        }
        OdbcAttribute a;
        a.key = std::string(text.substr(i, eq - i));
        while (!a.key.empty() && a.key.back() == ' ') {
            a.key.pop_back();
        }
        i = eq + 1;
        if (i < text.size() && text[i] == '{') {
            std::size_t j = i + 1;
            while (true) {
                if (j >= text.size()) {
                    return Error{"the ODBC connection string has an unclosed '{' in the value of " +
                                 quotedName(a.key)};
                }
                if (text[j] == '}') {
                    if (j + 1 < text.size() && text[j + 1] == '}') {
                        j += 2;
                        continue;
                    }
                    break;
                }
                ++j;
            }
            a.value = std::string(text.substr(i, j + 1 - i));
            i = j + 1;
        } else {
            const std::size_t semi = std::min(text.find(';', i), text.size());
            a.value = std::string(text.substr(i, semi - i));
            i = semi;
        }
        out.push_back(std::move(a));
    }
    return out;
}

bool isOdbcPasswordKey(const std::string& key) {
    const std::string k = lower(key);
    return k == "pwd" || k == "password";
}

}  // namespace

namespace {

// The timeouts of a server connection (PostgreSQL, ODBC).
Status validateTimeouts(int connectTimeoutSeconds, int statementTimeoutMs) {
    if (connectTimeoutSeconds < 1 || connectTimeoutSeconds > 3600) {
        return Error{"the connect timeout must be 1..3600 s, not " +
                     std::to_string(connectTimeoutSeconds)};
    }
    if (statementTimeoutMs < 0) {
        return Error{"the statement timeout must be ≥ 0 ms (0: none), not " +
                     std::to_string(statementTimeoutMs)};
    }
    return okStatus();
}

}  // namespace

Status SqlConnectionSpec::validate() const {
    if ((dialect == SqlDialect::PostgreSQL && driver == SqlDriver::SQLite) ||
        (dialect == SqlDialect::SQLite && driver == SqlDriver::PostgreSQL)) {
        return Error{std::string("the SQL dialect ") + sqlDialectName(dialect) +
                     " does not fit a " + sqlDriverName(driver) +
                     " source (use auto or standard; postgresql and sqlite can be forced on ODBC "
                     "sources)"};
    }
    if (driver == SqlDriver::SQLite) {
        if (path.empty()) {
            return Error{"the SQLite file path is empty"};
        }
        return okStatus();
    }
    if (driver == SqlDriver::ODBC) {
        auto attrs = odbcAttributes(odbc);
        if (!attrs) {
            return attrs.error();
        }
        bool named = false;
        for (const OdbcAttribute& a : *attrs) {
            const std::string k = lower(a.key);
            named = named || k == "dsn" || k == "driver" || k == "filedsn";
        }
        if (!named) {
            return Error{
                "the ODBC connection string names no data source or driver (it needs "
                "DSN=name or Driver={name})"};
        }
        return validateTimeouts(connectTimeoutSeconds, statementTimeoutMs);
    }
    if (host.empty()) {
        return Error{"the PostgreSQL host is empty"};
    }
    if (port < 1 || port > 65535) {
        return Error{"the PostgreSQL port must be in 1..65535, not " + std::to_string(port)};
    }
    if (database.empty()) {
        return Error{"the PostgreSQL database name is empty"};
    }
    return validateTimeouts(connectTimeoutSeconds, statementTimeoutMs);
}

std::string SqlConnectionSpec::describe() const {
    if (driver == SqlDriver::SQLite) {
        return "SQLite file " + path;
    }
    if (driver == SqlDriver::ODBC) {
        // The connection string without its password.
        std::string shown;
        auto attrs = odbcAttributes(odbc);
        if (attrs) {
            for (const OdbcAttribute& a : *attrs) {
                if (!isOdbcPasswordKey(a.key)) {
                    shown += (shown.empty() ? "" : ";") + a.key + "=" + a.value;
                }
            }
        } else {
            shown = "(unreadable connection string)";
        }
        return "ODBC data source " + shown;
    }
    std::string s = "PostgreSQL database " + quotedName(database);
    if (!user.empty()) {
        s += " as user " + quotedName(user);
    }
    return s + " on " + host + ":" + std::to_string(port);
}

bool isSqlUri(std::string_view text) {
    return text.starts_with("sqlite:") || text.starts_with("postgresql://") ||
           text.starts_with("postgres://") || text.starts_with("odbc:");
}

Expected<SqlConnectionSpec> parseSqlUri(std::string_view uri) {
    SqlConnectionSpec s;
    if (uri.starts_with("sqlite:")) {
        s.driver = SqlDriver::SQLite;
        s.path = std::string(uri.substr(7));
        // Also accept sqlite:///abs/path (URL form).
        if (s.path.starts_with("//")) {
            s.path = s.path.substr(2);
        }
        if (s.path.empty()) {
            return Error{"the URI " + quotedName(uri) + " names no file (sqlite:PATH)"};
        }
        return s;
    }
    if (uri.starts_with("odbc:")) {
        s.driver = SqlDriver::ODBC;
        s.odbc = std::string(uri.substr(5));
        if (auto ok = s.validate(); !ok) {
            return Error{"invalid ODBC URI (odbc:DSN=name or odbc:Driver={name};Server=…): " +
                         ok.error().message};
        }
        return s;
    }
    if (!uri.starts_with("postgresql://") && !uri.starts_with("postgres://")) {
        return Error{"unknown data URI " + quotedName(uri) +
                     " (expected sqlite:PATH, postgresql://user@host:port/database or "
                     "odbc:DSN=name)"};
    }
    const QUrl url(qs(uri), QUrl::StrictMode);
    if (!url.isValid()) {
        return Error{"invalid PostgreSQL URI: " + url.errorString().toStdString()};
    }
    s.driver = SqlDriver::PostgreSQL;
    s.user = url.userName(QUrl::FullyDecoded).toStdString();
    s.password = url.password(QUrl::FullyDecoded).toStdString();
    s.host = url.host(QUrl::FullyDecoded).toStdString();
    s.port = url.port(5432);
    std::string db = url.path(QUrl::FullyDecoded).toStdString();
    if (!db.empty() && db.front() == '/') {
        db.erase(0, 1);
    }
    s.database = db;
    const QUrlQuery query(url);
    for (const auto& [k, v] : query.queryItems(QUrl::FullyDecoded)) {
        const std::string key = k.toStdString();
        bool ok = false;
        if (key == "connect_timeout") {
            s.connectTimeoutSeconds = v.toInt(&ok);
        } else if (key == "statement_timeout") {
            s.statementTimeoutMs = v.toInt(&ok);
        } else if (key == "host") {
            s.host = v.toStdString();
            ok = !s.host.empty();
        } else if (key == "port") {
            s.port = v.toInt(&ok);
        } else if (key == "user") {
            s.user = v.toStdString();
            ok = true;
        } else {
            return Error{"unknown parameter " + quotedName(key) +
                         " in the PostgreSQL URI (known: connect_timeout, statement_timeout, host, "
                         "port, user)"};
        }
        if (!ok) {
            return Error{"invalid value " + quotedName(v.toStdString()) + " for " + key +
                         " in the PostgreSQL URI"};
        }
    }
    if (s.host.empty()) {
        s.host = "localhost";
    }
    if (auto ok = s.validate(); !ok) {
        return Error{"invalid PostgreSQL URI: " + ok.error().message};
    }
    return s;
}

ValueType sqlValueType(SqlDriver driver, std::string_view declaredType) {
    const std::string t = lower(declaredType);
    if (driver == SqlDriver::PostgreSQL) {
        if (t == "smallint" || t == "integer" || t == "bigint") {
            return ValueType::Integer;
        }
        if (t == "real" || t == "double precision" || t == "numeric") {
            return ValueType::Float;
        }
        if (t == "date") {
            return ValueType::Date;
        }
        return ValueType::Categorical;
    }
    // SQLite's affinity rules (https://sqlite.org/datatype3.html §3.1), in their order.
    if (contains(t, "int")) {
        return ValueType::Integer;
    }
    if (t.empty() || contains(t, "char") || contains(t, "clob") || contains(t, "text") ||
        contains(t, "blob")) {
        return ValueType::Categorical;
    }
    if (contains(t, "date") || contains(t, "time")) {
        return ValueType::Date;
    }
    return ValueType::Float;
}

Expected<std::string> quoteSqlIdentifier(std::string_view name) {
    if (name.empty()) {
        return Error{"an empty name cannot be an SQL identifier"};
    }
    if (name.find('\0') != std::string_view::npos) {
        return Error{"the name " + quotedName(name) + " has a NUL character"};
    }
    std::string s = "\"";
    for (char c : name) {
        s += c;
        if (c == '"') {
            s += '"';
        }
    }
    return s + "\"";
}

Expected<std::vector<std::string>> sqlListTables(const SqlConnectionSpec& spec,
                                                 std::stop_token stop) {
    Connection c(spec);
    if (auto ok = c.open(); !ok) {
        return ok.error();
    }
    if (stop.stop_requested()) {
        return Error{"listing the tables: cancelled"};
    }
    auto tables = listTableRefs(c);
    if (!tables) {
        return tables.error();
    }
    std::vector<std::string> out;
    for (const TableRef& t : *tables) {
        out.push_back(t.display);
    }
    return out;
}

Expected<std::vector<ColumnInfo>> sqlListColumns(const SqlConnectionSpec& spec,
                                                 const std::string& table, std::stop_token stop) {
    Connection c(spec);
    if (auto ok = c.open(); !ok) {
        return ok.error();
    }
    if (stop.stop_requested()) {
        return Error{"listing the columns: cancelled"};
    }
    auto t = resolveTable(c, table);
    if (!t) {
        return t.error();
    }
    return listColumnsOf(c, *t);
}

Expected<SqlColumnRange> sqlColumnRange(const SqlConnectionSpec& spec, const std::string& table,
                                        const std::string& column, std::stop_token stop) {
    Connection c(spec);
    if (auto ok = c.open(); !ok) {
        return ok.error();
    }
    if (stop.stop_requested()) {
        return Error{"the range of column " + quotedName(column) + ": cancelled"};
    }
    auto t = resolveTable(c, table);
    if (!t) {
        return t.error();
    }
    auto cols = listColumnsOf(c, *t);
    if (!cols) {
        return cols.error();
    }
    auto ci = findColumn(*cols, column, table);
    if (!ci) {
        return ci.error();
    }
    if (ci->type == ValueType::Categorical) {
        return Error{"column " + quotedName(column) + " of table " + quotedName(table) +
                     " holds text (" + (ci->declaredType.empty() ? "no type" : ci->declaredType) +
                     "), so it has no numeric range"};
    }
    auto tableSql =
        c.standard()
            ? Expected<std::string>((t->schema.empty() ? std::string() : c.quote(t->schema) + ".") +
                                    c.quote(t->name))
            : qualifiedName(c.dialect(), *t);
    auto colSql =
        c.standard() ? Expected<std::string>(c.quote(column)) : quoteSqlIdentifier(column);
    if (!tableSql || !colSql) {
        return !tableSql ? tableSql.error() : colSql.error();
    }
    const bool pg = c.dialect() == SqlDriver::PostgreSQL;
    std::string v = "t." + *colSql;
    std::string where;
    std::string sql;
    if (c.standard()) {
        if (ci->type == ValueType::Date) {
            return Error{"column " + quotedName(column) +
                         " holds dates, which the standard SQL dialect cannot turn into numbers "
                         "portably; declare its range"};
        }
        // Finite numbers only, checked on the value as declared (as in the binning CASE).
        where = "v IS NOT NULL AND v <= " + std::string(kStdMax) + " AND v >= -" + kStdMax +
                " AND v = v";
        sql =
            "SELECT COUNT(*) AS n, MIN(w) AS lo, MAX(w) AS hi FROM (SELECT CAST(v AS DOUBLE "
            "PRECISION) AS w FROM (SELECT " +
            v + " AS v FROM " + *tableSql + " AS t) AS s WHERE " + where + ") AS r";
    } else if (pg) {
        if (ci->type == ValueType::Date) {
            v = "(" + v + " - DATE '1970-01-01')::float8";
            where = "v IS NOT NULL AND v <> 'Infinity'::float8 AND v <> '-Infinity'::float8";
        } else {
            v += "::float8";
            where = "v IS NOT NULL AND v <> 'NaN'::float8";
        }
    } else {
        if (ci->type == ValueType::Date) {
            return Error{"column " + quotedName(column) +
                         " holds dates as text in SQLite; declare its range"};
        }
        where = "typeof(v) IN ('integer', 'real')";
    }
    if (sql.empty()) {
        sql = "SELECT count(*), min(v), max(v) FROM (SELECT " + v + " AS v FROM " + *tableSql +
              " AS t) AS s WHERE " + where;
    }
    std::optional<PgCanceller> canceller;
    if (pg) {
        canceller.emplace(spec, c.backendPid(), stop);
    }
    auto q = c.run(sql, {}, "the range of column " + quotedName(column), stop);
    if (!q) {
        return q.error();
    }
    SqlColumnRange r;
    if (q->next()) {
        r.numbers = q->value(0).toLongLong();
        if (r.numbers > 0) {
            auto lo = variantNumber(q->value(1));
            auto hi = variantNumber(q->value(2));
            if (!lo || !hi) {
                return Error{"the range of column " + quotedName(column) +
                             ": the database returned a value that is not a number"};
            }
            r.min = *lo;
            r.max = *hi;
        }
    }
    return r;
}

Expected<std::string> sqlHistogramQuery(SqlDriver driver, const std::string& table,
                                        const ColumnInfo& column, const Binning& binning,
                                        const ContributionCap& cap) {
    if (driver == SqlDriver::ODBC) {
        return Error{
            "through ODBC the SQL is that of the database behind the driver: ask for the "
            "PostgreSQL or the SQLite query"};
    }
    TableRef t{"", table, table};
    if (driver == SqlDriver::PostgreSQL) {
        const auto dot = table.find('.');
        t.schema = dot == std::string::npos ? "public" : table.substr(0, dot);
        t.name = dot == std::string::npos ? table : table.substr(dot + 1);
    }
    auto tableSql = qualifiedName(driver, t);
    if (!tableSql) {
        return tableSql.error();
    }
    auto plan = buildPlan(driver, *tableSql, column, binning, cap);
    if (!plan) {
        return plan.error();
    }
    // The parameters in order, after the SQL (long arrays shortened).
    std::string s = plan->sql;
    if (!plan->paramText.empty()) {
        s += "\n-- parameters:";
        for (std::size_t i = 0; i < plan->paramText.size(); ++i) {
            std::string v = plan->paramText[i];
            if (v.size() > 80) {
                v = v.substr(0, 77) + "...";
            }
            s += (i ? ", " : " ") + v;
        }
    }
    return s;
}

Expected<SourceHistograms> sqlHistograms(const SqlConnectionSpec& spec, const std::string& table,
                                         const std::vector<ColumnRequest>& columns,
                                         const ContributionCap& cap, std::stop_token stop,
                                         BadRowPolicy onBadValue) {
    if (columns.empty()) {
        return Error{"no column to count"};
    }
    Connection c(spec);
    std::optional<PgCanceller> canceller;
    if (auto ok = openForCounting(c, canceller, cap, stop); !ok) {
        return ok.error();
    }
    const SqlDriver dialect = c.dialect();
    const bool pg = dialect == SqlDriver::PostgreSQL;
    auto prepared = prepareColumns(c, table, columns, cap, pg);
    if (!prepared) {
        return prepared.error();
    }
    const TableRef* t = &prepared->table;
    const std::string* tableSql = &prepared->tableSql;
    const std::vector<ColumnInfo>& infos = prepared->infos;
    const std::vector<Plan>& plans = prepared->plans;
    std::vector<std::vector<ResultRow>> results(columns.size());
    const std::string what = "counting table " + quotedName(t->display);

    // PostgreSQL: the columns with declared bins share one scan of the table (and one evaluation
    // of the cap's window function): GROUPING SETS ((b0), (b1), …) gives each column's
    // (code, count) rows, told apart by which b is not NULL (a code never is).
    std::vector<std::size_t> shared;
    for (std::size_t i = 0; pg && i < plans.size(); ++i) {
        if (plans[i].mode != Mode::Distinct) {
            shared.push_back(i);
        }
    }
    if (shared.size() < 2) {
        shared.clear();
    }
    if (!shared.empty()) {
        std::string inner = "SELECT ";
        std::string mid = "SELECT ";
        std::string outer = "SELECT ";
        std::string sets;
        std::vector<QVariant> params;
        for (std::size_t j = 0; j < shared.size(); ++j) {
            const Plan& p = plans[shared[j]];
            const std::string b = "b" + std::to_string(j);
            inner += (j ? ", " : "") + p.innerItem;
            mid += (j ? ", " : "") + p.caseSql + " AS " + b;
            outer += b + ", ";
            sets += (j ? ", (" : "(") + b + ")";
            params.insert(params.end(), p.params.begin(), p.params.end());
        }
        inner += capItems(dialect, cap) + " FROM " + *tableSql + " AS t";
        const std::string sql = outer + "count(*) FROM (" + mid + " FROM (" + inner +
                                ") AS s) AS q GROUP BY GROUPING SETS (" + sets + ")";
        auto q = c.run(sql, params, what, stop);
        if (!q) {
            return q.error();
        }
        const int nShared = static_cast<int>(shared.size());
        while (q->next()) {
            for (int j = 0; j < nShared; ++j) {
                if (!q->value(j).isNull()) {
                    ResultRow row;
                    row.code = q->value(j).toInt();
                    row.n = q->value(nShared).toLongLong();
                    results[shared[static_cast<std::size_t>(j)]].push_back(std::move(row));
                    break;
                }
            }
        }
        if (q->lastError().isValid()) {
            return Error{what + ": reading the counts failed: " + errorText(q->lastError())};
        }
    }
    for (std::size_t i = 0; i < plans.size(); ++i) {
        if (std::find(shared.begin(), shared.end(), i) != shared.end()) {
            continue;
        }
        if (stop.stop_requested()) {
            return Error{what + ": cancelled"};
        }
        const Plan& p = plans[i];
        // The standard dialect: the one GROUP BY of the joint table over this column alone.
        const StandardQuery sq =
            c.standard() ? standardQuery(c, {&p}, *tableSql, cap) : StandardQuery{};
        auto q = c.run(c.standard() ? sq.sql : p.sql, c.standard() ? sq.params : p.params,
                       "counting column " + quotedName(columns[i].column) + " of table " +
                           quotedName(t->display),
                       stop);
        if (!q) {
            return q.error();
        }
        const bool hasPos = !c.standard() && q->record().count() > 3;
        while (q->next()) {
            ResultRow row;
            row.code = q->value(0).toInt();
            row.key = q->value(1);
            row.n = q->value(2).toLongLong();
            if (hasPos) {
                row.pos = q->value(3).toLongLong();
            }
            results[i].push_back(std::move(row));
        }
        if (q->lastError().isValid()) {
            return Error{what + ": reading the counts of column " + quotedName(columns[i].column) +
                         " failed: " + errorText(q->lastError())};
        }
    }

    SourceHistograms out;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        auto r = readResult(results[i], plans[i], infos[i]);
        if (!r) {
            return r.error();
        }
        if (i == 0) {
            out.rows = r->rows;
            out.cappedRows = r->capped;
            if (r->missingId > 0) {
                out.skipped.emplace_back("missing id", r->missingId);
            }
        }
        if (r->invalid > 0) {
            out.skipped.emplace_back(
                columns[i].column + (plans[i].dates ? ": not a date" : ": not a number"),
                r->invalid);
        }
        out.columns.push_back(std::move(*r->binned));
    }
    if (onBadValue == BadRowPolicy::Stop && !out.skipped.empty()) {
        return badValueError(table, out.skipped);
    }
    return out;
}

namespace {

// The connection of a `--data` URI that must name a table.
Expected<SqlConnectionSpec> uriWithTable(std::string_view uri, const std::string& table) {
    auto spec = parseSqlUri(uri);
    if (spec && table.empty()) {
        return Error{std::string("a ") + sqlDriverName(spec->driver) +
                     " source needs a table (--table T)"};
    }
    return spec;
}

}  // namespace

Expected<SourceHistograms> histogramsFromUri(std::string_view uri, const std::string& table,
                                             const std::vector<ColumnRequest>& columns,
                                             const ContributionCap& cap, std::stop_token stop,
                                             BadRowPolicy onBadValue) {
    auto spec = uriWithTable(uri, table);
    if (!spec) {
        return spec.error();
    }
    return sqlHistograms(*spec, table, columns, cap, std::move(stop), onBadValue);
}

Expected<SourceTable> sqlJointTable(const SqlConnectionSpec& spec, const std::string& table,
                                    const std::vector<ColumnRequest>& columns,
                                    const ContributionCap& cap, std::stop_token stop,
                                    BadRowPolicy onBadValue) {
    if (columns.empty()) {
        return Error{"no column to make a joint table of"};
    }
    // The declared domain, before connecting.
    if (auto ok = checkJointDomain(columns); !ok) {
        return ok.error();
    }
    for (std::size_t a = 0; a < columns.size(); ++a) {
        for (std::size_t b = 0; b < a; ++b) {
            if (columns[a].column == columns[b].column) {
                return Error{"the column " + quotedName(columns[a].column) +
                             " is asked for twice; a joint table needs distinct columns"};
            }
        }
    }
    Connection c(spec);
    std::optional<PgCanceller> canceller;
    if (auto ok = openForCounting(c, canceller, cap, stop); !ok) {
        return ok.error();
    }
    const SqlDriver dialect = c.dialect();
    const bool pg = dialect == SqlDriver::PostgreSQL;
    auto prepared = prepareColumns(c, table, columns, cap, true);
    if (!prepared) {
        return prepared.error();
    }
    const std::vector<Plan>& plans = prepared->plans;
    const std::size_t k = plans.size();

    // One GROUP BY over the k codes (and the keys of categories from the data / SQLite text):
    // the occupied cells and the reason combinations cross the connection, never the rows.
    //   SELECT b0, k0, b1, k1, …, count(*) [, min(pos)]
    //   FROM (SELECT <case0> AS b0, <value0> AS v0, … FROM (SELECT t.c0 AS dpx_v0, … FROM T AS t))
    //   GROUP BY 1, 2, …, 2k
    bool needPos = false;
    for (const Plan& p : plans) {
        needPos = needPos ||
                  (!pg && p.mode == Mode::Distinct && p.binning.order == CategoryOrder::FirstSeen);
    }
    std::string inner = "SELECT ";
    std::string mid = "SELECT ";
    std::string outer = "SELECT ";
    std::string groups;
    std::vector<QVariant> params;
    for (std::size_t j = 0; j < k; ++j) {
        const Plan& p = plans[j];
        const std::string b = "b" + std::to_string(j);
        const std::string v = "v" + std::to_string(j);
        inner += (j ? ", " : "") + p.innerItem;
        mid += (j ? ", " : "") + p.caseSql + " AS " + b + ", " + p.valueSql + " AS " + v;
        // The key (the value itself) only where the client needs it: categories from the data,
        // and SQLite text parsed by the client. Elsewhere a constant NULL that is not grouped
        // by: a key CASE refers to the code, and PostgreSQL would evaluate the code's CASE once
        // more for it (twice the time on 10^6 rows).
        const std::string key = "k" + std::to_string(j);
        const std::string bj = std::to_string(2 * j + 1), kj = std::to_string(2 * j + 2);
        if (p.mode == Mode::Distinct) {
            outer += b + ", CASE WHEN " + b + " = 0 OR " + b + " = " + std::to_string(kClientText) +
                     " THEN " + v + " END AS " + key + ", ";
            groups += (j ? ", " : "") + bj + ", " + kj;
        } else if (!pg) {
            outer += b + ", CASE WHEN " + b + " = " + std::to_string(kClientText) + " THEN " + v +
                     " END AS " + key + ", ";
            groups += (j ? ", " : "") + bj + ", " + kj;
        } else {
            outer += b + ", NULL AS " + key + ", ";
            groups += (j ? ", " : "") + bj;
        }
        params.insert(params.end(), p.params.begin(), p.params.end());
    }
    if (needPos) {
        inner += ", t.rowid AS dpx_pos";
        mid += ", dpx_pos AS pos";
    }
    inner += capItems(dialect, cap) + " FROM " + prepared->tableSql + " AS t";
    std::string sql = outer + "count(*)" + (needPos ? ", min(pos)" : "") + " FROM (" + mid +
                      " FROM (" + inner + ") AS s) AS q GROUP BY " + groups;
    if (c.standard()) {
        std::vector<const Plan*> all;
        for (const Plan& p : plans) {
            all.push_back(&p);
        }
        StandardQuery sq = standardQuery(c, all, prepared->tableSql, cap);
        sql = std::move(sq.sql);
        params = std::move(sq.params);
        needPos = false;
    }
    const std::string what = "counting the joint table of " + quotedName(prepared->table.display);
    auto q = c.run(sql, params, what, stop);
    if (!q) {
        return q.error();
    }

    // Each group as the CSV reader sees a row: a bad value in any column skips it (counted under
    // "<column>: not a number"); otherwise the columns in request order, up to the first that
    // drops it, each reporting what it saw.
    std::vector<ColumnDecoder> decoders;
    decoders.reserve(k);
    for (const Plan& p : plans) {
        decoders.emplace_back(p);
    }
    SourceTable out;
    std::int64_t missingId = 0;
    std::vector<std::pair<std::string, std::int64_t>> invalid;  // per column, in request order
    for (std::size_t j = 0; j < k; ++j) {
        invalid.emplace_back(
            columns[j].column + (plans[j].dates ? ": not a date" : ": not a number"), 0);
    }
    // Provisional cells: the bins (category ids for categories from the data) → rows.
    std::map<std::vector<std::int64_t>, std::int64_t> cells;
    std::vector<Decoded> decoded(k);
    std::vector<std::int64_t> bins(k);
    const int nCols = static_cast<int>(2 * k);
    while (q->next()) {
        const std::int64_t n = q->value(nCols).toLongLong();
        const std::int64_t pos =
            needPos ? q->value(nCols + 1).toLongLong() : std::numeric_limits<std::int64_t>::max();
        out.rows += n;
        const int first = q->value(0).toInt();
        if (first == kCapped) {
            out.cappedRows += n;
            continue;
        }
        if (first == kMissingId) {
            missingId += n;
            continue;
        }
        bool bad = false;
        for (std::size_t j = 0; j < k && !bad; ++j) {
            const int jj = static_cast<int>(2 * j);
            decoded[j] = decoders[j].decode(q->value(jj).toInt(), q->value(jj + 1));
            if (decoded[j].code == kInvalid) {
                invalid[j].second += n;
                bad = true;
            }
        }
        if (bad) {
            continue;
        }
        bool counted = true;
        for (std::size_t j = 0; j < k && counted; ++j) {
            bins[j] = decoders[j].record(decoded[j], n, pos);
            counted = bins[j] >= 0;
        }
        if (counted) {
            cells[bins] += n;
        }
    }
    if (q->lastError().isValid()) {
        return Error{what + ": reading the counts failed: " + errorText(q->lastError())};
    }
    if (missingId > 0) {
        out.skipped.emplace_back("missing id", missingId);
    }
    for (const auto& reason : invalid) {
        if (reason.second > 0) {
            out.skipped.push_back(reason);
        }
    }
    if (onBadValue == BadRowPolicy::Stop && !out.skipped.empty()) {
        return badValueError(table, out.skipped);
    }
    std::vector<Attribute> attributes(k);
    std::vector<std::vector<std::size_t>> finalBins(k);
    for (std::size_t j = 0; j < k; ++j) {
        if (auto ok = decoders[j].check(prepared->infos[j]); !ok) {
            return ok.error();
        }
        Attribute& a = attributes[j];
        a.name = columns[j].column;
        decoders[j].finishBins(a.labels, a.edges, finalBins[j]);
        if (plans[j].mode == Mode::FixedCategories || plans[j].mode == Mode::Distinct) {
            a.edges.clear();
        }
        a.binning = columns[j].binning.describe();
        a.declared = plans[j].mode != Mode::Distinct;
        BinningReport rep = decoders[j].report;
        rep.used =
            std::accumulate(decoders[j].counts.begin(), decoders[j].counts.end(), std::int64_t{0});
        out.reports.push_back(rep);
    }
    // Final cell indices (C order over the final bins); the domain ≤ 2⁶⁴ is checked by fromCells
    // before any index is used, and the indices are computed in 128 bits.
    std::vector<TableCell> tableCells;
    tableCells.reserve(cells.size());
    for (const auto& [bin, n] : cells) {
        CellCount index = 0;
        for (std::size_t j = 0; j < k; ++j) {
            index = index * attributes[j].size() + finalBins[j][static_cast<std::size_t>(bin[j])];
        }
        tableCells.push_back({static_cast<std::uint64_t>(index), n});
    }
    // Bins merged on the way (a clamped value and its bin, SQLite text and numbers) are separate
    // groups of one cell: add them up.
    std::sort(tableCells.begin(), tableCells.end(),
              [](const TableCell& x, const TableCell& y) { return x.index < y.index; });
    std::vector<TableCell> merged;
    for (const TableCell& cell : tableCells) {
        if (!merged.empty() && merged.back().index == cell.index) {
            merged.back().count += cell.count;
        } else {
            merged.push_back(cell);
        }
    }
    auto joint = ContingencyTable::fromCells(std::move(attributes), std::move(merged));
    if (!joint) {
        return joint.error();
    }
    out.table = std::move(joint).value();
    out.counted = out.table.total();
    return out;
}

Expected<SourceTable> jointTableFromUri(std::string_view uri, const std::string& table,
                                        const std::vector<ColumnRequest>& columns,
                                        const ContributionCap& cap, std::stop_token stop,
                                        BadRowPolicy onBadValue) {
    auto spec = uriWithTable(uri, table);
    if (!spec) {
        return spec.error();
    }
    return sqlJointTable(*spec, table, columns, cap, std::move(stop), onBadValue);
}

}  // namespace dpx::data
