// Poisson subsampling (issue #22, Part B, first pieces): each record enters the sample
// independently with probability q, and the mechanism runs on the sample; neighbours add or
// remove one record. Two building blocks (and the inverse of the first, with which a budget plan
// calibrates a sampled statistic, core/choosing/budget_plan.h):
//  - basic amplification: an (ε, δ)-DP mechanism on a Poisson sample is
//    (ln(1 + q(e^ε − 1)), qδ)-DP (Li, Qardaji & Su 2012 Thm 1; Balle, Barthe & Gaboardi 2018
//    Thm 8, tight for add/remove);
//  - the Rényi DP of the sampled Gaussian mechanism at integer orders (Mironov, Talwar & Zhang
//    2019, "Rényi differential privacy of the sampled Gaussian mechanism", §3.3): with s = σ/Δ,
//      r(α) = ln(Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k e^{(k²−k)/(2s²)}) / (α − 1),
//    = D_α((1−q)N(0,σ²) + qN(Δ,σ²) ‖ N(0,σ²)), the larger of the two directions (their Thm 5);
//    composed over T steps it is T·r(α), converted to (ε, δ) by renyiToEpsilon (renyi.h).
// Subsampling under PLD (the asymmetric add and remove pairs, Zhu, Dong & Wang 2022) is not here.
#pragma once

#include <cstdint>

#include "core/base/expected.h"

namespace dpx::accounting {

struct AmplifiedGuarantee {
    double epsilon = 0;
    double delta = 0;
};
// Errors: ε not finite ≥ 0, δ ∉ [0, 1), q ∉ (0, 1] (each named).
Expected<AmplifiedGuarantee> amplifyByPoissonSampling(double epsilon, double delta, double q);

// The inverse, for calibrating a sampled statistic (budget plans): the (ε0, δ0) a mechanism may
// satisfy WITHOUT sampling so that on a Poisson sample at rate q it is (ε, δ)-DP:
// ε0 = ln(1 + (e^ε − 1)/q), δ0 = min(δ/q, 1/2), each stepped down until
// amplifyByPoissonSampling(ε0, δ0, q) is ≤ (ε, δ) in floating point (never an overshoot). At q = 1
// it returns (ε, δ) unchanged. Errors: ε not finite > 0, δ ∉ [0, 1), q ∉ (0, 1], ε0 not finite
// (ε/q beyond double range).
Expected<AmplifiedGuarantee> unamplifiedForTarget(double epsilon, double delta, double q);

// r(α) above, summed in log space (no overflow for large α or small s). Errors: q ∉ (0, 1],
// σ or Δ not finite > 0, α ∉ [2, 10^4].
Expected<double> sampledGaussianRenyi(double q, double sigma, double l2Sensitivity,
                                      std::int64_t alpha);

struct SampledGaussianEpsilon {
    double epsilon = 0;
    std::int64_t alpha = 0;  // the order attaining the minimum
};
// ε(δ) of `steps` compositions of the sampled Gaussian (DP-SGD with Poisson batches): the
// minimum over the integer orders 2..512 of renyiToEpsilon(steps·r(α), α, δ). Errors: those of
// sampledGaussianRenyi, steps < 1, δ ∉ (0, 1).
Expected<SampledGaussianEpsilon> sampledGaussianEpsilon(double q, double sigma,
                                                        double l2Sensitivity, std::int64_t steps,
                                                        double delta);

}  // namespace dpx::accounting
