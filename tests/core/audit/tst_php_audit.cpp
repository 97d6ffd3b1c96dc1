// Statistical DP audit (core/audit/dp_audit.h) of PHP (Ács, Castelluccia & Chen, ICDM 2012;
// core/algorithms/php.cpp). Neighbours under add/remove-one: D has one more record than D′ in
// bin 2 of an 8-bin histogram over a fixed background (three bisection levels, then the choice
// of a partition and its counts). Audited post-processings of x̂: the estimate of bin 2 and the
// estimated total. A claim of ε = 1 must pass; the negative control claims ε = 0.2 for the total,
// whose loss reaches ε₂ = ½ when one interval is chosen, and must be flagged. α = 10⁻⁷.
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

AuditMechanism php(bool total) {
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
        auto r = phpAlgorithm().run(c);
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

class TestPhpAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void binEstimatePasses();
    void totalPasses();
    void wrongClaimIsFlagged();
};

void TestPhpAudit::binEstimatePasses() {
    auto r = runDpAudit(php(false), {1}, {0}, params(1.0, 51));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestPhpAudit::totalPasses() {
    auto r = runDpAudit(php(true), {1}, {0}, params(1.0, 52));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestPhpAudit::wrongClaimIsFlagged() {
    auto r = runDpAudit(php(true), {1}, {0}, params(0.2, 53));
    DPX_VERIFY_OK(r);
    QVERIFY2(r->violationFound, QByteArray::number(r->tightest().epsilonLowerBound).constData());
}

QTEST_APPLESS_MAIN(TestPhpAudit)
#include "tst_php_audit.moc"
