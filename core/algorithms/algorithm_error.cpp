// The error of an algorithm over T trials (issue #20): see algorithm_error.h.
#include "core/algorithms/algorithm_error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <mutex>
#include <optional>
#include <utility>

#include "core/base/moments.h"
#include "core/base/simulation_rng.h"
#include "core/base/trial_blocks.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr std::uint64_t kMaxAlgorithmTrials = 1'000'000;

// What one trial leaves behind; the estimate is kept for trial 0 only.
struct TrialOutcome {
    double scaledL2 = 0, scaledL1 = 0, scaledLinf = 0, rmse = 0, seconds = 0, cpuSeconds = 0;
    double extra = 0;
    std::string summary;
    std::vector<double> estimate;
};

// CPU time of the calling thread (POSIX CLOCK_THREAD_CPUTIME_ID), in seconds.
double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

MeanWithError meanWithError(const std::vector<double>& v) {
    const auto [mean, se] = meanAndStandardError(v);
    return {mean, v.size() > 1 ? se : 0.0};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::optional<double> exactAlgorithmRmse(const Algorithm& algorithm, const DomainShape& shape,
                                         const Workload& w, double epsilon) {
    return exactAlgorithmRmse(algorithm, shape, w, MeasurementSpec::laplace(epsilon));
}

std::optional<double> exactAlgorithmRmse(const Algorithm& algorithm, const DomainShape& shape,
                                         const Workload& w, const MeasurementSpec& spec) {
    // Data-independent algorithms answered by least squares: the exact expected error of their
    // strategy (strategy.h) for the law they measure with; none when the algorithm has no fixed
    // strategy (data-dependent), no strategy for that law, or the workload is too large for the
    // exact computation.
    if (algorithm.info().dataDependent) {
        return std::nullopt;
    }
    if (spec.noise == MeasurementNoise::Gaussian && !algorithm.info().gaussian) {
        return std::nullopt;
    }
    auto s = algorithm.strategyFor(shape, w, spec.noise);
    if (!s || !*s) {
        return std::nullopt;
    }
    auto exact = expectedLeastSquaresError(**s, w, spec);
    if (!exact) {
        return std::nullopt;
    }
    return exact->rmse;
}

Expected<AlgorithmErrorResult> algorithmError(const AlgorithmErrorRequest& request,
                                              const ProgressCallback& progress,
                                              std::stop_token stop) {
    if (request.algorithm == nullptr) {
        return Error{"no algorithm given"};
    }
    if (request.workload == nullptr) {
        return Error{"no workload given"};
    }
    const AlgorithmInfo& info = request.algorithm->info();
    if (request.trials < 1 || request.trials > kMaxAlgorithmTrials) {
        return Error{"the number of trials must be between 1 and 10^6 (got " +
                     std::to_string(request.trials) + ")"};
    }
    if (!std::isfinite(request.scale) || request.scale < 0) {
        return Error{"the scale m of the scaled errors must be ≥ 0 (0: the data's total), got " +
                     formatNumber(request.scale)};
    }
    // The algorithm's own preconditions, once, before any trial: shape, data, ε, workload,
    // parameters (the message names what is wrong).
    AlgorithmContext base;
    base.shape = request.shape;
    base.x = request.x;
    base.workload = request.workload;
    base.epsilon = request.epsilon;
    base.measurement = request.measurement;
    base.delta = request.delta;
    base.parameters = request.parameters;
    SimulationRng checkRng(request.seed, 0);
    base.rng = &checkRng;
    base.stop = stop;
    if (auto c = checkAlgorithmContext(info, base); !c) {
        return c.error();
    }
    double m = request.scale;
    if (m == 0) {
        for (double v : request.x) {
            m += v;
        }
        if (!(m > 0)) {
            return Error{
                "the data's total is 0: the scaled errors (divided by m) are undefined; give the "
                "scale m"};
        }
    }

    // One trial per block: trial t draws from stream t of the seed, whichever worker runs it,
    // and the outcomes are merged in trial order, so the errors are the same bits for any
    // thread count (only the measured seconds vary).
    TrialBlockOptions blocks;
    blocks.trials = request.trials;
    blocks.blockSize = 1;
    blocks.threads = request.threads;
    blocks.stop = stop;
    blocks.progress = progress;
    std::vector<TrialOutcome> outcomes;
    outcomes.reserve(static_cast<std::size_t>(request.trials));
    std::mutex failureMutex;
    std::optional<std::pair<std::uint64_t, Error>> failure;  // the lowest failing trial
    const TrialBlocksRun run = runTrialBlocksInOrder(
        blocks,
        [&](const TrialBlock& b) -> std::optional<TrialOutcome> {
            SimulationRng rng(request.seed, b.begin);
            AlgorithmContext context = base;
            context.rng = &rng;
            const double cpuStart = threadCpuSeconds();
            const auto start = std::chrono::steady_clock::now();
            auto r = request.algorithm->run(context);
            const auto end = std::chrono::steady_clock::now();
            const double cpuEnd = threadCpuSeconds();
            Expected<WorkloadError> e =
                r ? workloadError(*request.workload, request.x, r->estimate, m)
                  : Expected<WorkloadError>(r.error());
            if (!e) {
                const std::lock_guard lock(failureMutex);
                if (!failure || b.begin < failure->first) {
                    failure.emplace(b.begin, e.error());
                }
                return std::nullopt;
            }
            TrialOutcome o;
            o.scaledL2 = e->scaledL2;
            o.scaledL1 = e->scaledL1;
            o.scaledLinf = e->scaledLinf;
            o.rmse = e->rmse;
            o.seconds = std::chrono::duration<double>(end - start).count();
            o.cpuSeconds = cpuEnd - cpuStart;
            if (request.extraMetric) {
                o.extra = request.extraMetric(r->estimate);
            }
            if (b.begin == 0) {
                o.summary = std::move(r->summary);
                o.estimate = std::move(r->estimate);
            }
            return o;
        },
        [&](TrialOutcome& o) { outcomes.push_back(std::move(o)); });

    if (!run.complete()) {
        if (stop.stop_requested() && !failure) {
            return Error{info.id + ": cancelled after " + std::to_string(run.prefixTrials) +
                         " of " + std::to_string(request.trials) + " trials"};
        }
        if (failure) {
            return Error{info.id + " (trial " + std::to_string(failure->first + 1) +
                         "): " + failure->second.message};
        }
        return Error{info.id + ": the trials did not finish"};
    }

    AlgorithmErrorResult result;
    result.trials = outcomes.size();
    std::vector<double> l2, l1, linf, rmse, seconds, cpuSeconds, extra;
    for (const TrialOutcome& o : outcomes) {
        l2.push_back(o.scaledL2);
        l1.push_back(o.scaledL1);
        linf.push_back(o.scaledLinf);
        rmse.push_back(o.rmse);
        seconds.push_back(o.seconds);
        cpuSeconds.push_back(o.cpuSeconds);
        extra.push_back(o.extra);
    }
    result.scaledL2 = meanWithError(l2);
    result.scaledL1 = meanWithError(l1);
    result.scaledLinf = meanWithError(linf);
    result.rmse = meanWithError(rmse);
    if (request.extraMetric) {
        result.extra = meanWithError(extra);
    }
    result.secondsMedian = median(seconds);
    result.cpuSecondsMedian = median(cpuSeconds);
    result.summary = std::move(outcomes.front().summary);
    result.firstEstimate = std::move(outcomes.front().estimate);

    if (request.exactError) {
        result.exactRmse = exactAlgorithmRmse(*request.algorithm, request.shape, *request.workload,
                                              algorithmMeasurement(base));
    }
    return result;
}

}  // namespace dpx
