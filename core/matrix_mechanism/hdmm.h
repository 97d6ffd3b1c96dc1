// Designing a strategy for a workload (issue #23; HDMM: McKenna, Miklau, Hay & Machanavajjhala,
// VLDB 2018): choose the strategy matrix A that minimises the expected error of least squares on
// the workload W — trace((AᵀA)⁻¹WᵀW)·‖A‖₁² — before any data is touched.
//   OPT₀  one dimension: HDMM's p-Identity template (p_identity.h) on W's Gram operator.
//   OPT⊗  several dimensions, W = W_1 ⊗ … ⊗ W_k (identity, prefixes, all ranges, rectangles):
//         A = A_1 ⊗ … ⊗ A_k with one p-Identity per dimension. Then ‖A‖₁ = ∏‖A_d‖₁ = 1 and
//         trace((AᵀA)⁻¹WᵀW) = ∏_d trace((A_dᵀA_d)⁻¹W_dᵀW_d), so the joint optimum is the product
//         of the per-dimension optima: each factor is optimised on its own (dimensions with the
//         same factor workload share one optimisation).
//   OPT⊗ on a union of Kronecker products (marginals, random ranges or boxes in k-D): the same
//         Kronecker template, optimised factor by factor (kronecker_union.h).
//   OPT_M marginal workloads: a weighted set of marginals (marginals_strategy.h).
// HDMM's OPT₊ (a union of Kronecker strategies, one per group of sub-workloads) is not offered.
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

// Which HDMM template designStrategy uses.
enum class DesignTemplate {
    Automatic,  // OPT_M for marginal workloads over several attributes, else p-Identity
    PIdentity,  // OPT₀ (1-D) / OPT⊗ (k-D, products and unions of Kronecker products)
    Marginals,  // OPT_M (marginal workloads, identity, total)
    Union,      // OPT₊: one strategy per part of a union workload, stacked (HDMM §6.2)
};
const char* designTemplateName(DesignTemplate t);  // "auto", "pidentity", "marginals", "union"
Expected<DesignTemplate> designTemplateFromName(const std::string& name);

struct DesignedStrategy {
    std::unique_ptr<LinearStrategy> strategy;  // ‖A‖₁ = 1
    // trace((AᵀA)⁻¹WᵀW). OPT₊: HDMM's objective, the error of answering every part of the
    // workload from its own strategy, Σ_i c_i² f_i / s_i² = (Σ_i (c_i² f_i)^{1/3})³ at the
    // optimal scales s_i ∝ (c_i² f_i)^{1/3}; least squares on the whole stack is at most this
    // (it is the best linear unbiased estimator from all the measurements).
    double objective = 0;
    std::uint64_t queries = 0;
    DesignTemplate kind = DesignTemplate::PIdentity;  // PIdentity or Marginals
    std::string templateName;  // "OPT₀ p-Identity(16)", "OPT⊗ p-Identity(16) ⊗ …", "OPT_M …"
    std::vector<double> factorObjectives;    // per dimension (products only)
    std::vector<std::size_t> p;              // p-Identity: per dimension
    std::vector<std::vector<double>> theta;  // p-Identity: per dimension, Θ (p × n)
    std::vector<double> marginalWeights;     // OPT_M: θ_a per marginal (2^d, Σ = 1)
    std::vector<double> restartObjectives;   // OPT_M: the objective reached by every restart
    std::size_t rounds = 0;                  // union of Kronecker products: block rounds
    std::vector<std::unique_ptr<DesignedStrategy>> parts;  // OPT₊: every part's design
    std::vector<double> partScales;                        // OPT₊: s_i (Σ = 1)
    bool objectiveIsBound = false;  // OPT₊: objective bounds least squares from above
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

// The strategy of any design (p-Identity factors or marginal weights), rebuilt from its
// parameters.
Expected<std::unique_ptr<LinearStrategy>> strategyOf(const DomainShape& shape,
                                                     const DesignedStrategy& design);

// HDMM's default p for a dimension of n cells: max(1, n/16).
std::size_t defaultPIdentityP(std::size_t n);

// `p` per dimension (empty: the default for each; ignored by OPT_M). Cancellable, with progress.
Expected<DesignedStrategy> designStrategy(const Workload& w, std::vector<std::size_t> p = {},
                                          const StrategyOptimizeOptions& options = {},
                                          std::stop_token stop = {},
                                          const ProgressCallback& progress = {});
Expected<DesignedStrategy> designStrategy(const Workload& w, DesignTemplate t,
                                          std::vector<std::size_t> p = {},
                                          const StrategyOptimizeOptions& options = {},
                                          std::stop_token stop = {},
                                          const ProgressCallback& progress = {});

}  // namespace dpx
