#include "core/intervals/release_intervals.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/count/count_mechanism.h"
#include "core/histogram/dataset.h"
#include "core/intervals/intervals.h"

namespace dpx {

std::string simultaneousIntervalSentence(double level, std::uint64_t bins, double halfWidth) {
    return "With " + levelPercentText(level) + " confidence all " + std::to_string(bins) +
           " published counts are within ±" + halfWidthText(halfWidth) +
           " of their counts before noise at once.";
}

Expected<IntervalBounds> postProcessedBounds(double value, double noisy, double halfWidth) {
    if (!std::isfinite(value) || !std::isfinite(noisy)) {
        return Error{"intervals: a published or noisy value is not a finite number"};
    }
    if (!(halfWidth >= 0) || !std::isfinite(halfWidth)) {
        return Error{"intervals: the half-width must be a finite number ≥ 0"};
    }
    return IntervalBounds{std::min(value, std::max(0.0, noisy - halfWidth)),
                          std::max(value, std::max(0.0, noisy + halfWidth))};
}

namespace {

// The statement after resize or NoiseFirst (spec.postProcessedIntervals): the noise law's
// intervals around the noisy count before post-processing (a pivot on the noisy value).
ReleaseIntervalStatement aroundNoisyStatement(const ReleaseSpec& spec, std::uint64_t bins,
                                              const TableIntervals& t, const std::string& caveat) {
    const std::string step =
        spec.postProcessing == EstimatorKind::Resize ? "resize" : "NoiseFirst (Xu et al. 2012)";
    const std::string pivot =
        "; after " + step +
        ", around the noisy count before it: |noisy − true| ≤ h holds with the noise law's "
        "coverage whatever the true counts are, so [max(0, noisy − h), noisy + h] covers the "
        "count before noise; widened to contain the published value (exact, no Monte Carlo; the "
        "bounds reveal the noisy counts, which are the mechanism's differentially private output)";
    ReleaseIntervalStatement s;
    s.level = spec.confidenceLevel;
    s.aroundNoisy = true;
    s.halfWidth = t.perBin.halfWidth;
    s.coverage = t.perBin.coverage;
    s.method = t.perBin.method + caveat + pivot;
    s.simultaneousHalfWidth = t.exactMax.halfWidth;
    s.simultaneousMethod = t.exactMax.method + caveat + pivot;
    const std::string pct = levelPercentText(s.level);
    s.sentence = "With " + pct +
                 " confidence each count before noise lies between its lower and upper bound: "
                 "the noisy count before " +
                 step + " ±" + halfWidthText(s.halfWidth) +
                 ", widened to contain the published value.";
    const std::string extra = halfWidthText(s.simultaneousHalfWidth - s.halfWidth);
    s.simultaneousSentence = "With " + pct + " confidence all " + std::to_string(bins) +
                             " counts before noise lie at once within ±" +
                             halfWidthText(s.simultaneousHalfWidth) +
                             " of their noisy counts before " + step + ", so between lower − " +
                             extra + " (and ≥ 0) and upper + " + extra + ".";
    return s;
}

}  // namespace

Expected<std::optional<ReleaseIntervalStatement>> releaseIntervals(const ReleaseSpec& spec,
                                                                   std::uint64_t bins) {
    if (bins == 0) {
        return Error{"intervals: the release has no bin"};
    }
    auto law = releaseNoiseLaw(spec);
    if (!law) {
        return law.error();
    }
    const bool moving = spec.postProcessing == EstimatorKind::Resize ||
                        spec.postProcessing == EstimatorKind::NoiseFirst;
    if (moving && !spec.postProcessedIntervals) {
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
    if (moving) {
        return std::optional<ReleaseIntervalStatement>{
            aroundNoisyStatement(spec, bins, *t, caveat)};
    }
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

namespace dpx {

Expected<ReleaseSamplingStatement> releaseSamplingIntervals(const ReleaseSpec& spec,
                                                            std::span<const double> published) {
    if (!(spec.samplePopulation > 0)) {
        return Error{"sampling intervals: the release declares no population (sample of N)"};
    }
    ReleaseSpec checked = spec;
    checked.binsDeclared = true;  // the bins are the caller's business; the rest is checked
    if (auto v = checked.validate(); !v) {
        return v.error();
    }
    if (published.empty()) {
        return Error{"sampling intervals: the release has no bin"};
    }
    auto law = releaseNoiseLaw(checked);
    if (!law) {
        return law.error();
    }
    CellNoise noise;
    if (law->mechanism == ReleaseMechanism::DiscreteLaplace) {
        noise = {CellNoiseKind::DiscreteLaplace, law->alpha};
    } else if (law->mechanism == ReleaseMechanism::DiscreteGaussian) {
        noise = CellNoise::discreteGaussian(law->sigma2);
    } else {
        return Error{"sampling intervals: not for the truncated geometric matrix"};
    }
    const double N = spec.samplePopulation, D = spec.designEffect;
    double sum = 0;
    for (double v : published) {
        if (!std::isfinite(v)) {
            return Error{"sampling intervals: a published value is not a finite number"};
        }
        sum += v;
    }
    ReleaseSamplingStatement s;
    s.level = spec.confidenceLevel;
    s.populationSize = N;
    s.designEffect = D;
    s.sampleSize = std::clamp(sum, 2 * D, N);
    const double nEff = D == 1 ? 0.0 : s.sampleSize / D;
    // Integer published values repeat (zeros above all): one computation per distinct value.
    std::map<double, SamplingIntervals> done;
    for (double v : published) {
        auto it = done.find(v);
        if (it == done.end()) {
            auto r = samplingIntervals(v, s.sampleSize, N, noise, s.level, nEff);
            if (!r) {
                return Error{"sampling intervals: " + r.error().message};
            }
            it = done.emplace(v, *r).first;
            if (s.method.empty()) {
                s.method = r->method;
            }
        }
        s.estimates.push_back(it->second.estimate);
        s.sampling.push_back(it->second.sampling);
        s.noise.push_back(it->second.noise);
        s.combined.push_back(it->second.combined);
    }
    s.method += "; p = value/n and n = the sum of the published values (" +
                formatShortest(s.sampleSize) +
                (sum != s.sampleSize ? ", clamped to [2·D, N]" : "") +
                "), never the true counts; N and the design effect as declared";
    s.sentence = "With " + levelPercentText(s.level) +
                 " confidence each population count lies within population_estimate ± "
                 "combined_half_width: the data are a sample of N = " +
                 formatShortest(N) + (D != 1 ? " with design effect " + formatShortest(D) : "") +
                 ", so each count carries a sampling error (sampling_half_width) as well as the "
                 "DP noise (noise_half_width); both are computed from the published values.";
    return s;
}

}  // namespace dpx
