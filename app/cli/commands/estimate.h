// dpx estimate, dpx expected-error and dpx sigma: the central noise mechanisms (Laplace,
// geometric, Gaussian) calibrated to ε (and δ), the estimators applied to noisy counts, their
// expected error (exact or Monte Carlo) and the Gaussian σ. JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "estimate", "expected-error", "sigma". Exit codes as every subcommand (output.h).
int cmdEstimate(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdExpectedError(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdSigma(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
