// The data-independent DPBench algorithms (Identity, Uniform, H2, HB, Privelet, HB2D,
// Privelet2D, QuadTree): registry entries, the budget split, the exact expected error of their
// strategies against dense matrices built here independently from each paper's definition
// (Eigen), the realized error against Monte Carlo, and bad inputs.
#include <QTest>

#include <Eigen/Dense>
#include <cmath>

#include "core/algorithms/algorithm.h"
#include "core/base/simulation_rng.h"
#include "core/workload/workload_error.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using Eigen::MatrixXd;

namespace {

const std::vector<std::string> kIds{"Identity", "Uniform", "H2",         "HB",
                                    "Privelet", "HB2D",    "Privelet2D", "QuadTree"};

bool twoD(const Algorithm& a) {
    return a.info().dimensions.size() == 1 && a.info().dimensions[0] == 2;
}

MatrixXd fromRows(const std::vector<std::vector<double>>& rows) {
    MatrixXd m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        for (std::size_t j = 0; j < rows[i].size(); ++j) {
            m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
        }
    }
    return m;
}

std::vector<double> interval(std::size_t n, std::size_t a, std::size_t b, double v = 1) {
    std::vector<double> r(n, 0.0);
    for (std::size_t i = a; i <= b; ++i) {
        r[i] = v;
    }
    return r;
}

std::vector<double> rect(std::size_t n, std::size_t r0, std::size_t r1, std::size_t c0,
                         std::size_t c1) {
    std::vector<double> r(n * n, 0.0);
    for (std::size_t i = r0; i <= r1; ++i) {
        for (std::size_t j = c0; j <= c1; ++j) {
            r[i * n + j] = 1;
        }
    }
    return r;
}

// The papers' strategies, written out: H2 on 8 cells = all dyadic intervals (Hay et al. 2010);
// HB on 256 cells: b minimises Qardaji et al.'s bound at N = 256 — b = 16 (checked below against
// hbBranching), root excluded: 16 blocks of 16, then the cells; Privelet on 8 = the Haar matrix
// (Xiao et al. 2010: total, then the ±1 half differences of blocks of 8, 4, 2); QuadTree on 4×4 =
// root, 4 quadrants, 16 cells; HB2D on 4 × 64 (N = 256, b = 16 per dimension): root excluded.
MatrixXd referenceMatrix(const std::string& id) {
    std::vector<std::vector<double>> rows;
    if (id == "Identity") {
        for (std::size_t i = 0; i < 8; ++i) {
            rows.push_back(interval(8, i, i));
        }
    } else if (id == "H2") {
        for (std::size_t len = 8; len >= 1; len /= 2) {
            for (std::size_t a = 0; a < 8; a += len) {
                rows.push_back(interval(8, a, a + len - 1));
            }
        }
    } else if (id == "HB") {
        for (std::size_t a = 0; a < 256; a += 16) {
            rows.push_back(interval(256, a, a + 15));
        }
        for (std::size_t i = 0; i < 256; ++i) {
            rows.push_back(interval(256, i, i));
        }
    } else if (id == "Privelet") {
        rows.push_back(interval(8, 0, 7));
        for (std::size_t len = 8; len >= 2; len /= 2) {
            for (std::size_t a = 0; a < 8; a += len) {
                auto r = interval(8, a, a + len / 2 - 1);
                for (std::size_t i = a + len / 2; i < a + len; ++i) {
                    r[i] = -1;
                }
                rows.push_back(r);
            }
        }
    } else if (id == "QuadTree") {
        rows.push_back(rect(4, 0, 3, 0, 3));
        for (std::size_t r = 0; r < 4; r += 2) {
            for (std::size_t c = 0; c < 4; c += 2) {
                rows.push_back(rect(4, r, r + 1, c, c + 1));
            }
        }
        for (std::size_t i = 0; i < 16; ++i) {
            rows.push_back(rect(4, i / 4, i / 4, i % 4, i % 4));
        }
    } else if (id == "HB2D") {
        // 4 × 64 cells, b = 16 on each dimension: the root splits into 4 × 16 blocks of 1 × 4.
        for (std::size_t r = 0; r < 4; ++r) {
            for (std::size_t c = 0; c < 64; c += 4) {
                std::vector<double> row(256, 0.0);
                for (std::size_t k = c; k < c + 4; ++k) {
                    row[r * 64 + k] = 1;
                }
                rows.push_back(row);
            }
        }
        for (std::size_t i = 0; i < 256; ++i) {
            rows.push_back(interval(256, i, i));
        }
    } else if (id == "Privelet2D") {
        // Kronecker product of the 4-cell Haar matrices.
        const MatrixXd h =
            (MatrixXd(4, 4) << 1, 1, 1, 1, 1, 1, -1, -1, 1, -1, 0, 0, 0, 0, 1, -1).finished();
        MatrixXd k(16, 16);
        for (int a = 0; a < 4; ++a) {
            for (int b = 0; b < 4; ++b) {
                k.block(a * 4, b * 4, 4, 4) = h(a, b) * h;
            }
        }
        return k;
    }
    return fromRows(rows);
}

DomainShape referenceShape(const std::string& id) {
    if (id == "HB") {
        return {256};
    }
    if (id == "QuadTree") {
        return {4, 4};
    }
    if (id == "HB2D") {
        return {4, 64};
    }
    if (id == "Privelet2D") {
        return {4, 4};
    }
    return {8};
}

MatrixXd denseWorkload(const Workload& w) {
    const std::size_t n = shapeCells(w.shape());
    MatrixXd m(static_cast<Eigen::Index>(w.queryCount()), static_cast<Eigen::Index>(n));
    std::vector<double> e(n);
    for (std::size_t j = 0; j < n; ++j) {
        std::fill(e.begin(), e.end(), 0.0);
        e[j] = 1;
        auto a = w.answers(e);
        for (std::size_t i = 0; i < w.queryCount(); ++i) {
            m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = (*a)[i];
        }
    }
    return m;
}

std::vector<double> sampleData(std::size_t n, std::uint64_t seed) {
    SimulationRng rng(seed, 4);
    std::vector<double> x(n);
    for (double& v : x) {
        v = std::floor(rng.uniform() * rng.uniform() * 40);
    }
    return x;
}

}  // namespace

class TestDataIndependent : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void registered();
    void budgetSplitSumsToEpsilon();
    void strategiesMatchThePapers();
    void monteCarloMatchesExactError();
    void uniformMatchesItsBiasAndVariance();
    void badInputs();
};

void TestDataIndependent::registered() {
    for (const std::string& id : kIds) {
        const Algorithm* a = findAlgorithm(id);
        QVERIFY2(a != nullptr, id.c_str());
        QCOMPARE(a->info().id, id);
        QVERIFY(!a->info().citation.empty());
        QVERIFY(!a->info().totalIsPublic);
        QVERIFY(a->info().parameters.empty());
        QCOMPARE(a->info().dataDependent, id == "Uniform");
        QVERIFY(a->info().docPage.rfind("docs/algorithms/", 0) == 0);
    }
    QVERIFY(findAlgorithm("hb2d") == findAlgorithm("HB2D"));
}

void TestDataIndependent::budgetSplitSumsToEpsilon() {
    for (const std::string& id : kIds) {
        const Algorithm& a = *findAlgorithm(id);
        const DomainShape shape = twoD(a) ? DomainShape{8, 8} : DomainShape{32};
        const auto x = sampleData(shapeCells(shape), 1);
        auto w = Workload::make(*WorkloadSpec::parse("range:20"), shape);
        for (double eps : {0.01, 1.0, 10.0}) {
            SimulationRng rng(2, 2);
            AlgorithmContext c;
            c.shape = shape;
            c.x = x;
            c.workload = &*w;
            c.epsilon = eps;
            c.rng = &rng;
            auto r = a.run(c);
            DPX_VERIFY_OK(r);
            double sum = 0;
            for (const BudgetStep& s : r->spent) {
                QVERIFY(!s.what.empty());
                sum += s.epsilon;
            }
            DPX_VERIFY_NEAR(sum, eps, 1e-12 * eps);
            QCOMPARE(r->estimate.size(), x.size());
        }
    }
}

void TestDataIndependent::strategiesMatchThePapers() {
    QCOMPARE(hbBranching(256), std::size_t{16});
    for (const std::string& id : kIds) {
        if (id == "Uniform") {
            continue;
        }
        const Algorithm& a = *findAlgorithm(id);
        const DomainShape shape = referenceShape(id);
        const MatrixXd ref = referenceMatrix(id);
        const MatrixXd minv = (ref.transpose() * ref).inverse();
        const double delta = ref.cwiseAbs().colwise().sum().maxCoeff();
        for (const char* kind : {"allrange", "range:30:seed=5", "prefix", "identity"}) {
            auto w = Workload::make(*WorkloadSpec::parse(kind), shape);
            auto s = a.strategy(shape, *w);
            QVERIFY2(s.hasValue(), s.hasValue() ? "" : s.error().message.c_str());
            QCOMPARE((*s)->rows(), static_cast<std::size_t>(ref.rows()));
            DPX_VERIFY_NEAR((*s)->sensitivityL1(), delta, 1e-12);
            const double eps = 0.5;
            auto e = expectedLeastSquaresError(**s, *w, eps);
            DPX_VERIFY_OK(e);
            const MatrixXd wd = denseWorkload(*w);
            const double exact = 2 * std::pow(delta / eps, 2) * (wd * minv).cwiseProduct(wd).sum();
            QVERIFY2(std::abs(e->totalSquared - exact) < 1e-9 * exact, (id + " " + kind).c_str());
        }
    }
}

void TestDataIndependent::monteCarloMatchesExactError() {
    for (const std::string& id : kIds) {
        if (id == "Uniform") {
            continue;
        }
        const Algorithm& a = *findAlgorithm(id);
        const DomainShape shape = twoD(a) ? DomainShape{8, 8} : DomainShape{64};
        const auto x = sampleData(shapeCells(shape), 3);
        auto w = Workload::make(*WorkloadSpec::parse("range:40:seed=8"), shape);
        auto s = a.strategy(shape, *w);
        QVERIFY2(s.hasValue(), s.hasValue() ? "" : s.error().message.c_str());
        auto exact = expectedLeastSquaresError(**s, *w, 1.0);
        DPX_VERIFY_OK(exact);
        SimulationRng rng(11, 0);
        AlgorithmContext c;
        c.shape = shape;
        c.x = x;
        c.workload = &*w;
        c.epsilon = 1.0;
        c.rng = &rng;
        const int trials = 3000;
        double sum = 0, sum2 = 0;
        for (int t = 0; t < trials; ++t) {
            auto r = a.run(c);
            DPX_VERIFY_OK(r);
            auto e = workloadError(*w, x, r->estimate, 1.0);
            sum += e->sumSquares;
            sum2 += e->sumSquares * e->sumSquares;
        }
        const double mean = sum / trials;
        const double se = std::sqrt((sum2 / trials - mean * mean) / trials);
        QVERIFY2(std::abs(mean - exact->totalSquared) < 5 * se,
                 (id + ": " + std::to_string(mean) + " vs " + std::to_string(exact->totalSquared) +
                  " ± " + std::to_string(se))
                     .c_str());
    }
}

void TestDataIndependent::uniformMatchesItsBiasAndVariance() {
    // x̂ = (m + Z)/n per cell, Z ~ Laplace(1/ε): a query of weight 1 over k cells errs by
    // (m·k/n − true) + Z·k/n, so E[err²] = bias² + 2(k/n)²/ε².
    const Algorithm& a = *findAlgorithm("Uniform");
    const DomainShape shape{6, 5};
    const auto x = sampleData(30, 4);
    double m = 0;
    for (double v : x) {
        m += v;
    }
    auto w = Workload::make(*WorkloadSpec::parse("range:25:seed=2"), shape);
    const double eps = 0.3;
    const auto truth = *w->answers(x);
    double exact = 0;
    for (std::uint64_t i = 0; i < w->queryCount(); ++i) {
        const RangeQuery q = w->query(i);
        const double k =
            double(q.box[0].hi - q.box[0].lo + 1) * double(q.box[1].hi - q.box[1].lo + 1);
        const double bias = m * k / 30 - truth[i];
        exact += bias * bias + 2 * (k / 30) * (k / 30) / (eps * eps);
    }
    SimulationRng rng(5, 5);
    AlgorithmContext c;
    c.shape = shape;
    c.x = x;
    c.workload = &*w;
    c.epsilon = eps;
    c.rng = &rng;
    const int trials = 20000;
    double sum = 0, sum2 = 0;
    for (int t = 0; t < trials; ++t) {
        auto r = a.run(c);
        auto e = workloadError(*w, x, r->estimate, 1.0);
        sum += e->sumSquares;
        sum2 += e->sumSquares * e->sumSquares;
    }
    const double mean = sum / trials;
    const double se = std::sqrt((sum2 / trials - mean * mean) / trials);
    DPX_VERIFY_NEAR(mean, exact, 5 * se);
    DPX_VERIFY_ERROR(a.strategy(shape, *w), "depends on the data");
}

void TestDataIndependent::badInputs() {
    SimulationRng rng(1, 1);
    const std::vector<double> x(16, 1.0);
    auto w1 = Workload::make(*WorkloadSpec::parse("prefix"), {16});
    auto w2 = Workload::make(*WorkloadSpec::parse("prefix"), {4, 4});
    AlgorithmContext c;
    c.shape = {4, 4};
    c.x = x;
    c.workload = &*w2;
    c.rng = &rng;
    DPX_VERIFY_ERROR(findAlgorithm("HB")->run(c), "1-D");
    DPX_VERIFY_ERROR(findAlgorithm("Privelet")->run(c), "1-D");
    c.shape = {16};
    c.workload = &*w1;
    DPX_VERIFY_ERROR(findAlgorithm("QuadTree")->run(c), "2-D");
    c.epsilon = 0;
    DPX_VERIFY_ERROR(findAlgorithm("H2")->run(c), "epsilon|ε");
    c.epsilon = 1;
    c.parameters["rho"] = 0.5;
    DPX_VERIFY_ERROR(findAlgorithm("H2")->run(c), "no parameter 'rho'");
    c.parameters.clear();
    std::vector<double> neg(16, 1.0);
    neg[3] = -1;
    c.x = neg;
    DPX_VERIFY_ERROR(findAlgorithm("Identity")->run(c), "cell 3");
    // Privelet needs powers of 2.
    const std::vector<double> x12(12, 1.0);
    auto w12 = Workload::make(*WorkloadSpec::parse("prefix"), {12});
    c.shape = {12};
    c.x = x12;
    c.workload = &*w12;
    DPX_VERIFY_ERROR(findAlgorithm("Privelet")->run(c), "power of 2");
}

QTEST_APPLESS_MAIN(TestDataIndependent)
#include "tst_data_independent.moc"
