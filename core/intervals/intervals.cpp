#include "core/intervals/intervals.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/erf.hpp>

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/estimators/estimator.h"
#include "core/table/query.h"

namespace dpx {

namespace {

// 1 − L^(1/m) without cancellation: −expm1(ln(L)/m).
double exactMaxTail(double level, double m) {
    return -std::expm1(std::log(level) / m);
}

// ---- discrete Gaussian --------------------------------------------------------------------
// Pr[Z = z] = f(z)/S, f(z) = exp(−z²/(2σ²)), S = Σ_z f(z) = 1 + 2·T(1), T(a) = Σ_{z≥a} f(z).
// Up to σ = kDirectSigma the sums are exact: every term down to 10⁻³⁰ of f(0) is added, from the
// smallest up (so the tail sums keep full relative precision). Beyond, T(a) by the Euler–Maclaurin
// formula T(a) = ∫_a^∞ f + f(a)/2 + a/(12σ²)·f(a) + R, whose next term (B₄/4!)·f‴(a) is at most
// 10⁻¹²·f(a) for σ > 10⁴ and a ≤ 12σ (f‴(a) = (3a/σ⁴ − a³/σ⁶)·f(a)), far below the 10⁻¹⁵
// relative precision of the integral σ√(π/2)·erfc(a/(σ√2)).
constexpr double kDirectSigma = 1e4;

double dgTailEulerMaclaurin(double sigma2, double a) {
    const double sigma = std::sqrt(sigma2);
    const double fa = std::exp(-a * a / (2 * sigma2));
    return sigma * std::sqrt(std::numbers::pi / 2) * std::erfc(a / (sigma * std::numbers::sqrt2)) +
           fa / 2 + a / (12 * sigma2) * fa;
}

// Suffix sums T(z) for z = 0…zmax (direct range).
std::vector<double> dgSuffix(double sigma2) {
    const double sigma = std::sqrt(sigma2);
    // f(zmax) < 10⁻³⁰: zmax ≥ σ·√(2·30·ln 10).
    const auto zmax =
        static_cast<std::size_t>(std::ceil(sigma * std::sqrt(60 * std::log(10.0)))) + 1;
    std::vector<double> t(zmax + 2, 0.0);
    for (std::size_t z = zmax + 1; z-- > 0;) {
        const double x = static_cast<double>(z);
        t[z] = t[z + 1] + std::exp(-x * x / (2 * sigma2));
    }
    return t;
}

double dgTotal(double sigma2) {
    if (std::sqrt(sigma2) <= kDirectSigma) {
        const auto t = dgSuffix(sigma2);
        return 1 + 2 * t[1];
    }
    return 1 + 2 * dgTailEulerMaclaurin(sigma2, 1);
}

double dgAbsSurvival(double sigma2, double k) {
    if (k < 0)
        return 1;
    if (std::sqrt(sigma2) <= kDirectSigma) {
        const auto t = dgSuffix(sigma2);
        const auto i = static_cast<std::size_t>(k) + 1;
        return i < t.size() ? 2 * t[i] / (1 + 2 * t[1]) : 0.0;
    }
    return 2 * dgTailEulerMaclaurin(sigma2, k + 1) / dgTotal(sigma2);
}

// Smallest integer k ≥ 0 with Pr[|Z| > k] ≤ tail.
double dgHalfWidth(double sigma2, double tail) {
    if (std::sqrt(sigma2) <= kDirectSigma) {
        const auto t = dgSuffix(sigma2);
        const double total = 1 + 2 * t[1];
        for (std::size_t k = 0; k + 1 < t.size(); ++k) {
            if (2 * t[k + 1] / total <= tail)
                return static_cast<double>(k);
        }
        return static_cast<double>(t.size() - 1);
    }
    // Bisection over integers on the decreasing Pr[|Z| > k].
    const double total = dgTotal(sigma2);
    auto sv = [&](double k) { return 2 * dgTailEulerMaclaurin(sigma2, k + 1) / total; };
    double lo = 0, hi = std::ceil(std::sqrt(sigma2) * 20);
    if (sv(lo) <= tail)
        return 0;
    while (hi - lo > 1) {
        const double mid = std::floor(lo + (hi - lo) / 2);
        (sv(mid) <= tail ? hi : lo) = mid;
    }
    return hi;
}

// The pmf of one discrete Gaussian on −K…K (K with f(K) < 10⁻³⁰), normalised.
std::vector<double> dgPmf(double sigma2, std::size_t& K) {
    const auto t = dgSuffix(sigma2);
    K = t.size() - 2;
    std::vector<double> p(2 * K + 1);
    const double total = 1 + 2 * t[1];
    for (std::size_t z = 0; z <= K; ++z) {
        const double x = static_cast<double>(z);
        p[K + z] = p[K - z] = std::exp(-x * x / (2 * sigma2)) / total;
    }
    return p;
}

std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> c(a.size() + b.size() - 1, 0.0);
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] == 0)
            continue;
        for (std::size_t j = 0; j < b.size(); ++j)
            c[i + j] += a[i] * b[j];
    }
    return c;
}

// Drops the outer entries whose total is below 10⁻²⁵ on each side (keeps the array symmetric).
void trim(std::vector<double>& p) {
    std::size_t cut = 0;
    double mass = 0;
    while (2 * cut + 1 < p.size() && mass + p[cut] < 1e-25) {
        mass += p[cut];
        ++cut;
    }
    if (cut > 0)
        p = std::vector<double>(p.begin() + static_cast<std::ptrdiff_t>(cut),
                                p.end() - static_cast<std::ptrdiff_t>(cut));
}

// Work (multiply-adds) allowed for the exact convolution of m discrete Gaussians.
constexpr double kMaxConvolutionWork = 2e8;

std::string levelWords(double level) {
    return levelPercentText(level);
}

}  // namespace

// ---- CellNoise ----------------------------------------------------------------------------

CellNoise CellNoise::of(const NoiseDistribution& noise) {
    switch (noise.kind()) {
        case NoiseKind::Laplace:
            return {CellNoiseKind::Laplace, noise.parameter()};
        case NoiseKind::DiscreteLaplace:
            return {CellNoiseKind::DiscreteLaplace, noise.parameter()};
        case NoiseKind::Gaussian:
            return {CellNoiseKind::Gaussian, noise.parameter()};
    }
    return {};
}

double CellNoise::variance() const {
    switch (kind) {
        case CellNoiseKind::Laplace:
            return 2 * parameter * parameter;
        case CellNoiseKind::DiscreteLaplace:
            return 2 * parameter / ((1 - parameter) * (1 - parameter));
        case CellNoiseKind::Gaussian:
            return parameter * parameter;
        case CellNoiseKind::DiscreteGaussian: {
            // Σ z² f(z)/S (below σ², CKS 2020 Prop. 5); by the same sums as the tails.
            if (std::sqrt(parameter) > kDirectSigma)
                return parameter;  // differs from σ² by < 10⁻¹⁰⁰ relative (CKS Prop. 5)
            const auto t = dgSuffix(parameter);
            double s = 0;
            for (std::size_t z = t.size() - 2; z >= 1; --z) {
                const double x = static_cast<double>(z);
                s += x * x * std::exp(-x * x / (2 * parameter));
            }
            return 2 * s / (1 + 2 * t[1]);
        }
    }
    return 0;
}

double CellNoise::absSurvival(double k) const {
    switch (kind) {
        case CellNoiseKind::Laplace:
            return NoiseDistribution::laplace(parameter).absSurvival(k);
        case CellNoiseKind::DiscreteLaplace:
            return NoiseDistribution::discreteLaplace(parameter).absSurvival(k);
        case CellNoiseKind::Gaussian:
            return NoiseDistribution::gaussian(parameter).absSurvival(k);
        case CellNoiseKind::DiscreteGaussian:
            return dgAbsSurvival(parameter, std::floor(k));
    }
    return 1;
}

Status CellNoise::validate() const {
    const double p = parameter;
    if (kind == CellNoiseKind::DiscreteLaplace ? !(p > 0 && p < 1)
                                               : !(std::isfinite(p) && p > 0 && p <= 1e24)) {
        return Error{"the cell noise " + describe() +
                     " is not a valid law (b, σ and σ² must be finite and > 0, α in (0, 1))"};
    }
    return okStatus();
}

std::string CellNoise::describe() const {
    switch (kind) {
        case CellNoiseKind::Laplace:
            return NoiseDistribution::laplace(parameter).describe();
        case CellNoiseKind::DiscreteLaplace:
            return NoiseDistribution::discreteLaplace(parameter).describe();
        case CellNoiseKind::Gaussian:
            return NoiseDistribution::gaussian(parameter).describe();
        case CellNoiseKind::DiscreteGaussian:
            break;
    }
    std::ostringstream os;
    os.precision(6);
    os << "discrete Gaussian(σ² = " << parameter << ")";
    return os.str();
}

Status validateConfidenceLevel(double level) {
    if (!(level > 0 && level < 1)) {
        return Error{"the confidence level must be strictly between 0 and 1, e.g. 0.95 (got " +
                     formatNumber(level) + ")"};
    }
    return okStatus();
}

// ---- one cell -----------------------------------------------------------------------------

namespace {

// Half-width for a tail probability τ = 1 − level (kept apart so that per-bin levels close to 1,
// as in the exact max over 65 536 bins, lose no precision).
NoiseInterval cellIntervalForTail(const CellNoise& noise, double tail, double level) {
    NoiseInterval r;
    r.level = level;
    const double p = noise.parameter;
    switch (noise.kind) {
        case CellNoiseKind::Laplace:
            // Pr[|Z| > h] = e^{−h/b} (the Laplace law's closed form).
            r.halfWidth = -p * std::log(tail);
            r.method = "exact quantile of " + noise.describe() + ": b·ln(1/(1 − level))";
            break;
        case CellNoiseKind::Gaussian:
            // Pr[|Z| > h] = erfc(h/(σ√2)).
            r.halfWidth = p * std::numbers::sqrt2 * boost::math::erfc_inv(tail);
            r.method = "exact quantile of " + noise.describe() + ": σ·√2·erfc⁻¹(1 − level)";
            break;
        case CellNoiseKind::DiscreteLaplace: {
            // Pr[|Z| > k] = 2α^{k+1}/(1 + α): k + 1 ≥ ln(τ(1 + α)/2)/ln α; then the exact check.
            double k = std::max(0.0, std::ceil(std::log(tail * (1 + p) / 2) / std::log(p) - 1));
            while (k > 0 && noise.absSurvival(k - 1) <= tail)
                --k;
            while (noise.absSurvival(k) > tail)
                ++k;
            r.halfWidth = k;
            r.method = "smallest integer with Pr[|Z| ≤ h] ≥ level for " + noise.describe() +
                       " (exact: Pr[|Z| > h] = 2α^(h+1)/(1 + α))";
            break;
        }
        case CellNoiseKind::DiscreteGaussian:
            r.halfWidth = dgHalfWidth(p, tail);
            r.method =
                "smallest integer with Pr[|Z| ≤ h] ≥ level for " + noise.describe() +
                (std::sqrt(p) <= kDirectSigma
                     ? " (exact sums of the probability mass, Canonne, Kamath & Steinke 2020)"
                     : " (sums by the Euler–Maclaurin formula, error < 10⁻¹², Canonne, Kamath & "
                       "Steinke 2020)");
            break;
    }
    r.coverage = 1 - noise.absSurvival(r.halfWidth);
    if (!noise.isDiscrete())
        r.coverage = 1 - tail;
    return r;
}

}  // namespace

Expected<NoiseInterval> cellInterval(const CellNoise& noise, double level) {
    if (auto s = validateConfidenceLevel(level); !s)
        return s.error();
    if (auto s = noise.validate(); !s)
        return s.error();
    return cellIntervalForTail(noise, 1 - level, level);
}

// ---- sums ---------------------------------------------------------------------------------

Expected<NoiseInterval> sumInterval(const CellNoise& noise, std::uint64_t m, double level) {
    if (auto s = validateConfidenceLevel(level); !s)
        return s.error();
    if (auto s = noise.validate(); !s)
        return s.error();
    if (m == 0)
        return Error{"a sum of cells needs at least one cell (got 0)"};
    if (m == 1)
        return cellInterval(noise, level);
    const double md = static_cast<double>(m);
    const std::string what = "the sum of " + std::to_string(m) + " " + noise.describe();
    NoiseInterval r;
    r.level = level;
    switch (noise.kind) {
        case CellNoiseKind::Gaussian:
            // The sum is N(0, mσ²) exactly.
            r.halfWidth =
                noise.parameter * std::sqrt(md) * std::numbers::sqrt2 * boost::math::erf_inv(level);
            r.coverage = level;
            r.method = "exact quantile of " + what + " (a Gaussian of variance mσ²)";
            return r;
        case CellNoiseKind::Laplace:
        case CellNoiseKind::DiscreteLaplace: {
            const NoiseDistribution cell =
                noise.kind == CellNoiseKind::Laplace
                    ? NoiseDistribution::laplace(noise.parameter)
                    : NoiseDistribution::discreteLaplace(noise.parameter);
            const SummedNoise sum{cell, CellCount{m}};
            r.halfWidth = sum.absQuantile(level);
            r.coverage = level;
            r.method = "exact quantile of " + what +
                       (noise.kind == CellNoiseKind::Laplace
                            ? " (the law of b(G₁ − G₂), G_i ~ Gamma(m, 1), integrated numerically)"
                            : " (smallest integer; the difference of two negative binomials)");
            return r;
        }
        case CellNoiseKind::DiscreteGaussian: {
            std::size_t K = 0;
            const double sigma = std::sqrt(noise.parameter);
            const double width = 24 * sigma * std::sqrt(md) + 1;
            if (sigma <= kDirectSigma && width * width * std::log2(md + 1) <= kMaxConvolutionWork) {
                // Exact convolution by repeated doubling (m = Σ of powers of two).
                std::vector<double> base = dgPmf(noise.parameter, K);
                std::vector<double> acc{1.0};
                for (std::uint64_t rest = m; rest > 0; rest >>= 1) {
                    if (rest & 1U) {
                        acc = convolve(acc, base);
                        trim(acc);
                    }
                    if (rest > 1) {
                        base = convolve(base, base);
                        trim(base);
                    }
                }
                const std::size_t c = acc.size() / 2;
                // Smallest k with the two tails beyond ±k summing to ≤ 1 − level, added from
                // the outside in.
                double tailMass = 0;
                std::size_t k = c;
                while (k > 0 && tailMass + acc[c - k] + acc[c + k] <= 1 - level) {
                    tailMass += acc[c - k] + acc[c + k];
                    --k;
                }
                r.halfWidth = static_cast<double>(k);
                r.coverage = 1 - tailMass;
                r.method = "smallest integer with Pr[|Σ| ≤ h] ≥ level for " + what +
                           " (exact convolution of the probability mass)";
                return r;
            }
            // Each discrete Gaussian is sub-Gaussian with variance proxy σ² (CKS 2020 Cor. 9:
            // E[e^{tZ}] ≤ e^{t²σ²/2}), so the sum has Pr[|Σ| > h] ≤ 2·exp(−h²/(2mσ²)).
            r.halfWidth = std::ceil(sigma * std::sqrt(2 * md * std::log(2 / (1 - level))));
            r.coverage = level;
            r.method = "conservative bound for " + what +
                       " (sub-Gaussian tail 2·exp(−h²/(2mσ²)), Canonne, Kamath & Steinke 2020 Cor. "
                       "9; coverage ≥ level)";
            return r;
        }
    }
    return Error{"unknown noise law"};
}

// ---- per-bin and simultaneous ---------------------------------------------------------------

Expected<TableIntervals> tableIntervals(const CellNoise& noise, std::uint64_t bins, double level) {
    if (auto s = validateConfidenceLevel(level); !s)
        return s.error();
    if (auto s = noise.validate(); !s)
        return s.error();
    if (bins == 0)
        return Error{"a table needs at least one bin (got 0)"};
    const double m = static_cast<double>(bins);
    TableIntervals t;
    t.bins = bins;
    t.perBin = cellIntervalForTail(noise, 1 - level, level);
    t.perBin.method = "per bin: " + t.perBin.method;
    t.bonferroni = cellIntervalForTail(noise, (1 - level) / m, level);
    t.bonferroni.coverage = 1 - m * (1 - t.bonferroni.coverage);  // Bonferroni's lower bound
    t.bonferroni.method = "all " + std::to_string(bins) +
                          " bins at once, Bonferroni (each bin at 1 − (1 − level)/m; any "
                          "dependence): " +
                          t.bonferroni.method;
    t.exactMax = cellIntervalForTail(noise, exactMaxTail(level, m), level);
    // Pr[all covered] = Pr[|Z| ≤ h]^m for independent identical noise.
    t.exactMax.coverage = std::exp(m * std::log1p(-noise.absSurvival(t.exactMax.halfWidth)));
    if (!noise.isDiscrete())
        t.exactMax.coverage = level;
    t.exactMax.method = "all " + std::to_string(bins) +
                        " bins at once, exact for independent identical noise (each bin at "
                        "level^(1/m)): " +
                        t.exactMax.method;
    return t;
}

Expected<TableIntervals> countMechanismIntervals(const CountMechanism& mechanism,
                                                 std::uint64_t bins, double level) {
    if (auto s = validateConfidenceLevel(level); !s)
        return s.error();
    if (bins == 0)
        return Error{"a table needs at least one bin (got 0)"};
    const std::size_t size = mechanism.size();
    // For every tail τ: the worst column's smallest h with Pr[|Y − c| > h | c] ≤ τ; the coverage
    // returned is the worst column's at that h.
    auto worst = [&](double tail, double& coverage) {
        double h = 0;
        coverage = 1;
        for (std::size_t c = 0; c < size; ++c) {
            const double s = mechanism.columnSum(c);
            // Mass outside ±k, added from the outside in.
            std::vector<double> byDistance(size, 0.0);
            for (std::size_t i = 0; i < size; ++i) {
                const std::size_t d = i > c ? i - c : c - i;
                byDistance[d] += mechanism.at(i, c) / s;
            }
            double outside = 0;
            std::size_t k = size - 1;
            while (k > 0 && outside + byDistance[k] <= tail) {
                outside += byDistance[k];
                --k;
            }
            h = std::max(h, static_cast<double>(k));
            coverage = std::min(coverage, 1 - outside);
        }
        // The coverage at the common h is at least each column's at its own h.
        return h;
    };
    const double m = static_cast<double>(bins);
    const std::string what =
        mechanism.name().empty() ? std::string("the count mechanism") : mechanism.name();
    const std::string base = "worst case over the true counts 0…" + std::to_string(size - 1) +
                             " of " + what + " (exact enumeration of its columns)";
    TableIntervals t;
    t.bins = bins;
    double cov = 0;
    t.perBin.level = t.bonferroni.level = t.exactMax.level = level;
    t.perBin.halfWidth = worst(1 - level, cov);
    t.perBin.coverage = cov;
    t.perBin.method = "per bin: " + base;
    t.bonferroni.halfWidth = worst((1 - level) / m, cov);
    t.bonferroni.coverage = 1 - m * (1 - cov);
    t.bonferroni.method = "all bins at once, Bonferroni: " + base;
    t.exactMax.halfWidth = worst(exactMaxTail(level, m), cov);
    t.exactMax.coverage = std::exp(m * std::log(cov));
    t.exactMax.method =
        "all bins at once (independent bins, the worst count's level^(1/m)): " + base;
    return t;
}

// ---- after post-processing ------------------------------------------------------------------

double sampleCellNoise(const CellNoise& noise, SimulationRng& rng) {
    switch (noise.kind) {
        case CellNoiseKind::Laplace:
            return sampleNoise(NoiseDistribution::laplace(noise.parameter), rng);
        case CellNoiseKind::DiscreteLaplace:
            return sampleNoise(NoiseDistribution::discreteLaplace(noise.parameter), rng);
        case CellNoiseKind::Gaussian:
            return sampleNoise(NoiseDistribution::gaussian(noise.parameter), rng);
        case CellNoiseKind::DiscreteGaussian: {
            // CKS 2020 Algorithm 3: Y ~ DLap(t), t = ⌊σ⌋ + 1, accepted with probability
            // exp(−(|Y| − σ²/t)²/(2σ²)).
            const double sigma2 = noise.parameter;
            const double t = std::floor(std::sqrt(sigma2)) + 1;
            const NoiseDistribution lap = NoiseDistribution::discreteLaplace(std::exp(-1 / t));
            for (;;) {
                const double y = sampleNoise(lap, rng);
                const double d = std::abs(y) - sigma2 / t;
                if (rng.uniform() < std::exp(-d * d / (2 * sigma2)))
                    return y;
            }
        }
    }
    return 0;
}

namespace {

// The ⌈L·n⌉-th smallest of `v` (the empirical L-quantile), reordering v.
double empiricalQuantile(std::vector<double>& v, double level) {
    const auto n = v.size();
    auto k = static_cast<std::size_t>(std::ceil(level * static_cast<double>(n)));
    k = std::clamp<std::size_t>(k, 1, n) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

}  // namespace

Expected<PostProcessedIntervals> postProcessedIntervals(EstimatorKind estimator,
                                                        const CellNoise& noise,
                                                        std::span<const double> truth, double level,
                                                        std::uint64_t trials, std::uint64_t seed) {
    if (auto s = validateConfidenceLevel(level); !s)
        return s.error();
    if (auto s = noise.validate(); !s)
        return s.error();
    if (truth.empty())
        return Error{"post-processed intervals need at least one bin"};
    for (double c : truth) {
        if (!std::isfinite(c))
            return Error{"post-processed intervals: a true count is not finite"};
    }
    if (trials < 100)
        return Error{"post-processed intervals need at least 100 Monte Carlo trials (got " +
                     std::to_string(trials) + ")"};
    const std::size_t bins = truth.size();
    if (static_cast<double>(trials) * static_cast<double>(bins) >
        static_cast<double>(kMaxPostProcessedCells)) {
        return Error{"post-processed intervals: " + std::to_string(trials) + " trials × " +
                     std::to_string(bins) + " bins exceed " +
                     std::to_string(kMaxPostProcessedCells) + " values; use fewer trials"};
    }
    const EstimatorSpec spec{estimator, noise.variance()};
    if (auto s = spec.validate(); !s)
        return s.error();
    SimulationRng rng(seed, 0x1a7e);
    EstimatorWorkspace ws;
    std::vector<double> values(bins);
    // errors[b·trials + t] = |estimate_b − truth_b| of trial t.
    std::vector<double> errors(bins * trials);
    std::vector<double> maxima(trials);
    for (std::uint64_t t = 0; t < trials; ++t) {
        for (std::size_t b = 0; b < bins; ++b)
            values[b] = truth[b] + sampleCellNoise(noise, rng);
        estimateInPlace(spec, values, ws);
        double mx = 0;
        for (std::size_t b = 0; b < bins; ++b) {
            const double e = std::abs(values[b] - truth[b]);
            errors[b * trials + t] = e;
            mx = std::max(mx, e);
        }
        maxima[t] = mx;
    }
    PostProcessedIntervals r;
    r.level = level;
    r.trials = trials;
    r.perBin.resize(bins);
    std::vector<double> column(trials);
    for (std::size_t b = 0; b < bins; ++b) {
        std::copy_n(errors.begin() + static_cast<std::ptrdiff_t>(b * trials), trials,
                    column.begin());
        r.perBin[b] = empiricalQuantile(column, level);
        r.uniform = std::max(r.uniform, r.perBin[b]);
    }
    r.simultaneous = empiricalQuantile(maxima, level);
    r.coverageStandardError = std::sqrt(level * (1 - level) / static_cast<double>(trials));
    std::ostringstream os;
    os.precision(2);
    os << "Monte Carlo: " << trials << " noisy copies of the counts, " << estimatorName(estimator)
       << " applied to each, the empirical " << levelWords(level)
       << " quantile of the error (coverage within ±" << 100 * r.coverageStandardError
       << " percentage points, one standard error)";
    r.method = os.str();
    return r;
}

// ---- words --------------------------------------------------------------------------------

std::string levelPercentText(double level) {
    std::ostringstream os;
    os.precision(10);
    // Round to 10 significant digits so that 0.95·100 prints as 95.
    const double pct = std::round(level * 100 * 1e8) / 1e8;
    os << pct << " %";
    return os.str();
}

std::string halfWidthText(double halfWidth) {
    if (halfWidth == std::floor(halfWidth) && std::abs(halfWidth) < 1e15) {
        std::ostringstream os;
        os.precision(16);
        os << halfWidth;
        return os.str();
    }
    std::ostringstream os;
    os.precision(4);
    os << halfWidth;
    std::string s = os.str();
    if (s.find('e') != std::string::npos) {
        os.str("");
        os << std::fixed;
        os.precision(0);
        os << halfWidth;
        s = os.str();
    }
    return s;
}

std::string intervalSentence(double level, double halfWidth) {
    return "With " + levelPercentText(level) + " confidence each published count is within ±" +
           halfWidthText(halfWidth) + " of the count before noise.";
}

// ---- sampling error -------------------------------------------------------------------------

Expected<WeightSummary> kishEffectiveSampleSize(std::span<const double> weights) {
    if (weights.size() < 2)
        return Error{"weights: a weighted sample needs at least 2 rows (got " +
                     std::to_string(weights.size()) + ")"};
    // Kahan sums: millions of weights of similar size lose digits in a plain sum.
    double sum = 0, sumC = 0, sq = 0, sqC = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        const double w = weights[i];
        if (!(std::isfinite(w) && w > 0))
            return Error{"weights: the weight of row " + std::to_string(i + 1) +
                         " must be a finite number > 0 (got " + formatNumber(w) + ")"};
        const double y = w - sumC;
        const double t = sum + y;
        sumC = (t - sum) - y;
        sum = t;
        const double y2 = w * w - sqC;
        const double t2 = sq + y2;
        sqC = (t2 - sq) - y2;
        sq = t2;
    }
    if (!std::isfinite(sum) || !std::isfinite(sq))
        return Error{"weights: their sum of squares overflows double precision"};
    WeightSummary r;
    r.rows = weights.size();
    r.sumWeights = sum;
    r.sumSquares = sq;
    // (Σw)²/Σw² ≤ n by Cauchy–Schwarz; rounding may put it a hair above n.
    r.effectiveSampleSize = std::min(sum / sq * sum, static_cast<double>(weights.size()));
    r.designEffect = static_cast<double>(weights.size()) / r.effectiveSampleSize;
    return r;
}

Expected<SamplingIntervals> samplingIntervals(double count, double sampleSize,
                                              double populationSize, const CellNoise& noise,
                                              double level, double effectiveSampleSize) {
    if (auto s = validateConfidenceLevel(level); !s)
        return s.error();
    if (auto s = noise.validate(); !s)
        return s.error();
    if (!(std::isfinite(sampleSize) && sampleSize >= 2))
        return Error{"the sample size must be at least 2 rows (got " + formatNumber(sampleSize) +
                     ")"};
    if (!(std::isfinite(populationSize) && populationSize >= sampleSize))
        return Error{"the population size (" + formatNumber(populationSize) +
                     ") must be at least the sample size (" + formatNumber(sampleSize) + ")"};
    if (!std::isfinite(count))
        return Error{"the count is not a finite number"};
    const bool weighted = effectiveSampleSize != 0;
    if (weighted && !(std::isfinite(effectiveSampleSize) && effectiveSampleSize >= 2 &&
                      effectiveSampleSize <= sampleSize))
        return Error{"the effective sample size must be between 2 and the sample size " +
                     formatNumber(sampleSize) + " (got " + formatNumber(effectiveSampleSize) + ")"};
    const double n = sampleSize, N = populationSize;
    const double nEff = weighted ? effectiveSampleSize : n;
    // A published count may be negative or above n after noise: p is clamped to [0, 1].
    const double p = std::clamp(count / n, 0.0, 1.0);
    const double fpc = N > 1 ? (N - n) / (N - 1) : 0.0;
    const double scale = N / n;
    SamplingIntervals r;
    r.estimate = scale * count;
    r.samplingStandardError = N * std::sqrt(p * (1 - p) / nEff * fpc);
    const double zq = std::numbers::sqrt2 * boost::math::erf_inv(level);
    r.sampling = zq * r.samplingStandardError;
    auto cell = cellInterval(noise, level);
    if (!cell)
        return cell.error();
    r.noise = scale * cell->halfWidth;
    const double s = r.samplingStandardError;
    // Pr[|S + aZ| ≤ h], S ~ N(0, s²), a = N/n, Z the cell noise: E_Z[Φ((h − aZ)/s) − Φ((−h −
    // aZ)/s)].
    auto window = [&](double h, double x) {  // Pr[|S + x| ≤ h]
        if (s == 0)
            return std::abs(x) <= h ? 1.0 : 0.0;
        return 0.5 * (std::erfc((-h - x) / (s * std::numbers::sqrt2)) -
                      std::erfc((h - x) / (s * std::numbers::sqrt2)));
    };
    // Pr[|Z| = z] for z = 0, 1, … until the rest is below 10⁻¹⁵ (the discrete laws).
    std::vector<double> absPmf;
    if (noise.kind == CellNoiseKind::DiscreteLaplace) {
        const double a = noise.parameter;
        double pz = (1 - a) / (1 + a);
        absPmf.push_back(pz);
        for (double rest = 1 - pz; rest > 1e-15 && absPmf.size() < 100'000'000;) {
            pz *= a;
            absPmf.push_back(2 * pz);
            rest -= 2 * pz;
        }
    } else if (noise.kind == CellNoiseKind::DiscreteGaussian) {
        if (std::sqrt(noise.parameter) > kDirectSigma)
            return Error{"sampling intervals: the discrete Gaussian's σ is above " +
                         formatNumber(kDirectSigma) + "; use a larger ε or δ"};
        std::size_t K = 0;
        const auto pmf = dgPmf(noise.parameter, K);
        absPmf.push_back(pmf[K]);
        for (std::size_t z = 1; z <= K; ++z)
            absPmf.push_back(2 * pmf[K + z]);
    }
    auto coverage = [&](double h) -> double {
        const double q = noise.parameter;
        switch (noise.kind) {
            case CellNoiseKind::Gaussian:
                return std::erf(h /
                                (std::sqrt(s * s + scale * scale * q * q) * std::numbers::sqrt2));
            case CellNoiseKind::Laplace: {
                // Density of aZ: e^{−|x|/(ab)}/(2ab); symmetric, so 2∫₀^∞.
                const double ab = scale * q;
                auto f = [&](double x) { return window(h, x) * std::exp(-x / ab) / ab; };
                double err = 0;
                return boost::math::quadrature::gauss_kronrod<double, 31>::integrate(
                    f, 0.0, std::numeric_limits<double>::infinity(), 15, 1e-12, &err);
            }
            case CellNoiseKind::DiscreteLaplace:
            case CellNoiseKind::DiscreteGaussian: {
                // Σ_z Pr[Z = z]·window(h, a z), by symmetry over z ≥ 0 with Pr[|Z| = z].
                double total = 0;
                for (std::size_t z = 0; z < absPmf.size(); ++z)
                    total += absPmf[z] * window(h, scale * static_cast<double>(z));
                return total;
            }
        }
        return 0.0;
    };
    if (s == 0) {
        r.combined = r.noise;
    } else {
        // Bisection: the combined half-width lies between the larger and the sum of the two.
        double lo = 0, hi = r.sampling + r.noise + s;
        while (coverage(hi) < level)
            hi *= 2;
        for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; ++i) {
            const double mid = (lo + hi) / 2;
            (coverage(mid) >= level ? hi : lo) = mid;
        }
        r.combined = hi;
    }
    r.method =
        "sampling: normal approximation with the finite-population correction, N·√(p(1 − p)/n "
        "· "
        "(N − n)/(N − 1)) (Cochran 1977, §3.2–3.3); DP noise: " +
        cell->method +
        ", scaled by N/n; combined: the quantile of their sum (independent), by "
        "numerical integration";
    if (weighted)
        r.method += "; n in the sampling variance replaced by the effective sample size n_eff = " +
                    formatNumber(nEff) + " of the weights (Kish 1965; design effect n/n_eff = " +
                    formatNumber(n / nEff) + ")";
    return r;
}

namespace {

// 2·inf_u exp(−u·h + ln M(u)) over u in (0, uMax), by golden-section search on the convex
// exponent (any u gives a valid bound, so an imperfect search only widens the interval).
template <class LogMgf>
double chernoffTwoSided(double h, double uMax, LogMgf logMgf) {
    double lo = 0, hi = uMax;
    const double g = (std::sqrt(5.0) - 1) / 2;
    const auto f = [&](double u) { return -u * h + logMgf(u); };
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    double fa = f(a), fb = f(b);
    for (int i = 0; i < 200 && hi - lo > 1e-15 * uMax; ++i) {
        if (fa < fb) {
            hi = b;
            b = a;
            fb = fa;
            a = hi - g * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + g * (hi - lo);
            fb = f(b);
        }
    }
    return std::min(1.0, 2 * std::exp(std::min(fa, fb)));
}

// The smallest h (up to bisection, rounded up) with tail(h) ≤ 1 − level; tail non-increasing.
template <class Tail>
double solveTail(double level, double scale, Tail tail) {
    const double target = 1 - level;
    double lo = 0, hi = scale;
    while (tail(hi) > target) {
        lo = hi;
        hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (tail(mid) > target ? lo : hi) = mid;
    }
    return std::nextafter(hi, std::numeric_limits<double>::infinity());
}

}  // namespace

Expected<NoiseInterval> linearEstimateInterval(const CellNoise& noise, double level) {
    if (auto v = noise.validate(); !v) {
        return v.error();
    }
    if (auto v = validateConfidenceLevel(level); !v) {
        return v.error();
    }
    NoiseInterval r;
    r.level = level;
    const std::string what = "a linear combination Σ aᵢZᵢ of independent " + noise.describe() +
                             " draws, per unit of ‖a‖₂";
    switch (noise.kind) {
        case CellNoiseKind::Gaussian:
            r.halfWidth = noise.parameter * std::sqrt(2.0) * boost::math::erfc_inv(1 - level);
            r.coverage = level;
            r.method = "exact quantile of " + what + " (a Gaussian)";
            return r;
        case CellNoiseKind::DiscreteGaussian: {
            const double sigma = std::sqrt(noise.parameter);
            r.halfWidth = sigma * std::sqrt(2 * std::log(2 / (1 - level)));
            r.method = "conservative bound for " + what +
                       " (sub-Gaussian tail 2·exp(−h²/(2σ²‖a‖²)), Canonne, Kamath & Steinke "
                       "2020 Cor. 9)";
            break;
        }
        case CellNoiseKind::Laplace: {
            const double b = noise.parameter;
            // M(u/b) = 1/(1 − u²) for |u| < 1, in units of b.
            const double h = solveTail(level, 1.0, [](double x) {
                return chernoffTwoSided(x, 1.0, [](double u) { return -std::log1p(-u * u); });
            });
            r.halfWidth = b * h;
            r.method = "conservative bound for " + what +
                       " (Chernoff bound on the moment generating function, which is at most "
                       "that of one Laplace draw scaled by ‖a‖₂)";
            break;
        }
        case CellNoiseKind::DiscreteLaplace: {
            const double alpha = noise.parameter;
            const double oneMinus = 1 - alpha;
            const double uMax = -std::log(alpha);
            // ln M(u) = 2 ln(1 − α) − ln(1 − αe^u) − ln(1 − αe^−u) for 0 ≤ u < ln(1/α).
            const auto logMgf = [&](double u) {
                return 2 * std::log(oneMinus) - std::log1p(-alpha * std::exp(u)) -
                       std::log1p(-alpha * std::exp(-u));
            };
            r.halfWidth = solveTail(level, std::sqrt(noise.variance()),
                                    [&](double x) { return chernoffTwoSided(x, uMax, logMgf); });
            r.method = "conservative bound for " + what +
                       " (Chernoff bound on the moment generating function, which is at most "
                       "that of one discrete Laplace draw scaled by ‖a‖₂)";
            break;
        }
    }
    r.coverage = level;  // at least: a bound
    return r;
}

}  // namespace dpx
