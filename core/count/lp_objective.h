// The one grammar of the optimal-mechanism LP's objective, shared by `dpx matrix --objective`,
// `dpx tradeoff --configs optimal-OBJ:...`, session files and the Mechanism matrix tab:
//
//     [minimax-] ( l0 | l1 | l2 | l0d:D | custom:FILE )
//
// "minimax-" takes the largest expected loss over the true counts instead of the weighted sum;
// l0d:D counts an error as a loss only when it exceeds D (0 ≤ D ≤ n). `custom:FILE` names a CSV of
// (n+1)² costs; reading the file is the caller's business (only the command line offers it).
// The old spelling "l0dD" (e.g. "l0d3", from trade-off configurations before issue #18) is still
// read, with a deprecation message for the caller to show.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/base/expected.h"
#include "core/count/count_lp.h"

namespace dpx {

struct LpObjective {
    LpCostKind cost = LpCostKind::L0;
    int d = 0;               // for L0d
    std::string customPath;  // for Custom: the cost file as written
    LpAggregate aggregate = LpAggregate::Sum;
    bool operator==(const LpObjective&) const = default;
};

struct ParsedLpObjective {
    LpObjective objective;
    // Set when the text used a spelling that still works but will not forever.
    std::optional<std::string> deprecation;
};

struct LpObjectiveRules {
    bool allowCustom = false;  // custom:FILE accepted (the command line only)
    std::optional<int> n;      // when known, l0d:D must have D ≤ n (an error, never a clamp)
};

// Parses the grammar above. Errors name the text and list what is accepted.
Expected<ParsedLpObjective> parseLpObjective(std::string_view text, LpObjectiveRules rules = {});

// The canonical text of an objective ("minimax-l0d:3"); parseLpObjective reads it back unchanged.
std::string formatLpObjective(const LpObjective& objective);

// Copies cost, d and aggregate into an LP specification (custom costs are the caller's to load).
void applyLpObjective(const LpObjective& objective, CountLpSpec& spec);

}  // namespace dpx
