// Exact expected errors: closed forms, 1-D integrals and the two-bin engine (see expected_error.h).
#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "core/accuracy/expected_error.h"
#include "core/base/partial_moments.h"
#include "core/estimators/estimator.h"

namespace dpx {

namespace {

using detail::partialMoment;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kQuadTolerance = 1e-12;

struct Integral {
    double value = 0;
    double error = 0;  // never below tolerance·|value|: quadrature cannot see rounding noise
};

// Adaptive 31-point Gauss–Kronrod over consecutive breakpoints (the ends may be ±∞).
Integral integrate(const std::function<double(double)>& f, std::vector<double> points,
                   double tolerance) {
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    Integral total;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
        double err = 0;
        total.value += boost::math::quadrature::gauss_kronrod<double, 31>::integrate(
            f, points[i], points[i + 1], 15, tolerance, &err);
        total.error += err;
    }
    total.error = std::max(total.error, tolerance * std::abs(total.value));
    return total;
}

// Breakpoints 0, ±s, ±2s, …, ±64s (only the non-negative ones if `positiveOnly`): where the noise
// mass is, no quadrature segment is longer than its distance from 0, so adaptive Gauss–Kronrod
// cannot step over the peak when the estimator's own breakpoints are far apart (counts of 1e6).
void addMassGrid(std::vector<double>& points, double s, bool positiveOnly) {
    points.push_back(0);
    for (double k = 1; k <= 64; k *= 2) {
        points.push_back(k * s);
        if (!positiveOnly) {
            points.push_back(-k * s);
        }
    }
}

// Relative tolerance of the quadrature: 1e-12, or the rounding-noise floor of the integrand when
// the counts are huge next to the noise (estimators evaluate h + z in double: an error of ulp(h) on
// errors of size ~s), so adaptive refinement does not chase rounding noise (counts of 1e9).
double toleranceFor(double maxCount, double scale) {
    const double ulp = std::nextafter(maxCount, kInf) - maxCount;
    return std::max(kQuadTolerance, 4 * ulp / scale);
}

bool isIntegral(double v) {
    return std::floor(v) == v;
}

// ---------------------------------------------------------------------------------------------
// Separable estimators: per-bin closed forms from partial moments.

// E[e²] and E[|e|] of one bin's error, e = est(h + Z) − h.
double perBin(const NoiseDistribution& d, EstimatorKind est, Metric metric, double h) {
    const bool sse = metric == Metric::SSE;
    if (est == EstimatorKind::Identity) {
        return sse ? d.variance() : d.meanAbs();
    }
    // Clamp: e = Z where Z > −h, and e = −h where Z ≤ −h.
    const double below = partialMoment(d, 0, -kInf, -h);  // Pr[Z ≤ −h]
    if (sse) {
        return partialMoment(d, 2, -h, kInf) + h * h * below;
    }
    return partialMoment(d, 1, 0, kInf) - partialMoment(d, 1, -h, 0) + h * below;
}

// E[max_i |e_i|] = ∫_0^∞ 1 − Π_i Pr[|e_i| ≤ t] dt (a sum over t = 0, 1, ... for the discrete law).
// Pr[|e_i| ≤ t] = Pr[|Z| ≤ t] while t < h_i (identity: always) and Pr[Z ≤ t] once t ≥ h_i, so the
// product needs only how many h_i are ≤ t.
Integral expectedMaxAbs(const NoiseDistribution& d, EstimatorKind est, std::vector<double> h) {
    const auto n = static_cast<double>(h.size());
    std::sort(h.begin(), h.end());
    auto tail = [&](double t) {  // Pr[max |e_i| > t]
        double m = 0;
        if (est == EstimatorKind::Clamp) {
            m = static_cast<double>(std::upper_bound(h.begin(), h.end(), t) - h.begin());
        }
        const double logProd =
            m * std::log1p(-d.survival(t)) + (n - m) * std::log1p(-d.absSurvival(t));
        return -std::expm1(logProd);
    };
    if (d.isDiscrete()) {
        Integral r;
        const double hMax = h.back();
        for (double t = 0;; t += 1) {
            const double term = tail(t);
            r.value += term;
            if (t > hMax && term <= 1e-17 * r.value) {
                break;
            }
            if (t > 1e9) {  // unreachable for α < 1 representable in double
                break;
            }
        }
        return r;
    }
    std::vector<double> points{0.0, kInf};
    if (est == EstimatorKind::Clamp) {
        for (double v : h) {
            if (v > 0) {
                points.push_back(v);
            }
        }
    }
    addMassGrid(points, d.parameter(), true);
    // Segment by segment, as integrate() does, but skipping the segments whose contribution is
    // provably negligible: the tail is non-increasing, so ∫_a^b tail ≤ tail(a)·(b − a), and for
    // the last segment ∫_a^∞ tail ≤ n·E[(|Z| − a)+] ≤ 2n·E[Z; Z > a] (union bound, symmetric Z).
    // Without this, adaptive Gauss–Kronrod chases rounding noise in subnormal values on every
    // segment between two large counts (Laplace, ε = 2, 4096 bins: 2 s instead of milliseconds).
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const double tolerance = toleranceFor(h.back(), d.parameter());
    Integral r;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
        const double a = points[i];
        const double b = points[i + 1];
        const double bound =
            std::isinf(b) ? 2 * n * partialMoment(d, 1, a, kInf) : tail(a) * (b - a);
        if (r.value > 0 && bound <= 1e-3 * tolerance * r.value) {
            r.error += bound;
            continue;
        }
        double err = 0;
        r.value += boost::math::quadrature::gauss_kronrod<double, 31>::integrate(tail, a, b, 15,
                                                                                 tolerance, &err);
        r.error += err;
    }
    r.error = std::max(r.error, tolerance * std::abs(r.value));
    return r;
}

// ---------------------------------------------------------------------------------------------
// Two-bin engine. g(z1, z2) = metric(est(h + z) − h) is a polynomial of degree ≤ 2 on each cell of
// an arrangement of lines z2 = a·z1 + c and vertical lines z1 = v (where the estimator switches
// regime or the metric has a kink). For fixed z1 the inner integral over z2 is then exact: fit the
// quadratic on each interval from three interior points and combine partial moments of Z2. The
// outer integral over z1 is adaptive Gauss–Kronrod between the arrangement's vertices (continuous
// noise) or a sum over integers (discrete noise).

struct Line {
    double a;  // slope
    double c;  // intercept: z2 = a·z1 + c
};

struct Arrangement {
    std::vector<Line> lines;
    std::vector<double> verticals;
};

Arrangement arrangementFor(EstimatorKind est, double h1, double h2, double threshold) {
    Arrangement ar;
    // Density kink of Z2 and the kinks of L1/L∞ on the identity region: z2 = 0, z2 = ±z1.
    ar.lines = {{0, 0}, {1, 0}, {-1, 0}};
    ar.verticals = {0};
    switch (est) {
        case EstimatorKind::Identity:
            break;
        case EstimatorKind::Clamp:
            ar.verticals.insert(ar.verticals.end(), {-h1, h2, -h2});
            ar.lines.insert(ar.lines.end(), {{0, -h2}, {0, h1}, {0, -h1}});
            break;
        case EstimatorKind::Resize:
            ar.verticals.push_back(-h1);
            ar.lines.insert(
                ar.lines.end(),
                {{0, -h2}, {-1, -h1 - h2}, {-1, -h1}, {-1, -2 * h1}, {-1, -h2}, {-1, -2 * h2}});
            break;
        case EstimatorKind::NoiseFirst:
            ar.lines.insert(
                ar.lines.end(),
                {{1, h1 - h2 - threshold}, {1, h1 - h2 + threshold}, {-1, h1 - h2}, {-1, h2 - h1}});
            break;
    }
    return ar;
}

class TwoBinEngine {
public:
    TwoBinEngine(const NoiseDistribution& noise, const EstimatorSpec& est, Metric metric, double h1,
                 double h2)
        : noise_(noise), est_(est), metric_(metric), h1_(h1), h2_(h2) {
        const double threshold = 2 * std::sqrt(est.noiseVariance);  // NoiseFirst: |d| ≤ 2√V
        ar_ = arrangementFor(est.kind, h1, h2, threshold);
    }

    double g(double z1, double z2) const {
        double v[2] = {h1_ + z1, h2_ + z2};
        EstimatorWorkspace ws;
        estimateInPlace(est_, v, ws);
        const double e1 = v[0] - h1_;
        const double e2 = v[1] - h2_;
        switch (metric_) {
            case Metric::SSE:
                return e1 * e1 + e2 * e2;
            case Metric::L1:
                return std::abs(e1) + std::abs(e2);
            default:
                return std::max(std::abs(e1), std::abs(e2));
        }
    }

    // E[g(z1, Z2)].
    double inner(double z1) const {
        // At most 16 lines (arrangementFor adds ≤ 9): a fixed buffer, no allocation per call.
        std::array<double, 16> buf;
        std::size_t n = 0;
        for (const Line& l : ar_.lines) {
            buf[n++] = l.a * z1 + l.c;
        }
        std::sort(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
        n = static_cast<std::size_t>(
            std::unique(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)) - buf.begin());
        const std::span<const double> b(buf.data(), n);
        return noise_.isDiscrete() ? innerDiscrete(z1, b) : innerContinuous(z1, b);
    }

    Integral expectation() const {
        if (noise_.isDiscrete()) {
            return outerDiscrete();
        }
        std::vector<double> points{-kInf, kInf};
        points.insert(points.end(), ar_.verticals.begin(), ar_.verticals.end());
        for (std::size_t i = 0; i < ar_.lines.size(); ++i) {
            for (std::size_t j = i + 1; j < ar_.lines.size(); ++j) {
                const Line& p = ar_.lines[i];
                const Line& q = ar_.lines[j];
                if (p.a != q.a) {
                    points.push_back((q.c - p.c) / (p.a - q.a));
                }
            }
        }
        addMassGrid(points, noise_.parameter(), false);
        const double tolerance =
            toleranceFor(std::max(std::abs(h1_), std::abs(h2_)), noise_.parameter());
        return integrate(
            [this](double z1) {
                // Far out the density is exactly 0 while the error may overflow: 0·∞ would be NaN.
                const double f = noise_.density(z1);
                return f > 0 ? f * inner(z1) : 0.0;
            },
            points, tolerance);
    }

private:
    // Quadratic through (x_k, y_k), k = 0..2, integrated against the noise on (lo, hi]. The
    // polynomial is expanded around c = x_1 and combined with moments of Z − c, so that a piece far
    // wider than the noise (breakpoints at ±1e6) loses no precision where the noise mass is.
    double quadraticPiece(double z1, double lo, double hi, const double x[3]) const {
        double y[3];
        for (int k = 0; k < 3; ++k) {
            y[k] = g(z1, x[k]);
        }
        const double d01 = (y[1] - y[0]) / (x[1] - x[0]);
        const double d12 = (y[2] - y[1]) / (x[2] - x[1]);
        const double q2 = (d12 - d01) / (x[2] - x[0]);
        // p(z) = y0 + d01 (z − x0) + q2 (z − x0)(z − x1); with u = z − c, c = x1, e = c − x0:
        const double c = x[1];
        const double e = c - x[0];
        const double p0 = y[0] + d01 * e;
        const double p1 = d01 + q2 * e;
        double m[3];
        detail::partialMoments012(noise_, lo, hi, m);
        const double u1 = m[1] - c * m[0];
        const double u2 = m[2] - 2 * c * m[1] + c * c * m[0];
        return p0 * m[0] + p1 * u1 + q2 * u2;
    }

    // Three interior points of (lo, hi) close to where the noise mass is (near 0), spaced by at
    // most the noise scale s.
    static void samplePoints(double lo, double hi, double s, double x[3]) {
        if (lo >= 0) {  // piece right of the mass: sample next to its left end
            const double d = std::isinf(hi) ? s : std::min(s, 0.25 * (hi - lo));
            x[0] = lo + d, x[1] = lo + 2 * d, x[2] = lo + 3 * d;
        } else if (hi <= 0) {  // left of the mass: next to its right end
            const double d = std::isinf(lo) ? s : std::min(s, 0.25 * (hi - lo));
            x[0] = hi - 3 * d, x[1] = hi - 2 * d, x[2] = hi - d;
        } else {  // contains 0
            double d = s;
            if (!std::isinf(lo)) {
                d = std::min(d, -0.5 * lo);
            }
            if (!std::isinf(hi)) {
                d = std::min(d, 0.5 * hi);
            }
            x[0] = -d, x[1] = 0, x[2] = d;
        }
    }

    double innerContinuous(double z1, std::span<const double> b) const {
        const double s = noise_.parameter();
        double total = 0;
        for (std::size_t i = 0; i <= b.size(); ++i) {
            const double lo = i == 0 ? -kInf : b[i - 1];
            const double hi = i == b.size() ? kInf : b[i];
            double x[3];
            samplePoints(lo, hi, s, x);
            if (hi - lo <= 1e-9 * s || !(x[0] < x[1] && x[1] < x[2])) {
                // A sliver (narrower than the spacing of doubles near it, e.g. at ±1e9): its mass
                // is negligible, the midpoint rule is exact enough and cannot divide by zero.
                total += g(z1, lo + 0.5 * (hi - lo)) * partialMoment(noise_, 0, lo, hi);
                continue;
            }
            total += quadraticPiece(z1, lo, hi, x);
        }
        return total;
    }

    // Integers between breakpoints: a breakpoint that is itself an integer is evaluated on its own
    // (the estimator may jump there, e.g. NoiseFirst's "≤" merge rule).
    double innerDiscrete(double z1, std::span<const double> b) const {
        double total = 0;
        auto point = [&](double z) { return g(z1, z) * noise_.density(z); };
        double prevEnd = -kInf;  // last integer already accounted for
        for (std::size_t i = 0; i <= b.size(); ++i) {
            const double hiBound = i == b.size() ? kInf : b[i];
            // Open run: integers strictly between the previous breakpoint and this one.
            const double first = prevEnd + 1;  // −∞ stays −∞
            const double last = std::isinf(hiBound)
                                    ? kInf
                                    : (isIntegral(hiBound) ? hiBound - 1 : std::floor(hiBound));
            if (last >= first) {
                if (!std::isinf(first) && !std::isinf(last) && last - first < 3) {
                    for (double z = first; z <= last; z += 1) {
                        total += point(z);
                    }
                } else {
                    double x[3];
                    if (std::isinf(first)) {
                        x[0] = last, x[1] = last - 1, x[2] = last - 2;
                    } else {
                        x[0] = first, x[1] = first + 1, x[2] = first + 2;
                    }
                    total += quadraticPiece(z1, first - 1, last, x);
                }
            }
            if (i < b.size()) {
                if (isIntegral(hiBound)) {
                    total += point(hiBound);
                    prevEnd = hiBound;
                } else {
                    prevEnd = std::floor(hiBound);
                }
            }
        }
        return total;
    }

    Integral outerDiscrete() const {
        // Σ_z1 Pr[Z1 = z1] · inner(z1), outward from the centre until the remaining mass times the
        // largest error it could carry is negligible.
        const double alpha = noise_.parameter();
        const double spread = std::abs(h1_) + std::abs(h2_) + 1;
        Integral r;
        r.value = noise_.density(0) * inner(0);
        for (double z = 1;; z += 1) {
            const double term = noise_.density(z) * inner(z) + noise_.density(-z) * inner(-z);
            r.value += term;
            // Tail beyond z: Σ_{j>z} α^j (j + spread)² bounds the remaining contributions.
            const double tailBound =
                std::pow(alpha, z) * std::pow(z + spread + 1 / (1 - alpha), 2) / (1 - alpha);
            // The bound already includes the counts (spread), so no need to walk out to them.
            if (tailBound <= 1e-16 * r.value) {
                break;
            }
            if (z > 1e8) {
                break;
            }
        }
        return r;
    }

    const NoiseDistribution& noise_;
    EstimatorSpec est_;
    Metric metric_;
    double h1_, h2_;
    Arrangement ar_;
};

// Reduce estimators that coincide with separable ones for the given number of bins.
EstimatorKind effectiveKind(EstimatorKind kind, std::size_t bins) {
    if (bins == 1) {
        if (kind == EstimatorKind::Resize) {
            return EstimatorKind::Clamp;  // projection onto {x ≥ 0, x = s}: max(s, 0)
        }
        if (kind == EstimatorKind::NoiseFirst) {
            return EstimatorKind::Identity;  // one bucket of one bin
        }
    }
    return kind;
}

}  // namespace

Status exactMethodAvailable(const TruthModel& truth, const NoiseDistribution& noise,
                            const EstimatorSpec& estimator, const MetricSpec& metric) {
    if (auto s = truth.validate(); !s) {
        return s;
    }
    if (auto s = estimator.validate(); !s) {
        return s;
    }
    if (metric.metric == Metric::W1) {
        return Error{
            "no exact method for the Wasserstein-1 error: it compares the clamped estimate "
            "normalised by its own random total; use --method monte-carlo"};
    }
    const EstimatorKind kind = effectiveKind(estimator.kind, truth.counts.size());
    if ((kind == EstimatorKind::Resize || kind == EstimatorKind::NoiseFirst) &&
        truth.counts.size() != 2) {
        return Error{std::string("no exact method for the ") + estimatorName(kind) +
                     " estimator on " + std::to_string(truth.counts.size()) +
                     " bins (exact integration is implemented for 1 and 2 bins); use "
                     "--method monte-carlo"};
    }
    if (noise.isDiscrete()) {
        for (double h : truth.counts) {
            if (!isIntegral(h)) {
                return Error{
                    "exact errors under integer (geometric) noise need integer true counts"};
            }
        }
    }
    return okStatus();
}

Expected<ErrorEstimate> exactExpectedError(const TruthModel& truth, const NoiseDistribution& noise,
                                           const EstimatorSpec& estimator,
                                           const MetricSpec& metric) {
    if (auto s = exactMethodAvailable(truth, noise, estimator, metric); !s) {
        return s.error();
    }
    const EstimatorKind kind = effectiveKind(estimator.kind, truth.counts.size());
    ErrorEstimate r;
    double value = 0;
    if (kind == EstimatorKind::Identity || kind == EstimatorKind::Clamp) {
        if (metric.metric == Metric::LInf) {
            if (kind == EstimatorKind::Identity && noise.kind() == NoiseKind::Laplace) {
                // E[max of n iid Exp(b)] = b·H_n (Rényi representation of exponential order stats).
                double harmonic = 0;
                for (std::size_t i = truth.counts.size(); i >= 1; --i) {
                    harmonic += 1.0 / static_cast<double>(i);
                }
                value = noise.parameter() * harmonic;
                r.method = "closed form";
            } else {
                const Integral in = expectedMaxAbs(noise, kind, truth.counts);
                value = in.value;
                r.errorBound = in.error;
                r.method = noise.isDiscrete() ? "summation" : "1-D quadrature";
            }
        } else {
            for (double h : truth.counts) {
                value += perBin(noise, kind, metric.metric, h);
            }
            r.method = kind == EstimatorKind::Identity ? "closed form" : "per-bin closed form";
        }
    } else {
        EstimatorSpec spec = estimator;
        spec.kind = kind;
        const TwoBinEngine engine(noise, spec, metric.metric, truth.counts[0], truth.counts[1]);
        const Integral in = engine.expectation();
        value = in.value;
        r.errorBound = in.error;
        r.method = noise.isDiscrete() ? "2-D summation (inner sums in closed form)"
                                      : "2-D quadrature (inner integrals in closed form)";
    }
    if (metric.scale == Scale::Frequencies) {
        const double n = truth.total();
        const double f = metric.metric == Metric::SSE ? n * n : n;
        value /= f;
        r.errorBound /= f;
    }
    if (!std::isfinite(value) || !std::isfinite(r.errorBound)) {
        return Error{"the exact computation left the range of double precision for " +
                     noise.describe() + "; ε (or the counts) is outside the supported range"};
    }
    r.value = value;
    r.ciLow = r.ciHigh = value;
    return r;
}

}  // namespace dpx
