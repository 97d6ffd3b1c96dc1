// The lessons' computations (core/teaching/teaching.h) against independent references:
//  - Warner's coins: ε = ln 3 from the report probabilities written out here, and the estimate's
//    mean and variance by exact enumeration of the two binomial tallies of a fixed class;
//  - the differencing attack: the difference-of-Laplace density and tail by Gauss–Kronrod
//    quadrature of the convolution of two Laplace densities, and the bound e^ε/(e^ε + 1);
//  - the Laplace quantiles through the Laplace cdf written out here;
//  - the trade-off curve from threshold tests with α and β integrated numerically, and its place
//    inside the region f_{ε,0} of core/choosing/risk (Kairouz, Oh & Viswanath 2015);
//  - the sum of n Laplace variables (lesson 4) by repeated convolution (quadrature), Monte Carlo
//    and the Berry–Esseen bound, and the repeated-question attack simulated in full;
//  - the membership lesson's no-noise AUC against a normal approximation and an independent
//    simulation, and its noisy ROC inside the (ε, δ) region within the DKW sampling error.
#include <QTest>

#include <boost/math/special_functions/gamma.hpp>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
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

    void sumOfLaplaceByConvolution() {
        // n = 1 and 2 against the Laplace density and lesson 2's difference density.
        for (const double b : {0.5, 2.0}) {
            for (const double s : {0.0, 0.7, -3.0, 9.0}) {
                DPX_VERIFY_REL(laplaceSumDensity(1, b, s), dpxtest::laplacePdf(s, b), 1e-12);
                DPX_VERIFY_REL(laplaceSumDensity(2, b, s), laplaceDifferenceDensity(b, s), 1e-12);
                DPX_VERIFY_REL(laplaceSumSurvival(2, b, s), laplaceDifferenceSurvival(b, s), 1e-12);
            }
        }
        // n = 3 … 6: f_n = f_{n−1} * Laplace(b) by quadrature (induction from n = 2), and the tail
        // as the integral of the density.
        const double b = 1.5;
        for (std::size_t n = 3; n <= 6; ++n) {
            for (const double s : {0.0, 0.4, 2.0, -5.0, 12.0}) {
                const double conv = dpxtest::integrateSplit(
                    [&](double x) {
                        return laplaceSumDensity(n - 1, b, x) * dpxtest::laplacePdf(s - x, b);
                    },
                    {0.0, s});
                DPX_VERIFY_REL(laplaceSumDensity(n, b, s), conv, 1e-9);
            }
            for (const double t : {0.0, 1.0, 4.0, -2.0}) {
                const double tail = dpxtest::integrateSplit(
                    [&](double x) { return laplaceSumDensity(n, b, x); }, {0.0}, t);
                DPX_VERIFY_REL(laplaceSumSurvival(n, b, t), tail, 1e-9);
            }
        }
        // Large n: the tail against a Monte Carlo of sums of 2k Laplace draws (std::mt19937_64,
        // not the code under test), within 5 standard errors.
        std::mt19937_64 gen(2029);
        std::exponential_distribution<double> expo(1.0);
        const std::size_t n = 128;
        const double t = 12;
        const int draws = 40000;
        int above = 0;
        for (int i = 0; i < draws; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < n; ++j) {
                sum += b * (expo(gen) - expo(gen));  // Laplace(b) = difference of two Exp(b)
            }
            above += sum > t ? 1 : 0;
        }
        const double p = laplaceSumSurvival(n, b, t);
        QVERIFY(std::abs(static_cast<double>(above) / draws - p) <
                5 * std::sqrt(p * (1 - p) / draws));
        // n = 2000: within the Berry–Esseen distance of the normal tail (C ≤ 0.4748, Shevtsova
        // 2011; E|X|³/σ³ = 6b³/(2b²)^{3/2} for Laplace), and monotone in t.
        const double sd = std::sqrt(2000 * 2.0) * b;
        const double normalTail = 0.5 * std::erfc(40 / sd / std::numbers::sqrt2);
        DPX_VERIFY_NEAR(laplaceSumSurvival(2000, b, 40), normalTail,
                        0.4748 * 6 / std::pow(2, 1.5) / std::sqrt(2000.0));
        QVERIFY(laplaceSumSurvival(2000, b, 40) > laplaceSumSurvival(2000, b, 41));
        // The recurrences against the mixture written with Boost's incomplete gamma function and
        // lgamma term by term, up to n = 2048 (lesson 4's k = 1024) and far into the tails.
        for (const std::size_t m : {7u, 200u, 2048u}) {
            for (const double u : {0.3, 5.0, 60.0, 900.0, 3000.0}) {
                double tail = 0, dens = 0;
                for (std::size_t j = 0; j < m; ++j) {
                    const double mm = static_cast<double>(m), jj = static_cast<double>(j);
                    const double c =
                        std::exp(std::lgamma(2 * mm - 1 - jj) - std::lgamma(mm) -
                                 std::lgamma(mm - jj) - (2 * mm - 1 - jj) * std::log(2.0));
                    tail += c * boost::math::gamma_q(jj + 1, u);
                    dens += c * boost::math::gamma_p_derivative(jj + 1, u);
                }
                if (tail > 1e-300) {
                    DPX_VERIFY_REL(laplaceSumSurvival(m, b, u * b), tail, 1e-10);
                }
                if (dens > 1e-300) {
                    DPX_VERIFY_REL(laplaceSumDensity(m, b, u * b), dens / b, 1e-10);
                }
            }
        }
    }

    void repeatedQuestionsWithoutAndWithABudget() {
        const double eps = 0.5;
        // k = 1 is lesson 2's attack.
        auto one = repeatedQueryAttack(eps, 1, QueryBudget::FreshEachAnswer);
        DPX_VERIFY_OK(one);
        DPX_VERIFY_NEAR(one->successProbability, differencingAttack(eps)->successProbability,
                        1e-13);
        double previous = one->successProbability;
        for (const std::size_t k : {4u, 16u, 64u, 256u, 1024u}) {
            auto fresh = repeatedQueryAttack(eps, k, QueryBudget::FreshEachAnswer);
            auto total = repeatedQueryAttack(eps, k, QueryBudget::OneTotal);
            DPX_VERIFY_OK(fresh);
            DPX_VERIFY_OK(total);
            const double kk = static_cast<double>(k);
            // Without a budget the attack improves with k and the loss adds up.
            QVERIFY(fresh->successProbability > previous);
            previous = fresh->successProbability;
            DPX_VERIFY_REL(fresh->basicEpsilon, kk * eps, 1e-15);
            const double rho = kk * eps * eps / 2;
            DPX_VERIFY_REL(fresh->zcdpRho, rho, 1e-15);
            DPX_VERIFY_REL(fresh->zcdpEpsilon, rho + 2 * std::sqrt(rho * std::log(1e6)), 1e-14);
            // With one total budget: ε/k each, ε in all, never above the posterior bound of ε.
            DPX_VERIFY_REL(total->epsilonPerAnswer, eps / kk, 1e-15);
            QVERIFY(total->basicEpsilon <= eps);
            DPX_VERIFY_NEAR(total->posteriorBound, std::exp(eps) / (std::exp(eps) + 1), 1e-12);
            QVERIFY(total->successProbability <= total->posteriorBound);
            QVERIFY(total->successProbability <= one->successProbability + 1e-12);
            QVERIFY(total->successProbability > 0.5);
        }
        // The normal approximation at k = 1024: D̄ − bit has sd √(2k)·√2·b/k = 2b/√k.
        const double sd = 2 * 2 / std::sqrt(1024.0);
        DPX_VERIFY_NEAR(previous, 0.5 * std::erfc(-0.5 / sd / std::numbers::sqrt2), 0.01);

        // The whole attack simulated (std::mt19937_64): k pairs of noisy counts, average the
        // differences, guess "has it" above ½; success within 5 standard errors.
        std::mt19937_64 gen(7);
        std::exponential_distribution<double> expo(1.0);
        for (const auto budget : {QueryBudget::FreshEachAnswer, QueryBudget::OneTotal}) {
            const std::size_t k = 16;
            auto a = repeatedQueryAttack(eps, k, budget);
            DPX_VERIFY_OK(a);
            const double b = budget == QueryBudget::OneTotal ? 16 / eps : 1 / eps;
            const int runs = 20000;
            int right = 0;
            for (int r = 0; r < runs; ++r) {
                const bool has = r % 2 == 0;
                double diffs = 0;
                for (std::size_t j = 0; j < k; ++j) {
                    const double withAll = 42 + b * (expo(gen) - expo(gen));
                    const double withoutAlice = (has ? 41 : 42) + b * (expo(gen) - expo(gen));
                    diffs += withAll - withoutAlice;
                }
                right += ((diffs / static_cast<double>(k) > 0.5) == has) ? 1 : 0;
            }
            const double p = a->successProbability;
            QVERIFY2(
                std::abs(static_cast<double>(right) / runs - p) < 5 * std::sqrt(p * (1 - p) / runs),
                qPrintable(QStringLiteral("%1 vs %2").arg(right / double(runs)).arg(p)));
        }
        DPX_VERIFY_ERROR(repeatedQueryAttack(0, 4, QueryBudget::FreshEachAnswer), "ε");
        DPX_VERIFY_ERROR(repeatedQueryAttack(1, 0, QueryBudget::FreshEachAnswer), "1 to 10000");
        DPX_VERIFY_ERROR(repeatedQueryAttack(1, 10001, QueryBudget::OneTotal), "1 to 10000");
    }

    void membershipBaselineAndNoisyRoc() {
        TracingAttackParams p;
        p.n = 100;
        p.d = 1000;
        p.trials = 10;
        p.candidatesPerTrial = 50;
        p.epsilon = 1;
        p.delta = 1e-6;
        p.seed = 3;
        auto m = membershipDemo(p);
        DPX_VERIFY_OK(m);
        // No noise: the AUC against the normal approximation of the scores (independent of the
        // simulation): over coordinates, E[1 − μ²] = 2/3 and E[(1 − μ²)²] = 8/15 for μ ~ U[−1, 1];
        // a member's score exceeds a non-member's by d·(2/3)/n on average, each score has variance
        // ≈ d·(8/15)/n, so AUC ≈ Φ(Δ/√(2 var)). Tolerance: MC error of 1000 scores plus the
        // approximation (checked against the independent simulation below).
        const double delta = 1000.0 * 2 / 3 / 100, var = 1000.0 * 8 / 15 / 100;
        const double aucNormal = 0.5 * std::erfc(-delta / std::sqrt(2 * var) / std::numbers::sqrt2);
        DPX_VERIFY_NEAR(m->noNoise.auc, aucNormal, 0.02);
        QVERIFY(m->noNoise.auc > 0.95);
        // The same attack written out here (std::mt19937_64): AUC by counting pairs.
        {
            std::mt19937_64 gen(11);
            std::uniform_real_distribution<double> u(0, 1);
            std::vector<double> mem, non;
            for (int trial = 0; trial < 10; ++trial) {
                std::vector<double> mu(1000), mean(1000, 0.0);
                std::vector<std::vector<double>> rows(100, std::vector<double>(1000));
                for (auto& x : mu)
                    x = 2 * u(gen) - 1;
                for (auto& row : rows) {
                    for (std::size_t k = 0; k < 1000; ++k) {
                        row[k] = u(gen) < 0.5 * (1 + mu[k]) ? 1 : -1;
                        mean[k] += row[k] / 100;
                    }
                }
                for (int i = 0; i < 50; ++i) {
                    double zm = 0, zn = 0;
                    for (std::size_t k = 0; k < 1000; ++k) {
                        const double y = u(gen) < 0.5 * (1 + mu[k]) ? 1 : -1;
                        zm += (mean[k] - mu[k]) * (rows[static_cast<std::size_t>(i)][k] - mu[k]);
                        zn += (mean[k] - mu[k]) * (y - mu[k]);
                    }
                    mem.push_back(zm);
                    non.push_back(zn);
                }
            }
            double wins = 0;
            for (double a : mem) {
                for (double b : non) {
                    wins += a > b ? 1 : (a == b ? 0.5 : 0);
                }
            }
            const double aucBrute = wins / static_cast<double>(mem.size() * non.size());
            // Two independent estimates from 500 + 500 scores each (correlated within a
            // dataset): 0.02 is > 4 of their combined standard errors at AUC ≈ 0.98.
            DPX_VERIFY_NEAR(m->noNoise.auc, aucBrute, 0.02);
        }
        // With noise at (1, 1e-6): the ROC inside the DP region within sampling error (DKW: the
        // empirical rates of 500 scores are within √(ln(2/γ)/(2·500)) of the true rates at every
        // threshold, except with probability γ = 1e-6; f is non-increasing).
        const double slack = std::sqrt(std::log(2 / 1e-6) / (2 * 500.0));
        for (const XYPoint& pt : m->noisy.roc) {
            const double f = tradeoffEpsDelta(1, 1e-6, std::min(1.0, pt.x + slack));
            QVERIFY2(pt.y + slack >= f, qPrintable(QStringLiteral("(%1, %2)").arg(pt.x).arg(pt.y)));
        }
        QVERIFY(m->noisy.auc < m->noNoise.auc);
        QVERIFY(m->noisy.auc <= m->maxAuc + 2 * slack);
        DPX_VERIFY_NEAR(m->maxAuc, *maxAuc({1, 1e-6}), 0);
        QCOMPARE(m->testRegion.front().x, 0.0);
        QVERIFY(std::isinf(m->noNoise.sigma) == false && m->noNoise.sigma == 0);
        QVERIFY(m->noisy.sigma > 0);
        p.epsilon = std::numeric_limits<double>::infinity();
        DPX_VERIFY_ERROR(membershipDemo(p), "finite");
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
