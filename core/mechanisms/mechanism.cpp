#include "core/mechanisms/mechanism.h"

#include "core/mechanisms/geometric_mechanism.h"
#include "core/mechanisms/laplace_mechanism.h"

namespace dpx {

const char* mechanismName(MechanismKind kind) {
    switch (kind) {
        case MechanismKind::Laplace:
            return "laplace";
        case MechanismKind::Geometric:
            return "geometric";
        case MechanismKind::Gaussian:
            return "gaussian";
    }
    return "?";
}

Expected<MechanismKind> mechanismFromName(const std::string& name) {
    if (name == "laplace") {
        return MechanismKind::Laplace;
    }
    if (name == "geometric" || name == "discrete-laplace") {
        return MechanismKind::Geometric;
    }
    if (name == "gaussian") {
        return MechanismKind::Gaussian;
    }
    return Error{"unknown mechanism '" + name + "' (use laplace, geometric or gaussian)"};
}

namespace {
Expected<CalibratedMechanism> calibrateKind(const MechanismSpec& spec, const Sensitivity& s) {
    switch (spec.kind) {
        case MechanismKind::Laplace:
            return calibrateLaplace({spec.epsilon, s.l1});
        case MechanismKind::Geometric:
            if (!s.integral) {
                return Error{"the geometric mechanism needs an integer L1 sensitivity"};
            }
            return calibrateGeometric({spec.epsilon, s.l1});
        case MechanismKind::Gaussian:
            return calibrateGaussian({spec.epsilon, spec.delta, s.l2, spec.calibration});
    }
    return Error{"unknown mechanism"};
}
}  // namespace

Expected<CalibratedMechanism> calibrate(const MechanismSpec& spec, const Sensitivity& s) {
    auto m = calibrateKind(spec, s);
    if (m) {
        // Report both sensitivities of the histogram, whichever one the noise is calibrated to.
        m->l1Sensitivity = s.l1;
        m->l2Sensitivity = s.l2;
    }
    return m;
}

}  // namespace dpx
