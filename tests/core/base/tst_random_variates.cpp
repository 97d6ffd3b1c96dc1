// Exact discrete variates (LABELS statistical): uniformInt, binomial, multinomial. Fixed seeds.
// References: the binomial CDF of Boost.Math (incomplete beta, independent of the sampler's
// Loader/BTRS code) for χ² goodness of fit (accepted if the χ² p-value > 1e-3, a fixed outcome at
// a fixed seed); 50-digit mpmath values for the log-PMF; mean n·p and variance n·p·q within 5
// standard errors.
#include <QTest>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/base/random_variates.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

struct Moments {
    double n = 0, mean = 0, m2 = 0;
    void add(double x) {  // Welford
        n += 1;
        const double d = x - mean;
        mean += d / n;
        m2 += d * (x - mean);
    }
    double variance() const { return m2 / (n - 1); }
};

// χ² p-value of `draws` against Bin(n, p): bins between candidate edges (a normal grid of ±5 sd
// mapped to integers, or every integer for narrow laws), merged until each expects ≥ 20 draws.
double chiSquaredPValue(const std::vector<std::uint64_t>& draws, std::uint64_t n, double p,
                        int* binsUsed) {
    const boost::math::binomial_distribution<double> law(static_cast<double>(n), p);
    const double mean = static_cast<double>(n) * p;
    const double sd = std::sqrt(mean * (1 - p));
    std::vector<double> edges;  // bin i = [edges[i], edges[i+1]) of integers
    for (int i = -200; i <= 200; ++i) {
        const double e = std::floor(mean + sd * i / 40.0);
        if (e > 0 && e <= static_cast<double>(n)) {
            edges.push_back(e);
        }
    }
    edges.push_back(0);
    edges.push_back(static_cast<double>(n) + 1);
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    const auto cdfBelow = [&](double e) {  // P[X < e] for integer e
        return e <= 0 ? 0.0 : (e > static_cast<double>(n) ? 1.0 : boost::math::cdf(law, e - 1));
    };
    const double m = static_cast<double>(draws.size());
    std::vector<double> expected, observed;
    std::vector<std::uint64_t> sorted(draws);
    std::sort(sorted.begin(), sorted.end());
    double accE = 0, accO = 0;
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        accE += m * (cdfBelow(edges[i + 1]) - cdfBelow(edges[i]));
        const auto lo =
            std::lower_bound(sorted.begin(), sorted.end(), static_cast<std::uint64_t>(edges[i]));
        const auto hi = std::lower_bound(sorted.begin(), sorted.end(),
                                         static_cast<std::uint64_t>(edges[i + 1]));
        accO += static_cast<double>(hi - lo);
        if (accE >= 20) {
            expected.push_back(accE);
            observed.push_back(accO);
            accE = accO = 0;
        }
    }
    if (!expected.empty()) {
        expected.back() += accE;
        observed.back() += accO;
    }
    double chi2 = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        chi2 += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
    }
    *binsUsed = static_cast<int>(expected.size());
    if (expected.size() < 2) {
        return 1.0;
    }
    const boost::math::chi_squared_distribution<double> chi(double(expected.size() - 1));
    return boost::math::cdf(boost::math::complement(chi, chi2));
}

template <class F>
bool throwsInvalid(F f) {
    try {
        f();
    } catch (const std::invalid_argument&) {
        return true;
    }
    return false;
}

}  // namespace

class TestRandomVariates : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void uniformIntUnbiased();
    void logPmfAgainstMpmath_data();
    void logPmfAgainstMpmath();
    void binomialGoodnessOfFit_data();
    void binomialGoodnessOfFit();
    void binomialHugeN_data();
    void binomialHugeN();
    void binomialEdgeCases();
    void gammaAgainstBoostCdf_data();
    void gammaAgainstBoostCdf();
    void gammaRefusals();
    void deterministic();
    void multinomialSumsAndMeans();
    void multinomialUniformBothPaths();
};

void TestRandomVariates::uniformIntUnbiased() {
    SimulationRng rng(11, 0);
    // k = 7: χ² over the 7 cells (6 dof; 99.9% quantile 22.46).
    const int m = 70000;
    std::vector<double> cells(7, 0);
    for (int i = 0; i < m; ++i) {
        const std::uint64_t x = uniformInt(rng, 7);
        QVERIFY(x < 7);
        cells[x] += 1;
    }
    double chi2 = 0;
    for (double c : cells) {
        chi2 += (c - m / 7.0) * (c - m / 7.0) / (m / 7.0);
    }
    QVERIFY2(chi2 < 22.46, QByteArray::number(chi2).constData());
    // k = 3·2^62: x mod k would put half of the mass below 2^62 (twice the 1/3 it should have).
    const std::uint64_t k = 3 * (std::uint64_t{1} << 62);
    double below = 0;
    const int m2 = 100000;
    for (int i = 0; i < m2; ++i) {
        below += uniformInt(rng, k) < (std::uint64_t{1} << 62) ? 1 : 0;
    }
    const double se = std::sqrt((1.0 / 3) * (2.0 / 3) / m2);
    DPX_VERIFY_NEAR(below / m2, 1.0 / 3, 5 * se);
    QCOMPARE(uniformInt(rng, 1), std::uint64_t{0});
    QVERIFY(uniformInt(rng, ~std::uint64_t{0}) < ~std::uint64_t{0});
    QVERIFY(throwsInvalid([&] { (void)uniformInt(rng, 0); }));
}

void TestRandomVariates::logPmfAgainstMpmath_data() {
    QTest::addColumn<double>("n");
    QTest::addColumn<double>("k");
    QTest::addColumn<double>("p");
    QTest::addColumn<double>("expected");
    // References: mpmath at 50 digits, loggamma(n+1) − loggamma(k+1) − loggamma(n−k+1) +
    // k ln p + (n−k) ln(1−p) with p the given double. (Boost's pdf is off by 1.5e−8 at n = 2^40,
    // so it is not used as the reference here.)
    QTest::newRow("n=5,k=3") << 5.0 << 3.0 << 0.9 << -2.6186666399675249578;
    QTest::newRow("n=20,k=0") << 20.0 << 0.0 << 0.3 << -7.133498878774647261;
    QTest::newRow("n=20,k=20") << 20.0 << 20.0 << 0.3 << -24.079456086518720593;
    QTest::newRow("n=1e9,k=100,p=1e-7") << 1e9 << 100.0 << 1e-7 << -3.2223569067543508488;
    QTest::newRow("n=1e9,k=mode+3sd") << 1e9 << 500047434.0 << 0.5 << -15.087392985617870442;
    QTest::newRow("n=2^40") << 1099511627776.0 << 329853000000.0 << 0.3 << -14.517953760762092515;
    QTest::newRow("n=2^48") << 281474976710656.0 << 140737500701006.0 << 0.5
                            << -17.944302834431372896;
    QTest::newRow("n=1e9,k=n-3") << 1e9 << 999999997.0 << 0.9999999 << -87.976253563207576891;
}

void TestRandomVariates::logPmfAgainstMpmath() {
    QFETCH(double, n);
    QFETCH(double, k);
    QFETCH(double, p);
    QFETCH(double, expected);
    const double got =
        binomialLogPmf(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k), p);
    DPX_VERIFY_NEAR(got, expected, 1e-11 * std::max(1.0, std::abs(expected)));
}

void TestRandomVariates::binomialGoodnessOfFit_data() {
    QTest::addColumn<double>("n");
    QTest::addColumn<double>("p");
    QTest::newRow("n=1e9,p=1e-7 (BTRS, np=100)") << 1e9 << 1e-7;
    QTest::newRow("n=1e9,p=0.5 (BTRS)") << 1e9 << 0.5;
    QTest::newRow("n=5,p=0.9 (symmetry, inversion)") << 5.0 << 0.9;
    QTest::newRow("n=20,p=0.3 (inversion, np=6)") << 20.0 << 0.3;
    QTest::newRow("n=100,p=0.1 (BTRS at np=10)") << 100.0 << 0.1;
    QTest::newRow("n=99,p=0.1 (inversion at np=9.9)") << 99.0 << 0.1;
    QTest::newRow("n=1000,p=0.02 (BTRS, np=20)") << 1000.0 << 0.02;
    QTest::newRow("n=1e6,p=1-3e-6 (symmetry, inversion)") << 1e6 << 1 - 3e-6;
    QTest::newRow("n=2^40,p=0.3") << 1099511627776.0 << 0.3;
    QTest::newRow("n=3,p=0.5") << 3.0 << 0.5;
}

void TestRandomVariates::binomialGoodnessOfFit() {
    QFETCH(double, n);
    QFETCH(double, p);
    const auto nn = static_cast<std::uint64_t>(n);
    SimulationRng rng(2024, static_cast<std::uint64_t>(n * 7 + p * 1e6));
    const int m = 200000;
    std::vector<std::uint64_t> draws(m);
    Moments mom;
    for (auto& x : draws) {
        x = binomial(rng, nn, p);
        QVERIFY(x <= nn);
        mom.add(static_cast<double>(x));
    }
    const double mean = n * p;
    const double var = n * p * (1 - p);
    DPX_VERIFY_NEAR(mom.mean, mean, 5 * std::sqrt(var / m));
    // se of the sample variance ≈ var·sqrt(2/m + excess kurtosis/m); excess = (1 − 6pq)/(npq).
    const double kurt = (1 - 6 * p * (1 - p)) / var;
    DPX_VERIFY_NEAR(mom.variance(), var, 5 * var * std::sqrt((2 + std::max(0.0, kurt)) / m));
    int bins = 0;
    const double pValue = chiSquaredPValue(draws, nn, p, &bins);
    QVERIFY2(bins >= 3, QByteArray::number(bins).constData());
    QVERIFY2(pValue > 1e-3, (QByteArray("chi-squared p-value ") + QByteArray::number(pValue) +
                             " over " + QByteArray::number(bins) + " bins")
                                .constData());
}

void TestRandomVariates::binomialHugeN_data() {
    QTest::addColumn<double>("p");
    QTest::newRow("n=2^62,p=0.5 (chunks of 2^48)") << 0.5;
    QTest::newRow("n=2^62,p=1e-17 (chunked inversion)") << 1e-17;
}

// n = 2^62 (beyond double integer precision: drawn in 2^14 chunks). Mean and variance only.
void TestRandomVariates::binomialHugeN() {
    QFETCH(double, p);
    const std::uint64_t n = kMaxBinomialTrials;
    const double nd = std::ldexp(1.0, 62);
    SimulationRng rng(7, 1);
    const int m = 300;
    Moments mom;
    for (int i = 0; i < m; ++i) {
        const std::uint64_t x = binomial(rng, n, p);
        QVERIFY(x <= n);
        // Centre exactly in integers before converting (x − np would lose the low bits).
        const auto centre = static_cast<std::int64_t>(std::llround(nd * p));
        mom.add(static_cast<double>(static_cast<std::int64_t>(x) - centre));
    }
    const double mean = nd * p - std::round(nd * p);
    const double var = nd * p * (1 - p);
    DPX_VERIFY_NEAR(mom.mean, mean, 5 * std::sqrt(var / m));
    DPX_VERIFY_NEAR(mom.variance(), var, 5 * var * std::sqrt(2.0 / m));
}

void TestRandomVariates::binomialEdgeCases() {
    SimulationRng rng(3, 0);
    QCOMPARE(binomial(rng, 0, 0.3), std::uint64_t{0});
    QCOMPARE(binomial(rng, 1000, 0.0), std::uint64_t{0});
    QCOMPARE(binomial(rng, 1000, 1.0), std::uint64_t{1000});
    QCOMPARE(binomial(rng, kMaxBinomialTrials, 1.0), kMaxBinomialTrials);
    QCOMPARE(binomial(rng, kMaxBinomialTrials, 0.0), std::uint64_t{0});
    QVERIFY(throwsInvalid([&] { (void)binomial(rng, 10, -0.1); }));
    QVERIFY(throwsInvalid([&] { (void)binomial(rng, 10, 1.5); }));
    QVERIFY(throwsInvalid([&] { (void)binomial(rng, 10, std::nan("")); }));
    QVERIFY(throwsInvalid([&] { (void)binomial(rng, kMaxBinomialTrials + 1, 0.5); }));
}

void TestRandomVariates::gammaAgainstBoostCdf_data() {
    QTest::addColumn<double>("shape");
    QTest::newRow("shape 1 (exponential)") << 1.0;
    QTest::newRow("shape 2.5") << 2.5;
    QTest::newRow("shape 40") << 40.0;
    QTest::newRow("shape 2^40") << 0x1.0p40;
    QTest::newRow("shape 2^63") << 0x1.0p63;
}

// Gamma(shape, 1) by Marsaglia & Tsang: χ² goodness of fit over 50 equiprobable cells whose
// edges are Boost.Math's gamma quantiles (incomplete-gamma inversion, independent of the
// sampler), plus mean = variance = shape within 5 standard errors. Above 2^30 Boost's incomplete
// gamma series does not converge; there the reference is the normal law N(k, k): the gamma's
// skewness 2/√k makes its cdf differ from the normal's by under 0.1/√k (< 1e-5 at 2^30), far
// below what 200 000 draws resolve (~2e-3).
void TestRandomVariates::gammaAgainstBoostCdf() {
    QFETCH(double, shape);
    constexpr int kCells = 50;
    std::vector<double> edges;
    for (int i = 1; i < kCells; ++i) {
        const double u = static_cast<double>(i) / kCells;
        edges.push_back(
            shape <= 0x1.0p30
                ? boost::math::quantile(boost::math::gamma_distribution<double>(shape, 1.0), u)
                : boost::math::quantile(
                      boost::math::normal_distribution<double>(shape, std::sqrt(shape)), u));
    }
    SimulationRng rng(17, 3);
    constexpr int kDraws = 200000;
    std::vector<double> observed(kCells, 0.0);
    Moments mom;
    for (int k = 0; k < kDraws; ++k) {
        const double g = gammaVariate(rng, shape);
        mom.add(g);
        const auto cell = std::upper_bound(edges.begin(), edges.end(), g) - edges.begin();
        observed[static_cast<std::size_t>(cell)] += 1;
    }
    double chi2 = 0;
    const double expected = static_cast<double>(kDraws) / kCells;
    for (double o : observed) {
        chi2 += (o - expected) * (o - expected) / expected;
    }
    const double p = boost::math::cdf(
        boost::math::complement(boost::math::chi_squared_distribution<double>(kCells - 1), chi2));
    QVERIFY2(p > 1e-3, qPrintable(QStringLiteral("chi-square p = %1").arg(p)));
    DPX_VERIFY_NEAR(mom.mean, shape, 5 * std::sqrt(shape / kDraws));
    DPX_VERIFY_NEAR(mom.variance(), shape, 5 * shape * std::sqrt(8.0 / kDraws));
}

void TestRandomVariates::gammaRefusals() {
    SimulationRng rng(1, 0);
    QVERIFY(throwsInvalid([&] { (void)gammaVariate(rng, 0.5); }));
    QVERIFY(throwsInvalid([&] { (void)gammaVariate(rng, std::nan("")); }));
    QVERIFY(throwsInvalid([&] { (void)gammaVariate(rng, INFINITY); }));
}

void TestRandomVariates::deterministic() {
    SimulationRng a(99, 5), b(99, 5), c(100, 5);
    int differ = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t x = binomial(a, 1000000, 0.37);
        QCOMPARE(binomial(b, 1000000, 0.37), x);
        differ += binomial(c, 1000000, 0.37) != x ? 1 : 0;
    }
    QVERIFY(differ > 900);
}

void TestRandomVariates::multinomialSumsAndMeans() {
    SimulationRng rng(5, 5);
    const std::vector<double> probs{0.1, 0.0, 0.3, 0.6, 0.0};
    std::vector<std::uint64_t> out(probs.size());
    const std::uint64_t n = 1000;
    const int m = 20000;
    std::vector<Moments> mom(probs.size());
    for (int i = 0; i < m; ++i) {
        multinomial(rng, n, probs, out);
        QCOMPARE(std::accumulate(out.begin(), out.end(), std::uint64_t{0}), n);
        QCOMPARE(out[1], std::uint64_t{0});
        QCOMPARE(out[4], std::uint64_t{0});
        for (std::size_t j = 0; j < out.size(); ++j) {
            mom[j].add(static_cast<double>(out[j]));
        }
    }
    for (std::size_t j = 0; j < probs.size(); ++j) {
        const double var = double(n) * probs[j] * (1 - probs[j]);
        DPX_VERIFY_NEAR(mom[j].mean, double(n) * probs[j], 5 * std::sqrt(var / m) + 1e-12);
        if (var > 0) {
            DPX_VERIFY_NEAR(mom[j].variance(), var, 5 * var * std::sqrt(2.0 / m));
        }
    }
    // Unnormalised weights, a huge n, invalid inputs.
    const std::vector<double> weights{2, 6};
    multinomial(rng, kMaxBinomialTrials, weights, std::span(out.data(), 2));
    QCOMPARE(out[0] + out[1], kMaxBinomialTrials);
    QVERIFY(throwsInvalid([&] {
        multinomial(rng, 5, std::vector<double>{0, 0}, std::span(out.data(), 2));
    }));
    QVERIFY(throwsInvalid([&] {
        multinomial(rng, 5, std::vector<double>{1, -1}, std::span(out.data(), 2));
    }));
    QVERIFY(throwsInvalid([&] {
        multinomial(rng, 5, std::vector<double>{1, std::nan("")}, std::span(out.data(), 2));
    }));
}

void TestRandomVariates::multinomialUniformBothPaths() {
    SimulationRng rng(8, 8);
    for (const std::uint64_t n : {std::uint64_t{3}, std::uint64_t{5000}}) {  // draws / binomials
        std::vector<std::uint64_t> out(16);
        const int m = 20000;
        std::vector<Moments> mom(out.size());
        for (int i = 0; i < m; ++i) {
            multinomialUniform(rng, n, out);
            QCOMPARE(std::accumulate(out.begin(), out.end(), std::uint64_t{0}), n);
            for (std::size_t j = 0; j < out.size(); ++j) {
                mom[j].add(static_cast<double>(out[j]));
            }
        }
        const double pj = 1.0 / 16;
        const double var = double(n) * pj * (1 - pj);
        for (std::size_t j = 0; j < out.size(); ++j) {
            DPX_VERIFY_NEAR(mom[j].mean, double(n) * pj, 5 * std::sqrt(var / m));
            DPX_VERIFY_NEAR(mom[j].variance(), var, 5 * var * std::sqrt((2 + 1 / var) / m));
        }
    }
}

QTEST_GUILESS_MAIN(TestRandomVariates)
#include "tst_random_variates.moc"
