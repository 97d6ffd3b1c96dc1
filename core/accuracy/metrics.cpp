#include "core/accuracy/metrics.h"

#include <algorithm>
#include <cmath>

#include "core/accuracy/wasserstein.h"

namespace dpx {

const char* metricName(Metric metric) {
    switch (metric) {
        case Metric::SSE:
            return "sse";
        case Metric::L1:
            return "l1";
        case Metric::LInf:
            return "linf";
        case Metric::W1:
            return "w1";
    }
    return "?";
}

const char* scaleName(Scale scale) {
    return scale == Scale::Counts ? "counts" : "frequencies";
}

Expected<Metric> metricFromName(const std::string& name) {
    if (name == "sse") {
        return Metric::SSE;
    }
    if (name == "l1") {
        return Metric::L1;
    }
    if (name == "linf" || name == "max") {
        return Metric::LInf;
    }
    if (name == "w1" || name == "wasserstein") {
        return Metric::W1;
    }
    return Error{"unknown metric '" + name + "' (use sse, l1, linf or w1)"};
}

Expected<Scale> scaleFromName(const std::string& name) {
    if (name == "counts") {
        return Scale::Counts;
    }
    if (name == "frequencies" || name == "freq") {
        return Scale::Frequencies;
    }
    return Error{"unknown scale '" + name + "' (use counts or frequencies)"};
}

double sumSquaredError(std::span<const double> truth, std::span<const double> estimate) {
    double s = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        const double d = estimate[i] - truth[i];
        s += d * d;
    }
    return s;
}

double l1Error(std::span<const double> truth, std::span<const double> estimate) {
    double s = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        s += std::abs(estimate[i] - truth[i]);
    }
    return s;
}

double maxAbsError(std::span<const double> truth, std::span<const double> estimate) {
    double s = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        s = std::max(s, std::abs(estimate[i] - truth[i]));
    }
    return s;
}

double evaluateMetric(const MetricSpec& spec, std::span<const double> truth,
                      std::span<const double> estimate, std::span<const double> positions,
                      double trueTotal) {
    const double scale = spec.scale == Scale::Counts ? 1.0 : 1.0 / trueTotal;
    switch (spec.metric) {
        case Metric::SSE:
            return sumSquaredError(truth, estimate) * scale * scale;
        case Metric::L1:
            return l1Error(truth, estimate) * scale;
        case Metric::LInf:
            return maxAbsError(truth, estimate) * scale;
        case Metric::W1: {
            const double w = wasserstein1Normalized(truth, estimate, positions);
            return spec.scale == Scale::Counts ? w * trueTotal : w;
        }
    }
    return 0;
}

Status validateMetricInputs(const MetricSpec& spec, std::span<const double> truth,
                            std::span<const double> positions) {
    if (truth.empty()) {
        return Error{"the true histogram is empty"};
    }
    double total = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        if (!std::isfinite(truth[i]) || truth[i] < 0) {
            return Error{"true count " + std::to_string(i + 1) + " must be finite and ≥ 0"};
        }
        total += truth[i];
    }
    const bool needsTotal = spec.scale == Scale::Frequencies || spec.metric == Metric::W1;
    if (needsTotal && !(total > 0)) {
        return Error{std::string("the ") + metricName(spec.metric) + " error on the " +
                     scaleName(spec.scale) + " scale needs a true histogram with total > 0"};
    }
    if (spec.metric == Metric::W1) {
        if (positions.size() != truth.size()) {
            return Error{"Wasserstein-1 needs one position per bin"};
        }
        for (std::size_t i = 0; i < positions.size(); ++i) {
            if (!std::isfinite(positions[i]) || (i > 0 && !(positions[i] > positions[i - 1]))) {
                return Error{"bin positions must be finite and strictly increasing"};
            }
        }
    }
    return okStatus();
}

}  // namespace dpx
