// Tables of several attributes on the command line (issue #19, docs/tables.md): `dpx histogram
// --joint` against an independent count of generated rows (dense, sparse and CSV forms), a joint
// domain beyond 2⁶⁴ cells refused by name; `--counts-file` (.npy, counts CSV) on the subcommands
// that take --counts, bad files refused with the position, --counts with --counts-file refused;
// `dpx release` of a joint table (one CSV column per attribute, metadata listing the attributes,
// the ledger charged as for a histogram); `dpx query` against closed forms of the expected error
// of a box; `dpx sparse` on a 2⁴⁰-cell domain given as a long counts CSV.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "dpx_process.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace {

using dpxtest::describe;
using dpxtest::npy;
using dpxtest::Run;
using dpxtest::words;

Run dpx(const QStringList& args) {
    return dpxtest::runDpx(args);
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray int64s(const std::vector<std::int64_t>& v) {
    QByteArray b;
    for (std::int64_t x : v) {
        for (int i = 0; i < 8; ++i) {
            b += static_cast<char>((static_cast<std::uint64_t>(x) >> (8 * i)) & 0xFF);
        }
    }
    return b;
}

// 200 generated rows of sex (F/M), class (<=50K/>50K) and age (18…80), a few out of range.
struct People {
    QByteArray csv = "sex,class,age\n";
    // Independent count: (sex, class, age bin of integers:18:79:20 → 3 bins) → rows.
    std::map<std::vector<int>, int> cells;
    int counted = 0;
};
People people() {
    People p;
    for (int i = 0; i < 200; ++i) {
        const int sex = (i * 7) % 3 == 0 ? 0 : 1;
        const int cls = (i * 11) % 5 < 2 ? 1 : 0;
        const int age = 10 + (i * 37) % 75;  // 10 … 84: some below 18, some above 79
        p.csv += QByteArray(sex ? "M" : "F") + "," + (cls ? ">50K" : "<=50K") + "," +
                 QByteArray::number(age) + "\n";
        if (age >= 18 && age <= 77) {
            ++p.cells[{sex, cls, (age - 18) / 20}];
            ++p.counted;
        }
    }
    return p;
}

const QStringList kJointColumns = words(
    "--joint --column sex --bins categories:F,M --column class --bins categories:<=50K,>50K "
    "--column age --bins integers:18:77:20");

}  // namespace

class TestDpxTables : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The dense joint table equals an independent count of the generated rows, cell by cell in C
    // order; the summary accounts for every row.
    void jointHistogramMatchesIndependentCount() {
        QTemporaryDir dir;
        const People p = people();
        const QString data = dir.filePath(QStringLiteral("people.csv"));
        QVERIFY(writeFile(data, p.csv));
        const Run r = dpx(QStringList{QStringLiteral("histogram"), QStringLiteral("--data"), data} +
                          kJointColumns);
        QVERIFY2(r.exitCode == 0 && r.jsonOk, describe(r).constData());
        QCOMPARE(r.json.value(QStringLiteral("shape")).toArray(), (QJsonArray{2, 2, 3}));
        const QJsonArray counts = r.json.value(QStringLiteral("counts")).toArray();
        QCOMPARE(counts.size(), 12);
        for (int s = 0; s < 2; ++s) {
            for (int c = 0; c < 2; ++c) {
                for (int a = 0; a < 3; ++a) {
                    const auto it = p.cells.find({s, c, a});
                    const int expected = it == p.cells.end() ? 0 : it->second;
                    QCOMPARE(counts[(s * 2 + c) * 3 + a].toInt(), expected);
                }
            }
        }
        const QJsonObject summary = r.json.value(QStringLiteral("summary")).toObject();
        QCOMPARE(summary.value(QStringLiteral("rows")).toInt(), 200);
        QCOMPARE(summary.value(QStringLiteral("counted")).toInt(), p.counted);
        const QJsonObject age = summary.value(QStringLiteral("dropped"))
                                    .toObject()
                                    .value(QStringLiteral("age"))
                                    .toObject();
        QCOMPARE(age.value(QStringLiteral("out_of_range")).toInt(), 200 - p.counted);
        QCOMPARE(summary.value(QStringLiteral("cells")).toInt(), 12);
        QCOMPARE(summary.value(QStringLiteral("occupied")).toInt(),
                 static_cast<int>(p.cells.size()));
        QCOMPARE(summary.value(QStringLiteral("sensitivity"))
                     .toObject()
                     .value(QStringLiteral("l1"))
                     .toDouble(),
                 1.0);

        // --sparse: the occupied cells only, [index, count], the same numbers.
        const Run sp = dpx(QStringList{QStringLiteral("histogram"), QStringLiteral("--data"), data,
                                       QStringLiteral("--sparse")} +
                           kJointColumns);
        QVERIFY2(sp.exitCode == 0 && sp.jsonOk, describe(sp).constData());
        const QJsonArray cells = sp.json.value(QStringLiteral("cells")).toArray();
        QCOMPARE(cells.size(), static_cast<int>(p.cells.size()));
        for (const QJsonValue& v : cells) {
            const QJsonArray cell = v.toArray();
            QCOMPARE(cell[1].toInt(), counts[cell[0].toInt()].toInt());
        }

        // --format csv: one column per attribute and the count.
        const Run csv = dpx(QStringList{QStringLiteral("histogram"), QStringLiteral("--data"), data,
                                        QStringLiteral("--format"), QStringLiteral("csv")} +
                            kJointColumns);
        QVERIFY2(csv.exitCode == 0, describe(csv).constData());
        const QList<QByteArray> lines = csv.out.split('\n');
        QCOMPARE(lines[0], QByteArray("sex,class,age,count"));
        QCOMPARE(lines.size(), 14);  // header, 12 cells, the piece after the last LF
        QCOMPARE(lines[1],
                 "F,<=50K," + QByteArray("18–37,") + QByteArray::number(counts[0].toInt()));
    }

    // A join whose domain exceeds 2⁶⁴ cells is refused with a message that says so.
    void domainOverflowIsRefused() {
        QTemporaryDir dir;
        const QString data = dir.filePath(QStringLiteral("wide.csv"));
        QVERIFY(writeFile(data, "a,b,c,d\n1,2,3,4\n"));
        QStringList args{QStringLiteral("histogram"), QStringLiteral("--data"), data,
                         QStringLiteral("--joint")};
        for (const char* c : {"a", "b", "c", "d"}) {
            args << QStringLiteral("--column") << QString::fromLatin1(c) << QStringLiteral("--bins")
                 << QStringLiteral("0:100000:100000");
        }
        const Run r = dpx(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("2^64"), describe(r).constData());
    }

    // --counts-file: a .npy table and a counts CSV give the same numbers as --counts; bad files
    // are refused with what is wrong and where.
    void countsFiles() {
        QTemporaryDir dir;
        const QString vec = dir.filePath(QStringLiteral("v.csv"));
        QVERIFY(writeFile(vec, "count\n3\n8\n12\n"));
        const Run a =
            dpx(words("expected-error --counts 3,8,12 --mechanism laplace --epsilon 1 "
                      "--estimator clamp --metric sse"));
        const Run b = dpx(
            QStringList{QStringLiteral("expected-error"), QStringLiteral("--counts-file"), vec} +
            words("--mechanism laplace --epsilon 1 --estimator clamp --metric sse"));
        QVERIFY2(a.exitCode == 0 && b.exitCode == 0, (describe(a) + describe(b)).constData());
        QCOMPARE(b.json.value(QStringLiteral("expected_error")),
                 a.json.value(QStringLiteral("expected_error")));

        const QString matrix = dir.filePath(QStringLiteral("m.npy"));
        QVERIFY(writeFile(matrix, npy("<i8", "(2, 3)", int64s({3, 8, 12, 0, 5, 1}))));
        const Run t =
            dpx(QStringList{QStringLiteral("tradeoff"), QStringLiteral("--counts-file"), matrix} +
                words("--metric sse --configs laplace:identity --epsilons 1"));
        const Run tc =
            dpx(words("tradeoff --counts 3,8,12,0,5,1 --metric sse --configs "
                      "laplace:identity --epsilons 1"));
        QVERIFY2(t.exitCode == 0, describe(t).constData());
        QVERIFY2(t.err.contains("dpx: note:") && t.err.contains("C order"),
                 describe(t).constData());
        QCOMPARE(t.json.value(QStringLiteral("curves")), tc.json.value(QStringLiteral("curves")));

        const QString complex = dir.filePath(QStringLiteral("c.npy"));
        QVERIFY(writeFile(complex, npy("<c16", "(2,)", QByteArray(32, '\0'))));
        const Run c = dpx(QStringList{QStringLiteral("sparse"), QStringLiteral("--counts-file"),
                                      complex, QStringLiteral("--epsilon"), QStringLiteral("1")});
        QCOMPARE(c.exitCode, 2);
        QVERIFY2(c.err.contains("--counts-file") && c.err.contains("c16"), describe(c).constData());

        const QString negative = dir.filePath(QStringLiteral("neg.csv"));
        QVERIFY(writeFile(negative, "count\n3\n-2\n"));
        const Run n = dpx(QStringList{QStringLiteral("select"), QStringLiteral("--counts-file"),
                                      negative, QStringLiteral("--epsilon"), QStringLiteral("1")});
        QCOMPARE(n.exitCode, 2);
        QVERIFY2(n.err.contains("negative") && n.err.contains("line 3"), describe(n).constData());

        const QString fraction = dir.filePath(QStringLiteral("frac.csv"));
        QVERIFY(writeFile(fraction, "count\n3\n2.5\n"));
        const Run f = dpx(QStringList{QStringLiteral("rdp"), QStringLiteral("--counts-file"),
                                      fraction, QStringLiteral("--epsilon"), QStringLiteral("1"),
                                      QStringLiteral("--gamma"), QStringLiteral("0.1")});
        QCOMPARE(f.exitCode, 2);
        QVERIFY2(f.err.contains("line 3"), describe(f).constData());

        const Run both =
            dpx(QStringList{QStringLiteral("estimate"), QStringLiteral("--counts"),
                            QStringLiteral("1,2"), QStringLiteral("--counts-file"), vec,
                            QStringLiteral("--estimator"), QStringLiteral("clamp")});
        QCOMPARE(both.exitCode, 2);
        QVERIFY2(both.err.contains("--counts and --counts-file cannot be combined"),
                 describe(both).constData());
    }

    // dpx ldp's marginal protocols number cells with attribute i as bit i; a .npy of d binary
    // axes is in C order (axis 0 most significant), so [c00, c01, c10, c11] is --counts
    // c00,c10,c01,c11.
    void ldpMarginalsFromBinaryAxes() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("b.npy"));
        QVERIFY(writeFile(file, npy("<i8", "(2, 2)", int64s({100, 200, 300, 400}))));
        const QStringList rest =
            words("--protocol inpht:1 --attributes 2 --epsilon 1 --trials 2 --seed 4");
        const Run f =
            dpx(QStringList{QStringLiteral("ldp"), QStringLiteral("--counts-file"), file} + rest);
        const Run c = dpx(words("ldp --counts 100,300,200,400") + rest);
        QVERIFY2(f.exitCode == 0 && c.exitCode == 0, (describe(f) + describe(c)).constData());
        QJsonObject fj = f.json, cj = c.json;
        for (const char* k : {"data", "source", "seconds"}) {
            fj.remove(QLatin1String(k));
            cj.remove(QLatin1String(k));
        }
        QCOMPARE(fj, cj);
    }

    // dpx release of a joint table: one CSV column per attribute, every cell once in C order, the
    // metadata lists the attributes, the ledger charged ε as for any histogram.
    void releaseOfAJointTable() {
        QTemporaryDir dir;
        const QString data = dir.filePath(QStringLiteral("people.csv"));
        QVERIFY(writeFile(data, people().csv));
        const QString out = dir.filePath(QStringLiteral("r.csv"));
        const QString ledger = dir.filePath(QStringLiteral("l.json"));
        const Run r = dpx(
            QStringList{QStringLiteral("release"), QStringLiteral("--data"), data} + kJointColumns +
            QStringList{QStringLiteral("--mechanism"), QStringLiteral("discrete-laplace"),
                        QStringLiteral("--epsilon"), QStringLiteral("0.5"), QStringLiteral("--out"),
                        out, QStringLiteral("--ledger"), ledger, QStringLiteral("--budget"),
                        QStringLiteral("1")});
        QVERIFY2(r.exitCode == 0 && r.jsonOk, describe(r).constData());
        QCOMPARE(r.json.value(QStringLiteral("bins")).toInt(), 12);
        QCOMPARE(r.json.value(QStringLiteral("epsilon_remaining")).toDouble(), 0.5);
        QCOMPARE(
            r.json.value(QStringLiteral("attributes")).toArray(),
            (QJsonArray{QStringLiteral("sex"), QStringLiteral("class"), QStringLiteral("age")}));
        const QList<QByteArray> lines = readFile(out).split('\n');
        // The interval columns of issue #22 follow the value.
        QCOMPARE(lines[0], QByteArray("sex,class,age,value,lower,upper"));
        QCOMPARE(lines.size(), 14);
        QVERIFY(lines[12].startsWith("M,>50K,58–77,"));
        const QJsonObject md =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("r.json")))).object();
        QCOMPARE(md.value(QStringLiteral("attributes")).toArray().size(), 3);

        // Categories found in the data are refused, naming the option; nothing is written.
        QTemporaryDir dir2;
        const Run refused =
            dpx(QStringList{QStringLiteral("release"), QStringLiteral("--data"), data} +
                words("--joint --column sex --bins categories --column class "
                      "--bins categories:<=50K,>50K --mechanism discrete-laplace "
                      "--epsilon 0.5 --budget 1") +
                QStringList{QStringLiteral("--out"), dir2.filePath(QStringLiteral("r.csv")),
                            QStringLiteral("--ledger"), dir2.filePath(QStringLiteral("l.json"))});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("categories"), describe(refused).constData());
        QVERIFY(QDir(dir2.path()).isEmpty());
    }

    // dpx query: a box's true answer by brute force, and its exact expected error in closed form
    // for m cells of Laplace(b = 1/ε): RMSE = b√(2m); for one cell E|error| = b and the 95 %
    // half-width b·ln 20.
    void boxQuery() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("t.npy"));
        // 3 × 4 table, cell (i, j) = 10i + j.
        QVERIFY(writeFile(
            file, npy("<i8", "(3, 4)", int64s({0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}))));
        const Run q = dpx(QStringList{
            QStringLiteral("query"), QStringLiteral("--counts-file"), file, QStringLiteral("--box"),
            QStringLiteral("axis 0=#1..#2,axis 1=#1..#3"), QStringLiteral("--mechanism"),
            QStringLiteral("laplace"), QStringLiteral("--epsilon"), QStringLiteral("0.5"),
            QStringLiteral("--seed"), QStringLiteral("3")});
        QVERIFY2(q.exitCode == 0 && q.jsonOk, describe(q).constData());
        QCOMPARE(q.json.value(QStringLiteral("cells")).toInt(), 6);
        QCOMPARE(q.json.value(QStringLiteral("true_answer")).toInt(), 11 + 12 + 13 + 21 + 22 + 23);
        const QJsonObject e = q.json.value(QStringLiteral("expected_error")).toObject();
        const double b = 2;
        QVERIFY(std::abs(e.value(QStringLiteral("rmse")).toDouble() - b * std::sqrt(12.0)) < 1e-9);

        const Run one = dpx(QStringList{
            QStringLiteral("query"), QStringLiteral("--counts-file"), file, QStringLiteral("--box"),
            QStringLiteral("axis 0=#2,axis 1=#0"), QStringLiteral("--mechanism"),
            QStringLiteral("laplace"), QStringLiteral("--epsilon"), QStringLiteral("0.5")});
        QVERIFY2(one.exitCode == 0, describe(one).constData());
        QCOMPARE(one.json.value(QStringLiteral("true_answer")).toInt(), 20);
        const QJsonObject e1 = one.json.value(QStringLiteral("expected_error")).toObject();
        QVERIFY(std::abs(e1.value(QStringLiteral("mean_abs")).toDouble() - b) < 1e-9);
        QVERIFY(std::abs(e1.value(QStringLiteral("half_width")).toDouble() - b * std::log(20.0)) <
                1e-6);
        // The simulated answer is seeded: the same seed gives the same answer.
        const Run again = dpx(QStringList{
            QStringLiteral("query"), QStringLiteral("--counts-file"), file, QStringLiteral("--box"),
            QStringLiteral("axis 0=#1..#2,axis 1=#1..#3"), QStringLiteral("--mechanism"),
            QStringLiteral("laplace"), QStringLiteral("--epsilon"), QStringLiteral("0.5"),
            QStringLiteral("--seed"), QStringLiteral("3")});
        QCOMPARE(again.json.value(QStringLiteral("simulated")),
                 q.json.value(QStringLiteral("simulated")));
    }

    // dpx sparse on a 2⁴⁰-cell domain (4 attributes of 1024 values each) given as a long counts
    // CSV with 1024 occupied cells: the exact expected L1 of the empty cells is (p − q)·E|out|
    // of an empty cell, and the run is quick.
    void sparseOnHugeDomain() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("long.csv"));
        QByteArray csv = "a,b,c,d,count\n";
        for (int i = 0; i < 1024; ++i) {
            const QByteArray v = QByteArray::number(i);
            csv += v + "," + v + "," + v + "," + v + "," + QByteArray::number(1 + i % 7) + "\n";
        }
        QVERIFY(writeFile(file, csv));
        const Run r = dpx(QStringList{QStringLiteral("sparse"), QStringLiteral("--counts-file"),
                                      file, QStringLiteral("--epsilon"), QStringLiteral("1"),
                                      QStringLiteral("--seed"), QStringLiteral("5")});
        QVERIFY2(r.exitCode == 0 && r.jsonOk, describe(r).constData());
        QCOMPARE(r.json.value(QStringLiteral("cells")).toVariant().toLongLong(), 1LL << 40);
        QCOMPARE(r.json.value(QStringLiteral("occupied")).toInt(), 1024);
        // τ = (2/ε)·ln p = 2·40·ln 2.
        QVERIFY(std::abs(r.json.value(QStringLiteral("threshold")).toDouble() -
                         80 * std::log(2.0)) < 1e-9);
        const QJsonObject expected = r.json.value(QStringLiteral("expected")).toObject();
        // An empty cell is released with probability ½e^{−τ/b} = ½·2^−40; its expected output
        // given release is τ + b, so the empty cells' expected L1 is (p − q)·½e^{−τ/b}·(τ + b).
        const double p = std::ldexp(1.0, 40), q = 1024, b = 2, tau = 80 * std::log(2.0);
        const double emptyL1 = (p - q) * 0.5 * std::exp(-tau / b) * (tau + b);
        const double got = expected.value(QStringLiteral("l1"))
                               .toObject()
                               .value(QStringLiteral("empty_cells"))
                               .toDouble();
        QVERIFY2(std::abs(got - emptyL1) < 1e-9 * emptyL1,
                 QByteArray::number(got, 'g', 17).constData());
        QVERIFY(r.json.value(QStringLiteral("simulated"))
                    .toObject()
                    .contains(QStringLiteral("released_cells")));
    }
};

QTEST_GUILESS_MAIN(TestDpxTables)
#include "tst_dpx_tables.moc"
