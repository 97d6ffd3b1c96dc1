// GreedyH (core/algorithms/greedy_h.h): the weighted tree against a dense-matrix computation with
// Eigen (A built row by row from the nodes, (AᵀA)⁺ by a complete orthogonal decomposition): the
// greedy's own predicted trace(W (AᵀA)⁺ Wᵀ), solveGram, least squares, Aᵀ and Δ₁ = 1; the error
// is at most H₂'s (all levels weight 1, Δ₁ = levels) on prefixes and random ranges; Monte Carlo
// of the whole run against the exact expected error; the budget; bad inputs.
#include <QTest>

#include <Eigen/Dense>
#include <cmath>

#include "core/algorithms/greedy_h.h"
#include "core/base/simulation_rng.h"
#include "tests/core/algorithms/dd1_test_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

Eigen::MatrixXd denseA(const WeightedTreeStrategy& s) {
    const std::size_t n = s.shape()[0];
    Eigen::MatrixXd a =
        Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(s.rows()), static_cast<Eigen::Index>(n));
    Eigen::Index r = 0;
    for (const auto& node : s.nodes()) {
        if (node.weight > 0) {
            for (std::size_t j = node.start; j < node.start + node.size; ++j) {
                a(r, static_cast<Eigen::Index>(j)) = node.weight;
            }
            ++r;
        }
    }
    return a;
}

Eigen::MatrixXd denseW(const Workload& w) {
    const auto n = static_cast<Eigen::Index>(w.shape()[0]);
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(w.queryCount()), n);
    for (std::uint64_t i = 0; i < w.queryCount(); ++i) {
        const RangeQuery q = w.query(i);
        for (auto j = q.box[0].lo; j <= q.box[0].hi; ++j) {
            m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = q.weight;
        }
    }
    return m;
}

// trace(W (AᵀA)⁺ Wᵀ) by dense linear algebra.
double denseTrace(const Eigen::MatrixXd& a, const Eigen::MatrixXd& w) {
    const Eigen::MatrixXd pinv =
        (a.transpose() * a).completeOrthogonalDecomposition().pseudoInverse();
    return (w * pinv * w.transpose()).trace();
}

std::unique_ptr<WeightedTreeStrategy> tree(const Workload& w, std::size_t b = 2,
                                           std::size_t g = 100) {
    auto pw = piecewiseWorkload(w);
    if (!pw) {
        qFatal("%s", pw.error().message.c_str());
    }
    auto t = greedyHierarchy(*pw, b, g);
    if (!t) {
        qFatal("%s", t.error().message.c_str());
    }
    return std::move(t).value();
}

// The binary hierarchy with every node weighted 1 (H₂), dense, on n cells split as GreedyH does.
Eigen::MatrixXd denseH2(std::size_t n) {
    std::vector<std::pair<std::size_t, std::size_t>> nodes{{0, n}};
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto [s, len] = nodes[i];
        if (len > 1) {
            nodes.push_back({s, len / 2});
            nodes.push_back({s + len / 2, len - len / 2});
        }
    }
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(nodes.size()),
                                              static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (std::size_t j = nodes[i].first; j < nodes[i].first + nodes[i].second; ++j) {
            a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = 1;
        }
    }
    return a;
}

}  // namespace

class TestGreedyH : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void treeMatchesDenseAlgebra_data();
    void treeMatchesDenseAlgebra();
    void sparseFractionalQueriesMatchDense();
    void beatsH2();
    void monteCarloMatchesExactError();
    void budgetSumsToEpsilon();
    void strategyIsTheRunsStrategy();
    void badInputs();
};

void TestGreedyH::treeMatchesDenseAlgebra_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("b");
    QTest::newRow("prefix 13") << QStringLiteral("prefix") << 13 << 2;
    QTest::newRow("prefix 16 b3") << QStringLiteral("prefix") << 16 << 3;
    QTest::newRow("allrange 11") << QStringLiteral("allrange") << 11 << 2;
    QTest::newRow("identity 9") << QStringLiteral("identity") << 9 << 2;
    QTest::newRow("total 8 (one leaf)") << QStringLiteral("total") << 8 << 2;
    QTest::newRow("random 40") << QStringLiteral("range:25:seed=3") << 40 << 2;
    QTest::newRow("boxes (uniform leaves)")
        << QStringLiteral("boxes:0..7;8..15;0..15;16..19") << 20 << 2;
}

void TestGreedyH::treeMatchesDenseAlgebra() {
    QFETCH(QString, text);
    QFETCH(int, n);
    QFETCH(int, b);
    const DomainShape shape{static_cast<std::size_t>(n)};
    const Workload w = dd1test::workload(text.toStdString(), shape);
    auto s = tree(w, static_cast<std::size_t>(b));
    const Eigen::MatrixXd a = denseA(*s);
    const Eigen::MatrixXd wm = denseW(w);
    // The greedy's own error (built from prefix sums) equals the dense trace.
    DPX_VERIFY_REL(s->predictedVariance(), denseTrace(a, wm), 1e-9);
    // Every root-to-leaf path sums to 1: Δ₁ = max column L1 norm = 1.
    DPX_VERIFY_NEAR(s->sensitivityL1(), a.cwiseAbs().colwise().sum().maxCoeff(), 1e-12);
    DPX_VERIFY_NEAR(s->sensitivityL1(), 1.0, 1e-12);
    DPX_VERIFY_NEAR(s->sensitivityL2(), std::sqrt(a.cwiseAbs2().colwise().sum().maxCoeff()), 1e-12);
    // solveGram = (AᵀA)⁺ b, least squares = (AᵀA)⁺ Aᵀ y, Aᵀ and A against the dense matrices.
    SimulationRng rng(5, 0);
    Eigen::VectorXd bvec(n), y(a.rows()), x(n);
    for (int i = 0; i < n; ++i) {
        bvec(i) = rng.uniform() - 0.5;
        x(i) = std::floor(10 * rng.uniform());
    }
    for (Eigen::Index i = 0; i < y.size(); ++i) {
        y(i) = 5 * rng.uniform();
    }
    const Eigen::MatrixXd pinv =
        (a.transpose() * a).completeOrthogonalDecomposition().pseudoInverse();
    // The pseudo-inverse acts on the row space of A; project b onto it first (b = Aᵀc).
    const Eigen::VectorXd bRow = a.transpose() * (a * bvec);
    std::vector<double> in(bRow.data(), bRow.data() + n), out(static_cast<std::size_t>(n));
    s->solveGram(in, out);
    const Eigen::VectorXd ref = pinv * bRow;
    for (int i = 0; i < n; ++i) {
        DPX_VERIFY_NEAR(out[static_cast<std::size_t>(i)], ref(i),
                        1e-9 * (1 + ref.cwiseAbs().maxCoeff()));
    }
    std::vector<double> ys(y.data(), y.data() + y.size()), xhat(static_cast<std::size_t>(n));
    s->leastSquares(ys, xhat);
    const Eigen::VectorXd lsRef = pinv * a.transpose() * y;
    for (int i = 0; i < n; ++i) {
        DPX_VERIFY_NEAR(xhat[static_cast<std::size_t>(i)], lsRef(i),
                        1e-9 * (1 + lsRef.cwiseAbs().maxCoeff()));
    }
    std::vector<double> xs(x.data(), x.data() + n), ax(s->rows()), aty(static_cast<std::size_t>(n));
    s->measure(xs, ax);
    s->transposeMeasure(ys, aty);
    const Eigen::VectorXd axRef = a * x, atyRef = a.transpose() * y;
    for (Eigen::Index i = 0; i < axRef.size(); ++i) {
        DPX_VERIFY_NEAR(ax[static_cast<std::size_t>(i)], axRef(i), 1e-9);
    }
    for (int i = 0; i < n; ++i) {
        DPX_VERIFY_NEAR(aty[static_cast<std::size_t>(i)], atyRef(i), 1e-9);
    }
}

void TestGreedyH::sparseFractionalQueriesMatchDense() {
    // DAWA hands GreedyH queries with fractional weights on scattered buckets (addSparse): the
    // predicted error and the pseudo-inverse still match the dense computation.
    const std::size_t n = 37;
    SimulationRng rng(3, 0);
    PiecewiseWorkload pw;
    pw.cells = n;
    Eigen::MatrixXd wm = Eigen::MatrixXd::Zero(60, static_cast<Eigen::Index>(n));
    for (Eigen::Index q = 0; q < 60; ++q) {
        std::vector<std::pair<std::size_t, double>> entries;
        for (std::size_t j = 0; j < n; ++j) {
            const double u = rng.uniform();
            if (u < 0.3) {
                const double value = u < 0.15 ? 1.0 : std::round(8 * rng.uniform()) / 8;
                entries.emplace_back(j, value);
                wm(q, static_cast<Eigen::Index>(j)) = value;
            }
        }
        pw.addSparse(entries);
    }
    auto s = greedyHierarchy(pw, 2, 100);
    QVERIFY(s.hasValue());
    DPX_VERIFY_REL((*s)->predictedVariance(), denseTrace(denseA(**s), wm), 1e-9);
    DPX_VERIFY_NEAR((*s)->sensitivityL1(), 1.0, 1e-12);
}

void TestGreedyH::beatsH2() {
    // E‖W x̂ − W x‖² = 2Δ₁²/ε²·trace: GreedyH (Δ₁ = 1) against H₂ (Δ₁ = number of levels), both
    // dense (the brief's check: the per-node optimisation should not lose to equal weights).
    for (const char* text : {"prefix", "range:200:seed=9001"}) {
        for (std::size_t n : {64, 100}) {
            const Workload w = dd1test::workload(text, {n});
            auto s = tree(w);
            const Eigen::MatrixXd h2 = denseH2(n);
            const double levels = h2.colwise().sum().maxCoeff();
            const double h2Error = levels * levels * denseTrace(h2, denseW(w));
            QVERIFY2(s->predictedVariance() <= h2Error,
                     qPrintable(QStringLiteral("%1 n=%2: GreedyH %3 vs H2 %4")
                                    .arg(QString::fromLatin1(text))
                                    .arg(n)
                                    .arg(s->predictedVariance())
                                    .arg(h2Error)));
        }
    }
}

void TestGreedyH::monteCarloMatchesExactError() {
    // Mean of ‖W x̂ − W x‖² over 4000 runs vs 2/ε²·trace (Δ₁ = 1). The squared error of a run has
    // a standard deviation of at most a few times its mean (a quadratic form in Laplace noise),
    // so the mean of 4000 is within ~10% at > 4 standard errors; fixed seeds.
    const std::size_t n = 32;
    const Workload w = dd1test::workload("range:50:seed=7", {n});
    const double eps = 0.5;
    auto s = tree(w);
    const double exact = 2 / (eps * eps) * s->predictedVariance();
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<double>((i * 7) % 5);
    }
    SimulationRng rng(11, 0);
    const Algorithm& a = greedyHAlgorithm();
    double sum = 0;
    const int runs = 4000;
    for (int t = 0; t < runs; ++t) {
        auto r = dd1test::run(a, {n}, x, w, eps, rng);
        DPX_VERIFY_OK(r);
        sum += dd1test::squaredError(w, x, r->estimate);
    }
    DPX_VERIFY_REL(sum / runs, exact, 0.1);
}

void TestGreedyH::budgetSumsToEpsilon() {
    const std::size_t n = 50;
    const Workload w = dd1test::workload("range:30:seed=2", {n});
    std::vector<double> x(n, 3);
    SimulationRng rng(1, 0);
    for (double eps : {0.01, 0.7, 12.0}) {
        for (double b : {2.0, 4.0}) {
            for (double g : {1.0, 100.0}) {
                auto r = dd1test::run(greedyHAlgorithm(), {n}, x, w, eps, rng,
                                      {{"branching", b}, {"granularity", g}});
                DPX_VERIFY_OK(r);
                DPX_VERIFY_NEAR(dd1test::sumSpent(*r), eps, 1e-12 * eps);
                QCOMPARE(r->estimate.size(), n);
            }
        }
    }
}

void TestGreedyH::strategyIsTheRunsStrategy() {
    const Workload w = dd1test::workload("prefix", {24});
    auto s = greedyHAlgorithm().strategy({24}, w);
    QVERIFY(s.hasValue());
    DPX_VERIFY_NEAR((*s)->sensitivityL1(), 1.0, 1e-12);
    QVERIFY(!greedyHAlgorithm().info().dataDependent);
    QVERIFY(greedyHAlgorithm().info().usesWorkload);
    QCOMPARE(findAlgorithm("greedyh"), &greedyHAlgorithm());
}

void TestGreedyH::badInputs() {
    SimulationRng rng(1, 0);
    const Workload w2 = dd1test::workload("identity", {4, 4});
    std::vector<double> x2(16, 1);
    DPX_VERIFY_ERROR(dd1test::run(greedyHAlgorithm(), {4, 4}, x2, w2, 1, rng), "1-D");
    const Workload w = dd1test::workload("prefix", {8});
    std::vector<double> x(8, 1);
    DPX_VERIFY_ERROR(dd1test::run(greedyHAlgorithm(), {8}, x, w, 1, rng, {{"branching", 1}}),
                     "branching");
    DPX_VERIFY_ERROR(dd1test::run(greedyHAlgorithm(), {8}, x, w, 1, rng, {{"levels", 3}}),
                     "levels");
    DPX_VERIFY_ERROR(dd1test::run(greedyHAlgorithm(), {8}, x, w, -1, rng), "ε|epsilon");
    PiecewiseWorkload bad;
    bad.cells = 4;
    bad.starts = {7};
    bad.values = {1};
    bad.offsets = {0, 1};
    DPX_VERIFY_ERROR(greedyHierarchy(bad, 2, 100), "outside");
    const Workload huge = dd1test::workload("allrange", {4200});
    DPX_VERIFY_ERROR(piecewiseWorkload(huge), "queries");
}

QTEST_APPLESS_MAIN(TestGreedyH)
#include "tst_greedy_h.moc"
