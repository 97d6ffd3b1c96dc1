// Statistical DP audit (core/audit/dp_audit.h) of DAWA2D (issue #20). Neighbours under add/remove
// on a 4 × 4 grid: D has one more record in cell 5 than D′; released: x̂ of cell 5. The released
// value is a post-processing of x̂, so it is ε-DP whenever the algorithm is. A claim of ε = 1 at ε =
// 1 must pass; the negative control runs the algorithm at ε = 4 (every noise scale divided by 4)
// while claiming ε = 1 and must be flagged — the audit has the power to see a wrong scale. α = 10⁻⁷
// per audit, 100000 outputs per input, fixed seeds.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "tests/core/audit/dd1_audit_support.h"

using namespace dpx;

namespace {

AuditMechanism mechanism(double runEpsilon) {
    return dd1test::algorithmMechanism(dawa2dAlgorithm(), {4, 4}, "range:12:seed=4", runEpsilon, 5,
                                       5);
}

const std::vector<std::int64_t> kD = {0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3};
const std::vector<std::int64_t> kDp = {0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3};

}  // namespace

class TestDawa2dAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void passesAtClaimedEpsilon();
    void tooLittleNoiseIsFlagged();
};

void TestDawa2dAudit::passesAtClaimedEpsilon() {
    dd1test::verifyAuditPasses(mechanism(1.0), kD, kDp, 1.0, 100000);
}

void TestDawa2dAudit::tooLittleNoiseIsFlagged() {
    dd1test::verifyAuditFlags(mechanism(4.0), kD, kDp, 1.0, 100000);
}

QTEST_APPLESS_MAIN(TestDawa2dAudit)
#include "tst_dawa2d_audit.moc"
