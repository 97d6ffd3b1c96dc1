// Statistical DP audit (core/audit/dp_audit.h) of EFPA (Ács, Castelluccia & Chen, ICDM 2012;
// core/algorithms/efpa.cpp). Neighbours under add/remove-one: D has one more record than D′ in
// bin 2 of an 8-bin histogram over a fixed background. Audited post-processings of x̂: the
// estimate of bin 2 and the estimated total (X₀ plus √n·Laplace(k/(√n·ε₂)): its loss reaches
// ε₂/k = ½ when the exponential mechanism keeps one coefficient, which it often does on this
// rough histogram). A claim of ε = 1 must pass; the negative control claims ε = 0.2 for the
// total and must be flagged. α = 10⁻⁷, fixed seeds.
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

AuditMechanism efpa(bool total) {
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
        c.rng = &rng.simulation();
        auto r = efpaAlgorithm().run(c);
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

class TestEfpaAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void binEstimatePasses();
    void totalPasses();
    void wrongClaimIsFlagged();
};

void TestEfpaAudit::binEstimatePasses() {
    auto r = runDpAudit(efpa(false), {1}, {0}, params(1.0, 61));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestEfpaAudit::totalPasses() {
    auto r = runDpAudit(efpa(true), {1}, {0}, params(1.0, 62));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestEfpaAudit::wrongClaimIsFlagged() {
    auto r = runDpAudit(efpa(true), {1}, {0}, params(0.2, 63));
    DPX_VERIFY_OK(r);
    QVERIFY2(r->violationFound, QByteArray::number(r->tightest().epsilonLowerBound).constData());
}

QTEST_APPLESS_MAIN(TestEfpaAudit)
#include "tst_efpa_audit.moc"
