// Statistical DP audits (core/audit/dp_audit.h) of the 1-D data-dependent algorithms of helper
// "dd2": PHP and EFPA (Ács, Castelluccia & Chen, ICDM 2012), StructureFirst (Xu et al., ICDE
// 2012 / VLDB J. 2013) and DPCube (Xiao et al., TDP 2014). Neighbours under add/remove-one: D has
// one more record than D′ in one bin of a small histogram over a fixed background. Each
// algorithm runs at ε = 1; the audited outputs are post-processings of x̂ (ε-DP whenever the
// algorithm is): the estimate of the differing bin and the estimated total. Both must pass a
// claim of ε = 1. The negative controls claim less than the total's true loss and must be
// flagged:
//  - PHP, ε = 0.2: the total is Σ of the chosen intervals' Laplace(1/ε₂) counts, loss up to
//    ε₂ = ½ (one interval is chosen often on 8 bins);
//  - EFPA, ε = 0.2: the total is X₀ + √n·Laplace(k/(√n·ε₂)), loss ε₂/k = ½ when the exponential
//    mechanism keeps one coefficient, which it often does on this rough histogram;
//  - StructureFirst (k = 4, fixed public bound F = 10 via maxCount, so N is not used),
//    ε = 0.1: four Laplace(2) bucket counts, loss up to ε₂ = ½;
//  - DPCube (gz = 12: one cell, one leaf), ε = 0.4: the total averages the cell's and the leaf's
//    Laplace(2) counts, loss → 1 in the tails.
// DPCube's bin estimate uses gz = 3 (four noisy cells and a data-dependent kd-tree over them).
// α = 10⁻⁷ per audit, N = 200 000 outputs per input, fixed seeds.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "tests/core/audit/algorithm_audit_support.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpxtest;

namespace {

const std::vector<double> kEight{2, 0, 1, 3, 9, 8, 0, 1};
const std::vector<double> kTwelve{3, 0, 1, 4, 0, 2, 7, 0, 0, 1, 5, 2};

struct Case {
    const Algorithm* algorithm;
    std::vector<double> background;
    std::size_t cell;
    std::map<std::string, double> binParameters, totalParameters;
    double wrongClaim;
};

Case caseOf(const QString& name) {
    if (name == QLatin1String("PHP"))
        return {&phpAlgorithm(), kEight, 2, {}, {}, 0.2};
    if (name == QLatin1String("EFPA"))
        return {&efpaAlgorithm(), kEight, 2, {}, {}, 0.2};
    if (name == QLatin1String("StructureFirst")) {
        const std::map<std::string, double> p{{"kRatio", 0.5}, {"maxCount", 10}};
        return {&structureFirstAlgorithm(), kEight, 2, p, p, 0.1};
    }
    return {&dpcubeAlgorithm(), kTwelve, 5, {{"gz", 3}}, {{"gz", 12}}, 0.4};
}

void addRows() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("seed");
    int seed = 40;
    for (const char* n : {"PHP", "EFPA", "StructureFirst", "DPCube"}) {
        QTest::newRow(n) << QString::fromLatin1(n) << (seed += 10);
    }
}

}  // namespace

class TestPartitionAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void binEstimatePasses_data() { addRows(); }
    void binEstimatePasses();
    void totalPasses_data() { addRows(); }
    void totalPasses();
    void wrongClaimIsFlagged_data() { addRows(); }
    void wrongClaimIsFlagged();
};

void TestPartitionAudit::binEstimatePasses() {
    QFETCH(QString, name);
    QFETCH(int, seed);
    const Case c = caseOf(name);
    auto r = runDpAudit(algorithmMechanism(*c.algorithm, {c.background.size()}, c.background,
                                           c.cell, c.binParameters, readCell(c.cell)),
                        {1}, {0}, algorithmAuditParams(1.0, std::uint64_t(seed)));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestPartitionAudit::totalPasses() {
    QFETCH(QString, name);
    QFETCH(int, seed);
    const Case c = caseOf(name);
    auto r = runDpAudit(algorithmMechanism(*c.algorithm, {c.background.size()}, c.background,
                                           c.cell, c.totalParameters, readTotal()),
                        {1}, {0}, algorithmAuditParams(1.0, std::uint64_t(seed + 1)));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestPartitionAudit::wrongClaimIsFlagged() {
    QFETCH(QString, name);
    QFETCH(int, seed);
    const Case c = caseOf(name);
    auto r = runDpAudit(algorithmMechanism(*c.algorithm, {c.background.size()}, c.background,
                                           c.cell, c.totalParameters, readTotal()),
                        {1}, {0}, algorithmAuditParams(c.wrongClaim, std::uint64_t(seed + 2)));
    DPX_VERIFY_OK(r);
    QVERIFY2(r->violationFound, QByteArray::number(r->tightest().epsilonLowerBound).constData());
    QVERIFY(r->tightest().epsilonLowerBound > c.wrongClaim);
}

QTEST_APPLESS_MAIN(TestPartitionAudit)
#include "tst_partition_audit.moc"
