#include "core/accounting/subsampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/accounting/renyi.h"
#include "core/base/validation.h"

namespace dpx::accounting {

namespace {

Status checkRate(double q) {
    if (!(q > 0 && q <= 1)) {
        return Error{"sampling rate q must be in (0, 1] (got " + formatNumber(q) + ")"};
    }
    return okStatus();
}

}  // namespace

Expected<AmplifiedGuarantee> amplifyByPoissonSampling(double epsilon, double delta, double q) {
    if (!(epsilon >= 0) || !std::isfinite(epsilon)) {
        return Error{"ε must be finite ≥ 0 (got " + formatNumber(epsilon) + ")"};
    }
    if (!(delta >= 0 && delta < 1)) {
        return Error{"δ must be in [0, 1) (got " + formatNumber(delta) + ")"};
    }
    if (auto s = checkRate(q); !s) {
        return s.error();
    }
    // ln(1 + q(e^ε − 1)) without cancellation for small ε or q.
    return AmplifiedGuarantee{std::log1p(q * std::expm1(epsilon)), q * delta};
}

Expected<AmplifiedGuarantee> unamplifiedForTarget(double epsilon, double delta, double q) {
    if (!(epsilon > 0) || !std::isfinite(epsilon)) {
        return Error{"ε must be finite > 0 (got " + formatNumber(epsilon) + ")"};
    }
    if (!(delta >= 0 && delta < 1)) {
        return Error{"δ must be in [0, 1) (got " + formatNumber(delta) + ")"};
    }
    if (auto s = checkRate(q); !s) {
        return s.error();
    }
    if (q == 1) {
        return AmplifiedGuarantee{epsilon, delta};
    }
    // ln(1 + q(e^ε0 − 1)) = ε ⇔ ε0 = ln(1 + (e^ε − 1)/q); δ0 q = δ.
    double e0 = std::log1p(std::expm1(epsilon) / q);
    double d0 = std::min(delta / q, 0.5);
    if (!std::isfinite(e0)) {
        return Error{"ε = " + formatNumber(epsilon) + " at sampling rate q = " + formatNumber(q) +
                     " needs an ε without sampling beyond double range"};
    }
    for (int i = 0; i < 4096; ++i) {
        const AmplifiedGuarantee g{std::log1p(q * std::expm1(e0)), q * d0};
        if (g.epsilon <= epsilon && g.delta <= delta) {
            return AmplifiedGuarantee{e0, d0};
        }
        if (g.epsilon > epsilon) {
            e0 = std::nextafter(e0, 0.0);
        }
        if (g.delta > delta) {
            d0 = std::nextafter(d0, 0.0);
        }
    }
    return Error{"internal: the inverse of the amplification could not be confirmed"};
}

Expected<double> sampledGaussianRenyi(double q, double sigma, double l2Sensitivity,
                                      std::int64_t alpha) {
    if (auto s = checkRate(q); !s) {
        return s.error();
    }
    if (!(sigma > 0) || !std::isfinite(sigma) || !(l2Sensitivity > 0) ||
        !std::isfinite(l2Sensitivity)) {
        return Error{"σ and Δ must be finite > 0 (got σ = " + formatNumber(sigma) +
                     ", Δ = " + formatNumber(l2Sensitivity) + ")"};
    }
    if (alpha < 2 || alpha > 10000) {
        return Error{"Rényi order α must be a whole number in [2, 10000] (got " +
                     std::to_string(alpha) + ")"};
    }
    const double s = sigma / l2Sensitivity;
    const auto a = static_cast<double>(alpha);
    if (q == 1) {
        return a / (2 * s * s);  // the Gaussian, Mironov 2017 Prop 7
    }
    // log of each term: ln C(α,k) + (α−k) ln(1−q) + k ln q + (k²−k)/(2s²); then log-sum-exp.
    std::vector<double> terms;
    terms.reserve(static_cast<std::size_t>(alpha) + 1);
    const double lq = std::log(q), l1q = std::log1p(-q);
    for (std::int64_t k = 0; k <= alpha; ++k) {
        const auto kd = static_cast<double>(k);
        const double logBinom = std::lgamma(a + 1) - std::lgamma(kd + 1) - std::lgamma(a - kd + 1);
        terms.push_back(logBinom + (a - kd) * l1q + kd * lq + (kd * kd - kd) / (2 * s * s));
    }
    const double top = *std::max_element(terms.begin(), terms.end());
    double sum = 0;
    for (double t : terms) {
        sum += std::exp(t - top);
    }
    // Never below 0 (a divergence), whatever the rounding of the sum.
    return std::max(0.0, (top + std::log(sum)) / (a - 1));
}

Expected<SampledGaussianEpsilon> sampledGaussianEpsilon(double q, double sigma,
                                                        double l2Sensitivity, std::int64_t steps,
                                                        double delta) {
    if (steps < 1) {
        return Error{"steps must be ≥ 1 (got " + std::to_string(steps) + ")"};
    }
    if (!(delta > 0 && delta < 1)) {
        return Error{"δ must be in (0, 1) (got " + formatNumber(delta) + ")"};
    }
    SampledGaussianEpsilon best{std::numeric_limits<double>::infinity(), 0};
    for (std::int64_t alpha = 2; alpha <= 512; ++alpha) {
        auto r = sampledGaussianRenyi(q, sigma, l2Sensitivity, alpha);
        if (!r) {
            return r.error();
        }
        const double e =
            renyiToEpsilon(static_cast<double>(steps) * *r, static_cast<double>(alpha), delta);
        if (e < best.epsilon) {
            best = {e, alpha};
        }
    }
    best.epsilon = std::max(0.0, best.epsilon);
    return best;
}

}  // namespace dpx::accounting
