#include "core/release/exact_samplers.h"

#include <boost/multiprecision/integer.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <numeric>
#include <utility>

namespace dpx {

namespace mp = boost::multiprecision;

// ---------------------------------------------------------------------------------------------
// Rational

namespace {

unsigned bitLength(const BigInt& x) {  // bits of |x|; 0 for 0
    return x == 0 ? 0U : static_cast<unsigned>(mp::msb(mp::abs(x))) + 1U;
}

bool withinBitLimit(const Rational& r) {
    return bitLength(r.numerator()) <= kMaxRationalBits &&
           bitLength(r.denominator()) <= kMaxRationalBits;
}

std::string quoted(std::string_view text) {
    constexpr std::size_t kShown = 40;
    std::string s(text.substr(0, kShown));
    return "'" + s + (text.size() > kShown ? "…'" : "'");
}

// A finite double as mantissa·2^exponent, exactly, read from its IEEE 754 binary64 bits (no libm):
// normal numbers have the implicit leading 1, subnormals the exponent −1074.
struct Dyadic {
    std::int64_t mantissa;
    int exponent;
};

Dyadic dyadic(double v) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    const auto biased = static_cast<int>((bits >> 52) & 0x7FFU);
    std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    int exponent = -1074;
    if (biased != 0) {
        fraction |= std::uint64_t{1} << 52;
        exponent = biased - 1075;
    }
    const auto magnitude = static_cast<std::int64_t>(fraction);
    return {(bits >> 63) != 0 ? -magnitude : magnitude, exponent};
}

// p/q (q > 0) as a long double, keeping the top 128 bits of each so that any size converts.
long double toLongDouble(const BigInt& p, const BigInt& q) {
    if (p == 0) {
        return 0.0L;
    }
    const unsigned pb = bitLength(p);
    const unsigned qb = bitLength(q);
    const unsigned ps = pb > 128 ? pb - 128 : 0;
    const unsigned qs = qb > 128 ? qb - 128 : 0;
    const long double pn = static_cast<BigInt>(p >> ps).convert_to<long double>();
    const long double qn = static_cast<BigInt>(q >> qs).convert_to<long double>();
    return std::ldexp(pn / qn, static_cast<int>(ps) - static_cast<int>(qs));
}

}  // namespace

Expected<Rational> Rational::fraction(const BigInt& p, const BigInt& q) {
    if (q == 0) {
        return Error{"a fraction with denominator 0 is not a number"};
    }
    BigInt g = mp::gcd(p, q);
    BigInt n = p / g;
    BigInt d = q / g;
    if (d < 0) {
        n = -n;
        d = -d;
    }
    return Rational(std::move(n), std::move(d));
}

Rational Rational::integer(const BigInt& value) {
    return Rational(value, BigInt(1));
}

Expected<Rational> Rational::fromDouble(double value) {
    if (std::isnan(value)) {
        return Error{"NaN is not a number; give a finite value"};
    }
    if (std::isinf(value)) {
        return Error{"infinity is not allowed; give a finite value"};
    }
    if (value == 0) {
        return Rational();
    }
    const Dyadic d = dyadic(value);
    BigInt num = d.mantissa;
    BigInt den = 1;
    if (d.exponent >= 0) {
        num <<= static_cast<unsigned>(d.exponent);
    } else {
        den <<= static_cast<unsigned>(-d.exponent);
    }
    return fraction(num, den);
}

std::string Rational::toString() const {
    return den_ == 1 ? num_.str() : num_.str() + "/" + den_.str();
}

double Rational::toDouble() const {
    return static_cast<double>(toLongDouble(num_, den_));
}

std::strong_ordering operator<=>(const Rational& a, const Rational& b) {
    const BigInt lhs = a.num_ * b.den_;
    const BigInt rhs = b.num_ * a.den_;
    return lhs < rhs ? std::strong_ordering::less
                     : (lhs == rhs ? std::strong_ordering::equal : std::strong_ordering::greater);
}

Expected<Rational> parseDecimal(std::string_view text, std::string_view name) {
    const std::string prefix = std::string(name) + ": " + quoted(text);
    const std::string expected =
        " (expected digits with an optional decimal point and exponent, e.g. 0.1 or 2.5e-3)";
    if (text.empty()) {
        return Error{std::string(name) + ": empty text is not a decimal number" + expected};
    }
    if (text.size() > 1000) {
        return Error{prefix + " is longer than 1000 characters"};
    }
    std::string lowered;
    for (char c : text) {
        lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    const std::string_view bare = std::string_view(lowered).substr(
        !lowered.empty() && (lowered[0] == '+' || lowered[0] == '-') ? 1 : 0);
    if (bare == "nan" || bare == "inf" || bare == "infinity") {
        return Error{prefix + " is not a finite number; give a finite decimal value"};
    }
    std::size_t i = 0;
    bool negative = false;
    if (text[i] == '+' || text[i] == '-') {
        negative = text[i] == '-';
        ++i;
    }
    std::string digits;
    long long fractionDigits = 0;
    bool seenPoint = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            digits += c;
            fractionDigits += seenPoint ? 1 : 0;
        } else if (c == '.' && !seenPoint) {
            seenPoint = true;
        } else {
            break;
        }
    }
    if (digits.empty()) {
        return Error{prefix + " is not a decimal number" + expected};
    }
    long long exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool negativeExponent = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            negativeExponent = text[i] == '-';
            ++i;
        }
        const std::size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 5) {
            exponent = exponent * 10 + (text[i] - '0');
            ++i;
        }
        if (i == start) {
            return Error{prefix + " has an exponent without digits" + expected};
        }
        if (exponent > 1000) {
            return Error{prefix + " has an exponent beyond ±1000"};
        }
        exponent = negativeExponent ? -exponent : exponent;
    }
    if (i != text.size()) {
        return Error{prefix + " is not a decimal number: unexpected " + quoted(text.substr(i, 1)) +
                     " at position " + std::to_string(i + 1) + expected};
    }
    // Without leading zeros: cpp_int reads a leading 0 as an octal prefix.
    const std::size_t firstNonZero = std::min(digits.find_first_not_of('0'), digits.size() - 1);
    BigInt num(digits.substr(firstNonZero));
    if (negative) {
        num = -num;
    }
    const long long power = exponent - fractionDigits;
    BigInt ten = 1;
    for (long long k = 0; k < std::llabs(power); ++k) {
        ten *= 10;
    }
    auto value = power >= 0 ? Rational::fraction(num * ten, 1) : Rational::fraction(num, ten);
    if (!value || !withinBitLimit(*value)) {
        return Error{prefix +
                     " has too many digits for an exact parameter (numerator and "
                     "denominator are limited to " +
                     std::to_string(kMaxRationalBits) + " bits)"};
    }
    return value;
}

// ---------------------------------------------------------------------------------------------
// Bit reading and the samplers. A failing RandomBits throws SourceFailure inside this file; every
// public entry point catches it and returns the Error, so no partial output escapes.

namespace {

struct SourceFailure {
    Error error;
};

const std::string kNoOutput = "; no output was produced";

class BitReader {
public:
    explicit BitReader(RandomBits& source) : source_(source) {}

    // The next b bits of the stream (1 ≤ b ≤ 64) as an integer, first bit most significant.
    std::uint64_t bits(unsigned b) {
        if (b <= avail_) {
            const std::uint64_t v = cache_ >> (64U - b);
            cache_ = b == 64 ? 0 : cache_ << b;
            avail_ -= b;
            return v;
        }
        const unsigned fromCache = avail_;
        const std::uint64_t high = fromCache == 0 ? 0 : cache_ >> (64U - fromCache);
        const unsigned need = b - fromCache;
        cache_ = word();
        avail_ = 64;
        const std::uint64_t low = cache_ >> (64U - need);
        cache_ = need == 64 ? 0 : cache_ << need;
        avail_ -= need;
        return need == 64 ? low : (high << need) | low;
    }
    bool bit() { return bits(1) != 0; }

private:
    std::uint64_t word() {
        Expected<std::uint64_t> w = source_.next64();
        if (!w) {
            throw SourceFailure{Error{w.error().message}};
        }
        return *w;
    }
    RandomBits& source_;
    std::uint64_t cache_ = 0;  // unread bits, left-aligned
    unsigned avail_ = 0;
};

struct RangeFailure {};  // a draw outside the int64 range

// Uniform on {0, …, n} (n = m − 1 < 2^64) by rejection.
std::uint64_t uniformUpTo64(std::uint64_t n, BitReader& r) {
    if (n == 0) {
        return 0;
    }
    const unsigned b = 64U - static_cast<unsigned>(__builtin_clzll(n));
    for (;;) {
        const std::uint64_t v = r.bits(b);
        if (v <= n) {
            return v;
        }
    }
}

// Uniform on {0, …, m−1}, m ≥ 1 (any size), by rejection.
BigInt uniformBelow(const BigInt& m, BitReader& r) {
    const BigInt n = m - 1;
    if (n <= std::numeric_limits<std::uint64_t>::max()) {
        return BigInt(uniformUpTo64(static_cast<std::uint64_t>(n), r));
    }
    const unsigned b = bitLength(n);
    for (;;) {
        BigInt v = 0;
        unsigned left = b;
        const unsigned first = b % 64 == 0 ? 64 : b % 64;
        v = r.bits(first);
        left -= first;
        while (left > 0) {
            v <<= 64;
            v |= r.bits(64);
            left -= 64;
        }
        if (v <= n) {
            return v;
        }
    }
}

// Bernoulli(a/b) for 0 ≤ a, 0 < b, with a 64-bit path.
bool bernoulli64(std::uint64_t a, std::uint64_t b, BitReader& r) {
    if (a == 0) {
        return false;
    }
    if (a >= b) {
        return true;
    }
    return uniformUpTo64(b - 1, r) < a;
}

bool bernoulliBig(const BigInt& a, const BigInt& b, BitReader& r) {
    if (a <= 0) {
        return false;
    }
    if (a >= b) {
        return true;
    }
    return uniformBelow(b, r) < a;
}

bool fits64(const BigInt& x) {
    return x >= 0 && x <= std::numeric_limits<std::uint64_t>::max();
}

// Bernoulli(exp(−n/d)) for 0 ≤ n ≤ d (CKS Algorithm 1, γ ∈ [0, 1]): K counts the successes of
// Bernoulli(γ/1), Bernoulli(γ/2), … up to the first failure; Pr[K ≥ k] = γ^k/k!, so
// Pr[K even] = Σ_k (−γ)^k/k! = e^(−γ). Return [K even] (K here counts successes, CKS's K − 1).
bool bernoulliExpUnit64(std::uint64_t n, std::uint64_t d, BitReader& r) {
    std::uint64_t successes = 0;
    for (std::uint64_t k = 1;; ++k) {
        std::uint64_t dk = 0;
        bool success = false;
        if (__builtin_mul_overflow(d, k, &dk)) {
            success = bernoulliBig(BigInt(n), BigInt(d) * k, r);
        } else {
            success = bernoulli64(n, dk, r);
        }
        if (!success) {
            break;
        }
        ++successes;
    }
    return successes % 2 == 0;
}

bool bernoulliExpUnitBig(const BigInt& n, const BigInt& d, BitReader& r) {
    if (fits64(n) && fits64(d)) {
        return bernoulliExpUnit64(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(d), r);
    }
    std::uint64_t successes = 0;
    for (std::uint64_t k = 1;; ++k) {
        if (!bernoulliBig(n, d * k, r)) {
            break;
        }
        ++successes;
    }
    return successes % 2 == 0;
}

bool bernoulliExpMinusOne(BitReader& r) {
    return bernoulliExpUnit64(1, 1, r);
}

// Bernoulli(exp(−n/d)) for n ≥ 0, d > 0 (CKS Algorithm 1): ⌊γ⌋ factors e^(−1), then the
// fractional part.
bool bernoulliExp(const BigInt& n, const BigInt& d, BitReader& r) {
    if (n <= d) {
        return bernoulliExpUnitBig(n, d, r);
    }
    BigInt whole;
    BigInt rest;
    mp::divide_qr(n, d, whole, rest);
    for (BigInt k = 0; k < whole; ++k) {
        if (!bernoulliExpMinusOne(r)) {
            return false;
        }
    }
    return bernoulliExpUnitBig(rest, d, r);
}

// Geometric with rate γ = s/t (s, t ≥ 1): CKS Algorithm 2, steps up to Y = ⌊X/s⌋.
BigInt geometric(const BigInt& s, const BigInt& t, BitReader& r) {
    const bool small = fits64(t);
    const std::uint64_t t64 = small ? static_cast<std::uint64_t>(t) : 0;
    for (;;) {
        BigInt u;
        if (small) {
            const std::uint64_t u64 = uniformUpTo64(t64 - 1, r);
            if (!bernoulliExpUnit64(u64, t64, r)) {
                continue;  // D = 0: reject U
            }
            u = u64;
        } else {
            u = uniformBelow(t, r);
            if (!bernoulliExpUnitBig(u, t, r)) {
                continue;
            }
        }
        std::uint64_t v = 0;  // V ~ Geometric(1 − e^(−1)): successes of Bernoulli(e^(−1))
        while (bernoulliExpMinusOne(r)) {
            ++v;
        }
        BigInt x = u + t * v;  // Pr[X = x] ∝ e^(−x/t)
        if (s == 1) {
            return x;
        }
        return BigInt(x / s);  // Pr[Y = y] ∝ e^(−y·s/t)
    }
}

std::int64_t toInt64(const BigInt& x) {
    if (x > std::numeric_limits<std::int64_t>::max() ||
        x < std::numeric_limits<std::int64_t>::min()) {
        throw RangeFailure{};
    }
    return static_cast<std::int64_t>(x);
}

// Discrete Laplace with scale t/s (CKS Algorithm 2): geometric magnitude, fair sign, "−0"
// rejected so that 0 is not counted twice.
BigInt discreteLaplace(const BigInt& s, const BigInt& t, BitReader& r) {
    for (;;) {
        BigInt y = geometric(s, t, r);
        const bool negative = r.bit();
        if (negative && y == 0) {
            continue;
        }
        return negative ? BigInt(-y) : y;
    }
}

// Discrete Gaussian with σ² = a/b (CKS Algorithm 3).
struct GaussianConstants {
    BigInt a, b, t, bt, twoAbT2;
};

GaussianConstants gaussianConstants(const Rational& sigma2) {
    GaussianConstants c;
    c.a = sigma2.numerator();
    c.b = sigma2.denominator();
    c.t = BigInt(mp::sqrt(BigInt(c.a / c.b))) + 1;  // ⌊σ⌋ + 1, since ⌊√x⌋ = ⌊√⌊x⌋⌋
    c.bt = c.b * c.t;
    c.twoAbT2 = 2 * c.a * c.b * c.t * c.t;
    return c;
}

BigInt discreteGaussian(const GaussianConstants& c, BitReader& r) {
    static const BigInt one = 1;
    for (;;) {
        BigInt y = discreteLaplace(one, c.t, r);
        // Accept with exp(−(|Y| − σ²/t)²/(2σ²)) = exp(−(bt|Y| − a)²/(2abt²)).
        BigInt diff = c.bt * mp::abs(y) - c.a;
        BigInt num = diff * diff;
        if (bernoulliExp(num, c.twoAbT2, r)) {
            return y;
        }
    }
}

Error sourceError(const SourceFailure& f) {
    return Error{"random bit source failed: " + f.error.message + kNoOutput};
}

Error rangeError() {
    return Error{
        "a draw fell outside the 64-bit integer range (an event of probability below "
        "e^-9000000 within the accepted parameters)" +
        kNoOutput};
}

// Runs `body` with a fresh BitReader and converts internal failures into Errors.
template <class T, class Body>
Expected<T> withReader(RandomBits& bits, Body&& body) {
    try {
        BitReader reader(bits);
        return body(reader);
    } catch (const SourceFailure& f) {
        return sourceError(f);
    } catch (const RangeFailure&) {
        return rangeError();
    }
}

Status validateExactParameter(const Rational& value, std::string_view name) {
    if (!withinBitLimit(value)) {
        return Error{std::string(name) + " " + value.toString().substr(0, 40) + "… has more than " +
                     std::to_string(kMaxRationalBits) + " bits in its numerator or denominator"};
    }
    return okStatus();
}

Status validateScale(const Rational& scale) {
    if (scale.sign() <= 0) {
        return Error{"discrete Laplace scale must be > 0, got " + scale.toString()};
    }
    if (Status s = validateExactParameter(scale, "discrete Laplace scale"); !s) {
        return s;
    }
    if (scale > Rational::integer(BigInt(1000000000000LL))) {
        return Error{"discrete Laplace scale " + scale.toString() +
                     " exceeds the largest accepted scale 10^12"};
    }
    return okStatus();
}

Status validateSigma2(const Rational& sigma2) {
    if (sigma2.sign() <= 0) {
        return Error{"discrete Gaussian sigma^2 (σ²) must be > 0, got " + sigma2.toString()};
    }
    if (Status s = validateExactParameter(sigma2, "discrete Gaussian sigma^2 (σ²)"); !s) {
        return s;
    }
    if (sigma2 > Rational::integer(BigInt(1000000000000LL))) {
        return Error{"discrete Gaussian sigma^2 (σ²) " + sigma2.toString() +
                     " exceeds the largest accepted value 10^12"};
    }
    return okStatus();
}

Status validateSensitivity(std::int64_t sensitivity, std::string_view name) {
    if (sensitivity < 1 || sensitivity > kMaxExactSensitivity) {
        return Error{std::string(name) + " must be an integer from 1 to " +
                     std::to_string(kMaxExactSensitivity) + ", got " + std::to_string(sensitivity)};
    }
    return okStatus();
}

Status validateEpsilonRational(const Rational& epsilon) {
    if (epsilon.sign() <= 0) {
        return Error{"epsilon (ε) must be > 0, got " + epsilon.toString()};
    }
    return validateExactParameter(epsilon, "epsilon (ε)");
}

}  // namespace

Expected<BigInt> sampleUniformBelow(const BigInt& m, RandomBits& bits) {
    if (m < 1 || bitLength(m) > kMaxRationalBits) {
        return Error{"uniform range size must be an integer from 1 to 2^" +
                     std::to_string(kMaxRationalBits) + ", got " +
                     (m < 1 ? m.str() : "a larger value")};
    }
    return withReader<BigInt>(bits, [&](BitReader& r) { return uniformBelow(m, r); });
}

Expected<bool> sampleBernoulli(const Rational& p, RandomBits& bits) {
    if (p.sign() < 0 || p > Rational::integer(1)) {
        return Error{"Bernoulli probability must be in [0, 1], got " + p.toString()};
    }
    if (Status s = validateExactParameter(p, "Bernoulli probability"); !s) {
        return s.error();
    }
    return withReader<bool>(
        bits, [&](BitReader& r) { return bernoulliBig(p.numerator(), p.denominator(), r); });
}

Expected<bool> sampleBernoulliExp(const Rational& gamma, RandomBits& bits) {
    if (gamma.sign() < 0) {
        return Error{"gamma (γ) of Bernoulli(exp(-γ)) must be ≥ 0, got " + gamma.toString()};
    }
    if (Status s = validateExactParameter(gamma, "gamma (γ)"); !s) {
        return s.error();
    }
    return withReader<bool>(bits, [&](BitReader& r) {
        return bernoulliExp(gamma.numerator(), gamma.denominator(), r);
    });
}

Expected<std::int64_t> sampleGeometric(const Rational& gamma, RandomBits& bits) {
    if (gamma.sign() <= 0) {
        return Error{"geometric rate gamma (γ) must be > 0, got " + gamma.toString()};
    }
    if (Status s = validateExactParameter(gamma, "geometric rate gamma (γ)"); !s) {
        return s.error();
    }
    if (gamma.denominator() > 1000000000000LL * gamma.numerator()) {
        return Error{"geometric rate gamma (γ) " + gamma.toString() +
                     " is below the smallest accepted rate 10^-12"};
    }
    return withReader<std::int64_t>(bits, [&](BitReader& r) {
        return toInt64(geometric(gamma.numerator(), gamma.denominator(), r));
    });
}

Expected<std::vector<std::int64_t>> sampleDiscreteLaplace(const Rational& scale, std::size_t count,
                                                          RandomBits& bits) {
    if (Status s = validateScale(scale); !s) {
        return s.error();
    }
    return withReader<std::vector<std::int64_t>>(bits, [&](BitReader& r) {
        std::vector<std::int64_t> out(count);
        // scale = t/s: Pr[x] ∝ e^(−|x|·s/t).
        for (auto& x : out) {
            x = toInt64(discreteLaplace(scale.denominator(), scale.numerator(), r));
        }
        return out;
    });
}

Expected<std::int64_t> sampleDiscreteLaplace(const Rational& scale, RandomBits& bits) {
    auto v = sampleDiscreteLaplace(scale, 1, bits);
    if (!v) {
        return v.error();
    }
    return v->front();
}

Expected<std::vector<std::int64_t>> sampleDiscreteGaussian(const Rational& sigma2,
                                                           std::size_t count, RandomBits& bits) {
    if (Status s = validateSigma2(sigma2); !s) {
        return s.error();
    }
    const GaussianConstants c = gaussianConstants(sigma2);
    return withReader<std::vector<std::int64_t>>(bits, [&](BitReader& r) {
        std::vector<std::int64_t> out(count);
        for (auto& x : out) {
            x = toInt64(discreteGaussian(c, r));
        }
        return out;
    });
}

Expected<std::int64_t> sampleDiscreteGaussian(const Rational& sigma2, RandomBits& bits) {
    auto v = sampleDiscreteGaussian(sigma2, 1, bits);
    if (!v) {
        return v.error();
    }
    return v->front();
}

// ---------------------------------------------------------------------------------------------
// Count mechanism matrices

namespace {

// Column j of P as exact integers: P[i][j] = c_i·2^E for the column's smallest exponent E;
// cumulative[i] = c_0 + … + c_i.
struct ExactColumn {
    std::vector<BigInt> cumulative;
    int exponent = 0;
};

ExactColumn exactColumn(const std::vector<double>& p, std::size_t size, std::size_t j) {
    std::vector<std::int64_t> mantissas(size);
    std::vector<int> exponents(size);
    int minExponent = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < size; ++i) {
        const double v = p[i * size + j];
        if (v == 0) {
            continue;
        }
        const Dyadic d = dyadic(v);  // v = m·2^e exactly
        mantissas[i] = d.mantissa;
        exponents[i] = d.exponent;
        minExponent = std::min(minExponent, exponents[i]);
    }
    ExactColumn col;
    col.exponent = minExponent == std::numeric_limits<int>::max() ? 0 : minExponent;
    col.cumulative.resize(size);
    BigInt acc = 0;
    for (std::size_t i = 0; i < size; ++i) {
        if (mantissas[i] != 0) {
            acc += BigInt(mantissas[i]) << static_cast<unsigned>(exponents[i] - col.exponent);
        }
        col.cumulative[i] = acc;
    }
    return col;
}

// Output i with probability (C_i − C_{i−1})/C_n: U ∈ [0, 1) is revealed bit by bit; after k bits
// U ∈ [M/2^k, (M+1)/2^k), i.e. U·T ∈ [M·T/2^k, (M+1)·T/2^k). Output i once that interval lies in
// [C_{i−1}, C_i).
std::size_t sampleColumn(const ExactColumn& col, BitReader& r) {
    const std::size_t size = col.cumulative.size();
    const BigInt& total = col.cumulative.back();
    unsigned k = std::min(60U, 3U + static_cast<unsigned>(std::bit_width(size)));
    BigInt m = r.bits(k);
    for (;;) {
        const BigInt low = m * total;  // U·T·2^k ≥ low
        const BigInt high = low + total;
        // First i with C_i·2^k > low.
        std::size_t lo = 0;
        std::size_t hi = size - 1;  // C_n·2^k = T·2^k > low always (m < 2^k)
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (BigInt(col.cumulative[mid] << k) > low) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (high <= BigInt(col.cumulative[lo] << k)) {
            return lo;
        }
        m = (m << 1) | (r.bit() ? 1 : 0);
        ++k;
    }
}

}  // namespace

Expected<CountMechanismSampler> CountMechanismSampler::create(const CountMechanism& mechanism) {
    const std::size_t size = mechanism.size();
    for (std::size_t j = 0; j < size; ++j) {
        bool nonzero = false;
        for (std::size_t i = 0; i < size && !nonzero; ++i) {
            const double v = mechanism.at(i, j);
            if (!std::isfinite(v) || v < 0) {
                return Error{"count mechanism entry P[" + std::to_string(i) + "][" +
                             std::to_string(j) + "] is not a finite non-negative number"};
            }
            nonzero = v > 0;
        }
        if (!nonzero) {
            return Error{"count mechanism column " + std::to_string(j) +
                         " is all zero: it is not a probability distribution"};
        }
    }
    return CountMechanismSampler(size, mechanism.rowMajor(), mechanism.name());
}

Expected<std::size_t> CountMechanismSampler::sample(std::size_t trueCount, RandomBits& bits) const {
    const std::size_t counts[1] = {trueCount};
    auto v = sample(std::span<const std::size_t>(counts), bits);
    if (!v) {
        return v.error();
    }
    return v->front();
}

Expected<std::vector<std::size_t>> CountMechanismSampler::sample(
    std::span<const std::size_t> trueCounts, RandomBits& bits) const {
    for (std::size_t c : trueCounts) {
        if (c >= size_) {
            return Error{"true count " + std::to_string(c) +
                         " is outside the mechanism's range 0.." + std::to_string(size_ - 1) +
                         " (n = " + std::to_string(size_ - 1) + ")"};
        }
    }
    return withReader<std::vector<std::size_t>>(bits, [&](BitReader& r) {
        std::vector<std::size_t> out(trueCounts.size());
        // Draws in input order; a column is rebuilt only when the true count changes.
        std::size_t current = size_;
        ExactColumn column;
        for (std::size_t k = 0; k < trueCounts.size(); ++k) {
            if (trueCounts[k] != current) {
                current = trueCounts[k];
                column = exactColumn(p_, size_, current);
            }
            out[k] = sampleColumn(column, r);
        }
        return out;
    });
}

Rational CountMechanismSampler::columnSum(std::size_t j) const {
    const ExactColumn col = exactColumn(p_, size_, j);
    if (col.exponent >= 0) {
        return Rational::integer(BigInt(col.cumulative.back() << col.exponent));
    }
    return *Rational::fraction(col.cumulative.back(), BigInt(1) << -col.exponent);
}

double CountMechanismSampler::columnSumLogSpread() const {
    long double lo = std::numeric_limits<long double>::infinity();
    long double hi = -lo;
    Rational first;
    bool allEqual = true;
    for (std::size_t j = 0; j < size_; ++j) {
        const Rational s = columnSum(j);
        if (j == 0) {
            first = s;
        }
        allEqual = allEqual && s == first;
        // ln S = log1p(S − 1), with S − 1 exact.
        const BigInt excess = s.numerator() - s.denominator();
        const long double logS = std::log1p(toLongDouble(excess, s.denominator()));
        lo = std::min(lo, logS);
        hi = std::max(hi, logS);
    }
    if (allEqual) {
        return 0.0;
    }
    // log1p is accurate to a few ulp of long double; 1e-24 absolute covers that at |ln S| < 1e-3.
    const long double spread = (hi - lo) * (1 + 1e-12L) + 1e-24L;
    const auto d = static_cast<double>(spread);
    return d < spread ? std::nextafter(d, std::numeric_limits<double>::infinity()) : d;
}

// ---------------------------------------------------------------------------------------------
// Parameters

Status DiscreteLaplaceParams::validate() const {
    if (Status s = validateEpsilonRational(epsilon); !s) {
        return s;
    }
    if (Status s = validateSensitivity(l1Sensitivity, "L1 sensitivity (Δ)"); !s) {
        return s;
    }
    if (Status s = validateScale(scale()); !s) {
        return Error{"epsilon (ε) " + epsilon.toString() + " with L1 sensitivity " +
                     std::to_string(l1Sensitivity) + ": " + s.error().message};
    }
    return okStatus();
}

Rational DiscreteLaplaceParams::scale() const {
    return *Rational::fraction(epsilon.denominator() * l1Sensitivity, epsilon.numerator());
}

Status DiscreteGaussianParams::validate() const {
    if (Status s = validateSigma2(sigma2); !s) {
        return s;
    }
    return validateSensitivity(l2Sensitivity, "L2 sensitivity (Δ)");
}

Rational DiscreteGaussianParams::rho() const {
    const BigInt d = l2Sensitivity;
    const BigInt num = d * d * sigma2.denominator();
    const BigInt den = 2 * sigma2.numerator();
    return *Rational::fraction(num, den);
}

// ---------------------------------------------------------------------------------------------
// δ of the discrete Gaussian (analysis, long double)

namespace {

using LD = long double;

// ln Σ_{y ∈ Z} e^(−y²/(2σ²)).
LD logNormaliser(LD sigma2) {
    if (sigma2 <= 1) {
        LD z = 1;
        for (LD y = 1;; y += 1) {
            const LD term = std::exp(-y * y / (2 * sigma2));
            z += 2 * term;
            if (term < 1e-40L) {
                break;
            }
        }
        return std::log(z);
    }
    // Poisson summation: Σ_y e^(−y²/(2σ²)) = σ√(2π)·(1 + 2Σ_{k≥1} e^(−2π²σ²k²)).
    const LD pi = std::numbers::pi_v<LD>;
    LD theta = 1;
    for (LD k = 1; k <= 4; k += 1) {
        theta += 2 * std::exp(-2 * pi * pi * sigma2 * k * k);
    }
    return 0.5L * std::log(2 * pi * sigma2) + std::log(theta);
}

// Relative safety factor applied to the computed δ: every rounding step below contributes at most
// a few ulp, and the exponents are at most ~2000 in size before terms stop mattering, so the total
// relative error is below 10^4·ε_ld; the margin is 2000 times that.
const LD kDeltaMargin = 2e7L * std::numeric_limits<LD>::epsilon();

double roundUpToDouble(LD x) {
    if (x >= 1) {
        return 1.0;
    }
    const auto d = static_cast<double>(x);
    if (d == 0) {
        return std::numeric_limits<double>::denorm_min();
    }
    return d < x ? std::nextafter(d, 1.0) : d;
}

constexpr std::uint64_t kMaxDeltaTerms = 200000000;

std::string formatDelta(double d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", d);
    return buf;
}

// δ for large σ by the Euler–Maclaurin formula. With f(x) = e^(−x²/(2σ²)) and
// h(x) = f(x) − e^ε·f(x + Δ) = f(x)·(1 − e^(ε − L(x))), δ·Z = Σ_{y ≥ y0} h(y) (CKS Thm 7), and
// for the integer y0 (Euler–Maclaurin, e.g. Abramowitz & Stegun 23.1.30, with the remainder of
// DLMF 2.10.1–2.10.2, |B̃_2p(x)| ≤ |B_2p|):
//   Σ_{y ≥ y0} h(y) = ∫_{y0}^∞ h + h(y0)/2 − Σ_{k=1..p} B_2k/(2k)!·h^(2k−1)(y0) + R_p,
//   |R_p| ≤ |B_2p|/(2p)!·∫_{y0}^∞ |h^(2p)|, |B_2p|/(2p)! = 2ζ(2p)/(2π)^(2p).
// Closed forms (u = x/σ, μ = Δ/σ, x0 = ε − L(y0) ≤ 0, e^ε·f(y0 + Δ) = e^(x0)·f(y0)):
//   ∫_{y0}^∞ h = ∫_{y0}^{y0+Δ} f − (e^ε − 1)·∫_{y0+Δ}^∞ f   (the first by Gauss–Legendre
//     quadrature when Δ ≪ σ, else by erf/erfc; the second by erfc; the split keeps the
//     cancellation to a factor of about (εσ/Δ)² where δ is small);
//   h^(j)(y0) = (−1/σ)^j·f(y0)·(He_j(u0) − e^(x0)·He_j(u0 + μ))   (Hermite polynomials He_j);
//   |h^(2p)(x)| ≤ 2σ^(−2p)·f(x)·(|x/σ| + μ + √(2p))^(2p) for x ≥ y0, since |He_n(t)| ≤
//     (|t| + √n)^n (its coefficients are C(n,2k)·(2k−1)!! ≤ C(n,2k)·n^k) and e^(ε − L(x)) ≤ 1;
//   ∫_{u0}^∞ (|u| + b)^n e^(−u²/2) du ≤ e^(−u0²/2)·Σ_j C(n,j)(u0 + b)^(n−j)·M_j for u0 ≥ 0
//     (u = u0 + t, e^(−u0·t) ≤ 1), and ≤ 2·Σ_j C(n,j)·b^(n−j)·M_j on the whole line,
//     M_j = ∫_0^∞ t^j e^(−t²/2) dt (M_0 = √(π/2), M_1 = 1, M_j = (j − 1)·M_{j−2}).
// With p = 8 and σ > 10³ the remainder is below 10⁻²⁰ of δ·Z in the cases that matter. The
// remainder bound and a running bound on the rounding error (every libm call assumed within 16
// ulp, argument errors propagated by the functions' condition numbers) are ADDED to the sum, and
// Z ≥ σ√(2π) (Poisson summation: Z = σ√(2π)·(1 + 2Σ_k e^(−2π²σ²k²))), so the result is an upper
// bound on δ, within about 10⁻¹⁰ relative of it at σ² ≤ 10¹². Cost: about 50 libm calls,
// independent of σ. Representable in long double while μ ≤ 100 (e^ε < e^9000 there).
constexpr int kEulerMaclaurinOrder = 8;  // p
// Automatic evaluation uses Euler–Maclaurin above this σ² when its error bounds are below
// kEulerMaclaurinSlack of the value.
constexpr std::int64_t kEulerMaclaurinSigma2 = 10000;
constexpr LD kEulerMaclaurinSlack = 1e-6L;
// B_2k for k = 1..8.
constexpr std::array<long double, kEulerMaclaurinOrder> kBernoulli = {
    1.0L / 6,  -1.0L / 30,     1.0L / 42, -1.0L / 30,
    5.0L / 66, -691.0L / 2730, 7.0L / 6,  -3617.0L / 510};

struct DeltaProblem {
    std::int64_t y0;  // ⌊a⌋ + 1, |y0| < 4·10^7
    LD frac;          // y0 − a ∈ (0, 1]
    LD s2;            // σ²
    LD sensitivity;   // Δ
    LD epsilon;       // ε
};

// e^(u²)·erfc(u) for u ≥ 26 by its asymptotic series (A&S 7.1.23), 1/(u√π)·Σ_{k<8}
// (−1)^k (2k−1)!!/(2u²)^k: for real u > 0 the series is enveloping (the error is below the first
// omitted term, here < 2·10^−19 relative). Returns the value and an absolute error bound.
std::pair<LD, LD> erfcxLarge(LD u) {
    constexpr LD ulp = std::numeric_limits<LD>::epsilon();
    const LD w = 1 / (2 * u * u);
    LD term = 1, sum = 1, magnitude = 1;
    for (int k = 1; k < 8; ++k) {
        term *= -(2 * k - 1) * w;
        sum += term;
        magnitude += std::fabs(term);
    }
    const LD omitted = std::fabs(term) * 15 * w;
    const LD front = 1 / (u * std::sqrt(std::numbers::pi_v<LD>));
    return {front * sum, front * (omitted + 32 * ulp * magnitude)};
}

// 8-point Gauss–Legendre nodes and weights on [−1, 1]: Newton's method on P_8 in long double
// (w_i = 2/((1 − x_i²)·P_8'(x_i)²)), computed once.
struct GaussLegendre8 {
    std::array<LD, 8> x{}, w{};
};

const GaussLegendre8& gaussLegendre8() {
    static const GaussLegendre8 rule = [] {
        GaussLegendre8 r;
        constexpr int n = 8;
        for (int i = 0; i < n; ++i) {
            LD x = std::cos(std::numbers::pi_v<LD> * (i + 0.75L) / (n + 0.5L));
            LD derivative = 1;
            for (int iteration = 0; iteration < 100; ++iteration) {
                LD p0 = 1, p1 = x;  // P_0, P_1
                for (int k = 2; k <= n; ++k) {
                    const LD p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
                    p0 = p1;
                    p1 = p2;
                }
                derivative = n * (x * p1 - p0) / (x * x - 1);
                const LD step = p1 / derivative;
                x -= step;
                if (std::fabs(step) <= 4 * std::numeric_limits<LD>::epsilon()) {
                    break;
                }
            }
            r.x[static_cast<std::size_t>(i)] = x;
            r.w[static_cast<std::size_t>(i)] = 2 / ((1 - x * x) * derivative * derivative);
        }
        return r;
    }();
    return rule;
}

struct EulerMaclaurinDelta {
    LD upper = 0;  // upper bound on δ
    LD slack = 0;  // (rounding bound + remainder bound) / the sum
};

EulerMaclaurinDelta eulerMaclaurinDelta(const DeltaProblem& p) {
    constexpr LD ulp = std::numeric_limits<LD>::epsilon();
    const LD pi = std::numbers::pi_v<LD>;
    const LD sqrt2 = std::numbers::sqrt2_v<LD>;
    const LD sigma = std::sqrt(p.s2);
    const LD y0 = static_cast<LD>(p.y0);
    const LD u0 = y0 / sigma;
    const LD mu = p.sensitivity / sigma;
    const LD x0 = -p.sensitivity * p.frac / p.s2;  // ε − L(y0) ∈ [−Δ/σ², 0)
    const LD z0 = y0 * y0 / (2 * p.s2);
    const LD f0 = std::exp(-z0);
    const LD f0Rel = (8 + 8 * z0) * ulp;     // argument within 4 ulp, exp within 16 ulp (generous)
    const LD c = sigma * std::sqrt(pi / 2);  // ∫_R f = 2c
    // Relative error allowance of erfc at a computed argument u (argument within 8 ulp): the
    // function's own 16 ulp plus 8 ulp·|u|·|erfc'(u)/erfc(u)|, |erfc'/erfc| ≤ 2|u| + 2.
    const auto erfcRel = [&](LD u) {
        return (16 + 8 * std::fabs(u) * (2 * std::fabs(u) + 2)) * ulp;
    };
    const LD w = 1 / (sigma * sqrt2);  // shared by every argument below (within 4 ulp)
    const LD u1 = y0 * w;
    const LD u2 = (y0 + p.sensitivity) * w;
    const LD width = p.sensitivity * w;  // u2 − u1
    const LD uMax = std::max(std::fabs(u1), std::fabs(u2));
    // A = ∫_{y0}^{y0+Δ} f. A narrow interval (width·(2|u|max + width + 4) ≤ 1, so e^(−t²) changes
    // little across it) by 8-point Gauss–Legendre: no cancellation, and the quadrature error
    // (n!)^4·h^(2n+1)/((2n+1)((2n)!)^3)·max|F^(2n)|, F = e^(−t²), |F^(2n)(t)| = |H_2n(t)|·e^(−t²)
    // ≤ 2^n(√2|t| + √(2n))^(2n)·e^(−t²), is below 10^−20 of A. Otherwise (a wide interval, where
    // the two values differ enough that the subtraction loses at most a few digits) as a
    // difference of two same-sign erfc values or a sum of two erf. An erfc that underflows
    // (u > 106) only makes A larger, by less than the smallest long double.
    LD a = 0, aErr = 0;
    if (width * (2 * uMax + width + 4) <= 1) {
        const GaussLegendre8& gl = gaussLegendre8();
        const LD half = width / 2, mid = u1 + half;
        LD sum = 0;
        for (std::size_t i = 0; i < gl.x.size(); ++i) {
            const LD t = mid + half * gl.x[i];
            sum += gl.w[i] * std::exp(-t * t);
        }
        a = sigma * sqrt2 * half * sum;
        const LD tMin = u1 >= 0 ? u1 : (u2 <= 0 ? -u2 : 0);
        const LD truncation = 1.7e-23L * std::pow(width, 17.0L) * 256 *
                              std::pow(sqrt2 * uMax + 4, 16.0L) * std::exp(-tMin * tMin) * sigma *
                              sqrt2;
        // Each e^(−t²): t within 8 ulp, so t² within 16 ulp·t² of exact; exp within 16 ulp.
        aErr = a * (64 + 32 * uMax * uMax) * ulp + truncation;
    } else if (u1 >= 0 || u2 <= 0) {
        const LD lo = u1 >= 0 ? u1 : -u2, hi = u1 >= 0 ? u2 : -u1;
        const LD e1 = std::erfc(lo), e2 = std::erfc(hi);
        a = c * (e1 - e2);
        aErr =
            c * (e1 * erfcRel(lo) + e2 * erfcRel(hi) + 4 * std::numeric_limits<LD>::denorm_min());
    } else {
        const LD e1 = std::erf(u2), e2 = std::erf(-u1);  // both > 0; |erf'(u)·u/erf(u)| ≤ 1
        a = c * (e1 + e2);
        aErr = c * (e1 + e2) * 32 * ulp;
    }
    aErr += std::fabs(a) * 8 * ulp;
    // B = (e^ε − 1)·∫_{y0+Δ}^∞ f = (e^ε − 1)·c·erfc(u2); for u2 ≥ 26 (where e^ε may overflow and
    // erfc underflow) as (1 − e^(−ε))·e^(x0)·f0·c·erfcx(u2), since e^(ε − u2²) = e^(x0)·f0.
    const LD ex0 = std::exp(x0);
    LD b = 0, bErr = 0;
    if (u2 < 26) {
        b = std::expm1(p.epsilon) * c * std::erfc(u2);
        bErr = b * (erfcRel(u2) + (24 + 4 * (p.epsilon + 1)) * ulp);
    } else {
        const auto [x, xErr] = erfcxLarge(u2);
        const LD scale = -std::expm1(-p.epsilon) * ex0 * f0 * c;
        b = scale * x;
        bErr = scale * (xErr + x * (f0Rel + (64 + 8 * std::fabs(x0)) * ulp));
    }
    // h(y0)/2.
    const LD em0 = -std::expm1(x0);  // 1 − e^(x0) ∈ (0, 1)
    const LD half = f0 * em0 / 2;
    const LD halfErr = half * (f0Rel + (24 + 8 * (1 - x0)) * ulp);
    // −Σ B_2k/(2k)!·h^(2k−1)(y0) = Σ B_2k/(2k)!·σ^(1−2k)·f0·D_{2k−1},
    // D_j = He_j(u0) − e^(x0)·He_j(u0 + μ).
    const LD v0 = u0 + mu;
    LD hPrev = 1, hCur = u0, gPrev = 1, gCur = v0;  // He_0, He_1 at u0 and at u0 + μ
    LD corrections = 0, correctionsErr = 0;
    LD factorial = 1;   // (2k)!
    LD sigmaPower = 1;  // σ^(2 − 2k)
    for (int j = 1; j <= 2 * kEulerMaclaurinOrder - 1; ++j) {
        if (j > 1) {  // He_j = t·He_{j−1} − (j − 1)·He_{j−2}
            const LD hNext = u0 * hCur - (j - 1) * hPrev;
            const LD gNext = v0 * gCur - (j - 1) * gPrev;
            hPrev = hCur;
            hCur = hNext;
            gPrev = gCur;
            gCur = gNext;
        }
        if (j % 2 == 0) {
            continue;
        }
        const int k = (j + 1) / 2;
        factorial *= static_cast<LD>((2 * k - 1) * (2 * k));
        sigmaPower = k == 1 ? 1 : sigmaPower / p.s2;
        const LD d = hCur - ex0 * gCur;
        const LD coefficient =
            kBernoulli[static_cast<std::size_t>(k - 1)] / factorial * sigmaPower / sigma * f0;
        const auto jl = static_cast<LD>(j);
        // |He_j(t)| ≤ (|t| + √j)^j bounds the magnitudes whose rounding errors accumulate.
        const LD scale = std::pow(std::fabs(u0) + std::sqrt(jl), jl) +
                         std::pow(std::fabs(v0) + std::sqrt(jl), jl);
        corrections += coefficient * d;
        correctionsErr += std::fabs(coefficient) * (std::fabs(d) * f0Rel + 64 * jl * scale * ulp);
    }
    // Remainder bound, n = 2p: |R_p| ≤ 2ζ(n)/(2π)^n·2σ^(1−n)·G.
    constexpr int n = 2 * kEulerMaclaurinOrder;
    const LD bShift = mu + std::sqrt(static_cast<LD>(n)) + (u0 >= 0 ? u0 : 0);
    std::array<LD, n + 1> moment{};
    moment[0] = std::sqrt(pi / 2);
    moment[1] = 1;
    for (std::size_t j = 2; j <= n; ++j) {
        moment[j] = static_cast<LD>(j - 1) * moment[j - 2];
    }
    // G ≤ Σ_j C(n, j)·bShift^(n−j)·M_j, times f0 (u0 ≥ 0) or 2 (whole line); each power is
    // divided by (2πσ)^n term by term so that nothing overflows.
    const LD unit = 2 * pi * sigma;
    LD g = 0, binomial = 1;
    for (std::size_t j = 0; j <= n; ++j) {
        g += binomial * std::pow(bShift / unit, static_cast<LD>(n - j)) * moment[j] /
             std::pow(unit, static_cast<LD>(j));
        binomial = binomial * static_cast<LD>(n - j) / static_cast<LD>(j + 1);
    }
    g *= u0 >= 0 ? f0 : 2;
    const LD zeta = 1.0001L;  // ζ(16) = 1.0000153…
    const LD remainder = 2 * zeta * 2 * sigma * g * (1 + 1e-6L);
    const LD sum = a - b + half + corrections;
    const LD err = aErr + bErr + halfErr + correctionsErr +
                   16 * ulp * (std::fabs(a) + std::fabs(b) + half + std::fabs(corrections));
    EulerMaclaurinDelta out;
    out.upper = std::max<LD>(sum + err + remainder, 0) / (2 * c) * (1 + 64 * ulp);
    out.slack = sum > 0 ? (err + remainder) / sum : std::numeric_limits<LD>::infinity();
    return out;
}

// δ by summation (CKS Thm 7's positive terms; see discreteGaussianDelta in the header).
Expected<LD> summedDelta(const DeltaProblem& p, const Rational& sigma2) {
    const LD s2 = p.s2;
    const LD twoS2 = 2 * s2;
    const LD logZ = logNormaliser(s2);
    const LD dl = p.sensitivity;
    const std::int64_t yRef = std::max<std::int64_t>(p.y0, 0);  // the mode of p over y ≥ y0
    const LD yRefL = static_cast<LD>(yRef);
    // Neumaier-compensated sum of T_k = e^(−(y² − yRef²)/(2σ²))·(1 − e^(ε − L(y))), y = y0 + k.
    LD sum = 0;
    LD compensation = 0;
    const auto add = [&](LD term) {
        const LD t = sum + term;
        compensation += std::fabs(sum) >= std::fabs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    };
    // Far left (y0 < −40σ − 1, only when Δ > 80σ): the terms with y < −m, m = ⌈40σ⌉, are each at
    // most e^(−y²/(2σ²)) (yRef = 0 here), so their sum is at most the geometric bound
    // e^(−m1²/(2σ²))/(1 − e^(−(2m1 + 1)/(2σ²))), m1 = m + 1 < e^(−800)·…; it is added and the sum
    // starts at y = −m.
    std::uint64_t kStart = 0;
    if (const auto m = static_cast<std::int64_t>(std::ceil(40 * std::sqrt(s2))); p.y0 < -m - 1) {
        const auto m1 = static_cast<LD>(m + 1);
        add(std::exp(-m1 * m1 / twoS2) / -std::expm1(-(2 * m1 + 1) / twoS2));
        kStart = static_cast<std::uint64_t>(-m - p.y0);
    }
    for (std::uint64_t k = kStart;; ++k) {
        if (k >= kMaxDeltaTerms) {
            return Error{"the exact δ of the discrete Gaussian needs more than " +
                         std::to_string(kMaxDeltaTerms) + " terms at sigma^2 = " +
                         sigma2.toString() + "; use a smaller σ² or convert ρ instead"};
        }
        const LD y = static_cast<LD>(p.y0) + static_cast<LD>(k);
        const LD exponent = -((y - yRefL) * (y + yRefL)) / twoS2;
        const LD x = -2 * dl * (p.frac + static_cast<LD>(k)) / twoS2;  // ε − L(y) < 0
        add(std::exp(exponent) * -std::expm1(x));
        if (y + 1 >= std::max<LD>(1, yRefL)) {
            // Rest: Σ_{y' > y} e^(−(y'² − yRef²)/(2σ²)) ≤ e^(−(y1² − yRef²)/(2σ²))/(1 − r),
            // y1 = y + 1, r = e^(−(2y1 + 1)/(2σ²)) (consecutive ratios decrease for y' ≥ 1).
            const LD y1 = y + 1;
            const LD rest = std::exp(-((y1 - yRefL) * (y1 + yRefL)) / twoS2) /
                            -std::expm1(-(2 * y1 + 1) / twoS2);
            if (rest <= (sum + compensation) * std::numeric_limits<LD>::epsilon()) {
                add(rest);
                break;
            }
        }
    }
    const LD total = sum + compensation;
    const LD logDelta = std::log(total) - yRefL * yRefL / twoS2 - logZ;
    return std::exp(logDelta) * (1 + kDeltaMargin);
}

}  // namespace

Expected<double> discreteGaussianDelta(const Rational& sigma2, std::int64_t sensitivity,
                                       const Rational& epsilon, DeltaEvaluation evaluation) {
    if (Status s = validateSigma2(sigma2); !s) {
        return s.error();
    }
    if (Status s = validateSensitivity(sensitivity, "sensitivity (Δ)"); !s) {
        return s.error();
    }
    if (Status s = validateEpsilonRational(epsilon); !s) {
        return s.error();
    }
    if (epsilon > Rational::integer(1000000)) {
        return Error{"epsilon (ε) " + epsilon.toString() + " exceeds 10^6"};
    }
    const BigInt delta = sensitivity;
    // a = εσ²/Δ − Δ/2 = (2εσ² − Δ²)/(2Δ), exactly; y0 = ⌊a⌋ + 1, the smallest integer > a.
    const BigInt en = epsilon.numerator(), ed = epsilon.denominator();
    const BigInt sn = sigma2.numerator(), sd = sigma2.denominator();
    const BigInt aNum = 2 * en * sn - delta * delta * ed * sd;
    const BigInt aDen = 2 * delta * ed * sd;
    BigInt floorA = aNum / aDen;  // truncates towards 0
    if (aNum < 0 && floorA * aDen != aNum) {
        floorA -= 1;
    }
    const BigInt y0 = floorA + 1;
    // y0 − a ∈ (0, 1], exact, so x_k = ε − L(y0 + k) = −2Δ(y0 − a + k)/(2σ²) loses nothing.
    const LD frac = toLongDouble(y0 * aDen - aNum, aDen);
    const LD s2 = toLongDouble(sn, sd);
    const LD twoS2 = 2 * s2;
    const LD logZ = logNormaliser(s2);

    // Underflow: δ ≤ Pr[Y ≥ y0] ≤ e^(−y0²/(2σ²))/(Z(1 − r)), r = e^(−(2y0+1)/(2σ²)), for y0 > 0.
    if (y0 > 0) {
        const LD y0l = toLongDouble(y0, 1);
        const LD bound = -y0l * y0l / twoS2 - logZ - std::log(-std::expm1(-(2 * y0l + 1) / twoS2));
        if (bound < std::log(static_cast<LD>(std::numeric_limits<double>::denorm_min())) - 1) {
            return std::numeric_limits<double>::denorm_min();
        }
    }
    // Here |y0| < 4·10^7 (the bound above failed, or −Δ/2 < y0 ≤ 0).
    const DeltaProblem problem{static_cast<std::int64_t>(y0), frac, s2,
                               static_cast<LD>(sensitivity), toLongDouble(en, ed)};
    // Euler–Maclaurin where σ is large (σ² > kEulerMaclaurinSigma2 = 10^4) and Δ ≤ σ², provided
    // its error bounds stay below kEulerMaclaurinSlack of the value (they are far below it there);
    // the sum elsewhere, which then has at most about 50σ < 5·10^4 terms (σ ≤ 100 or σ² < Δ).
    if (evaluation == DeltaEvaluation::EulerMaclaurin) {
        if (!(sigma2 > Rational::integer(100))) {
            return Error{"the Euler–Maclaurin evaluation of δ needs σ² > 100"};
        }
        return roundUpToDouble(eulerMaclaurinDelta(problem).upper);
    }
    if (evaluation == DeltaEvaluation::Automatic &&
        sigma2 > Rational::integer(kEulerMaclaurinSigma2) && Rational::integer(delta) <= sigma2) {
        const EulerMaclaurinDelta em = eulerMaclaurinDelta(problem);
        if (em.slack <= kEulerMaclaurinSlack) {
            return roundUpToDouble(em.upper);
        }
    }
    auto summed = summedDelta(problem, sigma2);
    if (!summed) {
        return summed.error();
    }
    return roundUpToDouble(*summed);
}

namespace {

// "; that δ needs ε ≥ 3.2e-05 (…)": the smallest ε with two significant digits for which
// σ² = 10^12 meets δ (δ decreases with ε at fixed σ²), checked at that ε; empty if none is
// found up to 10^6.
std::string smallestEpsilonHint(double delta, std::int64_t sensitivity) {
    const Rational maxSigma2 = Rational::integer(BigInt(1000000000000LL));
    const auto meets = [&](const Rational& e) {
        const Expected<double> d = discreteGaussianDelta(maxSigma2, sensitivity, e);
        return d && *d <= delta;
    };
    double lo = 1e-12, hi = 1e6;  // δ(lo) > target assumed; hi checked
    if (!meets(Rational::integer(1000000))) {
        return "";
    }
    for (int i = 0; i < 60 && hi / lo > 1.001; ++i) {
        const double mid = std::sqrt(lo * hi);
        (meets(*Rational::fromDouble(mid)) ? hi : lo) = mid;
    }
    // Round hi up to two significant digits, m·10^k with 10 ≤ m ≤ 99, and confirm.
    int k = static_cast<int>(std::floor(std::log10(hi))) - 1;
    auto m = static_cast<long>(std::ceil(hi / std::pow(10.0, k) - 1e-9));
    for (int attempt = 0; attempt < 20; ++attempt, ++m) {
        if (m > 99) {
            m = 10;
            ++k;
        }
        const std::string text =
            std::to_string(m / 10) + "." + std::to_string(m % 10) + "e" + std::to_string(k + 1);
        const Expected<Rational> e = parseDecimal(text);
        if (e && meets(*e)) {
            return "; at this δ the exact discrete Gaussian needs ε ≥ " + text + " (or a larger δ)";
        }
    }
    return "";
}

}  // namespace

Expected<DiscreteGaussianCalibration> calibrateDiscreteGaussian(const Rational& epsilon,
                                                                double delta,
                                                                std::int64_t sensitivity) {
    if (Status s = validateEpsilonRational(epsilon); !s) {
        return s.error();
    }
    if (epsilon > Rational::integer(1000000)) {
        return Error{"epsilon (ε) " + epsilon.toString() + " exceeds 10^6"};
    }
    if (!(delta > 0 && delta < 1)) {  // also NaN
        return Error{"delta (δ) must be in the open interval (0, 1), got " + formatDelta(delta)};
    }
    if (Status s = validateSensitivity(sensitivity, "sensitivity (Δ)"); !s) {
        return s.error();
    }
    const Rational maxSigma2 = Rational::integer(BigInt(1000000000000LL));
    const auto deltaAt = [&](const Rational& s2) -> Expected<double> {
        return discreteGaussianDelta(s2, sensitivity, epsilon);
    };
    // Bracket [lo, hi] on σ² by factors of 2 from the classic σ² = 2 ln(1.25/δ)·Δ²/ε²
    // (Dwork & Roth 2014 Thm A.1; only a starting point).
    const double eps = epsilon.toDouble();
    const double ds = static_cast<double>(sensitivity);
    double start = 2 * std::log(1.25 / delta) * ds * ds / (eps * eps);
    start = std::isfinite(start) ? std::clamp(start, 1e-6, 1e12) : 1e12;
    Rational hi = *Rational::fromDouble(start);
    Rational lo;
    bool loValid = false;
    Expected<double> dHi = deltaAt(hi);
    if (!dHi) {
        return dHi.error();
    }
    if (*dHi <= delta) {
        lo = hi;
        for (int i = 0; i < 200; ++i) {
            lo = *Rational::fraction(lo.numerator(), lo.denominator() * 2);
            Expected<double> d = deltaAt(lo);
            if (!d) {
                return d.error();
            }
            if (*d > delta) {
                loValid = true;
                break;
            }
            hi = lo;
        }
    } else {
        for (;;) {
            if (hi == maxSigma2) {
                return Error{
                    "no discrete Gaussian with sigma^2 (σ²) ≤ 10^12 (the largest the exact "
                    "sampler accepts) reaches (ε = " +
                    formatDelta(epsilon.toDouble()) + ", δ = " + formatDelta(delta) +
                    ") at sensitivity " + std::to_string(sensitivity) +
                    smallestEpsilonHint(delta, sensitivity)};
            }
            lo = hi;
            loValid = true;
            hi = *Rational::fraction(hi.numerator() * 2, hi.denominator());
            if (hi > maxSigma2) {
                hi = maxSigma2;
            }
            Expected<double> d = deltaAt(hi);
            if (!d) {
                return d.error();
            }
            if (*d <= delta) {
                break;
            }
        }
    }
    // Grid step 10^(⌊log10 hi⌋ − 5): six significant digits at hi.
    // (log10 of the double may be off by one next to a power of 10; the loops below fix it.)
    int decade = static_cast<int>(std::floor(std::log10(hi.toDouble())));
    const auto pow10 = [](int e) {
        BigInt p = 1;
        for (int i = 0; i < std::abs(e); ++i) {
            p *= 10;
        }
        return e >= 0 ? Rational::integer(p) : *Rational::fraction(1, p);
    };
    while (pow10(decade) > hi) {
        --decade;
    }
    while (!(pow10(decade + 1) > hi)) {
        ++decade;
    }
    const Rational step = pow10(decade - 5);
    const auto gridValue = [&](const BigInt& m) {
        return *Rational::fraction(m * step.numerator(), step.denominator());
    };
    // m_hi = ⌈hi/step⌉, m_lo = ⌊lo/step⌋ (δ(m_lo·step) > δ target if m_lo·step ≤ lo, by
    // monotonicity; m_lo = 0 stands for σ² = 0).
    const BigInt hiNum = hi.numerator() * step.denominator();
    const BigInt hiDen = hi.denominator() * step.numerator();
    BigInt mHi = (hiNum + hiDen - 1) / hiDen;
    BigInt mLo =
        loValid
            ? BigInt(lo.numerator() * step.denominator() / (lo.denominator() * step.numerator()))
            : BigInt(0);
    Expected<double> dBest = deltaAt(gridValue(mHi));
    if (!dBest) {
        return dBest.error();
    }
    while (*dBest > delta) {  // hi rounded up to the grid must meet it; guard anyway
        mHi += 1;
        dBest = deltaAt(gridValue(mHi));
        if (!dBest) {
            return dBest.error();
        }
    }
    while (mHi - mLo > 1) {
        const BigInt mid = (mHi + mLo) / 2;
        Expected<double> d = deltaAt(gridValue(mid));
        if (!d) {
            return d.error();
        }
        if (*d <= delta) {
            mHi = mid;
            dBest = d;
        } else {
            mLo = mid;
        }
    }
    DiscreteGaussianCalibration result;
    result.sigma2 = gridValue(mHi);
    result.delta = *dBest;
    result.rho = DiscreteGaussianParams{result.sigma2, sensitivity}.rho();
    if (result.sigma2 < Rational::integer(16 * BigInt(sensitivity) * sensitivity)) {
        result.warnings.push_back(
            "sigma^2 = " + result.sigma2.toString() +
            " is below 16·Δ²: there δ of the discrete "
            "Gaussian is not monotone in σ², so a smaller σ² may also meet (ε, δ); the σ² "
            "returned does meet it");
    }
    return result;
}

// ---------------------------------------------------------------------------------------------
// Release entry points

Expected<std::vector<std::int64_t>> releaseDiscreteLaplaceNoise(const DiscreteLaplaceParams& params,
                                                                std::size_t count,
                                                                ReleaseRandomness& randomness) {
    if (Status s = params.validate(); !s) {
        return s.error();
    }
    return sampleDiscreteLaplace(params.scale(), count, randomness);
}

Expected<std::vector<std::int64_t>> releaseDiscreteGaussianNoise(
    const DiscreteGaussianParams& params, std::size_t count, ReleaseRandomness& randomness) {
    if (Status s = params.validate(); !s) {
        return s.error();
    }
    return sampleDiscreteGaussian(params.sigma2, count, randomness);
}

Expected<std::vector<std::size_t>> releaseCountMechanismOutputs(
    const CountMechanismSampler& sampler, std::span<const std::size_t> trueCounts,
    ReleaseRandomness& randomness) {
    return sampler.sample(trueCounts, randomness);
}

}  // namespace dpx
