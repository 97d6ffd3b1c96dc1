// The four accountants of a plan of mechanisms (issue #22 "Tight accounting"): each answers ε(δ)
// and δ(ε) for the composition of every mechanism (each `count` times) on the same data.
//  - basic: Σε_i, Σδ_i (Dwork & Roth 2014 Thm 3.16). The pure mechanisms give ε_i; δ is split
//    in equal shares among the uses of the Gaussian ones, each at its exact ε(σ, δ_i) (Balle &
//    Wang 2018; the discrete Gaussian through its zCDP, Canonne, Kamath & Steinke 2020).
//    δ(ε) is the smallest δ whose basic ε(δ) is ≤ ε (bisection on ln δ, rounded up).
//  - zCDP: ρ = Σρ_i; ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016 Prop 1.3) and its inverse
//    δ = e^{−(ε−ρ)²/(4ρ)} for ε > ρ.
//  - Rényi DP (renyi.h, Mironov 2017, improved conversion).
//  - PLD (privacy_loss.h): the tight one, with an upper and a lower bound.
// Poisson-subsampled mechanisms (AccountedMechanism::samplingRate < 1): basic amplifies each use
// (Li, Qardaji & Su 2012); zCDP charges the ρ without sampling (no tight zCDP amplification
// exists, mechanism_loss.h); Rényi uses Mironov, Talwar & Zhang 2019 for the Gaussian and the
// amplified ε' for the pure mechanisms (renyi.cpp); PLD composes the add and remove directions.
// Each is a valid upper bound on the plan's true privacy profile; the PLD's lower bound brackets
// the truth from below. Theory orders them PLD ≤ Rényi ≤ zCDP always (up to the PLD grid); basic
// is tighter than the others for a few pure-DP releases and much looser for many.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/accounting/mechanism_loss.h"
#include "core/accounting/privacy_loss.h"
#include "core/base/expected.h"

namespace dpx::accounting {

enum class Accountant { Basic, Zcdp, Renyi, Pld };
inline constexpr Accountant kAllAccountants[] = {Accountant::Basic, Accountant::Zcdp,
                                                 Accountant::Renyi, Accountant::Pld};
const char* accountantName(Accountant a);   // "basic", "zcdp", "renyi", "pld"
const char* accountantTitle(Accountant a);  // "basic composition (Dwork & Roth 2014)", ...
// Accepts the names above. Errors name the accepted values.
Expected<Accountant> accountantFromName(const std::string& name);

struct AccountantAnswer {
    double value = 0;             // ε or δ: an upper bound on the plan's true value
    std::optional<double> lower;  // PLD only: a lower bound on the true value
    double alpha = 0;             // Rényi only: the order used
};

// The mechanisms of a plan with the PLD composed once (both roundings), so that many ε(δ) or
// δ(ε) questions (a profile curve) cost only their evaluation.
class PlanAccountant {
public:
    // Errors: invalid mechanisms or options (named). withPld = false skips composing the PLD
    // (then the PLD accountant answers with an error).
    static Expected<PlanAccountant> create(std::vector<AccountedMechanism> mechs,
                                           const PldOptions& options = {}, bool withPld = true);
    const std::vector<AccountedMechanism>& mechanisms() const { return mechs_; }
    const PldOptions& pldOptions() const { return options_; }
    const std::optional<PldAccount>& pld() const { return pld_; }

    // Errors: δ ∉ (0, 1); no finite ε for that δ (named).
    Expected<AccountantAnswer> epsilon(Accountant a, double delta) const;
    // Errors: ε not finite ≥ 0.
    Expected<AccountantAnswer> delta(Accountant a, double epsilon) const;

private:
    PlanAccountant(std::vector<AccountedMechanism> mechs, PldOptions options,
                   std::optional<PldAccount> pld)
        : mechs_(std::move(mechs)), options_(options), pld_(std::move(pld)) {}
    Expected<double> basicEpsilon(double delta) const;
    std::vector<AccountedMechanism> mechs_;
    PldOptions options_;
    std::optional<PldAccount> pld_;
};

// Calibration on the safe side: the smallest noise scale s (Laplace b, Gaussian or discrete
// Gaussian σ; `shape.parameter` is ignored) such that `shape` used `shape.count` times satisfies
// (ε, δ) under accountant `a` (PLD: its upper bound). Bisection on ln s to 1e-9 relative; the
// answer is the bracket's upper end and is checked: a·ε(δ) at the returned s is ≤ ε (never an
// overshoot). Errors: a shape that is not a scale mechanism, ε not finite > 0, δ ∉ (0, 1) (and
// δ = 0 allowed only for basic with Laplace), no scale in [1e-6, 1e9]·Δ reaches the target.
Expected<double> calibrateScale(Accountant a, const AccountedMechanism& shape, double epsilon,
                                double delta, const PldOptions& options = {});

}  // namespace dpx::accounting
