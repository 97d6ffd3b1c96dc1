#include "core/dataset.h"
#include "core/validation.h"

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

// Bin of x ∈ [lo, hi]: the i with e_i ≤ x < e_{i+1}, the last bin closed. The arithmetic guess is
// corrected against the edges themselves, so a value equal to an edge lands in the bin that the
// edge opens, and no value lands beyond the last bin.
std::size_t equalWidthIndex(double x, const std::vector<double>& e, double lo, double halfSpan,
                            double kd) {
    const std::size_t k = e.size() - 1;
    const double t = (x * 0.5 - lo * 0.5) / halfSpan * kd;
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

Expected<BinnedColumn> binEqualWidth(const DataColumn& col, const Binning& b) {
    auto edges = equalWidthEdges(b.lo, b.hi, b.bins);
    if (!edges) {
        return edges.error();
    }
    const std::vector<double>& e = *edges;
    const std::size_t k = static_cast<std::size_t>(b.bins);
    std::vector<std::int64_t> counts(k, 0);
    BinningReport rep;
    rep.rows = static_cast<std::int64_t>(col.size());
    const double halfSpan = b.hi * 0.5 - b.lo * 0.5;
    const double kd = static_cast<double>(b.bins);
    const bool clamp = b.outOfRange == OutOfRange::Clamp;
    for (double x : col.numbers()) {
        if (std::isnan(x)) {
            ++rep.missing;
        } else if (x < b.lo) {
            if (clamp) {
                ++rep.clampedLow;
                ++counts.front();
            } else {
                ++rep.droppedLow;
            }
        } else if (x > b.hi) {
            if (clamp) {
                ++rep.clampedHigh;
                ++counts.back();
            } else {
                ++rep.droppedHigh;
            }
        } else {
            ++counts[equalWidthIndex(x, e, b.lo, halfSpan, kd)];
        }
    }
    const std::vector<std::string> text = formatEdges(e);
    std::vector<std::string> labels(k);
    for (std::size_t i = 0; i < k; ++i) {
        labels[i] = "[" + text[i] + ", " + text[i + 1] + (i + 1 == k ? "]" : ")");
    }
    rep.used = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
    auto h = makeHistogram(std::move(counts), std::move(labels), e);
    if (!h) {
        return h.error();
    }
    return BinnedColumn{std::move(h).value(), rep};
}

// --- integer --------------------------------------------------------------------------------

Expected<BinnedColumn> binIntegers(const DataColumn& col, const Binning& b) {
    const auto lo = static_cast<std::int64_t>(b.lo);
    const auto hi = static_cast<std::int64_t>(b.hi);
    const std::int64_t w = b.width;
    const std::int64_t span = hi - lo + 1;
    const std::int64_t nb = span / w + (span % w != 0 ? 1 : 0);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(nb), 0);
    BinningReport rep;
    rep.rows = static_cast<std::int64_t>(col.size());
    const bool clamp = b.outOfRange == OutOfRange::Clamp;
    const auto& v = col.numbers();
    for (std::size_t r = 0; r < v.size(); ++r) {
        const double x = v[r];
        if (std::isnan(x)) {
            ++rep.missing;
            continue;
        }
        if (std::floor(x) != x) {
            return Error{columnRef(col) + " holds " + formatShortest(x) + " in row " +
                         groupThousands(r + 1) +
                         ", which is not a whole number; integer bins need whole numbers (use "
                         "equal-width bins)"};
        }
        if (x < b.lo) {
            if (clamp) {
                ++rep.clampedLow;
                ++counts.front();
            } else {
                ++rep.droppedLow;
            }
        } else if (x > b.hi) {
            if (clamp) {
                ++rep.clampedHigh;
                ++counts.back();
            } else {
                ++rep.droppedHigh;
            }
        } else {
            ++counts[static_cast<std::size_t>((static_cast<std::int64_t>(x) - lo) / w)];
        }
    }
    std::vector<std::string> labels(static_cast<std::size_t>(nb));
    std::vector<double> edges(static_cast<std::size_t>(nb) + 1);
    for (std::int64_t i = 0; i < nb; ++i) {
        const std::int64_t a = lo + i * w;
        const std::int64_t z = std::min(hi, a + (w - 1));
        labels[static_cast<std::size_t>(i)] = rangeLabel(a, z);
        edges[static_cast<std::size_t>(i)] = static_cast<double>(a);
    }
    edges.back() = static_cast<double>(hi) + 1;
    rep.used = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
    auto h = makeHistogram(std::move(counts), std::move(labels), std::move(edges));
    if (!h) {
        return h.error();
    }
    return BinnedColumn{std::move(h).value(), rep};
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

Expected<BinnedColumn> binCategories(const DataColumn& col, const Binning& b) {
    BinningReport rep;
    rep.rows = static_cast<std::int64_t>(col.size());
    std::vector<std::int64_t> counts;
    std::vector<std::string> labels;
    const bool fixed = !b.categories.empty();

    if (col.isNumeric()) {
        std::unordered_map<double, std::size_t> index;
        std::vector<double> keys;
        if (fixed) {
            for (const auto& c : b.categories) {
                double v = 0;
                if (!parseNumber(c, v)) {
                    return Error{"the category " + quoted(c) + " is not a number, but " +
                                 columnRef(col) + " is numeric"};
                }
                if (!index.emplace(normaliseZero(v), keys.size()).second) {
                    return Error{"the category list has the value " + formatShortest(v) + " twice"};
                }
                keys.push_back(normaliseZero(v));
            }
            labels = b.categories;
            counts.assign(keys.size(), 0);
        }
        for (double x : col.numbers()) {
            if (std::isnan(x)) {
                ++rep.missing;
                continue;
            }
            const auto it = index.find(normaliseZero(x));
            if (it != index.end()) {
                ++counts[it->second];
            } else if (fixed) {
                ++rep.unknownCategories;
            } else {
                if (keys.size() == static_cast<std::size_t>(kMaxBins)) {
                    return tooManyCategories(col);
                }
                index.emplace(normaliseZero(x), keys.size());
                keys.push_back(normaliseZero(x));
                counts.push_back(1);
            }
        }
        if (!fixed) {
            std::vector<std::size_t> order(keys.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            if (b.order == CategoryOrder::Sorted) {
                std::sort(order.begin(), order.end(),
                          [&](std::size_t a, std::size_t c) { return keys[a] < keys[c]; });
            }
            std::vector<std::int64_t> sorted(keys.size());
            labels.resize(keys.size());
            for (std::size_t i = 0; i < order.size(); ++i) {
                sorted[i] = counts[order[i]];
                labels[i] = formatShortest(keys[order[i]]);
            }
            counts = std::move(sorted);
        }
    } else {
        std::unordered_map<std::string_view, std::size_t> index;
        std::vector<std::string_view> keys;
        if (fixed) {
            for (const auto& c : b.categories) {
                if (!index.emplace(c, keys.size()).second) {
                    return Error{"the category list has " + quoted(c) + " twice"};
                }
                keys.emplace_back(c);
            }
            labels = b.categories;
            counts.assign(keys.size(), 0);
        }
        for (const std::string& s : col.texts()) {
            if (s.empty()) {
                ++rep.missing;
                continue;
            }
            const auto it = index.find(s);
            if (it != index.end()) {
                ++counts[it->second];
            } else if (fixed) {
                ++rep.unknownCategories;
            } else {
                if (keys.size() == static_cast<std::size_t>(kMaxBins)) {
                    return tooManyCategories(col);
                }
                index.emplace(s, keys.size());
                keys.emplace_back(s);
                counts.push_back(1);
            }
        }
        if (!fixed) {
            std::vector<std::size_t> order(keys.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            if (b.order == CategoryOrder::Sorted) {
                std::sort(order.begin(), order.end(),
                          [&](std::size_t a, std::size_t c) { return keys[a] < keys[c]; });
            }
            std::vector<std::int64_t> sorted(keys.size());
            labels.resize(keys.size());
            for (std::size_t i = 0; i < order.size(); ++i) {
                sorted[i] = counts[order[i]];
                labels[i] = std::string(keys[order[i]]);
            }
            counts = std::move(sorted);
        }
    }
    if (counts.empty()) {
        return noCategories(col);
    }
    rep.used = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
    auto h = makeHistogram(std::move(counts), std::move(labels), {});
    if (!h) {
        return h.error();
    }
    return BinnedColumn{std::move(h).value(), rep};
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
                                 groupThousands(r + 1) + "; values must be finite (NaN marks missing)"};
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

Binning Binning::fixedCategories(std::vector<std::string> list) {
    Binning b;
    b.kind = BinningKind::Categories;
    b.categories = std::move(list);
    return b;
}

Status Binning::validate() const {
    switch (kind) {
        case BinningKind::EqualWidth:
            if (bins < 1 || bins > kMaxBins) {
                return Error{"the number of bins must be between 1 and " + groupThousands(kMaxBins) +
                             ", got " + groupThousands(bins)};
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
                return Error{"the width of integer bins must be at least 1, got " + groupThousands(width)};
            }
            const auto span = static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo) + 1;
            const std::int64_t nb = span / width + (span % width != 0 ? 1 : 0);
            if (nb > kMaxBins) {
                return Error{"integer bins from " + formatShortest(lo) + " to " +
                             formatShortest(hi) + " in steps of " + groupThousands(width) + " make " +
                             groupThousands(nb) + " bins; at most " + groupThousands(kMaxBins) +
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
            return okStatus();
        }
    }
    return Error{"unknown binning kind"};
}

std::string Binning::describe() const {
    switch (kind) {
        case BinningKind::EqualWidth: {
            std::string s = plural(bins, "equal-width bin", "equal-width bins") + " on [" +
                            formatShortest(lo) + ", " + formatShortest(hi) + "]";
            return s + (outOfRange == OutOfRange::Clamp ? ", values outside counted in the end bins"
                                                        : ", values outside dropped");
        }
        case BinningKind::Integer: {
            std::string s = width == 1 ? "one bin per whole number from " + formatShortest(lo) +
                                             " to " + formatShortest(hi)
                                       : "whole numbers from " + formatShortest(lo) + " to " +
                                             formatShortest(hi) + " in groups of " + groupThousands(width);
            return s + (outOfRange == OutOfRange::Clamp ? ", values outside counted in the end bins"
                                                        : ", values outside dropped");
        }
        case BinningKind::Categories:
            if (!categories.empty()) {
                return plural(static_cast<std::int64_t>(categories.size()), "fixed category",
                              "fixed categories") +
                       ", other values dropped";
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
    return s + ".";
}

Expected<BinnedColumn> binColumn(const DataColumn& column, const Binning& binning) {
    if (auto ok = binning.validate(); !ok) {
        return ok.error();
    }
    if (!column.isNumeric() && binning.kind != BinningKind::Categories) {
        return Error{columnRef(column) + " holds text; " + binningKindName(binning.kind) +
                     " bins need a numeric column (use categories)"};
    }
    switch (binning.kind) {
        case BinningKind::EqualWidth:
            return binEqualWidth(column, binning);
        case BinningKind::Integer:
            return binIntegers(column, binning);
        case BinningKind::Categories:
            return binCategories(column, binning);
    }
    return Error{"unknown binning kind"};
}

Expected<BinnedColumn> binColumn(const DataTable& table, std::string_view column,
                                 const Binning& binning) {
    const auto j = table.indexOf(column);
    if (!j) {
        return j.error();
    }
    return binColumn(table.column(*j), binning);
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
