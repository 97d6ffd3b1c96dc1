// The heavy computations behind the "More mechanisms" pages (issue #9), at the sizes the window
// allows: the functional KDE release (true KDE on the grid, pivoted-Cholesky factor of the
// Gaussian kernel, sampled releases) for n = 10^6 values on 2000 grid points, and the sparse
// histogram Monte Carlo on the 65 536-cell NLTCS-like table (seed 003's 1000 trials). Prints
// medians; the figures are recorded in docs/performance.md.
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/bench_util.h"
#include "core/base/simulation_rng.h"
#include "core/histogram/example_datasets.h"
#include "core/mechanisms/functional_kde.h"
#include "core/mechanisms/sparse_histogram.h"

namespace {

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "bench_seed_mechanisms: %s\n", what.c_str());
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace dpx;
    const bench::Options opt(argc, argv,
                             {{"n", "1000000"},
                              {"grid", "2000"},
                              {"bandwidth", "0.02"},
                              {"samples", "5"},
                              {"trials", "1000"},
                              {"reps", "5"}});
    bench::printHeader("seed 003 mechanisms: functional KDE and sparse-histogram Monte Carlo");
    const auto n = static_cast<std::size_t>(opt.integer("n"));
    const int reps = static_cast<int>(opt.integer("reps"));

    // Data: an equal mixture of N(0.3, 0.1²) and N(0.7, 0.1²) as in seed 003 Fig. 3.2.
    SimulationRng rng(7, 0);
    std::vector<double> data(n);
    for (std::size_t i = 0; i < n; ++i) {
        data[i] = (i % 2 ? 0.7 : 0.3) + 0.1 * rng.normal();
    }
    FunctionalKdeParams p;
    p.bandwidth = opt.real("bandwidth");
    p.gridLo = -0.1;
    p.gridHi = 1.1;
    p.gridPoints = static_cast<std::size_t>(opt.integer("grid"));
    p.epsilon = 1;
    p.delta = 1e-6;
    p.samples = static_cast<std::size_t>(opt.integer("samples"));
    p.calibration = GaussianCalibration::Analytic;
    std::size_t rank = 0;
    const auto kde = bench::timeRuns(reps, 120, [&] {
        auto r = releaseFunctionalKde(data, p);
        if (!r) {
            die(r.error().message);
        }
        rank = r->factorRank;
    });
    std::printf("RESULT kde_release n=%zu grid=%zu h=%g samples=%zu rank=%zu median_s=%.3f\n", n,
                p.gridPoints, p.bandwidth, p.samples, rank, bench::median(kde));

    std::vector<double> grid(p.gridPoints);
    for (std::size_t j = 0; j < grid.size(); ++j) {
        grid[j] = p.gridLo + (p.gridHi - p.gridLo) * static_cast<double>(j) /
                                 static_cast<double>(grid.size() - 1);
    }
    const auto factor = bench::timeRuns(reps, 60, [&] {
        if (!factorGaussianKernel(grid, p.bandwidth)) {
            die("factorGaussianKernel failed");
        }
    });
    std::printf("RESULT kde_factor grid=%zu h=%g median_s=%.3f\n", grid.size(), p.bandwidth,
                bench::median(factor));

    const auto nltcs = makeExample("nltcs-like");
    if (!nltcs) {
        die(nltcs.error().message);
    }
    SparseHistogramParams sp;
    sp.epsilon = 1;
    MonteCarloOptions mc;
    mc.trials = static_cast<std::uint64_t>(opt.integer("trials"));
    mc.seed = 1;
    double meanThresholded = 0;
    const auto sparse = bench::timeRuns(reps, 120, [&] {
        auto r = sparseMonteCarlo(nltcs->counts(), sp, mc);
        if (!r) {
            die(r.error().message);
        }
        meanThresholded = r->meanThresholded;
    });
    std::printf("RESULT sparse_mc cells=%zu trials=%llu mean_l1_thresholded=%.1f median_s=%.3f\n",
                nltcs->size(), static_cast<unsigned long long>(mc.trials), meanThresholded,
                bench::median(sparse));
    return 0;
}
