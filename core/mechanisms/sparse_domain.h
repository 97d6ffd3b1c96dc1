// Thresholded Laplace on a table of any domain size (issue #19), without visiting the empty cells.
//
// The rule is that of core/mechanisms/sparse_histogram.h (Cormode, Procopiuc, Srivastava, Shen &
// Yu 2012, "Differentially private summaries for sparse data"; Hall's thesis §2.4.1): add
// L_i ~ Laplace(b = 2/ε) to every cell i of the domain and release h_i + L_i where h_i + L_i > τ,
// nothing (a 0) elsewhere. ε-DP under replace-one neighbours when one record touches one cell
// (L1 sensitivity 2; the table is a histogram over its cells), and so under add/remove; τ ≥ 0
// must not depend on the data — the default (2/ε)·ln p depends on ε and the domain size p only.
//
// For a domain of p cells of which q are occupied, the output has the SAME DISTRIBUTION as the
// dense rule, computed in O(q + released) time:
//  - an occupied cell is treated as in the dense rule (one Laplace draw);
//  - the empty cells are i.i.d.: each crosses τ independently with probability π = Pr[L > τ] =
//    ½e^{−τ/b}. So the number of crossing empty cells is Binomial(p − q, π) and, given that
//    number, their positions are uniform without replacement among the p − q empty cells;
//  - the value released in a crossing empty cell is L given L > τ, which is τ + Exp(b) for τ ≥ 0
//    (memorylessness of the Laplace upper tail; proof in sparse_domain.cpp).
// sparse_domain.cpp says how the count and the ranks are drawn (p − q can be 2⁶⁴).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/base/expected.h"
#include "core/base/simulation_rng.h"
#include "core/mechanisms/sparse_histogram.h"  // SparseHistogramParams (ε, τ), sparseCellExpectedL1
#include "core/table/table.h"

namespace dpx {

// The most empty cells a release may be expected to publish, (p − q)·Pr[L > τ]; beyond it the
// threshold is too low for the domain (the message names the expected count and the default τ).
inline constexpr double kMaxSparseDomainExpectedReleased = 1e7;

// τ = (2/ε)·ln p for a domain of p cells (p up to 2⁶⁴; ln computed in long double). ε as
// validated by SparseHistogramParams.
double defaultSparseDomainThreshold(double epsilon, CellCount cells);
// The user's τ, else the default for `cells`.
double sparseDomainThreshold(const SparseHistogramParams& params, CellCount cells);

// One simulated release. Released cells only: every other cell is released as 0.
struct SparseDomainRelease {
    // (cell index, released value > τ), sorted by index; the form noisyAnswerSparse
    // (core/table/query.h) takes.
    std::vector<std::pair<std::uint64_t, double>> cells;
    CellCount domainCells = 0;           // p
    std::uint64_t occupiedCells = 0;     // q
    std::uint64_t releasedOccupied = 0;  // occupied cells that crossed τ
    std::uint64_t releasedEmpty = 0;     // empty cells that crossed τ (the Binomial draw)
    double threshold = 0;                // τ used
    double scale = 0;                    // b = 2/ε
};

// Simulation on the seeded generator (NOT a publishable release: that needs the OS CSPRNG).
// Draw order: one Laplace per occupied cell in index order, then the empty cells' gaps and values.
// Errors: invalid params; an expected number of released empty cells above
// kMaxSparseDomainExpectedReleased.
Expected<SparseDomainRelease> simulateSparseDomain(const ContingencyTable& table,
                                                   const SparseHistogramParams& params,
                                                   SimulationRng& rng);

// Exact expectations for the thresholded release of `table` (no simulation, O(q)).
struct SparseDomainExpectedError {
    double threshold = 0;        // τ
    double scale = 0;            // b = 2/ε
    CellCount cells = 0;         // p
    std::uint64_t occupied = 0;  // q
    // Pr[L > τ] = ½e^{−τ/b}: the chance that one empty cell is released.
    double emptyReleaseProbability = 0;
    // E[number of released cells]: (p − q)·½e^{−τ/b} + Σ_occupied Pr[h + L > τ].
    double expectedReleasedEmpty = 0, expectedReleasedOccupied = 0;
    // Exact E‖h − out‖₁ = (p − q)·sparseCellExpectedL1(0, b, τ) + Σ_occupied
    // sparseCellExpectedL1(h, b, τ); split into the two parts.
    double emptyL1 = 0, occupiedL1 = 0, thresholdedL1 = 0;
    // p·b: plain Laplace on every cell, for comparison.
    double plainLaplaceL1 = 0;
};
Expected<SparseDomainExpectedError> sparseDomainExpectedError(const ContingencyTable& table,
                                                              const SparseHistogramParams& params);

// Monte Carlo of thresholded and clamped Laplace on a table of any domain size (the Sparse page on
// a table above kMaxBins cells; issue #19). Per trial t (SimulationRng(seed, t)):
//  - thresholded: one release by simulateSparseDomain, its L1 error ‖h − out‖₁;
//  - clamped at 0: the occupied cells drawn one by one; the empty cells by the exact law of their
//    total: an empty cell releases max(L, 0), which is 0 with probability ½ and Exp(b) otherwise
//    (memorylessness), so the p − q empty cells release K ~ Binomial(p − q, ½) non-zero values
//    whose sum is Gamma(K, b) — one binomial and one gamma draw however large the domain.
// Both are exact in distribution; unlike the dense sparseMonteCarlo the two methods do not share
// their random numbers (the empty cells are never drawn one by one), so their per-trial errors
// are independent. `result.expected` holds the exact expectations (cells saturated at
// SIZE_MAX — `exact.cells` is the domain), trials in [2, 10^7].
struct SparseDomainMonteCarlo {
    SparseMonteCarloResult mc;
    SparseDomainExpectedError exact;
    SparseDomainRelease firstRelease;  // trial 0's thresholded release
};
Expected<SparseDomainMonteCarlo> sparseDomainMonteCarlo(const ContingencyTable& table,
                                                        const SparseHistogramParams& params,
                                                        const MonteCarloOptions& options);

}  // namespace dpx
