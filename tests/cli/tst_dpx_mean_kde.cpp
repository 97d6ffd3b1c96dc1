// dpx mean and dpx kde (issue #9) against their contract (docs/cli.md): the JSON fields, the
// closed forms of seed 004 §3 and seed 003 §3.3.1 (σ² = 2d ln(2/δ)/(ε²n²) as printed, Laplace
// b = 2d/(nε), K-norm θ = 2√d/(nε); Fig. 3.2's pointwise sd 0.138099), reproducibility for a seed,
// and every bad option exiting with code 2 and one "dpx: error:" line naming it.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "dpx_process.h"

#include <cmath>
#include <numbers>

namespace {

using dpxtest::describe;
using dpxtest::Run;

Run dpx(const QStringList& args) {
    return dpxtest::runDpx(args);
}

using dpxtest::words;

// One row of the error tables: the command line and a word its message must contain.
void row(const char* name, const QByteArray& args, const QByteArray& needle) {
    QTest::newRow(name) << args << needle;
}

QJsonObject mechanism(const QJsonObject& o, const char* name) {
    for (const auto& m : o.value(QStringLiteral("mechanisms")).toArray()) {
        if (m.toObject().value(QStringLiteral("name")).toString() == QLatin1String(name)) {
            return m.toObject();
        }
    }
    return {};
}

}  // namespace

#define RUN_OK(r, ...)                                                               \
    const Run r = dpx(__VA_ARGS__);                                                  \
    QVERIFY2(r.exitCode == 0, describe(r).constData());                              \
    QVERIFY2(r.jsonOk, ("stdout is not a JSON object\n" + describe(r)).constData()); \
    QVERIFY2(r.err.isEmpty(), describe(r).constData())

class TestDpxMeanKde : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void meanAllMechanisms();
    void meanUniformPriorAndLowerBound();
    void meanReproducible();
    void meanErrors_data();
    void meanErrors();
    void kdeExampleFig32();
    void kdeFromCsv();
    void kdeErrors_data();
    void kdeErrors();
    void usageMentionsBoth();
};

void TestDpxMeanKde::meanAllMechanisms() {
    RUN_OK(r, words("mean --n 1000 --d 10 --epsilon 0.5 --delta 1e-6 --trials 400 --seed 3"));
    const QJsonObject& o = r.json;
    QCOMPARE(o.value(QStringLiteral("neighbouring")).toString(), QStringLiteral("replace-one"));
    QCOMPARE(o.value(QStringLiteral("mechanisms")).toArray().size(), 4);
    const double ln = std::log(2e6);
    // Seed 004 eq. (4) as printed: σ² = 2d ln(2/δ)/(ε²n²), a (2ε, δ) guarantee.
    const QJsonObject printed = mechanism(o, "gaussian-printed");
    const double sp = printed.value(QStringLiteral("scale")).toDouble();
    QVERIFY(std::abs(sp * sp / (20 * ln / 0.25e6) - 1) < 1e-12);
    QCOMPARE(printed.value(QStringLiteral("epsilon")).toDouble(), 1.0);
    QVERIFY(!printed.value(QStringLiteral("warnings")).toArray().isEmpty());
    // Laplace b = 2d/(nε) = 0.04; K-norm θ = 2√d/(nε).
    const QJsonObject lap = mechanism(o, "laplace");
    QVERIFY(std::abs(lap.value(QStringLiteral("scale")).toDouble() - 0.04) < 1e-15);
    QCOMPARE(lap.value(QStringLiteral("delta")).toDouble(), 0.0);
    const QJsonObject kn = mechanism(o, "knorm");
    const double theta = 2 * std::sqrt(10.0) / 500;
    QVERIFY(std::abs(kn.value(QStringLiteral("scale")).toDouble() / theta - 1) < 1e-12);
    const QJsonObject expected = kn.value(QStringLiteral("expected")).toObject();
    QVERIFY(std::abs(expected.value(QStringLiteral("noise")).toDouble() / (110 * theta * theta) -
                     1) < 1e-12);
    // Bounds: seed 004 Thm 4 as printed and corrected; Thm 5 at the mechanism's guarantee.
    const QJsonObject b = mechanism(o, "gaussian").value(QStringLiteral("bounds")).toObject();
    QVERIFY(std::abs(b.value(QStringLiteral("upper_printed")).toDouble() -
                     (0.01 + 200 * ln / 0.25e6)) < 1e-15);
    QVERIFY(std::abs(b.value(QStringLiteral("upper")).toDouble() - (0.01 + 800 * ln / 0.25e6)) <
            1e-15);
    QVERIFY(std::abs(b.value(QStringLiteral("lower")).toDouble() - 100 / (2304 * 0.25e6)) < 1e-20);
    // The Monte Carlo agrees with the closed form within 5 standard errors.
    for (const char* name : {"gaussian", "gaussian-printed", "laplace", "knorm"}) {
        const QJsonObject m = mechanism(o, name);
        const double e = m.value(QStringLiteral("expected"))
                             .toObject()
                             .value(QStringLiteral("total"))
                             .toDouble();
        const QJsonObject t = m.value(QStringLiteral("monte_carlo"))
                                  .toObject()
                                  .value(QStringLiteral("total"))
                                  .toObject();
        const double mean = t.value(QStringLiteral("mean")).toDouble();
        const double se = t.value(QStringLiteral("standard_error")).toDouble();
        QVERIFY2(se > 0 && std::abs(mean - e) <= 5 * se,
                 qPrintable(QStringLiteral("%1: %2 ± %3 vs %4")
                                .arg(QLatin1String(name))
                                .arg(mean)
                                .arg(se)
                                .arg(e)));
    }
}

void TestDpxMeanKde::meanUniformPriorAndLowerBound() {
    // δ = 1e-3 ≥ 1/(96n): the Gaussian's lower bound is refused (null with a note); the pure
    // mechanisms' is drawn (they are (ε, 0)-DP).
    RUN_OK(r, words("mean --n 100 --d 5 --epsilon 1 --delta 1e-3 --population uniform-prior "
                    "--trials 100"));
    QCOMPARE(r.json.value(QStringLiteral("population")).toString(),
             QStringLiteral("uniform-prior"));
    QVERIFY(!r.json.contains(QStringLiteral("bias")));
    const QJsonObject g = mechanism(r.json, "gaussian").value(QStringLiteral("bounds")).toObject();
    QVERIFY(g.value(QStringLiteral("lower")).isNull());
    QVERIFY(g.value(QStringLiteral("lower_note")).toString().contains(QStringLiteral("1/(96n)")));
    const QJsonObject k = mechanism(r.json, "knorm").value(QStringLiteral("bounds")).toObject();
    QVERIFY(k.value(QStringLiteral("lower")).isDouble());
    // Expected sampling error under the uniform prior: 2d/(3n).
    const double s = mechanism(r.json, "knorm")
                         .value(QStringLiteral("expected"))
                         .toObject()
                         .value(QStringLiteral("sampling"))
                         .toDouble();
    QVERIFY(std::abs(s - 10.0 / 300) < 1e-15);
}

void TestDpxMeanKde::meanReproducible() {
    const char* cmd =
        "mean --n 50 --d 4 --epsilon 1 --delta 1e-4 --mechanism knorm --trials 50 "
        "--seed 9";
    RUN_OK(a, words(cmd));
    RUN_OK(b, words(cmd));
    QCOMPARE(a.out, b.out);
    RUN_OK(c, words("mean --n 50 --d 4 --epsilon 1 --delta 1e-4 --mechanism knorm --trials 50 "
                    "--seed 10"));
    QVERIFY(a.out != c.out);
    QCOMPARE(a.json.value(QStringLiteral("mechanisms")).toArray().size(), 1);
}

void TestDpxMeanKde::meanErrors_data() {
    QTest::addColumn<QByteArray>("args");
    QTest::addColumn<QByteArray>("needle");
    const QByteArray base = "mean --n 100 --d 10 --epsilon 1 --delta 1e-6 ";
    row("no n", "mean --d 10 --epsilon 1 --delta 1e-6", "--n");
    row("no d", "mean --n 10 --epsilon 1 --delta 1e-6", "--d");
    row("n 0", "mean --n 0 --d 10 --epsilon 1 --delta 1e-6", "--n");
    row("n negative", "mean --n -5 --d 10 --epsilon 1 --delta 1e-6", "--n");
    row("n text", "mean --n many --d 10 --epsilon 1 --delta 1e-6", "--n");
    row("d 0", "mean --n 10 --d 0 --epsilon 1 --delta 1e-6", "--d");
    row("d huge", "mean --n 10 --d 2000000 --epsilon 1 --delta 1e-6", "--d");
    row("no epsilon", "mean --n 10 --d 10 --delta 1e-6", "--epsilon");
    row("epsilon 0", "mean --n 10 --d 10 --epsilon 0 --delta 1e-6", "--epsilon");
    row("epsilon -1", "mean --n 10 --d 10 --epsilon -1 --delta 1e-6", "--epsilon");
    row("epsilon nan", "mean --n 10 --d 10 --epsilon nan --delta 1e-6", "--epsilon");
    row("epsilon inf", "mean --n 10 --d 10 --epsilon inf --delta 1e-6", "--epsilon");
    row("no delta", "mean --n 10 --d 10 --epsilon 1", "--delta");
    row("delta 0", "mean --n 10 --d 10 --epsilon 1 --delta 0", "--delta");
    row("delta 1", "mean --n 10 --d 10 --epsilon 1 --delta 1", "--delta");
    row("delta nan", "mean --n 10 --d 10 --epsilon 1 --delta nan", "--delta");
    row("mechanism", base + "--mechanism gamma", "--mechanism");
    row("calibration", base + "--calibration fast", "--calibration");
    row("calibration for laplace", base + "--mechanism laplace --calibration seed",
        "--calibration");
    row("population", base + "--population normal", "--population");
    row("bias 2", base + "--bias 2", "--bias");
    row("bias nan", base + "--bias nan", "--bias");
    row("bias with prior", base + "--population uniform-prior --bias 0.5", "--bias");
    row("trials 0", base + "--trials 0", "--trials");
    row("trials text", base + "--trials lots", "--trials");
    row("seed negative", base + "--seed -1", "--seed");
    row("unknown option", base + "--bins 3", "--bins");
    row("seed formula refused at large ε",
        "mean --n 100 --d 10 --epsilon 20 --delta 1e-6 --mechanism gaussian --calibration seed",
        "NOT (ε, δ)-DP");
}

void TestDpxMeanKde::meanErrors() {
    QFETCH(QByteArray, args);
    QFETCH(QByteArray, needle);
    const Run r = dpx(QString::fromUtf8(args).split(QLatin1Char(' '), Qt::SkipEmptyParts));
    QVERIFY2(r.exitCode == 2, describe(r).constData());
    QVERIFY2(r.out.isEmpty(), describe(r).constData());
    QVERIFY2(r.err.startsWith("dpx: error: "), describe(r).constData());
    QVERIFY2(r.err.contains(needle), describe(r).constData());
    QCOMPARE(r.err.count('\n'), 1);
}

void TestDpxMeanKde::kdeExampleFig32() {
    RUN_OK(r, words("kde --example fig32 --samples 2 --seed 4"));
    const QJsonObject& o = r.json;
    QCOMPARE(o.value(QStringLiteral("n")).toInt(), 100);
    QCOMPARE(o.value(QStringLiteral("bandwidth")).toDouble(), 0.1);
    // Seed 003 Fig. 3.2: pointwise sd 0.138099.
    QVERIFY(std::abs(o.value(QStringLiteral("noise_sd")).toDouble() - 0.138099) < 5e-7);
    QCOMPARE(o.value(QStringLiteral("x")).toArray().size(), 1000);
    QCOMPARE(o.value(QStringLiteral("true_kde")).toArray().size(), 1000);
    const QJsonArray rel = o.value(QStringLiteral("releases")).toArray();
    QCOMPARE(rel.size(), 2);
    QCOMPARE(rel[0].toArray().size(), 1000);
    QVERIFY(rel[0].toArray() != rel[1].toArray());
    QVERIFY(o.value(QStringLiteral("covariance_error_bound")).toDouble() < 1e-12);
    QCOMPARE(o.value(QStringLiteral("grid")).toObject().value(QStringLiteral("count")).toInt(),
             1000);
    RUN_OK(again, words("kde --example fig32 --samples 2 --seed 4"));
    QCOMPARE(again.out, r.out);
}

void TestDpxMeanKde::kdeFromCsv() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("ages.csv"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("age,name\n0.2,a\n0.4,b\n,c\n0.45,d\n");
    f.close();
    RUN_OK(r, QStringList{
                  QStringLiteral("kde"), QStringLiteral("--data"), path, QStringLiteral("--column"),
                  QStringLiteral("age"), QStringLiteral("--bandwidth"), QStringLiteral("0.1"),
                  QStringLiteral("--epsilon"), QStringLiteral("0.5"), QStringLiteral("--delta"),
                  QStringLiteral("0.01"), QStringLiteral("--grid"), QStringLiteral("0:1:11")});
    QCOMPARE(r.json.value(QStringLiteral("n")).toInt(), 3);
    QCOMPARE(r.json.value(QStringLiteral("source"))
                 .toObject()
                 .value(QStringLiteral("missing_skipped"))
                 .toInt(),
             1);
    // f_D(0.4) = (1/3)(2π·0.01)^(−1/2)(e^{−2} + 1 + e^{−0.125}) and sd = c(δ)Δ/ε.
    const double f04 =
        (std::exp(-2.0) + 1 + std::exp(-0.125)) / (3 * std::sqrt(2 * std::numbers::pi * 0.01));
    QVERIFY(std::abs(r.json.value(QStringLiteral("true_kde")).toArray()[4].toDouble() - f04) <
            1e-12);
    const double sd = std::sqrt(2 * std::log(200.0)) * std::sqrt(2.0) /
                      (3 * std::sqrt(2 * std::numbers::pi) * 0.1) / 0.5;
    QVERIFY(std::abs(r.json.value(QStringLiteral("noise_sd")).toDouble() / sd - 1) < 1e-12);
    // A text column is refused, naming --column.
    const Run t = dpx(QStringList{QStringLiteral("kde"), QStringLiteral("--data"), path,
                                  QStringLiteral("--column"), QStringLiteral("name"),
                                  QStringLiteral("--bandwidth"), QStringLiteral("0.1"),
                                  QStringLiteral("--epsilon"), QStringLiteral("0.5"),
                                  QStringLiteral("--delta"), QStringLiteral("0.01")});
    QCOMPARE(t.exitCode, 2);
    QVERIFY2(t.err.contains("--column"), describe(t).constData());
}

void TestDpxMeanKde::kdeErrors_data() {
    QTest::addColumn<QByteArray>("args");
    QTest::addColumn<QByteArray>("needle");
    const QByteArray ex = "kde --example fig32 ";
    row("no source", "kde --bandwidth 0.1", "--data");
    row("both sources", "kde --example fig32 --data x.csv --column a", "--data");
    row("unknown example", "kde --example fig33", "--example");
    row("column with example", ex + "--column a", "--column");
    row("data without column", "kde --data x.csv --bandwidth 0.1 --epsilon 1 --delta 0.1",
        "--column");
    row("data without bandwidth", "kde --data x.csv --column a --epsilon 1 --delta 0.1",
        "--bandwidth");
    row("missing file",
        "kde --data /nonexistent/x.csv --column a --bandwidth 0.1 --epsilon 1 --delta 0.1",
        "--data");
    row("bandwidth 0", ex + "--bandwidth 0", "--bandwidth");
    row("bandwidth -1", ex + "--bandwidth -1", "--bandwidth");
    row("bandwidth nan", ex + "--bandwidth nan", "--bandwidth");
    row("bandwidth inf", ex + "--bandwidth inf", "--bandwidth");
    row("epsilon 0", ex + "--epsilon 0", "--epsilon");
    row("epsilon nan", ex + "--epsilon nan", "--epsilon");
    row("epsilon inf", ex + "--epsilon inf", "--epsilon");
    row("delta 0", ex + "--delta 0", "--delta");
    row("delta 1", ex + "--delta 1", "--delta");
    row("delta -0.1", ex + "--delta -0.1", "--delta");
    row("grid shape", ex + "--grid 0:1", "--grid");
    row("grid lo = hi", ex + "--grid 1:1:10", "--grid");
    row("grid reversed", ex + "--grid 1:0:10", "--grid");
    row("grid nan", ex + "--grid nan:1:10", "--grid");
    row("grid count 1", ex + "--grid 0:1:1", "--grid");
    row("grid count 2001", ex + "--grid 0:1:2001", "--grid");
    row("grid count text", ex + "--grid 0:1:many", "--grid");
    row("samples 0", ex + "--samples 0", "--samples");
    row("samples 1001", ex + "--samples 1001", "--samples");
    row("seed text", ex + "--seed x", "--seed");
    row("unknown option", ex + "--trials 5", "--trials");
    row("large epsilon refused", ex + "--epsilon 20 --delta 1e-5", "ε");
}

void TestDpxMeanKde::kdeErrors() {
    QFETCH(QByteArray, args);
    QFETCH(QByteArray, needle);
    const Run r = dpx(QString::fromUtf8(args).split(QLatin1Char(' '), Qt::SkipEmptyParts));
    QVERIFY2(r.exitCode == 2, describe(r).constData());
    QVERIFY2(r.out.isEmpty(), describe(r).constData());
    QVERIFY2(r.err.startsWith("dpx: error: "), describe(r).constData());
    QVERIFY2(r.err.contains(needle), describe(r).constData());
    QCOMPARE(r.err.count('\n'), 1);
}

void TestDpxMeanKde::usageMentionsBoth() {
    const Run r = dpx(words("--help"));
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("dpx mean --n N --d D"));
    QVERIFY(r.out.contains("dpx kde (--data FILE"));
}

QTEST_GUILESS_MAIN(TestDpxMeanKde)
#include "tst_dpx_mean_kde.moc"
