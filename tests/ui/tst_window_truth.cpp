// One truth for the window (issue #17, item 9): every status line, error and badge describes the
// state on show. Each test drives a sequence that used to leave a stale message behind: an
// invalid ε followed by a valid one (the field stayed red with "got 25"), an LP solve started
// after an error (the error stayed, the progress bar sat at 0 %), the status bar's Cancel during
// the LP solve and during the trade-off curves ("Computing 5 of 15 curves…" stayed).
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/panels/mechanism_panel.h"
#include "ui/tabs/matrix/matrix_tab.h"
#include "ui/tabs/tradeoff_tab.h"
#include "ui/widgets/epsilon_override.h"
#include "ui/widgets/log_slider_field.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;

namespace {

// The two-bin example of Kerrigan 2019 (example id "seed000") at ε = eps.
ExplorerState kerriganTwoBins(double eps) {
    ExplorerState s;
    s.data.exampleId = QStringLiteral("seed000");
    s.mechanism.epsilon = eps;
    return s;
}

void type(QLineEdit* edit, const QString& text) {
    edit->setText(text);
    Q_EMIT edit->editingFinished();
}

QString statusText(const MainWindow& w) {
    auto* label = w.findChild<QLabel*>(QStringLiteral("statusText"));
    return label ? label->text() : QString();
}

QString histogramMessage(const MainWindow& w) {
    auto* label = w.findChild<QLabel*>(QStringLiteral("histogramMessage"));
    // The histogram's message page, whether or not its tab is the current one.
    return label && label->isVisibleTo(label->parentWidget()) ? label->text() : QString();
}

// DPX_TEST_SCREENSHOTS=dir: the window as the test sees it, for looking at it.
void shot(QWidget& w, const char* name) {
    if (const QByteArray dir = qgetenv("DPX_TEST_SCREENSHOTS"); !dir.isEmpty()) {
        QTest::qWait(200);  // let the layout settle
        w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name));
    }
}

}  // namespace

class TestWindowTruth : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    // ε = 25 is refused (red field, "got 25" in the message and the field's tooltip); typing the
    // shown value 1 again clears both, as does any later change of the document that redraws the
    // field (here a new seed).
    void refusedEpsilonClearsWhenAValidOneIsTyped() {
        MainWindow w;
        w.show();
        QVERIFY(applyAndWait(w, kerriganTwoBins(1)));
        LogSliderField* field = w.mechanismPanel()->epsilonField();
        QLabel* message = w.mechanismPanel()->messageLabel();
        type(field->lineEdit(), QStringLiteral("25"));
        QVERIFY(!message->isHidden());
        QVERIFY2(message->text().contains(QStringLiteral("got 25")), qPrintable(message->text()));
        QVERIFY(field->lineEdit()->property("invalid").toBool());
        QVERIFY(field->lineEdit()->toolTip().contains(QStringLiteral("got 25")));
        QCOMPARE(w.document()->state().mechanism.epsilon, 1.0);
        shot(w, "truth_epsilon_refused.png");

        type(field->lineEdit(), QStringLiteral("1"));  // the value already in force
        QVERIFY2(message->isHidden(), qPrintable(message->text()));
        QVERIFY(!field->lineEdit()->property("invalid").toBool());
        QVERIFY(field->error().isEmpty());
        QVERIFY(!field->lineEdit()->toolTip().contains(QStringLiteral("25")));
        QCOMPARE(field->lineEdit()->text(), QStringLiteral("1"));
        shot(w, "truth_epsilon_cleared.png");

        // Refused again, then the document changes elsewhere: the field shows the document's ε
        // again, so neither the mark nor the message may stay.
        type(field->lineEdit(), QStringLiteral("25"));
        QVERIFY(!message->isHidden());
        QVERIFY(w.document()->setSeed(12345).hasValue());
        QCOMPARE(field->lineEdit()->text(), QStringLiteral("1"));
        QVERIFY(field->error().isEmpty());
        QVERIFY2(message->isHidden(), qPrintable(message->text()));

        // δ the same way (Gaussian): 0.5 refused, then the δ in force typed again.
        QVERIFY(w.document()->setMechanism(MechanismChoice::Gaussian).hasValue());
        LogSliderField* delta = w.mechanismPanel()->deltaField();
        type(delta->lineEdit(), QStringLiteral("0.5"));
        QVERIFY(message->text().contains(QStringLiteral("got 0.5")));
        type(delta->lineEdit(), QStringLiteral("1e-06"));
        QVERIFY(message->isHidden());
        QVERIFY(delta->error().isEmpty());
    }

    // A page's own ε (More mechanisms): a non-positive ε is refused on the field; typing the
    // page's ε again clears the mark (the field used to ignore a value equal to the one in force).
    void pageEpsilonClearsWhenItsValueIsTypedAgain() {
        EpsilonOverride o;
        o.setWindowEpsilon(1);
        o.setOverride(0.5);
        o.show();
        auto* field = o.findChild<LogSliderField*>(QStringLiteral("pageEpsilon"));
        QVERIFY(field);
        type(field->lineEdit(), QStringLiteral("-1"));
        QVERIFY(!field->error().isEmpty());
        QCOMPARE(o.epsilon(), 0.5);
        type(field->lineEdit(), QStringLiteral("0.5"));
        QVERIFY2(field->error().isEmpty(), qPrintable(field->error()));
        QVERIFY(!field->lineEdit()->property("invalid").toBool());
        type(field->lineEdit(), QStringLiteral("abc"));
        QVERIFY(field->error().contains(QStringLiteral("not a number")));
        type(field->lineEdit(), QStringLiteral("0.5"));
        QVERIFY(field->error().isEmpty());
    }

    // An infeasible LP's message is on the matrix tab (and the histogram's); a long solve
    // (n = 400 at ε = 0.01, seconds) then replaces it at once with what is being solved, and the
    // progress bar is a busy indicator (CLP reports no fraction), not 0 %. Cancel says the solve
    // was cancelled instead of leaving "Solving…".
    void lpSolveReplacesThePreviousErrorAndIsBusy() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        ExplorerState s = kerriganTwoBins(0.01);
        s.mechanism.kind = MechanismChoice::CountOptimal;
        s.mechanism.lp.minDiagonal =
            0.9;  // P[j][j] ≥ 0.9 with ε = 0.01: two entries of 0.9 in a column
        s.view.tab = QStringLiteral("matrix");
        QVERIFY(applyAndWait(w, s));
        QVERIFY(!w.engine()->release().error.isEmpty());
        QVERIFY2(w.matrixView()->messageText().contains(QStringLiteral("infeasible")),
                 qPrintable(w.matrixView()->messageText()));
        QVERIFY(!histogramMessage(w).isEmpty());

        s.mechanism.lp.minDiagonal = 0;
        s.mechanism.countN = 400;
        s.mechanism.lp.constraints = {QStringLiteral("wh"), QStringLiteral("cm")};
        QVERIFY(w.document()->apply(s, QStringLiteral("test")).hasValue());
        QTRY_VERIFY_WITH_TIMEOUT(w.engine()->runner()->isRunning(QStringLiteral("release")), 20000);
        const QString shown = w.matrixView()->messageText();
        QVERIFY2(!shown.contains(QStringLiteral("infeasible")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Solving the LP for n = 400")), qPrintable(shown));
        QVERIFY(w.matrixView()->lpStatusText().isEmpty());
        // The LP panel shows the settings being solved, not those of the infeasible result.
        QVERIFY(w.matrixView()->lpControlsVisible());
        QCOMPARE(w.matrixView()->lpSettings().minDiagonal, 0.0);
        QVERIFY(w.matrixView()->lpSettings().constraints.contains(QStringLiteral("cm")));
        QVERIFY2(!histogramMessage(w).contains(QStringLiteral("infeasible")),
                 qPrintable(histogramMessage(w)));
        QVERIFY2(statusText(w).contains(QStringLiteral("Solving the LP for n = 400")),
                 qPrintable(statusText(w)));
        auto* bar = w.findChild<QProgressBar*>(QStringLiteral("jobProgress"));
        QVERIFY(bar);
        QTRY_VERIFY_WITH_TIMEOUT(bar->isVisible(), 5000);
        // Busy (minimum = maximum = 0), not a frozen 0 %: the worker marks its progress
        // indeterminate as it starts, the status bar polls it every 100 ms.
        QTRY_COMPARE_WITH_TIMEOUT(bar->maximum(), 0, 2000);
        QCOMPARE(bar->minimum(), 0);
        shot(w, "truth_lp_solving.png");

        w.engine()->runner()->cancelLong();  // the status bar's Cancel
        QVERIFY2(w.matrixView()->messageText().contains(QStringLiteral("cancelled")),
                 qPrintable(w.matrixView()->messageText()));
        QVERIFY(!w.matrixView()->messageText().contains(QStringLiteral("Solving the LP…")));
        QVERIFY2(histogramMessage(w).contains(QStringLiteral("cancelled")),
                 qPrintable(histogramMessage(w)));
        QVERIFY2(statusText(w).contains(QStringLiteral("cancelled")), qPrintable(statusText(w)));
        shot(w, "truth_lp_cancelled.png");
        QVERIFY(w.engine()->runner()->waitForIdle(20000));
        QVERIFY(!bar->isVisible());
    }

    // A matrix on show stays during a long solve, marked as the previous result; the mark goes
    // when Cancel is pressed (it then says so) and when a new result arrives.
    void matrixOnShowIsMarkedPreviousDuringASolve() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        ExplorerState s = kerriganTwoBins(0.01);
        s.mechanism.kind = MechanismChoice::CountGeometric;
        s.view.tab = QStringLiteral("matrix");
        QVERIFY(applyAndWait(w, s));
        QCOMPARE(w.matrixView()->currentPage(), MatrixTab::Page::Matrix);
        QVERIFY(w.matrixView()->pendingText().isEmpty());
        s.mechanism.kind = MechanismChoice::CountOptimal;
        s.mechanism.countN = 400;
        s.mechanism.lp.constraints = {QStringLiteral("wh"), QStringLiteral("cm")};
        QVERIFY(!w.matrixView()->lpControlsVisible());
        QVERIFY(w.document()->apply(s, QStringLiteral("test")).hasValue());
        QVERIFY(w.matrixView()->lpControlsVisible());  // at once, not after the solve
        QTRY_VERIFY_WITH_TIMEOUT(w.engine()->runner()->isRunning(QStringLiteral("release")), 20000);
        QCOMPARE(w.matrixView()->currentPage(), MatrixTab::Page::Matrix);
        QVERIFY2(w.matrixView()->pendingText().contains(QStringLiteral("previous result")),
                 qPrintable(w.matrixView()->pendingText()));
        QVERIFY(w.matrixView()->titleText().contains(QStringLiteral("Truncated geometric")));
        shot(w, "truth_matrix_previous.png");
        w.engine()->runner()->cancelLong();
        QVERIFY2(w.matrixView()->pendingText().contains(QStringLiteral("cancelled")),
                 qPrintable(w.matrixView()->pendingText()));
        QVERIFY(w.engine()->runner()->waitForIdle(20000));
        s.mechanism.kind = MechanismChoice::CountExplicitFair;
        s.mechanism.countN = 0;
        QVERIFY(applyAndWait(w, s));
        QVERIFY(w.matrixView()->pendingText().isEmpty());
    }

    // The long Monte Carlo pass is cancelled: the Errors tab no longer says "refining…", and the
    // status line says what was cancelled.
    void errorsStopRefiningOnCancel() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.engine()->setLongTrials(2'000'000'000ULL);  // runs until cancelled
        QSignalSpy mc(w.engine(), &ExplorerEngine::monteCarloReady);
        QVERIFY(applyAndWait(w, kerriganTwoBins(0.5)));
        QTRY_VERIFY_WITH_TIMEOUT(!mc.isEmpty(), 30000);  // the quick pass
        QTRY_VERIFY_WITH_TIMEOUT(w.engine()->runner()->isRunning(QStringLiteral("mc")), 10000);
        // A redraw while the long pass runs (here the estimator) shows it refining.
        QVERIFY(w.document()->setEstimator(EstimatorKind::Clamp).hasValue());
        auto* status = w.findChild<QLabel*>(QStringLiteral("errorsStatus"));
        QVERIFY(status);
        QVERIFY2(status->text().contains(QStringLiteral("refining")), qPrintable(status->text()));
        auto* cancel = [&]() -> QPushButton* {
            for (QPushButton* b : w.statusBar()->findChildren<QPushButton*>()) {
                if (b->text() == QStringLiteral("Cancel")) {
                    return b;
                }
            }
            return nullptr;
        }();
        QVERIFY(cancel);
        QTRY_VERIFY_WITH_TIMEOUT(cancel->isVisible(), 5000);
        cancel->click();
        QVERIFY2(!status->text().contains(QStringLiteral("refining")), qPrintable(status->text()));
        // Other jobs still running are cancelled with it and listed too, in the order they
        // were started ("Cancelled: Privacy profile, Monte Carlo." when the Budget tab's
        // profile was still computing): the Monte Carlo must be among them.
        const QString text = statusText(w);
        QVERIFY2(text.startsWith(QStringLiteral("Cancelled: ")) &&
                     text.contains(QStringLiteral("Monte Carlo")),
                 qPrintable(text));
    }

    // The status bar's Cancel while the trade-off curves compute: the tab no longer says that
    // curves are being computed; it says which were cancelled. A change computes them again.
    void tradeoffCancelLeavesNoComputingLine() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        ExplorerState s = kerriganTwoBins(1);
        s.mechanism.countN = 100;  // one LP per point at n = 100: a second or so each
        s.tradeoff.configs = {QStringLiteral("laplace:identity"),
                              QStringLiteral("optimal:identity")};
        s.tradeoff.points = 200;  // 200 LPs: seconds at least
        s.view.tab = QStringLiteral("tradeoff");
        QVERIFY(applyAndWait(w, s));
        TradeoffTab* v = w.tradeoffView();
        QTRY_VERIFY_WITH_TIMEOUT(v->computing(), 10000);
        QVERIFY(v->statusLabel()->text().contains(QStringLiteral("Computing")));
        w.engine()->runner()->cancelLong();
        QVERIFY(!v->computing());
        const QString text = v->statusLabel()->text();
        QVERIFY2(!text.contains(QStringLiteral("Computing")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Cancelled")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("optimal:identity")), qPrintable(text));
        shot(w, "truth_tradeoff_cancelled.png");
        // A setting changes: the curves are computed again, and the cancel note goes.
        s.tradeoff.configs = {QStringLiteral("laplace:identity")};
        s.tradeoff.points = 25;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")).hasValue());
        QTRY_VERIFY_WITH_TIMEOUT(
            !v->computing() && !v->curves().empty() && !v->curves().front().points.empty(), 30000);
        QVERIFY2(!v->statusLabel()->text().contains(QStringLiteral("Cancelled")),
                 qPrintable(v->statusLabel()->text()));
    }
};

QTEST_MAIN(TestWindowTruth)
#include "tst_window_truth.moc"
