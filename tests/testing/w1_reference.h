// Independent Wasserstein-1 reference for the tests: the 1-D quantile formula
// W1 = ∫_0^1 |F⁻¹(u) − G⁻¹(u)| du, evaluated exactly for two discrete distributions on the same
// increasing positions by walking the merged breakpoints of their cumulative masses. Follows the
// conventions of wasserstein.h: negatives clamped to 0, both normalised to mass 1, an estimate with
// no positive mass compared as uniform.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace dpxtest {

inline std::vector<double> normalisedPositivePart(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    double total = 0;
    for (double x : v) {
        total += std::max(0.0, x);
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        out[i] = total > 0 ? std::max(0.0, v[i]) / total : 1.0 / double(v.size());
    }
    return out;
}

// p, q: masses summing to 1 on `pos`.
inline double quantileW1(const std::vector<double>& p, const std::vector<double>& q,
                         const std::vector<double>& pos) {
    const std::size_t n = pos.size();
    std::size_t i = 0;
    std::size_t j = 0;
    double cp = p[0];
    double cq = q[0];
    double u = 0;
    double w = 0;
    for (;;) {
        const double next = std::min(cp, cq);
        w += (next - u) * std::abs(pos[i] - pos[j]);
        u = next;
        const bool advanceP = cp <= next;
        const bool advanceQ = cq <= next;
        if ((advanceP && i + 1 == n) || (advanceQ && j + 1 == n)) {
            break;  // one distribution is exhausted; the rest is rounding
        }
        if (advanceP) {
            cp += p[++i];
        }
        if (advanceQ) {
            cq += q[++j];
        }
    }
    return w;
}

inline double w1Reference(const std::vector<double>& truth, const std::vector<double>& estimate,
                          const std::vector<double>& pos) {
    return quantileW1(normalisedPositivePart(truth), normalisedPositivePart(estimate), pos);
}

}  // namespace dpxtest
