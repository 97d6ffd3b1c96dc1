#include "core/estimators/noisefirst_estimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "core/base/validation.h"

namespace dpx {

namespace {

// Segment costs SSE([j, i)) = Σ (x − mean)² are accumulated while a segment grows to the left,
// with Welford's update: prepending x to a segment of m − 1 values adds (x − μ_old)(x − μ_new),
// which is ≥ 0 and free of the cancellation of Σx² − (Σx)²/m (that formula loses ~1e-4 absolute
// at counts of 1e6). The cost is therefore non-decreasing as the segment grows, in floating point
// too.
// `inv` holds 1/m for m = 0..n (a multiplication instead of a division per step: the division's
// latency serialised the DP's inner loop).
struct GrowingSegment {
    const double* inv;
    std::size_t count = 0;
    double mean = 0;
    double cost = 0;
    explicit GrowingSegment(const double* reciprocals) : inv(reciprocals) {}
    void prepend(double x) {
        ++count;
        const double d = x - mean;
        mean += d * inv[count];
        cost += d * (x - mean);
    }
};

std::vector<double> reciprocals(std::size_t n) {
    std::vector<double> r(n + 1, 0.0);
    for (std::size_t m = 1; m <= n; ++m) {
        r[m] = 1.0 / static_cast<double>(m);
    }
    return r;
}

// The data shifted by its mean. SSE is shift-invariant, and x − c is exact for x within a factor
// of 2 of c (Sterbenz), so counts like 1e9 ± 1 become small exact values before any accumulation.
std::vector<double> centred(std::span<const double> x) {
    const double c = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
    std::vector<double> y(x.begin(), x.end());
    for (double& v : y) {
        v -= c;
    }
    return y;
}

Status validateInput(std::span<const double> noisy, double variance) {
    if (noisy.empty()) {
        return Error{"NoiseFirst needs a non-empty histogram"};
    }
    for (std::size_t i = 0; i < noisy.size(); ++i) {
        if (!std::isfinite(noisy[i])) {
            return Error{"noisy count " + std::to_string(i + 1) + " is not finite"};
        }
    }
    return validatePositiveFinite(variance, "the noise variance of NoiseFirst");
}

NoiseFirstResult buildResult(std::span<const double> noisy, std::vector<std::size_t> ends,
                             double variance) {
    NoiseFirstResult r;
    r.estimate.resize(noisy.size());
    std::size_t begin = 0;
    for (std::size_t end : ends) {
        double sum = 0;
        for (std::size_t i = begin; i < end; ++i) {
            sum += noisy[i];
        }
        const double mean = sum / static_cast<double>(end - begin);
        for (std::size_t i = begin; i < end; ++i) {
            r.estimate[i] = mean;
            r.sse += (noisy[i] - mean) * (noisy[i] - mean);
        }
        begin = end;
    }
    r.buckets = ends.size();
    r.bucketEnd = std::move(ends);
    const auto n = static_cast<double>(noisy.size());
    const auto k = static_cast<double>(r.buckets);
    r.criterion = r.sse - (n - 2 * k) * variance;
    return r;
}

}  // namespace

Expected<NoiseFirstResult> noiseFirst(std::span<const double> noisy, double noiseVariance) {
    if (auto s = validateInput(noisy, noiseVariance); !s) {
        return s.error();
    }
    const std::size_t n = noisy.size();
    const std::vector<double> y = centred(noisy);
    const std::vector<double> inv = reciprocals(n);
    const double lambda = 2 * noiseVariance;  // penalty per bucket: argmin_k SSE_k + 2Vk
    std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
    std::vector<std::size_t> segments(n + 1, 0), from(n + 1, 0);
    best[0] = 0;
    for (std::size_t i = 1; i <= n; ++i) {
        GrowingSegment seg(inv.data());
        for (std::size_t j = i; j-- > 0;) {
            seg.prepend(y[j]);
            const double w = seg.cost;
            if (w + lambda > best[i]) {
                break;  // the cost of [j', i) only grows as j' decreases and best[j'] ≥ 0
            }
            const double c = best[j] + w + lambda;
            // Lexicographic (cost, segments): ties go to fewer buckets, i.e. the smallest k*.
            if (c < best[i] || (c == best[i] && segments[j] + 1 < segments[i])) {
                best[i] = c;
                segments[i] = segments[j] + 1;
                from[i] = j;
            }
        }
    }
    std::vector<std::size_t> ends;
    for (std::size_t i = n; i > 0; i = from[i]) {
        ends.push_back(i);
    }
    std::reverse(ends.begin(), ends.end());
    return buildResult(noisy, std::move(ends), noiseVariance);
}

namespace {

// Layer k of the V-optimal DP: next[i] = min_{k−1 ≤ j < i} prev[j] + cost(j, i), for i ≥ k.
// Scanning j downwards, cost(j, i) never decreases and prev ≥ 0, so the scan stops once
// cost(j, i) alone reaches the best value found (an exact pruning).
// Segment costs do not depend on k: up to this many bins they are computed once (row i holds the
// costs of [j, i) for j = i − 1 down to 0; n²/2 doubles, 67 MB at 4096) and every layer then scans
// independent values instead of waiting on the Welford chain.
constexpr std::size_t kCachedCostsMaxBins = 4096;

class CostRows {
public:
    CostRows(std::span<const double> x, const double* inv) : n_(x.size()) {
        costs_.resize(n_ * (n_ + 1) / 2);
        for (std::size_t i = 1; i <= n_; ++i) {
            double* row = &costs_[offset(i)];
            GrowingSegment seg(inv);
            for (std::size_t t = 0; t < i; ++t) {
                seg.prepend(x[i - 1 - t]);
                row[t] = seg.cost;
            }
        }
    }
    // Costs of [i − 1 − t, i) for t = 0 .. i − 1.
    const double* row(std::size_t i) const { return &costs_[offset(i)]; }

private:
    static std::size_t offset(std::size_t i) { return (i - 1) * i / 2; }
    std::size_t n_;
    std::vector<double> costs_;
};

void layerCached(const CostRows& costs, const std::vector<double>& prev, std::vector<double>& next,
                 std::size_t k, std::size_t n) {
    for (std::size_t i = k; i <= n; ++i) {
        const double* w = costs.row(i);
        const double* p = prev.data() + i - 1;  // p[−t] = prev[i − 1 − t]
        double best = std::numeric_limits<double>::infinity();
        const std::size_t last = i - k;  // j = i − 1 − t ≥ k − 1
        for (std::size_t t = 0; t <= last; ++t) {
            if (w[t] >= best) {
                break;  // costs only grow with t and prev ≥ 0
            }
            best = std::min(best, *(p - t) + w[t]);
        }
        next[i] = best;
    }
}

void layer(std::span<const double> x, const double* inv, const std::vector<double>& prev,
           std::vector<double>& next, std::vector<std::size_t>* arg, std::size_t k, std::size_t n) {
    for (std::size_t i = k; i <= n; ++i) {
        double best = std::numeric_limits<double>::infinity();
        std::size_t bestJ = i - 1;
        GrowingSegment seg(inv);
        for (std::size_t j = i; j-- > k - 1;) {
            seg.prepend(x[j]);
            if (seg.cost >= best) {
                break;
            }
            const double c = prev[j] + seg.cost;
            if (c < best) {
                best = c;
                bestJ = j;
            }
        }
        next[i] = best;
        if (arg) {
            (*arg)[i] = bestJ;
        }
    }
}

// First layer: SSE of the prefix [0, i) for every i (one bucket), by a forward Welford pass.
std::vector<double> firstLayer(std::span<const double> x, const double* inv) {
    std::vector<double> e(x.size() + 1, 0.0);
    GrowingSegment seg(inv);  // appending and prepending are the same update
    for (std::size_t i = 0; i < x.size(); ++i) {
        seg.prepend(x[i]);
        e[i + 1] = seg.cost;
    }
    return e;
}

}  // namespace

Expected<std::vector<double>> vOptimalErrorsAllK(std::span<const double> noisy,
                                                 std::stop_token stop) {
    if (auto s = validateInput(noisy, 1.0); !s) {
        return s.error();
    }
    const std::size_t n = noisy.size();
    const std::vector<double> y = centred(noisy);
    const std::vector<double> inv = reciprocals(n);
    std::vector<double> prev = firstLayer(y, inv.data());
    std::vector<double> next(n + 1, 0.0);
    std::vector<double> sse(n);
    sse[0] = prev[n];
    std::optional<CostRows> cached;
    if (n <= kCachedCostsMaxBins) {
        cached.emplace(y, inv.data());
    }
    for (std::size_t k = 2; k <= n; ++k) {
        if (stop.stop_requested()) {
            return Error{"cancelled"};
        }
        if (cached) {
            layerCached(*cached, prev, next, k, n);
        } else {
            layer(y, inv.data(), prev, next, nullptr, k, n);
        }
        sse[k - 1] = next[n];
        std::swap(prev, next);
    }
    return sse;
}

Expected<NoiseFirstResult> noiseFirstAllK(std::span<const double> noisy, double noiseVariance,
                                          std::stop_token stop) {
    if (auto s = validateInput(noisy, noiseVariance); !s) {
        return s.error();
    }
    auto sse = vOptimalErrorsAllK(noisy, stop);
    if (!sse) {
        return sse.error();
    }
    const std::size_t n = noisy.size();
    std::size_t kStar = 1;
    double bestCriterion = std::numeric_limits<double>::infinity();
    for (std::size_t k = 1; k <= n; ++k) {
        const double c =
            (*sse)[k - 1] - (static_cast<double>(n) - 2.0 * static_cast<double>(k)) * noiseVariance;
        if (c < bestCriterion) {  // strict: ties keep the smallest k
            bestCriterion = c;
            kStar = k;
        }
    }
    // Rebuild the optimal k*-bucket partition, keeping the argmin tables of layers 2..k*.
    std::vector<std::vector<std::size_t>> args(kStar + 1, std::vector<std::size_t>(n + 1, 0));
    const std::vector<double> y = centred(noisy);
    const std::vector<double> inv = reciprocals(n);
    std::vector<double> prev = firstLayer(y, inv.data());
    std::vector<double> next(n + 1, 0.0);
    for (std::size_t k = 2; k <= kStar; ++k) {
        layer(y, inv.data(), prev, next, &args[k], k, n);
        std::swap(prev, next);
    }
    std::vector<std::size_t> ends;
    std::size_t i = n;
    for (std::size_t k = kStar; k >= 1; --k) {
        ends.push_back(i);
        i = args[k][i];
    }
    std::reverse(ends.begin(), ends.end());
    return buildResult(noisy, std::move(ends), noiseVariance);
}

}  // namespace dpx
