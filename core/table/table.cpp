#include "core/table/table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/histogram/dataset.h"  // kMaxBins

namespace dpx {

namespace {

constexpr CellCount kMaxCells = CellCount{1} << 64;

std::string indexText(std::uint64_t i) {
    return std::to_string(i);
}

}  // namespace

std::string cellCountText(CellCount cells) {
    if (cells == 0)
        return "0";
    std::string s;
    while (cells > 0) {
        s.push_back(static_cast<char>('0' + static_cast<int>(cells % 10)));
        cells /= 10;
    }
    std::reverse(s.begin(), s.end());
    return s;
}

double cellCountDouble(CellCount cells) {
    return static_cast<double>(cells);
}

Status Attribute::validate() const {
    if (name.empty())
        return Error{"an attribute needs a name"};
    if (labels.empty())
        return Error{"attribute '" + name + "' has no bins"};
    if (labels.size() > kMaxAttributeBins) {
        return Error{"attribute '" + name + "' has " + std::to_string(labels.size()) +
                     " bins; at most " + std::to_string(kMaxAttributeBins) + " are allowed"};
    }
    if (!edges.empty()) {
        if (edges.size() != labels.size() + 1) {
            return Error{"attribute '" + name + "' has " + std::to_string(labels.size()) +
                         " bins but " + std::to_string(edges.size()) + " edges (expected " +
                         std::to_string(labels.size() + 1) + ")"};
        }
        for (std::size_t i = 0; i < edges.size(); ++i) {
            if (!std::isfinite(edges[i]) || (i > 0 && !(edges[i - 1] < edges[i]))) {
                return Error{"attribute '" + name +
                             "': edges must be finite and strictly increasing"};
            }
        }
    }
    return okStatus();
}

Attribute indexAttribute(std::string name, std::uint64_t bins) {
    Attribute a;
    a.name = std::move(name);
    a.labels.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(bins, kMaxDenseCells)));
    for (std::uint64_t i = 0; i < bins; ++i)
        a.labels.push_back(indexText(i));
    a.binning = std::to_string(bins) + " positions 0–" + indexText(bins == 0 ? 0 : bins - 1);
    return a;
}

Expected<ContingencyTable> ContingencyTable::withAttributes(std::vector<Attribute> attributes) {
    if (attributes.empty())
        return Error{"a table needs at least one attribute"};
    if (attributes.size() > kMaxAttributes) {
        return Error{"a table has at most " + std::to_string(kMaxAttributes) + " attributes, not " +
                     std::to_string(attributes.size())};
    }
    CellCount cells = 1;
    for (std::size_t a = 0; a < attributes.size(); ++a) {
        if (auto st = attributes[a].validate(); !st)
            return st.error();
        for (std::size_t b = 0; b < a; ++b) {
            if (attributes[b].name == attributes[a].name) {
                return Error{"attribute '" + attributes[a].name + "' appears twice"};
            }
        }
        cells *=
            attributes[a].size();  // each factor ≤ 2³², so no 128-bit overflow before the check
        if (cells > kMaxCells) {
            std::string names;
            for (std::size_t b = 0; b <= a; ++b) {
                names += (b ? " × " : "") + attributes[b].name + " (" +
                         std::to_string(attributes[b].size()) + ")";
            }
            return Error{"the joint domain of " + names + " has more than 2^64 cells; " +
                         "use fewer bins or fewer attributes"};
        }
    }
    ContingencyTable t;
    t.cells_ = cells;
    t.attributes_ = std::move(attributes);
    t.strides_.assign(t.attributes_.size(), 1);
    CellCount stride = 1;
    for (std::size_t a = t.attributes_.size(); a-- > 0;) {
        // stride ≤ cells / size ≤ 2⁶⁴ / 1; equals 2⁶⁴ only for a first attribute of one bin,
        // whose coordinate is always 0 — store the largest uint64 then (never multiplied by ≠ 0).
        t.strides_[a] = stride >= kMaxCells ? std::numeric_limits<std::uint64_t>::max()
                                            : static_cast<std::uint64_t>(stride);
        stride *= t.attributes_[a].size();
    }
    return t;
}

Expected<ContingencyTable> ContingencyTable::dense(std::vector<Attribute> attributes,
                                                   std::vector<std::int64_t> counts) {
    auto t = withAttributes(std::move(attributes));
    if (!t)
        return t.error();
    if (t->cells_ > kMaxDenseCells) {
        return Error{"a dense table has at most " + std::to_string(kMaxDenseCells) +
                     " cells; this domain has " + cellCountText(t->cells_)};
    }
    if (CellCount{counts.size()} != t->cells_) {
        return Error{"the table has " + cellCountText(t->cells_) + " cells but " +
                     std::to_string(counts.size()) + " counts were given"};
    }
    std::int64_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] < 0) {
            return Error{"cell " + t->cellLabel(i) + " has a negative count (" +
                         std::to_string(counts[i]) + ")"};
        }
        if (__builtin_add_overflow(total, counts[i], &total)) {
            return Error{"the counts add up to more than 2^63 − 1"};
        }
        if (counts[i] > 0)
            ++t->occupied_;
    }
    t->total_ = total;
    t->denseCounts_ = std::move(counts);
    return t;
}

Expected<ContingencyTable> ContingencyTable::fromCells(std::vector<Attribute> attributes,
                                                       std::vector<TableCell> cells) {
    auto t = withAttributes(std::move(attributes));
    if (!t)
        return t.error();
    std::sort(cells.begin(), cells.end(),
              [](const TableCell& x, const TableCell& y) { return x.index < y.index; });
    std::int64_t total = 0;
    std::vector<TableCell> kept;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const TableCell& c = cells[i];
        if (CellCount{c.index} >= t->cells_) {
            return Error{"cell index " + std::to_string(c.index) + " is outside the domain of " +
                         cellCountText(t->cells_) + " cells"};
        }
        if (i > 0 && cells[i - 1].index == c.index) {
            return Error{"cell " + t->cellLabel(c.index) + " is given twice"};
        }
        if (c.count < 0) {
            return Error{"cell " + t->cellLabel(c.index) + " has a negative count (" +
                         std::to_string(c.count) + ")"};
        }
        if (c.count == 0)
            continue;
        if (__builtin_add_overflow(total, c.count, &total)) {
            return Error{"the counts add up to more than 2^63 − 1"};
        }
        kept.push_back(c);
    }
    t->total_ = total;
    t->occupied_ = kept.size();
    if (t->cells_ <= kMaxDenseCells) {
        t->denseCounts_.assign(static_cast<std::size_t>(t->cells_), 0);
        for (const TableCell& c : kept)
            t->denseCounts_[c.index] = c.count;
    } else {
        t->sparse_ = std::move(kept);
    }
    return t;
}

Expected<ContingencyTable> ContingencyTable::fromHistogram(const Histogram& h, std::string name,
                                                           std::string binning, bool declared) {
    Attribute a;
    a.name = std::move(name);
    a.labels = h.labels();
    if (a.labels.size() != h.size()) {
        a.labels.clear();
        for (std::size_t i = 0; i < h.size(); ++i)
            a.labels.push_back(std::to_string(i));
    }
    a.edges = h.edges();
    a.binning = std::move(binning);
    a.declared = declared;
    std::vector<Attribute> attrs;
    attrs.push_back(std::move(a));
    return dense(std::move(attrs), h.counts());
}

std::vector<std::uint64_t> ContingencyTable::shape() const {
    std::vector<std::uint64_t> s;
    s.reserve(attributes_.size());
    for (const Attribute& a : attributes_)
        s.push_back(a.size());
    return s;
}

bool ContingencyTable::allDeclared() const {
    return std::all_of(attributes_.begin(), attributes_.end(),
                       [](const Attribute& a) { return a.declared; });
}

std::int64_t ContingencyTable::count(std::uint64_t index) const {
    if (isDense())
        return denseCounts_[static_cast<std::size_t>(index)];
    auto it = std::lower_bound(sparse_.begin(), sparse_.end(), index,
                               [](const TableCell& c, std::uint64_t i) { return c.index < i; });
    return it != sparse_.end() && it->index == index ? it->count : 0;
}

std::vector<TableCell> ContingencyTable::occupiedCells() const {
    if (!isDense())
        return sparse_;
    std::vector<TableCell> out;
    out.reserve(static_cast<std::size_t>(occupied_));
    forEachOccupied([&](std::uint64_t i, std::int64_t c) { out.push_back({i, c}); });
    return out;
}

std::vector<std::uint64_t> ContingencyTable::coordinates(std::uint64_t index) const {
    std::vector<std::uint64_t> c(attributes_.size());
    for (std::size_t a = attributes_.size(); a-- > 0;) {
        const std::uint64_t n = attributes_[a].size();
        c[a] = index % n;
        index /= n;
    }
    return c;
}

std::uint64_t ContingencyTable::cellIndex(std::span<const std::uint64_t> coords) const {
    std::uint64_t index = 0;
    for (std::size_t a = 0; a < attributes_.size(); ++a) {
        index = index * attributes_[a].size() + coords[a];
    }
    return index;
}

std::string ContingencyTable::cellLabel(std::uint64_t index) const {
    const auto c = coordinates(index);
    std::string s;
    for (std::size_t a = 0; a < c.size(); ++a) {
        if (a)
            s += ", ";
        s += attributes_[a].name + " = " + attributes_[a].labels[static_cast<std::size_t>(c[a])];
    }
    return s;
}

Expected<std::size_t> ContingencyTable::attributeIndex(const std::string& name) const {
    for (std::size_t a = 0; a < attributes_.size(); ++a) {
        if (attributes_[a].name == name)
            return a;
    }
    std::string names;
    for (const Attribute& a : attributes_)
        names += (names.empty() ? "" : ", ") + a.name;
    return Error{"the table has no attribute '" + name + "' (attributes: " + names + ")"};
}

Expected<ContingencyTable> ContingencyTable::marginal(std::span<const std::size_t> keep) const {
    if (keep.empty())
        return Error{"a marginal keeps at least one attribute"};
    std::vector<Attribute> attrs;
    for (std::size_t i = 0; i < keep.size(); ++i) {
        if (keep[i] >= attributes_.size()) {
            return Error{"attribute number " + std::to_string(keep[i] + 1) + " does not exist (" +
                         std::to_string(attributes_.size()) + " attributes)"};
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (keep[j] == keep[i]) {
                return Error{"attribute '" + attributes_[keep[i]].name + "' is kept twice"};
            }
        }
        attrs.push_back(attributes_[keep[i]]);
    }
    auto shell = withAttributes(attrs);
    if (!shell)
        return shell.error();
    const auto& strides = shell->strides_;
    auto target = [&](std::uint64_t index) {
        std::uint64_t out = 0;
        for (std::size_t i = 0; i < keep.size(); ++i) {
            const std::uint64_t n = attributes_[keep[i]].size();
            const std::uint64_t c = (index / strides_[keep[i]]) % n;
            out += c * strides[i];
        }
        return out;
    };
    if (shell->cells_ <= kMaxDenseCells) {
        std::vector<std::int64_t> counts(static_cast<std::size_t>(shell->cells_), 0);
        forEachOccupied([&](std::uint64_t i, std::int64_t c) { counts[target(i)] += c; });
        return dense(std::move(attrs), std::move(counts));
    }
    std::vector<TableCell> cells;
    cells.reserve(static_cast<std::size_t>(occupied_));
    forEachOccupied([&](std::uint64_t i, std::int64_t c) { cells.push_back({target(i), c}); });
    std::sort(cells.begin(), cells.end(),
              [](const TableCell& x, const TableCell& y) { return x.index < y.index; });
    std::vector<TableCell> merged;
    for (const TableCell& c : cells) {
        if (!merged.empty() && merged.back().index == c.index) {
            merged.back().count += c.count;
        } else {
            merged.push_back(c);
        }
    }
    return fromCells(std::move(attrs), std::move(merged));
}

Expected<Histogram> ContingencyTable::toHistogram() const {
    if (!isDense() || cells_ > static_cast<CellCount>(kMaxBins)) {
        return Error{"the table has " + cellCountText(cells_) + " cells; a histogram has at most " +
                     std::to_string(kMaxBins) + " bins"};
    }
    std::vector<std::string> labels;
    if (attributes_.size() == 1) {
        labels = attributes_[0].labels;
        return Histogram::create(denseCounts_, std::move(labels), attributes_[0].edges);
    }
    labels.reserve(denseCounts_.size());
    for (std::size_t i = 0; i < denseCounts_.size(); ++i)
        labels.push_back(cellLabel(i));
    return Histogram::create(denseCounts_, std::move(labels));
}

Expected<ContingencyTable> ContingencyTable::toDense() const {
    if (isDense())
        return *this;
    return Error{"the table has " + cellCountText(cells_) + " cells; at most " +
                 std::to_string(kMaxDenseCells) + " can be stored densely"};
}

Expected<Sensitivity> tableSensitivity(const ContingencyTable& table, Neighbouring relation,
                                       const ContributionBound& bound) {
    const CellCount cells = table.cellCount();
    const CellCount limit = std::numeric_limits<std::size_t>::max();
    return histogramSensitivity(static_cast<std::size_t>(std::min(cells, limit)), relation, bound);
}

}  // namespace dpx
