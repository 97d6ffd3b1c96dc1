// The intervals a release states (issue #22), from its spec alone (the noise law; never the data):
// per bin and for all bins at once (the exact max over independent bins), at spec.confidenceLevel.
// Stated for post-processing none and clamp (clamping at 0 never moves a value away from a count
// ≥ 0, so the noise interval still covers); not for resize and NoiseFirst, whose changes depend on
// every bin and are not bounded by the noise law alone.
#pragma once

#include <cstdint>
#include <optional>

#include "core/base/expected.h"
#include "core/release/release.h"

namespace dpx {

Expected<std::optional<ReleaseIntervalStatement>> releaseIntervals(const ReleaseSpec& spec,
                                                                   std::uint64_t bins);

// "With 95 % confidence all 12 published counts are within ±10 of their counts before noise at
// once."
std::string simultaneousIntervalSentence(double level, std::uint64_t bins, double halfWidth);

}  // namespace dpx
