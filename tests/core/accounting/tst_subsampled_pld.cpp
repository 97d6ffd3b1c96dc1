// The accountants of Poisson-subsampled mechanisms (issue #22, AccountedMechanism::samplingRate)
// against references computed here independently of core/accounting:
//  - one subsampled Gaussian: the hockey-stick divergences of the remove pair (qP + (1−q)Q, Q) and
//    the add pair (Q, qP + (1−q)Q), P = N(1, σ²), Q = N(0, σ²), by adaptive quadrature of
//    ∫(p − e^ε q)₊ and in closed form through the crossing point of the likelihood ratio; the PLD's
//    bounds bracket the larger one (Zhu, Dong & Wang 2022 Thm 11);
//  - one subsampled Laplace by quadrature (the ratio is piecewise, crossings solved in closed
//  form);
//  - k-fold subsampled binary randomized response and one subsampled discrete Gaussian by brute
//    force over the outcomes (both directions);
//  - q → 1 gives the mechanism without sampling;
//  - property tests on seeded random plans with subsampled items: PLD lower ≤ PLD upper ≤ Rényi,
//    and every accountant's ε does not increase when q shrinks;
//  - a DP-SGD-like plan (q = 0.01, σ = 1.1, 1 000 steps, δ = 1e-5): PLD against the Rényi DP of
//    Mironov, Talwar & Zhang 2019 (the same mechanism, a looser accountant), the numbers printed;
//  - basic composition: subsampled pure mechanisms at ln(1 + q(e^ε − 1)) each.
#include <QTest>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "core/accounting/accountant.h"
#include "core/accounting/plan_accounting.h"
#include "core/accounting/privacy_loss.h"
#include "core/accounting/renyi.h"
#include "core/accounting/subsampling.h"
#include "tests/testing/quadrature.h"

using namespace dpx;
using namespace dpx::accounting;

namespace {

double phiBar(double x) {  // Pr[Z > x]
    return 0.5 * std::erfc(x / std::numbers::sqrt2);
}

double normalPdf(double x, double mean, double sigma) {
    const double z = (x - mean) / sigma;
    return std::exp(-0.5 * z * z) / (sigma * std::sqrt(2 * std::numbers::pi));
}

// Closed form: remove ∫_{y*}^∞ (M − e^ε Q), y* where M/Q = e^ε; add ∫_{−∞}^{y'} (Q − e^ε M).
double gaussianSubsampledDelta(double q, double sigma, double eps, bool remove) {
    const double s2 = sigma * sigma;
    if (remove) {
        const double y = s2 * std::log((std::expm1(eps) + q) / q) + 0.5;
        return q * phiBar((y - 1) / sigma) + (1 - q - std::exp(eps)) * phiBar(y / sigma);
    }
    const double t = std::expm1(-eps) + q;  // e^{−ε} − (1 − q)
    if (t <= 0) {
        return 0;
    }
    const double y = s2 * std::log(t / q) + 0.5;
    return phiBar(-y / sigma) -
           std::exp(eps) * (q * phiBar(-(y - 1) / sigma) + (1 - q) * phiBar(-y / sigma));
}

// Quadrature of the same, from the densities only.
double gaussianSubsampledDeltaQuad(double q, double sigma, double eps, bool remove) {
    auto f = [&](double y) {
        const double qq = normalPdf(y, 0, sigma);
        const double m = q * normalPdf(y, 1, sigma) + (1 - q) * qq;
        return remove ? std::max(0.0, m - std::exp(eps) * qq)
                      : std::max(0.0, qq - std::exp(eps) * m);
    };
    std::vector<double> breaks{0, 0.5, 1};
    const double up = std::expm1(eps) + q, down = std::expm1(-eps) + q;
    breaks.push_back(sigma * sigma * std::log(up / q) + 0.5);
    if (down > 0) {
        breaks.push_back(sigma * sigma * std::log(down / q) + 0.5);
    }
    return dpxtest::integrateSplit(f, breaks, -60 * sigma - 20, 60 * sigma + 20);
}

double laplaceSubsampledDeltaQuad(double q, double b, double eps, bool remove) {
    auto f = [&](double y) {
        const double qq = dpxtest::laplacePdf(y, b);
        const double m = q * dpxtest::laplacePdf(y - 1, b) + (1 - q) * qq;
        return remove ? std::max(0.0, m - std::exp(eps) * qq)
                      : std::max(0.0, qq - std::exp(eps) * m);
    };
    // P/Q = e^{(2y−1)/b} on (0, 1): crossings of M/Q with e^{±ε} there.
    std::vector<double> breaks{0, 1};
    for (double t : {std::expm1(eps) + q, std::expm1(-eps) + q}) {
        if (t > 0) {
            breaks.push_back((b * std::log(t / q) + 1) / 2);
        }
    }
    return dpxtest::integrateSplit(f, breaks, -200 * b, 200 * b);
}

double binomial(int n, int k) {
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0));
}

// k-fold binary RR at ε0 subsampled at q: the outcome count j of "1"s is sufficient.
double rrSubsampledDelta(double q, double eps0, int k, double eps, bool remove) {
    const double p = 1 / (1 + std::exp(-eps0));
    const double m1 = q * p + (1 - q) * (1 - p), q1 = 1 - p;
    double s = 0;
    for (int j = 0; j <= k; ++j) {
        const double pm = std::pow(m1, j) * std::pow(1 - m1, k - j);
        const double pq = std::pow(q1, j) * std::pow(1 - q1, k - j);
        s += binomial(k, j) *
             std::max(0.0, remove ? pm - std::exp(eps) * pq : pq - std::exp(eps) * pm);
    }
    return s;
}

// One discrete Gaussian N_Z(0, σ²) with Δ = 1, subsampled: sum over the support.
double discreteGaussianSubsampledDelta(double q, double sigma, double eps, bool remove) {
    const int cut = static_cast<int>(std::ceil(20 * sigma)) + 2;
    double z = 0;
    for (int x = -cut; x <= cut; ++x) {
        z += std::exp(-x * x / (2 * sigma * sigma));
    }
    auto pmf = [&](int x) { return std::exp(-x * x / (2 * sigma * sigma)) / z; };
    double s = 0;
    for (int y = -cut; y <= cut + 1; ++y) {
        const double qq = pmf(y);
        const double m = q * pmf(y - 1) + (1 - q) * qq;
        s += std::max(0.0, remove ? m - std::exp(eps) * qq : qq - std::exp(eps) * m);
    }
    return s;
}

PldAccount pld(const std::vector<AccountedMechanism>& m, double h = 1e-4) {
    PldOptions o;
    o.interval = h;
    auto p = PldAccount::compose(m, o);
    if (!p) {
        qFatal("%s", p.error().message.c_str());
    }
    return std::move(*p);
}

void bracket(const PldAccount& a, double eps, double truth, double slack, const char* what) {
    const PldBounds b = a.delta(eps);
    QVERIFY2(b.lower <= truth + 1e-12 && truth <= b.upper + 1e-12,
             (std::string(what) + " ε=" + std::to_string(eps) + ": " + std::to_string(b.lower) +
              " ≤ " + std::to_string(truth) + " ≤ " + std::to_string(b.upper) + " fails")
                 .c_str());
    QVERIFY2(b.upper - b.lower <= slack,
             (std::string(what) + ": bounds " + std::to_string(b.lower) + ", " +
              std::to_string(b.upper) + " too far apart")
                 .c_str());
}

}  // namespace

class TestSubsampledPld : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void referencesAgree() {
        // The closed form and the quadrature of the Gaussian pair agree (both directions).
        for (double q : {0.01, 0.2, 0.7}) {
            for (double eps : {0.0, 0.05, 0.3, 1.0}) {
                for (bool remove : {true, false}) {
                    const double c = gaussianSubsampledDelta(q, 1.3, eps, remove);
                    const double n = gaussianSubsampledDeltaQuad(q, 1.3, eps, remove);
                    QVERIFY2(std::abs(c - n) <= 1e-10,
                             (std::to_string(c) + " vs " + std::to_string(n)).c_str());
                }
            }
        }
    }

    void gaussianBracketsTheTruth() {
        for (double q : {0.01, 0.1, 0.5}) {
            for (double sigma : {0.7, 1.1, 3.0}) {
                const PldAccount a = pld({subsampled(gaussianLoss(sigma), q)});
                QVERIFY(a.addUpper.has_value());
                for (double eps : {0.0, 0.01, 0.1, 0.5, 1.5}) {
                    const double truth = std::max(gaussianSubsampledDelta(q, sigma, eps, true),
                                                  gaussianSubsampledDelta(q, sigma, eps, false));
                    bracket(a, eps, truth, 1e-3, "Gaussian");
                }
                // The remove direction is the worse one for ε ≥ 0 here; the add direction alone
                // is computed too (its δ is the add pair's).
                const double addOnly = a.addUpper->delta(0.05);
                QVERIFY(addOnly + 1e-12 >= gaussianSubsampledDelta(q, sigma, 0.05, false));
            }
        }
    }

    void laplaceBracketsTheTruth() {
        for (double q : {0.02, 0.3}) {
            for (double b : {0.5, 2.0}) {
                const PldAccount a = pld({subsampled(laplaceLoss(b), q)});
                for (double eps : {0.0, 0.02, 0.2, 1.0}) {
                    const double truth = std::max(laplaceSubsampledDeltaQuad(q, b, eps, true),
                                                  laplaceSubsampledDeltaQuad(q, b, eps, false));
                    bracket(a, eps, truth, 2e-3, "Laplace");
                }
                // Pure DP: δ = 0 from the amplified ε' on (Li, Qardaji & Su 2012).
                const double e1 = std::log1p(q * std::expm1(1 / b));
                QVERIFY(a.delta(e1 + 2e-4).upper <= 1e-12);
            }
        }
    }

    void discreteMechanismsByBruteForce() {
        for (double q : {0.05, 0.5}) {
            for (int k : {1, 3, 12}) {
                const PldAccount a = pld({subsampled(randomizedResponseLoss(1.2, 2, k), q)});
                for (double eps : {0.0, 0.1, 0.4, 1.0}) {
                    const double truth = std::max(rrSubsampledDelta(q, 1.2, k, eps, true),
                                                  rrSubsampledDelta(q, 1.2, k, eps, false));
                    bracket(a, eps, truth, 1e-2, "randomized response");
                }
            }
            const PldAccount g = pld({subsampled(discreteGaussianLoss(1.5), q)});
            for (double eps : {0.0, 0.1, 0.5}) {
                const double truth = std::max(discreteGaussianSubsampledDelta(q, 1.5, eps, true),
                                              discreteGaussianSubsampledDelta(q, 1.5, eps, false));
                bracket(g, eps, truth, 2e-3, "discrete Gaussian");
            }
        }
    }

    void fullRateIsTheMechanism() {
        const double q = 1 - 1e-9;
        for (const AccountedMechanism& m :
             {gaussianLoss(1.2, 1, 3), laplaceLoss(1.5, 1, 2), randomizedResponseLoss(0.8, 3, 4),
              geometricLoss(0.6, 2, 2), discreteGaussianLoss(2, 1, 2)}) {
            const PldAccount plain = pld({m});
            const PldAccount sampled = pld({subsampled(m, q)});
            for (double eps : {0.1, 0.5, 1.0}) {
                const double ref = plain.delta(eps).upper;
                QVERIFY2(std::abs(sampled.delta(eps).upper - ref) <= 5e-4 * std::max(ref, 1e-3),
                         (m.describe() + ": " + std::to_string(sampled.delta(eps).upper) + " vs " +
                          std::to_string(ref))
                             .c_str());
            }
        }
    }

    void orderingOnRandomPlans() {
        std::mt19937_64 rng(20261128);
        std::uniform_real_distribution<double> unit(0, 1);
        PldOptions coarse;
        coarse.interval = 1e-3;  // quick; the bounds are ≈ (number of uses)·h apart
        for (int trial = 0; trial < 6; ++trial) {
            std::vector<AccountedMechanism> plan;
            const int items = 1 + static_cast<int>(unit(rng) * 3);
            for (int i = 0; i < items; ++i) {
                const double q = unit(rng) < 0.3 ? 1.0 : std::pow(10, -2 * unit(rng));
                const auto count = 1 + static_cast<std::int64_t>(unit(rng) * 20);
                AccountedMechanism m = unit(rng) < 0.5 ? gaussianLoss(1 + 3 * unit(rng), 1, count)
                                                       : laplaceLoss(0.5 + 4 * unit(rng), 1, count);
                plan.push_back(subsampled(m, q));
            }
            auto acc = PlanAccountant::create(plan, coarse).value();
            // Halving every rate never increases any accountant's ε.
            std::vector<AccountedMechanism> half = plan;
            for (auto& m : half) {
                m.samplingRate /= 2;
            }
            auto accHalf = PlanAccountant::create(half, coarse).value();
            for (double delta : {1e-5, 1e-8}) {
                const auto p = acc.epsilon(Accountant::Pld, delta).value();
                const auto r = acc.epsilon(Accountant::Renyi, delta).value();
                const auto z = acc.epsilon(Accountant::Zcdp, delta).value();
                QVERIFY(*p.lower <= p.value);
                // PLD ≤ Rényi ≤ zCDP, up to the PLD grid.
                QVERIFY2(p.value <= r.value + 1e-2,
                         (std::to_string(p.value) + " > Rényi " + std::to_string(r.value)).c_str());
                QVERIFY(r.value <= z.value + 1e-12);
                for (Accountant a : kAllAccountants) {
                    const double e = acc.epsilon(a, delta).value().value;
                    const double eh = accHalf.epsilon(a, delta).value().value;
                    QVERIFY2(eh <= e + 1e-2, (std::string(accountantName(a)) + ": " +
                                              std::to_string(eh) + " > " + std::to_string(e))
                                                 .c_str());
                }
            }
        }
    }

    void dpSgdLikePlan() {
        // q = 0.01, σ = 1.1, 1 000 steps, δ = 1e-5: the Rényi DP of Mironov, Talwar & Zhang 2019
        // (integer orders, subsampling.h) is a valid upper bound, so the PLD's lower bound must be
        // below it, and the PLD upper bound below it too (tighter accountant).
        const AccountedMechanism step = subsampled(gaussianLoss(1.1, 1, 1000), 0.01);
        const double rdp = sampledGaussianEpsilon(0.01, 1.1, 1, 1000, 1e-5).value().epsilon;
        auto acc = PlanAccountant::create({step}, PldOptions{1e-4, 1e-15, false}).value();
        const auto p = acc.epsilon(Accountant::Pld, 1e-5).value();
        const auto r = acc.epsilon(Accountant::Renyi, 1e-5).value();
        qInfo(
            "DP-SGD q=0.01 sigma=1.1 T=1000 delta=1e-5: PLD [%.4f, %.4f], Renyi accountant %.4f, "
            "MTZ integer orders %.4f",
            *p.lower, p.value, r.value, rdp);
        QVERIFY(*p.lower <= p.value);
        QVERIFY(p.value <= rdp);
        QVERIFY(r.value <= rdp + 1e-9);       // the accountant also tries the MTZ orders
        QVERIFY(p.value - *p.lower <= 0.15);  // ≈ 1 000 uses × h
        // Amplification matters: without sampling the same noise costs far more.
        const double plain = PlanAccountant::create({gaussianLoss(1.1, 1, 1000)})
                                 .value()
                                 .epsilon(Accountant::Pld, 1e-5)
                                 .value()
                                 .value;
        QVERIFY(p.value < plain / 10);
    }

    void basicAmplifiesEachUse() {
        const AccountedMechanism m = subsampled(laplaceLoss(0.5, 1, 4), 0.1);  // ε = 2 per use
        auto acc = PlanAccountant::create({m}, {}, false).value();
        const double each = std::log1p(0.1 * std::expm1(2.0));
        QVERIFY(std::abs(acc.epsilon(Accountant::Basic, 1e-6).value().value - 4 * each) <= 1e-12);
        QCOMPARE(acc.delta(Accountant::Basic, 4 * each + 1e-9).value().value, 0.0);
        // zCDP is charged the mechanism without sampling (no tight amplification theorem).
        auto plain = PlanAccountant::create({laplaceLoss(0.5, 1, 4)}, {}, false).value();
        QCOMPARE(acc.epsilon(Accountant::Zcdp, 1e-6).value().value,
                 plain.epsilon(Accountant::Zcdp, 1e-6).value().value);
        // A subsampled Gaussian under basic composition: ε shrinks, never grows.
        auto g = PlanAccountant::create({subsampled(gaussianLoss(2, 1, 10), 0.05)}, {}, false)
                     .value()
                     .epsilon(Accountant::Basic, 1e-5)
                     .value()
                     .value;
        auto g1 = PlanAccountant::create({gaussianLoss(2, 1, 10)}, {}, false)
                      .value()
                      .epsilon(Accountant::Basic, 1e-5)
                      .value()
                      .value;
        QVERIFY(g < g1);
    }

    void planStatisticsCarryTheirRate() {
        BudgetPlan plan;
        plan.total = {1, 1e-5};
        for (const char* label : {"a", "b", "c"}) {
            PlanStatistic s;
            s.label = label;
            s.bins = 4;
            s.mechanism = MechanismKind::Gaussian;
            plan.statistics.push_back(s);
        }
        plan.statistics[1].samplingRate = 0.05;
        const PlanResult result = allocatePlan(plan).value();
        const auto mechs = planMechanisms(plan, result).value();
        // a and c share the noise and no sampling: one entry × 2; b apart with its rate.
        QCOMPARE(mechs.size(), std::size_t{2});
        QCOMPARE(mechs[0].count, std::int64_t{2});
        QCOMPARE(mechs[0].samplingRate, 1.0);
        QCOMPARE(mechs[1].samplingRate, 0.05);
        // Sampling one statistic lowers every amplifying accountant's ε, never zCDP's.
        BudgetPlan none = plan;
        none.statistics[1].samplingRate = 1;
        for (Accountant a : kAllAccountants) {
            const double e = accountPlan(plan, result, a).value().epsilon->value;
            const double e1 = accountPlan(none, result, a).value().epsilon->value;
            if (a == Accountant::Zcdp) {
                QCOMPARE(e, e1);
            } else {
                QVERIFY2(e < e1, accountantName(a));
            }
        }
        plan.statistics[1].samplingRate = 0;
        auto bad = allocatePlan(plan);
        QVERIFY(!bad && bad.error().message.find("sampling rate") != std::string::npos);
    }

    void badRatesAreNamed() {
        for (double q : {0.0, -0.1, 1.5, std::nan("")}) {
            auto a = PlanAccountant::create({subsampled(gaussianLoss(1), q)});
            QVERIFY(!a);
            QVERIFY2(a.error().message.find("sampling rate") != std::string::npos,
                     a.error().message.c_str());
        }
        // One direction alone is refused (it would under-report).
        auto one = PrivacyLossDistribution::compose({subsampled(gaussianLoss(1), 0.1)}, {},
                                                    Rounding::Pessimistic);
        QVERIFY(!one && one.error().message.find("both directions") != std::string::npos);
        QVERIFY(subsampled(gaussianLoss(1), 0.1).describe().find("q = 0.1") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSubsampledPld)
#include "tst_subsampled_pld.moc"
