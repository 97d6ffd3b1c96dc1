// dpx sparse, dpx rdp and dpx select (seed 003, issue #9) against their contract: JSON fields,
// values recomputed here from the formulas (thresholded-Laplace cell error, the seed's bound,
// the RDP noise-free rule, softmax of the utilities), Monte Carlo means within 4 standard errors
// of the exact values, thread-count independent output, and every bad option exiting 2 with a
// message naming it.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <QTest>

#include "dpx_process.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

using dpxtest::describe;
using dpxtest::Run;

Run dpx(const QStringList& args) {
    return dpxtest::runDpx(args);
}

QStringList split(const char* s) {
    return dpxtest::words(s);
}

std::vector<double> numbers(const QJsonValue& v) {
    std::vector<double> out;
    for (const auto& x : v.toArray()) {
        out.push_back(x.toDouble(std::nan("")));
    }
    return out;
}

QByteArray near(double a, double e, double tol) {
    return "got " + QByteArray::number(a, 'g', 17) + ", expected " +
           QByteArray::number(e, 'g', 17) + " ± " + QByteArray::number(tol, 'g', 3);
}

// E|out − h| for out = (h + L)·1[h + L > τ], L ~ Laplace(b), written out from the derivation in
// docs/mechanisms/sparse-histogram.md.
double cellL1(double h, double b, double tau) {
    const double t = tau - h;
    if (t >= 0) {
        const double tail = 0.5 * std::exp(-t / b);
        return tail * (t + b) + h * (1 - tail);
    }
    const double tail = 0.5 * std::exp(t / b);
    return b - tail * (b - t) + h * tail;
}

}  // namespace

#define RUN_OK(r, args)                                                              \
    const Run r = dpx(args);                                                         \
    QVERIFY2(r.exitCode == 0, describe(r).constData());                              \
    QVERIFY2(r.jsonOk, ("stdout is not a JSON object\n" + describe(r)).constData()); \
    QVERIFY2(r.err.isEmpty(), describe(r).constData())

#define RUN_OK_TEXT(r, args)                            \
    const Run r = dpx(args);                            \
    QVERIFY2(r.exitCode == 0, describe(r).constData()); \
    QVERIFY2(r.err.isEmpty(), describe(r).constData())

#define VERIFY_NEAR(a, e, tol)                                           \
    do {                                                                 \
        const double a_ = (a), e_ = (e), t_ = (tol);                     \
        QVERIFY2(std::abs(a_ - e_) <= t_, near(a_, e_, t_).constData()); \
    } while (false)

class TestDpxSparseRdpSelect : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void helpListsCommands();
    void sparseCounts();
    void sparseExamplesHallShapes_data();
    void sparseExamplesHallShapes();
    void sparseThreadsAndPerTrial();
    void rdpRuleAndErrors();
    void rdpWeakerLabel();
    void selectMode();
    void selectQuantileAddRemove();
    void selectPathVerified();
    void rejected_data();
    void rejected();
};

void TestDpxSparseRdpSelect::helpListsCommands() {
    RUN_OK_TEXT(r, split("--help"));
    for (const char* word : {"dpx sparse", "dpx rdp", "dpx select", "WEAKER"}) {
        QVERIFY2(r.out.contains(word), describe(r).constData());
    }
    RUN_OK_TEXT(s, split("sparse --help"));
    QVERIFY(s.out.contains("dpx sparse"));
}

void TestDpxSparseRdpSelect::sparseCounts() {
    RUN_OK(r, split("sparse --counts 0,0,5,0,1,30,0,0 --epsilon 0.5 --threshold 3 --trials 0"));
    const QJsonObject& o = r.json;
    QCOMPARE(o[QStringLiteral("noise_scale")].toDouble(), 4.0);
    QCOMPARE(o[QStringLiteral("threshold")].toDouble(), 3.0);
    QCOMPARE(o[QStringLiteral("threshold_default")].toBool(), false);
    QCOMPARE(o[QStringLiteral("cells")].toInt(), 8);
    QCOMPARE(o[QStringLiteral("occupied")].toInt(), 3);
    QCOMPARE(o[QStringLiteral("records")].toInt(), 36);
    QVERIFY(!o.contains(QStringLiteral("monte_carlo")));
    QVERIFY(!o.contains(QStringLiteral("risk_bound")));  // only with the default τ
    double t = 0, c = 0;
    for (double h : {0, 0, 5, 0, 1, 30, 0, 0}) {
        t += cellL1(h, 4, 3);
        c += cellL1(h, 4, 0);
    }
    const QJsonObject e = o[QStringLiteral("expected_l1")].toObject();
    VERIFY_NEAR(e[QStringLiteral("thresholded")].toDouble(), t, 1e-12 * t);
    VERIFY_NEAR(e[QStringLiteral("clamped")].toDouble(), c, 1e-12 * c);
    QCOMPARE(e[QStringLiteral("plain_laplace")].toDouble(), 32.0);
    // The general bound (p − q)·½e^{−τ/b}(τ + b) + q(τ + b).
    VERIFY_NEAR(o[QStringLiteral("bound_at_threshold")].toDouble(),
                5 * 0.5 * std::exp(-0.75) * 7 + 3 * 7, 1e-12);
    QVERIFY(o[QStringLiteral("guarantee")].toString().contains(QStringLiteral("replace-one")));
}

void TestDpxSparseRdpSelect::sparseExamplesHallShapes_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<int>("cells");
    QTest::addColumn<int>("occupied");
    QTest::addColumn<int>("records");
    QTest::addColumn<QString>("trials");
    QTest::newRow("edwards-like (Fig. 2.3)") << "edwards-like" << 64 << 22 << 70 << "15000";
    QTest::newRow("nltcs-like (Fig. 2.4)") << "nltcs-like" << 65536 << 3152 << 21574 << "1000";
}

void TestDpxSparseRdpSelect::sparseExamplesHallShapes() {
    QFETCH(QString, example);
    QFETCH(int, cells);
    QFETCH(int, occupied);
    QFETCH(int, records);
    QFETCH(QString, trials);
    RUN_OK(r, (QStringList{QStringLiteral("sparse"), QStringLiteral("--example"), example,
                           QStringLiteral("--epsilon"), QStringLiteral("1"),
                           QStringLiteral("--trials"), trials, QStringLiteral("--seed"),
                           QStringLiteral("3")}));
    const QJsonObject& o = r.json;
    QCOMPARE(o[QStringLiteral("cells")].toInt(), cells);
    QCOMPARE(o[QStringLiteral("occupied")].toInt(), occupied);
    QCOMPARE(o[QStringLiteral("records")].toInt(), records);
    VERIFY_NEAR(o[QStringLiteral("threshold")].toDouble(), 2 * std::log(double(cells)), 1e-12);
    // Seed 003 Prop. 2.4.3: ((2q+1)/ε)(ln p + 1).
    VERIFY_NEAR(o[QStringLiteral("risk_bound")].toDouble(),
                (2.0 * occupied + 1) * (std::log(double(cells)) + 1), 1e-9);
    const QJsonObject e = o[QStringLiteral("expected_l1")].toObject();
    const QJsonObject mc = o[QStringLiteral("monte_carlo")].toObject();
    QCOMPARE(mc[QStringLiteral("trials")].toInt(), trials.toInt());
    for (const char* m : {"thresholded", "clamped"}) {
        const QJsonObject s = mc[QLatin1String(m)].toObject();
        const double se = s[QStringLiteral("std_error")].toDouble();
        QVERIFY(se > 0);
        VERIFY_NEAR(s[QStringLiteral("mean")].toDouble(), e[QLatin1String(m)].toDouble(), 4 * se);
        QVERIFY(s[QStringLiteral("p05")].toDouble() <= s[QStringLiteral("median")].toDouble());
        QVERIFY(s[QStringLiteral("median")].toDouble() <= s[QStringLiteral("p95")].toDouble());
    }
    // The seed's comparison: thresholding beats clamped Laplace, by far on the NLTCS-like table.
    const double t = e[QStringLiteral("thresholded")].toDouble();
    const double c = e[QStringLiteral("clamped")].toDouble();
    QVERIFY(t < c);
    if (cells == 65536) {
        QVERIFY(t < 0.2 * c);
    }
    QVERIFY(t < o[QStringLiteral("risk_bound")].toDouble());
}

void TestDpxSparseRdpSelect::sparseThreadsAndPerTrial() {
    const char* base =
        "sparse --example edwards-like --epsilon 0.7 --trials 200 --seed 9 "
        "--per-trial yes --threads ";
    RUN_OK(a, split((QByteArray(base) + "1").constData()));
    RUN_OK(b, split((QByteArray(base) + "2").constData()));
    QCOMPARE(a.out, b.out);
    const QJsonObject mc = a.json[QStringLiteral("monte_carlo")].toObject();
    const auto t = numbers(mc[QStringLiteral("l1_thresholded")]);
    const auto c = numbers(mc[QStringLiteral("l1_clamped")]);
    QCOMPARE(t.size(), std::size_t{200});
    QCOMPARE(c.size(), std::size_t{200});
    double sum = 0;
    for (double x : t) {
        QVERIFY(x >= 0);
        sum += x;
    }
    VERIFY_NEAR(mc[QStringLiteral("thresholded")].toObject()[QStringLiteral("mean")].toDouble(),
                sum / 200, 1e-9);
    RUN_OK(d, split("sparse --example edwards-like --epsilon 0.7 --trials 200 --seed 9"));
    QVERIFY(!d.json[QStringLiteral("monte_carlo")].toObject().contains(
        QStringLiteral("l1_thresholded")));
}

void TestDpxSparseRdpSelect::rdpRuleAndErrors() {
    // k = 10, n = 1000, γ = 0.1: γn/(2k) = 5, noise-free iff c + 1 ≤ 5.
    RUN_OK(r, split("rdp --counts 0,4,5,100,0,0,3,888,0,0 --epsilon 0.5 --gamma 0.1 --trials "
                    "4000 --seed 2"));
    const QJsonObject& o = r.json;
    const std::vector<double> counts = {0, 4, 5, 100, 0, 0, 3, 888, 0, 0};
    const QJsonArray free = o[QStringLiteral("noise_free")].toArray();
    QCOMPARE(free.size(), qsizetype(10));
    int m = 0;
    for (int j = 0; j < 10; ++j) {
        const bool want = counts[std::size_t(j)] + 1 <= 5;
        QCOMPARE(free[j].toBool(), want);
        m += want ? 0 : 1;
    }
    QCOMPARE(o[QStringLiteral("noise_free_cells")].toInt(), 10 - m);
    const double b = 2 / (1000 * 0.5);
    VERIFY_NEAR(o[QStringLiteral("noise_scale")].toDouble(), b, 1e-15);
    const QJsonObject ex = o[QStringLiteral("expected")].toObject();
    VERIFY_NEAR(ex[QStringLiteral("rdp")].toObject()[QStringLiteral("l1")].toDouble(), m * b,
                1e-15);
    VERIFY_NEAR(ex[QStringLiteral("dp")].toObject()[QStringLiteral("l1")].toDouble(), 10 * b,
                1e-15);
    VERIFY_NEAR(ex[QStringLiteral("rdp")].toObject()[QStringLiteral("squared_l2")].toDouble(),
                2 * m * b * b, 1e-18);
    const QJsonObject mc = o[QStringLiteral("monte_carlo")].toObject();
    for (const char* which : {"rdp", "dp"}) {
        const QJsonObject l1 = mc[QLatin1String(which)].toObject()[QStringLiteral("l1")].toObject();
        VERIFY_NEAR(l1[QStringLiteral("mean")].toDouble(),
                    ex[QLatin1String(which)].toObject()[QStringLiteral("l1")].toDouble(),
                    4 * l1[QStringLiteral("std_error")].toDouble());
    }
}

void TestDpxSparseRdpSelect::rdpWeakerLabel() {
    RUN_OK(r, split("rdp --counts 3,4,5 --epsilon 1 --gamma 0.2 --trials 0"));
    QCOMPARE(r.json[QStringLiteral("weaker_than_dp")].toBool(), true);
    const QString g = r.json[QStringLiteral("guarantee")].toString();
    QVERIFY(g.contains(QStringLiteral("WEAKER guarantee than ε-differential privacy")));
    QVERIFY(g.contains(QStringLiteral("Not differential privacy")));
    QVERIFY(r.json[QStringLiteral("warnings")].toArray().size() >= 1);
    QVERIFY(!r.json.contains(QStringLiteral("monte_carlo")));
    // Per-trial errors for the distribution plot of Fig. 5.1(b); the mean is their average.
    RUN_OK(p, split("rdp --counts 300,0,0,0,0,0,0,0,0,0 --epsilon 1 --gamma 0.5 --trials 300 "
                    "--per-trial yes"));
    const QJsonObject mc = p.json[QStringLiteral("monte_carlo")].toObject();
    for (const char* which : {"rdp", "dp"}) {
        const QJsonObject w = mc[QLatin1String(which)].toObject();
        const auto l1 = numbers(w[QStringLiteral("l1_per_trial")]);
        QCOMPARE(l1.size(), std::size_t{300});
        QCOMPARE(numbers(w[QStringLiteral("l2_per_trial")]).size(), std::size_t{300});
        double sum = 0;
        for (double x : l1) {
            sum += x;
        }
        VERIFY_NEAR(w[QStringLiteral("l1")].toObject()[QStringLiteral("mean")].toDouble(),
                    sum / 300, 1e-12);
    }
}

void TestDpxSparseRdpSelect::selectMode() {
    RUN_OK(r, split("select --counts 5,2,0,5 --epsilon 0.7 --neighbouring replace --path no"));
    const QJsonObject& o = r.json;
    QCOMPARE(o[QStringLiteral("sensitivity")].toDouble(), 1.0);
    QCOMPARE(o[QStringLiteral("monotone")].toBool(), false);
    QCOMPARE(o[QStringLiteral("factor")].toDouble(), 0.35);
    QVERIFY(!o.contains(QStringLiteral("path")));
    const auto p = numbers(o[QStringLiteral("exponential")]);
    const std::vector<double> u = {5, 2, 0, 5};
    double z = 0;
    for (double x : u) {
        z += std::exp(0.35 * x);
    }
    for (std::size_t j = 0; j < u.size(); ++j) {
        VERIFY_NEAR(p[j], std::exp(0.35 * u[j]) / z, 1e-15);
    }
    for (const char* k : {"noisy_max_laplace", "noisy_max_exponential"}) {
        const auto q = numbers(o[QLatin1String(k)]);
        QCOMPARE(q.size(), u.size());
        double s = 0;
        for (double x : q) {
            s += x;
        }
        VERIFY_NEAR(s, 1.0, 1e-10);
        VERIFY_NEAR(q[0], q[3], 1e-12);
    }
    // Add/remove: monotone, c = ε; with --monotone no, ε/2.
    RUN_OK(a, split("select --counts 5,2,0,5 --epsilon 0.7 --path no"));
    QCOMPARE(a.json[QStringLiteral("factor")].toDouble(), 0.7);
    QCOMPARE(a.json[QStringLiteral("monotone")].toBool(), true);
    RUN_OK(b, split("select --counts 5,2,0,5 --epsilon 0.7 --path no --monotone no"));
    QCOMPARE(b.json[QStringLiteral("factor")].toDouble(), 0.35);
}

void TestDpxSparseRdpSelect::selectQuantileAddRemove() {
    // h = [2, 3, 5], q = 0.9: t = 9, utilities −7, −4, 0; Δu = max(q, 1 − q) = 0.9.
    RUN_OK(r, split("select --counts 2,3,5 --epsilon 1 --task quantile --quantile 0.9"));
    QCOMPARE(numbers(r.json[QStringLiteral("utility")]), (std::vector<double>{-7, -4, 0}));
    VERIFY_NEAR(r.json[QStringLiteral("sensitivity")].toDouble(), 0.9, 1e-15);
    VERIFY_NEAR(r.json[QStringLiteral("factor")].toDouble(), 1 / 1.8, 1e-15);
    QCOMPARE(r.json[QStringLiteral("best")].toArray().at(0).toInt(), 2);
}

void TestDpxSparseRdpSelect::selectPathVerified() {
    RUN_OK(r, split("select --counts 3,12,1,7,0 --epsilon 0.8 --neighbouring replace"));
    const QJsonObject p = r.json[QStringLiteral("path")].toObject();
    QCOMPARE(p[QStringLiteral("from")].toInt(), 1);
    QCOMPARE(p[QStringLiteral("to")].toInt(), 3);
    QCOMPARE(p[QStringLiteral("steps")].toInt(), 4);
    QCOMPARE(numbers(p[QStringLiteral("from_counts")]), (std::vector<double>{12, 11, 10, 9, 8}));
    QCOMPARE(p[QStringLiteral("verified")].toBool(), true);
    const QJsonArray rows = p[QStringLiteral("matrix")].toArray();
    QCOMPARE(rows.size(), qsizetype(5));
    double eps = 0;
    for (const auto& row : rows) {
        const auto v = numbers(row);
        QCOMPARE(v.size(), std::size_t{5});
        for (std::size_t t = 1; t < v.size(); ++t) {
            eps = std::max(eps, std::abs(std::log(v[t] / v[t - 1])));
        }
    }
    VERIFY_NEAR(p[QStringLiteral("achieved_epsilon")].toDouble(), eps, 1e-9);
    QVERIFY(eps <= 0.8);
    RUN_OK(s, split("select --counts 3,12,1,7,0 --epsilon 0.8 --path-steps 2"));
    QCOMPARE(s.json[QStringLiteral("path")].toObject()[QStringLiteral("steps")].toInt(), 2);
}

void TestDpxSparseRdpSelect::rejected_data() {
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("needle");
    const std::string sp = "sparse --counts 1,0,2 ";
    const std::string rd = "rdp --counts 1,0,2 --epsilon 1 ";
    const std::string se = "select --counts 1,0,2 ";
    struct Row {
        std::string args;
        const char* needle;
    };
    const std::vector<Row> rows = {
        {sp + "--epsilon 0", "--epsilon"},
        {sp + "--epsilon -1", "--epsilon"},
        {sp + "--epsilon nan", "--epsilon"},
        {sp + "--epsilon inf", "--epsilon"},
        {sp + "--epsilon 1x", "--epsilon"},
        {std::string("sparse --counts 1,0,2"), "--epsilon"},
        {sp + "--epsilon 1 --threshold -1", "--threshold"},
        {sp + "--epsilon 1 --threshold nan", "--threshold"},
        {sp + "--epsilon 1 --threshold inf", "--threshold"},
        {sp + "--epsilon 1 --trials 1", "--trials"},
        {sp + "--epsilon 1 --trials -5", "--trials"},
        {sp + "--epsilon 1 --trials 2.5", "--trials"},
        {sp + "--epsilon 1 --trials 20000000", "--trials"},
        {sp + "--epsilon 1 --seed -1", "--seed"},
        {sp + "--epsilon 1 --threads 5000", "--threads"},
        {sp + "--epsilon 1 --per-trial maybe", "--per-trial"},
        {sp + "--epsilon 1 --trials 0 --seed 3", "--seed"},
        {sp + "--epsilon 1 --bogus 1", "--bogus"},
        {std::string("sparse --counts 1,-1 --epsilon 1"), "count"},
        {std::string("sparse --counts 0,0 --epsilon 1"), "total 0"},
        {std::string("sparse --example nope --epsilon 1"), "--example"},
        {std::string("sparse --example edwards-like --counts 1 --epsilon 1"), "--example"},
        {std::string("sparse --epsilon 1"), "--counts"},
        {rd + "--gamma 0", "--gamma"},
        {rd + "--gamma 1", "--gamma"},
        {rd + "--gamma -0.2", "--gamma"},
        {rd + "--gamma nan", "--gamma"},
        {rd + "--gamma inf", "--gamma"},
        {rd, "--gamma"},
        {std::string("rdp --counts 1,0,2 --epsilon 0 --gamma 0.1"), "--epsilon"},
        {std::string("rdp --counts 1,0,2 --epsilon inf --gamma 0.1"), "--epsilon"},
        {rd + "--gamma 0.1 --trials 1", "--trials"},
        {rd + "--gamma 0.1 --trials 0 --threads 2", "--threads"},
        {rd + "--gamma 0.1 --per-trial 1", "--per-trial"},
        {rd + "--gamma 0.1 --trials 0 --per-trial yes", "--per-trial"},
        {se + "--epsilon 0", "--epsilon"},
        {se + "--epsilon nan", "--epsilon"},
        {se, "--epsilon"},
        {se + "--epsilon 1 --task median", "--task"},
        {se + "--epsilon 1 --task quantile --quantile 1.5", "--quantile"},
        {se + "--epsilon 1 --task quantile --quantile -0.1", "--quantile"},
        {se + "--epsilon 1 --task quantile --quantile nan", "--quantile"},
        {se + "--epsilon 1 --quantile 0.5", "--quantile"},
        {se + "--epsilon 1 --neighbouring swap", "--neighbouring"},
        {se + "--epsilon 1 --monotone maybe", "--monotone"},
        {se + "--epsilon 1 --path maybe", "--path"},
        {se + "--epsilon 1 --path-steps 0", "--path-steps"},
        {se + "--epsilon 1 --path no --path-steps 3", "--path-steps"},
        {se + "--epsilon 1 --path-steps 20000", "--path-steps"},
        {se + "--epsilon 1 --neighbouring replace --path-steps 5", "--path-steps"},
    };
    for (const auto& r : rows) {
        QTest::newRow(r.args.c_str())
            << QString::fromStdString(r.args) << QString::fromUtf8(r.needle);
    }
}

void TestDpxSparseRdpSelect::rejected() {
    QFETCH(QString, args);
    QFETCH(QString, needle);
    const Run r = dpx(args.split(QLatin1Char(' '), Qt::SkipEmptyParts));
    QVERIFY2(r.exitCode == 2, describe(r).constData());
    QVERIFY2(r.out.isEmpty(), describe(r).constData());
    QVERIFY2(r.err.startsWith("dpx: error: "), describe(r).constData());
    QVERIFY2(QString::fromUtf8(r.err).contains(needle), describe(r).constData());
}

QTEST_GUILESS_MAIN(TestDpxSparseRdpSelect)
#include "tst_dpx_sparse_rdp_select.moc"
