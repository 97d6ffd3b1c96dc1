// k-way marginals under local DP: INPHT and the one-hot baseline (seed 001 ch. 4).
#include "core/ldp/marginals.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include "core/base/simulation_rng.h"

namespace dpx::ldp {

namespace {

Error fail(std::string message) {
    return Error{std::move(message)};
}

Status checkDims(unsigned d, unsigned k) {
    if (d < 1 || d > kMaxAttributes) {
        return fail("number of attributes d must be in [1, " + std::to_string(kMaxAttributes) +
                    "] (got " + std::to_string(d) + ")");
    }
    if (k < 1 || k > d) {
        return fail("marginal order k must be in [1, d = " + std::to_string(d) + "] (got " +
                    std::to_string(k) + ")");
    }
    return okStatus();
}

Status checkBeta(std::uint32_t beta, unsigned d) {
    if (beta == 0) {
        return fail("marginal mask beta is empty (select at least one attribute)");
    }
    if (d < 32 && (beta >> d) != 0) {
        return fail("marginal mask beta selects attributes beyond d = " + std::to_string(d));
    }
    return okStatus();
}

Expected<std::uint64_t> checkCounts(std::span<const std::int64_t> counts, unsigned d) {
    const std::size_t size = std::size_t{1} << d;
    if (counts.size() != size) {
        return fail("contingency table has " + std::to_string(counts.size()) +
                    " cells but d = " + std::to_string(d) + " needs 2^d = " + std::to_string(size));
    }
    std::uint64_t n = 0;
    for (std::size_t x = 0; x < size; ++x) {
        if (counts[x] < 0) {
            return fail("contingency table: count of record " + std::to_string(x) + " is negative");
        }
        n += static_cast<std::uint64_t>(counts[x]);
    }
    if (n == 0) {
        return fail("contingency table: no users (all counts are 0)");
    }
    return n;
}

// Compact index of x's bits selected by β (parallel bit extract): bit i of the result is the bit
// of x at the i-th lowest set position of β.
std::uint32_t extractBits(std::uint32_t x, std::uint32_t beta) {
    std::uint32_t out = 0;
    std::uint32_t bit = 1;
    for (std::uint32_t m = beta; m != 0; m &= m - 1) {
        const std::uint32_t low = m & (~m + 1);
        if ((x & low) != 0) {
            out |= bit;
        }
        bit <<= 1;
    }
    return out;
}

// Inverse of extractBits (parallel bit deposit).
std::uint32_t depositBits(std::uint32_t c, std::uint32_t beta) {
    std::uint32_t out = 0;
    std::uint32_t bit = 1;
    for (std::uint32_t m = beta; m != 0; m &= m - 1) {
        const std::uint32_t low = m & (~m + 1);
        if ((c & bit) != 0) {
            out |= low;
        }
        bit <<= 1;
    }
    return out;
}

std::vector<std::uint32_t> masksUpTo(unsigned d, unsigned k, bool exactOrder) {
    std::vector<std::uint32_t> out;
    const std::uint32_t size = std::uint32_t{1} << d;
    for (std::uint32_t m = 1; m < size; ++m) {
        const auto w = static_cast<unsigned>(std::popcount(m));
        if (exactOrder ? w == k : w <= k) {
            out.push_back(m);
        }
    }
    return out;
}

Status checkCoefficients(const HadamardCoefficients& c) {
    if (const Status s = checkDims(c.attributes, c.order); !s) {
        return fail("Hadamard coefficients: " + s.error().message);
    }
    if (c.indices != masksUpTo(c.attributes, c.order, false) ||
        c.values.size() != c.indices.size()) {
        return fail("Hadamard coefficients: malformed (indices are not T for d and k)");
    }
    return okStatus();
}

Expected<MarginalError> scoreMarginals(unsigned d, unsigned k, std::span<const std::int64_t> counts,
                                       NegativeEstimates negatives, auto&& estimateOf) {
    const auto betas = marginalMasks(d, k);
    if (!betas) {
        return betas.error();
    }
    MarginalError out;
    double sum = 0;
    for (std::uint32_t beta : *betas) {
        auto truth = marginalOfCounts(counts, d, beta);
        if (!truth) {
            return truth.error();
        }
        Expected<std::vector<double>> est = estimateOf(beta);
        if (!est) {
            return est.error();
        }
        if (negatives == NegativeEstimates::ProjectToSimplex) {
            est = projectToSimplex(*est);
            if (!est) {
                return est.error();
            }
        }
        const auto tv = totalVariation(*est, *truth);
        if (!tv) {
            return tv.error();
        }
        sum += *tv;
        out.maxTv = std::max(out.maxTv, *tv);
        ++out.marginals;
    }
    out.meanTv = sum / static_cast<double>(out.marginals);
    return out;
}

}  // namespace

Expected<std::vector<std::uint32_t>> marginalMasks(unsigned attributes, unsigned order) {
    if (const Status s = checkDims(attributes, order); !s) {
        return s.error();
    }
    return masksUpTo(attributes, order, true);
}

Expected<std::vector<std::uint32_t>> lowOrderCoefficients(unsigned attributes, unsigned order) {
    if (const Status s = checkDims(attributes, order); !s) {
        return s.error();
    }
    return masksUpTo(attributes, order, false);
}

Expected<std::vector<double>> marginalOfDistribution(std::span<const double> distribution,
                                                     unsigned attributes, std::uint32_t beta) {
    if (const Status s = checkDims(attributes, 1); !s) {
        return s.error();
    }
    if (const Status s = checkBeta(beta, attributes); !s) {
        return s.error();
    }
    if (distribution.size() != (std::size_t{1} << attributes)) {
        return fail("distribution has " + std::to_string(distribution.size()) +
                    " cells but d = " + std::to_string(attributes) + " needs 2^d");
    }
    std::vector<double> out(std::size_t{1} << std::popcount(beta), 0.0);
    for (std::size_t x = 0; x < distribution.size(); ++x) {
        if (!std::isfinite(distribution[x])) {
            return fail("distribution: cell " + std::to_string(x) + " is not finite");
        }
        out[extractBits(static_cast<std::uint32_t>(x), beta)] += distribution[x];
    }
    return out;
}

Expected<std::vector<double>> marginalOfCounts(std::span<const std::int64_t> counts,
                                               unsigned attributes, std::uint32_t beta) {
    if (const Status s = checkDims(attributes, 1); !s) {
        return s.error();
    }
    const auto n = checkCounts(counts, attributes);
    if (!n) {
        return n.error();
    }
    std::vector<double> f(counts.size());
    for (std::size_t x = 0; x < counts.size(); ++x) {
        f[x] = static_cast<double>(counts[x]) / static_cast<double>(*n);
    }
    return marginalOfDistribution(f, attributes, beta);
}

Status InphtConfig::validate() const {
    if (const Status s = checkDims(attributes, order); !s) {
        return fail("INPHT: " + s.error().message);
    }
    if (!std::isfinite(epsilon) || epsilon <= 0) {
        return fail("INPHT: epsilon must be finite and > 0");
    }
    if (epsilon > 50) {
        return fail("INPHT: epsilon must be at most 50 (the limit of every LDP protocol here)");
    }
    return okStatus();
}

Expected<HadamardCoefficients> exactCoefficients(const InphtConfig& config,
                                                 std::span<const std::int64_t> counts) {
    if (const Status s = checkDims(config.attributes, config.order); !s) {
        return s.error();
    }
    const auto n = checkCounts(counts, config.attributes);
    if (!n) {
        return n.error();
    }
    std::vector<double> f(counts.size());
    for (std::size_t x = 0; x < counts.size(); ++x) {
        f[x] = static_cast<double>(counts[x]) / static_cast<double>(*n);
    }
    fastWalshHadamard(f);  // θ_α = Σ_x f_x (−1)^popcount(α & x) (seed 001 Def. 16, unnormalised)
    HadamardCoefficients c;
    c.attributes = config.attributes;
    c.order = config.order;
    c.indices = masksUpTo(config.attributes, config.order, false);
    c.users = *n;
    for (std::uint32_t a : c.indices) {
        c.values.push_back(f[a]);
        c.samples.push_back(*n);
    }
    return c;
}

Expected<HadamardCoefficients> simulateInpht(const InphtConfig& config,
                                             std::span<const std::int64_t> counts,
                                             std::uint64_t seed, const std::stop_token& stop) {
    if (const Status s = config.validate(); !s) {
        return s.error();
    }
    const auto n = checkCounts(counts, config.attributes);
    if (!n) {
        return n.error();
    }
    HadamardCoefficients c;
    c.attributes = config.attributes;
    c.order = config.order;
    c.indices = masksUpTo(config.attributes, config.order, false);
    c.users = *n;
    const std::size_t t = c.indices.size();
    std::vector<double> sums(t, 0.0);
    c.samples.assign(t, 0);
    // RR keeps the sign w.p. p = e^ε/(e^ε+1) (seed 001 Thm 5), written to avoid overflow.
    const double p = 1.0 / (1.0 + std::exp(-config.epsilon));
    SimulationRng rng(seed, 3);
    std::uint64_t done = 0;
    for (std::size_t x = 0; x < counts.size(); ++x) {
        for (std::int64_t u = 0; u < counts[x]; ++u) {
            if ((++done & 0xFFFFF) == 0 && stop.stop_requested()) {
                c.cancelled = true;
                return c;
            }
            // Algorithm 1: ℓ uniform in T (`%` bias ≤ |T|/2^64), θ = (−1)^<x, ℓ>, RR(θ).
            const std::size_t i = static_cast<std::size_t>(rng.next() % t);
            const bool negative =
                (std::popcount(static_cast<std::uint32_t>(x) & c.indices[i]) & 1) != 0;
            const bool keep = rng.uniform() < p;
            sums[i] += (keep != negative) ? 1.0 : -1.0;
            ++c.samples[i];
        }
    }
    // Algorithm 2: θ̂_α = Σ b/(N_α (2p − 1)), the RR unbiasing of the mean report on α.
    const double twoPm1 = 2 * p - 1;
    c.values.assign(t, 0.0);
    for (std::size_t i = 0; i < t; ++i) {
        if (c.samples[i] == 0) {
            c.warnings.push_back("coefficient " + std::to_string(c.indices[i]) +
                                 " was sampled by no user; set to 0");
            continue;
        }
        c.values[i] = sums[i] / (static_cast<double>(c.samples[i]) * twoPm1);
    }
    return c;
}

Expected<std::vector<double>> marginalFromCoefficients(const HadamardCoefficients& coefficients,
                                                       std::uint32_t beta) {
    if (const Status s = checkCoefficients(coefficients); !s) {
        return s.error();
    }
    if (const Status s = checkBeta(beta, coefficients.attributes); !s) {
        return s.error();
    }
    const auto k = static_cast<unsigned>(std::popcount(beta));
    if (k > coefficients.order) {
        return fail("marginal of " + std::to_string(k) +
                    " attributes needs coefficients of order " + std::to_string(k) +
                    " but only order k = " + std::to_string(coefficients.order) + " was collected");
    }
    // Lemma 6: C^β(γ) = 2^−k Σ_{α ⊆ β} θ_α (−1)^popcount(α & γ), θ_0 = 1; in compact
    // coordinates this is a 2^k-point Walsh–Hadamard transform.
    std::vector<double> t(std::size_t{1} << k, 0.0);
    t[0] = 1.0;
    for (std::uint32_t c = 1; c < t.size(); ++c) {
        const std::uint32_t alpha = depositBits(c, beta);
        const auto it =
            std::lower_bound(coefficients.indices.begin(), coefficients.indices.end(), alpha);
        t[c] = coefficients.values[static_cast<std::size_t>(it - coefficients.indices.begin())];
    }
    fastWalshHadamard(t);
    const double scale = 1.0 / static_cast<double>(t.size());
    for (double& v : t) {
        v *= scale;
    }
    return t;
}

Expected<FrequencyEstimate> simulateOneHot(const ProtocolSpec& oracle, unsigned attributes,
                                           std::span<const std::int64_t> counts, std::uint64_t seed,
                                           const std::stop_token& stop) {
    if (const Status s = checkDims(attributes, 1); !s) {
        return s.error();
    }
    if (oracle.domain != (std::size_t{1} << attributes)) {
        return fail("one-hot baseline: the oracle's domain must be 2^d = " +
                    std::to_string(std::size_t{1} << attributes) + " (got " +
                    std::to_string(oracle.domain) + ")");
    }
    if (const auto n = checkCounts(counts, attributes); !n) {
        return n.error();
    }
    return simulateAggregate(oracle, counts, seed, stop);
}

Expected<std::vector<double>> projectToSimplex(std::span<const double> values) {
    if (values.empty()) {
        return fail("simplex projection: no values");
    }
    for (double v : values) {
        if (!std::isfinite(v)) {
            return fail("simplex projection: a value is not finite");
        }
    }
    // Duchi et al. 2008: sort descending, ρ = max{j : u_j − (Σ_{i≤j} u_i − 1)/j > 0},
    // τ = (Σ_{i≤ρ} u_i − 1)/ρ, p_i = max(v_i − τ, 0).
    std::vector<double> u(values.begin(), values.end());
    std::sort(u.begin(), u.end(), std::greater<>());
    double run = 0;
    double tau = 0;
    for (std::size_t j = 0; j < u.size(); ++j) {
        run += u[j];
        const double candidate = (run - 1) / static_cast<double>(j + 1);
        if (u[j] - candidate > 0) {
            tau = candidate;
        }
    }
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        out[i] = std::max(values[i] - tau, 0.0);
    }
    return out;
}

Expected<double> totalVariation(std::span<const double> a, std::span<const double> b) {
    if (a.empty() || a.size() != b.size()) {
        return fail("total variation: the two tables must have the same non-zero size");
    }
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
            return fail("total variation: a value is not finite");
        }
        sum += std::abs(a[i] - b[i]);
    }
    return sum / 2;
}

Expected<MarginalError> marginalError(const HadamardCoefficients& coefficients,
                                      std::span<const std::int64_t> counts,
                                      NegativeEstimates negatives) {
    if (const Status s = checkCoefficients(coefficients); !s) {
        return s.error();
    }
    return scoreMarginals(
        coefficients.attributes, coefficients.order, counts, negatives,
        [&](std::uint32_t beta) { return marginalFromCoefficients(coefficients, beta); });
}

Expected<MarginalError> marginalError(std::span<const double> estimatedDistribution,
                                      unsigned attributes, unsigned order,
                                      std::span<const std::int64_t> counts,
                                      NegativeEstimates negatives) {
    if (const Status s = checkDims(attributes, order); !s) {
        return s.error();
    }
    if (estimatedDistribution.size() != (std::size_t{1} << attributes)) {
        return fail("estimated distribution has " + std::to_string(estimatedDistribution.size()) +
                    " cells but d = " + std::to_string(attributes) + " needs 2^d");
    }
    return scoreMarginals(attributes, order, counts, negatives, [&](std::uint32_t beta) {
        return marginalOfDistribution(estimatedDistribution, attributes, beta);
    });
}

}  // namespace dpx::ldp
