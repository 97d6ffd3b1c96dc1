// StructureFirst (Xu, Zhang, Xiao, Yang, Yu & Winslett, ICDE 2012 / VLDB J. 2013;
// core/algorithms/structure_first.cpp): the v-optimal table against an exhaustive search over all
// partitions; the budget split; the defining behaviour (with a tight public bound F and little
// noise the private boundaries are the v-optimal ones: a piecewise-constant histogram is
// recovered); beating Identity (Laplace per bin, computed here) at small ε, where few noisy
// bucket counts win; bad inputs.
#include <QTest>

#include <cmath>
#include <functional>
#include <limits>

#include "core/algorithms/registry_list.h"
#include "core/algorithms/structure_first.h"
#include "core/base/simulation_rng.h"
#include "tests/core/algorithms/algorithm_test_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::runAlgorithm;

namespace {

std::vector<double> pieces(const std::vector<std::pair<std::size_t, double>>& p) {
    std::vector<double> x;
    for (const auto& [len, v] : p) {
        x.insert(x.end(), len, v);
    }
    return x;
}

double sse(const std::vector<double>& x, std::size_t a, std::size_t b) {
    double mean = 0;
    for (std::size_t i = a; i < b; ++i) {
        mean += x[i];
    }
    mean /= double(b - a);
    double s = 0;
    for (std::size_t i = a; i < b; ++i) {
        s += (x[i] - mean) * (x[i] - mean);
    }
    return s;
}

// Least SSE of x[0, j) in exactly i buckets, by trying every set of i − 1 cuts.
double bruteForce(const std::vector<double>& x, std::size_t i, std::size_t j) {
    double best = std::numeric_limits<double>::infinity();
    std::function<void(std::size_t, std::size_t, double)> go = [&](std::size_t start,
                                                                   std::size_t left, double acc) {
        if (left == 1) {
            best = std::min(best, acc + sse(x, start, j));
            return;
        }
        for (std::size_t cut = start + 1; cut + left - 1 <= j; ++cut) {
            go(cut, left - 1, acc + sse(x, start, cut));
        }
    };
    go(0, i, 0.0);
    return best;
}

}  // namespace

class TestStructureFirst : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void vOptimalTableMatchesExhaustiveSearch();
    void budgetSplitSumsToEpsilon();
    void recoversPiecesWithATightBound();
    void beatsIdentityAtSmallEpsilon();
    void badInputs();
};

void TestStructureFirst::vOptimalTableMatchesExhaustiveSearch() {
    SimulationRng rng(4, 0);
    const std::vector<double> x{3, 9, 1, 0, 0, 7, 7, 2, 5};
    std::vector<double> y(9);
    for (double& v : y) {
        v = std::floor(rng.uniform() * 20);
    }
    for (const auto& data : {x, y}) {
        const std::size_t n = data.size(), k = 5;
        const std::vector<double> e = vOptimalCosts(data, k);
        for (std::size_t i = 1; i <= k; ++i) {
            for (std::size_t j = i; j <= n; ++j) {
                const double ref = bruteForce(data, i, j);
                DPX_VERIFY_NEAR(e[i * (n + 1) + j], ref, 1e-9 * (1 + ref));
            }
        }
    }
}

void TestStructureFirst::budgetSplitSumsToEpsilon() {
    const std::vector<double> x = pieces({{100, 3}, {50, 0}, {106, 12}});
    for (double eps : {0.01, 1.0, 10.0}) {
        for (double rho : {0.2, 0.5, 0.8}) {
            for (double kRatio : {0.001, 0.05, 0.1}) {
                auto r = runAlgorithm(structureFirstAlgorithm(), {256}, x, eps, 1,
                                      {{"rho", rho}, {"kRatio", kRatio}});
                DPX_VERIFY_OK(r);
                DPX_VERIFY_NEAR(dpxtest::totalSpent(*r), eps, 1e-12 * eps);
                // k = ⌈kRatio·n⌉ = 1: no boundaries, all of ε on the one count.
                QCOMPARE(r->spent.size(), kRatio < 0.004 ? std::size_t{1} : std::size_t{2});
            }
        }
    }
}

void TestStructureFirst::recoversPiecesWithATightBound() {
    // Five pieces, k = 5, F = 80 (the largest count), ε = 10^4: a boundary off the v-optimal
    // one costs ≥ 4 in SSE, weighted by ε₁/(k − 1)/(2(2F + 1)) ≈ 3.8 per unit: P ≈ e^{−15}.
    const std::vector<double> x = pieces({{40, 5}, {24, 0}, {1, 80}, {50, 7}, {13, 2}});
    for (std::uint64_t seed : {5, 6, 7}) {
        auto r = runAlgorithm(structureFirstAlgorithm(), {128}, x, 1e4, seed,
                              {{"kRatio", 5.0 / 128}, {"maxCount", 80}});
        DPX_VERIFY_OK(r);
        QVERIFY2(r->summary.find("5 buckets") != std::string::npos, r->summary.c_str());
        for (std::size_t i = 0; i < x.size(); ++i) {
            DPX_VERIFY_NEAR(r->estimate[i], x[i], 1e-2);
        }
    }
}

void TestStructureFirst::beatsIdentityAtSmallEpsilon() {
    // Xu et al. (2013, §7): at small ε, k noisy bucket counts beat n noisy bins even with
    // imprecise boundaries. n = 1 024, six flat pieces, the paper's defaults (k = n/10, F from
    // the authors' code), ε = 0.01, 1 000 random ranges, 20 trials: RMSE < 0.7 × Identity's.
    const std::vector<double> x =
        pieces({{200, 10}, {100, 0}, {300, 2}, {24, 100}, {200, 0}, {200, 13}});
    const auto boxes = dpxtest::randomBoxes(1, 1024, 1000, 12);
    double sf = 0, identity = 0;
    const int trials = 20;
    for (int t = 0; t < trials; ++t) {
        auto r = runAlgorithm(structureFirstAlgorithm(), {1024}, x, 0.01, 300 + std::uint64_t(t));
        DPX_VERIFY_OK(r);
        sf += dpxtest::boxRmse(1, 1024, boxes, x, r->estimate);
        SimulationRng rng(400 + std::uint64_t(t), 0);
        std::vector<double> id = x;
        for (double& v : id) {
            v += sampleNoise(NoiseDistribution::laplace(100.0), rng);
        }
        identity += dpxtest::boxRmse(1, 1024, boxes, x, id);
    }
    qInfo("StructureFirst RMSE %.1f, Identity RMSE %.1f", sf / trials, identity / trials);
    QVERIFY2(sf < 0.7 * identity, QByteArray::number(sf / identity).constData());
}

void TestStructureFirst::badInputs() {
    const std::vector<double> x(16, 1.0);
    DPX_VERIFY_ERROR(runAlgorithm(structureFirstAlgorithm(), {4, 4}, x, 1, 1), "1-D");
    DPX_VERIFY_ERROR(runAlgorithm(structureFirstAlgorithm(), {16}, x, 1, 1, {{"kRatio", 0}}),
                     "kRatio");
    DPX_VERIFY_ERROR(runAlgorithm(structureFirstAlgorithm(), {16}, x, 1, 1, {{"maxCount", -1}}),
                     "maxCount");
    DPX_VERIFY_ERROR(runAlgorithm(structureFirstAlgorithm(), {16}, x, 0, 1), "epsilon|ε");
    QVERIFY(findAlgorithm("structurefirst") == &structureFirstAlgorithm());
    QVERIFY(structureFirstAlgorithm().info().totalIsPublic);
}

QTEST_APPLESS_MAIN(TestStructureFirst)
#include "tst_structure_first.moc"
