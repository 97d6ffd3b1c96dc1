// Sampling error next to DP noise in a release (core/intervals/release_intervals.h,
// releaseSamplingIntervals; issue #22): the statement is built from the published values alone
// (n̂ = their sum), so it is checked by simulation on a synthetic population — simple random
// samples drawn without replacement, each count noised by discrete Laplace and clamped as a
// release does — for coverage of every population count at the stated level (within 4 Monte
// Carlo standard errors + 0.01 for the normal approximation), against samplingIntervals computed
// by hand from the published values, and for the refusals of a spec that declares no population.
// Fixed seeds.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/intervals/intervals.h"
#include "core/intervals/release_intervals.h"
#include "core/release/release.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

double se(double p, int trials) {
    return std::sqrt(p * (1 - p) / trials);
}

ReleaseSpec sampleSpec(const std::string& epsilon, double population, double designEffect = 1) {
    ReleaseSpec spec;
    spec.mechanism = ReleaseMechanism::DiscreteLaplace;
    spec.epsilon = epsilon;
    spec.appVersion = "test";
    spec.binsDeclared = true;
    spec.postProcessing = EstimatorKind::Clamp;
    spec.samplePopulation = population;
    spec.designEffect = designEffect;
    return spec;
}

}  // namespace

class TestReleaseSampling : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void combinedCoverageOnSyntheticPopulation();
    void fromPublishedValuesOnly();
    void designEffectAndClamps();
    void refusals();
};

void TestReleaseSampling::combinedCoverageOnSyntheticPopulation() {
    // A population of 20 000 rows in 5 categories; simple random samples of 800 rows (without
    // replacement); each bin + discrete Laplace at ε = 0.2 (scale 5: noise comparable to the
    // sampling error), clamped at 0 as a release with --postprocess clamp does.
    const std::vector<int> sizes{9000, 6000, 3000, 1500, 500};
    const int N = std::accumulate(sizes.begin(), sizes.end(), 0), n = 800;
    std::vector<int> population;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        population.insert(population.end(), static_cast<std::size_t>(sizes[k]),
                          static_cast<int>(k));
    }
    const ReleaseSpec spec = sampleSpec("0.2", N);
    const double level = spec.confidenceLevel;
    auto law = releaseNoiseLaw(spec);
    QVERIFY(law);
    const CellNoise noise{CellNoiseKind::DiscreteLaplace, law->alpha};
    SimulationRng rng(20261128, 31);
    const int trials = 2000;
    std::vector<int> covered(sizes.size(), 0), samplingOnly(sizes.size(), 0);
    for (int t = 0; t < trials; ++t) {
        std::vector<double> published(sizes.size(), 0);
        for (int i = 0; i < n; ++i) {  // partial Fisher–Yates: the first n rows are the sample
            const int j = i + std::min(N - i - 1, static_cast<int>(rng.uniform() * (N - i)));
            std::swap(population[static_cast<std::size_t>(i)],
                      population[static_cast<std::size_t>(j)]);
            published[static_cast<std::size_t>(population[static_cast<std::size_t>(i)])] += 1;
        }
        for (double& v : published) {
            v = std::max(0.0, v + sampleCellNoise(noise, rng));
        }
        auto s = releaseSamplingIntervals(spec, published);
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            const double err = std::abs(s->estimates[k] - sizes[k]);
            covered[k] += err <= s->combined[k] ? 1 : 0;
            samplingOnly[k] += err <= s->sampling[k] ? 1 : 0;
        }
    }
    const double tol = 4 * se(level, trials) + 0.01;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        const double f = static_cast<double>(covered[k]) / trials;
        qInfo("bin %zu (%d of %d): combined covers %.4f, sampling alone %.4f", k, sizes[k], N, f,
              static_cast<double>(samplingOnly[k]) / trials);
        QVERIFY2(f >= level - tol,
                 ("bin " + std::to_string(k) + ": coverage " + std::to_string(f)).c_str());
        // Neither needlessly wide: within the tolerance above the level.
        QVERIFY2(f <= level + tol,
                 ("bin " + std::to_string(k) + ": coverage " + std::to_string(f)).c_str());
        // The sampling interval alone ignores the noise (and n̂'s): clearly below.
        QVERIFY(static_cast<double>(samplingOnly[k]) / trials < f - 0.02);
    }
}

void TestReleaseSampling::fromPublishedValuesOnly() {
    const ReleaseSpec spec = sampleSpec("0.5", 20000);
    const std::vector<double> published{300, 120, 0, 46, 536};
    auto s = releaseSamplingIntervals(spec, published);
    QVERIFY(s);
    QCOMPARE(s->sampleSize, 1002.0);  // Σ published
    QCOMPARE(s->populationSize, 20000.0);
    QCOMPARE(s->estimates.size(), published.size());
    const CellNoise noise{CellNoiseKind::DiscreteLaplace, std::exp(-0.5)};
    for (std::size_t k = 0; k < published.size(); ++k) {
        auto r = samplingIntervals(published[k], 1002, 20000, noise, 0.95);
        QVERIFY(r);
        QCOMPARE(s->estimates[k], r->estimate);
        QCOMPARE(s->sampling[k], r->sampling);
        QCOMPARE(s->noise[k], r->noise);
        QCOMPARE(s->combined[k], r->combined);
        // By hand: N·v/n̂, and z·N·√(p(1 − p)/n̂·(N − n̂)/(N − 1)).
        DPX_VERIFY_REL(s->estimates[k], 20000 * published[k] / 1002, 1e-14);
        const double p = published[k] / 1002;
        const double z = 1.959963984540054;
        if (p > 0) {
            DPX_VERIFY_REL(s->sampling[k],
                           z * 20000 * std::sqrt(p * (1 - p) / 1002 * (20000 - 1002) / 19999.0),
                           1e-12);
        }
        // The noise half-width is the discrete Laplace's (6 at ε = 0.5, 95 %) scaled by N/n̂.
        DPX_VERIFY_REL(s->noise[k], 6 * 20000 / 1002.0, 1e-14);
        QVERIFY(s->combined[k] >= std::max(s->sampling[k], s->noise[k]));
        QVERIFY(s->combined[k] <= s->sampling[k] + s->noise[k]);
    }
    QVERIFY(s->sentence.find("N = 20000") != std::string::npos);
    QVERIFY(s->method.find("Cochran 1977") != std::string::npos);
    QVERIFY(s->method.find("never the true counts") != std::string::npos);
}

void TestReleaseSampling::designEffectAndClamps() {
    const std::vector<double> published{400, 400};
    auto simple = releaseSamplingIntervals(sampleSpec("1", 100000), published);
    auto weighted = releaseSamplingIntervals(sampleSpec("1", 100000, 4), published);
    QVERIFY(simple && weighted);
    // n_eff = n̂/4 doubles the sampling standard error (Kish 1965).
    DPX_VERIFY_REL(weighted->sampling[0], 2 * simple->sampling[0], 1e-12);
    QCOMPARE(weighted->noise[0], simple->noise[0]);
    QVERIFY(weighted->method.find("Kish 1965") != std::string::npos);
    // The noisy sum above N is clamped to N (a sample is never larger than its population), and
    // a sum below 2·D up to 2·D: the statement is total for any finite published values.
    auto above = releaseSamplingIntervals(sampleSpec("1", 500), published);
    QVERIFY(above);
    QCOMPARE(above->sampleSize, 500.0);
    auto below = releaseSamplingIntervals(sampleSpec("1", 500, 3), std::vector<double>{0, 1});
    QVERIFY(below);
    QCOMPARE(below->sampleSize, 6.0);
    QVERIFY(below->method.find("clamped") != std::string::npos);
}

void TestReleaseSampling::refusals() {
    ReleaseSpec none = sampleSpec("1", 0);
    auto r = releaseSamplingIntervals(none, std::vector<double>{1, 2});
    QVERIFY(!r);
    QVERIFY(r.error().message.find("declares no population") != std::string::npos);
    auto nonFinite =
        releaseSamplingIntervals(sampleSpec("1", 100), std::vector<double>{1, std::nan("")});
    QVERIFY(!nonFinite);
    // The spec's own checks: each names the option's problem.
    ReleaseSpec gm = sampleSpec("1", 100);
    gm.mechanism = ReleaseMechanism::GeometricMatrix;
    gm.groupSize = 10;
    QVERIFY(gm.validate().error().message.find("sample of:") == 0);
    ReleaseSpec resize = sampleSpec("1", 100);
    resize.postProcessing = EstimatorKind::Resize;
    QVERIFY(resize.validate().error().message.find("resize") != std::string::npos);
    ReleaseSpec lonely = sampleSpec("1", 0, 2);
    QVERIFY(lonely.validate().error().message.find("design effect:") == 0);
    QVERIFY(sampleSpec("1", 1).validate().error().message.find("sample of:") == 0);
    QVERIFY(sampleSpec("1", 100, 0.5).validate().error().message.find("design effect:") == 0);
    QVERIFY(sampleSpec("1", 3, 2).validate().error().message.find("twice") != std::string::npos);
    QVERIFY(sampleSpec("1", std::nan("")).validate().error().message.find("sample of:") == 0);
}

QTEST_APPLESS_MAIN(TestReleaseSampling)
#include "tst_release_sampling.moc"
