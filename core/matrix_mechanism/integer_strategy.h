// Integer strategies (issue #23): a designed strategy A (hdmm.h, ‖A‖₁ = 1, real entries) turned
// into an integer matrix K ≈ Q·A, so that a release can measure the integer queries K·x exactly
// and add discrete Laplace noise from the exact samplers (core/release): real-valued entries
// cannot be measured with exact integer noise, and a floating-point Laplace sample is not what
// a release may use (Mironov 2012). The rounding is downwards entry by entry, K = ⌊Q·A⌋, so every
// column of K has L1 norm at most Q (A's columns have norm ≤ 1); the sensitivity used is K's own
// exact largest column norm, never Q. The rounding changes the error: the exact error of K is
// computed and reported (roundedObjective), and chooseIntegerStrategy doubles Q until K's error
// is within a tolerance of A's.
//
// Templates and their roundings (each keeps the structure, so least squares stays fast):
//   OPT₀ / OPT⊗ p-Identity A_d = [I; Θ_d]·D_d, D_d = diag(1/d_j), d_j = 1 + Σ_a Θ_aj (Laplace
//     designs) or √(1 + Σ_a Θ_aj²) (Gaussian designs, unit L2 columns, so K's columns have L2
//     norm ≤ Q and the release's Δ2(K) is K's own exact one):
//     K_d = [diag(g); T] with g_j = ⌊Q/d_j⌋ ≥ 1 and T_aj = ⌊Q·Θ_aj/d_j⌋, which is
//     again a p-Identity with Θ' = T·diag(1/g) times the column scaling diag(c), c_j = g_j +
//     Σ_a T_aj (its column sums); K = K_1 ⊗ … ⊗ K_k (column norms multiply).
//   OPT_M weighted marginals θ_a: K = [w_a·M_a], w_a = ⌊Q^k·θ_a⌋ (k attributes) — a marginals
//     strategy with weights w/Σw times the constant Σw; every column has L1 norm Σw and squared
//     L2 norm Σw².
//   OPT₊ stacked parts with scales s_i: each part rounded at Q·s_i^{1/k} per factor (so that
//     every part keeps its weight), stacked; column norms add up (L1) per cell.
// Full column rank: p-Identity roundings keep g_j ≥ 1 (else Q is too small: an error); an OPT_M
// rounding may drop a marginal whose weight is below 1/Q^k (the objective then says so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpx {

// One rounded p-Identity factor K_d = [diag(g); T] over n cells (T: p × n, row-major).
struct IntegerPIdentity {
    std::size_t n = 0, p = 0;
    std::vector<std::int64_t> diagonal;  // g, n entries ≥ 1
    std::vector<std::int64_t> extra;     // T, p × n entries ≥ 0
};

inline constexpr std::size_t kMaxStackCellForms = 4096;

struct IntegerStrategy {
    DesignTemplate kind = DesignTemplate::PIdentity;  // PIdentity, Marginals or Union
    DomainShape shape;
    std::int64_t scale = 0;                     // Q per factor (products), Q^k (marginals)
    std::vector<IntegerPIdentity> factors;      // PIdentity: one per dimension
    std::vector<std::int64_t> marginalWeights;  // Marginals: w_a, 2^k entries
    std::vector<std::unique_ptr<IntegerStrategy>> parts;  // Union: every part's rounding
    // K's exact sensitivities when one record changes one cell by one: the largest column L1 norm
    // and the largest squared column L2 norm.
    std::int64_t l1 = 0;
    std::int64_t l2Squared = 0;
    // K itself as an implicit real matrix (the same rows, in the same order), for least squares,
    // (KᵀK)⁻¹ and the exact errors.
    std::unique_ptr<LinearStrategy> linear;
    // trace((KᵀK)⁻¹WᵀW)·l1² for the workload it was chosen for (comparable with the design's
    // objective at ‖A‖₁ = 1); 0 when not computed.
    double roundedObjective = 0;
    double designObjective = 0;

    std::size_t rows() const;
    // Per cell (C order): the L1 norm of K's column (used for Union sums and tests).
    std::vector<std::int64_t> columnL1() const;
    std::vector<std::int64_t> columnL2Squared() const;
    // Either of the two: the column L1 norms, or the squared L2 norms (`squared`).
    std::vector<std::int64_t> columnNorms(bool squared) const;
    // y = K·x exactly for integer x ≥ 0 (the counts); an Error when a value would leave the
    // 64-bit range.
    Expected<std::vector<std::int64_t>> measure(std::span<const std::int64_t> x) const;
    // Whether least squares on K determines every cell (full column rank).
    bool fullColumnRank() const;
    // e_jᵀ(KᵀK)⁻¹e_j for every cell j (C order): products factor by factor (n_d solves each);
    // marginals (full rank) one constant from the eigen-decomposition; a stack of two products
    // of p-Identity factors exactly by simultaneous diagonalisation (any size); other stacks by
    // one solve per cell (at most kMaxStackCellForms cells). Precondition: fullColumnRank().
    Expected<std::vector<double>> cellVarianceForms() const;
    std::string describe() const;  // "⌊64·A⌋: 1 088 rows, Δ1 = 64, Δ2² = 2 210"
};

// K = ⌊Q·A⌋ for a design over `shape` (see the file comment). Q in [1, 2^30]. Errors: Q too
// small for a p-Identity diagonal (an entry rounds to 0), every marginal weight rounds to 0.
Expected<IntegerStrategy> roundStrategy(const DomainShape& shape, const DesignedStrategy& design,
                                        std::int64_t q);

// trace((KᵀK)⁻¹WᵀW)·Δ1(K)² (`law` Laplace) or ·Δ2(K)² (Gaussian): the rounded strategy's error
// in the units of the design's objective.
Expected<double> integerStrategyObjective(const IntegerStrategy& k, const Workload& w,
                                          MeasurementNoise law = MeasurementNoise::Laplace);

// The smallest Q = 2^j (from 16) whose rounding's objective (in the design's law: Δ1(K)² or
// Δ2(K)² times the trace) is within (1 + tolerance) of the design's, as long as Δ1(K)·maxMultiplier
// stays ≤ maxL1 (the exact samplers' limit on the sensitivity); otherwise the best rounding found.
// roundedObjective and designObjective are set.
Expected<IntegerStrategy> chooseIntegerStrategy(const Workload& w, const DesignedStrategy& design,
                                                double tolerance = 0.005,
                                                std::int64_t maxL1 = 1000000);

}  // namespace dpx
