#include "core/base/partial_moments.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace dpx::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ∫_x^∞ z^k e^{−z/b}/(2b) dz for x ≥ 0: ½ e^{−x/b} · {1, x + b, x² + 2bx + 2b²}.
double laplaceUpper(double b, int k, double x) {
    if (x == kInf) {
        return 0;
    }
    const double e = 0.5 * std::exp(-x / b);
    switch (k) {
        case 0:
            return e;
        case 1:
            return e * (x + b);
        default:
            return e * (x * x + 2 * b * x + 2 * b * b);
    }
}

// ∫_lo^hi over 0 ≤ lo ≤ hi.
double laplacePositive(double b, int k, double lo, double hi) {
    return laplaceUpper(b, k, lo) - laplaceUpper(b, k, hi);
}

double phi(double x) {
    return std::isinf(x) ? 0.0 : std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
}
double xphi(double x) {
    return std::isinf(x) ? 0.0 : x * phi(x);
}
// Φ(hi) − Φ(lo) computed on the side that avoids cancellation.
double normalMass(double lo, double hi) {
    if (lo > 0) {
        return 0.5 * (std::erfc(lo / std::numbers::sqrt2) - std::erfc(hi / std::numbers::sqrt2));
    }
    return 0.5 * (std::erfc(-hi / std::numbers::sqrt2) - std::erfc(-lo / std::numbers::sqrt2));
}

// Σ_{j ≥ m} j^k α^j for integer m ≥ 0, via α^m Σ_{i≥0} (i + m)^k α^i and
// S0 = 1/(1−α), S1 = α/(1−α)², S2 = α(1+α)/(1−α)³.
double geometricTail(double alpha, int k, double m) {
    if (m == kInf) {
        return 0;
    }
    const double q = 1 - alpha;
    const double s0 = 1 / q;
    const double s1 = alpha / (q * q);
    const double s2 = alpha * (1 + alpha) / (q * q * q);
    const double am = std::pow(alpha, m);
    switch (k) {
        case 0:
            return am * s0;
        case 1:
            return am * (s1 + m * s0);
        default:
            return am * (s2 + 2 * m * s1 + m * m * s0);
    }
}

// Σ_{z = lo..hi} z^k Pr[Z = z] for integers 0 ≤ lo ≤ hi (hi may be ∞).
double discretePositive(double alpha, int k, double lo, double hi) {
    const double c = (1 - alpha) / (1 + alpha);
    return c * (geometricTail(alpha, k, lo) - geometricTail(alpha, k, hi == kInf ? kInf : hi + 1));
}

}  // namespace

double partialMoment(const NoiseDistribution& noise, int k, double lo, double hi) {
    if (!(hi > lo)) {
        return 0;
    }
    const double p = noise.parameter();
    const double sign = (k % 2 == 1) ? -1.0 : 1.0;  // (−1)^k for reflecting negative ranges
    switch (noise.kind()) {
        case NoiseKind::Laplace: {
            double r = 0;
            if (hi > 0) {
                r += laplacePositive(p, k, std::max(lo, 0.0), hi);
            }
            if (lo < 0) {
                r += sign * laplacePositive(p, k, -std::min(hi, 0.0), -lo);
            }
            return r;
        }
        case NoiseKind::Gaussian: {
            const double a = lo / p;
            const double c = hi / p;
            const double mass = normalMass(a, c);
            switch (k) {
                case 0:
                    return mass;
                case 1:
                    return p * (phi(a) - phi(c));
                default:
                    return p * p * (mass + xphi(a) - xphi(c));
            }
        }
        case NoiseKind::DiscreteLaplace: {
            // Integers z with lo < z ≤ hi: from floor(lo) + 1 to floor(hi).
            const double first = std::floor(lo) + 1;  // −∞ stays −∞
            const double last = std::floor(hi);
            if (first > last) {
                return 0;
            }
            double r = 0;
            if (last >= 0) {
                r += discretePositive(p, k, std::max(first, 0.0), last);
            }
            if (first <= -1) {
                // z in [first, min(last, −1)] ↦ −z in [max(−last, 1), −first].
                r += sign * discretePositive(p, k, std::max(-last, 1.0), -first);
            }
            return r;
        }
    }
    return 0;
}

namespace {
// ∫_lo^hi z^k e^{−z/b}/(2b) dz for 0 ≤ lo ≤ hi, k = 0, 1, 2, added to m with sign (−1)^k·flip.
void laplacePositive012(double b, double lo, double hi, bool reflect, double m[3]) {
    const double ea = 0.5 * std::exp(-lo / b);
    const double ec = hi == kInf ? 0.0 : 0.5 * std::exp(-hi / b);
    const double hc = hi == kInf ? 0.0 : hi;  // terms with ec vanish at ∞
    const double m0 = ea - ec;
    const double m1 = ea * (lo + b) - ec * (hc + b);
    const double m2 =
        ea * (lo * lo + 2 * b * lo + 2 * b * b) - ec * (hc * hc + 2 * b * hc + 2 * b * b);
    m[0] += m0;
    m[1] += reflect ? -m1 : m1;
    m[2] += m2;
}
}  // namespace

void partialMoments012(const NoiseDistribution& noise, double lo, double hi, double m[3]) {
    m[0] = m[1] = m[2] = 0;
    if (!(hi > lo)) {
        return;
    }
    if (noise.kind() == NoiseKind::Laplace) {
        const double b = noise.parameter();
        if (hi > 0) {
            laplacePositive012(b, std::max(lo, 0.0), hi, false, m);
        }
        if (lo < 0) {
            laplacePositive012(b, -std::min(hi, 0.0), -lo, true, m);
        }
        return;
    }
    if (noise.kind() == NoiseKind::Gaussian) {
        const double s = noise.parameter();
        const double a = lo / s;
        const double c = hi / s;
        const double mass = normalMass(a, c);
        const double pa = phi(a);
        const double pc = phi(c);
        m[0] = mass;
        m[1] = s * (pa - pc);
        m[2] = s * s * (mass + (std::isinf(a) ? 0.0 : a * pa) - (std::isinf(c) ? 0.0 : c * pc));
        return;
    }
    for (int k = 0; k < 3; ++k) {
        m[k] = partialMoment(noise, k, lo, hi);
    }
}

}  // namespace dpx::detail
