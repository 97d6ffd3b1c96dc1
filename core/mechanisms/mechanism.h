// Choosing and calibrating a central histogram mechanism by name.
#pragma once

#include <string>

#include "core/base/expected.h"
#include "core/histogram/histogram.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/mechanism_id.h"
#include "core/mechanisms/privacy_guarantee.h"

namespace dpx {

struct MechanismSpec {
    MechanismKind kind = MechanismKind::Laplace;
    double epsilon = 1;
    double delta = 0;  // used by Gaussian only
    GaussianCalibration calibration = GaussianCalibration::Analytic;
};

Expected<CalibratedMechanism> calibrate(const MechanismSpec& spec, const Sensitivity& sensitivity);

}  // namespace dpx
