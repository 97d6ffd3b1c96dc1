// k-way marginals under local DP (core/ldp/marginals.h): coefficient sets (seed 001 §4.2 counts),
// exact Lemma 6 reconstruction, simplex projection and TV by hand, unbiasedness and variance of
// INPHT coefficient estimates (Monte Carlo, fixed seeds, 4 standard errors), and the seed's
// comparison INPHT vs the one-hot baseline at d = 8, k = 2, ε = ln 3, N = 10^5 (§4.4).
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/ldp/marginals.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::ldp;

namespace {

constexpr double kLn3 = 1.0986122886681098;

// Correlated synthetic data on d binary attributes: a latent class z (P(z=1) = 0.35); given z the
// attributes are independent with P(x_i = 1 | z) = z ? 0.2 + 0.6·((i·5) mod 7)/6 : 0.1 + 0.05·i.
// Counts are round(n·P(x)), deterministic.
std::vector<std::int64_t> latentCounts(unsigned d, double n) {
    std::vector<std::int64_t> c(std::size_t{1} << d);
    for (std::size_t x = 0; x < c.size(); ++x) {
        double p1 = 0.35;
        double p0 = 0.65;
        for (unsigned i = 0; i < d; ++i) {
            const bool bit = (x >> i) & 1U;
            const double a = 0.2 + 0.6 * double((i * 5) % 7) / 6.0;
            const double b = 0.1 + 0.05 * i;
            p1 *= bit ? a : 1 - a;
            p0 *= bit ? b : 1 - b;
        }
        c[x] = std::llround(n * (p1 + p0));
    }
    return c;
}

double binom(unsigned n, unsigned k) {
    double r = 1;
    for (unsigned i = 1; i <= k; ++i) {
        r = r * (n - k + i) / i;
    }
    return r;
}

}  // namespace

class TestLdpMarginals : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void coefficientSets_data();
    void coefficientSets();
    void cellIndexing();
    void exactReconstruction_data();
    void exactReconstruction();
    void simplexAndTv();
    void rejections();
    void inphtUnbiased();
    void inphtBeatsOneHot();
    void cancellation();
};

void TestLdpMarginals::coefficientSets_data() {
    QTest::addColumn<uint>("d");
    QTest::addColumn<uint>("k");
    QTest::newRow("d=4 k=2 (seed: 11 with θ_0)") << 4U << 2U;
    QTest::newRow("d=8 k=2") << 8U << 2U;
    QTest::newRow("d=16 k=3") << 16U << 3U;
    QTest::newRow("d=5 k=5") << 5U << 5U;
}

void TestLdpMarginals::coefficientSets() {
    // |T| = Σ_{i=1..k} C(d,i) (seed 001 §4.3.2; for d = 4, k = 2 the seed counts 11 including θ_0),
    // C(d,k) marginals.
    QFETCH(uint, d);
    QFETCH(uint, k);
    double t = 0;
    for (unsigned i = 1; i <= k; ++i) {
        t += binom(d, i);
    }
    const auto coeffs = lowOrderCoefficients(d, k);
    const auto masks = marginalMasks(d, k);
    QVERIFY(coeffs.hasValue() && masks.hasValue());
    QCOMPARE(double(coeffs->size()), t);
    QCOMPARE(double(masks->size()), binom(d, k));
    for (std::uint32_t a : *coeffs) {
        QVERIFY(a != 0 && std::popcount(a) <= int(k) && (a >> d) == 0);
    }
}

void TestLdpMarginals::cellIndexing() {
    // Everyone has record 0b101 (attributes 0 and 2 set), d = 3. Marginal {0,2}: cell 0b11 = 1;
    // marginal {1,2}: attribute 1 = 0 (bit 0), attribute 2 = 1 (bit 1) → cell 0b10 = 1.
    std::vector<std::int64_t> c(8, 0);
    c[0b101] = 7;
    const auto m02 = marginalOfCounts(c, 3, 0b101);
    const auto m12 = marginalOfCounts(c, 3, 0b110);
    QCOMPARE(*m02, (std::vector<double>{0, 0, 0, 1}));
    QCOMPARE(*m12, (std::vector<double>{0, 0, 1, 0}));
    const auto coeffs = exactCoefficients(InphtConfig{3, 2, kLn3}, c);
    QCOMPARE(*marginalFromCoefficients(*coeffs, 0b101), *m02);
    QCOMPARE(*marginalFromCoefficients(*coeffs, 0b110), *m12);
    QCOMPARE(*marginalFromCoefficients(*coeffs, 0b010), (std::vector<double>{1, 0}));
}

void TestLdpMarginals::exactReconstruction_data() {
    QTest::addColumn<uint>("d");
    QTest::addColumn<uint>("k");
    QTest::newRow("d=3 k=1") << 3U << 1U;
    QTest::newRow("d=3 k=3") << 3U << 3U;
    QTest::newRow("d=6 k=2") << 6U << 2U;
    QTest::newRow("d=8 k=3") << 8U << 3U;
    QTest::newRow("d=12 k=2") << 12U << 2U;
}

void TestLdpMarginals::exactReconstruction() {
    // The exact transform path: Lemma 6 reproduces every marginal with |β| ≤ k to rounding, so
    // the TV error is 0; the one-hot path on the exact distribution likewise.
    QFETCH(uint, d);
    QFETCH(uint, k);
    const auto counts = latentCounts(d, 1e5);
    const auto coeffs = exactCoefficients(InphtConfig{d, k, kLn3}, counts);
    QVERIFY(coeffs.hasValue());
    for (std::uint32_t beta = 1; beta < (1U << d); ++beta) {
        if (std::popcount(beta) > int(k)) {
            continue;
        }
        const auto est = marginalFromCoefficients(*coeffs, beta);
        const auto truth = marginalOfCounts(counts, d, beta);
        QVERIFY(est.hasValue() && truth.hasValue());
        QCOMPARE(est->size(), truth->size());
        for (std::size_t i = 0; i < est->size(); ++i) {
            DPX_VERIFY_NEAR((*est)[i], (*truth)[i], 1e-12);
        }
    }
    const auto err = marginalError(*coeffs, counts);
    QVERIFY(err.hasValue());
    QCOMPARE(double(err->marginals), binom(d, k));
    DPX_VERIFY_NEAR(err->meanTv, 0.0, 1e-12);
    std::int64_t n = 0;
    for (auto c : counts) {
        n += c;
    }
    std::vector<double> f(counts.size());
    for (std::size_t x = 0; x < f.size(); ++x) {
        f[x] = double(counts[x]) / double(n);
    }
    DPX_VERIFY_NEAR(marginalError(f, d, k, counts)->maxTv, 0.0, 1e-12);
    DPX_VERIFY_NEAR(marginalError(f, d, k, counts, NegativeEstimates::ProjectToSimplex)->maxTv, 0.0,
                    1e-12);
}

void TestLdpMarginals::simplexAndTv() {
    // Hand-computed projections (Duchi et al. 2008): a point of the simplex is fixed; [1.2, −0.2]
    // → [1, 0]; [0.6, 0.6, −0.2] → [0.5, 0.5, 0]; [0.1, 0.1] → [0.5, 0.5] (τ = −0.4).
    QCOMPARE(*projectToSimplex(std::vector<double>{0.25, 0.75}), (std::vector<double>{0.25, 0.75}));
    const auto a = *projectToSimplex(std::vector<double>{1.2, -0.2});
    DPX_VERIFY_NEAR(a[0], 1.0, 1e-15);
    DPX_VERIFY_NEAR(a[1], 0.0, 0);
    const auto b = *projectToSimplex(std::vector<double>{0.6, 0.6, -0.2});
    DPX_VERIFY_NEAR(b[0], 0.5, 1e-15);
    DPX_VERIFY_NEAR(b[1], 0.5, 1e-15);
    DPX_VERIFY_NEAR(b[2], 0.0, 0);
    const auto c = *projectToSimplex(std::vector<double>{0.1, 0.1});
    DPX_VERIFY_NEAR(c[0], 0.5, 1e-15);
    // TV: ½(|0.5−0.2| + |0.5−0.8|) = 0.3.
    DPX_VERIFY_NEAR(*totalVariation(std::vector<double>{0.5, 0.5}, std::vector<double>{0.2, 0.8}),
                    0.3, 1e-15);
}

void TestLdpMarginals::rejections() {
    const auto counts = latentCounts(4, 1000);
    const double inf = std::numeric_limits<double>::infinity();
    DPX_VERIFY_ERROR(marginalMasks(0, 1), "attributes");
    DPX_VERIFY_ERROR(marginalMasks(17, 2), "attributes");
    DPX_VERIFY_ERROR(marginalMasks(4, 0), "order");
    DPX_VERIFY_ERROR(marginalMasks(4, 5), "order");
    DPX_VERIFY_ERROR(lowOrderCoefficients(4, 5), "order");
    for (double eps : {0.0, -1.0, std::nan(""), inf}) {
        DPX_VERIFY_ERROR(simulateInpht(InphtConfig{4, 2, eps}, counts, 1), "epsilon");
    }
    DPX_VERIFY_ERROR(simulateInpht(InphtConfig{4, 5, kLn3}, counts, 1), "order");
    DPX_VERIFY_ERROR(simulateInpht(InphtConfig{5, 2, kLn3}, counts, 1), "2^d");
    DPX_VERIFY_ERROR(exactCoefficients(InphtConfig{4, 2, kLn3}, std::vector<std::int64_t>(16, 0)),
                     "no users");
    std::vector<std::int64_t> negative = counts;
    negative[2] = -3;
    DPX_VERIFY_ERROR(exactCoefficients(InphtConfig{4, 2, kLn3}, negative), "negative");
    DPX_VERIFY_ERROR(marginalOfCounts(counts, 4, 0), "empty");
    DPX_VERIFY_ERROR(marginalOfCounts(counts, 4, 0b10000), "beyond");
    DPX_VERIFY_ERROR(marginalOfDistribution(std::vector<double>(8, 0.1), 4, 1), "2^d");
    DPX_VERIFY_ERROR(marginalOfDistribution(std::vector<double>(16, std::nan("")), 4, 1), "finite");

    auto coeffs = *exactCoefficients(InphtConfig{4, 2, kLn3}, counts);
    DPX_VERIFY_ERROR(marginalFromCoefficients(coeffs, 0b0111), "order");
    DPX_VERIFY_ERROR(marginalFromCoefficients(coeffs, 0), "empty");
    DPX_VERIFY_ERROR(marginalFromCoefficients(coeffs, 0b10001), "beyond");
    coeffs.values.pop_back();
    DPX_VERIFY_ERROR(marginalFromCoefficients(coeffs, 0b11), "malformed");
    DPX_VERIFY_ERROR(marginalError(coeffs, counts), "malformed");

    DPX_VERIFY_ERROR(projectToSimplex(std::vector<double>{}), "no values");
    DPX_VERIFY_ERROR(projectToSimplex(std::vector<double>{inf, 0}), "finite");
    DPX_VERIFY_ERROR(totalVariation(std::vector<double>{1}, std::vector<double>{0.5, 0.5}), "size");
    DPX_VERIFY_ERROR(totalVariation(std::vector<double>{std::nan("")}, std::vector<double>{1}),
                     "finite");
    DPX_VERIFY_ERROR(marginalError(std::vector<double>(8, 0.1), 4, 2, counts), "2^d");
    DPX_VERIFY_ERROR(marginalError(std::vector<double>(16, 0.1), 4, 7, counts), "order");

    ProtocolSpec oue{Protocol::OUE, kLn3, 8, 1};
    DPX_VERIFY_ERROR(simulateOneHot(oue, 4, counts, 1), "domain");
    oue.domain = 16;
    DPX_VERIFY_ERROR(simulateOneHot(oue, 4, std::vector<std::int64_t>(16, 0), 1), "no users");
    DPX_VERIFY_ERROR(simulateOneHot(oue, 0, counts, 1), "attributes");
}

void TestLdpMarginals::inphtUnbiased() {
    // d = 4, k = 2 (|T| = 10), ε = ln 3 (2p − 1 = ½), N = 5000, R = 400 collections: every θ̂_α
    // has mean θ_α within 4 SE, and sample variance within 4 SE (√(2/(R−1)) relative) of
    // E[1/N_α]·(1/(2p−1)² − θ_α²), E[1/N_α] ≈ (|T|/N)(1 + (|T|−1)/N) for N_α ~ Bin(N, 1/|T|)
    // (derived: the reports on α are N_α iid ±1 with mean (2p−1)θ_α).
    const unsigned d = 4;
    const auto counts = latentCounts(d, 5000);
    std::int64_t n = 0;
    for (auto c : counts) {
        n += c;
    }
    const InphtConfig cfg{d, 2, kLn3};
    const auto exact = *exactCoefficients(cfg, counts);
    const std::size_t t = exact.indices.size();
    const int reps = 400;
    std::vector<double> sum(t), sumSq(t);
    for (int rep = 0; rep < reps; ++rep) {
        const auto est = simulateInpht(cfg, counts, 100 + rep);
        QVERIFY(est.hasValue());
        QCOMPARE(est->indices, exact.indices);
        for (std::size_t i = 0; i < t; ++i) {
            sum[i] += est->values[i];
            sumSq[i] += est->values[i] * est->values[i];
        }
    }
    const double invN = double(t) / double(n) * (1 + double(t - 1) / double(n));
    for (std::size_t i = 0; i < t; ++i) {
        const double mean = sum[i] / reps;
        const double var = (sumSq[i] - reps * mean * mean) / (reps - 1);
        const double theta = exact.values[i];
        DPX_VERIFY_NEAR(mean, theta, 4 * std::sqrt(var / reps));
        const double predicted = invN * (4.0 - theta * theta);
        DPX_VERIFY_NEAR(var, predicted, 4 * predicted * std::sqrt(2.0 / (reps - 1)));
    }
}

void TestLdpMarginals::inphtBeatsOneHot() {
    // Seed 001 §4.4 (Figs. 4.3, 4.7): for d = 8, k = 2, ε = ln 3, INPHT has a lower mean TV
    // distance than the one-hot methods (INPRR/OUE, INPOLH). N = 10^5, 5 collections each,
    // negative estimates kept (and projected, reported). Rough analysis: INPHT cell variance
    // 3·36·4/(16N) ≈ 2.7e−4, OUE cell variance 64·3/N ≈ 1.9e−3 → TV ratio ≈ 2.7.
    const unsigned d = 8;
    const auto counts = latentCounts(d, 1e5);
    const int reps = 5;
    double inpht = 0, inphtProj = 0, oue = 0, oueProj = 0, olh = 0;
    for (int rep = 0; rep < reps; ++rep) {
        const auto c = simulateInpht(InphtConfig{d, 2, kLn3}, counts, 40 + rep);
        QVERIFY(c.hasValue());
        inpht += marginalError(*c, counts)->meanTv / reps;
        inphtProj += marginalError(*c, counts, NegativeEstimates::ProjectToSimplex)->meanTv / reps;
        for (Protocol p : {Protocol::OUE, Protocol::OLH}) {
            const auto f = simulateOneHot(ProtocolSpec{p, kLn3, 256, 1}, d, counts, 70 + rep);
            QVERIFY2(f.hasValue(), f.hasValue() ? "" : f.error().message.c_str());
            const double tv = marginalError(f->frequencies, d, 2, counts)->meanTv / reps;
            if (p == Protocol::OUE) {
                oue += tv;
                oueProj +=
                    marginalError(f->frequencies, d, 2, counts, NegativeEstimates::ProjectToSimplex)
                        ->meanTv /
                    reps;
            } else {
                olh += tv;
            }
        }
    }
    qInfo(
        "d=8 k=2 eps=ln3 N=1e5, mean TV over the 28 2-way marginals: INPHT %.4f (projected "
        "%.4f), one-hot OUE %.4f (projected %.4f), one-hot OLH %.4f",
        inpht, inphtProj, oue, oueProj, olh);
    QVERIFY(inpht < oue);
    QVERIFY(inpht < olh);
    QVERIFY(inphtProj < oueProj);
    QVERIFY(inpht < 0.05);  // ≈ √(2/π)·2·0.0164 ≈ 0.026 expected
}

void TestLdpMarginals::cancellation() {
    std::stop_source src;
    src.request_stop();
    const auto counts = latentCounts(8, 3e6);
    const auto c = simulateInpht(InphtConfig{8, 2, kLn3}, counts, 1, src.get_token());
    QVERIFY(c.hasValue());
    QVERIFY(c->cancelled);
}

QTEST_APPLESS_MAIN(TestLdpMarginals)
#include "tst_ldp_marginals.moc"
