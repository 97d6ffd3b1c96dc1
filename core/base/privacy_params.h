// The (ε, δ) pair of differential privacy as one value, for the APIs where the two travel
// together (a mechanism's specification, a total budget). δ = 0 is pure ε-DP. No Qt.
#pragma once

#include "core/base/expected.h"

namespace dpx {

struct PrivacyParams {
    double epsilon = 1;  // finite > 0
    double delta = 0;    // in [0, 1); 0 for pure ε-DP

    bool isPure() const { return delta == 0; }
    // ε as validateEpsilon (core/base/validation.h) requires; δ finite in [0, 1): "δ must be in
    // [0, 1) (got …)". Valid values are never adjusted.
    Status validate() const;
};

}  // namespace dpx
