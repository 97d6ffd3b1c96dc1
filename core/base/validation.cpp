#include "core/base/validation.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace dpx {

namespace {
std::string fmt(double v) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
}
}  // namespace

std::string formatNumber(double value) {
    std::ostringstream os;
    os.precision(6);
    os << value;
    return os.str();
}

Status validateEpsilon(double epsilon) {
    if (std::isnan(epsilon)) {
        return Error{"ε is not a number (NaN); it must be a finite value > 0"};
    }
    if (std::isinf(epsilon)) {
        return Error{
            "ε is infinite; an infinite ε gives no privacy, it must be a finite value > 0"};
    }
    if (epsilon <= 0) {
        return Error{"ε = " + fmt(epsilon) + " is not allowed; ε must be > 0"};
    }
    return okStatus();
}

Status validateDelta(double delta) {
    if (!std::isfinite(delta)) {
        return Error{"δ must be a finite number in (0, 1), got " + fmt(delta)};
    }
    if (delta <= 0 || delta >= 1) {
        return Error{"δ = " + fmt(delta) + " is outside (0, 1); δ must satisfy 0 < δ < 1"};
    }
    return okStatus();
}

Status validatePositiveFinite(double value, std::string_view name) {
    if (!std::isfinite(value) || value <= 0) {
        return Error{std::string(name) + " must be a finite number > 0, got " + fmt(value)};
    }
    return okStatus();
}

Status validateFinite(double value, std::string_view name) {
    if (!std::isfinite(value)) {
        return Error{std::string(name) + " must be a finite number, got " + fmt(value)};
    }
    return okStatus();
}

std::string groupThousands(long long n) {
    const std::string digits = std::to_string(n < 0 ? -static_cast<unsigned long long>(n)
                                                    : static_cast<unsigned long long>(n));
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

Expected<std::vector<double>> logSpaced(double lo, double hi, std::size_t count) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo <= 0 || hi < lo) {
        return Error{"a log-spaced range needs 0 < LO ≤ HI, both finite (got " + formatNumber(lo) +
                     ":" + formatNumber(hi) + ")"};
    }
    if (count < 1 || count > 100'000) {
        return Error{"a log-spaced range needs 1 ≤ COUNT ≤ 100,000 (got " + std::to_string(count) +
                     ")"};
    }
    if (count == 1 && lo != hi) {
        return Error{"a log-spaced range with COUNT = 1 needs LO = HI"};
    }
    if (count > 1 && lo == hi) {
        return Error{"a log-spaced range " + formatNumber(lo) + ":" + formatNumber(hi) +
                     " has LO = HI but COUNT = " + std::to_string(count) + " points"};
    }
    std::vector<double> v(count, lo);
    const double a = std::log(lo);
    const double b = std::log(hi);
    for (std::size_t i = 1; i + 1 < count; ++i) {
        const double t = static_cast<double>(i) / static_cast<double>(count - 1);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.12g", std::exp(a + (b - a) * t));
        v[i] = std::strtod(buf, nullptr);
    }
    v.back() = hi;  // exact end points, not exp(log(x))
    return v;
}

}  // namespace dpx
