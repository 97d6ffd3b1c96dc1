// LP-designed count mechanisms (core/count_lp.h) against reference values of seed 001 ch. 6 and
// closed forms. Optima are not unique, so tests check objective values, exact ε-DP, column sums and
// the requested properties, never specific matrices.
#include <QTest>
#include <cmath>

#include "core/count_lp.h"
#include "core/count_mechanism.h"

using namespace dpx;

namespace {

// Checks every guarantee the designer promises for an optimal result.
void verifyDesign(const CountLpSpec& spec, const CountLpResult& r) {
    QCOMPARE(r.status, LpStatus::Optimal);
    QVERIFY(r.mechanism.has_value());
    const CountMechanism& m = *r.mechanism;
    QVERIFY2(m.achievedEpsilon() <= spec.epsilon, "the presented matrix must be ε-DP exactly");
    for (std::size_t j = 0; j < m.size(); ++j) {
        QVERIFY(std::abs(m.columnSum(j) - 1) <= 1e-12);
        for (std::size_t i = 0; i < m.size(); ++i) {
            QVERIFY(m.at(i, j) >= 0);
        }
    }
    const CountProperties props = m.properties();
    for (CountProperty p : spec.constraints) {
        QVERIFY2(props.get(p).holds, props.get(p).reason.c_str());
    }
    QVERIFY(r.repairCost >= -1e-12);
}

}  // namespace

class TestCountLp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Seed 001 / digest: "LP L0 costs, α = 0.76, WH only, n = 2..6: 0.8947, 0.8876, 0.8853, 0.8763,
    // 0.8673; 0.8636 for n ≥ 7 (= GM)". Four decimals given: tolerance 5e-5.
    void weakHonestyReference_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("l0");
        QTest::newRow("n=2") << 2 << 0.8947;
        QTest::newRow("n=3") << 3 << 0.8876;
        QTest::newRow("n=4") << 4 << 0.8853;
        QTest::newRow("n=5") << 5 << 0.8763;
        QTest::newRow("n=6") << 6 << 0.8673;
        QTest::newRow("n=7") << 7 << 0.8636;
        QTest::newRow("n=9") << 9 << 0.8636;
    }
    void weakHonestyReference() {
        QFETCH(int, n);
        QFETCH(double, l0);
        CountLpSpec s;
        s.n = n;
        s.epsilon = -std::log(0.76);
        s.constraints = {CountProperty::WeaklyHonest};
        const auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        verifyDesign(s, *r);
        QVERIFY(r->normalised.has_value());
        QVERIFY2(std::abs(*r->normalised - l0) <= 5e-5,
                 qPrintable(QString::number(*r->normalised)));
    }

    // Without constraints GM is the unique L0 optimum: L0 = 2α/(1+α) (digest, closed form).
    // With fairness only, EM is optimal among fair mechanisms: L0 = L0(EM) (seed 001 §6).
    void unconstrainedIsGeometricFairIsExplicitFair_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("alpha");
        QTest::newRow("n=2 a=0.9") << 2 << 0.9;
        QTest::newRow("n=5 a=0.5") << 5 << 0.5;
        QTest::newRow("n=8 a=0.3") << 8 << 0.3;
        QTest::newRow("n=11 a=0.76") << 11 << 0.76;
    }
    void unconstrainedIsGeometricFairIsExplicitFair() {
        QFETCH(int, n);
        QFETCH(double, alpha);
        CountLpSpec s;
        s.n = n;
        s.epsilon = -std::log(alpha);
        const auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        verifyDesign(s, *r);
        QVERIFY(std::abs(*r->normalised - 2 * alpha / (1 + alpha)) <= 1e-9);
        s.constraints = {CountProperty::Fair};
        const auto rf = designCountMechanism(s);
        QVERIFY(rf.hasValue());
        verifyDesign(s, *rf);
        const auto em = explicitFair(n, s.epsilon);
        QVERIFY(em.hasValue());
        QVERIFY(std::abs(*rf->normalised - em->l0()) <= 1e-9);
    }

    // Seed 003: for n = 1 the minimax absolute-loss risk is 1/(1 + e^ε) (randomized response).
    void minimaxSingleRecord() {
        for (double eps : {0.1, 0.7, 2.0}) {
            CountLpSpec s;
            s.n = 1;
            s.epsilon = eps;
            s.cost = LpCostKind::L1;
            s.aggregate = LpAggregate::Max;
            const auto r = designCountMechanism(s);
            QVERIFY(r.hasValue());
            verifyDesign(s, *r);
            QVERIFY(std::abs(r->objective - 1 / (1 + std::exp(eps))) <= 1e-9);
        }
    }

    // Seed 001 §6.3 pathology: L2 with n = 2, α = 0.62 "always output 1": objective
    // (1 + 0 + 1)/3 = 2/3 (uniform weights), rows 0 and 2 are gaps, row 1 a spike.
    void pathologiesAreLabelled() {
        CountLpSpec s;
        s.n = 2;
        s.epsilon = -std::log(0.62);
        s.cost = LpCostKind::L2;
        const auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        verifyDesign(s, *r);
        QVERIFY(std::abs(r->objective - 2.0 / 3.0) <= 1e-9);
        QCOMPARE(r->gaps, (std::vector<std::size_t>{0, 2}));
        QCOMPARE(r->spikes, (std::vector<std::size_t>{1}));
    }

    // Every property constraint is honoured together with the others (all seven: EM satisfies
    // them all, so the LP is feasible and its optimum can be no better than EM's L0).
    void allPropertiesTogether() {
        CountLpSpec s;
        s.n = 6;
        s.epsilon = 0.4;
        s.constraints = {CountProperty::RowHonest,    CountProperty::RowMonotone,
                         CountProperty::ColumnHonest, CountProperty::ColumnMonotone,
                         CountProperty::Fair,         CountProperty::WeaklyHonest,
                         CountProperty::Symmetric};
        const auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        verifyDesign(s, *r);
        const auto em = explicitFair(6, 0.4);
        QVERIFY(std::abs(*r->normalised - em->l0()) <= 1e-9);
    }

    // Binomial weights: C(n, j) p^j (1−p)^(n−j) (closed form), and the weighted objective is the
    // weighted sum of column losses of the returned matrix.
    void binomialWeightsAndObjective() {
        const auto w = binomialWeights(4, 0.3);
        QVERIFY(w.hasValue());
        const double expect[] = {0.2401, 0.4116, 0.2646, 0.0756, 0.0081};
        for (int j = 0; j < 5; ++j) {
            QVERIFY(std::abs((*w)[static_cast<std::size_t>(j)] - expect[j]) <= 1e-12);
        }
        CountLpSpec s;
        s.n = 4;
        s.epsilon = 1;
        s.cost = LpCostKind::L1;
        s.weights = *w;
        const auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        verifyDesign(s, *r);
        const auto loss = r->mechanism->expectedLoss(*w, CountLoss::L1);
        QVERIFY(loss.hasValue());
        QVERIFY(std::abs(*loss - r->objective) <= 1e-12);
    }

    void rejectsInvalidSpecs() {
        CountLpSpec s;
        s.n = 0;
        QVERIFY(!designCountMechanism(s).hasValue());
        s.n = 3;
        for (double e : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
            s.epsilon = e;
            const auto r = designCountMechanism(s);
            QVERIFY(!r.hasValue());
            QVERIFY(!r.error().message.empty());
        }
        s.epsilon = 1;
        s.weights = {0.5, 0.5, 0.5, 0.5};
        QVERIFY(!designCountMechanism(s).hasValue());
        s.weights = {};
        s.cost = LpCostKind::Custom;
        s.customCost = {1, 2, 3};
        QVERIFY(!designCountMechanism(s).hasValue());
        s.cost = LpCostKind::L0d;
        s.d = 7;
        QVERIFY(!designCountMechanism(s).hasValue());
        QVERIFY(!binomialWeights(3, 1.5).hasValue());
    }
};

QTEST_MAIN(TestCountLp)
#include "tst_count_lp.moc"
