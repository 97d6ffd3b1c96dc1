// LP-designed count mechanisms (core/count/count_lp.h) against reference values of seed 001 ch. 6
// and closed forms. Optima are not unique, so tests check objective values, exact ε-DP, column sums
// and the requested properties, never specific matrices.
#include <QTest>
#include <cmath>
#include <stop_token>
#include <vector>

#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"

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
        s.cost = LpCostKind::L0;
        for (double floor : {-0.1, 1.5, std::nan("")}) {
            s.minDiagonal = floor;
            QVERIFY(!designCountMechanism(s).hasValue());
        }
    }

    // The symmetry reduction (one variable per cell and its mirror) must reach the optimum of the
    // full LP: the second method here is the full LP itself. Covers Σ and max aggregates, every
    // cost kind, a symmetric prior (Binomial(n, ½)) and constraint sets with S and F, whose rows
    // partly collapse under the reduction.
    void symmetryReductionKeepsTheOptimum_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("epsilon");
        QTest::addColumn<int>("cost");
        QTest::addColumn<bool>("minimax");
        QTest::addColumn<QString>("constraints");
        QTest::addColumn<double>("binomialP");  // < 0: uniform weights
        QTest::newRow("l0 wh+cm n=12")
            << 12 << 0.7 << int(LpCostKind::L0) << false << "wh,cm" << -1.0;
        QTest::newRow("l0 wh+cm n=13")
            << 13 << 0.3 << int(LpCostKind::L0) << false << "wh,cm" << -1.0;
        QTest::newRow("l1 none n=9") << 9 << 1.1 << int(LpCostKind::L1) << false << "" << -1.0;
        QTest::newRow("l2 rh+ch n=10")
            << 10 << 0.5 << int(LpCostKind::L2) << false << "rh,ch" << -1.0;
        QTest::newRow("minimax l1 n=8") << 8 << 0.9 << int(LpCostKind::L1) << true << "rm" << -1.0;
        QTest::newRow("l0d f+s n=11")
            << 11 << 0.6 << int(LpCostKind::L0d) << false << "f,s" << -1.0;
        QTest::newRow("binomial 1/2 n=10")
            << 10 << 0.8 << int(LpCostKind::L1) << false << "cm" << 0.5;
        QTest::newRow("custom all n=7")
            << 7 << 0.4 << int(LpCostKind::Custom) << false << "rh,rm,ch,cm,f,wh,s" << -1.0;
    }
    void symmetryReductionKeepsTheOptimum() {
        QFETCH(int, n);
        QFETCH(double, epsilon);
        QFETCH(int, cost);
        QFETCH(bool, minimax);
        QFETCH(QString, constraints);
        QFETCH(double, binomialP);
        CountLpSpec s;
        s.n = n;
        s.epsilon = epsilon;
        s.cost = static_cast<LpCostKind>(cost);
        s.d = 2;
        s.aggregate = minimax ? LpAggregate::Max : LpAggregate::Sum;
        const auto m = static_cast<std::size_t>(n) + 1;
        if (s.cost ==
            LpCostKind::Custom) {  // symmetric: c(i,j) = c(n−i,n−j), not a function of i−j
            for (std::size_t i = 0; i < m; ++i) {
                for (std::size_t j = 0; j < m; ++j) {
                    const double a = static_cast<double>(i) - static_cast<double>(j);
                    const double b = static_cast<double>(i + j) - static_cast<double>(n);
                    s.customCost.push_back(std::abs(a) + 0.25 * b * b);
                }
            }
        }
        for (const QString& c : constraints.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            for (CountProperty p : kAllCountProperties) {
                if (c.compare(QLatin1String(countPropertyName(p)), Qt::CaseInsensitive) == 0) {
                    s.constraints.push_back(p);
                }
            }
        }
        if (binomialP >= 0) {
            s.weights = *binomialWeights(n, binomialP);
        }
        const auto reduced = designCountMechanism(s);
        QVERIFY(reduced.hasValue());
        verifyDesign(s, *reduced);
        QVERIFY(reduced->symmetryReduced);
        QCOMPARE(static_cast<std::size_t>(reduced->lpColumns), (m * m + 1) / 2 + (minimax ? 1 : 0));
        s.exploitSymmetry = false;
        const auto full = designCountMechanism(s);
        QVERIFY(full.hasValue());
        verifyDesign(s, *full);
        QVERIFY(!full->symmetryReduced);
        QCOMPARE(static_cast<std::size_t>(full->lpColumns), m * m + (minimax ? 1 : 0));
        QVERIFY(full->lpRows > reduced->lpRows);
        QVERIFY2(std::abs(reduced->objective - full->objective) <=
                     1e-8 * std::max(1.0, std::abs(full->objective)),
                 qPrintable(QStringLiteral("reduced %1, full %2")
                                .arg(reduced->objective, 0, 'g', 15)
                                .arg(full->objective, 0, 'g', 15)));
        // The reduced optimum is symmetric by construction.
        QVERIFY(reduced->mechanism->properties().symmetric.holds);
    }

    // A prior or a cost that is not mirror-symmetric must not be solved over symmetric matrices.
    void asymmetricProblemsAreNotReduced() {
        CountLpSpec s;
        s.n = 6;
        s.epsilon = 0.5;
        s.weights = *binomialWeights(6, 0.3);
        auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        QVERIFY(!r->symmetryReduced);
        verifyDesign(s, *r);
        s.weights.clear();
        s.cost = LpCostKind::Custom;
        for (int i = 0; i <= 6; ++i) {
            for (int j = 0; j <= 6; ++j) {
                s.customCost.push_back(i > j ? 2.0 * (i - j) : j - i);  // over-reporting costs more
            }
        }
        r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        QVERIFY(!r->symmetryReduced);
        verifyDesign(s, *r);
    }

    // Warm-started sweeps return, in the caller's order, the optima of cold solves (second
    // method: designCountMechanism per ε). The largest ε is solved first and cold; every other
    // solve starts from the previous basis.
    void sweepMatchesColdSolves() {
        CountLpSpec s;
        s.n = 40;
        s.constraints = {CountProperty::WeaklyHonest, CountProperty::ColumnMonotone};
        const std::vector<double> eps = {1.0, 0.3, 2.0, 0.3, 0.7};
        std::vector<std::size_t> progress;
        const auto sweep =
            designCountMechanismSweep(s, eps, {}, [&](std::size_t done, std::size_t total) {
                QCOMPARE(total, eps.size());
                progress.push_back(done);
            });
        QVERIFY(sweep.hasValue());
        QCOMPARE(sweep->size(), eps.size());
        QCOMPARE(progress, (std::vector<std::size_t>{1, 2, 3, 4, 5}));
        int cold = 0;
        for (std::size_t k = 0; k < eps.size(); ++k) {
            const CountLpResult& r = (*sweep)[k];
            CountLpSpec one = s;
            one.epsilon = eps[k];
            verifyDesign(one, r);
            cold += r.warmStarted ? 0 : 1;
            const auto ref = designCountMechanism(one);
            QVERIFY(ref.hasValue());
            QVERIFY2(std::abs(ref->objective - r.objective) <= 1e-8,
                     qPrintable(QStringLiteral("ε = %1: sweep %2, cold %3")
                                    .arg(eps[k])
                                    .arg(r.objective, 0, 'g', 15)
                                    .arg(ref->objective, 0, 'g', 15)));
        }
        QCOMPARE(cold, 1);
        QVERIFY(!(*sweep)[2].warmStarted);                       // ε = 2, the largest
        QVERIFY((*sweep)[0].objective > (*sweep)[2].objective);  // more privacy, more loss
    }

    void sweepRejectsInvalidValues() {
        CountLpSpec s;
        s.n = 5;
        QVERIFY(!designCountMechanismSweep(s, {}).hasValue());
        for (double bad : {0.0, -0.5, std::nan(""), HUGE_VAL}) {
            const auto r = designCountMechanismSweep(s, {0.5, bad, 1.0});
            QVERIFY(!r.hasValue());
            QVERIFY(!r.error().message.empty());
        }
    }

    // A stop request ends the work: nothing is solved, every result says "cancelled".
    void cancellation() {
        std::stop_source stop;
        stop.request_stop();
        CountLpSpec s;
        s.n = 30;
        const auto one = designCountMechanism(s, stop.get_token());
        QVERIFY(one.hasValue());
        QCOMPARE(one->status, LpStatus::Cancelled);
        QVERIFY(!one->mechanism.has_value());
        const auto sweep = designCountMechanismSweep(s, {0.5, 1, 2}, stop.get_token());
        QVERIFY(sweep.hasValue());
        QCOMPARE(sweep->size(), std::size_t{3});
        for (const auto& r : *sweep) {
            QCOMPARE(r.status, LpStatus::Cancelled);
        }
        QCOMPARE(QString::fromLatin1(lpStatusName(LpStatus::Cancelled)),
                 QStringLiteral("cancelled"));
    }

    // Infeasible: at ε = 0.1 a true count cannot be reported correctly with probability 0.9
    // (adjacent columns would need P[i][i] ≥ 0.9 and P[i][i+1] ≥ α·0.9 = 0.81, so column i+1
    // would sum to more than 1). A feasible floor is honoured by the repaired matrix.
    void accuracyFloorAndInfeasibility() {
        CountLpSpec s;
        s.n = 5;
        s.epsilon = 0.1;
        s.minDiagonal = 0.9;
        auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        QCOMPARE(r->status, LpStatus::Infeasible);
        QVERIFY(!r->mechanism.has_value());
        s.epsilon = 3;  // α = 0.0498: GM's interior diagonal (1−α)/(1+α) = 0.905 ≥ 0.8
        s.minDiagonal = 0.8;
        r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        verifyDesign(s, *r);
        for (std::size_t i = 0; i <= 5; ++i) {
            QVERIFY(r->mechanism->at(i, i) >= 0.8 - 1e-9);
        }
    }

    // CLP stops at the time limit and says so (n = 60, ε = 0.1 needs thousands of iterations).
    void timeLimitIsReported() {
        CountLpSpec s;
        s.n = 60;
        s.epsilon = 0.1;
        s.constraints = {CountProperty::WeaklyHonest, CountProperty::ColumnMonotone};
        s.timeLimitSeconds = 1e-6;
        const auto r = designCountMechanism(s);
        QVERIFY(r.hasValue());
        QCOMPARE(r->status, LpStatus::TimeLimit);
        QVERIFY(!r->mechanism.has_value());
    }

    // Degenerate extremes: ε → 0 (every ratio row nearly an equality: the optimum tends to the
    // uniform mechanism) and ε = 25 (α = 1.4e-11: ratio rows between entries ~1e-11·1e-11 that
    // CLP sees as zero). Without constraints the L0 optimum is GM, L0 = 2α/(1+α) (digest), and the
    // repaired matrix must still verify as ε-DP exactly.
    void degenerateEpsilons() {
        for (double eps : {1e-6, 0.01, 25.0}) {
            CountLpSpec s;
            s.n = 6;
            s.epsilon = eps;
            const auto r = designCountMechanism(s);
            QVERIFY(r.hasValue());
            verifyDesign(s, *r);
            const double alpha = std::exp(-eps);
            QVERIFY2(std::abs(*r->normalised - 2 * alpha / (1 + alpha)) <= 1e-9,
                     qPrintable(
                         QStringLiteral("ε = %1: L0 %2").arg(eps).arg(*r->normalised, 0, 'g', 15)));
        }
    }
};

QTEST_MAIN(TestCountLp)
#include "tst_count_lp.moc"
