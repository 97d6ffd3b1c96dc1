// NoiseDistribution against independent references: Boost.Math quadrature of the densities written
// from their definitions (Laplace, Gaussian) and direct summation of the probability mass function
// (two-sided geometric). Tolerances: 1e-10 relative unless stated (the quadrature is good to
// ~1e-14).
#include <QTest>

#include <cmath>
#include <numbers>

#include "core/base/noise_distribution.h"
#include "tests/testing/quadrature.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::geometricPmf;
using dpxtest::geometricSupport;

Q_DECLARE_METATYPE(dpx::NoiseKind)

namespace {

NoiseDistribution make(NoiseKind kind, double p) {
    return NoiseDistribution::of(kind, p);
}

double pdf(NoiseKind kind, double p, double x) {
    return kind == NoiseKind::Laplace ? dpxtest::laplacePdf(x, p) : dpxtest::gaussianPdf(x, p);
}

// E[g(Z)] by quadrature (continuous, split at 0) or summation (discrete).
template <class G>
double expectation(NoiseKind kind, double p, G g) {
    if (kind == NoiseKind::DiscreteLaplace) {
        const long K = geometricSupport(p);
        double s = 0;
        for (long z = K; z >= 1; --z) {  // small terms first
            s += geometricPmf(z, p) * (g(double(z)) + g(double(-z)));
        }
        return s + geometricPmf(0, p) * g(0.0);
    }
    return dpxtest::integrateSplit([&](double x) { return g(x) * pdf(kind, p, x); }, {0.0});
}

// Pr[Z > x] from the definition, summing/integrating only the upper tail (no cancellation).
double upperTail(NoiseKind kind, double p, double x) {
    if (kind == NoiseKind::DiscreteLaplace) {
        const long K = geometricSupport(p);
        double s = 0;
        for (long z = K + static_cast<long>(std::max(0.0, x)); double(z) > x; --z) {
            s += geometricPmf(z, p);
        }
        return s;
    }
    return dpxtest::integrateSplit([&](double t) { return pdf(kind, p, t); }, {0.0}, x);
}

// Pr[Z ≤ x], summing/integrating the lower tail.
double lowerTail(NoiseKind kind, double p, double x) {
    if (kind == NoiseKind::DiscreteLaplace) {
        const long K = geometricSupport(p);
        double s = 0;
        for (long z = -K + static_cast<long>(std::min(0.0, x)); double(z) <= x; ++z) {
            s += geometricPmf(z, p);
        }
        return s;
    }
    return dpxtest::integrateSplit([&](double t) { return pdf(kind, p, t); }, {0.0},
                                   -std::numeric_limits<double>::infinity(), x);
}

}  // namespace

class TestNoiseDistribution : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void laws_data();
    void moments_data() { laws_data(); }
    void moments();
    void densityMatchesDefinition_data() { laws_data(); }
    void densityMatchesDefinition();
    void densityNormalised_data() { laws_data(); }
    void densityNormalised();
    void cdfAndSurvival_data() { laws_data(); }
    void cdfAndSurvival();
    void farTail_data() { laws_data(); }
    void farTail();
    void absSurvival_data() { laws_data(); }
    void absSurvival();
    void discreteAtNonIntegers();
    void closedForms();
    void describe();
};

void TestNoiseDistribution::laws_data() {
    QTest::addColumn<NoiseKind>("kind");
    QTest::addColumn<double>("param");
    for (double b : {0.5, 1.0, 10.0, 1000.0}) {
        QTest::addRow("Laplace b=%g", b) << NoiseKind::Laplace << b;
    }
    for (double a : {0.1, 0.5, std::exp(-0.1), std::exp(-1.0), 0.99}) {
        QTest::addRow("geometric alpha=%.6g", a) << NoiseKind::DiscreteLaplace << a;
    }
    for (double s : {0.3, 1.0, 7.5, 1000.0}) {
        QTest::addRow("Gaussian sigma=%g", s) << NoiseKind::Gaussian << s;
    }
}

void TestNoiseDistribution::moments() {
    QFETCH(NoiseKind, kind);
    QFETCH(double, param);
    const auto n = make(kind, param);
    QCOMPARE(n.kind(), kind);
    QCOMPARE(n.parameter(), param);
    QCOMPARE(n.isDiscrete(), kind == NoiseKind::DiscreteLaplace);
    // E[Z²] and E|Z| by quadrature / summation.
    DPX_VERIFY_REL(n.variance(), expectation(kind, param, [](double z) { return z * z; }), 1e-10);
    DPX_VERIFY_REL(n.meanAbs(), expectation(kind, param, [](double z) { return std::abs(z); }),
                   1e-10);
    // Mean zero (symmetry).
    DPX_VERIFY_NEAR(expectation(kind, param, [](double z) { return z; }), 0.0, 1e-12 * n.meanAbs());
}

void TestNoiseDistribution::densityMatchesDefinition() {
    QFETCH(NoiseKind, kind);
    QFETCH(double, param);
    const auto n = make(kind, param);
    if (kind == NoiseKind::DiscreteLaplace) {
        for (long z : {-40L, -3L, -1L, 0L, 1L, 2L, 17L}) {
            DPX_VERIFY_REL(n.density(double(z)), geometricPmf(z, param), 1e-13);
        }
        return;
    }
    for (double u : {-30.0, -2.0, -0.5, 0.0, 0.1, 1.0, 3.0, 20.0}) {
        const double x = u * param;
        DPX_VERIFY_REL(n.density(x), pdf(kind, param, x), 1e-13);
    }
}

void TestNoiseDistribution::densityNormalised() {
    QFETCH(NoiseKind, kind);
    QFETCH(double, param);
    const auto n = make(kind, param);
    // The core's own density integrates/sums to 1 and its second moment is its variance().
    if (kind == NoiseKind::DiscreteLaplace) {
        const long K = geometricSupport(param);
        double mass = 0;
        double m2 = 0;
        for (long z = -K; z <= K; ++z) {
            mass += n.density(double(z));
            m2 += double(z) * double(z) * n.density(double(z));
        }
        DPX_VERIFY_NEAR(mass, 1.0, 1e-12);
        DPX_VERIFY_REL(m2, n.variance(), 1e-10);
        return;
    }
    DPX_VERIFY_NEAR(dpxtest::integrateSplit([&](double x) { return n.density(x); }, {0.0}), 1.0,
                    1e-12);
    DPX_VERIFY_REL(dpxtest::integrateSplit([&](double x) { return x * x * n.density(x); }, {0.0}),
                   n.variance(), 1e-10);
}

void TestNoiseDistribution::cdfAndSurvival() {
    QFETCH(NoiseKind, kind);
    QFETCH(double, param);
    const auto n = make(kind, param);
    const double scale = kind == NoiseKind::DiscreteLaplace ? 1.0 : param;
    const double pts[] = {-12, -3, -1, -0.5, 0, 0.3, 1, 2, 7.25};
    for (double u : pts) {
        const double x = u * scale;
        const double lo = lowerTail(kind, param, x);
        const double up = upperTail(kind, param, x);
        DPX_VERIFY_NEAR(lo + up, 1.0, 1e-12);  // self-check of the reference
        DPX_VERIFY_REL(n.cdf(x), lo, 1e-10);
        DPX_VERIFY_REL(n.survival(x), up, 1e-10);
        DPX_VERIFY_NEAR(n.cdf(x) + n.survival(x), 1.0, 1e-14);
    }
}

void TestNoiseDistribution::farTail() {
    QFETCH(NoiseKind, kind);
    QFETCH(double, param);
    const auto n = make(kind, param);
    // Far in the tails the answer must keep its relative accuracy (no 1 − cdf cancellation).
    const double scale = kind == NoiseKind::DiscreteLaplace ? 1.0 : param;
    const double u = kind == NoiseKind::Gaussian ? 25.0 : 30.0;
    const double x = kind == NoiseKind::DiscreteLaplace ? std::floor(u / (1 - param)) : u * scale;
    const double ref = upperTail(kind, param, x);
    QVERIFY2(ref > 0 && ref < 1e-12, QByteArray::number(ref).constData());
    DPX_VERIFY_REL(n.survival(x), ref, 1e-9);
    DPX_VERIFY_REL(n.cdf(-x - (kind == NoiseKind::DiscreteLaplace ? 1.0 : 0.0)), ref, 1e-9);
    DPX_VERIFY_REL(n.absSurvival(x), 2 * ref, 1e-9);
}

void TestNoiseDistribution::absSurvival() {
    QFETCH(NoiseKind, kind);
    QFETCH(double, param);
    const auto n = make(kind, param);
    const double scale = kind == NoiseKind::DiscreteLaplace ? 1.0 : param;
    for (double u : {0.0, 0.2, 1.0, 2.5, 6.0}) {
        const double t = u * scale;
        // Pr[|Z| > t] = Pr[Z > t] + Pr[Z < −t] (symmetry: Pr[Z < −t] = Pr[Z > t]).
        DPX_VERIFY_REL(n.absSurvival(t), 2 * upperTail(kind, param, t), 1e-10);
    }
    if (kind != NoiseKind::DiscreteLaplace) {
        DPX_VERIFY_NEAR(n.absSurvival(0), 1.0, 1e-15);
    }
}

void TestNoiseDistribution::discreteAtNonIntegers() {
    const double a = std::exp(-0.7);
    const auto n = NoiseDistribution::discreteLaplace(a);
    // At real x the law is evaluated at floor(x): Pr[Z ≤ 2.5] = Pr[Z ≤ 2], Pr[Z ≤ −2.5] = Pr[Z ≤
    // −3].
    DPX_VERIFY_REL(n.cdf(2.5), n.cdf(2.0), 1e-15);
    DPX_VERIFY_REL(n.cdf(-2.5), lowerTail(NoiseKind::DiscreteLaplace, a, -3.0), 1e-12);
    DPX_VERIFY_REL(n.survival(2.5), upperTail(NoiseKind::DiscreteLaplace, a, 2.0), 1e-12);
    DPX_VERIFY_REL(n.absSurvival(2.5), n.absSurvival(2.0), 1e-15);
    QCOMPARE(n.density(0.5), 0.0);
    QCOMPARE(n.density(-3.25), 0.0);
}

void TestNoiseDistribution::closedForms() {
    // Header closed forms, spot values computed by hand.
    // Laplace b = 10: variance 2b² = 200, E|Z| = b = 10.
    DPX_VERIFY_REL(NoiseDistribution::laplace(10).variance(), 200.0, 1e-15);
    DPX_VERIFY_REL(NoiseDistribution::laplace(10).meanAbs(), 10.0, 1e-15);
    // Geometric α = 1/2: variance 2α/(1−α)² = 4, E|Z| = 2α/(1−α²) = 4/3.
    DPX_VERIFY_REL(NoiseDistribution::discreteLaplace(0.5).variance(), 4.0, 1e-15);
    DPX_VERIFY_REL(NoiseDistribution::discreteLaplace(0.5).meanAbs(), 4.0 / 3.0, 1e-15);
    // Gaussian σ = 2: variance 4, E|Z| = 2√(2/π).
    DPX_VERIFY_REL(NoiseDistribution::gaussian(2).meanAbs(), 2 * std::sqrt(2 / std::numbers::pi),
                   1e-15);
    // Laplace b = 1: Pr[Z ≤ 0] = 1/2, Pr[Z > 1] = e^(−1)/2.
    DPX_VERIFY_NEAR(NoiseDistribution::laplace(1).cdf(0), 0.5, 1e-16);
    DPX_VERIFY_REL(NoiseDistribution::laplace(1).survival(1), 0.5 * std::exp(-1.0), 1e-15);
    // Geometric α = 1/2: Pr[Z = 0] = (1−α)/(1+α) = 1/3; Pr[Z ≥ 1] = α/(1+α) = 1/3.
    DPX_VERIFY_REL(NoiseDistribution::discreteLaplace(0.5).density(0), 1.0 / 3.0, 1e-15);
    DPX_VERIFY_REL(NoiseDistribution::discreteLaplace(0.5).survival(0), 1.0 / 3.0, 1e-15);
}

void TestNoiseDistribution::describe() {
    // The CLI contract prints this string ("noise":"Laplace(b = 10)").
    QCOMPARE(NoiseDistribution::laplace(10).describe(), std::string("Laplace(b = 10)"));
    QVERIFY(dpxtest::mentions(NoiseDistribution::gaussian(2.5).describe(), "2.5"));
    QVERIFY(dpxtest::mentions(NoiseDistribution::discreteLaplace(0.5).describe(), "0.5"));
}

QTEST_APPLESS_MAIN(TestNoiseDistribution)
#include "tst_noise_distribution.moc"
