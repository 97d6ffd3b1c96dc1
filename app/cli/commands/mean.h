// dpx mean: private mean of n records in [−1, 1]^d (seed 004 §3, seed 003 §1.3; issue #9) by the
// Gaussian, Laplace and K-norm mechanisms — closed-form and Monte Carlo squared error against seed
// 004's bounds, JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "mean". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdMean(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
