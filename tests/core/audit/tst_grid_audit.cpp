// Statistical DP audit (core/audit/dp_audit.h) of UGrid and AGrid (Qardaji, Yang & Li 2013;
// core/algorithms/ugrid.cpp, agrid.cpp). Neighbours under add/remove-one: D has one more record
// than D′ in one cell over a fixed background. Both algorithms take the total N as public
// (info().totalIsPublic), so N is chosen where N and N + 1 give the same grid — the guarantee
// they claim is ε-DP for a given public N. The audited outputs are post-processings of x̂:
//  - UGrid: the estimated total of the block holding the differing cell (its noisy count);
//  - AGrid: the estimated total of the first-level block holding the differing cell (the
//    weighted average of its level-1 count and its adaptive level-2 pieces), and the estimate of
//    the differing cell itself (it depends on the adaptive second-level layout).
// A claim of ε = 1 must pass; the negative controls claim ε = 0.4 for outputs whose true loss is
// near 1 and must be flagged. α = 10⁻⁷, fixed seeds.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "tests/core/audit/algorithm_audit_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpxtest;

namespace {

// `count` background records spread over a side × side domain (a fixed pattern).
std::vector<double> background(std::size_t side, std::size_t count) {
    std::vector<double> x(side * side, 0.0);
    for (std::size_t i = 0; i < count; ++i) {
        x[(i * 37 + 11) % x.size()] += 1;
    }
    return x;
}

// UGrid on 8 × 8 with N = 59 or 60: m² = 5.9 or 6, blocks of 4 bins either way; the differing
// cell (5, 2) lies in block rows 4..7, cols 0..3.
AuditMechanism ugridBlock() {
    return algorithmMechanism(ugridAlgorithm(), {8, 8}, background(8, 59), 5 * 8 + 2, {},
                              readBox(8, 4, 8, 0, 4));
}

// AGrid on 32 × 32 with N = 400 or 401: m1 = 10, first-level blocks of 4 × 4; the differing
// cell (13, 6) lies in the block rows 12..15, cols 4..7. Second-level sizes m2 = ⌈√(N′/10)⌉ move
// between 1 and 3 with the noisy counts of the blocks (~6 records each).
AuditMechanism agrid(EstimateReader read) {
    return algorithmMechanism(agridAlgorithm(), {32, 32}, background(32, 400), 13 * 32 + 6, {},
                              std::move(read));
}

}  // namespace

class TestGridAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void ugridPasses();
    void ugridWrongClaimIsFlagged();
    void agridBlockPasses();
    void agridCellPasses();
    void agridWrongClaimIsFlagged();
};

void TestGridAudit::ugridPasses() {
    auto r = runDpAudit(ugridBlock(), {1}, {0}, algorithmAuditParams(1.0, 31));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestGridAudit::ugridWrongClaimIsFlagged() {
    auto r = runDpAudit(ugridBlock(), {1}, {0}, algorithmAuditParams(0.4, 32));
    DPX_VERIFY_OK(r);
    QVERIFY(r->violationFound);
    QVERIFY(r->tightest().epsilonLowerBound > 0.4);
}

void TestGridAudit::agridBlockPasses() {
    auto r = runDpAudit(agrid(readBox(32, 12, 16, 4, 8)), {1}, {0},
                        algorithmAuditParams(1.0, 33, 100000));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestGridAudit::agridCellPasses() {
    auto r =
        runDpAudit(agrid(readCell(13 * 32 + 6)), {1}, {0}, algorithmAuditParams(1.0, 34, 100000));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestGridAudit::agridWrongClaimIsFlagged() {
    auto r = runDpAudit(agrid(readBox(32, 12, 16, 4, 8)), {1}, {0},
                        algorithmAuditParams(0.4, 35, 100000));
    DPX_VERIFY_OK(r);
    QVERIFY2(r->violationFound, QByteArray::number(r->tightest().epsilonLowerBound).constData());
}

QTEST_APPLESS_MAIN(TestGridAudit)
#include "tst_grid_audit.moc"
