// The one identity of the per-bin additive mechanisms (noise added to every bin of a histogram):
// the calibrate command, the budget plan and the tradeoff's first three mechanisms all mean these,
// by the same names. The richer lists (the tradeoff's count and local mechanisms, the release's
// exact samplers) convert to and from it next to their own enums (choosing/tradeoff.h). No Qt.
#pragma once

#include <string>

#include "core/base/expected.h"

namespace dpx {

enum class MechanismKind { Laplace, Geometric, Gaussian };

inline constexpr MechanismKind kAllMechanismKinds[] = {
    MechanismKind::Laplace, MechanismKind::Geometric, MechanismKind::Gaussian};

// "laplace" / "geometric" / "gaussian": the names users type and sessions and plans store.
const char* mechanismName(MechanismKind kind);
// The names above, and "discrete-laplace" for the geometric mechanism (its other name). Error:
// "unknown mechanism 'NAME' (use laplace, geometric or gaussian)".
Expected<MechanismKind> mechanismFromName(const std::string& name);

// Pure ε-DP (δ = 0): Laplace and geometric; the Gaussian mechanism needs δ > 0.
inline bool isPureDp(MechanismKind kind) {
    return kind != MechanismKind::Gaussian;
}

}  // namespace dpx
