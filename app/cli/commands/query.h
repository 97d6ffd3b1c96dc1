// dpx query (issue #19): a box (range) query on a table of several attributes — its true answer,
// a simulated noisy answer (seeded; not a release) and the exact expected error of the answer when
// every cell gets independent Laplace, geometric or Gaussian noise (core/table/query.h). JSON on
// `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "query". Exit codes as every subcommand (output.h).
int cmdQuery(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
