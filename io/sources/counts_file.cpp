#include "io/sources/counts_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "core/base/validation.h"
#include "core/histogram/dataset.h"
#include "core/table/npy.h"
#include "io/sources/csv_reader.h"

namespace dpx::data {

namespace {

std::string quotedName(std::string_view s) {
    return "'" + std::string(s) + "'";
}

std::string at(std::int64_t line, std::size_t column) {
    return "line " + std::to_string(line) + ", column " + std::to_string(column + 1) + ": ";
}

std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

// A count as text: a whole number ≥ 0 (written as an integer or a float such as 3.0), at most
// 2⁶³ − 1; the error names the line and the column.
Expected<std::int64_t> parseCount(std::string_view text, std::int64_t line, std::size_t column) {
    if (text.empty()) {
        return Error{at(line, column) + "the count is empty (a missing count; write 0 for none)"};
    }
    // Integers exactly (beyond 2⁵³ a double would round them).
    std::int64_t whole = 0;
    const char* b = text.data();
    const char* e = b + text.size();
    if (*b == '+') {
        ++b;
    }
    auto r = std::from_chars(b, e, whole);
    if (r.ptr == e && r.ec == std::errc()) {
        if (whole < 0) {
            return Error{at(line, column) + "the count " + quotedName(text) +
                         " is negative; counts must be ≥ 0"};
        }
        return whole;
    }
    if (r.ptr == e && r.ec == std::errc::result_out_of_range) {
        return Error{at(line, column) + "the count " + quotedName(text) +
                     " is beyond the largest count 2^63 − 1"};
    }
    double v = 0;
    if (!parseNumber(text, v)) {
        return Error{at(line, column) + "the count " + quotedName(text) + " is not a number"};
    }
    if (v < 0) {
        return Error{at(line, column) + "the count " + quotedName(text) +
                     " is negative; counts must be ≥ 0"};
    }
    if (std::floor(v) != v) {
        return Error{at(line, column) + "the count " + quotedName(text) +
                     " is fractional; counts must be whole numbers"};
    }
    if (v >= 9223372036854775808.0) {
        return Error{at(line, column) + "the count " + quotedName(text) +
                     " is beyond the largest count 2^63 − 1"};
    }
    return static_cast<std::int64_t>(v);
}

bool isNumber(std::string_view text) {
    double v = 0;
    return parseNumber(text, v);
}

Expected<std::string> readWhole(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        return Error{"cannot open " + quotedName(path) + ": no such file"};
    }
    if (fs::is_directory(path, ec)) {
        return Error{"cannot read " + quotedName(path) + ": it is a directory, not a file"};
    }
    const auto size = fs::file_size(path, ec);
    // The largest .npy this reader loads: kMaxNpyElements of 8 bytes and a header.
    const std::uintmax_t limit = kMaxNpyElements * 8 + (std::uintmax_t{1} << 20);
    if (!ec && size > limit) {
        return Error{"the file " + quotedName(path) + " has " +
                     groupThousands(static_cast<std::int64_t>(size)) + " bytes, more than the " +
                     groupThousands(static_cast<std::int64_t>(limit)) + " a counts file may have"};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error{"cannot open " + quotedName(path)};
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool startsWithNpyMagic(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[6] = {};
    in.read(head, sizeof head);
    return in.gcount() == 6 && looksLikeNpy(std::string_view(head, 6));
}

Expected<CountsFile> readNpy(const std::string& path) {
    auto bytes = readWhole(path);
    if (!bytes) {
        return bytes.error();
    }
    auto npy = parseNpyCounts(*bytes);
    if (!npy) {
        return Error{fileName(path) + ": " + npy.error().message};
    }
    CountsFile out;
    out.layout = CountsLayout::Npy;
    const std::string cells = cellCountText(npy->table.cellCount());
    out.description = cells + " counts from " + fileName(path) + " (" + npy->dtypeName + ", " +
                      (npy->fortranOrder ? "Fortran" : "C") + " order)";
    out.table = std::move(npy->table);
    return out;
}

// Bins of one attribute of a long file: its values, numbers ascending when every value is a
// number (labels in shortest form, so 1 and 1.0 are one bin), else text in byte order.
struct LongAttribute {
    std::vector<std::string> values;  // per row
    std::map<std::string, std::size_t> index;
    std::vector<std::string> labels;
};

void finishLongAttribute(LongAttribute& a) {
    bool numeric = !a.values.empty();
    for (const std::string& v : a.values) {
        numeric = numeric && isNumber(v);
    }
    if (numeric) {
        std::map<double, std::string> sorted;
        for (std::string& v : a.values) {
            double x = 0;
            parseNumber(v, x);
            x = x == 0 ? 0.0 : x;
            v = formatShortest(x);
            sorted.emplace(x, v);
        }
        for (const auto& [x, label] : sorted) {
            a.index.emplace(label, a.labels.size());
            a.labels.push_back(label);
        }
        return;
    }
    for (const std::string& v : a.values) {
        a.index.emplace(v, 0);
    }
    for (auto& [label, i] : a.index) {
        i = a.labels.size();
        a.labels.push_back(label);
    }
}

// The records of a counts CSV, read with header = false (the first record is looked at as a
// possible header by the layouts).
struct Records {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::int64_t> lines;
};

Expected<Records> readRecords(const std::string& path) {
    CsvOptions csv;
    csv.threads = 1;
    csv.header = false;
    csv.onBadRow = BadRowPolicy::Stop;
    Records out;
    auto read = csvForEachRecord(
        path, csv, [&](std::int64_t line, const std::vector<std::string_view>& f) -> Status {
            out.rows.emplace_back(f.begin(), f.end());
            out.lines.push_back(line);
            return okStatus();
        });
    if (!read) {
        return Error{fileName(path) + ": " + read.error().message};
    }
    return out;
}

Expected<CountsFile> readLong(const std::string& path, const Records& rec,
                              std::size_t countColumn) {
    const std::vector<std::string>& header = rec.rows.front();
    const std::size_t n = header.size();
    if (n < 2) {
        return Error{fileName(path) +
                     ": a long counts file needs at least one attribute column "
                     "besides the count column " +
                     quotedName(header[countColumn])};
    }
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < j; ++i) {
            if (header[i] == header[j]) {
                return Error{fileName(path) + ": " + at(rec.lines.front(), j) +
                             "the header names the column " + quotedName(header[j]) + " twice"};
            }
        }
        if (header[j].empty()) {
            return Error{fileName(path) + ": " + at(rec.lines.front(), j) +
                         "the header has an empty column name"};
        }
    }
    std::vector<LongAttribute> attrs(n - 1);
    std::vector<std::int64_t> counts;
    for (std::size_t r = 1; r < rec.rows.size(); ++r) {
        const std::vector<std::string>& f = rec.rows[r];
        std::size_t a = 0;
        for (std::size_t j = 0; j < f.size(); ++j) {
            if (j == countColumn) {
                auto c = parseCount(f[j], rec.lines[r], j);
                if (!c) {
                    return Error{fileName(path) + ": " + c.error().message};
                }
                counts.push_back(*c);
                continue;
            }
            if (f[j].empty()) {
                return Error{fileName(path) + ": " + at(rec.lines[r], j) + "the attribute " +
                             quotedName(header[j]) + " has no value, so the count has no cell"};
            }
            attrs[a++].values.push_back(f[j]);
        }
    }
    if (counts.empty()) {
        return Error{fileName(path) + ": the file has a header but no counts"};
    }
    std::vector<Attribute> attributes;
    std::size_t a = 0;
    for (std::size_t j = 0; j < n; ++j) {
        if (j == countColumn) {
            continue;
        }
        finishLongAttribute(attrs[a]);
        Attribute attr;
        attr.name = header[j];
        attr.labels = attrs[a].labels;
        attr.binning = std::to_string(attr.labels.size()) + " values found in the counts file";
        // The bins are the values the file lists, not declared beforehand.
        attr.declared = false;
        attributes.push_back(std::move(attr));
        ++a;
    }
    CellCount domain = 1;
    std::string names;
    for (const Attribute& attr : attributes) {
        domain *= attr.size();
        names += (names.empty() ? "" : " × ") + quotedName(attr.name) + " (" +
                 std::to_string(attr.size()) + ")";
        if (domain > (CellCount{1} << 64)) {
            return Error{fileName(path) + ": the joint domain of " + names +
                         " has more than 2^64 cells; a table cannot address it"};
        }
    }
    // Each row's cell (C order); a cell listed twice is an error naming both lines.
    std::map<std::uint64_t, std::size_t> seen;  // cell → row
    std::vector<TableCell> cells;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        CellCount index = 0;
        for (std::size_t k = 0; k < attrs.size(); ++k) {
            index = index * attributes[k].size() + attrs[k].index.at(attrs[k].values[r]);
        }
        const auto cell = static_cast<std::uint64_t>(index);
        const auto [it, fresh] = seen.emplace(cell, r);
        if (!fresh) {
            return Error{fileName(path) + ": line " + std::to_string(rec.lines[r + 1]) +
                         " lists the same cell as line " +
                         std::to_string(rec.lines[it->second + 1]) +
                         " (each cell once in a long counts file)"};
        }
        if (counts[r] > 0) {
            cells.push_back({cell, counts[r]});
        }
    }
    auto table = ContingencyTable::fromCells(std::move(attributes), std::move(cells));
    if (!table) {
        return Error{fileName(path) + ": " + table.error().message};
    }
    CountsFile out;
    out.layout = CountsLayout::Long;
    out.description = std::to_string(counts.size()) + " counts from " + fileName(path) +
                      " (long layout, " + std::to_string(n - 1) +
                      (n == 2 ? " attribute)" : " attributes)");
    out.table = std::move(table).value();
    return out;
}

// Vector and matrix: a rectangle of counts; the first record is a header when any of its fields
// is not a number (the vector's header names its attribute, the matrix's names the columns).
Expected<CountsFile> readRectangle(const std::string& path, const Records& rec, bool vector) {
    const std::vector<std::string>& first = rec.rows.front();
    bool header = false;
    for (const std::string& f : first) {
        header = header || !isNumber(f);
    }
    std::vector<std::int64_t> counts;
    const std::size_t cols = first.size();
    for (std::size_t r = header ? 1 : 0; r < rec.rows.size(); ++r) {
        for (std::size_t j = 0; j < rec.rows[r].size(); ++j) {
            auto c = parseCount(rec.rows[r][j], rec.lines[r], j);
            if (!c) {
                return Error{fileName(path) + ": " + c.error().message};
            }
            counts.push_back(*c);
        }
    }
    if (counts.empty()) {
        return Error{fileName(path) + ": the file has a header but no counts"};
    }
    const std::size_t rows = counts.size() / cols;
    if (counts.size() > kMaxDenseCells) {
        return Error{fileName(path) + ": " + std::to_string(counts.size()) +
                     " counts, more than the " + std::to_string(kMaxDenseCells) +
                     " of a dense table (list the occupied cells in a long counts file)"};
    }
    std::vector<Attribute> attributes;
    CountsFile out;
    if (vector) {
        attributes.push_back(
            indexAttribute(header && !first[0].empty() ? first[0] : std::string("index"), rows));
        out.layout = CountsLayout::Vector;
        out.description =
            std::to_string(counts.size()) + " counts from " + fileName(path) + " (vector layout)";
    } else {
        attributes.push_back(indexAttribute("row", rows));
        Attribute column = indexAttribute("column", cols);
        if (header) {
            for (std::size_t j = 0; j < cols; ++j) {
                for (std::size_t i = 0; i < j; ++i) {
                    if (first[i] == first[j]) {
                        return Error{fileName(path) + ": " + at(rec.lines.front(), j) +
                                     "the header names the column " + quotedName(first[j]) +
                                     " twice"};
                    }
                }
                column.labels[j] = first[j];
            }
            column.binning = std::to_string(cols) + " columns named in the header";
        }
        attributes.push_back(std::move(column));
        out.layout = CountsLayout::Matrix;
        out.description = std::to_string(counts.size()) + " counts from " + fileName(path) +
                          " (matrix layout, " + std::to_string(rows) + " × " +
                          std::to_string(cols) + ")";
    }
    auto table = ContingencyTable::dense(std::move(attributes), std::move(counts));
    if (!table) {
        return Error{fileName(path) + ": " + table.error().message};
    }
    out.table = std::move(table).value();
    return out;
}

}  // namespace

const char* countsLayoutName(CountsLayout layout) {
    switch (layout) {
        case CountsLayout::Auto:
            return "auto";
        case CountsLayout::Long:
            return "long";
        case CountsLayout::Vector:
            return "vector";
        case CountsLayout::Matrix:
            return "matrix";
        case CountsLayout::Npy:
            return "npy";
    }
    return "?";
}

Expected<CountsLayout> countsLayoutFromName(const std::string& name) {
    for (CountsLayout l : {CountsLayout::Auto, CountsLayout::Long, CountsLayout::Vector,
                           CountsLayout::Matrix, CountsLayout::Npy}) {
        if (name == countsLayoutName(l)) {
            return l;
        }
    }
    return Error{"unknown counts layout " + quotedName(name) +
                 " (known: auto, long, vector, matrix, npy)"};
}

Expected<CountsFile> readCountsFile(const std::string& path, const CountsFileOptions& options) {
    if (options.layout == CountsLayout::Npy ||
        (options.layout == CountsLayout::Auto && startsWithNpyMagic(path))) {
        return readNpy(path);
    }
    if (startsWithNpyMagic(path)) {
        return Error{fileName(path) + " is a .npy file, not a CSV of counts (layout " +
                     countsLayoutName(options.layout) + " was asked for; use npy or auto)"};
    }
    auto rec = readRecords(path);
    if (!rec) {
        return rec.error();
    }
    if (rec->rows.empty()) {
        return Error{fileName(path) + ": the file has no counts"};
    }
    const std::vector<std::string>& first = rec->rows.front();
    std::optional<std::size_t> countColumn;
    for (std::size_t j = 0; j < first.size(); ++j) {
        if (first[j] == options.countColumn) {
            countColumn = j;
        }
    }
    CountsLayout layout = options.layout;
    if (layout == CountsLayout::Auto) {
        layout = countColumn && first.size() > 1 ? CountsLayout::Long
                 : first.size() == 1             ? CountsLayout::Vector
                                                 : CountsLayout::Matrix;
    }
    switch (layout) {
        case CountsLayout::Long:
            if (!countColumn) {
                std::string names;
                for (const std::string& c : first) {
                    names += (names.empty() ? "" : ", ") + quotedName(c);
                }
                return Error{fileName(path) + ": a long counts file needs a column named " +
                             quotedName(options.countColumn) + " in its header (header: " + names +
                             ")"};
            }
            return readLong(path, *rec, *countColumn);
        case CountsLayout::Vector:
            if (first.size() != 1) {
                return Error{fileName(path) +
                             ": a vector of counts has one column, this file has " +
                             std::to_string(first.size())};
            }
            return readRectangle(path, *rec, true);
        case CountsLayout::Matrix:
            return readRectangle(path, *rec, false);
        case CountsLayout::Auto:
        case CountsLayout::Npy:
            break;
    }
    return Error{"internal error: no counts layout"};
}

}  // namespace dpx::data
