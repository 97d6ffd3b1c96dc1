// PostgreSQL joint-table benchmark (issue #19): a 3-column joint table of 10⁶ rows counted by the
// database in one GROUP BY (sqlJointTable), target ≤ 1 s. The server is the one named by
// DPX_BENCH_PG_URI (postgresql://user:password@host:port/db; the table is created there as
// dpx_bench_joint and dropped afterwards), or else a private server started like the tests'
// (tests/io/sources/tst_sql_pg_server.h: Debian's postgresql in a temporary directory). Without
// either the benchmark prints SKIP and exits 0. Add --odbc 1 to time the same query through the
// PostgreSQL ODBC driver too (private server only), and --standard 1 to time the portable standard
// SQL dialect (the one other engines get through ODBC) on QPSQL and, with --odbc 1, through
// psqlODBC; each standard-dialect table is checked cell by cell against the native one.
//
//   bench_pg_joint [--rows 1000000] [--reps 5] [--odbc 1] [--standard 1]
#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "bench_util.h"
#include "io/sources/sql_source.h"
#include "tests/io/sources/tst_sql_pg_server.h"

int main(int argc, char** argv) {
    using namespace dpx;
    QCoreApplication app(argc, argv);
    bench::Options o(argc, argv,
                     {{"rows", "1000000"}, {"reps", "5"}, {"odbc", "1"}, {"standard", "1"}});
    bench::printHeader("PostgreSQL joint table by pushdown");
    data::SqlConnectionSpec spec;
    PgTestServer server;
    const QByteArray uri = qgetenv("DPX_BENCH_PG_URI");
    if (!uri.isEmpty()) {
        auto s = data::parseSqlUri(uri.toStdString());
        if (!s) {
            std::fprintf(stderr, "bench_pg_joint: DPX_BENCH_PG_URI: %s\n",
                         s.error().message.c_str());
            return 2;
        }
        spec = *s;
    } else {
        if (!server.start()) {
            std::printf("SKIP bench_pg_joint: no DPX_BENCH_PG_URI and no private server (%s)\n",
                        qPrintable(server.error()));
            return 0;
        }
        spec.driver = data::SqlDriver::PostgreSQL;
        spec.host = "127.0.0.1";
        spec.port = server.port();
        spec.database = "postgres";
        spec.user = PgTestServer::kUser;
        spec.password = PgTestServer::kPassword;
    }
    const long long rows = o.integer("rows");
    {
        QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("fill"));
        d.setHostName(QString::fromStdString(spec.host));
        d.setPort(spec.port);
        d.setDatabaseName(QString::fromStdString(spec.database));
        d.setUserName(QString::fromStdString(spec.user));
        d.setPassword(QString::fromStdString(spec.password));
        QSqlQuery q(d);
        // x on a grid of 0.001 over [-5, 95] hitting the edges of 40 bins, a NULL every 1000 rows;
        // k an integer with 97 values; c one of four words.
        const bool ok =
            d.open() && q.exec(QStringLiteral("DROP TABLE IF EXISTS dpx_bench_joint")) &&
            q.exec(QStringLiteral(
                       "CREATE TABLE dpx_bench_joint AS SELECT g AS id, CASE WHEN g % 1000 = 0 "
                       "THEN NULL ELSE ((g::int8 * 7919) % 100003)::float8 / 1000.0::float8 - "
                       "5.0::float8 END AS x, (g % 97) AS k, (ARRAY['a','b','c','d'])[g % 4 + 1] "
                       "AS c FROM generate_series(1, %1) AS g")
                       .arg(rows)) &&
            q.exec(QStringLiteral("ANALYZE dpx_bench_joint"));
        if (!ok) {
            std::fprintf(stderr, "bench_pg_joint: cannot create the table: %s\n",
                         qPrintable(q.lastError().text() + d.lastError().text()));
            return 1;
        }
        d.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("fill"));
    const std::vector<ColumnRequest> columns = {
        {"x", Binning::equalWidth(40, -5, 95)},
        {"k", Binning::integers(0, 96)},
        {"c", Binning::fixedCategories({"a", "b", "c", "d"})}};
    std::optional<ContingencyTable> reference;  // the native QPSQL table
    auto timeIt = [&](const data::SqlConnectionSpec& s, const char* name) -> int {
        std::vector<double> times;
        std::optional<data::SourceTable> last;
        for (long long r = 0; r < o.integer("reps"); ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            auto t = data::sqlJointTable(s, "dpx_bench_joint", columns);
            times.push_back(bench::secondsSince(t0));
            if (!t) {
                std::fprintf(stderr, "bench_pg_joint (%s): %s\n", name, t.error().message.c_str());
                return 1;
            }
            last = std::move(t).value();
        }
        std::printf(
            "RESULT bench_pg_joint driver=%s rows=%lld cells=%s occupied=%llu counted=%lld "
            "wall_s_median=%.3f wall_s_min=%.3f\n",
            name, static_cast<long long>(last->rows),
            cellCountText(last->table.cellCount()).c_str(),
            static_cast<unsigned long long>(last->table.occupiedCount()),
            static_cast<long long>(last->counted), bench::median(times),
            *std::min_element(times.begin(), times.end()));
        if (!reference) {
            reference = last->table;
        } else if (!(last->table == *reference)) {
            std::fprintf(stderr, "bench_pg_joint (%s): the table differs from the native one\n",
                         name);
            return 1;
        }
        return 0;
    };
    // The one-column histogram of x on the same table and server, for a figure that does not
    // depend on the machine's load: the joint table's time relative to it.
    {
        std::vector<double> times;
        for (long long r = 0; r < o.integer("reps"); ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            auto h = data::sqlHistograms(spec, "dpx_bench_joint", {columns[0]});
            times.push_back(bench::secondsSince(t0));
            if (!h) {
                std::fprintf(stderr, "bench_pg_joint (histogram): %s\n", h.error().message.c_str());
                return 1;
            }
        }
        std::printf("RESULT bench_pg_joint driver=QPSQL one_column_histogram_s_median=%.3f\n",
                    bench::median(times));
    }
    int rc = timeIt(spec, "QPSQL");
    const bool standard = o.integer("standard") != 0;
    if (rc == 0 && standard) {
        data::SqlConnectionSpec s = spec;
        s.dialect = data::SqlDialect::Standard;
        rc = timeIt(s, "QPSQL-standard");
    }
    if (rc == 0 && uri.isEmpty() && o.integer("odbc") != 0 &&
        QSqlDatabase::isDriverAvailable(QStringLiteral("QODBC"))) {
        data::SqlConnectionSpec odbc;
        odbc.driver = data::SqlDriver::ODBC;
        odbc.odbc =
            "Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=" + std::to_string(server.port()) +
            ";Database=postgres;Uid=" + PgTestServer::kUser + ";Pwd={" + PgTestServer::kPassword +
            "}";
        rc = timeIt(odbc, "QODBC");
        if (rc == 0 && standard) {
            odbc.dialect = data::SqlDialect::Standard;
            rc = timeIt(odbc, "QODBC-standard");
        }
    }
    if (!uri.isEmpty()) {
        QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("drop"));
        d.setHostName(QString::fromStdString(spec.host));
        d.setPort(spec.port);
        d.setDatabaseName(QString::fromStdString(spec.database));
        d.setUserName(QString::fromStdString(spec.user));
        d.setPassword(QString::fromStdString(spec.password));
        if (d.open()) {
            QSqlQuery(d).exec(QStringLiteral("DROP TABLE IF EXISTS dpx_bench_joint"));
        }
        d.close();
    }
    return rc;
}
