// The release path of a histogram (issue #8): noise from the exact samplers of
// core/release/exact_samplers.h with randomness from the OS CSPRNG only, added to every declared
// bin, then optional post-processing (clamp, resize, NoiseFirst: functions of the noisy counts
// alone, so free of privacy cost, Dwork & Roth 2014 Prop. 2.1). The result holds the released
// values and a metadata record; it never holds the true counts, a seed or RNG state. Writing the
// files and charging the budget ledger live in io/release (release_files.h, privacy_ledger.h).
//
// Sensitivity. One person contributes at most `contributionCap` rows (1: one row per person).
// Add/remove neighbours change the histogram by a vector of L1 norm ≤ cap; replace neighbours by
// ≤ 2·cap. Δ2 is bounded by Δ1 (an integer vector's L2 norm never exceeds its L1 norm).
//  - discrete-laplace: each bin + DLap(t), t = Δ1/ε exactly ⇒ ε-DP (CKS 2020 §1; GRS 2009).
//  - discrete-gaussian: each bin + N_Z(0, σ²) with σ² calibrated so that the exact δ(ε) of
//    CKS 2020 Thm 7 is ≤ δ (discreteGaussianDelta, rounded up). That formula is for a change of at
//    most Δ in ONE coordinate, which holds for add/remove with cap 1 (Δ = 1); other relations and
//    caps use ρ-zCDP with ρ = Δ2²/(2σ²) and CKS Cor. 13's conversion (calibrateReleaseGaussian).
//    Always ρ-zCDP with ρ = Δ2²/(2σ²) (CKS 2020 §2), recorded exactly.
//  - geometric-matrix: the truncated geometric mechanism GM on {0, …, n} (Ghosh, Roughgarden &
//    Sundararajan 2009) at ε/Δ1 per unit change, sampled with exact thresholds
//    (CountMechanismSampler). A neighbour changes the bins by a vector of L1 norm ≤ Δ1, so the
//    histogram is ε-DP by group privacy across units. True counts above n are counted as n
//    (min(c, n) changes by at most as much as c). Before any bit is drawn the sampled
//    (column-normalised) matrix is verified exactly: every adjacent-column ratio
//    (P[i][j]/S_j)/(P[i][j+1]/S_{j+1}) must be ≤ a rational lower bound of e^(ε/Δ1), compared in
//    integer arithmetic; otherwise the release is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/count/count_mechanism.h"
#include "core/estimators/estimator.h"
#include "core/histogram/histogram.h"
#include "core/release/exact_samplers.h"
#include "core/release/release_rng.h"
#include "core/table/table.h"

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
    // ε and δ as the user typed them (decimal text, read exactly by parseDecimal). ε in (0, 100],
    // and at least Δ1·10^-12 for discrete-laplace and Δ1·10^-9 for geometric-matrix (validate());
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
    // The level of the intervals the release states (issue #22), in (0, 1).
    double confidenceLevel = 0.95;
    // After resize or NoiseFirst (issue #22): state intervals around the noisy counts before
    // post-processing — a pivot on the noisy value, valid whatever the true counts are. Their
    // bounds reveal those noisy counts, which are the mechanism's differentially private output (so
    // they cost no privacy) but which the post-processing was chosen to replace; hence off by
    // default, and then no interval is stated after resize or NoiseFirst. Ignored for none and
    // clamp.
    bool postProcessedIntervals = false;
    // What ε was chosen on (issue #22, core/choosing/public_proxy.h): "confidential data" or
    // "public proxy: uniform, N = 30000"; recorded in the metadata as given, empty: not recorded.
    std::string epsilonChosenOn;
    // The data are a sample of a population (issue #22; docs/intervals.md, "Sampling error in a
    // release"): its size N as declared by the user (0: not a sample) and the declared design
    // effect D ≥ 1 of the sampling (1: a simple random sample; a survey's documented figure for a
    // weighted one, so that n_eff = n/D, Kish 1965). Both are declared numbers, never computed
    // from the data. Only for discrete-laplace and discrete-gaussian with none or clamp; N ≥ 2·D.
    double samplePopulation = 0;
    double designEffect = 1;
    Status validate() const;
};

// One attribute of a released table (issue #19), as the metadata records it.
struct ReleaseAttribute {
    std::string name;
    std::string binning;  // the declared binning in words ("32 equal-width bins on [0, 24]")
    std::vector<std::string> labels;  // one per bin
    std::vector<double> edges;        // empty for categories and index bins
    bool declared = true;
    bool operator==(const ReleaseAttribute&) const = default;
};

// The intervals a release states (issue #22; computed from the noise law alone, never from the
// data, by core/intervals/release_intervals.h): published ± halfWidth covers the count before
// noise with probability ≥ level for each bin, published ± simultaneousHalfWidth for all bins at
// once.
struct ReleaseIntervalStatement {
    double level = 0.95;
    double halfWidth = 0;
    double coverage = 0;  // the exact coverage at halfWidth (≥ level)
    std::string method;
    double simultaneousHalfWidth = 0;
    std::string simultaneousMethod;
    std::string sentence;  // "With 95 % confidence each published count is within ±7 of …"
    std::string simultaneousSentence;
    // One half-width per published value when they differ (a release through a designed
    // strategy, issue #23: ± H·√(e_jᵀ(KᵀK)⁻¹e_j)); empty: every value has halfWidth. halfWidth is
    // then the largest of them.
    std::vector<double> halfWidths;
    // After resize or NoiseFirst with spec.postProcessedIntervals: the intervals are around the
    // noisy count before post-processing y (HistogramRelease::noisyBeforePostProcessing), widened
    // to hold the published value v: [min(v, max(0, y − h)), max(v, max(0, y + h))]
    // (core/intervals/release_intervals.h, postProcessedBounds).
    bool aroundNoisy = false;
    bool operator==(const ReleaseIntervalStatement&) const = default;
};

// A release measured through a designed strategy (core/matrix_mechanism/strategy_release.h):
// the integer queries K·x were measured with discrete Laplace noise and the published cells are
// their least-squares inference. K's entries are given (factors or marginal weights) so that a
// reader can redo the inference or answer other queries from the measurements.
// One part of a stacked (OPT₊) integer strategy: a p-Identity product or weighted marginals.
struct StrategyPartStatement {
    std::uint64_t rows = 0;
    std::vector<std::vector<std::int64_t>> factorDiagonals;  // as in StrategyReleaseStatement
    std::vector<std::vector<std::int64_t>> factorExtraRows;
    std::vector<std::int64_t> marginalWeights;
    bool operator==(const StrategyPartStatement&) const = default;
};

// One marginal a release through a rank-deficient strategy publishes (issue #23): the sums of
// the cells over every attribute not kept, its cells in C order of the kept attributes; the
// release's values hold the published marginals one after another, in this order.
struct PublishedMarginalStatement {
    std::vector<std::size_t> attributes;  // kept, 0-based, increasing (empty: the grand total)
    std::uint64_t values = 0;             // its cells: the product of the kept attributes' sizes
    bool operator==(const PublishedMarginalStatement&) const = default;
};

struct StrategyReleaseStatement {
    std::string workload;         // the workload it was designed for ("allrange", "marginals:2")
    std::string templateName;     // "OPT₀ p-Identity(16)"
    std::string integerStrategy;  // "⌊64·A⌋: 1 088 rows, Δ1 = 64, Δ2² = …"
    std::int64_t scale = 0;
    std::int64_t strategyL1 = 0;             // Δ1(K), one record changing one cell by one
    std::int64_t strategyL2Squared = 0;      // Δ2(K)²
    std::uint64_t queries = 0;               // the workload's
    double expectedRmse = 0;                 // exact RMSE of the inferred answers to the workload
    double roundingLoss = 0;                 // K's error / A's − 1 (≥ 0 up to rounding)
    std::string inference;                   // "least squares (the published cells are unbiased)"
    std::vector<std::int64_t> measurements;  // K·x + noise, in K's row order
    // p-Identity products: per dimension, the diagonal g (n) and the extra rows T (p × n).
    std::vector<std::vector<std::int64_t>> factorDiagonals;
    std::vector<std::vector<std::int64_t>> factorExtraRows;
    std::vector<std::int64_t> marginalWeights;  // OPT_M: w_a (bit i of a = attribute i kept)
    // OPT₊: every part's entries, K = [K_1; K_2; …] stacked in this order.
    std::vector<StrategyPartStatement> parts;
    // What the values are: "cells" (x̂, K of full column rank), or "workload answers" (K does not
    // determine the cells, the workload's marginals are determined: M_b·x̂ for each marginal b
    // listed in publishedMarginals; the release's values are those, not the cells).
    std::string published = "cells";
    std::vector<PublishedMarginalStatement> publishedMarginals;
    bool operator==(const StrategyReleaseStatement&) const = default;
};

// Sampling error next to DP noise in a release (issue #22; computed by
// core/intervals/release_intervals.h, releaseSamplingIntervals, from the spec and the PUBLISHED
// values only): per bin the population estimate N·v/n̂ and the half-widths of its sampling error,
// of its DP noise (scaled by N/n̂) and of both together, at `level`. n̂ is the sum of the published
// values (clamped to [2·D, N]), so nothing beyond the release is used.
struct ReleaseSamplingStatement {
    double level = 0.95;
    double populationSize = 0;                                 // N, declared
    double designEffect = 1;                                   // D, declared
    double sampleSize = 0;                                     // n̂ from the published values
    std::vector<double> estimates, sampling, noise, combined;  // one per published value
    std::string method;
    std::string sentence;
    bool operator==(const ReleaseSamplingStatement&) const = default;
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
    // Δ2² exactly: cap² for add/remove, 2·cap² for replace (Δ2 = √2·cap).
    std::int64_t l2SensitivitySquared = 1;
    std::string neighbouring;  // neighbouringName
    std::int64_t contributionCap = 1;
    std::vector<std::string> binLabels;
    std::vector<double> binEdges;  // empty for categories
    // A table release (releaseTable): every attribute, in the table's order; the bins above are
    // then the table's cells in C order (the last attribute fastest). Empty for a histogram
    // release (releaseHistogram), whose files keep their one-column form.
    std::vector<ReleaseAttribute> attributes;
    std::string postProcessing;  // estimatorName
    std::string source;
    std::string appVersion;
    std::string timestamp;
    std::string guarantee;           // one plain-language sentence
    std::vector<std::string> notes;  // calibration warnings, clamping of counts above n
    // The intervals (lower/upper columns of the CSV, "intervals" in the JSON); absent when not
    // computed or not stated (resize and NoiseFirst move values by amounts the noise law alone
    // does not bound).
    std::optional<ReleaseIntervalStatement> intervals;
    // A release through a designed strategy (issue #23): what was measured and how the published
    // cells were inferred from it.
    std::optional<StrategyReleaseStatement> strategy;
    std::string epsilonChosenOn;  // ReleaseSpec::epsilonChosenOn ("epsilon_chosen_on" if set)
    // The data declared a sample of a population (ReleaseSpec::samplePopulation): the sampling,
    // DP-noise and combined intervals of the population estimates ("sampling" in the JSON, four
    // more CSV columns); absent otherwise, and the files are as before.
    std::optional<ReleaseSamplingStatement> sampling;
};

struct HistogramRelease {
    // One value per declared bin, after post-processing. Integers for none/clamp (and always for
    // geometric-matrix with none); resize and NoiseFirst may give fractions.
    std::vector<double> values;
    ReleaseMetadata metadata;
    // The noisy counts before post-processing, kept only after resize or NoiseFirst with
    // spec.postProcessedIntervals (the intervals' bounds are around them; issue #22); else empty.
    std::vector<double> noisyBeforePostProcessing;
};

// The privacy cost a spec asks — ε and δ as typed ("0" for pure DP), ρ as an exact fraction (ε²/2
// for pure DP; Δ2²/(2σ²) at the calibrated σ² for the discrete Gaussian) — computed without data or
// randomness, so that a budget can be checked before any noise is drawn. Equal to the epsilon,
// delta and rho of the metadata releaseHistogram returns for the same spec.
struct ReleaseCost {
    std::string epsilon;
    std::string delta;
    std::string rho;
    std::string sigma2;  // discrete-gaussian: the calibrated σ² (exact), else empty
};
Expected<ReleaseCost> releaseCost(const ReleaseSpec& spec);

// δ of a ρ-zCDP mechanism at ε by the conversion of CKS 2020 Corollary 13 (Asoodeh et al.):
// δ = inf_{α>1} exp((α−1)(αρ−ε))/(α−1)·(1−1/α)^α. Every α > 1 gives a valid δ (CKS Prop. 12), so
// the infimum is approached by a golden-section search over ln(α−1) and the value at the α found
// is evaluated in long double, multiplied by 1 + 10⁻⁶ (far above the evaluation's rounding) and
// rounded up to a double: never below the conversion's δ at that α. At most 1. ρ > 0, ε in
// (0, 100].
Expected<double> zcdpDeltaUpperBound(const Rational& rho, const Rational& epsilon);

// The calibration of a discrete-gaussian release of a histogram whose neighbours differ as
// `relation` with at most `cap` rows per person (Δ2² = l2Squared).
//  - add/remove with cap 1 (one bin changes by 1): σ² from calibrateDiscreteGaussian, δ the exact
//    δ(ε) of CKS Thm 7;
//  - otherwise (a change spread over several bins): the discrete Gaussian is ρ-zCDP with
//    ρ = Δ2²/(2σ²) for L2 sensitivity Δ2 (CKS 2020 Thm 14, independent coordinates), and δ is
//    zcdpDeltaUpperBound(ρ, ε). σ² is the largest ρ meeting the target turned into σ² and rounded
//    UP to six significant digits (a larger σ² only lowers ρ and δ); the δ at that exact σ² is
//    computed again and must be ≤ the target, so the guarantee never rests on the search.
// The target δ is the largest double not above `delta`.
struct ReleaseGaussianCalibration {
    Rational sigma2;             // the exact σ² sampled
    Rational rho;                // Δ2²/(2σ²), exact
    std::int64_t l2Squared = 1;  // Δ2²
    double delta = 0;            // δ at ε and σ², rounded up; ≤ the target
    std::string method;          // how δ was obtained, one sentence for the metadata's notes
    std::vector<std::string> warnings;
};
Expected<ReleaseGaussianCalibration> calibrateReleaseGaussian(const Rational& epsilon,
                                                              const Rational& delta,
                                                              Neighbouring relation,
                                                              std::int64_t cap);

// The zCDP branch of calibrateReleaseGaussian for any L2 sensitivity Δ2² ≥ 1 (a vector query,
// e.g. a release through a designed strategy, issue #23): the discrete Gaussian on every
// coordinate is ρ-zCDP with ρ = Δ2²/(2σ²) (CKS 2020 Thm 14), δ by CKS Cor. 13, σ² rounded up to
// six significant digits and checked again. `methodWhat` ends the method sentence ("for replace
// with cap 2"), `errorWhat` names the sensitivity in an error ("with replace neighbours and
// contribution cap 2"), `smallerWhat` what to lower ("a smaller contribution cap").
Expected<ReleaseGaussianCalibration> calibrateGaussianByZcdp(
    const Rational& epsilon, const Rational& delta, std::int64_t l2Squared,
    const std::string& methodWhat, const std::string& errorWhat, const std::string& smallerWhat);

// The law of every bin's noise a spec asks, without data or randomness (the same numbers
// releaseHistogram uses): the discrete Laplace's α = e^(−1/t), t = Δ1/ε; the discrete Gaussian's
// calibrated σ² (as a double, rounded to nearest); the GM matrix's n and the ε per unit it is
// built with.
struct ReleaseNoiseLaw {
    ReleaseMechanism mechanism = ReleaseMechanism::DiscreteLaplace;
    double alpha = 0;
    double sigma2 = 0;
    int groupSize = 0;
    double epsilonPerUnitBuilt = 0;
};
Expected<ReleaseNoiseLaw> releaseNoiseLaw(const ReleaseSpec& spec);

// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utcTimestampNow();

// Validates, verifies (geometric-matrix), draws noise for every bin of `declaredTruth` from
// `randomness` and post-processes. Any failure (bad spec, undeclared bins, a matrix that fails
// the exact check, a randomness error) returns an Error and no values.
Expected<HistogramRelease> releaseHistogram(const ReleaseSpec& spec, const Histogram& declaredTruth,
                                            ReleaseRandomness& randomness);

// The largest table releaseTable accepts, in cells (the histogram limit kMaxBins).
inline constexpr std::uint64_t kMaxReleaseCells = 100000;

// The release of a contingency table (issue #19): one record falls in exactly one cell, so the
// table is a histogram over its cells (tableSensitivity) and releaseHistogram applies to its cells
// flattened in C order (ContingencyTable::toHistogram) with the same Δ1, Δ2, calibration and cost
// (releaseCost of the same spec). Refused when an attribute's bins were not declared (naming it),
// when the table is sparse or has more than kMaxReleaseCells cells. `spec.binsDeclared` is
// ignored: the attributes' declared flags decide. The metadata lists every attribute.
Expected<HistogramRelease> releaseTable(const ReleaseSpec& spec, const ContingencyTable& table,
                                        ReleaseRandomness& randomness);

// The checks releaseTable makes (every attribute declared, dense, at most kMaxReleaseCells) and
// the table's cells as a histogram in C order; the attributes as the metadata lists them. Shared
// with the releases through a designed strategy (core/matrix_mechanism/strategy_release.h).
Expected<Histogram> declaredTableCells(const ContingencyTable& table);
void addTableAttributes(ReleaseMetadata& metadata, const ContingencyTable& table);

// What every release's metadata shares (mechanism name, randomness, ε and δ as typed, the
// histogram's Δ1 and Δ2² for the spec's relation and cap, bins, post-processing, source, version,
// time), and the pieces releases built elsewhere need: the spec's Δ1 (cap, or 2·cap for
// replace), Δ2² (cap², or 2·cap²) and the plain-language phrase for one person.
// Precondition: spec.validate() succeeded.
ReleaseMetadata releaseMetadataCommon(const ReleaseSpec& spec, const Histogram& declaredTruth);
std::int64_t releaseL1Sensitivity(const ReleaseSpec& spec);
std::int64_t releaseL2SensitivitySquared(const ReleaseSpec& spec);
std::string releasePersonPhrase(const ReleaseSpec& spec);

// The exact check of geometric-matrix: every adjacent-column ratio of the column-normalised
// matrix is ≤ a rational lower bound of e^epsilon (a zero facing a non-zero fails). OK or an
// Error naming the first failing row and columns.
// The column sums S_j are the sampler's exact ones (CountMechanismSampler::columnSum).
Status verifyMatrixEpsilon(const CountMechanism& mechanism, const Rational& epsilon);

// A rational lower bound of e^x for 0 ≤ x ≤ 100: a partial sum of the Taylor series (all terms
// positive) with relative error below 2^-80.
Rational expLowerBound(const Rational& x);

}  // namespace dpx
