#include "core/teaching/teaching.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "core/base/random_variates.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/choosing/budget.h"
#include "core/ldp/protocols.h"

namespace dpx::teaching {

namespace {
constexpr std::size_t kMaxPeople = 1000000;
}  // namespace

Status validateTruthProbability(double h) {
    if (!(h > 0 && h < 1)) {
        return Error{
            "the first coin's probability of heads (answer truthfully) must lie strictly "
            "between 0 and 1 (got " +
            formatNumber(h) + "): 1 always tells the truth (no privacy), 0 never looks at it"};
    }
    return okStatus();
}

Expected<double> coinProtocolEpsilon(double truthProbability) {
    if (auto st = validateTruthProbability(truthProbability); !st) {
        return st.error();
    }
    // P(yes | yes) / P(yes | no) = [(1 + h)/2] / [(1 − h)/2]; the "no" report gives the same
    // ratio, so this is the largest log-ratio over both reports.
    return std::log((1 + truthProbability) / (1 - truthProbability));
}

Expected<std::vector<Person>> flipCoins(std::size_t people, double yesFraction,
                                        double truthProbability, std::uint64_t seed) {
    if (people == 0 || people > kMaxPeople) {
        return Error{"the class must have 1 to 1,000,000 people (got " + std::to_string(people) +
                     ")"};
    }
    if (!(yesFraction >= 0 && yesFraction <= 1)) {
        return Error{"the fraction truly answering yes must lie in [0, 1] (got " +
                     formatNumber(yesFraction) + ")"};
    }
    if (auto st = validateTruthProbability(truthProbability); !st) {
        return st.error();
    }
    const auto yesCount =
        static_cast<std::size_t>(std::llround(static_cast<double>(people) * yesFraction));
    std::vector<Person> out(people);
    for (std::size_t i = 0; i < people; ++i) {
        out[i].truth = i < yesCount;
    }
    SimulationRng rng(seed, 0);
    // Fisher–Yates: the yes-sayers in a random order.
    for (std::size_t i = people - 1; i > 0; --i) {
        const auto j = static_cast<std::size_t>(uniformInt(rng, i + 1));
        std::swap(out[i].truth, out[j].truth);
    }
    for (Person& p : out) {
        p.firstCoinHeads = rng.uniform() < truthProbability;
        p.secondCoinFlipped = !p.firstCoinHeads;
        p.secondCoinHeads = p.secondCoinFlipped && rng.uniform() < 0.5;
        p.report = p.firstCoinHeads ? p.truth : p.secondCoinHeads;
    }
    return out;
}

Expected<TallyEstimate> estimateTally(std::uint64_t people, std::uint64_t yes,
                                      double truthProbability) {
    if (people == 0) {
        return Error{"the number of people must be at least 1"};
    }
    if (yes > people) {
        return Error{"the yes count (" + std::to_string(yes) +
                     ") cannot exceed the number of people (" + std::to_string(people) + ")"};
    }
    auto eps = coinProtocolEpsilon(truthProbability);
    if (!eps) {
        return eps.error();
    }
    // The protocol is binary randomized response at ε: its estimator and variance are core/ldp's.
    const ldp::ProtocolSpec spec{ldp::Protocol::RR, *eps, 2, 1};
    auto c = ldp::oracleConstants(spec);
    if (!c) {
        return c.error();
    }
    TallyEstimate r;
    r.people = people;
    r.yes = yes;
    r.epsilon = *eps;
    const double share = static_cast<double>(yes) / static_cast<double>(people);
    r.estimate = (share - c->q) / (c->p - c->q);
    // For RR p(1 − p) = q(1 − q), so the variance does not depend on the true fraction; any f in
    // [0, 1] gives the same value.
    auto var = ldp::estimatorVariance(spec, people, std::clamp(r.estimate, 0.0, 1.0));
    if (!var) {
        return var.error();
    }
    r.standardError = std::sqrt(*var);
    r.low = r.estimate - kZ95 * r.standardError;
    r.high = r.estimate + kZ95 * r.standardError;
    return r;
}

double laplaceDifferenceDensity(double scale, double w) {
    const double a = std::abs(w) / scale;
    return (1 + a) * std::exp(-a) / (4 * scale);
}

double laplaceDifferenceSurvival(double scale, double t) {
    if (t < 0) {
        return 1 - laplaceDifferenceSurvival(scale, -t);
    }
    // ∫_t^∞ (1/(4b))(1 + w/b) e^{−w/b} dw = ¼[b·e^{−t/b} + (t + b) e^{−t/b}]/b.
    return 0.5 * std::exp(-t / scale) * (1 + t / (2 * scale));
}

Expected<DifferencingAttack> differencingAttack(double epsilon) {
    if (auto st = validateEpsilon(epsilon); !st) {
        return st.error();
    }
    DifferencingAttack a;
    a.epsilon = epsilon;
    a.scale = 1 / epsilon;
    a.successProbability = 1 - laplaceDifferenceSurvival(a.scale, 0.5);
    auto bound = posteriorBound(0.5, PrivacyLevel{epsilon, 0});
    if (!bound) {
        return bound.error();
    }
    a.posteriorBound = bound->posterior;
    return a;
}

Expected<std::vector<double>> laplaceQuantiles(double center, double scale, std::size_t k) {
    if (auto st = validatePositiveFinite(scale, "the Laplace scale b"); !st) {
        return st.error();
    }
    if (auto st = validateFinite(center, "the true count"); !st) {
        return st.error();
    }
    if (k < 1 || k > 1000) {
        return Error{"the number of dots must be 1 to 1000 (got " + std::to_string(k) + ")"};
    }
    std::vector<double> q(k);
    for (std::size_t i = 0; i < k; ++i) {
        const double u = (static_cast<double>(i) + 0.5) / static_cast<double>(k);
        // The Laplace quantile: b ln(2u) below the median, −b ln(2(1 − u)) above.
        q[i] = center + (u < 0.5 ? scale * std::log(2 * u) : -scale * std::log(2 * (1 - u)));
    }
    return q;
}

double laplaceLogLikelihoodRatio(double scale, double countWithout, double output) {
    return (std::abs(output - countWithout) - std::abs(output - countWithout - 1)) / scale;
}

// Derivation of laplaceTradeoff: D' gives o = c + Z, D gives o = c + 1 + Z with Z ~ Laplace(1/ε).
// Shift c to 0. The test "member when o > t" has α = P(Z > t), β = P(1 + Z ≤ t) = P(Z ≤ t − 1).
//   t ≥ 1:      α = ½e^{−εt} ≤ e^{−ε}/2,   β = 1 − ½e^{−ε(t−1)} = 1 − e^ε α;
//   0 ≤ t ≤ 1:  α = ½e^{−εt},              β = ½e^{ε(t−1)} = e^{−ε}/(4α);
//   t ≤ 0:      α = 1 − ½e^{εt} ≥ ½,       β = ½e^{ε(t−1)} = e^{−ε}(1 − α).
// The likelihood ratio f_D/f_D' is non-decreasing in o (constant e^{−ε} below 0 and e^ε above 1),
// so by Neyman–Pearson a threshold test is optimal at its α (on the flat parts every test of the
// same α has the same β), and every α ∈ [0, 1] is reached by some t.
double laplaceTradeoff(double epsilon, double alpha) {
    const double em = std::exp(-epsilon);
    if (alpha < em / 2) {
        return std::max(0.0, 1 - alpha / em);
    }
    if (alpha <= 0.5) {
        return em / (4 * alpha);
    }
    return em * (1 - alpha);
}

Expected<std::vector<XYPoint>> laplaceTradeoffCurve(double epsilon, std::size_t points) {
    if (auto st = validateEpsilon(epsilon); !st) {
        return st.error();
    }
    if (points < 2 || points > 100000) {
        return Error{"the number of points must be 2 to 100,000 (got " + std::to_string(points) +
                     ")"};
    }
    std::vector<double> alphas;
    alphas.reserve(points + 2);
    for (std::size_t i = 0; i < points; ++i) {
        alphas.push_back(static_cast<double>(i) / static_cast<double>(points - 1));
    }
    alphas.push_back(std::exp(-epsilon) / 2);
    alphas.push_back(0.5);
    std::sort(alphas.begin(), alphas.end());
    std::vector<XYPoint> out;
    out.reserve(alphas.size());
    for (double a : alphas) {
        out.push_back({a, laplaceTradeoff(epsilon, a)});
    }
    return out;
}

// Derivation of laplaceSumDensity: S_n = G₁ − G₂ with G₁, G₂ iid Gamma(n, b) (a Laplace(b) is the
// difference of two Exp(b)). For s ≥ 0, with g(x) = x^{n−1}e^{−x/b}/((n−1)! bⁿ),
//     f(s) = ∫₀^∞ g(s + y) g(y) dy
//          = e^{−s/b}/((n−1)!² b^{2n}) Σ_i C(n−1, i) s^{n−1−i} ∫₀^∞ y^{n−1+i} e^{−2y/b} dy
//          = e^{−s/b}/((n−1)!² b^{2n}) Σ_i C(n−1, i) s^{n−1−i} (n−1+i)! (b/2)^{n+i}.
// With j = n − 1 − i and u = s/b the powers of b collapse to 1/b and the coefficient of
// u^j e^{−u}/j! is (2n−2−j)!/((n−1−j)! (n−1)! 2^{2n−1−j}) = C(2n−2−j, n−1)/2^{2n−1−j} = c_j.
// Integrating u^j e^{−u}/j! from t/b to ∞ gives Q(j + 1, t/b), hence the tail. Checks: n = 1 gives
// e^{−u}/(2b) (Laplace), n = 2 gives (1 + u)e^{−u}/(4b) (laplaceDifferenceDensity); Σ c_j = ½.
namespace {
// The c_j for j = 0 … n − 1: c_0 = C(2n − 2, n − 1)/2^{2n−1} by lgamma, then
// c_{j+1}/c_j = 2(n − 1 − j)/(2n − 2 − j) (decreasing from c_0; the tail below 2^{−n} may
// underflow to 0, which changes no sum by more than n·2^{−n}).
std::vector<double> laplaceSumWeights(std::size_t n) {
    const double nn = static_cast<double>(n);
    std::vector<double> c(n);
    c[0] =
        std::exp(std::lgamma(2 * nn - 1) - 2 * std::lgamma(nn) - (2 * nn - 1) * std::numbers::ln2);
    for (std::size_t j = 0; j + 1 < n; ++j) {
        const double jj = static_cast<double>(j);
        c[j + 1] = c[j] * 2 * (nn - 1 - jj) / (2 * nn - 2 - jj);
    }
    return c;
}

// The Poisson(u) probabilities u^j e^{−u}/j! for j = 0 … n − 1: the one at the mode (or at n − 1
// when the mode lies beyond) by lgamma, the others by the ratios u/(j + 1) and j/u outwards from
// it, so nothing overflows and only negligible far tails underflow. u > 0.
std::vector<double> poissonWeights(std::size_t n, double u) {
    std::vector<double> w(n, 0.0);
    const auto start = std::min(n - 1, static_cast<std::size_t>(std::floor(u)));
    const double s = static_cast<double>(start);
    w[start] = std::exp(s * std::log(u) - u - std::lgamma(s + 1));
    for (std::size_t j = start; j + 1 < n; ++j) {
        w[j + 1] = w[j] * u / static_cast<double>(j + 1);
    }
    for (std::size_t j = start; j > 0; --j) {
        w[j - 1] = w[j] * static_cast<double>(j) / u;
    }
    return w;
}
}  // namespace

double laplaceSumDensity(std::size_t n, double scale, double s) {
    const double u = std::abs(s) / scale;
    const std::vector<double> c = laplaceSumWeights(n);
    if (u == 0) {
        return c[0] / scale;
    }
    const std::vector<double> w = poissonWeights(n, u);
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
        sum += c[j] * w[j];
    }
    return sum / scale;
}

double laplaceSumSurvival(std::size_t n, double scale, double t) {
    if (t < 0) {
        return 1 - laplaceSumSurvival(n, scale, -t);
    }
    const double u = t / scale;
    const std::vector<double> c = laplaceSumWeights(n);
    if (u == 0) {
        return 0.5;  // Σ c_j = ½: the law is symmetric
    }
    // Q(j + 1, u) = P(Poisson(u) ≤ j), summed from j = 0 upwards (all terms ≥ 0).
    const std::vector<double> w = poissonWeights(n, u);
    double cdf = 0, sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
        cdf += w[j];
        sum += c[j] * std::min(cdf, 1.0);
    }
    return std::min(sum, 0.5);
}

Expected<RepeatedQueryAttack> repeatedQueryAttack(double epsilon, std::size_t k,
                                                  QueryBudget budget) {
    if (auto st = validateEpsilon(epsilon); !st) {
        return st.error();
    }
    if (k < 1 || k > kMaxRepeatedQuestions) {
        return Error{"the number of repeated questions must be 1 to " +
                     std::to_string(kMaxRepeatedQuestions) + " (got " + std::to_string(k) + ")"};
    }
    RepeatedQueryAttack a;
    a.k = k;
    a.budget = budget;
    a.epsilon = epsilon;
    a.epsilonPerAnswer = epsilon;
    if (budget == QueryBudget::OneTotal) {
        auto shares = splitBudget(epsilon, std::vector<double>(k, 1.0));
        if (!shares) {
            return shares.error();
        }
        a.epsilonPerAnswer = shares->front();
    }
    a.scale = 1 / a.epsilonPerAnswer;
    const double kk = static_cast<double>(k);
    a.successProbability = 1 - laplaceSumSurvival(2 * k, a.scale, kk / 2);
    a.basicEpsilon = kk * a.epsilonPerAnswer;
    auto rho = zcdpOfPureDp(a.epsilonPerAnswer);
    if (!rho) {
        return rho.error();
    }
    a.zcdpRho = kk * *rho;
    auto ze = zcdpToEpsilon(a.zcdpRho, kCompositionDelta);
    if (!ze) {
        return ze.error();
    }
    a.zcdpEpsilon = *ze;
    a.posteriorBound = posteriorMaxPure(0.5, a.basicEpsilon);
    return a;
}

Expected<MembershipDemo> membershipDemo(const TracingAttackParams& params) {
    if (!std::isfinite(params.epsilon)) {
        return Error{"the membership lesson needs a finite ε for the noisy release (got " +
                     formatNumber(params.epsilon) + "); the no-noise baseline is run as well"};
    }
    MembershipDemo m;
    m.params = params;
    TracingAttackParams exact = params;
    exact.epsilon = std::numeric_limits<double>::infinity();
    auto base = simulateTracingAttack(exact);
    if (!base) {
        return base.error();
    }
    auto noisy = simulateTracingAttack(params);
    if (!noisy) {
        return noisy.error();
    }
    const PrivacyLevel level{params.epsilon, params.delta};
    auto region = testRegionBoundary(level, 201);
    if (!region) {
        return region.error();
    }
    auto auc = maxAuc(level);
    if (!auc) {
        return auc.error();
    }
    m.noNoise = std::move(*base);
    m.noisy = std::move(*noisy);
    m.testRegion = std::move(*region);
    m.maxAuc = *auc;
    return m;
}

}  // namespace dpx::teaching
