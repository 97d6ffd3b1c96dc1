// The Histogram tab's intervals (issue #22) driven offscreen with a count mechanism (the truncated
// geometric matrix GM): the whiskers follow the level setting (the central L range of each noisy
// bin, checked against the matrix's column summed here by hand), the caption states the ± a
// release states (the worst true count), and with resize the estimate's interval is the pivot on
// the noisy count, [min(v, max(0, y − h)), max(v, max(0, y + h))], written out here.
#include <QApplication>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "core/count/count_mechanism.h"
#include "core/estimators/resize_estimator.h"
#include "core/intervals/intervals.h"
#include "core/mechanisms/privacy_guarantee.h"
#include "ui/tabs/histogram_tab.h"
#include "ui/widgets/number_format.h"

using namespace dpx;
using dpx::ui::HistogramTab;
using dpx::ui::ReleaseResult;

namespace {

// The central range [lo, hi] of column j at level L, by hand: lo the smallest i with
// Pr[Y ≤ i] ≥ (1 − L)/2, hi the largest with Pr[Y ≥ i] ≥ (1 − L)/2.
std::pair<double, double> centralRange(const CountMechanism& m, std::size_t j, double level) {
    const double tail = (1 - level) / 2;
    double below = 0, above = 0;
    std::size_t lo = 0, hi = m.size() - 1;
    for (std::size_t i = 0; i < m.size(); ++i) {
        below += m.at(i, j);
        if (below >= tail) {
            lo = i;
            break;
        }
    }
    for (std::size_t i = m.size(); i-- > 0;) {
        above += m.at(i, j);
        if (above >= tail) {
            hi = i;
            break;
        }
    }
    return {static_cast<double>(lo), static_cast<double>(hi)};
}

ReleaseResult gmRelease(const CountMechanism& gm) {
    ReleaseResult r;
    r.count = true;
    r.matrix = gm;
    r.mechanismTitle = QStringLiteral("Truncated geometric (GM), n = 20");
    r.guarantee = QStringLiteral("ε-DP with ε = 0.5 for each count");
    r.labels = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")};
    r.positions = {0, 1, 2, 3};
    r.truth = {0, 5, 10, 20};
    r.noisy = {3, 4, 0, 18};
    for (std::size_t i = 0; i < r.truth.size(); ++i) {  // the engine's 95 % band
        const auto [lo, hi] = centralRange(gm, static_cast<std::size_t>(r.truth[i]), 0.95);
        r.bandLo.push_back(lo);
        r.bandHi.push_back(hi);
    }
    r.estimates.assign(ui::allEstimators().size(), {});
    r.estimatorApplies.assign(ui::allEstimators().size(), true);
    return r;
}

// A Laplace(b = 2) draw of four bins (the window's central mechanism), true counts summing to
// 500 rows.
ReleaseResult laplaceRelease() {
    ReleaseResult r;
    r.calibrated =
        CalibratedMechanism{"laplace", NoiseDistribution::laplace(2.0), {}, 1, 1, {}, {}};
    r.mechanismTitle = QStringLiteral("Laplace");
    r.guarantee = QStringLiteral("ε-DP with ε = 0.5");
    r.labels = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")};
    r.positions = {0, 1, 2, 3};
    r.truth = {200, 150, 100, 50};
    r.noisy = {201.5, 148.25, 99, 52.5};
    r.bandLo = r.truth;
    r.bandHi = r.truth;
    r.estimates.assign(ui::allEstimators().size(), {});
    r.estimatorApplies.assign(ui::allEstimators().size(), true);
    return r;
}

}  // namespace

class TestHistogramIntervals : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void countMechanismFollowsLevel() {
        auto gm = truncatedGeometric(20, 0.5);
        QVERIFY(gm);
        HistogramTab tab;
        tab.setIntervalLevel(0.9);
        tab.setRelease(gmRelease(*gm), EstimatorKind::Identity, false, QString());
        QVERIFY2(tab.intervalText().contains(QStringLiteral("central 90 % range")),
                 qPrintable(tab.intervalText()));
        auto t = countMechanismIntervals(*gm, 4, 0.9);
        QVERIFY(t);
        QVERIFY2(
            tab.intervalText().contains(
                QStringLiteral("each bin ±%1").arg(ui::formatErrorValue(t->perBin.halfWidth, 4))),
            qPrintable(tab.intervalText()));
        for (int i = 0; i < 4; ++i) {
            const auto [lo, hi] =
                centralRange(*gm, static_cast<std::size_t>(gmRelease(*gm).truth[i]), 0.9);
            const QString text = tab.binText(i);
            QVERIFY2(text.contains(
                         QStringLiteral("90 % range of the noisy value: %1 … %2")
                             .arg(ui::formatLocaleNumber(lo, 6), ui::formatLocaleNumber(hi, 6))),
                     qPrintable(text));
        }
        // 99 % is wider than 90 % at an interior count.
        tab.setIntervalLevel(0.99);
        tab.setRelease(gmRelease(*gm), EstimatorKind::Identity, false, QString());
        const auto [lo99, hi99] = centralRange(*gm, 10, 0.99);
        const auto [lo90, hi90] = centralRange(*gm, 10, 0.9);
        QVERIFY(hi99 - lo99 > hi90 - lo90);
        QVERIFY(tab.binText(2).contains(
            QStringLiteral("99 % range of the noisy value: %1 … %2")
                .arg(ui::formatLocaleNumber(lo99, 6), ui::formatLocaleNumber(hi99, 6))));
    }

    void sampleOfPopulation();
    void resizeEstimateCarriesTheReleaseInterval() {
        auto gm = truncatedGeometric(20, 0.5);
        QVERIFY(gm);
        ReleaseResult r = gmRelease(*gm);
        const auto& all = ui::allEstimators();
        const auto e = static_cast<std::size_t>(
            std::find(all.begin(), all.end(), EstimatorKind::Resize) - all.begin());
        r.estimates[e] = resizeEstimate(r.noisy);
        HistogramTab tab;
        tab.setIntervalLevel(0.9);
        tab.setRelease(r, EstimatorKind::Resize, false, QString());
        const double h = countMechanismIntervals(*gm, 4, 0.9)->perBin.halfWidth;
        int covered = 0;
        for (int i = 0; i < 4; ++i) {
            const auto k = static_cast<std::size_t>(i);
            const double v = r.estimates[e][k], y = r.noisy[k];
            const double lo = std::min(v, std::max(0.0, y - h));
            const double hi = std::max(v, std::max(0.0, y + h));
            covered += lo <= r.truth[k] && r.truth[k] <= hi ? 1 : 0;
            const QString text = tab.binText(i);
            QVERIFY2(text.contains(
                         QStringLiteral("90 % interval a release states: %1 … %2")
                             .arg(ui::formatLocaleNumber(lo, 6), ui::formatLocaleNumber(hi, 6))),
                     qPrintable(text));
        }
        QVERIFY2(tab.intervalText().contains(QStringLiteral("here %1 of 4 cover").arg(covered)),
                 qPrintable(tab.intervalText()));
        // Identity: no estimate interval.
        tab.setRelease(r, EstimatorKind::Identity, false, QString());
        QVERIFY(!tab.binText(0).contains(QStringLiteral("a release states")));
    }
};

// Issue #22: "sample of N" adds the population estimate's sampling, DP noise and combined
// half-widths — computed from the NOISY counts (n̂ = their sum), as a release states them — to
// the caption (the largest bin) and to each bin's tooltip; 0 removes them; a population smaller
// than the data's rows is named.
void TestHistogramIntervals::sampleOfPopulation() {
    HistogramTab tab;
    tab.setRelease(laplaceRelease(), EstimatorKind::Identity, false, QString());
    QVERIFY(tab.samplingText().isEmpty());
    QVERIFY(!tab.binSampling(0));
    tab.setSamplePopulation(10000);
    const double nHat = 201.5 + 148.25 + 99 + 52.5;
    for (std::size_t i = 0; i < 4; ++i) {
        auto s = tab.binSampling(i);
        QVERIFY(s);
        auto expected = samplingIntervals(laplaceRelease().noisy[i], nHat, 10000,
                                          {CellNoiseKind::Laplace, 2.0}, 0.95);
        QVERIFY(expected);
        QCOMPARE(s->estimate, expected->estimate);
        QCOMPARE(s->sampling, expected->sampling);
        QCOMPARE(s->noise, expected->noise);
        QCOMPARE(s->combined, expected->combined);
        QVERIFY(tab.binText(static_cast<int>(i)).contains(QStringLiteral("combined ±")));
    }
    const auto big = tab.binSampling(0);
    QVERIFY2(tab.samplingText().contains(QStringLiteral("sampling ±") +
                                         ui::formatErrorValue(big->sampling, 4)),
             qPrintable(tab.samplingText()));
    QVERIFY(tab.samplingText().contains(QStringLiteral("both together ±") +
                                        ui::formatErrorValue(big->combined, 4)));
    // The level applies.
    tab.setIntervalLevel(0.99);
    tab.setRelease(laplaceRelease(), EstimatorKind::Identity, false, QString());
    QVERIFY(tab.binSampling(0)->combined > big->combined);
    QVERIFY(tab.samplingText().contains(QString::fromStdString(levelPercentText(0.99))));
    if (qEnvironmentVariableIsSet("DPX_SCREENSHOT_DIR")) {  // to look at it (not a check)
        for (const QSize size : {QSize(1024, 600), QSize(1600, 800)}) {
            tab.resize(size);
            tab.show();
            QCoreApplication::processEvents();
            tab.grab().save(qEnvironmentVariable("DPX_SCREENSHOT_DIR") +
                            QStringLiteral("/histogram-sample-%1.png").arg(size.width()));
        }
    }
    // Smaller than the data: named, no numbers.
    tab.setSamplePopulation(400);
    QVERIFY2(tab.samplingText().contains(QStringLiteral("cannot be smaller")),
             qPrintable(tab.samplingText()));
    tab.setSamplePopulation(0);
    QVERIFY(tab.samplingText().isEmpty());
    QVERIFY(!tab.binText(0).contains(QStringLiteral("combined")));
}

QTEST_MAIN(TestHistogramIntervals)
#include "tst_histogram_intervals.moc"
