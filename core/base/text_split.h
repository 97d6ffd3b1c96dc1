// Splitting short specification strings ("range:2000:seed=7", "0..3x2..2;5..9", binning specs):
// the pieces between separators with spaces and tabs trimmed. Views into the input.
#pragma once

#include <string_view>
#include <vector>

namespace dpx {

// s without leading and trailing spaces and tabs.
inline std::string_view trimBlanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

// The pieces of s between occurrences of sep, each trimmed; one piece when sep is absent.
inline std::vector<std::string_view> splitTrimmed(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = s.find(sep, start);
        out.push_back(trimBlanks(s.substr(start, at == std::string_view::npos ? at : at - start)));
        if (at == std::string_view::npos) {
            return out;
        }
        start = at + 1;
    }
}

}  // namespace dpx
