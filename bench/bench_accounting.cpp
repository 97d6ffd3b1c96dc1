// Issue #22: the PLD accountant composing 1 000 heterogeneous mechanisms (target ≤ 1 s).
// The plan: --n mechanisms drawn from a seeded generator, in equal parts Laplace (b ∈ [20, 200]),
// geometric (ε ∈ [0.005, 0.05]), k-ary randomized response (k ∈ 2..10, ε ∈ [0.005, 0.05]),
// Gaussian (σ ∈ [20, 200]) and discrete Gaussian (σ ∈ [20, 200]), all with sensitivity 1 and
// every one distinct. For each grid interval h in --intervals: the wall time of composing both
// PLDs (pessimistic and optimistic; the Gaussians exact or, with --discretise-gaussian 1, on the
// grid), the time of one ε(δ), and the bounds themselves, next to Rényi DP and zCDP.
// compose_s is the median wall time of --reps runs; compose_cpu_s the CPU time of the calling
// thread (the pessimistic PLD; the optimistic one runs on a second thread) and process_cpu_s that
// of both, per run: on a shared machine the CPU times are the reliable figures. A RESULT line per
// case.
#include <time.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/accounting/accountant.h"

namespace {

using namespace dpx;
using namespace dpx::accounting;

// CPU seconds of the whole process (both composing threads).
double processCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::vector<AccountedMechanism> heterogeneousPlan(int n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<AccountedMechanism> m;
    for (int i = 0; i < n; ++i) {
        const double t = u(rng);
        switch (i % 5) {
            case 0:
                m.push_back(laplaceLoss(20 + 180 * t));
                break;
            case 1:
                m.push_back(geometricLoss(0.005 + 0.045 * t));
                break;
            case 2:
                m.push_back(randomizedResponseLoss(0.005 + 0.045 * t, 2 + (i / 5) % 9));
                break;
            case 3:
                m.push_back(gaussianLoss(20 + 180 * t));
                break;
            default:
                m.push_back(discreteGaussianLoss(20 + 180 * t));
                break;
        }
    }
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace dpx::bench;
    Options opt(argc, argv,
                {{"n", "1000"},
                 {"seed", "22"},
                 {"intervals", "1e-3,1e-4"},
                 {"delta", "1e-6"},
                 {"discretise-gaussian", "0"},
                 {"reps", "5"},
                 {"budget", "30"}});
    printHeader("PLD accountant: composition of n heterogeneous mechanisms (issue #22)");
    const auto plan = heterogeneousPlan(static_cast<int>(opt.integer("n")),
                                        static_cast<unsigned>(opt.integer("seed")));
    const double delta = opt.real("delta");
    for (const auto& hs : opt.list("intervals")) {
        PldOptions o;
        o.interval = std::stod(hs);
        o.discretiseGaussian = opt.integer("discretise-gaussian") != 0;
        Expected<PlanAccountant> acc = Error{};
        const double cpu0 = threadCpuSeconds();
        const double proc0 = processCpuSeconds();
        const auto times = timeRuns(static_cast<int>(opt.integer("reps")), opt.real("budget"),
                                    [&] { acc = PlanAccountant::create(plan, o); });
        const double cpu = (threadCpuSeconds() - cpu0) / static_cast<double>(times.size());
        const double proc = (processCpuSeconds() - proc0) / static_cast<double>(times.size());
        if (!acc) {
            std::fprintf(stderr, "bench_accounting: %s\n", acc.error().message.c_str());
            return 1;
        }
        Expected<AccountantAnswer> pld = Error{};
        const auto evalTimes = timeRuns(3, 10, [&] { pld = acc->epsilon(Accountant::Pld, delta); });
        auto ren = acc->epsilon(Accountant::Renyi, delta);
        auto zc = acc->epsilon(Accountant::Zcdp, delta);
        if (!pld || !ren || !zc) {
            std::fprintf(stderr, "bench_accounting: ε(δ) failed\n");
            return 1;
        }
        const auto& up = acc->pld()->upper;
        std::printf(
            "RESULT n=%zu h=%s gaussians=%s compose_s=%.3f compose_cpu_s=%.3f process_cpu_s=%.3f "
            "eps_eval_s=%.3f "
            "grid_points=%zu eps_upper=%.6f eps_lower=%.6f gap=%.2e renyi=%.6f zcdp=%.6f\n",
            plan.size(), hs.c_str(), o.discretiseGaussian ? "grid" : "exact", median(times), cpu,
            proc, median(evalTimes), up.pmf().size(), pld->value, *pld->lower,
            pld->value - *pld->lower, ren->value, zc->value);
        std::fflush(stdout);
    }
    return 0;
}
