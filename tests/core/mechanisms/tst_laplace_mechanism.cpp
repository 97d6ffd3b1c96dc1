// Laplace mechanism: b = Δ1/ε (seed 000 §1.1.2), pure ε-DP, ρ = ε²/2 (Bun & Steinke 2016 Prop 1.4).
#include <QTest>

#include <cmath>

#include "core/mechanisms/laplace_mechanism.h"
#include "core/mechanisms/mechanism.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestLaplaceMechanism : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void calibration_data();
    void calibration();
    void dispatcher_data() { calibration_data(); }
    void dispatcher();
    void privacyRatio_data() { calibration_data(); }
    void privacyRatio();
    void seedExample();
    void unrepresentableScale_data();
    void unrepresentableScale();
};

void TestLaplaceMechanism::calibration_data() {
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("l1");
    QTest::newRow("eps 0.1 d1 1 (seed 000 §3.3)") << 0.1 << 1.0;
    QTest::newRow("eps 1 d1 2") << 1.0 << 2.0;
    QTest::newRow("eps 0.05 d1 3.5") << 0.05 << 3.5;
    QTest::newRow("eps 5 d1 1") << 5.0 << 1.0;
    QTest::newRow("eps 1e-4 d1 10") << 1e-4 << 10.0;
}

void TestLaplaceMechanism::calibration() {
    QFETCH(double, epsilon);
    QFETCH(double, l1);
    const auto m = calibrateLaplace({epsilon, l1});
    DPX_VERIFY_OK(m);
    QCOMPARE(m->name, std::string("laplace"));
    QCOMPARE(m->noise.kind(), NoiseKind::Laplace);
    DPX_VERIFY_REL(m->noise.parameter(), l1 / epsilon, 1e-15);  // b = Δ1/ε
    QCOMPARE(m->guarantee.epsilon, epsilon);
    QCOMPARE(m->guarantee.delta, 0.0);
    QVERIFY(m->guarantee.rho.has_value());
    DPX_VERIFY_REL(*m->guarantee.rho, epsilon * epsilon / 2, 1e-15);  // ρ = ε²/2
    QVERIFY(!m->guarantee.rhoNote.empty());
    QVERIFY(!m->guarantee.sentence.empty());
    QCOMPARE(m->l1Sensitivity, l1);
    QVERIFY(m->warnings.empty());
}

void TestLaplaceMechanism::dispatcher() {
    QFETCH(double, epsilon);
    QFETCH(double, l1);
    // calibrate() uses Δ1 of the Sensitivity; δ and the Gaussian calibration are ignored.
    const auto m = calibrate({MechanismKind::Laplace, epsilon, 0.5, GaussianCalibration::Classic},
                             Sensitivity{l1, 123.0, false});
    DPX_VERIFY_OK(m);
    QCOMPARE(m->name, std::string("laplace"));
    DPX_VERIFY_REL(m->noise.parameter(), l1 / epsilon, 1e-15);
    QCOMPARE(m->guarantee.delta, 0.0);
}

void TestLaplaceMechanism::privacyRatio() {
    QFETCH(double, epsilon);
    QFETCH(double, l1);
    // ε-DP of the released density: f(x)/f(x + Δ1) ≤ e^ε for every x, with equality for x ≥ 0
    // (checked on the core's own density).
    const auto m = calibrateLaplace({epsilon, l1});
    DPX_VERIFY_OK(m);
    const double b = m->noise.parameter();
    double worst = 0;
    for (double u = -5; u <= 5; u += 0.125) {
        const double x = u * b;
        worst = std::max(worst, std::log(m->noise.density(x) / m->noise.density(x + l1)));
        worst = std::max(worst, std::log(m->noise.density(x + l1) / m->noise.density(x)));
    }
    DPX_VERIFY_NEAR(worst, epsilon, 1e-9 * std::max(1.0, epsilon));
}

void TestLaplaceMechanism::seedExample() {
    // Seed 000 §3.3: H = [0, 16], ε = 0.1, Δ1 = 1 → Laplace(b = 10), per-bin variance 200.
    const auto m = calibrateLaplace({0.1, 1});
    DPX_VERIFY_OK(m);
    DPX_VERIFY_REL(m->noise.parameter(), 10.0, 1e-15);
    DPX_VERIFY_REL(m->noise.variance(), 200.0, 1e-14);
    QCOMPARE(m->noise.describe(), std::string("Laplace(b = 10)"));
}

void TestLaplaceMechanism::unrepresentableScale_data() {
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("l1");
    // Δ1/ε overflows to +inf: valid-looking inputs whose noise scale is not a finite number. The
    // mechanism must be refused (as the geometric mechanism refuses an unrepresentable α), not
    // returned as Laplace(b = inf).
    QTest::newRow("eps 1e-310 (denormal)") << 1e-310 << 1.0;
    QTest::newRow("eps 1e-10 d1 1e308") << 1e-10 << 1e308;
}

void TestLaplaceMechanism::unrepresentableScale() {
    QFETCH(double, epsilon);
    QFETCH(double, l1);
    const auto m = calibrateLaplace({epsilon, l1});
    QVERIFY2(!m.hasValue() || std::isfinite(m->noise.parameter()),
             m.hasValue() ? m->noise.describe().c_str() : "");
    DPX_VERIFY_ERROR(calibrateLaplace({epsilon, l1}), "ε|epsilon|scale|sensitivity");
}

QTEST_APPLESS_MAIN(TestLaplaceMechanism)
#include "tst_laplace_mechanism.moc"
