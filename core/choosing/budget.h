// Privacy-budget arithmetic (issue #6 Budget view, issue #8 release ledger): a total (ε, δ), the
// releases charged against it, splitting a total into shares, and the ε a statistic needs for a
// given accuracy.
//
// Composition of k releases on the same data:
//  - basic: (Σε_i, Σδ_i)-DP (Dwork & Roth 2014 Thm 3.16);
//  - zCDP: ρ adds (Bun & Steinke 2016 §1, composition); ε-DP ⇒ (ε²/2)-zCDP (Prop 1.4); the Gaussian
//    mechanism is Δ2²/(2σ²)-zCDP (Prop 1.6); ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP (Prop 1.3).
//
// Never overrunning the total. Every double given to the ledger (ε, δ, ρ, the total) is taken as
// the shortest decimal that rounds to it (std::to_chars; the number as typed, e.g. 0.1 = 1/10),
// and that decimal is held as an exact rational (boost::multiprecision::cpp_rational), so basic
// composition sums and compares exactly: ten charges of 0.1 fit a total of 1 exactly, and one more
// ulp does not. (The binary double nearest 0.1 is 0.1000000000000000055..., so summing the exact
// binary values would refuse 10 × 0.1 against 1; the decimal reading is what the user meant, and
// the two differ by < 1.2e-16 relative, far below the accuracy of any noise calibration.)
// zCDP involves √ and ln, so its conversion cannot be exact: ρ sums are exact rationals, and a
// charge fits only if Σρ ≤ ρ_budget·(1 − kZcdpRelativeMargin), with ρ_budget the largest ρ whose
// (ε, δ) conversion stays within the total. The margin (1e-12) is far above the few-ulp error of
// the conversion, so the ledger refuses when in doubt.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/privacy_params.h"

namespace dpx {

// Pld: the privacy loss distribution of core/accounting/privacy_loss.h, a release ledger's
// accountant (io/release/privacy_ledger.h) and a plan's (budget_plan.h); BudgetLedger refuses it
// (what it leaves is not a sum).
enum class Composition { Basic, Zcdp, Pld };
const char* compositionName(Composition c);  // "basic" / "zcdp" / "pld"
Expected<Composition> compositionFromName(const std::string& name);

inline constexpr double kZcdpRelativeMargin = 1e-12;

// ρ = ε²/2 for a pure ε-DP mechanism (Bun & Steinke 2016 Prop 1.4). Errors: ε not finite > 0.
Expected<double> zcdpOfPureDp(double epsilon);
// ρ = Δ2²/(2σ²) for the Gaussian mechanism (Bun & Steinke 2016 Prop 1.6).
Expected<double> gaussianRho(double l2Sensitivity, double sigma);
// ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016 Prop 1.3). Errors: ρ not finite ≥ 0, δ ∉ (0, 1).
Expected<double> zcdpToEpsilon(double rho, double delta);
// The largest ρ with ρ + 2√(ρ L) ≤ ε, L = ln(1/δ): (√(ε + L) − √L)² = ε²/(√(ε + L) + √L)² (the
// second form has no cancellation). Errors: ε not finite > 0, δ ∉ (0, 1).
Expected<double> zcdpBudget(double epsilon, double delta);

// One release charged to the budget: its (ε, δ) and, where known, its zCDP ρ.
struct BudgetCharge {
    std::string label;
    double epsilon = 0;         // finite ≥ 0
    double delta = 0;           // in [0, 1)
    std::optional<double> rho;  // finite ≥ 0; required for zCDP accounting
    Status validate() const;
};
// A pure ε-DP release: (ε, 0) with ρ = ε²/2.
Expected<BudgetCharge> pureDpCharge(std::string label, double epsilon);
// A Gaussian release calibrated to (ε, δ) with noise σ and L2 sensitivity Δ2: ρ = Δ2²/(2σ²).
// δ must be in (0, 1) (validateDelta).
Expected<BudgetCharge> gaussianCharge(std::string label, PrivacyParams privacy,
                                      double l2Sensitivity, double sigma);

// The total (ε, δ) of a budget: ε finite > 0, δ in [0, 1); zCDP accounting needs δ > 0.
struct BudgetTotal : PrivacyParams {
    Status validate() const;  // PrivacyParams::validate's message after "total budget: "
};

struct BudgetUsage {
    Composition composition = Composition::Basic;
    // Basic: Σε, Σδ as the smallest double whose shortest decimal (the reading above) is ≥ the
    // exact sum, so ten charges of 1e-7 show 1e-06, not 1.0000000000000002e-06; zCDP: the (ε, δ)
    // of Σρ at the total δ (ε rounded up).
    double epsilonSpent = 0;
    double deltaSpent = 0;
    // Basic: total − spent, exact, rounded down; zCDP: ε left = total ε − epsilonSpent (down).
    double epsilonRemaining = 0;
    double deltaRemaining = 0;
    // zCDP only (0 for basic): Σρ rounded up, ρ_budget·(1 − margin) − Σρ rounded down.
    double rhoSpent = 0;
    double rhoRemaining = 0;
    double rhoBudget = 0;
    // Basic only: the exact sums as fractions ("1", "3/10") for display and audit.
    std::string epsilonSpentExact;
    std::string deltaSpentExact;
};

class BudgetLedger {
public:
    static Expected<BudgetLedger> create(BudgetTotal total, Composition composition);

    const BudgetTotal& total() const { return total_; }
    Composition composition() const { return composition_; }
    const std::vector<BudgetCharge>& charges() const { return charges_; }

    // OK if `next` fits what is left; otherwise an error saying what it would overrun and by how
    // much. Basic: Σε + ε ≤ total ε and Σδ + δ ≤ total δ, exactly (a charge with only a ρ is
    // refused: it has no (ε, δ) to add). zCDP: next.rho is required and
    // Σρ + ρ ≤ ρ_budget·(1 − kZcdpRelativeMargin).
    Status fits(const BudgetCharge& next) const;
    // fits() and then records `next`; the ledger is unchanged on error.
    Status charge(BudgetCharge next);
    // Removes charge i (a release plan being edited). Errors: i out of range.
    Status remove(std::size_t index);

    BudgetUsage usage() const;

private:
    using Exact = boost::multiprecision::cpp_rational;
    BudgetLedger(BudgetTotal total, Composition composition);
    Status fitsExact(const BudgetCharge& next, const Exact& epsilon, const Exact& delta,
                     const Exact& rho) const;
    BudgetTotal total_;
    Composition composition_;
    std::vector<BudgetCharge> charges_;
    // Running exact sums of the charges' decimal readings, kept by charge() and remove(), and the
    // total's exact readings, so that fits() and usage() cost the same whatever the number of
    // charges (issue #17: re-summing every charge made a plan of 10^4 statistics take minutes).
    Exact epsilonSum_, deltaSum_, rhoSum_;
    Exact totalEpsilon_, totalDelta_, rhoAllowance_;
};

// Shares of `total` in proportion to `weights` (finite ≥ 0, not all 0): share_i = total·w_i/Σw
// computed exactly and rounded down to a double whose decimal reading (as above) does not exceed
// the exact share, so the shares always fit the total in a BudgetLedger; equal weights that divide
// the total exactly give exact shares (10 × 0.1 of 1). A zero weight gets 0.
// Errors: total not finite > 0, bad or empty weights.
Expected<std::vector<double>> splitBudget(double total, const std::vector<double>& weights);

// The smallest ε in [epsilonLow, epsilonHigh] with errorAt(ε) ≤ target, for an error that does not
// increase with ε (a statistic's expected error at its share of the budget). Bisection on log ε
// until the bracket's relative width is ≤ relativeTolerance; the returned ε always satisfies
// errorAt(ε) ≤ target (it is the upper end of the bracket). Errors: bad bounds or tolerance,
// target not finite > 0, errorAt(epsilonHigh) > target (not reachable) or a NaN from errorAt.
Expected<double> epsilonForAccuracy(const std::function<double(double)>& errorAt, double target,
                                    double epsilonLow = 1e-6, double epsilonHigh = 1e3,
                                    double relativeTolerance = 1e-10);

}  // namespace dpx
