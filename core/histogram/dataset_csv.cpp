// Simple CSV loader of dataset.h: two passes over the text (the first checks the structure and
// decides which columns are numeric, the second fills typed columns), so memory holds the text
// and the table, never a table of strings for numeric columns.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <memory>
#include <system_error>
#include <unordered_map>

#include "core/base/validation.h"
#include "core/histogram/dataset.h"

namespace dpx {

namespace {

std::string charName(char c) {
    switch (c) {
        case '\t':
            return "tab";
        case ',':
            return "comma ','";
        case ';':
            return "semicolon ';'";
        case ' ':
            return "space";
        default:
            break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
        return buf;
    }
    return std::string("'") + c + "'";
}

std::string quotedName(std::string_view s) {
    constexpr std::size_t kMax = 60;
    return "'" + std::string(s.substr(0, kMax)) + (s.size() > kMax ? "…'" : "'");
}

class CsvReader {
public:
    enum class Result { Record, End, Failed };

    CsvReader(std::string_view text, char sep) : text_(text), sep_(sep) {}

    // Reads the next record, skipping blank lines (a single empty unquoted field).
    Result next() {
        while (pos_ < text_.size()) {
            const Result r = readRecord();
            if (r != Result::Record) {
                return r;
            }
            const bool blank = count_ == 1 && !quoted_[0] && views_[0].empty();
            if (!blank) {
                return r;
            }
        }
        return Result::End;
    }

    std::size_t fieldCount() const { return count_; }
    std::string_view field(std::size_t i) const { return views_[i]; }
    std::size_t recordLine() const { return recordLine_; }
    const Error& error() const { return error_; }
    // Names of the header's columns, for messages (may be empty while reading the header).
    void setColumnNames(const std::vector<std::string>* names) { names_ = names; }

private:
    bool isBlank(char c) const { return (c == ' ' || c == '\t') && c != sep_; }

    std::string columnText(std::size_t index) const {
        std::string s = "column " + std::to_string(index + 1);
        if (names_ && index < names_->size()) {
            s += " (" + quotedName((*names_)[index]) + ")";
        }
        return s;
    }

    Result fail(std::string message) {
        error_ = Error{std::move(message)};
        return Result::Failed;
    }

    void newline() {
        if (text_[pos_] == '\r') {
            ++pos_;
            if (pos_ < text_.size() && text_[pos_] == '\n') {
                ++pos_;
            }
        } else {
            ++pos_;
        }
        ++line_;
    }

    void countLines(std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) {
            if (text_[i] == '\n' || (text_[i] == '\r' && text_[i + 1] != '\n')) {
                ++line_;
            }
        }
    }

    void addField(std::string_view v, bool quoted) {
        if (views_.size() <= count_) {
            views_.resize(count_ + 1);
            quoted_.resize(count_ + 1);
        }
        views_[count_] = v;
        quoted_[count_] = quoted;
        ++count_;
    }

    Result readRecord() {
        const std::size_t n = text_.size();
        recordLine_ = line_;
        count_ = 0;
        while (true) {
            if (count_ >= kCsvMaxColumns) {
                return fail("line " + std::to_string(recordLine_) + " has more than " +
                            groupThousands(kCsvMaxColumns) + " fields; the loader reads at most " +
                            groupThousands(kCsvMaxColumns) + " columns");
            }
            if (pos_ >= n) {  // the text ends right after a separator: one more empty field
                addField({}, false);
                return Result::Record;
            }
            if (text_[pos_] == '"') {
                const std::size_t startLine = line_;
                ++pos_;
                const std::size_t start = pos_;
                std::string* buf = nullptr;
                std::string_view value;
                while (true) {
                    const std::size_t q = text_.find('"', pos_);
                    if (q == std::string_view::npos) {
                        return fail("line " + std::to_string(startLine) + ", " +
                                    columnText(count_) +
                                    ": a quoted field starts here but its closing quote is "
                                    "missing");
                    }
                    countLines(pos_, q);
                    if (q + 1 < n && text_[q + 1] == '"') {  // "" stands for one quote
                        if (buffers_.size() <= count_) {
                            buffers_.resize(count_ + 1);
                        }
                        if (!buf) {
                            buf = &buffers_[count_];
                            buf->assign(text_.substr(start, q + 1 - start));
                        } else {
                            buf->append(text_.substr(pos_, q + 1 - pos_));
                        }
                        pos_ = q + 2;
                        continue;
                    }
                    if (buf) {
                        buf->append(text_.substr(pos_, q - pos_));
                        value = *buf;
                    } else {
                        value = text_.substr(start, q - start);
                    }
                    pos_ = q + 1;
                    break;
                }
                while (pos_ < n && isBlank(text_[pos_])) {
                    ++pos_;
                }
                const std::size_t column = count_;
                addField(value, true);
                if (pos_ >= n) {
                    return Result::Record;
                }
                const char c = text_[pos_];
                if (c == sep_) {
                    ++pos_;
                    continue;
                }
                if (c == '\n' || c == '\r') {
                    newline();
                    return Result::Record;
                }
                return fail("line " + std::to_string(line_) + ", " + columnText(column) +
                            ": unexpected " + charName(c) +
                            " after the closing quote of a quoted field (a quote inside a quoted "
                            "field must be doubled: \"\")");
            }
            const std::size_t start = pos_;
            while (pos_ < n) {
                const char c = text_[pos_];
                if (c == sep_ || c == '\n' || c == '\r') {
                    break;
                }
                ++pos_;
            }
            std::string_view v = text_.substr(start, pos_ - start);
            while (!v.empty() && isBlank(v.front())) {
                v.remove_prefix(1);
            }
            while (!v.empty() && isBlank(v.back())) {
                v.remove_suffix(1);
            }
            addField(v, false);
            if (pos_ >= n) {
                return Result::Record;
            }
            if (text_[pos_] == sep_) {
                ++pos_;
                continue;
            }
            newline();
            return Result::Record;
        }
    }

    std::string_view text_;
    char sep_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t recordLine_ = 1;
    std::size_t count_ = 0;
    std::vector<std::string_view> views_;
    std::vector<char> quoted_;
    // One buffer per field index for quoted fields with doubled quotes (their views point into
    // it). A deque: growing it at the end never moves the strings already there.
    std::deque<std::string> buffers_;
    Error error_;
    const std::vector<std::string>* names_ = nullptr;
};

// The separator of the header line: the most frequent of ',', ';' and tab outside quotes (ties in
// that order), ',' if none occurs.
char detectSeparator(std::string_view text) {
    std::size_t comma = 0, semicolon = 0, tab = 0;
    bool inQuotes = false;
    for (char c : text) {
        if (c == '"') {
            inQuotes = !inQuotes;
        } else if (!inQuotes) {
            if (c == '\n' || c == '\r') {
                break;
            }
            comma += c == ',';
            semicolon += c == ';';
            tab += c == '\t';
        }
    }
    if (semicolon > comma && semicolon >= tab) {
        return ';';
    }
    if (tab > comma && tab > semicolon) {
        return '\t';
    }
    return ',';
}

}  // namespace

Expected<DataTable> readCsvTable(std::string_view text, char separator) {
    if (text.size() > kCsvMaxBytes) {
        return Error{"the text is " + groupThousands(text.size() >> 20) +
                     " MB; the simple CSV loader reads at most 2 GB"};
    }
    if (separator == '"' || separator == '\n' || separator == '\r') {
        return Error{"the separator cannot be a quote or a line break"};
    }
    if (text.size() >= 2 &&
        ((text[0] == '\xFF' && text[1] == '\xFE') || (text[0] == '\xFE' && text[1] == '\xFF'))) {
        return Error{"the text is in UTF-16; save it as UTF-8 (or plain ASCII) and load it again"};
    }
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
        text.remove_prefix(3);  // UTF-8 byte-order mark
    }
    if (const void* nul = std::memchr(text.data(), 0, text.size())) {
        const auto at = static_cast<std::size_t>(static_cast<const char*>(nul) - text.data());
        std::size_t line = 1;
        for (std::size_t i = 0; i < at; ++i) {
            line += text[i] == '\n';
        }
        return Error{"line " + std::to_string(line) +
                     " contains a NUL byte: this is not a text file (binary data, or text in "
                     "UTF-16; save it as UTF-8)"};
    }
    const char sep = separator != 0 ? separator : detectSeparator(text);

    // Pass 1: header, structure, column kinds, row count.
    CsvReader reader(text, sep);
    auto r = reader.next();
    if (r == CsvReader::Result::Failed) {
        return reader.error();
    }
    if (r == CsvReader::Result::End) {
        return Error{
            "the file is empty: it needs a header line with the column names and at "
            "least one data row"};
    }
    const std::size_t headerLine = reader.recordLine();
    const std::size_t ncol = reader.fieldCount();
    std::vector<std::string> names(ncol);
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t j = 0; j < ncol; ++j) {
        names[j] = reader.field(j).empty() ? "column " + std::to_string(j + 1)
                                           : std::string(reader.field(j));
        const auto [it, fresh] = seen.emplace(names[j], j);
        if (!fresh) {
            return Error{"line " + std::to_string(headerLine) + ", column " +
                         std::to_string(j + 1) + ": the column name " + quotedName(names[j]) +
                         " is used twice (also column " + std::to_string(it->second + 1) +
                         "); column names must be unique"};
        }
    }
    reader.setColumnNames(&names);
    std::vector<char> numeric(ncol, 1);
    std::size_t rows = 0;
    while (true) {
        r = reader.next();
        if (r == CsvReader::Result::Failed) {
            return reader.error();
        }
        if (r == CsvReader::Result::End) {
            break;
        }
        if (reader.fieldCount() != ncol) {
            std::string msg = "line " + std::to_string(reader.recordLine()) + " has " +
                              std::to_string(reader.fieldCount()) +
                              (reader.fieldCount() == 1 ? " field" : " fields") +
                              ", the header has " + std::to_string(ncol);
            msg += " (separator: " + charName(sep) +
                   "; a field with the separator or a line break must be in quotes)";
            return Error{msg};
        }
        ++rows;
        if (rows > kCsvMaxRows) {
            return Error{"line " + std::to_string(reader.recordLine()) +
                         ": the file has more than " + groupThousands(kCsvMaxRows) +
                         " data rows, the most the simple CSV loader reads"};
        }
        if (rows * ncol > kCsvMaxCells) {
            return Error{"line " + std::to_string(reader.recordLine()) +
                         ": the table has more than " + groupThousands(kCsvMaxCells) +
                         " cells (rows × columns), the most the simple CSV loader reads"};
        }
        for (std::size_t j = 0; j < ncol; ++j) {
            double v = 0;
            if (numeric[j] && !reader.field(j).empty() && !parseNumber(reader.field(j), v)) {
                numeric[j] = 0;
            }
        }
    }
    if (rows == 0) {
        return Error{"the file has a header line but no data rows"};
    }

    // Pass 2: fill the typed columns.
    std::vector<std::vector<double>> nums(ncol);
    std::vector<std::vector<std::string>> texts(ncol);
    for (std::size_t j = 0; j < ncol; ++j) {
        if (numeric[j]) {
            nums[j].reserve(rows);
        } else {
            texts[j].reserve(rows);
        }
    }
    CsvReader second(text, sep);
    (void)second.next();  // the header, read above
    while (second.next() == CsvReader::Result::Record) {
        for (std::size_t j = 0; j < ncol; ++j) {
            const std::string_view f = second.field(j);
            if (numeric[j]) {
                double v = std::numeric_limits<double>::quiet_NaN();
                if (!f.empty()) {
                    (void)parseNumber(f, v);
                }
                nums[j].push_back(v);
            } else {
                texts[j].emplace_back(f);
            }
        }
    }
    std::vector<DataColumn> columns;
    columns.reserve(ncol);
    for (std::size_t j = 0; j < ncol; ++j) {
        columns.push_back(numeric[j] ? DataColumn::numeric(names[j], std::move(nums[j]))
                                     : DataColumn::text(names[j], std::move(texts[j])));
    }
    return DataTable::create(std::move(columns));
}

Expected<DataTable> readCsvFile(const std::string& path, char separator) {
    namespace fs = std::filesystem;
    if (path.empty()) {
        return Error{"no file name given"};
    }
    const std::string name = "'" + path + "'";
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        return Error{"cannot open " + name + ": there is no such file"};
    }
    if (fs::is_directory(st)) {
        return Error{"cannot open " + name + ": it is a folder, not a file"};
    }
    if (fs::is_regular_file(st)) {
        const auto size = fs::file_size(path, ec);
        if (!ec && size > kCsvMaxBytes) {
            return Error{"cannot load " + name + ": it is " + groupThousands(size >> 20) +
                         " MB; the simple CSV loader reads at most 2 GB"};
        }
    }
    errno = 0;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) {
        const int err = errno;
        return Error{"cannot open " + name + ": " +
                     (err ? std::generic_category().message(err) : std::string("unknown error"))};
    }
    std::string content;
    char buf[1 << 16];
    while (true) {
        const std::size_t got = std::fread(buf, 1, sizeof buf, f.get());
        if (got > 0) {
            if (content.size() + got > kCsvMaxBytes) {
                return Error{"cannot load " + name +
                             ": it is larger than 2 GB, the most the simple CSV loader reads"};
            }
            content.append(buf, got);
        }
        if (got < sizeof buf) {
            if (std::ferror(f.get())) {
                const int err = errno;
                return Error{
                    "cannot read " + name + ": " +
                    (err ? std::generic_category().message(err) : std::string("read error"))};
            }
            break;
        }
    }
    auto table = readCsvTable(content, separator);
    if (!table) {
        return Error{fs::path(path).filename().string() + ": " + table.error().message};
    }
    return table;
}

}  // namespace dpx
