#include "core/accounting/accountant.h"

#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <tuple>
#include <utility>

#include "core/accounting/renyi.h"
#include "core/accounting/subsampling.h"
#include "core/base/validation.h"
#include "core/choosing/budget.h"
#include "core/choosing/budget_plan.h"

namespace dpx::accounting {

const char* accountantName(Accountant a) {
    switch (a) {
        case Accountant::Basic:
            return "basic";
        case Accountant::Zcdp:
            return "zcdp";
        case Accountant::Renyi:
            return "renyi";
        case Accountant::Pld:
            return "pld";
    }
    return "basic";
}

const char* accountantTitle(Accountant a) {
    switch (a) {
        case Accountant::Basic:
            return "basic composition (Dwork & Roth 2014)";
        case Accountant::Zcdp:
            return "zCDP (Bun & Steinke 2016)";
        case Accountant::Renyi:
            return "Rényi DP (Mironov 2017)";
        case Accountant::Pld:
            return "privacy loss distribution (Koskela et al. 2020)";
    }
    return "";
}

Expected<Accountant> accountantFromName(const std::string& name) {
    for (Accountant a : kAllAccountants) {
        if (name == accountantName(a)) {
            return a;
        }
    }
    if (name == "rdp") {
        return Error{
            "unknown accountant 'rdp': Rényi DP is 'renyi' (RDP means random differential "
            "privacy in this program); expected basic, zcdp, renyi or pld"};
    }
    return Error{"unknown accountant '" + name + "' (expected basic, zcdp, renyi or pld)"};
}

Expected<PlanAccountant> PlanAccountant::create(std::vector<AccountedMechanism> mechs,
                                                const PldOptions& options, bool withPld) {
    for (const auto& m : mechs) {
        if (auto s = m.validate(); !s) {
            return s.error();
        }
    }
    if (auto s = options.validate(); !s) {
        return s.error();
    }
    if (!withPld) {
        return PlanAccountant(std::move(mechs), options, std::nullopt);
    }
    auto pld = PldAccount::compose(mechs, options);
    if (!pld) {
        return pld.error();
    }
    return PlanAccountant(std::move(mechs), options, std::move(*pld));
}

Expected<double> PlanAccountant::basicEpsilon(double delta) const {
    double eps = 0;
    double uses = 0;  // uses of the mechanisms that need δ
    for (const auto& m : mechs_) {
        if (isPureLoss(m)) {
            eps += static_cast<double>(m.count) * amplifiedPureEpsilon(m);
        } else {
            uses += static_cast<double>(m.count);
        }
    }
    if (uses == 0) {
        return eps;
    }
    const double share = delta / uses;
    // A use subsampled at rate q may run at δ_i = share/q (capped at ½): amplification makes it
    // (ln(1 + q(e^{ε_i} − 1)), qδ_i)-DP (Li, Qardaji & Su 2012; Balle, Barthe & Gaboardi 2018).
    std::map<std::tuple<double, double, double>, double> seen;  // (σ, Δ, q) → ε at the share
    for (const auto& m : mechs_) {
        if (isPureLoss(m)) {
            continue;
        }
        const double q = m.samplingRate;
        const double useDelta = q < 1 ? std::min(share / q, 0.5) : share;
        Expected<double> e = 0.0;
        if (m.kind == LossMechanism::Gaussian) {
            const auto key = std::make_tuple(m.parameter, m.sensitivity, q);
            if (auto it = seen.find(key); it != seen.end()) {
                e = it->second;
            } else {
                e = gaussianEpsilonOfSigma(m.parameter, useDelta, m.sensitivity);
                if (e) {
                    seen.emplace(key, *e);
                }
            }
        } else {
            e = zcdpToEpsilon(zcdpRho(m), useDelta);
        }
        if (!e) {
            return Error{m.describe() + ": " + e.error().message};
        }
        double used = *e;
        if (q < 1) {
            auto amp = amplifyByPoissonSampling(used, useDelta, q);
            if (!amp) {
                return Error{m.describe() + ": " + amp.error().message};
            }
            used = amp->epsilon;
        }
        eps += static_cast<double>(m.count) * used;
    }
    return eps;
}

Expected<AccountantAnswer> PlanAccountant::epsilon(Accountant a, double delta) const {
    if (!(delta > 0 && delta < 1)) {
        return Error{"δ must be in (0, 1) (got " + formatNumber(delta) + ")"};
    }
    switch (a) {
        case Accountant::Basic: {
            auto e = basicEpsilon(delta);
            if (!e) {
                return e.error();
            }
            return AccountantAnswer{*e, std::nullopt, 0};
        }
        case Accountant::Zcdp: {
            const double rho = totalZcdpRho(mechs_);
            if (rho == 0) {
                return AccountantAnswer{0, std::nullopt, 0};
            }
            auto e = zcdpToEpsilon(rho, delta);
            if (!e) {
                return e.error();
            }
            return AccountantAnswer{*e, std::nullopt, 0};
        }
        case Accountant::Renyi: {
            auto r = renyiEpsilon(mechs_, delta);
            if (!r) {
                return r.error();
            }
            return AccountantAnswer{r->value, std::nullopt, r->alpha};
        }
        case Accountant::Pld: {
            if (!pld_) {
                return Error{"the PLD of this plan was not composed"};
            }
            auto b = pld_->epsilon(delta);
            if (!b) {
                return b.error();
            }
            return AccountantAnswer{b->upper, b->lower, 0};
        }
    }
    return Error{"unknown accountant"};
}

Expected<AccountantAnswer> PlanAccountant::delta(Accountant a, double epsilon) const {
    if (!(epsilon >= 0) || !std::isfinite(epsilon)) {
        return Error{"ε must be finite and ≥ 0 (got " + formatNumber(epsilon) + ")"};
    }
    switch (a) {
        case Accountant::Basic: {
            double pure = 0;
            bool anyApprox = false;
            for (const auto& m : mechs_) {
                if (isPureLoss(m)) {
                    pure += static_cast<double>(m.count) * amplifiedPureEpsilon(m);
                } else {
                    anyApprox = true;
                }
            }
            if (!anyApprox) {
                return AccountantAnswer{epsilon >= pure ? 0.0 : 1.0, std::nullopt, 0};
            }
            // The smallest δ with basic ε(δ) ≤ ε; ε(δ) decreases in δ. Bisection on ln δ in
            // [ln 1e-300, ln(1 − 1e-12)], answer the upper end.
            double lo = std::log(1e-300);
            double hi = std::log1p(-1e-12);
            auto fitsAt = [&](double d) -> Expected<bool> {
                auto e = basicEpsilon(d);
                if (!e) {
                    return e.error();
                }
                return *e <= epsilon;
            };
            auto fits = [&](double logDelta) { return fitsAt(std::exp(logDelta)); };
            auto top = fits(hi);
            if (!top) {
                return top.error();
            }
            if (!*top) {
                return AccountantAnswer{1.0, std::nullopt, 0};
            }
            auto bottom = fits(lo);
            if (!bottom) {
                return bottom.error();
            }
            if (*bottom) {
                return AccountantAnswer{std::exp(lo), std::nullopt, 0};
            }
            // To adjacent doubles (issue #22: stopped at 1e-9 in ln δ, a plan at δ = 1e-5 showed
            // 1.0000000008e-05), then on δ itself, down while ε(δ) ≤ ε still holds: the smallest
            // double δ that fits, never one that does not.
            for (int i = 0; i < 200; ++i) {
                const double mid = lo + (hi - lo) / 2;
                if (!(mid > lo && mid < hi)) {
                    break;
                }
                auto f = fits(mid);
                if (!f) {
                    return f.error();
                }
                (*f ? hi : lo) = mid;
            }
            double d = std::exp(hi);  // fits(hi) held: it is fitsAt(d)
            for (int i = 0; i < 64; ++i) {
                const double below = std::nextafter(d, 0.0);
                auto f = fitsAt(below);
                if (!f) {
                    return f.error();
                }
                if (!*f) {
                    break;
                }
                d = below;
            }
            return AccountantAnswer{d, std::nullopt, 0};
        }
        case Accountant::Zcdp: {
            const double rho = totalZcdpRho(mechs_);
            if (rho == 0) {
                return AccountantAnswer{0, std::nullopt, 0};
            }
            const double d =
                epsilon > rho ? std::exp(-(epsilon - rho) * (epsilon - rho) / (4 * rho)) : 1.0;
            return AccountantAnswer{d, std::nullopt, 0};
        }
        case Accountant::Renyi: {
            auto r = renyiDelta(mechs_, epsilon);
            if (!r) {
                return r.error();
            }
            return AccountantAnswer{r->value, std::nullopt, r->alpha};
        }
        case Accountant::Pld: {
            if (!pld_) {
                return Error{"the PLD of this plan was not composed"};
            }
            const PldBounds b = pld_->delta(epsilon);
            return AccountantAnswer{b.upper, b.lower, 0};
        }
    }
    return Error{"unknown accountant"};
}

Expected<double> calibrateScale(Accountant a, const AccountedMechanism& shape, double epsilon,
                                double delta, const PldOptions& options) {
    if (shape.kind == LossMechanism::Geometric || shape.kind == LossMechanism::RandomizedResponse) {
        return Error{std::string("calibration: ") + lossMechanismName(shape.kind) +
                     " is parametrised by ε, not by a noise scale"};
    }
    if (!(epsilon > 0) || !std::isfinite(epsilon)) {
        return Error{"calibration: the target ε must be finite and > 0 (got " +
                     formatNumber(epsilon) + ")"};
    }
    if (auto st = options.validate(); !st) {
        return st.error();
    }
    const bool pureLaplace = shape.kind == LossMechanism::Laplace && a == Accountant::Basic;
    if (!(delta >= 0 && delta < 1) || (delta == 0 && !pureLaplace)) {
        return Error{"calibration: the target δ must be in (0, 1) (got " + formatNumber(delta) +
                     ")"};
    }
    // ε of the plan at scale s; +∞ when no finite ε exists (too little noise).
    auto epsilonAt = [&](double s) -> Expected<double> {
        AccountedMechanism m = shape;
        m.parameter = s;
        if (auto st = m.validate(); !st) {
            return st.error();
        }
        if (pureLaplace && delta == 0) {
            return static_cast<double>(m.count) * pureEpsilon(m);
        }
        auto plan = PlanAccountant::create({m}, options, a == Accountant::Pld);
        if (!plan) {
            // Only the PLD can fail here (a grid too wide for this little noise): count it as
            // not meeting the target, which moves the answer towards more noise.
            return std::numeric_limits<double>::infinity();
        }
        auto e = plan->epsilon(a, delta);
        return e ? e->value : std::numeric_limits<double>::infinity();
    };
    // The bracket [lo, hi] in ln s: grown from a start by factors of 2 until ε(hi) ≤ target <
    // ε(lo). The PLD starts from the Rényi answer (never far from it), so that its grids stay
    // small; the others from Δ.
    const double sMin = shape.sensitivity * 1e-6, sMax = shape.sensitivity * 1e9;
    double start = shape.sensitivity;
    if (a == Accountant::Pld) {
        auto r = calibrateScale(Accountant::Renyi, shape, epsilon, delta, options);
        if (r) {
            start = *r;
        }
    }
    double hi = std::log(start);
    for (;;) {
        auto e = epsilonAt(std::exp(hi));
        if (!e) {
            return e.error();
        }
        if (*e <= epsilon) {
            break;
        }
        if (std::exp(hi) >= sMax) {
            return Error{"calibration: no noise scale up to 1e9·Δ reaches ε = " +
                         formatNumber(epsilon) + " at δ = " + formatNumber(delta)};
        }
        hi += std::numbers::ln2;
    }
    double lo = hi - std::numbers::ln2 / 4;
    for (;;) {
        if (std::exp(lo) <= sMin) {
            return std::exp(hi);  // even the smallest scale considered meets the target
        }
        auto e = epsilonAt(std::exp(lo));
        if (!e) {
            return e.error();
        }
        if (*e > epsilon) {
            break;
        }
        hi = lo;
        lo -= std::numbers::ln2;
    }
    while (hi - lo > 1e-9) {
        const double mid = (lo + hi) / 2;
        auto e = epsilonAt(std::exp(mid));
        if (!e) {
            return e.error();
        }
        (*e <= epsilon ? hi : lo) = mid;
    }
    double s = std::exp(hi);
    // exp may round below the bracket's end: step up until the check passes.
    for (int i = 0; i < 64; ++i) {
        auto e = epsilonAt(s);
        if (!e) {
            return e.error();
        }
        if (*e <= epsilon) {
            return s;
        }
        s = std::nextafter(s, std::numeric_limits<double>::infinity());
    }
    return Error{"internal: calibration could not confirm its answer"};
}

}  // namespace dpx::accounting
