// The data-independent algorithms of DPBench (issue #20) share one shape: pick a strategy matrix
// A that depends only on the domain, measure y = A·x + Laplace(Δ₁(A)/ε) per row, and answer with
// the least-squares x̂ = argmin ‖A·x̂ − y‖₂ (post-processing, so the run is ε-DP by the Laplace
// mechanism on A·x, whose L1 sensitivity under one cell ±1 is Δ₁(A)). This class is that shape;
// each algorithm's file gives its info and its strategy.
#pragma once

#include <functional>
#include <map>
#include <mutex>

#include "core/algorithms/algorithm.h"

namespace dpx {

class LeastSquaresAlgorithm : public Algorithm {
public:
    using StrategyFactory =
        std::function<Expected<std::unique_ptr<LinearStrategy>>(const DomainShape&)>;
    LeastSquaresAlgorithm(AlgorithmInfo info, StrategyFactory factory)
        : info_(std::move(info)), factory_(std::move(factory)) {}

    const AlgorithmInfo& info() const override { return info_; }
    // One step: all of ε on the Laplace measurement of the strategy's rows.
    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override;
    Expected<std::unique_ptr<LinearStrategy>> strategy(const DomainShape& shape,
                                                       const Workload& w) const override;

private:
    // The strategy depends only on the shape: built once per shape and shared by later runs
    // (const and stateless, so safe across threads); at most kCachedShapes shapes are kept.
    Expected<std::shared_ptr<const LinearStrategy>> cached(const DomainShape& shape) const;
    static constexpr std::size_t kCachedShapes = 8;

    AlgorithmInfo info_;
    StrategyFactory factory_;
    mutable std::mutex mutex_;
    mutable std::map<DomainShape, std::shared_ptr<const LinearStrategy>> cache_;
};

}  // namespace dpx
