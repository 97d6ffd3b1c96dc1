// Local differential privacy (issue #7): frequency oracles — every person randomises their own
// value in {0, …, D−1} before it leaves their device, and the collector estimates the frequency
// of every value from the N reports (seed 001 §2.4, §4.7, §5.2; seed 002 for dBitFlip). No Qt.
//
// Each protocol has: its perturbation (per-user simulator), an aggregate simulator that draws the
// collector's sufficient statistics directly (binomial/multinomial draws, so N = 10^8 costs what
// D costs), the unbiased frequency estimator, the analytic variance of that estimator, and, for
// small domains, its mechanism matrix P[report | value].
//
// Protocols (ε > 0 is the local privacy level of one report):
//  * RR    binary randomized response, D = 2: keep the bit w.p. p = e^ε/(e^ε+1).
//  * GRR   generalized RR / direct encoding: report the value w.p. p = e^ε/(e^ε+D−1), else a
//          uniform other value (q = 1/(e^ε+D−1)).
//  * OUE   optimal unary encoding: one-hot vector, the 1 kept w.p. p = ½, each 0 flipped to 1
//          w.p. q = 1/(e^ε+1).
//  * SUE   symmetric unary encoding (basic RAPPOR without Bloom filter): p = e^(ε/2)/(e^(ε/2)+1),
//          q = 1 − p.
//  * OLH   optimal local hashing: a hash h from a universal family to g = round(e^ε + 1) values,
//          GRR over [g] on h(v); the report is (h, y). Support of j: h(j) = y.
//  * HRR   Hadamard randomized response: sample a row ℓ of the D′×D′ Hadamard matrix
//          (D′ = 2^⌈log2 D⌉), send (ℓ, RR of H[ℓ][v] = (−1)^popcount(ℓ & v)) with p = e^ε/(e^ε+1).
//  * DBitFlip  Ding, Kulkarni & Yekhanin 2017 (seed 002): sample d distinct buckets uniformly,
//          report one bit per sampled bucket, 1 w.p. e^(ε/2)/(e^(ε/2)+1) if it is the user's
//          bucket, else 1/(e^(ε/2)+1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/simulation_rng.h"
#include "core/base/stop_token.h"

namespace dpx::ldp {

enum class Protocol { RR, GRR, OUE, SUE, OLH, HRR, DBitFlip };

const char* protocolName(Protocol p);  // "rr", "grr", "oue", "sue", "olh", "hrr", "dbitflip"
Expected<Protocol> protocolFromName(const std::string& name);

// Largest domain accepted (reports and estimators are O(D) per user for unary encodings).
inline constexpr std::size_t kMaxDomain = std::size_t{1} << 22;

struct ProtocolSpec {
    Protocol protocol = Protocol::GRR;
    double epsilon = 1;       // finite > 0
    std::size_t domain = 2;   // D ≥ 2 (RR: exactly 2)
    std::size_t bits = 1;     // DBitFlip only: d in [1, D]
    Status validate() const;  // messages name the field
};

// The report probabilities of a protocol as p (report supports the true value) and q (supports
// another value), the constants of the unbiased estimator f̂_j = (C_j/N_j − q)/(p − q), where
// C_j counts the reports supporting j and N_j the reports that could (N for all protocols but
// HRR, whose estimator is the inverse Hadamard transform, and DBitFlip, N·d/D in expectation).
struct OracleConstants {
    double p = 0;
    double q = 0;
    std::size_t hashRange = 0;  // OLH: g; otherwise 0
};
Expected<OracleConstants> oracleConstants(const ProtocolSpec& spec);

// Var[f̂_j] for N users when the true frequency of j is f: the exact variance of the estimator
// under the protocol's sampling (for pure-count estimators f̂ = (C/N − q)/(p − q):
// [q(1−q) + f(p(1−p) − q(1−q))]/(N(p−q)²); seed 001 §2.4, Wang et al. 2017 Thm 2 for the f → 0
// term), with the HRR and DBitFlip expressions derived in ldp.cpp. Errors: bad spec, N = 0,
// f ∉ [0, 1].
Expected<double> estimatorVariance(const ProtocolSpec& spec, std::uint64_t users, double f);

// The mechanism matrix P[report][value] where the report space is small enough to enumerate:
// RR and GRR (D×D), OUE/SUE for D ≤ 10 (2^D reports), HRR for D′ ≤ 64 (2·D′ reports, ℓ and the
// bit). Errors: a report space too large to show.
struct ReportMatrix {
    std::vector<std::string> reportLabels;  // one per row
    std::vector<std::vector<double>> p;     // [report][value], columns sum to 1
};
Expected<ReportMatrix> reportMatrix(const ProtocolSpec& spec);

// The local privacy level a report matrix achieves: max over reports r and values v, v′ of
// ln(P[r][v] / P[r][v′]) (ε-LDP ⇔ every report is at most e^ε times more likely under one value
// than under another). +∞ if some report is impossible under one value and possible under
// another; 0 for an empty matrix.
double localEpsilonOf(const ReportMatrix& m);

// Result of one simulated collection: the unbiased frequency estimates f̂_j (may be negative,
// sum to 1 in expectation) for j = 0…D−1.
struct FrequencyEstimate {
    std::vector<double> frequencies;
    std::uint64_t users = 0;
    bool cancelled = false;
};

// Every report generated, one per user in `values` (each < D), then aggregated and estimated.
// OLH hashes with a real universal family: h_{a,b}(x) = ((a·x + b) mod P) mod g with the Mersenne
// prime P = 2^61 − 1, a ∈ [1, P), b ∈ [0, P) drawn per user. Multithreaded over users (`threads`
// 0: all cores) with per-block streams of SimulationRng, so the result does not depend on the
// thread count.
Expected<FrequencyEstimate> simulatePerUser(const ProtocolSpec& spec,
                                            std::span<const std::uint32_t> values,
                                            std::uint64_t seed, unsigned threads = 0,
                                            const std::stop_token& stop = {},
                                            const ProgressCallback& progress = {});

// The same from the true counts θ_j (Σθ = N), drawing the collector's statistics directly:
// exact in distribution for RR, GRR (a multinomial per value), OUE/SUE (C_j = Bin(θ_j, p) +
// Bin(N − θ_j, q), independent across j), HRR (per value a multinomial over the 2·D′ (ℓ, bit)
// cells) and DBitFlip; for OLH exact for an idealised fully random hash (C_j as for unary
// encodings with p and 1/g), whose per-j marginals equal the universal family's — documented.
Expected<FrequencyEstimate> simulateAggregate(const ProtocolSpec& spec,
                                              std::span<const std::int64_t> trueCounts,
                                              std::uint64_t seed, const std::stop_token& stop = {});

// ---------------------------------------------------------------------------------------------
// Building blocks shared with the range-query and marginal oracles (ldp_range, ldp_marginals).

// D′ = 2^⌈log2 D⌉, the Hadamard dimension used by HRR (1 for D ≤ 1).
std::size_t hadamardSize(std::size_t domain);

// In-place unnormalised fast Walsh–Hadamard transform x ← H x with H[i][j] = (−1)^popcount(i & j)
// (Sylvester order, H symmetric, H·H = n·I): n·log2(n) additions. Precondition: values.size() is
// 0 or a power of two (std::invalid_argument otherwise: a programming error, not bad input).
void fastWalshHadamard(std::span<double> values);

// The OLH universal hash family h_{a,b}(x) = ((a·x + b) mod P) mod g with P = 2^61 − 1
// (Carter–Wegman; seed 001 §2.4). Preconditions: a, b < P, g ≥ 1.
inline constexpr std::uint64_t kOlhPrime = (std::uint64_t{1} << 61) - 1;
std::uint64_t olhHash(std::uint64_t a, std::uint64_t b, std::uint64_t x, std::uint64_t g);

// The aggregator's support of one OLH report (a, b, y): counts[j] += 1 for every j < counts.size()
// with olhHash(a, b, j, g) == y. Additions and comparisons only (h(j + 1) from h(j)), no division
// per j. Preconditions as olhHash, y < g ≤ 2^61.
void olhAddSupport(std::uint64_t a, std::uint64_t b, std::uint64_t g, std::uint64_t y,
                   std::span<std::uint64_t> counts);

// The support of many reports (a[i], b[i], y[i]) at once, with the kernels simulatePerUser uses:
// 32 reports at a time in AVX2 vectors where the CPU has AVX2 (x86-64 with GCC or Clang; chosen
// at run time), then 4 and 1 at a time in scalar code. The counts equal olhAddSupport's per report.
// Preconditions as olhAddSupport; a, b and y of equal size (std::invalid_argument otherwise).
void olhAddSupportBatch(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                        std::span<const std::uint64_t> y, std::uint64_t g,
                        std::span<std::uint64_t> counts);

}  // namespace dpx::ldp
