#include "core/estimators/clamp_estimator.h"

#include <algorithm>

namespace dpx {

void clampInPlace(std::span<double> values) {
    for (double& v : values) {
        v = std::max(v, 0.0);
    }
}

std::vector<double> clampEstimate(std::span<const double> noisy) {
    std::vector<double> out(noisy.begin(), noisy.end());
    clampInPlace(out);
    return out;
}

}  // namespace dpx
