// UGrid (Qardaji, Yang & Li, "Differentially private grids for geospatial data", ICDE 2013):
// a uniform grid of about √(N·ε/c) × √(N·ε/c) cells over a 2-D domain, one Laplace count per
// grid cell, each count spread uniformly over its bins. docs/algorithms/ugrid.md.
//
// Privacy: the grid cells are disjoint, so adding or removing one record changes one grid count
// by 1 (L1 sensitivity 1) and Laplace(1/ε) on every count is ε-DP (Dwork, McSherry, Nissim &
// Smith 2006). The grid size uses the true total N as public, as the paper and DPBench's
// reference code (ektelo UniformGrid) do: info().totalIsPublic.
#include <cmath>
#include <string>
#include <vector>

#include "core/algorithms/grids.h"
#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

class UGrid final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "UGrid",
            "Uniform grid",
            "Qardaji, Yang & Li, ICDE 2013",
            {2},
            true,
            false,
            true,
            {{"c", 10, 0.01, 1e6, false,
              "the constant c of the grid size √(N·ε/c) (Qardaji, Yang & Li 2013: c = 10)"}},
            "docs/algorithms/ugrid.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto params = checkAlgorithmContext(info(), context);
        if (!params) {
            return params.error();
        }
        const double c = params->at("c");
        const std::size_t rows = context.shape[0], cols = context.shape[1];
        const double eps = context.epsilon;
        double total = 0;
        for (double v : context.x) {
            total += v;
        }
        const double m = ugridCellsPerSide(total, eps, c);
        const GridLayout g = gridLayout(rows, cols, m * m);

        // Block sums (row-major over blocks), then one Laplace draw per block in block order.
        std::vector<double> sums(g.blockRows * g.blockCols, 0.0);
        for (std::size_t r = 0; r < rows; ++r) {
            double* line = sums.data() + (r / g.blockSide) * g.blockCols;
            const double* xr = context.x.data() + r * cols;
            for (std::size_t col = 0; col < cols; ++col) {
                line[col / g.blockSide] += xr[col];
            }
        }
        if (context.stop.stop_requested()) {
            return Error{"UGrid: cancelled"};
        }
        std::vector<double> noise(sums.size());
        sampleNoise(NoiseDistribution::laplace(1 / eps), *context.rng, noise);

        AlgorithmRun out;
        out.estimate.assign(rows * cols, 0.0);
        for (std::size_t br = 0; br < g.blockRows; ++br) {
            const std::size_t r0 = br * g.blockSide, r1 = std::min(rows, r0 + g.blockSide);
            for (std::size_t bc = 0; bc < g.blockCols; ++bc) {
                const std::size_t c0 = bc * g.blockSide, c1 = std::min(cols, c0 + g.blockSide);
                const std::size_t b = br * g.blockCols + bc;
                const double each =
                    (sums[b] + noise[b]) / static_cast<double>((r1 - r0) * (c1 - c0));
                for (std::size_t r = r0; r < r1; ++r) {
                    std::fill(out.estimate.begin() + static_cast<std::ptrdiff_t>(r * cols + c0),
                              out.estimate.begin() + static_cast<std::ptrdiff_t>(r * cols + c1),
                              each);
                }
            }
        }
        out.spent = {{"grid cell counts (Laplace, sensitivity 1)", eps}};
        out.summary = "UGrid: " + std::to_string(g.blockRows) + " × " +
                      std::to_string(g.blockCols) + " grid, blocks of " +
                      std::to_string(g.blockSide) + " × " + std::to_string(g.blockSide) +
                      " bins (√(Nε/c) = " + formatNumber(m) + ", N public)";
        return out;
    }
};

}  // namespace

const Algorithm& ugridAlgorithm() {
    static const UGrid a;
    return a;
}

}  // namespace dpx
