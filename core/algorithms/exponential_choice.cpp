// One draw of the exponential mechanism on the simulation generator.
#include "core/algorithms/exponential_choice.h"

#include <vector>

#include "core/base/simulation_rng.h"
#include "core/mechanisms/exponential_mechanism.h"

namespace dpx {

std::size_t sampleExponentialMechanism(std::span<const double> utility, double factor,
                                       SimulationRng& rng) {
    const std::vector<double> p = exponentialMechanismProbabilities(utility, factor);
    const double u = rng.uniform();
    double cumulative = 0;
    for (std::size_t j = 0; j < p.size(); ++j) {
        cumulative += p[j];
        if (u < cumulative) {
            return j;
        }
    }
    // u ≥ the rounded total (≈ 1 − 1e-16): the last candidate with positive probability.
    std::size_t last = p.size() - 1;
    while (last > 0 && p[last] == 0) {
        --last;
    }
    return last;
}

}  // namespace dpx
