// The "Random DP" and "Selection" pages of the More mechanisms tab, driven offscreen in a real
// window: the drawn numbers are checked against closed forms written out here (the noise-free
// rule 2k(c_j + 1) ≤ γn, E‖p̃ − p̂‖₁ = m·2/(nε), the exponential mechanism's softmax) and against
// core run independently (Monte Carlo means ± SE, report-noisy-max by quadrature); ε follows the
// window or the page's own value; empty data, one bin and all-zero histograms give messages.

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <cmath>
#include <functional>

#include "core/mechanisms/exponential_mechanism.h"
#include "core/mechanisms/random_dp.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/tabs/more/more_mechanisms_tab.h"
#include "ui/tabs/more/rdp_page.h"
#include "ui/tabs/more/select_page.h"
#include "ui/widgets/epsilon_override.h"
#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;

namespace {

// Waits (processing events) until `done` holds; false after `ms`.
bool waitUntil(const std::function<bool()>& done, int ms = 20000) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms) {
            return false;
        }
        QTest::qWait(20);
    }
    return true;
}

// The telemetry example in `bins` equal bins on [0, 24] h (n = 10 000).
ExplorerState telemetry(int bins, double eps) {
    ExplorerState s;
    s.data.exampleId = QStringLiteral("telemetry");
    s.data.binning.kind = BinningChoice::EqualWidth;
    s.data.binning.bins = bins;
    s.data.binning.rangeLo = 0;
    s.data.binning.rangeHi = 24;
    s.mechanism.epsilon = eps;
    return s;
}

MechanismPageContext contextWith(std::vector<std::int64_t> counts, double eps,
                                 Neighbouring n = Neighbouring::AddRemove) {
    auto d = std::make_shared<DatasetResult>();
    auto h = Histogram::create(std::move(counts));
    if (h) {
        d->histogram = *h;
    }
    d->sourceTitle = QStringLiteral("test counts");
    d->column = QStringLiteral("x");
    MechanismPageContext c;
    c.dataset = d;
    c.epsilon = eps;
    c.neighbouring = n;
    return c;
}

QCPGraph* graphNamed(QCustomPlot* plot, const QString& prefix) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name().startsWith(prefix)) {
            return plot->graph(i);
        }
    }
    return nullptr;
}

void setTrials(RandomDpPage* page, int trials) {
    page->trialsControl()->setValue(trials);
    Q_EMIT page->trialsControl()->editingFinished();
}

// The exponential mechanism written out: P(j) = exp(c·u_j) / Σ_i exp(c·u_i), max-shifted.
std::vector<double> softmax(const std::vector<double>& u, double c) {
    double top = u[0];
    for (double v : u) {
        top = std::max(top, v);
    }
    double z = 0;
    std::vector<double> p(u.size());
    for (std::size_t j = 0; j < u.size(); ++j) {
        p[j] = std::exp(c * (u[j] - top));
        z += p[j];
    }
    for (double& v : p) {
        v /= z;
    }
    return p;
}

}  // namespace

class TestMoreMechanismsRdpSelect : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    // Random DP on telemetry in 16 bins at γ = 0.3: the un-noised cells are exactly those with
    // 2k(c_j + 1) ≤ γn, the drawn RDP release equals the truth there, the exact L1 is m·2/(nε),
    // the Monte Carlo equals core's with the same seed and agrees with the exact value within
    // 4 SE; the guarantee is labelled WEAKER than DP; ε follows the window, then the page's own.
    void randomDpPage() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(applyAndWait(w, telemetry(16, 1.0)));
        QVERIFY(w.showTab(QStringLiteral("rdp")));
        auto* page =
            qobject_cast<RandomDpPage*>(w.moreMechanismsTab()->page(QStringLiteral("rdp")));
        QVERIFY(page);
        QVERIFY(page->isVisible());
        setTrials(page, 400);
        page->gammaControl()->lineEdit()->setText(QStringLiteral("0.3"));
        Q_EMIT page->gammaControl()->lineEdit()->editingFinished();
        QVERIFY(waitUntil([&] {
            return !page->busy() && page->hasResult() && page->inputs().gamma == 0.3 &&
                   page->inputs().trials == 400;
        }));
        const auto& counts = w.engine()->dataset().histogram->counts();
        QCOMPARE(page->inputs().counts, counts);
        const std::size_t k = counts.size();
        double n = 0;
        for (auto c : counts) {
            n += static_cast<double>(c);
        }
        const auto& o = page->outcome();
        std::size_t free = 0;
        for (std::size_t j = 0; j < k; ++j) {
            const bool expectFree =
                2.0 * static_cast<double>(k) * (static_cast<double>(counts[j]) + 1) <= 0.3 * n;
            QCOMPARE(o.plan.noiseFree[j] != 0, expectFree);
            free += expectFree ? 1 : 0;
        }
        QVERIFY2(free > 0 && free < k, "the test needs noisy and un-noised cells");
        QVERIFY(std::abs(o.plan.expectedL1Rdp - static_cast<double>(k - free) * 2 / n) < 1e-15);
        QVERIFY(std::abs(o.plan.expectedL1Dp - static_cast<double>(k) * 2 / n) < 1e-15);

        // The drawn releases: RDP equals the truth exactly on un-noised cells only.
        QCPGraph* rdp = graphNamed(page->plot(), QStringLiteral("(ε, γ)-RDP release"));
        QCPGraph* dp = graphNamed(page->plot(), QStringLiteral("ε-DP release"));
        QVERIFY(rdp && dp);
        QVERIFY(rdp->name().contains(QStringLiteral("WEAKER")));
        QCOMPARE(rdp->data()->size(), static_cast<int>(k));
        for (std::size_t j = 0; j < k; ++j) {
            const double truth = static_cast<double>(counts[j]) / n;
            const double drawn = rdp->data()->at(static_cast<int>(j))->value;
            QCOMPARE(drawn == truth, o.plan.noiseFree[j] != 0);
            QCOMPARE(drawn, o.rdp[j]);
            QVERIFY(dp->data()->at(static_cast<int>(j))->value != truth);
        }

        // The Monte Carlo is core's with the window's seed, and agrees with the closed form.
        MonteCarloOptions mc;
        mc.trials = 400;
        mc.seed = w.document()->state().mechanism.seed;
        auto ref = randomDpMonteCarlo(counts, RandomDpParams{1.0, 0.3}, mc);
        QVERIFY(ref);
        QCOMPARE(o.mc.meanRdpL1, ref->meanRdpL1);
        QCOMPARE(o.mc.seDpL1, ref->seDpL1);
        QVERIFY(std::abs(o.mc.meanRdpL1 - o.plan.expectedL1Rdp) < 4 * o.mc.seRdpL1);
        QVERIFY(std::abs(o.mc.meanDpL1 - o.plan.expectedL1Dp) < 4 * o.mc.seDpL1);
        QVERIFY2(page->errorsText().contains(QString::number(o.mc.meanRdpL1, 'g', 4)),
                 qPrintable(page->errorsText()));
        QVERIFY(page->titleText().contains(QStringLiteral("WEAKER")));
        QVERIFY(page->cellsText().contains(QStringLiteral("%1 of %2").arg(free).arg(k)));
        auto* banner = page->findChild<QLabel*>(QStringLiteral("rdpWeakerBanner"));
        QVERIFY(banner && banner->isVisible() && banner->text().contains(QStringLiteral("WEAKER")));
        auto* explain = page->findChild<QLabel*>(QStringLiteral("rdpExplanation"));
        QVERIFY(explain && explain->isVisible() &&
                explain->text().contains(QStringLiteral("1 − γ")));

        // ε follows the window ...
        ExplorerState s = w.document()->state();
        s.mechanism.epsilon = 10;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QVERIFY(waitUntil([&] { return !page->busy() && page->inputs().epsilon == 10; }));
        QVERIFY(std::abs(page->outcome().plan.scale - 2 / (n * 10)) < 1e-18);
        // ... or the page's own value.
        page->epsilonControl()->findChild<QCheckBox*>()->setChecked(false);
        auto* field = page->epsilonControl()->findChild<LogSliderField*>();
        QVERIFY(field);
        field->lineEdit()->setText(QStringLiteral("0.01"));
        Q_EMIT field->lineEdit()->editingFinished();
        QVERIFY(waitUntil([&] { return !page->busy() && page->inputs().epsilon == 0.01; }));
        QVERIFY(std::abs(page->outcome().plan.scale - 2 / (n * 0.01)) < 1e-15);
        QCOMPARE(w.document()->state().mechanism.epsilon, 10.0);  // the window keeps its ε

        // A negative ε typed on the page is refused on the field; nothing is recomputed.
        field->lineEdit()->setText(QStringLiteral("-1"));
        Q_EMIT field->lineEdit()->editingFinished();
        QTest::qWait(50);
        QCOMPARE(page->inputs().epsilon, 0.01);
        QVERIFY(!field->lineEdit()->toolTip().isEmpty());

        // The status bar's Cancel stops the Monte Carlo: the page says so and is not busy.
        setTrials(page, 1'000'000);
        QVERIFY(page->busy());
        w.engine()->runner()->cancelLong();
        QVERIFY(waitUntil([&] { return !page->busy(); }));
        QVERIFY2(page->messageText().contains(QStringLiteral("Cancelled")),
                 qPrintable(page->messageText()));
        QCOMPARE(page->inputs().trials, std::uint64_t(400));  // the previous result stays
        setTrials(page, 500);                                 // and a new value computes again
        QVERIFY(waitUntil([&] { return !page->busy() && page->inputs().trials == 500; }));
        QVERIFY(!page->messageText().contains(QStringLiteral("Cancelled")));

        // A γ outside (0, 1) is refused on the field and nothing is recomputed.
        page->gammaControl()->lineEdit()->setText(QStringLiteral("1.5"));
        Q_EMIT page->gammaControl()->lineEdit()->editingFinished();
        QTest::qWait(50);
        QCOMPARE(page->inputs().gamma, 0.3);
        QVERIFY(!page->gammaControl()->lineEdit()->toolTip().isEmpty());
    }

    // No data, a load error, no records: messages, no result, never busy forever.
    void randomDpBadData() {
        JobRunner runner;
        RandomDpPage page(&runner);
        page.resize(1100, 700);
        page.show();
        MechanismPageContext none;
        page.setContext(none);
        QVERIFY(waitUntil([&] { return !page.busy(); }));
        QVERIFY(!page.hasResult());
        QVERIFY(page.messageText().contains(QStringLiteral("No data")));
        auto broken = std::make_shared<DatasetResult>();
        broken->error = QStringLiteral("file not found");
        none.dataset = broken;
        page.setContext(none);
        QVERIFY(page.messageText().contains(QStringLiteral("file not found")));
        page.setContext(contextWith({0, 0, 0}, 1));
        QVERIFY(!page.hasResult());
        QVERIFY2(page.messageText().contains(QStringLiteral("empty (n = 0")),
                 qPrintable(page.messageText()));
        QVERIFY(page.titleText().contains(QStringLiteral("no result")));
        // One cell: computed (p̂ = 1), never un-noised, and said so.
        page.setContext(contextWith({50}, 1));
        QVERIFY(waitUntil([&] { return !page.busy() && page.hasResult(); }));
        QCOMPARE(page.outcome().plan.noiseFreeCells, std::size_t(0));
        QVERIFY(page.cellsText().contains(QStringLiteral("single cell")));
        // A very sparse table where most cells are un-noised (n ≫ 2k/γ), at ε = 0.01.
        page.setContext(contextWith({2000, 1500, 1000, 400, 100, 0, 0, 0, 0, 0}, 0.01));
        QVERIFY(waitUntil(
            [&] { return !page.busy() && page.hasResult() && page.inputs().counts.size() == 10; }));
        QCOMPARE(page.outcome().plan.noiseFreeCells, std::size_t(5));  // 20·(0 + 1) ≤ 500
        QVERIFY(std::abs(page.outcome().plan.expectedL1Rdp - 5 * 2 / (5000 * 0.01)) < 1e-15);
    }

    // Selection of the mode on the window's data: the drawn exponential-mechanism bars are the
    // softmax of the counts with c = ε (add/remove, monotone), the report-noisy-max bars are
    // core's quadrature and sum to 1, the path matrix's cells are the softmax along the path
    // (t records added to the runner-up) and its badge verifies ε.
    void selectionPage() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(applyAndWait(w, telemetry(8, 0.05)));
        QVERIFY(w.showTab(QStringLiteral("select")));
        auto* page =
            qobject_cast<SelectionPage*>(w.moreMechanismsTab()->page(QStringLiteral("select")));
        QVERIFY(page);
        QVERIFY(waitUntil([&] {
            return !page->busy() && page->hasResult() && page->inputs().params.epsilon == 0.05;
        }));
        const auto& counts = w.engine()->dataset().histogram->counts();
        const std::size_t k = counts.size();
        QCOMPARE(k, std::size_t(8));
        std::vector<double> u(counts.begin(), counts.end());
        const auto p = softmax(u, 0.05);
        double sumL = 0, sumE = 0;
        for (std::size_t j = 0; j < k; ++j) {
            QVERIFY2(std::abs(page->drawnProbability(SelectionPage::Exponential, j) - p[j]) < 1e-12,
                     qPrintable(QStringLiteral("bin %1").arg(j)));
            sumL += page->drawnProbability(SelectionPage::NoisyMaxLaplace, j);
            sumE += page->drawnProbability(SelectionPage::NoisyMaxExponential, j);
        }
        QVERIFY(std::abs(sumL - 1) < 1e-9 && std::abs(sumE - 1) < 1e-9);
        auto rnm = reportNoisyMaxProbabilities(u, 1 / 0.05, NoisyMaxNoise::Laplace);
        QVERIFY(rnm);
        QCOMPARE(page->drawnProbability(SelectionPage::NoisyMaxLaplace, 3), (*rnm)[3]);
        // The true answer and its probability.
        std::size_t mode = 0;
        for (std::size_t j = 1; j < k; ++j) {
            if (counts[j] > counts[mode]) {
                mode = j;
            }
        }
        QCOMPARE(page->outcome().selection.utility.best.front(), mode);
        QVERIFY(std::abs(page->outcome().exact[0] - p[mode]) < 1e-12);
        QVERIFY2(page->summaryText().contains(QString::number(p[mode], 'g', 4)),
                 qPrintable(page->summaryText()));
        QVERIFY(page->guaranteeText().contains(QStringLiteral("add/remove")));
        QVERIFY(page->guaranteeText().contains(QStringLiteral("Δu = 1")));

        // The path: column t adds t records to the runner-up.
        const auto& path = page->outcome().path;
        QVERIFY(page->outcome().pathError.isEmpty());
        QCOMPARE(path.from, mode);
        const std::size_t cols = path.datasets.size();
        QVERIFY(cols >= 2);
        for (std::size_t t : {std::size_t(0), cols / 2, cols - 1}) {
            std::vector<double> ut = u;
            ut[path.to] += static_cast<double>(t);
            const auto pt = softmax(ut, 0.05);
            for (std::size_t i = 0; i < k; ++i) {
                QVERIFY(std::abs(page->drawnPathCell(i, t) - pt[i]) < 1e-12);
            }
        }
        QVERIFY(path.verified && path.achievedEpsilon <= 0.05 * (1 + 1e-9));
        QVERIFY2(page->badgeText().contains(QStringLiteral("verified")),
                 qPrintable(page->badgeText()));
        // The log scale draws the same probabilities.
        page->logControl()->setChecked(true);
        QVERIFY(std::abs(page->drawnPathCell(mode, 0) - softmax(u, 0.05)[mode]) < 1e-12);
        QVERIFY(std::abs(page->drawnProbability(SelectionPage::Exponential, mode) - p[mode]) <
                1e-12);
        page->logControl()->setChecked(false);

        // The median under replace-one: Δu = 1, c = ε/2 (not monotone); utilities written out.
        ExplorerState s = w.document()->state();
        s.data.neighbouring = Neighbouring::Replace;
        s.mechanism.epsilon = 10;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        page->taskControl()->setCurrentIndex(1);
        page->quantileControl()->setValue(0.5);
        QVERIFY(waitUntil([&] {
            return !page->busy() && page->hasResult() &&
                   page->inputs().params.task == SelectionTask::Quantile &&
                   page->inputs().params.epsilon == 10 &&
                   page->inputs().params.neighbouring == Neighbouring::Replace;
        }));
        const auto& c2 = w.engine()->dataset().histogram->counts();
        double n = 0;
        for (auto c : c2) {
            n += static_cast<double>(c);
        }
        std::vector<double> uq(c2.size());
        double below = 0;
        for (std::size_t j = 0; j < c2.size(); ++j) {
            const double upTo = below + static_cast<double>(c2[j]);
            uq[j] = -std::max({below - 0.5 * n, 0.5 * n - upTo, 0.0});
            below = upTo;
        }
        const auto pq = softmax(uq, 10.0 / 2);
        for (std::size_t j = 0; j < c2.size(); ++j) {
            QVERIFY(std::abs(page->drawnProbability(SelectionPage::Exponential, j) - pq[j]) <
                    1e-12);
        }
        QVERIFY(page->outcome().exact[0] > 0.999);  // ε = 10: the median bin almost surely
        QVERIFY(page->guaranteeText().contains(QStringLiteral("replace-one")));
        QVERIFY(page->titleText().contains(QStringLiteral("quantile")));
    }

    // Small data: ε = 0.01 is nearly uniform; one bin, no records and no data give messages.
    void selectionEdgeCases() {
        JobRunner runner;
        SelectionPage page(&runner);
        page.resize(1100, 800);
        page.show();
        page.setContext(contextWith({3, 5, 4}, 0.01));
        QVERIFY(waitUntil([&] { return !page.busy() && page.hasResult(); }));
        for (std::size_t j = 0; j < 3; ++j) {
            const double pj = page.drawnProbability(SelectionPage::Exponential, j);
            QVERIFY(std::abs(pj - 1.0 / 3) < 0.01);  // |ln(P_i/P_j)| ≤ 0.01·2
        }
        // One bin: P = 1, no path matrix, said so.
        page.setContext(contextWith({7}, 1));
        QVERIFY(waitUntil(
            [&] { return !page.busy() && page.hasResult() && page.inputs().counts.size() == 1; }));
        QCOMPARE(page.drawnProbability(SelectionPage::Exponential, 0), 1.0);
        QVERIFY(!page.outcome().pathError.isEmpty());
        QVERIFY(std::isnan(page.drawnPathCell(0, 0)));
        QVERIFY(page.summaryText().contains(QStringLiteral("One bin")));
        QVERIFY(page.badgeText().contains(QStringLiteral("no path matrix")));
        // All zero: the mode is uniform (said so); the quantile is refused with a message.
        page.setContext(contextWith({0, 0, 0, 0}, 1));
        QVERIFY(waitUntil(
            [&] { return !page.busy() && page.hasResult() && page.inputs().counts.size() == 4; }));
        QCOMPARE(page.drawnProbability(SelectionPage::Exponential, 2), 0.25);
        QVERIFY(page.summaryText().contains(QStringLiteral("empty")));
        page.taskControl()->setCurrentIndex(1);
        QVERIFY(waitUntil([&] { return !page.busy(); }));
        QVERIFY(!page.hasResult());
        QVERIFY2(page.messageText().contains(QStringLiteral("quantile")),
                 qPrintable(page.messageText()));
        page.setContext(MechanismPageContext{});
        QVERIFY(page.messageText().contains(QStringLiteral("No data")));
        QVERIFY(page.titleText().contains(QStringLiteral("no result")));
    }

    // The page has two plots: "Export plot…" hands the window the bar chart, "Export matrix…"
    // the path heatmap, and only for that click (File ▸ Export plot then gets the bars again).
    void selectionExportsEitherPlot() {
        JobRunner runner;
        SelectionPage page(&runner);
        QList<QCustomPlot*> asked;
        connect(&page, &MechanismPage::exportPlotRequested, &page,
                [&] { asked.push_back(page.plotToExport()); });
        auto* matrixButton = page.findChild<QPushButton*>(QStringLiteral("selectExportMatrix"));
        QVERIFY(matrixButton);
        QPushButton* plotButton = nullptr;
        for (QPushButton* b : page.findChildren<QPushButton*>()) {
            if (b->text() == QStringLiteral("Export plot…")) {
                plotButton = b;
            }
        }
        QVERIFY(plotButton);
        QVERIFY(page.plot() != page.pathPlot());
        matrixButton->click();
        plotButton->click();
        QCOMPARE(asked.size(), 2);
        QCOMPARE(asked[0], page.pathPlot());
        QCOMPARE(asked[1], page.plot());
        QCOMPARE(page.plotToExport(), page.plot());
    }
};

QTEST_MAIN(TestMoreMechanismsRdpSelect)
#include "tst_more_mechanisms_rdp_select.moc"
