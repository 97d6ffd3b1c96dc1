// The noise a central mechanism adds to every bin, as a value type with the moments and
// distribution functions the exact error computations need.
#pragma once

#include <string>

namespace dpx {

enum class NoiseKind {
    Laplace,          // density exp(-|x|/b) / (2b)
    DiscreteLaplace,  // two-sided geometric on the integers: Pr[z] = (1-α)/(1+α) · α^|z|
    Gaussian,         // N(0, σ²)
};

class NoiseDistribution {
public:
    static NoiseDistribution laplace(double scale);          // b > 0
    static NoiseDistribution discreteLaplace(double alpha);  // α in (0, 1)
    static NoiseDistribution gaussian(double sigma);         // σ > 0
    // The law of the given kind with the given parameter (b, α or σ).
    static NoiseDistribution of(NoiseKind kind, double parameter) { return {kind, parameter}; }

    NoiseKind kind() const { return kind_; }
    bool isDiscrete() const { return kind_ == NoiseKind::DiscreteLaplace; }
    // b for Laplace, α for discrete Laplace, σ for Gaussian.
    double parameter() const { return p_; }

    double variance() const;  // 2b², 2α/(1-α)², σ²
    double meanAbs() const;   // b, 2α/(1-α²), σ·sqrt(2/π)
    // Pr[Z <= x] (for the discrete law, at real x: Pr[Z <= floor(x)]).
    double cdf(double x) const;
    // Pr[Z > x], computed without cancellation in the upper tail.
    double survival(double x) const;
    // Density at x (continuous laws) or probability mass at integer x (discrete law).
    double density(double x) const;
    // Pr[|Z| > t] for t >= 0.
    double absSurvival(double t) const;
    // Smallest t ≥ 0 with Pr[|Z| ≤ t] ≥ p, for p in (0, 1): the half-width of the central
    // p-interval of the noise (an integer for the discrete law).
    double absQuantile(double p) const;

    std::string describe() const;  // e.g. "Laplace(b = 10)"

private:
    NoiseDistribution(NoiseKind kind, double p) : kind_(kind), p_(p) {}
    NoiseKind kind_;
    double p_;
};

}  // namespace dpx
