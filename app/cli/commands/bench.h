// dpx bench (issue #20): a DPBench-style study from the command line (Hay, Machanavajjhala,
// Miklau, Chen & Zhang, "Principled evaluation of differentially private algorithms using
// DPBench", SIGMOD 2016) — the grid datasets × domain sizes × scales × ε × algorithms ×
// workloads, T trials per cell, one JSON line per cell with the keys of the peer runners
// (../shared/peers/dpbench: dim, dataset, n, m, eps, algorithm, workload, L2, L2_se, L1, Linf,
// rmse, sec_median, status, peer "cpp"), so that their summarize.py shows both side by side.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "bench". Exit 0 when every cell ran, 1 when some cell failed (its line says why),
// 2 for invalid options.
int cmdBench(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
