// Seeded random numbers for simulation only (Monte Carlo, previews). NOT for releases: a release
// must use the OS CSPRNG and exact samplers (issue #8), and the release API will not accept this
// type. Generator: xoshiro256** (Blackman & Vigna 2018), seeded through SplitMix64 from (seed,
// stream), so independent streams are cheap and results do not depend on how streams map to
// threads.
#pragma once

#include <cstdint>
#include <span>

#include "core/base/noise_distribution.h"

namespace dpx {

class SimulationRng {
public:
    SimulationRng(std::uint64_t seed, std::uint64_t stream);

    std::uint64_t next() {
        // xoshiro256** (Blackman & Vigna 2018); inline: it is the innermost call of every
        // simulation.
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
    // Uniform on [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Uniform on (0, 1): never 0, for logarithms.
    double uniformOpen() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
    // Standard normal (Marsaglia polar method; the second variate is kept for the next call).
    double normal();
    // Standard exponential Exp(1) by the ziggurat method (Marsaglia & Tsang 2000) with 256 layers:
    // one 64-bit draw and a comparison in ~99% of calls, exact rejection otherwise.
    // `bit8` receives bit 8 of that draw, an independent fair bit (used as the sign of a Laplace).
    double exponential(bool* bit8 = nullptr) {
        const std::uint64_t r = next();
        const unsigned i = static_cast<unsigned>(r & 0xFFU);
        if (bit8) {
            *bit8 = (r >> 8) & 1U;
        }
        const double x = static_cast<double>(r >> 11) * 0x1.0p-53 * kZigX[i];
        if (x < kZigX[i + 1]) {
            return x;  // inside the part of layer i that lies wholly under the curve (~99%)
        }
        return exponentialSlow(i, x);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    double exponentialSlow(unsigned layer, double x);
    // Right edges x_i of the 256 ziggurat layers of e^{−x}, x_256 = 0 (simulation_rng.cpp).
    static const double* const kZigX;
    std::uint64_t s_[4];
    double spare_ = 0;
    bool hasSpare_ = false;
};

// One draw of the noise law (ziggurat exponential with a random sign for Laplace, difference of
// geometrics for the discrete law, polar method for the Gaussian).
double sampleNoise(const NoiseDistribution& noise, SimulationRng& rng);
// out.size() draws in order, identical to that many calls of sampleNoise.
void sampleNoise(const NoiseDistribution& noise, SimulationRng& rng, std::span<double> out);

}  // namespace dpx
