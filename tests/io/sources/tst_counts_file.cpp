// Counts files (io/sources/counts_file): .npy through readCountsFile, and counts CSVs in the long,
// vector and matrix layouts. References: small files whose tables are written out by hand in the
// comments; every refusal checked for its line and column.
#include <QTemporaryDir>
#include <QTest>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "io/sources/counts_file.h"

using namespace dpx;
using namespace dpx::data;

namespace {

// A 1.0 .npy file of little-endian int64 values with the given shape text.
std::string npy(const std::string& shape, const std::vector<std::int64_t>& v) {
    std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + dict.size() + 1) % 64 != 0) {
        dict += ' ';
    }
    dict += '\n';
    std::string s = std::string("\x93NUMPY\x01\x00", 8);
    s += static_cast<char>(dict.size() & 0xFF);
    s += static_cast<char>(dict.size() >> 8);
    s += dict;
    for (std::int64_t x : v) {
        for (int b = 0; b < 8; ++b) {
            s += static_cast<char>((static_cast<std::uint64_t>(x) >> (8 * b)) & 0xFF);
        }
    }
    return s;
}

}  // namespace

class TestCountsFile : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    std::string write(const std::string& name, const std::string& text) {
        const std::string path = dir_.filePath(QString::fromStdString(name)).toStdString();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    std::string errorOf(const std::string& name, const std::string& text,
                        CountsLayout layout = CountsLayout::Auto) {
        CountsFileOptions o;
        o.layout = layout;
        auto r = readCountsFile(write(name, text), o);
        return r ? std::string("(no error)") : r.error().message;
    }

private Q_SLOTS:
    void layoutNames() {
        for (CountsLayout l : {CountsLayout::Auto, CountsLayout::Long, CountsLayout::Vector,
                               CountsLayout::Matrix, CountsLayout::Npy}) {
            QCOMPARE(*countsLayoutFromName(countsLayoutName(l)), l);
        }
        QVERIFY(!countsLayoutFromName("wide"));
    }

    void npyByMagic() {
        const std::string p = write("h.npy", npy("(2, 3)", {0, 1, 2, 3, 4, 5}));
        auto r = readCountsFile(p);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->layout, CountsLayout::Npy);
        QCOMPARE(r->table.denseCounts(), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(r->description, std::string("6 counts from h.npy (int64, C order)"));
        // Asked for a CSV layout: refused; a CSV asked to be .npy: refused.
        CountsFileOptions o;
        o.layout = CountsLayout::Long;
        QVERIFY(!readCountsFile(p, o));
        QVERIFY(errorOf("x.csv", "1,2\n", CountsLayout::Npy).find("magic") != std::string::npos);
        // The .npy reader's messages come through with the file name.
        const std::string neg = errorOf("n.npy", npy("(2, 2)", {1, 2, -3, 4}));
        QVERIFY2(neg.find("n.npy") != std::string::npos && neg.find("[1, 0]") != std::string::npos,
                 neg.c_str());
    }

    // sex × class, the cells listed in any order; the bins are the values found, sorted.
    //   F,<=50K = 3   F,>50K = 0   M,<=50K = 2   M,>50K = 5   → C order [3, 0, 2, 5]
    void longLayout() {
        auto r = readCountsFile(
            write("l.csv", "sex,class,count\nM,>50K,5\nF,<=50K,3\nF,>50K,0\nM,<=50K,2\n"));
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->layout, CountsLayout::Long);
        QCOMPARE(r->table.attribute(0).labels, (std::vector<std::string>{"F", "M"}));
        QCOMPARE(r->table.attribute(1).labels, (std::vector<std::string>{"<=50K", ">50K"}));
        QCOMPARE(r->table.denseCounts(), (std::vector<std::int64_t>{3, 0, 2, 5}));
        QVERIFY(!r->table.attribute(0).declared);
        // Numbers sort as numbers (2 before 10); 3.0 and 1e3 are whole counts; the count column
        // may be anywhere and have another name.
        CountsFileOptions o;
        o.countColumn = "n";
        auto num = readCountsFile(write("a.csv", "n,age\n3.0,10\n1e3,2\n"), o);
        QVERIFY2(num, num ? "" : num.error().message.c_str());
        QCOMPARE(num->table.attribute(0).labels, (std::vector<std::string>{"2", "10"}));
        QCOMPARE(num->table.denseCounts(), (std::vector<std::int64_t>{1000, 3}));
        // Integers beyond 2^53 are read exactly.
        auto big = readCountsFile(write("b.csv", "k,count\na,9007199254740993\n"));
        QVERIFY(big);
        QCOMPARE(big->table.total(), std::int64_t{9007199254740993});
    }

    void longErrors() {
        const std::string head = "sex,class,count\nF,a,1\n";
        auto has = [](const std::string& m, const std::string& needle) {
            return m.find(needle) != std::string::npos;
        };
        std::string m = errorOf("e1.csv", head + "M,a,-1\n");
        QVERIFY2(has(m, "line 3, column 3") && has(m, "negative"), m.c_str());
        m = errorOf("e2.csv", head + "M,a,2.5\n");
        QVERIFY2(has(m, "line 3, column 3") && has(m, "fractional"), m.c_str());
        m = errorOf("e3.csv", head + "M,a,many\n");
        QVERIFY2(has(m, "line 3, column 3") && has(m, "not a number"), m.c_str());
        m = errorOf("e4.csv", head + "M,a,\n");
        QVERIFY2(has(m, "line 3, column 3") && has(m, "empty"), m.c_str());
        m = errorOf("e5.csv", head + "\nF,a,4\n");  // a blank line: line 4
        QVERIFY2(has(m, "line 4") && has(m, "line 2") && has(m, "same cell"), m.c_str());
        m = errorOf("e6.csv", head + ",a,4\n");
        QVERIFY2(has(m, "line 3, column 1") && has(m, "'sex'"), m.c_str());
        m = errorOf("e7.csv", head + "M,a,1,9\n");
        QVERIFY2(has(m, "line 3") && has(m, "4 fields"), m.c_str());
        m = errorOf("e8.csv", head + "M,a,99999999999999999999\n");
        QVERIFY2(has(m, "2^63"), m.c_str());
        m = errorOf("e9.csv", "sex,count\n", CountsLayout::Long);
        QVERIFY2(has(m, "no counts"), m.c_str());
        m = errorOf("e10.csv", "sex,n\nF,1\n", CountsLayout::Long);
        QVERIFY2(has(m, "'count'") && has(m, "'sex'"), m.c_str());
        QVERIFY(has(errorOf("e11.csv", ""), "empty"));
        QVERIFY(has(errorOf("e12.csv", "hits\n"), "no counts"));
        CountsFileOptions o;
        auto missing = readCountsFile(dir_.filePath(QStringLiteral("none.csv")).toStdString(), o);
        QVERIFY(!missing && has(missing.error().message, "no such file"));
    }

    void vectorLayout() {
        auto a = readCountsFile(write("v1.csv", "4\n0\n7\n"));
        QVERIFY2(a, a ? "" : a.error().message.c_str());
        QCOMPARE(a->layout, CountsLayout::Vector);
        QCOMPARE(a->table.denseCounts(), (std::vector<std::int64_t>{4, 0, 7}));
        QCOMPARE(a->table.attribute(0).name, std::string("index"));
        // A header names the attribute (also when it is the count column's name).
        auto b = readCountsFile(write("v2.csv", "count\n4\n0\n7\n"));
        QVERIFY2(b, b ? "" : b.error().message.c_str());
        QCOMPARE(b->table.attribute(0).name, std::string("count"));
        QCOMPARE(b->table.denseCounts(), (std::vector<std::int64_t>{4, 0, 7}));
        const std::string m = errorOf("v3.csv", "hits\n4\n-2\n");
        QVERIFY2(m.find("line 3, column 1") != std::string::npos, m.c_str());
    }

    void matrixLayout() {
        // rows × columns, C order.
        auto a = readCountsFile(write("m1.csv", "1,2,3\n4,5,6\n"));
        QVERIFY2(a, a ? "" : a.error().message.c_str());
        QCOMPARE(a->layout, CountsLayout::Matrix);
        QCOMPARE(a->table.shape(), (std::vector<std::uint64_t>{2, 3}));
        QCOMPARE(a->table.denseCounts(), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
        // With a header: the column bins are named; repeated first-row numbers are data, not a
        // header with a repeated name.
        auto b = readCountsFile(write("m2.csv", "a;b\n0;0\n2;1\n"));
        QVERIFY2(b, b ? "" : b.error().message.c_str());
        QCOMPARE(b->table.attribute(1).labels, (std::vector<std::string>{"a", "b"}));
        QCOMPARE(b->table.denseCounts(), (std::vector<std::int64_t>{0, 0, 2, 1}));
        auto c = readCountsFile(write("m3.csv", "0,0\n0,1\n"));
        QVERIFY(c && c->table.total() == 1);
        std::string m = errorOf("m4.csv", "1,2\n3,0.5\n");
        QVERIFY2(m.find("line 2, column 2") != std::string::npos &&
                     m.find("fractional") != std::string::npos,
                 m.c_str());
        m = errorOf("m5.csv", "1,2\n3\n");
        QVERIFY2(m.find("line 2") != std::string::npos, m.c_str());
        m = errorOf("m6.csv", "1,2\n", CountsLayout::Vector);
        QVERIFY2(m.find("one column") != std::string::npos, m.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCountsFile)
#include "tst_counts_file.moc"
