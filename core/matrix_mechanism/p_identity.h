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
//
// Gaussian measurement (issue #23, session 32): the noise is calibrated on the L2 sensitivity
// ‖A‖₂ (the largest column L2 norm), so the error is ‖A‖₂²·trace((AᵀA)⁻¹WᵀW). The same template
// with the columns scaled to unit L2 norm instead, d_j = √(1 + Σ_a Θ_aj²), has ‖A‖₂ = 1; M, C,
// B, Ĝ, f and v above do not depend on how d is defined (f = trace(M⁻¹Ĝ) = Σ_jk (M⁻¹)_jk d_j d_k
// G_jk, and ∂f/∂d_j at fixed M is 2v_j). Only ∂d_j/∂Θ_aj changes: 1 under L1, Θ_aj/d_j under
// L2, so
//   ∂f/∂Θ_aj = −2(ΘM⁻¹ĜM⁻¹)_aj + 2 v_j·Θ_aj/d_j    (L2 columns).
// The ratio of the L2 design's Gaussian error to the L1 design's is measured in the tests.
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
    // Θ is p × n, row-major, every entry finite and ≥ 0; 1 ≤ p, 1 ≤ n. `norm`: the columns are
    // scaled to unit L1 norm (Laplace, HDMM's) or to unit L2 norm (Gaussian).
    static Expected<std::unique_ptr<PIdentityStrategy>> make(
        std::size_t n, std::size_t p, std::vector<double> theta,
        MeasurementNoise norm = MeasurementNoise::Laplace);
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
    std::vector<double> d_;      // 1 + column sums of Θ (L1), √(1 + column sums of Θ²) (L2)
    std::vector<double> cInv_;   // (I + ΘΘᵀ)⁻¹, p × p
    double l1_ = 1, l2_ = 1;
};

// f(Θ) = trace((A(Θ)ᵀA(Θ))⁻¹ G) and, when `gradient` is not empty, ∂f/∂Θ (p × n, row-major),
// with A(Θ)'s columns of unit L1 norm (`law` Laplace) or unit L2 norm (Gaussian).
Expected<double> pIdentityObjective(const GramOperator& g, std::size_t p,
                                    std::span<const double> theta, std::span<double> gradient,
                                    MeasurementNoise law = MeasurementNoise::Laplace);

struct StrategyOptimizeOptions {
    std::size_t restarts = 3;  // independent random starts; the best is kept
    std::uint64_t seed = 0;    // restart r starts from stream r of this seed
    // Non-empty: the first restart starts here instead (a warm start, p × n, entries ≥ 0).
    std::vector<double> start;
    BoundedMinimizeOptions minimizer;
    // The measurement the strategy is designed for: Laplace minimises ‖A‖₁²·trace((AᵀA)⁻¹WᵀW)
    // (HDMM's objective), Gaussian ‖A‖₂²·trace((AᵀA)⁻¹WᵀW) (noise calibrated on L2).
    MeasurementNoise measurement = MeasurementNoise::Laplace;
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

// OPT₀: minimises f (columns normalised for options.measurement) over Θ ≥ 0 by L-BFGS-B from
// `restarts` random starts Θ ~ U[0, 1) (HDMM's initialisation). Cancellable; progress in [0, 1] by
// restarts and iterations.
Expected<PIdentityResult> optimizePIdentity(const GramOperator& g, std::size_t p,
                                            const StrategyOptimizeOptions& options = {},
                                            std::stop_token stop = {},
                                            const ProgressCallback& progress = {});

// The root mean squared error per query of least squares on a strategy with ‖A‖₁ = 1 and
// objective f = trace((AᵀA)⁻¹G) over q queries, under Laplace(1/ε) per row:
// √(2f / (ε²q)) (HDMM's `rootmse`; at its default ε = √2 this is √(f/q)).
double laplaceRmse(double objective, std::uint64_t queries, double epsilon);
// The same under Gaussian measurement for a strategy with ‖A‖₂ = 1 and objective f: σ is the
// noise per unit L2 sensitivity (gaussianSigma at Δ₂ = 1): √(σ²f / q).
double gaussianRmse(double objective, std::uint64_t queries, double sigma);

}  // namespace dpx
