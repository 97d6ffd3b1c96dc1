#include "core/mechanisms/sparse_histogram.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/base/moments.h"
#include "core/base/trial_blocks.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr std::uint64_t kMaxSparseTrials = 10'000'000;
constexpr std::uint64_t kTrialBlock = 16;  // trials handed to a worker at a time

// Laplace(b) draw: ziggurat exponential with an independent random sign.
double laplace(SimulationRng& rng, double b) {
    bool negative = false;
    const double e = rng.exponential(&negative);
    return negative ? -b * e : b * e;
}

std::size_t occupiedCells(std::span<const std::int64_t> counts) {
    return static_cast<std::size_t>(
        std::count_if(counts.begin(), counts.end(), [](std::int64_t c) { return c > 0; }));
}

}  // namespace

const char* sparseMethodName(SparseMethod m) {
    return m == SparseMethod::Thresholded ? "thresholded" : "clamped";
}

double defaultSparseThreshold(double epsilon, std::size_t cells) {
    return 2 / epsilon * std::log(static_cast<double>(cells));
}

Status SparseHistogramParams::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (threshold && (!std::isfinite(*threshold) || *threshold < 0)) {
        return Error{"threshold τ must be a finite number ≥ 0 (got " + formatNumber(*threshold) +
                     "); a negative τ would release negative counts"};
    }
    return okStatus();
}

double SparseHistogramParams::thresholdFor(std::size_t cells) const {
    return threshold ? *threshold : defaultSparseThreshold(epsilon, cells);
}

Status validateSparseCounts(std::span<const std::int64_t> counts) {
    if (counts.empty()) {
        return Error{"counts: the histogram needs at least one cell"};
    }
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] < 0) {
            return Error{"counts: cell " + std::to_string(i + 1) + " is negative (" +
                         std::to_string(counts[i]) + ")"};
        }
    }
    return okStatus();
}

double sparseCellExpectedL1(double h, double scale, double threshold) {
    const double b = scale;
    const double t = threshold - h;
    // G(t) = E[|L|·1{L > t}], F(t) = P(L ≤ t).
    double g = 0;
    double f = 0;
    if (t >= 0) {
        const double tail = 0.5 * std::exp(-t / b);
        g = tail * (t + b);
        f = 1 - tail;
    } else {
        const double tail = 0.5 * std::exp(t / b);
        g = b - tail * (b - t);
        f = tail;
    }
    return g + h * f;
}

double sparseRiskBoundAt(std::size_t cells, std::size_t occupied, double scale, double threshold) {
    const auto p = static_cast<double>(cells);
    const auto q = static_cast<double>(occupied);
    return (p - q) * 0.5 * std::exp(-threshold / scale) * (threshold + scale) +
           q * (threshold + scale);
}

double sparseRiskBound(std::size_t cells, std::size_t occupied, double epsilon) {
    return (2 * static_cast<double>(occupied) + 1) / epsilon *
           (std::log(static_cast<double>(cells)) + 1);
}

Expected<SparseExpectedError> sparseExpectedError(std::span<const std::int64_t> counts,
                                                  const SparseHistogramParams& params) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    if (auto s = validateSparseCounts(counts); !s) {
        return s.error();
    }
    SparseExpectedError r;
    r.cells = counts.size();
    r.occupied = occupiedCells(counts);
    r.scale = params.noiseScale();
    r.threshold = params.thresholdFor(r.cells);
    for (std::int64_t c : counts) {
        const auto h = static_cast<double>(c);
        r.thresholdedL1 += sparseCellExpectedL1(h, r.scale, r.threshold);
        r.clampedL1 += sparseCellExpectedL1(h, r.scale, 0);
    }
    r.plainLaplaceL1 = static_cast<double>(r.cells) * r.scale;
    r.boundAtThreshold = sparseRiskBoundAt(r.cells, r.occupied, r.scale, r.threshold);
    if (!params.threshold) {
        r.seedBound = sparseRiskBound(r.cells, r.occupied, params.epsilon);
    }
    if (r.cells == 1 && !params.threshold) {
        r.warnings.push_back(
            "one cell: the default threshold (2/ε)·ln p is 0, the same as clamping");
    }
    if (2 * r.occupied > r.cells) {
        r.warnings.push_back(
            "more than half the cells are occupied: thresholding is meant for sparse "
            "histograms and can be worse than clamping here (Hall 2012, §2.4.1)");
    }
    // Larger beyond rounding: where every cell is far above τ the two are equal in exact
    // arithmetic (e.g. ε = 10 on the telemetry histogram), and "6.4 > 6.4" helps nobody.
    if (r.thresholdedL1 > r.clampedL1 * (1 + 1e-9)) {
        r.warnings.push_back("the thresholded release has a larger expected L1 error (" +
                             formatNumber(r.thresholdedL1) + ") than clamped Laplace (" +
                             formatNumber(r.clampedL1) + ") on this histogram");
    }
    return r;
}

Expected<std::vector<double>> simulateSparseHistogram(std::span<const std::int64_t> counts,
                                                      const SparseHistogramParams& params,
                                                      SparseMethod method, SimulationRng& rng) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    if (auto s = validateSparseCounts(counts); !s) {
        return s.error();
    }
    const double b = params.noiseScale();
    const double tau = method == SparseMethod::Clamped ? 0.0 : params.thresholdFor(counts.size());
    std::vector<double> out(counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const double y = static_cast<double>(counts[i]) + laplace(rng, b);
        out[i] = y > tau ? y : 0.0;
    }
    return out;
}

Expected<SparseMonteCarloResult> sparseMonteCarlo(std::span<const std::int64_t> counts,
                                                  const SparseHistogramParams& params,
                                                  const MonteCarloOptions& options) {
    auto expected = sparseExpectedError(counts, params);
    if (!expected) {
        return expected.error();
    }
    if (options.trials < 2 || options.trials > kMaxSparseTrials) {
        return Error{"trials must be in [2, " + groupThousands(kMaxSparseTrials) + "] (got " +
                     std::to_string(options.trials) + ")"};
    }
    const std::size_t p = counts.size();
    const double b = params.noiseScale();
    const double tau = expected->threshold;
    const std::uint64_t trials = options.trials;

    SparseMonteCarloResult r;
    r.thresholdedL1.assign(trials, 0.0);
    r.clampedL1.assign(trials, 0.0);
    std::vector<double> releasedT(trials, 0.0), releasedC(trials, 0.0);
    const auto kept = static_cast<std::size_t>(runTrialBlocks(
        trials, kTrialBlock, options.threads, options.stop, options.progress, [&](std::uint64_t t) {
            SimulationRng rng(options.seed, t);
            double errT = 0, errC = 0, nT = 0, nC = 0;
            for (std::size_t i = 0; i < p; ++i) {
                const auto h = static_cast<double>(counts[i]);
                const double y = h + laplace(rng, b);
                // Thresholded: out = y if y > τ else 0; clamped: y if y > 0 else 0.
                if (y > tau) {
                    errT += std::abs(y - h);
                    nT += 1;
                } else {
                    errT += h;
                }
                if (y > 0) {
                    errC += std::abs(y - h);
                    nC += 1;
                } else {
                    errC += h;
                }
            }
            const auto ti = static_cast<std::size_t>(t);
            r.thresholdedL1[ti] = errT;
            r.clampedL1[ti] = errC;
            releasedT[ti] = nT;
            releasedC[ti] = nC;
        }));
    r.cancelled = kept < trials;
    r.trials = kept;
    for (auto* v : {&r.thresholdedL1, &r.clampedL1, &releasedT, &releasedC}) {
        v->resize(kept);
    }
    std::tie(r.meanThresholded, r.seThresholded) = meanAndStandardError(r.thresholdedL1);
    std::tie(r.meanClamped, r.seClamped) = meanAndStandardError(r.clampedL1);
    r.meanReleasedThresholded = meanAndStandardError(releasedT).first;
    r.meanReleasedClamped = meanAndStandardError(releasedC).first;
    r.expected = std::move(expected).value();
    r.warnings = r.expected.warnings;
    if (r.cancelled) {
        r.warnings.push_back("cancelled after " + std::to_string(kept) + " of " +
                             std::to_string(trials) + " trials");
    }
    return r;
}

}  // namespace dpx
