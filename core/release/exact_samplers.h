// Exact samplers for releases (issue #8), following Canonne, Kamath & Steinke, "The Discrete
// Gaussian for Differential Privacy", NeurIPS 2020 (CKS below), Algorithms 1–3. Every sampler uses
// integer and rational arithmetic only (Boost.Multiprecision cpp_int): no floating point and no
// libm call decides an output, so the law of the output is exactly the stated one given uniform
// random bits. Parameters are exact rationals, built from the user's decimal text (parseDecimal:
// "0.1" is exactly 1/10) or from a double's exact binary value (Rational::fromDouble).
//
// Bits come from a RandomBits (core/release/release_rng.h). The sample* functions are the building
// blocks and take any RandomBits so that tests can script the bits; a release must call the
// release* entry points at the end of this file, which accept only ReleaseRandomness (the OS
// CSPRNG).
//
// Bit order: a draw of b bits takes the next b bits of the stream, most significant first, where
// the stream is the 64-bit words of next64() one after another, each read from bit 63 down to bit
// 0. Every single-draw call starts on a fresh word (the unread rest of its last word is dropped);
// the count-taking overloads read their draws from one continuous stream.
//
// Failure: if next64() returns an Error, the sampler stops at once and returns that Error (with a
// sentence saying no output was produced); nothing drawn so far is returned. Integer draws are
// returned as int64: a draw outside that range (probability below e^(−9·10^6) at the largest
// accepted scale) is an Error too, never a wrapped value.
//
// The discrete Gaussian's (ε, δ) is analysis, not sampling: discreteGaussianDelta computes it in
// long double and rounds up, see there.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/expected.h"
#include "core/count/count_mechanism.h"
#include "core/release/release_rng.h"

namespace dpx {

using BigInt = boost::multiprecision::cpp_int;

// Largest bit length of a numerator or denominator the samplers and parsers accept: 4096 bits
// (about 1233 decimal digits) holds every finite double exactly (at most 1075 bits) and every
// decimal parseDecimal accepts.
inline constexpr unsigned kMaxRationalBits = 4096;

// An exact rational number p/q with q > 0 and gcd(p, q) = 1. Value type; the default is 0.
class Rational {
public:
    Rational() = default;
    // p/q reduced to lowest terms with a positive denominator. Error if q = 0.
    static Expected<Rational> fraction(const BigInt& p, const BigInt& q);
    static Rational integer(const BigInt& value);
    // The exact value of a finite double (every finite double is m·2^e, a dyadic rational): the
    // double nearest 0.1 gives 3602879701896397/36028797018963968, not 1/10; parse the decimal
    // text with parseDecimal for 1/10. Error for NaN and ±infinity.
    static Expected<Rational> fromDouble(double value);

    const BigInt& numerator() const { return num_; }
    const BigInt& denominator() const { return den_; }
    int sign() const { return num_.sign(); }
    bool isInteger() const { return den_ == 1; }
    // "3", "-7/2": numerator/denominator in lowest terms (exact; what metadata should record).
    std::string toString() const;
    // A nearby double, for display and floating-point analysis only (never for sampling). Correct
    // to about 1 ulp; ±HUGE_VAL or 0 outside the double range.
    double toDouble() const;

    friend bool operator==(const Rational& a, const Rational& b) = default;
    friend std::strong_ordering operator<=>(const Rational& a, const Rational& b);

private:
    Rational(BigInt p, BigInt q) : num_(std::move(p)), den_(std::move(q)) {}
    BigInt num_{0};
    BigInt den_{1};
};

// Exact rational value of decimal text: an optional sign, digits with an optional decimal point
// (at least one digit in all), and an optional exponent e/E with an optional sign and at most 4
// digits, |exponent| ≤ 1000; at most 1000 characters. No spaces, no thousands separators, no
// "inf"/"nan", no hexadecimal, no fractions. "0.1" → 1/10, "2.5e-3" → 1/400, "-3" → −3. `name`
// (e.g. "epsilon") starts the error message: "epsilon: '0,1' is not a decimal number (...)".
Expected<Rational> parseDecimal(std::string_view text, std::string_view name = "value");

// ---------------------------------------------------------------------------------------------
// Building blocks. All take any RandomBits; releases use the release* functions below.

// Uniform on {0, …, m−1} for 1 ≤ m < 2^kMaxRationalBits: draws b = bitlength(m−1) bits and rejects
// values ≥ m (no modulo bias; at most 2 draws expected). m = 1 returns 0 and reads no bits.
Expected<BigInt> sampleUniformBelow(const BigInt& m, RandomBits& bits);

// Bernoulli(p) for rational 0 ≤ p ≤ 1, p = a/b: true iff a uniform draw on {0, …, b−1} is < a.
// p = 0 and p = 1 read no bits.
Expected<bool> sampleBernoulli(const Rational& p, RandomBits& bits);

// Bernoulli(exp(−γ)) for rational γ ≥ 0 (CKS Algorithm 1). For γ ≤ 1: K = 1, 2, … while
// Bernoulli(γ/K) succeeds; return [K is odd], which has probability Σ_k (−γ)^k/k! = e^(−γ). For
// γ > 1: ⌊γ⌋ draws of Bernoulli(e^(−1)) (stop at the first false), then Bernoulli(e^(−(γ−⌊γ⌋))).
Expected<bool> sampleBernoulliExp(const Rational& gamma, RandomBits& bits);

// Geometric on {0, 1, …}: Pr[k] = (1 − e^(−γ))·e^(−γk) for rational γ = s/t > 0 with
// γ ≥ 10^−12 (steps 1–6 of CKS Algorithm 2: U uniform on {0, …, t−1} accepted with probability
// e^(−U/t), V ~ Geometric(1 − e^(−1)) by Bernoulli(e^(−1)) trials, return ⌊(U + tV)/s⌋).
Expected<std::int64_t> sampleGeometric(const Rational& gamma, RandomBits& bits);

// Discrete Laplace with scale t > 0 (rational, t ≤ kMaxDiscreteLaplaceScale):
// Pr[x] = (1 − e^(−1/t))/(1 + e^(−1/t))·e^(−|x|/t) on the integers (CKS Algorithm 2: a geometric
// magnitude with rate 1/t and a fair sign, rejecting "−0").
inline constexpr double kMaxDiscreteLaplaceScale = 1e12;
Expected<std::int64_t> sampleDiscreteLaplace(const Rational& scale, RandomBits& bits);
Expected<std::vector<std::int64_t>> sampleDiscreteLaplace(const Rational& scale, std::size_t count,
                                                          RandomBits& bits);

// Discrete Gaussian N_Z(0, σ²): Pr[x] ∝ e^(−x²/(2σ²)) on the integers, for rational σ² with
// 0 < σ² ≤ kMaxDiscreteGaussianSigma2 (CKS Algorithm 3: Y from the discrete Laplace with scale
// t = ⌊σ⌋ + 1, accepted with probability exp(−(|Y| − σ²/t)²/(2σ²)), all in exact integers).
inline constexpr double kMaxDiscreteGaussianSigma2 = 1e12;
Expected<std::int64_t> sampleDiscreteGaussian(const Rational& sigma2, RandomBits& bits);
Expected<std::vector<std::int64_t>> sampleDiscreteGaussian(const Rational& sigma2,
                                                           std::size_t count, RandomBits& bits);

// Outputs of a count mechanism matrix (core/count/count_mechanism.h) with exact thresholds. Each
// stored double P[i][j] is an exact dyadic rational; column j is sampled with probability exactly
// P[i][j]/S_j, S_j = Σ_i P[i][j] computed exactly (the stored columns sum to 1 only within
// kColumnSumTolerance, so the mechanism actually run is the column-normalised matrix). The draw
// compares a uniform U ∈ [0, 1), generated bit by bit (lazy binary expansion), with the exact
// cumulative sums: it stops as soon as the dyadic interval known to contain U lies inside one
// output's cell [C_{i−1}/S_j, C_i/S_j), which takes about log2(n + 1) + 2 bits on average.
class CountMechanismSampler {
public:
    // Keeps a copy of the matrix's entries. Error for a matrix whose column j sums to 0 exactly
    // (CountMechanism::fromRows already refuses such columns).
    static Expected<CountMechanismSampler> create(const CountMechanism& mechanism);

    std::size_t size() const { return size_; }
    const std::string& name() const { return name_; }
    // Output i ∈ {0, …, n} for true count j (j ≤ n, else Error).
    Expected<std::size_t> sample(std::size_t trueCount, RandomBits& bits) const;
    // One output per entry of trueCounts, from one continuous bit stream, in order.
    Expected<std::vector<std::size_t>> sample(std::span<const std::size_t> trueCounts,
                                              RandomBits& bits) const;
    // Exact S_j.
    Rational columnSum(std::size_t j) const;
    // max_j ln S_j − min_j ln S_j, rounded up: the sampled (normalised) matrix's ε exceeds the
    // stored matrix's achievedEpsilon() by at most this (about 2e-9 at worst for matrices that
    // pass CountMechanism::fromRows; 0 when every column sums to exactly 1).
    double columnSumLogSpread() const;

private:
    CountMechanismSampler(std::size_t size, std::vector<double> p, std::string name)
        : size_(size), p_(std::move(p)), name_(std::move(name)) {}
    std::size_t size_;
    std::vector<double> p_;  // row-major, as in CountMechanism
    std::string name_;
};

// ---------------------------------------------------------------------------------------------
// Mechanism parameters (exact) and the privacy of the discrete Gaussian.

// Discrete Laplace noise for integer queries: scale t = Δ/ε gives ε-DP for L1 sensitivity Δ
// (Pr[x]/Pr[x + d] ≤ e^(|d|/t) ≤ e^ε for |d| ≤ Δ; CKS §1 and Ghosh, Roughgarden & Sundararajan
// 2009). ε > 0; Δ an integer in [1, 10^6]; t ≤ kMaxDiscreteLaplaceScale.
struct DiscreteLaplaceParams {
    Rational epsilon = Rational::integer(1);
    std::int64_t l1Sensitivity = 1;
    Status validate() const;
    // t = Δ/ε, exactly. Precondition: validate() succeeded.
    Rational scale() const;
};

inline constexpr std::int64_t kMaxExactSensitivity = 1000000;

// Discrete Gaussian noise N_Z(0, σ²): ρ-zCDP with ρ = Δ²/(2σ²) for L2 sensitivity Δ (CKS §2, the
// discrete Gaussian's Rényi divergences equal the continuous ones). σ² in
// (0, kMaxDiscreteGaussianSigma2]; Δ an integer in [1, kMaxExactSensitivity].
struct DiscreteGaussianParams {
    Rational sigma2 = Rational::integer(1);
    std::int64_t l2Sensitivity = 1;
    Status validate() const;
    // ρ = Δ²/(2σ²), exactly. Precondition: validate() succeeded.
    Rational rho() const;
};

// The exact δ(ε) of adding N_Z(0, σ²) to an integer-valued query whose neighbouring values differ
// by at most Δ (a count, or a histogram whose neighbours differ in one bin): CKS Thm 7,
// δ = Pr[Y > εσ²/Δ − Δ/2] − e^ε·Pr[Y > εσ²/Δ + Δ/2] = Σ_{y > a} Pr[Y = y]·(1 − e^(ε − L(y))),
// Y ~ N_Z(0, σ²), a = εσ²/Δ − Δ/2, L(y) = (2yΔ + Δ²)/(2σ²) the privacy loss. Always an upper
// bound on the exact δ, rounded up to a double (the smallest positive double when the exact δ is
// below it), within 10^-11 above 45-digit values. The cost does not grow with σ: at most about
// 50·max(100, √Δ) terms or about 60 libm calls. Two evaluations:
//  - summation (σ² ≤ 10^4, or Δ > σ²): the second form (positive terms only, no cancellation)
//    summed in long double from y = max(⌊a⌋ + 1, −⌈40σ⌉) (a bound on the terms left of −40σ is
//    added) until the geometric bound on the rest falls below one unit in the last place; the
//    normaliser comes from Poisson summation, Σ_y e^(−y²/(2σ²)) = σ√(2π)·Σ_k e^(−2π²σ²k²), for
//    σ² > 1. The tail bound is added, the sum is multiplied by 1 + 2·10^7·ε_ld (ε_ld = 2^−63 on
//    x86-64, so 2.2e-12 relative; every step's rounding error is below 10^4·ε_ld).
//  - Euler–Maclaurin (σ² > 10^4 and Δ ≤ σ²): the sum over y ≥ ⌊a⌋ + 1 as an integral (closed
//    form in erf/erfc, or Gauss–Legendre quadrature with its error bound when Δ ≪ σ), boundary
//    terms up to the 15th derivative (Hermite polynomials) and a rigorous bound on the remainder,
//    which is added together with a running bound on the rounding error (the summation is used
//    instead if those bounds exceed 10^-6 of the value, which they do not in this range). The
//    derivation is in exact_samplers.cpp.
// For other neighbouring relations (vectors with L2 sensitivity Δ) convert ρ instead. Errors:
// invalid σ² or Δ, ε ≤ 0, ε > 10^6. `evaluation` forces one method (for tests; forced
// Euler–Maclaurin needs σ² > 100, forced summation may take up to 10^8 terms at σ² = 10^12).
enum class DeltaEvaluation { Automatic, Summation, EulerMaclaurin };
Expected<double> discreteGaussianDelta(const Rational& sigma2, std::int64_t sensitivity,
                                       const Rational& epsilon,
                                       DeltaEvaluation evaluation = DeltaEvaluation::Automatic);

// σ² for a target (ε, δ): a value with six significant decimal digits (m·10^k, 10^5 ≤ m < 10^6)
// whose discreteGaussianDelta(σ², Δ, ε) ≤ δ while the grid point below it exceeds δ, found by
// bracketing (factors of 2 from the classic formula) and bisection on that grid. The returned δ is
// the one computed at σ² (rounded up, ≤ the target), so the guarantee never rests on the search.
// Where δ is non-increasing in σ² this is the smallest such grid point. For the discrete Gaussian
// δ is not monotone when σ² is small against Δ² (tst_exact_samplers shows a rise at ε = 4,
// σ² ≈ 0.14, Δ = 1; scans found rises up to σ² ≈ 15Δ² at ε = 2, none above 0.6Δ² for ε ≤ 1);
// below 16Δ² the result carries a warning that a smaller σ² may also meet the target.
// ε in (0, 10^6], δ in (0, 1), Δ as above; Error if σ² would exceed kMaxDiscreteGaussianSigma2,
// naming the smallest ε (two significant digits) that σ² = 10^12 reaches at that δ. As ε → 0, δ
// tends to the total variation distance ≈ Δ/(σ√(2π)), so small ε need not mean a huge σ²: ε =
// 10^-8, δ = 10^-6 calibrates to σ² ≈ 1.6·10^11. Every evaluation is bounded (see
// discreteGaussianDelta), so the calibration takes milliseconds at any ε.
struct DiscreteGaussianCalibration {
    Rational sigma2;
    double delta = 0;  // discreteGaussianDelta at sigma2
    Rational rho;      // Δ²/(2σ²)
    std::vector<std::string> warnings;
};
Expected<DiscreteGaussianCalibration> calibrateDiscreteGaussian(const Rational& epsilon,
                                                                double delta,
                                                                std::int64_t sensitivity);

// ---------------------------------------------------------------------------------------------
// Release entry points: only the OS CSPRNG (ReleaseRandomness) is accepted. Each validates the
// parameters, draws `count` values and returns all of them or an Error (nothing partial).

// `count` draws of the discrete Laplace with scale Δ/ε (ε-DP per draw for L1 sensitivity Δ).
Expected<std::vector<std::int64_t>> releaseDiscreteLaplaceNoise(const DiscreteLaplaceParams& params,
                                                                std::size_t count,
                                                                ReleaseRandomness& randomness);
// `count` draws of N_Z(0, σ²) (ρ-zCDP, ρ = Δ²/(2σ²), for L2 sensitivity Δ).
Expected<std::vector<std::int64_t>> releaseDiscreteGaussianNoise(
    const DiscreteGaussianParams& params, std::size_t count, ReleaseRandomness& randomness);
// One output of the (column-normalised) matrix per true count.
Expected<std::vector<std::size_t>> releaseCountMechanismOutputs(
    const CountMechanismSampler& sampler, std::span<const std::size_t> trueCounts,
    ReleaseRandomness& randomness);

}  // namespace dpx
