// Wasserstein-1 (earth mover's) distance between two histograms seen as distributions over ordered
// bins at given positions: W1 = Σ_k |F_p(k) − F_q(k)| · (x_{k+1} − x_k), F the cumulative sums.
// Following seed 002, negative estimates are clamped to 0 and both histograms are normalised to
// total mass 1 before comparing, so unequal totals do not count as error. An estimate with no
// positive mass carries no information about the shape and is compared as the uniform distribution
// over the bins.
#pragma once

#include <span>

namespace dpx {

// Precondition: equal sizes ≥ 1, positions strictly increasing, truth has positive total.
double wasserstein1Normalized(std::span<const double> truth, std::span<const double> estimate,
                              std::span<const double> positions);

}  // namespace dpx
