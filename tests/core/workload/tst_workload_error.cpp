// Realized workload errors (core/workload/workload_error.h) against brute force: DPBench's
// scaled metrics on explicit workloads, and the implicit path (too many queries to list) against
// separable references.
#include <QTest>

#include <cmath>

#include "core/base/simulation_rng.h"
#include "core/workload/workload_error.h"
#include "tests/testing/dense_workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

std::vector<double> randomVector(std::size_t n, std::uint64_t seed) {
    return dpxtest::uniformVector(n, seed, -2, 2, 2);
}

// Σ over all ranges [a, b] of 1-D u of (Σ u[a..b])·(Σ v[a..b]), brute force O(n²).
double rangeProducts(const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (std::size_t a = 0; a < u.size(); ++a) {
        double su = 0, sv = 0;
        for (std::size_t b = a; b < u.size(); ++b) {
            su += u[b];
            sv += v[b];
            s += su * sv;
        }
    }
    return s;
}

}  // namespace

class TestWorkloadError : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void explicitMatchesBruteForce();
    void implicitOneDimensional();
    void implicitTwoDimensionalSeparable();
    void implicitUnion();
    void badInputs();
};

void TestWorkloadError::explicitMatchesBruteForce() {
    const DomainShape s{5, 4};
    auto w = Workload::make(*WorkloadSpec::parse("range:30:seed=4"), s);
    DPX_VERIFY_OK(w);
    const auto truth = randomVector(20, 1), est = randomVector(20, 2);
    auto e = workloadError(*w, truth, est, 250.0, true);
    DPX_VERIFY_OK(e);
    double abs = 0, sq = 0, mx = 0;
    for (std::uint64_t i = 0; i < 30; ++i) {
        const RangeQuery q = w->query(i);
        double d = 0;
        for (std::uint64_t r = q.box[0].lo; r <= q.box[0].hi; ++r) {
            for (std::uint64_t c = q.box[1].lo; c <= q.box[1].hi; ++c) {
                d += est[r * 4 + c] - truth[r * 4 + c];
            }
        }
        DPX_VERIFY_NEAR(e->perQuery[i], d, 1e-12);
        abs += std::abs(d);
        sq += d * d;
        mx = std::max(mx, std::abs(d));
    }
    QCOMPARE(e->queries, std::uint64_t{30});
    DPX_VERIFY_REL(e->sumAbs, abs, 1e-12);
    DPX_VERIFY_REL(e->sumSquares, sq, 1e-12);
    DPX_VERIFY_REL(e->maxAbs, mx, 1e-12);
    DPX_VERIFY_REL(e->rmse, std::sqrt(sq / 30), 1e-12);
    // dpcomp_core metric.py: L2 = ‖d‖₂/q/m, L1 = ‖d‖₁/q/m, L∞ = ‖d‖∞/m.
    DPX_VERIFY_REL(e->scaledL2, std::sqrt(sq) / 30 / 250, 1e-12);
    DPX_VERIFY_REL(e->scaledL1, abs / 30 / 250, 1e-12);
    DPX_VERIFY_REL(e->scaledLinf, mx / 250, 1e-12);
    auto noPer = workloadError(*w, truth, est, 250.0);
    QVERIFY(noPer->perQuery.empty());
}

void TestWorkloadError::implicitOneDimensional() {
    // AllRange on 6 000 cells: 18 003 000 queries (> 2^24, not explicit; ≤ 2^27, so L1 and L∞
    // are still enumerated).
    const std::size_t n = 6000;
    auto w = Workload::make(*WorkloadSpec::parse("allrange"), {n});
    DPX_VERIFY_OK(w);
    QVERIFY(!w->explicitQueries());
    const auto truth = randomVector(n, 3), est = randomVector(n, 4);
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) {
        d[i] = est[i] - truth[i];
    }
    double abs = 0, sq = 0, mx = 0;
    for (std::size_t a = 0; a < n; ++a) {
        double s = 0;
        for (std::size_t b = a; b < n; ++b) {
            s += d[b];
            abs += std::abs(s);
            sq += s * s;
            mx = std::max(mx, std::abs(s));
        }
    }
    auto e = workloadError(*w, truth, est, 1000.0);
    DPX_VERIFY_OK(e);
    DPX_VERIFY_REL(e->sumSquares, sq, 1e-9);
    DPX_VERIFY_REL(e->sumAbs, abs, 1e-9);
    DPX_VERIFY_REL(e->maxAbs, mx, 1e-9);
}

void TestWorkloadError::implicitTwoDimensionalSeparable() {
    // d = u⊗v + u'⊗v' on 200 × 200: a box's sum is R_u·R_v + R_u'·R_v', so Σ over all boxes of
    // its square separates into 1-D range sums. 4·10^8 queries: L1/L∞ are not enumerated (NaN).
    const std::size_t n = 200;
    const auto u = randomVector(n, 5), v = randomVector(n, 6), u2 = randomVector(n, 7),
               v2 = randomVector(n, 8);
    std::vector<double> truth(n * n, 0.0), est(n * n);
    for (std::size_t r = 0; r < n; ++r) {
        for (std::size_t c = 0; c < n; ++c) {
            est[r * n + c] = u[r] * v[c] + u2[r] * v2[c];
        }
    }
    const double expected = rangeProducts(u, u) * rangeProducts(v, v) +
                            2 * rangeProducts(u, u2) * rangeProducts(v, v2) +
                            rangeProducts(u2, u2) * rangeProducts(v2, v2);
    for (const char* kind : {"allrange"}) {
        auto w = Workload::make(*WorkloadSpec::parse(kind), {n, n});
        DPX_VERIFY_OK(w);
        auto e = workloadError(*w, truth, est, 10.0);
        DPX_VERIFY_OK(e);
        DPX_VERIFY_REL(e->sumSquares, expected, 1e-9);
        QVERIFY(std::isnan(e->sumAbs));
        QVERIFY(std::isnan(e->scaledLinf));
    }
}

void TestWorkloadError::implicitUnion() {
    // 1.1·10⁹ all-range boxes plus 65 536 prefixes (×2) and two listed boxes (×0.5) on 256 × 256:
    // too many to list, so the sum of squares comes from the parts' Gram forms. Reference: the
    // parts' own errors, c²-weighted (the listed and prefix parts are answered explicitly).
    const DomainShape s{256, 256};
    auto w = Workload::make(
        *WorkloadSpec::parse("allrange + 2*prefix + 0.5*boxes:0..9x3..70;64..255x0..0"), s);
    DPX_VERIFY_OK(w);
    QVERIFY(!w->explicitQueries());
    const auto truth = randomVector(256 * 256, 3), est = randomVector(256 * 256, 4);
    auto e = workloadError(*w, truth, est, 1.0);
    DPX_VERIFY_OK(e);
    double reference = 0;
    for (std::size_t i = 0; i < w->parts().size(); ++i) {
        auto part = workloadError(w->parts()[i], truth, est, 1.0);
        DPX_VERIFY_OK(part);
        reference += w->spec().partWeights[i] * w->spec().partWeights[i] * part->sumSquares;
    }
    DPX_VERIFY_REL(e->sumSquares, reference, 1e-9);
}

void TestWorkloadError::badInputs() {
    auto w = Workload::make(*WorkloadSpec::parse("prefix"), {4});
    const std::vector<double> four(4, 1.0), three(3, 1.0);
    DPX_VERIFY_ERROR(workloadError(*w, four, three, 1.0), "3");
    DPX_VERIFY_ERROR(workloadError(*w, four, four, 0.0), "scale");
    std::vector<double> bad(4, 1.0);
    bad[2] = std::nan("");
    DPX_VERIFY_ERROR(workloadError(*w, four, bad, 1.0), "estimate");
}

QTEST_APPLESS_MAIN(TestWorkloadError)
#include "tst_workload_error.moc"
