#include "core/count/count_mechanism_io.h"

#include <charconv>
#include <cmath>
#include <system_error>
#include <utility>
#include <vector>

#include "core/base/validation.h"

namespace dpx {

namespace {

using Rows = std::vector<std::vector<double>>;

void appendNumber(std::string& out, double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
    out.append(buf, r.ptr);
}

std::string where(std::size_t line, std::size_t column) {
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The value checks fromRows would make, but reported at their place in the text.
Status checkValue(double v, const std::string& at) {
    if (!std::isfinite(v)) {
        return Error{at + ": value " + formatNumber(v) + " is not finite"};
    }
    if (v < 0) {
        return Error{at + ": value " + formatNumber(v) + " is negative; every entry must be ≥ 0"};
    }
    return okStatus();
}

// Square and size rules before fromRows, so that the message can speak of lines/rows of the file.
Expected<CountMechanism> build(const Rows& rows, std::string name, const char* rowWord,
                               const char* columnHint) {
    const std::size_t size = rows.size();
    if (size < 2 || size > static_cast<std::size_t>(kMaxCountPeople) + 1) {
        return Error{"a count mechanism matrix must have between 2 and " +
                     std::to_string(kMaxCountPeople + 1) + " " + rowWord +
                     "s (n+1 for n ≥ 1), got " + std::to_string(size)};
    }
    if (rows[0].size() != size) {
        return Error{"the matrix must be square ((n+1)×(n+1)): " + std::to_string(size) + " " +
                     rowWord + "s of " + std::to_string(rows[0].size()) + " values"};
    }
    auto m = CountMechanism::fromRows(rows, std::move(name));
    if (!m) {
        return Error{m.error().message + " (" + columnHint + ")"};
    }
    return m;
}

// A number as written in a CSV field (already trimmed): std::from_chars syntax plus a leading '+'.
Expected<double> parseField(std::string_view field, const std::string& at) {
    if (field.empty()) {
        return Error{at + ": empty field"};
    }
    std::string_view t = field;
    if (t.front() == '+') {
        t.remove_prefix(1);
    }
    double v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec == std::errc::invalid_argument || ptr != t.data() + t.size()) {
        return Error{at + ": '" + std::string(field) + "' is not a number"};
    }
    if (ec == std::errc::result_out_of_range) {
        return Error{at + ": '" + std::string(field) + "' is out of the range of double precision"};
    }
    return v;
}

bool isBlank(char c) {
    return c == ' ' || c == '\t';
}

// ---------------------------------------------------------------------------------------------
// Strict JSON reader for {"matrix": [[numbers...], ...]}

class JsonReader {
public:
    explicit JsonReader(std::string_view text) : s_(text) {}

    Expected<Rows> document() {
        skipSpace();
        if (atEnd()) {
            return fail("empty input; expected {\"matrix\": [[...], ...]}");
        }
        if (!consume('{')) {
            return fail("expected '{' (the document must be {\"matrix\": [[...], ...]})");
        }
        skipSpace();
        if (peek() != '"') {
            return fail("expected the key \"matrix\"");
        }
        const std::size_t keyPos = pos_;
        auto key = string();
        if (!key) {
            return key.error();
        }
        if (*key != "matrix") {
            pos_ = keyPos;
            return fail("unexpected key \"" + *key + "\"; the only key allowed is \"matrix\"");
        }
        skipSpace();
        if (!consume(':')) {
            return fail("expected ':' after \"matrix\"");
        }
        skipSpace();
        auto rows = matrix();
        if (!rows) {
            return rows.error();
        }
        skipSpace();
        if (peek() == ',') {
            return fail("unexpected ','; the only key allowed is \"matrix\"");
        }
        if (!consume('}')) {
            return fail("expected '}' after the matrix");
        }
        skipSpace();
        if (!atEnd()) {
            return fail("unexpected text after the closing '}'");
        }
        return rows;
    }

private:
    Expected<Rows> matrix() {
        if (!consume('[')) {
            return fail("\"matrix\" must be an array of rows, each an array of numbers");
        }
        Rows rows;
        skipSpace();
        if (consume(']')) {
            return fail("the matrix is empty");
        }
        while (true) {
            skipSpace();
            const std::size_t rowPos = pos_;
            auto row = numberArray(rows.size());
            if (!row) {
                return row.error();
            }
            if (!rows.empty() && row->size() != rows[0].size()) {
                pos_ = rowPos;
                return fail("ragged matrix: row " + std::to_string(rows.size()) + " has " +
                            std::to_string(row->size()) + " values, row 0 has " +
                            std::to_string(rows[0].size()));
            }
            rows.push_back(std::move(*row));
            skipSpace();
            if (consume(']')) {
                return rows;
            }
            if (!consume(',')) {
                return fail("expected ',' or ']' after row " + std::to_string(rows.size() - 1));
            }
        }
    }

    Expected<std::vector<double>> numberArray(std::size_t rowIndex) {
        if (!consume('[')) {
            return fail("row " + std::to_string(rowIndex) + " must be an array of numbers");
        }
        std::vector<double> row;
        skipSpace();
        if (consume(']')) {
            return fail("row " + std::to_string(rowIndex) + " is empty");
        }
        while (true) {
            skipSpace();
            const std::size_t numPos = pos_;
            auto v = number();
            if (!v) {
                return v.error();
            }
            if (auto s = checkValue(*v, position(numPos)); !s) {
                return s.error();
            }
            row.push_back(*v);
            skipSpace();
            if (consume(']')) {
                return row;
            }
            if (!consume(',')) {
                return fail("expected ',' or ']' in row " + std::to_string(rowIndex));
            }
        }
    }

    // JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    Expected<double> number() {
        const std::size_t start = pos_;
        std::size_t p = pos_;
        auto digit = [&](std::size_t k) { return k < s_.size() && s_[k] >= '0' && s_[k] <= '9'; };
        if (p < s_.size() && s_[p] == '-') {
            ++p;
        }
        bool ok = digit(p);
        if (ok) {
            if (s_[p] == '0') {
                ++p;
            } else {
                while (digit(p)) {
                    ++p;
                }
            }
            if (p < s_.size() && s_[p] == '.') {
                ++p;
                ok = digit(p);
                while (digit(p)) {
                    ++p;
                }
            }
            if (ok && p < s_.size() && (s_[p] == 'e' || s_[p] == 'E')) {
                ++p;
                if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) {
                    ++p;
                }
                ok = digit(p);
                while (digit(p)) {
                    ++p;
                }
            }
        }
        // A number must end at a delimiter: "1x", "01" or "1.5.2" are not numbers.
        if (ok && p < s_.size() && !isDelimiter(s_[p])) {
            ok = false;
        }
        if (!ok) {
            std::size_t e = start;
            while (e < s_.size() && !isDelimiter(s_[e]) && e - start < 40) {
                ++e;
            }
            const std::string tok(s_.substr(start, e - start));
            return fail(tok.empty() ? std::string("expected a number")
                                    : "'" + tok + "' is not a JSON number");
        }
        double v = 0;
        const auto r = std::from_chars(s_.data() + start, s_.data() + p, v);
        if (r.ec == std::errc::result_out_of_range) {
            return fail("'" + std::string(s_.substr(start, p - start)) +
                        "' is out of the range of double precision");
        }
        pos_ = p;
        return v;
    }

    // A JSON string without escapes (enough for the one key).
    Expected<std::string> string() {
        ++pos_;  // opening quote
        std::string out;
        while (pos_ < s_.size() && s_[pos_] != '"') {
            if (s_[pos_] == '\\' || static_cast<unsigned char>(s_[pos_]) < 0x20) {
                return fail("unexpected character in the key; the only key allowed is \"matrix\"");
            }
            out += s_[pos_++];
        }
        if (pos_ >= s_.size()) {
            return fail("unterminated string");
        }
        ++pos_;
        return out;
    }

    static bool isDelimiter(char c) {
        return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }
    bool atEnd() const { return pos_ >= s_.size(); }
    char peek() const { return atEnd() ? '\0' : s_[pos_]; }
    bool consume(char c) {
        if (peek() == c && !atEnd()) {
            ++pos_;
            return true;
        }
        return false;
    }
    void skipSpace() {
        while (!atEnd() &&
               (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
            ++pos_;
        }
    }
    std::string position(std::size_t at) const {
        std::size_t line = 1;
        std::size_t lineStart = 0;
        for (std::size_t k = 0; k < at && k < s_.size(); ++k) {
            if (s_[k] == '\n') {
                ++line;
                lineStart = k + 1;
            }
        }
        return where(line, at - lineStart + 1);
    }
    Error fail(const std::string& what) const {
        if (atEnd()) {
            return Error{"JSON, end of input: " + what};
        }
        return Error{"JSON, " + position(pos_) + ": " + what};
    }

    std::string_view s_;
    std::size_t pos_ = 0;
};

}  // namespace

std::string toCsv(const CountMechanism& m) {
    std::string out;
    out.reserve(m.size() * m.size() * 25);
    for (std::size_t i = 0; i < m.size(); ++i) {
        for (std::size_t j = 0; j < m.size(); ++j) {
            if (j > 0) {
                out += ',';
            }
            appendNumber(out, m.at(i, j));
        }
        out += '\n';
    }
    return out;
}

Expected<std::vector<std::vector<double>>> readNumberGridCsv(std::string_view text) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        return Error{"CSV: the input is empty"};
    }
    const char sep = text.find(';') != std::string_view::npos ? ';' : ',';
    Rows rows;
    std::size_t lineNo = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        const bool last = end == std::string_view::npos;
        if (last) {
            end = text.size();
        }
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (line.find_first_not_of(" \t") == std::string_view::npos) {
            return Error{"CSV, line " + std::to_string(lineNo) +
                         ": blank line (every line must be one row of the matrix)"};
        }
        std::vector<double> row;
        std::size_t fs = 0;
        std::size_t column = 0;
        while (true) {
            std::size_t fe = line.find(sep, fs);
            const bool lastField = fe == std::string_view::npos;
            if (lastField) {
                fe = line.size();
            }
            std::string_view field = line.substr(fs, fe - fs);
            ++column;
            while (!field.empty() && isBlank(field.front())) {
                field.remove_prefix(1);
            }
            while (!field.empty() && isBlank(field.back())) {
                field.remove_suffix(1);
            }
            const std::string at = "CSV, " + where(lineNo, column);
            auto v = parseField(field, at);
            if (!v) {
                return v.error();
            }
            if (auto s = checkValue(*v, at); !s) {
                return s.error();
            }
            row.push_back(*v);
            if (lastField) {
                break;
            }
            fs = fe + 1;
        }
        if (!rows.empty() && row.size() != rows[0].size()) {
            return Error{"CSV, line " + std::to_string(lineNo) + ": ragged rows: this line has " +
                         std::to_string(row.size()) + " values, line 1 has " +
                         std::to_string(rows[0].size())};
        }
        rows.push_back(std::move(row));
        if (rows.size() > static_cast<std::size_t>(kMaxCountPeople) + 1) {
            break;  // the caller reports the size
        }
    }
    return rows;
}

Expected<CountMechanism> fromCsv(std::string_view text, std::string name) {
    auto rows = readNumberGridCsv(text);
    if (!rows) {
        return rows.error();
    }
    auto m = build(*rows, std::move(name), "line",
                   "row i is line i+1, column j is field j+1 of every line");
    if (!m) {
        return Error{m.error().message.rfind("CSV", 0) == 0 ? m.error().message
                                                            : "CSV: " + m.error().message};
    }
    return m;
}

std::string toJson(const CountMechanism& m) {
    std::string out = "{\"matrix\": [\n";
    for (std::size_t i = 0; i < m.size(); ++i) {
        out += "  [";
        for (std::size_t j = 0; j < m.size(); ++j) {
            if (j > 0) {
                out += ", ";
            }
            appendNumber(out, m.at(i, j));
        }
        out += i + 1 < m.size() ? "],\n" : "]\n";
    }
    out += "]}\n";
    return out;
}

Expected<CountMechanism> fromJson(std::string_view text, std::string name) {
    auto rows = JsonReader(text).document();
    if (!rows) {
        return rows.error();
    }
    auto m = build(*rows, std::move(name), "row",
                   "row i is matrix[i], column j is element j of every row");
    if (!m) {
        return Error{"JSON: " + m.error().message};
    }
    return m;
}

}  // namespace dpx
