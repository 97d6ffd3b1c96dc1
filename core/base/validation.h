// Validation of privacy and numeric parameters. Each returns an Error whose message names the
// parameter and the rule it broke; valid values are never adjusted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"

namespace dpx {

// A number for messages: up to 6 significant digits, %g style (1e-20, not 0.000000).
std::string formatNumber(double value);

// An integer with thousands separators for messages: 1234567 → "1,234,567", -5000 → "-5,000".
std::string groupThousands(long long n);

// ε must be finite and > 0.
Status validateEpsilon(double epsilon);
// δ must be finite and in the open interval (0, 1).
Status validateDelta(double delta);
// A value that must be finite and > 0 (sensitivity, scale, σ, ...).
Status validatePositiveFinite(double value, std::string_view name);
// A value that must be finite (a noisy count, a position, ...).
Status validateFinite(double value, std::string_view name);

// COUNT values log-spaced from lo to hi inclusive: 0 < lo ≤ hi, both finite; 1 ≤ COUNT ≤ 100 000;
// COUNT = 1 needs lo = hi and COUNT > 1 needs lo < hi. The end points are lo and hi exactly; the
// interior points are rounded to 12 significant digits, so a decade grid gives 0.1 and 1 rather
// than 1.0000000000000004 (exp/log rounding) in tables and JSON.
Expected<std::vector<double>> logSpaced(double lo, double hi, std::size_t count);

}  // namespace dpx
