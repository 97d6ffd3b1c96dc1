// UGrid and AGrid (Qardaji, Yang & Li, ICDE 2013; core/algorithms/ugrid.cpp, agrid.cpp): the
// grid-size formulas at the paper's dataset sizes, the discrete layout DPBench uses, the budget
// split, AGrid's constrained inference against a dense weighted least-squares solve (Eigen), the
// noise of both by Monte Carlo against closed forms, AGrid beating UGrid on a clustered shape at
// small ε (the paper's finding), and bad inputs.
#include <QTest>

#include <Eigen/Dense>
#include <cmath>

#include "core/algorithms/grids.h"
#include "core/algorithms/registry_list.h"
#include "core/base/random_variates.h"
#include "tests/core/algorithms/algorithm_test_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::runAlgorithm;

namespace {

// A clustered 64 × 64 shape: three tight Gaussian blobs holding 95% of the mass over a flat
// background, N records drawn from it (seeded multinomial).
std::vector<double> clustered(std::uint64_t n, std::uint64_t seed) {
    const std::size_t side = 64;
    std::vector<double> p(side * side, 0.05 / double(side * side));
    const double centres[3][3] = {{10, 12, 2.0}, {40, 45, 3.0}, {50, 15, 1.5}};
    double blob = 0;
    std::vector<double> q(side * side, 0.0);
    for (std::size_t r = 0; r < side; ++r) {
        for (std::size_t c = 0; c < side; ++c) {
            for (const auto& b : centres) {
                const double d2 = (double(r) - b[0]) * (double(r) - b[0]) +
                                  (double(c) - b[1]) * (double(c) - b[1]);
                q[r * side + c] += std::exp(-d2 / (2 * b[2] * b[2]));
            }
            blob += q[r * side + c];
        }
    }
    for (std::size_t i = 0; i < p.size(); ++i) {
        p[i] += 0.95 * q[i] / blob;
    }
    SimulationRng rng(seed, 3);
    std::vector<std::uint64_t> counts(p.size());
    multinomial(rng, n, p, counts);
    return std::vector<double>(counts.begin(), counts.end());
}

double blockSum(const std::vector<double>& v, std::size_t cols, std::size_t r0, std::size_t r1,
                std::size_t c0, std::size_t c1) {
    double s = 0;
    for (std::size_t r = r0; r < r1; ++r) {
        for (std::size_t c = c0; c < c1; ++c) {
            s += v[r * cols + c];
        }
    }
    return s;
}

}  // namespace

class TestGrids : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gridSizesAtThePapersDatasetSizes();
    void layoutOnADiscreteDomain();
    void budgetSplitSumsToEpsilon();
    void combineWithPartsIsWeightedLeastSquares();
    void largeEpsilonRecoversBlockAverages();
    void ugridBlockNoiseMatchesLaplace();
    void agridBlockVarianceMatchesLeastSquares();
    void agridBeatsUgridOnClusteredDataAtSmallEpsilon();
    void badInputs();
};

void TestGrids::gridSizesAtThePapersDatasetSizes() {
    // Guideline 1 (Qardaji, Yang & Li 2013, §IV): m = √(N·ε/c), c = 10. At the sizes of the
    // paper's datasets: ~1M points (checkin) at ε = 1 → √(10^5) ≈ 316; 9 000 points (storage)
    // at ε = 0.1 → √90 ≈ 9.5; ~1.6M points (road) at ε = 1 → 400.
    DPX_VERIFY_NEAR(ugridCellsPerSide(1e6, 1, 10), 316.2278, 1e-4);
    DPX_VERIFY_NEAR(ugridCellsPerSide(9000, 0.1, 10), 9.486833, 1e-6);
    DPX_VERIFY_NEAR(ugridCellsPerSide(1.6e6, 1, 10), 400, 1e-9);
    QCOMPARE(ugridCellsPerSide(0, 1, 10), 0.0);
    // AGrid's first level (§V): m1 = max(10, ⌈¼√(Nε/c)⌉): 1M at ε = 1 → ⌈79.06⌉ = 80; 1.6M
    // → exactly 100 (no rounding up of a whole number); small data → the floor of 10.
    QCOMPARE(agridFirstLevelCellsPerSide(1e6, 1, 10), std::size_t{80});
    QCOMPARE(agridFirstLevelCellsPerSide(1.6e6, 1, 10), std::size_t{100});
    QCOMPARE(agridFirstLevelCellsPerSide(9000, 0.1, 10), std::size_t{10});
    // Second level: m2 = ⌈√(N′(1 − α)ε/c2)⌉, c2 = 5: N′ = 1000, (1 − α)ε = 0.5 → 10;
    // N′ = 1001 → 11; N′ ≤ 0 → 1.
    QCOMPARE(agridSecondLevelCellsPerSide(1000, 0.5, 5), std::size_t{10});
    QCOMPARE(agridSecondLevelCellsPerSide(1001, 0.5, 5), std::size_t{11});
    QCOMPARE(agridSecondLevelCellsPerSide(-3, 0.5, 5), std::size_t{1});
    QCOMPARE(agridSecondLevelCellsPerSide(0.4, 0.5, 5), std::size_t{1});
}

void TestGrids::layoutOnADiscreteDomain() {
    // 256 × 256, N = 10^5, ε = 1: m = 100, blocks of ⌈2.56⌉ = 3 bins, ⌈256/3⌉ = 86 per side
    // (DPBench's rounding; the last block is one bin wide).
    GridLayout g = gridLayout(256, 256, 1e4);
    QCOMPARE(g.blockSide, std::size_t{3});
    QCOMPARE(g.blockRows, std::size_t{86});
    QCOMPARE(g.blockCols, std::size_t{86});
    g = gridLayout(256, 256, 4096);  // exactly 4 bins
    QCOMPARE(g.blockSide, std::size_t{4});
    QCOMPARE(g.blockRows, std::size_t{64});
    g = gridLayout(100, 50, 0);  // no data: one block
    QCOMPARE(g.blockSide, std::size_t{100});
    QCOMPARE(g.blockRows, std::size_t{1});
    QCOMPARE(g.blockCols, std::size_t{1});
    g = gridLayout(8, 8, 1e9);  // more cells than bins: one bin per block
    QCOMPARE(g.blockSide, std::size_t{1});
    QCOMPARE(g.blockRows, std::size_t{8});
    QCOMPARE(equalSplit(10, 3), (std::vector<std::size_t>{0, 4, 7, 10}));
    QCOMPARE(equalSplit(4, 9), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
    QCOMPARE(equalSplit(6, 2), (std::vector<std::size_t>{0, 3, 6}));
}

void TestGrids::budgetSplitSumsToEpsilon() {
    const std::vector<double> x = clustered(5000, 1);
    for (double eps : {0.01, 0.3, 1.0, 10.0}) {
        auto u = runAlgorithm(ugridAlgorithm(), {64, 64}, x, eps, 2);
        DPX_VERIFY_OK(u);
        DPX_VERIFY_NEAR(dpxtest::totalSpent(*u), eps, 1e-12 * eps);
        QCOMPARE(u->estimate.size(), x.size());
        for (double alpha : {0.1, 0.5, 0.9}) {
            auto a = runAlgorithm(agridAlgorithm(), {64, 64}, x, eps, 3, {{"alpha", alpha}});
            DPX_VERIFY_OK(a);
            QCOMPARE(a->spent.size(), std::size_t{2});
            DPX_VERIFY_NEAR(a->spent[0].epsilon, alpha * eps, 1e-12 * eps);
            DPX_VERIFY_NEAR(dpxtest::totalSpent(*a), eps, 1e-12 * eps);
        }
    }
}

void TestGrids::combineWithPartsIsWeightedLeastSquares() {
    // Reference: the weighted least-squares solution of A·u ≈ y with A = [1ᵀ; I_k], weights
    // 1/varV and 1/varU, solved densely by Eigen.
    SimulationRng rng(5, 0);
    for (std::size_t k : {1, 2, 5, 16}) {
        for (double ratio : {0.25, 1.0, 9.0}) {
            std::vector<double> u(k);
            for (double& v : u) {
                v = 100 * rng.uniform() - 20;
            }
            const double v = 40 * double(k) + 30 * (rng.uniform() - 0.5);
            const double varV = 2.0, varU = 2.0 * ratio;
            Eigen::MatrixXd a = Eigen::MatrixXd::Zero(Eigen::Index(k + 1), Eigen::Index(k));
            Eigen::VectorXd y(Eigen::Index(k + 1)), wts(Eigen::Index(k + 1));
            a.row(0).setOnes();
            y(0) = v;
            wts(0) = 1 / varV;
            for (std::size_t i = 0; i < k; ++i) {
                a(Eigen::Index(i + 1), Eigen::Index(i)) = 1;
                y(Eigen::Index(i + 1)) = u[i];
                wts(Eigen::Index(i + 1)) = 1 / varU;
            }
            const Eigen::MatrixXd atw = a.transpose() * wts.asDiagonal();
            const Eigen::VectorXd ref = (atw * a).ldlt().solve(atw * y);
            std::vector<double> got = u;
            const double combined = combineWithParts(v, varV, got, varU);
            DPX_VERIFY_NEAR(combined, ref.sum(), 1e-9 * (1 + std::abs(ref.sum())));
            for (std::size_t i = 0; i < k; ++i) {
                DPX_VERIFY_NEAR(got[i], ref(Eigen::Index(i)), 1e-9 * (1 + std::abs(ref(0))));
            }
        }
    }
}

void TestGrids::largeEpsilonRecoversBlockAverages() {
    // With negligible noise UGrid returns each block's average, AGrid the average over each
    // second-level piece; both preserve every first-level block total.
    const std::vector<double> x = clustered(20000, 4);
    auto u = runAlgorithm(ugridAlgorithm(), {64, 64}, x, 1e7, 6);
    DPX_VERIFY_OK(u);
    // N·ε/c = 2·10^10 ≫ cells: one bin per block, the estimate is the data.
    for (std::size_t i = 0; i < x.size(); ++i) {
        DPX_VERIFY_NEAR(u->estimate[i], x[i], 1e-4);
    }
    auto a = runAlgorithm(agridAlgorithm(), {64, 64}, x, 1e4, 8, {{"c", 1e6}, {"c2", 1e6}});
    DPX_VERIFY_OK(a);
    // c = c2 = 10^6 at ε = 10^4: m1 = max(10, ⌈¼√200⌉) = 10 → blocks of 7 bins; noise ~10^-4.
    for (std::size_t r0 = 0; r0 < 64; r0 += 7) {
        for (std::size_t c0 = 0; c0 < 64; c0 += 7) {
            const std::size_t r1 = std::min<std::size_t>(64, r0 + 7);
            const std::size_t c1 = std::min<std::size_t>(64, c0 + 7);
            DPX_VERIFY_NEAR(blockSum(a->estimate, 64, r0, r1, c0, c1),
                            blockSum(x, 64, r0, r1, c0, c1), 1e-3);
        }
    }
}

void TestGrids::ugridBlockNoiseMatchesLaplace() {
    // 8 × 8, N = 60, ε = 1, c = 10: m² = 6, blocks of ⌈√(64/6)⌉ = 4 bins (2 × 2 blocks). The
    // estimated total of each block = its count + Laplace(1/ε): mean 0, variance 2/ε², E|Z| = 1/ε.
    std::vector<double> x(64, 0.0);
    for (std::size_t i = 0; i < 60; ++i) {
        x[(i * 37) % 64] += 1;
    }
    const int trials = 40000;
    double sum = 0, sumSq = 0, sumAbs = 0;
    for (int t = 0; t < trials; ++t) {
        auto u = runAlgorithm(ugridAlgorithm(), {8, 8}, x, 1.0, 100 + std::uint64_t(t));
        DPX_VERIFY_OK(u);
        const double e = blockSum(u->estimate, 8, 4, 8, 0, 4) - blockSum(x, 8, 4, 8, 0, 4);
        // Uniform spread inside the block.
        QCOMPARE(u->estimate[4 * 8 + 0], u->estimate[7 * 8 + 3]);
        sum += e;
        sumSq += e * e;
        sumAbs += std::abs(e);
    }
    // Standard errors: mean √(2/T) ≈ 0.007, variance √(20/T)·... (Laplace kurtosis 6) ≈ 0.03.
    DPX_VERIFY_NEAR(sum / trials, 0.0, 0.04);
    DPX_VERIFY_NEAR(sumSq / trials, 2.0, 0.12);
    DPX_VERIFY_NEAR(sumAbs / trials, 1.0, 0.03);
}

void TestGrids::agridBlockVarianceMatchesLeastSquares() {
    // 40 × 40 with 10 records per bin: N = 16 000, m1 = max(10, ⌈¼√1600⌉) = 10 → blocks of
    // 4 × 4 bins holding 160 records. m2 = ⌈√(N′·0.5/5)⌉ = 4 or 5 for N′ in (90, 250] (noise
    // Laplace(2) never leaves it here) → one bin per piece, k = 16 pieces.
    // The block total's LS estimate has variance 1/(1/var1 + 1/(16·var2)) = 128/17 at ε = 1,
    // α = ½ (var1 = var2 = 2·2²) — smaller than either measurement's alone (8 and 128).
    std::vector<double> x(1600, 10.0);
    const int trials = 30000;
    double sum = 0, sumSq = 0;
    for (int t = 0; t < trials; ++t) {
        auto a = runAlgorithm(agridAlgorithm(), {40, 40}, x, 1.0, 500 + std::uint64_t(t));
        DPX_VERIFY_OK(a);
        const double e = blockSum(a->estimate, 40, 8, 12, 20, 24) - 160;
        sum += e;
        sumSq += e * e;
    }
    const double expected = 128.0 / 17.0;
    DPX_VERIFY_NEAR(sum / trials, 0.0, 5 * std::sqrt(expected / trials));
    DPX_VERIFY_REL(sumSq / trials, expected, 0.04);
}

void TestGrids::agridBeatsUgridOnClusteredDataAtSmallEpsilon() {
    // The paper's finding (Qardaji, Yang & Li 2013, §VI): on skewed data AGrid's finer cells
    // in dense regions beat UGrid's one-size grid. 64 × 64, N = 10^5, ε = 0.1, 2 000 random
    // rectangles, 40 trials each (fixed seeds): mean RMSE of AGrid < 0.9 × UGrid's.
    const std::vector<double> x = clustered(100000, 9);
    const auto boxes = dpxtest::randomBoxes(64, 64, 2000, 11);
    double ug = 0, ag = 0;
    const int trials = 40;
    for (int t = 0; t < trials; ++t) {
        auto u = runAlgorithm(ugridAlgorithm(), {64, 64}, x, 0.1, 1000 + std::uint64_t(t));
        auto a = runAlgorithm(agridAlgorithm(), {64, 64}, x, 0.1, 2000 + std::uint64_t(t));
        DPX_VERIFY_OK(u);
        DPX_VERIFY_OK(a);
        ug += dpxtest::boxRmse(64, 64, boxes, x, u->estimate);
        ag += dpxtest::boxRmse(64, 64, boxes, x, a->estimate);
    }
    qInfo("UGrid RMSE %.2f, AGrid RMSE %.2f", ug / trials, ag / trials);
    QVERIFY2(ag < 0.9 * ug, QByteArray::number(ag / ug).constData());
}

void TestGrids::badInputs() {
    const std::vector<double> x1(16, 1.0);
    DPX_VERIFY_ERROR(runAlgorithm(ugridAlgorithm(), {16}, x1, 1, 1), "2-D");
    DPX_VERIFY_ERROR(runAlgorithm(agridAlgorithm(), {16}, x1, 1, 1), "2-D");
    const std::vector<double> x(16, 1.0);
    DPX_VERIFY_ERROR(runAlgorithm(agridAlgorithm(), {4, 4}, x, 1, 1, {{"alpha", 1.0}}), "alpha");
    DPX_VERIFY_ERROR(runAlgorithm(agridAlgorithm(), {4, 4}, x, 1, 1, {{"beta", 1.0}}), "beta");
    DPX_VERIFY_ERROR(runAlgorithm(ugridAlgorithm(), {4, 4}, x, 1, 1, {{"c", 0.0}}), "c =");
    DPX_VERIFY_ERROR(runAlgorithm(ugridAlgorithm(), {4, 4}, x, 0, 1), "epsilon|ε");
    std::vector<double> bad = x;
    bad[3] = 0.5;
    DPX_VERIFY_ERROR(runAlgorithm(ugridAlgorithm(), {4, 4}, bad, 1, 1), "whole");
    DPX_VERIFY_ERROR(runAlgorithm(agridAlgorithm(), {4, 4}, std::vector<double>(15, 1.0), 1, 1),
                     "cells");
    QVERIFY(findAlgorithm("ugrid") == &ugridAlgorithm());
    QVERIFY(findAlgorithm("AGRID") == &agridAlgorithm());
    QVERIFY(ugridAlgorithm().info().totalIsPublic);
    QVERIFY(agridAlgorithm().info().totalIsPublic);
}

QTEST_APPLESS_MAIN(TestGrids)
#include "tst_grids.moc"
