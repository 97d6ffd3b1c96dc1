// The one identity of the per-bin additive mechanisms (core/mechanisms/mechanism_id.h): the names
// users and files see, their parser, and the one conversion from the tradeoff's mechanisms.
#include <QTest>

#include <string>

#include "core/choosing/tradeoff.h"
#include "core/mechanisms/mechanism_id.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestMechanismId : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesAreFixed();
    void namesRoundTrip();
    void discreteLaplaceIsTheGeometricMechanism();
    void unknownNamesAreRefused();
    void pureDp();
    void tradeoffMechanismsConvertInOnePlace();
};

// Session files, budget plans and dpx's JSON store these: they never change.
void TestMechanismId::namesAreFixed() {
    QCOMPARE(std::string(mechanismName(MechanismKind::Laplace)), std::string("laplace"));
    QCOMPARE(std::string(mechanismName(MechanismKind::Geometric)), std::string("geometric"));
    QCOMPARE(std::string(mechanismName(MechanismKind::Gaussian)), std::string("gaussian"));
}

void TestMechanismId::namesRoundTrip() {
    for (const MechanismKind k : kAllMechanismKinds) {
        const auto back = mechanismFromName(mechanismName(k));
        DPX_VERIFY_OK(back);
        QCOMPARE(*back, k);
    }
}

void TestMechanismId::discreteLaplaceIsTheGeometricMechanism() {
    const auto k = mechanismFromName("discrete-laplace");
    DPX_VERIFY_OK(k);
    QCOMPARE(*k, MechanismKind::Geometric);
}

void TestMechanismId::unknownNamesAreRefused() {
    const auto bad = mechanismFromName("cauchy");
    QVERIFY(!bad);
    QCOMPARE(bad.error().message,
             std::string("unknown mechanism 'cauchy' (use laplace, geometric or gaussian)"));
    QVERIFY(!mechanismFromName("Laplace"));  // names are case-sensitive
    QVERIFY(!mechanismFromName(""));
}

void TestMechanismId::pureDp() {
    QVERIFY(isPureDp(MechanismKind::Laplace));
    QVERIFY(isPureDp(MechanismKind::Geometric));
    QVERIFY(!isPureDp(MechanismKind::Gaussian));
}

void TestMechanismId::tradeoffMechanismsConvertInOnePlace() {
    const TradeoffMechanism additive[] = {TradeoffMechanism::Laplace, TradeoffMechanism::Geometric,
                                          TradeoffMechanism::Gaussian};
    for (std::size_t i = 0; i < 3; ++i) {
        const auto k = additiveMechanismOf(additive[i]);
        QVERIFY(k.has_value());
        QCOMPARE(*k, kAllMechanismKinds[i]);
        // The tradeoff names them as everyone else does.
        QCOMPARE(std::string(tradeoffMechanismName(additive[i])), std::string(mechanismName(*k)));
    }
    for (const TradeoffMechanism m :
         {TradeoffMechanism::CountGeometric, TradeoffMechanism::CountExplicitFair,
          TradeoffMechanism::CountOptimal, TradeoffMechanism::Local,
          TradeoffMechanism::SparseThreshold}) {
        QVERIFY(!additiveMechanismOf(m).has_value());
    }
}

QTEST_GUILESS_MAIN(TestMechanismId)
#include "tst_mechanism_id.moc"
