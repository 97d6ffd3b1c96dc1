// Vector mean mechanisms (core/mechanisms/vector_mechanisms.h): calibration against the closed
// forms of seed 004 §3 and seed 003 §1.3, the seed 004 bounds, and rejection of every bad
// parameter. Deterministic; the Monte Carlo checks are in tst_vector_mechanisms_stat.
#include <QTest>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/choosing/risk.h"
#include "core/mechanisms/vector_mechanisms.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

VectorMeanParams params(VectorMechanismKind kind, std::size_t n, std::size_t d, double eps,
                        double delta, GaussianCalibration cal = GaussianCalibration::Analytic) {
    VectorMeanParams p;
    p.n = n;
    p.d = d;
    p.epsilon = eps;
    p.delta = delta;
    p.mechanism = {kind, cal};
    return p;
}
}  // namespace

class TestVectorMechanisms : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void names();
    void gaussianSeedCalibrations();
    void gaussianAnalytic();
    void laplaceAndKNorm();
    void bounds();
    void lowerBoundRefusedForLargeDelta();
    void boundsForPureMechanisms();
    void noisyMeanAddsTheNoise();
    void rejections();
    void tracingAttackTakesAVectorMechanism();
};

void TestVectorMechanisms::names() {
    for (auto k : {VectorMechanismKind::Gaussian, VectorMechanismKind::GaussianPrinted,
                   VectorMechanismKind::Laplace, VectorMechanismKind::KNorm}) {
        const auto back = vectorMechanismFromName(vectorMechanismName(k));
        DPX_VERIFY_OK(back);
        QCOMPARE(*back, k);
    }
    DPX_VERIFY_ERROR(vectorMechanismFromName("gamma"), "unknown vector mechanism");
    DPX_VERIFY_ERROR(meanPopulationFromName("normal"), "population");
}

void TestVectorMechanisms::gaussianSeedCalibrations() {
    // n = 1000, d = 10, ε = 0.5, δ = 1e-6; ln(2/δ) = ln(2e6) = 14.508657738524219.
    const double ln = 14.508657738524219;
    // Seed 004 eq. (4) as printed: σ² = 2d ln(2/δ)/(ε²n²) = 20·ln/(0.25·1e6).
    const auto printed =
        calibrateVectorMean(params(VectorMechanismKind::GaussianPrinted, 1000, 10, 0.5, 1e-6));
    DPX_VERIFY_OK(printed);
    DPX_VERIFY_REL(printed->scale * printed->scale, 20 * ln / 0.25e6, 1e-12);
    QCOMPARE(printed->epsilon, 1.0);  // (2ε, δ)-DP at the true sensitivity 2√d/n
    QCOMPARE(printed->delta, 1e-6);
    QVERIFY(dpxtest::mentions(printed->warnings.front(), "2ε"));
    // The seed calibration at Δ₂ = 2√d/n: σ² = 8d ln(2/δ)/(ε²n²), four times the printed one.
    const auto seed = calibrateVectorMean(
        params(VectorMechanismKind::Gaussian, 1000, 10, 0.5, 1e-6, GaussianCalibration::Hall));
    DPX_VERIFY_OK(seed);
    DPX_VERIFY_REL(seed->scale * seed->scale, 80 * ln / 0.25e6, 1e-12);
    QCOMPARE(seed->epsilon, 0.5);
    DPX_VERIFY_REL(seed->l2Sensitivity, 2 * std::sqrt(10.0) / 1000, 1e-15);
    DPX_VERIFY_REL(seed->l1Sensitivity, 0.02, 1e-15);
    // E‖Z‖² = dσ².
    DPX_VERIFY_REL(seed->expectedSquaredNoise, 10 * 80 * ln / 0.25e6, 1e-12);
}

void TestVectorMechanisms::gaussianAnalytic() {
    // The analytic σ is core/gaussian_mechanism's for Δ₂ = 2√d/n, and it meets (ε, δ) exactly.
    const auto m = calibrateVectorMean(params(VectorMechanismKind::Gaussian, 50, 400, 2, 1e-5));
    DPX_VERIFY_OK(m);
    const double l2 = 2 * 20.0 / 50;
    const auto sigma = gaussianSigma({2, 1e-5, l2, GaussianCalibration::Analytic});
    DPX_VERIFY_OK(sigma);
    QCOMPARE(m->scale, *sigma);
    DPX_VERIFY_REL(gaussianExactDelta(m->scale, 2, l2), 1e-5, 1e-6);
    QVERIFY(m->warnings.empty());
    // The seed formula at ε = 10 is not (ε, δ)-DP by the exact profile: refused.
    DPX_VERIFY_ERROR(calibrateVectorMean(params(VectorMechanismKind::Gaussian, 50, 4, 10, 1e-5,
                                                GaussianCalibration::Hall)),
                     "not (ε, δ)-dp");
}

void TestVectorMechanisms::laplaceAndKNorm() {
    // Laplace: b = Δ₁/ε = 2d/(nε) = 2·8/(40·0.5) = 0.8; E‖Z‖² = d·2b² = 8·2·0.64 = 10.24.
    const auto lap = calibrateVectorMean(params(VectorMechanismKind::Laplace, 40, 8, 0.5, 0.5));
    DPX_VERIFY_OK(lap);  // δ is not used by a pure mechanism (0.5 would be refused otherwise)
    DPX_VERIFY_REL(lap->scale, 0.8, 1e-15);
    DPX_VERIFY_REL(lap->expectedSquaredNoise, 10.24, 1e-14);
    QCOMPARE(lap->delta, 0.0);
    // K-norm: θ = Δ₂/ε = 2√8/(40·0.5) = 0.282842712474619; E‖Z‖² = d(d + 1)θ² = 72·0.08 = 5.76.
    const auto kn = calibrateVectorMean(params(VectorMechanismKind::KNorm, 40, 8, 0.5, 0.5));
    DPX_VERIFY_OK(kn);
    DPX_VERIFY_REL(kn->scale, 0.282842712474619, 1e-14);
    DPX_VERIFY_REL(kn->expectedSquaredNoise, 5.76, 1e-14);
    QCOMPARE(kn->epsilon, 0.5);
    QCOMPARE(kn->delta, 0.0);
}

void TestVectorMechanisms::bounds() {
    // n = 1000, d = 10, ε = 1, δ = 1e-6 < 1/96000. ln(2e6) = 14.508657738524219.
    QCOMPARE(meanUpperBoundPrinted(1000, 10, 1, 1e-6), 0.01 + 200 * 14.508657738524219 / 1e6);
    DPX_VERIFY_REL(meanUpperBoundPrinted(1000, 10, 1, 1e-6), 0.0129017315477048, 1e-13);
    DPX_VERIFY_REL(meanUpperBound(1000, 10, 1, 1e-6), 0.0216069261908194, 1e-13);
    // min{10/6, 100/(2304·1e6)} = 4.34027777…e-8.
    const auto lo = meanLowerBound(1000, 10, 1, 1e-6);
    DPX_VERIFY_OK(lo);
    DPX_VERIFY_REL(*lo, 100.0 / 2304e6, 1e-14);
    // The d/6 branch: n = 1, d = 1000, ε = 1: d²/2304 = 434 > d/6 = 166.7.
    const auto lo2 = meanLowerBound(1, 1000, 1, 0);
    DPX_VERIFY_OK(lo2);
    DPX_VERIFY_REL(*lo2, 1000.0 / 6, 1e-15);
    const auto b = meanEstimationBounds(params(VectorMechanismKind::Gaussian, 1000, 10, 1, 1e-6));
    DPX_VERIFY_OK(b);
    QCOMPARE(b->samplingWorstCase, 0.01);
    QVERIFY(b->lower.has_value());
    QVERIFY(b->lowerNote.empty());
    // Gaussian (seed calibration) error = d/n + dσ² equals the corrected Thm 4 bound exactly.
    const auto m = calibrateVectorMean(
        params(VectorMechanismKind::Gaussian, 1000, 10, 1, 1e-6, GaussianCalibration::Hall));
    DPX_VERIFY_OK(m);
    DPX_VERIFY_REL(0.01 + m->expectedSquaredNoise, b->upper, 1e-13);
    // … and the printed mechanism's equals the printed bound.
    const auto pm =
        calibrateVectorMean(params(VectorMechanismKind::GaussianPrinted, 1000, 10, 1, 1e-6));
    DPX_VERIFY_OK(pm);
    DPX_VERIFY_REL(0.01 + pm->expectedSquaredNoise, b->upperPrinted, 1e-13);
}

void TestVectorMechanisms::lowerBoundRefusedForLargeDelta() {
    // 1/(96·1000) = 1.0417e-5: δ = 1e-4 is outside Thm 5.
    DPX_VERIFY_ERROR(meanLowerBound(1000, 10, 1, 1e-4), "1/(96n)");
    DPX_VERIFY_ERROR(meanLowerBound(1000, 10, 1, 1.0 / 96000), "1/(96n)");  // strict
    const auto b = meanEstimationBounds(params(VectorMechanismKind::Gaussian, 1000, 10, 1, 1e-4));
    DPX_VERIFY_OK(b);
    QVERIFY(!b->lower.has_value());
    QVERIFY(dpxtest::mentions(b->lowerNote, "1/(96n)"));
    DPX_VERIFY_ERROR(meanLowerBound(0, 10, 1, 0), "n ≥ 1");
    DPX_VERIFY_ERROR(meanLowerBound(10, 0, 1, 0), "d ≥ 1");
    DPX_VERIFY_ERROR(meanLowerBound(10, 10, kNaN, 0), "ε");
    DPX_VERIFY_ERROR(meanLowerBound(10, 10, 1, -1e-9), "δ");
    DPX_VERIFY_ERROR(meanLowerBound(10, 10, 1, kNaN), "δ");
}

void TestVectorMechanisms::boundsForPureMechanisms() {
    // A pure ε-DP mechanism is (ε, 0)-DP: the lower bound applies whatever δ the upper bounds use.
    const auto b = meanEstimationBounds(params(VectorMechanismKind::KNorm, 1000, 10, 1, 0.01));
    DPX_VERIFY_OK(b);
    QVERIFY(b->lower.has_value());
    // The printed Gaussian meets (2ε, δ): the lower bound is taken at 2ε.
    const auto bp =
        meanEstimationBounds(params(VectorMechanismKind::GaussianPrinted, 1000, 10, 0.5, 1e-6));
    DPX_VERIFY_OK(bp);
    QVERIFY(bp->lower.has_value());
    DPX_VERIFY_REL(*bp->lower, 100.0 / 2304e6, 1e-14);
    // The upper bounds need δ even for a pure mechanism.
    DPX_VERIFY_ERROR(meanEstimationBounds(params(VectorMechanismKind::Laplace, 10, 2, 1, 0)), "δ");
}

void TestVectorMechanisms::noisyMeanAddsTheNoise() {
    const auto m = calibrateVectorMean(params(VectorMechanismKind::KNorm, 3, 2, 1, 0.5));
    DPX_VERIFY_OK(m);
    const std::vector<double> records = {1, -1, 0.5, 0.25, -1, 1};  // means 1/6, 1/12
    SimulationRng a(5, 0), b(5, 0);
    std::vector<double> z(2);
    sampleVectorNoise(*m, a, z);
    const auto r = noisyMean(records, *m, b);
    DPX_VERIFY_OK(r);
    DPX_VERIFY_NEAR((*r)[0], 1.0 / 6 + z[0], 1e-15);
    DPX_VERIFY_NEAR((*r)[1], 1.0 / 12 + z[1], 1e-15);
    std::vector<double> bad = records;
    bad[3] = 1.5;
    DPX_VERIFY_ERROR(noisyMean(bad, *m, b), "record 2, coordinate 2");
    bad[3] = kNaN;
    DPX_VERIFY_ERROR(noisyMean(bad, *m, b), "[−1, 1]");
    DPX_VERIFY_ERROR(noisyMean(std::vector<double>(5, 0.0), *m, b), "n·d");
    std::vector<double> wrong(3);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sampleVectorNoise(*m, a, wrong));
}

void TestVectorMechanisms::rejections() {
    using K = VectorMechanismKind;
    DPX_VERIFY_ERROR(params(K::Gaussian, 0, 10, 1, 1e-6).validate(), "n must");
    DPX_VERIFY_ERROR(params(K::Gaussian, 10, 0, 1, 1e-6).validate(), "dimension d");
    DPX_VERIFY_ERROR(params(K::Gaussian, 10, kMaxVectorDimension + 1, 1, 1e-6).validate(),
                     "dimension d");
    for (double eps : {0.0, -1.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(params(K::KNorm, 10, 10, eps, 1e-6).validate(), "ε|epsilon");
        DPX_VERIFY_ERROR(calibrateVectorMean(params(K::Laplace, 10, 10, eps, 1e-6)), "ε|epsilon");
    }
    for (double delta : {0.0, 1.0, -0.1, 2.0, kNaN, kInf}) {
        DPX_VERIFY_ERROR(calibrateVectorMean(params(K::Gaussian, 10, 10, 1, delta)), "δ|delta");
        DPX_VERIFY_ERROR(calibrateVectorMean(params(K::GaussianPrinted, 10, 10, 1, delta)),
                         "δ|delta");
    }
    MeanSimulationParams s;
    for (double bias : {-1.5, 1.01, kNaN, kInf}) {
        s.bias = bias;
        DPX_VERIFY_ERROR(s.validate(), "bias");
    }
    s.bias = 1;
    DPX_VERIFY_OK(s.validate());
    s.trials = 0;
    DPX_VERIFY_ERROR(s.validate(), "trials");
    s.trials = 5'000'000;
    s.release.d = 1000;
    DPX_VERIFY_ERROR(simulateMeanError(s), "too large");
}

void TestVectorMechanisms::tracingAttackTakesAVectorMechanism() {
    TracingAttackParams p;
    p.n = 20;
    p.d = 30;
    p.epsilon = 1;
    p.trials = 5;
    p.seed = 9;
    // Default: the analytic Gaussian mechanism, as before issue #9.
    const auto g = simulateTracingAttack(p);
    DPX_VERIFY_OK(g);
    QCOMPARE(g->mechanism, std::string("gaussian"));
    const auto sigma =
        gaussianSigma({1, 1e-6, 2 * std::sqrt(30.0) / 20, GaussianCalibration::Analytic});
    DPX_VERIFY_OK(sigma);
    DPX_VERIFY_REL(g->sigma, *sigma, 1e-12);
    // K-norm: the per-coordinate sd is √((d + 1)θ²), θ = 2√d/(nε).
    p.mechanism.kind = VectorMechanismKind::KNorm;
    const auto k = simulateTracingAttack(p);
    DPX_VERIFY_OK(k);
    QCOMPARE(k->mechanism, std::string("knorm"));
    DPX_VERIFY_REL(k->sigma, std::sqrt(31.0) * 2 * std::sqrt(30.0) / 20, 1e-12);
    QVERIFY(k->memberScores != g->memberScores);
    p.mechanism.kind = VectorMechanismKind::Laplace;
    const auto l = simulateTracingAttack(p);
    DPX_VERIFY_OK(l);
    DPX_VERIFY_REL(l->sigma, std::sqrt(2.0) * 2 * 30.0 / 20, 1e-12);
    // No noise (ε = ∞): no mechanism.
    p.epsilon = kInf;
    const auto none = simulateTracingAttack(p);
    DPX_VERIFY_OK(none);
    QCOMPARE(none->sigma, 0.0);
    QVERIFY(none->mechanism.empty());
}

QTEST_APPLESS_MAIN(TestVectorMechanisms)
#include "tst_vector_mechanisms.moc"
