// Statistical DP audit (core/audit/dp_audit.h) of GreedyH (issue #20). Neighbours under add/remove:
// D has one more record in cell 2 than D′; released: x̂ of cell 2 (GreedyH's strategy for the prefix
// workload on 8 cells). The released value is a post-processing of x̂, so it is ε-DP whenever the
// algorithm is. A claim of ε = 1 at ε = 1 must pass; the negative control runs the algorithm at ε =
// 4 (every noise scale divided by 4) while claiming ε = 1 and must be flagged — the audit has the
// power to see a wrong scale. α = 10⁻⁷ per audit, 100000 outputs per input, fixed seeds.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "tests/core/audit/dd1_audit_support.h"

using namespace dpx;

namespace {

AuditMechanism mechanism(double runEpsilon) {
    return dd1test::algorithmMechanism(greedyHAlgorithm(), {8}, "prefix", runEpsilon, 2, 2);
}

const std::vector<std::int64_t> kD = {3, 0, 10, 0, 5, 2, 0, 1};
const std::vector<std::int64_t> kDp = {3, 0, 9, 0, 5, 2, 0, 1};

}  // namespace

class TestGreedyHAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void passesAtClaimedEpsilon();
    void tooLittleNoiseIsFlagged();
};

void TestGreedyHAudit::passesAtClaimedEpsilon() {
    dd1test::verifyAuditPasses(mechanism(1.0), kD, kDp, 1.0, 100000);
}

void TestGreedyHAudit::tooLittleNoiseIsFlagged() {
    dd1test::verifyAuditFlags(mechanism(4.0), kD, kDp, 1.0, 100000);
}

QTEST_APPLESS_MAIN(TestGreedyHAudit)
#include "tst_greedy_h_audit.moc"
