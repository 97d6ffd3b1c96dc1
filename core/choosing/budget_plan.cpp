#include "core/choosing/budget_plan.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <tuple>

#include "core/accounting/plan_accounting.h"
#include "core/accounting/privacy_loss.h"
#include "core/accounting/subsampling.h"
#include "core/base/validation.h"
#include "core/mechanisms/gaussian_mechanism.h"

namespace dpx {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTail = 1 - kPlanCoverage;  // 0.05: two-sided miss probability
// ε search range of the numerical inverses (epsilonForAccuracy brackets).
constexpr double kEpsilonLow = 1e-12;
constexpr double kEpsilonHigh = 1e3;
// Rounding nudges (one ulp at a time) never need more than a handful of steps; the cap only
// guards against a logic error turning into an endless loop.
constexpr int kMaxNudges = 4096;
// PLD plans (allocatePld): the search's grid interval (the plan's own when coarser), the fine
// compositions allowed after it, and the width in ln t at which the refinement stops.
constexpr double kPldCoarseInterval = 1e-2;
constexpr int kPldRefineProbes = 6;
constexpr double kPldRefineTolerance = 5e-4;

std::string quoted(const std::string& label) {
    return "'" + label + "'";
}

Error about(const PlanStatistic& s, const std::string& message) {
    return Error{"statistic " + quoted(s.label) + ": " + message};
}

// Geometric two-sided tail Pr[|Z| > t] = 2α^{t+1}/(1+α) with ln α given (Ghosh et al. 2009).
double geometricTail(double logAlpha, double t) {
    return 2 * std::exp((t + 1) * logAlpha) / (1 + std::exp(logAlpha));
}

// The smallest integer t ≥ 0 with Pr[|Z| ≤ t] ≥ 0.95 for the geometric law of ln α = logAlpha.
double geometricHalfWidth(double logAlpha) {
    // 2α^{t+1}/(1+α) ≤ 0.05 ⇔ t + 1 ≥ ln(0.025(1+α))/ln α.
    const double alpha = std::exp(logAlpha);
    const double x = std::log(kTail / 2 * (1 + alpha)) / logAlpha;
    double t = std::max(0.0, std::ceil(x) - 1);
    if (t < 1e15) {  // integers still exact: correct a rounding of the logarithms either way
        while (t > 0 && geometricTail(logAlpha, t - 1) <= kTail) {
            t -= 1;
        }
        while (geometricTail(logAlpha, t) > kTail) {
            t += 1;
        }
    }
    return t;
}

NoiseSummary geometricSummaryLog(double logAlpha) {
    const double alpha = std::exp(logAlpha);
    const double oneMinus = -std::expm1(logAlpha);  // 1 − α without cancellation
    NoiseSummary n;
    n.scale = alpha;
    n.halfWidth95 = geometricHalfWidth(logAlpha);
    n.expectedAbs = 2 * alpha / (oneMinus * (1 + alpha));  // 2α/(1 − α²)
    n.variance = 2 * alpha / (oneMinus * oneMinus);        // 2α/(1 − α)²
    return n;
}

// One statistic's allocation together with the ledger charge that pays for it.
struct Allocated {
    StatisticAllocation result;
    BudgetCharge charge;
};

StatisticAllocation base(const PlanStatistic& s) {
    StatisticAllocation a;
    a.label = s.label;
    a.bins = s.bins;
    a.mechanism = s.mechanism;
    a.hold = s.hold;
    return a;
}

void fillErrors(StatisticAllocation& a, const PlanStatistic& s, const NoiseSummary& n) {
    a.noise = n;
    a.expectedL1 = static_cast<double>(s.bins) * n.expectedAbs;
    a.perBinVariance = n.variance;
    if (s.records) {
        a.expectedL1Percent = 100 * a.expectedL1 / *s.records;
    }
}

// A pure-DP statistic (Laplace or geometric) at ε: ρ = ε²/2 (Bun & Steinke 2016 Prop 1.4).
Expected<Allocated> allocatePure(const PlanStatistic& s, double epsilon) {
    auto charge = pureDpCharge(s.label, epsilon);
    if (!charge) {
        return about(s, charge.error().message);
    }
    StatisticAllocation a = base(s);
    a.epsilon = epsilon;
    a.rho = *charge->rho;
    Expected<NoiseSummary> n = Error{};
    if (s.mechanism == MechanismKind::Laplace) {
        n = laplaceNoise(s.l1Sensitivity / epsilon);  // b = Δ1/ε (Dwork & Roth 2014 Thm 3.6)
    } else {
        const double logAlpha = -epsilon / s.l1Sensitivity;  // α = e^{−ε/Δ1}
        if (std::exp(logAlpha) <= 0) {
            return about(s, "ε = " + formatNumber(epsilon) +
                                " leaves the geometric noise no randomness in double precision");
        }
        n = geometricSummaryLog(logAlpha);
    }
    if (!n) {
        return about(s, n.error().message);
    }
    fillErrors(a, s, *n);
    return Allocated{a, *charge};
}

// A Gaussian statistic under basic composition: σ from the analytic calibration at (ε, δ).
Expected<Allocated> allocateGaussianBasic(const PlanStatistic& s, double epsilon, double delta) {
    auto sigma = gaussianSigma(
        GaussianParams{epsilon, delta, s.l2Sensitivity, GaussianCalibration::Analytic});
    if (!sigma) {
        return about(s, sigma.error().message);
    }
    auto charge = gaussianCharge(s.label, {epsilon, delta}, s.l2Sensitivity, *sigma);
    auto n = gaussianNoise(*sigma);
    if (!charge || !n) {
        return about(s, !charge ? charge.error().message : n.error().message);
    }
    StatisticAllocation a = base(s);
    a.epsilon = epsilon;
    a.delta = delta;
    a.rho = *charge->rho;
    fillErrors(a, s, *n);
    return Allocated{a, *charge};
}

// A Gaussian statistic under zCDP with noise σ: ρ = Δ2²/(2σ²) (Bun & Steinke 2016 Prop 1.6); its
// ε is what ρ alone converts to at the total δ (Prop 1.3).
Expected<Allocated> allocateGaussianZcdp(const PlanStatistic& s, double sigma, double totalDelta) {
    auto rho = gaussianRho(s.l2Sensitivity, sigma);
    if (!rho) {
        return about(s, rho.error().message);
    }
    auto eps = zcdpToEpsilon(*rho, totalDelta);
    if (!eps) {
        return about(s, eps.error().message);
    }
    auto charge = gaussianCharge(s.label, {*eps, totalDelta}, s.l2Sensitivity, sigma);
    auto n = gaussianNoise(sigma);
    if (!charge || !n) {
        return about(s, !charge ? charge.error().message : n.error().message);
    }
    StatisticAllocation a = base(s);
    a.epsilon = *eps;
    a.delta = totalDelta;
    a.rho = *charge->rho;
    fillErrors(a, s, *n);
    return Allocated{a, *charge};
}

// A statistic given its ρ share under zCDP. The noise is chosen so that the ρ the ledger is charged
// (recomputed from ε or σ) never exceeds the share: rounding goes towards more noise.
Expected<Allocated> allocateFromRho(const PlanStatistic& s, double rho, double totalDelta) {
    if (!(rho > 0) || !std::isfinite(rho)) {
        return about(s, "its ρ share must be finite and > 0 (got " + formatNumber(rho) + ")");
    }
    if (isPureDp(s.mechanism)) {
        double eps = std::sqrt(2 * rho);  // ρ = ε²/2 (Prop 1.4)
        for (int i = 0; i < kMaxNudges && eps * eps / 2 > rho; ++i) {
            eps = std::nextafter(eps, 0.0);
        }
        return allocatePure(s, eps);
    }
    const double ratio = s.l2Sensitivity / std::sqrt(2 * rho);  // σ = Δ2/√(2ρ) (Prop 1.6)
    double sigma = ratio;
    for (int i = 0; i < kMaxNudges; ++i) {
        const double r = s.l2Sensitivity / sigma;
        if (r * r / 2 <= rho) {
            break;
        }
        sigma = std::nextafter(sigma, kInf);
    }
    return allocateGaussianZcdp(s, sigma, totalDelta);
}

// The amplified ε of noise that satisfies ε0 without sampling at rate q, rounded up (log1p and
// expm1 are within an ulp or two: two ulps up keep the charge above the true value).
double amplifiedUp(double epsilon0, double q) {
    const double e = std::log1p(q * std::expm1(epsilon0));
    return std::nextafter(std::nextafter(e, kInf), kInf);
}

// Basic composition at the share (ε, δ) (δ = 0 for a pure-DP statistic): without sampling the
// noise of (ε, δ); with sampling (q < 1) the noise of the (ε0, δ0) whose amplification is within
// (ε, δ) (accounting::unamplifiedForTarget), charged (ε, δ).
Expected<Allocated> allocateBasic(const PlanStatistic& s, double epsilon, double delta) {
    const bool pure = isPureDp(s.mechanism);
    if (s.samplingRate == 1) {
        return pure ? allocatePure(s, epsilon) : allocateGaussianBasic(s, epsilon, delta);
    }
    auto u = accounting::unamplifiedForTarget(epsilon, pure ? 0.0 : delta, s.samplingRate);
    if (!u) {
        return about(s, u.error().message);
    }
    auto a = pure ? allocatePure(s, u->epsilon) : allocateGaussianBasic(s, u->epsilon, u->delta);
    if (!a) {
        return a;
    }
    a->result.epsilon = epsilon;
    a->result.delta = pure ? 0.0 : delta;
    a->result.epsilonWithoutSampling = u->epsilon;
    a->charge.epsilon = epsilon;
    a->charge.delta = pure ? 0.0 : delta;
    return a;
}

// A held statistic: its own amount, before the split.
Expected<Allocated> allocateHeld(const PlanStatistic& s, const BudgetPlan& plan, double delta) {
    const bool zcdp = plan.composition == Composition::Zcdp;
    const double a = s.hold.value;
    const double q = s.samplingRate;
    if (s.hold.kind == HoldKind::Epsilon) {
        if (!zcdp) {
            return allocateBasic(s, a, delta);
        }
        if (isPureDp(s.mechanism)) {
            return allocatePure(s, a);
        }
        // The ρ whose conversion at the total δ is the typed ε (Prop 1.3 inverted).
        auto rho = zcdpBudget(a, plan.total.delta);
        if (!rho) {
            return about(s, rho.error().message);
        }
        return allocateFromRho(s, *rho, plan.total.delta);
    }
    // Held accuracy: every bin within ±a with 95% probability.
    if (zcdp && s.mechanism == MechanismKind::Gaussian) {
        double sigma = a / kNormalQuantile975;  // z σ ≤ a
        while (sigma * kNormalQuantile975 > a) {
            sigma = std::nextafter(sigma, 0.0);
        }
        return allocateGaussianZcdp(s, sigma, plan.total.delta);
    }
    // Basic with sampling: the noise is the accuracy's; the charge its amplified cost, with the
    // Gaussian calibrated at δ0 = δ/q (≤ ½) so that the amplified δ is within the share.
    double delta0 = delta;
    if (!zcdp && q < 1 && s.mechanism == MechanismKind::Gaussian) {
        auto u = accounting::unamplifiedForTarget(1, delta, q);
        if (!u) {
            return about(s, u.error().message);
        }
        delta0 = u->delta;
    }
    auto eps = epsilonForHalfWidth(s.mechanism, a, s.l1Sensitivity, s.l2Sensitivity, delta0);
    if (!eps) {
        return about(s,
                     "accuracy ±" + formatNumber(a) + " is not reachable: " + eps.error().message);
    }
    auto held = s.mechanism == MechanismKind::Gaussian ? allocateGaussianBasic(s, *eps, delta0)
                                                       : allocatePure(s, *eps);
    if (!held || zcdp || q == 1) {
        return held;
    }
    const double charged = amplifiedUp(*eps, q);
    held->result.epsilon = charged;
    held->result.delta = s.mechanism == MechanismKind::Gaussian ? delta : 0.0;
    held->result.epsilonWithoutSampling = *eps;
    held->charge.epsilon = charged;
    held->charge.delta = held->result.delta;
    return held;
}

// The largest amount (ε for basic, ρ for zCDP) that still fits the ledger, starting from `start`
// and stepping down one ulp at a time (the ledger compares the decimal readings exactly).
Expected<double> largestFitting(const BudgetLedger& ledger, double start) {
    const bool zcdp = ledger.composition() == Composition::Zcdp;
    double r = start;
    for (int i = 0; i < kMaxNudges && r > 0; ++i) {
        const BudgetCharge probe =
            zcdp ? BudgetCharge{"rest", 0, 0, r} : BudgetCharge{"rest", r, 0, std::nullopt};
        if (ledger.fits(probe)) {
            return r;
        }
        r = std::nextafter(r, 0.0);
    }
    return Error{"no budget is left after the held statistics"};
}

// How the calibration used the statistics' sampling; empty when none is sampled.
std::string samplingSentence(const BudgetPlan& plan) {
    const bool sampled = std::any_of(plan.statistics.begin(), plan.statistics.end(),
                                     [](const PlanStatistic& st) { return st.samplingRate < 1; });
    if (!sampled) {
        return {};
    }
    switch (plan.composition) {
        case Composition::Basic:
            return "Amplification by Poisson sampling is used: a sampled statistic's share is its "
                   "amplified cost (ln(1 + q(e^ε − 1)), qδ) (Li, Qardaji & Su 2012; Balle, Barthe "
                   "& Gaboardi 2018), so its noise is calibrated to the larger ε it may have "
                   "without sampling.";
        case Composition::Zcdp:
            return "Poisson sampling is not used by zCDP (no tight amplification-by-sampling "
                   "theorem exists for it): the sampled statistics get the noise they need "
                   "without sampling.";
        case Composition::Pld:
            return "Amplification by Poisson sampling is used: the PLD accountant composes the "
                   "sampled statistics' add and remove neighbours and takes the worse (Zhu, Dong "
                   "& Wang 2022).";
    }
    return {};
}

// The same noise accounted by the accountant not chosen.
OtherAccounting otherAccounting(const BudgetPlan& plan, const std::vector<PlanStatistic>& stats,
                                const std::vector<StatisticAllocation>& alloc) {
    OtherAccounting o;
    const double totalDelta = plan.total.delta;
    if (plan.composition != Composition::Zcdp) {  // basic or PLD: zCDP's Σρ
        o.composition = Composition::Zcdp;
        double rho = 0;
        for (const auto& a : alloc) {
            rho += a.rho;
        }
        o.rho = rho;
        if (totalDelta <= 0) {
            o.note =
                "zCDP gives an (ε, δ) guarantee only for δ > 0; with a pure ε budget basic "
                "composition is the accountant to use";
            return o;
        }
        auto eps = zcdpToEpsilon(rho, totalDelta);  // Bun & Steinke 2016 Prop 1.3
        if (!eps) {
            o.note = eps.error().message;
            return o;
        }
        o.available = true;
        o.epsilon = *eps;
        o.delta = totalDelta;
        o.note =
            "Σρ of the same noise (pure DP: ε²/2, Gaussian: Δ2²/(2σ²)) converted to (ε, δ) "
            "at the total δ";
        return o;
    }
    o.composition = Composition::Basic;
    std::vector<double> gaussianWeights;
    for (const auto& s : stats) {
        gaussianWeights.push_back(s.mechanism == MechanismKind::Gaussian ? 1.0 : 0.0);
    }
    std::vector<double> deltas(stats.size(), 0.0);
    const bool anyGaussian =
        std::find(gaussianWeights.begin(), gaussianWeights.end(), 1.0) != gaussianWeights.end();
    if (anyGaussian) {
        auto d = splitBudget(totalDelta, gaussianWeights);
        if (!d) {
            o.note = d.error().message;
            return o;
        }
        deltas = *d;
    }
    double eps = 0, delta = 0;
    // Equal (σ, δ, Δ2) give equal ε: each distinct triple is inverted once.
    std::map<std::tuple<double, double, double>, double> inverted;
    for (std::size_t i = 0; i < stats.size(); ++i) {
        if (isPureDp(stats[i].mechanism)) {
            eps += alloc[i].epsilon;
            continue;
        }
        const auto key = std::make_tuple(alloc[i].noise.scale, deltas[i], stats[i].l2Sensitivity);
        if (auto hit = inverted.find(key); hit != inverted.end()) {
            eps += hit->second;
            delta += deltas[i];
            continue;
        }
        auto e = gaussianEpsilonOfSigma(alloc[i].noise.scale, deltas[i], stats[i].l2Sensitivity);
        if (e) {
            inverted.emplace(key, *e);
        }
        if (!e) {
            o.note = "statistic " + quoted(stats[i].label) + ": " + e.error().message;
            return o;
        }
        eps += *e;
        delta += deltas[i];
    }
    o.available = true;
    o.epsilon = eps;
    o.delta = delta;
    o.note = anyGaussian ? "Σε and Σδ of the same noise, each Gaussian statistic at an equal share "
                           "of the total δ (analytic calibration)"
                         : "Σε of the same noise";
    return o;
}

}  // namespace

const char* holdKindName(HoldKind h) {
    switch (h) {
        case HoldKind::None:
            return "none";
        case HoldKind::Epsilon:
            return "epsilon";
        case HoldKind::Accuracy:
            return "accuracy";
    }
    return "none";
}

Status PlanStatistic::validate() const {
    if (label.empty()) {
        return Error{"a statistic has no label (column name)"};
    }
    if (bins < 1) {
        return about(*this, "the number of bins must be ≥ 1 (got " + std::to_string(bins) + ")");
    }
    if (auto s = validatePositiveFinite(l1Sensitivity, "the L1 sensitivity Δ1"); !s) {
        return about(*this, s.error().message);
    }
    if (mechanism == MechanismKind::Geometric && std::floor(l1Sensitivity) != l1Sensitivity) {
        return about(*this, "the geometric mechanism needs a whole-number L1 sensitivity (got " +
                                formatNumber(l1Sensitivity) + ")");
    }
    if (auto s = validatePositiveFinite(l2Sensitivity, "the L2 sensitivity Δ2"); !s) {
        return about(*this, s.error().message);
    }
    if (records) {
        if (auto s = validatePositiveFinite(*records, "the number of records N"); !s) {
            return about(*this, s.error().message);
        }
    }
    if (!std::isfinite(weight) || weight < 0) {
        return about(*this, "the weight must be finite and ≥ 0 (got " + formatNumber(weight) + ")");
    }
    if (!(samplingRate > 0 && samplingRate <= 1)) {
        return about(*this, "the sampling rate q must be in (0, 1] (got " +
                                formatNumber(samplingRate) + ")");
    }
    if (hold.kind == HoldKind::Epsilon && (!std::isfinite(hold.value) || hold.value <= 0)) {
        return about(*this,
                     "the held ε must be finite and > 0 (got " + formatNumber(hold.value) + ")");
    }
    if (hold.kind == HoldKind::Accuracy && (!std::isfinite(hold.value) || hold.value <= 0)) {
        return about(*this, "the accuracy target ±a must be finite and > 0 (got " +
                                formatNumber(hold.value) + ")");
    }
    return okStatus();
}

Status BudgetPlan::validate() const {
    if (auto s = total.validate(); !s) {
        return s;
    }
    if (statistics.empty()) {
        return Error{"the plan has no statistics"};
    }
    if (composition == Composition::Zcdp && total.delta == 0) {
        return Error{
            "zCDP accounting needs a total δ > 0 (ρ-zCDP gives (ε, δ)-DP only for δ > 0); "
            "use basic composition for a pure ε budget"};
    }
    if (composition == Composition::Pld) {
        if (total.delta == 0) {
            return Error{
                "the PLD accountant answers ε at the total δ and needs δ > 0; use basic "
                "composition for a pure ε budget"};
        }
        if (!(pldInterval >= 1e-6 && pldInterval <= 0.01)) {
            return Error{"the PLD grid interval must be in [1e-6, 0.01] (got " +
                         formatNumber(pldInterval) + ")"};
        }
        if (spentLosses.size() != spent.size()) {
            return Error{
                "the releases already spent record no privacy loss, which the PLD accountant "
                "needs (" +
                std::to_string(spentLosses.size()) + " losses for " + std::to_string(spent.size()) +
                " releases)"};
        }
        for (std::size_t i = 0; i < spentLosses.size(); ++i) {
            if (auto s = spentLosses[i].validate(); !s) {
                return Error{"release " + std::to_string(i + 1) +
                             " already spent: " + s.error().message};
            }
        }
        if (!(spentExcess >= 0) || !std::isfinite(spentExcess)) {
            return Error{"the ledger's recorded excess ε must be finite and ≥ 0 (got " +
                         formatNumber(spentExcess) + ")"};
        }
    }
    for (std::size_t i = 0; i < spent.size(); ++i) {
        if (auto s = spent[i].validate(); !s) {
            return Error{"release " + std::to_string(i + 1) +
                         " already spent: " + s.error().message};
        }
        if (composition == Composition::Zcdp && !spent[i].rho) {
            return Error{"release " + std::to_string(i + 1) +
                         " already spent has no ρ, which zCDP accounting needs"};
        }
    }
    for (const auto& st : statistics) {
        if (auto s = st.validate(); !s) {
            return s;
        }
        if (st.mechanism == MechanismKind::Gaussian && total.delta == 0) {
            return about(st,
                         "the Gaussian mechanism needs a total δ > 0 (it is not pure ε-DP); "
                         "set δ or choose Laplace or geometric");
        }
    }
    return okStatus();
}

Expected<NoiseSummary> laplaceNoise(double b) {
    if (auto s = validatePositiveFinite(b, "the Laplace scale b"); !s) {
        return s.error();
    }
    // Pr[|Z| > a] = e^{−a/b} = 0.05 ⇒ a = b ln 20; E|Z| = b; Var = 2b².
    return NoiseSummary{b, b * std::log(1 / kTail), b, 2 * b * b};
}

Expected<NoiseSummary> geometricNoise(double alpha) {
    if (!std::isfinite(alpha) || alpha <= 0 || alpha >= 1) {
        return Error{"the geometric parameter α must be in (0, 1) (got " + formatNumber(alpha) +
                     ")"};
    }
    return geometricSummaryLog(std::log(alpha));
}

Expected<NoiseSummary> gaussianNoise(double sigma) {
    if (auto s = validatePositiveFinite(sigma, "σ"); !s) {
        return s.error();
    }
    // Pr[|Z| ≤ zσ] = 0.95 at z = Φ⁻¹(0.975); E|Z| = σ√(2/π); Var = σ².
    return NoiseSummary{sigma, kNormalQuantile975 * sigma, sigma * std::sqrt(2 / std::numbers::pi),
                        sigma * sigma};
}

Expected<double> gaussianEpsilonOfSigma(double sigma, double delta, double l2Sensitivity) {
    if (auto s = validatePositiveFinite(sigma, "σ"); !s) {
        return s.error();
    }
    if (auto s = validateDelta(delta); !s) {
        return s.error();
    }
    if (auto s = validatePositiveFinite(l2Sensitivity, "the L2 sensitivity Δ2"); !s) {
        return s.error();
    }
    // δ(ε) of a fixed σ (Balle & Wang 2018 Thm 8) decreases in ε: the smallest ε with δ(ε) ≤ δ.
    // Searched to the last double (issue #22): a bisection stopped at a relative 1e-10 answered
    // up to 1e-10 above that ε, so a σ calibrated to exactly ε_i (gaussianSigma, whose δ(ε_i) ≤ δ
    // holds) came back as ε_i·(1 + 1e-10) and a plan filling ε = 1 showed 1.00000000002. Down to
    // adjacent doubles the answer is the smallest double with δ(ε) ≤ δ, hence ≤ ε_i: still on the
    // safe side (δ(answer) ≤ δ is what is checked) and never above a calibrated target.
    auto deltaAt = [&](double e) { return gaussianExactDelta(sigma, e, l2Sensitivity); };
    auto eps = epsilonForAccuracy(deltaAt, delta, kEpsilonLow, kEpsilonHigh, 1e-15);
    if (!eps) {
        return eps;
    }
    double e = *eps;
    // The bisection stops within 1e-15 (a few doubles) of the crossing: step down while the
    // check still holds.
    for (int i = 0; i < 64 && e > kEpsilonLow; ++i) {
        const double below = std::nextafter(e, 0.0);
        if (!(deltaAt(below) <= delta)) {
            break;
        }
        e = below;
    }
    return e;
}

Expected<double> epsilonForHalfWidth(MechanismKind m, double halfWidth, double l1Sensitivity,
                                     double l2Sensitivity, double delta) {
    if (auto s = validatePositiveFinite(halfWidth, "the accuracy target ±a"); !s) {
        return s.error();
    }
    if (auto s = validatePositiveFinite(l1Sensitivity, "the L1 sensitivity Δ1"); !s) {
        return s.error();
    }
    switch (m) {
        case MechanismKind::Laplace: {
            // b ln 20 ≤ a ⇔ ε ≥ Δ1 ln 20/a; step up past any rounding of b = Δ1/ε.
            double eps = l1Sensitivity * std::log(1 / kTail) / halfWidth;
            for (int i = 0;
                 i < kMaxNudges && (l1Sensitivity / eps) * std::log(1 / kTail) > halfWidth; ++i) {
                eps = std::nextafter(eps, kInf);
            }
            return eps;
        }
        case MechanismKind::Geometric: {
            // Pr[|Z| > ⌊a⌋] = 2α^{⌊a⌋+1}/(1+α) ≤ 0.05 with α = e^{−ε/Δ1}: decreasing in ε.
            const double m1 = std::floor(halfWidth) + 1;
            auto eps = epsilonForAccuracy(
                [&](double e) { return geometricTail(-e / l1Sensitivity, m1 - 1); }, kTail,
                kEpsilonLow, kEpsilonHigh);
            if (!eps) {
                return eps;
            }
            double e = *eps;
            for (int i = 0; i < kMaxNudges && geometricHalfWidth(-e / l1Sensitivity) > halfWidth;
                 ++i) {
                e = std::nextafter(e, kInf);
            }
            return e;
        }
        case MechanismKind::Gaussian: {
            // σ = a/z_{0.975}; the smallest ε whose analytic σ at δ is ≤ that σ.
            if (auto s = validatePositiveFinite(l2Sensitivity, "the L2 sensitivity Δ2"); !s) {
                return s.error();
            }
            auto eps = gaussianEpsilonOfSigma(halfWidth / kNormalQuantile975, delta, l2Sensitivity);
            if (!eps) {
                return eps;
            }
            // The calibration's own tolerance (1e-13) sits far inside the bisection's (1e-10),
            // but check and step up rather than trust it.
            double e = *eps;
            for (int i = 0; i < 100; ++i) {
                auto sigma = gaussianSigma(
                    GaussianParams{e, delta, l2Sensitivity, GaussianCalibration::Analytic});
                if (!sigma) {
                    return sigma.error();
                }
                if (*sigma * kNormalQuantile975 <= halfWidth) {
                    return e;
                }
                e *= 1 + 1e-12;
            }
            return Error{"the Gaussian calibration does not reach ±" + formatNumber(halfWidth)};
        }
    }
    return Error{"unknown mechanism"};
}

namespace {

// PLD composition (the top of budget_plan.h). ------------------------------------------------

// A Gaussian statistic with noise σ under PLD; its ε (alone, at the total δ) is filled by
// describeAlone once the search is done.
Expected<Allocated> allocateGaussianNoise(const PlanStatistic& s, double sigma) {
    auto rho = gaussianRho(s.l2Sensitivity, sigma);
    auto n = gaussianNoise(sigma);
    if (!rho || !n) {
        return about(s, !rho ? rho.error().message : n.error().message);
    }
    StatisticAllocation a = base(s);
    a.rho = *rho;
    fillErrors(a, s, *n);
    return Allocated{a, BudgetCharge{s.label, 0, 0, *rho}};
}

// The noise of a statistic under PLD from its ε-equivalent WITHOUT sampling ε0: pure noise at
// ε0, Gaussian σ = Δ2/ε0 (its ρ is ε0²/2, as a pure ε0-DP mechanism's, Bun & Steinke 2016 Props
// 1.4 and 1.6).
Expected<Allocated> allocatePldNoise(const PlanStatistic& s, double epsilon0) {
    if (isPureDp(s.mechanism)) {
        return allocatePure(s, epsilon0);
    }
    return allocateGaussianNoise(s, s.l2Sensitivity / epsilon0);
}

// A held statistic under PLD: a held ε makes it alone (ε, δ_total)-DP (pure: ε-DP) after its
// sampling (basic amplification inverted); a held accuracy fixes its noise.
Expected<Allocated> allocateHeldPld(const PlanStatistic& s, double totalDelta) {
    const double a = s.hold.value;
    const bool pure = isPureDp(s.mechanism);
    if (s.hold.kind == HoldKind::Epsilon) {
        auto u = accounting::unamplifiedForTarget(a, pure ? 0.0 : totalDelta, s.samplingRate);
        if (!u) {
            return about(s, u.error().message);
        }
        if (pure) {
            return allocatePure(s, u->epsilon);
        }
        auto sigma = gaussianSigma(
            GaussianParams{u->epsilon, u->delta, s.l2Sensitivity, GaussianCalibration::Analytic});
        if (!sigma) {
            return about(s, sigma.error().message);
        }
        return allocateGaussianNoise(s, *sigma);
    }
    if (s.mechanism == MechanismKind::Gaussian) {
        double sigma = a / kNormalQuantile975;  // z σ ≤ a
        while (sigma * kNormalQuantile975 > a) {
            sigma = std::nextafter(sigma, 0.0);
        }
        return allocateGaussianNoise(s, sigma);
    }
    auto eps = epsilonForHalfWidth(s.mechanism, a, s.l1Sensitivity);
    if (!eps) {
        return about(s,
                     "accuracy ±" + formatNumber(a) + " is not reachable: " + eps.error().message);
    }
    return allocatePure(s, *eps);
}

// The statistic's own (ε, δ) under PLD, for display: pure: the amplified ε of its noise (δ = 0);
// Gaussian: the analytic ε of its σ at the total δ (Balle & Wang 2018), with sampling at
// δ0 = δ/q (≤ ½) and then amplified. Each an upper bound, rounded up.
Status describeAlone(StatisticAllocation& a, const PlanStatistic& s, double totalDelta) {
    const double q = s.samplingRate;
    double eps0 = 0;
    if (isPureDp(s.mechanism)) {
        eps0 = s.mechanism == MechanismKind::Laplace ? s.l1Sensitivity / a.noise.scale
                                                     : -s.l1Sensitivity * std::log(a.noise.scale);
        a.delta = 0;
    } else {
        double delta0 = totalDelta;
        if (q < 1) {
            auto u = accounting::unamplifiedForTarget(1, totalDelta, q);
            if (!u) {
                return about(s, u.error().message);
            }
            delta0 = u->delta;
        }
        auto e = gaussianEpsilonOfSigma(a.noise.scale, delta0, s.l2Sensitivity);
        if (!e) {
            return about(s, e.error().message);
        }
        eps0 = *e;
        a.delta = totalDelta;
    }
    a.epsilon = q < 1 ? amplifiedUp(eps0, q) : eps0;
    if (q < 1) {
        a.epsilonWithoutSampling = eps0;
    }
    return okStatus();
}

// The PLD accountant's ε at δ of the spent releases and the statistics (upper bound); +∞ when
// it has none (too little noise for the grid, or a δ below the mass at +∞).
double pldEpsilon(const BudgetPlan& plan, const std::vector<StatisticAllocation>& alloc,
                  const accounting::PldOptions& options) {
    std::vector<accounting::AccountedMechanism> mechs = plan.spentLosses;
    for (std::size_t i = 0; i < alloc.size(); ++i) {
        mechs.push_back(accounting::statisticMechanism(plan.statistics[i], alloc[i]));
        if (!mechs.back().validate()) {
            return kInf;
        }
    }
    if (mechs.empty()) {
        return 0;
    }
    auto e = accounting::PldAccount::upperEpsilon(accounting::mergeEqualMechanisms(mechs), options,
                                                  plan.total.delta);
    return e ? *e : kInf;
}

// The pessimistic PLDs (both neighbours when sampled) of the spent releases and the statistics;
// nullopt when the accountant has none (noise beyond its range).
std::optional<accounting::PldUpperAccount> pldUpper(const BudgetPlan& plan,
                                                    const std::vector<StatisticAllocation>& alloc,
                                                    const accounting::PldOptions& options) {
    std::vector<accounting::AccountedMechanism> mechs = plan.spentLosses;
    for (std::size_t i = 0; i < alloc.size(); ++i) {
        mechs.push_back(accounting::statisticMechanism(plan.statistics[i], alloc[i]));
        if (!mechs.back().validate()) {
            return std::nullopt;
        }
    }
    auto acc =
        accounting::PldUpperAccount::compose(accounting::mergeEqualMechanisms(mechs), options);
    if (!acc) {
        return std::nullopt;
    }
    return std::move(*acc);
}

Expected<PlanResult> allocatePld(const BudgetPlan& plan) {
    const auto& stats = plan.statistics;
    const std::size_t n = stats.size();
    accounting::PldOptions options;
    options.interval = plan.pldInterval;
    const double delta = plan.total.delta;
    // The composition must meet ε_total − the ledger's recorded excess.
    const double target = plan.total.epsilon - plan.spentExcess;
    const bool fromLedger = !plan.spent.empty();

    BudgetUsage before;
    before.composition = Composition::Pld;
    const double pastEpsilon = fromLedger ? pldEpsilon(plan, {}, options) : 0.0;
    if (fromLedger) {
        if (!(pastEpsilon <= target)) {
            return Error{
                "the releases already charged exceed the total budget: the PLD accountant "
                "gives them ε = " +
                formatNumber(pastEpsilon + plan.spentExcess) + " at δ = " + formatNumber(delta) +
                ", the total is ε = " + formatNumber(plan.total.epsilon)};
        }
        before.epsilonSpent = pastEpsilon + plan.spentExcess;
        before.deltaSpent = delta;
    }
    before.epsilonRemaining = std::max(0.0, plan.total.epsilon - before.epsilonSpent);
    before.deltaRemaining = delta;

    std::vector<std::optional<Allocated>> done(n);
    std::vector<std::size_t> free;
    std::vector<double> weights;
    for (std::size_t i = 0; i < n; ++i) {
        if (stats[i].hold.kind == HoldKind::None) {
            free.push_back(i);
            weights.push_back(stats[i].weight);
            continue;
        }
        auto a = allocateHeldPld(stats[i], delta);
        if (!a) {
            return a.error();
        }
        done[i] = *a;
    }
    double weightSum = 0;
    for (std::size_t j = 0; j < free.size(); ++j) {
        if (weights[j] == 0) {
            return about(stats[free[j]],
                         "weight 0 and no hold gives it no budget; give it a weight > 0, hold its "
                         "ε or accuracy, or remove it");
        }
        weightSum += weights[j];
    }
    // A family of allocations: ln t ↦ the free statistics' ε-equivalents WITHOUT sampling (ε0_j).
    // Statistic j's ρ share at scale t is ρ_j = t·w_j/Σw, its ε-equivalent √(2ρ_j).
    using Family = std::function<Expected<std::vector<double>>(double)>;
    auto shareEpsilon = [&](double lnT, std::size_t j) {
        return std::sqrt(2 * std::exp(lnT) * weights[j] / weightSum);
    };
    // Shapes without sampling: ε0_j = √(2ρ_j).
    const Family unsampledShape = [&](double lnT) -> Expected<std::vector<double>> {
        std::vector<double> e0(free.size());
        for (std::size_t j = 0; j < free.size(); ++j) {
            e0[j] = shareEpsilon(lnT, j);
        }
        return e0;
    };
    // The amplification rule: a sampled statistic's √(2ρ_j) is its amplified ε, its noise that of
    // ε0 = ln(1 + (e^{√(2ρ_j)} − 1)/q) (unamplifiedForTarget).
    const Family amplifiedShape = [&](double lnT) -> Expected<std::vector<double>> {
        std::vector<double> e0(free.size());
        for (std::size_t j = 0; j < free.size(); ++j) {
            const PlanStatistic& s = stats[free[j]];
            e0[j] = shareEpsilon(lnT, j);
            if (s.samplingRate < 1) {
                auto u = accounting::unamplifiedForTarget(e0[j], 0, s.samplingRate);
                if (!u) {
                    return about(s, u.error().message);
                }
                e0[j] = u->epsilon;
            }
        }
        return e0;
    };
    auto at = [&](const std::vector<double>& e0) -> Expected<std::vector<StatisticAllocation>> {
        std::vector<StatisticAllocation> out(n);
        for (std::size_t i = 0; i < n; ++i) {
            if (done[i]) {
                out[i] = done[i]->result;
            }
        }
        for (std::size_t j = 0; j < free.size(); ++j) {
            auto a = allocatePldNoise(stats[free[j]], e0[j]);
            if (!a) {
                return a.error();
            }
            out[free[j]] = a->result;
        }
        return out;
    };
    // ln(δ(ε_total − the ε bisection's resolution)/δ_total) of the plan `p` (the plan itself, or
    // it without sampling) at ln t on the grid of `o`, pessimistic, worse neighbour: ≤ 0 exactly
    // when the plan meets the total (PldUpperAccount::meets: its ε(δ) is then ≤ ε_total). +∞
    // where the allocation itself fails (noise beyond double range). One composition and one
    // δ(ε) per direction: no ε bisection.
    // `keep`: where to keep the composed account (the refinement keeps the fine one it accepts).
    using Kept = std::optional<accounting::PldUpperAccount>;
    auto excess = [&](const BudgetPlan& p, const Family& f, double lnT,
                      const accounting::PldOptions& o, Kept* keep = nullptr) {
        auto e0 = f(lnT);
        if (!e0) {
            return kInf;
        }
        auto a = at(*e0);
        if (!a) {
            return kInf;
        }
        auto acc = pldUpper(p, *a, o);
        if (!acc || !(target >= 0)) {
            return kInf;
        }
        const double d = acc->deltaBelow(target);
        if (keep) {
            *keep = std::move(acc);
        }
        return std::log(std::max(d, 1e-300)) - std::log(delta);
    };
    const std::string whatIsLeft =
        fromLedger ? "what the releases already charged leave" : "the total budget";
    // The held statistics with the past releases first: if they alone exceed the total, no scale
    // of the others can help.
    if (free.size() < n) {
        BudgetPlan held = plan;
        held.statistics.clear();
        std::vector<StatisticAllocation> heldAlloc;
        for (std::size_t i = 0; i < n; ++i) {
            if (done[i]) {
                held.statistics.push_back(stats[i]);
                heldAlloc.push_back(done[i]->result);
            }
        }
        const double e = pldEpsilon(held, heldAlloc, options);
        if (!(e <= target)) {
            return Error{"the held statistics exceed " + whatIsLeft +
                         ": with them the PLD accountant gives ε = " +
                         formatNumber(e + plan.spentExcess) + " at δ = " + formatNumber(delta) +
                         " (total ε = " + formatNumber(plan.total.epsilon) + ")"};
        }
    }
    // The search runs on a coarse grid (interval max(h, kPldCoarseInterval), every Gaussian on
    // the grid too): a discretised sampled Gaussian of small q spreads over far fewer points
    // there, the δ(ε) sum has no Φ pair per point, and the pessimistic rounding keeps every coarse
    // answer an upper bound. Only the final steps (refine) compose on the plan's own grid h, with
    // the plan's own treatment of the Gaussians, and only what they find feasible there is used.
    accounting::PldOptions coarse = options;
    coarse.interval = std::max(options.interval, kPldCoarseInterval);
    coarse.discretiseGaussian = true;
    const std::string nothingLeft =
        fromLedger ? "the releases already charged and the held statistics use the whole budget "
                     "under the PLD accountant; nothing is left for it"
                   : "the held statistics use the whole budget under the PLD accountant; nothing "
                     "is left for it";
    // The largest ln t (to 1e-6) whose composition on the grid `o` meets the target, bracketed
    // from `start` by steps of ln 2 (or between `start` and a known failing `upper`). Every end
    // kept as "lo" has been composed and checked.
    auto search = [&](const BudgetPlan& p, const Family& f, double start,
                      std::optional<double> upper) -> Expected<double> {
        auto ok = [&](double lnT) { return excess(p, f, lnT, coarse) <= 0; };
        double lo = start, hi = start;
        if (upper) {
            hi = *upper;
        } else if (ok(start)) {
            for (;;) {
                hi = lo + std::numbers::ln2;
                if (!ok(hi)) {
                    break;
                }
                lo = hi;
                if (lo - start > 60) {
                    return about(stats[free.front()],
                                 "the PLD accountant finds no limit to its budget (internal)");
                }
            }
        } else {
            for (;;) {
                lo = hi - std::numbers::ln2;
                if (ok(lo)) {
                    break;
                }
                hi = lo;
                if (start - hi > 80) {
                    return about(stats[free.front()], nothingLeft);
                }
            }
        }
        while (hi - lo > 1e-6) {
            const double mid = (lo + hi) / 2;
            (ok(mid) ? lo : hi) = mid;
        }
        return lo;
    };
    // From a coarse answer lc: the largest ln t that meets the target on the plan's own grid, with
    // few fine compositions (each can cost as much as the whole coarse search): a secant step
    // from the coarse slope of the excess, then regula falsi inside the bracket, stopping once the
    // answer is within kPldRefineTolerance of the crossing in ln t (about half that in the noise).
    // If lc fails on the fine grid it steps DOWN until one passes: the answer is always one the
    // fine grid accepted.
    // The fine account of the last answer refine() returned (nullopt: it composed none).
    Kept accepted;
    auto refine = [&](const BudgetPlan& p, const Family& f, double lc) -> Expected<double> {
        accepted.reset();
        if (coarse.interval == options.interval && options.discretiseGaussian) {
            return lc;  // the search already ran on the plan's own grid
        }
        Kept account;
        auto fine = [&](double lnT) { return excess(p, f, lnT, options, &account); };
        // d excess/d ln t from the coarse grid (the excess grows with t).
        const double step = 1e-2;
        double slope = (excess(p, f, lc, coarse) - excess(p, f, lc - step, coarse)) / step;
        if (!(slope > 0) || !std::isfinite(slope)) {
            slope = 10;
        }
        double lo = 0, glo = 0, hi = 0, ghi = 0;
        bool haveLo = false, haveHi = false;
        auto probe = [&](double lnT) {
            const double g = fine(lnT);
            if (g <= 0) {
                if (!haveLo || lnT > lo) {
                    lo = lnT;
                    glo = g;
                    accepted = std::move(account);
                }
                haveLo = true;
            } else if (!haveHi || lnT < hi) {
                hi = lnT;
                ghi = g;
                haveHi = true;
            }
        };
        probe(lc);
        // Gaussians alone compose exactly (no grid: a fine composition costs microseconds):
        // refined to 1e-7 in ln t as the search itself would be.
        double tolerance = kPldRefineTolerance;
        int probes = kPldRefineProbes;
        const Kept& first = accepted ? accepted : account;
        if (first && first->remove.pmf().size() == 1 && !first->add) {
            tolerance = 1e-7;
            probes = 60;
        }
        // Each step aims a quarter tolerance BELOW the estimated crossing, so that it usually
        // lands feasible and close enough to stop (a fine composition saved).
        for (int i = 0; i < probes; ++i) {
            double next = 0;
            if (haveLo && haveHi) {
                const double w = hi - lo;
                const double root = std::isfinite(ghi) && std::isfinite(glo)
                                        ? lo - glo / (ghi - glo) * w
                                        : lo + w / 2;
                if (w <= tolerance || root - lo <= tolerance / 2) {
                    break;
                }
                // δ(ε) of pure mechanisms reaches 0 (log −690): the secant is then useless.
                next = glo < -20 ? lo + w / 2
                                 : std::clamp(root - tolerance / 4, lo + 0.1 * w, hi - 0.1 * w);
            } else if (haveLo) {
                if (!std::isfinite(glo) || -glo / slope <= tolerance / 2) {
                    break;  // the crossing is estimated within the tolerance above lo
                }
                next = lo + std::min(-glo / slope, 0.1) - tolerance / 4;
            } else {
                next = hi - std::max(std::isfinite(ghi) ? ghi / slope : 1e-3, 1e-6);
            }
            const double loBefore = haveLo ? lo : -kInf, gBefore = glo;
            probe(next);
            if (haveLo && lo > loBefore && loBefore > -kInf && lo - loBefore > 1e-9) {
                // Two fine feasible points: the fine slope replaces the coarse one.
                const double s2 = (glo - gBefore) / (lo - loBefore);
                if (s2 > 0 && std::isfinite(s2)) {
                    slope = s2;
                }
            }
        }
        // Not converged within the probes (a loss with atoms: δ(ε) steps): plain bisection.
        for (int i = 0; haveLo && haveHi && hi - lo > tolerance && i < 40; ++i) {
            probe(lo + (hi - lo) / 2);
        }
        for (double back = 1e-4; !haveLo; back *= 2) {
            if (back > 80) {
                return about(stats[free.front()], nothingLeft);
            }
            probe((haveHi ? hi : lc) - back);
        }
        return lo;
    };
    // Search and refine one family: the plan's ln t on its own grid.
    auto solve = [&](const BudgetPlan& p, const Family& f, double start,
                     std::optional<double> upper = std::nullopt) -> Expected<double> {
        auto lc = search(p, f, start, upper);
        if (!lc) {
            return lc;
        }
        return refine(p, f, *lc);
    };

    std::vector<StatisticAllocation> chosen;
    std::string samplingRule;
    if (free.empty()) {
        auto a = at({});
        if (!a) {
            return a.error();
        }
        chosen = *a;
    } else {
        // The bracket starts at the zCDP budget (never far: PLD ≤ zCDP without sampling).
        auto rho0 = zcdpBudget(plan.total.epsilon, delta);
        const double start = std::log(rho0 ? *rho0 : 1.0);
        const bool freeSampled = std::any_of(
            free.begin(), free.end(), [&](std::size_t i) { return stats[i].samplingRate < 1; });
        Expected<double> lnT = Error{""};
        Family family = amplifiedShape;
        if (!freeSampled) {
            lnT = solve(plan, amplifiedShape, start);
        } else {
            // Sampling a statistic must never give another statistic MORE noise than the plan
            // without that sampling (issue #22 item 2; docs/accounting.md has a worked example).
            // The amplification rule can: at a δ far below q the noise it gives a sampled
            // Gaussian (σ = Δ2/ε0 with the PURE-DP inverse ε0) has a tail that costs more than
            // the statistic without sampling, and the common scale then drops for everyone.
            // So: tu = the scale of the same plan without the free statistics' sampling (the
            // very allocation allocatePlan gives it). If the amplification rule meets the total
            // at tu (with sampling), it is searched from tu upwards: every statistic then gets at
            // most its noise without sampling. Otherwise the others keep their noise at tu
            // (sampling can only lower a mechanism's privacy loss, so that is still within the
            // total) and only the sampled statistics get less: the amplification rule's noise at
            // a scale s, but never more than at tu, with s the largest that meets the total.
            BudgetPlan flat = plan;
            for (std::size_t i : free) {
                flat.statistics[i].samplingRate = 1;
            }
            auto lu = solve(flat, unsampledShape, start);
            if (!lu) {
                return lu.error();
            }
            const double tu = *lu;
            const Family capped = [&, tu](double lnS) -> Expected<std::vector<double>> {
                auto atS = amplifiedShape(lnS);
                if (!atS) {
                    return atS;
                }
                std::vector<double> e0(free.size());
                for (std::size_t j = 0; j < free.size(); ++j) {
                    e0[j] = stats[free[j]].samplingRate < 1
                                ? std::max((*atS)[j], shareEpsilon(tu, j))
                                : shareEpsilon(tu, j);
                }
                return e0;
            };
            // At s = tu the capped rule IS the amplification rule (its sampled ε0 exceed
            // √(2ρ_j(tu))). Below lmin every sampled statistic is at its noise of tu (the amplified
            // ε of √(2ρ_j(tu)), squared back to a scale): the plan without sampling, sampled.
            double lmin = tu;
            for (std::size_t j = 0; j < free.size(); ++j) {
                const double q = stats[free[j]].samplingRate;
                if (q < 1) {
                    const double amp = std::log1p(q * std::expm1(shareEpsilon(tu, j)));
                    lmin = std::min(lmin, std::log(amp * amp * weightSum / (2 * weights[j])));
                }
            }
            lmin -= 1e-3;
            if (excess(plan, capped, tu, coarse) <= 0) {
                // The amplification rule meets the total at tu: searched from tu up.
                lnT = solve(plan, amplifiedShape, tu);
                if (lnT && *lnT < tu) {
                    lnT = Error{""};  // the fine grid refused tu: use the capped rule
                }
            }
            if (!lnT && excess(plan, capped, lmin, coarse) <= 0) {
                lnT = solve(plan, capped, lmin, tu);
                family = capped;
                samplingRule =
                    " The statistics without sampling keep the noise they have in the plan "
                    "without sampling: the amplification rule would have given them more (its "
                    "sampled noise costs more than that at this δ); the sampled statistics get "
                    "what is left.";
            }
            if (!lnT) {
                // Not expected (a grid artefact at tu): the amplification rule alone, still
                // checked like every allocation.
                lnT = solve(plan, amplifiedShape, start);
                family = amplifiedShape;
                samplingRule.clear();
            }
        }
        if (!lnT) {
            return lnT.error();
        }
        auto e0 = family(*lnT);
        if (!e0) {
            return e0.error();
        }
        auto a = at(*e0);
        if (!a) {
            return a.error();
        }
        chosen = *a;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (auto st = describeAlone(chosen[i], stats[i], delta); !st) {
            return st.error();
        }
    }
    // The final check: the allocation as reported, composed on the plan's own grid (the
    // refinement's accepted composition of exactly this noise, or composed here), must meet the
    // total; its ε is the smallest (to the accountant's resolution) that it meets, bisected
    // near the target where the plan is tight.
    if (!accepted) {
        accepted = pldUpper(plan, chosen, options);
    }
    if (!accepted || !accepted->meets(target, delta)) {
        return Error{"internal: the PLD allocation does not meet the total (ε = " +
                     formatNumber(pldEpsilon(plan, chosen, options)) + ")"};
    }
    double spent = target;
    {
        const double below = target * (1 - 1e-3);
        if (accepted->meets(below, delta)) {
            auto e = accepted->epsilon(delta);  // not tight: the accountant's own bisection
            if (!e) {
                return e.error();
            }
            spent = *e;
        } else {
            // meets(lo) false, meets(hi) true; stop at the resolution of epsilon() (h/8).
            double lo = below, hi = target;
            while (hi - lo > std::max(options.interval / 8, 1e-12 * hi)) {
                const double mid = lo + (hi - lo) / 2;
                (accepted->meets(mid, delta) ? hi : lo) = mid;
            }
            spent = hi;
        }
    }
    PlanResult r;
    r.total = plan.total;
    r.composition = Composition::Pld;
    r.pldInterval = options.interval;
    r.start = before;
    r.spentCharges = plan.spent.size();
    r.usage.composition = Composition::Pld;
    r.usage.epsilonSpent = spent + plan.spentExcess;
    r.usage.deltaSpent = delta;
    r.usage.epsilonRemaining = std::max(0.0, plan.total.epsilon - r.usage.epsilonSpent);
    r.usage.deltaRemaining = delta;
    double rhoSum = 0;
    for (const auto& a : chosen) {
        rhoSum += a.rho;
    }
    for (std::size_t i = 0; i < n; ++i) {
        chosen[i].share = rhoSum > 0 ? chosen[i].rho / rhoSum : 0.0;
        chosen[i].samplingRate = stats[i].samplingRate;
    }
    r.statistics = std::move(chosen);
    r.other = otherAccounting(plan, stats, r.statistics);
    r.sampling = samplingSentence(plan) + samplingRule;
    if (free.empty() && r.usage.epsilonRemaining > 0) {
        r.warnings.push_back(
            "every statistic is held; ε = " + formatNumber(r.usage.epsilonRemaining) +
            " of the budget is left unused");
    }
    return r;
}

}  // namespace

Expected<PlanResult> allocatePlan(const BudgetPlan& plan) {
    if (auto s = plan.validate(); !s) {
        return s.error();
    }
    if (plan.composition == Composition::Pld) {
        return allocatePld(plan);
    }
    auto created = BudgetLedger::create(plan.total, plan.composition);
    if (!created) {
        return created.error();
    }
    BudgetLedger ledger = *created;
    const auto& stats = plan.statistics;
    const std::size_t n = stats.size();
    const bool zcdp = plan.composition == Composition::Zcdp;

    // What the ledger the plan starts from has spent already.
    double spentEpsilon = 0;
    for (const BudgetCharge& c : plan.spent) {
        if (auto s = ledger.charge(c); !s) {
            return Error{"the releases already charged exceed the total budget: " +
                         s.error().message};
        }
        spentEpsilon += c.epsilon;
    }
    const BudgetUsage before = ledger.usage();
    const bool fromLedger = !plan.spent.empty();
    const std::string whatIsLeft =
        fromLedger ? "what the releases already charged leave" : "the total budget";

    // Basic: the δ left in equal shares to the Gaussian statistics (exact split, fits the total).
    std::vector<double> deltas(n, 0.0);
    std::vector<double> gaussianWeights(n, 0.0);
    bool anyGaussian = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (stats[i].mechanism == MechanismKind::Gaussian) {
            gaussianWeights[i] = 1;
            anyGaussian = true;
        }
    }
    if (!zcdp && anyGaussian) {
        const double deltaLeft = fromLedger ? before.deltaRemaining : plan.total.delta;
        if (!(deltaLeft > 0)) {
            const auto g = std::find(gaussianWeights.begin(), gaussianWeights.end(), 1.0);
            return about(stats[static_cast<std::size_t>(g - gaussianWeights.begin())],
                         "the releases already charged leave no δ for the Gaussian mechanism; "
                         "choose Laplace or geometric");
        }
        auto d = splitBudget(deltaLeft, gaussianWeights);
        if (!d) {
            return d.error();
        }
        deltas = *d;
    }

    std::vector<std::optional<Allocated>> done(n);
    // 1. Held statistics first.
    for (std::size_t i = 0; i < n; ++i) {
        if (stats[i].hold.kind == HoldKind::None) {
            continue;
        }
        auto a = allocateHeld(stats[i], plan, deltas[i]);
        if (!a) {
            return a.error();
        }
        if (auto s = ledger.charge(a->charge); !s) {
            return Error{"the held statistics exceed " + whatIsLeft + ": " + s.error().message};
        }
        done[i] = *a;
    }
    // 2. The rest split by weight.
    std::vector<std::size_t> free;
    std::vector<double> weights;
    for (std::size_t i = 0; i < n; ++i) {
        if (stats[i].hold.kind == HoldKind::None) {
            free.push_back(i);
            weights.push_back(stats[i].weight);
        }
    }
    if (!free.empty()) {
        if (std::all_of(weights.begin(), weights.end(), [](double w) { return w == 0; })) {
            return Error{
                "all statistics without a hold have weight 0: give at least one a weight "
                "> 0"};
        }
        for (std::size_t j = 0; j < free.size(); ++j) {
            if (weights[j] == 0) {
                return about(stats[free[j]],
                             "weight 0 and no hold gives it no budget; give it a "
                             "weight > 0, hold its ε or accuracy, or remove it");
            }
        }
        const BudgetUsage u = ledger.usage();
        double start = 0;
        if (zcdp) {
            // The ledger reports the spent ε of Σρ rounded up by a relative 1e-12
            // (core/choosing/budget.h); leaving 3e-12 of ρ_budget more keeps even that reported ε
            // within the total (dε/dρ ≥ ε/(2ρ) at the budget, so the conversion drops by ≥ 2e-12
            // relative).
            start = u.rhoRemaining - 3 * kZcdpRelativeMargin * u.rhoBudget;
        } else {
            double held = 0;
            for (const auto& d : done) {
                held += d ? d->result.epsilon : 0.0;
            }
            // The ledger's remainder is rounded down in binary; one ulp up lets largestFitting
            // find the largest double whose decimal reading still fits (0.0004, not 0.0004 − ulp).
            start = std::nextafter(
                std::max(u.epsilonRemaining, plan.total.epsilon - spentEpsilon - held), kInf);
        }
        Expected<double> rest =
            start > 0 ? largestFitting(ledger, start) : Expected<double>(Error{});
        if (!rest || !(*rest > 0)) {
            return about(stats[free.front()],
                         fromLedger ? "the releases already charged and the held statistics use "
                                      "the whole budget; nothing is left for it"
                                    : "the held statistics use the whole budget; nothing is left "
                                      "for it");
        }
        auto shares = splitBudget(*rest, weights);
        if (!shares) {
            return shares.error();
        }
        // Statistics that differ only in their label get the same allocation at the same share
        // (a plan of 10^5 statistics has few distinct ones): each distinct one is calibrated
        // once, then relabelled (issue #17 item 5: 10^5 Gaussian statistics under zCDP took
        // 1.2 s, one analytic calibration each).
        using Key =
            std::tuple<int, std::int64_t, double, double, bool, double, double, double, double>;
        std::map<Key, Allocated> computed;
        for (std::size_t j = 0; j < free.size(); ++j) {
            const std::size_t i = free[j];
            const double share = (*shares)[j];
            if (!(share > 0)) {
                return about(stats[i],
                             "its share of the budget rounds to 0; give it a larger "
                             "weight or a larger total");
            }
            const PlanStatistic& st = stats[i];
            const Key key{static_cast<int>(st.mechanism),
                          st.bins,
                          st.l1Sensitivity,
                          st.l2Sensitivity,
                          st.records.has_value(),
                          st.records.value_or(0.0),
                          share,
                          deltas[i],
                          st.samplingRate};
            Expected<Allocated> a = Error{""};
            if (auto hit = computed.find(key); hit != computed.end()) {
                Allocated same = hit->second;
                same.result.label = st.label;
                same.result.hold = st.hold;
                same.charge.label = st.label;
                a = std::move(same);
            } else {
                a = zcdp ? allocateFromRho(st, share, plan.total.delta)
                         : allocateBasic(st, share, deltas[i]);
                if (a) {
                    computed.emplace(key, *a);
                }
            }
            if (!a) {
                return a.error();
            }
            if (auto s = ledger.charge(a->charge); !s) {
                return Error{"internal: the split overran the budget: " + s.error().message};
            }
            done[i] = *a;
        }
    }

    PlanResult r;
    r.total = plan.total;
    r.composition = plan.composition;
    r.usage = ledger.usage();
    r.start = before;
    r.spentCharges = plan.spent.size();
    r.rhoBudget = zcdp ? r.usage.rhoBudget : 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        StatisticAllocation a = done[i]->result;
        a.share = zcdp ? a.rho / r.rhoBudget : a.epsilon / plan.total.epsilon;
        a.samplingRate = stats[i].samplingRate;
        r.statistics.push_back(std::move(a));
    }
    r.other = otherAccounting(plan, stats, r.statistics);
    r.sampling = samplingSentence(plan);
    if (!zcdp && !anyGaussian && plan.total.delta > 0) {
        r.warnings.push_back("the total δ is not used: only Gaussian statistics need δ");
    }
    if (free.empty()) {
        const double left = zcdp ? r.usage.rhoRemaining : r.usage.epsilonRemaining;
        if (left > 0) {
            r.warnings.push_back("every statistic is held; " + std::string(zcdp ? "ρ = " : "ε = ") +
                                 formatNumber(left) + " of the budget is left unused");
        }
    }
    return r;
}

}  // namespace dpx
