// core/ldp_study: the range-query and marginal studies of seed 001 (ch. 5 and ch. 4) behind the
// window's Local DP experiment tab. Checked: the flat baseline's MSE against its exact prediction
// (within 4 standard errors over 40 repetitions), HH and HaarHRR below their bounds, consistency
// and INPHT beating their baselines (seed 001's findings), reproducibility from content-derived
// seeds, the attribute table, cancellation and every rejected input.

#include <QTest>
#include <cmath>
#include <stop_token>

#include "core/ldp/study.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::ldp;

class TestLdpStudy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void presetsAreValid() {
        const RangeStudySpec r = rangeStudyPreset();
        QVERIFY(r.validate().hasValue());
        QCOMPARE(r.domain, std::size_t(1024));
        QCOMPARE(r.methods.size(), std::size_t(5));
        QCOMPARE(r.epsilons.size(), std::size_t(4));
        const MarginalStudySpec m = marginalStudyPreset();
        QVERIFY(m.validate().hasValue());
        QCOMPARE(m.attributes, 8u);
        QCOMPARE(m.order, 2u);
        QCOMPARE(RangeMethodSpec({RangeMethod::HierarchicalConsistent, Protocol::OUE, 4}).label(),
                 std::string("HH_4 OUE + consistency"));
        QCOMPARE(MarginalMethodSpec({MarginalMethod::OneHot, Protocol::OLH}).label(),
                 std::string("one-hot OLH"));
    }

    void rejections() {
        RangeStudySpec r = rangeStudyPreset();
        r.methods.clear();
        DPX_VERIFY_ERROR(r.validate(), "methods");
        for (double bad : {0.0, -1.0, 25.0, std::nan(""), HUGE_VAL}) {
            RangeStudySpec e = rangeStudyPreset();
            e.epsilons = {1, bad};
            DPX_VERIFY_ERROR(e.validate(), "epsilons[1]");
        }
        r = rangeStudyPreset();
        r.domain = 1;
        DPX_VERIFY_ERROR(r.validate(), "domain");
        r = rangeStudyPreset();
        r.users = 0;
        DPX_VERIFY_ERROR(r.validate(), "users");
        r = rangeStudyPreset();
        r.repetitions = 0;
        DPX_VERIFY_ERROR(r.validate(), "repetitions");
        r = rangeStudyPreset();
        r.rangeSamples = 0;  // all ranges of D = 1024: fine
        QVERIFY(r.validate().hasValue());
        r.domain = 4096;
        DPX_VERIFY_ERROR(r.validate(), "all ranges");
        r = rangeStudyPreset();
        r.methods = {{RangeMethod::Hierarchical, Protocol::RR, 2}};
        DPX_VERIFY_ERROR(r.validate(), "oracle");
        r.methods = {{RangeMethod::Hierarchical, Protocol::OUE, 1}};
        QVERIFY(!r.validate().hasValue());

        MarginalStudySpec m = marginalStudyPreset();
        m.order = 9;
        DPX_VERIFY_ERROR(m.validate(), "order");
        m = marginalStudyPreset();
        m.attributes = 17;
        DPX_VERIFY_ERROR(m.validate(), "attributes");
        m = marginalStudyPreset();
        m.methods = {{MarginalMethod::OneHot, Protocol::DBitFlip}};
        DPX_VERIFY_ERROR(m.validate(), "oracle");
        m = marginalStudyPreset();
        m.epsilons = {};
        DPX_VERIFY_ERROR(m.validate(), "epsilons");
        DPX_VERIFY_ERROR(binaryAttributeTable(0, 10, true), "attributes");
        DPX_VERIFY_ERROR(binaryAttributeTable(4, 0, true), "users");
    }

    // Flat OUE: the estimates of different values are independent (aggregate simulation), so the
    // MSE of a range is exactly Σ_{j∈range} Var[f̂_j]; over 40 repetitions the mean must be within
    // 4 standard errors (the CI half-width is t·SE). HH and HaarHRR must not exceed their bounds
    // (by more than the same statistical margin), and consistency must help (seed 001 §5.4.2).
    void rangeStudyAgainstAnalytic() {
        RangeStudySpec s;
        s.methods = {{RangeMethod::Flat, Protocol::OUE, 2},
                     {RangeMethod::Hierarchical, Protocol::OUE, 2},
                     {RangeMethod::HierarchicalConsistent, Protocol::OUE, 2},
                     {RangeMethod::Haar, Protocol::OUE, 2}};
        s.domain = 64;
        s.users = 1 << 16;
        s.epsilons = {1.0986122886681098};
        s.repetitions = 40;
        s.rangeSamples = 0;  // all 2080 ranges
        s.seed = 11;
        auto r = runRangeStudy(s);
        QVERIFY2(r.hasValue(), r.hasValue() ? "" : r.error().message.c_str());
        QCOMPARE(r->points.size(), std::size_t(4));
        const auto& flat = r->points[0];
        QCOMPARE(flat.analyticKind, std::string("prediction"));
        const double se = flat.mseCi95 / 2.023;  // t_{0.975, 39}
        QVERIFY2(std::abs(flat.mse - flat.analytic) < 4 * se,
                 dpxtest::nearMessage("flat MSE", flat.mse, flat.analytic, 4 * se).constData());
        for (std::size_t i = 1; i < 4; ++i) {
            const auto& p = r->points[i];
            QCOMPARE(p.analyticKind, std::string("bound"));
            QVERIFY2(p.mse - 2 * p.mseCi95 < p.analytic,
                     dpxtest::nearMessage("MSE under its bound", p.mse, p.analytic, p.mseCi95)
                         .constData());
        }
        QVERIFY(r->points[2].mse < r->points[1].mse);  // consistency helps
        for (const auto& p : r->points) {
            QVERIFY(std::isfinite(p.mse) && p.mse > 0);
        }
    }

    // Content-derived seeds: a method alone gives the same numbers as inside a larger study.
    void reproducibleAlone() {
        RangeStudySpec s = rangeStudyPreset();
        s.domain = 128;
        s.users = 1 << 14;
        s.epsilons = {0.5, 2};
        s.repetitions = 3;
        s.rangeSamples = 500;
        auto all = runRangeStudy(s);
        QVERIFY(all.hasValue());
        RangeStudySpec one = s;
        one.methods = {s.methods[3]};
        one.epsilons = {2};
        auto alone = runRangeStudy(one);
        QVERIFY(alone.hasValue());
        QCOMPARE(alone->points.size(), std::size_t(1));
        QCOMPARE(alone->points[0].mse, all->points[3 * 2 + 1].mse);
        auto again = runRangeStudy(s);
        QVERIFY(again.hasValue());
        for (std::size_t i = 0; i < all->points.size(); ++i) {
            QCOMPARE(again->points[i].mse, all->points[i].mse);
        }
    }

    // Seed 001 ch. 4: for 2-way marginals of 8 attributes INPHT has a much smaller TV than the
    // one-hot baselines (it spends the reports on the 36 low-order coefficients instead of 256
    // cells); all errors fall as ε grows.
    void marginalStudy() {
        MarginalStudySpec s = marginalStudyPreset();
        s.users = 1 << 16;
        s.epsilons = {0.4, 1.4};
        s.repetitions = 4;
        auto r = runMarginalStudy(s);
        QVERIFY2(r.hasValue(), r.hasValue() ? "" : r.error().message.c_str());
        QCOMPARE(r->points.size(), std::size_t(6));
        for (std::size_t e = 0; e < 2; ++e) {
            const double inpht = r->points[e].meanTv;
            QVERIFY2(inpht < r->points[2 + e].meanTv && inpht < r->points[4 + e].meanTv,
                     qPrintable(QStringLiteral("INPHT %1, one-hot OUE %2, OLH %3")
                                    .arg(inpht)
                                    .arg(r->points[2 + e].meanTv)
                                    .arg(r->points[4 + e].meanTv)));
        }
        for (std::size_t m = 0; m < 3; ++m) {
            QVERIFY(r->points[2 * m + 1].meanTv < r->points[2 * m].meanTv);
            QVERIFY(r->points[2 * m].maxTv >= r->points[2 * m].meanTv);
        }
    }

    void attributeTable() {
        auto u = binaryAttributeTable(4, 160, false);
        QVERIFY(u.hasValue());
        for (std::int64_t c : u->counts()) {
            QCOMPARE(c, std::int64_t(10));
        }
        const unsigned d = 6;
        const std::uint64_t n = 1'000'000;
        auto t = binaryAttributeTable(d, n, true);
        QVERIFY(t.hasValue());
        QCOMPARE(static_cast<std::uint64_t>(t->total()), n);
        for (unsigned i = 0; i < d; ++i) {
            double ones = 0;
            for (std::size_t x = 0; x < t->counts().size(); ++x) {
                if ((x >> i) & 1U) {
                    ones += static_cast<double>(t->counts()[x]);
                }
            }
            // Each cell is within 1 of its quota: the attribute's share within 2^d / N of p_i.
            DPX_VERIFY_NEAR(ones / static_cast<double>(n), (i + 1.0) / (d + 2.0),
                            64.0 / static_cast<double>(n));
        }
    }

    void cancellation() {
        std::stop_source src;
        src.request_stop();
        auto r = runRangeStudy(rangeStudyPreset(), src.get_token());
        QVERIFY(r.hasValue());
        QVERIFY(r->cancelled);
        QVERIFY(r->points.empty());
        auto m = runMarginalStudy(marginalStudyPreset(), src.get_token());
        QVERIFY(m.hasValue() && m->cancelled);
    }
};

QTEST_MAIN(TestLdpStudy)
#include "tst_ldp_study.moc"
