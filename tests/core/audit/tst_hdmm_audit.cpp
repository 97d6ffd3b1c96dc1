// Statistical DP audit (core/audit/dp_audit.h) of HDMM as an algorithm (issue #23): the matrix
// mechanism with a p-Identity strategy designed for all ranges of 16 cells (p = 2, so the
// strategy has extra rows that overlap the audited cell). Neighbours under add/remove: D has one
// more record in cell 5 than D′; released: the estimate of the range [4, 7] (a post-processing of
// x̂, ε-DP whenever the algorithm is). A claim of ε = 1 at ε = 1 must pass; the negative control
// runs at ε = 4 while claiming ε = 1 and must be flagged. α = 10⁻⁷, 100 000 outputs per input.
// The same for the templates beyond products on the 16 cells read as a 4 × 4 table: OPT_M for
// the 1-way marginals (the released sum of cells 4–7 is row 1's marginal cell) and OPT⊗ over the
// union of Kronecker products of ten random boxes.
// And the release path through a designed strategy (core/matrix_mechanism/strategy_release.h):
// the integer strategy K = ⌊Q·A⌋ measured exactly, discrete Laplace noise at the scale
// strategyReleaseLaw calibrates from Δ1(K) (the release's own calibration code), least squares;
// released: the same range estimate. The release entry point takes only the OS randomness, so
// the audit composes the same building blocks with the audit's seeded bits. The same with
// discrete Gaussian noise at the σ² strategyReleaseLaw calibrates on Δ2(K) for (ε, δ) =
// (1, 10⁻⁶): audited at that (ε, δ) it must pass; calibrated at ε = 12 (same δ; at ε = 4 the one
// released range estimate keeps too little of the loss for 10⁵ samples to show it) it must be
// flagged.
// And HDMM as an algorithm with Gaussian measurement (session 33, what the Workbench runs with
// its HDMM noise set to Gaussian): the strategy designed for ‖A‖₂ on all ranges of 16 cells
// (p = 2), continuous Gaussian noise from the analytic calibration (Balle & Wang 2018) at
// (ε, δ) = (1, 10⁻⁶), least squares, the same range estimate: audited at (1, 10⁻⁶) it must pass;
// run at ε = 12 (same δ) while claiming 1 it must be flagged.
// And the release path through an OPT_M strategy that does not measure the full table (the 16
// cells read as a 2 × 2 × 4 table): the release publishes the workload's marginals
// (strategyEstimates: M_b·K⁺y). The designer's strategy for all 1-way marginals (it measures the
// three 1-way marginals), audited on the published count of attribute 1 at its first bin (cells
// 0–7), and the three 2-way marginals measured for all 2-way marginals (a rounding made by hand:
// on so small a table the designer measures the full table), audited on the count of attributes
// 1 and 2 at (0, 1) (cells 4–7): at the calibrated ε = 1 they must pass, calibrated at ε = 4
// while claiming 1 they must be flagged; the 1-way one with discrete Gaussian noise too.
#include <QTest>

#include "core/algorithms/registry_list.h"
#include "core/matrix_mechanism/strategy_release.h"
#include "core/release/exact_samplers.h"
#include "tests/core/audit/dd1_audit_support.h"

using namespace dpx;

namespace {

AuditMechanism mechanism(double runEpsilon) {
    return dd1test::algorithmMechanism(hdmmAlgorithm(), {16}, "allrange", runEpsilon, 4, 7,
                                       {{"p", 2}});
}

AuditMechanism marginals(double runEpsilon) {
    return dd1test::algorithmMechanism(hdmmAlgorithm(), {4, 4}, "marginals:1", runEpsilon, 4, 7);
}

AuditMechanism boxes(double runEpsilon) {
    return dd1test::algorithmMechanism(hdmmAlgorithm(), {4, 4}, "range:10", runEpsilon, 4, 7,
                                       {{"p", 1}});
}

// HDMM run with Gaussian measurement at (runEpsilon, 10⁻⁶), read on the range [4, 7].
AuditMechanism gaussianRun(double runEpsilon) {
    auto w = std::make_shared<const Workload>(
        Workload::make(*WorkloadSpec::parse("allrange"), {16}).value());
    return [w, runEpsilon](const std::vector<std::int64_t>& in,
                           AuditRandomness& rng) -> Expected<double> {
        const std::vector<double> x(in.begin(), in.end());
        AlgorithmContext c;
        c.shape = {16};
        c.x = x;
        c.workload = w.get();
        c.epsilon = runEpsilon;
        c.measurement = MeasurementNoise::Gaussian;
        c.delta = 1e-6;
        c.parameters = {{"p", 2}};
        c.rng = &rng.simulation();
        auto r = hdmmAlgorithm().run(c);
        if (!r) {
            return r.error();
        }
        return r->estimate[4] + r->estimate[5] + r->estimate[6] + r->estimate[7];
    };
}

// The release through an integer strategy for all ranges of 16 cells, calibrated at `claimed`
// (a negative control calibrates at 4·claimed).
// `delta` non-empty: discrete Gaussian noise calibrated at (calibrated, delta).
AuditMechanism strategyRelease(const std::string& calibrated, const std::string& delta = {}) {
    auto w = std::make_shared<const Workload>(
        Workload::make(*WorkloadSpec::parse("allrange"), {16}).value());
    auto plan = std::make_shared<const StrategyReleasePlan>(
        planStrategyRelease(w, DesignTemplate::PIdentity, {2}).value());
    ReleaseSpec spec;
    spec.epsilon = calibrated;
    spec.binsDeclared = true;
    spec.source = "audit";
    spec.appVersion = "audit";
    if (!delta.empty()) {
        spec.mechanism = ReleaseMechanism::DiscreteGaussian;
        spec.delta = delta;
    }
    const StrategyReleaseLaw law = strategyReleaseLaw(spec, *plan).value();
    const Rational t = law.scale;
    const std::optional<Rational> sigma2 =
        law.gaussian ? std::optional<Rational>(law.gaussian->sigma2) : std::nullopt;
    return [plan, t, sigma2](const std::vector<std::int64_t>& in,
                             AuditRandomness& rng) -> Expected<double> {
        auto y = plan->strategy->measure(in);
        if (!y) {
            return y.error();
        }
        std::vector<double> noisy(y->size());
        for (std::size_t i = 0; i < y->size(); ++i) {
            auto z = sigma2 ? sampleDiscreteGaussian(*sigma2, rng) : sampleDiscreteLaplace(t, rng);
            if (!z) {
                return z.error();
            }
            noisy[i] = static_cast<double>((*y)[i] + *z);
        }
        std::vector<double> xhat(in.size());
        plan->strategy->linear->leastSquares(noisy, xhat);
        return xhat[4] + xhat[5] + xhat[6] + xhat[7];
    };
}

// The release through an OPT_M strategy on 2 × 2 × 4 that leaves the full table out (so the
// release publishes the workload's marginals), calibrated at `calibrated` (and `delta`: discrete
// Gaussian). `twoWay` false: the designer's strategy for all 1-way marginals, released value 0
// (attribute 1 at its first bin, cells 0–7); true: the three 2-way marginals with equal weights
// rounded at Q = 64, released value 1 (attributes 1 and 2 at (0, 1), cells 4–7).
AuditMechanism marginalsRelease(const std::string& calibrated, const std::string& delta = {},
                                bool twoWay = false) {
    const DomainShape shape{2, 2, 4};
    auto w = std::make_shared<const Workload>(
        Workload::make(*WorkloadSpec::parse(twoWay ? "marginals:2" : "marginals:1"), shape)
            .value());
    std::shared_ptr<const StrategyReleasePlan> plan;
    if (twoWay) {
        DesignedStrategy d;
        d.kind = DesignTemplate::Marginals;
        d.marginalWeights = {0, 0, 0, 1.0 / 3, 0, 1.0 / 3, 1.0 / 3, 0};
        plan = std::make_shared<const StrategyReleasePlan>(
            planFromIntegerStrategy(w, "OPT_M (2-way)", roundStrategy(shape, d, 64).value())
                .value());
    } else {
        plan = std::make_shared<const StrategyReleasePlan>(
            planStrategyRelease(w, DesignTemplate::Marginals).value());
    }
    if (plan->published != StrategyPublished::WorkloadMarginals) {
        qFatal("the OPT_M strategy measures the full table");
    }
    const std::size_t released = twoWay ? 1 : 0;
    ReleaseSpec spec;
    spec.epsilon = calibrated;
    spec.binsDeclared = true;
    spec.source = "audit";
    spec.appVersion = "audit";
    if (!delta.empty()) {
        spec.mechanism = ReleaseMechanism::DiscreteGaussian;
        spec.delta = delta;
    }
    const StrategyReleaseLaw law = strategyReleaseLaw(spec, *plan).value();
    const Rational t = law.scale;
    const std::optional<Rational> sigma2 =
        law.gaussian ? std::optional<Rational>(law.gaussian->sigma2) : std::nullopt;
    return [plan, t, sigma2, released](const std::vector<std::int64_t>& in,
                                       AuditRandomness& rng) -> Expected<double> {
        auto y = plan->strategy->measure(in);
        if (!y) {
            return y.error();
        }
        std::vector<double> noisy(y->size());
        for (std::size_t i = 0; i < y->size(); ++i) {
            auto z = sigma2 ? sampleDiscreteGaussian(*sigma2, rng) : sampleDiscreteLaplace(t, rng);
            if (!z) {
                return z.error();
            }
            noisy[i] = static_cast<double>((*y)[i] + *z);
        }
        std::vector<double> published(strategyPublishedCount(*plan));
        strategyEstimates(*plan, noisy, published);
        return published[released];
    };
}

const std::vector<std::int64_t> kD = {3, 0, 10, 0, 5, 2, 0, 1, 4, 4, 0, 0, 7, 1, 0, 2};
const std::vector<std::int64_t> kDp = {3, 0, 10, 0, 5, 1, 0, 1, 4, 4, 0, 0, 7, 1, 0, 2};

}  // namespace

class TestHdmmAudit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void passesAtClaimedEpsilon();
    void tooLittleNoiseIsFlagged();
    void marginalsTemplate();
    void unionOfKroneckerProducts();
    void gaussianMeasurement();
    void integerStrategyRelease();
    void integerStrategyReleaseGaussian();
    void marginalsStrategyRelease();
    void marginalsStrategyReleaseGaussian();
};

void TestHdmmAudit::passesAtClaimedEpsilon() {
    dd1test::verifyAuditPasses(mechanism(1.0), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::tooLittleNoiseIsFlagged() {
    dd1test::verifyAuditFlags(mechanism(4.0), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::marginalsTemplate() {
    dd1test::verifyAuditPasses(marginals(1.0), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditFlags(marginals(4.0), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::unionOfKroneckerProducts() {
    dd1test::verifyAuditPasses(boxes(1.0), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditFlags(boxes(4.0), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::gaussianMeasurement() {
    auto params = [](std::uint64_t seed) {
        AuditParams p = dd1test::auditParams(1.0, 100000, seed);
        p.delta = 1e-6;
        return p;
    };
    auto pass = runDpAudit(gaussianRun(1.0), kD, kDp, params(75));
    QVERIFY2(pass.hasValue(), pass ? "" : pass.error().message.c_str());
    QVERIFY2(!pass->violationFound, pass->tightest().event.describe().c_str());
    auto flag = runDpAudit(gaussianRun(12.0), kD, kDp, params(76));
    QVERIFY2(flag.hasValue(), flag ? "" : flag.error().message.c_str());
    QVERIFY2(
        flag->violationFound,
        qPrintable(QStringLiteral("tightest bound %1").arg(flag->tightest().epsilonLowerBound)));
}

void TestHdmmAudit::integerStrategyRelease() {
    dd1test::verifyAuditPasses(strategyRelease("1"), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditFlags(strategyRelease("4"), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::integerStrategyReleaseGaussian() {
    auto params = [](std::uint64_t seed) {
        AuditParams p = dd1test::auditParams(1.0, 100000, seed);
        p.delta = 1e-6;
        return p;
    };
    auto pass = runDpAudit(strategyRelease("1", "1e-6"), kD, kDp, params(71));
    QVERIFY2(pass.hasValue(), pass ? "" : pass.error().message.c_str());
    QVERIFY2(!pass->violationFound, pass->tightest().event.describe().c_str());
    auto flag = runDpAudit(strategyRelease("12", "1e-6"), kD, kDp, params(72));
    QVERIFY2(flag.hasValue(), flag ? "" : flag.error().message.c_str());
    QVERIFY2(
        flag->violationFound,
        qPrintable(QStringLiteral("tightest bound %1").arg(flag->tightest().epsilonLowerBound)));
}

void TestHdmmAudit::marginalsStrategyRelease() {
    dd1test::verifyAuditPasses(marginalsRelease("1"), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditFlags(marginalsRelease("4"), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditPasses(marginalsRelease("1", {}, true), kD, kDp, 1.0, 100000);
    dd1test::verifyAuditFlags(marginalsRelease("4", {}, true), kD, kDp, 1.0, 100000);
}

void TestHdmmAudit::marginalsStrategyReleaseGaussian() {
    auto params = [](std::uint64_t seed) {
        AuditParams p = dd1test::auditParams(1.0, 100000, seed);
        p.delta = 1e-6;
        return p;
    };
    auto pass = runDpAudit(marginalsRelease("1", "1e-6"), kD, kDp, params(73));
    QVERIFY2(pass.hasValue(), pass ? "" : pass.error().message.c_str());
    QVERIFY2(!pass->violationFound, pass->tightest().event.describe().c_str());
    auto flag = runDpAudit(marginalsRelease("12", "1e-6"), kD, kDp, params(74));
    QVERIFY2(flag.hasValue(), flag ? "" : flag.error().message.c_str());
    QVERIFY2(
        flag->violationFound,
        qPrintable(QStringLiteral("tightest bound %1").arg(flag->tightest().epsilonLowerBound)));
}

QTEST_APPLESS_MAIN(TestHdmmAudit)
#include "tst_hdmm_audit.moc"
