// Queries on tables (core/table/query.h) against independent references: box sums against nested
// loops over a dense table (and the same data stored sparsely), marginal-cell queries against
// ContingencyTable::marginal, the box syntax and its errors; the law of a sum of m cell noises
// (SummedNoise) against closed forms (Gaussian; two Laplace), numerical convolution of the
// discrete Laplace pmf (m ≤ 6) and of the Laplace density on a grid (m = 3, 5), Monte Carlo
// (fixed seeds), and the normal limit for m = 2⁴⁰ and 2⁶⁴ (whose correction, of order 1/m, is far
// below the tolerances).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>

#include <boost/math/distributions/normal.hpp>

#include "core/base/simulation_rng.h"
#include "core/table/query.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

Attribute attr(std::string name, std::vector<std::string> labels) {
    Attribute a;
    a.name = std::move(name);
    a.labels = std::move(labels);
    return a;
}

Attribute numbered(std::string name, std::size_t bins) {
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < bins; ++i)
        labels.push_back("v" + std::to_string(i));
    return attr(std::move(name), labels);
}

// A 4 × 3 × 5 table with random counts, and its counts as a nested array.
ContingencyTable randomTable(std::uint64_t seed, std::vector<std::int64_t>* countsOut = nullptr) {
    std::mt19937_64 gen(seed);
    std::uniform_int_distribution<std::int64_t> c(0, 20);
    std::vector<std::int64_t> counts(60);
    for (auto& x : counts)
        x = c(gen) < 5 ? 0 : c(gen);
    if (countsOut)
        *countsOut = counts;
    return ContingencyTable::dense({numbered("a", 4), numbered("b", 3), numbered("c", 5)}, counts)
        .value();
}

double normalAbsQuantile(double sd, double level) {
    return sd * boost::math::quantile(boost::math::normal(), (1 + level) / 2);
}

// pmf of the sum of m discrete Laplace(α) on [−K, K] by repeated convolution (mass beyond K is
// below α^K, negligible for the K used).
std::vector<double> discreteSumPmf(double alpha, int m, int K) {
    std::vector<double> z(2 * K + 1);
    for (int k = -K; k <= K; ++k)
        z[k + K] = (1 - alpha) / (1 + alpha) * std::pow(alpha, std::abs(k));
    std::vector<double> cur = z;
    for (int r = 2; r <= m; ++r) {
        std::vector<double> next(2 * K + 1, 0.0);
        for (int i = 0; i <= 2 * K; ++i) {
            for (int j = 0; j <= 2 * K; ++j) {
                const int k = (i - K) + (j - K);
                if (k >= -K && k <= K)
                    next[k + K] += cur[i] * z[j];
            }
        }
        cur = std::move(next);
    }
    return cur;
}

}  // namespace

class TestTableQuery : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void boxSumsAgainstNestedLoops();
    void sparseStorageSameAnswers();
    void marginalCellsAgainstMarginal();
    void cellQueries();
    void noisyAnswers();
    void parseBoxSyntax();
    void parseBoxErrors();
    void describeAndCount();
    void gaussianClosedForm();
    void laplaceTwoTermsClosedForm();
    void laplaceAgainstGridConvolution_data();
    void laplaceAgainstGridConvolution();
    void discreteAgainstConvolution_data();
    void discreteAgainstConvolution();
    void normalLimitForHugeM_data();
    void normalLimitForHugeM();
    void monteCarlo_data();
    void monteCarlo();
    void readout();
    void readoutErrors();
};

void TestTableQuery::boxSumsAgainstNestedLoops() {
    std::vector<std::int64_t> counts;
    const auto t = randomTable(7, &counts);
    std::mt19937_64 gen(8);
    for (int rep = 0; rep < 300; ++rep) {
        TableQuery q;
        const std::uint64_t sizes[] = {4, 3, 5};
        for (std::uint64_t n : sizes) {
            std::uniform_int_distribution<std::uint64_t> d(0, n - 1);
            std::uint64_t lo = d(gen), hi = d(gen);
            if (lo > hi)
                std::swap(lo, hi);
            q.box.push_back({lo, hi});
        }
        std::int64_t brute = 0;
        for (std::uint64_t i = q.box[0].lo; i <= q.box[0].hi; ++i)
            for (std::uint64_t j = q.box[1].lo; j <= q.box[1].hi; ++j)
                for (std::uint64_t k = q.box[2].lo; k <= q.box[2].hi; ++k)
                    brute += counts[(i * 3 + j) * 5 + k];
        QCOMPARE(trueAnswer(t, q).value(), brute);
        QCOMPARE(q.cellCount(t),
                 CellCount{(q.box[0].hi - q.box[0].lo + 1) * (q.box[1].hi - q.box[1].lo + 1) *
                           (q.box[2].hi - q.box[2].lo + 1)});
    }
    QCOMPARE(trueAnswer(t, TableQuery::all(t)).value(), t.total());
}

void TestTableQuery::sparseStorageSameAnswers() {
    // The same counts embedded in a 2⁴⁰-cell domain (extra attributes of 2¹⁸ and 2¹⁶ bins, all
    // records at their bin 7 and 0): box sums over the sparse table equal the dense ones.
    std::vector<std::int64_t> counts;
    const auto t = randomTable(9, &counts);
    std::vector<TableCell> cells;
    auto big = ContingencyTable::fromCells({numbered("a", 4), numbered("b", 3), numbered("c", 5),
                                            numbered("d", 1 << 18), numbered("e", 1 << 16)},
                                           {});
    DPX_VERIFY_OK(big);
    for (std::uint64_t i = 0; i < 60; ++i) {
        if (counts[i] == 0)
            continue;
        auto c = t.coordinates(i);
        c.push_back(7);
        c.push_back(0);
        cells.push_back({big->cellIndex(c), counts[i]});
    }
    auto s = ContingencyTable::fromCells(big->attributes(), cells);
    DPX_VERIFY_OK(s);
    QVERIFY(!s->isDense());
    std::mt19937_64 gen(10);
    for (int rep = 0; rep < 200; ++rep) {
        TableQuery q;
        for (std::uint64_t n : {4, 3, 5}) {
            std::uniform_int_distribution<std::uint64_t> d(0, n - 1);
            std::uint64_t lo = d(gen), hi = d(gen);
            if (lo > hi)
                std::swap(lo, hi);
            q.box.push_back({lo, hi});
        }
        TableQuery qs = q;
        qs.box.push_back({0, (1 << 18) - 1});
        qs.box.push_back({0, (1 << 16) - 1});
        QCOMPARE(trueAnswer(*s, qs).value(), trueAnswer(t, q).value());
        qs.box[3] = {0, 6};  // excludes bin 7: nothing
        QCOMPARE(trueAnswer(*s, qs).value(), std::int64_t{0});
    }
}

void TestTableQuery::marginalCellsAgainstMarginal() {
    const auto t = randomTable(11);
    for (std::size_t a = 0; a < 3; ++a) {
        for (std::size_t b = 0; b < 3; ++b) {
            if (a == b)
                continue;
            const std::size_t keep[] = {a, b};
            auto m = t.marginal(keep);
            DPX_VERIFY_OK(m);
            for (std::uint64_t i = 0; i < t.attribute(a).size(); ++i) {
                for (std::uint64_t j = 0; j < t.attribute(b).size(); ++j) {
                    const std::pair<std::size_t, std::uint64_t> fixed[] = {{a, i}, {b, j}};
                    auto q = TableQuery::marginalCell(t, fixed);
                    DPX_VERIFY_OK(q);
                    const std::uint64_t c[] = {i, j};
                    QCOMPARE(trueAnswer(t, *q).value(), m->count(m->cellIndex(c)));
                }
            }
        }
    }
    const std::pair<std::size_t, std::uint64_t> bad[] = {{0, 4}};
    DPX_VERIFY_ERROR(TableQuery::marginalCell(t, bad), "no bin #4");
    const std::pair<std::size_t, std::uint64_t> twice[] = {{0, 1}, {0, 2}};
    DPX_VERIFY_ERROR(TableQuery::marginalCell(t, twice), "twice");
    const std::pair<std::size_t, std::uint64_t> none[] = {{3, 0}};
    DPX_VERIFY_ERROR(TableQuery::marginalCell(t, none), "does not exist");
}

void TestTableQuery::cellQueries() {
    std::vector<std::int64_t> counts;
    const auto t = randomTable(12, &counts);
    auto q = TableQuery::ofCells({0, 17, 59});
    QCOMPARE(trueAnswer(t, q).value(), counts[0] + counts[17] + counts[59]);
    QCOMPARE(q.cellCount(t), CellCount{3});
    DPX_VERIFY_ERROR(trueAnswer(t, TableQuery::ofCells({3, 3})), "twice");
    DPX_VERIFY_ERROR(trueAnswer(t, TableQuery::ofCells({60})), "outside");
    DPX_VERIFY_ERROR(trueAnswer(t, TableQuery::ofCells({})), "at least one");
    TableQuery wrong;
    wrong.box = {{0, 1}};
    DPX_VERIFY_ERROR(trueAnswer(t, wrong), "3 attributes");
    wrong.box = {{0, 1}, {2, 1}, {0, 0}};
    DPX_VERIFY_ERROR(trueAnswer(t, wrong), "not inside");
}

void TestTableQuery::noisyAnswers() {
    const auto t = randomTable(13);
    std::vector<double> noisy(60);
    for (std::size_t i = 0; i < 60; ++i)
        noisy[i] = 0.5 * static_cast<double>(i) - 3;
    auto q = parseBoxQuery(t, "a=v1..v2,c=#4");
    DPX_VERIFY_OK(q);
    double brute = 0;
    std::vector<std::pair<std::uint64_t, double>> released;
    for (std::uint64_t i = 1; i <= 2; ++i)
        for (std::uint64_t j = 0; j < 3; ++j) {
            const std::uint64_t idx = (i * 3 + j) * 5 + 4;
            brute += noisy[idx];
        }
    QCOMPARE(noisyAnswer(t, *q, noisy).value(), brute);
    // Sparse release: only some cells, the rest 0.
    for (std::uint64_t i = 0; i < 60; i += 7)
        released.emplace_back(i, noisy[i]);
    double bruteSparse = 0;
    for (const auto& [i, v] : released) {
        const auto c = t.coordinates(i);
        if (c[0] >= 1 && c[0] <= 2 && c[2] == 4)
            bruteSparse += v;
    }
    QCOMPARE(noisyAnswerSparse(t, *q, released).value(), bruteSparse);
    DPX_VERIFY_ERROR(noisyAnswer(t, *q, std::vector<double>(59)), "59|60");
    const std::pair<std::uint64_t, double> outside[] = {{60, 1.0}};
    DPX_VERIFY_ERROR(noisyAnswerSparse(t, *q, outside), "outside");
}

void TestTableQuery::parseBoxSyntax() {
    Attribute age = attr("age", {"[0, 10)", "[10, 20)", "[20, 30)", "[30, 40]"});
    age.edges = {0, 10, 20, 30, 40};
    Attribute sex = attr("sex", {"F", "M"});
    Attribute range = attr("r", {"0..9", "10..19", "20..29"});
    auto t = ContingencyTable::fromCells({age, sex, range}, {}).value();
    auto check = [&](const char* text, std::vector<BinRange> expected) {
        auto q = parseBoxQuery(t, text);
        QVERIFY2(q.hasValue(),
                 (QByteArray(text) + ": " + QByteArray::fromStdString(q ? "" : q.error().message))
                     .constData());
        QCOMPARE(q->box, expected);
    };
    check("", {{0, 3}, {0, 1}, {0, 2}});
    check("sex=M", {{0, 3}, {1, 1}, {0, 2}});
    check("age=[10, 20)..[30, 40],sex=F", {{1, 3}, {0, 0}, {0, 2}});  // labels with commas
    check("sex=F,age=[10, 20)", {{1, 1}, {0, 0}, {0, 2}});
    check("age=#1..#2", {{1, 2}, {0, 1}, {0, 2}});
    check("age=15..35", {{1, 3}, {0, 1}, {0, 2}});  // numbers inside numeric bins
    check("age=40", {{3, 3}, {0, 1}, {0, 2}});      // the last edge is in the last bin
    check("age=#2..", {{2, 3}, {0, 1}, {0, 2}});
    check("age=..#1", {{0, 1}, {0, 1}, {0, 2}});
    check("r=10..19", {{0, 3}, {0, 1}, {1, 1}});  // a label containing ".."
    check("r=0..9..20..29", {{0, 3}, {0, 1}, {0, 2}});
    check(" sex = M , r=#0", {{0, 3}, {1, 1}, {0, 0}});
}

void TestTableQuery::parseBoxErrors() {
    Attribute age = attr("age", {"[0, 10)", "[10, 20)"});
    age.edges = {0, 10, 20};
    Attribute sex = attr("sex", {"F", "M", "M"});
    auto t = ContingencyTable::fromCells({age, sex}, {}).value();
    DPX_VERIFY_ERROR(parseBoxQuery(t, "height=3"), "no attribute 'height'");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "height=3"), "age, sex");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "age"), "ATTR=LO..HI");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "age=#1,age=#0"), "twice");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "age=#5"), "#0 to #1");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "age=#x"), "position");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "age=25"), "outside");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "age=#1..#0"), "empty");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "age="), "no bins");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "sex=X"), "no bin 'X'");
    DPX_VERIFY_ERROR(parseBoxQuery(t, "sex=M"), "several bins");
    QCOMPARE(parseBoxQuery(t, "sex=#2")->box[1], (BinRange{2, 2}));
}

void TestTableQuery::describeAndCount() {
    const auto t = randomTable(14);
    QCOMPARE(TableQuery::all(t).describe(t), std::string("all cells"));
    QCOMPARE(parseBoxQuery(t, "a=v1..v2,c=v3")->describe(t), std::string("a = v1 … v2, c = v3"));
    QCOMPARE(TableQuery::ofCells({1, 2, 3}).describe(t), std::string("3 cells"));
    auto huge = ContingencyTable::fromCells({numbered("w", 65536), numbered("x", 65536),
                                             numbered("y", 65536), numbered("z", 65536)},
                                            {})
                    .value();
    QCOMPARE(TableQuery::all(huge).cellCount(huge), CellCount{1} << 64);
    QCOMPARE(trueAnswer(huge, TableQuery::all(huge)).value(), std::int64_t{0});
}

void TestTableQuery::gaussianClosedForm() {
    for (double m : {1.0, 2.0, 37.0, 1e6}) {
        const SummedNoise s{NoiseDistribution::gaussian(3), static_cast<CellCount>(m)};
        const double sd = 3 * std::sqrt(m);
        DPX_VERIFY_REL(s.variance(), 9 * m, 1e-15);
        DPX_VERIFY_REL(s.meanAbs(), sd * std::sqrt(2 / M_PI), 1e-14);
        for (double level : {0.5, 0.9, 0.95, 0.999})
            DPX_VERIFY_REL(s.absQuantile(level), normalAbsQuantile(sd, level), 1e-12);
    }
}

void TestTableQuery::laplaceTwoTermsClosedForm() {
    // Two Laplace(1): density (1 + |x|)e^{−|x|}/4, Pr[|S| ≤ x] = 1 − (2 + x)e^{−x}/2, E|S| = 3/2.
    for (double b : {1.0, 0.3, 40.0}) {
        const SummedNoise s{NoiseDistribution::laplace(b), 2};
        DPX_VERIFY_REL(s.meanAbs(), 1.5 * b, 1e-13);
        DPX_VERIFY_REL(s.variance(), 4 * b * b, 1e-15);
        for (double level : {0.1, 0.5, 0.95, 0.9999}) {
            const double x = s.absQuantile(level) / b;
            DPX_VERIFY_NEAR(1 - (2 + x) * std::exp(-x) / 2, level, 1e-11);
        }
    }
    // m = 1 is the cell law itself.
    const SummedNoise one{NoiseDistribution::laplace(2), 1};
    QCOMPARE(one.absQuantile(0.95), NoiseDistribution::laplace(2).absQuantile(0.95));
    QCOMPARE(one.describe(), std::string("sum of 1 Laplace(b = 2)"));
}

void TestTableQuery::laplaceAgainstGridConvolution_data() {
    QTest::addColumn<int>("m");
    QTest::newRow("m=3") << 3;
    QTest::newRow("m=5") << 5;
}

void TestTableQuery::laplaceAgainstGridConvolution() {
    // Density of the sum by repeated trapezoid convolution on a grid of step h over [−L, L]; its
    // cdf and E|S| have errors O(h²) ≈ 10⁻⁴ (h = 0.01; the mass beyond ±40 is below 10⁻¹²).
    QFETCH(int, m);
    const double h = 0.01, L = 40;
    const int n = static_cast<int>(2 * L / h) + 1, c = n / 2;
    std::vector<double> f(n), g(n);
    for (int i = 0; i < n; ++i)
        f[i] = 0.5 * std::exp(-std::abs((i - c) * h));
    g = f;
    for (int r = 2; r <= m; ++r) {
        std::vector<double> next(n, 0.0);
        for (int i = 0; i < n; ++i) {
            double s = 0;
            // next(x_i) = ∫ g(y) f(x_i − y) dy, y on the grid with |x_i − y| ≤ L.
            const int lo = std::max(0, i - c), hi = std::min(n - 1, i + c);
            for (int j = lo; j <= hi; ++j)
                s += g[j] * f[i - j + c] * ((j == lo || j == hi) ? 0.5 : 1.0);
            next[i] = s * h;
        }
        g = std::move(next);
    }
    double meanAbs = 0;
    std::vector<double> absCdf(c + 1);  // Pr[|S| ≤ k·h]
    absCdf[0] = 0;
    for (int k = 1; k <= c; ++k) {
        absCdf[k] = absCdf[k - 1] + (g[c + k] + g[c + k - 1]) * h;  // both sides, trapezoid
        meanAbs += ((k - 0.5) * h) * (g[c + k] + g[c + k - 1]) * h;
    }
    const SummedNoise s{NoiseDistribution::laplace(1), static_cast<CellCount>(m)};
    DPX_VERIFY_REL(s.meanAbs(), meanAbs, 5e-4);
    for (double level : {0.5, 0.9, 0.95, 0.99}) {
        const int k = static_cast<int>(std::lower_bound(absCdf.begin(), absCdf.end(), level) -
                                       absCdf.begin());
        DPX_VERIFY_NEAR(s.absQuantile(level), k * h, 2 * h);
    }
}

void TestTableQuery::discreteAgainstConvolution_data() {
    QTest::addColumn<double>("alpha");
    QTest::addColumn<int>("m");
    for (double alpha : {0.2, 0.6, 0.9})
        for (int m : {2, 3, 6})
            QTest::newRow((std::to_string(alpha) + " m=" + std::to_string(m)).c_str())
                << alpha << m;
}

void TestTableQuery::discreteAgainstConvolution() {
    QFETCH(double, alpha);
    QFETCH(int, m);
    const int K = 600;  // α^600 < 10⁻²⁷
    const auto pmf = discreteSumPmf(alpha, m, K);
    double meanAbs = 0;
    for (int k = -K; k <= K; ++k)
        meanAbs += std::abs(k) * pmf[k + K];
    const SummedNoise s{NoiseDistribution::discreteLaplace(alpha), static_cast<CellCount>(m)};
    DPX_VERIFY_REL(s.meanAbs(), meanAbs, 1e-11);
    DPX_VERIFY_REL(s.variance(), m * 2 * alpha / ((1 - alpha) * (1 - alpha)), 1e-14);
    for (double level : {0.3, 0.5, 0.9, 0.95, 0.999}) {
        double cdf = pmf[K];
        int k = 0;
        while (cdf < level) {
            ++k;
            cdf += 2 * pmf[K + k];
        }
        QCOMPARE(s.absQuantile(level), static_cast<double>(k));
    }
}

void TestTableQuery::normalLimitForHugeM_data() {
    QTest::addColumn<int>("kind");  // 0 Laplace, 1 discrete Laplace
    QTest::addColumn<int>("log2m");
    for (int kind : {0, 1})
        for (int l : {40, 64})
            QTest::newRow(
                (std::string(kind ? "discrete" : "laplace") + " m=2^" + std::to_string(l)).c_str())
                << kind << l;
}

void TestTableQuery::normalLimitForHugeM() {
    // For m ≥ 2⁴⁰ the sum is normal up to corrections of relative order (excess kurtosis)/m
    // ≤ 3·2⁻⁴⁰ (Edgeworth), far below the tolerance 10⁻⁸ — an independent check of both the
    // large-m quadrature and the 128-bit term count.
    QFETCH(int, kind);
    QFETCH(int, log2m);
    const CellCount m = CellCount{1} << log2m;
    const NoiseDistribution cell =
        kind == 0 ? NoiseDistribution::laplace(2) : NoiseDistribution::discreteLaplace(0.9);
    const SummedNoise s{cell, m};
    const double sd = std::sqrt(cell.variance() * std::ldexp(1.0, log2m));
    DPX_VERIFY_REL(s.rmse(), sd, 1e-15);
    DPX_VERIFY_REL(s.meanAbs(), sd * std::sqrt(2 / M_PI), 1e-8);
    for (double level : {0.5, 0.95, 0.999})
        DPX_VERIFY_REL(s.absQuantile(level), normalAbsQuantile(sd, level), 1e-8);
    QVERIFY(s.describe().find("sum of " + cellCountText(m)) == 0);
}

void TestTableQuery::monteCarlo_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("m");
    QTest::newRow("laplace m=3") << 0 << 3;
    QTest::newRow("laplace m=12") << 0 << 12;
    QTest::newRow("discrete m=7") << 1 << 7;
    QTest::newRow("discrete m=40") << 1 << 40;
}

void TestTableQuery::monteCarlo() {
    // N = 200 000 sums of m draws (fixed seed): the mean of |Σ| within 4.5 standard errors of
    // meanAbs(), and the fraction of |Σ| ≤ absQuantile(level) within 4.5 binomial standard errors
    // of level (for the discrete law, of Pr[|Σ| ≤ k] which is ≥ level; checked from both sides
    // with k and k − 1). False-alarm rate per check ≈ 7·10⁻⁶.
    QFETCH(int, kind);
    QFETCH(int, m);
    const NoiseDistribution cell =
        kind == 0 ? NoiseDistribution::laplace(1.5) : NoiseDistribution::discreteLaplace(0.7);
    const SummedNoise s{cell, static_cast<CellCount>(m)};
    SimulationRng rng(1919, 0);
    const int N = 200000;
    std::vector<double> a(N);
    double mean = 0, sq = 0;
    for (int i = 0; i < N; ++i) {
        double sum = 0;
        for (int j = 0; j < m; ++j)
            sum += sampleNoise(cell, rng);
        a[i] = std::abs(sum);
        mean += a[i];
        sq += a[i] * a[i];
    }
    mean /= N;
    const double se = std::sqrt((sq / N - mean * mean) / N);
    DPX_VERIFY_NEAR(mean, s.meanAbs(), 4.5 * se);
    for (double level : {0.5, 0.9, 0.95}) {
        const double q = s.absQuantile(level);
        const double inside = static_cast<double>(std::count_if(a.begin(), a.end(),
                                                                [&](double x) { return x <= q; })) /
                              N;
        const double bse = std::sqrt(level * (1 - level) / N);
        if (kind == 0) {
            DPX_VERIFY_NEAR(inside, level, 4.5 * bse);
        } else {
            QVERIFY2(inside >= level - 4.5 * bse, qPrintable(QString::number(inside)));
            const double below = static_cast<double>(std::count_if(
                                     a.begin(), a.end(), [&](double x) { return x <= q - 1; })) /
                                 N;
            QVERIFY2(below <= level + 4.5 * bse, qPrintable(QString::number(below)));
        }
    }
}

void TestTableQuery::readout() {
    std::vector<std::int64_t> counts;
    const auto t = randomTable(15, &counts);
    auto q = parseBoxQuery(t, "a=v0..v1,b=v2");
    DPX_VERIFY_OK(q);
    std::vector<double> noisy(counts.begin(), counts.end());
    for (auto& v : noisy)
        v += 0.25;
    auto r = queryReadout(t, *q, NoiseDistribution::laplace(2), 0.9, noisy);
    DPX_VERIFY_OK(r);
    QCOMPARE(r->cells, CellCount{10});
    QCOMPARE(r->truth, trueAnswer(t, *q).value());
    QVERIFY(r->noisy.has_value());
    DPX_VERIFY_NEAR(*r->noisy, static_cast<double>(r->truth) + 2.5, 1e-12);
    const SummedNoise s{NoiseDistribution::laplace(2), 10};
    QCOMPARE(r->rmse, s.rmse());
    QCOMPARE(r->meanAbsError, s.meanAbs());
    QCOMPARE(r->halfWidth, s.absQuantile(0.9));
    QCOMPARE(r->level, 0.9);
    QCOMPARE(r->query, std::string("a = v0 … v1, b = v2"));
    QVERIFY(r->method.find("exact") == 0);
    auto none = queryReadout(t, *q, NoiseDistribution::gaussian(1), 0.95);
    DPX_VERIFY_OK(none);
    QVERIFY(!none->noisy.has_value());
}

void TestTableQuery::readoutErrors() {
    const auto t = randomTable(16);
    const auto q = TableQuery::all(t);
    DPX_VERIFY_ERROR(queryReadout(t, q, NoiseDistribution::laplace(1), 1.0), "level");
    DPX_VERIFY_ERROR(queryReadout(t, q, NoiseDistribution::laplace(1), 0.0), "level");
    DPX_VERIFY_ERROR(queryReadout(t, q, NoiseDistribution::laplace(1), std::nan("")), "level");
    DPX_VERIFY_ERROR(queryReadout(t, q, NoiseDistribution::laplace(-1), 0.9), "noise");
    DPX_VERIFY_ERROR(queryReadout(t, q, NoiseDistribution::discreteLaplace(1.0), 0.9), "noise");
    DPX_VERIFY_ERROR(
        queryReadout(t, q, NoiseDistribution::gaussian(std::numeric_limits<double>::infinity()),
                     0.9),
        "noise");
    DPX_VERIFY_ERROR(queryReadout(t, TableQuery::ofCells({99}), NoiseDistribution::laplace(1), 0.9),
                     "outside");
}

QTEST_APPLESS_MAIN(TestTableQuery)
#include "tst_table_query.moc"
