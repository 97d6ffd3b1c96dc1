#include "core/choosing/budget.h"

#include <boost/multiprecision/cpp_int.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <system_error>
#include <vector>

#include "core/base/validation.h"

namespace dpx {

namespace {

using Rational = boost::multiprecision::cpp_rational;
using BigInt = boost::multiprecision::cpp_int;

// 10^k for k < 400 (every shortest decimal of a double has |exponent| < 400), computed once.
const BigInt& powerOfTen(unsigned k) {
    static const std::vector<BigInt> table = [] {
        std::vector<BigInt> t(400);
        t[0] = 1;
        for (std::size_t i = 1; i < t.size(); ++i) {
            t[i] = t[i - 1] * 10;
        }
        return t;
    }();
    return table.at(k);
}

// The shortest decimal that rounds to x (std::to_chars), as an exact rational. Precondition: x
// finite.
Rational decimalValue(double x) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf - 1, x);  // shortest round-trip form
    *res.ptr = '\0';                                               // for strtol below
    // Forms: [-]digits[.digits][e[+-]digits], at most 17 significant digits.
    const char* p = buf;
    const bool negative = *p == '-';
    if (negative) {
        ++p;
    }
    std::uint64_t mantissa = 0;
    long exponent = 0;
    bool afterPoint = false;
    for (; p < res.ptr && *p != 'e'; ++p) {
        if (*p == '.') {
            afterPoint = true;
            continue;
        }
        mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
        if (afterPoint) {
            --exponent;
        }
    }
    if (p < res.ptr) {
        exponent += std::strtol(p + 1, nullptr, 10);
    }
    const BigInt& scale = powerOfTen(static_cast<unsigned>(std::labs(exponent)));
    Rational r =
        exponent >= 0 ? Rational(BigInt(mantissa) * scale) : Rational(BigInt(mantissa), scale);
    return negative ? Rational(-r) : r;
}

// The exact binary value of x (finite).
Rational binaryValue(double x) {
    int e = 0;
    const double m = std::frexp(x, &e);                         // x = m·2^e, 0.5 ≤ |m| < 1
    const auto mi = static_cast<long long>(std::ldexp(m, 53));  // exact: 53-bit integer
    Rational r(mi);
    const int shift = e - 53;
    const BigInt p = BigInt(1) << static_cast<unsigned>(std::abs(shift));
    return shift >= 0 ? r * Rational(p) : r / Rational(p);
}

// The largest double whose decimal reading is ≤ r (r ≥ 0 and below DBL_MAX).
double roundDownDecimal(const Rational& r) {
    double d = r.convert_to<double>();
    if (!std::isfinite(d)) {
        return d;  // beyond the double range: nothing finer to say
    }
    while (decimalValue(d) > r) {
        d = std::nextafter(d, -std::numeric_limits<double>::infinity());
    }
    return d;
}

// The smallest double whose decimal reading is ≥ r (r ≥ 0 and below DBL_MAX): the spent amounts
// as the ledger reads doubles, so an exact sum of 1/10^6 gives 1e-06.
double roundUpDecimal(const Rational& r) {
    double d = r.convert_to<double>();
    if (!std::isfinite(d)) {
        return d;  // beyond the double range: nothing finer to say
    }
    while (decimalValue(d) < r) {
        d = std::nextafter(d, std::numeric_limits<double>::infinity());
    }
    for (double below = std::nextafter(d, 0.0); d > 0 && decimalValue(below) >= r;
         below = std::nextafter(d, 0.0)) {
        d = below;
    }
    return d;
}

// The smallest double ≥ r in binary value (for reporting spent amounts: never understated).
double roundUp(const Rational& r) {
    double d = r.convert_to<double>();
    if (!std::isfinite(d)) {
        return d;  // beyond the double range: nothing finer to say
    }
    while (binaryValue(d) < r) {
        d = std::nextafter(d, std::numeric_limits<double>::infinity());
    }
    return d;
}

// The largest double ≤ r in binary value (for reporting remaining amounts: never overstated).
double roundDown(const Rational& r) {
    double d = r.convert_to<double>();
    if (!std::isfinite(d)) {
        return d;  // beyond the double range: nothing finer to say
    }
    while (binaryValue(d) > r) {
        d = std::nextafter(d, -std::numeric_limits<double>::infinity());
    }
    return d;
}

std::string fraction(const Rational& r) {
    return r.str();
}

Status validateRho(double rho) {
    if (!std::isfinite(rho) || rho < 0) {
        return Error{"ρ must be finite and ≥ 0 (got " + formatNumber(rho) + ")"};
    }
    return okStatus();
}

// ρ_budget·(1 − margin) as an exact rational of the double (the safe side of the conversion).
Rational rhoAllowance(const BudgetTotal& t) {
    const double budget = *zcdpBudget(t.epsilon, t.delta);
    return binaryValue(budget * (1 - kZcdpRelativeMargin));
}

}  // namespace

const char* compositionName(Composition c) {
    return c == Composition::Zcdp ? "zcdp" : c == Composition::Pld ? "pld" : "basic";
}

Expected<Composition> compositionFromName(const std::string& name) {
    if (name == "basic") {
        return Composition::Basic;
    }
    if (name == "zcdp") {
        return Composition::Zcdp;
    }
    if (name == "pld") {
        return Composition::Pld;
    }
    return Error{"unknown composition '" + name + "' (use basic, zcdp or pld)"};
}

Expected<double> zcdpOfPureDp(double epsilon) {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s.error();
    }
    return epsilon * epsilon / 2;
}

Expected<double> gaussianRho(double l2Sensitivity, double sigma) {
    if (auto s = validatePositiveFinite(l2Sensitivity, "the L2 sensitivity Δ2"); !s) {
        return s.error();
    }
    if (auto s = validatePositiveFinite(sigma, "σ"); !s) {
        return s.error();
    }
    const double r = l2Sensitivity / sigma;
    return r * r / 2;
}

Expected<double> zcdpToEpsilon(double rho, double delta) {
    if (auto s = validateRho(rho); !s) {
        return s.error();
    }
    if (auto s = validateDelta(delta); !s) {
        return s.error();
    }
    return rho + 2 * std::sqrt(rho * -std::log(delta));
}

Expected<double> zcdpBudget(double epsilon, double delta) {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s.error();
    }
    if (auto s = validateDelta(delta); !s) {
        return s.error();
    }
    const double l = -std::log(delta);
    const double root = std::sqrt(epsilon + l) + std::sqrt(l);
    return epsilon * epsilon / (root * root);
}

Status BudgetCharge::validate() const {
    if (!std::isfinite(epsilon) || epsilon < 0) {
        return Error{"the ε of '" + label + "' must be finite and ≥ 0 (got " +
                     formatNumber(epsilon) + ")"};
    }
    if (!std::isfinite(delta) || delta < 0 || delta >= 1) {
        return Error{"the δ of '" + label + "' must be in [0, 1) (got " + formatNumber(delta) +
                     ")"};
    }
    if (rho) {
        if (auto s = validateRho(*rho); !s) {
            return Error{"the ρ of '" + label + "': " + s.error().message};
        }
    }
    if (epsilon == 0 && delta == 0 && rho.value_or(0) == 0) {
        return Error{"the release '" + label + "' spends nothing (ε = δ = ρ = 0)"};
    }
    return okStatus();
}

Expected<BudgetCharge> pureDpCharge(std::string label, double epsilon) {
    auto rho = zcdpOfPureDp(epsilon);
    if (!rho) {
        return rho.error();
    }
    return BudgetCharge{std::move(label), epsilon, 0, *rho};
}

Expected<BudgetCharge> gaussianCharge(std::string label, PrivacyParams privacy,
                                      double l2Sensitivity, double sigma) {
    if (auto s = validateEpsilon(privacy.epsilon); !s) {
        return s.error();
    }
    if (auto s = validateDelta(privacy.delta); !s) {
        return s.error();
    }
    auto rho = gaussianRho(l2Sensitivity, sigma);
    if (!rho) {
        return rho.error();
    }
    return BudgetCharge{std::move(label), privacy.epsilon, privacy.delta, *rho};
}

Status BudgetTotal::validate() const {
    if (auto s = PrivacyParams::validate(); !s) {
        return Error{"total budget: " + s.error().message};
    }
    return okStatus();
}

BudgetLedger::BudgetLedger(BudgetTotal total, Composition composition)
    : total_(total),
      composition_(composition),
      totalEpsilon_(decimalValue(total.epsilon)),
      totalDelta_(decimalValue(total.delta)) {
    if (composition == Composition::Zcdp) {
        rhoAllowance_ = rhoAllowance(total);
    }
}

Expected<BudgetLedger> BudgetLedger::create(BudgetTotal total, Composition composition) {
    if (auto s = total.validate(); !s) {
        return s.error();
    }
    if (composition == Composition::Pld) {
        return Error{
            "the PLD accountant composes a release ledger's mechanisms (a ledger created with "
            "composition pld), not (ε, δ) charges: use basic or zcdp here"};
    }
    if (composition == Composition::Zcdp && total.delta == 0) {
        return Error{
            "zCDP accounting needs a total δ > 0 (ρ-zCDP gives (ε, δ)-DP only for δ > 0); "
            "use basic composition for a pure ε budget"};
    }
    return BudgetLedger(total, composition);
}

Status BudgetLedger::fits(const BudgetCharge& next) const {
    if (auto s = next.validate(); !s) {
        return s;
    }
    return fitsExact(next, decimalValue(next.epsilon), decimalValue(next.delta),
                     next.rho ? decimalValue(*next.rho) : Rational(0));
}

// fits() with the charge's decimal readings already made (charge() makes them once).
Status BudgetLedger::fitsExact(const BudgetCharge& next, const Exact& epsilon, const Exact& delta,
                               const Exact& rho) const {
    if (composition_ == Composition::Basic) {
        if (next.epsilon == 0 && next.delta == 0) {
            return Error{"'" + next.label +
                         "' has only a zCDP ρ; basic composition needs its (ε, δ)"};
        }
        const Rational eps = epsilonSum_ + epsilon;
        const Rational del = deltaSum_ + delta;
        if (eps > totalEpsilon_) {
            return Error{"'" + next.label + "' does not fit: ε would total " +
                         formatNumber(roundUp(eps)) + " > budget " + formatNumber(total_.epsilon) +
                         " (left: " + formatNumber(roundDown(totalEpsilon_ - epsilonSum_)) + ")"};
        }
        if (del > totalDelta_) {
            return Error{"'" + next.label + "' does not fit: δ would total " +
                         formatNumber(roundUp(del)) + " > budget " + formatNumber(total_.delta) +
                         " (left: " + formatNumber(roundDown(totalDelta_ - deltaSum_)) + ")"};
        }
        return okStatus();
    }
    if (!next.rho) {
        return Error{"'" + next.label +
                     "' has no zCDP ρ (only pure-DP and Gaussian releases can be accounted with "
                     "zCDP); use basic composition"};
    }
    const Rational sum = rhoSum_ + rho;
    if (sum > rhoAllowance_) {
        return Error{"'" + next.label + "' does not fit: ρ would total " +
                     formatNumber(roundUp(sum)) + " > " + formatNumber(roundDown(rhoAllowance_)) +
                     ", the ρ whose conversion stays within (ε, δ) = (" +
                     formatNumber(total_.epsilon) + ", " + formatNumber(total_.delta) +
                     ") with a relative safety margin of 1e-12"};
    }
    return okStatus();
}

Status BudgetLedger::charge(BudgetCharge next) {
    if (auto s = next.validate(); !s) {
        return s;
    }
    const Rational epsilon = decimalValue(next.epsilon);
    const Rational delta = decimalValue(next.delta);
    const Rational rho = next.rho ? decimalValue(*next.rho) : Rational(0);
    if (auto s = fitsExact(next, epsilon, delta, rho); !s) {
        return s;
    }
    epsilonSum_ += epsilon;
    deltaSum_ += delta;
    rhoSum_ += rho;
    charges_.push_back(std::move(next));
    return okStatus();
}

Status BudgetLedger::remove(std::size_t index) {
    if (index >= charges_.size()) {
        return Error{"no release number " + std::to_string(index + 1) + " in the ledger (" +
                     std::to_string(charges_.size()) + " releases)"};
    }
    // Exact subtraction: the sums stay exactly the sums of the remaining charges.
    const BudgetCharge& c = charges_[index];
    epsilonSum_ -= decimalValue(c.epsilon);
    deltaSum_ -= decimalValue(c.delta);
    if (c.rho) {
        rhoSum_ -= decimalValue(*c.rho);
    }
    charges_.erase(charges_.begin() + static_cast<std::ptrdiff_t>(index));
    return okStatus();
}

BudgetUsage BudgetLedger::usage() const {
    BudgetUsage u;
    u.composition = composition_;
    if (composition_ == Composition::Basic) {
        u.epsilonSpent = roundUpDecimal(epsilonSum_);
        u.deltaSpent = roundUpDecimal(deltaSum_);
        u.epsilonRemaining = roundDown(totalEpsilon_ - epsilonSum_);
        u.deltaRemaining = roundDown(totalDelta_ - deltaSum_);
        u.epsilonSpentExact = fraction(epsilonSum_);
        u.deltaSpentExact = fraction(deltaSum_);
        return u;
    }
    u.rhoBudget = roundDown(rhoAllowance_);
    u.rhoSpent = roundUp(rhoSum_);
    u.rhoRemaining = roundDown(rhoAllowance_ - rhoSum_);
    const double eps = u.rhoSpent == 0 ? 0.0 : *zcdpToEpsilon(u.rhoSpent, total_.delta);
    // Conversion error is a few ulps; state the spent ε on the high side.
    u.epsilonSpent = eps * (1 + kZcdpRelativeMargin);
    u.deltaSpent = charges_.empty() ? 0.0 : total_.delta;
    u.epsilonRemaining = std::max(0.0, (total_.epsilon - u.epsilonSpent) * (1 - 1e-15));
    u.deltaRemaining = total_.delta - u.deltaSpent;
    return u;
}

Expected<std::vector<double>> splitBudget(double total, const std::vector<double>& weights) {
    if (!std::isfinite(total) || total <= 0) {
        return Error{"the total to split must be finite and > 0 (got " + formatNumber(total) + ")"};
    }
    if (weights.empty()) {
        return Error{"no weights to split the budget by"};
    }
    Rational sum = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        const double w = weights[i];
        if (!std::isfinite(w) || w < 0) {
            return Error{"weight " + std::to_string(i + 1) + " must be finite and ≥ 0 (got " +
                         formatNumber(w) + ")"};
        }
        sum += decimalValue(w);
    }
    if (sum == 0) {
        return Error{"the weights are all 0"};
    }
    const Rational t = decimalValue(total);
    std::vector<double> shares;
    shares.reserve(weights.size());
    for (double w : weights) {
        shares.push_back(roundDownDecimal(t * decimalValue(w) / sum));
    }
    return shares;
}

Expected<double> epsilonForAccuracy(const std::function<double(double)>& errorAt, double target,
                                    double epsilonLow, double epsilonHigh,
                                    double relativeTolerance) {
    if (!errorAt) {
        return Error{"no error function given"};
    }
    if (!std::isfinite(target) || target <= 0) {
        return Error{"the accuracy target must be finite and > 0 (got " + formatNumber(target) +
                     ")"};
    }
    if (!std::isfinite(epsilonLow) || !std::isfinite(epsilonHigh) || epsilonLow <= 0 ||
        epsilonHigh < epsilonLow) {
        return Error{"the ε search range needs 0 < low ≤ high, both finite (got " +
                     formatNumber(epsilonLow) + ", " + formatNumber(epsilonHigh) + ")"};
    }
    if (!std::isfinite(relativeTolerance) || relativeTolerance < 1e-15 || relativeTolerance > 1) {
        return Error{"the relative tolerance must be in [1e-15, 1] (got " +
                     formatNumber(relativeTolerance) + ")"};
    }
    auto eval = [&](double e) -> Expected<double> {
        const double v = errorAt(e);
        if (std::isnan(v)) {
            return Error{"the error function returned NaN at ε = " + formatNumber(e)};
        }
        return v;
    };
    auto high = eval(epsilonHigh);
    if (!high) {
        return high.error();
    }
    if (*high > target) {
        return Error{"the target " + formatNumber(target) + " is not reached for ε ≤ " +
                     formatNumber(epsilonHigh) + " (error there: " + formatNumber(*high) + ")"};
    }
    auto low = eval(epsilonLow);
    if (!low) {
        return low.error();
    }
    if (*low <= target) {
        return epsilonLow;
    }
    double lo = epsilonLow, hi = epsilonHigh;  // error(lo) > target ≥ error(hi)
    for (int i = 0; i < 200 && hi / lo - 1 > relativeTolerance; ++i) {
        double mid = std::sqrt(lo * hi);
        if (!(mid > lo && mid < hi)) {
            mid = lo + (hi - lo) / 2;
            if (!(mid > lo && mid < hi)) {
                break;  // adjacent doubles
            }
        }
        auto v = eval(mid);
        if (!v) {
            return v.error();
        }
        (*v <= target ? hi : lo) = mid;
    }
    return hi;
}

}  // namespace dpx
