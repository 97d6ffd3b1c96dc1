// dpx risk: what (ε, δ)-DP means for one person in the data (issue #6 Risk view), JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "risk". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdRisk(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
