// Trade-off curves, frontier, population scaling and accuracy-first solving
// (core/choosing/tradeoff.h). References: closed forms (Laplace SSE per bin 2b², Pr[|Z| ≤ k] = 1 −
// e^{−k/b}; geometric Pr[|Z| ≤ K] = 1 − 2α^{K+1}/(1+α); Gaussian erf(k/(σ√2))), power-law curves
// whose log–log interpolation is exact, hand-computed largest-remainder roundings, and Monte Carlo
// with tolerances of 4 standard errors (fixed seeds). Local protocols: the frequency-oracle
// variance of Wang et al. 2017 (USENIX Security), Thm 2, Var[ĉ_j] = N·q(1−q)/(p−q)² +
// N·f_j(1−p−q)/(p−q), which for GRR (p = e^ε/(e^ε+D−1), q = 1/(e^ε+D−1)) is N[(e^ε+D−2)/(e^ε−1)² +
// f_j(D−2)/(e^ε−1)] (seed 001 §2.4: (e^ε+D−2)/(N(e^ε−1)²) for f → 0) and for OUE (p = ½, q =
// 1/(e^ε+1)) N[4e^ε/(e^ε−1)² + f_j].
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stop_token>
#include <string>
#include <vector>

#include "core/accuracy/metrics.h"
#include "core/choosing/tradeoff.h"
#include "core/count/count_analysis.h"
#include "core/count/count_mechanism.h"
#include "core/histogram/example_datasets.h"
#include "core/ldp/metrics.h"
#include "core/ldp/protocols.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/sparse_histogram.h"
#include "tests/testing/test_support.h"

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

TradeoffConfig localConfig(const std::string& protocol, EstimatorKind e, Metric metric,
                           Scale scale = Scale::Counts) {
    TradeoffConfig c;
    c.mechanism = TradeoffMechanism::Local;
    c.local = *localProtocolFromConfigName(protocol);
    c.estimator = e;
    c.metric = {metric, scale};
    return c;
}

// One exact point of a configuration at ε.
CurvePoint pointAt(const Histogram& h, const TradeoffConfig& c, double e,
                   const CurveOptions& o = {}) {
    auto curve = errorCurve(h, c, std::span(&e, 1), o);
    return curve ? curve->points[0] : CurvePoint{};
}

// The seed of trial t in the trade-off Monte Carlo (core/choosing/tradeoff.h: splitmix(seed ⊕
// splitmix(t)), SplitMix64's finaliser of Steele, Lea & Flood 2014).
std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
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
    void localNames();
    void localExactSse_data();
    void localExactSse();
    void localExactVsMonteCarlo_data();
    void localExactVsMonteCarlo();
    void localMonteCarloContract_data();
    void localMonteCarloContract();
    void localCommonRandomNumbersAndThreads();
    void localPopulation();
    void localFrontier();
    void localSolveOue();
    void localSolveOlhSawtooth();
    void localRejections();
    void localCancellation();
    void sparseSeedComparison();
    void sparseAddRemoveIsSeedAtTwiceEpsilon();
    void sparseEmptyHistogramClosedForm();
    void sparseMonteCarloSse();
    void sparseExactVsMonteCarloAndThreads();
    void sparseSolveAndRefusals();
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
    const std::vector<ErrorCurve> exact{powerCurve("p", 1, -1, grid),
                                        powerCurve("q", 0.5, 0, grid)};
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

// ---------------------------------------------------------------------------------------------
// Local protocols (issue #7)

void TestTradeoff::localNames() {
    for (const char* name :
         {"rr", "grr", "oue", "sue", "olh", "hrr", "dbitflip1", "dbitflip2", "dbitflip17"}) {
        auto spec = localProtocolFromConfigName(name);
        QVERIFY2(spec, name);
        QCOMPARE(localProtocolConfigName(*spec), std::string(name));
    }
    auto plain = localProtocolFromConfigName("dbitflip");
    QVERIFY(plain);
    QCOMPARE(plain->protocol, ldp::Protocol::DBitFlip);
    QCOMPARE(plain->bits, std::size_t(1));
    QCOMPARE(localProtocolFromConfigName("dbitflip4")->bits, std::size_t(4));
    for (const char* bad : {"", "local", "GRR", "laplace", "dbitflip0", "dbitflip-1", "dbitflip+2",
                            "dbitflip02", "dbitflipx", "dbitflip2x", "dbitflip1234567890"}) {
        auto r = localProtocolFromConfigName(bad);
        QVERIFY2(!r, bad);
        QVERIFY2(dpxtest::mentions(r.error().message, "dbitflip"), r.error().message.c_str());
    }
    QCOMPARE(localConfig("oue", EstimatorKind::Identity, Metric::SSE).defaultLabel(),
             std::string("oue:identity"));
    QCOMPARE(localConfig("dbitflip2", EstimatorKind::Clamp, Metric::L1).name(),
             std::string("dbitflip2:clamp"));
    QCOMPARE(std::string(tradeoffMechanismName(TradeoffMechanism::Local)), std::string("local"));
    QVERIFY(isLocalTradeoffMechanism(TradeoffMechanism::Local));
    QVERIFY(!isCountTradeoffMechanism(TradeoffMechanism::Local));
    QVERIFY(!isLocalTradeoffMechanism(TradeoffMechanism::Laplace));
}

void TestTradeoff::localExactSse_data() {
    QTest::addColumn<QString>("protocol");
    QTest::addColumn<int>("scale");
    for (const char* p : {"rr", "grr", "oue", "sue", "olh", "hrr", "dbitflip2"}) {
        QTest::newRow((std::string(p) + " counts").c_str())
            << QString::fromLatin1(p) << int(Scale::Counts);
        QTest::newRow((std::string(p) + " frequencies").c_str())
            << QString::fromLatin1(p) << int(Scale::Frequencies);
    }
}

// Identity SSE against independent closed forms of N²·Σ_j Var[f̂_j] (counts scale), all with
// Σ_j f_j = 1, x = e^ε, h = e^(ε/2): Wang et al. 2017 Thm 2 for the pure protocols (GRR, RR = GRR
// with D = 2, OUE, SUE with p = h/(h+1), OLH with g = round(x+1)); HRR: each user's ±1 term has
// variance 1 − f·t², t = 2p − 1 = tanh(ε/2); dBitFlip (seed 002): Var = [h/(h−1)² + f(1−s)]/(N s),
// s = d/D. Also against ldp::estimatorVariance summed per bin.
void TestTradeoff::localExactSse() {
    QFETCH(QString, protocol);
    QFETCH(int, scale);
    const std::string name = protocol.toStdString();
    const Histogram h = name == "rr" ? hist({7, 3}) : hist({3, 8, 12, 5, 0, 2});
    const auto n = static_cast<double>(h.total());
    const auto d = static_cast<double>(h.size());
    const auto c = localConfig(name, EstimatorKind::Identity, Metric::SSE, Scale(scale));
    const std::vector<double> grid{0.1, 0.7, 2, 6};
    auto curve = errorCurve(h, c, grid, {});
    QVERIFY2(curve, curve ? "" : curve.error().message.c_str());
    QCOMPARE(curve->label, name + ":identity");
    for (const CurvePoint& p : curve->points) {
        const double e = p.epsilon, x = std::exp(e), hh = std::exp(e / 2);
        double perN = 0;  // N·Σ_j Var[f̂_j]
        if (name == "rr" || name == "grr") {
            perN = d * (x + d - 2) / ((x - 1) * (x - 1)) + (d - 2) / (x - 1);
        } else if (name == "oue") {
            perN = 4 * d * x / ((x - 1) * (x - 1)) + 1;
        } else if (name == "sue") {
            perN = d * hh / ((hh - 1) * (hh - 1));
        } else if (name == "olh") {
            const double u = std::round(x + 1) - 1;
            perN = d * (x + u) * (x + u) / ((x - 1) * (x - 1) * u) + (u * u - x) / (u * (x - 1));
        } else if (name == "hrr") {
            const double t = std::tanh(e / 2);
            perN = (d - t * t) / (t * t);
        } else {
            const double s = 2 / d;
            perN = (d * hh / ((hh - 1) * (hh - 1)) + 1 - s) / s;
        }
        const double closed = Scale(scale) == Scale::Counts ? n * perN : perN / n;
        ldp::ProtocolSpec spec = c.local;
        spec.epsilon = e;
        spec.domain = h.size();
        double sumVar = 0;
        for (std::int64_t theta : h.counts()) {
            sumVar += *ldp::estimatorVariance(spec, static_cast<std::uint64_t>(h.total()),
                                              static_cast<double>(theta) / n);
        }
        const double viaVariance = Scale(scale) == Scale::Counts ? n * n * sumVar : sumVar;
        QVERIFY2(p.exact, p.method.c_str());
        QVERIFY(p.method.rfind("exact", 0) == 0);
        QCOMPARE(p.ciLow, p.value);
        QCOMPARE(p.ciHigh, p.value);
        QVERIFY2(near(p.value, closed, 1e-10),
                 dpxtest::nearMessage("closed form", p.value, closed, 1e-10 * closed).constData());
        QVERIFY2(near(p.value, viaVariance, 1e-12),
                 dpxtest::nearMessage("Σ Var", p.value, viaVariance, 1e-12 * closed).constData());
    }
}

void TestTradeoff::localExactVsMonteCarlo_data() {
    QTest::addColumn<QString>("protocol");
    QTest::addColumn<int>("scale");
    QTest::newRow("grr counts") << QStringLiteral("grr") << int(Scale::Counts);
    QTest::newRow("oue frequencies") << QStringLiteral("oue") << int(Scale::Frequencies);
    QTest::newRow("hrr frequencies") << QStringLiteral("hrr") << int(Scale::Frequencies);
    QTest::newRow("dbitflip2 counts") << QStringLiteral("dbitflip2") << int(Scale::Counts);
}

// The exact identity SSE against forced Monte Carlo over ldp::simulateAggregate (whose per-bin
// laws are exact for every protocol, so E[SSE] is too), within 4 standard errors.
void TestTradeoff::localExactVsMonteCarlo() {
    QFETCH(QString, protocol);
    QFETCH(int, scale);
    const Histogram h = hist({1, 4, 0, 6, 2});
    const std::vector<double> grid{0.2, 1, 3};
    const auto c =
        localConfig(protocol.toStdString(), EstimatorKind::Identity, Metric::SSE, Scale(scale));
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

void TestTradeoff::localMonteCarloContract_data() {
    QTest::addColumn<QString>("protocol");
    QTest::addColumn<int>("estimator");
    QTest::addColumn<int>("metric");
    QTest::addColumn<int>("scale");
    QTest::newRow("olh clamp l1 counts") << QStringLiteral("olh") << int(EstimatorKind::Clamp)
                                         << int(Metric::L1) << int(Scale::Counts);
    QTest::newRow("grr resize sse frequencies")
        << QStringLiteral("grr") << int(EstimatorKind::Resize) << int(Metric::SSE)
        << int(Scale::Frequencies);
    QTest::newRow("dbitflip2 identity linf counts")
        << QStringLiteral("dbitflip2") << int(EstimatorKind::Identity) << int(Metric::LInf)
        << int(Scale::Counts);
    QTest::newRow("hrr resize w1 counts") << QStringLiteral("hrr") << int(EstimatorKind::Resize)
                                          << int(Metric::W1) << int(Scale::Counts);
    QTest::newRow("oue clamp w1 frequencies") << QStringLiteral("oue") << int(EstimatorKind::Clamp)
                                              << int(Metric::W1) << int(Scale::Frequencies);
}

// The Monte Carlo's contract (core/choosing/tradeoff.h): trial t simulates ldp::simulateAggregate
// with seed splitmix(seed ⊕ splitmix(t)), post-processes f̂ (clamp: max(0, ·); resize: the
// projection onto the simplex, ldp::FrequencyPostProcess::Simplex), releases N·f̂ and evaluates the
// metric; the point is the mean with mean ± 1.96·s/√n. Recomputed here trial by trial. N = 18 is
// small, so estimates are often negative and the estimators change them.
void TestTradeoff::localMonteCarloContract() {
    QFETCH(QString, protocol);
    QFETCH(int, estimator);
    QFETCH(int, metric);
    QFETCH(int, scale);
    const Histogram h = hist({5, 0, 9, 3, 1});
    const auto c =
        localConfig(protocol.toStdString(), EstimatorKind(estimator), Metric(metric), Scale(scale));
    CurveOptions o;
    o.trials = 300;
    o.seed = 11;
    o.threads = 2;
    const double e = 1;
    const CurvePoint p = pointAt(h, c, e, o);
    QVERIFY2(p.valid(), p.method.c_str());
    QVERIFY(!p.exact);
    QCOMPARE(p.trials, o.trials);

    ldp::ProtocolSpec spec = c.local;
    spec.epsilon = e;
    spec.domain = h.size();
    const auto post =
        EstimatorKind(estimator) == EstimatorKind::Clamp    ? ldp::FrequencyPostProcess::Clamp
        : EstimatorKind(estimator) == EstimatorKind::Resize ? ldp::FrequencyPostProcess::Simplex
                                                            : ldp::FrequencyPostProcess::None;
    const auto n = static_cast<double>(h.total());
    double sum = 0, sumSq = 0;
    bool changed = false;
    for (std::uint64_t t = 0; t < o.trials; ++t) {
        auto est = ldp::simulateAggregate(spec, h.counts(), splitmix(o.seed ^ splitmix(t)));
        QVERIFY(est);
        auto f = *ldp::postProcessFrequencies(est->frequencies, post);
        changed = changed || f != est->frequencies;
        std::vector<double> release(f.size());
        for (std::size_t j = 0; j < f.size(); ++j) {
            release[j] = n * f[j];
        }
        const double v = evaluateMetric(c.metric, h.countsAsDouble(), release, h.positions(), n);
        sum += v;
        sumSq += v * v;
    }
    QVERIFY(changed || post == ldp::FrequencyPostProcess::None);
    const double trials = static_cast<double>(o.trials);
    const double mean = sum / trials;
    const double half = 1.96 * std::sqrt((sumSq - trials * mean * mean) / (trials - 1) / trials);
    QVERIFY2(near(p.value, mean, 1e-10),
             dpxtest::nearMessage("mean", p.value, mean, 1e-10 * mean).constData());
    QVERIFY2(
        near(p.ciHigh - p.value, half, 1e-6),
        dpxtest::nearMessage("95% half-width", p.ciHigh - p.value, half, 1e-6 * half).constData());
    QVERIFY(near(p.value - p.ciLow, half, 1e-6));
}

// Common random numbers: a point does not depend on the rest of the grid nor on the thread count,
// and on the same trials the estimators order as they must trial by trial: clamping moves every
// estimate towards the (non-negative) truth, so clamp L1 ≤ identity L1; the simplex holds the true
// frequencies and projecting onto a convex set is non-expansive, so resize SSE ≤ identity SSE.
void TestTradeoff::localCommonRandomNumbersAndThreads() {
    const Histogram h = hist({5, 0, 9, 3, 1});
    auto c = localConfig("grr", EstimatorKind::Clamp, Metric::L1);
    CurveOptions o;
    o.trials = 1000;
    o.seed = 5;
    const std::vector<double> two{0.5, 2};
    const std::vector<double> one{2};
    auto a = errorCurve(h, c, two, o);
    auto b = errorCurve(h, c, one, o);
    QVERIFY(a && b);
    QCOMPARE(a->points[1].value, b->points[0].value);
    QCOMPARE(a->points[1].ciHigh, b->points[0].ciHigh);
    for (unsigned threads : {1U, 3U}) {
        CurveOptions ot = o;
        ot.threads = threads;
        auto r = errorCurve(h, c, two, ot);
        QVERIFY(r);
        for (std::size_t k = 0; k < two.size(); ++k) {
            QCOMPARE(r->points[k].value, a->points[k].value);
            QCOMPARE(r->points[k].ciLow, a->points[k].ciLow);
        }
    }
    const std::vector<double> grid{0.3, 1, 3};
    o.forceMonteCarlo = true;
    for (const char* protocol : {"grr", "oue", "olh", "hrr", "dbitflip2"}) {
        auto id =
            errorCurve(h, localConfig(protocol, EstimatorKind::Identity, Metric::L1), grid, o);
        auto cl = errorCurve(h, localConfig(protocol, EstimatorKind::Clamp, Metric::L1), grid, o);
        auto idSse =
            errorCurve(h, localConfig(protocol, EstimatorKind::Identity, Metric::SSE), grid, o);
        auto rs = errorCurve(h, localConfig(protocol, EstimatorKind::Resize, Metric::SSE), grid, o);
        QVERIFY(id && cl && idSse && rs);
        for (std::size_t k = 0; k < grid.size(); ++k) {
            QVERIFY2(cl->points[k].value < id->points[k].value, protocol);
            QVERIFY2(rs->points[k].value < idSse->points[k].value, protocol);
        }
    }
}

// Population: N users. The identity SSE on the frequency scale is Σ_j Var[f̂_j], and with Σf = 1
// every protocol's N·Σ Var is independent of the shape, so SSE·N is the same at every N. The
// expected L1 in frequencies of an unbiased oracle is ≈ Σ_j √(2/π)·sd_j (sums of ≥ 10⁴
// independent reports are normal to O(1/N) for the even function |x|, Edgeworth), so it falls
// like 1/√N; checked by Monte Carlo within 4 standard errors plus 1e-3 for the approximation.
void TestTradeoff::localPopulation() {
    const Histogram h = hist({40, 30, 20, 10});
    const std::vector<std::int64_t> sizes{10, 1000, 1'000'000, 1'000'000'000'000};
    for (const char* protocol : {"grr", "oue", "sue", "olh", "hrr", "dbitflip2"}) {
        const auto c =
            localConfig(protocol, EstimatorKind::Identity, Metric::SSE, Scale::Frequencies);
        auto r = errorVsPopulation(h, c, 1.0, sizes, {});
        QVERIFY(r);
        QCOMPARE(r->size(), sizes.size());
        const double first = (*r)[0].point.value * 10;
        for (const auto& p : *r) {
            QVERIFY(p.point.exact);
            const double scaled = p.point.value * static_cast<double>(p.population);
            QVERIFY2(near(scaled, first, 1e-12),
                     dpxtest::nearMessage(protocol, scaled, first, 1e-12 * first).constData());
        }
    }
    const auto l1 = localConfig("oue", EstimatorKind::Identity, Metric::L1, Scale::Frequencies);
    CurveOptions o;
    o.trials = 4000;
    o.seed = 3;
    const std::vector<std::int64_t> big{10'000, 1'000'000};
    auto r = errorVsPopulation(h, l1, 1.0, big, o);
    QVERIFY(r);
    for (const auto& p : *r) {
        QVERIFY(!p.point.exact && p.point.valid());
        const Histogram scaled = *scaleToPopulation(h, p.population);
        ldp::ProtocolSpec spec = l1.local;
        spec.epsilon = 1;
        spec.domain = 4;
        double predicted = 0;
        for (std::int64_t theta : scaled.counts()) {
            predicted += std::sqrt(2 / std::numbers::pi) *
                         std::sqrt(*ldp::estimatorVariance(
                             spec, static_cast<std::uint64_t>(p.population),
                             static_cast<double>(theta) / static_cast<double>(p.population)));
        }
        const double se = (p.point.ciHigh - p.point.ciLow) / (2 * 1.96);
        const double tol = 4 * se + 1e-3 * predicted;
        QVERIFY2(
            std::abs(p.point.value - predicted) <= tol,
            dpxtest::nearMessage("L1 ≈ Σ √(2/π)·sd", p.point.value, predicted, tol).constData());
    }
    const double ratio = (*r)[0].point.value / (*r)[1].point.value;  // √(10⁶/10⁴) = 10
    QVERIFY2(std::abs(ratio - 10) < 0.5,
             dpxtest::nearMessage("L1 ratio", ratio, 10, 0.5).constData());
    // A local configuration that cannot work on this histogram is an error, not missing points.
    const std::vector<std::int64_t> any{100};
    QVERIFY(!errorVsPopulation(h, localConfig("rr", EstimatorKind::Identity, Metric::SSE), 1.0, any,
                               {}));
}

// Central Laplace against local protocols at equal ε on the telemetry histogram (32 bins,
// N = 10 000): Laplace calibrated for replace-one neighbours (Δ1 = 2, the relation the local
// guarantee covers; see core/choosing/tradeoff.h) has SSE = D·2(2/ε)², independent of N, while
// every local report carries its own noise, so a local SSE in counts is N·(N·Σ Var) ∝ N (at ε = 5:
// GRR 4.7·10³ against 10.2): the central model wins everywhere on [0.1, 5]. Not for every N and ε:
// with N = 20 at ε = 10 a report is truthful with probability e^ε/(e^ε+D−1) ≈ 0.9999 and GRR's SSE
// falls like e^(−ε), below Laplace's 8D/ε². Between local protocols the frontier switches from
// OUE to GRR where their SSE cross (D < 3e^ε + 2 for f → 0, seed 001 §2.4; exactly, with Σf = 1,
// where D(x+D−2) + (D−2)(x−1) = 4Dx + (x−1)², x = e^ε).
void TestTradeoff::localFrontier() {
    const Histogram h =
        hist({7,   23,  24,  61,  75,  138, 152, 217, 290, 349, 414, 492, 616, 708, 724, 731,
              760, 711, 641, 617, 544, 451, 360, 255, 214, 139, 106, 86,  41,  28,  19,  7});
    QCOMPARE(h.total(), std::int64_t(10000));
    auto laplace = config(TradeoffMechanism::Laplace, EstimatorKind::Identity, Metric::SSE);
    laplace.sensitivity = {2, std::sqrt(2.0), true};
    const auto grid = *logSpacedEpsilons(0.1, 5, 11);
    std::vector<ErrorCurve> curves{*errorCurve(h, laplace, grid, {})};
    for (const char* protocol : {"grr", "oue", "sue", "olh", "hrr", "dbitflip1"}) {
        curves.push_back(
            *errorCurve(h, localConfig(protocol, EstimatorKind::Identity, Metric::SSE), grid, {}));
    }
    const Frontier f = resolveStatisticalTies(curves, lowerEnvelope(curves));
    QCOMPARE(f.points.size(), grid.size());
    for (const auto& p : f.points) {
        QCOMPARE(p.curve, std::size_t(0));
        QVERIFY(near(p.value, 32 * 8 / (p.epsilon * p.epsilon), 1e-9));
    }
    QCOMPARE(f.segments.size(), std::size_t(1));
    QCOMPARE(f.segments[0].label, std::string("laplace:identity"));

    // The limit of the claim: few users, large ε.
    const Histogram small = hist({8, 5, 4, 3});
    const double e10 = 10;
    const double grrSse =
        pointAt(small, localConfig("grr", EstimatorKind::Identity, Metric::SSE), e10).value;
    const double lapSse = pointAt(small, laplace, e10).value;
    QVERIFY(near(lapSse, 4 * 8 / 100.0, 1e-9));
    QVERIFY2(grrSse < lapSse,
             dpxtest::nearMessage("GRR below Laplace", grrSse, lapSse, 0).constData());

    // OUE then GRR on the frequency scale; the switch lies between the grid points around the
    // exact crossing x* = (−64 + √(64² + 4·929))/2 for D = 32 (the quadratic above).
    const auto fine = *logSpacedEpsilons(0.5, 6, 23);
    const std::vector<ErrorCurve> local{
        *errorCurve(h, localConfig("oue", EstimatorKind::Identity, Metric::SSE, Scale::Frequencies),
                    fine, {}),
        *errorCurve(h, localConfig("grr", EstimatorKind::Identity, Metric::SSE, Scale::Frequencies),
                    fine, {})};
    const Frontier g = lowerEnvelope(local);
    QCOMPARE(g.segments.size(), std::size_t(2));
    QCOMPARE(g.segments[0].label, std::string("oue:identity"));
    QCOMPARE(g.segments[1].label, std::string("grr:identity"));
    const double crossing = std::log((-64 + std::sqrt(64.0 * 64 + 4 * 929)) / 2);
    const auto above = std::upper_bound(fine.begin(), fine.end(), crossing);
    QVERIFY(above != fine.begin() && above != fine.end());
    QVERIFY2(
        g.segments[0].epsilonTo >= *(above - 1) && g.segments[0].epsilonTo <= *above,
        dpxtest::nearMessage("OUE/GRR switch", g.segments[0].epsilonTo, crossing, 0).constData());
}

// OUE identity SSE (frequencies) = (4D·x/(x−1)² + 1)/N (Wang et al. Thm 2, x = e^ε): the target t
// is met from the larger root of A(x−1)² = 4Dx, A = N·t − 1.
void TestTradeoff::localSolveOue() {
    const Histogram h = hist({3, 8, 12, 5});
    const auto c = localConfig("oue", EstimatorKind::Identity, Metric::SSE, Scale::Frequencies);
    const double target = 0.05, n = 28, d = 4;
    auto s = smallestEpsilonFor(target, c, h, 0.01, 20);
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    const double a = n * target - 1;
    const double x =
        ((2 * a + 4 * d) + std::sqrt((2 * a + 4 * d) * (2 * a + 4 * d) - 4 * a * a)) / (2 * a);
    QVERIFY2(near(s->epsilon, std::log(x), 2e-6),
             dpxtest::nearMessage("ε*", s->epsilon, std::log(x), 2e-6 * std::log(x)).constData());
    const CurvePoint at = pointAt(h, c, s->epsilon);
    QVERIFY(at.exact);
    QVERIFY2(at.value <= target, dpxtest::nearMessage("f(ε*)", at.value, target, 0).constData());
    QVERIFY(near(at.value, target, 1e-4));
    const CurvePoint below = pointAt(h, c, s->epsilon * (1 - 3e-6));
    QVERIFY2(below.value > target,
             dpxtest::nearMessage("f(ε*(1−3e-6))", below.value, target, 0).constData());
    // Counts scale: the same ε for the target N²·t.
    auto counts = c;
    counts.metric.scale = Scale::Counts;
    auto sc = smallestEpsilonFor(target * n * n, counts, h, 0.01, 20);
    QVERIFY(sc);
    QVERIFY(near(sc->epsilon, s->epsilon, 2e-6));
}

// OLH's hash range g = round(e^ε + 1) switches at e^ε = g − ½; with D = 4 the identity SSE jumps
// UP at e^ε = 2.5 (g 3 → 4): N·SSE = 18.5 just below, 19.37 just above (the closed form of
// localExactSse). For the target N·SSE = 18.9 the smallest ε lies just below ln 2.5, in the piece
// g = 3, although the SSE is above the target again right after the switch.
void TestTradeoff::localSolveOlhSawtooth() {
    const Histogram h = hist({40, 30, 20, 10});
    const auto c = localConfig("olh", EstimatorKind::Identity, Metric::SSE, Scale::Frequencies);
    const double target = 18.9 / 100;
    const double lo = 0.05, hi = 5;
    const double after = pointAt(h, c, std::log(2.5) + 1e-9).value;
    QVERIFY2(after > target,
             dpxtest::nearMessage("after the switch", after, target, 0).constData());
    auto s = smallestEpsilonFor(target, c, h, lo, hi);
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    QVERIFY(s->epsilon < std::log(2.5) && s->epsilon > std::log(1.5));
    ldp::ProtocolSpec spec = c.local;
    spec.epsilon = s->epsilon;
    spec.domain = 4;
    QCOMPARE(ldp::oracleConstants(spec)->hashRange, std::size_t(3));
    QVERIFY(pointAt(h, c, s->epsilon).value <= target);
    QVERIFY(pointAt(h, c, s->epsilon * (1 - 3e-6)).value > target);
    // Nothing below ε* (to the solver's tolerance) meets the target: a fine scan.
    auto scan = *logSpacedEpsilons(lo, s->epsilon * (1 - 3e-6), 20001);
    auto below = errorCurve(h, c, scan, {});
    QVERIFY(below);
    for (const auto& p : below->points) {
        QVERIFY2(p.value > target,
                 dpxtest::nearMessage("below ε*", p.value, target, 0).constData());
    }
    // Far up: N·SSE → 1 + 4D/e^ε; 1.05 needs e^ε ≈ 320, thousands of pieces above lo.
    const double far = 1.05 / 100;
    auto t = smallestEpsilonFor(far, c, h, lo, 20);
    QVERIFY2(t, t ? "" : t.error().message.c_str());
    QVERIFY(pointAt(h, c, t->epsilon).value <= far);
    QVERIFY(pointAt(h, c, t->epsilon * (1 - 3e-6)).value > far);
    QVERIFY(t->epsilon > std::log(250.0) && t->epsilon < std::log(400.0));
    // Unreachable: N·SSE ≥ 1 for OLH at any ε.
    auto u = smallestEpsilonFor(0.99 / 100, c, h, lo, 20);
    QVERIFY(!u);
    QVERIFY2(dpxtest::mentions(u.error().message, "not reachable"), u.error().message.c_str());
}

void TestTradeoff::localRejections() {
    const Histogram h = hist({3, 8, 12, 5});
    const double e1 = 1;
    auto expectError = [&](const Histogram& hh, const TradeoffConfig& c, const char* needle) {
        auto r = errorCurve(hh, c, std::span(&e1, 1), {});
        QVERIFY2(!r, needle);
        QVERIFY2(dpxtest::mentions(r.error().message, needle), r.error().message.c_str());
    };
    auto nf = localConfig("oue", EstimatorKind::NoiseFirst, Metric::SSE);
    QVERIFY(!nf.validate());
    QVERIFY(dpxtest::mentions(nf.validate().error().message, "noisefirst"));
    expectError(h, nf, "noisefirst");
    expectError(hist({3, 8, 12}), localConfig("rr", EstimatorKind::Identity, Metric::SSE),
                "exactly 2 bins");
    expectError(h, localConfig("dbitflip5", EstimatorKind::Identity, Metric::SSE), "d = 5");
    auto zeroBits = localConfig("dbitflip1", EstimatorKind::Identity, Metric::SSE);
    zeroBits.local.bits = 0;
    QVERIFY(!zeroBits.validate());
    expectError(h, zeroBits, "bits");
    expectError(hist({9}), localConfig("grr", EstimatorKind::Identity, Metric::SSE), "at least 2");
    {
        std::vector<std::int64_t> wide(ldp::kMaxDomain + 1, 0);
        wide[0] = 1;
        expectError(hist(std::move(wide)), localConfig("grr", EstimatorKind::Identity, Metric::SSE),
                    "at most");
    }
    expectError(hist({0, 0}), localConfig("rr", EstimatorKind::Identity, Metric::SSE), "total 0");
    // ε: bad values are errors; values a protocol does not accept are missing points.
    const auto grr = localConfig("grr", EstimatorKind::Identity, Metric::SSE);
    for (double e : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        QVERIFY(!errorCurve(h, grr, std::span(&e, 1), {}));
    }
    const CurvePoint big = pointAt(h, grr, 60);
    QVERIFY(!big.valid());
    QVERIFY2(dpxtest::mentions(big.method, "unavailable") && dpxtest::mentions(big.method, "50"),
             big.method.c_str());
    const CurvePoint olh = pointAt(h, localConfig("olh", EstimatorKind::Identity, Metric::SSE), 45);
    QVERIFY2(!olh.valid() && dpxtest::mentions(olh.method, "40"), olh.method.c_str());
    CurveOptions one;
    one.trials = 1;
    QVERIFY(!errorCurve(h, localConfig("grr", EstimatorKind::Clamp, Metric::L1), std::span(&e1, 1),
                        one));
    // Solving needs the exact identity SSE; the per-bin target is for noise per bin.
    for (const auto& c : {localConfig("grr", EstimatorKind::Clamp, Metric::SSE),
                          localConfig("grr", EstimatorKind::Identity, Metric::L1)}) {
        auto s = smallestEpsilonFor(1, c, h, 0.01, 20);
        QVERIFY(!s);
        QVERIFY2(dpxtest::mentions(s.error().message, "exact"), s.error().message.c_str());
    }
    QVERIFY(!smallestEpsilonFor(1, localConfig("oue", EstimatorKind::Identity, Metric::SSE), h,
                                0.01, 60));
    QVERIFY(!smallestEpsilonPerBin(1, 0.9, grr, 0.01, 10));
    QVERIFY(!perBinWithinProbability(grr, 1, 1));
}

void TestTradeoff::localCancellation() {
    const Histogram h = hist({3, 8, 2});
    std::stop_source src;
    src.request_stop();
    CurveOptions o;
    o.stop = src.get_token();
    const std::vector<double> grid{0.5, 1};
    auto c = errorCurve(h, localConfig("oue", EstimatorKind::Resize, Metric::W1), grid, o);
    QVERIFY(c);
    QVERIFY(c->cancelled);
    QCOMPARE(c->points.size(), std::size_t(2));
    QVERIFY(!c->points[0].valid());
    QVERIFY(dpxtest::mentions(c->points[0].method, "cancelled"));
}

// ---- sparse histograms (seed 003 §2.4.1, issue #9) -------------------------------------------

namespace {

TradeoffConfig sparseConfig(EstimatorKind e, Metric metric, double l1 = 2,
                            Scale scale = Scale::Counts) {
    TradeoffConfig c = config(TradeoffMechanism::SparseThreshold, e, metric, scale);
    // Replace-one (Δ1 = 2, Δ2 = √2) or add/remove (Δ1 = Δ2 = 1); only Δ1 is used.
    c.sensitivity = {l1, l1 == 2 ? std::sqrt(2.0) : l1, true};
    return c;
}

// E[(out − h)²] of one cell, out = (h + L)·1[h + L > τ], L ~ Laplace(b), from the definition
// (t = τ − h): h²·Pr[L ≤ t] + E[L²·1{L > t}], where ∫_t^∞ x² e^{−x/b}/(2b) dx =
// ½e^{−t/b}(t² + 2bt + 2b²) for t ≥ 0 and, for t < 0, 2b² − ½e^{t/b}(t² − 2bt + 2b²).
double sparseCellSse(double h, double b, double tau) {
    const double t = tau - h;
    const double cdf = t >= 0 ? 1 - 0.5 * std::exp(-t / b) : 0.5 * std::exp(t / b);
    const double tail = t >= 0
                            ? 0.5 * std::exp(-t / b) * (t * t + 2 * b * t + 2 * b * b)
                            : 2 * b * b - 0.5 * std::exp(t / b) * (t * t - 2 * b * t + 2 * b * b);
    return h * h * cdf + tail;
}

}  // namespace

// Under replace-one neighbours (Δ1 = 2) the sparse row is the seed's mechanism: its exact L1 is
// sparseExpectedError's, and the seed's comparison (Laplace clamped at 0) is the Laplace row with
// the clamp estimator. Reference: docs/mechanisms/sparse-histogram.md, ε = 1 on the Edwards-like
// table: thresholded 66.30646392470464, clamped 79.11921697729657.
void TestTradeoff::sparseSeedComparison() {
    auto h = makeExample("edwards-like");
    QVERIFY(h);
    const std::vector<double> grid{0.1, 0.5, 1, 4};
    auto sparse = errorCurve(*h, sparseConfig(EstimatorKind::Identity, Metric::L1), grid, {});
    TradeoffConfig clampCfg = config(TradeoffMechanism::Laplace, EstimatorKind::Clamp, Metric::L1);
    clampCfg.sensitivity = {2, std::sqrt(2.0), true};
    auto clamped = errorCurve(*h, clampCfg, grid, {});
    QVERIFY(sparse && clamped);
    for (std::size_t k = 0; k < grid.size(); ++k) {
        auto ref = sparseExpectedError(h->counts(), SparseHistogramParams{grid[k], std::nullopt});
        QVERIFY(ref);
        QVERIFY(sparse->points[k].exact);
        QVERIFY(clamped->points[k].exact);
        QVERIFY(near(sparse->points[k].value, ref->thresholdedL1, 1e-12));
        QVERIFY(near(clamped->points[k].value, ref->clampedL1, 1e-9));
    }
    QVERIFY(near(sparse->points[2].value, 66.30646392470464, 1e-12));
    QVERIFY(near(clamped->points[2].value, 79.11921697729657, 1e-9));
    // The clamp estimator changes nothing after thresholding (released values are > τ ≥ 0).
    auto sparseClamp = errorCurve(*h, sparseConfig(EstimatorKind::Clamp, Metric::L1), grid, {});
    QVERIFY(sparseClamp);
    QCOMPARE(sparseClamp->points[2].value, sparse->points[2].value);
    // Frequencies: ÷ N.
    auto freq = errorCurve(
        *h, sparseConfig(EstimatorKind::Identity, Metric::L1, 2, Scale::Frequencies), grid, {});
    QVERIFY(freq);
    QVERIFY(near(freq->points[2].value * 70, sparse->points[2].value, 1e-12));
    QCOMPARE(std::string(tradeoffMechanismName(TradeoffMechanism::SparseThreshold)),
             std::string("sparse"));
    QCOMPARE(sparseConfig(EstimatorKind::Resize, Metric::L1).defaultLabel(),
             std::string("sparse:resize"));
}

// Under add/remove (Δ1 = 1) the noise is Laplace(1/ε) and τ = (1/ε)·ln p: the seed's mechanism
// at 2ε.
void TestTradeoff::sparseAddRemoveIsSeedAtTwiceEpsilon() {
    const Histogram h = hist({0, 5, 0, 0, 40, 1, 0, 2, 0, 0, 0, 9});
    for (double e : {0.05, 0.7, 3.0}) {
        const CurvePoint pt = pointAt(h, sparseConfig(EstimatorKind::Identity, Metric::L1, 1), e);
        auto ref = sparseExpectedError(h.counts(), SparseHistogramParams{2 * e, std::nullopt});
        QVERIFY(ref);
        QVERIFY(pt.exact);
        QVERIFY(near(pt.value, ref->thresholdedL1, 1e-12));
    }
}

// An empty cell errs by L·1{L > τ}, mean ½e^{−τ/b}(τ + b) = (τ + b)/(2p) at τ = b ln p (seed 003
// §2.4.1); a cell of 10^6 records is never zeroed and errs by E|L| = b (to double precision). So
// 49 empty cells and one of 10^6 give 49(τ + b)/100 + b. (An all-empty histogram has N = 0, which
// the trade-off refuses.)
void TestTradeoff::sparseEmptyHistogramClosedForm() {
    std::vector<std::int64_t> counts(50, 0);
    counts[17] = 1'000'000;
    const Histogram h = hist(counts);
    for (double e : {0.2, 1.0, 8.0}) {
        const double b = 2 / e;
        const double tau = b * std::log(50.0);
        const CurvePoint pt = pointAt(h, sparseConfig(EstimatorKind::Identity, Metric::L1), e);
        QVERIFY(pt.exact);
        QVERIFY2(near(pt.value, 49 * (tau + b) / 100 + b, 1e-12),
                 dpxtest::nearMessage("L1", pt.value, 49 * (tau + b) / 100 + b, 0).constData());
    }
}

// SSE has no exact method in the row: Monte Carlo, checked against the closed form above.
void TestTradeoff::sparseMonteCarloSse() {
    const Histogram h = hist({0, 3, 0, 12, 1, 0, 0, 25});
    const std::vector<double> grid{0.3, 1, 5};
    CurveOptions o;
    o.trials = 40000;
    o.seed = 11;
    auto mc = errorCurve(h, sparseConfig(EstimatorKind::Identity, Metric::SSE), grid, o);
    QVERIFY(mc);
    for (std::size_t k = 0; k < grid.size(); ++k) {
        const CurvePoint& m = mc->points[k];
        QVERIFY(!m.exact);
        QCOMPARE(m.method, std::string("Monte Carlo"));
        QCOMPARE(m.trials, o.trials);
        const double b = 2 / grid[k];
        const double tau = b * std::log(8.0);
        double exact = 0;
        for (auto c : h.counts()) {
            exact += sparseCellSse(static_cast<double>(c), b, tau);
        }
        const double se = (m.ciHigh - m.ciLow) / (2 * 1.96);
        QVERIFY(se > 0);
        QVERIFY2(
            std::abs(m.value - exact) <= 4 * se,
            dpxtest::nearMessage("Monte Carlo vs closed form", m.value, exact, 4 * se).constData());
    }
}

// Forced Monte Carlo agrees with the exact L1; the result does not depend on the thread count;
// resize runs (Monte Carlo); a stop request gives missing points.
void TestTradeoff::sparseExactVsMonteCarloAndThreads() {
    const Histogram h = hist({0, 3, 0, 12, 1, 0, 0, 25, 0, 0});
    const std::vector<double> grid{0.5, 2};
    const auto c = sparseConfig(EstimatorKind::Identity, Metric::L1);
    auto exact = errorCurve(h, c, grid, {});
    CurveOptions o;
    o.trials = 30000;
    o.seed = 3;
    o.forceMonteCarlo = true;
    o.threads = 1;
    auto one = errorCurve(h, c, grid, o);
    o.threads = 2;
    auto two = errorCurve(h, c, grid, o);
    QVERIFY(exact && one && two);
    for (std::size_t k = 0; k < grid.size(); ++k) {
        const CurvePoint& m = one->points[k];
        QCOMPARE(two->points[k].value, m.value);
        const double se = (m.ciHigh - m.ciLow) / (2 * 1.96);
        QVERIFY2(
            std::abs(m.value - exact->points[k].value) <= 4 * se,
            dpxtest::nearMessage("Monte Carlo vs exact", m.value, exact->points[k].value, 4 * se)
                .constData());
    }
    auto resize = errorCurve(h, sparseConfig(EstimatorKind::Resize, Metric::W1), grid, o);
    QVERIFY(resize);
    QVERIFY(resize->points[0].valid());
    std::stop_source src;
    src.request_stop();
    o.stop = src.get_token();
    auto stopped = errorCurve(h, c, grid, o);
    QVERIFY(stopped);
    QVERIFY(stopped->cancelled);
    QVERIFY(!stopped->points[0].valid());
}

void TestTradeoff::sparseSolveAndRefusals() {
    auto h = makeExample("edwards-like");
    QVERIFY(h);
    const auto c = sparseConfig(EstimatorKind::Identity, Metric::L1);
    auto s = smallestEpsilonFor(100, c, *h, 0.01, 20);
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    QVERIFY(s->value <= 100 * (1 + 1e-9));
    const CurvePoint below = pointAt(*h, c, s->epsilon * 0.999);
    QVERIFY(below.value > 100);
    // Monte Carlo configurations cannot be solved for; NoiseFirst and the per-bin target are
    // refused.
    DPX_VERIFY_ERROR(
        smallestEpsilonFor(100, sparseConfig(EstimatorKind::Resize, Metric::L1), *h, 0.01, 20),
        "exact");
    DPX_VERIFY_ERROR(sparseConfig(EstimatorKind::NoiseFirst, Metric::L1).validate(), "NoiseFirst");
    DPX_VERIFY_ERROR(perBinWithinProbability(c, 1, 2), "sparse");
}

QTEST_GUILESS_MAIN(TestTradeoff)
#include "tst_tradeoff.moc"
