// Boundary-inflated estimator (seed 000 §2.1.1): max(0, h̃) per bin.
// Example (seed 000): [5, 5, −1, 12, −8] → [5, 5, 0, 12, 0].
#pragma once

#include <span>
#include <vector>

namespace dpx {

std::vector<double> clampEstimate(std::span<const double> noisy);
void clampInPlace(std::span<double> values);

}  // namespace dpx
