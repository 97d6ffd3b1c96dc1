#include "core/base/trial_blocks.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace dpx {

std::uint64_t trialBlockCount(std::uint64_t trials, std::uint64_t blockSize) {
    return trials == 0 || blockSize == 0 ? 0 : (trials - 1) / blockSize + 1;
}

unsigned trialBlockWorkers(const TrialBlockOptions& o) {
    const unsigned hw = std::max(1U, std::thread::hardware_concurrency());
    const std::uint64_t wanted = std::min(o.threads == 0 ? hw : o.threads, kMaxTrialThreads);
    return static_cast<unsigned>(
        std::max<std::uint64_t>(1, std::min(wanted, trialBlockCount(o.trials, o.blockSize))));
}

TrialBlocksRun runTrialBlocks(const TrialBlockOptions& o,
                              const std::function<bool(const TrialBlock&)>& block) {
    TrialBlocksRun run;
    run.blocks = trialBlockCount(o.trials, o.blockSize);
    if (run.blocks == 0) {
        return run;
    }
    std::atomic<std::uint64_t> nextBlock{0};
    std::atomic<bool> gaveUp{false};
    std::mutex mutex;
    // Guarded by mutex: finished blocks not yet in the finished prefix (few: blocks are taken in
    // increasing order), the prefix's length, trials finished, last progress step reported.
    std::set<std::uint64_t> finishedAhead;
    std::uint64_t prefixBlocks = 0;
    std::uint64_t trialsDone = 0;
    std::uint64_t reportedStep = 0;
    auto worker = [&](unsigned index) {
        for (;;) {
            if (o.stop.stop_requested() || gaveUp.load(std::memory_order_relaxed)) {
                return;
            }
            const std::uint64_t blk = nextBlock.fetch_add(1, std::memory_order_relaxed);
            if (blk >= run.blocks) {
                return;
            }
            const std::uint64_t begin = blk * o.blockSize;
            const TrialBlock b{blk, begin, begin + std::min(o.blockSize, o.trials - begin), index};
            if (!block(b)) {
                gaveUp = true;
                return;
            }
            const std::lock_guard lock(mutex);
            ++run.finishedBlocks;
            finishedAhead.insert(blk);
            for (auto it = finishedAhead.begin(); it != finishedAhead.end() && *it == prefixBlocks;
                 it = finishedAhead.erase(it)) {
                ++prefixBlocks;
            }
            trialsDone += b.size();
            if (o.progress) {
                // ⌊N·done/trials⌋ in long double: N·done can exceed 2^64.
                const std::uint64_t step =
                    o.progressSteps == 0
                        ? trialsDone
                        : static_cast<std::uint64_t>(static_cast<long double>(o.progressSteps) *
                                                     static_cast<long double>(trialsDone) /
                                                     static_cast<long double>(o.trials));
                if (step > reportedStep || trialsDone == o.trials) {
                    reportedStep = step;
                    o.progress(static_cast<double>(trialsDone) / static_cast<double>(o.trials));
                }
            }
        }
    };
    {
        const unsigned n = trialBlockWorkers(o);
        std::vector<std::jthread> pool;
        for (unsigned i = 1; i < n; ++i) {
            pool.emplace_back(worker, i);
        }
        worker(0);
    }  // joins the pool: every write to `run` happens before the reads below
    run.prefixTrials = prefixBlocks == run.blocks ? o.trials : prefixBlocks * o.blockSize;
    return run;
}

std::uint64_t runTrialBlocks(std::uint64_t trials, std::uint64_t blockSize, unsigned threads,
                             const std::stop_token& stop, const ProgressCallback& progress,
                             const std::function<void(std::uint64_t)>& trial) {
    TrialBlockOptions o;
    o.trials = trials;
    o.blockSize = blockSize;
    o.threads = threads;
    o.stop = stop;
    o.progress = progress;
    return runTrialBlocks(o,
                          [&](const TrialBlock& b) {
                              for (std::uint64_t t = b.begin; t < b.end; ++t) {
                                  trial(t);
                              }
                              return true;
                          })
        .prefixTrials;
}

}  // namespace dpx
