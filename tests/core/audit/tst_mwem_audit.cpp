// Statistical DP audit (core/audit/dp_audit.h) of MWEM (issue #20). MWEM treats the total m as
// public (as DPBench's reference code does), so its guarantee is for neighbours of equal size: D′
// moves one of D's records from cell 0 to cell 7 (replace one); released: the estimate of cells
// 0..3, which the move changes. The released value is a post-processing of x̂, so it is ε-DP
// whenever the algorithm is. A claim of ε = 1 at ε = 1 must pass; the negative control runs the
// algorithm at ε = 4 (every noise scale divided by 4) while claiming ε = 1 and must be flagged —
// the audit has the power to see a wrong scale. α = 10⁻⁷ per audit, 60000 outputs per input, fixed
// seeds.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "tests/core/audit/dd1_audit_support.h"

using namespace dpx;

namespace {

AuditMechanism mechanism(double runEpsilon) {
    return dd1test::algorithmMechanism(mwemAlgorithm(), {8}, "prefix", runEpsilon, 0, 3,
                                       {{"rounds", 2}, {"sweeps", 10}});
}

const std::vector<std::int64_t> kD = {4, 0, 1, 0, 0, 6, 2, 1};
const std::vector<std::int64_t> kDp = {3, 0, 1, 0, 0, 6, 2, 2};

}  // namespace

class TestMwemAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void passesAtClaimedEpsilon();
    void tooLittleNoiseIsFlagged();
};

void TestMwemAudit::passesAtClaimedEpsilon() {
    dd1test::verifyAuditPasses(mechanism(1.0), kD, kDp, 1.0, 60000);
}

void TestMwemAudit::tooLittleNoiseIsFlagged() {
    dd1test::verifyAuditFlags(mechanism(8.0), kD, kDp, 1.0, 60000);
}

QTEST_APPLESS_MAIN(TestMwemAudit)
#include "tst_mwem_audit.moc"
