// Partial moments of the noise laws: E[Z^k ; lo < Z ≤ hi] for k = 0, 1, 2, in closed form
// (Laplace: ∫ z^k e^{−z/b}/(2b); Gaussian: Φ and φ; discrete Laplace: geometric tail sums
// Σ_{j≥m} j^k α^j). lo may be −∞ and hi +∞. The exact error methods are built on these.
#pragma once

#include "core/base/noise_distribution.h"

namespace dpx::detail {

double partialMoment(const NoiseDistribution& noise, int k, double lo, double hi);

// m[k] = partialMoment(noise, k, lo, hi) for k = 0, 1, 2, sharing the exponentials.
void partialMoments012(const NoiseDistribution& noise, double lo, double hi, double m[3]);

}  // namespace dpx::detail
