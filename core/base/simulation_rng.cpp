#include "core/base/simulation_rng.h"

#include <cmath>

namespace dpx {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
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

namespace {

// Ziggurat for f(x) = e^{−x}: 256 layers of equal area V; x[i] is the right edge of layer i, layer
// 0 is the base rectangle [0, r] × [0, f(r)] plus the tail beyond r, x[256] = 0. Constants r and V
// for 256 layers from Marsaglia & Tsang 2000 (checked: the recursion closes at x[256] ≈ 0 and every
// layer has area V).
struct ExpZiggurat {
    double x[257];
    double f[257];
    ExpZiggurat() {
        constexpr double r = 7.69711747013104972;
        constexpr double v = 0.0039496598225815571993;
        x[0] = v / std::exp(-r);
        x[1] = r;
        for (int i = 1; i < 256; ++i) {
            const double y = v / x[i] + std::exp(-x[i]);
            x[i + 1] = y < 1 ? -std::log(y) : 0.0;
        }
        x[256] = 0;
        for (int i = 0; i <= 256; ++i) {
            f[i] = std::exp(-x[i]);
        }
    }
};

const ExpZiggurat& expZiggurat() {
    static const ExpZiggurat table;
    return table;
}

}  // namespace

const double* const SimulationRng::kZigX = expZiggurat().x;

// Layer i was chosen and x = u·x_i fell beyond x_{i+1}: the base layer's tail or a wedge.
double SimulationRng::exponentialSlow(unsigned layer, double x) {
    const ExpZiggurat& z = expZiggurat();
    for (;;) {
        if (layer == 0) {
            return z.x[1] - std::log(uniformOpen());  // tail: r + Exp(1), by memorylessness
        }
        // Wedge: accept with probability (f(x) − f(x_i)) / (f(x_{i+1}) − f(x_i)).
        if (z.f[layer] + uniform() * (z.f[layer + 1] - z.f[layer]) < std::exp(-x)) {
            return x;
        }
        // Rejected: a fresh draw, exactly as the inline fast path does.
        const std::uint64_t r = next();
        layer = static_cast<unsigned>(r & 0xFFU);
        x = static_cast<double>(r >> 11) * 0x1.0p-53 * z.x[layer];
        if (x < z.x[layer + 1]) {
            return x;
        }
    }
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
            // |Z| ~ Exponential(b) with an independent random sign.
            bool negative = false;
            const double e = noise.parameter() * rng.exponential(&negative);
            return negative ? -e : e;
        }
        case NoiseKind::DiscreteLaplace: {
            // Difference of two iid Geometric(1 − α) variables on {0, 1, ...}:
            // G = floor(ln U / ln α).
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

void sampleNoise(const NoiseDistribution& noise, SimulationRng& rng, std::span<double> out) {
    if (noise.kind() == NoiseKind::Laplace) {
        const double b = noise.parameter();
        for (double& v : out) {
            bool negative = false;
            const double e = b * rng.exponential(&negative);
            v = negative ? -e : e;
        }
        return;
    }
    for (double& v : out) {
        v = sampleNoise(noise, rng);
    }
}

}  // namespace dpx
