#include "core/base/random_variates.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace dpx {

namespace {

__extension__ using U128 = unsigned __int128;

// Chunk size for huge n: every k ≤ 2^48 and n·p are exact or nearly exact in a double.
constexpr std::uint64_t kBinomialChunk = std::uint64_t{1} << 48;

// Loader (2000), "stirlerr": δ(n) = ln n! − [(n + ½) ln n − n + ½ ln 2π]. Exact table for n ≤ 15
// (sums of logs in long double), the Stirling series 1/12n − 1/360n³ + 1/1260n⁵ − 1/1680n⁷ +
// 1/1188n⁹ beyond (error below 1e-16 at n = 16).
struct StirlingTable {
    std::array<double, 16> v{};
    StirlingTable() {
        long double logFact = 0;
        const long double halfLog2Pi = 0.5L * std::log(2.0L * std::numbers::pi_v<long double>);
        v[0] = 0;  // never used (k = 0 is handled separately)
        for (int n = 1; n < 16; ++n) {
            const auto x = static_cast<long double>(n);
            logFact += std::log(x);
            v[n] = static_cast<double>(logFact - ((x + 0.5L) * std::log(x) - x + halfLog2Pi));
        }
    }
};

double stirlerr(double n) {
    if (n < 16) {
        static const StirlingTable table;
        return table.v[static_cast<std::size_t>(n)];
    }
    constexpr double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680,
                     s4 = 1.0 / 1188;
    const double nn = n * n;
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

// Loader (2000), "bd0": x ln(x/M) + M − x, by the series 2x Σ v^(2j+1)/(2j+1) with
// v = (x − M)/(x + M) when x is near M (where the direct form cancels).
double bd0(double x, double m) {
    if (std::abs(x - m) < 0.1 * (x + m)) {
        double v = (x - m) / (x + m);
        double s = (x - m) * v;
        double ej = 2 * x * v;
        v = v * v;
        for (int j = 1; j < 1000; ++j) {
            ej *= v;
            const double s1 = s + ej / (2 * j + 1);
            if (s1 == s) {
                return s1;
            }
            s = s1;
        }
        return s;
    }
    return x * std::log(x / m) + m - x;
}

// Sequential-search inversion (Devroye 1986, §X.4 "inversion by sequential search"): p ≤ ½,
// n·p < 10, so P[0] = (1 − p)^n ≥ e^(−14) and the expected number of steps is n·p + 1.
std::uint64_t binomialInversion(SimulationRng& rng, std::uint64_t n, double p) {
    const double nd = static_cast<double>(n);
    const double ratio = p / (1 - p);
    const double f0 = std::exp(nd * std::log1p(-p));
    for (;;) {
        double u = rng.uniform();
        double f = f0;
        for (std::uint64_t k = 0;;) {
            if (u < f) {
                return k;
            }
            u -= f;
            if (k == n || f == 0) {
                break;  // rounding left a sliver of u beyond the summed pmf: draw again
            }
            f *= ratio * (nd - static_cast<double>(k)) / static_cast<double>(k + 1);
            ++k;
        }
    }
}

// Hörmann (1993), Algorithm BTRS, for p ≤ ½, n·p ≥ 10, n ≤ 2^48. Step names as in the paper.
std::uint64_t binomialBtrs(SimulationRng& rng, std::uint64_t n, double p) {
    const double nd = static_cast<double>(n);
    const double q = 1 - p;
    // Setup: spq, b, a, c, v_r, α, m and f(m) (here log P[m], used instead of h and lpq).
    const double spq = std::sqrt(nd * p * q);
    const double b = 1.15 + 2.53 * spq;
    const double a = -0.0873 + 0.0248 * b + 0.01 * p;
    const double c = nd * p + 0.5;
    const double vr = 0.92 - 4.2 / b;
    const double alpha = (2.83 + 5.1 / b) * spq;
    const auto m = static_cast<std::uint64_t>(std::floor((nd + 1) * p));
    const double logPm = binomialLogPmf(n, m, p);
    for (;;) {
        // Step 1: U ~ U(−½, ½), V ~ U(0, 1), us = ½ − |U|, k = ⌊(2a/us + b)U + c⌋.
        const double u = rng.uniform() - 0.5;
        const double v = rng.uniform();
        const double us = 0.5 - std::abs(u);
        const double kd = std::floor((2 * a / us + b) * u + c);
        if (!(kd >= 0 && kd <= nd)) {
            continue;  // outside the support (also catches us = 0)
        }
        const auto k = static_cast<std::uint64_t>(kd);
        // Step 2: squeeze — accept without evaluating f.
        if (us >= 0.07 && v <= vr) {
            return k;
        }
        // Steps 3–4: V ← ln(V·α/(a/us² + b)); accept if V ≤ ln(f(k)/f(m)).
        const double lv = std::log(v * alpha / (a / (us * us) + b));
        if (lv <= binomialLogPmf(n, k, p) - logPm) {
            return k;
        }
    }
}

std::uint64_t binomialSmallP(SimulationRng& rng, std::uint64_t n, double p) {
    return static_cast<double>(n) * p < 10 ? binomialInversion(rng, n, p) : binomialBtrs(rng, n, p);
}

}  // namespace

std::uint64_t uniformInt(SimulationRng& rng, std::uint64_t k) {
    if (k == 0) {
        throw std::invalid_argument("dpx::uniformInt: k must be at least 1");
    }
    // Lemire (2019): the high word of x·k is uniform once the low word's biased band
    // [0, 2^64 mod k) is rejected.
    U128 m = static_cast<U128>(rng.next()) * k;
    auto low = static_cast<std::uint64_t>(m);
    if (low < k) {
        const std::uint64_t threshold = (0 - k) % k;  // 2^64 mod k
        while (low < threshold) {
            m = static_cast<U128>(rng.next()) * k;
            low = static_cast<std::uint64_t>(m);
        }
    }
    return static_cast<std::uint64_t>(m >> 64);
}

double binomialLogPmf(std::uint64_t n, std::uint64_t k, double p) {
    constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
    if (k > n) {
        return kMinusInf;
    }
    if (p == 0) {
        return k == 0 ? 0.0 : kMinusInf;
    }
    if (p == 1) {
        return k == n ? 0.0 : kMinusInf;
    }
    const double nd = static_cast<double>(n);
    if (k == 0) {
        return nd * std::log1p(-p);
    }
    if (k == n) {
        return nd * std::log(p);
    }
    // Loader (2000), eq. for dbinom_raw: log f = δ(n) − δ(k) − δ(n−k) − bd0(k, np) − bd0(n−k, nq)
    // − ½ ln(2π k (n−k)/n).
    const double kd = static_cast<double>(k);
    const double rd = static_cast<double>(n - k);
    const double lc =
        stirlerr(nd) - stirlerr(kd) - stirlerr(rd) - bd0(kd, nd * p) - bd0(rd, nd * (1 - p));
    // ln(n − k) − ln n rather than log1p(−k/n): k/n rounds, which matters when n − k ≪ n.
    const double lf = std::log(2 * std::numbers::pi) + std::log(kd) + std::log(rd) - std::log(nd);
    return lc - 0.5 * lf;
}

std::uint64_t binomial(SimulationRng& rng, std::uint64_t n, double p) {
    if (!(p >= 0 && p <= 1)) {
        throw std::invalid_argument("dpx::binomial: p must be in [0, 1]");
    }
    if (n > kMaxBinomialTrials) {
        throw std::invalid_argument("dpx::binomial: n must be at most 2^62");
    }
    if (n == 0 || p == 0) {
        return 0;
    }
    if (p == 1) {
        return n;
    }
    if (p > 0.5) {
        return n - binomial(rng, n, 1 - p);  // 1 − p is exact for p ∈ [½, 1]
    }
    std::uint64_t total = 0;
    while (n > kBinomialChunk) {
        total += binomialSmallP(rng, kBinomialChunk, p);
        n -= kBinomialChunk;
    }
    return total + binomialSmallP(rng, n, p);
}

void multinomial(SimulationRng& rng, std::uint64_t n, std::span<const double> probs,
                 std::span<std::uint64_t> out) {
    if (probs.size() != out.size() || probs.empty()) {
        throw std::invalid_argument("dpx::multinomial: probs and out must have the same size ≥ 1");
    }
    if (n > kMaxBinomialTrials) {
        throw std::invalid_argument("dpx::multinomial: n must be at most 2^62");
    }
    // suffix[i] = Σ_{j≥i} probs[j], summed from the end so each conditional probability is
    // probs[i]/suffix[i] without cancellation.
    std::vector<double> suffix(probs.size() + 1, 0.0);
    for (std::size_t i = probs.size(); i-- > 0;) {
        if (!(probs[i] >= 0) || !std::isfinite(probs[i])) {
            throw std::invalid_argument("dpx::multinomial: probabilities must be finite and ≥ 0");
        }
        suffix[i] = suffix[i + 1] + probs[i];
    }
    if (!(suffix[0] > 0) || !std::isfinite(suffix[0])) {
        throw std::invalid_argument("dpx::multinomial: probabilities must not all be 0");
    }
    std::uint64_t remaining = n;
    for (std::size_t i = 0; i < probs.size(); ++i) {
        if (remaining == 0) {
            out[i] = 0;
        } else if (suffix[i + 1] == 0) {
            out[i] = remaining;  // all the remaining mass is in cell i
            remaining = 0;
        } else {
            const double pr = std::min(1.0, probs[i] / suffix[i]);
            out[i] = binomial(rng, remaining, pr);
            remaining -= out[i];
        }
    }
}

void multinomialUniform(SimulationRng& rng, std::uint64_t n, std::span<std::uint64_t> out) {
    const std::size_t k = out.size();
    if (k == 0) {
        throw std::invalid_argument("dpx::multinomialUniform: at least one cell is needed");
    }
    if (n > kMaxBinomialTrials) {
        throw std::invalid_argument("dpx::multinomialUniform: n must be at most 2^62");
    }
    std::fill(out.begin(), out.end(), 0);
    if (n < k / 4) {
        for (std::uint64_t t = 0; t < n; ++t) {
            ++out[uniformInt(rng, k)];
        }
        return;
    }
    std::uint64_t remaining = n;
    for (std::size_t i = 0; i + 1 < k && remaining > 0; ++i) {
        out[i] = binomial(rng, remaining, 1.0 / static_cast<double>(k - i));
        remaining -= out[i];
    }
    out[k - 1] += remaining;
}

double gammaVariate(SimulationRng& rng, double shape) {
    if (!(shape >= 1) || !std::isfinite(shape)) {
        throw std::invalid_argument("gammaVariate: shape must be finite and >= 1");
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        const double z = rng.normal();
        const double cz = c * z;
        if (cz <= -1) {
            continue;  // v = (1 + cz)³ ≤ 0
        }
        // The test ln U < z²/2 + d − d·v + d·ln v, written as d·(ln(1 + w) − w) with
        // w = v − 1 = cz(3 + 3cz + c²z²): as printed, d − d·v loses every digit when d is large
        // (d·v rounds to ±d·2⁻⁵³, i.e. ±1000 at d = 2⁶³, against a difference of order z²/2).
        const double w = cz * (3 + cz * (3 + cz));
        double h = 0;  // ln(1 + w) − w
        if (std::abs(w) < 1e-2) {
            // −w²/2 + w³/3 − …: 14 terms leave a relative error below 1e-28.
            double term = w;
            for (int k = 2; k <= 16; ++k) {
                term *= -w;
                h += term / k;
            }
        } else {
            h = std::log1p(w) - w;
        }
        if (std::log(rng.uniformOpen()) < 0.5 * z * z + d * h) {
            return d * (1 + w);
        }
    }
}

}  // namespace dpx
