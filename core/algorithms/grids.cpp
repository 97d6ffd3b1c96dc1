// Grid sizes and layouts shared by UGrid and AGrid (Qardaji, Yang & Li, ICDE 2013).
#include "core/algorithms/grids.h"

#include <algorithm>
#include <cmath>

namespace dpx {

namespace {

// ⌈x⌉ for x ≥ 0, forgiving the rounding of a quotient or root that should be a whole number
// (√(256·256/4096) = 4 exactly, not 4 + 1 ulp).
std::size_t ceilWhole(double x) {
    const double r = std::round(x);
    if (std::abs(x - r) <= 1e-9 * std::max(1.0, r)) {
        return static_cast<std::size_t>(r);
    }
    return static_cast<std::size_t>(std::ceil(x));
}

}  // namespace

double ugridCellsPerSide(double total, double epsilon, double c) {
    const double v = total * epsilon / c;
    return v > 0 ? std::sqrt(v) : 0.0;
}

std::size_t agridFirstLevelCellsPerSide(double total, double epsilon, double c) {
    return std::max<std::size_t>(10, ceilWhole(ugridCellsPerSide(total, epsilon, c) / 4));
}

std::size_t agridSecondLevelCellsPerSide(double noisyCount, double epsilon2, double c2) {
    if (!(noisyCount > 0)) {
        return 1;
    }
    return std::max<std::size_t>(1, ceilWhole(std::sqrt(noisyCount * epsilon2 / c2)));
}

GridLayout gridLayout(std::size_t rows, std::size_t cols, double targetCells) {
    GridLayout g;
    const std::size_t longest = std::max(rows, cols);
    if (!(targetCells > 0)) {
        g.blockSide = longest;
    } else {
        const double side =
            std::sqrt(static_cast<double>(rows) * static_cast<double>(cols) / targetCells);
        g.blockSide = std::clamp<std::size_t>(ceilWhole(side), 1, longest);
    }
    g.blockRows = (rows + g.blockSide - 1) / g.blockSide;
    g.blockCols = (cols + g.blockSide - 1) / g.blockSide;
    return g;
}

std::vector<std::size_t> equalSplit(std::size_t length, std::size_t parts) {
    parts = std::clamp<std::size_t>(parts, 1, std::max<std::size_t>(length, 1));
    std::vector<std::size_t> bounds(parts + 1, 0);
    for (std::size_t i = 1; i <= parts; ++i) {
        bounds[i] = (length * i + parts - 1) / parts;  // ⌈length·i/parts⌉, exact in integers
    }
    return bounds;
}

double combineWithParts(double v, double varV, std::vector<double>& u, double varU) {
    // Least squares for the measurements y = [v; u_1..u_k] of the unknowns u (v measures Σu):
    // the only combination of u that v informs is the sum, so LS estimates the sum by the
    // inverse-variance average of v and Σu, and distributes the correction equally (the
    // minimum-variance unbiased adjustment that keeps the differences u_i − u_j). This is the
    // paper's "weighted averaging" followed by "mean consistency" (Qardaji et al. 2013, §V-B,
    // there with k = m2² and varV/varU = (1 − α)²/α²; also Hay et al., PVLDB 2010).
    const double k = static_cast<double>(u.size());
    double sum = 0;
    for (double x : u) {
        sum += x;
    }
    const double wV = 1 / varV;
    const double wSum = 1 / (k * varU);
    const double combined = (wV * v + wSum * sum) / (wV + wSum);
    const double shift = (combined - sum) / k;
    for (double& x : u) {
        x += shift;
    }
    return combined;
}

}  // namespace dpx
