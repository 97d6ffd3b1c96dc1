// The common preconditions of every algorithm run (issue #20).
#include "core/algorithms/algorithm.h"

#include <cmath>
#include <string>

#include "core/base/validation.h"

namespace dpx {

Expected<std::unique_ptr<LinearStrategy>> Algorithm::strategy(const DomainShape& /*shape*/,
                                                              const Workload& /*w*/) const {
    return Error{info().id +
                 " is data-dependent: it has no fixed measurement strategy, so its "
                 "error has no closed form (use Monte Carlo trials)"};
}

Expected<std::unique_ptr<LinearStrategy>> Algorithm::strategyFor(const DomainShape& shape,
                                                                 const Workload& w,
                                                                 MeasurementNoise noise) const {
    if (noise == MeasurementNoise::Laplace) {
        return strategy(shape, w);
    }
    return Error{info().id + " measures with Laplace noise only (ε-DP); it has no Gaussian form"};
}

MeasurementSpec algorithmMeasurement(const AlgorithmContext& context) {
    return context.measurement == MeasurementNoise::Gaussian
               ? MeasurementSpec::gaussian(context.epsilon, context.delta)
               : MeasurementSpec::laplace(context.epsilon);
}

namespace {

std::string dimensionList(const std::vector<std::size_t>& dims) {
    std::string out;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        out += (i == 0                 ? ""
                : i + 1 == dims.size() ? " or "
                                       : ", ") +
               std::to_string(dims[i]) + "-D";
    }
    return out;
}

}  // namespace

Expected<std::map<std::string, double>> algorithmParameterValues(
    const AlgorithmInfo& info, const std::map<std::string, double>& overrides) {
    std::map<std::string, double> values;
    for (const AlgorithmParameter& p : info.parameters) {
        values[p.name] = p.defaultValue;
    }
    for (const auto& [name, value] : overrides) {
        const AlgorithmParameter* found = nullptr;
        for (const AlgorithmParameter& p : info.parameters) {
            if (p.name == name) {
                found = &p;
            }
        }
        if (found == nullptr) {
            std::string known;
            for (const AlgorithmParameter& p : info.parameters) {
                known += (known.empty() ? "" : ", ") + p.name;
            }
            return Error{info.id + " has no parameter '" + name + "'" +
                         (known.empty() ? std::string(" (it has none)") : "; it has: " + known)};
        }
        if (!std::isfinite(value) || value < found->minValue || value > found->maxValue ||
            (found->integer && value != std::floor(value))) {
            return Error{info.id + ": " + name + " = " + formatNumber(value) + " is outside " +
                         (found->integer ? "the whole numbers " : "") + "[" +
                         formatNumber(found->minValue) + ", " + formatNumber(found->maxValue) +
                         "] (" + found->description + ")"};
        }
        values[name] = value;
    }
    return values;
}

Status checkAlgorithmMeasurement(const AlgorithmInfo& info, MeasurementNoise measurement,
                                 double delta) {
    if (measurement == MeasurementNoise::Gaussian) {
        if (!info.gaussian) {
            return Error{info.id +
                         " measures with Laplace noise only (ε-DP); Gaussian measurement with a "
                         "δ is offered for HDMM"};
        }
        if (!(delta > 0 && delta < 1)) {
            return Error{info.id +
                         ": Gaussian measurement needs 0 < δ < 1, got δ = " + formatNumber(delta) +
                         (delta == 0 ? " (δ = 0 gives no finite Gaussian noise: use Laplace "
                                       "measurement for pure ε-DP)"
                                     : std::string())};
        }
    } else if (delta != 0) {
        return Error{info.id + ": Laplace measurement is ε-DP and takes no δ, got δ = " +
                     formatNumber(delta) + " (choose Gaussian measurement to use it)"};
    }
    return okStatus();
}

Expected<std::map<std::string, double>> checkAlgorithmContext(const AlgorithmInfo& info,
                                                              const AlgorithmContext& context) {
    if (auto s = validateShape(context.shape); !s) {
        return s.error();
    }
    const std::size_t dims = context.shape.size();
    bool supported = false;
    for (std::size_t d : info.dimensions) {
        supported = supported || d == dims;
    }
    if (!supported) {
        return Error{info.id + " runs on " + dimensionList(info.dimensions) + " data, not on " +
                     std::to_string(dims) + "-D data"};
    }
    const std::size_t cells = shapeCells(context.shape);
    if (context.x.size() != cells) {
        return Error{info.id + ": the data has " + std::to_string(context.x.size()) +
                     " cells but the shape has " + std::to_string(cells)};
    }
    for (std::size_t i = 0; i < cells; ++i) {
        const double v = context.x[i];
        if (!std::isfinite(v) || v < 0 || v != std::floor(v)) {
            return Error{info.id + ": cell " + std::to_string(i) + " holds " + formatNumber(v) +
                         "; counts must be non-negative whole numbers"};
        }
    }
    if (auto s = validateEpsilon(context.epsilon); !s) {
        return s.error();
    }
    if (auto m = checkAlgorithmMeasurement(info, context.measurement, context.delta); !m) {
        return m.error();
    }
    if (context.workload == nullptr || context.workload->shape() != context.shape) {
        return Error{info.id + ": the workload's domain differs from the data's"};
    }
    if (context.rng == nullptr) {
        return Error{info.id + ": no random generator given"};
    }
    auto values = algorithmParameterValues(info, context.parameters);
    if (!values) {
        return values.error();
    }
    if (context.stop.stop_requested()) {
        return Error{info.id + ": cancelled"};
    }
    return values;
}

}  // namespace dpx
