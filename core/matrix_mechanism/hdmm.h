// Designing a strategy for a workload (issue #23; HDMM: McKenna, Miklau, Hay & Machanavajjhala,
// VLDB 2018): choose the strategy matrix A that minimises the expected error of least squares on
// the workload W — trace((AᵀA)⁻¹WᵀW)·‖A‖₁² — before any data is touched.
// That is the error under Laplace measurement (noise calibrated on the L1 sensitivity ‖A‖₁).
// Under Gaussian measurement the noise is calibrated on ‖A‖₂ (the largest column L2 norm), the
// error is σ²·‖A‖₂²·trace((AᵀA)⁻¹WᵀW) with σ the Gaussian noise per unit L2 sensitivity, and
// StrategyOptimizeOptions::measurement = Gaussian minimises ‖A‖₂²·trace((AᵀA)⁻¹WᵀW) instead
// (issue #23, session 32): p-Identity factors with unit L2 columns (p_identity.h), Kronecker
// products and their unions unchanged (L2 norms multiply), OPT_M with ‖A‖₂² = Σθ_a²
// (marginals_strategy.h), and OPT₊'s scales for Σ s_i² = 1 (below).
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
    // Laplace designs: ‖A‖₁ = 1. Gaussian designs: ‖A‖₂ = 1 (p-Identity products, OPT₊ stacks)
    // or Σθ = 1 (OPT_M, whose ‖A‖₂ = √Σθ² is then below 1: the objective is scale-free).
    std::unique_ptr<LinearStrategy> strategy;
    MeasurementNoise measurement = MeasurementNoise::Laplace;  // the law it was designed for
    // Δ²·trace((AᵀA)⁻¹WᵀW) with Δ = ‖A‖₁ (Laplace) or ‖A‖₂ (Gaussian): the total squared error
    // per unit of noise variance at unit sensitivity.
    // OPT₊: HDMM's objective, the error of answering every part of the workload from its own
    // strategy. Laplace: Σ_i c_i² f_i / s_i² subject to Σ s_i = 1 (‖A‖₁ = Σ s_i) is
    // (Σ_i (c_i² f_i)^{1/3})³ at s_i ∝ (c_i² f_i)^{1/3}. Gaussian: ‖A‖₂² = Σ s_i² (every part's
    // columns have unit L2 norm), and with t_i = s_i² the Lagrange condition of
    // min Σ a_i/t_i s.t. Σ t_i = 1 (a_i = c_i² f_i) is a_i/t_i² = λ, so s_i² ∝ √(a_i) = c_i√f_i
    // and the objective is (Σ_i c_i√f_i)². Least squares on the whole stack is at most this (it
    // is the best linear unbiased estimator from all the measurements).
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
    // OPT₊: the scale of every part's strategy as strategyOf rebuilds it: s_i (Σ s_i = 1) under
    // Laplace; s_i/‖A_i‖₂ (Σ s_i² = 1) under Gaussian.
    std::vector<double> partScales;
    bool objectiveIsBound = false;  // OPT₊: objective bounds least squares from above
    std::size_t iterations = 0;
    // RMSE per query under Laplace measurement at ε (laplaceRmse) of a Laplace design.
    double rmse(double epsilon) const { return laplaceRmse(objective, queries, epsilon); }
};

// RMSE per query from the design's objective under `spec`, whose law must be the one the design
// was made for: √(v·objective / q) with v the noise variance at unit sensitivity (2/ε² under
// Laplace, σ(ε, δ, Δ₂ = 1)² under Gaussian).
Expected<double> designRmse(const DesignedStrategy& design, const MeasurementSpec& spec);

const char* measurementName(MeasurementNoise m);  // "laplace", "gaussian"
Expected<MeasurementNoise> measurementFromName(const std::string& name);

// The strategy of a design: one p-Identity per dimension (Θ_d of p_d × shape[d]), their
// Kronecker product in several dimensions. designStrategy builds its strategy with it; callers
// that keep only Θ rebuild the same strategy.
Expected<std::unique_ptr<LinearStrategy>> strategyFromDesign(
    const DomainShape& shape, const std::vector<std::size_t>& p,
    const std::vector<std::vector<double>>& theta,
    MeasurementNoise norm = MeasurementNoise::Laplace);

// The strategy of any design (p-Identity factors or marginal weights), rebuilt from its
// parameters.
Expected<std::unique_ptr<LinearStrategy>> strategyOf(const DomainShape& shape,
                                                     const DesignedStrategy& design);

// HDMM's default p for a dimension of n cells: max(1, n/16).
std::size_t defaultPIdentityP(std::size_t n);

// `p` per dimension (empty: the default for each; ignored by OPT_M); options.measurement chooses
// the objective (Laplace or Gaussian). Cancellable, with progress.
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
