#include "core/estimators/resize_estimator.h"

#include <algorithm>
#include <functional>

namespace dpx {

void resizeInPlace(std::span<double> values, std::vector<double>& scratch) {
    const std::size_t n = values.size();
    double total = 0;
    for (double v : values) {
        total += v;
    }
    if (!(total > 0)) {
        // {x ≥ 0, Σx = s} is {0} for s = 0 and empty for s < 0; the estimator returns zeros.
        std::fill(values.begin(), values.end(), 0.0);
        return;
    }
    if (n == 2) {
        // Projection onto the segment {(a, s − a) : 0 ≤ a ≤ s}: keep the point if inside.
        const double a = std::clamp(values[0], 0.0, total);
        values[0] = a;
        values[1] = total - a;
        return;
    }
    // Sort descending; τ = (Σ_{r≤ρ} u_r − s)/ρ with ρ the largest j where u_j > (Σ_{r≤j} u_r −
    // s)/j.
    scratch.assign(values.begin(), values.end());
    std::sort(scratch.begin(), scratch.end(), std::greater<>());
    double prefix = 0;
    double tau = 0;
    for (std::size_t j = 0; j < n; ++j) {
        prefix += scratch[j];
        const double t = (prefix - total) / static_cast<double>(j + 1);
        if (scratch[j] - t > 0) {
            tau = t;
        } else {
            break;
        }
    }
    for (double& v : values) {
        v = std::max(v - tau, 0.0);
    }
}

void resizeRows(double* data, std::size_t rows, std::size_t bins, std::vector<double>& scratch) {
    if (bins == 2) {
        for (std::size_t t = 0; t < rows; ++t, data += 2) {
            // Same operations as resizeInPlace for 2 bins, written without branches.
            const double total = data[0] + data[1];
            const double s = total > 0 ? total : 0.0;
            const double a = std::min(std::max(data[0], 0.0), s);
            data[0] = a;
            data[1] = s - a;
        }
        return;
    }
    for (std::size_t t = 0; t < rows; ++t) {
        resizeInPlace(std::span(data + t * bins, bins), scratch);
    }
}

std::vector<double> resizeEstimate(std::span<const double> noisy) {
    std::vector<double> out(noisy.begin(), noisy.end());
    std::vector<double> scratch;
    resizeInPlace(out, scratch);
    return out;
}

}  // namespace dpx
