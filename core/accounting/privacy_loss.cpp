#include "core/accounting/privacy_loss.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <limits>
#include <numbers>
#include <queue>
#include <utility>

#include "core/base/fft.h"
#include "core/base/validation.h"
#include "core/mechanisms/gaussian_mechanism.h"

namespace dpx::accounting {

namespace {

// Largest number of grid points of one distribution (the FFT of a convolution then needs at most
// 2^24 complex numbers, 256 MiB).
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::int64_t kMaxPoints = std::int64_t{1} << 22;
// The Gaussian pieces are cut at ±kGaussianCut standard deviations: Φ(−12) ≈ 1.8e-33.
constexpr double kGaussianCut = 12;
// The discrete Gaussian is enumerated over |x| ≤ M with the mass beyond ≤ ~1e-30.
constexpr double kDiscreteGaussianCut = 11.8;
// Grid points of smaller mass are not evaluated in δ(ε) with a Gaussian part (bounded instead).
constexpr double kNegligible = 1e-18;

// Pr[a < Z ≤ b] for a standard normal Z, without cancellation in either tail.
double normalMass(double a, double b) {
    if (a >= 0) {
        return 0.5 * (std::erfc(a / std::numbers::sqrt2) - std::erfc(b / std::numbers::sqrt2));
    }
    return 0.5 * (std::erfc(-b / std::numbers::sqrt2) - std::erfc(-a / std::numbers::sqrt2));
}

std::int64_t gridIndex(double loss, double h, Rounding r) {
    const double x = loss / h;
    return static_cast<std::int64_t>(r == Rounding::Pessimistic ? std::ceil(x) : std::floor(x));
}

Error tooManyPoints(const std::string& what, double h) {
    return Error{what + " needs more than " + std::to_string(kMaxPoints) +
                 " grid points at the interval h = " + formatNumber(h) +
                 "; choose a larger interval"};
}

}  // namespace

Status PldOptions::validate() const {
    if (!(interval > 0) || !std::isfinite(interval)) {
        return Error{"PLD grid interval h must be finite and > 0 (got " + formatNumber(interval) +
                     ")"};
    }
    if (!(tailMass >= 0) || !(tailMass <= 1e-6)) {
        return Error{"PLD tail mass must be in [0, 1e-6] (got " + formatNumber(tailMass) + ")"};
    }
    return okStatus();
}

Expected<PrivacyLossDistribution> PrivacyLossDistribution::single(const AccountedMechanism& m,
                                                                  double h, double tail,
                                                                  Rounding r) {
    PrivacyLossDistribution d;
    d.rounding_ = r;
    d.h_ = h;
    d.tail_ = tail;
    const bool pess = r == Rounding::Pessimistic;
    // Masses land in [lo, hi] (grid indices); `place` adds one.
    std::int64_t lo = 0, hi = 0;
    auto reserve = [&](std::int64_t a, std::int64_t b, const std::string& what) -> Status {
        if (b - a + 1 > kMaxPoints) {
            return tooManyPoints(what, h);
        }
        lo = a;
        hi = b;
        d.offset_ = a;
        d.pmf_.assign(static_cast<std::size_t>(b - a + 1), 0.0);
        return okStatus();
    };
    auto place = [&](std::int64_t j, double mass) {
        d.pmf_[static_cast<std::size_t>(std::clamp(j, lo, hi) - lo)] += mass;
    };
    const std::string what = m.describe();

    switch (m.kind) {
        case LossMechanism::Geometric:
        case LossMechanism::RandomizedResponse: {
            auto atoms = lossAtoms(m);
            if (!atoms) {
                return atoms.error();
            }
            std::int64_t a = std::numeric_limits<std::int64_t>::max();
            std::int64_t b = std::numeric_limits<std::int64_t>::min();
            for (const auto& at : *atoms) {
                a = std::min(a, gridIndex(at.loss, h, r));
                b = std::max(b, gridIndex(at.loss, h, r));
            }
            if (auto s = reserve(a, b, what); !s) {
                return s.error();
            }
            for (const auto& at : *atoms) {
                place(gridIndex(at.loss, h, r), at.mass);
            }
            break;
        }
        case LossMechanism::Laplace: {
            const double eps = m.sensitivity / m.parameter;
            if (auto s = reserve(gridIndex(-eps, h, r), gridIndex(eps, h, r), what); !s) {
                return s.error();
            }
            place(gridIndex(eps, h, r), 0.5);
            place(gridIndex(-eps, h, r), 0.5 * std::exp(-eps));
            // Continuous part on (−ε, ε): Pr[L ≤ l] − Pr[L ≤ −ε] = ½e^{(l−ε)/2} − ½e^{−ε}. The
            // cell of index j is ((j−1)h, jh] (pessimistic) or [jh, (j+1)h) (optimistic).
            for (std::int64_t j = lo; j <= hi; ++j) {
                const double jd = static_cast<double>(j);
                double a = pess ? (jd - 1) * h : jd * h;
                double b = pess ? jd * h : (jd + 1) * h;
                a = std::max(a, -eps);
                b = std::min(b, eps);
                if (b > a) {
                    place(j, 0.5 * std::exp((a - eps) / 2) * std::expm1((b - a) / 2));
                }
            }
            break;
        }
        case LossMechanism::Gaussian: {
            const double mu = m.sensitivity / m.parameter;
            const double mean = mu * mu / 2;
            const double a0 = mean - kGaussianCut * mu;
            const double b0 = mean + kGaussianCut * mu;
            if (auto s = reserve(gridIndex(a0, h, r), gridIndex(b0, h, r), what); !s) {
                return s.error();
            }
            const double tailBeyond = normalMass(kGaussianCut, kInfinity);
            if (pess) {
                d.infinity_ += tailBeyond;  // above the cut: to +∞
                place(lo, tailBeyond);      // below the cut: up to the lowest point
            }
            for (std::int64_t j = lo; j <= hi; ++j) {
                const double jd = static_cast<double>(j);
                const double a = std::max(pess ? (jd - 1) * h : jd * h, a0);
                const double b = std::min(pess ? jd * h : (jd + 1) * h, b0);
                if (b > a) {
                    place(j, normalMass((a - mean) / mu, (b - mean) / mu));
                }
            }
            break;
        }
        case LossMechanism::DiscreteGaussian: {
            const double sigma = m.parameter;
            const double delta = m.sensitivity;
            const double cut = std::ceil(kDiscreteGaussianCut * sigma) + 1;
            const auto bigM = static_cast<std::int64_t>(cut);
            if (2 * bigM + 1 > kMaxPoints) {
                return tooManyPoints(what, h);
            }
            // L(x) = (Δ² − 2xΔ)/(2σ²) decreases in x.
            auto loss = [&](std::int64_t x) {
                return (delta * delta - 2 * static_cast<double>(x) * delta) / (2 * sigma * sigma);
            };
            if (auto s = reserve(gridIndex(loss(bigM), h, r), gridIndex(loss(-bigM), h, r), what);
                !s) {
                return s.error();
            }
            double z = 0;
            for (std::int64_t x = -bigM; x <= bigM; ++x) {
                const double xd = static_cast<double>(x);
                z += std::exp(-xd * xd / (2 * sigma * sigma));
            }
            for (std::int64_t x = -bigM; x <= bigM; ++x) {
                const double xd = static_cast<double>(x);
                place(gridIndex(loss(x), h, r), std::exp(-xd * xd / (2 * sigma * sigma)) / z);
            }
            if (pess) {
                // Σ_{x>M} e^{−x²/(2σ²)} ≤ ∫_M^∞ = σ√(π/2) erfc(M/(σ√2)), and Z ≥ 1: the mass
                // beyond each end, put at +∞ (the end x < −M has the large losses).
                const double beyond = sigma * std::sqrt(std::numbers::pi / 2) *
                                      std::erfc(cut / (sigma * std::numbers::sqrt2));
                d.infinity_ += 2 * beyond;
            }
            break;
        }
    }
    d.truncate();
    return d;
}

namespace {

// g(ℓ) = ln(1 − q + q e^ℓ), increasing in ℓ, without overflow or cancellation.
double subsampledLoss(double l, double q) {
    if (l == kInfinity) {
        return kInfinity;
    }
    if (l > 30) {
        return l + std::log(q + (1 - q) * std::exp(-l));
    }
    return std::log1p(q * std::expm1(l));
}

// g⁻¹(L) = ln(1 + (e^L − 1)/q): −∞ for L ≤ ln(1 − q), the loss ℓ with g(ℓ) = L otherwise.
double subsampledLossInverse(double loss, double q) {
    if (loss == kInfinity) {
        return kInfinity;
    }
    if (loss > 30) {
        return loss - std::log(q) + std::log1p(-(1 - q) * std::exp(-loss));
    }
    const double t = std::expm1(loss) / q;
    return t <= -1 ? -kInfinity : std::log1p(t);
}

// The law of a mechanism's own loss ℓ under P: atoms, a continuous part (mass of (a, b]), the
// loss range [−reach, reach] outside which only `beyond` mass lies on each side (continuous part:
// computed by contMass; discrete Gaussian: bounded by `beyondBound` per side).
struct BaseLoss {
    std::vector<LossAtom> atoms;
    std::function<double(double, double)> contMass;  // Pr_P[a < ℓ ≤ b], continuous part
    double reach = 0;
    double beyondBound = 0;  // discrete Gaussian: mass cut from each end of the enumeration
};

Expected<BaseLoss> baseLoss(const AccountedMechanism& m) {
    BaseLoss base;
    base.contMass = [](double, double) { return 0.0; };
    switch (m.kind) {
        case LossMechanism::Geometric:
        case LossMechanism::RandomizedResponse: {
            auto atoms = lossAtoms(m);
            if (!atoms) {
                return atoms.error();
            }
            base.atoms = *atoms;
            for (const auto& a : base.atoms) {
                base.reach = std::max(base.reach, std::abs(a.loss));
            }
            break;
        }
        case LossMechanism::Laplace: {
            const double eps = m.sensitivity / m.parameter;
            base.atoms = {{eps, 0.5}, {-eps, 0.5 * std::exp(-eps)}};
            base.reach = eps;
            // Pr[L ≤ l] on (−ε, ε) is ½e^{(l−ε)/2} (mechanism_loss.h).
            base.contMass = [eps](double a, double b) {
                a = std::max(a, -eps);
                b = std::min(b, eps);
                return b > a ? 0.5 * std::exp((a - eps) / 2) * std::expm1((b - a) / 2) : 0.0;
            };
            break;
        }
        case LossMechanism::Gaussian: {
            const double mu = m.sensitivity / m.parameter;
            const double mean = mu * mu / 2;
            base.reach = mean + kGaussianCut * mu;
            base.contMass = [mu, mean](double a, double b) {
                return b > a ? normalMass((a - mean) / mu, (b - mean) / mu) : 0.0;
            };
            break;
        }
        case LossMechanism::DiscreteGaussian: {
            const double sigma = m.parameter;
            const double delta = m.sensitivity;
            const double cut = std::ceil(kDiscreteGaussianCut * sigma) + 1;
            const auto bigM = static_cast<std::int64_t>(cut);
            if (2 * bigM + 1 > kMaxPoints) {
                return Error{m.describe() + ": the discrete Gaussian's support is too wide"};
            }
            double z = 0;
            for (std::int64_t x = -bigM; x <= bigM; ++x) {
                const double xd = static_cast<double>(x);
                z += std::exp(-xd * xd / (2 * sigma * sigma));
            }
            for (std::int64_t x = -bigM; x <= bigM; ++x) {
                const double xd = static_cast<double>(x);
                const double l = (delta * delta - 2 * xd * delta) / (2 * sigma * sigma);
                base.atoms.push_back({l, std::exp(-xd * xd / (2 * sigma * sigma)) / z});
                base.reach = std::max(base.reach, std::abs(l));
            }
            // As in single(): Σ_{x>M} e^{−x²/(2σ²)} ≤ σ√(π/2) erfc(M/(σ√2)), Z ≥ 1.
            base.beyondBound = sigma * std::sqrt(std::numbers::pi / 2) *
                               std::erfc(cut / (sigma * std::numbers::sqrt2));
            break;
        }
    }
    return base;
}

}  // namespace

Expected<PrivacyLossDistribution> PrivacyLossDistribution::singleSubsampled(
    const AccountedMechanism& m, double h, double tail, Rounding r, Neighbour direction) {
    auto baseOr = baseLoss(m);
    if (!baseOr) {
        return baseOr.error();
    }
    const BaseLoss& base = *baseOr;
    const double q = m.samplingRate;
    const bool pess = r == Rounding::Pessimistic;
    const bool remove = direction == Neighbour::Remove;
    const double reach = base.reach;
    // The symmetric pair: ℓ under Q has the law of −ℓ under P.
    auto contP = base.contMass;
    auto contQ = [&](double a, double b) { return base.contMass(-b, -a); };
    // The law of ℓ this direction draws from (remove: qP + (1−q)Q; add: Q) on (a, b].
    auto contDraw = [&](double a, double b) {
        return remove ? q * contP(a, b) + (1 - q) * contQ(a, b) : contQ(a, b);
    };
    // The output loss as a function of ℓ: remove g(ℓ), add −g(ℓ).
    auto outLoss = [&](double l) { return remove ? subsampledLoss(l, q) : -subsampledLoss(l, q); };
    // Atoms of the drawn ℓ law.
    std::vector<LossAtom> atoms;
    for (const auto& a : base.atoms) {
        if (remove) {
            atoms.push_back({a.loss, q * a.mass});
            atoms.push_back({-a.loss, (1 - q) * a.mass});
        } else {
            atoms.push_back({-a.loss, a.mass});
        }
    }
    // Output loss range.
    const double outA = outLoss(-reach), outB = outLoss(reach);
    const double outLo = std::min(outA, outB), outHi = std::max(outA, outB);
    PrivacyLossDistribution d;
    d.rounding_ = r;
    d.h_ = h;
    d.tail_ = tail;
    const std::int64_t lo = gridIndex(outLo, h, r), hi = gridIndex(outHi, h, r);
    if (hi - lo + 1 > kMaxPoints) {
        return tooManyPoints(m.describe(), h);
    }
    d.offset_ = lo;
    d.pmf_.assign(static_cast<std::size_t>(hi - lo + 1), 0.0);
    auto place = [&](std::int64_t j, double mass) {
        d.pmf_[static_cast<std::size_t>(std::clamp(j, lo, hi) - lo)] += mass;
    };
    for (const auto& a : atoms) {
        if (a.mass > 0) {
            place(gridIndex(outLoss(a.loss), h, r), a.mass);
        }
    }
    // Continuous part, cell by cell: the output cell (c, e] (pessimistic: ((j−1)h, jh];
    // optimistic: [jh, (j+1)h)) is the image of an ℓ interval through the monotone map; its mass
    // is the drawn law's mass there, clipped to [−reach, reach].
    for (std::int64_t j = lo; j <= hi; ++j) {
        const double jd = static_cast<double>(j);
        const double c = pess ? (jd - 1) * h : jd * h;
        const double e = pess ? jd * h : (jd + 1) * h;
        double a = 0, b = 0;
        if (remove) {
            a = subsampledLossInverse(c, q);
            b = subsampledLossInverse(e, q);
        } else {
            a = subsampledLossInverse(-e, q);
            b = subsampledLossInverse(-c, q);
        }
        a = std::max(a, -reach);
        b = std::min(b, reach);
        if (b > a) {
            place(j, contDraw(a, b));
        }
    }
    // Mass of the drawn ℓ beyond ±reach: the end mapped to large output losses goes to +∞
    // (pessimistic) or is dropped (optimistic); the other end up to the lowest point or dropped.
    // The discrete Gaussian's enumeration cut (≤ beyondBound per end, in both P and Q) counts as
    // infinite loss, as in single().
    const double above = contDraw(reach, kInfinity);
    const double below = contDraw(-kInfinity, -reach);
    if (pess) {
        // remove: large ℓ → large loss; add: small ℓ → large loss.
        d.infinity_ += (remove ? above : below) + 2 * base.beyondBound;
        place(lo, remove ? below : above);
    }
    d.truncate();
    return d;
}

void PrivacyLossDistribution::truncate() {
    for (double& p : pmf_) {
        if (!(p > 0)) {
            p = 0;  // FFT round-off below zero
        }
    }
    const bool pess = rounding_ == Rounding::Pessimistic;
    // Upper tail: pessimistic to +∞, optimistic dropped (to −∞).
    std::size_t end = pmf_.size();
    double cum = 0;
    while (end > 1 && cum + pmf_[end - 1] <= tail_) {
        cum += pmf_[end - 1];
        --end;
    }
    if (pess) {
        infinity_ += cum;
    }
    // Lower tail: pessimistic moved up to the lowest kept point, optimistic dropped.
    std::size_t begin = 0;
    cum = 0;
    while (begin + 1 < end && cum + pmf_[begin] <= tail_) {
        cum += pmf_[begin];
        ++begin;
    }
    if (pess) {
        pmf_[begin] += cum;
    }
    pmf_.erase(pmf_.begin() + static_cast<std::ptrdiff_t>(end), pmf_.end());
    pmf_.erase(pmf_.begin(), pmf_.begin() + static_cast<std::ptrdiff_t>(begin));
    offset_ += static_cast<std::int64_t>(begin);
}

PrivacyLossDistribution PrivacyLossDistribution::convolve(
    const PrivacyLossDistribution& other) const {
    PrivacyLossDistribution c;
    c.rounding_ = rounding_;
    c.h_ = h_;
    c.tail_ = tail_;
    c.offset_ = offset_ + other.offset_;
    c.pmf_ = dpx::convolve(pmf_, other.pmf_);
    // Independent: finite only if both are.
    c.infinity_ = infinity_ + other.infinity_ - infinity_ * other.infinity_;
    c.mu2_ = mu2_ + other.mu2_;
    c.truncate();
    return c;
}

Expected<PrivacyLossDistribution> PrivacyLossDistribution::power(std::int64_t k,
                                                                 const std::string& what) const {
    PrivacyLossDistribution result;
    result.rounding_ = rounding_;
    result.h_ = h_;
    result.tail_ = tail_;
    PrivacyLossDistribution base = *this;
    while (k > 0) {
        if (k & 1) {
            if (!what.empty() &&
                static_cast<std::int64_t>(result.pmf_.size() + base.pmf_.size()) > kMaxPoints) {
                return tooManyPoints(what, h_);
            }
            result = result.convolve(base);
        }
        k >>= 1;
        if (k > 0) {
            if (!what.empty() && static_cast<std::int64_t>(2 * base.pmf_.size()) > kMaxPoints) {
                return tooManyPoints(what, h_);
            }
            base = base.convolve(base);
        }
    }
    return result;
}

Expected<PrivacyLossDistribution> PrivacyLossDistribution::compose(
    const std::vector<AccountedMechanism>& mechs, const PldOptions& options, Rounding rounding) {
    for (const auto& m : mechs) {
        if (isSubsampled(m)) {
            return Error{m.describe() +
                         ": a subsampled mechanism's PLD differs for added and removed records; "
                         "compose both directions (PldAccount)"};
        }
    }
    return compose(mechs, options, rounding, Neighbour::Remove);
}

Expected<PrivacyLossDistribution> PrivacyLossDistribution::compose(
    const std::vector<AccountedMechanism>& mechs, const PldOptions& options, Rounding rounding,
    Neighbour direction) {
    if (auto s = options.validate(); !s) {
        return s.error();
    }
    auto bySize = [](const PrivacyLossDistribution& a, const PrivacyLossDistribution& b) {
        return a.pmf_.size() > b.pmf_.size();
    };
    std::priority_queue<PrivacyLossDistribution, std::vector<PrivacyLossDistribution>,
                        decltype(bySize)>
        queue(bySize);
    double mu2 = 0;
    for (const auto& m : mechs) {
        if (auto s = m.validate(); !s) {
            return s.error();
        }
        if (m.kind == LossMechanism::Gaussian && !options.discretiseGaussian && !isSubsampled(m)) {
            const double mu = m.sensitivity / m.parameter;
            mu2 += static_cast<double>(m.count) * mu * mu;
            continue;
        }
        auto one = isSubsampled(m) ? singleSubsampled(m, options.interval, options.tailMass,
                                                      rounding, direction)
                                   : single(m, options.interval, options.tailMass, rounding);
        if (!one) {
            return one.error();
        }
        // Repeated squaring doubles the width at each step: check the final width first (a
        // subsampled loss is concentrated near 0 and truncated as it goes: power() checks).
        const double width = static_cast<double>(one->pmf_.size()) * static_cast<double>(m.count);
        if (!isSubsampled(m) && width > static_cast<double>(kMaxPoints) * 64) {
            return tooManyPoints(m.describe(), options.interval);
        }
        // Only subsampled mechanisms are checked on the way (the others were checked above).
        auto powered = one->power(m.count, isSubsampled(m) ? m.describe() : std::string());
        if (!powered) {
            return powered.error();
        }
        queue.push(std::move(*powered));
    }
    PrivacyLossDistribution total;
    total.rounding_ = rounding;
    total.h_ = options.interval;
    total.tail_ = options.tailMass;
    if (!queue.empty()) {
        // Smallest two first (Huffman order): the work is dominated by the single mechanisms'
        // widths, not by k times the composed width.
        while (queue.size() > 1) {
            PrivacyLossDistribution a = queue.top();
            queue.pop();
            PrivacyLossDistribution b = queue.top();
            queue.pop();
            if (static_cast<std::int64_t>(a.pmf_.size() + b.pmf_.size()) > kMaxPoints) {
                return tooManyPoints("the composition", options.interval);
            }
            queue.push(a.convolve(b));
        }
        total = queue.top();
    }
    total.mu2_ += mu2;
    return total;
}

double PrivacyLossDistribution::delta(double epsilon) const {
    double sum = 0;
    const double h = h_;
    if (mu2_ <= 0) {
        // Only losses above ε contribute: (1 − e^{ε−l}).
        const auto first = static_cast<std::int64_t>(std::floor(epsilon / h)) - offset_;
        for (std::size_t i = static_cast<std::size_t>(std::max<std::int64_t>(0, first));
             i < pmf_.size(); ++i) {
            const double l = static_cast<double>(offset_ + static_cast<std::int64_t>(i)) * h;
            if (l > epsilon && pmf_[i] > 0) {
                sum += pmf_[i] * -std::expm1(epsilon - l);
            }
        }
    } else {
        const double mu = std::sqrt(mu2_);
        const double sigma = 1 / mu;
        const bool pess = rounding_ == Rounding::Pessimistic;
        for (std::size_t i = 0; i < pmf_.size(); ++i) {
            if (!(pmf_[i] > 0)) {
                continue;
            }
            if (pmf_[i] < kNegligible) {
                // δ_μ ∈ [0, 1]: counted as 1 (pessimistic) or 0 (optimistic) without evaluating.
                sum += pess ? pmf_[i] : 0.0;
                continue;
            }
            const double l = static_cast<double>(offset_ + static_cast<std::int64_t>(i)) * h;
            const double x = epsilon - l;
            if (x / mu - mu / 2 > 39) {
                continue;  // Φ(< −39) underflows: δ_μ(x) = 0
            }
            // δ_μ(x) of the Gaussian pair (Balle & Wang 2018 Thm 8) with σ = 1/μ, Δ = 1.
            sum += pmf_[i] * std::clamp(gaussianExactDelta(sigma, x, 1.0), 0.0, 1.0);
        }
    }
    return std::clamp(sum + infinity_, 0.0, 1.0);
}

Expected<double> PrivacyLossDistribution::epsilon(double delta) const {
    if (!(delta > 0 && delta < 1)) {
        return Error{"δ must be in (0, 1) (got " + formatNumber(delta) + ")"};
    }
    if (infinity_ > delta) {
        return Error{"δ = " + formatNumber(delta) +
                     " is below the probability that the privacy loss is infinite (" +
                     formatNumber(infinity_) + "): no finite ε"};
    }
    if (this->delta(0) <= delta) {
        return 0.0;
    }
    const double lossMax =
        static_cast<double>(offset_ + static_cast<std::int64_t>(pmf_.size())) * h_;
    double hi = std::max(lossMax, h_);
    if (mu2_ > 0) {
        hi = std::max(1.0, lossMax + mu2_ / 2 + 10 * std::sqrt(mu2_));
    }
    int guard = 0;
    while (this->delta(hi) > delta) {
        hi *= 2;
        if (++guard > 60) {
            return Error{"no ε with δ(ε) ≤ " + formatNumber(delta) + " was found"};
        }
    }
    double lo = 0;
    // A grid of many points is only accurate to about its interval h (each loss was rounded by
    // < h): bisection stops at h/8 there, at 1e-12 relative otherwise (a Gaussian part alone).
    const double resolution = pmf_.size() > 1 ? h_ / 8 : 0.0;
    for (int i = 0; i < 200 && hi - lo > std::max(1e-12 * hi, resolution); ++i) {
        const double mid = lo + (hi - lo) / 2;
        (this->delta(mid) <= delta ? hi : lo) = mid;
    }
    return rounding_ == Rounding::Pessimistic ? hi : lo;
}

Expected<PldAccount> PldAccount::compose(const std::vector<AccountedMechanism>& mechs,
                                         const PldOptions& options) {
    const bool anySubsampled = std::any_of(mechs.begin(), mechs.end(), isSubsampled);
    // Both roundings of one neighbour direction; they are independent: composed on two threads.
    using Pair = std::pair<PrivacyLossDistribution, PrivacyLossDistribution>;
    auto bothRoundings = [&](Neighbour n) -> Expected<Pair> {
        auto pending = std::async(std::launch::async, [&] {
            return PrivacyLossDistribution::compose(mechs, options, Rounding::Optimistic, n);
        });
        auto up = PrivacyLossDistribution::compose(mechs, options, Rounding::Pessimistic, n);
        auto low = pending.get();
        if (!up) {
            return up.error();
        }
        if (!low) {
            return low.error();
        }
        return Pair{std::move(*up), std::move(*low)};
    };
    auto remove = bothRoundings(Neighbour::Remove);
    if (!remove) {
        return remove.error();
    }
    PldAccount out{std::move(remove->first), std::move(remove->second), std::nullopt, std::nullopt};
    if (anySubsampled) {
        auto add = bothRoundings(Neighbour::Add);
        if (!add) {
            return add.error();
        }
        out.addUpper = std::move(add->first);
        out.addLower = std::move(add->second);
    }
    return out;
}

Expected<double> PldAccount::upperEpsilon(const std::vector<AccountedMechanism>& mechs,
                                          const PldOptions& options, double delta) {
    const bool anySubsampled = std::any_of(mechs.begin(), mechs.end(), isSubsampled);
    auto epsilonOf = [&](Neighbour n) -> Expected<double> {
        auto pld = PrivacyLossDistribution::compose(mechs, options, Rounding::Pessimistic, n);
        if (!pld) {
            return pld.error();
        }
        return pld->epsilon(delta);
    };
    if (!anySubsampled) {
        return epsilonOf(Neighbour::Remove);
    }
    auto pending = std::async(std::launch::async, [&] { return epsilonOf(Neighbour::Add); });
    auto remove = epsilonOf(Neighbour::Remove);
    auto add = pending.get();
    if (!remove) {
        return remove;
    }
    if (!add) {
        return add;
    }
    return std::max(*remove, *add);
}

Expected<PldUpperAccount> PldUpperAccount::compose(const std::vector<AccountedMechanism>& mechs,
                                                   const PldOptions& options) {
    const bool anySubsampled = std::any_of(mechs.begin(), mechs.end(), isSubsampled);
    auto one = [&](Neighbour n) {
        return PrivacyLossDistribution::compose(mechs, options, Rounding::Pessimistic, n);
    };
    if (!anySubsampled) {
        auto remove = one(Neighbour::Remove);
        if (!remove) {
            return remove.error();
        }
        return PldUpperAccount{std::move(*remove), std::nullopt};
    }
    auto pending = std::async(std::launch::async, [&] { return one(Neighbour::Add); });
    auto remove = one(Neighbour::Remove);
    auto add = pending.get();
    if (!remove) {
        return remove.error();
    }
    if (!add) {
        return add.error();
    }
    return PldUpperAccount{std::move(*remove), std::move(*add)};
}

double PldUpperAccount::delta(double epsilon) const {
    const double d = remove.delta(epsilon);
    return add ? std::max(d, add->delta(epsilon)) : d;
}

Expected<double> PldUpperAccount::epsilon(double delta) const {
    auto e = remove.epsilon(delta);
    if (!e || !add) {
        return e;
    }
    auto f = add->epsilon(delta);
    if (!f) {
        return f.error();
    }
    return std::max(*e, *f);
}

double PldUpperAccount::deltaBelow(double epsilon) const {
    // PrivacyLossDistribution::epsilon returns the upper end `hi` of a bracket whose lower end
    // fails, at most max(1e-12·hi, h/8 on a grid) wide: if the crossing is ≤ ε − that width, hi
    // is ≤ ε. δ(ε) is non-increasing, so δ(ε − width) ≤ δ places the crossing there.
    auto one = [&](const PrivacyLossDistribution& d) {
        const double width = std::max(d.pmf().size() > 1 ? d.interval() / 8 : 0.0, 2e-12 * epsilon);
        return d.delta(std::max(0.0, epsilon - width));
    };
    return add ? std::max(one(remove), one(*add)) : one(remove);
}

bool PldUpperAccount::meets(double epsilon, double delta) const {
    return delta > 0 && delta < 1 && epsilon >= 0 && deltaBelow(epsilon) <= delta;
}

PldBounds PldAccount::delta(double epsilon) const {
    PldBounds b{upper.delta(epsilon), lower.delta(epsilon)};
    if (addUpper && addLower) {
        b.upper = std::max(b.upper, addUpper->delta(epsilon));
        b.lower = std::max(b.lower, addLower->delta(epsilon));
    }
    return b;
}

Expected<PldBounds> PldAccount::epsilon(double delta) const {
    // δ(ε) is non-increasing: the smallest ε meeting δ in both directions is the larger one.
    auto both = [&](const PrivacyLossDistribution& a,
                    const std::optional<PrivacyLossDistribution>& b) -> Expected<double> {
        auto e = a.epsilon(delta);
        if (!e || !b) {
            return e;
        }
        auto f = b->epsilon(delta);
        if (!f) {
            return f.error();
        }
        return std::max(*e, *f);
    };
    auto u = both(upper, addUpper);
    if (!u) {
        return u.error();
    }
    auto l = both(lower, addLower);
    if (!l) {
        return l.error();
    }
    return PldBounds{*u, *l};
}

}  // namespace dpx::accounting
