// StructureFirst (Xu, Zhang, Xiao, Yang, Yu & Winslett, "Differentially private histogram
// publication", ICDE 2012; VLDB Journal 22(6), 2013, §5). 1-D. docs/algorithms/structure_first.md.
//
//  1. Structure (ρε): the v-optimal k-bucket partition of the counts, clamped to [0, F] with F a
//     public bound (the authors' code: F = 10⁴·N/n, N the total treated as public; or F given
//     directly, which does not use N), computed by
//     dynamic programming; then its k − 1 boundaries are drawn privately from right to left: the
//     boundary that closes the prefix of i buckets before the previous boundary p is q with
//     P(q) ∝ exp(−ε₁/(k − 1)·(E[i][q] + SSE(q, p))/(2Δ)), E the v-optimal table, Δ = 2F + 1.
//  2. Counts ((1 − ρ)ε): Laplace(1/((1 − ρ)ε)) on every bucket's true count, spread uniformly.
// Privacy: with counts in [0, F], changing one count by 1 changes the SSE of the bucket holding it
// by at most 2F + 1 (its derivative 2(x − mean) lies in [−2F, 2F], plus the second-order 1 − 1/m)
// and no other bucket; E[i][q] is a minimum of such sums and the score adds one more bucket, so
// Δu = 2F + 1 and each draw is ε₁/(k − 1)-DP; the k − 1 draws compose to ε₁ = ρε; the buckets are
// disjoint, so the counts cost (1 − ρ)ε. Clamping is applied to both neighbours alike (a count
// moves by at most 1 after clamping too).
// The authors choose ε₁ by minimising their error bound (getOptEps1); here ρ is a parameter
// (default ½).
#include "core/algorithms/structure_first.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/algorithms/exponential_choice.h"
#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

struct Prefix {
    std::vector<double> s, q;  // prefix sums of x and x²
    explicit Prefix(std::span<const double> x) : s(x.size() + 1, 0.0), q(x.size() + 1, 0.0) {
        for (std::size_t i = 0; i < x.size(); ++i) {
            s[i + 1] = s[i] + x[i];
            q[i + 1] = q[i] + x[i] * x[i];
        }
    }
    // Σ(x − mean)² over [a, b), a < b.
    double sse(std::size_t a, std::size_t b) const {
        const double sum = s[b] - s[a];
        return std::max(0.0, (q[b] - q[a]) - sum * sum / static_cast<double>(b - a));
    }
};

std::vector<double> costs(const Prefix& p, std::size_t n, std::size_t k,
                          const std::stop_token& stop) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::size_t w = n + 1;
    std::vector<double> e((k + 1) * w, inf);
    for (std::size_t j = 1; j <= n; ++j) {
        e[w + j] = p.sse(0, j);
    }
    // E[i][j] = min_q E[i−1][q] + SSE(q, j) = Q_j + min_q (E[i−1][q] − Q_q − (S_j − S_q)²/(j − q)):
    // the inner loop is one multiply-add per q on precomputed arrays, with four independent
    // minima so that it pipelines (the O(k·n²) of the method is unchanged; SSE costs do not
    // satisfy the quadrangle inequality, so no monotone-split speed-up is exact here).
    std::vector<double> inverse(n + 1, 0.0), base(n + 1, inf);
    for (std::size_t len = 1; len <= n; ++len) {
        inverse[len] = 1 / static_cast<double>(len);
    }
    for (std::size_t i = 2; i <= k; ++i) {
        if (stop.stop_requested()) {
            return {};
        }
        const double* prev = e.data() + (i - 1) * w;
        double* row = e.data() + i * w;
        for (std::size_t q = i - 1; q <= n; ++q) {
            base[q] = prev[q] - p.q[q];
        }
        for (std::size_t j = i; j <= n; ++j) {
            const double sj = p.s[j];
            double m0 = inf, m1 = inf, m2 = inf, m3 = inf;
            std::size_t q = i - 1;
            for (; q + 4 <= j; q += 4) {
                const double d0 = sj - p.s[q], d1 = sj - p.s[q + 1];
                const double d2 = sj - p.s[q + 2], d3 = sj - p.s[q + 3];
                m0 = std::min(m0, base[q] - d0 * d0 * inverse[j - q]);
                m1 = std::min(m1, base[q + 1] - d1 * d1 * inverse[j - q - 1]);
                m2 = std::min(m2, base[q + 2] - d2 * d2 * inverse[j - q - 2]);
                m3 = std::min(m3, base[q + 3] - d3 * d3 * inverse[j - q - 3]);
            }
            for (; q < j; ++q) {
                const double d = sj - p.s[q];
                m0 = std::min(m0, base[q] - d * d * inverse[j - q]);
            }
            // Rounding can leave a hair below E[i−1][q] when the last bucket is constant.
            row[j] = std::max(0.0, p.q[j] + std::min(std::min(m0, m1), std::min(m2, m3)));
        }
    }
    return e;
}

class StructureFirst final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "StructureFirst",
            "StructureFirst (private v-optimal buckets)",
            "Xu, Zhang, Xiao, Yang, Yu & Winslett, ICDE 2012 / VLDB J. 2013",
            {1},
            true,
            false,
            true,
            {{"kRatio", 0.1, 1e-6, 1, false,
              "number of buckets k = ⌈kRatio·n⌉ (default n/10, see the doc page)"},
             {"rho", 0.5, 0.01, 0.99, false, "fraction of ε spent on the bucket boundaries"},
             {"maxCountFactor", 1e4, 1e-6, 1e12, false,
              "public bound F = maxCountFactor·N/n on a count, N the total treated as public "
              "(the authors' code: 10⁴)"},
             {"maxCount", 0, 0, 1e15, false,
              "a public bound F on a count given directly (0: use maxCountFactor·N/n)"}},
            "docs/algorithms/structure_first.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto params = checkAlgorithmContext(info(), context);
        if (!params) {
            return params.error();
        }
        const std::size_t n = context.x.size();
        const auto k = std::clamp<std::size_t>(
            static_cast<std::size_t>(
                std::ceil(params->at("kRatio") * static_cast<double>(n) - 1e-9)),
            1, n);
        const double eps1 = k > 1 ? params->at("rho") * context.epsilon : 0.0;
        const double eps2 = context.epsilon - eps1;
        double total = 0;
        for (double v : context.x) {
            total += v;
        }
        // F ≥ 1 so that Δ stays meaningful on empty data.
        const double bound =
            params->at("maxCount") > 0
                ? params->at("maxCount")
                : std::max(1.0, params->at("maxCountFactor") * total / static_cast<double>(n));
        const double sensitivity = 2 * bound + 1;
        SimulationRng& rng = *context.rng;

        std::vector<std::size_t> bounds{n};
        if (k > 1) {
            std::vector<double> clamped(context.x.begin(), context.x.end());
            for (double& v : clamped) {
                v = std::min(v, bound);
            }
            const Prefix p(clamped);
            const std::vector<double> e = costs(p, n, k, context.stop);
            if (e.empty()) {
                return Error{"StructureFirst: cancelled"};
            }
            const double factor = eps1 / static_cast<double>(k - 1) / (2 * sensitivity);
            std::vector<double> score;
            std::size_t last = n;
            for (std::size_t i = k - 1; i >= 1; --i) {
                // The boundary q closing i buckets: i ≤ q ≤ last − 1.
                score.clear();
                for (std::size_t q = i; q < last; ++q) {
                    score.push_back(-(e[i * (n + 1) + q] + p.sse(q, last)));
                }
                last = i + sampleExponentialMechanism(score, factor, rng);
                bounds.push_back(last);
            }
        }
        bounds.push_back(0);
        std::sort(bounds.begin(), bounds.end());

        AlgorithmRun out;
        out.estimate.assign(n, 0.0);
        const NoiseDistribution noise = NoiseDistribution::laplace(1 / eps2);
        const Prefix truth(context.x);
        for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
            const std::size_t lo = bounds[b], hi = bounds[b + 1];
            const double count = truth.s[hi] - truth.s[lo] + sampleNoise(noise, rng);
            std::fill(out.estimate.begin() + static_cast<std::ptrdiff_t>(lo),
                      out.estimate.begin() + static_cast<std::ptrdiff_t>(hi),
                      count / static_cast<double>(hi - lo));
        }
        if (k > 1) {
            out.spent.push_back({std::to_string(k - 1) +
                                     " bucket boundaries (exponential mechanism on v-optimal "
                                     "costs, Δu = 2F + 1, ε₁/(k − 1) each)",
                                 eps1});
        }
        out.spent.push_back({"bucket counts (Laplace, sensitivity 1)", eps2});
        out.summary = "StructureFirst: " + std::to_string(k) + " buckets (F = " +
                      std::to_string(static_cast<long long>(std::llround(bound))) + ", N public)";
        return out;
    }
};

}  // namespace

std::vector<double> vOptimalCosts(std::span<const double> x, std::size_t k) {
    return costs(Prefix(x), x.size(), k, {});
}

const Algorithm& structureFirstAlgorithm() {
    static const StructureFirst a;
    return a;
}

}  // namespace dpx
