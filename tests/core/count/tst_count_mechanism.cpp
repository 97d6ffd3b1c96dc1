// Count-query mechanism matrices (seed 001 ch. 6; digest "Count queries and mechanism matrices"):
// GM, EM, UM, RR, GRR closed forms, achieved ε, the seven structural properties, L0 and
// symmetrisation, and the validation of raw matrices.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/count/count_mechanism.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

using Rows = std::vector<std::vector<double>>;

// A hand-built valid mechanism for n = 3 that is not symmetric and not fair, but has RH, RM, CH,
// CM and WH (each checked by hand: rows and columns rise to the diagonal and fall after it; the
// diagonal 0.5, 0.4, 0.45, 0.6 is ≥ 1/4). Columns: (0.5, 0.3, 0.15, 0.05), (0.2, 0.4, 0.3, 0.1),
// (0.1, 0.25, 0.45, 0.2), (0.05, 0.15, 0.2, 0.6).
Rows handBuilt() {
    return {{0.5, 0.2, 0.1, 0.05},
            {0.3, 0.4, 0.25, 0.15},
            {0.15, 0.3, 0.45, 0.2},
            {0.05, 0.1, 0.2, 0.6}};
}

QByteArray describe(const CountProperties& props) {
    QByteArray out;
    for (const CountProperty p : kAllCountProperties) {
        const PropertyCheck& c = props.get(p);
        out += QByteArray(countPropertyName(p)) + "=" + (c.holds ? "yes" : "no");
        if (!c.holds) {
            out += " (" + QByteArray::fromStdString(c.reason) + ")";
        }
        out += "; ";
    }
    return out;
}

}  // namespace

class TestCountMechanism : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void geometricColumns_data();
    void geometricColumns();
    void geometricStructure_data();
    void geometricStructure();
    void geometricWeakHonesty_data();
    void geometricWeakHonesty();
    void geometricColumnMonotone_data();
    void geometricColumnMonotone();
    void geometricIsClampedTwoSidedGeometric();
    void explicitFairY_data();
    void explicitFairY();
    void explicitFairColumns();
    void explicitFairStructure_data();
    void explicitFairStructure();
    void uniform();
    void randomizedResponse1();
    void generalizedRR_data();
    void generalizedRR();
    void symmetrisation_data();
    void symmetrisation();
    void losses();
    void fromRowsRejects_data();
    void fromRowsRejects();
    void zeroFacingNonZero();
    void firstViolatingCell();
    void validation();
};

// ---------------------------------------------------------------------------------------------
// GM

void TestCountMechanism::geometricColumns_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("alpha");
    QTest::addColumn<QList<double>>("columnsFlat");  // column after column
    // Digest 001 "Reference values", printed to 4 decimals → tolerance 5e-5.
    QTest::newRow("n 2 alpha 0.9 (digest 001)")
        << 2 << 0.9
        << QList<double>{0.5263, 0.0474, 0.4263, 0.4737, 0.0526, 0.4737, 0.4263, 0.0474, 0.5263};
    QTest::newRow("n 3 alpha 0.5 (digest 001)")
        << 3 << 0.5
        << QList<double>{0.6667, 0.1667, 0.0833, 0.0833, 0.3333, 0.3333, 0.1667, 0.1667,
                         0.1667, 0.1667, 0.3333, 0.3333, 0.0833, 0.0833, 0.1667, 0.6667};
}

void TestCountMechanism::geometricColumns() {
    QFETCH(int, n);
    QFETCH(double, alpha);
    QFETCH(QList<double>, columnsFlat);
    const auto m = truncatedGeometric(n, -std::log(alpha));
    DPX_VERIFY_OK(m);
    const auto size = static_cast<std::size_t>(n) + 1;
    QCOMPARE(m->size(), size);
    QCOMPARE(m->people(), static_cast<std::size_t>(n));
    for (std::size_t j = 0; j < size; ++j) {
        for (std::size_t i = 0; i < size; ++i) {
            DPX_VERIFY_NEAR(m->at(i, j), columnsFlat[static_cast<qsizetype>(j * size + i)], 5e-5);
        }
        DPX_VERIFY_NEAR(m->columnSum(j), 1.0, 1e-14);
    }
}

void TestCountMechanism::geometricStructure_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("alpha");
    QTest::newRow("n 1 alpha 0.5") << 1 << 0.5;
    QTest::newRow("n 2 alpha 0.9") << 2 << 0.9;
    QTest::newRow("n 3 alpha 0.5") << 3 << 0.5;
    QTest::newRow("n 6 alpha 0.76") << 6 << 0.76;
    QTest::newRow("n 15 alpha 0.3") << 15 << 0.3;
    QTest::newRow("n 40 alpha 0.99") << 40 << 0.99;
}

void TestCountMechanism::geometricStructure() {
    QFETCH(int, n);
    QFETCH(double, alpha);
    const double epsilon = -std::log(alpha);
    const auto m = truncatedGeometric(n, epsilon);
    DPX_VERIFY_OK(m);
    for (std::size_t j = 0; j < m->size(); ++j) {
        DPX_VERIFY_NEAR(m->columnSum(j), 1.0, 1e-13);
    }
    // L0(GM) = 2α/(1+α) (seed 001 §6; derivation: Σ diag = 2/(1+α) + (n−1)(1−α)/(1+α)).
    DPX_VERIFY_NEAR(m->l0(), 2 * alpha / (1 + alpha), 1e-13);
    // Exactly ε-DP: the ratio α is attained between adjacent columns.
    DPX_VERIFY_NEAR(m->achievedEpsilon(), epsilon, 1e-12);
    // Symmetric and row monotone (hence row honest); not fair for n ≥ 2 (corners 1/(1+α) vs
    // interior (1−α)/(1+α)).
    const auto props = m->properties();
    QVERIFY2(props.symmetric.holds, describe(props).constData());
    QVERIFY2(props.rowMonotone.holds, describe(props).constData());
    QVERIFY2(props.rowHonest.holds, describe(props).constData());
    if (n >= 2) {
        QVERIFY2(!props.fair.holds, describe(props).constData());
    }
}

void TestCountMechanism::geometricWeakHonesty_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("alpha");
    QTest::addColumn<bool>("expected");
    // WH iff n ≥ 2α/(1−α) (digest 001): the interior diagonal (1−α)/(1+α) ≥ 1/(n+1).
    // α = 0.9: threshold 18; α = 0.5: threshold 2; α = 0.76: threshold 6.333.
    QTest::newRow("alpha 0.9 n 17 (below)") << 17 << 0.9 << false;
    QTest::newRow("alpha 0.9 n 18 (equality, within 1e-12)") << 18 << 0.9 << true;
    QTest::newRow("alpha 0.9 n 19 (above)") << 19 << 0.9 << true;
    QTest::newRow("alpha 0.76 n 6 (below)") << 6 << 0.76 << false;
    QTest::newRow("alpha 0.76 n 7 (above)") << 7 << 0.76 << true;
    QTest::newRow("alpha 0.5 n 2 (equality)") << 2 << 0.5 << true;
    QTest::newRow("alpha 0.6 n 2 (below)") << 2 << 0.6 << false;
}

void TestCountMechanism::geometricWeakHonesty() {
    QFETCH(int, n);
    QFETCH(double, alpha);
    QFETCH(bool, expected);
    const auto m = truncatedGeometric(n, -std::log(alpha));
    DPX_VERIFY_OK(m);
    const auto props = m->properties();
    QVERIFY2(props.weaklyHonest.holds == expected, describe(props).constData());
    if (!expected) {
        // The first failing diagonal cell is (1, 1), the first interior row.
        QCOMPARE(props.weaklyHonest.row, std::size_t{1});
        QCOMPARE(props.weaklyHonest.column, std::size_t{1});
    }
}

void TestCountMechanism::geometricColumnMonotone_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("alpha");
    QTest::addColumn<bool>("expected");
    // CM iff α ≤ ½ (digest 001): P[0][j] = α^j/(1+α) ≤ P[1][j] = (1−α)α^(j−1)/(1+α) ⇔ α ≤ 1−α.
    QTest::newRow("n 4 alpha 0.3") << 4 << 0.3 << true;
    QTest::newRow("n 4 alpha 0.5 (equality)") << 4 << 0.5 << true;
    QTest::newRow("n 4 alpha 0.51") << 4 << 0.51 << false;
    QTest::newRow("n 9 alpha 0.9") << 9 << 0.9 << false;
    QTest::newRow("n 9 alpha 0.45") << 9 << 0.45 << true;
}

void TestCountMechanism::geometricColumnMonotone() {
    QFETCH(int, n);
    QFETCH(double, alpha);
    QFETCH(bool, expected);
    const auto m = truncatedGeometric(n, -std::log(alpha));
    DPX_VERIFY_OK(m);
    const auto props = m->properties();
    QVERIFY2(props.columnMonotone.holds == expected, describe(props).constData());
    if (!expected) {
        // First violation in row-major order: row 1, column 1 (P[0][1] > P[1][1]).
        QCOMPARE(props.columnMonotone.row, std::size_t{1});
        QCOMPARE(props.columnMonotone.column, std::size_t{1});
    }
}

void TestCountMechanism::geometricIsClampedTwoSidedGeometric() {
    // Independent reference: sum Pr[Z = z] = (1−α)/(1+α)·α^|z| over z with clamp(j+z, 0, n) = i,
    // truncating the tails at |z| ≤ 2000 (remaining mass < α^2000 ≈ 0 for α = 0.7).
    const int n = 5;
    const double alpha = 0.7;
    const auto m = truncatedGeometric(n, -std::log(alpha));
    DPX_VERIFY_OK(m);
    for (int j = 0; j <= n; ++j) {
        std::vector<double> col(static_cast<std::size_t>(n) + 1, 0.0);
        for (int z = -2000; z <= 2000; ++z) {
            const int out = std::clamp(j + z, 0, n);
            col[static_cast<std::size_t>(out)] +=
                (1 - alpha) / (1 + alpha) * std::pow(alpha, std::abs(z));
        }
        for (int i = 0; i <= n; ++i) {
            DPX_VERIFY_NEAR(m->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j)),
                            col[static_cast<std::size_t>(i)], 1e-14);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// EM

void TestCountMechanism::explicitFairY_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("alpha");
    QTest::addColumn<double>("y");
    QTest::addColumn<double>("tol");
    // Digest 001 "Reference values", 6 decimals → 5e-7; n = 3, α = 0.5 printed to 4 → 5e-5.
    QTest::newRow("n 2 alpha 0.9 (digest)") << 2 << 0.9 << 0.357143 << 5e-7;
    QTest::newRow("n 4 alpha 0.9 (digest)") << 4 << 0.9 << 0.226244 << 5e-7;
    QTest::newRow("n 7 alpha 0.9 (digest)") << 7 << 0.9 << 0.153043 << 5e-7;
    QTest::newRow("n 3 alpha 0.5 (digest)") << 3 << 0.5 << 0.4444 << 5e-5;
}

void TestCountMechanism::explicitFairY() {
    QFETCH(int, n);
    QFETCH(double, alpha);
    QFETCH(double, y);
    QFETCH(double, tol);
    const auto m = explicitFair(n, -std::log(alpha));
    DPX_VERIFY_OK(m);
    // y is the constant diagonal (columns normalised individually).
    for (std::size_t i = 0; i < m->size(); ++i) {
        DPX_VERIFY_NEAR(m->at(i, i), y, tol);
    }
    // Agrees with the closed forms of seed 001 eq. 6.15 (re-derived: each column sums to
    // y·(1 + 2Σ_{k=1}^{⌊n/2⌋} α^k) for even n, y·(1 + 2Σ_{k=1}^{(n−1)/2} α^k + α^((n+1)/2)) odd).
    double closed = 0;
    if (n % 2 == 0) {
        closed = (1 - alpha) / (1 + alpha - 2 * std::pow(alpha, n / 2 + 1));
    } else {
        double s = 1 + std::pow(alpha, (n + 1) / 2);
        for (int k = 1; k <= (n - 1) / 2; ++k) {
            s += 2 * std::pow(alpha, k);
        }
        closed = 1 / s;
    }
    DPX_VERIFY_NEAR(m->at(0, 0), closed, 1e-14);
}

void TestCountMechanism::explicitFairColumns() {
    // Digest 001: EM n = 3, α = 0.5 columns, 4 decimals → 5e-5.
    const std::vector<std::vector<double>> cols = {{0.4444, 0.2222, 0.2222, 0.1111},
                                                   {0.2222, 0.4444, 0.2222, 0.1111},
                                                   {0.1111, 0.2222, 0.4444, 0.2222},
                                                   {0.1111, 0.2222, 0.2222, 0.4444}};
    const auto m = explicitFair(3, std::log(2.0));
    DPX_VERIFY_OK(m);
    for (std::size_t j = 0; j < 4; ++j) {
        for (std::size_t i = 0; i < 4; ++i) {
            DPX_VERIFY_NEAR(m->at(i, j), cols[j][i], 5e-5);
        }
    }
}

void TestCountMechanism::explicitFairStructure_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("alpha");
    QTest::newRow("n 1 alpha 0.5") << 1 << 0.5;
    QTest::newRow("n 2 alpha 0.9") << 2 << 0.9;
    QTest::newRow("n 3 alpha 0.5") << 3 << 0.5;
    QTest::newRow("n 4 alpha 0.9") << 4 << 0.9;
    QTest::newRow("n 7 alpha 0.9") << 7 << 0.9;
    QTest::newRow("n 8 alpha 0.62") << 8 << 0.62;
    QTest::newRow("n 11 alpha 0.3") << 11 << 0.3;
    QTest::newRow("n 30 alpha 0.99") << 30 << 0.99;
    QTest::newRow("n 31 alpha 0.1") << 31 << 0.1;
}

void TestCountMechanism::explicitFairStructure() {
    QFETCH(int, n);
    QFETCH(double, alpha);
    const double epsilon = -std::log(alpha);
    const auto m = explicitFair(n, epsilon);
    DPX_VERIFY_OK(m);
    for (std::size_t j = 0; j < m->size(); ++j) {
        DPX_VERIFY_NEAR(m->columnSum(j), 1.0, 1e-13);
    }
    // Seed 001 §6: EM satisfies all seven properties and is ε-DP.
    const auto props = m->properties();
    for (const CountProperty p : kAllCountProperties) {
        QVERIFY2(props.get(p).holds,
                 (QByteArray(countPropertyName(p)) + ": " + describe(props)).constData());
    }
    QVERIFY2(m->achievedEpsilon() <= epsilon + 1e-12,
             dpxtest::nearMessage("achieved ε", m->achievedEpsilon(), epsilon, 1e-12).constData());
    // L0(EM) = (n+1)/n·(1−y) (seed 001 §6).
    const double y = m->at(0, 0);
    DPX_VERIFY_NEAR(m->l0(), (n + 1.0) / n * (1 - y), 1e-14);
}

// ---------------------------------------------------------------------------------------------
// UM, RR, GRR

void TestCountMechanism::uniform() {
    for (const int n : {1, 2, 5, 12}) {
        const auto m = uniformMechanism(n);
        DPX_VERIFY_OK(m);
        const auto props = m->properties();
        for (const CountProperty p : kAllCountProperties) {
            QVERIFY2(props.get(p).holds, describe(props).constData());
        }
        // Seed 001 §6: UM scores L0 = 1; its columns are equal, so it is 0-DP.
        DPX_VERIFY_NEAR(m->l0(), 1.0, 1e-14);
        QCOMPARE(m->achievedEpsilon(), 0.0);
        DPX_VERIFY_NEAR(m->at(0, 0), 1.0 / (n + 1), 1e-16);
    }
}

void TestCountMechanism::randomizedResponse1() {
    for (const double epsilon : {0.1, std::log(3.0), 1.0, 4.0}) {
        const auto m = randomizedResponse(epsilon);
        DPX_VERIFY_OK(m);
        QCOMPARE(m->people(), std::size_t{1});
        const double alpha = std::exp(-epsilon);
        // Seed 001 §6 (n = 1): P[0][0] = P[1][1] = 1/(1+α) = e^ε/(1+e^ε) (seed 003: P(0)).
        DPX_VERIFY_NEAR(m->at(0, 0), 1 / (1 + alpha), 1e-15);
        DPX_VERIFY_NEAR(m->at(1, 1), 1 / (1 + alpha), 1e-15);
        DPX_VERIFY_NEAR(m->at(0, 1), alpha / (1 + alpha), 1e-15);
        DPX_VERIFY_NEAR(m->achievedEpsilon(), epsilon, 1e-12);
        // RR is GM and EM at n = 1.
        const auto gm = truncatedGeometric(1, epsilon);
        const auto em = explicitFair(1, epsilon);
        DPX_VERIFY_OK(gm);
        DPX_VERIFY_OK(em);
        for (std::size_t k = 0; k < 4; ++k) {
            DPX_VERIFY_NEAR(gm->rowMajor()[k], m->rowMajor()[k], 1e-15);
            DPX_VERIFY_NEAR(em->rowMajor()[k], m->rowMajor()[k], 1e-15);
        }
    }
}

void TestCountMechanism::generalizedRR_data() {
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("epsilon");
    QTest::newRow("k 2 eps 1") << 2 << 1.0;
    QTest::newRow("k 5 eps ln3 (seed 001 default)") << 5 << std::log(3.0);
    QTest::newRow("k 32 eps 0.5") << 32 << 0.5;
    QTest::newRow("k 10 eps 700 (no overflow)") << 10 << 700.0;
}

void TestCountMechanism::generalizedRR() {
    QFETCH(int, k);
    QFETCH(double, epsilon);
    const auto m = generalizedRandomizedResponse(k, epsilon);
    DPX_VERIFY_OK(m);
    const auto size = static_cast<std::size_t>(k);
    QCOMPARE(m->size(), size);
    // Seed 001 §2.4: p = e^ε/(e^ε+k−1) on the diagonal, 1/(e^ε+k−1) elsewhere (written via α).
    const double alpha = std::exp(-epsilon);
    const double p = 1 / (1 + (k - 1) * alpha);
    for (std::size_t i = 0; i < size; ++i) {
        double rowSum = 0;
        for (std::size_t j = 0; j < size; ++j) {
            rowSum += m->at(i, j);
            DPX_VERIFY_REL(m->at(i, j), i == j ? p : alpha * p, 1e-14);
        }
        DPX_VERIFY_NEAR(rowSum, 1.0, 1e-13);  // doubly stochastic
        DPX_VERIFY_NEAR(m->columnSum(i), 1.0, 1e-13);
    }
    // Local DP (§6.8): any two inputs are neighbours; the worst ratio is e^ε.
    DPX_VERIFY_NEAR(m->achievedEpsilonAllPairs(), epsilon, 1e-12 * std::max(1.0, epsilon));
    QVERIFY(m->achievedEpsilon() <= m->achievedEpsilonAllPairs());
}

// ---------------------------------------------------------------------------------------------
// Symmetrisation and losses

void TestCountMechanism::symmetrisation_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("GM n 5 alpha 0.4") << 0;
    QTest::newRow("GM n 4 alpha 0.9") << 1;
    QTest::newRow("hand-built n 3") << 2;
    QTest::newRow("random n 6 (mt19937 seed 3)") << 3;
}

void TestCountMechanism::symmetrisation() {
    QFETCH(int, which);
    Expected<CountMechanism> m = Error{"unset"};
    switch (which) {
        case 0:
            m = truncatedGeometric(5, -std::log(0.4));
            break;
        case 1:
            m = truncatedGeometric(4, -std::log(0.9));
            break;
        case 2:
            m = CountMechanism::fromRows(handBuilt(), "hand");
            break;
        default: {
            std::mt19937 rng(3);
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
            m = CountMechanism::fromRows(rows, "random");
        }
    }
    DPX_VERIFY_OK(m);
    if (which == 2) {
        // The hand-built matrix has what its comment claims, and is not symmetric or fair.
        const auto props = m->properties();
        QVERIFY2(props.rowMonotone.holds && props.columnMonotone.holds &&
                     props.weaklyHonest.holds && !props.symmetric.holds && !props.fair.holds,
                 describe(props).constData());
    }
    const CountMechanism s = m->symmetrised();
    const auto before = m->properties();
    const auto after = s.properties();
    // Seed 001 §6: M* = ½(M + M^S) keeps every property of M, is symmetric, and keeps L0.
    for (const CountProperty p : kAllCountProperties) {
        if (before.get(p).holds) {
            QVERIFY2(after.get(p).holds,
                     (QByteArray(countPropertyName(p)) + " lost: " + describe(after)).constData());
        }
    }
    QVERIFY2(after.symmetric.holds, describe(after).constData());
    DPX_VERIFY_NEAR(s.l0(), m->l0(), 1e-14);
    for (std::size_t j = 0; j < s.size(); ++j) {
        DPX_VERIFY_NEAR(s.columnSum(j), 1.0, 1e-13);
    }
    // Mixing two mechanisms with the same ε cannot raise ε (ratio of sums ≤ max ratio).
    QVERIFY(s.achievedEpsilon() <= m->achievedEpsilon() + 1e-12);
}

void TestCountMechanism::losses() {
    // GM n = 2, α = 0.9 (digest columns, exact fractions: x = 1/1.9, y = 0.1/1.9).
    const double a = 0.9;
    const auto m = truncatedGeometric(2, -std::log(a));
    DPX_VERIFY_OK(m);
    const auto w = m->uniformWeights();
    // Indicator loss Σ_j w_j (1 − P[j][j]) = n/(n+1)·L0.
    const auto l0ind = m->expectedLoss(w, CountLoss::L0Indicator);
    DPX_VERIFY_OK(l0ind);
    DPX_VERIFY_NEAR(*l0ind, 2.0 / 3.0 * m->l0(), 1e-15);
    // L1 by hand: column 0: 1·y·α + 2·α²/(1+α); column 1: 2·α/(1+α); column 2 = column 0.
    const double x = 1 / (1 + a);
    const double y = (1 - a) / (1 + a);
    const double c0l1 = y * a + 2 * x * a * a;
    const double c1l1 = 2 * x * a;
    const auto l1 = m->expectedLoss(w, CountLoss::L1);
    DPX_VERIFY_OK(l1);
    DPX_VERIFY_NEAR(*l1, (2 * c0l1 + c1l1) / 3, 1e-15);
    const double c0l2 = y * a + 4 * x * a * a;
    const double c1l2 = 2 * x * a;
    const auto l2 = m->expectedLoss(w, CountLoss::L2);
    DPX_VERIFY_OK(l2);
    DPX_VERIFY_NEAR(*l2, (2 * c0l2 + c1l2) / 3, 1e-15);
    // Point-mass prior on j = 1: L0 = (n+1)/n·(1 − P[1][1]).
    const auto l0p = m->l0({0, 1, 0});
    DPX_VERIFY_OK(l0p);
    DPX_VERIFY_NEAR(*l0p, 1.5 * (1 - y), 1e-15);
    // Bad weights.
    DPX_VERIFY_ERROR(m->l0({0.5, 0.5}), "3 entries|n+1");
    DPX_VERIFY_ERROR(m->l0({0.5, 0.7, -0.2}), "w[2]");
    DPX_VERIFY_ERROR(m->expectedLoss({0.5, 0.5, 0.5}, CountLoss::L1), "sum to 1");
}

// ---------------------------------------------------------------------------------------------
// Raw matrices

void TestCountMechanism::fromRowsRejects_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QByteArray>("needles");
    QTest::newRow("non-square") << 0 << QByteArray("square|row 1");
    QTest::newRow("negative entry") << 1 << QByteArray("P[1][0]");
    QTest::newRow("NaN") << 2 << QByteArray("P[2][2]");
    QTest::newRow("column sum off by 1e-6") << 3 << QByteArray("column 1");
    QTest::newRow("single row") << 4 << QByteArray("at least 2");
    QTest::newRow("infinity") << 5 << QByteArray("P[0][1]");
}

void TestCountMechanism::fromRowsRejects() {
    QFETCH(int, which);
    QFETCH(QByteArray, needles);
    Rows rows = handBuilt();
    switch (which) {
        case 0:
            rows[1].pop_back();
            break;
        case 1:
            rows[1][0] = -0.1;
            rows[0][0] = 0.9;
            break;
        case 2:
            rows[2][2] = std::numeric_limits<double>::quiet_NaN();
            break;
        case 3:
            rows[3][1] += 1e-6;
            break;
        case 4:
            rows = {{1.0}};
            break;
        default:
            rows[0][1] = std::numeric_limits<double>::infinity();
            break;
    }
    DPX_VERIFY_ERROR(CountMechanism::fromRows(rows), needles.constData());
    // The untouched matrix is accepted, and a column error of 1e-10 is within tolerance.
    Rows ok = handBuilt();
    DPX_VERIFY_OK(CountMechanism::fromRows(ok));
    ok[0][0] += 1e-10;
    DPX_VERIFY_OK(CountMechanism::fromRows(ok));
}

void TestCountMechanism::zeroFacingNonZero() {
    // Column 0 never outputs 2, column 1 does: no finite ε. The 0/0 pair in row 0 between
    // columns 1 and 2 alone would be ignored.
    const auto m = CountMechanism::fromRows({{1.0, 0.0, 0.0}, {0.0, 0.5, 0.5}, {0.0, 0.5, 0.5}});
    DPX_VERIFY_OK(m);
    QCOMPARE(m->achievedEpsilon(), std::numeric_limits<double>::infinity());
    const auto ok = CountMechanism::fromRows({{0.0, 0.0, 0.0}, {0.5, 0.5, 0.25}, {0.5, 0.5, 0.75}});
    DPX_VERIFY_OK(ok);
    DPX_VERIFY_NEAR(ok->achievedEpsilon(), std::log(2.0), 1e-15);  // 0.5/0.25 in row 1
    DPX_VERIFY_NEAR(ok->achievedEpsilonAllPairs(), std::log(2.0), 1e-15);
}

void TestCountMechanism::firstViolatingCell() {
    // Row 0 = (0.2, 0.5, 0.3): RH fails first at (0, 1); CH: P[0][1] = 0.5 > P[1][1] = 0.1 → (0,
    // 1).
    const auto m = CountMechanism::fromRows({{0.2, 0.5, 0.3}, {0.4, 0.1, 0.3}, {0.4, 0.4, 0.4}});
    DPX_VERIFY_OK(m);
    const auto props = m->properties();
    QVERIFY(!props.rowHonest.holds);
    QCOMPARE(props.rowHonest.row, std::size_t{0});
    QCOMPARE(props.rowHonest.column, std::size_t{1});
    QVERIFY2(dpxtest::mentions(props.rowHonest.reason, "P[0][1]"), props.rowHonest.reason.c_str());
    QVERIFY(!props.columnHonest.holds);
    QCOMPARE(props.columnHonest.row, std::size_t{0});
    QCOMPARE(props.columnHonest.column, std::size_t{1});
    QVERIFY(!props.fair.holds);
    QCOMPARE(props.fair.row, std::size_t{1});
    QCOMPARE(props.fair.column, std::size_t{1});
    QVERIFY(!props.weaklyHonest.holds);  // P[0][0] = 0.2 < 1/3
    QCOMPARE(props.weaklyHonest.row, std::size_t{0});
    QVERIFY(!props.symmetric.holds);  // P[0][0] = 0.2 vs P[2][2] = 0.4
    QCOMPARE(props.symmetric.row, std::size_t{0});
    QCOMPARE(props.symmetric.column, std::size_t{0});
}

void TestCountMechanism::validation() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const double bad : {0.0, -1.0, nan, inf}) {
        DPX_VERIFY_ERROR(truncatedGeometric(3, bad), "ε|epsilon");
        DPX_VERIFY_ERROR(explicitFair(3, bad), "ε|epsilon");
        DPX_VERIFY_ERROR(randomizedResponse(bad), "ε|epsilon");
        DPX_VERIFY_ERROR(generalizedRandomizedResponse(4, bad), "ε|epsilon");
    }
    // α = e^(−ε) underflows to 0 or rounds to 1.
    DPX_VERIFY_ERROR(truncatedGeometric(3, 800), "α|representable");
    DPX_VERIFY_ERROR(explicitFair(3, 1e-20), "α|representable");
    for (const int n : {0, -2, kMaxCountPeople + 1}) {
        DPX_VERIFY_ERROR(truncatedGeometric(n, 1), "number of people|n");
        DPX_VERIFY_ERROR(explicitFair(n, 1), "number of people|n");
        DPX_VERIFY_ERROR(uniformMechanism(n), "number of people|n");
    }
    DPX_VERIFY_ERROR(generalizedRandomizedResponse(1, 1), "categories k");
    DPX_VERIFY_ERROR(generalizedRandomizedResponse(0, 1), "categories k");
}

QTEST_APPLESS_MAIN(TestCountMechanism)
#include "tst_count_mechanism.moc"
