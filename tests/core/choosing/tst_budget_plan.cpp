// Release plans (core/choosing/budget_plan.h, issue #6 Budget view): closed-form errors per
// mechanism (Laplace quantile b ln 20, E|Z|; geometric exact tail; Gaussian σ√(2/π)), the accuracy
// → ε inverses against the forward maps, exact shares (10 × 0.1 of 1), zCDP shares within ρ_budget,
// the other accountant on hand-computed cases, and every rejection.
#include <QTest>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "core/choosing/budget.h"
#include "core/choosing/budget_plan.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "tests/testing/test_support.h"

using namespace dpx;

Q_DECLARE_METATYPE(dpx::MechanismKind)

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

PlanStatistic stat(const std::string& label, std::int64_t bins, MechanismKind m,
                   double weight = 1) {
    PlanStatistic s;
    s.label = label;
    s.bins = bins;
    s.mechanism = m;
    s.weight = weight;
    return s;
}

BudgetPlan plan(double eps, double delta, Composition c, std::vector<PlanStatistic> stats) {
    BudgetPlan p;
    p.total = {eps, delta};
    p.composition = c;
    p.statistics = std::move(stats);
    return p;
}

double analyticSigma(double eps, double delta, double l2 = 1) {
    return *gaussianSigma(GaussianParams{eps, delta, l2, GaussianCalibration::Analytic});
}

// Smallest integer t with Pr[|Z| ≤ t] ≥ 0.95 for Pr[Z = z] = (1−α)/(1+α) α^|z|, by summing the
// pmf (independent of the closed-form tail).
double geometricHalfWidthBySum(double alpha) {
    const double c = (1 - alpha) / (1 + alpha);
    double mass = c;  // z = 0
    double t = 0;
    while (mass < 0.95) {
        t += 1;
        mass += 2 * c * std::pow(alpha, t);
    }
    return t;
}

}  // namespace

class TestBudgetPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void identicalStatisticsKeepTheirLabels();
    void normalQuantile();
    void closedFormsLaplace();
    void closedFormsGeometric();
    void closedFormsGaussian();
    void holdAccuracyInverse_data();
    void holdAccuracyInverse();
    void heldAccuracyInPlan();
    void tenSharesSumExactly();
    void heldEpsilonResplits();
    void weightsSplit();
    void zcdpWithinBudget();
    void otherAccountantTenGaussians();
    void otherAccountantPureDp();
    void neverOverruns();
    void rejections();
    void noiseRejections();
    void startsFromLedger();
};

void TestBudgetPlan::normalQuantile() {
    // Φ⁻¹(0.975) against Boost.Math.
    const double z = boost::math::quantile(boost::math::normal(), 0.975);
    DPX_VERIFY_NEAR(kNormalQuantile975, z, 1e-15);
}

void TestBudgetPlan::closedFormsLaplace() {
    // One Laplace statistic with the whole ε = 0.5, k = 10, Δ1 = 1: b = 2 (Dwork & Roth 2014
    // Thm 3.6); ±95% = b ln 20 (Laplace quantile: Pr[|Z| > a] = e^{−a/b}); E[L1] = kΔ1/ε = 20;
    // Var = 2b² = 8.
    auto s = stat("age", 10, MechanismKind::Laplace);
    s.records = 1000;
    auto r = allocatePlan(plan(0.5, 0, Composition::Basic, {s}));
    DPX_VERIFY_OK(r);
    const StatisticAllocation& a = r->statistics.at(0);
    QCOMPARE(a.epsilon, 0.5);
    QCOMPARE(a.delta, 0.0);
    DPX_VERIFY_REL(a.rho, 0.125, 1e-15);  // ε²/2 (Bun & Steinke 2016 Prop 1.4)
    DPX_VERIFY_REL(a.noise.scale, 2.0, 1e-15);
    DPX_VERIFY_REL(a.noise.halfWidth95, 2 * std::log(20.0), 1e-15);
    DPX_VERIFY_REL(a.expectedL1, 20.0, 1e-15);
    QVERIFY(a.expectedL1Percent.has_value());
    DPX_VERIFY_REL(*a.expectedL1Percent, 2.0, 1e-15);
    DPX_VERIFY_REL(a.perBinVariance, 8.0, 1e-15);
    QCOMPARE(a.share, 1.0);
    QCOMPARE(r->usage.epsilonSpentExact, std::string("1/2"));
}

void TestBudgetPlan::closedFormsGeometric() {
    // α = e^{−ε}; E|Z| = 2α/(1−α²), Var = 2α/(1−α)² (Ghosh et al. 2009); the half-width by
    // summing the pmf.
    for (double eps : {0.05, 0.3, 1.0, 2.5, 6.0}) {
        auto r = allocatePlan(
            plan(eps, 0, Composition::Basic, {stat("zip", 7, MechanismKind::Geometric)}));
        DPX_VERIFY_OK(r);
        const StatisticAllocation& a = r->statistics.at(0);
        const double alpha = std::exp(-eps);
        DPX_VERIFY_REL(a.noise.scale, alpha, 1e-15);
        DPX_VERIFY_REL(a.expectedL1, 7 * 2 * alpha / (1 - alpha * alpha), 1e-13);
        DPX_VERIFY_REL(a.perBinVariance, 2 * alpha / ((1 - alpha) * (1 - alpha)), 1e-13);
        QCOMPARE(a.noise.halfWidth95, geometricHalfWidthBySum(alpha));
    }
}

void TestBudgetPlan::closedFormsGaussian() {
    // σ from the analytic calibration (Balle & Wang 2018); ±95% = z σ; E|Z| = σ√(2/π).
    auto r = allocatePlan(
        plan(1, 1e-6, Composition::Basic, {stat("income", 20, MechanismKind::Gaussian)}));
    DPX_VERIFY_OK(r);
    const StatisticAllocation& a = r->statistics.at(0);
    const double sigma = analyticSigma(1, 1e-6);
    QCOMPARE(a.epsilon, 1.0);
    QCOMPARE(a.delta, 1e-6);
    QCOMPARE(a.noise.scale, sigma);
    DPX_VERIFY_REL(a.noise.halfWidth95, 1.959963984540054 * sigma, 1e-15);
    DPX_VERIFY_REL(a.expectedL1, 20 * sigma * std::sqrt(2 / std::numbers::pi), 1e-15);
    DPX_VERIFY_REL(a.perBinVariance, sigma * sigma, 1e-15);
    DPX_VERIFY_REL(a.rho, 1 / (2 * sigma * sigma), 1e-15);  // Δ2²/(2σ²), Prop 1.6
    QVERIFY(!a.expectedL1Percent.has_value());
}

void TestBudgetPlan::holdAccuracyInverse_data() {
    QTest::addColumn<MechanismKind>("mechanism");
    QTest::addColumn<double>("target");
    QTest::addColumn<double>("l1");
    for (double a : {0.4, 1.0, 3.7, 25.0, 1000.0}) {
        QTest::addRow("laplace a=%g", a) << MechanismKind::Laplace << a << 1.0;
        QTest::addRow("laplace Δ1=2 a=%g", a) << MechanismKind::Laplace << a << 2.0;
        QTest::addRow("geometric a=%g", a) << MechanismKind::Geometric << a << 1.0;
        QTest::addRow("geometric Δ1=3 a=%g", a) << MechanismKind::Geometric << a << 3.0;
        QTest::addRow("gaussian a=%g", a) << MechanismKind::Gaussian << a << 1.0;
    }
}

void TestBudgetPlan::holdAccuracyInverse() {
    QFETCH(MechanismKind, mechanism);
    QFETCH(double, target);
    QFETCH(double, l1);
    const double delta = 1e-6;
    auto eps = epsilonForHalfWidth(mechanism, target, l1, 1.0, delta);
    DPX_VERIFY_OK(eps);
    // The forward map at ε meets the target; at a slightly smaller ε it does not (minimality).
    auto halfWidth = [&](double e) {
        switch (mechanism) {
            case MechanismKind::Laplace:
                return laplaceNoise(l1 / e)->halfWidth95;
            case MechanismKind::Geometric:
                return geometricNoise(std::exp(-e / l1))->halfWidth95;
            case MechanismKind::Gaussian:
                return gaussianNoise(analyticSigma(e, delta))->halfWidth95;
        }
        return kNaN;
    };
    QVERIFY2(halfWidth(*eps) <= target, QByteArray::number(halfWidth(*eps), 'g', 17).constData());
    QVERIFY(halfWidth(*eps * (1 - 1e-8)) > target);
    if (mechanism == MechanismKind::Laplace) {
        DPX_VERIFY_REL(*eps, l1 * std::log(20.0) / target, 1e-15);  // ε = Δ1 ln 20/a
    }
    if (mechanism == MechanismKind::Geometric) {
        // Exact tail at t = ⌊a⌋: 2α^{t+1}/(1+α) = 0.05 at the returned ε (to the bisection's
        // 1e-10).
        const double alpha = std::exp(-*eps / l1);
        const double tail = 2 * std::pow(alpha, std::floor(target) + 1) / (1 + alpha);
        QVERIFY(tail <= 0.05);
        DPX_VERIFY_REL(tail, 0.05, 1e-8 * (std::floor(target) + 1));
    }
}

void TestBudgetPlan::heldAccuracyInPlan() {
    // Held at ±10 (Laplace: ε = ln 20/10) and ±8 (Gaussian), the third statistic takes the rest.
    auto a = stat("age", 10, MechanismKind::Laplace);
    a.hold = {HoldKind::Accuracy, 10};
    auto g = stat("income", 10, MechanismKind::Gaussian);
    g.hold = {HoldKind::Accuracy, 8};
    auto f = stat("zip", 50, MechanismKind::Laplace);
    for (Composition c : {Composition::Basic, Composition::Zcdp}) {
        auto r = allocatePlan(plan(3, 1e-6, c, {a, g, f}));
        DPX_VERIFY_OK(r);
        QVERIFY(r->statistics[0].noise.halfWidth95 <= 10);
        DPX_VERIFY_REL(r->statistics[0].epsilon, std::log(20.0) / 10, 1e-15);
        QVERIFY(r->statistics[1].noise.halfWidth95 <= 8);
        DPX_VERIFY_REL(r->statistics[1].noise.halfWidth95, 8, 1e-8);
        QVERIFY(r->statistics[2].epsilon > 0);
        if (c == Composition::Basic) {
            QVERIFY(r->usage.epsilonRemaining >= 0 && r->usage.epsilonRemaining < 1e-15);
            // The Gaussian statistic is the only one with δ.
            QCOMPARE(r->statistics[1].delta, 1e-6);
            QCOMPARE(r->statistics[0].delta, 0.0);
        } else {
            // zCDP: σ = 8/z exactly (Prop 1.6: ρ = 1/(2σ²)).
            DPX_VERIFY_REL(r->statistics[1].noise.scale, 8 / kNormalQuantile975, 1e-15);
            QVERIFY(r->usage.rhoSpent <= r->usage.rhoBudget);
            DPX_VERIFY_REL(r->usage.rhoSpent, r->usage.rhoBudget, 1e-11);  // less the 4e-12 margin
        }
    }
}

void TestBudgetPlan::tenSharesSumExactly() {
    // 10 statistics of equal weight share a total of 1: each 0.1 exactly, the ledger accepts all
    // and nothing is left, exactly.
    std::vector<PlanStatistic> stats;
    for (int i = 0; i < 10; ++i) {
        stats.push_back(stat("c" + std::to_string(i), 5, MechanismKind::Laplace));
    }
    auto r = allocatePlan(plan(1, 0, Composition::Basic, stats));
    DPX_VERIFY_OK(r);
    for (const auto& a : r->statistics) {
        QCOMPARE(a.epsilon, 0.1);
        QCOMPARE(a.share, 0.1);
    }
    QCOMPARE(r->usage.epsilonSpentExact, std::string("1"));
    QCOMPARE(r->usage.epsilonSpent, 1.0);
    QCOMPARE(r->usage.epsilonRemaining, 0.0);
    // The same with the shares re-charged to an independent ledger.
    auto ledger = BudgetLedger::create({1, 0}, Composition::Basic);
    for (const auto& a : r->statistics) {
        DPX_VERIFY_OK(ledger->charge(*pureDpCharge(a.label, a.epsilon)));
    }
    QCOMPARE(ledger->usage().epsilonRemaining, 0.0);
}

void TestBudgetPlan::heldEpsilonResplits() {
    // Hold 0.5 of 1 on one statistic: the two others get 0.25 each, exactly.
    auto h = stat("a", 4, MechanismKind::Laplace);
    h.hold = {HoldKind::Epsilon, 0.5};
    auto r = allocatePlan(
        plan(1, 0, Composition::Basic,
             {h, stat("b", 4, MechanismKind::Geometric), stat("c", 4, MechanismKind::Laplace)}));
    DPX_VERIFY_OK(r);
    QCOMPARE(r->statistics[0].epsilon, 0.5);
    QCOMPARE(r->statistics[1].epsilon, 0.25);
    QCOMPARE(r->statistics[2].epsilon, 0.25);
    QCOMPARE(r->usage.epsilonSpentExact, std::string("1"));
    // Hold 0.3 of 1: the rest 0.7 in thirds; never above the total.
    h.hold = {HoldKind::Epsilon, 0.3};
    auto r2 = allocatePlan(
        plan(1, 0, Composition::Basic,
             {h, stat("b", 4, MechanismKind::Laplace), stat("c", 4, MechanismKind::Laplace),
              stat("d", 4, MechanismKind::Laplace)}));
    DPX_VERIFY_OK(r2);
    DPX_VERIFY_REL(r2->statistics[1].epsilon, 0.7 / 3, 1e-15);
    QVERIFY(r2->usage.epsilonSpent <= 1.0);
    QVERIFY(r2->usage.epsilonRemaining >= 0 && r2->usage.epsilonRemaining < 1e-15);
}

void TestBudgetPlan::weightsSplit() {
    // Weights 1 : 3 of ε = 2: 0.5 and 1.5. Basic: δ to the Gaussian statistics only, in equal
    // shares.
    auto r = allocatePlan(
        plan(2, 1e-6, Composition::Basic,
             {stat("a", 4, MechanismKind::Gaussian, 1), stat("b", 4, MechanismKind::Laplace, 3),
              stat("c", 4, MechanismKind::Gaussian, 0.5)}));
    DPX_VERIFY_OK(r);
    QCOMPARE(r->statistics[0].epsilon, 2 * 1 / 4.5);
    QCOMPARE(r->statistics[1].epsilon, 2 * 3 / 4.5);
    QCOMPARE(r->statistics[0].delta, 5e-7);
    QCOMPARE(r->statistics[1].delta, 0.0);
    QCOMPARE(r->statistics[2].delta, 5e-7);
    QCOMPARE(r->usage.deltaSpentExact, std::string("1/1000000"));
    QVERIFY(r->usage.epsilonSpent <= 2);
}

void TestBudgetPlan::zcdpWithinBudget() {
    // zCDP: ρ_budget = zcdpBudget(ε, δ) split by weight; pure DP at ε_i = √(2ρ_i), Gaussian at
    // σ_i = Δ2/√(2ρ_i); Σρ ≤ ρ_budget and the conversion of Σρ stays within ε.
    auto r = allocatePlan(
        plan(1, 1e-6, Composition::Zcdp,
             {stat("a", 10, MechanismKind::Laplace), stat("b", 10, MechanismKind::Gaussian, 2),
              stat("c", 10, MechanismKind::Geometric)}));
    DPX_VERIFY_OK(r);
    const double budget = *zcdpBudget(1, 1e-6);
    DPX_VERIFY_REL(r->rhoBudget, budget, 2e-12);
    double rho = 0;
    for (const auto& a : r->statistics) {
        rho += a.rho;
    }
    QVERIFY(rho <= r->rhoBudget);
    DPX_VERIFY_REL(rho, budget, 1e-11);
    QVERIFY(*zcdpToEpsilon(rho, 1e-6) <= 1);
    QVERIFY(r->usage.epsilonSpent <= 1);
    DPX_VERIFY_REL(r->statistics[0].epsilon, std::sqrt(2 * budget / 4), 1e-11);
    DPX_VERIFY_REL(r->statistics[1].noise.scale, 1 / std::sqrt(2 * budget / 2), 1e-11);
    DPX_VERIFY_REL(r->statistics[1].epsilon, *zcdpToEpsilon(budget / 2, 1e-6), 1e-11);
    DPX_VERIFY_REL(r->statistics[1].share, 0.5, 1e-11);
    QVERIFY(r->statistics[0].delta == 0 && r->statistics[1].delta == 1e-6);
    // Held ε on a Gaussian statistic under zCDP: ρ with conversion ε at the total δ.
    auto g = stat("g", 10, MechanismKind::Gaussian);
    g.hold = {HoldKind::Epsilon, 0.4};
    auto r2 =
        allocatePlan(plan(1, 1e-6, Composition::Zcdp, {g, stat("x", 3, MechanismKind::Laplace)}));
    DPX_VERIFY_OK(r2);
    DPX_VERIFY_REL(r2->statistics[0].epsilon, 0.4, 1e-12);
    QVERIFY(r2->statistics[0].rho <= *zcdpBudget(0.4, 1e-6));
}

void TestBudgetPlan::otherAccountantTenGaussians() {
    // Ten Gaussian statistics, total (1, 1e-5), basic: each (0.1, 1e-6) with the analytic σ; under
    // zCDP the same noise has ρ = 10/(2σ²) and costs ε = ρ + 2√(ρ ln 1e5) (Prop 1.3, 1.6) — less
    // than 1: the advanced accountant is tighter for many Gaussian releases.
    std::vector<PlanStatistic> stats;
    for (int i = 0; i < 10; ++i) {
        stats.push_back(stat("g" + std::to_string(i), 10, MechanismKind::Gaussian));
    }
    auto r = allocatePlan(plan(1, 1e-5, Composition::Basic, stats));
    DPX_VERIFY_OK(r);
    const double sigma = analyticSigma(0.1, 1e-6);
    QCOMPARE(r->statistics[0].epsilon, 0.1);
    QCOMPARE(r->statistics[0].delta, 1e-6);
    QCOMPARE(r->statistics[0].noise.scale, sigma);
    QCOMPARE(r->usage.deltaSpentExact, std::string("1/100000"));
    const double rho = 10 / (2 * sigma * sigma);
    const double eps = rho + 2 * std::sqrt(rho * std::log(1e5));
    QVERIFY(r->other.available);
    QCOMPARE(r->other.composition, Composition::Zcdp);
    DPX_VERIFY_REL(r->other.rho, rho, 1e-13);
    DPX_VERIFY_REL(r->other.epsilon, eps, 1e-13);
    QCOMPARE(r->other.delta, 1e-5);
    QVERIFY(r->other.epsilon < 1);

    // The same ten under zCDP: each σ = 1/√(2ρ_budget/10); as basic, each at δ = 1e-6 needs the
    // analytic ε of that σ, and Σε > 1.
    auto z = allocatePlan(plan(1, 1e-5, Composition::Zcdp, stats));
    DPX_VERIFY_OK(z);
    const double sz = 1 / std::sqrt(2 * *zcdpBudget(1, 1e-5) / 10);
    DPX_VERIFY_REL(z->statistics[0].noise.scale, sz, 1e-11);
    QVERIFY(z->statistics[0].noise.scale < sigma);  // zCDP: less noise for the same budget
    QCOMPARE(z->other.composition, Composition::Basic);
    QVERIFY(z->other.available);
    const double ei = *gaussianEpsilonOfSigma(z->statistics[0].noise.scale, 1e-6, 1);
    DPX_VERIFY_REL(z->other.epsilon, 10 * ei, 1e-12);
    DPX_VERIFY_REL(z->other.delta, 1e-5, 1e-15);
    QVERIFY(z->other.epsilon > 1);
    // The analytic σ at that ε is the zCDP σ (to the bisection's tolerance).
    DPX_VERIFY_REL(analyticSigma(ei, 1e-6), z->statistics[0].noise.scale, 1e-9);
}

void TestBudgetPlan::otherAccountantPureDp() {
    // Pure DP, δ = 0: zCDP has no (ε, 0) conversion — not available, with a reason.
    auto r = allocatePlan(plan(1, 0, Composition::Basic, {stat("a", 3, MechanismKind::Laplace)}));
    DPX_VERIFY_OK(r);
    QVERIFY(!r->other.available);
    QVERIFY(dpxtest::mentions(r->other.note, "δ > 0"));
    // One Laplace statistic at ε = 1, δ = 1e-6: ρ = 1/2 converts to 0.5 + 2√(0.5 ln 1e6) > 1:
    // basic is tighter for a single pure-DP release.
    auto r2 =
        allocatePlan(plan(1, 1e-6, Composition::Basic, {stat("a", 3, MechanismKind::Laplace)}));
    DPX_VERIFY_OK(r2);
    QVERIFY(r2->other.available);
    DPX_VERIFY_REL(r2->other.epsilon, 0.5 + 2 * std::sqrt(0.5 * std::log(1e6)), 1e-14);
    QCOMPARE(r2->warnings.size(), std::size_t(1));  // δ unused
}

void TestBudgetPlan::neverOverruns() {
    // Awkward totals and weights: every plan the function returns fits the total.
    const double totals[] = {0.1, 0.3, 1.0 / 3, 0.7, 1, 2.2, 9.99};
    const double w[] = {1, 0.1, 3, 7, 0.3, 1.0 / 7};
    const MechanismKind ms[] = {MechanismKind::Laplace, MechanismKind::Gaussian,
                                MechanismKind::Geometric};
    for (Composition c : {Composition::Basic, Composition::Zcdp}) {
        for (double t : totals) {
            for (std::size_t n = 1; n <= 6; ++n) {
                std::vector<PlanStatistic> stats;
                for (std::size_t i = 0; i < n; ++i) {
                    stats.push_back(stat("s" + std::to_string(i), 3, ms[i % 3], w[i]));
                }
                if (n >= 4) {
                    stats[3].hold = {HoldKind::Epsilon, t / 10};
                }
                auto r = allocatePlan(plan(t, 1e-6, c, stats));
                DPX_VERIFY_OK(r);
                if (c == Composition::Basic) {
                    // The remainders are the exact total − Σ, rounded down: never negative.
                    QVERIFY(r->usage.epsilonRemaining >= 0);
                    QVERIFY(r->usage.deltaRemaining >= 0);
                } else {
                    QVERIFY(r->usage.rhoSpent <= r->usage.rhoBudget);
                    QVERIFY(r->usage.epsilonSpent <= t);
                }
            }
        }
    }
}

void TestBudgetPlan::rejections() {
    const auto lap = stat("age", 10, MechanismKind::Laplace);
    const auto gau = stat("income", 10, MechanismKind::Gaussian);
    auto with = [](PlanStatistic s, auto change) {
        change(s);
        return s;
    };
    // Totals.
    for (double e : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(allocatePlan(plan(e, 0, Composition::Basic, {lap})), "ε");
    }
    for (double d : {-0.1, 1.0, 2.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(allocatePlan(plan(1, d, Composition::Basic, {lap})), "δ");
    }
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic, {lap, gau})), "income");
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic, {gau})), "δ > 0");
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Zcdp, {lap})), "δ > 0");
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic, {})), "no statistics");
    // Statistics (each message names the statistic).
    DPX_VERIFY_ERROR(
        allocatePlan(plan(1, 0, Composition::Basic, {with(lap, [](auto& s) { s.bins = 0; })})),
        "'age'");
    DPX_VERIFY_ERROR(
        allocatePlan(plan(1, 0, Composition::Basic, {with(lap, [](auto& s) { s.bins = -3; })})),
        "bins");
    DPX_VERIFY_ERROR(
        allocatePlan(plan(1, 0, Composition::Basic, {with(lap, [](auto& s) { s.label = ""; })})),
        "label");
    for (double w : {-1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                           {with(lap, [w](auto& s) { s.weight = w; })})),
                         "'age'");
    }
    DPX_VERIFY_ERROR(
        allocatePlan(plan(1, 0, Composition::Basic,
                          {with(lap, [](auto& s) { s.weight = 0; }), with(lap,
                                                                          [](auto& s) {
                                                                              s.label = "b";
                                                                              s.weight = 0;
                                                                          })})),
        "weight 0");
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                       {lap, with(lap,
                                                  [](auto& s) {
                                                      s.label = "b";
                                                      s.weight = 0;
                                                  })})),
                     "'b'");
    for (double v : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                           {with(lap, [v](auto& s) { s.l1Sensitivity = v; })})),
                         "Δ1");
        DPX_VERIFY_ERROR(allocatePlan(plan(1, 1e-6, Composition::Basic,
                                           {with(gau, [v](auto& s) { s.l2Sensitivity = v; })})),
                         "Δ2");
        DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                           {with(lap, [v](auto& s) { s.records = v; })})),
                         "records");
        DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                           {with(lap,
                                                 [v](auto& s) {
                                                     s.hold = {HoldKind::Epsilon, v};
                                                 })})),
                         "held ε");
        DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                           {with(lap,
                                                 [v](auto& s) {
                                                     s.hold = {HoldKind::Accuracy, v};
                                                 })})),
                         "accuracy");
    }
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                       {with(lap,
                                             [](auto& s) {
                                                 s.mechanism = MechanismKind::Geometric;
                                                 s.l1Sensitivity = 1.5;
                                             })})),
                     "whole-number");
    // Held amounts beyond the total: one alone, or together.
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                       {with(lap,
                                             [](auto& s) {
                                                 s.hold = {HoldKind::Epsilon, 1.5};
                                             })})),
                     "exceed");
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                       {with(lap,
                                             [](auto& s) {
                                                 s.hold = {HoldKind::Epsilon, 0.6};
                                             }),
                                        with(lap,
                                             [](auto& s) {
                                                 s.label = "b";
                                                 s.hold = {HoldKind::Epsilon, 0.5};
                                             })})),
                     "'b'");
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 1e-6, Composition::Zcdp,
                                       {with(gau,
                                             [](auto& s) {
                                                 s.hold = {HoldKind::Epsilon, 1.01};
                                             })})),
                     "exceed");
    // Held exactly the total leaves nothing for a free statistic.
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                       {with(lap,
                                             [](auto& s) {
                                                 s.hold = {HoldKind::Epsilon, 1};
                                             }),
                                        with(lap, [](auto& s) { s.label = "rest"; })})),
                     "'rest'");
    // Accuracy targets: too demanding for the total, or unreachable for any ε ≤ 1000.
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 0, Composition::Basic,
                                       {with(lap,
                                             [](auto& s) {
                                                 s.hold = {HoldKind::Accuracy, 0.5};
                                             })})),
                     "exceed");
    DPX_VERIFY_ERROR(allocatePlan(plan(1, 1e-6, Composition::Basic,
                                       {with(gau,
                                             [](auto& s) {
                                                 s.hold = {HoldKind::Accuracy, 1e-4};
                                             })})),
                     "not reachable");
    DPX_VERIFY_ERROR(epsilonForHalfWidth(MechanismKind::Laplace, 0, 1), "accuracy");
    DPX_VERIFY_ERROR(epsilonForHalfWidth(MechanismKind::Gaussian, 1, 1, 1, 0), "δ");
    DPX_VERIFY_ERROR(gaussianEpsilonOfSigma(-1, 1e-6, 1), "σ");
    DPX_VERIFY_ERROR(mechanismFromName("cauchy"), "unknown mechanism");
}

void TestBudgetPlan::noiseRejections() {
    for (double v : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(laplaceNoise(v), "scale");
        DPX_VERIFY_ERROR(gaussianNoise(v), "σ");
        DPX_VERIFY_ERROR(geometricNoise(v), "α");
    }
    DPX_VERIFY_ERROR(geometricNoise(1.0), "α");
}

// allocatePlan calibrates statistics that differ only in their label once (issue #17 item 5):
// each still gets its own label, the same numbers as when it stands alone in a plan of the same
// share, and the ledger is charged for every one of them.
void TestBudgetPlan::identicalStatisticsKeepTheirLabels() {
    for (Composition c : {Composition::Basic, Composition::Zcdp}) {
        std::vector<PlanStatistic> stats;
        for (const char* label : {"a", "b", "c", "d"}) {
            stats.push_back(stat(label, 8, MechanismKind::Gaussian));
        }
        auto r = allocatePlan(plan(2, 1e-6, c, stats));
        DPX_VERIFY_OK(r);
        QCOMPARE(r->statistics.size(), std::size_t{4});
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(r->statistics[i].label, stats[i].label);
            QCOMPARE(r->statistics[i].noise.scale, r->statistics[0].noise.scale);
            QCOMPARE(r->statistics[i].rho, r->statistics[0].rho);
        }
        // Four equal shares of the whole budget: the sum is what was charged.
        DPX_VERIFY_REL(r->statistics[0].share * 4, 1.0, 1e-9);
        if (c == Composition::Basic) {
            auto one = allocatePlan(plan(0.5, 0.25e-6, c, {stats[0]}));
            DPX_VERIFY_OK(one);
            QCOMPARE(r->statistics[3].noise.scale, one->statistics[0].noise.scale);
        }
    }
}

QTEST_APPLESS_MAIN(TestBudgetPlan)
#include "tst_budget_plan.moc"

void TestBudgetPlan::startsFromLedger() {
    // Issue #17 item 8: a ledger that has spent 0.9996 of 1 leaves 0.0004; a plan starting from it
    // shares only that (and "fits" only within it), its start is the ledger's usage, and a hold
    // of the whole total no longer fits.
    auto p = plan(1, 0, Composition::Basic,
                  {stat("a", 4, MechanismKind::Laplace), stat("b", 4, MechanismKind::Laplace)});
    p.spent = {*pureDpCharge("r1", 0.5), *pureDpCharge("r2", 0.4996)};
    auto r = allocatePlan(p);
    DPX_VERIFY_OK(r);
    QCOMPARE(r->spentCharges, std::size_t(2));
    QCOMPARE(r->start.epsilonSpentExact, std::string("2499/2500"));
    QCOMPARE(r->statistics[0].epsilon, 0.0002);
    QCOMPARE(r->statistics[1].epsilon, 0.0002);
    QCOMPARE(r->usage.epsilonSpentExact, std::string("1"));
    QCOMPARE(r->usage.epsilonRemaining, 0.0);
    // A held ε of 0.001 does not fit what is left; the message says so.
    p.statistics[0].hold = {HoldKind::Epsilon, 0.001};
    auto held = allocatePlan(p);
    QVERIFY(!held);
    QVERIFY2(held.error().message.find("already charged") != std::string::npos,
             held.error().message.c_str());
    // Nothing left at all: refused, naming the statistic.
    p.statistics[0].hold = {};
    p.spent.push_back(*pureDpCharge("r3", 0.0004));
    auto none = allocatePlan(p);
    QVERIFY(!none);
    QVERIFY2(none.error().message.find("'a'") != std::string::npos, none.error().message.c_str());
    // Charges beyond the total are an error, never a plan.
    p.spent.push_back(*pureDpCharge("r4", 0.1));
    QVERIFY(!allocatePlan(p));

    // δ: a Gaussian statistic gets only the δ the ledger has left, and none is an error.
    auto g = plan(1, 1e-6, Composition::Basic, {stat("g", 4, MechanismKind::Gaussian)});
    g.spent = {*gaussianCharge("r", {0.5, 4e-7}, 1, 3.0)};
    auto rg = allocatePlan(g);
    DPX_VERIFY_OK(rg);
    QCOMPARE(rg->statistics[0].delta, 6e-7);
    QCOMPARE(rg->statistics[0].epsilon, 0.5);
    g.spent = {*gaussianCharge("r", {0.5, 1e-6}, 1, 3.0)};
    auto nd = allocatePlan(g);
    QVERIFY(!nd);
    QVERIFY2(nd.error().message.find("no δ") != std::string::npos, nd.error().message.c_str());

    // zCDP: the ρ already charged comes off ρ_budget; the plan's ε stays within the total.
    auto z = plan(1, 1e-6, Composition::Zcdp, {stat("z", 4, MechanismKind::Laplace)});
    const double fresh = allocatePlan(z)->statistics[0].rho;
    z.spent = {*pureDpCharge("r", 0.1)};
    auto rz = allocatePlan(z);
    DPX_VERIFY_OK(rz);
    QVERIFY(rz->statistics[0].rho < fresh - 0.004);
    QVERIFY(rz->statistics[0].rho + 0.005 <= rz->rhoBudget);
    QVERIFY(rz->usage.epsilonSpent <= 1);
    // A charge without ρ cannot be accounted under zCDP.
    z.spent = {BudgetCharge{"r", 0.1, 0, std::nullopt}};
    QVERIFY(!allocatePlan(z));
}
