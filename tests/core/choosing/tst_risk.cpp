// Disclosure-risk formulas (core/choosing/risk.h) against independent references:
//  - posterior: Bayes' rule on randomized response (which attains the pure-DP bound) and on the
//    Gaussian mechanism's privacy-loss distribution (closed form with std::erfc);
//  - test region: the Neyman–Pearson lemma applied to the four-output (ε, δ) randomized response
//    of Kairouz, Oh & Viswanath 2015 (whose trade-off is exactly f_{ε,δ}), written out here;
//  - Gaussian trade-off: Φ⁻¹ by bisection on std::erfc and β by Gauss–Kronrod quadrature of the
//    N(μ, 1) density (no Boost quantile), and the duality sup_ε f_{ε,δ(ε)} = G_μ with δ(ε) the
//    exact Gaussian privacy profile (Balle & Wang 2018 Thm 8);
//  - group privacy: iterating the (ε, δ) inequality k times, and hand-computed values.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/choosing/risk.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "tests/testing/quadrature.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double phi(double x) {
    return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

// Φ⁻¹(q) by bisection on erfc: independent of Boost's quantile.
double phiInverse(double q) {
    double lo = -40, hi = 40;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (phi(mid) < q ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// Lowest false-negative rate at false-positive rate α between two discrete laws P0 (null, "not
// in the data") and P1 (alternative), by the Neyman–Pearson lemma with randomised tests: reject on
// outputs in decreasing order of P1/P0 until the size reaches α.
double neymanPearson(std::vector<double> p0, std::vector<double> p1, double alpha) {
    std::vector<std::size_t> order(p0.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        // p1[a]/p0[a] > p1[b]/p0[b], with p0 = 0 meaning ratio ∞.
        return p1[a] * p0[b] > p1[b] * p0[a];
    });
    double size = 0, power = 0;
    for (std::size_t i : order) {
        if (p0[i] == 0) {
            power += p1[i];  // free power
            continue;
        }
        const double take = std::min(1.0, (alpha - size) / p0[i]);
        if (take <= 0) {
            break;
        }
        size += take * p0[i];
        power += take * p1[i];
    }
    return 1 - power;
}

// The (ε, δ) randomized response of Kairouz, Oh & Viswanath 2015 (§2, Fig. 1): four outputs.
std::vector<double> rrNull(double e, double d) {
    return {0, (1 - d) / (1 + std::exp(e)), (1 - d) * std::exp(e) / (1 + std::exp(e)), d};
}
std::vector<double> rrAlt(double e, double d) {
    return {d, (1 - d) * std::exp(e) / (1 + std::exp(e)), (1 - d) / (1 + std::exp(e)), 0};
}

}  // namespace

class TestRisk : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void posteriorPure_data();
    void posteriorPure();
    void posteriorApproximate_data();
    void posteriorApproximate();
    void posteriorHandValues();
    void posteriorGivenAccusation();
    void posteriorCurves();
    void logSpacedValues();
    void tradeoffVsNeymanPearson_data();
    void tradeoffVsNeymanPearson();
    void testRegionPolyline();
    void maxAucValues();
    void gaussianTradeoffVsQuadrature_data();
    void gaussianTradeoffVsQuadrature();
    void gaussianInsideEpsDeltaRegion_data();
    void gaussianInsideEpsDeltaRegion();
    void group_data();
    void group();
    void groupChainByIteration();
    void groupVacuous();
    void rocHandMade();
    void rejections();
};

void TestRisk::posteriorPure_data() {
    QTest::addColumn<double>("prior");
    QTest::addColumn<double>("epsilon");
    QTest::newRow("p=0.5 eps=ln3") << 0.5 << std::log(3.0);
    QTest::newRow("p=0.01 eps=1") << 0.01 << 1.0;
    QTest::newRow("p=0.9 eps=0.1") << 0.9 << 0.1;
    QTest::newRow("p=1e-6 eps=10") << 1e-6 << 10.0;
    QTest::newRow("p=0.3 eps=1e-8") << 0.3 << 1e-8;
}

void TestRisk::posteriorPure() {
    QFETCH(double, prior);
    QFETCH(double, epsilon);
    // Randomized response reports the true bit w.p. q = e^ε/(1 + e^ε) (seed 003 §1.3, P(0)) and
    // attains the pure-DP bound: Bayes' rule after the answer "in" gives the maximal posterior.
    const double q = std::exp(epsilon) / (1 + std::exp(epsilon));
    const double notQ = 1 / (1 + std::exp(epsilon));  // 1 − q without cancellation
    const double bayes = prior * q / (prior * q + (1 - prior) * notQ);
    DPX_VERIFY_REL(posteriorMaxPure(prior, epsilon), bayes, 1e-13);
    const auto b = posteriorBound(prior, {epsilon, 0});
    DPX_VERIFY_OK(b);
    DPX_VERIFY_REL(b->posterior, bayes, 1e-13);
    QCOMPARE(b->failureProbability, 0.0);
    QCOMPARE(b->epsilonEffective, epsilon);
    QVERIFY(!b->interpretation.empty());
    QCOMPARE(posteriorMaxPure(prior, kInf), 1.0);  // no privacy: certainty
}

void TestRisk::posteriorApproximate_data() {
    QTest::addColumn<double>("sigma");
    QTest::addColumn<double>("epsilon");
    QTest::newRow("sigma=1 eps=1") << 1.0 << 1.0;
    QTest::newRow("sigma=2 eps=0.5") << 2.0 << 0.5;
    QTest::newRow("sigma=0.5 eps=3") << 0.5 << 3.0;
    QTest::newRow("sigma=4 eps=0.1") << 4.0 << 0.1;
}

void TestRisk::posteriorApproximate() {
    // The Gaussian mechanism N(0, σ²) vs N(1, σ²) is (ε, δ(ε))-DP with δ(ε) its exact profile. Its
    // privacy loss L = ln p_D/p_D' under D is N(μ²/2, μ²), μ = 1/σ, so the outputs where the
    // posterior odds exceed e^{ε'} × prior odds have P_D-probability Φ(μ/2 − ε'/μ) (closed form,
    // not from the code under test). posteriorBound must cover them: Φ(μ/2 − ε'/μ) ≤ failure.
    QFETCH(double, sigma);
    QFETCH(double, epsilon);
    const double delta = gaussianExactDelta(sigma, epsilon, 1.0);
    QVERIFY(delta > 0 && delta < 1);
    const double mu = 1 / sigma;
    for (double slack : {0.05, 0.3, std::numbers::ln2, 2.0}) {
        const auto b = posteriorBound(0.2, {epsilon, delta}, slack);
        DPX_VERIFY_OK(b);
        if (b->failureProbability >= 1) {
            QCOMPARE(b->posterior, 1.0);
            continue;
        }
        const double actual = phi(mu / 2 - (epsilon + slack) / mu);
        QVERIFY2(actual <= b->failureProbability,
                 qPrintable(QStringLiteral("P_D(loss > ε') = %1 > failure %2")
                                .arg(actual)
                                .arg(b->failureProbability)));
        DPX_VERIFY_REL(b->failureProbability, delta / -std::expm1(-slack), 1e-14);
        DPX_VERIFY_REL(b->posterior, posteriorMaxPure(0.2, epsilon + slack), 1e-15);
        QVERIFY(b->posterior > posteriorMaxPure(0.2, epsilon));
    }
}

void TestRisk::posteriorHandValues() {
    // Hand-computed: p = 1/2, ε = ln 1.5, δ = 1e-6, default slack ln 2: ε' = ln 3 → posterior
    // odds ≤ 3 → posterior ≤ 3/4; failure δ/(1 − 1/2) = 2e-6.
    const auto b = posteriorBound(0.5, {std::log(1.5), 1e-6});
    DPX_VERIFY_OK(b);
    DPX_VERIFY_REL(b->posterior, 0.75, 1e-14);
    DPX_VERIFY_REL(b->failureProbability, 2e-6, 1e-14);
    DPX_VERIFY_REL(b->epsilonEffective, std::log(3.0), 1e-14);
    // Pure: p = 0.01, ε = 1: e·0.01/(e·0.01 + 0.99) = 0.0267165696... (hand, e = 2.718281828).
    DPX_VERIFY_REL(posteriorMaxPure(0.01, 1.0), 0.02718281828459045 / 1.0171828182845905, 1e-14);
    // δ so large that δ/(1 − e^{−t}) ≥ 1: vacuous.
    const auto v = posteriorBound(0.5, {1.0, 0.6});
    DPX_VERIFY_OK(v);
    QCOMPARE(v->posterior, 1.0);
    QCOMPARE(v->failureProbability, 1.0);
}

void TestRisk::posteriorGivenAccusation() {
    // δ = 0: for α ≤ α* = 1/(1 + e^ε) the best verdict has TPR = e^ε α and the posterior given it
    // is exactly the pure bound; for larger α it is smaller.
    const double eps = 1.2, p = 0.3;
    const double aStar = 1 / (1 + std::exp(eps));
    for (double a : {1e-9, 1e-3, 0.1, aStar}) {
        const auto r = dpx::posteriorGivenAccusation(p, {eps, 0}, a);
        DPX_VERIFY_OK(r);
        DPX_VERIFY_REL(*r, posteriorMaxPure(p, eps), 1e-12);
    }
    for (double a : {0.3, 0.6, 1.0}) {
        const auto r = dpx::posteriorGivenAccusation(p, {eps, 0}, a);
        DPX_VERIFY_OK(r);
        QVERIFY(*r < posteriorMaxPure(p, eps));
    }
    // α = 1 (accuse everyone): the posterior is the prior.
    DPX_VERIFY_REL(*dpx::posteriorGivenAccusation(p, {eps, 0}, 1.0), p, 1e-15);
    // δ > 0: rare verdicts can be near-certain (TPR ≥ δ while α → 0).
    const auto rare = dpx::posteriorGivenAccusation(p, {eps, 1e-6}, 1e-12);
    DPX_VERIFY_OK(rare);
    QVERIFY(*rare > 0.99);
    // Hand value: p = 1/2, ε = ln 2, δ = 0.1, α = 0.1: TPR = 1 − max{0, 0.9 − 0.2, 0.5·0.8} = 0.3,
    // posterior = 0.15/(0.15 + 0.05) = 0.75.
    DPX_VERIFY_REL(*dpx::posteriorGivenAccusation(0.5, {std::numbers::ln2, 0.1}, 0.1), 0.75, 1e-14);
}

void TestRisk::posteriorCurves() {
    const auto overP = posteriorOverPrior({1.0, 0}, 9);
    DPX_VERIFY_OK(overP);
    QCOMPARE(overP->size(), std::size_t(9));
    for (std::size_t i = 0; i < overP->size(); ++i) {
        const double p = double(i + 1) / 10;
        DPX_VERIFY_REL((*overP)[i].x, p, 1e-15);
        DPX_VERIFY_REL((*overP)[i].y, posteriorMaxPure(p, 1.0), 1e-15);
        QVERIFY((*overP)[i].y > p);  // seeing the output can only raise the worst-case belief
    }
    const auto overE = posteriorOverEpsilon(0.1, 1e-6, {0.1, 1, 10});
    DPX_VERIFY_OK(overE);
    QCOMPARE(overE->size(), std::size_t(3));
    for (std::size_t i = 1; i < overE->size(); ++i) {
        QVERIFY((*overE)[i].y > (*overE)[i - 1].y);  // increasing in ε
    }
    DPX_VERIFY_REL((*overE)[2].y, posteriorMaxPure(0.1, 10 + std::numbers::ln2), 1e-15);
}

void TestRisk::logSpacedValues() {
    const auto v = logSpaced(0.01, 10, 4);
    DPX_VERIFY_OK(v);
    QCOMPARE(v->size(), std::size_t(4));
    QCOMPARE((*v)[0], 0.01);
    // 10^{-2 + 3·(1/3)}: interior points are rounded to 12 significant digits, so exactly the
    // doubles 0.1 and 1 (exp/log alone gives 1.0000000000000004).
    QCOMPARE((*v)[1], 0.1);
    QCOMPARE((*v)[2], 1.0);
    QCOMPARE((*v)[3], 10.0);
    DPX_VERIFY_OK(logSpaced(2, 2, 1));
    DPX_VERIFY_ERROR(logSpaced(1, 2, 1), "count");
    DPX_VERIFY_ERROR(logSpaced(0, 2, 3), "lo");
    DPX_VERIFY_ERROR(logSpaced(3, 2, 3), "lo");
    DPX_VERIFY_ERROR(logSpaced(1, kInf, 3), "finite");
    DPX_VERIFY_ERROR(logSpaced(1, 2, 0), "count");
}

void TestRisk::tradeoffVsNeymanPearson_data() {
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("delta");
    QTest::newRow("pure eps=1") << 1.0 << 0.0;
    QTest::newRow("eps=0.5 delta=0.05") << 0.5 << 0.05;
    QTest::newRow("eps=2 delta=1e-3") << 2.0 << 1e-3;
    QTest::newRow("eps=0.01 delta=0.2") << 0.01 << 0.2;
}

void TestRisk::tradeoffVsNeymanPearson() {
    QFETCH(double, epsilon);
    QFETCH(double, delta);
    const auto p0 = rrNull(epsilon, delta);
    const auto p1 = rrAlt(epsilon, delta);
    for (int i = 0; i <= 1000; ++i) {
        const double a = i / 1000.0;
        const double f = tradeoffEpsDelta(epsilon, delta, a);
        // Kairouz et al.'s mechanism is (ε, δ)-DP and its optimal tests trace f exactly.
        DPX_VERIFY_NEAR(f, neymanPearson(p0, p1, a), 1e-12);
        // Seed 003 Prop 1.2.2: power ≤ e^ε·size + δ; and the symmetric counterpart.
        QVERIFY(1 - f <= std::exp(epsilon) * a + delta + 1e-12);
        QVERIFY(1 - a <= std::exp(epsilon) * f + delta + 1e-12);
        // f is symmetric (f = f⁻¹) on [0, 1 − δ].
        if (a <= 1 - delta) {
            DPX_VERIFY_NEAR(tradeoffEpsDelta(epsilon, delta, f), a, 1e-12);
        }
    }
}

void TestRisk::testRegionPolyline() {
    const double eps = 1, delta = 0.1;
    const auto poly = testRegionBoundary({eps, delta}, 11);
    DPX_VERIFY_OK(poly);
    // 11 grid points plus the two kinks (0.9 is on the grid: 13 − 1 distinct values).
    const double kink = 0.9 / (1 + std::exp(1.0));
    QCOMPARE(poly->size(), std::size_t(12));
    QCOMPARE(poly->front().x, 0.0);
    DPX_VERIFY_NEAR(poly->front().y, 1 - delta, 1e-15);
    QCOMPARE(poly->back().x, 1.0);
    QCOMPARE(poly->back().y, 0.0);
    bool sawKink = false;
    for (std::size_t i = 0; i < poly->size(); ++i) {
        if (i > 0) {
            QVERIFY((*poly)[i].x > (*poly)[i - 1].x);
            QVERIFY((*poly)[i].y <= (*poly)[i - 1].y);
        }
        sawKink = sawKink || (*poly)[i].x == kink;
    }
    QVERIFY(sawKink);
    DPX_VERIFY_NEAR(tradeoffEpsDelta(eps, delta, kink), kink, 1e-15);  // on the diagonal β = α
}

void TestRisk::maxAucValues() {
    // Pure ε: ∫f = area of the kite below (0,1)–(α*, α*)–(1,0): α* = 1/(1+e^ε), ∫f = α*,
    // max AUC = 1 − α* = e^ε/(1 + e^ε) (hand: two triangles of base 1 and height α*).
    for (double e : {0.1, 1.0, 5.0}) {
        DPX_VERIFY_REL(*maxAuc({e, 0}), std::exp(e) / (1 + std::exp(e)), 1e-14);
    }
    // With δ: independent check by Gauss–Kronrod quadrature of f.
    const double e = 0.7, d = 0.03;
    const double area = dpxtest::integrateSplit([&](double a) { return tradeoffEpsDelta(e, d, a); },
                                                {(1 - d) / (1 + std::exp(e)), 1 - d}, 0.0, 1.0);
    DPX_VERIFY_NEAR(*maxAuc({e, d}), 1 - area, 1e-12);
    DPX_VERIFY_NEAR(*maxAuc({1e-12, 0}), 0.5, 1e-12);
}

void TestRisk::gaussianTradeoffVsQuadrature_data() {
    QTest::addColumn<double>("mu");
    QTest::newRow("mu=0.5") << 0.5;
    QTest::newRow("mu=1") << 1.0;
    QTest::newRow("mu=3") << 3.0;
}

void TestRisk::gaussianTradeoffVsQuadrature() {
    QFETCH(double, mu);
    // Neyman–Pearson for N(0,1) vs N(μ,1): reject when x > c with P0(x > c) = α; β = P1(x ≤ c)
    // = ∫_{−∞}^c φ(x − μ) dx (Gauss–Kronrod), c by bisection on erfc.
    for (double a : {1e-6, 0.01, 0.05, 0.3, 0.5, 0.9, 0.999}) {
        const double c = phiInverse(1 - a);
        const double beta =
            dpxtest::integrateSplit([&](double x) { return dpxtest::gaussianPdf(x - mu, 1.0); },
                                    {mu - 5, mu, mu + 5}, -kInf, c);
        DPX_VERIFY_NEAR(gaussianTradeoff(mu, a), beta, 1e-9);
    }
    QCOMPARE(gaussianTradeoff(mu, 0.0), 1.0);
    QCOMPARE(gaussianTradeoff(mu, 1.0), 0.0);
    // μ = 0: no information, β = 1 − α.
    DPX_VERIFY_NEAR(gaussianTradeoff(0, 0.37), 0.63, 1e-14);
    const auto curve = gaussianTradeoffCurve(mu, 101);
    DPX_VERIFY_OK(curve);
    QCOMPARE(curve->size(), std::size_t(101));
    DPX_VERIFY_NEAR((*curve)[50].y, phi(-mu), 1e-14);  // α = 1/2: β = Φ(0 − μ)
}

void TestRisk::gaussianInsideEpsDeltaRegion_data() {
    QTest::addColumn<double>("sigma");
    QTest::newRow("sigma=0.5") << 0.5;
    QTest::newRow("sigma=1") << 1.0;
    QTest::newRow("sigma=3") << 3.0;
}

void TestRisk::gaussianInsideEpsDeltaRegion() {
    QFETCH(double, sigma);
    const double mu = 1 / sigma;  // Δ2 = 1
    // For every ε the Gaussian is (ε, δ(ε))-DP with δ(ε) = gaussianExactDelta (Balle & Wang 2018
    // Thm 8), so its curve lies inside every such region: G_μ ≥ f_{ε,δ(ε)}; and the envelope over ε
    // of the regions is the curve itself (Dong, Roth & Su 2022, Prop. on the primal–dual
    // relation), so the largest f over a fine ε grid comes within the grid error of G_μ.
    std::vector<double> envelope(201, 0.0);
    for (int j = 0; j <= 800; ++j) {
        const double eps = j * 0.01;
        const double delta = gaussianExactDelta(sigma, eps, 1.0);
        for (int i = 0; i <= 200; ++i) {
            const double a = i / 200.0;
            const double f = tradeoffEpsDelta(eps, delta, a);
            const double g = gaussianTradeoff(mu, a);
            QVERIFY2(
                g >= f - 1e-12,
                qPrintable(
                    QStringLiteral("G(%1)=%2 < f=%3 at eps %4").arg(a).arg(g).arg(f).arg(eps)));
            envelope[std::size_t(i)] = std::max(envelope[std::size_t(i)], f);
        }
    }
    for (int i = 1; i < 200; ++i) {
        const double a = i / 200.0;
        if (gaussianTradeoff(mu, a) > 1e-6) {  // where e^ε ≤ e^8 suffices to reach the curve
            DPX_VERIFY_NEAR(envelope[std::size_t(i)], gaussianTradeoff(mu, a), 2e-3);
        }
    }
}

void TestRisk::group_data() {
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("delta");
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("textbookDelta");
    QTest::addColumn<double>("chainDelta");
    // Hand-computed: 3·e^{1.0}·1e-5 = 8.1548454853771e-5; 1e-5·(1 + e^0.5 + e^1) =
    // 1e-5·(1 + 1.6487212707 + 2.7182818285) = 5.3670030992e-5 (Python: 5.367003099159174e-05).
    QTest::newRow("eps=0.5 delta=1e-5 k=3")
        << 0.5 << 1e-5 << 3 << 8.154845485377135e-05 << 5.367003099159173e-05;
    QTest::newRow("k=1 unchanged") << 0.7 << 1e-3 << 1 << 1e-3 << 1e-3;
    // k = 2: textbook 2e^ε δ, chain (1 + e^ε) δ; ε = ln 2: 4δ vs 3δ.
    QTest::newRow("eps=ln2 k=2") << std::numbers::ln2 << 1e-4 << 2 << 4e-4 << 3e-4;
    QTest::newRow("pure k=10") << 0.1 << 0.0 << 10 << 0.0 << 0.0;
}

void TestRisk::group() {
    QFETCH(double, epsilon);
    QFETCH(double, delta);
    QFETCH(int, k);
    QFETCH(double, textbookDelta);
    QFETCH(double, chainDelta);
    const auto t = groupPrivacy({epsilon, delta}, unsigned(k), GroupBound::Textbook);
    const auto c = groupPrivacy({epsilon, delta}, unsigned(k), GroupBound::Chain);
    DPX_VERIFY_OK(t);
    DPX_VERIFY_OK(c);
    DPX_VERIFY_REL(t->epsilon, k * epsilon, 1e-15);
    DPX_VERIFY_REL(c->epsilon, k * epsilon, 1e-15);
    DPX_VERIFY_REL(t->delta, textbookDelta, 1e-12);
    DPX_VERIFY_REL(c->delta, chainDelta, 1e-12);
    QVERIFY(c->delta <= t->delta);
    QVERIFY(!t->vacuous());
}

void TestRisk::groupChainByIteration() {
    // P_0(S) ≤ e^ε P_1(S) + δ applied k times: δ_k = e^ε δ_{k−1} + δ, δ_1 = δ.
    const double eps = 0.3, delta = 1e-6;
    double dk = delta;
    for (unsigned k = 1; k <= 30; ++k) {
        const auto c = groupPrivacy({eps, delta}, k, GroupBound::Chain);
        DPX_VERIFY_OK(c);
        DPX_VERIFY_REL(c->delta, dk, 1e-12);
        const auto t = groupPrivacy({eps, delta}, k, GroupBound::Textbook);
        QVERIFY(c->delta <= t->delta * (1 + 1e-15));  // Σ_{j<k} e^{jε} ≤ k e^{(k−1)ε}
        dk = std::exp(eps) * dk + delta;
    }
}

void TestRisk::groupVacuous() {
    // ε = 1, δ = 0.1, k = 5: textbook δ_5 = 5e^4·0.1 ≈ 27.3 ≥ 1: no guarantee.
    const auto g = groupPrivacy({1.0, 0.1}, 5);
    DPX_VERIFY_OK(g);
    QVERIFY(g->vacuous());
    DPX_VERIFY_REL(g->delta, 5 * std::exp(4.0) * 0.1, 1e-14);
    QCOMPARE(g->level().delta, 1.0);
    const auto poly = testRegionBoundary(g->level(), 5);
    DPX_VERIFY_OK(poly);
    for (const auto& pt : *poly) {
        QCOMPARE(pt.y, 0.0);  // every (α, β) is achievable
    }
    const auto post = posteriorBound(0.3, g->level());
    DPX_VERIFY_OK(post);
    QCOMPARE(post->posterior, 1.0);
    const auto huge = groupPrivacy({5.0, 1e-6}, 1000, GroupBound::Chain);
    DPX_VERIFY_OK(huge);
    QVERIFY(huge->vacuous());
}

void TestRisk::rocHandMade() {
    // Members {3, 2}, non-members {1, 2}: AUC = P(M > N) + ½P(M = N) = (1 + 1 + 1 + ½)/4 = 0.875.
    const auto r = rocFromScores({3, 2}, {1, 2});
    DPX_VERIFY_OK(r);
    DPX_VERIFY_NEAR(r->auc, 0.875, 1e-15);
    const std::vector<std::pair<double, double>> expected{{0, 1}, {0, 0.5}, {0.5, 0}, {1, 0}};
    QCOMPARE(r->roc.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(r->roc[i].x, expected[i].first);
        QCOMPARE(r->roc[i].y, expected[i].second);
    }
    DPX_VERIFY_ERROR(rocFromScores({}, {1.0}), "score");
    DPX_VERIFY_ERROR(rocFromScores({kNaN}, {1.0}), "finite");
}

void TestRisk::rejections() {
    for (double e : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(posteriorBound(0.5, {e, 0}), "ε|epsilon");
        DPX_VERIFY_ERROR(testRegionBoundary({e, 0}, 10), "ε|epsilon");
        DPX_VERIFY_ERROR(groupPrivacy({e, 0}, 2), "ε|epsilon");
    }
    for (double d : {-0.1, 1.5, kNaN, kInf}) {
        DPX_VERIFY_ERROR(posteriorBound(0.5, {1, d}), "δ");
        DPX_VERIFY_ERROR(testRegionBoundary({1, d}, 10), "δ");
    }
    DPX_VERIFY_OK(PrivacyLevel({1, 1}).validate());    // derived levels may be vacuous...
    DPX_VERIFY_ERROR(validateUserLevel({1, 1}), "δ");  // ...user input may not
    DPX_VERIFY_OK(validateUserLevel({1, 0}));
    for (double p : {0.0, 1.0, -0.5, 2.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(posteriorBound(p, {1, 0}), "prior");
        DPX_VERIFY_ERROR(dpx::posteriorGivenAccusation(p, {1, 0}, 0.1), "prior");
    }
    for (double a : {0.0, -0.1, 1.1, kNaN}) {
        DPX_VERIFY_ERROR(dpx::posteriorGivenAccusation(0.5, {1, 0}, a), "α|false-positive");
    }
    for (double t : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(posteriorBound(0.5, {1, 1e-6}, t), "slack");
    }
    DPX_VERIFY_OK(posteriorBound(0.5, {1, 0}, kNaN));  // slack unused for pure DP
    DPX_VERIFY_ERROR(testRegionBoundary({1, 0}, 1), "points");
    DPX_VERIFY_ERROR(posteriorOverPrior({1, 0}, 0), "points");
    DPX_VERIFY_ERROR(posteriorOverEpsilon(0.5, 0, {}), "ε");
    DPX_VERIFY_ERROR(posteriorOverEpsilon(0.5, 0, {1, -1}), "ε|epsilon");
    DPX_VERIFY_ERROR(groupPrivacy({1, 0}, 0), "group");
    for (double m : {-1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(gaussianTradeoffCurve(m, 10), "μ");
    }
    TracingAttackParams p;
    p.n = 0;
    DPX_VERIFY_ERROR(p.validate(), "n ≥ 1");
    p = {};
    p.trials = 0;
    DPX_VERIFY_ERROR(p.validate(), "trial");
    p = {};
    p.candidatesPerTrial = p.n + 1;
    DPX_VERIFY_ERROR(p.validate(), "candidates");
    for (double e : {0.0, -1.0, kNaN}) {
        p = {};
        p.epsilon = e;
        DPX_VERIFY_ERROR(p.validate(), "ε");
    }
    p = {};
    p.epsilon = 1;
    for (double d : {0.0, 1.0, kNaN}) {
        p.delta = d;
        DPX_VERIFY_ERROR(p.validate(), "δ|delta");
    }
    p = {};
    p.n = 100000;
    p.d = 100000;
    DPX_VERIFY_ERROR(p.validate(), "too large");
}

QTEST_APPLESS_MAIN(TestRisk)
#include "tst_risk.moc"
