// Moments (core/base/moments.h): one-block moments and Chan et al.'s pairwise merge against a
// two-pass reference (mean, then Σ (x − mean)²) computed in long double.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/moments.h"
#include "core/base/simulation_rng.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

struct Reference {
    double mean = 0;
    double m2 = 0;
};

Reference twoPass(const std::vector<double>& v, std::size_t begin, std::size_t end) {
    long double s = 0;
    for (std::size_t i = begin; i < end; ++i) {
        s += v[i];
    }
    const long double mean = s / static_cast<long double>(end - begin);
    long double ss = 0;
    for (std::size_t i = begin; i < end; ++i) {
        ss += (v[i] - mean) * (v[i] - mean);
    }
    return {static_cast<double>(mean), static_cast<double>(ss)};
}

// Values around a large offset: a naive Σx² − (Σx)²/n would lose every digit of the variance.
std::vector<double> sample(std::size_t n) {
    SimulationRng rng(5, 0);
    std::vector<double> v(n);
    for (double& x : v) {
        x = 1e8 + 3 * rng.normal();
    }
    return v;
}

}  // namespace

class TestMoments : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void oneBlockAgreesWithTwoPass();
    void mergedBlocksAgreeWithTwoPass();
    void mergeWithEmptyIsIdentity();
    void standardError();
    void meanAndStandardErrorOfASample();
};

void TestMoments::oneBlockAgreesWithTwoPass() {
    const auto v = sample(10'000);
    const Moments m = Moments::of(v.data(), v.size());
    const Reference r = twoPass(v, 0, v.size());
    QCOMPARE(m.count, 10'000.0);
    DPX_VERIFY_NEAR(m.mean, r.mean, 1e-12 * std::abs(r.mean));
    DPX_VERIFY_NEAR(m.m2, r.m2, 1e-6 * r.m2);
    QCOMPARE(Moments::of(v.data(), 0).count, 0.0);
}

// Blocks of every size from 1 to 1000 trials (the last one shorter), merged in order.
void TestMoments::mergedBlocksAgreeWithTwoPass() {
    const auto v = sample(5'003);
    const Reference r = twoPass(v, 0, v.size());
    for (const std::size_t block : {std::size_t{1}, std::size_t{7}, std::size_t{128},
                                    std::size_t{1000}, std::size_t{5'003}}) {
        Moments all;
        for (std::size_t b = 0; b < v.size(); b += block) {
            all.merge(Moments::of(v.data() + b, std::min(block, v.size() - b)));
        }
        QCOMPARE(all.count, 5'003.0);
        DPX_VERIFY_NEAR(all.mean, r.mean, 1e-12 * std::abs(r.mean));
        DPX_VERIFY_NEAR(all.m2, r.m2, 1e-6 * r.m2);
    }
    // Two unequal halves with very different means (merge's cross term d²·n1·n2/n).
    const std::vector<double> w{1, 2, 3, 100, 101, 102, 103};
    Moments a = Moments::of(w.data(), 3);
    a.merge(Moments::of(w.data() + 3, 4));
    const Reference rw = twoPass(w, 0, w.size());
    DPX_VERIFY_NEAR(a.mean, rw.mean, 1e-13);
    DPX_VERIFY_NEAR(a.m2, rw.m2, 1e-10);
}

void TestMoments::mergeWithEmptyIsIdentity() {
    const std::vector<double> w{4, 8, 15};
    Moments a = Moments::of(w.data(), w.size());
    const Moments before = a;
    a.merge(Moments{});
    QCOMPARE(a.count, before.count);
    QCOMPARE(a.mean, before.mean);
    QCOMPARE(a.m2, before.m2);
    Moments empty;
    empty.merge(before);
    QCOMPARE(empty.count, before.count);
    QCOMPARE(empty.mean, before.mean);
    QCOMPARE(empty.m2, before.m2);
}

void TestMoments::standardError() {
    // {1, 2, 3, 4}: sample variance 5/3, standard error √(5/3 / 4).
    const std::vector<double> w{1, 2, 3, 4};
    DPX_VERIFY_NEAR(Moments::of(w.data(), 4).standardError(), std::sqrt(5.0 / 12.0), 1e-15);
    QVERIFY(std::isnan(Moments::of(w.data(), 1).standardError()));
    QVERIFY(std::isnan(Moments{}.standardError()));
}

void TestMoments::meanAndStandardErrorOfASample() {
    const auto [mean, se] = meanAndStandardError({1, 2, 3, 4});
    DPX_VERIFY_NEAR(mean, 2.5, 1e-15);
    DPX_VERIFY_NEAR(se, std::sqrt(5.0 / 12.0), 1e-15);
    const auto v = sample(2'000);
    const Reference r = twoPass(v, 0, v.size());
    const auto [m, s] = meanAndStandardError(v);
    DPX_VERIFY_NEAR(m, r.mean, 1e-12 * std::abs(r.mean));
    DPX_VERIFY_NEAR(s, std::sqrt(r.m2 / 1999.0 / 2000.0), 1e-9);
    const auto one = meanAndStandardError({7});
    QCOMPARE(one.first, 7.0);
    QVERIFY(std::isnan(one.second));
    QVERIFY(std::isnan(meanAndStandardError({}).first));
}

QTEST_GUILESS_MAIN(TestMoments)
#include "tst_moments.moc"
