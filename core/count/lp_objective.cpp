#include "core/count/lp_objective.h"

#include <charconv>

namespace dpx {

namespace {

constexpr std::string_view kMinimax = "minimax-";
constexpr std::string_view kAccepted =
    "use l0, l1, l2, l0d:D or custom:FILE.csv, optionally prefixed with minimax-";
constexpr std::string_view kAcceptedNoCustom =
    "use l0, l1, l2 or l0d:D, optionally prefixed with minimax-";

// A whole number written with digits only (no sign, no spaces, no exponent).
std::optional<int> wholeNumber(std::string_view s) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string_view::npos) {
        return std::nullopt;
    }
    int v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

}  // namespace

Expected<ParsedLpObjective> parseLpObjective(std::string_view text, LpObjectiveRules rules) {
    ParsedLpObjective out;
    LpObjective& o = out.objective;
    std::string_view rest = text;
    if (rest.substr(0, kMinimax.size()) == kMinimax) {
        o.aggregate = LpAggregate::Max;
        rest.remove_prefix(kMinimax.size());
    }
    const std::string accepted(rules.allowCustom ? kAccepted : kAcceptedNoCustom);
    if (rest == "l0") {
        o.cost = LpCostKind::L0;
    } else if (rest == "l1") {
        o.cost = LpCostKind::L1;
    } else if (rest == "l2") {
        o.cost = LpCostKind::L2;
    } else if (rest.substr(0, 3) == "l0d" && rest.size() > 3) {
        const bool oldSpelling = rest[3] != ':';
        const std::string_view digits = rest.substr(oldSpelling ? 3 : 4);
        const auto d = wholeNumber(digits);
        if (!d) {
            return Error{"the distance D of the objective l0d:D must be a whole number ≥ 0, got '" +
                         std::string(digits) + "' in '" + std::string(text) + "'"};
        }
        if (rules.n && *d > *rules.n) {
            return Error{"the distance D of the objective l0d:D must be in [0, n] = [0, " +
                         std::to_string(*rules.n) + "], got " + std::to_string(*d)};
        }
        o.cost = LpCostKind::L0d;
        o.d = *d;
        if (oldSpelling) {
            out.deprecation = "the objective '" + std::string(text) + "' is the old spelling of '" +
                              formatLpObjective(o) + "'; it will stop working in a later version";
        }
    } else if (rest.substr(0, 7) == "custom:" && rules.allowCustom) {
        if (rest.size() == 7) {
            return Error{"the objective custom:FILE needs the path of a CSV of costs"};
        }
        o.cost = LpCostKind::Custom;
        o.customPath = std::string(rest.substr(7));
    } else {
        return Error{"unknown LP objective '" + std::string(text) + "' (" + accepted + ")"};
    }
    return out;
}

std::string formatLpObjective(const LpObjective& objective) {
    std::string s = objective.aggregate == LpAggregate::Max ? std::string(kMinimax) : std::string();
    switch (objective.cost) {
        case LpCostKind::L0:
            return s + "l0";
        case LpCostKind::L1:
            return s + "l1";
        case LpCostKind::L2:
            return s + "l2";
        case LpCostKind::L0d:
            return s + "l0d:" + std::to_string(objective.d);
        case LpCostKind::Custom:
            return s + "custom:" + objective.customPath;
    }
    return s + "l0";
}

void applyLpObjective(const LpObjective& objective, CountLpSpec& spec) {
    spec.cost = objective.cost;
    spec.d = objective.d;
    spec.aggregate = objective.aggregate;
}

}  // namespace dpx
