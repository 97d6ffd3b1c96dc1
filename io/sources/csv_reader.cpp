#include "io/sources/csv_reader.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "core/base/validation.h"

namespace dpx::data {

namespace {

std::string quotedName(std::string_view s) {
    constexpr std::size_t kMax = 60;
    if (s.size() > kMax) {
        return "'" + std::string(s.substr(0, kMax)) + "…'";
    }
    return "'" + std::string(s) + "'";
}

std::string at(std::int64_t line, std::int64_t column) {
    // Plain digits: editors and scripts look these numbers up.
    std::string s = "line " + std::to_string(line);
    if (column > 0) {
        s += ", column " + std::to_string(column);
    }
    return s + ": ";
}

// Offset of the first byte that breaks UTF-8 (overlong forms, surrogates and code points above
// U+10FFFF included, RFC 3629 §4), or n if the text is valid.
std::size_t invalidUtf8(const unsigned char* s, std::size_t n) {
    std::size_t i = 0;
    while (i < n) {
        const unsigned c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return i;
        }
        if (i + len > n) {
            return i;
        }
        if (s[i + 1] < lo || s[i + 1] > hi) {
            return i;
        }
        for (std::size_t k = 2; k < len; ++k) {
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) {
                return i;
            }
        }
        i += len;
    }
    return n;
}

// Byte classes of the scanner.
enum : std::uint8_t { kPlain = 0, kDelim, kLf, kCr, kQuote, kNul, kHigh };

struct Field {
    std::size_t begin = 0, end = 0;  // buffer offsets of the raw field (quotes included)
    bool quoted = false;
    bool escapes = false;  // holds doubled quotes
};

struct Fatal {
    std::int64_t line = 0, column = 0;
    std::string message;
};

// Reads records from a byte range of a file. A record belongs to the range when it starts in
// [begin, end); the last one may run past `end`.
class Scanner {
public:
    enum class Step { Record, Done, Fatal };

    Scanner(const std::string& path, std::uint64_t fileBytes, char delimiter,
            const CsvLimits& limits, std::size_t blockBytes)
        : fileBytes_(fileBytes), limits_(limits), block_(blockBytes), delim_(delimiter) {
        in_.open(path, std::ios::binary);
        cls_.fill(kPlain);
        for (int c = 0x80; c < 0x100; ++c) {
            cls_[static_cast<std::size_t>(c)] = kHigh;
        }
        cls_[static_cast<unsigned char>(delimiter)] = kDelim;
        cls_['\n'] = kLf;
        cls_['\r'] = kCr;
        cls_['"'] = kQuote;
        cls_[0] = kNul;
    }

    bool open() const { return in_.is_open() && in_.good(); }
    // Starts at a record start `begin` (on line `line`); records starting at or after `end` are
    // left to the next range.
    void start(std::uint64_t begin, std::uint64_t end, std::int64_t line) {
        bufOffset_ = begin;
        pos_ = len_ = 0;
        end_ = end;
        line_ = line;
        eof_ = begin >= fileBytes_;
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(begin));
    }

    Step next();

    // The current record (after next() returned Record).
    std::uint64_t recordOffset() const { return recordOffset_; }
    std::int64_t recordLine() const { return recordLine_; }
    std::size_t fieldCount() const { return fields_.size(); }
    // The value of field j: quotes removed and doubled quotes undone, unquoted fields trimmed.
    [[gnu::always_inline]] inline std::string_view value(std::size_t j);
    // Problems of the record as a bad row: reason and message, empty if none.
    bool checkRow(std::string& reason, std::string& message);
    // The next record start (after Done: the first record start at or after `end`).
    std::uint64_t position() const { return bufOffset_ + pos_; }
    std::int64_t line() const { return line_; }
    const Fatal& fatal() const { return fatal_; }
    std::uint64_t bytesRead() const { return bytesRead_; }

private:
    enum class Scan { Complete, NeedMore, Fatal };
    Scan scanRecord();
    Scan recordTooLong(std::size_t current);
    // Advances p over plain bytes (not the delimiter, a line break, a quote, NUL or a byte
    // ≥ 0x80), eight at a time: a byte-wise zero test of the word XOR each special byte (the
    // lowest flagged byte of (x − 0x01…01) & ~x & 0x80…80 is exactly the first zero byte, see
    // "Bit Twiddling Hacks", S. E. Anderson, "Determine if a word has a zero byte").
    void skipPlain(const char* b, std::size_t& p) const {
        if constexpr (std::endian::native == std::endian::little) {
            constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
            constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
            auto zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHighs; };
            const std::uint64_t d = kOnes * static_cast<unsigned char>(delim_);
            while (p + 8 <= len_) {
                std::uint64_t w = 0;
                std::memcpy(&w, b + p, 8);
                const std::uint64_t m = (w & kHighs) | zero(w) | zero(w ^ d) |
                                        zero(w ^ (kOnes * '\n')) | zero(w ^ (kOnes * '\r')) |
                                        zero(w ^ (kOnes * '"'));
                if (m != 0) {
                    p += static_cast<std::size_t>(std::countr_zero(m)) / 8;
                    return;
                }
                p += 8;
            }
        }
        while (p < len_ && cls_[static_cast<unsigned char>(b[p])] == kPlain) {
            ++p;
        }
    }
    bool refill();
    std::int64_t columnAt(std::size_t offset) const;

    std::ifstream in_;
    std::uint64_t fileBytes_;
    CsvLimits limits_;
    std::size_t block_;
    char delim_;
    std::array<std::uint8_t, 256> cls_{};

    std::vector<char> buf_;
    std::uint64_t bufOffset_ = 0;  // file offset of buf_[0]
    std::size_t pos_ = 0, len_ = 0;
    std::uint64_t end_ = 0;
    bool eof_ = false;
    std::int64_t line_ = 1;
    std::uint64_t bytesRead_ = 0;

    std::vector<Field> fields_;
    std::uint64_t recordOffset_ = 0;
    std::int64_t recordLine_ = 0;
    std::size_t recordBegin_ = 0, recordEnd_ = 0;  // buffer offsets (end before the line break)
    bool high_ = false, nul_ = false;
    std::size_t afterQuote_ = SIZE_MAX;  // field with text after its closing quote
    Fatal fatal_;
};

bool Scanner::refill() {
    if (eof_) {
        return false;
    }
    // Keep the incomplete record, drop what was consumed.
    if (pos_ > 0) {
        std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
        bufOffset_ += pos_;
        len_ -= pos_;
        pos_ = 0;
    }
    if (buf_.size() < len_ + block_) {
        buf_.resize(len_ + block_);
    }
    in_.read(buf_.data() + len_, static_cast<std::streamsize>(block_));
    const auto got = static_cast<std::size_t>(in_.gcount());
    len_ += got;
    bytesRead_ += got;
    if (got < block_ || bufOffset_ + len_ >= fileBytes_) {
        eof_ = true;
    }
    return got > 0;
}

std::int64_t Scanner::columnAt(std::size_t offset) const {
    std::size_t j = 0;
    while (j + 1 < fields_.size() && fields_[j + 1].begin <= offset) {
        ++j;
    }
    return static_cast<std::int64_t>(j) + 1;
}

Scanner::Scan Scanner::scanRecord() {
    fields_.clear();
    high_ = nul_ = false;
    afterQuote_ = SIZE_MAX;
    const char* b = buf_.data();
    const std::uint8_t* cls = cls_.data();
    std::size_t p = pos_;
    std::int64_t breaks = 0;  // line breaks inside quoted fields
    // Over the length limit once the bytes scanned from the record start exceed it. It is checked
    // where the scan stops for more data, at each field end and at the end of the file, so the
    // first limit a record breaks (length, field count, or a quote left open at the end of the
    // file) and its message do not depend on where the blocks end.
    auto tooLong = [&](std::size_t q) { return q - pos_ > limits_.maxRecordBytes; };
    while (true) {
        Field f;
        f.begin = p;
        const std::int64_t breaksBefore = breaks;
        if (p < len_ && b[p] == '"') {
            f.quoted = true;
            ++p;
            while (true) {
                if (p >= len_) {
                    if (tooLong(p)) {
                        return recordTooLong(f.begin);
                    }
                    if (!eof_) {
                        return Scan::NeedMore;
                    }
                    fatal_ = {line_ + breaksBefore, static_cast<std::int64_t>(fields_.size()) + 1,
                              "unterminated quote: the quoted field that starts here runs to the "
                              "end of the file"};
                    return Scan::Fatal;
                }
                const std::uint8_t k = cls[static_cast<unsigned char>(b[p])];
                if (k == kQuote) {
                    if (p + 1 >= len_ && !eof_) {
                        return tooLong(p) ? recordTooLong(f.begin) : Scan::NeedMore;
                    }
                    if (p + 1 < len_ && b[p + 1] == '"') {
                        f.escapes = true;
                        p += 2;
                        continue;
                    }
                    ++p;
                    break;
                }
                if (k == kLf) {
                    ++breaks;
                } else if (k == kCr) {
                    if (p + 1 >= len_ && !eof_) {
                        return tooLong(p) ? recordTooLong(f.begin) : Scan::NeedMore;
                    }
                    if (p + 1 >= len_ || b[p + 1] != '\n') {
                        ++breaks;
                    }
                } else if (k == kHigh) {
                    high_ = true;
                } else if (k == kNul) {
                    nul_ = true;
                }
                ++p;
            }
        }
        if (f.quoted && p < len_ && afterQuote_ == SIZE_MAX) {
            const std::uint8_t k = cls[static_cast<unsigned char>(b[p])];
            if (k != kDelim && k != kLf && k != kCr) {
                afterQuote_ = fields_.size();  // text after the closing quote: a bad row
            }
        }
        // Unquoted text (or text after a closing quote).
        while (true) {
            skipPlain(b, p);
            if (p >= len_) {
                break;
            }
            const std::uint8_t k = cls[static_cast<unsigned char>(b[p])];
            if (k == kPlain || k == kQuote) {
                // a quote inside an unquoted field is an ordinary character
            } else if (k == kHigh) {
                high_ = true;
            } else if (k == kNul) {
                nul_ = true;
            } else {
                break;  // delimiter or line break
            }
            ++p;
        }
        if (p >= len_ && !eof_) {
            return tooLong(p) ? recordTooLong(f.begin) : Scan::NeedMore;
        }
        f.end = p;
        fields_.push_back(f);
        if (tooLong(p)) {
            return recordTooLong(SIZE_MAX);
        }
        if (fields_.size() > limits_.maxFields) {
            fatal_ = {line_, static_cast<std::int64_t>(fields_.size()),
                      "the record has more than " + groupThousands(limits_.maxFields) +
                          (limits_.maxFields == 1 ? " field" : " fields") + ", the limit"};
            return Scan::Fatal;
        }
        if (p < len_ && cls[static_cast<unsigned char>(b[p])] == kDelim) {
            ++p;
            continue;
        }
        // End of record: a line break or the end of the file.
        recordBegin_ = pos_;
        recordEnd_ = p;
        if (p < len_) {
            if (b[p] == '\r') {
                if (p + 1 >= len_ && !eof_) {
                    return Scan::NeedMore;
                }
                if (p + 1 < len_ && b[p + 1] == '\n') {
                    ++p;
                }
            }
            ++p;
        }
        recordOffset_ = bufOffset_ + pos_;
        recordLine_ = line_;
        line_ += breaks + 1;
        pos_ = p;
        return Scan::Complete;
    }
}

// The record from pos_ is over maxRecordBytes. The message names the field that holds the first
// byte over the limit: one of fields_, or the field being scanned that starts at `current`
// (SIZE_MAX: none).
Scanner::Scan Scanner::recordTooLong(std::size_t current) {
    const std::size_t over = pos_ + limits_.maxRecordBytes;
    std::size_t column = 0;
    for (const Field& f : fields_) {
        column += f.begin <= over ? 1 : 0;
    }
    column += current != SIZE_MAX && current <= over ? 1 : 0;
    fatal_ = {line_, static_cast<std::int64_t>(std::max<std::size_t>(column, 1)),
              "the record is longer than the limit of " + groupThousands(limits_.maxRecordBytes) +
                  " bytes (an unterminated quote, or not a CSV file?)"};
    return Scan::Fatal;
}

Scanner::Step Scanner::next() {
    while (true) {
        if (bufOffset_ + pos_ >= end_) {
            return Step::Done;
        }
        if (pos_ >= len_) {
            if (eof_) {
                return Step::Done;
            }
            refill();
            continue;
        }
        const Scan s = scanRecord();
        if (s == Scan::NeedMore) {
            refill();  // at the end of the file, eof_ is set and the record completes
            continue;
        }
        if (s == Scan::Fatal) {
            if (fatal_.message.empty()) {
                fatal_ = {line_,
                          static_cast<std::int64_t>(std::max<std::size_t>(fields_.size(), 1)),
                          "the record is longer than the limit of " +
                              groupThousands(limits_.maxRecordBytes) +
                              " bytes (an unterminated quote, or not a CSV file?)"};
            }
            return Step::Fatal;
        }
        // A blank line is not a record.
        if (fields_.size() == 1 && !fields_[0].quoted && recordEnd_ == recordBegin_) {
            continue;
        }
        return Step::Record;
    }
}

std::string_view Scanner::value(std::size_t j) {
    Field& f = fields_[j];
    char* b = buf_.data();
    if (f.quoted) {
        std::size_t close = f.end;
        // The closing quote: the last quote of the field (text after it makes the row bad, so
        // its value is never used).
        while (close > f.begin + 1 && b[close - 1] != '"') {
            --close;
        }
        std::size_t first = f.begin + 1;
        std::size_t last = close > first ? close - 1 : first;
        if (f.escapes) {
            // Undo doubled quotes in place; the text only shrinks, and the record is complete.
            std::size_t w = first;
            for (std::size_t r = first; r < last; ++r) {
                b[w++] = b[r];
                if (b[r] == '"') {
                    ++r;
                }
            }
            last = w;
            f.escapes = false;
            f.end = last + 1;
            b[last] = '"';
        }
        return {b + first, last - first};
    }
    std::size_t s = f.begin, e = f.end;
    // Nothing to trim (the usual case): both ends are bytes above ' ' (spaces and tabs are not).
    const auto above = [&](std::size_t at) { return static_cast<unsigned char>(b[at]) > ' '; };
    if (e > s && above(s) && above(e - 1)) {
        return {b + s, e - s};
    }
    const bool trimTabs = delim_ != '\t';
    while (s < e && (b[s] == ' ' || (trimTabs && b[s] == '\t'))) {
        ++s;
    }
    while (e > s && (b[e - 1] == ' ' || (trimTabs && b[e - 1] == '\t'))) {
        --e;
    }
    return {b + s, e - s};
}

bool Scanner::checkRow(std::string& reason, std::string& message) {
    if (nul_) {
        const char* b = buf_.data();
        const auto* z =
            static_cast<const char*>(std::memchr(b + recordBegin_, 0, recordEnd_ - recordBegin_));
        const std::size_t off = z ? static_cast<std::size_t>(z - b) : recordBegin_;
        reason = "NUL byte";
        message = at(recordLine_, columnAt(off)) + "a NUL byte (binary data?) in the record";
        return false;
    }
    if (high_) {
        const auto* b = reinterpret_cast<const unsigned char*>(buf_.data());
        const std::size_t n = recordEnd_ - recordBegin_;
        const std::size_t bad = invalidUtf8(b + recordBegin_, n);
        if (bad < n) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", b[recordBegin_ + bad]);
            reason = "invalid UTF-8";
            message = at(recordLine_, columnAt(recordBegin_ + bad)) + "invalid UTF-8 (byte " + hex +
                      "); the file must be UTF-8 text (re-export it as UTF-8)";
            return false;
        }
    }
    if (afterQuote_ != SIZE_MAX) {
        reason = "text after closing quote";
        message = at(recordLine_, static_cast<std::int64_t>(afterQuote_) + 1) +
                  "text after the closing quote of a quoted field (a quote inside a quoted field "
                  "must be doubled: \"\")";
        return false;
    }
    return true;
}

// --- file-level checks and the schema ---------------------------------------------------------

Expected<std::uint64_t> fileSize(const std::string& path, const CsvLimits& limits) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        return Error{"cannot open " + quotedName(path) + ": no such file"};
    }
    if (fs::is_directory(st)) {
        return Error{"cannot read " + quotedName(path) + ": it is a directory, not a file"};
    }
    const auto size = fs::file_size(path, ec);
    if (ec) {
        return Error{"cannot read " + quotedName(path) + ": " + ec.message()};
    }
    std::ifstream probe(path, std::ios::binary);
    if (!probe) {
        return Error{"cannot open " + quotedName(path) + ": " + std::strerror(errno)};
    }
    if (size == 0) {
        return Error{"the file " + quotedName(path) + " is empty"};
    }
    if (size > limits.maxFileBytes) {
        return Error{"the file " + quotedName(path) + " has " + groupThousands(size) +
                     " bytes, more than the limit of " + groupThousands(limits.maxFileBytes)};
    }
    return static_cast<std::uint64_t>(size);
}

// The delimiter that occurs the same non-zero number of times outside quotes on each of the first
// lines (at most 20 records of the first 64 KiB); the most frequent such; else the most frequent
// overall; ',' if none occurs.
char detectDelimiter(std::string_view head) {
    constexpr std::array<char, 4> kCand = {',', ';', '\t', '|'};
    std::vector<std::array<std::size_t, 4>> perLine;
    std::array<std::size_t, 4> cur{};
    bool inQuotes = false;
    bool any = false;
    for (std::size_t i = 0; i < head.size() && perLine.size() < 20; ++i) {
        const char c = head[i];
        if (c == '"') {
            inQuotes = !inQuotes;
        } else if (!inQuotes && (c == '\n' || c == '\r')) {
            if (any) {
                perLine.push_back(cur);
            }
            cur = {};
            any = false;
        } else if (!inQuotes) {
            any = true;
            for (std::size_t k = 0; k < kCand.size(); ++k) {
                cur[k] += c == kCand[k] ? 1 : 0;
            }
        }
    }
    if (any && perLine.size() < 20) {
        perLine.push_back(cur);
    }
    std::optional<std::size_t> best;
    for (std::size_t k = 0; k < kCand.size(); ++k) {
        const std::size_t n = perLine.empty() ? 0 : perLine.front()[k];
        bool consistent = n > 0;
        for (const auto& l : perLine) {
            consistent = consistent && l[k] == n;
        }
        if (consistent && (!best || n > perLine.front()[*best])) {
            best = k;
        }
    }
    if (!best) {
        std::array<std::size_t, 4> total{};
        for (const auto& l : perLine) {
            for (std::size_t k = 0; k < kCand.size(); ++k) {
                total[k] += l[k];
            }
        }
        const auto it = std::max_element(total.begin(), total.end());
        if (*it > 0) {
            best = static_cast<std::size_t>(it - total.begin());
        }
    }
    return best ? kCand[*best] : ',';
}

// Text that reads as a number but not as a finite one: ±inf, ±infinity, nan (any case, as
// std::from_chars reads them) or a decimal beyond the double range (1e400; also one that
// underflows to 0, 1e-400), trimmed and with an optional '+' as parseNumber allows.
bool numberButNotFinite(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    if (!text.empty() && text.front() == '+') {
        text.remove_prefix(1);
    }
    if (text.empty() || text.front() == '+') {
        return false;
    }
    double v = 0;
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, v, std::chars_format::general);
    return r.ptr == end &&
           ((r.ec == std::errc() && !std::isfinite(v)) || r.ec == std::errc::result_out_of_range);
}

// parseNumber with a fast path for plain decimals ("-123", "4.56"): with at most 15 significant
// digits the digits are an exact double m and 10^f (f ≤ 15) is exact too, so m / 10^f is one
// correctly rounded division — the same double std::from_chars gives (Clinger's fast path,
// W. D. Clinger, "How to read floating point numbers accurately", PLDI 1990). Anything else
// (exponents, '+', spaces, more digits, "1.", ".5") goes to parseNumber.
[[gnu::always_inline]] inline bool readNumber(std::string_view s, double& v) {
    static constexpr std::array<double, 16> kPow10 = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char* p = s.data();
    const char* const e = p + s.size();
    const bool negative = p != e && *p == '-';
    p += negative ? 1 : 0;
    std::uint64_t m = 0;
    int digits = 0;
    const char* const start = p;
    while (p != e && static_cast<unsigned>(*p - '0') < 10) {
        m = m * 10 + static_cast<unsigned>(*p - '0');
        ++digits;
        ++p;
    }
    std::size_t fraction = 0;
    if (p != e && *p == '.' && p != start) {
        const char* const f = ++p;
        while (p != e && static_cast<unsigned>(*p - '0') < 10) {
            m = m * 10 + static_cast<unsigned>(*p - '0');
            ++digits;
            ++p;
        }
        fraction = static_cast<std::size_t>(p - f);
        if (fraction == 0) {
            return parseNumber(s, v);
        }
    }
    if (p != e || p == start || digits > 15) {
        return parseNumber(s, v);
    }
    // A whole number needs no division (m / 1 is m): its latency was the largest single cost of
    // an integer field (perf: the first use of the value stalled on it).
    const double r =
        fraction == 0 ? static_cast<double>(m) : static_cast<double>(m) / kPow10[fraction];
    v = negative ? -r : r;
    return true;
}

}  // namespace

bool parseIsoDate(std::string_view t, std::int64_t& days) {
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) {
        t.remove_prefix(1);
    }
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) {
        t.remove_suffix(1);
    }
    if (t.size() != 10 || t[4] != '-' || t[7] != '-') {
        return false;
    }
    auto digits = [&](std::size_t from, std::size_t n, int& out) {
        out = 0;
        for (std::size_t i = from; i < from + n; ++i) {
            if (t[i] < '0' || t[i] > '9') {
                return false;
            }
            out = out * 10 + (t[i] - '0');
        }
        return true;
    };
    int y = 0, m = 0, d = 0;
    if (!digits(0, 4, y) || !digits(5, 2, m) || !digits(8, 2, d) || y < 1 || m < 1 || m > 12) {
        return false;
    }
    static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    const int dim = kDays[static_cast<std::size_t>(m - 1)] + (m == 2 && leap ? 1 : 0);
    if (d < 1 || d > dim) {
        return false;
    }
    // Days from civil (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
    const int yy = y - (m <= 2 ? 1 : 0);
    const int era = yy / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    days = std::int64_t{era} * 146097 + doe - 719468;
    return true;
}

Status CsvOptions::validate() const {
    if (delimiter != 0 && (delimiter == '"' || delimiter == '\n' || delimiter == '\r' ||
                           delimiter == ' ' || static_cast<unsigned char>(delimiter) >= 0x80)) {
        return Error{"the delimiter cannot be a quote, a line break, a space or a non-ASCII byte"};
    }
    if (sampleRows < 1) {
        return Error{"the type inference sample needs at least one row"};
    }
    if (blockBytes < 1) {
        return Error{"the read block size must be at least one byte"};
    }
    if (limits.maxRecordBytes < 1 || limits.maxFields < 1 || limits.maxFileBytes < 1) {
        return Error{"the CSV limits must be at least 1"};
    }
    return okStatus();
}

Expected<CsvSchema> inspectCsv(const std::string& path, const CsvOptions& o) {
    if (auto ok = o.validate(); !ok) {
        return ok.error();
    }
    auto size = fileSize(path, o.limits);
    if (!size) {
        return size.error();
    }
    CsvSchema schema;
    schema.fileBytes = *size;
    std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(*size, 65536)), '\0');
    {
        std::ifstream in(path, std::ios::binary);
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        if (static_cast<std::size_t>(in.gcount()) != head.size()) {
            return Error{"cannot read " + quotedName(path)};
        }
    }
    if (head.size() >= 2 &&
        ((head[0] == '\xFF' && head[1] == '\xFE') || (head[0] == '\xFE' && head[1] == '\xFF'))) {
        return Error{"the file " + quotedName(path) +
                     " is UTF-16 text; save it as UTF-8 (CSV UTF-8) and try again"};
    }
    if (head.rfind("\xEF\xBB\xBF", 0) == 0) {
        schema.dataOffset = 3;
    }
    if (const auto z = head.find('\0'); z != std::string::npos) {
        const auto line =
            1 + std::count(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(z), '\n');
        return Error{at(line, 0) + "the file " + quotedName(path) +
                     " holds NUL bytes: it looks like a binary file, not CSV text"};
    }
    schema.delimiter = o.delimiter
                           ? o.delimiter
                           : detectDelimiter(std::string_view(head).substr(schema.dataOffset));
    schema.header = o.header;

    Scanner sc(path, *size, schema.delimiter, o.limits, std::min<std::size_t>(o.blockBytes, 65536));
    if (!sc.open()) {
        return Error{"cannot open " + quotedName(path)};
    }
    sc.start(schema.dataOffset, *size, 1);
    auto step = sc.next();
    if (step == Scanner::Step::Fatal) {
        return Error{at(sc.fatal().line, sc.fatal().column) + sc.fatal().message};
    }
    if (step == Scanner::Step::Done) {
        return Error{"the file " + quotedName(path) + " has no records (only blank lines)"};
    }
    std::string reason, message;
    const std::size_t n = sc.fieldCount();
    if (o.header) {
        if (!sc.checkRow(reason, message)) {
            return Error{message + " (in the header)"};
        }
        std::unordered_map<std::string, std::size_t> seen;
        for (std::size_t j = 0; j < n; ++j) {
            std::string name(sc.value(j));
            if (name.empty()) {
                name = "column " + std::to_string(j + 1);
            }
            const auto [it, fresh] = seen.emplace(name, j);
            if (!fresh) {
                return Error{at(sc.recordLine(), static_cast<std::int64_t>(j) + 1) +
                             "the header names the column " + quotedName(name) +
                             " twice (columns " + std::to_string(it->second + 1) + " and " +
                             std::to_string(j + 1) + ")"};
            }
            schema.columns.push_back({name, ValueType::Categorical, {}});
        }
        schema.dataOffset = sc.position();
        schema.dataLine = sc.line();
        step = sc.next();
    } else {
        for (std::size_t j = 0; j < n; ++j) {
            schema.columns.push_back(
                {"column " + std::to_string(j + 1), ValueType::Categorical, {}});
        }
        schema.dataLine = 1;
    }
    // Type inference on the sample: bad rows of the sample are left to the pass.
    std::vector<int> integer(n, 1), number(n, 1), date(n, 1);
    std::vector<std::int64_t> finite(n, 0);  // values that are finite numbers
    std::vector<std::int64_t>& values = schema.sampleValues;
    values.assign(n, 0);
    schema.overridden.assign(n, false);
    for (std::size_t r = 0; r < o.sampleRows && step == Scanner::Step::Record; ++r) {
        if (sc.fieldCount() == n && sc.checkRow(reason, message)) {
            for (std::size_t j = 0; j < n; ++j) {
                const std::string_view v = sc.value(j);
                if (v.empty()) {
                    continue;
                }
                ++values[j];
                double x = 0;
                std::int64_t d = 0;
                const bool num = parseNumber(v, x);
                // inf, nan, 1e400: numbers, but not finite ones — they leave the column numeric
                // and are bad values ("not a number") when it is binned, as in the SQL sources.
                const bool nonFinite = !num && numberButNotFinite(v);
                finite[j] += num ? 1 : 0;
                number[j] &= num || nonFinite ? 1 : 0;
                integer[j] &=
                    nonFinite || (num && std::floor(x) == x && std::abs(x) <= kMaxWholeNumber) ? 1
                                                                                               : 0;
                date[j] &= parseIsoDate(v, d) ? 1 : 0;
            }
        }
        step = sc.next();
    }
    if (step == Scanner::Step::Fatal) {
        return Error{at(sc.fatal().line, sc.fatal().column) + sc.fatal().message};
    }
    for (std::size_t j = 0; j < n; ++j) {
        ValueType& t = schema.columns[j].type;
        t = !values[j]                ? ValueType::Categorical
            : !finite[j] && !date[j]  ? ValueType::Categorical  // only inf/nan: text
            : integer[j] && finite[j] ? ValueType::Integer
            : number[j] && finite[j]  ? ValueType::Float
            : date[j]                 ? ValueType::Date
                                      : ValueType::Categorical;
    }
    for (const auto& [name, type] : o.types) {
        // (clang 14 cannot capture a structured binding in a lambda: compare through a reference)
        const std::string& wanted = name;
        auto it = std::find_if(schema.columns.begin(), schema.columns.end(),
                               [&](const ColumnInfo& c) { return c.name == wanted; });
        if (it == schema.columns.end()) {
            return Error{"a type is given for the column " + quotedName(name) +
                         ", but the file has no such column"};
        }
        it->type = type;
        schema.overridden[static_cast<std::size_t>(it - schema.columns.begin())] = true;
    }
    return schema;
}

Expected<CsvSchema> csvForEachRecord(const std::string& path, const CsvOptions& options,
                                     const CsvRecordCallback& record) {
    auto schema = inspectCsv(path, options);
    if (!schema) {
        return schema.error();
    }
    const CsvSchema& sc = *schema;
    Scanner scanner(path, sc.fileBytes, sc.delimiter, options.limits, options.blockBytes);
    if (!scanner.open()) {
        return Error{"cannot open " + quotedName(path)};
    }
    scanner.start(sc.dataOffset, sc.fileBytes, sc.dataLine);
    std::string reason, message;
    std::vector<std::string_view> fields;
    while (true) {
        const Scanner::Step step = scanner.next();
        if (step == Scanner::Step::Fatal) {
            return Error{at(scanner.fatal().line, scanner.fatal().column) +
                         scanner.fatal().message};
        }
        if (step == Scanner::Step::Done) {
            break;
        }
        const std::int64_t ln = scanner.recordLine();
        if (!scanner.checkRow(reason, message)) {
            return Error{message};
        }
        const std::size_t n = scanner.fieldCount();
        if (n != sc.columns.size()) {
            return Error{at(ln, static_cast<std::int64_t>(std::min(n, sc.columns.size())) + 1) +
                         "the record has " + groupThousands(n) + (n == 1 ? " field" : " fields") +
                         ", but the " + (sc.header ? "header has " : "first record has ") +
                         groupThousands(sc.columns.size())};
        }
        fields.clear();
        for (std::size_t j = 0; j < n; ++j) {
            fields.push_back(scanner.value(j));
        }
        if (auto ok = record(ln, fields); !ok) {
            return ok.error();
        }
    }
    return schema;
}

// --- the pass ---------------------------------------------------------------------------------

namespace {

struct Plan {
    // Per file column: the requests binning it (indices into the request list).
    std::vector<std::vector<std::size_t>> byColumn;
    std::vector<std::size_t> binned;  // file columns with at least one request, ascending
    std::vector<std::size_t> requestColumn;
    std::vector<ValueType> types;
    std::vector<std::string> names;
    std::vector<Binner> prototypes;
    // A joint table: the rows go to one JointBinner (attributes in request order) instead of one
    // Binner per request.
    std::optional<JointBinner> joint;
    bool narrowKeys = false;  // joint: every provisional key below 2⁶⁴ (a 64-bit key per row)
    std::optional<std::size_t> idColumn;
    std::int64_t cap = 0;
    BadRowPolicy policy = BadRowPolicy::Stop;
    std::size_t fieldCount = 0;
};

struct ChunkResult {
    std::uint64_t begin = 0, next = 0;
    std::int64_t lines = 0;  // lines consumed from begin to next
    std::int64_t rows = 0;
    std::int64_t capped = 0;
    std::vector<Binner> binners;
    std::optional<JointBinner> joint;
    std::vector<std::pair<std::string, std::int64_t>> skipped;
    std::optional<Error> error;
};

// An empty result for a range: fresh binners (or a fresh joint binner) of the plan.
ChunkResult emptyChunk(const Plan& plan) {
    ChunkResult res;
    if (plan.joint) {
        res.joint = plan.joint;
    } else {
        res.binners = plan.prototypes;
    }
    return res;
}

void addSkipped(std::vector<std::pair<std::string, std::int64_t>>& list, const std::string& reason,
                std::int64_t n = 1) {
    for (auto& [r, c] : list) {
        if (r == reason) {
            c += n;
            return;
        }
    }
    list.emplace_back(reason, n);
}

struct PassContext {
    const std::string& path;
    const CsvSchema& schema;
    const CsvOptions& options;
    const Plan& plan;
    std::stop_token stop;
    const ProgressCallback& progress;
    std::atomic<std::uint64_t> bytesDone{0};
};

[[gnu::noinline, gnu::cold]] bool jointRowFailed(std::int64_t ln, std::size_t j, std::size_t r,
                                                 ChunkResult& res) {
    res.error = Error{at(ln, static_cast<std::int64_t>(j) + 1) + res.joint->failure(r).message};
    return false;
}

// Counts a converted row of a joint table in its cell: the attributes in request order, up to the
// first that drops it. False when an attribute fails (the error in res.error). K: the key type,
// std::uint64_t when the provisional domain allows (plan.narrowKeys). Flattened (the Binner's
// per-value functions and the text index inlined into it) and kept out of parseRange, whose
// one-column path is then compiled as before.
template <typename K>
[[gnu::flatten, gnu::noinline]] bool countJointRow(const Plan& plan,
                                                   const std::vector<std::string_view>& texts,
                                                   const std::vector<double>& numbers,
                                                   std::int64_t ln, ChunkResult& res) {
    JointBinner& jb = *res.joint;
    K key = 0;
    for (std::size_t r = 0; r < plan.requestColumn.size(); ++r) {
        const std::size_t j = plan.requestColumn[r];
        const auto in = plan.types[j] == ValueType::Categorical ? jb.text(r, texts[j], ln, key)
                                                                : jb.number(r, numbers[j], ln, key);
        if (in == JointBinner::Outcome::Failed) {
            return jointRowFailed(ln, j, r, res);
        }
        if (in == JointBinner::Outcome::NotCounted) {
            return true;
        }
    }
    jb.count(key);
    return true;
}

// Parses the records that start in [begin, end), the first at `begin` on line `line`.
ChunkResult parseRange(PassContext& ctx, std::uint64_t begin, std::uint64_t end,
                       std::int64_t line) {
    ChunkResult res = emptyChunk(ctx.plan);
    res.begin = begin;
    const Plan& plan = ctx.plan;
    Scanner sc(ctx.path, ctx.schema.fileBytes, ctx.schema.delimiter, ctx.options.limits,
               ctx.options.blockBytes);
    if (!sc.open()) {
        res.error = Error{"cannot open " + quotedName(ctx.path)};
        return res;
    }
    sc.start(begin, end, line);
    std::unordered_map<std::string, std::int64_t> perPerson;
    std::vector<double> numbers(plan.fieldCount);
    std::vector<std::string_view> texts(plan.fieldCount);
    std::string reason, message;
    std::uint64_t reported = 0;
    std::int64_t sinceCheck = 0;
    const bool skip = plan.policy == BadRowPolicy::Skip;
    auto bad = [&](const std::string& why, const std::string& text) {
        if (skip) {
            addSkipped(res.skipped, why);
            return true;
        }
        res.error = Error{text};
        return false;
    };
    while (true) {
        if (++sinceCheck >= 4096) {
            sinceCheck = 0;
            const std::uint64_t now = sc.bytesRead();
            ctx.bytesDone.fetch_add(now - reported, std::memory_order_relaxed);
            reported = now;
            if (ctx.stop.stop_requested()) {
                res.error = Error{"cancelled"};
                return res;
            }
            if (ctx.progress) {
                const double f =
                    static_cast<double>(ctx.bytesDone.load(std::memory_order_relaxed)) /
                    static_cast<double>(std::max<std::uint64_t>(ctx.schema.fileBytes, 1));
                ctx.progress(std::min(f, 1.0));
            }
        }
        const Scanner::Step step = sc.next();
        if (step == Scanner::Step::Fatal) {
            res.error = Error{at(sc.fatal().line, sc.fatal().column) + sc.fatal().message};
            return res;
        }
        if (step == Scanner::Step::Done) {
            break;
        }
        ++res.rows;
        const std::int64_t ln = sc.recordLine();
        if (!sc.checkRow(reason, message)) {
            if (!bad(reason, message)) {
                return res;
            }
            continue;
        }
        if (sc.fieldCount() != plan.fieldCount) {
            const auto n = sc.fieldCount();
            if (!bad("ragged row",
                     at(ln, static_cast<std::int64_t>(std::min(n, plan.fieldCount)) + 1) +
                         "the record has " + groupThousands(n) + (n == 1 ? " field" : " fields") +
                         ", but the " + (ctx.schema.header ? "header has " : "first record has ") +
                         groupThousands(plan.fieldCount))) {
                return res;
            }
            continue;
        }
        // Convert the binned fields; a bad value makes the whole row bad.
        bool ok = true;
        for (std::size_t j : plan.binned) {
            if (!ok) {
                break;
            }
            const std::string_view v = sc.value(j);
            texts[j] = v;
            numbers[j] = std::numeric_limits<double>::quiet_NaN();
            if (v.empty() || plan.types[j] == ValueType::Categorical) {
                continue;
            }
            double x = 0;
            const char* why = nullptr;  // (not a std::string: built and destroyed per field)
            switch (plan.types[j]) {
                case ValueType::Integer:
                    if (!readNumber(v, x)) {
                        why = "not a number";
                    } else if (!isWholeNumber(x)) {
                        why = "not a whole number";
                    }
                    break;
                case ValueType::Float:
                    if (!readNumber(v, x)) {
                        why = "not a number";
                    }
                    break;
                case ValueType::Date: {
                    std::int64_t d = 0;
                    if (parseIsoDate(v, d)) {
                        x = static_cast<double>(d);
                    } else {
                        why = "not a date";
                    }
                    break;
                }
                case ValueType::Categorical:
                    break;
            }
            if (why) {
                const char* expected = plan.types[j] == ValueType::Date      ? "a date yyyy-mm-dd"
                                       : numberButNotFinite(v)               ? "a finite number"
                                       : plan.types[j] == ValueType::Integer ? "a whole number"
                                                                             : "a number";
                ok = false;
                if (!bad(why, at(ln, static_cast<std::int64_t>(j) + 1) + quotedName(v) +
                                  " in the " + valueTypeName(plan.types[j]) + " column " +
                                  quotedName(plan.names[j]) + " is not " + expected +
                                  " (declare the column's type to change how it is read)")) {
                    return res;
                }
            }
            numbers[j] = x;
        }
        if (!ok) {
            continue;
        }
        if (plan.idColumn) {
            const std::string_view id = sc.value(*plan.idColumn);
            if (id.empty()) {
                if (!bad("missing id", at(ln, static_cast<std::int64_t>(*plan.idColumn) + 1) +
                                           "the row has no value in the id column " +
                                           quotedName(plan.names[*plan.idColumn]) +
                                           ", so its person's contribution cannot be bounded")) {
                    return res;
                }
                continue;
            }
            auto it = perPerson.find(std::string(id));
            if (it == perPerson.end()) {
                it = perPerson.emplace(std::string(id), 0).first;
            }
            if (it->second >= plan.cap) {
                ++res.capped;
                continue;
            }
            ++it->second;
        }
        if (res.joint) {
            if (!(plan.narrowKeys
                      ? countJointRow<std::uint64_t>(plan, texts, numbers, ln, res)
                      : countJointRow<JointBinner::Key>(plan, texts, numbers, ln, res))) {
                return res;
            }
            continue;
        }
        for (std::size_t j : plan.binned) {
            for (std::size_t r : plan.byColumn[j]) {
                Binner& bn = res.binners[r];
                // (initialised once, not assigned: no second Status built and reset per value)
                const Status st = plan.types[j] == ValueType::Categorical
                                      ? bn.addText(texts[j], ln)
                                      : bn.addNumber(numbers[j], ln);  // NaN if empty: missing
                if (!st) {
                    res.error =
                        Error{at(ln, static_cast<std::int64_t>(j) + 1) + st.error().message};
                    return res;
                }
            }
        }
    }
    ctx.bytesDone.fetch_add(sc.bytesRead() - reported, std::memory_order_relaxed);
    res.next = sc.position();
    res.lines = sc.line() - line;
    return res;
}

// The first record start at or after `from` when the data is not inside quotes there: just after
// the first line feed at or after from − 1.
std::uint64_t guessRecordStart(const std::string& path, std::uint64_t from, std::uint64_t size) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(from - 1));
    std::vector<char> buf(65536);
    std::uint64_t off = from - 1;
    while (off < size) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (got == 0) {
            break;
        }
        if (const void* nl = std::memchr(buf.data(), '\n', got)) {
            return off + static_cast<std::uint64_t>(static_cast<const char*>(nl) - buf.data()) + 1;
        }
        off += got;
    }
    return size;
}

}  // namespace

namespace {

// The one pass of csvHistograms and csvJointTable: the schema, the plan, the threads and their
// merge; `joint` routes the rows to one JointBinner instead of one Binner per request.
struct PassResult {
    ChunkResult total;
};

Expected<PassResult> runPass(const std::string& path, const CsvOptions& options,
                             const std::vector<ColumnRequest>& requests, const ContributionCap& cap,
                             std::stop_token stop, const ProgressCallback& progress, bool joint) {
    if (cap.enabled() && cap.maxRowsPerPerson < 1) {
        return Error{"the contribution cap must be at least 1 row per person, got " +
                     groupThousands(cap.maxRowsPerPerson)};
    }
    auto schema = inspectCsv(path, options);
    if (!schema) {
        return schema.error();
    }
    for (const auto& rq : requests) {
        for (std::size_t j = 0; j < schema->columns.size(); ++j) {
            if (schema->columns[j].name == rq.column && schema->sampleValues[j] == 0 &&
                !schema->overridden[j]) {
                schema->columns[j].type = rq.binning.kind == BinningKind::Categories
                                              ? ValueType::Categorical
                                              : ValueType::Float;
            }
        }
    }
    const CsvSchema& sc = *schema;
    Plan plan;
    plan.fieldCount = sc.columns.size();
    plan.byColumn.resize(plan.fieldCount);
    plan.policy = options.onBadRow;
    for (const auto& c : sc.columns) {
        plan.types.push_back(c.type);
        plan.names.push_back(c.name);
    }
    auto find = [&](const std::string& name) -> Expected<std::size_t> {
        for (std::size_t j = 0; j < sc.columns.size(); ++j) {
            if (sc.columns[j].name == name) {
                return j;
            }
        }
        std::string names;
        for (std::size_t j = 0; j < sc.columns.size() && j < 20; ++j) {
            names += (j ? ", " : "") + quotedName(sc.columns[j].name);
        }
        if (sc.columns.size() > 20) {
            names += ", … (" + groupThousands(sc.columns.size()) + " in all)";
        }
        return Error{"the file has no column " + quotedName(name) + " (columns: " + names + ")"};
    };
    for (std::size_t r = 0; r < requests.size(); ++r) {
        auto j = find(requests[r].column);
        if (!j) {
            return j.error();
        }
        const ValueType t = sc.columns[*j].type;
        const ColumnKind kind =
            t == ValueType::Categorical ? ColumnKind::Text : ColumnKind::Numeric;
        auto b = Binner::create(
            requests[r].binning, kind,
            std::string(valueTypeName(t)) + " column " + quotedName(requests[r].column), "line");
        if (!b) {
            return b.error();
        }
        plan.prototypes.push_back(std::move(b).value());
        plan.byColumn[*j].push_back(r);
        plan.requestColumn.push_back(*j);
    }
    for (std::size_t j = 0; j < plan.fieldCount; ++j) {
        if (!plan.byColumn[j].empty()) {
            plan.binned.push_back(j);
        }
    }
    if (joint) {
        // The domain of the declared bins is checked here, before any byte of data is read.
        std::vector<std::string> names;
        for (const auto& rq : requests) {
            names.push_back(rq.column);
        }
        auto jb = JointBinner::create(std::move(names), plan.prototypes);
        if (!jb) {
            return jb.error();
        }
        plan.joint = std::move(jb).value();
        plan.narrowKeys = plan.joint->narrowKeys();
    }
    if (cap.enabled()) {
        auto j = find(cap.idColumn);
        if (!j) {
            return Error{"the id column: " + j.error().message};
        }
        plan.idColumn = *j;
        plan.cap = cap.maxRowsPerPerson;
        // The id is read as text whatever its type; make sure its value is extracted.
    }

    PassContext ctx{path, sc, options, plan, stop, progress};
    const std::uint64_t dataBytes = sc.fileBytes - std::min(sc.fileBytes, sc.dataOffset);
    unsigned threads = options.threads;
    if (threads == 0) {
        threads = std::max(1u, std::thread::hardware_concurrency());
        // A range below 8 MiB does not pay for its thread.
        threads = static_cast<unsigned>(
            std::min<std::uint64_t>(threads, dataBytes / (std::uint64_t{8} << 20) + 1));
    }
    if (cap.enabled() || dataBytes < 2) {
        threads = 1;
    }
    threads = static_cast<unsigned>(
        std::clamp<std::uint64_t>(threads, 1, std::max<std::uint64_t>(dataBytes, 1)));

    std::vector<std::uint64_t> bounds(threads + 1);
    for (unsigned k = 0; k <= threads; ++k) {
        bounds[k] = sc.dataOffset + dataBytes * k / threads;
    }
    std::vector<ChunkResult> results(threads);
    {
        std::vector<std::jthread> workers;
        for (unsigned k = 1; k < threads; ++k) {
            workers.emplace_back([&, k] {
                const std::uint64_t start = guessRecordStart(path, bounds[k], sc.fileBytes);
                if (start >= bounds[k + 1]) {
                    results[k] = emptyChunk(plan);
                    results[k].begin = results[k].next = start;
                    return;
                }
                results[k] = parseRange(ctx, start, bounds[k + 1], 1);
            });
        }
        results[0] = parseRange(ctx, sc.dataOffset, bounds[1], sc.dataLine);
    }
    if (results[0].error) {
        return *results[0].error;
    }
    ChunkResult total = std::move(results[0]);
    std::int64_t line = sc.dataLine + total.lines;
    for (unsigned k = 1; k < threads; ++k) {
        ChunkResult& c = results[k];
        if (c.error && c.error->message == "cancelled") {
            return *c.error;
        }
        if (c.begin != total.next || c.error) {
            // The guess was wrong (a quoted line break near the boundary), or there is an error
            // whose line must be known: parse the range again from the right place.
            c = parseRange(ctx, total.next, bounds[k + 1], line);
            if (c.error) {
                return *c.error;
            }
        }
        if (total.joint) {
            if (auto ok = total.joint->merge(*c.joint); !ok) {
                return ok.error();
            }
        }
        for (std::size_t r = 0; r < total.binners.size(); ++r) {
            if (auto ok = total.binners[r].merge(c.binners[r]); !ok) {
                return ok.error();
            }
        }
        for (const auto& [why, n] : c.skipped) {
            addSkipped(total.skipped, why, n);
        }
        total.rows += c.rows;
        total.capped += c.capped;
        total.next = c.next;
        line += c.lines;
    }
    if (stop.stop_requested()) {
        return Error{"cancelled"};
    }
    if (total.rows == 0) {
        return Error{"the file " + quotedName(path) + " has " +
                     (sc.header ? "a header but no data rows" : "no data rows")};
    }
    return PassResult{std::move(total)};
}

}  // namespace

Expected<SourceHistograms> csvHistograms(const std::string& path, const CsvOptions& options,
                                         const std::vector<ColumnRequest>& requests,
                                         const ContributionCap& cap, std::stop_token stop,
                                         const ProgressCallback& progress) {
    if (requests.empty()) {
        return Error{"no column to make a histogram of"};
    }
    auto pass = runPass(path, options, requests, cap, stop, progress, false);
    if (!pass) {
        return pass.error();
    }
    ChunkResult& total = pass->total;
    SourceHistograms out;
    out.rows = total.rows;
    out.skipped = std::move(total.skipped);
    out.cappedRows = total.capped;
    for (std::size_t r = 0; r < total.binners.size(); ++r) {
        auto h = total.binners[r].finish();
        if (!h) {
            return h.error();
        }
        out.columns.push_back(std::move(h).value());
    }
    if (progress) {
        progress(1.0);
    }
    return out;
}

Expected<SourceTable> csvJointTable(const std::string& path, const CsvOptions& options,
                                    const std::vector<ColumnRequest>& requests,
                                    const ContributionCap& cap, std::stop_token stop,
                                    const ProgressCallback& progress) {
    if (requests.empty()) {
        return Error{"no column to make a joint table of"};
    }
    if (auto ok = checkJointDomain(requests); !ok) {
        return ok.error();
    }
    auto pass = runPass(path, options, requests, cap, stop, progress, true);
    if (!pass) {
        return pass.error();
    }
    ChunkResult& total = pass->total;
    auto joint = total.joint->finish();
    if (!joint) {
        return joint.error();
    }
    SourceTable out;
    out.rows = total.rows;
    out.table = std::move(joint->table);
    out.reports = std::move(joint->reports);
    out.counted = out.table.total();
    out.skipped = std::move(total.skipped);
    out.cappedRows = total.capped;
    if (progress) {
        progress(1.0);
    }
    return out;
}

}  // namespace dpx::data
