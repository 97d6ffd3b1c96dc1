// Choosing and calibrating a central histogram mechanism by name.
#pragma once

#include <string>

#include "core/base/expected.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/histogram/histogram.h"
#include "core/mechanisms/privacy_guarantee.h"

namespace dpx {

enum class MechanismKind { Laplace, Geometric, Gaussian };

const char* mechanismName(MechanismKind kind);  // "laplace" / "geometric" / "gaussian"
Expected<MechanismKind> mechanismFromName(const std::string& name);

struct MechanismSpec {
    MechanismKind kind = MechanismKind::Laplace;
    double epsilon = 1;
    double delta = 0;  // used by Gaussian only
    GaussianCalibration calibration = GaussianCalibration::Analytic;
};

Expected<CalibratedMechanism> calibrate(const MechanismSpec& spec, const Sensitivity& sensitivity);

}  // namespace dpx
