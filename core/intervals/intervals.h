// Intervals for published counts (issue #22): at a level L in (0, 1), the half-width h with
// Pr[|published − true| ≤ h] ≥ L, so that "published ± h" is an interval for the count before
// noise. For every noise law the release and the window use:
//  - Laplace and Gaussian cells: the exact quantile of |Z| (closed form);
//  - discrete Laplace (two-sided geometric) and discrete Gaussian cells: the smallest integer h
//    with Pr[|Z| ≤ h] ≥ L by exact sums of the probability mass (never below L);
//  - sums of m cells (ranges, marginals): Gaussian exactly, Laplace and discrete Laplace by the
//    exact laws of core/table/query.h (SummedNoise), the discrete Gaussian by exact convolution;
//  - the truncated geometric matrix GM (Ghosh, Roughgarden & Sundararajan 2009), whose noise
//    depends on the true count: the worst case over every true count 0…n, by exact enumeration;
//  - after post-processing (clamp, resize, NoiseFirst) by Monte Carlo on known counts, with its
//    own error stated. Clamping at 0 never moves a value away from a non-negative count, so the
//    noise interval stays valid for clamp without simulation.
// Simultaneous intervals ("all bins at once"): Bonferroni (level 1 − (1 − L)/m per bin, any
// dependence) and the exact max for m independent identically distributed noises (level L^(1/m)
// per bin, since Pr[max|Z_i| ≤ h] = Pr[|Z| ≤ h]^m). A room of its own (not accuracy/): accuracy/
// measures expected errors of estimators; this room turns noise laws into the statements a reader
// of a release gets, and is shared by the release files, dpx and the window.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/noise_distribution.h"
#include "core/count/count_mechanism.h"
#include "core/estimators/estimator.h"

namespace dpx {

enum class CellNoiseKind { Laplace, DiscreteLaplace, Gaussian, DiscreteGaussian };

// The noise one cell receives. Parameter: b (Laplace), α (discrete Laplace: Pr[z] ∝ α^|z|),
// σ (Gaussian), σ² (discrete Gaussian: Pr[z] ∝ exp(−z²/(2σ²)) on the integers, CKS 2020).
struct CellNoise {
    CellNoiseKind kind = CellNoiseKind::Laplace;
    double parameter = 1;
    static CellNoise of(const NoiseDistribution& noise);
    static CellNoise discreteGaussian(double sigma2) {
        return {CellNoiseKind::DiscreteGaussian, sigma2};
    }
    bool isDiscrete() const {
        return kind == CellNoiseKind::DiscreteLaplace || kind == CellNoiseKind::DiscreteGaussian;
    }
    double variance() const;
    // Pr[|Z| > k] (for the discrete laws at integer k ≥ 0; exact sums, see intervals.cpp).
    double absSurvival(double k) const;
    Status validate() const;
    std::string describe() const;  // "discrete Gaussian(σ² = 12.5)"
};

// A level must lie strictly between 0 and 1; the message names the value.
Status validateConfidenceLevel(double level);

struct NoiseInterval {
    double level = 0.95;   // the level stated
    double halfWidth = 0;  // Pr[|published − true| ≤ halfWidth] ≥ level
    double coverage = 0;   // the exact coverage at halfWidth (= level for continuous laws)
    std::string method;    // how it was obtained, with the source
};

// One cell.
Expected<NoiseInterval> cellInterval(const CellNoise& noise, double level);
// The sum of m ≥ 1 independent cells (a range or a marginal cell covering m cells).
Expected<NoiseInterval> sumInterval(const CellNoise& noise, std::uint64_t m, double level);

// Per-bin and simultaneous intervals for `bins` cells with independent noise of one law.
struct TableIntervals {
    std::uint64_t bins = 1;
    NoiseInterval perBin;      // each bin on its own
    NoiseInterval bonferroni;  // all bins at once, per-bin level 1 − (1 − L)/m
    NoiseInterval exactMax;    // all bins at once, per-bin level L^(1/m) (independent, identical)
};
Expected<TableIntervals> tableIntervals(const CellNoise& noise, std::uint64_t bins, double level);

// The same for the truncated geometric matrix (or any count mechanism on {0, …, n}): the half-
// width is the largest over the true counts c = 0…n of the smallest integer h with
// Pr[|Y − c| ≤ h | c] ≥ the per-bin level, by exact enumeration of the matrix's columns. Valid for
// true counts ≤ n. Bins are independent but not identical (their true counts differ), so the
// exact-max level L^(1/m) is applied to the worst column: Π_i Pr[covered_i] ≥ (min_c cov_c)^m ≥ L.
Expected<TableIntervals> countMechanismIntervals(const CountMechanism& mechanism,
                                                 std::uint64_t bins, double level);

// After post-processing, by Monte Carlo on the given true counts (for simulation in the window;
// never in a release, which has no true counts): `trials` noisy copies truth + noise, each
// post-processed, and the empirical `level`-quantiles of |estimate_i − truth_i| (per bin) and of
// max_i |estimate_i − truth_i| (simultaneous). The Monte Carlo error of a coverage is the
// binomial standard error √(L(1 − L)/trials) (stated in `method`).
struct PostProcessedIntervals {
    double level = 0.95;
    std::vector<double> perBin;  // one half-width per bin
    double uniform = 0;          // max of perBin: one ± that covers every bin at the level
    double simultaneous = 0;     // quantile of the largest error over all bins
    std::uint64_t trials = 0;
    double coverageStandardError = 0;  // √(L(1 − L)/trials)
    std::string method;
};
// trials·bins ≤ kMaxPostProcessedCells.
inline constexpr std::uint64_t kMaxPostProcessedCells = 50'000'000;
Expected<PostProcessedIntervals> postProcessedIntervals(EstimatorKind estimator,
                                                        const CellNoise& noise,
                                                        std::span<const double> truth, double level,
                                                        std::uint64_t trials, std::uint64_t seed);

// One draw of the cell noise from the simulation generator (used by the Monte Carlo above and by
// the coverage tests). Discrete Gaussian: rejection from a discrete Laplace (CKS 2020 Algorithm 3,
// in floating point: for simulation only).
class SimulationRng;
double sampleCellNoise(const CellNoise& noise, SimulationRng& rng);

// "95 %" for 0.95, "99.5 %" for 0.995.
std::string levelPercentText(double level);
// A half-width as a plain decimal: an integer as is, otherwise 4 significant digits.
std::string halfWidthText(double halfWidth);
// "With 95 % confidence each published count is within ±7 of the count before noise."
std::string intervalSentence(double level, double halfWidth);

// Linear estimates from noisy measurements (issue #23: least squares on a strategy's integer
// measurements): an estimate aᵀy of a cell or query carries the noise S = Σ_i a_i Z_i with Z_i
// independent draws of `noise` and a the estimate's coefficients. Returns H with
// Pr[|S| ≤ ‖a‖₂·H] ≥ level for EVERY coefficient vector a, so one number serves every cell
// (half-width = H·√(variance form)/√(per-row variance) — the caller multiplies by ‖a‖₂).
//  - Gaussian(σ): S is exactly N(0, σ²‖a‖²): H = σ·√2·erfc⁻¹(1 − level).
//  - discrete Gaussian(σ²): sub-Gaussian with proxy σ² (Canonne, Kamath & Steinke 2020, Cor. 9),
//    so Pr[|S| ≥ h] ≤ 2·exp(−h²/(2σ²‖a‖²)): H = σ·√(2 ln(2/(1 − level))).
//  - Laplace(b) and discrete Laplace(α): a Chernoff bound, Pr[|S| ≥ h] ≤ 2·inf_λ e^(−λh)E[e^(λS)],
//    after a domination we derived: the moment generating function of one draw is
//    1/(1 − c·f(λ²a_i²)) with f convex, increasing and f(0) = 0 (Laplace: c = b², f(v) = v;
//    discrete Laplace: c = 2α/(1 − α)², f(v) = cosh(√v) − 1), so f is superadditive and
//    Π_i (1 − c f(λ²a_i²)) ≥ 1 − Σ_i c f(λ²a_i²) ≥ 1 − c f(λ²‖a‖²): the sum's MGF is at most that
//    of ONE draw scaled by ‖a‖₂. The infimum over λ has a closed form (a quadratic in e^λ for
//    the discrete law) and H is found by bisection, rounded up.
// A bound, so the coverage is ≥ level (tested by simulation and against the exact law of one
// draw, which the bound must never undercut).
Expected<NoiseInterval> linearEstimateInterval(const CellNoise& noise, double level);

// Sampling error next to DP noise (issue #22): a bin count c out of a simple random sample of n
// rows drawn without replacement from a population of N rows, scaled up to the population as
// N·c/n. Its sampling standard error is N·√(p(1 − p)/n · (N − n)/(N − 1)), p = c/n, the finite-
// population-corrected normal approximation (Cochran 1977, Sampling Techniques, §3.2–3.3); the DP
// noise of c is scaled by N/n; the combination is the law of their sum (independent), whose
// quantile is found by numerical integration of the noise against the normal (Gaussian noise:
// exactly √(s² + σ²)).
struct SamplingIntervals {
    double estimate = 0;  // N·c/n
    double sampling = 0;  // half-width of the sampling error alone
    double noise = 0;     // half-width of the scaled DP noise alone
    double combined = 0;  // half-width of their sum
    double samplingStandardError = 0;
    std::string method;
};
// effectiveSampleSize: 0 for a simple random sample (n itself); otherwise the effective sample
// size n_eff ≤ n of a weighted sample (Kish 1965, below), which replaces n in the sampling
// variance — the design effect n/n_eff — while the finite-population correction keeps the real
// sampling fraction n/N. The share p = c/n is still the unweighted one (the release counts rows),
// which is unbiased only when the weights do not vary with the binned attribute.
Expected<SamplingIntervals> samplingIntervals(double count, double sampleSize,
                                              double populationSize, const CellNoise& noise,
                                              double level, double effectiveSampleSize = 0);

// The effective sample size of a weighted sample (Kish 1965, Survey Sampling, §8.2):
// n_eff = (Σw)²/Σw², at most the number of rows n (equal weights: n); the design effect of
// unequal weighting is n/n_eff. Σw estimates the population size. Every weight must be finite
// and > 0 (the message names the first bad one, counting rows from 1).
struct WeightSummary {
    std::uint64_t rows = 0;
    double sumWeights = 0;  // Σw (Kahan-summed)
    double sumSquares = 0;  // Σw²
    double effectiveSampleSize = 0;
    double designEffect = 1;  // n/n_eff ≥ 1
};
Expected<WeightSummary> kishEffectiveSampleSize(std::span<const double> weights);

}  // namespace dpx
