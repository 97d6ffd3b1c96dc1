// Workloads of linear queries over a data vector (issue #20): the queries a release is judged
// by. Every query here is a box — an inclusive range of bins on every dimension of the domain —
// so one summed-area table answers any of them in O(2^d): identity (single cells), prefixes,
// all ranges, DPBench's random ranges, the user's own boxes, and the cells of k-way marginals
// (boxes that fix k attributes and span the others).
//
// CONTRACT (issue #20, written by the lead; implemented by helper "workload"). Others code
// against it; a change must stay small and be said in a commit message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"
#include "core/table/query.h"  // BinRange

namespace dpx {

// The shape of a data vector: the size of every dimension, cells in C order (the last
// dimension varies fastest), exactly as ContingencyTable numbers its cells. 1-D {n}, 2-D
// {rows, cols}; k-D for marginal workloads over a table.
using DomainShape = std::vector<std::size_t>;

// Largest dense data vector the workload code accepts (2^26 cells).
inline constexpr std::size_t kMaxWorkloadCells = std::size_t{1} << 26;
// Largest number of queries answered one by one (answers(), per-query errors). Larger
// workloads (AllRange on 256 × 256 has ~10^9 queries) are handled in aggregate only.
inline constexpr std::uint64_t kMaxExplicitQueries = std::uint64_t{1} << 24;

// 1 ≤ dimensions ≤ 32, every size ≥ 1, product ≤ kMaxWorkloadCells; the message names the
// offending dimension.
Status validateShape(const DomainShape& shape);
// Product of the sizes (the shape must be valid).
std::size_t shapeCells(const DomainShape& shape);

// One query: Σ of the cells in the box, times its weight.
struct RangeQuery {
    std::vector<BinRange> box;  // one inclusive range per dimension
    double weight = 1;
    bool operator==(const RangeQuery&) const = default;
};

enum class WorkloadKind {
    Identity,     // every cell (n queries)
    Total,        // the sum of all cells (1 query)
    Prefix,       // [0, i] per dimension for every i (in 2-D: every [0,i]×[0,j])
    AllRange,     // every box [a, b] (n(n+1)/2 in 1-D; ∏ n_d(n_d+1)/2 in k-D)
    RandomRange,  // DPBench's RandomRange (Hay et al. 2016; ektelo workload.RandomRange): per
                  // query and dimension, width w uniform in 1..n_d, then lower end uniform in
                  // 0..n_d − w; `count` queries from `seed` (our generator, same distribution —
                  // the peer's exact queries come from bench/ reading its --dump-inputs)
    Boxes,        // the user's own list
    Marginals,    // every cell of every marginal over `ways`-subsets of the dimensions
    Rectangles,   // every box whose extent is exactly `extent` (2-D "all w × h rectangles")
    Union,        // weighted parts: W = [c_1 W_1; c_2 W_2; …] (issue #23; parts are not unions)
};

struct WorkloadSpec {
    WorkloadKind kind = WorkloadKind::Identity;
    std::uint64_t count = 2000;       // RandomRange: number of queries, 1 ≤ count ≤ 10^7
    std::uint64_t seed = 9001;        // RandomRange (DPBench's default seed)
    std::vector<std::size_t> ways;    // Marginals: the orders, e.g. {1, 2}: all 1- and 2-way
    std::vector<RangeQuery> boxes;    // Boxes
    std::vector<std::size_t> extent;  // Rectangles: the extent per dimension
    std::vector<WorkloadSpec> parts;  // Union: the parts (2 … 16, none a union)
    std::vector<double> partWeights;  // Union: c_i > 0 per part (each row of part i times c_i)

    // Text form used by dpx and sessions: "identity", "total", "prefix", "allrange",
    // "range:2000" or "range:2000:seed=9001", "marginals:1,2", "rectangles:4x4",
    // "boxes:0..3;5..9" (1-D) / "boxes:0..3x2..2;..." (boxes separated by ';', dimensions by
    // 'x'). A union joins parts with '+', each optionally weighted "c*part":
    // "prefix + 0.5*marginals:1" (c multiplies the part's rows, so its Gram matrix by c²).
    // Errors name the part that did not parse.
    static Expected<WorkloadSpec> parse(std::string_view text);
    std::string text() const;  // parse(text()) == *this
    bool operator==(const WorkloadSpec&) const = default;
};

class Workload {
public:
    // Checks the spec against the shape (boxes inside, extents ≤ sizes, ways ≤ dimensions, ...);
    // RandomRange queries are drawn here (deterministic in seed).
    static Expected<Workload> make(const WorkloadSpec& spec, DomainShape shape);

    const DomainShape& shape() const { return shape_; }
    const WorkloadSpec& spec() const { return spec_; }
    std::uint64_t queryCount() const { return queryCount_; }
    bool explicitQueries() const { return queryCount_ <= kMaxExplicitQueries; }

    // Query i (i < queryCount()), in a fixed order per kind:
    //  Identity    the cells in C order (single-cell boxes);
    //  Total       the whole domain;
    //  Prefix      [0, i_1] × … × [0, i_k] with (i_1, …, i_k) in C order;
    //  AllRange    per dimension the ranges [a, b] ordered by a, then b; dimensions in C order;
    //  RandomRange and Boxes  as drawn / listed;
    //  Marginals   the orders as listed; per order the subsets of dimensions in lexicographic
    //              order; per subset its cells in C order (the other dimensions span);
    //  Rectangles  the lower corners in C order;
    //  Union       the parts' queries in turn, each weight times the part's c.
    RangeQuery query(std::uint64_t i) const;
    // Union: the parts, made on the same shape (empty otherwise).
    const std::vector<Workload>& parts() const { return parts_; }

    // W·x for every query (explicitQueries() only), by a summed-area table: O(cells + q·2^d).
    // x.size() == shapeCells(shape()).
    Expected<std::vector<double>> answers(std::span<const double> x) const;

    // WᵀW, dense cells × cells, row-major (cells ≤ 8192): closed forms for Identity, Total,
    // Prefix and AllRange (Kronecker products of the 1-D ones in k-D), accumulated for the
    // others. For exact expected errors of least-squares strategies and for Σ_q (w_q·d)².
    Expected<std::vector<double>> gram() const;

    // "2 000 random ranges (seed 9001)", "all 32 896 ranges", "all 2-way marginals (…)".
    std::string describe() const;

private:
    DomainShape shape_;
    WorkloadSpec spec_;
    std::uint64_t queryCount_ = 0;
    std::vector<RangeQuery> drawn_;  // RandomRange / Boxes / listed queries
    std::vector<Workload> parts_;    // Union
};

// Kinds whose workload is the Kronecker product of 1-D workloads, W = W_1 ⊗ … ⊗ W_k, so that
// WᵀW = ⊗ W_dᵀW_d: identity, total, prefixes, all ranges, rectangles of a fixed extent.
bool isProductKind(WorkloadKind kind);
// The 1-D factor W_d of a product workload: the same kind on {shape[d]} (rectangles: extent[d]).
Expected<Workload> productFactor(const Workload& w, std::size_t d);

}  // namespace dpx
