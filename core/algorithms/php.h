// PHP (Ács, Castelluccia & Chen, ICDM 2012; core/algorithms/php.cpp): the piece of its utility
// exposed for the tests.
#pragma once

#include <span>
#include <vector>

namespace dpx {

// out[j] = Σ_{i<j} |v_i − mean(v_0..v_{j−1})| for j = 0..v.size(): the sum of absolute
// deviations (SAE) of every prefix, in O(m log m).
std::vector<double> phpPrefixSae(std::span<const double> v);

}  // namespace dpx
