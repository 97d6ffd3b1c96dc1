#include "core/base/trial_blocks.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

namespace dpx {

std::uint64_t runTrialBlocks(std::uint64_t trials, std::uint64_t blockSize, unsigned threads,
                             const std::stop_token& stop, const ProgressCallback& progress,
                             const std::function<void(std::uint64_t)>& trial) {
    if (trials == 0 || blockSize == 0) {
        return 0;
    }
    const std::uint64_t blocks = (trials + blockSize - 1) / blockSize;
    std::vector<char> blockDone(blocks, 0);
    std::atomic<std::uint64_t> nextBlock{0};
    std::mutex progressMutex;
    std::uint64_t blocksDone = 0;  // guarded by progressMutex
    auto worker = [&]() {
        for (;;) {
            if (stop.stop_requested()) {
                return;
            }
            const std::uint64_t blk = nextBlock.fetch_add(1, std::memory_order_relaxed);
            if (blk >= blocks) {
                return;
            }
            const std::uint64_t end = std::min(trials, (blk + 1) * blockSize);
            for (std::uint64_t t = blk * blockSize; t < end; ++t) {
                trial(t);
            }
            blockDone[static_cast<std::size_t>(blk)] = 1;
            if (progress) {
                // Under a lock, so the reported fractions increase.
                const std::lock_guard lock(progressMutex);
                progress(static_cast<double>(++blocksDone) / static_cast<double>(blocks));
            }
        }
    };
    {
        const unsigned hw = std::max(1U, std::thread::hardware_concurrency());
        const auto n =
            static_cast<unsigned>(std::min<std::uint64_t>(threads == 0 ? hw : threads, blocks));
        std::vector<std::jthread> pool;
        for (unsigned i = 1; i < n; ++i) {
            pool.emplace_back(worker);
        }
        worker();
    }  // joins the pool: every blockDone write happens before the reads below
    std::uint64_t prefix = 0;
    while (prefix < blocks && blockDone[static_cast<std::size_t>(prefix)]) {
        ++prefix;
    }
    return std::min(trials, prefix * blockSize);
}

std::pair<double, double> meanAndStandardError(const std::vector<double>& v) {
    if (v.empty()) {
        return {std::nan(""), std::nan("")};
    }
    const auto n = static_cast<double>(v.size());
    double mean = 0;
    for (double x : v) {
        mean += x;
    }
    mean /= n;
    double ss = 0;
    for (double x : v) {
        ss += (x - mean) * (x - mean);
    }
    return {mean, v.size() > 1 ? std::sqrt(ss / (n - 1) / n) : std::nan("")};
}

}  // namespace dpx
