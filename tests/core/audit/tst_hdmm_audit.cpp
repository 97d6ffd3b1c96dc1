// Statistical DP audit (core/audit/dp_audit.h) of HDMM as an algorithm (issue #23): the matrix
// mechanism with a p-Identity strategy designed for all ranges of 16 cells (p = 2, so the
// strategy has extra rows that overlap the audited cell). Neighbours under add/remove: D has one
// more record in cell 5 than D′; released: the estimate of the range [4, 7] (a post-processing of
// x̂, ε-DP whenever the algorithm is). A claim of ε = 1 at ε = 1 must pass; the negative control
// runs at ε = 4 while claiming ε = 1 and must be flagged. α = 10⁻⁷, 100 000 outputs per input.
// The same for the templates beyond products on the 16 cells read as a 4 × 4 table: OPT_M for
// the 1-way marginals (the released sum of cells 4–7 is row 1's marginal cell) and OPT⊗ over the
// union of Kronecker products of ten random boxes.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "tests/core/audit/dd1_audit_support.h"

using namespace dpx;

namespace {

AuditMechanism mechanism(double runEpsilon) {
    return dd1test::algorithmMechanism(hdmmAlgorithm(), {16}, "allrange", runEpsilon, 4, 7,
                                       {{"p", 2}});
}

AuditMechanism marginals(double runEpsilon) {
    return dd1test::algorithmMechanism(hdmmAlgorithm(), {4, 4}, "marginals:1", runEpsilon, 4, 7);
}

AuditMechanism boxes(double runEpsilon) {
    return dd1test::algorithmMechanism(hdmmAlgorithm(), {4, 4}, "range:10", runEpsilon, 4, 7,
                                       {{"p", 1}});
}

const std::vector<std::int64_t> kD = {3, 0, 10, 0, 5, 2, 0, 1, 4, 4, 0, 0, 7, 1, 0, 2};
const std::vector<std::int64_t> kDp = {3, 0, 10, 0, 5, 1, 0, 1, 4, 4, 0, 0, 7, 1, 0, 2};

}  // namespace

class TestHdmmAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void passesAtClaimedEpsilon();
    void tooLittleNoiseIsFlagged();
    void marginalsTemplate();
    void unionOfKroneckerProducts();
};

void TestHdmmAudit::passesAtClaimedEpsilon() {
    dd1test::verifyAuditPasses(mechanism(1.0), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::tooLittleNoiseIsFlagged() {
    dd1test::verifyAuditFlags(mechanism(4.0), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::marginalsTemplate() {
    dd1test::verifyAuditPasses(marginals(1.0), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditFlags(marginals(4.0), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::unionOfKroneckerProducts() {
    dd1test::verifyAuditPasses(boxes(1.0), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditFlags(boxes(4.0), kD, kDp, 1.0, 100000);
}

QTEST_APPLESS_MAIN(TestHdmmAudit)
#include "tst_hdmm_audit.moc"
