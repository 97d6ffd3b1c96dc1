// Seed 002's telemetry experiment (issue #7): see ldp_experiment.h for the contract.
#include "core/ldp/experiment.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>
#include <optional>
#include <tuple>

#include <boost/math/distributions/students_t.hpp>

#include "core/accuracy/wasserstein.h"
#include "core/base/trial_blocks.h"
#include "core/base/validation.h"

namespace dpx::ldp {

namespace {

// SplitMix64 output function (Steele, Lea & Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014): a bijective mix with full avalanche.
std::uint64_t splitMix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Where a point sits in the protocol-major order.
struct PointIndex {
    std::size_t protocol = 0, shape = 0, users = 0, epsilon = 0;
};

PointIndex pointIndex(const ExperimentSpec& spec, std::size_t i) {
    PointIndex ix;
    ix.epsilon = i % spec.epsilons.size();
    i /= spec.epsilons.size();
    ix.users = i % spec.populations.size();
    i /= spec.populations.size();
    ix.shape = i % spec.shapes.size();
    ix.protocol = i / spec.shapes.size();
    return ix;
}

ProtocolSpec pointProtocol(const ExperimentSpec& spec, std::size_t protocol, double epsilon) {
    ProtocolSpec p = spec.protocols[protocol];
    p.epsilon = epsilon;
    p.domain = spec.buckets;
    if (p.protocol != Protocol::DBitFlip) {
        p.bits = 1;  // meaningless for the other protocols: kept out of the seed and the label
    }
    return p;
}

// Elementary steps of one aggregate simulation (see experimentWork).
double simulationDraws(Protocol protocol, std::size_t buckets, std::uint64_t users) {
    const auto k = static_cast<double>(buckets);
    switch (protocol) {
        case Protocol::DBitFlip:
            return 4 * k;
        case Protocol::HRR: {
            const auto kh = static_cast<double>(hadamardSize(buckets));
            return k + std::min(static_cast<double>(users), k * kh) + 2 * kh + kh * std::log2(kh);
        }
        default:
            return 2 * k;
    }
}

// Mean and 95% half-width t_{0.975, R−1}·s/√R of the repetitions' values.
std::pair<double, double> meanAndCi95(const std::vector<double>& xs) {
    const auto n = static_cast<double>(xs.size());
    double mean = 0;
    for (double x : xs) {
        mean += x;
    }
    mean /= n;
    if (xs.size() < 2) {
        return {mean, 0.0};
    }
    double ss = 0;
    for (double x : xs) {
        ss += (x - mean) * (x - mean);
    }
    const boost::math::students_t_distribution<double> t(n - 1);
    return {mean, boost::math::quantile(t, 0.975) * std::sqrt(ss / (n - 1) / n)};
}

// The smallest index i with v[i] equal to an earlier element, if any (O(n log n): the lists may
// hold many thousands of values).
template <class T>
std::optional<std::size_t> firstRepeat(const std::vector<T>& v) {
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::optional<std::size_t> first;
    for (std::size_t i = 1; i < order.size(); ++i) {
        // Equal values are adjacent and in index order: order[i] repeats order[i − 1].
        if (v[order[i]] == v[order[i - 1]] && (!first || order[i] < *first)) {
            first = order[i];
        }
    }
    return first;
}

// One point: the truth, R simulations, the two metrics and the analytic expectations. nullopt
// when stopped before every repetition finished.
Expected<std::optional<ExperimentPoint>> computePoint(const ExperimentSpec& spec,
                                                      const PointIndex& ix,
                                                      const std::vector<double>& centres,
                                                      const std::stop_token& stop) {
    ExperimentPoint pt;
    pt.protocol = ix.protocol;
    pt.shape = spec.shapes[ix.shape];
    pt.users = spec.populations[ix.users];
    pt.epsilon = spec.epsilons[ix.epsilon];
    const ProtocolSpec protocol = pointProtocol(spec, ix.protocol, pt.epsilon);

    auto truth = telemetryCounts(pt.shape, spec.buckets, pt.users);
    if (!truth) {
        return truth.error();
    }
    const std::vector<std::int64_t>& counts = truth->counts();
    const auto n = static_cast<double>(pt.users);
    std::vector<double> f(spec.buckets);
    std::vector<double> variances(spec.buckets);
    double varianceSum = 0;
    for (std::size_t j = 0; j < spec.buckets; ++j) {
        f[j] = static_cast<double>(counts[j]) / n;
        auto v = estimatorVariance(protocol, pt.users, f[j]);
        if (!v) {
            return v.error();
        }
        variances[j] = *v;
        varianceSum += *v;
    }
    pt.expectedMse = varianceSum / static_cast<double>(spec.buckets);
    pt.expectedMaxError = expectedMaxAbsError(protocol.protocol, variances);

    std::vector<double> maxErrors, distances;
    maxErrors.reserve(spec.repetitions);
    distances.reserve(spec.repetitions);
    for (unsigned r = 0; r < spec.repetitions; ++r) {
        if (stop.stop_requested()) {
            return std::optional<ExperimentPoint>();
        }
        const std::uint64_t seed = repetitionSeed(spec.seed, protocol, pt.shape, pt.users, r);
        auto est = simulateAggregate(protocol, counts, seed, stop);
        if (!est) {
            return est.error();
        }
        if (est->cancelled) {
            return std::optional<ExperimentPoint>();
        }
        auto post = postProcessFrequencies(est->frequencies, spec.postProcess);
        if (!post) {
            return post.error();
        }
        maxErrors.push_back(maxAbsError(*post, f));
        distances.push_back(wasserstein1Normalized(f, *post, centres));
    }
    std::tie(pt.maxError, pt.maxErrorCi95) = meanAndCi95(maxErrors);
    std::tie(pt.wasserstein, pt.wassersteinCi95) = meanAndCi95(distances);
    return std::optional<ExperimentPoint>(pt);
}

}  // namespace

std::string protocolLabel(const ProtocolSpec& p) {
    switch (p.protocol) {
        case Protocol::RR:
            return "RR";
        case Protocol::GRR:
            return "GRR";
        case Protocol::OUE:
            return "OUE";
        case Protocol::SUE:
            return "SUE";
        case Protocol::OLH:
            return "OLH";
        case Protocol::HRR:
            return "HRR";
        case Protocol::DBitFlip:
            return "dBitFlip d=" + std::to_string(p.bits);
    }
    return "?";
}

std::uint64_t repetitionSeed(std::uint64_t seed, const ProtocolSpec& protocol, TelemetryShape shape,
                             std::uint64_t users, unsigned repetition) {
    const std::uint64_t bits = protocol.protocol == Protocol::DBitFlip ? protocol.bits : 0;
    std::uint64_t h = splitMix(seed);
    for (const std::uint64_t field :
         {static_cast<std::uint64_t>(protocol.protocol), bits,
          std::bit_cast<std::uint64_t>(protocol.epsilon),
          static_cast<std::uint64_t>(protocol.domain), static_cast<std::uint64_t>(shape), users,
          static_cast<std::uint64_t>(repetition)}) {
        h = splitMix(h ^ field);
    }
    return h;
}

std::size_t experimentPointCount(const ExperimentSpec& spec) {
    return spec.protocols.size() * spec.shapes.size() * spec.populations.size() *
           spec.epsilons.size();
}

double experimentWork(const ExperimentSpec& spec) {
    const auto k = static_cast<double>(spec.buckets);
    const auto perPointFixed = 4001 * k;
    const auto grid = static_cast<double>(spec.shapes.size() * spec.epsilons.size());
    double total = 0;
    for (const ProtocolSpec& p : spec.protocols) {
        for (const std::uint64_t n : spec.populations) {
            const double perRepetition = simulationDraws(p.protocol, spec.buckets, n) + 3 * k;
            total += grid * (static_cast<double>(spec.repetitions) * perRepetition + perPointFixed);
        }
    }
    return total;
}

Status ExperimentSpec::validate() const {
    if (protocols.empty()) {
        return Error{"protocols: the experiment needs at least one protocol"};
    }
    if (shapes.empty()) {
        return Error{"shapes: the experiment needs at least one data shape"};
    }
    if (populations.empty()) {
        return Error{"populations: the experiment needs at least one population size n"};
    }
    if (epsilons.empty()) {
        return Error{"epsilons: the experiment needs at least one ε"};
    }
    if (buckets < 2 || buckets > kMaxDomain) {
        return Error{"buckets: the number of buckets k must be in [2, " +
                     std::to_string(kMaxDomain) + "], got " + std::to_string(buckets)};
    }
    if (repetitions < 1 || repetitions > kMaxExperimentRepetitions) {
        return Error{"repetitions: must be in [1, " + std::to_string(kMaxExperimentRepetitions) +
                     "], got " + std::to_string(repetitions)};
    }
    for (std::size_t i = 0; i < populations.size(); ++i) {
        if (populations[i] < 1 || populations[i] > kMaxExperimentUsers) {
            return Error{"populations[" + std::to_string(i) +
                         "]: the number of users n must be in [1, 10^15], got " +
                         std::to_string(populations[i])};
        }
    }
    if (auto i = firstRepeat(populations)) {
        return Error{"populations[" + std::to_string(*i) +
                     "]: n = " + std::to_string(populations[*i]) + " is listed twice"};
    }
    for (std::size_t i = 0; i < epsilons.size(); ++i) {
        if (auto s = validateEpsilon(epsilons[i]); !s) {
            return Error{"epsilons[" + std::to_string(i) + "] = " + formatNumber(epsilons[i]) +
                         ": " + s.error().message};
        }
    }
    if (auto i = firstRepeat(epsilons)) {
        return Error{"epsilons[" + std::to_string(*i) + "]: ε = " + formatNumber(epsilons[*i]) +
                     " is listed twice"};
    }
    if (auto i = firstRepeat(shapes)) {
        return Error{"shapes[" + std::to_string(*i) + "]: '" + telemetryShapeName(shapes[*i]) +
                     "' is listed twice"};
    }
    std::vector<std::pair<Protocol, std::size_t>> kinds;
    for (const ProtocolSpec& p : protocols) {
        kinds.emplace_back(p.protocol, p.protocol == Protocol::DBitFlip ? p.bits : 0);
    }
    if (auto i = firstRepeat(kinds)) {
        return Error{"protocols[" + std::to_string(*i) + "]: " + protocolLabel(protocols[*i]) +
                     " is listed twice"};
    }
    for (std::size_t i = 0; i < protocols.size(); ++i) {
        for (std::size_t e = 0; e < epsilons.size(); ++e) {
            if (auto s = pointProtocol(*this, i, epsilons[e]).validate(); !s) {
                return Error{"protocols[" + std::to_string(i) + "] (" +
                             protocolLabel(protocols[i]) + ") with buckets k = " +
                             std::to_string(buckets) + " at epsilons[" + std::to_string(e) +
                             "] = " + formatNumber(epsilons[e]) + ": " + s.error().message};
            }
        }
    }
    if (const double work = experimentWork(*this); !(work <= kMaxExperimentWork)) {
        return Error{"the experiment is too large: " + std::to_string(experimentPointCount(*this)) +
                     " points × " + std::to_string(repetitions) +
                     " repetitions at k = " + std::to_string(buckets) + " buckets is about " +
                     formatNumber(work) + " elementary steps, more than the limit of " +
                     formatNumber(kMaxExperimentWork) +
                     " (0.5–2 minutes of one core); use fewer points, repetitions or buckets"};
    }
    return okStatus();
}

ExperimentSpec telemetryExperimentPreset() {
    ExperimentSpec s;
    for (const std::size_t d : {1, 2, 4}) {
        ProtocolSpec p;
        p.protocol = Protocol::DBitFlip;
        p.bits = d;
        s.protocols.push_back(p);
    }
    s.shapes = {TelemetryShape::TruncatedNormal, TelemetryShape::Uniform, TelemetryShape::Constant};
    s.buckets = 32;
    s.populations = {1'000,  2'000,  3'000,   5'000,   10'000, 20'000,
                     30'000, 50'000, 100'000, 200'000, 300'000};
    s.epsilons = {0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10};
    s.repetitions = 10;
    s.seed = 1;
    s.postProcess = FrequencyPostProcess::None;
    return s;
}

Expected<ExperimentResult> runExperiment(const ExperimentSpec& spec, const std::stop_token& stop,
                                         const ProgressCallback& progress, unsigned threads) {
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    const std::size_t total = experimentPointCount(spec);
    const std::vector<double> centres = telemetryBucketCentres(spec.buckets);
    std::vector<std::optional<ExperimentPoint>> slots(total);

    std::mutex mutex;  // guards failure
    std::optional<Error> failure;
    // One "trial" per point, one point per block: the engine hands points out to the workers.
    TrialBlockOptions points;
    points.trials = total;
    points.blockSize = 1;
    points.threads = threads;
    points.stop = stop;
    points.progress = progress;
    points.progressSteps = 1000;
    runTrialBlocks(points, [&](const TrialBlock& b) {
        const auto i = static_cast<std::size_t>(b.index);
        auto pt = computePoint(spec, pointIndex(spec, i), centres, stop);
        if (!pt) {
            const std::lock_guard lock(mutex);
            if (!failure) {
                failure = pt.error();
            }
            return false;
        }
        if (!*pt) {
            return false;  // stopped mid-point
        }
        slots[i] = std::move(**pt);
        return true;
    });
    if (failure) {
        return *failure;
    }

    ExperimentResult result;
    for (auto& slot : slots) {
        if (slot) {
            result.points.push_back(std::move(*slot));
        }
    }
    result.cancelled = result.points.size() < total;
    if (spec.repetitions == 1) {
        result.warnings.push_back(
            "one repetition per point: the 95% confidence half-widths are reported as 0 (no "
            "spread to estimate them from)");
    }
    if (spec.postProcess != FrequencyPostProcess::None) {
        result.warnings.push_back(
            std::string("expectedMaxError and expectedMse are those of the unbiased estimate "
                        "before post-processing; the measured errors are after '") +
            frequencyPostProcessName(spec.postProcess) + "'");
    }
    for (const ProtocolSpec& p : spec.protocols) {
        if (p.protocol == Protocol::DBitFlip || p.protocol == Protocol::OLH) {
            result.warnings.push_back(
                "dBitFlip and OLH are simulated bucket by bucket: each estimate has the "
                "protocol's exact law, but the protocols' weak correlations between buckets "
                "(O(1/k)) are not reproduced, which can shift the maximum error slightly");
            break;
        }
    }
    return result;
}

}  // namespace dpx::ldp
