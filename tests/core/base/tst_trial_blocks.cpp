// The parallel-trials engine (core/base/trial_blocks.h): results independent of the thread count,
// cancellation within a bounded number of blocks (counted, not timed), monotone progress that ends
// at 1, and the block partition's edge cases.
#include <QTest>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/base/trial_blocks.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

constexpr unsigned kThreadCounts[] = {1, 2, 3, 8};

TrialBlockOptions options(std::uint64_t trials, std::uint64_t blockSize, unsigned threads) {
    TrialBlockOptions o;
    o.trials = trials;
    o.blockSize = blockSize;
    o.threads = threads;
    return o;
}

// What one seeded run produces, through all three forms of the engine.
struct Outcome {
    std::vector<double> perTrial;   // per-trial form: one slot per trial
    double orderedSum = 0;          // ordered-merge form: a floating-point sum (order-sensitive)
    std::uint64_t workerTotal = 0;  // per-worker state summed at the end
    std::uint64_t prefix = 0;
};

Outcome seededRun(unsigned threads) {
    constexpr std::uint64_t kTrials = 1000;
    constexpr std::uint64_t kBlock = 7;  // 143 blocks, the last one of 6 trials
    Outcome out;
    out.perTrial.assign(kTrials, 0.0);
    out.prefix = runTrialBlocks(kTrials, kBlock, threads, {}, nullptr, [&](std::uint64_t t) {
        SimulationRng rng(42, t);
        out.perTrial[static_cast<std::size_t>(t)] = rng.normal();
    });
    const TrialBlockOptions o = options(kTrials, kBlock, threads);
    runTrialBlocksInOrder(
        o,
        [](const TrialBlock& b) {
            SimulationRng rng(7, b.index);
            double s = 0;
            for (std::uint64_t t = b.begin; t < b.end; ++t) {
                s += rng.uniform() * 1e-3 + 1e6 * static_cast<double>(t % 3);
            }
            return std::optional<double>(s);
        },
        [&](double s) { out.orderedSum += s; });
    std::vector<std::uint64_t> perWorker(trialBlockWorkers(o), 0);
    runTrialBlocks(o, [&](const TrialBlock& b) {
        SimulationRng rng(9, b.index);
        for (std::uint64_t t = b.begin; t < b.end; ++t) {
            perWorker[b.worker] += rng.next() >> 40;
        }
        return true;
    });
    for (std::uint64_t w : perWorker) {
        out.workerTotal += w;
    }
    return out;
}

}  // namespace

class TestTrialBlocks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sameBitsForAnyThreadCount();
    void stopEndsWithinOneBlockPerWorker();
    void stopBeforeStartRunsNothing();
    void givingUpStopsTheOtherWorkers();
    void cancelledRunKeepsAPrefixOfWholeBlocks();
    void progressIsMonotoneAndEndsAtOne();
    void progressStepsLimitTheReports();
    void zeroTrials();
    void fewerTrialsThanOneBlock();
    void everyTrialOnceAndWorkersBounded();
};

void TestTrialBlocks::sameBitsForAnyThreadCount() {
    const Outcome ref = seededRun(1);
    QCOMPARE(ref.prefix, std::uint64_t{1000});
    for (const unsigned threads : kThreadCounts) {
        const Outcome o = seededRun(threads);
        QCOMPARE(o.prefix, ref.prefix);
        for (std::size_t t = 0; t < ref.perTrial.size(); ++t) {
            QCOMPARE(std::bit_cast<std::uint64_t>(o.perTrial[t]),
                     std::bit_cast<std::uint64_t>(ref.perTrial[t]));
        }
        QCOMPARE(std::bit_cast<std::uint64_t>(o.orderedSum),
                 std::bit_cast<std::uint64_t>(ref.orderedSum));
        QCOMPARE(o.workerTotal, ref.workerTotal);
    }
    // The streams differ per trial: the run is not trivially constant.
    QVERIFY(ref.perTrial[0] != ref.perTrial[1]);
}

// A stop requested from inside block 5: each other worker may still start one block it had
// already committed to (it checked the token before the request), none after that; the
// requesting worker starts none. Counted in blocks, so the bound holds on a loaded machine.
void TestTrialBlocks::stopEndsWithinOneBlockPerWorker() {
    for (const unsigned threads : kThreadCounts) {
        std::stop_source source;
        TrialBlockOptions o = options(1'000'000, 10, threads);
        o.stop = source.get_token();
        std::atomic<std::uint64_t> started{0};
        std::atomic<std::uint64_t> startedBeforeStop{0};
        const auto run = runTrialBlocks(o, [&](const TrialBlock& b) {
            started.fetch_add(1);
            if (b.index == 5) {
                startedBeforeStop = started.load();
                source.request_stop();
            }
            return true;
        });
        QVERIFY(!run.complete());
        QVERIFY(startedBeforeStop.load() >= 1);
        const std::uint64_t after = started.load() - startedBeforeStop.load();
        QVERIFY2(after <= threads - 1, QByteArray::number(static_cast<qulonglong>(after)));
        QCOMPARE(run.finishedBlocks, started.load());
        QCOMPARE(run.blocks, std::uint64_t{100'000});
    }
}

void TestTrialBlocks::stopBeforeStartRunsNothing() {
    std::stop_source source;
    source.request_stop();
    TrialBlockOptions o = options(100, 10, 3);
    o.stop = source.get_token();
    int calls = 0;
    o.progress = [&](double) { ++calls; };
    std::atomic<int> blocks{0};
    const auto run = runTrialBlocks(o, [&](const TrialBlock&) {
        ++blocks;
        return true;
    });
    QCOMPARE(blocks.load(), 0);
    QCOMPARE(calls, 0);
    QCOMPARE(run.finishedBlocks, std::uint64_t{0});
    QCOMPARE(run.prefixTrials, std::uint64_t{0});
    QVERIFY(!run.complete());
}

// A block that gives up (returns false: a failure or a stop seen mid-block) ends the run like a
// stop request, and does not count as finished.
void TestTrialBlocks::givingUpStopsTheOtherWorkers() {
    for (const unsigned threads : kThreadCounts) {
        std::atomic<std::uint64_t> started{0};
        std::atomic<std::uint64_t> startedBeforeFailure{0};
        const auto run = runTrialBlocks(options(100'000, 1, threads), [&](const TrialBlock& b) {
            started.fetch_add(1);
            if (b.index == 3) {
                startedBeforeFailure = started.load();
                return false;
            }
            return true;
        });
        QVERIFY(!run.complete());
        QVERIFY(run.prefixTrials <= 3);
        QCOMPARE(run.finishedBlocks + 1, started.load());
        QVERIFY(started.load() - startedBeforeFailure.load() <= threads - 1);
    }
}

// The kept prefix is whole blocks, all finished, and in the ordered form exactly the merged ones.
void TestTrialBlocks::cancelledRunKeepsAPrefixOfWholeBlocks() {
    for (const unsigned threads : kThreadCounts) {
        std::stop_source source;
        TrialBlockOptions o = options(1'000'000, 64, threads);
        o.stop = source.get_token();
        std::uint64_t merged = 0;
        std::uint64_t mergedTrials = 0;
        std::uint64_t expectedIndex = 0;
        bool inOrder = true;
        const auto run = runTrialBlocksInOrder(
            o,
            [&](const TrialBlock& b) {
                if (b.index == 40) {
                    source.request_stop();
                }
                return std::optional<TrialBlock>(b);
            },
            [&](const TrialBlock& b) {
                inOrder = inOrder && b.index == expectedIndex++;
                ++merged;
                mergedTrials += b.size();
            });
        QVERIFY(inOrder);
        QVERIFY(!run.complete());
        QCOMPARE(run.prefixTrials % 64, std::uint64_t{0});
        QCOMPARE(run.prefixTrials, mergedTrials);
        QCOMPARE(run.prefixTrials / 64, merged);
        QVERIFY(merged <= run.finishedBlocks);
        if (threads == 1) {
            QCOMPARE(merged, std::uint64_t{41});
        }
    }
}

void TestTrialBlocks::progressIsMonotoneAndEndsAtOne() {
    for (const unsigned threads : kThreadCounts) {
        TrialBlockOptions o = options(1003, 10, threads);  // 101 blocks, the last one of 3
        std::vector<double> seen;                          // the engine calls under its lock
        o.progress = [&](double f) { seen.push_back(f); };
        const auto run = runTrialBlocks(o, [](const TrialBlock&) { return true; });
        QVERIFY(run.complete());
        QCOMPARE(seen.size(), std::size_t{101});  // one report per finished block
        for (std::size_t i = 0; i < seen.size(); ++i) {
            QVERIFY(seen[i] > 0 && seen[i] <= 1);
            QVERIFY(i == 0 || seen[i] > seen[i - 1]);
            const double trials = seen[i] * 1003;  // fractions of whole trials
            DPX_VERIFY_NEAR(trials, std::round(trials), 1e-9);
        }
        QCOMPARE(seen.back(), 1.0);
    }
}

void TestTrialBlocks::progressStepsLimitTheReports() {
    for (const unsigned threads : kThreadCounts) {
        TrialBlockOptions o = options(100'000, 3, threads);
        o.progressSteps = 20;
        std::vector<double> seen;
        o.progress = [&](double f) { seen.push_back(f); };
        QVERIFY(runTrialBlocks(o, [](const TrialBlock&) { return true; }).complete());
        QVERIFY(seen.size() >= 2 && seen.size() <= 20);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
        QCOMPARE(seen.back(), 1.0);
    }
}

void TestTrialBlocks::zeroTrials() {
    for (const std::uint64_t blockSize : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{8}}) {
        TrialBlockOptions o = options(0, blockSize, 4);
        int calls = 0;
        o.progress = [&](double) { ++calls; };
        int blocks = 0;
        const auto run = runTrialBlocks(o, [&](const TrialBlock&) {
            ++blocks;
            return true;
        });
        QCOMPARE(blocks, 0);
        QCOMPARE(calls, 0);
        QCOMPARE(run.blocks, std::uint64_t{0});
        QCOMPARE(run.prefixTrials, std::uint64_t{0});
        QVERIFY(run.complete());
        QCOMPARE(trialBlockCount(0, blockSize), std::uint64_t{0});
        QCOMPARE(trialBlockWorkers(o), 1U);
    }
    QCOMPARE(trialBlockCount(5, 0), std::uint64_t{0});  // no block size, no blocks
}

// Fewer trials than one block, with more threads than blocks: one short block, one worker.
void TestTrialBlocks::fewerTrialsThanOneBlock() {
    TrialBlockOptions o = options(5, 64, 8);
    QCOMPARE(trialBlockCount(5, 64), std::uint64_t{1});
    QCOMPARE(trialBlockWorkers(o), 1U);
    std::vector<double> seen;
    o.progress = [&](double f) { seen.push_back(f); };
    std::vector<TrialBlock> blocks;
    const auto run = runTrialBlocks(o, [&](const TrialBlock& b) {
        blocks.push_back(b);
        return true;
    });
    QCOMPARE(blocks.size(), std::size_t{1});
    QCOMPARE(blocks[0].index, std::uint64_t{0});
    QCOMPARE(blocks[0].begin, std::uint64_t{0});
    QCOMPARE(blocks[0].end, std::uint64_t{5});
    QCOMPARE(blocks[0].worker, 0U);
    QCOMPARE(run.prefixTrials, std::uint64_t{5});
    QVERIFY(run.complete());
    QCOMPARE(seen, std::vector<double>{1.0});
}

void TestTrialBlocks::everyTrialOnceAndWorkersBounded() {
    for (const unsigned threads : kThreadCounts) {
        // 3 blocks (10, 10, 3 trials): never more workers than blocks.
        TrialBlockOptions o = options(23, 10, threads);
        const unsigned workers = trialBlockWorkers(o);
        QCOMPARE(workers, std::min(threads, 3U));
        std::vector<std::atomic<int>> hits(23);
        std::atomic<bool> workerInRange{true};
        const auto run = runTrialBlocks(o, [&](const TrialBlock& b) {
            if (b.worker >= workers || b.begin != b.index * 10 ||
                b.end != std::min<std::uint64_t>(23, b.begin + 10)) {
                workerInRange = false;
            }
            for (std::uint64_t t = b.begin; t < b.end; ++t) {
                ++hits[static_cast<std::size_t>(t)];
            }
            return true;
        });
        QVERIFY(workerInRange.load());
        QCOMPARE(run.blocks, std::uint64_t{3});
        QCOMPARE(run.finishedBlocks, std::uint64_t{3});
        QCOMPARE(run.prefixTrials, std::uint64_t{23});
        for (const auto& h : hits) {
            QCOMPARE(h.load(), 1);
        }
    }
    QCOMPARE(trialBlockWorkers(options(1'000'000, 1, 100'000)), kMaxTrialThreads);
}

QTEST_GUILESS_MAIN(TestTrialBlocks)
#include "tst_trial_blocks.moc"
