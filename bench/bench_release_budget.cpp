// Issue #17: calibration of the discrete Gaussian release and budget arithmetic at scale.
//  - calibrateReleaseGaussian (what `dpx release` and the release dialog's preview run through
//    releaseCost) at ε = 1e-8 … 10, δ = 1e-6, for add/remove with cap 1 (exact δ of Canonne, Kamath
//    & Steinke 2020, Thm 7, through calibrateDiscreteGaussian) and replace with cap 3 (zCDP,
//    CKS 2020 Cor. 13); the σ² found or the refusal;
//  - BudgetLedger: charging n = 10³, 10⁴, 10⁵ charges one by one (basic: ε = 1/n each, δ = 10⁻⁶/n;
//    zCDP: ρ = ρ_budget/(2n) each), then usage();
//  - allocatePlan (the core of `dpx budget`) with n statistics of 10 bins: basic with Laplace
//    statistics, zCDP with Gaussian ones;
//  - optionally `dpx budget` end to end with --dpx PATH (n = 10³ and 10⁴: 10⁵ --stat options
//    exceed the kernel's argument-list limit), output discarded.
// Median of --reps runs (bounded by --budget seconds per case). A RESULT line per case. With
// --timeout S each case runs in a child process ended after S seconds ("timeout>S"), so that the
// same program can measure the core before issue #17, where some cases take hours.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/choosing/budget.h"
#include "core/choosing/budget_plan.h"
#include "core/release/exact_samplers.h"
#include "core/release/release.h"

namespace {

using namespace dpx;

// With --timeout S > 0 every case runs in a child process that SIGALRM ends after S seconds, and
// the case prints "timeout>S" instead (to measure an older core whose cases can take hours).
double gTimeout = 0;

void guarded(const std::string& name, const std::function<void()>& body) {
    if (gTimeout <= 0) {
        body();
        return;
    }
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(static_cast<unsigned>(gTimeout));
        body();
        std::fflush(stdout);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        std::printf("RESULT %s timeout>%gs\n", name.c_str(), gTimeout);
    }
}

[[noreturn]] void die(const std::string& what, const Error& e) {
    std::fprintf(stderr, "bench_release_budget: %s: %s\n", what.c_str(), e.message.c_str());
    std::exit(1);
}

void calibrations(int reps, double budget) {
    for (const char* e : {"1e-8", "1e-6", "1e-4", "1e-2", "1", "10"}) {
        for (const auto& [relation, cap] :
             {std::pair{Neighbouring::AddRemove, 1}, std::pair{Neighbouring::Replace, 3}}) {
            const Rational eps = *parseDecimal(e);
            const Rational delta = *parseDecimal("1e-6");
            const std::string name = std::string("calibration eps=") + e + " delta=1e-6 " +
                                     neighbouringName(relation) + " cap=" + std::to_string(cap);
            guarded(name, [&] {
                std::string outcome;
                const auto times = bench::timeRuns(reps, budget, [&] {
                    auto c = calibrateReleaseGaussian(eps, delta, relation, cap);
                    outcome =
                        c ? "sigma^2 = " + c->sigma2.toString() : "refused: " + c.error().message;
                });
                std::printf("RESULT %s median_ms=%.3f runs=%zu %s\n", name.c_str(),
                            1e3 * bench::median(times), times.size(), outcome.c_str());
            });
        }
    }
}

void ledger(int reps, double budget) {
    for (const int n : {1000, 10000, 100000}) {
        for (const Composition composition : {Composition::Basic, Composition::Zcdp}) {
            const BudgetTotal total{1.0, 1e-6};
            const std::string name =
                "ledger n=" + std::to_string(n) + " composition=" + compositionName(composition);
            guarded(name, [&] {
                std::string spent;
                const auto times = bench::timeRuns(reps, budget, [&] {
                    auto l = BudgetLedger::create(total, composition);
                    if (!l) {
                        die("ledger", l.error());
                    }
                    const double rho = l->usage().rhoBudget / (2.0 * n);
                    for (int i = 0; i < n; ++i) {
                        const BudgetCharge c =
                            composition == Composition::Basic
                                ? BudgetCharge{"s", 1.0 / n, 1e-6 / n, std::nullopt}
                                : BudgetCharge{"s", 0, 0, rho};
                        if (auto s = l->charge(c); !s) {
                            die("charge " + std::to_string(i), s.error());
                        }
                    }
                    const BudgetUsage u = l->usage();
                    spent = composition == Composition::Basic
                                ? "eps_spent_exact=" + u.epsilonSpentExact
                                : "rho_spent=" + std::to_string(u.rhoSpent);
                });
                std::printf("RESULT %s median_s=%.4f runs=%zu %s\n", name.c_str(),
                            bench::median(times), times.size(), spent.c_str());
            });
        }
    }
}

BudgetPlan makePlan(int n, Composition composition) {
    BudgetPlan plan;
    plan.total = {1.0, 1e-6};
    plan.composition = composition;
    for (int i = 0; i < n; ++i) {
        PlanStatistic s;
        s.label = "s" + std::to_string(i);
        s.bins = 10;
        s.mechanism =
            composition == Composition::Basic ? MechanismKind::Laplace : MechanismKind::Gaussian;
        plan.statistics.push_back(s);
    }
    return plan;
}

void plans(int reps, double budget) {
    for (const int n : {1000, 10000, 100000}) {
        for (const Composition composition : {Composition::Basic, Composition::Zcdp}) {
            const BudgetPlan plan = makePlan(n, composition);
            const std::string name =
                "plan n=" + std::to_string(n) + " composition=" + compositionName(composition) +
                " mechanism=" + (composition == Composition::Basic ? "laplace" : "gaussian");
            guarded(name, [&] {
                const auto times = bench::timeRuns(reps, budget, [&] {
                    auto r = allocatePlan(plan);
                    if (!r) {
                        die("plan", r.error());
                    }
                });
                std::printf("RESULT %s median_s=%.4f runs=%zu\n", name.c_str(),
                            bench::median(times), times.size());
            });
        }
    }
}

// `dpx budget` with n --stat options; exit status checked, output discarded.
void endToEnd(const std::string& dpx, int reps, double budget) {
    for (const int n : {1000, 10000}) {
        for (const Composition composition : {Composition::Basic, Composition::Zcdp}) {
            std::vector<std::string> args{
                dpx,       "budget", "--epsilon",     "1",
                "--delta", "1e-6",   "--composition", compositionName(composition)};
            const char* mechanism = composition == Composition::Basic ? "laplace" : "gaussian";
            for (int i = 0; i < n; ++i) {
                args.push_back("--stat");
                args.push_back("s" + std::to_string(i) + ":10:" + mechanism);
            }
            std::vector<char*> argv;
            for (auto& a : args) {
                argv.push_back(a.data());
            }
            argv.push_back(nullptr);
            int status = 0;
            const auto times = bench::timeRuns(reps, budget, [&] {
                std::fflush(stdout);  // the child must not inherit unwritten output
                const pid_t pid = fork();
                if (pid == 0) {
                    const int null = open("/dev/null", O_WRONLY);
                    dup2(null, STDOUT_FILENO);
                    execv(argv[0], argv.data());
                    _exit(127);
                }
                waitpid(pid, &status, 0);
            });
            std::printf(
                "RESULT dpx_budget n=%d composition=%s mechanism=%s median_s=%.3f runs=%zu "
                "exit=%d\n",
                n, compositionName(composition), mechanism, bench::median(times), times.size(),
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const bench::Options opt(argc, argv,
                             {{"reps", "5"}, {"budget", "60"}, {"dpx", ""}, {"timeout", "0"}});
    gTimeout = opt.real("timeout");
    const int reps = static_cast<int>(opt.integer("reps"));
    const double budget = opt.real("budget");
    bench::printHeader("discrete Gaussian release calibration and budget arithmetic (issue #17)");
    calibrations(reps, budget);
    ledger(reps, budget);
    plans(reps, budget);
    if (!opt.str("dpx").empty()) {
        endToEnd(opt.str("dpx"), reps, budget);
    }
    return 0;
}
