// The workload algorithms of issue #20 as trade-off configurations (core/choosing/tradeoff.h,
// "Workload algorithms"). References: the identity strategy's closed form E[SSE] = n·2/ε²
// (Laplace(1/ε) in each of n cells, least squares = the noisy cells); HB's and HB2D's exact SSE =
// expectedLeastSquaresError of the strategy on the identity workload (the matrix-mechanism trace
// 2b²·trace((AᵀA)⁻¹), Li et al. 2015), checked once more against Monte Carlo runs of the
// algorithm itself within 4 standard errors (fixed seed); the Monte Carlo points against
// algorithmError at the same seed (the same runs: L1 = scaledL1·q·m, L∞ = scaledLinf·m); the
// accuracy-first inverse of the identity closed form, ε = √(2n/target).
#include <QTest>

#include <cmath>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "core/accuracy/metrics.h"
#include "core/algorithms/algorithm.h"
#include "core/algorithms/algorithm_error.h"
#include "core/choosing/tradeoff.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

Histogram hist(std::vector<std::int64_t> c) {
    return *Histogram::create(std::move(c));
}

// A sparse-ish 1-D shape of 32 bins (a bump and a few isolated counts).
Histogram bump32() {
    std::vector<std::int64_t> c(32, 0);
    for (std::size_t i = 10; i < 18; ++i) {
        c[i] = static_cast<std::int64_t>(40 + 10 * (i % 4));
    }
    c[2] = 3;
    c[27] = 7;
    return hist(c);
}

// 8 × 8 cells, C order.
Histogram grid8() {
    std::vector<std::int64_t> c(64);
    for (std::size_t i = 0; i < 64; ++i) {
        c[i] = static_cast<std::int64_t>((i / 8 + 1) * (i % 8 < 4 ? 5 : 1));
    }
    return hist(c);
}

TradeoffConfig algo(const std::string& name, Metric metric, std::vector<std::size_t> shape = {}) {
    auto c = algorithmConfigFromName(name);
    if (!c) {
        qFatal("%s", c.error().message.c_str());
    }
    c->metric.metric = metric;
    c->cellShape = std::move(shape);
    return *c;
}

double exactSse(const LinearStrategy& s, const DomainShape& shape, double epsilon) {
    auto w = Workload::make(WorkloadSpec{}, shape);
    return expectedLeastSquaresError(s, *w, epsilon)->totalSquared;
}

}  // namespace

class TestTradeoffAlgorithm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namesRoundTrip();
    void validationMessages();
    void exactIdentityAndHb();
    void exactHb2d();
    void monteCarloAgreesWithAlgorithmError();
    void monteCarloAgreesWithExact();
    void reproducibleAndCancellable();
    void populationAndSolver();
};

void TestTradeoffAlgorithm::namesRoundTrip() {
    QCOMPARE(algorithmConfigName("DAWA", {}), std::string("algo:dawa"));
    QCOMPARE(algorithmConfigName("MWEM", {{"rounds", 20}, {"ratio", 0.25}}),
             std::string("algo:mwem(ratio=0.25,rounds=20)"));
    for (const Algorithm* a : allAlgorithms()) {
        const std::string name = algorithmConfigName(a->info().id, {});
        auto c = algorithmConfigFromName(name);
        QVERIFY2(c, name.c_str());
        QCOMPARE(c->mechanism, TradeoffMechanism::Algorithm);
        QCOMPARE(c->algorithm, a->info().id);
        QCOMPARE(c->name(), name);
        QVERIFY(c->validate());
    }
    auto m = algorithmConfigFromName("algo:MWEM(rounds=20,ratio=0.25)");
    QVERIFY(m);
    QCOMPARE(m->algorithm, std::string("MWEM"));
    QCOMPARE(m->algorithmParameters.at("rounds"), 20.0);
    QCOMPARE(m->name(), std::string("algo:mwem(ratio=0.25,rounds=20)"));
    auto again = algorithmConfigFromName(m->name());
    QVERIFY(again);
    QCOMPARE(again->algorithmParameters, m->algorithmParameters);
    QVERIFY(isAlgorithmConfigName("algo:hb"));
    QVERIFY(!isAlgorithmConfigName("laplace:identity"));
    QCOMPARE(std::string(tradeoffMechanismName(TradeoffMechanism::Algorithm)), std::string("algo"));
}

void TestTradeoffAlgorithm::validationMessages() {
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:nosuch"), "unknown workload algorithm 'nosuch'");
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:nosuch"), "dawa");  // lists the known ids
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:mwem(rounds=0)"), "rounds");
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:mwem(rounds=2.5)"), "whole numbers");
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:mwem(speed=2)"), "no parameter 'speed'");
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:mwem(rounds)"), "NAME=VALUE");
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:mwem(rounds=x)"), "not a number");
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:mwem(rounds=3"), "parentheses");
    DPX_VERIFY_ERROR(algorithmConfigFromName("algo:mwem(rounds=3,rounds=4)"), "twice");
    DPX_VERIFY_ERROR(algorithmConfigFromName("laplace:identity"), "algo:ID");

    const std::vector<double> eps{1};
    CurveOptions o;
    o.algorithmTrials = 4;
    // A 2-D algorithm on a 1-D histogram and the reverse; a shape that does not fit.
    DPX_VERIFY_ERROR(errorCurve(bump32(), algo("algo:dawa2d", Metric::L1), eps, o),
                     "runs on 2-D tables; this one is 1-D");
    DPX_VERIFY_ERROR(errorCurve(grid8(), algo("algo:hb", Metric::L1, {8, 8}), eps, o),
                     "runs on 1-D tables; this one is 2-D (8 × 8 cells)");
    DPX_VERIFY_ERROR(errorCurve(grid8(), algo("algo:hb2d", Metric::L1, {4, 8}), eps, o),
                     "has 32 cells but the histogram has 64 bins");
    // No estimator; add/remove Δ1 = 1 only.
    TradeoffConfig clamp = algo("algo:hb", Metric::SSE);
    clamp.estimator = EstimatorKind::Clamp;
    DPX_VERIFY_ERROR(clamp.validate(), "no estimator applies");
    TradeoffConfig replace = algo("algo:hb", Metric::SSE);
    replace.sensitivity = {2, std::sqrt(2.0), true};
    DPX_VERIFY_ERROR(replace.validate(), "Δ1 = 2");
    TradeoffConfig unknown;
    unknown.mechanism = TradeoffMechanism::Algorithm;
    unknown.algorithm = "Nope";
    DPX_VERIFY_ERROR(unknown.validate(), "unknown workload algorithm");
    CurveOptions bad = o;
    bad.algorithmTrials = 1;
    DPX_VERIFY_ERROR(errorCurve(bump32(), algo("algo:dawa", Metric::L1), eps, bad), "10^6 runs");
    // The per-bin target is for noise-per-bin mechanisms only.
    DPX_VERIFY_ERROR(perBinWithinProbability(algo("algo:identity", Metric::SSE), 1, 2),
                     "workload algorithm");
}

void TestTradeoffAlgorithm::exactIdentityAndHb() {
    const Histogram h = bump32();
    const std::vector<double> eps{0.1, 1, 10};
    auto id = errorCurve(h, algo("algo:identity", Metric::SSE), eps, {});
    QVERIFY2(id, id ? "" : id.error().message.c_str());
    for (const CurvePoint& p : id->points) {
        QVERIFY(p.exact);
        QVERIFY(p.method.find("exact") == 0);
        const double closed = 32 * 2 / (p.epsilon * p.epsilon);  // n·2b², b = 1/ε
        QVERIFY2(std::abs(p.value - closed) <= 1e-9 * closed, std::to_string(p.value).c_str());
    }
    auto hb = errorCurve(h, algo("algo:hb", Metric::SSE), eps, {});
    QVERIFY(hb);
    for (const CurvePoint& p : hb->points) {
        QVERIFY(p.exact);
        auto strategy = hbStrategy({32});
        QVERIFY(strategy);
        const double ref = exactSse(**strategy, {32}, p.epsilon);
        QVERIFY(std::abs(p.value - ref) <= 1e-12 * ref);
    }
    // Frequency scale: SSE / N².
    TradeoffConfig freq = algo("algo:identity", Metric::SSE);
    freq.metric.scale = Scale::Frequencies;
    auto f = errorCurve(h, freq, std::vector<double>{1}, {});
    QVERIFY(f);
    const double n = static_cast<double>(h.total());
    QVERIFY(std::abs(f->points[0].value - 64.0 / (n * n)) <= 1e-12 * f->points[0].value);
    // Data-dependent algorithms and other metrics are Monte Carlo.
    QVERIFY(!algorithmExactAvailable(algo("algo:dawa", Metric::SSE)));
    QVERIFY(!algorithmExactAvailable(algo("algo:hb", Metric::L1)));
    QVERIFY(!algorithmExactAvailable(algo("algo:greedyh(branching=4)", Metric::SSE)));
    QVERIFY(algorithmExactAvailable(algo("algo:greedyh", Metric::SSE)));
}

void TestTradeoffAlgorithm::exactHb2d() {
    const Histogram h = grid8();
    const std::vector<double> eps{0.5, 2};
    for (const char* name : {"algo:hb2d", "algo:quadtree", "algo:privelet2d", "algo:identity"}) {
        auto c = errorCurve(h, algo(name, Metric::SSE, {8, 8}), eps, {});
        QVERIFY2(c, name);
        const Algorithm* a = findAlgorithm(std::string(name).substr(5));
        auto w = Workload::make(WorkloadSpec{}, {8, 8});
        auto s = a->strategy({8, 8}, *w);
        QVERIFY(s);
        for (const CurvePoint& p : c->points) {
            QVERIFY(p.exact);
            const double ref = expectedLeastSquaresError(**s, *w, p.epsilon)->totalSquared;
            QVERIFY2(std::abs(p.value - ref) <= 1e-12 * ref, name);
        }
    }
    // The 2-D identity's closed form: 64 cells × 2/ε².
    auto id = errorCurve(h, algo("algo:identity", Metric::SSE, {8, 8}), eps, {});
    QVERIFY(std::abs(id->points[0].value - 64 * 2 / 0.25) <= 1e-9 * id->points[0].value);
}

void TestTradeoffAlgorithm::monteCarloAgreesWithAlgorithmError() {
    const Histogram h = bump32();
    const std::vector<double> x = h.countsAsDouble();
    const double m = static_cast<double>(h.total());
    auto w = Workload::make(WorkloadSpec{}, {32});
    for (const char* id : {"DAWA", "AHP", "HB"}) {
        for (Metric metric : {Metric::L1, Metric::LInf}) {
            TradeoffConfig c = algo(std::string("algo:") + id, metric);
            CurveOptions o;
            o.algorithmTrials = 40;
            o.seed = 7;
            o.threads = 2;
            auto curve = errorCurve(h, c, std::vector<double>{0.5}, o);
            QVERIFY2(curve, id);
            const CurvePoint& p = curve->points[0];
            QVERIFY(!p.exact);
            QCOMPARE(p.method, std::string("Monte Carlo"));
            QCOMPARE(p.trials, std::uint64_t{40});
            AlgorithmErrorRequest r;
            r.algorithm = findAlgorithm(id);
            r.shape = {32};
            r.x = x;
            r.workload = &*w;
            r.epsilon = 0.5;
            r.trials = 40;
            r.seed = 7;
            r.threads = 1;  // a different thread count: the same runs
            auto e = algorithmError(r);
            QVERIFY(e);
            const double ref =
                metric == Metric::L1 ? e->scaledL1.mean * 32 * m : e->scaledLinf.mean * m;
            const double se = metric == Metric::L1 ? e->scaledL1.standardError * 32 * m
                                                   : e->scaledLinf.standardError * m;
            QVERIFY2(std::abs(p.value - ref) <= 1e-9 * ref, id);
            QVERIFY(p.ciLow <= ref && ref <= p.ciHigh);
            QVERIFY(std::abs((p.ciHigh - p.value) - 1.96 * se) <= 1e-9 * ref);
        }
    }
}

void TestTradeoffAlgorithm::monteCarloAgreesWithExact() {
    const Histogram h = bump32();
    for (const char* name : {"algo:identity", "algo:hb", "algo:privelet"}) {
        CurveOptions o;
        o.algorithmTrials = 4000;
        o.seed = 3;
        o.forceMonteCarlo = true;
        const std::vector<double> eps{1};
        auto mc = errorCurve(h, algo(name, Metric::SSE), eps, o);
        auto exact = errorCurve(h, algo(name, Metric::SSE), eps, {});
        QVERIFY(mc && exact);
        const double se = (mc->points[0].ciHigh - mc->points[0].value) / 1.96;
        QVERIFY2(std::abs(mc->points[0].value - exact->points[0].value) <= 4 * se,
                 (std::string(name) + ": " + std::to_string(mc->points[0].value) + " vs " +
                  std::to_string(exact->points[0].value))
                     .c_str());
    }
}

void TestTradeoffAlgorithm::reproducibleAndCancellable() {
    const Histogram h = bump32();
    const std::vector<double> eps{0.1, 1, 10};
    CurveOptions o;
    o.algorithmTrials = 10;
    o.seed = 11;
    std::vector<double> seen;
    o.progress = [&seen](double f) { seen.push_back(f); };
    auto a = errorCurve(h, algo("algo:mwem", Metric::W1), eps, o);
    o.progress = {};
    auto b = errorCurve(h, algo("algo:mwem", Metric::W1), eps, o);
    QVERIFY(a && b);
    for (std::size_t i = 0; i < eps.size(); ++i) {
        QVERIFY(a->points[i].valid());
        QCOMPARE(a->points[i].value, b->points[i].value);
    }
    QVERIFY(!seen.empty());
    QCOMPARE(seen.back(), 1.0);
    // Error falls with ε (MWEM's noise and its selection both sharpen).
    QVERIFY(a->points[2].value < a->points[0].value);

    std::stop_source stop;
    stop.request_stop();
    o.stop = stop.get_token();
    auto c = errorCurve(h, algo("algo:dawa", Metric::L1), eps, o);
    QVERIFY(c);
    QVERIFY(c->cancelled);
    for (const CurvePoint& p : c->points) {
        QVERIFY(!p.valid());
        QVERIFY(p.method.find("cancelled") != std::string::npos);
    }
}

void TestTradeoffAlgorithm::populationAndSolver() {
    const Histogram h = bump32();
    // Against N: the truth scaled by scaleToPopulation; identity SSE does not depend on N.
    auto pts = errorVsPopulation(h, algo("algo:identity", Metric::SSE), 1,
                                 std::vector<std::int64_t>{100, 10000}, {});
    QVERIFY(pts);
    QCOMPARE(pts->size(), std::size_t{2});
    for (const auto& p : *pts) {
        QVERIFY(p.point.exact);
        QVERIFY(std::abs(p.point.value - 64) <= 1e-9 * 64);
    }
    CurveOptions o;
    o.algorithmTrials = 8;
    auto dawa = errorVsPopulation(h, algo("algo:dawa", Metric::L1), 1,
                                  std::vector<std::int64_t>{100, 100000}, o);
    QVERIFY(dawa);
    QVERIFY((*dawa)[0].point.valid() && (*dawa)[1].point.valid());

    // Accuracy first: identity's closed form ε = √(2n/target); HB by bisection; DAWA and L1
    // refused with the reason.
    auto s = smallestEpsilonFor(6.4, algo("algo:identity", Metric::SSE), h, 0.01, 20);
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    QVERIFY(std::abs(s->epsilon - std::sqrt(64 / 6.4)) <= 1e-5 * s->epsilon);
    auto hb = smallestEpsilonFor(50, algo("algo:hb", Metric::SSE), h, 0.01, 20);
    QVERIFY(hb);
    QVERIFY(hb->value <= 50 * (1 + 1e-9));
    DPX_VERIFY_ERROR(smallestEpsilonFor(50, algo("algo:dawa", Metric::SSE), h, 0.01, 20),
                     "data-dependent");
    DPX_VERIFY_ERROR(smallestEpsilonFor(50, algo("algo:hb", Metric::L1), h, 0.01, 20),
                     "choose SSE");
}

QTEST_GUILESS_MAIN(TestTradeoffAlgorithm)
#include "tst_tradeoff_algorithm.moc"
