// The radix-2 FFT and the convolution of core/base/fft.h against the direct sums
// (X_k = Σ_j a_j e^{−2πijk/n}, c_k = Σ_j a_j b_{k−j}) on seeded random inputs.
#include <QTest>

#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "core/base/fft.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestFft : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesDirectDft() {
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> u(-1, 1);
        for (std::size_t n : {1u, 2u, 8u, 64u, 256u}) {
            std::vector<std::complex<double>> a(n);
            for (auto& x : a) {
                x = {u(rng), u(rng)};
            }
            auto f = a;
            fft(f, false);
            for (std::size_t k = 0; k < n; ++k) {
                std::complex<double> s = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    const double t = -2 * std::numbers::pi * static_cast<double>(j * k % n) /
                                     static_cast<double>(n);
                    s += a[j] * std::complex<double>(std::cos(t), std::sin(t));
                }
                DPX_VERIFY_NEAR(std::abs(f[k] - s), 0.0, 1e-12 * static_cast<double>(n));
            }
            fft(f, true);
            for (std::size_t j = 0; j < n; ++j) {
                DPX_VERIFY_NEAR(std::abs(f[j] - a[j]), 0.0, 1e-13);
            }
        }
    }

    void convolutionMatchesDirectSum() {
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> u(0, 1);
        // Sizes on both sides of the direct/FFT switch (64) and not powers of two.
        for (auto [na, nb] : {std::pair{3, 5}, {64, 100}, {65, 65}, {300, 1000}, {1, 700}}) {
            std::vector<double> a(static_cast<std::size_t>(na)), b(static_cast<std::size_t>(nb));
            for (auto& x : a) {
                x = u(rng);
            }
            for (auto& x : b) {
                x = u(rng);
            }
            const auto c = convolve(a, b);
            QCOMPARE(c.size(), a.size() + b.size() - 1);
            for (std::size_t k = 0; k < c.size(); ++k) {
                double s = 0;
                for (std::size_t j = 0; j < a.size(); ++j) {
                    if (k >= j && k - j < b.size()) {
                        s += a[j] * b[k - j];
                    }
                }
                DPX_VERIFY_NEAR(c[k], s, 1e-11);
            }
        }
        QVERIFY(convolve({}, {1.0}).empty());
    }
};

QTEST_APPLESS_MAIN(TestFft)
#include "tst_fft.moc"
