// Mean estimation under local DP: Microsoft's 1BitMean (Ding, Kulkarni & Yekhanin, "Collecting
// telemetry data privately", NIPS 2017, §2.1), the mean mechanism of seed 002's telemetry study
// (whose "Mean estimation" paragraph is empty: the experiment here is ours, in the seed's setting).
// No Qt.
//
// Each user holds x ∈ [0, m] and sends one bit, 1 with probability
//     p(x) = 1/(e^ε + 1) + (x/m)·(e^ε − 1)/(e^ε + 1),
// which is ε-LDP: p(x) ∈ [1/(e^ε+1), e^ε/(e^ε+1)] and (1 − p(x)) likewise, so any two values
// make a bit at most e^ε times more likely. The collector's unbiased estimate of the mean is
//     μ̂ = (m/n)·Σ_i (b_i·(e^ε + 1) − 1)/(e^ε − 1),
// with Var[μ̂] = m²(e^ε+1)²/((e^ε−1)²·n²)·Σ_i p(x_i)(1 − p(x_i)) ≤ m²(e^ε+1)²/(4n(e^ε−1)²).
#pragma once

#include <cstdint>
#include <span>
#include <stop_token>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/ldp/metrics.h"

namespace dpx::ldp {

struct OneBitMeanSpec {
    double epsilon = 1;  // finite, (0, 50]
    double range = 24;   // m > 0, finite: values lie in [0, m]
    Status validate() const;
};

// p(x), the probability that a user holding x sends 1. Precondition: valid spec, 0 ≤ x ≤ m.
double oneBitProbability(const OneBitMeanSpec& spec, double x);

// The data as distinct values with their numbers of users (values in [0, m], counts ≥ 0, at
// least one user). Errors name the first bad entry.
struct ValueCounts {
    std::vector<double> values;
    std::vector<std::int64_t> counts;
};

// One simulated collection: the number of 1 bits among the users of each distinct value is
// Binomial(count, p(value)) (exact in distribution: the bits are independent given the values),
// then μ̂. Seeded (simulation RNG, not for releases).
Expected<double> simulateOneBitMean(const OneBitMeanSpec& spec, const ValueCounts& data,
                                    std::uint64_t seed);

// Exact Var[μ̂] for this data (see above).
Expected<double> oneBitMeanVariance(const OneBitMeanSpec& spec, const ValueCounts& data);

// The true mean of the data.
Expected<double> trueMean(const ValueCounts& data);

// Seed 002's setting for means: users' values at the bucket centres of k buckets on [0, 24] h
// drawn from a telemetry shape (telemetryCounts), m = 24.
Expected<ValueCounts> telemetryValues(TelemetryShape shape, std::size_t buckets,
                                      std::uint64_t users);

// The mean study of the experiment tab: |μ̂ − μ| against n for each ε, repeated.
struct MeanStudySpec {
    TelemetryShape shape = TelemetryShape::TruncatedNormal;
    std::size_t buckets = 32;
    std::vector<std::uint64_t> populations;  // each 1 … 10^12
    std::vector<double> epsilons;            // each (0, 20]
    unsigned repetitions = 10;               // 1 … 100 000
    std::uint64_t seed = 1;
    Status validate() const;
};
// n ∈ {1, 2, 3, 5}·10³ … 3·10⁵ and ε ∈ {0.1, 0.3, 1, 3, 10}, normal data, 32 buckets, 10
// repetitions (seed 002's ranges).
MeanStudySpec telemetryMeanPreset();

struct MeanStudyPoint {
    std::uint64_t users = 0;
    double epsilon = 0;
    double absError = 0, absErrorCi95 = 0;  // mean over repetitions of |μ̂ − μ| (hours)
    double expectedAbsError = 0;            // √(2/π)·√Var[μ̂] (normal approximation)
};
struct MeanStudyResult {
    std::vector<MeanStudyPoint> points;  // ε-major, then n
    double trueMean = 0;
    bool cancelled = false;
};
Expected<MeanStudyResult> runMeanStudy(const MeanStudySpec& spec, const std::stop_token& stop = {},
                                       const ProgressCallback& progress = {});

}  // namespace dpx::ldp
