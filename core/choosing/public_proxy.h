// Choosing ε without leaking (issue #22): where the curves that choose ε are computed.
//
// A trade-off curve, an expected error or a "smallest ε meeting a target" computed on the
// confidential histogram is a function of the data, so an ε chosen from it is a data-dependent
// choice that the release's ε does not cover (the choice itself can leak; cf. Liu & Talwar 2019,
// "Private selection from private candidates", and Papernot & Steinke 2022 on tuning with private
// data). Planning on a PUBLIC proxy avoids that: a histogram with the same bins whose shape is
// public — uniform, a normal, a shape the user supplies, or the released counts of a previous
// public release with the same binning — scaled to a population N the user DECLARES. The proxy
// never reads the confidential counts nor their total (the data's size is itself private).
//
// Plan-on text, as `dpx tradeoff --plan-on` and sessions spell it:
//   confidential            the confidential data (the default; marked as such)
//   uniform                 the same weight in every bin
//   normal:MEAN,SD          a normal in bin units: bin i (0-based) covers [i − ½, i + ½], so
//                           MEAN = 3 centres it on the fourth bin; SD > 0 in bins
//   normal:MEAN%,SD%        the same relative to the range: the bins cover [0, 100] %, bin i is
//                           [100·i/k, 100·(i+1)/k] % (k bins); both numbers carry %
//   weights:W1,W2,…         one non-negative weight per bin, sum > 0
//   shape:FILE              weights from a file (io/sources/proxy_source.h reads it)
//   release:FILE            the released counts of a previous dpx release CSV (its values, not its
//                           truth; negative released values are set to 0 — post-processing of a
//                           public release, Dwork & Roth 2014 Prop. 2.1)
// The normal's bin masses are Φ((b − μ)/σ) − Φ((a − μ)/σ) over each bin [a, b] (by erfc, upper
// tails to the right of the mean so far tails keep their precision), truncated to the bins: the
// masses are renormalised over the whole range, the mass outside it is not piled into the end
// bins.
//
// Scaling to N: the weights, normalised, are quantised to integers summing to ≈ 2⁵² (a weight
// below 2⁻⁵³ of the total becomes 0) and apportioned to exactly N by scaleToPopulation (Hamilton's
// largest-remainder method, core/choosing/tradeoff.h), so the proxy's total is exactly N and every
// bin is within 1 (plus the quantisation, < 10⁻¹⁵·N) of N·w_i/Σw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/histogram/histogram.h"

namespace dpx {

enum class PlanOnKind { Confidential, Uniform, Normal, Weights, Shape, Release };

// "confidential", "uniform", "normal", "weights", "shape", "release".
const char* planOnKindName(PlanOnKind kind);

// The largest population a proxy accepts (scaleToPopulation's limit).
inline constexpr std::int64_t kMaxProxyPopulation = 1'000'000'000'000'000;

struct PlanOn {
    PlanOnKind kind = PlanOnKind::Confidential;
    double mean = 0;        // Normal: in bins, or in % of the range when `relative`
    double sd = 0;          // Normal: > 0, same unit as the mean
    bool relative = false;  // Normal: MEAN%,SD%
    // Weights: as typed. Shape / Release: as read from `path` (io/sources/proxy_source.h).
    std::vector<double> weights;
    // Release: the bin labels of the release file, checked against the bins planned on (empty:
    // not checked).
    std::vector<std::string> labels;
    std::string path;  // Shape / Release: the file
    // The declared population N (≥ 1; never taken from the data). 0 for Confidential.
    std::int64_t population = 0;

    bool isProxy() const { return kind != PlanOnKind::Confidential; }
    // The plan-on text (as parsePlanOn reads it): "uniform", "normal:5,2", "release:r.csv".
    std::string text() const;
    // In words: "uniform, N = 30000", "normal (mean 5, sd 2 bins), N = 1000", "previous release
    // r.csv (released counts), N = 500"; "confidential data" for Confidential.
    std::string describe() const;
    // describe() without the population: "uniform", "normal (mean 5, sd 2 bins)".
    std::string shapeDescription() const;
    // What a result states as its basis: "confidential data" or "public proxy: <describe()>".
    std::string computedOn() const;
};

// Reads the plan-on text above (the population is set separately). Errors name the problem and
// the accepted forms. Shape / Release only record the path; their weights are read by io.
Expected<PlanOn> parsePlanOn(const std::string& text);

// The proxy histogram over `bins` bins (with the given labels and edges, each empty or one per bin
// / bins + 1 as Histogram::create requires) for a proxy plan. Errors: a confidential plan (there
// is no proxy to build), N < 1 or > kMaxProxyPopulation, a weight count ≠ bins, a negative or
// non-finite weight, weights summing to 0, SD ≤ 0 or non-finite mean, a normal with no mass on the
// bins, release labels that differ from `labels`.
Expected<Histogram> buildProxyHistogram(const PlanOn& plan, std::size_t bins,
                                        const std::vector<std::string>& labels = {},
                                        const std::vector<double>& edges = {});

// The proxy's weights per bin before scaling (normalised to sum 1): uniform 1/k, the normal's
// truncated bin masses, the given weights over their sum. Same errors as above (but N).
Expected<std::vector<double>> proxyWeights(const PlanOn& plan, std::size_t bins);

}  // namespace dpx
