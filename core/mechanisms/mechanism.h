// Choosing and calibrating a central histogram mechanism by name.
#pragma once

#include <string>

#include "core/base/expected.h"
#include "core/base/privacy_params.h"
#include "core/histogram/histogram.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/mechanism_id.h"
#include "core/mechanisms/privacy_guarantee.h"

namespace dpx {

struct MechanismSpec {
    MechanismKind kind = MechanismKind::Laplace;
    PrivacyParams privacy;  // δ is used by Gaussian only
    GaussianCalibration calibration = GaussianCalibration::Analytic;
};

Expected<CalibratedMechanism> calibrate(const MechanismSpec& spec, const Sensitivity& sensitivity);

}  // namespace dpx
