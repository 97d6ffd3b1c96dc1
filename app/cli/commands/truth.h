// The true histogram of the subcommands that measure error against it (dpx tradeoff, dpx ldp):
// --counts C1,C2,... or one column of --data FILE|sqlite:PATH|postgresql://… with --column C and
// --bins SPEC [--table T]; or a table (issue #19, app/cli/commands/table_input.h) taken as the
// vector of its cells: --counts-file PATH [--counts-layout L], or --data … --joint --column A
// --bins SPEC --column B --bins SPEC ….
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/base/expected.h"
#include "core/histogram/histogram.h"

namespace dpx::cli {

// The option names read here (for Args::parse's list of known options).
inline constexpr const char* kTruthOptions[] = {"counts", "data", "column", "bins", "table"};

// Args::parse(argv, 2, …) for a subcommand that knows `known`, the options above, --counts-file,
// --counts-layout and --joint (with repeated --column and --bins).
Expected<Args> parseWithTruthOptions(const std::vector<std::string>& argv,
                                     std::set<std::string> known);

// `raw` as counts if every value is a whole number in [0, 9e15]; otherwise the error
// `message(i, value)` for the first one that is not (i counts from 1).
Expected<std::vector<std::int64_t>> wholeCounts(
    const std::vector<double>& raw, const std::function<std::string(std::size_t, double)>& message);

// Exactly one of --counts, --counts-file and --data; counts are whole numbers in [0, 9e15]; the
// total must be positive (there is nothing to measure error against otherwise). Messages name the
// option. A table of k ≥ 2 attributes is taken as the vector of its cells with a note on `err`,
// or refused when `severalAttributes` is given (it names what a table of several attributes is
// not meaningful for).
// `attributes` (if not null) receives the table's number of attributes (1 for --counts, --data);
// `shape` (if not null) the size of every attribute (one entry, the bins, for --counts, --data).
Expected<Histogram> trueHistogramFromArgs(const Args& a, std::ostream* err = nullptr,
                                          const char* severalAttributes = nullptr,
                                          std::size_t* attributes = nullptr,
                                          std::vector<std::size_t>* shape = nullptr);

}  // namespace dpx::cli
