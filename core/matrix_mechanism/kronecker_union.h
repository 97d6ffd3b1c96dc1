// OPT⊗ for workloads that are UNIONS of Kronecker products (issue #23; HDMM: McKenna, Miklau,
// Hay & Machanavajjhala, VLDB 2018, §6): W = [W_1; W_2; …; W_K] with every block
// W_j = W_j1 ⊗ … ⊗ W_jk. The cells of a k-way marginal are one such block (identity on the
// marginal's attributes, the total 1ᵀ on the others); a list of boxes (random ranges) has one
// rank-one block per box.
//
// For a Kronecker strategy A = A_1 ⊗ … ⊗ A_k, (AᵀA)⁻¹ = ⊗(A_dᵀA_d)⁻¹ and WᵀW = Σ_j ⊗_d W_jdᵀW_jd,
// so the objective is exactly
//   f = trace((AᵀA)⁻¹WᵀW) = Σ_j ∏_d C_jd,   C_jd = trace((A_dᵀA_d)⁻¹ G_jd),  G_jd = W_jdᵀW_jd.
// Holding every factor but d fixed, f = trace((A_dᵀA_d)⁻¹ Ĝ_d) with the surrogate Gram
// Ĝ_d = Σ_j (∏_{d'≠d} C_jd') G_jd — a one-dimensional p-Identity problem (OPT₀). HDMM optimises
// the factors in turn (block coordinate descent); each block step here starts from the current
// factor, so f never increases, and the rounds stop when f improves by less than the minimiser's
// ftol (relative) or after `maxRounds`. ‖A‖₁ = ∏‖A_d‖₁ = 1, as for OPT⊗ on a single product.
// Gaussian measurement: column L2 norms multiply too (‖(a ⊗ b)‖₂ = ‖a‖₂‖b‖₂), so factors with unit
// L2 columns give ‖A‖₂ = 1 and the same decomposition holds with L2-normalised p-Identities.
#pragma once

#include <cstddef>
#include <stop_token>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/matrix_mechanism/gram_operator.h"
#include "core/matrix_mechanism/p_identity.h"
#include "core/workload/workload.h"

namespace dpx {

// One dimension's distinct factor Grams G_jd: structured operators, or single ranges r rᵀ.
struct KroneckerFactorSet {
    std::vector<GramOperator> structured;  // factor index 0 … structured.size() − 1
    std::vector<BinRange> ranges;          // factor index structured.size() + i
    std::size_t size() const { return structured.size() + ranges.size(); }
};

// The workload as Σ_j weight2_j · ⊗_d G_{j, factor[j][d]}.
struct KroneckerTerms {
    DomainShape shape;
    std::vector<KroneckerFactorSet> dims;
    std::vector<double> weight2;                     // per term
    std::vector<std::vector<std::uint32_t>> factor;  // per term, per dimension
};

// Product kinds (one term), marginals (one term per marginal) and listed boxes (random ranges,
// boxes: one term per box). Other workloads are refused with a message.
Expected<KroneckerTerms> kroneckerTerms(const Workload& w);

struct KroneckerUnionResult {
    std::vector<std::vector<double>> theta;  // per dimension, p_d × n_d
    double objective = 0;                    // Σ_j ∏_d C_jd at the result
    std::size_t rounds = 0;
    std::size_t iterations = 0;  // L-BFGS-B iterations over all block steps
};

// Largest dimension the union design handles (it keeps (A_dᵀA_d)⁻¹ dense: n² doubles).
inline constexpr std::size_t kMaxUnionDimension = 4096;

// Block coordinate descent over the factors (see the file comment). The first round starts every
// factor from `options.restarts` random starts; later rounds warm-start. Each factor is
// normalised for options.measurement. Cancellable.
Expected<KroneckerUnionResult> optimizeKroneckerUnion(const KroneckerTerms& terms,
                                                      const std::vector<std::size_t>& p,
                                                      const StrategyOptimizeOptions& options = {},
                                                      std::size_t maxRounds = 10,
                                                      std::stop_token stop = {},
                                                      const ProgressCallback& progress = {});

// f = Σ_j weight2_j ∏_d trace((A_dᵀA_d)⁻¹ G_jd) for given p-Identity factors (tests, reports),
// their columns normalised for `law` (unit L1: Laplace, unit L2: Gaussian).
Expected<double> kroneckerUnionObjective(const KroneckerTerms& terms,
                                         const std::vector<std::size_t>& p,
                                         const std::vector<std::vector<double>>& theta,
                                         MeasurementNoise law = MeasurementNoise::Laplace);

}  // namespace dpx
