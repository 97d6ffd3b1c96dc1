// dpx estimate, dpx expected-error and dpx sigma: the central noise mechanisms (Laplace,
// geometric, Gaussian) calibrated to ε (and δ), the estimators applied to noisy counts, their
// expected error (exact or Monte Carlo) and the Gaussian σ. JSON on `out`.
#pragma once

#include <QJsonObject>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/base/expected.h"
#include "core/histogram/histogram.h"
#include "core/mechanisms/mechanism.h"

namespace dpx::cli {

// The mechanism of --mechanism laplace|geometric|gaussian, --epsilon, --delta, --calibration
// calibrated to the sensitivity `s`; and its JSON description (name, noise, ε, δ, guarantee).
Expected<CalibratedMechanism> mechanismFromArgs(const Args& a, const Sensitivity& s);
QJsonObject mechanismJson(const CalibratedMechanism& m);

// argv[1] == "estimate", "expected-error", "sigma". Exit codes as every subcommand (output.h).
int cmdEstimate(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdExpectedError(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdSigma(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
