// The seeded simulation generator and the noise samplers (LABELS statistical). Fixed seeds; every
// statistical check allows 5 standard errors of the sample statistic, estimated from the sample.
// References: the moments and CDFs of the laws from their definitions (closed forms below).
#include <QTest>

#include <cmath>
#include <set>
#include <vector>

#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "tests/testing/test_support.h"

using namespace dpx;

Q_DECLARE_METATYPE(dpx::NoiseKind)

namespace {

struct Stat {
    double n = 0;
    double sum = 0;
    double sum2 = 0;
    void add(double x) {
        n += 1;
        sum += x;
        sum2 += x * x;
    }
    double mean() const { return sum / n; }
    double se() const { return std::sqrt((sum2 / n - mean() * mean()) / (n - 1)); }
};

#define DPX_VERIFY_STAT(stat, expected)                                                          \
    QVERIFY2(                                                                                    \
        std::abs((stat).mean() - (expected)) <= 5 * (stat).se(),                                 \
        (QByteArray(#stat ": ") + QByteArray::number((stat).mean(), 'g', 8) + " vs " +           \
         QByteArray::number(expected, 'g', 8) + " (se " + QByteArray::number((stat).se()) + ")") \
            .constData())

}  // namespace

class TestSimulationRng : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void deterministicStreams();
    void uniforms();
    void standardNormal();
    void noiseSamples_data();
    void noiseSamples();
};

void TestSimulationRng::deterministicStreams() {
    SimulationRng a(5, 0);
    SimulationRng b(5, 0);
    SimulationRng otherStream(5, 1);
    SimulationRng otherSeed(6, 0);
    std::set<std::uint64_t> seen;
    int sameStream = 0;
    int sameSeed = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t x = a.next();
        QCOMPARE(b.next(), x);
        sameStream += otherStream.next() == x;
        sameSeed += otherSeed.next() == x;
        seen.insert(x);
    }
    QCOMPARE(sameStream, 0);
    QCOMPARE(sameSeed, 0);
    QCOMPARE(seen.size(), std::size_t(1000));  // no repeats among 1000 64-bit outputs
    // Seed 0 and stream 0 are valid (no all-zero state).
    SimulationRng z(0, 0);
    QVERIFY(z.next() != 0 || z.next() != 0);
}

void TestSimulationRng::uniforms() {
    SimulationRng rng(11, 3);
    Stat u;
    Stat u2;
    int below = 0;
    const int n = 400000;
    for (int i = 0; i < n; ++i) {
        const double x = rng.uniform();
        const double y = rng.uniformOpen();
        QVERIFY(x >= 0 && x < 1);
        QVERIFY(y > 0 && y < 1);
        u.add(x);
        u2.add(y);
        below += x < 0.1;
    }
    DPX_VERIFY_STAT(u, 0.5);
    DPX_VERIFY_STAT(u2, 0.5);
    // Pr[U < 0.1] = 0.1, se √(0.09/n).
    QVERIFY(std::abs(below / double(n) - 0.1) <= 5 * std::sqrt(0.09 / n));
}

void TestSimulationRng::standardNormal() {
    SimulationRng rng(21, 0);
    Stat m;
    Stat sq;
    Stat q4;
    int belowOne = 0;
    const int n = 400000;
    for (int i = 0; i < n; ++i) {
        const double z = rng.normal();
        m.add(z);
        sq.add(z * z);
        q4.add(z * z * z * z);
        belowOne += z <= 1;
    }
    DPX_VERIFY_STAT(m, 0.0);
    DPX_VERIFY_STAT(sq, 1.0);
    DPX_VERIFY_STAT(q4, 3.0);                               // E Z⁴ = 3
    const double p = 0.5 * std::erfc(-1 / std::sqrt(2.0));  // Φ(1)
    QVERIFY(std::abs(belowOne / double(n) - p) <= 5 * std::sqrt(p * (1 - p) / n));
}

void TestSimulationRng::noiseSamples_data() {
    QTest::addColumn<NoiseKind>("kind");
    QTest::addColumn<double>("param");
    QTest::newRow("Laplace b=10") << NoiseKind::Laplace << 10.0;
    QTest::newRow("Laplace b=0.3") << NoiseKind::Laplace << 0.3;
    QTest::newRow("geometric a=e^-0.1") << NoiseKind::DiscreteLaplace << std::exp(-0.1);
    QTest::newRow("geometric a=1/2") << NoiseKind::DiscreteLaplace << 0.5;
    QTest::newRow("geometric a=0.01") << NoiseKind::DiscreteLaplace << 0.01;
    QTest::newRow("Gaussian s=3") << NoiseKind::Gaussian << 3.0;
}

void TestSimulationRng::noiseSamples() {
    QFETCH(NoiseKind, kind);
    QFETCH(double, param);
    NoiseDistribution noise = NoiseDistribution::laplace(1);
    double var = 0;
    double meanAbs = 0;
    // Closed forms of the laws (noise_distribution.h): Laplace 2b², b; geometric 2α/(1−α)²,
    // 2α/(1−α²); Gaussian σ², σ√(2/π).
    switch (kind) {
        case NoiseKind::Laplace:
            noise = NoiseDistribution::laplace(param);
            var = 2 * param * param;
            meanAbs = param;
            break;
        case NoiseKind::DiscreteLaplace:
            noise = NoiseDistribution::discreteLaplace(param);
            var = 2 * param / ((1 - param) * (1 - param));
            meanAbs = 2 * param / (1 - param * param);
            break;
        case NoiseKind::Gaussian:
            noise = NoiseDistribution::gaussian(param);
            var = param * param;
            meanAbs = param * std::sqrt(2 / M_PI);
            break;
    }
    SimulationRng rng(2026, 17);
    Stat m;
    Stat sq;
    Stat ab;
    const double sd = std::sqrt(var);
    const double points[] = {-1.5 * sd, -0.2 * sd, 0.0, 0.7 * sd, 2 * sd};
    int below[5] = {0, 0, 0, 0, 0};
    const int n = 300000;
    for (int i = 0; i < n; ++i) {
        const double z = sampleNoise(noise, rng);
        QVERIFY(std::isfinite(z));
        if (kind == NoiseKind::DiscreteLaplace) {
            QCOMPARE(z, std::round(z));
        }
        m.add(z);
        sq.add(z * z);
        ab.add(std::abs(z));
        for (int k = 0; k < 5; ++k) {
            below[k] += z <= points[k];
        }
    }
    DPX_VERIFY_STAT(m, 0.0);
    DPX_VERIFY_STAT(sq, var);
    DPX_VERIFY_STAT(ab, meanAbs);
    for (int k = 0; k < 5; ++k) {
        // Reference CDF from the definition (Laplace closed form; geometric: Pr[Z ≤ ⌊x⌋] =
        // α^(−⌊x⌋)/(1+α) for ⌊x⌋ < 0, 1 − α^(⌊x⌋+1)/(1+α) otherwise; normal via erfc).
        const double x = points[k];
        double p = 0;
        if (kind == NoiseKind::Laplace) {
            p = x < 0 ? 0.5 * std::exp(x / param) : 1 - 0.5 * std::exp(-x / param);
        } else if (kind == NoiseKind::DiscreteLaplace) {
            const double f = std::floor(x);
            p = f < 0 ? std::pow(param, -f) / (1 + param)
                      : 1 - std::pow(param, f + 1) / (1 + param);
        } else {
            p = 0.5 * std::erfc(-x / (param * std::sqrt(2.0)));
        }
        const double se = std::sqrt(std::max(p * (1 - p), 1e-12) / n);
        QVERIFY2(std::abs(below[k] / double(n) - p) <= 5 * se + 1e-12,
                 (QByteArray("CDF at ") + QByteArray::number(x) + ": " +
                  QByteArray::number(below[k] / double(n)) + " vs " + QByteArray::number(p))
                     .constData());
    }
}

QTEST_APPLESS_MAIN(TestSimulationRng)
#include "tst_simulation_rng.moc"
