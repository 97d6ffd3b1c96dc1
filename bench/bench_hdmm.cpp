// The matrix mechanism's strategy optimisation (issue #23) on the reference tasks, next
// to HDMM's reference code measured on this machine (../shared/peers/README.md; McKenna, Miklau,
// Hay & Machanavajjhala, VLDB 2018): for each task the RMSE at HDMM's default ε = √2 (Laplace
// noise of variance ‖A‖₁²·2/ε² = 1 per row) of the best of --restarts random starts, and the
// wall and CPU seconds of the whole optimisation (all restarts, run concurrently on --threads
// threads, 0 = every core; CPU seconds count every thread).
//   allrange256     AllRange(256), p-Identity(16)              HDMM 5.71–5.73 in 0.44 s
//   allrange2d_256 AllRange(256)², OPT⊗ p-Identity(16, 16)    HDMM 32.65–32.74 in 1.3 s
//   prefix1024      Prefix(1024), p-Identity(64)               HDMM 6.83 in 42 s
//   allrange1024    AllRange(1024), p-Identity(64)             HDMM 7.89 in 39 s
//   marginals8      all 2-way marginals of 8 binary attributes, OPT_M
//                   HDMM (templates.Marginals, seeds 0–2, measured here) RMSE 9.57, 9.25, 8.78
//                   in 0.52–0.74 s CPU
//   marginals16     all 2-way marginals of 16 binary attributes, OPT_M (issue: ≤ 10 s; HDMM's
//                   O(4^d) solves make this size impractical for the reference code)
//   range2d_256     2 000 random boxes on 256 × 256 (DPBench's RandomRange), OPT⊗ p-Identity(16)
//                   over the union of Kronecker products (no HDMM figure)
// --forms N[,N…]: the per-cell variance forms e_jᵀ(KᵀK)⁻¹e_j of a release through a stacked
//   (OPT₊) integer strategy (IntegerStrategy::cellVarianceForms, which planStrategyRelease needs
//   for the per-cell intervals), for "allrange + 0.5*identity" on N × N cells, timed alone, with
//   the largest difference from a second computation by one conjugate-gradient solve per cell.
// Figures on lines starting with "RESULT". bench/compare_hdmm.sh runs the peer itself.
#include <cmath>
#include <cstdio>
#include <string>

#include "bench/bench_util.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/matrix_mechanism/integer_strategy.h"
#include "core/workload/workload.h"

namespace {

using namespace dpx;

struct Task {
    std::string name;
    std::string workload;
    DomainShape shape;
    std::size_t p;
    double hdmmRmse, hdmmSeconds;
};

const Task kTasks[] = {
    {"allrange256", "allrange", {256}, 16, 5.72, 0.44},
    {"allrange2d_256", "allrange", {256, 256}, 16, 32.70, 1.3},
    {"prefix1024", "prefix", {1024}, 64, 6.83, 42},
    {"allrange1024", "allrange", {1024}, 64, 7.89, 39},
    {"marginals8", "marginals:2", DomainShape(8, 2), 0, 8.78, 0.62},
    {"marginals16", "marginals:2", DomainShape(16, 2), 0, NAN, NAN},
    {"range2d_256", "range:2000", {256, 256}, 16, NAN, NAN},
};

}  // namespace

int main(int argc, char** argv) {
    bench::Options opt(argc, argv,
                       {{"tasks", "allrange256,allrange2d_256,prefix1024,allrange1024"},
                        {"restarts", "3"},
                        {"seeds", "0,1,2"},
                        {"ftol", "1e-4"},
                        {"reps", "1"},
                        {"threads", "0"},
                        {"forms", ""}});
    bench::printHeader("matrix mechanism: HDMM strategy optimisation (issue #23)");
    const double eps = std::sqrt(2.0);
    for (const std::string& name : opt.list("tasks")) {
        const Task* task = nullptr;
        for (const Task& t : kTasks) {
            if (t.name == name) {
                task = &t;
            }
        }
        if (!task) {
            std::fprintf(stderr, "unknown task %s\n", name.c_str());
            return 2;
        }
        auto w = Workload::make(*WorkloadSpec::parse(task->workload), task->shape);
        if (!w) {
            std::fprintf(stderr, "%s\n", w.error().message.c_str());
            return 1;
        }
        // p = 0: the template has no p (OPT_M).
        const std::vector<std::size_t> p(task->p ? task->shape.size() : 0, task->p);
        for (const std::string& seed : opt.list("seeds")) {
            StrategyOptimizeOptions o;
            o.restarts = static_cast<std::size_t>(opt.integer("restarts"));
            o.seed = std::stoull(seed);
            o.minimizer.ftol = opt.real("ftol");
            o.threads = static_cast<unsigned>(opt.integer("threads"));
            std::vector<double> wall, cpu;
            double rmse = 0;
            std::size_t iterations = 0;
            std::string templ;
            for (long long r = 0; r < opt.integer("reps"); ++r) {
                const auto start = std::chrono::steady_clock::now();
                const double c0 = bench::processCpuSeconds();
                auto res = designStrategy(*w, p, o);
                cpu.push_back(bench::processCpuSeconds() - c0);
                wall.push_back(bench::secondsSince(start));
                if (!res) {
                    std::fprintf(stderr, "%s\n", res.error().message.c_str());
                    return 1;
                }
                rmse = res->rmse(eps);
                iterations = res->iterations;
                templ = res->templateName;
            }
            const double sec = bench::median(wall);
            std::printf(
                "RESULT task=%s seed=%s restarts=%zu rmse=%.4f hdmm_rmse=%.2f seconds=%.4f "
                "cpu_seconds=%.4f threads=%u iterations=%zu hdmm_seconds=%.2f speedup=%.1f "
                "template=\"%s\"\n",
                name.c_str(), seed.c_str(), o.restarts, rmse, task->hdmmRmse, sec,
                bench::median(cpu), o.threads, iterations, task->hdmmSeconds,
                task->hdmmSeconds / sec, templ.c_str());
        }
    }
    for (const std::string& side : opt.list("forms")) {
        const std::size_t n = std::stoul(side);
        auto w = Workload::make(*WorkloadSpec::parse("allrange + 0.5*identity"), {n, n});
        if (!w) {
            std::fprintf(stderr, "%s\n", w.error().message.c_str());
            return 1;
        }
        StrategyOptimizeOptions o;
        o.restarts = 1;
        auto d = designStrategy(*w, DesignTemplate::Union, {}, o);
        if (!d) {
            std::fprintf(stderr, "%s\n", d.error().message.c_str());
            return 1;
        }
        auto k = chooseIntegerStrategy(*w, *d);  // the release's own rounding
        if (!k) {
            std::fprintf(stderr, "%s\n", k.error().message.c_str());
            return 1;
        }
        const auto start = std::chrono::steady_clock::now();
        const double c0 = bench::threadCpuSeconds();
        auto forms = k->cellVarianceForms();
        const double cpu = bench::threadCpuSeconds() - c0, wall = bench::secondsSince(start);
        if (!forms) {
            std::printf("RESULT task=stack_forms cells=%zu refused=\"%s\"\n", n * n,
                        forms.error().message.c_str());
            continue;
        }
        // The reference: one conjugate-gradient solve per cell on the implicit K (a sample of
        // 64 cells, evenly spaced).
        const std::size_t cells = n * n;
        std::vector<double> e(cells, 0.0), out(cells);
        double worst = 0;
        const auto cg0 = std::chrono::steady_clock::now();
        std::size_t checked = 0;
        for (std::size_t j = 0; j < cells; j += std::max<std::size_t>(1, cells / 64), ++checked) {
            e[j] = 1;
            k->linear->solveGram(e, out);
            e[j] = 0;
            worst = std::max(worst, std::fabs(out[j] - (*forms)[j]) / out[j]);
        }
        const double cgPerCell = bench::secondsSince(cg0) / static_cast<double>(checked);
        std::printf(
            "RESULT task=stack_forms cells=%zu rows=%zu seconds=%.4f cpu_seconds=%.4f "
            "cg_seconds_per_cell=%.5f cg_seconds_all_cells_estimated=%.2f max_relative_diff=%.2e\n",
            cells, k->rows(), wall, cpu, cgPerCell, cgPerCell * static_cast<double>(cells), worst);
    }
    return 0;
}
