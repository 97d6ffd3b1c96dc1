// The DPBench algorithm family (issue #20): every registered algorithm at DPBench's domains —
// 4 096 cells (1-D) and 256 × 256 (2-D) — on the RandomRange workload of 2 000 queries (seed
// 9001), m records drawn from a generated shape (core/workload/builtin_shapes.h) or from a .npy
// histogram given with --npy1d / --npy2d (e.g. ../shared/data/dpbench/PATENT.n4096.npy). For
// each: the median seconds of one run (selection, measurement and inference; one thread), the
// mean DPBench scaled L2 error ± its standard error over the runs, and ektelo's median on this
// machine from the issue (../shared/peers/README.md) with the speed-up against it (target ≥ 10×).
// Figures on lines starting with "RESULT". bench/compare_dpbench.sh runs the peers themselves.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/algorithms/algorithm_error.h"
#include "core/base/simulation_rng.h"
#include "core/table/npy.h"
#include "core/workload/builtin_shapes.h"
#include "core/workload/data_scale.h"

namespace {

using namespace dpx;

// ektelo's median seconds per run on this machine, RandomRange(2000) (the table).
const std::map<std::string, double> kEkteloSeconds1d{
    {"Identity", 0.001}, {"HB", 0.006}, {"Privelet", 0.015}, {"H2", 0.018},
    {"AHP", 0.91},       {"MWEM", 1.2}, {"DAWA", 4.3},       {"GreedyH", 25.7}};
const std::map<std::string, double> kEkteloSeconds2d{
    {"UGrid", 0.030}, {"Privelet2D", 0.056}, {"HB2D", 0.073}, {"QuadTree", 0.110},
    {"AGrid", 0.61},  {"DAWA2D", 3.3},       {"MWEM", 12.4}};

// The weights of the case: a .npy histogram (its own shape) or a built-in shape.
Expected<std::pair<DomainShape, std::vector<double>>> loadShape(const std::string& npy,
                                                                const std::string& shapeName,
                                                                const DomainShape& base) {
    if (npy.empty()) {
        auto x = builtinShape(shapeName, base);
        if (!x) {
            return x.error();
        }
        return std::make_pair(base, std::move(*x));
    }
    std::ifstream f(npy, std::ios::binary);
    if (!f) {
        return Error{"cannot open " + npy};
    }
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto parsed = parseNpyCounts(bytes);
    if (!parsed) {
        return Error{npy + ": " + parsed.error().message};
    }
    DomainShape shape;
    for (std::uint64_t s : parsed->table.shape()) {
        shape.push_back(static_cast<std::size_t>(s));
    }
    std::vector<double> x;
    for (std::int64_t c : parsed->table.denseCounts()) {
        x.push_back(static_cast<double>(c));
    }
    if (shape != base) {
        auto c = coarsen(x, shape, base);
        if (!c) {
            return Error{npy + ": " + c.error().message};
        }
        x = std::move(*c);
    }
    return std::make_pair(base, std::move(x));
}

}  // namespace

int main(int argc, char** argv) {
    const bench::Options opt(argc, argv,
                             {{"shape", "step"},
                              {"npy1d", ""},
                              {"npy2d", ""},
                              {"m", "100000"},
                              {"epsilon", "1"},
                              {"runs", "5"},
                              {"queries", "2000"},
                              {"algorithms", "all"},
                              {"seed", "1"}});
    bench::printHeader("DPBench algorithms at domain 4096 and 256x256, RandomRange workload");
    const auto m = static_cast<std::uint64_t>(opt.integer("m"));
    const double eps = opt.real("epsilon");
    const auto runs = static_cast<std::uint64_t>(opt.integer("runs"));
    std::vector<std::string> only = opt.list("algorithms");
    const bool all = only.size() == 1 && only[0] == "all";
    int failures = 0;
    for (const DomainShape& base : {DomainShape{4096}, DomainShape{256, 256}}) {
        const bool twoD = base.size() == 2;
        auto weights = loadShape(opt.str(twoD ? "npy2d" : "npy1d"), opt.str("shape"), base);
        if (!weights) {
            std::fprintf(stderr, "error: %s\n", weights.error().message.c_str());
            return 2;
        }
        SimulationRng dataRng(0, 0);
        auto x = resample(weights->second, m, dataRng);
        if (!x) {
            std::fprintf(stderr, "error: %s\n", x.error().message.c_str());
            return 2;
        }
        auto spec = WorkloadSpec::parse("range:" + opt.str("queries") + ":seed=9001");
        auto w = spec ? Workload::make(*spec, base) : Expected<Workload>(spec.error());
        if (!w) {
            std::fprintf(stderr, "error: %s\n", w.error().message.c_str());
            return 2;
        }
        const std::string data = opt.str(twoD ? "npy2d" : "npy1d").empty()
                                     ? "shape " + opt.str("shape")
                                     : opt.str(twoD ? "npy2d" : "npy1d");
        std::printf("# domain %s, %s, m = %llu, epsilon %g, %s, %llu runs each\n",
                    twoD ? "256x256" : "4096", data.c_str(), static_cast<unsigned long long>(m),
                    eps, w->describe().c_str(), static_cast<unsigned long long>(runs));
        const auto& peers = twoD ? kEkteloSeconds2d : kEkteloSeconds1d;
        for (const Algorithm* alg : allAlgorithms()) {
            const AlgorithmInfo& info = alg->info();
            bool runsHere = false;
            for (std::size_t d : info.dimensions) {
                runsHere = runsHere || d == base.size();
            }
            bool chosen = all;
            for (const std::string& id : only) {
                chosen = chosen || id == info.id;
            }
            if (!runsHere || !chosen) {
                continue;
            }
            AlgorithmErrorRequest req;
            req.algorithm = alg;
            req.shape = base;
            req.x = *x;
            req.workload = &*w;
            req.epsilon = eps;
            req.trials = runs;
            req.seed = static_cast<std::uint64_t>(opt.integer("seed"));
            req.threads = 1;  // one run at a time: seconds comparable with the peer's
            auto r = algorithmError(req);
            if (!r) {
                std::printf("RESULT algorithm=%s domain=%s status=error message=\"%s\"\n",
                            info.id.c_str(), twoD ? "256x256" : "4096", r.error().message.c_str());
                ++failures;
                continue;
            }
            const auto peer = peers.find(info.id);
            std::printf("RESULT algorithm=%s domain=%s median_s=%.6f L2=%.4e L2_se=%.1e",
                        info.id.c_str(), twoD ? "256x256" : "4096", r->secondsMedian,
                        r->scaledL2.mean, r->scaledL2.standardError);
            if (peer != peers.end()) {
                std::printf(" ektelo_s=%.3f speedup=%.1f", peer->second,
                            peer->second / r->secondsMedian);
            }
            std::printf("\n");
            std::fflush(stdout);
        }
    }
    return failures == 0 ? 0 : 1;
}
