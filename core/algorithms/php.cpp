// PHP — P-HPartition (Ács, Castelluccia & Chen, "Differentially private histogram publishing
// through lossy compression", ICDM 2012, §V). 1-D. docs/algorithms/php.md.
//
//  1. Bisection (ρε/2): starting from one interval, the open intervals are visited level by
//     level (breadth first, at most ⌊log₂ n⌋ levels); the exponential mechanism chooses for each
//     between "keep it" (utility −(SAE(I) + b)) and "cut it at k" (utility −(SAE(left) +
//     SAE(right) + 2b)). SAE is the sum of absolute deviations of the true counts from their
//     interval's mean and b = 1/((1 − ρ)ε) the expected absolute error of one more noisy count
//     (E|Laplace(b)| = b, spread over its bins). Every cut adds one partition to a sequence.
//  2. Choice (ρε/2): the exponential mechanism picks one partition of that sequence with utility
//     −(Σ SAE + K·b), K its number of intervals — the step of the authors' code (DPBench's PHP)
//     that keeps the partition from being cut on noise: with the bisection's small per-level
//     budget, a flat interval is cut almost as often as kept.
//  3. Counts ((1 − ρ)ε): Laplace(b) on every interval of the chosen partition, spread uniformly.
// Privacy: adding or removing one record changes one count by 1; the SAE of the interval holding
// it moves by at most 2(m − 1)/m < 2 (its own term by ≤ 1 − 1/m, each of the m − 1 others by
// ≤ 1/m through the mean), and every utility above holds one such interval, so Δu = 2 and an
// exponential mechanism with factor ε′/(2Δu) is ε′-DP. In step 1 each level's intervals are
// disjoint (parallel composition) and a bin's interval is decided at most once per level, so
// ⌊log₂ n⌋ levels at (ρε/2)/⌊log₂ n⌋ each cost ρε/2 (adaptive sequential composition); step 2
// costs ρε/2; the chosen intervals are disjoint, so step 3 costs (1 − ρ)ε. Total ε.
#include "core/algorithms/php.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/algorithms/exponential_choice.h"
#include "core/algorithms/registry_list.h"
#include "core/base/simulation_rng.h"

namespace dpx {

namespace {

// SAE of every prefix of v: out[j] = Σ_{i<j} |v_i − mean(v_0..v_{j−1})|, j = 0..m, in
// O(m log m): a Fenwick tree over the value ranks gives the count and sum of the inserted values
// at or below the current mean.
std::vector<double> prefixSae(std::span<const double> v) {
    const std::size_t m = v.size();
    std::vector<double> sorted(v.begin(), v.end());
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> cnt(m + 1, 0.0), sum(m + 1, 0.0);
    std::vector<double> out(m + 1, 0.0);
    double total = 0;
    for (std::size_t j = 0; j < m; ++j) {
        // Insert v[j] at its rank (1-based; equal values share the first rank, fine for sums).
        const auto rank = static_cast<std::size_t>(
            std::lower_bound(sorted.begin(), sorted.end(), v[j]) - sorted.begin() + 1);
        for (std::size_t i = rank; i <= m; i += i & (~i + 1)) {
            cnt[i] += 1;
            sum[i] += v[j];
        }
        total += v[j];
        const double count = static_cast<double>(j + 1);
        const double mean = total / count;
        // Ranks whose value ≤ mean: 1..r.
        const auto r = static_cast<std::size_t>(
            std::upper_bound(sorted.begin(), sorted.end(), mean) - sorted.begin());
        double cLe = 0, sLe = 0;
        for (std::size_t i = r; i > 0; i -= i & (~i + 1)) {
            cLe += cnt[i];
            sLe += sum[i];
        }
        out[j + 1] = std::max(0.0, (mean * cLe - sLe) + ((total - sLe) - mean * (count - cLe)));
    }
    return out;
}

struct Interval {
    std::size_t lo, hi;  // [lo, hi)
};

class Php final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "PHP",
            "P-HPartition (hierarchical bisection)",
            "Ács, Castelluccia & Chen, ICDM 2012",
            {1},
            true,
            false,
            false,
            {{"rho", 0.5, 0.01, 0.99, false,
              "fraction of ε spent on the partition (Ács et al. 2012 and DPBench: ½)"}},
            "docs/algorithms/php.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto params = checkAlgorithmContext(info(), context);
        if (!params) {
            return params.error();
        }
        const std::size_t n = context.x.size();
        const auto x = context.x;
        SimulationRng& rng = *context.rng;
        std::size_t depth = 0;
        while ((std::size_t{2} << depth) <= n) {
            ++depth;  // ⌊log₂ n⌋
        }
        AlgorithmRun out;
        const double eps1 = depth == 0 ? 0.0 : params->at("rho") * context.epsilon;
        const double eps2 = context.epsilon - eps1;
        const double b = 1 / eps2;
        const double perLevel = depth == 0 ? 0.0 : eps1 / 2 / static_cast<double>(depth);
        const double sensitivity = 2;

        // Step 1: breadth-first bisection; every cut (in order) and the partition error after it.
        std::vector<Interval> open{{0, n}};
        std::vector<std::size_t> cuts;
        std::vector<double> errors;  // errors[c]: Σ SAE + K·b after the first c cuts
        {
            const std::vector<double> whole = prefixSae(x);
            errors.push_back(whole[n] + b);
        }
        std::vector<double> utility;
        for (std::size_t level = 1; level <= depth && !open.empty(); ++level) {
            if (context.stop.stop_requested()) {
                return Error{"PHP: cancelled"};
            }
            std::vector<Interval> next;
            for (const Interval& iv : open) {
                const std::size_t m = iv.hi - iv.lo;
                if (m < 2) {
                    continue;
                }
                const std::span<const double> v = x.subspan(iv.lo, m);
                const std::vector<double> pre = prefixSae(v);
                const std::vector<double> rev(v.rbegin(), v.rend());
                const std::vector<double> suf = prefixSae(rev);  // suf[j]: SAE of the last j
                utility.assign(m, 0.0);
                utility[0] = -(pre[m] + b);  // keep whole
                for (std::size_t k = 1; k < m; ++k) {
                    utility[k] = -(pre[k] + suf[m - k] + 2 * b);  // cut before bin lo + k
                }
                const std::size_t pick =
                    sampleExponentialMechanism(utility, perLevel / (2 * sensitivity), rng);
                if (pick != 0) {
                    cuts.push_back(iv.lo + pick);
                    errors.push_back(errors.back() - (pre[m] + b) - utility[pick]);
                    next.push_back({iv.lo, iv.lo + pick});
                    next.push_back({iv.lo + pick, iv.hi});
                }
            }
            open = std::move(next);
        }

        // Step 2: one partition of the sequence.
        std::size_t chosen = 0;
        if (depth > 0) {
            for (double& e : errors) {
                e = -e;
            }
            chosen = sampleExponentialMechanism(errors, eps1 / 2 / (2 * sensitivity), rng);
        }
        std::vector<std::size_t> bounds(cuts.begin(),
                                        cuts.begin() + static_cast<std::ptrdiff_t>(chosen));
        bounds.push_back(0);
        bounds.push_back(n);
        std::sort(bounds.begin(), bounds.end());
        std::vector<Interval> done;
        for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
            done.push_back({bounds[i], bounds[i + 1]});
        }
        if (depth > 0) {
            out.spent.push_back({"bisection (exponential mechanism per cut, SAE utility, Δu = 2, " +
                                     std::to_string(depth) + " levels)",
                                 eps1 / 2});
            out.spent.push_back(
                {"choice of a partition (exponential mechanism, Δu = 2)", eps1 - eps1 / 2});
        }

        const NoiseDistribution noise = NoiseDistribution::laplace(b);
        out.estimate.assign(n, 0.0);
        for (const Interval& iv : done) {
            const double count =
                std::accumulate(x.begin() + static_cast<std::ptrdiff_t>(iv.lo),
                                x.begin() + static_cast<std::ptrdiff_t>(iv.hi), 0.0) +
                sampleNoise(noise, rng);
            std::fill(out.estimate.begin() + static_cast<std::ptrdiff_t>(iv.lo),
                      out.estimate.begin() + static_cast<std::ptrdiff_t>(iv.hi),
                      count / static_cast<double>(iv.hi - iv.lo));
        }
        out.spent.push_back({"partition counts (Laplace, sensitivity 1)", eps2});
        out.summary = "PHP: " + std::to_string(done.size()) + " intervals (chosen among " +
                      std::to_string(cuts.size() + 1) + " partitions of the bisection)";
        return out;
    }
};

}  // namespace

const Algorithm& phpAlgorithm() {
    static const Php a;
    return a;
}

// Exposed for the tests: the prefix SAEs used by PHP's utility.
std::vector<double> phpPrefixSae(std::span<const double> v) {
    return prefixSae(v);
}

}  // namespace dpx
