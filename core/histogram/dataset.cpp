#include "core/histogram/dataset.h"
#include "core/base/text_split.h"
#include "core/base/validation.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace dpx {

namespace {

std::string plural(std::int64_t n, const char* one, const char* many) {
    return groupThousands(n) + " " + (n == 1 ? one : many);
}

std::string quoted(std::string_view s) {
    constexpr std::size_t kMax = 60;
    if (s.size() > kMax) {
        return "'" + std::string(s.substr(0, kMax)) + "…'";
    }
    return "'" + std::string(s) + "'";
}

bool isWhole(double v) {
    return std::floor(v) == v && std::abs(v) <= kMaxWholeNumber;
}

// %g-style text with `digits` significant digits (no trailing zeros), whole numbers in full.
std::string formatDigits(double v, int digits) {
    if (v == 0) {
        return "0";
    }
    if (std::floor(v) == v && std::abs(v) < 1e15) {
        return std::to_string(static_cast<std::int64_t>(v));
    }
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
    return std::string(buf, r.ptr);
}

// Significant digits of the shortest round-trip form of v.
int shortestDigits(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    int digits = 0;
    bool leading = true;
    for (const char* p = buf; p != r.ptr && *p != 'e'; ++p) {
        if (*p >= '1' && *p <= '9') {
            leading = false;
        }
        if (*p >= '0' && *p <= '9' && !leading) {
            ++digits;
        }
    }
    return digits;
}

// Texts for bin edges: the shortest form where it has at most p significant digits, else p digits,
// with the smallest p ≥ 6 that keeps neighbouring edges distinct.
std::vector<std::string> formatEdges(const std::vector<double>& edges) {
    std::vector<std::string> out(edges.size());
    for (int p = 6; p <= 17; ++p) {
        for (std::size_t i = 0; i < edges.size(); ++i) {
            out[i] = shortestDigits(edges[i]) <= p ? formatShortest(edges[i])
                                                   : formatDigits(edges[i], p);
        }
        bool distinct = true;
        for (std::size_t i = 1; i < out.size() && distinct; ++i) {
            distinct = out[i] != out[i - 1];
        }
        if (distinct) {
            break;
        }
    }
    return out;
}

std::string wholeText(std::int64_t v) {
    return std::to_string(v);
}

std::string rangeLabel(std::int64_t a, std::int64_t b) {
    if (a == b) {
        return wholeText(a);
    }
    if (a >= 0) {
        return wholeText(a) + "–" + wholeText(b);  // en dash
    }
    return wholeText(a) + " to " + wholeText(b);
}

std::string columnRef(const DataColumn& c) {
    return "column " + quoted(c.name());
}

Expected<Histogram> makeHistogram(std::vector<std::int64_t> counts, std::vector<std::string> labels,
                                  std::vector<double> edges) {
    return Histogram::create(std::move(counts), std::move(labels), std::move(edges));
}

// --- equal-width ----------------------------------------------------------------------------

Expected<std::vector<double>> equalWidthEdges(double lo, double hi, std::int64_t k) {
    std::vector<double> e(static_cast<std::size_t>(k) + 1);
    const double span = hi - lo;
    const double kd = static_cast<double>(k);
    e.front() = lo;
    e.back() = hi;
    for (std::int64_t i = 1; i < k; ++i) {
        const double id = static_cast<double>(i);
        double v = 0;
        if (std::isfinite(span)) {
            v = lo + span * id / kd;
        } else {
            const double t = id / kd;
            v = lo * (1 - t) + hi * t;
        }
        e[static_cast<std::size_t>(i)] = v;
    }
    for (std::size_t i = 1; i < e.size(); ++i) {
        if (!(e[i] > e[i - 1])) {
            return Error{"the range [" + formatShortest(lo) + ", " + formatShortest(hi) +
                         "] is too narrow for " + groupThousands(k) +
                         " bins: neighbouring bin edges coincide in double precision"};
        }
    }
    return e;
}

// --- categories -----------------------------------------------------------------------------

Error tooManyCategories(const DataColumn& col) {
    return Error{columnRef(col) + " has more than " + groupThousands(kMaxBins) +
                 " distinct values, too many to give each its own bin (use equal-width bins, or "
                 "a fixed category list)"};
}

Error noCategories(const DataColumn& col) {
    return Error{columnRef(col) +
                 " has only missing values, so there are no categories to make bins of"};
}

double normaliseZero(double v) {
    return v == 0 ? 0.0 : v;  // −0 and +0 are one category
}

// Quantile of type 7 (linear interpolation between order statistics) of v, reordering v.
double quantile(std::vector<double>& v, double p) {
    const double h = static_cast<double>(v.size() - 1) * p;
    const auto i = static_cast<std::size_t>(std::floor(h));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
    const double a = v[i];
    if (i + 1 >= v.size()) {
        return a;
    }
    const double z = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(i) + 1, v.end());
    return a + (h - static_cast<double>(i)) * (z - a);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Numbers in text

bool parseNumber(std::string_view text, double& value) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    if (!text.empty() && text.front() == '+') {
        text.remove_prefix(1);
        if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
            return false;
        }
    }
    if (text.empty()) {
        return false;
    }
    double v = 0;
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, v, std::chars_format::general);
    if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) {
        return false;
    }
    value = v;
    return true;
}

std::string formatShortest(double value) {
    if (value == 0) {
        return "0";
    }
    if (std::floor(value) == value && std::abs(value) < 1e15) {
        return std::to_string(static_cast<std::int64_t>(value));
    }
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, r.ptr);
}

// ---------------------------------------------------------------------------------------------
// Columns and tables

const char* columnKindName(ColumnKind kind) {
    return kind == ColumnKind::Numeric ? "numeric" : "text";
}

DataColumn DataColumn::numeric(std::string name, std::vector<double> values) {
    DataColumn c;
    c.name_ = std::move(name);
    c.kind_ = ColumnKind::Numeric;
    c.numbers_ = std::move(values);
    return c;
}

DataColumn DataColumn::text(std::string name, std::vector<std::string> values) {
    DataColumn c;
    c.name_ = std::move(name);
    c.kind_ = ColumnKind::Text;
    c.texts_ = std::move(values);
    return c;
}

bool DataColumn::isMissing(std::size_t row) const {
    return isNumeric() ? std::isnan(numbers_.at(row)) : texts_.at(row).empty();
}

std::size_t DataColumn::missingCount() const {
    if (isNumeric()) {
        return static_cast<std::size_t>(std::count_if(numbers_.begin(), numbers_.end(),
                                                      [](double v) { return std::isnan(v); }));
    }
    return static_cast<std::size_t>(std::count_if(texts_.begin(), texts_.end(),
                                                  [](const std::string& s) { return s.empty(); }));
}

std::string DataColumn::displayValue(std::size_t row) const {
    if (isNumeric()) {
        const double v = numbers_.at(row);
        return std::isnan(v) ? std::string() : formatShortest(v);
    }
    return texts_.at(row);
}

Expected<DataTable> DataTable::create(std::vector<DataColumn> columns) {
    if (columns.empty()) {
        return Error{"a table needs at least one column"};
    }
    std::unordered_map<std::string_view, std::size_t> seen;
    const std::size_t rows = columns.front().size();
    for (std::size_t j = 0; j < columns.size(); ++j) {
        const DataColumn& c = columns[j];
        if (c.name().empty()) {
            return Error{"column " + std::to_string(j + 1) + " has no name"};
        }
        const auto [it, fresh] = seen.emplace(c.name(), j);
        if (!fresh) {
            return Error{"the column name " + quoted(c.name()) + " is used twice (columns " +
                         std::to_string(it->second + 1) + " and " + std::to_string(j + 1) + ")"};
        }
        if (c.size() != rows) {
            return Error{"column " + quoted(c.name()) + " has " + groupThousands(c.size()) +
                         " rows, but column " + quoted(columns.front().name()) + " has " +
                         groupThousands(rows)};
        }
        if (c.isNumeric()) {
            for (std::size_t r = 0; r < rows; ++r) {
                if (std::isinf(c.numbers()[r])) {
                    return Error{"column " + quoted(c.name()) + " holds an infinite value in row " +
                                 groupThousands(r + 1) +
                                 "; values must be finite (NaN marks missing)"};
                }
            }
        }
    }
    DataTable t;
    t.columns_ = std::move(columns);
    t.rows_ = rows;
    return t;
}

const DataColumn* DataTable::find(std::string_view name) const {
    for (const auto& c : columns_) {
        if (c.name() == name) {
            return &c;
        }
    }
    return nullptr;
}

Expected<std::size_t> DataTable::indexOf(std::string_view name) const {
    for (std::size_t j = 0; j < columns_.size(); ++j) {
        if (columns_[j].name() == name) {
            return j;
        }
    }
    std::string names;
    for (std::size_t j = 0; j < columns_.size() && j < 20; ++j) {
        names += (j ? ", " : "") + quoted(columns_[j].name());
    }
    if (columns_.size() > 20) {
        names += ", … (" + groupThousands(columns_.size()) + " in all)";
    }
    return Error{"there is no column " + quoted(name) + " (columns: " + names + ")"};
}

std::vector<std::string> DataTable::columnNames() const {
    std::vector<std::string> out;
    out.reserve(columns_.size());
    for (const auto& c : columns_) {
        out.push_back(c.name());
    }
    return out;
}

const char* columnRoleName(ColumnRole role) {
    switch (role) {
        case ColumnRole::Empty:
            return "empty";
        case ColumnRole::Integer:
            return "integer";
        case ColumnRole::Continuous:
            return "continuous";
        case ColumnRole::Categorical:
            return "categorical";
    }
    return "?";
}

ColumnProfile profileColumn(const DataColumn& column) {
    ColumnProfile p;
    p.kind = column.kind();
    p.rows = column.size();
    constexpr std::size_t kCap = ColumnProfile::kDistinctLimit + 1;
    if (column.isNumeric()) {
        std::unordered_set<double> distinct;
        bool whole = true;
        bool any = false;
        for (double v : column.numbers()) {
            if (std::isnan(v)) {
                ++p.missing;
                continue;
            }
            if (!any) {
                p.min = p.max = v;
                any = true;
            }
            p.min = std::min(p.min, v);
            p.max = std::max(p.max, v);
            whole = whole && isWhole(v);
            if (distinct.size() < kCap) {
                distinct.insert(normaliseZero(v));
            }
        }
        p.distinct = distinct.size();
        p.role = !any ? ColumnRole::Empty : whole ? ColumnRole::Integer : ColumnRole::Continuous;
    } else {
        std::unordered_set<std::string_view> distinct;
        for (const std::string& s : column.texts()) {
            if (s.empty()) {
                ++p.missing;
            } else if (distinct.size() < kCap) {
                distinct.insert(s);
            }
        }
        p.distinct = distinct.size();
        p.role = p.missing == p.rows ? ColumnRole::Empty : ColumnRole::Categorical;
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// Binning

const char* binningKindName(BinningKind kind) {
    switch (kind) {
        case BinningKind::EqualWidth:
            return "equal-width";
        case BinningKind::Integer:
            return "integer";
        case BinningKind::Categories:
            return "categories";
        case BinningKind::Edges:
            return "edges";
    }
    return "?";
}

Binning Binning::equalWidth(std::int64_t k, double lo, double hi, OutOfRange outside) {
    Binning b;
    b.kind = BinningKind::EqualWidth;
    b.bins = k;
    b.lo = lo;
    b.hi = hi;
    b.outOfRange = outside;
    return b;
}

Binning Binning::integers(double lo, double hi, std::int64_t width, OutOfRange outside) {
    Binning b;
    b.kind = BinningKind::Integer;
    b.lo = lo;
    b.hi = hi;
    b.width = width;
    b.outOfRange = outside;
    return b;
}

Binning Binning::distinctValues(CategoryOrder order) {
    Binning b;
    b.kind = BinningKind::Categories;
    b.order = order;
    return b;
}

Binning Binning::fixedCategories(std::vector<std::string> list, UnknownCategory unknown) {
    Binning b;
    b.kind = BinningKind::Categories;
    b.categories = std::move(list);
    b.unknown = unknown;
    return b;
}

Binning Binning::fromEdges(std::vector<double> edges, OutOfRange outside, bool closedHi) {
    Binning b;
    b.kind = BinningKind::Edges;
    b.edges = std::move(edges);
    b.outOfRange = outside;
    b.closedHi = closedHi;
    return b;
}

Status Binning::validate() const {
    switch (kind) {
        case BinningKind::EqualWidth:
            if (bins < 1 || bins > kMaxBins) {
                return Error{"the number of bins must be between 1 and " +
                             groupThousands(kMaxBins) + ", got " + groupThousands(bins)};
            }
            if (!std::isfinite(lo) || !std::isfinite(hi)) {
                return Error{"the bin range [" + formatShortest(lo) + ", " + formatShortest(hi) +
                             "] must have finite ends"};
            }
            if (!(lo < hi)) {
                return Error{"the bin range [" + formatShortest(lo) + ", " + formatShortest(hi) +
                             "] is empty: the lower end must be below the upper end"};
            }
            return okStatus();
        case BinningKind::Integer: {
            for (double v : {lo, hi}) {
                if (!std::isfinite(v) || std::floor(v) != v || std::abs(v) > kMaxWholeNumber) {
                    return Error{
                        "integer bins need whole-number ends of at most 1e15 in size, "
                        "got " +
                        formatShortest(v)};
                }
            }
            if (lo > hi) {
                return Error{"the integer range " + formatShortest(lo) + " to " +
                             formatShortest(hi) +
                             " is empty: the lower end must not be above the upper end"};
            }
            if (width < 1) {
                return Error{"the width of integer bins must be at least 1, got " +
                             groupThousands(width)};
            }
            const auto span = static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo) + 1;
            const std::int64_t nb = span / width + (span % width != 0 ? 1 : 0);
            if (nb > kMaxBins) {
                return Error{"integer bins from " + formatShortest(lo) + " to " +
                             formatShortest(hi) + " in steps of " + groupThousands(width) +
                             " make " + groupThousands(nb) + " bins; at most " +
                             groupThousands(kMaxBins) +
                             " are allowed (use a larger width or equal-width bins)"};
            }
            return okStatus();
        }
        case BinningKind::Categories: {
            if (categories.size() > static_cast<std::size_t>(kMaxBins)) {
                return Error{"the category list has " + groupThousands(categories.size()) +
                             " entries; at most " + groupThousands(kMaxBins) + " are allowed"};
            }
            for (std::size_t i = 0; i < categories.size(); ++i) {
                if (categories[i].empty()) {
                    return Error{"entry " + std::to_string(i + 1) +
                                 " of the category list is empty (an empty value means "
                                 "missing and cannot be a category)"};
                }
            }
            if (unknown != UnknownCategory::Drop && categories.empty()) {
                return Error{
                    "an 'other' bin or an error for unknown categories needs a fixed category "
                    "list (without one, every value gets its own bin)"};
            }
            if (unknown == UnknownCategory::Other &&
                std::find(categories.begin(), categories.end(), "other") != categories.end()) {
                return Error{
                    "the category list already has an entry 'other', so it cannot also get an "
                    "'other' bin for the values not in the list"};
            }
            return okStatus();
        }
        case BinningKind::Edges: {
            if (edges.size() < 2) {
                return Error{"bin edges need at least two values (one bin), got " +
                             std::to_string(edges.size())};
            }
            if (edges.size() - 1 > static_cast<std::size_t>(kMaxBins)) {
                return Error{"bin edges make " + groupThousands(edges.size() - 1) +
                             " bins; at most " + groupThousands(kMaxBins) + " are allowed"};
            }
            for (std::size_t i = 0; i < edges.size(); ++i) {
                if (!std::isfinite(edges[i])) {
                    return Error{"bin edge " + std::to_string(i + 1) + " is " +
                                 formatShortest(edges[i]) + "; edges must be finite"};
                }
                if (i > 0 && !(edges[i] > edges[i - 1])) {
                    return Error{"bin edges must be strictly increasing, but edge " +
                                 std::to_string(i + 1) + " (" + formatShortest(edges[i]) +
                                 ") is not above edge " + std::to_string(i) + " (" +
                                 formatShortest(edges[i - 1]) + ")"};
                }
            }
            return okStatus();
        }
    }
    return Error{"unknown binning kind"};
}

std::string Binning::describe() const {
    switch (kind) {
        case BinningKind::EqualWidth: {
            std::string s = plural(bins, "equal-width bin", "equal-width bins") + " on [" +
                            formatShortest(lo) + ", " + formatShortest(hi) + (closedHi ? "]" : ")");
            return s + (outOfRange == OutOfRange::Clamp ? ", values outside counted in the end bins"
                                                        : ", values outside dropped");
        }
        case BinningKind::Integer: {
            std::string s = width == 1
                                ? "one bin per whole number from " + formatShortest(lo) + " to " +
                                      formatShortest(hi)
                                : "whole numbers from " + formatShortest(lo) + " to " +
                                      formatShortest(hi) + " in groups of " + groupThousands(width);
            return s + (outOfRange == OutOfRange::Clamp ? ", values outside counted in the end bins"
                                                        : ", values outside dropped");
        }
        case BinningKind::Edges: {
            std::string s = plural(static_cast<std::int64_t>(edges.size()) - 1, "bin", "bins") +
                            " between the edges " +
                            (edges.empty() ? std::string() : formatShortest(edges.front())) +
                            " … " + (edges.empty() ? std::string() : formatShortest(edges.back())) +
                            (closedHi ? " (last bin closed)" : "");
            return s + (outOfRange == OutOfRange::Clamp ? ", values outside counted in the end bins"
                                                        : ", values outside dropped");
        }
        case BinningKind::Categories:
            if (!categories.empty()) {
                return plural(static_cast<std::int64_t>(categories.size()), "fixed category",
                              "fixed categories") +
                       (unknown == UnknownCategory::Other   ? ", other values counted in 'other'"
                        : unknown == UnknownCategory::Error ? ", other values are an error"
                                                            : ", other values dropped");
            }
            return order == CategoryOrder::Sorted
                       ? "one bin per distinct value, sorted"
                       : "one bin per distinct value, in order of first appearance";
    }
    return "?";
}

std::string BinningReport::describe() const {
    std::string s = groupThousands(used) + " of " + plural(rows, "row", "rows") + " counted";
    auto add = [&](std::int64_t n, const char* what) {
        if (n > 0) {
            s += "; " + plural(n, "value", "values") + " " + what;
        }
    };
    if (missing > 0) {
        s += "; " + plural(missing, "missing value", "missing values") + " skipped";
    }
    add(clampedLow, "below the range counted in the first bin");
    add(clampedHigh, "above the range counted in the last bin");
    add(droppedLow, "below the range dropped");
    add(droppedHigh, "above the range dropped");
    add(unknownCategories, "not in the category list dropped");
    add(otherCategories, "not in the category list counted in 'other'");
    return s + ".";
}

Expected<BinLayout> binLayout(const Binning& binning) {
    if (auto ok = binning.validate(); !ok) {
        return ok.error();
    }
    BinLayout l;
    l.kind = binning.kind;
    l.closedHi = binning.closedHi;
    switch (binning.kind) {
        case BinningKind::EqualWidth:
        case BinningKind::Edges: {
            if (binning.kind == BinningKind::EqualWidth) {
                auto e = equalWidthEdges(binning.lo, binning.hi, binning.bins);
                if (!e) {
                    return e.error();
                }
                l.edges = std::move(e).value();
            } else {
                l.edges = binning.edges;
            }
            l.bins = l.edges.size() - 1;
            const std::vector<std::string> text = formatEdges(l.edges);
            l.labels.resize(l.bins);
            for (std::size_t i = 0; i < l.bins; ++i) {
                const bool closed = i + 1 == l.bins && binning.closedHi;
                l.labels[i] = "[" + text[i] + ", " + text[i + 1] + (closed ? "]" : ")");
            }
            return l;
        }
        case BinningKind::Integer: {
            const auto lo = static_cast<std::int64_t>(binning.lo);
            const auto hi = static_cast<std::int64_t>(binning.hi);
            const std::int64_t w = binning.width;
            const std::int64_t span = hi - lo + 1;
            const std::int64_t nb = span / w + (span % w != 0 ? 1 : 0);
            l.bins = static_cast<std::size_t>(nb);
            l.closedHi = false;  // whole numbers: [a, a + w) holds a … a + w − 1
            l.labels.resize(l.bins);
            l.edges.resize(l.bins + 1);
            for (std::int64_t i = 0; i < nb; ++i) {
                const std::int64_t a = lo + i * w;
                const std::int64_t z = std::min(hi, a + (w - 1));
                l.labels[static_cast<std::size_t>(i)] = rangeLabel(a, z);
                l.edges[static_cast<std::size_t>(i)] = static_cast<double>(a);
            }
            l.edges.back() = static_cast<double>(hi) + 1;
            return l;
        }
        case BinningKind::Categories:
            l.closedHi = false;
            l.labels = binning.categories;
            if (binning.unknown == UnknownCategory::Other) {
                l.labels.emplace_back("other");
                l.otherBin = true;
            }
            l.bins = l.labels.size();
            return l;
    }
    return Error{"unknown binning kind"};
}

Expected<Binner> Binner::create(const Binning& binning, ColumnKind kind, std::string subject,
                                std::string rowNoun) {
    auto layout = binLayout(binning);
    if (!layout) {
        return layout.error();
    }
    if (kind == ColumnKind::Text && binning.kind != BinningKind::Categories) {
        return Error{subject + " holds text; " + binningKindName(binning.kind) +
                     " bins need a numeric column (use categories)"};
    }
    Binner b;
    b.binning_ = binning;
    b.kind_ = kind;
    b.subject_ = std::move(subject);
    b.rowNoun_ = std::move(rowNoun);
    b.layout_ = std::move(layout).value();
    b.counts_.assign(b.layout_.bins, 0);
    if (binning.kind == BinningKind::EqualWidth) {
        b.kd_ = static_cast<double>(binning.bins);
        b.scale_ = b.kd_ / (binning.hi * 0.5 - binning.lo * 0.5);
    }
    if (binning.kind == BinningKind::Categories) {
        for (const auto& c : binning.categories) {
            if (kind == ColumnKind::Numeric) {
                double v = 0;
                if (!parseNumber(c, v)) {
                    return Error{"the category " + quoted(c) + " is not a number, but " +
                                 b.subject_ + " is numeric"};
                }
                if (!b.numberIndex_.emplace(normaliseZero(v), b.numberKeys_.size()).second) {
                    return Error{"the category list has the value " + formatShortest(v) + " twice"};
                }
                b.numberKeys_.push_back(normaliseZero(v));
            } else {
                if (b.textIndex_.find(c, b.textKeys_) != TextIndex::kNone) {
                    return Error{"the category list has " + quoted(c) + " twice"};
                }
                b.textIndex_.insert(c, static_cast<std::uint32_t>(b.textKeys_.size()));
                b.textKeys_.push_back(c);
            }
        }
    }
    return b;
}

void Binner::addMissing() {
    ++report_.rows;
    ++report_.missing;
}

std::size_t Binner::fail(Error error) {
    failure_ = std::move(error);
    return kFailed;
}

// The messages of binNumberOrFail, out of line: the per-value path stays small (perf showed its
// frame and register saves, made for building these strings, among the costs of every value).
std::size_t Binner::failWith(const char* message, bool withSubject) {
    return fail(Error{(withSubject ? subject_ : std::string()) + message});
}

std::size_t Binner::failNotWhole(double x, std::int64_t row) {
    return fail(Error{subject_ + " holds " + formatShortest(x) + " in " + rowNoun_ + " " +
                      groupThousands(row) +
                      ", which is not a whole number; integer bins need whole numbers (use "
                      "equal-width bins)"});
}

Error Binner::tooManyCategories() const {
    return Error{subject_ + " has more than " + groupThousands(kMaxBins) +
                 " distinct values, too many to give each its own bin (use equal-width bins, or "
                 "a fixed category list)"};
}

std::size_t Binner::unknownCategory(std::string_view shown, std::int64_t row) {
    switch (binning_.unknown) {
        case UnknownCategory::Drop:
            ++report_.unknownCategories;
            return kNotCounted;
        case UnknownCategory::Other:
            ++report_.otherCategories;
            return counts_.size() - 1;
        case UnknownCategory::Error:
            break;
    }
    return fail(Error{subject_ + " holds " + quoted(shown) + " in " + rowNoun_ + " " +
                      groupThousands(row) +
                      ", which is not in the category list (declare it, or let "
                      "values outside the list go to an 'other' bin or be dropped)"});
}

std::size_t Binner::categoryBin(double x, std::int64_t row) {
    const double key = normaliseZero(x);
    const auto it = numberIndex_.find(key);
    if (it != numberIndex_.end()) {
        return it->second;
    }
    if (!binning_.categories.empty()) {
        return unknownCategory(formatShortest(key), row);
    }
    if (numberKeys_.size() == static_cast<std::size_t>(kMaxBins)) {
        return fail(tooManyCategories());
    }
    numberIndex_.emplace(key, numberKeys_.size());
    numberKeys_.push_back(key);
    counts_.push_back(0);
    return counts_.size() - 1;
}

Status Binner::count(std::size_t bin) {
    if (bin < kFailed) {
        ++counts_[bin];
        return okStatus();
    }
    if (bin == kFailed) {
        return failure_;
    }
    return okStatus();
}

Expected<std::size_t> Binner::result(std::size_t bin) const {
    if (bin == kFailed) {
        return failure_;
    }
    return bin;
}

Status Binner::addNumber(double x, std::int64_t row) {
    return count(binNumberOrFail(x, row));
}

Expected<std::size_t> Binner::binNumber(double x, std::int64_t row) {
    return result(binNumberOrFail(x, row));
}

Status Binner::addText(std::string_view s, std::int64_t row) {
    return count(binTextOrFail(s, row));
}

Expected<std::size_t> Binner::binText(std::string_view s, std::int64_t row) {
    return result(binTextOrFail(s, row));
}

// A text that is not (yet) a category: the part of binTextOrFail past the index lookup.
std::size_t Binner::textNotFound(std::string_view s, std::int64_t row) {
    if (!binning_.categories.empty()) {
        return unknownCategory(s, row);
    }
    if (textKeys_.size() == static_cast<std::size_t>(kMaxBins)) {
        return fail(tooManyCategories());
    }
    textIndex_.insert(s, static_cast<std::uint32_t>(textKeys_.size()));
    textKeys_.emplace_back(s);
    counts_.push_back(0);
    return counts_.size() - 1;
}

Status Binner::merge(const Binner& later, std::vector<std::size_t>* binMap) {
    if (later.kind_ != kind_ || later.layout_.bins != layout_.bins ||
        later.binning_.kind != binning_.kind) {
        return Error{"internal error: merging the counts of different binnings"};
    }
    if (binMap) {
        binMap->resize(later.counts_.size());
    }
    if (binning_.kind == BinningKind::Categories && binning_.categories.empty()) {
        // Categories from the data: the later binner's new values follow ours, in its order.
        for (std::size_t i = 0; i < later.counts_.size(); ++i) {
            std::size_t at = 0;
            if (kind_ == ColumnKind::Numeric) {
                const double key = later.numberKeys_[i];
                const auto it = numberIndex_.find(key);
                if (it == numberIndex_.end()) {
                    if (numberKeys_.size() == static_cast<std::size_t>(kMaxBins)) {
                        return tooManyCategories();
                    }
                    at = numberKeys_.size();
                    numberIndex_.emplace(key, at);
                    numberKeys_.push_back(key);
                    counts_.push_back(0);
                } else {
                    at = it->second;
                }
            } else {
                const std::string& key = later.textKeys_[i];
                const std::uint32_t bin = textIndex_.find(key, textKeys_);
                if (bin == TextIndex::kNone) {
                    if (textKeys_.size() == static_cast<std::size_t>(kMaxBins)) {
                        return tooManyCategories();
                    }
                    at = textKeys_.size();
                    textIndex_.insert(key, static_cast<std::uint32_t>(at));
                    textKeys_.push_back(key);
                    counts_.push_back(0);
                } else {
                    at = bin;
                }
            }
            counts_[at] += later.counts_[i];
            if (binMap) {
                (*binMap)[i] = at;
            }
        }
    } else {
        for (std::size_t i = 0; i < counts_.size(); ++i) {
            counts_[i] += later.counts_[i];
            if (binMap) {
                (*binMap)[i] = i;
            }
        }
    }
    BinningReport& r = report_;
    const BinningReport& o = later.report_;
    r.rows += o.rows;
    r.missing += o.missing;
    r.clampedLow += o.clampedLow;
    r.clampedHigh += o.clampedHigh;
    r.droppedLow += o.droppedLow;
    r.droppedHigh += o.droppedHigh;
    r.unknownCategories += o.unknownCategories;
    r.otherCategories += o.otherCategories;
    if (o.numbers > 0) {
        r.min = r.numbers > 0 ? std::min(r.min, o.min) : o.min;
        r.max = r.numbers > 0 ? std::max(r.max, o.max) : o.max;
        r.numbers += o.numbers;
    }
    return okStatus();
}

std::vector<std::size_t> Binner::binOrder() const {
    std::vector<std::size_t> order(counts_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (binning_.kind == BinningKind::Categories && binning_.categories.empty() &&
        binning_.order == CategoryOrder::Sorted) {
        if (kind_ == ColumnKind::Numeric) {
            std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) {
                return numberKeys_[a] < numberKeys_[c];
            });
        } else {
            std::sort(order.begin(), order.end(),
                      [&](std::size_t a, std::size_t c) { return textKeys_[a] < textKeys_[c]; });
        }
    }
    return order;
}

std::vector<std::size_t> Binner::finalBins() const {
    const std::vector<std::size_t> order = binOrder();
    std::vector<std::size_t> final(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        final[order[i]] = i;
    }
    return final;
}

Expected<BinnedColumn> Binner::finish() const {
    std::vector<std::int64_t> counts = counts_;
    std::vector<std::string> labels = layout_.labels;
    if (binning_.kind == BinningKind::Categories && binning_.categories.empty()) {
        const std::size_t n = counts.size();
        if (n == 0) {
            return Error{subject_ +
                         " has only missing values, so there are no categories to make bins of"};
        }
        const std::vector<std::size_t> order = binOrder();
        labels.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            counts[i] = counts_[order[i]];
            labels[i] = kind_ == ColumnKind::Numeric ? formatShortest(numberKeys_[order[i]])
                                                     : textKeys_[order[i]];
        }
    }
    BinningReport rep = report_;
    rep.used = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
    std::vector<double> edges =
        binning_.kind == BinningKind::Categories ? std::vector<double>{} : layout_.edges;
    auto h = makeHistogram(std::move(counts), std::move(labels), std::move(edges));
    if (!h) {
        return h.error();
    }
    return BinnedColumn{std::move(h).value(), rep};
}

Expected<BinnedColumn> binColumn(const DataColumn& column, const Binning& binning) {
    auto binner = Binner::create(binning, column.kind(), columnRef(column), "row");
    if (!binner) {
        return binner.error();
    }
    if (column.isNumeric()) {
        const auto& v = column.numbers();
        for (std::size_t r = 0; r < v.size(); ++r) {
            if (auto ok = binner->addNumber(v[r], static_cast<std::int64_t>(r + 1)); !ok) {
                return ok.error();
            }
        }
    } else {
        const auto& v = column.texts();
        for (std::size_t r = 0; r < v.size(); ++r) {
            if (auto ok = binner->addText(v[r], static_cast<std::int64_t>(r + 1)); !ok) {
                return ok.error();
            }
        }
    }
    return binner->finish();
}

Expected<BinnedColumn> binColumn(const DataTable& table, std::string_view column,
                                 const Binning& binning) {
    const auto j = table.indexOf(column);
    if (!j) {
        return j.error();
    }
    return binColumn(table.column(*j), binning);
}

namespace {

Expected<double> specNumber(std::string_view text, std::string_view what, std::string_view spec) {
    double v = 0;
    if (!parseNumber(text, v)) {
        return Error{"the bin spec " + quoted(spec) + " has " + quoted(text) + " as " +
                     std::string(what) + ", which is not a finite number"};
    }
    return v;
}

Expected<std::int64_t> specWhole(std::string_view text, std::string_view what,
                                 std::string_view spec) {
    auto v = specNumber(text, what, spec);
    if (!v) {
        return v.error();
    }
    if (std::floor(*v) != *v || std::abs(*v) > kMaxWholeNumber) {
        return Error{"the bin spec " + quoted(spec) + " has " + quoted(text) + " as " +
                     std::string(what) + ", which is not a whole number"};
    }
    return static_cast<std::int64_t>(*v);
}

}  // namespace

Expected<Binning> parseBinSpec(std::string_view spec) {
    const std::string_view whole = trimBlanks(spec);
    const std::vector<std::string_view> parts = splitTrimmed(whole, ';');
    const std::string_view body = parts.front();
    const std::string help =
        " (expected LO:HI:COUNT, edges:E1,E2,..., integers:LO:HI[:WIDTH], categories:A,B,... or "
        "categories, optionally followed by ;closed ;clamp ;other ;error)";
    if (body.empty()) {
        return Error{"the bin spec " + quoted(whole) + " is empty" + help};
    }
    Binning b;
    const auto colon = body.find(':');
    const std::string_view head = trimBlanks(body.substr(0, colon));
    const std::string_view rest =
        colon == std::string_view::npos ? std::string_view() : body.substr(colon + 1);
    if (head == "categories") {
        b = Binning::distinctValues(CategoryOrder::Sorted);
        if (colon != std::string_view::npos) {
            for (std::string_view c : splitTrimmed(rest, ',')) {
                b.categories.emplace_back(c);
            }
        }
    } else if (head == "edges") {
        b.kind = BinningKind::Edges;
        b.closedHi = false;
        std::size_t i = 0;
        for (std::string_view e : splitTrimmed(rest, ',')) {
            auto v = specNumber(e, "edge " + std::to_string(++i), whole);
            if (!v) {
                return v.error();
            }
            b.edges.push_back(*v);
        }
    } else if (head == "integers") {
        const auto f = splitTrimmed(rest, ':');
        if (colon == std::string_view::npos || f.size() < 2 || f.size() > 3) {
            return Error{"the bin spec " + quoted(whole) +
                         " needs integers:LO:HI or integers:LO:HI:WIDTH"};
        }
        auto lo = specWhole(f[0], "LO", whole);
        auto hi = lo ? specWhole(f[1], "HI", whole) : lo;
        auto w = hi && f.size() == 3 ? specWhole(f[2], "WIDTH", whole) : Expected<std::int64_t>(1);
        for (const auto* v : {&lo, &hi, &w}) {
            if (!*v) {
                return v->error();
            }
        }
        b = Binning::integers(static_cast<double>(*lo), static_cast<double>(*hi), *w);
    } else {
        const auto f = splitTrimmed(body, ':');
        if (f.size() != 3) {
            return Error{"the bin spec " + quoted(whole) + " is not understood" + help};
        }
        auto lo = specNumber(f[0], "LO", whole);
        auto hi = lo ? specNumber(f[1], "HI", whole) : lo;
        if (!lo || !hi) {
            return (!lo ? lo : hi).error();
        }
        auto k = specWhole(f[2], "COUNT", whole);
        if (!k) {
            return k.error();
        }
        b = Binning::equalWidth(*k, *lo, *hi);
        b.closedHi = false;
    }
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string_view m = parts[i];
        const bool numeric = b.kind != BinningKind::Categories;
        const bool range = b.kind == BinningKind::EqualWidth || b.kind == BinningKind::Edges;
        if (m == "closed" && range) {
            b.closedHi = true;
        } else if (m == "clamp" && numeric) {
            b.outOfRange = OutOfRange::Clamp;
        } else if (m == "other" && !numeric) {
            b.unknown = UnknownCategory::Other;
        } else if (m == "error" && !numeric) {
            b.unknown = UnknownCategory::Error;
        } else {
            return Error{"the bin spec " + quoted(whole) + " has the modifier " + quoted(m) +
                         ", which does not apply to " + binningKindName(b.kind) +
                         " bins (closed: equal-width and edges; clamp: numeric bins; other, "
                         "error: a category list)"};
        }
    }
    if (auto ok = b.validate(); !ok) {
        return Error{"the bin spec " + quoted(whole) + ": " + ok.error().message};
    }
    return b;
}

Expected<Binning> suggestBinning(const DataColumn& column) {
    if (!column.isNumeric()) {
        std::unordered_set<std::string_view> distinct;
        for (const std::string& s : column.texts()) {
            if (!s.empty()) {
                distinct.insert(s);
                if (distinct.size() > static_cast<std::size_t>(kMaxBins)) {
                    return tooManyCategories(column);
                }
            }
        }
        if (distinct.empty()) {
            return noCategories(column);
        }
        return Binning::distinctValues(CategoryOrder::Sorted);
    }
    std::vector<double> v;
    v.reserve(column.size());
    bool whole = true;
    for (double x : column.numbers()) {
        if (!std::isnan(x)) {
            v.push_back(x);
            whole = whole && isWhole(x);
        }
    }
    if (v.empty()) {
        return Error{columnRef(column) + " has only missing values, so there is nothing to bin"};
    }
    const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    const double lo = *mn;
    const double hi = *mx;
    constexpr double kMaxSuggested = 4096;
    if (whole && hi - lo < 200) {
        return Binning::integers(lo, hi, 1);
    }
    const double n = static_cast<double>(v.size());
    const double iqr = quantile(v, 0.75) - quantile(v, 0.25);
    const double h = 2 * iqr / std::cbrt(n);  // Freedman–Diaconis bin width
    if (whole) {
        const double span = hi - lo + 1;  // whole numbers in [lo, hi]
        double w = iqr > 0 ? std::ceil(h) : std::ceil(span / std::ceil(std::sqrt(n)));
        w = std::max(w, 1.0);
        if (std::ceil(span / w) > kMaxSuggested) {
            w = std::ceil(span / kMaxSuggested);
        }
        return Binning::integers(lo, hi, static_cast<std::int64_t>(w));
    }
    if (!(hi > lo)) {
        const double d = std::max(0.5, std::abs(lo) * 0x1p-40);
        return Binning::equalWidth(1, lo - d, lo + d);
    }
    double k = iqr > 0 ? std::ceil((hi - lo) / h) : std::ceil(std::sqrt(n));
    if (!(k >= 1)) {
        k = 1;
    }
    auto bins = static_cast<std::int64_t>(std::min(k, kMaxSuggested));
    // A range only a few ulps wide cannot hold many distinct edges: halve k until it can.
    while (bins > 1 && !equalWidthEdges(lo, hi, bins)) {
        bins = (bins + 1) / 2;
    }
    return Binning::equalWidth(bins, lo, hi);
}

}  // namespace dpx
