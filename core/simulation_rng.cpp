#include "core/simulation_rng.h"

#include <cmath>

namespace dpx {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}
}  // namespace

SimulationRng::SimulationRng(std::uint64_t seed, std::uint64_t stream) {
    // Mix seed and stream through two SplitMix64 rounds so that neighbouring (seed, stream) pairs
    // start far apart; SplitMix64 never yields an all-zero xoshiro state from distinct outputs.
    std::uint64_t x = seed;
    std::uint64_t mixed = splitmix64(x) ^ (stream * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL);
    for (auto& s : s_) {
        s = splitmix64(mixed);
    }
}

std::uint64_t SimulationRng::next() {
    // xoshiro256** (Blackman & Vigna 2018).
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

double SimulationRng::normal() {
    if (hasSpare_) {
        hasSpare_ = false;
        return spare_;
    }
    double u, v, s;
    do {
        u = 2 * uniform() - 1;
        v = 2 * uniform() - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    const double f = std::sqrt(-2 * std::log(s) / s);
    spare_ = v * f;
    hasSpare_ = true;
    return u * f;
}

double sampleNoise(const NoiseDistribution& noise, SimulationRng& rng) {
    switch (noise.kind()) {
        case NoiseKind::Laplace: {
            // |Z| ~ Exponential(b) with an independent random sign: bit 0 gives the sign, the top
            // 53 bits a uniform on (0, 1).
            const std::uint64_t r = rng.next();
            const double u = (static_cast<double>(r >> 11) + 0.5) * 0x1.0p-53;
            const double e = -noise.parameter() * std::log(u);
            return (r & 1U) ? e : -e;
        }
        case NoiseKind::DiscreteLaplace: {
            // Difference of two iid Geometric(1 − α) variables on {0, 1, ...}: G = floor(ln U / ln
            // α).
            const double logAlpha = std::log(noise.parameter());
            const double g1 = std::floor(std::log(rng.uniformOpen()) / logAlpha);
            const double g2 = std::floor(std::log(rng.uniformOpen()) / logAlpha);
            return g1 - g2;
        }
        case NoiseKind::Gaussian:
            return noise.parameter() * rng.normal();
    }
    return 0;
}

}  // namespace dpx
