#include "core/ldp/mean.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include "core/base/random_variates.h"
#include "core/base/simulation_rng.h"

namespace dpx::ldp {

namespace {

Status checkData(const OneBitMeanSpec& spec, const ValueCounts& data) {
    if (data.values.size() != data.counts.size()) {
        return Error{"1BitMean: values and counts differ in length"};
    }
    std::int64_t total = 0;
    for (std::size_t i = 0; i < data.values.size(); ++i) {
        const double x = data.values[i];
        if (!std::isfinite(x) || x < 0 || x > spec.range) {
            return Error{"1BitMean: value " + std::to_string(x) + " (entry " + std::to_string(i) +
                         ") is outside [0, m] = [0, " + std::to_string(spec.range) +
                         "]: bound the values first"};
        }
        if (data.counts[i] < 0) {
            return Error{"1BitMean: a negative number of users (entry " + std::to_string(i) + ")"};
        }
        total += data.counts[i];
    }
    if (total <= 0) {
        return Error{"1BitMean: no users"};
    }
    return okStatus();
}

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

}  // namespace

Status OneBitMeanSpec::validate() const {
    if (!std::isfinite(epsilon) || epsilon <= 0 || epsilon > 50) {
        return Error{"1BitMean: epsilon must be in (0, 50]"};
    }
    if (!std::isfinite(range) || range <= 0) {
        return Error{"1BitMean: the range m must be finite and > 0"};
    }
    return okStatus();
}

double oneBitProbability(const OneBitMeanSpec& spec, double x) {
    const double e = std::exp(spec.epsilon);
    return 1 / (e + 1) + (x / spec.range) * (e - 1) / (e + 1);
}

Expected<double> trueMean(const ValueCounts& data) {
    double sum = 0, n = 0;
    for (std::size_t i = 0; i < data.values.size() && i < data.counts.size(); ++i) {
        sum += data.values[i] * static_cast<double>(data.counts[i]);
        n += static_cast<double>(data.counts[i]);
    }
    if (!(n > 0)) {
        return Error{"no users"};
    }
    return sum / n;
}

Expected<double> simulateOneBitMean(const OneBitMeanSpec& spec, const ValueCounts& data,
                                    std::uint64_t seed) {
    if (auto st = spec.validate(); !st) {
        return st.error();
    }
    if (auto st = checkData(spec, data); !st) {
        return st.error();
    }
    SimulationRng rng(seed, 0);
    std::uint64_t ones = 0, n = 0;
    for (std::size_t i = 0; i < data.values.size(); ++i) {
        const auto c = static_cast<std::uint64_t>(data.counts[i]);
        ones += binomial(rng, c, oneBitProbability(spec, data.values[i]));
        n += c;
    }
    const double e = std::exp(spec.epsilon);
    // Σ_i (b_i(e^ε+1) − 1)/(e^ε−1) = (ones·(e^ε+1) − n)/(e^ε−1).
    return spec.range / static_cast<double>(n) *
           (static_cast<double>(ones) * (e + 1) - static_cast<double>(n)) / (e - 1);
}

Expected<double> oneBitMeanVariance(const OneBitMeanSpec& spec, const ValueCounts& data) {
    if (auto st = spec.validate(); !st) {
        return st.error();
    }
    if (auto st = checkData(spec, data); !st) {
        return st.error();
    }
    const double e = std::exp(spec.epsilon);
    double s = 0, n = 0;
    for (std::size_t i = 0; i < data.values.size(); ++i) {
        const double p = oneBitProbability(spec, data.values[i]);
        s += static_cast<double>(data.counts[i]) * p * (1 - p);
        n += static_cast<double>(data.counts[i]);
    }
    const double k = spec.range * (e + 1) / ((e - 1) * n);
    return k * k * s;
}

Expected<ValueCounts> telemetryValues(TelemetryShape shape, std::size_t buckets,
                                      std::uint64_t users) {
    auto h = telemetryCounts(shape, buckets, users);
    if (!h) {
        return h.error();
    }
    ValueCounts v;
    v.values = telemetryBucketCentres(buckets);
    v.counts = h->counts();
    return v;
}

Status MeanStudySpec::validate() const {
    if (buckets < 1 || buckets > 4096) {
        return Error{"buckets must be 1 to 4096"};
    }
    if (populations.empty()) {
        return Error{"populations: give at least one n"};
    }
    for (std::size_t i = 0; i < populations.size(); ++i) {
        if (populations[i] < 1 || populations[i] > 1'000'000'000'000ULL) {
            return Error{"populations[" + std::to_string(i) + "] must be 1 to 10^12"};
        }
    }
    if (epsilons.empty()) {
        return Error{"epsilons: give at least one ε"};
    }
    for (std::size_t i = 0; i < epsilons.size(); ++i) {
        if (!std::isfinite(epsilons[i]) || epsilons[i] <= 0 || epsilons[i] > 20) {
            return Error{"epsilons[" + std::to_string(i) + "] must be in (0, 20]"};
        }
    }
    if (repetitions < 1 || repetitions > 100'000) {
        return Error{"repetitions must be 1 to 100 000"};
    }
    return okStatus();
}

MeanStudySpec telemetryMeanPreset() {
    MeanStudySpec s;
    s.populations = {1000, 2000, 3000, 5000, 10000, 20000, 30000, 50000, 100000, 200000, 300000};
    s.epsilons = {0.1, 0.3, 1, 3, 10};
    return s;
}

Expected<MeanStudyResult> runMeanStudy(const MeanStudySpec& spec, const std::stop_token& stop,
                                       const ProgressCallback& progress) {
    if (auto st = spec.validate(); !st) {
        return st.error();
    }
    MeanStudyResult out;
    const std::size_t total = spec.epsilons.size() * spec.populations.size();
    std::size_t done = 0;
    for (double eps : spec.epsilons) {
        const OneBitMeanSpec m{eps, 24};
        for (std::uint64_t n : spec.populations) {
            if (stop.stop_requested()) {
                out.cancelled = true;
                return out;
            }
            auto data = telemetryValues(spec.shape, spec.buckets, n);
            if (!data) {
                return data.error();
            }
            auto mu = trueMean(*data);
            auto var = oneBitMeanVariance(m, *data);
            if (!mu || !var) {
                return mu ? var.error() : mu.error();
            }
            out.trueMean = *mu;
            std::vector<double> errors;
            for (unsigned r = 0; r < spec.repetitions; ++r) {
                std::uint64_t bits = 0;
                std::memcpy(&bits, &eps, sizeof bits);
                const std::uint64_t seed = mix(mix(mix(spec.seed) ^ bits) ^ n) ^ r;
                auto est = simulateOneBitMean(m, *data, seed);
                if (!est) {
                    return est.error();
                }
                errors.push_back(std::abs(*est - *mu));
            }
            MeanStudyPoint p;
            p.users = n;
            p.epsilon = eps;
            double s = 0, ss = 0;
            for (double x : errors) {
                s += x;
                ss += x * x;
            }
            const double k = static_cast<double>(errors.size());
            p.absError = s / k;
            p.absErrorCi95 =
                k > 1
                    ? 1.96 * std::sqrt(std::max(0.0, (ss / k - p.absError * p.absError)) / (k - 1))
                    : 0;
            p.expectedAbsError = std::sqrt(2 / std::numbers::pi) * std::sqrt(*var);
            out.points.push_back(p);
            ++done;
            if (progress) {
                progress(static_cast<double>(done) / static_cast<double>(total));
            }
        }
    }
    return out;
}

}  // namespace dpx::ldp
