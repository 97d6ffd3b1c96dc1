// Trade-off curves, frontier, population scaling and accuracy-first solving (core/tradeoff.h).
// References: closed forms (Laplace SSE per bin 2b², Pr[|Z| ≤ k] = 1 − e^{−k/b}; geometric
// Pr[|Z| ≤ K] = 1 − 2α^{K+1}/(1+α); Gaussian erf(k/(σ√2))), power-law curves whose log–log
// interpolation is exact, hand-computed largest-remainder roundings, and Monte Carlo with
// tolerances of 4 standard errors (fixed seeds).
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stop_token>
#include <string>
#include <vector>

#include "core/count_analysis.h"
#include "core/count_mechanism.h"
#include "core/gaussian_mechanism.h"
#include "core/tradeoff.h"
#include "test_support.h"

using namespace dpx;

namespace {

Histogram hist(std::vector<std::int64_t> c) {
    return *Histogram::create(std::move(c));
}

// A curve v(ε) = a·ε^p sampled on `grid`.
ErrorCurve powerCurve(const std::string& label, double a, double p,
                      const std::vector<double>& grid) {
    ErrorCurve c;
    c.label = label;
    for (double e : grid) {
        CurvePoint pt;
        pt.epsilon = e;
        pt.value = pt.ciLow = pt.ciHigh = a * std::pow(e, p);
        pt.exact = true;
        c.points.push_back(pt);
    }
    return c;
}

TradeoffConfig config(TradeoffMechanism m, EstimatorKind e, Metric metric,
                      Scale scale = Scale::Counts) {
    TradeoffConfig c;
    c.mechanism = m;
    c.estimator = e;
    c.metric = {metric, scale};
    return c;
}

bool near(double a, double b, double rel) {
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

}  // namespace

class TestTradeoff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void logGrid();
    void frontierCrossing();
    void frontierTies();
    void frontierDifferentGridsAndMissing();
    void frontierStatisticalTies();
    void solveForEpsilon_data();
    void solveForEpsilon();
    void solveRefusals();
    void perBinTarget_data();
    void perBinTarget();
    void exactCurves();
    void exactVsMonteCarlo_data();
    void exactVsMonteCarlo();
    void optimalSweep();
    void populationScaling();
    void errorAgainstPopulation();
    void rejections();
    void cancellation();
};

void TestTradeoff::logGrid() {
    auto g = logSpacedEpsilons(0.01, 10, 4);
    QVERIFY(g);
    QCOMPARE(g->size(), std::size_t(4));
    QCOMPARE(g->front(), 0.01);
    QCOMPARE(g->back(), 10.0);
    QVERIFY(near((*g)[1], 0.1, 1e-12));
    QVERIFY(near((*g)[2], 1.0, 1e-12));
    QVERIFY(logSpacedEpsilons(1, 1, 1));
    QVERIFY(!logSpacedEpsilons(0, 1, 3));
    QVERIFY(!logSpacedEpsilons(2, 1, 3));
    QVERIFY(!logSpacedEpsilons(1, 1, 3));
    QVERIFY(!logSpacedEpsilons(0.1, 1, 0));
    QVERIFY(!logSpacedEpsilons(std::nan(""), 1, 3));
    QVERIFY(!logSpacedEpsilons(0.1, std::numeric_limits<double>::infinity(), 3));
}

void TestTradeoff::frontierCrossing() {
    // A = 10/ε, B = 1/ε²: B is better above ε = 0.1, where they cross. 0.1 is not a grid point.
    auto grid = *logSpacedEpsilons(0.01, 100, 8);
    const std::vector<ErrorCurve> curves{powerCurve("A", 10, -1, grid),
                                         powerCurve("B", 1, -2, grid)};
    const Frontier f = lowerEnvelope(curves);
    QCOMPARE(f.points.size(), grid.size());
    for (const auto& p : f.points) {
        QCOMPARE(p.curve, std::size_t(p.epsilon < 0.1 ? 0 : 1));
        QVERIFY(near(p.value, std::min(10 / p.epsilon, 1 / (p.epsilon * p.epsilon)), 1e-12));
    }
    QCOMPARE(f.segments.size(), std::size_t(2));
    QCOMPARE(f.segments[0].label, std::string("A"));
    QCOMPARE(f.segments[1].label, std::string("B"));
    QCOMPARE(f.segments[0].epsilonFrom, 0.01);
    QCOMPARE(f.segments[1].epsilonTo, 100.0);
    // Power laws are straight in log–log, so the interpolated crossing is exact.
    QVERIFY2(near(f.segments[0].epsilonTo, 0.1, 1e-12),
             dpxtest::nearMessage("crossing", f.segments[0].epsilonTo, 0.1, 1e-13).constData());
    QCOMPARE(f.segments[1].epsilonFrom, f.segments[0].epsilonTo);

    // Add C = 0.5 (flat): below both A and B for ε < √2 (B = 0.5 there), then B wins.
    const std::vector<ErrorCurve> three{powerCurve("A", 10, -1, grid), powerCurve("B", 1, -2, grid),
                                        powerCurve("C", 0.5, 0, grid)};
    const Frontier g = lowerEnvelope(three);
    for (const auto& p : g.points) {
        const double a = 10 / p.epsilon, b = 1 / (p.epsilon * p.epsilon), c = 0.5;
        const double m = std::min({a, b, c});
        QVERIFY(near(p.value, m, 1e-12));
        QCOMPARE(p.curve, std::size_t(m == a ? 0 : m == b ? 1 : 2));
    }
    QCOMPARE(g.segments.size(), std::size_t(2));  // C up to √2, then B
    QCOMPARE(g.segments[0].label, std::string("C"));
    QVERIFY(near(g.segments[0].epsilonTo, std::sqrt(2.0), 1e-12));
}

void TestTradeoff::frontierTies() {
    auto grid = *logSpacedEpsilons(0.1, 10, 5);
    const std::vector<ErrorCurve> curves{powerCurve("first", 2, -1, grid),
                                         powerCurve("second", 2, -1, grid),
                                         powerCurve("worse", 3, -1, grid)};
    const Frontier f = lowerEnvelope(curves);
    QCOMPARE(f.points.size(), std::size_t(5));
    for (const auto& p : f.points) {
        QCOMPARE(p.curve, std::size_t(0));
    }
    QCOMPARE(f.segments.size(), std::size_t(1));
    QCOMPARE(f.segments[0].label, std::string("first"));
    // Near-ties: "second" 1e-9 lower wins at the default tolerance, not at 1e-6.
    std::vector<ErrorCurve> near{powerCurve("first", 2, -1, grid),
                                 powerCurve("second", 2 * (1 - 1e-9), -1, grid)};
    QCOMPARE(lowerEnvelope(near).points[0].curve, std::size_t(1));
    QCOMPARE(lowerEnvelope(near, 1e-6).points[0].curve, std::size_t(0));
    QVERIFY(lowerEnvelope(std::vector<ErrorCurve>{}).points.empty());
}

void TestTradeoff::frontierDifferentGridsAndMissing() {
    // A on 5 points over [0.1, 10]; B (better everywhere: 1/ε² vs 10/ε for ε > 0.1) on another
    // grid over [0.2, 5] with one missing point. Union grid: both grids.
    const auto ga = *logSpacedEpsilons(0.1, 10, 5);
    const std::vector<double> gb{0.2, 0.7, 1.3, 5};
    ErrorCurve a = powerCurve("A", 10, -1, ga);
    ErrorCurve b = powerCurve("B", 1, -2, gb);
    b.points[2].value = std::nan("");  // missing at 1.3: interpolated across
    // Interpolation in log–log reproduces the power law between valid points.
    bool interp = false;
    QVERIFY(near(curveValueAt(b, 1.3, &interp), 1 / (1.3 * 1.3), 1e-12));
    QVERIFY(interp);
    QVERIFY(std::isnan(curveValueAt(b, 0.1)));  // outside B's range: no extrapolation
    QVERIFY(std::isnan(curveValueAt(b, 6)));
    const Frontier f = lowerEnvelope(std::vector<ErrorCurve>{a, b});
    // Union of valid ε: 5 (A) + 3 valid of B, 5 shared? ga = {0.1, 0.316, 1, 3.16, 10}; gb valid
    // {0.2, 0.7, 5}: 8 distinct.
    QCOMPARE(f.points.size(), std::size_t(8));
    for (const auto& p : f.points) {
        const bool inB = p.epsilon >= 0.2 && p.epsilon <= 5;
        QCOMPARE(p.curve, std::size_t(inB ? 1 : 0));
        QVERIFY(near(p.value, inB ? 1 / (p.epsilon * p.epsilon) : 10 / p.epsilon, 1e-12));
    }
    QCOMPARE(f.segments.size(), std::size_t(3));  // A, B, A
    QCOMPARE(f.segments[1].label, std::string("B"));
}

// Hand-made: A exact 10, 8, 6, 4 at ε = 1…4; B Monte Carlo 9.9 ± 0.5, 7.9 ± 0.5, 5.0 ± 0.2,
// 3.9 ± 0.5. The envelope gives B everywhere; only at ε = 3 is B lower beyond its interval
// (|5 − 6| = 1 > 0.2), so A keeps ε = 1, 2 and 4 and the segments are A 1–3, B 3–4, A 4–4.
// Two exact curves are never re-attributed.
void TestTradeoff::frontierStatisticalTies() {
    const std::vector<double> grid{1, 2, 3, 4};
    ErrorCurve a = powerCurve("A", 1, 0, grid);
    const double av[] = {10, 8, 6, 4};
    for (std::size_t i = 0; i < 4; ++i) {
        a.points[i].value = a.points[i].ciLow = a.points[i].ciHigh = av[i];
    }
    ErrorCurve b;
    b.label = "B";
    const double bv[] = {9.9, 7.9, 5.0, 3.9};
    const double bh[] = {0.5, 0.5, 0.2, 0.5};
    for (std::size_t i = 0; i < 4; ++i) {
        CurvePoint p;
        p.epsilon = grid[i];
        p.value = bv[i];
        p.ciLow = bv[i] - bh[i];
        p.ciHigh = bv[i] + bh[i];
        p.exact = false;
        p.trials = 1000;
        b.points.push_back(p);
    }
    const std::vector<ErrorCurve> curves{a, b};
    const Frontier raw = lowerEnvelope(curves);
    QCOMPARE(raw.segments.size(), std::size_t(1));
    QCOMPARE(raw.segments[0].curve, std::size_t(1));
    const Frontier f = resolveStatisticalTies(curves, raw);
    QCOMPARE(f.points.size(), std::size_t(4));
    const std::size_t expect[] = {0, 0, 1, 0};
    for (std::size_t i = 0; i < 4; ++i) {
        QCOMPARE(f.points[i].curve, expect[i]);
        QCOMPARE(f.points[i].value, bv[i]);  // the envelope's values are kept
    }
    QCOMPARE(f.segments.size(), std::size_t(3));
    QCOMPARE(f.segments[0].label, std::string("A"));
    QCOMPARE(f.segments[0].epsilonFrom, 1.0);
    QCOMPARE(f.segments[0].epsilonTo, 3.0);
    QCOMPARE(f.segments[1].label, std::string("B"));
    QCOMPARE(f.segments[1].epsilonTo, 4.0);
    QCOMPARE(f.segments[2].epsilonFrom, 4.0);

    // Exact against exact: nothing changes, including the interpolated crossing.
    const std::vector<ErrorCurve> exact{powerCurve("p", 1, -1, grid), powerCurve("q", 0.5, 0, grid)};
    const Frontier e = lowerEnvelope(exact);
    const Frontier r = resolveStatisticalTies(exact, e);
    QCOMPARE(r.segments.size(), e.segments.size());
    for (std::size_t i = 0; i < e.segments.size(); ++i) {
        QCOMPARE(r.segments[i].curve, e.segments[i].curve);
        QCOMPARE(r.segments[i].epsilonFrom, e.segments[i].epsilonFrom);
        QCOMPARE(r.segments[i].epsilonTo, e.segments[i].epsilonTo);
    }
}

void TestTradeoff::solveForEpsilon_data() {
    QTest::addColumn<int>("mechanism");
    QTest::addColumn<int>("estimator");
    QTest::addColumn<int>("metric");
    QTest::addColumn<double>("target");
    QTest::newRow("laplace identity sse")
        << int(TradeoffMechanism::Laplace) << int(EstimatorKind::Identity) << int(Metric::SSE)
        << 2.5;
    QTest::newRow("laplace clamp l1")
        << int(TradeoffMechanism::Laplace) << int(EstimatorKind::Clamp) << int(Metric::L1) << 1.0;
    QTest::newRow("geometric clamp l1")
        << int(TradeoffMechanism::Geometric) << int(EstimatorKind::Clamp) << int(Metric::L1) << 1.0;
    QTest::newRow("gaussian identity linf")
        << int(TradeoffMechanism::Gaussian) << int(EstimatorKind::Identity) << int(Metric::LInf)
        << 3.0;
    QTest::newRow("gm identity sse") << int(TradeoffMechanism::CountGeometric)
                                     << int(EstimatorKind::Identity) << int(Metric::SSE) << 1.5;
    QTest::newRow("em clamp l1") << int(TradeoffMechanism::CountExplicitFair)
                                 << int(EstimatorKind::Clamp) << int(Metric::L1) << 2.0;
}

void TestTradeoff::solveForEpsilon() {
    QFETCH(int, mechanism);
    QFETCH(int, estimator);
    QFETCH(int, metric);
    QFETCH(double, target);
    const Histogram h = hist({3, 8, 12, 5});
    const auto c = config(TradeoffMechanism(mechanism), EstimatorKind(estimator), Metric(metric));
    auto s = smallestEpsilonFor(target, c, h, 0.01, 20);
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    auto forward = [&](double e) {
        CurveOptions o;
        auto curve = errorCurve(h, c, std::span(&e, 1), o);
        return curve->points[0];
    };
    const CurvePoint at = forward(s->epsilon);
    QVERIFY(at.exact);
    QVERIFY2(at.value <= target, dpxtest::nearMessage("f(ε*)", at.value, target, 0).constData());
    // Tolerance relative 1e-6 on ε: the error just below is above the target.
    const CurvePoint below = forward(s->epsilon * (1 - 3e-6));
    QVERIFY2(below.value > target,
             dpxtest::nearMessage("f(ε*(1−3e-6))", below.value, target, 0).constData());
    QVERIFY(near(at.value, target, 1e-4) || mechanism == int(TradeoffMechanism::CountGeometric) ||
            mechanism == int(TradeoffMechanism::CountExplicitFair));
    if (mechanism == int(TradeoffMechanism::Laplace) && metric == int(Metric::SSE)) {
        // SSE = 4 bins · 2b², b = 1/ε → ε = sqrt(8/t).
        QVERIFY(near(s->epsilon, std::sqrt(8 / target), 2e-6));
    }
}

void TestTradeoff::solveRefusals() {
    const Histogram h = hist({3, 8, 12, 5});
    const auto lap = config(TradeoffMechanism::Laplace, EstimatorKind::Identity, Metric::SSE);
    // SSE at ε = 20: 8/400 = 0.02 > 0.01.
    auto s = smallestEpsilonFor(0.01, lap, h, 0.01, 20);
    QVERIFY(!s);
    QVERIFY2(dpxtest::mentions(s.error().message, "even ε = 20 gives 0.02 > 0.01"),
             s.error().message.c_str());
    // Met already at lo: lo is returned.
    auto easy = smallestEpsilonFor(1e6, lap, h, 0.5, 20);
    QVERIFY(easy);
    QCOMPARE(easy->epsilon, 0.5);
    // No exact method (W1).
    auto w1 = smallestEpsilonFor(
        1, config(TradeoffMechanism::Laplace, EstimatorKind::Identity, Metric::W1), h, 0.01, 20);
    QVERIFY(!w1);
    QVERIFY(dpxtest::mentions(w1.error().message, "exact"));
    for (double t : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        QVERIFY(!smallestEpsilonFor(t, lap, h, 0.01, 20));
    }
    QVERIFY(!smallestEpsilonFor(1, lap, h, 0, 20));
    QVERIFY(!smallestEpsilonFor(1, lap, h, 2, 1));
    QVERIFY(!smallestEpsilonFor(1, lap, h, 0.1, std::nan("")));
}

void TestTradeoff::perBinTarget_data() {
    QTest::addColumn<int>("mechanism");
    QTest::addColumn<double>("k");
    QTest::addColumn<double>("q");
    for (int m : {int(TradeoffMechanism::Laplace), int(TradeoffMechanism::Geometric),
                  int(TradeoffMechanism::Gaussian)}) {
        const std::string name = tradeoffMechanismName(TradeoffMechanism(m));
        QTest::newRow((name + " k=2 q=0.95").c_str()) << m << 2.0 << 0.95;
        QTest::newRow((name + " k=10 q=0.99").c_str()) << m << 10.0 << 0.99;
        QTest::newRow((name + " k=1 q=0.5").c_str()) << m << 1.0 << 0.5;
    }
}

void TestTradeoff::perBinTarget() {
    QFETCH(int, mechanism);
    QFETCH(double, k);
    QFETCH(double, q);
    TradeoffConfig c = config(TradeoffMechanism(mechanism), EstimatorKind::Identity, Metric::L1);
    auto s = smallestEpsilonPerBin(k, q, c, 1e-3, 50);
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    // Independent closed forms of Pr[|Z| ≤ k] at ε.
    auto prob = [&](double e) {
        switch (TradeoffMechanism(mechanism)) {
            case TradeoffMechanism::Laplace:
                return 1 - std::exp(-k * e);  // b = 1/ε
            case TradeoffMechanism::Geometric: {
                const double a = std::exp(-e);
                return 1 - 2 * std::pow(a, std::floor(k) + 1) / (1 + a);
            }
            default: {
                const double sigma = *gaussianSigma({e, c.delta, 1, c.calibration});
                return std::erf(k / (sigma * std::sqrt(2.0)));
            }
        }
    };
    QVERIFY2(prob(s->epsilon) >= q - 1e-12,
             dpxtest::nearMessage("Pr at ε*", prob(s->epsilon), q, 0).constData());
    QVERIFY2(prob(s->epsilon * (1 - 3e-6)) < q,
             dpxtest::nearMessage("Pr below ε*", prob(s->epsilon * (1 - 3e-6)), q, 0).constData());
    QVERIFY(near(*perBinWithinProbability(c, s->epsilon, k), prob(s->epsilon), 1e-9));
    if (mechanism == int(TradeoffMechanism::Laplace)) {
        QVERIFY(near(s->epsilon, std::log(1 / (1 - q)) / k, 1e-14));  // closed form
    }
}

void TestTradeoff::exactCurves() {
    // Laplace identity SSE: 2b²·bins at every ε; the frequency scale divides by N².
    const Histogram h = hist({3, 8, 12, 5});
    const auto grid = *logSpacedEpsilons(0.1, 10, 7);
    auto lap = config(TradeoffMechanism::Laplace, EstimatorKind::Identity, Metric::SSE);
    auto c = errorCurve(h, lap, grid, {});
    QVERIFY(c);
    QCOMPARE(c->label, std::string("laplace:identity"));
    for (const auto& p : c->points) {
        QVERIFY(p.exact);
        QVERIFY(near(p.value, 8 / (p.epsilon * p.epsilon), 1e-9));
        QCOMPARE(p.ciLow, p.value);
    }
    lap.metric.scale = Scale::Frequencies;
    auto f = errorCurve(h, lap, grid, {});
    QVERIFY(near(f->points[3].value, 8 / (grid[3] * grid[3]) / (28.0 * 28.0), 1e-9));
    // GM identity SSE: per-bin error laws = Σ_j meanSquare of column j.
    auto gm = config(TradeoffMechanism::CountGeometric, EstimatorKind::Identity, Metric::SSE);
    auto g = errorCurve(h, gm, grid, {});
    QVERIFY(g);
    QCOMPARE(g->label, std::string("gm:identity"));
    for (const auto& p : g->points) {
        auto m = *truncatedGeometric(12, p.epsilon);
        double sum = 0;
        for (std::int64_t j : h.counts()) {
            sum += inputErrorDistribution(m, static_cast<std::size_t>(j))->meanSquare;
        }
        QVERIFY(p.exact);
        QVERIFY(near(p.value, sum, 1e-12));
    }
}

void TestTradeoff::exactVsMonteCarlo_data() {
    QTest::addColumn<int>("mechanism");
    QTest::addColumn<int>("estimator");
    QTest::addColumn<int>("metric");
    QTest::newRow("laplace clamp l1")
        << int(TradeoffMechanism::Laplace) << int(EstimatorKind::Clamp) << int(Metric::L1);
    QTest::newRow("geometric identity linf")
        << int(TradeoffMechanism::Geometric) << int(EstimatorKind::Identity) << int(Metric::LInf);
    QTest::newRow("gm identity sse") << int(TradeoffMechanism::CountGeometric)
                                     << int(EstimatorKind::Identity) << int(Metric::SSE);
    QTest::newRow("gm clamp linf")
        << int(TradeoffMechanism::CountGeometric) << int(EstimatorKind::Clamp) << int(Metric::LInf);
    QTest::newRow("em identity l1") << int(TradeoffMechanism::CountExplicitFair)
                                    << int(EstimatorKind::Identity) << int(Metric::L1);
}

void TestTradeoff::exactVsMonteCarlo() {
    QFETCH(int, mechanism);
    QFETCH(int, estimator);
    QFETCH(int, metric);
    const Histogram h = hist({1, 4, 0, 6, 2});
    const std::vector<double> grid{0.2, 1, 3};
    const auto c = config(TradeoffMechanism(mechanism), EstimatorKind(estimator), Metric(metric));
    auto exact = errorCurve(h, c, grid, {});
    CurveOptions o;
    o.trials = 40000;
    o.seed = 7;
    o.forceMonteCarlo = true;
    auto mc = errorCurve(h, c, grid, o);
    QVERIFY(exact && mc);
    for (std::size_t k = 0; k < grid.size(); ++k) {
        const CurvePoint& x = exact->points[k];
        const CurvePoint& m = mc->points[k];
        QVERIFY(x.exact);
        QVERIFY(!m.exact);
        QCOMPARE(m.method, std::string("Monte Carlo"));
        QCOMPARE(m.trials, o.trials);
        const double se = (m.ciHigh - m.ciLow) / (2 * 1.96);
        QVERIFY(se > 0);
        QVERIFY2(
            std::abs(m.value - x.value) <= 4 * se,
            dpxtest::nearMessage("Monte Carlo vs exact", m.value, x.value, 4 * se).constData());
    }
}

void TestTradeoff::optimalSweep() {
    const Histogram h = hist({1, 3, 2});
    TradeoffConfig c = config(TradeoffMechanism::CountOptimal, EstimatorKind::Identity, Metric::L1);
    c.lp.cost = LpCostKind::L1;
    QCOMPARE(c.defaultLabel(), std::string("optimal(l1):identity"));
    const std::vector<double> grid{0.5, 1, 2};
    int calls = 0;
    CurveOptions o;
    o.progress = [&](double) { ++calls; };
    auto curve = errorCurve(h, c, grid, o);
    QVERIFY2(curve, curve ? "" : curve.error().message.c_str());
    QVERIFY(calls >= 3);
    for (std::size_t k = 0; k < grid.size(); ++k) {
        const CurvePoint& p = curve->points[k];
        QVERIFY2(p.exact, p.method.c_str());
        // Against a cold single solve of the same LP.
        CountLpSpec spec = c.lp;
        spec.n = 3;
        spec.epsilon = grid[k];
        auto r = designCountMechanism(spec);
        QVERIFY(r && r->mechanism);
        double sum = 0;
        for (std::int64_t j : h.counts()) {
            sum += inputErrorDistribution(*r->mechanism, static_cast<std::size_t>(j))->meanAbs;
        }
        // LP optima may be non-unique; the objective is the same but this truth's error may differ.
        QVERIFY(std::isfinite(sum));
        QVERIFY(p.value >= 0);
    }
    QVERIFY(curve->points[0].value >= curve->points[2].value);
    // Resize with a count matrix: Monte Carlo.
    c.estimator = EstimatorKind::Resize;
    o.trials = 2000;
    auto mc = errorCurve(h, c, grid, o);
    QVERIFY(mc);
    QCOMPARE(mc->points[1].method, std::string("Monte Carlo"));
}

void TestTradeoff::populationScaling() {
    // {1, 2, 3} → N = 10: quotas 1.667, 3.333, 5 → floors 1, 3, 5; one unit left to bin 0.
    auto s = scaleToPopulation(hist({1, 2, 3}), 10);
    QVERIFY(s);
    QCOMPARE(s->counts(), (std::vector<std::int64_t>{2, 3, 5}));
    // Ties in the remainders go to the lower index: {1, 1, 1} → 4 = {2, 1, 1}.
    QCOMPARE(scaleToPopulation(hist({1, 1, 1}), 4)->counts(), (std::vector<std::int64_t>{2, 1, 1}));
    QCOMPARE(scaleToPopulation(hist({5, 0, 5}), 0)->counts(), (std::vector<std::int64_t>{0, 0, 0}));
    // Labels and edges are kept.
    auto withEdges = *Histogram::create({2, 6}, {"a", "b"}, {0, 1, 2});
    auto se = scaleToPopulation(withEdges, 100);
    QCOMPARE(se->labels(), withEdges.labels());
    QCOMPARE(se->edges(), withEdges.edges());
    QCOMPARE(se->counts(), (std::vector<std::int64_t>{25, 75}));
    // The total is exactly N, and every count within 1 of its quota, for awkward shapes and N.
    const std::vector<std::vector<std::int64_t>> shapes{
        {1, 1, 1, 1, 1, 1, 1}, {7, 0, 13, 1, 999}, {123456789, 987654321, 3, 1}, {1}};
    for (const auto& shape : shapes) {
        const Histogram h = hist(shape);
        for (std::int64_t n :
             {std::int64_t(1), std::int64_t(2), std::int64_t(17), std::int64_t(1000),
              std::int64_t(999'999'937), std::int64_t(1'000'000'000'000'000)}) {
            auto r = scaleToPopulation(h, n);
            QVERIFY(r);
            QCOMPARE(r->total(), n);
            for (std::size_t i = 0; i < shape.size(); ++i) {
                const long double quota = static_cast<long double>(n) * shape[i] / h.total();
                QVERIFY(std::abs(static_cast<long double>(r->counts()[i]) - quota) < 1.0L + 1e-6L);
            }
        }
    }
    QVERIFY(!scaleToPopulation(hist({1, 2}), -1));
    QVERIFY(!scaleToPopulation(hist({0, 0}), 10));
    QVERIFY(!scaleToPopulation(hist({1, 2}), 2'000'000'000'000'000));
}

void TestTradeoff::errorAgainstPopulation() {
    // L1 on the frequency scale of Laplace identity: bins·b/N, falls as 1/N.
    const Histogram h = hist({1, 2, 1});
    auto c =
        config(TradeoffMechanism::Laplace, EstimatorKind::Identity, Metric::L1, Scale::Frequencies);
    const std::vector<std::int64_t> ns{10, 100, 1000};
    auto r = errorVsPopulation(h, c, 0.5, ns, {});
    QVERIFY(r);
    QCOMPARE(r->size(), std::size_t(3));
    for (const auto& p : *r) {
        QVERIFY(near(p.point.value, 3 * 2.0 / static_cast<double>(p.population), 1e-9));
    }
    const std::vector<std::int64_t> bad{0};
    QVERIFY(!errorVsPopulation(h, c, 0.5, bad, {}));
    // GM handles counts up to kMaxCountPeople: {1, 2} scaled to 3000 has a bin of 2000 (drawn)
    // and to 3003 one of 2002 (missing, with the reason); the first point is still exact.
    auto gm = config(TradeoffMechanism::CountGeometric, EstimatorKind::Identity, Metric::L1);
    const std::vector<std::int64_t> sizes{3000, 3003};
    auto g = errorVsPopulation(hist({1, 2}), gm, 1.0, sizes, {});
    QVERIFY(g);
    QCOMPARE(g->size(), std::size_t(2));
    QVERIFY((*g)[0].point.valid() && (*g)[0].point.exact);
    QVERIFY(!(*g)[1].point.valid());
    QVERIFY((*g)[1].point.method.find("2002") != std::string::npos);
}

void TestTradeoff::rejections() {
    const Histogram h = hist({3, 8});
    const auto lap = config(TradeoffMechanism::Laplace, EstimatorKind::Identity, Metric::SSE);
    for (double e : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        QVERIFY(!errorCurve(h, lap, std::span(&e, 1), {}));
    }
    QVERIFY(!errorCurve(h, lap, std::span<const double>(), {}));
    CurveOptions one;
    one.trials = 1;
    const double e1 = 1;
    QVERIFY(!errorCurve(h, lap, std::span(&e1, 1), one));
    auto gauss = config(TradeoffMechanism::Gaussian, EstimatorKind::Identity, Metric::SSE);
    for (double d : {0.0, 1.0, -0.1, std::nan("")}) {
        gauss.delta = d;
        QVERIFY(!errorCurve(h, gauss, std::span(&e1, 1), {}));
    }
    auto gmNf = config(TradeoffMechanism::CountGeometric, EstimatorKind::NoiseFirst, Metric::SSE);
    auto r = errorCurve(h, gmNf, std::span(&e1, 1), {});
    QVERIFY(!r);
    QVERIFY(dpxtest::mentions(r.error().message, "noisefirst"));
    auto gm = config(TradeoffMechanism::CountGeometric, EstimatorKind::Identity, Metric::SSE);
    gm.countPeople = 5;  // smaller than the largest count 8
    QVERIFY(!errorCurve(h, gm, std::span(&e1, 1), {}));
    gm.countPeople = 0;
    gm.sensitivity = {2, std::sqrt(2.0), true};
    QVERIFY(!errorCurve(h, gm, std::span(&e1, 1), {}));
    QVERIFY(
        !errorCurve(hist({3, 5000}),
                    config(TradeoffMechanism::CountGeometric, EstimatorKind::Identity, Metric::SSE),
                    std::span(&e1, 1), {}));
    // Per-bin target.
    for (double q : {0.0, 1.0, -0.5, std::nan("")}) {
        QVERIFY(!smallestEpsilonPerBin(1, q, lap, 0.01, 10));
    }
    for (double k : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        QVERIFY(!smallestEpsilonPerBin(k, 0.9, lap, 0.01, 10));
    }
    QVERIFY(!smallestEpsilonPerBin(1, 0.9, gm, 0.01, 10));
    auto far = smallestEpsilonPerBin(1, 0.999999, lap, 0.01, 10);
    QVERIFY(!far);
    QVERIFY2(dpxtest::mentions(far.error().message, "even ε = 10"), far.error().message.c_str());
}

void TestTradeoff::cancellation() {
    const Histogram h = hist({3, 8, 2});
    std::stop_source src;
    src.request_stop();
    CurveOptions o;
    o.stop = src.get_token();
    const std::vector<double> grid{0.5, 1};
    auto c = errorCurve(h, config(TradeoffMechanism::Laplace, EstimatorKind::Resize, Metric::W1),
                        grid, o);
    QVERIFY(c);
    QVERIFY(c->cancelled);
    QCOMPARE(c->points.size(), std::size_t(2));
    QVERIFY(!c->points[0].valid());
    QVERIFY(lowerEnvelope(std::span(&*c, 1)).points.empty());
}

QTEST_GUILESS_MAIN(TestTradeoff)
#include "tst_tradeoff.moc"
