// DAWA (Li, Hay, Miklau & Wang, "A data- and workload-aware algorithm for range queries under
// differential privacy", PVLDB 2014): spend ρ·ε on a noisy L1 partition of the (ordered) cells
// into buckets of near-uniform counts, then (1 − ρ)·ε on measuring the buckets with the GreedyH
// strategy optimised for the workload mapped onto the buckets; each bucket's estimate is spread
// uniformly over its cells. In 2-D the cells are ordered along a Hilbert curve first (DPBench's
// DAWA-2D).
//
// CONTRACT (issue #20; implemented by helper "dd1").
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/algorithms/algorithm.h"

namespace dpx {

class SimulationRng;

// The Hilbert curve order of an n × n grid (n a power of two; other sizes: the curve of the
// next power of two with cells outside skipped): order[i] = the C-order cell index visited i-th.
Expected<std::vector<std::size_t>> hilbertOrder(std::size_t rows, std::size_t cols);

// DAWA's private partition of an ordered vector (the paper's L1 partition on the candidate
// intervals whose length is a power of two, any start): the bucket starts, first 0, increasing.
// Spends partitionEpsilon; measureEpsilon only sets the per-bucket cost 1/ε₂ of the partition
// score. Added by helper "dd1" so the tests can check the partition on its own.
Expected<std::vector<std::size_t>> dawaPartition(std::span<const double> x, double partitionEpsilon,
                                                 double measureEpsilon, SimulationRng& rng);

const Algorithm& dawaAlgorithm();    // "DAWA", 1-D
const Algorithm& dawa2dAlgorithm();  // "DAWA2D", 2-D (Hilbert order)

}  // namespace dpx
