// Differentially private kernel density estimate released as a function (seed 003 ch. 3, §3.3.1;
// Hall, Rinaldo & Wasserman 2013): on a grid x_1 … x_m,
//   f̃(x) = f_D(x) + (c(δ)·Δ/ε)·G(x),   f_D(x) = (1/n) Σ_i (2πh²)^(−1/2) exp(−(x − x_i)²/(2h²)),
// with G a centred Gaussian process of covariance K(x, y) = exp(−(x − y)²/(2h²)),
// Δ = √2/(n (2πh²)^(1/2)) the RKHS sensitivity of f_D for one record replaced, and
// c(δ) = √(2 ln(2/δ)). Pointwise the noise sd is c(δ)Δ/ε (K(x, x) = 1).
//
// Misprint in the seed: the "batch method" of §3.2 prints the covariance of the released vector as
// (c(δ)Δ/ε)·K, but it is the Gaussian mechanism of Prop 1.3.3 with Σ = K on the grid, whose
// density exp{−½ (ε/(cΔ))² (x − θ)ᵀK⁻¹(x − θ)} has covariance (c(δ)Δ/ε)²·K: G is scaled by
// c(δ)Δ/ε (the sd), as implemented. The Mahalanobis distance ‖f_D − f_D′‖_K on any finite grid is
// at most the RKHS distance Δ (seed 003 §3.2), so the release is the scalar Gaussian mechanism with
// sensitivity Δ and σ = c(δ)Δ/ε; Prop 1.3.3 proves (ε, δ) only for ε ≤ 1, so the σ is checked
// against the exact privacy profile (core/mechanisms/gaussian_mechanism.h) and refused where it
// fails.
//
// Everything here uses SimulationRng: previews and teaching, not an exported release.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/mechanisms/gaussian_mechanism.h"

namespace dpx {

inline constexpr std::size_t kMinKdeGridPoints = 2;
inline constexpr std::size_t kMaxKdeGridPoints = 2000;
inline constexpr std::size_t kMaxKdeSamples = 1000;

struct FunctionalKdeParams {
    double bandwidth = 0.1;         // h, finite > 0
    double gridLo = 0;              // finite
    double gridHi = 1;              // finite, > gridLo
    std::size_t gridPoints = 1000;  // 2 … 2000, evenly spaced from gridLo to gridHi inclusive
    double epsilon = 1;             // finite > 0
    double delta = 0.1;             // (0, 1)
    std::size_t samples = 3;        // sampled releases, 1 … 1000
    std::uint64_t seed = 1;         // release k uses SimulationRng(seed, k)
    // How the scale of G is chosen: Seed (default) is seed 003's c(δ)Δ/ε; Analytic is the
    // smallest σ whose exact profile reaches (ε, δ) for sensitivity Δ (Balle & Wang 2018 Thm 8),
    // valid at any ε; Classic is Δ·√(2 ln(1.25/δ))/ε. Every σ is checked against the exact profile.
    GaussianCalibration calibration = GaussianCalibration::Hall;
    Status validate() const;
};

// Δ = √2/(n·√(2π)·h) (seed 003 §3.3.1, d = 1). Unchecked kernel: n ≥ 1, h > 0.
double kdeSensitivity(std::size_t n, double bandwidth);
// c(δ) = √(2 ln(2/δ)) (seed 003 eq. 1.9). Unchecked kernel: δ ∈ (0, 1).
double kdeCDelta(double delta);
// The pointwise noise sd c(δ)·Δ/ε. Seed 003 Fig. 3.2: n = 100, h = 0.1, ε = 1, δ = 0.1 → 0.138099.
Expected<double> kdeNoiseScale(std::size_t n, double bandwidth, double epsilon, double delta);

// The true KDE on `grid`. Errors: data empty or not finite, h not finite > 0, grid not finite.
Expected<std::vector<double>> kernelDensity(std::span<const double> data, double bandwidth,
                                            std::span<const double> grid);

// The true KDE on the evenly spaced grid lo, lo + s, …, hi (m ≥ 2 points, s = (hi − lo)/(m − 1)),
// fast: each data point adds its kernel only within ±9h (terms dropped are below
// e^(−40.5) ≈ 2.6·10⁻¹⁸ of the kernel's peak), and along the grid the kernel is advanced by the
// recurrence e_{j+1} = e_j·r_j, r_{j+1} = r_j·e^(−s²/h²), re-anchored with exp every 64 steps
// (relative error ~10⁻¹⁴). O(n·min(m, 18h/s)) multiply-adds instead of n·m exponentials: 0.5 s
// instead of 30 s for n = 10⁶, m = 2000. Same errors as kernelDensity, and "cancelled" when
// `stop` is requested (checked every 4096 data points); `progress` gets the fraction done.
Expected<std::vector<double>> kernelDensityOnGrid(std::span<const double> data, double bandwidth,
                                                  double lo, double hi, std::size_t m,
                                                  const std::stop_token& stop = {},
                                                  const std::function<void(double)>& progress = {});

// Silverman's rule of thumb h = 0.9·min(s, IQR/1.34)·n^(−1/5) (Silverman 1986, eq. 3.31), with
// s the sample standard deviation (n − 1) and IQR the distance between the 25 % and 75 % sample
// quantiles (linear interpolation); s alone when the IQR is 0. A hint for choosing h: it is
// computed from the data, so a value chosen this way is not itself private.
// Errors: fewer than 2 values, a value not finite, every value equal (h would be 0).
Expected<double> silvermanBandwidth(std::span<const double> data);

// A factor L (m × rank, column-major) with L·Lᵀ ≈ K on the grid, by pivoted Cholesky stopped at
// tolerance τ (Harbrecht, Peters & Schneider 2012, "On the low-rank approximation by the pivoted
// Cholesky decomposition"): at each step the column of the largest remaining diagonal is
// eliminated; it stops when that diagonal is ≤ τ. The residual R = K − L·Lᵀ is the Schur
// complement, positive semidefinite, so |R_ij| ≤ √(R_ii R_jj) ≤ τ for every entry: the sampled
// covariance differs from K by at most τ anywhere. Why not plain Cholesky: K on a fine grid is
// numerically singular (its eigenvalues decay like exp(−c·j²h²)), so Cholesky fails without
// jitter, and jitter changes the covariance by an unmeasured amount; the pivoted form needs none,
// costs O(m·rank²) instead of O(m³), and rank is small (31 for Fig. 3.2: 1000 points of [0, 1], h =
// 0.1).
struct GaussianKernelFactor {
    std::size_t points = 0;
    std::size_t rank = 0;
    std::vector<double> factor;  // points × rank, column-major
    double maxResidual = 0;      // largest remaining diagonal at the stop (bound on every |R_ij|)
};
inline constexpr double kDefaultKernelTolerance = 1e-12;
// Errors: grid empty or not finite, h not finite > 0, τ not finite or < 0; "cancelled" when
// `stop` is requested (checked at every pivot).
Expected<GaussianKernelFactor> factorGaussianKernel(std::span<const double> grid, double bandwidth,
                                                    double tolerance = kDefaultKernelTolerance,
                                                    const std::stop_token& stop = {});

struct FunctionalKdeResult {
    std::vector<double> grid;
    std::vector<double> trueKde;                // f_D on the grid
    std::vector<std::vector<double>> releases;  // `samples` sampled f̃ on the grid
    std::size_t n = 0;
    double sensitivity = 0;  // Δ
    double cDelta = 0;       // c(δ)
    double noiseScale = 0;   // the pointwise sd σ: c(δ)Δ/ε with the seed's calibration
    std::size_t factorRank = 0;
    double covarianceError = 0;  // bound on |sampled covariance − (noiseScale)²·K| entries
    std::vector<std::string> warnings;
};

// Errors: parameters invalid (message names the parameter), data empty or not finite; "cancelled"
// when `stop` is requested (checked between blocks of grid points, at every pivot of the factor
// and between releases). `progress` gets the fraction done in [0, 1] (the true KDE, O(n·m), is
// most of the work for large n; the factor, O(m·rank²), for small h).
Expected<FunctionalKdeResult> releaseFunctionalKde(
    std::span<const double> data, const FunctionalKdeParams& params,
    const std::stop_token& stop = {}, const std::function<void(double)>& progress = {});

// Two clusters, the data of Hall 2012 Fig. 3.2 (seed 003): n points from an equal mixture of
// N(0.3, s²) and N(0.7, s²). The thesis does not give s; s = 0.1 by default. Draws from
// SimulationRng(seed, kTwoClusterSampleStream), a stream no release uses (releases use streams
// 0 … samples − 1), so one seed can drive both.
// Errors: n < 1 or > 10⁷, s not finite > 0.
inline constexpr std::uint64_t kTwoClusterSampleStream = std::uint64_t{1} << 62;
Expected<std::vector<double>> twoClusterSample(std::size_t n = 100, std::uint64_t seed = 1,
                                               double spread = 0.1);

}  // namespace dpx
