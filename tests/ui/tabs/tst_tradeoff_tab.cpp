// The Trade-off tab (ui/tabs/tradeoff_tab.h) inside the real window, offscreen: it computes only
// when shown, follows the document (new data → new curves; a new ε only moves the marker), a click
// on a point switches the document to that configuration and ε, the accuracy-first solver agrees
// with the closed forms, curves against the population scale as they must, and the CSV export
// holds every point.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <cmath>

#include "core/choosing/tradeoff.h"
#include "tests/ui/tabs/tradeoff_test_support.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/tabs/tradeoff_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;
using dpx::ui::test::curveIndex;
using dpx::ui::test::curvesDone;

class TestTradeoffView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    // Hidden: no curve jobs. Shown: the default configurations are computed (all exact for the
    // telemetry example) and Laplace identity L1 is k·Δ1/ε = 32/ε (closed form, 32 bins).
    void computesWhenShownAndMatchesClosedForm() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        ExplorerState s = w.document()->state();
        QVERIFY(applyAndWait(w, s));
        TradeoffTab* v = w.tradeoffView();
        QVERIFY(v->curves().empty());  // never shown yet: nothing computed
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 30000);
        const std::size_t li = curveIndex(*v, QStringLiteral("laplace:identity"));
        QVERIFY(li < v->curves().size());
        for (const CurvePoint& p : v->curves()[li].points) {
            QVERIFY(p.exact);
            QVERIFY2(std::abs(p.value - 32 / p.epsilon) <= 1e-9 * p.value,
                     qPrintable(QString::number(p.epsilon)));
        }
        QCOMPARE(v->grid().size(), std::size_t{25});
        QCOMPARE(v->grid().front(), 0.01);
        QCOMPARE(v->grid().back(), 10.0);
        // The frontier never lies above any curve.
        for (const FrontierPoint& fp : v->frontier().points) {
            for (const ErrorCurve& c : v->curves()) {
                const double y = curveValueAt(c, fp.epsilon);
                if (std::isfinite(y)) {
                    QVERIFY(fp.value <= y * (1 + 1e-7));
                }
            }
        }
        QVERIFY(!v->frontierLabel()->text().isEmpty());
    }

    // The tab follows the document: fewer bins → new curves (Laplace identity becomes 16/ε);
    // a new ε only moves the marker (no new curve job); on a hidden tab a change is remembered
    // and computed when the tab is shown again.
    void followsTheDocument() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        QVERIFY(applyAndWait(w, w.document()->state()));
        TradeoffTab* v = w.tradeoffView();
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 30000);

        QSignalSpy updates(v, &TradeoffTab::curvesUpdated);
        ExplorerState s = w.document()->state();
        s.mechanism.epsilon = 2;
        QVERIFY(applyAndWait(w, s));
        QVERIFY(w.engine()->runner()->waitForIdle(30000));
        // Only the window's own release/Monte Carlo jobs ran: no curve was recomputed.
        QCOMPARE(updates.count(), 0);
        QVERIFY(curvesDone(*v));

        s.data.binning.kind = BinningChoice::EqualWidth;
        s.data.binning.bins = 16;
        QVERIFY(applyAndWait(w, s));
        QTRY_VERIFY_WITH_TIMEOUT(
            curvesDone(*v) && std::abs(v->curves()[0].points[0].value - 16 / 0.01) < 1e-6, 30000);

        // Hidden: stale, nothing computed until shown.
        QVERIFY(w.showTab(QStringLiteral("histogram")));
        s = w.document()->state();
        s.data.binning.bins = 8;
        QVERIFY(applyAndWait(w, s));
        QVERIFY(w.engine()->runner()->waitForIdle(30000));
        QVERIFY(std::abs(v->curves()[0].points[0].value - 16 / 0.01) < 1e-6);  // not recomputed
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(
            curvesDone(*v) && std::abs(v->curves()[0].points[0].value - 8 / 0.01) < 1e-6, 30000);
    }

    // A real mouse click on a point of the Laplace/clamp curve switches the document to Laplace,
    // the clamp estimator and that point's ε; undo brings the previous configuration back.
    void clickOnAPointSwitchesTheDocument() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        QVERIFY(applyAndWait(w, w.document()->state()));
        TradeoffTab* v = w.tradeoffView();
        v->setSelectedConfigs({QStringLiteral("laplace:clamp"), QStringLiteral("gm:identity")});
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 30000);
        QCOMPARE(w.document()->state().mechanism.estimator, EstimatorKind::Identity);
        const std::size_t c = curveIndex(*v, QStringLiteral("laplace:clamp"));
        const std::size_t k = 22;  // ε ≈ 4.6: far from the GM curve
        v->plot()->replot();
        const QPoint at = v->pointPosition(c, k);
        QVERIFY(v->plot()->rect().contains(at));
        QTest::mouseClick(v->plot(), Qt::LeftButton, {}, at);
        QTRY_COMPARE_WITH_TIMEOUT(w.document()->state().mechanism.estimator, EstimatorKind::Clamp,
                                  5000);
        QCOMPARE(w.document()->state().mechanism.kind, MechanismChoice::Laplace);
        QCOMPARE(w.document()->state().mechanism.epsilon, v->grid()[k]);
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->state().mechanism.estimator, EstimatorKind::Identity);
        QCOMPARE(w.document()->state().mechanism.epsilon, 1.0);
    }

    // Accuracy first. Laplace identity: E[L1] = k/ε, so E[L1] ≤ 64 needs ε = 32/64 = 0.5; each
    // bin within ±10 w.p. 0.95 needs ε = ln(20)/10 (closed form, Pr[|Lap(b)| ≤ k] = 1 − e^(−k/b)).
    // "Use" switches the document; a configuration without an exact method is refused.
    void accuracyFirstSolves() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        QVERIFY(applyAndWait(w, w.document()->state()));
        TradeoffTab* v = w.tradeoffView();
        v->setSelectedConfigs(
            {QStringLiteral("laplace:identity"), QStringLiteral("laplace:resize")});
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        v->targetConfigCombo()->setCurrentIndex(
            v->targetConfigCombo()->findData(QStringLiteral("laplace:identity")));
        v->targetKindCombo()->setCurrentIndex(0);
        v->targetValueSpin()->setValue(64);
        v->solveButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(v->solvedEpsilon().has_value(), 10000);
        QVERIFY(std::abs(*v->solvedEpsilon() - 0.5) < 1e-5);
        QVERIFY(v->useSolutionButton()->isVisibleTo(v));
        v->useSolutionButton()->click();
        QVERIFY(std::abs(w.document()->state().mechanism.epsilon - 0.5) < 1e-5);

        v->targetKindCombo()->setCurrentIndex(2);
        v->targetKSpin()->setValue(10);
        v->targetQSpin()->setValue(0.95);
        v->solveButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(v->solvedEpsilon().has_value() &&
                                     std::abs(*v->solvedEpsilon() - std::log(20.0) / 10) < 1e-6,
                                 10000);

        // 5% of N = 500 records of L1: ε = 32/500.
        v->targetKindCombo()->setCurrentIndex(1);
        v->targetValueSpin()->setValue(5);
        v->solveButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(
            v->solvedEpsilon().has_value() && std::abs(*v->solvedEpsilon() - 32.0 / 500) < 1e-6,
            10000);

        v->targetConfigCombo()->setCurrentIndex(
            v->targetConfigCombo()->findData(QStringLiteral("laplace:resize")));
        v->targetKindCombo()->setCurrentIndex(0);
        v->solveButton()->click();
        QTRY_VERIFY2_WITH_TIMEOUT(
            v->solutionLabel()->text().startsWith(QStringLiteral("laplace:resize: ")),
            qPrintable(v->solutionLabel()->text()), 10000);
        QVERIFY(!v->solvedEpsilon().has_value());
        QVERIFY(v->solutionLabel()->text().contains(QStringLiteral("exact")));
        QVERIFY(!v->useSolutionButton()->isVisibleTo(v));
    }

    // Against N at the document's ε on the frequency scale: Laplace identity E[L1/N] = k/(εN),
    // so the curve falls as 1/N (the counts scale it would be flat). The CSV holds every point.
    void populationCurvesAndCsv() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        ExplorerState s = w.document()->state();
        s.view.scale = Scale::Frequencies;
        QVERIFY(applyAndWait(w, s));
        TradeoffTab* v = w.tradeoffView();
        v->setSelectedConfigs({QStringLiteral("laplace:identity"), QStringLiteral("gm:identity")});
        v->setAxis(TradeoffTab::Axis::Population);
        v->setPopulationRange(1000, 1e6, 7);
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 60000);
        const ErrorCurve& lap = v->curves()[curveIndex(*v, QStringLiteral("laplace:identity"))];
        QCOMPARE(lap.points.size(), std::size_t{7});
        for (const CurvePoint& p : lap.points) {
            QVERIFY2(std::abs(p.value - 32 / p.epsilon) <= 1e-9 * p.value,
                     qPrintable(QString::number(p.epsilon)));  // x = N, ε = 1
        }
        // GM handles bins of at most 2000 people: drawn at small N, missing (with the reason in
        // the status line) at large N, never a wrong number.
        const ErrorCurve& gm = v->curves()[curveIndex(*v, QStringLiteral("gm:identity"))];
        QVERIFY(gm.points.front().valid());
        QVERIFY(!gm.points.back().valid());
        QVERIFY(v->statusLabel()->text().contains(QStringLiteral("gm:identity: 4 of 7 points")));
        const QString csv = v->toCsv();
        QVERIFY(csv.startsWith(QStringLiteral("configuration,population,metric,scale,value")));
        QCOMPARE(csv.count(QLatin1Char('\n')), 1 + 7 * 2);
        QVERIFY(csv.contains(QStringLiteral("laplace:identity,1000,l1,frequencies,0.032")));
    }
};

QTEST_MAIN(TestTradeoffView)
#include "tst_tradeoff_tab.moc"
