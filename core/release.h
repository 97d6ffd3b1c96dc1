// The release path of a histogram (issue #8): noise from the exact samplers of
// core/exact_samplers.h with randomness from the OS CSPRNG only, added to every declared bin, then
// optional post-processing (clamp, resize, NoiseFirst: functions of the noisy counts alone, so
// free of privacy cost, Dwork & Roth 2014 Prop. 2.1). The result holds the released values and a
// metadata record; it never holds the true counts, a seed or RNG state. Writing the files and
// charging the budget ledger live in core/data (release_files.h, privacy_ledger.h).
//
// Sensitivity. One person contributes at most `contributionCap` rows (1: one row per person).
// Add/remove neighbours change the histogram by a vector of L1 norm ≤ cap; replace neighbours by
// ≤ 2·cap. Δ2 is bounded by Δ1 (an integer vector's L2 norm never exceeds its L1 norm).
//  - discrete-laplace: each bin + DLap(t), t = Δ1/ε exactly ⇒ ε-DP (CKS 2020 §1; GRS 2009).
//  - discrete-gaussian: each bin + N_Z(0, σ²) with σ² calibrated so that the exact δ(ε) of
//    CKS 2020 Thm 7 is ≤ δ (discreteGaussianDelta, rounded up). That formula is for a change of at
//    most Δ in ONE coordinate, which holds for add/remove with cap 1 (Δ = 1); other relations and
//    caps are refused. Also ρ-zCDP with ρ = Δ2²/(2σ²) (CKS 2020 §2), recorded exactly.
//  - geometric-matrix: the truncated geometric mechanism GM on {0, …, n} (Ghosh, Roughgarden &
//    Sundararajan 2009) at ε/Δ1 per unit change, sampled with exact thresholds
//    (CountMechanismSampler). A neighbour changes the bins by a vector of L1 norm ≤ Δ1, so the
//    histogram is ε-DP by group privacy across units. True counts above n are counted as n
//    (min(c, n) changes by at most as much as c). Before any bit is drawn the sampled
//    (column-normalised) matrix is verified exactly: every adjacent-column ratio
//    (P[i][j]/S_j)/(P[i][j+1]/S_{j+1}) must be ≤ a rational lower bound of e^(ε/Δ1), compared in
//    integer arithmetic; otherwise the release is refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/count_mechanism.h"
#include "core/estimator.h"
#include "core/exact_samplers.h"
#include "core/expected.h"
#include "core/histogram.h"
#include "core/release_rng.h"

namespace dpx {

enum class ReleaseMechanism { DiscreteLaplace, DiscreteGaussian, GeometricMatrix };
// "discrete-laplace" / "discrete-gaussian" / "geometric-matrix"
const char* releaseMechanismName(ReleaseMechanism mechanism);
Expected<ReleaseMechanism> releaseMechanismFromName(const std::string& name);

// Largest contribution cap and group size a release accepts.
inline constexpr std::int64_t kMaxReleaseCap = 1000;
inline constexpr std::int64_t kMaxReleaseGroupSize = kMaxCountPeople;  // 2000

struct ReleaseSpec {
    ReleaseMechanism mechanism = ReleaseMechanism::DiscreteLaplace;
    // ε and δ as the user typed them (decimal text, read exactly by parseDecimal). ε in (0, 100];
    // δ in (0, 1) for discrete-gaussian, empty (or "0") for the two pure mechanisms.
    std::string epsilon;
    std::string delta;
    // geometric-matrix: the group size n (outputs 0..n), 1 ≤ n ≤ kMaxReleaseGroupSize; 0 otherwise.
    std::int64_t groupSize = 0;
    Neighbouring relation = Neighbouring::AddRemove;
    std::int64_t contributionCap = 1;  // rows per person, 1 ≤ cap ≤ kMaxReleaseCap
    // Whether the bins were declared before the data were read. Data-dependent bins (e.g. the
    // categories found in the data) leak which values occur and are refused.
    bool binsDeclared = false;
    EstimatorKind postProcessing = EstimatorKind::Identity;
    // Where the true counts came from, recorded in the metadata (e.g. "column 'age' of data.csv",
    // "counts given on the command line").
    std::string source;
    std::string appVersion;  // recorded in the metadata; non-empty
    // UTC time "YYYY-MM-DDTHH:MM:SSZ"; empty: the current time.
    std::string timestamp;
    Status validate() const;
};

// Everything a reader of a release needs to know, with exact numbers as text ("1/10", "0.1").
struct ReleaseMetadata {
    std::string mechanism;         // releaseMechanismName
    std::string samplerAlgorithm;  // e.g. "exact discrete Laplace (CKS 2020 Algorithm 2)"
    std::string samplerReference;  // citation
    std::string randomness;        // "getrandom(2), the OS CSPRNG"
    std::string epsilon;           // as typed
    std::string epsilonExact;      // exact rational
    std::string delta;             // as typed ("0" for pure DP)
    std::string deltaAchieved;     // discrete-gaussian: δ at σ² (rounded up), else "0"
    std::string rho;               // zCDP ρ as an exact rational (ε²/2 for pure DP)
    std::string
        noiseParameter;  // "scale t = 10" / "sigma^2 = 12.3456" / "GM, n = 50, ε/unit = 1/10"
    std::int64_t l1Sensitivity = 1;
    std::int64_t l2Sensitivity = 1;  // an upper bound (Δ2 ≤ Δ1)
    std::string neighbouring;        // neighbouringName
    std::int64_t contributionCap = 1;
    std::vector<std::string> binLabels;
    std::vector<double> binEdges;  // empty for categories
    std::string postProcessing;    // estimatorName
    std::string source;
    std::string appVersion;
    std::string timestamp;
    std::string guarantee;           // one plain-language sentence
    std::vector<std::string> notes;  // calibration warnings, clamping of counts above n
};

struct HistogramRelease {
    // One value per declared bin, after post-processing. Integers for none/clamp (and always for
    // geometric-matrix with none); resize and NoiseFirst may give fractions.
    std::vector<double> values;
    ReleaseMetadata metadata;
};

// The privacy cost a spec asks — ε and δ as typed ("0" for pure DP), ρ as an exact fraction (ε²/2
// for pure DP; Δ2²/(2σ²) at the calibrated σ² for the discrete Gaussian) — computed without data or
// randomness, so that a budget can be checked before any noise is drawn. Equal to the epsilon,
// delta and rho of the metadata releaseHistogram returns for the same spec.
struct ReleaseCost {
    std::string epsilon;
    std::string delta;
    std::string rho;
};
Expected<ReleaseCost> releaseCost(const ReleaseSpec& spec);

// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utcTimestampNow();

// Validates, verifies (geometric-matrix), draws noise for every bin of `declaredTruth` from
// `randomness` and post-processes. Any failure (bad spec, undeclared bins, a matrix that fails
// the exact check, a randomness error) returns an Error and no values.
Expected<HistogramRelease> releaseHistogram(const ReleaseSpec& spec, const Histogram& declaredTruth,
                                            ReleaseRandomness& randomness);

// The exact check of geometric-matrix: every adjacent-column ratio of the column-normalised
// matrix is ≤ a rational lower bound of e^epsilon (a zero facing a non-zero fails). OK or an
// Error naming the first failing row and columns.
// The column sums S_j are the sampler's exact ones (CountMechanismSampler::columnSum).
Status verifyMatrixEpsilon(const CountMechanism& mechanism, const Rational& epsilon);

// A rational lower bound of e^x for 0 ≤ x ≤ 100: a partial sum of the Taylor series (all terms
// positive) with relative error below 2^-80.
Rational expLowerBound(const Rational& x);

}  // namespace dpx
