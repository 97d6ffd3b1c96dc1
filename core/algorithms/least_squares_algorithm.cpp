// Measure a data-independent strategy with Laplace noise, infer by least squares (issue #20).
#include "core/algorithms/least_squares_algorithm.h"

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"

namespace dpx {

Expected<std::unique_ptr<LinearStrategy>> LeastSquaresAlgorithm::strategy(
    const DomainShape& shape, const Workload& /*w*/) const {
    bool supported = false;
    for (std::size_t d : info_.dimensions) {
        supported = supported || d == shape.size();
    }
    if (!supported) {
        return Error{info_.id + " does not run on " + std::to_string(shape.size()) + "-D data"};
    }
    return factory_(shape);
}

Expected<std::shared_ptr<const LinearStrategy>> LeastSquaresAlgorithm::cached(
    const DomainShape& shape) const {
    {
        const std::lock_guard lock(mutex_);
        if (auto it = cache_.find(shape); it != cache_.end()) {
            return it->second;
        }
    }
    auto s = factory_(shape);  // outside the lock: building a large tree takes milliseconds
    if (!s) {
        return s.error();
    }
    std::shared_ptr<const LinearStrategy> shared = std::move(s).value();
    const std::lock_guard lock(mutex_);
    if (cache_.size() >= kCachedShapes) {
        cache_.clear();
    }
    cache_.emplace(shape, shared);
    return shared;
}

Expected<AlgorithmRun> LeastSquaresAlgorithm::run(const AlgorithmContext& context) const {
    auto params = checkAlgorithmContext(info_, context);
    if (!params) {
        return params.error();
    }
    auto s = cached(context.shape);
    if (!s) {
        return Error{info_.id + ": " + s.error().message};
    }
    const LinearStrategy& a = **s;
    auto y = measureLaplace(a, context.x, context.epsilon, *context.rng);
    if (!y) {
        return y.error();
    }
    AlgorithmRun run;
    run.estimate.resize(context.x.size());
    a.leastSquares(*y, run.estimate);
    run.spent.push_back({"Laplace measurement of the " + std::to_string(a.rows()) +
                             " rows of the " + a.describe() + " (sensitivity " +
                             formatNumber(a.sensitivityL1()) + ")",
                         context.epsilon});
    run.summary = info_.id + ": " + a.describe() + ", least squares";
    return run;
}

}  // namespace dpx
