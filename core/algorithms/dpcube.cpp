// DPCube (Xiao, Xiong, Fan, Goryczka & Li, "DPCube: Differentially private histogram release
// through multidimensional partitioning", Transactions on Data Privacy 7(3), 2014; first as
// Xiao, Xiong, Fan & Goryczka, arXiv:1202.5358, 2012). 1-D and 2-D. docs/algorithms/dpcube.md.
//
//  1. Cell histogram (α·ε): the domain in blocks of gz bins per dimension (DPBench's gz = 11;
//     gz = 1 is the paper's cell histogram), one Laplace(1/(αε)) count per block.
//  2. kd-tree partitioning of that noisy histogram (post-processing): a node is split along its
//     longer side at the position minimising the v-optimal cost (sum of squared deviations of
//     the per-bin noisy averages from the node's mean) of the two halves, when the cost drops by
//     more than 1/((1 − α)ε), the price DPBench puts on one more noisy count. The noisy averages
//     are constant inside a block, so the best split lies on a block edge (the cost is concave
//     along a constant run), and the tree works on whole blocks.
//  3. Partition counts ((1 − α)·ε): Laplace(1/((1 − α)ε)) on every leaf's true count.
//  4. Consistency: a leaf's total is estimated from both its noisy count z and the sum of its
//     blocks' noisy counts by inverse-variance weighting (their least-squares combination, the
//     core/algorithms/grids.h combineWithParts, as in AGrid), then spread uniformly over the leaf's
//     bins (the leaf is homogeneous by construction). DPBench's DPCube spreads z alone; combining
//     only lowers the variance.
// Privacy: blocks are disjoint (sensitivity 1) → αε-DP; the tree is a function of step 1's
// output; leaves are disjoint (sensitivity 1) → (1 − α)ε-DP given the tree; sequential
// composition gives ε. N is not used.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/algorithms/grids.h"
#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"

namespace dpx {

namespace {

// Summed-area table over an r × c grid: at(i, j) = Σ over [0, i) × [0, j).
class Sat {
public:
    Sat(const std::vector<double>& v, std::size_t rows, std::size_t cols)
        : w_(cols + 1), s_((rows + 1) * (cols + 1), 0.0) {
        for (std::size_t r = 0; r < rows; ++r) {
            double line = 0;
            for (std::size_t c = 0; c < cols; ++c) {
                line += v[r * cols + c];
                s_[(r + 1) * w_ + c + 1] = s_[r * w_ + c + 1] + line;
            }
        }
    }
    double box(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) const {
        return s_[r1 * w_ + c1] - s_[r0 * w_ + c1] - s_[r1 * w_ + c0] + s_[r0 * w_ + c0];
    }

private:
    std::size_t w_;
    std::vector<double> s_;
};

struct Node {
    std::size_t r0, r1, c0, c1;  // half-open, in blocks
};

class DPCube final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "DPCube",
            "Two-phase kd-tree partitioning",
            "Xiao, Xiong, Fan, Goryczka & Li, Transactions on Data Privacy 2014",
            {1, 2},
            true,
            false,
            false,
            {{"alpha", 0.5, 0.01, 0.99, false,
              "fraction of ε spent on the cell histogram (DPBench: α = 0.5)"},
             {"gz", 11, 1, 1e6, true,
              "cell width in bins per dimension of the first-phase histogram (DPBench: 11; the "
              "paper: 1)"}},
            "docs/algorithms/dpcube.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto params = checkAlgorithmContext(info(), context);
        if (!params) {
            return params.error();
        }
        const double alpha = params->at("alpha");
        const auto gz = static_cast<std::size_t>(params->at("gz"));
        const bool twoD = context.shape.size() == 2;
        const std::size_t rows = twoD ? context.shape[0] : 1;
        const std::size_t cols = twoD ? context.shape[1] : context.shape[0];
        const std::size_t gr = twoD ? std::min(gz, rows) : 1, gc = std::min(gz, cols);
        const std::size_t br = (rows + gr - 1) / gr, bc = (cols + gc - 1) / gc;
        const double eps1 = alpha * context.epsilon, eps2 = context.epsilon - eps1;
        const NoiseDistribution noise1 = NoiseDistribution::laplace(1 / eps1);
        const NoiseDistribution noise2 = NoiseDistribution::laplace(1 / eps2);
        SimulationRng& rng = *context.rng;

        // Step 1: true and noisy block counts, block sizes, and Σ y²/size for the costs.
        std::vector<double> truth(br * bc, 0.0), size(br * bc, 0.0);
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                truth[(r / gr) * bc + c / gc] += context.x[r * cols + c];
                size[(r / gr) * bc + c / gc] += 1;
            }
        }
        std::vector<double> noisy(truth.size()), sq(truth.size());
        sampleNoise(noise1, rng, noisy);
        for (std::size_t b = 0; b < truth.size(); ++b) {
            noisy[b] += truth[b];
            sq[b] = noisy[b] * noisy[b] / size[b];
        }
        const Sat satTruth(truth, br, bc), satNoisy(noisy, br, bc), satSq(sq, br, bc),
            satSize(size, br, bc);
        // v-optimal cost of a node: Σ_bins (a − mean)² with a the per-bin noisy average.
        const auto cost = [&](const Node& n) {
            const double y = satNoisy.box(n.r0, n.r1, n.c0, n.c1);
            return satSq.box(n.r0, n.r1, n.c0, n.c1) - y * y / satSize.box(n.r0, n.r1, n.c0, n.c1);
        };
        const double price = 1 / eps2;

        // Step 2: the kd-tree, depth first with an explicit stack.
        std::vector<Node> leaves, stack{{0, br, 0, bc}};
        while (!stack.empty()) {
            if (context.stop.stop_requested()) {
                return Error{"DPCube: cancelled"};
            }
            const Node n = stack.back();
            stack.pop_back();
            const std::size_t binsDown = std::min(rows, n.r1 * gr) - n.r0 * gr;
            const std::size_t binsAcross = std::min(cols, n.c1 * gc) - n.c0 * gc;
            bool down = binsDown > binsAcross;  // split the longer side (ties: across)
            if (down ? n.r1 - n.r0 < 2 : n.c1 - n.c0 < 2) {
                down = !down;
            }
            const std::size_t lo = down ? n.r0 : n.c0, hi = down ? n.r1 : n.c1;
            const double whole = cost(n);
            double best = whole - price;  // a split must lower the cost by more than the price
            std::size_t at = 0;
            for (std::size_t t = lo + 1; t < hi; ++t) {
                const Node a = down ? Node{n.r0, t, n.c0, n.c1} : Node{n.r0, n.r1, n.c0, t};
                const Node b = down ? Node{t, n.r1, n.c0, n.c1} : Node{n.r0, n.r1, t, n.c1};
                const double split = cost(a) + cost(b);
                if (split < best) {
                    best = split;
                    at = t;
                }
            }
            if (at == 0) {
                leaves.push_back(n);
                continue;
            }
            stack.push_back(down ? Node{at, n.r1, n.c0, n.c1} : Node{n.r0, n.r1, at, n.c1});
            stack.push_back(down ? Node{n.r0, at, n.c0, n.c1} : Node{n.r0, n.r1, n.c0, at});
        }

        // Steps 3 and 4: leaf counts, combined with the leaf's noisy blocks, spread uniformly.
        AlgorithmRun out;
        out.estimate.assign(rows * cols, 0.0);
        std::vector<double> blocks;
        for (const Node& n : leaves) {
            const double z = satTruth.box(n.r0, n.r1, n.c0, n.c1) + sampleNoise(noise2, rng);
            blocks.assign((n.r1 - n.r0) * (n.c1 - n.c0), 0.0);
            for (std::size_t i = n.r0, k = 0; i < n.r1; ++i) {
                for (std::size_t j = n.c0; j < n.c1; ++j) {
                    blocks[k++] = noisy[i * bc + j];
                }
            }
            const double total = combineWithParts(z, noise2.variance(), blocks, noise1.variance());
            const std::size_t r0 = n.r0 * gr, r1 = std::min(rows, n.r1 * gr);
            const std::size_t c0 = n.c0 * gc, c1 = std::min(cols, n.c1 * gc);
            const double each = total / static_cast<double>((r1 - r0) * (c1 - c0));
            for (std::size_t r = r0; r < r1; ++r) {
                std::fill(out.estimate.begin() + static_cast<std::ptrdiff_t>(r * cols + c0),
                          out.estimate.begin() + static_cast<std::ptrdiff_t>(r * cols + c1), each);
            }
        }
        out.spent = {{"cell histogram (Laplace, sensitivity 1)", eps1},
                     {"partition counts (Laplace, sensitivity 1)", eps2}};
        out.summary =
            "DPCube: " + std::to_string(leaves.size()) + " partitions of " +
            std::to_string(br * bc) + " cells of " +
            (twoD ? std::to_string(gr) + " × " + std::to_string(gc) : std::to_string(gc)) + " bins";
        return out;
    }
};

}  // namespace

const Algorithm& dpcubeAlgorithm() {
    static const DPCube a;
    return a;
}

}  // namespace dpx
