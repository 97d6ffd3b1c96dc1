// Conformance of the exact samplers (core/release/exact_samplers.h, issue #8; LABELS statistical
// audit): the discrete Laplace (t = 1, 3.5, 10) and discrete Gaussian (σ² = 1, 10, 100/3) against
// their exact PMFs, Bernoulli(exp(−γ)) frequencies, and the matrix sampler against GM columns, with
// 10^6 draws per case from two sources:
//
//  * Seeded (dpxtest::SeededTestBits, a test double that is NOT DP): χ² goodness of fit (cells
//    merged to ≥ 20 expected draws; p-value from Boost.Math's χ² law) and Kolmogorov–Smirnov, both
//    at level 1e-3, plus sign symmetry. The outcome is fixed by the seed, so the test never flakes;
//    negative controls (t = 3.5 against the PMF of t = 3.6, σ² = 100/3 against 34) show the checks
//    have the power to reject a slightly wrong law at this sample size.
//  * The OS CSPRNG (ReleaseRandomness through the release entry points), unseeded. Only
//    distribution-free bounds are used, so the false-failure probability is rigorous: KS by the
//    Dvoretzky–Kiefer–Wolfowitz inequality with Massart's constant, Pr[sup|F_n − F| > λ] ≤
//    2·exp(−2nλ²) (valid for discrete laws); each cell count by Bernstein's inequality,
//    Pr[|X − np| ≥ τ] ≤ 2·exp(−τ²/(2(np(1−p) + τ/3))), at level α_f/cells; the sign split by
//    Hoeffding. Each such family of checks runs at α_f = 1e-9/40 and at most 40 families run
//    (counted, checked in cleanupTestCase), so by the union bound a correct sampler fails this
//    executable with probability below 1e-9.
// Exact PMFs: Laplace tanh(1/(2t))·e^(−|x|/t) (CKS 2020 §1), Gaussian e^(−x²/(2σ²))/Σ_y, both in
// long double; matrix columns P[i][j]/Σ_i P[i][j].
#include <QTest>

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include "core/count/count_mechanism.h"
#include "core/release/exact_samplers.h"
#include "core/release/release_rng.h"
#include "tests/testing/random_bits_doubles.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::SeededTestBits;

namespace {

constexpr std::size_t kDraws = 1000000;
constexpr double kSeededAlpha = 1e-3;
constexpr int kOsFamilies = 40;
constexpr double kOsAlpha = 1e-9 / kOsFamilies;
int g_osFamiliesUsed = 0;
constexpr std::uint64_t kSeed = 20261125;

using Pmf = std::function<long double(long long)>;

struct Law {
    Pmf pmf;
    long long lo, hi;  // support checked cell by cell; the mass outside is below 1e-20
};

Law laplaceLaw(long double t) {
    const auto k = static_cast<long long>(std::ceil(50 * t)) + 5;
    return {[t](long long x) {
                return std::tanh(1 / (2 * t)) *
                       std::exp(-std::fabs(static_cast<long double>(x)) / t);
            },
            -k, k};
}

Law gaussianLaw(long double sigma2) {
    const auto k = static_cast<long long>(std::ceil(12 * std::sqrt(sigma2))) + 10;
    long double z = 0;
    for (long long x = -4 * k; x <= 4 * k; ++x) {
        z += std::exp(-static_cast<long double>(x) * static_cast<long double>(x) / (2 * sigma2));
    }
    return {[sigma2, z](long long x) {
                const auto y = static_cast<long double>(x);
                return std::exp(-y * y / (2 * sigma2)) / z;
            },
            -k, k};
}

Law columnLaw(const CountMechanism& m, std::size_t j) {
    long double s = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
        s += m.at(i, j);
    }
    return {[&m, j, s](long long i) {
                return static_cast<long double>(m.at(static_cast<std::size_t>(i), j)) / s;
            },
            0, static_cast<long long>(m.size()) - 1};
}

// Counts of each value in [lo, hi], and of the values below and above.
struct Tally {
    std::vector<double> counts;
    double below = 0, above = 0, n = 0, positive = 0, negative = 0;
};

template <class T>
Tally tally(const std::vector<T>& draws, const Law& law) {
    Tally t;
    t.counts.assign(static_cast<std::size_t>(law.hi - law.lo + 1), 0);
    for (const T v : draws) {
        const auto x = static_cast<long long>(v);
        t.n += 1;
        t.positive += x > 0 ? 1 : 0;
        t.negative += x < 0 ? 1 : 0;
        if (x < law.lo) {
            t.below += 1;
        } else if (x > law.hi) {
            t.above += 1;
        } else {
            t.counts[static_cast<std::size_t>(x - law.lo)] += 1;
        }
    }
    return t;
}

// χ² p-value, cells merged left to right until each expects ≥ 20 draws (the draws outside the
// support count in the end cells).
double chiSquaredPValue(const Tally& t, const Law& law, int* cellsUsed) {
    std::vector<double> expected, observed;
    double accE = 0, accO = t.below;
    for (long long x = law.lo; x <= law.hi; ++x) {
        accE += static_cast<double>(t.n * law.pmf(x));
        accO += t.counts[static_cast<std::size_t>(x - law.lo)];
        if (accE >= 20) {
            expected.push_back(accE);
            observed.push_back(accO);
            accE = accO = 0;
        }
    }
    accO += t.above;
    expected.back() += accE;
    observed.back() += accO;
    double chi2 = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        chi2 += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
    }
    *cellsUsed = static_cast<int>(expected.size());
    const boost::math::chi_squared_distribution<double> law2(
        static_cast<double>(expected.size() - 1));
    return boost::math::cdf(boost::math::complement(law2, chi2));
}

// sup_x |F_n(x) − F(x)| over the integers (the sup of two right-continuous step functions with
// jumps at integers is attained at an integer).
double ksDistance(const Tally& t, const Law& law) {
    long double f = 0;
    double fn = t.below;
    double worst = t.below / t.n;
    for (long long x = law.lo; x <= law.hi; ++x) {
        f += law.pmf(x);
        fn += t.counts[static_cast<std::size_t>(x - law.lo)];
        worst = std::max(worst, std::fabs(fn / t.n - static_cast<double>(f)));
    }
    return std::max(worst, t.above / t.n);
}

// DKW: Pr[sup|F_n − F| > λ] ≤ 2·exp(−2nλ²).
double dkwBound(double n, double alpha) {
    return std::sqrt(std::log(2 / alpha) / (2 * n));
}

// Bernstein: τ with 2·exp(−τ²/(2(v + τ/3))) = α, v = np(1 − p).
double bernsteinBound(double n, double p, double alpha) {
    const double l = std::log(2 / alpha);
    const double v = n * p * (1 - p);
    return l / 3 + std::sqrt(l * l / 9 + 2 * l * v);
}

QByteArray describe(const char* what, double value, double limit) {
    return QByteArray(what) + " = " + QByteArray::number(value, 'g', 6) + " (limit " +
           QByteArray::number(limit, 'g', 6) + ")";
}

// The seeded checks: χ² p ≥ 1e-3, KS ≤ DKW(1e-3), and, for laws symmetric about 0, the sign split.
template <class T>
void seededChecks(const std::vector<T>& draws, const Law& law, bool symmetric) {
    const Tally t = tally(draws, law);
    int cells = 0;
    const double p = chiSquaredPValue(t, law, &cells);
    QVERIFY2(p >= kSeededAlpha, describe("chi^2 p-value", p, kSeededAlpha).constData());
    QVERIFY(cells >= 2);
    const double ks = ksDistance(t, law);
    const double lambda = dkwBound(t.n, kSeededAlpha);
    QVERIFY2(ks <= lambda, describe("KS distance", ks, lambda).constData());
    if (symmetric) {
        const double nz = t.positive + t.negative;
        const double h = std::sqrt(nz * std::log(2 / kSeededAlpha) / 2);
        QVERIFY2(std::fabs(t.positive - nz / 2) <= h,
                 describe("positives − nonzero/2", t.positive - nz / 2, h).constData());
    }
}

// The OS checks: distribution-free bounds at α_f each (three families when symmetric, else two).
template <class T>
void osChecks(const std::vector<T>& draws, const Law& law, bool symmetric) {
    const Tally t = tally(draws, law);
    g_osFamiliesUsed += symmetric ? 3 : 2;
    // Cells: every value in [lo, hi] plus the two outside cells.
    const double cells = static_cast<double>(law.hi - law.lo + 3);
    const double alphaCell = kOsAlpha / cells;
    long double outside = 1;
    for (long long x = law.lo; x <= law.hi; ++x) {
        const long double px = law.pmf(x);
        outside -= px;
        const double expected = static_cast<double>(t.n * px);
        const double tau = bernsteinBound(t.n, static_cast<double>(px), alphaCell);
        const double got = t.counts[static_cast<std::size_t>(x - law.lo)];
        QVERIFY2(std::fabs(got - expected) <= tau,
                 (QByteArray("count of ") + QByteArray::number(x) + ": " +
                  describe("|observed − expected|", std::fabs(got - expected), tau))
                     .constData());
    }
    const double pOut = std::max(0.0, static_cast<double>(outside)) / 2 + 1e-20;
    const double tauOut = bernsteinBound(t.n, pOut, alphaCell);
    QVERIFY2(t.below <= t.n * pOut + tauOut, describe("draws below", t.below, tauOut).constData());
    QVERIFY2(t.above <= t.n * pOut + tauOut, describe("draws above", t.above, tauOut).constData());
    const double ks = ksDistance(t, law);
    const double lambda = dkwBound(t.n, kOsAlpha);
    QVERIFY2(ks <= lambda, describe("KS distance", ks, lambda).constData());
    if (symmetric) {
        const double nz = t.positive + t.negative;
        const double h = std::sqrt(nz * std::log(2 / kOsAlpha) / 2);
        QVERIFY2(std::fabs(t.positive - nz / 2) <= h,
                 describe("positives − nonzero/2", t.positive - nz / 2, h).constData());
    }
}

Rational q(const char* text) {
    const std::string s(text);
    const auto slash = s.find('/');
    if (slash == std::string::npos) {
        return *parseDecimal(s);
    }
    return *Rational::fraction(BigInt(s.substr(0, slash)), BigInt(s.substr(slash + 1)));
}

}  // namespace

class TestExactSamplerConformance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void discreteLaplace_data();
    void discreteLaplace();
    void discreteGaussian_data();
    void discreteGaussian();
    void negativeControls();
    void bernoulliExp_data();
    void bernoulliExp();
    void countMechanismColumns_data();
    void countMechanismColumns();
    void cleanupTestCase();
};

void TestExactSamplerConformance::discreteLaplace_data() {
    QTest::addColumn<QString>("scale");
    QTest::addColumn<QString>("epsilon");  // Δ = 1: t = 1/ε for the release entry point
    QTest::addColumn<int>("stream");
    QTest::newRow("t=1") << "1"
                         << "1" << 1;
    QTest::newRow("t=3.5") << "3.5"
                           << "2/7" << 2;
    QTest::newRow("t=10") << "10"
                          << "0.1" << 3;
}

void TestExactSamplerConformance::discreteLaplace() {
    QFETCH(QString, scale);
    QFETCH(QString, epsilon);
    QFETCH(int, stream);
    const Rational t = q(scale.toLatin1().constData());
    const Law law = laplaceLaw(static_cast<long double>(t.toDouble()));
    SeededTestBits seeded(kSeed, static_cast<std::uint64_t>(stream));
    const auto start = std::chrono::steady_clock::now();
    const auto draws = sampleDiscreteLaplace(t, kDraws, seeded);
    DPX_VERIFY_OK(draws);
    seededChecks(*draws, law, true);
    ReleaseRandomness os;
    DiscreteLaplaceParams params{q(epsilon.toLatin1().constData()), 1};
    QCOMPARE(params.scale(), t);
    const auto osDraws = releaseDiscreteLaplaceNoise(params, kDraws, os);
    DPX_VERIFY_OK(osDraws);
    osChecks(*osDraws, law, true);
    qInfo("discrete Laplace t = %s: 2 x %zu draws and checks in %.2f s", qPrintable(scale), kDraws,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void TestExactSamplerConformance::discreteGaussian_data() {
    QTest::addColumn<QString>("sigma2");
    QTest::addColumn<int>("stream");
    QTest::newRow("sigma2=1") << "1" << 11;
    QTest::newRow("sigma2=10") << "10" << 12;
    QTest::newRow("sigma2=100/3") << "100/3" << 13;
}

void TestExactSamplerConformance::discreteGaussian() {
    QFETCH(QString, sigma2);
    QFETCH(int, stream);
    const Rational s2 = q(sigma2.toLatin1().constData());
    const Law law = gaussianLaw(static_cast<long double>(s2.toDouble()));
    SeededTestBits seeded(kSeed, static_cast<std::uint64_t>(stream));
    const auto start = std::chrono::steady_clock::now();
    const auto draws = sampleDiscreteGaussian(s2, kDraws, seeded);
    DPX_VERIFY_OK(draws);
    seededChecks(*draws, law, true);
    ReleaseRandomness os;
    const auto osDraws = releaseDiscreteGaussianNoise(DiscreteGaussianParams{s2, 1}, kDraws, os);
    DPX_VERIFY_OK(osDraws);
    osChecks(*osDraws, law, true);
    qInfo("discrete Gaussian sigma2 = %s: 2 x %zu draws and checks in %.2f s", qPrintable(sigma2),
          kDraws, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// Power: the same checks reject draws from a slightly different law at this sample size.
void TestExactSamplerConformance::negativeControls() {
    {
        SeededTestBits seeded(kSeed, 2);
        const auto draws = sampleDiscreteLaplace(q("3.5"), kDraws, seeded);
        const Law wrong = laplaceLaw(3.6L);
        const Tally t = tally(*draws, wrong);
        int cells = 0;
        const double p = chiSquaredPValue(t, wrong, &cells);
        QVERIFY2(p < 1e-10, describe("chi^2 p-value for t = 3.6", p, 1e-10).constData());
        const double ks = ksDistance(t, wrong);
        QVERIFY2(ks > dkwBound(t.n, kSeededAlpha),
                 describe("KS distance to t = 3.6", ks, dkwBound(t.n, kSeededAlpha)).constData());
    }
    {
        SeededTestBits seeded(kSeed, 13);
        const auto draws = sampleDiscreteGaussian(q("100/3"), kDraws, seeded);
        const Law wrong = gaussianLaw(34.0L);
        const Tally t = tally(*draws, wrong);
        int cells = 0;
        const double p = chiSquaredPValue(t, wrong, &cells);
        QVERIFY2(p < 1e-6, describe("chi^2 p-value for sigma2 = 34", p, 1e-6).constData());
    }
}

void TestExactSamplerConformance::bernoulliExp_data() {
    QTest::addColumn<QString>("gamma");
    QTest::addColumn<int>("stream");
    int stream = 21;
    for (const char* g : {"0", "1/10", "1/2", "1", "3/2", "5/2", "10/3", "7"}) {
        QTest::newRow(g) << QString::fromLatin1(g) << stream++;
    }
}

// Frequency of true within Bernstein bounds around e^(−γ): level 1e-3 for the seeded stream, α_f
// for the OS source. γ = 0 must give true every time.
void TestExactSamplerConformance::bernoulliExp() {
    QFETCH(QString, gamma);
    QFETCH(int, stream);
    const Rational g = q(gamma.toLatin1().constData());
    const double p = std::exp(-g.toDouble());
    SeededTestBits seeded(kSeed, static_cast<std::uint64_t>(stream));
    ReleaseRandomness os;
    for (const bool useOs : {false, true}) {
        RandomBits& bits = useOs ? static_cast<RandomBits&>(os) : seeded;
        double ones = 0;
        for (std::size_t i = 0; i < kDraws; ++i) {
            const auto b = sampleBernoulliExp(g, bits);
            QVERIFY(b.hasValue());
            ones += *b ? 1 : 0;
        }
        if (g.sign() == 0) {
            QCOMPARE(ones, static_cast<double>(kDraws));
            continue;
        }
        g_osFamiliesUsed += useOs ? 1 : 0;
        const double n = static_cast<double>(kDraws);
        const double tau = bernsteinBound(n, p, useOs ? kOsAlpha : kSeededAlpha);
        QVERIFY2(std::fabs(ones - n * p) <= tau,
                 (QByteArray(useOs ? "OS: " : "seeded: ") +
                  describe("|trues − n·e^-γ|", std::fabs(ones - n * p), tau))
                     .constData());
    }
}

void TestExactSamplerConformance::countMechanismColumns_data() {
    QTest::addColumn<int>("column");
    QTest::addColumn<int>("stream");
    QTest::newRow("GM n=50 eps=0.5 column 0") << 0 << 31;
    QTest::newRow("GM n=50 eps=0.5 column 17") << 17 << 32;
    QTest::newRow("GM n=50 eps=0.5 column 50") << 50 << 33;
}

// The matrix sampler against the GM column P[·|j]/S_j (seeded: χ² and KS; OS: cells and KS).
void TestExactSamplerConformance::countMechanismColumns() {
    QFETCH(int, column);
    QFETCH(int, stream);
    const auto gm = truncatedGeometric(50, 0.5);
    QVERIFY(gm.hasValue());
    const auto sampler = CountMechanismSampler::create(*gm);
    DPX_VERIFY_OK(sampler);
    const Law law = columnLaw(*gm, static_cast<std::size_t>(column));
    const std::vector<std::size_t> counts(kDraws, static_cast<std::size_t>(column));
    SeededTestBits seeded(kSeed, static_cast<std::uint64_t>(stream));
    const auto draws = sampler->sample(counts, seeded);
    DPX_VERIFY_OK(draws);
    seededChecks(*draws, law, false);
    ReleaseRandomness os;
    const auto osDraws = releaseCountMechanismOutputs(*sampler, counts, os);
    DPX_VERIFY_OK(osDraws);
    osChecks(*osDraws, law, false);
}

void TestExactSamplerConformance::cleanupTestCase() {
    // The union bound behind "false failure below 1e-9" holds only for at most kOsFamilies.
    QVERIFY2(g_osFamiliesUsed <= kOsFamilies, QByteArray::number(g_osFamiliesUsed).constData());
    qInfo("OS-source check families: %d of %d (each at alpha = %g)", g_osFamiliesUsed, kOsFamilies,
          kOsAlpha);
}

QTEST_APPLESS_MAIN(TestExactSamplerConformance)
#include "tst_exact_sampler_conformance.moc"
