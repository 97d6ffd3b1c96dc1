// DPBench's data scaling (issue #20): coarsening by summing adjacent cells, and resampling m
// records from a histogram's shape. See data_scale.h.
#include "core/workload/data_scale.h"

#include <cmath>
#include <string>

#include "core/base/random_variates.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

// Largest scale resample() accepts: DPBench's largest is 10^8; 10^12 keeps every count (and
// every sum of counts a workload forms) exact in a double.
constexpr std::uint64_t kMaxResampleRecords = 1'000'000'000'000ULL;

}  // namespace

Expected<std::vector<double>> coarsen(std::span<const double> x, const DomainShape& from,
                                      const DomainShape& to) {
    if (auto s = validateShape(from); !s) {
        return Error{"coarsen: the data's domain: " + s.error().message};
    }
    if (auto s = validateShape(to); !s) {
        return Error{"coarsen: the target domain: " + s.error().message};
    }
    if (from.size() != to.size()) {
        return Error{"coarsen: the data has " + std::to_string(from.size()) +
                     " dimension(s) but the target domain has " + std::to_string(to.size())};
    }
    const std::size_t cells = shapeCells(from);
    if (x.size() != cells) {
        return Error{"coarsen: the data has " + std::to_string(x.size()) +
                     " cells but its domain has " + std::to_string(cells)};
    }
    const std::size_t dims = from.size();
    std::vector<std::size_t> factor(dims);
    for (std::size_t d = 0; d < dims; ++d) {
        if (to[d] > from[d] || from[d] % to[d] != 0) {
            return Error{"coarsen: dimension " + std::to_string(d + 1) + " has " +
                         std::to_string(from[d]) + " cells, which " + std::to_string(to[d]) +
                         " does not divide (a coarser domain merges equal groups of adjacent "
                         "cells)"};
        }
        factor[d] = from[d] / to[d];
    }
    for (std::size_t i = 0; i < cells; ++i) {
        if (!std::isfinite(x[i])) {
            return Error{"coarsen: cell " + std::to_string(i) + " holds " + formatNumber(x[i])};
        }
    }
    // Walk the input cells in C order with a mixed-radix counter; the output index of cell
    // (c_1, …, c_k) is that of (c_1 / f_1, …, c_k / f_k) in the target shape.
    std::vector<double> out(shapeCells(to), 0.0);
    std::vector<std::size_t> coord(dims, 0);
    for (std::size_t i = 0; i < cells; ++i) {
        std::size_t target = 0;
        for (std::size_t d = 0; d < dims; ++d) {
            target = target * to[d] + coord[d] / factor[d];
        }
        out[target] += x[i];
        for (std::size_t d = dims; d-- > 0;) {
            if (++coord[d] < from[d]) {
                break;
            }
            coord[d] = 0;
        }
    }
    return out;
}

Expected<std::vector<double>> resample(std::span<const double> x, std::uint64_t m,
                                       SimulationRng& rng) {
    if (x.empty()) {
        return Error{"resample: the data has no cells"};
    }
    if (m == 0) {
        return Error{"resample: the scale m must be at least 1 record"};
    }
    if (m > kMaxResampleRecords) {
        return Error{"resample: the scale m = " + std::to_string(m) +
                     " is above the largest supported, 10^12 records"};
    }
    double total = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(x[i]) || x[i] < 0) {
            return Error{"resample: cell " + std::to_string(i) + " holds " + formatNumber(x[i]) +
                         "; the data's shape needs non-negative finite counts"};
        }
        total += x[i];
    }
    if (!(total > 0)) {
        return Error{"resample: the data's total is 0, so it has no shape to draw records from"};
    }
    // Multinomial(m, x/Σx) by conditional binomials (random_variates.h): exact in distribution,
    // O(cells) binomial draws of O(1) expected time each, whatever m.
    std::vector<std::uint64_t> counts(x.size());
    multinomial(rng, m, x, counts);
    std::vector<double> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        out[i] = static_cast<double>(counts[i]);
    }
    return out;
}

}  // namespace dpx
