// AHP (core/algorithms/ahp.cpp; Zhang, Chen, Xu, Meng & Xie, SDM 2014): the output is constant on
// clusters of equal values (at large ε the clusters are exactly the distinct values, in 1-D and
// 2-D, wherever the cells lie), zero cells are absorbed by the threshold, the budget split, the
// DPBench finding on a sparse shape at small scale (beats Identity by a large factor; fixed
// seeds), and bad inputs.
#include <QTest>

#include <cmath>
#include <set>

#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"
#include "tests/core/algorithms/dd1_test_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestAhp : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void constantOnClustersOfEqualValues();
    void budgetSumsToEpsilon();
    void beatsIdentityOnSparseData();
    void badInputs();
};

void TestAhp::constantOnClustersOfEqualValues() {
    // Three values scattered over the cells (positions do not matter to AHP). The estimate is
    // constant on each cluster: it takes as many distinct values as the run reports clusters,
    // and no cluster mixes cells of different true values (the values are far apart next to the
    // noise). At ε = 10⁵ every estimate is within the noise of its true value.
    const double values[] = {0, 50, 200};
    for (const DomainShape& shape : {DomainShape{60}, DomainShape{8, 8}}) {
        for (double eps : {1e5, 1.0}) {
            const std::size_t n = shapeCells(shape);
            std::vector<double> x(n);
            for (std::size_t i = 0; i < n; ++i) {
                x[i] = values[(i * 7 + i / 5) % 3];
            }
            const Workload w = dd1test::workload("identity", shape);
            SimulationRng rng(3, 0);
            auto r = dd1test::run(ahpAlgorithm(), shape, x, w, eps, rng);
            DPX_VERIFY_OK(r);
            std::set<double> distinct(r->estimate.begin(), r->estimate.end());
            QCOMPARE(r->summary, "AHP: " + std::to_string(distinct.size()) + " clusters");
            QVERIFY(distinct.size() >= 3);
            for (std::size_t i = 0; i < n; ++i) {
                if (eps > 1) {
                    DPX_VERIFY_NEAR(r->estimate[i], x[i], 1e-3);
                }
                for (std::size_t j = 0; j < i; ++j) {
                    if (r->estimate[i] == r->estimate[j]) {
                        QCOMPARE(x[i], x[j]);
                    }
                }
            }
        }
    }
}

void TestAhp::budgetSumsToEpsilon() {
    std::vector<double> x(100, 0.0);
    x[10] = 40;
    x[55] = 7;
    const Workload w = dd1test::workload("range:20", {100});
    const Workload w2 = dd1test::workload("range:20", {10, 10});
    SimulationRng rng(1, 0);
    for (double eps : {0.02, 1.0, 30.0}) {
        for (double ratio : {0.1, 0.85, 0.99}) {
            for (double eta : {0.0, 0.35, 2.0}) {
                const std::map<std::string, double> p{{"ratio", ratio}, {"eta", eta}};
                auto r = dd1test::run(ahpAlgorithm(), {100}, x, w, eps, rng, p);
                DPX_VERIFY_OK(r);
                DPX_VERIFY_NEAR(r->spent[0].epsilon, ratio * eps, 1e-12 * eps);
                DPX_VERIFY_NEAR(dd1test::sumSpent(*r), eps, 1e-12 * eps);
                auto r2 = dd1test::run(ahpAlgorithm(), {10, 10}, x, w2, eps, rng, p);
                DPX_VERIFY_OK(r2);
                DPX_VERIFY_NEAR(dd1test::sumSpent(*r2), eps, 1e-12 * eps);
            }
        }
    }
}

void TestAhp::beatsIdentityOnSparseData() {
    // DPBench (Hay et al. 2016): at small scale on sparse shapes AHP is far better than
    // Identity. 1 000 records on 40 of 4 096 cells, ε = 0.1, 300 random ranges, 20 trials
    // (fixed seeds). Identity's mean squared error per query is 2·E[len]/ε² ≈ 4·10⁵; AHP's is
    // far smaller (the empty cells collapse into one cluster whose noise is shared by thousands
    // of cells).
    const std::size_t n = 4096;
    std::vector<double> x(n, 0.0);
    SimulationRng data(4, 0);
    for (int r = 0; r < 1000; ++r) {
        x[97 * static_cast<std::size_t>(40 * data.uniform()) + 13] += 1;
    }
    const Workload w = dd1test::workload("range:300:seed=1", {n});
    SimulationRng rngA(41, 0), rngI(42, 0);
    double ahp = 0, identity = 0;
    for (int t = 0; t < 20; ++t) {
        auto r = dd1test::run(ahpAlgorithm(), {n}, x, w, 0.1, rngA);
        DPX_VERIFY_OK(r);
        ahp += dd1test::squaredError(w, x, r->estimate);
        identity += dd1test::squaredError(w, x, dd1test::identityEstimate(x, 0.1, rngI));
    }
    qInfo("ratio %g", identity / ahp);
    QVERIFY2(identity > 10 * ahp,
             qPrintable(QStringLiteral("Identity %1, AHP %2").arg(identity).arg(ahp)));
}

void TestAhp::badInputs() {
    SimulationRng rng(1, 0);
    const Workload w3 = dd1test::workload("identity", {2, 2, 2});
    std::vector<double> x8(8, 1);
    DPX_VERIFY_ERROR(dd1test::run(ahpAlgorithm(), {2, 2, 2}, x8, w3, 1, rng), "3-D");
    const Workload w = dd1test::workload("identity", {8});
    DPX_VERIFY_ERROR(dd1test::run(ahpAlgorithm(), {8}, x8, w, 1, rng, {{"ratio", 1.0}}), "ratio");
    DPX_VERIFY_ERROR(dd1test::run(ahpAlgorithm(), {8}, x8, w, 1, rng, {{"eta", -1}}), "eta");
    DPX_VERIFY_ERROR(dd1test::run(ahpAlgorithm(), {8}, x8, w, 0, rng), "ε|epsilon");
    QVERIFY(ahpAlgorithm().info().dataDependent && !ahpAlgorithm().info().usesWorkload);
    QCOMPARE(findAlgorithm("AHP"), &ahpAlgorithm());
}

QTEST_APPLESS_MAIN(TestAhp)
#include "tst_ahp.moc"
