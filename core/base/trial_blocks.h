// Seeded Monte Carlo trials run in fixed blocks on several threads, shared by the simulations
// whose trials each write their own result slot (core/sparse_histogram, core/random_dp). No Qt.
#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>
#include <utility>
#include <vector>

#include "core/base/stop_token.h"

namespace dpx {

// Runs trial(t) for t = 0 … trials − 1, handing out blocks of `blockSize` consecutive trials to
// `threads` workers (0: all cores; never more than the number of blocks). trial(t) must depend
// only on t (e.g. SimulationRng(seed, t)) and write only its own slot, so results do not depend on
// the thread count. A stop request ends the run early; `progress` receives increasing fractions
// of blocks done (called under a lock). Returns the number of trials in the longest prefix of
// finished blocks: a cancelled run keeps exactly what a shorter complete run would have produced.
std::uint64_t runTrialBlocks(std::uint64_t trials, std::uint64_t blockSize, unsigned threads,
                             const std::stop_token& stop, const ProgressCallback& progress,
                             const std::function<void(std::uint64_t)>& trial);

// Mean and standard error of the mean (sample standard deviation / √n) of `v`; NaN for what an
// empty (or, for the standard error, one-element) sample does not define.
std::pair<double, double> meanAndStandardError(const std::vector<double>& v);

}  // namespace dpx
