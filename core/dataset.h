// Data model of the data steward's view: a table of named columns (loaded from a CSV file or built
// by code), a binning rule for one column, and the histogram the mechanisms work on.
//
// Missing values: a numeric column marks a missing value with NaN; a text column with the empty
// string (so a text value can never be empty — the CSV loader maps empty fields to missing either
// way). Binning skips missing values and reports how many it skipped.
//
// Memory: a column stores one double (8 bytes) or one std::string (32 bytes, short strings inline)
// per row; 1e6 rows × a few columns take a few tens of MB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/histogram.h"

namespace dpx {

// ---------------------------------------------------------------------------------------------
// Columns and tables

enum class ColumnKind { Numeric, Text };
const char* columnKindName(ColumnKind kind);  // "numeric" / "text"

class DataColumn {
public:
    // NaN marks a missing value. Infinite values are refused by DataTable::create.
    static DataColumn numeric(std::string name, std::vector<double> values);
    // The empty string marks a missing value.
    static DataColumn text(std::string name, std::vector<std::string> values);

    const std::string& name() const { return name_; }
    ColumnKind kind() const { return kind_; }
    bool isNumeric() const { return kind_ == ColumnKind::Numeric; }
    std::size_t size() const { return isNumeric() ? numbers_.size() : texts_.size(); }
    // The values; the vector of the other kind is empty.
    const std::vector<double>& numbers() const { return numbers_; }
    const std::vector<std::string>& texts() const { return texts_; }
    bool isMissing(std::size_t row) const;
    std::size_t missingCount() const;
    // The value as text for display: numbers in shortest round-trip form, "" when missing.
    std::string displayValue(std::size_t row) const;

private:
    DataColumn() = default;
    std::string name_;
    ColumnKind kind_ = ColumnKind::Numeric;
    std::vector<double> numbers_;
    std::vector<std::string> texts_;
};

class DataTable {
public:
    // At least one column; names non-empty and unique; all columns the same length; numeric values
    // finite or NaN (missing). Zero rows are allowed here (the CSV loader refuses them).
    static Expected<DataTable> create(std::vector<DataColumn> columns);

    std::size_t rowCount() const { return rows_; }
    std::size_t columnCount() const { return columns_.size(); }
    const std::vector<DataColumn>& columns() const { return columns_; }
    const DataColumn& column(std::size_t index) const { return columns_.at(index); }
    // nullptr if there is no column of that name (names are case-sensitive).
    const DataColumn* find(std::string_view name) const;
    // The column's index, or an error that lists the available names.
    Expected<std::size_t> indexOf(std::string_view name) const;
    std::vector<std::string> columnNames() const;

private:
    DataTable() = default;
    std::vector<DataColumn> columns_;
    std::size_t rows_ = 0;
};

// What a column looks like, for choosing a binning.
enum class ColumnRole {
    Empty,        // every value missing
    Integer,      // numeric, every value a whole number with |v| ≤ kMaxWholeNumber
    Continuous,   // numeric, some value not whole
    Categorical,  // text
};
const char* columnRoleName(ColumnRole role);  // "empty", "integer", "continuous", "categorical"

struct ColumnProfile {
    ColumnKind kind = ColumnKind::Numeric;
    ColumnRole role = ColumnRole::Empty;
    std::size_t rows = 0;
    std::size_t missing = 0;
    // Distinct non-missing values, counted up to kDistinctLimit + 1 ("more than kDistinctLimit").
    std::size_t distinct = 0;
    static constexpr std::size_t kDistinctLimit = 100000;
    double min = 0, max = 0;  // numeric columns with a value only
};
ColumnProfile profileColumn(const DataColumn& column);

// ---------------------------------------------------------------------------------------------
// Binning a column into a histogram

enum class BinningKind {
    EqualWidth,  // `bins` equal bins on [lo, hi]; last bin closed
    Integer,     // whole numbers lo..hi in groups of `width` (1: one bin per value)
    Categories,  // one bin per distinct value, or per entry of a fixed list
};
const char* binningKindName(BinningKind kind);  // "equal-width", "integer", "categories"

// Values outside [lo, hi] (equal-width and integer bins).
enum class OutOfRange {
    Drop,   // not counted (reported)
    Clamp,  // counted in the first or last bin (reported)
};

enum class CategoryOrder {
    FirstSeen,  // in the order the values first occur in the column
    Sorted,     // text in byte order (std::string comparison), numbers ascending
};

inline constexpr std::int64_t kMaxBins = 100000;
// Largest magnitude of a whole number for integer bins (every integer up to it and its successor
// are exact doubles).
inline constexpr double kMaxWholeNumber = 1e15;

struct Binning {
    BinningKind kind = BinningKind::EqualWidth;
    // Equal-width: the number of bins k, 1 ≤ k ≤ kMaxBins.
    std::int64_t bins = 10;
    // Equal-width: finite lo < hi; bin i is [e_i, e_{i+1}) with e_i = lo + i·(hi − lo)/k, the last
    // bin [e_{k−1}, hi] includes hi. Integer: whole numbers lo ≤ hi (|lo|, |hi| ≤ kMaxWholeNumber).
    double lo = 0, hi = 1;
    // Integer: each bin holds `width` consecutive whole numbers, 1 ≤ width; bin i holds
    // lo + i·width .. lo + (i+1)·width − 1, the last bin ends at hi. Edges are lo + i·width (and
    // hi + 1 last), so the bin of the value v is [v, v + 1) for width 1.
    std::int64_t width = 1;
    OutOfRange outOfRange = OutOfRange::Drop;
    // Categories: the order when the categories come from the data.
    CategoryOrder order = CategoryOrder::FirstSeen;
    // Categories: a fixed list (non-empty, distinct, no empty entries; for a numeric column every
    // entry must be a number). Values not in the list are dropped and reported. Empty: the
    // categories are the distinct values of the column.
    std::vector<std::string> categories;

    static Binning equalWidth(std::int64_t k, double lo, double hi,
                              OutOfRange outside = OutOfRange::Drop);
    static Binning integers(double lo, double hi, std::int64_t width = 1,
                            OutOfRange outside = OutOfRange::Drop);
    static Binning distinctValues(CategoryOrder order = CategoryOrder::FirstSeen);
    static Binning fixedCategories(std::vector<std::string> list);

    // Checks the parameters alone (not against a column).
    Status validate() const;
    // One line for the user, e.g. "32 equal-width bins on [0, 24]".
    std::string describe() const;
};

struct BinningReport {
    std::int64_t rows = 0;               // rows of the table
    std::int64_t used = 0;               // rows counted in a bin (= the histogram total)
    std::int64_t missing = 0;            // missing values, skipped
    std::int64_t clampedLow = 0;         // below the range, counted in the first bin (Clamp)
    std::int64_t clampedHigh = 0;        // above the range, counted in the last bin (Clamp)
    std::int64_t droppedLow = 0;         // below the range, not counted (Drop)
    std::int64_t droppedHigh = 0;        // above the range, not counted (Drop)
    std::int64_t unknownCategories = 0;  // not in the fixed category list, not counted

    std::int64_t clamped() const { return clampedLow + clampedHigh; }
    std::int64_t dropped() const { return droppedLow + droppedHigh + unknownCategories; }
    // One sentence for the user, e.g. "4,990 of 5,000 rows counted; 10 missing values skipped."
    std::string describe() const;
};

struct BinnedColumn {
    Histogram histogram;  // labels always set; edges for equal-width and integer bins
    BinningReport report;
};

// Bins one column. Equal-width labels are "[a, b)" ("[a, b]" for the last bin) with the shortest
// number forms that keep neighbouring edges distinct; integer labels are "34" or "30–39";
// category labels are the values (numbers in shortest round-trip form) or the fixed list entries.
// A histogram whose bins are all empty is valid (the report says why); zero bins are an error.
Expected<BinnedColumn> binColumn(const DataTable& table, std::string_view column,
                                 const Binning& binning);
Expected<BinnedColumn> binColumn(const DataColumn& column, const Binning& binning);

// A reasonable default binning for a column:
//   text                                   → categories in sorted order;
//   whole numbers with max − min < 200     → integer bins of width 1 on [min, max];
//   whole numbers, wider range             → integer bins on [min, max] whose width is the
//                                            Freedman–Diaconis width rounded up to a whole number
//                                            (at most 4096 bins);
//   other numbers                          → equal-width bins on [min, max], k by Freedman–Diaconis
//                                            (h = 2·IQR·n^(−1/3), k = ⌈(max − min)/h⌉; √n when the
//                                            IQR is 0), clamped to [1, 4096]; a constant column
//                                            gets one bin [v − 0.5, v + 0.5].
// Errors: a column with only missing values; a text column with more than kMaxBins values.
Expected<Binning> suggestBinning(const DataColumn& column);

// ---------------------------------------------------------------------------------------------
// Numbers in text

// The text, trimmed of spaces and tabs, as a finite number: std::from_chars (general format) must
// consume all of it; one leading '+' is allowed. Returns false for anything else (empty, "1,5",
// "0x10", "inf", "nan", out of the double range).
bool parseNumber(std::string_view text, double& value);
// Shortest text that reads back as the same double; whole numbers below 1e15 in full ("1000000",
// not "1e+06"); −0 as "0".
std::string formatShortest(double value);

// ---------------------------------------------------------------------------------------------
// Simple CSV loader

inline constexpr std::size_t kCsvMaxBytes = std::size_t{2} << 30;  // 2 GiB
inline constexpr std::size_t kCsvMaxRows = 10000000;               // data rows
inline constexpr std::size_t kCsvMaxColumns = 100000;
inline constexpr std::size_t kCsvMaxCells = 200000000;  // rows × columns (memory guard)

// Reads a CSV/TSV text into a table.
// - separator: ',', ';', '\t' or another character other than '"', CR and LF; 0 = detect from the
//   header line (the most frequent of ',', ';' and tab outside quotes; ',' if none occurs).
// - The first record is the header. An empty header name becomes "column N" (N 1-based);
//   duplicate names are an error.
// - RFC 4180 quoting: a field that starts with '"' is quoted; it may contain separators, line
//   breaks and doubled quotes (""). A quote inside an unquoted field is an ordinary character.
//   Unquoted fields are trimmed of spaces and tabs; quoted fields are kept verbatim.
// - Line ends LF, CRLF or CR; a UTF-8 byte-order mark is skipped; blank lines are skipped.
// - A column is numeric if every non-empty field parses completely as a finite number
//   (std::from_chars, an optional leading '+'); otherwise it is text. Empty fields are missing.
// Errors name the line (1-based, counting every line of the text) and the column (1-based).
Expected<DataTable> readCsvTable(std::string_view text, char separator = 0);
// Reads a file (at most kCsvMaxBytes) and parses it with readCsvTable.
Expected<DataTable> readCsvFile(const std::string& path, char separator = 0);

}  // namespace dpx
