// core/ldp_mean: Microsoft's 1BitMean (Ding, Kulkarni & Yekhanin 2017, §2.1). Checked: the bit
// probabilities at the ends of [0, m] have ratio exactly e^ε (ε-LDP), the estimator is unbiased
// with the stated variance (20 000 seeded collections, 4 standard errors), the variance respects
// the m²(e^ε+1)²/(4n(e^ε−1)²) bound, the study's measured mean absolute error agrees with
// √(2/π)·σ, and every bad input is refused.

#include <QTest>
#include <cmath>
#include <numbers>

#include "core/ldp/mean.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::ldp;

class TestLdpMean : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void localPrivacy() {
        for (double eps : {0.1, 1.0, 3.0, 10.0}) {
            const OneBitMeanSpec s{eps, 24};
            const double lo = oneBitProbability(s, 0), hi = oneBitProbability(s, 24);
            DPX_VERIFY_NEAR(hi / lo, std::exp(eps), 1e-12 * std::exp(eps));
            // 1 − p(m) = 1/(e^ε+1) loses digits to cancellation in double: relative 1e-9.
            DPX_VERIFY_NEAR((1 - lo) / (1 - hi), std::exp(eps), 1e-9 * std::exp(eps));
            // p is increasing in x, so the end points are the extremes.
            QVERIFY(oneBitProbability(s, 12) > lo && oneBitProbability(s, 12) < hi);
        }
    }

    void unbiasedWithFormulaVariance() {
        const OneBitMeanSpec s{1.0, 24};
        const ValueCounts data{{1.5, 12, 20}, {300, 500, 200}};
        const double mu = *trueMean(data);
        DPX_VERIFY_NEAR(mu, (1.5 * 300 + 12 * 500 + 20 * 200) / 1000.0, 1e-12);
        const double var = *oneBitMeanVariance(s, data);
        const double e = std::exp(1.0);
        QVERIFY(var <= 24.0 * 24 * (e + 1) * (e + 1) / (4 * 1000 * (e - 1) * (e - 1)));
        const int trials = 20000;
        double sum = 0, sumSq = 0;
        for (int t = 0; t < trials; ++t) {
            const double x = *simulateOneBitMean(s, data, 77 + static_cast<std::uint64_t>(t));
            sum += x;
            sumSq += x * x;
        }
        const double mean = sum / trials;
        const double sampleVar = (sumSq / trials - mean * mean) * trials / (trials - 1);
        DPX_VERIFY_NEAR(mean, mu, 4 * std::sqrt(var / trials));
        // Var of the sample variance of a normal-ish statistic: 2σ⁴/(T−1).
        DPX_VERIFY_NEAR(sampleVar, var, 4 * var * std::sqrt(2.0 / (trials - 1)));
    }

    void studyAgainstNormalApproximation() {
        MeanStudySpec s = telemetryMeanPreset();
        QVERIFY(s.validate().hasValue());
        s.populations = {1000, 100000};
        s.epsilons = {1};
        s.repetitions = 4000;
        auto r = runMeanStudy(s);
        QVERIFY(r.hasValue());
        QCOMPARE(r->points.size(), std::size_t(2));
        for (const auto& p : r->points) {
            DPX_VERIFY_NEAR(p.absError, p.expectedAbsError, 2.5 * p.absErrorCi95);
        }
        QVERIFY(r->points[1].absError < r->points[0].absError / 5);  // ~1/√n: factor 10
    }

    void rejections() {
        const ValueCounts ok{{1, 2}, {1, 1}};
        DPX_VERIFY_ERROR(simulateOneBitMean({0, 24}, ok, 1), "epsilon");
        DPX_VERIFY_ERROR(simulateOneBitMean({std::nan(""), 24}, ok, 1), "epsilon");
        DPX_VERIFY_ERROR(simulateOneBitMean({1, 0}, ok, 1), "range");
        DPX_VERIFY_ERROR(simulateOneBitMean({1, HUGE_VAL}, ok, 1), "range");
        DPX_VERIFY_ERROR(simulateOneBitMean({1, 24}, {{25}, {1}}, 1), "outside");
        DPX_VERIFY_ERROR(simulateOneBitMean({1, 24}, {{-1}, {1}}, 1), "outside");
        DPX_VERIFY_ERROR(simulateOneBitMean({1, 24}, {{1}, {-1}}, 1), "negative");
        DPX_VERIFY_ERROR(simulateOneBitMean({1, 24}, {{1}, {0}}, 1), "no users");
        DPX_VERIFY_ERROR(oneBitMeanVariance({1, 24}, {{1, 2}, {1}}), "length");
        MeanStudySpec s = telemetryMeanPreset();
        s.populations = {0};
        DPX_VERIFY_ERROR(s.validate(), "populations[0]");
        s = telemetryMeanPreset();
        s.epsilons = {1, 21};
        DPX_VERIFY_ERROR(s.validate(), "epsilons[1]");
        s = telemetryMeanPreset();
        s.repetitions = 0;
        DPX_VERIFY_ERROR(s.validate(), "repetitions");
    }
};

QTEST_MAIN(TestLdpMean)
#include "tst_ldp_mean.moc"
