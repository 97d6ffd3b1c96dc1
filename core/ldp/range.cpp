// Range queries under local DP: HH_B, Hay et al. consistency, HaarHRR (seed 001 ch. 5).
#include "core/ldp/range.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "core/base/simulation_rng.h"

namespace dpx::ldp {

namespace {

Error fail(std::string message) {
    return Error{std::move(message)};
}

// SplitMix64 finaliser: derives independent seeds for the per-level oracles from one seed.
std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t salt) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (salt + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// UniformRandomBitGenerator view of SimulationRng, for std::binomial_distribution (libstdc++'s
// exact rejection sampler; reproducible for a given standard library).
struct RngBits {
    using result_type = std::uint64_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
    result_type operator()() { return rng.next(); }
    SimulationRng& rng;
};

std::int64_t binomial(RngBits& bits, std::int64_t n, double p) {
    if (n <= 0 || p <= 0) {
        return 0;
    }
    if (p >= 1) {
        return n;
    }
    std::binomial_distribution<std::int64_t> dist(n, p);
    return dist(bits);
}

// Checks the true counts against the domain; returns N.
Expected<std::uint64_t> checkCounts(std::span<const std::int64_t> counts, std::size_t domain) {
    if (counts.size() != domain) {
        return fail("true counts: " + std::to_string(counts.size()) +
                    " values given but the domain D is " + std::to_string(domain));
    }
    std::uint64_t n = 0;
    for (std::size_t v = 0; v < counts.size(); ++v) {
        if (counts[v] < 0) {
            return fail("true counts: count of value " + std::to_string(v) + " is negative");
        }
        n += static_cast<std::uint64_t>(counts[v]);
    }
    if (n == 0) {
        return fail("true counts: no users (all counts are 0)");
    }
    return n;
}

Status checkRange(Range r, std::size_t domain) {
    if (r.lo > r.hi) {
        return fail("range [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
                    "]: lo exceeds hi");
    }
    if (r.hi >= domain) {
        return fail("range [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
                    "]: hi must be below the domain size D = " + std::to_string(domain));
    }
    return okStatus();
}

std::size_t ipow(std::size_t b, std::size_t e) {
    std::size_t r = 1;
    for (std::size_t i = 0; i < e; ++i) {
        r *= b;
    }
    return r;
}

Status checkShape(const HierarchicalEstimate& e) {
    const Hierarchy& s = e.shape;
    if (s.branching < 2 || s.height < 1 || s.domain < 2 || e.levels.size() != s.height + 1) {
        return fail("hierarchical estimate: malformed (levels do not match the hierarchy)");
    }
    for (std::size_t l = 0; l <= s.height; ++l) {
        if (e.levels[l].size() != s.nodesAt(l)) {
            return fail("hierarchical estimate: level " + std::to_string(l) + " has " +
                        std::to_string(e.levels[l].size()) + " nodes, expected " +
                        std::to_string(s.nodesAt(l)));
        }
    }
    return okStatus();
}

Status checkShape(const HaarEstimate& e) {
    if (e.height < 1 || e.paddedDomain != (std::size_t{1} << e.height) || e.domain < 2 ||
        e.domain > e.paddedDomain || e.details.size() != e.height + 1) {
        return fail("Haar estimate: malformed (details do not match the domain)");
    }
    for (std::size_t l = 1; l <= e.height; ++l) {
        if (e.details[l].size() != (e.paddedDomain >> l)) {
            return fail("Haar estimate: height " + std::to_string(l) + " has " +
                        std::to_string(e.details[l].size()) + " coefficients, expected " +
                        std::to_string(e.paddedDomain >> l));
        }
    }
    return okStatus();
}

// HH prefix/range value without validation (range checked by the caller).
double hhRange(const HierarchicalEstimate& e, Range r) {
    const auto nodes = badicDecomposition(e.shape, r);
    double sum = 0;
    for (const TreeNode& n : *nodes) {
        sum += e.levels[n.level][n.index];
    }
    return sum;
}

// Haar prefix P(x) = R̂[0, x] (see the header for the formula).
double haarPrefix(const HaarEstimate& e, std::size_t x) {
    double p = static_cast<double>(x + 1) / static_cast<double>(e.paddedDomain);
    for (std::size_t l = 1; l <= e.height; ++l) {
        const std::size_t k = x >> l;
        const std::size_t half = std::size_t{1} << (l - 1);
        const std::size_t start = k << l;
        const std::size_t overlap = x - start + 1;  // leaves of node k in [0, x], 1 … 2^l
        const std::size_t left = std::min(overlap, half);
        const std::size_t right = overlap - left;
        if (left == right) {
            continue;  // fully covered node
        }
        p += e.details[l][k] * (static_cast<double>(left) - static_cast<double>(right)) /
             static_cast<double>(std::size_t{1} << l);
    }
    return p;
}

double haarRange(const HaarEstimate& e, Range r) {
    const double upper = haarPrefix(e, r.hi);
    return r.lo == 0 ? upper : upper - haarPrefix(e, r.lo - 1);
}

std::vector<double> truePrefixFractions(std::span<const std::int64_t> counts, std::uint64_t n) {
    std::vector<double> prefix(counts.size() + 1, 0.0);
    std::int64_t run = 0;
    for (std::size_t v = 0; v < counts.size(); ++v) {
        run += counts[v];
        prefix[v + 1] = static_cast<double>(run) / static_cast<double>(n);
    }
    return prefix;
}

template <class Estimate, class RangeFn>
Expected<double> mseImpl(const Estimate& e, std::size_t domain,
                         std::span<const std::int64_t> counts, std::span<const Range> ranges,
                         RangeFn&& answer) {
    const auto n = checkCounts(counts, domain);
    if (!n) {
        return n.error();
    }
    if (ranges.empty()) {
        return fail("range workload is empty");
    }
    const std::vector<double> prefix = truePrefixFractions(counts, *n);
    double sum = 0;
    for (const Range& r : ranges) {
        if (const Status s = checkRange(r, domain); !s) {
            return s.error();
        }
        const double truth = prefix[r.hi + 1] - prefix[r.lo];
        const double err = answer(e, r) - truth;
        sum += err * err;
    }
    return sum / static_cast<double>(ranges.size());
}

template <class PrefixFn>
std::size_t quantileSearch(std::size_t domain, double q, PrefixFn&& prefix) {
    // Smallest x in [0, D−1] with P̂(x) ≥ q under monotonicity; invariant: P̂(hi) ≥ q or hi = D−1.
    std::size_t lo = 0;
    std::size_t hi = domain - 1;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (prefix(mid) >= q) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

Status checkQuantile(double q) {
    if (!(q >= 0 && q <= 1)) {
        return fail("quantile q must lie in [0, 1]");
    }
    return okStatus();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::size_t Hierarchy::nodesAt(std::size_t level) const {
    return ipow(branching, level);
}

std::size_t Hierarchy::leavesPerNode(std::size_t level) const {
    return ipow(branching, height - level);
}

Expected<Hierarchy> makeHierarchy(std::size_t domain, std::size_t branching) {
    if (domain < 2) {
        return fail("domain D must be at least 2 (got " + std::to_string(domain) + ")");
    }
    if (branching < 2) {
        return fail("branching factor B must be at least 2 (got " + std::to_string(branching) +
                    ")");
    }
    if (domain > kMaxDomain || branching > kMaxDomain) {
        return fail("domain D and branching factor B must not exceed " +
                    std::to_string(kMaxDomain));
    }
    Hierarchy h;
    h.domain = domain;
    h.branching = branching;
    std::size_t padded = 1;
    while (padded < domain) {
        padded *= branching;
        ++h.height;
    }
    if (padded > kMaxDomain) {
        return fail("padded domain B^h = " + std::to_string(padded) + " exceeds the maximum " +
                    std::to_string(kMaxDomain) + " (choose another branching factor B)");
    }
    h.paddedDomain = padded;
    return h;
}

Range nodeRange(const Hierarchy& shape, const TreeNode& node) {
    const std::size_t w = shape.leavesPerNode(node.level);
    return Range{node.index * w, (node.index + 1) * w - 1};
}

Expected<std::vector<TreeNode>> badicDecomposition(const Hierarchy& shape, Range range) {
    if (shape.branching < 2 || shape.height < 1) {
        return fail("B-adic decomposition: malformed hierarchy");
    }
    if (const Status s = checkRange(range, shape.domain); !s) {
        return s.error();
    }
    // Greedy from the left (seed 001 §5.4, Fact 3): at position a take the largest B-adic
    // interval [a, a + B^j − 1] with B^j | a that does not pass hi.
    std::vector<TreeNode> out;
    std::size_t a = range.lo;
    while (a <= range.hi) {
        std::size_t j = 0;
        std::size_t size = 1;
        while (j < shape.height) {
            const std::size_t next = size * shape.branching;
            if (a % next != 0 || a + next - 1 > range.hi) {
                break;
            }
            size = next;
            ++j;
        }
        const std::size_t level = shape.height - j;
        out.push_back(TreeNode{level, a / size});
        a += size;
    }
    return out;
}

Expected<std::size_t> badicNodeBound(const Hierarchy& shape, std::size_t rangeLength) {
    if (rangeLength == 0 || rangeLength > shape.paddedDomain) {
        return fail("range length r must be in [1, " + std::to_string(shape.paddedDomain) + "]");
    }
    if (rangeLength == 1) {
        return std::size_t{1};
    }
    std::size_t alpha = 0;  // ⌈log_B r⌉
    for (std::size_t p = 1; p < rangeLength; p *= shape.branching) {
        ++alpha;
    }
    return 2 * (shape.branching - 1) * alpha;
}

// ---------------------------------------------------------------------------------------------

Expected<TreeLevels> exactTree(const Hierarchy& shape, std::span<const std::int64_t> trueCounts) {
    const auto n = checkCounts(trueCounts, shape.domain);
    if (!n) {
        return n.error();
    }
    TreeLevels levels(shape.height + 1);
    levels[shape.height].assign(shape.paddedDomain, 0.0);
    for (std::size_t v = 0; v < trueCounts.size(); ++v) {
        levels[shape.height][v] = static_cast<double>(trueCounts[v]) / static_cast<double>(*n);
    }
    for (std::size_t l = shape.height; l-- > 0;) {
        levels[l].assign(shape.nodesAt(l), 0.0);
        for (std::size_t k = 0; k < levels[l + 1].size(); ++k) {
            levels[l][k / shape.branching] += levels[l + 1][k];
        }
    }
    return levels;
}

Expected<TreeLevels> enforceConsistency(std::size_t branching, const TreeLevels& levels,
                                        RootMode rootMode) {
    if (branching < 2) {
        return fail("consistency: branching factor B must be at least 2");
    }
    if (levels.empty()) {
        return fail("consistency: the tree has no levels");
    }
    std::size_t expected = 1;
    for (std::size_t l = 0; l < levels.size(); ++l) {
        if (levels[l].size() != expected) {
            return fail("consistency: level " + std::to_string(l) + " has " +
                        std::to_string(levels[l].size()) + " nodes, expected B^" +
                        std::to_string(l) + " = " + std::to_string(expected));
        }
        for (double v : levels[l]) {
            if (!std::isfinite(v)) {
                return fail("consistency: level " + std::to_string(l) +
                            " holds a non-finite value");
            }
        }
        if (l + 1 < levels.size()) {
            if (expected > kMaxDomain / branching) {
                return fail("consistency: tree exceeds the maximum domain");
            }
            expected *= branching;
        }
    }
    const std::size_t h = levels.size() - 1;
    const double b = static_cast<double>(branching);
    // Stage 1, bottom-up (Hay et al. 2010, Thm 3; seed 001 §5.4.2). i = height, leaves i = 1.
    TreeLevels z = levels;
    for (std::size_t l = h; l-- > 0;) {
        const double i = static_cast<double>(h - l + 1);
        const double bi = std::pow(b, i);
        const double bi1 = std::pow(b, i - 1);
        const double wSelf = (bi - bi1) / (bi - 1);
        const double wKids = (bi1 - 1) / (bi - 1);
        for (std::size_t k = 0; k < z[l].size(); ++k) {
            if (l == 0 && rootMode == RootMode::Known) {
                continue;  // exact root: z(root) = y(root)
            }
            double kids = 0;
            for (std::size_t c = 0; c < branching; ++c) {
                kids += z[l + 1][k * branching + c];
            }
            z[l][k] = wSelf * levels[l][k] + wKids * kids;
        }
    }
    // Stage 2, top-down mean consistency.
    TreeLevels x = z;
    for (std::size_t l = 1; l <= h; ++l) {
        for (std::size_t p = 0; p < x[l - 1].size(); ++p) {
            double kids = 0;
            for (std::size_t c = 0; c < branching; ++c) {
                kids += z[l][p * branching + c];
            }
            const double share = (x[l - 1][p] - kids) / b;
            for (std::size_t c = 0; c < branching; ++c) {
                x[l][p * branching + c] = z[l][p * branching + c] + share;
            }
        }
    }
    return x;
}

// ---------------------------------------------------------------------------------------------

Status HierarchicalConfig::validate() const {
    if (oracle.protocol == Protocol::RR) {
        return fail("hierarchical histogram: the oracle cannot be RR (binary only); use GRR");
    }
    const auto shape = makeHierarchy(oracle.domain, branching);
    if (!shape) {
        return shape.error();
    }
    for (std::size_t l = 1; l <= shape->height; ++l) {
        ProtocolSpec spec = oracle;
        spec.domain = shape->nodesAt(l);
        if (const Status s = spec.validate(); !s) {
            return fail("hierarchical histogram, oracle of level " + std::to_string(l) + " (" +
                        std::to_string(spec.domain) + " nodes): " + s.error().message);
        }
    }
    return okStatus();
}

Expected<HierarchicalEstimate> simulateHierarchical(const HierarchicalConfig& config,
                                                    std::span<const std::int64_t> trueCounts,
                                                    std::uint64_t seed,
                                                    const std::stop_token& stop) {
    if (const Status s = config.validate(); !s) {
        return s.error();
    }
    const Hierarchy shape = *makeHierarchy(config.oracle.domain, config.branching);
    const auto n = checkCounts(trueCounts, shape.domain);
    if (!n) {
        return n.error();
    }
    HierarchicalEstimate out;
    out.shape = shape;
    out.users = *n;
    out.levels.resize(shape.height + 1);
    out.levels[0] = {1.0};
    out.levelUsers.assign(shape.height + 1, 0);

    // Exact level sampling: θ_v ~ multinomial over the h levels (sequential binomials).
    std::vector<std::vector<std::int64_t>> levelCounts(shape.height + 1);
    for (std::size_t l = 1; l <= shape.height; ++l) {
        levelCounts[l].assign(shape.nodesAt(l), 0);
    }
    SimulationRng rng(seed, 0);
    RngBits bits{rng};
    for (std::size_t v = 0; v < trueCounts.size(); ++v) {
        if ((v & 0xFFF) == 0 && stop.stop_requested()) {
            out.cancelled = true;
            return out;
        }
        std::int64_t left = trueCounts[v];
        for (std::size_t l = 1; l <= shape.height && left > 0; ++l) {
            const std::size_t remainingLevels = shape.height - l + 1;
            const std::int64_t here =
                l == shape.height
                    ? left
                    : binomial(bits, left, 1.0 / static_cast<double>(remainingLevels));
            left -= here;
            levelCounts[l][v / shape.leavesPerNode(l)] += here;
        }
    }
    for (std::size_t l = 1; l <= shape.height; ++l) {
        if (stop.stop_requested()) {
            out.cancelled = true;
            return out;
        }
        std::uint64_t nl = 0;
        for (std::int64_t c : levelCounts[l]) {
            nl += static_cast<std::uint64_t>(c);
        }
        out.levelUsers[l] = nl;
        if (nl == 0) {
            out.levels[l].assign(shape.nodesAt(l), 1.0 / static_cast<double>(shape.nodesAt(l)));
            out.warnings.push_back("level " + std::to_string(l) +
                                   " was sampled by no user; its nodes are set to the uniform 1/" +
                                   std::to_string(shape.nodesAt(l)));
            continue;
        }
        ProtocolSpec spec = config.oracle;
        spec.domain = shape.nodesAt(l);
        auto est = simulateAggregate(spec, levelCounts[l], mixSeed(seed, l), stop);
        if (!est) {
            return fail("hierarchical histogram, level " + std::to_string(l) + ": " +
                        est.error().message);
        }
        if (est->cancelled) {
            out.cancelled = true;
            return out;
        }
        out.levels[l] = std::move(est->frequencies);
    }
    return out;
}

Expected<HierarchicalEstimate> makeConsistent(const HierarchicalEstimate& estimate) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    auto levels = enforceConsistency(estimate.shape.branching, estimate.levels, RootMode::Known);
    if (!levels) {
        return levels.error();
    }
    HierarchicalEstimate out = estimate;
    out.levels = std::move(*levels);
    out.consistent = true;
    return out;
}

// ---------------------------------------------------------------------------------------------

Status HaarConfig::validate() const {
    if (!std::isfinite(epsilon) || epsilon <= 0) {
        return fail("HaarHRR: epsilon must be finite and > 0");
    }
    if (epsilon > 50) {
        return fail("HaarHRR: epsilon must be at most 50 (the limit of every LDP protocol here)");
    }
    if (domain < 2) {
        return fail("HaarHRR: domain D must be at least 2");
    }
    if (domain > kMaxDomain) {
        return fail("HaarHRR: domain D must not exceed " + std::to_string(kMaxDomain));
    }
    return okStatus();
}

Expected<HaarEstimate> exactHaar(std::size_t domain, std::span<const std::int64_t> trueCounts) {
    HaarConfig cfg;
    cfg.domain = domain;
    if (const Status s = cfg.validate(); !s) {
        return s.error();
    }
    const auto n = checkCounts(trueCounts, domain);
    if (!n) {
        return n.error();
    }
    HaarEstimate e;
    e.domain = domain;
    e.paddedDomain = std::bit_ceil(domain);
    e.height = static_cast<std::size_t>(std::countr_zero(e.paddedDomain));
    e.users = *n;
    e.details.resize(e.height + 1);
    e.levelUsers.assign(e.height + 1, *n);
    e.levelUsers[0] = 0;
    std::vector<double> sums(e.paddedDomain, 0.0);  // node fractions at the current height
    for (std::size_t v = 0; v < domain; ++v) {
        sums[v] = static_cast<double>(trueCounts[v]) / static_cast<double>(*n);
    }
    for (std::size_t l = 1; l <= e.height; ++l) {
        const std::size_t m = e.paddedDomain >> l;
        e.details[l].resize(m);
        for (std::size_t k = 0; k < m; ++k) {
            e.details[l][k] = sums[2 * k] - sums[2 * k + 1];
            sums[k] = sums[2 * k] + sums[2 * k + 1];
        }
    }
    return e;
}

Expected<HaarEstimate> simulateHaarHrr(const HaarConfig& config,
                                       std::span<const std::int64_t> trueCounts, std::uint64_t seed,
                                       const std::stop_token& stop) {
    if (const Status s = config.validate(); !s) {
        return s.error();
    }
    const auto n = checkCounts(trueCounts, config.domain);
    if (!n) {
        return n.error();
    }
    HaarEstimate e;
    e.domain = config.domain;
    e.paddedDomain = std::bit_ceil(config.domain);
    e.height = static_cast<std::size_t>(std::countr_zero(e.paddedDomain));
    e.users = *n;
    e.details.resize(e.height + 1);
    e.levelUsers.assign(e.height + 1, 0);
    // Binary RR, seed 001 §2.4: keep the bit w.p. p = e^ε/(e^ε+1) (written to avoid overflow).
    const double p = 1.0 / (1.0 + std::exp(-config.epsilon));
    const double twoPm1 = 2 * p - 1;
    std::vector<std::vector<double>> sums(e.height + 1);
    for (std::size_t l = 1; l <= e.height; ++l) {
        sums[l].assign(e.paddedDomain >> l, 0.0);
    }
    SimulationRng rng(seed, 1);
    const std::uint64_t h = e.height;
    std::uint64_t done = 0;
    for (std::size_t x = 0; x < trueCounts.size(); ++x) {
        for (std::int64_t u = 0; u < trueCounts[x]; ++u) {
            if ((++done & 0xFFFFF) == 0 && stop.stop_requested()) {
                e.cancelled = true;
                return e;
            }
            // Level, row and RR draw; `% h` and `% m` have bias ≤ m/2^64 (negligible).
            const std::size_t l = static_cast<std::size_t>(rng.next() % h) + 1;
            const std::size_t m = e.paddedDomain >> l;
            const std::size_t k = x >> l;
            const bool rightHalf = ((x >> (l - 1)) & 1U) != 0;
            const std::size_t j = m == 1 ? 0 : static_cast<std::size_t>(rng.next() % m);
            const bool negative = rightHalf != ((std::popcount(j & k) & 1) != 0);
            const bool keep = rng.uniform() < p;
            const bool reportNegative = keep ? negative : !negative;
            sums[l][j] += reportNegative ? -1.0 : 1.0;
            ++e.levelUsers[l];
        }
    }
    for (std::size_t l = 1; l <= e.height; ++l) {
        const std::size_t m = e.paddedDomain >> l;
        if (e.levelUsers[l] == 0) {
            e.details[l].assign(m, 0.0);
            e.warnings.push_back("height " + std::to_string(l) +
                                 " was sampled by no user; its Haar details are set to 0");
            continue;
        }
        fastWalshHadamard(sums[l]);  // Σ_j H[k][j] S_j (H symmetric)
        const double scale = 1.0 / (static_cast<double>(e.levelUsers[l]) * twoPm1);
        e.details[l].resize(m);
        for (std::size_t k = 0; k < m; ++k) {
            e.details[l][k] = sums[l][k] * scale;
        }
    }
    return e;
}

// ---------------------------------------------------------------------------------------------

Expected<double> answerRange(const HierarchicalEstimate& estimate, Range range) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    if (const Status s = checkRange(range, estimate.shape.domain); !s) {
        return s.error();
    }
    return hhRange(estimate, range);
}

Expected<double> answerRange(const HaarEstimate& estimate, Range range) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    if (const Status s = checkRange(range, estimate.domain); !s) {
        return s.error();
    }
    return haarRange(estimate, range);
}

Expected<std::vector<double>> allPrefixes(const HierarchicalEstimate& estimate) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    std::vector<double> out(estimate.shape.domain);
    for (std::size_t x = 0; x < out.size(); ++x) {
        out[x] = hhRange(estimate, Range{0, x});
    }
    return out;
}

Expected<std::vector<double>> allPrefixes(const HaarEstimate& estimate) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    std::vector<double> out(estimate.domain);
    for (std::size_t x = 0; x < out.size(); ++x) {
        out[x] = haarPrefix(estimate, x);
    }
    return out;
}

Expected<std::size_t> quantile(const HierarchicalEstimate& estimate, double q) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    if (const Status s = checkQuantile(q); !s) {
        return s.error();
    }
    return quantileSearch(estimate.shape.domain, q, [&](std::size_t x) {
        return hhRange(estimate, Range{0, x});
    });
}

Expected<std::size_t> quantile(const HaarEstimate& estimate, double q) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    if (const Status s = checkQuantile(q); !s) {
        return s.error();
    }
    return quantileSearch(estimate.domain, q,
                          [&](std::size_t x) { return haarPrefix(estimate, x); });
}

Expected<std::size_t> quantileOfPrefixes(std::span<const double> prefixes, double q) {
    if (prefixes.empty()) {
        return fail("quantile: no prefixes (the domain is empty)");
    }
    if (const Status s = checkQuantile(q); !s) {
        return s.error();
    }
    return quantileSearch(prefixes.size(), q, [&](std::size_t x) { return prefixes[x]; });
}

// ---------------------------------------------------------------------------------------------

Expected<double> hierarchicalVarianceBound(const Hierarchy& shape, std::size_t rangeLength,
                                           double varianceFactor, std::uint64_t users,
                                           bool consistent) {
    if (shape.branching < 2 || shape.height < 1) {
        return fail("variance bound: malformed hierarchy");
    }
    if (rangeLength == 0 || rangeLength > shape.paddedDomain) {
        return fail("variance bound: range length r must be in [1, " +
                    std::to_string(shape.paddedDomain) + "]");
    }
    if (!std::isfinite(varianceFactor) || varianceFactor <= 0) {
        return fail("variance bound: variance factor V_F must be finite and > 0");
    }
    if (users == 0) {
        return fail("variance bound: the number of users N must be positive");
    }
    std::size_t alpha = 0;  // ⌈log_B r⌉, at least 1
    for (std::size_t p = 1; p < rangeLength; p *= shape.branching) {
        ++alpha;
    }
    alpha = std::max<std::size_t>(alpha, 1);
    const double b = static_cast<double>(shape.branching);
    const double perLevel = consistent ? (b + 1) / 2   // seed 001 eq. (5.2) derivation
                                       : 2 * (b - 1);  // seed 001 Thm 6, eq. (5.1)
    return perLevel * varianceFactor * static_cast<double>(shape.height) *
           static_cast<double>(alpha) / static_cast<double>(users);
}

Expected<double> haarVarianceBound(std::size_t domain, double epsilon, std::uint64_t users) {
    HaarConfig cfg;
    cfg.domain = domain;
    cfg.epsilon = epsilon;
    if (const Status s = cfg.validate(); !s) {
        return s.error();
    }
    if (users == 0) {
        return fail("variance bound: the number of users N must be positive");
    }
    const double h = static_cast<double>(std::countr_zero(std::bit_ceil(domain)));
    // V_F of HRR: 1/(2p−1)² = ((e^ε+1)/(e^ε−1))² = coth²(ε/2); seed 001 eq. (5.3).
    const double vf = 1.0 / std::pow(std::tanh(epsilon / 2), 2);
    return 0.5 * h * h * vf / static_cast<double>(users);
}

Expected<std::vector<double>> flatRangeVariances(std::span<const double> valueVariances,
                                                 std::span<const Range> ranges) {
    if (valueVariances.empty()) {
        return fail("flat range variances: no per-value variances");
    }
    std::vector<double> prefix(valueVariances.size() + 1, 0.0);
    for (std::size_t j = 0; j < valueVariances.size(); ++j) {
        prefix[j + 1] = prefix[j] + valueVariances[j];
    }
    std::vector<double> out;
    out.reserve(ranges.size());
    for (const Range& r : ranges) {
        if (const Status s = checkRange(r, valueVariances.size()); !s) {
            return s.error();
        }
        out.push_back(prefix[r.hi + 1] - prefix[r.lo]);
    }
    return out;
}

Expected<std::vector<double>> haarLeafVariances(const HaarConfig& config,
                                                std::span<const std::int64_t> trueCounts) {
    if (const Status s = config.validate(); !s) {
        return s.error();
    }
    auto exact = exactHaar(config.domain, trueCounts);
    if (!exact) {
        return exact.error();
    }
    const auto users = *checkCounts(trueCounts, config.domain);
    const double h = static_cast<double>(exact->height);
    const double vf = 1 / std::pow(std::tanh(config.epsilon / 2), 2);
    const double nn = static_cast<double>(users);
    std::vector<double> out;
    out.reserve(config.domain);
    for (std::size_t i = 0; i < config.domain; ++i) {
        const double f = static_cast<double>(trueCounts[i]) / nn;
        double s = 0;
        for (std::size_t l = 1; l <= exact->height; ++l) {
            const double d = exact->details[l][i >> l];
            s += (vf - d * d) / std::pow(4.0, static_cast<double>(l));
        }
        out.push_back(std::max(0.0, h / nn * s - f * (1 - f) / nn));
    }
    return out;
}

Expected<double> hierarchicalVarianceFactor(const HierarchicalConfig& config) {
    if (const Status s = config.validate(); !s) {
        return s.error();
    }
    const Hierarchy shape = *makeHierarchy(config.oracle.domain, config.branching);
    constexpr std::uint64_t kN = 1000000;
    double vf = 0;
    for (std::size_t l = 1; l <= shape.height; ++l) {
        ProtocolSpec spec = config.oracle;
        spec.domain = shape.nodesAt(l);
        for (int i = 0; i <= 100; ++i) {
            const auto v = estimatorVariance(spec, kN, i / 100.0);
            if (!v) {
                return v.error();
            }
            vf = std::max(vf, *v * static_cast<double>(kN));
        }
    }
    return vf;
}

Expected<std::vector<double>> hierarchicalPredictedVariances(
    const HierarchicalConfig& config, std::span<const std::int64_t> trueCounts,
    std::span<const Range> ranges) {
    if (const Status s = config.validate(); !s) {
        return s.error();
    }
    const Hierarchy shape = *makeHierarchy(config.oracle.domain, config.branching);
    const auto tree = exactTree(shape, trueCounts);
    if (!tree) {
        return tree.error();
    }
    std::uint64_t n = 0;
    for (std::int64_t c : trueCounts) {
        n += static_cast<std::uint64_t>(c);
    }
    const std::uint64_t perLevel = std::max<std::uint64_t>(1, n / shape.height);
    const double h = static_cast<double>(shape.height);
    std::vector<double> out;
    out.reserve(ranges.size());
    std::vector<double> covered(shape.height + 1);  // a_ℓ
    for (const Range& range : ranges) {
        const auto nodes = badicDecomposition(shape, range);
        if (!nodes) {
            return nodes.error();
        }
        std::fill(covered.begin(), covered.end(), 0.0);
        double var = 0;
        for (const TreeNode& node : *nodes) {
            if (node.level == 0) {
                continue;  // the root is exact
            }
            ProtocolSpec spec = config.oracle;
            spec.domain = shape.nodesAt(node.level);
            const double f = std::clamp((*tree)[node.level][node.index], 0.0, 1.0);
            const auto v = estimatorVariance(spec, perLevel, f);
            if (!v) {
                return v.error();
            }
            var += *v;
            covered[node.level] += f;
        }
        // Level split (see the header): Var of Σ_ℓ (users of level ℓ in A_ℓ)/N_ℓ.
        double spread = 0;
        double r = 0;
        for (std::size_t l = 1; l <= shape.height; ++l) {
            spread += covered[l] * (1 - covered[l]);
            r += covered[l];
        }
        var += std::max(0.0, h * spread - r * (1 - r)) / static_cast<double>(n);
        out.push_back(var);
    }
    return out;
}

Expected<double> hierarchicalPredictedVariance(const HierarchicalConfig& config,
                                               std::span<const std::int64_t> trueCounts,
                                               Range range) {
    const auto v = hierarchicalPredictedVariances(config, trueCounts, std::span(&range, 1));
    if (!v) {
        return v.error();
    }
    return v->front();
}

// ---------------------------------------------------------------------------------------------

Expected<std::vector<Range>> allRanges(std::size_t domain) {
    if (domain < 1) {
        return fail("all ranges: domain D must be at least 1");
    }
    if (domain > 5792) {
        return fail("all ranges: D = " + std::to_string(domain) +
                    " gives more than 2^24 ranges; sample ranges instead");
    }
    std::vector<Range> out;
    out.reserve(domain * (domain + 1) / 2);
    for (std::size_t lo = 0; lo < domain; ++lo) {
        for (std::size_t hi = lo; hi < domain; ++hi) {
            out.push_back(Range{lo, hi});
        }
    }
    return out;
}

Expected<std::vector<Range>> sampleRanges(std::size_t domain, std::size_t count,
                                          std::uint64_t seed) {
    if (domain < 1 || domain > kMaxDomain) {
        return fail("sample ranges: domain D must be in [1, " + std::to_string(kMaxDomain) + "]");
    }
    if (count == 0 || count > (std::size_t{1} << 24)) {
        return fail("sample ranges: count must be in [1, 2^24]");
    }
    // Index t uniform in [0, D(D+1)/2); ranges with lo < a number S(a) = aD − a(a−1)/2.
    const std::uint64_t d = domain;
    const std::uint64_t total = d * (d + 1) / 2;
    auto before = [d](std::uint64_t a) { return a * d - a * (a - 1) / 2; };
    SimulationRng rng(seed, 2);
    std::vector<Range> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t t = rng.next() % total;  // bias ≤ total/2^64
        std::uint64_t lo = 0;
        std::uint64_t hi = d - 1;  // largest a with before(a) ≤ t
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo + 1) / 2;
            if (before(mid) <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        const std::uint64_t a = lo;
        out.push_back(
            Range{static_cast<std::size_t>(a), static_cast<std::size_t>(a + (t - before(a)))});
    }
    return out;
}

Expected<double> rangeMse(const HierarchicalEstimate& estimate,
                          std::span<const std::int64_t> trueCounts, std::span<const Range> ranges) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    return mseImpl(estimate, estimate.shape.domain, trueCounts, ranges,
                   [](const HierarchicalEstimate& e, Range r) { return hhRange(e, r); });
}

Expected<double> rangeMse(const HaarEstimate& estimate, std::span<const std::int64_t> trueCounts,
                          std::span<const Range> ranges) {
    if (const Status s = checkShape(estimate); !s) {
        return s.error();
    }
    return mseImpl(estimate, estimate.domain, trueCounts, ranges,
                   [](const HaarEstimate& e, Range r) { return haarRange(e, r); });
}

}  // namespace dpx::ldp
