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
//  3. Inference, post-processing of y alone: x̂ = argmin ‖K·x̂ − y‖₂ (K has full column rank), the
//     published cells; unbiased, with variance v·e_jᵀ(KᵀK)⁻¹e_j (v the discrete Laplace variance)
//     and a per-cell interval: the smaller of ±H·√(e_jᵀ(KᵀK)⁻¹e_j) (core/intervals:
//     linearEstimateInterval, a bound valid for any coefficients) and the simulated law of the
//     estimate (core/intervals/simulated_linear.h, data-free). The measurements and K's entries
//     are published with the cells, so anyone can answer further queries from them.
// This file draws the release's randomness only through ReleaseRandomness; it is in dpx_core
// (the strategies live there) and tests/lint/check-layers.sh forbids it the simulation
// generator. The simulated intervals use that generator inside core/intervals on a public seed:
// they are a function of the noise law and K only, never of the data or of the release's noise.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
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

// Everything a strategy release needs that does not depend on the data.
struct StrategyReleasePlan {
    std::shared_ptr<const Workload> workload;
    std::string templateName;  // the design's ("OPT₀ p-Identity(16)")
    std::shared_ptr<const IntegerStrategy> strategy;
    // e_jᵀ(KᵀK)⁻¹e_j per cell (C order): the variance of cell j's estimate per unit of row noise
    // variance.
    std::vector<double> cellForms;
    // The simulated intervals by noise law and level (strategyIntervals), shared by a plan's
    // preview and release; null in a plan made by hand (then computed each time).
    std::shared_ptr<StrategyIntervalCache> intervalCache;
};

// Designs the strategy for `w` with template `t` (p and options as designStrategy takes them),
// rounds it (chooseIntegerStrategy with `tolerance`) and computes the cell forms. Refuses a
// strategy that does not determine every cell (an OPT_M design without the full table).
// Cancellable.
Expected<StrategyReleasePlan> planStrategyRelease(std::shared_ptr<const Workload> w,
                                                  DesignTemplate t, std::vector<std::size_t> p = {},
                                                  const StrategyOptimizeOptions& options = {},
                                                  double tolerance = 0.005,
                                                  std::stop_token stop = {});

// The plan for a workload given as text, made once the declared shape is known (the release job
// calls it after reading the bins, before drawing noise): the workload on that shape, the design
// with template `t` (p: one per dimension, or one for all) and its rounding. Errors name the
// problem (bad workload for the shape, a design that does not determine the cells).
using StrategyPlanner =
    std::function<Expected<std::shared_ptr<const StrategyReleasePlan>>(const DomainShape&)>;
StrategyPlanner strategyPlanner(WorkloadSpec workload, DesignTemplate t,
                                std::vector<std::size_t> p = {},
                                StrategyOptimizeOptions options = {});

// The spec checks of a strategy release (valid spec, discrete-laplace, no post-processing); the
// message starts with the parameter's name.
Status checkStrategyReleaseSpec(const ReleaseSpec& spec);

// What the release states before any data is read: the discrete Laplace law per row, the
// expected RMSE on the workload, the per-cell and all-cells intervals (also used by previews).
struct StrategyReleaseLaw {
    std::int64_t l1 = 0;  // Δ1 = Δ1(K)·(cap or 2·cap)
    Rational scale;       // t = Δ1/ε
    double alpha = 0;     // e^(−1/t)
    double rowVariance = 0;
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

// The release of a histogram (1-D strategy over its bins) or of a table (a strategy over its
// shape). spec.mechanism must be discrete-laplace and spec.postProcessing none (the inference is
// least squares). Every failure returns an Error and no values.
Expected<HistogramRelease> releaseThroughStrategy(const ReleaseSpec& spec,
                                                  const StrategyReleasePlan& plan,
                                                  const Histogram& declaredTruth,
                                                  ReleaseRandomness& randomness);
Expected<HistogramRelease> releaseTableThroughStrategy(const ReleaseSpec& spec,
                                                       const StrategyReleasePlan& plan,
                                                       const ContingencyTable& table,
                                                       ReleaseRandomness& randomness);

}  // namespace dpx
