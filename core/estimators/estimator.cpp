#include "core/estimators/estimator.h"

#include <cmath>

#include "core/base/validation.h"
#include "core/estimators/clamp_estimator.h"
#include "core/estimators/noisefirst_estimator.h"
#include "core/estimators/resize_estimator.h"

namespace dpx {

const char* estimatorName(EstimatorKind kind) {
    switch (kind) {
        case EstimatorKind::Identity:
            return "identity";
        case EstimatorKind::Clamp:
            return "clamp";
        case EstimatorKind::Resize:
            return "resize";
        case EstimatorKind::NoiseFirst:
            return "noisefirst";
    }
    return "?";
}

Expected<EstimatorKind> estimatorFromName(const std::string& name) {
    if (name == "identity") {
        return EstimatorKind::Identity;
    }
    if (name == "clamp" || name == "boundary-inflated") {
        return EstimatorKind::Clamp;
    }
    if (name == "resize" || name == "resized") {
        return EstimatorKind::Resize;
    }
    if (name == "noisefirst" || name == "noise-first") {
        return EstimatorKind::NoiseFirst;
    }
    return Error{"unknown estimator '" + name + "' (use identity, clamp, resize or noisefirst)"};
}

Status EstimatorSpec::validate() const {
    if (kind == EstimatorKind::NoiseFirst) {
        return validatePositiveFinite(noiseVariance, "the noise variance of NoiseFirst");
    }
    return okStatus();
}

Expected<std::vector<double>> estimate(const EstimatorSpec& spec, std::span<const double> noisy) {
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    if (noisy.empty()) {
        return Error{"the noisy histogram is empty"};
    }
    for (std::size_t i = 0; i < noisy.size(); ++i) {
        if (!std::isfinite(noisy[i])) {
            return Error{"noisy count " + std::to_string(i + 1) + " is not a finite number"};
        }
    }
    std::vector<double> values(noisy.begin(), noisy.end());
    EstimatorWorkspace ws;
    estimateInPlace(spec, values, ws);
    for (double v : values) {
        if (!std::isfinite(v)) {
            return Error{
                "the estimate overflows double precision (the noisy counts are too large "
                "for their sum to be represented)"};
        }
    }
    return values;
}

void estimateInPlace(const EstimatorSpec& spec, std::span<double> values, EstimatorWorkspace& ws) {
    switch (spec.kind) {
        case EstimatorKind::Identity:
            return;
        case EstimatorKind::Clamp:
            clampInPlace(values);
            return;
        case EstimatorKind::Resize:
            resizeInPlace(values, ws.scratch);
            return;
        case EstimatorKind::NoiseFirst: {
            if (values.size() == 2) {
                // Seed 000 Alg. 1: merge iff (h̃1 − h̃2)²/2 ≤ 2V (|h̃1 − h̃2| ≤ 2√2/ε for Laplace 1/ε).
                const double d = values[0] - values[1];
                if (0.5 * d * d <= 2 * spec.noiseVariance) {
                    const double m = 0.5 * (values[0] + values[1]);
                    values[0] = m;
                    values[1] = m;
                }
                return;
            }
            auto r = noiseFirst(values, spec.noiseVariance);
            if (r) {
                std::copy(r->estimate.begin(), r->estimate.end(), values.begin());
            }
            return;
        }
    }
}

}  // namespace dpx
