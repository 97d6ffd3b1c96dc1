// The privacy-loss-distribution (PLD) accountant (Meiser & Mohammadi 2018; Koskela, Jälkö &
// Honkela 2020; Google's dp_accounting, "pessimistic" discretisation).
//
// Each mechanism's privacy loss L (mechanism_loss.h) is put on the grid {jh : j ∈ ℤ} with
// PESSIMISTIC rounding — every loss rounded UP to the next grid point, mass beyond the tails moved
// to +∞ (upper tail) or up to the lowest kept point (lower tail) — so the discretised loss
// dominates the true one pointwise and δ(ε) = E[(1 − e^{ε−L})₊] (with L = +∞ counting 1) computed
// from it is never below the truth. The OPTIMISTIC discretisation (round down, drop the tails)
// gives a lower bound the same way, so every answer comes as [lower, upper].
// Composition adds independent losses: their pmfs are convolved (core/base/fft.h), smallest first,
// with repeated squaring for a mechanism used many times; after every convolution the tails whose
// mass is ≤ tailMass are truncated in the same pessimistic / optimistic direction. The Gaussian
// mechanisms are not discretised by default: k Gaussians with μ_i = Δ_i/σ_i compose EXACTLY to one
// with μ = √(Σμ_i²) (Dong, Roth & Su 2022 Cor. 3.3), whose hockey-stick divergence has the closed
// form δ_μ(x) = Φ(−x/μ + μ/2) − e^x Φ(−x/μ − μ/2) (Balle & Wang 2018 Thm 8), so δ(ε) = Σ_j p_j
// δ_μ(ε − l_j) + p_∞ over the discretised rest. A plan of Gaussians alone is therefore exact up to
// floating point. `discretiseGaussian` puts them on the grid like the rest (for tests of the
// discretisation and for comparison). Errors of the bounds: the grid (each of k losses rounded by <
// h: the two bounds are ≈ k·h apart in ε), the tails (≤ tailMass per truncation), and the FFT
// round-off (~1e-16 of the largest probability per grid point; negative round-off is set to 0).
//
// Poisson-subsampled mechanisms (AccountedMechanism::samplingRate q < 1): with ℓ the loss of the
// mechanism's own symmetric pair (P, Q) and g(ℓ) = ln(1 − q + q e^ℓ), the subsampled pairs are
//  - remove: (qP + (1−q)Q, Q), loss g(ℓ) with ℓ ~ qP + (1−q)Q,
//  - add:    (Q, qP + (1−q)Q), loss −g(ℓ) with ℓ ~ Q
// (Zhu, Dong & Wang 2022 Thm 11; the same two pairs as Google's dp_accounting). Each is discretised
// with the same pessimistic / optimistic rounding, cell by cell through the monotone g (the
// mass of a loss cell is the mass of its preimage in ℓ, exact for Laplace and the Gaussian, atom by
// atom for the discrete mechanisms). A plan is composed in each direction (every mechanism with the
// same direction: one pair of neighbouring datasets) and δ(ε) is the larger of the two; a
// subsampled Gaussian is always discretised (its loss is not Gaussian).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/mechanism_loss.h"
#include "core/base/expected.h"

namespace dpx::accounting {

struct PldOptions {
    double interval = 1e-4;   // grid spacing h of the loss, finite > 0
    double tailMass = 1e-15;  // truncated per tail and per convolution, in [0, 1e-6]
    bool discretiseGaussian = false;
    Status validate() const;
};

enum class Rounding { Pessimistic, Optimistic };
// Which neighbour relation the subsampled pairs describe (mechanisms without sampling: the same).
enum class Neighbour { Remove, Add };

// A discretised privacy-loss distribution: mass pmf[i] at loss (offset + i)·h, mass infinityMass
// at +∞, and an exact Gaussian component of μ² = gaussianMu2 added to the loss.
class PrivacyLossDistribution {
public:
    // The composition of all `mechanisms` (each `count` times). Errors: invalid options or
    // mechanisms (named), a grid of more than 2^26 points, a subsampled mechanism (one direction
    // alone would under-report: use the overload with a Neighbour for each, or PldAccount).
    static Expected<PrivacyLossDistribution> compose(const std::vector<AccountedMechanism>& mechs,
                                                     const PldOptions& options, Rounding rounding);
    // The same in one neighbour direction (subsampled mechanisms allowed).
    static Expected<PrivacyLossDistribution> compose(const std::vector<AccountedMechanism>& mechs,
                                                     const PldOptions& options, Rounding rounding,
                                                     Neighbour direction);

    Rounding rounding() const { return rounding_; }
    double interval() const { return h_; }
    std::int64_t offset() const { return offset_; }
    const std::vector<double>& pmf() const { return pmf_; }
    double infinityMass() const { return infinity_; }
    double gaussianMu2() const { return mu2_; }

    // δ(ε) = Σ_j p_j δ_μ(ε − l_j) + p_∞ (δ_0(x) = (1 − e^x)₊), clamped to [0, 1]; any real ε.
    // With a Gaussian part, points of mass < 1e-18 count fully (pessimistic) or not (optimistic).
    double delta(double epsilon) const;
    // The smallest ε ≥ 0 with delta(ε) ≤ δ, by bisection to 1e-12 relative (to h/8 when the grid
    // has more than one point: the grid is not more accurate than that): pessimistic: the
    // bracket's upper end (never below the smallest such ε); optimistic: the lower end.
    // Errors: δ ∉ (0, 1); δ below the mass at +∞ (no finite ε).
    Expected<double> epsilon(double delta) const;

private:
    PrivacyLossDistribution() = default;
    Rounding rounding_ = Rounding::Pessimistic;
    double h_ = 1e-4;
    double tail_ = 0;
    std::int64_t offset_ = 0;
    std::vector<double> pmf_{1.0};
    double infinity_ = 0;
    double mu2_ = 0;

    static Expected<PrivacyLossDistribution> single(const AccountedMechanism& m, double h,
                                                    double tail, Rounding r);
    static Expected<PrivacyLossDistribution> singleSubsampled(const AccountedMechanism& m, double h,
                                                              double tail, Rounding r,
                                                              Neighbour direction);
    PrivacyLossDistribution convolve(const PrivacyLossDistribution& other) const;
    // Errors: a width beyond the grid limit on the way, named by `what` (empty: not checked).
    Expected<PrivacyLossDistribution> power(std::int64_t k, const std::string& what) const;
    void truncate();
};

// The pessimistic roundings alone: the remove direction, and the add direction when a mechanism
// is subsampled (PldAccount's `upper` and `addUpper`), at half the work of PldAccount::compose —
// for searches that only need the safe side (budget plans under PLD). delta() and epsilon() answer
// the worse direction, as PldAccount's upper bounds do (the same numbers).
struct PldUpperAccount {
    PrivacyLossDistribution remove;
    std::optional<PrivacyLossDistribution> add;
    // Errors: those of PrivacyLossDistribution::compose.
    static Expected<PldUpperAccount> compose(const std::vector<AccountedMechanism>& mechs,
                                             const PldOptions& options);
    double delta(double epsilon) const;
    Expected<double> epsilon(double delta) const;
    // δ (worse direction) at ε minus the resolution of epsilon()'s bisection (h/8 on a grid of
    // more than one point, else 2e-12·ε): ONE δ(ε) evaluation per direction.
    double deltaBelow(double epsilon) const;
    // deltaBelow(ε) ≤ δ: then epsilon(δ) ≤ ε (for δ in (0, 1), ε ≥ 0; false otherwise).
    bool meets(double epsilon, double delta) const;
};

// Both bounds at once.
struct PldBounds {
    double upper = 0;
    double lower = 0;
};
// A plan with subsampled mechanisms also holds the add direction; delta() and epsilon() answer
// the worse of the two directions (upper: the max of the upper bounds, a valid upper bound;
// lower: the max of the lower bounds, a valid lower bound of the true max).
struct PldAccount {
    PrivacyLossDistribution upper;  // pessimistic (remove direction when subsampled)
    PrivacyLossDistribution lower;  // optimistic
    std::optional<PrivacyLossDistribution> addUpper;  // only with subsampled mechanisms
    std::optional<PrivacyLossDistribution> addLower;
    static Expected<PldAccount> compose(const std::vector<AccountedMechanism>& mechs,
                                        const PldOptions& options = {});
    PldBounds delta(double epsilon) const;
    Expected<PldBounds> epsilon(double delta) const;
    // The upper bound alone, ε(δ) of the pessimistic roundings (both directions when a mechanism
    // is subsampled: the larger), at half the work of compose() — for searches that only need
    // the safe side (budget plans under PLD). Errors: those of compose() and of epsilon().
    static Expected<double> upperEpsilon(const std::vector<AccountedMechanism>& mechs,
                                         const PldOptions& options, double delta);
};

}  // namespace dpx::accounting
