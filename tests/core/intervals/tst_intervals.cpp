// Intervals for published counts (core/intervals/intervals.h) against independent references:
// the Laplace and Gaussian quantiles against numerical integration of the density and Boost's
// normal quantile; the discrete laws against brute-force sums of their mass (long double, written
// here from the definitions); the discrete Gaussian's sum against Monte Carlo; the count
// mechanism against a direct scan of each column; and, for every law, the per-bin, Bonferroni and
// exact-max intervals and the post-processed ones (clamp, resize, NoiseFirst) by coverage in fresh
// simulations: the fraction covered must be within 4 Monte Carlo standard errors of the stated
// level (or of the exact coverage, for the discrete laws whose coverage jumps above the level).
// Fixed seeds throughout.
#include <QTest>

#include <cmath>
#include <random>

#include <boost/math/distributions/hypergeometric.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>

#include "core/base/simulation_rng.h"
#include "core/count/count_mechanism.h"
#include "core/intervals/intervals.h"
#include "core/intervals/release_intervals.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

// Brute force: smallest k with Σ_{|z|≤k} w(z) ≥ level·Σ_z w(z), w unnormalised, over |z| ≤ zmax.
template <class W>
long bruteForceHalfWidth(W w, long zmax, double level, long double* coverage = nullptr) {
    long double total = 0;
    for (long z = -zmax; z <= zmax; ++z)
        total += w(z);
    long double inside = w(0);
    long k = 0;
    while (inside < static_cast<long double>(level) * total) {
        ++k;
        inside += w(k) + w(-k);
    }
    if (coverage)
        *coverage = inside / total;
    return k;
}

// Fraction of `trials` draws of `draw()` with |x| ≤ h.
template <class D>
double coveredFraction(D draw, double h, int trials) {
    int inside = 0;
    for (int i = 0; i < trials; ++i)
        inside += std::abs(draw()) <= h ? 1 : 0;
    return static_cast<double>(inside) / trials;
}

double se(double p, int trials) {
    return std::sqrt(p * (1 - p) / trials);
}

std::vector<CellNoise> allLaws() {
    return {{CellNoiseKind::Laplace, 3.0},
            {CellNoiseKind::DiscreteLaplace, std::exp(-0.5)},
            {CellNoiseKind::Gaussian, 2.5},
            CellNoise::discreteGaussian(7.3)};
}

}  // namespace

class TestIntervals : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void laplaceAgainstIntegration();
    void gaussianAgainstBoost();
    void discreteLaplaceAgainstBruteForce();
    void discreteGaussianAgainstBruteForce();
    void discreteGaussianLargeSigma();
    void cellCoverageEveryLaw();
    void sumsCoverage();
    void discreteGaussianSumAgainstMonteCarlo();
    void simultaneousCoverage();
    void countMechanismAgainstScan();
    void postProcessedCoverage();
    void releaseAfterPostProcessingCoverage();
    void postProcessedBoundsByHand();
    void samplingAgainstHypergeometric();
    void combinedAgainstMonteCarlo();
    void combinedCoverageOnSyntheticPopulation();
    void kishByHand();
    void sentenceAndWords();
    void badInputs();
};

void TestIntervals::laplaceAgainstIntegration() {
    for (double level : {0.5, 0.9, 0.95, 0.99}) {
        auto r = cellInterval({CellNoiseKind::Laplace, 2.0}, level);
        QVERIFY(r);
        double err = 0;
        const double mass = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
            [](double x) { return std::exp(-std::abs(x) / 2.0) / 4.0; }, -r->halfWidth,
            r->halfWidth, 15, 1e-14, &err);
        DPX_VERIFY_NEAR(mass, level, 1e-12);
    }
    // 95 %: b·ln 20.
    DPX_VERIFY_REL(cellInterval({CellNoiseKind::Laplace, 1.0}, 0.95)->halfWidth, std::log(20.0),
                   1e-14);
}

void TestIntervals::gaussianAgainstBoost() {
    const boost::math::normal_distribution<double> n(0, 4);
    for (double level : {0.9, 0.95, 0.99}) {
        auto r = cellInterval({CellNoiseKind::Gaussian, 4.0}, level);
        QVERIFY(r);
        DPX_VERIFY_REL(r->halfWidth, boost::math::quantile(n, (1 + level) / 2), 1e-13);
        // Sum of 9 cells: σ·3.
        auto s = sumInterval({CellNoiseKind::Gaussian, 4.0}, 9, level);
        DPX_VERIFY_REL(s->halfWidth, 3 * r->halfWidth, 1e-13);
    }
}

void TestIntervals::discreteLaplaceAgainstBruteForce() {
    for (double eps : {0.01, 0.1, 1.0, 3.0}) {
        const double alpha = std::exp(-eps);
        for (double level : {0.9, 0.95, 0.99, 0.999999}) {
            auto r = cellInterval({CellNoiseKind::DiscreteLaplace, alpha}, level);
            QVERIFY(r);
            long double cov = 0;
            const long zmax = static_cast<long>(60 / eps) + 10;
            const long k = bruteForceHalfWidth(
                [&](long z) { return std::pow(static_cast<long double>(alpha), std::labs(z)); },
                zmax, level, &cov);
            QCOMPARE(r->halfWidth, static_cast<double>(k));
            DPX_VERIFY_NEAR(r->coverage, static_cast<double>(cov), 1e-12);
            QVERIFY(r->coverage >= level);
        }
    }
}

void TestIntervals::discreteGaussianAgainstBruteForce() {
    for (double sigma2 : {0.2, 1.0, 7.3, 400.0, 1e5}) {
        for (double level : {0.9, 0.95, 0.99}) {
            auto r = cellInterval(CellNoise::discreteGaussian(sigma2), level);
            QVERIFY(r);
            long double cov = 0;
            const long zmax = static_cast<long>(14 * std::sqrt(sigma2)) + 10;
            const long k = bruteForceHalfWidth(
                [&](long z) {
                    const long double x = static_cast<long double>(z);
                    return std::exp(-x * x / (2 * static_cast<long double>(sigma2)));
                },
                zmax, level, &cov);
            QCOMPARE(r->halfWidth, static_cast<double>(k));
            DPX_VERIFY_NEAR(r->coverage, static_cast<double>(cov), 1e-12);
            QVERIFY(r->coverage >= level);
        }
    }
    // The variance is below σ² (CKS 2020 Prop. 5) and close to it for σ ≥ 1.
    const double v = CellNoise::discreteGaussian(4.0).variance();
    QVERIFY(v <= 4.0 && v > 4.0 * (1 - 1e-6));
}

void TestIntervals::discreteGaussianLargeSigma() {
    // σ = 2·10⁴ is beyond the direct sums: the Euler–Maclaurin branch against brute force.
    const double sigma2 = 4e8;
    for (double level : {0.95, 0.99}) {
        auto r = cellInterval(CellNoise::discreteGaussian(sigma2), level);
        QVERIFY(r);
        const long k = bruteForceHalfWidth(
            [&](long z) {
                const long double x = static_cast<long double>(z);
                return std::exp(-x * x / (2 * static_cast<long double>(sigma2)));
            },
            static_cast<long>(12 * std::sqrt(sigma2)), level);
        QCOMPARE(r->halfWidth, static_cast<double>(k));
    }
}

void TestIntervals::cellCoverageEveryLaw() {
    const int trials = 40000;
    SimulationRng rng(20261128, 1);
    for (const CellNoise& law : allLaws()) {
        for (double level : {0.9, 0.95, 0.99}) {
            auto r = cellInterval(law, level);
            QVERIFY(r);
            const double f =
                coveredFraction([&] { return sampleCellNoise(law, rng); }, r->halfWidth, trials);
            QVERIFY2(std::abs(f - r->coverage) <= 4 * se(r->coverage, trials),
                     (law.describe() + " at " + std::to_string(level) + ": covered " +
                      std::to_string(f) + ", stated " + std::to_string(r->coverage))
                         .c_str());
        }
    }
}

void TestIntervals::sumsCoverage() {
    const int trials = 20000;
    SimulationRng rng(7, 2);
    for (const CellNoise& law : allLaws()) {
        for (std::uint64_t m : {2U, 5U, 12U}) {
            auto r = sumInterval(law, m, 0.95);
            QVERIFY(r);
            const double f = coveredFraction(
                [&] {
                    double s = 0;
                    for (std::uint64_t i = 0; i < m; ++i)
                        s += sampleCellNoise(law, rng);
                    return s;
                },
                r->halfWidth, trials);
            // Discrete sums: the stated level is a lower bound, the coverage at the integer h is
            // above it by at most the mass of ±h.
            QVERIFY2(
                f >= 0.95 - 4 * se(0.95, trials),
                (law.describe() + " m=" + std::to_string(m) + ": " + std::to_string(f)).c_str());
            if (!law.isDiscrete())
                QVERIFY(f <= 0.95 + 4 * se(0.95, trials));
            else
                QVERIFY(f <= r->coverage + 4 * se(r->coverage, trials) + 0.02);
        }
    }
}

void TestIntervals::discreteGaussianSumAgainstMonteCarlo() {
    // The exact convolution: the stated coverage at h and at h − 1 against simulation.
    const CellNoise law = CellNoise::discreteGaussian(3.0);
    auto r = sumInterval(law, 6, 0.9);
    QVERIFY(r);
    QVERIFY(r->method.find("convolution") != std::string::npos);
    QVERIFY(r->coverage >= 0.9);
    SimulationRng rng(11, 3);
    const int trials = 40000;
    int inside = 0, insideBelow = 0;
    for (int t = 0; t < trials; ++t) {
        double s = 0;
        for (int i = 0; i < 6; ++i)
            s += sampleCellNoise(law, rng);
        inside += std::abs(s) <= r->halfWidth ? 1 : 0;
        insideBelow += std::abs(s) <= r->halfWidth - 1 ? 1 : 0;
    }
    const double f = static_cast<double>(inside) / trials;
    DPX_VERIFY_NEAR(f, r->coverage, 4 * se(r->coverage, trials));
    QVERIFY(static_cast<double>(insideBelow) / trials < 0.9 + 4 * se(0.9, trials));
    // A sum too large for the convolution: the sub-Gaussian bound, never below the level.
    auto big = sumInterval(CellNoise::discreteGaussian(1e6), 1000, 0.95);
    QVERIFY(big);
    QVERIFY(big->method.find("conservative") != std::string::npos);
    const double exactNormal = 1e3 * std::sqrt(1000.0) * 1.959963984540054;
    QVERIFY(big->halfWidth >= exactNormal);
    QVERIFY(big->halfWidth <= 1.5 * exactNormal);
}

void TestIntervals::simultaneousCoverage() {
    const std::uint64_t bins = 40;
    const int trials = 8000;
    SimulationRng rng(99, 4);
    for (const CellNoise& law : allLaws()) {
        auto t = tableIntervals(law, bins, 0.9);
        QVERIFY(t);
        QVERIFY(t->perBin.halfWidth <= t->exactMax.halfWidth);
        QVERIFY(t->exactMax.halfWidth <= t->bonferroni.halfWidth);
        int all = 0, allBonf = 0;
        for (int i = 0; i < trials; ++i) {
            double mx = 0;
            for (std::uint64_t b = 0; b < bins; ++b)
                mx = std::max(mx, std::abs(sampleCellNoise(law, rng)));
            all += mx <= t->exactMax.halfWidth ? 1 : 0;
            allBonf += mx <= t->bonferroni.halfWidth ? 1 : 0;
        }
        const double f = static_cast<double>(all) / trials;
        QVERIFY2(std::abs(f - t->exactMax.coverage) <= 4 * se(t->exactMax.coverage, trials),
                 (law.describe() + ": all bins covered " + std::to_string(f)).c_str());
        QVERIFY(static_cast<double>(allBonf) / trials >= 0.9 - 4 * se(0.9, trials));
    }
    // 65 536 Laplace bins at 95 %: the exact max's per-bin level 0.95^(1/65536).
    auto big = tableIntervals({CellNoiseKind::Laplace, 1.0}, 65536, 0.95);
    DPX_VERIFY_REL(big->exactMax.halfWidth, -std::log(-std::expm1(std::log(0.95) / 65536)), 1e-12);
    DPX_VERIFY_REL(big->bonferroni.halfWidth, std::log(65536 / 0.05), 1e-12);
}

void TestIntervals::countMechanismAgainstScan() {
    const int n = 12;
    auto gm = truncatedGeometric(n, 0.7);
    QVERIFY(gm);
    auto t = countMechanismIntervals(*gm, 5, 0.9);
    QVERIFY(t);
    // Scan: for each true count c, the smallest k with Pr[|Y − c| ≤ k] ≥ 0.9.
    long worst = 0;
    for (int c = 0; c <= n; ++c) {
        const double s = gm->columnSum(static_cast<std::size_t>(c));
        for (long k = 0; k <= n; ++k) {
            double in = 0;
            for (int i = 0; i <= n; ++i)
                if (std::abs(i - c) <= k)
                    in += gm->at(static_cast<std::size_t>(i), static_cast<std::size_t>(c)) / s;
            if (in >= 0.9 - 1e-15) {
                worst = std::max(worst, k);
                break;
            }
        }
    }
    QCOMPARE(t->perBin.halfWidth, static_cast<double>(worst));
    QVERIFY(t->perBin.coverage >= 0.9 - 1e-12);
    QVERIFY(t->exactMax.halfWidth >= t->perBin.halfWidth);
    QVERIFY(t->exactMax.coverage >= 0.9 - 1e-12);
}

void TestIntervals::postProcessedCoverage() {
    // Counts with zeros (where clamp, resize and NoiseFirst move values most) and a plateau.
    const std::vector<double> truth{0, 0, 3, 40, 41, 39, 40, 2, 0, 15};
    const CellNoise law{CellNoiseKind::Laplace, 4.0};
    const double level = 0.9;
    for (EstimatorKind kind :
         {EstimatorKind::Clamp, EstimatorKind::Resize, EstimatorKind::NoiseFirst}) {
        auto r = postProcessedIntervals(kind, law, truth, level, 4000, 5);
        QVERIFY(r);
        QCOMPARE(r->perBin.size(), truth.size());
        // Fresh simulations with another seed.
        SimulationRng rng(6, 7);
        EstimatorWorkspace ws;
        const EstimatorSpec spec{kind, law.variance()};
        const int trials = 4000;
        std::vector<int> inside(truth.size(), 0);
        int all = 0;
        std::vector<double> v(truth.size());
        for (int t = 0; t < trials; ++t) {
            for (std::size_t b = 0; b < truth.size(); ++b)
                v[b] = truth[b] + sampleCellNoise(law, rng);
            estimateInPlace(spec, v, ws);
            double mx = 0;
            for (std::size_t b = 0; b < truth.size(); ++b) {
                const double e = std::abs(v[b] - truth[b]);
                inside[b] += e <= r->perBin[b] ? 1 : 0;
                mx = std::max(mx, e);
            }
            all += mx <= r->simultaneous ? 1 : 0;
        }
        // Both runs are Monte Carlo: the difference has variance L(1 − L)(1/N₁ + 1/N₂). Clamped
        // zeros put mass exactly at an error of 0, so the coverage may jump above the level.
        const double tol = 4 * std::sqrt(level * (1 - level) * (2.0 / 4000));
        for (std::size_t b = 0; b < truth.size(); ++b) {
            const double f = static_cast<double>(inside[b]) / trials;
            QVERIFY2(f >= level - tol, (std::string(estimatorName(kind)) + " bin " +
                                        std::to_string(b) + ": " + std::to_string(f))
                                           .c_str());
            if (truth[b] > 10)
                QVERIFY(f <= level + tol);
        }
        const double fa = static_cast<double>(all) / trials;
        QVERIFY(std::abs(fa - level) <= tol);
        QVERIFY(r->method.find("Monte Carlo") != std::string::npos);
    }
    // Clamp never widens: its Monte Carlo per-bin half-widths are at most the noise interval's.
    auto clamp = postProcessedIntervals(EstimatorKind::Clamp, law, truth, level, 4000, 5);
    const double noise = cellInterval(law, level)->halfWidth;
    for (double h : clamp->perBin)
        QVERIFY(h <= noise * 1.1);
}

// A release after resize or NoiseFirst with --post-intervals (release_intervals.h): the bounds are
// around the noisy count before post-processing, so they must cover the count before noise with
// the stated level for EVERY truth, including the ones where resize shifts a large bin (one large
// count among many zeros: the naive "published ± h" under-covers there, checked as a negative
// control) and where NoiseFirst averages unequal bins. All bins at once: [max(0, lower − d),
// upper + d], d = H − h, must cover every bin with the level.
void TestIntervals::releaseAfterPostProcessingCoverage() {
    const double level = 0.9;
    const int trials = 4000;
    const double tol = 4 * se(level, trials);
    std::vector<double> spike(30, 0.0);
    spike[29] = 200;
    std::vector<double> mixed{0, 0, 3, 40, 41, 39, 40, 2, 0, 15, 0, 7};
    std::vector<double> large{500, 620, 480, 700, 650, 530};
    SimulationRng rng(20261128, 22);
    for (EstimatorKind kind : {EstimatorKind::Resize, EstimatorKind::NoiseFirst}) {
        for (const std::vector<double>* truth : {&spike, &mixed, &large}) {
            ReleaseSpec spec;
            spec.epsilon = "0.5";  // discrete Laplace t = 2
            spec.binsDeclared = true;
            spec.appVersion = "test";
            spec.postProcessing = kind;
            spec.confidenceLevel = level;
            const std::uint64_t bins = truth->size();
            auto off = releaseIntervals(spec, bins);
            QVERIFY(off);
            QVERIFY(!off->has_value());  // not stated unless asked for
            spec.postProcessedIntervals = true;
            auto st = releaseIntervals(spec, bins);
            QVERIFY(st && st->has_value());
            const ReleaseIntervalStatement iv = **st;
            QVERIFY(iv.aroundNoisy);
            QVERIFY(iv.method.find("no Monte Carlo") != std::string::npos);
            const CellNoise law{CellNoiseKind::DiscreteLaplace, std::exp(-0.5)};
            QCOMPARE(iv.halfWidth, cellInterval(law, level)->halfWidth);
            const double d = iv.simultaneousHalfWidth - iv.halfWidth;
            QVERIFY(d >= 0);
            const EstimatorSpec est{kind, law.variance()};
            EstimatorWorkspace ws;
            std::vector<int> inside(bins, 0), naive(bins, 0);
            int all = 0;
            std::vector<double> y(bins), x(bins);
            for (int t = 0; t < trials; ++t) {
                for (std::size_t b = 0; b < bins; ++b)
                    y[b] = (*truth)[b] + sampleCellNoise(law, rng);
                x = y;
                estimateInPlace(est, x, ws);
                bool allIn = true;
                for (std::size_t b = 0; b < bins; ++b) {
                    const double c = (*truth)[b];
                    auto one = postProcessedBounds(x[b], y[b], iv.halfWidth);
                    QVERIFY(one && one->lower <= x[b] && x[b] <= one->upper);
                    inside[b] += one->lower <= c && c <= one->upper ? 1 : 0;
                    naive[b] += std::abs(x[b] - c) <= iv.halfWidth ? 1 : 0;
                    allIn = allIn && std::max(0.0, one->lower - d) <= c && c <= one->upper + d;
                }
                all += allIn ? 1 : 0;
            }
            const std::string what =
                std::string(estimatorName(kind)) + " on " + std::to_string(bins) + " bins";
            for (std::size_t b = 0; b < bins; ++b) {
                const double f = static_cast<double>(inside[b]) / trials;
                QVERIFY2(
                    f >= level - tol,
                    (what + " bin " + std::to_string(b) + " covered " + std::to_string(f)).c_str());
                if (truth == &large && kind == EstimatorKind::Resize) {
                    // No clipping at these counts: resize keeps every value, so the coverage is
                    // the noise law's exact one (the bounds are not needlessly wide).
                    QVERIFY(std::abs(f - iv.coverage) <= 4 * se(iv.coverage, trials));
                }
            }
            const double fa = static_cast<double>(all) / trials;
            QVERIFY2(fa >= level - tol, (what + " all bins " + std::to_string(fa)).c_str());
            if (truth == &spike && kind == EstimatorKind::Resize) {
                // Negative control: resize moves the large bin down by the mass it takes from
                // the clipped zeros; "published ± h" misses its count far more often than 10 %.
                const double f = static_cast<double>(naive[29]) / trials;
                QVERIFY2(f < level - tol, ("naive after resize " + std::to_string(f)).c_str());
            }
        }
    }
}

void TestIntervals::postProcessedBoundsByHand() {
    // [min(v, max(0, y − h)), max(v, max(0, y + h))].
    auto a = postProcessedBounds(5, 3, 4);  // y − h < 0: lower 0; upper 7
    QVERIFY(a);
    QCOMPARE(a->lower, 0.0);
    QCOMPARE(a->upper, 7.0);
    auto b = postProcessedBounds(0, 10, 2);  // resize clipped to 0 a bin noised to 10? lower 0
    QCOMPARE(b->lower, 0.0);
    QCOMPARE(b->upper, 12.0);
    auto c = postProcessedBounds(20, 10, 2);  // the value above the noisy interval
    QCOMPARE(c->lower, 8.0);
    QCOMPARE(c->upper, 20.0);
    // A negative NoiseFirst mean is kept inside, and so is a count ≥ 0 (y + h < 0 happens only
    // when |y − c| > h, but the interval is never empty of counts).
    auto e = postProcessedBounds(-1.5, -3, 1);
    QCOMPARE(e->lower, -1.5);
    QCOMPARE(e->upper, 0.0);
    DPX_VERIFY_ERROR(postProcessedBounds(std::nan(""), 1, 1), "finite");
    DPX_VERIFY_ERROR(postProcessedBounds(1, 1, -1), "half-width");
}

void TestIntervals::samplingAgainstHypergeometric() {
    // The FPC standard error against the variance of the hypergeometric law summed from its pmf:
    // a sample of n = 200 from N = 1000 of which K = 300 are in the bin; c = 60 observed, p = 0.3.
    const unsigned N = 1000, K = 300, n = 200;
    boost::math::hypergeometric_distribution<double> h(K, n, N);
    double mean = 0, m2 = 0;
    for (unsigned c = 0; c <= n; ++c) {
        const double p = boost::math::pdf(h, c);
        mean += c * p;
        m2 += c * static_cast<double>(c) * p;
    }
    const double sdCount = std::sqrt(m2 - mean * mean);
    auto r = samplingIntervals(60, n, N, {CellNoiseKind::Gaussian, 1e-9}, 0.95);
    QVERIFY(r);
    DPX_VERIFY_REL(r->estimate, 300, 1e-12);
    DPX_VERIFY_REL(r->samplingStandardError, (double(N) / n) * sdCount, 1e-12);
    DPX_VERIFY_REL(r->sampling, 1.959963984540054 * r->samplingStandardError, 1e-12);
    // A census (n = N) has no sampling error.
    auto census = samplingIntervals(60, 200, 200, {CellNoiseKind::Laplace, 2.0}, 0.95);
    QCOMPARE(census->sampling, 0.0);
    DPX_VERIFY_REL(census->combined, census->noise, 1e-12);
}

void TestIntervals::combinedAgainstMonteCarlo() {
    // Combined = quantile of S + (N/n)·Z: against simulation for every law.
    SimulationRng rng(31, 8);
    const int trials = 40000;
    for (const CellNoise& law : allLaws()) {
        auto r = samplingIntervals(80, 400, 4000, law, 0.95);
        QVERIFY(r);
        QVERIFY(r->combined >= std::max(r->sampling, r->noise));
        QVERIFY(r->combined <= r->sampling + r->noise);
        const double f = coveredFraction(
            [&] {
                return r->samplingStandardError * rng.normal() + 10 * sampleCellNoise(law, rng);
            },
            r->combined, trials);
        QVERIFY2(std::abs(f - 0.95) <= 4 * se(0.95, trials) + (law.isDiscrete() ? 0.01 : 0),
                 (law.describe() + ": " + std::to_string(f)).c_str());
    }
    // Gaussian: exactly √(s² + (aσ)²)·z.
    auto g = samplingIntervals(80, 400, 4000, {CellNoiseKind::Gaussian, 3}, 0.95);
    DPX_VERIFY_REL(g->combined, std::hypot(g->samplingStandardError, 30.0) * 1.959963984540054,
                   1e-9);
}

// The combined interval (sampling + DP noise) on a synthetic population, end to end: a population
// of N rows of which C fall in the bin; each trial draws a simple random sample of n rows without
// replacement (partial Fisher–Yates), counts the bin, adds discrete Laplace noise, and asks
// samplingIntervals for the interval of N·c̃/n. The fraction of trials in which it covers C must be
// the level within 4 Monte Carlo standard errors plus 0.01 for the normal approximation of the
// hypergeometric law. Then a weighted sample (two strata sampled at 1/40 and 1/10, weights 40 and
// 10, membership independent of the stratum): with Kish's n_eff the interval still covers.
void TestIntervals::combinedCoverageOnSyntheticPopulation() {
    const int N = 20000, C = 3000, n = 800;
    const double level = 0.95;
    const int trials = 3000;
    // ε = 0.1: noise (sd ≈ 14) comparable to the sampling error (sd ≈ 10 rows).
    const CellNoise law{CellNoiseKind::DiscreteLaplace, std::exp(-0.1)};
    SimulationRng rng(20261128, 23);
    std::vector<char> population(N, 0);
    std::fill(population.begin(), population.begin() + C, 1);
    auto srsCount = [&](std::vector<char>& pop, int from, int size, int draws) {
        int c = 0;
        for (int i = 0; i < draws; ++i) {
            const int j = i + std::min(size - i - 1, static_cast<int>(rng.uniform() * (size - i)));
            std::swap(pop[static_cast<std::size_t>(from + i)],
                      pop[static_cast<std::size_t>(from + j)]);
            c += pop[static_cast<std::size_t>(from + i)];
        }
        return c;
    };
    int covered = 0, samplingOnly = 0;
    for (int t = 0; t < trials; ++t) {
        const double noisy = srsCount(population, 0, N, n) + sampleCellNoise(law, rng);
        auto r = samplingIntervals(noisy, n, N, law, level);
        QVERIFY(r);
        covered += std::abs(r->estimate - C) <= r->combined ? 1 : 0;
        samplingOnly += std::abs(r->estimate - C) <= r->sampling ? 1 : 0;
    }
    const double tol = 4 * se(level, trials) + 0.01;
    const double f = static_cast<double>(covered) / trials;
    QVERIFY2(std::abs(f - level) <= tol, ("simple random sample: " + std::to_string(f)).c_str());
    // The sampling interval alone ignores the noise: it must cover clearly less often.
    QVERIFY(static_cast<double>(samplingOnly) / trials < f - 0.02);

    // Weighted: stratum A of 16 000 rows sampled 400 (weight 40), B of 4 000 sampled 400 (weight
    // 10); 15 % of each stratum in the bin, so the unweighted share is unbiased.
    const int NA = 16000, NB = 4000, nA = 400, nB = 400;
    std::vector<char> strata(NA + NB, 0);
    std::fill(strata.begin(), strata.begin() + NA * 15 / 100, 1);
    std::fill(strata.begin() + NA, strata.begin() + NA + NB * 15 / 100, 1);
    const int CW = NA * 15 / 100 + NB * 15 / 100;
    std::vector<double> weights(nA, 40.0);
    weights.resize(nA + nB, 10.0);
    auto kish = kishEffectiveSampleSize(weights);
    QVERIFY(kish);
    QCOMPARE(kish->sumWeights, double(NA + NB));
    int coveredW = 0;
    double widthW = 0, widthSrs = 0;
    for (int t = 0; t < trials; ++t) {
        const int c = srsCount(strata, 0, NA, nA) + srsCount(strata, NA, NB, nB);
        const double noisy = c + sampleCellNoise(law, rng);
        auto r = samplingIntervals(noisy, nA + nB, kish->sumWeights, law, level,
                                   kish->effectiveSampleSize);
        auto plain = samplingIntervals(noisy, nA + nB, kish->sumWeights, law, level);
        QVERIFY(r && plain);
        coveredW += std::abs(r->estimate - CW) <= r->combined ? 1 : 0;
        widthW += r->combined;
        widthSrs += plain->combined;
    }
    const double fw = static_cast<double>(coveredW) / trials;
    QVERIFY2(fw >= level - tol, ("weighted sample: " + std::to_string(fw)).c_str());
    QVERIFY(widthW > widthSrs);  // the design effect widens the sampling part
}

void TestIntervals::kishByHand() {
    // 3 rows weighted 1, 2, 3: (6)²/(1 + 4 + 9) = 36/14.
    const std::vector<double> w{1, 2, 3};
    auto k = kishEffectiveSampleSize(w);
    QVERIFY(k);
    QCOMPARE(k->rows, std::uint64_t{3});
    DPX_VERIFY_REL(k->effectiveSampleSize, 36.0 / 14.0, 1e-15);
    DPX_VERIFY_REL(k->designEffect, 3 / (36.0 / 14.0), 1e-15);
    // Equal weights: n_eff = n, design effect 1.
    const std::vector<double> eq(1000, 7.5);
    QCOMPARE(kishEffectiveSampleSize(eq)->effectiveSampleSize, 1000.0);
    // The sampling half-width scales with 1/√n_eff: n_eff = n/4 doubles it.
    const CellNoise law{CellNoiseKind::Laplace, 1.0};
    auto a = samplingIntervals(100, 400, 10000, law, 0.9);
    auto b = samplingIntervals(100, 400, 10000, law, 0.9, 100);
    DPX_VERIFY_REL(b->sampling, 2 * a->sampling, 1e-12);
    QVERIFY(b->method.find("Kish 1965") != std::string::npos);
    QVERIFY(a->method.find("Kish") == std::string::npos);
    const std::vector<double> bad{1, 0, 2};
    DPX_VERIFY_ERROR(kishEffectiveSampleSize(bad), "row 2");
    DPX_VERIFY_ERROR(kishEffectiveSampleSize(std::vector<double>{1}), "at least 2");
    DPX_VERIFY_ERROR(samplingIntervals(100, 400, 10000, law, 0.9, 500), "effective sample size");
}

void TestIntervals::sentenceAndWords() {
    QCOMPARE(intervalSentence(0.95, 7),
             std::string("With 95 % confidence each published count is within ±7 of the count "
                         "before noise."));
    QCOMPARE(levelPercentText(0.9), std::string("90 %"));
    QCOMPARE(levelPercentText(0.995), std::string("99.5 %"));
    QCOMPARE(halfWidthText(5.99146), std::string("5.991"));
    QCOMPARE(halfWidthText(123456.7), std::string("123457"));
    QCOMPARE(halfWidthText(2995.732), std::string("2996"));
}

void TestIntervals::badInputs() {
    const CellNoise ok{CellNoiseKind::Laplace, 1.0};
    DPX_VERIFY_ERROR(cellInterval(ok, 1.0), "level");
    DPX_VERIFY_ERROR(cellInterval(ok, 0.0), "level");
    DPX_VERIFY_ERROR(cellInterval(ok, std::nan("")), "level");
    DPX_VERIFY_ERROR(cellInterval({CellNoiseKind::DiscreteLaplace, 1.0}, 0.9), "α");
    DPX_VERIFY_ERROR(cellInterval({CellNoiseKind::Gaussian, -1.0}, 0.9), "σ");
    DPX_VERIFY_ERROR(sumInterval(ok, 0, 0.9), "cell");
    DPX_VERIFY_ERROR(tableIntervals(ok, 0, 0.9), "bin");
    DPX_VERIFY_ERROR(postProcessedIntervals(EstimatorKind::Clamp, ok, {}, 0.9, 1000, 1), "bin");
    const std::vector<double> t{1, 2};
    DPX_VERIFY_ERROR(postProcessedIntervals(EstimatorKind::Clamp, ok, t, 0.9, 10, 1), "trials");
    DPX_VERIFY_ERROR(samplingIntervals(5, 100, 50, ok, 0.9), "population");
    DPX_VERIFY_ERROR(samplingIntervals(5, 1, 50, ok, 0.9), "sample size");
}

QTEST_APPLESS_MAIN(TestIntervals)
#include "tst_intervals.moc"
