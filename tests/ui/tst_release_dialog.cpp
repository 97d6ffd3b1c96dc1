// The window's Release dialog (issue #8): pre-filled from the document, previewing the budget,
// releasing on the JobRunner into real files through core/data/release_job, refusing over-budget
// releases and data-dependent bins, never replacing files without the (injected) confirmation,
// and the status bar's ledger label following every release.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

#include "core/data/privacy_ledger.h"
#include "ui/document.h"
#include "ui/engine.h"
#include "ui/main_window.h"
#include "ui/release_dialog.h"
#include "window_test_support.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;

namespace {

// Waits for the window's first computation (the built-in example at start-up).
bool waitForData(MainWindow& w) {
    QSignalSpy shown(&w, &MainWindow::releaseShown);
    return w.engine()->dataset().histogram.has_value() || shown.wait(30000);
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList entries(const QTemporaryDir& dir) {
    return QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

template <class T>
T* field(ReleaseDialog* d, const char* name) {
    return d->findChild<T*>(QLatin1String(name));
}

// Every key of a JSON value, recursively.
void collectKeys(const QJsonValue& v, QStringList& keys) {
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            keys << it.key();
            collectKeys(it.value(), keys);
        }
    } else if (v.isArray()) {
        for (const QJsonValue& x : v.toArray()) {
            collectKeys(x, keys);
        }
    }
}

struct Reports {
    QList<QPair<bool, QString>> list;
    int confirmations = 0;
    bool confirm = false;
    QStringList asked;
};

// Opens the dialog on the window with reports and confirmation captured (no modal boxes).
ReleaseDialog* openDialog(MainWindow& w, Reports& r) {
    ReleaseDialog* d = w.releaseController()->open();
    d->setReport([&r](bool ok, const QString& text) { r.list.append({ok, text}); });
    d->setConfirmOverwrite([&r](const QStringList& existing) {
        ++r.confirmations;
        r.asked = existing;
        return r.confirm;
    });
    return d;
}

bool waitForPreview(ReleaseDialog* d) {
    QTest::qWait(0);
    return QTest::qWaitFor([d] { return !d->previewPending(); }, 20000);
}

// Clicks Release (or calls startRelease when the button is disabled) and waits for the result.
bool releaseAndWait(ReleaseDialog* d, Reports& r) {
    const auto before = r.list.size();
    d->startRelease();
    return QTest::qWaitFor([&] { return r.list.size() > before; }, 30000);
}

}  // namespace

class TestReleaseDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    // The whole path on the built-in example: a release writes the CSV and its metadata (no seed,
    // no true counts), the ledger records it, the status bar's label shows what is left; a second
    // release over the budget is refused before the click and, forced, writes nothing; existing
    // files are replaced only after confirmation.
    void releaseChargesLedgerAndRefusesOverBudget() {
        QTemporaryDir dir;
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        QVERIFY(w.document()->state().source == SourceKind::Example);
        const std::vector<std::int64_t> truth = w.engine()->dataset().histogram->counts();
        QLabel* label = w.releaseController()->ledgerLabel();
        QCOMPARE(label->text(), QStringLiteral("No ledger"));

        Reports reports;
        ReleaseDialog* d = openDialog(w, reports);
        // Pre-filled from the document: ε = 1, discrete Laplace for the window's Laplace.
        QCOMPARE(field<QLineEdit>(d, "releaseEpsilon")->text(), QStringLiteral("1"));
        QCOMPARE(field<QComboBox>(d, "releaseMechanism")->currentData().toString(),
                 QStringLiteral("discrete-laplace"));
        QVERIFY(!field<QLineEdit>(d, "releaseDelta")->isEnabled());  // pure ε-DP: no δ
        const QString csv = dir.filePath(QStringLiteral("hours.csv"));
        const QString ledger = dir.filePath(QStringLiteral("ledger.json"));
        d->setOutputPath(csv);
        d->setLedgerPath(ledger);
        QCOMPARE(field<QLabel>(d, "releaseMetadataPath")->text(),
                 dir.filePath(QStringLiteral("hours.json")));
        QVERIFY(field<QLineEdit>(d, "releaseBudgetEpsilon")->isEnabled());  // new ledger
        field<QLineEdit>(d, "releaseBudgetEpsilon")->setText(QStringLiteral("2"));
        field<QLineEdit>(d, "releaseBudgetDelta")->setText(QStringLiteral("0"));
        field<QComboBox>(d, "releaseComposition")->setCurrentIndex(0);
        QVERIFY(waitForPreview(d));
        QVERIFY2(d->canRelease(), qPrintable(d->statusText()));
        QVERIFY2(d->budgetText().contains(QStringLiteral("after it: ε 1 of 2 left")),
                 qPrintable(d->budgetText()));

        QSignalSpy finished(d, &ReleaseDialog::releaseFinished);
        QVERIFY(releaseAndWait(d, reports));
        QVERIFY2(reports.list.last().first, qPrintable(reports.list.last().second));
        QVERIFY(reports.list.last().second.contains(csv));
        QVERIFY(reports.list.last().second.contains(QStringLiteral("ε 1 of 2 left")));
        QCOMPARE(finished.size(), 1);

        // The files: one value per declared bin, the metadata's mechanism and ε, no seed and no
        // true counts anywhere.
        const QList<QByteArray> lines = readFile(csv).trimmed().split('\n');
        QCOMPARE(lines.size(), static_cast<int>(truth.size()) + 1);
        int equal = 0;
        for (int i = 1; i < lines.size(); ++i) {
            const double v = lines[i].split(',').last().toDouble();
            equal += v == static_cast<double>(truth[static_cast<std::size_t>(i - 1)]);
        }
        QVERIFY(equal < static_cast<int>(truth.size()));  // noise was added
        const QByteArray jsonText = readFile(dir.filePath(QStringLiteral("hours.json")));
        const QJsonObject md = QJsonDocument::fromJson(jsonText).object();
        QCOMPARE(md.value(QStringLiteral("mechanism")).toString(),
                 QStringLiteral("discrete-laplace"));
        QCOMPARE(md.value(QStringLiteral("privacy")).toObject().value(QStringLiteral("epsilon")),
                 QJsonValue(QStringLiteral("1")));
        QStringList keys;
        collectKeys(md, keys);
        for (const QString& k : keys) {
            QVERIFY2(!k.contains(QStringLiteral("seed"), Qt::CaseInsensitive), qPrintable(k));
            QVERIFY2(!k.contains(QStringLiteral("count"), Qt::CaseInsensitive) ||
                         k == QStringLiteral("count"),
                     qPrintable(k));
        }
        QVERIFY(!jsonText.contains("seed"));
        QVERIFY(md.value(QStringLiteral("source")).toString().contains(QStringLiteral("hour")));

        auto l = data::PrivacyLedger::load(ledger.toStdString());
        QVERIFY2(l, l ? "" : l.error().message.c_str());
        QCOMPARE(l->releases().size(), std::size_t(1));
        QCOMPARE(l->releases()[0].epsilon, std::string("1"));
        QCOMPARE(l->releases()[0].mechanism, std::string("discrete-laplace"));
        QTRY_COMPARE_WITH_TIMEOUT(label->text(),
                                  QStringLiteral("Ledger ledger.json: ε 1 of 2 left"), 10000);

        // Over budget: refused with the ledger's explanation before the click...
        QVERIFY(waitForPreview(d));
        QVERIFY(!field<QLineEdit>(d, "releaseBudgetEpsilon")->isEnabled());  // ledger exists
        d->setOutputPath(dir.filePath(QStringLiteral("second.csv")));
        field<QLineEdit>(d, "releaseEpsilon")->setText(QStringLiteral("1.5"));
        QVERIFY(waitForPreview(d));
        QVERIFY(!d->canRelease());
        QVERIFY2(d->statusText().startsWith(QStringLiteral("Refused by the ledger")) &&
                     d->statusText().contains(QStringLiteral("left")),
                 qPrintable(d->statusText()));
        QVERIFY2(d->budgetText().contains(QStringLiteral("ε 1 of 2 left now")),
                 qPrintable(d->budgetText()));
        // ...and, forced, refused by the release itself with nothing written.
        const QStringList before = entries(dir);
        const QByteArray ledgerBefore = readFile(ledger);
        QVERIFY(releaseAndWait(d, reports));
        QVERIFY(!reports.list.last().first);
        QVERIFY2(reports.list.last().second.contains(QStringLiteral("nothing was written")),
                 qPrintable(reports.list.last().second));
        QCOMPARE(entries(dir), before);
        QCOMPARE(readFile(ledger), ledgerBefore);

        // Existing files: not replaced when the confirmation says no (nothing starts), replaced
        // when it says yes.
        d->setOutputPath(csv);
        field<QLineEdit>(d, "releaseEpsilon")->setText(QStringLiteral("0.5"));
        QVERIFY(waitForPreview(d));
        QVERIFY2(d->statusText().contains(QStringLiteral("you will be asked")),
                 qPrintable(d->statusText()));
        const QByteArray csvBefore = readFile(csv);
        reports.confirm = false;
        const auto reported = reports.list.size();
        d->startRelease();
        QCOMPARE(reports.confirmations, 1);
        QCOMPARE(reports.asked, QStringList({csv, dir.filePath(QStringLiteral("hours.json"))}));
        QTest::qWait(200);
        QCOMPARE(reports.list.size(), reported);  // no release ran
        QCOMPARE(readFile(csv), csvBefore);
        QCOMPARE(readFile(ledger), ledgerBefore);
        reports.confirm = true;
        QVERIFY(releaseAndWait(d, reports));
        QVERIFY2(reports.list.last().first, qPrintable(reports.list.last().second));
        QCOMPARE(reports.confirmations, 2);
        QCOMPARE(data::PrivacyLedger::load(ledger.toStdString())->releases().size(),
                 std::size_t(2));
        QTRY_COMPARE_WITH_TIMEOUT(label->text(),
                                  QStringLiteral("Ledger ledger.json: ε 0.5 of 2 left"), 10000);
    }

    // The discrete Gaussian: δ enabled, σ², ρ and the δ achieved shown; zCDP budgets in ρ.
    void gaussianShowsSigmaRhoAndDelta() {
        QTemporaryDir dir;
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        Reports reports;
        ReleaseDialog* d = openDialog(w, reports);
        field<QComboBox>(d, "releaseMechanism")->setCurrentIndex(1);
        QVERIFY(field<QLineEdit>(d, "releaseDelta")->isEnabled());
        field<QLineEdit>(d, "releaseDelta")->setText(QStringLiteral("1e-6"));
        d->setOutputPath(dir.filePath(QStringLiteral("g.csv")));
        d->setLedgerPath(dir.filePath(QStringLiteral("z.json")));
        field<QLineEdit>(d, "releaseBudgetEpsilon")->setText(QStringLiteral("3"));
        field<QLineEdit>(d, "releaseBudgetDelta")->setText(QStringLiteral("1e-5"));
        field<QComboBox>(d, "releaseComposition")->setCurrentIndex(1);
        QVERIFY(waitForPreview(d));
        QVERIFY2(d->canRelease(), qPrintable(d->statusText()));
        // ε = 1, δ = 1e-6, Δ = 1: σ² = 17.8995 (docs/security.md, calibrateDiscreteGaussian).
        QVERIFY2(d->gaussianText().contains(QStringLiteral("σ² = 17.8995 ")) &&
                     d->gaussianText().contains(QStringLiteral("δ achieved")),
                 qPrintable(d->gaussianText()));
        QVERIFY2(d->budgetText().contains(QStringLiteral("costs ρ = ")) &&
                     d->budgetText().contains(QStringLiteral("ρ ")),
                 qPrintable(d->budgetText()));
        QVERIFY(releaseAndWait(d, reports));
        QVERIFY2(reports.list.last().first, qPrintable(reports.list.last().second));
        QTRY_VERIFY_WITH_TIMEOUT(w.releaseController()->ledgerLabel()->text().startsWith(
                                     QStringLiteral("Ledger z.json: ρ ")),
                                 10000);
    }

    // geometric-matrix: n is published in the metadata, so the dialog never pre-fills the
    // window's automatic n (the largest count); a declared n is taken over.
    void groupSizeIsNotTakenFromTheData() {
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        ExplorerState s = w.document()->state();
        s.mechanism = MechanismChoice::CountGeometric;
        s.countN = 0;
        QVERIFY(applyAndWait(w, s));
        const auto counts = w.engine()->dataset().histogram->counts();
        const std::int64_t largest = *std::max_element(counts.begin(), counts.end());
        QVERIFY(largest != 100);
        Reports reports;
        ReleaseDialog* d = openDialog(w, reports);
        QCOMPARE(field<QComboBox>(d, "releaseMechanism")->currentData().toString(),
                 QStringLiteral("geometric-matrix"));
        QCOMPARE(d->findChild<QSpinBox*>(QStringLiteral("releaseGroupSize"))->value(), 100);
        d->close();
        QTRY_VERIFY(w.releaseController()->dialog() == nullptr);
        s.countN = 30;
        QVERIFY(applyAndWait(w, s));
        d = openDialog(w, reports);
        QCOMPARE(d->findChild<QSpinBox*>(QStringLiteral("releaseGroupSize"))->value(), 30);
    }

    // Bins taken from the data are refused, with the explanation, and nothing is written:
    // the example's range from the data, and a CSV whose automatic bins the loader marks as
    // data-dependent (DatasetResult::dataDependent).
    void dataDependentBinsAreRefused() {
        QTemporaryDir dir;
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        ExplorerState s = w.document()->state();
        s.binning = BinningChoice::EqualWidth;
        s.bins = 10;
        s.rangeLo = s.rangeHi = 0;  // the data's range
        QVERIFY(applyAndWait(w, s));
        Reports reports;
        ReleaseDialog* d = openDialog(w, reports);
        d->setOutputPath(dir.filePath(QStringLiteral("r.csv")));
        d->setLedgerPath(dir.filePath(QStringLiteral("l.json")));
        QVERIFY(waitForPreview(d));
        QVERIFY(!d->canRelease());
        QLabel* refusal = field<QLabel>(d, "releaseRefusal");
        QVERIFY(!refusal->isHidden());
        QVERIFY2(refusal->text().contains(QStringLiteral("depend on the data")),
                 qPrintable(refusal->text()));
        QVERIFY(releaseAndWait(d, reports));
        QVERIFY(!reports.list.last().first);
        QVERIFY(entries(dir).isEmpty());
        d->close();
        QTRY_VERIFY(w.releaseController()->dialog() == nullptr);

        const QString data = dir.filePath(QStringLiteral("ages.csv"));
        {
            QFile f(data);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("name,age\nann,34\nbob,41\ncid,34\n");
        }
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        QVERIFY(w.openCsv(data));
        QVERIFY(shown.wait(30000));
        QVERIFY(w.engine()->dataset().dataDependent);
        d = openDialog(w, reports);
        d->setOutputPath(dir.filePath(QStringLiteral("r.csv")));
        d->setLedgerPath(dir.filePath(QStringLiteral("l.json")));
        QVERIFY(waitForPreview(d));
        QVERIFY(!d->canRelease());
        QVERIFY2(
            field<QLabel>(d, "releaseRefusal")->text().contains(QStringLiteral("Data-dependent")),
            qPrintable(field<QLabel>(d, "releaseRefusal")->text()));
        const QStringList before = entries(dir);
        QVERIFY(releaseAndWait(d, reports));
        QVERIFY(!reports.list.last().first);
        QCOMPARE(entries(dir), before);
    }

    // A tampered ledger: the preview refuses with the ledger's error, and the status bar says the
    // ledger chosen in the dialog is unreadable.
    void tamperedLedgerIsShown() {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("l.json"));
        {
            auto l = data::PrivacyLedger::create("x", "1", "0", Composition::Basic);
            QVERIFY(l);
            QByteArray text = QByteArray::fromStdString(l->toJson());
            text.replace("\"1\"", "\"5\"");
            QFile f(ledger);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        MainWindow w;
        w.show();
        QVERIFY(waitForData(w));
        Reports reports;
        ReleaseDialog* d = openDialog(w, reports);
        d->setOutputPath(dir.filePath(QStringLiteral("r.csv")));
        d->setLedgerPath(ledger);
        QVERIFY(waitForPreview(d));
        QVERIFY(!d->canRelease());
        QVERIFY2(d->statusText().startsWith(QStringLiteral("Cannot release")) &&
                     d->statusText().contains(QStringLiteral("checksum")),
                 qPrintable(d->statusText()));
        // Choosing the ledger in the dialog is enough for the status bar to show it.
        QTRY_COMPARE_WITH_TIMEOUT(w.releaseController()->ledgerLabel()->text(),
                                  QStringLiteral("Ledger l.json: unreadable"), 10000);
    }
};

QTEST_MAIN(TestReleaseDialog)
#include "tst_release_dialog.moc"
