// The DP Explorer window (ui/main_window.h), driven offscreen: exact errors for the seed 000
// example, ε typed into the panel recomputes the plots and errors, invalid values are refused
// inline, switching to a count mechanism switches the matrix tab to a heatmap whose data is the
// core matrix, an LP solve can be cancelled while the GUI keeps processing events, undo restores
// the previous release, and sessions round-trip.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "core/count/count_mechanism.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/panels/data_panel.h"
#include "ui/panels/mechanism_panel.h"
#include "ui/panels/pg_dialog.h"
#include "ui/tabs/budget_tab.h"
#include "ui/tabs/errors_tab.h"
#include "ui/tabs/histogram_tab.h"
#include "ui/tabs/matrix/matrix_tab.h"
#include "ui/tabs/risk_tab.h"
#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/plot_refresh.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;

namespace {

// Applies a state and waits until its release is on screen.
// The two-bin example of Kerrigan 2019 (example id "seed000") at ε = eps.
ExplorerState kerriganTwoBins(double eps) {
    ExplorerState s;
    s.data.exampleId = QStringLiteral("seed000");
    s.mechanism.epsilon = eps;
    return s;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's own
    }

    // The budget plan lives in the document: a plan applied to the document is shown, an edit in
    // the view becomes one undo step, and undo shows the previous plan again.
    void budgetPlanFollowsTheDocument() {
        MainWindow w;
        w.show();
        ExplorerState s = w.document()->state();
        s.budget.plan.epsilon = 2;
        s.budget.plan.rows = {
            {QStringLiteral("hour"), 32, QStringLiteral("laplace"), 1, QStringLiteral("none"), 0},
            {QStringLiteral("hour"), 8, QStringLiteral("gaussian"), 3, QStringLiteral("none"), 0}};
        QVERIFY(applyAndWait(w, s));
        BudgetTab* v = w.budgetView();
        // Plans are computed on the runner (with the privacy profile; 5 s was too short at load
        // 12).
        QTRY_VERIFY_WITH_TIMEOUT(!v->busy(), 30000);
        QCOMPARE(v->plan().statistics.size(), std::size_t(2));
        QVERIFY(v->result().has_value());
        // Weights 1 : 3 of ε = 2 (basic): 0.5 and 1.5.
        QCOMPARE(v->result()->statistics[0].epsilon, 0.5);
        QCOMPARE(v->result()->statistics[1].epsilon, 1.5);

        v->addStatistic(QStringLiteral("hour"));
        QTRY_COMPARE_WITH_TIMEOUT(w.document()->state().budget.plan.rows.size(), std::size_t(3),
                                  30000);
        QCOMPARE(w.document()->undoStack()->undoText(), QStringLiteral("budget plan"));
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->state().budget.plan.rows.size(), std::size_t(2));
        QTRY_VERIFY_WITH_TIMEOUT(!v->busy(), 30000);
        QCOMPARE(v->plan().statistics.size(), std::size_t(2));
        QCOMPARE(v->result()->statistics[1].epsilon, 1.5);
    }

    // Seed 000 §3.3, H = [0, 16], ε = 0.1 (Laplace b = 10): identity E[SSE] = 2·2b² = 400;
    // clamp Σ 2b² − e^{−h/b}(hb + b²) = 247.5069053213896 (closed forms).
    void showsExactErrorsForKerriganTwoBins() {
        MainWindow w;
        w.show();
        QVERIFY(applyAndWait(w, kerriganTwoBins(0.1)));
        const ReleaseResult& r = w.engine()->release();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(r.expected[0][0].exact);
        QVERIFY(std::abs(r.expected[0][0].value - 400) < 1e-9);
        QVERIFY(std::abs(r.expected[1][0].value - 247.5069053213896) < 1e-9);
        // The Errors tab shows them.
        QTRY_VERIFY_WITH_TIMEOUT(w.errorsView()->toCsv().contains(QStringLiteral("247.50690")),
                                 10000);
    }

    // Typing ε = 1 in the panel recomputes off the GUI thread: identity E[SSE] = 2·2/ε² = 4,
    // and the plotted noisy bars change.
    void typedEpsilonRecomputes() {
        MainWindow w;
        w.show();
        QVERIFY(applyAndWait(w, kerriganTwoBins(0.1)));
        const QVector<double> before = w.histogramView()->plottedNoisy();
        QLineEdit* edit = w.mechanismPanel()->epsilonField()->lineEdit();
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        edit->setText(QStringLiteral("1"));
        Q_EMIT edit->editingFinished();
        QVERIFY(shown.wait(30000));
        QCOMPARE(w.document()->state().mechanism.epsilon, 1.0);
        QVERIFY(std::abs(w.engine()->release().expected[0][0].value - 4) < 1e-9);
        QVERIFY(w.histogramView()->plottedNoisy() != before);
    }

    // Only the current tab's plots are redrawn on a change; a hidden tab's plot is marked stale
    // and replots when its tab is shown, with the current numbers.
    void hiddenTabsReplotWhenShown() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(applyAndWait(w, kerriganTwoBins(0.1)));
        QVERIFY(w.showTab(QStringLiteral("histogram")));
        QCustomPlot* hist = w.histogramView()->plot();
        QCustomPlot* errs = w.errorsView()->histogramPlot();
        QVERIFY(hist->isVisible());
        QVERIFY(!errs->isVisible());
        QSignalSpy histReplots(hist, &QCustomPlot::afterReplot);
        QSignalSpy errsReplots(errs, &QCustomPlot::afterReplot);
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        QVERIFY(w.document()->setEpsilon(1).hasValue());
        QVERIFY(shown.wait(30000));
        QTRY_VERIFY_WITH_TIMEOUT(!w.engine()->busy(), 60000);  // Monte Carlo passes too
        QVERIFY(histReplots.count() >= 1);
        QCOMPARE(errsReplots.count(), 0);
        QVERIFY(dpx::ui::replotPending(errs));
        QVERIFY(!dpx::ui::replotPending(hist));
        QVERIFY(w.showTab(QStringLiteral("errors")));
        QTRY_VERIFY_WITH_TIMEOUT(errsReplots.count() >= 1, 5000);
        QVERIFY(!dpx::ui::replotPending(errs));
        // ε = 1 on [0, 16] (b = 1): clamp E[SSE] = 2·2b² − b² − e^{−16}(16b + b²)
        // = 3 − 17e^{−16} = 2.999998087… (seed 000 §3.3 closed form), in the table now shown.
        QVERIFY2(w.errorsView()->toCsv().contains(QStringLiteral("2.999998087")),
                 qPrintable(w.errorsView()->toCsv()));
    }

    void invalidEpsilonIsRefused() {
        MainWindow w;
        w.show();
        QVERIFY(applyAndWait(w, kerriganTwoBins(0.5)));
        QLineEdit* edit = w.mechanismPanel()->epsilonField()->lineEdit();
        QLabel* message = w.mechanismPanel()->messageLabel();
        edit->setText(QStringLiteral("0.001"));
        Q_EMIT edit->editingFinished();
        QVERIFY(!message->isHidden());
        QVERIFY2(message->text().contains(QStringLiteral("ε must be between")),
                 qPrintable(message->text()));
        QCOMPARE(w.document()->state().mechanism.epsilon, 0.5);  // nothing accepted
        edit->setText(QStringLiteral("abc"));
        Q_EMIT edit->editingFinished();
        QVERIFY(message->text().contains(QStringLiteral("not a number")));
        QCOMPARE(w.document()->state().mechanism.epsilon, 0.5);
        edit->setText(QStringLiteral("2"));
        Q_EMIT edit->editingFinished();
        QVERIFY(message->isHidden());
        QCOMPARE(w.document()->state().mechanism.epsilon, 2.0);
    }

    // A count mechanism puts its matrix on the matrix tab: the heatmap's cells are the core's
    // truncated geometric matrix (n = 16, the largest count of [0, 16]); back to Laplace, the tab
    // shows the noise distribution.
    void countMechanismShowsItsMatrix() {
        MainWindow w;
        w.show();
        ExplorerState s = kerriganTwoBins(0.7);
        s.mechanism.kind = MechanismChoice::CountGeometric;
        QVERIFY(applyAndWait(w, s));
        QVERIFY2(w.engine()->release().error.isEmpty(), qPrintable(w.engine()->release().error));
        QCOMPARE(w.matrixView()->currentPage(), MatrixTab::Page::Matrix);
        const auto gm = truncatedGeometric(16, 0.7);
        QVERIFY(gm.hasValue());
        for (int j : {0, 3, 16}) {
            for (int i : {0, 5, 16}) {
                QCOMPARE(w.matrixView()->cellValue(j, i),
                         gm->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j)));
            }
        }
        s.mechanism.kind = MechanismChoice::Laplace;
        QVERIFY(applyAndWait(w, s));
        QCOMPARE(w.matrixView()->currentPage(), MatrixTab::Page::Noise);
    }

    // An LP that takes long (n = 400 at ε = 0.01) can be cancelled from the status bar while the
    // GUI thread keeps running its event loop; nothing is shown as a result of the cancelled job.
    void lpSolveCanBeCancelled() {
        MainWindow w;
        w.show();
        ExplorerState s = kerriganTwoBins(0.01);
        s.mechanism.kind = MechanismChoice::CountOptimal;
        s.mechanism.countN = 400;
        s.mechanism.lp.constraints = {QStringLiteral("wh"), QStringLiteral("cm")};
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QTRY_VERIFY_WITH_TIMEOUT(w.engine()->runner()->isRunning(QStringLiteral("release")), 20000);
        // The event loop turns while the LP runs: a timer fires on time.
        QElapsedTimer clock;
        clock.start();
        QTest::qWait(300);
        QVERIFY(clock.elapsed() < 2000);
        QVERIFY(w.engine()->runner()->isRunning(QStringLiteral("release")));
        w.engine()->runner()->cancelLong();
        QVERIFY(!w.engine()->runner()->isRunning(QStringLiteral("release")));
        QVERIFY(w.engine()->runner()->waitForIdle(10000));
    }

    // Undo restores the previous state and its release.
    void undoRestoresTheRelease() {
        MainWindow w;
        w.show();
        QVERIFY(applyAndWait(w, kerriganTwoBins(0.1)));
        QVERIFY(applyAndWait(w, kerriganTwoBins(1.0)));
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        w.document()->undoStack()->undo();
        QVERIFY(shown.wait(30000));
        QCOMPARE(w.document()->state().mechanism.epsilon, 0.1);
        QVERIFY(std::abs(w.engine()->release().expected[0][0].value - 400) < 1e-9);
    }

    void sessionRoundTripThroughTheWindow() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        ExplorerState s = kerriganTwoBins(0.3);
        s.mechanism.kind = MechanismChoice::CountExplicitFair;
        s.view.tab = QStringLiteral("matrix");
        {
            MainWindow w;
            QVERIFY(applyAndWait(w, s));
            QVERIFY(w.document()->saveSession(path));
        }
        MainWindow w2;
        w2.show();
        QSignalSpy shown(&w2, &MainWindow::releaseShown);
        QVERIFY(w2.openSession(path));
        QVERIFY(shown.wait(30000));
        QCOMPARE(w2.document()->state(), s);
        QCOMPARE(w2.tabs()->currentIndex(), 1);
        QVERIFY(w2.engine()->release().matrix.has_value());
    }

    // A CSV with a ragged row is refused with the line in the message; a good one is binned.
    void csvFilesThroughTheWindow() {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.csv"));
        const QString good = dir.filePath(QStringLiteral("good.csv"));
        QFile b(bad);
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write("name,age\nann,34\nbob\n");
        b.close();
        QFile g(good);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("name,age\nann,34\nbob,41\ncid,34\n");
        g.close();
        MainWindow w;
        w.show();
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        QVERIFY(w.openCsv(bad));
        QVERIFY(shown.wait(30000));
        QVERIFY2(w.engine()->release().error.contains(QStringLiteral("line 3")),
                 qPrintable(w.engine()->release().error));
        QVERIFY(w.engine()->dataset().error.contains(QStringLiteral("line 3")));
        ExplorerState s = w.document()->state();
        s.data.csvPath = good;
        s.data.column = QStringLiteral("age");
        QVERIFY(applyAndWait(w, s));
        const ReleaseResult& r = w.engine()->release();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(w.engine()->dataset().rows, qint64(3));
        QVERIFY(!w.openCsv(dir.filePath(QStringLiteral("missing.csv"))));
    }

    // CSV import options through the window: a semicolon file without a header, a ragged row
    // skipped and reported in the panel; with "stop" the same row is the error, in the panel and
    // the views; automatic bins say their range came from the data.
    // The status bar's Cancel during a file load: the panel and the views say the load was
    // cancelled (no hang waiting for a dataset that never comes), and Reload loads it again.
    // The panel's plain reading: pure DP e^ε/(1+e^ε) for a 50% prior (ε = 1 → 73.1%); with δ the
    // bound of core/choosing/risk.h at ε + ln 2 with its failure probability 2δ (ε = 0.5, δ = 1e-6:
    // e^1.193/(1 + e^1.193) = 76.7%), never the pure number with "except with probability δ".
    void plainReadingStatesTheRightBound() {
        ExplorerState s;
        s.mechanism.kind = MechanismChoice::Laplace;
        s.mechanism.epsilon = 1;
        QString text = plainReading(s);
        QVERIFY2(text.contains(QStringLiteral("73.1%")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("except")), qPrintable(text));
        s.mechanism.kind = MechanismChoice::Gaussian;
        s.mechanism.epsilon = 0.5;
        s.mechanism.delta = 1e-6;
        text = plainReading(s);
        QVERIFY2(text.contains(QStringLiteral("76.7%")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("2e-06")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("plus at most δ")), qPrintable(text));
    }

    void cancelledLoadCanBeReloaded() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.csv"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("id,value\n");
        QByteArray chunk;
        for (int i = 0; i < 200000; ++i) {
            chunk += QByteArray::number(i) + ',' + QByteArray::number(i % 97) + '\n';
        }
        f.write(chunk);
        f.close();
        MainWindow w;
        w.show();
        QVERIFY(applyAndWait(w, kerriganTwoBins(1)));
        ExplorerState s = w.document()->state();
        s.data.source = SourceKind::Csv;
        s.data.csvPath = path;
        s.data.column = QStringLiteral("value");
        s.data.binning.kind = BinningChoice::EqualWidth;
        s.data.binning.rangeLo = 0;
        s.data.binning.rangeHi = 100;
        s.data.binning.bins = 10;
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        QVERIFY(w.document()->apply(s, QStringLiteral("open big")).hasValue());
        QVERIFY(w.engine()->runner()->isRunning(QStringLiteral("data")));
        w.engine()->runner()->cancelLong();  // what the status bar's Cancel button does
        QTRY_VERIFY_WITH_TIMEOUT(w.engine()->dataset().error.contains(QStringLiteral("cancelled")),
                                 10000);
        QVERIFY(shown.wait(10000) || !shown.isEmpty());
        QVERIFY(w.engine()->release().error.contains(QStringLiteral("cancelled")));
        QVERIFY(w.dataPanel()->messageLabel()->text().contains(QStringLiteral("cancelled")));
        shown.clear();
        Q_EMIT w.dataPanel()->reloadRequested();
        QVERIFY(shown.wait(30000));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QCOMPARE(d.histogram->total(), std::int64_t{200000});
        QVERIFY(w.engine()->release().error.isEmpty());
    }

    void csvOptionsThroughTheWindow() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("semi.csv"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("ann;34\nbob;41;extra\ncid;36\ndan;\neve;300\n");
        f.close();
        MainWindow w;
        w.show();
        ExplorerState s = w.document()->state();
        s.data.source = SourceKind::Csv;
        s.data.csvPath = path;
        s.data.csvOptions.delimiter = QStringLiteral("semicolon");
        s.data.csvOptions.header = false;
        s.data.csvOptions.skipBadRows = true;
        s.data.column = QStringLiteral("column 2");
        s.data.binning.kind = BinningChoice::EqualWidth;
        s.data.binning.rangeLo = 0;
        s.data.binning.rangeHi = 100;
        s.data.binning.bins = 4;
        QVERIFY(applyAndWait(w, s));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QCOMPARE(d.columns, (QStringList{QStringLiteral("column 1"), QStringLiteral("column 2")}));
        QCOMPARE(d.rows, qint64(5));
        QCOMPARE(d.skipped.size(), std::size_t{1});
        QCOMPARE(d.skipped[0].first, QStringLiteral("ragged row"));
        QCOMPARE(d.skipped[0].second, qint64(1));
        QCOMPARE(d.histogram->counts(), (std::vector<std::int64_t>{0, 2, 0, 0}));
        QVERIFY(!d.dataDependent);
        const QString summary = w.dataPanel()->summaryLabel()->text();
        QVERIFY2(summary.contains(QStringLiteral("ragged row: 1")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("1 missing value")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("above the range dropped")), qPrintable(summary));
        QVERIFY(w.dataPanel()->dataRangeLabel()->isHidden());
        // Stop at the bad row: its line is the message, in the panel and the views.
        s.data.csvOptions.skipBadRows = false;
        QVERIFY(applyAndWait(w, s));
        QVERIFY2(w.engine()->dataset().error.contains(QStringLiteral("line 2")),
                 qPrintable(w.engine()->dataset().error));
        QVERIFY(w.dataPanel()->messageLabel()->isVisibleTo(w.dataPanel()));
        QVERIFY(w.dataPanel()->messageLabel()->text().contains(QStringLiteral("line 2")));
        QVERIFY(w.engine()->release().error.contains(QStringLiteral("line 2")));
        // Automatic bins: a first pass reads the range, and the panel says it is data-dependent.
        s.data.csvOptions.skipBadRows = true;
        s.data.binning.kind = BinningChoice::Auto;
        s.data.binning.rangeLo = s.data.binning.rangeHi = 0;
        QVERIFY(applyAndWait(w, s));
        const DatasetResult& a = w.engine()->dataset();
        QVERIFY2(a.error.isEmpty(), qPrintable(a.error));
        QVERIFY(a.dataDependent);
        QVERIFY2(a.dataDependentText.contains(QStringLiteral("[34, 300]")),
                 qPrintable(a.dataDependentText));
        QVERIFY(w.dataPanel()->dataRangeLabel()->isVisibleTo(w.dataPanel()));
        QCOMPARE(a.histogram->total(), std::int64_t{3});
        // Undo goes back to the stopped load's state.
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        w.document()->undoStack()->undo();
        QVERIFY(shown.wait(30000));
        QVERIFY(!w.document()->state().data.csvOptions.skipBadRows);
    }

    // Issue #17 item 11: ±Infinity in a SQLite REAL column is a bad value in the window too, under
    // the same stop/skip policy as a CSV file (the data panel offers it for databases), and the
    // summary counts against every row read ("2 of 4 rows counted", was "2 of 2").
    void sqliteInfinitiesFollowTheBadValuePolicy() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("inf.db"));
        {
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("tst-inf"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("CREATE TABLE t (x REAL)")));
            QVERIFY(q.exec(QStringLiteral("INSERT INTO t VALUES (1.5), (9e999), (-9e999), (2.5)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("tst-inf"));
        MainWindow w;
        w.show();
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        QVERIFY(w.openSqlite(path));
        QVERIFY(shown.wait(30000));
        ExplorerState s = w.document()->state();
        s.data.column = QStringLiteral("x");
        s.data.binning.kind = BinningChoice::EqualWidth;
        s.data.binning.rangeLo = 0;
        s.data.binning.rangeHi = 4;
        s.data.binning.bins = 2;
        s.data.csvOptions.skipBadRows = false;
        QVERIFY(applyAndWait(w, s));
        // Stop (the default): an error naming the reason, not infinities clamped into the end bins.
        QVERIFY2(w.engine()->dataset().error.contains(QStringLiteral("not a number")),
                 qPrintable(w.engine()->dataset().error));
        auto* box = w.dataPanel()->findChild<QComboBox*>(QStringLiteral("sqlBadValuesBox"));
        QVERIFY(box && box->isVisibleTo(w.dataPanel()));
        QCOMPARE(box->currentIndex(), 0);
        // Skip: the two infinities are counted as skipped, not as data.
        s.data.csvOptions.skipBadRows = true;
        QVERIFY(applyAndWait(w, s));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QCOMPARE(d.histogram->counts(), (std::vector<std::int64_t>{1, 1}));
        QVERIFY2(d.reportText.startsWith(QStringLiteral("2 of 4 rows counted")),
                 qPrintable(d.reportText));
        QVERIFY2(d.reportText.contains(QStringLiteral("not a number")), qPrintable(d.reportText));
        QCOMPARE(box->currentIndex(), 1);
    }

    // A SQLite file through the window: tables and columns listed, declared bins counted by SQLite,
    // an unknown table is a clear message.
    void sqliteThroughTheWindow() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("survey.db"));
        {
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("tst-fill"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(
                q.exec(QStringLiteral("CREATE TABLE people (person INTEGER, age INTEGER, "
                                      "state TEXT)")));
            QVERIFY(q.exec(QStringLiteral("CREATE TABLE empty_one (x REAL)")));
            QVERIFY(q.exec(QStringLiteral(
                "INSERT INTO people VALUES (1, 34, 'CA'), (1, 35, 'CA'), (1, 36, 'CA'), "
                "(2, 70, 'NY'), (3, NULL, 'TX'), (4, 120, 'CA')")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("tst-fill"));
        MainWindow w;
        w.show();
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        QVERIFY(w.openSqlite(path));
        QVERIFY(shown.wait(30000));
        // The first table is chosen; it is empty, so automatic bins have no range to take.
        const DatasetResult& d = w.engine()->dataset();
        QCOMPARE(d.tables, (QStringList{QStringLiteral("empty_one"), QStringLiteral("people")}));
        QVERIFY2(d.error.contains(QStringLiteral("no numbers")), qPrintable(d.error));
        ExplorerState s = w.document()->state();
        QCOMPARE(s.data.source, SourceKind::Sqlite);
        s.data.sqlTable = QStringLiteral("people");
        s.data.column = QStringLiteral("age");
        s.data.binning.kind = BinningChoice::EqualWidth;
        s.data.binning.rangeLo = 0;
        s.data.binning.rangeHi = 100;
        s.data.binning.bins = 2;
        QVERIFY(applyAndWait(w, s));
        const DatasetResult& p = w.engine()->dataset();
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(w.dataPanel()->tableBox()->currentText(), QStringLiteral("people"));
        QCOMPARE(p.columns, (QStringList{QStringLiteral("person"), QStringLiteral("age"),
                                         QStringLiteral("state")}));
        QCOMPARE(p.histogram->counts(), (std::vector<std::int64_t>{3, 1}));
        QCOMPARE(p.rows, qint64(6));
        QVERIFY(w.engine()->release().error.isEmpty());
        // Automatic: the range from one aggregate query, flagged as data-dependent.
        s.data.binning.kind = BinningChoice::Auto;
        s.data.binning.rangeLo = s.data.binning.rangeHi = 0;
        QVERIFY(applyAndWait(w, s));
        QVERIFY(w.engine()->dataset().dataDependent);
        QVERIFY(w.engine()->dataset().dataDependentText.contains(QStringLiteral("[34, 120]")));
        // Declared categories with "other".
        s.data.column = QStringLiteral("state");
        s.data.binning.kind = BinningChoice::Categories;
        s.data.binning.categories = {QStringLiteral("CA"), QStringLiteral("NY")};
        s.data.binning.unknownCategory = UnknownCategory::Other;
        QVERIFY(applyAndWait(w, s));
        QCOMPARE(w.engine()->dataset().histogram->counts(), (std::vector<std::int64_t>{4, 1, 1}));
        QVERIFY(!w.engine()->dataset().dataDependent);
        // An unknown table: the message names the tables there are.
        s.data.sqlTable = QStringLiteral("nope");
        QVERIFY(applyAndWait(w, s));
        QVERIFY2(w.engine()->dataset().error.contains(QStringLiteral("no table 'nope'")),
                 qPrintable(w.engine()->dataset().error));
        QVERIFY(w.dataPanel()->messageLabel()->text().contains(QStringLiteral("people")));
        // Not a database.
        const QString junk = dir.filePath(QStringLiteral("junk.db"));
        QFile j(junk);
        QVERIFY(j.open(QIODevice::WriteOnly));
        j.write("this is not a database, just text that is long enough to look like a header");
        j.close();
        QVERIFY(w.openSqlite(junk));
        QVERIFY(shown.wait(30000));
        QVERIFY2(!w.engine()->dataset().error.isEmpty(), "a text file opened as a database");
    }

    // The contribution cap sets the sensitivity the mechanisms are calibrated with: Δ1 = cap for
    // add/remove and 2·cap for replace (the person's rows in one bin or spread over two).
    void capChangesSensitivity() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("visits.csv"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("id,hour\n1,3\n1,4\n1,5\n1,6\n2,3\n3,9\n3,9\n");
        f.close();
        MainWindow w;
        w.show();
        ExplorerState s = w.document()->state();
        s.data.source = SourceKind::Csv;
        s.data.csvPath = path;
        s.data.column = QStringLiteral("hour");
        s.data.binning.kind = BinningChoice::Integer;
        s.data.binning.rangeLo = 0;
        s.data.binning.rangeHi = 10;
        s.mechanism.kind = MechanismChoice::Laplace;
        s.mechanism.epsilon = 1;
        QVERIFY(applyAndWait(w, s));
        QCOMPARE(w.engine()->dataset().sensitivity.l1, 1.0);
        s.data.idColumn = QStringLiteral("id");
        s.data.cap = 2;
        QVERIFY(applyAndWait(w, s));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QCOMPARE(d.cappedRows, qint64(2));
        QCOMPARE(d.histogram->total(), std::int64_t{5});
        QCOMPARE(d.sensitivity.l1, 2.0);
        QCOMPARE(d.sensitivity.l2, 2.0);
        // Laplace b = Δ1/ε = 2: variance 2b² = 8.
        QCOMPARE(w.engine()->release().noiseVariance, 8.0);
        QVERIFY(w.dataPanel()->summaryLabel()->text().contains(QStringLiteral("Δ1 = 2")));
        QVERIFY(
            w.dataPanel()->summaryLabel()->text().contains(QStringLiteral("2 rows over the cap")));
        QVERIFY(w.dataPanel()->neighbouringBox()->itemText(0).contains(QStringLiteral("Δ1 = 2")));
        s.data.neighbouring = Neighbouring::Replace;
        QVERIFY(applyAndWait(w, s));
        QCOMPARE(w.engine()->dataset().sensitivity.l1, 4.0);
        QVERIFY(std::abs(w.engine()->dataset().sensitivity.l2 - 2 * std::sqrt(2.0)) < 1e-12);
        QCOMPARE(w.engine()->release().noiseVariance, 32.0);
        QVERIFY(w.dataPanel()->neighbouringBox()->itemText(1).contains(QStringLiteral("Δ1 = 4")));
        // Through the panel's spin box.
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        w.dataPanel()->capBox()->setValue(3);
        QVERIFY(shown.wait(30000));
        QCOMPARE(w.document()->state().data.cap, 3);
        QCOMPARE(w.engine()->dataset().sensitivity.l1, 6.0);
    }

    // The PostgreSQL dialog: "Test connection" runs on a worker (the GUI keeps processing events
    // and the refusal comes back as a message); the password goes to the settings only when the
    // user ticks the box, and is removed again when unticked.
    void pgDialogTestsInTheBackground() {
        ExplorerState s;
        s.data.postgres.host = QStringLiteral("127.0.0.1");
        s.data.postgres.port = 1;  // nothing listens there: refused at once
        s.data.postgres.database = QStringLiteral("census");
        s.data.postgres.user = QStringLiteral("analyst");
        s.data.postgres.connectTimeout = 2;
        PgConnectionDialog dialog(s);
        dialog.passwordEdit()->setText(QStringLiteral("pw"));
        dialog.show();
        QSignalSpy done(&dialog, &PgConnectionDialog::testFinished);
        dialog.testConnection();
        QVERIFY(done.wait(20000));
        QCOMPARE(done.first().at(0).toBool(), false);
        QVERIFY2(dialog.resultLabel()->text().contains(QStringLiteral("cannot open")),
                 qPrintable(dialog.resultLabel()->text()));
        QVERIFY(!dialog.resultLabel()->text().contains(QStringLiteral("pw")));
        if (const QByteArray dir = qgetenv("DPX_TEST_SCREENSHOTS"); !dir.isEmpty()) {
            dialog.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/pg_dialog.png"));
        }
        ExplorerState t = s;
        dialog.applyTo(t);
        QCOMPARE(t.data.source, SourceKind::Postgres);
        QCOMPARE(t.data.postgres.password, QStringLiteral("pw"));
        storePgPassword(t, false);
        QVERIFY(rememberedPgPassword(t).isEmpty());
        storePgPassword(t, true);
        QCOMPARE(rememberedPgPassword(t), QStringLiteral("pw"));
        storePgPassword(t, false);
        QVERIFY(rememberedPgPassword(t).isEmpty());
        QVERIFY(!ExplorerState(t)
                     .toJson()
                     .value(QStringLiteral("data"))
                     .toObject()
                     .value(QStringLiteral("postgresql"))
                     .toObject()
                     .contains(QStringLiteral("password")));
    }

    void screenshotIsSaved() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("shot.png"));
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QSignalSpy saved(&w, &MainWindow::screenshotSaved);
        w.saveScreenshotWhenReady(path);
        QVERIFY(saved.wait(60000));
        QCOMPARE(saved.first().at(1).toBool(), true);
        QImage img(path);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() >= 1000);
    }

    // The Risk tab follows the document: Laplace (pure DP, δ = 0) at ε = 1 prints e/(1 + e) =
    // 73.1% for the default prior p = 0.5, ε = 2 prints e²/(1 + e²) = 88.1%; the Gaussian
    // mechanism brings its δ and μ = Δ2/σ from the release; the tab id "risk" round-trips through
    // a session.
    void riskTabFollowsTheDocument() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("risk.json"));
        ExplorerState s = kerriganTwoBins(1.0);
        s.view.tab = QStringLiteral("risk");
        {
            MainWindow w;
            w.resize(1400, 900);
            w.show();
            QVERIFY(applyAndWait(w, s));
            RiskTab* risk = w.riskView();
            QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(risk));
            QCOMPARE(w.currentPlot(), risk->posteriorPlot());
            QCOMPARE(risk->priorSpin()->value(), 0.5);
            QCOMPARE(risk->level().delta, 0.0);
            const double e1 = std::exp(1.0);
            QVERIFY(std::abs(risk->posteriorAtPrior() - e1 / (1 + e1)) < 1e-12);
            QVERIFY2(risk->posteriorText().contains(QStringLiteral("73.1%")),
                     qPrintable(risk->posteriorText()));
            QVERIFY2(risk->posteriorText().contains(QStringLiteral("50% sure")),
                     qPrintable(risk->posteriorText()));

            ExplorerState t = w.document()->state();
            t.mechanism.epsilon = 2;
            QVERIFY(applyAndWait(w, t));
            const double e2 = std::exp(2.0);
            QVERIFY(std::abs(risk->posteriorAtPrior() - e2 / (1 + e2)) < 1e-12);
            QVERIFY2(risk->posteriorText().contains(QStringLiteral("88.1%")),
                     qPrintable(risk->posteriorText()));

            t.mechanism.kind = MechanismChoice::Gaussian;
            t.mechanism.epsilon = 0.5;
            QVERIFY(applyAndWait(w, t));
            QCOMPARE(risk->level().delta, t.mechanism.delta);
            QVERIFY(risk->level().gaussianMu.has_value());
            const auto& c = w.engine()->release().calibrated;
            QVERIFY(c.has_value());
            QCOMPARE(*risk->level().gaussianMu, c->l2Sensitivity / c->noise.parameter());
            // The tracing-attack demonstration runs on the runner and draws its ROC.
            risk->tracingRecordsSpin()->setValue(50);
            risk->tracingDimensionsSpin()->setValue(500);
            risk->tracingButton()->click();
            QTRY_VERIFY_WITH_TIMEOUT(risk->hasTracingRoc(), 30000);
            // A group of 3: (3ε, δ_3) as second curves; the group's posterior is printed too.
            risk->groupSpin()->setValue(3);
            QVERIFY2(risk->posteriorText().contains(QStringLiteral("group of 3")),
                     qPrintable(risk->posteriorText()));
            if (const QByteArray shots = qgetenv("DPX_TEST_SCREENSHOTS"); !shots.isEmpty()) {
                QTest::qWait(200);  // let the layout settle
                w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/risk_group.png"));
            }
            QVERIFY(w.document()->saveSession(path));
        }
        MainWindow w2;
        w2.show();
        QSignalSpy shown(&w2, &MainWindow::releaseShown);
        QVERIFY(w2.openSession(path));
        QVERIFY(shown.wait(30000));
        QCOMPARE(w2.document()->state().view.tab, QStringLiteral("risk"));
        QCOMPARE(w2.tabs()->currentWidget(), static_cast<QWidget*>(w2.riskView()));
        QCOMPARE(w2.riskView()->level().epsilon, 0.5);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
