// Issue #22: intervals for a 65 536-cell table (256 × 256) ≤ 100 ms. For each noise law at ε = 0.01
// and ε = 10 (Laplace b = 1/ε, discrete Laplace α = e^(−ε), Gaussian and discrete Gaussian with σ
// of the Gaussian mechanism at δ = 10⁻⁶ for Δ2 = 1, σ = √(2 ln(1.25/δ))/ε, Dwork & Roth 2014
// Thm A.1):
//  - "table" (the target): per bin, Bonferroni and exact-max half-widths over the 65 536 cells
//    (tableIntervals) and the lower/upper bounds of every cell (value ∓ h on 65 536 values);
//  - "sums" (for reference, no target): the half-widths of a row of the 2-D table (a sum of 256
//    cells) and of the total (65 536 cells), sumInterval — what the Table tab's readout computes
//    for one selected box.
// Also the release path: releaseIntervals for a discrete-laplace and a discrete-gaussian release of
// 65 536 cells (σ² calibrated as the release calibrates it). Median of --reps runs; a RESULT line
// per case.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/intervals/intervals.h"
#include "core/intervals/release_intervals.h"

using namespace dpx;

int main(int argc, char** argv) {
    bench::Options opt(argc, argv, {{"reps", "7"}, {"cells", "65536"}, {"side", "256"}});
    const int reps = static_cast<int>(opt.integer("reps"));
    const auto cells = static_cast<std::uint64_t>(opt.integer("cells"));
    const auto side = static_cast<std::uint64_t>(opt.integer("side"));
    bench::printHeader("intervals for a table (issue #22)");
    std::vector<double> values(cells, 100.0), lower(cells), upper(cells);
    bool allUnder = true;
    for (double eps : {0.01, 10.0}) {
        const double sigma = std::sqrt(2 * std::log(1.25 / 1e-6)) / eps;
        const CellNoise laws[] = {{CellNoiseKind::Laplace, 1 / eps},
                                  {CellNoiseKind::DiscreteLaplace, std::exp(-eps)},
                                  {CellNoiseKind::Gaussian, sigma},
                                  CellNoise::discreteGaussian(sigma * sigma)};
        for (const CellNoise& law : laws) {
            TableIntervals t;
            NoiseInterval row, total;
            const auto times = bench::timeRuns(reps, 30, [&] {
                t = *tableIntervals(law, cells, 0.95);
                for (std::uint64_t i = 0; i < cells; ++i) {
                    lower[i] = values[i] - t.perBin.halfWidth;
                    upper[i] = values[i] + t.perBin.halfWidth;
                }
            });
            const double ms = bench::median(times) * 1e3;
            allUnder = allUnder && ms <= 100;
            const auto sumTimes = bench::timeRuns(reps, 30, [&] {
                row = *sumInterval(law, side, 0.95);
                total = *sumInterval(law, cells, 0.95);
            });
            auto kind = [](const NoiseInterval& n) {
                return n.method.find("conservative") != std::string::npos ? "bound" : "exact";
            };
            std::printf(
                "RESULT table law=\"%s\" epsilon=%g ms=%.3f per_bin=%g bonferroni=%g "
                "exact_max=%g\n",
                law.describe().c_str(), eps, ms, t.perBin.halfWidth, t.bonferroni.halfWidth,
                t.exactMax.halfWidth);
            std::printf("RESULT sums law=\"%s\" epsilon=%g ms=%.3f row_sum=%g (%s) total=%g (%s)\n",
                        law.describe().c_str(), eps, bench::median(sumTimes) * 1e3, row.halfWidth,
                        kind(row), total.halfWidth, kind(total));
        }
        for (ReleaseMechanism m :
             {ReleaseMechanism::DiscreteLaplace, ReleaseMechanism::DiscreteGaussian}) {
            ReleaseSpec spec;
            spec.mechanism = m;
            spec.epsilon = eps == 10.0 ? "10" : "0.01";
            spec.delta = m == ReleaseMechanism::DiscreteGaussian ? "1e-6" : "";
            spec.appVersion = "bench";
            spec.binsDeclared = true;
            double h = 0;
            const auto times = bench::timeRuns(reps, 30, [&] {
                auto r = releaseIntervals(spec, cells);
                h = (r && *r) ? (*r)->halfWidth : -1;
            });
            const double ms = bench::median(times) * 1e3;
            allUnder = allUnder && ms <= 100;
            std::printf("RESULT table release=%s epsilon=%g ms=%.3f per_bin=%g\n",
                        releaseMechanismName(m), eps, ms, h);
        }
    }
    std::printf("# target: every table case <= 100 ms: %s\n", allUnder ? "PASS" : "FAIL");
    return 0;
}
