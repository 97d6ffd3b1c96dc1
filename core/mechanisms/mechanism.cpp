#include "core/mechanisms/mechanism.h"

#include "core/mechanisms/geometric_mechanism.h"
#include "core/mechanisms/laplace_mechanism.h"

namespace dpx {

namespace {
Expected<CalibratedMechanism> calibrateKind(const MechanismSpec& spec, const Sensitivity& s) {
    switch (spec.kind) {
        case MechanismKind::Laplace:
            return calibrateLaplace({spec.privacy.epsilon, s.l1});
        case MechanismKind::Geometric:
            if (!s.integral) {
                return Error{"the geometric mechanism needs an integer L1 sensitivity"};
            }
            return calibrateGeometric({spec.privacy.epsilon, s.l1});
        case MechanismKind::Gaussian:
            return calibrateGaussian(
                {spec.privacy.epsilon, spec.privacy.delta, s.l2, spec.calibration});
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
