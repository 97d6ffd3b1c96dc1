// Independent numerical references for the core tests: Boost.Math quadrature over the real line
// split at given breakpoints, and the noise densities written out from their definitions (not
// taken from the code under test).
#pragma once

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace dpxtest {

// ∫_a^b f on a finite interval (adaptive 61-point Gauss–Kronrod).
template <class F>
double integrateFinite(F f, double a, double b) {
    if (!(b > a)) {
        return 0;
    }
    return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, a, b, 12, 1e-14);
}

// ∫_a^∞ f (exp-sinh).
template <class F>
double integrateUpper(F f, double a) {
    thread_local boost::math::quadrature::exp_sinh<double> q;  // tables built once per thread
    // Far out the integrand may evaluate to inf·0 = NaN (e.g. z²·density); it is 0 there.
    return q.integrate(
        [&](double t) {
            const double v = f(a + t);
            return std::isfinite(v) ? v : 0.0;
        },
        0.0, std::numeric_limits<double>::infinity(), 1e-14);
}

// ∫_{−∞}^b f.
template <class F>
double integrateLower(F f, double b) {
    return integrateUpper([&](double t) { return f(-t); }, -b);
}

// ∫_lo^hi f with the integrand smooth between the sorted `breaks` (lo/hi may be ±inf).
template <class F>
double integrateSplit(F f, std::vector<double> breaks,
                      double lo = -std::numeric_limits<double>::infinity(),
                      double hi = std::numeric_limits<double>::infinity()) {
    breaks.erase(
        std::remove_if(breaks.begin(), breaks.end(), [&](double b) { return !(b > lo && b < hi); }),
        breaks.end());
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    std::vector<double> pts;
    pts.push_back(lo);
    pts.insert(pts.end(), breaks.begin(), breaks.end());
    pts.push_back(hi);
    double total = 0;
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
        const double a = pts[i];
        const double b = pts[i + 1];
        if (std::isinf(a) && std::isinf(b)) {
            total += integrateLower(f, 0.0) + integrateUpper(f, 0.0);
        } else if (std::isinf(a)) {
            total += integrateLower(f, b);
        } else if (std::isinf(b)) {
            total += integrateUpper(f, a);
        } else {
            total += integrateFinite(f, a, b);
        }
    }
    return total;
}

// Densities from their definitions.
inline double laplacePdf(double x, double b) {
    return std::exp(-std::abs(x) / b) / (2 * b);
}
inline double gaussianPdf(double x, double s) {
    return std::exp(-0.5 * (x / s) * (x / s)) / (s * std::sqrt(2 * std::numbers::pi));
}
// Two-sided geometric: Pr[Z = z] = (1 − α)/(1 + α) · α^|z|.
inline double geometricPmf(long z, double alpha) {
    return (1 - alpha) / (1 + alpha) * std::pow(alpha, static_cast<double>(std::abs(z)));
}
// Support bound K with Pr[|Z| > K] < 1e-19 relative to the mass (terms beyond are negligible).
inline long geometricSupport(double alpha) {
    return static_cast<long>(std::ceil(std::log(1e-19) / std::log(alpha))) + 2;
}

}  // namespace dpxtest
