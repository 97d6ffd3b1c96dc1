// Two studies of seed 001 (Kulkarni, PhD thesis) under local DP, as reusable runners for the
// window's Local DP experiment tab (issue #7). No Qt.
//
//  * Range queries (ch. 5): the mean squared error of range answers (fractions of the population)
//    over a workload of ranges, for the flat baseline (a frequency oracle over the whole domain,
//    ranges summed from its estimates; §5.3.2), hierarchical histograms HH_B with and without the
//    consistency step (§5.4.1–5.4.2) and HaarHRR (§5.4.3), next to each method's analytic
//    prediction or bound (core/ldp/range.h).
//  * Marginals (ch. 4): the mean total-variation error of all k-way marginals of d binary
//    attributes for INPHT (sampled Hadamard coefficients) and the one-hot baseline (a frequency
//    oracle over the 2^d full records), core/ldp/marginals.h.
//
// Every repetition uses a seed derived from the study seed, the method, ε and the repetition
// (never the order of evaluation), so any point is reproducible alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/histogram/histogram.h"
#include "core/ldp/marginals.h"
#include "core/ldp/metrics.h"
#include "core/ldp/protocols.h"

namespace dpx::ldp {

// ---------------------------------------------------------------------------------------------
// Range queries

enum class RangeMethod { Flat, Hierarchical, HierarchicalConsistent, Haar };

struct RangeMethodSpec {
    RangeMethod method = RangeMethod::Flat;
    Protocol oracle = Protocol::OUE;  // Flat and HH: the frequency oracle (not RR, not dBitFlip)
    std::size_t branching = 2;        // HH: B ≥ 2
    std::string label() const;        // "flat OUE", "HH_4 OUE", "HH_4 OUE + consistency", "HaarHRR"
};

struct RangeStudySpec {
    std::vector<RangeMethodSpec> methods;
    TelemetryShape shape = TelemetryShape::TruncatedNormal;  // on D equal buckets of [0, 24] h
    std::size_t domain = 1024;                               // D, 2 … 2^16
    std::uint64_t users = std::uint64_t{1} << 20;            // N, 1 … 2^28 (HaarHRR is per user)
    std::vector<double> epsilons;                            // each in (0, 20]
    unsigned repetitions = 5;                                // 1 … 1000
    // Workload: this many ranges drawn uniformly from all D(D+1)/2 (sampleRanges, seeded by
    // `seed`); 0 = all of them (only for D ≤ 2048).
    std::size_t rangeSamples = 20000;
    std::uint64_t seed = 1;
    Status validate() const;  // messages name the field
};

// Seed 001 ch. 5's setting scaled to a desktop: D = 1024, N = 2^20 (the seed uses 2^26), truncated-
// normal data, ε ∈ {0.5, ln 3, 2, 4} (ln 3 is the seed's default), flat OUE, HH_2, HH_4 and HH_8
// with consistency (the seed's optimum B ≈ 9), HaarHRR; 5 repetitions, 20 000 sampled ranges.
RangeStudySpec rangeStudyPreset();

struct RangeStudyPoint {
    std::size_t method = 0;  // index into spec.methods
    double epsilon = 0;
    double mse = 0, mseCi95 = 0;  // mean over repetitions of the workload's MSE; 95% half-width
    // The analytic figure next to it, mean over the workload: flat — Σ_{j∈range} Var[f̂_j]
    // (exact for oracles with uncorrelated estimates: OUE, SUE, OLH as simulated); HH — seed
    // 001's bound 2(B−1)·V_F·h·⌈log_B r⌉/N, with consistency (B+1)/2·V_F·h·⌈log_B r⌉/N;
    // HaarHRR — ½·h²·V_F/N (core/ldp/range.h, including its corrections of the seed).
    double analytic = 0;
    std::string analyticKind;  // "prediction" or "bound"
};

struct RangeStudyResult {
    std::vector<RangeStudyPoint> points;  // method-major, then ε
    bool cancelled = false;
};

Expected<RangeStudyResult> runRangeStudy(const RangeStudySpec& spec,
                                         const std::stop_token& stop = {},
                                         const ProgressCallback& progress = {});

// ---------------------------------------------------------------------------------------------
// Marginals

enum class MarginalMethod { Inpht, OneHot };

struct MarginalMethodSpec {
    MarginalMethod method = MarginalMethod::Inpht;
    Protocol oracle = Protocol::OUE;  // OneHot: the oracle over 2^d records (GRR, OUE, SUE, OLH)
    std::string label() const;        // "INPHT", "one-hot OUE"
};

struct MarginalStudySpec {
    std::vector<MarginalMethodSpec> methods;
    unsigned attributes = 8;                       // d, 2 … 16
    unsigned order = 2;                            // k, 1 … d
    bool skewed = true;                            // binaryAttributeTable's shape
    std::uint64_t users = std::uint64_t{1} << 18;  // N, 1 … 2^26 (INPHT is per user)
    std::vector<double> epsilons;                  // each in (0, 20]
    unsigned repetitions = 5;                      // 1 … 1000
    NegativeEstimates negatives = NegativeEstimates::Keep;
    std::uint64_t seed = 1;
    Status validate() const;
};

// Seed 001 ch. 4's setting: d = 8 binary attributes (the seed's NYC taxi data has 8), k = 2,
// N = 2^18, ε ∈ {0.2, 0.6, ln 3, 1.4} (the seed's range 0.2–1.4 and default ln 3), skewed data,
// INPHT against one-hot OUE and OLH; 5 repetitions.
MarginalStudySpec marginalStudyPreset();

struct MarginalStudyPoint {
    std::size_t method = 0;
    double epsilon = 0;
    double meanTv = 0, meanTvCi95 = 0;  // mean over repetitions of the mean TV over all marginals
    double maxTv = 0;                   // mean over repetitions of the worst marginal's TV
};

struct MarginalStudyResult {
    std::vector<MarginalStudyPoint> points;  // method-major, then ε
    bool cancelled = false;
};

Expected<MarginalStudyResult> runMarginalStudy(const MarginalStudySpec& spec,
                                               const std::stop_token& stop = {},
                                               const ProgressCallback& progress = {});

// The contingency table of d binary attributes for N users (cell x: bit i = attribute i): uniform
// (every cell 2^−d), or skewed — independent attributes with P(attribute i = 1) = (i+1)/(d+2) —
// scaled to exactly N by largest remainders (weights in units of 10^−18). Errors: d ∉ [1, 16],
// N ∉ [1, 10^15].
Expected<Histogram> binaryAttributeTable(unsigned attributes, std::uint64_t users, bool skewed);

}  // namespace dpx::ldp
