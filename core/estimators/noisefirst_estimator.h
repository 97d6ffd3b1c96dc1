// NoiseFirst (Xu et al., ICDE 2012; seed 000 §2.1.3 and §3.2.1). For every k the V-optimal
// k-bucket histogram Ĥ_k of the noisy counts (contiguous buckets, each bucket set to the mean of
// its noisy bins; Jagadish et al. 1998), then k* = argmin_k SSE(Ĥ_k, H̃) − (n − 2k)·V where V is the
// per-bin noise variance. Seed 000 writes the penalty as (2n − 4k)/ε², which is (n − 2k)·V for
// Laplace(1/ε) (V = 2/ε²); we use V so the rule also holds for geometric and Gaussian noise.
//
// Two algorithms, tested against each other:
//  * noiseFirst(): argmin_k SSE_k + 2Vk equals the minimum over all segmentations of
//    Σ_segments (SSE(segment) + 2V), a one-dimensional DP in O(n²) ("optimal partitioning",
//    Jackson et al. 2005). Ties go to the smallest k, as in seed 000's "≤" rule.
//  * vOptimalErrorsAllK(): the classic DP over (k, i) that yields SSE_k for every k (O(n³) worst
//    case, with an exact pruning), used for the criterion curve and as the reference.
// Segment costs are accumulated with Welford updates while a segment grows, not from prefix sums
// Σx², Σx, whose difference cancels badly at large counts (1e-4 absolute error at 1e6).
#pragma once

#include <cstddef>
#include <span>
#include <stop_token>
#include <vector>

#include "core/base/expected.h"

namespace dpx {

struct NoiseFirstResult {
    std::vector<double> estimate;        // Ĥ_{k*}
    std::size_t buckets = 0;             // k*
    std::vector<std::size_t> bucketEnd;  // exclusive end index of each bucket
    double sse = 0;                      // SSE(Ĥ_{k*}, H̃)
    double criterion = 0;                // SSE_{k*} − (n − 2k*)·V
};

// noiseVariance: per-bin variance V of the noise that produced `noisy` (> 0, finite).
Expected<NoiseFirstResult> noiseFirst(std::span<const double> noisy, double noiseVariance);

// SSE_k = SSE(Ĥ_k, H̃) for k = 1..n (index k−1). Returns an error if stopped.
Expected<std::vector<double>> vOptimalErrorsAllK(std::span<const double> noisy,
                                                 std::stop_token stop = {});

// NoiseFirst through the all-k table (reference implementation, O(n³)).
Expected<NoiseFirstResult> noiseFirstAllK(std::span<const double> noisy, double noiseVariance,
                                          std::stop_token stop = {});

}  // namespace dpx
