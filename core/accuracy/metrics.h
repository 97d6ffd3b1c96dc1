// Errors between a true histogram and an estimate.
// Counts scale: SSE = Σ(ĥ−h)², L1 = Σ|ĥ−h|, L∞ = max|ĥ−h|.
// Frequency scale: the same with both divided by the true total N (so SSE/N², L1/N, L∞/N), the
// convention of seed 002's "histogram error" where estimates are frequencies of a known population.
// Wasserstein-1: see wasserstein.h; on the frequency scale it is the distance between the two
// normalised distributions (bin-value units), on the counts scale that times N (records × units).
#pragma once

#include <span>
#include <string>

#include "core/base/expected.h"

namespace dpx {

enum class Metric { SSE, L1, LInf, W1 };
enum class Scale { Counts, Frequencies };

struct MetricSpec {
    Metric metric = Metric::SSE;
    Scale scale = Scale::Counts;
};

const char* metricName(Metric metric);  // "sse" / "l1" / "linf" / "w1"
const char* scaleName(Scale scale);     // "counts" / "frequencies"
Expected<Metric> metricFromName(const std::string& name);
Expected<Scale> scaleFromName(const std::string& name);

double sumSquaredError(std::span<const double> truth, std::span<const double> estimate);
double l1Error(std::span<const double> truth, std::span<const double> estimate);
double maxAbsError(std::span<const double> truth, std::span<const double> estimate);

// Evaluates one metric. `positions` are bin positions (for W1), `trueTotal` the true N (> 0 for the
// frequency scale and for W1). No validation (hot loop); see validateMetricInputs.
double evaluateMetric(const MetricSpec& spec, std::span<const double> truth,
                      std::span<const double> estimate, std::span<const double> positions,
                      double trueTotal);

// Sizes agree, values finite, positions strictly increasing, N > 0 where the metric needs it.
Status validateMetricInputs(const MetricSpec& spec, std::span<const double> truth,
                            std::span<const double> positions);

}  // namespace dpx
