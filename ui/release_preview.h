// The computation behind the first window: one simulated noisy release of a histogram and the
// expected errors of every estimator. Pure function of its inputs, run on a worker thread.
#pragma once

#include <QString>
#include <QVector>
#include <cstdint>
#include <string>
#include <vector>

#include "core/estimator.h"
#include "core/histogram.h"
#include "core/mechanism.h"
#include "core/metrics.h"

namespace dpx::ui {

struct PreviewRequest {
    Histogram histogram;
    MechanismSpec mechanism;
    Neighbouring neighbouring = Neighbouring::AddRemove;
    std::uint64_t seed = 1;
    std::uint64_t generation = 0;  // to drop stale results
};

struct ErrorCell {
    double value = 0;
    double halfWidth = 0;  // 95% half-width (0 for exact values)
    QString method;
    bool exact = true;
};

struct PreviewResult {
    std::uint64_t generation = 0;
    QString error;  // non-empty: the request was refused, nothing else is valid
    CalibratedMechanism mechanism{"", NoiseDistribution::laplace(1), {}, 0, 0, "", {}};
    std::vector<double> truth, noisy;
    std::vector<std::vector<double>> estimates;  // per estimator
    double band95 = 0;                           // per-bin ± half-width of the 95% noise interval
    std::vector<std::vector<ErrorCell>> errors;  // [estimator][metric: SSE, L1, L∞]
};

// The estimators and metrics shown, in display order.
const std::vector<EstimatorKind>& previewEstimators();
const std::vector<Metric>& previewMetrics();

PreviewResult computePreview(const PreviewRequest& request);

}  // namespace dpx::ui
