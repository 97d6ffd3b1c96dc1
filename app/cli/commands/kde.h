// dpx kde: differentially private kernel density estimate released as a function on a grid (seed
// 003 §3.3.1; issue #9): the true KDE and sampled releases, JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "kde". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdKde(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
