// Strict parsing of dpx's "--name value" options: every option must be known to the subcommand,
// given once, and every number must parse completely.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/base/expected.h"

namespace dpx::cli {

class Args {
public:
    // argv[first..] as "--name value" pairs; `known` lists the allowed names (without "--").
    static Expected<Args> parse(const std::vector<std::string>& argv, std::size_t first,
                                const std::set<std::string>& known);

    bool has(const std::string& name) const { return values_.count(name) > 0; }
    std::optional<std::string> get(const std::string& name) const;

    Expected<double> number(const std::string& name) const;                   // required
    Expected<double> number(const std::string& name, double fallback) const;  // optional
    Expected<std::uint64_t> unsignedInt(const std::string& name, std::uint64_t fallback) const;
    Expected<std::int64_t> integer(const std::string& name, std::int64_t fallback) const;
    Expected<std::string> text(const std::string& name) const;
    std::string text(const std::string& name, const std::string& fallback) const;
    Expected<std::vector<double>> numberList(const std::string& name) const;

private:
    std::map<std::string, std::string> values_;
};

Expected<double> parseNumber(const std::string& text, const std::string& what);

}  // namespace dpx::cli
