// Tables of several attributes in the window (issue #19): the data panel chooses several columns,
// the engine loads their joint table off the GUI thread, and the views that need a histogram run on
// the table flattened (one bin per cell). A 16-binary-column CSV written here loads as a
// 65 536-cell table on which the Errors tab (exact expected errors against the closed form), the
// Sparse page and a release run; a 2-column Adult-like CSV gives a sex × class table whose cells
// equal a count made here row by row; several columns survive undo/redo and a session
// round-trip through the data panel's buttons; a table beyond 100 000 cells says so instead of
// drawing.
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <map>

#include "tests/cli/dpx_process.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/panels/data_panel.h"
#include "ui/release/release_dialog.h"
#include "ui/tabs/errors_tab.h"
#include "ui/tabs/more/more_mechanisms_tab.h"
#include "ui/tabs/more/sparse_page.h"
#include "ui/tabs/table/table_tab.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;
using dpx::ui::test::waitForData;

namespace {

// A small deterministic generator (splitmix64) for the test's rows: independent of the app's.
struct Rows {
    std::uint64_t x;
    std::uint64_t next() {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
};

// Declared bins {0, 1} for a binary column.
ColumnBinning binary() {
    ColumnBinning b;
    b.kind = BinningChoice::Integer;
    b.rangeLo = 0;
    b.rangeHi = 1;
    return b;
}

ColumnBinning categories(QStringList list) {
    ColumnBinning b;
    b.kind = BinningChoice::Categories;
    b.categories = std::move(list);
    return b;
}

// A survey of 16 yes/no questions, 3 000 respondents, answers correlated so that only a few
// per cent of the 65 536 cells are occupied: the cells counted here, by C-order index.
std::map<std::uint64_t, std::int64_t> writeSurvey(const QString& path) {
    QFile f(path);
    f.open(QIODevice::WriteOnly | QIODevice::Text);
    QTextStream out(&f);
    for (int j = 0; j < 16; ++j) {
        out << (j ? "," : "") << "q" << j;
    }
    out << "\n";
    Rows rng{19};
    std::map<std::uint64_t, std::int64_t> cells;
    for (int row = 0; row < 3000; ++row) {
        // A respondent type (one of 64) fixes most answers; two answers are free.
        const std::uint64_t type = rng.next() % 64;
        const std::uint64_t bits = (type * 0x9e3779b97f4a7c15ULL) >> 48;
        std::uint64_t index = 0;
        for (int j = 0; j < 16; ++j) {
            int v = static_cast<int>((bits >> j) & 1);
            if (j < 2) {
                v = static_cast<int>(rng.next() & 1);
            }
            out << (j ? "," : "") << v;
            index = index * 2 + static_cast<std::uint64_t>(v);
        }
        out << "\n";
        ++cells[index];
    }
    return cells;
}

// A CSV file's column with its binning (one attribute).
ExplorerState csvState(const QString& path, const QString& column, const ColumnBinning& binning) {
    ExplorerState s;
    s.data.source = SourceKind::Csv;
    s.data.csvPath = path;
    s.data.column = column;
    s.data.binning = binning;
    return s;
}

ExplorerState surveyState(const QString& path) {
    ExplorerState s = csvState(path, QStringLiteral("q0"), binary());
    for (int j = 1; j < 16; ++j) {
        s.data.moreColumns.push_back({QStringLiteral("q%1").arg(j), binary()});
    }
    s.mechanism.epsilon = 1;
    return s;
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestWindowTables : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(settings_.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_.path());
    }

    // 16 binary columns → 2¹⁶ = 65 536 cells: the table, the panel's summary, the Errors tab's
    // exact expected errors, the Sparse page and a release, all on the user's table.
    void sixteenBinaryColumns() {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("survey.csv"));
        const auto cells = writeSurvey(csv);
        MainWindow w;
        w.engine()->setLongTrials(200);  // 65 536 bins: keep the long Monte Carlo pass short
        w.show();
        QVERIFY(waitForData(w));
        QVERIFY(applyAndWait(w, surveyState(csv)));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QVERIFY(d.jointTable);
        QVERIFY(w.document()->table() == d.jointTable);  // the document exposes the same table
        const ContingencyTable& t = *d.jointTable;
        QCOMPARE(t.attributeCount(), std::size_t(16));
        QVERIFY(t.cellCount() == CellCount{65536});
        QCOMPARE(t.occupiedCount(), static_cast<std::uint64_t>(cells.size()));
        QCOMPARE(t.total(), std::int64_t(3000));
        for (const auto& [index, count] : cells) {
            QCOMPARE(t.count(index), count);
        }
        QVERIFY(!d.dataDependent);
        QVERIFY(d.histogram);
        QCOMPARE(d.histogram->size(), std::size_t(65536));
        QCOMPARE(QString::fromStdString(d.histogram->labels()[65535]),
                 QStringLiteral("q0 = 1, q1 = 1, q2 = 1, q3 = 1, q4 = 1, q5 = 1, q6 = 1, q7 = 1, "
                                "q8 = 1, q9 = 1, q10 = 1, q11 = 1, q12 = 1, q13 = 1, q14 = 1, "
                                "q15 = 1"));
        // One record touches one cell: Δ1 = 1, Δ2 = 1 under add/remove.
        QCOMPARE(d.sensitivity.l1, 1.0);
        QCOMPARE(d.sensitivity.l2, 1.0);
        const QString summary = w.dataPanel()->summaryLabel()->text();
        QVERIFY2(summary.contains(QStringLiteral("16 attributes")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("<br>%1 cells").arg(QLocale().toString(65536))),
                 qPrintable(summary));
        QVERIFY2(
            summary.contains(QStringLiteral("%1 occupied")
                                 .arg(QLocale().toString(static_cast<qulonglong>(cells.size())))),
            qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("Δ1 = 1, Δ2 = 1")), qPrintable(summary));
        QCOMPARE(w.dataPanel()->attributeList()->count(), 16);

        // Errors tab: Laplace with b = Δ1/ε = 1 on p = 65 536 cells has E[SSE] = p·2b² and
        // E[L1] = p·b exactly (the sum of p independent Laplace terms).
        const ReleaseResult& r = w.engine()->release();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.truth.size(), std::size_t(65536));
        QVERIFY(r.expected[0][0].exact);
        QVERIFY(std::abs(r.expected[0][0].value - 131072) < 1e-6 * 131072);
        QVERIFY(std::abs(r.expected[0][1].value - 65536) < 1e-6 * 65536);
        QVERIFY(w.showTab(QStringLiteral("errors")));
        const QStringList lines =
            w.errorsView()->toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() > 1);
        const double sse = lines[1].split(QLatin1Char(','))[4].toDouble();
        QVERIFY2(std::abs(sse - 131072) < 1e-6 * 131072, qPrintable(lines[1]));

        // The Sparse page on the window's table: its counts are the table's cells.
        QVERIFY(w.showTab(QStringLiteral("sparse")));
        auto* page =
            qobject_cast<SparsePage*>(w.moreMechanismsTab()->page(QStringLiteral("sparse")));
        QVERIFY(page);
        page->setData(SparsePage::Data::Window);
        page->setTrials(20);
        QVERIFY(page->run(true) || page->busy());
        QVERIFY(QTest::qWaitFor([page] { return page->hasResult() && !page->busy(); }, 60000));
        QCOMPARE(page->result().spec.data, SparsePage::Data::Window);
        QCOMPARE(page->result().counts.size(), std::size_t(65536));
        for (const auto& [index, count] : cells) {
            QCOMPARE(page->result().counts[index], count);
        }
        QVERIFY2(page->result().spec.dataTitle.contains(QStringLiteral("q0 × q1")),
                 qPrintable(page->result().spec.dataTitle));

        // A release of the table: one noisy value per cell, the metadata naming every attribute
        // and its bins.
        ReleaseDialog* dlg = w.releaseController()->open();
        QVERIFY(dlg);
        QList<QPair<bool, QString>> reports;
        dlg->setReport([&reports](bool ok, const QString& text) { reports.append({ok, text}); });
        dlg->setConfirmOverwrite([](const QStringList&) { return true; });
        dlg->setConfirmNewLedger([](const QStringList&) { return true; });
        const QString out = dir.filePath(QStringLiteral("survey-release.csv"));
        dlg->setOutputPath(out);
        dlg->setLedgerPath(dir.filePath(QStringLiteral("ledger.json")));
        dlg->findChild<QLineEdit*>(QStringLiteral("releaseBudgetEpsilon"))
            ->setText(QStringLiteral("2"));
        dlg->findChild<QLineEdit*>(QStringLiteral("releaseBudgetDelta"))
            ->setText(QStringLiteral("0"));
        QTest::qWait(0);
        QVERIFY(QTest::qWaitFor([dlg] { return !dlg->previewPending(); }, 20000));
        QVERIFY2(dlg->canRelease(), qPrintable(dlg->statusText()));
        dlg->startRelease();
        QVERIFY(QTest::qWaitFor([&] { return !reports.isEmpty(); }, 60000));
        QVERIFY2(reports.last().first, qPrintable(reports.last().second));
        const QList<QByteArray> released = readFile(out).trimmed().split('\n');
        QCOMPARE(released.size(), 65536 + 1);
        const QJsonObject md =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("survey-release.json"))))
                .object();
        const QString source = md.value(QStringLiteral("source")).toString();
        QVERIFY2(source.contains(QStringLiteral("table of 16 attributes")), qPrintable(source));
        for (int j = 0; j < 16; ++j) {
            QVERIFY2(source.contains(QStringLiteral("'q%1' (").arg(j)), qPrintable(source));
        }
        // The metadata's own attribute list (core/release releaseTable) and one CSV column per
        // attribute before the released value.
        const QJsonArray attrs = md.value(QStringLiteral("attributes")).toArray();
        QCOMPARE(attrs.size(), 16);
        for (int j = 0; j < 16; ++j) {
            QCOMPARE(attrs[j].toObject().value(QStringLiteral("name")).toString(),
                     QStringLiteral("q%1").arg(j));
        }
        // … and the interval columns (issue #22).
        QCOMPARE(released.front().split(',').size(), 19);
        QVERIFY2(released.front().startsWith("q0,q1,"), released.front().constData());
        QVERIFY2(released.front().endsWith(",value,lower,upper"), released.front().constData());
    }

    // Adult-like data: sex × class, declared categories; every cell equals the count made here.
    // The same table with categories taken from the data is flagged data-dependent.
    void adultSexByClass() {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("adult.csv"));
        std::map<std::pair<QString, QString>, std::int64_t> count;
        {
            QFile f(csv);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
            QTextStream out(&f);
            out << "sex,class\n";
            Rows rng{7};
            for (int i = 0; i < 4000; ++i) {
                const QString sex =
                    rng.next() % 3 == 0 ? QStringLiteral("Female") : QStringLiteral("Male");
                const double rich = sex == QStringLiteral("Male") ? 0.31 : 0.11;
                const QString cls = static_cast<double>(rng.next() % 10000) / 10000 < rich
                                        ? QStringLiteral(">50K")
                                        : QStringLiteral("<=50K");
                out << sex << "," << cls << "\n";
                ++count[{sex, cls}];
            }
        }
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        ExplorerState s = csvState(csv, QStringLiteral("sex"),
                                   categories({QStringLiteral("Female"), QStringLiteral("Male")}));
        s.data.moreColumns.push_back(
            {QStringLiteral("class"),
             categories({QStringLiteral("<=50K"), QStringLiteral(">50K")})});
        QVERIFY(applyAndWait(w, s));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QVERIFY(!d.dataDependent);
        const ContingencyTable t = *d.jointTable;  // a copy: the next load replaces the dataset
        QCOMPARE(t.attributeCount(), std::size_t(2));
        QCOMPARE(t.total(), std::int64_t(4000));
        const QStringList sexes{QStringLiteral("Female"), QStringLiteral("Male")};
        const QStringList classes{QStringLiteral("<=50K"), QStringLiteral(">50K")};
        for (std::uint64_t a = 0; a < 2; ++a) {
            for (std::uint64_t b = 0; b < 2; ++b) {
                const std::uint64_t coords[] = {a, b};
                const std::uint64_t cell = t.cellIndex(coords);
                QCOMPARE(t.count(cell), (count[{sexes[static_cast<qsizetype>(a)],
                                                classes[static_cast<qsizetype>(b)]}]));
                QCOMPARE(
                    QString::fromStdString(d.histogram->labels()[cell]),
                    QStringLiteral("sex = %1, class = %2")
                        .arg(sexes[static_cast<qsizetype>(a)], classes[static_cast<qsizetype>(b)]));
            }
        }
        QCOMPARE(d.histogram->counts(), t.denseCounts());
        const QString summary = w.dataPanel()->summaryLabel()->text();
        QVERIFY2(summary.contains(QStringLiteral("sex × class")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("2 × 2 = 4 cells")), qPrintable(summary));

        // A box selected on the Table tab reports what `dpx query` reports for the same box (the
        // tab's own dpx text) on the same file: true answer and exact expected errors.
        QVERIFY(w.showTab(QStringLiteral("table")));
        TableTab* tab = w.tableView();
        QVERIFY(QTest::qWaitFor([&] { return !tab->busy(); }, 30000));
        tab->selectBox(BinRange{1, 1}, BinRange{0, 1});  // sex = Male, both classes
        QVERIFY(QTest::qWaitFor([&] { return !tab->busy() && tab->readout(); }, 30000));
        const TableBoxReadout box = *tab->readout();
        QVERIFY(box.exact);
        const dpxtest::Run q = dpxtest::runDpx({QStringLiteral("query"),
                                                QStringLiteral("--data"),
                                                csv,
                                                QStringLiteral("--joint"),
                                                QStringLiteral("--column"),
                                                QStringLiteral("sex"),
                                                QStringLiteral("--bins"),
                                                QStringLiteral("categories:Female,Male"),
                                                QStringLiteral("--column"),
                                                QStringLiteral("class"),
                                                QStringLiteral("--bins"),
                                                QStringLiteral("categories:<=50K,>50K"),
                                                QStringLiteral("--box"),
                                                QString::fromStdString(box.dpxBox),
                                                QStringLiteral("--mechanism"),
                                                QStringLiteral("laplace"),
                                                QStringLiteral("--epsilon"),
                                                QString::number(s.mechanism.epsilon, 'g', 17),
                                                QStringLiteral("--level"),
                                                QString::number(box.exact->level, 'g', 17)});
        QVERIFY2(q.exitCode == 0 && q.jsonOk, q.err.constData());
        QCOMPARE(q.json.value(QStringLiteral("true_answer")).toInteger(), box.truth);
        const std::int64_t males = count[{QStringLiteral("Male"), QStringLiteral("<=50K")}] +
                                   count[{QStringLiteral("Male"), QStringLiteral(">50K")}];
        QCOMPARE(box.truth, males);
        const QJsonObject err = q.json.value(QStringLiteral("expected_error")).toObject();
        QCOMPARE(err.value(QStringLiteral("rmse")).toDouble(), box.exact->rmse);
        QCOMPARE(err.value(QStringLiteral("mean_abs")).toDouble(), box.exact->meanAbsError);
        QCOMPARE(err.value(QStringLiteral("half_width")).toDouble(), box.exact->halfWidth);

        // Categories from the data: the same cells, flagged, and the release refuses them.
        ExplorerState found = s;
        found.data.binningOf(1).categories.clear();
        QVERIFY(applyAndWait(w, found));
        const DatasetResult& e = w.engine()->dataset();
        QVERIFY2(e.error.isEmpty(), qPrintable(e.error));
        QVERIFY(e.dataDependent);
        QVERIFY2(e.dataDependentText.contains(QStringLiteral("'class'")),
                 qPrintable(e.dataDependentText));
        QCOMPARE(e.jointTable->denseCounts(), t.denseCounts());
        QVERIFY(!releaseContextOf(w.document()->state(), e).refusal.isEmpty());
    }

    // The data panel's buttons add and remove attributes as undoable steps; the column box then
    // edits the selected attribute; a session keeps them.
    void panelAddsAttributesWithUndoAndSessions() {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("survey.csv"));
        writeSurvey(csv);
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        const ExplorerState s = csvState(csv, QStringLiteral("q3"), binary());
        QVERIFY(applyAndWait(w, s));
        DataPanel* panel = w.dataPanel();
        QCOMPARE(panel->attributeList()->count(), 1);
        QVERIFY(!panel->removeAttributeButton()->isEnabled());
        {
            QSignalSpy shown(&w, &MainWindow::releaseShown);
            panel->addAttributeButton()->click();  // the first column not chosen: q0
            QVERIFY(shown.wait(30000));
        }
        QCOMPARE(w.document()->state().data.attributeCount(), std::size_t(2));
        QCOMPARE(w.document()->state().data.columnOf(1), QStringLiteral("q0"));
        QCOMPARE(panel->selectedAttribute(), std::size_t(1));
        QCOMPARE(panel->columnBox()->currentText(), QStringLiteral("q0"));
        QCOMPARE(panel->attributeList()->count(), 2);
        QVERIFY(panel->removeAttributeButton()->isEnabled());
        QCOMPARE(w.engine()->dataset().jointTable->attributeCount(), std::size_t(2));
        // The binning controls edit the selected attribute.
        {
            QSignalSpy shown(&w, &MainWindow::releaseShown);
            panel->edgesEdit()->setText(QStringLiteral("0, 0.5, 1"));
            QMetaObject::invokeMethod(panel->edgesEdit(), "editingFinished");
            QVERIFY(shown.wait(30000));
        }
        QCOMPARE(w.document()->state().data.binningOf(1).kind, BinningChoice::Edges);
        QCOMPARE(w.document()->state().data.binningOf(0), binary());
        const ExplorerState two = w.document()->state();
        {
            QSignalSpy shown(&w, &MainWindow::releaseShown);
            panel->addAttributeButton()->click();  // q1
            QVERIFY(shown.wait(30000));
        }
        const ExplorerState three = w.document()->state();
        QCOMPARE(three.data.attributeCount(), std::size_t(3));
        QVERIFY(w.engine()->dataset().jointTable->cellCount() == CellCount{2 * 2 * 2});

        // Undo and redo.
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->state(), two);
        QTRY_COMPARE_WITH_TIMEOUT(panel->attributeList()->count(), 2, 10000);
        w.document()->undoStack()->redo();
        QCOMPARE(w.document()->state(), three);
        QTRY_VERIFY_WITH_TIMEOUT(!w.engine()->busy(), 30000);
        QCOMPARE(w.engine()->dataset().jointTable->attributeCount(), std::size_t(3));

        // Remove the selected (the last) attribute, then the session round-trip.
        {
            QSignalSpy shown(&w, &MainWindow::releaseShown);
            panel->removeAttributeButton()->click();
            QVERIFY(shown.wait(30000));
        }
        QCOMPARE(w.document()->state().data.attributeCount(), std::size_t(2));
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->state(), three);
        const QString session = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(w.document()->saveSession(session).hasValue());
        MainWindow other;
        other.show();
        QVERIFY(waitForData(other));
        QSignalSpy shown(&other, &MainWindow::releaseShown);
        QVERIFY(other.document()->loadSession(session).hasValue());
        QVERIFY(shown.wait(30000));
        QCOMPARE(other.document()->state(), three);
        QCOMPARE(other.engine()->dataset().jointTable->attributeCount(), std::size_t(3));
        QCOMPARE(other.dataPanel()->attributeList()->count(), 3);
    }

    // Beyond 100 000 cells the histogram views say why they show nothing; the table is there, and
    // the Sparse page runs on it without visiting the empty cells.
    void largeTableHasAMessage() {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("wide.csv"));
        {
            QFile f(csv);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
            QTextStream out(&f);
            out << "a,b,c\n";
            for (int i = 0; i < 100; ++i) {
                out << i << "," << (i * 7) % 100 << "," << (i * 13) % 100 << "\n";
            }
        }
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        ColumnBinning hundred;
        hundred.kind = BinningChoice::EqualWidth;
        hundred.bins = 100;
        hundred.rangeLo = 0;
        hundred.rangeHi = 100;
        ExplorerState s = csvState(csv, QStringLiteral("a"), hundred);
        s.data.moreColumns.push_back({QStringLiteral("b"), hundred});
        s.data.moreColumns.push_back({QStringLiteral("c"), hundred});
        QVERIFY(applyAndWait(w, s));
        const DatasetResult& d = w.engine()->dataset();
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QVERIFY(d.jointTable);
        QVERIFY(d.jointTable->cellCount() == CellCount{1000000});
        QCOMPARE(d.jointTable->occupiedCount(), std::uint64_t(100));
        QVERIFY(!d.histogram);
        QVERIFY2(d.histogramWhy.contains(QStringLiteral("1000000 cells")),
                 qPrintable(d.histogramWhy));
        QCOMPARE(w.engine()->release().error, d.histogramWhy);
        QCOMPARE(releaseContextOf(w.document()->state(), d).error, d.histogramWhy);

        QVERIFY(w.showTab(QStringLiteral("sparse")));
        auto* page =
            qobject_cast<SparsePage*>(w.moreMechanismsTab()->page(QStringLiteral("sparse")));
        QVERIFY(page);
        page->setData(SparsePage::Data::Window);
        page->setTrials(200);
        QVERIFY(page->run(true) || page->busy());
        QVERIFY(QTest::qWaitFor([page] { return page->hasResult() && !page->busy(); }, 60000));
        const SparsePage::Result& r = page->result();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(r.spec.table == d.jointTable);
        QVERIFY(r.domain.has_value());
        QVERIFY(r.domain->cells == CellCount{1000000});
        QCOMPARE(r.mc.trials, std::uint64_t(200));
        // The exact values are those of the core on the same table and ε (the window's ε = 1).
        auto exact = sparseDomainExpectedError(*d.jointTable, r.spec.params);
        QVERIFY(exact.hasValue());
        QCOMPARE(r.domain->thresholdedL1, exact->thresholdedL1);
        QCOMPARE(r.mc.expected.thresholdedL1, exact->thresholdedL1);
        // The per-cell view: every occupied cell with its count (each row is its own cell).
        std::size_t occupiedShown = 0;
        for (std::size_t i = 0; i < r.counts.size(); ++i) {
            QCOMPARE(r.counts[i], d.jointTable->count(r.cellIndices[i]));
            occupiedShown += r.counts[i] > 0 ? 1 : 0;
            QCOMPARE(r.labels[i], d.jointTable->cellLabel(r.cellIndices[i]));
        }
        QCOMPARE(occupiedShown, std::size_t(100));
        QVERIFY(std::is_sorted(r.cellIndices.begin(), r.cellIndices.end()));
        QVERIFY2(page->numbersText().contains(QLocale().toString(1000000)),
                 qPrintable(page->numbersText()));
    }

private:
    QTemporaryDir settings_;
};

QTEST_MAIN(TestWindowTables)
#include "tst_window_tables.moc"
