// Tables of several attributes (issue #19): the product of k binned attributes (1 ≤ k ≤ 32), one
// count per cell. A cell is addressed by a mixed-radix index in C (row-major) order — the last
// attribute varies fastest, as in a NumPy array in C order:
//     index = ((c₀·n₁ + c₁)·n₂ + c₂)·… + c_{k−1},     0 ≤ c_j < n_j.
// Domains of up to 2⁶⁴ cells are allowed (indices are then 0 … 2⁶⁴ − 1, which fit std::uint64_t;
// the number of cells itself is kept as a 128-bit integer). The counts are stored densely (one
// int64 per cell) while the domain has at most kMaxDenseCells cells, sparsely (the occupied cells,
// sorted by index) beyond, so a 16-binary-attribute survey (65 536 cells) is dense and a 2⁴⁰-cell
// domain with 10⁵ occupied cells takes 10⁵ entries.
//
// Sensitivity: one record falls in exactly one cell, so a table is a histogram over its cells and
// histogramSensitivity(cells, relation, bound) applies unchanged (tableSensitivity below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/base/expected.h"
#include "core/histogram/histogram.h"

namespace dpx {

// The number of cells of a domain (up to 2⁶⁴, one more than std::uint64_t holds).
__extension__ typedef unsigned __int128 CellCount;

inline constexpr std::size_t kMaxAttributes = 32;
// Largest domain stored densely (2²⁴ cells: 128 MiB of counts).
inline constexpr std::uint64_t kMaxDenseCells = std::uint64_t{1} << 24;
// Largest number of bins of one attribute.
inline constexpr std::uint64_t kMaxAttributeBins = std::uint64_t{1} << 32;

// "65536", "18446744073709551616": the exact decimal value.
std::string cellCountText(CellCount cells);
double cellCountDouble(CellCount cells);

// One binned attribute: its name, one label per bin and, for numeric bins, the bins + 1 edges.
struct Attribute {
    std::string name;
    std::vector<std::string> labels;  // one per bin, ≥ 1 bin
    std::vector<double> edges;        // empty, or labels.size() + 1 strictly increasing values
    // The declared binning in words ("32 equal-width bins on [0, 24]"), for metadata; may be empty.
    std::string binning;
    // Whether the bins were declared before the data were read (data-dependent bins, e.g. the
    // categories found in the data, leak which values occur; a release refuses them).
    bool declared = true;

    std::size_t size() const { return labels.size(); }
    Status validate() const;
    bool operator==(const Attribute&) const = default;
};

// An attribute with bins "0", "1", …, "n−1" (a .npy axis or a plain vector of counts).
Attribute indexAttribute(std::string name, std::uint64_t bins);

// A cell and its count (sparse storage, and the occupied cells of any table).
struct TableCell {
    std::uint64_t index = 0;
    std::int64_t count = 0;
    bool operator==(const TableCell&) const = default;
};

class ContingencyTable {
public:
    // An empty value (no attribute, no cell) to assign a real table to later; every factory below
    // returns a table of at least one attribute and one cell.
    ContingencyTable() = default;
    // Dense: counts.size() must equal the number of cells (≤ kMaxDenseCells), every count ≥ 0.
    static Expected<ContingencyTable> dense(std::vector<Attribute> attributes,
                                            std::vector<std::int64_t> counts);
    // From occupied cells in any order; zero counts are dropped, a repeated index or a negative
    // count is an error (naming the cell). Stored densely when the domain is small enough.
    static Expected<ContingencyTable> fromCells(std::vector<Attribute> attributes,
                                                std::vector<TableCell> cells);
    // One attribute from a histogram (its labels and edges; `name` names the attribute).
    static Expected<ContingencyTable> fromHistogram(const Histogram& h, std::string name,
                                                    std::string binning = {}, bool declared = true);

    std::size_t attributeCount() const { return attributes_.size(); }
    const std::vector<Attribute>& attributes() const { return attributes_; }
    const Attribute& attribute(std::size_t a) const { return attributes_.at(a); }
    std::vector<std::uint64_t> shape() const;
    CellCount cellCount() const { return cells_; }
    bool isDense() const { return !denseCounts_.empty(); }
    // Cells with a count > 0.
    std::uint64_t occupiedCount() const { return occupied_; }
    std::int64_t total() const { return total_; }
    bool allDeclared() const;

    // The count of one cell (binary search when sparse). Precondition: index < cellCount().
    std::int64_t count(std::uint64_t index) const;
    // Precondition: isDense().
    const std::vector<std::int64_t>& denseCounts() const { return denseCounts_; }
    // The occupied cells in index order (computed for a dense table).
    std::vector<TableCell> occupiedCells() const;
    // Calls f(index, count) for every occupied cell in index order, without copying.
    template <class F>
    void forEachOccupied(F&& f) const {
        if (isDense()) {
            for (std::size_t i = 0; i < denseCounts_.size(); ++i) {
                if (denseCounts_[i] != 0)
                    f(std::uint64_t{i}, denseCounts_[i]);
            }
        } else {
            for (const TableCell& c : sparse_)
                f(c.index, c.count);
        }
    }

    // Mixed-radix conversions. Preconditions: index < cellCount(); coords.size() == k and each
    // coordinate below its attribute's size.
    std::vector<std::uint64_t> coordinates(std::uint64_t index) const;
    std::uint64_t cellIndex(std::span<const std::uint64_t> coords) const;
    // "sex = Male, class = >50K".
    std::string cellLabel(std::uint64_t index) const;

    // The marginal over the attributes `keep` (distinct, in the order given): the sum over all the
    // others. Exact; cost O(occupied cells) (plus O(cells of the marginal)).
    Expected<ContingencyTable> marginal(std::span<const std::size_t> keep) const;
    // Attribute by name; the error lists the names.
    Expected<std::size_t> attributeIndex(const std::string& name) const;

    // The table as a histogram over its cells (dense only, at most kMaxBins cells), labels
    // cellLabel(i) and, for one attribute, its edges.
    Expected<Histogram> toHistogram() const;
    // Dense copy (error beyond kMaxDenseCells).
    Expected<ContingencyTable> toDense() const;

    bool operator==(const ContingencyTable&) const = default;

private:
    static Expected<ContingencyTable> withAttributes(std::vector<Attribute> attributes);
    std::vector<Attribute> attributes_;
    std::vector<std::uint64_t> strides_;  // stride of attribute a: product of the later sizes
    CellCount cells_ = 0;
    std::vector<std::int64_t> denseCounts_;  // dense storage (empty when sparse)
    std::vector<TableCell> sparse_;          // sparse storage: occupied cells by index
    std::uint64_t occupied_ = 0;
    std::int64_t total_ = 0;
};

// Sensitivity of a table: that of a histogram over its cells (one record touches one cell).
Expected<Sensitivity> tableSensitivity(const ContingencyTable& table, Neighbouring relation,
                                       const ContributionBound& bound);

}  // namespace dpx
