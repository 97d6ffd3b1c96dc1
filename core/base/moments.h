// Count, mean and centred second moment of a sample, merged pairwise (Chan, Golub & LeVeque,
// "Updating formulae and a pairwise algorithm for computing sample variances", 1979): the Monte
// Carlo simulations reduce each block of trials to Moments and merge the blocks in block order,
// so the result does not depend on which thread ran which block. No Qt.
// The two-pass meanAndStandardError below agrees with Moments to rounding; each simulation keeps
// the one it has always used (the golden outputs pin their bits).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace dpx {

struct Moments {
    double count = 0;
    double mean = 0;
    double m2 = 0;  // Σ (x − mean)²

    // Moments of v[0 … n − 1] from sums of (x − shift), shift = v[0]: no division per value and
    // no cancellation, since the shift is a typical value. Empty for n = 0.
    static Moments of(const double* v, std::size_t n) {
        if (n == 0) {
            return {};
        }
        const double shift = v[0];
        double s1 = 0;
        double s2 = 0;
        for (std::size_t t = 0; t < n; ++t) {
            const double d = v[t] - shift;
            s1 += d;
            s2 += d * d;
        }
        const auto k = static_cast<double>(n);
        return {k, shift + s1 / k, std::max(0.0, s2 - s1 * s1 / k)};
    }

    // Chan et al.'s pairwise update: *this becomes the moments of both samples.
    void merge(const Moments& o) {
        if (o.count == 0) {
            return;
        }
        const double n = count + o.count;
        const double d = o.mean - mean;
        mean += d * o.count / n;
        m2 += o.m2 + d * d * count * o.count / n;
        count = n;
    }

    // Standard error of the mean, √(m2 / (n − 1) / n); NaN below two values.
    double standardError() const {
        return count > 1 ? std::sqrt(m2 / (count - 1) / count) : std::nan("");
    }
};

// Mean and standard error of the mean (sample standard deviation / √n) of `v`, two-pass; NaN for
// what an empty (or, for the standard error, one-element) sample does not define.
std::pair<double, double> meanAndStandardError(const std::vector<double>& v);

}  // namespace dpx
