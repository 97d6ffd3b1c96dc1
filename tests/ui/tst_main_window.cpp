// The first DP Explorer window, driven offscreen: it must show exact expected errors for the
// seed 000 example, react to ε, and show (not accept) invalid parameters.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cmath>

#include "ui/main_window.h"
#include "ui/release_preview.h"

using dpx::ui::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    // Seed 000 §3.3, H = [0, 16], ε = 0.1 (Laplace b = 10): identity 2·2b² = 400 (closed form);
    // clamp Σ 2b² − e^{−h/b}(hb + b²) = 247.5069053213896 (closed form, 6 significant digits
    // shown).
    void showsExactErrorsForSeed000() {
        MainWindow w;
        QSignalSpy shown(&w, &MainWindow::resultShown);
        QVERIFY(w.selectExample(QStringLiteral("seed000")));
        w.show();
        auto* table = w.findChild<QTableWidget*>(QStringLiteral("errorTable"));
        QVERIFY(table);
        QTRY_VERIFY_WITH_TIMEOUT(
            table->item(1, 0) && table->item(1, 0)->text() == QStringLiteral("247.507"), 10000);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("400"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("20"));  // n·b
        QVERIFY(!shown.isEmpty());
    }

    // Changing ε recomputes off the GUI thread: identity E[SSE] = 2·2/ε² = 4 at ε = 1.
    void epsilonChangeRecomputes() {
        MainWindow w;
        w.selectExample(QStringLiteral("seed000"));
        w.show();
        auto* eps = w.findChild<QDoubleSpinBox*>(QStringLiteral("epsilonSpin"));
        auto* table = w.findChild<QTableWidget*>(QStringLiteral("errorTable"));
        QVERIFY(eps && table);
        eps->setValue(1.0);
        QTRY_VERIFY_WITH_TIMEOUT(
            table->item(0, 0) && table->item(0, 0)->text() == QStringLiteral("4"), 10000);
    }

    // An invalid δ is shown as a message and nothing is presented as private.
    void invalidDeltaIsRefused() {
        MainWindow w;
        w.selectExample(QStringLiteral("seed000"));
        w.show();
        auto* mech = w.findChild<QComboBox*>(QStringLiteral("mechanismCombo"));
        auto* delta = w.findChild<QLineEdit*>(QStringLiteral("deltaEdit"));
        auto* message = w.findChild<QLabel*>(QStringLiteral("messageLabel"));
        auto* table = w.findChild<QTableWidget*>(QStringLiteral("errorTable"));
        QVERIFY(mech && delta && message && table);
        mech->setCurrentIndex(mech->findData(QStringLiteral("gaussian")));
        QVERIFY(delta->isEnabled());
        delta->setText(QStringLiteral("1.5"));
        Q_EMIT delta->editingFinished();
        QTRY_VERIFY_WITH_TIMEOUT(message->text().contains(QStringLiteral("δ")), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(table->item(0, 0)->text(), QStringLiteral("—"), 10000);
        delta->setText(QStringLiteral("abc"));
        Q_EMIT delta->editingFinished();
        QTRY_VERIFY_WITH_TIMEOUT(message->text().contains(QStringLiteral("not a number")), 10000);
    }

    // The worker function itself: same numbers as the core, on the seed 000 example.
    void previewMatchesCore() {
        auto h = dpx::Histogram::create({0, 16});
        QVERIFY(h.hasValue());
        dpx::ui::PreviewRequest req{*h, {}, dpx::Neighbouring::AddRemove, 3, 7};
        req.mechanism.epsilon = 0.1;
        const auto r = dpx::ui::computePreview(req);
        QVERIFY(r.error.isEmpty());
        QCOMPARE(r.generation, std::uint64_t{7});
        QVERIFY(std::abs(r.errors[1][0].value - 247.5069053213896) < 1e-9);
        // 95% band of Laplace(10): b·ln 20 (closed form Pr[|Z| > t] = e^{−t/b}).
        QVERIFY(std::abs(r.band95 - 10 * std::log(20.0)) < 1e-9);
        QCOMPARE(r.noisy.size(), std::size_t{2});
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
