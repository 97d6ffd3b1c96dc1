// dpx strategy (issue #23): a workload-optimal strategy for the matrix mechanism, designed from
// the workload alone (HDMM's templates: McKenna, Miklau, Hay & Machanavajjhala, VLDB 2018) —
// its expected error per query next to the fixed strategies of the DPBench family. No data is
// read: every figure is data-free.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

int cmdStrategy(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
