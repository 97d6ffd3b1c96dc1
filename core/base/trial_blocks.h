// The one parallel-trials engine: seeded Monte Carlo trials (or any independent work items) run
// in fixed blocks on several threads, with cancellation and progress. Used by every simulation in
// core (accuracy/monte_carlo, choosing/tradeoff, ldp/protocols, ldp/experiment,
// mechanisms/sparse_histogram, mechanisms/random_dp). No Qt.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "core/base/stop_token.h"

namespace dpx {

// More threads than this only add start-up cost; a larger request is clamped (results never
// depend on the thread count).
inline constexpr unsigned kMaxTrialThreads = 256;

// One block of consecutive trials [begin, end), handed to one worker.
struct TrialBlock {
    std::uint64_t index = 0;  // block number: trials [index·blockSize, …)
    std::uint64_t begin = 0;  // first trial
    std::uint64_t end = 0;    // one past the last trial
    unsigned worker = 0;  // 0 … workers − 1 (0 is the calling thread): per-worker state index
    std::uint64_t size() const { return end - begin; }
};

struct TrialBlockOptions {
    std::uint64_t trials = 0;     // trials 0 … trials − 1
    std::uint64_t blockSize = 1;  // trials per block (the last block may be shorter)
    unsigned threads = 0;         // 0: all cores; never more than the blocks or kMaxTrialThreads
    std::stop_token stop;         // checked before each block is taken
    // Fraction of trials in finished blocks, called under the engine's lock with strictly
    // increasing values; a complete run ends with exactly 1.
    ProgressCallback progress;
    // 0: report after every finished block; N > 0: at most N reports (when ⌊N·done/trials⌋
    // increases), for runs of very many small blocks.
    std::uint64_t progressSteps = 0;
};

struct TrialBlocksRun {
    std::uint64_t blocks = 0;          // in the partition
    std::uint64_t finishedBlocks = 0;  // blocks whose function returned true
    std::uint64_t prefixTrials = 0;    // trials in the longest prefix of finished blocks
    bool complete() const { return finishedBlocks == blocks; }
};

// Number of blocks of `blockSize` trials covering `trials` (0 if either is 0).
std::uint64_t trialBlockCount(std::uint64_t trials, std::uint64_t blockSize);

// Number of workers runTrialBlocks uses for `o` (at least 1): the size for per-worker state.
unsigned trialBlockWorkers(const TrialBlockOptions& o);

// Runs block(b) for every block of the partition, handing blocks out in increasing order to the
// workers. block(b) must depend only on b's trials (e.g. SimulationRng(seed, b.index)) and write
// only its own results (or per-worker state), so results do not depend on the thread count. It
// returns true when the block is finished, false when it gave up part-way (a stop request seen
// inside the block, or a failure the caller records): then no worker takes another block.
// A stop request ends the run after the blocks in flight: at most one more block per worker.
// The longest prefix of finished blocks is what a shorter complete run would have produced.
TrialBlocksRun runTrialBlocks(const TrialBlockOptions& o,
                              const std::function<bool(const TrialBlock&)>& block);

// Per-trial form: trial(t) for t = 0 … trials − 1 (no stop check inside a block); returns the
// number of trials in the longest prefix of finished blocks.
std::uint64_t runTrialBlocks(std::uint64_t trials, std::uint64_t blockSize, unsigned threads,
                             const std::stop_token& stop, const ProgressCallback& progress,
                             const std::function<void(std::uint64_t)>& trial);

// Ordered-merge form: run(b) returns the block's result (std::nullopt: gave up part-way, as a
// false return above); merge(result) is called with the results strictly in block order, for the
// longest prefix of finished blocks only — a merge that is not associative-exact (floating-point
// moments) then gives the same bits for any thread count. A result that finishes early waits
// until the blocks before it are merged.
template <class Run, class Merge>
TrialBlocksRun runTrialBlocksInOrder(const TrialBlockOptions& o, Run&& run, Merge&& merge) {
    using Result = typename std::invoke_result_t<Run&, const TrialBlock&>::value_type;
    std::mutex mutex;
    std::map<std::uint64_t, Result> pending;  // guarded by mutex
    std::uint64_t merged = 0;                 // guarded: length of the merged prefix
    return runTrialBlocks(o, [&](const TrialBlock& b) {
        std::optional<Result> r = run(b);
        if (!r) {
            return false;
        }
        const std::lock_guard lock(mutex);
        pending.emplace(b.index, std::move(*r));
        for (auto it = pending.begin(); it != pending.end() && it->first == merged;
             it = pending.erase(it), ++merged) {
            merge(it->second);
        }
        return true;
    });
}

}  // namespace dpx
