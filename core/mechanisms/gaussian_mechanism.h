// Gaussian mechanism: add iid N(0, σ²) to every bin, σ calibrated to (ε, δ) and Δ2 by one of
//   classic  σ = Δ2·sqrt(2 ln(1.25/δ))/ε        (Dwork & Roth 2014 Thm A.1, proven for ε < 1; seed
//   000) seed     σ = Δ2·sqrt(2 ln(2/δ))/ε           (seed 003 Prop 1.3.3, seed 004 Lemma 3)
//   analytic smallest σ with Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ (Balle & Wang 2018 Thm
//   8).
// Every σ is checked against the exact privacy profile (Balle & Wang Thm 8); a formula whose σ does
// not reach (ε, δ)-DP is refused. ρ = Δ2²/(2σ²) (Bun & Steinke 2016 Prop 1.6).
#pragma once

#include <string>

#include "core/base/expected.h"
#include "core/mechanisms/privacy_guarantee.h"

namespace dpx {

// Classic: Dwork & Roth 2014 Thm A.1, c(δ) = √(2 ln(1.25/δ)); Hall: Hall 2012 Prop. 1.3.3 (also
// Kamath & Ullman), c(δ) = √(2 ln(2/δ)); Analytic: Balle & Wang 2018.
enum class GaussianCalibration { Classic, Hall, Analytic };

const char* gaussianCalibrationName(GaussianCalibration c);  // "classic" / "hall" / "analytic"
Expected<GaussianCalibration> gaussianCalibrationFromName(const std::string& name);

struct GaussianParams {
    double epsilon = 1;
    double delta = 1e-6;
    double l2Sensitivity = 1;
    GaussianCalibration calibration = GaussianCalibration::Analytic;
    Status validate() const;
};

// The exact δ(ε) of the Gaussian mechanism with noise σ and L2 sensitivity Δ (Balle & Wang 2018,
// Thm 8): δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ). Decreasing in σ.
double gaussianExactDelta(double sigma, double epsilon, double l2Sensitivity);

// σ for the chosen calibration (analytic: solved to relative accuracy 1e-12 with TOMS 748).
Expected<double> gaussianSigma(const GaussianParams& params);

Expected<CalibratedMechanism> calibrateGaussian(const GaussianParams& params);

}  // namespace dpx
