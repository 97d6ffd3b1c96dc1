// dpx tradeoff: expected error against ε for several configurations (issue #6), the frontier
// across them, and the accuracy-first inverse (smallest ε meeting a target). JSON on `out`.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/choosing/tradeoff.h"

namespace dpx::cli {

// One configuration "MECHANISM:ESTIMATOR" (the estimator after the last ':'), MECHANISM one of
// laplace, geometric, gaussian, gm, em, optimal[-OBJ] (OBJ in the grammar of
// core/count/lp_objective.h without custom:FILE, default l1: optimal-l0d:3:identity), or a local
// protocol rr, grr, oue, sue, olh, hrr, dbitflipD (D bits per user, "dbitflip" = dbitflip1),
// ESTIMATOR one of identity, clamp, resize, noisefirst (refused by validate() where it does not
// apply). Metric, δ and calibration are set by the caller. An objective in the old spelling
// (optimal-l0d3) is read, and the message saying so is stored in `*deprecation` when given.
Expected<TradeoffConfig> parseTradeoffConfig(const std::string& text,
                                             std::optional<std::string>* deprecation = nullptr);

// --epsilons: "LO:HI:COUNT" (COUNT log-spaced values) or "E1,E2,...".
Expected<std::vector<double>> parseEpsilonGrid(const std::string& text);

// argv[1] == "tradeoff". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdTradeoff(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
