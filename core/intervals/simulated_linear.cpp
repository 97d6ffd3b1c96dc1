#include "core/intervals/simulated_linear.h"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

// Pr[Binomial(n, p) ≥ k] for 1 ≤ k ≤ n: the regularised incomplete beta I_p(k, n − k + 1).
double binomialUpperTail(std::uint64_t n, double p, std::uint64_t k) {
    return boost::math::ibeta(static_cast<double>(k), static_cast<double>(n - k + 1), p);
}

// Keeps the r largest values seen in a min-heap stored in `heap` (size ≤ r).
inline void keepLargest(double* heap, std::size_t& size, std::size_t r, double v) {
    const auto cmp = std::greater<double>{};
    if (size < r) {
        heap[size++] = v;
        std::push_heap(heap, heap + size, cmp);
    } else if (v > heap[0]) {
        std::pop_heap(heap, heap + size, cmp);
        heap[size - 1] = v;
        std::push_heap(heap, heap + size, cmp);
    }
}

}  // namespace

std::uint64_t quantileUpperOrder(std::uint64_t n, double level, double failure) {
    if (n == 0 || binomialUpperTail(n, level, n) > failure) {
        return 0;
    }
    // The tail decreases in k: bisection for the smallest k with tail ≤ failure.
    std::uint64_t lo = 1, hi = n;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (binomialUpperTail(n, level, mid) <= failure) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

Expected<SimulatedLinearIntervals> simulatedLinearIntervals(
    const CellNoise& noise, std::size_t rows, std::span<const double> scales,
    const LinearEstimateMap& map, double level, const SimulatedLinearOptions& options,
    std::stop_token stop) {
    if (auto v = noise.validate(); !v) {
        return v.error();
    }
    if (auto v = validateConfidenceLevel(level); !v) {
        return v.error();
    }
    if (!(options.failure > 0 && options.failure < 1)) {
        return Error{
            "simulated intervals: the failure probability must lie strictly between 0 "
            "and 1, got " +
            formatNumber(options.failure)};
    }
    if (rows == 0 || scales.empty() || !map) {
        return Error{"simulated intervals: nothing to simulate (no rows or no outputs)"};
    }
    for (double s : scales) {
        if (!(s > 0) || !std::isfinite(s)) {
            return Error{"simulated intervals: every output's scale must be positive and finite"};
        }
    }
    const std::uint64_t n = options.draws;
    const std::uint64_t k = quantileUpperOrder(n, level, options.failure);
    if (k == 0) {
        // L^N ≤ η is needed for k = N to qualify.
        const double needed = std::ceil(std::log(options.failure) / std::log(level));
        return Error{"simulated intervals: " + std::to_string(n) + " draws cannot certify a " +
                     levelPercentText(level) + " quantile with failure probability " +
                     formatNumber(options.failure) + "; at least " + formatNumber(needed) +
                     " draws are needed"};
    }
    const std::size_t outputs = scales.size();
    const auto r = static_cast<std::size_t>(n - k + 1);  // the r-th largest is X₍k₎
    std::vector<double> heaps(outputs * r);
    std::vector<std::size_t> sizes(outputs, 0);
    std::vector<double> maxHeap(r);
    std::size_t maxSize = 0;

    SimulationRng rng(options.seed, 0);
    std::vector<double> z(rows), out(outputs);
    for (std::uint64_t t = 0; t < n; ++t) {
        if ((t & 63) == 0 && stop.stop_requested()) {
            return Error{"cancelled"};
        }
        for (auto& zi : z) {
            zi = sampleCellNoise(noise, rng);
        }
        std::fill(out.begin(), out.end(), 0.0);
        map(z, out);
        double studentised = 0;
        for (std::size_t j = 0; j < outputs; ++j) {
            const double e = std::abs(out[j]);
            if (!std::isfinite(e)) {
                return Error{"simulated intervals: the estimate map returned a non-finite value"};
            }
            keepLargest(heaps.data() + j * r, sizes[j], r, e);
            studentised = std::max(studentised, e / scales[j]);
        }
        keepLargest(maxHeap.data(), maxSize, r, studentised);
    }
    SimulatedLinearIntervals res;
    res.level = level;
    res.draws = n;
    res.order = k;
    res.failure = binomialUpperTail(n, level, k);
    res.halfWidths.resize(outputs);
    // Round up one ulp: a stated half-width is never below the order statistic.
    const double inf = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < outputs; ++j) {
        res.halfWidths[j] = std::nextafter(heaps[j * r], inf);
    }
    res.simultaneous = std::nextafter(maxHeap[0], inf);
    res.method = "simulated law of the estimate: " + std::to_string(n) + " draws of " +
                 noise.describe() +
                 " noise on every measurement from a public seed (the law does not depend on the "
                 "data), the " +
                 std::to_string(k) + "-th smallest |error| as an upper confidence bound for the " +
                 levelPercentText(level) +
                 " quantile (order statistics, David & Nagaraja 2003 §7.1), valid unless an "
                 "event of probability " +
                 formatNumber(res.failure) + " occurred in the simulation";
    return res;
}

}  // namespace dpx
