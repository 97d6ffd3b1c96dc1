// Data-independent measurement strategies and least-squares inference (issue #20): measure
// y = A·x + noise with a strategy matrix A that does not depend on the data, answer the workload
// from x̂ = argmin ‖A·x̂ − y‖₂ (or with x̂ ≥ 0). With i.i.d. noise of variance σ² per row the error
// of every linear query w is exact and data-free (Li, Miklau, Hay, McGregor & Rastogi, "The
// matrix mechanism", VLDB J. 2015):  E[(wᵀx̂ − wᵀx)²] = σ²·wᵀ(AᵀA)⁻¹w, and over a workload
// E‖W x̂ − W x‖₂² = σ²·trace(W (AᵀA)⁻¹ Wᵀ) = σ²·trace((AᵀA)⁻¹ WᵀW).
// Laplace noise of scale b = Δ₁(A)/ε per row (Δ₁ = largest column L1 norm) gives σ² = 2b².
//
// Strategies are implicit (identity, b-ary hierarchies, Haar wavelet, weighted hierarchies,
// Kronecker products): A is never materialised where it has structure, and least squares uses
// the structure (tree: two passes, Hay, Rastogi, Miklau & Suciu VLDB 2010; Haar: the inverse
// transform), falling back to conjugate gradients on AᵀA.
//
// CONTRACT (issue #20; implemented by helper "workload"; #23's HDMM strategies will implement
// the same interface).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/workload/workload.h"

namespace dpx {

class SimulationRng;

class LinearStrategy {
public:
    virtual ~LinearStrategy() = default;
    virtual const DomainShape& shape() const = 0;
    virtual std::size_t rows() const = 0;
    // Δ₁(A): the largest L1 norm of a column (the L1 sensitivity of A·x when one record changes
    // one cell by one).
    virtual double sensitivityL1() const = 0;
    // Δ₂(A): the largest L2 norm of a column.
    virtual double sensitivityL2() const = 0;
    // y = A·x (y.size() == rows()).
    virtual void measure(std::span<const double> x, std::span<double> y) const = 0;
    // x = Aᵀ·y.
    virtual void transposeMeasure(std::span<const double> y, std::span<double> x) const = 0;
    // x̂ = argmin ‖A·x̂ − y‖₂ (A has full column rank), by the structure's fast path.
    virtual void leastSquares(std::span<const double> y, std::span<double> xhat) const = 0;
    // out = (AᵀA)⁻¹·b.
    virtual void solveGram(std::span<const double> b, std::span<double> out) const = 0;
    // "binary hierarchy (H₂), 13 levels", "Haar wavelet (Privelet)", ...
    virtual std::string describe() const = 0;
};

// The strategies of the DPBench data-independent algorithms.
std::unique_ptr<LinearStrategy> identityStrategy(DomainShape shape);
// Hierarchy of b-ary intervals over a 1-D domain, levels from the root (the total) to the leaves
// (H₂: b = 2, Hay et al. 2010); `levelWeights` (empty = all 1) scales each level's rows (GreedyH).
Expected<std::unique_ptr<LinearStrategy>> hierarchicalStrategy(
    std::size_t n, std::size_t branching, std::vector<double> levelWeights = {});
// HB's branching for a 1-D domain of n cells (Qardaji, Yang & Li, "Understanding hierarchical
// methods for differentially private histograms", PVLDB 2013): the b minimising their
// variance bound; in k-D the hierarchy over a grid of b^k children per node.
std::size_t hbBranching(std::size_t n);
Expected<std::unique_ptr<LinearStrategy>> hbStrategy(DomainShape shape);
// Haar wavelet (Privelet; Xiao, Wang & Gehrke, ICDE 2010); in 2-D the Kronecker product of the
// 1-D transforms (Privelet-2D).
Expected<std::unique_ptr<LinearStrategy>> haarStrategy(DomainShape shape);
// Quadtree over a 2-D domain (Cormode, Procopiuc, Srivastava, Shen & Yu, ICDE 2012), all levels
// equally weighted (DPBench's QuadTree).
Expected<std::unique_ptr<LinearStrategy>> quadtreeStrategy(DomainShape shape);
// Kronecker product A₁ ⊗ … ⊗ A_k of 1-D strategies (k-D shape = the factors' sizes).
Expected<std::unique_ptr<LinearStrategy>> kroneckerStrategy(
    std::vector<std::unique_ptr<LinearStrategy>> factors);

// The stacked strategy A = [s_1 A_1; s_2 A_2; …] over one domain (HDMM's OPT₊, issue #23):
// scales s_i > 0. Δ₁ is bounded by Σ s_i Δ₁(A_i) and Δ₂ by √Σ s_i² Δ₂(A_i)² (equal when every
// part's columns share their norm, as the designed strategies' do); least squares by conjugate
// gradients on AᵀA = Σ s_i² A_iᵀA_i.
Expected<std::unique_ptr<LinearStrategy>> stackedStrategy(
    std::vector<std::unique_ptr<LinearStrategy>> parts, std::vector<double> scales);

// A·diag(c): `inner` with column j scaled by c_j > 0 (one entry: every column by c). The caller
// states the result's sensitivities l1 = max_j c_j‖A e_j‖₁ and l2 = max_j c_j‖A e_j‖₂, which it
// knows exactly (the integer roundings of designed strategies, issue #23). Least squares and
// (AᵀA)⁻¹ go through `inner`'s fast paths.
Expected<std::unique_ptr<LinearStrategy>> columnScaledStrategy(
    std::unique_ptr<LinearStrategy> inner, std::vector<double> scales, double l1, double l2);

enum class MeasurementNoise { Laplace, Gaussian };

// How the strategy's rows are measured: i.i.d. noise per row, calibrated on the strategy's
// sensitivity. Laplace: scale b = Δ₁(A)/ε, ε-DP, variance 2b². Gaussian: σ = gaussianSigma(ε, δ,
// Δ₂(A)) with the chosen calibration (core/mechanisms/gaussian_mechanism.h; default the analytic
// Gaussian mechanism of Balle & Wang 2018), (ε, δ)-DP, variance σ². Either way one record changes
// A·x by one column of A, whose L1 / L2 norm is at most Δ₁ / Δ₂.
struct MeasurementSpec {
    MeasurementNoise noise = MeasurementNoise::Laplace;
    double epsilon = 1;
    double delta = 1e-6;  // Gaussian only, in (0, 1)
    GaussianCalibration calibration = GaussianCalibration::Analytic;
    static MeasurementSpec laplace(double epsilon);
    static MeasurementSpec gaussian(double epsilon, double delta,
                                    GaussianCalibration c = GaussianCalibration::Analytic);
    Status validate() const;
    std::string describe() const;  // "Laplace, ε = 1" / "Gaussian (analytic), ε = 1, δ = 1e-06"
};

// The noise variance of one measured row of `strategy` under `spec` (2(Δ₁/ε)² or σ²).
Expected<double> measurementVariance(const LinearStrategy& strategy, const MeasurementSpec& spec);

// Exact expected error of least squares on `strategy` for `w`:
// E‖W x̂ − W x‖₂² = σ²·trace(W (AᵀA)⁻¹ Wᵀ) with σ² the per-row variance above.
struct ExpectedWorkloadError {
    double totalSquared = 0;               // E‖W x̂ − W x‖₂²
    double rmse = 0;                       // √(totalSquared / q)
    std::vector<double> perQueryVariance;  // E[(w_qᵀx̂ − w_qᵀx)²], explicit workloads only
};
Expected<ExpectedWorkloadError> expectedLeastSquaresError(const LinearStrategy& strategy,
                                                          const Workload& w,
                                                          const MeasurementSpec& spec,
                                                          bool perQuery = false);
// Laplace measurement at ε (the DPBench algorithms).
Expected<ExpectedWorkloadError> expectedLeastSquaresError(const LinearStrategy& strategy,
                                                          const Workload& w, double epsilon,
                                                          bool perQuery = false);

// Noisy measurement y = A·x + noise per row from a simulation generator (benchmarks, previews —
// never a release).
Expected<std::vector<double>> measureStrategy(const LinearStrategy& strategy,
                                              std::span<const double> x,
                                              const MeasurementSpec& spec, SimulationRng& rng);
// y = A·x + Laplace(Δ₁/ε) per row. ε > 0 finite.
Expected<std::vector<double>> measureLaplace(const LinearStrategy& strategy,
                                             std::span<const double> x, double epsilon,
                                             SimulationRng& rng);

// Non-negative least squares: argmin ‖A·x̂ − y‖₂ subject to x̂ ≥ 0 (projected gradient with
// Barzilai–Borwein steps on the implicit A, stopping at a relative KKT residual of `tolerance`
// or `maxIterations`). Cancellable.
Expected<std::vector<double>> nonNegativeLeastSquares(const LinearStrategy& strategy,
                                                      std::span<const double> y,
                                                      std::stop_token stop = {},
                                                      double tolerance = 1e-6,
                                                      std::size_t maxIterations = 2000);

}  // namespace dpx
