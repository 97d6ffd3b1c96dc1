// dpx ldp-mean: simulate Microsoft's 1BitMean (core/ldp/mean.h) on a seed 002 shape or on a
// column's histogram, JSON on `out` (issue #7).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "ldp-mean". Exit codes as the other subcommands (0, 2 bad input).
int cmdLdpMean(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
