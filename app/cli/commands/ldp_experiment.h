// dpx ldp-experiment: the telemetry study's low-population telemetry experiment
// (core/ldp/experiment.h, issue #7) over protocols × data shapes × populations × ε, JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/ldp/protocols.h"

namespace dpx::cli {

// One --protocols item: rr, grr, oue, sue, olh, hrr, dbitflip (d = 1) or dbitflip:D.
Expected<ldp::ProtocolSpec> parseExperimentProtocol(const std::string& text);

// --users: "LO:HI:COUNT" (COUNT log-spaced values rounded to whole users; LO and HI whole numbers
// ≥ 1; an error if rounding makes two equal) or "N1,N2,..." (whole numbers ≥ 1).
Expected<std::vector<std::uint64_t>> parseUserGrid(const std::string& text);

// argv[1] == "ldp-experiment". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdLdpExperiment(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
