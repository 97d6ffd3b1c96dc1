// Local-DP workloads and metrics (core/ldp/metrics.h; issue #7; LABELS statistical): seed 002's
// telemetry shapes and counts, bucket centres, frequency post-processing, the histogram error and
// its expectation under the normal approximation. References: mpmath 1.3 at 30 digits for the
// truncated normal N(12, 4²) on [0, 24] (ncdf differences), hand computations (Duchi et al. 2008
// projection), closed forms (E|Z| = σ·√(2/π), E max(|Z₁|, |Z₂|) = 2/√π for iid N(0, 1)) and a
// seeded Monte Carlo with a 4-standard-error tolerance.
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/ldp/metrics.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::ldp;

Q_DECLARE_METATYPE(dpx::ldp::TelemetryShape)
Q_DECLARE_METATYPE(dpx::ldp::FrequencyPostProcess)

class TestLdpMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shapeNames();
    void probabilitiesSumToOne_data();
    void probabilitiesSumToOne();
    void normalReference_data();
    void normalReference();
    void normalSymmetric();
    void constantBucket();
    void uniformBuckets();
    void counts_data();
    void counts();
    void bucketCentres();
    void postProcess_data();
    void postProcess();
    void postProcessRejects();
    void maxAbsError();
    void expectedMaxAbsClosedForms();
    void expectedMaxAbsMonteCarlo();
    void expectedMaxAbsRandomizedResponse();
    void rejections();
};

// RR's two estimates sum to 1 exactly, so max_j |f̂_j − f_j| = |f̂_1 − f_1|: E = σ·√(2/π), not
// the independent-bins value (which is larger). Checked against a seeded simulation of RR with
// core's aggregate simulator (4 standard errors), and other protocols keep the general formula.
void TestLdpMetrics::expectedMaxAbsRandomizedResponse() {
    const ProtocolSpec rr{Protocol::RR, 1.0, 2, 1};
    const std::uint64_t n = 10000;
    const std::vector<std::int64_t> counts = {3000, 7000};
    std::vector<double> var;
    for (double f : {0.3, 0.7}) {
        var.push_back(*estimatorVariance(rr, n, f));
    }
    QVERIFY(std::abs(var[0] - var[1]) < 1e-15);
    const double expected = expectedMaxAbsError(Protocol::RR, var);
    DPX_VERIFY_NEAR(expected, std::sqrt(var[0]) * std::sqrt(2 / std::numbers::pi), 1e-15);
    QVERIFY(expected < expectedMaxAbsNormal(var));
    double sum = 0, sumSq = 0;
    const int trials = 20000;
    for (int t = 0; t < trials; ++t) {
        const auto est = simulateAggregate(rr, counts, 1000 + static_cast<std::uint64_t>(t));
        QVERIFY(est.hasValue());
        const double m =
            std::max(std::abs(est->frequencies[0] - 0.3), std::abs(est->frequencies[1] - 0.7));
        sum += m;
        sumSq += m * m;
    }
    const double mean = sum / trials;
    const double se = std::sqrt((sumSq / trials - mean * mean) / trials);
    DPX_VERIFY_NEAR(mean, expected, 4 * se);
    const std::vector<double> three = {0.01, 0.02, 0.03};
    QCOMPARE(expectedMaxAbsError(Protocol::GRR, three), expectedMaxAbsNormal(three));
}

void TestLdpMetrics::shapeNames() {
    for (auto s :
         {TelemetryShape::TruncatedNormal, TelemetryShape::Uniform, TelemetryShape::Constant}) {
        const auto back = telemetryShapeFromName(telemetryShapeName(s));
        QVERIFY(back.hasValue());
        QCOMPARE(*back, s);
    }
    QCOMPARE(QByteArray(telemetryShapeName(TelemetryShape::TruncatedNormal)), QByteArray("normal"));
    for (auto p :
         {FrequencyPostProcess::None, FrequencyPostProcess::Clamp, FrequencyPostProcess::Simplex}) {
        const auto back = frequencyPostProcessFromName(frequencyPostProcessName(p));
        QVERIFY(back.hasValue());
        QCOMPARE(*back, p);
    }
    DPX_VERIFY_ERROR(telemetryShapeFromName("gaussian"), "gaussian");
    DPX_VERIFY_ERROR(telemetryShapeFromName(""), "normal");
    DPX_VERIFY_ERROR(frequencyPostProcessFromName("resize"), "resize");
}

void TestLdpMetrics::probabilitiesSumToOne_data() {
    QTest::addColumn<TelemetryShape>("shape");
    QTest::addColumn<qulonglong>("buckets");
    for (auto s :
         {TelemetryShape::TruncatedNormal, TelemetryShape::Uniform, TelemetryShape::Constant}) {
        for (qulonglong k : {1ULL, 2ULL, 3ULL, 32ULL, 33ULL, 118ULL, 1000ULL, 1ULL << 22}) {
            QTest::addRow("%s k=%llu", telemetryShapeName(s), k) << s << k;
        }
    }
}

void TestLdpMetrics::probabilitiesSumToOne() {
    QFETCH(TelemetryShape, shape);
    QFETCH(qulonglong, buckets);
    const auto p = telemetryShapeProbabilities(shape, buckets);
    DPX_VERIFY_OK(p);
    QCOMPARE(p->size(), std::size_t(buckets));
    double sum = 0;
    for (double x : *p) {
        QVERIFY(x >= 0 && std::isfinite(x));
        sum += x;
    }
    // k rounded terms of size ≤ 1: relative rounding ≤ k·2^−53 plus the erfc differences.
    DPX_VERIFY_NEAR(sum, 1.0, 1e-12 + 1e-15 * static_cast<double>(buckets));
}

void TestLdpMetrics::normalReference_data() {
    QTest::addColumn<qulonglong>("buckets");
    QTest::addColumn<qulonglong>("bucket");
    QTest::addColumn<double>("expected");
    // mpmath: (ncdf((hi − 12)/4) − ncdf((lo − 12)/4)) / (ncdf(3) − ncdf(−3)), 30 digits.
    QTest::newRow("k=32 edge") << 32ULL << 0ULL << 0.0011110026240773488;
    QTest::newRow("k=32 below 12 h") << 32ULL << 15ULL << 0.074567003859365816;
    QTest::newRow("k=32 above 12 h") << 32ULL << 16ULL << 0.074567003859365816;
    QTest::newRow("k=32 last") << 32ULL << 31ULL << 0.0011110026240773488;
    QTest::newRow("k=33 edge") << 33ULL << 0ULL << 0.001067807458713229;
    QTest::newRow("k=33 centre") << 33ULL << 16ULL << 0.072631262991683355;
}

void TestLdpMetrics::normalReference() {
    QFETCH(qulonglong, buckets);
    QFETCH(qulonglong, bucket);
    QFETCH(double, expected);
    const auto p = telemetryShapeProbabilities(TelemetryShape::TruncatedNormal, buckets);
    DPX_VERIFY_OK(p);
    DPX_VERIFY_REL((*p)[bucket], expected, 1e-12);
}

void TestLdpMetrics::normalSymmetric() {
    // N(12, 4²) truncated to [0, 24] is symmetric about 12 h: p_b = p_{k−1−b}.
    for (std::size_t k : {2, 7, 32, 33, 1000}) {
        const auto p = *telemetryShapeProbabilities(TelemetryShape::TruncatedNormal, k);
        for (std::size_t b = 0; b < k; ++b) {
            DPX_VERIFY_NEAR(p[b], p[k - 1 - b], 1e-14);
        }
        // Unimodal: increasing up to the middle.
        for (std::size_t b = 0; b + 1 < (k + 1) / 2; ++b) {
            QVERIFY(p[b] < p[b + 1]);
        }
    }
}

void TestLdpMetrics::constantBucket() {
    // Every user at 12 h: bucket 16 of 32 ([12, 12.75)), the lower edge of bucket k/2 for even k
    // and the centre of bucket (k−1)/2 for odd k, i.e. bucket ⌊k/2⌋ for every k. (Before the fix
    // the index came from 12/(24/k) in floating point, which gave bucket 58 for k = 118 and was
    // wrong for 90 010 of the k ≤ 2^22.)
    const auto p32 = *telemetryShapeProbabilities(TelemetryShape::Constant, 32);
    QCOMPARE(p32[16], 1.0);
    for (std::size_t k = 1; k <= 5000; ++k) {
        const auto p = *telemetryShapeProbabilities(TelemetryShape::Constant, k);
        for (std::size_t b = 0; b < k; ++b) {
            if (p[b] != (b == k / 2 ? 1.0 : 0.0)) {
                QFAIL(qPrintable(QStringLiteral("k = %1, bucket %2: %3").arg(k).arg(b).arg(p[b])));
            }
        }
    }
    const auto counts = *telemetryCounts(TelemetryShape::Constant, 118, 12345);
    QCOMPARE(counts.counts()[59], std::int64_t(12345));
    QCOMPARE(counts.total(), std::int64_t(12345));
}

void TestLdpMetrics::uniformBuckets() {
    const auto p = *telemetryShapeProbabilities(TelemetryShape::Uniform, 24);
    for (double x : p) {
        QCOMPARE(x, 1.0 / 24);
    }
}

void TestLdpMetrics::counts_data() {
    QTest::addColumn<TelemetryShape>("shape");
    QTest::addColumn<qulonglong>("buckets");
    QTest::addColumn<qulonglong>("users");
    for (auto s :
         {TelemetryShape::TruncatedNormal, TelemetryShape::Uniform, TelemetryShape::Constant}) {
        for (qulonglong n : {1ULL, 7ULL, 10000ULL, 300000ULL, 1000000000ULL, 1000000000000000ULL}) {
            QTest::addRow("%s k=32 N=%llu", telemetryShapeName(s), n) << s << 32ULL << n;
        }
        QTest::addRow("%s k=33 N=99991", telemetryShapeName(s)) << s << 33ULL << 99991ULL;
        QTest::addRow("%s k=4096 N=1e12", telemetryShapeName(s))
            << s << 4096ULL << 1000000000000ULL;
    }
}

void TestLdpMetrics::counts() {
    // Total exactly N; every count within 1 of N·p (largest remainders). At N = 10^15 this failed
    // with weights in units of 10^−12 (443 off); units of 10^−18 keep it within 1.
    QFETCH(TelemetryShape, shape);
    QFETCH(qulonglong, buckets);
    QFETCH(qulonglong, users);
    const auto p = *telemetryShapeProbabilities(shape, buckets);
    const auto h = telemetryCounts(shape, buckets, users);
    DPX_VERIFY_OK(h);
    QCOMPARE(h->size(), std::size_t(buckets));
    QCOMPARE(h->total(), std::int64_t(users));
    std::int64_t sum = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::int64_t c = h->counts()[b];
        QVERIFY(c >= 0);
        sum += c;
        QVERIFY2(std::abs(static_cast<double>(c) - static_cast<double>(users) * p[b]) < 1,
                 qPrintable(QStringLiteral("bucket %1: count %2, N·p = %3")
                                .arg(b)
                                .arg(c)
                                .arg(static_cast<double>(users) * p[b], 0, 'f', 3)));
    }
    QCOMPARE(sum, std::int64_t(users));
    // Edges 24·b/k on [0, 24].
    QCOMPARE(h->edges().size(), std::size_t(buckets) + 1);
    QCOMPARE(h->edges().front(), 0.0);
    QCOMPARE(h->edges().back(), 24.0);
    DPX_VERIFY_NEAR(h->edges()[1], 24.0 / static_cast<double>(buckets), 1e-15);
}

void TestLdpMetrics::bucketCentres() {
    const auto x = telemetryBucketCentres(32);
    QCOMPARE(x.size(), std::size_t(32));
    QCOMPARE(x.front(), 0.375);  // 24·(0 + ½)/32
    QCOMPARE(x[16], 12.375);
    QCOMPARE(x.back(), 23.625);
    QCOMPARE(telemetryBucketCentres(1), std::vector<double>{12.0});
    QCOMPARE(telemetryBucketCentres(3), (std::vector<double>{4.0, 12.0, 20.0}));
}

void TestLdpMetrics::postProcess_data() {
    QTest::addColumn<FrequencyPostProcess>("kind");
    QTest::addColumn<QList<double>>("input");
    QTest::addColumn<QList<double>>("expected");
    const QList<double> in{0.5, -0.1, 0.6};
    QTest::newRow("none") << FrequencyPostProcess::None << in << in;
    QTest::newRow("clamp") << FrequencyPostProcess::Clamp << in << QList<double>{0.5, 0, 0.6};
    // Duchi et al. Fig. 1 by hand: sorted 0.6, 0.5, −0.1; ρ = 2 (0.5 − (1.1 − 1)/2 > 0,
    // −0.1 − (1.0 − 1)/3 ≤ 0); θ = (1.1 − 1)/2 = 0.05.
    QTest::newRow("simplex, one negative")
        << FrequencyPostProcess::Simplex << in << QList<double>{0.45, 0, 0.55};
    // Sum 0.4 < 1: θ = (0.4 − 1)/2 = −0.3, both raised by 0.3.
    QTest::newRow("simplex, short of 1")
        << FrequencyPostProcess::Simplex << QList<double>{0.2, 0.2} << QList<double>{0.5, 0.5};
    // All negative: ρ = 1, θ = −1 − 1 = −2 → (1, 0).
    QTest::newRow("simplex, all negative")
        << FrequencyPostProcess::Simplex << QList<double>{-1, -2} << QList<double>{1, 0};
    // Already a distribution: unchanged.
    QTest::newRow("simplex, on the simplex")
        << FrequencyPostProcess::Simplex << QList<double>{0.25, 0.75} << QList<double>{0.25, 0.75};
}

void TestLdpMetrics::postProcess() {
    QFETCH(FrequencyPostProcess, kind);
    QFETCH(QList<double>, input);
    QFETCH(QList<double>, expected);
    const std::vector<double> in = dpxtest::toVector(input);
    const auto out = postProcessFrequencies(in, kind);
    DPX_VERIFY_OK(out);
    QCOMPARE(out->size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        DPX_VERIFY_NEAR((*out)[i], expected[qsizetype(i)], 1e-15);
    }
}

void TestLdpMetrics::postProcessRejects() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (auto kind :
         {FrequencyPostProcess::None, FrequencyPostProcess::Clamp, FrequencyPostProcess::Simplex}) {
        DPX_VERIFY_ERROR(postProcessFrequencies(std::vector<double>{}, kind), "no frequencies");
        DPX_VERIFY_ERROR(postProcessFrequencies(std::vector<double>{0.5, nan}, kind), "finite");
        DPX_VERIFY_ERROR(postProcessFrequencies(std::vector<double>{inf, 0.5}, kind), "finite");
        DPX_VERIFY_ERROR(postProcessFrequencies(std::vector<double>{-inf}, kind), "finite");
    }
}

void TestLdpMetrics::maxAbsError() {
    const std::vector<double> a{0.1, 0.5, 0.4};
    const std::vector<double> b{0.2, 0.2, 0.6};
    DPX_VERIFY_NEAR(dpx::ldp::maxAbsError(a, b), 0.3, 1e-15);
    QCOMPARE(dpx::ldp::maxAbsError(a, a), 0.0);
}

void TestLdpMetrics::expectedMaxAbsClosedForms() {
    // One variance: E|Z| = σ·√(2/π).
    for (double v : {1e-8, 0.01, 1.0, 4.0}) {
        DPX_VERIFY_REL(expectedMaxAbsNormal(std::vector<double>{v}),
                       std::sqrt(v) * std::sqrt(2 / std::numbers::pi), 1e-9);
    }
    // Two iid N(0, 1): E max(|Z₁|, |Z₂|) = 2/√π (∫ 1 − erf(t/√2)² dt; checked with mpmath).
    DPX_VERIFY_REL(expectedMaxAbsNormal(std::vector<double>{1, 1}), 2 / std::sqrt(std::numbers::pi),
                   1e-9);
    // σ = 1 and 2: mpmath quad of 1 − erf(t/√2)·erf(t/(2√2)) = 1.784124116152771.
    DPX_VERIFY_REL(expectedMaxAbsNormal(std::vector<double>{1, 4}), 1.784124116152771, 1e-9);
    // Zero, negative and non-finite variances count as 0.
    QCOMPARE(expectedMaxAbsNormal(std::vector<double>{}), 0.0);
    QCOMPARE(expectedMaxAbsNormal(std::vector<double>{0, 0}), 0.0);
    QCOMPARE(expectedMaxAbsNormal(std::vector<double>{-1}), 0.0);
    DPX_VERIFY_REL(expectedMaxAbsNormal(std::vector<double>{1, 0, -3}),
                   std::sqrt(2 / std::numbers::pi), 1e-9);
}

void TestLdpMetrics::expectedMaxAbsMonteCarlo() {
    // 32 unequal variances σ_j = 0.01·(0.5 + j/16)² (a 1:9 spread in σ, like an oracle's
    // per-bucket errors): M = 10^6 draws of max_j |σ_j Z_j|, seed 7; |mean − integral| ≤ 4 SE.
    std::vector<double> variances(32);
    std::vector<double> sd(32);
    for (std::size_t j = 0; j < variances.size(); ++j) {
        sd[j] = 0.01 * std::pow(0.5 + static_cast<double>(j) / 16, 2);
        variances[j] = sd[j] * sd[j];
    }
    const double expected = expectedMaxAbsNormal(variances);
    SimulationRng rng(7, 0);
    const int draws = 1'000'000;
    double sum = 0;
    double sumSq = 0;
    for (int i = 0; i < draws; ++i) {
        double m = 0;
        for (double s : sd) {
            m = std::max(m, std::abs(s * rng.normal()));
        }
        sum += m;
        sumSq += m * m;
    }
    const double mean = sum / draws;
    const double se = std::sqrt((sumSq / draws - mean * mean) / (draws - 1));
    qInfo("E max|Z_j| over 32 unequal σ: quadrature %.8g, Monte Carlo %.8g ± %.2g", expected, mean,
          se);
    DPX_VERIFY_NEAR(mean, expected, 4 * se);
    // The maximum exceeds the largest single E|Z_j|.
    QVERIFY(expected > sd.back() * std::sqrt(2 / std::numbers::pi));
}

void TestLdpMetrics::rejections() {
    for (auto s :
         {TelemetryShape::TruncatedNormal, TelemetryShape::Uniform, TelemetryShape::Constant}) {
        DPX_VERIFY_ERROR(telemetryShapeProbabilities(s, 0), "buckets");
        DPX_VERIFY_ERROR(telemetryShapeProbabilities(s, (std::size_t{1} << 22) + 1), "buckets");
        DPX_VERIFY_ERROR(telemetryCounts(s, 0, 100), "buckets");
        DPX_VERIFY_ERROR(telemetryCounts(s, (std::size_t{1} << 22) + 1, 100), "buckets");
        DPX_VERIFY_ERROR(telemetryCounts(s, 32, 0), "users");
        DPX_VERIFY_ERROR(telemetryCounts(s, 32, 1'000'000'000'000'001ULL), "users");
    }
}

QTEST_GUILESS_MAIN(TestLdpMetrics)
#include "tst_ldp_metrics.moc"
