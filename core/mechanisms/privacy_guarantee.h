// What a calibrated mechanism promises, in the forms the rest of the app reports.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/noise_distribution.h"
#include "core/base/privacy_params.h"

namespace dpx {

// The (ε, δ) promised (δ = 0 for pure ε-DP), with the zCDP form and a sentence for people.
struct PrivacyGuarantee : PrivacyParams {
    std::optional<double> rho;  // zCDP parameter where defined
    std::string rhoNote;        // how ρ was obtained
    std::string sentence;       // plain-language statement of the guarantee
};

// A mechanism with its noise fixed: what it adds to every bin and what it guarantees.
struct CalibratedMechanism {
    std::string name;  // "laplace", "geometric", "gaussian"
    NoiseDistribution noise;
    PrivacyGuarantee guarantee;
    double l1Sensitivity = 0;
    double l2Sensitivity = 0;
    std::string calibration;            // for Gaussian: "classic", "hall", "analytic"
    std::vector<std::string> warnings;  // things the user should know, never errors
};

}  // namespace dpx
