#include "core/accounting/mechanism_loss.h"

#include <cmath>

#include "core/base/validation.h"

namespace dpx::accounting {

namespace {

// Integer sensitivities above this would make the geometric atom list or the discrete Gaussian
// enumeration too long to be useful; no histogram query has them.
constexpr double kMaxIntegerSensitivity = 1e6;

bool isWhole(double x) {
    return std::isfinite(x) && x == std::floor(x);
}

}  // namespace

const char* lossMechanismName(LossMechanism m) {
    switch (m) {
        case LossMechanism::Laplace:
            return "laplace";
        case LossMechanism::Geometric:
            return "geometric";
        case LossMechanism::Gaussian:
            return "gaussian";
        case LossMechanism::DiscreteGaussian:
            return "discrete-gaussian";
        case LossMechanism::RandomizedResponse:
            return "randomized-response";
    }
    return "laplace";
}

Status AccountedMechanism::validate() const {
    const std::string who = std::string(lossMechanismName(kind)) + " mechanism: ";
    const char* param = "b";
    switch (kind) {
        case LossMechanism::Laplace:
            param = "the scale b";
            break;
        case LossMechanism::Gaussian:
        case LossMechanism::DiscreteGaussian:
            param = "σ";
            break;
        case LossMechanism::Geometric:
        case LossMechanism::RandomizedResponse:
            param = "ε";
            break;
    }
    if (!(parameter > 0) || !std::isfinite(parameter)) {
        return Error{who + param + " must be finite and > 0 (got " + formatNumber(parameter) + ")"};
    }
    if (!(sensitivity > 0) || !std::isfinite(sensitivity)) {
        return Error{who + "the sensitivity Δ must be finite and > 0 (got " +
                     formatNumber(sensitivity) + ")"};
    }
    if ((kind == LossMechanism::Geometric || kind == LossMechanism::DiscreteGaussian) &&
        (!isWhole(sensitivity) || sensitivity > kMaxIntegerSensitivity)) {
        return Error{who + "the sensitivity Δ must be a whole number in [1, 10^6] (got " +
                     formatNumber(sensitivity) + ")"};
    }
    if (kind == LossMechanism::RandomizedResponse && categories < 2) {
        return Error{who + "the number of categories k must be ≥ 2 (got " +
                     std::to_string(categories) + ")"};
    }
    if (count < 1) {
        return Error{who + "the number of uses must be ≥ 1 (got " + std::to_string(count) + ")"};
    }
    if (!(samplingRate > 0 && samplingRate <= 1)) {
        return Error{who + "the sampling rate q must be in (0, 1] (got " +
                     formatNumber(samplingRate) + ")"};
    }
    if (kind == LossMechanism::Laplace && !std::isfinite(sensitivity / parameter)) {
        return Error{who + "ε = Δ/b is not finite"};
    }
    return okStatus();
}

std::string AccountedMechanism::describe() const {
    std::string s;
    switch (kind) {
        case LossMechanism::Laplace:
            s = "Laplace b = " + formatNumber(parameter) + ", Δ = " + formatNumber(sensitivity);
            break;
        case LossMechanism::Geometric:
            s = "geometric ε = " + formatNumber(parameter) + ", Δ = " + formatNumber(sensitivity);
            break;
        case LossMechanism::Gaussian:
            s = "Gaussian σ = " + formatNumber(parameter) + ", Δ = " + formatNumber(sensitivity);
            break;
        case LossMechanism::DiscreteGaussian:
            s = "discrete Gaussian σ = " + formatNumber(parameter) +
                ", Δ = " + formatNumber(sensitivity);
            break;
        case LossMechanism::RandomizedResponse:
            s = std::to_string(categories) +
                "-ary randomized response ε = " + formatNumber(parameter);
            break;
    }
    if (samplingRate < 1) {
        s += ", sampling rate q = " + formatNumber(samplingRate);
    }
    if (count > 1) {
        s += " × " + std::to_string(count);
    }
    return s;
}

AccountedMechanism laplaceLoss(double b, double l1Sensitivity, std::int64_t count) {
    return {LossMechanism::Laplace, b, l1Sensitivity, 2, count};
}
AccountedMechanism geometricLoss(double epsilon, double l1Sensitivity, std::int64_t count) {
    return {LossMechanism::Geometric, epsilon, l1Sensitivity, 2, count};
}
AccountedMechanism gaussianLoss(double sigma, double l2Sensitivity, std::int64_t count) {
    return {LossMechanism::Gaussian, sigma, l2Sensitivity, 2, count};
}
AccountedMechanism discreteGaussianLoss(double sigma, double l2Sensitivity, std::int64_t count) {
    return {LossMechanism::DiscreteGaussian, sigma, l2Sensitivity, 2, count};
}
AccountedMechanism randomizedResponseLoss(double epsilon, std::int64_t categories,
                                          std::int64_t count) {
    return {LossMechanism::RandomizedResponse, epsilon, 1, categories, count};
}

AccountedMechanism subsampled(AccountedMechanism m, double q) {
    m.samplingRate = q;
    return m;
}

bool isSubsampled(const AccountedMechanism& m) {
    return m.samplingRate < 1;
}

double amplifiedPureEpsilon(const AccountedMechanism& m) {
    const double e = pureEpsilon(m);
    if (m.samplingRate >= 1) {
        return e;
    }
    // ln(1 + q(e^ε − 1)) without cancellation; for large ε, ε + ln(q + (1 − q)e^{−ε}).
    if (e > 30) {
        return e + std::log(m.samplingRate + (1 - m.samplingRate) * std::exp(-e));
    }
    return std::log1p(m.samplingRate * std::expm1(e));
}

bool isPureLoss(const AccountedMechanism& m) {
    return m.kind == LossMechanism::Laplace || m.kind == LossMechanism::Geometric ||
           m.kind == LossMechanism::RandomizedResponse;
}

double pureEpsilon(const AccountedMechanism& m) {
    switch (m.kind) {
        case LossMechanism::Laplace:
            return m.sensitivity / m.parameter;
        case LossMechanism::Geometric:
        case LossMechanism::RandomizedResponse:
            return m.parameter;
        case LossMechanism::Gaussian:
        case LossMechanism::DiscreteGaussian:
            return 0;
    }
    return 0;
}

double zcdpRho(const AccountedMechanism& m) {
    if (isPureLoss(m)) {
        const double e = pureEpsilon(m);
        return e * e / 2;
    }
    const double mu = m.sensitivity / m.parameter;
    return mu * mu / 2;
}

double totalZcdpRho(const std::vector<AccountedMechanism>& mechs) {
    double rho = 0;
    for (const auto& m : mechs) {
        rho += static_cast<double>(m.count) * zcdpRho(m);
    }
    return rho;
}

Expected<std::vector<LossAtom>> lossAtoms(const AccountedMechanism& m) {
    if (auto s = m.validate(); !s) {
        return s.error();
    }
    const double eps = m.parameter;
    if (m.kind == LossMechanism::RandomizedResponse) {
        // Probabilities over e^ε + k − 1, written with e^{−ε} so that large ε does not overflow.
        const double k1 = static_cast<double>(m.categories - 1);
        const double em = std::exp(-eps);
        const double denom = 1 + k1 * em;  // (e^ε + k − 1)/e^ε
        std::vector<LossAtom> atoms{{eps, 1 / denom}, {-eps, em / denom}};
        if (m.categories > 2) {
            atoms.push_back({0.0, (k1 - 1) * em / denom});
        }
        return atoms;
    }
    if (m.kind == LossMechanism::Geometric) {
        const double delta = m.sensitivity;
        const double logAlpha = -eps / delta;
        const double alpha = std::exp(logAlpha);
        const double oneMinus = -std::expm1(logAlpha);
        std::vector<LossAtom> atoms{{eps, 1 / (1 + alpha)},
                                    {-eps, std::exp(delta * logAlpha) / (1 + alpha)}};
        const auto d = static_cast<std::int64_t>(delta);
        for (std::int64_t x = 1; x < d; ++x) {
            const double xd = static_cast<double>(x);
            atoms.push_back(
                {(delta - 2 * xd) * eps / delta, oneMinus * std::exp(xd * logAlpha) / (1 + alpha)});
        }
        return atoms;
    }
    return Error{std::string("internal: ") + lossMechanismName(m.kind) +
                 " has no finite list of loss atoms"};
}

}  // namespace dpx::accounting
