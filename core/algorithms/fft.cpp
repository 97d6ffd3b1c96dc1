// Discrete Fourier transform of any length (radix-2 Cooley–Tukey, Bluestein otherwise).
#include "core/algorithms/fft.h"

#include <cmath>
#include <numbers>

#include "core/base/fft.h"

namespace dpx {

namespace {

using Complex = std::complex<double>;

// In place, n a power of two; sign −1 forward, +1 inverse (unscaled): the one radix-2 FFT
// (core/base/fft.h).
void radix2(std::vector<Complex>& a, double sign) {
    fft(a, sign > 0, false);
}

}  // namespace

std::vector<Complex> discreteFourier(std::vector<Complex> x, bool inverse) {
    const std::size_t n = x.size();
    const double sign = inverse ? 1.0 : -1.0;
    if (n <= 1) {
        return x;
    }
    if ((n & (n - 1)) == 0) {
        radix2(x, sign);
        return x;
    }
    // Bluestein: jk = (j² + k² − (k − j)²)/2, so X_k = w_k·Σ_j (x_j·w_j)·conj(w_{k−j}) with
    // w_m = e^{sign·iπm²/n}: a convolution, done by power-of-two transforms of length ≥ 2n − 1.
    std::size_t m = 1;
    while (m < 2 * n - 1) {
        m <<= 1;
    }
    std::vector<Complex> chirp(n);
    for (std::size_t j = 0; j < n; ++j) {
        // m² mod 2n keeps the angle small and exact for large j.
        const auto sq = static_cast<double>((j * j) % (2 * n));
        chirp[j] = std::polar(1.0, sign * std::numbers::pi * sq / static_cast<double>(n));
    }
    std::vector<Complex> a(m, 0.0), b(m, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
        a[j] = x[j] * chirp[j];
    }
    b[0] = std::conj(chirp[0]);
    for (std::size_t j = 1; j < n; ++j) {
        b[j] = b[m - j] = std::conj(chirp[j]);
    }
    radix2(a, -1);
    radix2(b, -1);
    for (std::size_t i = 0; i < m; ++i) {
        a[i] *= b[i];
    }
    radix2(a, 1);
    const double scale = 1 / static_cast<double>(m);
    for (std::size_t k = 0; k < n; ++k) {
        x[k] = a[k] * scale * chirp[k];
    }
    return x;
}

}  // namespace dpx
