// Sparse histograms, Monte Carlo (seed 003 §2.4.1, Figs. 2.3–2.4): the per-trial L1 errors average
// to the exact expected errors within 4 standard errors, the output does not depend on the thread
// count, and the seed's comparison (thresholded vs clamped Laplace, 15000 trials on the
// Edwards-like table, 1000 on the NLTCS-like one) comes out as the seed describes. Fixed seeds.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "core/histogram/example_datasets.h"
#include "core/mechanisms/sparse_histogram.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestSparseHistogramMc : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void meanMatchesExact_data();
    void meanMatchesExact();
    void threadIndependent();
    void seedComparison_data();
    void seedComparison();
    void cancelled();
    void progressIncreases();
};

void TestSparseHistogramMc::meanMatchesExact_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<double>("tau");  // < 0: the default
    QTest::addColumn<int>("trials");
    QTest::newRow("edwards eps 1 default tau") << "edwards-like" << 1.0 << -1.0 << 20000;
    QTest::newRow("edwards eps 0.3 tau 5") << "edwards-like" << 0.3 << 5.0 << 20000;
    QTest::newRow("edwards eps 4 tau 0") << "edwards-like" << 4.0 << 0.0 << 20000;
}

void TestSparseHistogramMc::meanMatchesExact() {
    QFETCH(QString, example);
    QFETCH(double, epsilon);
    QFETCH(double, tau);
    QFETCH(int, trials);
    auto h = makeExample(example.toStdString());
    DPX_VERIFY_OK(h);
    SparseHistogramParams p{epsilon, std::nullopt};
    if (tau >= 0) {
        p.threshold = tau;
    }
    MonteCarloOptions o;
    o.trials = static_cast<std::uint64_t>(trials);
    o.seed = 3003;
    auto r = sparseMonteCarlo(h->counts(), p, o);
    DPX_VERIFY_OK(r);
    QCOMPARE(r->trials, o.trials);
    QCOMPARE(r->thresholdedL1.size(), static_cast<std::size_t>(trials));
    QVERIFY(r->seThresholded > 0 && r->seClamped > 0);
    DPX_VERIFY_NEAR(r->meanThresholded, r->expected.thresholdedL1, 4 * r->seThresholded);
    DPX_VERIFY_NEAR(r->meanClamped, r->expected.clampedL1, 4 * r->seClamped);
}

void TestSparseHistogramMc::threadIndependent() {
    auto h = makeExample("edwards-like");
    DPX_VERIFY_OK(h);
    MonteCarloOptions o;
    o.trials = 1000;
    o.seed = 11;
    o.threads = 1;
    auto one = sparseMonteCarlo(h->counts(), {1.0, std::nullopt}, o);
    o.threads = 3;
    auto three = sparseMonteCarlo(h->counts(), {1.0, std::nullopt}, o);
    DPX_VERIFY_OK(one);
    DPX_VERIFY_OK(three);
    QVERIFY(one->thresholdedL1 == three->thresholdedL1);
    QVERIFY(one->clampedL1 == three->clampedL1);
    o.seed = 12;
    auto other = sparseMonteCarlo(h->counts(), {1.0, std::nullopt}, o);
    DPX_VERIFY_OK(other);
    QVERIFY(one->thresholdedL1 != other->thresholdedL1);
}

void TestSparseHistogramMc::seedComparison_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<int>("trials");
    QTest::newRow("Fig 2.3 edwards-like, 15000 trials") << "edwards-like" << 15000;
    QTest::newRow("Fig 2.4 nltcs-like, 1000 trials") << "nltcs-like" << 1000;
}

void TestSparseHistogramMc::seedComparison() {
    // ε = 1 (the seed does not print its ε). Thresholding lowers the mean L1 error on both; on
    // the NLTCS-like table by a large factor; both means agree with the exact values.
    QFETCH(QString, example);
    QFETCH(int, trials);
    auto h = makeExample(example.toStdString());
    DPX_VERIFY_OK(h);
    MonteCarloOptions o;
    o.trials = static_cast<std::uint64_t>(trials);
    o.seed = 2024;
    auto r = sparseMonteCarlo(h->counts(), {1.0, std::nullopt}, o);
    DPX_VERIFY_OK(r);
    DPX_VERIFY_NEAR(r->meanThresholded, r->expected.thresholdedL1, 4 * r->seThresholded);
    DPX_VERIFY_NEAR(r->meanClamped, r->expected.clampedL1, 4 * r->seClamped);
    QVERIFY(r->meanThresholded + 4 * r->seThresholded < r->meanClamped - 4 * r->seClamped);
    QVERIFY(r->meanThresholded < *r->expected.seedBound);
    // Thresholding keeps the output sparse: far fewer released cells than clamping.
    QVERIFY(r->meanReleasedThresholded < r->meanReleasedClamped);
    qInfo("%s: thresholded %.3f ± %.3f (exact %.3f), clamped %.3f ± %.3f (exact %.3f), bound %.1f",
          qPrintable(example), r->meanThresholded, r->seThresholded, r->expected.thresholdedL1,
          r->meanClamped, r->seClamped, r->expected.clampedL1, *r->expected.seedBound);
}

void TestSparseHistogramMc::cancelled() {
    auto h = makeExample("edwards-like");
    DPX_VERIFY_OK(h);
    std::stop_source src;
    src.request_stop();
    MonteCarloOptions o;
    o.trials = 1000;
    o.stop = src.get_token();
    auto r = sparseMonteCarlo(h->counts(), {1.0, std::nullopt}, o);
    DPX_VERIFY_OK(r);
    QVERIFY(r->cancelled);
    QCOMPARE(r->trials, std::uint64_t{0});
    QVERIFY(!r->warnings.empty());
}

void TestSparseHistogramMc::progressIncreases() {
    auto h = makeExample("edwards-like");
    DPX_VERIFY_OK(h);
    std::vector<double> seen;  // the callback runs under the core's lock
    MonteCarloOptions o;
    o.trials = 500;
    o.threads = 2;
    o.progress = [&](double f) { seen.push_back(f); };
    auto r = sparseMonteCarlo(h->counts(), {1.0, std::nullopt}, o);
    DPX_VERIFY_OK(r);
    QVERIFY(!seen.empty());
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), 1.0);
}

QTEST_APPLESS_MAIN(TestSparseHistogramMc)
#include "tst_sparse_histogram_mc.moc"
