// DPBench's data scaling (core/workload/data_scale.h; LABELS core statistical, fixed seeds):
// coarsen against a brute-force sum over every target cell's block; resample's counts sum to m
// exactly, its per-cell means and variances match the multinomial's m·p and m·p·(1 − p) within
// 5 standard errors over 4 000 draws, and a draw of 10^12 records works (time independent of m).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/workload/builtin_shapes.h"
#include "core/workload/data_scale.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

// Target cell (i, j, k) of a 3-D coarsening is the sum over its block, by four nested loops.
std::vector<double> bruteForce3d(const std::vector<double>& x, const DomainShape& from,
                                 const DomainShape& to) {
    std::vector<double> out(to[0] * to[1] * to[2], 0.0);
    const std::size_t f0 = from[0] / to[0], f1 = from[1] / to[1], f2 = from[2] / to[2];
    for (std::size_t i = 0; i < to[0]; ++i) {
        for (std::size_t j = 0; j < to[1]; ++j) {
            for (std::size_t k = 0; k < to[2]; ++k) {
                double s = 0;
                for (std::size_t a = i * f0; a < (i + 1) * f0; ++a) {
                    for (std::size_t b = j * f1; b < (j + 1) * f1; ++b) {
                        for (std::size_t c = k * f2; c < (k + 1) * f2; ++c) {
                            s += x[(a * from[1] + b) * from[2] + c];
                        }
                    }
                }
                out[(i * to[1] + j) * to[2] + k] = s;
            }
        }
    }
    return out;
}

std::vector<double> randomCounts(std::size_t n, std::uint64_t seed) {
    SimulationRng rng(seed, 0);
    std::vector<double> x(n);
    for (double& v : x) {
        v = std::floor(rng.uniform() * 50);
    }
    return x;
}

}  // namespace

class TestDataScale : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void coarsenMatchesBruteForce_data() {
        QTest::addColumn<QList<int>>("from");
        QTest::addColumn<QList<int>>("to");
        QTest::newRow("1-D 4096 -> 256") << QList<int>{4096, 1, 1} << QList<int>{256, 1, 1};
        QTest::newRow("1-D unchanged") << QList<int>{60, 1, 1} << QList<int>{60, 1, 1};
        QTest::newRow("1-D to total") << QList<int>{60, 1, 1} << QList<int>{1, 1, 1};
        QTest::newRow("2-D 12x8 -> 4x2") << QList<int>{12, 8, 1} << QList<int>{4, 2, 1};
        QTest::newRow("2-D 64x64 -> 16x64") << QList<int>{64, 64, 1} << QList<int>{16, 64, 1};
        QTest::newRow("3-D 6x4x9 -> 3x2x3") << QList<int>{6, 4, 9} << QList<int>{3, 2, 3};
    }
    void coarsenMatchesBruteForce() {
        QFETCH(QList<int>, from);
        QFETCH(QList<int>, to);
        DomainShape f3, t3;  // the 3-D form of the case, for the brute force
        for (int v : from) {
            f3.push_back(static_cast<std::size_t>(v));
        }
        for (int v : to) {
            t3.push_back(static_cast<std::size_t>(v));
        }
        const std::vector<double> x = randomCounts(f3[0] * f3[1] * f3[2], 7);
        const std::vector<double> expected = bruteForce3d(x, f3, t3);
        // Call coarsen with the case's real number of dimensions (trailing 1s dropped).
        DomainShape f = f3, t = t3;
        while (f.size() > 1 && f.back() == 1 && t.back() == 1) {
            f.pop_back();
            t.pop_back();
        }
        auto got = coarsen(x, f, t);
        DPX_VERIFY_OK(got);
        QCOMPARE(got->size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE((*got)[i], expected[i]);  // exact: sums of small integers
        }
        QCOMPARE(std::accumulate(got->begin(), got->end(), 0.0),
                 std::accumulate(x.begin(), x.end(), 0.0));
    }

    void coarsenBadInputs() {
        const std::vector<double> x(12, 1.0);
        DPX_VERIFY_ERROR(coarsen(x, {12}, {5}), "5 does not divide");
        DPX_VERIFY_ERROR(coarsen(x, {12}, {24}), "24 does not divide");
        DPX_VERIFY_ERROR(coarsen(x, {3, 4}, {3, 3}), "dimension 2");
        DPX_VERIFY_ERROR(coarsen(x, {12}, {2, 2}), "dimension");
        DPX_VERIFY_ERROR(coarsen(x, {10}, {5}), "12 cells");
        DPX_VERIFY_ERROR(coarsen(x, {12}, {0}), "target domain");
        std::vector<double> bad(x);
        bad[3] = std::nan("");
        DPX_VERIFY_ERROR(coarsen(bad, {12}, {6}), "cell 3");
    }

    void resampleSumsToMExactly() {
        const std::vector<double> x = randomCounts(4096, 3);
        for (std::uint64_t m : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{100000},
                                std::uint64_t{10000000}, std::uint64_t{999999999989}}) {
            SimulationRng rng(11, m);
            auto r = resample(x, m, rng);
            DPX_VERIFY_OK(r);
            QCOMPARE(r->size(), x.size());
            double total = 0;
            for (std::size_t i = 0; i < x.size(); ++i) {
                const double v = (*r)[i];
                QVERIFY(v >= 0 && v == std::floor(v));
                QVERIFY2(x[i] > 0 || v == 0, "an empty cell drew records");
                total += v;
            }
            QCOMPARE(total, static_cast<double>(m));
        }
    }

    void resampleHugeScaleWorks() {
        // 10^12 records over 4 096 cells: as many binomial draws as for m = 10 (not a timed test).
        const std::vector<double> x = randomCounts(4096, 5);
        SimulationRng rng(1, 0);
        auto r = resample(x, 1'000'000'000'000ULL, rng);
        DPX_VERIFY_OK(r);
        QCOMPARE(std::accumulate(r->begin(), r->end(), 0.0), 1e12);
        // Each cell is within 8 sd of m·p (sd ≤ √(m/4) = 5·10^5).
        const double sum = std::accumulate(x.begin(), x.end(), 0.0);
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double p = x[i] / sum;
            DPX_VERIFY_NEAR((*r)[i], 1e12 * p, 8 * std::sqrt(1e12 * p * (1 - p)) + 1e-9);
        }
    }

    void resampleMomentsMatchMultinomial() {
        // m·p_i and m·p_i·(1 − p_i) over R draws; covariance of two cells −m·p_i·p_j.
        const std::vector<double> x{5, 0, 1, 20, 3, 70, 1};
        const double sum = std::accumulate(x.begin(), x.end(), 0.0);
        const std::uint64_t m = 500;
        const int R = 4000;
        const std::size_t k = x.size();
        std::vector<double> mean(k, 0), m2(k, 0);
        double cov35 = 0;
        std::vector<std::vector<double>> draws;
        for (int r = 0; r < R; ++r) {
            SimulationRng rng(2026, static_cast<std::uint64_t>(r));
            auto d = resample(x, m, rng);
            DPX_VERIFY_OK(d);
            draws.push_back(*d);
            for (std::size_t i = 0; i < k; ++i) {
                mean[i] += (*d)[i] / R;
            }
        }
        for (const auto& d : draws) {
            for (std::size_t i = 0; i < k; ++i) {
                m2[i] += (d[i] - mean[i]) * (d[i] - mean[i]) / (R - 1);
            }
            cov35 += (d[3] - mean[3]) * (d[5] - mean[5]) / (R - 1);
        }
        const double md = static_cast<double>(m);
        for (std::size_t i = 0; i < k; ++i) {
            const double p = x[i] / sum;
            const double var = md * p * (1 - p);
            if (var == 0) {
                QCOMPARE(mean[i], 0.0);
                QCOMPARE(m2[i], 0.0);
                continue;
            }
            DPX_VERIFY_NEAR(mean[i], md * p, 5 * std::sqrt(var / R));
            // The sample variance's standard error ≈ var·√(2/R) (plus the small excess kurtosis
            // (1 − 6pq)/(mpq) of a binomial, below 1/var here).
            DPX_VERIFY_NEAR(m2[i], var, 5 * var * std::sqrt((2 + 1 / var) / R));
        }
        const double p3 = x[3] / sum, p5 = x[5] / sum;
        const double cov = -md * p3 * p5;
        const double sd3 = std::sqrt(md * p3 * (1 - p3)), sd5 = std::sqrt(md * p5 * (1 - p5));
        DPX_VERIFY_NEAR(cov35, cov, 5 * sd3 * sd5 * std::sqrt(2.0 / R));
    }

    void resampleIsSeeded() {
        const std::vector<double> x = randomCounts(256, 9);
        SimulationRng a(4, 2), b(4, 2), c(4, 3);
        auto ra = resample(x, 10000, a), rb = resample(x, 10000, b), rc = resample(x, 10000, c);
        DPX_VERIFY_OK(ra);
        DPX_VERIFY_OK(rc);
        QVERIFY(*ra == *rb);
        QVERIFY(*ra != *rc);
    }

    void resampleBadInputs() {
        SimulationRng rng(1, 0);
        const std::vector<double> zeros(8, 0.0);
        DPX_VERIFY_ERROR(resample(zeros, 10, rng), "total is 0");
        DPX_VERIFY_ERROR(resample(std::vector<double>{1, -1, 3}, 10, rng), "cell 1");
        DPX_VERIFY_ERROR(resample(std::vector<double>{1, INFINITY}, 10, rng), "cell 1");
        DPX_VERIFY_ERROR(resample(std::vector<double>{}, 10, rng), "no cells");
        DPX_VERIFY_ERROR(resample(std::vector<double>{1, 2}, 0, rng), "at least 1");
        DPX_VERIFY_ERROR(resample(std::vector<double>{1, 2}, 1'000'000'000'001ULL, rng), "10^12");
    }
    void builtinShapes() {
        for (const DomainShape& shape :
             {DomainShape{4096}, DomainShape{256, 256}, DomainShape{7}}) {
            for (const std::string& name : builtinShapeNames()) {
                auto x = builtinShape(name, shape);
                DPX_VERIFY_OK(x);
                QCOMPARE(x->size(), shapeCells(shape));
                double sum = 0;
                for (double v : *x) {
                    QVERIFY(std::isfinite(v) && v >= 0);
                    sum += v;
                }
                QVERIFY(sum > 0);
                QVERIFY(*builtinShape(name, shape) == *x);  // deterministic
            }
        }
        // sparse: about 1 % of 65 536 cells non-empty (binomial sd ≈ 25).
        auto sparse = builtinShape("sparse", {256, 256});
        const auto nonEmpty =
            std::count_if(sparse->begin(), sparse->end(), [](double v) { return v > 0; });
        QVERIFY2(nonEmpty > 500 && nonEmpty < 811, QByteArray::number(qlonglong(nonEmpty)));
        // step: 16 constant runs, neighbouring runs differ.
        auto step = builtinShape("step", {4096});
        int changes = 0;
        for (std::size_t i = 1; i < step->size(); ++i) {
            changes += (*step)[i] != (*step)[i - 1] ? 1 : 0;
        }
        QCOMPARE(changes, 15);
        // uniform is flat; gauss peaks in the middle; zipf decreases.
        auto uni = builtinShape("uniform", {64});
        QVERIFY(std::all_of(uni->begin(), uni->end(), [](double v) { return v == 1; }));
        auto g = builtinShape("gauss", {101});
        QVERIFY((*g)[50] > (*g)[40] && (*g)[50] > (*g)[60] && (*g)[0] < 1e-3 * (*g)[50]);
        auto z = builtinShape("zipf", {2, 3});  // product: (1/(i+1))·(1/(j+1))
        QCOMPARE((*z)[5], 1.0 / 2 / 3);
        DPX_VERIFY_ERROR(builtinShape("lumpy", {10}), "uniform, step, gauss, zipf, sparse");
        DPX_VERIFY_ERROR(builtinShape("uniform", {0}), "dimension");
    }
};

QTEST_APPLESS_MAIN(TestDataScale)
#include "tst_data_scale.moc"
