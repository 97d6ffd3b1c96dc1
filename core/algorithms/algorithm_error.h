// The error of an algorithm on a table and workload over many trials (issue #20): what the
// Workbench tab plots and dpx bench prints — the mean of each metric with its standard error
// over T independent runs (trials in parallel on the one trials engine, core/base/trial_blocks,
// reproducible for a seed whatever the thread count), and for data-independent algorithms with
// least squares also the exact expected squared error (core/workload/strategy.h).
//
// CONTRACT (issue #20; implemented by helper "cli").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/workload/workload_error.h"

namespace dpx {

struct MeanWithError {
    double mean = 0;
    double standardError = 0;  // sample sd (n − 1) / √T; 0 when T = 1
};

struct AlgorithmErrorRequest {
    const Algorithm* algorithm = nullptr;
    DomainShape shape;
    std::span<const double> x;  // the (already scaled / coarsened) data vector
    const Workload* workload = nullptr;
    double epsilon = 1;
    std::map<std::string, double> parameters;
    std::uint64_t trials = 5;  // 1 ≤ T ≤ 10^6
    std::uint64_t seed = 1;    // trial t uses stream t of this seed
    double scale = 0;          // m for DPBench's scaled errors; 0 = Σx
    unsigned threads = 0;      // 0 = hardware
    // Also compute exactRmse (data-independent algorithms); false skips it, for a caller that
    // computes it once per shape, workload and ε with exactAlgorithmRmse (dpx bench).
    bool exactError = true;
    // Optional: one more error of every trial's estimate x̂ against x, averaged like the others
    // into AlgorithmErrorResult::extra (the Trade-off tab's histogram metrics: SSE, L1, L∞, W1 of
    // x̂ − x, core/choosing/tradeoff.h). Called on the worker threads: must be thread-safe.
    std::function<double(std::span<const double> estimate)> extraMetric = nullptr;
    // Gaussian measurement at (ε, δ): info().gaussian algorithms only (AlgorithmContext). Last,
    // so that positional initialisations of the fields above keep their meaning.
    MeasurementNoise measurement = MeasurementNoise::Laplace;
    double delta = 0;
};

struct AlgorithmErrorResult {
    MeanWithError scaledL2, scaledL1, scaledLinf, rmse;
    double secondsMedian = 0;  // median wall time of one run (selection, measurement, inference)
    // Median CPU time of the thread that ran it (the runs are single-threaded): what one run
    // costs whatever else the machine is doing.
    double cpuSecondsMedian = 0;
    std::uint64_t trials = 0;
    std::optional<double> exactRmse;    // √(E‖W x̂ − W x‖²/q): data-independent + LS only
    std::string summary;                // the first trial's AlgorithmRun::summary
    std::vector<double> firstEstimate;  // x̂ of trial 0 (for "show this algorithm's output")
    std::optional<MeanWithError> extra;  // the request's extraMetric, when given
};

// √(E‖W x̂ − W x‖²/q) of a data-independent algorithm answered by least squares on its strategy
// (strategy.h, exact); nullopt for a data-dependent algorithm or where the strategy or the exact
// computation is not available for this shape and workload.
std::optional<double> exactAlgorithmRmse(const Algorithm& algorithm, const DomainShape& shape,
                                         const Workload& w, double epsilon);
// The same under `spec`: Laplace as above; Gaussian (analytic, Balle & Wang 2018) for the
// strategy an info().gaussian algorithm designs for it, nullopt for the others.
std::optional<double> exactAlgorithmRmse(const Algorithm& algorithm, const DomainShape& shape,
                                         const Workload& w, const MeasurementSpec& spec);

Expected<AlgorithmErrorResult> algorithmError(const AlgorithmErrorRequest& request,
                                              const ProgressCallback& progress = {},
                                              std::stop_token stop = {});

}  // namespace dpx
