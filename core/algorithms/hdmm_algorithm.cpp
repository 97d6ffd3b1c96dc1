// HDMM as an algorithm of the workbench family (issue #23): the matrix mechanism with a strategy
// designed for the run's workload (core/matrix_mechanism/hdmm.h — OPT₀ p-Identity in 1-D, OPT⊗
// for product workloads in 2-D; McKenna, Miklau, Hay & Machanavajjhala, VLDB 2018), measured with
// Laplace(‖A‖₁/ε) = Laplace(1/ε) per row and answered by least squares. Data-independent: the
// design reads the workload and the domain only, with a fixed seed, so it is the same for every
// run and cached; all of ε goes to the one measurement (the Laplace mechanism on A·x, whose L1
// sensitivity under one cell ±1 is ‖A‖₁ = 1), least squares is post-processing.
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/registry_list.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/workload/strategy.h"

namespace dpx {

namespace {

class HdmmAlgorithm final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "HDMM",
            "Matrix mechanism with a strategy optimised for the workload",
            "McKenna, Miklau, Hay & Machanavajjhala, PVLDB 2018",
            {1, 2},
            false,
            true,
            false,
            {{"p", 0, 0, 4096, true, "extra rows of the p-Identity per attribute (0: HDMM's n/16)"},
             {"restarts", 3, 1, 20, true, "random starts of the optimisation (the best is kept)"}},
            "docs/algorithms/hdmm.md"};
        return i;
    }

    Expected<std::unique_ptr<LinearStrategy>> strategy(const DomainShape& shape,
                                                       const Workload& w) const override {
        auto d = designed(shape, w, 0, 3, {});
        if (!d) {
            return d.error();
        }
        return strategyOf(shape, **d);
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto values = checkAlgorithmContext(info(), context);
        if (!values) {
            return values.error();
        }
        auto d =
            designed(context.shape, *context.workload, static_cast<std::size_t>(values->at("p")),
                     static_cast<std::size_t>(values->at("restarts")), context.stop);
        if (!d) {
            return Error{"HDMM: " + d.error().message};
        }
        const LinearStrategy& a = *(*d)->strategy;
        auto y = measureLaplace(a, context.x, context.epsilon, *context.rng);
        if (!y) {
            return y.error();
        }
        AlgorithmRun out;
        out.estimate.assign(context.x.size(), 0.0);
        a.leastSquares(*y, out.estimate);
        out.spent.push_back({"Laplace measurement of the " + std::to_string(a.rows()) +
                                 " rows of the designed strategy (‖A‖₁ = 1)",
                             context.epsilon});
        out.summary = "HDMM: " + (*d)->templateName + ", least squares";
        return out;
    }

private:
    using Key = std::tuple<DomainShape, std::string, std::size_t, std::size_t>;
    static constexpr std::size_t kCached = 8;

    // The design for (shape, workload, p, restarts): deterministic (seed 0), so computed once.
    Expected<std::shared_ptr<const DesignedStrategy>> designed(const DomainShape& shape,
                                                               const Workload& w, std::size_t p,
                                                               std::size_t restarts,
                                                               std::stop_token stop) const {
        const Key key{shape, w.spec().text(), p, restarts};
        {
            const std::lock_guard lock(mutex_);
            if (auto it = cache_.find(key); it != cache_.end()) {
                return it->second;
            }
        }
        std::vector<std::size_t> ps;
        if (p > 0) {
            ps.assign(shape.size(), p);
        }
        StrategyOptimizeOptions o;
        o.restarts = restarts;
        o.seed = 0;
        auto d = designStrategy(w, ps, o, std::move(stop));  // outside the lock: seconds
        if (!d) {
            return d.error();
        }
        auto shared = std::make_shared<const DesignedStrategy>(std::move(d).value());
        const std::lock_guard lock(mutex_);
        if (cache_.size() >= kCached) {
            cache_.clear();
        }
        cache_.emplace(key, shared);
        return shared;
    }

    mutable std::mutex mutex_;
    mutable std::map<Key, std::shared_ptr<const DesignedStrategy>> cache_;
};

}  // namespace

const Algorithm& hdmmAlgorithm() {
    static const HdmmAlgorithm a;
    return a;
}

}  // namespace dpx
