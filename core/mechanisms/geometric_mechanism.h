// Two-sided geometric (discrete Laplace) mechanism for integer counts (Ghosh, Roughgarden &
// Sundararajan 2009; seed 001 ch. 6): add Z with Pr[Z = z] ∝ α^|z|, α = exp(-ε/Δ1). Needs an
// integer Δ1; the output stays integral. Pure ε-DP, hence (ε²/2)-zCDP.
#pragma once

#include "core/base/expected.h"
#include "core/mechanisms/privacy_guarantee.h"

namespace dpx {

struct GeometricParams {
    double epsilon = 1;
    double l1Sensitivity = 1;  // must be a positive integer
    Status validate() const;
};

Expected<CalibratedMechanism> calibrateGeometric(const GeometricParams& params);

}  // namespace dpx
