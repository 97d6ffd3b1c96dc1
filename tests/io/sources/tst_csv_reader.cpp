// The streaming CSV reader (io/sources/csv_reader.h). References: counts of small files worked out
// by hand (in the comments); the malformed corpus tests/data/csv/malformed/ with its manifest
// expected.tsv (message, line, column of each file); multithreaded runs compared with the
// single-threaded run of the same generated file.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/sources/csv_reader.h"
#include "tests/fuzz/csv_fuzz_check.h"

using namespace dpx;
using namespace dpx::data;

namespace {

const std::string kDir = DPX_CSV_TEST_DIR;

std::vector<std::int64_t> counts(const BinnedColumn& c) {
    return c.histogram.counts();
}

std::vector<std::string> strings(std::initializer_list<const char*> list) {
    return {list.begin(), list.end()};
}

ColumnRequest request(const std::string& column, const std::string& spec) {
    return {column, parseBinSpec(spec).value()};
}

std::int64_t skipped(const SourceHistograms& h, const std::string& reason) {
    for (const auto& [r, n] : h.skipped) {
        if (r == reason) {
            return n;
        }
    }
    return 0;
}

void write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

QByteArray msg(const Error& e) {
    return QByteArray::fromStdString(e.message);
}

// A file whose quoted fields hold line breaks, delimiters and doubled quotes everywhere, so that
// byte ranges start inside quotes and blocks split records; some rows are bad.
std::string generatedFile(std::size_t rows, bool withBadRows) {
    std::mt19937_64 rng(20240605);
    std::uniform_int_distribution<int> age(0, 99), pick(0, 9);
    std::string s = "id,age,note,state\n";
    const char* states[] = {"CA", "NY", "TX", "WA"};
    for (std::size_t i = 0; i < rows; ++i) {
        const int p = pick(rng);
        s += std::to_string(i % 97) + "," + std::to_string(age(rng)) + ",";
        if (p < 4) {
            s += "\"line one\nline two, with \"\"quotes\"\"\r\nand three\"";
        } else if (p == 4) {
            s += "\"\n\n\n\"";
        } else {
            s += "plain";
        }
        s += std::string(",") + states[pick(rng) % 4] + (p == 7 ? "\r\n" : "\n");
        if (withBadRows && i % 1013 == 900) {
            s += "1,2\n";  // ragged
        }
        if (withBadRows && i % 2029 == 1500) {
            s += "1,x,\"n\",CA\n";  // not a number
        }
    }
    return s;
}

}  // namespace

class TestCsvReader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void malformedCorpus();
    void quotingEdgeCases();
    void tabsAndCarriageReturns();
    void delimiterDetectionAndOverride();
    void noHeader();
    void typeInferenceAndOverride();
    void dates();
    void numbersAsFromChars();
    void skipPolicyCountsReasons();
    void nonFiniteIsNotANumber();
    void nulByteLaterIsBadRow();
    void multithreadedEqualsSingleThreaded();
    void multithreadedErrorLine();
    void randomFilesThreadsAgree();
    void contributionCap();
    void cancellation();
    void progress();
    void limits();
    void optionErrors();
    void fuzzRegressionsAndSeeds();
};

void TestCsvReader::malformedCorpus() {
    QFile manifest(QString::fromStdString(kDir + "/malformed/expected.tsv"));
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    int checked = 0;
    while (!manifest.atEnd()) {
        const QByteArray line = manifest.readLine().trimmed();
        if (line.isEmpty() || line.startsWith('#')) {
            continue;
        }
        const QList<QByteArray> f = line.split('\t');
        QCOMPARE(f.size(), 6);
        const std::string file = kDir + "/malformed/" + f[0].toStdString();
        CsvOptions o;
        o.sampleRows = 3;
        auto r = csvHistograms(file, o, {request(f[1].toStdString(), f[2].toStdString())});
        QVERIFY2(!r, f[0].constData());
        const std::string m = r.error().message;
        const QByteArray info = f[0] + ": " + msg(r.error());
        QVERIFY2(m.find(f[5].toStdString()) != std::string::npos, info.constData());
        const int ln = f[3].toInt();
        const int col = f[4].toInt();
        if (ln > 0) {
            const std::string where =
                "line " + std::to_string(ln) + (col > 0 ? ", column " + std::to_string(col) : ":");
            QVERIFY2(m.rfind(where, 0) == 0,
                     ("expected '" + QByteArray::fromStdString(where) + "' first in " + info)
                         .constData());
        } else {
            QVERIFY2(m.find("line ") == std::string::npos || m.find("in line") != std::string::npos,
                     info.constData());
        }
        ++checked;
    }
    QVERIFY(checked >= 20);
}

void TestCsvReader::quotingEdgeCases() {
    // good/quoting.csv: BOM, ';', CRLF, a blank line, a quoted line break, doubled quotes.
    // Records (line): header (1), "Smith; John";34 (2), "multi\r\nline";; (3–4), blank (5),
    // spaced;7 (6), "";45;"" (7), last;99 (8, no line end). age: 34, missing, 7, 45, 99.
    const std::string file = kDir + "/good/quoting.csv";
    auto schema = inspectCsv(file, {});
    QVERIFY2(schema, schema ? "" : msg(schema.error()).constData());
    QCOMPARE(schema->delimiter, ';');
    QCOMPARE(schema->columns.size(), std::size_t(3));
    QCOMPARE(schema->columns[0].name, std::string("name"));  // BOM stripped
    QCOMPARE(schema->columns[1].type, ValueType::Integer);
    QCOMPARE(schema->columns[0].type, ValueType::Categorical);
    auto r = csvHistograms(
        file, {},
        {request("age", "0:100:4"), request("name", "categories"), request("note", "categories")});
    QVERIFY2(r, r ? "" : msg(r.error()).constData());
    QCOMPARE(r->rows, std::int64_t(5));
    // [0, 25) [25, 50) [50, 75) [75, 100): 7 | 34, 45 | – | 99.
    QCOMPARE(counts(r->columns[0]), (std::vector<std::int64_t>{1, 2, 0, 1}));
    QCOMPARE(r->columns[0].report.missing, std::int64_t(1));
    // Names sorted: "Smith; John", "last", "multi\r\nline", "spaced" (trimmed); "" missing.
    QCOMPARE(r->columns[1].histogram.labels(),
             strings({"Smith; John", "last", "multi\r\nline", "spaced"}));
    QCOMPARE(r->columns[1].report.missing, std::int64_t(1));
    // Notes: "  kept  " kept verbatim (quoted), 'said "hi"' unescaped.
    QCOMPARE(r->columns[2].histogram.labels(),
             strings({"  kept  ", "no newline at end", "plain", "said \"hi\""}));
    QVERIFY(r->skipped.empty());
    // Tiny read blocks split every record; the result is the same.
    CsvOptions tiny;
    tiny.blockBytes = 1;
    auto t = csvHistograms(file, tiny, {request("age", "0:100:4"), request("name", "categories")});
    QVERIFY2(t, t ? "" : msg(t.error()).constData());
    QCOMPARE(counts(t->columns[0]), counts(r->columns[0]));
    QCOMPARE(t->columns[1].histogram.labels(), r->columns[1].histogram.labels());
}

void TestCsvReader::tabsAndCarriageReturns() {
    // tabs.tsv: x = 1, 2, 3; y = "a b", "c\td" (quoted tab), missing.
    auto r = csvHistograms(kDir + "/good/tabs.tsv", {},
                           {request("x", "integers:1:3"), request("y", "categories")});
    QVERIFY2(r, r ? "" : msg(r.error()).constData());
    QCOMPARE(counts(r->columns[0]), (std::vector<std::int64_t>{1, 1, 1}));
    QCOMPARE(r->columns[1].histogram.labels(), strings({"a b", "c\td"}));
    QCOMPARE(r->columns[1].report.missing, std::int64_t(1));
    // pipes_cr.csv: CR line ends, '|': k = 1, 2, 2; v = a, b, a.
    auto p = csvHistograms(kDir + "/good/pipes_cr.csv", {},
                           {request("k", "integers:1:2"), request("v", "categories:a,b")});
    QVERIFY2(p, p ? "" : msg(p.error()).constData());
    QCOMPARE(counts(p->columns[0]), (std::vector<std::int64_t>{1, 2}));
    QCOMPARE(counts(p->columns[1]), (std::vector<std::int64_t>{2, 1}));
}

void TestCsvReader::delimiterDetectionAndOverride() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/d.csv";
    // Semicolons consistent on every line, commas (decimal commas) not: ';' wins.
    write(f, "a;b\n1,5;2\n3;4,25\n");
    auto s = inspectCsv(f, {});
    QVERIFY(s);
    QCOMPARE(s->delimiter, ';');
    QCOMPARE(s->columns[0].type, ValueType::Categorical);  // "1,5" is not a number
    // Override: read as comma-separated, the header becomes two columns "a;b" and... ragged rows.
    CsvOptions o;
    o.delimiter = ',';
    auto c = inspectCsv(f, o);
    QVERIFY(c);
    QCOMPARE(c->columns.size(), std::size_t(1));
    QCOMPARE(c->columns[0].name, std::string("a;b"));
    write(f, "a|b\n1|2\n");
    QCOMPARE(inspectCsv(f, {})->delimiter, '|');
    write(f, "a\tb\n1\t2\n");
    QCOMPARE(inspectCsv(f, {})->delimiter, '\t');
    write(f, "single\n1\n");
    QCOMPARE(inspectCsv(f, {})->delimiter, ',');
}

void TestCsvReader::noHeader() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/n.csv";
    write(f, "1,a\n2,b\n2,a\n");
    CsvOptions o;
    o.header = false;
    auto r = csvHistograms(f, o, {request("column 1", "integers:1:2")});
    QVERIFY2(r, r ? "" : msg(r.error()).constData());
    QCOMPARE(r->rows, std::int64_t(3));
    QCOMPARE(counts(r->columns[0]), (std::vector<std::int64_t>{1, 2}));
    auto bad = csvHistograms(f, o, {request("x", "integers:1:2")});
    QVERIFY(!bad);
    QVERIFY(bad.error().message.find("'column 1', 'column 2'") != std::string::npos);
}

void TestCsvReader::typeInferenceAndOverride() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/t.csv";
    write(f, "i,f,d,c,e\n1,1.5,2024-01-01,x,\n-2,3,2024-12-31,7,\n,1e3,,y,\n");
    auto s = inspectCsv(f, {});
    QVERIFY(s);
    QCOMPARE(s->columns[0].type, ValueType::Integer);
    QCOMPARE(s->columns[1].type, ValueType::Float);
    QCOMPARE(s->columns[2].type, ValueType::Date);
    QCOMPARE(s->columns[3].type, ValueType::Categorical);
    QCOMPARE(s->columns[4].type, ValueType::Categorical);  // no values
    CsvOptions o;
    o.types = {{"i", ValueType::Categorical}, {"f", ValueType::Float}};
    auto t = inspectCsv(f, o);
    QVERIFY(t);
    QCOMPARE(t->columns[0].type, ValueType::Categorical);
    // Integer categories of the overridden column are its texts: "-2", "1".
    auto r = csvHistograms(f, o, {request("i", "categories")});
    QVERIFY(r);
    QCOMPARE(r->columns[0].histogram.labels(), strings({"-2", "1"}));
    o.types = {{"nope", ValueType::Integer}};
    auto bad = inspectCsv(f, o);
    QVERIFY(!bad);
    QVERIFY(bad.error().message.find("'nope'") != std::string::npos);
    // A categorical column with numeric bins: a clear error, not a miscount.
    auto text = csvHistograms(f, {}, {request("c", "0:10:2")});
    QVERIFY(!text);
    QVERIFY(text.error().message.find("holds text") != std::string::npos);
}

void TestCsvReader::dates() {
    std::int64_t d = 0;
    QVERIFY(parseIsoDate("1970-01-01", d));
    QCOMPARE(d, std::int64_t(0));
    QVERIFY(parseIsoDate("2000-03-01", d));
    QCOMPARE(d, std::int64_t(11017));  // 30·365 + 7 leap days (72…96) + 31 + 29
    QVERIFY(parseIsoDate("1969-12-31", d));
    QCOMPARE(d, std::int64_t(-1));
    QVERIFY(parseIsoDate("2024-02-29", d));
    QVERIFY(!parseIsoDate("2023-02-29", d));
    QVERIFY(!parseIsoDate("1900-02-29", d));
    QVERIFY(!parseIsoDate("2024-13-01", d));
    QVERIFY(!parseIsoDate("2024-1-01", d));
    QVERIFY(!parseIsoDate("2024/01/01", d));
    QVERIFY(!parseIsoDate("", d));
}

void TestCsvReader::numbersAsFromChars() {
    // The reader's fast path for plain decimals must give the very double parseNumber
    // (std::from_chars) gives: numeric categories are labelled with the shortest round-trip form
    // of the parsed double, so equal labels mean equal doubles.
    std::mt19937_64 rng(7);
    std::vector<std::string> texts = {
        "0.1", "-0", "0.30000000000000004", "2.675", "123456789012345", "1234567890123456",
        "9007199254740993", "0.000000000000001", "1.", "-7.250", "00012.5", "1e3",
        // Whole numbers (no division in the fast path), signs, leading zeros, 15 and 16 digits,
        // spaces and tabs around (trimmed by the scanner's loops, not its no-trim shortcut).
        "0", "-000", "007", "+5", "1.0", "-1.0", "999999999999999", "-999999999999999",
        "1000000000000001", " 42", "43 ", "\t44\t", " -45 "};
    for (int i = 0; i < 2000; ++i) {
        const auto digits = std::uniform_int_distribution<int>(1, 17)(rng);
        std::string t;
        for (int d = 0; d < digits; ++d) {
            t += static_cast<char>('0' + std::uniform_int_distribution<int>(0, 9)(rng));
        }
        const auto dot = std::uniform_int_distribution<int>(0, digits)(rng);
        if (dot > 0 && dot < digits) {
            t.insert(static_cast<std::size_t>(dot), ".");
        }
        texts.push_back((i % 3 == 0 ? "-" : "") + t);
    }
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/n.csv";
    std::string s = "x\n";
    for (const auto& t : texts) {
        s += t + "\n";
    }
    write(f, s);
    CsvOptions o;
    o.types = {{"x", ValueType::Float}};
    auto r = csvHistograms(f, o, {request("x", "categories")});
    QVERIFY2(r, r ? "" : msg(r.error()).constData());
    std::vector<std::string> expected;
    std::vector<double> values;
    for (const auto& t : texts) {
        double v = 0;
        QVERIFY(parseNumber(t, v));
        values.push_back(v == 0 ? 0.0 : v);
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    for (double v : values) {
        expected.push_back(formatShortest(v));
    }
    QCOMPARE(r->columns[0].histogram.labels(), expected);
}

void TestCsvReader::skipPolicyCountsReasons() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/s.csv";
    // Lines 2–3 good, 4 ragged, 5 not a number, 6 invalid UTF-8, 7 text after quote, 8 good.
    write(f, "a,b\n1,x\n2,y\n3\nzz,q\n4,\xC3\n\"5\"z,w\n6,z\n");
    CsvOptions o;
    o.sampleRows = 2;
    o.onBadRow = BadRowPolicy::Skip;
    auto r = csvHistograms(f, o, {request("a", "integers:1:6")});
    QVERIFY2(r, r ? "" : msg(r.error()).constData());
    QCOMPARE(r->rows, std::int64_t(7));
    QCOMPARE(counts(r->columns[0]), (std::vector<std::int64_t>{1, 1, 0, 0, 0, 1}));
    QCOMPARE(skipped(*r, "ragged row"), std::int64_t(1));
    QCOMPARE(skipped(*r, "not a number"), std::int64_t(1));
    QCOMPARE(skipped(*r, "invalid UTF-8"), std::int64_t(1));
    QCOMPARE(skipped(*r, "text after closing quote"), std::int64_t(1));
    QCOMPARE(r->skipped.front().first, std::string("ragged row"));  // first-seen order
    QCOMPARE(r->columns[0].report.rows, std::int64_t(3));
    // Stop: the first bad row is the error.
    o.onBadRow = BadRowPolicy::Stop;
    auto s = csvHistograms(f, o, {request("a", "integers:1:6")});
    QVERIFY(!s);
    QVERIFY2(s.error().message.rfind("line 4, column 2: ", 0) == 0, msg(s.error()).constData());
}

// Issue #17 item 11, the rule every source follows: a value that is not a finite number (inf,
// -Infinity, nan, 1e400) in a numeric column is a bad value "not a number" under the policy. The
// sample's inf and nan leave the column numeric (before, they made it a text column, so the same
// data was refused as "holds text" in a CSV file and counted or dropped in a database); a column
// of nothing but such words stays text. The report counts against every row read.
void TestCsvReader::nonFiniteIsNotANumber() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/inf.csv";
    // Lines 2, 3 and 8 good; 4–7 not finite; 9 missing.
    write(f, "x,words\n1,inf\n2.5,nan\ninf,NaN\n-Infinity,-inf\nnan,inf\n1e400,nan\n2,inf\n,nan\n");
    CsvOptions o;
    auto schema = inspectCsv(f, o);
    QVERIFY2(schema, schema ? "" : msg(schema.error()).constData());
    QCOMPARE(schema->columns[0].type, ValueType::Float);
    QCOMPARE(schema->columns[1].type, ValueType::Categorical);
    o.onBadRow = BadRowPolicy::Skip;
    for (const char* spec : {"0:10:2", "0:10:2;clamp", "categories", "categories:1,2,2.5;other"}) {
        auto r = csvHistograms(f, o, {request("x", spec)});
        QVERIFY2(r, r ? "" : msg(r.error()).constData());
        QCOMPARE(r->rows, std::int64_t(8));
        QCOMPARE(skipped(*r, "not a number"), std::int64_t(4));
        QCOMPARE(r->columns[0].report.used, std::int64_t(3));
        QCOMPARE(r->columns[0].report.missing, std::int64_t(1));
        QCOMPARE(describeColumnReport(*r, 0, "x"),
                 std::string("3 of 8 rows counted; 4 rows skipped (not a number: 4); 1 missing "
                             "value skipped."));
    }
    // Stop: the first one is the error, with its line and column.
    o.onBadRow = BadRowPolicy::Stop;
    auto s = csvHistograms(f, o, {request("x", "0:10:2")});
    QVERIFY(!s);
    QVERIFY2(s.error().message.rfind("line 4, column 1: 'inf' in the float column 'x' is not a "
                                     "finite number",
                                     0) == 0,
             msg(s.error()).constData());
    // The words column is text: its values are categories.
    auto w = csvHistograms(f, o, {request("words", "categories")});
    QVERIFY2(w, w ? "" : msg(w.error()).constData());
    QCOMPARE(w->columns[0].histogram.size(), std::size_t(4));  // inf, nan, NaN, -inf
}

void TestCsvReader::nulByteLaterIsBadRow() {
    // A NUL byte in the first 64 KiB means a binary file; later, one bad row.
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/z.csv";
    std::string s = "a\n";
    for (int i = 0; i < 20000; ++i) {
        s += "1234\n";
    }
    s += std::string("5\0", 2) + "\n6\n";
    write(f, s);
    CsvOptions o;
    o.onBadRow = BadRowPolicy::Skip;
    auto r = csvHistograms(f, o, {request("a", "0:10000:1")});
    QVERIFY2(r, r ? "" : msg(r.error()).constData());
    QCOMPARE(skipped(*r, "NUL byte"), std::int64_t(1));
    QCOMPARE(counts(r->columns[0]), (std::vector<std::int64_t>{20001}));
    o.onBadRow = BadRowPolicy::Stop;
    auto e = csvHistograms(f, o, {request("a", "0:10000:1")});
    QVERIFY(!e);
    QVERIFY2(e.error().message.rfind("line 20002, column 1: a NUL byte", 0) == 0,
             msg(e.error()).constData());
}

void TestCsvReader::multithreadedEqualsSingleThreaded() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/g.csv";
    write(f, generatedFile(30000, true));
    CsvOptions one;
    one.threads = 1;
    one.onBadRow = BadRowPolicy::Skip;
    const std::vector<ColumnRequest> req = {
        request("age", "0:100:32"), request("state", "categories"), request("note", "categories"),
        request("id", "integers:0:96:8")};
    auto ref = csvHistograms(f, one, req);
    QVERIFY2(ref, ref ? "" : msg(ref.error()).constData());
    QVERIFY(skipped(*ref, "ragged row") > 0);
    QVERIFY(skipped(*ref, "not a number") > 0);
    for (unsigned threads : {2u, 3u, 7u, 16u}) {
        for (std::size_t block : {std::size_t(64), std::size_t(4096), std::size_t(1) << 20}) {
            CsvOptions o = one;
            o.threads = threads;
            o.blockBytes = block;
            auto r = csvHistograms(f, o, req);
            QVERIFY2(r, r ? "" : msg(r.error()).constData());
            QCOMPARE(r->rows, ref->rows);
            QCOMPARE(r->skipped, ref->skipped);
            for (std::size_t c = 0; c < req.size(); ++c) {
                QCOMPARE(counts(r->columns[c]), counts(ref->columns[c]));
                QCOMPARE(r->columns[c].histogram.labels(), ref->columns[c].histogram.labels());
                QCOMPARE(r->columns[c].report.missing, ref->columns[c].report.missing);
                QCOMPARE(r->columns[c].report.rows, ref->columns[c].report.rows);
            }
        }
    }
}

void TestCsvReader::multithreadedErrorLine() {
    // Stop policy: the first bad row, with its line, is the same with any number of threads.
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/e.csv";
    write(f, generatedFile(20000, true));
    CsvOptions o;
    o.threads = 1;
    auto ref = csvHistograms(f, o, {request("age", "0:100:4")});
    QVERIFY(!ref);
    for (unsigned threads : {2u, 5u}) {
        o.threads = threads;
        o.blockBytes = 1000;
        auto r = csvHistograms(f, o, {request("age", "0:100:4")});
        QVERIFY(!r);
        QCOMPARE(r.error().message, ref.error().message);
    }
}

void TestCsvReader::randomFilesThreadsAgree() {
    // Small random files over an alphabet of CSV's special bytes (quotes, delimiters, every line
    // end, a UTF-8 pair and a stray continuation byte): whatever the reader makes of them — counts
    // or an error — is the same for 1 and 3 threads and for any read block size, under both
    // policies, and nothing crashes (this test runs under the sanitizers in CI builds).
    std::mt19937 rng(11);
    const std::vector<std::string> alphabet = {"1",  "2",    "a",  ",", ",",        "\"",   "\"\"",
                                               "\n", "\r\n", "\r", " ", "\xC3\xA9", "\xA9", "7"};
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/r.csv";
    for (int file = 0; file < 300; ++file) {
        std::string text = "x,y\n";
        const int n = std::uniform_int_distribution<int>(1, 200)(rng);
        for (int i = 0; i < n; ++i) {
            text += alphabet[pick(rng)];
        }
        write(f, text);
        for (BadRowPolicy policy : {BadRowPolicy::Stop, BadRowPolicy::Skip}) {
            CsvOptions one;
            one.delimiter = ',';
            one.threads = 1;
            one.onBadRow = policy;
            one.types = {{"x", ValueType::Categorical}};
            const std::vector<ColumnRequest> req = {request("x", "categories")};
            auto ref = csvHistograms(f, one, req);
            for (std::size_t block : {std::size_t(1), std::size_t(3), std::size_t(7)}) {
                CsvOptions o = one;
                o.threads = 3;
                o.blockBytes = block;
                auto r = csvHistograms(f, o, req);
                const QByteArray info = "file " + QByteArray::number(file) + ": " +
                                        QByteArray::fromStdString(text).toPercentEncoding();
                QVERIFY2(bool(r) == bool(ref), info.constData());
                if (!r) {
                    QCOMPARE(r.error().message, ref.error().message);
                    continue;
                }
                QCOMPARE(r->rows, ref->rows);
                QCOMPARE(r->skipped, ref->skipped);
                QCOMPARE(counts(r->columns[0]), counts(ref->columns[0]));
                QCOMPARE(r->columns[0].histogram.labels(), ref->columns[0].histogram.labels());
            }
        }
    }
}

void TestCsvReader::contributionCap() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/c.csv";
    // Person a has 4 rows, b 1, c 2. Cap 2: a keeps its first two (ages 10, 20), drops 30, 40.
    write(f, "id,age\na,10\nb,15\na,20\nc,25\na,30\nc,35\na,40\n,50\n");
    ContributionCap cap{"id", 2};
    CsvOptions o;
    o.onBadRow = BadRowPolicy::Skip;
    auto r = csvHistograms(f, o, {request("age", "0:50:5")}, cap);
    QVERIFY2(r, r ? "" : msg(r.error()).constData());
    QCOMPARE(r->rows, std::int64_t(8));
    QCOMPARE(r->cappedRows, std::int64_t(2));
    QCOMPARE(skipped(*r, "missing id"), std::int64_t(1));
    // Kept: 10, 15, 20, 25, 35 → [10,20) 2, [20,30) 2, [30,40) 1.
    QCOMPARE(counts(r->columns[0]), (std::vector<std::int64_t>{0, 2, 2, 1, 0}));
    // Threads requested: the cap still keeps the first rows in file order.
    o.threads = 4;
    o.blockBytes = 3;
    auto t = csvHistograms(f, o, {request("age", "0:50:5")}, cap);
    QVERIFY(t);
    QCOMPARE(counts(t->columns[0]), counts(r->columns[0]));
    QCOMPARE(t->cappedRows, std::int64_t(2));
    // Bad caps and id columns.
    QVERIFY(!csvHistograms(f, o, {request("age", "0:50:5")}, ContributionCap{"id", 0}));
    auto noId = csvHistograms(f, o, {request("age", "0:50:5")}, ContributionCap{"who", 1});
    QVERIFY(!noId);
    QVERIFY(noId.error().message.find("id column") != std::string::npos);
}

void TestCsvReader::cancellation() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/x.csv";
    write(f, generatedFile(50000, false));
    std::stop_source stop;
    stop.request_stop();
    CsvOptions o;
    auto r = csvHistograms(f, o, {request("age", "0:100:4")}, {}, stop.get_token());
    QVERIFY(!r);
    QCOMPARE(r.error().message, std::string("cancelled"));
    // Cancelled from the progress callback, mid-pass, with threads.
    std::stop_source mid;
    o.threads = 2;
    o.blockBytes = 4096;
    auto m = csvHistograms(f, o, {request("age", "0:100:4")}, {}, mid.get_token(),
                           [&](double) { mid.request_stop(); });
    QVERIFY(!m);
    QCOMPARE(m.error().message, std::string("cancelled"));
}

void TestCsvReader::progress() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/p.csv";
    write(f, generatedFile(50000, false));
    std::atomic<int> calls{0};
    std::atomic<bool> inRange{true};
    CsvOptions o;
    o.threads = 2;
    o.blockBytes = 4096;
    std::atomic<double> last{-1};  // called from the worker threads too
    auto r = csvHistograms(f, o, {request("age", "0:100:4")}, {}, {}, [&](double x) {
        ++calls;
        if (!(x >= 0 && x <= 1)) {
            inRange = false;
        }
        last = x;
    });
    QVERIFY(r);
    QVERIFY(calls > 2);
    QVERIFY(inRange);
    QCOMPARE(last.load(), 1.0);  // the last call, after the workers are done
}

void TestCsvReader::limits() {
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/l.csv";
    write(f, "a,b\n1,2\n333333333333333333,4\n");
    CsvOptions o;
    o.limits.maxRecordBytes = 16;
    auto r = csvHistograms(f, o, {request("a", "0:10:2")});
    QVERIFY(!r);
    // The column is the field that holds the first byte over the limit (byte 17 is in field 1),
    // whatever the block size: found by the fuzz target, tests/fuzz/regressions/
    // record-limit-column-depends-on-block (the column used to be the last field scanned before
    // the check, which depended on where the read blocks ended).
    QVERIFY2(r.error().message.rfind("line 3, column 1: the record is longer than the limit of 16",
                                     0) == 0,
             msg(r.error()).constData());
    for (std::size_t block : {std::size_t(1), std::size_t(5), std::size_t(17)}) {
        o.blockBytes = block;
        auto b = csvHistograms(f, o, {request("a", "0:10:2")});
        QVERIFY(!b);
        QCOMPARE(b.error().message, r.error().message);
    }
    write(f, "a,b\n1,2\n3,44444444444444444444\n");
    for (std::size_t block : {std::size_t(1), std::size_t(4), std::size_t(1) << 20}) {
        o.blockBytes = block;
        auto b = csvHistograms(f, o, {request("a", "0:10:2")});
        QVERIFY(!b);
        QVERIFY2(b.error().message.rfind("line 3, column 2: the record is longer", 0) == 0,
                 msg(b.error()).constData());
    }
    write(f, "a,b\n1,2\n333333333333333333,4\n");
    o = {};
    o.limits.maxFields = 1;
    auto fields = csvHistograms(f, o, {request("a", "0:10:2")});
    QVERIFY(!fields);
    QVERIFY2(
        fields.error().message.find("line 1, column 2: the record has more than 1 field,") == 0,
        msg(fields.error()).constData());
    o = {};
    o.limits.maxFileBytes = 10;
    auto size = csvHistograms(f, o, {request("a", "0:10:2")});
    QVERIFY(!size);
    QVERIFY(size.error().message.find("more than the limit of 10") != std::string::npos);
    // An unterminated quote in a big file is caught by the record limit, not by reading on.
    write(f, "a\n\"" + std::string(5000, 'x') + "\n");
    o = {};
    o.limits.maxRecordBytes = 1000;
    o.blockBytes = 100;
    auto q = csvHistograms(f, o, {request("a", "0:10:2")});
    QVERIFY(!q);
    QVERIFY2(q.error().message.find("unterminated quote") != std::string::npos,
             msg(q.error()).constData());
}

void TestCsvReader::optionErrors() {
    const std::string f = kDir + "/good/tabs.tsv";
    CsvOptions o;
    o.delimiter = '"';
    QVERIFY(!csvHistograms(f, o, {request("x", "0:10:2")}));
    o = {};
    o.sampleRows = 0;
    QVERIFY(!csvHistograms(f, o, {request("x", "0:10:2")}));
    QVERIFY(!csvHistograms(f, {}, {}));
    auto missing = csvHistograms(kDir + "/nope.csv", {}, {request("x", "0:10:2")});
    QVERIFY(!missing);
    QVERIFY(missing.error().message.find("no such file") != std::string::npos);
    auto directory = csvHistograms(kDir, {}, {request("x", "0:10:2")});
    QVERIFY(!directory);
    QVERIFY(directory.error().message.find("directory") != std::string::npos);
}

void TestCsvReader::fuzzRegressionsAndSeeds() {
    // Every input the fuzz target (tests/fuzz) ever failed on, and its seed corpus, through the
    // target's own checks (csv_fuzz_check.h): the same result with the fuzzed threads and block
    // size as with one thread and one block, counts that add up, no exception. Plain ctest, no
    // clang needed; the sanitizer builds run it under ASan/UBSan.
    namespace fs = std::filesystem;
    const fs::path fuzz = DPX_FUZZ_TEST_DIR;
    dpx::fuzz::InputFile file;
    std::size_t regressions = 0;
    for (const char* sub : {"regressions", "corpus/csv"}) {
        std::vector<fs::path> inputs;
        for (const auto& e : fs::directory_iterator(fuzz / sub)) {
            if (e.is_regular_file()) {
                inputs.push_back(e.path());
            }
        }
        std::sort(inputs.begin(), inputs.end());
        QVERIFY2(!inputs.empty(), (fuzz / sub).string().c_str());
        for (const auto& in : inputs) {
            std::ifstream is(in, std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(is)),
                                    std::istreambuf_iterator<char>());
            const std::string failure = dpx::fuzz::checkCsvInput(
                reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), file);
            QVERIFY2(failure.empty(), (in.filename().string() + ": " + failure).c_str());
            regressions += std::string(sub) == "regressions" ? 1 : 0;
        }
    }
    QVERIFY(regressions >= 1);
}

QTEST_APPLESS_MAIN(TestCsvReader)
#include "tst_csv_reader.moc"
