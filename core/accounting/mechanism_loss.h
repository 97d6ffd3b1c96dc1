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
// Poisson subsampling (samplingRate q < 1: each record enters the sample independently with
// probability q before the mechanism runs; neighbours add or remove one record): the dominating
// pairs become (qP + (1−q)Q, Q) when a record is removed and (Q, qP + (1−q)Q) when one is added
// (Zhu, Dong & Wang 2022 Thm 11; Koskela, Jälkö & Honkela 2020; Google's dp_accounting). They are
// NOT symmetric: the PLD accountant composes both directions and takes the worse (privacy_loss.h).
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
    double samplingRate = 1;       // Poisson sampling rate q ∈ (0, 1]; 1 = no sampling
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

// A copy with samplingRate = q (no validation here; validate() checks q ∈ (0, 1]).
AccountedMechanism subsampled(AccountedMechanism m, double q);
bool isSubsampled(const AccountedMechanism& m);  // samplingRate < 1

// ε of one use if the mechanism is pure ε-DP (Laplace Δ/b, geometric and RR their ε); 0 for the
// Gaussian ones (check isPureLoss). Without the sampling: see amplifiedPureEpsilon.
bool isPureLoss(const AccountedMechanism& m);
double pureEpsilon(const AccountedMechanism& m);
// pureEpsilon after Poisson sampling at the mechanism's rate q: ln(1 + q(e^ε − 1)) (Li, Qardaji &
// Su 2012 Thm 1; Balle, Barthe & Gaboardi 2018 Thm 8, for both add and remove); = pureEpsilon at
// q = 1.
double amplifiedPureEpsilon(const AccountedMechanism& m);
// zCDP ρ of one use: ε²/2 for pure ε-DP (Bun & Steinke 2016 Prop 1.4), Δ²/(2σ²) for the Gaussian
// (Prop 1.6) and the discrete Gaussian (Canonne, Kamath & Steinke 2020 Thm 4). Subsampling is NOT
// amplified here: zCDP has no tight amplification-by-sampling theorem (Bun, Dwork, Rothblum &
// Steinke 2018 introduce truncated CDP for that), so a subsampled mechanism is charged the ρ of
// the mechanism without sampling — a valid upper bound (with add/remove neighbours the sampled
// datasets are equal or neighbours, and Rényi divergence is jointly quasi-convex), not a tight one.
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
