#include "core/base/noise_distribution.h"

#include <cmath>
#include <numbers>
#include <sstream>

namespace dpx {

NoiseDistribution NoiseDistribution::laplace(double scale) {
    return {NoiseKind::Laplace, scale};
}
NoiseDistribution NoiseDistribution::discreteLaplace(double alpha) {
    return {NoiseKind::DiscreteLaplace, alpha};
}
NoiseDistribution NoiseDistribution::gaussian(double sigma) {
    return {NoiseKind::Gaussian, sigma};
}

double NoiseDistribution::variance() const {
    switch (kind_) {
        case NoiseKind::Laplace:
            return 2 * p_ * p_;
        case NoiseKind::DiscreteLaplace:
            // Σ z² (1−α)/(1+α) α^|z| = 2α/(1−α)²
            return 2 * p_ / ((1 - p_) * (1 - p_));
        case NoiseKind::Gaussian:
            return p_ * p_;
    }
    return 0;
}

double NoiseDistribution::meanAbs() const {
    switch (kind_) {
        case NoiseKind::Laplace:
            return p_;
        case NoiseKind::DiscreteLaplace:
            return 2 * p_ / ((1 - p_) * (1 + p_));
        case NoiseKind::Gaussian:
            return p_ * std::sqrt(2 / std::numbers::pi);
    }
    return 0;
}

double NoiseDistribution::survival(double x) const {
    switch (kind_) {
        case NoiseKind::Laplace:
            return x >= 0 ? 0.5 * std::exp(-x / p_) : 1 - 0.5 * std::exp(x / p_);
        case NoiseKind::DiscreteLaplace: {
            // Pr[Z > x] = Pr[Z ≥ k], k = floor(x) + 1; Pr[Z ≥ k] = α^k/(1+α) for k ≥ 1.
            const double k = std::floor(x) + 1;
            return k >= 1 ? std::pow(p_, k) / (1 + p_) : 1 - std::pow(p_, 1 - k) / (1 + p_);
        }
        case NoiseKind::Gaussian:
            return 0.5 * std::erfc(x / (p_ * std::numbers::sqrt2));
    }
    return 0;
}

double NoiseDistribution::cdf(double x) const {
    // Symmetric laws: Pr[Z ≤ x] = Pr[Z ≥ −x]; for the discrete law Pr[Z ≤ x] = 1 − Pr[Z > x].
    if (kind_ == NoiseKind::DiscreteLaplace) {
        const double k = std::floor(x);
        return k >= 0 ? 1 - std::pow(p_, k + 1) / (1 + p_) : std::pow(p_, -k) / (1 + p_);
    }
    return survival(-x);
}

double NoiseDistribution::density(double x) const {
    switch (kind_) {
        case NoiseKind::Laplace:
            return std::exp(-std::abs(x) / p_) / (2 * p_);
        case NoiseKind::DiscreteLaplace:
            if (x != std::floor(x)) {
                return 0;
            }
            return (1 - p_) / (1 + p_) * std::pow(p_, std::abs(x));
        case NoiseKind::Gaussian:
            return std::exp(-0.5 * (x / p_) * (x / p_)) / (p_ * std::sqrt(2 * std::numbers::pi));
    }
    return 0;
}

double NoiseDistribution::absSurvival(double t) const {
    switch (kind_) {
        case NoiseKind::Laplace:
            return std::exp(-t / p_);
        case NoiseKind::DiscreteLaplace:
            return 2 * std::pow(p_, std::floor(t) + 1) / (1 + p_);
        case NoiseKind::Gaussian:
            return std::erfc(t / (p_ * std::numbers::sqrt2));
    }
    return 0;
}

double NoiseDistribution::absQuantile(double p) const {
    if (kind_ == NoiseKind::Laplace) {
        return -p_ * std::log1p(-p);  // Pr[|Z| > t] = e^{−t/b}
    }
    // Bisection on the decreasing function absSurvival; for the discrete law search integers.
    double lo = 0;
    double hi = p_;
    while (absSurvival(hi) > 1 - p) {
        hi *= 2;
    }
    if (kind_ == NoiseKind::DiscreteLaplace) {
        hi = std::ceil(hi);
        while (hi - lo > 1) {
            const double mid = std::floor(0.5 * (lo + hi));
            (absSurvival(mid) > 1 - p ? lo : hi) = mid;
        }
        return absSurvival(lo) <= 1 - p ? lo : hi;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (absSurvival(mid) > 1 - p ? lo : hi) = mid;
    }
    return hi;
}

std::string NoiseDistribution::describe() const {
    std::ostringstream os;
    os.precision(6);
    switch (kind_) {
        case NoiseKind::Laplace:
            os << "Laplace(b = " << p_ << ")";
            break;
        case NoiseKind::DiscreteLaplace:
            os << "discrete Laplace(α = " << p_ << ")";
            break;
        case NoiseKind::Gaussian:
            os << "Gaussian(σ = " << p_ << ")";
            break;
    }
    return os.str();
}

}  // namespace dpx
