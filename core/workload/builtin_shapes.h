// Built-in data shapes for benchmarks and previews (issue #20): synthetic histograms standing in
// for a user's table in dpx bench, bench/bench_algorithms and the Workbench tab when no data is
// loaded. Each is a vector of non-negative weights over a 1-D or k-D domain (C order), a
// distribution to resample m records from (data_scale.h), like DPBench's datasets (Hay et al.,
// SIGMOD 2016, §5). Deterministic: the same name and shape always give the same weights.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"
#include "core/workload/workload.h"

namespace dpx {

// "uniform"  every cell 1 (the shape Uniform is exact on);
// "step"     piecewise constant: 16 runs of equal length per dimension with levels spread over
//            two orders of magnitude (DAWA's and AHP's favourable case);
// "gauss"    a normal bump centred in the domain, sd 1/12 of each dimension (a product in k-D);
// "zipf"     weight 1/(i+1) along each dimension (a product in k-D): a heavy head, a long tail;
// "sparse"   about 1 % of the cells non-empty, with weights 1…100 (sparse real data such as
//            DPBench's NETTRACE or SEARCHLOGS, where data-dependent algorithms win at small m).
const std::vector<std::string>& builtinShapeNames();

// The weights of shape `name` (case-sensitive) over `shape` (validateShape). Unknown names list
// the known ones.
Expected<std::vector<double>> builtinShape(std::string_view name, const DomainShape& shape);

}  // namespace dpx
