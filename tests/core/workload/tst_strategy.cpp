// Data-independent strategies (core/workload/strategy.h) against their dense matrices (Eigen,
// built column by column from measure()): transpose, least squares = (AᵀA)⁻¹Aᵀy, solveGram,
// sensitivities, the exact expected error σ²·trace(W(AᵀA)⁻¹Wᵀ) against a dense computation and
// a Monte Carlo mean, HB's branching against ektelo's choices, and NNLS against the KKT
// conditions (which certify the global minimum of the convex problem).
#include <QTest>

#include <Eigen/Dense>
#include <cmath>

#include "core/base/simulation_rng.h"
#include "core/workload/strategy.h"
#include "core/workload/workload_error.h"
#include "tests/testing/dense_workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::denseWorkload;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

MatrixXd dense(const LinearStrategy& s) {
    return dpxtest::denseStrategy(s);
}

VectorXd toEigen(const std::vector<double>& v) {
    return Eigen::Map<const VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

std::vector<double> randomVector(std::size_t n, std::uint64_t seed) {
    return dpxtest::uniformVector(n, seed, -3, 7);
}

// The mean of ‖W x̂ − W x‖² over `trials` measurements of `s` under `spec` with least squares,
// and its standard error.
std::pair<double, double> monteCarloSquaredError(const LinearStrategy& s, const Workload& w,
                                                 const std::vector<double>& x,
                                                 const MeasurementSpec& spec, SimulationRng& rng,
                                                 int trials) {
    double sum = 0, sum2 = 0;
    std::vector<double> xhat(x.size());
    for (int t = 0; t < trials; ++t) {
        auto y = measureStrategy(s, x, spec, rng);
        if (!y) {
            qFatal("%s", y.error().message.c_str());
        }
        s.leastSquares(*y, xhat);
        auto e = workloadError(w, x, xhat, 1.0);
        sum += e->sumSquares;
        sum2 += e->sumSquares * e->sumSquares;
    }
    const double mean = sum / trials;
    return {mean, std::sqrt((sum2 / trials - mean * mean) / trials)};
}

std::unique_ptr<LinearStrategy> take(Expected<std::unique_ptr<LinearStrategy>> s) {
    if (!s) {
        qFatal("%s", s.error().message.c_str());
    }
    return std::move(s).value();
}

std::vector<std::unique_ptr<LinearStrategy>> smallStrategies() {
    std::vector<std::unique_ptr<LinearStrategy>> out;
    out.push_back(identityStrategy({6}));
    out.push_back(identityStrategy({3, 4}));
    out.push_back(take(hierarchicalStrategy(10, 2)));
    out.push_back(take(hierarchicalStrategy(9, 3)));
    out.push_back(take(hierarchicalStrategy(16, 4, {0.5, 2, 1.5})));
    out.push_back(take(hierarchicalStrategy(7, 2, {0, 1, 0, 3})));
    out.push_back(take(hbStrategy({37})));
    out.push_back(take(hbStrategy({300})));
    out.push_back(take(hbStrategy({6, 5})));
    out.push_back(take(quadtreeStrategy({5, 6})));
    out.push_back(take(haarStrategy({8})));
    out.push_back(take(haarStrategy({4, 8})));
    std::vector<std::unique_ptr<LinearStrategy>> f;
    f.push_back(take(hierarchicalStrategy(5, 2)));
    f.push_back(identityStrategy({3}));
    out.push_back(take(kroneckerStrategy(std::move(f))));
    return out;
}

}  // namespace

class TestStrategy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void denseAgreement();
    void expectedErrorMatchesDense();
    void expectedErrorMatchesMonteCarlo();
    void gaussianMeasurement();
    void kroneckerTraceOnAHugeWorkload();
    void hbBranchingMatchesReference();
    void nnlsSatisfiesKkt();
    void badInputs();
};

void TestStrategy::denseAgreement() {
    for (const auto& s : smallStrategies()) {
        const std::string name = s->describe();
        const std::size_t n = shapeCells(s->shape());
        const MatrixXd a = dense(*s);
        QCOMPARE(static_cast<std::size_t>(a.cols()), n);
        // Sensitivities: the largest column norms.
        DPX_VERIFY_NEAR(s->sensitivityL1(), a.cwiseAbs().colwise().sum().maxCoeff(), 1e-12);
        DPX_VERIFY_NEAR(s->sensitivityL2(), a.colwise().norm().maxCoeff(), 1e-12);
        const auto y = randomVector(s->rows(), 3);
        std::vector<double> aty(n), xhat(n), sol(n);
        s->transposeMeasure(y, aty);
        const VectorXd atyDense = a.transpose() * toEigen(y);
        QVERIFY2((toEigen(aty) - atyDense).norm() < 1e-9 * (1 + atyDense.norm()), name.c_str());
        const MatrixXd m = a.transpose() * a;
        const VectorXd ls = m.ldlt().solve(atyDense);
        s->leastSquares(y, xhat);
        QVERIFY2((toEigen(xhat) - ls).norm() < 1e-8 * (1 + ls.norm()), name.c_str());
        const auto b = randomVector(n, 4);
        s->solveGram(b, sol);
        const VectorXd sg = m.ldlt().solve(toEigen(b));
        QVERIFY2((toEigen(sol) - sg).norm() < 1e-8 * (1 + sg.norm()), name.c_str());
    }
}

void TestStrategy::expectedErrorMatchesDense() {
    for (const auto& s : smallStrategies()) {
        const MatrixXd a = dense(*s);
        const MatrixXd minv = (a.transpose() * a).inverse();
        std::vector<std::string> kinds{"identity", "prefix", "allrange", "range:25:seed=2",
                                       "total"};
        if (s->shape().size() == 2) {
            kinds.push_back("marginals:1");
        }
        for (const std::string& kind : kinds) {
            auto w = Workload::make(*WorkloadSpec::parse(kind), s->shape());
            DPX_VERIFY_OK(w);
            const MatrixXd wd = denseWorkload(*w);
            const double eps = 0.7;
            const double sigma2 = 2 * std::pow(s->sensitivityL1() / eps, 2);
            const VectorXd cov = (wd * minv).cwiseProduct(wd).rowwise().sum();
            auto e = expectedLeastSquaresError(*s, *w, eps, true);
            DPX_VERIFY_OK(e);
            const std::string name = s->describe() + " / " + kind;
            QVERIFY2(std::abs(e->totalSquared - sigma2 * cov.sum()) < 1e-8 * sigma2 * cov.sum(),
                     name.c_str());
            for (std::uint64_t i = 0; i < w->queryCount(); ++i) {
                const auto k = static_cast<Eigen::Index>(i);
                DPX_VERIFY_NEAR(e->perQueryVariance[i], sigma2 * cov(k),
                                1e-8 * sigma2 * cov(k) + 1e-12);
            }
            // The total without per-query parts takes other paths (Gram columns); same value.
            auto t = expectedLeastSquaresError(*s, *w, eps, false);
            DPX_VERIFY_OK(t);
            DPX_VERIFY_REL(t->totalSquared, e->totalSquared, 1e-9);
            DPX_VERIFY_REL(t->rmse, std::sqrt(e->totalSquared / double(w->queryCount())), 1e-9);
        }
    }
}

void TestStrategy::expectedErrorMatchesMonteCarlo() {
    // 4 000 Laplace measurements + least squares; the mean of ‖W x̂ − W x‖² must match the exact
    // value within 5 standard errors.
    const DomainShape shape{16};
    auto s = hbStrategy(shape);
    auto h2 = hierarchicalStrategy(16, 2);
    auto haar = haarStrategy(shape);
    auto w = Workload::make(*WorkloadSpec::parse("range:50:seed=1"), shape);
    const auto x = randomVector(16, 5);
    SimulationRng rng(77, 1);
    for (const LinearStrategy* st : {s->get(), h2->get(), haar->get()}) {
        auto exact = expectedLeastSquaresError(*st, *w, 1.0);
        DPX_VERIFY_OK(exact);
        const auto [mean, se] =
            monteCarloSquaredError(*st, *w, x, MeasurementSpec::laplace(1.0), rng, 4000);
        DPX_VERIFY_NEAR(mean, exact->totalSquared, 5 * se);
    }
}

void TestStrategy::gaussianMeasurement() {
    // Gaussian measurement: σ is calibrated on the strategy's L2 sensitivity Δ₂(A) (the largest
    // column norm, from the dense matrix here), and E‖W x̂ − W x‖² = σ²·trace(W(AᵀA)⁻¹Wᵀ).
    // Independent references: the classic calibration's closed form σ = Δ₂·√(2 ln(1.25/δ))/ε
    // (Dwork & Roth 2014, Thm A.1; ε < 1), the analytic σ through its defining equation
    // δ(σ) = δ (Balle & Wang 2018, Thm 8), the dense trace, and a Monte Carlo mean.
    const double eps = 0.7, delta = 1e-5;
    for (const auto& s : smallStrategies()) {
        const MatrixXd a = dense(*s);
        const double d2 = a.colwise().norm().maxCoeff();
        DPX_VERIFY_REL(s->sensitivityL2(), d2, 1e-12);
        auto w = Workload::make(*WorkloadSpec::parse("range:25:seed=3"), s->shape());
        DPX_VERIFY_OK(w);
        const MatrixXd wd = denseWorkload(*w);
        const double trace = (wd * (a.transpose() * a).inverse() * wd.transpose()).trace();
        const std::string name = s->describe();
        auto classic = expectedLeastSquaresError(
            *s, *w, MeasurementSpec::gaussian(eps, delta, GaussianCalibration::Classic));
        DPX_VERIFY_OK(classic);
        const double sigmaClassic = d2 * std::sqrt(2 * std::log(1.25 / delta)) / eps;
        QVERIFY2(std::abs(classic->totalSquared - sigmaClassic * sigmaClassic * trace) <
                     1e-8 * sigmaClassic * sigmaClassic * trace,
                 name.c_str());
        auto analytic = expectedLeastSquaresError(*s, *w, MeasurementSpec::gaussian(eps, delta));
        DPX_VERIFY_OK(analytic);
        const double sigma = std::sqrt(analytic->totalSquared / trace);
        DPX_VERIFY_REL(gaussianExactDelta(sigma, eps, d2), delta, 1e-6);
        QVERIFY2(sigma < sigmaClassic, name.c_str());  // the analytic σ is the smallest
        auto v = measurementVariance(*s, MeasurementSpec::gaussian(eps, delta));
        DPX_VERIFY_OK(v);
        DPX_VERIFY_REL(*v, sigma * sigma, 1e-9);
    }
    // Monte Carlo: 4 000 Gaussian measurements of HB on 16 cells + least squares.
    auto hb = hbStrategy({16});
    auto w = Workload::make(*WorkloadSpec::parse("allrange"), {16});
    const auto x = randomVector(16, 9);
    const MeasurementSpec spec = MeasurementSpec::gaussian(1.0, 1e-6);
    auto exact = expectedLeastSquaresError(**hb, *w, spec);
    DPX_VERIFY_OK(exact);
    SimulationRng rng(78, 1);
    const auto [mean, se] = monteCarloSquaredError(**hb, *w, x, spec, rng, 4000);
    DPX_VERIFY_NEAR(mean, exact->totalSquared, 5 * se);
    // Bad (ε, δ) name the problem; Laplace ignores δ.
    DPX_VERIFY_ERROR(expectedLeastSquaresError(**hb, *w, MeasurementSpec::gaussian(1.0, 0.0)), "δ");
    DPX_VERIFY_ERROR(measureStrategy(**hb, x, MeasurementSpec::gaussian(1.0, 1.5), rng), "δ");
    DPX_VERIFY_ERROR(expectedLeastSquaresError(**hb, *w, MeasurementSpec::gaussian(0.0, 1e-6)),
                     "ε");
    MeasurementSpec lap = MeasurementSpec::laplace(1.0);
    lap.delta = 0;
    DPX_VERIFY_OK(expectedLeastSquaresError(**hb, *w, lap));
    QCOMPARE(MeasurementSpec::gaussian(1.0, 1e-6).describe(),
             std::string("Gaussian (analytic), ε = 1, δ = 1e-06"));
}

void TestStrategy::kroneckerTraceOnAHugeWorkload() {
    // AllRange on 128 × 128 (16 384 cells: no dense Gram) with Haar ⊗ Haar: the exact total is
    // σ²·trace(M₁⁻¹G₁)·trace(M₂⁻¹G₂), checked against dense 1-D matrices of the wavelet and of
    // all ranges.
    auto s = haarStrategy({128, 128});
    auto w = Workload::make(*WorkloadSpec::parse("allrange"), {128, 128});
    auto e = expectedLeastSquaresError(**s, *w, 2.0);
    DPX_VERIFY_OK(e);
    auto h1 = haarStrategy({128});
    auto w1 = Workload::make(*WorkloadSpec::parse("allrange"), {128});
    const MatrixXd a = dense(**h1), wd = denseWorkload(*w1);
    const double t1 = (wd * (a.transpose() * a).inverse() * wd.transpose()).trace();
    const double sigma2 = 2 * std::pow((*s)->sensitivityL1() / 2.0, 2);
    DPX_VERIFY_REL(e->totalSquared, sigma2 * t1 * t1, 1e-9);
    // A tree strategy on the same workload has no exact path: a clear message.
    auto hb = hbStrategy({128, 128});
    DPX_VERIFY_ERROR(expectedLeastSquaresError(**hb, *w, 1.0), "Monte Carlo");
    // Identity: trace(WᵀW) = (Σ over ranges of their length)² = (n(n+1)(n+2)/6)².
    auto id = identityStrategy({128, 128});
    auto ei = expectedLeastSquaresError(*id, *w, 1.0);
    DPX_VERIFY_OK(ei);
    const double perDim = 128.0 * 129 * 130 / 6;
    DPX_VERIFY_REL(ei->totalSquared, 2 * perDim * perDim, 1e-12);
}

void TestStrategy::hbBranchingMatchesReference() {
    // ektelo selection.HB.find_best_branching at these domain sizes (computed with the peer):
    // 256 → 16, 1 000 → 32, 1 024 → 32, 4 096 → 16, 65 536 (256 × 256) → 16; small N → N.
    QCOMPARE(hbBranching(256), std::size_t{16});
    QCOMPARE(hbBranching(1000), std::size_t{32});
    QCOMPARE(hbBranching(1024), std::size_t{32});
    QCOMPARE(hbBranching(4096), std::size_t{16});
    QCOMPARE(hbBranching(65536), std::size_t{16});
    QCOMPARE(hbBranching(16), std::size_t{16});
    QCOMPARE(hbBranching(100), std::size_t{100});
    auto hb = hbStrategy({4096});
    QCOMPARE((*hb)->rows(), std::size_t{16 + 256 + 4096});  // root not measured
    QCOMPARE((*hb)->sensitivityL1(), 3.0);
    auto hb2 = hbStrategy({256, 256});
    QCOMPARE((*hb2)->rows(), std::size_t{256 + 65536});  // 16 × 16 children, then the cells
    QCOMPARE((*hb2)->sensitivityL1(), 2.0);
}

void TestStrategy::nnlsSatisfiesKkt() {
    for (const auto& s : smallStrategies()) {
        const std::size_t n = shapeCells(s->shape());
        // Measurements of a sparse vector with large noise: many coordinates at the bound.
        std::vector<double> x(n, 0.0);
        x[0] = 5;
        x[n / 2] = 2;
        std::vector<double> y(s->rows());
        s->measure(x, y);
        SimulationRng rng(3, 3);
        for (double& v : y) {
            v += 4 * rng.normal();
        }
        auto r = nonNegativeLeastSquares(*s, y, {}, 1e-10, 20000);
        DPX_VERIFY_OK(r);
        const MatrixXd a = dense(*s);
        const VectorXd xr = toEigen(*r);
        const VectorXd g = a.transpose() * (a * xr - toEigen(y));
        const double scale = (a.transpose() * toEigen(y)).norm();
        for (std::size_t i = 0; i < n; ++i) {
            const auto k = static_cast<Eigen::Index>(i);
            QVERIFY(xr(k) >= 0);
            if (xr(k) > 1e-9) {
                QVERIFY2(std::abs(g(k)) < 1e-7 * scale, s->describe().c_str());
            } else {
                QVERIFY2(g(k) > -1e-7 * scale, s->describe().c_str());
            }
        }
    }
}

void TestStrategy::badInputs() {
    DPX_VERIFY_ERROR(hierarchicalStrategy(8, 1), "branching");
    DPX_VERIFY_ERROR(hierarchicalStrategy(8, 2, {1, 1}), "4 levels");
    DPX_VERIFY_ERROR(hierarchicalStrategy(8, 2, {1, 1, 1, 0}), "full column rank");
    DPX_VERIFY_ERROR(hierarchicalStrategy(8, 2, {1, -1, 1, 1}), "≥ 0");
    DPX_VERIFY_ERROR(haarStrategy({12}), "power of 2");
    DPX_VERIFY_ERROR(quadtreeStrategy({8}), "2-D");
    DPX_VERIFY_ERROR(kroneckerStrategy({}), "factor");
    auto id = identityStrategy({4});
    SimulationRng rng(1, 1);
    DPX_VERIFY_ERROR(measureLaplace(*id, std::vector<double>(3), 1.0, rng), "3 cells");
    DPX_VERIFY_ERROR(measureLaplace(*id, std::vector<double>(4), 0.0, rng), "epsilon|ε");
    auto w = Workload::make(*WorkloadSpec::parse("prefix"), {5});
    DPX_VERIFY_ERROR(expectedLeastSquaresError(*id, *w, 1.0), "domain");
    DPX_VERIFY_ERROR(nonNegativeLeastSquares(*id, std::vector<double>(2)), "rows");
    DPX_VERIFY_ERROR(nonNegativeLeastSquares(*id, std::vector<double>(4), {}, 0.0), "tolerance");
    // Cancelled before it converges (measurements with negative parts need iterations).
    auto h = hierarchicalStrategy(64, 2);
    std::vector<double> y((*h)->rows());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] = (i % 3 == 0) ? -5.0 : 4.0;
    }
    std::stop_source stop;
    stop.request_stop();
    DPX_VERIFY_ERROR(nonNegativeLeastSquares(**h, y, stop.get_token()), "cancelled");
}

QTEST_APPLESS_MAIN(TestStrategy)
#include "tst_strategy.moc"
