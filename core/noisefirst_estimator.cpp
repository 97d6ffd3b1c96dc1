#include "core/noisefirst_estimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/validation.h"

namespace dpx {

namespace {

// Prefix sums of the data centred on its mean (SSE is shift-invariant; centring keeps
// S2 − S1²/m free of catastrophic cancellation for large counts).
struct PrefixSums {
    std::vector<double> s1, s2;
    explicit PrefixSums(std::span<const double> x) : s1(x.size() + 1, 0.0), s2(x.size() + 1, 0.0) {
        const double mean =
            std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double v = x[i] - mean;
            s1[i + 1] = s1[i] + v;
            s2[i + 1] = s2[i] + v * v;
        }
    }
    // SSE of elements [j, i) around their mean.
    double cost(std::size_t j, std::size_t i) const {
        const double d1 = s1[i] - s1[j];
        const double c = (s2[i] - s2[j]) - d1 * d1 / static_cast<double>(i - j);
        return c > 0 ? c : 0.0;
    }
};

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
    const PrefixSums ps(noisy);
    const double lambda = 2 * noiseVariance;  // penalty per bucket: argmin_k SSE_k + 2Vk
    std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
    std::vector<std::size_t> segments(n + 1, 0), from(n + 1, 0);
    best[0] = 0;
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = i; j-- > 0;) {
            const double w = ps.cost(j, i);
            if (w + lambda > best[i]) {
                break;  // cost(j', i) only grows as j' decreases and best[j'] ≥ 0
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
void layer(const PrefixSums& ps, const std::vector<double>& prev, std::vector<double>& next,
           std::vector<std::size_t>* arg, std::size_t k, std::size_t n) {
    for (std::size_t i = k; i <= n; ++i) {
        double best = std::numeric_limits<double>::infinity();
        std::size_t bestJ = i - 1;
        for (std::size_t j = i; j-- > k - 1;) {
            const double w = ps.cost(j, i);
            if (w >= best) {
                break;
            }
            const double c = prev[j] + w;
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

}  // namespace

Expected<std::vector<double>> vOptimalErrorsAllK(std::span<const double> noisy,
                                                 std::stop_token stop) {
    if (auto s = validateInput(noisy, 1.0); !s) {
        return s.error();
    }
    const std::size_t n = noisy.size();
    const PrefixSums ps(noisy);
    std::vector<double> prev(n + 1), next(n + 1, 0.0);
    for (std::size_t i = 1; i <= n; ++i) {
        prev[i] = ps.cost(0, i);
    }
    std::vector<double> sse(n);
    sse[0] = prev[n];
    for (std::size_t k = 2; k <= n; ++k) {
        if (stop.stop_requested()) {
            return Error{"cancelled"};
        }
        layer(ps, prev, next, nullptr, k, n);
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
    const PrefixSums ps(noisy);
    std::vector<std::vector<std::size_t>> args(kStar + 1, std::vector<std::size_t>(n + 1, 0));
    std::vector<double> prev(n + 1), next(n + 1, 0.0);
    for (std::size_t i = 1; i <= n; ++i) {
        prev[i] = ps.cost(0, i);
        args[1][i] = 0;
    }
    for (std::size_t k = 2; k <= kStar; ++k) {
        layer(ps, prev, next, &args[k], k, n);
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
