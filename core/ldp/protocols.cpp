// Frequency oracles under local DP (issue #7): seed 001 §2.4 (RR, GRR/direct encoding, OUE, SUE,
// OLH; Wang et al., "Locally differentially private protocols for frequency estimation", USENIX
// Security 2017), §4.7 (HRR), seed 002 (dBitFlip of Ding, Kulkarni & Yekhanin, NeurIPS 2017).
#include "core/ldp/protocols.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/base/random_variates.h"
#include "core/base/trial_blocks.h"

namespace dpx::ldp {

namespace {

__extension__ using U128 = unsigned __int128;

// ε above 50 is rejected: e^50 ≈ 5·10^21 already makes every report deterministic to within
// 2·10^−22 (below double resolution next to 1), so larger values are meaningless and e^ε would
// head for overflow (e^710 = ∞) in the constants.
constexpr double kMaxEpsilon = 50;
// OLH needs g = round(e^ε + 1) below the hash prime 2^61 − 1; e^40 ≈ 2.4·10^17 < 2^61.
constexpr double kMaxOlhEpsilon = 40;

// Everything the simulators need, derived once from a validated spec. pMinusQ is computed from
// expm1/tanh rather than as p − q, so it keeps full relative precision for small ε.
struct Derived {
    Protocol protocol = Protocol::GRR;
    double epsilon = 1;
    std::size_t domain = 2;
    std::size_t hadamard = 2;  // HRR: D′
    std::size_t bits = 1;      // DBitFlip: d
    double p = 0;
    double q = 0;
    double pMinusQ = 0;
    std::uint64_t g = 0;  // OLH
};

Expected<Derived> derive(const ProtocolSpec& spec) {
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    Derived c;
    c.protocol = spec.protocol;
    c.epsilon = spec.epsilon;
    c.domain = spec.domain;
    c.hadamard = hadamardSize(spec.domain);
    c.bits = spec.bits;
    const double eps = spec.epsilon;
    const double e = std::exp(eps);
    const auto d = static_cast<double>(spec.domain);
    switch (spec.protocol) {
        case Protocol::RR:
        case Protocol::GRR:
            // p = e^ε/(e^ε + D − 1), q = 1/(e^ε + D − 1) (seed 001 §2.4.2, direct encoding).
            c.p = e / (e + d - 1);
            c.q = 1 / (e + d - 1);
            c.pMinusQ = std::expm1(eps) / (e + d - 1);
            break;
        case Protocol::OUE:
            // p = ½, q = 1/(e^ε + 1) (Wang et al. 2017 §4.3).
            c.p = 0.5;
            c.q = 1 / (e + 1);
            c.pMinusQ = std::expm1(eps) / (2 * (e + 1));
            break;
        case Protocol::SUE:
        case Protocol::DBitFlip: {
            // One bit per (sampled) position with budget ε/2: p = e^(ε/2)/(e^(ε/2) + 1).
            const double h = std::exp(-eps / 2);
            c.p = 1 / (1 + h);
            c.q = h / (1 + h);
            c.pMinusQ = std::tanh(eps / 4);
            break;
        }
        case Protocol::OLH: {
            // g = round(e^ε + 1), GRR over [g]: p = e^ε/(e^ε + g − 1); a report supports another
            // value w.p. 1/g (Wang et al. 2017 §4.4).
            c.g = static_cast<std::uint64_t>(std::llround(e + 1));
            const auto g = static_cast<double>(c.g);
            c.p = e / (e + g - 1);
            c.q = 1 / g;
            c.pMinusQ = (g - 1) * std::expm1(eps) / (g * (e + g - 1));
            break;
        }
        case Protocol::HRR:
            // RR of one ±1 Hadamard entry with p = e^ε/(e^ε + 1). A report (ℓ, b) supports j when
            // b = H[ℓ][j]: w.p. p for the true value, w.p. ½ for any other (H's columns are
            // orthogonal), so q = ½ and the inverse-transform estimator is (C_j/N − ½)/(p − ½).
            c.p = 1 / (1 + std::exp(-eps));
            c.q = 0.5;
            c.pMinusQ = 0.5 * std::tanh(eps / 2);
            break;
    }
    return c;
}

// Bernoulli(p) from one 64-bit draw: next() < ⌊p·2^64⌋ (discretisation error ≤ 2^−64).
class Coin {
public:
    explicit Coin(double p)
        : all_(p >= 1), threshold_(p >= 1 ? 0 : static_cast<std::uint64_t>(std::ldexp(p, 64))) {}
    bool operator()(SimulationRng& rng) const { return rng.next() < threshold_ || all_; }

private:
    bool all_;
    std::uint64_t threshold_;
};

// A uniform value of [0, k) other than `skip` (k ≥ 2).
std::uint64_t uniformOther(SimulationRng& rng, std::uint64_t k, std::uint64_t skip) {
    const std::uint64_t r = uniformInt(rng, k - 1);
    return r >= skip ? r + 1 : r;
}

// Support of K OLH reports at once (K independent dependency chains for instruction-level
// parallelism). Per user: r = h_P(j) = (a·j + b) mod P and t = r mod g, advanced by
// r ← r + a (− P on wrap) and t ← t + (a mod g) (− (P mod g) on wrap), reduced into [0, g).
template <int K>
void olhSupportKernel(const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* y,
                      std::uint64_t g, std::uint64_t* counts, std::size_t n) {
    const auto gs = static_cast<std::int64_t>(g);
    const auto pg = static_cast<std::int64_t>(kOlhPrime % g);
    std::uint64_t r[K];
    std::int64_t t[K], ag[K], ys[K];
    for (int i = 0; i < K; ++i) {
        r[i] = b[i];
        t[i] = static_cast<std::int64_t>(b[i] % g);
        ag[i] = static_cast<std::int64_t>(a[i] % g);
        ys[i] = static_cast<std::int64_t>(y[i]);
    }
    for (std::size_t j = 0; j < n; ++j) {
        std::uint64_t inc = 0;
        for (int i = 0; i < K; ++i) {
            inc += t[i] == ys[i] ? 1U : 0U;
        }
        counts[j] += inc;
        for (int i = 0; i < K; ++i) {
            // Branch-free with all-ones masks: a wrap happens for about half of all steps at
            // random, so branches would be mispredicted constantly.
            r[i] += a[i];
            const std::uint64_t wrap = 0 - static_cast<std::uint64_t>(r[i] >= kOlhPrime);
            r[i] -= kOlhPrime & wrap;
            std::int64_t x = t[i] + ag[i] - (pg & static_cast<std::int64_t>(wrap));
            x += gs & (x >> 63);          // x < 0: add g (arithmetic shift, C++20)
            x -= gs & ~((x - gs) >> 63);  // x ≥ g: subtract g
            t[i] = x;
        }
    }
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define DPX_OLH_AVX2 1
// The same kernel for 32 users in eight 4 × 64-bit vectors (GNU vector extensions), compiled for
// AVX2 (vpaddq, vpcmpgtq) and called only when the CPU has it; the build itself targets baseline
// x86-64. Lane by lane the arithmetic is olhSupportKernel's, so the counts are identical. r < P <
// 2^61, so signed comparisons are exact, and a step wraps iff r ≥ P − a beforehand. 3–4× faster
// than the scalar kernel at D = 1024 (docs/performance.md); with SSE2 alone the vector form is
// slower than scalar code, hence the dispatch instead of compiling it for the baseline.
using I64x4 = std::int64_t __attribute__((vector_size(32)));
constexpr int kOlhVectors = 8;
constexpr int kOlhVectorUsers = 4 * kOlhVectors;

__attribute__((target("avx2"))) void olhSupportKernelAvx2(const std::uint64_t* a,
                                                          const std::uint64_t* b,
                                                          const std::uint64_t* y, std::uint64_t g,
                                                          std::uint64_t* counts, std::size_t n) {
    const auto gs = static_cast<std::int64_t>(g);
    const auto pg = static_cast<std::int64_t>(kOlhPrime % g);
    const auto ps = static_cast<std::int64_t>(kOlhPrime);
    I64x4 r[kOlhVectors], t[kOlhVectors], step[kOlhVectors], limit[kOlhVectors], ag[kOlhVectors],
        ys[kOlhVectors];
    for (int k = 0; k < kOlhVectors; ++k) {
        for (int i = 0; i < 4; ++i) {
            const int u = 4 * k + i;
            r[k][i] = static_cast<std::int64_t>(b[u]);
            t[k][i] = static_cast<std::int64_t>(b[u] % g);
            step[k][i] = static_cast<std::int64_t>(a[u]);
            limit[k][i] = ps - static_cast<std::int64_t>(a[u]);
            ag[k][i] = static_cast<std::int64_t>(a[u] % g);
            ys[k][i] = static_cast<std::int64_t>(y[u]);
        }
    }
    for (std::size_t j = 0; j < n; ++j) {
        I64x4 hits = {0, 0, 0, 0};  // −1 per lane whose hash equals its report
        for (int k = 0; k < kOlhVectors; ++k) {
            hits += t[k] == ys[k];
        }
        counts[j] += static_cast<std::uint64_t>(-(hits[0] + hits[1] + hits[2] + hits[3]));
        for (int k = 0; k < kOlhVectors; ++k) {
            const I64x4 wrap = r[k] >= limit[k];  // all ones where r + a ≥ P
            r[k] += step[k] - (ps & wrap);
            I64x4 x = t[k] + ag[k] - (pg & wrap);  // in (−g, 2g)
            x += gs & (x < 0);
            x -= gs & (x >= gs);
            t[k] = x;
        }
    }
}

bool cpuHasAvx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}
#endif

// Per-thread tallies of the per-user simulator (integer sums, so merging in any order gives the
// same result).
struct Tally {
    std::vector<std::uint64_t> support;  // C_j: reports supporting j (DBitFlip: 1-bits at j)
    std::vector<std::uint64_t> sampled;  // DBitFlip: M_j, users who sampled bucket j
    std::vector<std::int64_t> hadamard;  // HRR: S_ℓ = Σ reported ±1 bits with index ℓ
    std::vector<std::uint32_t> perm;     // DBitFlip scratch: identity permutation of [D]
    std::vector<std::uint64_t> swaps;    // DBitFlip scratch: Fisher–Yates swap targets

    explicit Tally(const Derived& c) {
        if (c.protocol == Protocol::HRR) {
            hadamard.assign(c.hadamard, 0);
        } else {
            support.assign(c.domain, 0);
        }
        if (c.protocol == Protocol::DBitFlip) {
            sampled.assign(c.domain, 0);
            if (c.bits < c.domain) {
                perm.resize(c.domain);
                for (std::size_t i = 0; i < c.domain; ++i) {
                    perm[i] = static_cast<std::uint32_t>(i);
                }
                swaps.resize(c.bits);
            }
        }
    }
    void add(const Tally& o) {
        for (std::size_t i = 0; i < support.size(); ++i) {
            support[i] += o.support[i];
        }
        for (std::size_t i = 0; i < sampled.size(); ++i) {
            sampled[i] += o.sampled[i];
        }
        for (std::size_t i = 0; i < hadamard.size(); ++i) {
            hadamard[i] += o.hadamard[i];
        }
    }
};

// Generates and tallies the reports of one block of users.
void runBlock(const Derived& c, std::span<const std::uint32_t> values, SimulationRng& rng,
              Tally& tally) {
    const std::uint64_t dom = c.domain;
    switch (c.protocol) {
        case Protocol::RR:
        case Protocol::GRR: {
            const Coin keep(c.p);
            for (const std::uint32_t v : values) {
                const std::uint64_t r = keep(rng) ? v : uniformOther(rng, dom, v);
                ++tally.support[r];
            }
            return;
        }
        case Protocol::OUE:
        case Protocol::SUE: {
            // The true position is 1 w.p. p; each of the D − 1 others independently w.p. q. For
            // small q the set ones are found by geometric skipping (gap ~ Geometric(q) by
            // inversion, ⌊ln U / ln(1 − q)⌋): O(1 + ones) per user; otherwise one coin per bit.
            const Coin one(c.p);
            const Coin flip(c.q);
            const bool skip = c.q < 1.0 / 16;
            const double logNotQ = std::log1p(-c.q);
            const std::uint64_t others = dom - 1;
            for (const std::uint32_t v : values) {
                if (one(rng)) {
                    ++tally.support[v];
                }
                if (skip) {
                    for (std::uint64_t i = 0;;) {
                        const double gap = std::floor(std::log(rng.uniformOpen()) / logNotQ);
                        if (gap >= static_cast<double>(others - i)) {
                            break;
                        }
                        i += static_cast<std::uint64_t>(gap);
                        ++tally.support[i < v ? i : i + 1];
                        if (++i >= others) {
                            break;
                        }
                    }
                } else {
                    for (std::uint64_t j = 0; j < dom; ++j) {
                        if (j != v && flip(rng)) {
                            ++tally.support[j];
                        }
                    }
                }
            }
            return;
        }
        case Protocol::OLH: {
            // Per user: (a, b) of the universal family, h = h_{a,b}(v), y = GRR_g(h). Support of
            // every j by the kernel, 32 users at a time with AVX2, else four. Users draw in order
            // whatever the kernel, and counts are sums, so the result is the same either way.
            const Coin keep(c.p);
            constexpr int kLanes = 4;
            constexpr int kMaxLanes = 32;
            std::uint64_t a[kMaxLanes], b[kMaxLanes], y[kMaxLanes];
            std::size_t u = 0;
            const auto draw = [&](std::uint32_t v, int lane) {
                a[lane] = 1 + uniformInt(rng, kOlhPrime - 1);
                b[lane] = uniformInt(rng, kOlhPrime);
                const std::uint64_t h = olhHash(a[lane], b[lane], v, c.g);
                y[lane] = keep(rng) ? h : uniformOther(rng, c.g, h);
            };
#ifdef DPX_OLH_AVX2
            static_assert(kOlhVectorUsers == kMaxLanes);
            if (cpuHasAvx2()) {
                for (; u + kOlhVectorUsers <= values.size(); u += kOlhVectorUsers) {
                    for (int lane = 0; lane < kOlhVectorUsers; ++lane) {
                        draw(values[u + static_cast<std::size_t>(lane)], lane);
                    }
                    olhSupportKernelAvx2(a, b, y, c.g, tally.support.data(), c.domain);
                }
            }
#endif
            for (; u + kLanes <= values.size(); u += kLanes) {
                for (int lane = 0; lane < kLanes; ++lane) {
                    draw(values[u + static_cast<std::size_t>(lane)], lane);
                }
                olhSupportKernel<kLanes>(a, b, y, c.g, tally.support.data(), c.domain);
            }
            for (; u < values.size(); ++u) {
                draw(values[u], 0);
                olhSupportKernel<1>(a, b, y, c.g, tally.support.data(), c.domain);
            }
            return;
        }
        case Protocol::HRR: {
            // ℓ uniform in [D′], b = RR_p(H[ℓ][v]) with H[ℓ][v] = (−1)^popcount(ℓ & v).
            const Coin keep(c.p);
            for (const std::uint32_t v : values) {
                const std::uint64_t l = uniformInt(rng, c.hadamard);
                const std::int64_t h = (std::popcount(l & v) & 1) ? -1 : 1;
                tally.hadamard[l] += keep(rng) ? h : -h;
            }
            return;
        }
        case Protocol::DBitFlip: {
            // d distinct buckets by a partial Fisher–Yates shuffle of the thread's identity
            // permutation, undone afterwards (O(d) per user); one coin per sampled bucket.
            const Coin own(c.p);
            const Coin other(c.q);
            for (const std::uint32_t v : values) {
                if (c.bits == c.domain) {
                    for (std::uint64_t j = 0; j < dom; ++j) {
                        tally.support[j] += (j == v ? own(rng) : other(rng)) ? 1U : 0U;
                        ++tally.sampled[j];
                    }
                    continue;
                }
                for (std::size_t i = 0; i < c.bits; ++i) {
                    const std::uint64_t k = i + uniformInt(rng, dom - i);
                    tally.swaps[i] = k;
                    std::swap(tally.perm[i], tally.perm[k]);
                }
                for (std::size_t i = 0; i < c.bits; ++i) {
                    const std::uint32_t j = tally.perm[i];
                    tally.support[j] += (j == v ? own(rng) : other(rng)) ? 1U : 0U;
                    ++tally.sampled[j];
                }
                for (std::size_t i = c.bits; i-- > 0;) {
                    std::swap(tally.perm[i], tally.perm[tally.swaps[i]]);
                }
            }
            return;
        }
    }
}

// Work per user in elementary steps, to size blocks at ~2^18 steps (a fixed function of the
// spec, never of the thread count, so block streams are reproducible).
std::uint64_t blockUsers(const Derived& c) {
    double cost = 1;
    switch (c.protocol) {
        case Protocol::OLH:
            cost = static_cast<double>(c.domain);
            break;
        case Protocol::OUE:
        case Protocol::SUE:
            cost = c.q < 1.0 / 16 ? 1 + c.q * static_cast<double>(c.domain)
                                  : static_cast<double>(c.domain);
            break;
        case Protocol::DBitFlip:
            cost = static_cast<double>(c.bits == c.domain ? c.domain : 2 * c.bits);
            break;
        default:
            break;
    }
    return static_cast<std::uint64_t>(std::clamp(262144.0 / cost, 16.0, 16384.0));
}

// The unbiased estimates from the collector's statistics.
std::vector<double> estimateFromSupport(const Derived& c, std::span<const std::uint64_t> support,
                                        std::uint64_t users) {
    const auto n = static_cast<double>(users);
    std::vector<double> f(c.domain);
    for (std::size_t j = 0; j < c.domain; ++j) {
        f[j] = (static_cast<double>(support[j]) / n - c.q) / c.pMinusQ;
    }
    return f;
}

// HRR: E[S_ℓ] = (N/D′)(2p − 1)(H f)_ℓ and H·H = D′·I, so f̂ = H S / (N (2p − 1)).
std::vector<double> estimateFromHadamard(const Derived& c, std::span<const std::int64_t> sums,
                                         std::uint64_t users) {
    std::vector<double> s(sums.begin(), sums.end());
    fastWalshHadamard(s);
    const double scale = 1 / (static_cast<double>(users) * 2 * c.pMinusQ);
    std::vector<double> f(c.domain);
    for (std::size_t j = 0; j < c.domain; ++j) {
        f[j] = s[j] * scale;
    }
    return f;
}

// dBitFlip (seed 002): ĥ(v) = (D/(N d)) Σ_{users who sampled v} (b − q)/(p − q)
//                          = (C_v − q·M_v) / ((N d / D)(p − q)).
std::vector<double> estimateDBitFlip(const Derived& c, std::span<const std::uint64_t> ones,
                                     std::span<const std::uint64_t> sampled, std::uint64_t users) {
    const double expectedSamplers =
        static_cast<double>(users) * static_cast<double>(c.bits) / static_cast<double>(c.domain);
    std::vector<double> f(c.domain);
    for (std::size_t j = 0; j < c.domain; ++j) {
        f[j] = (static_cast<double>(ones[j]) - c.q * static_cast<double>(sampled[j])) /
               (expectedSamplers * c.pMinusQ);
    }
    return f;
}

FrequencyEstimate cancelledEstimate() {
    FrequencyEstimate r;
    r.cancelled = true;
    return r;
}

}  // namespace

const char* protocolName(Protocol p) {
    switch (p) {
        case Protocol::RR:
            return "rr";
        case Protocol::GRR:
            return "grr";
        case Protocol::OUE:
            return "oue";
        case Protocol::SUE:
            return "sue";
        case Protocol::OLH:
            return "olh";
        case Protocol::HRR:
            return "hrr";
        case Protocol::DBitFlip:
            return "dbitflip";
    }
    return "?";
}

Expected<Protocol> protocolFromName(const std::string& name) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    for (const Protocol p : {Protocol::RR, Protocol::GRR, Protocol::OUE, Protocol::SUE,
                             Protocol::OLH, Protocol::HRR, Protocol::DBitFlip}) {
        if (lower == protocolName(p)) {
            return p;
        }
    }
    return Error{"unknown LDP protocol '" + name +
                 "' (expected rr, grr, oue, sue, olh, hrr or dbitflip)"};
}

Status ProtocolSpec::validate() const {
    if (!std::isfinite(epsilon) || epsilon <= 0) {
        return Error{"epsilon (ε) of the LDP protocol must be finite and > 0"};
    }
    if (epsilon > kMaxEpsilon) {
        return Error{
            "epsilon (ε) of the LDP protocol must be at most 50: beyond that every report "
            "is the true value to double precision and e^ε heads for overflow"};
    }
    if (domain < 2 || domain > kMaxDomain) {
        return Error{"domain size D of the LDP protocol must be in [2, " +
                     std::to_string(kMaxDomain) + "], got " + std::to_string(domain)};
    }
    if (protocol == Protocol::RR && domain != 2) {
        return Error{
            "domain size D must be 2 for binary randomized response (rr); use grr for "
            "larger domains"};
    }
    if (protocol == Protocol::OLH && epsilon > kMaxOlhEpsilon) {
        return Error{
            "epsilon (ε) must be at most 40 for olh: the hash range g = round(e^ε + 1) "
            "must stay below the hash prime 2^61 − 1"};
    }
    if (protocol == Protocol::DBitFlip && (bits < 1 || bits > domain)) {
        return Error{"bits d of dbitflip must be in [1, D] = [1, " + std::to_string(domain) +
                     "], got " + std::to_string(bits)};
    }
    return okStatus();
}

Expected<OracleConstants> oracleConstants(const ProtocolSpec& spec) {
    auto c = derive(spec);
    if (!c) {
        return c.error();
    }
    return OracleConstants{c->p, c->q, static_cast<std::size_t>(c->g)};
}

Expected<double> estimatorVariance(const ProtocolSpec& spec, std::uint64_t users, double f) {
    auto dc = derive(spec);
    if (!dc) {
        return dc.error();
    }
    if (users == 0) {
        return Error{"the number of users N must be at least 1"};
    }
    if (!(f >= 0 && f <= 1)) {
        return Error{"the true frequency f must be in [0, 1]"};
    }
    const Derived& c = *dc;
    const auto n = static_cast<double>(users);
    if (c.protocol == Protocol::DBitFlip) {
        // Each user contributes Z_i = [v ∈ S_i](b_i − q)/(p − q), with P[v ∈ S_i] = s = d/D, and
        // f̂ = Σ Z_i/(N s). E Z = s for users holding v, 0 otherwise; E Z² = s(pq/(p−q)² + 1)
        // resp. s·pq/(p−q)² (q = 1 − p). Summing the independent variances:
        // Var f̂ = [pq/(p − q)² + f(1 − s)] / (N s). d = D gives SUE's variance.
        const double s = static_cast<double>(c.bits) / static_cast<double>(c.domain);
        const double r = c.p * c.q / (c.pMinusQ * c.pMinusQ);
        return (r + f * (1 - s)) / (n * s);
    }
    // Pure-count estimators: C_j is a sum of N independent Bernoullis, θ_j = fN of them with
    // success p, the others q (OLH: q = 1/g, exact for the idealised hash and within 1/P ≈ 4e−19
    // per report for the universal family; HRR: the per-user ±1 terms H[ℓ][j]·b have mean 2p − 1
    // for the true value and 0 otherwise, i.e. p and q = ½ as support probabilities), so
    // Var C_j = N[q(1 − q) + f(p(1 − p) − q(1 − q))] and Var f̂_j = Var C_j/(N(p − q))².
    const double pq = c.pMinusQ;
    return (c.q * (1 - c.q) + f * (c.p * (1 - c.p) - c.q * (1 - c.q))) / (n * pq * pq);
}

double localEpsilonOf(const ReportMatrix& m) {
    double worst = 0;
    for (const auto& row : m.p) {
        if (row.empty()) {
            continue;
        }
        const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
        if (*hi <= 0) {
            continue;  // a report no value produces
        }
        if (*lo <= 0) {
            return std::numeric_limits<double>::infinity();
        }
        worst = std::max(worst, std::log(*hi) - std::log(*lo));
    }
    return worst;
}

Expected<ReportMatrix> reportMatrix(const ProtocolSpec& spec) {
    auto dc = derive(spec);
    if (!dc) {
        return dc.error();
    }
    const Derived& c = *dc;
    const std::size_t dom = c.domain;
    ReportMatrix m;
    switch (c.protocol) {
        case Protocol::RR:
        case Protocol::GRR:
            for (std::size_t r = 0; r < dom; ++r) {
                m.reportLabels.push_back(std::to_string(r));
                std::vector<double> row(dom, c.q);
                row[r] = c.p;
                m.p.push_back(std::move(row));
            }
            return m;
        case Protocol::OUE:
        case Protocol::SUE: {
            if (dom > 10) {
                return Error{"the report space of " + std::string(protocolName(c.protocol)) +
                             " has 2^D reports: the matrix is shown for D ≤ 10 only"};
            }
            // Row r: the bit vector with bit j = (r >> j) & 1, labelled b_0 b_1 … b_{D−1}.
            for (std::size_t r = 0; r < (std::size_t{1} << dom); ++r) {
                std::string label;
                std::vector<double> row(dom, 1.0);
                for (std::size_t j = 0; j < dom; ++j) {
                    const bool bit = (r >> j) & 1U;
                    label += bit ? '1' : '0';
                    for (std::size_t v = 0; v < dom; ++v) {
                        const double one = j == v ? c.p : c.q;
                        row[v] *= bit ? one : 1 - one;
                    }
                }
                m.reportLabels.push_back(std::move(label));
                m.p.push_back(std::move(row));
            }
            return m;
        }
        case Protocol::HRR: {
            const std::size_t dh = c.hadamard;
            if (dh > 64) {
                return Error{
                    "the report space of hrr has 2·D′ reports: the matrix is shown for "
                    "D′ = 2^⌈log2 D⌉ ≤ 64 only"};
            }
            // Rows (ℓ, b), b = +1 then −1: P = (1/D′)·(p if b = H[ℓ][v] else 1 − p).
            const double keep = c.p;
            const double flip = 1 / (1 + std::exp(c.epsilon));
            for (std::size_t l = 0; l < dh; ++l) {
                for (const int b : {1, -1}) {
                    m.reportLabels.push_back("(" + std::to_string(l) + ", " +
                                             (b > 0 ? "+1" : "-1") + ")");
                    std::vector<double> row(dom);
                    for (std::size_t v = 0; v < dom; ++v) {
                        const int h = (std::popcount(l & v) & 1) ? -1 : 1;
                        row[v] = (h == b ? keep : flip) / static_cast<double>(dh);
                    }
                    m.p.push_back(std::move(row));
                }
            }
            return m;
        }
        case Protocol::OLH:
        case Protocol::DBitFlip:
            break;
    }
    return Error{"the report space of " + std::string(protocolName(c.protocol)) +
                 " is too large to show as a matrix"};
}

Expected<FrequencyEstimate> simulatePerUser(const ProtocolSpec& spec,
                                            std::span<const std::uint32_t> values,
                                            std::uint64_t seed, unsigned threads,
                                            const std::stop_token& stop,
                                            const ProgressCallback& progress) {
    auto dc = derive(spec);
    if (!dc) {
        return dc.error();
    }
    const Derived& c = *dc;
    if (values.empty()) {
        return Error{"the per-user simulation needs at least one user"};
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] >= c.domain) {
            return Error{"value " + std::to_string(values[i]) + " of user " + std::to_string(i) +
                         " is outside the domain [0, " + std::to_string(c.domain) + ")"};
        }
    }
    const std::uint64_t users = values.size();
    TrialBlockOptions blocks;
    blocks.trials = users;
    blocks.blockSize = blockUsers(c);
    blocks.threads = threads;
    blocks.stop = stop;
    blocks.progress = progress;
    blocks.progressSteps = 1000;  // blocks can be small: at most ~1000 increasing calls
    // One tally per worker, summed at the end (integer sums: the order does not matter).
    std::vector<Tally> tallies(trialBlockWorkers(blocks), Tally(c));
    const TrialBlocksRun run = runTrialBlocks(blocks, [&](const TrialBlock& b) {
        SimulationRng rng(seed, b.index);  // one stream per block: independent of the thread count
        runBlock(c, values.subspan(b.begin, b.size()), rng, tallies[b.worker]);
        return true;
    });
    // A cancelled run has tallied an unpredictable subset of blocks: no estimate is returned.
    if (!run.complete()) {
        return cancelledEstimate();
    }
    Tally total(c);
    for (const Tally& t : tallies) {
        total.add(t);
    }
    FrequencyEstimate result;
    result.users = users;
    switch (c.protocol) {
        case Protocol::HRR:
            result.frequencies = estimateFromHadamard(c, total.hadamard, users);
            break;
        case Protocol::DBitFlip:
            result.frequencies = estimateDBitFlip(c, total.support, total.sampled, users);
            break;
        default:
            result.frequencies = estimateFromSupport(c, total.support, users);
            break;
    }
    return result;
}

Expected<FrequencyEstimate> simulateAggregate(const ProtocolSpec& spec,
                                              std::span<const std::int64_t> trueCounts,
                                              std::uint64_t seed, const std::stop_token& stop) {
    auto dc = derive(spec);
    if (!dc) {
        return dc.error();
    }
    const Derived& c = *dc;
    const std::size_t dom = c.domain;
    if (trueCounts.size() != dom) {
        return Error{"the true counts must have one entry per domain value (D = " +
                     std::to_string(dom) + "), got " + std::to_string(trueCounts.size())};
    }
    std::uint64_t users = 0;
    for (std::size_t j = 0; j < dom; ++j) {
        if (trueCounts[j] < 0) {
            return Error{"true count " + std::to_string(j) + " is negative"};
        }
        users += static_cast<std::uint64_t>(trueCounts[j]);
        if (users > kMaxBinomialTrials) {
            return Error{"the number of users N = Σ true counts must be at most 2^62"};
        }
    }
    if (users == 0) {
        return Error{"the number of users N = Σ true counts must be at least 1"};
    }
    const auto theta = [&](std::size_t j) { return static_cast<std::uint64_t>(trueCounts[j]); };
    const auto cancelled = [&](std::size_t j) { return (j & 1023U) == 0 && stop.stop_requested(); };
    SimulationRng rng(seed, 0);
    FrequencyEstimate result;
    result.users = users;
    switch (c.protocol) {
        case Protocol::RR:
        case Protocol::GRR: {
            // GRR as a mixture: report v w.p. α = p − q, else a uniform value of all D (then
            // P[v] = α + (1 − α)/D = p and P[u ≠ v] = (1 − α)/D = q). So C = K + U with
            // K_v ~ Bin(θ_v, p − q) and U ~ Multinomial(N − ΣK, uniform): exact, O(D).
            std::vector<std::uint64_t> support(dom);
            std::uint64_t kept = 0;
            for (std::size_t j = 0; j < dom; ++j) {
                if (cancelled(j)) {
                    return cancelledEstimate();
                }
                support[j] = binomial(rng, theta(j), c.pMinusQ);
                kept += support[j];
            }
            std::vector<std::uint64_t> uniform(dom);
            multinomialUniform(rng, users - kept, uniform);
            for (std::size_t j = 0; j < dom; ++j) {
                support[j] += uniform[j];
            }
            result.frequencies = estimateFromSupport(c, support, users);
            return result;
        }
        case Protocol::OUE:
        case Protocol::SUE:
        case Protocol::OLH: {
            // Unary encodings: bit j of a user is 1 w.p. p if the user holds j, else q,
            // independently across j and users, so C_j = Bin(θ_j, p) + Bin(N − θ_j, q) exactly.
            // OLH: exact for an idealised fully random hash (q = 1/g, supports of different j
            // independent); for the universal family each C_j is still a sum of N independent
            // Bernoullis with these p and (to within 1/P ≈ 4e−19) q, so every marginal law of C_j
            // is right, but the real protocol's correlation between C_j and C_k is not
            // reproduced (one report supports about D/g values, and the family is pairwise but
            // not three-wise independent: sums over ranges of per-user estimates have measurably
            // more variance than Σ Var, docs/mechanisms/local-olh.md).
            std::vector<std::uint64_t> support(dom);
            for (std::size_t j = 0; j < dom; ++j) {
                if (cancelled(j)) {
                    return cancelledEstimate();
                }
                support[j] = binomial(rng, theta(j), c.p) + binomial(rng, users - theta(j), c.q);
            }
            result.frequencies = estimateFromSupport(c, support, users);
            return result;
        }
        case Protocol::HRR: {
            // Per user: ℓ uniform in [D′]; b = H[ℓ][v] w.p. p. As a mixture: w.p. 2p − 1 the true
            // entry, else a uniform ±1 (P[b = H] = 2p − 1 + (2 − 2p)/2 = p). Hence, exactly:
            //   K_v ~ Bin(θ_v, 2p − 1) truthful users of value v, their ℓ ~ Multinomial(K_v,
            //   uniform D′), each adding H[ℓ][v] to S_ℓ;
            //   the other R = N − ΣK users: (ℓ, b) ~ Multinomial(R, uniform over 2·D′ cells).
            // Cost O(Σ_v min(K_v, D′) + min(R, D′)) ≤ O(D·D′) and ≤ O(N): per value the cheaper
            // of K_v uniform draws or D′ conditional binomials.
            const std::size_t dh = c.hadamard;
            std::vector<std::int64_t> sums(dh, 0);
            std::vector<std::uint64_t> cells(2 * dh);
            std::uint64_t truthful = 0;
            for (std::size_t v = 0; v < dom; ++v) {
                if ((v & 15U) == 0 && stop.stop_requested()) {
                    return cancelledEstimate();
                }
                const std::uint64_t k = binomial(rng, theta(v), 2 * c.pMinusQ);
                truthful += k;
                if (k == 0) {
                    continue;
                }
                const auto hv = [&](std::size_t l) -> std::int64_t {
                    return (std::popcount(l & v) & 1) ? -1 : 1;
                };
                if (k < dh) {
                    for (std::uint64_t t = 0; t < k; ++t) {
                        const std::uint64_t l = uniformInt(rng, dh);
                        sums[l] += hv(l);
                    }
                } else {
                    const std::span<std::uint64_t> byRow(cells.data(), dh);
                    multinomialUniform(rng, k, byRow);
                    for (std::size_t l = 0; l < dh; ++l) {
                        sums[l] += hv(l) * static_cast<std::int64_t>(byRow[l]);
                    }
                }
            }
            multinomialUniform(rng, users - truthful, cells);  // cell 2ℓ: b = +1, 2ℓ + 1: −1
            for (std::size_t l = 0; l < dh; ++l) {
                sums[l] += static_cast<std::int64_t>(cells[2 * l]) -
                           static_cast<std::int64_t>(cells[2 * l + 1]);
            }
            result.frequencies = estimateFromHadamard(c, sums, users);
            return result;
        }
        case Protocol::DBitFlip: {
            // Per bucket v: A_v ~ Bin(θ_v, s) holders of v who sampled v, B_v ~ Bin(N − θ_v, s)
            // others who sampled v (s = d/D), C_v = Bin(A_v, p) + Bin(B_v, q), M_v = A_v + B_v.
            // Each pair (C_v, M_v) has exactly the protocol's joint law (users are independent and
            // each samples v w.p. s). Approximation: the pairs are drawn independently across v,
            // whereas in the protocol every user samples exactly d buckets, so Σ_v M_v = N·d and
            // the M_v are slightly negatively correlated (Cov = −N·s(1 − s)/(D − 1) for d < D).
            // Marginal means and variances of every f̂_v are therefore exact; covariances
            // between buckets are not (d = D: M_v = N exactly, drawn so here too).
            const double s = static_cast<double>(c.bits) / static_cast<double>(dom);
            std::vector<std::uint64_t> ones(dom), sampled(dom);
            for (std::size_t v = 0; v < dom; ++v) {
                if (cancelled(v)) {
                    return cancelledEstimate();
                }
                const std::uint64_t a = binomial(rng, theta(v), s);
                const std::uint64_t b = binomial(rng, users - theta(v), s);
                sampled[v] = a + b;
                ones[v] = binomial(rng, a, c.p) + binomial(rng, b, c.q);
            }
            result.frequencies = estimateDBitFlip(c, ones, sampled, users);
            return result;
        }
    }
    return Error{"unknown LDP protocol"};
}

std::size_t hadamardSize(std::size_t domain) {
    return domain <= 1 ? 1 : std::bit_ceil(domain);
}

void fastWalshHadamard(std::span<double> values) {
    const std::size_t n = values.size();
    if (n > 1 && !std::has_single_bit(n)) {
        throw std::invalid_argument("dpx::ldp::fastWalshHadamard: length must be a power of two");
    }
    for (std::size_t h = 1; h < n; h <<= 1) {
        for (std::size_t i = 0; i < n; i += 2 * h) {
            for (std::size_t j = i; j < i + h; ++j) {
                const double a = values[j];
                const double b = values[j + h];
                values[j] = a + b;
                values[j + h] = a - b;
            }
        }
    }
}

std::uint64_t olhHash(std::uint64_t a, std::uint64_t b, std::uint64_t x, std::uint64_t g) {
    const U128 v = static_cast<U128>(a) * x + b;
    return static_cast<std::uint64_t>(v % kOlhPrime) % g;
}

void olhAddSupport(std::uint64_t a, std::uint64_t b, std::uint64_t g, std::uint64_t y,
                   std::span<std::uint64_t> counts) {
    olhSupportKernel<1>(&a, &b, &y, g, counts.data(), counts.size());
}

void olhAddSupportBatch(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                        std::span<const std::uint64_t> y, std::uint64_t g,
                        std::span<std::uint64_t> counts) {
    if (b.size() != a.size() || y.size() != a.size()) {
        throw std::invalid_argument("dpx::ldp::olhAddSupportBatch: a, b and y differ in size");
    }
    std::size_t u = 0;
#ifdef DPX_OLH_AVX2
    if (cpuHasAvx2()) {
        for (; u + kOlhVectorUsers <= a.size(); u += kOlhVectorUsers) {
            olhSupportKernelAvx2(&a[u], &b[u], &y[u], g, counts.data(), counts.size());
        }
    }
#endif
    for (; u + 4 <= a.size(); u += 4) {
        olhSupportKernel<4>(&a[u], &b[u], &y[u], g, counts.data(), counts.size());
    }
    for (; u < a.size(); ++u) {
        olhSupportKernel<1>(&a[u], &b[u], &y[u], g, counts.data(), counts.size());
    }
}

}  // namespace dpx::ldp
