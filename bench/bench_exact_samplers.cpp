// Exact release samplers (issue #8): draws per second of each sampler in
// core/release/exact_samplers.h at a few scales, with bits from the OS CSPRNG (ReleaseRandomness,
// getrandom) as a release uses them, plus the raw rate of ReleaseRandomness::next64. Every case
// draws --draws values per run (one continuous stream, as the release entry points do); the figure
// is the median of --reps runs. A RESULT line per case: name, draws/s, mean 64-bit words read per
// draw (bits used ÷ 64, counted through a wrapper), and the sample mean and variance as a sanity
// check against the law.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/count/count_mechanism.h"
#include "core/release/exact_samplers.h"
#include "core/release/release_rng.h"

namespace {

// Counts the words drawn from the OS source (the wrapper adds one virtual call per word).
class CountingBits final : public dpx::RandomBits {
public:
    explicit CountingBits(dpx::ReleaseRandomness& os) : os_(os) {}
    dpx::Expected<std::uint64_t> next64() override {
        ++words;
        return os_.next64();
    }
    std::uint64_t words = 0;

private:
    dpx::ReleaseRandomness& os_;
};

struct Summary {
    double mean = 0, variance = 0;
};

Summary summarise(const std::vector<std::int64_t>& v) {
    double m = 0, m2 = 0, n = 0;
    for (const auto x : v) {
        n += 1;
        const double d = static_cast<double>(x) - m;
        m += d / n;
        m2 += d * (static_cast<double>(x) - m);
    }
    return {m, n > 1 ? m2 / (n - 1) : 0};
}

[[noreturn]] void die(const std::string& what, const dpx::Error& e) {
    std::fprintf(stderr, "bench_exact_samplers: %s: %s\n", what.c_str(), e.message.c_str());
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace dpx;
    const bench::Options opt(argc, argv, {{"draws", "200000"}, {"reps", "5"}});
    const auto draws = static_cast<std::size_t>(opt.integer("draws"));
    const int reps = static_cast<int>(opt.integer("reps"));
    bench::printHeader("exact samplers with OS randomness (getrandom)");
    std::printf("# %zu draws per run, median of %d runs\n", draws, reps);
    std::printf("%-44s %14s %12s %12s %12s\n", "case", "draws/s", "words/draw", "mean", "variance");

    ReleaseRandomness os;
    CountingBits counting(os);

    const auto report = [&](const std::string& name, const std::vector<double>& times,
                            std::uint64_t words, std::size_t totalDraws, Summary s) {
        const double perRun = static_cast<double>(totalDraws) / static_cast<double>(times.size());
        const double rate = perRun / bench::median(times);
        const double wpd = static_cast<double>(words) / static_cast<double>(totalDraws);
        if (words == 0) {  // drawn without the counting wrapper
            std::printf("%-44s %14.4g %12s %12.4g %12.4g\n", name.c_str(), rate, "-", s.mean,
                        s.variance);
        } else {
            std::printf("%-44s %14.4g %12.3g %12.4g %12.4g\n", name.c_str(), rate, wpd, s.mean,
                        s.variance);
        }
        std::printf("RESULT %s draws_per_s=%.6g words_per_draw=%.4g\n", name.c_str(), rate, wpd);
    };

    {  // raw OS words
        std::uint64_t sink = 0;
        const auto times = bench::timeRuns(reps, 30, [&] {
            for (std::size_t i = 0; i < draws; ++i) {
                auto w = os.next64();
                if (!w) {
                    die("next64", w.error());
                }
                sink ^= *w;
            }
        });
        report("ReleaseRandomness::next64 (words)", times, draws, draws, {});
        if (sink == 42) {
            std::printf("#\n");  // keeps the loop from being optimised away
        }
    }

    const auto runNoise = [&](const std::string& name, auto&& sampler) {
        std::vector<std::int64_t> last;
        counting.words = 0;
        std::size_t total = 0;
        const auto times = bench::timeRuns(reps, 30, [&] {
            auto v = sampler(counting);
            if (!v) {
                die(name, v.error());
            }
            last = std::move(*v);
            total += last.size();
        });
        report(name, times, counting.words, total, summarise(last));
    };

    for (const char* t : {"1", "3.5", "10", "1000", "1000000"}) {
        const Rational scale = *parseDecimal(t);
        runNoise(std::string("discrete Laplace t = ") + t,
                 [&](RandomBits& b) { return sampleDiscreteLaplace(scale, draws, b); });
    }
    {
        // ε given as a double (exact binary value of 0.1): large numerator and denominator.
        const Rational scale = *Rational::fraction(Rational::fromDouble(0.1)->denominator(),
                                                   Rational::fromDouble(0.1)->numerator());
        runNoise("discrete Laplace t = 1/double(0.1)",
                 [&](RandomBits& b) { return sampleDiscreteLaplace(scale, draws, b); });
    }
    for (const char* s2 : {"1", "10", "100/3", "10000", "1000000"}) {
        const std::string text(s2);
        const auto slash = text.find('/');
        const Rational sigma2 = slash == std::string::npos
                                    ? *parseDecimal(text)
                                    : *Rational::fraction(BigInt(text.substr(0, slash)),
                                                          BigInt(text.substr(slash + 1)));
        runNoise(std::string("discrete Gaussian sigma2 = ") + s2,
                 [&](RandomBits& b) { return sampleDiscreteGaussian(sigma2, draws, b); });
    }
    {
        const Rational sigma2 = *Rational::fromDouble(10.3);
        runNoise("discrete Gaussian sigma2 = double(10.3)",
                 [&](RandomBits& b) { return sampleDiscreteGaussian(sigma2, draws, b); });
    }
    // Through the release entry points (OS source directly, no counting wrapper).
    {
        DiscreteLaplaceParams p{*parseDecimal("0.1"), 1};
        runNoise("releaseDiscreteLaplaceNoise eps = 0.1",
                 [&](RandomBits&) { return releaseDiscreteLaplaceNoise(p, draws, os); });
        DiscreteGaussianParams g{*parseDecimal("100"), 1};
        runNoise("releaseDiscreteGaussianNoise sigma2 = 100",
                 [&](RandomBits&) { return releaseDiscreteGaussianNoise(g, draws, os); });
    }
    for (const char* g : {"0.5", "2.5", "20"}) {
        const Rational gamma = *parseDecimal(g);
        runNoise(std::string("Bernoulli(exp(-gamma)) gamma = ") + g, [&](RandomBits& b) {
            std::vector<std::int64_t> out(draws);
            for (auto& x : out) {
                auto v = sampleBernoulliExp(gamma, b);
                if (!v) {
                    return Expected<std::vector<std::int64_t>>(v.error());
                }
                x = *v ? 1 : 0;
            }
            return Expected<std::vector<std::int64_t>>(std::move(out));
        });
    }
    for (const int n : {100, 2000}) {
        const auto gm = truncatedGeometric(n, 0.5);
        const auto sampler = CountMechanismSampler::create(*gm);
        // Every draw from another column (each rebuilt exactly): fewer draws.
        std::vector<std::size_t> counts(draws / 20);
        for (std::size_t i = 0; i < counts.size(); ++i) {
            counts[i] = (i * 7919) % static_cast<std::size_t>(n + 1);  // many columns
        }
        std::vector<std::size_t> same(draws, static_cast<std::size_t>(n / 2));
        for (const auto* input : {&same, &counts}) {
            runNoise("GM matrix n = " + std::to_string(n) + ", eps 0.5, " +
                         (input == &same ? "one column" : "all columns"),
                     [&](RandomBits& b) -> Expected<std::vector<std::int64_t>> {
                         auto v = sampler->sample(*input, b);
                         if (!v) {
                             return v.error();
                         }
                         std::vector<std::int64_t> out(v->begin(), v->end());
                         return out;
                     });
        }
    }
    return 0;
}
