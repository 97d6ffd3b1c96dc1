// A release plan (issue #6 Budget view): several histograms released from one dataset, each with a
// share of a total (ε, δ) budget, composed by basic composition or zCDP (core/choosing/budget.h),
// and the expected error each statistic gets at its share.
//
// Allocation (allocatePlan):
//  1. Held statistics take their amount first: a held ε (the user typed it), or a held accuracy
//     (the smallest budget whose per-bin 95% half-width is ≤ the target, inverted in closed form
//     or by bisection on the exact error).
//  2. What is left is split among the other statistics in proportion to their weights with
//     splitBudget (exact rationals, never overruns). Basic: the ε is split; the total δ goes only
//     to the Gaussian statistics, in equal shares (pure-DP statistics get δ = 0). zCDP: the total
//     becomes ρ_budget = zcdpBudget(ε, δ) (largest ρ whose (ε, δ) conversion fits, Bun & Steinke
//     2016 Prop 1.3) and ρ is split; a pure-DP statistic with ρ_i runs at ε_i = √(2ρ_i) (Prop 1.4),
//     a Gaussian one at σ_i = Δ2/√(2ρ_i) (Prop 1.6). The split leaves 3e-12·ρ_budget beyond the
//     ledger's own margin unused, so that even the ledger's rounded-up spent ε fits the total.
//  3. Every statistic is charged to a BudgetLedger of the chosen composition; a plan whose charges
//     do not all fit is an error, never a result.
// A plan may start from a privacy ledger's releases (BudgetPlan::spent): they are charged first,
// so holds and the split get only what they leave (δ of the Gaussian statistics too), and "fits"
// means "fits what the ledger has left".
//
// Per-bin error of the noise Z added to each of the k bins (95% half-width: smallest a with
// Pr[|Z| ≤ a] ≥ 0.95):
//  - Laplace(b), b = Δ1/ε (Dwork & Roth 2014 Def 3.3, Thm 3.6): Pr[|Z| > a] = e^{−a/b}, so the
//    half-width is b ln 20; E|Z| = b; Var Z = 2b².
//  - two-sided geometric, α = e^{−ε/Δ1} (Ghosh, Roughgarden & Sundararajan 2009): Pr[|Z| ≤ t] =
//    1 − 2α^{t+1}/(1+α); E|Z| = 2α/(1−α²); Var Z = 2α/(1−α)²; the half-width is the smallest
//    integer t with Pr[|Z| ≤ t] ≥ 0.95.
//  - Gaussian N(0, σ²), σ from the analytic calibration (Balle & Wang 2018) under basic
//    composition: half-width z_{0.975}σ; E|Z| = σ√(2/π); Var Z = σ².
// Expected L1 error of the histogram = k·E|Z|; expected SSE/k = Var Z.
//
// PLD composition (issue #22): the plan's statistics, composed with the releases a PLD ledger has
// already charged (BudgetPlan::spentLosses) by the privacy-loss-distribution accountant
// (core/accounting/privacy_loss.h, pessimistic grid), must meet the total (ε, δ): ε(δ_total) ≤
// ε_total. Held statistics take their noise first (a held ε: the statistic alone is (ε,
// δ_total)-DP, pure ones ε-DP, after its sampling; a held accuracy fixes the noise). The others
// share one scale: statistic i gets ρ_i = t·w_i/Σw (its weight shares ρ as under zCDP: noise of a
// pure one at ε_i = √(2ρ_i), of a Gaussian σ_i = Δ2/√(2ρ_i)), and t is the largest whose PLD
// composition meets the total: found by bisection on ln t (to 1e-6) on a COARSE grid (interval
// max(h, 1e-2), Gaussians on the grid; pessimistic, so every coarse answer is an upper bound),
// then refined on the plan's own grid h (a secant from the coarse slope, up to 6 regula-falsi
// steps, then bisection, to 5e-4 in ln t; Gaussians alone, composed exactly, to 1e-7). Each
// step decides "meets" by one δ(ε) per direction (accounting::PldUpperAccount::meets, which
// implies ε(δ) ≤ the target); if the coarse answer fails on the fine grid the refinement steps
// down until one passes. Every answer kept has been composed on the grid that accepted it, so the
// search never overshoots; that fine composition of the reported allocation is the final check.
//
// Poisson sampling (PlanStatistic::samplingRate q < 1) is used in the calibration:
//  - basic: a share (ε_i, δ_i) is the AMPLIFIED cost; the noise is calibrated to
//    ε0 = ln(1 + (e^ε_i − 1)/q), δ0 = min(δ_i/q, ½) (the inverse of Li, Qardaji & Su 2012 Thm 1;
//    Balle, Barthe & Gaboardi 2018 Thm 8, accounting/subsampling.h), and the ledger is charged
//    (ε_i, δ_i). A held accuracy fixes the noise; it is charged the amplified ε of its noise.
//  - PLD: the share's ε-equivalent √(2ρ_i) is inverted the same way to set the noise's shape, and
//    the search composes the subsampled PLD (add and remove neighbours, Zhu, Dong & Wang 2022), so
//    the exact amplification decides the scale. Sampling never gives another statistic more noise
//    than the same plan without the (un-held) statistics' sampling: tu, that plan's scale, is found
//    first; if the rule above meets the total at tu, t is searched from tu up; otherwise (a small
//    q at a much smaller δ: the pure-DP inverse gives the sampled Gaussian a σ whose tail costs
//    more than it does without sampling) the unsampled statistics keep their noise of tu and the
//    sampled ones get the rule's noise at the largest scale s that meets the total, never more
//    noise than at tu (sampling only lowers a mechanism's privacy loss, so s exists).
//  - zCDP: not used (zCDP has no tight amplification-by-sampling theorem; the sampled statistic
//    gets the noise it needs without sampling, a valid upper bound).
// At q = 1 each rule is the one without sampling, bit for bit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/mechanism_loss.h"
#include "core/base/expected.h"
#include "core/choosing/budget.h"
#include "core/mechanisms/mechanism_id.h"

namespace dpx {

// Φ⁻¹(0.975), the two-sided 95% normal quantile (Boost.Math quantile(normal(), 0.975)).
inline constexpr double kNormalQuantile975 = 1.959963984540054;
// The per-bin coverage of the half-widths: 95%.
inline constexpr double kPlanCoverage = 0.95;

enum class HoldKind { None, Epsilon, Accuracy };
const char* holdKindName(HoldKind h);  // "none" / "epsilon" / "accuracy"

// What the user fixed for one statistic. Epsilon: its ε (under zCDP: a pure-DP statistic gets
// ρ = ε²/2, a Gaussian one the ρ whose conversion at the total δ is ε). Accuracy: every bin within
// ±value with 95% probability, at the smallest budget that achieves it.
struct PlanHold {
    HoldKind kind = HoldKind::None;
    double value = 0;  // finite > 0 unless kind == None
    bool operator==(const PlanHold&) const = default;
};

struct PlanStatistic {
    std::string label;      // the column name
    std::int64_t bins = 1;  // k ≥ 1
    MechanismKind mechanism = MechanismKind::Laplace;
    double l1Sensitivity = 1;       // Δ1 (finite > 0; a whole number for the geometric mechanism)
    double l2Sensitivity = 1;       // Δ2 (finite > 0)
    std::optional<double> records;  // the true total N, finite > 0, for "% of N"
    double weight = 1;              // finite ≥ 0; share of what the holds leave
    PlanHold hold;
    // Poisson sampling rate q ∈ (0, 1] of the records the statistic is computed from (each record
    // kept independently with probability q); 1 = no sampling. Basic composition and PLD calibrate
    // with its amplification, zCDP does not (see the top of this file); the accountants of
    // core/accounting/plan_accounting.h amplify it (issue #22).
    double samplingRate = 1;
    Status validate() const;  // messages name the statistic
};

struct BudgetPlan {
    BudgetTotal total;
    Composition composition = Composition::Basic;
    std::vector<PlanStatistic> statistics;
    // Releases already charged to the ledger the plan starts from (its total and composition are
    // then the ledger's): charged before any statistic, which share only what they leave. Each
    // needs a ρ under zCDP. Empty: a fresh budget.
    std::vector<BudgetCharge> spent;
    // PLD only: the privacy loss of each release in `spent` (one mechanism each, with its count;
    // io/release/privacy_ledger.h LedgerLoss), composed with the plan's statistics.
    std::vector<accounting::AccountedMechanism> spentLosses;
    // PLD only: ε charged on top of every composition (a PLD ledger whose recorded ε exceeded its
    // recomputation keeps the difference, PrivacyLedger::pldExcess), finite ≥ 0.
    double spentExcess = 0;
    // PLD only: the grid interval h of the accountant (a ledger's own), in [1e-6, 0.01].
    double pldInterval = 1e-4;
    Status validate() const;
};

// Error of a noise law at one bin.
struct NoiseSummary {
    double scale = 0;        // Laplace b, geometric α, Gaussian σ
    double halfWidth95 = 0;  // smallest a with Pr[|Z| ≤ a] ≥ 0.95 (an integer for geometric)
    double expectedAbs = 0;  // E|Z|
    double variance = 0;     // Var Z
};
// Errors: the scale out of its domain (b, σ finite > 0; α in (0, 1)).
Expected<NoiseSummary> laplaceNoise(double b);
Expected<NoiseSummary> geometricNoise(double alpha);
Expected<NoiseSummary> gaussianNoise(double sigma);

// The smallest ε whose per-bin 95% half-width is ≤ `halfWidth` (inverse of the forward maps
// above): Laplace ε = Δ1 ln 20/a; geometric: the exact tail 2α^{⌊a⌋+1}/(1+α) ≤ 0.05 solved for
// ε = −Δ1 ln α; Gaussian (analytic calibration at δ): the smallest ε with Balle & Wang's δ(ε) of
// σ = a/z_{0.975} at most δ. The returned ε always meets the target. Errors: bad input, or a
// target not reachable for ε ≤ 1000.
Expected<double> epsilonForHalfWidth(MechanismKind m, double halfWidth, double l1Sensitivity,
                                     double l2Sensitivity = 1, double delta = 0);
// The smallest ε for which the analytic Gaussian calibration at δ gives noise ≤ σ (the (ε, δ)
// that a Gaussian of scale σ satisfies). Errors: bad input, ε > 1000 needed.
Expected<double> gaussianEpsilonOfSigma(double sigma, double delta, double l2Sensitivity);

struct StatisticAllocation {
    std::string label;
    std::int64_t bins = 1;
    MechanismKind mechanism = MechanismKind::Laplace;
    PlanHold hold;
    // Basic: the ε and δ charged. zCDP: a pure-DP statistic's ε = √(2ρ) (δ = 0); a Gaussian one's
    // ε is what its ρ alone converts to at the total δ (Prop 1.3), and δ is the total δ.
    double epsilon = 0;
    double delta = 0;
    // PLD: ε is the statistic's alone at the total δ (pure: δ = 0), an upper bound; a sampled
    // statistic's includes the amplification (basic: its charged share).
    double rho = 0;  // ρ of the statistic's noise, without sampling (charged under zCDP)
    // ε_i/ε (basic), ρ_i/ρ_budget (zCDP) or ρ_i/Σρ of the plan's noise (PLD): its fraction of the
    // budget.
    double share = 0;
    double samplingRate = 1;
    // q < 1 under basic composition or PLD: the ε the noise satisfies without sampling (larger
    // than `epsilon`: the noise is smaller than without sampling).
    std::optional<double> epsilonWithoutSampling;
    NoiseSummary noise;
    double expectedL1 = 0;                    // k·E|Z|
    std::optional<double> expectedL1Percent;  // 100·E[L1]/N when N is known
    double perBinVariance = 0;                // expected SSE/k
};

// The same noise levels accounted the other way, for "the accountant's choice".
struct OtherAccounting {
    Composition composition = Composition::Zcdp;  // the accountant not chosen
    bool available = false;
    std::string note;  // why not available, or how the numbers were obtained
    double epsilon = 0;
    double delta = 0;
    double rho = 0;  // Σρ_i (meaningful when composition == Zcdp)
};

struct PlanResult {
    BudgetTotal total;
    Composition composition = Composition::Basic;
    double rhoBudget = 0;  // zCDP: the ρ budget with the ledger's safety margin; basic: 0
    std::vector<StatisticAllocation> statistics;
    BudgetUsage usage;  // from the ledger that accepted every charge
    BudgetUsage start;  // after the plan's `spent` charges only: what the plan started from
    std::size_t spentCharges = 0;  // plan.spent.size()
    OtherAccounting other;         // the same noise under the other accountant
    std::vector<std::string> warnings;
    // PLD: the grid interval used; 0 otherwise.
    double pldInterval = 0;
    // Non-empty when a statistic is sampled: how the calibration used the sampling (a sentence).
    std::string sampling;
};

// The allocation described at the top of this file. Errors (each naming the statistic): invalid
// totals, statistics, weights or holds; δ = 0 with a Gaussian statistic or zCDP; all weights of the
// un-held statistics 0; held amounts beyond the total (or beyond what `spent` leaves); spent
// charges beyond the total; no δ left for a Gaussian statistic; an unreachable accuracy target;
// PLD: δ = 0, a spent release without its loss, a grid interval out of range.
Expected<PlanResult> allocatePlan(const BudgetPlan& plan);

}  // namespace dpx
