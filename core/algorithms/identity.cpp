// Identity (DPBench "Identity"; Dwork, McSherry, Nissim & Smith, TCC 2006): the Laplace
// mechanism on every cell, sensitivity 1 under one cell ±1; least squares is the noisy vector
// itself. Any number of dimensions.
#include "core/algorithms/least_squares_algorithm.h"
#include "core/algorithms/registry_list.h"

namespace dpx {

const Algorithm& identityAlgorithm() {
    static const LeastSquaresAlgorithm a(
        [] {
            AlgorithmInfo i;
            i.id = "Identity";
            i.name = "Identity (Laplace on every cell)";
            i.citation = "Dwork, McSherry, Nissim & Smith, TCC 2006";
            for (std::size_t d = 1; d <= 32; ++d) {
                i.dimensions.push_back(d);
            }
            i.docPage = "docs/algorithms/identity.md";
            return i;
        }(),
        [](const DomainShape& shape) -> Expected<std::unique_ptr<LinearStrategy>> {
            return identityStrategy(shape);
        });
    return a;
}

}  // namespace dpx
