#include "core/intervals/release_intervals.h"

#include "core/count/count_mechanism.h"
#include "core/intervals/intervals.h"

namespace dpx {

std::string simultaneousIntervalSentence(double level, std::uint64_t bins, double halfWidth) {
    return "With " + levelPercentText(level) + " confidence all " + std::to_string(bins) +
           " published counts are within ±" + halfWidthText(halfWidth) +
           " of their counts before noise at once.";
}

Expected<std::optional<ReleaseIntervalStatement>> releaseIntervals(const ReleaseSpec& spec,
                                                                   std::uint64_t bins) {
    if (bins == 0) {
        return Error{"intervals: the release has no bin"};
    }
    auto law = releaseNoiseLaw(spec);
    if (!law) {
        return law.error();
    }
    if (spec.postProcessing == EstimatorKind::Resize ||
        spec.postProcessing == EstimatorKind::NoiseFirst) {
        return std::optional<ReleaseIntervalStatement>{};
    }
    const double level = spec.confidenceLevel;
    Expected<TableIntervals> t = Error{""};
    std::string caveat;
    switch (law->mechanism) {
        case ReleaseMechanism::DiscreteLaplace:
            t = tableIntervals({CellNoiseKind::DiscreteLaplace, law->alpha}, bins, level);
            break;
        case ReleaseMechanism::DiscreteGaussian:
            t = tableIntervals(CellNoise::discreteGaussian(law->sigma2), bins, level);
            break;
        case ReleaseMechanism::GeometricMatrix: {
            auto gm = truncatedGeometric(law->groupSize, law->epsilonPerUnitBuilt);
            if (!gm) {
                return Error{"intervals: " + gm.error().message};
            }
            t = countMechanismIntervals(*gm, bins, level);
            caveat =
                " (the truncated geometric mechanism, Ghosh, Roughgarden & Sundararajan "
                "2009); valid for true counts ≤ n = " +
                std::to_string(law->groupSize) + " (larger counts were counted as n)";
            break;
        }
    }
    if (!t) {
        return Error{"intervals: " + t.error().message};
    }
    const std::string clamp = spec.postProcessing == EstimatorKind::Clamp
                                  ? "; still valid after clamp (clamping at 0 never moves a value "
                                    "away from a count ≥ 0)"
                                  : "";
    ReleaseIntervalStatement s;
    s.level = level;
    s.halfWidth = t->perBin.halfWidth;
    s.coverage = t->perBin.coverage;
    s.method = t->perBin.method + caveat + clamp;
    s.simultaneousHalfWidth = t->exactMax.halfWidth;
    s.simultaneousMethod = t->exactMax.method + caveat + clamp;
    s.sentence = intervalSentence(level, s.halfWidth);
    s.simultaneousSentence = simultaneousIntervalSentence(level, bins, s.simultaneousHalfWidth);
    return std::optional<ReleaseIntervalStatement>{s};
}

}  // namespace dpx
