// Shared helpers of the algorithm tests (issue #20): run one algorithm on a data vector, and
// the errors of random boxes computed here by a summed-area table of our own (independent of
// core/workload's answers).
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/base/simulation_rng.h"
#include "core/workload/workload.h"

namespace dpxtest {

inline dpx::Expected<dpx::AlgorithmRun> runAlgorithm(const dpx::Algorithm& a,
                                                     const dpx::DomainShape& shape,
                                                     const std::vector<double>& x, double epsilon,
                                                     std::uint64_t seed,
                                                     std::map<std::string, double> params = {}) {
    auto w = dpx::Workload::make(dpx::WorkloadSpec{}, shape);
    if (!w) {
        return w.error();
    }
    dpx::SimulationRng rng(seed, 0);
    dpx::AlgorithmContext c;
    c.shape = shape;
    c.x = x;
    c.workload = &*w;
    c.epsilon = epsilon;
    c.parameters = std::move(params);
    c.rng = &rng;
    return a.run(c);
}

inline double totalSpent(const dpx::AlgorithmRun& r) {
    double s = 0;
    for (const auto& step : r.spent) {
        s += step.epsilon;
    }
    return s;
}

// Inclusive boxes [r0, r1] × [c0, c1] (1-D: rows = 1).
struct Box {
    std::size_t r0, r1, c0, c1;
};

// DPBench-style random boxes: per dimension a width uniform in 1..n, then a start uniform.
inline std::vector<Box> randomBoxes(std::size_t rows, std::size_t cols, std::size_t count,
                                    std::uint64_t seed) {
    dpx::SimulationRng rng(seed, 7);
    const auto pick = [&](std::size_t n) {
        const std::size_t width = 1 + static_cast<std::size_t>(rng.uniform() * double(n));
        const std::size_t start =
            static_cast<std::size_t>(rng.uniform() * double(n - std::min(width, n) + 1));
        return std::pair<std::size_t, std::size_t>{start, std::min(n, start + width) - 1};
    };
    std::vector<Box> out;
    for (std::size_t i = 0; i < count; ++i) {
        const auto [r0, r1] = pick(rows);
        const auto [c0, c1] = pick(cols);
        out.push_back({r0, r1, c0, c1});
    }
    return out;
}

// Root mean squared error of the boxes' answers on `estimate` against `truth`.
inline double boxRmse(std::size_t rows, std::size_t cols, const std::vector<Box>& boxes,
                      const std::vector<double>& truth, const std::vector<double>& estimate) {
    const std::size_t w = cols + 1;
    std::vector<double> sat((rows + 1) * w, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            const double d = estimate[r * cols + c] - truth[r * cols + c];
            sat[(r + 1) * w + c + 1] =
                d + sat[r * w + c + 1] + sat[(r + 1) * w + c] - sat[r * w + c];
        }
    }
    double sse = 0;
    for (const Box& b : boxes) {
        const double d = sat[(b.r1 + 1) * w + b.c1 + 1] - sat[b.r0 * w + b.c1 + 1] -
                         sat[(b.r1 + 1) * w + b.c0] + sat[b.r0 * w + b.c0];
        sse += d * d;
    }
    return std::sqrt(sse / static_cast<double>(boxes.size()));
}

}  // namespace dpxtest
