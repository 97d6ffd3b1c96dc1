// DPBench's data generation (Hay et al., SIGMOD 2016, §5; dpcomp_core DatasetSampledFromFile):
// a histogram is treated as a distribution p = h/Σh; a "scale" m draws m records from p
// (multinomial, seeded), and a "domain size" coarsens by summing adjacent bins. Both run on the
// user's table in the Workbench tab and in dpx bench, so a steward sees the error at the size
// and resolution they will publish.
//
// CONTRACT (issue #20; implemented by helper "cli").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/base/expected.h"
#include "core/workload/workload.h"

namespace dpx {

class SimulationRng;

// Sums adjacent cells: every dimension d of `from` must be a multiple of to[d] (the message
// says which is not). Exact on integers.
Expected<std::vector<double>> coarsen(std::span<const double> x, const DomainShape& from,
                                      const DomainShape& to);

// m records drawn from the shape of x (multinomial(m, x/Σx)), exact in distribution (sequential
// binomials), in time independent of m. Errors: Σx = 0,
// negative or non-finite x, m > 10^12.
Expected<std::vector<double>> resample(std::span<const double> x, std::uint64_t m,
                                       SimulationRng& rng);

}  // namespace dpx
