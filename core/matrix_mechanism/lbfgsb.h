// Bound-constrained minimisation by L-BFGS-B (Byrd, Lu, Nocedal & Zhu, SIAM J. Sci. Comput. 1995;
// version 3.0 with the correction of Morales & Nocedal, ACM TOMS 2011) — the Fortran library
// Debian packages as liblbfgsb (the code SciPy's `minimize(method="L-BFGS-B")` wraps). Used by
// the matrix mechanism's strategy optimisation (HDMM: McKenna, Miklau, Hay & Machanavajjhala,
// VLDB 2018), whose parameters are bounded below by 0.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"

namespace dpx {

struct BoundedMinimizeOptions {
    std::size_t memory = 10;  // corrections kept (L-BFGS-B's m)
    // Stop when (f_k − f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) ≤ ftol (SciPy's ftol; L-BFGS-B's
    // factr = ftol / machine ε) or when the largest projected gradient component ≤ pgtol.
    double ftol = 1e-4;
    double pgtol = 1e-5;
    std::size_t maxIterations = 15000;
    std::size_t maxEvaluations = 15000;
};

struct BoundedMinimizeResult {
    std::vector<double> x;  // the best point found
    double value = 0;       // f(x)
    std::size_t iterations = 0;
    std::size_t evaluations = 0;
    bool converged = false;  // stopped by ftol / pgtol (not by a limit)
    std::string stopReason;  // L-BFGS-B's message, or "iteration limit", ...
};

// f(x) and its gradient g (g.size() == x.size()). Must return a finite value for every x within
// the bounds.
using ObjectiveWithGradient = std::function<double(std::span<const double> x, std::span<double> g)>;
// Called after every iteration with (iteration, f): progress reports.
using IterationCallback = std::function<void(std::size_t iteration, double value)>;

// Minimises f over lower ≤ x ≤ upper (±infinity: unbounded on that side) from x0 (projected into
// the bounds). Fails with a message on a non-finite objective or gradient, inconsistent bounds,
// or cancellation ("cancelled").
Expected<BoundedMinimizeResult> minimizeBounded(
    const ObjectiveWithGradient& f, std::vector<double> x0, std::span<const double> lower,
    std::span<const double> upper, const BoundedMinimizeOptions& options = {},
    std::stop_token stop = {}, const IterationCallback& onIteration = {});

}  // namespace dpx
