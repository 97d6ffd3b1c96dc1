// The hierarchical algorithms of DPBench (issue #20): a tree of intervals (boxes in 2-D)
// measured with Laplace noise, then least squares on the tree (Hay, Rastogi, Miklau & Suciu,
// PVLDB 2010: two passes). They differ only in the tree:
//   H2        binary hierarchy over a 1-D domain, root included (Hay et al. 2010);
//   HB        branching b minimising Qardaji, Yang & Li's variance bound (PVLDB 2013), root
//             not measured (as DPBench / ektelo);
//   HB2D      the same b on both dimensions (b² children per node), b chosen from the number of
//             cells, as DPBench's HB on a 2-D domain;
//   QuadTree  four quadrants per node over a 2-D domain, every level measured (Cormode,
//             Procopiuc, Srivastava, Shen & Yu, ICDE 2012, with uniform budget as in DPBench).
#include "core/algorithms/least_squares_algorithm.h"
#include "core/algorithms/registry_list.h"

namespace dpx {

namespace {

AlgorithmInfo makeInfo(std::string id, std::string name, std::string citation, std::size_t dims,
                       std::string doc) {
    AlgorithmInfo i;
    i.id = std::move(id);
    i.name = std::move(name);
    i.citation = std::move(citation);
    i.dimensions = {dims};
    i.docPage = std::move(doc);
    return i;
}

}  // namespace

const Algorithm& h2Algorithm() {
    static const LeastSquaresAlgorithm a(
        makeInfo("H2", "Binary hierarchy with least squares",
                 "Hay, Rastogi, Miklau & Suciu, "
                 "PVLDB 2010",
                 1, "docs/algorithms/h2.md"),
        [](const DomainShape& shape) { return hierarchicalStrategy(shape[0], 2); });
    return a;
}

const Algorithm& hbAlgorithm() {
    static const LeastSquaresAlgorithm a(
        makeInfo("HB", "Hierarchy with optimal branching", "Qardaji, Yang & Li, PVLDB 2013", 1,
                 "docs/algorithms/hb.md"),
        [](const DomainShape& shape) { return hbStrategy(shape); });
    return a;
}

const Algorithm& hb2dAlgorithm() {
    static const LeastSquaresAlgorithm a(
        makeInfo("HB2D", "2-D hierarchy with optimal branching", "Qardaji, Yang & Li, PVLDB 2013",
                 2, "docs/algorithms/hb2d.md"),
        [](const DomainShape& shape) { return hbStrategy(shape); });
    return a;
}

const Algorithm& quadTreeAlgorithm() {
    static const LeastSquaresAlgorithm a(
        makeInfo("QuadTree", "Quadtree with least squares",
                 "Cormode, Procopiuc, Srivastava, Shen & Yu, ICDE 2012", 2,
                 "docs/algorithms/quadtree.md"),
        [](const DomainShape& shape) { return quadtreeStrategy(shape); });
    return a;
}

}  // namespace dpx
