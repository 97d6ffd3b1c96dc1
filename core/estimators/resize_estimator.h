// Resized estimator (seed 000 §2.1.2): the Euclidean projection of the noisy histogram onto
// {x ≥ 0, Σx = Σ noisy}, i.e. x_i = max(0, h̃_i − τ) with τ chosen so the total is kept
// (Duchi et al. 2008, sort-based). If the noisy total is ≤ 0 the set is {0}, and zeros are
// returned. Example (seed 000): [5, 5, −1, 12, −8] → [2, 2, 0, 9, 0].
#pragma once

#include <span>
#include <vector>

namespace dpx {

std::vector<double> resizeEstimate(std::span<const double> noisy);
// Allocation-free variant for hot loops: `scratch` is resized as needed and reused.
void resizeInPlace(std::span<double> values, std::vector<double>& scratch);
// `rows` histograms of `bins` values stored row after row (Monte Carlo blocks); same result as
// resizeInPlace on each row, with a branch-free loop for 2 bins.
void resizeRows(double* data, std::size_t rows, std::size_t bins, std::vector<double>& scratch);

}  // namespace dpx
