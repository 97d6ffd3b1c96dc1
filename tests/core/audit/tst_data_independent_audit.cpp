// Statistical DP audits (core/audit/dp_audit.h) of the data-independent DPBench algorithms:
// Identity, Uniform, H2, HB, Privelet (1-D, 8 cells) and HB2D, Privelet2D, QuadTree (2-D, 4 × 4).
// Neighbours under add/remove-one: D′ has one more record than D in cell 2. The audited output
// is the estimate of that cell — a post-processing of x̂, so ε-DP whenever the run is. Each
// claim of ε = 1 must pass; the negative control runs the same strategy with the Laplace scale
// divided by 4 (the bug of measuring a hierarchy as if its sensitivity were 1/4 of Δ₁) and must
// be flagged. α = 10⁻⁷ per audit, fixed seeds.
#include <QTest>

#include "core/algorithms/algorithm.h"
#include "core/audit/dp_audit.h"
#include "core/base/noise_distribution.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

AuditParams params(std::uint64_t seed, std::uint64_t samples = 100000) {
    AuditParams p;
    p.epsilon = 1;
    p.delta = 0;
    p.samplesPerInput = samples;
    p.alpha = 1e-7;
    p.seed = seed;
    return p;
}

DomainShape shapeOf(const Algorithm& a) {
    return a.info().dimensions.size() == 1 && a.info().dimensions[0] == 2 ? DomainShape{4, 4}
                                                                          : DomainShape{8};
}

// The algorithm run on the input counts; the estimate of cell 2. `broken`: the Laplace scale
// divided by 4 (least-squares algorithms: measure at 4ε; Uniform: the total at 4ε).
AuditMechanism mechanism(const Algorithm& a, bool broken) {
    const DomainShape shape = shapeOf(a);
    auto w = std::make_shared<Workload>(*Workload::make(*WorkloadSpec::parse("identity"), shape));
    std::shared_ptr<LinearStrategy> strategy;
    if (broken && a.info().id != "Uniform") {
        strategy = std::move(a.strategy(shape, *w)).value();
    }
    return [&a, shape, w, broken, strategy](const std::vector<std::int64_t>& in,
                                            AuditRandomness& rng) -> Expected<double> {
        std::vector<double> x(in.begin(), in.end());
        if (broken) {
            if (!strategy) {  // Uniform
                double total = 0;
                for (double v : x) {
                    total += v;
                }
                total += sampleNoise(NoiseDistribution::laplace(0.25), rng.simulation());
                return total / static_cast<double>(x.size());
            }
            auto y = measureLaplace(*strategy, x, 4.0, rng.simulation());
            if (!y) {
                return y.error();
            }
            std::vector<double> xhat(x.size());
            strategy->leastSquares(*y, xhat);
            return xhat[2];
        }
        AlgorithmContext c;
        c.shape = shape;
        c.x = x;
        c.workload = w.get();
        c.epsilon = 1;
        c.rng = &rng.simulation();
        auto r = a.run(c);
        if (!r) {
            return r.error();
        }
        return r->estimate[2];
    };
}

std::vector<std::int64_t> datasetD(const Algorithm& a) {
    std::vector<std::int64_t> d(shapeCells(shapeOf(a)), 0);
    for (std::size_t i = 0; i < d.size(); ++i) {
        d[i] = static_cast<std::int64_t>((i * 7) % 5);
    }
    return d;
}

void audit(const char* id, std::uint64_t seed) {
    const Algorithm* a = findAlgorithm(id);
    QVERIFY(a != nullptr);
    const auto d = datasetD(*a);
    auto dp = d;
    dp[2] += 1;
    auto ok = runDpAudit(mechanism(*a, false), d, dp, params(seed));
    DPX_VERIFY_OK(ok);
    QVERIFY2(!ok->violationFound,
             (std::string(id) + ": " + ok->tightest().event.describe()).c_str());
    QVERIFY(ok->tightest().epsilonLowerBound <= 1.0);
    auto bad = runDpAudit(mechanism(*a, true), d, dp, params(seed + 100));
    DPX_VERIFY_OK(bad);
    QVERIFY2(bad->violationFound, id);
    QVERIFY(bad->tightest().epsilonLowerBound > 1.0);
}

}  // namespace

class TestDataIndependentAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void identity() { audit("Identity", 1); }
    void uniform() { audit("Uniform", 2); }
    void h2() { audit("H2", 3); }
    void hb() { audit("HB", 4); }
    void privelet() { audit("Privelet", 5); }
    void hb2d() { audit("HB2D", 6); }
    void privelet2d() { audit("Privelet2D", 7); }
    void quadTree() { audit("QuadTree", 8); }
};

QTEST_APPLESS_MAIN(TestDataIndependentAudit)
#include "tst_data_independent_audit.moc"
