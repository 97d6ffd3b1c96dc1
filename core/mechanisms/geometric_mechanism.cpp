#include "core/mechanisms/geometric_mechanism.h"

#include <cmath>

#include "core/base/validation.h"

namespace dpx {

std::string pureDpSentence(double epsilon);  // laplace_mechanism.cpp

Status GeometricParams::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (auto s = validatePositiveFinite(l1Sensitivity, "the L1 sensitivity Δ1"); !s) {
        return s;
    }
    if (l1Sensitivity != std::floor(l1Sensitivity)) {
        return Error{"the geometric mechanism needs an integer L1 sensitivity, got " +
                     formatNumber(l1Sensitivity)};
    }
    return okStatus();
}

Expected<CalibratedMechanism> calibrateGeometric(const GeometricParams& params) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    const double alpha = std::exp(-params.epsilon / params.l1Sensitivity);
    if (!(alpha > 0) || !(alpha < 1)) {
        // ε/Δ1 so large that α underflows to 0, or so small that it rounds to 1.
        return Error{"ε/Δ1 = " + formatNumber(params.epsilon / params.l1Sensitivity) +
                     " is outside the range where α = exp(−ε/Δ1) is representable in (0, 1)"};
    }
    CalibratedMechanism m{
        "geometric", NoiseDistribution::discreteLaplace(alpha), {}, params.l1Sensitivity, 0, "",
        {}};
    m.guarantee.epsilon = params.epsilon;
    m.guarantee.rho = params.epsilon * params.epsilon / 2;
    m.guarantee.rhoNote = "implied by ε-DP: ρ = ε²/2 (Bun & Steinke 2016, Prop. 1.4)";
    m.guarantee.sentence = pureDpSentence(params.epsilon);
    return m;
}

}  // namespace dpx
