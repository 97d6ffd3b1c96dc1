#include "core/validation.h"

#include <cmath>
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

}  // namespace dpx
