// The intervals a release states (issue #22), from its spec alone (the noise law; never the data):
// per bin and for all bins at once (the exact max over independent bins), at spec.confidenceLevel.
// Stated for post-processing none and clamp (clamping at 0 never moves a value away from a count
// ≥ 0, so the noise interval still covers). Resize and NoiseFirst change each value by an amount
// that depends on every bin, which the noise law alone does not bound around the published value:
// no interval is stated unless spec.postProcessedIntervals, and then the intervals are a pivot on
// the noisy count y before post-processing (aroundNoisy): Pr[|y − c| ≤ h] ≥ L for every true
// count c ≥ 0, so [max(0, y − h), y + h] covers c with probability ≥ L whatever the counts are,
// and it is widened to contain the published value v (postProcessedBounds). No Monte Carlo: the
// coverage is exact (the noise law's), and no simulation at the (unknown) true counts is needed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "core/base/expected.h"
#include "core/release/release.h"

namespace dpx {

Expected<std::optional<ReleaseIntervalStatement>> releaseIntervals(const ReleaseSpec& spec,
                                                                   std::uint64_t bins);

// The bounds of one bin after resize or NoiseFirst (aroundNoisy): published value v, noisy count
// before post-processing y, half-width h (per bin, or the all-bins-at-once one):
// [min(v, max(0, y − h)), max(v, max(0, y + h))]. It contains [max(0, y − h), y + h], hence the
// true count c ≥ 0 whenever |y − c| ≤ h (and it always contains v and a count ≥ 0). An error when
// v, y or h is not finite or h < 0.
struct IntervalBounds {
    double lower = 0;
    double upper = 0;
};
Expected<IntervalBounds> postProcessedBounds(double value, double noisy, double halfWidth);

// "With 95 % confidence all 12 published counts are within ±10 of their counts before noise at
// once."
std::string simultaneousIntervalSentence(double level, std::uint64_t bins, double halfWidth);

}  // namespace dpx

namespace dpx {

// Sampling error next to DP noise in a release (issue #22): for a spec that declares the data a
// sample of N (spec.samplePopulation, design effect spec.designEffect), per published value v the
// samplingIntervals of the count v out of a sample of n̂ rows, with n_eff = n̂/D. n̂ is the sum of
// the published values clamped to [2·D, N]: the true sample size is a count of the confidential
// data and is never used, nor is any true count — everything is a function of the published
// values and the spec, so stating it costs no privacy. Valid after clamp as well (clamping moves
// the noise towards 0, and the sampling error's window probability only grows when it does).
// Total for every finite published value (the release has already drawn its noise; a refusal
// depending on the values now would leak them without a charge): an Error only for a spec that
// declares no sample or whose noise law cannot be evaluated.
Expected<ReleaseSamplingStatement> releaseSamplingIntervals(const ReleaseSpec& spec,
                                                            std::span<const double> published);

}  // namespace dpx
