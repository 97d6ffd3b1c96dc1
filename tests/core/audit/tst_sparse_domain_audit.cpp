// Statistical DP audit (core/audit/dp_audit.h) of thresholded Laplace on a table of any domain
// (core/mechanisms/sparse_domain.h). Neighbouring tables under replace-one: D has one record in
// cell A (index 5) and none in cell B (index 40), D′ the record moved to B. In D, B is an EMPTY
// cell (its release drawn by the Bernoulli gap walk, value τ + Exp(b)); in D′ it is occupied (one
// Laplace draw) — the two code paths the audit compares. The audited output is a post-processing
// of the release, so it is ε-DP whenever the release is:
//  - the released value at B (0 if not released), and
//  - the number of released cells (sensitive to the empty-cell count being Binomial).
// A claim of ε = 1 (the guarantee, b = 2/ε) must pass; the negative control claims ε = 0.1 for the
// value at B, whose true privacy loss is ε/2 = 0.5 (h_B changes by 1 under Laplace(2)), and must be
// flagged — the audit has the power to see a wrong scale. α = 10⁻⁷ per audit (false alarm rate of a
// correct mechanism), N = 200 000 outputs per input, fixed seeds.
#include <QTest>

#include "core/audit/dp_audit.h"
#include "core/mechanisms/sparse_domain.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

AuditParams params(double epsilon, std::uint64_t seed) {
    AuditParams p;
    p.epsilon = epsilon;
    p.delta = 0;
    p.samplesPerInput = 200000;
    p.alpha = 1e-7;
    p.seed = seed;
    return p;
}

// input = {count at A, count at B}; the table is 8 × 8 cells with a fixed background of three
// occupied cells; τ = 1 so that empty cells are released often (π = ½e^{−1/2} ≈ 0.30).
AuditMechanism sparseDomain(bool countReleased) {
    return [countReleased](const std::vector<std::int64_t>& in,
                           AuditRandomness& rng) -> Expected<double> {
        std::vector<TableCell> cells{{5, in[0]}, {40, in[1]}, {12, 4}, {33, 1}, {63, 7}};
        auto t =
            ContingencyTable::fromCells({indexAttribute("a", 8), indexAttribute("b", 8)}, cells);
        if (!t)
            return t.error();
        auto r = simulateSparseDomain(*t, {1.0, 1.0}, rng.simulation());
        if (!r)
            return r.error();
        if (countReleased)
            return static_cast<double>(r->cells.size());
        for (const auto& [i, v] : r->cells) {
            if (i == 40)
                return v;
        }
        return 0.0;
    };
}

}  // namespace

class TestSparseDomainAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void valueAtMovedCellPasses();
    void releasedCountPasses();
    void wrongClaimIsFlagged();
};

void TestSparseDomainAudit::valueAtMovedCellPasses() {
    auto r = runDpAudit(sparseDomain(false), {1, 0}, {0, 1}, params(1.0, 19));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
    QVERIFY(r->tightest().epsilonLowerBound <= 1.0);
}

void TestSparseDomainAudit::releasedCountPasses() {
    auto r = runDpAudit(sparseDomain(true), {1, 0}, {0, 1}, params(1.0, 20));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestSparseDomainAudit::wrongClaimIsFlagged() {
    auto r = runDpAudit(sparseDomain(false), {1, 0}, {0, 1}, params(0.1, 21));
    DPX_VERIFY_OK(r);
    QVERIFY(r->violationFound);
    QVERIFY(r->tightest().epsilonLowerBound > 0.1);
}

QTEST_APPLESS_MAIN(TestSparseDomainAudit)
#include "tst_sparse_domain_audit.moc"
