// Uniform (DPBench "Uniform"; Hay, Machanavajjhala, Miklau, Chen & Zhang, SIGMOD 2016): all of ε
// on the total (Laplace, sensitivity 1), spread evenly over the cells — the least-squares
// (minimum-norm) answer of the one-row strategy 1ᵀ. Its error is mostly the bias of assuming a
// flat shape, so it depends on the data: DPBench counts it among the data-dependent baselines,
// and it has no exact expected error here (Monte Carlo only).
#include <cmath>

#include "core/algorithms/registry_list.h"
#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"

namespace dpx {

namespace {

class UniformAlgorithm final : public Algorithm {
public:
    UniformAlgorithm() {
        info_.id = "Uniform";
        info_.name = "Uniform (noisy total spread evenly)";
        info_.citation = "Hay, Machanavajjhala, Miklau, Chen & Zhang, SIGMOD 2016";
        info_.dimensions = {1, 2};
        info_.dataDependent = true;
        info_.docPage = "docs/algorithms/uniform.md";
    }
    const AlgorithmInfo& info() const override { return info_; }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto params = checkAlgorithmContext(info_, context);
        if (!params) {
            return params.error();
        }
        long double total = 0;
        for (double v : context.x) {
            total += v;
        }
        const double noisy =
            static_cast<double>(total) +
            sampleNoise(NoiseDistribution::laplace(1 / context.epsilon), *context.rng);
        AlgorithmRun run;
        run.estimate.assign(context.x.size(), noisy / static_cast<double>(context.x.size()));
        run.spent.push_back({"Laplace measurement of the total (sensitivity 1)", context.epsilon});
        run.summary =
            "Uniform: noisy total spread over " + std::to_string(context.x.size()) + " cells";
        return run;
    }

    Expected<std::unique_ptr<LinearStrategy>> strategy(const DomainShape& /*shape*/,
                                                       const Workload& /*w*/) const override {
        return Error{
            "Uniform's error is mostly the bias of a flat estimate, which depends on "
            "the data: it has no data-free exact error (use Monte Carlo trials)"};
    }

private:
    AlgorithmInfo info_;
};

}  // namespace

const Algorithm& uniformAlgorithm() {
    static const UniformAlgorithm a;
    return a;
}

}  // namespace dpx
