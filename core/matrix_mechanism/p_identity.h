// The p-Identity strategy template of HDMM (McKenna, Miklau, Hay & Machanavajjhala, "Optimizing
// error of high-dimensional statistical queries under differential privacy", VLDB 2018, §5.1,
// OPT₀): A(Θ) = [I; Θ]·D with Θ ≥ 0 of p × n and D = diag(1 / (1 + Σ_a Θ_aj)) scaling every
// column to L1 norm 1, so ‖A‖₁ = 1 and the expected total squared error of least squares under
// Laplace(1/ε) noise per row is (2/ε²)·trace((AᵀA)⁻¹ WᵀW). The p extra rows are non-negative
// combinations of cells that the optimiser shapes to the workload.
//
// The objective and its gradient in O(p²n) plus two products with the workload's Gram operator
// (O(pn) for prefixes and all ranges), through the Woodbury identity — derivation:
//   M = I + ΘᵀΘ = D⁻¹AᵀAD⁻¹,  C = I_p + ΘΘᵀ,  M⁻¹ = I − ΘᵀC⁻¹Θ,  ΘM⁻¹ = C⁻¹Θ =: B,
//   Ĝ = D⁻¹GD⁻¹ (Ĝ_jk = d_j G_jk d_k, d_j = 1 + Σ_a Θ_aj),  P = ΘĜ,
//   f(Θ) = trace((AᵀA)⁻¹G) = trace(M⁻¹Ĝ) = Σ_j d_j² G_jj − trace(C⁻¹ P Θᵀ);
//   ∂f/∂Θ = −2·ΘM⁻¹ĜM⁻¹ + 2·1vᵀ,  ΘM⁻¹ĜM⁻¹ = Z − (ZΘᵀ)B with Z = C⁻¹P,
//   v_j = Σ_k (M⁻¹)_jk G_jk d_k = G_jj d_j − Σ_a Θ_aj ((B·diag(d))·G)_aj
// (the first term from M, the second from D's dependence on Θ). Tested against finite
// differences and a dense computation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/matrix_mechanism/gram_operator.h"
#include "core/matrix_mechanism/lbfgsb.h"
#include "core/workload/strategy.h"

namespace dpx {

class PIdentityStrategy final : public LinearStrategy {
public:
    // Θ is p × n, row-major, every entry finite and ≥ 0; 1 ≤ p, 1 ≤ n.
    static Expected<std::unique_ptr<PIdentityStrategy>> make(std::size_t n, std::size_t p,
                                                             std::vector<double> theta);
    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return n_ + p_; }
    double sensitivityL1() const override { return l1_; }
    double sensitivityL2() const override { return l2_; }
    void measure(std::span<const double> x, std::span<double> y) const override;
    void transposeMeasure(std::span<const double> y, std::span<double> x) const override;
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override;
    void solveGram(std::span<const double> b, std::span<double> out) const override;
    std::string describe() const override;

    std::size_t p() const { return p_; }
    const std::vector<double>& theta() const { return theta_; }

private:
    PIdentityStrategy() = default;
    std::size_t n_ = 0, p_ = 0;
    DomainShape shape_;
    std::vector<double> theta_;  // p × n
    std::vector<double> d_;      // 1 + column sums of Θ
    std::vector<double> cInv_;   // (I + ΘΘᵀ)⁻¹, p × p
    double l1_ = 1, l2_ = 1;
};

// f(Θ) = trace((A(Θ)ᵀA(Θ))⁻¹ G) and, when `gradient` is not empty, ∂f/∂Θ (p × n, row-major).
Expected<double> pIdentityObjective(const GramOperator& g, std::size_t p,
                                    std::span<const double> theta, std::span<double> gradient);

struct StrategyOptimizeOptions {
    std::size_t restarts = 3;  // independent random starts; the best is kept
    std::uint64_t seed = 0;    // restart r starts from stream r of this seed
    // Non-empty: the first restart starts here instead (a warm start, p × n, entries ≥ 0).
    std::vector<double> start;
    BoundedMinimizeOptions minimizer;
    // Restarts run concurrently on this many threads (0: all cores; never more than restarts).
    // The result does not depend on it: every restart has its own start and the best is chosen
    // in restart order.
    unsigned threads = 0;
};

// Makes one objective for one worker: objectives keep scratch buffers, so each thread of a
// multi-start run has its own (built from shared read-only data).
using ObjectiveFactory = std::function<ObjectiveWithGradient()>;

// L-BFGS-B from `options.restarts` starts over `size` parameters within [lower, upper]: restart
// 0 from options.start when given, every other (and 0 otherwise) from U[0, 1) (stream r of
// options.seed, HDMM's initialisation); the best end point is kept (the first of equals, in
// restart order). The restarts run on options.threads threads through the trial engine
// (core/base/trial_blocks), one objective from `makeObjective` per thread; the Debian L-BFGS-B
// library keeps its state in the caller's arrays, so concurrent runs do not share any.
// Cancellable; progress over the restarts (within one, a saturating guess: L-BFGS-B's iterations
// are not known ahead), reported from the worker threads one call at a time.
struct MultiStartResult {
    std::vector<double> best;
    double objective = 0;
    std::vector<double> restartObjectives;
    std::size_t iterations = 0, evaluations = 0;
};
Expected<MultiStartResult> minimizeFromStarts(const ObjectiveFactory& makeObjective,
                                              std::size_t size, std::span<const double> lower,
                                              std::span<const double> upper,
                                              const StrategyOptimizeOptions& options,
                                              std::stop_token stop,
                                              const ProgressCallback& progress);

struct PIdentityResult {
    std::unique_ptr<PIdentityStrategy> strategy;
    double objective = 0;  // trace((AᵀA)⁻¹ G) of the best restart
    std::vector<double> restartObjectives;
    std::size_t iterations = 0;   // over all restarts
    std::size_t evaluations = 0;  // objective + gradient evaluations over all restarts
};

// OPT₀: minimises f over Θ ≥ 0 by L-BFGS-B from `restarts` random starts Θ ~ U[0, 1)
// (HDMM's initialisation). Cancellable; progress in [0, 1] by restarts and iterations.
Expected<PIdentityResult> optimizePIdentity(const GramOperator& g, std::size_t p,
                                            const StrategyOptimizeOptions& options = {},
                                            std::stop_token stop = {},
                                            const ProgressCallback& progress = {});

// The root mean squared error per query of least squares on a strategy with ‖A‖₁ = 1 and
// objective f = trace((AᵀA)⁻¹G) over q queries, under Laplace(1/ε) per row:
// √(2f / (ε²q)) (HDMM's `rootmse`; at its default ε = √2 this is √(f/q)).
double laplaceRmse(double objective, std::uint64_t queries, double epsilon);

}  // namespace dpx
