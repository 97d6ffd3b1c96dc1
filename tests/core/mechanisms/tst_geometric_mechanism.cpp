// Two-sided geometric mechanism: α = exp(−ε/Δ1) with an integer Δ1 (Ghosh, Roughgarden &
// Sundararajan 2009), pure ε-DP, ρ = ε²/2.
#include <QTest>

#include <cmath>

#include "core/mechanisms/geometric_mechanism.h"
#include "core/mechanisms/mechanism.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestGeometricMechanism : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void calibration_data();
    void calibration();
    void dispatcher_data() { calibration_data(); }
    void dispatcher();
    void privacyRatio_data() { calibration_data(); }
    void privacyRatio();
};

void TestGeometricMechanism::calibration_data() {
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("l1");
    QTest::newRow("eps 0.1 d1 1") << 0.1 << 1.0;
    QTest::newRow("eps 1 d1 1") << 1.0 << 1.0;
    QTest::newRow("eps 1 d1 2 (replace)") << 1.0 << 2.0;
    QTest::newRow("eps 0.5 d1 3") << 0.5 << 3.0;
    QTest::newRow("eps 3 d1 1") << 3.0 << 1.0;
}

void TestGeometricMechanism::calibration() {
    QFETCH(double, epsilon);
    QFETCH(double, l1);
    const auto m = calibrateGeometric({epsilon, l1});
    DPX_VERIFY_OK(m);
    QCOMPARE(m->name, std::string("geometric"));
    QCOMPARE(m->noise.kind(), NoiseKind::DiscreteLaplace);
    QVERIFY(m->noise.isDiscrete());
    DPX_VERIFY_REL(m->noise.parameter(), std::exp(-epsilon / l1), 1e-15);  // α = e^(−ε/Δ1)
    QCOMPARE(m->guarantee.epsilon, epsilon);
    QCOMPARE(m->guarantee.delta, 0.0);
    QVERIFY(m->guarantee.rho.has_value());
    DPX_VERIFY_REL(*m->guarantee.rho, epsilon * epsilon / 2, 1e-15);
    QCOMPARE(m->l1Sensitivity, l1);
    QVERIFY(!m->guarantee.sentence.empty());
    QVERIFY(m->warnings.empty());
}

void TestGeometricMechanism::dispatcher() {
    QFETCH(double, epsilon);
    QFETCH(double, l1);
    const auto m = calibrate({MechanismKind::Geometric, epsilon, 0, GaussianCalibration::Analytic},
                             Sensitivity{l1, std::sqrt(l1), true});
    DPX_VERIFY_OK(m);
    QCOMPARE(m->name, std::string("geometric"));
    DPX_VERIFY_REL(m->noise.parameter(), std::exp(-epsilon / l1), 1e-15);
}

void TestGeometricMechanism::privacyRatio() {
    QFETCH(double, epsilon);
    QFETCH(double, l1);
    // Pr[Z = z]/Pr[Z = z + Δ1] ≤ e^ε on the integers, with equality for z ≥ 0.
    const auto m = calibrateGeometric({epsilon, l1});
    DPX_VERIFY_OK(m);
    const auto shift = static_cast<long>(l1);
    double worst = 0;
    for (long z = -30; z <= 30; ++z) {
        const double p = m->noise.density(double(z));
        const double q = m->noise.density(double(z + shift));
        worst = std::max({worst, std::log(p / q), std::log(q / p)});
    }
    DPX_VERIFY_NEAR(worst, epsilon, 1e-9 * std::max(1.0, epsilon));
}

QTEST_APPLESS_MAIN(TestGeometricMechanism)
#include "tst_geometric_mechanism.moc"
