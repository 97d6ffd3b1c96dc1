#include "ui/release_preview.h"

#include "core/estimator.h"
#include "core/expected_error.h"
#include "core/simulation_rng.h"

namespace dpx::ui {

const std::vector<EstimatorKind>& previewEstimators() {
    static const std::vector<EstimatorKind> list = {EstimatorKind::Identity, EstimatorKind::Clamp,
                                                    EstimatorKind::Resize,
                                                    EstimatorKind::NoiseFirst};
    return list;
}

const std::vector<Metric>& previewMetrics() {
    static const std::vector<Metric> list = {Metric::SSE, Metric::L1, Metric::LInf};
    return list;
}

PreviewResult computePreview(const PreviewRequest& req) {
    PreviewResult r;
    r.generation = req.generation;
    auto sens = histogramSensitivity(req.histogram.size(), req.neighbouring, {});
    if (!sens) {
        r.error = QString::fromStdString(sens.error().message);
        return r;
    }
    auto mech = calibrate(req.mechanism, *sens);
    if (!mech) {
        r.error = QString::fromStdString(mech.error().message);
        return r;
    }
    r.mechanism = *mech;
    const NoiseDistribution& noise = mech->noise;
    r.truth = req.histogram.countsAsDouble();
    // A simulated draw for illustration (seeded simulation RNG: this is not a release).
    SimulationRng rng(req.seed, 0);
    r.noisy = r.truth;
    for (double& v : r.noisy) {
        v += sampleNoise(noise, rng);
    }
    r.band95 = noise.absQuantile(0.95);
    const TruthModel truth{r.truth, req.histogram.positions()};
    std::vector<EstimatorSpec> specs;
    for (EstimatorKind k : previewEstimators()) {
        specs.push_back({k, noise.variance()});
        auto e = estimate(specs.back(), r.noisy);
        r.estimates.push_back(e ? *e : r.noisy);
    }
    std::vector<MetricSpec> metrics;
    for (Metric m : previewMetrics()) {
        metrics.push_back({m, Scale::Counts});
    }
    r.errors.assign(specs.size(), std::vector<ErrorCell>(metrics.size()));
    // Exact where a method exists; the rest from one Monte Carlo run on common random numbers.
    std::vector<std::size_t> needMc;
    for (std::size_t e = 0; e < specs.size(); ++e) {
        bool allExact = true;
        for (std::size_t m = 0; m < metrics.size(); ++m) {
            auto x = exactExpectedError(truth, noise, specs[e], metrics[m]);
            if (x) {
                r.errors[e][m] = {x->value, 0, QString::fromStdString(x->method), true};
            } else {
                allExact = false;
            }
        }
        if (!allExact) {
            needMc.push_back(e);
        }
    }
    if (!needMc.empty()) {
        std::vector<EstimatorSpec> mcSpecs;
        for (std::size_t e : needMc) {
            mcSpecs.push_back(specs[e]);
        }
        MonteCarloOptions opt;
        opt.trials = 20000;
        opt.seed = req.seed;
        auto mc = monteCarloExpectedError(truth, noise, mcSpecs, metrics, opt);
        if (mc) {
            for (std::size_t i = 0; i < needMc.size(); ++i) {
                for (std::size_t m = 0; m < metrics.size(); ++m) {
                    const ErrorEstimate& x = mc->values[i][m];
                    r.errors[needMc[i]][m] = {
                        x.value, 1.96 * x.stdError,
                        QStringLiteral("Monte Carlo, %1 trials").arg(x.trials), false};
                }
            }
        }
    }
    return r;
}

}  // namespace dpx::ui
