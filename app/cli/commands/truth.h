// The true histogram of the subcommands that measure error against it (dpx tradeoff, dpx ldp):
// --counts C1,C2,... or one column of --data FILE|sqlite:PATH|postgresql://… with --column C and
// --bins SPEC [--table T].
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/base/expected.h"
#include "core/histogram/histogram.h"

namespace dpx::cli {

// The option names read here (for Args::parse's list of known options).
inline constexpr const char* kTruthOptions[] = {"counts", "data", "column", "bins", "table"};

// Args::parse(argv, 2, …) for a subcommand that knows `known` and the options above.
Expected<Args> parseWithTruthOptions(const std::vector<std::string>& argv,
                                     std::set<std::string> known);

// `raw` as counts if every value is a whole number in [0, 9e15]; otherwise the error
// `message(i, value)` for the first one that is not (i counts from 1).
Expected<std::vector<std::int64_t>> wholeCounts(
    const std::vector<double>& raw, const std::function<std::string(std::size_t, double)>& message);

// Exactly one of --counts and --data; counts are whole numbers in [0, 9e15]; the total must be
// positive (there is nothing to measure error against otherwise). Messages name the option.
Expected<Histogram> trueHistogramFromArgs(const Args& a);

}  // namespace dpx::cli
