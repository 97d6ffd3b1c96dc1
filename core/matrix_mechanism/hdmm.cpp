#include "core/matrix_mechanism/hdmm.h"

#include <algorithm>

#include "core/matrix_mechanism/gram_operator.h"

namespace dpx {

std::size_t defaultPIdentityP(std::size_t n) {
    return std::max<std::size_t>(1, n / 16);
}

Expected<std::unique_ptr<LinearStrategy>> strategyFromDesign(
    const DomainShape& shape, const std::vector<std::size_t>& p,
    const std::vector<std::vector<double>>& theta) {
    if (shape.empty() || p.size() != shape.size() || theta.size() != shape.size()) {
        return Error{"strategy design: one p and one Θ per dimension are needed"};
    }
    std::vector<std::unique_ptr<LinearStrategy>> factors;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        auto s = PIdentityStrategy::make(shape[d], p[d], theta[d]);
        if (!s) {
            return s.error();
        }
        factors.push_back(std::move(s).value());
    }
    if (factors.size() == 1) {
        return std::move(factors[0]);
    }
    return kroneckerStrategy(std::move(factors));
}

Expected<DesignedStrategy> designStrategy(const Workload& w, std::vector<std::size_t> p,
                                          const StrategyOptimizeOptions& options,
                                          std::stop_token stop, const ProgressCallback& progress) {
    const std::size_t dims = w.shape().size();
    if (dims > 1 && !isProductKind(w.spec().kind)) {
        return Error{"strategy design: " + w.describe() +
                     " over several attributes is not a product of one-dimensional workloads; "
                     "it needs HDMM's union-of-Kronecker (OPT₊) or marginals (OPT_M) templates, "
                     "which DP Explorer does not have yet — design on one attribute, or use "
                     "prefixes, all ranges or rectangles"};
    }
    if (p.empty()) {
        for (std::size_t n : w.shape()) {
            p.push_back(defaultPIdentityP(n));
        }
    }
    if (p.size() != dims) {
        return Error{"strategy design: " + std::to_string(p.size()) + " values of p for " +
                     std::to_string(dims) + " dimensions"};
    }
    DesignedStrategy out;
    out.queries = w.queryCount();
    out.p = p;
    out.objective = 1;
    // Dimensions with the same factor workload and p share one optimisation (same optimum).
    struct Done {
        WorkloadSpec spec;
        std::size_t n, p;
        std::vector<double> theta;
        double objective;
    };
    std::vector<Done> done;
    for (std::size_t d = 0; d < dims; ++d) {
        const ProgressCallback sub = [&](double f) {
            if (progress) {
                progress((static_cast<double>(d) + f) / static_cast<double>(dims));
            }
        };
        Expected<Workload> factor = dims == 1 ? Expected<Workload>(w) : productFactor(w, d);
        if (!factor) {
            return factor.error();
        }
        const auto same = std::find_if(done.begin(), done.end(), [&](const Done& x) {
            return x.spec == factor->spec() && x.n == w.shape()[d] && x.p == p[d];
        });
        double objective = 0;
        std::vector<double> theta;
        if (same != done.end()) {
            theta = same->theta;
            objective = same->objective;
        } else {
            auto g = GramOperator::of(*factor);
            if (!g) {
                return g.error();
            }
            auto r = optimizePIdentity(*g, p[d], options, stop, sub);
            if (!r) {
                return r.error();
            }
            out.iterations += r->iterations;
            objective = r->objective;
            theta = r->strategy->theta();
            done.push_back({factor->spec(), w.shape()[d], p[d], theta, objective});
        }
        out.factorObjectives.push_back(objective);
        out.objective *= objective;
        out.theta.push_back(std::move(theta));
    }
    auto strategy = strategyFromDesign(w.shape(), p, out.theta);
    if (!strategy) {
        return strategy.error();
    }
    out.strategy = std::move(strategy).value();
    if (dims == 1) {
        out.templateName = "OPT₀ p-Identity(" + std::to_string(p[0]) + ")";
    } else {
        out.templateName = "OPT⊗";
        for (std::size_t d = 0; d < dims; ++d) {
            out.templateName +=
                (d ? " ⊗ " : " ") + std::string("p-Identity(") + std::to_string(p[d]) + ")";
        }
    }
    if (progress) {
        progress(1.0);
    }
    return out;
}

}  // namespace dpx
