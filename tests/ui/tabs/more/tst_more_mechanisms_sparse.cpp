// The "Sparse histograms" page of the More mechanisms tab (issue #9, seed 003 §2.4.1), driven
// offscreen in a MainWindow: the seed's comparison on the two example tables (thresholded vs
// clamped Laplace at ε = 1 with the seed's trial counts) gives the numbers of
// docs/mechanisms/sparse-histogram.md, equal to core's sparseMonteCarlo run here and to the exact
// expected L1 written out independently; the plot carries the bound and the exact values; ε
// follows the window unless set on the page; bad inputs give messages; a run can be cancelled.
// The Trade-off tab offers the sparse release as a row ("Laplace + threshold (sparse)") next to
// Laplace clamped, with the same exact values at ε = 1.

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "core/histogram/example_datasets.h"
#include "core/mechanisms/sparse_histogram.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/tabs/more/more_mechanisms_tab.h"
#include "ui/tabs/more/sparse_page.h"
#include "ui/tabs/tradeoff_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using namespace dpx::ui;

namespace {

SparsePage* sparsePage(MainWindow& w) {
    if (!w.showTab(QStringLiteral("sparse"))) {
        return nullptr;
    }
    return qobject_cast<SparsePage*>(w.moreMechanismsTab()->page(QStringLiteral("sparse")));
}

bool waitIdle(SparsePage* page, int ms = 30000) {
    return QTest::qWaitFor([page] { return !page->busy(); }, ms);
}

// Exact E|out − h| of one cell, out = (h + L)·1[h + L > τ], L ~ Laplace(b), written out here from
// the definition (not core's function): with t = τ − h, E = h·Pr[L ≤ t] + E[|L|·1{L > t}].
double cellExpected(double h, double b, double tau) {
    const double t = tau - h;
    const double cdf = t >= 0 ? 1 - 0.5 * std::exp(-t / b) : 0.5 * std::exp(t / b);
    // E[|L|·1{L > t}]: for t ≥ 0, ∫_t^∞ x e^{−x/b}/(2b) dx = ½e^{−t/b}(t + b); for t < 0, the
    // whole E|L| = b minus ∫_{−∞}^{t} (−x) e^{x/b}/(2b) dx = ½e^{t/b}(b − t).
    const double tail =
        t >= 0 ? 0.5 * std::exp(-t / b) * (t + b) : b - 0.5 * std::exp(t / b) * (b - t);
    return h * cdf + tail;
}

double exactTotal(const std::vector<std::int64_t>& counts, double b, double tau) {
    double s = 0;
    for (auto c : counts) {
        s += cellExpected(static_cast<double>(c), b, tau);
    }
    return s;
}

const QCPGraph* graphNamed(const QCustomPlot* plot, const QString& prefix) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name().startsWith(prefix)) {
            return plot->graph(i);
        }
    }
    return nullptr;
}

}  // namespace

class TestMoreMechanismsSparse : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    // The seed's comparison at ε = 1 on the two tables; reference values: docs/mechanisms/
    // sparse-histogram.md (dpx sparse --example … --epsilon 1 --seed 1, 15 000 / 1 000 trials).
    void seedComparison_data() {
        QTest::addColumn<int>("data");
        QTest::addColumn<int>("trials");
        QTest::addColumn<double>("meanThresholded");
        QTest::addColumn<double>("meanClamped");
        QTest::addColumn<QString>("thresholdedText");
        QTest::addColumn<QString>("clampedText");
        QTest::addColumn<double>("seedBound");
        QTest::newRow("edwards-like")
            << static_cast<int>(SparsePage::Data::EdwardsLike) << 15000 << 66.27042132438052
            << 79.24006920112738 << QStringLiteral("66.27 ± 0.072")
            << QStringLiteral("79.24 ± 0.11") << 232.14973875118523;
        QTest::newRow("nltcs-like")
            << static_cast<int>(SparsePage::Data::NltcsLike) << 1000 << 6946.457886983028
            << 67353.15684487807 << QStringLiteral("6946 ± 1.3") << QStringLiteral("67353 ± 14")
            << 76229.68757488728;
    }
    void seedComparison() {
        QFETCH(int, data);
        QFETCH(int, trials);
        QFETCH(double, meanThresholded);
        QFETCH(double, meanClamped);
        QFETCH(QString, thresholdedText);
        QFETCH(QString, clampedText);
        QFETCH(double, seedBound);
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        SparsePage* page = sparsePage(w);
        QVERIFY(page);
        const auto d = static_cast<SparsePage::Data>(data);
        page->setData(d);
        page->setOwnEpsilon(1.0);
        page->setThreshold(std::nullopt);
        page->setTrials(trials);
        page->setSeed(1);
        QVERIFY(page->run());
        QVERIFY(waitIdle(page));
        QVERIFY2(page->hasResult(), qPrintable(page->statusText()));
        const auto& r = page->result();
        QCOMPARE(r.mc.trials, std::uint64_t(trials));

        // The same Monte Carlo in core, run here: identical (thread-count independent).
        auto h = makeExample(d == SparsePage::Data::EdwardsLike ? "edwards-like" : "nltcs-like");
        QVERIFY(h);
        QCOMPARE(r.counts, h->counts());
        MonteCarloOptions mo;
        mo.trials = static_cast<std::uint64_t>(trials);
        mo.seed = 1;
        mo.threads = 1;
        auto mc = sparseMonteCarlo(h->counts(), SparseHistogramParams{1.0, std::nullopt}, mo);
        QVERIFY(mc);
        QCOMPARE(r.mc.meanThresholded, mc->meanThresholded);
        QCOMPARE(r.mc.meanClamped, mc->meanClamped);
        // The documented figures (dpx sparse, the same code): to rounding of the last digits.
        QVERIFY2(std::abs(r.mc.meanThresholded - meanThresholded) < 1e-9 * meanThresholded,
                 qPrintable(QString::number(r.mc.meanThresholded, 'g', 17)));
        QVERIFY2(std::abs(r.mc.meanClamped - meanClamped) < 1e-9 * meanClamped,
                 qPrintable(QString::number(r.mc.meanClamped, 'g', 17)));

        // Exact expected L1, independently: b = 2, τ = 2 ln p (thresholded) and τ = 0 (clamped).
        const double p = static_cast<double>(h->size());
        const double tau = 2 * std::log(p);
        const double exactT = exactTotal(h->counts(), 2, tau);
        const double exactC = exactTotal(h->counts(), 2, 0);
        QVERIFY(std::abs(r.mc.expected.thresholdedL1 - exactT) < 1e-9 * exactT);
        QVERIFY(std::abs(r.mc.expected.clampedL1 - exactC) < 1e-9 * exactC);
        QVERIFY(r.mc.expected.seedBound.has_value());
        QVERIFY(std::abs(*r.mc.expected.seedBound - seedBound) < 1e-9 * seedBound);
        // The Monte Carlo agrees with the exact values within 4 standard errors.
        QVERIFY(std::abs(r.mc.meanThresholded - exactT) < 4 * r.mc.seThresholded);
        QVERIFY(std::abs(r.mc.meanClamped - exactC) < 4 * r.mc.seClamped);

        // The plot: the two distributions (each sums to 100 % of the trials), the exact values
        // and the seed's bound as vertical lines at the right places.
        const QCustomPlot* plot = page->plot();
        for (const QString& name :
             {QStringLiteral("thresholded (τ"), QStringLiteral("clamped at 0")}) {
            const QCPGraph* g = graphNamed(plot, name);
            QVERIFY2(g, qPrintable(name));
            double sum = 0;
            for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
                sum += it->value;
            }
            QVERIFY(std::abs(sum / 2 - 100) < 1e-6);  // every bar is drawn as two steps
        }
        const QCPGraph* bound = graphNamed(plot, QStringLiteral("bound ((2q+1)/ε)(ln p + 1)"));
        QVERIFY(bound);
        QCOMPARE(bound->data()->constBegin()->key, *r.mc.expected.seedBound);
        const QCPGraph* exT = graphNamed(plot, QStringLiteral("thresholded: exact"));
        QVERIFY(exT);
        QCOMPARE(exT->data()->constBegin()->key, r.mc.expected.thresholdedL1);
        QVERIFY(plot->xAxis->range().upper >= *r.mc.expected.seedBound);
        // "Show" zooms the x axis on one distribution (all its trials in view; on the NLTCS-like
        // table the other is out of view: they do not overlap there).
        auto* zoom = page->findChild<QComboBox*>(QStringLiteral("sparseZoom"));
        QVERIFY(zoom);
        zoom->setCurrentIndex(1);
        const QCPRange zr = plot->xAxis->range();
        const auto [tMin, tMax] =
            std::minmax_element(r.mc.thresholdedL1.begin(), r.mc.thresholdedL1.end());
        const auto [cMin, cMax] = std::minmax_element(r.mc.clampedL1.begin(), r.mc.clampedL1.end());
        QVERIFY(zr.lower < *tMin && zr.upper > *tMax);
        const bool apart = d == SparsePage::Data::NltcsLike;
        QVERIFY(!apart || zr.upper < *cMin);
        zoom->setCurrentIndex(2);
        QVERIFY(plot->xAxis->range().lower < *cMin && plot->xAxis->range().upper > *cMax);
        QVERIFY(!apart || plot->xAxis->range().lower > *tMax);
        zoom->setCurrentIndex(0);
        QCOMPARE(plot->xAxis->range().lower, 0.0);

        // The text panel.
        const QString text = page->numbersText();
        QVERIFY2(text.contains(thresholdedText) && text.contains(clampedText), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("15000 trials")) == (trials == 15000),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("seed 1")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("synthetic")), qPrintable(text));

        // The release shown is the first trial's: its L1 error is that trial's.
        double l1 = 0;
        std::size_t nonZero = 0;
        for (std::size_t i = 0; i < r.counts.size(); ++i) {
            l1 += std::abs(r.release[i] - static_cast<double>(r.counts[i]));
            nonZero += r.release[i] != 0 ? 1 : 0;
            QVERIFY(r.release[i] == 0 || r.release[i] > tau);
        }
        QVERIFY(std::abs(l1 - r.mc.thresholdedL1[0]) < 1e-9 * l1);
        // The per-cell plot: every cell of the 64-cell table; for 2^16 cells only those occupied
        // or released non-zero (not 65 536 bars).
        const auto* bars = qobject_cast<QCPBars*>(page->cellsPlot()->plottable(0));
        QVERIFY(bars);
        std::size_t occupiedOrReleased = 0;
        for (std::size_t i = 0; i < r.counts.size(); ++i) {
            occupiedOrReleased += (r.counts[i] > 0 || r.release[i] != 0) ? 1 : 0;
        }
        QCOMPARE(static_cast<std::size_t>(bars->dataCount()),
                 r.counts.size() <= 128 ? r.counts.size() : occupiedOrReleased);
        QVERIFY(nonZero < r.counts.size());
        if (qEnvironmentVariableIsSet("DPX_SPARSE_PNG")) {  // for looking at the plots
            const QString dir = qEnvironmentVariable("DPX_SPARSE_PNG");
            page->plot()->savePng(dir + QStringLiteral("/l1-") +
                                      QString::fromLatin1(QTest::currentDataTag()) +
                                      QStringLiteral(".png"),
                                  900, 600);
            page->cellsPlot()->savePng(dir + QStringLiteral("/cells-") +
                                           QString::fromLatin1(QTest::currentDataTag()) +
                                           QStringLiteral(".png"),
                                       900, 600);
        }
    }

    // Without its own ε the page uses the window's, and follows it.
    void followsWindowEpsilon() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        SparsePage* page = sparsePage(w);
        QVERIFY(page);
        page->setTrials(200);
        QVERIFY(QTest::qWaitFor([page] { return page->hasResult() && !page->busy(); }, 30000));
        QCOMPARE(page->result().spec.data, SparsePage::Data::Window);
        QCOMPARE(page->result().spec.params.epsilon, w.document()->state().mechanism.epsilon);
        const auto& truth = w.engine()->dataset().histogram;
        QVERIFY(truth);
        QCOMPARE(page->result().counts, truth->counts());

        ExplorerState s = w.document()->state();
        s.mechanism.epsilon = 0.25;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QVERIFY(QTest::qWaitFor(
            [page] {
                return !page->busy() && page->hasResult() &&
                       page->result().spec.params.epsilon == 0.25;
            },
            30000));
        QCOMPARE(page->result().mc.expected.scale, 8.0);    // b = 2/ε
        if (qEnvironmentVariableIsSet("DPX_SPARSE_PNG")) {  // for looking at the plots
            const QString dir = qEnvironmentVariable("DPX_SPARSE_PNG");
            page->plot()->savePng(dir + QStringLiteral("/l1-window.png"), 900, 600);
            page->cellsPlot()->savePng(dir + QStringLiteral("/cells-window.png"), 900, 600);
        }
        QVERIFY(page->numbersText().contains(QStringLiteral("the window's ε")));

        // Its own ε overrides the window's.
        page->setOwnEpsilon(10.0);
        QVERIFY(page->run());
        QVERIFY(waitIdle(page));
        QCOMPARE(page->result().spec.params.epsilon, 10.0);
        QVERIFY(page->numbersText().contains(QStringLiteral("set on this page")));
        // A τ of the user's: no seed bound (it is for the default τ), the bound at τ instead.
        page->setThreshold(3.5);
        QVERIFY(page->run());
        QVERIFY(waitIdle(page));
        QCOMPARE(page->result().mc.expected.threshold, 3.5);
        QVERIFY(!page->result().mc.expected.seedBound);
        QVERIFY(graphNamed(page->plot(), QStringLiteral("bound at τ")));
    }

    void badInputs_data() {
        QTest::addColumn<QString>("epsilon");
        QTest::addColumn<QString>("tau");
        QTest::addColumn<QString>("message");
        QTest::newRow("ε text") << QStringLiteral("abc") << QString()
                                << QStringLiteral("ε: 'abc' is not a number");
        QTest::newRow("ε 0") << QStringLiteral("0") << QString() << QStringLiteral("ε");
        QTest::newRow("ε negative") << QStringLiteral("-1") << QString() << QStringLiteral("ε");
        QTest::newRow("ε nan") << QStringLiteral("nan") << QString() << QStringLiteral("ε");
        QTest::newRow("ε inf") << QStringLiteral("inf") << QString() << QStringLiteral("ε");
        QTest::newRow("τ negative")
            << QStringLiteral("1") << QStringLiteral("-3") << QStringLiteral("τ");
        QTest::newRow("τ text") << QStringLiteral("1") << QStringLiteral("x")
                                << QStringLiteral("τ: 'x' is not a number");
        QTest::newRow("τ inf") << QStringLiteral("1") << QStringLiteral("inf")
                               << QStringLiteral("τ");
    }
    void badInputs() {
        QFETCH(QString, epsilon);
        QFETCH(QString, tau);
        QFETCH(QString, message);
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        SparsePage* page = sparsePage(w);
        QVERIFY(page);
        QVERIFY(QTest::qWaitFor([page] { return page->hasResult() && !page->busy(); }, 30000));
        page->setOwnEpsilon(1.0);
        page->epsilonEdit()->setText(epsilon);
        if (!tau.isEmpty()) {
            page->setThreshold(1.0);
            page->thresholdEdit()->setText(tau);
        }
        QVERIFY(!page->run());
        QVERIFY(!page->busy());
        QVERIFY(!page->hasResult());
        QVERIFY2(page->statusText().startsWith(message), qPrintable(page->statusText()));
        // A valid value again computes.
        page->epsilonEdit()->setText(QStringLiteral("2"));
        page->setThreshold(std::nullopt);
        QVERIFY(page->run());
        QVERIFY(waitIdle(page));
        QVERIFY(page->hasResult());
        QCOMPARE(page->result().spec.params.epsilon, 2.0);
    }

    // The trade-off tab's sparse row under replace-one neighbours on the Edwards-like table: exact
    // curves equal to the page's (and the docs') expected L1 at ε = 1 for thresholded and for
    // Laplace clamped; clamp and NoiseFirst are not offered for the sparse row; a click on a
    // sparse point does not switch the window (it is not a window mechanism); sessions refuse
    // sparse:noisefirst.
    void tradeoffRows() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        ExplorerState s = w.document()->state();
        s.data.exampleId = QStringLiteral("edwards-like");
        s.data.neighbouring = Neighbouring::Replace;
        s.tradeoff.configs = {QStringLiteral("laplace:clamp"), QStringLiteral("sparse:identity")};
        s.tradeoff.metric = Metric::L1;
        s.tradeoff.epsLo = 0.1;
        s.tradeoff.epsHi = 10;
        s.tradeoff.points = 3;
        s.mechanism.epsilon = 0.3;  // the current-ε marker away from the points clicked at ε = 1
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        TradeoffTab* v = w.tradeoffView();
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QVERIFY(QTest::qWaitFor(
            [v] {
                return !v->computing() && v->curves().size() == 2 &&
                       v->curves()[0].points.size() == 3 && v->curves()[1].points.size() == 3;
            },
            30000));
        const qsizetype si = v->curveIds().indexOf(QStringLiteral("sparse:identity"));
        const qsizetype ci = v->curveIds().indexOf(QStringLiteral("laplace:clamp"));
        QVERIFY(si >= 0 && ci >= 0);
        const CurvePoint& sp = v->curves()[static_cast<std::size_t>(si)].points[1];
        const CurvePoint& cp = v->curves()[static_cast<std::size_t>(ci)].points[1];
        QCOMPARE(sp.epsilon, 1.0);
        QVERIFY(sp.exact && cp.exact);
        // docs/mechanisms/sparse-histogram.md: exact 66.30646392470464 and 79.11921697729657.
        QVERIFY(std::abs(sp.value - 66.30646392470464) < 1e-9);
        QVERIFY(std::abs(cp.value - 79.11921697729657) < 1e-7);
        // The frontier at ε = 1 is the sparse row.
        bool sparseWins = false;
        for (const auto& fp : v->frontier().points) {
            sparseWins =
                sparseWins || (fp.epsilon == 1.0 && fp.curve == static_cast<std::size_t>(si));
        }
        QVERIFY(sparseWins);
        auto* clampBox = v->findChild<QCheckBox*>(QStringLiteral("tradeoff_sparse_clamp"));
        auto* nfBox = v->findChild<QCheckBox*>(QStringLiteral("tradeoff_sparse_noisefirst"));
        auto* idBox = v->findChild<QCheckBox*>(QStringLiteral("tradeoff_sparse_identity"));
        QVERIFY(clampBox && nfBox && idBox);
        QVERIFY(!clampBox->isEnabled() && !nfBox->isEnabled());
        QVERIFY(idBox->isEnabled() && idBox->isChecked());
        // A click on the sparse point at ε = 1 changes nothing in the document.
        QSignalSpy chosen(v, &TradeoffTab::configurationChosen);
        v->plot()->replot();  // the layout that pointPosition reads
        const QPoint at = v->pointPosition(static_cast<std::size_t>(si), 1);
        QVERIFY(v->plot()->rect().contains(at));
        QTest::mouseClick(v->plot(), Qt::LeftButton, {}, at);
        QTest::qWait(50);
        QCOMPARE(chosen.count(), 0);
        // …while one on Laplace clamped does (the test can fail).
        QTest::mouseClick(v->plot(), Qt::LeftButton, {},
                          v->pointPosition(static_cast<std::size_t>(ci), 1));
        QTRY_COMPARE(chosen.count(), 1);
        // Sessions: the sparse row's ids.
        QVERIFY(isTradeoffConfigId(QStringLiteral("sparse:identity")));
        QVERIFY(isTradeoffConfigId(QStringLiteral("sparse:resize")));
        QVERIFY(!isTradeoffConfigId(QStringLiteral("sparse:noisefirst")));
        QVERIFY(!isTradeoffConfigId(QStringLiteral("sparse:clamp")));
    }

    // A long run can be cancelled; the page says so and stops being busy.
    void cancel() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        SparsePage* page = sparsePage(w);
        QVERIFY(page);
        QVERIFY(QTest::qWaitFor([page] { return page->hasResult() && !page->busy(); }, 30000));
        page->setData(SparsePage::Data::NltcsLike);
        page->setTrials(1'000'000);
        QVERIFY(page->run());
        QVERIFY(page->busy());
        QTest::qWait(100);
        page->cancel();
        QVERIFY(!page->busy());
        QVERIFY2(page->statusText().startsWith(QStringLiteral("Cancelled")),
                 qPrintable(page->statusText()));
        // The plots keep the previous result (the window's histogram, 1 000 trials)…
        QVERIFY(page->hasResult());
        QCOMPARE(page->result().spec.data, SparsePage::Data::Window);
        // …a context update does not restart the cancelled run, but asking again does.
        w.showTab(QStringLiteral("histogram"));
        QVERIFY(w.showTab(QStringLiteral("sparse")));
        QVERIFY(!page->busy());
        auto* trials = page->findChild<QSpinBox*>(QStringLiteral("sparseTrials"));
        QVERIFY(trials);
        Q_EMIT trials->editingFinished();
        QVERIFY(page->busy());
        page->cancel();
        QVERIFY(!page->busy());
    }
};

QTEST_MAIN(TestMoreMechanismsSparse)
#include "tst_more_mechanisms_sparse.moc"
