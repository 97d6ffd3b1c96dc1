// The lessons' computations (core/teaching/teaching.h) against independent references:
//  - Warner's coins: ε = ln 3 from the report probabilities written out here, and the estimate's
//    mean and variance by exact enumeration of the two binomial tallies of a fixed class;
//  - the differencing attack: the difference-of-Laplace density and tail by Gauss–Kronrod
//    quadrature of the convolution of two Laplace densities, and the bound e^ε/(e^ε + 1);
//  - the Laplace quantiles through the Laplace cdf written out here;
//  - the trade-off curve from threshold tests with α and β integrated numerically, and its place
//    inside the region f_{ε,0} of core/choosing/risk (Kairouz, Oh & Viswanath 2015).
#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/choosing/risk.h"
#include "core/ldp/protocols.h"
#include "core/teaching/teaching.h"
#include "tests/testing/quadrature.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::teaching;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// P(X = k) for X ~ Binomial(n, p), by the recurrence (no code under test).
std::vector<double> binomialPmf(int n, double p) {
    std::vector<double> pmf(static_cast<std::size_t>(n) + 1, 0.0);
    pmf[0] = 1;
    for (int i = 0; i < n; ++i) {
        for (int k = i + 1; k >= 1; --k) {
            pmf[static_cast<std::size_t>(k)] = pmf[static_cast<std::size_t>(k)] * (1 - p) +
                                               pmf[static_cast<std::size_t>(k - 1)] * p;
        }
        pmf[0] *= (1 - p);
    }
    return pmf;
}

double laplaceCdf(double x, double b) {
    return x < 0 ? 0.5 * std::exp(x / b) : 1 - 0.5 * std::exp(-x / b);
}

}  // namespace

class TstTeaching : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fairCoinsGiveLn3() {
        // P(yes | yes) = ½ + ½·½ = ¾, P(yes | no) = ½·½ = ¼: the ratio is 3 for both reports.
        const double eps = std::log((0.5 + 0.25) / 0.25);
        auto e = coinProtocolEpsilon(0.5);
        DPX_VERIFY_OK(e);
        DPX_VERIFY_NEAR(*e, std::log(3.0), 1e-15);
        DPX_VERIFY_NEAR(*e, eps, 1e-15);
        // The protocol is core/ldp's binary randomized response at that ε: keep w.p. ¾.
        auto c = ldp::oracleConstants({ldp::Protocol::RR, *e, 2, 1});
        DPX_VERIFY_OK(c);
        DPX_VERIFY_NEAR(c->p, 0.75, 1e-15);
        DPX_VERIFY_NEAR(c->q, 0.25, 1e-15);
        // A biased first coin h = 0.8: P(yes|yes) = 0.9, P(yes|no) = 0.1, ε = ln 9.
        DPX_VERIFY_NEAR(*coinProtocolEpsilon(0.8), std::log(9.0), 1e-14);
    }

    void badCoinsAreRefused() {
        DPX_VERIFY_ERROR(coinProtocolEpsilon(1), "between 0 and 1");
        DPX_VERIFY_ERROR(coinProtocolEpsilon(0), "between 0 and 1");
        DPX_VERIFY_ERROR(coinProtocolEpsilon(kNaN), "between 0 and 1");
        DPX_VERIFY_ERROR(estimateTally(0, 0), "at least 1");
        DPX_VERIFY_ERROR(estimateTally(10, 11), "cannot exceed");
        DPX_VERIFY_ERROR(flipCoins(0, 0.5, 0.5, 1), "1 to 1,000,000");
        DPX_VERIFY_ERROR(flipCoins(10, 1.5, 0.5, 1), "[0, 1]");
    }

    void tallyEstimateByHand() {
        // 100 people, 40 yes reports: π̂ = (0.40 − 0.25)/0.5 = 0.3, Var = 3/(4·100).
        auto t = estimateTally(100, 40);
        DPX_VERIFY_OK(t);
        DPX_VERIFY_NEAR(t->estimate, 0.3, 1e-14);
        DPX_VERIFY_NEAR(t->standardError, std::sqrt(0.0075), 1e-14);
        DPX_VERIFY_NEAR(t->low, 0.3 - 1.959963984540054 * std::sqrt(0.0075), 1e-14);
        DPX_VERIFY_NEAR(t->high, 0.3 + 1.959963984540054 * std::sqrt(0.0075), 1e-14);
        DPX_VERIFY_NEAR(t->epsilon, std::log(3.0), 1e-15);
        // Few yes reports give a negative unbiased estimate; it is not clipped.
        DPX_VERIFY_NEAR(estimateTally(10, 1)->estimate, -0.3, 1e-14);
    }

    void tallyEstimateIsUnbiasedWithTheStatedVariance() {
        // A fixed class of n with k truly yes: yes reports = Bin(k, ¾) + Bin(n − k, ¼). Enumerate
        // both binomials exactly and compare E[π̂] with k/n and Var[π̂] with standardError².
        const int n = 24;
        for (const int k : {0, 5, 12, 24}) {
            const auto a = binomialPmf(k, 0.75);
            const auto b = binomialPmf(n - k, 0.25);
            double mean = 0, second = 0;
            for (std::size_t i = 0; i < a.size(); ++i) {
                for (std::size_t j = 0; j < b.size(); ++j) {
                    auto t = estimateTally(n, i + j);
                    QVERIFY(t.hasValue());
                    mean += a[i] * b[j] * t->estimate;
                    second += a[i] * b[j] * t->estimate * t->estimate;
                }
            }
            DPX_VERIFY_NEAR(mean, static_cast<double>(k) / n, 1e-12);
            DPX_VERIFY_NEAR(second - mean * mean,
                            estimateTally(n, 0)->standardError * estimateTally(n, 0)->standardError,
                            1e-12);
        }
    }

    void coinsFollowTheProtocol() {
        auto people = flipCoins(2000, 0.3, 0.5, 7);
        DPX_VERIFY_OK(people);
        auto again = flipCoins(2000, 0.3, 0.5, 7);
        std::size_t truths = 0, yesGivenYes = 0, yesGivenNo = 0;
        for (std::size_t i = 0; i < people->size(); ++i) {
            const Person& p = (*people)[i];
            QCOMPARE(p.report, (*again)[i].report);  // the seed fixes the class
            truths += p.truth ? 1 : 0;
            QCOMPARE(p.secondCoinFlipped, !p.firstCoinHeads);
            QCOMPARE(p.report, p.firstCoinHeads ? p.truth : p.secondCoinHeads);
            (p.truth ? yesGivenYes : yesGivenNo) += p.report ? 1 : 0;
        }
        QCOMPARE(truths, std::size_t{600});
        // ¾ of 600 and ¼ of 1400, within 5 standard deviations of the binomials.
        QVERIFY(std::abs(static_cast<double>(yesGivenYes) - 450) < 5 * std::sqrt(600 * 0.1875));
        QVERIFY(std::abs(static_cast<double>(yesGivenNo) - 350) < 5 * std::sqrt(1400 * 0.1875));
    }

    void differenceOfLaplaceByQuadrature() {
        for (const double b : {0.1, 1.0, 10.0}) {
            for (const double w : {0.0, 0.3, 1.0, 4.0, -2.5}) {
                // f_W(w) = ∫ f(x) f(x − w) dx, split at the kinks 0 and w.
                const double conv = dpxtest::integrateSplit(
                    [&](double x) {
                        return dpxtest::laplacePdf(x, b) * dpxtest::laplacePdf(x - w, b);
                    },
                    {0.0, w});
                DPX_VERIFY_REL(laplaceDifferenceDensity(b, w), conv, 1e-9);
            }
            for (const double t : {0.0, 0.5, 2.0, -0.5}) {
                const double tail = dpxtest::integrateSplit(
                    [&](double w) { return laplaceDifferenceDensity(b, w); }, {0.0}, t);
                DPX_VERIFY_REL(laplaceDifferenceSurvival(b, t), tail, 1e-9);
            }
        }
    }

    void differencingAttackAtTheLessonsEpsilons() {
        for (const double eps : {0.1, 1.0, 10.0}) {
            auto a = differencingAttack(eps);
            DPX_VERIFY_OK(a);
            const double b = 1 / eps;
            // P(guess right) = ½ P(1 + W > ½) + ½ P(W ≤ ½) = P(W ≤ ½), integrated.
            const double right =
                dpxtest::integrateSplit([&](double w) { return laplaceDifferenceDensity(b, w); },
                                        {0.0}, -std::numeric_limits<double>::infinity(), 0.5);
            DPX_VERIFY_REL(a->successProbability, right, 1e-9);
            DPX_VERIFY_NEAR(a->posteriorBound, std::exp(eps) / (std::exp(eps) + 1), 1e-12);
            QVERIFY(a->successProbability <= a->posteriorBound);
            QVERIFY(a->successProbability > 0.5);
        }
        // ε = 1 by hand: 1 − ½e^{−½}(1 + ¼).
        DPX_VERIFY_NEAR(differencingAttack(1)->successProbability, 1 - 0.5 * std::exp(-0.5) * 1.25,
                        1e-15);
        DPX_VERIFY_ERROR(differencingAttack(0), "ε");
    }

    void quantilesAndLikelihoodRatio() {
        auto q = laplaceQuantiles(40, 2, 50);
        DPX_VERIFY_OK(q);
        QCOMPARE(q->size(), std::size_t{50});
        for (std::size_t i = 0; i < q->size(); ++i) {
            DPX_VERIFY_NEAR(laplaceCdf((*q)[i] - 40, 2), (static_cast<double>(i) + 0.5) / 50,
                            1e-12);
            DPX_VERIFY_NEAR((*q)[i] - 40, 40 - (*q)[q->size() - 1 - i], 1e-12);
        }
        DPX_VERIFY_ERROR(laplaceQuantiles(40, 0, 50), "scale");
        DPX_VERIFY_ERROR(laplaceQuantiles(40, 1, 0), "1 to 1000");
        for (const double o : {-5.0, 40.0, 40.5, 41.0, 47.0}) {
            const double ratio =
                std::log(dpxtest::laplacePdf(o - 41, 2) / dpxtest::laplacePdf(o - 40, 2));
            DPX_VERIFY_NEAR(laplaceLogLikelihoodRatio(2, 40, o), ratio, 1e-12);
            QVERIFY(std::abs(laplaceLogLikelihoodRatio(2, 40, o)) <= 0.5 + 1e-15);
        }
    }

    void tradeoffCurveFromThresholdTests() {
        for (const double eps : {0.1, 1.0, 3.0}) {
            const double b = 1 / eps;
            for (const double t : {-3.0, -0.2, 0.0, 0.4, 1.0, 1.7, 5.0}) {
                // Test "member" when o > t: α under D' (Laplace at 0), β under D (at 1).
                const double alpha = dpxtest::integrateSplit(
                    [&](double x) { return dpxtest::laplacePdf(x, b); }, {0.0}, t);
                const double beta =
                    dpxtest::integrateSplit([&](double x) { return dpxtest::laplacePdf(x - 1, b); },
                                            {1.0}, -std::numeric_limits<double>::infinity(), t);
                DPX_VERIFY_NEAR(laplaceTradeoff(eps, alpha), beta, 1e-9);
            }
            auto curve = laplaceTradeoffCurve(eps, 101);
            DPX_VERIFY_OK(curve);
            DPX_VERIFY_NEAR(curve->front().y, 1, 1e-15);
            DPX_VERIFY_NEAR(curve->back().y, 0, 1e-15);
            for (const XYPoint& p : *curve) {
                // Inside the ε-DP region; on its edge for α ≤ e^{−ε}/2 and α ≥ ½.
                QVERIFY(p.y >= tradeoffEpsDelta(eps, 0, p.x) - 1e-12);
                if (p.x <= std::exp(-eps) / 2 || p.x >= 0.5) {
                    DPX_VERIFY_NEAR(p.y, tradeoffEpsDelta(eps, 0, p.x), 1e-12);
                }
            }
            const double kink = std::exp(-eps) / 2;
            DPX_VERIFY_NEAR(laplaceTradeoff(eps, kink), tradeoffEpsDelta(eps, 0, kink), 1e-12);
            DPX_VERIFY_NEAR(laplaceTradeoff(eps, 0.5), tradeoffEpsDelta(eps, 0, 0.5), 1e-12);
            // Strictly inside in between.
            QVERIFY(laplaceTradeoff(eps, 0.3 * kink + 0.35) >
                    tradeoffEpsDelta(eps, 0, 0.3 * kink + 0.35));
        }
        DPX_VERIFY_ERROR(laplaceTradeoffCurve(1, 1), "2 to 100,000");
        DPX_VERIFY_ERROR(laplaceTradeoffCurve(-1, 10), "ε");
    }
};

QTEST_APPLESS_MAIN(TstTeaching)
#include "tst_teaching.moc"
