// HDMM's marginals template, OPT_M (McKenna, Miklau, Hay & Machanavajjhala, VLDB 2018, §6.3):
// the strategy measures every marginal a ⊆ {1 … d} of the table with weight θ_a ≥ 0,
//   A(θ) = [θ_a·M_a]_a,  M_a = ⊗_i (I_{n_i} if i ∈ a else 1ᵀ_{n_i}),
// so ‖A‖₁ = Σ_a θ_a (every cell lies in exactly one cell of each marginal) and
//   AᵀA = Σ_a θ_a² C_a,  C_a = M_aᵀM_a = ⊗_i (I if i ∈ a else J),  J = 1·1ᵀ.
//
// Exact error without HDMM's O(4^d) triangular solves — derivation (ours): on each attribute, I
// and J share the eigenvectors u_0 = 1/√n (eigenvalues 1 and n) and the n − 1 vectors orthogonal
// to it (1 and 0). The tensor products of these bases diagonalise every C_a at once: on the
// eigenspace E_s (s = the attributes whose factor is orthogonal to 1; dimension
// m_s = ∏_{i∈s}(n_i − 1)) C_a acts as [s ⊆ a]·P_a with P_a = ∏_{i∉a} n_i. Hence
//   AᵀA = Σ_s λ_s Π_s,  λ_s = Σ_{a ⊇ s} θ_a² P_a           (a superset-sum transform),
// and a marginals workload WᵀW = Σ_b w_b C_b has μ_s = Σ_{b ⊇ s} w_b P_b on E_s, so
//   trace((AᵀA)⁺WᵀW) = Σ_s m_s μ_s / λ_s,
//   ∂/∂θ_a = −2θ_a P_a Σ_{s ⊆ a} m_s μ_s / λ_s²            (a subset-sum transform),
// O(d·2^d) per evaluation: all 2-way marginals of 16 binary attributes cost ~10⁶ operations.
// The objective minimised is f(θ) = (Σθ)²·Σ_s m_s μ_s / λ_s (scale-free; the error at ‖A‖₁ = 1).
// Gaussian measurement (noise calibrated on ‖A‖₂): every column of M_a holds exactly one 1, so a
// column of A has L2 norm √(Σθ_a²) and the objective is f₂(θ) = (Σθ²)·T(θ), T = Σ_s m_s μ_s/λ_s,
// with ∂f₂/∂θ_a = 2θ_a·T + (Σθ²)·∂T/∂θ_a (also scale-free: λ is homogeneous of degree 2).
// The pseudo-inverse is meant: eigenspaces the workload does not touch (μ_s = 0) may have
// λ_s = 0; those the workload touches must not (a lower bound keeps θ_b > 0 for every workload
// marginal b, which makes λ_s > 0 wherever μ_s > 0).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/matrix_mechanism/p_identity.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpx {

// OPT_M handles at most 20 attributes (2^20 marginal weights).
inline constexpr std::size_t kMaxMarginalsAttributes = 20;

// The workload as marginal weights w_b (2^d, bit i of b = attribute i kept): identity (b = all),
// total (b = ∅) and k-way marginals (w_b = 1 for |b| in the orders). Others are refused.
Expected<std::vector<double>> marginalsWorkloadWeights(const Workload& w);

// f(θ) (`law` Laplace) or f₂(θ) (Gaussian) and, when `gradient` is not empty, its gradient (see
// the file comment). θ has 2^d entries ≥ 0. Errors: sizes, a negative or non-finite θ, λ_s = 0
// where the workload needs it.
Expected<double> marginalsObjective(const DomainShape& shape, std::span<const double> workload,
                                    std::span<const double> theta, std::span<double> gradient,
                                    MeasurementNoise law = MeasurementNoise::Laplace);

struct MarginalsDesign {
    std::vector<double> theta;  // 2^d, Σθ = 1
    double objective = 0;       // f or f₂ (options.measurement) at the result
    std::vector<double> restartObjectives;
    std::size_t iterations = 0;
};

// Minimises f (Laplace) or f₂ (Gaussian, options.measurement) over θ ≥ 0 by L-BFGS-B from
// `options.restarts` random starts θ ~ U[0, 1) (HDMM's initialisation). Cancellable, with progress.
Expected<MarginalsDesign> optimizeMarginals(const DomainShape& shape,
                                            std::span<const double> workload,
                                            const StrategyOptimizeOptions& options = {},
                                            std::stop_token stop = {},
                                            const ProgressCallback& progress = {});

// The strategy A(θ) as an implicit matrix: rows = the cells of every marginal with θ_a > 0, in
// increasing a (bit order), each in C order of its kept attributes. θ is normalised to Σθ = 1.
// solveGram applies the pseudo-inverse (AᵀA)⁺ in the eigenbasis (one orthogonal transform per
// attribute: the constant vector and Helmert's contrasts), so least squares returns the
// minimum-norm solution; workload queries in A's row space are answered without bias.
class MarginalsStrategy final : public LinearStrategy {
public:
    static Expected<std::unique_ptr<MarginalsStrategy>> make(DomainShape shape,
                                                             std::vector<double> theta);
    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return rows_; }
    double sensitivityL1() const override { return 1; }
    double sensitivityL2() const override { return l2_; }
    void measure(std::span<const double> x, std::span<double> y) const override;
    void transposeMeasure(std::span<const double> y, std::span<double> x) const override;
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override;
    void solveGram(std::span<const double> b, std::span<double> out) const override;
    std::string describe() const override;

    const std::vector<double>& theta() const { return theta_; }
    // The measured marginals (θ_a > 0), increasing.
    const std::vector<std::size_t>& active() const { return active_; }

private:
    MarginalsStrategy() = default;
    // Calls f(cell, marginal index per active marginal) over all cells in C order.
    template <class F>
    void forEachCell(F&& f) const;
    DomainShape shape_;
    std::vector<double> theta_;        // 2^d, Σ = 1
    std::vector<std::size_t> active_;  // a with θ_a > 0
    std::vector<std::size_t> offset_;  // first row of each active marginal
    std::vector<std::vector<std::size_t>>
        stride_;                              // per active marginal, per attribute (0 if summed)
    std::vector<double> lambda_;              // eigenvalue per s (2^d)
    std::vector<std::vector<double>> basis_;  // per attribute: n × n orthogonal Q (row-major)
    std::size_t rows_ = 0;
    double l2_ = 1;
};

}  // namespace dpx
