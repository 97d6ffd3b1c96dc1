// A row's values → its cell (issue #19): the one implementation of joint binning for k columns
// with declared Binnings, used by the CSV reader (one JointBinner per thread, merged in order),
// the window's built-in examples (binJoint over a DataTable) and the tests.
//
// Each attribute is binned by a Binner (core/histogram/dataset.h), so a value lands in exactly the
// bin it lands in for a one-column histogram, with the same report and the same messages. A row
// counts once, in the cell of its k bins, when every value falls in a bin; otherwise it is not
// counted and the reason goes to the report of the FIRST attribute (in request order) that dropped
// it — the later attributes never see that row. So each report describes the values that reached
// its column: report[0].rows = the rows binned, report[a + 1].rows = report[a].used, and the last
// report's `used` is the number of rows in the table (= table.total()).
//
// Categories from the data (Binning::distinctValues) make a bin for each value found, in the order
// the binning asks for (first seen or sorted); such attributes are not `declared`. While counting,
// their bins are numbered provisionally in the order of appearance; finish() renumbers the cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/base/expected.h"
#include "core/histogram/dataset.h"
#include "core/table/table.h"

namespace dpx {

// One attribute of a joint table (or one histogram): a column and its declared bins.
struct ColumnRequest {
    std::string column;
    Binning binning;
};

struct JointBinned {
    ContingencyTable table;
    std::vector<BinningReport> reports;  // one per attribute, in order (see above)
};

class JointBinner {
public:
    // The provisional cell of a row while it is binned (start from 0).
    using Key = CellCount;

    // One Binner per attribute, in order, freshly created (nothing added yet); `names` are the
    // attribute names (distinct). Fails for k = 0 or k > kMaxAttributes, a repeated name, or a
    // declared domain (the product of the bins of the attributes whose bins are declared) beyond
    // 2⁶⁴ cells — naming the columns, before any value is read.
    static Expected<JointBinner> create(std::vector<std::string> names,
                                        std::vector<Binner> binners);

    std::size_t size() const { return binners_.size(); }

    // Bins attribute a's value of the current row into `key`. Call for a = 0, 1, … in order;
    // NotCounted means the row is not counted (missing, out of range, not in the category list —
    // the report of `a` says why): stop there, without binning the later attributes. After the
    // last attribute returned Binned, count(key). Failed: an error as Binner::addNumber / addText
    // gives, in failure(a).
    // The key may be a std::uint64_t instead of a Key when narrowKeys(): one 64-bit multiply per
    // attribute instead of a 128-bit one in the per-row loop.
    enum class Outcome { Binned, NotCounted, Failed };
    template <typename K>
    Outcome number(std::size_t a, double x, std::int64_t row, K& key) {
        return step(a, binners_[a].binNumberOrFail(x, row), key);
    }
    template <typename K>
    Outcome text(std::size_t a, std::string_view s, std::int64_t row, K& key) {
        return step(a, binners_[a].binTextOrFail(s, row), key);
    }
    // Whether every provisional key is below 2⁶⁴ (always so when the counts are dense).
    bool narrowKeys() const { return domain_ <= (Key{1} << 64); }
    const Error& failure(std::size_t a) const { return binners_[a].failure(); }
    void count(Key key) {
        if (dense_) {
            ++counts_[static_cast<std::size_t>(key)];
        } else {
            ++cells_[key];
        }
    }

    // Adds the rows of a joint binner of the same attributes that saw the rows after this one's.
    Status merge(const JointBinner& later);
    // The table (attributes from the binners' layouts, cells renumbered for categories from the
    // data) and the reports. Fails when the final domain exceeds 2⁶⁴ cells, or an attribute with
    // categories from the data saw no value.
    Expected<JointBinned> finish() const;

    const Binner& binner(std::size_t a) const { return binners_[a]; }

private:
    JointBinner() = default;
    template <typename K>
    Outcome step(std::size_t a, std::size_t bin, K& key) const {
        static_assert(std::is_same_v<K, Key> || std::is_same_v<K, std::uint64_t>);
        if (bin >= Binner::kFailed) {
            return bin == Binner::kFailed ? Outcome::Failed : Outcome::NotCounted;
        }
        // (a radix is at most kMaxBins: a 128 × 64-bit product; a 64-bit key only when the whole
        // provisional domain is below 2⁶⁴)
        key = key * radix64_[a] + bin;
        return Outcome::Binned;
    }
    struct KeyHash {
        std::size_t operator()(Key k) const {
            const auto lo = static_cast<std::uint64_t>(k);
            const auto hi = static_cast<std::uint64_t>(k >> 64);
            return std::hash<std::uint64_t>{}(lo ^ (hi * 0x9E3779B97F4A7C15ULL));
        }
    };

    std::vector<std::string> names_;
    std::vector<Binner> binners_;
    // Provisional mixed radix: the bins of a declared attribute, kMaxBins (the most categories a
    // Binner takes) for categories from the data.
    std::vector<Key> radix_;
    std::vector<std::uint64_t> radix64_;  // the same
    Key domain_ = 1;                      // product of radix_
    bool dense_ = false;
    std::vector<std::int64_t> counts_;                      // dense: one per provisional cell
    std::unordered_map<Key, std::int64_t, KeyHash> cells_;  // sparse: occupied provisional cells
};

// The domain of the declared bins of the requests (categories from the data left out) must be at
// most 2⁶⁴ cells: the check every source makes before reading any data (and JointBinner::create
// repeats). Also checks each binning (Binning::validate) and that k ≤ kMaxAttributes.
Status checkJointDomain(const std::vector<ColumnRequest>& requests);

// The joint table of columns of a table (the window's built-in examples, tests): rows in order,
// row numbers 1-based in messages. The requests name distinct columns.
Expected<JointBinned> binJoint(const DataTable& table, const std::vector<ColumnRequest>& requests);

}  // namespace dpx
