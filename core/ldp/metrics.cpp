#include "core/ldp/metrics.h"

#include <algorithm>
#include <cmath>

#include "core/choosing/tradeoff.h"
#include "core/ldp/marginals.h"
#include "core/ldp/protocols.h"

namespace dpx::ldp {

namespace {

constexpr double kHours = 24;
constexpr double kNormalMean = 12;  // seed 002: truncated normal centred on the day's middle
constexpr double kNormalSd = 4;     // [0, 24] is ±3 standard deviations
constexpr std::uint64_t kMaxUsers = 1'000'000'000'000'000;

double normalCdf(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

}  // namespace

const char* telemetryShapeName(TelemetryShape s) {
    switch (s) {
        case TelemetryShape::TruncatedNormal:
            return "normal";
        case TelemetryShape::Uniform:
            return "uniform";
        case TelemetryShape::Constant:
            return "constant";
    }
    return "?";
}

Expected<TelemetryShape> telemetryShapeFromName(const std::string& name) {
    for (auto s :
         {TelemetryShape::TruncatedNormal, TelemetryShape::Uniform, TelemetryShape::Constant}) {
        if (name == telemetryShapeName(s)) {
            return s;
        }
    }
    return Error{"unknown data shape '" + name + "' (expected normal, uniform or constant)"};
}

Expected<std::vector<double>> telemetryShapeProbabilities(TelemetryShape s, std::size_t buckets) {
    if (buckets < 1 || buckets > kMaxDomain) {
        return Error{"the number of buckets must be 1 to " + std::to_string(kMaxDomain)};
    }
    std::vector<double> p(buckets, 0);
    const double width = kHours / static_cast<double>(buckets);
    switch (s) {
        case TelemetryShape::Uniform:
            std::fill(p.begin(), p.end(), 1 / static_cast<double>(buckets));
            break;
        case TelemetryShape::Constant:
            // The bucket containing 12 h, ⌊k/2⌋: for even k 12 h is the lower edge of bucket k/2,
            // for odd k the centre of bucket (k−1)/2. Integer arithmetic: 12/(24/k) rounds below
            // k/2 for some k (k = 118 gives 58.999…).
            p[buckets / 2] = 1;
            break;
        case TelemetryShape::TruncatedNormal: {
            const double mass = normalCdf(3) - normalCdf(-3);
            for (std::size_t b = 0; b < buckets; ++b) {
                const double lo = width * static_cast<double>(b);
                const double hi = b + 1 == buckets ? kHours : lo + width;
                p[b] = (normalCdf((hi - kNormalMean) / kNormalSd) -
                        normalCdf((lo - kNormalMean) / kNormalSd)) /
                       mass;
            }
            break;
        }
    }
    return p;
}

Expected<Histogram> telemetryCounts(TelemetryShape s, std::size_t buckets, std::uint64_t users) {
    if (users < 1 || users > kMaxUsers) {
        return Error{"the number of users must be 1 to 10^15"};
    }
    auto p = telemetryShapeProbabilities(s, buckets);
    if (!p) {
        return p.error();
    }
    // Weights in units of 10^−18 (total ≈ 10^18 < 2^63): a rounding of ≤ ½ unit moves a quota by
    // ≤ N·10^−18, so counts stay within 1 of N·p up to N = 10^15 (units of 10^−12 were 443 off).
    std::vector<std::int64_t> weights(buckets);
    std::vector<double> edges(buckets + 1);
    for (std::size_t b = 0; b < buckets; ++b) {
        weights[b] = std::llround((*p)[b] * 1e18);
        edges[b] = kHours * static_cast<double>(b) / static_cast<double>(buckets);
    }
    edges[buckets] = kHours;
    auto h = Histogram::create(std::move(weights), {}, std::move(edges));
    if (!h) {
        return h.error();
    }
    return scaleToPopulation(*h, static_cast<std::int64_t>(users));
}

std::vector<double> telemetryBucketCentres(std::size_t buckets) {
    std::vector<double> x(buckets);
    for (std::size_t b = 0; b < buckets; ++b) {
        x[b] = kHours * (static_cast<double>(b) + 0.5) / static_cast<double>(buckets);
    }
    return x;
}

const char* frequencyPostProcessName(FrequencyPostProcess p) {
    switch (p) {
        case FrequencyPostProcess::None:
            return "none";
        case FrequencyPostProcess::Clamp:
            return "clamp";
        case FrequencyPostProcess::Simplex:
            return "simplex";
    }
    return "?";
}

Expected<FrequencyPostProcess> frequencyPostProcessFromName(const std::string& name) {
    for (auto p :
         {FrequencyPostProcess::None, FrequencyPostProcess::Clamp, FrequencyPostProcess::Simplex}) {
        if (name == frequencyPostProcessName(p)) {
            return p;
        }
    }
    return Error{"unknown post-processing '" + name + "' (expected none, clamp or simplex)"};
}

Expected<std::vector<double>> postProcessFrequencies(std::span<const double> estimate,
                                                     FrequencyPostProcess p) {
    if (estimate.empty()) {
        return Error{"post-processing: no frequencies"};
    }
    for (double v : estimate) {
        if (!std::isfinite(v)) {
            return Error{"post-processing: a frequency estimate is not finite"};
        }
    }
    switch (p) {
        case FrequencyPostProcess::None:
            return std::vector<double>(estimate.begin(), estimate.end());
        case FrequencyPostProcess::Clamp: {
            std::vector<double> out(estimate.begin(), estimate.end());
            for (double& v : out) {
                v = std::max(v, 0.0);
            }
            return out;
        }
        case FrequencyPostProcess::Simplex:
            return projectToSimplex(estimate);
    }
    return Error{"post-processing: unknown kind"};
}

double maxAbsError(std::span<const double> a, std::span<const double> b) {
    double m = 0;
    for (std::size_t j = 0; j < a.size() && j < b.size(); ++j) {
        m = std::max(m, std::abs(a[j] - b[j]));
    }
    return m;
}

double expectedMaxAbsNormal(std::span<const double> variances) {
    std::vector<double> sd;
    sd.reserve(variances.size());
    double smax = 0;
    for (double v : variances) {
        if (v > 0 && std::isfinite(v)) {
            sd.push_back(std::sqrt(v));
            smax = std::max(smax, sd.back());
        }
    }
    if (smax == 0) {
        return 0;
    }
    auto f = [&](double t) {
        double prod = 1;
        for (double s : sd) {
            prod *= std::erf(t / (s * std::sqrt(2.0)));  // 2Φ(t/s) − 1
        }
        return 1 - prod;
    };
    constexpr int n = 4000;
    const double hi = 12 * smax;
    const double h = hi / n;
    double sum = f(0) + f(hi);
    for (int i = 1; i < n; ++i) {
        sum += f(i * h) * (i % 2 == 1 ? 4 : 2);
    }
    return sum * h / 3;
}

double expectedMaxAbsError(Protocol protocol, std::span<const double> variances) {
    if (protocol == Protocol::RR && variances.size() == 2) {
        const double v = std::max(variances[0], 0.0);
        return std::sqrt(v) * std::sqrt(2 / std::acos(-1.0));  // E|Z| = σ·√(2/π)
    }
    return expectedMaxAbsNormal(variances);
}

}  // namespace dpx::ldp
