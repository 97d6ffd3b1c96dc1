// Time per call of dpx::exactExpectedError on the seed 000 example H = [0, 16], ε = 0.1
// (Laplace b = 10) for clamp (per-bin closed form), resize and NoiseFirst (2-D integration on
// 2 bins). Calls are timed in batches long enough for the clock; the median batch is reported.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/accuracy/expected_error.h"

int main(int argc, char** argv) {
    using namespace dpx;
    const bench::Options opt(argc, argv,
                             {{"epsilon", "0.1"},
                              {"counts", "0,16"},
                              {"estimators", "clamp,resize,noisefirst"},
                              {"metrics", "sse"},
                              {"reps", "7"},
                              {"batch-seconds", "0.2"}});
    bench::printHeader("Exact expected error, time per call");

    TruthModel truth;
    for (const auto& c : opt.list("counts")) {
        truth.counts.push_back(std::stod(c));
    }
    for (std::size_t i = 0; i < truth.counts.size(); ++i) {
        truth.positions.push_back(static_cast<double>(i));
    }
    const double b = 1.0 / opt.real("epsilon");
    const auto noise = NoiseDistribution::laplace(b);
    std::printf("# truth %s, %s\n", opt.str("counts").c_str(), noise.describe().c_str());
    const int reps = static_cast<int>(opt.integer("reps"));
    const double batchSeconds = opt.real("batch-seconds");

    for (const auto& metricText : opt.list("metrics")) {
        auto metric = metricFromName(metricText);
        if (!metric) {
            std::fprintf(stderr, "%s\n", metric.error().message.c_str());
            return 2;
        }
        const MetricSpec spec{*metric, Scale::Counts};
        for (const auto& estText : opt.list("estimators")) {
            auto kind = estimatorFromName(estText);
            if (!kind) {
                std::fprintf(stderr, "%s\n", kind.error().message.c_str());
                return 2;
            }
            const EstimatorSpec est{*kind, noise.variance()};
            auto first = exactExpectedError(truth, noise, est, spec);  // also the warm-up
            if (!first) {
                std::fprintf(stderr, "%s/%s: %s\n", estText.c_str(), metricText.c_str(),
                             first.error().message.c_str());
                return 1;
            }
            // Calibrate the batch size so one batch lasts about batchSeconds.
            long calls = 1;
            for (;;) {
                const auto start = std::chrono::steady_clock::now();
                for (long c = 0; c < calls; ++c) {
                    auto r = exactExpectedError(truth, noise, est, spec);
                    if (!r) {
                        return 1;
                    }
                }
                if (bench::secondsSince(start) > batchSeconds / 4 || calls >= (1L << 30)) {
                    break;
                }
                calls *= 2;
            }
            calls *= 4;
            double sink = 0;
            std::vector<double> perCall;
            for (int r = 0; r < reps; ++r) {
                const auto start = std::chrono::steady_clock::now();
                for (long c = 0; c < calls; ++c) {
                    sink += exactExpectedError(truth, noise, est, spec)->value;
                }
                perCall.push_back(bench::secondsSince(start) / static_cast<double>(calls));
            }
            const double us = 1e6 * bench::median(perCall);
            std::printf(
                "%-10s %-4s = %.12g (error bound %.2g, method \"%s\"): median %.3f µs/call "
                "(%ld calls x %d batches, min %.3f µs)\n",
                estText.c_str(), metricText.c_str(), first->value, first->errorBound,
                first->method.c_str(), us, calls, reps,
                1e6 * *std::min_element(perCall.begin(), perCall.end()));
            std::printf("RESULT case=exact estimator=%s metric=%s value=%.17g per_call_us=%.4f\n",
                        estText.c_str(), metricText.c_str(), first->value, us);
            if (sink != sink) {
                std::printf("# NaN seen\n");
            }
        }
    }
    return 0;
}
