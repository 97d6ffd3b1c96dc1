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
// case. --sampled: fractions of the plan Poisson-subsampled (rates in [0.01, 0.5]); the sgd_pld
// lines: DP-SGD-like plans (T steps of a subsampled Gaussian) under the PLD, per --sgd-intervals.
// The plan_pld lines (issue #22, session 33): allocatePlan under PLD for budget plans with one
// Poisson-sampled Gaussian (q in --plan-rates), the wall and CPU time of the whole allocation, the
// composed ε of the result and the noise of an unsampled statistic next to the same plan without
// the sampling. --sections picks which of compose, sgd, plans run.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/accounting/accountant.h"
#include "core/accounting/subsampling.h"
#include "core/choosing/budget_plan.h"

namespace {

using namespace dpx;
using namespace dpx::accounting;

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
                 {"budget", "30"},
                 {"sampled", "0,0.5"},
                 {"sgd-intervals", "1e-4,1e-5"},
                 {"plan-rates", "0.001,0.01"},
                 {"sections", "compose,sgd,plans"}});
    const auto sections = opt.list("sections");
    auto runs = [&](const char* name) {
        return std::find(sections.begin(), sections.end(), std::string(name)) != sections.end();
    };
    printHeader("PLD accountant: composition of n heterogeneous mechanisms (issue #22)");
    const auto plain = heterogeneousPlan(static_cast<int>(opt.integer("n")),
                                         static_cast<unsigned>(opt.integer("seed")));
    const double delta = opt.real("delta");
    // --sampled F: that fraction of the plan (every other mechanism for 0.5) Poisson-subsampled
    // at a rate q ∈ [0.01, 0.5] from a second seeded generator (issue #22: the target must hold
    // with subsampled items too; their add and remove PLDs are composed separately).
    for (const auto& fs : runs("compose") ? opt.list("sampled") : std::vector<std::string>{})
        for (const auto& hs : opt.list("intervals")) {
            const double fraction = std::stod(fs);
            auto plan = plain;
            std::mt19937_64 rateRng(static_cast<unsigned>(opt.integer("seed")) + 1);
            std::uniform_real_distribution<double> ru(0, 1);
            std::size_t sampledCount = 0;
            for (std::size_t i = 0; i < plan.size(); ++i) {
                const double rate = 0.01 + 0.49 * ru(rateRng);
                if (fraction > 0 &&
                    static_cast<double>(sampledCount) < fraction * static_cast<double>(i + 1)) {
                    plan[i].samplingRate = rate;
                    ++sampledCount;
                }
            }
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
            const auto evalTimes =
                timeRuns(3, 10, [&] { pld = acc->epsilon(Accountant::Pld, delta); });
            auto ren = acc->epsilon(Accountant::Renyi, delta);
            auto zc = acc->epsilon(Accountant::Zcdp, delta);
            if (!pld || !ren || !zc) {
                std::fprintf(stderr, "bench_accounting: ε(δ) failed\n");
                return 1;
            }
            const auto& up = acc->pld()->upper;
            std::printf(
                "RESULT n=%zu sampled=%zu h=%s gaussians=%s compose_s=%.3f compose_cpu_s=%.3f "
                "process_cpu_s=%.3f "
                "eps_eval_s=%.3f "
                "grid_points=%zu eps_upper=%.6f eps_lower=%.6f gap=%.2e renyi=%.6f zcdp=%.6f\n",
                plan.size(), sampledCount, hs.c_str(), o.discretiseGaussian ? "grid" : "exact",
                median(times), cpu, proc, median(evalTimes), up.pmf().size(), pld->value,
                *pld->lower, pld->value - *pld->lower, ren->value, zc->value);
            std::fflush(stdout);
        }
    // Poisson-subsampled Gaussian (DP-SGD-like) under Rényi DP (core/accounting/subsampling.h,
    // Mironov, Talwar & Zhang 2019, integer orders 2..512): T steps of rate q and noise σ (Δ = 1)
    // at δ = 1e-5, next to published moments-accountant figures where there is one (Bu, Dong,
    // Long & Su 2020, Harvard Data Science Review, Fig. 4: MNIST, q = 256/60000, (1.34, 1e-5) at
    // 20 epochs with σ = 1.3 and (8.68, 1e-5) at 70 epochs with σ = 0.7).
    struct Sgd {
        double q, sigma;
        std::int64_t steps;
        const char* published;
    };
    const Sgd cases[] = {{0.01, 1.0, 1000, "-"},
                         {0.01, 1.1, 10000, "-"},
                         {256.0 / 60000, 1.3, 4688, "1.34"},
                         {256.0 / 60000, 0.7, 16406, "8.68"}};
    for (const Sgd& c : cases) {
        if (!runs("sgd")) {
            break;
        }
        Expected<SampledGaussianEpsilon> e = Error{};
        const auto times = timeRuns(static_cast<int>(opt.integer("reps")), opt.real("budget"), [&] {
            e = sampledGaussianEpsilon(c.q, c.sigma, 1, c.steps, 1e-5);
        });
        if (!e) {
            std::fprintf(stderr, "bench_accounting: %s\n", e.error().message.c_str());
            return 1;
        }
        std::printf(
            "RESULT subsampled_gaussian q=%.6g sigma=%g steps=%lld delta=1e-5 renyi_eps=%.4f "
            "alpha=%lld published=%s time_s=%.4f\n",
            c.q, c.sigma, static_cast<long long>(c.steps), e->epsilon,
            static_cast<long long>(e->alpha), c.published, median(times));
    }
    // The same DP-SGD-like plans under the PLD accountant (both neighbour directions, both
    // bounds) next to the Rényi accountant of the same plan, per grid interval.
    for (const Sgd& c : cases) {
        if (c.steps > 10000 || !runs("sgd")) {
            continue;
        }
        for (const auto& hs : opt.list("sgd-intervals")) {
            PldOptions o;
            o.interval = std::stod(hs);
            const std::vector<AccountedMechanism> sgd{
                subsampled(gaussianLoss(c.sigma, 1, c.steps), c.q)};
            Expected<PlanAccountant> acc = Error{};
            const double cpu0 = threadCpuSeconds();
            const double proc0 = processCpuSeconds();
            const auto times =
                timeRuns(1, opt.real("budget"), [&] { acc = PlanAccountant::create(sgd, o); });
            const double cpu = (threadCpuSeconds() - cpu0) / static_cast<double>(times.size());
            const double proc = (processCpuSeconds() - proc0) / static_cast<double>(times.size());
            if (!acc) {
                std::printf("RESULT sgd_pld q=%.6g sigma=%g steps=%lld h=%s error=\"%s\"\n", c.q,
                            c.sigma, static_cast<long long>(c.steps), hs.c_str(),
                            acc.error().message.c_str());
                std::fflush(stdout);
                continue;
            }
            auto pld = acc->epsilon(Accountant::Pld, 1e-5);
            auto ren = acc->epsilon(Accountant::Renyi, 1e-5);
            if (!pld || !ren) {
                std::fprintf(stderr, "bench_accounting: DP-SGD ε(δ) failed\n");
                return 1;
            }
            std::printf(
                "RESULT sgd_pld q=%.6g sigma=%g steps=%lld delta=1e-5 h=%s compose_s=%.3f "
                "compose_cpu_s=%.3f process_cpu_s=%.3f eps_upper=%.4f eps_lower=%.4f "
                "renyi=%.4f published=%s\n",
                c.q, c.sigma, static_cast<long long>(c.steps), hs.c_str(), median(times), cpu, proc,
                pld->value, *pld->lower, ren->value, c.published);
            std::fflush(stdout);
        }
    }
    // Budget plans under PLD with one Poisson-sampled Gaussian (issue #22): 10 statistics (3
    // Laplace, 3 geometric, 4 Gaussian, weights 1..10, 10 bins each), total (1, 1e-6), h = 1e-4;
    // the last Gaussian sampled at q. Also the 3-statistic plan of docs/performance.md (2
    // Gaussians and a Laplace, one Gaussian sampled).
    for (int size : {10, 3}) {
        for (const auto& qs : runs("plans") ? opt.list("plan-rates") : std::vector<std::string>{}) {
            BudgetPlan plan;
            plan.total = {1, 1e-6};
            plan.composition = Composition::Pld;
            for (int i = 0; i < size; ++i) {
                PlanStatistic st;
                st.label = "s" + std::to_string(i + 1);
                st.bins = 10;
                st.weight = size == 10 ? i + 1 : 1;
                st.mechanism = size == 3
                                   ? (i < 2 ? MechanismKind::Gaussian : MechanismKind::Laplace)
                               : i < 3 ? MechanismKind::Laplace
                               : i < 6 ? MechanismKind::Geometric
                                       : MechanismKind::Gaussian;
                plan.statistics.push_back(st);
            }
            const std::size_t sampledIndex = size == 3 ? 0 : 9;
            auto flat = allocatePlan(plan);
            plan.statistics[sampledIndex].samplingRate = std::stod(qs);
            Expected<PlanResult> r = Error{};
            const double cpu0 = processCpuSeconds();
            const auto times = timeRuns(static_cast<int>(opt.integer("reps")), opt.real("budget"),
                                        [&] { r = allocatePlan(plan); });
            const double cpu = (processCpuSeconds() - cpu0) / static_cast<double>(times.size());
            if (!r || !flat) {
                std::fprintf(stderr, "bench_accounting: plan: %s\n",
                             (!r ? r.error() : flat.error()).message.c_str());
                return 1;
            }
            const std::size_t other = size == 3 ? 2 : 0;  // an unsampled Laplace statistic
            std::printf(
                "RESULT plan_pld statistics=%d q=%s h=1e-4 time_s=%.3f process_cpu_s=%.3f "
                "eps_spent=%.6f sampled_scale=%.6g sampled_scale_without=%.6g other_scale=%.6g "
                "other_scale_without=%.6g rule=%s\n",
                size, qs.c_str(), median(times), cpu, r->usage.epsilonSpent,
                r->statistics[sampledIndex].noise.scale, flat->statistics[sampledIndex].noise.scale,
                r->statistics[other].noise.scale, flat->statistics[other].noise.scale,
                r->sampling.find("keep the noise") != std::string::npos ? "capped" : "amplified");
            std::fflush(stdout);
        }
    }
    return 0;
}
