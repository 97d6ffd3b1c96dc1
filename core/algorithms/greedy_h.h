// GreedyH (Li, Hay, Miklau & Wang, "A data- and workload-aware algorithm for range queries under
// differential privacy", PVLDB 2014, §4): a hierarchy of intervals over an ordered 1-D domain
// whose rows are weighted for the workload. Every node v of a b-ary tree splits its subtree's
// unit of sensitivity between its own interval query (weight 1 − p_v) and its children's
// subtrees (scaled by p_v); p_v is chosen bottom-up, one node at a time, on a grid of
// `granularity` values, to minimise the least-squares error of the workload restricted to v's
// interval. Every root-to-leaf path sums to 1, so Δ₁ = 1 and Laplace(1/ε) per row is ε-DP.
//
// Derivation (ours; the paper states the recursion in words). With B = blockdiag of the children
// subtrees' AᵀA (rows normalised so each child subtree has path sums 1), u = B⁺1, k = 1ᵀu and
// G_R = the workload's Gram matrix restricted to v's cells, the node's strategy is
// A_v = [(1 − p)·1ᵀ ; p·A_children], A_vᵀA_v = (1 − p)²11ᵀ + p²B and (Sherman–Morrison)
//   (A_vᵀA_v)⁺ = p⁻²·[B⁺ − (1 − p)²/(p² + (1 − p)²k) · uuᵀ],
//   err_v(p) = trace(G_R (A_vᵀA_v)⁺) = p⁻²·[Σ_children err_c − (1 − p)²/(p² + (1 − p)²k) · uᵀG_R
//   u].
// uᵀG_R u = Σ_q (Σ_{j∈R} w_qj u_j)², computed from prefix sums of u for the queries that are not
// constant on R and as k²·Σ c_q² for those constant (c_q) on R — never from a dense Gram matrix:
// O((cells + pieces)·depth) for the whole tree. Nodes on which every query is constant (their
// cells are indistinguishable to the workload) become leaves measured once, their estimate spread
// evenly (as in the paper's implementation).
//
// The per-node choice minimises the exact restricted error above. ektelo's implementation
// (greedyH.py) scores with ‖G·v‖² in place of vᵀG·v and damps cross terms by b^(−depth/2); we keep
// the exact objective, so our weights (and errors) can differ from DPBench's GreedyH slightly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/base/expected.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpx {

// Linear queries over an ordered domain of `cells` positions, each piecewise constant: query q is
// value[i] on [start[i], start[i+1]) for its pieces i (the last piece runs to the end of the
// domain; before the first start the query is 0). Starts strictly increase within a query.
struct PiecewiseWorkload {
    std::size_t cells = 0;
    std::vector<std::size_t> offsets{0};  // query q's pieces: [offsets[q], offsets[q+1])
    std::vector<std::uint32_t> starts;
    std::vector<double> values;

    std::size_t queries() const { return offsets.size() - 1; }
    // Appends Σ_{j∈[lo,hi]} weight·x_j (0 ≤ lo ≤ hi < cells).
    void addRange(std::size_t lo, std::size_t hi, double weight);
    // Appends a query given as sorted (position, weight) entries (positions < cells, increasing):
    // consecutive equal weights are merged into pieces.
    void addSparse(std::span<const std::pair<std::size_t, double>> entries);
};

// The piecewise form of a 1-D workload (at most kMaxGreedyPieces pieces).
inline constexpr std::size_t kMaxGreedyPieces = std::size_t{1} << 23;
Expected<PiecewiseWorkload> piecewiseWorkload(const Workload& w);

// The weighted interval tree GreedyH chooses, as a least-squares strategy.
class WeightedTreeStrategy final : public LinearStrategy {
public:
    struct Node {
        std::size_t start = 0, size = 0;
        std::size_t firstChild = 0, children = 0;  // children are nodes[firstChild, +children)
        double weight = 0;                         // the row's weight (0: not measured)
    };
    // Nodes in breadth-first order (root first); every leaf has weight > 0.
    WeightedTreeStrategy(std::vector<Node> nodes, double predictedVariance, std::string what);

    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return rowNodes_.size(); }
    double sensitivityL1() const override { return l1_; }
    double sensitivityL2() const override { return l2_; }
    void measure(std::span<const double> x, std::span<double> y) const override;
    void transposeMeasure(std::span<const double> y, std::span<double> x) const override;
    // Least squares with the pseudo-inverse: cells of a leaf holding several cells get equal
    // shares (they are indistinguishable to the workload the tree was chosen for).
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override;
    void solveGram(std::span<const double> b, std::span<double> out) const override;
    std::string describe() const override { return what_; }

    const std::vector<Node>& nodes() const { return nodes_; }
    // trace(W (AᵀA)⁺ Wᵀ) for the workload it was chosen for: E‖W x̂ − W x‖² = 2/ε²·this.
    double predictedVariance() const { return predicted_; }

private:
    std::vector<Node> nodes_;
    std::vector<std::size_t> rowNodes_;  // node of each row
    DomainShape shape_;
    double l1_ = 0, l2_ = 0, predicted_ = 0;
    std::string what_;
};

// GreedyH's tree for `w` (branching ≥ 2, granularity ≥ 1). Cancellable.
Expected<std::unique_ptr<WeightedTreeStrategy>> greedyHierarchy(const PiecewiseWorkload& w,
                                                                std::size_t branching,
                                                                std::size_t granularity,
                                                                std::stop_token stop = {});

const Algorithm& greedyHAlgorithm();  // "GreedyH", 1-D, data-independent

}  // namespace dpx
