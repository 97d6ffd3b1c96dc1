// Privacy–accuracy trade-off (issue #6, "Trade-off tab"): expected error as a function of ε for a
// configuration (mechanism × estimator × metric × scale), the lower envelope across
// configurations (the frontier, as on DPComp.org), scaling a histogram to a population size N, and
// the accuracy-first inverse (the smallest ε meeting a target). No Qt.
//
// Exact where possible, Monte Carlo otherwise:
//  * noise per bin (Laplace, geometric, Gaussian): exactExpectedError where exactMethodAvailable
//    says so, else monteCarloExpectedError (mean and 95% interval). Every ε uses the same seed:
//    common random numbers across the grid, so a Monte Carlo curve is smooth in ε;
//  * count mechanisms (GM, EM, LP-optimal; n = the largest count unless set): every bin is drawn
//    independently from the column of its true count, so identity/clamp (outputs lie in 0…n and
//    clamping changes nothing) have exact SSE and L1 from the per-bin error laws
//    (inputErrorDistribution: Σ_i E[e_i²], Σ_i E|e_i|) and exact L∞ as Σ_{t≥0} (1 − Π_i
//    Pr[|e_i| ≤ t]); W1 and resize are Monte Carlo. LP matrices over the grid come from one
//    warm-started designCountMechanismSweep;
//  * local frequency oracles (Local, issue #7; core/ldp/protocols.h): see "Local protocols" below;
//  * sparse histograms (SparseThreshold, issue #9; seed 003 §2.4.1,
//  core/mechanisms/sparse_histogram.h):
//    Laplace noise of scale b = Δ1/ε in every bin, then 0 released wherever h + L ≤ τ = b·ln p
//    (p = the number of bins), then the estimator. Under replace-one neighbours (Δ1 = 2) this is
//    exactly the seed's mechanism (b = 2/ε, τ = (2/ε)·ln p); under add/remove the noise is the
//    Laplace row's, so the two rows compare at the same guarantee (ε-DP: thresholding at a τ
//    fixed by ε, Δ1 and p is post-processing). The seed's comparison, Laplace with negatives
//    clamped, is the Laplace row with the clamp estimator. L1 with identity (or clamp, which
//    changes nothing: released values are > τ ≥ 0) is exact, the sum of
//    sparseCellExpectedL1 over the bins; every other metric or estimator is Monte Carlo (trial t
//    draws on SimulationRng(seed, t), the same at every ε). NoiseFirst is refused.
//
// Local protocols. Every bin is a value of the domain {0, …, D−1} (D = the number of bins) and its
// count the number of users holding that value, so N = the histogram's total. Each user sends one
// ε-LDP report; the collector's unbiased estimate f̂ is released as the histogram N·f̂ (counts
// scale; f̂ on the frequency scale, which the metrics' division by N gives), after the estimator:
// identity (f̂ as is), clamp (negative frequencies → 0) or resize (the Euclidean projection onto
// the simplex with the KNOWN total, Σ = 1, i.e. N on the counts scale:
// ldp::FrequencyPostProcess::Simplex). NoiseFirst is refused (its noise model is one variance in
// every bin; an oracle's variance depends on the bin's frequency). Identity with SSE is exact:
// E[SSE] = Σ_j Var[f̂_j] (×N² on the counts scale) with ldp::estimatorVariance, the exact variance
// of the estimator. Everything else is Monte Carlo over ldp::simulateAggregate (exact in law for
// RR, GRR, OUE, SUE and HRR; OLH with an idealised random hash and dBitFlip with independent
// buckets have exact per-bin laws but not the small correlations between bins — see ldp.h),
// trial t with seed splitmix(seed ⊕ splitmix(t)) at every ε (common random numbers), trials
// split into fixed blocks over `threads` so the result does not depend on the thread count.
//
// Privacy of a local point, stated precisely: the randomiser R of one user is ε-LDP, i.e.
// Pr[R(v) ∈ S] ≤ e^ε·Pr[R(v′) ∈ S] for all values v, v′ and report sets S (Kasiviswanathan et al.
// 2008; seed 002, "local DP"). With independent randomness per user, the reports of two datasets
// of N users that differ in ONE user's value have likelihoods whose ratio is that one user's
// factor, so the collection — and by post-processing the released estimate — is ε-DP for
// replace-one neighbours (in histogram terms: one count moves from one bin to another, L1
// distance 2). It does not hide participation (add/remove neighbours): the collector sees N
// reports. So TradeoffConfig::sensitivity (the central model's neighbouring relation) is not used
// by local configurations; the central mechanism that gives the same guarantee is the one
// calibrated for replace-one neighbours (Δ1 = 2).
//
// Workload algorithms (issue #20; core/algorithms, the DPBench family of Hay, Machanavajjhala,
// Miklau, Chen & Zhang, SIGMOD 2016): a configuration can be one of the registry's algorithms
// (Identity, H2, HB, Privelet, GreedyH, Uniform, DAWA, AHP, MWEM, PHP, EFPA, StructureFirst,
// DPCube; 2-D HB2D, Privelet2D, QuadTree, UGrid, AGrid, DAWA2D), named "algo:ID" with the
// registry's id in lower case and any parameter overrides, "algo:mwem(rounds=20)". The
// histogram's bins are the algorithm's data vector x over `cellShape` (empty: 1-D, one cell per
// bin; a 2-D table flattened in C order gives {rows, columns}); the algorithm is told the
// identity workload (every cell), the workload the tab's metrics judge; its estimate x̂ is
// compared with x by the configuration's metric (SSE, L1, L∞, W1 on the counts or frequency
// scale). Exact where it is: the data-independent algorithms answered by least squares (Identity,
// H2, HB, Privelet, GreedyH at its default parameters, HB2D, Privelet2D, QuadTree) have
// E[SSE] = E‖x̂ − x‖² = 2b²·trace((AᵀA)⁻¹), b = Δ₁(A)/ε (core/workload/strategy.h
// expectedLeastSquaresError on the identity workload; Li, Miklau, Hay, McGregor & Rastogi 2015);
// every other metric and every data-dependent algorithm is Monte Carlo: `algorithmTrials` runs
// per point by algorithmError (core/algorithms/algorithm_error.h, the trials engine; run t draws
// from stream t of the seed, the same at every ε), mean ± 1.96 standard errors. The algorithms
// are pure ε-DP (no δ) for add/remove-one-record neighbours with every record in one cell, so a
// histogram of another sensitivity (replace-one, several bins per record) is refused; those whose
// reference code treats the data size as public (AlgorithmInfo::totalIsPublic: StructureFirst,
// UGrid, AGrid, MWEM) are ε-DP only with the total N public, which the window and docs say. The
// accuracy-first solver works on the exact ones (SSE) and refuses the others (read the curve).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/accuracy/metrics.h"
#include "core/base/expected.h"
#include "core/base/noise_distribution.h"
#include "core/base/stop_token.h"
#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"
#include "core/estimators/estimator.h"
#include "core/histogram/histogram.h"
#include "core/ldp/protocols.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/mechanism_id.h"

namespace dpx {

enum class TradeoffMechanism {
    Laplace,            // Laplace(Δ1/ε) per bin
    Geometric,          // discrete Laplace α = e^(−ε/Δ1) per bin
    Gaussian,           // N(0, σ²) per bin, σ from (ε, δ, Δ2) and the calibration
    CountGeometric,     // GM matrix, truncatedGeometric(n, ε)
    CountExplicitFair,  // EM matrix, explicitFair(n, ε)
    CountOptimal,       // LP-designed matrix (count_lp.h), objective in `lp`
    Local,              // local-DP frequency oracle (core/ldp/protocols.h), protocol in `local`
    SparseThreshold,    // Laplace(Δ1/ε) per bin, then 0 where h + L ≤ (Δ1/ε)·ln p (seed 003)
    Algorithm,          // a workload algorithm of core/algorithms (issue #20), id in `algorithm`
};

// "laplace", "geometric", "gaussian", "gm", "em", "optimal", "local", "sparse", "algo".
const char* tradeoffMechanismName(TradeoffMechanism m);
bool isCountTradeoffMechanism(TradeoffMechanism m);
bool isLocalTradeoffMechanism(TradeoffMechanism m);  // Local
// The per-bin additive mechanism (core/mechanisms/mechanism_id.h) that Laplace, Geometric and
// Gaussian are; std::nullopt for the count, local and sparse mechanisms. The one conversion
// between the two enums; the three shared names are MechanismKind's.
std::optional<MechanismKind> additiveMechanismOf(TradeoffMechanism m);

// The name of a local protocol in configuration names and labels: ldp::protocolName with
// dBitFlip's number of bits d appended — "rr", "grr", "oue", "sue", "olh", "hrr", "dbitflip1",
// "dbitflip2", … (only protocol and bits are used).
std::string localProtocolConfigName(const ldp::ProtocolSpec& spec);
// The inverse, lower case only: one of the names above, "dbitflipD" with D a whole number ≥ 1
// ("dbitflip" alone is d = 1). Sets protocol and bits; ε and the domain are left at their
// defaults (they are set per point and from the histogram). Errors name the accepted forms.
Expected<ldp::ProtocolSpec> localProtocolFromConfigName(const std::string& name);

// The name of a workload-algorithm configuration: "algo:" + the registry id in lower case, then
// the parameter overrides in name order, "algo:mwem(ratio=0.5,rounds=20)" (none: "algo:dawa").
std::string algorithmConfigName(const std::string& id,
                                const std::map<std::string, double>& parameters);
// True for text starting "algo:".
bool isAlgorithmConfigName(std::string_view text);

struct TradeoffConfig {
    TradeoffMechanism mechanism = TradeoffMechanism::Laplace;
    double delta = 1e-6;  // Gaussian only, in (0, 1)
    GaussianCalibration calibration = GaussianCalibration::Analytic;
    // Noise per bin: the histogram's sensitivity (default: add/remove, one record in one bin).
    // Count mechanisms treat each bin as a count query with Δ = 1 and require l1 == 1.
    Sensitivity sensitivity{1, 1, true};
    // Count mechanisms: n (the matrix is (n+1)×(n+1)); 0 = the largest true count (at least 1).
    int countPeople = 0;
    // CountOptimal: the LP (n and epsilon are set per point; cost, aggregate, weights,
    // constraints, minDiagonal and the time limit are used as given).
    CountLpSpec lp;
    // Local: the protocol, and d for dBitFlip (`bits`). Its `epsilon` is set per point and its
    // `domain` to the histogram's number of bins, so the values stored there are ignored.
    // `sensitivity`, `delta`, `calibration`, `countPeople` and `lp` do not apply (see the top of
    // this file for the privacy guarantee of a local point).
    ldp::ProtocolSpec local;
    // Algorithm: the registry id (findAlgorithm; any case), the parameter overrides by name, and
    // the shape of the histogram's cells (empty: 1-D; else the product must equal the bins). The
    // estimator must be Identity (the algorithms do their own inference) and the sensitivity
    // add/remove with one record in one bin (Δ1 = 1); `delta`, `countPeople`, `lp`, `local` do
    // not apply.
    std::string algorithm;
    std::map<std::string, double> algorithmParameters;
    std::vector<std::size_t> cellShape;
    EstimatorKind estimator = EstimatorKind::Identity;
    MetricSpec metric;
    std::string label;  // shown in results; empty: defaultLabel()
    // e.g. "laplace:clamp", "optimal(l1):identity"; local: "oue:identity", "dbitflip2:clamp";
    // algorithms: algorithmConfigName, "algo:dawa".
    std::string defaultLabel() const;
    std::string name() const { return label.empty() ? defaultLabel() : label; }
    Status validate() const;
};

// The inverse: a configuration with mechanism Algorithm (its id as the registry spells it, the
// overrides checked against the algorithm's parameters). Errors: not "algo:ID[(NAME=VALUE,…)]",
// unknown id (the message lists the known ones), unknown parameter or value out of range.
Expected<TradeoffConfig> algorithmConfigFromName(const std::string& text);
// Whether the curve of a workload-algorithm configuration is exact (data-independent least
// squares, SSE, no parameter overrides); false for every other configuration.
bool algorithmExactAvailable(const TradeoffConfig& config);

struct CurvePoint {
    double epsilon = 0;
    double value = 0;  // NaN when the point is missing (see method)
    double ciLow = 0;  // 95% interval; equal to value for exact points
    double ciHigh = 0;
    std::string method;  // "exact (closed form)", "Monte Carlo", or "unavailable: <reason>"
    bool exact = false;
    std::uint64_t trials = 0;  // Monte Carlo only
    bool valid() const;        // value finite
};

struct ErrorCurve {
    std::string label;
    std::vector<CurvePoint> points;  // in the order of the grid
    bool cancelled = false;          // points not computed are missing ("unavailable: cancelled")
};

struct CurveOptions {
    std::uint64_t trials = 20000;  // Monte Carlo trials per point
    std::uint64_t seed = 1;
    unsigned threads = 0;       // noise-per-bin and local Monte Carlo (0: all cores)
    ProgressCallback progress;  // fraction of the points done
    std::stop_token stop;
    bool forceMonteCarlo = false;  // skip the exact methods (to compare the two)
    // Workload algorithms: runs per Monte Carlo point (one run can take a data-dependent
    // partition search, so far fewer than `trials`), 2 ≤ algorithmTrials ≤ 10^6.
    std::uint64_t algorithmTrials = 100;
};

// `epsilons`: positive and finite, any order (points come back in that order). Errors are for bad
// input only; a point that cannot be computed (e.g. an infeasible LP at small ε) is reported
// missing with its reason.
Expected<ErrorCurve> errorCurve(const Histogram& truth, const TradeoffConfig& config,
                                std::span<const double> epsilons, const CurveOptions& options);

// The ε grid of a curve: dpx::logSpaced (core/base/validation.h), interior points rounded to 12
// significant digits.
Expected<std::vector<double>> logSpacedEpsilons(double lo, double hi, std::size_t count);

// ---------------------------------------------------------------------------------------------
// Frontier

struct FrontierPoint {
    double epsilon = 0;
    double value = 0;
    std::size_t curve = 0;  // index into the curves
    bool interpolated = false;
};

// A maximal run of the frontier won by one curve. The boundary between two segments is the
// crossing of the two curves, found by linear interpolation in log–log between the grid points on
// either side (in log ε and linear value if a value there is ≤ 0).
struct FrontierSegment {
    std::size_t curve = 0;
    std::string label;
    double epsilonFrom = 0;
    double epsilonTo = 0;
};

struct Frontier {
    std::vector<FrontierPoint> points;  // at every ε of the union of the grids, increasing
    std::vector<FrontierSegment> segments;
};

// The value of a curve at ε: its point if one lies at ε, else linear interpolation in
// (log ε, log value) between the nearest valid points on either side (in log ε and linear value if
// either value is ≤ 0). Missing points are skipped (interpolated across); outside the range of the
// curve's valid points it is undefined (NaN): no extrapolation.
double curveValueAt(const ErrorCurve& curve, double epsilon, bool* interpolated = nullptr);

// Lower envelope: at every ε of the union of the curves' grids, the curve with the lowest value
// (curveValueAt; ties, values within relative `tieTolerance`, go to the first curve). An ε where
// no curve is defined is left out. LP-designed matrices carry a repair error of ~1e-8 relative, so
// an LP optimum equal to GM in exact arithmetic may lose or win a tie by that much: raise the
// tolerance to treat such curves as equal.
Frontier lowerEnvelope(std::span<const ErrorCurve> curves, double tieTolerance = 1e-12);

// Monte Carlo noise must not pick the winner: at a frontier point whose winner's value and another
// curve's lie within their combined 95% half-widths (max distance from the value to the ends of
// its interval; 0 for exact points) and at least one of the two is Monte Carlo, the point goes
// to the preferred of the tied curves: exact before Monte Carlo, then the lower index. Segments
// are rebuilt from the runs; a boundary keeps the envelope's interpolated crossing where one lies
// between the two grid points, else it is the first ε of the new run. Point values are kept (the
// envelope), only the attribution changes. `frontier` must come from lowerEnvelope(curves).
Frontier resolveStatisticalTies(std::span<const ErrorCurve> curves, Frontier frontier);

// ---------------------------------------------------------------------------------------------
// Population scaling

// The counts scaled to total N with the same shape: quotas q_i = N·c_i/T (T = Σc) computed exactly
// in integers, each bin gets ⌊q_i⌋, and the N − Σ⌊q_i⌋ remaining units go one each to the bins
// with the largest remainders (ties: lower index first) — Hamilton's largest-remainder method, so
// the total is exactly N and every count is within 1 of its quota. Labels and edges are kept.
// Requires T > 0 and 0 ≤ N ≤ 1e15.
Expected<Histogram> scaleToPopulation(const Histogram& truth, std::int64_t population);

struct PopulationPoint {
    std::int64_t population = 0;
    CurvePoint point;
};
// Error at one ε against N: the truth scaled to every N (scaleToPopulation), then one point each.
// Errors: bad configuration or ε, N < 1. A size the configuration cannot handle (a count
// mechanism whose largest scaled bin exceeds kMaxCountPeople) gives a missing point with the
// reason. Local configurations: N is the number of users, so the frequency-scale error of an
// unbiased oracle falls like 1/√N (identity SSE × N is constant: Σ_j Var[f̂_j] ∝ 1/N).
Expected<std::vector<PopulationPoint>> errorVsPopulation(const Histogram& truth,
                                                         const TradeoffConfig& config,
                                                         double epsilon,
                                                         std::span<const std::int64_t> populations,
                                                         const CurveOptions& options);

// ---------------------------------------------------------------------------------------------
// Accuracy first

struct EpsilonSolution {
    double epsilon = 0;  // smallest ε in the range meeting the target (relative tolerance 1e-6)
    double value = 0;    // the error (or per-bin probability) at that ε
    int evaluations = 0;
    std::string method;
};

// The smallest ε in [lo, hi] whose exact expected error is ≤ target. Bisection in log ε on the
// exact error, which is decreasing in ε for these mechanisms; that is checked numerically on 17
// log-spaced points of the bracket and the call refused if it does not hold. Errors: no exact
// method for the configuration, unreachable target ("even ε = 20 gives 3.1 > 2.5"), bad range.
// If the error at lo already meets the target, lo is returned.
// Local configurations: identity with SSE only (the others are Monte Carlo and refused like any
// configuration without an exact method). OLH's hash range g = round(e^ε + 1) is an integer, so
// its exact SSE is decreasing in ε only between the switches of g (e^ε = g − ½) and jumps up at
// most of them: the smallest ε is found piece by piece (see tradeoff.cpp), not by one bisection.
// Workload algorithms: the data-independent least-squares ones with SSE (at default parameters for
// GreedyH); a data-dependent algorithm or another metric is refused with the reason (its curve is
// Monte Carlo: read the ε off the curve).
Expected<EpsilonSolution> smallestEpsilonFor(double target, const TradeoffConfig& config,
                                             const Histogram& truth, double lo, double hi);

// Pr[|Z| ≤ k] for the per-bin noise of the configuration at ε (noise-per-bin mechanisms only;
// count matrices and local protocols are refused):
// Laplace 1 − e^(−k/b); geometric 1 − 2α^(⌊k⌋+1)/(1+α); Gaussian erf(k/(σ√2)).
Expected<double> perBinWithinProbability(const TradeoffConfig& config, double epsilon, double k);

// "Each bin within ±k with probability ≥ q" (for each bin separately, not simultaneously): the
// smallest ε in [lo, hi] with Pr[|Z| ≤ k] ≥ q. Laplace in closed form, ε = Δ1·ln(1/(1−q))/k;
// geometric and Gaussian by bisection in log ε on the closed-form probability (tolerance 1e-6).
// Requires k > 0, q in (0, 1).
Expected<EpsilonSolution> smallestEpsilonPerBin(double k, double q, const TradeoffConfig& config,
                                                double lo, double hi);

}  // namespace dpx
