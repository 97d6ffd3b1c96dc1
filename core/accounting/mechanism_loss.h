// The mechanisms the accountants (accountant.h) compose, each with the dominating pair of output
// laws (P, Q) whose privacy loss L = ln(P(Y)/Q(Y)), Y ~ P, describes it exactly (Zhu, Dong & Wang
// 2022, "Optimal accounting of differential privacy via characteristic function", dominating
// pairs; the same pairs as Google's dp_accounting):
//  - Laplace, scale b, L1 sensitivity Δ: Lap(0, b) vs Lap(Δ, b); ε = Δ/b. L = ε w.p. ½, −ε w.p.
//    ½e^{−ε}, and on (−ε, ε) a continuous part with CDF ½e^{(l−ε)/2}.
//  - geometric (two-sided, Ghosh, Roughgarden & Sundararajan 2009), α = e^{−ε/Δ}, integer Δ:
//    L = ε w.p. 1/(1+α), −ε w.p. α^Δ/(1+α), (Δ−2x)ε/Δ w.p. (1−α)α^x/(1+α) for x = 1..Δ−1.
//  - Gaussian N(0, σ²), L2 sensitivity Δ: L ~ N(μ²/2, μ²), μ = Δ/σ (Dong, Roth & Su 2022, μ-GDP).
//  - discrete Gaussian N_Z(0, σ²) (Canonne, Kamath & Steinke 2020), integer Δ: L(x) =
//    (Δ² − 2xΔ)/(2σ²), x ~ N_Z(0, σ²).
//  - k-ary randomized response (Warner 1965; generalised RR, Kairouz, Oh & Viswanath 2016),
//    report the true value w.p. e^ε/(e^ε+k−1): L = ε w.p. e^ε/(e^ε+k−1), −ε w.p. 1/(e^ε+k−1),
//    0 w.p. (k−2)/(e^ε+k−1).
// All five pairs are symmetric (the loss of (Q, P) has the same law), so one direction suffices.
// Poisson subsampling is not offered: its pair is asymmetric (the add and remove directions must
// be composed separately) and it is left for a later session.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/expected.h"

namespace dpx::accounting {

enum class LossMechanism { Laplace, Geometric, Gaussian, DiscreteGaussian, RandomizedResponse };
const char* lossMechanismName(LossMechanism m);  // "laplace", "geometric", "gaussian", ...

// One mechanism applied `count` times (independent noise each time) to the same data.
struct AccountedMechanism {
    LossMechanism kind = LossMechanism::Laplace;
    // Laplace: the scale b; Gaussian and discrete Gaussian: σ; geometric and randomized
    // response: ε (geometric: α = e^{−ε/Δ}).
    double parameter = 1;
    double sensitivity = 1;        // Δ: L1 (Laplace, geometric), L2 (Gaussian, discrete Gaussian)
    std::int64_t categories = 2;   // randomized response: k ≥ 2
    std::int64_t count = 1;        // repetitions, ≥ 1
    Status validate() const;       // messages name the mechanism and the field
    std::string describe() const;  // "Laplace b = 2, Δ = 1" (× count when > 1)
};

AccountedMechanism laplaceLoss(double b, double l1Sensitivity = 1, std::int64_t count = 1);
AccountedMechanism geometricLoss(double epsilon, double l1Sensitivity = 1, std::int64_t count = 1);
AccountedMechanism gaussianLoss(double sigma, double l2Sensitivity = 1, std::int64_t count = 1);
AccountedMechanism discreteGaussianLoss(double sigma, double l2Sensitivity = 1,
                                        std::int64_t count = 1);
AccountedMechanism randomizedResponseLoss(double epsilon, std::int64_t categories,
                                          std::int64_t count = 1);

// ε of one use if the mechanism is pure ε-DP (Laplace Δ/b, geometric and RR their ε); 0 for the
// Gaussian ones (check isPureLoss).
bool isPureLoss(const AccountedMechanism& m);
double pureEpsilon(const AccountedMechanism& m);
// zCDP ρ of one use: ε²/2 for pure ε-DP (Bun & Steinke 2016 Prop 1.4), Δ²/(2σ²) for the Gaussian
// (Prop 1.6) and the discrete Gaussian (Canonne, Kamath & Steinke 2020 Thm 4).
double zcdpRho(const AccountedMechanism& m);
// Σ count·ρ of a plan (zCDP composition, Bun & Steinke 2016).
double totalZcdpRho(const std::vector<AccountedMechanism>& mechs);

// A loss value and its probability under P.
struct LossAtom {
    double loss = 0;
    double mass = 0;
};
// The exact atoms of the discrete mechanisms' loss (geometric, randomized response). Errors for
// the others.
Expected<std::vector<LossAtom>> lossAtoms(const AccountedMechanism& m);

}  // namespace dpx::accounting
