// Joint tables from every source (issue #19): the same table through CSV (one and several
// threads), SQLite, PostgreSQL and PostgreSQL through ODBC must agree cell by cell, report by
// report — and with a brute-force count written here, where each bin comes from its own formula
// (age ⌊a/10⌋, sex by a fixed list, hours ⌊h/15⌋ with the last bin closed, state by rank in a
// std::map), not from Binner or SQL. The PostgreSQL cases start a private server
// (tst_sql_pg_server.h) and skip, with the reason, when PostgreSQL or the Qt ODBC driver and the
// PostgreSQL ODBC driver are not installed.
#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "io/sources/csv_reader.h"
#include "io/sources/sql_source.h"
#include "tst_sql_pg_server.h"

using namespace dpx;
using namespace dpx::data;

namespace {

struct Row {
    std::int64_t id = 0;
    std::optional<int> age;  // nullopt: missing
    std::string sex;         // "": missing
    std::optional<double> hours;
    std::string state;
};

std::vector<Row> makeRows(std::size_t n) {
    std::mt19937_64 rng(1919);
    std::uniform_int_distribution<int> age(0, 99), pick(0, 19), quarter(0, 280), st(0, 5);
    const char* states[] = {"WA", "CA", "NY", "TX", "OR", "AK"};
    std::vector<Row> rows;
    for (std::size_t i = 0; i < n; ++i) {
        Row r;
        r.id = static_cast<std::int64_t>(i % 211);
        if (pick(rng) != 0) {
            r.age = age(rng);
        }
        const int s = pick(rng);
        r.sex = s < 9 ? "F" : s < 18 ? "M" : s == 18 ? "X" : "";
        if (pick(rng) != 0) {
            // Quarters 0 … 70: exact in every source, the edges 15, 30, 45, 60 among them, and
            // values above 60 (dropped).
            r.hours = quarter(rng) / 4.0;
        }
        r.state = pick(rng) == 0 ? std::string() : states[st(rng)];
        rows.push_back(r);
    }
    return rows;
}

std::vector<ColumnRequest> requests(CategoryOrder order = CategoryOrder::Sorted) {
    return {{"age", Binning::integers(0, 89, 10)},
            {"sex", Binning::fixedCategories({"F", "M"})},
            {"hours", Binning::equalWidth(4, 0, 60)},
            {"state", Binning::distinctValues(order)}};
}

// The brute-force table: cell index → count, the states in sorted order, and what each column
// dropped (missing, out of range / unknown) among the rows that reached it.
struct Brute {
    std::map<std::uint64_t, std::int64_t> cells;
    std::vector<std::string> states;
    std::vector<std::int64_t> reached, missing, dropped;
};

Brute bruteForce(const std::vector<Row>& rows) {
    Brute b;
    b.reached.assign(4, 0);
    b.missing.assign(4, 0);
    b.dropped.assign(4, 0);
    std::map<std::string, int> rank;
    struct Cell {
        int a, s, h;
        std::string state;
    };
    std::vector<Cell> kept;
    for (const Row& r : rows) {
        ++b.reached[0];
        if (!r.age) {
            ++b.missing[0];
            continue;
        }
        if (*r.age > 89) {
            ++b.dropped[0];
            continue;
        }
        ++b.reached[1];
        if (r.sex.empty()) {
            ++b.missing[1];
            continue;
        }
        if (r.sex != "F" && r.sex != "M") {
            ++b.dropped[1];
            continue;
        }
        ++b.reached[2];
        if (!r.hours) {
            ++b.missing[2];
            continue;
        }
        if (*r.hours > 60) {
            ++b.dropped[2];
            continue;
        }
        ++b.reached[3];
        if (r.state.empty()) {
            ++b.missing[3];
            continue;
        }
        const int h = std::min(static_cast<int>(std::floor(*r.hours / 15)), 3);
        kept.push_back({*r.age / 10, r.sex == "F" ? 0 : 1, h, r.state});
        rank[r.state] = 0;
    }
    int i = 0;
    for (auto& [s, k] : rank) {
        k = i++;
        b.states.push_back(s);
    }
    const auto ns = static_cast<std::uint64_t>(rank.size());
    for (const Cell& c : kept) {
        const std::uint64_t index = ((static_cast<std::uint64_t>(c.a) * 2 + c.s) * 4 + c.h) * ns +
                                    static_cast<std::uint64_t>(rank[c.state]);
        ++b.cells[index];
    }
    return b;
}

std::map<std::uint64_t, std::int64_t> cellsOf(const ContingencyTable& t) {
    std::map<std::uint64_t, std::int64_t> m;
    t.forEachOccupied([&](std::uint64_t i, std::int64_t n) { m[i] = n; });
    return m;
}

std::string csvText(const std::vector<Row>& rows) {
    std::string s = "id,age,sex,hours,state\n";
    char buf[64];
    for (const Row& r : rows) {
        s += std::to_string(r.id) + ",";
        s += r.age ? std::to_string(*r.age) : std::string();
        s += "," + r.sex + ",";
        if (r.hours) {
            std::snprintf(buf, sizeof buf, "%.2f", *r.hours);
            s += buf;
        }
        s += "," + r.state + "\n";
    }
    return s;
}

QVariantList sqlValues(const Row& r) {
    return {QVariant::fromValue(static_cast<qlonglong>(r.id)),
            r.age ? QVariant(*r.age) : QVariant(QMetaType(QMetaType::Int)),
            r.sex.empty() ? QVariant(QMetaType(QMetaType::QString))
                          : QVariant(QString::fromStdString(r.sex)),
            r.hours ? QVariant(*r.hours) : QVariant(QMetaType(QMetaType::Double)),
            r.state.empty() ? QVariant(QMetaType(QMetaType::QString))
                            : QVariant(QString::fromStdString(r.state))};
}

bool fill(QSqlDatabase& db, const QString& create, const std::vector<Row>& rows) {
    QSqlQuery q(db);
    if (!q.exec(create) || !db.transaction()) {
        qWarning() << "create failed:" << q.lastError().text();
        return false;
    }
    for (const Row& r : rows) {
        q.prepare(QStringLiteral("INSERT INTO people VALUES (?, ?, ?, ?, ?)"));
        for (const QVariant& v : sqlValues(r)) {
            q.addBindValue(v);
        }
        if (!q.exec()) {
            qWarning() << "insert failed:" << q.lastError().text();
            return false;
        }
    }
    return db.commit();
}

// The joint table must be the brute-force one, with the reports of the chain.
void checkAgainstBrute(const SourceTable& t, const Brute& b, std::int64_t rows) {
    QCOMPARE(t.rows, rows);
    QCOMPARE(t.table.attributeCount(), std::size_t{4});
    QCOMPARE(t.table.attribute(3).labels, b.states);
    QVERIFY(!t.table.attribute(3).declared);
    QVERIFY(t.table.attribute(0).declared);
    QCOMPARE(cellsOf(t.table), b.cells);
    QCOMPARE(t.reports.size(), std::size_t{4});
    for (std::size_t a = 0; a < 4; ++a) {
        QCOMPARE(t.reports[a].rows, b.reached[a]);
        QCOMPARE(t.reports[a].missing, b.missing[a]);
        QCOMPARE(t.reports[a].dropped(), b.dropped[a]);
    }
    QCOMPARE(t.counted, t.table.total());
    QCOMPARE(t.reports[3].used, t.counted);
}

bool odbcDriverInstalled(const char* section) {
    QFile f(QStringLiteral("/etc/odbcinst.ini"));
    return f.open(QIODevice::ReadOnly) && f.readAll().contains(section);
}

bool odbcPostgresDriverInstalled() {
    return odbcDriverInstalled("[PostgreSQL Unicode]");
}

// The standard dialect's contribution cap, by brute force: each person's rows ordered by their
// codes and values — (age code, sex code, hours code, state code, state) with the codes of the
// SQL (-1 missing, -3 above the range, -4 not in the list, else the bin) — and the first `cap`
// kept. Rows with the same key are interchangeable (they land in the same cell, or in none).
std::vector<Row> standardCapped(const std::vector<Row>& rows, std::int64_t cap,
                                std::int64_t& capped) {
    auto key = [](const Row& r) {
        const int a = !r.age ? -1 : *r.age > 89 ? -3 : *r.age / 10;
        const int s = r.sex.empty() ? -1 : r.sex == "F" ? 0 : r.sex == "M" ? 1 : -4;
        const int h = !r.hours        ? -1
                      : *r.hours > 60 ? -3
                                      : std::min(static_cast<int>(std::floor(*r.hours / 15)), 3);
        const int st = r.state.empty() ? -1 : 0;
        return std::make_tuple(a, s, h, st, r.state);
    };
    std::map<std::int64_t, std::vector<const Row*>> byPerson;
    for (const Row& r : rows) {
        byPerson[r.id].push_back(&r);
    }
    std::vector<Row> kept;
    capped = 0;
    for (auto& [id, rs] : byPerson) {
        std::stable_sort(rs.begin(), rs.end(),
                         [&](const Row* x, const Row* y) { return key(*x) < key(*y); });
        for (std::size_t i = 0; i < rs.size(); ++i) {
            if (static_cast<std::int64_t>(i) < cap) {
                kept.push_back(*rs[i]);
            } else {
                ++capped;
            }
        }
    }
    return kept;
}

}  // namespace

class TestJointSources : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::vector<Row> rows_;
    Brute brute_;
    std::string csvPath_;
    SqlConnectionSpec sqlite_;
    PgTestServer pg_;
    bool pgUp_ = false;
    QString pgWhy_;
    SqlConnectionSpec pgSpec_;

    bool setUpPg() {
        if (qEnvironmentVariableIsSet("DPX_TEST_NO_POSTGRES")) {
            pgWhy_ = QStringLiteral("DPX_TEST_NO_POSTGRES is set");
            return false;
        }
        if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL"))) {
            pgWhy_ = QStringLiteral("the Qt driver QPSQL is missing (Debian libqt6sql6-psql)");
            return false;
        }
        if (!pg_.start()) {
            pgWhy_ = pg_.error();
            return false;
        }
        bool ok = false;
        {
            QSqlDatabase d =
                QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("f"));
            d.setHostName(QStringLiteral("127.0.0.1"));
            d.setPort(pg_.port());
            d.setDatabaseName(QStringLiteral("postgres"));
            d.setUserName(QString::fromLatin1(PgTestServer::kUser));
            d.setPassword(QString::fromLatin1(PgTestServer::kPassword));
            ok = d.open() &&
                 fill(d,
                      QStringLiteral("CREATE TABLE people (id bigint, age integer, sex text, "
                                     "hours double precision, state text)"),
                      rows_);
            if (!ok) {
                pgWhy_ = QStringLiteral("cannot fill the test database: ") + d.lastError().text();
            }
            d.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("f"));
        pgSpec_.driver = SqlDriver::PostgreSQL;
        pgSpec_.host = "127.0.0.1";
        pgSpec_.port = pg_.port();
        pgSpec_.database = "postgres";
        pgSpec_.user = PgTestServer::kUser;
        pgSpec_.password = PgTestServer::kPassword;
        pgSpec_.connectTimeoutSeconds = 5;
        return ok;
    }

    SqlConnectionSpec odbcSpec() const {
        SqlConnectionSpec s;
        s.driver = SqlDriver::ODBC;
        // The password holds a space and a quote: in braces (ODBC connection-string syntax).
        s.odbc = "Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=" + std::to_string(pg_.port()) +
                 ";Database=postgres;Uid=" + PgTestServer::kUser + ";Pwd={" +
                 PgTestServer::kPassword + "}";
        s.connectTimeoutSeconds = 5;
        return s;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        rows_ = makeRows(4000);
        brute_ = bruteForce(rows_);
        QVERIFY(brute_.cells.size() > 100);  // a table worth comparing
        csvPath_ = tmp_.filePath(QStringLiteral("people.csv")).toStdString();
        std::ofstream(csvPath_, std::ios::binary) << csvText(rows_);
        sqlite_.driver = SqlDriver::SQLite;
        sqlite_.path = tmp_.filePath(QStringLiteral("people.db")).toStdString();
        {
            QSqlDatabase d =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("s"));
            d.setDatabaseName(QString::fromStdString(sqlite_.path));
            QVERIFY(d.open());
            QVERIFY(fill(d,
                         QStringLiteral("CREATE TABLE people (id INTEGER, age INTEGER, sex TEXT, "
                                        "hours REAL, state TEXT)"),
                         rows_));
            d.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("s"));
        pgUp_ = setUpPg();
        if (!pgUp_) {
            qWarning().noquote() << "PostgreSQL cases will be skipped:" << pgWhy_;
        }
    }

    void cleanupTestCase() { pg_.stop(); }

    void csvOneAndSeveralThreads() {
        CsvOptions one;
        one.threads = 1;
        auto a = csvJointTable(csvPath_, one, requests());
        QVERIFY2(a, a ? "" : a.error().message.c_str());
        checkAgainstBrute(*a, brute_, static_cast<std::int64_t>(rows_.size()));
        CsvOptions many;
        many.threads = 3;
        many.blockBytes = 4096;
        auto b = csvJointTable(csvPath_, many, requests());
        QVERIFY2(b, b ? "" : b.error().message.c_str());
        QVERIFY(b->table == a->table);
        checkAgainstBrute(*b, brute_, static_cast<std::int64_t>(rows_.size()));
    }

    // One column: the joint table is the histogram of csvHistograms, report and all.
    void csvOneColumnIsTheHistogram() {
        const std::vector<ColumnRequest> rq = {{"hours", Binning::equalWidth(4, 0, 60)}};
        auto j = csvJointTable(csvPath_, {}, rq);
        auto h = csvHistograms(csvPath_, {}, rq);
        QVERIFY(j && h);
        QCOMPARE(j->table.denseCounts(), h->columns[0].histogram.counts());
        QCOMPARE(j->reports[0].used, h->columns[0].report.used);
        QCOMPARE(j->reports[0].missing, h->columns[0].report.missing);
        QCOMPARE(j->reports[0].droppedHigh, h->columns[0].report.droppedHigh);
    }

    void csvErrors() {
        // The domain is checked before the file is touched (this one does not exist).
        std::vector<ColumnRequest> big;
        for (int a = 0; a < 5; ++a) {
            big.push_back({"c" + std::to_string(a), Binning::integers(0, 99999)});
        }
        auto e = csvJointTable(tmp_.filePath(QStringLiteral("none.csv")).toStdString(), {}, big);
        QVERIFY(!e);
        QVERIFY2(e.error().message.find("2^64") != std::string::npos, e.error().message.c_str());
        QVERIFY(e.error().message.find("'c0'") != std::string::npos);
        // The same column twice; no column; a column the file lacks.
        auto twice = csvJointTable(
            csvPath_, {}, {{"age", Binning::integers(0, 9)}, {"age", Binning::integers(0, 9)}});
        QVERIFY(!twice && twice.error().message.find("twice") != std::string::npos);
        QVERIFY(!csvJointTable(csvPath_, {}, {}));
        auto missing = csvJointTable(csvPath_, {}, {{"weight", Binning::integers(0, 9)}});
        QVERIFY(!missing && missing.error().message.find("'age'") != std::string::npos);
    }

    // A bad value skips its row under Skip (as for histograms) and is the error under Stop.
    void csvBadRows() {
        const std::string path = tmp_.filePath(QStringLiteral("bad.csv")).toStdString();
        std::ofstream(path, std::ios::binary) << "a,b\n1,x\n2,F\nzz,F\n3,M\n";
        CsvOptions o;
        o.onBadRow = BadRowPolicy::Skip;
        o.types = {{"a", ValueType::Integer}};
        auto t = csvJointTable(
            path, o, {{"a", Binning::integers(0, 9)}, {"b", Binning::fixedCategories({"F", "M"})}});
        QVERIFY2(t, t ? "" : t.error().message.c_str());
        QCOMPARE(t->rows, std::int64_t{4});
        QCOMPARE(t->counted, std::int64_t{2});
        QCOMPARE(t->reports[1].unknownCategories, std::int64_t{1});
        QCOMPARE(t->skipped.size(), std::size_t{1});
        QCOMPARE(t->skipped[0].second, std::int64_t{1});
        o.onBadRow = BadRowPolicy::Stop;
        auto stop = csvJointTable(path, o, {{"a", Binning::integers(0, 9)}});
        QVERIFY(!stop);
        QVERIFY2(stop.error().message.find("line 4") != std::string::npos,
                 stop.error().message.c_str());
    }

    // The reader's per-row joint loop (a 64-bit key when the provisional domain is below 2⁶⁴, the
    // 128-bit key beyond; the Binner's per-value functions inlined into it) against binJoint over
    // the same values held in a DataTable (the 128-bit key, no CSV): identical cells and reports,
    // on messy values (signs, leading zeros, spaces, "1.0", exponents, quoted fields, empty
    // fields, values out of range, unknown categories), with small blocks so that records straddle
    // block ends, and on 1 and 3 threads. An unknown category under UnknownCategory::Error gives
    // the same message (with the file's line and column) on both paths.
    void csvLoopSameAsBinJoint() {
        std::mt19937_64 rng(28019);
        std::uniform_int_distribution<int> pick(0, 19), age(-5, 105), cat(0, 6);
        std::uniform_real_distribution<double> unit(-0.5, 1.5);
        const char* texts[] = {"x", "y", "zz", "x y", "long category name over sixteen", "é", "q"};
        std::string csv = "a,b,c,d\n";
        std::vector<double> av, cv;
        std::vector<std::string> bv, dv;
        for (int i = 0; i < 3000; ++i) {
            // a: whole numbers written in several ways (all read as the same integer)
            const int ai = age(rng);
            const int form = pick(rng);
            std::string at = std::to_string(ai);
            if (form == 0) {
                at.clear();
            } else if (form == 1 && ai >= 0) {
                at = "+" + at;
            } else if (form == 2 && ai >= 0) {
                at = "00" + at;
            } else if (form == 3) {
                at = " " + at + "\t";
            } else if (form == 4) {
                at += ".0";
            } else if (form == 5) {
                at = "\"" + at + "\"";
            } else if (form == 6 && ai != 0) {
                at = std::to_string(ai) + "0e-1";
            }
            av.push_back(form == 0 ? std::nan("") : ai);
            const std::string b = pick(rng) == 0 ? std::string() : texts[cat(rng)];
            bv.push_back(b);
            const std::string bt = b.find(' ') != std::string::npos ? "\"" + b + "\"" : b;
            const double c =
                pick(rng) == 0 ? std::nan("") : std::round(unit(rng) * 64) / 64 + 0.0;  // (no −0)
            cv.push_back(c);
            std::string ct = std::isnan(c) ? std::string() : formatShortest(c);
            if (!ct.empty() && pick(rng) == 1) {
                ct = formatShortest(c * 1000) + "e-3";  // exact: c is a multiple of 1/64
            }
            const std::string d = texts[cat(rng)];
            dv.push_back(d);
            csv += at + "," + bt + "," + ct + ",\"" + d + "\"\n";
        }
        const std::string path = tmp_.filePath(QStringLiteral("loop.csv")).toStdString();
        std::ofstream(path, std::ios::binary) << csv;
        std::vector<DataColumn> cols;
        cols.push_back(DataColumn::numeric("a", av));
        cols.push_back(DataColumn::text("b", bv));
        cols.push_back(DataColumn::numeric("c", cv));
        cols.push_back(DataColumn::text("d", dv));
        auto table = DataTable::create(std::move(cols));
        QVERIFY(table);
        CsvOptions o;
        o.types = {{"a", ValueType::Integer}, {"c", ValueType::Float}};
        o.blockBytes = 97;
        const std::vector<std::vector<ColumnRequest>> sets = {
            // dense counts, 64-bit keys
            {{"a", Binning::integers(0, 99)},
             {"b", Binning::fixedCategories({"x", "zz", "x y"}, UnknownCategory::Other)},
             {"c", Binning::equalWidth(8, 0, 1)},
             {"d", Binning::fixedCategories({"q", "é", "y"})}},
            {{"d", Binning::distinctValues(CategoryOrder::Sorted)},
             {"c", Binning::fromEdges({0, 0.25, 0.5, 1}, OutOfRange::Clamp)},
             {"a", Binning::integers(-3, 100, 7, OutOfRange::Clamp)}},
            // categories from the data in every column: a provisional domain of 10⁵ ⁴ > 2⁶⁴
            // cells, 128-bit keys
            {{"a", Binning::distinctValues()},
             {"b", Binning::distinctValues(CategoryOrder::Sorted)},
             {"c", Binning::distinctValues()},
             {"d", Binning::distinctValues()}}};
        for (const auto& rq : sets) {
            auto want = binJoint(*table, rq);
            QVERIFY2(want, want ? "" : want.error().message.c_str());
            for (unsigned threads : {1u, 3u}) {
                o.threads = threads;
                auto got = csvJointTable(path, o, rq);
                QVERIFY2(got, got ? "" : got.error().message.c_str());
                QVERIFY(got->table == want->table);
                QCOMPARE(got->reports.size(), want->reports.size());
                for (std::size_t a = 0; a < rq.size(); ++a) {
                    const BinningReport &g = got->reports[a], &w = want->reports[a];
                    QCOMPARE(g.rows, w.rows);
                    QCOMPARE(g.used, w.used);
                    QCOMPARE(g.missing, w.missing);
                    QCOMPARE(g.clampedLow, w.clampedLow);
                    QCOMPARE(g.clampedHigh, w.clampedHigh);
                    QCOMPARE(g.droppedLow, w.droppedLow);
                    QCOMPARE(g.droppedHigh, w.droppedHigh);
                    QCOMPARE(g.unknownCategories, w.unknownCategories);
                    QCOMPARE(g.otherCategories, w.otherCategories);
                    QCOMPARE(g.numbers, w.numbers);
                    QCOMPARE(g.min, w.min);
                    QCOMPARE(g.max, w.max);
                }
                QCOMPARE(got->counted, want->table.total());
            }
        }
        // The first unknown category under Error: the same error, located in the file.
        for (const bool wide : {false, true}) {
            std::vector<ColumnRequest> rq = {
                {"a", wide ? Binning::distinctValues() : Binning::integers(-5, 105)},
                {"c", wide ? Binning::distinctValues() : Binning::equalWidth(4, -1, 2)},
                {"b", Binning::distinctValues()},
                {"d", Binning::fixedCategories({"x", "y", "zz", "x y", "é", "q"},
                                               UnknownCategory::Error)}};
            auto want = binJoint(*table, rq);
            QVERIFY(!want);
            o.threads = 1;
            auto got = csvJointTable(path, o, rq);
            QVERIFY(!got);
            // binJoint names the row (1-based), the reader the line (the header is line 1) and the
            // column; the rest of the message is the Binner's.
            const std::string& w = want.error().message;
            const std::string& g = got.error().message;
            const auto row = w.find("in row ");
            QVERIFY2(row != std::string::npos, w.c_str());
            const long r = std::stol(w.substr(row + 7));
            QVERIFY2(g.rfind("line " + std::to_string(r + 1) + ", column 4: ", 0) == 0, g.c_str());
            QVERIFY2(g.find("'long category name over sixteen'") != std::string::npos, g.c_str());
        }
    }

    // SQLite keeps rowid order: first-seen categories and the contribution cap (the first rows of
    // each person in file order) agree with the CSV reader too.
    void sqlite() {
        auto t = sqlJointTable(sqlite_, "people", requests());
        QVERIFY2(t, t ? "" : t.error().message.c_str());
        checkAgainstBrute(*t, brute_, static_cast<std::int64_t>(rows_.size()));
        auto csvFirst = csvJointTable(csvPath_, {}, requests(CategoryOrder::FirstSeen));
        auto sqlFirst = sqlJointTable(sqlite_, "people", requests(CategoryOrder::FirstSeen));
        QVERIFY(csvFirst && sqlFirst);
        QVERIFY(csvFirst->table == sqlFirst->table);
        const ContributionCap cap{"id", 5};
        auto csvCap = csvJointTable(csvPath_, {}, requests(), cap);
        auto sqlCap = sqlJointTable(sqlite_, "people", requests(), cap);
        QVERIFY(csvCap && sqlCap);
        QCOMPARE(sqlCap->cappedRows, csvCap->cappedRows);
        QVERIFY(sqlCap->cappedRows > 0);
        QVERIFY(sqlCap->table == csvCap->table);
        auto viaUri = jointTableFromUri("sqlite:" + sqlite_.path, "people", requests());
        QVERIFY(viaUri && viaUri->table == t->table);
    }

    void postgres() {
        if (!pgUp_) {
            QSKIP(qPrintable(QStringLiteral("PostgreSQL not available: ") + pgWhy_));
        }
        auto t = sqlJointTable(pgSpec_, "people", requests());
        QVERIFY2(t, t ? "" : t.error().message.c_str());
        checkAgainstBrute(*t, brute_, static_cast<std::int64_t>(rows_.size()));
        auto csv = csvJointTable(csvPath_, {}, requests());
        QVERIFY(csv && csv->table == t->table);
    }

    void odbc() {
        if (!pgUp_) {
            QSKIP(qPrintable(QStringLiteral("PostgreSQL not available: ") + pgWhy_));
        }
        if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QODBC"))) {
            QSKIP("the Qt ODBC driver QODBC is not installed (Debian libqt6sql6-odbc)");
        }
        if (!odbcPostgresDriverInstalled()) {
            QSKIP(
                "the PostgreSQL ODBC driver is not registered in /etc/odbcinst.ini (Debian "
                "odbc-postgresql)");
        }
        const SqlConnectionSpec spec = odbcSpec();
        auto t = sqlJointTable(spec, "people", requests());
        QVERIFY2(t, t ? "" : t.error().message.c_str());
        checkAgainstBrute(*t, brute_, static_cast<std::int64_t>(rows_.size()));
        auto native = sqlJointTable(pgSpec_, "people", requests());
        QVERIFY(native && native->table == t->table);
        // The per-column histograms through ODBC equal the native ones too.
        auto h = sqlHistograms(spec, "people", requests());
        auto hn = sqlHistograms(pgSpec_, "people", requests());
        QVERIFY2(h, h ? "" : h.error().message.c_str());
        QVERIFY(hn);
        for (std::size_t a = 0; a < 4; ++a) {
            QCOMPARE(h->columns[a].histogram.counts(), hn->columns[a].histogram.counts());
        }
        // Through a URI.
        auto viaUri = jointTableFromUri("odbc:" + spec.odbc, "people", requests());
        QVERIFY2(viaUri, viaUri ? "" : viaUri.error().message.c_str());
        QVERIFY(viaUri->table == t->table);
        // A wrong password: the message names the data source, never the password.
        SqlConnectionSpec wrong = spec;
        wrong.odbc =
            "Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=" + std::to_string(pg_.port()) +
            ";Database=postgres;Uid=dpx;Pwd=nottheone";
        auto e = sqlJointTable(wrong, "people", requests());
        QVERIFY(!e);
        QVERIFY2(e.error().message.find("nottheone") == std::string::npos,
                 e.error().message.c_str());
        QVERIFY(e.error().message.find("ODBC data source") != std::string::npos);
    }

    // The standard dialect (portable SQL:2003) forced on every engine that runs here: native
    // SQLite and PostgreSQL, and both through their ODBC drivers. Cell by cell and report by
    // report the brute force, the CSV path and the native dialect; categories from the data are
    // sorted (no row order); the cap keeps each person's rows in the order of their codes.
    void standardDialect_data() {
        QTest::addColumn<QString>("engine");
        for (const char* e : {"sqlite", "sqlite-odbc", "postgresql", "postgresql-odbc"}) {
            QTest::newRow(e) << QString::fromLatin1(e);
        }
    }
    void standardDialect() {
        QFETCH(QString, engine);
        SqlConnectionSpec spec;
        SqlConnectionSpec native;
        if (engine.startsWith(QStringLiteral("postgresql"))) {
            if (!pgUp_) {
                QSKIP(qPrintable(QStringLiteral("PostgreSQL not available: ") + pgWhy_));
            }
            native = pgSpec_;
            spec = engine.endsWith(QStringLiteral("odbc")) ? odbcSpec() : pgSpec_;
        } else {
            native = sqlite_;
            spec = sqlite_;
            if (engine.endsWith(QStringLiteral("odbc"))) {
                spec.driver = SqlDriver::ODBC;
                spec.odbc = "Driver={SQLite3};Database=" + sqlite_.path;
            }
        }
        if (spec.driver == SqlDriver::ODBC) {
            if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QODBC"))) {
                QSKIP("the Qt ODBC driver QODBC is not installed (Debian libqt6sql6-odbc)");
            }
            const bool pgOdbc = engine.startsWith(QStringLiteral("postgresql"));
            if (!odbcDriverInstalled(pgOdbc ? "[PostgreSQL Unicode]" : "[SQLite3]")) {
                QSKIP(pgOdbc ? "the PostgreSQL ODBC driver is not registered in "
                               "/etc/odbcinst.ini (Debian odbc-postgresql)"
                             : "the SQLite ODBC driver is not registered in /etc/odbcinst.ini "
                               "(Debian libsqliteodbc)");
            }
        }
        spec.dialect = SqlDialect::Standard;
        const auto rows = static_cast<std::int64_t>(rows_.size());
        auto t = sqlJointTable(spec, "people", requests());
        QVERIFY2(t, t ? "" : t.error().message.c_str());
        checkAgainstBrute(*t, brute_, rows);
        auto csv = csvJointTable(csvPath_, {}, requests());
        auto nat = sqlJointTable(native, "people", requests());
        QVERIFY(csv && nat);
        QVERIFY(t->table == csv->table);
        QVERIFY(t->table == nat->table);
        for (std::size_t a = 0; a < 4; ++a) {
            QCOMPARE(t->reports[a].used, nat->reports[a].used);
            QCOMPARE(t->reports[a].droppedHigh, nat->reports[a].droppedHigh);
            QCOMPARE(t->reports[a].unknownCategories, nat->reports[a].unknownCategories);
        }
        // No row order: first-seen categories come sorted.
        auto first = sqlJointTable(spec, "people", requests(CategoryOrder::FirstSeen));
        QVERIFY2(first, first ? "" : first.error().message.c_str());
        QCOMPARE(cellsOf(first->table), cellsOf(t->table));
        QCOMPARE(first->table.attribute(3).labels, brute_.states);
        // The histograms of each column: the CSV reader's.
        auto h = sqlHistograms(spec, "people", requests());
        auto hc = csvHistograms(csvPath_, {}, requests());
        QVERIFY2(h, h ? "" : h.error().message.c_str());
        QVERIFY(hc);
        for (std::size_t a = 0; a < 4; ++a) {
            QCOMPARE(h->columns[a].histogram.counts(), hc->columns[a].histogram.counts());
            QCOMPARE(h->columns[a].histogram.labels(), hc->columns[a].histogram.labels());
            QCOMPARE(h->columns[a].report.missing, hc->columns[a].report.missing);
            QCOMPARE(h->columns[a].report.dropped(), hc->columns[a].report.dropped());
        }
        // The cap: the brute force of the rows the documented order keeps.
        for (const std::int64_t cap : {std::int64_t{1}, std::int64_t{5}}) {
            std::int64_t capped = 0;
            const std::vector<Row> kept = standardCapped(rows_, cap, capped);
            QVERIFY(capped > 0);
            auto c = sqlJointTable(spec, "people", requests(), {"id", cap});
            QVERIFY2(c, c ? "" : c.error().message.c_str());
            QCOMPARE(c->cappedRows, capped);
            const Brute b = bruteForce(kept);
            QCOMPARE(cellsOf(c->table), b.cells);
            QCOMPARE(c->table.attribute(3).labels, b.states);
            QCOMPARE(c->reports[0].rows, static_cast<std::int64_t>(kept.size()));
        }
    }

    void odbcUris() {
        auto s = parseSqlUri("odbc:DSN=warehouse;UID=ann;PWD={a;b}}c}");
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        QCOMPARE(s->driver, SqlDriver::ODBC);
        QCOMPARE(s->odbc, std::string("DSN=warehouse;UID=ann;PWD={a;b}}c}"));
        QCOMPARE(s->describe(), std::string("ODBC data source DSN=warehouse;UID=ann"));
        QVERIFY(isSqlUri("odbc:DSN=x"));
        auto noName = parseSqlUri("odbc:Server=h;Port=5432");
        QVERIFY(!noName && noName.error().message.find("DSN=") != std::string::npos);
        auto unclosed = parseSqlUri("odbc:DSN=x;PWD={abc");
        QVERIFY(!unclosed && unclosed.error().message.find("'{'") != std::string::npos);
        auto noEq = parseSqlUri("odbc:DSN");
        QVERIFY(!noEq && noEq.error().message.find("'='") != std::string::npos);
        QVERIFY(!sqlHistogramQuery(SqlDriver::ODBC, "t", {"x", ValueType::Float, "real"},
                                   Binning::equalWidth(2, 0, 1)));
    }
};

QTEST_GUILESS_MAIN(TestJointSources)
#include "tst_joint_sources.moc"
