// dpx strategy (issue #23): a workload-optimal strategy for the matrix mechanism, designed from
// the workload alone (HDMM's templates: McKenna, Miklau, Hay & Machanavajjhala, VLDB 2018) —
// its expected error per query next to the fixed strategies of the DPBench family. No data is
// read: every figure is data-free.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/base/expected.h"
#include "core/matrix_mechanism/hdmm.h"

namespace dpx::cli {

// The design options shared by `dpx strategy` and `dpx release --strategy`: --template,
// --p (one per dimension, or one for all), --restarts, --seed, --ftol.
struct StrategyDesignArgs {
    DesignTemplate templ = DesignTemplate::Automatic;
    std::vector<std::size_t> p;
    StrategyOptimizeOptions options;
};
Expected<StrategyDesignArgs> strategyDesignArgs(const Args& a, std::size_t dimensions);

int cmdStrategy(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
