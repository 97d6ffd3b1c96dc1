// Laplace mechanism (seed 000 §1.1.2; seed 003 Prop 1.3.1): add iid Laplace(Δ1/ε) to every bin.
// Pure ε-DP; by Bun & Steinke 2016 Prop. 1.4 any ε-DP mechanism is also (ε²/2)-zCDP.
#pragma once

#include "core/base/expected.h"
#include "core/mechanisms/privacy_guarantee.h"

namespace dpx {

struct LaplaceParams {
    double epsilon = 1;
    double l1Sensitivity = 1;
    Status validate() const;
};

Expected<CalibratedMechanism> calibrateLaplace(const LaplaceParams& params);

}  // namespace dpx
