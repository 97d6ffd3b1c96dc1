// HDMM as an algorithm of the workbench family (issue #23): the matrix mechanism with a strategy
// designed for the run's workload (core/matrix_mechanism/hdmm.h — OPT₀ p-Identity in 1-D, OPT⊗
// for product workloads in 2-D; McKenna, Miklau, Hay & Machanavajjhala, VLDB 2018), answered by
// least squares. Data-independent: the design reads the workload and the domain only, with a
// fixed seed, so it is the same for every run and cached; all of ε goes to the one measurement,
// least squares is post-processing.
//   Laplace (default): the design minimises ‖A‖₁²·trace((AᵀA)⁻¹WᵀW) with ‖A‖₁ = 1, and A·x is
//     measured with Laplace(‖A‖₁/ε) per row: ε-DP (the L1 sensitivity of A·x under one cell ±1
//     is ‖A‖₁, the largest column L1 norm).
//   Gaussian (session 33, context.measurement = Gaussian, 0 < δ < 1): the design minimises
//     ‖A‖₂²·trace((AᵀA)⁻¹WᵀW) (StrategyOptimizeOptions::measurement, the same design as the
//     Strategy tab's dashed "Optimised for Gaussian" curve), and A·x is measured with N(0, σ²)
//     per row, σ = the analytic Gaussian mechanism of Balle & Wang 2018 at (ε, δ) on Δ₂(A), the
//     largest column L2 norm (measureStrategy, core/workload/strategy.h): (ε, δ)-DP.
// The exact expected error is then σ²·trace(W(AᵀA)⁻¹Wᵀ) for the same A (strategyFor).
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/registry_list.h"
#include "core/base/validation.h"
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
            "docs/algorithms/hdmm.md",
            true};
        return i;
    }

    Expected<std::unique_ptr<LinearStrategy>> strategy(const DomainShape& shape,
                                                       const Workload& w) const override {
        return strategyFor(shape, w, MeasurementNoise::Laplace);
    }

    Expected<std::unique_ptr<LinearStrategy>> strategyFor(const DomainShape& shape,
                                                          const Workload& w,
                                                          MeasurementNoise noise) const override {
        auto d = designed(shape, w, 0, 3, noise, {});
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
        auto d = designed(
            context.shape, *context.workload, static_cast<std::size_t>(values->at("p")),
            static_cast<std::size_t>(values->at("restarts")), context.measurement, context.stop);
        if (!d) {
            return Error{"HDMM: " + d.error().message};
        }
        const LinearStrategy& a = *(*d)->strategy;
        const MeasurementSpec spec = algorithmMeasurement(context);
        auto y = measureStrategy(a, context.x, spec, *context.rng);
        if (!y) {
            return Error{"HDMM: " + y.error().message};
        }
        AlgorithmRun out;
        out.estimate.assign(context.x.size(), 0.0);
        a.leastSquares(*y, out.estimate);
        const bool gaussian = spec.noise == MeasurementNoise::Gaussian;
        out.spent.push_back(
            {(gaussian ? "Gaussian measurement (analytic, Balle & Wang 2018; δ = " +
                             formatNumber(spec.delta) + ") of the "
                       : std::string("Laplace measurement of the ")) +
                 std::to_string(a.rows()) + " rows of the designed strategy (" +
                 (gaussian ? "Δ₂(A) = " + formatNumber(a.sensitivityL2()) : "‖A‖₁ = 1") + ")",
             context.epsilon});
        out.summary =
            "HDMM: " + (*d)->templateName + (gaussian ? ", Gaussian" : "") + ", least squares";
        return out;
    }

private:
    using Key = std::tuple<DomainShape, std::string, std::size_t, std::size_t, MeasurementNoise>;
    static constexpr std::size_t kCached = 8;

    // The design for (shape, workload, p, restarts, law): deterministic (seed 0), so computed
    // once.
    Expected<std::shared_ptr<const DesignedStrategy>> designed(const DomainShape& shape,
                                                               const Workload& w, std::size_t p,
                                                               std::size_t restarts,
                                                               MeasurementNoise noise,
                                                               std::stop_token stop) const {
        const Key key{shape, w.spec().text(), p, restarts, noise};
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
        o.measurement = noise;
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
