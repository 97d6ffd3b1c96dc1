// Random DP histograms, Monte Carlo (seed 003 Fig. 5.1): the per-trial L1 errors of the RDP and DP
// releases average to m·b and k·b within 4 standard errors, the mean squared L2 to 2m·b² and
// 2k·b², thread-count independence. Fixed seeds.
#include <QTest>

#include <cmath>

#include "core/mechanisms/random_dp.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestRandomDpMc : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void meansMatchExact();
    void threadIndependent();
};

void TestRandomDpMc::meansMatchExact() {
    // A very sparse histogram as in Fig. 5.1: k = 200 cells, n = 5000, 5 occupied.
    std::vector<std::int64_t> c(200, 0);
    c[3] = 3000;
    c[17] = 1500;
    c[50] = 400;
    c[51] = 90;
    c[120] = 10;
    MonteCarloOptions o;
    o.trials = 20000;
    o.seed = 55;
    auto r = randomDpMonteCarlo(c, {1.0, 0.2}, o);
    DPX_VERIFY_OK(r);
    // γn/(2k) = 2.5 ⇒ empty cells are noise-free, the 5 occupied are noisy (10 + 1 > 2.5).
    QCOMPARE(r->plan.noiseFreeCells, std::size_t{195});
    DPX_VERIFY_NEAR(r->meanRdpL1, r->plan.expectedL1Rdp, 4 * r->seRdpL1);
    DPX_VERIFY_NEAR(r->meanDpL1, r->plan.expectedL1Dp, 4 * r->seDpL1);
    double sq = 0, sq2 = 0;
    for (std::size_t t = 0; t < r->rdpL2.size(); ++t) {
        sq += r->rdpL2[t] * r->rdpL2[t];
        sq2 += r->dpL2[t] * r->dpL2[t];
    }
    const double n = static_cast<double>(r->trials);
    // Var of Σ L² over m cells = m·Var(L²) = m·(24 − 4)b⁴ = 20m·b⁴ (E L⁴ = 24b⁴).
    const double b = r->plan.scale;
    DPX_VERIFY_NEAR(sq / n, r->plan.expectedSquaredL2Rdp, 4 * std::sqrt(20 * 5 / n) * b * b);
    DPX_VERIFY_NEAR(sq2 / n, r->plan.expectedSquaredL2Dp, 4 * std::sqrt(20 * 200 / n) * b * b);
    QVERIFY(r->meanRdpL1 < 0.05 * r->meanDpL1);
}

void TestRandomDpMc::threadIndependent() {
    std::vector<std::int64_t> c = {100, 0, 0, 5, 0, 0, 0, 0};
    MonteCarloOptions o;
    o.trials = 500;
    o.threads = 1;
    auto a = randomDpMonteCarlo(c, {1.0, 0.5}, o);
    o.threads = 4;
    auto b = randomDpMonteCarlo(c, {1.0, 0.5}, o);
    DPX_VERIFY_OK(a);
    DPX_VERIFY_OK(b);
    QVERIFY(a->rdpL1 == b->rdpL1);
    QVERIFY(a->dpL2 == b->dpL2);
}

QTEST_APPLESS_MAIN(TestRandomDpMc)
#include "tst_random_dp_mc.moc"
