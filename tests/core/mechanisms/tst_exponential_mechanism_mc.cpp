// Report-noisy-max, Monte Carlo: its selection probabilities by quadrature agree with simulated
// frequencies (Laplace and exponential noise) within 4 binomial standard errors; the exponential
// mechanism's probabilities agree with Gumbel-max sampling (argmax c·u_j + Gumbel, an independent
// way to draw from it). Fixed seeds.
#include <QTest>

#include <cmath>

#include "core/base/simulation_rng.h"
#include "core/mechanisms/exponential_mechanism.h"
#include "tests/testing/test_support.h"

using namespace dpx;

class TestExponentialMechanismMc : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noisyMaxFrequencies_data();
    void noisyMaxFrequencies();
    void gumbelMax();
};

void TestExponentialMechanismMc::noisyMaxFrequencies_data() {
    QTest::addColumn<bool>("laplace");
    QTest::newRow("laplace") << true;
    QTest::newRow("exponential") << false;
}

void TestExponentialMechanismMc::noisyMaxFrequencies() {
    QFETCH(bool, laplace);
    const std::vector<double> u = {12, 10, 10, 7, 3, 11};
    const double s = 2.0;
    auto p = reportNoisyMaxProbabilities(
        u, s, laplace ? NoisyMaxNoise::Laplace : NoisyMaxNoise::Exponential);
    DPX_VERIFY_OK(p);
    SimulationRng rng(909, 0);
    const int trials = 400000;
    std::vector<double> hits(u.size(), 0);
    for (int t = 0; t < trials; ++t) {
        std::size_t best = 0;
        double top = -1e300;
        for (std::size_t j = 0; j < u.size(); ++j) {
            bool neg = false;
            const double e = rng.exponential(&neg);
            const double x = u[j] + s * (laplace ? (neg ? -e : e) : e);
            if (x > top) {
                top = x;
                best = j;
            }
        }
        hits[best] += 1;
    }
    for (std::size_t j = 0; j < u.size(); ++j) {
        const double f = hits[j] / trials;
        const double se = std::sqrt((*p)[j] * (1 - (*p)[j]) / trials);
        DPX_VERIFY_NEAR(f, (*p)[j], 4 * se + 1e-12);
    }
}

void TestExponentialMechanismMc::gumbelMax() {
    const std::vector<double> u = {5, 2, 0, 5, 4};
    const double c = 0.6;
    const auto p = exponentialMechanismProbabilities(u, c);
    SimulationRng rng(31, 0);
    const int trials = 300000;
    std::vector<double> hits(u.size(), 0);
    for (int t = 0; t < trials; ++t) {
        std::size_t best = 0;
        double top = -1e300;
        for (std::size_t j = 0; j < u.size(); ++j) {
            const double g = -std::log(-std::log(rng.uniformOpen()));
            if (c * u[j] + g > top) {
                top = c * u[j] + g;
                best = j;
            }
        }
        hits[best] += 1;
    }
    for (std::size_t j = 0; j < u.size(); ++j) {
        const double se = std::sqrt(p[j] * (1 - p[j]) / trials);
        DPX_VERIFY_NEAR(hits[j] / trials, p[j], 4 * se);
    }
}

QTEST_APPLESS_MAIN(TestExponentialMechanismMc)
#include "tst_exponential_mechanism_mc.moc"
