// Privelet (Xiao, Wang & Gehrke, "Differential privacy via wavelet transforms", ICDE 2010) as
// DPBench runs it: the unnormalised Haar wavelet matrix (every coefficient a ±1 combination of a
// dyadic block's halves, plus the total) measured with Laplace noise of scale (log₂ n + 1)/ε,
// then least squares — for the square, invertible Haar matrix the inverse transform. In 2-D
// (Privelet2D) the Kronecker product of the 1-D wavelets. Every dimension a power of 2.
#include "core/algorithms/least_squares_algorithm.h"
#include "core/algorithms/registry_list.h"

namespace dpx {

namespace {

AlgorithmInfo priveletInfo(std::string id, std::size_t dims, std::string doc) {
    AlgorithmInfo i;
    i.id = std::move(id);
    i.name = dims == 1 ? "Haar wavelet (Privelet)" : "2-D Haar wavelet (Privelet)";
    i.citation = "Xiao, Wang & Gehrke, ICDE 2010";
    i.dimensions = {dims};
    i.docPage = std::move(doc);
    return i;
}

}  // namespace

const Algorithm& priveletAlgorithm() {
    static const LeastSquaresAlgorithm a(priveletInfo("Privelet", 1, "docs/algorithms/privelet.md"),
                                         [](const DomainShape& s) { return haarStrategy(s); });
    return a;
}

const Algorithm& privelet2dAlgorithm() {
    static const LeastSquaresAlgorithm a(
        priveletInfo("Privelet2D", 2, "docs/algorithms/privelet2d.md"),
        [](const DomainShape& s) { return haarStrategy(s); });
    return a;
}

}  // namespace dpx
