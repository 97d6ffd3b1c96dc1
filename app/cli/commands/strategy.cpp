#include "app/cli/commands/strategy.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>
#include <ostream>
#include <set>

#include "app/cli/args.h"
#include "app/cli/commands/workload.h"
#include "app/cli/output.h"
#include "core/base/validation.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/workload/strategy.h"

namespace dpx::cli {

namespace {

Expected<DomainShape> domainFromText(const std::string& text) {
    const std::size_t dims = split(text, 'x').size();
    return parseDomain(text, dims);
}

QJsonObject baselineJson(const std::string& name, Expected<std::unique_ptr<LinearStrategy>> s,
                         const Workload& w, const MeasurementSpec& measurement) {
    QJsonObject o;
    o[QStringLiteral("strategy")] = QString::fromStdString(name);
    if (!s) {
        o[QStringLiteral("unavailable")] = QString::fromStdString(s.error().message);
        return o;
    }
    auto e = expectedLeastSquaresError(**s, w, measurement);
    if (!e) {
        o[QStringLiteral("unavailable")] = QString::fromStdString(e.error().message);
        return o;
    }
    o[QStringLiteral("description")] = QString::fromStdString((*s)->describe());
    o[QStringLiteral("rmse")] = e->rmse;
    o[QStringLiteral("total_squared")] = e->totalSquared;
    return o;
}

}  // namespace

Expected<StrategyDesignArgs> strategyDesignArgs(const Args& a, std::size_t dimensions) {
    StrategyDesignArgs out;
    auto restarts = a.unsignedInt("restarts", 3);
    auto seed = a.unsignedInt("seed", 0);
    for (const auto* v : {&restarts, &seed}) {
        if (!*v) {
            return v->error();
        }
    }
    if (*restarts < 1 || *restarts > 100) {
        return Error{"--restarts must be in [1, 100]"};
    }
    auto ftol = a.number("ftol", 1e-4);
    if (!ftol) {
        return ftol.error();
    }
    if (!(*ftol > 0) || *ftol >= 1) {
        return Error{"--ftol must be in (0, 1), e.g. 1e-4 (HDMM's) or 1e-6"};
    }
    if (auto text = a.get("p")) {
        for (const std::string& part : split(*text, ',')) {
            auto v = parseNumber(part, "--p");
            if (!v || *v < 1 || *v != std::floor(*v) || *v > 1e6) {
                return Error{"--p: '" + part + "' is not a whole number ≥ 1"};
            }
            out.p.push_back(static_cast<std::size_t>(*v));
        }
        if (out.p.size() == 1 && dimensions > 1) {
            out.p.assign(dimensions, out.p[0]);
        }
    }
    out.options.restarts = static_cast<std::size_t>(*restarts);
    out.options.seed = *seed;
    out.options.minimizer.ftol = *ftol;
    auto templ = designTemplateFromName(a.get("template").value_or("auto"));
    if (!templ) {
        return Error{"--template: " + templ.error().message};
    }
    out.templ = *templ;
    return out;
}

int cmdStrategy(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    const std::set<std::string> known{"domain",   "workload",    "p",    "restarts",
                                      "seed",     "epsilon",     "ftol", "per-query",
                                      "template", "measurement", "delta"};
    auto args = Args::parse(argv, 2, known, {"per-query"}, {});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    for (const char* required : {"domain", "workload"}) {
        if (!a.has(required)) {
            return fail(err, std::string("--") + required + " is required");
        }
    }
    auto shape = domainFromText(*a.get("domain"));
    if (!shape) {
        return fail(err, shape.error());
    }
    if (auto s = validateShape(*shape); !s) {
        return fail(err, "--domain: " + s.error().message);
    }
    auto spec = WorkloadSpec::parse(*a.get("workload"));
    if (!spec) {
        return fail(err, "--workload: " + spec.error().message);
    }
    auto w = Workload::make(*spec, *shape);
    if (!w) {
        return fail(err, "--workload: " + w.error().message);
    }
    auto epsilon = a.number("epsilon", 1.0);
    if (!epsilon) {
        return fail(err, epsilon.error());
    }
    if (auto s = validateEpsilon(*epsilon); !s) {
        return fail(err, "--epsilon: " + s.error().message);
    }
    auto law = measurementFromName(a.get("measurement").value_or("laplace"));
    if (!law) {
        return fail(err, "--measurement: " + law.error().message);
    }
    if (a.has("delta") && *law != MeasurementNoise::Gaussian) {
        return fail(err, "--delta goes with --measurement gaussian");
    }
    auto delta = a.number("delta", 1e-6);
    if (!delta) {
        return fail(err, delta.error());
    }
    const MeasurementSpec measurement = *law == MeasurementNoise::Gaussian
                                            ? MeasurementSpec::gaussian(*epsilon, *delta)
                                            : MeasurementSpec::laplace(*epsilon);
    if (auto s = measurement.validate(); !s) {
        return fail(err, "--delta: " + s.error().message);
    }
    auto design = strategyDesignArgs(a, shape->size());
    if (!design) {
        return fail(err, design.error());
    }
    // Designed for the law it is measured with: ‖A‖₁²·trace (Laplace) or ‖A‖₂²·trace (Gaussian).
    design->options.measurement = *law;
    const StrategyOptimizeOptions& options = design->options;
    const std::vector<std::size_t>& p = design->p;
    const DesignTemplate* templ = &design->templ;
    auto d = designStrategy(*w, *templ, p, options);
    if (!d) {
        return fail(err, d.error());
    }
    // OPT₊: the design's objective bounds least squares on the stack from above; the exact
    // least-squares error (conjugate gradients per query) only where that is cheap.
    const bool bound = d->objectiveIsBound;
    const bool exactCheap = !bound || (shapeCells(*shape) <= 4096 && w->queryCount() <= 20000);
    Expected<ExpectedWorkloadError> e =
        exactCheap ? expectedLeastSquaresError(*d->strategy, *w, measurement, a.has("per-query"))
                   : Expected<ExpectedWorkloadError>(
                         Error{"too many cells and queries for the exact least-squares error of "
                               "a stacked strategy (conjugate gradients per query)"});
    if (!e && !bound) {
        return fail(err, e.error());
    }
    QJsonObject o;
    o[QStringLiteral("command")] = QStringLiteral("strategy");
    o[QStringLiteral("method")] =
        *law == MeasurementNoise::Gaussian
            ? QStringLiteral(
                  "matrix mechanism with HDMM's templates (McKenna, Miklau, Hay & "
                  "Machanavajjhala, VLDB 2018) designed for Gaussian measurement (‖A‖₂²·trace): "
                  "Gaussian measurement of A·x (analytic Gaussian mechanism, Balle & Wang 2018), "
                  "least squares")
            : QStringLiteral(
                  "matrix mechanism with HDMM's templates (McKenna, Miklau, Hay & "
                  "Machanavajjhala, VLDB 2018): Laplace measurement of A·x, least squares");
    o[QStringLiteral("data_used")] = false;
    o[QStringLiteral("domain")] = QString::fromStdString(domainText(*shape));
    o[QStringLiteral("workload")] = QString::fromStdString(spec->text());
    o[QStringLiteral("workload_description")] = QString::fromStdString(w->describe());
    o[QStringLiteral("queries")] = static_cast<double>(w->queryCount());
    o[QStringLiteral("epsilon")] = *epsilon;
    if (*law == MeasurementNoise::Gaussian) {
        // Stated only for Gaussian, so that the Laplace output stays as it was.
        o[QStringLiteral("measurement")] = QStringLiteral("gaussian");
        o[QStringLiteral("delta")] = *delta;
        o[QStringLiteral("objective_definition")] = QStringLiteral("‖A‖₂²·trace((AᵀA)⁻¹WᵀW)");
    }
    o[QStringLiteral("template")] = QString::fromStdString(d->templateName);
    if (d->kind == DesignTemplate::Marginals) {
        // The measured marginals and their weights (attributes numbered from 1).
        QJsonArray mj;
        for (std::size_t m = 0; m < d->marginalWeights.size(); ++m) {
            if (d->marginalWeights[m] > 0) {
                QJsonArray attrs;
                for (std::size_t i = 0; i < shape->size(); ++i) {
                    if (m >> i & 1) {
                        attrs.append(static_cast<double>(i + 1));
                    }
                }
                QJsonObject one;
                one[QStringLiteral("attributes")] = attrs;
                one[QStringLiteral("weight")] = d->marginalWeights[m];
                mj.append(one);
            }
        }
        o[QStringLiteral("marginals")] = mj;
        QJsonArray rj;
        for (double v : d->restartObjectives) {
            rj.append(v);
        }
        o[QStringLiteral("restart_objectives")] = rj;
    } else if (d->kind == DesignTemplate::PIdentity) {
        QJsonArray pj;
        for (std::size_t v : d->p) {
            pj.append(static_cast<double>(v));
        }
        o[QStringLiteral("p")] = pj;
    }
    if (d->rounds > 0) {
        o[QStringLiteral("rounds")] = static_cast<double>(d->rounds);
    }
    o[QStringLiteral("restarts")] = static_cast<double>(options.restarts);
    o[QStringLiteral("seed")] = static_cast<double>(options.seed);
    o[QStringLiteral("objective")] = d->objective;
    o[QStringLiteral("sensitivity_l1")] = d->strategy->sensitivityL1();
    if (*law == MeasurementNoise::Gaussian) {
        o[QStringLiteral("sensitivity_l2")] = d->strategy->sensitivityL2();
    }
    if (bound) {
        auto rb = designRmse(*d, measurement);
        if (!rb) {
            return fail(err, rb.error());
        }
        o[QStringLiteral("rmse_bound")] = *rb;
        if (e) {
            o[QStringLiteral("rmse")] = e->rmse;
            o[QStringLiteral("total_squared")] = e->totalSquared;
        } else {
            o[QStringLiteral("rmse_unavailable")] = QString::fromStdString(e.error().message);
        }
        QJsonArray scales;
        for (double v : d->partScales) {
            scales.append(v);
        }
        o[QStringLiteral("part_scales")] = scales;
    } else {
        o[QStringLiteral("rmse")] = e->rmse;
        o[QStringLiteral("total_squared")] = e->totalSquared;
    }
    if (a.has("per-query") && e) {
        QJsonArray v;
        for (double x : e->perQueryVariance) {
            v.append(x);
        }
        o[QStringLiteral("per_query_variance")] = v;
    }
    QJsonArray baselines;
    baselines.append(baselineJson("Identity", identityStrategy(*shape), *w, measurement));
    baselines.append(baselineJson("HB", hbStrategy(*shape), *w, measurement));
    baselines.append(baselineJson("Privelet", haarStrategy(*shape), *w, measurement));
    o[QStringLiteral("baselines")] = baselines;
    printJson(out, o);
    return 0;
}

}  // namespace dpx::cli
