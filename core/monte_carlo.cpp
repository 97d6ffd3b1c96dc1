// Monte Carlo expected errors: deterministic block partition, worker threads, cancellation.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

#include "core/expected_error.h"
#include "core/simulation_rng.h"

namespace dpx {

namespace {

// Mean and centred second moment of one block (Welford), combined later in block order with
// Chan et al.'s pairwise formula so the result does not depend on which thread ran which block.
struct Moments {
    double count = 0;
    double mean = 0;
    double m2 = 0;
    void add(double x) {
        count += 1;
        const double d = x - mean;
        mean += d / count;
        m2 += d * (x - mean);
    }
    void merge(const Moments& o) {
        if (o.count == 0) {
            return;
        }
        const double n = count + o.count;
        const double d = o.mean - mean;
        mean += d * o.count / n;
        m2 += o.m2 + d * d * count * o.count / n;
        count = n;
    }
};

Status validateNoise(const NoiseDistribution& noise) {
    const double p = noise.parameter();
    if (!std::isfinite(p) || p <= 0 || (noise.isDiscrete() && p >= 1)) {
        return Error{"invalid noise parameter in " + noise.describe()};
    }
    return okStatus();
}

}  // namespace

Expected<MonteCarloResult> monteCarloExpectedError(const TruthModel& truth,
                                                   const NoiseDistribution& noise,
                                                   std::span<const EstimatorSpec> estimators,
                                                   std::span<const MetricSpec> metrics,
                                                   const MonteCarloOptions& options) {
    if (auto s = truth.validate(); !s) {
        return s.error();
    }
    if (auto s = validateNoise(noise); !s) {
        return s.error();
    }
    if (estimators.empty() || metrics.empty()) {
        return Error{"Monte Carlo needs at least one estimator and one metric"};
    }
    for (const auto& e : estimators) {
        if (auto s = e.validate(); !s) {
            return s.error();
        }
    }
    for (const auto& m : metrics) {
        if (auto s = validateMetricInputs(m, truth.counts, truth.positions); !s) {
            return s.error();
        }
    }
    if (options.trials == 0) {
        return Error{"the number of Monte Carlo trials must be at least 1"};
    }
    if (options.trials > (std::uint64_t{1} << 40)) {
        return Error{"too many Monte Carlo trials (more than 2^40)"};
    }

    const std::size_t nBins = truth.counts.size();
    const std::size_t nEst = estimators.size();
    const std::size_t nMet = metrics.size();
    const std::size_t cells = nEst * nMet;
    const double total = truth.total();
    const std::uint64_t blocks = (options.trials + kMonteCarloBlock - 1) / kMonteCarloBlock;
    std::vector<Moments> blockStats(static_cast<std::size_t>(blocks) * cells);
    std::vector<std::uint8_t> blockDone(static_cast<std::size_t>(blocks), 0);

    std::atomic<std::uint64_t> nextBlock{0};
    std::atomic<std::uint64_t> trialsDone{0};
    std::mutex progressMutex;
    std::uint64_t reported = 0;  // guarded by progressMutex: keeps reported fractions increasing
    const unsigned hw = std::max(1U, std::thread::hardware_concurrency());
    const unsigned threads = static_cast<unsigned>(
        std::min<std::uint64_t>(options.threads == 0 ? hw : options.threads, blocks));

    auto worker = [&]() {
        std::vector<double> noisy(nBins), work(nBins);
        EstimatorWorkspace ws;
        for (;;) {
            if (options.stop.stop_requested()) {
                return;
            }
            const std::uint64_t b = nextBlock.fetch_add(1, std::memory_order_relaxed);
            if (b >= blocks) {
                return;
            }
            const std::uint64_t begin = b * kMonteCarloBlock;
            const std::uint64_t end = std::min(options.trials, begin + kMonteCarloBlock);
            SimulationRng rng(options.seed, b);
            Moments* stats = &blockStats[static_cast<std::size_t>(b) * cells];
            for (std::uint64_t t = begin; t < end; ++t) {
                for (std::size_t i = 0; i < nBins; ++i) {
                    noisy[i] = truth.counts[i] + sampleNoise(noise, rng);
                }
                for (std::size_t e = 0; e < nEst; ++e) {
                    std::copy(noisy.begin(), noisy.end(), work.begin());
                    estimateInPlace(estimators[e], work, ws);
                    for (std::size_t m = 0; m < nMet; ++m) {
                        stats[e * nMet + m].add(
                            evaluateMetric(metrics[m], truth.counts, work, truth.positions, total));
                    }
                }
            }
            blockDone[static_cast<std::size_t>(b)] = 1;
            const std::uint64_t done =
                trialsDone.fetch_add(end - begin, std::memory_order_relaxed) + (end - begin);
            if (options.progress) {
                const std::lock_guard lock(progressMutex);
                if (done > reported) {
                    reported = done;
                    options.progress(static_cast<double>(done) /
                                     static_cast<double>(options.trials));
                }
            }
        }
    };

    {
        std::vector<std::jthread> pool;
        for (unsigned i = 1; i < threads; ++i) {
            pool.emplace_back(worker);
        }
        worker();
    }  // joins

    // Use the completed prefix of blocks only: a cancelled run then equals a shorter full run.
    std::uint64_t prefix = 0;
    while (prefix < blocks && blockDone[static_cast<std::size_t>(prefix)]) {
        ++prefix;
    }
    MonteCarloResult result;
    result.cancelled = prefix < blocks;
    result.values.assign(nEst, std::vector<ErrorEstimate>(nMet));
    for (std::size_t c = 0; c < cells; ++c) {
        Moments m;
        for (std::uint64_t b = 0; b < prefix; ++b) {
            m.merge(blockStats[static_cast<std::size_t>(b) * cells + c]);
        }
        ErrorEstimate& est = result.values[c / nMet][c % nMet];
        est.method = "monte-carlo";
        est.trials = static_cast<std::uint64_t>(m.count);
        est.value = m.count > 0 ? m.mean : std::nan("");
        est.stdError = m.count > 1 ? std::sqrt(m.m2 / (m.count - 1) / m.count) : std::nan("");
        est.ciLow = est.value - 1.96 * est.stdError;
        est.ciHigh = est.value + 1.96 * est.stdError;
        result.trials = est.trials;
        if (m.count > 0 && (!std::isfinite(est.value) || !std::isfinite(est.stdError))) {
            return Error{"the Monte Carlo errors overflow double precision for " +
                         noise.describe() + "; ε (or the counts) is outside the supported range"};
        }
    }
    if (!result.cancelled && options.progress && reported < options.trials) {
        options.progress(1.0);
    }
    return result;
}

}  // namespace dpx
