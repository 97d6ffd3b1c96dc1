// dpx interval (issue #22): the intervals of a noise mechanism's counts — per bin, all bins at
// once, a range of cells — and, for a sample of a population, the sampling interval next to the
// DP noise's and their combination. JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "interval". Exit codes as every subcommand (output.h).
int cmdInterval(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
