// Sharper intervals for linear estimates (issue #23): the cells of a release through a designed
// strategy are least-squares estimates x̂ = M·y of noisy measurements y = K·x + z, so each cell's
// error e_j = (M·z)_j is a fixed linear combination of independent noise draws. Its law depends
// on the coefficients, not only on their norm: linearEstimateInterval (intervals.h) gives one
// bound valid for every coefficient vector, up to ~2× wider than needed for a cell dominated by
// one measurement. Here the law of e = M·z is simulated — it depends only on the noise law and
// M, never on the data, and the generator's seed is public — and each cell's half-width is an
// order statistic chosen so that it is at least the true L-quantile of |e_j| except with
// probability η over the simulation:
//   with N draws, X₍k₎ the k-th smallest |e_j|, q_L the true quantile (Pr[|e_j| < q_L] ≤ L),
//   Pr[X₍k₎ < q_L] = Pr[#{i : |e_j,i| < q_L} ≥ k] ≤ Pr[Binomial(N, L) ≥ k] = I_L(k, N − k + 1)
//   (the regularised incomplete beta function), so the smallest k with I_L(k, N − k + 1) ≤ η
//   gives an interval ±X₍k₎ with coverage ≥ L unless an event of probability ≤ η occurred.
// A distribution-free upper confidence bound for a quantile (David & Nagaraja, Order Statistics,
// 3rd ed. 2003, §7.1). The same for the studentised maximum max_j |e_j|/s_j: simultaneous
// intervals ±H·s_j for all cells at once, the exact maximum instead of Bonferroni.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/intervals/intervals.h"

namespace dpx {

// out = M·z for a noise vector z of `rows` entries; out has `outputs` entries.
using LinearEstimateMap = std::function<void(std::span<const double> z, std::span<double> out)>;

struct SimulatedLinearIntervals {
    double level = 0.95;
    std::vector<double> halfWidths;  // one per output: ≥ the L-quantile of |e_j| unless (η)
    double simultaneous = 0;         // H with Pr[max_j |e_j|/s_j ≤ H] ≥ L unless (η)
    std::uint64_t draws = 0;
    std::uint64_t order = 0;  // k: the k-th smallest of the draws is used
    double failure = 0;       // η: Pr[Binomial(N, L) ≥ k], the simulation's failure bound
    std::string method;
};

struct SimulatedLinearOptions {
    std::uint64_t draws = 10'000;
    double failure = 1e-9;                          // η
    std::uint64_t seed = 0x5EED'1A7E'F0E5'7A7EULL;  // public: the intervals are data-free
};

// The smallest order k (1-based) with Pr[Binomial(n, level) ≥ k] ≤ failure, or 0 if even k = n
// fails (too few draws for this level and failure).
std::uint64_t quantileUpperOrder(std::uint64_t n, double level, double failure);

// Simulates `options.draws` noise vectors of `rows` independent draws of `noise`, maps each by
// `map` and returns the per-output and simultaneous (studentised by `scales`, one positive
// number per output) half-widths. Refuses a level/failure that the number of draws cannot
// certify (the message says how many draws would be needed). Cancellable.
Expected<SimulatedLinearIntervals> simulatedLinearIntervals(
    const CellNoise& noise, std::size_t rows, std::span<const double> scales,
    const LinearEstimateMap& map, double level, const SimulatedLinearOptions& options = {},
    std::stop_token stop = {});

}  // namespace dpx
