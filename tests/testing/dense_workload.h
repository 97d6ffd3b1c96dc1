// Dense references for the workload and strategy tests (issue #20): W as an Eigen matrix, built
// column by column from answers() of unit vectors, and a reproducible random vector. Test-only
// (Eigen is private to dpx_core; tests that include this link Eigen3::Eigen themselves).
#pragma once

#include <QtGlobal>

#include <Eigen/Dense>
#include <string>
#include <utility>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpxtest {

// The workload of `spec` text on `shape`; a test that names a bad one stops with its message.
inline dpx::Workload makeWorkload(const std::string& spec, dpx::DomainShape shape) {
    auto w = dpx::Workload::make(*dpx::WorkloadSpec::parse(spec), std::move(shape));
    if (!w) {
        qFatal("%s", w.error().message.c_str());
    }
    return std::move(w).value();
}

inline Eigen::MatrixXd denseWorkload(const dpx::Workload& w) {
    const std::size_t n = dpx::shapeCells(w.shape());
    Eigen::MatrixXd m(static_cast<Eigen::Index>(w.queryCount()), static_cast<Eigen::Index>(n));
    std::vector<double> e(n);
    for (std::size_t j = 0; j < n; ++j) {
        std::fill(e.begin(), e.end(), 0.0);
        e[j] = 1;
        auto a = w.answers(e);
        for (std::size_t i = 0; i < w.queryCount(); ++i) {
            m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = (*a)[i];
        }
    }
    return m;
}

// A strategy as a dense matrix, column by column from measure() of unit vectors.
inline Eigen::MatrixXd denseStrategy(const dpx::LinearStrategy& s) {
    const std::size_t n = dpx::shapeCells(s.shape());
    Eigen::MatrixXd a(static_cast<Eigen::Index>(s.rows()), static_cast<Eigen::Index>(n));
    std::vector<double> e(n), y(s.rows());
    for (std::size_t j = 0; j < n; ++j) {
        std::fill(e.begin(), e.end(), 0.0);
        e[j] = 1;
        s.measure(e, y);
        for (std::size_t i = 0; i < s.rows(); ++i) {
            a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = y[i];
        }
    }
    return a;
}

// n values uniform on [lo, hi) from SimulationRng(seed, stream).
inline std::vector<double> uniformVector(std::size_t n, std::uint64_t seed, double lo, double hi,
                                         std::uint64_t stream = 9) {
    dpx::SimulationRng rng(seed, stream);
    std::vector<double> v(n);
    for (double& x : v) {
        x = lo + rng.uniform() * (hi - lo);
    }
    return v;
}

}  // namespace dpxtest
