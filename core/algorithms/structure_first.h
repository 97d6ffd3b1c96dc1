// StructureFirst (Xu, Zhang, Xiao, Yang, Yu & Winslett, ICDE 2012 / VLDB J. 2013;
// core/algorithms/structure_first.cpp): its v-optimal table, exposed for the tests.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace dpx {

// The v-optimal histogram table: cost[i·(n + 1) + j] = the least sum of squared errors of a
// partition of the prefix x[0, j) into i buckets (each bucket's error Σ(x − mean)²), for
// 1 ≤ i ≤ k, i ≤ j ≤ n; +∞ where j < i; row 0 unused. O(k·n²) (Jagadish et al., VLDB 1998).
std::vector<double> vOptimalCosts(std::span<const double> x, std::size_t k);

}  // namespace dpx
