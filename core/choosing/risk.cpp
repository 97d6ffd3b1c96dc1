#include "core/choosing/risk.h"

#include <algorithm>
#include <array>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <optional>

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/mechanisms/gaussian_mechanism.h"

namespace dpx {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double stdNormalCdf(double x) {
    return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

Status validatePoints(std::size_t points) {
    if (points < 2) {
        return Error{"the number of points must be at least 2 (got " + std::to_string(points) +
                     ")"};
    }
    if (points > 1'000'000) {
        return Error{"the number of points must be at most 1,000,000 (got " +
                     groupThousands(static_cast<long long>(points)) + ")"};
    }
    return okStatus();
}

Status validateSlack(double slack) {
    if (!std::isfinite(slack) || slack <= 0) {
        return Error{"the posterior slack t (ε' = ε + t) must be finite and > 0 (got " +
                     formatNumber(slack) + ")"};
    }
    return okStatus();
}

// Unchecked: the bound of posteriorBound for valid arguments.
PosteriorBound posteriorBoundKernel(double p, double eps, double delta, double slack) {
    PosteriorBound b;
    if (delta == 0) {
        b.posterior = posteriorMaxPure(p, eps);
        b.epsilonEffective = eps;
        b.failureProbability = 0;
        b.interpretation =
            "for every possible output, the attacker's belief that the person is in the data is "
            "at most this (pure DP: posterior odds ≤ e^ε × prior odds)";
        return b;
    }
    const double failure = delta / -std::expm1(-slack);
    b.epsilonEffective = eps + slack;
    if (!(failure < 1)) {
        b.posterior = 1;
        b.failureProbability = 1;
        b.interpretation = "no bound: δ is too large for a posterior guarantee (δ/(1 − e^−t) ≥ 1)";
        return b;
    }
    b.posterior = posteriorMaxPure(p, b.epsilonEffective);
    b.failureProbability = failure;
    b.interpretation =
        "except on outputs of total probability at most failure_probability (whether or not the "
        "person is in the data), the attacker's belief is at most this (posterior odds ≤ "
        "e^(ε+t) × prior odds, t = slack)";
    return b;
}

}  // namespace

Status PrivacyLevel::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (!std::isfinite(delta) || delta < 0 || delta > 1) {
        return Error{"δ must be in [0, 1] (got " + formatNumber(delta) + ")"};
    }
    return okStatus();
}

Status validateUserLevel(const PrivacyLevel& level) {
    if (auto s = level.validate(); !s) {
        return s;
    }
    if (level.delta >= 1) {
        return Error{"δ must be in [0, 1): δ = 1 promises nothing (got " +
                     formatNumber(level.delta) + ")"};
    }
    return okStatus();
}

Status validatePrior(double prior) {
    if (!std::isfinite(prior) || prior <= 0 || prior >= 1) {
        return Error{"the prior probability p must be in the open interval (0, 1) (got " +
                     formatNumber(prior) + ")"};
    }
    return okStatus();
}

double posteriorMaxPure(double prior, double epsilon) {
    // p / (p + (1 − p) e^{−ε}): the odds form, finite for ε = ∞.
    return prior / (prior + (1 - prior) * std::exp(-epsilon));
}

Expected<PosteriorBound> posteriorBound(double prior, const PrivacyLevel& level, double slack) {
    if (auto s = level.validate(); !s) {
        return s.error();
    }
    if (auto s = validatePrior(prior); !s) {
        return s.error();
    }
    if (level.delta > 0) {
        if (auto s = validateSlack(slack); !s) {
            return s.error();
        }
    }
    return posteriorBoundKernel(prior, level.epsilon, level.delta, slack);
}

Expected<double> posteriorGivenAccusation(double prior, const PrivacyLevel& level,
                                          double falsePositiveRate) {
    if (auto s = level.validate(); !s) {
        return s.error();
    }
    if (auto s = validatePrior(prior); !s) {
        return s.error();
    }
    const double a = falsePositiveRate;
    if (!std::isfinite(a) || a <= 0 || a > 1) {
        return Error{"the false-positive rate α must be in (0, 1] (got " + formatNumber(a) + ")"};
    }
    // 1 − f(α) = min{1, δ + e^ε α, 1 − e^{−ε}(1 − δ − α)}, written without the cancellation of
    // 1 − (1 − δ − e^ε α) at small α.
    const double tpr = std::min({1.0, level.delta + std::exp(level.epsilon) * a,
                                 1 - std::exp(-level.epsilon) * (1 - level.delta - a)});
    if (tpr <= 0) {
        return 0.0;
    }
    return prior * tpr / (prior * tpr + (1 - prior) * a);
}

Expected<std::vector<XYPoint>> posteriorOverPrior(const PrivacyLevel& level, std::size_t points,
                                                  double slack) {
    if (auto s = validatePoints(points); !s) {
        return s.error();
    }
    std::vector<XYPoint> out;
    out.reserve(points);
    for (std::size_t i = 0; i < points; ++i) {
        const double p = static_cast<double>(i + 1) / static_cast<double>(points + 1);
        auto b = posteriorBound(p, level, slack);
        if (!b) {
            return b.error();
        }
        out.push_back({p, b->posterior});
    }
    return out;
}

Expected<std::vector<XYPoint>> posteriorOverEpsilon(double prior, double delta,
                                                    const std::vector<double>& epsilons,
                                                    double slack) {
    if (epsilons.empty()) {
        return Error{"no ε values given"};
    }
    std::vector<XYPoint> out;
    out.reserve(epsilons.size());
    for (double e : epsilons) {
        auto b = posteriorBound(prior, {e, delta}, slack);
        if (!b) {
            return b.error();
        }
        out.push_back({e, b->posterior});
    }
    return out;
}

double tradeoffEpsDelta(double epsilon, double delta, double alpha) {
    const double a = 1 - delta - std::exp(epsilon) * alpha;
    const double b = std::exp(-epsilon) * (1 - delta - alpha);
    return std::max({0.0, a, b});
}

Expected<std::vector<XYPoint>> testRegionBoundary(const PrivacyLevel& level, std::size_t points) {
    if (auto s = level.validate(); !s) {
        return s.error();
    }
    if (auto s = validatePoints(points); !s) {
        return s.error();
    }
    std::vector<double> alphas;
    alphas.reserve(points + 2);
    for (std::size_t i = 0; i < points; ++i) {
        alphas.push_back(static_cast<double>(i) / static_cast<double>(points - 1));
    }
    // Kinks of f: where 1 − δ − e^ε α meets e^{−ε}(1 − δ − α) (on the diagonal β = α), and where
    // f reaches 0.
    alphas.push_back((1 - level.delta) / (1 + std::exp(level.epsilon)));
    alphas.push_back(1 - level.delta);
    std::sort(alphas.begin(), alphas.end());
    alphas.erase(std::unique(alphas.begin(), alphas.end()), alphas.end());
    std::vector<XYPoint> out;
    out.reserve(alphas.size());
    for (double a : alphas) {
        out.push_back({a, tradeoffEpsDelta(level.epsilon, level.delta, a)});
    }
    return out;
}

Expected<double> maxAuc(const PrivacyLevel& level) {
    if (auto s = level.validate(); !s) {
        return s.error();
    }
    const std::array<double, 4> xs{0.0, (1 - level.delta) / (1 + std::exp(level.epsilon)),
                                   1 - level.delta, 1.0};
    double area = 0;  // ∫ f: trapezoids between the kinks are exact (f is linear between them)
    for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
        const double fa = tradeoffEpsDelta(level.epsilon, level.delta, xs[i]);
        const double fb = tradeoffEpsDelta(level.epsilon, level.delta, xs[i + 1]);
        area += 0.5 * (fa + fb) * (xs[i + 1] - xs[i]);
    }
    return 1 - area;
}

double gaussianTradeoff(double mu, double alpha) {
    if (alpha <= 0) {
        return 1;
    }
    if (alpha >= 1) {
        return 0;
    }
    const boost::math::normal_distribution<double> n01;
    // Φ⁻¹(1 − α) as the complement quantile, accurate for tiny α.
    const double z = boost::math::quantile(boost::math::complement(n01, alpha));
    return stdNormalCdf(z - mu);
}

Expected<std::vector<XYPoint>> gaussianTradeoffCurve(double mu, std::size_t points) {
    if (!std::isfinite(mu) || mu < 0) {
        return Error{"μ = Δ/σ must be finite and ≥ 0 (got " + formatNumber(mu) + ")"};
    }
    if (auto s = validatePoints(points); !s) {
        return s.error();
    }
    std::vector<XYPoint> out;
    out.reserve(points);
    for (std::size_t i = 0; i < points; ++i) {
        const double a = static_cast<double>(i) / static_cast<double>(points - 1);
        out.push_back({a, gaussianTradeoff(mu, a)});
    }
    return out;
}

const char* groupBoundName(GroupBound b) {
    return b == GroupBound::Chain ? "chain" : "textbook";
}

PrivacyLevel GroupPrivacy::level() const {
    return {epsilon, std::min(delta, 1.0)};
}

Expected<GroupPrivacy> groupPrivacy(const PrivacyLevel& level, unsigned k, GroupBound bound) {
    if (auto s = level.validate(); !s) {
        return s.error();
    }
    if (k < 1) {
        return Error{"the group size k must be at least 1 (got " + std::to_string(k) + ")"};
    }
    GroupPrivacy g;
    g.k = k;
    g.bound = bound;
    const double kd = static_cast<double>(k);
    g.epsilon = kd * level.epsilon;
    if (!std::isfinite(g.epsilon)) {
        return Error{"the group ε = k·ε overflows (k = " + std::to_string(k) + ")"};
    }
    if (level.delta == 0) {
        g.delta = 0;
    } else if (bound == GroupBound::Textbook) {
        g.delta = kd * std::exp((kd - 1) * level.epsilon) * level.delta;
    } else {
        // δ Σ_{j<k} e^{jε} = δ (e^{kε} − 1)/(e^ε − 1), with expm1 for small ε.
        g.delta = level.delta * std::expm1(kd * level.epsilon) / std::expm1(level.epsilon);
    }
    if (std::isnan(g.delta)) {
        g.delta = kInf;  // ∞/∞ for huge kε: the bound is vacuous either way
    }
    return g;
}

Status TracingAttackParams::validate() const {
    if (n < 1 || d < 1) {
        return Error{"the tracing attack needs n ≥ 1 records and d ≥ 1 dimensions"};
    }
    if (trials < 1) {
        return Error{"the tracing attack needs at least 1 trial"};
    }
    if (candidatesPerTrial > n) {
        return Error{"candidates per trial (" + std::to_string(candidatesPerTrial) +
                     ") cannot exceed the number of records n = " + std::to_string(n)};
    }
    if (std::isnan(epsilon) || epsilon <= 0) {
        return Error{"ε must be > 0 (or ∞ for no noise), got " + formatNumber(epsilon)};
    }
    if (std::isfinite(epsilon)) {
        if (auto s = validateDelta(delta); !s) {
            return s;
        }
    }
    const double c = static_cast<double>(candidatesPerTrial ? candidatesPerTrial : n);
    const double draws =
        static_cast<double>(trials) * (static_cast<double>(n) + 2 * c) * static_cast<double>(d);
    if (draws > 4e9) {
        return Error{"the simulation is too large: trials·(n + 2·candidates)·d = " +
                     formatNumber(draws) + " random draws (limit 4e9)"};
    }
    return okStatus();
}

Expected<TracingAttackResult> rocFromScores(std::vector<double> memberScores,
                                            std::vector<double> nonMemberScores) {
    if (memberScores.empty() || nonMemberScores.empty()) {
        return Error{"an ROC curve needs at least one member and one non-member score"};
    }
    for (const auto* v : {&memberScores, &nonMemberScores}) {
        for (double x : *v) {
            if (!std::isfinite(x)) {
                return Error{"a score is not finite (" + formatNumber(x) + ")"};
            }
        }
    }
    TracingAttackResult r;
    std::vector<double> pos = memberScores;
    std::vector<double> neg = nonMemberScores;
    std::sort(pos.begin(), pos.end(), std::greater<>());
    std::sort(neg.begin(), neg.end(), std::greater<>());
    const double np = static_cast<double>(pos.size());
    const double nn = static_cast<double>(neg.size());
    std::size_t i = 0, j = 0;  // scores ≥ the current threshold
    r.roc.push_back({0.0, 1.0});
    double auc = 0;
    double prevFpr = 0, prevTpr = 0;
    while (i < pos.size() || j < neg.size()) {
        // Next threshold: the largest score not yet counted.
        double t = -kInf;
        if (i < pos.size()) {
            t = pos[i];
        }
        if (j < neg.size()) {
            t = std::max(t, neg[j]);
        }
        while (i < pos.size() && pos[i] >= t) {
            ++i;
        }
        while (j < neg.size() && neg[j] >= t) {
            ++j;
        }
        const double fpr = static_cast<double>(j) / nn;
        const double tpr = static_cast<double>(i) / np;
        auc += 0.5 * (tpr + prevTpr) * (fpr - prevFpr);  // trapezoid = Mann–Whitney with ties ½
        prevFpr = fpr;
        prevTpr = tpr;
        r.roc.push_back({fpr, 1 - tpr});
    }
    r.auc = auc;
    r.memberScores = std::move(memberScores);
    r.nonMemberScores = std::move(nonMemberScores);
    return r;
}

Expected<TracingAttackResult> simulateTracingAttack(const TracingAttackParams& params) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    const std::size_t n = params.n;
    const std::size_t d = params.d;
    const std::size_t c = params.candidatesPerTrial ? params.candidatesPerTrial : n;
    double sigma = 0;
    std::optional<VectorMeanMechanism> mech;
    if (std::isfinite(params.epsilon)) {
        // Replacing one record of {±1}^d moves the mean by at most 2√d/n in L2 (and 2d/n in L1);
        // calibrateVectorMean uses these sensitivities.
        auto m = calibrateVectorMean({n, d, params.epsilon, params.delta, params.mechanism});
        if (!m) {
            return m.error();
        }
        mech = std::move(*m);
        sigma = std::sqrt(mech->expectedSquaredNoise / static_cast<double>(d));
    }
    std::vector<double> members, nonMembers;
    members.reserve(params.trials * c);
    nonMembers.reserve(params.trials * c);
    std::vector<double> mu(d), p1(d), sum(d), release(d), noise(d, 0.0);
    std::vector<double> kept(c * d);  // the first c records (iid, so as good as any c)
    for (std::size_t trial = 0; trial < params.trials; ++trial) {
        SimulationRng rng(params.seed, trial);
        for (std::size_t k = 0; k < d; ++k) {
            mu[k] = 2 * rng.uniform() - 1;
            p1[k] = 0.5 * (1 + mu[k]);  // P(x_k = +1) so that E x_k = μ_k
        }
        std::fill(sum.begin(), sum.end(), 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t k = 0; k < d; ++k) {
                const double x = rng.uniform() < p1[k] ? 1.0 : -1.0;
                sum[k] += x;
                if (i < c) {
                    kept[i * d + k] = x;
                }
            }
        }
        if (mech) {
            sampleVectorNoise(*mech, rng, noise);  // Gaussian: the same draws as σ·rng.normal()
        }
        for (std::size_t k = 0; k < d; ++k) {
            release[k] = sum[k] / static_cast<double>(n) + noise[k];
            release[k] -= mu[k];  // M(X) − μ
        }
        for (std::size_t i = 0; i < c; ++i) {
            double z = 0;
            for (std::size_t k = 0; k < d; ++k) {
                z += release[k] * (kept[i * d + k] - mu[k]);
            }
            members.push_back(z);
        }
        for (std::size_t i = 0; i < c; ++i) {
            double z = 0;
            for (std::size_t k = 0; k < d; ++k) {
                const double y = rng.uniform() < p1[k] ? 1.0 : -1.0;
                z += release[k] * (y - mu[k]);
            }
            nonMembers.push_back(z);
        }
    }
    auto r = rocFromScores(std::move(members), std::move(nonMembers));
    if (!r) {
        return r.error();
    }
    r->sigma = sigma;
    if (mech) {
        r->mechanism = vectorMechanismName(mech->spec.kind);
        r->warnings = mech->warnings;
    }
    if (c > 1) {
        r->warnings.push_back(
            "scores of candidates from the same dataset share μ and the noise, so they are not "
            "independent; the ROC is unbiased but its sampling error is larger than for " +
            std::to_string(r->memberScores.size()) + " independent scores");
    }
    return r;
}

}  // namespace dpx
