#include "core/release/release.h"

#include <cmath>
#include <ctime>
#include <limits>
#include <span>

#include "core/base/validation.h"
#include "core/histogram/dataset.h"

namespace dpx {

namespace {

constexpr const char* kCks =
    "Canonne, Kamath & Steinke, The Discrete Gaussian for Differential "
    "Privacy, NeurIPS 2020";

// ε ≤ 100: e^ε beyond that is no privacy, and expLowerBound's series stays short.
const Rational& maxEpsilon() {
    static const Rational v = Rational::integer(100);
    return v;
}

Expected<Rational> parseEpsilon(const std::string& text) {
    if (text.empty()) {
        return Error{"epsilon: missing (give ε as a decimal number, e.g. 0.1)"};
    }
    auto e = parseDecimal(text, "epsilon");
    if (!e) {
        return e.error();
    }
    if (e->sign() <= 0 || *e > maxEpsilon()) {
        return Error{"epsilon: must be in (0, 100] (got " + text + ")"};
    }
    return e;
}

bool isZeroText(const std::string& text) {
    if (text.empty()) {
        return true;
    }
    auto d = parseDecimal(text, "delta");
    return d && d->sign() == 0;
}

Expected<Rational> parseDelta(const std::string& text) {
    if (text.empty()) {
        return Error{"delta: discrete-gaussian needs δ in (0, 1) (e.g. 1e-6)"};
    }
    auto d = parseDecimal(text, "delta");
    if (!d) {
        return d.error();
    }
    if (d->sign() <= 0 || *d >= Rational::integer(1)) {
        return Error{"delta: must be in (0, 1) for discrete-gaussian (got " + text + ")"};
    }
    return d;
}

// The largest double ≤ r (r > 0 and within the double range).
double doubleAtMost(const Rational& r) {
    double d = r.toDouble();
    for (int i = 0; i < 4; ++i) {
        auto back = Rational::fromDouble(d);
        if (back && *back <= r) {
            return d;
        }
        d = std::nextafter(d, 0.0);
    }
    return d;
}

Rational multiply(const Rational& a, const Rational& b) {
    return Rational::fraction(a.numerator() * b.numerator(), a.denominator() * b.denominator())
        .value();
}

Rational divide(const Rational& a, const Rational& b) {
    return Rational::fraction(a.numerator() * b.denominator(), a.denominator() * b.numerator())
        .value();
}

// (Δ1, Δ2 upper bound) of a histogram under the relation with rows-per-person cap k.
std::int64_t l1Of(Neighbouring relation, std::int64_t cap) {
    return relation == Neighbouring::AddRemove ? cap : 2 * cap;
}

// Δ2² of a histogram: a person's rows form a non-negative integer vector a of L1 norm ≤ cap, so
// ‖a‖2 ≤ cap (add/remove); replacing a by b moves the counts by a − b with
// ‖a − b‖2² = ‖a‖2² + ‖b‖2² − 2⟨a, b⟩ ≤ 2·cap² (replace-one; ⟨a, b⟩ ≥ 0).
std::int64_t l2SquaredOf(Neighbouring relation, std::int64_t cap) {
    return relation == Neighbouring::AddRemove ? cap * cap : 2 * cap * cap;
}

// A double as an odd-or-zero integer mantissa and a binary exponent: d = m·2^e exactly.
struct Dyadic {
    std::int64_t m = 0;
    int e = 0;
};
Dyadic dyadicOf(double d) {
    if (d == 0) {
        return {};
    }
    int exp = 0;
    const double frac = std::frexp(d, &exp);  // d = frac·2^exp, 0.5 ≤ frac < 1
    return {static_cast<std::int64_t>(std::ldexp(frac, 53)), exp - 53};
}

// a·2^ea ≤ b·2^eb for non-negative big integers.
bool lessEqualScaled(BigInt a, int ea, BigInt b, int eb) {
    if (ea > eb) {
        a <<= static_cast<unsigned>(ea - eb);
    } else {
        b <<= static_cast<unsigned>(eb - ea);
    }
    return a <= b;
}

std::string formatCount(std::int64_t v) {
    return std::to_string(v);
}

std::string personPhrase(const ReleaseSpec& spec) {
    const std::string rows =
        spec.contributionCap == 1
            ? "who contributes one row"
            : "who contributes at most " + formatCount(spec.contributionCap) + " rows";
    return spec.relation == Neighbouring::AddRemove
               ? "Adding or removing any one person (" + rows + ")"
               : "Replacing any one person (" + rows + ") by another";
}

}  // namespace

const char* releaseMechanismName(ReleaseMechanism mechanism) {
    switch (mechanism) {
        case ReleaseMechanism::DiscreteLaplace:
            return "discrete-laplace";
        case ReleaseMechanism::DiscreteGaussian:
            return "discrete-gaussian";
        case ReleaseMechanism::GeometricMatrix:
            return "geometric-matrix";
    }
    return "?";
}

Expected<ReleaseMechanism> releaseMechanismFromName(const std::string& name) {
    for (auto m : {ReleaseMechanism::DiscreteLaplace, ReleaseMechanism::DiscreteGaussian,
                   ReleaseMechanism::GeometricMatrix}) {
        if (name == releaseMechanismName(m)) {
            return m;
        }
    }
    return Error{"mechanism: '" + name +
                 "' is not one of discrete-laplace, discrete-gaussian, geometric-matrix"};
}

Status ReleaseSpec::validate() const {
    auto eps = parseEpsilon(epsilon);
    if (!eps) {
        return eps.error();
    }
    if (!(confidenceLevel > 0 && confidenceLevel < 1)) {
        return Error{
            "confidence: the level of the intervals must be strictly between 0 and 1, "
            "e.g. 0.95 (got " +
            formatShortest(confidenceLevel) + ")"};
    }
    if (samplePopulation != 0) {
        // Issue #22: declared figures only (docs/intervals.md, "Sampling error in a release").
        if (!(std::isfinite(samplePopulation) && samplePopulation >= 2 &&
              samplePopulation <= 1e15)) {
            return Error{"sample of: the population size N must be a number in [2, 1e15] (got " +
                         formatShortest(samplePopulation) + ")"};
        }
        if (!(std::isfinite(designEffect) && designEffect >= 1 && designEffect <= 1e6)) {
            return Error{
                "design effect: must be a number in [1, 1e6], 1 for a simple random "
                "sample (got " +
                formatShortest(designEffect) + ")"};
        }
        if (samplePopulation < 2 * designEffect) {
            return Error{"sample of: the population N = " + formatShortest(samplePopulation) +
                         " must be at least twice the design effect " +
                         formatShortest(designEffect) +
                         " (an effective sample of at least 2 rows)"};
        }
        if (mechanism == ReleaseMechanism::GeometricMatrix) {
            return Error{
                "sample of: sampling intervals are stated for discrete-laplace and "
                "discrete-gaussian; the truncated geometric matrix's noise depends on the count"};
        }
        if (postProcessing == EstimatorKind::Resize ||
            postProcessing == EstimatorKind::NoiseFirst) {
            return Error{
                "sample of: sampling intervals are stated after none or clamp; resize "
                "and NoiseFirst move each value by an amount the noise law does not "
                "bound"};
        }
    } else if (designEffect != 1) {
        return Error{"design effect: goes with a declared sample (sample of N)"};
    }
    if (mechanism == ReleaseMechanism::DiscreteGaussian) {
        auto d = parseDelta(delta);
        if (!d) {
            return d.error();
        }
    } else if (!isZeroText(delta)) {
        auto d = parseDecimal(delta, "delta");
        if (!d) {
            return d.error();
        }
        return Error{std::string("delta: ") + releaseMechanismName(mechanism) +
                     " is pure ε-DP and takes no δ (got " + delta + ")"};
    }
    if (mechanism == ReleaseMechanism::GeometricMatrix) {
        if (groupSize < 1 || groupSize > kMaxReleaseGroupSize) {
            return Error{"group size n: geometric-matrix needs 1 ≤ n ≤ " +
                         formatCount(kMaxReleaseGroupSize) + " (got " + formatCount(groupSize) +
                         ")"};
        }
        if (postProcessing == EstimatorKind::NoiseFirst) {
            return Error{
                "post-processing: noisefirst needs one noise variance for every bin, and the "
                "matrix's depends on the count; use none, clamp or resize with geometric-matrix"};
        }
    } else if (groupSize != 0) {
        return Error{"group size n: only geometric-matrix takes a group size"};
    }
    if (contributionCap < 1 || contributionCap > kMaxReleaseCap) {
        return Error{"contribution cap: must be a whole number in [1, " +
                     formatCount(kMaxReleaseCap) + "] (got " + formatCount(contributionCap) + ")"};
    }
    // The smallest ε each pure mechanism can run (issue #17: below it the release was refused
    // late, as if the data or the budget were at fault). Discrete Laplace: the exact sampler's
    // scale Δ1/ε is at most 10^12. Geometric matrix: ε/Δ1 per unit ≥ 10^-9 — below about 10^-10
    // the matrix in doubles cannot be verified against e^(ε/Δ1) exactly (its ratios round), and
    // α = e^(−ε/Δ1) stops being representable near 10^-16.
    const std::int64_t l1 = l1Of(relation, contributionCap);
    const std::string sensitivity = "L1 sensitivity Δ1 = " + formatCount(l1) + " (" +
                                    neighbouringName(relation) + ", contribution cap " +
                                    formatCount(contributionCap) + ")";
    if (mechanism == ReleaseMechanism::DiscreteLaplace &&
        *eps < Rational::fraction(l1, BigInt(1000000000000LL)).value()) {
        return Error{"epsilon: " + epsilon + " is below " +
                     formatNumber(static_cast<double>(l1) * 1e-12) +
                     ", the smallest ε discrete-laplace accepts at " + sensitivity +
                     " (its scale Δ1/ε is at most 10^12)"};
    }
    if (mechanism == ReleaseMechanism::GeometricMatrix &&
        *eps < Rational::fraction(l1, BigInt(1000000000)).value()) {
        return Error{"epsilon: " + epsilon + " is below " +
                     formatNumber(static_cast<double>(l1) * 1e-9) +
                     ", the smallest ε geometric-matrix accepts at " + sensitivity +
                     " (ε/Δ1 ≥ 10^-9 per unit, where its matrix can be verified exactly)"};
    }
    if (!binsDeclared) {
        return Error{
            "bins: a release needs bins declared before the data are read (fixed edges, integer "
            "ranges or a category list); bins found in the data reveal which values occur"};
    }
    if (appVersion.empty()) {
        return Error{"app version: empty"};
    }
    if (!timestamp.empty()) {
        // YYYY-MM-DDTHH:MM:SSZ
        const bool shape = timestamp.size() == 20 && timestamp[4] == '-' && timestamp[7] == '-' &&
                           timestamp[10] == 'T' && timestamp[13] == ':' && timestamp[16] == ':' &&
                           timestamp[19] == 'Z';
        bool digits = shape;
        for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}) {
            digits = digits && timestamp[i] >= '0' && timestamp[i] <= '9';
        }
        if (!digits) {
            return Error{"timestamp: '" + timestamp + "' is not UTC time YYYY-MM-DDTHH:MM:SSZ"};
        }
    }
    return okStatus();
}

Expected<ReleaseCost> releaseCost(const ReleaseSpec& spec) {
    if (auto v = spec.validate(); !v) {
        return v.error();
    }
    const Rational eps = parseEpsilon(spec.epsilon).value();
    if (spec.mechanism != ReleaseMechanism::DiscreteGaussian) {
        return ReleaseCost{spec.epsilon, "0",
                           divide(multiply(eps, eps), Rational::integer(2)).toString(), ""};
    }
    auto cal = calibrateReleaseGaussian(eps, parseDelta(spec.delta).value(), spec.relation,
                                        spec.contributionCap);
    if (!cal) {
        return cal.error();
    }
    return ReleaseCost{spec.epsilon, spec.delta, cal->rho.toString(), cal->sigma2.toString()};
}

namespace {

// ln of CKS Cor. 13's δ at α: (α−1)(αρ−ε) + α·ln(1 − 1/α) − ln(α−1), α = 1 + e^u.
long double logZcdpDeltaAt(long double u, long double rho, long double eps) {
    const long double am1 = std::exp(u);  // α − 1
    const long double alpha = 1 + am1;
    return am1 * (alpha * rho - eps) + alpha * std::log1p(-1 / alpha) - u;
}

}  // namespace

Expected<double> zcdpDeltaUpperBound(const Rational& rho, const Rational& epsilon) {
    if (rho.sign() <= 0) {
        return Error{"zCDP conversion: ρ must be > 0"};
    }
    if (epsilon.sign() <= 0 || epsilon > maxEpsilon()) {
        return Error{"zCDP conversion: ε must be in (0, 100]"};
    }
    const long double r = rho.toDouble();
    const long double e = epsilon.toDouble();
    if (!(r > 0) || !std::isfinite(static_cast<double>(r))) {
        return Error{"zCDP conversion: ρ = " + rho.toString() + " is outside the double range"};
    }
    // Golden-section search for the minimum over u = ln(α − 1) in [−40, 40]. Any α is valid, so
    // the search only decides how tight the bound is.
    const long double phi = (std::sqrt(5.0L) - 1) / 2;
    long double a = -40, b = 40;
    long double c = b - phi * (b - a), d = a + phi * (b - a);
    long double fc = logZcdpDeltaAt(c, r, e), fd = logZcdpDeltaAt(d, r, e);
    for (int i = 0; i < 200; ++i) {
        if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - phi * (b - a);
            fc = logZcdpDeltaAt(c, r, e);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + phi * (b - a);
            fd = logZcdpDeltaAt(d, r, e);
        }
    }
    // The bound is evaluated at one α (the conversion's argument is only valid for the α that is
    // plugged in, so the value must come from that α): u = c. ρ, ε as long doubles are within an
    // ulp of the exact values; the relative margin covers that and the evaluation's rounding.
    const long double logDelta = logZcdpDeltaAt(c, r, e);
    if (!std::isfinite(static_cast<double>(logDelta)) || logDelta >= 0) {
        return 1.0;
    }
    const long double delta = std::exp(logDelta) * (1 + 1e-6L);
    double out = static_cast<double>(delta);
    if (static_cast<long double>(out) < delta) {
        out = std::nextafter(out, 2.0);
    }
    if (out <= 0) {
        out = std::numeric_limits<double>::denorm_min();
    }
    return std::min(out, 1.0);
}

namespace {

// The (ε, δ) a discrete-Gaussian calibration accepts.
Status checkGaussianTarget(const Rational& epsilon, const Rational& delta) {
    if (delta.sign() <= 0 || delta >= Rational::integer(1)) {
        return Error{"delta: must be in (0, 1) for discrete-gaussian"};
    }
    if (epsilon.sign() <= 0 || epsilon > maxEpsilon()) {
        return Error{"epsilon: must be in (0, 100]"};
    }
    return okStatus();
}

}  // namespace

Expected<ReleaseGaussianCalibration> calibrateGaussianByZcdp(
    const Rational& epsilon, const Rational& delta, std::int64_t l2Squared,
    const std::string& methodWhat, const std::string& errorWhat, const std::string& smallerWhat) {
    if (l2Squared < 1) {
        return Error{"discrete-gaussian calibration: Δ2² must be ≥ 1 (got " +
                     formatCount(l2Squared) + ")"};
    }
    if (auto t = checkGaussianTarget(epsilon, delta); !t) {
        return t.error();
    }
    const double target = doubleAtMost(delta);
    ReleaseGaussianCalibration out;
    out.l2Squared = l2Squared;
    const Rational l2sq = Rational::integer(out.l2Squared);
    auto deltaAt = [&](const Rational& rho) { return zcdpDeltaUpperBound(rho, epsilon); };
    // ρ* with δ(ρ*) ≤ target, by bracketing and bisection in log ρ (δ is increasing in ρ: for
    // every α the expression is).
    const double eps = epsilon.toDouble();
    double lo = eps * eps / 2, hi = 0;
    for (int i = 0;; ++i) {
        auto d = deltaAt(Rational::fromDouble(lo).value());
        if (!d) {
            return d.error();
        }
        if (*d <= target) {
            break;
        }
        if (i > 200) {
            return Error{"discrete-gaussian calibration: no ρ meets δ = " + formatShortest(target)};
        }
        hi = lo;
        lo /= 2;
    }
    if (hi == 0) {
        hi = lo * 2;
        while (*deltaAt(Rational::fromDouble(hi).value()) <= target) {
            lo = hi;
            hi *= 2;
        }
    }
    for (int i = 0; i < 80; ++i) {
        const double mid = std::sqrt(lo * hi);
        if (*deltaAt(Rational::fromDouble(mid).value()) <= target) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // σ² = Δ2²/(2ρ*) rounded up to m·10^k with six significant digits, then checked exactly.
    const double s2 = static_cast<double>(out.l2Squared) / (2 * lo);
    int k = static_cast<int>(std::floor(std::log10(s2))) - 5;
    auto m = static_cast<std::int64_t>(std::ceil(s2 / std::pow(10.0, k)));
    for (int attempt = 0; attempt < 1000; ++attempt) {
        if (m >= 1000000) {
            m = (m + 9) / 10;
            ++k;
        }
        auto sigma2 = parseDecimal(std::to_string(m) + "e" + std::to_string(k), "sigma^2");
        if (!sigma2) {
            return sigma2.error();
        }
        DiscreteGaussianParams params{*sigma2, 1};
        if (auto v = params.validate(); !v) {
            if (*sigma2 > Rational::integer(1)) {  // σ² above 10^12: ε or δ too small
                return Error{"discrete-gaussian calibration: (ε = " + formatNumber(eps) +
                             ", δ = " + formatShortest(target) + ") " + errorWhat + " needs σ² ≈ " +
                             formatNumber(s2) +
                             ", above 10^12, the largest the exact sampler accepts; use a "
                             "larger ε or δ, or " +
                             smallerWhat};
            }
            return Error{"discrete-gaussian calibration: σ² = " + sigma2->toString() +
                         " is out of range: " + v.error().message};
        }
        const Rational rho = divide(l2sq, multiply(Rational::integer(2), *sigma2));
        auto d = deltaAt(rho);
        if (!d) {
            return d.error();
        }
        if (*d <= target) {
            out.sigma2 = *sigma2;
            out.rho = rho;
            out.delta = *d;
            out.method =
                "delta_achieved converts rho-zCDP (rho = Delta2^2/(2 sigma^2), Delta2^2 = " +
                std::to_string(out.l2Squared) + " " + methodWhat +
                ") by CKS 2020 Corollary 13, rounded up";
            return out;
        }
        ++m;
    }
    return Error{"discrete-gaussian calibration: no σ² on the grid meets δ = " +
                 formatShortest(target)};
}

Expected<ReleaseGaussianCalibration> calibrateReleaseGaussian(const Rational& epsilon,
                                                              const Rational& delta,
                                                              Neighbouring relation,
                                                              std::int64_t cap) {
    if (cap < 1 || cap > kMaxReleaseCap) {
        return Error{"contribution cap: must be a whole number in [1, " +
                     formatCount(kMaxReleaseCap) + "] (got " + formatCount(cap) + ")"};
    }
    if (auto t = checkGaussianTarget(epsilon, delta); !t) {
        return t.error();
    }
    const double target = doubleAtMost(delta);
    ReleaseGaussianCalibration out;
    out.l2Squared = l2SquaredOf(relation, cap);
    if (relation == Neighbouring::AddRemove && cap == 1) {
        auto cal = calibrateDiscreteGaussian(epsilon, target, 1);
        if (!cal) {
            return Error{"discrete-gaussian calibration: " + cal.error().message};
        }
        out.sigma2 = cal->sigma2;
        out.rho = cal->rho;
        out.delta = cal->delta;
        out.warnings = cal->warnings;
        out.method =
            "delta_achieved is the exact delta(epsilon) of CKS 2020 Theorem 7 for a change of 1 "
            "in one bin (add/remove, one row per person), rounded up";
        return out;
    }
    const std::string who =
        std::string(neighbouringName(relation)) + " with cap " + formatCount(cap);
    auto zcdp = calibrateGaussianByZcdp(epsilon, delta, out.l2Squared, "for " + who,
                                        "with " + std::string(neighbouringName(relation)) +
                                            " neighbours and contribution cap " + formatCount(cap),
                                        "a smaller contribution cap");
    if (!zcdp) {
        return zcdp.error();
    }
    return zcdp;
}

std::string utcTimestampNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

Rational expLowerBound(const Rational& x) {
    // Σ_{i≤k} x^i/i! = N_k/D_k with D_k = q^k·k!, N_k = N_{k−1}·q·k + p^k (x = p/q ≥ 0).
    const BigInt& p = x.numerator();
    const BigInt& q = x.denominator();
    BigInt n = 1, d = 1, pk = 1;
    for (unsigned k = 1; k < 100000; ++k) {
        pk *= p;
        n = n * q * k + pk;
        d = d * q * k;
        // Past k > 2x every further term at most halves, so the tail is below the last term;
        // stop once that term is below 2^−80 of the sum.
        if (BigInt(k) * q > 2 * p && (pk << 80) < n) {
            break;
        }
    }
    return Rational::fraction(n, d).value();
}

Status verifyMatrixEpsilon(const CountMechanism& mechanism, const Rational& epsilon) {
    if (epsilon.sign() <= 0 || epsilon > maxEpsilon()) {
        return Error{"matrix check: ε must be in (0, 100]"};
    }
    auto sampler = CountMechanismSampler::create(mechanism);
    if (!sampler) {
        return sampler.error();
    }
    const Rational bound = expLowerBound(epsilon);
    const std::size_t size = mechanism.size();
    std::vector<Rational> sums(size);
    for (std::size_t j = 0; j < size; ++j) {
        sums[j] = sampler->columnSum(j);
    }
    // a = P[i][j]/S_j ≤ L·b = L·P[i][j+1]/S_{j+1} ⇔ P_ij·S_j.den·S_{j+1}.num·L.den ≤
    // P_i,j+1·S_{j+1}.den·S_j.num·L.num; and the same with the columns swapped.
    for (std::size_t j = 0; j + 1 < size; ++j) {
        const Rational& s0 = sums[j];
        const Rational& s1 = sums[j + 1];
        const BigInt left0 = s0.denominator() * s1.numerator() * bound.denominator();
        const BigInt right0 = s1.denominator() * s0.numerator() * bound.numerator();
        const BigInt left1 = s1.denominator() * s0.numerator() * bound.denominator();
        const BigInt right1 = s0.denominator() * s1.numerator() * bound.numerator();
        for (std::size_t i = 0; i < size; ++i) {
            const Dyadic a = dyadicOf(mechanism.at(i, j));
            const Dyadic b = dyadicOf(mechanism.at(i, j + 1));
            if (a.m == 0 && b.m == 0) {
                continue;
            }
            const bool ok = a.m != 0 && b.m != 0 &&
                            lessEqualScaled(left0 * a.m, a.e, right0 * b.m, b.e) &&
                            lessEqualScaled(left1 * b.m, b.e, right1 * a.m, a.e);
            if (!ok) {
                const double x = mechanism.at(i, j), y = mechanism.at(i, j + 1);
                const bool tiny =
                    std::fpclassify(x) != FP_NORMAL || std::fpclassify(y) != FP_NORMAL;
                return Error{
                    "matrix check: row " + std::to_string(i) + ", columns " + std::to_string(j) +
                    " and " + std::to_string(j + 1) +
                    " of the sampled matrix differ by more than e^ε (ε = " + epsilon.toString() +
                    "); the release is refused" +
                    (tiny ? " (these entries are below the normal double range, where they lose "
                            "precision: use a smaller n or ε, e.g. n·ε per unit below 700)"
                          : "")};
            }
        }
    }
    return okStatus();
}

namespace {

double discreteLaplaceAlpha(const Rational& t) {
    return std::exp(-1.0 / t.toDouble());
}

// Built at a slightly smaller ε so that rounding of the stored doubles cannot push the exact ratio
// over e^(ε/Δ1); the exact check (verifyMatrixEpsilon) decides.
double gmEpsilonBuilt(const Rational& perUnit) {
    return perUnit.toDouble() * (1 - 1e-6);
}

}  // namespace

Expected<ReleaseNoiseLaw> releaseNoiseLaw(const ReleaseSpec& spec) {
    if (auto v = spec.validate(); !v) {
        return v.error();
    }
    const Rational eps = parseEpsilon(spec.epsilon).value();
    const std::int64_t l1 = l1Of(spec.relation, spec.contributionCap);
    ReleaseNoiseLaw law;
    law.mechanism = spec.mechanism;
    switch (spec.mechanism) {
        case ReleaseMechanism::DiscreteLaplace: {
            DiscreteLaplaceParams params{eps, l1};
            if (auto v = params.validate(); !v) {
                return v.error();
            }
            law.alpha = discreteLaplaceAlpha(params.scale());
            break;
        }
        case ReleaseMechanism::DiscreteGaussian: {
            auto cal = calibrateReleaseGaussian(eps, parseDelta(spec.delta).value(), spec.relation,
                                                spec.contributionCap);
            if (!cal) {
                return cal.error();
            }
            law.sigma2 = cal->sigma2.toDouble();
            break;
        }
        case ReleaseMechanism::GeometricMatrix:
            law.groupSize = static_cast<int>(spec.groupSize);
            law.epsilonPerUnitBuilt = gmEpsilonBuilt(divide(eps, Rational::integer(l1)));
            break;
    }
    return law;
}

ReleaseMetadata releaseMetadataCommon(const ReleaseSpec& spec, const Histogram& declaredTruth) {
    const Rational eps = parseEpsilon(spec.epsilon).value();
    const std::size_t bins = declaredTruth.size();
    const std::int64_t l1 = l1Of(spec.relation, spec.contributionCap);
    ReleaseMetadata md;
    md.mechanism = releaseMechanismName(spec.mechanism);
    md.randomness = "getrandom(2), the operating system's CSPRNG (fails closed)";
    md.epsilon = spec.epsilon;
    md.epsilonExact = eps.toString();
    md.delta = isZeroText(spec.delta) ? "0" : spec.delta;
    md.deltaAchieved = "0";
    md.l1Sensitivity = l1;
    md.l2Sensitivity = l1;
    md.l2SensitivitySquared = l2SquaredOf(spec.relation, spec.contributionCap);
    md.neighbouring = neighbouringName(spec.relation);
    md.contributionCap = spec.contributionCap;
    md.binLabels = declaredTruth.labels();
    if (md.binLabels.empty()) {
        for (std::size_t i = 0; i < bins; ++i) {
            md.binLabels.push_back("bin " + std::to_string(i + 1));
        }
    }
    md.binEdges = declaredTruth.edges();
    md.postProcessing = spec.postProcessing == EstimatorKind::Identity
                            ? "none"
                            : estimatorName(spec.postProcessing);
    md.source = spec.source;
    md.epsilonChosenOn = spec.epsilonChosenOn;
    md.appVersion = spec.appVersion;
    md.timestamp = spec.timestamp.empty() ? utcTimestampNow() : spec.timestamp;
    return md;
}

std::int64_t releaseL1Sensitivity(const ReleaseSpec& spec) {
    return l1Of(spec.relation, spec.contributionCap);
}

std::int64_t releaseL2SensitivitySquared(const ReleaseSpec& spec) {
    return l2SquaredOf(spec.relation, spec.contributionCap);
}

std::string releasePersonPhrase(const ReleaseSpec& spec) {
    return personPhrase(spec);
}

Expected<HistogramRelease> releaseHistogram(const ReleaseSpec& spec, const Histogram& declaredTruth,
                                            ReleaseRandomness& randomness) {
    if (auto v = spec.validate(); !v) {
        return v.error();
    }
    const Rational eps = parseEpsilon(spec.epsilon).value();
    const std::size_t bins = declaredTruth.size();
    const std::int64_t l1 = l1Of(spec.relation, spec.contributionCap);
    ReleaseMetadata md = releaseMetadataCommon(spec, declaredTruth);

    std::vector<double> noisy(bins);
    double noiseVariance = 0;
    const std::string who = personPhrase(spec);
    const std::string bounded =
        "; the bins were fixed before the data were read, and every bin "
        "received noise.";

    switch (spec.mechanism) {
        case ReleaseMechanism::DiscreteLaplace: {
            DiscreteLaplaceParams params{eps, l1};
            if (auto v = params.validate(); !v) {
                return v.error();
            }
            const Rational t = params.scale();
            auto noise = releaseDiscreteLaplaceNoise(params, bins, randomness);
            if (!noise) {
                return noise.error();
            }
            for (std::size_t i = 0; i < bins; ++i) {
                noisy[i] = static_cast<double>(declaredTruth.counts()[i] + (*noise)[i]);
            }
            const double alpha = discreteLaplaceAlpha(t);
            noiseVariance = 2 * alpha / ((1 - alpha) * (1 - alpha));
            md.samplerAlgorithm = "exact discrete Laplace by rejection (CKS 2020 Algorithm 2)";
            md.noiseParameter = "scale t = Δ1/ε = " + t.toString();
            md.rho = divide(multiply(eps, eps), Rational::integer(2)).toString();
            md.guarantee = who +
                           " changes the probability of any released table by at most a "
                           "factor of e^" +
                           spec.epsilon + " (" + spec.epsilon + "-differential privacy)" + bounded;
            break;
        }
        case ReleaseMechanism::DiscreteGaussian: {
            const Rational deltaTarget = parseDelta(spec.delta).value();
            auto cal =
                calibrateReleaseGaussian(eps, deltaTarget, spec.relation, spec.contributionCap);
            if (!cal) {
                return cal.error();
            }
            // The sampler's Δ only has to pass validation: the privacy is cal's ρ and δ.
            DiscreteGaussianParams params{cal->sigma2, spec.contributionCap};
            auto noise = releaseDiscreteGaussianNoise(params, bins, randomness);
            if (!noise) {
                return noise.error();
            }
            for (std::size_t i = 0; i < bins; ++i) {
                noisy[i] = static_cast<double>(declaredTruth.counts()[i] + (*noise)[i]);
            }
            noiseVariance = cal->sigma2.toDouble();
            md.samplerAlgorithm =
                "exact discrete Gaussian from discrete Laplace by rejection (CKS 2020 Algorithm 3)";
            md.noiseParameter = "sigma^2 = " + cal->sigma2.toString();
            md.deltaAchieved = formatShortest(cal->delta);
            md.rho = cal->rho.toString();
            md.notes = cal->warnings;
            md.notes.push_back(cal->method);
            md.guarantee = who +
                           " changes the probability of any set of released tables by at "
                           "most a factor of e^" +
                           spec.epsilon + " plus " + spec.delta + " ((" + spec.epsilon + ", " +
                           spec.delta + ")-differential privacy, also " + md.rho + "-zCDP)" +
                           bounded;
            break;
        }
        case ReleaseMechanism::GeometricMatrix: {
            const int n = static_cast<int>(spec.groupSize);
            const Rational perUnit = divide(eps, Rational::integer(l1));
            // Built at a slightly smaller ε so that rounding of the stored doubles cannot push
            // the exact ratio over e^(ε/Δ1); the exact check below decides.
            auto gm = truncatedGeometric(n, gmEpsilonBuilt(perUnit));
            if (!gm) {
                return Error{"geometric-matrix: " + gm.error().message};
            }
            if (auto v = verifyMatrixEpsilon(*gm, perUnit); !v) {
                return v.error();
            }
            auto sampler = CountMechanismSampler::create(*gm);
            if (!sampler) {
                return sampler.error();
            }
            std::vector<std::size_t> clipped(bins);
            for (std::size_t i = 0; i < bins; ++i) {
                clipped[i] = static_cast<std::size_t>(
                    std::min<std::int64_t>(declaredTruth.counts()[i], spec.groupSize));
            }
            auto out = releaseCountMechanismOutputs(*sampler, clipped, randomness);
            if (!out) {
                return out.error();
            }
            for (std::size_t i = 0; i < bins; ++i) {
                noisy[i] = static_cast<double>((*out)[i]);
            }
            md.samplerAlgorithm =
                "count mechanism matrix GM (truncated geometric), exact rational thresholds on a "
                "lazily generated uniform";
            md.noiseParameter = "GM, n = " + std::to_string(n) +
                                ", epsilon per unit change = " + perUnit.toString() +
                                " (achieved ≤ requested, verified exactly)";
            md.rho = divide(multiply(eps, eps), Rational::integer(2)).toString();
            md.notes.push_back("true counts above n = " + std::to_string(n) +
                               " were counted as n before noise");
            md.guarantee = who +
                           " changes the probability of any released table by at most a "
                           "factor of e^" +
                           spec.epsilon + " (" + spec.epsilon + "-differential privacy)" + bounded;
            break;
        }
    }
    md.samplerReference = spec.mechanism == ReleaseMechanism::GeometricMatrix
                              ? "Ghosh, Roughgarden & Sundararajan, Universally Utility-Maximizing "
                                "Privacy Mechanisms, STOC 2009"
                              : kCks;

    HistogramRelease release;
    if (spec.postProcessedIntervals && (spec.postProcessing == EstimatorKind::Resize ||
                                        spec.postProcessing == EstimatorKind::NoiseFirst)) {
        release.noisyBeforePostProcessing = noisy;
    }
    if (spec.postProcessing == EstimatorKind::Identity) {
        release.values = std::move(noisy);
    } else {
        EstimatorSpec est{spec.postProcessing, noiseVariance};
        auto post = estimate(est, noisy);
        if (!post) {
            return Error{"post-processing: " + post.error().message};
        }
        release.values = std::move(post).value();
    }
    release.metadata = std::move(md);
    return release;
}

Expected<Histogram> declaredTableCells(const ContingencyTable& table) {
    if (table.attributeCount() == 0) {
        return Error{"table: it has no attribute"};
    }
    for (const Attribute& a : table.attributes()) {
        if (!a.declared) {
            return Error{"bins: attribute '" + a.name +
                         "' has bins found in the data, which reveal which values occur; a "
                         "release needs bins declared before the data are read (fixed edges, "
                         "integer ranges or a category list)"};
        }
    }
    if (!table.isDense() || table.cellCount() > CellCount{kMaxReleaseCells}) {
        return Error{"table: " + cellCountText(table.cellCount()) +
                     " cells; a release noises every cell and takes at most " +
                     std::to_string(kMaxReleaseCells) +
                     " (use fewer bins, fewer attributes or a marginal)"};
    }
    auto cells = table.toHistogram();
    if (!cells) {
        return Error{"table: " + cells.error().message};
    }
    return cells;
}

void addTableAttributes(ReleaseMetadata& metadata, const ContingencyTable& table) {
    for (const Attribute& a : table.attributes()) {
        metadata.attributes.push_back({a.name, a.binning, a.labels, a.edges, a.declared});
    }
}

Expected<HistogramRelease> releaseTable(const ReleaseSpec& spec, const ContingencyTable& table,
                                        ReleaseRandomness& randomness) {
    auto cells = declaredTableCells(table);
    if (!cells) {
        return cells.error();
    }
    ReleaseSpec s = spec;
    s.binsDeclared = true;  // every attribute checked above
    auto release = releaseHistogram(s, *cells, randomness);
    if (!release) {
        return release.error();
    }
    addTableAttributes(release->metadata, table);
    return release;
}

}  // namespace dpx
