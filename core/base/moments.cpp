#include "core/base/moments.h"

namespace dpx {

std::pair<double, double> meanAndStandardError(const std::vector<double>& v) {
    if (v.empty()) {
        return {std::nan(""), std::nan("")};
    }
    const auto n = static_cast<double>(v.size());
    double mean = 0;
    for (double x : v) {
        mean += x;
    }
    mean /= n;
    double ss = 0;
    for (double x : v) {
        ss += (x - mean) * (x - mean);
    }
    return {mean, v.size() > 1 ? std::sqrt(ss / (n - 1) / n) : std::nan("")};
}

}  // namespace dpx
