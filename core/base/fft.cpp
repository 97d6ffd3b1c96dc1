#include "core/base/fft.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

namespace dpx {

void fft(std::vector<std::complex<double>>& a, bool inverse, bool scaleInverse) {
    const std::size_t n = a.size();
    if (n <= 1) {
        return;
    }
    // Bit-reversal permutation.
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) {
            j ^= bit;
        }
        j ^= bit;
        if (i < j) {
            std::swap(a[i], a[j]);
        }
    }
    // Butterflies. The twiddles e^{∓2πik/n}, k < n/2, are computed once per thread
    // (cos/sin of the exact angle, not by repeated multiplication, so their error does not grow
    // with n), for the largest size seen (sizes are powers of two, so a smaller transform uses a
    // stride through the same table); stage `len` uses every (size/len)-th of them.
    thread_local std::vector<std::complex<double>> table;
    thread_local std::size_t tableSize = 0;
    if (tableSize < n) {
        table.resize(n / 2);
        for (std::size_t k = 0; k < n / 2; ++k) {
            const double t =
                -2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
            table[k] = {std::cos(t), std::sin(t)};
        }
        tableSize = n;
    }
    const double sign = inverse ? -1.0 : 1.0;  // the inverse uses the conjugates
    std::vector<std::complex<double>> w;
    for (std::size_t len = 2; len <= n; len <<= 1) {
        const std::size_t half = len / 2;
        const std::size_t stride = tableSize / len;
        w.resize(half);
        for (std::size_t k = 0; k < half; ++k) {
            const std::complex<double> t = table[k * stride];
            w[k] = {t.real(), sign * t.imag()};
        }
        for (std::size_t i = 0; i < n; i += len) {
            for (std::size_t k = 0; k < half; ++k) {
                // v = a[i+k+half]·w[k], written out: std::complex's operator* checks for
                // infinities and NaNs (C Annex G), several times slower in this loop.
                const double xr = a[i + k + half].real(), xi = a[i + k + half].imag();
                const double wr = w[k].real(), wi = w[k].imag();
                const std::complex<double> v(xr * wr - xi * wi, xr * wi + xi * wr);
                const std::complex<double> u = a[i + k];
                a[i + k] = u + v;
                a[i + k + half] = u - v;
            }
        }
    }
    if (inverse && scaleInverse) {
        const double scale = 1.0 / static_cast<double>(n);
        for (auto& x : a) {
            x *= scale;
        }
    }
}

std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.empty() || b.empty()) {
        return {};
    }
    const std::size_t m = a.size() + b.size() - 1;
    // Sparse inputs (the atoms of randomized response or the geometric mechanism on a fine grid):
    // the direct sum over the non-zero entries when it is cheaper than the transforms.
    std::vector<std::size_t> nzA, nzB;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] != 0) {
            nzA.push_back(i);
        }
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (b[i] != 0) {
            nzB.push_back(i);
        }
    }
    const double fftCost = 32.0 * static_cast<double>(m) * std::log2(static_cast<double>(m) + 2);
    if (static_cast<double>(nzA.size()) * static_cast<double>(nzB.size()) <= fftCost) {
        std::vector<double> c(m, 0.0);
        for (std::size_t i : nzA) {
            for (std::size_t j : nzB) {
                c[i + j] += a[i] * b[j];
            }
        }
        return c;
    }
    if (std::min(a.size(), b.size()) <= 64) {
        std::vector<double> c(m, 0.0);
        for (std::size_t i = 0; i < a.size(); ++i) {
            for (std::size_t j = 0; j < b.size(); ++j) {
                c[i + j] += a[i] * b[j];
            }
        }
        return c;
    }
    std::size_t n = 1;
    while (n < m) {
        n <<= 1;
    }
    // Two real sequences in one complex transform: z = a + ib, Z_k = A_k + iB_k, and
    // A_k B_k = (Z_k² − conj(Z_{n−k})²)/(4i).
    std::vector<std::complex<double>> z(n);
    for (std::size_t i = 0; i < a.size(); ++i) {
        z[i].real(a[i]);
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
        z[i].imag(b[i]);
    }
    fft(z, false);
    std::vector<std::complex<double>> p(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::complex<double> zk = z[k];
        const std::complex<double> zc = std::conj(z[(n - k) & (n - 1)]);
        // (zk² − zc²)·(−i/4), written out (see above).
        const double re = zk.real() * zk.real() - zk.imag() * zk.imag() -
                          (zc.real() * zc.real() - zc.imag() * zc.imag());
        const double im = 2 * zk.real() * zk.imag() - 2 * zc.real() * zc.imag();
        p[k] = {im / 4, -re / 4};
    }
    fft(p, true);
    std::vector<double> c(m);
    for (std::size_t i = 0; i < m; ++i) {
        c[i] = p[i].real();
    }
    return c;
}

}  // namespace dpx
