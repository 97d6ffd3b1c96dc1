// Local-DP workloads, post-processing and metrics shared by dpx ldp, the window and the seed 002
// experiment (issue #7). No Qt.
//
// Seed 002 (telemetry) measures a frequency estimate f̂ against the truth f over k equal buckets on
// [0, 24] hours with the "histogram error" max_v |f̂(v) − f(v)| and the Wasserstein-1 distance with
// negative estimates clamped to 0 (core/accuracy/wasserstein.h), on three synthetic shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/histogram/histogram.h"
#include "core/ldp/protocols.h"

namespace dpx::ldp {

// Seed 002's synthetic data on [0, 24] h: a normal N(12, 4²) truncated to [0, 24], the uniform
// distribution, and a constant (every user at 12 h, the bucket containing 12).
enum class TelemetryShape { TruncatedNormal, Uniform, Constant };
const char* telemetryShapeName(TelemetryShape s);  // "normal", "uniform", "constant"
Expected<TelemetryShape> telemetryShapeFromName(const std::string& name);

// The shape's probability of each of `buckets` equal buckets on [0, 24] (sums to 1).
// Errors: buckets < 1.
Expected<std::vector<double>> telemetryShapeProbabilities(TelemetryShape s, std::size_t buckets);

// The shape's counts for `users` users: the probabilities scaled to exactly `users` by largest
// remainders (core/choosing/tradeoff.h scaleToPopulation on weights in units of 1e-18; total
// exactly users, every count within 1 of users·p), with edges 24·b/buckets. Errors: buckets < 1 or
// > 2^22, users < 1 or > 10^15.
Expected<Histogram> telemetryCounts(TelemetryShape s, std::size_t buckets, std::uint64_t users);

// Bucket centres in hours, 24·(b + ½)/buckets: the positions of the Wasserstein metric.
std::vector<double> telemetryBucketCentres(std::size_t buckets);

// Post-processing of an unbiased frequency estimate (free of privacy cost):
//  None    as estimated (may be negative, need not sum to 1);
//  Clamp   negative frequencies set to 0 (seed 002's treatment);
//  Simplex the Euclidean projection onto {f ≥ 0, Σf = 1} (Duchi et al. 2008), the "resize" of
//          the central model with the known total 1.
enum class FrequencyPostProcess { None, Clamp, Simplex };
const char* frequencyPostProcessName(FrequencyPostProcess p);  // "none", "clamp", "simplex"
Expected<FrequencyPostProcess> frequencyPostProcessFromName(const std::string& name);
// Errors: empty input, non-finite values.
Expected<std::vector<double>> postProcessFrequencies(std::span<const double> estimate,
                                                     FrequencyPostProcess p);

// max_j |a_j − b_j|. Precondition: equal, non-zero sizes.
double maxAbsError(std::span<const double> a, std::span<const double> b);

// E[max_j |Z_j|] for independent Z_j ~ N(0, v_j): ∫_0^∞ (1 − Π_j (2Φ(t/σ_j) − 1)) dt by composite
// Simpson on [0, 12·max σ] with 4000 intervals (the integrand is below 1e-30 beyond). The normal
// approximation of the expected histogram error of an unbiased oracle (its per-bucket estimates
// are sums of many independent reports; correlations between buckets are ignored). 0 if every
// variance is 0. Negative variances count as 0.
double expectedMaxAbsNormal(std::span<const double> variances);

// The expected histogram error E[max_j |f̂_j − f_j|] of an oracle's estimate under the normal
// approximation: expectedMaxAbsNormal for protocols whose bucket estimates are uncorrelated or
// nearly so, except binary randomized response, whose two estimates sum to 1 exactly (their
// errors mirror each other, max = |error of one|): σ·√(2/π) with σ² = variances[0].
double expectedMaxAbsError(Protocol protocol, std::span<const double> variances);

}  // namespace dpx::ldp
