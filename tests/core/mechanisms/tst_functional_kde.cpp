// Functional KDE release (core/mechanisms/functional_kde.h, seed 003 §3.3.1): the noise scale
// against the seed's Fig. 3.2 value, the true KDE against a direct sum, the pivoted-Cholesky factor
// of the Gaussian kernel against K entry by entry, and rejection of every bad parameter.
// Deterministic except sampledCovarianceMatchesK, whose tolerance is 5 standard errors.
#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>
#include <stop_token>
#include <vector>

#include "core/mechanisms/functional_kde.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> grid(double lo, double hi, std::size_t m) {
    std::vector<double> g(m);
    for (std::size_t i = 0; i < m; ++i) {
        g[i] = lo + (hi - lo) * double(i) / double(m - 1);
    }
    return g;
}

// max_ij |(L·Lᵀ)_ij − exp(−(x_i − x_j)²/(2h²))|, computed here without Eigen.
double factorError(const GaussianKernelFactor& f, const std::vector<double>& x, double h) {
    double worst = 0;
    for (std::size_t i = 0; i < f.points; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            double s = 0;
            for (std::size_t r = 0; r < f.rank; ++r) {
                s += f.factor[r * f.points + i] * f.factor[r * f.points + j];
            }
            const double u = x[i] - x[j];
            worst = std::max(worst, std::abs(s - std::exp(-u * u / (2 * h * h))));
        }
    }
    return worst;
}
}  // namespace

class TestFunctionalKde : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noiseScaleFig32();
    void kernelDensityDirectSum();
    void factorMatchesKernel_data();
    void factorMatchesKernel();
    void releaseFig32();
    void sampledCovarianceMatchesK();
    void largeEpsilonRefusedOrWarned();
    void gridKdeMatchesDirectSum_data();
    void gridKdeMatchesDirectSum();
    void progressAndCancellation();
    void silverman();
    void analyticCalibration();
    void rejections();
};

void TestFunctionalKde::noiseScaleFig32() {
    // Seed 003 Fig. 3.2 / digest: n = 100, h = 0.1, ε = 1, δ = 0.1 → pointwise sd 0.138099.
    // By hand: c = √(2 ln 20) = 2.447746830680816, Δ = √2/(100·√(2π)·0.1) = 0.05641895835477563.
    QCOMPARE(kdeCDelta(0.1), std::sqrt(2 * std::log(20.0)));
    DPX_VERIFY_REL(kdeCDelta(0.1), 2.447746830680816, 1e-15);
    DPX_VERIFY_REL(kdeSensitivity(100, 0.1), 0.05641895835477563, 1e-15);
    const auto s = kdeNoiseScale(100, 0.1, 1, 0.1);
    DPX_VERIFY_OK(s);
    DPX_VERIFY_NEAR(*s, 0.138099, 5e-7);  // the seed's six digits
}

void TestFunctionalKde::kernelDensityDirectSum() {
    const std::vector<double> data = {0.2, 0.5, 0.55};
    const std::vector<double> g = {0.0, 0.5, 1.3};
    const auto f = kernelDensity(data, 0.2, g);
    DPX_VERIFY_OK(f);
    const double norm = 1 / (3 * std::sqrt(2 * std::numbers::pi) * 0.2);
    for (std::size_t j = 0; j < g.size(); ++j) {
        double s = 0;
        for (double x : data) {
            s += std::exp(-(g[j] - x) * (g[j] - x) / 0.08);
        }
        DPX_VERIFY_REL((*f)[j], norm * s, 1e-14);
    }
    // Integrates to 1 (trapezoid on a wide fine grid; the tails beyond ±10h are < 1e-20).
    const auto wide = grid(-3, 4, 7001);
    const auto fw = kernelDensity(data, 0.2, wide);
    DPX_VERIFY_OK(fw);
    double integral = 0;
    for (std::size_t j = 1; j < wide.size(); ++j) {
        integral += 0.5 * ((*fw)[j] + (*fw)[j - 1]) * (wide[j] - wide[j - 1]);
    }
    DPX_VERIFY_NEAR(integral, 1.0, 1e-9);
}

void TestFunctionalKde::factorMatchesKernel_data() {
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("points");
    QTest::addColumn<double>("h");
    QTest::newRow("Fig 3.2 grid: [0, 1], 1000 points, h = 0.1") << 0.0 << 1.0 << 1000 << 0.1;
    QTest::newRow("2000 points, h = 0.05") << -0.5 << 1.5 << 2000 << 0.05;
    QTest::newRow("coarse: 50 points, h = 0.01 (nearly diagonal)") << 0.0 << 1.0 << 50 << 0.01;
    QTest::newRow("2 points") << 0.0 << 1.0 << 2 << 0.3;
}

void TestFunctionalKde::factorMatchesKernel() {
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, points);
    QFETCH(double, h);
    const auto x = grid(lo, hi, std::size_t(points));
    const auto f = factorGaussianKernel(x, h);
    DPX_VERIFY_OK(f);
    QVERIFY(f->maxResidual <= kDefaultKernelTolerance);
    QVERIFY(f->rank >= 1 && f->rank <= f->points);
    // The residual K − L·Lᵀ is PSD with diagonal ≤ τ, so every entry is within τ (plus rounding).
    const double err = factorError(*f, x, h);
    QVERIFY2(err <= kDefaultKernelTolerance + 1e-12,
             qPrintable(QStringLiteral("max |LLᵀ − K| = %1 at rank %2").arg(err).arg(f->rank)));
    qInfo("%d points, h = %g: rank %zu, max |LLᵀ − K| = %.3g", points, h, f->rank, err);
    // A looser tolerance gives a smaller rank and an error within that tolerance.
    const auto loose = factorGaussianKernel(x, h, 1e-4);
    DPX_VERIFY_OK(loose);
    QVERIFY(loose->rank <= f->rank);
    QVERIFY(factorError(*loose, x, h) <= 1e-4 + 1e-12);
}

void TestFunctionalKde::releaseFig32() {
    const auto data = twoClusterSample();
    DPX_VERIFY_OK(data);
    QCOMPARE(data->size(), std::size_t(100));
    FunctionalKdeParams p;  // the defaults are Fig. 3.2's setting
    QCOMPARE(p.gridPoints, std::size_t(1000));
    p.samples = 4;
    p.seed = 5;
    const auto r = releaseFunctionalKde(*data, p);
    DPX_VERIFY_OK(r);
    QCOMPARE(r->grid.size(), std::size_t(1000));
    QCOMPARE(r->grid.front(), 0.0);
    QCOMPARE(r->grid.back(), 1.0);
    QCOMPARE(r->releases.size(), std::size_t(4));
    DPX_VERIFY_NEAR(r->noiseScale, 0.138099, 5e-7);
    QVERIFY(r->covarianceError <= r->noiseScale * r->noiseScale * kDefaultKernelTolerance);
    QVERIFY(r->warnings.empty());
    // The two peaks of the true KDE near 0.3 and 0.7 (the mixture's centres).
    const auto argmaxIn = [&](double a, double b) {
        double best = -1, at = 0;
        for (std::size_t j = 0; j < r->grid.size(); ++j) {
            if (r->grid[j] >= a && r->grid[j] <= b && r->trueKde[j] > best) {
                best = r->trueKde[j];
                at = r->grid[j];
            }
        }
        return at;
    };
    DPX_VERIFY_NEAR(argmaxIn(0, 0.5), 0.3, 0.08);
    DPX_VERIFY_NEAR(argmaxIn(0.5, 1), 0.7, 0.08);
    // Releases differ from each other and from the truth; the same seed reproduces them.
    QVERIFY(r->releases[0] != r->releases[1]);
    QVERIFY(r->releases[0] != r->trueKde);
    const auto again = releaseFunctionalKde(*data, p);
    DPX_VERIFY_OK(again);
    QCOMPARE(again->releases, r->releases);
}

void TestFunctionalKde::sampledCovarianceMatchesK() {
    // 20 000 releases on 40 grid points of [0, 1] (h = 0.1, n = 100, ε = 1, δ = 0.1): the
    // empirical covariance of f̃ − f_D divided by s² = 0.138099² must match K. Each entry's
    // estimate has variance (K_ii K_jj + K_ij²)/m ≤ 2/m, so 5·√(2/m) = 0.05 bounds every entry.
    const std::vector<double> data(100, 0.5);
    FunctionalKdeParams p;
    p.gridPoints = 40;
    p.samples = 1000;
    const std::size_t rounds = 20;
    const std::size_t m = p.samples * rounds;
    std::vector<double> cov(40 * 40, 0.0);
    double s2 = 0;
    for (std::size_t round = 0; round < rounds; ++round) {
        p.seed = 100 + round;
        const auto r = releaseFunctionalKde(data, p);
        DPX_VERIFY_OK(r);
        s2 = r->noiseScale * r->noiseScale;
        for (const auto& rel : r->releases) {
            for (std::size_t i = 0; i < 40; ++i) {
                for (std::size_t j = 0; j < 40; ++j) {
                    cov[i * 40 + j] += (rel[i] - r->trueKde[i]) * (rel[j] - r->trueKde[j]);
                }
            }
        }
    }
    const auto x = grid(0, 1, 40);
    double worst = 0;
    for (std::size_t i = 0; i < 40; ++i) {
        for (std::size_t j = 0; j < 40; ++j) {
            const double k = std::exp(-(x[i] - x[j]) * (x[i] - x[j]) / 0.02);
            worst = std::max(worst, std::abs(cov[i * 40 + j] / double(m) / s2 - k));
        }
    }
    qInfo("max |sampled covariance / s² − K| over 40×40 entries, %zu releases: %.4f", m, worst);
    QVERIFY2(worst <= 5 * std::sqrt(2.0 / double(m)), qPrintable(QString::number(worst)));
}

void TestFunctionalKde::largeEpsilonRefusedOrWarned() {
    const std::vector<double> data = {0.1, 0.4};
    FunctionalKdeParams p;
    p.gridPoints = 20;
    p.samples = 1;
    // ε = 1.5, δ = 0.1: c(δ)Δ/ε is still (ε, δ)-DP by the exact profile, with a warning.
    p.epsilon = 1.5;
    const auto ok = releaseFunctionalKde(data, p);
    DPX_VERIFY_OK(ok);
    QVERIFY(!ok->warnings.empty() && dpxtest::mentions(ok->warnings.front(), "ε ≤ 1"));
    // ε = 20, δ = 1e-5: the seed formula falls short of (ε, δ): refused.
    p.epsilon = 20;
    p.delta = 1e-5;
    DPX_VERIFY_ERROR(releaseFunctionalKde(data, p), "not (ε, δ)-dp");
}

// The fast KDE on an evenly spaced grid against the direct sum kernelDensity: within 10⁻¹²
// relative plus the dropped tail terms (each < e^(−40.5) of the kernel's peak 1/(√(2π)h)), for
// a bandwidth much larger than the grid step, about equal to it, much smaller, much larger than
// the range, and with data outside the grid.
void TestFunctionalKde::gridKdeMatchesDirectSum_data() {
    QTest::addColumn<double>("h");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("m");
    QTest::newRow("fig32") << 0.1 << 0.0 << 1.0 << 1000;
    QTest::newRow("h = step") << 0.001 << 0.0 << 1.0 << 1001;
    QTest::newRow("h << step") << 1e-4 << 0.0 << 1.0 << 101;
    QTest::newRow("h >> range") << 10.0 << 0.0 << 1.0 << 200;
    QTest::newRow("data outside") << 0.05 << 0.4 << 0.6 << 2000;
}

void TestFunctionalKde::gridKdeMatchesDirectSum() {
    QFETCH(double, h);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, m);
    const auto data = twoClusterSample(3000, 7);
    DPX_VERIFY_OK(data);
    // The grid as the release builds it: lo + i·step, the last point exactly hi (a grid built as
    // lo + (hi − lo)·i/(m − 1) differs in the last bit, which moves a kernel 9h away by 10⁻¹²
    // relative when h = 10⁻⁴).
    std::vector<double> x(static_cast<std::size_t>(m));
    const double step = (hi - lo) / (m - 1);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = lo + step * double(i);
    }
    x.back() = hi;
    const auto direct = kernelDensity(*data, h, x);
    DPX_VERIFY_OK(direct);
    const auto fast = kernelDensityOnGrid(*data, h, lo, hi, static_cast<std::size_t>(m));
    DPX_VERIFY_OK(fast);
    QCOMPARE(fast->size(), direct->size());
    const double floor = 3e-18 / (std::sqrt(2 * std::numbers::pi) * h);
    double worst = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
        const double err = std::abs((*fast)[j] - (*direct)[j]);
        worst = std::max(worst, err / (1e-12 * (*direct)[j] + floor));
    }
    QVERIFY2(worst <= 1, qPrintable(QString::number(worst)));
}

// The release uses the fast KDE with progress (rising to ≥ 0.95) and stops on request with
// "cancelled" and no result; so does the factor.
void TestFunctionalKde::progressAndCancellation() {
    const auto data = twoClusterSample(30000, 3);
    DPX_VERIFY_OK(data);
    FunctionalKdeParams p;
    p.gridPoints = 500;
    p.samples = 1;
    std::vector<double> seen;
    const auto r = releaseFunctionalKde(*data, p, {}, [&seen](double f) { seen.push_back(f); });
    DPX_VERIFY_OK(r);
    const auto fast = kernelDensityOnGrid(*data, p.bandwidth, 0, 1, 500);
    DPX_VERIFY_OK(fast);
    QCOMPARE(r->trueKde, *fast);
    QVERIFY(seen.size() >= 8);
    for (std::size_t i = 1; i < seen.size(); ++i) {
        QVERIFY(seen[i] >= seen[i - 1]);
    }
    QVERIFY(seen.front() > 0 && seen.back() >= 0.95 && seen.back() <= 1);
    std::stop_source stop;
    stop.request_stop();
    DPX_VERIFY_ERROR(releaseFunctionalKde(*data, p, stop.get_token()), "cancelled");
    DPX_VERIFY_ERROR(kernelDensityOnGrid(*data, 0.1, 0, 1, 10, stop.get_token()), "cancelled");
    const auto x = grid(0, 1, 50);
    DPX_VERIFY_ERROR(factorGaussianKernel(x, 0.1, kDefaultKernelTolerance, stop.get_token()),
                     "cancelled");
    DPX_VERIFY_ERROR(kernelDensityOnGrid(*data, 0.1, 1, 1, 10), "lo < hi");
    DPX_VERIFY_ERROR(kernelDensityOnGrid(*data, 0.1, 0, 1, 1), "at least 2");
    DPX_VERIFY_ERROR(kernelDensityOnGrid(*data, 0, 0, 1, 10), "bandwidth");
}

// Silverman's rule 0.9·min(s, IQR/1.34)·n^(−1/5), worked by hand. {1, 2, 3, 4, 10}: mean 4,
// s² = (9 + 4 + 1 + 0 + 36)/4 = 12.5, quartiles 2 and 4 (positions 1 and 3), IQR/1.34 = 1.4925 <
// s = 3.5355, so h = 0.9·(2/1.34)·5^(−0.2). {0, 0, 0, 1}: IQR = 0.25 − 0 → min(s = 0.5, 0.1866).
// {0, 0, 0, 0, 1}: IQR 0, so s = √0.2 is used.
void TestFunctionalKde::silverman() {
    DPX_VERIFY_NEAR(*silvermanBandwidth(std::vector<double>{1, 2, 3, 4, 10}),
                    0.9 * (2 / 1.34) * std::pow(5.0, -0.2), 1e-14);
    DPX_VERIFY_NEAR(*silvermanBandwidth(std::vector<double>{0, 0, 0, 1}),
                    0.9 * (0.25 / 1.34) * std::pow(4.0, -0.2), 1e-14);
    DPX_VERIFY_NEAR(*silvermanBandwidth(std::vector<double>{0, 0, 0, 0, 1}),
                    0.9 * std::sqrt(0.2) * std::pow(5.0, -0.2), 1e-14);
    DPX_VERIFY_ERROR(silvermanBandwidth(std::vector<double>{3}), "at least 2");
    DPX_VERIFY_ERROR(silvermanBandwidth(std::vector<double>{3, 3, 3}), "constant");
    DPX_VERIFY_ERROR(silvermanBandwidth(std::vector<double>{3, kNaN}), "finite");
}

// The analytic calibration (Balle & Wang 2018 Thm 8) at ε = 10, δ = 10⁻⁶, where the seed's
// c(δ)Δ/ε = 0.0303916 is refused (its exact δ is 1.15·10⁻⁶): σ is the smallest with exact
// δ(σ) ≤ δ, so the profile is within 10⁻⁶ relative of δ there and σ exceeds 0.0303916; at
// Fig. 3.2's ε = 1, δ = 0.1 it is below the seed's 0.138099.
void TestFunctionalKde::analyticCalibration() {
    const auto data = twoClusterSample();
    DPX_VERIFY_OK(data);
    FunctionalKdeParams p;
    p.epsilon = 10;
    p.delta = 1e-6;
    p.samples = 1;
    DPX_VERIFY_ERROR(releaseFunctionalKde(*data, p), "analytic calibration");
    p.calibration = GaussianCalibration::Analytic;
    const auto r = releaseFunctionalKde(*data, p);
    DPX_VERIFY_OK(r);
    const double delta = gaussianExactDelta(r->noiseScale, 10, r->sensitivity);
    QVERIFY(delta <= 1e-6 * (1 + 1e-9));
    QVERIFY(delta >= 1e-6 * (1 - 1e-6));
    QVERIFY(r->noiseScale > 0.0303916);  // above the refused c(δ)Δ/ε, which is too small
    QVERIFY(r->warnings.empty());
    p.epsilon = 1;
    p.delta = 0.1;
    const auto fig = releaseFunctionalKde(*data, p);
    DPX_VERIFY_OK(fig);
    QVERIFY(fig->noiseScale < 0.138099);
    QVERIFY(gaussianExactDelta(fig->noiseScale, 1, fig->sensitivity) <= 0.1 * (1 + 1e-9));
}

void TestFunctionalKde::rejections() {
    const std::vector<double> data = {0.1, 0.4};
    FunctionalKdeParams good;
    good.gridPoints = 20;
    DPX_VERIFY_OK(good.validate());
    for (double h : {0.0, -0.1, kNaN, kInf}) {
        FunctionalKdeParams p = good;
        p.bandwidth = h;
        DPX_VERIFY_ERROR(p.validate(), "bandwidth");
        DPX_VERIFY_ERROR(kdeNoiseScale(10, h, 1, 0.1), "bandwidth");
        DPX_VERIFY_ERROR(factorGaussianKernel(std::vector<double>{0, 1}, h), "bandwidth");
    }
    for (double lo : {kNaN, -kInf}) {
        FunctionalKdeParams p = good;
        p.gridLo = lo;
        DPX_VERIFY_ERROR(p.validate(), "grid range");
    }
    {
        FunctionalKdeParams p = good;
        p.gridLo = 1;
        p.gridHi = 1;
        DPX_VERIFY_ERROR(p.validate(), "LO < HI");
        p.gridHi = 0;
        DPX_VERIFY_ERROR(p.validate(), "LO < HI");
    }
    for (std::size_t m : {std::size_t(0), std::size_t(1), std::size_t(2001)}) {
        FunctionalKdeParams p = good;
        p.gridPoints = m;
        DPX_VERIFY_ERROR(p.validate(), "grid points");
    }
    for (double eps : {0.0, -1.0, kNaN, kInf}) {
        FunctionalKdeParams p = good;
        p.epsilon = eps;
        DPX_VERIFY_ERROR(p.validate(), "ε|epsilon");
    }
    for (double delta : {0.0, 1.0, -0.5, kNaN, kInf}) {
        FunctionalKdeParams p = good;
        p.delta = delta;
        DPX_VERIFY_ERROR(p.validate(), "δ|delta");
    }
    for (std::size_t k : {std::size_t(0), kMaxKdeSamples + 1}) {
        FunctionalKdeParams p = good;
        p.samples = k;
        DPX_VERIFY_ERROR(p.validate(), "sampled releases");
    }
    DPX_VERIFY_ERROR(releaseFunctionalKde(std::vector<double>{}, good), "empty");
    DPX_VERIFY_ERROR(releaseFunctionalKde(std::vector<double>{0.1, kNaN}, good), "data value 2");
    DPX_VERIFY_ERROR(releaseFunctionalKde(std::vector<double>{kInf}, good), "finite");
    DPX_VERIFY_ERROR(kdeNoiseScale(0, 0.1, 1, 0.1), "n must");
    DPX_VERIFY_ERROR(kernelDensity(data, 0.1, std::vector<double>{0, kNaN}), "grid");
    DPX_VERIFY_ERROR(factorGaussianKernel(std::vector<double>{}, 0.1), "grid");
    DPX_VERIFY_ERROR(factorGaussianKernel(std::vector<double>{0, 1}, 0.1, -1), "tolerance");
    DPX_VERIFY_ERROR(factorGaussianKernel(std::vector<double>{0, 1}, 0.1, kNaN), "tolerance");
    DPX_VERIFY_ERROR(twoClusterSample(0), "between 1");
    DPX_VERIFY_ERROR(twoClusterSample(10, 1, 0), "spread");
}

QTEST_APPLESS_MAIN(TestFunctionalKde)
#include "tst_functional_kde.moc"
