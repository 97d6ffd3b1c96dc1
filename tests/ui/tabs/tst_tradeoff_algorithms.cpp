// The workload algorithms of issue #20 as rows of the Trade-off tab (ui/tabs/tradeoff_tab.h),
// inside the real window, offscreen: checking an algorithm draws its curve (HB exact: the
// least-squares trace of core/workload/strategy.h on the identity workload; DAWA Monte Carlo,
// refined to kAlgorithmRefineRuns runs), the curves take part in the frontier, the legend names
// the algorithm, the CSV holds the points, the selection round-trips through a session, a click
// on an algorithm point leaves the document alone and says how to reproduce it, and a table of
// two attributes offers the 2-D algorithms (HB2D exact on its 8 × 8 cells).
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLocale>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <cmath>

#include "core/choosing/tradeoff.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"
#include "tests/testing/test_support.h"
#include "tests/ui/tabs/tradeoff_test_support.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/model/explorer_state.h"
#include "ui/tabs/tradeoff_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;
using dpx::ui::test::curveIndex;
using dpx::ui::test::curvesDone;

namespace {

double exactSse(const LinearStrategy& s, const DomainShape& shape, double epsilon) {
    auto w = Workload::make(WorkloadSpec{}, shape);
    return expectedLeastSquaresError(s, *w, epsilon)->totalSquared;
}

bool legendHas(QCustomPlot* plot, const QString& name) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name().startsWith(name)) {
            return true;
        }
    }
    return false;
}

}  // namespace

class TestTradeoffAlgorithms : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    void oneDimensionalRows() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        QVERIFY(applyAndWait(w, w.document()->state()));
        TradeoffTab* v = w.tradeoffView();
        const std::size_t bins = w.engine()->dataset().histogram->size();
        // A 1-D table offers the 1-D algorithms only.
        QVERIFY(v->offeredAlgorithms().contains(QStringLiteral("HB")));
        QVERIFY(v->offeredAlgorithms().contains(QStringLiteral("DAWA")));
        QVERIFY(!v->offeredAlgorithms().contains(QStringLiteral("HB2D")));
        QVERIFY(v->algorithmCheckBox(QStringLiteral("hb"))->isVisibleTo(v));
        QVERIFY(!v->algorithmCheckBox(QStringLiteral("DAWA2D"))->isVisibleTo(v));
        QVERIFY(v->algorithmCheckBox(QStringLiteral("UGrid"))->text().contains(QChar(0x2020)));

        v->setMetric(Metric::SSE);
        v->setSelectedConfigs({QStringLiteral("algo:hb"), QStringLiteral("algo:dawa")});
        QVERIFY(w.document()->state().tradeoff.configs.contains(QStringLiteral("algo:dawa")));
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 120000);
        const std::size_t hb = curveIndex(*v, QStringLiteral("algo:hb"));
        const std::size_t dawa = curveIndex(*v, QStringLiteral("algo:dawa"));
        QVERIFY(hb < v->curves().size() && dawa < v->curves().size());
        QVERIFY2(v->curveErrors()[hb].isEmpty(), qPrintable(v->curveErrors()[hb]));
        auto strategy = hbStrategy({bins});
        QVERIFY(strategy);
        for (const CurvePoint& p : v->curves()[hb].points) {
            QVERIFY(p.exact);
            const double ref = exactSse(**strategy, {bins}, p.epsilon);
            QVERIFY(std::abs(p.value - ref) <= 1e-12 * ref);
        }
        for (const CurvePoint& p : v->curves()[dawa].points) {
            QVERIFY(p.valid() && !p.exact);
            QCOMPARE(p.trials, TradeoffTab::kAlgorithmRefineRuns);
            QVERIFY(p.ciLow < p.value && p.value < p.ciHigh);
        }
        // Both take part in the frontier, which never lies above either curve.
        QVERIFY(!v->frontier().points.empty());
        for (const FrontierPoint& fp : v->frontier().points) {
            QVERIFY(fp.curve == hb || fp.curve == dawa);
            for (const ErrorCurve& c : v->curves()) {
                const double y = curveValueAt(c, fp.epsilon);
                if (std::isfinite(y)) {
                    QVERIFY(fp.value <= y * (1 + 1e-7));
                }
            }
        }
        QVERIFY(legendHas(v->plot(), QStringLiteral("HB")));
        QVERIFY(legendHas(v->plot(), QStringLiteral("DAWA · MC")));
        const QString csv = v->toCsv();
        QVERIFY(csv.contains(QStringLiteral("\nalgo:hb,0.01,sse,counts,")));
        QVERIFY(csv.contains(QStringLiteral("\nalgo:dawa,10,sse,counts,")));

        // The selection round-trips through a session.
        const ExplorerState saved = w.document()->state();
        auto back = ExplorerState::fromJson(saved.toJson());
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(back->tradeoff.configs, saved.tradeoff.configs);
        QVERIFY(back->tradeoff.configs.contains(QStringLiteral("algo:hb")));
        // Session ids: an algorithm at its defaults; unknown ids and parameter lists are refused.
        QVERIFY(isTradeoffConfigId(QStringLiteral("algo:dawa2d")));
        QVERIFY(!isTradeoffConfigId(QStringLiteral("algo:nosuch")));
        QVERIFY(!isTradeoffConfigId(QStringLiteral("algo:mwem(rounds=20)")));
        ExplorerState bad = saved;
        bad.tradeoff.configs = {QStringLiteral("algo:nosuch")};
        DPX_VERIFY_ERROR(bad.tradeoff.validate(), "algo:ID");

        // A click on an algorithm's point: the document keeps its mechanism and ε, the note says
        // how to reproduce the point.
        const ExplorerState before = w.document()->state();
        v->plot()->replot();
        const QPoint at = v->pointPosition(dawa, 20);
        QVERIFY(v->plot()->rect().contains(at));
        QTest::mouseClick(v->plot(), Qt::LeftButton, {}, at);
        QTRY_VERIFY_WITH_TIMEOUT(v->algorithmNoteLabel()->isVisibleTo(v), 5000);
        const QString note = v->algorithmNoteLabel()->text();
        QVERIFY2(note.contains(QStringLiteral("dpx workload")), qPrintable(note));
        QVERIFY2(note.contains(QStringLiteral("--algorithm DAWA")), qPrintable(note));
        QCOMPARE(w.document()->state().mechanism.kind, before.mechanism.kind);
        QCOMPARE(w.document()->state().mechanism.epsilon, before.mechanism.epsilon);

        // The accuracy-first solver: HB is exact (SSE); DAWA is refused with the reason.
        v->targetConfigCombo()->setCurrentIndex(
            v->targetConfigCombo()->findData(QStringLiteral("algo:dawa")));
        v->targetValueSpin()->setValue(100);
        v->solveButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(
            v->solutionLabel()->text().contains(QStringLiteral("data-dependent")), 10000);
        v->targetConfigCombo()->setCurrentIndex(
            v->targetConfigCombo()->findData(QStringLiteral("algo:hb")));
        v->solveButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(v->solvedEpsilon().has_value(), 10000);
        QVERIFY(!v->useSolutionButton()->isVisibleTo(v));  // no algorithm mechanism to switch to
    }

    void twoDimensionalTableOffersTheTwoDimensionalAlgorithms() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString csv = dir.filePath(QStringLiteral("grid.csv"));
        {
            QFile f(csv);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
            QTextStream out(&f);
            out << "a,b\n";
            for (int i = 0; i < 2000; ++i) {
                out << (i * 7) % 8 << "," << (i / 3) % 8 << "\n";
            }
        }
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        QVERIFY(dpx::ui::test::waitForData(w));
        ExplorerState s = w.document()->state();
        s.data.source = SourceKind::Csv;
        s.data.csvPath = csv;
        s.data.column = QStringLiteral("a");
        ColumnBinning eight;
        eight.kind = BinningChoice::Integer;
        eight.rangeLo = 0;
        eight.rangeHi = 7;
        s.data.binning = eight;
        s.data.moreColumns.push_back({QStringLiteral("b"), eight});
        QVERIFY(applyAndWait(w, s));
        QVERIFY2(w.engine()->dataset().error.isEmpty(), qPrintable(w.engine()->dataset().error));
        QCOMPARE(w.engine()->dataset().histogram->size(), std::size_t{64});
        TradeoffTab* v = w.tradeoffView();
        QVERIFY(v->offeredAlgorithms().contains(QStringLiteral("HB2D")));
        QVERIFY(v->offeredAlgorithms().contains(QStringLiteral("DAWA2D")));
        QVERIFY(v->offeredAlgorithms().contains(QStringLiteral("Identity")));
        QVERIFY(!v->offeredAlgorithms().contains(QStringLiteral("HB")));
        QVERIFY(v->algorithmCheckBox(QStringLiteral("HB2D"))->isVisibleTo(v));
        QVERIFY(!v->algorithmCheckBox(QStringLiteral("HB"))->isVisibleTo(v));

        v->setMetric(Metric::SSE);
        v->setSelectedConfigs({QStringLiteral("algo:hb2d"), QStringLiteral("algo:ugrid")});
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 120000);
        const std::size_t hb = curveIndex(*v, QStringLiteral("algo:hb2d"));
        QVERIFY(hb < v->curves().size());
        QVERIFY2(v->curveErrors()[hb].isEmpty(), qPrintable(v->curveErrors()[hb]));
        auto strategy = hbStrategy({8, 8});
        QVERIFY(strategy);
        for (const CurvePoint& p : v->curves()[hb].points) {
            QVERIFY(p.exact);
            const double ref = exactSse(**strategy, {8, 8}, p.epsilon);
            QVERIFY(std::abs(p.value - ref) <= 1e-12 * ref);
        }
        const std::size_t ug = curveIndex(*v, QStringLiteral("algo:ugrid"));
        QVERIFY(ug < v->curves().size());
        QVERIFY(v->curves()[ug].points.front().valid());
        // UGrid uses the total as public: said next to its curve.
        QVERIFY(legendHas(v->plot(), QStringLiteral("UGrid †")));
        QVERIFY(v->statusLabel()->text().contains(QStringLiteral("as public")));
    }
};

QTEST_MAIN(TestTradeoffAlgorithms)
#include "tst_tradeoff_algorithms.moc"
