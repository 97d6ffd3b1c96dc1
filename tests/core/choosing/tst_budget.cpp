// Privacy-budget arithmetic (core/choosing/budget.h): exact basic composition at the edge (shares
// summing to the total exactly, one ulp more), zCDP conversions against hand/high-precision values
// (Python decimal module, 40 digits), splitting and the accuracy → ε inverse against the forward
// map.
#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/choosing/budget.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

BudgetCharge pure(double eps) {
    return BudgetCharge{"release", eps, 0, std::nullopt};
}

}  // namespace

class TestBudget : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tenTimesPointOneIsExactlyOne();
    void oneUlpMoreIsRefused();
    void exactInBothDirections();
    void deltaSums();
    void removeAndUsage();
    void runningSumsSurviveRemovals();
    void hundredThousandCharges();
    void spentReadsAsTheExactDecimal();
    void zcdpConversions();
    void zcdpBudgetInverse_data();
    void zcdpBudgetInverse();
    void gaussianRhoValues();
    void zcdpLedger();
    void splitShares();
    void splitAlwaysFits();
    void accuracyInverseLaplace();
    void accuracyInverseGaussian();
    void rejections();
};

void TestBudget::tenTimesPointOneIsExactlyOne() {
    // In doubles 0.1 added ten times is 0.9999999999999999, not 1; the ledger reads each 0.1 as
    // the decimal 1/10 and sums exactly.
    double naive = 0;
    for (int i = 0; i < 10; ++i) {
        naive += 0.1;
    }
    QVERIFY(naive != 1.0);
    auto ledger = BudgetLedger::create({1.0, 0}, Composition::Basic);
    DPX_VERIFY_OK(ledger);
    for (int i = 0; i < 10; ++i) {
        DPX_VERIFY_OK(ledger->charge(pure(0.1)));
    }
    const BudgetUsage u = ledger->usage();
    QCOMPARE(u.epsilonSpent, 1.0);
    QCOMPARE(u.epsilonRemaining, 0.0);
    QCOMPARE(u.epsilonSpentExact, std::string("1"));
    // Nothing more fits, not even the smallest positive double.
    DPX_VERIFY_ERROR(ledger->fits(pure(std::numeric_limits<double>::denorm_min())), "does not fit");
    QCOMPARE(ledger->charges().size(), std::size_t(10));
}

void TestBudget::oneUlpMoreIsRefused() {
    auto ledger = BudgetLedger::create({1.0, 0}, Composition::Basic);
    for (int i = 0; i < 9; ++i) {
        DPX_VERIFY_OK(ledger->charge(pure(0.1)));
    }
    const double moreThanTenth = std::nextafter(0.1, 1.0);  // 0.10000000000000002
    DPX_VERIFY_ERROR(ledger->charge(pure(moreThanTenth)), "does not fit");
    QCOMPARE(ledger->charges().size(), std::size_t(9));  // unchanged on error
    DPX_VERIFY_OK(ledger->fits(pure(0.1)));
    // A total one ulp above 1 takes it.
    auto wider = BudgetLedger::create({std::nextafter(1.0, 2.0), 0}, Composition::Basic);
    for (int i = 0; i < 9; ++i) {
        DPX_VERIFY_OK(wider->charge(pure(0.1)));
    }
    DPX_VERIFY_OK(wider->charge(pure(moreThanTenth)));
    // Total 1, one charge of 1 fits; one of 1 + ulp does not.
    auto single = BudgetLedger::create({1.0, 0}, Composition::Basic);
    DPX_VERIFY_ERROR(single->fits(pure(std::nextafter(1.0, 2.0))), "does not fit");
    DPX_VERIFY_OK(single->fits(pure(1.0)));
}

void TestBudget::exactInBothDirections() {
    // 0.1 + 0.2 = 0.30000000000000004 in doubles, which a naive ledger would refuse against 0.3.
    QVERIFY(0.1 + 0.2 > 0.3);
    auto ledger = BudgetLedger::create({0.3, 0}, Composition::Basic);
    DPX_VERIFY_OK(ledger->charge(pure(0.1)));
    DPX_VERIFY_OK(ledger->charge(pure(0.2)));
    QCOMPARE(ledger->usage().epsilonSpentExact, std::string("3/10"));
    QCOMPARE(ledger->usage().epsilonRemaining, 0.0);
    // Thirds: 0.3333333333333333 three times is 9999999999999999/10^16 < 1: fits, and the exact
    // remainder 1e-16 is reported (rounded down).
    auto thirds = BudgetLedger::create({1.0, 0}, Composition::Basic);
    for (int i = 0; i < 3; ++i) {
        DPX_VERIFY_OK(thirds->charge(pure(1.0 / 3)));
    }
    const auto u = thirds->usage();
    QVERIFY(u.epsilonRemaining > 0 && u.epsilonRemaining <= 1e-16);
    QVERIFY(u.epsilonSpent <= 1.0);
    QCOMPARE(u.epsilonSpentExact, std::string("9999999999999999/10000000000000000"));
}

void TestBudget::deltaSums() {
    auto ledger = BudgetLedger::create({3.0, 3e-7}, Composition::Basic);
    for (int i = 0; i < 3; ++i) {
        DPX_VERIFY_OK(ledger->charge({"g", 1.0, 1e-7, std::nullopt}));
    }
    QCOMPARE(ledger->usage().deltaSpentExact, std::string("3/10000000"));
    QCOMPARE(ledger->usage().deltaRemaining, 0.0);
    auto d2 = BudgetLedger::create({3.0, 3e-7}, Composition::Basic);
    DPX_VERIFY_OK(d2->charge({"a", 0.5, 2e-7, std::nullopt}));
    DPX_VERIFY_ERROR(d2->fits({"b", 0.5, std::nextafter(1e-7, 1.0), std::nullopt}), "δ");
    DPX_VERIFY_OK(d2->fits({"b", 0.5, 1e-7, std::nullopt}));
}

void TestBudget::removeAndUsage() {
    auto ledger = BudgetLedger::create({1.0, 1e-6}, Composition::Basic);
    DPX_VERIFY_OK(ledger->charge(pure(0.5)));
    DPX_VERIFY_OK(ledger->charge(pure(0.5)));
    DPX_VERIFY_ERROR(ledger->fits(pure(0.25)), "does not fit");
    DPX_VERIFY_OK(ledger->remove(0));
    DPX_VERIFY_OK(ledger->fits(pure(0.25)));
    DPX_VERIFY_ERROR(ledger->remove(5), "no release");
    const auto u = ledger->usage();
    QCOMPARE(u.epsilonSpent, 0.5);
    QCOMPARE(u.epsilonRemaining, 0.5);
    QCOMPARE(u.deltaRemaining, 1e-6);
    QCOMPARE(u.rhoSpent, 0.0);
}

// The running sums (issue #17 item 5) stay exactly the sums of the charges left after removals in
// any order: a ledger built afresh from the same charges agrees on every exact figure, and both
// accept and refuse the same next charge at the edge.
void TestBudget::runningSumsSurviveRemovals() {
    for (const Composition composition : {Composition::Basic, Composition::Zcdp}) {
        auto ledger = BudgetLedger::create({1000.0, 0.5}, composition);
        DPX_VERIFY_OK(ledger);
        std::uint64_t state = 12345;
        const auto next = [&state](std::uint64_t n) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return (state >> 33) % n;
        };
        for (int i = 0; i < 2000; ++i) {
            const double eps = static_cast<double>(next(1000) + 1) / 1000;  // 0.001 … 1
            const double delta = static_cast<double>(next(100)) * 1e-9;
            const double rho = static_cast<double>(next(10000) + 1) * 1e-7;
            DPX_VERIFY_OK(ledger->charge({"c" + std::to_string(i), eps, delta, rho}));
        }
        for (int i = 0; i < 700; ++i) {
            DPX_VERIFY_OK(ledger->remove(next(ledger->charges().size())));
        }
        auto fresh = BudgetLedger::create({1000.0, 0.5}, composition);
        for (const auto& c : ledger->charges()) {
            DPX_VERIFY_OK(fresh->charge(c));
        }
        const BudgetUsage a = ledger->usage(), b = fresh->usage();
        QCOMPARE(a.epsilonSpentExact, b.epsilonSpentExact);
        QCOMPARE(a.deltaSpentExact, b.deltaSpentExact);
        QVERIFY2(a.epsilonSpent == b.epsilonSpent,
                 QByteArray::number(a.epsilonSpent, 'g', 17).constData());
        QVERIFY2(a.deltaSpent == b.deltaSpent,
                 QByteArray::number(a.deltaSpent, 'g', 17).constData());
        QVERIFY2(a.epsilonRemaining == b.epsilonRemaining,
                 QByteArray::number(a.epsilonRemaining, 'g', 17).constData());
        QVERIFY2(a.deltaRemaining == b.deltaRemaining,
                 QByteArray::number(a.deltaRemaining, 'g', 17).constData());
        QVERIFY2(a.rhoSpent == b.rhoSpent, QByteArray::number(a.rhoSpent, 'g', 17).constData());
        QVERIFY2(a.rhoRemaining == b.rhoRemaining,
                 QByteArray::number(a.rhoRemaining, 'g', 17).constData());
        if (composition == Composition::Basic) {
            // At the edge (what is left, and one ulp more) both ledgers decide alike.
            const BudgetCharge edge{"edge", a.epsilonRemaining, 0, std::nullopt};
            QCOMPARE(bool(ledger->fits(edge)), bool(fresh->fits(edge)));
            const BudgetCharge over{"over", std::nextafter(a.epsilonRemaining, 1e9), 0,
                                    std::nullopt};
            QCOMPARE(bool(ledger->fits(over)), bool(fresh->fits(over)));
        } else {
            const BudgetCharge edge{"edge", 0, 0, a.rhoRemaining};
            QCOMPARE(bool(ledger->fits(edge)), bool(fresh->fits(edge)));
            DPX_VERIFY_OK(ledger->fits(edge));
        }
    }
}

// 10^5 charges (a session or plan of 10^5 statistics): the sums stay exact — 10^5 × 1e-5 fits a
// total of 1 exactly and nothing more does — and removing them one by one empties the ledger.
// Before issue #17 every charge re-summed all earlier ones (10^10 rational additions here).
void TestBudget::hundredThousandCharges() {
    constexpr int n = 100000;
    auto ledger = BudgetLedger::create({1.0, 1e-5}, Composition::Basic);
    DPX_VERIFY_OK(ledger);
    for (int i = 0; i < n; ++i) {
        DPX_VERIFY_OK(ledger->charge({"s", 1e-5, 1e-10, std::nullopt}));
    }
    BudgetUsage u = ledger->usage();
    QCOMPARE(u.epsilonSpentExact, std::string("1"));
    QCOMPARE(u.deltaSpentExact, std::string("1/100000"));
    QVERIFY2(u.epsilonSpent == 1.0, QByteArray::number(u.epsilonSpent, 'g', 17).constData());
    QVERIFY2(u.deltaSpent == 1e-5, QByteArray::number(u.deltaSpent, 'g', 17).constData());
    DPX_VERIFY_ERROR(ledger->fits(pure(std::numeric_limits<double>::denorm_min())), "does not fit");
    for (int i = 0; i < n; ++i) {
        DPX_VERIFY_OK(ledger->remove(ledger->charges().size() - 1));
    }
    u = ledger->usage();
    QCOMPARE(u.epsilonSpentExact, std::string("0"));
    QVERIFY2(u.epsilonRemaining == 1.0,
             QByteArray::number(u.epsilonRemaining, 'g', 17).constData());
    auto zcdp = BudgetLedger::create({1.0, 1e-6}, Composition::Zcdp);
    const double rho = zcdp->usage().rhoBudget / (2 * n);
    for (int i = 0; i < n; ++i) {
        DPX_VERIFY_OK(zcdp->charge({"s", 0, 0, rho}));
    }
    DPX_VERIFY_REL(zcdp->usage().rhoSpent, rho * n, 1e-12);
}

// Issue #17 item 11: the spent amounts are the exact decimal sums as the ledger reads doubles —
// ten charges of δ = 1e-7 spend 1e-06 (the binary double above the sum was
// 1.0000000000000002e-06), three of ε = 0.1 spend 0.3 (not 0.30000000000000004).
void TestBudget::spentReadsAsTheExactDecimal() {
    auto ledger = BudgetLedger::create({10.0, 1e-6}, Composition::Basic);
    for (int i = 0; i < 10; ++i) {
        DPX_VERIFY_OK(ledger->charge({"g", 0.1, 1e-7, std::nullopt}));
    }
    QVERIFY2(ledger->usage().deltaSpent == 1e-6,
             QByteArray::number(ledger->usage().deltaSpent, 'g', 17).constData());
    QCOMPARE(ledger->usage().deltaSpentExact, std::string("1/1000000"));
    auto three = BudgetLedger::create({1.0, 0}, Composition::Basic);
    for (int i = 0; i < 3; ++i) {
        DPX_VERIFY_OK(three->charge(pure(0.1)));
    }
    QVERIFY2(three->usage().epsilonSpent == 0.3,
             QByteArray::number(three->usage().epsilonSpent, 'g', 17).constData());
    // A sum no short decimal matches is still never under-stated: its double reads ≥ the sum.
    auto thirds = BudgetLedger::create({1.0, 0}, Composition::Basic);
    DPX_VERIFY_OK(thirds->charge(pure(1.0 / 3)));
    DPX_VERIFY_OK(thirds->charge(pure(1e-17)));
    const double spent = thirds->usage().epsilonSpent;
    QCOMPARE(thirds->usage().epsilonSpentExact,
             std::string("33333333333333331/100000000000000000"));
    // 1/3 reads as 0.3333333333333333 (below the sum); the next double up reads
    // 0.33333333333333337.
    QVERIFY2(spent == std::nextafter(1.0 / 3, 1.0), QByteArray::number(spent, 'g', 17).constData());
}

void TestBudget::zcdpConversions() {
    // ρ = 0.5, δ = 1e-5: ε = 0.5 + 2√(0.5·ln 1e5) = 5.298525912188081207567... (Python decimal).
    DPX_VERIFY_REL(*zcdpToEpsilon(0.5, 1e-5), 5.298525912188081, 1e-15);
    QCOMPARE(*zcdpToEpsilon(0.0, 1e-5), 0.0);
    // Pure ε-DP ⇒ ε²/2-zCDP (Bun & Steinke 2016 Prop 1.4).
    QCOMPARE(*zcdpOfPureDp(1.0), 0.5);
    QCOMPARE(*zcdpOfPureDp(0.1), 0.1 * 0.1 / 2);
    const auto c = pureDpCharge("h", 0.2);
    DPX_VERIFY_OK(c);
    DPX_VERIFY_REL(*c->rho, 0.02, 1e-15);
    QCOMPARE(c->delta, 0.0);
}

void TestBudget::zcdpBudgetInverse_data() {
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("delta");
    QTest::addColumn<double>("reference");  // (√(ε + L) − √L)², Python decimal, 40 digits
    QTest::newRow("eps=1 delta=1e-6") << 1.0 << 1e-6 << 0.01746890476912337782;
    QTest::newRow("eps=1e-4 delta=1e-10") << 1e-4 << 1e-10 << 1.085733847118316359e-10;
}

void TestBudget::zcdpBudgetInverse() {
    QFETCH(double, epsilon);
    QFETCH(double, delta);
    QFETCH(double, reference);
    const auto rho = zcdpBudget(epsilon, delta);
    DPX_VERIFY_OK(rho);
    DPX_VERIFY_REL(*rho, reference, 1e-14);
    DPX_VERIFY_REL(*zcdpToEpsilon(*rho, delta), epsilon, 1e-13);  // round trip
}

void TestBudget::gaussianRhoValues() {
    QCOMPARE(*gaussianRho(1.0, 2.0), 0.125);  // Δ2²/(2σ²) = 1/8
    DPX_VERIFY_REL(*gaussianRho(std::numbers::sqrt2, 3.0), 1.0 / 9, 1e-15);
    // Agrees with the ρ the Gaussian calibration reports (core/gaussian_mechanism).
    const auto m = calibrateGaussian({1.0, 1e-6, 2.0, GaussianCalibration::Analytic});
    DPX_VERIFY_OK(m);
    const double sigma = *gaussianSigma({1.0, 1e-6, 2.0, GaussianCalibration::Analytic});
    DPX_VERIFY_REL(*gaussianRho(2.0, sigma), *m->guarantee.rho, 1e-14);
    const auto g = gaussianCharge("g", {1.0, 1e-6}, 2.0, sigma);
    DPX_VERIFY_OK(g);
    DPX_VERIFY_REL(*g->rho, *m->guarantee.rho, 1e-14);
}

void TestBudget::zcdpLedger() {
    const double eps = 1.0, delta = 1e-6;
    const double budget = *zcdpBudget(eps, delta);
    auto ledger = BudgetLedger::create({eps, delta}, Composition::Zcdp);
    DPX_VERIFY_OK(ledger);
    // The whole ρ budget is refused (the margin), just under it is accepted.
    DPX_VERIFY_ERROR(ledger->fits({"all", 0, 0, budget}), "does not fit");
    DPX_VERIFY_OK(ledger->fits({"almost all", 0, 0, budget * (1 - 2e-12)}));
    // Ten pure-DP releases at ε_i = 0.059, ρ_i = ε_i²/2 = 0.0017405: Σρ = 0.017405 ≤ budget
    // 0.0174689 (Python decimal above).
    for (int i = 0; i < 10; ++i) {
        DPX_VERIFY_OK(ledger->charge(*pureDpCharge("stat", 0.059)));
    }
    DPX_VERIFY_ERROR(ledger->fits(*pureDpCharge("one more", 0.02)), "does not fit");  // +0.0002
    const auto u = ledger->usage();
    DPX_VERIFY_REL(u.rhoSpent, 10 * 0.059 * 0.059 / 2, 1e-15);
    // ε of Σρ at δ (Bun & Steinke Prop 1.3), computed here independently, stated on the high side.
    const double rho = 10 * 0.059 * 0.059 / 2;
    const double expectEps = rho + 2 * std::sqrt(rho * std::log(1 / delta));
    QVERIFY(u.epsilonSpent >= expectEps);
    DPX_VERIFY_REL(u.epsilonSpent, expectEps, 1e-11);
    QVERIFY(u.epsilonSpent <= eps);
    QCOMPARE(u.deltaSpent, delta);
    DPX_VERIFY_REL(u.rhoBudget, budget, 1e-11);
    QVERIFY(u.rhoRemaining > 0 && u.rhoRemaining < budget - rho + 1e-15);
    // A release without ρ cannot be accounted with zCDP.
    DPX_VERIFY_ERROR(ledger->fits({"laplace-free", 0.001, 1e-9, std::nullopt}), "ρ|zcdp");
    // zCDP needs δ > 0.
    DPX_VERIFY_ERROR(BudgetLedger::create({1.0, 0}, Composition::Zcdp), "δ");
}

void TestBudget::splitShares() {
    const auto tenths = splitBudget(1.0, std::vector<double>(10, 1.0));
    DPX_VERIFY_OK(tenths);
    auto ledger = BudgetLedger::create({1.0, 0}, Composition::Basic);
    for (double s : *tenths) {
        QCOMPARE(s, 0.1);
        DPX_VERIFY_OK(ledger->charge(pure(s)));
    }
    QCOMPARE(ledger->usage().epsilonSpentExact, std::string("1"));
    const auto w = splitBudget(0.7, {1, 2, 3, 4});
    DPX_VERIFY_OK(w);
    QCOMPARE((*w)[0], 0.07);
    QCOMPARE((*w)[1], 0.14);
    QCOMPARE((*w)[2], 0.21);
    QCOMPARE((*w)[3], 0.28);
    const auto z = splitBudget(2.0, {0, 1});
    DPX_VERIFY_OK(z);
    QCOMPARE((*z)[0], 0.0);
    QCOMPARE((*z)[1], 2.0);
}

void TestBudget::splitAlwaysFits() {
    // Property: the shares of any total by any weights always fit a ledger of that total
    // (1000 random cases, fixed seed), and each share is within 4 ulps below the exact share.
    SimulationRng rng(2026, 0);
    for (int trial = 0; trial < 1000; ++trial) {
        const double total = std::exp(8 * rng.uniform() - 6);
        const std::size_t k = 2 + std::size_t(rng.next() % 20);
        std::vector<double> weights(k);
        double wsum = 0;
        for (auto& x : weights) {
            x = 1e-3 + rng.uniform();
            wsum += x;
        }
        const auto shares = splitBudget(total, weights);
        DPX_VERIFY_OK(shares);
        auto ledger = BudgetLedger::create({total, 0}, Composition::Basic);
        for (std::size_t i = 0; i < k; ++i) {
            DPX_VERIFY_OK(ledger->charge(pure((*shares)[i])));
            DPX_VERIFY_REL((*shares)[i], total * weights[i] / wsum, 1e-14);
        }
    }
}

void TestBudget::accuracyInverseLaplace() {
    // Laplace with Δ1 = 1: E|noise| = b = 1/ε (closed form), so a target of 0.5 needs ε = 2.
    auto mae = [](double eps) { return 1 / eps; };
    const auto e = epsilonForAccuracy(mae, 0.5);
    DPX_VERIFY_OK(e);
    QVERIFY(mae(*e) <= 0.5);
    DPX_VERIFY_REL(*e, 2.0, 1e-9);
    // Already met at the lower end of the range.
    QCOMPARE(*epsilonForAccuracy(mae, 1e9, 1e-6, 10), 1e-6);
}

void TestBudget::accuracyInverseGaussian() {
    // Gaussian (analytic calibration, δ = 1e-6, Δ2 = 1): E|noise| = σ(ε)·√(2/π); the inverse must
    // satisfy the forward map and be the smallest such ε to 1e-9.
    auto mae = [](double eps) {
        return *gaussianSigma({eps, 1e-6, 1.0, GaussianCalibration::Analytic}) *
               std::sqrt(2 / std::numbers::pi);
    };
    for (double target : {0.1, 1.0, 7.5}) {
        const auto e = epsilonForAccuracy(mae, target, 1e-3, 100, 1e-10);
        DPX_VERIFY_OK(e);
        QVERIFY(mae(*e) <= target);
        QVERIFY(mae(*e * (1 - 1e-9)) > target);
    }
}

void TestBudget::rejections() {
    for (double e : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(BudgetLedger::create({e, 0}, Composition::Basic), "ε");
        DPX_VERIFY_ERROR(zcdpOfPureDp(e), "ε");
        DPX_VERIFY_ERROR(zcdpBudget(e, 1e-6), "ε");
        DPX_VERIFY_ERROR(splitBudget(e, {1}), "total");
    }
    for (double d : {-0.1, 1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(BudgetLedger::create({1, d}, Composition::Basic), "δ");
    }
    for (double d : {0.0, 1.0, -1.0, kNaN}) {
        DPX_VERIFY_ERROR(zcdpToEpsilon(0.1, d), "δ");
        DPX_VERIFY_ERROR(zcdpBudget(1, d), "δ");
    }
    for (double r : {-1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(zcdpToEpsilon(r, 1e-6), "ρ");
        DPX_VERIFY_ERROR(BudgetCharge({"x", 1, 0, r}).validate(), "ρ");
    }
    for (double v : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(gaussianRho(v, 1), "sensitivity|Δ2");
        DPX_VERIFY_ERROR(gaussianRho(1, v), "σ");
    }
    auto ledger = BudgetLedger::create({1, 0}, Composition::Basic);
    DPX_VERIFY_ERROR(ledger->fits(pure(-0.1)), "ε");
    DPX_VERIFY_ERROR(ledger->fits(pure(kNaN)), "ε");
    DPX_VERIFY_ERROR(ledger->fits(pure(0)), "nothing");
    DPX_VERIFY_ERROR(ledger->fits({"rho only", 0, 0, 0.01}), "basic composition needs");
    DPX_VERIFY_ERROR(ledger->fits({"x", 0.1, 1.0, std::nullopt}), "δ");
    DPX_VERIFY_ERROR(ledger->fits({"x", 0.1, 1e-9, std::nullopt}), "δ");  // total δ is 0
    DPX_VERIFY_ERROR(splitBudget(1, {}), "weights");
    DPX_VERIFY_ERROR(splitBudget(1, {0, 0}), "0");
    DPX_VERIFY_ERROR(splitBudget(1, {1, -1}), "weight 2");
    DPX_VERIFY_ERROR(splitBudget(1, {1, kNaN}), "weight 2");
    auto f = [](double eps) { return 1 / eps; };
    DPX_VERIFY_ERROR(epsilonForAccuracy(f, 1e-6, 1e-3, 10), "not reached");
    DPX_VERIFY_ERROR(epsilonForAccuracy(f, 0), "target");
    DPX_VERIFY_ERROR(epsilonForAccuracy(f, kNaN), "target");
    DPX_VERIFY_ERROR(epsilonForAccuracy(f, 1, 0, 10), "range");
    DPX_VERIFY_ERROR(epsilonForAccuracy(f, 1, 10, 1), "range");
    DPX_VERIFY_ERROR(epsilonForAccuracy(f, 1, 1e-3, 10, 0), "tolerance");
    DPX_VERIFY_ERROR(epsilonForAccuracy([](double) { return kNaN; }, 1), "NaN");
    DPX_VERIFY_ERROR(epsilonForAccuracy({}, 1), "function");
    DPX_VERIFY_ERROR(compositionFromName("advanced"), "basic");
    QCOMPARE(*compositionFromName("zcdp"), Composition::Zcdp);
}

QTEST_APPLESS_MAIN(TestBudget)
#include "tst_budget.moc"
