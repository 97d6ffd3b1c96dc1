#include "core/matrix_mechanism/hdmm.h"

#include <algorithm>
#include <cmath>

#include "core/matrix_mechanism/gram_operator.h"
#include "core/matrix_mechanism/kronecker_union.h"
#include "core/matrix_mechanism/marginals_strategy.h"

namespace dpx {

std::size_t defaultPIdentityP(std::size_t n) {
    return std::max<std::size_t>(1, n / 16);
}

Expected<std::unique_ptr<LinearStrategy>> strategyFromDesign(
    const DomainShape& shape, const std::vector<std::size_t>& p,
    const std::vector<std::vector<double>>& theta, MeasurementNoise norm) {
    if (shape.empty() || p.size() != shape.size() || theta.size() != shape.size()) {
        return Error{"strategy design: one p and one Θ per dimension are needed"};
    }
    std::vector<std::unique_ptr<LinearStrategy>> factors;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        auto s = PIdentityStrategy::make(shape[d], p[d], theta[d], norm);
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

const char* designTemplateName(DesignTemplate t) {
    switch (t) {
        case DesignTemplate::Automatic:
            return "auto";
        case DesignTemplate::PIdentity:
            return "pidentity";
        case DesignTemplate::Marginals:
            return "marginals";
        case DesignTemplate::Union:
            return "union";
    }
    return "auto";
}

Expected<DesignTemplate> designTemplateFromName(const std::string& name) {
    for (DesignTemplate t : {DesignTemplate::Automatic, DesignTemplate::PIdentity,
                             DesignTemplate::Marginals, DesignTemplate::Union}) {
        if (name == designTemplateName(t)) {
            return t;
        }
    }
    return Error{"unknown strategy template '" + name + "' (auto, pidentity, marginals, union)"};
}

Expected<std::unique_ptr<LinearStrategy>> strategyOf(const DomainShape& shape,
                                                     const DesignedStrategy& design) {
    if (design.kind == DesignTemplate::Union) {
        std::vector<std::unique_ptr<LinearStrategy>> parts;
        for (const auto& part : design.parts) {
            auto s = strategyOf(shape, *part);
            if (!s) {
                return s.error();
            }
            parts.push_back(std::move(s).value());
        }
        return stackedStrategy(std::move(parts), design.partScales);
    }
    if (design.kind == DesignTemplate::Marginals) {
        auto m = MarginalsStrategy::make(shape, design.marginalWeights);
        if (!m) {
            return m.error();
        }
        return std::unique_ptr<LinearStrategy>(std::move(m).value());
    }
    return strategyFromDesign(shape, design.p, design.theta, design.measurement);
}

const char* measurementName(MeasurementNoise m) {
    return m == MeasurementNoise::Gaussian ? "gaussian" : "laplace";
}

Expected<MeasurementNoise> measurementFromName(const std::string& name) {
    for (MeasurementNoise m : {MeasurementNoise::Laplace, MeasurementNoise::Gaussian}) {
        if (name == measurementName(m)) {
            return m;
        }
    }
    return Error{"unknown measurement '" + name + "' (laplace, gaussian)"};
}

Expected<double> designRmse(const DesignedStrategy& design, const MeasurementSpec& spec) {
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    if (spec.noise != design.measurement) {
        return Error{std::string("the strategy was designed for ") +
                     (design.measurement == MeasurementNoise::Laplace ? "Laplace" : "Gaussian") +
                     " measurement; its objective does not give the error under the other law"};
    }
    if (design.queries == 0) {
        return Error{"the design has no queries"};
    }
    if (spec.noise == MeasurementNoise::Laplace) {
        return laplaceRmse(design.objective, design.queries, spec.epsilon);
    }
    GaussianParams g;
    g.epsilon = spec.epsilon;
    g.delta = spec.delta;
    g.l2Sensitivity = 1;
    g.calibration = spec.calibration;
    auto sigma = gaussianSigma(g);
    if (!sigma) {
        return sigma.error();
    }
    return gaussianRmse(design.objective, design.queries, *sigma);
}

namespace {

// Rebuilds the design's strategy from its parameters into design.strategy.
Status attachStrategy(const DomainShape& shape, DesignedStrategy& design) {
    auto s = strategyOf(shape, design);
    if (!s) {
        return s.error();
    }
    design.strategy = std::move(s).value();
    return okStatus();
}

std::string pIdentityName(const std::vector<std::size_t>& p) {
    if (p.size() == 1) {
        return "OPT₀ p-Identity(" + std::to_string(p[0]) + ")";
    }
    std::string name = "OPT⊗";
    for (std::size_t d = 0; d < p.size(); ++d) {
        name += (d ? " ⊗ " : " ") + std::string("p-Identity(") + std::to_string(p[d]) + ")";
    }
    return name;
}

Expected<DesignedStrategy> designMarginals(const Workload& w,
                                           const StrategyOptimizeOptions& options,
                                           std::stop_token stop, const ProgressCallback& progress) {
    auto weights = marginalsWorkloadWeights(w);
    if (!weights) {
        return weights.error();
    }
    auto r = optimizeMarginals(w.shape(), *weights, options, std::move(stop), progress);
    if (!r) {
        return r.error();
    }
    DesignedStrategy out;
    out.kind = DesignTemplate::Marginals;
    out.measurement = options.measurement;
    out.queries = w.queryCount();
    out.objective = r->objective;
    out.iterations = r->iterations;
    out.marginalWeights = std::move(r->theta);
    out.restartObjectives = std::move(r->restartObjectives);
    if (auto st = attachStrategy(w.shape(), out); !st) {
        return st.error();
    }
    const auto* m = dynamic_cast<const MarginalsStrategy*>(out.strategy.get());
    out.templateName = "OPT_M marginals (" + std::to_string(m->active().size()) + " of " +
                       std::to_string(out.marginalWeights.size()) + " measured)";
    return out;
}

Expected<DesignedStrategy> designKroneckerUnion(const Workload& w, std::vector<std::size_t> p,
                                                const StrategyOptimizeOptions& options,
                                                std::stop_token stop,
                                                const ProgressCallback& progress) {
    auto terms = kroneckerTerms(w);
    if (!terms) {
        return terms.error();
    }
    auto r = optimizeKroneckerUnion(*terms, p, options, 10, std::move(stop), progress);
    if (!r) {
        return r.error();
    }
    DesignedStrategy out;
    out.kind = DesignTemplate::PIdentity;
    out.measurement = options.measurement;
    out.queries = w.queryCount();
    out.objective = r->objective;
    out.iterations = r->iterations;
    out.rounds = r->rounds;
    out.p = std::move(p);
    out.theta = std::move(r->theta);
    if (auto st = attachStrategy(w.shape(), out); !st) {
        return st.error();
    }
    out.templateName = pIdentityName(out.p) + " (union of Kronecker products, " +
                       std::to_string(out.rounds) + " rounds)";
    return out;
}

Expected<DesignedStrategy> designUnion(const Workload& w, const std::vector<std::size_t>& p,
                                       const StrategyOptimizeOptions& options, std::stop_token stop,
                                       const ProgressCallback& progress) {
    if (w.spec().kind != WorkloadKind::Union || w.parts().size() < 2) {
        return Error{
            "strategy design: HDMM's OPT₊ needs a union of workloads (e.g. "
            "'prefix + marginals:1'); " +
            w.describe() + " is not one"};
    }
    DesignedStrategy out;
    out.kind = DesignTemplate::Union;
    out.measurement = options.measurement;
    out.queries = w.queryCount();
    out.objectiveIsBound = true;
    const bool l2 = options.measurement == MeasurementNoise::Gaussian;
    const std::size_t k = w.parts().size();
    // Laplace: s_i ∝ (c_i² f_i)^{1/3}; Gaussian: s_i² ∝ c_i√f_i (see hdmm.h).
    std::vector<double> cube(k);
    double sum = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const ProgressCallback sub = [&](double f) {
            if (progress) {
                progress((static_cast<double>(i) + f) / static_cast<double>(k));
            }
        };
        auto d = designStrategy(w.parts()[i], DesignTemplate::Automatic, p, options, stop, sub);
        if (!d) {
            return Error{"OPT₊, part " + std::to_string(i + 1) + ": " + d.error().message};
        }
        const double c = w.spec().partWeights[i];
        cube[i] = l2 ? c * std::sqrt(d->objective) : std::cbrt(c * c * d->objective);
        sum += cube[i];
        out.iterations += d->iterations;
        out.parts.push_back(std::make_unique<DesignedStrategy>(std::move(d).value()));
    }
    out.templateName = "OPT₊ (";
    for (std::size_t i = 0; i < k; ++i) {
        // Under L2 the part's rebuilt strategy may not have unit L2 columns (OPT_M keeps
        // Σθ = 1): divide by its own ‖A_i‖₂ so the stacked part has norm s_i.
        out.partScales.push_back(l2 ? std::sqrt(cube[i] / sum) /
                                          out.parts[i]->strategy->sensitivityL2()
                                    : cube[i] / sum);
        out.templateName += (i ? "; " : "") + out.parts[i]->templateName;
    }
    out.templateName += ")";
    out.objective = l2 ? sum * sum : sum * sum * sum;
    if (auto st = attachStrategy(w.shape(), out); !st) {
        return st.error();
    }
    if (progress) {
        progress(1.0);
    }
    return out;
}

}  // namespace

Expected<DesignedStrategy> designStrategy(const Workload& w, std::vector<std::size_t> p,
                                          const StrategyOptimizeOptions& options,
                                          std::stop_token stop, const ProgressCallback& progress) {
    return designStrategy(w, DesignTemplate::Automatic, std::move(p), options, std::move(stop),
                          progress);
}

Expected<DesignedStrategy> designStrategy(const Workload& w, DesignTemplate t,
                                          std::vector<std::size_t> p,
                                          const StrategyOptimizeOptions& options,
                                          std::stop_token stop, const ProgressCallback& progress) {
    const std::size_t dims = w.shape().size();
    if (t == DesignTemplate::Union) {
        return designUnion(w, p, options, std::move(stop), progress);
    }
    // Automatic: OPT_M for marginal workloads (or unions of marginals, identity and total with
    // at least one marginal) over several attributes.
    bool marginal = w.spec().kind == WorkloadKind::Marginals;
    if (w.spec().kind == WorkloadKind::Union) {
        bool allMarginalLike = true;
        for (const WorkloadSpec& part : w.spec().parts) {
            marginal = marginal || part.kind == WorkloadKind::Marginals;
            allMarginalLike = allMarginalLike && (part.kind == WorkloadKind::Marginals ||
                                                  part.kind == WorkloadKind::Identity ||
                                                  part.kind == WorkloadKind::Total);
        }
        marginal = marginal && allMarginalLike;
    }
    if (t == DesignTemplate::Marginals || (t == DesignTemplate::Automatic && dims > 1 && marginal &&
                                           dims <= kMaxMarginalsAttributes)) {
        return designMarginals(w, options, std::move(stop), progress);
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
    if (dims > 1 && !isProductKind(w.spec().kind)) {
        return designKroneckerUnion(w, std::move(p), options, std::move(stop), progress);
    }
    DesignedStrategy out;
    out.measurement = options.measurement;
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
    auto strategy = strategyFromDesign(w.shape(), p, out.theta, out.measurement);
    if (!strategy) {
        return strategy.error();
    }
    out.strategy = std::move(strategy).value();
    out.templateName = pIdentityName(p);
    if (progress) {
        progress(1.0);
    }
    return out;
}

}  // namespace dpx
