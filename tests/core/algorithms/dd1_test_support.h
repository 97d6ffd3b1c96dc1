// Shared by the tests of GreedyH, DAWA, AHP and MWEM (issue #20): build a workload, run an
// algorithm on a data vector with a seeded generator, and score an estimate on the workload.
#pragma once

#include <QTest>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "core/workload/workload.h"

namespace dd1test {

inline dpx::Workload workload(const std::string& text, const dpx::DomainShape& shape) {
    auto spec = dpx::WorkloadSpec::parse(text);
    if (!spec) {
        qFatal("bad workload text %s: %s", text.c_str(), spec.error().message.c_str());
    }
    auto w = dpx::Workload::make(*spec, shape);
    if (!w) {
        qFatal("bad workload %s: %s", text.c_str(), w.error().message.c_str());
    }
    return std::move(w).value();
}

inline dpx::Expected<dpx::AlgorithmRun> run(const dpx::Algorithm& a, const dpx::DomainShape& shape,
                                            const std::vector<double>& x, const dpx::Workload& w,
                                            double epsilon, dpx::SimulationRng& rng,
                                            std::map<std::string, double> parameters = {}) {
    dpx::AlgorithmContext c;
    c.shape = shape;
    c.x = x;
    c.workload = &w;
    c.epsilon = epsilon;
    c.parameters = std::move(parameters);
    c.rng = &rng;
    return a.run(c);
}

// ‖W x̂ − W x‖₂².
inline double squaredError(const dpx::Workload& w, const std::vector<double>& x,
                           const std::vector<double>& xhat) {
    auto a = w.answers(x);
    auto b = w.answers(xhat);
    if (!a || !b) {
        qFatal("answers failed");
    }
    double s = 0;
    for (std::size_t i = 0; i < a->size(); ++i) {
        s += ((*a)[i] - (*b)[i]) * ((*a)[i] - (*b)[i]);
    }
    return s;
}

// The Identity baseline, x + Laplace(1/ε) per cell (Δ₁ = 1), written out here as the reference.
inline std::vector<double> identityEstimate(const std::vector<double>& x, double epsilon,
                                            dpx::SimulationRng& rng) {
    std::vector<double> out(x.size());
    dpx::sampleNoise(dpx::NoiseDistribution::laplace(1.0 / epsilon), rng, out);
    for (std::size_t i = 0; i < x.size(); ++i) {
        out[i] += x[i];
    }
    return out;
}

inline double sumSpent(const dpx::AlgorithmRun& r) {
    double s = 0;
    for (const auto& step : r.spent) {
        s += step.epsilon;
    }
    return s;
}

}  // namespace dd1test
