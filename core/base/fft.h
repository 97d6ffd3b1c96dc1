// Fast Fourier transform and linear convolution: the one power-of-two FFT of the program (the
// privacy-loss-distribution accountant, core/accounting/privacy_loss.h; any-length DFTs through
// Bluestein's method, core/algorithms/fft.h). A hand-written iterative radix-2 Cooley–Tukey
// transform (Cooley & Tukey 1965; the bit-reversal / butterfly layout of Press et al., Numerical
// Recipes §12.2): small, dependency free and tested against the direct sums
// (tests/core/base/tst_fft.cpp).
#pragma once

#include <complex>
#include <vector>

namespace dpx {

// In-place DFT of `a` (size a power of two ≥ 1): X_k = Σ_j a_j e^{∓2πi jk/n}, the minus sign for
// the forward transform; the inverse also divides by n (unless scaleInverse is false), so
// inverse(forward(a)) = a.
void fft(std::vector<std::complex<double>>& a, bool inverse, bool scaleInverse = true);

// The linear convolution c_k = Σ_j a_j b_{k−j} (size |a| + |b| − 1; empty if either is empty):
// directly over the non-zero entries when that costs less than the transforms or the shorter
// input has ≤ 64 entries, otherwise by one complex FFT of the packed
// real inputs (a + ib) and its inverse. The FFT's round-off is ~1e-16 × max|c| per entry, so
// entries far below the largest can come out slightly negative; the caller decides what to do
// with them.
std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace dpx
