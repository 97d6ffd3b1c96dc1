// Histogram model and L1/L2 sensitivity. Reference sensitivities come from a brute-force search
// over every possible contribution of one record (independent of the closed forms in histogram.h).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/histogram/histogram.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

struct Brute {
    double l1 = 0;
    double l2 = 0;
};

// All contributions of one record: vectors in {0..c}^bins with at most m non-zero entries.
std::vector<std::vector<int>> contributions(int bins, int m, int c) {
    std::vector<std::vector<int>> out;
    std::vector<int> v(static_cast<std::size_t>(bins), 0);
    std::function<void(int)> rec = [&](int i) {
        if (i == bins) {
            if (std::count_if(v.begin(), v.end(), [](int x) { return x != 0; }) <= m) {
                out.push_back(v);
            }
            return;
        }
        for (int x = 0; x <= c; ++x) {
            v[static_cast<std::size_t>(i)] = x;
            rec(i + 1);
        }
    };
    rec(0);
    return out;
}

// Add/remove: h(D') − h(D) is one record's contribution. Replace: the difference of two
// contributions (one record removed, another added).
Brute bruteSensitivity(int bins, Neighbouring rel, int m, int c) {
    const auto all = contributions(bins, m, c);
    Brute b;
    auto update = [&](const std::vector<int>& d) {
        double s1 = 0;
        double s2 = 0;
        for (int x : d) {
            s1 += std::abs(x);
            s2 += double(x) * x;
        }
        b.l1 = std::max(b.l1, s1);
        b.l2 = std::max(b.l2, std::sqrt(s2));
    };
    if (rel == Neighbouring::AddRemove) {
        for (const auto& v : all) {
            update(v);
        }
    } else {
        std::vector<int> d(static_cast<std::size_t>(bins));
        for (const auto& v : all) {
            for (const auto& w : all) {
                for (std::size_t i = 0; i < d.size(); ++i) {
                    d[i] = v[i] - w[i];
                }
                update(d);
            }
        }
    }
    return b;
}

}  // namespace

class TestHistogram : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sensitivityBruteForce_data();
    void sensitivityBruteForce();
    void sensitivityLarge_data();
    void sensitivityLarge();
    void sensitivityStandard();
    void positions();
    void accessors();
};

void TestHistogram::sensitivityBruteForce_data() {
    QTest::addColumn<bool>("replace");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("c");
    QTest::addColumn<int>("bins");
    for (bool replace : {false, true}) {
        const char* r = replace ? "replace" : "add-remove";
        // (m, c, bins): includes bins < 2m (replace saturates at bins) and m > bins.
        const int cases[][3] = {{1, 1, 1}, {1, 1, 2}, {1, 1, 5}, {2, 1, 3}, {2, 1, 4}, {2, 2, 5},
                                {3, 2, 4}, {3, 1, 5}, {4, 3, 2}, {1, 3, 3}, {2, 3, 3}};
        for (const auto& cs : cases) {
            QTest::addRow("%s m=%d c=%d bins=%d", r, cs[0], cs[1], cs[2])
                << replace << cs[0] << cs[1] << cs[2];
        }
    }
}

void TestHistogram::sensitivityBruteForce() {
    QFETCH(bool, replace);
    QFETCH(int, m);
    QFETCH(int, c);
    QFETCH(int, bins);
    const auto rel = replace ? Neighbouring::Replace : Neighbouring::AddRemove;
    const auto s = histogramSensitivity(static_cast<std::size_t>(bins), rel, {m, c});
    DPX_VERIFY_OK(s);
    const Brute ref = bruteSensitivity(bins, rel, m, c);  // exhaustive search, exact
    DPX_VERIFY_NEAR(s->l1, ref.l1, 1e-12);
    DPX_VERIFY_NEAR(s->l2, ref.l2, 1e-12);
    QVERIFY(s->integral);
}

void TestHistogram::sensitivityLarge_data() {
    QTest::addColumn<bool>("replace");
    QTest::addColumn<qint64>("m");
    QTest::addColumn<qint64>("c");
    QTest::addColumn<qint64>("bins");
    QTest::addColumn<double>("l1");
    QTest::addColumn<double>("l2");
    // Closed forms of the brief (too large for the brute force): add/remove Δ1 = c·min(m, bins),
    // Δ2 = c·√min(m, bins); replace Δ1 = c·min(2m, bins), Δ2 = c·√min(2m, bins).
    QTest::newRow("add-remove m=10 c=4 bins=1000")
        << false << qint64(10) << qint64(4) << qint64(1000) << 40.0 << 4 * std::sqrt(10.0);
    QTest::newRow("replace m=10 c=4 bins=1000")
        << true << qint64(10) << qint64(4) << qint64(1000) << 80.0 << 4 * std::sqrt(20.0);
    QTest::newRow("replace m=600 c=1 bins=1000 (bins < 2m)")
        << true << qint64(600) << qint64(1) << qint64(1000) << 1000.0 << std::sqrt(1000.0);
    QTest::newRow("add-remove m=5000 c=2 bins=1000 (m > bins)")
        << false << qint64(5000) << qint64(2) << qint64(1000) << 2000.0 << 2 * std::sqrt(1000.0);
    QTest::newRow("replace huge m") << true << std::numeric_limits<qint64>::max() << qint64(1)
                                    << qint64(7) << 7.0 << std::sqrt(7.0);
}

void TestHistogram::sensitivityLarge() {
    QFETCH(bool, replace);
    QFETCH(qint64, m);
    QFETCH(qint64, c);
    QFETCH(qint64, bins);
    QFETCH(double, l1);
    QFETCH(double, l2);
    const auto s =
        histogramSensitivity(static_cast<std::size_t>(bins),
                             replace ? Neighbouring::Replace : Neighbouring::AddRemove, {m, c});
    DPX_VERIFY_OK(s);
    DPX_VERIFY_REL(s->l1, l1, 1e-15);
    DPX_VERIFY_REL(s->l2, l2, 1e-15);
}

void TestHistogram::sensitivityStandard() {
    // Seed 000 Def. 3: add/remove, one record in one bin: Δ1 = Δ2 = 1.
    auto a = histogramSensitivity(10, Neighbouring::AddRemove, {});
    DPX_VERIFY_OK(a);
    QCOMPARE(a->l1, 1.0);
    QCOMPARE(a->l2, 1.0);
    // Seed 003 (replace-one neighbours): histogram L1 sensitivity 2, L2 √2.
    auto r = histogramSensitivity(10, Neighbouring::Replace, {});
    DPX_VERIFY_OK(r);
    QCOMPARE(r->l1, 2.0);
    DPX_VERIFY_REL(r->l2, std::sqrt(2.0), 1e-15);
    // One bin: replacing a record cannot change two bins.
    auto one = histogramSensitivity(1, Neighbouring::Replace, {});
    DPX_VERIFY_OK(one);
    QCOMPARE(one->l1, 1.0);
}

void TestHistogram::positions() {
    auto plain = Histogram::create({1, 2, 3, 4});
    DPX_VERIFY_OK(plain);
    QVERIFY(!plain->hasEdges());
    QCOMPARE(plain->positions(), (std::vector<double>{0, 1, 2, 3}));
    // Centres of [0,10), [10,15), [15,40): 5, 12.5, 27.5 (exact in binary).
    auto edged = Histogram::create({1, 2, 3}, {}, {0.0, 10.0, 15.0, 40.0});
    DPX_VERIFY_OK(edged);
    QVERIFY(edged->hasEdges());
    QCOMPARE(edged->positions(), (std::vector<double>{5, 12.5, 27.5}));
}

void TestHistogram::accessors() {
    auto h = Histogram::create({0, 16, 5}, {"x", "y", "z"});
    DPX_VERIFY_OK(h);
    QCOMPARE(h->total(), std::int64_t(21));
    QCOMPARE(h->countsAsDouble(), (std::vector<double>{0, 16, 5}));
    QCOMPARE(h->labels().at(1), std::string("y"));
    QCOMPARE(h->counts().at(2), std::int64_t(5));
    auto zero = Histogram::create({0, 0});  // all-zero true histograms are valid
    DPX_VERIFY_OK(zero);
    QCOMPARE(zero->total(), std::int64_t(0));
}

QTEST_APPLESS_MAIN(TestHistogram)
#include "tst_histogram.moc"
