// dpx strategy (issue #23, docs/cli.md): the designed strategy's figures against independent
// references — Identity's RMSE on prefixes in closed form (Σ_q |q| / q = (n + 1)/2), the RMSE
// recomputed from the printed objective (‖A‖₁ = 1: √(2f/(ε²q))), the per-query variances
// summing to the total — and the refusals named (a non-product workload in 2-D, a bad --p).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTest>

#include "dpx_process.h"

#include <cmath>

namespace {

using dpxtest::Run;

QJsonObject json(const Run& r) {
    return QJsonDocument::fromJson(r.out).object();
}

QString k(const char* key) {
    return QString::fromUtf8(key);
}

Run dpx(std::initializer_list<const char*> args) {
    QStringList list;
    for (const char* a : args) {
        list << QString::fromUtf8(a);
    }
    return dpxtest::runDpx(list);
}

}  // namespace

class TestDpxStrategy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void prefixOneDimension();
    void kroneckerTwoDimensions();
    void marginalsAndUnions();
    void refusals();
};

void TestDpxStrategy::prefixOneDimension() {
    const Run r = dpx(
        {"strategy", "--domain", "32", "--workload", "prefix", "--epsilon", "0.5", "--per-query"});
    QVERIFY2(r.exitCode == 0, dpxtest::describe(r).constData());
    const QJsonObject o = json(r);
    QCOMPARE(o[k("data_used")].toBool(true), false);
    QCOMPARE(o[k("template")].toString(), QStringLiteral("OPT₀ p-Identity(2)"));
    const double q = o[k("queries")].toDouble(), eps = 0.5;
    QCOMPARE(q, 32.0);
    QVERIFY(std::abs(o[k("sensitivity_l1")].toDouble() - 1) < 1e-12);
    const double rmse = o[k("rmse")].toDouble();
    QVERIFY(std::abs(rmse - std::sqrt(2 * o[k("objective")].toDouble() / (eps * eps * q))) <
            1e-9 * rmse);
    const QJsonArray base = o[k("baselines")].toArray();
    QCOMPARE(base.size(), 3);
    QCOMPARE(base[0].toObject()[k("strategy")].toString(), QStringLiteral("Identity"));
    const double identity = base[0].toObject()[k("rmse")].toDouble();
    QVERIFY(std::abs(identity - std::sqrt(33.0) / eps) < 1e-9 * identity);
    QVERIFY(rmse < identity);
    double sum = 0;
    for (const auto& v : o[k("per_query_variance")].toArray()) {
        sum += v.toDouble();
    }
    QCOMPARE(o[k("per_query_variance")].toArray().size(), 32);
    QVERIFY(std::abs(sum - o[k("total_squared")].toDouble()) < 1e-9 * sum);
}

void TestDpxStrategy::kroneckerTwoDimensions() {
    const Run r = dpx(
        {"strategy", "--domain", "8x8", "--workload", "allrange", "--p", "2", "--restarts", "2"});
    QVERIFY2(r.exitCode == 0, dpxtest::describe(r).constData());
    const QJsonObject o = json(r);
    QCOMPARE(o[k("template")].toString(), QStringLiteral("OPT⊗ p-Identity(2) ⊗ p-Identity(2)"));
    QCOMPARE(o[k("queries")].toDouble(), 36.0 * 36.0);
    QCOMPARE(o[k("restarts")].toDouble(), 2.0);
    const double rmse = o[k("rmse")].toDouble();
    // Identity on all boxes of 8 × 8: Σ_q |q| = (Σ 1-D range lengths)² = 120², q = 36².
    const double identity = o[k("baselines")].toArray()[0].toObject()[k("rmse")].toDouble();
    QVERIFY(std::abs(identity - std::sqrt(2.0 * 120 * 120 / (36.0 * 36))) < 1e-9 * identity);
    // On 8 cells the optimum of p-Identity is Θ = 0, Identity itself: never worse than it.
    QVERIFY(rmse <= identity * (1 + 1e-9));
}

void TestDpxStrategy::marginalsAndUnions() {
    // All 2-way marginals of 2 × 3 × 2 (OPT_M, chosen automatically): the measured marginals
    // with weights summing to 1, every restart's objective, the RMSE from the objective.
    const Run r = dpx({"strategy", "--domain", "2x3x2", "--workload", "marginals:2", "--epsilon",
                       "0.5", "--restarts", "4"});
    QVERIFY2(r.exitCode == 0, dpxtest::describe(r).constData());
    const QJsonObject o = json(r);
    QVERIFY(o[k("template")].toString().startsWith(QStringLiteral("OPT_M")));
    QCOMPARE(o[k("restart_objectives")].toArray().size(), 4);
    double sum = 0;
    for (const QJsonValue& m : o[k("marginals")].toArray()) {
        sum += m.toObject()[k("weight")].toDouble();
        QVERIFY(!m.toObject()[k("attributes")].toArray().isEmpty());
    }
    QVERIFY(std::abs(sum - 1) < 1e-12);
    const double q = o[k("queries")].toDouble();
    QCOMPARE(q, 6.0 + 4.0 + 6.0);
    QVERIFY(std::abs(o[k("rmse")].toDouble() -
                     std::sqrt(2 * o[k("objective")].toDouble() / (0.25 * q))) < 1e-9);
    // Random boxes in 2-D: OPT⊗ over a union of Kronecker products, with its rounds.
    const Run u = dpx({"strategy", "--domain", "8x8", "--workload", "range:5", "--p", "1"});
    QVERIFY2(u.exitCode == 0, dpxtest::describe(u).constData());
    const QJsonObject uo = json(u);
    QVERIFY(uo[k("template")].toString().contains(QStringLiteral("union of Kronecker")));
    QVERIFY(uo[k("rounds")].toDouble() >= 1);
}

void TestDpxStrategy::refusals() {
    const Run r =
        dpx({"strategy", "--domain", "8x8", "--workload", "prefix", "--template", "opt+"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--template"));
    const Run m =
        dpx({"strategy", "--domain", "8x8", "--workload", "prefix", "--template", "marginals"});
    QCOMPARE(m.exitCode, 2);
    QVERIFY(m.err.contains("marginal workloads"));
    const Run p = dpx({"strategy", "--domain", "8", "--workload", "prefix", "--p", "x"});
    QCOMPARE(p.exitCode, 2);
    QVERIFY(p.err.contains("--p"));
    const Run big = dpx({"strategy", "--domain", "8", "--workload", "prefix", "--p", "9"});
    QCOMPARE(big.exitCode, 2);
    QVERIFY(big.err.contains("p must be"));
    const Run none = dpx({"strategy", "--workload", "prefix"});
    QCOMPARE(none.exitCode, 2);
    QVERIFY(none.err.contains("--domain"));
}

QTEST_GUILESS_MAIN(TestDpxStrategy)
#include "tst_dpx_strategy.moc"
