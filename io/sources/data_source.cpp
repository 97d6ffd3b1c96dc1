#include "io/sources/data_source.h"

#include "core/base/validation.h"

namespace dpx::data {

const char* valueTypeName(ValueType t) {
    switch (t) {
        case ValueType::Integer:
            return "integer";
        case ValueType::Float:
            return "float";
        case ValueType::Categorical:
            return "categorical";
        case ValueType::Date:
            return "date";
    }
    return "?";
}

namespace {

std::string counted(std::int64_t n, const char* one, const char* many) {
    return groupThousands(n) + " " + (n == 1 ? one : many);
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string describeColumnReport(const SourceHistograms& h, std::size_t index,
                                 const std::string& column) {
    const BinningReport& r = h.columns.at(index).report;
    std::string s = groupThousands(r.used) + " of " + counted(h.rows, "row", "rows") + " counted";
    // Whole rows skipped (CSV reasons, "missing id") and this column's values (SQL sources).
    std::int64_t rows = 0, values = 0;
    std::string rowReasons, valueReasons;
    for (const auto& [reason, n] : h.skipped) {
        if (reason == column + ": not a number" || reason == column + ": not a date") {
            values += n;
            valueReasons += (valueReasons.empty() ? "" : ", ") + reason.substr(column.size() + 2) +
                            ": " + groupThousands(n);
            continue;
        }
        if (endsWith(reason, ": not a number") || endsWith(reason, ": not a date")) {
            continue;  // another column's values (SQL sources)
        }
        rows += n;
        rowReasons += (rowReasons.empty() ? "" : ", ") + reason + ": " + groupThousands(n);
    }
    if (rows > 0) {
        s += "; " + counted(rows, "row", "rows") + " skipped (" + rowReasons + ")";
    }
    if (values > 0) {
        s += "; " + counted(values, "value", "values") + " skipped (" + valueReasons + ")";
    }
    if (h.cappedRows > 0) {
        s += "; " + counted(h.cappedRows, "row", "rows") + " over the contribution cap dropped";
    }
    // The rest of the column's own report (missing values, the range, the categories).
    const std::string own = r.describe();
    const std::string marker = " counted";
    const auto at = own.find(marker);
    return s + (at == std::string::npos ? std::string(".") : own.substr(at + marker.size()));
}

}  // namespace dpx::data
