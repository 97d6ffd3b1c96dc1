// Seeded random numbers for simulation only (Monte Carlo, previews). NOT for releases: a release
// must use the OS CSPRNG and exact samplers (issue #8), and the release API will not accept this
// type. Generator: xoshiro256** (Blackman & Vigna 2018), seeded through SplitMix64 from (seed,
// stream), so independent streams are cheap and results do not depend on how streams map to
// threads.
#pragma once

#include <cstdint>

#include "core/noise_distribution.h"

namespace dpx {

class SimulationRng {
public:
    SimulationRng(std::uint64_t seed, std::uint64_t stream);

    std::uint64_t next();
    // Uniform on [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Uniform on (0, 1): never 0, for logarithms.
    double uniformOpen() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
    // Standard normal (Marsaglia polar method; the second variate is kept for the next call).
    double normal();

private:
    std::uint64_t s_[4];
    double spare_ = 0;
    bool hasSpare_ = false;
};

// One draw of the noise law (inverse-CDF for Laplace, difference of geometrics for the discrete
// law).
double sampleNoise(const NoiseDistribution& noise, SimulationRng& rng);

}  // namespace dpx
