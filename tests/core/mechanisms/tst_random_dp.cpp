// Random differential privacy histograms (seed 003 ch. 5, eq. (5.3)): the noise-free rule at its
// boundary, the exact expected errors, the guarantee text saying it is weaker than DP, the RDP
// failure probability by exhaustive enumeration of small samples (Prop. 5.2.3: < γ), and
// rejected inputs.
#include <QTest>

#include <cmath>
#include <functional>
#include <limits>

#include "core/mechanisms/random_dp.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestRandomDp : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noiseFreeRule();
    void expectedErrors();
    void guaranteeSaysWeaker();
    void failureProbabilityBelowGamma_data();
    void failureProbabilityBelowGamma();
    void simulate();
    void rejects();
};

void TestRandomDp::noiseFreeRule() {
    // k = 10, n = 1000, γ = 0.1: γn/(2k) = 5, so c_j + 1 ≤ 5 ⇔ c_j ≤ 4 is noise-free.
    std::vector<std::int64_t> c = {0, 4, 5, 100, 0, 0, 3, 888, 0, 0};
    auto p = planRandomDp(c, {1.0, 0.1});
    DPX_VERIFY_OK(p);
    QCOMPARE(p->records, std::int64_t{1000});
    DPX_VERIFY_NEAR(p->maxNoiseFreeCount, 4.0, 1e-12);
    const std::vector<char> want = {1, 1, 0, 0, 1, 1, 1, 0, 1, 1};
    QVERIFY(p->noiseFree == want);
    QCOMPARE(p->noiseFreeCells, std::size_t{7});
    DPX_VERIFY_NEAR(p->scale, 2.0 / 1000, 1e-15);
    DPX_VERIFY_NEAR(p->proportions[3], 0.1, 1e-15);
}

void TestRandomDp::expectedErrors() {
    // m noisy cells of Laplace(b): E L1 = m·b, E L2² = 2m·b²; DP: all k cells.
    std::vector<std::int64_t> c = {0, 4, 5, 100, 0, 0, 3, 888, 0, 0};
    auto p = planRandomDp(c, {0.5, 0.1});
    DPX_VERIFY_OK(p);
    const double b = 2 / (1000 * 0.5);
    DPX_VERIFY_NEAR(p->expectedL1Rdp, 3 * b, 1e-15);
    DPX_VERIFY_NEAR(p->expectedL1Dp, 10 * b, 1e-15);
    DPX_VERIFY_NEAR(p->expectedSquaredL2Rdp, 6 * b * b, 1e-18);
    DPX_VERIFY_NEAR(p->expectedSquaredL2Dp, 20 * b * b, 1e-18);
    // Too few records for any noise-free cell: the two coincide, with a warning.
    auto small = planRandomDp(std::vector<std::int64_t>{3, 4, 5}, {1.0, 0.1});
    DPX_VERIFY_OK(small);
    QCOMPARE(small->noiseFreeCells, std::size_t{0});
    QCOMPARE(small->expectedL1Rdp, small->expectedL1Dp);
    QVERIFY(dpxtest::mentions(small->warnings.front(), "equals the DP release"));
}

void TestRandomDp::guaranteeSaysWeaker() {
    const std::string g = randomDpGuaranteeText({1.0, 0.05});
    QVERIFY(dpxtest::mentions(g, "WEAKER"));
    QVERIFY(dpxtest::mentions(g, "not differential privacy"));
    QVERIFY(dpxtest::mentions(g, "γ = 0.05"));
    auto p = planRandomDp(std::vector<std::int64_t>{1, 2}, {1.0, 0.05});
    DPX_VERIFY_OK(p);
    QCOMPARE(p->guarantee, g);
    bool warned = false;
    for (const auto& w : p->warnings) {
        warned = warned || dpxtest::mentions(w, "weaker than differential privacy");
    }
    QVERIFY(warned);
}

void TestRandomDp::failureProbabilityBelowGamma_data() {
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("gamma");
    QTest::newRow("k 2 n 40 g 0.2") << 2 << 40 << 0.2;
    QTest::newRow("k 3 n 60 g 0.3") << 3 << 60 << 0.3;
    QTest::newRow("k 4 n 40 g 0.5") << 4 << 40 << 0.5;
    QTest::newRow("k 5 n 30 g 0.9") << 5 << 30 << 0.9;
}

void TestRandomDp::failureProbabilityBelowGamma() {
    // For every multiset of n + 1 records (cell counts C over k cells), the probability over the
    // (n+1)! equally likely orders that the ε-DP inequality can fail between D = (x_1..x_n) and
    // D' = (x_1..x_{n−1}, x_{n+1}) is at most the probability of "U(D) ≠ U(D') or x_n or x_{n+1}
    // released without noise"; outside that event both differing records are in noisy cells of
    // the same partition and Laplace(2/(nε)) gives ε-DP. By exchangeability (x_n, x_{n+1}) is a
    // uniform ordered pair of distinct records: weight C_a(C_b − [a = b]) / ((n + 1)n). Seed 003
    // Prop. 5.2.3 claims this is < γ; computed exactly with our planRandomDp.
    QFETCH(int, k);
    QFETCH(int, n);
    QFETCH(double, gamma);
    const RandomDpParams params{1.0, gamma};
    std::vector<std::int64_t> C(static_cast<std::size_t>(k), 0);
    double worst = 0;
    std::size_t multisets = 0;
    std::function<void(int, int)> rec = [&](int cell, int left) {
        if (cell == k - 1) {
            C[static_cast<std::size_t>(cell)] = left;
            ++multisets;
            double fail = 0;
            for (int a = 0; a < k; ++a) {
                for (int b = 0; b < k; ++b) {
                    const auto ua = static_cast<std::size_t>(a);
                    const auto ub = static_cast<std::size_t>(b);
                    const double w = static_cast<double>(C[ua]) *
                                     static_cast<double>(C[ub] - (a == b ? 1 : 0)) /
                                     (static_cast<double>(n + 1) * n);
                    if (w <= 0 || a == b) {
                        continue;  // a = b: D and D' are the same histogram
                    }
                    std::vector<std::int64_t> d = C, d2 = C;
                    --d[ub];   // D holds x_n = a, not x_{n+1} = b
                    --d2[ua];  // D' holds x_{n+1} = b
                    auto pd = planRandomDp(d, params);
                    auto pd2 = planRandomDp(d2, params);
                    QVERIFY(pd && pd2);
                    if (pd->noiseFree != pd2->noiseFree || pd->noiseFree[ua] || pd->noiseFree[ub]) {
                        fail += w;
                    }
                }
            }
            worst = std::max(worst, fail);
            return;
        }
        for (int v = 0; v <= left; ++v) {
            C[static_cast<std::size_t>(cell)] = v;
            rec(cell + 1, left - v);
        }
    };
    rec(0, n + 1);
    QVERIFY(multisets > 10);
    QVERIFY2(worst < gamma, dpxtest::nearMessage("worst failure probability", worst, gamma, 0));
    QVERIFY(worst > 0);  // the event is not vacuous: rare cells exist in some samples
}

void TestRandomDp::simulate() {
    std::vector<std::int64_t> c(100, 0);
    c[0] = 900;
    c[1] = 100;
    SimulationRng rng(5, 0);
    auto r = simulateRandomDp(c, {1.0, 0.5}, rng);
    DPX_VERIFY_OK(r);
    // γn/(2k) = 2.5: the 98 empty cells are released exactly; the two big ones are noisy.
    for (std::size_t j = 2; j < c.size(); ++j) {
        QCOMPARE((*r)[j], 0.0);
    }
    QVERIFY((*r)[0] != 0.9 && (*r)[1] != 0.1);
    SimulationRng rng2(5, 0);
    auto d = simulateDpProportions(c, 1.0, rng2);
    DPX_VERIFY_OK(d);
    std::size_t nonzero = 0;
    for (double x : *d) {
        nonzero += x != 0 ? 1 : 0;
    }
    QCOMPARE(nonzero, c.size());
}

void TestRandomDp::rejects() {
    const std::vector<std::int64_t> ok = {1, 2, 3};
    const double inf = std::numeric_limits<double>::infinity();
    for (double eps : {0.0, -1.0, std::nan(""), inf}) {
        DPX_VERIFY_ERROR(planRandomDp(ok, {eps, 0.1}), "ε");
    }
    for (double g : {0.0, 1.0, -0.1, 1.5, std::nan(""), inf}) {
        DPX_VERIFY_ERROR(planRandomDp(ok, {1.0, g}), "gamma|γ");
    }
    DPX_VERIFY_ERROR(planRandomDp(std::vector<std::int64_t>{0, 0}, {1.0, 0.1}), "n (the number");
    DPX_VERIFY_ERROR(planRandomDp(std::vector<std::int64_t>{}, {1.0, 0.1}), "counts");
    DPX_VERIFY_ERROR(planRandomDp(std::vector<std::int64_t>{1, -1}, {1.0, 0.1}), "counts");
    MonteCarloOptions o;
    o.trials = 1;
    DPX_VERIFY_ERROR(randomDpMonteCarlo(ok, {1.0, 0.1}, o), "trials");
    SimulationRng rng(1, 0);
    DPX_VERIFY_ERROR(simulateDpProportions(ok, -1, rng), "ε");
}

QTEST_APPLESS_MAIN(TestRandomDp)
#include "tst_random_dp.moc"
