#include "core/count/count_analysis.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/geometric_mechanism.h"
#include "core/mechanisms/laplace_mechanism.h"

namespace dpx {

namespace {

// Fills the statistics of `d` from its probabilities (plain sums in index order).
void computeStatistics(ErrorDistribution& d) {
    double bias = 0;
    double meanAbs = 0;
    double meanSquare = 0;
    for (std::size_t k = 0; k < d.probabilities.size(); ++k) {
        const double e = static_cast<double>(d.minError + static_cast<int>(k));
        const double p = d.probabilities[k];
        bias += e * p;
        meanAbs += std::abs(e) * p;
        meanSquare += e * e * p;
    }
    d.bias = bias;
    d.meanAbs = meanAbs;
    d.meanSquare = meanSquare;
    d.pCorrect = d.probability(0);
}

InputErrorDistribution columnErrorLaw(const CountMechanism& m, std::size_t j) {
    InputErrorDistribution d;
    d.input = j;
    d.minError = -static_cast<int>(j);
    d.probabilities.resize(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
        d.probabilities[i] = m.at(i, j);  // index i ↔ e = i − j
    }
    computeStatistics(d);
    return d;
}

// The inverse-CDF thresholds of column j (see outputForUniform) written to out[0..n].
void columnThresholds(const CountMechanism& m, std::size_t j, double* out) {
    const std::size_t size = m.size();
    double run = 0;
    std::size_t lastPositive = 0;
    for (std::size_t i = 0; i < size; ++i) {
        const double p = m.at(i, j);
        run += p;  // adding 0 leaves the partial sum unchanged: zero rows get no interval
        out[i] = run;
        if (p > 0) {
            lastPositive = i;
        }
    }
    // Partial sums of non-negative terms never decrease, so out[i] ≤ run and out[i]/run ≤ 1;
    // division by a positive constant keeps the order and the ties.
    const double total = run;
    for (std::size_t i = 0; i < lastPositive; ++i) {
        out[i] /= total;
    }
    for (std::size_t i = lastPositive; i < size; ++i) {
        out[i] = 1;  // u < 1 always stops at lastPositive at the latest
    }
}

// Smallest i with u < t[i], for u ∈ [0, 1) and t[size−1] = 1.
int invert(const double* t, std::size_t size, double u) {
    return static_cast<int>(std::upper_bound(t, t + size, u) - t);
}

Status validatePeopleCount(int n) {
    if (n < 1 || n > kMaxCountPeople) {
        return Error{"the number of people n must be an integer in [1, " +
                     std::to_string(kMaxCountPeople) + "], got " + std::to_string(n)};
    }
    return okStatus();
}

Status validateNoise(const NoiseDistribution& noise) {
    const double p = noise.parameter();
    switch (noise.kind()) {
        case NoiseKind::Laplace:
            return validatePositiveFinite(p, "the Laplace scale b");
        case NoiseKind::DiscreteLaplace:
            if (!(p > 0) || !(p < 1)) {
                return Error{"the discrete Laplace parameter α must be in (0, 1), got " +
                             formatNumber(p)};
            }
            return okStatus();
        case NoiseKind::Gaussian:
            return validatePositiveFinite(p, "the Gaussian σ");
    }
    return Error{"unknown noise kind"};
}

// Pr[d − ½ ≤ Z < d + ½] for an integer d ≥ 0 (by symmetry also the value at −d), without
// cancellation (see the header).
double centralInterval(const NoiseDistribution& noise, int d) {
    const double p = noise.parameter();
    switch (noise.kind()) {
        case NoiseKind::Laplace:
            if (d == 0) {
                return -std::expm1(-0.5 / p);  // 1 − 2·½e^{−½/b}
            }
            // ∫_{d−½}^{d+½} e^{−x/b}/(2b) dx = ½e^{−(d−½)/b}·(1 − e^{−1/b})
            return 0.5 * std::exp(-(d - 0.5) / p) * -std::expm1(-1 / p);
        case NoiseKind::DiscreteLaplace:
            return noise.density(d);
        case NoiseKind::Gaussian:
            if (d == 0) {
                return std::erf(0.5 / (p * std::numbers::sqrt2));  // Pr[|Z| < ½]
            }
            // Upper tail only; max guards a (theoretical) non-monotone erfc rounding.
            return std::max(0.0, noise.survival(d - 0.5) - noise.survival(d + 0.5));
    }
    return 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Error laws

double ErrorDistribution::probability(int error) const {
    if (error < minError || error > maxError()) {
        return 0;
    }
    return probabilities[static_cast<std::size_t>(error - minError)];
}

double ErrorDistribution::pOffByMoreThan(int d) const {
    double sum = 0;
    for (std::size_t k = 0; k < probabilities.size(); ++k) {
        const int e = minError + static_cast<int>(k);
        if (std::abs(e) > d) {
            sum += probabilities[k];
        }
    }
    return sum;
}

Expected<InputErrorDistribution> inputErrorDistribution(const CountMechanism& mechanism,
                                                        std::size_t input) {
    if (input > mechanism.people()) {
        return Error{"the true count j = " + std::to_string(input) + " is outside 0..n = 0.." +
                     std::to_string(mechanism.people())};
    }
    return columnErrorLaw(mechanism, input);
}

std::vector<InputErrorDistribution> inputErrorDistributions(const CountMechanism& mechanism) {
    std::vector<InputErrorDistribution> out;
    out.reserve(mechanism.size());
    for (std::size_t j = 0; j < mechanism.size(); ++j) {
        out.push_back(columnErrorLaw(mechanism, j));
    }
    return out;
}

Expected<ErrorDistribution> mixtureErrorDistribution(const CountMechanism& mechanism,
                                                     const std::vector<double>& weights) {
    // Validation shared with CountMechanism::l0 (same messages): it fails exactly when the
    // weights are invalid.
    if (auto s = mechanism.l0(weights); !s) {
        return s.error();
    }
    const std::size_t size = mechanism.size();
    const std::size_t n = mechanism.people();
    ErrorDistribution d;
    d.minError = -static_cast<int>(n);
    d.probabilities.assign(2 * n + 1, 0.0);
    for (std::size_t j = 0; j < size; ++j) {
        const double w = weights[j];
        for (std::size_t i = 0; i < size; ++i) {
            d.probabilities[i + n - j] += w * mechanism.at(i, j);  // e = i − j
        }
    }
    computeStatistics(d);
    return d;
}

// ---------------------------------------------------------------------------------------------
// Sampling

Expected<int> outputForUniform(const CountMechanism& mechanism, std::size_t trueCount, double u) {
    if (trueCount > mechanism.people()) {
        return Error{"the true count j = " + std::to_string(trueCount) + " is outside 0..n = 0.." +
                     std::to_string(mechanism.people())};
    }
    if (!(u >= 0) || !(u < 1)) {
        return Error{"the uniform u must be in [0, 1), got " + formatNumber(u)};
    }
    std::vector<double> t(mechanism.size());
    columnThresholds(mechanism, trueCount, t.data());
    return invert(t.data(), t.size(), u);
}

Expected<std::vector<int>> sampleOutputs(const CountMechanism& mechanism,
                                         const std::vector<std::int64_t>& trueCounts,
                                         std::uint64_t seed) {
    const std::size_t size = mechanism.size();
    const auto n = static_cast<std::int64_t>(mechanism.people());
    // Validate everything first, and give each column that occurs a slot in the threshold table.
    constexpr std::size_t kUnused = static_cast<std::size_t>(-1);
    std::vector<std::size_t> slot(size, kUnused);
    std::size_t used = 0;
    for (std::size_t g = 0; g < trueCounts.size(); ++g) {
        const std::int64_t c = trueCounts[g];
        if (c < 0 || c > n) {
            return Error{"true count [" + std::to_string(g) + "] = " + std::to_string(c) +
                         " is outside 0..n = 0.." + std::to_string(n)};
        }
        if (slot[static_cast<std::size_t>(c)] == kUnused) {
            slot[static_cast<std::size_t>(c)] = used++;
        }
    }
    std::vector<double> thresholds(used * size);
    for (std::size_t j = 0; j < size; ++j) {
        if (slot[j] != kUnused) {
            columnThresholds(mechanism, j, thresholds.data() + slot[j] * size);
        }
    }
    SimulationRng rng(seed, 0);
    std::vector<int> out(trueCounts.size());
    for (std::size_t g = 0; g < trueCounts.size(); ++g) {
        const double* t = thresholds.data() + slot[static_cast<std::size_t>(trueCounts[g])] * size;
        out[g] = invert(t, size, rng.uniform());
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Central mechanisms as count matrices

Expected<CountMechanism> centralMechanismMatrix(const NoiseDistribution& noise, int n,
                                                std::string name) {
    if (auto s = validatePeopleCount(n); !s) {
        return s.error();
    }
    if (auto s = validateNoise(noise); !s) {
        return s.error();
    }
    const auto size = static_cast<std::size_t>(n) + 1;
    const auto last = static_cast<std::size_t>(n);
    // Interior entries depend only on |i − j| ≤ n − 1: one table.
    std::vector<double> centre(size);
    for (std::size_t d = 0; d < size; ++d) {
        centre[d] = centralInterval(noise, static_cast<int>(d));
    }
    std::vector<double> p(size * size);
    for (std::size_t j = 0; j < size; ++j) {
        const double jd = static_cast<double>(j);
        const double nd = static_cast<double>(n);
        // Half-integer arguments: for the discrete law cdf(½ − j) = Pr[Z ≤ −j] and
        // survival(n − ½ − j) = Pr[Z ≥ n − j]. Both are tail values (no 1 − x) except near j = 0
        // resp. j = n, where they are ≥ ½.
        p[0 * size + j] = noise.cdf(0.5 - jd);
        p[last * size + j] = noise.survival(nd - 0.5 - jd);
        for (std::size_t i = 1; i < last; ++i) {
            p[i * size + j] = centre[i > j ? i - j : j - i];
        }
        double sum = 0;
        for (std::size_t i = 0; i < size; ++i) {
            sum += p[i * size + j];
        }
        for (std::size_t i = 0; i < size; ++i) {
            p[i * size + j] /= sum;
        }
    }
    return CountMechanism::fromRowMajor(size, std::move(p), std::move(name));
}

Expected<CountMechanism> discretizedLaplace(int n, double epsilon) {
    if (auto s = validatePeopleCount(n); !s) {
        return s.error();
    }
    const auto calibrated = calibrateLaplace(LaplaceParams{epsilon, 1});
    if (!calibrated) {
        return calibrated.error();
    }
    return centralMechanismMatrix(calibrated->noise, n, "discretized Laplace");
}

Expected<CountMechanism> clampedGeometric(int n, double epsilon) {
    if (auto s = validatePeopleCount(n); !s) {
        return s.error();
    }
    const auto calibrated = calibrateGeometric(GeometricParams{epsilon, 1});
    if (!calibrated) {
        return calibrated.error();
    }
    return centralMechanismMatrix(calibrated->noise, n, "clamped geometric");
}

Expected<CountMechanism> discretizedGaussian(int n, double epsilon, double delta) {
    if (auto s = validatePeopleCount(n); !s) {
        return s.error();
    }
    const auto calibrated =
        calibrateGaussian(GaussianParams{epsilon, delta, 1, GaussianCalibration::Analytic});
    if (!calibrated) {
        return calibrated.error();
    }
    return centralMechanismMatrix(calibrated->noise, n, "discretized Gaussian");
}

}  // namespace dpx
