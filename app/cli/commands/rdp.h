// dpx rdp: seed 003 ch. 5's (ε, γ)-random-differential-privacy histogram — a WEAKER guarantee than
// DP — beside the ε-DP Laplace histogram (Fig. 5.1): which cells go out without noise, exact
// expected L1 / squared L2 errors on the proportions, and a seeded Monte Carlo; JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "rdp". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdRdp(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
