#include "core/ldp/study.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iterator>

#include "core/choosing/tradeoff.h"
#include "core/ldp/range.h"

namespace dpx::ldp {

namespace {

constexpr double kMaxStudyEpsilon = 20;

std::uint64_t splitmix(std::uint64_t x) {
    // SplitMix64 finaliser (Steele, Lea & Flood 2014).
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// The seed of one repetition: a function of the study seed and the point's content only.
std::uint64_t pointSeed(std::uint64_t seed, std::uint64_t methodKey, double epsilon,
                        unsigned repetition) {
    std::uint64_t bits = 0;
    static_assert(sizeof bits == sizeof epsilon);
    std::memcpy(&bits, &epsilon, sizeof bits);
    return splitmix(splitmix(splitmix(seed ^ splitmix(methodKey)) ^ bits) ^ repetition);
}

// Mean and 95% half-width (normal quantile: repetitions are few, so the Student factor matters —
// t_{0.975, R−1} for R ≤ 31, 1.96 beyond).
void meanAndCi(const std::vector<double>& xs, double& mean, double& half) {
    const double n = static_cast<double>(xs.size());
    double s = 0;
    for (double x : xs) {
        s += x;
    }
    mean = s / n;
    half = 0;
    if (xs.size() < 2) {
        return;
    }
    double ss = 0;
    for (double x : xs) {
        ss += (x - mean) * (x - mean);
    }
    static constexpr double t975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                      2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                      2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                      2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    const std::size_t df = xs.size() - 1;
    const double t = df <= std::size(t975) ? t975[df - 1] : 1.96;
    half = t * std::sqrt(ss / (n - 1) / n);
}

Status checkEpsilons(const std::vector<double>& epsilons) {
    if (epsilons.empty()) {
        return Error{"epsilons: give at least one ε"};
    }
    for (std::size_t i = 0; i < epsilons.size(); ++i) {
        const double e = epsilons[i];
        if (!std::isfinite(e) || e <= 0 || e > kMaxStudyEpsilon) {
            return Error{"epsilons[" + std::to_string(i) + "] must be in (0, 20]"};
        }
    }
    return okStatus();
}

// "OUE", "GRR", …: the protocol's name in capitals, for labels.
std::string upperName(Protocol p) {
    std::string s = protocolName(p);
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

std::uint64_t methodKey(const RangeMethodSpec& m) {
    return (static_cast<std::uint64_t>(m.method) << 48) ^
           (static_cast<std::uint64_t>(m.oracle) << 32) ^ m.branching;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Range queries

std::string RangeMethodSpec::label() const {
    const std::string oracleName = [&] {
        std::string s = protocolName(oracle);
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        return s;
    }();
    switch (method) {
        case RangeMethod::Flat:
            return "flat " + oracleName;
        case RangeMethod::Hierarchical:
            return "HH_" + std::to_string(branching) + " " + oracleName;
        case RangeMethod::HierarchicalConsistent:
            return "HH_" + std::to_string(branching) + " " + oracleName + " + consistency";
        case RangeMethod::Haar:
            return "HaarHRR";
    }
    return "?";
}

Status RangeStudySpec::validate() const {
    if (methods.empty()) {
        return Error{"methods: choose at least one range method"};
    }
    if (domain < 2 || domain > (std::size_t{1} << 16)) {
        return Error{"domain must be 2 to 65 536"};
    }
    if (users < 1 || users > (std::uint64_t{1} << 28)) {
        return Error{"users must be 1 to 2^28 (HaarHRR simulates every report)"};
    }
    if (auto st = checkEpsilons(epsilons); !st) {
        return st;
    }
    if (repetitions < 1 || repetitions > 1000) {
        return Error{"repetitions must be 1 to 1000"};
    }
    if (rangeSamples == 0 && domain > 2048) {
        return Error{"rangeSamples: all ranges only for a domain of at most 2048 (use samples)"};
    }
    if (rangeSamples > (std::size_t{1} << 20)) {
        return Error{"rangeSamples must be at most 2^20"};
    }
    for (std::size_t i = 0; i < methods.size(); ++i) {
        const RangeMethodSpec& m = methods[i];
        const std::string where = "methods[" + std::to_string(i) + "] (" + m.label() + "): ";
        if (m.method == RangeMethod::Haar) {
            continue;
        }
        if (m.oracle == Protocol::RR || m.oracle == Protocol::DBitFlip) {
            return Error{where + "the oracle must be GRR, OUE, SUE, OLH or HRR"};
        }
        if (m.method != RangeMethod::Flat) {
            HierarchicalConfig c;
            c.oracle = ProtocolSpec{m.oracle, epsilons.front(), domain, 1};
            c.branching = m.branching;
            if (auto st = c.validate(); !st) {
                return Error{where + st.error().message};
            }
        }
    }
    return okStatus();
}

RangeStudySpec rangeStudyPreset() {
    RangeStudySpec s;
    s.methods = {{RangeMethod::Flat, Protocol::OUE, 2},
                 {RangeMethod::Hierarchical, Protocol::OUE, 2},
                 {RangeMethod::HierarchicalConsistent, Protocol::OUE, 4},
                 {RangeMethod::HierarchicalConsistent, Protocol::OUE, 8},
                 {RangeMethod::Haar, Protocol::OUE, 2}};
    s.epsilons = {0.5, std::log(3.0), 2, 4};
    return s;
}

Expected<RangeStudyResult> runRangeStudy(const RangeStudySpec& spec, const std::stop_token& stop,
                                         const ProgressCallback& progress) {
    if (auto st = spec.validate(); !st) {
        return st.error();
    }
    auto truth = telemetryCounts(spec.shape, spec.domain, spec.users);
    if (!truth) {
        return truth.error();
    }
    const std::vector<std::int64_t>& counts = truth->counts();
    auto ranges = spec.rangeSamples == 0 ? allRanges(spec.domain)
                                         : sampleRanges(spec.domain, spec.rangeSamples, spec.seed);
    if (!ranges) {
        return ranges.error();
    }
    // True prefix fractions, for the flat baseline's answers and its prediction.
    const double n = static_cast<double>(spec.users);
    std::vector<double> truePrefix(spec.domain + 1, 0);
    for (std::size_t j = 0; j < spec.domain; ++j) {
        truePrefix[j + 1] = truePrefix[j] + static_cast<double>(counts[j]) / n;
    }
    RangeStudyResult out;
    const std::size_t total = spec.methods.size() * spec.epsilons.size() * spec.repetitions;
    std::size_t done = 0;
    for (std::size_t mi = 0; mi < spec.methods.size(); ++mi) {
        const RangeMethodSpec& m = spec.methods[mi];
        for (double eps : spec.epsilons) {
            RangeStudyPoint point;
            point.method = mi;
            point.epsilon = eps;
            std::vector<double> mses;
            ProtocolSpec oracle{m.oracle, eps, spec.domain, 1};
            for (unsigned rep = 0; rep < spec.repetitions; ++rep) {
                if (stop.stop_requested()) {
                    out.cancelled = true;
                    return out;
                }
                const std::uint64_t seed = pointSeed(spec.seed, methodKey(m), eps, rep);
                double mse = 0;
                if (m.method == RangeMethod::Flat) {
                    auto est = simulateAggregate(oracle, counts, seed, stop);
                    if (!est) {
                        return est.error();
                    }
                    std::vector<double> prefix(spec.domain + 1, 0);
                    for (std::size_t j = 0; j < spec.domain; ++j) {
                        prefix[j + 1] = prefix[j] + est->frequencies[j];
                    }
                    for (const Range& r : *ranges) {
                        const double d = (prefix[r.hi + 1] - prefix[r.lo]) -
                                         (truePrefix[r.hi + 1] - truePrefix[r.lo]);
                        mse += d * d;
                    }
                    mse /= static_cast<double>(ranges->size());
                } else if (m.method == RangeMethod::Haar) {
                    auto est = simulateHaarHrr(HaarConfig{eps, spec.domain}, counts, seed, stop);
                    if (!est) {
                        return est.error();
                    }
                    auto e = rangeMse(*est, counts, *ranges);
                    if (!e) {
                        return e.error();
                    }
                    mse = *e;
                } else {
                    HierarchicalConfig c;
                    c.oracle = oracle;
                    c.branching = m.branching;
                    auto est = simulateHierarchical(c, counts, seed, stop);
                    if (!est) {
                        return est.error();
                    }
                    if (m.method == RangeMethod::HierarchicalConsistent) {
                        est = makeConsistent(*est);
                        if (!est) {
                            return est.error();
                        }
                    }
                    auto e = rangeMse(*est, counts, *ranges);
                    if (!e) {
                        return e.error();
                    }
                    mse = *e;
                }
                mses.push_back(mse);
                ++done;
                if (progress) {
                    progress(static_cast<double>(done) / static_cast<double>(total));
                }
            }
            meanAndCi(mses, point.mse, point.mseCi95);
            // The analytic figure, averaged over the workload.
            double analytic = 0;
            if (m.method == RangeMethod::Flat) {
                std::vector<double> var(spec.domain);
                for (std::size_t j = 0; j < spec.domain; ++j) {
                    auto v =
                        estimatorVariance(oracle, spec.users, static_cast<double>(counts[j]) / n);
                    if (!v) {
                        return v.error();
                    }
                    var[j] = *v;
                }
                std::vector<double> varPrefix(spec.domain + 1, 0);
                for (std::size_t j = 0; j < spec.domain; ++j) {
                    varPrefix[j + 1] = varPrefix[j] + var[j];
                }
                for (const Range& r : *ranges) {
                    analytic += varPrefix[r.hi + 1] - varPrefix[r.lo];
                }
                point.analyticKind = "prediction";
            } else if (m.method == RangeMethod::Haar) {
                auto b = haarVarianceBound(spec.domain, eps, spec.users);
                if (!b) {
                    return b.error();
                }
                analytic = *b * static_cast<double>(ranges->size());
                point.analyticKind = "bound";
            } else {
                HierarchicalConfig c;
                c.oracle = oracle;
                c.branching = m.branching;
                auto shape = makeHierarchy(spec.domain, m.branching);
                auto vf = hierarchicalVarianceFactor(c);
                if (!shape || !vf) {
                    return shape ? vf.error() : shape.error();
                }
                for (const Range& r : *ranges) {
                    auto b =
                        hierarchicalVarianceBound(*shape, r.length(), *vf, spec.users,
                                                  m.method == RangeMethod::HierarchicalConsistent);
                    if (!b) {
                        return b.error();
                    }
                    analytic += *b;
                }
                point.analyticKind = "bound";
            }
            point.analytic = analytic / static_cast<double>(ranges->size());
            out.points.push_back(point);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Marginals

std::string MarginalMethodSpec::label() const {
    if (method == MarginalMethod::Inpht) {
        return "INPHT";
    }
    return "one-hot " + upperName(oracle);
}

Status MarginalStudySpec::validate() const {
    if (methods.empty()) {
        return Error{"methods: choose at least one marginal method"};
    }
    if (attributes < 2 || attributes > kMaxAttributes) {
        return Error{"attributes must be 2 to 16"};
    }
    if (order < 1 || order > attributes) {
        return Error{"order k must be 1 to the number of attributes"};
    }
    if (users < 1 || users > (std::uint64_t{1} << 26)) {
        return Error{"users must be 1 to 2^26 (INPHT simulates every report)"};
    }
    if (auto st = checkEpsilons(epsilons); !st) {
        return st;
    }
    if (repetitions < 1 || repetitions > 1000) {
        return Error{"repetitions must be 1 to 1000"};
    }
    for (std::size_t i = 0; i < methods.size(); ++i) {
        const MarginalMethodSpec& m = methods[i];
        if (m.method == MarginalMethod::OneHot &&
            (m.oracle == Protocol::RR || m.oracle == Protocol::DBitFlip)) {
            return Error{"methods[" + std::to_string(i) +
                         "]: the one-hot oracle must be GRR, OUE, SUE, OLH or HRR"};
        }
    }
    return okStatus();
}

MarginalStudySpec marginalStudyPreset() {
    MarginalStudySpec s;
    s.methods = {{MarginalMethod::Inpht, Protocol::OUE},
                 {MarginalMethod::OneHot, Protocol::OUE},
                 {MarginalMethod::OneHot, Protocol::OLH}};
    s.epsilons = {0.2, 0.6, std::log(3.0), 1.4};
    return s;
}

Expected<MarginalStudyResult> runMarginalStudy(const MarginalStudySpec& spec,
                                               const std::stop_token& stop,
                                               const ProgressCallback& progress) {
    if (auto st = spec.validate(); !st) {
        return st.error();
    }
    auto table = binaryAttributeTable(spec.attributes, spec.users, spec.skewed);
    if (!table) {
        return table.error();
    }
    const std::vector<std::int64_t>& counts = table->counts();
    MarginalStudyResult out;
    const std::size_t total = spec.methods.size() * spec.epsilons.size() * spec.repetitions;
    std::size_t done = 0;
    for (std::size_t mi = 0; mi < spec.methods.size(); ++mi) {
        const MarginalMethodSpec& m = spec.methods[mi];
        const std::uint64_t key = (static_cast<std::uint64_t>(m.method) << 32) ^
                                  static_cast<std::uint64_t>(m.oracle) ^ (0xabcdULL << 40);
        for (double eps : spec.epsilons) {
            MarginalStudyPoint point;
            point.method = mi;
            point.epsilon = eps;
            std::vector<double> means, worst;
            for (unsigned rep = 0; rep < spec.repetitions; ++rep) {
                if (stop.stop_requested()) {
                    out.cancelled = true;
                    return out;
                }
                const std::uint64_t seed = pointSeed(spec.seed, key, eps, rep);
                Expected<MarginalError> err = Error{""};
                if (m.method == MarginalMethod::Inpht) {
                    auto c = simulateInpht(InphtConfig{spec.attributes, spec.order, eps}, counts,
                                           seed, stop);
                    if (!c) {
                        return c.error();
                    }
                    err = marginalError(*c, counts, spec.negatives);
                } else {
                    const ProtocolSpec oracle{m.oracle, eps, std::size_t{1} << spec.attributes, 1};
                    auto f = simulateOneHot(oracle, spec.attributes, counts, seed, stop);
                    if (!f) {
                        return f.error();
                    }
                    err = marginalError(f->frequencies, spec.attributes, spec.order, counts,
                                        spec.negatives);
                }
                if (!err) {
                    return err.error();
                }
                means.push_back(err->meanTv);
                worst.push_back(err->maxTv);
                ++done;
                if (progress) {
                    progress(static_cast<double>(done) / static_cast<double>(total));
                }
            }
            meanAndCi(means, point.meanTv, point.meanTvCi95);
            double ignored = 0;
            meanAndCi(worst, point.maxTv, ignored);
            out.points.push_back(point);
        }
    }
    return out;
}

Expected<Histogram> binaryAttributeTable(unsigned attributes, std::uint64_t users, bool skewed) {
    if (attributes < 1 || attributes > kMaxAttributes) {
        return Error{"the number of binary attributes must be 1 to 16"};
    }
    if (users < 1 || users > 1'000'000'000'000'000ULL) {
        return Error{"the number of users must be 1 to 10^15"};
    }
    const std::size_t cells = std::size_t{1} << attributes;
    // Skewed: π_x = Π_i p_i^{x_i}(1 − p_i)^{1−x_i} with p_i = (i+1)/(d+2), in units of 10^−18
    // (the smallest cell at d = 16 is ≈ 1.2·10^−10, so ≥ 10^8 units).
    std::vector<std::int64_t> weights(cells, 1);
    if (skewed) {
        const double d2 = static_cast<double>(attributes + 2);
        for (std::size_t x = 0; x < cells; ++x) {
            double pi = 1;
            for (unsigned i = 0; i < attributes; ++i) {
                const double p = static_cast<double>(i + 1) / d2;
                pi *= ((x >> i) & 1U) ? p : 1 - p;
            }
            weights[x] = std::llround(pi * 1e18);
        }
    }
    auto h = Histogram::create(std::move(weights));
    if (!h) {
        return h.error();
    }
    return scaleToPopulation(*h, static_cast<std::int64_t>(users));
}

}  // namespace dpx::ldp
