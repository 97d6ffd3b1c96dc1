// dpx budget: a release plan of several histograms sharing one (ε, δ) budget (issue #6 Budget
// view, core/choosing/budget_plan.h), JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "budget". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdBudget(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
