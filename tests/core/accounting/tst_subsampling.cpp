// Poisson subsampling (core/accounting/subsampling.h, issue #22 Part B): the sampled Gaussian's
// Rényi DP (Mironov, Talwar & Zhang 2019) against numerical integration of the Rényi divergence
// between the mixture (1−q)N(0,σ²) + qN(Δ,σ²) and N(0,σ²), in both directions; q = 1 against the
// Gaussian; the T-step ε(δ) never below the unsubsampled Rényi accountant's at q = 1 and
// decreasing in q; basic amplification (Li, Qardaji & Su 2012).
#include <QTest>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/accounting/privacy_loss.h"
#include "core/accounting/renyi.h"
#include "core/accounting/subsampling.h"
#include "tests/testing/quadrature.h"

using namespace dpx;
using namespace dpx::accounting;

namespace {

double normalPdf(double x, double mean, double sigma) {
    const double z = (x - mean) / sigma;
    return std::exp(-0.5 * z * z) / (sigma * std::sqrt(2 * std::numbers::pi));
}

// D_α(P‖Q) = ln(∫ p^α q^{1−α}) / (α − 1) by quadrature, P the mixture (forward) or N(0, σ²).
double renyiByQuadrature(double q, double sigma, double alpha, bool mixtureFirst) {
    auto mixture = [&](double x) {
        return (1 - q) * normalPdf(x, 0, sigma) + q * normalPdf(x, 1, sigma);
    };
    auto f = [&](double x) {
        const double m = mixture(x), g = normalPdf(x, 0, sigma);
        if (m <= 0 || g <= 0) {
            return 0.0;
        }
        return mixtureFirst ? std::exp(alpha * std::log(m) + (1 - alpha) * std::log(g))
                            : std::exp(alpha * std::log(g) + (1 - alpha) * std::log(m));
    };
    const double width = 40 * sigma + alpha;
    const double integral =
        dpxtest::integrateSplit(f, {-1, 0, 0.5, 1, 2, alpha / 2, alpha}, -width, width);
    return std::log(integral) / (alpha - 1);
}

}  // namespace

class TestSubsampling : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void renyiAgainstQuadrature_data() {
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("sigma");
        QTest::addColumn<int>("alpha");
        for (double q : {0.01, 0.1, 0.5}) {
            for (double sigma : {0.8, 1.0, 2.0}) {
                for (int alpha : {2, 3, 8, 20}) {
                    QTest::addRow("q=%g sigma=%g alpha=%d", q, sigma, alpha) << q << sigma << alpha;
                }
            }
        }
    }
    void renyiAgainstQuadrature() {
        QFETCH(double, q);
        QFETCH(double, sigma);
        QFETCH(int, alpha);
        const double formula = sampledGaussianRenyi(q, sigma, 1.0, alpha).value();
        const double forward = renyiByQuadrature(q, sigma, alpha, true);
        const double backward = renyiByQuadrature(q, sigma, alpha, false);
        QVERIFY2(std::abs(formula - forward) <= 1e-8 * std::max(1.0, forward),
                 (std::to_string(formula) + " vs " + std::to_string(forward)).c_str());
        // The other direction (add vs remove) is never larger: the formula is the worse one.
        QVERIFY2(backward <= formula * (1 + 1e-8) + 1e-12,
                 (std::to_string(backward) + " > " + std::to_string(formula)).c_str());
    }

    void fullSamplingIsTheGaussian() {
        for (int alpha : {2, 5, 64}) {
            const double g = alpha / (2 * 1.5 * 1.5);
            QCOMPARE(sampledGaussianRenyi(1, 1.5, 1, alpha).value(), g);
            const double nearly = sampledGaussianRenyi(1 - 1e-9, 1.5, 1, alpha).value();
            QVERIFY(std::abs(nearly - g) <= 1e-6 * g);
        }
        // Δ scales σ.
        QCOMPARE(sampledGaussianRenyi(0.1, 2, 2, 7).value(),
                 sampledGaussianRenyi(0.1, 1, 1, 7).value());
        // T steps at q = 1: the same mechanism as the Rényi accountant's T Gaussians, on integer
        // orders only, so never below it and within 2 %.
        const auto mine = sampledGaussianEpsilon(1, 10, 1, 20, 1e-6).value();
        const auto ref = renyiEpsilon({gaussianLoss(10, 1, 20)}, 1e-6).value();
        QVERIFY(mine.epsilon >= ref.value - 1e-12);
        QVERIFY2(mine.epsilon <= 1.02 * ref.value,
                 (std::to_string(mine.epsilon) + " vs " + std::to_string(ref.value)).c_str());
    }

    void epsilonDecreasesWithTheRate() {
        double previous = 0;
        for (double q : {0.001, 0.01, 0.1, 1.0}) {
            const double e = sampledGaussianEpsilon(q, 1.1, 1, 1000, 1e-5).value().epsilon;
            QVERIFY(e > previous);
            previous = e;
        }
    }

    void basicAmplification() {
        auto a = amplifyByPoissonSampling(1, 1e-6, 0.1).value();
        QCOMPARE(a.epsilon, std::log(1 + 0.1 * (std::exp(1.0) - 1)));
        QCOMPARE(a.delta, 1e-7);
        auto same = amplifyByPoissonSampling(0.7, 1e-5, 1).value();
        QCOMPARE(same.epsilon, 0.7);
        QCOMPARE(same.delta, 1e-5);
        // Small ε: ε' ≈ qε.
        auto small = amplifyByPoissonSampling(1e-9, 0, 0.01).value();
        QVERIFY(std::abs(small.epsilon - 1e-11) <= 1e-20);
        QVERIFY(!amplifyByPoissonSampling(1, 0, 0));
        QVERIFY(!amplifyByPoissonSampling(1, 0, 1.5));
        QVERIFY(!amplifyByPoissonSampling(-1, 0, 0.5));
        QVERIFY(!amplifyByPoissonSampling(1, 1, 0.5));
    }

    void inverseAmplification() {
        // ε0 = ln(1 + (e^ε − 1)/q), δ0 = δ/q: forward through amplifyByPoissonSampling it never
        // exceeds the target and is within a few ulps of it; q = 1 is the identity.
        for (double q : {1e-4, 0.01, 0.1, 0.5, 0.999}) {
            for (double eps : {1e-6, 0.1, 1.0, 5.0}) {
                auto u = unamplifiedForTarget(eps, 1e-6, q).value();
                QVERIFY(u.epsilon >= eps);
                auto f = amplifyByPoissonSampling(u.epsilon, u.delta, q).value();
                QVERIFY(f.epsilon <= eps);
                QVERIFY(f.delta <= 1e-6);
                QVERIFY2(std::abs(f.epsilon - eps) <= 1e-14 * eps, QByteArray::number(q));
                // The closed form written out (naively: only where e^ε − 1 does not cancel).
                if (eps >= 0.1) {
                    QVERIFY(std::abs(u.epsilon - std::log(1 + (std::exp(eps) - 1) / q)) <=
                            1e-13 * u.epsilon);
                }
            }
        }
        auto same = unamplifiedForTarget(0.7, 1e-5, 1).value();
        QCOMPARE(same.epsilon, 0.7);
        QCOMPARE(same.delta, 1e-5);
        // δ0 is capped at ½ (a δ/q ≥ 1 would be no guarantee).
        QCOMPARE(unamplifiedForTarget(1, 0.1, 0.01).value().delta, 0.5);
        QVERIFY(!unamplifiedForTarget(0, 0, 0.5));
        QVERIFY(!unamplifiedForTarget(1, 0, 0));
        QVERIFY(!unamplifiedForTarget(1, 1, 0.5));
        auto huge = unamplifiedForTarget(800, 0, 0.5);
        QVERIFY(!huge && huge.error().message.find("double range") != std::string::npos);
    }

    void upperEpsilonIsTheAccountsUpperBound() {
        // PldAccount::upperEpsilon (pessimistic roundings only) answers exactly what the full
        // account's upper bound does, with and without subsampled mechanisms.
        for (double q : {1.0, 0.1}) {
            std::vector<AccountedMechanism> mechs{subsampled(laplaceLoss(2.0, 1, 3), q),
                                                  gaussianLoss(4.0), geometricLoss(0.3)};
            const auto full = PldAccount::compose(mechs).value();
            const double up = PldAccount::upperEpsilon(mechs, PldOptions{}, 1e-6).value();
            QCOMPARE(up, full.epsilon(1e-6).value().upper);
        }
    }

    void badInputsNamed() {
        auto q = sampledGaussianRenyi(0, 1, 1, 2);
        QVERIFY(!q && q.error().message.find("sampling rate") != std::string::npos);
        auto s = sampledGaussianRenyi(0.1, 0, 1, 2);
        QVERIFY(!s && s.error().message.find("σ") != std::string::npos);
        auto a = sampledGaussianRenyi(0.1, 1, 1, 1);
        QVERIFY(!a && a.error().message.find("order") != std::string::npos);
        auto t = sampledGaussianEpsilon(0.1, 1, 1, 0, 1e-5);
        QVERIFY(!t && t.error().message.find("steps") != std::string::npos);
        auto d = sampledGaussianEpsilon(0.1, 1, 1, 10, 0);
        QVERIFY(!d && d.error().message.find("δ") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSubsampling)
#include "tst_subsampling.moc"
