// AGrid (Qardaji, Yang & Li, "Differentially private grids for geospatial data", ICDE 2013):
// a coarse m1 × m1 grid measured with α·ε; every first-level cell is then cut into an m2 × m2
// grid sized from its own noisy count and measured with (1 − α)·ε; the two levels are made
// consistent by the paper's weighted averaging and mean consistency (= least squares), and each
// second-level count is spread uniformly over its bins. docs/algorithms/agrid.md.
//
// Privacy: each level's cells are disjoint (L1 sensitivity 1 per level), so level 1 with
// Laplace(1/(αε)) is αε-DP; level 2's layout is a function of level 1's output only, and given
// it Laplace(1/((1 − α)ε)) on disjoint cells is (1 − α)ε-DP; adaptive sequential composition
// gives ε. The first-level size m1 uses the true total N as public, as the paper and DPBench's
// reference code (ektelo AGrid) do: info().totalIsPublic.
#include <cmath>
#include <string>
#include <vector>

#include "core/algorithms/grids.h"
#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

class AGrid final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "AGrid",
            "Adaptive grid",
            "Qardaji, Yang & Li, ICDE 2013",
            {2},
            true,
            false,
            true,
            {{"alpha", 0.5, 0.01, 0.99, false,
              "fraction of ε spent on the first-level grid (Qardaji, Yang & Li 2013: α = 0.5)"},
             {"c", 10, 0.01, 1e6, false,
              "constant of the first-level size m1 = max(10, ⌈¼√(N·ε/c)⌉) (paper: c = 10)"},
             {"c2", 5, 0.01, 1e6, false,
              "constant of the second-level size m2 = ⌈√(N′·(1 − α)·ε/c2)⌉ (paper: c2 = 5)"}},
            "docs/algorithms/agrid.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto params = checkAlgorithmContext(info(), context);
        if (!params) {
            return params.error();
        }
        const double alpha = params->at("alpha"), c = params->at("c"), c2 = params->at("c2");
        const std::size_t rows = context.shape[0], cols = context.shape[1];
        const double eps1 = alpha * context.epsilon;
        const double eps2 = context.epsilon - eps1;
        const NoiseDistribution noise1 = NoiseDistribution::laplace(1 / eps1);
        const NoiseDistribution noise2 = NoiseDistribution::laplace(1 / eps2);
        const double var1 = noise1.variance(), var2 = noise2.variance();
        SimulationRng& rng = *context.rng;

        // Summed-area table S[(r)(cols+1) + c] = Σ x over [0, r) × [0, c).
        const std::size_t w = cols + 1;
        std::vector<double> sat((rows + 1) * w, 0.0);
        for (std::size_t r = 0; r < rows; ++r) {
            double line = 0;
            for (std::size_t col = 0; col < cols; ++col) {
                line += context.x[r * cols + col];
                sat[(r + 1) * w + col + 1] = sat[r * w + col + 1] + line;
            }
        }
        const auto boxSum = [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
            return sat[r1 * w + c1] - sat[r0 * w + c1] - sat[r1 * w + c0] + sat[r0 * w + c0];
        };
        const double total = sat[rows * w + cols];

        const std::size_t m1 = agridFirstLevelCellsPerSide(total, context.epsilon, c);
        const GridLayout g =
            gridLayout(rows, cols, static_cast<double>(m1) * static_cast<double>(m1));

        AlgorithmRun out;
        out.estimate.assign(rows * cols, 0.0);
        std::size_t secondLevelCells = 0;
        std::vector<double> u;
        for (std::size_t br = 0; br < g.blockRows; ++br) {
            if (context.stop.stop_requested()) {
                return Error{"AGrid: cancelled"};
            }
            const std::size_t r0 = br * g.blockSide, r1 = std::min(rows, r0 + g.blockSide);
            for (std::size_t bc = 0; bc < g.blockCols; ++bc) {
                const std::size_t c0 = bc * g.blockSide, c1 = std::min(cols, c0 + g.blockSide);
                const double v = boxSum(r0, r1, c0, c1) + sampleNoise(noise1, rng);
                // Second level: m2 from the noisy count only (post-processing of level 1), laid
                // out like the first level inside this block, then near-equal pieces.
                const std::size_t m2 = agridSecondLevelCellsPerSide(v, eps2, c2);
                const GridLayout inner =
                    gridLayout(r1 - r0, c1 - c0, static_cast<double>(m2) * static_cast<double>(m2));
                const std::vector<std::size_t> rs = equalSplit(r1 - r0, inner.blockRows);
                const std::vector<std::size_t> cs = equalSplit(c1 - c0, inner.blockCols);
                const std::size_t nr = rs.size() - 1, nc = cs.size() - 1;
                u.assign(nr * nc, 0.0);
                for (std::size_t i = 0; i < nr; ++i) {
                    for (std::size_t j = 0; j < nc; ++j) {
                        u[i * nc + j] =
                            boxSum(r0 + rs[i], r0 + rs[i + 1], c0 + cs[j], c0 + cs[j + 1]) +
                            sampleNoise(noise2, rng);
                    }
                }
                secondLevelCells += u.size();
                combineWithParts(v, var1, u, var2);
                for (std::size_t i = 0; i < nr; ++i) {
                    for (std::size_t j = 0; j < nc; ++j) {
                        const double each =
                            u[i * nc + j] /
                            static_cast<double>((rs[i + 1] - rs[i]) * (cs[j + 1] - cs[j]));
                        for (std::size_t r = r0 + rs[i]; r < r0 + rs[i + 1]; ++r) {
                            double* line = out.estimate.data() + r * cols;
                            std::fill(line + c0 + cs[j], line + c0 + cs[j + 1], each);
                        }
                    }
                }
            }
        }
        out.spent = {{"first-level grid counts (Laplace, sensitivity 1)", eps1},
                     {"second-level grid counts (Laplace, sensitivity 1)", eps2}};
        out.summary = "AGrid: " + std::to_string(g.blockRows) + " × " +
                      std::to_string(g.blockCols) +
                      " first-level grid (m1 = " + std::to_string(m1) + ", N public), " +
                      std::to_string(secondLevelCells) + " second-level cells";
        return out;
    }
};

}  // namespace

const Algorithm& agridAlgorithm() {
    static const AGrid a;
    return a;
}

}  // namespace dpx
