// Discrete Fourier transform of any length in O(n log n): iterative radix-2 Cooley–Tukey for
// powers of two, Bluestein's chirp-z convolution (Bluestein 1970) through a power-of-two
// transform for the other lengths. Used by EFPA (core/algorithms/efpa.cpp).
#pragma once

#include <complex>
#include <vector>

namespace dpx {

// X_k = Σ_j x_j·e^{−2πi·jk/n} (inverse = false) or Σ_j x_j·e^{+2πi·jk/n} (inverse = true,
// unscaled: divide by n for the inverse transform). Any n ≥ 1; n = 0 returns empty.
std::vector<std::complex<double>> discreteFourier(std::vector<std::complex<double>> x,
                                                  bool inverse = false);

}  // namespace dpx
