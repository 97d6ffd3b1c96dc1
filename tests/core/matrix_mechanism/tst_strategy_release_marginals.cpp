// Releases through an OPT_M strategy that does not measure the full table (issue #23,
// core/matrix_mechanism/strategy_release.h): the published values are the workload's marginals
// M_b·x̂ of the minimum-norm least-squares solution. References, independent of the code under
// test: K and W built densely (tests/testing/dense_workload.h), Eigen's pseudo-inverse by
// complete orthogonal decomposition for W·K⁺·y and the variances diag(W (KᵀK)⁺ Wᵀ); noise for
// the coverage checks from independent samplers (the difference of two geometric draws for the
// discrete Laplace, Inusah & Kozubowski 2006; a tabulated discrete Gaussian by inverse CDF from
// std::discrete_distribution), and repeated real releases for unbiasedness.
#include <QTest>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "core/intervals/intervals.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/matrix_mechanism/integer_strategy.h"
#include "core/matrix_mechanism/strategy_release.h"
#include "tests/testing/dense_workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpxtest;
using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const DomainShape kShape{2, 3, 2};

// An OPT_M design measuring the marginals `measured` (bit i: attribute i kept) with equal
// weights, rounded at scale q, and its plan for `workload`.
Expected<StrategyReleasePlan> handPlan(const std::string& workload,
                                       const std::vector<std::size_t>& measured,
                                       std::int64_t q = 64) {
    auto w = std::make_shared<const Workload>(makeWorkload(workload, kShape));
    DesignedStrategy d;
    d.kind = DesignTemplate::Marginals;
    d.marginalWeights.assign(std::size_t{1} << kShape.size(), 0.0);
    for (std::size_t a : measured) {
        d.marginalWeights[a] = 1.0 / static_cast<double>(measured.size());
    }
    auto k = roundStrategy(kShape, d, q);
    if (!k) {
        return k.error();
    }
    return planFromIntegerStrategy(w, "hand-made OPT_M", std::move(k).value());
}

StrategyReleasePlan twoWayPlan() {
    // All 2-way marginals of 2 × 3 × 2 measured through its three 2-way marginals: K is
    // rank-deficient (the full table is not measured) and determines the workload.
    auto plan = handPlan("marginals:2", {0b011, 0b101, 0b110});
    if (!plan) {
        qFatal("%s", plan.error().message.c_str());
    }
    return std::move(plan).value();
}

MatrixXd pinv(const MatrixXd& m) {
    return m.completeOrthogonalDecomposition().pseudoInverse();
}

ReleaseSpec specFor(ReleaseMechanism m) {
    ReleaseSpec spec;
    spec.epsilon = "0.5";
    spec.binsDeclared = true;
    spec.source = "test";
    spec.appVersion = "test";
    spec.mechanism = m;
    if (m == ReleaseMechanism::DiscreteGaussian) {
        spec.delta = "1e-6";
    }
    return spec;
}

// One draw of noise from a sampler independent of core/release and core/intervals.
class IndependentNoise {
public:
    IndependentNoise(const StrategyReleaseLaw& law, std::uint64_t seed) : gen_(seed) {
        if (law.gaussian) {
            const double s2 = law.gaussian->sigma2.toDouble();
            const auto half = static_cast<long>(std::ceil(14 * std::sqrt(s2)));
            std::vector<double> w;
            for (long v = -half; v <= half; ++v) {
                w.push_back(std::exp(-static_cast<double>(v * v) / (2 * s2)));
            }
            offset_ = -half;
            table_ = std::discrete_distribution<long>(w.begin(), w.end());
            gaussian_ = true;
        } else {
            geo_ = std::geometric_distribution<long>(1 - law.alpha);
        }
    }
    double operator()() {
        return static_cast<double>(gaussian_ ? table_(gen_) + offset_ : geo_(gen_) - geo_(gen_));
    }

private:
    std::mt19937_64 gen_;
    bool gaussian_ = false;
    long offset_ = 0;
    std::discrete_distribution<long> table_;
    std::geometric_distribution<long> geo_{0.5};
};

}  // namespace

class TestStrategyReleaseMarginals : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void answersMatchTheDensePseudoInverse();
    void designedPlanPublishesMarginals();
    void publishedOrderFollowsTheWorkload();
    void releaseIsUnbiased_data();
    void releaseIsUnbiased();
    void intervalsCoverWithIndependentNoise_data();
    void intervalsCoverWithIndependentNoise();
    void refusals();
};

// W·x̂ = W·K⁺·y and the per-answer variance forms diag(W (KᵀK)⁺ Wᵀ) against Eigen.
void TestStrategyReleaseMarginals::answersMatchTheDensePseudoInverse() {
    const StrategyReleasePlan plan = twoWayPlan();
    QCOMPARE(plan.published, StrategyPublished::WorkloadMarginals);
    QVERIFY(!plan.strategy->fullColumnRank());
    const MatrixXd K = denseStrategy(*plan.strategy->linear);
    const MatrixXd W = denseWorkload(*plan.workload);
    // The reference's premise: K is rank-deficient and W's rows lie in its row space.
    Eigen::FullPivLU<MatrixXd> lu(K);
    QVERIFY(lu.rank() < K.cols());
    const MatrixXd Kp = pinv(K);
    QVERIFY(((W * Kp * K - W).array().abs() < 1e-9).all());
    // 4 + 4 + 6 marginal cells of 2 × 3 × 2: {0,1}: 6, {0,2}: 4, {1,2}: 6.
    QCOMPARE(strategyPublishedCount(plan), static_cast<std::size_t>(W.rows()));
    QCOMPARE(strategyPublishedCount(plan), std::size_t{16});

    const std::size_t rows = plan.strategy->rows();
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> u(-50, 250);
    for (int t = 0; t < 5; ++t) {
        std::vector<double> y(rows);
        VectorXd yd(static_cast<Index>(rows));
        for (std::size_t i = 0; i < rows; ++i) {
            y[i] = std::round(u(gen));  // not of the form K·x: least squares must project
            yd(static_cast<Index>(i)) = y[i];
        }
        std::vector<double> out(strategyPublishedCount(plan));
        strategyEstimates(plan, y, out);
        const VectorXd ref = W * Kp * yd;
        for (Index q = 0; q < ref.size(); ++q) {
            QVERIFY2(std::fabs(out[static_cast<std::size_t>(q)] - ref(q)) <=
                         1e-9 * (1 + std::fabs(ref(q))),
                     qPrintable(QStringLiteral("answer %1: %2 vs %3")
                                    .arg(q)
                                    .arg(out[static_cast<std::size_t>(q)])
                                    .arg(ref(q))));
        }
    }
    const MatrixXd V = W * pinv(K.transpose() * K) * W.transpose();
    QCOMPARE(plan.valueForms.size(), static_cast<std::size_t>(V.rows()));
    for (Index q = 0; q < V.rows(); ++q) {
        QVERIFY2(
            std::fabs(plan.valueForms[static_cast<std::size_t>(q)] - V(q, q)) <= 1e-9 * V(q, q),
            qPrintable(QStringLiteral("answer %1: %2 vs %3")
                           .arg(q)
                           .arg(plan.valueForms[static_cast<std::size_t>(q)])
                           .arg(V(q, q))));
    }
    // The stated RMSE is the exact one on the workload: √(v·trace(W (KᵀK)⁺ Wᵀ)/q).
    auto law = strategyReleaseLaw(specFor(ReleaseMechanism::DiscreteLaplace), plan);
    QVERIFY2(law.hasValue(), law ? "" : law.error().message.c_str());
    const double rmse = std::sqrt(law->rowVariance * V.trace() / static_cast<double>(V.rows()));
    QVERIFY2(std::fabs(law->expectedRmse / rmse - 1) < 1e-8,
             qPrintable(QStringLiteral("%1 vs %2").arg(law->expectedRmse).arg(rmse)));
    QCOMPARE(law->intervals.halfWidths.size(), std::size_t{16});
    QVERIFY(law->intervals.sentence.find("each published marginal count") != std::string::npos);
}

// The designer's OPT_M optimum for all 1-way marginals of 2 × 3 × 2 and all 2-way marginals of
// 2 × 2 × 2 × 2 × 3 leaves the full table out; both were refused before and now publish the
// workload's marginals. (For all 2-way marginals of 2 × 3 × 2 the optimum measures the full
// table, whose cells are then published as before.)
void TestStrategyReleaseMarginals::designedPlanPublishesMarginals() {
    const std::vector<std::pair<const char*, DomainShape>> cases{{"marginals:1", kShape},
                                                                 {"marginals:2", {2, 2, 2, 2, 3}}};
    for (const auto& [spec, shape] : cases) {
        auto w = std::make_shared<const Workload>(makeWorkload(spec, shape));
        StrategyOptimizeOptions o;
        o.restarts = 2;
        auto plan = planStrategyRelease(w, DesignTemplate::Marginals, {}, o);
        QVERIFY2(plan.hasValue(), plan ? "" : plan.error().message.c_str());
        QVERIFY2(plan->strategy->marginalWeights.back() == 0, spec);
        QCOMPARE(plan->published, StrategyPublished::WorkloadMarginals);
        QCOMPARE(strategyPublishedCount(*plan), static_cast<std::size_t>(w->queryCount()));
        const MatrixXd K = denseStrategy(*plan->strategy->linear);
        const MatrixXd W = denseWorkload(*w);
        const MatrixXd V = W * pinv(K.transpose() * K) * W.transpose();
        for (Index q = 0; q < V.rows(); ++q) {
            QVERIFY(std::fabs(plan->valueForms[static_cast<std::size_t>(q)] - V(q, q)) <=
                    1e-9 * V(q, q));
        }
    }
}

// A union lists each marginal once, in the order of its first query; identity and total are
// the full and the empty marginal.
void TestStrategyReleaseMarginals::publishedOrderFollowsTheWorkload() {
    auto p = handPlan("marginals:2,1", {0b011, 0b101, 0b110});
    QVERIFY2(p.hasValue(), p ? "" : p.error().message.c_str());
    QCOMPARE(p->publishedMarginals,
             (std::vector<std::size_t>{0b011, 0b101, 0b110, 0b001, 0b010, 0b100}));
    auto u = handPlan("marginals:1 + 2*total + marginals:1,2", {0b011, 0b101, 0b110});
    QVERIFY2(u.hasValue(), u ? "" : u.error().message.c_str());
    QCOMPARE(u->publishedMarginals,
             (std::vector<std::size_t>{0b001, 0b010, 0b100, 0b000, 0b011, 0b101, 0b110}));
    QCOMPARE(strategyPublishedCount(*u), std::size_t{2 + 3 + 2 + 1 + 6 + 4 + 6});
    // The values are the marginals themselves (no union weight), against Eigen: the total is
    // the sum of x̂'s cells.
    const MatrixXd K = denseStrategy(*u->strategy->linear);
    const std::size_t rows = u->strategy->rows();
    std::vector<double> y(rows);
    VectorXd yd(static_cast<Index>(rows));
    for (std::size_t i = 0; i < rows; ++i) {
        y[i] = static_cast<double>((i * 37) % 101);
        yd(static_cast<Index>(i)) = y[i];
    }
    std::vector<double> out(strategyPublishedCount(*u));
    strategyEstimates(*u, y, out);
    const VectorXd xhat = pinv(K) * yd;
    QVERIFY(std::fabs(out[7] - xhat.sum()) <= 1e-9 * (1 + std::fabs(xhat.sum())));
    // Attribute 0's first bin: cells 0 … 5 of the C order.
    QVERIFY(std::fabs(out[0] - xhat.head(6).sum()) <= 1e-9 * (1 + std::fabs(out[0])));
}

void TestStrategyReleaseMarginals::releaseIsUnbiased_data() {
    QTest::addColumn<int>("mechanism");
    QTest::newRow("discrete-laplace") << static_cast<int>(ReleaseMechanism::DiscreteLaplace);
    QTest::newRow("discrete-gaussian") << static_cast<int>(ReleaseMechanism::DiscreteGaussian);
}

// Repeated real releases (exact samplers on OS randomness): every published marginal count's
// mean error within 4.5 standard errors of 0, its mean squared error within 4.5 standard errors
// of the stated variance, the statement complete.
void TestStrategyReleaseMarginals::releaseIsUnbiased() {
    QFETCH(int, mechanism);
    const StrategyReleasePlan plan = twoWayPlan();
    const ReleaseSpec spec = specFor(static_cast<ReleaseMechanism>(mechanism));
    auto law = strategyReleaseLaw(spec, plan);
    QVERIFY2(law.hasValue(), law ? "" : law.error().message.c_str());
    const std::vector<std::int64_t> counts{5, 0, 12, 40, 3, 3, 8, 100, 0, 0, 7, 19};
    auto h = Histogram::create(counts);
    QVERIFY(h.hasValue());
    std::vector<double> x(counts.begin(), counts.end());
    auto truth = plan.workload->answers(x);
    QVERIFY(truth.hasValue());
    const std::size_t n = truth->size();
    ReleaseRandomness rnd;
    const int runs = 1000;
    std::vector<double> mean(n, 0.0), sq(n, 0.0), fourth(n, 0.0);
    for (int r = 0; r < runs; ++r) {
        auto rel = releaseThroughStrategy(spec, plan, *h, rnd);
        QVERIFY2(rel.hasValue(), rel ? "" : rel.error().message.c_str());
        QCOMPARE(rel->values.size(), n);
        for (std::size_t q = 0; q < n; ++q) {
            const double e = rel->values[q] - (*truth)[q];
            mean[q] += e / runs;
            sq[q] += e * e / runs;
            fourth[q] += e * e * e * e / runs;
        }
        if (r == 0) {
            const auto& st = *rel->metadata.strategy;
            QCOMPARE(st.published, std::string("workload answers"));
            QCOMPARE(st.publishedMarginals.size(), std::size_t{3});
            QCOMPARE(st.publishedMarginals[1].attributes, (std::vector<std::size_t>{0, 2}));
            QCOMPARE(st.publishedMarginals[1].values, std::uint64_t{4});
            QCOMPARE(rel->metadata.intervals->halfWidths.size(), n);
            QCOMPARE(st.measurements.size(), plan.strategy->rows());
            QVERIFY(st.inference.find("K⁺y") != std::string::npos);
            // The charge is that of measuring K·x: Δ1 = Δ1(K) for add/remove with cap 1.
            QCOMPARE(rel->metadata.l1Sensitivity, plan.strategy->l1);
        }
    }
    for (std::size_t q = 0; q < n; ++q) {
        const double var = law->rowVariance * plan.valueForms[q];
        const double se = std::sqrt(var / runs);
        QVERIFY2(std::fabs(mean[q]) <= 4.5 * se,
                 qPrintable(QStringLiteral("value %1: %2 (se %3)").arg(q).arg(mean[q]).arg(se)));
        // The mean squared error within 4.5 of its standard errors, √((E e⁴ − (E e²)²)/runs) from
        // the runs themselves: a fixed 35 % (about 2.7 standard errors for a count measured once
        // with discrete Laplace noise, whose kurtosis is 6) failed about one run in fifty.
        // With 1 000 runs that is at most ±32 % for Laplace noise, ±20 % for Gaussian: a
        // variance stated 1.5 times too small or too large still fails.
        const double seSq = std::sqrt(std::max(fourth[q] - sq[q] * sq[q], 0.0) / runs);
        QVERIFY2(
            std::fabs(sq[q] - var) <= 4.5 * seSq,
            qPrintable(
                QStringLiteral("value %1: %2 vs %3 (se %4)").arg(q).arg(sq[q]).arg(var).arg(seSq)));
    }
}

void TestStrategyReleaseMarginals::intervalsCoverWithIndependentNoise_data() {
    releaseIsUnbiased_data();
}

// Per value and all at once, with noise from an independent sampler mapped by the dense W·K⁺:
// each published marginal count's coverage at least the level (within 4.5 standard errors), and
// the intervals never wider than the bound valid for any coefficients.
void TestStrategyReleaseMarginals::intervalsCoverWithIndependentNoise() {
    QFETCH(int, mechanism);
    const StrategyReleasePlan plan = twoWayPlan();
    const ReleaseSpec spec = specFor(static_cast<ReleaseMechanism>(mechanism));
    auto law = strategyReleaseLaw(spec, plan);
    QVERIFY2(law.hasValue(), law ? "" : law.error().message.c_str());
    const ReleaseIntervalStatement& iv = law->intervals;
    const CellNoise noise = law->gaussian
                                ? CellNoise::discreteGaussian(law->gaussian->sigma2.toDouble())
                                : CellNoise{CellNoiseKind::DiscreteLaplace, law->alpha};
    auto bound = linearEstimateInterval(noise, spec.confidenceLevel);
    QVERIFY(bound.hasValue());
    const std::size_t n = plan.valueForms.size();
    double maxScale = 0;
    for (std::size_t q = 0; q < n; ++q) {
        QVERIFY(iv.halfWidths[q] <= bound->halfWidth * std::sqrt(plan.valueForms[q]) * (1 + 1e-12));
        maxScale = std::max(maxScale, std::sqrt(plan.valueForms[q]));
    }
    const MatrixXd M = denseWorkload(*plan.workload) * pinv(denseStrategy(*plan.strategy->linear));
    IndependentNoise draw(*law, 20261128 + static_cast<std::uint64_t>(mechanism));
    const int trials = 6000;
    std::vector<int> covered(n, 0);
    int allCovered = 0;
    VectorXd z(M.cols());
    for (int t = 0; t < trials; ++t) {
        for (Index i = 0; i < z.size(); ++i) {
            z(i) = draw();
        }
        const VectorXd e = M * z;
        bool all = true;
        for (std::size_t q = 0; q < n; ++q) {
            const double a = std::fabs(e(static_cast<Index>(q)));
            covered[q] += a <= iv.halfWidths[q];
            all = all && a <= iv.simultaneousHalfWidth * std::sqrt(plan.valueForms[q]) / maxScale;
        }
        allCovered += all;
    }
    const double level = spec.confidenceLevel;
    const double se = std::sqrt(level * (1 - level) / trials);
    for (std::size_t q = 0; q < n; ++q) {
        QVERIFY2(covered[q] >= (level - 4.5 * se) * trials,
                 qPrintable(QStringLiteral("value %1: %2").arg(q).arg(covered[q])));
    }
    QVERIFY2(allCovered >= (level - 4.5 * se) * trials, qPrintable(QString::number(allCovered)));
}

void TestStrategyReleaseMarginals::refusals() {
    // Only the 1-way marginals measured: K is rank-deficient and the 2-way marginals are not in
    // its row space (checked densely first).
    auto missed = handPlan("marginals:2", {0b001, 0b010, 0b100});
    QVERIFY(!missed);
    QVERIFY2(missed.error().message.find("the workload's marginal over attributes 1 and 2 is not "
                                         "inside any measured marginal") != std::string::npos,
             missed.error().message.c_str());
    QVERIFY(missed.error().message.find("biased") != std::string::npos);
    {
        DesignedStrategy d;
        d.kind = DesignTemplate::Marginals;
        d.marginalWeights = {0, 1.0 / 3, 1.0 / 3, 0, 1.0 / 3, 0, 0, 0};
        auto k = roundStrategy(kShape, d, 64);
        QVERIFY(k.hasValue());
        const MatrixXd K = denseStrategy(*k->linear);
        const MatrixXd W = denseWorkload(makeWorkload("marginals:2", kShape));
        QVERIFY((W * pinv(K) * K - W).cwiseAbs().maxCoeff() > 0.1);
    }
    // A workload that is not a set of marginals, through a rank-deficient OPT_M strategy.
    auto ranges = handPlan("allrange", {0b011, 0b101, 0b110});
    QVERIFY(!ranges);
    QVERIFY2(ranges.error().message.find("is not a set of marginals") != std::string::npos,
             ranges.error().message.c_str());
    // The grand total is inside every marginal: a 1-way design publishes it.
    auto total = handPlan("total", {0b001});
    QVERIFY2(total.hasValue(), total ? "" : total.error().message.c_str());
    QCOMPARE(strategyPublishedCount(*total), std::size_t{1});
    // Shapes must agree.
    auto w = std::make_shared<const Workload>(makeWorkload("marginals:1", {3, 3}));
    DesignedStrategy d;
    d.kind = DesignTemplate::Marginals;
    d.marginalWeights = {0, 0.5, 0.5, 0, 0, 0, 0, 0};
    auto k = roundStrategy(kShape, d, 64);
    QVERIFY(k.hasValue());
    auto wrong = planFromIntegerStrategy(w, "x", std::move(k).value());
    QVERIFY(!wrong && wrong.error().message.find("designed for 2 × 3 × 2") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestStrategyReleaseMarginals)
#include "tst_strategy_release_marginals.moc"
