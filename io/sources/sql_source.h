// SQLite files, PostgreSQL servers and ODBC data sources as data sources (issues #5, #19), through
// Qt Sql (drivers QSQLITE from libqt6sql6-sqlite, QPSQL from libqt6sql6-psql and QODBC from
// libqt6sql6-odbc with unixODBC).
//
// ODBC: the SQL is written in the dialect of the database behind the ODBC driver, which Qt reports
// after connecting (SQL_DBMS_NAME): PostgreSQL (e.g. psqlODBC, Debian odbc-postgresql) and SQLite
// (e.g. the SQLite ODBC driver) get exactly the SQL of the native drivers, so the counts agree to
// the last row; any other database (SQL Server, MySQL, Oracle, DB2, …) gets the portable
// "standard" dialect (SQL:2003 core plus ROW_NUMBER() OVER): CASE comparisons against bound
// parameters, CAST, COUNT(*), tables and columns from the driver's catalogue (SQLTables,
// SQLColumns). SqlConnectionSpec::dialect forces a dialect (the tests force "standard" on
// PostgreSQL and SQLite, the engines that run here).
//
// Histograms are pushed into the database: a GROUP BY over a binning expression that maps every
// row to a bin index or to a reason code (missing, below/above the range, unknown category, not
// a number, over the contribution cap), so only a few counts cross the network. PostgreSQL
// counts all columns with declared bins in one scan (GROUPING SETS); categories taken from the
// data, and every SQLite column, get a query each. The bins are core's own: their edges come from
// dpx::binLayout as exact doubles bound as query parameters, and a value is looked up among them
// — PostgreSQL `width_bucket(v, lower_edges float8[])`, SQLite a balanced CASE tree — so a value
// sitting exactly on an edge lands in the same bin as with dpx::binColumn.
//
// Threads: a Qt Sql connection belongs to the thread that opened it. Every function here opens
// its own connection (under a unique connection name) on the calling thread, uses it and closes
// and removes it before returning; so any function may be called from any worker thread, several
// at once, and no connection outlives the call. Never call them on a GUI thread: they block on the
// network for up to the connect and statement timeouts.
//
// Safety: table, schema and column names are checked against the database's own listing and then
// quoted (double quotes, embedded quotes doubled); every value (edges, categories, cap) is bound as
// a query parameter. No user text is pasted into SQL unquoted.
#pragma once

#include <cstdint>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"
#include "io/sources/data_source.h"

namespace dpx::data {

enum class SqlDriver { SQLite, PostgreSQL, ODBC };
const char* sqlDriverName(SqlDriver driver);  // "SQLite" / "PostgreSQL" / "ODBC"

// The SQL the counting queries are written in. Auto: the driver's own (QSQLITE → SQLite, QPSQL →
// PostgreSQL) and, through ODBC, the database's (PostgreSQL and SQLite by name, Standard for any
// other). Standard: portable SQL for any engine (docs/data-sources.md, "The standard dialect"):
// same bins, reports and policies; a contribution cap keeps each person's rows in the order of
// their bins (not by md5 or rowid), categories from the data are sorted, and there is no statement
// timeout or cancellation inside a statement. PostgreSQL / SQLite may be forced on an ODBC source
// (an engine that speaks that dialect), never on the other native driver.
enum class SqlDialect { Auto, PostgreSQL, SQLite, Standard };
const char* sqlDialectName(SqlDialect dialect);  // "auto" / "postgresql" / "sqlite" / "standard"
Expected<SqlDialect> parseSqlDialect(std::string_view text);

struct SqlConnectionSpec {
    SqlDriver driver = SqlDriver::SQLite;
    // SQLite: the database file; it must exist (it is opened read-only, never created).
    std::string path;
    // PostgreSQL. `host` is a host name or address, or an absolute directory holding the server's
    // unix socket. An empty password lets libpq use PGPASSWORD or ~/.pgpass.
    std::string host = "localhost";
    int port = 5432;  // 1..65535
    std::string database;
    std::string user;
    std::string password;
    // ODBC: the connection string as unixODBC takes it ("DSN=name" or "Driver={PostgreSQL
    // Unicode};Server=…;Port=…;Database=…;Uid=…;Pwd=…"); describe() leaves the password out.
    std::string odbc;
    int connectTimeoutSeconds = 10;   // 1..3600 (libpq connect_timeout; ODBC login timeout)
    int statementTimeoutMs = 300000;  // 0 = none; else 1..2^31−1 ms (PostgreSQL statement_timeout)
    SqlDialect dialect = SqlDialect::Auto;

    Status validate() const;
    // For messages: "SQLite file /x/y.db", "PostgreSQL database d as user u on host:port" or
    // "ODBC data source DSN=x;Uid=u"; never the password.
    std::string describe() const;
};

// The `dpx --data` syntax:
//   sqlite:PATH
//   postgresql://[user[:password]@]host[:port]/database[?key=value&...]   (also postgres://)
// with percent-encoded user, password and database, and the keys connect_timeout (s),
// statement_timeout (ms) and host (overrides the host part, e.g. a unix socket directory);
//   odbc:CONNECTION-STRING
// where the connection string is passed to the ODBC driver manager verbatim: "odbc:DSN=warehouse"
// (a data source of odbc.ini) or "odbc:Driver={PostgreSQL Unicode};Server=h;Port=5432;
// Database=d;Uid=u;Pwd=p" (a driver of odbcinst.ini). It must hold DSN= or Driver=.
Expected<SqlConnectionSpec> parseSqlUri(std::string_view uri);
// True if the text starts with "sqlite:", "postgresql://", "postgres://" or "odbc:".
bool isSqlUri(std::string_view text);

// The type of a column as its declared SQL type says (SQLite by its type-affinity rules:
// "INT" → integer; "CHAR", "CLOB", "TEXT" or no type → categorical; "REAL", "FLOA", "DOUB" or
// other numeric names → float; "DATE"/"TIME" → date).
ValueType sqlValueType(SqlDriver driver, std::string_view declaredType);

// An identifier as a quoted SQL identifier: "name" with every " doubled. Errors for an empty name
// or one with a NUL character.
Expected<std::string> quoteSqlIdentifier(std::string_view name);

// Tables and views, sorted. PostgreSQL names tables outside the schema `public` as
// "schema.table"; system schemas are left out.
Expected<std::vector<std::string>> sqlListTables(const SqlConnectionSpec& spec,
                                                 std::stop_token stop = {});
// The columns of a table (a name as sqlListTables gives it), in declaration order.
Expected<std::vector<ColumnInfo>> sqlListColumns(const SqlConnectionSpec& spec,
                                                 const std::string& table,
                                                 std::stop_token stop = {});

// Histograms of the requested columns of a table, counted by the database.
// - Date columns (PostgreSQL `date`; SQLite columns declared DATE/TIME holding text yyyy-mm-dd)
//   bin as days since 1970-01-01, as in the CSV reader; other values there are "not a date".
// - Missing values (NULL; in text columns also '') are counted in the report's `missing`. Values
//   that are not finite numbers in a numeric column (text that is not a number in core's
//   parseNumber sense, blobs, ±Infinity, NaN, a numeric beyond the double range — the same rule
//   as the CSV reader, issue #17) are bad values under `onBadValue` (data_source.h): with Skip
//   (the default here) they are not counted and are listed in `skipped` as
//   "<column>: not a number" — the row still counts for the other columns; with Stop the first
//   reason is the error, with the number of such values.
// - Contribution cap: at most cap.maxRowsPerPerson rows per value of the id column are kept, in
//   a deterministic order — PostgreSQL: by md5 of the row's text (identical rows are
//   interchangeable, so the result does not depend on the physical order); SQLite: by rowid;
//   the standard dialect: by the rows' codes and values (ROW_NUMBER() OVER (PARTITION BY id
//   ORDER BY b0, k0, …): the same on every engine, but it favours low bins).
//   Rows over the cap are counted in `cappedRows`; rows whose id is NULL are skipped ("missing
//   id").
// - Each column's BinningReport counts the rows that reached it (capped rows, rows without id
//   and its values that are not numbers not); SourceHistograms::rows counts every row of the
//   table. Unlike the CSV reader, a value that is not a number leaves the row counted in the
//   other columns (the database reports per column).
// - Integer bins and a value that is not whole, or UnknownCategory::Error and a value not in the
//   list: an error, as in dpx::binColumn (with the number of such values).
// - Categories taken from the data: FirstSeen keeps rowid order in SQLite; PostgreSQL tables have
//   no row order, so there the categories are sorted (as with CategoryOrder::Sorted).
// Cancellation: PostgreSQL queries are cancelled on the server (pg_cancel_backend from a second
// connection) when `stop` is requested; a running SQLite statement cannot be interrupted through
// Qt Sql, so SQLite stops between columns; so does the standard dialect (ODBC's SQLCancel and
// SQL_ATTR_QUERY_TIMEOUT are not reachable through Qt Sql).
Expected<SourceHistograms> sqlHistograms(const SqlConnectionSpec& spec, const std::string& table,
                                         const std::vector<ColumnRequest>& columns,
                                         const ContributionCap& cap = {}, std::stop_token stop = {},
                                         BadRowPolicy onBadValue = BadRowPolicy::Skip);

// The count, smallest and largest of the numeric values of a numeric column (integer, float or
// date type; dates as days since 1970-01-01 on PostgreSQL): one aggregate query, for choosing
// automatic bins (a data-dependent range — a release should declare its range instead). NULL and
// NaN are left out; in SQLite only values stored as numbers count (text in the column does not).
struct SqlColumnRange {
    std::int64_t numbers = 0;  // 0: no numeric value (min and max are then 0)
    double min = 0, max = 0;
};
Expected<SqlColumnRange> sqlColumnRange(const SqlConnectionSpec& spec, const std::string& table,
                                        const std::string& column, std::stop_token stop = {});

// The same from a `--data` URI (parseSqlUri); `table` required.
Expected<SourceHistograms> histogramsFromUri(std::string_view uri, const std::string& table,
                                             const std::vector<ColumnRequest>& columns,
                                             const ContributionCap& cap = {},
                                             std::stop_token stop = {},
                                             BadRowPolicy onBadValue = BadRowPolicy::Skip);

// The joint table of the requested columns, counted by the database in ONE query: GROUP BY over
// the k bin expressions (the same expressions as sqlHistograms), so only occupied cells cross the
// connection. Rows with a NULL, out-of-range or unknown value in any column are not counted (the
// reports say why); bad values follow `onBadValue` as in sqlHistograms (a skipped value drops its
// row here, since the row has no cell). Same drivers (SQLite, PostgreSQL, ODBC), cap and
// cancellation as sqlHistograms.
Expected<SourceTable> sqlJointTable(const SqlConnectionSpec& spec, const std::string& table,
                                    const std::vector<ColumnRequest>& columns,
                                    const ContributionCap& cap = {}, std::stop_token stop = {},
                                    BadRowPolicy onBadValue = BadRowPolicy::Skip);
Expected<SourceTable> jointTableFromUri(std::string_view uri, const std::string& table,
                                        const std::vector<ColumnRequest>& columns,
                                        const ContributionCap& cap = {}, std::stop_token stop = {},
                                        BadRowPolicy onBadValue = BadRowPolicy::Skip);

// The SQL that sqlHistograms runs for one column, with its parameters shown as `?` (for the docs
// and the tests). `column` and `id` must be columns of the table as sqlListColumns gives them.
Expected<std::string> sqlHistogramQuery(SqlDriver driver, const std::string& table,
                                        const ColumnInfo& column, const Binning& binning,
                                        const ContributionCap& cap = {});

}  // namespace dpx::data
