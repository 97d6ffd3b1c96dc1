// One draw of the exponential mechanism (McSherry & Talwar 2007) on the simulation generator,
// for the algorithms that choose a structure privately (PHP, EFPA, StructureFirst).
#pragma once

#include <cstddef>
#include <span>

namespace dpx {

class SimulationRng;

// Index j drawn with P(j) ∝ exp(factor·utility[j]) (factor = ε/(2Δu) for a utility of
// sensitivity Δu), by the log-sum-exp probabilities of core/mechanisms/exponential_mechanism.h
// and one uniform draw (inverse CDF). utility non-empty and finite, factor ≥ 0.
std::size_t sampleExponentialMechanism(std::span<const double> utility, double factor,
                                       SimulationRng& rng);

}  // namespace dpx
