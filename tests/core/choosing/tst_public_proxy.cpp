// Public proxies for choosing ε (core/choosing/public_proxy.h, issue #22): every shape sums to the
// declared N exactly and each bin is within 1 of its quota; the normal's bin masses from the CDF
// agree with numerical integration of the density (Boost Gauss–Kronrod, tests/testing/quadrature.h,
// the density written out from its definition); bad inputs are refused with messages naming the
// problem; and the trade-off on a proxy equals the trade-off on the same histogram given directly.
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "core/choosing/public_proxy.h"
#include "core/choosing/tradeoff.h"
#include "tests/testing/quadrature.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

PlanOn plan(const char* text, std::int64_t n) {
    auto p = parsePlanOn(text);
    if (!p) {
        qFatal("parsePlanOn(%s): %s", text, p.error().message.c_str());
    }
    p->population = n;
    return *p;
}

// ∫ over [a, b] of the N(μ, σ²) density, from its definition.
double normalMassByIntegration(double a, double b, double mu, double sigma) {
    const auto density = [&](double x) {
        const double z = (x - mu) / sigma;
        return std::exp(-0.5 * z * z) / (sigma * std::sqrt(2 * std::numbers::pi));
    };
    return dpxtest::integrateFinite(density, a, b);
}

// Sum = N and |count_i − N·w_i| < 1 for the normalised weights w.
void checkApportionment(const Histogram& h, const std::vector<double>& w, std::int64_t n) {
    QCOMPARE(h.total(), n);
    QCOMPARE(h.size(), w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double quota = static_cast<double>(n) * w[i];
        QVERIFY2(std::abs(static_cast<double>(h.counts()[i]) - quota) < 1 + 1e-9 * quota,
                 qPrintable(QStringLiteral("bin %1: %2 vs quota %3")
                                .arg(i)
                                .arg(h.counts()[i])
                                .arg(quota, 0, 'g', 17)));
    }
}

}  // namespace

class TestPublicProxy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesAndPrints() {
        for (const char* t : {"confidential", "uniform", "normal:5,2", "normal:50%,20%",
                              "weights:1,2,0.5", "shape:s.csv", "release:r.csv"}) {
            auto p = parsePlanOn(t);
            QVERIFY2(p, t);
            QCOMPARE(QString::fromStdString(p->text()), QString::fromLatin1(t));
        }
        QVERIFY(!parsePlanOn("confidential")->isProxy());
        QCOMPARE(parsePlanOn("confidential")->computedOn(), std::string("confidential data"));
        PlanOn u = plan("uniform", 30000);
        QCOMPARE(u.computedOn(), std::string("public proxy: uniform, N = 30000"));
        QCOMPARE(plan("normal:5,2", 10).describe(),
                 std::string("normal (mean 5, sd 2 bins), N = 10"));
        QCOMPARE(plan("release:r.csv", 7).describe(),
                 std::string("previous release r.csv (released counts), N = 7"));
    }

    void uniformSumsToN() {
        for (std::int64_t n : {1LL, 7LL, 30000LL, 999'999'999'999LL}) {
            for (std::size_t k : {1u, 3u, 7u, 64u}) {
                auto h = buildProxyHistogram(plan("uniform", n), k);
                QVERIFY(h);
                checkApportionment(*h, std::vector<double>(k, 1.0 / static_cast<double>(k)), n);
            }
        }
        // 10 over 3 bins: quotas 3⅓ each, one extra unit to the first (ties: lower index).
        auto h = buildProxyHistogram(plan("uniform", 10), 3);
        QCOMPARE(h->counts(), (std::vector<std::int64_t>{4, 3, 3}));
    }

    void normalBinsMatchIntegration() {
        // Bins by the CDF (erfc) against Gauss–Kronrod integration of the density, renormalised
        // over the range [−½, k − ½] (truncation).
        struct Case {
            std::size_t k;
            double mu, sigma;
        };
        for (const Case c : {Case{10, 4.5, 2}, Case{10, 0, 0.7}, Case{25, 30, 4}, Case{5, 2, 50},
                             Case{40, -3, 6}}) {
            PlanOn p;
            p.kind = PlanOnKind::Normal;
            p.mean = c.mu;
            p.sd = c.sigma;
            auto w = proxyWeights(p, c.k);
            QVERIFY(w);
            std::vector<double> ref(c.k);
            double total = 0;
            for (std::size_t i = 0; i < c.k; ++i) {
                const double x = static_cast<double>(i);
                ref[i] = normalMassByIntegration(x - 0.5, x + 0.5, c.mu, c.sigma);
                total += ref[i];
            }
            for (std::size_t i = 0; i < c.k; ++i) {
                QVERIFY2(std::abs((*w)[i] - ref[i] / total) <= 1e-12 + 1e-9 * ref[i] / total,
                         qPrintable(QStringLiteral("k=%1 μ=%2 σ=%3 bin %4: %5 vs %6")
                                        .arg(c.k)
                                        .arg(c.mu)
                                        .arg(c.sigma)
                                        .arg(i)
                                        .arg((*w)[i], 0, 'g', 17)
                                        .arg(ref[i] / total, 0, 'g', 17)));
            }
            p.population = 123457;
            auto h = buildProxyHistogram(p, c.k);
            QVERIFY(h);
            checkApportionment(*h, *w, 123457);
        }
        // Relative: 50 %, 20 % of 10 bins is μ = 4.5, σ = 2 in bins.
        PlanOn rel = plan("normal:50%,20%", 1000), abs = plan("normal:4.5,2", 1000);
        QCOMPARE(buildProxyHistogram(rel, 10)->counts(), buildProxyHistogram(abs, 10)->counts());
        // Symmetric about the middle: mirrored masses.
        auto w = proxyWeights(abs, 10);
        for (std::size_t i = 0; i < 5; ++i) {
            QVERIFY(std::abs((*w)[i] - (*w)[9 - i]) < 1e-15);
        }
        // A far tail keeps its precision (no cancellation to 0): bin 0 of N(40, 1) over 50 bins.
        PlanOn far;
        far.kind = PlanOnKind::Normal;
        far.mean = 40;
        far.sd = 1;
        auto wf = proxyWeights(far, 50);
        QVERIFY((*wf)[49] > 0);
        const double ref49 = normalMassByIntegration(48.5, 49.5, 40, 1);
        QVERIFY(std::abs((*wf)[49] - ref49) < 1e-9 * ref49);
    }

    void weightsReleaseAndLabels() {
        auto h = buildProxyHistogram(plan("weights:1,0,3", 8), 3, {"a", "b", "c"});
        QVERIFY(h);
        QCOMPARE(h->counts(), (std::vector<std::int64_t>{2, 0, 6}));
        QCOMPARE(h->labels(), (std::vector<std::string>{"a", "b", "c"}));
        // A release: negative released counts count as 0; labels must match.
        PlanOn r = plan("release:r.csv", 100);
        r.weights = {-3, 10, 30, 0.5};
        r.labels = {"0-10", "10-20", "20-30", "30-40"};
        auto hr = buildProxyHistogram(r, 4, r.labels);
        QVERIFY(hr);
        checkApportionment(*hr, {0, 10 / 40.5, 30 / 40.5, 0.5 / 40.5}, 100);
        QCOMPARE(hr->counts()[0], std::int64_t{0});
        DPX_VERIFY_ERROR(buildProxyHistogram(r, 4, {"0-10", "10-20", "20-35", "35-40"}),
                         "bin 3 is '20-30'");
        // Edges are carried over.
        auto he = buildProxyHistogram(plan("uniform", 4), 2, {}, {0, 1, 2});
        QCOMPARE(he->edges(), (std::vector<double>{0, 1, 2}));
    }

    void rejectsBadInput() {
        DPX_VERIFY_ERROR(parsePlanOn("unifrom"), "unknown 'unifrom'");
        DPX_VERIFY_ERROR(parsePlanOn("uniform:3"), "takes no parameters");
        DPX_VERIFY_ERROR(parsePlanOn("normal:5"), "normal:MEAN,SD");
        DPX_VERIFY_ERROR(parsePlanOn("normal:5%,2"), "both");
        DPX_VERIFY_ERROR(parsePlanOn("normal:5,0"), "SD > 0");
        DPX_VERIFY_ERROR(parsePlanOn("normal:5,-1"), "SD > 0");
        DPX_VERIFY_ERROR(parsePlanOn("normal:x,1"), "not a finite number");
        DPX_VERIFY_ERROR(parsePlanOn("weights:1,,2"), "not a finite number");
        DPX_VERIFY_ERROR(parsePlanOn("shape:"), "expected one of");
        DPX_VERIFY_ERROR(parsePlanOn(""), "unknown");
        // N is declared: never 0 (it is not read from the data).
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("uniform", 0), 3), "declared");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("uniform", -5), 3), "declared");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("uniform", kMaxProxyPopulation + 1), 3), "1e15");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("confidential", 10), 3), "no public proxy");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("weights:1,2", 10), 3), "same bins");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("weights:1,-2,1", 10), 3), "negative weight");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("weights:0,0,0", 10), 3), "sum to 0");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("normal:1e6,1", 10), 3), "no mass");
        PlanOn nan = plan("weights:1,1,1", 10);
        nan.weights[1] = kNaN;
        DPX_VERIFY_ERROR(buildProxyHistogram(nan, 3), "bin 2 is not a finite");
        PlanOn rel = plan("release:r.csv", 10);
        rel.weights = {-1, -2};
        DPX_VERIFY_ERROR(buildProxyHistogram(rel, 2), "sum to 0");
        DPX_VERIFY_ERROR(buildProxyHistogram(plan("uniform", 10), 0), "at least one bin");
    }

    void tradeoffOnProxyEqualsTradeoffOnThatHistogram() {
        // The curve of a proxy plan is the curve of the proxy histogram given directly: exact
        // (Laplace + clamp, SSE) and count-matrix (GM, L1) configurations.
        auto proxy = buildProxyHistogram(plan("normal:2,1.5", 60), 6);
        QVERIFY(proxy);
        auto direct = Histogram::create(proxy->counts());
        QVERIFY(direct);
        const std::vector<double> eps{0.1, 0.5, 1, 4};
        TradeoffConfig laplace;
        laplace.estimator = EstimatorKind::Clamp;
        laplace.metric = {Metric::SSE, Scale::Counts};
        TradeoffConfig gm;
        gm.mechanism = TradeoffMechanism::CountGeometric;
        gm.metric = {Metric::L1, Scale::Counts};
        for (const TradeoffConfig& c : {laplace, gm}) {
            CurveOptions o;
            o.threads = 1;
            auto a = errorCurve(*proxy, c, eps, o);
            auto b = errorCurve(*direct, c, eps, o);
            QVERIFY(a && b);
            for (std::size_t i = 0; i < eps.size(); ++i) {
                QVERIFY(a->points[i].exact);
                QCOMPARE(a->points[i].value, b->points[i].value);
            }
        }
        // And it does not depend on the confidential counts: the proxy has no input for them.
        QCOMPARE(proxy->total(), std::int64_t{60});
    }
};

QTEST_APPLESS_MAIN(TestPublicProxy)
#include "tst_public_proxy.moc"
