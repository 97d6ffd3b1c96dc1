// Private mean of n records in [−1, 1]^d (seed 004 §3; seed 003 §1.3): the empirical mean X̄ plus
// noise from the Gaussian, Laplace or K-norm ("gamma") mechanism, with the closed-form expected
// squared error, seed 004's upper and lower bounds, and a seeded Monte Carlo on synthetic data.
//
// Neighbouring relation: one record replaced (n is public, seed 004 §2 and Remark 1). Changing one
// record of [−1, 1]^d moves each coordinate of X̄ by at most 2/n, so
//   L2 sensitivity Δ₂ = 2√d/n,   L1 sensitivity Δ₁ = 2d/n.
// Seed 004's proof of Thm 4 states ‖X̄ − X̄′‖₂² ≤ d/n², i.e. Δ₂ = √d/n: that is half the true value
// (a coordinate can go from −1 to +1). Its σ² = 2d ln(2/δ)/(ε²n²) (eq. 4) is the seed 003 / seed
// 004 Lemma 3 calibration σ = √(2 ln(2/δ))·Δ₂/ε at Δ₂ = √d/n; at the true Δ₂ = 2√d/n the same σ is
// the calibration for 2ε, so eq. (4) as printed is (2ε, δ)-DP. "gaussian-printed" reproduces it and
// says so; "gaussian" calibrates to the true Δ₂ (seed calibration: σ² = 8d ln(2/δ)/(ε²n²)).
//
// Everything here is simulation (SimulationRng): previews and teaching, never an exported release.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/simulation_rng.h"
#include "core/mechanisms/gaussian_mechanism.h"

namespace dpx {

enum class VectorMechanismKind {
    Gaussian,         // N(0, σ²I), σ from GaussianCalibration at Δ₂ = 2√d/n: (ε, δ)-DP
    GaussianPrinted,  // seed 004 eq. (4) as printed, σ² = 2d ln(2/δ)/(ε²n²): (2ε, δ)-DP
    Laplace,          // iid Laplace(b), b = Δ₁/ε = 2d/(nε): ε-DP (seed 003 Prop 1.3.1)
    KNorm,  // density ∝ exp(−ε‖z‖₂/Δ₂), the "gamma" mechanism: ε-DP (seed 003 §1.3)
};

// "gaussian" / "gaussian-printed" / "laplace" / "knorm".
const char* vectorMechanismName(VectorMechanismKind kind);
Expected<VectorMechanismKind> vectorMechanismFromName(const std::string& name);

// Which mechanism; the privacy level is given separately (VectorMeanParams, TracingAttackParams).
struct VectorMechanismSpec {
    VectorMechanismKind kind = VectorMechanismKind::Gaussian;
    GaussianCalibration calibration = GaussianCalibration::Analytic;  // kind Gaussian only
};

// Upper limits on the sizes accepted (memory and time of one call, not mathematics).
inline constexpr std::size_t kMaxVectorDimension = 1'000'000;

struct VectorMeanParams {
    std::size_t n = 100;  // records, ≥ 1
    std::size_t d = 10;   // dimension, 1 … kMaxVectorDimension
    double epsilon = 1;   // finite, > 0
    double delta = 1e-6;  // (0, 1); used by the Gaussian kinds only (the others are pure ε-DP)
    VectorMechanismSpec mechanism;
    Status validate() const;
};

// A calibrated mean mechanism: what it adds and what it guarantees.
struct VectorMeanMechanism {
    VectorMechanismSpec spec;
    std::size_t n = 0;
    std::size_t d = 0;
    double l1Sensitivity = 0;  // 2d/n
    double l2Sensitivity = 0;  // 2√d/n
    // σ (Gaussian kinds), b (Laplace), θ = Δ₂/ε the scale of the Gamma(d, θ) radius (K-norm).
    double scale = 0;
    double epsilon = 0;  // the guarantee actually met (2ε for GaussianPrinted)
    double delta = 0;    // 0 for the pure mechanisms
    // E‖Z‖² of the added noise Z (closed forms): dσ²; d·2b²; d(d + 1)θ² (E r² of Gamma(d, θ)).
    double expectedSquaredNoise = 0;
    std::string guarantee;              // one sentence
    std::vector<std::string> warnings;  // never errors
};

// Errors: parameters invalid; a Gaussian σ refused by calibrateGaussian (not (ε, δ)-DP by the exact
// privacy profile, e.g. the seed formula at large ε).
Expected<VectorMeanMechanism> calibrateVectorMean(const VectorMeanParams& params);

// One noise vector: out.size() must equal mechanism.d (std::invalid_argument otherwise).
//  Gaussian: σ·N(0, 1) per coordinate, in order (identical to d calls of σ·rng.normal()).
//  Laplace: b·Exp(1) with a random sign per coordinate.
//  K-norm: z = r·u with r ~ Gamma(d, θ) drawn exactly as θ·(E₁ + … + E_d), E_k ~ Exp(1) iid (a sum
//    of d exponentials is Gamma(d, 1)), and u = g/‖g‖ for g ~ N(0, I_d), uniform on the sphere by
//    rotation invariance. Why this is the density ∝ exp(−‖z‖/θ): in polar coordinates z = r·u the
//    volume element is r^{d−1} dr dσ(u), and the density depends on r only, so r and u are
//    independent, u is uniform and r has density ∝ r^{d−1} e^{−r/θ}: Gamma(shape d, scale θ)
//    (seed 003 §1.3.1, "Noise Generation", with Σ = I).
void sampleVectorNoise(const VectorMeanMechanism& mechanism, SimulationRng& rng,
                       std::span<double> out);

// Noisy mean of `records` (row-major, n rows of d values, each in [−1, 1], finite): X̄ + Z.
// Errors name the offending row and column; a size that is not mechanism.n·mechanism.d.
Expected<std::vector<double>> noisyMean(std::span<const double> records,
                                        const VectorMeanMechanism& mechanism, SimulationRng& rng);

// ---- Seed 004 bounds on E‖M(X) − μ‖² (population loss, X₁…X_n iid in [−1, 1]^d) ----------------

// Theorem 4 as printed: d/n + 2d² ln(2/δ)/(ε²n²) (= d/n + d·σ² for σ of eq. 4, which is (2ε, δ)-DP
// here, see above). Unchecked kernel: n, d ≥ 1, ε > 0, δ ∈ (0, 1).
double meanUpperBoundPrinted(std::size_t n, std::size_t d, double epsilon, double delta);
// Theorem 4 with Δ₂ = 2√d/n: d/n + 8d² ln(2/δ)/(ε²n²), the error bound of the (ε, δ)-DP Gaussian
// mechanism with the seed calibration (d/n bounds the sampling term, Var ≤ 1 per coordinate).
double meanUpperBound(std::size_t n, std::size_t d, double epsilon, double delta);
// Theorem 5: every (ε, δ)-DP mechanism has max over product distributions on {±1}^d (indeed the
// average over μ ~ U[−1, 1]^d) of E‖M(X) − μ‖² ≥ min{d/6, d²/(2304 ε²n²)}, valid only for
// δ < 1/(96n) (the proof needs 8nδd ≤ d/12). The theorem is for outputs in [−1, 1]^d; clipping to
// that box never increases the error (μ lies in it), so it bounds unclipped mechanisms too.
// Errors: n, d < 1; ε not finite > 0; δ not in [0, 1/(96n)) (the message says why).
Expected<double> meanLowerBound(std::size_t n, std::size_t d, double epsilon, double delta);

struct MeanEstimationBounds {
    double samplingWorstCase = 0;  // d/n: max over P of E‖X̄ − μ‖² (seed 004 eq. 1)
    double upperPrinted = 0;       // meanUpperBoundPrinted
    double upper = 0;              // meanUpperBound
    std::optional<double> lower;   // meanLowerBound at the mechanism's guarantee, when valid
    std::string lowerNote;         // why `lower` is absent (empty when present)
};

// The bounds for a mechanism's setting: upper bounds at the requested (ε, δ), the lower bound at
// the guarantee the mechanism meets (ε, 0 for the pure ones; 2ε for GaussianPrinted).
Expected<MeanEstimationBounds> meanEstimationBounds(const VectorMeanParams& params);

// ---- Monte Carlo on synthetic data -------------------------------------------------------------

enum class MeanPopulation {
    FixedBias,     // every coordinate ±1 with mean `bias` (P(+1) = (1 + bias)/2)
    UniformPrior,  // seed 004's hard prior: μ ~ U[−1, 1]^d afresh each trial, then ±1 records
};
const char* meanPopulationName(MeanPopulation p);  // "bias" / "uniform-prior"
Expected<MeanPopulation> meanPopulationFromName(const std::string& name);

struct MeanSimulationParams {
    VectorMeanParams release;
    MeanPopulation population = MeanPopulation::FixedBias;
    double bias = 0;  // in [−1, 1], FixedBias only
    std::size_t trials = 1000;
    std::uint64_t seed = 1;
    Status validate() const;
};

// A Monte Carlo mean with its standard error (sample sd / √trials).
struct McEstimate {
    double mean = 0;
    double standardError = 0;
};

struct MeanSimulationResult {
    VectorMeanMechanism mechanism;
    MeanEstimationBounds bounds;
    // Closed forms: sampling E‖X̄ − μ‖² = Σ_j (1 − μ_j²)/n, i.e. d(1 − bias²)/n, or 2d/(3n) under
    // the uniform prior (E(1 − μ²) = 2/3); noise = mechanism.expectedSquaredNoise; total = their
    // sum (the noise has mean 0 and is independent of X̄).
    double expectedSampling = 0;
    double expectedNoise = 0;
    double expectedTotal = 0;
    McEstimate sampling;  // ‖X̄ − μ‖²
    McEstimate noise;     // ‖M(X) − X̄‖²
    McEstimate total;     // ‖M(X) − μ‖²
    std::vector<std::string> warnings;
};

// Trial t uses SimulationRng(seed, t): μ (uniform prior), X̄ coordinate by coordinate as
// (2·Binomial(n, (1 + μ_j)/2) − n)/n (exactly the mean of n ±1 records), then the noise. Cost
// O(trials·d). Errors: parameters invalid, trials·d > 4e9.
Expected<MeanSimulationResult> simulateMeanError(const MeanSimulationParams& params);

}  // namespace dpx
