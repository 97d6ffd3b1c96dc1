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

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/expected.h"
#include "core/histogram/histogram.h"
#include "core/histogram/text_index.h"

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
    EqualWidth,  // `bins` equal bins on [lo, hi]; last bin closed unless closedHi is false
    Integer,     // whole numbers lo..hi in groups of `width` (1: one bin per value)
    Categories,  // one bin per distinct value, or per entry of a fixed list
    Edges,       // user-declared edges e_0 < … < e_k: bin i is [e_i, e_{i+1})
};
const char* binningKindName(BinningKind kind);  // "equal-width", "integer", "categories", "edges"

// Values outside [lo, hi] (equal-width and integer bins).
enum class OutOfRange {
    Drop,   // not counted (reported)
    Clamp,  // counted in the first or last bin (reported)
};

// Values not in a fixed category list.
enum class UnknownCategory {
    Drop,   // not counted (reported as unknownCategories)
    Other,  // counted in an extra last bin labelled "other" (reported as otherCategories)
    Error,  // binning fails with a message naming the value and its row
};

enum class CategoryOrder {
    FirstSeen,  // in the order the values first occur in the column
    Sorted,     // text in byte order (std::string comparison), numbers ascending
};

inline constexpr std::int64_t kMaxBins = 100000;
// Largest magnitude of a whole number for integer bins (every integer up to it and its successor
// are exact doubles).
inline constexpr double kMaxWholeNumber = 1e15;
// std::floor(x) == x (NaN: false, ±inf: true) without the floor, which x86-64 without SSE 4.1
// computes in a dozen instructions: below 2⁵² in magnitude a double is whole exactly when the
// truncation to an integer gives it back; from 2⁵² on every finite double is whole.
inline bool isWholeNumber(double x) {
    if (std::fabs(x) < 0x1p52) {
        return static_cast<double>(static_cast<std::int64_t>(x)) == x;
    }
    return x == x;  // (false only for NaN)
}

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
    // Categories with a fixed list: what happens to values not in the list.
    UnknownCategory unknown = UnknownCategory::Drop;
    // Edges: k + 1 finite, strictly increasing edges (2 ≤ k + 1 ≤ kMaxBins + 1).
    std::vector<double> edges;
    // Equal-width and edges: whether the upper end belongs to the last bin ([e_{k−1}, hi]); when
    // false every bin is half-open and a value equal to hi is above the range.
    bool closedHi = true;

    static Binning equalWidth(std::int64_t k, double lo, double hi,
                              OutOfRange outside = OutOfRange::Drop);
    static Binning integers(double lo, double hi, std::int64_t width = 1,
                            OutOfRange outside = OutOfRange::Drop);
    static Binning distinctValues(CategoryOrder order = CategoryOrder::FirstSeen);
    static Binning fixedCategories(std::vector<std::string> list,
                                   UnknownCategory unknown = UnknownCategory::Drop);
    static Binning fromEdges(std::vector<double> edges, OutOfRange outside = OutOfRange::Drop,
                             bool closedHi = true);

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
    std::int64_t otherCategories = 0;    // not in the fixed category list, counted in "other"
    // Numeric binners: the non-missing numbers seen (in range or not, counted or not) and their
    // smallest and largest value (both 0 while numbers == 0). A first pass with any binning thus
    // learns a column's range, e.g. for automatic bins over a streamed source — a data-dependent
    // range, which a release must declare instead.
    std::int64_t numbers = 0;
    double min = 0, max = 0;

    std::int64_t clamped() const { return clampedLow + clampedHigh; }
    std::int64_t dropped() const { return droppedLow + droppedHigh + unknownCategories; }
    // One sentence for the user, e.g. "4,990 of 5,000 rows counted; 10 missing values skipped."
    std::string describe() const;
};

struct BinnedColumn {
    Histogram histogram;  // labels always set; edges for equal-width and integer bins
    BinningReport report;
};

// The bins a binning declares, exactly as binColumn and Binner count them (SQL sources generate
// their binning expressions from it, so both agree to the last bit).
//   equal-width: edges e_i = lo + i·(hi − lo)/k (computed as in binColumn), labels "[a, b)";
//   edges:       the declared edges, labels "[a, b)";
//                for both, the last label is "[a, b]" when closedHi;
//   integer:     edges lo + i·width and hi + 1 last, labels "34" or "30–39"; a whole number v
//                is in bin ⌊(v − lo)/width⌋;
//   categories:  fixed list: the entries (and "other" last with UnknownCategory::Other), no edges;
//                from the data: bins = 0, no labels (the categories are the values found).
struct BinLayout {
    BinningKind kind = BinningKind::EqualWidth;
    std::size_t bins = 0;
    std::vector<double> edges;  // bins + 1 values for numeric kinds, empty for categories
    std::vector<std::string> labels;
    bool closedHi = true;   // equal-width and edges: the last bin includes its upper edge
    bool otherBin = false;  // fixed categories: the last bin collects the other values
};
Expected<BinLayout> binLayout(const Binning& binning);

// Counts values into the bins of one binning, one value at a time, so that a column can be binned
// while it streams past (CSV reader, one Binner per thread, merged in order). binColumn is this
// loop over a column. Missing values: NaN, the empty text, or addMissing().
class Binner {
public:
    // `subject` names the column in messages ("column 'age'"), `rowNoun` the unit of the row
    // numbers passed to add* ("row", "line").
    static Expected<Binner> create(const Binning& binning, ColumnKind kind,
                                   std::string subject = "the column", std::string rowNoun = "row");

    // Numeric binner only. Fails for a value integer bins cannot take (not whole), a value outside
    // a fixed category list under UnknownCategory::Error, or one category too many.
    Status addNumber(double x, std::int64_t row);
    // Text binner only (categories).
    Status addText(std::string_view s, std::int64_t row);
    void addMissing();

    // The bin of one value, with the value accounted for in the report (rows, missing, out of
    // range, categories, numbers seen) exactly as addNumber / addText do, but without counting it:
    // the bin index, or kNotCounted when the value is missing or dropped (the report says which).
    // addNumber / addText are this call plus one count in the bin. Several binners side by side
    // bin the columns of a joint table this way (core/table/joint_binning.h). For categories from
    // the data the index is the order of first appearance in this binner; finalBins() maps it to
    // the bin of finish()'s histogram. Same errors as addNumber / addText.
    static constexpr std::size_t kNotCounted = static_cast<std::size_t>(-1);
    Expected<std::size_t> binNumber(double x, std::int64_t row);
    Expected<std::size_t> binText(std::string_view s, std::int64_t row);
    // The same without the Expected, for the per-row loops: the bin, kNotCounted, or kFailed with
    // the error in failure(). Defined inline below (their rare branches out of line), so that the
    // per-row loops of the CSV reader inline them: the call, its frame and the reloads of the
    // binning were a third of their cost per value (callgrind, issue #19).
    static constexpr std::size_t kFailed = kNotCounted - 1;
    inline std::size_t binNumberOrFail(double x, std::int64_t row);
    inline std::size_t binTextOrFail(std::string_view s, std::int64_t row);
    const Error& failure() const { return failure_; }
    // The number of bins so far (categories from the data: the values seen so far).
    std::size_t binCount() const { return counts_.size(); }

    // Adds the counts of a binner of the same binning that saw the rows after this one's (the
    // first-seen order of categories from the data follows the rows). With `binMap`, it receives
    // for each bin index of `later` the index of the same bin in this binner.
    Status merge(const Binner& later, std::vector<std::size_t>* binMap = nullptr);
    Expected<BinnedColumn> finish() const;
    // For each bin index of this binner (as binNumber / binText return them), its bin in
    // finish()'s histogram (the identity unless categories from the data are sorted).
    std::vector<std::size_t> finalBins() const;

    const Binning& binning() const { return binning_; }
    const BinLayout& layout() const { return layout_; }
    const BinningReport& report() const { return report_; }

private:
    Binner() = default;
    Error tooManyCategories() const;
    std::size_t fail(Error error);  // keeps the error, returns kFailed
    Status count(std::size_t bin);  // one count in `bin` (kNotCounted: none; kFailed: the error)
    Expected<std::size_t> result(std::size_t bin) const;
    [[gnu::noinline, gnu::cold]] std::size_t failWith(const char* message, bool withSubject);
    [[gnu::noinline, gnu::cold]] std::size_t failNotWhole(double x, std::int64_t row);
    std::size_t unknownCategory(std::string_view shown, std::int64_t row);
    // The bin of a number in categories (−0 and +0 are one category).
    std::size_t categoryBin(double x, std::int64_t row);
    // binTextOrFail for a text not in the index: unknown, or a new category from the data.
    std::size_t textNotFound(std::string_view s, std::int64_t row);
    // Bin of x ∈ [lo, hi] for equal-width bins with edges e: the i with e_i ≤ x < e_{i+1}, the
    // last bin closed. The arithmetic guess is corrected against the edges themselves, so a value
    // equal to an edge lands in the bin that the edge opens, and no value lands beyond the last
    // bin. `scale` is k / ((hi − lo)/2), precomputed: a multiplication instead of a division per
    // value (the guess may be off by one either way, which the edge comparisons correct).
    static std::size_t equalWidthIndex(double x, const std::vector<double>& e, double lo,
                                       double scale, double kd) {
        const std::size_t k = e.size() - 1;
        const double t = (x * 0.5 - lo * 0.5) * scale;
        std::size_t i = 0;
        if (t >= kd) {
            i = k - 1;
        } else if (t > 0) {
            i = static_cast<std::size_t>(t);
        }
        while (i > 0 && x < e[i]) {
            --i;
        }
        while (i + 1 < k && x >= e[i + 1]) {
            ++i;
        }
        return i;
    }
    // Bin order of finish(): the internal bin of each final bin.
    std::vector<std::size_t> binOrder() const;

    Binning binning_;
    ColumnKind kind_ = ColumnKind::Numeric;
    std::string subject_, rowNoun_;
    BinLayout layout_;
    std::vector<std::int64_t> counts_;
    BinningReport report_;
    Error failure_;              // the last error of binNumberOrFail / binTextOrFail
    double scale_ = 0, kd_ = 0;  // equal-width: k / ((hi − lo)/2) and k
    // Categories: key → bin (fixed list or first seen); keys_ in bin order.
    std::unordered_map<double, std::size_t> numberIndex_;
    std::vector<double> numberKeys_;
    TextIndex textIndex_;  // text → bin, the text being textKeys_[bin]
    std::vector<std::string> textKeys_;
};

std::size_t Binner::binNumberOrFail(double x, std::int64_t row) {
    if (kind_ != ColumnKind::Numeric) {
        return failWith(" holds text, but a number was given to its bins", true);
    }
    ++report_.rows;
    if (std::isnan(x)) {
        ++report_.missing;
        return kNotCounted;
    }
    if (report_.numbers++ == 0) {
        report_.min = report_.max = x;
    } else {
        report_.min = std::min(report_.min, x);
        report_.max = std::max(report_.max, x);
    }
    const Binning& b = binning_;
    const bool clamp = b.outOfRange == OutOfRange::Clamp;
    switch (b.kind) {
        case BinningKind::EqualWidth:
        case BinningKind::Edges:
        case BinningKind::Integer: {
            const std::vector<double>& e = layout_.edges;
            if (b.kind == BinningKind::Integer && !isWholeNumber(x)) {
                return failNotWhole(x, row);
            }
            // Integer bins: the range is lo … hi (e.back() = hi + 1 is not a value of the range).
            const double top = b.kind == BinningKind::Integer ? b.hi : e.back();
            const bool openTop = b.kind != BinningKind::Integer && !layout_.closedHi;
            if (x < e.front()) {
                if (clamp) {
                    ++report_.clampedLow;
                    return std::size_t{0};
                }
                ++report_.droppedLow;
                return kNotCounted;
            }
            if (x > top || (openTop && x == top)) {
                if (clamp) {
                    ++report_.clampedHigh;
                    return counts_.size() - 1;
                }
                ++report_.droppedHigh;
                return kNotCounted;
            }
            if (b.kind == BinningKind::EqualWidth) {
                return equalWidthIndex(x, e, b.lo, scale_, kd_);
            }
            if (b.kind == BinningKind::Integer) {
                const auto offset = static_cast<std::int64_t>(x) - static_cast<std::int64_t>(b.lo);
                return static_cast<std::size_t>(b.width == 1 ? offset : offset / b.width);
            }
            // The last edge e_k ≤ x only when x = e_k and the last bin is closed.
            const auto it = std::upper_bound(e.begin(), e.end(), x);
            const auto i = static_cast<std::size_t>(it - e.begin());
            return std::min(i - 1, counts_.size() - 1);
        }
        case BinningKind::Categories:
            return categoryBin(x, row);
    }
    return failWith("unknown binning kind", false);
}

std::size_t Binner::binTextOrFail(std::string_view s, std::int64_t row) {
    if (kind_ != ColumnKind::Text) {
        return failWith(" is numeric, but a text value was given to its bins", true);
    }
    ++report_.rows;
    if (s.empty()) {
        ++report_.missing;
        return kNotCounted;
    }
    if (const std::uint32_t bin = textIndex_.find(s, textKeys_); bin != TextIndex::kNone) {
        return bin;
    }
    return textNotFound(s, row);
}

// The binning of a command-line spec (dpx histogram --bins):
//   LO:HI:COUNT          COUNT equal-width bins over [LO, HI) (closedHi false)
//   edges:E1,E2,...      bins [E1, E2), [E2, E3), … (closedHi false)
//   integers:LO:HI       one bin per whole number LO..HI; integers:LO:HI:WIDTH groups of WIDTH
//   categories:A,B,...   a fixed category list (values not in it dropped and reported)
//   categories           one bin per distinct value, sorted
// followed by any of these modifiers, each after a ';':
//   ;closed  the last bin includes HI (equal-width, edges)
//   ;clamp   values outside the range count in the first or last bin (equal-width, edges, integers)
//   ;other   values not in the category list count in a last bin "other"
//   ;error   a value not in the category list is an error
// Spaces around the parts are ignored; a category cannot contain ',' or ';'.
Expected<Binning> parseBinSpec(std::string_view spec);

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
