// Post-processing estimators of the true histogram from a noisy release (free of privacy cost).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"

namespace dpx {

enum class EstimatorKind { Identity, Clamp, Resize, NoiseFirst };

const char* estimatorName(EstimatorKind kind);  // "identity" / "clamp" / "resize" / "noisefirst"
Expected<EstimatorKind> estimatorFromName(const std::string& name);

struct EstimatorSpec {
    EstimatorKind kind = EstimatorKind::Identity;
    double noiseVariance = 0;  // per-bin noise variance, needed by NoiseFirst only
    Status validate() const;
};

// Reusable buffers so estimators allocate nothing in Monte Carlo loops.
struct EstimatorWorkspace {
    std::vector<double> scratch;
};

// Checks the spec and that every noisy value is finite and the histogram non-empty.
Expected<std::vector<double>> estimate(const EstimatorSpec& spec, std::span<const double> noisy);

// Hot-loop variant, no validation: `values` holds the noisy counts and receives the estimate.
void estimateInPlace(const EstimatorSpec& spec, std::span<double> values, EstimatorWorkspace& ws);

}  // namespace dpx
