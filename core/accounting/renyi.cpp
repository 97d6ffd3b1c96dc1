#include "core/accounting/renyi.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/accounting/subsampling.h"
#include "core/base/validation.h"

namespace dpx::accounting {

namespace {

Status validateAll(const std::vector<AccountedMechanism>& mechs) {
    for (const auto& m : mechs) {
        if (auto s = m.validate(); !s) {
            return s;
        }
    }
    return okStatus();
}

// The improved conversion at one order (Canonne, Kamath & Steinke 2020 Prop 12).
double epsilonFromCurve(double r, double alpha, double logDelta) {
    return r + std::log1p(-1 / alpha) - (logDelta + std::log(alpha)) / (alpha - 1);
}

double epsilonAt(const std::vector<AccountedMechanism>& mechs, double alpha, double logDelta) {
    return epsilonFromCurve(renyiCurve(mechs, alpha), alpha, logDelta);
}

double logDeltaAt(const std::vector<AccountedMechanism>& mechs, double alpha, double epsilon) {
    const double r = renyiCurve(mechs, alpha);
    return (alpha - 1) * (r - epsilon + std::log1p(-1 / alpha)) - std::log(alpha);
}

// The minimum of f(α) over the grid and `extra`, refined by golden-section search in ln(α − 1)
// between the grid neighbours of the best grid order (the conversions are smooth and unimodal
// there), so that ε(δ) and δ(ε) agree with each other to far below the grid's spacing. Every α
// evaluated gives a valid bound; the smallest value found is returned with its α.
template <class F>
RenyiAnswer minimiseOverOrders(F f, const std::vector<double>& extra) {
    const std::vector<double>& grid = renyiOrders();
    RenyiAnswer best{std::numeric_limits<double>::infinity(), 0};
    std::size_t bestIndex = 0;
    for (std::size_t i = 0; i < grid.size(); ++i) {
        const double v = f(grid[i]);
        if (v < best.value) {
            best = {v, grid[i]};
            bestIndex = i;
        }
    }
    double a = std::log(grid[bestIndex > 0 ? bestIndex - 1 : 0] - 1);
    double b = std::log(grid[std::min(bestIndex + 1, grid.size() - 1)] - 1);
    const double g = (std::sqrt(5.0) - 1) / 2;
    double c = b - g * (b - a), d = a + g * (b - a);
    double fc = f(1 + std::exp(c)), fd = f(1 + std::exp(d));
    for (int i = 0; i < 60; ++i) {
        if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(1 + std::exp(c));
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(1 + std::exp(d));
        }
    }
    if (fc < best.value) {
        best = {fc, 1 + std::exp(c)};
    }
    for (double alpha : extra) {
        if (alpha > 1 && std::isfinite(alpha)) {
            const double v = f(alpha);
            if (v < best.value) {
                best = {v, alpha};
            }
        }
    }
    return best;
}

}  // namespace

namespace {

// r(α) of one use of a Poisson-subsampled mechanism (rate q < 1): the smaller of two valid upper
// bounds, the curve without sampling (sampling never hurts, see zcdpRho) and
//  - Gaussian: Mironov, Talwar & Zhang 2019 at the integer order ⌈α⌉ (D_α is non-decreasing in
//    α, van Erven & Harremoës 2014 Thm 3), for ⌈α⌉ ≤ 10^4;
//  - Laplace, geometric, randomized response: the mechanism is ε'-DP with ε' = ln(1 + q(e^ε − 1))
//    (amplifiedPureEpsilon), and every ε'-DP pair is a post-processing of binary randomized
//    response at ε' (Kairouz, Oh & Viswanath 2015 Thm 2.1), so by data processing its D_α is at
//    most binary RR's;
//  - discrete Gaussian: no amplification is applied (the bound without sampling).
double subsampledRenyi(const AccountedMechanism& m, double alpha) {
    AccountedMechanism plain = m;
    plain.samplingRate = 1;
    const double without = renyiDivergence(plain, alpha);
    switch (m.kind) {
        case LossMechanism::Gaussian: {
            const double order = std::ceil(alpha);
            if (order > 10000) {
                return without;
            }
            auto r = sampledGaussianRenyi(m.samplingRate, m.parameter, m.sensitivity,
                                          static_cast<std::int64_t>(std::max(2.0, order)));
            return r ? std::min(without, *r) : without;
        }
        case LossMechanism::Laplace:
        case LossMechanism::Geometric:
        case LossMechanism::RandomizedResponse: {
            const double e = amplifiedPureEpsilon(m);
            if (!(e > 0)) {
                return 0;
            }
            return std::min(without, renyiDivergence(randomizedResponseLoss(e, 2), alpha));
        }
        case LossMechanism::DiscreteGaussian:
            return without;
    }
    return without;
}

// Integer orders tried besides the grid when a plan has a subsampled Gaussian (its bound is at
// integer orders).
std::vector<double> integerOrders(const std::vector<AccountedMechanism>& mechs) {
    std::vector<double> out;
    for (const auto& m : mechs) {
        if (isSubsampled(m) && m.kind == LossMechanism::Gaussian) {
            for (int a = 2; a <= 256; ++a) {
                out.push_back(a);
            }
            break;
        }
    }
    return out;
}

}  // namespace

double renyiDivergence(const AccountedMechanism& m, double alpha) {
    if (isSubsampled(m)) {
        return subsampledRenyi(m, alpha);
    }
    switch (m.kind) {
        case LossMechanism::Gaussian:
        case LossMechanism::DiscreteGaussian: {
            const double mu = m.sensitivity / m.parameter;
            return alpha * mu * mu / 2;
        }
        case LossMechanism::Laplace: {
            // ln(α/(2α−1) e^{(α−1)ε} (1 + (α−1)/α e^{−(2α−1)ε})), in logs against overflow.
            const double eps = m.sensitivity / m.parameter;
            const double v = std::log(alpha / (2 * alpha - 1)) + (alpha - 1) * eps +
                             std::log1p((alpha - 1) / alpha * std::exp(-(2 * alpha - 1) * eps));
            return std::clamp(v / (alpha - 1), 0.0, eps);
        }
        case LossMechanism::Geometric:
        case LossMechanism::RandomizedResponse: {
            auto atoms = lossAtoms(m);
            if (!atoms) {
                return std::numeric_limits<double>::infinity();
            }
            double top = -std::numeric_limits<double>::infinity();
            for (const auto& a : *atoms) {
                if (a.mass > 0) {
                    top = std::max(top, std::log(a.mass) + (alpha - 1) * a.loss);
                }
            }
            double sum = 0;
            for (const auto& a : *atoms) {
                if (a.mass > 0) {
                    sum += std::exp(std::log(a.mass) + (alpha - 1) * a.loss - top);
                }
            }
            // D_α ≤ ε for an ε-DP mechanism: the clamp only removes round-off.
            return std::clamp((top + std::log(sum)) / (alpha - 1), 0.0, m.parameter);
        }
    }
    return std::numeric_limits<double>::infinity();
}

double renyiCurve(const std::vector<AccountedMechanism>& mechs, double alpha) {
    double r = 0;
    for (const auto& m : mechs) {
        r += static_cast<double>(m.count) * renyiDivergence(m, alpha);
    }
    return r;
}

const std::vector<double>& renyiOrders() {
    static const std::vector<double> orders = [] {
        std::vector<double> a;
        constexpr int kCount = 400;
        // α − 1 from 1e-3 to 1e4, log-spaced.
        for (int i = 0; i < kCount; ++i) {
            const double t = -3 + 7.0 * i / (kCount - 1);
            a.push_back(1 + std::pow(10.0, t));
        }
        return a;
    }();
    return orders;
}

Expected<RenyiAnswer> renyiEpsilon(const std::vector<AccountedMechanism>& mechs, double delta) {
    if (auto s = validateAll(mechs); !s) {
        return s.error();
    }
    if (!(delta > 0 && delta < 1)) {
        return Error{"δ must be in (0, 1) (got " + formatNumber(delta) + ")"};
    }
    if (mechs.empty()) {
        return RenyiAnswer{0, 0};
    }
    const double logDelta = std::log(delta);
    const double rho = totalZcdpRho(mechs);
    std::vector<double> extra = integerOrders(mechs);
    extra.push_back(1 + std::sqrt(-logDelta / rho));  // zCDP's optimal order
    RenyiAnswer best =
        minimiseOverOrders([&](double a) { return epsilonAt(mechs, a, logDelta); }, extra);
    best.value = std::max(0.0, best.value);
    return best;
}

Expected<RenyiAnswer> renyiDelta(const std::vector<AccountedMechanism>& mechs, double epsilon) {
    if (auto s = validateAll(mechs); !s) {
        return s.error();
    }
    if (!(epsilon >= 0) || !std::isfinite(epsilon)) {
        return Error{"ε must be finite and ≥ 0 (got " + formatNumber(epsilon) + ")"};
    }
    if (mechs.empty()) {
        return RenyiAnswer{0, 0};
    }
    const double rho = totalZcdpRho(mechs);
    // zCDP's optimal order, when ε > ρ; log δ is capped at 0 (δ ≤ 1).
    std::vector<double> extra = integerOrders(mechs);
    extra.push_back(epsilon > rho ? (epsilon + rho) / (2 * rho) : 0.0);
    RenyiAnswer best = minimiseOverOrders(
        [&](double a) { return std::min(0.0, logDeltaAt(mechs, a, epsilon)); }, extra);
    best.value = std::exp(best.value);
    return best;
}

double renyiToEpsilon(double r, double alpha, double delta) {
    return epsilonFromCurve(r, alpha, std::log(delta));
}

}  // namespace dpx::accounting
