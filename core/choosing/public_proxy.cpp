#include "core/choosing/public_proxy.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "core/choosing/tradeoff.h"
#include "core/histogram/dataset.h"

namespace dpx {

namespace {

const char* const kForms =
    "confidential, uniform, normal:MEAN,SD (bins), normal:MEAN%,SD% (of the range), "
    "weights:W1,W2,..., shape:FILE or release:FILE";

// Pr[a ≤ Z ≤ b] for Z ~ N(μ, σ²) by erfc (Φ(x) = erfc(−x/√2)/2): upper tails when the bin lies
// right of the mean, lower tails otherwise, so neither side loses its far tail to cancellation.
double normalMass(double a, double b, double mu, double sigma) {
    const double za = (a - mu) / sigma;
    const double zb = (b - mu) / sigma;
    if (za >= 0) {
        return 0.5 * (std::erfc(za / std::sqrt(2.0)) - std::erfc(zb / std::sqrt(2.0)));
    }
    return 0.5 * (std::erfc(-zb / std::sqrt(2.0)) - std::erfc(-za / std::sqrt(2.0)));
}

Expected<double> parseValue(std::string_view text, const std::string& what) {
    double v = 0;
    if (!parseNumber(text, v)) {
        return Error{what + ": '" + std::string(text) + "' is not a finite number"};
    }
    return v;
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out(1);
    for (char ch : text) {
        if (ch == sep) {
            out.emplace_back();
        } else {
            out.back() += ch;
        }
    }
    return out;
}

Expected<std::vector<double>> parseWeights(const std::string& text) {
    std::vector<double> w;
    for (const auto& part : split(text, ',')) {
        auto v = parseValue(part, "plan on weights");
        if (!v) {
            return v.error();
        }
        w.push_back(*v);
    }
    return w;
}

std::string joinNumbers(const std::vector<double>& values) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        out += (i ? "," : "") + formatShortest(values[i]);
    }
    return out;
}

}  // namespace

const char* planOnKindName(PlanOnKind kind) {
    switch (kind) {
        case PlanOnKind::Confidential:
            return "confidential";
        case PlanOnKind::Uniform:
            return "uniform";
        case PlanOnKind::Normal:
            return "normal";
        case PlanOnKind::Weights:
            return "weights";
        case PlanOnKind::Shape:
            return "shape";
        case PlanOnKind::Release:
            return "release";
    }
    return "confidential";
}

std::string PlanOn::text() const {
    switch (kind) {
        case PlanOnKind::Confidential:
        case PlanOnKind::Uniform:
            return planOnKindName(kind);
        case PlanOnKind::Normal: {
            const char* pct = relative ? "%" : "";
            return "normal:" + formatShortest(mean) + pct + "," + formatShortest(sd) + pct;
        }
        case PlanOnKind::Weights:
            return "weights:" + joinNumbers(weights);
        case PlanOnKind::Shape:
        case PlanOnKind::Release:
            return std::string(planOnKindName(kind)) + ":" + path;
    }
    return "confidential";
}

std::string PlanOn::shapeDescription() const {
    std::string what;
    switch (kind) {
        case PlanOnKind::Confidential:
            return "confidential data";
        case PlanOnKind::Uniform:
            what = "uniform";
            break;
        case PlanOnKind::Normal:
            what = relative ? "normal (mean " + formatShortest(mean) + " %, sd " +
                                  formatShortest(sd) + " % of the range)"
                            : "normal (mean " + formatShortest(mean) + ", sd " +
                                  formatShortest(sd) + " bins)";
            break;
        case PlanOnKind::Weights:
            what = "weights " + joinNumbers(weights);
            break;
        case PlanOnKind::Shape:
            what = "shape from " + path;
            break;
        case PlanOnKind::Release:
            what = "previous release " + path + " (released counts)";
            break;
    }
    return what;
}

std::string PlanOn::describe() const {
    return isProxy() ? shapeDescription() + ", N = " + std::to_string(population)
                     : shapeDescription();
}

std::string PlanOn::computedOn() const {
    return isProxy() ? "public proxy: " + describe() : "confidential data";
}

Expected<PlanOn> parsePlanOn(const std::string& text) {
    PlanOn p;
    const auto colon = text.find(':');
    const std::string head = text.substr(0, colon);
    const std::string rest = colon == std::string::npos ? std::string() : text.substr(colon + 1);
    if (head == "confidential" || head == "uniform") {
        if (colon != std::string::npos) {
            return Error{"plan on '" + text + "': " + head + " takes no parameters"};
        }
        p.kind = head == "uniform" ? PlanOnKind::Uniform : PlanOnKind::Confidential;
        return p;
    }
    if (head != "normal" && head != "weights" && head != "shape" && head != "release") {
        return Error{"plan on '" + text + "': unknown '" + head + "' (use " + kForms + ")"};
    }
    if (colon == std::string::npos || rest.empty()) {
        return Error{"plan on '" + text + "': expected one of " + kForms};
    }
    if (head == "normal") {
        const auto parts = split(rest, ',');
        if (parts.size() != 2) {
            return Error{"plan on '" + text + "': expected normal:MEAN,SD or normal:MEAN%,SD%"};
        }
        std::string m = parts[0], s = parts[1];
        const bool pm = !m.empty() && m.back() == '%';
        const bool ps = !s.empty() && s.back() == '%';
        if (pm != ps) {
            return Error{"plan on '" + text +
                         "': give both MEAN and SD in bins, or both in % of the range"};
        }
        if (pm) {
            m.pop_back();
            s.pop_back();
        }
        auto mean = parseValue(m, "plan on normal MEAN");
        auto sd = parseValue(s, "plan on normal SD");
        if (!mean) {
            return mean.error();
        }
        if (!sd) {
            return sd.error();
        }
        p.kind = PlanOnKind::Normal;
        p.mean = *mean;
        p.sd = *sd;
        p.relative = pm;
        if (!std::isfinite(p.mean) || !(p.sd > 0 && std::isfinite(p.sd))) {
            return Error{"plan on '" + text + "': the normal needs a finite MEAN and SD > 0"};
        }
        return p;
    }
    if (head == "weights") {
        auto w = parseWeights(rest);
        if (!w) {
            return w.error();
        }
        p.kind = PlanOnKind::Weights;
        p.weights = std::move(*w);
        return p;
    }
    p.kind = head == "shape" ? PlanOnKind::Shape : PlanOnKind::Release;
    p.path = rest;
    return p;
}

Expected<std::vector<double>> proxyWeights(const PlanOn& plan, std::size_t bins) {
    if (bins == 0) {
        return Error{"the proxy needs at least one bin"};
    }
    const double k = static_cast<double>(bins);
    std::vector<double> w(bins, 0.0);
    switch (plan.kind) {
        case PlanOnKind::Confidential:
            return Error{"planning on the confidential data: there is no public proxy to build"};
        case PlanOnKind::Uniform:
            std::fill(w.begin(), w.end(), 1.0);
            break;
        case PlanOnKind::Normal: {
            if (!std::isfinite(plan.mean) || !(plan.sd > 0 && std::isfinite(plan.sd))) {
                return Error{"the normal proxy needs a finite mean and a standard deviation > 0"};
            }
            // In bin units: bin i covers [i − ½, i + ½]; relative: [0, 100] % over k bins.
            const double mu = plan.relative ? plan.mean / 100.0 * k - 0.5 : plan.mean;
            const double sigma = plan.relative ? plan.sd / 100.0 * k : plan.sd;
            for (std::size_t i = 0; i < bins; ++i) {
                const double c = static_cast<double>(i);
                w[i] = normalMass(c - 0.5, c + 0.5, mu, sigma);
            }
            break;
        }
        case PlanOnKind::Weights:
        case PlanOnKind::Shape:
        case PlanOnKind::Release: {
            const char* what = plan.kind == PlanOnKind::Release ? "the previous release"
                               : plan.kind == PlanOnKind::Shape ? "the shape file"
                                                                : "the weight list";
            if (plan.weights.size() != bins) {
                return Error{std::string(what) + " has " + std::to_string(plan.weights.size()) +
                             " bins, the data's binning " + std::to_string(bins) +
                             ": a proxy must have the same bins"};
            }
            for (std::size_t i = 0; i < bins; ++i) {
                const double v = plan.weights[i];
                if (!std::isfinite(v)) {
                    return Error{std::string(what) + ": bin " + std::to_string(i + 1) +
                                 " is not a finite number"};
                }
                if (v < 0 && plan.kind != PlanOnKind::Release) {
                    return Error{std::string(what) + ": bin " + std::to_string(i + 1) +
                                 " has the negative weight " + formatShortest(v) +
                                 " (weights must be ≥ 0)"};
                }
                // A released count below 0 is noise: set to 0 (post-processing of a public
                // release).
                w[i] = std::max(v, 0.0);
            }
            break;
        }
    }
    double sum = 0;
    for (double v : w) {
        sum += v;
    }
    if (!(sum > 0)) {
        if (plan.kind == PlanOnKind::Normal) {
            return Error{
                "the normal proxy puts no mass on the bins (its mean lies far outside "
                "them): move the mean into the range or widen the SD"};
        }
        return Error{"the proxy's weights sum to 0: it has no shape to scale"};
    }
    for (double& v : w) {
        v /= sum;
    }
    return w;
}

Expected<Histogram> buildProxyHistogram(const PlanOn& plan, std::size_t bins,
                                        const std::vector<std::string>& labels,
                                        const std::vector<double>& edges) {
    if (plan.isProxy() && (plan.population < 1 || plan.population > kMaxProxyPopulation)) {
        return Error{"the proxy's population N must be declared, 1 ≤ N ≤ 1e15 (got " +
                     std::to_string(plan.population) +
                     "); it is not read from the data, whose size is itself private"};
    }
    auto w = proxyWeights(plan, bins);
    if (!w) {
        return w.error();
    }
    if (plan.kind == PlanOnKind::Release && !plan.labels.empty() && !labels.empty()) {
        for (std::size_t i = 0; i < bins && i < plan.labels.size(); ++i) {
            if (plan.labels[i] != labels[i]) {
                return Error{"the previous release's bin " + std::to_string(i + 1) + " is '" +
                             plan.labels[i] + "', the data's is '" + labels[i] +
                             "': a proxy release must have the same binning"};
            }
        }
    }
    // Quantise the normalised weights to integers (sum ≈ 2⁵²) and apportion exactly N by
    // Hamilton's method (the one implementation, scaleToPopulation).
    constexpr double kUnits = 4503599627370496.0;  // 2^52
    std::vector<std::int64_t> units(bins);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < bins; ++i) {
        units[i] = static_cast<std::int64_t>(std::llround((*w)[i] * kUnits));
        total += units[i];
    }
    if (total <= 0) {
        return Error{"the proxy's weights sum to 0: it has no shape to scale"};
    }
    auto shape = Histogram::create(std::move(units), labels, edges);
    if (!shape) {
        return shape.error();
    }
    return scaleToPopulation(*shape, plan.population);
}

}  // namespace dpx
