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
#include "core/audit/dp_audit.h"
#include "core/workload/workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

AuditParams params(double epsilon, std::uint64_t seed, std::uint64_t samples) {
    AuditParams p;
    p.epsilon = epsilon;
    p.samplesPerInput = samples;
    p.alpha = 1e-7;
    p.seed = seed;
    return p;
}

// input = {count at the differing cell}; `side` × `side` domain with a fixed background.
// `read` turns x̂ into the audited scalar.
AuditMechanism gridMechanism(const Algorithm& algorithm, std::size_t side, std::size_t cell,
                             std::size_t background,
                             std::function<double(const std::vector<double>&)> read) {
    return [&algorithm, side, cell, background, read](const std::vector<std::int64_t>& in,
                                                      AuditRandomness& rng) -> Expected<double> {
        std::vector<double> x(side * side, 0.0);
        for (std::size_t i = 0; i < background; ++i) {
            x[(i * 37 + 11) % x.size()] += 1;
        }
        x[cell] += static_cast<double>(in[0]);
        auto w = Workload::make(WorkloadSpec{}, {side, side});
        if (!w)
            return w.error();
        AlgorithmContext c;
        c.shape = {side, side};
        c.x = x;
        c.workload = &*w;
        c.epsilon = 1.0;
        c.rng = &rng.simulation();
        auto r = algorithm.run(c);
        if (!r)
            return r.error();
        return read(r->estimate);
    };
}

double boxTotal(const std::vector<double>& e, std::size_t side, std::size_t r0, std::size_t r1,
                std::size_t c0, std::size_t c1) {
    double s = 0;
    for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t c = c0; c < c1; ++c)
            s += e[r * side + c];
    return s;
}

// UGrid on 8 × 8 with N = 59 or 60: m² = 5.9 or 6, blocks of 4 bins either way; the differing
// cell (5, 2) lies in block rows 4..7, cols 0..3.
AuditMechanism ugridBlock() {
    return gridMechanism(ugridAlgorithm(), 8, 5 * 8 + 2, 59,
                         [](const std::vector<double>& e) { return boxTotal(e, 8, 4, 8, 0, 4); });
}

// AGrid on 32 × 32 with N = 400 or 401: m1 = 10, first-level blocks of 4 × 4; the differing
// cell (13, 6) lies in the block rows 12..15, cols 4..7. Second-level sizes m2 = ⌈√(N′/10)⌉ move
// between 1 and 3 with the noisy counts of the blocks (~6 records each).
AuditMechanism agridBlock() {
    return gridMechanism(agridAlgorithm(), 32, 13 * 32 + 6, 400, [](const std::vector<double>& e) {
        return boxTotal(e, 32, 12, 16, 4, 8);
    });
}
AuditMechanism agridCell() {
    return gridMechanism(agridAlgorithm(), 32, 13 * 32 + 6, 400,
                         [](const std::vector<double>& e) { return e[13 * 32 + 6]; });
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
    auto r = runDpAudit(ugridBlock(), {1}, {0}, params(1.0, 31, 200000));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestGridAudit::ugridWrongClaimIsFlagged() {
    auto r = runDpAudit(ugridBlock(), {1}, {0}, params(0.4, 32, 200000));
    DPX_VERIFY_OK(r);
    QVERIFY(r->violationFound);
    QVERIFY(r->tightest().epsilonLowerBound > 0.4);
}

void TestGridAudit::agridBlockPasses() {
    auto r = runDpAudit(agridBlock(), {1}, {0}, params(1.0, 33, 100000));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestGridAudit::agridCellPasses() {
    auto r = runDpAudit(agridCell(), {1}, {0}, params(1.0, 34, 100000));
    DPX_VERIFY_OK(r);
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

void TestGridAudit::agridWrongClaimIsFlagged() {
    auto r = runDpAudit(agridBlock(), {1}, {0}, params(0.4, 35, 100000));
    DPX_VERIFY_OK(r);
    QVERIFY2(r->violationFound, QByteArray::number(r->tightest().epsilonLowerBound).constData());
}

QTEST_APPLESS_MAIN(TestGridAudit)
#include "tst_grid_audit.moc"
