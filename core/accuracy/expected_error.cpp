#include "core/accuracy/expected_error.h"

#include <cmath>

namespace dpx {

Status TruthModel::validate() const {
    if (counts.empty()) {
        return Error{"the true histogram is empty"};
    }
    double sum = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (!std::isfinite(counts[i]) || counts[i] < 0) {
            return Error{"true count " + std::to_string(i + 1) + " must be finite and ≥ 0"};
        }
        sum += counts[i];
    }
    if (!(sum > 0)) {
        return Error{
            "the true histogram has total 0; errors relative to N and Wasserstein "
            "distances need at least one record"};
    }
    if (positions.size() != counts.size()) {
        return Error{"got " + std::to_string(positions.size()) + " bin positions for " +
                     std::to_string(counts.size()) + " bins"};
    }
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (!std::isfinite(positions[i]) || (i > 0 && !(positions[i] > positions[i - 1]))) {
            return Error{"bin positions must be finite and strictly increasing"};
        }
    }
    return okStatus();
}

double TruthModel::total() const {
    double s = 0;
    for (double c : counts) {
        s += c;
    }
    return s;
}

}  // namespace dpx
