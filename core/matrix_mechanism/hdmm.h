// Designing a strategy for a workload (issue #23; HDMM: McKenna, Miklau, Hay & Machanavajjhala,
// VLDB 2018): choose the strategy matrix A that minimises the expected error of least squares on
// the workload W — trace((AᵀA)⁻¹WᵀW)·‖A‖₁² — before any data is touched.
//   OPT₀  one dimension: HDMM's p-Identity template (p_identity.h) on W's Gram operator.
//   OPT⊗  several dimensions, W = W_1 ⊗ … ⊗ W_k (identity, prefixes, all ranges, rectangles):
//         A = A_1 ⊗ … ⊗ A_k with one p-Identity per dimension. Then ‖A‖₁ = ∏‖A_d‖₁ = 1 and
//         trace((AᵀA)⁻¹WᵀW) = ∏_d trace((A_dᵀA_d)⁻¹W_dᵀW_d), so the joint optimum is the product
//         of the per-dimension optima: each factor is optimised on its own (dimensions with the
//         same factor workload share one optimisation).
// Workloads that are not products (random ranges or boxes in k-D, marginals) need HDMM's unions
// of Kronecker products (OPT₊) or its marginals template (OPT_M): refused with that message.
#pragma once

#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/matrix_mechanism/p_identity.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpx {

struct DesignedStrategy {
    std::unique_ptr<LinearStrategy> strategy;  // ‖A‖₁ = 1
    double objective = 0;                      // trace((AᵀA)⁻¹WᵀW)
    std::uint64_t queries = 0;
    std::string templateName;  // "OPT₀ p-Identity(16)", "OPT⊗ p-Identity(16) ⊗ …"
    std::vector<double> factorObjectives;    // per dimension
    std::vector<std::size_t> p;              // per dimension
    std::vector<std::vector<double>> theta;  // per dimension: the p-Identity's Θ (p × n)
    std::size_t iterations = 0;
    // RMSE per query under Laplace measurement at ε (laplaceRmse).
    double rmse(double epsilon) const { return laplaceRmse(objective, queries, epsilon); }
};

// The strategy of a design: one p-Identity per dimension (Θ_d of p_d × shape[d]), their
// Kronecker product in several dimensions. designStrategy builds its strategy with it; callers
// that keep only Θ rebuild the same strategy.
Expected<std::unique_ptr<LinearStrategy>> strategyFromDesign(
    const DomainShape& shape, const std::vector<std::size_t>& p,
    const std::vector<std::vector<double>>& theta);

// HDMM's default p for a dimension of n cells: max(1, n/16).
std::size_t defaultPIdentityP(std::size_t n);

// `p` per dimension (empty: the default for each). Cancellable; progress over the dimensions.
Expected<DesignedStrategy> designStrategy(const Workload& w, std::vector<std::size_t> p = {},
                                          const StrategyOptimizeOptions& options = {},
                                          std::stop_token stop = {},
                                          const ProgressCallback& progress = {});

}  // namespace dpx
