// Verification and analysis of count mechanism matrices (issue #3): per-input and prior-mixture
// error laws, seeded sampling of outputs, and central mechanisms (Laplace, geometric, Gaussian)
// restricted to {0..n} by rounding and clamping. References: hand-derived fractions of GM
// (digest 001 columns), the losses of CountMechanism, Boost.Math quadrature of the noise densities
// (quadrature.h), the chi-squared law (Boost.Math) for the sampler, and a replay of the documented
// SimulationRng stream.
#include <QElapsedTimer>
#include <QTest>

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "core/count/count_analysis.h"
#include "core/count/count_mechanism.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "tests/testing/quadrature.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

using Rows = std::vector<std::vector<double>>;

// A random valid n = 6 matrix (mt19937 seed 11), entries bounded away from 0.
CountMechanism randomMechanism() {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0.05, 1.0);
    Rows rows(7, std::vector<double>(7));
    for (std::size_t j = 0; j < 7; ++j) {
        double s = 0;
        for (std::size_t i = 0; i < 7; ++i) {
            rows[i][j] = u(rng);
            s += rows[i][j];
        }
        for (std::size_t i = 0; i < 7; ++i) {
            rows[i][j] /= s;
        }
    }
    return CountMechanism::fromRows(rows, "random").value();
}

// Pearson's statistic of observed counts against n·p over the cells with p > 0; cells with p = 0
// must be empty (returns +∞ otherwise).
double chiSquare(const std::vector<long>& observed, const std::vector<double>& p, long draws,
                 int* dof) {
    double stat = 0;
    int cells = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] == 0) {
            if (observed[i] != 0) {
                return std::numeric_limits<double>::infinity();
            }
            continue;
        }
        const double expected = static_cast<double>(draws) * p[i];
        const double diff = static_cast<double>(observed[i]) - expected;
        stat += diff * diff / expected;
        ++cells;
    }
    *dof = cells - 1;
    return stat;
}

// Upper 1e-6 quantile of χ²(dof): a correct sampler fails with probability 1e-6 per fixed seed
// (and the seeds are fixed, so the outcome is deterministic).
double chiSquareThreshold(int dof) {
    const boost::math::chi_squared dist(dof);
    return boost::math::quantile(boost::math::complement(dist, 1e-6));
}

// Hockey-stick divergence max over both directions of Σ_i max(0, P[i][a] − e^ε P[i][b]): the
// smallest δ for which the pair of columns (a, b) is (ε, δ)-indistinguishable.
double hockeyStick(const CountMechanism& m, std::size_t a, std::size_t b, double epsilon) {
    double ab = 0;
    double ba = 0;
    const double e = std::exp(epsilon);
    for (std::size_t i = 0; i < m.size(); ++i) {
        ab += std::max(0.0, m.at(i, a) - e * m.at(i, b));
        ba += std::max(0.0, m.at(i, b) - e * m.at(i, a));
    }
    return std::max(ab, ba);
}

// Pr[lo ≤ j + Z < hi] of the continuous density `pdf` by quadrature (independent of the code
// under test), for the rounding/clamping intervals of row i: [i − ½, i + ½), ends open to ±∞.
template <class Pdf>
double roundedClampedReference(Pdf pdf, int n, int i, int j) {
    const double inf = std::numeric_limits<double>::infinity();
    const double lo = i == 0 ? -inf : i - 0.5 - j;
    const double hi = i == n ? inf : i + 0.5 - j;
    return dpxtest::integrateSplit(pdf, {0.0}, lo, hi);
}

}  // namespace

class TestCountAnalysis : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void errorLawGeometric();
    void errorLawAveragesMatchLosses_data();
    void errorLawAveragesMatchLosses();
    void mixtureErrorLaw();
    void errorLawRejects();
    void samplingReproducible();
    void samplingFollowsDocumentedStream();
    void samplingChiSquare_data();
    void samplingChiSquare();
    void samplingNeverDrawsZeroRows();
    void samplingThresholdGuard();
    void samplingManyGroups();
    void samplingRejects();
    void laplaceMatrixMatchesIntegrals_data();
    void laplaceMatrixMatchesIntegrals();
    void laplaceMatrixPrivacy_data();
    void laplaceMatrixPrivacy();
    void laplaceMatrixUnderflow();
    void clampedGeometricIsGm_data();
    void clampedGeometricIsGm();
    void gaussianMatrixMatchesIntegrals();
    void gaussianMatrixIsNotPureDp();
    void centralMatrixRejects();
};

// ---------------------------------------------------------------------------------------------
// Error laws

void TestCountAnalysis::errorLawGeometric() {
    // GM n = 3, α = 0.5 (digest 001 columns (0.6667, 0.1667, 0.0833, 0.0833), (0.3333, 0.3333,
    // 0.1667, 0.1667), (0.1667, 0.1667, 0.3333, 0.3333), (0.0833, 0.0833, 0.1667, 0.6667)); exact
    // fractions from the closed form with x = 1/(1+α) = 2/3, y = (1−α)/(1+α) = 1/3:
    // column 0 = (2/3, 1/6, 1/12, 1/12), column 1 = (1/3, 1/3, 1/6, 1/6).
    const auto m = truncatedGeometric(3, std::log(2.0));
    DPX_VERIFY_OK(m);
    const auto all = inputErrorDistributions(*m);
    QCOMPARE(all.size(), std::size_t{4});

    // j = 0: e ∈ [0, 3], Pr = (2/3, 1/6, 1/12, 1/12).
    const auto d0 = inputErrorDistribution(*m, 0);
    DPX_VERIFY_OK(d0);
    QCOMPARE(d0->input, std::size_t{0});
    QCOMPARE(d0->minError, 0);
    QCOMPARE(d0->maxError(), 3);
    const std::vector<double> p0 = {2.0 / 3, 1.0 / 6, 1.0 / 12, 1.0 / 12};
    for (int e = 0; e <= 3; ++e) {
        DPX_VERIFY_NEAR(d0->probability(e), p0[static_cast<std::size_t>(e)], 1e-15);
    }
    QCOMPARE(d0->probability(-1), 0.0);
    QCOMPARE(d0->probability(4), 0.0);
    DPX_VERIFY_NEAR(d0->pCorrect, 2.0 / 3, 1e-15);
    DPX_VERIFY_NEAR(d0->bias, 1.0 / 6 + 2.0 / 12 + 3.0 / 12, 1e-15);        // 7/12
    DPX_VERIFY_NEAR(d0->meanAbs, 7.0 / 12, 1e-15);                          // e ≥ 0
    DPX_VERIFY_NEAR(d0->meanSquare, 1.0 / 6 + 4.0 / 12 + 9.0 / 12, 1e-15);  // 5/4
    DPX_VERIFY_NEAR(d0->pOffByMoreThan(0), 1.0 / 3, 1e-15);
    DPX_VERIFY_NEAR(d0->pOffByMoreThan(2), 1.0 / 12, 1e-15);
    DPX_VERIFY_NEAR(d0->pOffByMoreThan(-1), 1.0, 1e-15);
    QCOMPARE(d0->pOffByMoreThan(3), 0.0);

    // j = 1: e ∈ [−1, 2], Pr = (1/3, 1/3, 1/6, 1/6).
    const auto& d1 = all[1];
    QCOMPARE(d1.input, std::size_t{1});
    QCOMPARE(d1.minError, -1);
    QCOMPARE(d1.maxError(), 2);
    DPX_VERIFY_NEAR(d1.probability(-1), 1.0 / 3, 1e-15);
    DPX_VERIFY_NEAR(d1.probability(2), 1.0 / 6, 1e-15);
    DPX_VERIFY_NEAR(d1.pCorrect, 1.0 / 3, 1e-15);
    DPX_VERIFY_NEAR(d1.bias, -1.0 / 3 + 1.0 / 6 + 2.0 / 6, 1e-15);       // 1/6
    DPX_VERIFY_NEAR(d1.meanAbs, 1.0 / 3 + 1.0 / 6 + 2.0 / 6, 1e-15);     // 5/6
    DPX_VERIFY_NEAR(d1.meanSquare, 1.0 / 3 + 1.0 / 6 + 4.0 / 6, 1e-15);  // 7/6
    DPX_VERIFY_NEAR(d1.pOffByMoreThan(0), 2.0 / 3, 1e-15);
    DPX_VERIFY_NEAR(d1.pOffByMoreThan(1), 1.0 / 6, 1e-15);

    // GM is symmetric (P[i][j] = P[3−i][3−j]): the law of j = 3 mirrors that of j = 0.
    const auto& d3 = all[3];
    QCOMPARE(d3.minError, -3);
    DPX_VERIFY_NEAR(d3.bias, -7.0 / 12, 1e-15);
    DPX_VERIFY_NEAR(d3.meanSquare, 5.0 / 4, 1e-15);
    for (int e = -3; e <= 3; ++e) {
        DPX_VERIFY_NEAR(d3.probability(e), d0->probability(-e), 1e-15);
    }
}

void TestCountAnalysis::errorLawAveragesMatchLosses_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("GM n 3 alpha 0.5") << 0;
    QTest::newRow("EM n 8 alpha 0.62") << 1;
    QTest::newRow("random n 6") << 2;
    QTest::newRow("GM n 300 eps 0.05") << 3;
}

void TestCountAnalysis::errorLawAveragesMatchLosses() {
    QFETCH(int, which);
    const CountMechanism m = which == 0   ? truncatedGeometric(3, std::log(2.0)).value()
                             : which == 1 ? explicitFair(8, -std::log(0.62)).value()
                             : which == 2 ? randomMechanism()
                                          : truncatedGeometric(300, 0.05).value();
    const auto laws = inputErrorDistributions(m);
    const double n = static_cast<double>(m.people());
    double pCorrect = 0;
    double meanAbs = 0;
    double meanSquare = 0;
    for (const auto& d : laws) {
        pCorrect += d.pCorrect;
        meanAbs += d.meanAbs;
        meanSquare += d.meanSquare;
        DPX_VERIFY_NEAR(d.pOffByMoreThan(-1), 1.0, 1e-13);  // total mass = column sum
        // Pr[|e| > 0] = 1 − Pr[e = 0], summed independently.
        DPX_VERIFY_NEAR(d.pOffByMoreThan(0), 1 - d.pCorrect, 1e-13);
    }
    pCorrect /= n + 1;
    meanAbs /= n + 1;
    meanSquare /= n + 1;
    // Seed 001 §6: L0 = (n+1)/n·(1 − Σ_j w_j P[j][j]) ⇒ mean Pr[correct] = 1 − n/(n+1)·L0.
    DPX_VERIFY_NEAR(pCorrect, 1 - n / (n + 1) * m.l0(), 1e-14);
    const auto w = m.uniformWeights();
    DPX_VERIFY_REL(meanAbs, m.expectedLoss(w, CountLoss::L1).value(), 1e-13);
    DPX_VERIFY_REL(meanSquare, m.expectedLoss(w, CountLoss::L2).value(), 1e-13);
}

void TestCountAnalysis::mixtureErrorLaw() {
    // GM n = 3, α = 0.5, uniform prior. By hand from the columns (see errorLawGeometric):
    // Pr[e = 3] = ¼·P[3][0] = 1/48, Pr[e = −3] = ¼·P[0][3] = 1/48,
    // Pr[e = 0] = ¼(2/3 + 1/3 + 1/3 + 2/3) = ½, Pr[e = 1] = ¼(P[1][0] + P[2][1] + P[3][2])
    // = ¼(1/6 + 1/6 + 1/3) = 1/6.
    const auto m = truncatedGeometric(3, std::log(2.0));
    DPX_VERIFY_OK(m);
    const auto w = m->uniformWeights();
    const auto mix = mixtureErrorDistribution(*m, w);
    DPX_VERIFY_OK(mix);
    QCOMPARE(mix->minError, -3);
    QCOMPARE(mix->maxError(), 3);
    DPX_VERIFY_NEAR(mix->probability(3), 1.0 / 48, 1e-16);
    DPX_VERIFY_NEAR(mix->probability(-3), 1.0 / 48, 1e-16);
    DPX_VERIFY_NEAR(mix->probability(0), 0.5, 1e-15);
    DPX_VERIFY_NEAR(mix->probability(1), 1.0 / 6, 1e-15);
    DPX_VERIFY_NEAR(mix->pCorrect, 0.5, 1e-15);
    // L0(GM) = 2α/(1+α) = 2/3 and pCorrect = 1 − n/(n+1)·L0 = ½.
    DPX_VERIFY_NEAR(mix->pCorrect, 1 - 0.75 * m->l0(), 1e-15);
    DPX_VERIFY_NEAR(mix->bias, 0.0, 1e-15);  // symmetric mechanism, symmetric prior
    DPX_VERIFY_NEAR(mix->meanAbs, m->expectedLoss(w, CountLoss::L1).value(), 1e-15);
    DPX_VERIFY_NEAR(mix->meanSquare, m->expectedLoss(w, CountLoss::L2).value(), 1e-15);

    // A non-uniform prior on a random matrix: the statistics equal the w-average of the per-input
    // laws, and the losses of CountMechanism.
    const CountMechanism r = randomMechanism();
    const std::vector<double> wr = {0.05, 0.3, 0.1, 0.0, 0.25, 0.2, 0.1};
    const auto mr = mixtureErrorDistribution(r, wr);
    DPX_VERIFY_OK(mr);
    QCOMPARE(mr->probabilities.size(), std::size_t{13});
    const auto laws = inputErrorDistributions(r);
    double bias = 0;
    for (std::size_t j = 0; j < laws.size(); ++j) {
        bias += wr[j] * laws[j].bias;
    }
    DPX_VERIFY_NEAR(mr->bias, bias, 1e-15);
    DPX_VERIFY_NEAR(mr->pCorrect, 1 - 6.0 / 7 * r.l0(wr).value(), 1e-15);
    DPX_VERIFY_NEAR(mr->meanAbs, r.expectedLoss(wr, CountLoss::L1).value(), 1e-14);
    DPX_VERIFY_NEAR(mr->pOffByMoreThan(-1), 1.0, 1e-14);
    for (int e = -6; e <= 6; ++e) {
        double ref = 0;  // Σ_j w_j P[j+e][j], written out independently
        for (int j = 0; j <= 6; ++j) {
            if (j + e >= 0 && j + e <= 6) {
                ref += wr[static_cast<std::size_t>(j)] *
                       r.at(static_cast<std::size_t>(j + e), static_cast<std::size_t>(j));
            }
        }
        DPX_VERIFY_NEAR(mr->probability(e), ref, 1e-16);
    }

    // A point-mass prior gives the law of that input, padded to [−n, n].
    const auto point = mixtureErrorDistribution(r, {0, 0, 1, 0, 0, 0, 0});
    DPX_VERIFY_OK(point);
    for (int e = -6; e <= 6; ++e) {
        QCOMPARE(point->probability(e), laws[2].probability(e));
    }
}

void TestCountAnalysis::errorLawRejects() {
    const auto m = truncatedGeometric(3, 1.0);
    DPX_VERIFY_OK(m);
    DPX_VERIFY_OK(inputErrorDistribution(*m, 3));
    DPX_VERIFY_ERROR(inputErrorDistribution(*m, 4), "j = 4");
    DPX_VERIFY_ERROR(inputErrorDistribution(*m, 4), "0..3");
    DPX_VERIFY_ERROR(mixtureErrorDistribution(*m, {0.5, 0.5}), "4 entries|n+1");
    DPX_VERIFY_ERROR(mixtureErrorDistribution(*m, {0.5, 0.7, -0.2, 0.0}), "w[2]");
    DPX_VERIFY_ERROR(mixtureErrorDistribution(*m, {0.5, 0.5, 0.5, 0.0}), "sum to 1");
    DPX_VERIFY_ERROR(
        mixtureErrorDistribution(*m, {0.5, std::numeric_limits<double>::quiet_NaN(), 0.5, 0.0}),
        "w[1]");
}

// ---------------------------------------------------------------------------------------------
// Sampling

void TestCountAnalysis::samplingReproducible() {
    const auto m = truncatedGeometric(20, 0.3);
    DPX_VERIFY_OK(m);
    std::vector<std::int64_t> counts(1000);
    for (std::size_t g = 0; g < counts.size(); ++g) {
        counts[g] = static_cast<std::int64_t>((g * 37) % 21);
    }
    const auto a = sampleOutputs(*m, counts, 7);
    const auto b = sampleOutputs(*m, counts, 7);
    const auto c = sampleOutputs(*m, counts, 8);
    DPX_VERIFY_OK(a);
    DPX_VERIFY_OK(b);
    DPX_VERIFY_OK(c);
    QCOMPARE(a->size(), counts.size());
    QVERIFY(*a == *b);
    // Two seeds agree on a group with probability Σ_i P[i][j]² ≤ 0.3 here: over 1000 groups they
    // differ in several hundred.
    std::size_t differ = 0;
    for (std::size_t g = 0; g < counts.size(); ++g) {
        differ += (*a)[g] != (*c)[g] ? 1 : 0;
        QVERIFY((*a)[g] >= 0 && (*a)[g] <= 20);
    }
    QVERIFY2(differ > 500, QByteArray::number(static_cast<qulonglong>(differ)).constData());
    // Prefix stability: a prefix of the counts gives a prefix of the outputs.
    const std::vector<std::int64_t> prefix(counts.begin(), counts.begin() + 100);
    const auto p = sampleOutputs(*m, prefix, 7);
    DPX_VERIFY_OK(p);
    QVERIFY(std::equal(p->begin(), p->end(), a->begin()));
    // No groups, no outputs.
    const auto none = sampleOutputs(*m, {}, 7);
    DPX_VERIFY_OK(none);
    QVERIFY(none->empty());
}

void TestCountAnalysis::samplingFollowsDocumentedStream() {
    // The header's contract: outputs[g] = outputForUniform(P, counts[g], u_g), u_g the g-th
    // SimulationRng(seed, 0).uniform(). Replayed here with per-call threshold computation.
    const auto m = explicitFair(9, 0.7);
    DPX_VERIFY_OK(m);
    std::vector<std::int64_t> counts(500);
    for (std::size_t g = 0; g < counts.size(); ++g) {
        counts[g] = static_cast<std::int64_t>((g * g + 3) % 10);
    }
    const auto out = sampleOutputs(*m, counts, 123456789);
    DPX_VERIFY_OK(out);
    SimulationRng rng(123456789, 0);
    for (std::size_t g = 0; g < counts.size(); ++g) {
        const auto ref = outputForUniform(*m, static_cast<std::size_t>(counts[g]), rng.uniform());
        DPX_VERIFY_OK(ref);
        QCOMPARE((*out)[g], *ref);
    }
    // outputForUniform is the inverse CDF of the column: output i for u ∈ [C_{i−1}, C_i).
    // GM n = 3, α = 0.5, column 1 = (1/3, 1/3, 1/6, 1/6): C = (1/3, 2/3, 5/6, 1).
    const auto gm = truncatedGeometric(3, std::log(2.0));
    DPX_VERIFY_OK(gm);
    QCOMPARE(outputForUniform(*gm, 1, 0.0).value(), 0);
    QCOMPARE(outputForUniform(*gm, 1, 0.33).value(), 0);
    QCOMPARE(outputForUniform(*gm, 1, 0.34).value(), 1);
    QCOMPARE(outputForUniform(*gm, 1, 0.8).value(), 2);
    QCOMPARE(outputForUniform(*gm, 1, 0.84).value(), 3);
    QCOMPARE(outputForUniform(*gm, 1, std::nextafter(1.0, 0.0)).value(), 3);
    DPX_VERIFY_ERROR(outputForUniform(*gm, 1, 1.0), "[0, 1)");
    DPX_VERIFY_ERROR(outputForUniform(*gm, 1, -0.1), "[0, 1)");
    DPX_VERIFY_ERROR(outputForUniform(*gm, 1, std::numeric_limits<double>::quiet_NaN()), "u");
    DPX_VERIFY_ERROR(outputForUniform(*gm, 4, 0.5), "j = 4");
}

void TestCountAnalysis::samplingChiSquare_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<int>("column");
    QTest::addColumn<quint64>("seed");
    QTest::newRow("GM n 10 eps 0.5 column 3") << 0 << 3 << quint64{2024};
    QTest::newRow("EM n 12 eps 0.4 column 0") << 1 << 0 << quint64{99};
    QTest::newRow("discretized Gaussian n 15 column 7") << 2 << 7 << quint64{5};
}

void TestCountAnalysis::samplingChiSquare() {
    QFETCH(int, which);
    QFETCH(int, column);
    QFETCH(quint64, seed);
    const auto m = which == 0   ? truncatedGeometric(10, 0.5)
                   : which == 1 ? explicitFair(12, 0.4)
                                : discretizedGaussian(15, 1.0, 1e-5);
    DPX_VERIFY_OK(m);
    const long draws = 200000;
    const std::vector<std::int64_t> counts(static_cast<std::size_t>(draws), column);
    const auto out = sampleOutputs(*m, counts, seed);
    DPX_VERIFY_OK(out);
    std::vector<long> observed(m->size(), 0);
    for (const int o : *out) {
        ++observed[static_cast<std::size_t>(o)];
    }
    std::vector<double> p(m->size());
    for (std::size_t i = 0; i < m->size(); ++i) {
        p[i] = m->at(i, static_cast<std::size_t>(column));
    }
    int dof = 0;
    const double stat = chiSquare(observed, p, draws, &dof);
    const double threshold = chiSquareThreshold(dof);
    QVERIFY2(stat < threshold,
             (QByteArray("χ² = ") + QByteArray::number(stat) + " ≥ " +
              QByteArray::number(threshold) + " (dof " + QByteArray::number(dof) + ")")
                 .constData());
}

void TestCountAnalysis::samplingNeverDrawsZeroRows() {
    // Zeros at the first row, in the middle and at the last row of columns; column 1 is a point
    // mass. Every drawn output must have positive probability, and the frequencies must fit.
    const auto m = CountMechanism::fromRows({{0.0, 0.0, 0.2, 0.0, 0.1},
                                             {0.5, 0.0, 0.0, 0.25, 0.2},
                                             {0.0, 1.0, 0.3, 0.0, 0.0},
                                             {0.5, 0.0, 0.5, 0.75, 0.7},
                                             {0.0, 0.0, 0.0, 0.0, 0.0}});
    DPX_VERIFY_OK(m);
    const long perColumn = 40000;
    std::vector<std::int64_t> counts;
    for (std::int64_t j = 0; j <= 4; ++j) {
        counts.insert(counts.end(), static_cast<std::size_t>(perColumn), j);
    }
    const auto out = sampleOutputs(*m, counts, 31337);
    DPX_VERIFY_OK(out);
    for (std::size_t j = 0; j <= 4; ++j) {
        std::vector<long> observed(5, 0);
        for (std::size_t g = 0; g < static_cast<std::size_t>(perColumn); ++g) {
            const int o = (*out)[j * static_cast<std::size_t>(perColumn) + g];
            QVERIFY2(m->at(static_cast<std::size_t>(o), j) > 0,
                     (QByteArray("drew row ") + QByteArray::number(o) + " of column " +
                      QByteArray::number(static_cast<qulonglong>(j)) + " (probability 0)")
                         .constData());
            ++observed[static_cast<std::size_t>(o)];
        }
        std::vector<double> p(5);
        for (std::size_t i = 0; i < 5; ++i) {
            p[i] = m->at(i, j);
        }
        int dof = 0;
        const double stat = chiSquare(observed, p, perColumn, &dof);
        if (dof == 0) {
            QCOMPARE(observed[2], perColumn);  // the point mass of column 1
        } else {
            QVERIFY2(stat < chiSquareThreshold(dof), QByteArray::number(stat).constData());
        }
    }
    // The extreme uniforms land on the first and last positive rows of each column.
    QCOMPARE(outputForUniform(*m, 0, 0.0).value(), 1);
    QCOMPARE(outputForUniform(*m, 0, std::nextafter(1.0, 0.0)).value(), 3);
    QCOMPARE(outputForUniform(*m, 0, 0.5).value(), 3);  // [0, ½) → 1, [½, 1) → 3
    QCOMPARE(outputForUniform(*m, 1, 0.0).value(), 2);
    QCOMPARE(outputForUniform(*m, 2, std::nextafter(1.0, 0.0)).value(), 3);
    QCOMPARE(outputForUniform(*m, 3, 0.0).value(), 1);
}

void TestCountAnalysis::samplingThresholdGuard() {
    // Columns that sum to 1 − 8e-10 (accepted: within kColumnSumTolerance = 1e-9). A naive
    // cumulative table ends at 0.9999999992, below the largest uniforms: u = 1 − 2⁻⁵³ would fall
    // off the end (output 3) or, clamped to the last row, return a zero row.
    const double tiny = 8e-10;
    const auto m = CountMechanism::fromRows({{0.5, 0.3, 0.0, 0.25},
                                             {0.5 - tiny, 0.7 - tiny, 0.5, 0.25},
                                             {0.0, 0.0, 0.5, 0.25},
                                             {0.0, 0.0, 0.0, 0.25 - tiny}});
    DPX_VERIFY_OK(m);
    const double top = std::nextafter(1.0, 0.0);
    QCOMPARE(outputForUniform(*m, 0, top).value(), 1);
    QCOMPARE(outputForUniform(*m, 1, top).value(), 1);
    QCOMPARE(outputForUniform(*m, 2, top).value(), 2);
    QCOMPARE(outputForUniform(*m, 3, top).value(), 3);
    // The thresholds are the cumulative sums renormalised by the column total: 0.3/(1 − 8e-10) is
    // above 0.3, so u = 0.3 + 1e-12 still gives row 0 in column 1.
    QCOMPARE(outputForUniform(*m, 1, 0.3 + 1e-12).value(), 0);
    QCOMPARE(outputForUniform(*m, 1, 0.3 / (1 - tiny) + 1e-12).value(), 1);
}

void TestCountAnalysis::samplingManyGroups() {
    // 10⁶ groups at n = 100 (the size the header promises to handle quickly). The empirical mean
    // error over all groups estimates the mixture bias of the counts' prior (here uniform over
    // 0..100 by construction): within 5 standard errors.
    const auto m = truncatedGeometric(100, 0.5);
    DPX_VERIFY_OK(m);
    std::vector<std::int64_t> counts(1000000);
    for (std::size_t g = 0; g < counts.size(); ++g) {
        counts[g] = static_cast<std::int64_t>(g % 101);
    }
    QElapsedTimer timer;
    timer.start();
    const auto out = sampleOutputs(*m, counts, 77);
    const qint64 ms = timer.elapsed();
    DPX_VERIFY_OK(out);
    qInfo("sampleOutputs: 10^6 groups at n = 100 in %lld ms", static_cast<long long>(ms));
    double sum = 0;
    double sum2 = 0;
    for (std::size_t g = 0; g < counts.size(); ++g) {
        const double e = static_cast<double>((*out)[g] - counts[g]);
        sum += e;
        sum2 += e * e;
    }
    const double count = static_cast<double>(counts.size());
    const double mean = sum / count;
    const double se = std::sqrt((sum2 / count - mean * mean) / (count - 1));
    // Exact reference: 10⁶ = 9900·101 + 100, so counts 0..99 occur 9901 times and 100 occurs
    // 9900 times; with GM's symmetry the small bias comes from that one missing group.
    std::vector<double> w(101, 9901.0 / count);
    w[100] = 9900.0 / count;
    const auto mix = mixtureErrorDistribution(*m, w);
    DPX_VERIFY_OK(mix);
    QVERIFY2(std::abs(mean - mix->bias) <= 5 * se,
             (QByteArray::number(mean) + " vs " + QByteArray::number(mix->bias) + " (se " +
              QByteArray::number(se) + ")")
                 .constData());
    DPX_VERIFY_REL(sum2 / count, mix->meanSquare, 0.01);
}

void TestCountAnalysis::samplingRejects() {
    const auto m = truncatedGeometric(5, 1.0);
    DPX_VERIFY_OK(m);
    const auto low = sampleOutputs(*m, {0, 2, -1, 3}, 1);
    DPX_VERIFY_ERROR(low, "[2] = -1");
    const auto high = sampleOutputs(*m, {3, 6}, 1);
    DPX_VERIFY_ERROR(high, "[1] = 6");
    DPX_VERIFY_ERROR(high, "0..5");
    DPX_VERIFY_OK(sampleOutputs(*m, {0, 5}, 1));
}

// ---------------------------------------------------------------------------------------------
// Central mechanisms as count matrices

void TestCountAnalysis::laplaceMatrixMatchesIntegrals_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("epsilon");
    QTest::newRow("n 1 eps 1") << 1 << 1.0;
    QTest::newRow("n 3 eps ln 3") << 3 << std::log(3.0);
    QTest::newRow("n 6 eps 0.5") << 6 << 0.5;
    QTest::newRow("n 5 eps 0.01 (wide noise)") << 5 << 0.01;
    QTest::newRow("n 4 eps 8 (narrow noise)") << 4 << 8.0;
}

void TestCountAnalysis::laplaceMatrixMatchesIntegrals() {
    QFETCH(int, n);
    QFETCH(double, epsilon);
    const auto m = discretizedLaplace(n, epsilon);
    DPX_VERIFY_OK(m);
    QCOMPARE(m->name(), std::string("discretized Laplace"));
    QCOMPARE(m->people(), static_cast<std::size_t>(n));
    const double b = 1 / epsilon;  // Δ1 = 1
    for (int j = 0; j <= n; ++j) {
        for (int i = 0; i <= n; ++i) {
            // Quadrature of the density ½b⁻¹e^{−|x|/b} (quadrature.h), split at the kink.
            const double ref = roundedClampedReference(
                [b](double x) { return dpxtest::laplacePdf(x, b); }, n, i, j);
            const double got = m->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
            DPX_VERIFY_NEAR(got, ref, 1e-14 + 1e-12 * ref);
        }
        DPX_VERIFY_NEAR(m->columnSum(static_cast<std::size_t>(j)), 1.0, 1e-15);
    }
    // Closed forms written out independently: P[0][0] = 1 − ½e^{−1/(2b)} and, for n ≥ 2,
    // P[1][0] = ½(e^{−1/(2b)} − e^{−3/(2b)}).
    DPX_VERIFY_REL(m->at(0, 0), 1 - 0.5 * std::exp(-0.5 / b), 1e-14);
    if (n >= 2) {
        DPX_VERIFY_REL(m->at(1, 0), 0.5 * (std::exp(-0.5 / b) - std::exp(-1.5 / b)), 1e-12);
    }
    // Symmetric, as the noise is.
    QVERIFY(m->properties().symmetric.holds);
}

void TestCountAnalysis::laplaceMatrixPrivacy_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("epsilon");
    QTest::newRow("n 1 eps 1") << 1 << 1.0;
    QTest::newRow("n 1 eps 0.1") << 1 << 0.1;
    QTest::newRow("n 2 eps 1") << 2 << 1.0;
    QTest::newRow("n 10 eps 0.5") << 10 << 0.5;
    QTest::newRow("n 100 eps 0.1") << 100 << 0.1;
    QTest::newRow("n 500 eps 0.001") << 500 << 0.001;
    QTest::newRow("n 2000 eps 0.3 (no underflow)") << 2000 << 0.3;
    // b = 10⁶: a cdf/survival difference would lose ~6 digits here (error ~1e-10 in ε).
    QTest::newRow("n 50 eps 1e-6 (needs expm1)") << 50 << 1e-6;
}

void TestCountAnalysis::laplaceMatrixPrivacy() {
    QFETCH(int, n);
    QFETCH(double, epsilon);
    const auto m = discretizedLaplace(n, epsilon);
    DPX_VERIFY_OK(m);
    const double achieved = m->achievedEpsilon();
    // Post-processing of the ε-DP Laplace mechanism.
    QVERIFY2(achieved <= epsilon + 1e-12,
             dpxtest::nearMessage("achieved ε", achieved, epsilon, 1e-12).constData());
    if (n == 1) {
        // Only the end rows exist, and both contain an interval around 0:
        // P[0][0]/P[0][1] = (1 − ½e^{−ε/2})/(½e^{−ε/2}) = 2e^{ε/2} − 1 < e^ε.
        DPX_VERIFY_NEAR(achieved, std::log(2 * std::exp(epsilon / 2) - 1), 1e-14);
        QVERIFY(achieved < epsilon);
    } else {
        // Attained: end rows with j ≥ 1 (both intervals in the lower tail) have ratio e^ε.
        DPX_VERIFY_NEAR(achieved, epsilon, 1e-12);
        DPX_VERIFY_NEAR(std::log(m->at(0, 1) / m->at(0, 2)), epsilon, 1e-12);
    }
    // The intervals around 0 give strictly less. With x = e^{−ε/2}: P[1][1] = 1 − x (|Z| < ½),
    // P[1][2] = ½x(1 − x²) (½ ≤ Z < 3/2), so P[1][1]/P[1][2] = 2/(x(1+x)) = e^ε·2x/(1+x) < e^ε.
    if (n >= 3) {
        const double x = std::exp(-epsilon / 2);
        const double straddle = std::log(m->at(1, 1) / m->at(1, 2));
        DPX_VERIFY_NEAR(straddle, epsilon + std::log(2 * x / (1 + x)), 1e-12);
        QVERIFY(straddle < epsilon);
    }
}

void TestCountAnalysis::laplaceMatrixUnderflow() {
    // n = 2000, ε = 1: P[0][j] = ½e^{−(j−½)} underflows to 0 once j − ½ exceeds ≈ 745 (the
    // smallest subnormal is e^{−744.4}), so P[0][2000] = 0 while P[0][700] > 0, and somewhere in
    // between a zero faces a positive entry. The stored matrix is therefore not ε-DP for any ε:
    // achievedEpsilon() = +∞, the honest answer for the matrix as stored.
    const auto m = discretizedLaplace(2000, 1.0);
    DPX_VERIFY_OK(m);
    QCOMPARE(m->at(0, 2000), 0.0);
    QVERIFY(m->at(0, 700) > 0);
    QCOMPARE(m->achievedEpsilon(), std::numeric_limits<double>::infinity());
    // GM at the same (n, ε) underflows in the same way.
    QCOMPARE(truncatedGeometric(2000, 1.0)->achievedEpsilon(),
             std::numeric_limits<double>::infinity());
}

void TestCountAnalysis::clampedGeometricIsGm_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("epsilon");
    QTest::newRow("n 1 eps 1") << 1 << 1.0;
    QTest::newRow("n 3 eps ln 2 (digest)") << 3 << std::log(2.0);
    QTest::newRow("n 2 eps -ln 0.9 (digest)") << 2 << -std::log(0.9);
    QTest::newRow("n 40 eps 0.01") << 40 << 0.01;
    QTest::newRow("n 200 eps 2") << 200 << 2.0;
    QTest::newRow("n 2000 eps 0.01") << 2000 << 0.01;
}

void TestCountAnalysis::clampedGeometricIsGm() {
    QFETCH(int, n);
    QFETCH(double, epsilon);
    const auto c = clampedGeometric(n, epsilon);
    const auto gm = truncatedGeometric(n, epsilon);
    DPX_VERIFY_OK(c);
    DPX_VERIFY_OK(gm);
    QCOMPARE(c->name(), std::string("clamped geometric"));
    QCOMPARE(c->size(), gm->size());
    double worst = 0;  // one check: QVERIFY2 per entry would cost seconds at n = 2000
    for (std::size_t k = 0; k < c->rowMajor().size(); ++k) {
        worst = std::max(worst, std::abs(c->rowMajor()[k] - gm->rowMajor()[k]));
    }
    DPX_VERIFY_NEAR(worst, 0.0, 1e-15);
    DPX_VERIFY_NEAR(c->achievedEpsilon(), epsilon, 1e-12);
    // And both are the clamped two-sided geometric, summed directly over z (|z| ≤ support).
    if (n <= 3) {
        const double alpha = std::exp(-epsilon);
        const long support = dpxtest::geometricSupport(alpha);
        for (int j = 0; j <= n; ++j) {
            std::vector<double> col(static_cast<std::size_t>(n) + 1, 0.0);
            for (long z = -support; z <= support; ++z) {
                const long out = std::clamp<long>(j + z, 0, n);
                col[static_cast<std::size_t>(out)] += dpxtest::geometricPmf(z, alpha);
            }
            for (int i = 0; i <= n; ++i) {
                DPX_VERIFY_NEAR(c->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j)),
                                col[static_cast<std::size_t>(i)], 1e-14);
            }
        }
    }
}

void TestCountAnalysis::gaussianMatrixMatchesIntegrals() {
    // σ from the project's analytic calibration (the code under test only applies it).
    const double epsilon = 1;
    const double delta = 1e-5;
    const double sigma =
        gaussianSigma(GaussianParams{epsilon, delta, 1, GaussianCalibration::Analytic}).value();
    const int n = 6;
    const auto m = discretizedGaussian(n, epsilon, delta);
    DPX_VERIFY_OK(m);
    QCOMPARE(m->name(), std::string("discretized Gaussian"));
    for (int j = 0; j <= n; ++j) {
        for (int i = 0; i <= n; ++i) {
            const double ref = roundedClampedReference(
                [sigma](double x) { return dpxtest::gaussianPdf(x, sigma); }, n, i, j);
            DPX_VERIFY_NEAR(m->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j)), ref,
                            1e-14 + 1e-12 * ref);
        }
    }
    // Through centralMechanismMatrix directly, with the same σ: identical.
    const auto direct = centralMechanismMatrix(NoiseDistribution::gaussian(sigma), n, "g");
    DPX_VERIFY_OK(direct);
    QVERIFY(direct->rowMajor() == m->rowMajor());
}

void TestCountAnalysis::gaussianMatrixIsNotPureDp() {
    const double epsilon = 1;
    const double delta = 1e-6;
    // Large n: the end-row tail ratio Pr[Z ≥ n − ½ − j]/Pr[Z ≥ n − 3/2 − j] grows with n, so the
    // matrix is not ε-DP, although every entry is positive (finite achieved ε).
    const auto big = discretizedGaussian(100, epsilon, delta);
    DPX_VERIFY_OK(big);
    const double achievedBig = big->achievedEpsilon();
    QVERIFY2(std::isfinite(achievedBig) && achievedBig > 2 * epsilon,
             QByteArray::number(achievedBig, 'g', 17).constData());
    // Yet it is (ε, δ)-DP as post-processing: the hockey-stick divergence between every pair of
    // adjacent columns is at most δ.
    double worstDelta = 0;
    for (std::size_t j = 0; j + 1 < big->size(); ++j) {
        worstDelta = std::max(worstDelta, hockeyStick(*big, j, j + 1, epsilon));
    }
    QVERIFY2(worstDelta <= delta, QByteArray::number(worstDelta, 'g', 17).constData());
    QVERIFY(worstDelta > 0);
    // The achieved ε grows with n: at n = 10 this finite matrix is still below ε (≈ 0.59, see
    // the header), which does not make the Gaussian mechanism ε-DP.
    const auto small = discretizedGaussian(10, epsilon, delta);
    DPX_VERIFY_OK(small);
    QVERIFY(small->achievedEpsilon() < epsilon);
    QVERIFY(small->achievedEpsilon() > 0);
    // For n = 300, Pr[Z ≥ 299.5] with σ ≈ 4.22 underflows: zeros face non-zeros, ε = +∞.
    const auto huge = discretizedGaussian(300, epsilon, delta);
    DPX_VERIFY_OK(huge);
    QCOMPARE(huge->achievedEpsilon(), std::numeric_limits<double>::infinity());
}

void TestCountAnalysis::centralMatrixRejects() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const int n : {0, -1, kMaxCountPeople + 1}) {
        DPX_VERIFY_ERROR(discretizedLaplace(n, 1), "number of people|n");
        DPX_VERIFY_ERROR(clampedGeometric(n, 1), "number of people|n");
        DPX_VERIFY_ERROR(discretizedGaussian(n, 1, 1e-6), "number of people|n");
        DPX_VERIFY_ERROR(centralMechanismMatrix(NoiseDistribution::laplace(1), n, "x"),
                         "number of people|n");
    }
    for (const double bad : {0.0, -1.0, nan, inf}) {
        DPX_VERIFY_ERROR(discretizedLaplace(3, bad), "ε|epsilon");
        DPX_VERIFY_ERROR(clampedGeometric(3, bad), "ε|epsilon");
        DPX_VERIFY_ERROR(discretizedGaussian(3, bad, 1e-6), "ε|epsilon");
    }
    for (const double bad : {0.0, 1.0, -0.5, nan}) {
        DPX_VERIFY_ERROR(discretizedGaussian(3, 1, bad), "δ|delta");
    }
    DPX_VERIFY_ERROR(clampedGeometric(3, 800), "α|representable");
    DPX_VERIFY_ERROR(centralMechanismMatrix(NoiseDistribution::laplace(0), 3, "x"), "scale b");
    DPX_VERIFY_ERROR(centralMechanismMatrix(NoiseDistribution::laplace(inf), 3, "x"), "scale b");
    DPX_VERIFY_ERROR(centralMechanismMatrix(NoiseDistribution::discreteLaplace(1), 3, "x"), "α");
    DPX_VERIFY_ERROR(centralMechanismMatrix(NoiseDistribution::discreteLaplace(0), 3, "x"), "α");
    DPX_VERIFY_ERROR(centralMechanismMatrix(NoiseDistribution::gaussian(-1), 3, "x"), "σ");
    DPX_VERIFY_ERROR(centralMechanismMatrix(NoiseDistribution::gaussian(nan), 3, "x"), "σ");
    DPX_VERIFY_OK(centralMechanismMatrix(NoiseDistribution::gaussian(0.1), 1, "x"));
}

QTEST_APPLESS_MAIN(TestCountAnalysis)
#include "tst_count_analysis.moc"
