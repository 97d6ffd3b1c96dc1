// dpx select: the exponential mechanism selecting a bin (the mode or a quantile) with its utility
// sensitivity per neighbouring relation, report-noisy-max beside it, every candidate's selection
// probability, and the mechanism matrix along a path of neighbouring datasets; JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "select". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdSelect(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
