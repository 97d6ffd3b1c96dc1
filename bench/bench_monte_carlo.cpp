// Monte Carlo expected SSE of identity, clamp and resize (on common random numbers, one call) for
// the seed 000 example H = [0, 16], ε = 0.1, Laplace b = 10. Counterpart: numpy_monte_carlo.py.
// Prints the three means with their standard errors, the exact values from exactExpectedError for
// comparison, and the median wall-clock time per thread count.
//
// With --reference 1 (the default) it also times a hand-written single-threaded loop for the
// 2-bin case: the same generator, streams and Laplace draw as the core (so the same means), with
// identity, clamp, resize and SSE inlined. It is not part of the product; it shows how much of the
// core's time is the general per-trial machinery (dispatch, copies, accumulators) rather than the
// arithmetic.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/accuracy/expected_error.h"
#include "core/base/simulation_rng.h"

namespace {

// Mean SSE of identity, clamp and resize over `trials` trials for a 2-bin truth h, Laplace(b),
// blocks of dpx::kMonteCarloBlock trials using stream = block index, as the core does.
std::array<double, 3> referenceLoop(const double h[2], double b, std::uint64_t trials,
                                    std::uint64_t seed) {
    double sum[3] = {0, 0, 0};
    for (std::uint64_t begin = 0; begin < trials; begin += dpx::kMonteCarloBlock) {
        dpx::SimulationRng rng(seed, begin / dpx::kMonteCarloBlock);
        const std::uint64_t end = std::min(trials, begin + dpx::kMonteCarloBlock);
        for (std::uint64_t t = begin; t < end; ++t) {
            double x[2];
            for (int i = 0; i < 2; ++i) {
                // Laplace(b) as the core draws it: b·Exp(1) (ziggurat) with an independent sign.
                bool negative = false;
                const double e = b * rng.exponential(&negative);
                x[i] = h[i] + (negative ? -e : e);
            }
            double d0 = x[0] - h[0], d1 = x[1] - h[1];
            sum[0] += d0 * d0 + d1 * d1;
            d0 = std::max(x[0], 0.0) - h[0];
            d1 = std::max(x[1], 0.0) - h[1];
            sum[1] += d0 * d0 + d1 * d1;
            // Projection onto {(a, s − a) : 0 ≤ a ≤ s}, zeros when s ≤ 0.
            const double s = x[0] + x[1];
            const double a = s > 0 ? std::clamp(x[0], 0.0, s) : 0.0;
            d0 = a - h[0];
            d1 = (s > 0 ? s - a : 0.0) - h[1];
            sum[2] += d0 * d0 + d1 * d1;
        }
    }
    const auto n = static_cast<double>(trials);
    return {sum[0] / n, sum[1] / n, sum[2] / n};
}

}  // namespace

int main(int argc, char** argv) {
    using namespace dpx;
    const bench::Options opt(argc, argv,
                             {{"trials", "1e7"},
                              {"threads", "2,1"},
                              {"reps", "5"},
                              {"seed", "1"},
                              {"epsilon", "0.1"},
                              {"counts", "0,16"},
                              {"reference", "1"}});
    bench::printHeader("Monte Carlo E[SSE], identity + clamp + resize on common random numbers");

    TruthModel truth;
    for (const auto& c : opt.list("counts")) {
        truth.counts.push_back(std::stod(c));
    }
    for (std::size_t i = 0; i < truth.counts.size(); ++i) {
        truth.positions.push_back(static_cast<double>(i));
    }
    const double b = 1.0 / opt.real("epsilon");  // Laplace scale Δ1/ε with Δ1 = 1
    const auto noise = NoiseDistribution::laplace(b);
    const std::vector<EstimatorSpec> estimators{
        {EstimatorKind::Identity, 0}, {EstimatorKind::Clamp, 0}, {EstimatorKind::Resize, 0}};
    const std::vector<MetricSpec> metrics{{Metric::SSE, Scale::Counts}};
    const auto trials = static_cast<std::uint64_t>(opt.integer("trials"));
    const auto seed = static_cast<std::uint64_t>(opt.integer("seed"));
    const int reps = static_cast<int>(opt.integer("reps"));
    std::printf("# truth %s, %s, %llu trials, seed %llu, %d repetitions (median reported)\n",
                opt.str("counts").c_str(), noise.describe().c_str(),
                static_cast<unsigned long long>(trials), static_cast<unsigned long long>(seed),
                reps);

    // Exact values for a sanity check of the Monte Carlo means (where an exact method exists).
    std::vector<double> exact(estimators.size(), std::nan(""));
    for (std::size_t e = 0; e < estimators.size(); ++e) {
        auto r = exactExpectedError(truth, noise, estimators[e], metrics[0]);
        if (r) {
            exact[e] = r->value;
        }
    }

    for (const auto& threadsText : opt.list("threads")) {
        const auto threads = static_cast<unsigned>(std::stoul(threadsText));
        MonteCarloOptions mc;
        mc.trials = trials;
        mc.seed = seed;
        mc.threads = threads;
        MonteCarloResult last;
        bool failed = false;
        const auto times = bench::timeRuns(reps, 120.0, [&] {
            auto r = monteCarloExpectedError(truth, noise, estimators, metrics, mc);
            if (!r) {
                std::fprintf(stderr, "monteCarloExpectedError failed: %s\n",
                             r.error().message.c_str());
                failed = true;
                return;
            }
            last = std::move(r.value());
        });
        if (failed) {
            return 1;
        }
        std::printf("threads %u: median %.4f s over %zu runs (min %.4f s), %.1f ns/trial\n",
                    threads, bench::median(times), times.size(),
                    *std::min_element(times.begin(), times.end()),
                    1e9 * bench::median(times) / static_cast<double>(trials));
        for (std::size_t e = 0; e < estimators.size(); ++e) {
            const ErrorEstimate& v = last.values[e][0];
            std::printf("  %-8s E[SSE] = %.4f ± %.4f (exact %.6f, z = %+.2f)\n",
                        estimatorName(estimators[e].kind), v.value, v.stdError, exact[e],
                        (v.value - exact[e]) / v.stdError);
        }
        std::printf(
            "RESULT case=mc threads=%u trials=%llu median_s=%.6f identity=%.6f clamp=%.6f "
            "resize=%.6f\n",
            threads, static_cast<unsigned long long>(last.trials), bench::median(times),
            last.values[0][0].value, last.values[1][0].value, last.values[2][0].value);
    }
    if (opt.integer("reference") != 0 && truth.counts.size() == 2) {
        std::array<double, 3> means{};
        const auto times = bench::timeRuns(
            reps, 120.0, [&] { means = referenceLoop(truth.counts.data(), b, trials, seed); });
        std::printf(
            "reference loop (1 thread, 2 bins, inlined): median %.4f s, %.1f ns/trial; "
            "means %.4f %.4f %.4f\n",
            bench::median(times), 1e9 * bench::median(times) / static_cast<double>(trials),
            means[0], means[1], means[2]);
        std::printf(
            "RESULT case=mc-reference threads=1 trials=%llu median_s=%.6f identity=%.6f "
            "clamp=%.6f resize=%.6f\n",
            static_cast<unsigned long long>(trials), bench::median(times), means[0], means[1],
            means[2]);
    }
    return 0;
}
