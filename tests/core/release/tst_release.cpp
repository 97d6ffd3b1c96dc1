// The release path (core/release/release.h): every declared bin gets noise from the OS source, the
// result and its metadata never contain the true counts, post-processing comes after noise, the
// matrix of geometric-matrix is verified exactly before sampling, the discrete Gaussian's σ² meets
// δ, and every bad parameter is refused with a message naming it. The noise is real (getrandom), so
// the statistical checks use bounds whose false-failure probability is stated and negligible.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/histogram/dataset.h"
#include "core/release/release.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

ReleaseSpec laplaceSpec(const std::string& eps) {
    ReleaseSpec s;
    s.mechanism = ReleaseMechanism::DiscreteLaplace;
    s.epsilon = eps;
    s.binsDeclared = true;
    s.source = "test";
    s.appVersion = "0.0-test";
    s.timestamp = "2026-01-02T03:04:05Z";
    return s;
}

std::vector<std::string> metadataStrings(const ReleaseMetadata& m) {
    std::vector<std::string> all{m.mechanism,      m.samplerAlgorithm, m.samplerReference,
                                 m.randomness,     m.epsilon,          m.epsilonExact,
                                 m.delta,          m.deltaAchieved,    m.rho,
                                 m.noiseParameter, m.neighbouring,     m.postProcessing,
                                 m.source,         m.appVersion,       m.timestamp,
                                 m.guarantee};
    all.insert(all.end(), m.binLabels.begin(), m.binLabels.end());
    all.insert(all.end(), m.notes.begin(), m.notes.end());
    return all;
}

}  // namespace

class TestRelease : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyBinGetsNoise() {
        // 400 bins all 0 at ε = 0.1 (t = 10): Pr[noise = 0] = (1 − e^−0.1)/(1 + e^−0.1) ≈ 0.0500,
        // so the number of unchanged bins is Binomial(400, 0.05), mean 20; ≥ 80 has probability
        // < 1e-20 (Chernoff). Empty bins must be noised too.
        auto truth = Histogram::create(std::vector<std::int64_t>(400, 0));
        QVERIFY(truth);
        ReleaseRandomness rng;
        auto r = releaseHistogram(laplaceSpec("0.1"), *truth, rng);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->values.size(), std::size_t{400});
        QCOMPARE(r->metadata.binLabels.size(), std::size_t{400});
        int unchanged = 0;
        for (double v : r->values) {
            QCOMPARE(v, std::floor(v));  // integer counts
            unchanged += v == 0 ? 1 : 0;
        }
        QVERIFY2(unchanged < 80, qPrintable(QString::number(unchanged)));
    }

    void noTrueCountsInOutput_data() {
        QTest::addColumn<int>("mechanism");
        QTest::newRow("discrete-laplace") << int(ReleaseMechanism::DiscreteLaplace);
        QTest::newRow("discrete-gaussian") << int(ReleaseMechanism::DiscreteGaussian);
    }
    void noTrueCountsInOutput() {
        QFETCH(int, mechanism);
        // Distinctive true counts; at ε = 0.05 a value equals its true count with probability
        // ≤ 0.025 (Laplace) / ≤ 0.02 (Gaussian σ ≈ 20); all 6 equal: < 1e-9.
        const std::vector<std::int64_t> counts{987654, 876543, 765432, 654321, 543210, 432109};
        auto truth = Histogram::create(counts, {"a", "b", "c", "d", "e", "f"});
        QVERIFY(truth);
        ReleaseSpec spec = laplaceSpec("0.05");
        spec.mechanism = static_cast<ReleaseMechanism>(mechanism);
        if (spec.mechanism == ReleaseMechanism::DiscreteGaussian) {
            spec.delta = "1e-6";
        }
        ReleaseRandomness rng;
        auto r = releaseHistogram(spec, *truth, rng);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        int equal = 0;
        for (std::size_t i = 0; i < counts.size(); ++i) {
            equal += r->values[i] == static_cast<double>(counts[i]) ? 1 : 0;
        }
        QVERIFY(equal < 6);
        for (const std::string& s : metadataStrings(r->metadata)) {
            for (std::int64_t c : counts) {
                QVERIFY2(s.find(std::to_string(c)) == std::string::npos, s.c_str());
            }
        }
        QCOMPARE(r->metadata.binLabels, truth->labels());
        QCOMPARE(r->metadata.timestamp, std::string("2026-01-02T03:04:05Z"));
    }

    void postProcessingAfterNoise() {
        // All-zero truth at ε = 0.05: without clamping about half the bins are negative
        // (probability that none of 100 is negative < 2^-90).
        auto truth = Histogram::create(std::vector<std::int64_t>(100, 0));
        QVERIFY(truth);
        ReleaseRandomness rng;
        auto raw = releaseHistogram(laplaceSpec("0.05"), *truth, rng);
        QVERIFY(raw);
        QVERIFY(
            std::any_of(raw->values.begin(), raw->values.end(), [](double v) { return v < 0; }));
        ReleaseSpec spec = laplaceSpec("0.05");
        spec.postProcessing = EstimatorKind::Clamp;
        auto clamped = releaseHistogram(spec, *truth, rng);
        QVERIFY(clamped);
        QCOMPARE(clamped->metadata.postProcessing, std::string("clamp"));
        QVERIFY(std::all_of(clamped->values.begin(), clamped->values.end(),
                            [](double v) { return v >= 0 && v == std::floor(v); }));
        // Some bin is > 0: the clamp acted on noisy values, not on the all-zero truth.
        QVERIFY(std::any_of(clamped->values.begin(), clamped->values.end(),
                            [](double v) { return v > 0; }));
        spec.postProcessing = EstimatorKind::NoiseFirst;
        auto nf = releaseHistogram(spec, *truth, rng);
        QVERIFY2(nf, nf ? "" : nf.error().message.c_str());
        QCOMPARE(nf->values.size(), std::size_t{100});
    }

    void gaussianCalibrationMeetsDelta_data() {
        QTest::addColumn<QByteArray>("eps");
        QTest::addColumn<QByteArray>("delta");
        QTest::newRow("1, 1e-6") << QByteArray("1") << QByteArray("1e-6");
        QTest::newRow("0.5, 1e-9") << QByteArray("0.5") << QByteArray("1e-9");
        QTest::newRow("2, 0.001") << QByteArray("2") << QByteArray("0.001");
    }
    void gaussianCalibrationMeetsDelta() {
        QFETCH(QByteArray, eps);
        QFETCH(QByteArray, delta);
        ReleaseSpec spec = laplaceSpec(eps.toStdString());
        spec.mechanism = ReleaseMechanism::DiscreteGaussian;
        spec.delta = delta.toStdString();
        auto truth = Histogram::create({10, 20, 30});
        ReleaseRandomness rng;
        auto r = releaseHistogram(spec, *truth, rng);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        const std::string& p = r->metadata.noiseParameter;
        QVERIFY(p.rfind("sigma^2 = ", 0) == 0);
        const std::string s2 = p.substr(10);
        const auto slash = s2.find('/');
        auto sigma2 = slash == std::string::npos ? parseDecimal(s2)
                                                 : Rational::fraction(BigInt(s2.substr(0, slash)),
                                                                      BigInt(s2.substr(slash + 1)));
        QVERIFY(sigma2);
        // Recompute δ(ε) at the recorded σ² (independently of the calibration's search).
        auto d = discreteGaussianDelta(*sigma2, 1, *parseDecimal(eps.toStdString()));
        QVERIFY(d);
        QVERIFY2(*d <= delta.toDouble(), qPrintable(QString::number(*d, 'g', 17)));
        // ρ = 1/(2σ²) exactly.
        QCOMPARE(r->metadata.rho,
                 Rational::fraction(sigma2->denominator(), 2 * sigma2->numerator())->toString());
        QVERIFY(r->metadata.guarantee.find("zCDP") != std::string::npos);
    }

    // CKS 2020 Cor. 13 at one α is an upper bound on the infimum and, at the α found, within
    // 1e-6 of it (reference: a 10⁶-point grid over ln(α−1) ∈ [−10, 10] in long double, refined
    // around the best point); it never exceeds Bun & Steinke's exp(−(ε−ρ)²/(4ρ)) (Prop. 1.3,
    // a weaker conversion) for ε > ρ.
    void zcdpDeltaIsTheCorollary13Infimum_data() {
        QTest::addColumn<QByteArray>("rho");
        QTest::addColumn<QByteArray>("eps");
        QTest::newRow("rho 0.01, eps 1") << QByteArray("1/100") << QByteArray("1");
        QTest::newRow("rho 0.5, eps 3") << QByteArray("1/2") << QByteArray("3");
        QTest::newRow("rho 1e-4, eps 0.1") << QByteArray("1/10000") << QByteArray("0.1");
        QTest::newRow("rho 2, eps 1") << QByteArray("2") << QByteArray("1");
    }
    void zcdpDeltaIsTheCorollary13Infimum() {
        QFETCH(QByteArray, rho);
        QFETCH(QByteArray, eps);
        const std::string rs = rho.toStdString();
        const auto slash = rs.find('/');
        const Rational r =
            slash == std::string::npos
                ? *parseDecimal(rs)
                : *Rational::fraction(BigInt(rs.substr(0, slash)), BigInt(rs.substr(slash + 1)));
        const Rational e = *parseDecimal(eps.toStdString());
        auto d = zcdpDeltaUpperBound(r, e);
        QVERIFY2(d, d ? "" : d.error().message.c_str());
        const long double rr = r.toDouble(), ee = e.toDouble();
        auto at = [&](long double u) {
            const long double am1 = std::exp(u), a = 1 + am1;
            return am1 * (a * rr - ee) + a * std::log1p(-1 / a) - u;
        };
        long double best = at(-10), bestU = -10;
        for (int i = 0; i <= 1000000; ++i) {
            const long double u = -10 + 20.0L * i / 1000000;
            if (at(u) < best) {
                best = at(u);
                bestU = u;
            }
        }
        for (int i = -1000; i <= 1000; ++i) {
            const long double u = bestU + 2e-5L * i / 1000;
            best = std::min(best, at(u));
        }
        const double reference = std::min(1.0, static_cast<double>(std::exp(best)));
        QVERIFY2(*d >= reference, qPrintable(QString::number(*d, 'g', 17)));
        QVERIFY2(*d <= reference * (1 + 2e-6),
                 qPrintable(QString::number(*d, 'g', 17) + QStringLiteral(" vs ") +
                            QString::number(reference, 'g', 17)));
        const double ed = e.toDouble(), rd = r.toDouble();
        if (ed > rd) {
            QVERIFY(*d <= std::exp(-(ed - rd) * (ed - rd) / (4 * rd)));
        }
        QVERIFY(!zcdpDeltaUpperBound(Rational::integer(0), e));
        QVERIFY(!zcdpDeltaUpperBound(r, Rational::integer(0)));
    }

    // The discrete Gaussian beyond add/remove with cap 1: Δ2² = cap² (add/remove) or 2·cap²
    // (replace), ρ = Δ2²/(2σ²) exactly, δ(ρ) by Cor. 13 ≤ the target, and σ² rounded up only
    // once: one unit lower in the sixth digit no longer meets δ.
    void gaussianCalibrationForOtherRelations_data() {
        QTest::addColumn<int>("relation");
        QTest::addColumn<int>("cap");
        QTest::addColumn<QByteArray>("eps");
        QTest::addColumn<QByteArray>("delta");
        QTest::addColumn<int>("l2sq");
        QTest::newRow("replace, cap 1")
            << int(Neighbouring::Replace) << 1 << QByteArray("1") << QByteArray("1e-6") << 2;
        QTest::newRow("replace, cap 3")
            << int(Neighbouring::Replace) << 3 << QByteArray("0.5") << QByteArray("1e-5") << 18;
        QTest::newRow("add/remove, cap 3")
            << int(Neighbouring::AddRemove) << 3 << QByteArray("2") << QByteArray("1e-9") << 9;
        QTest::newRow("replace, cap 1000") << int(Neighbouring::Replace) << 1000
                                           << QByteArray("0.1") << QByteArray("1e-6") << 2000000;
    }
    void gaussianCalibrationForOtherRelations() {
        QFETCH(int, relation);
        QFETCH(int, cap);
        QFETCH(QByteArray, eps);
        QFETCH(QByteArray, delta);
        QFETCH(int, l2sq);
        const Rational e = *parseDecimal(eps.toStdString());
        const Rational d = *parseDecimal(delta.toStdString());
        auto cal = calibrateReleaseGaussian(e, d, static_cast<Neighbouring>(relation), cap);
        QVERIFY2(cal, cal ? "" : cal.error().message.c_str());
        QCOMPARE(cal->l2Squared, std::int64_t(l2sq));
        const Rational two = Rational::integer(2);
        QCOMPARE(cal->rho, *Rational::fraction(BigInt(l2sq) * cal->sigma2.denominator(),
                                               two.numerator() * cal->sigma2.numerator()));
        auto again = zcdpDeltaUpperBound(cal->rho, e);
        QVERIFY(again);
        QCOMPARE(*again, cal->delta);
        QVERIFY(cal->delta <= delta.toDouble());
        // Six significant digits: σ² = m·10^k with 10^5 ≤ m < 10^6; m − 1 fails the target.
        const std::string s2 = cal->sigma2.toString();
        const double sigma2 = cal->sigma2.toDouble();
        const int k = static_cast<int>(std::floor(std::log10(sigma2))) - 5;
        const double m = std::round(sigma2 / std::pow(10.0, k));
        QVERIFY2(m >= 1e5 && m < 1e6, s2.c_str());
        auto below =
            parseDecimal(std::to_string(static_cast<long long>(m) - 1) + "e" + std::to_string(k));
        QVERIFY(below);
        auto rhoBelow = Rational::fraction(BigInt(l2sq) * below->denominator(),
                                           two.numerator() * below->numerator());
        auto dBelow = zcdpDeltaUpperBound(*rhoBelow, e);
        QVERIFY(dBelow);
        QVERIFY2(*dBelow > delta.toDouble(), qPrintable(QString::number(*dBelow, 'g', 17)));
        QVERIFY(cal->method.find("Corollary 13") != std::string::npos);

        // The release uses it: metadata ρ, σ², Δ2² and the cost agree.
        ReleaseSpec spec = laplaceSpec(eps.toStdString());
        spec.mechanism = ReleaseMechanism::DiscreteGaussian;
        spec.delta = delta.toStdString();
        spec.relation = static_cast<Neighbouring>(relation);
        spec.contributionCap = cap;
        auto truth = Histogram::create({10, 20, 30});
        ReleaseRandomness rng;
        auto r = releaseHistogram(spec, *truth, rng);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->metadata.rho, cal->rho.toString());
        QCOMPARE(r->metadata.noiseParameter, "sigma^2 = " + cal->sigma2.toString());
        QCOMPARE(r->metadata.l2SensitivitySquared, std::int64_t(l2sq));
        QCOMPARE(r->metadata.deltaAchieved, formatShortest(cal->delta));
        QCOMPARE(releaseCost(spec)->rho, cal->rho.toString());
    }

    // Add/remove with cap 1 keeps the exact δ of CKS Thm 7 (calibrateDiscreteGaussian).
    void gaussianAddRemoveCapOneIsExact() {
        const Rational e = *parseDecimal("1");
        auto cal = calibrateReleaseGaussian(e, *parseDecimal("1e-6"), Neighbouring::AddRemove, 1);
        QVERIFY(cal);
        auto direct = calibrateDiscreteGaussian(e, 1e-6, 1);
        QVERIFY(direct);
        QCOMPARE(cal->sigma2, direct->sigma2);
        QCOMPARE(cal->delta, direct->delta);
        QCOMPARE(cal->l2Squared, std::int64_t(1));
        QVERIFY(cal->method.find("Theorem 7") != std::string::npos);
        QVERIFY(!calibrateReleaseGaussian(e, *parseDecimal("1e-6"), Neighbouring::Replace, 0));
        QVERIFY(!calibrateReleaseGaussian(e, Rational::integer(0), Neighbouring::Replace, 1));
        QVERIFY(!calibrateReleaseGaussian(e, Rational::integer(1), Neighbouring::Replace, 1));
    }

    // Issue #17 item 4: the release's calibration (what `dpx release` and the release dialog's
    // preview both run, through releaseCost) answers at every ε from 10^-8 to 10, for add/remove
    // with cap 1 (exact δ, CKS Thm 7) and replace with cap 3 (zCDP, CKS Cor. 13): σ² meeting δ,
    // or a refusal that says σ² would exceed 10^12 and what to change. At ε = 10^-8, δ = 10^-6
    // add/remove calibrates (σ² ≈ 1.6e11: δ tends to the total variation distance as ε → 0);
    // replace with cap 3 (Δ2 = √18) needs σ² ≈ 6.5e12 and is refused.
    void gaussianCalibrationAcrossEpsilon() {
        int answered = 0;
        for (const char* e : {"1e-8", "1e-6", "1e-4", "1e-2", "1", "10"}) {
            for (const auto& [relation, cap] :
                 {std::pair{Neighbouring::AddRemove, 1}, std::pair{Neighbouring::Replace, 3}}) {
                ReleaseSpec spec = laplaceSpec(e);
                spec.mechanism = ReleaseMechanism::DiscreteGaussian;
                spec.delta = "1e-6";
                spec.relation = relation;
                spec.contributionCap = cap;
                const auto cost = releaseCost(spec);
                const auto cal = calibrateReleaseGaussian(*parseDecimal(e), *parseDecimal("1e-6"),
                                                          relation, cap);
                QCOMPARE(bool(cost), bool(cal));
                const QByteArray where =
                    QByteArray("ε = ") + e + ", cap " + QByteArray::number(cap);
                if (!cal) {
                    const std::string& m = cal.error().message;
                    QVERIFY2(m.find("above 10^12") != std::string::npos &&
                                 m.find("larger ε or δ") != std::string::npos,
                             (where + ": " + QByteArray::fromStdString(m)).constData());
                    continue;
                }
                ++answered;
                QVERIFY2(cal->delta <= 1e-6, where.constData());
                QVERIFY(!(cal->sigma2 > Rational::integer(BigInt(1000000000000LL))));
                QCOMPARE(cost->rho, cal->rho.toString());
            }
        }
        QVERIFY(answered >= 10);
        QVERIFY(calibrateReleaseGaussian(*parseDecimal("1e-8"), *parseDecimal("1e-6"),
                                         Neighbouring::AddRemove, 1));
        QVERIFY(!calibrateReleaseGaussian(*parseDecimal("1e-8"), *parseDecimal("1e-6"),
                                          Neighbouring::Replace, 3));
    }

    // Issue #17 item 11: the smallest ε each pure mechanism can run is checked with the spec
    // (so dpx reports a bad argument before reading data), not found when sampling: discrete
    // Laplace ε ≥ Δ1·10^-12, geometric matrix ε ≥ Δ1·10^-9; at the floors the release runs.
    void epsilonFloors() {
        struct Case {
            ReleaseMechanism mechanism;
            Neighbouring relation;
            std::int64_t cap;
            const char* below;
            const char* at;
        };
        for (const Case& c : {Case{ReleaseMechanism::DiscreteLaplace, Neighbouring::AddRemove, 1,
                                   "9.99e-13", "1e-12"},
                              Case{ReleaseMechanism::DiscreteLaplace, Neighbouring::Replace, 5,
                                   "9.99e-12", "1e-11"},
                              Case{ReleaseMechanism::GeometricMatrix, Neighbouring::AddRemove, 1,
                                   "9.99e-10", "1e-9"},
                              Case{ReleaseMechanism::GeometricMatrix, Neighbouring::Replace, 3,
                                   "5.99e-9", "6e-9"}}) {
            ReleaseSpec spec = laplaceSpec(c.below);
            spec.mechanism = c.mechanism;
            spec.relation = c.relation;
            spec.contributionCap = c.cap;
            spec.groupSize = c.mechanism == ReleaseMechanism::GeometricMatrix ? 20 : 0;
            const Status v = spec.validate();
            QVERIFY2(!v && v.error().message.find("smallest ε") != std::string::npos,
                     v ? c.below : v.error().message.c_str());
            spec.epsilon = c.at;
            QVERIFY2(spec.validate(), c.at);
            auto truth = Histogram::create({3, 4});
            ReleaseRandomness rng;
            auto r = releaseHistogram(spec, *truth, rng);
            QVERIFY2(r, r ? "" : r.error().message.c_str());
        }
    }

    void costMatchesMetadata_data() {
        QTest::addColumn<int>("mechanism");
        QTest::addColumn<QByteArray>("delta");
        QTest::addColumn<QByteArray>("rho");
        // ε = 0.3: pure DP ρ = ε²/2 = 9/200 (Bun & Steinke Prop 1.4).
        QTest::newRow("laplace") << int(ReleaseMechanism::DiscreteLaplace) << QByteArray("")
                                 << QByteArray("9/200");
        QTest::newRow("matrix") << int(ReleaseMechanism::GeometricMatrix) << QByteArray("")
                                << QByteArray("9/200");
        QTest::newRow("gaussian") << int(ReleaseMechanism::DiscreteGaussian) << QByteArray("1e-6")
                                  << QByteArray();
    }
    void costMatchesMetadata() {
        QFETCH(int, mechanism);
        QFETCH(QByteArray, delta);
        QFETCH(QByteArray, rho);
        ReleaseSpec spec = laplaceSpec("0.3");
        spec.mechanism = static_cast<ReleaseMechanism>(mechanism);
        spec.delta = delta.toStdString();
        spec.groupSize = spec.mechanism == ReleaseMechanism::GeometricMatrix ? 20 : 0;
        auto cost = releaseCost(spec);
        QVERIFY2(cost, cost ? "" : cost.error().message.c_str());
        auto truth = Histogram::create({4, 5});
        ReleaseRandomness rng;
        auto r = releaseHistogram(spec, *truth, rng);
        QVERIFY(r);
        QCOMPARE(cost->epsilon, r->metadata.epsilon);
        QCOMPARE(cost->delta, r->metadata.delta);
        QCOMPARE(cost->rho, r->metadata.rho);
        if (!rho.isNull()) {
            QCOMPARE(cost->rho, rho.toStdString());
        }
        spec.epsilon = "-1";
        QVERIFY(!releaseCost(spec));
    }

    void geometricMatrixRelease() {
        ReleaseSpec spec = laplaceSpec("1");
        spec.mechanism = ReleaseMechanism::GeometricMatrix;
        spec.groupSize = 10;
        auto truth = Histogram::create({0, 3, 10, 25});
        ReleaseRandomness rng;
        auto r = releaseHistogram(spec, *truth, rng);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        for (double v : r->values) {
            QVERIFY(v >= 0 && v <= 10 && v == std::floor(v));
        }
        QVERIFY(!r->metadata.notes.empty());  // counts above n clamped, said so
    }

    void matrixVerification() {
        // GM built at ε passes the exact check against a slightly larger ε and fails against a
        // smaller one; a matrix with one column perturbed fails.
        auto gm = truncatedGeometric(8, 0.999999);
        QVERIFY(gm);
        QVERIFY(verifyMatrixEpsilon(*gm, Rational::integer(1)));
        auto refused = verifyMatrixEpsilon(*gm, *parseDecimal("0.99"));
        QVERIFY(!refused);
        QVERIFY(dpxtest::mentions(refused.error().message, "matrix check"));
        std::vector<std::vector<double>> rows(9, std::vector<double>(9));
        for (std::size_t i = 0; i < 9; ++i) {
            for (std::size_t j = 0; j < 9; ++j) {
                rows[i][j] = gm->at(i, j);
            }
        }
        // Move mass within column 4 (still sums to 1): the ratio to column 3 or 5 exceeds e^1.
        rows[0][4] += 0.05;
        rows[4][4] -= 0.05;
        auto bad = CountMechanism::fromRows(rows);
        QVERIFY(bad);
        QVERIFY(!verifyMatrixEpsilon(*bad, Rational::integer(1)));
        // GM at n = 750, ε = 1: α^733 ≈ e^−733 is subnormal, its ratio to the next column is no
        // longer e^ε, and the check refuses with a hint instead of sampling a non-DP matrix.
        auto deep = truncatedGeometric(750, 0.999999);
        QVERIFY(deep);
        auto deepCheck = verifyMatrixEpsilon(*deep, Rational::integer(1));
        QVERIFY(!deepCheck);
        QVERIFY2(dpxtest::mentions(deepCheck.error().message, "smaller n"),
                 deepCheck.error().message.c_str());
        // A zero facing a non-zero fails.
        rows[0][4] = 0;
        rows[4][4] += gm->at(0, 4) + 0.05;
        auto zero = CountMechanism::fromRows(rows);
        QVERIFY(zero);
        QVERIFY(!verifyMatrixEpsilon(*zero, Rational::integer(100)));
    }

    void expLowerBoundIsBelowAndClose_data() {
        QTest::addColumn<QByteArray>("x");
        QTest::newRow("0") << QByteArray("0");
        QTest::newRow("0.1") << QByteArray("0.1");
        QTest::newRow("1") << QByteArray("1");
        QTest::newRow("7.25") << QByteArray("7.25");
        QTest::newRow("100") << QByteArray("100");
    }
    void expLowerBoundIsBelowAndClose() {
        QFETCH(QByteArray, x);
        auto r = parseDecimal(x.toStdString());
        QVERIFY(r);
        const Rational lb = expLowerBound(*r);
        const double want = std::exp(r->toDouble());  // libm, within 1 ulp
        QVERIFY2(std::fabs(lb.toDouble() / want - 1) < 1e-14, x.constData());
        // Below e^x: compare with the series carried far further (exact rationals): adding more
        // positive terms only increases it, so lb must not exceed the double nearest e^x by more
        // than rounding; and lb ≤ e^x exactly is the construction (partial sum).
        QVERIFY(lb.toDouble() <= want * (1 + 4e-16));
    }

    void expLowerBoundOfOneIsExact() {
        // e = 2.718281828459045235360287471352… (OEIS A001113). The bound must lie below e and
        // within the stated 2^-80 relative error (< 3e-24 absolute here), checked exactly.
        const Rational lb = expLowerBound(Rational::integer(1));
        QVERIFY(lb < *parseDecimal("2.718281828459045235360287471353"));
        QVERIFY(lb > *parseDecimal("2.718281828459045235360284"));  // e − 3.5e-24
    }

    void rejections_data() {
        QTest::addColumn<QByteArray>("field");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("eps 0") << QByteArray("epsilon") << QByteArray("0") << QByteArray("epsilon");
        QTest::newRow("eps negative")
            << QByteArray("epsilon") << QByteArray("-1") << QByteArray("epsilon");
        QTest::newRow("eps nan") << QByteArray("epsilon") << QByteArray("nan")
                                 << QByteArray("epsilon");
        QTest::newRow("eps inf") << QByteArray("epsilon") << QByteArray("inf")
                                 << QByteArray("epsilon");
        QTest::newRow("eps too big")
            << QByteArray("epsilon") << QByteArray("101") << QByteArray("epsilon");
        QTest::newRow("eps empty")
            << QByteArray("epsilon") << QByteArray("") << QByteArray("epsilon");
        QTest::newRow("eps comma")
            << QByteArray("epsilon") << QByteArray("0,1") << QByteArray("epsilon");
        QTest::newRow("delta on laplace")
            << QByteArray("delta") << QByteArray("1e-6") << QByteArray("delta");
        QTest::newRow("gauss delta missing")
            << QByteArray("gdelta") << QByteArray("") << QByteArray("delta");
        QTest::newRow("gauss delta 0")
            << QByteArray("gdelta") << QByteArray("0") << QByteArray("delta");
        QTest::newRow("gauss delta 1")
            << QByteArray("gdelta") << QByteArray("1") << QByteArray("delta");
        QTest::newRow("gauss delta nan")
            << QByteArray("gdelta") << QByteArray("nan") << QByteArray("delta");
        QTest::newRow("n 0") << QByteArray("n") << QByteArray("0") << QByteArray("group size");
        QTest::newRow("n too big")
            << QByteArray("n") << QByteArray("2001") << QByteArray("group size");
        QTest::newRow("n on laplace")
            << QByteArray("n-laplace") << QByteArray("5") << QByteArray("group size");
        QTest::newRow("matrix noisefirst")
            << QByteArray("nf") << QByteArray("") << QByteArray("post-processing");
        QTest::newRow("cap 0") << QByteArray("cap") << QByteArray("0") << QByteArray("cap");
        QTest::newRow("cap too big")
            << QByteArray("cap") << QByteArray("1001") << QByteArray("cap");
        QTest::newRow("bins undeclared")
            << QByteArray("bins") << QByteArray("") << QByteArray("bins");
        QTest::newRow("no version")
            << QByteArray("version") << QByteArray("") << QByteArray("version");
        QTest::newRow("bad timestamp")
            << QByteArray("time") << QByteArray("2026-01-02 03:04:05") << QByteArray("timestamp");
    }
    void rejections() {
        QFETCH(QByteArray, field);
        QFETCH(QByteArray, value);
        QFETCH(QByteArray, mentions);
        ReleaseSpec s = laplaceSpec("1");
        const std::string v = value.toStdString();
        if (field == "epsilon") {
            s.epsilon = v;
        } else if (field == "delta") {
            s.delta = v;
        } else if (field == "gdelta") {
            s.mechanism = ReleaseMechanism::DiscreteGaussian;
            s.delta = v;
        } else if (field == "n") {
            s.mechanism = ReleaseMechanism::GeometricMatrix;
            s.groupSize = std::stoll(v);
        } else if (field == "n-laplace") {
            s.groupSize = std::stoll(v);
        } else if (field == "nf") {
            s.mechanism = ReleaseMechanism::GeometricMatrix;
            s.groupSize = 5;
            s.postProcessing = EstimatorKind::NoiseFirst;
        } else if (field == "cap") {
            s.contributionCap = std::stoll(v);
        } else if (field == "bins") {
            s.binsDeclared = false;
        } else if (field == "version") {
            s.appVersion.clear();
        } else if (field == "time") {
            s.timestamp = v;
        }
        auto st = s.validate();
        QVERIFY(!st);
        QVERIFY2(dpxtest::mentions(st.error().message, mentions.toStdString()),
                 st.error().message.c_str());
        auto truth = Histogram::create({1, 2});
        ReleaseRandomness rng;
        auto r = releaseHistogram(s, *truth, rng);
        QVERIFY(!r);
        QCOMPARE(r.error().message, st.error().message);
    }

    // Issue #19: a contingency table is released as a histogram over its cells (C order), with
    // the same Δ1 and cost as a histogram of as many bins, and its metadata lists every attribute.
    void tableRelease() {
        Attribute sex{"sex", {"F", "M"}, {}, "categories F, M", true};
        Attribute age{"age", {"0-9", "10-19", "20-29"}, {0, 10, 20, 30}, "3 bins on [0, 30)", true};
        // Cell (sex = s, age = a) has index 3s + a; distinctive counts to find in the output.
        const std::vector<std::int64_t> counts{910001, 910002, 910003, 910004, 910005, 910006};
        auto table = ContingencyTable::dense({sex, age}, counts);
        QVERIFY(table);
        ReleaseSpec spec = laplaceSpec("0.5");
        spec.binsDeclared = false;  // ignored for a table: the attributes' flags decide
        ReleaseRandomness rng;
        auto r = releaseTable(spec, *table, rng);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->values.size(), std::size_t{6});
        QCOMPARE(r->metadata.attributes.size(), std::size_t{2});
        QCOMPARE(r->metadata.attributes[0].name, std::string("sex"));
        QCOMPARE(r->metadata.attributes[0].labels, sex.labels);
        QCOMPARE(r->metadata.attributes[1].binning, std::string("3 bins on [0, 30)"));
        QCOMPARE(r->metadata.attributes[1].edges, age.edges);
        QVERIFY(r->metadata.attributes[1].declared);
        // Cell labels in C order: the last attribute fastest.
        QCOMPARE(r->metadata.binLabels[0], std::string("sex = F, age = 0-9"));
        QCOMPARE(r->metadata.binLabels[4], std::string("sex = M, age = 10-19"));
        QVERIFY(r->metadata.binEdges.empty());
        // Δ1 of a histogram (add/remove, cap 1): 1; scale t = Δ1/ε = 2, as releaseCost says.
        QCOMPARE(r->metadata.l1Sensitivity, std::int64_t{1});
        QCOMPARE(r->metadata.noiseParameter, std::string("scale t = Δ1/ε = 2"));
        ReleaseSpec histogramSpec = spec;
        histogramSpec.binsDeclared = true;
        const auto cost = releaseCost(histogramSpec);
        QVERIFY(cost);
        QCOMPARE(r->metadata.rho, cost->rho);
        // Each value is its cell's count plus noise: |noise| ≥ 60 at t = 2 has probability
        // < 2·e^-30 per cell, so the values stay in their cells' order of magnitude.
        for (std::size_t i = 0; i < counts.size(); ++i) {
            QVERIFY(std::abs(r->values[i] - static_cast<double>(counts[i])) < 60);
        }
        for (const std::string& s : metadataStrings(r->metadata)) {
            for (std::int64_t c : counts) {
                QVERIFY2(s.find(std::to_string(c)) == std::string::npos, s.c_str());
            }
        }
        // Replace neighbours with cap 3: Δ1 = 6, as for a histogram.
        spec.relation = Neighbouring::Replace;
        spec.contributionCap = 3;
        auto r6 = releaseTable(spec, *table, rng);
        QVERIFY(r6);
        QCOMPARE(r6->metadata.l1Sensitivity, std::int64_t{6});
    }

    void tableReleaseRefusals() {
        ReleaseRandomness rng;
        Attribute declared{"a", {"x", "y"}, {}, "categories x, y", true};
        Attribute found{"b", {"p", "q"}, {}, "categories found in the data", false};
        auto t = ContingencyTable::dense({declared, found}, {1, 2, 3, 4});
        QVERIFY(t);
        auto r = releaseTable(laplaceSpec("1"), *t, rng);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("attribute 'b'") != std::string::npos,
                 r.error().message.c_str());
        // 400 × 300 = 120 000 cells: more than a release takes.
        auto big = ContingencyTable::fromCells({indexAttribute("u", 400), indexAttribute("v", 300)},
                                               {{5, 1}});
        QVERIFY(big);
        auto rb = releaseTable(laplaceSpec("1"), *big, rng);
        QVERIFY(!rb);
        QVERIFY2(rb.error().message.find("120000 cells") != std::string::npos,
                 rb.error().message.c_str());
        // A bad spec is refused as for a histogram.
        auto ok = ContingencyTable::dense({declared}, {1, 2});
        QVERIFY(ok);
        auto re = releaseTable(laplaceSpec("0"), *ok, rng);
        QVERIFY(!re);
        QVERIFY(re.error().message.rfind("epsilon:", 0) == 0);
    }

    void mechanismNames() {
        for (auto m : {ReleaseMechanism::DiscreteLaplace, ReleaseMechanism::DiscreteGaussian,
                       ReleaseMechanism::GeometricMatrix}) {
            auto back = releaseMechanismFromName(releaseMechanismName(m));
            QVERIFY(back && *back == m);
        }
        auto bad = releaseMechanismFromName("laplace");
        QVERIFY(!bad);
        QVERIFY(dpxtest::mentions(bad.error().message, "mechanism"));
    }

    void timestampShape() {
        const std::string t = utcTimestampNow();
        ReleaseSpec s = laplaceSpec("1");
        s.timestamp = t;
        QVERIFY2(s.validate(), t.c_str());
    }
};

QTEST_APPLESS_MAIN(TestRelease)
#include "tst_release.moc"
