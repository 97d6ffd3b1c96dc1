#include "app/cli/args.h"

#include <charconv>
#include <cmath>

namespace dpx::cli {

Expected<Args> Args::parse(const std::vector<std::string>& argv, std::size_t first,
                           const std::set<std::string>& known) {
    return parse(argv, first, known, {}, {});
}

Expected<Args> Args::parse(const std::vector<std::string>& argv, std::size_t first,
                           const std::set<std::string>& known, const std::set<std::string>& flags,
                           const std::set<std::string>& repeatable) {
    Args a;
    for (std::size_t i = first; i < argv.size(); ++i) {
        const std::string& tok = argv[i];
        if (tok.rfind("--", 0) != 0 || tok.size() == 2) {
            return Error{"unexpected argument '" + tok + "' (options look like --name value)"};
        }
        std::string name = tok.substr(2);
        std::string value;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            if (flags.count(name)) {
                return Error{"option --" + name + " takes no value"};
            }
        } else if (flags.count(name)) {
            // A flag: present, no value.
        } else {
            if (i + 1 >= argv.size()) {
                return Error{"option --" + name + " needs a value"};
            }
            value = argv[++i];
        }
        if (!known.count(name)) {
            return Error{"unknown option --" + name + " for this command"};
        }
        if (repeatable.count(name)) {
            a.repeated_[name].push_back(value);
            a.values_.emplace(name, value);  // get(): the first
            continue;
        }
        if (a.values_.count(name)) {
            return Error{"option --" + name + " given more than once"};
        }
        a.values_[name] = value;
    }
    return a;
}

std::optional<std::string> Args::get(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) {
        return std::nullopt;
    }
    return it->second;
}

std::vector<std::string> Args::all(const std::string& name) const {
    if (const auto it = repeated_.find(name); it != repeated_.end()) {
        return it->second;
    }
    if (const auto v = get(name)) {
        return {*v};
    }
    return {};
}

Expected<double> parseNumber(const std::string& text, const std::string& what) {
    std::string t = text;
    // from_chars does not accept a leading '+'.
    if (!t.empty() && t[0] == '+') {
        t.erase(0, 1);
    }
    double v = 0;
    const char* b = t.data();
    const char* e = t.data() + t.size();
    const auto [ptr, ec] = std::from_chars(b, e, v);
    if (t.empty() || ec == std::errc::invalid_argument || ptr != e) {
        return Error{what + ": '" + text + "' is not a number"};
    }
    if (ec == std::errc::result_out_of_range) {
        return Error{what + ": '" + text + "' is out of the range of double precision"};
    }
    return v;
}

Expected<double> Args::number(const std::string& name) const {
    const auto v = get(name);
    if (!v) {
        return Error{"missing required option --" + name};
    }
    return parseNumber(*v, "--" + name);
}

Expected<double> Args::number(const std::string& name, double fallback) const {
    return has(name) ? number(name) : Expected<double>(fallback);
}

Expected<std::int64_t> Args::integer(const std::string& name, std::int64_t fallback) const {
    const auto v = get(name);
    if (!v) {
        return fallback;
    }
    std::int64_t r = 0;
    const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), r);
    if (v->empty() || ec != std::errc() || ptr != v->data() + v->size()) {
        return Error{"--" + name + ": '" + *v + "' is not an integer"};
    }
    return r;
}

Expected<std::uint64_t> Args::unsignedInt(const std::string& name, std::uint64_t fallback) const {
    const auto v = get(name);
    if (!v) {
        return fallback;
    }
    std::uint64_t r = 0;
    const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), r);
    if (!v->empty() && ec == std::errc() && ptr == v->data() + v->size()) {
        return r;
    }
    // Also accept an exact integer in scientific notation, e.g. --trials 1e7.
    auto d = parseNumber(*v, "--" + name);
    if (d && *d >= 0 && *d == std::floor(*d) && *d < 1.8e19) {
        return static_cast<std::uint64_t>(*d);
    }
    return Error{"--" + name + ": '" + *v + "' is not a non-negative integer"};
}

Expected<std::string> Args::text(const std::string& name) const {
    const auto v = get(name);
    if (!v) {
        return Error{"missing required option --" + name};
    }
    return *v;
}

std::string Args::text(const std::string& name, const std::string& fallback) const {
    return get(name).value_or(fallback);
}

Expected<std::vector<double>> Args::numberList(const std::string& name) const {
    const auto v = get(name);
    if (!v) {
        return Error{"missing required option --" + name};
    }
    std::vector<double> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = v->find(',', start);
        const std::string item =
            v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        auto x = parseNumber(item, "--" + name + " item " + std::to_string(out.size() + 1));
        if (!x) {
            return x.error();
        }
        out.push_back(*x);
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    return out;
}

}  // namespace dpx::cli
