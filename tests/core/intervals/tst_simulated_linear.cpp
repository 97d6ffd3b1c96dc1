// Simulated intervals for linear estimates (core/intervals/simulated_linear.h) against
// independent references:
//  - the order k against the binomial upper tail summed term by term here (long double, from
//    lgamma), and against its defining property (k − 1 fails, k passes);
//  - the half-widths against closed forms they must never undercut and should be close to:
//    one Laplace draw (Pr[|Z| > h] = e^(−h/b)), the sum of two Laplace draws
//    (Pr[|Z₁ + Z₂| > h] = e^(−h/b)(1 + h/(2b)), from the convolution of the densities), a
//    Gaussian combination (σ‖a‖₂·z), one discrete Laplace draw (the exact integer quantile of
//    core's cellInterval, itself tested against brute-force sums), and the largest of m
//    independent Laplace draws (Pr[max ≤ h] = (1 − e^(−h/b))^m);
//  - the bound valid for every coefficient vector (linearEstimateInterval) is never beaten by
//    more than the simulation's slack in the wrong direction;
//  - determinism (same seed, same numbers) and refusals.
#include <QTest>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>

#include "core/intervals/intervals.h"
#include "core/intervals/simulated_linear.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

long double binomialTailBrute(std::uint64_t n, double p, std::uint64_t k) {
    long double total = 0;
    for (std::uint64_t i = k; i <= n; ++i) {
        const long double logTerm =
            std::lgamma(static_cast<long double>(n) + 1) -
            std::lgamma(static_cast<long double>(i) + 1) -
            std::lgamma(static_cast<long double>(n - i) + 1) +
            static_cast<long double>(i) * std::log(static_cast<long double>(p)) +
            static_cast<long double>(n - i) * std::log1p(-static_cast<long double>(p));
        total += std::exp(logTerm);
    }
    return total;
}

// The smallest h with tail(h) ≤ 1 − level, by bisection on a decreasing tail.
template <class Tail>
double quantileOf(Tail tail, double level, double hi) {
    double lo = 0;
    while (tail(hi) > 1 - level)
        hi *= 2;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (tail(mid) > 1 - level ? lo : hi) = mid;
    }
    return hi;
}

LinearEstimateMap identityMap() {
    return [](std::span<const double> z, std::span<double> out) {
        std::copy(z.begin(), z.end(), out.begin());
    };
}

}  // namespace

class TestSimulatedLinear : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void orderAgainstBruteForceBinomial() {
        for (auto [n, level, failure] :
             {std::tuple{10'000ULL, 0.95, 1e-9}, std::tuple{10'000ULL, 0.99, 1e-9},
              std::tuple{4'000ULL, 0.9, 1e-6}, std::tuple{500ULL, 0.95, 1e-9}}) {
            const auto k = quantileUpperOrder(n, level, failure);
            QVERIFY(k > 0 && k <= n);
            QVERIFY(binomialTailBrute(n, level, k) <= failure * (1 + 1e-9));
            QVERIFY(binomialTailBrute(n, level, k - 1) > failure * (1 - 1e-9));
        }
        // L^N > η: even the largest draw cannot certify the quantile.
        QCOMPARE(quantileUpperOrder(1'000, 0.999, 1e-9), 0ULL);
    }

    void oneLaplaceDrawIsCloseToItsExactQuantile() {
        const double b = 3.0;
        for (double level : {0.9, 0.95, 0.99}) {
            auto r = simulatedLinearIntervals(CellNoise{CellNoiseKind::Laplace, b}, 4,
                                              std::vector<double>(4, 1.0), identityMap(), level);
            QVERIFY2(r.hasValue(), r ? "" : r.error().message.c_str());
            const double exact = b * std::log(1 / (1 - level));
            // Expected slack: the order k sits ~6 binomial standard deviations above N·L (η =
            // 10⁻⁹), i.e. at the quantile of level L' = L + 6√(L(1 − L)/N); for the Laplace the
            // ratio is ln(1/(1 − L'))/ln(1/(1 − L)): 1.09 at 90 %, 1.10 at 95 %, 1.20 at 99 %.
            const double slack = level > 0.98 ? 1.25 : 1.15;
            for (double h : r->halfWidths) {
                QVERIFY2(h >= exact, (std::to_string(h) + " / " + std::to_string(exact)).c_str());
                QVERIFY2(h <= slack * exact,
                         (std::to_string(h) + " / " + std::to_string(exact)).c_str());
            }
            // Four independent outputs at once: Pr[max ≤ h] = (1 − e^(−h/b))^4.
            const double maxExact = -b * std::log(1 - std::pow(level, 0.25));
            QVERIFY(r->simultaneous >= maxExact);
            QVERIFY(r->simultaneous <= slack * maxExact);
            // The bound valid for every coefficient vector is wider (Chernoff slack).
            auto bound = linearEstimateInterval(CellNoise{CellNoiseKind::Laplace, b}, level);
            QVERIFY(bound->halfWidth > r->halfWidths[0]);
        }
    }

    void sumOfTwoLaplaceDrawsAndAGaussianCombination() {
        const double b = 2.0;
        const LinearEstimateMap sum = [](std::span<const double> z, std::span<double> out) {
            out[0] = z[0] + z[1];
            out[1] = 0.5 * z[0] - 2 * z[2];
        };
        auto r = simulatedLinearIntervals(CellNoise{CellNoiseKind::Laplace, b}, 3,
                                          std::vector<double>{std::sqrt(2.0), std::sqrt(4.25)}, sum,
                                          0.95);
        QVERIFY(r.hasValue());
        const double exact =
            quantileOf([b](double h) { return std::exp(-h / b) * (1 + h / (2 * b)); }, 0.95, 10.0);
        QVERIFY2(r->halfWidths[0] >= exact && r->halfWidths[0] <= 1.12 * exact,
                 (std::to_string(r->halfWidths[0]) + " / " + std::to_string(exact)).c_str());

        const double sigma = 1.5;
        const std::vector<double> a{0.3, -1.2, 0.7, 2.0};
        const LinearEstimateMap dot = [&a](std::span<const double> z, std::span<double> out) {
            out[0] = 0;
            for (std::size_t i = 0; i < a.size(); ++i)
                out[0] += a[i] * z[i];
        };
        auto g = simulatedLinearIntervals(CellNoise{CellNoiseKind::Gaussian, sigma}, 4,
                                          std::vector<double>{1.0}, dot, 0.95);
        QVERIFY(g.hasValue());
        double norm = 0;
        for (double ai : a)
            norm += ai * ai;
        const double gaussExact =
            sigma * std::sqrt(norm) *
            boost::math::quantile(boost::math::normal_distribution<double>(), 0.975);
        QVERIFY(g->halfWidths[0] >= gaussExact);
        QVERIFY(g->halfWidths[0] <= 1.1 * gaussExact);
    }

    void oneDiscreteLaplaceDrawCoversItsExactIntegerQuantile() {
        const CellNoise noise{CellNoiseKind::DiscreteLaplace, std::exp(-1 / 4.0)};
        auto r =
            simulatedLinearIntervals(noise, 2, std::vector<double>(2, 1.0), identityMap(), 0.95);
        QVERIFY(r.hasValue());
        auto exact = cellInterval(noise, 0.95);
        QVERIFY(exact.hasValue());
        // |Z| is an integer: the order statistic is an integer (rounded up one ulp) ≥ the exact
        // integer quantile, and at most one step above it (the slack is ~10 % of the level).
        for (double h : r->halfWidths) {
            QVERIFY(h >= exact->halfWidth);
            QVERIFY(h <= exact->halfWidth + 2);
        }
    }

    void deterministicAndCancellable() {
        const CellNoise noise{CellNoiseKind::Laplace, 1.0};
        auto a =
            simulatedLinearIntervals(noise, 3, std::vector<double>(3, 1.0), identityMap(), 0.9);
        auto b =
            simulatedLinearIntervals(noise, 3, std::vector<double>(3, 1.0), identityMap(), 0.9);
        QVERIFY(a && b);
        QCOMPARE(a->halfWidths, b->halfWidths);
        QCOMPARE(a->simultaneous, b->simultaneous);
        SimulatedLinearOptions other;
        other.seed = 7;
        auto c = simulatedLinearIntervals(noise, 3, std::vector<double>(3, 1.0), identityMap(), 0.9,
                                          other);
        QVERIFY(c && c->halfWidths != a->halfWidths);
        std::stop_source stop;
        stop.request_stop();
        auto d = simulatedLinearIntervals(noise, 3, std::vector<double>(3, 1.0), identityMap(), 0.9,
                                          {}, stop.get_token());
        QVERIFY(!d.hasValue());
    }

    void refusals() {
        const CellNoise noise{CellNoiseKind::Laplace, 1.0};
        SimulatedLinearOptions few;
        few.draws = 1'000;
        auto r = simulatedLinearIntervals(noise, 2, std::vector<double>(2, 1.0), identityMap(),
                                          0.999, few);
        QVERIFY(!r.hasValue());
        QVERIFY(r.error().message.find("draws are needed") != std::string::npos);
        QVERIFY(!simulatedLinearIntervals(noise, 2, std::vector<double>{1.0, 0.0}, identityMap(),
                                          0.95));
        QVERIFY(
            !simulatedLinearIntervals(noise, 2, std::vector<double>(2, 1.0), identityMap(), 1.0));
        SimulatedLinearOptions badFailure;
        badFailure.failure = 0;
        QVERIFY(!simulatedLinearIntervals(noise, 2, std::vector<double>(2, 1.0), identityMap(),
                                          0.95, badFailure));
        QVERIFY(!simulatedLinearIntervals(CellNoise{CellNoiseKind::Laplace, -1}, 2,
                                          std::vector<double>(2, 1.0), identityMap(), 0.95));
        const LinearEstimateMap nan = [](std::span<const double>, std::span<double> out) {
            out[0] = std::nan("");
        };
        QVERIFY(!simulatedLinearIntervals(noise, 2, std::vector<double>{1.0}, nan, 0.95));
    }
};

QTEST_APPLESS_MAIN(TestSimulatedLinear)
#include "tst_simulated_linear.moc"
