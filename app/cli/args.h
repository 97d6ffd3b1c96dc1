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
    // As above; `flags` (also in `known`) take no value ("--joint"), `repeatable` ones may be
    // given several times (get() is then the first, all() every value in order).
    static Expected<Args> parse(const std::vector<std::string>& argv, std::size_t first,
                                const std::set<std::string>& known,
                                const std::set<std::string>& flags,
                                const std::set<std::string>& repeatable);

    bool has(const std::string& name) const { return values_.count(name) > 0; }
    std::optional<std::string> get(const std::string& name) const;
    // Every value of a repeatable option, in the order given (one value for the others).
    std::vector<std::string> all(const std::string& name) const;

    Expected<double> number(const std::string& name) const;                   // required
    Expected<double> number(const std::string& name, double fallback) const;  // optional
    Expected<std::uint64_t> unsignedInt(const std::string& name, std::uint64_t fallback) const;
    Expected<std::int64_t> integer(const std::string& name, std::int64_t fallback) const;
    Expected<std::string> text(const std::string& name) const;
    std::string text(const std::string& name, const std::string& fallback) const;
    Expected<std::vector<double>> numberList(const std::string& name) const;

private:
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> repeated_;
};

Expected<double> parseNumber(const std::string& text, const std::string& what);

}  // namespace dpx::cli
