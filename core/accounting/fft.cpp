#include "core/accounting/fft.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

namespace dpx::accounting {

void fft(std::vector<std::complex<double>>& a, bool inverse) {
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
    // Butterflies; the twiddles of each stage are computed directly (cos/sin of the exact angle),
    // not by repeated multiplication, so their error does not grow with n.
    std::vector<std::complex<double>> w;
    for (std::size_t len = 2; len <= n; len <<= 1) {
        const std::size_t half = len / 2;
        w.resize(half);
        const double angle = (inverse ? 2 : -2) * std::numbers::pi / static_cast<double>(len);
        for (std::size_t k = 0; k < half; ++k) {
            const double t = angle * static_cast<double>(k);
            w[k] = {std::cos(t), std::sin(t)};
        }
        for (std::size_t i = 0; i < n; i += len) {
            for (std::size_t k = 0; k < half; ++k) {
                const std::complex<double> u = a[i + k];
                const std::complex<double> v = a[i + k + half] * w[k];
                a[i + k] = u + v;
                a[i + k + half] = u - v;
            }
        }
    }
    if (inverse) {
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
        p[k] = (zk * zk - zc * zc) * std::complex<double>(0, -0.25);
    }
    fft(p, true);
    std::vector<double> c(m);
    for (std::size_t i = 0; i < m; ++i) {
        c[i] = p[i].real();
    }
    return c;
}

}  // namespace dpx::accounting
