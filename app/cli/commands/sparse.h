// dpx sparse: seed 003 §2.4.1's thresholded-Laplace sparse histogram against Laplace clamped at 0
// — exact expected L1 errors, the risk bound, and a seeded Monte Carlo of the L1 error
// distribution; JSON on `out`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <set>
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
// A table (--counts-file, --data --joint) is taken as the vector of its cells, with a note on
// `err`.
Expected<Histogram> histogramOrExampleFromArgs(const Args& a, std::ostream* err = nullptr,
                                               std::size_t* attributes = nullptr);

// What dpx sparse, rdp and select read first, in this order: the options (`known` plus --example
// and the options of truth.h), the histogram (histogramOrExampleFromArgs) and --epsilon (finite,
// > 0). Messages name the option.
struct HistogramInput {
    Args args;
    Histogram histogram;
    double epsilon = 0;
    std::size_t attributes = 1;  // of a table given as --counts-file or --data --joint
};
Expected<HistogramInput> histogramInputFromArgs(const std::vector<std::string>& argv,
                                                std::set<std::string> known,
                                                std::ostream* err = nullptr);

// The Monte Carlo options of dpx sparse and dpx rdp: --trials (0: none, else 2 … 10⁷; default
// 1000), --seed (default 1), --threads (0 = all cores, at most 1024) and --per-trial yes|no
// (default no); --seed, --threads and --per-trial only with trials.
struct MonteCarloArgs {
    std::uint64_t trials = 0;
    std::uint64_t seed = 0;
    unsigned threads = 0;
    bool perTrial = false;
};
Expected<MonteCarloArgs> monteCarloArgsFrom(const Args& a);

}  // namespace dpx::cli
