#include "core/table/joint_binning.h"

#include <algorithm>
#include <utility>

#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr CellCount kMaxCells = CellCount{1} << 64;
// Provisional domains up to this many cells are counted in a dense vector (8 MiB per binner, so
// one per thread stays small); larger ones in a hash map of the occupied cells.
constexpr CellCount kDenseCounting = CellCount{1} << 20;

bool categoriesFromData(const Binning& b) {
    return b.kind == BinningKind::Categories && b.categories.empty();
}

std::string quotedName(const std::string& s) {
    return "'" + s + "'";
}

// The error for a declared domain beyond 2⁶⁴ cells, or none. `names[a]`, `layouts[a]`.
Status declaredDomain(const std::vector<std::string>& names,
                      const std::vector<const BinLayout*>& layouts,
                      const std::vector<const Binning*>& binnings) {
    CellCount declared = 1;
    std::string text;
    for (std::size_t a = 0; a < names.size(); ++a) {
        if (categoriesFromData(*binnings[a])) {
            continue;
        }
        text += (text.empty() ? "" : " × ") + quotedName(names[a]) + " (" +
                groupThousands(static_cast<std::int64_t>(layouts[a]->bins)) + ")";
        declared *= layouts[a]->bins;  // each factor ≤ kMaxBins + 1 and declared ≤ 2⁶⁴ before
        if (declared > kMaxCells) {
            return Error{"the joint domain of " + text +
                         " has more than 2^64 cells; use fewer bins or fewer columns"};
        }
    }
    return okStatus();
}

}  // namespace

Status checkJointDomain(const std::vector<ColumnRequest>& requests) {
    if (requests.size() > kMaxAttributes) {
        return Error{"a joint table has at most " + std::to_string(kMaxAttributes) +
                     " columns, not " + std::to_string(requests.size())};
    }
    std::vector<std::string> names;
    std::vector<BinLayout> layouts;
    for (const ColumnRequest& rq : requests) {
        auto l = binLayout(rq.binning);
        if (!l) {
            return Error{"the column " + quotedName(rq.column) + ": " + l.error().message};
        }
        names.push_back(rq.column);
        layouts.push_back(std::move(l).value());
    }
    std::vector<const BinLayout*> lp;
    std::vector<const Binning*> bp;
    for (std::size_t a = 0; a < requests.size(); ++a) {
        lp.push_back(&layouts[a]);
        bp.push_back(&requests[a].binning);
    }
    return declaredDomain(names, lp, bp);
}

Expected<JointBinner> JointBinner::create(std::vector<std::string> names,
                                          std::vector<Binner> binners) {
    if (binners.empty()) {
        return Error{"a joint table needs at least one column"};
    }
    if (binners.size() > kMaxAttributes) {
        return Error{"a joint table has at most " + std::to_string(kMaxAttributes) +
                     " columns, not " + std::to_string(binners.size())};
    }
    if (names.size() != binners.size()) {
        return Error{"internal error: one name per binner is needed"};
    }
    for (std::size_t a = 0; a < names.size(); ++a) {
        for (std::size_t b = 0; b < a; ++b) {
            if (names[a] == names[b]) {
                return Error{"the column " + quotedName(names[a]) +
                             " is asked for twice; a joint table needs distinct columns"};
            }
        }
    }
    {
        std::vector<const BinLayout*> lp;
        std::vector<const Binning*> bp;
        for (const Binner& b : binners) {
            lp.push_back(&b.layout());
            bp.push_back(&b.binning());
        }
        if (auto ok = declaredDomain(names, lp, bp); !ok) {
            return ok.error();
        }
    }
    JointBinner j;
    // Largest value a provisional key may take: 2¹²⁸ − 1.
    const CellCount keyMax = ~CellCount{0};
    for (std::size_t a = 0; a < binners.size(); ++a) {
        const Binner& b = binners[a];
        const bool fromData = categoriesFromData(b.binning());
        const CellCount r = fromData ? CellCount{static_cast<std::uint64_t>(kMaxBins)}
                                     : CellCount{std::max<std::size_t>(b.layout().bins, 1)};
        if (j.domain_ > keyMax / r) {
            std::string fromDataNames;
            for (std::size_t c = 0; c < binners.size(); ++c) {
                if (categoriesFromData(binners[c].binning())) {
                    fromDataNames += (fromDataNames.empty() ? "" : ", ") + quotedName(names[c]);
                }
            }
            return Error{"too many columns take their categories from the data (" + fromDataNames +
                         "): declare the categories of some of them (a fixed category list)"};
        }
        j.radix_.push_back(r);
        j.radix64_.push_back(static_cast<std::uint64_t>(r));
        j.domain_ *= r;
    }
    j.names_ = std::move(names);
    j.binners_ = std::move(binners);
    j.dense_ = j.domain_ <= kDenseCounting;
    if (j.dense_) {
        j.counts_.assign(static_cast<std::size_t>(j.domain_), 0);
    }
    return j;
}

Status JointBinner::merge(const JointBinner& later) {
    if (later.binners_.size() != binners_.size() || later.radix_ != radix_) {
        return Error{"internal error: merging joint binners of different columns"};
    }
    const std::size_t k = binners_.size();
    std::vector<std::vector<std::size_t>> maps(k);
    bool identity = true;
    for (std::size_t a = 0; a < k; ++a) {
        if (auto ok = binners_[a].merge(later.binners_[a], &maps[a]); !ok) {
            return ok;
        }
        for (std::size_t i = 0; i < maps[a].size() && identity; ++i) {
            identity = maps[a][i] == i;
        }
    }
    auto remap = [&](Key key) {
        Key out = 0, scale = 1;
        for (std::size_t a = k; a-- > 0;) {
            const auto digit = static_cast<std::size_t>(key % radix_[a]);
            key /= radix_[a];
            out += scale * maps[a][digit];
            scale *= radix_[a];
        }
        return out;
    };
    if (dense_) {
        for (std::size_t i = 0; i < later.counts_.size(); ++i) {
            if (later.counts_[i] != 0) {
                counts_[identity ? i : static_cast<std::size_t>(remap(i))] += later.counts_[i];
            }
        }
    } else {
        for (const auto& [key, n] : later.cells_) {
            cells_[identity ? key : remap(key)] += n;
        }
    }
    return okStatus();
}

Expected<JointBinned> JointBinner::finish() const {
    const std::size_t k = binners_.size();
    JointBinned out;
    std::vector<Attribute> attributes;
    std::vector<std::vector<std::size_t>> finals(k);
    for (std::size_t a = 0; a < k; ++a) {
        auto h = binners_[a].finish();
        if (!h) {
            return h.error();
        }
        BinningReport rep = h->report;
        rep.used = rep.rows - rep.missing - rep.dropped();
        out.reports.push_back(rep);
        Attribute attr;
        attr.name = names_[a];
        attr.labels = h->histogram.labels();
        attr.edges = h->histogram.edges();
        attr.binning = binners_[a].binning().describe();
        attr.declared = !categoriesFromData(binners_[a].binning());
        attributes.push_back(std::move(attr));
        finals[a] = binners_[a].finalBins();
    }
    std::vector<TableCell> cells;
    auto convert = [&](Key key, std::int64_t n) {
        // Provisional digits → final bins → final C-order index (the final domain ≤ 2⁶⁴ is
        // checked by fromCells before any index is used; indices are computed in 128 bits).
        std::vector<std::size_t> digit(k);
        for (std::size_t a = k; a-- > 0;) {
            digit[a] = static_cast<std::size_t>(key % radix_[a]);
            key /= radix_[a];
        }
        CellCount index = 0;
        for (std::size_t a = 0; a < k; ++a) {
            index = index * attributes[a].size() + finals[a][digit[a]];
        }
        cells.push_back({static_cast<std::uint64_t>(index), n});
    };
    CellCount finalDomain = 1;
    std::string domainNames;
    for (std::size_t a = 0; a < k; ++a) {
        finalDomain *= attributes[a].size();
        domainNames += (a ? " × " : "") + quotedName(attributes[a].name) + " (" +
                       groupThousands(static_cast<std::int64_t>(attributes[a].size())) + ")";
        if (finalDomain > kMaxCells) {
            return Error{"the joint domain of " + domainNames +
                         " has more than 2^64 cells; use fewer bins or fewer columns"};
        }
    }
    if (dense_) {
        for (std::size_t i = 0; i < counts_.size(); ++i) {
            if (counts_[i] != 0) {
                convert(i, counts_[i]);
            }
        }
    } else {
        cells.reserve(cells_.size());
        for (const auto& [key, n] : cells_) {
            convert(key, n);
        }
    }
    auto table = ContingencyTable::fromCells(std::move(attributes), std::move(cells));
    if (!table) {
        return table.error();
    }
    out.table = std::move(table).value();
    return out;
}

Expected<JointBinned> binJoint(const DataTable& table, const std::vector<ColumnRequest>& requests) {
    std::vector<std::string> names;
    std::vector<Binner> binners;
    std::vector<const DataColumn*> columns;
    for (const ColumnRequest& rq : requests) {
        const auto j = table.indexOf(rq.column);
        if (!j) {
            return j.error();
        }
        const DataColumn& col = table.column(*j);
        auto b = Binner::create(rq.binning, col.kind(), "column " + quotedName(col.name()), "row");
        if (!b) {
            return b.error();
        }
        names.push_back(col.name());
        binners.push_back(std::move(b).value());
        columns.push_back(&col);
    }
    auto jb = JointBinner::create(std::move(names), std::move(binners));
    if (!jb) {
        return jb.error();
    }
    const std::size_t k = columns.size();
    for (std::size_t r = 0; r < table.rowCount(); ++r) {
        const auto row = static_cast<std::int64_t>(r + 1);
        JointBinner::Key key = 0;
        bool counted = true;
        for (std::size_t a = 0; a < k && counted; ++a) {
            const auto in = columns[a]->isNumeric()
                                ? jb->number(a, columns[a]->numbers()[r], row, key)
                                : jb->text(a, columns[a]->texts()[r], row, key);
            if (in == JointBinner::Outcome::Failed) {
                return jb->failure(a);
            }
            counted = in == JointBinner::Outcome::Binned;
        }
        if (counted) {
            jb->count(key);
        }
    }
    auto out = jb->finish();
    if (!out) {
        return out.error();
    }
    return out;
}

}  // namespace dpx
