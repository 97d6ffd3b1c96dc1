// Exact samplers (core/release/exact_samplers.h, issue #8), deterministic part: exact rationals and
// the decimal parser; the algorithm logic of CKS 2020 Algorithms 1–3 and of the matrix sampler on
// scripted bit strings (expected outputs derived by hand from the algorithms, bit by bit, in the
// comments); failure of the bit source; parameter validation; the discrete Gaussian's δ against
// 50-digit mpmath values, an independent long double summation and the continuous Gaussian; the
// calibration of σ². The statistical conformance tests are in tst_exact_sampler_conformance.
#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "core/count/count_mechanism.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/release/exact_samplers.h"
#include "tests/testing/random_bits_doubles.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::FailingBits;
using dpxtest::ScriptedBits;
using dpxtest::SeededTestBits;

namespace {

Rational q(const std::string& text) {  // "a/b" or a decimal
    const auto slash = text.find('/');
    if (slash == std::string::npos) {
        return *parseDecimal(text);
    }
    return *Rational::fraction(BigInt(text.substr(0, slash)), BigInt(text.substr(slash + 1)));
}

// Runs one sampler named `kind` with parameter `param` on `bits`; the output as decimal text.
Expected<std::string> runSampler(const std::string& kind, const std::string& param,
                                 RandomBits& bits) {
    const auto text = [](auto e) -> Expected<std::string> {
        if (!e) {
            return e.error();
        }
        if constexpr (std::is_same_v<std::decay_t<decltype(*e)>, bool>) {
            return std::string(*e ? "1" : "0");
        } else if constexpr (std::is_same_v<std::decay_t<decltype(*e)>, BigInt>) {
            return e->str();
        } else {
            return std::to_string(*e);
        }
    };
    if (kind == "uniform") {
        return text(sampleUniformBelow(BigInt(param), bits));
    }
    if (kind == "bernoulli") {
        return text(sampleBernoulli(q(param), bits));
    }
    if (kind == "bernoulliExp") {
        return text(sampleBernoulliExp(q(param), bits));
    }
    if (kind == "geometric") {
        return text(sampleGeometric(q(param), bits));
    }
    if (kind == "laplace") {
        return text(sampleDiscreteLaplace(q(param), bits));
    }
    if (kind == "gaussian") {
        return text(sampleDiscreteGaussian(q(param), bits));
    }
    return Error{"unknown sampler kind " + kind};
}

// δ by brute force in long double, independent of the library's method: the normaliser and the
// sum Σ_y p(y)·max(0, 1 − e^(ε − L(y))) both over every integer |y| ≤ R, R = 60σ + a + Δ + 10
// (beyond R the terms are below e^(−1800) of the largest), compensated (Kahan) sums.
long double bruteForceDelta(long double sigma2, int sensitivity, long double eps) {
    const long double sigma = std::sqrt(sigma2);
    const long double d = sensitivity;
    const long double a = eps * sigma2 / d - d / 2;
    const auto r = static_cast<long long>(60 * sigma + std::fabs(a) + d + 10);
    long double z = 0, zc = 0, s = 0, sc = 0;
    const auto kahan = [](long double& sum, long double& c, long double x) {
        const long double y = x - c;
        const long double t = sum + y;
        c = (t - sum) - y;
        sum = t;
    };
    for (long long k = r; k >= -r; --k) {  // small terms first on the right
        const auto y = static_cast<long double>(k);
        const long double p = std::exp(-y * y / (2 * sigma2));
        kahan(z, zc, p);
        const long double loss = (2 * y * d + d * d) / (2 * sigma2);
        if (loss > eps) {
            kahan(s, sc, p * -std::expm1(eps - loss));
        }
    }
    return s / z;
}

}  // namespace

class TestExactSamplers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parseDecimalExact_data();
    void parseDecimalExact();
    void parseDecimalRejects_data();
    void parseDecimalRejects();
    void rationalFromDouble();
    void rationalArithmetic();

    void scriptedOutputs_data();
    void scriptedOutputs();
    void degenerateStreamsFailClosed_data();
    void degenerateStreamsFailClosed();
    void sourceFailureGivesNoOutput_data();
    void sourceFailureGivesNoOutput();
    void bulkDrawsShareOneStream();

    void matrixScriptedOutputs_data();
    void matrixScriptedOutputs();
    void matrixThresholdsAreExact();
    void matrixColumnSums();
    void matrixRejects();

    void parameters();
    void parameterValidation();

    void deltaAgainstMpmath_data();
    void deltaAgainstMpmath();
    void deltaAgainstBruteForce();
    void deltaNearContinuousGaussian_data();
    void deltaNearContinuousGaussian();
    void deltaMonotoneInSigma2();
    void deltaUnderflowAndValidation();
    void deltaLargeSigmaAgainstMpmath_data();
    void deltaLargeSigmaAgainstMpmath();
    void deltaEulerMaclaurinAgainstSummation();
    void deltaLargeSigmaMonotone();
    void calibration_data();
    void calibration();
    void calibrationRejects();
    void calibrationAcrossEpsilon();
};

// ---- Rationals and parsing -----------------------------------------------------------------

void TestExactSamplers::parseDecimalExact_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("exact");
    QTest::newRow("0.1") << "0.1"
                         << "1/10";
    QTest::newRow("integer") << "7"
                             << "7";
    QTest::newRow("negative") << "-3"
                              << "-3";
    QTest::newRow("plus, trailing zero") << "+2.50"
                                         << "5/2";
    QTest::newRow("exponent") << "2.5e-3"
                              << "1/400";
    QTest::newRow("capital exponent") << "1E3"
                                      << "1000";
    QTest::newRow("exponent with plus") << "1.5e+2"
                                        << "150";
    QTest::newRow("leading point") << ".5"
                                   << "1/2";
    QTest::newRow("trailing point") << "5."
                                    << "5";
    QTest::newRow("zero") << "0.000"
                          << "0";
    QTest::newRow("many digits") << "123456789012345678901234567890.5"
                                 << "246913578024691357802469135781/2";
    QTest::newRow("0.3 is not the double") << "0.3"
                                           << "3/10";
    // cpp_int would read a leading 0 as octal: 0.25 must not become 21/100, nor 0.09 an error.
    QTest::newRow("leading zero, octal-looking") << "0.25"
                                                 << "1/4";
    QTest::newRow("leading zero with 9") << "0.09"
                                         << "9/100";
    QTest::newRow("0.3334") << "0.3334"
                            << "1667/5000";
    QTest::newRow("integer with leading zeros") << "007"
                                                << "7";
    QTest::newRow("ln 3 to 20 digits") << "1.0986122886681098000"
                                       << "5493061443340549/5000000000000000";
}

void TestExactSamplers::parseDecimalExact() {
    QFETCH(QString, text);
    QFETCH(QString, exact);
    const auto r = parseDecimal(text.toStdString(), "epsilon");
    DPX_VERIFY_OK(r);
    QCOMPARE(QString::fromStdString(r->toString()), exact);
}

void TestExactSamplers::parseDecimalRejects_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("needle");
    QTest::newRow("empty") << ""
                           << "empty";
    QTest::newRow("leading space") << " 0.1"
                                   << "not a decimal";
    QTest::newRow("trailing space") << "0.1 "
                                    << "unexpected";
    QTest::newRow("comma") << "0,1"
                           << "unexpected ','";
    QTest::newRow("fraction") << "1/3"
                              << "unexpected '/'";
    QTest::newRow("hex float") << "0x1p-3"
                               << "unexpected 'x'";
    QTest::newRow("nan") << "nan"
                         << "not a finite";
    QTest::newRow("NaN") << "NaN"
                         << "not a finite";
    QTest::newRow("inf") << "inf"
                         << "not a finite";
    QTest::newRow("-Infinity") << "-Infinity"
                               << "not a finite";
    QTest::newRow("exponent without digits") << "1e"
                                             << "exponent without digits";
    QTest::newRow("exponent sign only") << "1e+"
                                        << "exponent without digits";
    QTest::newRow("no mantissa") << "e5"
                                 << "not a decimal";
    QTest::newRow("point only") << "."
                                << "not a decimal";
    QTest::newRow("sign only") << "+"
                               << "not a decimal";
    QTest::newRow("double sign") << "--1"
                                 << "not a decimal";
    QTest::newRow("two points") << "1.2.3"
                                << "unexpected '.'";
    QTest::newRow("exponent too large") << "1e1001"
                                        << "beyond";
    QTest::newRow("exponent far too large") << "1e99999"
                                            << "beyond";
    QTest::newRow("letters") << "abc"
                             << "not a decimal";
    QTest::newRow("digits then letters") << "12abc"
                                         << "position 3";
    QTest::newRow("too long") << QString(1001, QLatin1Char('1')) << "longer than 1000";
    // 500 digits after the point and e-1000: denominator 10^1500, 4983 bits > 4096.
    QTest::newRow("too many bits")
        << QStringLiteral("0.") + QString(500, QLatin1Char('1')) + QStringLiteral("e-1000")
        << "too many digits";
}

void TestExactSamplers::parseDecimalRejects() {
    QFETCH(QString, text);
    QFETCH(QString, needle);
    const auto r = parseDecimal(text.toStdString(), "epsilon");
    const QByteArray n = needle.toUtf8();
    DPX_VERIFY_ERROR(r, n.constData());
    DPX_VERIFY_ERROR(r, "epsilon");
}

void TestExactSamplers::rationalFromDouble() {
    // 0.1 as a double is 3602879701896397·2^−55 (IEEE 754 binary64, round to nearest).
    QCOMPARE(QString::fromStdString(Rational::fromDouble(0.1)->toString()),
             QStringLiteral("3602879701896397/36028797018963968"));
    QCOMPARE(QString::fromStdString(Rational::fromDouble(0.5)->toString()), QStringLiteral("1/2"));
    QCOMPARE(QString::fromStdString(Rational::fromDouble(-2.0)->toString()), QStringLiteral("-2"));
    QCOMPARE(QString::fromStdString(Rational::fromDouble(-0.0)->toString()), QStringLiteral("0"));
    QCOMPARE(QString::fromStdString(Rational::fromDouble(0x1p60)->toString()),
             QStringLiteral("1152921504606846976"));
    const auto tiny = Rational::fromDouble(std::numeric_limits<double>::denorm_min());
    DPX_VERIFY_OK(tiny);
    QCOMPARE(tiny->numerator(), BigInt(1));
    QCOMPARE(tiny->denominator(), BigInt(1) << 1074);
    DPX_VERIFY_ERROR(Rational::fromDouble(std::nan("")), "nan");
    DPX_VERIFY_ERROR(Rational::fromDouble(HUGE_VAL), "infinity");
    DPX_VERIFY_ERROR(Rational::fromDouble(-HUGE_VAL), "infinity");
    // Round trip of doubles through the exact value.
    for (double v : {0.1, 1.0 / 3, 1e-300, 12345.678, -7.25e200}) {
        QCOMPARE(Rational::fromDouble(v)->toDouble(), v);
    }
}

void TestExactSamplers::rationalArithmetic() {
    QCOMPARE(QString::fromStdString(Rational::fraction(6, -4)->toString()), QStringLiteral("-3/2"));
    QCOMPARE(QString::fromStdString(Rational::fraction(0, -4)->toString()), QStringLiteral("0"));
    DPX_VERIFY_ERROR(Rational::fraction(1, 0), "denominator 0");
    QVERIFY(q("1/3") < q("0.3334"));
    QVERIFY(q("0.3333") < q("1/3"));
    QVERIFY(q("2/4") == q("0.5"));
    QVERIFY(q("-1/2") < Rational());
    DPX_VERIFY_NEAR(q("1/3").toDouble(), 1.0 / 3, 1e-16);
}

// ---- Scripted bits -------------------------------------------------------------------------

void TestExactSamplers::scriptedOutputs_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("param");
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("words");  // next64() calls expected (−1: not checked)

    // Uniform on {0..m−1}: bitlength(m−1) bits per try, values ≥ m rejected.
    QTest::newRow("uniform 5: 7, 6, 5 rejected, 4") << "uniform"
                                                    << "5"
                                                    << "111 110 101 100"
                                                    << "4" << 1;
    QTest::newRow("uniform 5: 2") << "uniform"
                                  << "5"
                                  << "010"
                                  << "2" << 1;
    QTest::newRow("uniform 8: all ones is 7") << "uniform"
                                              << "8"
                                              << "111"
                                              << "7" << 1;
    QTest::newRow("uniform 1 reads nothing") << "uniform"
                                             << "1"
                                             << ""
                                             << "0" << 0;
    // m = 2^64 + 1: 65 bits (1 from the first word, 64 across the boundary).
    QTest::newRow("uniform 2^64+1: 2^64")
        << "uniform"
        << "18446744073709551617" << QStringLiteral("1") + QString(64, QLatin1Char('0'))
        << "18446744073709551616" << 2;
    QTest::newRow("uniform 2^64+1: 2^64+1 rejected, then 2^64-1")
        << "uniform"
        << "18446744073709551617"
        << QStringLiteral("1") + QString(63, QLatin1Char('0')) + QStringLiteral("10") +
               QString(64, QLatin1Char('1'))
        << "18446744073709551615" << 3;
    // Bernoulli(1/3): 2 bits U ∈ {0, 1, 2} (3 rejected), true iff U < 1.
    QTest::newRow("bernoulli 1/3: U=0") << "bernoulli"
                                        << "1/3"
                                        << "00"
                                        << "1" << 1;
    QTest::newRow("bernoulli 1/3: U=1") << "bernoulli"
                                        << "1/3"
                                        << "01"
                                        << "0" << 1;
    QTest::newRow("bernoulli 1/3: 3 rejected, U=2") << "bernoulli"
                                                    << "1/3"
                                                    << "11 10"
                                                    << "0" << 1;
    QTest::newRow("bernoulli 1/3: 3 rejected, U=0") << "bernoulli"
                                                    << "1/3"
                                                    << "11 00"
                                                    << "1" << 1;
    QTest::newRow("bernoulli 0 reads nothing") << "bernoulli"
                                               << "0"
                                               << ""
                                               << "0" << 0;
    QTest::newRow("bernoulli 1 reads nothing") << "bernoulli"
                                               << "1"
                                               << ""
                                               << "1" << 0;
    // Bernoulli(e^−γ), γ ≤ 1: successes of Bernoulli(γ/k), k = 1, 2, …; true iff their number is
    // even. γ = 1/2: Bernoulli(1/2) reads 1 bit, Bernoulli(1/4) 2 bits, Bernoulli(1/6) 3 bits.
    QTest::newRow("bexp 0 reads nothing") << "bernoulliExp"
                                          << "0"
                                          << ""
                                          << "1" << 0;
    QTest::newRow("bexp 1/2: fail at k=1 (0 successes)") << "bernoulliExp"
                                                         << "1/2"
                                                         << "1"
                                                         << "1" << 1;
    QTest::newRow("bexp 1/2: 1 success") << "bernoulliExp"
                                         << "1/2"
                                         << "0 11"
                                         << "0" << 1;
    QTest::newRow("bexp 1/2: 3 successes") << "bernoulliExp"
                                           << "1/2"
                                           << "0 00 000 111"
                                           << "0" << 1;
    QTest::newRow("bexp 1/2: 2 successes, U=5 of 6") << "bernoulliExp"
                                                     << "1/2"
                                                     << "0 00 101"
                                                     << "1" << 1;
    QTest::newRow("bexp 1/2: U=6 of 6 rejected") << "bernoulliExp"
                                                 << "1/2"
                                                 << "0 00 110 101"
                                                 << "1" << 1;
    // γ = 1: Bernoulli(1/1) always succeeds without bits; then 1/2 (1 bit), 1/3 (2 bits), …
    QTest::newRow("bexp 1: 1 success") << "bernoulliExp"
                                       << "1"
                                       << "1"
                                       << "0" << 1;
    QTest::newRow("bexp 1: 2 successes") << "bernoulliExp"
                                         << "1"
                                         << "0 01"
                                         << "1" << 1;
    QTest::newRow("bexp 1: 3 rejected, 2 successes") << "bernoulliExp"
                                                     << "1"
                                                     << "0 11 01"
                                                     << "1" << 1;
    QTest::newRow("bexp 1: 3 successes") << "bernoulliExp"
                                         << "1"
                                         << "0 00 11"
                                         << "0" << 1;
    // γ = 3/2 > 1: one Bernoulli(e^−1), then Bernoulli(e^−1/2).
    QTest::newRow("bexp 3/2: e^-1 fails") << "bernoulliExp"
                                          << "3/2"
                                          << "1"
                                          << "0" << 1;
    QTest::newRow("bexp 3/2: both succeed") << "bernoulliExp"
                                            << "3/2"
                                            << "0 10 | 1"
                                            << "1" << 1;
    QTest::newRow("bexp 3/2: e^-1/2 fails") << "bernoulliExp"
                                            << "3/2"
                                            << "0 10 | 0 11"
                                            << "0" << 1;
    // Geometric with rate s/t: U uniform on {0..t−1} (no bits for t = 1), accepted with
    // Bernoulli(e^(−U/t)); V = number of true Bernoulli(e^−1) before the first false ("001" is a
    // true, "1" a false, from the γ = 1 rows above); return ⌊(U + tV)/s⌋.
    QTest::newRow("geometric 1: V=0") << "geometric"
                                      << "1"
                                      << "1"
                                      << "0" << 1;
    QTest::newRow("geometric 1: V=2") << "geometric"
                                      << "1"
                                      << "001 001 1"
                                      << "2" << 1;
    QTest::newRow("geometric 1/2: U=0, V=0") << "geometric"
                                             << "1/2"
                                             << "0 | 1"
                                             << "0" << 1;
    QTest::newRow("geometric 1/2: U=1 accepted, V=1") << "geometric"
                                                      << "1/2"
                                                      << "1 | 1 | 001 1"
                                                      << "3" << 1;
    QTest::newRow("geometric 1/2: U=1 rejected, then 0") << "geometric"
                                                         << "1/2"
                                                         << "1 | 0 11 | 0 | 1"
                                                         << "0" << 1;
    QTest::newRow("geometric 2: V=3 gives 1") << "geometric"
                                              << "2"
                                              << "001 001 001 1"
                                              << "1" << 1;
    // Discrete Laplace: geometric magnitude, then a sign bit (1 = negative); −0 rejected.
    QTest::newRow("laplace 1: +0") << "laplace"
                                   << "1"
                                   << "1 | 0"
                                   << "0" << 1;
    QTest::newRow("laplace 1: -0 rejected, then -1") << "laplace"
                                                     << "1"
                                                     << "1 | 1 | 001 1 | 1"
                                                     << "-1" << 1;
    QTest::newRow("laplace 2: +3") << "laplace"
                                   << "2"
                                   << "1 | 1 | 001 1 | 0"
                                   << "3" << 1;
    QTest::newRow("laplace 1/2: V=2 gives 1") << "laplace"
                                              << "1/2"
                                              << "001 001 1 | 1"
                                              << "-1" << 1;
    // Discrete Gaussian σ² = 1: t = 2; Y from the Laplace with scale 2, accepted with
    // Bernoulli(exp(−(2|Y| − 1)²/8)), i.e. γ = 1/8 for |Y| ∈ {0, 1}: Bernoulli(1/8) reads 3 bits,
    // Bernoulli(1/16) 4 bits.
    QTest::newRow("gaussian 1: Y=0 accepted") << "gaussian"
                                              << "1"
                                              << "0 1 0 | 111"
                                              << "0" << 1;
    QTest::newRow("gaussian 1: Y=0 rejected, Y=1 accepted") << "gaussian"
                                                            << "1"
                                                            << "0 1 0 | 000 1111 | 1 1 1 0 | 111"
                                                            << "1" << 1;
    // |Y| = 2: γ = 9/8 > 1: one Bernoulli(e^−1) first; "1" makes it false: rejected.
    QTest::newRow("gaussian 1: Y=-2 rejected, Y=0 accepted") << "gaussian"
                                                             << "1"
                                                             << "0 001 1 1 | 1 | 0 1 0 | 111"
                                                             << "0" << 1;
}

// The output depends only on the scripted bits: the same with the last word padded by zeros or
// by ones, and with a second word of padding available.
void TestExactSamplers::scriptedOutputs() {
    QFETCH(QString, kind);
    QFETCH(QString, param);
    QFETCH(QString, script);
    QFETCH(QString, expected);
    QFETCH(int, words);
    for (const bool fillOnes : {false, true}) {
        ScriptedBits bits(script.toStdString(), fillOnes, 1);
        const auto out = runSampler(kind.toStdString(), param.toStdString(), bits);
        DPX_VERIFY_OK(out);
        QCOMPARE(QString::fromStdString(*out), expected);
        if (words >= 0) {
            QCOMPARE(bits.wordsRead(), static_cast<std::size_t>(words));
        }
    }
}

// Streams that never terminate a rejection or success loop (all zeros keep every Bernoulli(γ/k)
// succeeding; all ones keep every uniform draw on a non-power-of-two range rejecting) exhaust the
// script: the sampler returns an Error, never a value.
void TestExactSamplers::degenerateStreamsFailClosed_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("param");
    QTest::addColumn<bool>("ones");
    QTest::newRow("uniform 5, all ones") << "uniform"
                                         << "5" << true;
    QTest::newRow("bernoulli 1/3, all ones") << "bernoulli"
                                             << "1/3" << true;
    QTest::newRow("bexp 1/2, all zeros") << "bernoulliExp"
                                         << "1/2" << false;
    QTest::newRow("bexp 1/3, all ones") << "bernoulliExp"
                                        << "1/3" << true;
    QTest::newRow("geometric 1, all zeros") << "geometric"
                                            << "1" << false;
    QTest::newRow("laplace 3.5, all zeros") << "laplace"
                                            << "3.5" << false;
    QTest::newRow("laplace 3.5, all ones") << "laplace"
                                           << "3.5" << true;
    QTest::newRow("gaussian 10, all zeros") << "gaussian"
                                            << "10" << false;
    QTest::newRow("gaussian 10, all ones") << "gaussian"
                                           << "10" << true;
}

void TestExactSamplers::degenerateStreamsFailClosed() {
    QFETCH(QString, kind);
    QFETCH(QString, param);
    QFETCH(bool, ones);
    ScriptedBits bits("", ones, 16);
    const auto out = runSampler(kind.toStdString(), param.toStdString(), bits);
    DPX_VERIFY_ERROR(out, "script exhausted");
    DPX_VERIFY_ERROR(out, "no output");
    QCOMPARE(bits.wordsRead(), std::size_t{16});
}

// A source failing at word k (k = 0, 1, 2, 5) makes every sampler return the Error (with "no
// output"), including the bulk overloads halfway through.
void TestExactSamplers::sourceFailureGivesNoOutput_data() {
    QTest::addColumn<int>("failAt");
    for (int k : {0, 1, 2, 5}) {
        QTest::addRow("fail at word %d", k) << k;
    }
}

void TestExactSamplers::sourceFailureGivesNoOutput() {
    QFETCH(int, failAt);
    const auto check = [&](auto&& draw) {
        SeededTestBits seeded(7, 1);
        FailingBits bits(seeded, static_cast<std::uint64_t>(failAt));
        const auto out = draw(bits);
        if (out.hasValue()) {
            // Only possible when the draw needed fewer words than failAt.
            QVERIFY(bits.calls() <= static_cast<std::uint64_t>(failAt));
            return;
        }
        DPX_VERIFY_ERROR(out, "injected failure");
        DPX_VERIFY_ERROR(out, "no output");
        QCOMPARE(bits.calls(), static_cast<std::uint64_t>(failAt) + 1);  // stopped at once
    };
    check([](RandomBits& b) { return sampleUniformBelow(BigInt(1) << 200, b); });
    check([](RandomBits& b) { return sampleBernoulli(q("1/3"), b); });
    check([](RandomBits& b) { return sampleBernoulliExp(q("7/3"), b); });
    check([](RandomBits& b) { return sampleGeometric(q("1/1000"), b); });
    check([](RandomBits& b) { return sampleDiscreteLaplace(q("10"), b); });
    check([](RandomBits& b) { return sampleDiscreteGaussian(q("100/3"), b); });
    // Bulk: 1000 draws need far more than 6 words, so these always fail, with no partial vector.
    check([](RandomBits& b) { return sampleDiscreteLaplace(q("10"), 1000, b); });
    check([](RandomBits& b) { return sampleDiscreteGaussian(q("100/3"), 1000, b); });
    const auto gm = truncatedGeometric(20, 0.5);
    const auto sampler = CountMechanismSampler::create(*gm);
    const std::vector<std::size_t> counts(1000, 10);
    check([&](RandomBits& b) { return sampler->sample(counts, b); });
}

// The count overloads read one continuous stream: 64 draws of the discrete Laplace with scale 1
// (a few bits each) take fewer than 64 words, while 64 single calls take exactly 64 (each starts a
// fresh word). The same seed gives the same draws.
void TestExactSamplers::bulkDrawsShareOneStream() {
    SeededTestBits a(11, 0);
    const auto bulk = sampleDiscreteLaplace(q("1"), 64, a);
    DPX_VERIFY_OK(bulk);
    QVERIFY2(a.words() < 64, QByteArray::number(static_cast<qulonglong>(a.words())).constData());
    SeededTestBits b(11, 0);
    std::uint64_t singles = 0;
    for (int i = 0; i < 64; ++i) {
        DPX_VERIFY_OK(sampleDiscreteLaplace(q("1"), b));
    }
    singles = b.words();
    QCOMPARE(singles, std::uint64_t{64});
    // Same seed, same stream: deterministic.
    SeededTestBits c(11, 0);
    QCOMPARE(*sampleDiscreteLaplace(q("1"), 64, c), *bulk);
}

// ---- Count mechanism sampler -----------------------------------------------------------------

void TestExactSamplers::matrixScriptedOutputs_data() {
    QTest::addColumn<int>("matrix");  // 0: [[.75 .25] [.25 .75]], 1: every column (.2 .3 .5)
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("expected");
    // n + 1 = 2 outputs: the first draw reads 3 + bit_width(2) = 5 bits, then one bit at a time.
    QTest::newRow("rr col 0: [0, 1/32)") << 0 << 0 << "00000" << 0;
    QTest::newRow("rr col 0: [24/32, 25/32)") << 0 << 0 << "11000" << 1;
    QTest::newRow("rr col 0: [23/32, 24/32)") << 0 << 0 << "10111" << 0;
    QTest::newRow("rr col 1: [8/32, 9/32)") << 0 << 1 << "01000" << 1;
    QTest::newRow("rr col 1: [7/32, 8/32)") << 0 << 1 << "00111" << 0;
    // Cells [0, .2), [.2, .5), [.5, 1): "00110" = [6/32, 7/32) straddles 0.2; one more bit 0 gives
    // [12/64, 13/64) (still straddles), another 0 gives [24/128, 25/128) ⊂ cell 0.
    QTest::newRow("3x3: straddle, refine to cell 0") << 1 << 1 << "00110 0 0" << 0;
    QTest::newRow("3x3: straddle, refine to cell 1") << 1 << 1 << "00110 1" << 1;
    QTest::newRow("3x3: [15/32, 16/32)") << 1 << 2 << "01111" << 1;
    QTest::newRow("3x3: [16/32, 17/32)") << 1 << 0 << "10000" << 2;
}

void TestExactSamplers::matrixScriptedOutputs() {
    QFETCH(int, matrix);
    QFETCH(int, column);
    QFETCH(QString, script);
    QFETCH(int, expected);
    const auto m =
        matrix == 0 ? CountMechanism::fromRows({{0.75, 0.25}, {0.25, 0.75}})
                    : CountMechanism::fromRows({{0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}, {0.5, 0.5, 0.5}});
    QVERIFY(m.hasValue());
    const auto sampler = CountMechanismSampler::create(*m);
    DPX_VERIFY_OK(sampler);
    for (const bool fillOnes : {false, true}) {
        ScriptedBits bits(script.toStdString(), fillOnes);
        const auto out = sampler->sample(static_cast<std::size_t>(column), bits);
        DPX_VERIFY_OK(out);
        QCOMPARE(*out, static_cast<std::size_t>(expected));
        QCOMPARE(bits.wordsRead(), std::size_t{1});
    }
}

// For each cell boundary b = C_i/S_j of GM columns (exact rationals), U just below b and just above
// b at 128-bit resolution land in the two adjacent outputs: the thresholds are the exact
// cumulative sums of the stored doubles, not a floating-point approximation.
void TestExactSamplers::matrixThresholdsAreExact() {
    const auto gm = truncatedGeometric(6, 0.7);
    QVERIFY(gm.hasValue());
    const auto sampler = CountMechanismSampler::create(*gm);
    DPX_VERIFY_OK(sampler);
    for (std::size_t j = 0; j < gm->size(); ++j) {
        const Rational s = sampler->columnSum(j);
        Rational cumulative;
        for (std::size_t i = 0; i + 1 < gm->size(); ++i) {
            const Rational p = *Rational::fromDouble(gm->at(i, j));
            cumulative = *Rational::fraction(
                cumulative.numerator() * p.denominator() + p.numerator() * cumulative.denominator(),
                cumulative.denominator() * p.denominator());
            if (gm->at(i + 1, j) == 0) {
                continue;
            }
            // b = cumulative/s; F = ⌊b·2^128⌋.
            const BigInt f = (cumulative.numerator() * s.denominator() << 128) /
                             (cumulative.denominator() * s.numerator());
            for (const int side : {-1, +1}) {
                const BigInt u = side < 0 ? BigInt(f - 1) : BigInt(f + 1);
                const auto hiWord = static_cast<std::uint64_t>(BigInt(u >> 64));
                const auto loWord = static_cast<std::uint64_t>(BigInt(u & ((BigInt(1) << 64) - 1)));
                auto bits = ScriptedBits::fromWords({hiWord, loWord});
                const auto out = sampler->sample(j, bits);
                DPX_VERIFY_OK(out);
                QCOMPARE(*out, side < 0 ? i : i + 1);
            }
        }
    }
}

void TestExactSamplers::matrixColumnSums() {
    // A column that sums to exactly 1 in binary, and one that sums to 1 + 2^−40.
    const auto exact = CountMechanism::fromRows({{0.75, 0.25}, {0.25, 0.75}});
    const auto sampler = CountMechanismSampler::create(*exact);
    QCOMPARE(QString::fromStdString(sampler->columnSum(0).toString()), QStringLiteral("1"));
    QCOMPARE(sampler->columnSumLogSpread(), 0.0);
    const double off = 0.25 + 0x1p-40;
    const auto skew = CountMechanism::fromRows({{0.75, 0.25}, {off, 0.75}});
    QVERIFY(skew.hasValue());
    const auto s2 = CountMechanismSampler::create(*skew);
    QCOMPARE(s2->columnSum(0), *Rational::fraction((BigInt(1) << 40) + 1, BigInt(1) << 40));
    // ln(1 + 2^−40) = 2^−40 − 2^−81 + …: the spread is an upper bound within 1e-12 relative.
    const double spread = s2->columnSumLogSpread();
    QVERIFY(spread >= std::log1p(0x1p-40));
    DPX_VERIFY_REL(spread, std::log1p(0x1p-40), 1e-11);
}

void TestExactSamplers::matrixRejects() {
    const auto gm = truncatedGeometric(4, 1.0);
    const auto sampler = CountMechanismSampler::create(*gm);
    SeededTestBits bits(1, 1);
    DPX_VERIFY_ERROR(sampler->sample(5, bits), "outside");
    const std::vector<std::size_t> counts{0, 4, 9};
    DPX_VERIFY_ERROR(sampler->sample(counts, bits), "true count 9");
    QCOMPARE(bits.words(), std::uint64_t{0});  // validated before any draw
}

// ---- Parameters ------------------------------------------------------------------------------

void TestExactSamplers::parameters() {
    DiscreteLaplaceParams lap{q("0.1"), 2};
    DPX_VERIFY_OK(lap.validate());
    QCOMPARE(QString::fromStdString(lap.scale().toString()), QStringLiteral("20"));
    lap.epsilon = q("0.3");
    QCOMPARE(QString::fromStdString(lap.scale().toString()), QStringLiteral("20/3"));
    DiscreteGaussianParams g{q("100/3"), 2};
    DPX_VERIFY_OK(g.validate());
    QCOMPARE(QString::fromStdString(g.rho().toString()), QStringLiteral("3/50"));  // 4·3/(2·100)
    g.sigma2 = q("0.5");
    g.l2Sensitivity = 1;
    QCOMPARE(QString::fromStdString(g.rho().toString()), QStringLiteral("1"));
}

void TestExactSamplers::parameterValidation() {
    SeededTestBits bits(3, 3);
    // Laplace parameters.
    DPX_VERIFY_ERROR((DiscreteLaplaceParams{q("0"), 1}.validate()), "epsilon");
    DPX_VERIFY_ERROR((DiscreteLaplaceParams{q("-0.1"), 1}.validate()), "must be > 0");
    DPX_VERIFY_ERROR((DiscreteLaplaceParams{q("1e-13"), 1}.validate()), "10^12");
    DPX_VERIFY_OK((DiscreteLaplaceParams{q("1e-12"), 1}.validate()));
    DPX_VERIFY_ERROR((DiscreteLaplaceParams{q("1"), 0}.validate()), "L1 sensitivity");
    DPX_VERIFY_ERROR((DiscreteLaplaceParams{q("1"), -2}.validate()), "L1 sensitivity");
    DPX_VERIFY_ERROR((DiscreteLaplaceParams{q("1"), 1000001}.validate()), "L1 sensitivity");
    DPX_VERIFY_ERROR((DiscreteLaplaceParams{Rational::integer(BigInt(1) << 5000), 1}.validate()),
                     "bits");
    // ε from a double: NaN and infinities never become a Rational.
    DPX_VERIFY_ERROR(Rational::fromDouble(std::numeric_limits<double>::quiet_NaN()), "nan");
    DPX_VERIFY_ERROR(Rational::fromDouble(std::numeric_limits<double>::infinity()), "infinity");
    // Gaussian parameters.
    DPX_VERIFY_ERROR((DiscreteGaussianParams{q("0"), 1}.validate()), "sigma^2");
    DPX_VERIFY_ERROR((DiscreteGaussianParams{q("-1"), 1}.validate()), "must be > 0");
    DPX_VERIFY_OK((DiscreteGaussianParams{q("1e12"), 1}.validate()));  // the limit itself
    DPX_VERIFY_ERROR((DiscreteGaussianParams{q("1000000000000.5"), 1}.validate()), "10^12");
    DPX_VERIFY_ERROR((DiscreteGaussianParams{q("1"), 0}.validate()), "L2 sensitivity");
    // Building blocks.
    DPX_VERIFY_ERROR(sampleUniformBelow(0, bits), "range size");
    DPX_VERIFY_ERROR(sampleUniformBelow(-3, bits), "range size");
    DPX_VERIFY_ERROR(sampleUniformBelow(BigInt(1) << 5000, bits), "range size");
    DPX_VERIFY_ERROR(sampleBernoulli(q("-1/2"), bits), "[0, 1]");
    DPX_VERIFY_ERROR(sampleBernoulli(q("3/2"), bits), "[0, 1]");
    DPX_VERIFY_ERROR(sampleBernoulliExp(q("-1"), bits), "≥ 0");
    DPX_VERIFY_ERROR(sampleGeometric(q("0"), bits), "> 0");
    DPX_VERIFY_ERROR(sampleGeometric(q("-1"), bits), "> 0");
    DPX_VERIFY_ERROR(sampleGeometric(q("1e-13"), bits), "10^-12");
    DPX_VERIFY_ERROR(sampleDiscreteLaplace(q("0"), bits), "scale must be > 0");
    DPX_VERIFY_ERROR(sampleDiscreteLaplace(q("-2"), bits), "scale must be > 0");
    DPX_VERIFY_ERROR(sampleDiscreteLaplace(q("1e13"), bits), "10^12");
    DPX_VERIFY_ERROR(sampleDiscreteGaussian(q("0"), bits), "sigma^2");
    DPX_VERIFY_ERROR(sampleDiscreteGaussian(q("-1/3"), bits), "sigma^2");
    DPX_VERIFY_ERROR(sampleDiscreteGaussian(q("0"), 10, bits), "sigma^2");
    QCOMPARE(bits.words(), std::uint64_t{0});  // no draw before validation
    // Count 0 is a valid empty release.
    const auto none = sampleDiscreteGaussian(q("1"), 0, bits);
    DPX_VERIFY_OK(none);
    QVERIFY(none->empty());
}

// ---- δ of the discrete Gaussian --------------------------------------------------------------

void TestExactSamplers::deltaAgainstMpmath_data() {
    QTest::addColumn<QString>("sigma2");
    QTest::addColumn<int>("sensitivity");
    QTest::addColumn<QString>("epsilon");
    QTest::addColumn<QString>("reference");
    // mpmath 1.3.0 at 50 digits, direct summation (normaliser over |y| ≤ 40σ + 10, δ summed from
    // ⌊a⌋ + 1 until terms fall below 1e-45 of the sum): δ = Σ_{y>a} p(y)(1 − e^(ε − L(y))).
    QTest::newRow("s2=1 d=1 e=1") << "1" << 1 << "1"
                                  << "0.1413513394056219080995417";
    QTest::newRow("s2=10 d=1 e=0.5") << "10" << 1 << "0.5"
                                     << "0.009963280630586502017801178";
    QTest::newRow("s2=100/3 d=1 e=0.2") << "100/3" << 1 << "0.2"
                                        << "0.0117266105765168563302945";
    QTest::newRow("s2=100 d=2 e=1") << "100" << 2 << "1"
                                    << "1.71446800769777326731931e-8";
    QTest::newRow("s2=0.25 d=1 e=0.1 (a<0)") << "0.25" << 1 << "0.1"
                                             << "0.775347429699630552725883";
    QTest::newRow("s2=1e4 d=1 e=0.05") << "10000" << 1 << "0.05"
                                       << "5.482075207772396074111742e-10";
    QTest::newRow("s2=2 d=3 e=2") << "2" << 3 << "2"
                                  << "0.37888305724939655488";
    QTest::newRow("s2=50 d=1 e=3") << "50" << 1 << "3"
                                   << "1.25037828454189444021523e-101";
    QTest::newRow("s2=1 d=1 e=10") << "1" << 1 << "10"
                                   << "3.027753235873648324793666e-23";
    QTest::newRow("s2=1e6 d=1 e=0.01") << "1000000" << 1 << "0.01"
                                       << "7.512057943608233924149098e-28";
    QTest::newRow("s2=0.5 d=5 e=0.3") << "0.5" << 5 << "0.3"
                                      << "0.9998362552197986693007288";
}

// Never below the reference (the result is an upper bound) and within 1e-11 relative above it.
void TestExactSamplers::deltaAgainstMpmath() {
    QFETCH(QString, sigma2);
    QFETCH(int, sensitivity);
    QFETCH(QString, epsilon);
    QFETCH(QString, reference);
    const auto d =
        discreteGaussianDelta(q(sigma2.toStdString()), sensitivity, q(epsilon.toStdString()));
    DPX_VERIFY_OK(d);
    const long double ref = std::strtold(reference.toLatin1().constData(), nullptr);
    QVERIFY2(static_cast<long double>(*d) >= ref * (1 - 1e-18L),
             (QByteArray("δ under-stated: ") + QByteArray::number(*d, 'g', 17) + " < " +
              reference.toLatin1())
                 .constData());
    DPX_VERIFY_REL(*d, static_cast<double>(ref), 1e-11);
}

// The library (sum from ⌊a⌋ + 1 with a geometric tail bound, Poisson-summed normaliser) against
// the brute-force sum over every integer in ±(60σ + a + Δ + 10) with a directly summed normaliser.
void TestExactSamplers::deltaAgainstBruteForce() {
    int cases = 0;
    for (const char* s2 : {"0.3", "1", "2.5", "10", "100/3", "250", "10000"}) {
        for (const char* e : {"0.05", "0.5", "1", "3"}) {
            for (const int sens : {1, 3}) {
                const Rational sigma2 = q(s2);
                const auto d = discreteGaussianDelta(sigma2, sens, q(e));
                DPX_VERIFY_OK(d);
                const long double ref = bruteForceDelta(static_cast<long double>(sigma2.toDouble()),
                                                        sens, std::strtold(e, nullptr));
                if (ref < 1e-300L) {
                    QVERIFY(*d <= 1e-290);
                    continue;
                }
                QVERIFY2(
                    std::fabs(static_cast<long double>(*d) / ref - 1) <= 1e-10L,
                    (QByteArray("σ² = ") + s2 + ", ε = " + e + ", Δ = " + QByteArray::number(sens) +
                     ": " + QByteArray::number(*d, 'g', 17) + " vs brute force " +
                     QByteArray::number(static_cast<double>(ref), 'g', 17))
                        .constData());
                ++cases;
            }
        }
    }
    QVERIFY(cases >= 40);
}

void TestExactSamplers::deltaNearContinuousGaussian_data() {
    QTest::addColumn<QString>("sigma2");
    QTest::addColumn<QString>("epsilon");
    for (const auto& [s2, e] :
         std::vector<std::pair<const char*, const char*>>{{"100", "0.1"},
                                                          {"100", "0.5"},
                                                          {"400", "0.25"},
                                                          {"10000", "0.02"},
                                                          {"10000", "0.05"},
                                                          {"1000000", "0.002"},
                                                          {"1000000", "0.005"}}) {
        QTest::addRow("s2=%s e=%s", s2, e) << QString::fromLatin1(s2) << QString::fromLatin1(e);
    }
}

// Sanity bound: for large σ the discrete δ is close to the continuous Gaussian's exact δ (Balle &
// Wang 2018, core/mechanisms/gaussian_mechanism.h). mpmath shows δ_Z/δ_R − 1 ≈ ε²/24 for σ² ≥ 100
// (0.0417 at ε = 1, 0.0102 at ε = 0.5, 0.0004 at ε = 0.1); the test allows ε²/12 + 10/σ².
void TestExactSamplers::deltaNearContinuousGaussian() {
    QFETCH(QString, sigma2);
    QFETCH(QString, epsilon);
    const Rational s2 = q(sigma2.toStdString());
    const Rational e = q(epsilon.toStdString());
    const auto d = discreteGaussianDelta(s2, 1, e);
    DPX_VERIFY_OK(d);
    const double cont = gaussianExactDelta(std::sqrt(s2.toDouble()), e.toDouble(), 1.0);
    QVERIFY(cont > 1e-12);
    const double tol = e.toDouble() * e.toDouble() / 12 + 10 / s2.toDouble();
    DPX_VERIFY_NEAR(*d / cont, 1.0, tol);
}

// Where the calibration claims the smallest σ² (σ² ≥ 16Δ²), δ is non-increasing: checked on a
// geometric grid for ε ≤ 1 from σ² = Δ² up. Below, it is not: mpmath (50 digits, as in
// deltaAgainstMpmath) gives δ = 0.02830398697772866 at σ² = 0.142656 and 0.033217104802268125 at
// σ² = 0.15 (ε = 4, Δ = 1), and the library agrees.
void TestExactSamplers::deltaMonotoneInSigma2() {
    const auto low = discreteGaussianDelta(q("0.142656"), 1, q("4"));
    const auto high = discreteGaussianDelta(q("0.15"), 1, q("4"));
    DPX_VERIFY_REL(*low, 0.02830398697772866, 1e-11);
    DPX_VERIFY_REL(*high, 0.033217104802268125, 1e-11);
    QVERIFY(*low < *high);
    for (const char* e : {"0.1", "0.5", "1"}) {
        double previous = 2;
        for (int k = 0; k <= 100; ++k) {
            const Rational s2 = *Rational::fromDouble(std::pow(1.1, k));
            const auto d = discreteGaussianDelta(s2, 1, q(e));
            DPX_VERIFY_OK(d);
            QVERIFY2(*d <= previous, (QByteArray("ε = ") + e +
                                      ", σ² = " + QByteArray::number(s2.toDouble()) + ": δ rose")
                                         .constData());
            previous = *d;
        }
    }
}

void TestExactSamplers::deltaUnderflowAndValidation() {
    // δ < e^(−400000): the smallest positive double (an upper bound), not 0.
    const auto tiny = discreteGaussianDelta(q("1"), 1, q("1000"));
    DPX_VERIFY_OK(tiny);
    QCOMPARE(*tiny, std::numeric_limits<double>::denorm_min());
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("0"), 1, q("1")), "sigma^2");
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("-1"), 1, q("1")), "sigma^2");
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("2e12"), 1, q("1")), "10^12");
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("1"), 0, q("1")), "sensitivity");
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("1"), -1, q("1")), "sensitivity");
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("1"), 1, q("0")), "epsilon");
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("1"), 1, q("-0.5")), "epsilon");
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("1"), 1, q("2e6")), "10^6");
}

void TestExactSamplers::deltaLargeSigmaAgainstMpmath_data() {
    QTest::addColumn<QString>("sigma2");
    QTest::addColumn<int>("sensitivity");
    QTest::addColumn<QString>("epsilon");
    QTest::addColumn<QString>("reference");
    QTest::addColumn<double>("tolerance");  // relative, above the reference
    // mpmath 1.3.0 at 45 digits (tests/reference/discrete_gaussian_delta.py): Σ_{y > a}
    // f(y)(1 − e^(ε − L(y))) by direct summation from
    // ⌊a⌋ + 1 (f(y) = e^(−y²/(2σ²)) and e^(ε − L(y)) by exact-ratio recurrences, re-anchored with
    // exp every 2·10^6 terms) until f < 1e-42 of the sum, divided by σ√(2π)·θ (Poisson summation).
    // Up to 1.4·10^7 terms per row; these σ² take the Euler–Maclaurin evaluation.
    QTest::newRow("s2=4e6 d=1 e=1e-7 (y0=0)") << "4e6" << 1 << "1e-7"
                                              << "0.0001994211501717738476003238" << 1e-11;
    QTest::newRow("s2=1e7 d=100 e=1e-5") << "1e7" << 100 << "1e-5"
                                         << "0.01261020055379314807868785" << 1e-11;
    QTest::newRow("s2=1e8 d=1 e=0.001") << "1e8" << 1 << "0.001"
                                        << "7.478298780788135364273955e-29" << 1e-11;
    QTest::newRow("s2=1e8 d=1 e=0.003") << "1e8" << 1 << "0.003"
                                        << "1.634407118964139429244756e-203" << 1e-11;
    QTest::newRow("s2=1e9 d=1 e=0.001") << "1e9" << 1 << "0.001"
                                        << "8.965776870891059434471256e-226" << 1e-11;
    QTest::newRow("s2=1e10 d=1 e=1e-4") << "1e10" << 1 << "0.0001"
                                        << "7.474933995059969370319677e-30" << 1e-11;
    QTest::newRow("s2=1e10 d=3 e=3e-4") << "1e10" << 3 << "0.0003"
                                        << "2.242704457530545978379414e-29" << 1e-11;
    QTest::newRow("s2=2.8e11 d=1 e=1e-5") << "2.8e11" << 1 << "1e-5"
                                          << "2.033733117232186681403862e-14" << 1e-11;
    QTest::newRow("s2=1e12 d=1000 e=0.001") << "1e12" << 1000 << "0.001"
                                            << "0.00008335713212518831750279301" << 1e-11;
    QTest::newRow("s2=1e12 d=1 e=1e-5") << "1e12" << 1 << "1e-5"
                                        << "7.474597627515177298892684e-31" << 1e-11;
    QTest::newRow("s2=1e12 d=1 e=1e-6") << "1e12" << 1 << "1e-6"
                                        << "8.331551224543547814144802e-8" << 1e-11;
    QTest::newRow("s2=1e12 d=1 e=1e-8") << "1e12" << 1 << "1e-8"
                                        << "0.0000003939622293190396049634191" << 1e-11;
}

// Large σ (Euler–Maclaurin with a bounded remainder): never below 45-digit values, and at most
// 10^-11 above them (the library's own bounds on rounding and remainder are added).
void TestExactSamplers::deltaLargeSigmaAgainstMpmath() {
    QFETCH(QString, sigma2);
    QFETCH(int, sensitivity);
    QFETCH(QString, epsilon);
    QFETCH(QString, reference);
    QFETCH(double, tolerance);
    const auto d =
        discreteGaussianDelta(q(sigma2.toStdString()), sensitivity, q(epsilon.toStdString()));
    DPX_VERIFY_OK(d);
    const long double ref = std::strtold(reference.toLatin1().constData(), nullptr);
    QVERIFY2(static_cast<long double>(*d) >= ref * (1 - 1e-18L),
             (QByteArray("δ under-stated: ") + QByteArray::number(*d, 'g', 17) + " < " +
              reference.toLatin1())
                 .constData());
    QVERIFY2(static_cast<long double>(*d) <= ref * (1 + static_cast<long double>(tolerance)),
             (QByteArray("δ ") + QByteArray::number(*d, 'g', 17) + " more than " +
              QByteArray::number(tolerance) + " above " + reference.toLatin1())
                 .constData());
}

// Where both are feasible the Euler–Maclaurin evaluation and the summation agree: the summation
// is an upper bound at most 2.2e-12 above the exact δ, so Euler–Maclaurin (also an upper bound)
// is never more than that below it, and at most 10^-11 above it. The automatic choice takes
// Euler–Maclaurin for σ² > 10^4 with Δ ≤ σ².
void TestExactSamplers::deltaEulerMaclaurinAgainstSummation() {
    int compared = 0;
    for (const char* s2 : {"10001", "123456.7", "1e6", "2e7", "3e8"}) {
        for (const char* e : {"1e-7", "1e-4", "0.003", "0.02", "0.1"}) {
            for (const int sens : {1, 3, 100}) {
                const Rational sigma2 = q(s2), eps = q(e);
                const auto sum =
                    discreteGaussianDelta(sigma2, sens, eps, DeltaEvaluation::Summation);
                const auto em =
                    discreteGaussianDelta(sigma2, sens, eps, DeltaEvaluation::EulerMaclaurin);
                const auto automatic = discreteGaussianDelta(sigma2, sens, eps);
                DPX_VERIFY_OK(sum);
                DPX_VERIFY_OK(em);
                DPX_VERIFY_OK(automatic);
                QCOMPARE(*automatic, *em);
                const QByteArray where = QByteArray("σ² = ") + s2 + ", ε = " + e +
                                         ", Δ = " + QByteArray::number(sens) + ": " +
                                         QByteArray::number(*em, 'g', 17) + " vs summed " +
                                         QByteArray::number(*sum, 'g', 17);
                if (*sum <= std::numeric_limits<double>::min()) {
                    QVERIFY2(*em <= 1e-290, where.constData());
                    continue;
                }
                QVERIFY2(*em >= *sum * (1 - 2.5e-12), where.constData());
                QVERIFY2(*em <= *sum * (1 + 1e-11), where.constData());
                ++compared;
            }
        }
    }
    QVERIFY(compared >= 60);
    // Forced outside its range it refuses instead of answering.
    DPX_VERIFY_ERROR(discreteGaussianDelta(q("50"), 1, q("1"), DeltaEvaluation::EulerMaclaurin),
                     "σ² > 100");
}

// δ does not rise with σ² (geometric grid 10^4 … 10^12) nor with ε (at σ² = 10^10) in the
// Euler–Maclaurin range, and is at most 1.
void TestExactSamplers::deltaLargeSigmaMonotone() {
    for (const char* e : {"1e-8", "1e-6", "1e-3", "0.05"}) {
        double previous = 2;
        for (double s2 = 1e4; s2 <= 1e12; s2 *= 1.5) {
            const auto d = discreteGaussianDelta(*Rational::fromDouble(s2), 1, q(e));
            DPX_VERIFY_OK(d);
            QVERIFY2(*d <= previous && *d <= 1,
                     (QByteArray("ε = ") + e + ", σ² = " + QByteArray::number(s2) + ": δ rose")
                         .constData());
            previous = *d;
        }
    }
    double previous = 2;
    for (double e = 1e-9; e <= 1e-3; e *= 1.3) {
        const auto d = discreteGaussianDelta(q("1e10"), 1, *Rational::fromDouble(e));
        DPX_VERIFY_OK(d);
        QVERIFY2(*d <= previous,
                 (QByteArray("σ² = 1e10, ε = ") + QByteArray::number(e) + ": δ rose").constData());
        previous = *d;
    }
}

void TestExactSamplers::calibration_data() {
    QTest::addColumn<QString>("epsilon");
    QTest::addColumn<double>("delta");
    QTest::addColumn<int>("sensitivity");
    QTest::addColumn<bool>("warning");  // σ² < 16Δ²: no claim of the smallest σ²
    QTest::newRow("e=1 d=1e-6") << "1" << 1e-6 << 1 << false;
    QTest::newRow("e=0.1 d=1e-9") << "0.1" << 1e-9 << 1 << false;
    QTest::newRow("e=2 d=1e-3 D=3") << "2" << 1e-3 << 3 << true;
    QTest::newRow("e=0.5 d=1e-12") << "0.5" << 1e-12 << 1 << false;
    QTest::newRow("e=5 d=0.01 (small sigma)") << "5" << 0.01 << 1 << true;
}

// σ² meets the target, the grid point below does not, six significant digits, and where σ² ≥ Δ²·16
// σ is within 2% of the continuous analytic Gaussian's σ (Balle & Wang 2018) for the same (ε, δ);
// below that the result warns (and the discrete and continuous σ differ more: 0.544 against 0.569
// at ε = 5, δ = 0.01).
void TestExactSamplers::calibration() {
    QFETCH(QString, epsilon);
    QFETCH(double, delta);
    QFETCH(int, sensitivity);
    QFETCH(bool, warning);
    const Rational e = q(epsilon.toStdString());
    const auto c = calibrateDiscreteGaussian(e, delta, sensitivity);
    DPX_VERIFY_OK(c);
    QVERIFY(c->delta <= delta);
    QCOMPARE(*discreteGaussianDelta(c->sigma2, sensitivity, e), c->delta);
    // Grid: σ² = m·10^k with 10^5 ≤ m < 10^6; k from exact comparisons.
    const auto pow10 = [](int exponent) {
        const BigInt p =
            boost::multiprecision::pow(BigInt(10), static_cast<unsigned>(std::abs(exponent)));
        return exponent >= 0 ? Rational::integer(p) : *Rational::fraction(1, p);
    };
    int k = -20;
    while (!(c->sigma2 < pow10(k + 6))) {
        ++k;
    }
    const Rational step = pow10(k);
    const BigInt m =
        c->sigma2.numerator() * step.denominator() / (c->sigma2.denominator() * step.numerator());
    QCOMPARE(*Rational::fraction(m * step.numerator(), step.denominator()), c->sigma2);
    QVERIFY(m >= 100000 && m < 1000000);
    const Rational below = *Rational::fraction((m - 1) * step.numerator(), step.denominator());
    QVERIFY(*discreteGaussianDelta(below, sensitivity, e) > delta);
    QCOMPARE(c->rho, (DiscreteGaussianParams{c->sigma2, sensitivity}.rho()));
    QCOMPARE(c->warnings.size(), std::size_t{warning ? 1U : 0U});
    if (warning) {
        DPX_VERIFY_ERROR(Status(Error{c->warnings.front()}), "not monotone");
        return;
    }
    GaussianParams gp;
    gp.epsilon = e.toDouble();
    gp.delta = delta;
    gp.l2Sensitivity = sensitivity;
    const auto sigma = gaussianSigma(gp);
    DPX_VERIFY_OK(sigma);
    DPX_VERIFY_REL(std::sqrt(c->sigma2.toDouble()), *sigma, 0.02);
}

void TestExactSamplers::calibrationRejects() {
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("0"), 1e-6, 1), "epsilon");
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("-1"), 1e-6, 1), "epsilon");
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("1"), 0, 1), "delta");
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("1"), 1, 1), "delta");
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("1"), -0.1, 1), "delta");
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("1"), std::nan(""), 1), "delta");
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("1"), HUGE_VAL, 1), "delta");
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("1"), 1e-6, 0), "sensitivity");
    // ε so small that σ² would exceed 10^12.
    DPX_VERIFY_ERROR(calibrateDiscreteGaussian(q("1e-7"), 1e-10, 1), "10^12");
}

// Every ε from 10^-8 to 10 either calibrates (δ met, the grid point below not, σ within 2% of the
// continuous analytic Gaussian's where σ² ≥ 16) or is refused with the smallest ε that σ² ≤ 10^12
// reaches, and that ε does calibrate. At δ = 10^-6 even ε = 10^-8 works: as ε → 0 the discrete
// Gaussian's δ tends to its total variation distance ≈ Δ/(σ√(2π)), so σ ≈ 4·10^5 suffices.
void TestExactSamplers::calibrationAcrossEpsilon() {
    int calibrated = 0, refused = 0;
    for (const char* e :
         {"1e-8", "1e-7", "1e-6", "1e-5", "1e-4", "1e-3", "0.01", "0.1", "1", "10"}) {
        for (const double delta : {1e-6, 1e-9, 1e-12}) {
            const Rational eps = q(e);
            const QByteArray where = QByteArray("ε = ") + e + ", δ = " + QByteArray::number(delta);
            const auto c = calibrateDiscreteGaussian(eps, delta, 1);
            if (!c) {
                const std::string& m = c.error().message;
                const std::string key = "needs ε ≥ ";
                const auto at = m.find(key);
                QVERIFY2(at != std::string::npos && m.find("10^12") != std::string::npos,
                         (where + ": " + QByteArray::fromStdString(m)).constData());
                const std::size_t start = at + key.size();
                const std::string hinted = m.substr(start, m.find(' ', start) - start);
                QVERIFY2(calibrateDiscreteGaussian(q(hinted), delta, 1),
                         (where + ": the hinted ε " + QByteArray::fromStdString(hinted) +
                          " does not calibrate")
                             .constData());
                // Two significant digits "d.de±k": one step lower does not.
                const int mantissa = (hinted[0] - '0') * 10 + (hinted[2] - '0');
                const int exponent = std::stoi(hinted.substr(4));
                const std::string lower = mantissa == 10
                                              ? "9.9e" + std::to_string(exponent - 1)
                                              : std::to_string((mantissa - 1) / 10) + "." +
                                                    std::to_string((mantissa - 1) % 10) + "e" +
                                                    std::to_string(exponent);
                QVERIFY2(!calibrateDiscreteGaussian(q(lower), delta, 1),
                         (where + ": ε " + QByteArray::fromStdString(lower) + " calibrates too")
                             .constData());
                ++refused;
                continue;
            }
            ++calibrated;
            QVERIFY2(c->delta <= delta, where.constData());
            QCOMPARE(*discreteGaussianDelta(c->sigma2, 1, eps), c->delta);
            QVERIFY(!(c->sigma2 > Rational::integer(BigInt(1000000000000LL))));
            if (c->sigma2 < Rational::integer(16)) {
                continue;
            }
            GaussianParams gp;
            gp.epsilon = eps.toDouble();
            gp.delta = delta;
            gp.l2Sensitivity = 1;
            const auto sigma = gaussianSigma(gp);
            DPX_VERIFY_OK(sigma);
            DPX_VERIFY_REL(std::sqrt(c->sigma2.toDouble()), *sigma, 0.02);
        }
    }
    QVERIFY(calibrated >= 20);
    QVERIFY(refused >= 3);  // e.g. ε = 10^-8 at δ = 10^-9 (needs σ² ≈ 1.6·10^17)
    const auto tiny = calibrateDiscreteGaussian(q("1e-8"), 1e-6, 1);
    DPX_VERIFY_OK(tiny);
}

QTEST_APPLESS_MAIN(TestExactSamplers)
#include "tst_exact_samplers.moc"
