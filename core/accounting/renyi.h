// The Rényi-DP (RDP) accountant (Mironov 2017). Named "Rényi" (`renyi`) in the program because
// "RDP" already means random differential privacy there (the More mechanisms tab, `dpx rdp`).
//
// A mechanism is (α, r(α))-RDP when the Rényi divergence D_α(P‖Q) ≤ r(α); under composition the
// curves add (Mironov 2017 Prop 1). Curves of one use (mechanism_loss.h for the pairs):
//  - Gaussian: r(α) = αΔ²/(2σ²) (Mironov 2017 Prop 7);
//  - Laplace, ε = Δ/b: r(α) = (1/(α−1)) ln(α/(2α−1) e^{(α−1)ε} + (α−1)/(2α−1) e^{−αε})
//    (Mironov 2017 Prop 6);
//  - geometric and randomized response: exactly, r(α) = (1/(α−1)) ln Σ_i p_i e^{(α−1)l_i} over
//    their finite loss atoms (the definition of D_α);
//  - discrete Gaussian: αΔ²/(2σ²) (it is Δ²/(2σ²)-zCDP, Canonne, Kamath & Steinke 2020 Thm 4).
// Conversion to (ε, δ): the improved bound (Canonne, Kamath & Steinke 2020 Prop 12; Balle et al.
// 2020 Thm 21), never the loose ε = r + ln(1/δ)/(α−1) only:
//    ε(δ) = min_α r(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1),
//    δ(ε) = min_α exp((α−1)(r(α) − ε + ln(1 − 1/α)) − ln α).
// The minimum runs over a fixed grid of 400 orders α ∈ (1, 10^4] (log-spaced in α − 1), refined
// by golden-section search next to the best grid order, plus the
// order at which the zCDP conversion of the same plan is optimal (α* = 1 + √(ln(1/δ)/ρ), resp.
// (ε+ρ)/(2ρ)), so that this accountant is never worse than zCDP (Bun & Steinke 2016 Prop 1.3):
// every curve here is ≤ αρ with ρ the zCDP charge, and the improved conversion at α* is below
// Prop 1.3's value.
#pragma once

#include <vector>

#include "core/accounting/mechanism_loss.h"
#include "core/base/expected.h"

namespace dpx::accounting {

// r(α) of one use of `m` (α > 1; m valid).
double renyiDivergence(const AccountedMechanism& m, double alpha);
// Σ count·r(α) of a plan.
double renyiCurve(const std::vector<AccountedMechanism>& mechs, double alpha);
// The improved conversion above at one order: ε = r + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), for a
// curve value r at α > 1 and δ ∈ (0, 1) (any α gives a valid ε; callers minimise over α).
double renyiToEpsilon(double r, double alpha, double delta);
// The fixed α grid.
const std::vector<double>& renyiOrders();

struct RenyiAnswer {
    double value = 0;  // ε (epsilon) or δ (delta)
    double alpha = 0;  // the order attaining the minimum
};
// Errors: invalid mechanisms or δ ∉ (0, 1) / ε not finite ≥ 0.
Expected<RenyiAnswer> renyiEpsilon(const std::vector<AccountedMechanism>& mechs, double delta);
Expected<RenyiAnswer> renyiDelta(const std::vector<AccountedMechanism>& mechs, double epsilon);

}  // namespace dpx::accounting
