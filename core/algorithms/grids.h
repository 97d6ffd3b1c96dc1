// UGrid and AGrid (Qardaji, Yang & Li, "Differentially private grids for geospatial data",
// ICDE 2013): the grid sizes of the paper's guidelines and their layout on a discrete 2-D domain,
// exposed for the tests and the docs (docs/algorithms/ugrid.md, docs/algorithms/agrid.md).
#pragma once

#include <cstddef>
#include <vector>

namespace dpx {

// Guideline 1 of the paper: a uniform grid of m × m cells with m = √(N·ε/c) balances the noise
// error (grows with m) against the non-uniformity error (shrinks with m); c = 10 in the paper.
// Returns the unrounded m (0 when N·ε ≤ 0).
double ugridCellsPerSide(double total, double epsilon, double c);

// AGrid's first level: m1 = max(10, ⌈¼·√(N·ε/c)⌉) with the total ε (the paper, §V).
std::size_t agridFirstLevelCellsPerSide(double total, double epsilon, double c);

// AGrid's second level inside one first-level cell with noisy count N′:
// m2 = ⌈√(N′·(1 − α)·ε/c2)⌉, and 1 when N′ ≤ 0 (c2 = 5 in the paper).
std::size_t agridSecondLevelCellsPerSide(double noisyCount, double epsilon2, double c2);

// The grid laid over rows × cols bins for a target of `targetCells` grid cells (m²), as DPBench
// does it (ektelo's UniformGrid): square blocks of side g = ⌈√(rows·cols/targetCells)⌉ bins
// (g = max(rows, cols) when targetCells ≤ 0: one block), the last block of a row or column
// clipped; ⌈rows/g⌉ × ⌈cols/g⌉ blocks.
struct GridLayout {
    std::size_t blockSide = 1;
    std::size_t blockRows = 1, blockCols = 1;
};
GridLayout gridLayout(std::size_t rows, std::size_t cols, double targetCells);

// Splits `length` bins into `parts` near-equal consecutive pieces (parts clamped to
// [1, length]): piece i ends before ⌈length·(i + 1)/parts⌉. Returns the parts + 1 boundaries,
// from 0 to length.
std::vector<std::size_t> equalSplit(std::size_t length, std::size_t parts);

// AGrid's constrained inference for one first-level cell (the paper's weighted averaging and
// mean consistency; DPCube's consistency of a leaf with its cells), the least-squares estimate for
// a count v measured with variance varV and a partition of it into k pieces measured with variance
// varU each:
//   v′ = (v/varV + Σu/(k·varU)) / (1/varV + 1/(k·varU)),  u′_i = u_i + (v′ − Σu)/k.
// `u` is adjusted in place; returns v′.
double combineWithParts(double v, double varV, std::vector<double>& u, double varU);

}  // namespace dpx
