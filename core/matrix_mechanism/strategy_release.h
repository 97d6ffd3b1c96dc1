// Releasing a table through a designed strategy (issue #23): the matrix mechanism (Li, Miklau,
// Hay, McGregor & Rastogi, VLDB J. 2015) with an HDMM strategy (McKenna, Miklau, Hay &
// Machanavajjhala, VLDB 2018), made exact for a release.
//
//  1. Planning, without the data: the workload's strategy A is designed (hdmm.h) and rounded to
//     an integer matrix K ≈ Q·A (integer_strategy.h); K's exact error on the workload is known.
//  2. Measuring: y = K·x exactly in integers, plus discrete Laplace noise of scale t = Δ1/ε per
//     row from the exact samplers on OS randomness (core/release/exact_samplers.h), where
//     Δ1 = Δ1(K)·(cap, or 2·cap for replace neighbours). One person changes x by at most cap
//     cells (±1 each; replace: a move), hence K·x by a vector of L1 norm ≤ Δ1 (K ≥ 0, so a move
//     e_i − e_j changes it by at most 2Δ1(K)): ε-DP (Ghosh, Roughgarden & Sundararajan 2009; CKS
//     2020), with ρ = ε²/2 for zCDP accounting.
//     Or discrete Gaussian noise N_Z(0, σ²) per row (CKS 2020 Algorithm 3), σ² calibrated to
//     Δ2² = Δ2(K)²·(cap², or 2·cap² for replace neighbours), Δ2(K)² K's largest squared column
//     L2 norm. Add/remove: a person's rows change x by u ≥ 0 with ‖u‖₁ ≤ cap, so
//     ‖K·u‖₂ ≤ Σ_i u_i‖K·e_i‖₂ ≤ cap·Δ2(K). Replace: x moves by u − w (u, w ≥ 0, each of L1 norm
//     ≤ cap), and since K ≥ 0 both K·u and K·w are ≥ 0, so ⟨K·u, K·w⟩ ≥ 0 and
//     ‖K(u − w)‖₂² = ‖K·u‖₂² + ‖K·w‖₂² − 2⟨K·u, K·w⟩ ≤ 2·cap²·Δ2(K)² (a single move e_j − e_i:
//     ≤ 2·Δ2(K)², reached when the two columns have disjoint support). Independent discrete
//     Gaussians on the rows are ρ-zCDP with ρ = Δ2²/(2σ²) (CKS 2020 Thm 14); δ by CKS Cor. 13
//     (calibrateGaussianByZcdp: the exact one-coordinate δ of CKS Thm 7 does not apply, a
//     person changes many rows). A PLD ledger does not account it (its discrete Gaussian is a
//     one-bin law; the multivariate discrete Gaussian's loss is not): basic or zCDP ledgers.
//  3. Inference, post-processing of y alone: x̂ = argmin ‖K·x̂ − y‖₂ (K has full column rank), the
//     published cells; unbiased, with variance v·e_jᵀ(KᵀK)⁻¹e_j (v the discrete Laplace variance)
//     and a per-cell interval: the smaller of ±H·√(e_jᵀ(KᵀK)⁻¹e_j) (core/intervals:
//     linearEstimateInterval, a bound valid for any coefficients) and the simulated law of the
//     estimate (core/intervals/simulated_linear.h, data-free). The measurements and K's entries
//     are published with the cells, so anyone can answer further queries from them.
//     An OPT_M design that does not measure the full table (K rank-deficient: the usual optimum
//     for all k-way marginals, k < d) does not determine the cells, but it determines every
//     marginal b it measures a superset of: M_b = S·M_a for a ⊇ b (S sums out a \ b), so M_b's
//     rows lie in K's row space. Then the release publishes the workload's marginals M_b·x̂ with
//     x̂ = K⁺y the minimum-norm least-squares solution: M_b·K⁺K = M_b, so M_b·x̂ = M_b·x +
//     M_b·K⁺z is unbiased with variance v·m_qᵀ(KᵀK)⁺m_q per published value q (m_q its row of
//     M_b), and the same two intervals with those coefficients. Privacy is unchanged: the noise
//     is on K·x and everything published is post-processing of y.
//     planStrategyRelease checks the workload structurally (every workload marginal inside a
//     measured one) and numerically (‖K⁺K·m − m‖ ≈ 0), and refuses otherwise.
// This file draws the release's randomness only through ReleaseRandomness; it is in dpx_core
// (the strategies live there) and tests/lint/check-layers.sh forbids it the simulation
// generator. The simulated intervals use that generator inside core/intervals on a public seed:
// they are a function of the noise law and K only, never of the data or of the release's noise.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/histogram/histogram.h"
#include "core/intervals/intervals.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/matrix_mechanism/integer_strategy.h"
#include "core/release/release.h"
#include "core/release/release_rng.h"
#include "core/table/table.h"
#include "core/workload/workload.h"

namespace dpx {

struct StrategyIntervalCache;

// What a release through a plan publishes.
enum class StrategyPublished {
    Cells,              // x̂, every cell in C order (K of full column rank)
    WorkloadMarginals,  // M_b·x̂ for the workload's marginals b (K rank-deficient; see above)
};

// Everything a strategy release needs that does not depend on the data.
struct StrategyReleasePlan {
    std::shared_ptr<const Workload> workload;
    std::string templateName;  // the design's ("OPT₀ p-Identity(16)")
    // The measurement the strategy was designed for (options.measurement): a discrete Gaussian
    // release uses a Gaussian design (‖A‖₂²·trace minimised), a discrete Laplace one a Laplace
    // design. Either way the release calibrates on K's own exact Δ1 or Δ2.
    MeasurementNoise measurement = MeasurementNoise::Laplace;
    std::shared_ptr<const IntegerStrategy> strategy;
    StrategyPublished published = StrategyPublished::Cells;
    // WorkloadMarginals: the marginals published, each once, in the order the workload lists
    // them (bit i of b: attribute i kept; 0 the grand total); the values are their cells one
    // marginal after another, each in C order of its kept attributes.
    std::vector<std::size_t> publishedMarginals;
    // Per published value, the variance of its estimate per unit of row noise variance:
    // e_jᵀ(KᵀK)⁻¹e_j per cell (C order), or m_qᵀ(KᵀK)⁺m_q per published marginal cell.
    std::vector<double> valueForms;
    // The simulated intervals by noise law and level (strategyIntervals), shared by a plan's
    // preview and release; null in a plan made by hand (then computed each time).
    std::shared_ptr<StrategyIntervalCache> intervalCache;
};

// Designs the strategy for `w` with template `t` (p and options as designStrategy takes them;
// options.measurement: the law the release will use, see strategyMeasurementFor), rounds it
// (chooseIntegerStrategy with `tolerance`) and computes the value forms. A strategy that does
// not determine every cell publishes the workload's marginals when it determines them (see the
// file comment), and is refused otherwise. Cancellable.
Expected<StrategyReleasePlan> planStrategyRelease(std::shared_ptr<const Workload> w,
                                                  DesignTemplate t, std::vector<std::size_t> p = {},
                                                  const StrategyOptimizeOptions& options = {},
                                                  double tolerance = 0.005,
                                                  std::stop_token stop = {});

// The plan of an integer strategy already rounded (planStrategyRelease's last step; tests
// construct strategies with it): what it publishes, checked as above, and the value forms.
Expected<StrategyReleasePlan> planFromIntegerStrategy(std::shared_ptr<const Workload> w,
                                                      std::string templateName, IntegerStrategy k);

// The number of values a release through `plan` publishes (cells, or the published marginals'
// cells).
std::size_t strategyPublishedCount(const StrategyReleasePlan& plan);

// The published values from the noisy measurements y (K's row order): x̂ = K⁺y by the strategy's
// least squares, then the cells or the published marginals of x̂. `out` has
// strategyPublishedCount(plan) entries. Used by the release, its simulated intervals and the
// audits, so that all three publish the same function of y.
void strategyEstimates(const StrategyReleasePlan& plan, std::span<const double> y,
                       std::span<double> out);

// What a release through `plan` publishes, in words: "the 12 cells of the table" or "the
// workload's marginals, not the cells (the full table is not measured): sex × class, sex × age,
// class × age (16 values)".
// `names`: the attributes' names in order (missing ones read "attribute i").
std::string strategyPublishedText(const StrategyReleasePlan& plan,
                                  const std::vector<std::string>& names = {});

// The plan for a workload given as text, made once the declared shape is known (the release job
// calls it after reading the bins, before drawing noise): the workload on that shape, the design
// with template `t` (p: one per dimension, or one for all) and its rounding. Errors name the
// problem (bad workload for the shape, a design that does not determine the cells).
using StrategyPlanner =
    std::function<Expected<std::shared_ptr<const StrategyReleasePlan>>(const DomainShape&)>;
StrategyPlanner strategyPlanner(WorkloadSpec workload, DesignTemplate t,
                                std::vector<std::size_t> p = {},
                                StrategyOptimizeOptions options = {});

// The law a strategy is designed for when released with `m`: Gaussian for discrete-gaussian,
// else Laplace.
MeasurementNoise strategyMeasurementFor(ReleaseMechanism m);

// The spec checks of a strategy release (valid spec, discrete-laplace or discrete-gaussian, no
// post-processing); the message starts with the parameter's name.
Status checkStrategyReleaseSpec(const ReleaseSpec& spec);

// What the release states before any data is read: the noise law per row (discrete Laplace or
// discrete Gaussian), the expected RMSE on the workload, the per-cell and all-cells intervals
// (also used by previews).
struct StrategyReleaseLaw {
    ReleaseMechanism mechanism = ReleaseMechanism::DiscreteLaplace;
    std::int64_t l1 = 0;         // Δ1 = Δ1(K)·(cap or 2·cap)
    std::int64_t l2Squared = 0;  // Δ2² = Δ2(K)²·(cap² or 2·cap²)
    Rational scale;              // discrete Laplace: t = Δ1/ε
    double alpha = 0;            // discrete Laplace: e^(−1/t)
    // discrete Gaussian: σ² calibrated on Δ2² (σ², ρ = Δ2²/(2σ²), δ achieved, method).
    std::optional<ReleaseGaussianCalibration> gaussian;
    double rowVariance = 0;  // the exact variance of one row's noise
    double expectedRmse = 0;
    ReleaseIntervalStatement intervals;
};
Expected<StrategyReleaseLaw> strategyReleaseLaw(const ReleaseSpec& spec,
                                                const StrategyReleasePlan& plan);

// The per-cell and all-cells intervals of a plan's estimates when every measurement receives
// independent `rowNoise`: per cell the smaller of the bound valid for any coefficients
// (linearEstimateInterval) and the simulated law of the estimate (core/intervals/
// simulated_linear.h: ≤ 10 000 data-free draws from a public seed, an order statistic that
// covers unless an event of probability ≤ 10⁻⁹ occurred in the simulation); all cells at once
// the smaller of Bonferroni and the simulated largest studentised error. Too large a plan for
// the simulation's budget states the bound alone.
Expected<ReleaseIntervalStatement> strategyIntervals(const StrategyReleasePlan& plan,
                                                     const CellNoise& rowNoise, double level,
                                                     std::stop_token stop = {});
// What a strategy release charges (the ReleaseCost releaseCost gives a histogram release): ε and
// δ as typed; ρ = ε²/2 (discrete Laplace) or Δ2²/(2σ²) at the σ² calibrated on K's Δ2 (discrete
// Gaussian), with that σ².
Expected<ReleaseCost> strategyReleaseCost(const ReleaseSpec& spec, const StrategyReleasePlan& plan);

// The release of a histogram (1-D strategy over its bins) or of a table (a strategy over its
// shape). spec.mechanism must be discrete-laplace or discrete-gaussian and spec.postProcessing
// none (the inference is least squares). Every failure returns an Error and no values.
Expected<HistogramRelease> releaseThroughStrategy(const ReleaseSpec& spec,
                                                  const StrategyReleasePlan& plan,
                                                  const Histogram& declaredTruth,
                                                  ReleaseRandomness& randomness);
Expected<HistogramRelease> releaseTableThroughStrategy(const ReleaseSpec& spec,
                                                       const StrategyReleasePlan& plan,
                                                       const ContingencyTable& table,
                                                       ReleaseRandomness& randomness);

}  // namespace dpx
