// LDP frequency oracles (issue #7). Two cases:
//  * OUE aggregate simulator, N = 2^24 users, D = 2^10 (2·D binomial draws, independent of N);
//  * OLH per-user simulator, N = 10^6 users, D = 1024: every report generated with the real
//    universal hash ((a·x + b) mod 2^61−1) mod g and the support of all D values counted
//    (N·D = 1.0e9 hash evaluations), on 1 and 2 threads. Counterpart: bench/numpy_olh.py.
// Data: v_i = ⌊D·x_i²⌋ with x_i = (i + ½)/N (skewed towards 0, identical in numpy_olh.py).
// Prints median wall-clock times and, as sanity checks, the largest |f̂_j − f_j| in units of the
// estimator's standard deviation sqrt(estimatorVariance) and whether every thread count gave the
// same estimate (exit status 1 if not).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/ldp/protocols.h"

namespace {

std::vector<std::uint32_t> skewedValues(std::uint64_t n, std::size_t domain) {
    std::vector<std::uint32_t> v(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
        v[i] = static_cast<std::uint32_t>(std::floor(static_cast<double>(domain) * x * x));
    }
    return v;
}

std::vector<std::int64_t> countsOf(const std::vector<std::uint32_t>& values, std::size_t domain) {
    std::vector<std::int64_t> c(domain, 0);
    for (const std::uint32_t v : values) {
        ++c[v];
    }
    return c;
}

// max_j |f̂_j − f_j| / sd_j.
double maxZ(const dpx::ldp::ProtocolSpec& spec, const std::vector<std::int64_t>& counts,
            const std::vector<double>& est, std::uint64_t users) {
    double worst = 0;
    for (std::size_t j = 0; j < counts.size(); ++j) {
        const double f = static_cast<double>(counts[j]) / static_cast<double>(users);
        const double sd = std::sqrt(*dpx::ldp::estimatorVariance(spec, users, f));
        worst = std::max(worst, std::abs(est[j] - f) / sd);
    }
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace dpx;
    const bench::Options opt(argc, argv,
                             {{"oue-users", "16777216"},
                              {"oue-domain", "1024"},
                              {"olh-users", "1e6"},
                              {"olh-domain", "1024"},
                              {"epsilon", "1.0986122886681098"},  // ln 3: e^ε = 3, OLH g = 4
                              {"threads", "1,2"},
                              {"reps", "5"},
                              {"seed", "1"}});
    bench::printHeader("LDP frequency oracles: OUE aggregate and OLH per-user simulation");
    const double eps = opt.real("epsilon");
    const auto seed = static_cast<std::uint64_t>(opt.integer("seed"));
    const int reps = static_cast<int>(opt.integer("reps"));

    {
        const auto n = static_cast<std::uint64_t>(opt.integer("oue-users"));
        const auto d = static_cast<std::size_t>(opt.integer("oue-domain"));
        const auto counts = countsOf(skewedValues(n, d), d);
        ldp::ProtocolSpec spec;
        spec.protocol = ldp::Protocol::OUE;
        spec.epsilon = eps;
        spec.domain = d;
        ldp::FrequencyEstimate last;
        const auto times = bench::timeRuns(std::max(reps, 20), 60.0, [&] {
            last = ldp::simulateAggregate(spec, counts, seed).value();
        });
        std::printf(
            "oue aggregate: N = %llu, D = %zu, eps = %.4f: median %.6f s over %zu runs "
            "(min %.6f s); max |f^-f|/sd = %.2f\n",
            static_cast<unsigned long long>(n), d, eps, bench::median(times), times.size(),
            *std::min_element(times.begin(), times.end()), maxZ(spec, counts, last.frequencies, n));
        std::printf("RESULT case=oue-aggregate users=%llu domain=%zu median_s=%.6f\n",
                    static_cast<unsigned long long>(n), d, bench::median(times));
    }
    {
        const auto n = static_cast<std::uint64_t>(opt.integer("olh-users"));
        const auto d = static_cast<std::size_t>(opt.integer("olh-domain"));
        const auto values = skewedValues(n, d);
        const auto counts = countsOf(values, d);
        ldp::ProtocolSpec spec;
        spec.protocol = ldp::Protocol::OLH;
        spec.epsilon = eps;
        spec.domain = d;
        const auto g = ldp::oracleConstants(spec)->hashRange;
        std::vector<double> first;  // the estimate must not depend on the thread count
        for (const auto& threadsText : opt.list("threads")) {
            const auto threads = static_cast<unsigned>(std::stoul(threadsText));
            ldp::FrequencyEstimate last;
            const auto times = bench::timeRuns(reps, 120.0, [&] {
                last = ldp::simulatePerUser(spec, values, seed, threads).value();
            });
            const double med = bench::median(times);
            if (first.empty()) {
                first = last.frequencies;
            } else if (last.frequencies != first) {
                std::printf("ERROR: the estimate on %u threads differs from the first run's\n",
                            threads);
                return 1;
            }
            std::printf(
                "olh per-user: N = %llu, D = %zu, g = %zu, threads %u: median %.4f s over "
                "%zu runs (min %.4f s), %.3f ns per hash; max |f^-f|/sd = %.2f\n",
                static_cast<unsigned long long>(n), d, g, threads, med, times.size(),
                *std::min_element(times.begin(), times.end()),
                1e9 * med / (static_cast<double>(n) * static_cast<double>(d)),
                maxZ(spec, counts, last.frequencies, n));
            std::printf("RESULT case=olh-per-user users=%llu domain=%zu threads=%u median_s=%.6f\n",
                        static_cast<unsigned long long>(n), d, threads, med);
        }
    }
    return 0;
}
