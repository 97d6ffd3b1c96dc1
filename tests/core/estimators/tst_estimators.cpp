// Clamp and resize estimators (seed 000 §2.1.1, §2.1.2) and the estimate() dispatcher.
// Resize is checked against an independent Euclidean projection onto {x ≥ 0, Σx = s}: bisection on
// the threshold τ of x_i = max(0, v_i − τ) (the KKT form of the projection), and against the KKT
// conditions themselves.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/estimators/clamp_estimator.h"
#include "core/estimators/estimator.h"
#include "core/estimators/resize_estimator.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

// Projection by bisection: g(τ) = Σ max(0, v_i − τ) is continuous and decreasing from +∞ to 0,
// so for s > 0 the root lies in [min(v) − s, max(v)].
std::vector<double> projectByBisection(const std::vector<double>& v) {
    const double s = std::accumulate(v.begin(), v.end(), 0.0);
    if (!(s > 0)) {
        return std::vector<double>(v.size(), 0.0);
    }
    auto g = [&](double tau) {
        double t = 0;
        for (double x : v) {
            t += std::max(0.0, x - tau);
        }
        return t;
    };
    double lo = *std::min_element(v.begin(), v.end()) - s;
    double hi = *std::max_element(v.begin(), v.end());
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi) {
            break;
        }
        (g(mid) > s ? lo : hi) = mid;
    }
    const double tau = 0.5 * (lo + hi);
    std::vector<double> x(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        x[i] = std::max(0.0, v[i] - tau);
    }
    return x;
}

}  // namespace

class TestEstimators : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void clamp_data();
    void clamp();
    void resize_data();
    void resize();
    void resizeRandom_data();
    void resizeRandom();
    void resizeInPlaceReusesScratch();
    void dispatcher();
};

void TestEstimators::clamp_data() {
    QTest::addColumn<QList<double>>("noisy");
    QTest::addColumn<QList<double>>("expected");
    QTest::newRow("seed 000 §2.1.1")
        << QList<double>{5, 5, -1, 12, -8} << QList<double>{5, 5, 0, 12, 0};
    QTest::newRow("all negative") << QList<double>{-0.5, -3} << QList<double>{0, 0};
    QTest::newRow("non-negative unchanged")
        << QList<double>{0, 2.25, 1e9} << QList<double>{0, 2.25, 1e9};
    QTest::newRow("single bin") << QList<double>{-7} << QList<double>{0};
}

void TestEstimators::clamp() {
    QFETCH(QList<double>, noisy);
    QFETCH(QList<double>, expected);
    const auto in = dpxtest::toVector(noisy);
    const auto want = dpxtest::toVector(expected);
    QCOMPARE(clampEstimate(in), want);  // exact: max(0, x) involves no rounding
    auto inPlace = in;
    clampInPlace(inPlace);
    QCOMPARE(inPlace, want);
    const auto viaDispatcher = estimate({EstimatorKind::Clamp, 0}, in);
    DPX_VERIFY_OK(viaDispatcher);
    QCOMPARE(*viaDispatcher, want);
}

void TestEstimators::resize_data() {
    QTest::addColumn<QList<double>>("noisy");
    QTest::addColumn<QList<double>>("expected");
    // Hand-computed projections (τ in parentheses).
    QTest::newRow("seed 000 §2.1.2 (τ = 3)")
        << QList<double>{5, 5, -1, 12, -8} << QList<double>{2, 2, 0, 9, 0};
    QTest::newRow("inside the simplex (τ = 0)") << QList<double>{1, 2, 3} << QList<double>{1, 2, 3};
    QTest::newRow("two bins, one negative (τ = 1)") << QList<double>{3, -1} << QList<double>{2, 0};
    QTest::newRow("two bins inside") << QList<double>{1, 2} << QList<double>{1, 2};
    QTest::newRow("two bins, total 0") << QList<double>{4, -4} << QList<double>{0, 0};
    QTest::newRow("negative total") << QList<double>{1, -2, 0.5} << QList<double>{0, 0, 0};
    QTest::newRow("all zero") << QList<double>{0, 0, 0} << QList<double>{0, 0, 0};
    QTest::newRow("single positive") << QList<double>{5} << QList<double>{5};
    QTest::newRow("single negative") << QList<double>{-5} << QList<double>{0};
    // [10, 4, −6]: s = 8; τ = 3 → [7, 1, 0] (sum 8).
    QTest::newRow("three bins (τ = 3)") << QList<double>{10, 4, -6} << QList<double>{7, 1, 0};
    // [6, 1, −1, −2]: s = 4; τ = 2 → [4, 0, 0, 0] (1 − 2 < 0).
    QTest::newRow("one survivor (τ = 2)")
        << QList<double>{6, 1, -1, -2} << QList<double>{4, 0, 0, 0};
}

void TestEstimators::resize() {
    QFETCH(QList<double>, noisy);
    QFETCH(QList<double>, expected);
    const auto in = dpxtest::toVector(noisy);
    const auto want = dpxtest::toVector(expected);
    const auto got = resizeEstimate(in);
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        DPX_VERIFY_NEAR(got[i], want[i], 1e-12);
    }
    const auto viaDispatcher = estimate({EstimatorKind::Resize, 0}, in);
    DPX_VERIFY_OK(viaDispatcher);
    for (std::size_t i = 0; i < want.size(); ++i) {
        DPX_VERIFY_NEAR((*viaDispatcher)[i], want[i], 1e-12);
    }
}

void TestEstimators::resizeRandom_data() {
    QTest::addColumn<int>("bins");
    QTest::addColumn<double>("offset");  // mean of the true counts
    QTest::addColumn<double>("noise");   // scale of the noise
    QTest::addColumn<uint>("seed");
    for (int n : {1, 2, 3, 5, 20, 200}) {
        QTest::addRow("n=%d low counts", n) << n << 1.0 << 10.0 << uint(11 + n);
        QTest::addRow("n=%d mixed", n) << n << 20.0 << 15.0 << uint(101 + n);
        QTest::addRow("n=%d large counts", n) << n << 1e6 << 3e5 << uint(1001 + n);
    }
}

void TestEstimators::resizeRandom() {
    QFETCH(int, bins);
    QFETCH(double, offset);
    QFETCH(double, noise);
    QFETCH(uint, seed);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> gauss(offset, noise);
    std::vector<double> ws;
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<double> v(static_cast<std::size_t>(bins));
        for (double& x : v) {
            x = gauss(rng);
        }
        const double s = std::accumulate(v.begin(), v.end(), 0.0);
        double scale = 0;
        for (double x : v) {
            scale += std::abs(x);
        }
        const double tol = 1e-12 * scale + 1e-300;
        const auto x = resizeEstimate(v);
        QCOMPARE(x.size(), v.size());
        // Reference projection (bisection), independent of the sort-based algorithm.
        const auto ref = projectByBisection(v);
        for (std::size_t i = 0; i < x.size(); ++i) {
            QVERIFY2(x[i] >= 0, "negative output");
            DPX_VERIFY_NEAR(x[i], ref[i], 1e-10 * scale);
        }
        const double total = std::accumulate(x.begin(), x.end(), 0.0);
        if (!(s > 0)) {
            QCOMPARE(total, 0.0);
            continue;
        }
        DPX_VERIFY_NEAR(total, s, tol);  // total preserved
        // KKT of min ||x − v||² s.t. x ≥ 0, Σx = s: one τ with x_i = v_i − τ where x_i > 0 and
        // v_i ≤ τ where x_i = 0.
        double tau = std::numeric_limits<double>::quiet_NaN();
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (x[i] > 0) {
                tau = v[i] - x[i];
                break;
            }
        }
        QVERIFY(std::isfinite(tau));
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (x[i] > 0) {
                DPX_VERIFY_NEAR(v[i] - x[i], tau, tol);
            } else {
                QVERIFY2(v[i] <= tau + tol, dpxtest::join(v).constData());
            }
        }
        // In-place variant with a reused scratch buffer gives the same result.
        auto y = v;
        resizeInPlace(y, ws);
        QCOMPARE(y, x);
    }
}

void TestEstimators::resizeInPlaceReusesScratch() {
    std::vector<double> scratch(1000, 42.0);  // stale content must not matter
    std::vector<double> v{5, 5, -1, 12, -8};
    resizeInPlace(v, scratch);
    for (std::size_t i = 0; i < v.size(); ++i) {
        DPX_VERIFY_NEAR(v[i], (std::vector<double>{2, 2, 0, 9, 0})[i], 1e-12);
    }
}

void TestEstimators::dispatcher() {
    const std::vector<double> noisy{5, 5, -1, 12, -8};
    const auto id = estimate({EstimatorKind::Identity, 0}, noisy);
    DPX_VERIFY_OK(id);
    QCOMPARE(*id, noisy);
    // estimateInPlace agrees with estimate for every kind (NoiseFirst with V = 2, Laplace ε = 1).
    EstimatorWorkspace ws;
    for (auto k : {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize,
                   EstimatorKind::NoiseFirst}) {
        const EstimatorSpec spec{k, 2.0};
        const auto e = estimate(spec, noisy);
        DPX_VERIFY_OK(e);
        auto v = noisy;
        estimateInPlace(spec, v, ws);
        QCOMPARE(v, *e);
    }
    // Aliases accepted by the name parser.
    QCOMPARE(*estimatorFromName("boundary-inflated"), EstimatorKind::Clamp);
    QCOMPARE(*estimatorFromName("resized"), EstimatorKind::Resize);
}

QTEST_APPLESS_MAIN(TestEstimators)
#include "tst_estimators.moc"
