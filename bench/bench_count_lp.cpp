// Count-query mechanism design by LP (core/count/count_lp.h) and the closed-form matrices
// (core/count/count_mechanism.h). Cases, each printed as a RESULT line:
//  * lp-single:  one solve, WH + CM, uniform weights, for every --n × --loss, with and without the
//                symmetry reduction (the full LP is the one scipy_count_lp.py hands to HiGHS);
//  * lp-sweep:   the same LP for ε = --sweep-from, +step, ... (--sweep-points values) at --sweep-n,
//                warm-started (designCountMechanismSweep) and cold (one designCountMechanism per
//                ε);
//  * lp-large:   one solve at --large-n (symmetry reduction on);
//  * closed:     GM, EM and UM built for --closed-n people (median of --reps).
// Times are wall-clock seconds of the library call, including building the LP and the repair.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"

namespace {

using dpx::CountLpSpec;
using dpx::CountProperty;
using dpx::LpCostKind;
using namespace dpx::bench;

CountLpSpec specFor(int n, double epsilon, const std::string& loss, bool symmetry) {
    CountLpSpec s;
    s.n = n;
    s.epsilon = epsilon;
    s.cost = loss == "l1" ? LpCostKind::L1 : LpCostKind::L0;
    s.constraints = {CountProperty::WeaklyHonest, CountProperty::ColumnMonotone};
    s.exploitSymmetry = symmetry;
    s.timeLimitSeconds = 600;
    return s;
}

// One solve; prints its RESULT line and returns the wall-clock seconds (−1 on failure).
double single(const char* label, const CountLpSpec& s) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = dpx::designCountMechanism(s);
    const double t = secondsSince(start);
    if (!r) {
        std::printf("RESULT case=%s n=%d error=\"%s\"\n", label, s.n, r.error().message.c_str());
        return -1;
    }
    std::printf(
        "RESULT case=%s n=%d eps=%g loss=%s symmetry=%s status=%s seconds=%.4f simplex_s=%.4f "
        "iterations=%d rows=%d columns=%d objective=%.10f solver_objective=%.10f "
        "repair_share=%.3g\n",
        label, s.n, s.epsilon, s.cost == LpCostKind::L1 ? "l1" : "l0",
        s.exploitSymmetry ? "on" : "off", dpx::lpStatusName(r->status), t, r->seconds,
        r->iterations, r->lpRows, r->lpColumns, r->objective, r->solverObjective,
        r->repairUniformShare);
    std::fflush(stdout);
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o(argc, argv,
                    {{"n", "100,200"},
                     {"loss", "l0,l1"},
                     {"epsilon", "0.5"},
                     {"symmetry", "on,off"},
                     {"sweep-n", "100"},
                     {"sweep-from", "0.1"},
                     {"sweep-step", "0.1"},
                     {"sweep-points", "20"},
                     {"sweep-cold", "1"},
                     {"large-n", "400"},
                     {"closed-n", "1000"},
                     {"reps", "5"}});
    printHeader("count-query mechanism matrices: LP design (COIN-OR CLP) and closed forms");
    const double eps = o.real("epsilon");

    for (const std::string& sym : o.list("symmetry")) {
        for (const std::string& nText : o.list("n")) {
            for (const std::string& loss : o.list("loss")) {
                single("lp-single", specFor(std::stoi(nText), eps, loss, sym == "on"));
            }
        }
    }

    const int sweepN = static_cast<int>(o.integer("sweep-n"));
    const auto points = static_cast<std::size_t>(o.integer("sweep-points"));
    if (points > 0) {
        std::vector<double> epsilons;
        for (std::size_t k = 0; k < points; ++k) {
            epsilons.push_back(o.real("sweep-from") +
                               static_cast<double>(k) * o.real("sweep-step"));
        }
        const CountLpSpec s = specFor(sweepN, epsilons.front(), "l0", true);
        auto start = std::chrono::steady_clock::now();
        const auto warm = dpx::designCountMechanismSweep(s, epsilons);
        const double warmSeconds = secondsSince(start);
        if (!warm) {
            std::printf("RESULT case=lp-sweep error=\"%s\"\n", warm.error().message.c_str());
            return 1;
        }
        int iterations = 0;
        for (std::size_t k = 0; k < warm->size(); ++k) {
            const auto& r = (*warm)[k];
            iterations += r.iterations;
            std::printf(
                "# sweep eps=%.3f status=%s objective=%.10f iterations=%d simplex_s=%.4f%s\n",
                epsilons[k], dpx::lpStatusName(r.status), r.objective, r.iterations, r.seconds,
                r.warmStarted ? " warm" : " cold");
        }
        std::printf("RESULT case=lp-sweep mode=warm n=%d points=%zu seconds=%.4f iterations=%d\n",
                    sweepN, points, warmSeconds, iterations);
        std::fflush(stdout);
        if (o.integer("sweep-cold") != 0) {
            double maxDiff = 0;
            iterations = 0;
            start = std::chrono::steady_clock::now();
            for (std::size_t k = 0; k < epsilons.size(); ++k) {
                CountLpSpec one = s;
                one.epsilon = epsilons[k];
                const auto r = dpx::designCountMechanism(one);
                if (r && r->status == dpx::LpStatus::Optimal) {
                    iterations += r->iterations;
                    maxDiff = std::max(maxDiff, std::abs(r->objective - (*warm)[k].objective));
                }
            }
            std::printf(
                "RESULT case=lp-sweep mode=cold n=%d points=%zu seconds=%.4f iterations=%d "
                "max_objective_difference=%.3g\n",
                sweepN, points, secondsSince(start), iterations, maxDiff);
        }
    }

    if (const int large = static_cast<int>(o.integer("large-n")); large > 0) {
        single("lp-large", specFor(large, eps, "l0", true));
    }

    if (const int cn = static_cast<int>(o.integer("closed-n")); cn > 0) {
        const int reps = static_cast<int>(o.integer("reps"));
        const double e = 0.5;
        const auto gm = timeRuns(reps, 30, [&] { (void)dpx::truncatedGeometric(cn, e); });
        const auto em = timeRuns(reps, 30, [&] { (void)dpx::explicitFair(cn, e); });
        const auto um = timeRuns(reps, 30, [&] { (void)dpx::uniformMechanism(cn); });
        std::printf("RESULT case=closed mechanism=geometric n=%d median_s=%.6f\n", cn, median(gm));
        std::printf("RESULT case=closed mechanism=explicit-fair n=%d median_s=%.6f\n", cn,
                    median(em));
        std::printf("RESULT case=closed mechanism=uniform n=%d median_s=%.6f\n", cn, median(um));
    }
    return 0;
}
