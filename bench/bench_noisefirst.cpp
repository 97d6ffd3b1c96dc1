// NoiseFirst over all k on a deterministic noisy histogram. Times
//  * dpx::noiseFirst          — the penalised O(n²) optimal-partitioning DP,
//  * dpx::vOptimalErrorsAllK  — the V-optimal table SSE_k for every k (O(n³) worst case, pruned),
//  * dpx::noiseFirstAllK      — the table plus the rebuild of the k*-bucket partition,
// and checks that they agree on k* and SSE_{k*}. With --write-input the noisy histogram and its
// noise variance are written to a file that numpy_noisefirst.py solves with the same rule.
//
// Inputs (no dependence on core's RNG, so the input never changes with the core):
//  * shape "normal": true counts round(N·p_i), p_i the mass of a standard normal truncated to
//    [−3, 3] in bin i of n equal bins; shape "flat": round(N/n) in every bin;
//  * noise: iid Laplace(1/ε) (V = 2/ε²) by inverse CDF from SplitMix64 uniforms seeded with --seed.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/estimators/noisefirst_estimator.h"

namespace {

// SplitMix64 (Steele, Lea & Flood 2014): a tiny, fully specified generator for the bench input.
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform on (0, 1), never 0 or 1.
    double uniformOpen() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
};

double normalCdf(double x) {
    return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

std::vector<double> trueCounts(const std::string& shape, std::size_t n, double records) {
    std::vector<double> counts(n);
    if (shape == "flat") {
        for (auto& c : counts) {
            c = std::floor(records / static_cast<double>(n) + 0.5);
        }
        return counts;
    }
    const double lo = -3, hi = 3;
    const double mass = normalCdf(hi) - normalCdf(lo);
    for (std::size_t i = 0; i < n; ++i) {
        const double a = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n);
        const double b = lo + (hi - lo) * static_cast<double>(i + 1) / static_cast<double>(n);
        counts[i] = std::floor(records * (normalCdf(b) - normalCdf(a)) / mass + 0.5);
    }
    return counts;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace dpx;
    const bench::Options opt(argc, argv,
                             {{"n", "1024"},
                              {"records", "1e5"},
                              {"epsilon", "1"},
                              {"shape", "normal"},
                              {"seed", "20240601"},
                              {"reps", "5"},
                              {"budget", "60"},
                              {"algos", "penalised,table,allk"},
                              {"write-input", ""}});
    bench::printHeader("NoiseFirst over all k");

    const auto n = static_cast<std::size_t>(opt.integer("n"));
    const std::string shape = opt.str("shape");
    if (n < 1 || (shape != "normal" && shape != "flat")) {
        std::fprintf(stderr, "need n >= 1 and --shape normal|flat\n");
        return 2;
    }
    const double epsilon = opt.real("epsilon");
    const double b = 1.0 / epsilon;
    const double variance = 2 * b * b;
    std::vector<double> noisy = trueCounts(shape, n, opt.real("records"));
    SplitMix64 rng{static_cast<std::uint64_t>(opt.integer("seed"))};
    for (auto& v : noisy) {
        const double u = rng.uniformOpen();
        v += u < 0.5 ? b * std::log(2 * u) : -b * std::log(2 * (1 - u));
    }
    const std::string caseName = shape + "-n" + std::to_string(n) + "-eps" + opt.str("epsilon");
    std::printf("# case %s: %s truth, N = %s, Laplace(b = %g), V = %g, seed %s\n", caseName.c_str(),
                shape.c_str(), opt.str("records").c_str(), b, variance, opt.str("seed").c_str());

    if (!opt.str("write-input").empty()) {
        std::FILE* f = std::fopen(opt.str("write-input").c_str(), "w");
        if (!f) {
            std::fprintf(stderr, "cannot write %s\n", opt.str("write-input").c_str());
            return 1;
        }
        std::fprintf(f, "# case=%s n=%zu variance=%.17g\n", caseName.c_str(), n, variance);
        for (double v : noisy) {
            std::fprintf(f, "%.17g\n", v);
        }
        std::fclose(f);
    }

    const int reps = static_cast<int>(opt.integer("reps"));
    const double budget = opt.real("budget");
    struct Outcome {
        std::string algo;
        std::size_t k = 0;
        double sse = 0;
    };
    std::vector<Outcome> outcomes;
    for (const auto& algo : opt.list("algos")) {
        Outcome out{algo};
        bool ok = true;
        std::vector<double> times;
        if (algo == "penalised") {
            times = bench::timeRuns(reps, budget, [&] {
                auto r = noiseFirst(noisy, variance);
                ok = ok && r.hasValue();
                if (r) {
                    out.k = r->buckets;
                    out.sse = r->sse;
                }
            });
        } else if (algo == "table") {
            // k* from the table alone, as numpy_noisefirst.py does it (strict <: smallest k wins).
            times = bench::timeRuns(reps, budget, [&] {
                auto r = vOptimalErrorsAllK(noisy);
                ok = ok && r.hasValue();
                if (r) {
                    double best = std::numeric_limits<double>::infinity();
                    for (std::size_t k = 1; k <= n; ++k) {
                        const double c =
                            (*r)[k - 1] -
                            (static_cast<double>(n) - 2.0 * static_cast<double>(k)) * variance;
                        if (c < best) {
                            best = c;
                            out.k = k;
                            out.sse = (*r)[k - 1];
                        }
                    }
                }
            });
        } else if (algo == "allk") {
            times = bench::timeRuns(reps, budget, [&] {
                auto r = noiseFirstAllK(noisy, variance);
                ok = ok && r.hasValue();
                if (r) {
                    out.k = r->buckets;
                    out.sse = r->sse;
                }
            });
        } else {
            std::fprintf(stderr, "unknown algorithm '%s' (penalised, table, allk)\n", algo.c_str());
            return 2;
        }
        if (!ok) {
            std::fprintf(stderr, "%s failed\n", algo.c_str());
            return 1;
        }
        std::printf("%-9s k* = %zu, SSE_k* = %.10g, median %.6f s over %zu runs\n", algo.c_str(),
                    out.k, out.sse, bench::median(times), times.size());
        std::printf(
            "RESULT case=noisefirst input=%s algo=%s n=%zu k=%zu sse=%.17g median_s=%.6f "
            "runs=%zu\n",
            caseName.c_str(), algo.c_str(), n, out.k, out.sse, bench::median(times), times.size());
        outcomes.push_back(out);
    }
    // The algorithms solve the same problem: they must agree (SSE to rounding, k* exactly).
    bool agree = true;
    for (const auto& o : outcomes) {
        const double tol = 1e-9 * std::max(1.0, std::fabs(outcomes[0].sse));
        if (o.k != outcomes[0].k || std::fabs(o.sse - outcomes[0].sse) > tol) {
            agree = false;
        }
    }
    std::printf("RESULT case=noisefirst-agree input=%s agree=%s\n", caseName.c_str(),
                agree ? "yes" : "no");
    return agree ? 0 : 1;
}
