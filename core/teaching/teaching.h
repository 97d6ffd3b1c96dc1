// The small computations of the classroom lessons (issue #21, ui/lessons/): what a lesson shows
// that no other room computes. Everything a lesson can take from another room comes from there —
// randomized response's estimator and its variance from core/ldp, the posterior bound and the
// hypothesis-testing region from core/choosing/risk, the estimators' expected errors from
// core/accuracy — and this room only adds the pieces that exist for teaching: the coins of Warner's
// protocol, the differencing attack's exact success probability, the Laplace mechanism's quantiles,
// likelihood ratio and trade-off curve, the repeated-question attack of the composition lesson
// (the law of a sum of Laplace variables; the budgets from core/choosing/budget), and the
// membership lesson's pair of tracing-attack runs (the simulation itself is core/choosing/risk's).
// No Qt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/expected.h"
#include "core/choosing/risk.h"

namespace dpx::teaching {

// ---- Lesson 1: randomized response, coin by coin (Warner 1965) -------------------------------
//
// Each person flips a first coin that lands heads with probability h (h = 1/2: a fair coin). Heads:
// they answer the question truthfully. Tails: they flip a second, fair coin and answer "yes" on
// heads, "no" on tails. Hence
//     P(report yes | truly yes) = h + (1 − h)/2 = (1 + h)/2,
//     P(report yes | truly no)  = (1 − h)/2,
// and the same with yes and no swapped. The protocol is ε-DP (locally: for every person and both
// reports) with ε = ln[(1 + h)/(1 − h)], the largest log-ratio of a report's probability under the
// two answers; for fair coins ε = ln(3/4 ÷ 1/4) = ln 3. It is binary randomized response that keeps
// the true bit with probability p = (1 + h)/2 = e^ε/(e^ε + 1) (core/ldp Protocol::RR).

// A first coin's probability of heads must lie in (0, 1): 1 would always tell the truth (no
// privacy), 0 would never look at the truth (no information).
Status validateTruthProbability(double h);
// ε = ln[(1 + h)/(1 − h)]. Errors: h ∉ (0, 1).
Expected<double> coinProtocolEpsilon(double truthProbability = 0.5);

// One person of the lesson's class: the true answer, the coins, and what they reported. The second
// coin is flipped only after tails on the first (secondCoinFlipped); report = first heads ? truth :
// second heads.
struct Person {
    bool truth = false;
    bool firstCoinHeads = false;
    bool secondCoinFlipped = false;
    bool secondCoinHeads = false;
    bool report = false;
};

// A class of `people` (1 … 1 000 000) of whom round(people · yesFraction) truly answer yes, in a
// random order, each flipping the coins of the protocol with first-coin probability h; seeded
// (SimulationRng), so the same seed gives the same class. Errors: people out of range, yesFraction
// ∉ [0, 1], h ∉ (0, 1).
Expected<std::vector<Person>> flipCoins(std::size_t people, double yesFraction,
                                        double truthProbability, std::uint64_t seed);

// What the collector estimates from a tally of `yes` reports out of `people`: Warner's unbiased
// estimate of the fraction truly answering yes, π̂ = (yes/n − q)/(p − q) with p = (1 + h)/2 and
// q = 1 − p, and its 95% interval π̂ ± 1.959964·sd. For the class in the room the true answers are
// fixed and only the coins are random, so Var[π̂] = [π p(1 − p) + (1 − π) q(1 − q)]/(n (p − q)²),
// which for this symmetric protocol is p(1 − p)/(n (p − q)²) whatever π is (3/(4n) for fair coins):
// the interval needs no plug-in estimate (core/ldp estimatorVariance, the same formula). The
// estimate is not clipped: with few people it can fall below 0 or above 1 (unbiasedness has that
// price); `low` and `high` are the unclipped interval.
struct TallyEstimate {
    std::uint64_t people = 0;
    std::uint64_t yes = 0;
    double epsilon = 0;        // the protocol's ε
    double estimate = 0;       // π̂
    double standardError = 0;  // sqrt(Var[π̂])
    double low = 0;            // π̂ − 1.959964·sd
    double high = 0;           // π̂ + 1.959964·sd
};
// The two-sided 95% standard-normal quantile Φ⁻¹(0.975).
inline constexpr double kZ95 = 1.959963984540054;
// Errors: people = 0, yes > people, h ∉ (0, 1).
Expected<TallyEstimate> estimateTally(std::uint64_t people, std::uint64_t yes,
                                      double truthProbability = 0.5);

// ---- Lesson 2: the differencing attack ---------------------------------------------------------
//
// Two counts are released: "how many people in the data have the condition" (Alice included) and
// "how many people other than Alice have it". Exact answers differ by Alice's bit. With each count
// released by the Laplace mechanism at ε (scale b = 1/ε), the difference is bit + W with
// W = Z₁ − Z₂, whose density (the convolution of two Laplace(b) densities) is
//     f_W(w) = (1/(4b)) (1 + |w|/b) e^{−|w|/b},   P(W > t) = ½ e^{−t/b} (1 + t/(2b)) for t ≥ 0.
// W's density is log-concave, so the likelihood ratio f_W(d − 1)/f_W(d) increases in d and, for a
// prior of ½, the best guess is "Alice has it" exactly when the difference exceeds ½
// (Neyman–Pearson). Its success probability is 1 − P(W > ½). Only the first count changes with
// Alice's record, so the pair is ε-DP for her, and no attacker with prior ½ succeeds with
// probability above e^ε/(e^ε + 1) = the posterior bound of core/choosing/risk.

// f_W(w) and P(W > t) for the difference of two independent Laplace(b). Unchecked kernels, b > 0.
double laplaceDifferenceDensity(double scale, double w);
double laplaceDifferenceSurvival(double scale, double t);

struct DifferencingAttack {
    double epsilon = 0;             // ε of each released count
    double scale = 0;               // b = 1/ε
    double successProbability = 0;  // 1 − P(W > ½)
    double posteriorBound = 0;      // e^ε/(e^ε + 1), from posteriorBound(½, ε)
};
// Errors: ε not finite or ≤ 0.
Expected<DifferencingAttack> differencingAttack(double epsilon);

// ---- Lesson 3: what ε means (the Laplace mechanism on a count, sensitivity 1) -----------------

// The k quantiles of center + Laplace(b) at probabilities (i + ½)/k, i = 0 … k − 1: the dots of a
// quantile dot plot (Kay, Kola, Hullman & Munson 2016), sorted. Errors: b not finite or ≤ 0,
// center not finite, k ∉ [1, 1000].
Expected<std::vector<double>> laplaceQuantiles(double center, double scale, std::size_t k);

// ln[f_D(o)/f_D'(o)] for the count with the person (c + 1) against without (c), Laplace(b) noise:
// (|o − c| − |o − c − 1|)/b, always within [−1/b, 1/b] = [−ε, ε]. Unchecked kernel.
double laplaceLogLikelihoodRatio(double scale, double countWithout, double output);

// The exact trade-off curve of the Laplace mechanism at ε (sensitivity 1): the smallest
// false-negative rate β of any test with false-positive rate α, from the threshold tests
// (optimal by Neyman–Pearson, the likelihood ratio being monotone in the output):
//     β = 1 − e^ε α            for α < e^{−ε}/2,
//     β = e^{−ε}/(4α)          for e^{−ε}/2 ≤ α ≤ ½,
//     β = e^{−ε}(1 − α)        for α > ½
// (derived in teaching.cpp; the same closed form is in Dong, Roth & Su 2022, "Gaussian
// differential privacy", JRSS B). It lies inside the ε-DP region of Kairouz, Oh & Viswanath 2015
// (β ≥ tradeoffEpsDelta(ε, 0, α)): on its boundary for α ≤ e^{−ε}/2 and α ≥ ½, strictly inside in
// between.
// Unchecked kernel: α in [0, 1], ε ≥ 0.
double laplaceTradeoff(double epsilon, double alpha);
// laplaceTradeoff at `points` ≥ 2 evenly spaced α in [0, 1] plus the kinks e^{−ε}/2 and ½, sorted.
// Errors: ε invalid, points ∉ [2, 100 000].
Expected<std::vector<XYPoint>> laplaceTradeoffCurve(double epsilon, std::size_t points);

// ---- Lesson 4: composition (asking the same question k times) ---------------------------------
//
// The attacker of lesson 2 asks the differencing pair k times. Without a budget every answer gets
// fresh Laplace noise at the same ε (scale b = 1/ε); the attacker averages the k differences,
//     D̄ = bit + (1/k) Σ_j W_j,   W_j = Z_{j,1} − Z_{j,2},
// and guesses "Alice has it" when D̄ > ½. Σ_j W_j is a sum of 2k independent Laplace(b) (a
// Laplace variable is symmetric), so the rule errs with probability P(S_{2k} > k/2) under either
// answer, and succeeds with 1 − P(S_{2k} > k/2) → 1 as k grows (the noise averages away). The
// privacy loss grows with k: basic composition gives kε (Dwork & Roth 2014 Thm 3.16), zCDP
// (Bun & Steinke 2016) gives ρ = kε²/2 and so (ρ + 2√(ρ ln(1/δ)), δ)-DP. With one total budget ε
// split equally (splitBudget) each answer gets ε/k: the k answers together are ε-DP for Alice, so
// no attacker starting at 50/50 is right with probability above e^ε/(e^ε + 1), whatever k.
//
// S_n = Σ of n iid Laplace(b) is the difference of two Gamma(n, b) variables; its density is, with
// u = |s|/b (derived in teaching.cpp),
//     f_n(s) = (1/b) Σ_{j=0}^{n−1} c_j u^j e^{−u}/j!,   c_j = C(2n−2−j, n−1) / 2^{2n−1−j},
// and for t ≥ 0 P(S_n > t) = Σ_j c_j Q(j + 1, t/b), Q the regularized upper incomplete gamma
// function, Q(j + 1, u) = P(Poisson(u) ≤ j) (a mixture of Gamma tails: every term is ≥ 0, no
// cancellation at large n). Both cost O(n): the c_j and the Poisson weights by recurrences.

// f_n(s) and P(S_n > t) for the sum of n ≥ 1 iid Laplace(b). Unchecked kernels: n ≥ 1, b > 0;
// n = 2 gives laplaceDifferenceDensity / laplaceDifferenceSurvival.
double laplaceSumDensity(std::size_t n, double scale, double s);
double laplaceSumSurvival(std::size_t n, double scale, double t);

// How the k answers are budgeted: each at the lesson's ε (no budget), or one total ε split.
enum class QueryBudget { FreshEachAnswer, OneTotal };

// The largest number of repeated questions the lesson computes.
inline constexpr std::size_t kMaxRepeatedQuestions = 10000;
// The δ at which the lesson states the zCDP figure.
inline constexpr double kCompositionDelta = 1e-6;

struct RepeatedQueryAttack {
    std::size_t k = 1;
    QueryBudget budget = QueryBudget::FreshEachAnswer;
    double epsilon = 0;             // the lesson's ε (of each answer, or the total)
    double epsilonPerAnswer = 0;    // ε, or the share ε/k of the total (splitBudget)
    double scale = 0;               // b = 1/epsilonPerAnswer
    double successProbability = 0;  // 1 − P(S_{2k} > k/2)
    double basicEpsilon = 0;        // k · epsilonPerAnswer: the total privacy loss, basic
    double zcdpRho = 0;             // k · epsilonPerAnswer²/2
    double zcdpEpsilon = 0;         // ρ + 2√(ρ ln(1/δ)) at δ = kCompositionDelta
    // The best any attacker starting at 50/50 can be sure of: e^{ε'}/(e^{ε'} + 1) for the pure
    // ε' = basicEpsilon (posteriorMaxPure of core/choosing/risk).
    double posteriorBound = 0;
};
// Errors: ε not finite or ≤ 0, k ∉ [1, kMaxRepeatedQuestions].
Expected<RepeatedQueryAttack> repeatedQueryAttack(double epsilon, std::size_t k,
                                                  QueryBudget budget);

// ---- Lesson 5: membership (the tracing attack of core/choosing/risk) --------------------------
//
// The same simulated population and attacker twice: against the exact mean (no noise, ε = ∞: the
// baseline) and against the mean released with the analytic Gaussian mechanism at (ε, δ) (Balle
// & Wang 2018), with the (ε, δ)-DP test region of Kairouz, Oh & Viswanath 2015 that every attack
// on that release must stay inside, and the largest AUC it allows (maxAuc).
struct MembershipDemo {
    TracingAttackParams params;       // the noisy run's parameters (the baseline has ε = ∞)
    TracingAttackResult noNoise;      // the baseline
    TracingAttackResult noisy;        // at (ε, δ)
    std::vector<XYPoint> testRegion;  // x = α, y = f_{ε,δ}(α): testRegionBoundary
    double maxAuc = 0.5;              // maxAuc(ε, δ)
};
// Errors: those of simulateTracingAttack and testRegionBoundary (ε must be finite here).
Expected<MembershipDemo> membershipDemo(const TracingAttackParams& params);

}  // namespace dpx::teaching
