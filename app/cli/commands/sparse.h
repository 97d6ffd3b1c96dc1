// dpx sparse: seed 003 §2.4.1's thresholded-Laplace sparse histogram against Laplace clamped at 0
// — exact expected L1 errors, the risk bound, and a seeded Monte Carlo of the L1 error
// distribution; JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/base/expected.h"
#include "core/histogram/histogram.h"

namespace dpx::cli {

// argv[1] == "sparse". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdSparse(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// The histogram of dpx sparse, rdp and select: --example ID (a built-in example's default
// histogram, e.g. edwards-like, nltcs-like) or the --counts / --data options of cli_truth.h.
// Exactly one source; messages name the option.
Expected<Histogram> seed003HistogramFromArgs(const Args& a);

}  // namespace dpx::cli
