// PHP (Ács, Castelluccia & Chen, ICDM 2012; core/algorithms/php.cpp): the prefix SAEs of its
// utility against brute force; the budget split; the defining behaviour (with little noise the
// bisection cuts every jump of a piecewise-constant histogram and the chosen partition
// reproduces it); beating Identity (Laplace per bin, computed here) on a step shape; bad inputs.
#include <QTest>

#include <cmath>

#include "core/algorithms/php.h"
#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"
#include "tests/core/algorithms/algorithm_test_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::runAlgorithm;

namespace {

std::vector<double> pieces(const std::vector<std::pair<std::size_t, double>>& p, double scale) {
    std::vector<double> x;
    for (const auto& [len, v] : p) {
        x.insert(x.end(), len, v * scale);
    }
    return x;
}

}  // namespace

class TestPhp : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void prefixSaeMatchesBruteForce();
    void budgetSplitSumsToEpsilon();
    void cutsEveryJumpWithLittleNoise();
    void beatsIdentityOnAStepShape();
    void badInputs();
};

void TestPhp::prefixSaeMatchesBruteForce() {
    SimulationRng rng(3, 0);
    for (std::size_t m : {1, 2, 7, 50, 301}) {
        std::vector<double> v(m);
        for (double& x : v) {
            x = std::floor(rng.uniform() * 6);  // many ties
        }
        const std::vector<double> got = phpPrefixSae(v);
        QCOMPARE(got.size(), m + 1);
        for (std::size_t j = 0; j <= m; ++j) {
            double mean = 0;
            for (std::size_t i = 0; i < j; ++i) {
                mean += v[i];
            }
            mean = j == 0 ? 0 : mean / double(j);
            double sae = 0;
            for (std::size_t i = 0; i < j; ++i) {
                sae += std::abs(v[i] - mean);
            }
            DPX_VERIFY_NEAR(got[j], sae, 1e-9 * (1 + sae));
        }
    }
}

void TestPhp::budgetSplitSumsToEpsilon() {
    const std::vector<double> x = pieces({{100, 3}, {50, 0}, {106, 12}}, 1);
    for (double eps : {0.01, 1.0, 10.0}) {
        for (double rho : {0.1, 0.5, 0.9}) {
            auto r = runAlgorithm(phpAlgorithm(), {256}, x, eps, 1, {{"rho", rho}});
            DPX_VERIFY_OK(r);
            QCOMPARE(r->spent.size(), std::size_t{3});
            DPX_VERIFY_NEAR(r->spent[2].epsilon, (1 - rho) * eps, 1e-12 * eps);
            DPX_VERIFY_NEAR(dpxtest::totalSpent(*r), eps, 1e-12 * eps);
        }
        // One bin: nothing to partition, all of ε on the count.
        auto one = runAlgorithm(phpAlgorithm(), {1}, std::vector<double>{4}, eps, 2);
        DPX_VERIFY_OK(one);
        QCOMPARE(one->spent.size(), std::size_t{1});
        DPX_VERIFY_NEAR(dpxtest::totalSpent(*one), eps, 1e-12 * eps);
    }
}

void TestPhp::cutsEveryJumpWithLittleNoise() {
    // ε = 10^4: a cut at a jump lowers the SAE by ≥ tens of counts, which the exponential
    // mechanism weighs by e^{ε·ΔSAE/8}: every interval holding a jump is cut at one, and the
    // choice takes a partition with zero SAE. The estimate is the data up to ~10^-3 noise.
    const std::vector<double> x = pieces({{40, 5}, {24, 0}, {1, 80}, {50, 7}, {13, 2}}, 10);
    for (std::uint64_t seed : {3, 4, 5}) {
        auto r = runAlgorithm(phpAlgorithm(), {128}, x, 1e4, seed);
        DPX_VERIFY_OK(r);
        for (std::size_t i = 0; i < x.size(); ++i) {
            DPX_VERIFY_NEAR(r->estimate[i], x[i], 1e-2);
        }
    }
}

void TestPhp::beatsIdentityOnAStepShape() {
    // Ács et al. (2012, §VI): on histograms with large flat regions P-HP's few noisy counts beat
    // one per bin. n = 1 024, six steps (heights ×100, ~3·10^5 records), ε = 1, 1 000 random
    // ranges, 20 trials: PHP's RMSE < 0.7 × Identity's (measured 12 against 26).
    const std::vector<double> x =
        pieces({{200, 10}, {100, 0}, {300, 2}, {24, 100}, {200, 0}, {200, 13}}, 100);
    const auto boxes = dpxtest::randomBoxes(1, 1024, 1000, 12);
    double php = 0, identity = 0;
    const int trials = 20;
    for (int t = 0; t < trials; ++t) {
        auto r = runAlgorithm(phpAlgorithm(), {1024}, x, 1.0, 300 + std::uint64_t(t));
        DPX_VERIFY_OK(r);
        php += dpxtest::boxRmse(1, 1024, boxes, x, r->estimate);
        SimulationRng rng(400 + std::uint64_t(t), 0);
        std::vector<double> id = x;
        for (double& v : id) {
            v += sampleNoise(NoiseDistribution::laplace(1.0), rng);
        }
        identity += dpxtest::boxRmse(1, 1024, boxes, x, id);
    }
    qInfo("PHP RMSE %.1f, Identity RMSE %.1f", php / trials, identity / trials);
    QVERIFY2(php < 0.7 * identity, QByteArray::number(php / identity).constData());
}

void TestPhp::badInputs() {
    const std::vector<double> x(16, 1.0);
    DPX_VERIFY_ERROR(runAlgorithm(phpAlgorithm(), {4, 4}, x, 1, 1), "1-D");
    DPX_VERIFY_ERROR(runAlgorithm(phpAlgorithm(), {16}, x, 1, 1, {{"rho", 1.5}}), "rho");
    DPX_VERIFY_ERROR(runAlgorithm(phpAlgorithm(), {16}, x, 1, 1, {{"alpha", 0.5}}), "alpha");
    DPX_VERIFY_ERROR(runAlgorithm(phpAlgorithm(), {16}, x, std::nan(""), 1), "epsilon|ε");
    QVERIFY(findAlgorithm("php") == &phpAlgorithm());
}

QTEST_APPLESS_MAIN(TestPhp)
#include "tst_php.moc"
