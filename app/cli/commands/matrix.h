// dpx matrix: count-query mechanism matrices (core/count): the generated mechanisms (geometric,
// explicit-fair, uniform, randomized response, discretised Laplace and Gaussian, GRR), the
// LP-optimal one (--objective, --constraints, --weights, --sweep), a matrix file checked against
// ε (--check), and outputs sampled from a matrix (--sample). JSON (or CSV) on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "matrix". Exit codes as every subcommand (output.h).
int cmdMatrix(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
