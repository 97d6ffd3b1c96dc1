// The workload algorithms of issue #20 as trade-off configurations: see tradeoff.h ("Workload
// algorithms") and tradeoff_algorithm.h.
#include "core/choosing/tradeoff_algorithm.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "core/accuracy/metrics.h"
#include "core/algorithms/algorithm_error.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr std::string_view kPrefix = "algo:";
constexpr std::uint64_t kMaxAlgorithmTrials = 1'000'000;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string knownIds() {
    std::string out;
    for (const Algorithm* a : allAlgorithms()) {
        out += (out.empty() ? "" : ", ") + lower(a->info().id);
    }
    return out;
}

std::string dimensionText(std::size_t dims) {
    return std::to_string(dims) + "-D";
}

// "64 bins", "20 × 30 cells".
std::string shapeText(const DomainShape& shape) {
    if (shape.size() == 1) {
        return std::to_string(shape[0]) + " bins";
    }
    std::string out;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        out += (i == 0 ? "" : " × ") + std::to_string(shape[i]);
    }
    return out + " cells";
}

CurvePoint missingPoint(double epsilon, const std::string& why) {
    CurvePoint p;
    p.epsilon = epsilon;
    p.value = p.ciLow = p.ciHigh = std::numeric_limits<double>::quiet_NaN();
    p.method = "unavailable: " + why;
    return p;
}

constexpr const char* kExactMethod =
    "exact (least squares on the strategy: E‖x̂ − x‖² = 2b²·trace((AᵀA)⁻¹), Li et al. 2015)";

}  // namespace

std::string algorithmConfigName(const std::string& id,
                                const std::map<std::string, double>& parameters) {
    std::string s = std::string(kPrefix) + lower(id);
    if (!parameters.empty()) {
        std::string list;
        for (const auto& [name, value] : parameters) {
            list += (list.empty() ? "" : ",") + name + "=" + formatNumber(value);
        }
        s += "(" + list + ")";
    }
    return s;
}

bool isAlgorithmConfigName(std::string_view text) {
    return text.substr(0, kPrefix.size()) == kPrefix;
}

Expected<TradeoffConfig> algorithmConfigFromName(const std::string& text) {
    if (!isAlgorithmConfigName(text)) {
        return Error{"'" + text + "' is not a workload algorithm (algo:ID, e.g. algo:dawa)"};
    }
    std::string rest = text.substr(kPrefix.size());
    std::string params;
    if (const auto open = rest.find('('); open != std::string::npos) {
        if (rest.back() != ')') {
            return Error{"'" + text +
                         "': the parameters go in parentheses at the end, e.g. "
                         "algo:mwem(rounds=20)"};
        }
        params = rest.substr(open + 1, rest.size() - open - 2);
        rest = rest.substr(0, open);
    }
    const Algorithm* a = findAlgorithm(rest);
    if (a == nullptr) {
        return Error{"unknown workload algorithm '" + rest + "' in '" + text +
                     "' (known: " + knownIds() + ")"};
    }
    TradeoffConfig c;
    c.mechanism = TradeoffMechanism::Algorithm;
    c.algorithm = a->info().id;
    if (!params.empty() || text.find('(') != std::string::npos) {
        std::size_t start = 0;
        while (start <= params.size()) {
            const std::size_t comma = std::min(params.find(',', start), params.size());
            const std::string item = params.substr(start, comma - start);
            const std::size_t eq = item.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
                return Error{"'" + text + "': parameter '" + item +
                             "' is not NAME=VALUE (e.g. algo:mwem(rounds=20))"};
            }
            const std::string name = item.substr(0, eq);
            const std::string value = item.substr(eq + 1);
            double v = 0;
            const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
            if (r.ec != std::errc() || r.ptr != value.data() + value.size()) {
                return Error{"'" + text + "': the value of " + name + ", '" + value +
                             "', is not a number"};
            }
            if (c.algorithmParameters.count(name) != 0) {
                return Error{"'" + text + "': parameter " + name + " given twice"};
            }
            c.algorithmParameters[name] = v;
            start = comma + 1;
        }
    }
    if (auto v = algorithmParameterValues(a->info(), c.algorithmParameters); !v) {
        return v.error();
    }
    return c;
}

bool algorithmExactAvailable(const TradeoffConfig& config) {
    if (config.mechanism != TradeoffMechanism::Algorithm || config.metric.metric != Metric::SSE ||
        !config.algorithmParameters.empty()) {
        return false;
    }
    const Algorithm* a = findAlgorithm(config.algorithm);
    return a != nullptr && !a->info().dataDependent;
}

namespace detail {

double metricScaleDivisor(const MetricSpec& m, double total) {
    if (m.scale != Scale::Frequencies) {
        return 1;
    }
    return m.metric == Metric::SSE ? total * total : total;
}

Status validateAlgorithmConfig(const TradeoffConfig& config) {
    const Algorithm* a = findAlgorithm(config.algorithm);
    if (a == nullptr) {
        return Error{"unknown workload algorithm '" + config.algorithm + "' (known: " + knownIds() +
                     ")"};
    }
    const AlgorithmInfo& info = a->info();
    if (config.estimator != EstimatorKind::Identity) {
        return Error{info.id + " does its own inference (" + info.citation +
                     "): no estimator applies (use it as algo:" + lower(info.id) + ")"};
    }
    if (auto v = algorithmParameterValues(info, config.algorithmParameters); !v) {
        return v.error();
    }
    if (config.sensitivity.l1 != 1) {
        return Error{info.id +
                     " is ε-DP for add/remove-one-record neighbours with every record in one "
                     "cell (Δ1 = 1); this histogram has Δ1 = " +
                     formatNumber(config.sensitivity.l1) +
                     " (replace-one neighbours or several bins per record), so its ε would not "
                     "be the guarantee"};
    }
    return okStatus();
}

Expected<AlgorithmSetup> prepareAlgorithm(const Histogram& truth, const TradeoffConfig& config) {
    if (auto s = validateAlgorithmConfig(config); !s) {
        return s.error();
    }
    AlgorithmSetup setup;
    setup.algorithm = findAlgorithm(config.algorithm);
    const AlgorithmInfo& info = setup.algorithm->info();
    setup.shape = config.cellShape.empty() ? DomainShape{truth.size()} : config.cellShape;
    if (auto s = validateShape(setup.shape); !s) {
        return s.error();
    }
    if (shapeCells(setup.shape) != truth.size()) {
        return Error{info.id + ": the cell shape " + shapeText(setup.shape) + " has " +
                     std::to_string(shapeCells(setup.shape)) + " cells but the histogram has " +
                     std::to_string(truth.size()) + " bins"};
    }
    const std::size_t dims = setup.shape.size();
    if (std::find(info.dimensions.begin(), info.dimensions.end(), dims) == info.dimensions.end()) {
        std::string runs;
        for (std::size_t d : info.dimensions) {
            runs += (runs.empty() ? "" : " and ") + dimensionText(d);
        }
        return Error{info.id + " runs on " + runs + " tables; this one is " + dimensionText(dims) +
                     " (" + shapeText(setup.shape) + ")"};
    }
    auto w = Workload::make(WorkloadSpec{}, setup.shape);  // identity: every cell
    if (!w) {
        return w.error();
    }
    setup.identity = std::make_shared<const Workload>(std::move(w).value());
    setup.x = truth.countsAsDouble();
    setup.positions = truth.positions();
    for (double v : setup.x) {
        setup.total += v;
    }
    if (config.metric.scale == Scale::Frequencies || config.metric.metric == Metric::W1) {
        if (!(setup.total > 0)) {
            return Error{"the histogram's total is 0: the frequency scale and W1 divide by it"};
        }
    }
    if (algorithmExactAvailable(config)) {
        auto s = setup.algorithm->strategy(setup.shape, *setup.identity);
        if (s && *s) {
            setup.strategy = std::shared_ptr<const LinearStrategy>(std::move(s).value());
        }
    }
    return setup;
}

Expected<double> algorithmExactError(const AlgorithmSetup& setup, const TradeoffConfig& config,
                                     double epsilon) {
    const AlgorithmInfo& info = setup.algorithm->info();
    if (!setup.strategy) {
        std::string why;
        if (info.dataDependent) {
            why = info.id + " is data-dependent (" + info.citation +
                  "): its error is Monte Carlo only — read the ε off its curve";
        } else if (config.metric.metric != Metric::SSE) {
            why = "the exact error of " + info.id + " is its expected SSE; " +
                  metricName(config.metric.metric) + " is Monte Carlo (choose SSE)";
        } else if (!config.algorithmParameters.empty()) {
            why = info.id + " with changed parameters has no exact error here (default " +
                  "parameters only)";
        } else {
            why = info.id + " has no least-squares strategy for " + shapeText(setup.shape);
        }
        return Error{"solving for ε needs an exact error, and " + config.name() + " has none (" +
                     why + ")"};
    }
    auto e = expectedLeastSquaresError(*setup.strategy, *setup.identity, epsilon);
    if (!e) {
        return e.error();
    }
    return e->totalSquared / metricScaleDivisor(config.metric, setup.total);
}

CurvePoint algorithmPoint(const AlgorithmSetup& setup, const TradeoffConfig& config, double epsilon,
                          const CurveOptions& options,
                          const std::function<void(double)>& progress) {
    if (setup.strategy && !options.forceMonteCarlo) {
        auto v = algorithmExactError(setup, config, epsilon);
        if (!v) {
            return missingPoint(epsilon, v.error().message);
        }
        CurvePoint p;
        p.epsilon = epsilon;
        p.value = p.ciLow = p.ciHigh = *v;
        p.method = kExactMethod;
        p.exact = true;
        return p;
    }
    if (options.algorithmTrials < 2 || options.algorithmTrials > kMaxAlgorithmTrials) {
        return missingPoint(epsilon, "the runs per point must be in [2, 10^6]");
    }
    AlgorithmErrorRequest r;
    r.algorithm = setup.algorithm;
    r.shape = setup.shape;
    r.x = setup.x;
    r.workload = setup.identity.get();
    r.epsilon = epsilon;
    r.parameters = config.algorithmParameters;
    r.trials = options.algorithmTrials;
    r.seed = options.seed;  // the same at every ε: common random numbers along the curve
    r.scale = setup.total > 0 ? 0 : 1;  // DPBench's scaled errors (unused here) need m > 0
    r.threads = options.threads;
    r.exactError = false;
    const MetricSpec metric = config.metric;
    const AlgorithmSetup* s = &setup;
    r.extraMetric = [metric, s](std::span<const double> estimate) {
        return evaluateMetric(metric, s->x, estimate, s->positions, s->total);
    };
    auto result =
        algorithmError(r, progress ? ProgressCallback(progress) : ProgressCallback{}, options.stop);
    if (!result) {
        return missingPoint(epsilon, options.stop.stop_requested() ? std::string("cancelled")
                                                                   : result.error().message);
    }
    CurvePoint p;
    p.epsilon = epsilon;
    p.value = result->extra->mean;
    const double half = 1.96 * result->extra->standardError;
    p.ciLow = p.value - half;
    p.ciHigh = p.value + half;
    p.method = "Monte Carlo";
    p.trials = result->trials;
    return p;
}

}  // namespace detail

}  // namespace dpx
