#include "core/accuracy/wasserstein.h"

#include <algorithm>
#include <cmath>

namespace dpx {

double wasserstein1Normalized(std::span<const double> truth, std::span<const double> estimate,
                              std::span<const double> positions) {
    const std::size_t n = truth.size();
    double tTotal = 0;
    double eTotal = 0;
    for (std::size_t i = 0; i < n; ++i) {
        tTotal += std::max(truth[i], 0.0);
        eTotal += std::max(estimate[i], 0.0);
    }
    const double uniform = 1.0 / static_cast<double>(n);
    double cdfT = 0;
    double cdfE = 0;
    double w = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        cdfT += std::max(truth[i], 0.0) / tTotal;
        cdfE += eTotal > 0 ? std::max(estimate[i], 0.0) / eTotal : uniform;
        w += std::abs(cdfT - cdfE) * (positions[i + 1] - positions[i]);
    }
    return w;
}

}  // namespace dpx
