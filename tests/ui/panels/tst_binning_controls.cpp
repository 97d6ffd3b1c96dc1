// The data panel's binning controls show the binning in force, and each column's binning is
// remembered (issue #17, item 10): the Bins box shows the number of bins automatic binning chose
// (74 whole numbers, not the 32 of the equal-width default), "Bins with my edges" starts from the
// bins in force (not "0, 1": one bin, no records), and a column's binning comes back after
// another column, after choosing the same CSV again, after another dataset, and in a session.
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QWidget>

#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/panels/data_panel.h"

using namespace dpx;
using namespace dpx::ui;

namespace {

constexpr int kRows = 740;

// age: whole numbers 0…73 (automatic bins: one per whole number, 74 bins); score: decimals
// (automatic bins: equal-width); city: text.
QString writeCsv(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("people.csv"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        return {};
    }
    QByteArray text = "age,score,city\n";
    for (int i = 0; i < kRows; ++i) {
        text += QByteArray::number(i % 74) + ',' + QByteArray::number(0.37 * i, 'f', 2) + ',' +
                (i % 3 == 0 ? "Oslo" : "Lima") + '\n';
    }
    f.write(text);
    return path;
}

// Does `action`, then waits until the window shows the new release.
template <class F>
bool andWait(MainWindow& w, F action) {
    QSignalSpy shown(&w, &MainWindow::releaseShown);
    action();
    return shown.wait(30000) || !shown.isEmpty();
}

void activate(QComboBox* box, const QString& text) {
    const int i = box->findText(text);
    QVERIFY2(i >= 0, qPrintable(text));
    box->setCurrentIndex(i);
    Q_EMIT box->activated(i);
}

void activateData(QComboBox* box, const QString& data) {
    const int i = box->findData(data);
    QVERIFY2(i >= 0, qPrintable(data));
    box->setCurrentIndex(i);
    Q_EMIT box->activated(i);
}

void typeEdges(QLineEdit* edit, const QString& text) {
    edit->setText(text);
    Q_EMIT edit->editingFinished();
}

// DPX_TEST_SCREENSHOTS=dir: the window as the test sees it, for looking at it.
void shot(QWidget& w, const char* name) {
    if (const QByteArray dir = qgetenv("DPX_TEST_SCREENSHOTS"); !dir.isEmpty()) {
        QTest::qWait(200);  // let the layout settle
        w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name));
    }
}

}  // namespace

class TestBinningControls : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    void controlsShowTheBinningInForce() {
        QTemporaryDir dir;
        const QString path = writeCsv(dir);
        QVERIFY(!path.isEmpty());
        MainWindow w;
        w.show();
        DataPanel* panel = w.dataPanel();
        QVERIFY(andWait(w, [&] { QVERIFY(w.openCsv(path)); }));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QCOMPARE(d.column, QStringLiteral("age"));
        QCOMPARE(d.histogram->size(), std::size_t{74});
        // Automatic binning chose one bin per whole number: the Bins box says 74, not 32.
        QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::Auto);
        QCOMPARE(panel->binsBox()->value(), 74);
        QCOMPARE(panel->binsBox()->text(), QStringLiteral("74"));
        QVERIFY(panel->binsBox()->toolTip().contains(QStringLiteral("whole number")));
        QCOMPARE(panel->rangeLowEdit()->placeholderText(), QStringLiteral("0"));
        QCOMPARE(panel->rangeHighEdit()->placeholderText(), QStringLiteral("73"));
        shot(w, "binning_auto.png");

        // "Bins with my edges" starts from the bins in force: the same 74 bins, every record.
        QVERIFY(andWait(w, [&] { activateData(panel->binningBox(), QStringLiteral("edges")); }));
        QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::Edges);
        QCOMPARE(w.document()->state().data.binning.edges.size(), std::size_t{75});
        QCOMPARE(w.document()->state().data.binning.edges.front(), 0.0);
        QCOMPARE(w.document()->state().data.binning.edges.back(), 74.0);
        QVERIFY(panel->edgesEdit()->text().startsWith(QStringLiteral("0, 1, 2, 3")));
        QCOMPARE(w.engine()->dataset().histogram->size(), std::size_t{74});
        QCOMPARE(w.engine()->dataset().histogram->total(), std::int64_t{kRows});
        shot(w, "binning_edges_start.png");

        // Equal-width on the automatic column: the Bins box shows the declared number.
        QVERIFY(andWait(w, [&] { activate(panel->columnBox(), QStringLiteral("score")); }));
        QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::Auto);
        QCOMPARE(w.engine()->dataset().histogram->size(),
                 static_cast<std::size_t>(panel->binsBox()->value()));
    }

    void eachColumnKeepsItsBinning() {
        QTemporaryDir dir;
        const QString path = writeCsv(dir);
        QVERIFY(!path.isEmpty());
        const QString session = dir.filePath(QStringLiteral("s.json"));
        const std::vector<double> mine{0, 18, 65, 74};
        {
            MainWindow w;
            w.show();
            DataPanel* panel = w.dataPanel();
            QVERIFY(andWait(w, [&] { QVERIFY(w.openCsv(path)); }));
            // The default column (age) gets my edges, typed.
            QVERIFY(
                andWait(w, [&] { activateData(panel->binningBox(), QStringLiteral("edges")); }));
            QVERIFY(andWait(
                w, [&] { typeEdges(panel->edgesEdit(), QStringLiteral("0, 18, 65, 74")); }));
            QCOMPARE(w.document()->state().data.binning.edges, mine);
            QCOMPARE(w.engine()->dataset().histogram->size(), std::size_t{3});
            // The range fields (disabled with edges) show the span of the edges.
            QCOMPARE(panel->rangeLowEdit()->placeholderText(), QStringLiteral("0"));
            QCOMPARE(panel->rangeHighEdit()->placeholderText(), QStringLiteral("74"));
            // score: automatic, then 10 equal-width bins.
            QVERIFY(andWait(w, [&] { activate(panel->columnBox(), QStringLiteral("score")); }));
            QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::Auto);
            QVERIFY(andWait(w, [&] { panel->binsBox()->setValue(10); }));
            QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::EqualWidth);
            QCOMPARE(w.engine()->dataset().histogram->size(), std::size_t{10});
            // Back to age: my edges, in the state and in the controls.
            QVERIFY(andWait(w, [&] { activate(panel->columnBox(), QStringLiteral("age")); }));
            QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::Edges);
            QCOMPARE(w.document()->state().data.binning.edges, mine);
            QCOMPARE(panel->edgesEdit()->text(), QStringLiteral("0, 18, 65, 74"));
            QCOMPARE(w.engine()->dataset().histogram->size(), std::size_t{3});
            // And score's 10 bins come back too.
            QVERIFY(andWait(w, [&] { activate(panel->columnBox(), QStringLiteral("score")); }));
            QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::EqualWidth);
            QCOMPARE(w.document()->state().data.binning.bins, 10);
            QVERIFY(andWait(w, [&] { activate(panel->columnBox(), QStringLiteral("age")); }));

            // The same CSV chosen again: read again, column and edges kept.
            QVERIFY(andWait(w, [&] { QVERIFY(w.openCsv(path)); }));
            QCOMPARE(w.document()->state().data.column, QStringLiteral("age"));
            QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::Edges);
            QCOMPARE(w.document()->state().data.binning.edges, mine);

            // Another dataset, then this file again: its column and binning come back.
            QVERIFY(andWait(
                w, [&] { activateData(panel->exampleBox(), QStringLiteral("telemetry")); }));
            QCOMPARE(w.document()->state().data.source, SourceKind::Example);
            QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::Auto);
            QVERIFY(andWait(w, [&] { QVERIFY(w.openCsv(path)); }));
            QCOMPARE(w.document()->state().data.column, QStringLiteral("age"));
            QCOMPARE(w.document()->state().data.binning.edges, mine);
            QCOMPARE(w.engine()->dataset().histogram->size(), std::size_t{3});
            // Undo goes back to the example, in one step.
            QVERIFY(andWait(w, [&] { w.document()->undoStack()->undo(); }));
            QCOMPARE(w.document()->state().data.source, SourceKind::Example);
            QVERIFY(andWait(w, [&] { w.document()->undoStack()->redo(); }));
            QVERIFY(w.document()->saveSession(session));
        }
        // The session keeps every column's binning.
        MainWindow w;
        w.show();
        QVERIFY(andWait(w, [&] { QVERIFY(w.openSession(session)); }));
        QCOMPARE(w.document()->state().data.column, QStringLiteral("age"));
        QCOMPARE(w.document()->state().data.binning.edges, mine);
        QVERIFY(andWait(w, [&] { activate(w.dataPanel()->columnBox(), QStringLiteral("score")); }));
        QCOMPARE(w.document()->state().data.binning.kind, BinningChoice::EqualWidth);
        QCOMPARE(w.document()->state().data.binning.bins, 10);
    }
};

QTEST_MAIN(TestBinningControls)
#include "tst_binning_controls.moc"
