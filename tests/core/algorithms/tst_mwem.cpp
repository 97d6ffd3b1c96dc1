// MWEM (core/algorithms/mwem.cpp; Hardt, Ligett & McSherry, NIPS 2012): the grouped
// multiplicative-weights update against a dense reference written here (same draws, every cell
// updated one by one), the error falling with rounds on a skewed shape at large ε, the update
// reducing the error of the query it measured, the total kept at m (public, as in DPBench), the
// budget split, and bad inputs.
#include <QTest>

#include <cmath>

#include "core/algorithms/registry_list.h"
#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "core/mechanisms/exponential_mechanism.h"
#include "tests/core/algorithms/dd1_test_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

bool inside(const RangeQuery& q, const DomainShape& shape, std::size_t cell) {
    if (shape.size() == 1) {
        return cell >= q.box[0].lo && cell <= q.box[0].hi;
    }
    const std::size_t r = cell / shape[1], c = cell % shape[1];
    return r >= q.box[0].lo && r <= q.box[0].hi && c >= q.box[1].lo && c <= q.box[1].hi;
}

// MWEM with a dense update: every measured query's indicator row applied cell by cell. Draws in
// the same order as the algorithm (one uniform for the selection, one Laplace per measurement).
std::vector<double> denseMwem(const DomainShape& shape, const std::vector<double>& x,
                              const Workload& w, double eps, std::size_t rounds, double ratio,
                              std::size_t sweeps, SimulationRng& rng) {
    const std::size_t n = x.size(), nq = w.queryCount();
    double m = 0;
    for (double v : x) {
        m += v;
    }
    std::vector<double> xhat(n, m / static_cast<double>(n));
    const auto truth = *w.answers(x);
    const double er = eps / static_cast<double>(rounds), es = ratio * er, em = er - es;
    std::vector<std::size_t> picked;
    std::vector<double> ys;
    std::vector<char> chosen(nq, 0);
    for (std::size_t t = 0; t < rounds; ++t) {
        const auto est = *w.answers(xhat);
        std::vector<double> score(nq);
        for (std::size_t i = 0; i < nq; ++i) {
            score[i] = chosen[i] ? 0.0 : std::abs(truth[i] - est[i]);
        }
        const auto prob = exponentialMechanismProbabilities(score, es / 2);
        double u = rng.uniform();
        std::size_t pick = nq - 1;
        for (std::size_t i = 0; i < nq; ++i) {
            u -= prob[i];
            if (u < 0) {
                pick = i;
                break;
            }
        }
        chosen[pick] = 1;
        picked.push_back(pick);
        ys.push_back(truth[pick] + sampleNoise(NoiseDistribution::laplace(1 / em), rng));
        for (std::size_t s = 0; s < sweeps; ++s) {
            for (std::size_t h = 0; h < picked.size(); ++h) {
                const RangeQuery q = w.query(picked[h]);
                double answer = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    answer += inside(q, shape, i) ? xhat[i] : 0.0;
                }
                double total = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    if (inside(q, shape, i)) {
                        xhat[i] *= std::exp((ys[h] - answer) / (2 * m));
                    }
                    total += xhat[i];
                }
                for (double& v : xhat) {
                    v *= m / total;
                }
            }
        }
    }
    return xhat;
}

std::vector<double> skewed(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = std::floor(400 * std::exp(-0.15 * static_cast<double>(i)));
    }
    return x;
}

}  // namespace

class TestMwem : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesDenseUpdate();
    void errorFallsWithRounds();
    void updateFixesTheMeasuredQuery();
    void budgetSumsToEpsilon();
    void badInputs();
};

void TestMwem::matchesDenseUpdate() {
    struct Case {
        DomainShape shape;
        const char* workload;
    };
    for (const Case& c : {Case{{40}, "range:60:seed=3"}, Case{{8, 8}, "range:50:seed=4"}}) {
        const std::size_t n = shapeCells(c.shape);
        std::vector<double> x(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = static_cast<double>((i * i * 7) % 23);
        }
        const Workload w = dd1test::workload(c.workload, c.shape);
        SimulationRng a(9, 1), b(9, 1);
        auto r = dd1test::run(mwemAlgorithm(), c.shape, x, w, 2.0, a,
                              {{"rounds", 6}, {"sweeps", 15}, {"ratio", 0.4}});
        DPX_VERIFY_OK(r);
        const auto ref = denseMwem(c.shape, x, w, 2.0, 6, 0.4, 15, b);
        for (std::size_t i = 0; i < n; ++i) {
            DPX_VERIFY_NEAR(r->estimate[i], ref[i], 1e-9 * (1 + std::abs(ref[i])));
        }
    }
}

void TestMwem::errorFallsWithRounds() {
    // Skewed data (a decaying exponential on 64 cells, m ≈ 2 800), 200 random ranges, ε = 50: the
    // selection finds the worst query almost surely and the measurement is nearly exact, so more
    // rounds fit the data better. Mean over 5 fixed seeds per setting.
    const std::size_t n = 64;
    const std::vector<double> x = skewed(n);
    const Workload w = dd1test::workload("range:200:seed=2", {n});
    double previous = 0;
    for (double rounds : {1.0, 4.0, 16.0}) {
        double err = 0;
        for (std::uint64_t s = 0; s < 5; ++s) {
            SimulationRng rng(100 + s, 0);
            auto r = dd1test::run(mwemAlgorithm(), {n}, x, w, 50, rng, {{"rounds", rounds}});
            DPX_VERIFY_OK(r);
            err += dd1test::squaredError(w, x, r->estimate);
        }
        if (previous > 0) {
            QVERIFY2(
                err < 0.7 * previous,
                qPrintable(
                    QStringLiteral("%1 rounds: %2 after %3").arg(rounds).arg(err).arg(previous)));
        }
        previous = err;
    }
}

void TestMwem::updateFixesTheMeasuredQuery() {
    // One round at ε = 10⁴: the exponential mechanism picks the query the uniform start answers
    // worst, and the multiplicative update brings that query's answer close to the truth.
    const std::size_t n = 64;
    const std::vector<double> x = skewed(n);
    const Workload w = dd1test::workload("range:200:seed=2", {n});
    double m = 0;
    for (double v : x) {
        m += v;
    }
    const auto truth = *w.answers(x);
    const auto start = *w.answers(std::vector<double>(n, m / static_cast<double>(n)));
    std::size_t worst = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        if (std::abs(truth[i] - start[i]) > std::abs(truth[worst] - start[worst])) {
            worst = i;
        }
    }
    SimulationRng rng(5, 0);
    auto r = dd1test::run(mwemAlgorithm(), {n}, x, w, 1e4, rng, {{"rounds", 1}});
    DPX_VERIFY_OK(r);
    const auto after = *w.answers(r->estimate);
    QVERIFY(std::abs(after[worst] - truth[worst]) < 0.05 * std::abs(start[worst] - truth[worst]));
    // The total stays m (MWEM treats it as public).
    double total = 0;
    for (double v : r->estimate) {
        total += v;
    }
    DPX_VERIFY_REL(total, m, 1e-12);
    QVERIFY(mwemAlgorithm().info().totalIsPublic);
}

void TestMwem::budgetSumsToEpsilon() {
    const std::vector<double> x = skewed(30);
    const Workload w = dd1test::workload("prefix", {30});
    const Workload w2 = dd1test::workload("range:30", {5, 6});
    SimulationRng rng(1, 0);
    for (double eps : {0.01, 1.0, 40.0}) {
        for (double rounds : {1.0, 7.0, 30.0}) {
            for (double ratio : {0.1, 0.5, 0.9}) {
                const std::map<std::string, double> p{
                    {"rounds", rounds}, {"ratio", ratio}, {"sweeps", 5}};
                auto r = dd1test::run(mwemAlgorithm(), {30}, x, w, eps, rng, p);
                DPX_VERIFY_OK(r);
                QCOMPARE(r->spent.size(), static_cast<std::size_t>(2 * rounds));
                DPX_VERIFY_NEAR(dd1test::sumSpent(*r), eps, 1e-12 * eps);
                auto r2 = dd1test::run(mwemAlgorithm(), {5, 6}, x, w2, eps, rng, p);
                DPX_VERIFY_OK(r2);
                DPX_VERIFY_NEAR(dd1test::sumSpent(*r2), eps, 1e-12 * eps);
            }
        }
    }
}

void TestMwem::badInputs() {
    SimulationRng rng(1, 0);
    std::vector<double> x(8, 1);
    const Workload w = dd1test::workload("prefix", {8});
    DPX_VERIFY_ERROR(dd1test::run(mwemAlgorithm(), {8}, x, w, 1, rng, {{"rounds", 0}}), "rounds");
    DPX_VERIFY_ERROR(dd1test::run(mwemAlgorithm(), {8}, x, w, 1, rng, {{"rounds", 2.5}}), "rounds");
    DPX_VERIFY_ERROR(dd1test::run(mwemAlgorithm(), {8}, x, w, 1, rng, {{"ratio", 0}}), "ratio");
    const Workload w3 = dd1test::workload("identity", {2, 2, 2});
    DPX_VERIFY_ERROR(dd1test::run(mwemAlgorithm(), {2, 2, 2}, x, w3, 1, rng), "3-D");
    // All-zero data: no update is possible (m = 0); the estimate stays 0.
    std::vector<double> zero(8, 0.0);
    auto r = dd1test::run(mwemAlgorithm(), {8}, zero, w, 1, rng);
    DPX_VERIFY_OK(r);
    for (double v : r->estimate) {
        QCOMPARE(v, 0.0);
    }
}

QTEST_APPLESS_MAIN(TestMwem)
#include "tst_mwem.moc"
