// Releases through a designed strategy (issue #23): the integer rounding K = ⌊Q·A⌋
// (core/matrix_mechanism/integer_strategy.h), the interval bound for linear estimates
// (core/intervals: linearEstimateInterval) and the release itself
// (core/matrix_mechanism/strategy_release.h). References, independent of the code under test:
// K built densely from the design's own dense matrix and std::floor; Eigen's inverse of KᵀK for
// the exact error and the per-cell variances; the exact law of one noise draw (the bound must not
// undercut it); coverage and error measured by simulation and by repeated real releases.
#include <QTest>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "core/base/simulation_rng.h"
#include "core/intervals/intervals.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/matrix_mechanism/integer_strategy.h"
#include "core/matrix_mechanism/strategy_release.h"
#include "core/release/exact_samplers.h"
#include "tests/testing/dense_workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpxtest;
using Eigen::Index;
using Eigen::MatrixXd;

namespace {

DesignedStrategy design(const Workload& w, DesignTemplate t) {
    StrategyOptimizeOptions o;
    o.restarts = 2;
    auto d = designStrategy(w, t, {}, o);
    if (!d) {
        qFatal("%s", d.error().message.c_str());
    }
    return std::move(d).value();
}

// Checks K against ⌊Q·A⌋ built from the design's dense matrix, its column norms, its exact
// integer product and its error against Eigen. `floorOfDesign`: the rounding is entry by entry
// of A (products: factor by factor, so the product of floors, not the floor of the product).
void checkRounding(const Workload& w, const DesignedStrategy& d, std::int64_t q) {
    auto k = roundStrategy(w.shape(), d, q);
    QVERIFY2(k.hasValue(), k ? "" : k.error().message.c_str());
    const MatrixXd K = denseStrategy(*k->linear);
    // Integer, non-negative entries.
    QVERIFY(((K.array() - K.array().round()).abs() < 1e-7).all());
    QVERIFY((K.array() >= -1e-9).all());
    // Column norms and the sensitivities.
    const auto l1 = k->columnL1();
    const auto l2 = k->columnL2Squared();
    std::int64_t maxL1 = 0, maxL2 = 0;
    for (Index j = 0; j < K.cols(); ++j) {
        QCOMPARE(static_cast<std::int64_t>(std::llround(K.col(j).sum())),
                 l1[static_cast<std::size_t>(j)]);
        QCOMPARE(static_cast<std::int64_t>(std::llround(K.col(j).squaredNorm())),
                 l2[static_cast<std::size_t>(j)]);
        maxL1 = std::max(maxL1, l1[static_cast<std::size_t>(j)]);
        maxL2 = std::max(maxL2, l2[static_cast<std::size_t>(j)]);
    }
    QCOMPARE(k->l1, maxL1);
    QCOMPARE(k->l2Squared, maxL2);
    QVERIFY(k->l1 <= q + 1);  // ⌊Q·A⌋ with ‖A‖₁ = 1 (rounding of Q^{1/k} per factor aside)
    // A one-dimensional p-Identity: K is exactly ⌊Q·A⌋ of the design's own dense matrix.
    if (d.kind == DesignTemplate::PIdentity && w.shape().size() == 1) {
        const MatrixXd A = denseStrategy(*d.strategy);
        const MatrixXd F = (static_cast<double>(q) * A).array().floor().matrix();
        QVERIFY(((K - F).array().abs() < 1e-7).all());
    }
    // y = K·x exactly.
    const std::size_t cells = shapeCells(w.shape());
    const auto xs = uniformVector(cells, 5, 0, 1000);
    std::vector<std::int64_t> x(cells);
    Eigen::VectorXd xd(static_cast<Index>(cells));
    for (std::size_t j = 0; j < cells; ++j) {
        x[j] = static_cast<std::int64_t>(xs[j]);
        xd(static_cast<Index>(j)) = static_cast<double>(x[j]);
    }
    auto y = k->measure(x);
    QVERIFY(y.hasValue());
    const Eigen::VectorXd yd = K * xd;
    QCOMPARE(static_cast<Index>(y->size()), yd.size());
    for (Index i = 0; i < yd.size(); ++i) {
        QCOMPARE((*y)[static_cast<std::size_t>(i)], static_cast<std::int64_t>(std::llround(yd(i))));
    }
    // The error: trace((KᵀK)⁻¹WᵀW)·Δ1(K)² against Eigen, and the per-cell forms.
    const MatrixXd W = denseWorkload(w);
    const MatrixXd gInv = (K.transpose() * K).inverse();
    const double dense = (W * gInv * W.transpose()).trace() * static_cast<double>(k->l1 * k->l1);
    auto f = integerStrategyObjective(*k, w);
    QVERIFY2(f.hasValue(), f ? "" : f.error().message.c_str());
    QVERIFY2(std::fabs(*f - dense) <= 1e-7 * dense,
             qPrintable(QStringLiteral("%1 vs %2").arg(*f).arg(dense)));
    auto forms = k->cellVarianceForms();
    QVERIFY(forms.hasValue());
    for (std::size_t j = 0; j < cells; ++j) {
        const double ref = gInv(static_cast<Index>(j), static_cast<Index>(j));
        QVERIFY(std::fabs((*forms)[j] - ref) <= 1e-8 * ref);
    }
    // The row count from the structure alone (a stack's parts keep no implicit matrix).
    const std::size_t rows = k->rows();
    QCOMPARE(rows, static_cast<std::size_t>(K.rows()));
    k->linear.reset();
    QCOMPARE(k->rows(), rows);
}

}  // namespace

class TestStrategyRelease : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundingOfEveryTemplate();
    void roundingConvergesToTheDesign();
    void boundNeverUndercutsOneDraw();
    void boundDominatesTheMomentGeneratingFunction();
    void boundCoversWeightedSums();
    void releaseIsUnbiasedAndCovers_data();
    void releaseIsUnbiasedAndCovers();
    void gaussianSensitivityAndCalibration();
    void unionReleaseListsItsParts();
    void releaseOfATable();
    void simulatedIntervalsAreSharperAndCover();
    void refusals();
};

void TestStrategyRelease::roundingOfEveryTemplate() {
    const Workload r1 = makeWorkload("allrange", {24});
    checkRounding(r1, design(r1, DesignTemplate::PIdentity), 64);
    const Workload r2 = makeWorkload("allrange", {6, 5});
    checkRounding(r2, design(r2, DesignTemplate::PIdentity), 256);
    const Workload m = makeWorkload("marginals:1,3", {2, 3, 2});
    const DesignedStrategy dm = design(m, DesignTemplate::Marginals);
    checkRounding(m, dm, 1000);
    const Workload u = makeWorkload("prefix + 0.5*identity", {12});
    checkRounding(u, design(u, DesignTemplate::Union), 128);
    // Two parts in 2-D (the forms by simultaneous diagonalisation) and three parts (one solve
    // per cell): both against Eigen's dense inverse in checkRounding.
    // The scale: the one the release would choose.
    for (const auto& [spec, shape] : std::vector<std::pair<std::string, DomainShape>>{
             {"allrange + 0.5*identity", {6, 5}}, {"prefix + 0.5*identity + allrange", {10}}}) {
        const Workload uw = makeWorkload(spec, shape);
        const DesignedStrategy du = design(uw, DesignTemplate::Union);
        auto chosen = chooseIntegerStrategy(uw, du);
        QVERIFY2(chosen.hasValue(), (spec + ": " + (chosen ? "" : chosen.error().message)).c_str());
        QCOMPARE(chosen->parts.size(), du.parts.size());
        checkRounding(uw, du, chosen->scale);
    }
}

void TestStrategyRelease::roundingConvergesToTheDesign() {
    const Workload w = makeWorkload("allrange", {64});
    const DesignedStrategy d = design(w, DesignTemplate::PIdentity);
    double previous = INFINITY;
    for (std::int64_t q : {16, 256, 4096}) {
        auto k = roundStrategy(w.shape(), d, q);
        QVERIFY(k.hasValue());
        auto f = integerStrategyObjective(*k, w);
        QVERIFY(f.hasValue());
        // Never much below the optimum (the optimiser's local optimum may be beaten slightly),
        // and approaching it.
        QVERIFY(*f >= 0.99 * d.objective);
        QVERIFY(*f <= previous * 1.001);
        previous = *f;
    }
    QVERIFY(previous <= 1.01 * d.objective);
    auto chosen = chooseIntegerStrategy(w, d, 0.005);
    QVERIFY(chosen.hasValue());
    QVERIFY(chosen->roundedObjective <= 1.005 * d.objective);
    QCOMPARE(chosen->designObjective, d.objective);
}

void TestStrategyRelease::boundNeverUndercutsOneDraw() {
    // a = e_1: the bound must be at least the exact quantile of one draw.
    for (double level : {0.9, 0.95, 0.99}) {
        for (double alpha : {0.2, 0.7, 0.97}) {
            const CellNoise n{CellNoiseKind::DiscreteLaplace, alpha};
            auto b = linearEstimateInterval(n, level);
            auto exact = cellInterval(n, level);
            QVERIFY(b && exact);
            QVERIFY(b->halfWidth >= exact->halfWidth - 1);  // exact: smallest integer
            QVERIFY(n.absSurvival(std::floor(b->halfWidth)) <= 1 - level + 1e-12);
        }
        const CellNoise lap{CellNoiseKind::Laplace, 3.0};
        auto b = linearEstimateInterval(lap, level);
        QVERIFY(b->halfWidth >= 3.0 * std::log(1 / (1 - level)));
        // The Chernoff slack on one Laplace draw: 2.18× at 90 %, 1.95× at 95 %, 1.67× at 99 %.
        QVERIFY(b->halfWidth <= 2.2 * 3.0 * std::log(1 / (1 - level)));
        const CellNoise g{CellNoiseKind::Gaussian, 2.0};
        auto bg = linearEstimateInterval(g, level);
        auto eg = cellInterval(g, level);
        QVERIFY(std::fabs(bg->halfWidth - eg->halfWidth) < 1e-9 * eg->halfWidth);
    }
}

void TestStrategyRelease::boundDominatesTheMomentGeneratingFunction() {
    // Π_i M(λa_i) ≤ M(λ‖a‖₂) for the discrete Laplace (the domination the bound rests on), by
    // direct evaluation of both sides for random a and λ below ln(1/α)/‖a‖₂.
    SimulationRng rng(3, 1);
    for (int t = 0; t < 2000; ++t) {
        const double alpha = 0.05 + 0.9 * rng.uniform();
        const std::size_t m = 1 + static_cast<std::size_t>(rng.uniform() * 6);
        std::vector<double> a(m);
        double norm2 = 0;
        for (double& v : a) {
            v = rng.uniform() * 4 - 2;
            norm2 += v * v;
        }
        const double lambda = rng.uniform() * (-std::log(alpha)) / std::sqrt(norm2) * 0.999;
        const auto M = [&](double u) {
            return (1 - alpha) * (1 - alpha) /
                   ((1 - alpha * std::exp(u)) * (1 - alpha * std::exp(-u)));
        };
        double product = 1;
        for (double v : a) {
            product *= M(lambda * v);
        }
        QVERIFY(product <= M(lambda * std::sqrt(norm2)) * (1 + 1e-12));
    }
}

void TestStrategyRelease::boundCoversWeightedSums() {
    // Coverage by simulation of Σ a_i Z_i at ±‖a‖·H (never below the level beyond the Monte
    // Carlo error).
    SimulationRng rng(11, 2);
    const std::vector<double> a{0.7, -0.2, 0.45, 0.1, -0.05, 0.3};
    double norm = 0;
    for (double v : a) {
        norm += v * v;
    }
    norm = std::sqrt(norm);
    const int trials = 40000;
    for (const CellNoise& n :
         {CellNoise{CellNoiseKind::DiscreteLaplace, 0.8}, CellNoise{CellNoiseKind::Laplace, 2.0},
          CellNoise::discreteGaussian(6.0)}) {
        const double level = 0.95;
        auto b = linearEstimateInterval(n, level);
        QVERIFY(b.hasValue());
        int covered = 0;
        for (int t = 0; t < trials; ++t) {
            double s = 0;
            for (double v : a) {
                s += v * sampleCellNoise(n, rng);
            }
            covered += std::fabs(s) <= norm * b->halfWidth;
        }
        const double se = std::sqrt(level * (1 - level) / trials);
        QVERIFY2(covered >= (level - 3 * se) * trials,
                 qPrintable(QString::fromStdString(n.describe())));
    }
}

void TestStrategyRelease::releaseIsUnbiasedAndCovers_data() {
    QTest::addColumn<int>("mechanism");
    QTest::newRow("discrete-laplace") << static_cast<int>(ReleaseMechanism::DiscreteLaplace);
    QTest::newRow("discrete-gaussian") << static_cast<int>(ReleaseMechanism::DiscreteGaussian);
}

void TestStrategyRelease::releaseIsUnbiasedAndCovers() {
    QFETCH(int, mechanism);
    auto w = std::make_shared<const Workload>(makeWorkload("allrange", {16}));
    StrategyOptimizeOptions o;
    o.restarts = 2;
    auto plan = planStrategyRelease(w, DesignTemplate::PIdentity, {}, o);
    QVERIFY2(plan.hasValue(), plan ? "" : plan.error().message.c_str());
    std::vector<std::int64_t> counts{5, 0, 12, 40, 3, 3, 8, 100, 0, 0, 7, 19, 2, 1, 60, 9};
    auto h = Histogram::create(counts);
    QVERIFY(h.hasValue());
    ReleaseSpec spec;
    spec.epsilon = "0.5";
    spec.binsDeclared = true;
    spec.source = "test";
    spec.appVersion = "test";
    spec.mechanism = static_cast<ReleaseMechanism>(mechanism);
    if (spec.mechanism == ReleaseMechanism::DiscreteGaussian) {
        spec.delta = "1e-6";
    }
    auto law = strategyReleaseLaw(spec, *plan);
    QVERIFY(law.hasValue());
    ReleaseRandomness rnd;
    const int runs = 300;
    std::vector<double> meanError(16, 0.0);
    int covered = 0, cellsSeen = 0;
    double sq = 0;
    const MatrixXd W = denseWorkload(*w);
    Eigen::VectorXd x(16);
    for (Index j = 0; j < 16; ++j) {
        x(j) = static_cast<double>(counts[static_cast<std::size_t>(j)]);
    }
    for (int r = 0; r < runs; ++r) {
        auto rel = releaseThroughStrategy(spec, *plan, *h, rnd);
        QVERIFY2(rel.hasValue(), rel ? "" : rel.error().message.c_str());
        Eigen::VectorXd xh(16);
        for (std::size_t j = 0; j < 16; ++j) {
            const double e = rel->values[j] - static_cast<double>(counts[j]);
            meanError[j] += e / runs;
            covered += std::fabs(e) <= rel->metadata.intervals->halfWidths[j];
            ++cellsSeen;
            xh(static_cast<Index>(j)) = rel->values[j];
        }
        sq += (W * (xh - x)).squaredNorm();
        if (r == 0) {
            const auto& st = *rel->metadata.strategy;
            QCOMPARE(st.measurements.size(), plan->strategy->rows());
            QCOMPARE(rel->metadata.l1Sensitivity, plan->strategy->l1);
            QVERIFY(rel->metadata.intervals->sentence.find("95 %") != std::string::npos);
        }
    }
    // Unbiased: every cell's mean error within 4.5 standard errors of 0.
    for (std::size_t j = 0; j < 16; ++j) {
        const double se = std::sqrt(law->rowVariance * plan->valueForms[j] / runs);
        QVERIFY2(
            std::fabs(meanError[j]) <= 4.5 * se,
            qPrintable(QStringLiteral("cell %1: %2 (se %3)").arg(j).arg(meanError[j]).arg(se)));
    }
    // Coverage (the bound is conservative: at least the level, pooled over cells).
    QVERIFY(covered >= 0.95 * cellsSeen - 3 * std::sqrt(0.05 * 0.95 * cellsSeen));
    // The workload's RMSE as stated: the empirical mean squared error within 20 %.
    const double rmse = std::sqrt(sq / runs / static_cast<double>(w->queryCount()));
    QVERIFY2(std::fabs(rmse / law->expectedRmse - 1) < 0.2,
             qPrintable(QStringLiteral("%1 vs %2").arg(rmse).arg(law->expectedRmse)));
}

// Δ2 of a strategy release by brute force over every neighbouring pair of a small domain (the
// bound cap²·Δ2(K)², 2·cap²·Δ2(K)² for replace, derived in strategy_release.h), and the
// calibration: ρ = Δ2²/(2σ²) exactly, δ of CKS Cor. 13 at that ρ within the target, σ² the
// smallest six-digit value that meets it (one step below does not).
void TestStrategyRelease::gaussianSensitivityAndCalibration() {
    auto w = std::make_shared<const Workload>(makeWorkload("allrange", {6}));
    StrategyOptimizeOptions o;
    o.restarts = 1;
    auto plan = planStrategyRelease(w, DesignTemplate::PIdentity, {}, o);
    QVERIFY(plan.hasValue());
    const MatrixXd K = denseStrategy(*plan->strategy->linear);
    const Index n = K.cols();
    // Every person's rows: a non-negative vector of L1 norm ≤ cap (cap 2: all multisets).
    std::vector<Eigen::VectorXd> people{Eigen::VectorXd::Zero(n)};
    for (Index i = 0; i < n; ++i) {
        for (Index j = i; j < n; ++j) {
            Eigen::VectorXd u = Eigen::VectorXd::Zero(n);
            u(i) += 1;
            people.push_back(u);
            u(j) += 1;
            people.push_back(u);
        }
    }
    double addRemove = 0, replace = 0;
    for (const auto& u : people) {
        addRemove = std::max(addRemove, (K * u).squaredNorm());
        for (const auto& v : people) {
            replace = std::max(replace, (K * (u - v)).squaredNorm());
        }
    }
    const auto l2 = static_cast<double>(plan->strategy->l2Squared);
    QCOMPARE(addRemove, 4 * l2);  // reached: both rows in the cell of the largest column
    QVERIFY(replace <= 2 * 4 * l2 + 1e-9);
    QVERIFY(replace > 4 * l2);  // the replace bound is not the add/remove one

    for (auto rel : {Neighbouring::AddRemove, Neighbouring::Replace}) {
        ReleaseSpec spec;
        spec.mechanism = ReleaseMechanism::DiscreteGaussian;
        spec.epsilon = "1";
        spec.delta = "1e-6";
        spec.binsDeclared = true;
        spec.source = "t";
        spec.appVersion = "t";
        spec.relation = rel;
        spec.contributionCap = 2;
        auto law = strategyReleaseLaw(spec, *plan);
        QVERIFY2(law.hasValue(), law ? "" : law.error().message.c_str());
        QVERIFY(law->gaussian.has_value());
        const std::int64_t factor = rel == Neighbouring::AddRemove ? 4 : 8;
        QCOMPARE(law->l2Squared, factor * plan->strategy->l2Squared);
        const Rational& s2 = law->gaussian->sigma2;
        const Rational rho = Rational::fraction(BigInt(law->l2Squared) * s2.denominator(),
                                                BigInt(2) * s2.numerator())
                                 .value();
        QCOMPARE(law->gaussian->rho.toString(), rho.toString());
        const Rational eps = Rational::integer(1);
        auto d = zcdpDeltaUpperBound(rho, eps);
        QVERIFY(d.hasValue() && *d <= 1e-6);
        // Six significant digits: the σ² one unit in the sixth digit lower misses δ.
        const double s2d = s2.toDouble();
        const double step = std::pow(10.0, std::floor(std::log10(s2d)) - 5);
        const double rhoBelow = static_cast<double>(law->l2Squared) / (2 * (s2d - step));
        auto dBelow = zcdpDeltaUpperBound(Rational::fromDouble(rhoBelow).value(), eps);
        QVERIFY(dBelow.hasValue() && *dBelow > 1e-6 * (1 - 1e-9));
        // The row variance is the discrete Gaussian's own (CellNoise), at most σ² (CKS Prop. 5).
        QCOMPARE(law->rowVariance, CellNoise::discreteGaussian(s2d).variance());
        QVERIFY(law->rowVariance <= s2d * (1 + 1e-12));  // equal up to rounding at this σ²
        // The cost charged: ρ of the calibration, δ and ε as typed.
        auto cost = strategyReleaseCost(spec, *plan);
        QVERIFY(cost.hasValue());
        QCOMPARE(cost->rho, rho.toString());
        QCOMPARE(cost->delta, std::string("1e-6"));
        QCOMPARE(cost->sigma2, s2.toString());
        // The release states all of it.
        auto h = Histogram::create({4, 0, 9, 1, 30, 2});
        ReleaseRandomness rnd;
        auto r = releaseThroughStrategy(spec, *plan, *h, rnd);
        QVERIFY2(r.hasValue(), r ? "" : r.error().message.c_str());
        QCOMPARE(r->metadata.mechanism, std::string("discrete-gaussian"));
        QCOMPARE(r->metadata.rho, rho.toString());
        QCOMPARE(r->metadata.l2SensitivitySquared, law->l2Squared);
        QCOMPARE(r->metadata.noiseParameter, "sigma^2 = " + s2.toString());
        QVERIFY(r->metadata.guarantee.find("(1, 1e-6)-differential privacy") != std::string::npos);
        QVERIFY(r->metadata.samplerAlgorithm.find("discrete Gaussian") != std::string::npos);
    }
}

// OPT₊: the release lists every part's integer entries, and K rebuilt from them alone (Kronecker
// products of [diag(g); T], stacked in order) equals the strategy that was measured.
void TestStrategyRelease::unionReleaseListsItsParts() {
    auto w = std::make_shared<const Workload>(makeWorkload("prefix + 0.5*identity", {12}));
    StrategyOptimizeOptions o;
    o.restarts = 1;
    auto plan = planStrategyRelease(w, DesignTemplate::Union, {}, o);
    QVERIFY2(plan.hasValue(), plan ? "" : plan.error().message.c_str());
    QCOMPARE(plan->strategy->kind, DesignTemplate::Union);
    auto h = Histogram::create({4, 0, 9, 1, 30, 2, 5, 5, 0, 7, 3, 1});
    ReleaseSpec spec;
    spec.epsilon = "1";
    spec.binsDeclared = true;
    spec.source = "t";
    spec.appVersion = "t";
    ReleaseRandomness rnd;
    auto r = releaseThroughStrategy(spec, *plan, *h, rnd);
    QVERIFY2(r.hasValue(), r ? "" : r.error().message.c_str());
    const auto& parts = r->metadata.strategy->parts;
    QCOMPARE(parts.size(), plan->strategy->parts.size());
    QVERIFY(parts.size() >= 2);
    const MatrixXd K = denseStrategy(*plan->strategy->linear);
    Index row = 0;
    for (const auto& part : parts) {
        QVERIFY(!part.factorDiagonals.empty());  // p-Identity products here
        MatrixXd kp = MatrixXd::Ones(1, 1);
        for (std::size_t d = 0; d < part.factorDiagonals.size(); ++d) {
            const auto& g = part.factorDiagonals[d];
            const auto& t = part.factorExtraRows[d];
            const auto n = static_cast<Index>(g.size());
            const Index p = static_cast<Index>(t.size()) / n;
            MatrixXd f = MatrixXd::Zero(n + p, n);
            for (Index j = 0; j < n; ++j) {
                f(j, j) = static_cast<double>(g[static_cast<std::size_t>(j)]);
                for (Index a = 0; a < p; ++a) {
                    f(n + a, j) = static_cast<double>(t[static_cast<std::size_t>(a * n + j)]);
                }
            }
            MatrixXd next(kp.rows() * f.rows(), kp.cols() * f.cols());
            for (Index i = 0; i < kp.rows(); ++i) {
                for (Index j = 0; j < kp.cols(); ++j) {
                    next.block(i * f.rows(), j * f.cols(), f.rows(), f.cols()) = kp(i, j) * f;
                }
            }
            kp = next;
        }
        QCOMPARE(static_cast<std::uint64_t>(kp.rows()), part.rows);
        QVERIFY(((K.middleRows(row, kp.rows()) - kp).array().abs() < 1e-9).all());
        row += kp.rows();
    }
    QCOMPARE(row, K.rows());
    QCOMPARE(static_cast<std::size_t>(row), r->metadata.strategy->measurements.size());
}

void TestStrategyRelease::releaseOfATable() {
    auto w = std::make_shared<const Workload>(makeWorkload("allrange", {4, 3}));
    StrategyOptimizeOptions o;
    o.restarts = 1;
    auto plan = planStrategyRelease(w, DesignTemplate::PIdentity, {}, o);
    QVERIFY(plan.hasValue());
    std::vector<std::int64_t> counts(12);
    for (std::size_t j = 0; j < 12; ++j) {
        counts[j] = static_cast<std::int64_t>(3 * j + 1);
    }
    auto h = Histogram::create(counts);
    ReleaseSpec spec;
    spec.epsilon = "2";
    spec.binsDeclared = true;
    spec.source = "t";
    spec.appVersion = "t";
    spec.relation = Neighbouring::Replace;
    spec.contributionCap = 2;
    ReleaseRandomness rnd;
    auto rel = releaseThroughStrategy(spec, *plan, *h, rnd);
    QVERIFY(rel.hasValue());
    // Replace with cap 2: Δ1 = 4·Δ1(K).
    QCOMPARE(rel->metadata.l1Sensitivity, 4 * plan->strategy->l1);
    QCOMPARE(rel->values.size(), std::size_t{12});
    QVERIFY(!rel->metadata.strategy->factorDiagonals.empty());
}

// The release's per-cell intervals (strategyIntervals): never wider than the bound valid for any
// coefficients, clearly narrower for most cells, cached in the plan, and covering at the level —
// checked with noise drawn by an independent sampler (the difference of two geometric draws from
// the standard library, Inusah & Kozubowski 2006) and the strategy's own least squares.
void TestStrategyRelease::simulatedIntervalsAreSharperAndCover() {
    auto w = std::make_shared<const Workload>(makeWorkload("allrange", {16}));
    StrategyOptimizeOptions o;
    o.restarts = 2;
    auto plan = planStrategyRelease(w, DesignTemplate::PIdentity, {}, o);
    QVERIFY(plan.hasValue());
    QVERIFY(plan->intervalCache != nullptr);
    const double alpha = std::exp(-1 / 40.0);
    const CellNoise noise{CellNoiseKind::DiscreteLaplace, alpha};
    const double level = 0.95;
    auto iv = strategyIntervals(*plan, noise, level);
    QVERIFY2(iv.hasValue(), iv ? "" : iv.error().message.c_str());
    auto bound = linearEstimateInterval(noise, level);
    QVERIFY(bound.hasValue());
    std::size_t sharper = 0;
    for (std::size_t j = 0; j < 16; ++j) {
        const double b = bound->halfWidth * std::sqrt(plan->valueForms[j]);
        QVERIFY(iv->halfWidths[j] <= b);
        sharper += iv->halfWidths[j] < 0.8 * b;
    }
    QVERIFY2(sharper >= 12, qPrintable(QString::number(sharper)));
    QVERIFY(iv->method.find("simulated law") != std::string::npos);
    auto again = strategyIntervals(*plan, noise, level);
    QVERIFY(again.hasValue());
    QCOMPARE(again->halfWidths, iv->halfWidths);
    QCOMPARE(again->simultaneousHalfWidth, iv->simultaneousHalfWidth);

    std::mt19937_64 gen(20261128);
    std::geometric_distribution<long> geo(1 - alpha);
    const std::size_t rows = plan->strategy->rows();
    std::vector<double> z(rows), e(16);
    const int trials = 6000;
    std::vector<int> covered(16, 0);
    int allCovered = 0;
    double maxScale = 0;
    for (double f : plan->valueForms)
        maxScale = std::max(maxScale, std::sqrt(f));
    for (int t = 0; t < trials; ++t) {
        for (auto& zi : z)
            zi = static_cast<double>(geo(gen) - geo(gen));
        plan->strategy->linear->leastSquares(z, e);
        bool all = true;
        for (std::size_t j = 0; j < 16; ++j) {
            const bool in = std::fabs(e[j]) <= iv->halfWidths[j];
            covered[j] += in;
            all = all && std::fabs(e[j]) <=
                             iv->simultaneousHalfWidth * std::sqrt(plan->valueForms[j]) / maxScale;
        }
        allCovered += all;
    }
    const double se = std::sqrt(level * (1 - level) / trials);
    int pooled = 0;
    for (std::size_t j = 0; j < 16; ++j) {
        QVERIFY2(covered[j] >= (level - 4.5 * se) * trials,
                 qPrintable(QStringLiteral("cell %1: %2").arg(j).arg(covered[j])));
        pooled += covered[j];
    }
    // Sharp: pooled coverage below 97.5 % (the bound alone covers > 99 % here).
    QVERIFY2(pooled <= 0.975 * 16 * trials, qPrintable(QString::number(pooled)));
    QVERIFY(allCovered >= (level - 4.5 * se) * trials);
}

void TestStrategyRelease::refusals() {
    auto w = std::make_shared<const Workload>(makeWorkload("allrange", {8}));
    auto plan = planStrategyRelease(w, DesignTemplate::PIdentity);
    QVERIFY(plan.hasValue());
    auto h = Histogram::create({1, 2, 3, 4, 5, 6, 7, 8});
    ReleaseRandomness rnd;
    ReleaseSpec spec;
    spec.epsilon = "1";
    spec.binsDeclared = true;
    spec.source = "t";
    spec.appVersion = "t";
    ReleaseSpec g = spec;
    g.mechanism = ReleaseMechanism::GeometricMatrix;
    g.groupSize = 10;
    auto r1 = releaseThroughStrategy(g, *plan, *h, rnd);
    QVERIFY(!r1 && r1.error().message.rfind("mechanism:", 0) == 0);
    QVERIFY(r1.error().message.find("geometric-matrix is not offered") != std::string::npos);
    // A discrete Gaussian whose σ² would exceed the exact sampler's 10^12 names the sensitivity.
    ReleaseSpec tiny = spec;
    tiny.mechanism = ReleaseMechanism::DiscreteGaussian;
    tiny.epsilon = "0.000001";
    tiny.delta = "1e-12";
    auto r4 = releaseThroughStrategy(tiny, *plan, *h, rnd);
    QVERIFY(!r4);
    QVERIFY2(r4.error().message.find("through the strategy (Δ2²") != std::string::npos,
             r4.error().message.c_str());
    ReleaseSpec pp = spec;
    pp.postProcessing = EstimatorKind::Clamp;
    auto r2 = releaseThroughStrategy(pp, *plan, *h, rnd);
    QVERIFY(!r2 && r2.error().message.rfind("post-processing:", 0) == 0);
    ReleaseSpec undeclared = spec;
    undeclared.binsDeclared = false;
    QVERIFY(!releaseThroughStrategy(undeclared, *plan, *h, rnd));
    auto wrong = Histogram::create({1, 2, 3});
    auto r3 = releaseThroughStrategy(spec, *plan, *wrong, rnd);
    QVERIFY(!r3 && r3.error().message.find("designed for 8") != std::string::npos);
    // An OPT_M design without the full table publishes the workload's marginals instead of the
    // cells (tst_strategy_release_marginals), or is refused when it does not determine them.
}

QTEST_APPLESS_MAIN(TestStrategyRelease)
#include "tst_strategy_release.moc"
