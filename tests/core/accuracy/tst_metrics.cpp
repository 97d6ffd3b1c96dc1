// Error metrics: SSE, L1, L∞ on the counts and frequency scales, and Wasserstein-1 (wasserstein.h).
// W1 references: hand computations and, on random cases, the 1-D quantile formula
// W1 = ∫_0^1 |F⁻¹(u) − G⁻¹(u)| du evaluated exactly for discrete distributions (independent of the
// CDF-difference formula used by the core).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/accuracy/metrics.h"
#include "core/accuracy/wasserstein.h"
#include "tests/testing/test_support.h"
#include "tests/testing/w1_reference.h"

using namespace dpx;

class TestMetrics : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void basic_data();
    void basic();
    void w1Hand_data();
    void w1Hand();
    void w1Random();
    void w1Properties();
};

void TestMetrics::basic_data() {
    QTest::addColumn<QList<double>>("truth");
    QTest::addColumn<QList<double>>("estimate");
    QTest::addColumn<double>("sse");
    QTest::addColumn<double>("l1");
    QTest::addColumn<double>("linf");
    // Hand computations (differences in the comments).
    // diff [1, −2, 0.5]: SSE 1 + 4 + 0.25 = 5.25, L1 3.5, L∞ 2; N = 6.
    QTest::newRow("three bins") << QList<double>{1, 2, 3} << QList<double>{2, 0, 3.5} << 5.25 << 3.5
                                << 2.0;
    // Seed 000 clamp example against the true [5, 5, 0, 12, 0]: diff [0, 0, −1, 0, −8] → 65, 9, 8.
    QTest::newRow("seed noisy vs truth")
        << QList<double>{5, 5, 0, 12, 0} << QList<double>{5, 5, -1, 12, -8} << 65.0 << 9.0 << 8.0;
    QTest::newRow("identical") << QList<double>{4, 0, 9} << QList<double>{4, 0, 9} << 0.0 << 0.0
                               << 0.0;
    QTest::newRow("single bin") << QList<double>{10} << QList<double>{7} << 9.0 << 3.0 << 3.0;
}

void TestMetrics::basic() {
    QFETCH(QList<double>, truth);
    QFETCH(QList<double>, estimate);
    QFETCH(double, sse);
    QFETCH(double, l1);
    QFETCH(double, linf);
    const auto t = dpxtest::toVector(truth);
    const auto e = dpxtest::toVector(estimate);
    double N = 0;
    for (double x : t) {
        N += x;
    }
    std::vector<double> pos(t.size());
    DPX_VERIFY_NEAR(sumSquaredError(t, e), sse, 1e-12);
    DPX_VERIFY_NEAR(l1Error(t, e), l1, 1e-12);
    DPX_VERIFY_NEAR(maxAbsError(t, e), linf, 1e-12);
    DPX_VERIFY_NEAR(evaluateMetric({Metric::SSE, Scale::Counts}, t, e, pos, N), sse, 1e-12);
    DPX_VERIFY_NEAR(evaluateMetric({Metric::L1, Scale::Counts}, t, e, pos, N), l1, 1e-12);
    DPX_VERIFY_NEAR(evaluateMetric({Metric::LInf, Scale::Counts}, t, e, pos, N), linf, 1e-12);
    // Frequency scale: divide by N (N² for SSE).
    DPX_VERIFY_NEAR(evaluateMetric({Metric::SSE, Scale::Frequencies}, t, e, pos, N), sse / (N * N),
                    1e-15);
    DPX_VERIFY_NEAR(evaluateMetric({Metric::L1, Scale::Frequencies}, t, e, pos, N), l1 / N, 1e-15);
    DPX_VERIFY_NEAR(evaluateMetric({Metric::LInf, Scale::Frequencies}, t, e, pos, N), linf / N,
                    1e-15);
}

void TestMetrics::w1Hand_data() {
    QTest::addColumn<QList<double>>("truth");
    QTest::addColumn<QList<double>>("estimate");
    QTest::addColumn<QList<double>>("positions");
    QTest::addColumn<double>("w1");  // normalised (frequency-scale) W1, by hand
    QTest::newRow("all mass moved one bin")
        << QList<double>{1, 0, 0} << QList<double>{0, 1, 0} << QList<double>{0, 1, 2} << 1.0;
    QTest::newRow("moved two bins")
        << QList<double>{0, 0, 5} << QList<double>{3, 0, 0} << QList<double>{0, 1, 2} << 2.0;
    QTest::newRow("bin centres 5, 15, 25")
        << QList<double>{1, 0, 0} << QList<double>{0, 1, 0} << QList<double>{5, 15, 25} << 10.0;
    QTest::newRow("uneven spacing")
        << QList<double>{0, 0, 1} << QList<double>{1, 0, 0} << QList<double>{0, 1, 10} << 10.0;
    // [½, ½] vs [1, 0]: half the mass moves one bin.
    QTest::newRow("half moved") << QList<double>{1, 1} << QList<double>{2, 0} << QList<double>{0, 1}
                                << 0.5;
    // Negatives are clamped: [2, −5] is compared as [2, 0].
    QTest::newRow("negative clamped")
        << QList<double>{1, 1} << QList<double>{2, -5} << QList<double>{0, 1} << 0.5;
    // Normalisation: [4, 4] has the shape of [1, 1].
    QTest::newRow("scaled copy") << QList<double>{1, 1} << QList<double>{4, 4}
                                 << QList<double>{0, 1} << 0.0;
    // All-zero estimate → uniform [⅓, ⅓, ⅓] vs [1, 0, 0]: |1 − ⅓| + |1 − ⅔| = 1.
    QTest::newRow("zero estimate is uniform")
        << QList<double>{1, 0, 0} << QList<double>{0, 0, 0} << QList<double>{0, 1, 2} << 1.0;
    QTest::newRow("negative estimate is uniform")
        << QList<double>{1, 0, 0} << QList<double>{-1, -2, -3} << QList<double>{0, 1, 2} << 1.0;
    QTest::newRow("single bin") << QList<double>{3} << QList<double>{-1} << QList<double>{7} << 0.0;
    // [1, 2, 1]/4 vs [0, 1, 3]/4 at 0, 1, 2: CDFs (¼, ¾) vs (0, ¼): ¼ + ½ = ¾.
    QTest::newRow("three bins") << QList<double>{1, 2, 1} << QList<double>{0, 1, 3}
                                << QList<double>{0, 1, 2} << 0.75;
}

void TestMetrics::w1Hand() {
    QFETCH(QList<double>, truth);
    QFETCH(QList<double>, estimate);
    QFETCH(QList<double>, positions);
    QFETCH(double, w1);
    const auto t = dpxtest::toVector(truth);
    const auto e = dpxtest::toVector(estimate);
    const auto p = dpxtest::toVector(positions);
    double N = 0;
    for (double x : t) {
        N += x;
    }
    DPX_VERIFY_NEAR(wasserstein1Normalized(t, e, p), w1, 1e-14 * (1 + w1));
    QVERIFY(validateMetricInputs({Metric::W1, Scale::Counts}, t, p).hasValue());
    DPX_VERIFY_NEAR(evaluateMetric({Metric::W1, Scale::Frequencies}, t, e, p, N), w1,
                    1e-14 * (1 + w1));
    // Counts scale: N × normalised W1 (records × position units).
    DPX_VERIFY_NEAR(evaluateMetric({Metric::W1, Scale::Counts}, t, e, p, N), N * w1,
                    1e-13 * (1 + N * w1));
}

void TestMetrics::w1Random() {
    std::mt19937_64 rng(77);
    std::uniform_int_distribution<int> bins(1, 8);
    std::uniform_real_distribution<double> gap(0.1, 3.0);
    std::uniform_real_distribution<double> mass(0.0, 10.0);
    std::uniform_real_distribution<double> noisy(-6.0, 10.0);
    std::bernoulli_distribution zero(0.25);
    for (int trial = 0; trial < 2000; ++trial) {
        const auto n = static_cast<std::size_t>(bins(rng));
        std::vector<double> t(n);
        std::vector<double> e(n);
        std::vector<double> pos(n);
        double x = gap(rng) - 5;
        double total = 0;
        for (std::size_t i = 0; i < n; ++i) {
            pos[i] = x;
            x += gap(rng);
            t[i] = zero(rng) ? 0.0 : mass(rng);
            e[i] = noisy(rng);
            total += t[i];
        }
        if (!(total > 0)) {
            t[0] = 1;
        }
        const double ref = dpxtest::w1Reference(t, e, pos);
        DPX_VERIFY_NEAR(wasserstein1Normalized(t, e, pos), ref, 1e-12 * (1 + ref));
    }
}

void TestMetrics::w1Properties() {
    // Symmetry and the triangle inequality on a fixed example (positions 0..3).
    const std::vector<double> pos{0, 1, 2, 3};
    const std::vector<double> a{1, 2, 3, 4};
    const std::vector<double> b{4, 3, 2, 1};
    const std::vector<double> c{0, 5, 5, 0};
    const double ab = wasserstein1Normalized(a, b, pos);
    const double ba = wasserstein1Normalized(b, a, pos);
    DPX_VERIFY_NEAR(ab, ba, 1e-15);
    QVERIFY(ab <= wasserstein1Normalized(a, c, pos) + wasserstein1Normalized(c, b, pos) + 1e-15);
    // a = [1,2,3,4]/10 has mean 2, b = [4,3,2,1]/10 mean 1; F_a ≤ F_b everywhere, so W1 = Δmean
    // = 1.
    DPX_VERIFY_NEAR(ab, 1.0, 1e-14);
    // Shift invariance of positions, linear scaling.
    const std::vector<double> pos2{10, 12, 14, 16};
    DPX_VERIFY_NEAR(wasserstein1Normalized(a, b, pos2), 2 * ab, 1e-13);
}

QTEST_APPLESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
