// Monte Carlo expected errors: blocks of trials on the trials engine (core/base/trial_blocks.h),
// merged in block order.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/accuracy/expected_error.h"
#include "core/base/moments.h"
#include "core/base/simulation_rng.h"
#include "core/base/trial_blocks.h"
#include "core/estimators/resize_estimator.h"

namespace dpx {

namespace {

// Writes the estimates of `rows` histograms of `bins` values (stored row after row in `src`) to
// `dst`; clamp and 2-bin resize read and write in one pass, without a separate copy. False if
// `stop` was requested part-way (checked per row for the row-by-row estimators: NoiseFirst at
// 4096 bins takes milliseconds per row, so a block would otherwise hold its thread for a minute).
bool estimateRows(const EstimatorSpec& spec, const double* src, double* dst, std::size_t rows,
                  std::size_t bins, EstimatorWorkspace& ws, const std::stop_token& stop) {
    if (spec.kind == EstimatorKind::Clamp) {
        for (std::size_t k = 0; k < rows * bins; ++k) {
            dst[k] = std::max(src[k], 0.0);
        }
        return true;
    }
    std::copy_n(src, rows * bins, dst);
    if (spec.kind == EstimatorKind::Resize) {
        resizeRows(dst, rows, bins, ws.scratch);
        return true;
    }
    for (std::size_t t = 0; t < rows; ++t) {
        if (stop.stop_requested()) {
            return false;
        }
        estimateInPlace(spec, std::span(dst + t * bins, bins), ws);
    }
    return true;
}

// One metric for each of `rows` estimates (same layout as estimateRows).
void metricRows(const MetricSpec& spec, const TruthModel& truth, double total, const double* est,
                std::size_t rows, double* out) {
    const std::size_t bins = truth.counts.size();
    const double* h = truth.counts.data();
    const double scale = spec.scale == Scale::Counts ? 1.0 : 1.0 / total;
    switch (spec.metric) {
        case Metric::SSE:
            for (std::size_t t = 0; t < rows; ++t, est += bins) {
                double s = 0;
                for (std::size_t i = 0; i < bins; ++i) {
                    s += (est[i] - h[i]) * (est[i] - h[i]);
                }
                out[t] = s * scale * scale;
            }
            return;
        case Metric::L1:
            for (std::size_t t = 0; t < rows; ++t, est += bins) {
                double s = 0;
                for (std::size_t i = 0; i < bins; ++i) {
                    s += std::abs(est[i] - h[i]);
                }
                out[t] = s * scale;
            }
            return;
        case Metric::LInf:
            for (std::size_t t = 0; t < rows; ++t, est += bins) {
                double s = 0;
                for (std::size_t i = 0; i < bins; ++i) {
                    s = std::max(s, std::abs(est[i] - h[i]));
                }
                out[t] = s * scale;
            }
            return;
        case Metric::W1:
            for (std::size_t t = 0; t < rows; ++t, est += bins) {
                out[t] = evaluateMetric(spec, truth.counts, std::span(est, bins), truth.positions,
                                        total);
            }
            return;
    }
}

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
    const std::uint64_t keep = std::min(options.keepSamples, options.trials);
    struct BlockResult {
        std::vector<Moments> moments;              // per cell
        std::vector<std::vector<double>> samples;  // per cell, only blocks below keepSamples
    };
    // Per worker: all noise of a block first, then each estimator and metric over the whole
    // block, so that the dispatch on kinds happens per block and the loops are tight.
    struct Workspace {
        std::vector<double> noisy, work, values;
        EstimatorWorkspace ws;
    };
    TrialBlockOptions blocks;
    blocks.trials = options.trials;
    blocks.blockSize = kMonteCarloBlock;
    blocks.threads = options.threads;
    blocks.stop = options.stop;
    blocks.progress = options.progress;
    std::vector<Workspace> workspaces(trialBlockWorkers(blocks));
    std::vector<Moments> totals(cells);            // merge of the finished prefix of blocks
    std::vector<std::vector<double>> kept(cells);  // samples of that prefix
    // Blocks are merged strictly in block order: deterministic for any thread count.
    const TrialBlocksRun run = runTrialBlocksInOrder(
        blocks,
        [&](const TrialBlock& b) -> std::optional<BlockResult> {
            Workspace& w = workspaces[b.worker];
            if (w.noisy.empty()) {
                w.noisy.resize(kMonteCarloBlock * nBins);
                w.work.resize(kMonteCarloBlock * nBins);
                w.values.resize(kMonteCarloBlock);
            }
            const auto rows = static_cast<std::size_t>(b.size());
            SimulationRng rng(options.seed, b.index);
            sampleNoise(noise, rng, std::span(w.noisy.data(), rows * nBins));
            for (std::size_t t = 0; t < rows; ++t) {
                for (std::size_t i = 0; i < nBins; ++i) {
                    w.noisy[t * nBins + i] += truth.counts[i];
                }
            }
            BlockResult block;
            block.moments.resize(cells);
            const auto keepRows =
                static_cast<std::size_t>(b.begin < keep ? std::min(b.end, keep) - b.begin : 0);
            if (keepRows > 0) {
                block.samples.resize(cells);
            }
            for (std::size_t e = 0; e < nEst; ++e) {
                const double* est = w.noisy.data();
                if (estimators[e].kind != EstimatorKind::Identity) {
                    if (!estimateRows(estimators[e], w.noisy.data(), w.work.data(), rows, nBins,
                                      w.ws, options.stop)) {
                        return std::nullopt;  // cancelled: the unfinished block is never merged
                    }
                    est = w.work.data();
                }
                if (options.stop.stop_requested()) {
                    return std::nullopt;
                }
                for (std::size_t m = 0; m < nMet; ++m) {
                    metricRows(metrics[m], truth, total, est, rows, w.values.data());
                    block.moments[e * nMet + m] = Moments::of(w.values.data(), rows);
                    if (keepRows > 0) {
                        block.samples[e * nMet + m].assign(w.values.begin(),
                                                           w.values.begin() + keepRows);
                    }
                }
            }
            return block;
        },
        [&](const BlockResult& block) {
            for (std::size_t c = 0; c < cells; ++c) {
                totals[c].merge(block.moments[c]);
                if (!block.samples.empty()) {
                    kept[c].insert(kept[c].end(), block.samples[c].begin(), block.samples[c].end());
                }
            }
        });

    // Only the merged prefix of blocks counts: a cancelled run then equals a shorter full run.
    MonteCarloResult result;
    result.cancelled = !run.complete();
    result.values.assign(nEst, std::vector<ErrorEstimate>(nMet));
    if (keep > 0) {
        result.samples.assign(nEst, std::vector<std::vector<double>>(nMet));
        for (std::size_t c = 0; c < cells; ++c) {
            result.samples[c / nMet][c % nMet] = std::move(kept[c]);
        }
    }
    for (std::size_t c = 0; c < cells; ++c) {
        const Moments& m = totals[c];
        ErrorEstimate& est = result.values[c / nMet][c % nMet];
        est.method = "monte-carlo";
        est.trials = static_cast<std::uint64_t>(m.count);
        est.value = m.count > 0 ? m.mean : std::nan("");
        est.stdError = m.standardError();
        est.ciLow = est.value - 1.96 * est.stdError;
        est.ciHigh = est.value + 1.96 * est.stdError;
        result.trials = est.trials;
        if (m.count > 0 && (!std::isfinite(est.value) || !std::isfinite(est.stdError))) {
            return Error{"the Monte Carlo errors overflow double precision for " +
                         noise.describe() + "; ε (or the counts) is outside the supported range"};
        }
    }
    return result;
}

}  // namespace dpx
