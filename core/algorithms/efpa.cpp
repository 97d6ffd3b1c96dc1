// EFPA — Enhanced Fourier Perturbation Algorithm (Ács, Castelluccia & Chen, "Differentially
// private histogram publishing through lossy compression", ICDM 2012, §IV). 1-D.
// docs/algorithms/efpa.md.
//
// The histogram x (n bins) in the real orthonormal Fourier basis: c₀ = X₀/√n, for 0 < k < n/2
// the pair √2·Re X_k/√n, −√2·Im X_k/√n (basis √(2/n)·cos, √(2/n)·sin), and for even n the
// Nyquist term X_{n/2}/√n, with X = DFT(x) (core/algorithms/fft.h, O(n log n)).
//  1. (ρε) The exponential mechanism chooses the cut-off frequency f ∈ {0, …, ⌊n/2⌋}, keeping the
//     k(f) real coefficients of frequency ≤ f, with utility
//       u(f) = −( ‖x − lowpass_f(x)‖₂ + √(2k)·Δ(f)/ε₂ ),
//     the discarded energy plus the root expected squared error of the noise (the paper's error
//     estimate, in orthonormal units). ‖x − lowpass_f(x)‖₂ is the norm of the projection of x on
//     the discarded subspace, so adding or removing one record moves it by ≤ ‖P e_j‖₂ ≤ 1:
//     Δu = 1, factor ρε/2.
//  2. ((1 − ρ)ε = ε₂) Laplace(Δ(f)/ε₂) on every kept coefficient, the rest set to 0, inverse
//     transform. Δ(f) = k(f)/√n is the L1 sensitivity of the kept coefficients: a change of 1 in
//     x_j moves them by the j-th entries of the kept basis vectors, |1/√n| for c₀ and the Nyquist
//     term and √(2/n)(|cos| + |sin|) ≤ 2/√n per cos/sin pair.
// Privacy: ρε + (1 − ρ)ε = ε by sequential composition (the second step given f).
// The authors' code (run by DPBench) adds Laplace(√k/ε₂) noise to the magnitudes of the kept
// unnormalised coefficients and keeps their exact phases; the phases depend on the data
// unprotected and √k is the L2, not the L1, sensitivity — neither is ε-DP. Here the noise is
// calibrated to the L1 sensitivity on the real and imaginary parts, which is.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "core/algorithms/exponential_choice.h"
#include "core/algorithms/fft.h"
#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"

namespace dpx {

namespace {

class Efpa final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "EFPA",
            "Enhanced Fourier perturbation",
            "Ács, Castelluccia & Chen, ICDM 2012",
            {1},
            true,
            false,
            false,
            {{"rho", 0.5, 0.01, 0.99, false,
              "fraction of ε spent on choosing how many Fourier coefficients to keep (Ács et "
              "al. 2012: ½)"}},
            "docs/algorithms/efpa.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto params = checkAlgorithmContext(info(), context);
        if (!params) {
            return params.error();
        }
        const std::size_t n = context.x.size();
        const double eps1 = params->at("rho") * context.epsilon;
        const double eps2 = context.epsilon - eps1;
        SimulationRng& rng = *context.rng;
        const double rootN = std::sqrt(static_cast<double>(n));

        std::vector<std::complex<double>> spectrum(context.x.begin(), context.x.end());
        spectrum = discreteFourier(std::move(spectrum));
        if (context.stop.stop_requested()) {
            return Error{"EFPA: cancelled"};
        }
        const std::size_t top = n / 2;          // highest frequency
        const std::size_t pairs = (n - 1) / 2;  // frequencies 0 < k < n/2 (cos/sin pairs)
        const bool nyquist = n % 2 == 0 && n >= 2;
        // Energy per frequency in orthonormal units, and the kept count per cut-off.
        std::vector<double> energy(top + 1, 0.0);
        for (std::size_t k = 0; k <= top; ++k) {
            const double e = std::norm(spectrum[k]) / static_cast<double>(n);
            energy[k] = (k == 0 || (nyquist && k == top)) ? e : 2 * e;
        }
        const auto kept = [&](std::size_t f) {
            return 1 + 2 * std::min(f, pairs) + (nyquist && f == top && top > 0 ? 1 : 0);
        };
        std::vector<double> utility(top + 1);
        double tail = 0;  // Σ of the energies above f, accumulated from the top (no cancellation)
        for (std::size_t f = top + 1; f-- > 0;) {
            const auto k = static_cast<double>(kept(f));
            const double sensitivity = k / rootN;
            utility[f] = -(std::sqrt(tail) + std::sqrt(2 * k) * sensitivity / eps2);
            tail += energy[f];
        }
        const std::size_t cut = sampleExponentialMechanism(utility, eps1 / 2, rng);
        const std::size_t k = kept(cut);
        const NoiseDistribution noise =
            NoiseDistribution::laplace(static_cast<double>(k) / rootN / eps2);

        // Noisy kept coefficients, back in unnormalised DFT units; Hermitian symmetry.
        std::vector<std::complex<double>> y(n, 0.0);
        y[0] = spectrum[0].real() + rootN * sampleNoise(noise, rng);
        const double pairScale = rootN / std::sqrt(2.0);
        for (std::size_t f = 1; f <= std::min(cut, pairs); ++f) {
            const double re = spectrum[f].real() + pairScale * sampleNoise(noise, rng);
            const double im = spectrum[f].imag() + pairScale * sampleNoise(noise, rng);
            y[f] = {re, im};
            y[n - f] = {re, -im};
        }
        if (nyquist && cut == top && top > 0) {
            y[top] = spectrum[top].real() + rootN * sampleNoise(noise, rng);
        }
        y = discreteFourier(std::move(y), true);

        AlgorithmRun out;
        out.estimate.resize(n);
        for (std::size_t j = 0; j < n; ++j) {
            out.estimate[j] = y[j].real() / static_cast<double>(n);
        }
        out.spent = {{"number of Fourier coefficients kept (exponential mechanism, Δu = 1)", eps1},
                     {"kept Fourier coefficients (Laplace, L1 sensitivity k/√n)", eps2}};
        out.summary = "EFPA: " + std::to_string(k) + " of " + std::to_string(n) +
                      " Fourier coefficients kept";
        return out;
    }
};

}  // namespace

const Algorithm& efpaAlgorithm() {
    static const Efpa a;
    return a;
}

}  // namespace dpx
