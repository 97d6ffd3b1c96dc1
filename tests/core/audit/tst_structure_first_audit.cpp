// Statistical DP audit (core/audit/dp_audit.h) of StructureFirst (Xu et al., ICDE 2012 /
// VLDB J. 2013; core/algorithms/structure_first.cpp). Neighbours under add/remove-one: D has one
// more record than D′ in bin 2 of an 8-bin histogram over a fixed background. k = 4 buckets and a
// fixed public bound F = 10 (maxCount: the same for both neighbours, so N is not used); three
// boundaries drawn by the exponential mechanism, then Laplace bucket counts. Audited
// post-processings of x̂: the estimate of bin 2 and the estimated total. A claim of ε = 1 must
// pass; the negative control claims ε = 0.1 for the total (four Laplace(2) counts: loss up to
// ε₂ = ½) and must be flagged. α = 10⁻⁷, fixed seeds.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "core/audit/dp_audit.h"
#include "core/workload/workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

AuditParams params(double epsilon, std::uint64_t seed) {
    AuditParams p;
    p.epsilon = epsilon;
    p.samplesPerInput = 200000;
    p.alpha = 1e-7;
    p.seed = seed;
    return p;
}

AuditMechanism sf(bool total) {
    return [total](const std::vector<std::int64_t>& in, AuditRandomness& rng) -> Expected<double> {
        std::vector<double> x{2, 0, 1, 3, 9, 8, 0, 1};
        x[2] += static_cast<double>(in[0]);
        auto w = Workload::make(WorkloadSpec{}, {8});
        if (!w)
            return w.error();
        AlgorithmContext c;
        c.shape = {8};
        c.x = x;
        c.workload = &*w;
        c.epsilon = 1.0;
        c.parameters = {{"kRatio", 0.5}, {"maxCount", 10}};
        c.rng = &rng.simulation();
        auto r = structureFirstAlgorithm().run(c);
        if (!r)
            return r.error();
        if (!total)
            return r->estimate[2];
        double s = 0;
        for (double v : r->estimate)
            s += v;
        return s;
    };
}

}  // namespace

class TestStructureFirstAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void binEstimatePasses();
    void totalPasses();
    void wrongClaimIsFlagged();
};

void TestStructureFirstAudit::binEstimatePasses() {
    auto r = runDpAudit(sf(false), {1}, {0}, params(1.0, 71));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestStructureFirstAudit::totalPasses() {
    auto r = runDpAudit(sf(true), {1}, {0}, params(1.0, 72));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestStructureFirstAudit::wrongClaimIsFlagged() {
    auto r = runDpAudit(sf(true), {1}, {0}, params(0.1, 73));
    DPX_VERIFY_OK(r);
    QVERIFY2(r->violationFound, QByteArray::number(r->tightest().epsilonLowerBound).constData());
}

QTEST_APPLESS_MAIN(TestStructureFirstAudit)
#include "tst_structure_first_audit.moc"
