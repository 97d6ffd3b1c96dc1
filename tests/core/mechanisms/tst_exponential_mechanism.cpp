// Exponential mechanism and report-noisy-max (selection of a bin): utilities and their sensitivity
// checked by brute force over every pair of neighbouring small histograms, ε-DP of the resulting
// probabilities over the same pairs (and the monotone factor ε/Δu), log-sum-exp stability,
// report-noisy-max against closed forms (k = 2) and independent quadrature, the mechanism matrix
// along a path of neighbours, and rejected inputs.
#include <QTest>

#include <cmath>
#include <functional>
#include <limits>

#include "core/mechanisms/exponential_mechanism.h"
#include "tests/testing/quadrature.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

// Every histogram with k bins and total ≤ maxN.
std::vector<std::vector<std::int64_t>> allHistograms(int k, int maxN) {
    std::vector<std::vector<std::int64_t>> out;
    std::vector<std::int64_t> h(static_cast<std::size_t>(k), 0);
    std::function<void(int, int)> rec = [&](int cell, int left) {
        if (cell == k) {
            out.push_back(h);
            return;
        }
        for (int v = 0; v <= left; ++v) {
            h[static_cast<std::size_t>(cell)] = v;
            rec(cell + 1, left - v);
        }
    };
    rec(0, maxN);
    return out;
}

// Neighbours of h: add/remove one record, or move one record between two bins.
std::vector<std::vector<std::int64_t>> neighbours(const std::vector<std::int64_t>& h,
                                                  Neighbouring rel) {
    std::vector<std::vector<std::int64_t>> out;
    for (std::size_t a = 0; a < h.size(); ++a) {
        if (rel == Neighbouring::AddRemove) {
            auto up = h;
            ++up[a];
            out.push_back(up);
            if (h[a] > 0) {
                auto down = h;
                --down[a];
                out.push_back(down);
            }
        } else {
            for (std::size_t b = 0; b < h.size(); ++b) {
                if (a != b && h[a] > 0) {
                    auto m = h;
                    --m[a];
                    ++m[b];
                    out.push_back(m);
                }
            }
        }
    }
    return out;
}

std::int64_t total(const std::vector<std::int64_t>& h) {
    std::int64_t n = 0;
    for (auto c : h) {
        n += c;
    }
    return n;
}

// P(argmax = j) for Laplace noise by independent quadrature (Boost Gauss–Kronrod / exp-sinh).
double rnmLaplaceReference(const std::vector<double>& u, std::size_t j, double s) {
    auto cdf = [&](double z) { return z < 0 ? 0.5 * std::exp(z / s) : 1 - 0.5 * std::exp(-z / s); };
    auto integrand = [&](double x) {
        double p = dpxtest::laplacePdf(x - u[j], s);
        for (std::size_t i = 0; i < u.size(); ++i) {
            if (i != j) {
                p *= cdf(x - u[i]);
            }
        }
        return p;
    };
    return dpxtest::integrateSplit(integrand, u);
}

}  // namespace

class TestExponentialMechanism : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void modeProbabilities();
    void quantileUtility();
    void sensitivityBruteForce_data();
    void sensitivityBruteForce();
    void monotoneFactorBruteForce();
    void logSumExpStable();
    void noisyMaxTwoCandidates();
    void noisyMaxAgainstQuadrature();
    void noisyMaxSumsToOne();
    void pathMatrix_data();
    void pathMatrix();
    void rejects();
};

void TestExponentialMechanism::modeProbabilities() {
    // P(j) = e^{c·u_j}/Σ e^{c·u_i}, written out.
    const std::vector<std::int64_t> h = {5, 2, 0, 5};
    SelectionParams p;
    p.epsilon = 0.7;
    p.neighbouring = Neighbouring::Replace;
    auto r = selectBin(h, p);
    DPX_VERIFY_OK(r);
    QCOMPARE(r->utility.factor, 0.35);  // ε/(2Δu), Δu = 1, not monotone
    double z = 0;
    for (auto c : h) {
        z += std::exp(0.35 * static_cast<double>(c));
    }
    for (std::size_t j = 0; j < h.size(); ++j) {
        DPX_VERIFY_NEAR(r->exponential[j], std::exp(0.35 * static_cast<double>(h[j])) / z, 1e-15);
    }
    QVERIFY((r->utility.best == std::vector<std::size_t>{0, 3}));
    DPX_VERIFY_NEAR(r->exactProbability, r->exponential[0] + r->exponential[3], 1e-15);
    p.neighbouring = Neighbouring::AddRemove;
    auto m = selectionUtility(h, p);
    DPX_VERIFY_OK(m);
    QVERIFY(m->monotone);
    QCOMPARE(m->factor, 0.7);  // ε/Δu
    p.useMonotone = false;
    auto m2 = selectionUtility(h, p);
    DPX_VERIFY_OK(m2);
    QCOMPARE(m2->factor, 0.35);
}

void TestExponentialMechanism::quantileUtility() {
    // h = [2, 3, 5], n = 10, q = 0.5: t = 5; intervals [0,2], [2,5], [5,10]: bins 2 and 3 contain
    // rank 5 (utility 0), bin 1 is 3 away.
    SelectionParams p;
    p.task = SelectionTask::Quantile;
    p.quantile = 0.5;
    auto u = selectionUtility(std::vector<std::int64_t>{2, 3, 5}, p);
    DPX_VERIFY_OK(u);
    QVERIFY((u->utility == std::vector<double>{-3, 0, 0}));
    QCOMPARE(u->sensitivity, 0.5);  // add/remove: max(q, 1 − q)
    p.quantile = 0.9;               // t = 9
    u = selectionUtility(std::vector<std::int64_t>{2, 3, 5}, p);
    DPX_VERIFY_OK(u);
    QVERIFY((u->utility == std::vector<double>{-7, -4, 0}));
    DPX_VERIFY_NEAR(u->sensitivity, 0.9, 1e-15);
    p.neighbouring = Neighbouring::Replace;
    u = selectionUtility(std::vector<std::int64_t>{2, 3, 5}, p);
    DPX_VERIFY_OK(u);
    QCOMPARE(u->sensitivity, 1.0);
}

void TestExponentialMechanism::sensitivityBruteForce_data() {
    QTest::addColumn<int>("task");  // 0 mode, 1 quantile
    QTest::addColumn<double>("q");
    QTest::addColumn<int>("relation");  // 0 add/remove, 1 replace
    QTest::newRow("mode add/remove") << 0 << 0.5 << 0;
    QTest::newRow("mode replace") << 0 << 0.5 << 1;
    QTest::newRow("median add/remove") << 1 << 0.5 << 0;
    QTest::newRow("median replace") << 1 << 0.5 << 1;
    QTest::newRow("q 0.8 add/remove") << 1 << 0.8 << 0;
    QTest::newRow("q 0.25 replace") << 1 << 0.25 << 1;
    QTest::newRow("q 0 add/remove (monotone)") << 1 << 0.0 << 0;
    QTest::newRow("q 0 replace (monotone)") << 1 << 0.0 << 1;
    QTest::newRow("q 1 add/remove (monotone)") << 1 << 1.0 << 0;
    QTest::newRow("q 1 replace (monotone)") << 1 << 1.0 << 1;
}

void TestExponentialMechanism::sensitivityBruteForce() {
    // Over every histogram with 4 bins and n ≤ 7 and each of its neighbours: the largest change
    // of any utility equals the claimed Δu (bound and attained), monotonicity as claimed, and the
    // exponential mechanism's log-probabilities move by at most ε.
    QFETCH(int, task);
    QFETCH(double, q);
    QFETCH(int, relation);
    SelectionParams p;
    p.epsilon = 1.3;
    p.task = task == 0 ? SelectionTask::Mode : SelectionTask::Quantile;
    p.quantile = q;
    p.neighbouring = relation == 0 ? Neighbouring::AddRemove : Neighbouring::Replace;
    double maxChange = 0, maxPrivacy = 0, claimed = -1;
    bool monotoneSeen = true, claimedMonotone = false;
    for (const auto& h : allHistograms(4, 7)) {
        if (p.task == SelectionTask::Quantile && total(h) == 0) {
            continue;
        }
        auto u = selectionUtility(h, p);
        DPX_VERIFY_OK(u);
        claimed = u->sensitivity;
        claimedMonotone = u->monotone;
        const auto lp = exponentialMechanismLogProbabilities(u->utility, u->factor);
        for (const auto& g : neighbours(h, p.neighbouring)) {
            if (p.task == SelectionTask::Quantile && total(g) == 0) {
                continue;
            }
            auto v = selectionUtility(g, p);
            DPX_VERIFY_OK(v);
            bool up = false, down = false;
            for (std::size_t j = 0; j < h.size(); ++j) {
                const double d = v->utility[j] - u->utility[j];
                maxChange = std::max(maxChange, std::abs(d));
                up = up || d > 0;
                down = down || d < 0;
            }
            monotoneSeen = monotoneSeen && !(up && down);
            const auto lq = exponentialMechanismLogProbabilities(v->utility, v->factor);
            for (std::size_t j = 0; j < h.size(); ++j) {
                maxPrivacy = std::max(maxPrivacy, std::abs(lp[j] - lq[j]));
            }
        }
    }
    DPX_VERIFY_NEAR(maxChange, claimed, 1e-12);
    QCOMPARE(claimedMonotone, monotoneSeen);
    QVERIFY2(maxPrivacy <= p.epsilon * (1 + 1e-12),
             dpxtest::nearMessage("max |Δ log P|", maxPrivacy, p.epsilon, 0));
}

void TestExponentialMechanism::monotoneFactorBruteForce() {
    // The mode under add/remove with c = ε/Δu: ε-DP over all pairs, and the bound is nearly
    // attained; the same factor under replace-one would NOT be ε-DP (why c = ε/2 there).
    for (int rel = 0; rel < 2; ++rel) {
        double worst = 0;
        for (const auto& h : allHistograms(3, 8)) {
            std::vector<double> u(h.begin(), h.end());
            const auto lp = exponentialMechanismLogProbabilities(u, 1.0);
            for (const auto& g :
                 neighbours(h, rel == 0 ? Neighbouring::AddRemove : Neighbouring::Replace)) {
                std::vector<double> v(g.begin(), g.end());
                const auto lq = exponentialMechanismLogProbabilities(v, 1.0);
                for (std::size_t j = 0; j < u.size(); ++j) {
                    worst = std::max(worst, std::abs(lp[j] - lq[j]));
                }
            }
        }
        if (rel == 0) {
            QVERIFY(worst <= 1 + 1e-12);
            QVERIFY(worst > 0.9);
        } else {
            QVERIFY2(worst > 1.5, dpxtest::nearMessage("replace-one with c = ε", worst, 2, 0.5));
        }
    }
}

void TestExponentialMechanism::logSumExpStable() {
    // Utilities of 10^6 would overflow exp() directly.
    const std::vector<double> u = {1e6, 1e6 - 1, 0};
    const auto p = exponentialMechanismProbabilities(u, 1.0);
    DPX_VERIFY_NEAR(p[0], 1 / (1 + std::exp(-1.0)), 1e-15);
    DPX_VERIFY_NEAR(p[1], std::exp(-1.0) / (1 + std::exp(-1.0)), 1e-15);
    QCOMPARE(p[2], 0.0);
    const auto lp = exponentialMechanismLogProbabilities(u, 1.0);
    QVERIFY(std::isfinite(lp[2]));
    DPX_VERIFY_NEAR(lp[2], -1e6 - std::log1p(std::exp(-1.0)), 1e-6);
}

void TestExponentialMechanism::noisyMaxTwoCandidates() {
    // Laplace: L1 − L2 has density (1/(4s))(1 + |z|/s)e^{−|z|/s}, so P(u1 + L1 > u2 + L2) =
    // ¼e^{−d/s}(2 + d/s) for d = u2 − u1 ≥ 0. Exponential: E1 − E2 ~ Laplace(s), P = ½e^{−d/s}.
    for (double d : {0.0, 0.5, 3.0, 20.0}) {
        for (double s : {0.5, 2.0}) {
            const std::vector<double> u = {0.0, d};
            auto lap = reportNoisyMaxProbabilities(u, s, NoisyMaxNoise::Laplace);
            auto ex = reportNoisyMaxProbabilities(u, s, NoisyMaxNoise::Exponential);
            DPX_VERIFY_OK(lap);
            DPX_VERIFY_OK(ex);
            DPX_VERIFY_NEAR((*lap)[0], 0.25 * std::exp(-d / s) * (2 + d / s), 1e-12);
            DPX_VERIFY_NEAR((*ex)[0], 0.5 * std::exp(-d / s), 1e-12);
            DPX_VERIFY_NEAR((*lap)[1], 1 - (*lap)[0], 1e-12);
        }
    }
}

void TestExponentialMechanism::noisyMaxAgainstQuadrature() {
    const std::vector<double> u = {10, 8, 8, 3, 0, 9.5};
    for (double s : {1.0, 4.0}) {
        auto p = reportNoisyMaxProbabilities(u, s, NoisyMaxNoise::Laplace);
        DPX_VERIFY_OK(p);
        for (std::size_t j = 0; j < u.size(); ++j) {
            DPX_VERIFY_NEAR((*p)[j], rnmLaplaceReference(u, j, s), 1e-10);
        }
        QCOMPARE((*p)[1], (*p)[2]);  // equal utilities, equal probabilities
    }
}

void TestExponentialMechanism::noisyMaxSumsToOne() {
    std::vector<double> u;
    for (int i = 0; i < 300; ++i) {
        u.push_back(std::floor(50 * std::sin(0.37 * i) + 50));
    }
    for (auto noise : {NoisyMaxNoise::Laplace, NoisyMaxNoise::Exponential}) {
        auto p = reportNoisyMaxProbabilities(u, 3.0, noise);
        DPX_VERIFY_OK(p);
        double sum = 0;
        for (double x : *p) {
            QVERIFY(x >= 0);
            sum += x;
        }
        DPX_VERIFY_NEAR(sum, 1.0, 1e-10);
    }
}

void TestExponentialMechanism::pathMatrix_data() {
    QTest::addColumn<int>("relation");
    QTest::addColumn<int>("task");
    QTest::newRow("mode replace") << 1 << 0;
    QTest::newRow("mode add/remove (monotone, c = ε)") << 0 << 0;
    QTest::newRow("median replace") << 1 << 1;
    QTest::newRow("median add/remove") << 0 << 1;
}

void TestExponentialMechanism::pathMatrix() {
    const std::vector<std::int64_t> h = {3, 12, 1, 7, 0};
    SelectionParams p;
    p.epsilon = 0.8;
    QFETCH(int, relation);
    QFETCH(int, task);
    p.neighbouring = relation == 1 ? Neighbouring::Replace : Neighbouring::AddRemove;
    p.task = task == 0 ? SelectionTask::Mode : SelectionTask::Quantile;
    auto m = selectionPathMatrix(h, p);
    DPX_VERIFY_OK(m);
    QCOMPARE(m->from, std::size_t{1});
    QCOMPARE(m->to, std::size_t{3});
    // Default steps: replace min(12, (12 − 7)/2 + 2) = 4; add/remove 12 − 7 + 2 = 7.
    const std::size_t steps = relation == 1 ? 4 : 7;
    QCOMPARE(m->datasets.size(), steps + 1);
    QCOMPARE(m->probability.size(), h.size());
    for (std::size_t t = 0; t <= steps; ++t) {
        double col = 0;
        for (std::size_t i = 0; i < h.size(); ++i) {
            col += m->probability[i][t];
        }
        DPX_VERIFY_NEAR(col, 1.0, 1e-12);
        // Each column is the exponential mechanism on that dataset.
        auto u = selectionUtility(m->datasets[t], p);
        DPX_VERIFY_OK(u);
        const auto ref = exponentialMechanismProbabilities(u->utility, u->factor);
        for (std::size_t i = 0; i < h.size(); ++i) {
            DPX_VERIFY_NEAR(m->probability[i][t], ref[i], 1e-15);
        }
    }
    // Adjacent columns are neighbours: replace-one keeps n, add/remove adds one.
    for (std::size_t t = 1; t <= steps; ++t) {
        QCOMPARE(total(m->datasets[t]) - total(m->datasets[t - 1]),
                 std::int64_t{relation == 1 ? 0 : 1});
    }
    QVERIFY(m->verified);
    QVERIFY(m->achievedEpsilon <= 0.8 * (1 + 1e-12));
    QVERIFY(m->achievedEpsilon > 0);
    // Independent recomputation of the achieved ε from the probabilities.
    double eps = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
        for (std::size_t t = 1; t <= steps; ++t) {
            eps =
                std::max(eps, std::abs(std::log(m->probability[i][t] / m->probability[i][t - 1])));
        }
    }
    DPX_VERIFY_NEAR(m->achievedEpsilon, eps, 1e-9);
}

void TestExponentialMechanism::rejects() {
    const std::vector<std::int64_t> ok = {1, 2, 3};
    const double inf = std::numeric_limits<double>::infinity();
    SelectionParams p;
    for (double eps : {0.0, -1.0, std::nan(""), inf}) {
        p.epsilon = eps;
        DPX_VERIFY_ERROR(selectBin(ok, p), "ε");
    }
    p.epsilon = 1;
    for (double q : {-0.1, 1.1, std::nan(""), inf}) {
        p.quantile = q;
        DPX_VERIFY_ERROR(selectBin(ok, p), "quantile");
    }
    p.quantile = 0.5;
    DPX_VERIFY_ERROR(selectBin(std::vector<std::int64_t>{}, p), "counts");
    DPX_VERIFY_ERROR(selectBin(std::vector<std::int64_t>{1, -1}, p), "counts");
    p.task = SelectionTask::Quantile;
    DPX_VERIFY_ERROR(selectBin(std::vector<std::int64_t>{0, 0}, p), "empty");
    p.task = SelectionTask::Mode;
    DPX_VERIFY_ERROR(selectionPathMatrix(std::vector<std::int64_t>{5}, p), "2 bins");
    DPX_VERIFY_ERROR(selectionPathMatrix(std::vector<std::int64_t>{0, 0}, p), "empty");
    DPX_VERIFY_ERROR(selectionPathMatrix(ok, p, 20000), "steps");
    std::vector<std::int64_t> wide(5000, 1);
    wide[0] = 9000;
    DPX_VERIFY_ERROR(selectionPathMatrix(wide, p, 2500), "10^7");
    p.neighbouring = Neighbouring::Replace;
    DPX_VERIFY_ERROR(selectionPathMatrix(ok, p, 4), "steps");
    const std::vector<double> u = {1, 2};
    DPX_VERIFY_ERROR(reportNoisyMaxProbabilities(u, 0, NoisyMaxNoise::Laplace), "scale");
    DPX_VERIFY_ERROR(reportNoisyMaxProbabilities(u, std::nan(""), NoisyMaxNoise::Laplace), "scale");
    DPX_VERIFY_ERROR(reportNoisyMaxProbabilities(std::vector<double>{}, 1, NoisyMaxNoise::Laplace),
                     "candidates");
    DPX_VERIFY_ERROR(
        reportNoisyMaxProbabilities(std::vector<double>{1, inf}, 1, NoisyMaxNoise::Laplace),
        "utility");
}

QTEST_APPLESS_MAIN(TestExponentialMechanism)
#include "tst_exponential_mechanism.moc"
