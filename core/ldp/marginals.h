// k-way marginals of d binary attributes under local DP (issue #7; seed 001 ch. 4, Cormode,
// Kulkarni & Srivastava, "Marginal release under local differential privacy", SIGMOD 2018).
// No Qt.
//
// A record is a d-bit mask x ∈ {0,1}^d (attribute i is bit i), d ≤ 16; the data set is its full
// contingency table θ (θ_x users with record x, size D = 2^d). The k-way marginal on the attribute
// set β (a mask with |β| = k) is C^β(γ) = Σ_{x : x & β = γ} θ_x/N for the 2^k cells γ ⊆ β; cells
// are indexed compactly: bit i of the cell index is the value of the i-th lowest attribute of β.
//
// Methods:
//  * INPHT (seed 001 §4.3.2, Algorithms 1–2): each user samples one Hadamard coefficient index α
//    uniformly from T = {α : 1 ≤ |α| ≤ k} (|T| = Σ_{i=1..k} C(d,i)), computes the ±1 value
//    (−1)^popcount(α & x) and sends (α, RR of it) with p = e^ε/(e^ε+1). The collector estimates
//    the (unnormalised) Fourier coefficients θ̂_α = Σ_{reports on α} b/(N_α·(2p−1)), θ_0 = 1,
//    and any marginal with |β| ≤ k follows from Lemma 6 ([109] Barak et al. 2007):
//    C^β(γ) = 2^−k · Σ_{α ⊆ β} θ_α·(−1)^popcount(α & γ).
//  * One-hot baseline (seed 001 §4.3.2 INPRR/OUE, §4.4.6 INPOLH): each user reports x through a
//    frequency oracle over D = 2^d (ldp.h); marginals are summed from the estimated distribution.
// Error metric (Definition 15): total variation ½·Σ_γ |Ĉ^β(γ) − C^β(γ)|, averaged over all
// k-way marginals. Estimates are unbiased and may be negative; by default they are scored as they
// are (NegativeEstimates::Keep), or after Euclidean projection onto the probability simplex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/ldp/protocols.h"

namespace dpx::ldp {

inline constexpr unsigned kMaxAttributes = 16;

// All β ⊆ {0…d−1} with |β| = k, increasing. Errors: d ∉ [1, 16], k ∉ [1, d].
Expected<std::vector<std::uint32_t>> marginalMasks(unsigned attributes, unsigned order);
// T = {α : 1 ≤ |α| ≤ k}, increasing. Errors as marginalMasks.
Expected<std::vector<std::uint32_t>> lowOrderCoefficients(unsigned attributes, unsigned order);

// The marginal β of a full distribution (size 2^d; need not be non-negative or sum to 1).
// Errors: d ∉ [1, 16], size ≠ 2^d, β = 0 or β with bits ≥ d, non-finite values.
Expected<std::vector<double>> marginalOfDistribution(std::span<const double> distribution,
                                                     unsigned attributes, std::uint32_t beta);
// The true marginal (fractions) of a contingency table. Errors: as above, negative counts, N = 0.
Expected<std::vector<double>> marginalOfCounts(std::span<const std::int64_t> counts,
                                               unsigned attributes, std::uint32_t beta);

struct InphtConfig {
    unsigned attributes = 8;              // d ∈ [1, 16]
    unsigned order = 2;                   // k ∈ [1, d]
    double epsilon = 1.0986122886681098;  // finite > 0 (ε = ln 3, the seed's default)
    Status validate() const;
};

// Estimated (or exact) Fourier coefficients θ_α = Σ_x f_x·(−1)^popcount(α & x), α ∈ T.
struct HadamardCoefficients {
    unsigned attributes = 0;
    unsigned order = 0;
    std::vector<std::uint32_t> indices;  // T, increasing
    std::vector<double> values;          // θ̂_α, aligned with indices (θ_0 = 1 is implicit)
    std::vector<std::uint64_t> samples;  // N_α, users who sampled α (exact: N for all)
    std::uint64_t users = 0;
    bool cancelled = false;
    std::vector<std::string> warnings;  // e.g. a coefficient that no user sampled (set to 0)
};

// The exact coefficients of a contingency table (no noise; one fast Walsh–Hadamard transform).
// Errors: bad config (ε ignored), counts.size() ≠ 2^d, negative counts, N = 0.
Expected<HadamardCoefficients> exactCoefficients(const InphtConfig& config,
                                                 std::span<const std::int64_t> counts);

// One simulated INPHT collection, per user (O(N + |T|)), exactly as Algorithms 1–2 of the seed.
// Errors as exactCoefficients, plus a bad ε.
Expected<HadamardCoefficients> simulateInpht(const InphtConfig& config,
                                             std::span<const std::int64_t> counts,
                                             std::uint64_t seed, const std::stop_token& stop = {});

// Lemma 6 reconstruction of the marginal β (|β| ≤ k). Errors: β = 0, bits ≥ d, |β| > k,
// malformed coefficients.
Expected<std::vector<double>> marginalFromCoefficients(const HadamardCoefficients& coefficients,
                                                       std::uint32_t beta);

// One-hot baseline: simulateAggregate of `oracle` (oracle.domain must be 2^d) on the table.
// Errors: d ∉ [1, 16], oracle.domain ≠ 2^d, the oracle's own errors.
Expected<FrequencyEstimate> simulateOneHot(const ProtocolSpec& oracle, unsigned attributes,
                                           std::span<const std::int64_t> counts, std::uint64_t seed,
                                           const std::stop_token& stop = {});

// Euclidean projection onto the probability simplex {p ≥ 0, Σp = 1} (Duchi, Shalev-Shwartz,
// Singer & Chandra, ICML 2008, Fig. 1). Errors: empty input, non-finite values.
Expected<std::vector<double>> projectToSimplex(std::span<const double> values);

// ½·Σ|a_i − b_i| (seed 001 Definition 15). Errors: sizes differ or are 0, non-finite values.
Expected<double> totalVariation(std::span<const double> a, std::span<const double> b);

enum class NegativeEstimates { Keep, ProjectToSimplex };

struct MarginalError {
    double meanTv = 0;          // mean TV over all k-way marginals
    double maxTv = 0;           // worst marginal
    std::size_t marginals = 0;  // C(d, k)
};

// TV error of INPHT (or exact) coefficients over all k-way marginals (k = coefficients.order).
Expected<MarginalError> marginalError(const HadamardCoefficients& coefficients,
                                      std::span<const std::int64_t> counts,
                                      NegativeEstimates negatives = NegativeEstimates::Keep);
// TV error of an estimated full distribution (size 2^d) over all k-way marginals.
Expected<MarginalError> marginalError(std::span<const double> estimatedDistribution,
                                      unsigned attributes, unsigned order,
                                      std::span<const std::int64_t> counts,
                                      NegativeEstimates negatives = NegativeEstimates::Keep);

}  // namespace dpx::ldp
