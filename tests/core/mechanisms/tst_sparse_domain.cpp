// Thresholded Laplace on a table of any domain size (core/mechanisms/sparse_domain.h) against the
// dense computation (simulateSparseHistogram, which visits every cell) on a 200-cell domain small
// enough for both, and on 2⁴⁰ / 2⁶⁴-cell domains against the laws the sparse algorithm claims:
//  - the number of released empty cells: chi-square goodness of fit to Binomial(p − q, π), for
//    both the sparse and the dense outputs;
//  - their positions: chi-square of per-cell frequencies against uniform over the EMPTY cells
//    (never an occupied one), and on huge domains of the high, middle and low bits of the index;
//  - their values: Kolmogorov–Smirnov against τ + Exp(b), and two-sample KS sparse vs dense;
//  - occupied cells: release frequency per cell against Pr[h + L > τ] and two-sample KS of values;
//  - the mean L1 error against the exact expectation (and that against sparseExpectedError).
// Seeds are fixed, so every outcome is reproducible; each test rejects at p < 10⁻⁶ (a false-alarm
// rate of 10⁻⁶ per test for a correct sampler, about 2·10⁻⁵ for the whole file).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include "core/mechanisms/sparse_domain.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

constexpr double kReject = 1e-6;

// Chi-square p-value of observed vs expected counts; bins with expected < 5 are pooled into
// their neighbour (in order) first.
double chiSquareP(const std::vector<double>& observed, const std::vector<double>& expected) {
    std::vector<double> o, e;
    double po = 0, pe = 0;
    for (std::size_t i = 0; i < observed.size(); ++i) {
        po += observed[i];
        pe += expected[i];
        if (pe >= 5) {
            o.push_back(po);
            e.push_back(pe);
            po = pe = 0;
        }
    }
    if (pe > 0 && !e.empty()) {
        o.back() += po;
        e.back() += pe;
    }
    double x = 0;
    for (std::size_t i = 0; i < o.size(); ++i)
        x += (o[i] - e[i]) * (o[i] - e[i]) / e[i];
    return boost::math::gamma_q((static_cast<double>(o.size()) - 1) / 2, x / 2);
}

// Kolmogorov's limiting distribution Pr[K > λ] with Stephens' finite-n correction.
double kolmogorovP(double d, double n) {
    const double s = std::sqrt(n);
    const double lambda = (s + 0.12 + 0.11 / s) * d;
    double p = 0;
    for (int k = 1; k <= 100; ++k)
        p += 2 * ((k % 2) ? 1 : -1) * std::exp(-2.0 * k * k * lambda * lambda);
    return std::clamp(p, 0.0, 1.0);
}

double ksOneSampleP(std::vector<double> x, const auto& cdf) {
    std::sort(x.begin(), x.end());
    const double n = static_cast<double>(x.size());
    double d = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double f = cdf(x[i]);
        d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
    }
    return kolmogorovP(d, n);
}

double ksTwoSampleP(std::vector<double> a, std::vector<double> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const double n = static_cast<double>(a.size()), m = static_cast<double>(b.size());
    std::size_t i = 0, j = 0;
    double d = 0;
    while (i < a.size() && j < b.size()) {
        const double v = std::min(a[i], b[j]);
        while (i < a.size() && a[i] <= v)
            ++i;
        while (j < b.size() && b[j] <= v)
            ++j;
        d = std::max(d, std::abs(static_cast<double>(i) / n - static_cast<double>(j) / m));
    }
    return kolmogorovP(d, n * m / (n + m));
}

#define DPX_VERIFY_P(p, what) \
    QVERIFY2((p) > kReject,   \
             (QByteArray(what) + ": p = " + QByteArray::number(p, 'g', 4)).constData())

// The 8 × 25 table of the comparison: 20 occupied cells with counts 1 … 12.
ContingencyTable smallTable() {
    std::vector<TableCell> cells;
    for (std::uint64_t i = 0; i < 20; ++i)
        cells.push_back({(i * 37 + 3) % 200, static_cast<std::int64_t>(1 + (i * 7) % 12)});
    return ContingencyTable::fromCells({indexAttribute("a", 8), indexAttribute("b", 25)}, cells)
        .value();
}

}  // namespace

class TestSparseDomain : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void againstDenseComputation();
    void hugeDomain2To64();
    void occupiedBlocksAreSkipped();
    void lastEmptyCell();
    void expectedErrorMatchesDense();
    void expectedErrorHugeDomain();
    void defaultThreshold();
    void refusals();
    void reproducible();
    void monteCarloAgainstDense();
    void monteCarloHugeDomain();
};

void TestSparseDomain::againstDenseComputation() {
    const ContingencyTable t = smallTable();
    const auto counts = t.denseCounts();
    const SparseHistogramParams params{1.0, 3.0};  // b = 2, τ = 3
    const double b = 2, tau = 3, pi = 0.5 * std::exp(-tau / b);
    const int N = 20000;
    const std::uint64_t n = 180;
    std::vector<double> countS(n + 1, 0), countD(n + 1, 0);
    std::vector<double> posS(200, 0), posD(200, 0);
    std::vector<double> valS, valD, occS, occD;
    double l1Sum = 0, l1Sq = 0;
    SimulationRng rs(19, 1), rd(19, 2);
    for (int r = 0; r < N; ++r) {
        auto s = simulateSparseDomain(t, params, rs);
        DPX_VERIFY_OK(s);
        QVERIFY(std::is_sorted(s->cells.begin(), s->cells.end()));
        std::uint64_t empties = 0;
        std::vector<double> out(200, 0.0);
        for (const auto& [i, v] : s->cells) {
            QVERIFY(v > tau);
            out[i] = v;
            if (counts[i] == 0) {
                ++empties;
                posS[i] += 1;
                valS.push_back(v);
            } else {
                occS.push_back(v - static_cast<double>(counts[i]));
            }
        }
        QCOMPARE(s->releasedEmpty, empties);
        QCOMPARE(s->releasedOccupied, s->cells.size() - empties);
        countS[empties] += 1;
        double l1 = 0;
        for (std::size_t i = 0; i < 200; ++i)
            l1 += std::abs(out[i] - static_cast<double>(counts[i]));
        l1Sum += l1;
        l1Sq += l1 * l1;

        auto d = simulateSparseHistogram(counts, params, SparseMethod::Thresholded, rd);
        DPX_VERIFY_OK(d);
        std::uint64_t emptiesD = 0;
        for (std::size_t i = 0; i < 200; ++i) {
            if ((*d)[i] == 0)
                continue;
            if (counts[i] == 0) {
                ++emptiesD;
                posD[i] += 1;
                valD.push_back((*d)[i]);
            } else {
                occD.push_back((*d)[i] - static_cast<double>(counts[i]));
            }
        }
        countD[emptiesD] += 1;
    }
    // Number of released empty cells ~ Binomial(180, π), for both computations.
    const boost::math::binomial_distribution<double> binom(static_cast<double>(n), pi);
    std::vector<double> expected(n + 1);
    for (std::uint64_t k = 0; k <= n; ++k)
        expected[k] = N * boost::math::pdf(binom, static_cast<double>(k));
    DPX_VERIFY_P(chiSquareP(countS, expected), "sparse count vs Binomial");
    DPX_VERIFY_P(chiSquareP(countD, expected), "dense count vs Binomial");
    // Positions: uniform over the 180 empty cells, never an occupied one.
    std::vector<double> obsS, obsD, uni;
    for (std::size_t i = 0; i < 200; ++i) {
        if (counts[i] != 0) {
            QCOMPARE(posS[i], 0.0);
            continue;
        }
        obsS.push_back(posS[i]);
        obsD.push_back(posD[i]);
        uni.push_back(N * pi);
    }
    DPX_VERIFY_P(chiSquareP(obsS, uni), "sparse positions vs uniform");
    DPX_VERIFY_P(chiSquareP(obsD, uni), "dense positions vs uniform");
    // Values of released empty cells: τ + Exp(b); and the same law as the dense ones.
    auto tail = [&](double v) { return v <= tau ? 0.0 : -std::expm1(-(v - tau) / b); };
    DPX_VERIFY_P(ksOneSampleP(valS, tail), "sparse empty values vs tau + Exp(b)");
    DPX_VERIFY_P(ksOneSampleP(valD, tail), "dense empty values vs tau + Exp(b)");
    DPX_VERIFY_P(ksTwoSampleP(valS, valD), "empty values sparse vs dense");
    // Occupied cells: the noise of released occupied cells has the same law in both.
    DPX_VERIFY_P(ksTwoSampleP(occS, occD), "occupied noise sparse vs dense");
    // Mean L1 error against the exact expectation.
    auto ex = sparseDomainExpectedError(t, params);
    DPX_VERIFY_OK(ex);
    const double mean = l1Sum / N, se = std::sqrt((l1Sq / N - mean * mean) / N);
    DPX_VERIFY_NEAR(mean, ex->thresholdedL1, 5 * se);
    DPX_VERIFY_NEAR(static_cast<double>(valS.size()) / N, ex->expectedReleasedEmpty,
                    5 * std::sqrt(n * pi * (1 - pi) / N));
}

void TestSparseDomain::hugeDomain2To64() {
    // 2⁶⁴ cells, 1000 occupied at random; τ set so that 3 empty cells are released on average.
    std::mt19937_64 gen(64);
    std::map<std::uint64_t, std::int64_t> occ;
    while (occ.size() < 1000)
        occ[gen()] = 1 + static_cast<std::int64_t>(gen() % 50);
    std::vector<TableCell> cells;
    for (const auto& [i, c] : occ)
        cells.push_back({i, c});
    auto t = ContingencyTable::fromCells({indexAttribute("w", 65536), indexAttribute("x", 65536),
                                          indexAttribute("y", 65536), indexAttribute("z", 65536)},
                                         cells);
    DPX_VERIFY_OK(t);
    const double b = 2, lambda = 3;
    const double pi = lambda / (0x1.0p64 - 1000);
    const SparseHistogramParams params{1.0, -b * std::log(2 * pi)};
    auto ex = sparseDomainExpectedError(*t, params);
    DPX_VERIFY_OK(ex);
    DPX_VERIFY_REL(ex->expectedReleasedEmpty, lambda, 1e-12);
    const int R = 6000;
    std::vector<double> countHist(40, 0), top(16, 0), middle(16, 0), low(16, 0);
    std::vector<double> excess;
    SimulationRng rng(2064, 0);
    for (int r = 0; r < R; ++r) {
        auto s = simulateSparseDomain(*t, params, rng);
        DPX_VERIFY_OK(s);
        QCOMPARE(s->domainCells, CellCount{1} << 64);
        std::uint64_t empties = 0;
        std::uint64_t previous = 0;
        for (std::size_t k = 0; k < s->cells.size(); ++k) {
            const auto [i, v] = s->cells[k];
            QVERIFY(k == 0 || i > previous);  // sorted, distinct
            previous = i;
            if (occ.count(i))
                continue;
            ++empties;
            top[i >> 60] += 1;
            middle[(i >> 30) & 15] += 1;  // straddles the 2³² split of the gap sampler
            low[i & 15] += 1;
            excess.push_back(v - params.threshold.value());
        }
        QCOMPARE(s->releasedEmpty, empties);
        countHist[std::min<std::uint64_t>(empties, 39)] += 1;
    }
    // Binomial(2⁶⁴ − 1000, π) is Poisson(3) to within π ≈ 10⁻¹⁹ in total variation.
    const boost::math::poisson_distribution<double> poisson(lambda);
    std::vector<double> expected(40);
    for (int k = 0; k < 39; ++k)
        expected[k] = R * boost::math::pdf(poisson, k);
    expected[39] = R * boost::math::cdf(boost::math::complement(poisson, 38));
    DPX_VERIFY_P(chiSquareP(countHist, expected), "count vs Poisson(3)");
    const double total = std::accumulate(top.begin(), top.end(), 0.0);
    const std::vector<double> flat(16, total / 16);
    DPX_VERIFY_P(chiSquareP(top, flat), "top 4 bits uniform");
    DPX_VERIFY_P(chiSquareP(middle, flat), "bits 30-33 uniform");
    DPX_VERIFY_P(chiSquareP(low, flat), "low 4 bits uniform");
    DPX_VERIFY_P(ksOneSampleP(excess, [&](double x) { return x <= 0 ? 0.0 : -std::expm1(-x / b); }),
                 "values - tau vs Exp(b)");
}

void TestSparseDomain::occupiedBlocksAreSkipped() {
    // 2⁴⁰ cells; the first 10⁵ cells and every 1000th after them occupied; τ so that 20 empty
    // cells are expected. Released empty cells are never occupied, and the first empty cell
    // (index 10⁵ + 1, the rank-0 empty) is reachable.
    std::vector<TableCell> cells;
    for (std::uint64_t i = 0; i < 100000; ++i)
        cells.push_back({i, 1});
    for (std::uint64_t i = 101000; i < 2000000; i += 1000)
        cells.push_back({i, 2});
    auto t = ContingencyTable::fromCells({indexAttribute("a", 1024), indexAttribute("b", 1024),
                                          indexAttribute("c", 1024), indexAttribute("d", 1024)},
                                         cells);
    DPX_VERIFY_OK(t);
    const double b = 2;
    const double q = static_cast<double>(cells.size());
    const SparseHistogramParams params{1.0, -b * std::log(2 * 20 / (0x1.0p40 - q))};
    SimulationRng rng(40, 0);
    std::uint64_t released = 0;
    for (int r = 0; r < 200; ++r) {
        auto s = simulateSparseDomain(*t, params, rng);
        DPX_VERIFY_OK(s);
        for (const auto& [i, v] : s->cells) {
            if (t->count(i) == 0)
                ++released;
        }
        QCOMPARE(s->occupiedCells, std::uint64_t{cells.size()});
    }
    // Mean 20 per release, 4000 in all; Poisson sd 63.
    DPX_VERIFY_NEAR(static_cast<double>(released), 4000, 5 * std::sqrt(4000.0));
    // τ = 0 on a 100-cell domain with 99 occupied: the one empty cell (index 57) is released
    // with probability ½, at τ + Exp(b).
    std::vector<TableCell> all;
    for (std::uint64_t i = 0; i < 100; ++i) {
        if (i != 57)
            all.push_back({i, 3});
    }
    auto u = ContingencyTable::fromCells({indexAttribute("a", 100)}, all).value();
    std::uint64_t hits = 0;
    for (int r = 0; r < 4000; ++r) {
        auto s = simulateSparseDomain(u, {1.0, 0.0}, rng).value();
        QCOMPARE(s.releasedEmpty <= 1, true);
        for (const auto& [i, v] : s.cells) {
            if (i == 57)
                ++hits;
        }
        QCOMPARE(s.releasedEmpty,
                 std::uint64_t{0} + (std::any_of(s.cells.begin(), s.cells.end(),
                                                 [](const auto& c) { return c.first == 57; })
                                         ? 1
                                         : 0));
    }
    DPX_VERIFY_NEAR(static_cast<double>(hits), 2000, 5 * std::sqrt(1000.0));
}

void TestSparseDomain::lastEmptyCell() {
    // Every cell but the last occupied: the rank-0 empty cell is the last index of the domain.
    std::vector<TableCell> cells;
    for (std::uint64_t i = 0; i + 1 < 64; ++i)
        cells.push_back({i, 1});
    auto t = ContingencyTable::fromCells({indexAttribute("a", 64)}, cells).value();
    SimulationRng rng(7, 7);
    std::uint64_t hits = 0;
    for (int r = 0; r < 2000; ++r) {
        auto s = simulateSparseDomain(t, {1.0, 0.0}, rng).value();
        for (const auto& [i, v] : s.cells) {
            QVERIFY(i < 64);
            hits += i == 63;
        }
    }
    DPX_VERIFY_NEAR(static_cast<double>(hits), 1000, 5 * std::sqrt(500.0));
}

void TestSparseDomain::expectedErrorMatchesDense() {
    const ContingencyTable t = smallTable();
    for (const auto& params : {SparseHistogramParams{1.0, std::nullopt},
                               SparseHistogramParams{0.3, 2.5}, SparseHistogramParams{4.0, 0.0}}) {
        auto s = sparseDomainExpectedError(t, params);
        auto d = sparseExpectedError(t.denseCounts(), params);
        DPX_VERIFY_OK(s);
        DPX_VERIFY_OK(d);
        QCOMPARE(s->threshold, d->threshold);
        DPX_VERIFY_REL(s->thresholdedL1, d->thresholdedL1, 1e-12);
        DPX_VERIFY_REL(s->plainLaplaceL1, d->plainLaplaceL1, 1e-15);
        QCOMPARE(s->occupied, std::uint64_t{d->occupied});
    }
}

void TestSparseDomain::expectedErrorHugeDomain() {
    // 2⁶⁴ cells, 2 occupied, default τ = (2/ε)·64·ln 2: the closed forms directly.
    auto t = ContingencyTable::fromCells({indexAttribute("w", 65536), indexAttribute("x", 65536),
                                          indexAttribute("y", 65536), indexAttribute("z", 65536)},
                                         {{5, 10}, {~std::uint64_t{0}, 1}})
                 .value();
    const double eps = 0.5, b = 4, tau = b * 64 * std::log(2.0);
    auto e = sparseDomainExpectedError(t, {eps, std::nullopt});
    DPX_VERIFY_OK(e);
    DPX_VERIFY_REL(e->threshold, tau, 1e-15);
    const double empty = 0x1.0p64 - 2;
    DPX_VERIFY_REL(e->emptyReleaseProbability, 0.5 * std::exp(-tau / b), 1e-13);
    DPX_VERIFY_REL(e->emptyL1, empty * 0.5 * std::exp(-tau / b) * (tau + b), 1e-13);
    DPX_VERIFY_REL(e->occupiedL1,
                   sparseCellExpectedL1(10, b, tau) + sparseCellExpectedL1(1, b, tau), 1e-15);
    DPX_VERIFY_REL(e->thresholdedL1, e->emptyL1 + e->occupiedL1, 1e-15);
    DPX_VERIFY_REL(e->plainLaplaceL1, 0x1.0p64 * b, 1e-15);
    DPX_VERIFY_REL(e->expectedReleasedEmpty, 0.5, 1e-12);  // (p − q)/(2p)
}

void TestSparseDomain::defaultThreshold() {
    QCOMPARE(defaultSparseDomainThreshold(1.0, 65536), defaultSparseThreshold(1.0, 65536));
    QCOMPARE(defaultSparseDomainThreshold(0.7, CellCount{1} << 40),
             defaultSparseThreshold(0.7, std::size_t{1} << 40));
    DPX_VERIFY_REL(defaultSparseDomainThreshold(1.0, CellCount{1} << 64), 2 * 64 * std::log(2.0),
                   1e-15);
    QCOMPARE(sparseDomainThreshold({1.0, 5.0}, CellCount{1} << 64), 5.0);
}

void TestSparseDomain::refusals() {
    auto t = ContingencyTable::fromCells({indexAttribute("a", 1024), indexAttribute("b", 1024),
                                          indexAttribute("c", 1024), indexAttribute("d", 1024)},
                                         {{3, 1}})
                 .value();
    SimulationRng rng(1, 1);
    DPX_VERIFY_ERROR(simulateSparseDomain(t, {1.0, 0.0}, rng), "raise τ");
    DPX_VERIFY_ERROR(simulateSparseDomain(t, {1.0, 0.0}, rng), "55.4");  // the default τ
    DPX_VERIFY_ERROR(simulateSparseDomain(t, {0.0, std::nullopt}, rng), "ε|epsilon");
    DPX_VERIFY_ERROR(simulateSparseDomain(t, {1.0, -1.0}, rng), "threshold");
    DPX_VERIFY_ERROR(sparseDomainExpectedError(ContingencyTable{}, {1.0, std::nullopt}),
                     "no cells");
}

void TestSparseDomain::reproducible() {
    const ContingencyTable t = smallTable();
    SimulationRng a(5, 0), b(5, 0), c(6, 0);
    const auto x = simulateSparseDomain(t, {1.0, 3.0}, a).value();
    const auto y = simulateSparseDomain(t, {1.0, 3.0}, b).value();
    const auto z = simulateSparseDomain(t, {1.0, 3.0}, c).value();
    QVERIFY(x.cells == y.cells);
    QVERIFY(x.cells != z.cells);
}

// The page's Monte Carlo on a domain of any size against the dense one (which draws every cell):
// the per-trial L1 distributions of both methods agree (two-sample KS, independent seeds), the
// means agree with the exact expectations, and the exact values equal sparseExpectedError's.
void TestSparseDomain::monteCarloAgainstDense() {
    const ContingencyTable t = smallTable();
    for (const auto& params :
         {SparseHistogramParams{1.0, std::nullopt}, SparseHistogramParams{0.3, 2.5}}) {
        MonteCarloOptions o;
        o.trials = 20000;
        o.seed = 11;
        auto sparse = sparseDomainMonteCarlo(t, params, o);
        DPX_VERIFY_OK(sparse);
        o.seed = 12;
        auto dense = sparseMonteCarlo(t.denseCounts(), params, o);
        DPX_VERIFY_OK(dense);
        const auto& s1 = sparse->mc;
        const auto& d1 = *dense;
        QCOMPARE(s1.trials, std::uint64_t{20000});
        DPX_VERIFY_P(ksTwoSampleP(s1.thresholdedL1, d1.thresholdedL1), "thresholded L1");
        DPX_VERIFY_P(ksTwoSampleP(s1.clampedL1, d1.clampedL1), "clamped L1");
        const SparseExpectedError& e = s1.expected;
        const SparseExpectedError& de = d1.expected;
        DPX_VERIFY_REL(e.thresholdedL1, de.thresholdedL1, 1e-12);
        DPX_VERIFY_REL(e.clampedL1, de.clampedL1, 1e-12);
        DPX_VERIFY_REL(e.plainLaplaceL1, de.plainLaplaceL1, 1e-15);
        DPX_VERIFY_REL(e.boundAtThreshold, de.boundAtThreshold, 1e-12);
        QCOMPARE(e.seedBound.has_value(), de.seedBound.has_value());
        if (e.seedBound) {
            DPX_VERIFY_REL(*e.seedBound, *de.seedBound, 1e-12);
        }
        QCOMPARE(e.cells, de.cells);
        QCOMPARE(e.occupied, de.occupied);
        DPX_VERIFY_NEAR(s1.meanThresholded, e.thresholdedL1, 5 * s1.seThresholded);
        DPX_VERIFY_NEAR(s1.meanClamped, e.clampedL1, 5 * s1.seClamped);
        DPX_VERIFY_NEAR(s1.meanReleasedThresholded, d1.meanReleasedThresholded, 0.2);
        DPX_VERIFY_NEAR(s1.meanReleasedClamped, d1.meanReleasedClamped, 0.5);
        // Trial 0's release is the first release reported.
        SimulationRng rng(11, 0);
        QVERIFY(simulateSparseDomain(t, params, rng).value().cells == sparse->firstRelease.cells);
    }
}

// 2⁴⁰ cells, 1 000 occupied: the clamped method's empty cells (Gamma(K, b), K ~ Bin(p − q, ½))
// and the thresholded releases, against the exact expectations: E‖·‖₁ of the clamped release is
// dominated by (p − q)·b/2 ≈ 1.1·10¹² at ε = 2.
void TestSparseDomain::monteCarloHugeDomain() {
    std::vector<TableCell> cells;
    for (std::uint64_t i = 0; i < 1000; ++i)
        cells.push_back({i * 1'000'003'917ULL, static_cast<std::int64_t>(1 + i % 40)});
    auto t = ContingencyTable::fromCells(
                 {indexAttribute("a", 1 << 20), indexAttribute("b", 1 << 20)}, cells)
                 .value();
    const SparseHistogramParams params{2.0, std::nullopt};
    MonteCarloOptions o;
    o.trials = 2000;
    o.seed = 3;
    auto r = sparseDomainMonteCarlo(t, params, o);
    DPX_VERIFY_OK(r);
    const double b = 1, empty = 0x1.0p40 - 1000;
    DPX_VERIFY_REL(
        r->mc.expected.clampedL1,
        empty * b / 2 +
            [&] {
                double sum = 0;
                for (const auto& c : cells)
                    sum += sparseCellExpectedL1(static_cast<double>(c.count), b, 0);
                return sum;
            }(),
        1e-12);
    QCOMPARE(r->mc.expected.cells, std::size_t{1} << 40);
    DPX_VERIFY_NEAR(r->mc.meanClamped, r->mc.expected.clampedL1, 5 * r->mc.seClamped);
    DPX_VERIFY_NEAR(r->mc.meanThresholded, r->mc.expected.thresholdedL1, 5 * r->mc.seThresholded);
    // Released non-zero by clamping: about half of all cells.
    DPX_VERIFY_REL(r->mc.meanReleasedClamped, 0x1.0p39, 1e-5);
    DPX_VERIFY_NEAR(r->mc.meanReleasedThresholded,
                    r->exact.expectedReleasedEmpty + r->exact.expectedReleasedOccupied, 0.5);
    // Cancelled before starting: no trial, a warning.
    std::stop_source stop;
    stop.request_stop();
    o.stop = stop.get_token();
    auto c = sparseDomainMonteCarlo(t, params, o);
    DPX_VERIFY_OK(c);
    QVERIFY(c->mc.cancelled);
    MonteCarloOptions one;
    one.trials = 1;
    DPX_VERIFY_ERROR(sparseDomainMonteCarlo(t, params, one), "trials");
}

QTEST_APPLESS_MAIN(TestSparseDomain)
#include "tst_sparse_domain.moc"
