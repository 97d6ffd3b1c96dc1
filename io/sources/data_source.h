// dpx_io: where the data comes from — streaming CSV/TSV files, SQLite files and PostgreSQL
// servers — and the one-pass histograms computed from them (issue #5). A sub-library of core that
// may use Qt Core and Qt Sql (never Qt Widgets); dpx_core stays free of Qt.
//
// Every source answers the same question: the histograms of one or more columns under bins that
// were declared before counting (so empty bins exist and get noise), with everything that was not
// counted accounted for — missing values, values outside the range, unknown categories, rows that
// were malformed and skipped, rows over a person's contribution cap.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/histogram/dataset.h"
#include "core/table/joint_binning.h"
#include "core/table/table.h"

namespace dpx::data {

// The type of a column as a source sees it: inferred from a sample (CSV) or from the declared SQL
// type (SQLite, PostgreSQL); the user may override it.
enum class ValueType {
    Integer,      // whole numbers
    Float,        // other numbers
    Categorical,  // text
    Date,         // ISO 8601 dates (yyyy-mm-dd), binned as days since 1970-01-01
};
const char* valueTypeName(ValueType t);  // "integer", "float", "categorical", "date"

struct ColumnInfo {
    std::string name;
    ValueType type = ValueType::Categorical;
    std::string declaredType;  // SQL sources: the type as the database declares it; CSV: empty
};

// One histogram (or one attribute of a joint table) to compute: a column and its declared bins
// (core/table/joint_binning.h).
using dpx::ColumnRequest;

// Contribution bounding when one person may own several rows: at most `maxRowsPerPerson` rows per
// distinct value of `idColumn` are counted; the others are dropped deterministically (CSV: the
// first rows in file order are kept; SQL sources document their order) and counted in
// SourceHistograms::cappedRows. The sensitivity of each histogram then follows from the cap:
// add/remove one person changes the counts by at most cap in L1 and in L2.
struct ContributionCap {
    std::string idColumn;  // empty: no bounding (one row per person assumed)
    std::int64_t maxRowsPerPerson = 1;
    bool enabled() const { return !idColumn.empty(); }
};

// What a bad value does, in every source: a value that cannot be read as the column's type —
// in a numeric column anything that is not a finite number (text that is not a number, ±infinity,
// NaN, a number beyond the double range), in a date column anything that is not a date — and a
// row without an id under a contribution cap.
//  - Stop: the first one (CSV: with its line and column; SQL: with the number of such values) is
//    the error;
//  - Skip: it is not counted, and SourceHistograms::skipped counts it by reason ("not a number",
//    "not a date", ...). The CSV reader skips the whole row; the SQL sources skip the value (the
//    database counts each column on its own), reported as "<column>: not a number".
enum class BadRowPolicy {
    Stop,  // the first bad row is the error
    Skip,  // bad rows are not counted; SourceHistograms::skipped counts them by reason
};

struct SourceHistograms {
    std::int64_t rows = 0;              // data rows read (skipped and capped rows included)
    std::vector<BinnedColumn> columns;  // in request order; each with its BinningReport
    // Rows not counted at all, by reason ("ragged row", "invalid UTF-8", ...), in first-seen order.
    std::vector<std::pair<std::string, std::int64_t>> skipped;
    std::int64_t cappedRows = 0;  // rows dropped by the contribution cap
};

// A joint table of several columns (issue #19): every row whose value in EVERY requested column
// falls in a bin counts once in the cell of those bins; a row with a missing, out-of-range or
// unknown value in any of them is not counted (its column's report says why, each row once in the
// first column that dropped it, in request order). Categories taken from the data make a bin for
// each value found (so the attribute is not `declared`).
struct SourceTable {
    std::int64_t rows = 0;  // data rows read (skipped and capped rows included)
    ContingencyTable table;
    std::vector<BinningReport> reports;  // one per requested column, in request order
    std::int64_t counted = 0;            // rows counted in a cell (= table.total())
    std::vector<std::pair<std::string, std::int64_t>> skipped;  // as SourceHistograms::skipped
    std::int64_t cappedRows = 0;
};

// One sentence about column `index` of `h`, counting against every row read (so rows skipped as
// bad and rows over the contribution cap are part of the total, unlike BinningReport::describe,
// which counts against the rows that reached the column): "2 of 4 rows counted; 2 rows skipped
// (not a number: 2); 1 missing value skipped." Skip reasons of the SQL sources that name another
// column ("<other>: not a number") are left out. Precondition: index < h.columns.size().
std::string describeColumnReport(const SourceHistograms& h, std::size_t index,
                                 const std::string& column);

}  // namespace dpx::data
