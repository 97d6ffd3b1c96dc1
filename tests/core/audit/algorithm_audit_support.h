// Shared pieces of the DP audits of the DPBench algorithms (issue #20): the audit parameters and
// an algorithm as an AuditMechanism — run at ε = 1 on a fixed background with the audit input
// added to one cell, read through a scalar post-processing of x̂ (ε-DP whenever the algorithm
// is).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/audit/dp_audit.h"
#include "core/workload/workload.h"

namespace dpxtest {

inline dpx::AuditParams algorithmAuditParams(double epsilon, std::uint64_t seed,
                                             std::uint64_t samples = 200000) {
    dpx::AuditParams p;
    p.epsilon = epsilon;
    p.samplesPerInput = samples;
    p.alpha = 1e-7;
    p.seed = seed;
    return p;
}

using EstimateReader = std::function<double(const std::vector<double>&)>;

// x = background with input[0] added to `cell`; the algorithm runs at ε = 1 with `parameters`.
inline dpx::AuditMechanism algorithmMechanism(const dpx::Algorithm& algorithm,
                                              dpx::DomainShape shape,
                                              std::vector<double> background, std::size_t cell,
                                              std::map<std::string, double> parameters,
                                              EstimateReader read) {
    return [&algorithm, shape, background, cell, parameters, read](
               const std::vector<std::int64_t>& in,
               dpx::AuditRandomness& rng) -> dpx::Expected<double> {
        std::vector<double> x = background;
        x[cell] += static_cast<double>(in[0]);
        auto w = dpx::Workload::make(dpx::WorkloadSpec{}, shape);
        if (!w) {
            return w.error();
        }
        dpx::AlgorithmContext c;
        c.shape = shape;
        c.x = x;
        c.workload = &*w;
        c.epsilon = 1.0;
        c.parameters = parameters;
        c.rng = &rng.simulation();
        auto r = algorithm.run(c);
        if (!r) {
            return r.error();
        }
        return read(r->estimate);
    };
}

inline EstimateReader readCell(std::size_t i) {
    return [i](const std::vector<double>& e) { return e[i]; };
}

inline EstimateReader readTotal() {
    return [](const std::vector<double>& e) {
        double s = 0;
        for (double v : e) {
            s += v;
        }
        return s;
    };
}

// Σ of x̂ over the box [r0, r1) × [c0, c1) of a grid with `cols` columns.
inline EstimateReader readBox(std::size_t cols, std::size_t r0, std::size_t r1, std::size_t c0,
                              std::size_t c1) {
    return [=](const std::vector<double>& e) {
        double s = 0;
        for (std::size_t r = r0; r < r1; ++r) {
            for (std::size_t c = c0; c < c1; ++c) {
                s += e[r * cols + c];
            }
        }
        return s;
    };
}

}  // namespace dpxtest
