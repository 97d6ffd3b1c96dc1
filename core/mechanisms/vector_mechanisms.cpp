#include "core/mechanisms/vector_mechanisms.h"

#include <cmath>
#include <stdexcept>

#include "core/base/noise_distribution.h"
#include "core/base/random_variates.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

double dbl(std::size_t v) {
    return static_cast<double>(v);
}

bool usesDelta(VectorMechanismKind k) {
    return k == VectorMechanismKind::Gaussian || k == VectorMechanismKind::GaussianPrinted;
}

// Mean and standard error of per-trial values (sample variance with n − 1).
McEstimate estimate(const std::vector<double>& v) {
    McEstimate e;
    const double m = dbl(v.size());
    double sum = 0;
    for (double x : v) {
        sum += x;
    }
    e.mean = sum / m;
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v) {
            ss += (x - e.mean) * (x - e.mean);
        }
        e.standardError = std::sqrt(ss / (m - 1) / m);
    }
    return e;
}

}  // namespace

const char* vectorMechanismName(VectorMechanismKind kind) {
    switch (kind) {
        case VectorMechanismKind::Gaussian:
            return "gaussian";
        case VectorMechanismKind::GaussianPrinted:
            return "gaussian-printed";
        case VectorMechanismKind::Laplace:
            return "laplace";
        case VectorMechanismKind::KNorm:
            return "knorm";
    }
    return "?";
}

Expected<VectorMechanismKind> vectorMechanismFromName(const std::string& name) {
    for (auto k : {VectorMechanismKind::Gaussian, VectorMechanismKind::GaussianPrinted,
                   VectorMechanismKind::Laplace, VectorMechanismKind::KNorm}) {
        if (name == vectorMechanismName(k)) {
            return k;
        }
    }
    return Error{"unknown vector mechanism '" + name +
                 "' (use gaussian, gaussian-printed, laplace or knorm)"};
}

Status VectorMeanParams::validate() const {
    if (n < 1) {
        return Error{"the number of records n must be at least 1"};
    }
    if (d < 1 || d > kMaxVectorDimension) {
        return Error{"the dimension d must be between 1 and " +
                     groupThousands(static_cast<long long>(kMaxVectorDimension)) + " (got " +
                     groupThousands(static_cast<long long>(d)) + ")"};
    }
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (usesDelta(mechanism.kind)) {
        if (auto s = validateDelta(delta); !s) {
            return s;
        }
    }
    return okStatus();
}

Expected<VectorMeanMechanism> calibrateVectorMean(const VectorMeanParams& p) {
    if (auto s = p.validate(); !s) {
        return s.error();
    }
    VectorMeanMechanism m;
    m.spec = p.mechanism;
    m.n = p.n;
    m.d = p.d;
    const double n = dbl(p.n);
    const double d = dbl(p.d);
    m.l1Sensitivity = 2 * d / n;
    m.l2Sensitivity = 2 * std::sqrt(d) / n;
    switch (p.mechanism.kind) {
        case VectorMechanismKind::Gaussian:
        case VectorMechanismKind::GaussianPrinted: {
            const bool printed = p.mechanism.kind == VectorMechanismKind::GaussianPrinted;
            // Printed eq. (4) = the seed calibration at 2ε for the true Δ₂ (see the header).
            GaussianParams g{printed ? 2 * p.epsilon : p.epsilon, p.delta, m.l2Sensitivity,
                             printed ? GaussianCalibration::Hall : p.mechanism.calibration};
            auto cal = calibrateGaussian(g);
            if (!cal) {
                return cal.error();
            }
            m.scale = cal->noise.parameter();
            m.epsilon = g.epsilon;
            m.delta = p.delta;
            m.expectedSquaredNoise = d * m.scale * m.scale;
            if (!printed) {
                m.warnings = cal->warnings;  // (the printed form's notes would be about 2ε)
            }
            if (printed) {
                m.warnings.insert(
                    m.warnings.begin(),
                    "Kamath & Ullman primer, eq. (4) as printed: σ² = 2d ln(2/δ)/(ε²n²) assumes ‖X̄ "
                    "− X̄′‖₂² ≤ "
                    "d/n², "
                    "but replacing one record of [−1, 1]^d can move the mean by 2√d/n, so this "
                    "release is (2ε, δ) = (" +
                        formatNumber(m.epsilon) + ", " + formatNumber(p.delta) +
                        ")-DP, not (ε, δ)-DP; use 'gaussian' for (ε, δ)");
            }
            m.guarantee = "(" + formatNumber(m.epsilon) + ", " + formatNumber(m.delta) +
                          ")-differential privacy for one record replaced (Gaussian mechanism, " +
                          (printed ? std::string("Kamath & Ullman primer, eq. 4 as printed")
                                   : std::string(gaussianCalibrationName(p.mechanism.calibration)) +
                                         " calibration") +
                          ", Δ₂ = 2√d/n)";
            break;
        }
        case VectorMechanismKind::Laplace:
            m.scale = m.l1Sensitivity / p.epsilon;
            m.epsilon = p.epsilon;
            m.expectedSquaredNoise = d * 2 * m.scale * m.scale;
            m.guarantee = "pure " + formatNumber(p.epsilon) +
                          "-differential privacy for one record replaced (Laplace b = Δ₁/ε, "
                          "Δ₁ = 2d/n; Hall 2012, Prop. 1.3.1)";
            break;
        case VectorMechanismKind::KNorm:
            m.scale = m.l2Sensitivity / p.epsilon;
            m.epsilon = p.epsilon;
            m.expectedSquaredNoise = d * (d + 1) * m.scale * m.scale;
            m.guarantee = "pure " + formatNumber(p.epsilon) +
                          "-differential privacy for one record replaced (K-norm mechanism for "
                          "the L2 ball, density ∝ exp(−ε‖z‖₂/Δ₂), Δ₂ = 2√d/n; Hall 2012, §1.3)";
            break;
    }
    if (!std::isfinite(m.scale) || !(m.scale > 0) || !std::isfinite(m.expectedSquaredNoise)) {
        return Error{"the noise scale for n = " + groupThousands(static_cast<long long>(p.n)) +
                     ", d = " + groupThousands(static_cast<long long>(p.d)) +
                     ", ε = " + formatNumber(p.epsilon) + " is not representable"};
    }
    if (usesDelta(p.mechanism.kind) && p.delta >= 1 / n) {
        m.warnings.push_back("δ = " + formatNumber(p.delta) +
                             " is not below 1/n = " + formatNumber(1 / n) +
                             ": a mechanism that publishes δn of the records is (0, δ)-DP, so "
                             "such a δ protects little (Kamath & Ullman primer, Remark 3)");
    }
    return m;
}

void sampleVectorNoise(const VectorMeanMechanism& m, SimulationRng& rng, std::span<double> out) {
    if (out.size() != m.d) {
        throw std::invalid_argument("sampleVectorNoise: out.size() must equal the dimension d");
    }
    switch (m.spec.kind) {
        case VectorMechanismKind::Gaussian:
        case VectorMechanismKind::GaussianPrinted:
            for (double& v : out) {
                v = m.scale * rng.normal();
            }
            return;
        case VectorMechanismKind::Laplace:
            sampleNoise(NoiseDistribution::laplace(m.scale), rng, out);
            return;
        case VectorMechanismKind::KNorm: {
            double radius = 0;  // Gamma(d, 1) as a sum of d standard exponentials
            for (std::size_t k = 0; k < m.d; ++k) {
                radius += rng.exponential();
            }
            double norm2 = 0;
            do {  // g ~ N(0, I); ‖g‖ = 0 has probability 0 but is retried rather than divided by
                norm2 = 0;
                for (double& v : out) {
                    v = rng.normal();
                    norm2 += v * v;
                }
            } while (!(norm2 > 0));
            const double f = m.scale * radius / std::sqrt(norm2);
            for (double& v : out) {
                v *= f;
            }
            return;
        }
    }
}

Expected<std::vector<double>> noisyMean(std::span<const double> records,
                                        const VectorMeanMechanism& m, SimulationRng& rng) {
    if (m.d < 1 || m.n < 1 || records.size() != m.n * m.d) {
        return Error{"the records hold " + std::to_string(records.size()) +
                     " values, but the mechanism is calibrated for n·d = " + std::to_string(m.n) +
                     "·" + std::to_string(m.d)};
    }
    std::vector<double> mean(m.d, 0.0);
    for (std::size_t i = 0; i < m.n; ++i) {
        for (std::size_t k = 0; k < m.d; ++k) {
            const double x = records[i * m.d + k];
            if (!std::isfinite(x) || x < -1 || x > 1) {
                return Error{"record " + std::to_string(i + 1) + ", coordinate " +
                             std::to_string(k + 1) + " is " + formatNumber(x) +
                             ": records must lie in [−1, 1]^d (the sensitivity assumes it)"};
            }
            mean[k] += x;
        }
    }
    std::vector<double> noise(m.d);
    sampleVectorNoise(m, rng, noise);
    for (std::size_t k = 0; k < m.d; ++k) {
        mean[k] = mean[k] / dbl(m.n) + noise[k];
    }
    return mean;
}

double meanUpperBoundPrinted(std::size_t n, std::size_t d, double epsilon, double delta) {
    const double nn = dbl(n), dd = dbl(d);
    return dd / nn + 2 * dd * dd * std::log(2 / delta) / (epsilon * epsilon * nn * nn);
}

double meanUpperBound(std::size_t n, std::size_t d, double epsilon, double delta) {
    const double nn = dbl(n), dd = dbl(d);
    return dd / nn + 8 * dd * dd * std::log(2 / delta) / (epsilon * epsilon * nn * nn);
}

Expected<double> meanLowerBound(std::size_t n, std::size_t d, double epsilon, double delta) {
    if (n < 1 || d < 1) {
        return Error{"the lower bound needs n ≥ 1 records and d ≥ 1 dimensions"};
    }
    if (auto s = validateEpsilon(epsilon); !s) {
        return s.error();
    }
    const double nn = dbl(n), dd = dbl(d);
    if (!std::isfinite(delta) || delta < 0 || !(delta < 1 / (96 * nn))) {
        return Error{
            "the lower bound of the Kamath & Ullman primer (Thm 5) holds only for δ < 1/(96n) = " +
            formatNumber(1 / (96 * nn)) + "; δ = " + formatNumber(delta) +
            " is outside it, so no lower bound is drawn"};
    }
    return std::min(dd / 6, dd * dd / (2304 * epsilon * epsilon * nn * nn));
}

Expected<MeanEstimationBounds> meanEstimationBounds(const VectorMeanParams& p) {
    auto m = calibrateVectorMean(p);
    if (!m) {
        return m.error();
    }
    MeanEstimationBounds b;
    b.samplingWorstCase = dbl(p.d) / dbl(p.n);
    b.upperPrinted = meanUpperBoundPrinted(p.n, p.d, p.epsilon, p.delta);
    b.upper = meanUpperBound(p.n, p.d, p.epsilon, p.delta);
    if (!usesDelta(p.mechanism.kind)) {
        // The pure mechanisms need no δ; the upper bounds are those of the Gaussian mechanism
        // at the δ given (validated here since it is not part of the pure mechanism's check).
        if (auto s = validateDelta(p.delta); !s) {
            return s.error();
        }
    }
    auto lower = meanLowerBound(p.n, p.d, m->epsilon, m->delta);
    if (lower) {
        b.lower = *lower;
    } else {
        b.lowerNote = lower.error().message;
    }
    return b;
}

const char* meanPopulationName(MeanPopulation p) {
    return p == MeanPopulation::UniformPrior ? "uniform-prior" : "bias";
}

Expected<MeanPopulation> meanPopulationFromName(const std::string& name) {
    if (name == "bias") {
        return MeanPopulation::FixedBias;
    }
    if (name == "uniform-prior") {
        return MeanPopulation::UniformPrior;
    }
    return Error{"unknown population '" + name + "' (use bias or uniform-prior)"};
}

Status MeanSimulationParams::validate() const {
    if (auto s = release.validate(); !s) {
        return s;
    }
    if (!std::isfinite(bias) || bias < -1 || bias > 1) {
        return Error{"the bias (mean of every coordinate) must lie in [−1, 1], got " +
                     formatNumber(bias)};
    }
    if (trials < 1) {
        return Error{"the number of trials must be at least 1"};
    }
    if (dbl(trials) * dbl(release.d) > 4e9) {
        return Error{"the simulation is too large: trials·d = " +
                     formatNumber(dbl(trials) * dbl(release.d)) + " (limit 4e9)"};
    }
    return okStatus();
}

Expected<MeanSimulationResult> simulateMeanError(const MeanSimulationParams& p) {
    if (auto s = p.validate(); !s) {
        return s.error();
    }
    auto mech = calibrateVectorMean(p.release);
    if (!mech) {
        return mech.error();
    }
    auto bounds = meanEstimationBounds(p.release);
    if (!bounds) {
        return bounds.error();
    }
    MeanSimulationResult r;
    r.mechanism = *mech;
    r.bounds = *bounds;
    const std::size_t n = p.release.n;
    const std::size_t d = p.release.d;
    const double nd = dbl(n), dd = dbl(d);
    r.expectedSampling = p.population == MeanPopulation::UniformPrior
                             ? 2 * dd / (3 * nd)
                             : dd * (1 - p.bias * p.bias) / nd;
    r.expectedNoise = mech->expectedSquaredNoise;
    r.expectedTotal = r.expectedSampling + r.expectedNoise;
    std::vector<double> samp(p.trials), noi(p.trials), tot(p.trials);
    std::vector<double> mu(d, p.bias), xbar(d), z(d);
    for (std::size_t t = 0; t < p.trials; ++t) {
        SimulationRng rng(p.seed, t);
        for (std::size_t k = 0; k < d; ++k) {
            if (p.population == MeanPopulation::UniformPrior) {
                mu[k] = 2 * rng.uniform() - 1;
            }
            const double ones = dbl(binomial(rng, n, 0.5 * (1 + mu[k])));
            xbar[k] = (2 * ones - nd) / nd;
        }
        sampleVectorNoise(*mech, rng, z);
        double s = 0, e = 0, a = 0;
        for (std::size_t k = 0; k < d; ++k) {
            const double ds = xbar[k] - mu[k];
            s += ds * ds;
            e += z[k] * z[k];
            a += (ds + z[k]) * (ds + z[k]);
        }
        samp[t] = s;
        noi[t] = e;
        tot[t] = a;
    }
    r.sampling = estimate(samp);
    r.noise = estimate(noi);
    r.total = estimate(tot);
    r.warnings = mech->warnings;
    if (p.population == MeanPopulation::FixedBias && r.bounds.lower) {
        r.warnings.push_back(
            "the lower bound is a worst case over populations (Kamath & Ullman primer, Thm 5, "
            "attained on "
            "average under the uniform prior); one fixed bias may have a smaller error");
    }
    return r;
}

}  // namespace dpx
