// Errors of an estimate on a workload (issue #20): realized for one draw, with DPBench's scaled
// per-query error as defined by dpcomp_core metric.py calculate_error() (Hay, Machanavajjhala,
// Miklau, Chen & Zhang, "Principled Evaluation of Differentially Private Algorithms using
// DPBench", SIGMOD 2016): with d = W·x̂ − W·x over q queries and the data size m,
//   L2 = ‖d‖₂ / q / m   (DPBench's headline "scaled average per-query error")
//   L1 = ‖d‖₁ / q / m,  L∞ = ‖d‖∞ / m.
//
// CONTRACT (issue #20; implemented by helper "workload").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/base/expected.h"
#include "core/workload/workload.h"

namespace dpx {

struct WorkloadError {
    std::uint64_t queries = 0;
    double sumAbs = 0;             // ‖d‖₁
    double sumSquares = 0;         // ‖d‖₂²
    double maxAbs = 0;             // ‖d‖∞
    double rmse = 0;               // ‖d‖₂ / √q
    double scaledL2 = 0;           // DPBench: ‖d‖₂ / q / m
    double scaledL1 = 0;           // ‖d‖₁ / q / m
    double scaledLinf = 0;         // ‖d‖∞ / m
    std::vector<double> perQuery;  // d_q in query order, when asked (explicit workloads only)
};

// `scale` is m (DPBench's norm_factor), > 0. For workloads too large to list, sumSquares comes
// from dᵀ(WᵀW)d with d = x̂ − x (implicit Gram, never the queries), and sumAbs / maxAbs are
// computed by enumeration only up to 2^27 queries — beyond that they are NaN and the message in
// the caller says so. Errors: sizes differ, non-finite values, scale ≤ 0.
Expected<WorkloadError> workloadError(const Workload& w, std::span<const double> truth,
                                      std::span<const double> estimate, double scale,
                                      bool keepPerQuery = false);

}  // namespace dpx
