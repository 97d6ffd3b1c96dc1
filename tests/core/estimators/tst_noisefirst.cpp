// NoiseFirst (Xu et al. 2012; seed 000 §2.1.3, §3.2.1). References: the seed's 2-bin rule (eq. 3.6)
// and brute-force enumeration of all 2^(n−1) contiguous segmentations (each bucket set to the
// mean of its noisy bins, SSE computed directly in long double), from which SSE_k (V-optimal error
// with k buckets) and k* = argmin_k SSE_k − (n − 2k)·V (smallest k on ties) follow.
#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <stop_token>
#include <vector>

#include "core/estimators/estimator.h"
#include "core/estimators/noisefirst_estimator.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

struct Segmentation {
    std::vector<std::size_t> ends;  // exclusive bucket ends
    double sse = 0;
};

double segmentSse(const std::vector<double>& x, std::size_t b, std::size_t e) {
    long double mean = 0;
    for (std::size_t i = b; i < e; ++i) {
        mean += x[i];
    }
    mean /= static_cast<long double>(e - b);
    long double s = 0;
    for (std::size_t i = b; i < e; ++i) {
        s += (x[i] - mean) * (x[i] - mean);
    }
    return static_cast<double>(s);
}

struct BruteForce {
    std::vector<double> sseK;                     // SSE_k, index k − 1
    std::vector<std::vector<std::size_t>> endsK;  // an optimal segmentation per k
};

BruteForce bruteForce(const std::vector<double>& x) {
    const std::size_t n = x.size();
    BruteForce bf;
    bf.sseK.assign(n, std::numeric_limits<double>::infinity());
    bf.endsK.assign(n, {});
    for (unsigned long mask = 0; mask < (1UL << (n - 1)); ++mask) {
        // Bit i set: a bucket ends after bin i.
        std::vector<std::size_t> ends;
        for (std::size_t i = 0; i + 1 < n; ++i) {
            if (mask & (1UL << i)) {
                ends.push_back(i + 1);
            }
        }
        ends.push_back(n);
        double sse = 0;
        std::size_t b = 0;
        for (std::size_t e : ends) {
            sse += segmentSse(x, b, e);
            b = e;
        }
        const std::size_t k = ends.size();
        if (sse < bf.sseK[k - 1]) {
            bf.sseK[k - 1] = sse;
            bf.endsK[k - 1] = ends;
        }
    }
    return bf;
}

struct Choice {
    std::size_t k = 0;
    double criterion = 0;
    double gap = 0;  // distance to the best criterion with another k (to skip numerical ties)
};

Choice chooseK(const std::vector<double>& sseK, double V) {
    const double n = static_cast<double>(sseK.size());
    Choice c;
    c.criterion = std::numeric_limits<double>::infinity();
    std::vector<double> crit(sseK.size());
    for (std::size_t k = 1; k <= sseK.size(); ++k) {
        crit[k - 1] = sseK[k - 1] - (n - 2.0 * double(k)) * V;
        if (crit[k - 1] < c.criterion) {
            c.criterion = crit[k - 1];
            c.k = k;
        }
    }
    c.gap = std::numeric_limits<double>::infinity();
    for (std::size_t k = 1; k <= sseK.size(); ++k) {
        if (k != c.k) {
            c.gap = std::min(c.gap, crit[k - 1] - c.criterion);
        }
    }
    return c;
}

std::vector<double> bucketMeans(const std::vector<double>& x,
                                const std::vector<std::size_t>& ends) {
    std::vector<double> out(x.size());
    std::size_t b = 0;
    for (std::size_t e : ends) {
        long double m = 0;
        for (std::size_t i = b; i < e; ++i) {
            m += x[i];
        }
        m /= static_cast<long double>(e - b);
        for (std::size_t i = b; i < e; ++i) {
            out[i] = static_cast<double>(m);
        }
        b = e;
    }
    return out;
}

}  // namespace

class TestNoiseFirst : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void twoBinRule_data();
    void twoBinRule();
    void twoBinTie();
    void bruteForceRandom_data();
    void bruteForceRandom();
    void sseNonIncreasing();
    void largeCounts_data();
    void largeCounts();
    void handExample();
    void singleBin();
    void stopToken();
};

void TestNoiseFirst::twoBinRule_data() {
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("h1");
    QTest::addColumn<double>("factor");  // |h̃1 − h̃2| = factor · 2√2/ε
    QTest::addColumn<bool>("merge");
    // Seed 000 eq. 3.6: with Laplace(1/ε) noise (V = 2/ε²) merge iff |h̃1 − h̃2| ≤ 2√2/ε.
    for (double eps : {0.1, 1.0, 2 * std::sqrt(2.0), 3.0}) {
        for (double h1 : {0.0, 7.5, -3.0}) {
            QTest::addRow("eps %g h1 %g below", eps, h1) << eps << h1 << (1 - 1e-9) << true;
            QTest::addRow("eps %g h1 %g above", eps, h1) << eps << h1 << (1 + 1e-9) << false;
            QTest::addRow("eps %g h1 %g half", eps, h1) << eps << h1 << 0.5 << true;
            QTest::addRow("eps %g h1 %g double", eps, h1) << eps << h1 << 2.0 << false;
            QTest::addRow("eps %g h1 %g reversed below", eps, h1)
                << eps << h1 << -(1 - 1e-9) << true;
            QTest::addRow("eps %g h1 %g reversed above", eps, h1)
                << eps << h1 << -(1 + 1e-9) << false;
        }
    }
}

void TestNoiseFirst::twoBinRule() {
    QFETCH(double, epsilon);
    QFETCH(double, h1);
    QFETCH(double, factor);
    QFETCH(bool, merge);
    const double V = 2 / (epsilon * epsilon);  // variance of Laplace(1/ε)
    const double h2 = h1 + factor * 2 * std::sqrt(2.0) / epsilon;
    const std::vector<double> noisy{h1, h2};
    const std::vector<double> expected =
        merge ? std::vector<double>{0.5 * (h1 + h2), 0.5 * (h1 + h2)} : noisy;
    // Through the estimator dispatcher (2-bin fast path) ...
    const auto e = estimate({EstimatorKind::NoiseFirst, V}, noisy);
    DPX_VERIFY_OK(e);
    const double tol = 1e-12 * (std::abs(h1) + std::abs(h2));
    for (std::size_t i = 0; i < 2; ++i) {
        DPX_VERIFY_NEAR((*e)[i], expected[i], tol);
    }
    // ... and through both general algorithms.
    for (const auto& r : {noiseFirst(noisy, V), noiseFirstAllK(noisy, V)}) {
        DPX_VERIFY_OK(r);
        QCOMPARE(r->buckets, merge ? std::size_t(1) : std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) {
            DPX_VERIFY_NEAR(r->estimate[i], expected[i], tol);
        }
    }
}

void TestNoiseFirst::twoBinTie() {
    // Exactly on the boundary (representable): V = 1, |d| = 2 → d²/2 = 2 = 2V. Seed 000 uses "≤",
    // so the histogram is merged (ties go to the smallest k).
    const std::vector<double> noisy{3, 5};
    const auto e = estimate({EstimatorKind::NoiseFirst, 1.0}, noisy);
    DPX_VERIFY_OK(e);
    QCOMPARE(*e, (std::vector<double>{4, 4}));
    for (const auto& r : {noiseFirst(noisy, 1.0), noiseFirstAllK(noisy, 1.0)}) {
        DPX_VERIFY_OK(r);
        QCOMPARE(r->buckets, std::size_t(1));
        QCOMPARE(r->estimate, (std::vector<double>{4, 4}));
    }
}

void TestNoiseFirst::bruteForceRandom_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("V");
    QTest::addColumn<uint>("seed");
    for (int n : {1, 2, 3, 4, 6, 9, 12}) {
        for (double V : {0.02, 2.0, 200.0}) {
            QTest::addRow("n=%d V=%g", n, V) << n << V << uint(7 * n + int(V * 100));
        }
    }
}

void TestNoiseFirst::bruteForceRandom() {
    QFETCH(int, n);
    QFETCH(double, V);
    QFETCH(uint, seed);
    std::mt19937_64 rng(seed);
    // Piecewise-constant truth (a few levels) plus Laplace-like noise of variance V.
    std::uniform_int_distribution<int> level(0, 40);
    std::exponential_distribution<double> expo(1.0);
    std::bernoulli_distribution coin(0.5);
    std::bernoulli_distribution jump(0.3);
    int determined = 0;  // trials whose optimum is unique (bucket structure compared)
    for (int trial = 0; trial < 25; ++trial) {
        std::vector<double> x(static_cast<std::size_t>(n));
        double base = level(rng);
        for (double& v : x) {
            if (jump(rng)) {
                base = level(rng);
            }
            v = base + (coin(rng) ? 1 : -1) * expo(rng) * std::sqrt(V / 2);
        }
        const BruteForce bf = bruteForce(x);
        const Choice c = chooseK(bf.sseK, V);
        double scale = 1;
        for (double s : bf.sseK) {
            scale = std::max(scale, s);
        }
        const double tol = 1e-10 * (scale + double(n) * V);
        determined += c.gap > tol;

        const auto all = vOptimalErrorsAllK(x);
        DPX_VERIFY_OK(all);
        QCOMPARE(all->size(), std::size_t(n));
        for (std::size_t k = 0; k < std::size_t(n); ++k) {
            DPX_VERIFY_NEAR((*all)[k], bf.sseK[k], tol);
        }
        const auto fast = noiseFirst(x, V);
        const auto ref = noiseFirstAllK(x, V);
        DPX_VERIFY_OK(fast);
        DPX_VERIFY_OK(ref);
        for (const auto* r : {&*fast, &*ref}) {
            DPX_VERIFY_NEAR(r->criterion, c.criterion, tol);
            if (c.gap > tol) {  // unique optimum: the buckets are determined
                QCOMPARE(r->buckets, c.k);
                DPX_VERIFY_NEAR(r->sse, bf.sseK[c.k - 1], tol);
                // The optimal c.k-segmentation is unique unless two have equal SSE (measure zero
                // for continuous noise): compare bucket ends and values.
                QCOMPARE(r->bucketEnd, bf.endsK[c.k - 1]);
                const auto means = bucketMeans(x, bf.endsK[c.k - 1]);
                for (std::size_t i = 0; i < x.size(); ++i) {
                    DPX_VERIFY_NEAR(r->estimate[i], means[i], 1e-12 * (1 + std::abs(means[i])));
                }
            }
            QCOMPARE(r->bucketEnd.size(), r->buckets);
            QCOMPARE(r->bucketEnd.back(), std::size_t(n));
            // The reported criterion is consistent with the reported SSE and k.
            DPX_VERIFY_NEAR(r->criterion, r->sse - (double(n) - 2.0 * double(r->buckets)) * V, tol);
        }
        // The estimator dispatcher returns NoiseFirst's estimate.
        const auto e = estimate({EstimatorKind::NoiseFirst, V}, x);
        DPX_VERIFY_OK(e);
        if (c.gap > tol) {
            const auto means = bucketMeans(x, bf.endsK[c.k - 1]);
            for (std::size_t i = 0; i < x.size(); ++i) {
                DPX_VERIFY_NEAR((*e)[i], means[i], 1e-12 * (1 + std::abs(means[i])));
            }
        }
    }
    QVERIFY2(determined >= 20, QByteArray::number(determined).constData());
}

void TestNoiseFirst::sseNonIncreasing() {
    std::mt19937_64 rng(2024);
    std::normal_distribution<double> g(50, 30);
    for (std::size_t n : {5u, 40u, 150u}) {
        std::vector<double> x(n);
        for (double& v : x) {
            v = g(rng);
        }
        const auto sse = vOptimalErrorsAllK(x);
        DPX_VERIFY_OK(sse);
        QCOMPARE(sse->size(), n);
        for (std::size_t k = 1; k < n; ++k) {
            QVERIFY2((*sse)[k] <= (*sse)[k - 1] * (1 + 1e-12) + 1e-9,
                     QByteArray::number(qulonglong(k)).constData());
        }
        DPX_VERIFY_NEAR(sse->back(), 0.0, 1e-9);  // n buckets reproduce the data
        DPX_VERIFY_NEAR(sse->front(), segmentSse(x, 0, n), 1e-9 * sse->front());
    }
}

void TestNoiseFirst::largeCounts_data() {
    QTest::addColumn<double>("offset");
    QTest::addColumn<double>("spread");
    QTest::addColumn<uint>("seed");
    QTest::newRow("1e6 ± unit noise") << 1e6 << 1.0 << 5u;
    QTest::newRow("1e9 ± unit noise") << 1e9 << 1.0 << 6u;
    QTest::newRow("1e6 two levels") << 1e6 << -1.0 << 7u;  // spread < 0: half the bins at 0
    QTest::newRow("1e8 two levels") << 1e8 << -1.0 << 8u;
}

void TestNoiseFirst::largeCounts() {
    QFETCH(double, offset);
    QFETCH(double, spread);
    QFETCH(uint, seed);
    // Large counts must not lose the O(1) structure to cancellation: SSE_k is compared with the
    // brute force (long double, two-pass per segment) to 1e-6 absolute, far below V = 2 and far
    // above what double arithmetic on values of 1e6 needs (ulp(1e6) ≈ 1.2e-10).
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0, 1);
    const std::size_t n = 10;
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double level = spread < 0 ? (i < n / 2 ? offset : 0.0) : offset;
        x[i] = level + std::round(g(rng) * 1e3) / 1e3 + (i % 3 == 0 ? 3.0 : 0.0);
    }
    const BruteForce bf = bruteForce(x);
    const auto sse = vOptimalErrorsAllK(x);
    DPX_VERIFY_OK(sse);
    for (std::size_t k = 1; k < n; ++k) {  // k = 1 (two levels) is huge; compare relatively there
        DPX_VERIFY_NEAR((*sse)[k], bf.sseK[k], std::max(1e-6, 1e-12 * bf.sseK[k]));
    }
    DPX_VERIFY_REL((*sse)[0], bf.sseK[0], 1e-12);
    const double V = 2.0;
    const Choice c = chooseK(bf.sseK, V);
    QVERIFY(c.gap > 1e-3);
    for (const auto& r : {noiseFirst(x, V), noiseFirstAllK(x, V)}) {
        DPX_VERIFY_OK(r);
        QCOMPARE(r->buckets, c.k);
        QCOMPARE(r->bucketEnd, bf.endsK[c.k - 1]);
        DPX_VERIFY_NEAR(r->sse, bf.sseK[c.k - 1], 1e-6);
    }
}

void TestNoiseFirst::handExample() {
    // Hand computation: [1, 2, 30, 31], V = 2: SSE_k = 842, 1, 0.5, 0 for k = 1..4; criteria
    // SSE_k − (4 − 2k)·2 = 838, 1, 4.5, 8 → k* = 2, buckets [1, 2] and [30, 31].
    const std::vector<double> x{1, 2, 30, 31};
    const auto sse = vOptimalErrorsAllK(x);
    DPX_VERIFY_OK(sse);
    // SSE_1: mean 16, deviations −15, −14, 14, 15 → 225 + 196 + 196 + 225 = 842.
    DPX_VERIFY_NEAR((*sse)[0], 842.0, 1e-9);
    DPX_VERIFY_NEAR((*sse)[1], 1.0, 1e-12);
    DPX_VERIFY_NEAR((*sse)[2], 0.5, 1e-12);
    DPX_VERIFY_NEAR((*sse)[3], 0.0, 1e-12);
    for (const auto& r : {noiseFirst(x, 2.0), noiseFirstAllK(x, 2.0)}) {
        DPX_VERIFY_OK(r);
        QCOMPARE(r->buckets, std::size_t(2));
        QCOMPARE(r->bucketEnd, (std::vector<std::size_t>{2, 4}));
        QCOMPARE(r->estimate, (std::vector<double>{1.5, 1.5, 30.5, 30.5}));
        DPX_VERIFY_NEAR(r->sse, 1.0, 1e-12);
        DPX_VERIFY_NEAR(r->criterion, 1.0, 1e-12);
    }
}

void TestNoiseFirst::singleBin() {
    const std::vector<double> x{-4.5};
    for (const auto& r : {noiseFirst(x, 3.0), noiseFirstAllK(x, 3.0)}) {
        DPX_VERIFY_OK(r);
        QCOMPARE(r->buckets, std::size_t(1));
        QCOMPARE(r->estimate, x);  // NoiseFirst does not clamp
        QCOMPARE(r->sse, 0.0);
        DPX_VERIFY_NEAR(r->criterion, -3.0 * (1 - 2), 1e-15);  // 0 − (1 − 2)·3 = 3
    }
}

void TestNoiseFirst::stopToken() {
    std::stop_source src;
    src.request_stop();
    const std::vector<double> x(50, 1.0);
    QVERIFY(!vOptimalErrorsAllK(x, src.get_token()).hasValue());
    QVERIFY(!noiseFirstAllK(x, 1.0, src.get_token()).hasValue());
    QVERIFY(vOptimalErrorsAllK(x, std::stop_token{}).hasValue());
}

QTEST_APPLESS_MAIN(TestNoiseFirst)
#include "tst_noisefirst.moc"
