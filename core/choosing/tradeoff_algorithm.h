// The workload algorithms of issue #20 as trade-off configurations (core/choosing/tradeoff.h,
// "Workload algorithms"): the pieces tradeoff.cpp calls. Internal to core/choosing.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/base/expected.h"
#include "core/choosing/tradeoff.h"
#include "core/histogram/histogram.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpx::detail {

// The divisor that puts an error on the metric's scale: 1 on counts; N² (SSE) or N (the others)
// on frequencies. The one copy for every trade-off configuration.
double metricScaleDivisor(const MetricSpec& metric, double total);

// The checks that need no histogram: known id, identity estimator, parameters, sensitivity.
Status validateAlgorithmConfig(const TradeoffConfig& config);

// Everything a point needs, built once per curve: the algorithm, the cells' shape, the identity
// workload, x, the bin positions and total (metrics), and the strategy when the curve is exact.
struct AlgorithmSetup {
    const Algorithm* algorithm = nullptr;
    DomainShape shape;
    std::shared_ptr<const Workload> identity;
    std::vector<double> x;
    std::vector<double> positions;
    double total = 0;
    std::shared_ptr<const LinearStrategy> strategy;  // non-null: exact SSE available
};

// Errors: the configuration (validateAlgorithmConfig), a shape that does not match the bins, a
// 2-D algorithm on a 1-D histogram and the reverse.
Expected<AlgorithmSetup> prepareAlgorithm(const Histogram& truth, const TradeoffConfig& config);

// One point: exact (setup.strategy, SSE, not forceMonteCarlo) or Monte Carlo by algorithmError.
// `progress` gets the fraction of this point done.
CurvePoint algorithmPoint(const AlgorithmSetup& setup, const TradeoffConfig& config, double epsilon,
                          const CurveOptions& options, const std::function<void(double)>& progress);

// The exact error at ε, or the reason there is none (for the accuracy-first solver).
Expected<double> algorithmExactError(const AlgorithmSetup& setup, const TradeoffConfig& config,
                                     double epsilon);

}  // namespace dpx::detail
