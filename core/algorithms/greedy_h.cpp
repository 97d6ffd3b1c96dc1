// GreedyH (Li, Hay, Miklau & Wang, PVLDB 2014, §4): the greedy weighted hierarchy and its
// least-squares strategy. The derivation of the per-node error is in greedy_h.h.
#include "core/algorithms/greedy_h.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/algorithms/registry_list.h"
#include "core/base/validation.h"

namespace dpx {

namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
}  // namespace

// --- PiecewiseWorkload -------------------------------------------------------------------------

void PiecewiseWorkload::addRange(std::size_t lo, std::size_t hi, double weight) {
    if (weight != 0) {
        starts.push_back(static_cast<std::uint32_t>(lo));
        values.push_back(weight);
        if (hi + 1 < cells) {
            starts.push_back(static_cast<std::uint32_t>(hi + 1));
            values.push_back(0);
        }
    }
    offsets.push_back(starts.size());
}

void PiecewiseWorkload::addSparse(std::span<const std::pair<std::size_t, double>> entries) {
    double current = 0;
    std::size_t next = 0;  // the position after the last entry
    for (const auto& [pos, weight] : entries) {
        if (pos > next && current != 0) {  // a gap: the query is 0 there
            starts.push_back(static_cast<std::uint32_t>(next));
            values.push_back(0);
            current = 0;
        }
        if (weight != current) {
            starts.push_back(static_cast<std::uint32_t>(pos));
            values.push_back(weight);
            current = weight;
        }
        next = pos + 1;
    }
    if (current != 0 && next < cells) {
        starts.push_back(static_cast<std::uint32_t>(next));
        values.push_back(0);
    }
    offsets.push_back(starts.size());
}

Expected<PiecewiseWorkload> piecewiseWorkload(const Workload& w) {
    if (w.shape().size() != 1) {
        return Error{"GreedyH needs a 1-D workload"};
    }
    if (!w.explicitQueries() || w.queryCount() * 2 > kMaxGreedyPieces) {
        return Error{"GreedyH: the workload has " + std::to_string(w.queryCount()) +
                     " queries; the greedy hierarchy handles at most " +
                     std::to_string(kMaxGreedyPieces / 2) +
                     " (choose fewer queries, e.g. random ranges)"};
    }
    PiecewiseWorkload out;
    out.cells = w.shape()[0];
    out.offsets.reserve(static_cast<std::size_t>(w.queryCount()) + 1);
    for (std::uint64_t i = 0; i < w.queryCount(); ++i) {
        const RangeQuery q = w.query(i);
        out.addRange(static_cast<std::size_t>(q.box[0].lo), static_cast<std::size_t>(q.box[0].hi),
                     q.weight);
    }
    return out;
}

// --- WeightedTreeStrategy ----------------------------------------------------------------------

WeightedTreeStrategy::WeightedTreeStrategy(std::vector<Node> nodes, double predictedVariance,
                                           std::string what)
    : nodes_(std::move(nodes)), predicted_(predictedVariance), what_(std::move(what)) {
    shape_ = {nodes_.front().size};
    // Largest path sums of w and w² from the root to a leaf (Δ₁ and Δ₂²).
    std::vector<double> s1(nodes_.size()), s2(nodes_.size());
    s1[0] = nodes_[0].weight;
    s2[0] = nodes_[0].weight * nodes_[0].weight;
    for (std::size_t v = 0; v < nodes_.size(); ++v) {
        const Node& n = nodes_[v];
        if (n.weight > 0) {
            rowNodes_.push_back(v);
        }
        for (std::size_t c = n.firstChild; c < n.firstChild + n.children; ++c) {
            s1[c] = s1[v] + nodes_[c].weight;
            s2[c] = s2[v] + nodes_[c].weight * nodes_[c].weight;
        }
        if (n.children == 0) {
            l1_ = std::max(l1_, s1[v]);
            l2_ = std::max(l2_, s2[v]);
        }
    }
    l2_ = std::sqrt(l2_);
}

void WeightedTreeStrategy::measure(std::span<const double> x, std::span<double> y) const {
    std::vector<double> prefix(x.size() + 1, 0.0);
    for (std::size_t i = 0; i < x.size(); ++i) {
        prefix[i + 1] = prefix[i] + x[i];
    }
    for (std::size_t r = 0; r < rowNodes_.size(); ++r) {
        const Node& n = nodes_[rowNodes_[r]];
        y[r] = n.weight * (prefix[n.start + n.size] - prefix[n.start]);
    }
}

void WeightedTreeStrategy::transposeMeasure(std::span<const double> y, std::span<double> x) const {
    // acc[v] = Σ over v and its ancestors of weight·y (rows in node order, so a running row index
    // follows the breadth-first order).
    std::vector<double> acc(nodes_.size(), 0.0);
    std::size_t row = 0;
    for (std::size_t v = 0; v < nodes_.size(); ++v) {
        const Node& n = nodes_[v];
        if (n.weight > 0) {
            acc[v] += n.weight * y[row++];
        }
        for (std::size_t c = n.firstChild; c < n.firstChild + n.children; ++c) {
            acc[c] = acc[v];
        }
        if (n.children == 0) {
            std::fill(x.begin() + static_cast<std::ptrdiff_t>(n.start),
                      x.begin() + static_cast<std::ptrdiff_t>(n.start + n.size), acc[v]);
        }
    }
}

void WeightedTreeStrategy::solveGram(std::span<const double> b, std::span<double> out) const {
    // Bottom-up (reverse breadth-first order): for a subtree with root row weight ω over the
    // children's block-diagonal B, (ω²11ᵀ + B)⁺ = B⁺ − ω²·uuᵀ/(1 + ω²k), u = B⁺1, k = 1ᵀu; a leaf
    // of s cells and weight ω has (ω²11ᵀ)⁺ = 11ᵀ/(ω²s²). out and u hold the children's results
    // on the node's cells when the node is reached.
    std::vector<double> u(b.size(), 0.0), k(nodes_.size(), 0.0);
    for (std::size_t v = nodes_.size(); v-- > 0;) {
        const Node& n = nodes_[v];
        const auto first = static_cast<std::ptrdiff_t>(n.start);
        const auto last = static_cast<std::ptrdiff_t>(n.start + n.size);
        const double w2 = n.weight * n.weight;
        const double size = static_cast<double>(n.size);
        if (n.children == 0) {
            double sb = 0;
            for (std::size_t i = n.start; i < n.start + n.size; ++i) {
                sb += b[i];
            }
            std::fill(out.begin() + first, out.begin() + last, sb / (w2 * size * size));
            std::fill(u.begin() + first, u.begin() + last, 1.0 / (w2 * size));
            k[v] = 1.0 / w2;
            continue;
        }
        double kch = 0;
        for (std::size_t c = n.firstChild; c < n.firstChild + n.children; ++c) {
            kch += k[c];
        }
        if (w2 == 0) {
            k[v] = kch;
            continue;
        }
        double sz = 0;
        for (std::size_t i = n.start; i < n.start + n.size; ++i) {
            sz += out[i];
        }
        const double denom = 1 + w2 * kch;
        const double coef = w2 * sz / denom;
        for (std::size_t i = n.start; i < n.start + n.size; ++i) {
            out[i] -= coef * u[i];
            u[i] /= denom;
        }
        k[v] = kch / denom;
    }
}

void WeightedTreeStrategy::leastSquares(std::span<const double> y, std::span<double> xhat) const {
    std::vector<double> aty(xhat.size());
    transposeMeasure(y, aty);
    solveGram(aty, xhat);
}

// --- The greedy choice -------------------------------------------------------------------------

Expected<std::unique_ptr<WeightedTreeStrategy>> greedyHierarchy(const PiecewiseWorkload& w,
                                                                std::size_t branching,
                                                                std::size_t granularity,
                                                                std::stop_token stop) {
    const std::size_t n = w.cells;
    if (n == 0 || n >= kNone) {
        return Error{"GreedyH: the domain needs 1 to 2^32 − 2 cells"};
    }
    if (branching < 2 || granularity < 1) {
        return Error{"GreedyH: the branching must be ≥ 2 and the granularity ≥ 1"};
    }
    if (w.starts.size() != w.values.size() || w.offsets.empty() ||
        w.offsets.back() != w.starts.size()) {
        return Error{"GreedyH: malformed piecewise workload"};
    }
    const std::size_t nq = w.queries();
    // Breakpoints: every piece start is a position where a query's value changes.
    std::vector<std::size_t> bpPrefix(n + 1, 0);
    for (std::uint32_t s : w.starts) {
        if (s >= n) {
            return Error{"GreedyH: a query piece starts outside the domain"};
        }
        ++bpPrefix[s + 1];
    }
    for (std::size_t i = 0; i < n; ++i) {
        bpPrefix[i + 1] += bpPrefix[i];
    }
    // The tree, breadth-first; a node is a leaf when it is one cell or no query changes value
    // inside it (no breakpoint in (start, end]).
    using Node = WeightedTreeStrategy::Node;
    std::vector<Node> nodes{{0, n, 0, 0, 0}};
    std::vector<std::uint32_t> depth{0};
    for (std::size_t v = 0; v < nodes.size(); ++v) {
        const std::size_t s = nodes[v].start, size = nodes[v].size;
        if (size == 1 || bpPrefix[s + size] == bpPrefix[s + 1]) {
            continue;
        }
        // b parts: the first b − rem of size step, the others step + 1 (n ≤ b: single cells).
        const std::size_t parts = std::min(branching, size);
        const std::size_t step = size / parts, rem = size % parts;
        nodes[v].firstChild = nodes.size();
        nodes[v].children = parts;
        std::size_t at = s;
        for (std::size_t i = 0; i < parts; ++i) {
            const std::size_t len = step + (i >= parts - rem ? 1 : 0);
            nodes.push_back({at, len, 0, 0, 0});
            depth.push_back(depth[v] + 1);
            at += len;
        }
    }
    const std::size_t levels = depth.back() + 1;
    std::vector<std::size_t> levelBegin(levels + 1, nodes.size());
    for (std::size_t v = nodes.size(); v-- > 0;) {
        levelBegin[depth[v]] = v;
    }
    // Σ_q c_q² over the queries constant (= c_q ≠ 0) on each node: per level, the nodes lying
    // wholly inside a piece form a run of that level's nodes (a difference array over them).
    std::vector<double> coverSq(nodes.size() + 1, 0.0);
    std::vector<std::uint32_t> firstFrom(n + 1), lastUpTo(n + 1);
    std::vector<std::uint32_t> nodeAt(n);
    auto buildLevelMaps = [&](std::size_t d) {
        std::fill(nodeAt.begin(), nodeAt.end(), kNone);
        for (std::size_t v = levelBegin[d]; v < levelBegin[d + 1]; ++v) {
            for (std::size_t i = nodes[v].start; i < nodes[v].start + nodes[v].size; ++i) {
                nodeAt[i] = static_cast<std::uint32_t>(v);
            }
        }
        // firstFrom[p]: first node of the level starting at ≥ p; lastUpTo[p]: last node ending
        // before p (kNone if none).
        std::uint32_t next = static_cast<std::uint32_t>(levelBegin[d + 1]);
        firstFrom[n] = next;
        for (std::size_t p = n; p-- > 0;) {
            if (nodeAt[p] != kNone && nodes[nodeAt[p]].start == p) {
                next = nodeAt[p];
            }
            firstFrom[p] = next;
        }
        std::uint32_t last = kNone;
        lastUpTo[0] = kNone;
        for (std::size_t p = 1; p <= n; ++p) {
            const std::uint32_t v = nodeAt[p - 1];
            if (v != kNone && nodes[v].start + nodes[v].size == p) {
                last = v;
            }
            lastUpTo[p] = last;
        }
    };
    std::vector<std::vector<std::uint32_t>> nodeAtLevel(levels);
    for (std::size_t d = 0; d < levels; ++d) {
        if (stop.stop_requested()) {
            return Error{"GreedyH: cancelled"};
        }
        buildLevelMaps(d);
        for (std::size_t q = 0; q < nq; ++q) {
            for (std::size_t i = w.offsets[q]; i < w.offsets[q + 1]; ++i) {
                const double c = w.values[i];
                if (c == 0) {
                    continue;
                }
                const std::size_t a = w.starts[i];
                const std::size_t b = i + 1 < w.offsets[q + 1] ? w.starts[i + 1] : n;
                const std::uint32_t first = firstFrom[a], last = lastUpTo[b];
                if (last != kNone && first <= last && first < levelBegin[d + 1]) {
                    coverSq[first] += c * c;
                    coverSq[last + 1] -= c * c;
                }
            }
        }
        nodeAtLevel[d] = nodeAt;
    }
    for (std::size_t v = 1; v <= nodes.size(); ++v) {
        coverSq[v] += coverSq[v - 1];
    }

    // Bottom-up, level by level: u (per cell) holds the children's B⁺1 on every node of the level.
    std::vector<double> u(n, 0.0), prefixU(n + 1, 0.0), partial(nodes.size(), 0.0);
    std::vector<double> err(nodes.size(), 0.0), k(nodes.size(), 0.0), p(nodes.size(), 1.0);
    const auto g = static_cast<double>(granularity);
    for (std::size_t d = levels; d-- > 0;) {
        if (stop.stop_requested()) {
            return Error{"GreedyH: cancelled"};
        }
        for (std::size_t v = levelBegin[d]; v < levelBegin[d + 1]; ++v) {
            if (nodes[v].children == 0) {
                const double share = 1.0 / static_cast<double>(nodes[v].size);
                std::fill(u.begin() + static_cast<std::ptrdiff_t>(nodes[v].start),
                          u.begin() + static_cast<std::ptrdiff_t>(nodes[v].start + nodes[v].size),
                          share);
                k[v] = 1;
                err[v] = coverSq[v];
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            prefixU[i + 1] = prefixU[i] + u[i];
        }
        // uᵀG_R u over the queries not constant on R: Σ_q (Σ_{j∈R} w_qj u_j)².
        const std::vector<std::uint32_t>& at = nodeAtLevel[d];
        for (std::size_t q = 0; q < nq; ++q) {
            const std::size_t begin = w.offsets[q], end = w.offsets[q + 1];
            std::uint32_t lastNode = kNone;
            for (std::size_t i = begin; i < end; ++i) {
                const std::uint32_t v = at[w.starts[i]];
                if (v == kNone || v == lastNode || nodes[v].start == w.starts[i]) {
                    continue;
                }
                lastNode = v;
                // Pieces i − 1 (holding the node's first cell, if any) onwards, up to the node's
                // last cell.
                const std::size_t s = nodes[v].start, e = s + nodes[v].size;  // [s, e)
                double sum = 0;
                for (std::size_t j = (i == begin ? begin : i - 1); j < end; ++j) {
                    const std::size_t ps = w.starts[j];
                    if (ps >= e) {
                        break;
                    }
                    const std::size_t pe = j + 1 < end ? w.starts[j + 1] : n;
                    const std::size_t lo = std::max(ps, s), hi = std::min(pe, e);
                    if (hi > lo) {
                        sum += w.values[j] * (prefixU[hi] - prefixU[lo]);
                    }
                }
                partial[v] += sum * sum;
            }
        }
        for (std::size_t v = levelBegin[d]; v < levelBegin[d + 1]; ++v) {
            const Node& node = nodes[v];
            if (node.children == 0) {
                continue;
            }
            double kch = 0, serr = 0;
            for (std::size_t c = node.firstChild; c < node.firstChild + node.children; ++c) {
                kch += k[c];
                serr += err[c];
            }
            const double m = kch * kch * coverSq[v] + partial[v];
            double best = serr, bestP = 1;
            for (std::size_t i = 1; i < granularity; ++i) {
                const double pp = (g - static_cast<double>(i)) / g, q = 1 - pp;
                const double value = (serr - q * q / (pp * pp + q * q * kch) * m) / (pp * pp);
                if (value < best) {
                    best = value;
                    bestP = pp;
                }
            }
            const double q = 1 - bestP;
            const double denom = bestP * bestP + q * q * kch;
            err[v] = best;
            p[v] = bestP;
            k[v] = kch / denom;
            for (std::size_t i = node.start; i < node.start + node.size; ++i) {
                u[i] /= denom;
            }
        }
    }
    // Absolute weights, top-down: a node keeps (1 − p) of its share, its children get p of it.
    std::vector<double> share(nodes.size(), 1.0);
    for (std::size_t v = 0; v < nodes.size(); ++v) {
        Node& node = nodes[v];
        if (node.children == 0) {
            node.weight = share[v];
            continue;
        }
        node.weight = share[v] * (1 - p[v]);
        for (std::size_t c = node.firstChild; c < node.firstChild + node.children; ++c) {
            share[c] = share[v] * p[v];
        }
    }
    std::size_t measured = 0;
    for (const Node& node : nodes) {
        measured += node.weight > 0 ? 1 : 0;
    }
    std::string what = "greedy weighted hierarchy (GreedyH, b = " + std::to_string(branching) +
                       "): " + std::to_string(measured) + " weighted intervals of " +
                       std::to_string(nodes.size()) + " nodes";
    return std::make_unique<WeightedTreeStrategy>(std::move(nodes), err[0], std::move(what));
}

// --- The algorithm -----------------------------------------------------------------------------

namespace {

class GreedyH final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "GreedyH",
            "Greedy weighted hierarchy",
            "Li, Hay, Miklau & Wang, PVLDB 2014",
            {1},
            false,
            true,
            false,
            {{"branching", 2, 2, 16, true, "branching factor b of the hierarchy"},
             {"granularity", 100, 1, 10000, true,
              "number of candidate splits per node (the grid of p)"}},
            "docs/algorithms/greedyh.md"};
        return i;
    }

    Expected<std::unique_ptr<LinearStrategy>> strategy(const DomainShape& shape,
                                                       const Workload& w) const override {
        return build(shape, w, 2, 100, {});
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto values = checkAlgorithmContext(info(), context);
        if (!values) {
            return values.error();
        }
        auto s = build(context.shape, *context.workload,
                       static_cast<std::size_t>(values->at("branching")),
                       static_cast<std::size_t>(values->at("granularity")), context.stop);
        if (!s) {
            return s.error();
        }
        auto y = measureLaplace(**s, context.x, context.epsilon, *context.rng);
        if (!y) {
            return y.error();
        }
        AlgorithmRun out;
        out.estimate.assign(context.x.size(), 0.0);
        (*s)->leastSquares(*y, out.estimate);
        out.spent.push_back({"measure the weighted hierarchy (Laplace, Δ₁ = 1)", context.epsilon});
        out.summary = "GreedyH: " + std::to_string((*s)->rows()) + " weighted intervals";
        return out;
    }

private:
    static Expected<std::unique_ptr<LinearStrategy>> build(const DomainShape& shape,
                                                           const Workload& w, std::size_t b,
                                                           std::size_t g, std::stop_token stop) {
        if (shape.size() != 1 || w.shape() != shape) {
            return Error{"GreedyH runs on 1-D data with a workload over the same domain"};
        }
        auto pw = piecewiseWorkload(w);
        if (!pw) {
            return pw.error();
        }
        auto tree = greedyHierarchy(*pw, b, g, std::move(stop));
        if (!tree) {
            return tree.error();
        }
        return std::unique_ptr<LinearStrategy>(std::move(tree).value());
    }
};

}  // namespace

const Algorithm& greedyHAlgorithm() {
    static const GreedyH a;
    return a;
}

}  // namespace dpx
