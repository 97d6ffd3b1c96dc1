// DPCube (Xiao, Xiong, Fan, Goryczka & Li, TDP 2014; core/algorithms/dpcube.cpp): the budget
// split; the paper's defining behaviour (the kd-tree on the noisy cell histogram finds the true
// homogeneous regions of a piecewise-constant shape when the noise is small, in 1-D and 2-D); the
// consistency step's variance by Monte Carlo against its closed form; beating Identity (Laplace
// per bin, computed here) on a piecewise-constant shape at small ε; bad inputs.
#include <QTest>

#include <cmath>

#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"
#include "tests/core/algorithms/algorithm_test_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::runAlgorithm;

namespace {

// 1-D pieces: (length, value per bin).
std::vector<double> pieces(const std::vector<std::pair<std::size_t, double>>& p) {
    std::vector<double> x;
    for (const auto& [len, v] : p) {
        x.insert(x.end(), len, v);
    }
    return x;
}

}  // namespace

class TestDPCube : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void budgetSplitSumsToEpsilon();
    void findsTheTruePiecesIn1D();
    void findsTheTrueQuadrantsIn2D();
    void consistencyHalvesTheVarianceOfOneLeaf();
    void beatsIdentityOnAPiecewiseConstantShape();
    void badInputs();
};

void TestDPCube::budgetSplitSumsToEpsilon() {
    const std::vector<double> x = pieces({{100, 3}, {50, 0}, {106, 12}});
    const std::vector<double> x2(32 * 32, 2.0);
    for (double eps : {0.01, 1.0, 10.0}) {
        for (double alpha : {0.2, 0.5, 0.8}) {
            for (double gz : {1.0, 11.0}) {
                auto r = runAlgorithm(dpcubeAlgorithm(), {256}, x, eps, 1,
                                      {{"alpha", alpha}, {"gz", gz}});
                DPX_VERIFY_OK(r);
                QCOMPARE(r->spent.size(), std::size_t{2});
                DPX_VERIFY_NEAR(r->spent[0].epsilon, alpha * eps, 1e-12 * eps);
                DPX_VERIFY_NEAR(dpxtest::totalSpent(*r), eps, 1e-12 * eps);
                auto r2 = runAlgorithm(dpcubeAlgorithm(), {32, 32}, x2, eps, 2,
                                       {{"alpha", alpha}, {"gz", gz}});
                DPX_VERIFY_OK(r2);
                DPX_VERIFY_NEAR(dpxtest::totalSpent(*r2), eps, 1e-12 * eps);
            }
        }
    }
}

void TestDPCube::findsTheTruePiecesIn1D() {
    // Five constant pieces, ε = 10^5, gz = 1: every split of a piecewise-constant signal that
    // minimises the v-optimal cost lies on a jump, and a jump of height h lowers the cost by
    // ≥ h²/2 ≫ the price 1/ε₂, while the noise (~10^-5) inside a piece never pays it.
    const std::vector<double> x = pieces({{40, 5}, {24, 0}, {1, 80}, {50, 7}, {13, 2}});
    auto r = runAlgorithm(dpcubeAlgorithm(), {128}, x, 1e5, 3, {{"gz", 1}});
    DPX_VERIFY_OK(r);
    QVERIFY2(r->summary.find("5 partitions") != std::string::npos, r->summary.c_str());
    for (std::size_t i = 0; i < x.size(); ++i) {
        DPX_VERIFY_NEAR(r->estimate[i], x[i], 1e-3);
    }
    // gz = 8: the pieces are not block-aligned; the estimate is exact on block averages.
    auto b = runAlgorithm(dpcubeAlgorithm(), {128}, x, 1e5, 4, {{"gz", 8}});
    DPX_VERIFY_OK(b);
    double total = 0;
    for (double v : b->estimate) {
        total += v;
    }
    DPX_VERIFY_NEAR(total, 40 * 5 + 80 + 50 * 7 + 13 * 2, 1e-2);
}

void TestDPCube::findsTheTrueQuadrantsIn2D() {
    // 16 × 16, four 8 × 8 quadrants of different densities: the first split (the longer side,
    // ties across) cuts at column 8, each half at row 8 → 4 leaves, estimate = data.
    std::vector<double> x(256);
    for (std::size_t r = 0; r < 16; ++r) {
        for (std::size_t c = 0; c < 16; ++c) {
            x[r * 16 + c] = (r < 8 ? 1.0 : 4.0) + (c < 8 ? 0.0 : 10.0);
        }
    }
    auto r = runAlgorithm(dpcubeAlgorithm(), {16, 16}, x, 1e5, 5, {{"gz", 2}});
    DPX_VERIFY_OK(r);
    QVERIFY2(r->summary.find("4 partitions") != std::string::npos, r->summary.c_str());
    for (std::size_t i = 0; i < x.size(); ++i) {
        DPX_VERIFY_NEAR(r->estimate[i], x[i], 1e-3);
    }
}

void TestDPCube::consistencyHalvesTheVarianceOfOneLeaf() {
    // gz ≥ n: one cell, hence one leaf. Its total is the inverse-variance average of the cell's
    // count (Laplace(1/(αε))) and the leaf's count (Laplace(1/((1 − α)ε))): at α = ½, ε = 1 both
    // have variance 8, the average 4 (DPBench's z alone: 8). Mean unbiased.
    const std::vector<double> x = pieces({{30, 2}, {34, 9}});
    const double truth = 30 * 2 + 34 * 9;
    const int trials = 40000;
    double sum = 0, sumSq = 0;
    for (int t = 0; t < trials; ++t) {
        auto r =
            runAlgorithm(dpcubeAlgorithm(), {64}, x, 1.0, 100 + std::uint64_t(t), {{"gz", 64}});
        DPX_VERIFY_OK(r);
        double total = 0;
        for (double v : r->estimate) {
            total += v;
        }
        sum += total - truth;
        sumSq += (total - truth) * (total - truth);
    }
    DPX_VERIFY_NEAR(sum / trials, 0.0, 5 * std::sqrt(4.0 / trials));
    DPX_VERIFY_REL(sumSq / trials, 4.0, 0.04);
}

void TestDPCube::beatsIdentityOnAPiecewiseConstantShape() {
    // The paper's case for partitioning: on data that is uniform over large regions, one noisy
    // count per region beats one per bin. n = 1024, six flat pieces (10^4 records), ε = 0.1,
    // 1 000 random ranges, 30 trials: DPCube's RMSE < ½ of Identity's.
    const std::vector<double> x =
        pieces({{200, 10}, {100, 0}, {300, 2}, {24, 100}, {200, 0}, {200, 13}});
    const auto boxes = dpxtest::randomBoxes(1, 1024, 1000, 12);
    const double eps = 0.1;
    double cube = 0, identity = 0;
    const int trials = 30;
    for (int t = 0; t < trials; ++t) {
        auto r = runAlgorithm(dpcubeAlgorithm(), {1024}, x, eps, 300 + std::uint64_t(t));
        DPX_VERIFY_OK(r);
        cube += dpxtest::boxRmse(1, 1024, boxes, x, r->estimate);
        SimulationRng rng(400 + std::uint64_t(t), 0);
        std::vector<double> id = x;
        for (double& v : id) {
            v += sampleNoise(NoiseDistribution::laplace(1 / eps), rng);
        }
        identity += dpxtest::boxRmse(1, 1024, boxes, x, id);
    }
    qInfo("DPCube RMSE %.1f, Identity RMSE %.1f", cube / trials, identity / trials);
    QVERIFY2(cube < 0.5 * identity, QByteArray::number(cube / identity).constData());
}

void TestDPCube::badInputs() {
    const std::vector<double> x(8, 1.0);
    DPX_VERIFY_ERROR(runAlgorithm(dpcubeAlgorithm(), {2, 2, 2}, x, 1, 1), "1-D or 2-D");
    DPX_VERIFY_ERROR(runAlgorithm(dpcubeAlgorithm(), {8}, x, 1, 1, {{"gz", 0}}), "gz");
    DPX_VERIFY_ERROR(runAlgorithm(dpcubeAlgorithm(), {8}, x, 1, 1, {{"gz", 2.5}}), "whole");
    DPX_VERIFY_ERROR(runAlgorithm(dpcubeAlgorithm(), {8}, x, 1, 1, {{"alpha", 0}}), "alpha");
    DPX_VERIFY_ERROR(runAlgorithm(dpcubeAlgorithm(), {8}, x, -1, 1), "epsilon|ε");
    std::vector<double> bad = x;
    bad[2] = -1;
    DPX_VERIFY_ERROR(runAlgorithm(dpcubeAlgorithm(), {8}, bad, 1, 1), "non-negative");
    QVERIFY(findAlgorithm("dpcube") == &dpcubeAlgorithm());
    QVERIFY(!dpcubeAlgorithm().info().totalIsPublic);
}

QTEST_APPLESS_MAIN(TestDPCube)
#include "tst_dpcube.moc"
