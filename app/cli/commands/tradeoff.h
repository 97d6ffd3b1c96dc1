// dpx tradeoff: expected error against ε for several configurations (issue #6), the frontier
// across them, and the accuracy-first inverse (smallest ε meeting a target). JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/choosing/tradeoff.h"

namespace dpx::cli {

// One configuration "MECHANISM:ESTIMATOR", MECHANISM one of laplace, geometric, gaussian, gm, em,
// optimal[-OBJ] (OBJ: l0, l1 (default), l2, l0dD, minimax-l0|l1|l2|l0dD), or a local protocol
// rr, grr, oue, sue, olh, hrr, dbitflipD (D bits per user, "dbitflip" = dbitflip1), ESTIMATOR one
// of identity, clamp, resize, noisefirst (refused by validate() where it does not apply). Metric,
// δ and calibration are set by the caller.
Expected<TradeoffConfig> parseTradeoffConfig(const std::string& text);

// --epsilons: "LO:HI:COUNT" (COUNT log-spaced values) or "E1,E2,...".
Expected<std::vector<double>> parseEpsilonGrid(const std::string& text);

// argv[1] == "tradeoff". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdTradeoff(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
