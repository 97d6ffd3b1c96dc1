// The "Functional KDE" page of the More mechanisms tab (ui/tabs/more/kde_page.h), driven offscreen
// in a MainWindow: seed 003 Fig. 3.2's setting shows the pointwise sd 0.138099 on the page; the
// drawn true KDE and releases equal core's, recomputed here from the same data; a column of the
// window's dataset is used as it is with Silverman's h and the closed-form sd; the y axis keeps the
// true KDE readable at ε = 0.01 and releases hug the curve at ε = 10; a CSV column is read from the
// file; bad inputs give messages;
// "Draw again" and superseded runs behave.

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/mechanisms/functional_kde.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/model/job_runner.h"
#include "ui/tabs/more/kde_page.h"
#include "ui/tabs/more/more_mechanisms_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using namespace dpx::ui;

namespace {

constexpr int kTimeoutMs = 20000;
constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

KdePage* showKde(MainWindow& w) {
    w.resize(1500, 900);
    w.show();
    if (!w.showTab(QStringLiteral("kde"))) {
        return nullptr;
    }
    return w.findChild<KdePage*>(QStringLiteral("kdePage"));
}

bool settle(KdePage* page) {
    QTest::qWait(1);
    return QTest::qWaitFor([page] { return !page->busy(); }, kTimeoutMs);
}

// The drawn graphs: [band low, band high,] releases…, true KDE (last).
std::vector<double> graphValues(QCPGraph* g) {
    std::vector<double> v;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
        v.push_back(it->value);
    }
    return v;
}

double maxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) {
        return HUGE_VAL;
    }
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        d = std::max(d, std::abs(a[i] - b[i]));
    }
    return d;
}

// The closed form c(δ)·Δ/ε = √(2 ln(2/δ)) · √2/(n·√(2π)·h) / ε, written out here.
double closedFormSd(double n, double h, double eps, double delta) {
    return std::sqrt(2 * std::log(2 / delta)) * std::sqrt(2.0) /
           (n * std::sqrt(2 * std::numbers::pi) * h) / eps;
}

bool writeFile(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

bool openAndWait(MainWindow& w, const QString& path) {
    QSignalSpy ready(w.engine(), &ExplorerEngine::datasetReady);
    if (!w.openCsv(path)) {
        return false;
    }
    return ready.wait(kTimeoutMs) || !ready.isEmpty();
}

}  // namespace

class TestKdePage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    // Seed 003 Fig. 3.2: n = 100, h = 0.1, ε = 1, δ = 0.1 → sd 0.138099 (seed 003 §3.3.1, the
    // digest's reference), shown on the page; the drawn curves are core's for the same data.
    void fig32Setting() {
        MainWindow w;
        KdePage* page = showKde(w);
        QVERIFY(page);
        QVERIFY(settle(page));
        page->useFig32Setting();
        QVERIFY(settle(page));
        QVERIFY2(page->hasResult(), qPrintable(page->messageText()));
        const KdePageResult& r = page->result();
        QVERIFY(r.example);
        QCOMPARE(r.release.n, std::size_t(100));
        QCOMPARE(r.bandwidth, 0.1);
        QCOMPARE(r.epsilon, 1.0);
        QCOMPARE(r.delta, 0.1);
        QVERIFY(std::abs(r.release.noiseScale - 0.138099) < 5e-7);
        QVERIFY(std::abs(closedFormSd(100, 0.1, 1, 0.1) - 0.138099) < 5e-7);
        const QString info = page->infoText();
        QVERIFY2(info.contains(QStringLiteral("0.138099")), qPrintable(info));
        QVERIFY(info.contains(QStringLiteral("No jitter was needed")));
        QVERIFY(info.contains(QStringLiteral("rank 31")));
        QVERIFY(info.contains(QStringLiteral(
            "(ε, δ)-DP for the whole function (every grid point and any finer grid)")));

        // The same release from core, the data drawn with the window's seed.
        const std::uint64_t seed = w.document()->state().mechanism.seed;
        const auto data = twoClusterSample(100, seed);
        QVERIFY(data.hasValue());
        FunctionalKdeParams p;  // Fig. 3.2's setting: h 0.1, [0, 1], 1000 points, ε 1, δ 0.1
        p.samples = 5;
        p.seed = seed;
        const auto core = releaseFunctionalKde(*data, p);
        QVERIFY(core.hasValue());
        QCustomPlot* plot = page->plot();
        QCOMPARE(plot->graphCount(), 2 + 5 + 1);  // band, releases, truth
        QCOMPARE(graphValues(plot->graph(plot->graphCount() - 1)), core->trueKde);
        for (int k = 0; k < 5; ++k) {
            QCOMPARE(graphValues(plot->graph(2 + k)), core->releases[static_cast<std::size_t>(k)]);
        }
        // The band is f_D ± 2·sd.
        const auto lo = graphValues(plot->graph(0));
        const auto hi = graphValues(plot->graph(1));
        for (std::size_t j = 0; j < lo.size(); j += 97) {
            QVERIFY(std::abs(core->trueKde[j] - 2 * 0.138099 - lo[j]) < 1e-6);
            QVERIFY(std::abs(core->trueKde[j] + 2 * 0.138099 - hi[j]) < 1e-6);
        }
        QVERIFY(plot->xAxis->label().contains(QStringLiteral("no unit")));
        QCOMPARE(plot->yAxis->label(), QStringLiteral("density"));

        // Draw again: new releases from the next seed, the same data and true KDE.
        page->drawAgain();
        QVERIFY(settle(page));
        QCOMPARE(page->result().seed, seed + 1);
        QCOMPARE(page->result().release.trueKde, core->trueKde);
        QVERIFY(page->result().release.releases[0] != core->releases[0]);
    }

    // The default: the window's telemetry column 'hour', used as it is (hours), h from Silverman's
    // rule (two significant digits), the window's ε and δ, the sd in closed form.
    void windowColumn() {
        MainWindow w;
        KdePage* page = showKde(w);
        QVERIFY(page);
        QVERIFY(settle(page));
        QVERIFY2(page->hasResult(), qPrintable(page->messageText()));
        const KdePageResult& r = page->result();
        QVERIFY(!r.example);
        QCOMPARE(r.column, QStringLiteral("hour"));
        QCOMPARE(r.unit, QStringLiteral("hours"));
        const auto& table = w.engine()->dataset().table;
        QVERIFY(table);
        std::vector<double> x;
        for (double v : table->find("hour")->numbers()) {
            if (!std::isnan(v)) {
                x.push_back(v);
            }
        }
        QCOMPARE(r.release.n, x.size());
        const double sil = *silvermanBandwidth(x);
        QCOMPARE(r.silverman, sil);
        QVERIFY(std::abs(r.bandwidth - sil) <= 0.05 * sil);  // rounded to 2 significant digits
        const ExplorerState& s = w.document()->state();
        QCOMPARE(r.epsilon, s.mechanism.epsilon);
        QCOMPARE(r.delta, s.mechanism.delta);
        // The default σ is the analytic Gaussian one for Δ = √2/(n·√(2π)·h).
        QCOMPARE(r.calibration, GaussianCalibration::Analytic);
        const double n = static_cast<double>(x.size());
        const double sensitivity =
            std::sqrt(2.0) / (n * std::sqrt(2 * std::numbers::pi) * r.bandwidth);
        const double analytic = *gaussianSigma(
            {s.mechanism.epsilon, s.mechanism.delta, sensitivity, GaussianCalibration::Analytic});
        QVERIFY(std::abs(r.release.noiseScale - analytic) <= 1e-12 * analytic);
        // The grid is the data range ± 3h and the truth is core's KDE of the raw values.
        const auto [mn, mx] = std::minmax_element(x.begin(), x.end());
        QCOMPARE(r.release.grid.front(), *mn - 3 * r.bandwidth);
        QCOMPARE(r.release.grid.back(), *mx + 3 * r.bandwidth);
        const auto f = kernelDensity(x, r.bandwidth, r.release.grid);
        QVERIFY(f.hasValue());
        QCustomPlot* plot = page->plot();
        // (The page's KDE drops kernel terms below e^(−40.5) of the peak and uses a recurrence.)
        const double peak = *std::max_element(f->begin(), f->end());
        QVERIFY(maxAbsDiff(graphValues(plot->graph(plot->graphCount() - 1)), *f) <= 1e-12 * peak);
        QCOMPARE(plot->xAxis->label(), QStringLiteral("hour (hours)"));
        QCOMPARE(plot->yAxis->label(), QStringLiteral("density (1/hours)"));

        // The seed's calibration gives the closed form; the window's ε moves the page (it follows
        // by default) and the seed's σ scales like 1/ε.
        page->setCalibration(GaussianCalibration::Hall);
        QVERIFY(settle(page));
        const double sd = closedFormSd(n, r.bandwidth, s.mechanism.epsilon, s.mechanism.delta);
        QVERIFY(std::abs(page->result().release.noiseScale - sd) <= 1e-12 * sd);
        QVERIFY(page->infoText().contains(QStringLiteral("c(δ)·Δ/ε")));
        ExplorerState t = s;
        t.mechanism.epsilon = 0.5;
        QVERIFY(w.document()->apply(t, QStringLiteral("test")));
        QVERIFY(settle(page));
        QCOMPARE(page->result().epsilon, 0.5);
        QVERIFY(std::abs(page->result().release.noiseScale - 2 * sd) <= 1e-12 * sd);
    }

    // ε = 0.01: the noise is ~100× the sd at ε = 1, about 9× the KDE's peak. "Keep the true KDE
    // readable" keeps the axis within −1 … 2.5 × the peak and says how many values are cut off;
    // "Fit every release" shows them all. ε = 10: releases within 5 sd of the truth, with the
    // Prop 1.3.3 warning; ε = 20, δ = 1e-5 is refused (the exact profile fails).
    void epsilonExtremes() {
        MainWindow w;
        KdePage* page = showKde(w);
        QVERIFY(page);
        QVERIFY(settle(page));
        page->useFig32Setting();
        page->setEpsilonOverride(0.01);
        QVERIFY(settle(page));
        QVERIFY(page->hasResult());
        const auto& rel = page->result().release;
        QVERIFY(std::abs(rel.noiseScale - 13.8099) < 5e-4);
        const double peak = *std::max_element(rel.trueKde.begin(), rel.trueKde.end());
        QVERIFY(page->yHi() >= peak);
        QVERIFY(page->yHi() <= 2.5 * peak + 0.04 * 3.5 * peak + 1e-9);
        QVERIFY(page->yLo() >= -peak - 0.04 * 3.5 * peak - 1e-9);
        QVERIFY(page->clippedValues() > 0);
        QVERIFY2(page->messageText().contains(QStringLiteral("off the scale")),
                 qPrintable(page->messageText()));
        page->setYRange(KdePage::YRange::FitEverything);
        QCOMPARE(page->clippedValues(), std::size_t(0));
        double top = 0;
        for (const auto& v : rel.releases) {
            top = std::max(top, *std::max_element(v.begin(), v.end()));
        }
        QVERIFY(page->yHi() >= top);
        QVERIFY(page->messageText().contains(QStringLiteral("looks flat")));

        page->setYRange(KdePage::YRange::KeepTruthReadable);
        // ε = 10 with the seed's σ = 0.0138099 is refused (its exact δ is 0.26 > 0.1) ...
        page->setEpsilonOverride(10);
        QVERIFY(settle(page));
        QVERIFY(!page->hasResult());
        QVERIFY2(page->messageText().contains(QStringLiteral("NOT (ε, δ)-DP")) &&
                     page->messageText().contains(QStringLiteral("analytic calibration")),
                 qPrintable(page->messageText()));
        // ... the analytic σ is (ε, δ)-DP and the releases hug the curve.
        page->setCalibration(GaussianCalibration::Analytic);
        QVERIFY(settle(page));
        QVERIFY(page->hasResult());
        const auto& hug = page->result().release;
        const double sigma =
            *gaussianSigma({10, 0.1, hug.sensitivity, GaussianCalibration::Analytic});
        QVERIFY(std::abs(hug.noiseScale - sigma) <= 1e-12 * sigma);
        QVERIFY(hug.noiseScale < 0.05 * peak);
        QVERIFY(maxAbsDiff(hug.releases[0], hug.trueKde) < 5 * hug.noiseScale);
        QCOMPARE(page->clippedValues(), std::size_t(0));
        QVERIFY(page->messageText().isEmpty());

        // The seed's σ at ε = 2 passes the exact check, with the Prop 1.3.3 warning.
        page->setCalibration(GaussianCalibration::Hall);
        page->setEpsilonOverride(2);
        page->setDeltaOverride(1e-5);
        QVERIFY(settle(page));
        QVERIFY2(page->hasResult(), qPrintable(page->messageText()));
        QVERIFY(page->infoText().contains(
            QStringLiteral("Hall 2012, Prop. 1.3.3 is proven for ε ≤ 1")));
    }

    // Bad inputs: h ≤ 0 or not a number, a bad grid end, a constant column, n < 2 and a dataset
    // without numeric columns each give a message on the page and no result.
    void badInputs() {
        MainWindow w;
        KdePage* page = showKde(w);
        QVERIFY(page);
        QVERIFY(settle(page));
        for (const QString& h :
             {QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("abc")}) {
            page->setBandwidthText(h);
            QVERIFY(settle(page));
            QVERIFY(!page->hasResult());
            QVERIFY2(page->messageText().contains(QStringLiteral("must be a number > 0")),
                     qPrintable(page->messageText()));
        }
        page->setBandwidthText(QStringLiteral("0.5"));
        QVERIFY(settle(page));
        QVERIFY(page->hasResult());

        // A dataset without numeric columns (the seed 000 example: one text column 'bin').
        ExplorerState s = w.document()->state();
        s.data.exampleId = QStringLiteral("seed000");
        s.data.column.clear();
        s.data.binning.kind = BinningChoice::Auto;
        QSignalSpy ready(w.engine(), &ExplorerEngine::datasetReady);
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QVERIFY(ready.wait(kTimeoutMs) || !ready.isEmpty());
        QVERIFY(w.engine()->dataset().error.isEmpty());
        page->setSource(KdePage::Source::Column);
        QVERIFY(settle(page));
        QVERIFY(!page->hasResult());
        QVERIFY2(page->messageText().contains(QStringLiteral("has no numeric column")),
                 qPrintable(page->messageText()));
        // The example data still work on such a dataset.
        page->setSource(KdePage::Source::Example);
        QVERIFY(settle(page));
        QVERIFY(page->hasResult());
        page->setGridPoints(50);
        QVERIFY(settle(page));
        QCOMPARE(page->result().release.grid.size(), std::size_t(50));

        // A CSV file: the window keeps only its counts; the page reads the column's values from
        // the file (as dpx kde does) and lists only the numeric columns.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString csv = dir.filePath(QStringLiteral("values.csv"));
        QVERIFY(writeFile(csv, "name,value,other\na,3,1\nb,4.5,1\nc,,1\nd,8,1\n"));
        QVERIFY(openAndWait(w, csv));
        page->setSource(KdePage::Source::Column);
        page->setColumn(QStringLiteral("value"));
        QVERIFY(settle(page));
        QVERIFY2(page->hasResult(), qPrintable(page->messageText()));
        QCOMPARE(page->result().column, QStringLiteral("value"));
        QCOMPARE(page->result().n, std::size_t(3));
        QCOMPARE(page->result().missing, std::size_t(1));
        const std::vector<double> values{3, 4.5, 8};
        const auto f = kernelDensity(values, page->result().bandwidth, page->result().release.grid);
        QVERIFY(f.hasValue());
        QCustomPlot* plot = page->plot();
        const double peak = *std::max_element(f->begin(), f->end());
        QVERIFY(maxAbsDiff(graphValues(plot->graph(plot->graphCount() - 1)), *f) <= 1e-12 * peak);
        auto* chooser = page->findChild<QComboBox*>(QStringLiteral("kdeColumn"));
        QVERIFY(chooser);
        QCOMPARE(chooser->findText(QStringLiteral("name")), -1);
        // The constant column of the same file.
        page->setColumn(QStringLiteral("other"));
        QVERIFY(settle(page));
        QVERIFY(!page->hasResult());
        QVERIFY2(page->messageText().contains(QStringLiteral("constant column")),
                 qPrintable(page->messageText()));
    }

    // Columns the page refuses, on a table given directly: a constant column, a column with one
    // value (n < 2), no data at all.
    void badColumns() {
        JobRunner runner;
        KdePage page(&runner);
        page.resize(1200, 800);
        page.show();
        std::vector<DataColumn> cols;
        cols.push_back(DataColumn::numeric("constant", {3, 3, 3, 3}));
        cols.push_back(DataColumn::numeric("single", {7, kMissing, kMissing, kMissing}));
        cols.push_back(DataColumn::numeric("fine", {1, 2, 4, 8}));
        cols.push_back(DataColumn::text("label", {"a", "b", "c", "d"}));
        auto table = DataTable::create(std::move(cols));
        QVERIFY(table.hasValue());
        auto data = std::make_shared<DatasetResult>();
        data->table = std::make_shared<const DataTable>(std::move(*table));
        data->column = QStringLiteral("constant");
        data->sourceTitle = QStringLiteral("test table");
        MechanismPageContext c;
        c.dataset = data;
        page.setContext(c);
        QVERIFY(settle(&page));
        QVERIFY(!page.hasResult());
        QVERIFY2(page.messageText().contains(QStringLiteral("constant column")),
                 qPrintable(page.messageText()));
        page.setColumn(QStringLiteral("single"));
        QVERIFY(settle(&page));
        QVERIFY(!page.hasResult());
        QVERIFY2(page.messageText().contains(QStringLiteral("at least n = 2")),
                 qPrintable(page.messageText()));
        page.setColumn(QStringLiteral("fine"));
        QVERIFY(settle(&page));
        QVERIFY2(page.hasResult(), qPrintable(page.messageText()));
        QCOMPARE(page.result().n, std::size_t(4));
        // A declared grid far from the data: the true KDE is 0 there, and the page says so.
        auto* gridLo = page.findChild<QLineEdit*>(QStringLiteral("kdeGridLo"));
        auto* gridHi = page.findChild<QLineEdit*>(QStringLiteral("kdeGridHi"));
        QVERIFY(gridLo && gridHi);
        gridLo->setText(QStringLiteral("100"));
        gridHi->setText(QStringLiteral("200"));
        Q_EMIT gridHi->editingFinished();
        QVERIFY(settle(&page));
        QVERIFY(page.hasResult());
        QCOMPARE(page.result().release.grid.front(), 100.0);
        QVERIFY2(page.messageText().contains(QStringLiteral("lie outside it")),
                 qPrintable(page.messageText()));
        QVERIFY(page.yHi() > page.yLo());
        gridLo->setText(QStringLiteral("abc"));
        Q_EMIT gridLo->editingFinished();
        QVERIFY(settle(&page));
        QVERIFY(!page.hasResult());
        QVERIFY2(page.messageText().contains(QStringLiteral("Grid start")),
                 qPrintable(page.messageText()));
        gridLo->setText(QStringLiteral("9"));
        gridHi->setText(QStringLiteral("1"));
        Q_EMIT gridHi->editingFinished();
        QVERIFY(settle(&page));
        QVERIFY(!page.hasResult());
        QVERIFY2(page.messageText().contains(QStringLiteral("LO < HI")),
                 qPrintable(page.messageText()));
        gridLo->clear();
        gridHi->clear();
        Q_EMIT gridHi->editingFinished();
        QVERIFY(settle(&page));
        QVERIFY(page.hasResult());
        // The text column is not offered.
        auto* chooser = page.findChild<QComboBox*>(QStringLiteral("kdeColumn"));
        QVERIFY(chooser);
        QCOMPARE(chooser->count(), 3);
        QCOMPARE(chooser->findText(QStringLiteral("label")), -1);
        // No data loaded at all (the source stays the column: the user chose it).
        page.setSource(KdePage::Source::Column);
        MechanismPageContext none;
        page.setContext(none);
        QVERIFY(settle(&page));
        QVERIFY(!page.hasResult());
        QVERIFY2(page.messageText().contains(QStringLiteral("no data")),
                 qPrintable(page.messageText()));
    }

    // A change while a run computes supersedes it: h = 0.02 h on 2000 points of the telemetry
    // hours needs a factor of high rank (seconds); changing h to 0.7 stops it at its next pivot,
    // its result is dropped, and the page shows the last setting.
    void supersededRun() {
        MainWindow w;
        KdePage* page = showKde(w);
        QVERIFY(page);
        QVERIFY(settle(page));
        JobRunner* runner = w.engine()->runner();
        page->setGridPoints(2000);
        page->setBandwidthText(QStringLiteral("0.02"));
        QVERIFY(QTest::qWaitFor([runner] { return runner->isRunning(QStringLiteral("kde")); },
                                kTimeoutMs));
        QTest::qWait(100);
        QVERIFY(runner->isRunning(QStringLiteral("kde")));
        const auto dropped = runner->dropped();
        page->setBandwidthText(QStringLiteral("0.7"));
        QVERIFY(settle(page));
        QVERIFY(page->hasResult());
        QCOMPARE(page->result().bandwidth, 0.7);
        QCOMPARE(page->result().release.grid.size(), std::size_t(2000));
        QVERIFY(runner->dropped() > dropped);  // the h = 0.02 run never showed

        // The status bar's Cancel stops a slow run; a window change the page does not use (the
        // bins) neither restarts it nor redraws; the window's ε (followed) computes again.
        page->setBandwidthText(QStringLiteral("0.02"));
        QVERIFY(QTest::qWaitFor([runner] { return runner->isRunning(QStringLiteral("kde")); },
                                kTimeoutMs));
        runner->cancelLong();
        QVERIFY(settle(page));
        QVERIFY2(page->messageText().startsWith(QStringLiteral("Cancelled")),
                 qPrintable(page->messageText()));
        const auto started = runner->started();
        ExplorerState s = w.document()->state();
        s.data.binning.kind = BinningChoice::EqualWidth;
        s.data.binning.bins = 16;
        QSignalSpy ready(w.engine(), &ExplorerEngine::datasetReady);
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QVERIFY(ready.wait(kTimeoutMs) || !ready.isEmpty());
        QTest::qWait(200);
        QVERIFY(!page->busy());
        QVERIFY(!runner->isRunning(QStringLiteral("kde")));
        QVERIFY(page->messageText().startsWith(QStringLiteral("Cancelled")));
        page->setBandwidthText(QStringLiteral("0.5"));
        s.mechanism.epsilon = 2;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QVERIFY(settle(page));
        QVERIFY2(page->hasResult(), qPrintable(page->messageText()));
        QCOMPARE(page->result().epsilon, 2.0);
        QCOMPARE(page->result().bandwidth, 0.5);
        QVERIFY(runner->started() > started);
    }
};

QTEST_MAIN(TestKdePage)
#include "tst_more_mechanisms_kde.moc"
