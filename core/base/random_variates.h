// Exact discrete random variates on the simulation generator: uniform integers without modulo
// bias, binomial and multinomial. Simulation only (they take SimulationRng, never a release RNG).
// "Exact" means exact in distribution up to double rounding in the acceptance tests (relative
// error ~1e-13 in any acceptance probability); no normal or Poisson approximation is ever used.
#pragma once

#include <cstdint>
#include <span>

#include "core/base/simulation_rng.h"

namespace dpx {

// Largest n accepted by binomial() and multinomial().
inline constexpr std::uint64_t kMaxBinomialTrials = std::uint64_t{1} << 62;

// Uniform on {0, …, k − 1}, k ≥ 1, without modulo bias: Lemire's multiply-and-reject method
// (D. Lemire, "Fast random integer generation in an interval", ACM TOMACS 2019, Algorithm 5).
// Precondition k ≥ 1 (std::invalid_argument otherwise).
std::uint64_t uniformInt(SimulationRng& rng, std::uint64_t k);

// Binomial(n, p) for n ≤ 2^62 and p ∈ [0, 1] (std::invalid_argument otherwise: callers validate).
// p > ½ by symmetry n − Bin(n, 1 − p); n·p < 10: sequential inversion from P[0] = (1 − p)^n;
// otherwise BTRS, the transformed rejection with squeeze of W. Hörmann, "The generation of binomial
// random variates", J. Stat. Comput. Simul. 46 (1993), with log P[k]/P[m] evaluated by Loader's
// saddle-point form (C. Loader, "Fast and accurate computation of binomial probabilities", 2000)
// so it stays accurate for huge n; n > 2^48 is split into independent chunks of ≤ 2^48 trials
// (Bin(a + b, p) = Bin(a, p) + Bin(b, p)) so every k is representable in a double. O(1) expected
// time for n ≤ 2^48.
std::uint64_t binomial(SimulationRng& rng, std::uint64_t n, double p);

// Multinomial(n; probs / Σprobs) into out (same size as probs) by conditional binomials:
// out[i] = Bin(n − Σ_{j<i} out[j], probs[i] / Σ_{j≥i} probs[j]). probs need not sum to 1 but must
// be finite, ≥ 0 and not all 0; n ≤ 2^62 (std::invalid_argument otherwise). O(size) binomial draws.
void multinomial(SimulationRng& rng, std::uint64_t n, std::span<const double> probs,
                 std::span<std::uint64_t> out);

// Multinomial(n; uniform over out.size() ≥ 1 cells): n uniformInt draws when n < size/4, else
// conditional binomials. Exact either way; O(min(n, size)) draws.
void multinomialUniform(SimulationRng& rng, std::uint64_t n, std::span<std::uint64_t> out);

// Gamma(shape, 1) for shape ≥ 1 (std::invalid_argument otherwise): Marsaglia & Tsang, "A simple
// method for generating gamma variables", ACM TOMS 26 (2000): d = shape − ⅓, c = 1/√(9d), draw
// a standard normal z until v = (1 + cz)³ > 0 and ln U < z²/2 + d − dv + d·ln v, return d·v.
// Exact rejection (no approximation) for every shape, including shapes near 2⁶⁴; the expected
// number of tries is below 1.05. Multiply by b for Gamma(shape, b).
double gammaVariate(SimulationRng& rng, double shape);

// log P[Bin(n, p) = k] by Loader's saddle-point expansion (stirlerr + bd0), accurate to ~1e-14
// relative even for n ~ 2^48; −∞ when k > n or the probability is 0. Exposed for tests.
double binomialLogPmf(std::uint64_t n, std::uint64_t k, double p);

}  // namespace dpx
