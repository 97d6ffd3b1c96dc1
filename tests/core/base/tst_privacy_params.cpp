// PrivacyParams (core/base/privacy_params.h): ε finite > 0 with validateEpsilon's messages, δ in
// [0, 1); valid pairs pass unchanged. BudgetTotal is one, its messages prefixed "total budget: ".
#include <QTest>

#include <limits>

#include "core/base/privacy_params.h"
#include "core/base/validation.h"
#include "core/choosing/budget.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

class TestPrivacyParams : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void validPairsPass();
    void epsilonRulesAreValidateEpsilons();
    void deltaMustBeInZeroOne();
    void budgetTotalIsAPrivacyParams();
};

void TestPrivacyParams::validPairsPass() {
    for (const PrivacyParams p : {PrivacyParams{1, 0}, PrivacyParams{1e-9, 0},
                                  PrivacyParams{100, 1e-6}, PrivacyParams{0.5, 0.999}}) {
        DPX_VERIFY_OK(p.validate());
    }
    const PrivacyParams defaults;
    QCOMPARE(defaults.epsilon, 1.0);
    QCOMPARE(defaults.delta, 0.0);
    QVERIFY(defaults.isPure());
    QVERIFY(!(PrivacyParams{1, 1e-6}).isPure());
}

void TestPrivacyParams::epsilonRulesAreValidateEpsilons() {
    for (const double eps : {0.0, -1.0, kNaN, kInf, -kInf}) {
        const Status s = (PrivacyParams{eps, 0}).validate();
        QVERIFY(!s);
        QCOMPARE(s.error().message, validateEpsilon(eps).error().message);
    }
    // ε is checked first.
    QCOMPARE((PrivacyParams{0, 2}).validate().error().message, validateEpsilon(0).error().message);
}

void TestPrivacyParams::deltaMustBeInZeroOne() {
    QCOMPARE((PrivacyParams{1, 1}).validate().error().message,
             std::string("δ must be in [0, 1) (got 1)"));
    QCOMPARE((PrivacyParams{1, -0.1}).validate().error().message,
             std::string("δ must be in [0, 1) (got -0.1)"));
    QCOMPARE((PrivacyParams{1, kNaN}).validate().error().message,
             std::string("δ must be in [0, 1) (got nan)"));
    QVERIFY(!(PrivacyParams{1, kInf}).validate().hasValue());
}

void TestPrivacyParams::budgetTotalIsAPrivacyParams() {
    const BudgetTotal total{2, 1e-6};
    const PrivacyParams& p = total;
    QCOMPARE(p.epsilon, 2.0);
    QCOMPARE(p.delta, 1e-6);
    DPX_VERIFY_OK(total.validate());
    QCOMPARE((BudgetTotal{1, 1}).validate().error().message,
             std::string("total budget: δ must be in [0, 1) (got 1)"));
    QCOMPARE((BudgetTotal{0, 0}).validate().error().message,
             "total budget: " + validateEpsilon(0).error().message);
}

QTEST_GUILESS_MAIN(TestPrivacyParams)
#include "tst_privacy_params.moc"
