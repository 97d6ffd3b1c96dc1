// AHP (Zhang, Chen, Xu, Meng & Xie, "Towards accurate histogram publication under differential
// privacy", SDM 2014), with DPBench's defaults η = 0.35 and ratio 0.85 (Hay et al. 2016):
//  1. noisy counts x̃ = x + Laplace(1/ε₁), ε₁ = ratio·ε (Δ₁ = 1);
//  2. x̃_i ≤ η·ln(N)/ε₁ is set to 0 (N = number of cells) — post-processing;
//  3. the cells sorted by x̃ are cut greedily into runs (clusters): cell j joins the current
//     cluster C unless err(C ∪ {j}) ≥ err(C) + err*(j), where err(C) = Σ_{i∈C}(x̃_i − x̃_C)² +
//     2/(ε₂²|C|) is the cluster's squared error when its sum is measured with Laplace(1/ε₂) and
//     spread evenly, and err*(j) = min over the clusters starting at j of j's share
//     (x̃_j − mean)² + 2/(ε₂²|C|²) — post-processing of x̃;
//  4. every cluster's true sum is measured with Laplace(1/ε₂), ε₂ = ε − ε₁ (a cell is in one
//     cluster: Δ₁ = 1) and spread evenly over its cells.
// ε₁ + ε₂ = ε by sequential composition. Clustering ignores the cells' positions, so AHP runs on
// any shape (1-D and 2-D).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/registry_list.h"
#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"

namespace dpx {

namespace {

// Cluster the sorted values v (ascending) greedily; returns the cluster starts (first 0).
std::vector<std::size_t> greedyClusters(const std::vector<double>& v, double eps2) {
    const std::size_t n = v.size();
    const double twoOverEps2 = 2.0 / (eps2 * eps2);
    std::vector<double> p(n + 1, 0.0), pp(n + 1, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        p[i + 1] = p[i] + v[i];
        pp[i + 1] = pp[i] + v[i] * v[i];
    }
    // err of the run [i, j] (inclusive).
    auto err = [&](std::size_t i, std::size_t j) {
        const double len = static_cast<double>(j - i + 1);
        const double sum = p[j + 1] - p[i];
        const double sse = std::max(0.0, (pp[j + 1] - pp[i]) - sum * sum / len);
        return sse + twoOverEps2 / len;
    };
    // runEnd[j]: one past the last index holding the value v[j].
    std::vector<std::size_t> runEnd(n);
    for (std::size_t j = n; j-- > 0;) {
        runEnd[j] = (j + 1 < n && v[j + 1] == v[j]) ? runEnd[j + 1] : j + 1;
    }
    // err*(j): j's smallest share of a cluster [j, l]. (v_j − mean)² does not decrease with l
    // (v is sorted, so the mean moves away from v_j), so the search stops once it alone reaches
    // the best found; within a run of equal values it is 0 and the longest run is best. Like the
    // paper (§4, early termination), it also stops when one step raises (v_j − mean)² by more
    // than the noise term 2/(ε₂²|C|²) can still fall (to its value at the end of the domain).
    auto errStar = [&](std::size_t j) {
        std::size_t l = runEnd[j] - 1;
        double len = static_cast<double>(l - j + 1);
        double best = twoOverEps2 / (len * len);
        double lastE1 = 0, lastE2 = best;
        const double rest = static_cast<double>(n - j);
        const double floorE2 = twoOverEps2 / (rest * rest);
        for (++l; l < n; ++l) {
            len = static_cast<double>(l - j + 1);
            const double mean = (p[l + 1] - p[j]) / len;
            const double e1 = (v[j] - mean) * (v[j] - mean);
            const double e2 = twoOverEps2 / (len * len);
            if (e1 >= best || e1 - lastE1 >= lastE2 - floorE2) {
                break;
            }
            best = std::min(best, e1 + e2);
            lastE1 = e1;
            lastE2 = e2;
        }
        return best;
    };
    std::vector<std::size_t> starts{0};
    std::size_t i = 0;
    double last = err(0, 0);
    for (std::size_t j = 1; j < n; ++j) {
        const double now = err(i, j);
        if (now >= last + errStar(j)) {
            starts.push_back(j);
            i = j;
            last = err(j, j);
        } else {
            last = now;
        }
    }
    return starts;
}

class Ahp final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "AHP",
            "Adaptive histogram publication: noisy threshold, sort and cluster",
            "Zhang, Chen, Xu, Meng & Xie, SDM 2014",
            {1, 2},
            true,
            false,
            false,
            {{"eta", 0.35, 0, 10, false,
              "threshold factor η: noisy counts ≤ η·ln(N)/ε₁ are set to 0"},
             {"ratio", 0.85, 0.01, 0.99, false,
              "fraction of ε spent on the noisy counts that drive the clustering"}},
            "docs/algorithms/ahp.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto values = checkAlgorithmContext(info(), context);
        if (!values) {
            return values.error();
        }
        const std::size_t n = context.x.size();
        const double eps1 = values->at("ratio") * context.epsilon;
        const double eps2 = context.epsilon - eps1;
        SimulationRng& rng = *context.rng;
        std::vector<double> noisy(n);
        sampleNoise(NoiseDistribution::laplace(1.0 / eps1), rng, noisy);
        const double cutoff = values->at("eta") * std::log(static_cast<double>(n)) / eps1;
        for (std::size_t i = 0; i < n; ++i) {
            noisy[i] += context.x[i];
            if (noisy[i] <= cutoff) {
                noisy[i] = 0;
            }
        }
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return noisy[a] < noisy[b]; });
        std::vector<double> sorted(n);
        for (std::size_t i = 0; i < n; ++i) {
            sorted[i] = noisy[order[i]];
        }
        if (context.stop.stop_requested()) {
            return Error{"AHP: cancelled"};
        }
        const std::vector<std::size_t> starts = greedyClusters(sorted, eps2);
        const NoiseDistribution measure = NoiseDistribution::laplace(1.0 / eps2);
        AlgorithmRun out;
        out.estimate.assign(n, 0.0);
        for (std::size_t c = 0; c < starts.size(); ++c) {
            const std::size_t end = c + 1 < starts.size() ? starts[c + 1] : n;
            double total = 0;
            for (std::size_t i = starts[c]; i < end; ++i) {
                total += context.x[order[i]];
            }
            const double share =
                (total + sampleNoise(measure, rng)) / static_cast<double>(end - starts[c]);
            for (std::size_t i = starts[c]; i < end; ++i) {
                out.estimate[order[i]] = share;
            }
        }
        out.spent.push_back({"noisy counts for thresholding and clustering", eps1});
        out.spent.push_back({"measure the clusters", eps2});
        out.summary = "AHP: " + std::to_string(starts.size()) + " clusters";
        return out;
    }
};

}  // namespace

const Algorithm& ahpAlgorithm() {
    static const Ahp a;
    return a;
}

}  // namespace dpx
