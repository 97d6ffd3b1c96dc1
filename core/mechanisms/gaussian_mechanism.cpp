#include "core/mechanisms/gaussian_mechanism.h"

#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "core/base/validation.h"

namespace dpx {

namespace {

double stdNormalCdf(double x) {
    return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

std::string num(double v, int precision = 6) {
    std::ostringstream os;
    os.precision(precision);
    os << v;
    return os.str();
}

double classicSigma(double eps, double delta, double l2) {
    return l2 * std::sqrt(2 * std::log(1.25 / delta)) / eps;
}

double seedSigma(double eps, double delta, double l2) {
    return l2 * std::sqrt(2 * std::log(2 / delta)) / eps;
}

// Smallest σ with gaussianExactDelta(σ) ≤ δ. δ(σ) falls from 1 (σ → 0) to 0 (σ → ∞), strictly.
Expected<double> analyticSigma(double eps, double delta, double l2) {
    auto g = [&](double logSigma) {
        const double d = gaussianExactDelta(std::exp(logSigma), eps, l2);
        // log δ(σ) − log δ_target; clamp δ(σ) ≤ 0 (cancellation far in the tail) to the tiniest
        // positive double so the function stays finite and monotone.
        return std::log(std::max(d, std::numeric_limits<double>::min())) - std::log(delta);
    };
    // Bracket in log σ around the seed formula (which is always within a small factor).
    double hi = std::log(std::max(seedSigma(eps, delta, l2), l2 * 1e-6));
    double lo = hi;
    int guard = 0;
    while (g(hi) > 0) {
        hi += 1;
        if (++guard > 200) {
            return Error{"analytic Gaussian calibration did not bracket σ (ε = " + num(eps) +
                         ", δ = " + num(delta) + ")"};
        }
    }
    guard = 0;
    while (g(lo) <= 0) {
        lo -= 1;
        if (++guard > 200) {
            return Error{"analytic Gaussian calibration failed: ε = " + num(eps) +
                         " is outside the range the exact privacy profile can be evaluated in"};
        }
    }
    std::uintmax_t maxIter = 200;
    // 48 bits on log σ: relative error of σ below 1e-13.
    auto [a, b] = boost::math::tools::toms748_solve(
        g, lo, hi, boost::math::tools::eps_tolerance<double>(48), maxIter);
    if (maxIter >= 200) {
        return Error{"analytic Gaussian calibration did not converge"};
    }
    // Return the upper end of the final bracket, where δ(σ) ≤ δ holds.
    double sigma = std::exp(b);
    if (gaussianExactDelta(sigma, eps, l2) > delta) {
        sigma = std::exp(b + 1e-14);
    }
    (void)a;
    return sigma;
}

}  // namespace

const char* gaussianCalibrationName(GaussianCalibration c) {
    switch (c) {
        case GaussianCalibration::Classic:
            return "classic";
        case GaussianCalibration::Hall:
            return "hall";
        case GaussianCalibration::Analytic:
            return "analytic";
    }
    return "?";
}

Expected<GaussianCalibration> gaussianCalibrationFromName(const std::string& name) {
    if (name == "classic") {
        return GaussianCalibration::Classic;
    }
    // "seed" is the name this calibration had before issue #18 (the source documents were called
    // seeds; users never saw them); still read from scripts and sessions.
    if (name == "hall" || name == "seed") {
        return GaussianCalibration::Hall;
    }
    if (name == "analytic") {
        return GaussianCalibration::Analytic;
    }
    return Error{"unknown Gaussian calibration '" + name + "' (use classic, hall or analytic)"};
}

Status GaussianParams::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (auto s = validateDelta(delta); !s) {
        return s;
    }
    return validatePositiveFinite(l2Sensitivity, "the L2 sensitivity Δ2");
}

double gaussianExactDelta(double sigma, double epsilon, double l2Sensitivity) {
    const double a = l2Sensitivity / (2 * sigma);
    const double b = epsilon * sigma / l2Sensitivity;
    const double first = stdNormalCdf(a - b);
    const double phi = stdNormalCdf(-a - b);
    const double second = phi > 0 ? std::exp(epsilon + std::log(phi)) : 0.0;
    return first - second;
}

Expected<double> gaussianSigma(const GaussianParams& p) {
    if (auto s = p.validate(); !s) {
        return s.error();
    }
    switch (p.calibration) {
        case GaussianCalibration::Classic:
            return classicSigma(p.epsilon, p.delta, p.l2Sensitivity);
        case GaussianCalibration::Hall:
            return seedSigma(p.epsilon, p.delta, p.l2Sensitivity);
        case GaussianCalibration::Analytic:
            return analyticSigma(p.epsilon, p.delta, p.l2Sensitivity);
    }
    return Error{"unknown calibration"};
}

Expected<CalibratedMechanism> calibrateGaussian(const GaussianParams& p) {
    auto sigma = gaussianSigma(p);
    if (!sigma) {
        return sigma.error();
    }
    if (!std::isfinite(*sigma) || !(*sigma > 0)) {
        return Error{"the Gaussian noise σ for ε = " + num(p.epsilon) + ", δ = " + num(p.delta) +
                     ", Δ2 = " + num(p.l2Sensitivity) +
                     " is not representable (it overflows or "
                     "underflows)"};
    }
    CalibratedMechanism m{"gaussian",      NoiseDistribution::gaussian(*sigma),    {}, 0,
                          p.l2Sensitivity, gaussianCalibrationName(p.calibration), {}};
    // Privacy first: whatever the formula, confirm σ against the exact privacy profile.
    const double achieved = gaussianExactDelta(*sigma, p.epsilon, p.l2Sensitivity);
    if (achieved > p.delta * (1 + 1e-9)) {
        return Error{std::string("the ") + gaussianCalibrationName(p.calibration) +
                     " Gaussian formula gives σ = " + num(*sigma) +
                     ", which is NOT (ε, δ)-DP at ε = " + num(p.epsilon) + ", δ = " + num(p.delta) +
                     " (its exact δ is " + num(achieved) + "); use the analytic calibration"};
    }
    if (p.calibration == GaussianCalibration::Classic && p.epsilon >= 1) {
        m.warnings.push_back(
            "the classic formula is proven only for ε < 1 (Dwork & Roth Thm A.1); at ε = " +
            num(p.epsilon) + " σ was checked against the exact privacy profile instead");
    }
    if (p.calibration != GaussianCalibration::Analytic) {
        auto analytic = analyticSigma(p.epsilon, p.delta, p.l2Sensitivity);
        if (analytic && *analytic < *sigma) {
            m.warnings.push_back(
                "the analytic calibration reaches the same (ε, δ) with σ = " + num(*analytic) +
                " (" + num(100 * (1 - *analytic / *sigma), 3) + "% less noise)");
        }
    }
    m.guarantee.epsilon = p.epsilon;
    m.guarantee.delta = p.delta;
    const double ratio = p.l2Sensitivity / *sigma;  // Δ2/σ first: Δ2² alone may overflow
    m.guarantee.rho = 0.5 * ratio * ratio;
    m.guarantee.rhoNote = "ρ = Δ2²/(2σ²) (Bun & Steinke 2016, Prop. 1.6)";
    std::ostringstream os;
    os.precision(4);
    os << "(ε, δ)-differential privacy with ε = " << p.epsilon << ", δ = " << p.delta
       << ": adding or changing one person's data makes any set of outputs at most e^ε ≈ "
       << std::exp(p.epsilon) << " times more likely, plus at most δ.";
    m.guarantee.sentence = os.str();
    return m;
}

}  // namespace dpx
