#include "core/mechanisms/exponential_mechanism.h"

#include <algorithm>
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <limits>
#include <map>

#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr std::size_t kMaxNoisyMaxCandidates = 100000;
constexpr std::size_t kMaxNoisyMaxDistinct = 2000;
constexpr double kWindow = 60;  // integrate over max u ± 60 s
constexpr std::size_t kMaxPathSteps = 10000;
constexpr double kMaxPathEntries = 1e7;  // bins × columns of the path matrix
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

Status validateCounts(std::span<const std::int64_t> counts) {
    if (counts.empty()) {
        return Error{"counts: the histogram needs at least one bin"};
    }
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] < 0) {
            return Error{"counts: bin " + std::to_string(i + 1) + " is negative (" +
                         std::to_string(counts[i]) + ")"};
        }
    }
    return okStatus();
}

// log F(z) and f(z) of the noise with scale s.
double logCdf(double z, double s, NoisyMaxNoise noise) {
    if (noise == NoisyMaxNoise::Laplace) {
        return z < 0 ? std::log(0.5) + z / s : std::log1p(-0.5 * std::exp(-z / s));
    }
    return z <= 0 ? kNegInf : std::log(-std::expm1(-z / s));
}

double density(double z, double s, NoisyMaxNoise noise) {
    if (noise == NoisyMaxNoise::Laplace) {
        return std::exp(-std::abs(z) / s) / (2 * s);
    }
    return z < 0 ? 0.0 : std::exp(-z / s) / s;
}

}  // namespace

const char* selectionTaskName(SelectionTask t) {
    return t == SelectionTask::Mode ? "mode" : "quantile";
}

const char* noisyMaxNoiseName(NoisyMaxNoise n) {
    return n == NoisyMaxNoise::Laplace ? "laplace" : "exponential";
}

Status SelectionParams::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (!std::isfinite(quantile) || quantile < 0 || quantile > 1) {
        return Error{"quantile q must be in [0, 1] (got " + formatNumber(quantile) + ")"};
    }
    return okStatus();
}

Expected<SelectionUtility> selectionUtility(std::span<const std::int64_t> counts,
                                            const SelectionParams& params) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    if (auto s = validateCounts(counts); !s) {
        return s.error();
    }
    SelectionUtility r;
    const std::size_t k = counts.size();
    r.utility.resize(k);
    const bool addRemove = params.neighbouring == Neighbouring::AddRemove;
    if (params.task == SelectionTask::Mode) {
        for (std::size_t j = 0; j < k; ++j) {
            r.utility[j] = static_cast<double>(counts[j]);
        }
        r.sensitivity = 1;
        r.monotone = addRemove;
        r.rationale = addRemove
                          ? "u = count: adding or removing one record changes one count by 1 "
                            "(Δu = 1) and never moves two counts in opposite directions "
                            "(monotone)"
                          : "u = count: replacing one record lowers one count by 1 and raises "
                            "another by 1, so Δu = 1 per candidate, but the utilities move in "
                            "opposite directions (not monotone)";
    } else {
        double n = 0;
        for (std::int64_t c : counts) {
            n += static_cast<double>(c);
        }
        if (n < 1) {
            return Error{"counts: the quantile of an empty histogram is undefined (n = 0)"};
        }
        const double t = params.quantile * n;
        double below = 0;
        for (std::size_t j = 0; j < k; ++j) {
            const double upTo = below + static_cast<double>(counts[j]);
            r.utility[j] = -std::max({below - t, t - upTo, 0.0});
            below = upTo;
        }
        r.sensitivity = addRemove ? std::max(params.quantile, 1 - params.quantile) : 1.0;
        // q = 0: u = −B_j; q = 1: u = A_j − n. One neighbour moves every B_j (or A_j − n) the
        // same way, so these two extremes are monotone; any 0 < q < 1 is not.
        r.monotone = params.quantile == 0 || params.quantile == 1;
        r.rationale =
            addRemove
                ? "u = −distance from the target rank q·n to the bin's rank interval: one record "
                  "more or less moves each interval end by 0 or 1 and q·n by q, so Δu = max(q, "
                  "1 − q); monotone only for q = 0 or 1"
                : "u = −distance from the target rank q·n to the bin's rank interval: replacing "
                  "one record moves each interval end by at most 1 with n fixed, so Δu = 1; "
                  "monotone only for q = 0 or 1";
    }
    const bool tight = r.monotone && params.useMonotone;
    r.factor = tight ? params.epsilon / r.sensitivity : params.epsilon / (2 * r.sensitivity);
    r.rationale += tight ? "; P ∝ exp(ε·u/Δu)." : "; P ∝ exp(ε·u/(2Δu)).";
    const double top = *std::max_element(r.utility.begin(), r.utility.end());
    for (std::size_t j = 0; j < k; ++j) {
        if (r.utility[j] == top) {
            r.best.push_back(j);
        }
    }
    return r;
}

std::vector<double> exponentialMechanismLogProbabilities(std::span<const double> utility,
                                                         double factor) {
    std::vector<double> out(utility.size());
    if (utility.empty()) {
        return out;
    }
    double m = kNegInf;
    for (std::size_t j = 0; j < utility.size(); ++j) {
        out[j] = factor * utility[j];
        m = std::max(m, out[j]);
    }
    double sum = 0;
    for (double x : out) {
        sum += std::exp(x - m);
    }
    // (c·u_j − m) − log Σ: subtracting m first keeps full precision for large utilities.
    const double logSum = std::log(sum);
    for (double& x : out) {
        x = (x - m) - logSum;
    }
    return out;
}

std::vector<double> exponentialMechanismProbabilities(std::span<const double> utility,
                                                      double factor) {
    auto out = exponentialMechanismLogProbabilities(utility, factor);
    for (double& x : out) {
        x = std::exp(x);
    }
    return out;
}

Expected<std::vector<double>> reportNoisyMaxProbabilities(std::span<const double> utility,
                                                          double noiseScale, NoisyMaxNoise noise) {
    if (utility.empty() || utility.size() > kMaxNoisyMaxCandidates) {
        return Error{"report-noisy-max: the number of candidates must be in [1, " +
                     std::to_string(kMaxNoisyMaxCandidates) + "] (got " +
                     std::to_string(utility.size()) + ")"};
    }
    if (!std::isfinite(noiseScale) || noiseScale <= 0) {
        return Error{"report-noisy-max: the noise scale must be finite and > 0 (got " +
                     formatNumber(noiseScale) + ")"};
    }
    for (std::size_t j = 0; j < utility.size(); ++j) {
        if (!std::isfinite(utility[j])) {
            return Error{"report-noisy-max: utility " + std::to_string(j + 1) + " is not finite"};
        }
    }
    const double s = noiseScale;
    const double top = *std::max_element(utility.begin(), utility.end());
    const double lo = top - kWindow * s;
    const double hi = top + kWindow * s;
    // Distinct utilities inside the window with their multiplicities; those below it have
    // F ≈ 1 (log F > −e^{−60}) and selection probability < e^{−50}: reported as 0.
    std::map<double, double> mult;
    for (double u : utility) {
        if (u >= lo) {
            mult[u] += 1;
        }
    }
    if (mult.size() > kMaxNoisyMaxDistinct) {
        return Error{"report-noisy-max: more than " + std::to_string(kMaxNoisyMaxDistinct) +
                     " distinct utilities within 60 noise scales of the maximum; the quadrature "
                     "would be too slow"};
    }
    std::vector<double> values, counts;
    for (const auto& [v, m] : mult) {
        values.push_back(v);
        counts.push_back(m);
    }
    const std::size_t d = values.size();
    std::vector<double> integral(d, 0.0);
    std::vector<double> logF(d);
    using GL = boost::math::quadrature::gauss<double, 20>;
    const auto& nodes = GL::abscissa();
    const auto& weights = GL::weights();
    auto addPoint = [&](double x, double w) {
        double total = 0;  // Σ_v m_v log F(x − v)
        for (std::size_t i = 0; i < d; ++i) {
            logF[i] = logCdf(x - values[i], s, noise);
            total += counts[i] * logF[i];
        }
        for (std::size_t i = 0; i < d; ++i) {
            const double fx = density(x - values[i], s, noise);
            if (fx == 0 || logF[i] == kNegInf) {
                continue;  // f(x − v) = 0 there (exponential noise, x < v)
            }
            // Π over the other candidates: remove this candidate's own factor once.
            const double rest = total - logF[i];
            if (rest == kNegInf || std::isnan(rest)) {
                continue;
            }
            integral[i] += w * fx * std::exp(rest);
        }
    };
    std::vector<double> breaks = {lo, hi};
    for (double v : values) {
        breaks.push_back(v);
    }
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    for (std::size_t b = 0; b + 1 < breaks.size(); ++b) {
        const double a0 = breaks[b];
        const double a1 = breaks[b + 1];
        const auto pieces = static_cast<std::size_t>(std::ceil((a1 - a0) / (0.5 * s)));
        const double h = (a1 - a0) / static_cast<double>(std::max<std::size_t>(pieces, 1));
        for (std::size_t p = 0; p < std::max<std::size_t>(pieces, 1); ++p) {
            const double mid = a0 + (static_cast<double>(p) + 0.5) * h;
            const double half = 0.5 * h;
            for (std::size_t q = 0; q < nodes.size(); ++q) {
                if (nodes[q] == 0) {
                    addPoint(mid, half * weights[q]);
                } else {
                    addPoint(mid + half * nodes[q], half * weights[q]);
                    addPoint(mid - half * nodes[q], half * weights[q]);
                }
            }
        }
    }
    std::vector<double> out(utility.size(), 0.0);
    for (std::size_t j = 0; j < utility.size(); ++j) {
        if (utility[j] >= lo) {
            const auto it = std::lower_bound(values.begin(), values.end(), utility[j]);
            out[j] = integral[static_cast<std::size_t>(it - values.begin())];
        }
    }
    return out;
}

Expected<SelectionResult> selectBin(std::span<const std::int64_t> counts,
                                    const SelectionParams& params) {
    auto u = selectionUtility(counts, params);
    if (!u) {
        return u.error();
    }
    SelectionResult r;
    r.utility = std::move(u).value();
    r.exponential = exponentialMechanismProbabilities(r.utility.utility, r.utility.factor);
    for (std::size_t j : r.utility.best) {
        r.exactProbability += r.exponential[j];
    }
    for (NoisyMaxNoise n : {NoisyMaxNoise::Laplace, NoisyMaxNoise::Exponential}) {
        auto p = reportNoisyMaxProbabilities(r.utility.utility, 1 / r.utility.factor, n);
        if (!p) {
            r.warnings.push_back(std::string("report-noisy-max (") + noisyMaxNoiseName(n) +
                                 ") not computed: " + p.error().message);
            continue;
        }
        (n == NoisyMaxNoise::Laplace ? r.noisyMaxLaplace : r.noisyMaxExponential) = std::move(*p);
    }
    if (r.utility.best.size() > 1) {
        r.warnings.push_back(std::to_string(r.utility.best.size()) +
                             " bins tie for the exact answer");
    }
    return r;
}

Expected<SelectionPathMatrix> selectionPathMatrix(std::span<const std::int64_t> counts,
                                                  const SelectionParams& params,
                                                  std::size_t steps) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    if (auto s = validateCounts(counts); !s) {
        return s.error();
    }
    if (counts.size() < 2) {
        return Error{"counts: a path between the mode and the runner-up needs at least 2 bins"};
    }
    SelectionPathMatrix r;
    r.epsilon = params.epsilon;
    r.from =
        static_cast<std::size_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
    r.to = r.from == 0 ? 1 : 0;
    for (std::size_t j = 0; j < counts.size(); ++j) {
        if (j != r.from && counts[j] > counts[r.to]) {
            r.to = j;
        }
    }
    const std::int64_t a = counts[r.from];
    const std::int64_t b = counts[r.to];
    if (a == 0) {
        return Error{"counts: the histogram is empty; there is no one to move along the path"};
    }
    const bool replace = params.neighbouring == Neighbouring::Replace;
    if (steps == 0) {
        steps = replace ? static_cast<std::size_t>(std::min(a, (a - b) / 2 + 2))
                        : static_cast<std::size_t>(a - b + 2);
    }
    if (steps > kMaxPathSteps) {
        return Error{"steps: at most " + std::to_string(kMaxPathSteps) + " steps (got " +
                     std::to_string(steps) + ")"};
    }
    if (static_cast<double>(counts.size()) * static_cast<double>(steps + 1) > kMaxPathEntries) {
        return Error{"steps: the matrix would have " + std::to_string(counts.size()) + " × " +
                     std::to_string(steps + 1) + " entries, more than 10^7; use fewer steps"};
    }
    if (replace && static_cast<std::int64_t>(steps) > a) {
        return Error{"steps: replace-one can move at most the " + std::to_string(a) +
                     " records of the mode bin (got " + std::to_string(steps) + " steps)"};
    }
    r.description = replace
                        ? "each step moves one record from bin " + std::to_string(r.from + 1) +
                              " to bin " + std::to_string(r.to + 1) + " (replace-one neighbours)"
                        : "each step adds one record to bin " + std::to_string(r.to + 1) +
                              " (add/remove neighbours)";
    std::vector<std::int64_t> h(counts.begin(), counts.end());
    std::vector<std::vector<double>> logP;
    for (std::size_t t = 0; t <= steps; ++t) {
        if (t > 0) {
            if (replace) {
                --h[r.from];
            }
            ++h[r.to];
        }
        auto u = selectionUtility(h, params);
        if (!u) {
            return u.error();
        }
        r.datasets.push_back(h);
        logP.push_back(exponentialMechanismLogProbabilities(u->utility, u->factor));
    }
    const std::size_t k = counts.size();
    r.probability.assign(k, std::vector<double>(steps + 1));
    for (std::size_t i = 0; i < k; ++i) {
        for (std::size_t t = 0; t <= steps; ++t) {
            r.probability[i][t] = std::exp(logP[t][i]);
            if (t > 0) {
                r.achievedEpsilon =
                    std::max(r.achievedEpsilon, std::abs(logP[t][i] - logP[t - 1][i]));
            }
        }
    }
    r.verified = r.achievedEpsilon <= params.epsilon * (1 + 1e-9);
    return r;
}

}  // namespace dpx
