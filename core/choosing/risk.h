// Disclosure risk under (ε, δ)-DP (issue #6, Risk tab): what an attacker can learn about one
// person.
//
// Setting (seed 003 §1.2, Prop 1.2.2): the attacker knows everything except whether one person's
// record is in the data (dataset D) or not (a neighbouring D'), holds a prior p = P(D), sees the
// output and either updates a belief (posterior) or runs a test (false-positive rate α = accusing a
// non-member, false-negative rate β = missing a member). (ε, δ)-DP says P_D(S) ≤ e^ε P_D'(S) + δ
// and the same with D, D' swapped, for every set of outputs S.
//
//  - Posterior, pure DP: posterior odds ≤ e^ε · prior odds, for every output (Dwork & Roth 2014
//    §2.3; Kasiviswanathan & Smith 2014).
//  - Posterior, δ > 0: no bound holds for every output (an output of probability ≤ δ may reveal
//    everything), so posteriorBound() gives a bound that holds except on outputs of total
//    probability ≤ failureProbability (derivation at posteriorBound), and
//    posteriorGivenAccusation() the worst case over all events of a given false-positive rate.
//  - Test region: β ≥ f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} (seed 003 Prop 1.2.2
//    and its symmetric counterpart; Kairouz, Oh & Viswanath 2015 §2; Dong, Roth & Su 2022 §2).
//  - Gaussian mechanism: the exact trade-off curve G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), μ = Δ2/σ (Dong,
//    Roth & Su 2022, "Gaussian differential privacy", JRSS B, §2).
//  - Groups of k people: chaining k neighbours (Dwork & Roth 2014 Thm 2.2 for pure DP; Vadhan 2017
//    "The complexity of differential privacy" §2 for (ε, δ)).
//  - Membership inference: the tracing attack of seed 004 §3.2 simulated on a noisy mean.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/validation.h"
#include "core/mechanisms/vector_mechanisms.h"

namespace dpx {

// A privacy level for the risk views: ε finite and > 0, δ in [0, 1] (0 = pure ε-DP). δ = 1 is a
// vacuous guarantee; it is allowed because derived levels (groups) can reach it, while user input
// is checked against δ < 1 by validateUserLevel().
struct PrivacyLevel {
    double epsilon = 1;
    double delta = 0;
    Status validate() const;
};
// The rule for levels typed by a user: ε finite > 0, δ in [0, 1).
Status validateUserLevel(const PrivacyLevel& level);
// A prior probability must lie in the open interval (0, 1).
Status validatePrior(double prior);

// A point of a plotted curve (posterior, test region, ROC). Not tradeoff.h's CurvePoint.
struct XYPoint {
    double x = 0;
    double y = 0;
};

// ---- Posterior ---------------------------------------------------------------------------------

// e^ε p / (e^ε p + 1 − p): the largest posterior P(D | output) under pure ε-DP, for every output.
// Unchecked kernel: p in [0, 1], ε ≥ 0 (ε = ∞ gives 1 for p > 0).
double posteriorMaxPure(double prior, double epsilon);

// Default slack t in posteriorBound: ε' = ε + ln 2, i.e. posterior odds at most 2·e^ε·prior odds,
// except with probability ≤ 2δ.
inline constexpr double kDefaultPosteriorSlack = std::numbers::ln2;

struct PosteriorBound {
    double posterior = 1;           // bound on P(D | output)
    double epsilonEffective = 0;    // ε' with posterior odds ≤ e^{ε'} · prior odds
    double failureProbability = 0;  // the bound may fail on outputs of total probability ≤ this
    std::string interpretation;     // one sentence for the user
};

// The largest posterior P(D | output) for prior p at (ε, δ).
//   δ = 0: posteriorMaxPure(p, ε), for every output (failureProbability 0).
//   δ > 0 (derivation): let ε' = ε + t (t = slack > 0) and B = {o : P_D(o) > e^{ε'} P_D'(o)}.
//     (ε, δ)-DP on S = B gives P_D(B) ≤ e^ε P_D'(B) + δ < e^{ε − ε'} P_D(B) + δ, so
//     P_D(B) < δ / (1 − e^{−t}), and P_D'(B) < e^{−ε'} P_D(B) is smaller still. Outside B the
//     likelihood ratio is ≤ e^{ε'}, so the posterior is ≤ posteriorMaxPure(p, ε'). Hence: whichever
//     of D, D' is true, with probability ≥ 1 − δ/(1 − e^{−t}) over the mechanism's randomness the
//     posterior is at most e^{ε'} p / (e^{ε'} p + 1 − p). (The argument of Kasiviswanathan & Smith
//     2014, "On the semantics of DP", with the slack made explicit.) If δ/(1 − e^{−t}) ≥ 1 the
//     bound is vacuous and the result is posterior 1 with failure probability 1.
// Errors: level invalid, p ∉ (0, 1), slack not finite or ≤ 0 (ignored when δ = 0).
Expected<PosteriorBound> posteriorBound(double prior, const PrivacyLevel& level,
                                        double slack = kDefaultPosteriorSlack);

// Worst case over events: the largest P(D | S) over all sets of outputs S with P_D'(S) = α
// (an attacker's "member" verdict with false-positive rate α): the verdict's true-positive rate is
// at most 1 − f_{ε,δ}(α), so P(D | S) ≤ p(1 − f(α)) / (p(1 − f(α)) + (1 − p) α).
// For δ = 0 and every α this is ≤ posteriorMaxPure; for δ > 0 it tends to 1 as α → 0.
// Errors: level or p invalid, α ∉ (0, 1].
Expected<double> posteriorGivenAccusation(double prior, const PrivacyLevel& level,
                                          double falsePositiveRate);

// posteriorBound over `points` ≥ 2 priors evenly spaced in the open interval (0, 1):
// p_i = (i + 1)/(points + 1); y = bound.posterior.
Expected<std::vector<XYPoint>> posteriorOverPrior(const PrivacyLevel& level, std::size_t points,
                                                  double slack = kDefaultPosteriorSlack);
// posteriorBound for fixed p and δ over the given ε values (x = ε).
Expected<std::vector<XYPoint>> posteriorOverEpsilon(double prior, double delta,
                                                    const std::vector<double>& epsilons,
                                                    double slack = kDefaultPosteriorSlack);

// Log-spaced ε grids: dpx::logSpaced in core/base/validation.h.

// ---- Hypothesis testing
// --------------------------------------------------------------------------

// f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}: the smallest false-negative rate of any
// test of D' against D with false-positive rate α. Unchecked kernel: α in [0, 1], ε ≥ 0, δ ≥ 0.
double tradeoffEpsDelta(double epsilon, double delta, double alpha);

// The boundary of the achievable region {(α, β) : β ≥ f_{ε,δ}(α)} as a polyline (x = α, y = β):
// `points` ≥ 2 evenly spaced α in [0, 1] plus the kinks α = (1 − δ)/(1 + e^ε) and α = 1 − δ,
// sorted by α. f is piecewise linear, so the polyline is exact.
Expected<std::vector<XYPoint>> testRegionBoundary(const PrivacyLevel& level, std::size_t points);

// Largest area under an ROC curve (TPR = 1 − FNR against FPR) of any attacker at (ε, δ):
// 1 − ∫₀¹ f_{ε,δ}(α) dα (exact: f is piecewise linear). 1/2 = guessing.
Expected<double> maxAuc(const PrivacyLevel& level);

// G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022 §2): the exact trade-off of the
// Gaussian mechanism, μ = Δ2/σ. Unchecked kernel: α in [0, 1], μ ≥ 0.
double gaussianTradeoff(double mu, double alpha);
// G_μ at `points` ≥ 2 evenly spaced α in [0, 1]. Errors: μ not finite or < 0.
Expected<std::vector<XYPoint>> gaussianTradeoffCurve(double mu, std::size_t points);

// ---- Groups
// --------------------------------------------------------------------------------------

enum class GroupBound {
    // (kε, k e^{(k−1)ε} δ): the textbook form (Vadhan 2017 §2; Dwork & Roth 2014 Thm 2.2 for δ =
    // 0).
    Textbook,
    // (kε, δ (e^{kε} − 1)/(e^ε − 1)) = (kε, δ Σ_{j<k} e^{jε}): the exact result of chaining the
    // (ε, δ) inequality along k neighbours; never larger than Textbook.
    Chain,
};
const char* groupBoundName(GroupBound b);  // "textbook" / "chain"

struct GroupPrivacy {
    unsigned k = 1;
    double epsilon = 0;
    double delta = 0;  // may exceed 1 (then the guarantee is vacuous)
    GroupBound bound = GroupBound::Textbook;
    // The level to draw with: δ replaced by min(δ, 1) (any δ ≥ 1 says nothing, exactly as δ = 1).
    PrivacyLevel level() const;
    bool vacuous() const { return delta >= 1; }
};

// Datasets differing in k people's records (k ≥ 1) under an (ε, δ)-DP mechanism. For the
// Gaussian mechanism the exact group trade-off is G_{kμ} (Dong, Roth & Su 2022, group privacy),
// tighter than either bound. Errors: level invalid, k < 1.
Expected<GroupPrivacy> groupPrivacy(const PrivacyLevel& level, unsigned k,
                                    GroupBound bound = GroupBound::Textbook);

// ---- Membership-inference demonstration (seed 004 §3.2, the tracing attack)
// -----------------------

// Population: μ ~ U[−1, 1]^d; records X_1..X_n ∈ {±1}^d independent with mean μ. Release: the
// mean X̄ plus N(0, σ²) per coordinate, σ calibrated to (ε, δ) with the analytic Gaussian
// calibration (Balle & Wang 2018) and L2 sensitivity 2√d/n (one record replaced); ε = ∞ means no
// noise. Attacker knows μ and a candidate Y: a member (Y = X_i) or a fresh draw from the
// population, and scores Z = ⟨M(X) − μ, Y − μ⟩ (seed 004, Z_i); larger = "member".
struct TracingAttackParams {
    std::size_t n = 100;                                       // records
    std::size_t d = 1000;                                      // dimensions
    double epsilon = std::numeric_limits<double>::infinity();  // ∞ = no noise
    double delta = 1e-6;                                       // in (0, 1); ignored when ε = ∞
    std::size_t trials = 20;             // independent datasets (fresh μ, X, noise)
    std::size_t candidatesPerTrial = 0;  // members (and as many non-members) per dataset; 0 = n
    std::uint64_t seed = 1;
    // The noise of the release (issue #9, core/mechanisms/vector_mechanisms.h), calibrated to (ε,
    // δ) with n and d. The default (Gaussian, analytic) is the release described above; Laplace and
    // K-norm are pure ε-DP (δ is then still validated but unused).
    VectorMechanismSpec mechanism{};
    Status validate() const;
};

struct TracingAttackResult {
    double sigma = 0;  // noise sd per coordinate, √(E‖Z‖²/d) (the Gaussian σ; 0 without noise)
    std::string mechanism;                // vectorMechanismName of the noise ("" without noise)
    std::vector<double> memberScores;     // Z for members
    std::vector<double> nonMemberScores;  // Z for non-members
    std::vector<XYPoint> roc;             // x = false-positive rate, y = false-negative rate
    double auc = 0.5;                     // P(Z_member > Z_non-member) + ½ P(tie)
    std::vector<std::string> warnings;
};

// Runs the simulation (seeded; for demonstration, never for a release). Cost ~ trials·(n + 2·c)·d
// random draws, c = candidates per trial. The ROC lists one point per distinct threshold, from
// (0, 1) to (1, 0), with FNR = 1 − TPR so it plots in the same axes as testRegionBoundary.
Expected<TracingAttackResult> simulateTracingAttack(const TracingAttackParams& params);

// ROC (x = FPR, y = FNR) and AUC of "member if score ≥ t" over all thresholds t.
// Errors: empty score lists, or a non-finite score.
Expected<TracingAttackResult> rocFromScores(std::vector<double> memberScores,
                                            std::vector<double> nonMemberScores);

}  // namespace dpx
