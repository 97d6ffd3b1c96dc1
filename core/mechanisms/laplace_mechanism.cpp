#include "core/mechanisms/laplace_mechanism.h"

#include <cmath>
#include <sstream>

#include "core/base/validation.h"

namespace dpx {

Status LaplaceParams::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    return validatePositiveFinite(l1Sensitivity, "the L1 sensitivity Δ1");
}

std::string pureDpSentence(double epsilon);  // shared with the geometric mechanism

std::string pureDpSentence(double epsilon) {
    std::ostringstream os;
    os.precision(4);
    os << "ε-differential privacy with ε = " << epsilon
       << ": adding or changing one person's data makes any output at most e^ε ≈ "
       << std::exp(epsilon) << " times more likely.";
    return os.str();
}

Expected<CalibratedMechanism> calibrateLaplace(const LaplaceParams& params) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    const double scale = params.l1Sensitivity / params.epsilon;
    if (!std::isfinite(scale) || !(scale > 0)) {
        return Error{"Δ1/ε = " + formatNumber(params.l1Sensitivity) + "/" +
                     formatNumber(params.epsilon) +
                     " does not give a representable Laplace scale (it overflows or underflows)"};
    }
    CalibratedMechanism m{
        "laplace", NoiseDistribution::laplace(params.l1Sensitivity / params.epsilon),
        {},        params.l1Sensitivity,
        0,         "",
        {}};
    m.guarantee.epsilon = params.epsilon;
    m.guarantee.delta = 0;
    m.guarantee.rho = params.epsilon * params.epsilon / 2;
    m.guarantee.rhoNote = "implied by ε-DP: ρ = ε²/2 (Bun & Steinke 2016, Prop. 1.4)";
    m.guarantee.sentence = pureDpSentence(params.epsilon);
    return m;
}

}  // namespace dpx
