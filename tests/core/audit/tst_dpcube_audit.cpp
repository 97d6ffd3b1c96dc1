// Statistical DP audit (core/audit/dp_audit.h) of DPCube (Xiao et al., TDP 2014;
// core/algorithms/dpcube.cpp). Neighbours under add/remove-one: D has one more record than D′ in
// bin 5 of a 12-bin domain over a fixed background. Audited post-processings of x̂:
//  - the estimate of bin 5 (gz = 3: four noisy cells, a data-dependent kd-tree over them);
//  - the estimated total (gz = 12: one cell, one leaf; the total averages the cell's and the
//    leaf's Laplace counts, whose privacy loss approaches ε in the tails).
// A claim of ε = 1 must pass; the negative control claims ε = 0.4 for the total and must be
// flagged. α = 10⁻⁷, fixed seeds.
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

AuditMechanism dpcube(double gz, bool total) {
    return
        [gz, total](const std::vector<std::int64_t>& in, AuditRandomness& rng) -> Expected<double> {
            std::vector<double> x{3, 0, 1, 4, 0, 2, 7, 0, 0, 1, 5, 2};
            x[5] += static_cast<double>(in[0]);
            auto w = Workload::make(WorkloadSpec{}, {12});
            if (!w)
                return w.error();
            AlgorithmContext c;
            c.shape = {12};
            c.x = x;
            c.workload = &*w;
            c.epsilon = 1.0;
            c.parameters = {{"gz", gz}};
            c.rng = &rng.simulation();
            auto r = dpcubeAlgorithm().run(c);
            if (!r)
                return r.error();
            if (!total)
                return r->estimate[5];
            double s = 0;
            for (double v : r->estimate)
                s += v;
            return s;
        };
}

}  // namespace

class TestDPCubeAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void binEstimatePasses();
    void totalPasses();
    void wrongClaimIsFlagged();
};

void TestDPCubeAudit::binEstimatePasses() {
    auto r = runDpAudit(dpcube(3, false), {1}, {0}, params(1.0, 41));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestDPCubeAudit::totalPasses() {
    auto r = runDpAudit(dpcube(12, true), {1}, {0}, params(1.0, 42));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestDPCubeAudit::wrongClaimIsFlagged() {
    auto r = runDpAudit(dpcube(12, true), {1}, {0}, params(0.4, 43));
    DPX_VERIFY_OK(r);
    QVERIFY2(r->violationFound, QByteArray::number(r->tightest().epsilonLowerBound).constData());
}

QTEST_APPLESS_MAIN(TestDPCubeAudit)
#include "tst_dpcube_audit.moc"
