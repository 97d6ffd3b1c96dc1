// Statistical DP audit (issue #8), in the spirit of StatDP (Ding, Wang, Wang, Zhang & Kifer,
// "Detecting Violations of Differential Privacy", CCS 2018) and Google's DP stochastic tester: run
// a mechanism, as a black box, N times on each of two neighbouring inputs D and D′, and test
// Pr[M(D) ∈ S] ≤ e^ε·Pr[M(D′) ∈ S] + δ (and the same with D and D′ swapped) for candidate events S.
//
// Procedure (StatDP §4: pick the event on one half of the samples, test it on the other):
//  1. Draw N outputs under D and N under D′ from seeded streams (reproducible for a seed).
//  2. Selection half (the first N/2 of each): for every candidate event and both directions, score
//     the event by the ε lower bound ln((p_lo − δ)/p′_hi) that the test would report if the test
//     half looked like the selection half (Clopper–Pearson at the test's confidence 1 − α/4, so
//     lucky rare events do not win); keep the best event of each direction.
//  3. Test half (the other N/2, independent of the choice): for each direction's event, the exact
//     one-sided Clopper–Pearson lower bound p_lo of the left side and upper bound p′_hi of the
//     right side, each at confidence 1 − α/4. A violation is proven when p_lo − δ > e^ε·p′_hi.
// False alarm: for an (ε, δ)-DP mechanism and any fixed event, p_lo − δ > e^ε·p′_hi requires
// p_lo > p or p′_hi < p′, which has probability ≤ α/4 + α/4; over the two directions ≤ α. The
// selection looks only at the first half, so no further multiple-testing correction is needed.
// The audit can prove a violation; "passed" only means none was found for these inputs, events
// and N (a lower bound on ε, never an upper bound).
//
// Candidate events on a real output y (integers are doubles, exact below 2^53):
//  - thresholds {y ≤ t} and {y ≥ t}: at every distinct selection-half value when there are at most
//    kAuditMaxDistinctValues of them (integer-valued mechanisms), else at a grid of quantiles of
//    the pooled selection half;
//  - points {y = t} at the same values (integer-valued mechanisms only);
//  - low-order bits: v(y) is the exponent of y's lowest set bit (y = m·2^v, m odd; v(0) = +∞),
//    with events {v(y) ≤ t} and {v(y) ≥ t}. Floating-point noise is porous (Mironov, "On
//    Significance of the Least Significant Bits for Differential Privacy", CCS 2012): h + X
//    rounds to a coarser grid than X alone, so "finer low-order bits than 2^-53" can happen under
//    D = 0 and never under D′ = 1;
//  - observed-only sets: the exact doubles seen under one input and never under the other, built
//    from the first quarter of the samples and scored on the second quarter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/simulation_rng.h"
#include "core/base/stop_token.h"
#include "core/release/release_rng.h"

namespace dpx {

// Threshold events are put at every distinct value up to this many distinct values.
inline constexpr std::size_t kAuditMaxDistinctValues = 4096;
// Largest N per input: the audit keeps 2N doubles plus sorted copies of half of them, about
// 24·N bytes (480 MB at the limit).
inline constexpr std::uint64_t kAuditMaxSamples = 20000000;

// Exact one-sided Clopper–Pearson bounds for a binomial proportion from k successes in n trials:
// lower = the (α)-quantile of Beta(k, n − k + 1) (0 when k = 0), upper = the (1 − α)-quantile of
// Beta(k + 1, n − k) (1 when k = n), so Pr[lower > p] ≤ α and Pr[upper < p] ≤ α for every p
// (Clopper & Pearson, Biometrika 1934). Boost.Math ibeta_inv/ibetac_inv. Errors: n = 0, k > n,
// α outside (0, 1) or NaN.
Expected<double> clopperPearsonLower(std::uint64_t k, std::uint64_t n, double alpha);
Expected<double> clopperPearsonUpper(std::uint64_t k, std::uint64_t n, double alpha);

// The randomness an audited mechanism draws from: one seeded xoshiro256** stream (SimulationRng)
// per input, usable both as a SimulationRng (floating-point mechanisms) and as RandomBits (the
// exact samplers of core/release/exact_samplers.h). NOT DIFFERENTIALLY PRIVATE: the seed fixes
// every output, which is what makes an audit reproducible. The release entry points take
// ReleaseRandomness& only, so this type cannot reach a release.
class AuditRandomness final : public RandomBits {
public:
    AuditRandomness(std::uint64_t seed, std::uint64_t stream) : rng_(seed, stream) {}
    Expected<std::uint64_t> next64() override { return rng_.next(); }
    SimulationRng& simulation() { return rng_; }

private:
    SimulationRng rng_;
};

// The mechanism under audit, M(input) → one real output. An Error stops the audit. A mechanism
// with vector output is audited through a scalar post-processing of it (e.g. the differing bin),
// which is ε-DP whenever the mechanism is.
using AuditMechanism =
    std::function<Expected<double>(const std::vector<std::int64_t>& input, AuditRandomness& rng)>;

// Which candidate event families to search (see the file comment).
struct AuditEventFamilies {
    bool thresholds = true;
    bool points = true;  // only used when the outputs take at most kAuditMaxDistinctValues values
    bool lowOrderBits = false;
    bool observedOnly = true;
};

struct AuditParams {
    double epsilon = 1;  // claimed ε > 0, finite
    double delta = 0;    // claimed δ in [0, 1)
    // N outputs per input (half select, half test); 1000 ≤ N ≤ kMaxAuditSamples, even.
    std::uint64_t samplesPerInput = 200000;
    // Probability bound of a false alarm for an (ε, δ)-DP mechanism, in (0, 0.5].
    double alpha = 1e-7;
    std::uint64_t seed = 1;
    AuditEventFamilies families;
    // Quantile grid of threshold events for outputs with many distinct values, 8 to 10^5.
    std::size_t thresholdGrid = 512;
    Status validate() const;
};

enum class AuditEventKind {
    AtMost,          // y ≤ t
    AtLeast,         // y ≥ t
    Equal,           // y = t
    LowBitsAtMost,   // v(y) ≤ t
    LowBitsAtLeast,  // v(y) ≥ t
    ObservedOnlyD,   // y among the values seen under D (first quarter) and never under D′
    ObservedOnlyDp,  // y among the values seen under D′ (first quarter) and never under D
};

struct AuditEvent {
    AuditEventKind kind = AuditEventKind::AtMost;
    double threshold = 0;  // t; for ObservedOnly*: the size of the set
    // e.g. "y <= 3", "lowest set bit of y at or below 2^-54", "y in 5123 values seen only under D".
    std::string describe() const;
};

// One direction of the test on the test half: left = the input whose probability must be bounded,
// Pr[M(left) ∈ S] ≤ e^ε·Pr[M(right) ∈ S] + δ.
struct AuditDirection {
    bool leftIsFirst = true;  // true: left = D, right = D′
    AuditEvent event;
    bool found = false;  // false when no candidate event had any evidence on the selection half
    std::uint64_t leftCount = 0, rightCount = 0, n = 0;  // test-half counts of S, n per input
    double leftLower = 0;  // Clopper–Pearson lower bound of Pr[M(left) ∈ S], confidence 1 − α/4
    double rightUpper = 1;      // upper bound of Pr[M(right) ∈ S], confidence 1 − α/4
    double selectionScore = 0;  // the ε lower bound the event had on the selection half
    // ln((leftLower − δ)/rightUpper), a lower bound on the mechanism's ε at confidence 1 − α/2
    // (the larger of the two directions' bounds, AuditResult::tightest(), at confidence 1 − α);
    // 0 when leftLower ≤ δ (no evidence).
    double epsilonLowerBound = 0;
    bool violation = false;  // leftLower − δ > e^ε·rightUpper
};

struct AuditResult {
    bool violationFound = false;
    AuditDirection directions[2];  // [0]: D over D′, [1]: D′ over D
    // The direction with the larger epsilonLowerBound (the violating one if any).
    const AuditDirection& tightest() const;
    std::uint64_t samplesPerInput = 0;
    double alpha = 0;
    double epsilon = 0, delta = 0;
    std::size_t candidateEvents = 0;  // per direction
    bool integerValued = false;       // every selection-half output an integer (then point events)
    std::vector<std::string> warnings;
};

// Runs the audit. `first` = D, `second` = D′ (neighbouring under the relation the claimed
// (ε, δ) refers to). Input streams: D uses (seed, 0), D′ uses (seed, 1). Errors: invalid params,
// empty mechanism, a mechanism Error or non-finite output, stop requested. `progress` receives the
// fraction of samples drawn.
Expected<AuditResult> runDpAudit(const AuditMechanism& mechanism,
                                 const std::vector<std::int64_t>& first,
                                 const std::vector<std::int64_t>& second, const AuditParams& params,
                                 std::stop_token stop = {}, const ProgressCallback& progress = {});

}  // namespace dpx
