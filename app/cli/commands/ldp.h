// dpx ldp: simulate a local-DP collection (issue #7; seed 001 ch. 2, 4, 5, seed 002) and report
// the estimates and their errors averaged over trials, with their analytic expectations where
// known. JSON on `out`. Frequency oracles (rr, grr, oue, sue, olh, hrr, dbitflip[:d]), range
// queries (hh:B[:consistent] over any oracle, haar) and k-way marginals of binary attributes
// (inpht:K, onehot:K[:ORACLE]); every field is described in docs/cli.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "ldp". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdLdp(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
