// The "Vector means" page of the More mechanisms tab and the mechanism chooser of the Risk tab's
// tracing attack (issue #9), driven offscreen in a MainWindow: the plotted Monte Carlo points are
// simulateMeanError's numbers for the same seed, the closed forms and seed 004's bounds are
// checked against formulas written out here, the printed calibration's (2ε, δ) warning shows,
// the page follows the window's ε, bad inputs give messages; the tracing ROC and AUC change with
// the mechanism and equal simulateTracingAttack called directly.

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <cmath>

#include "core/choosing/risk.h"
#include "core/mechanisms/vector_mechanisms.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/model/job_runner.h"
#include "ui/tabs/more/more_mechanisms_tab.h"
#include "ui/tabs/more/vector_mean_page.h"
#include "ui/tabs/risk_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;

namespace {

QLineEdit* field(QWidget* page, const char* name) {
    auto* e = page->findChild<QLineEdit*>(QString::fromLatin1(name));
    Q_ASSERT(e);
    return e;
}

QCheckBox* box(QWidget* page, const char* name) {
    auto* c = page->findChild<QCheckBox*>(QString::fromLatin1(name));
    Q_ASSERT(c);
    return c;
}

// Index of the first graph whose legend name starts with `prefix`, or −1.
int graphIndex(QCustomPlot* plot, const QString& prefix) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name().startsWith(prefix)) {
            return i;
        }
    }
    return -1;
}

std::vector<std::pair<double, double>> graphData(QCPGraph* g) {
    std::vector<std::pair<double, double>> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
        out.emplace_back(it->key, it->value);
    }
    return out;
}

bool waitIdle(VectorMeanPage* page) {
    return QTest::qWaitFor([page] { return !page->busy(); }, 30000);
}

// Lets a scheduled recompute (toggles) start, then runs the controls' parameters to the end.
bool runPage(VectorMeanPage* page) {
    QCoreApplication::processEvents();
    page->recompute();
    return waitIdle(page);
}

}  // namespace

class TestMoreMechanismsVector : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    void pageMatchesCore() {
        MainWindow w;
        w.resize(1500, 900);
        w.show();
        QVERIFY(w.showTab(QStringLiteral("vector-mean")));
        auto* page = qobject_cast<VectorMeanPage*>(
            w.moreMechanismsTab()->page(QStringLiteral("vector-mean")));
        QVERIFY(page);
        QVERIFY(waitIdle(page));
        QVERIFY2(page->hasResult(), qPrintable(page->statusText()));

        // Own ε and δ; sweep n = 10 … 1000 at d = 5, bias 0.2.
        box(page, "vmFollowWindow")->setChecked(false);
        field(page, "vmEpsilon")->setText(QStringLiteral("0.5"));
        field(page, "vmDelta")->setText(QStringLiteral("1e-5"));
        field(page, "vmD")->setText(QStringLiteral("5"));
        field(page, "vmN")->setText(QStringLiteral("1000"));
        field(page, "vmFrom")->setText(QStringLiteral("10"));
        field(page, "vmTo")->setText(QStringLiteral("1000"));
        field(page, "vmBias")->setText(QStringLiteral("0.2"));
        field(page, "vmTrials")->setText(QStringLiteral("300"));
        QVERIFY(runPage(page));
        const VectorMeanSweep& r = page->result();
        QVERIFY2(!r.cancelled, "cancelled");
        QCOMPARE(r.spec.epsilon, 0.5);
        QCOMPARE(r.spec.delta, 1e-5);
        QCOMPARE(r.curves.size(), std::size_t(4));
        const double eps = 0.5, delta = 1e-5, d = 5, bias = 0.2;

        QCustomPlot* plot = page->plot();
        // Laplace: the plotted points are simulateMeanError's for the same seed; the dashed
        // closed form is d(1 − b²)/n + d·2(2d/(nε))² written out here.
        const int lap = graphIndex(plot, QStringLiteral("Laplace: pure ε-DP"));
        QVERIFY2(lap >= 0, "no Laplace graph");
        const auto points = graphData(plot->graph(lap));
        const auto closed = graphData(plot->graph(lap + 1));
        QCOMPARE(points.size(), r.spec.xs.size());
        QCOMPARE(closed.size(), points.size());
        for (std::size_t i = 0; i < points.size(); ++i) {
            const double n = points[i].first;
            MeanSimulationParams p;
            p.release = {static_cast<std::size_t>(n),
                         5,
                         eps,
                         delta,
                         {VectorMechanismKind::Laplace, GaussianCalibration::Analytic}};
            p.population = MeanPopulation::FixedBias;
            p.bias = bias;
            p.trials = 300;
            p.seed = w.document()->state().mechanism.seed;
            auto core = simulateMeanError(p);
            QVERIFY(core);
            QCOMPARE(points[i].second, core->total.mean);
            const double b = 2 * d / (n * eps);
            const double expected = d * (1 - bias * bias) / n + d * 2 * b * b;
            QVERIFY2(
                std::abs(closed[i].second - expected) <= 1e-12 * expected,
                qPrintable(
                    QStringLiteral("n = %1: %2 vs %3").arg(n).arg(closed[i].second).arg(expected)));
            // And the Monte Carlo agrees with it (5 standard errors).
            QVERIFY(std::abs(core->total.mean - expected) <= 5 * core->total.standardError);
        }
        // Seed 004's bounds, from the formulas.
        const int up = graphIndex(plot, QStringLiteral("Thm 4:"));
        const int low = graphIndex(plot, QStringLiteral("Thm 5:"));
        QVERIFY(up >= 0 && low >= 0);
        const auto upper = graphData(plot->graph(up));
        const auto lower = graphData(plot->graph(low));
        QCOMPARE(upper.size(), r.spec.xs.size());
        QCOMPARE(lower.size(), r.spec.xs.size());
        for (std::size_t i = 0; i < upper.size(); ++i) {
            const double n = upper[i].first;
            const double u = d / n + 2 * d * d * std::log(2 / delta) / (eps * eps * n * n);
            const double l = std::min(d / 6, d * d / (2304 * eps * eps * n * n));
            QVERIFY(std::abs(upper[i].second - u) <= 1e-12 * u);
            QVERIFY(std::abs(lower[i].second - l) <= 1e-12 * l);
        }
        // The printed Gaussian is labelled (2ε, δ) in the legend, its warning is shown, and the
        // text gives b = 2d/(nε) at the reference n = 1000: 0.02.
        QVERIFY(graphIndex(plot, QStringLiteral("Gaussian as printed: only (2ε, δ)-DP")) >= 0);
        QVERIFY2(page->detailsText().contains(QStringLiteral("(1, 1e-05)-DP (2ε)")),
                 qPrintable(page->detailsText()));
        QVERIFY(page->printedWarningVisible());
        QVERIFY2(page->detailsText().contains(QStringLiteral("b = 0.02")),
                 qPrintable(page->detailsText()));
        box(page, "vmPrinted")->setChecked(false);
        QVERIFY(!page->printedWarningVisible());
        QVERIFY(runPage(page));
        QCOMPARE(page->result().curves.size(), std::size_t(3));
        QCOMPARE(graphIndex(plot, QStringLiteral("Gaussian as printed")), -1);

        // Sweep over d: the x values are dimensions and the analytic Gaussian's closed form is
        // d(1 − b²)/n + d·σ² with σ from core's calibration (n = 200 fixed).
        auto* axis = page->findChild<QComboBox*>(QStringLiteral("vmAxis"));
        axis->setCurrentIndex(1);
        field(page, "vmN")->setText(QStringLiteral("200"));
        field(page, "vmFrom")->setText(QStringLiteral("1"));
        field(page, "vmTo")->setText(QStringLiteral("100"));
        QVERIFY(runPage(page));
        QVERIFY(!page->result().spec.overN);
        const int g = graphIndex(plot, QStringLiteral("Gaussian, analytic"));
        QVERIFY(g >= 0);
        const auto gclosed = graphData(plot->graph(g + 1));
        QCOMPARE(gclosed.front().first, 1.0);
        QCOMPARE(gclosed.back().first, 100.0);
        for (const auto& [dd, v] : gclosed) {
            auto m = calibrateVectorMean(
                {200,
                 static_cast<std::size_t>(dd),
                 eps,
                 delta,
                 {VectorMechanismKind::Gaussian, GaussianCalibration::Analytic}});
            QVERIFY(m);
            const double expected = dd * (1 - bias * bias) / 200 + dd * m->scale * m->scale;
            QVERIFY(std::abs(v - expected) <= 1e-12 * expected);
        }
        // Seed 004's uniform prior: the bias field no longer applies, the K-norm points are core's
        // for that population, and the closed form's sampling term is 2d/(3n) (E(1 − μ²) = 2/3).
        auto* population = page->findChild<QComboBox*>(QStringLiteral("vmPopulation"));
        population->setCurrentIndex(1);
        QVERIFY(runPage(page));
        QVERIFY(!field(page, "vmBias")->isEnabled());
        QCOMPARE(page->result().spec.population, MeanPopulation::UniformPrior);
        const int kn = graphIndex(plot, QStringLiteral("K-norm: pure ε-DP"));
        QVERIFY(kn >= 0);
        const auto kpoints = graphData(plot->graph(kn));
        const auto kclosed = graphData(plot->graph(kn + 1));
        QCOMPARE(kpoints.size(), std::size_t(10));
        for (std::size_t i = 0; i < kpoints.size(); ++i) {
            const double dd = kpoints[i].first;
            MeanSimulationParams p;
            p.release = {200,
                         static_cast<std::size_t>(dd),
                         eps,
                         delta,
                         {VectorMechanismKind::KNorm, GaussianCalibration::Analytic}};
            p.population = MeanPopulation::UniformPrior;
            p.trials = 300;
            p.seed = w.document()->state().mechanism.seed;
            auto core = simulateMeanError(p);
            QVERIFY(core);
            QCOMPARE(kpoints[i].second, core->total.mean);
            const double theta = 2 * std::sqrt(dd) / (200 * eps);
            const double expected = 2 * dd / (3 * 200) + dd * (dd + 1) * theta * theta;
            QVERIFY(std::abs(kclosed[i].second - expected) <= 1e-12 * expected);
        }
        if (const QByteArray shots = qgetenv("DPX_TEST_SCREENSHOTS"); !shots.isEmpty()) {
            QTest::qWait(200);
            w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/vector_over_d.png"));
            page->findChild<QLabel*>(QStringLiteral("vmDetails"))
                ->grab()
                .save(QString::fromLocal8Bit(shots) + QStringLiteral("/vector_details.png"));
        }
    }

    void followsWindowEpsilon() {
        MainWindow w;
        w.show();
        ExplorerState s = w.document()->state();
        s.mechanism.epsilon = 0.01;
        QVERIFY(applyAndWait(w, s));
        auto* page = qobject_cast<VectorMeanPage*>(
            w.moreMechanismsTab()->page(QStringLiteral("vector-mean")));
        field(page, "vmTrials")->setText(QStringLiteral("100"));  // before the first run
        QVERIFY(w.showTab(QStringLiteral("vector-mean")));
        QVERIFY(waitIdle(page));
        QCOMPARE(page->result().spec.epsilon, 0.01);
        // At ε = 0.01 the noise dominates: the y axis reaches the largest Monte Carlo point.
        double top = 0;
        for (const auto& c : page->result().curves) {
            for (const auto& p : c.points) {
                top = std::max(top, p.total.mean);
            }
        }
        QVERIFY(top > 1e6);
        QVERIFY(page->plot()->yAxis->range().upper >= top);
        QVERIFY(page->detailsText().contains(QStringLiteral("noise drowns the mean")));
        s.mechanism.epsilon = 2;
        QVERIFY(applyAndWait(w, s));
        QVERIFY(waitIdle(page));
        QCOMPARE(page->result().spec.epsilon, 2.0);
    }

    void badInputsGiveMessages() {
        MainWindow w;
        w.show();
        QVERIFY(w.showTab(QStringLiteral("vector-mean")));
        auto* page = qobject_cast<VectorMeanPage*>(
            w.moreMechanismsTab()->page(QStringLiteral("vector-mean")));
        QVERIFY(waitIdle(page));
        box(page, "vmFollowWindow")->setChecked(false);
        struct Case {
            const char* field;
            QString value;
            QString message;
        };
        const Case cases[] = {
            {"vmN", QStringLiteral("0"), QStringLiteral("Records n")},
            {"vmN", QStringLiteral("abc"), QStringLiteral("Records n")},
            {"vmD", QStringLiteral("2.5"), QStringLiteral("Dimension d")},
            {"vmD", QStringLiteral("2000000"), QStringLiteral("Dimension d")},
            {"vmEpsilon", QStringLiteral("-1"), QStringLiteral("ε")},
            {"vmEpsilon", QStringLiteral("nan"), QStringLiteral("ε")},
            {"vmEpsilon", QStringLiteral("inf"), QStringLiteral("ε")},
            {"vmDelta", QStringLiteral("0"), QStringLiteral("δ")},
            {"vmDelta", QStringLiteral("1.5"), QStringLiteral("δ")},
            {"vmFrom", QStringLiteral("0"), QStringLiteral("from")},
            {"vmTo", QStringLiteral("5"), QStringLiteral("below")},
            {"vmBias", QStringLiteral("3"), QStringLiteral("Bias b")},
            {"vmTrials", QStringLiteral("1"), QStringLiteral("Trials")},
            {"vmTrials", QStringLiteral("10000000"), QStringLiteral("Too much work")},
        };
        for (const Case& c : cases) {
            QLineEdit* e = field(page, c.field);
            const QString good = e->text();
            e->setText(c.value);
            QSignalSpy done(page, &MechanismPage::finished);
            QVERIFY(!page->recompute());
            QVERIFY(!page->busy());
            QCOMPARE(done.size(), 1);
            QVERIFY2(
                page->statusText().contains(c.message),
                qPrintable(QStringLiteral("%1 = %2: '%3'")
                               .arg(QString::fromLatin1(c.field), c.value, page->statusText())));
            e->setText(good);
        }
        for (const char* name : {"vmGaussian", "vmPrinted", "vmLaplace", "vmKNorm"}) {
            box(page, name)->setChecked(false);
        }
        QVERIFY(!page->recompute());
        QVERIFY(page->statusText().contains(QStringLiteral("at least one mechanism")));
        // The seed calibration σ = √(2 ln(2/δ))·Δ₂/ε is not (ε, δ)-DP at ε = 20 (core's exact
        // privacy profile refuses it): the page says so instead of drawing a curve.
        box(page, "vmGaussian")->setChecked(true);
        page->findChild<QComboBox*>(QStringLiteral("vmCalibration"))->setCurrentIndex(1);
        field(page, "vmEpsilon")->setText(QStringLiteral("20"));
        QVERIFY(runPage(page));
        QVERIFY2(page->statusText().contains(QStringLiteral("refused")),
                 qPrintable(page->statusText()));
        QVERIFY(graphIndex(page->plot(), QStringLiteral("Gaussian, hall: refused")) >= 0);
        QVERIFY(page->detailsText().contains(QStringLiteral("NOT (ε, δ)-DP")));
    }

    // The status bar's Cancel stops the page's job: the previous result stays, the page is not
    // busy, a context update does not restart the cancelled run, a new request does.
    void cancel() {
        MainWindow w;
        w.show();
        QVERIFY(w.showTab(QStringLiteral("vector-mean")));
        auto* page = qobject_cast<VectorMeanPage*>(
            w.moreMechanismsTab()->page(QStringLiteral("vector-mean")));
        QVERIFY(waitIdle(page));
        const double before = page->result().curves.front().points.front().total.mean;
        field(page, "vmTrials")->setText(QStringLiteral("25000"));  // 10^8 draws: the largest run
        page->recompute();
        QVERIFY(page->busy());
        QSignalSpy done(page, &MechanismPage::finished);
        w.engine()->runner()->cancelLong();
        QCOMPARE(done.size(), 1);
        QVERIFY(!page->busy());
        QVERIFY2(page->statusText().startsWith(QStringLiteral("Cancelled")),
                 qPrintable(page->statusText()));
        QCOMPARE(page->result().curves.front().points.front().total.mean, before);
        ExplorerState s = w.document()->state();
        s.data.binning.bins =
            s.data.binning.bins + 1;  // a context update that does not change the page's inputs
        QVERIFY(applyAndWait(w, s));
        QVERIFY(!page->busy());
        field(page, "vmTrials")->setText(QStringLiteral("50"));
        QVERIFY(runPage(page));
        QCOMPARE(page->result().spec.trials, std::size_t(50));
    }

    // Risk tab: the tracing attack's mechanism chooser reaches core; ROC and AUC are those of
    // simulateTracingAttack with that mechanism and differ between mechanisms.
    void tracingMechanismChooser() {
        MainWindow w;
        w.resize(1500, 900);
        w.show();
        ExplorerState s = w.document()->state();
        s.mechanism.epsilon = 4;
        s.view.tab = QStringLiteral("risk");
        QVERIFY(applyAndWait(w, s));
        RiskTab* risk = w.riskView();
        risk->tracingRecordsSpin()->setValue(50);
        risk->tracingDimensionsSpin()->setValue(500);
        QComboBox* mech = risk->tracingMechanismCombo();
        QCOMPARE(mech->count(), 4);
        std::vector<double> aucs;
        const std::pair<int, VectorMechanismKind> choices[] = {
            {0, VectorMechanismKind::Gaussian},
            {1, VectorMechanismKind::GaussianPrinted},
            {2, VectorMechanismKind::Laplace},
            {3, VectorMechanismKind::KNorm}};
        for (const auto& [index, kind] : choices) {
            mech->setCurrentIndex(index);
            QVERIFY(!risk->hasTracingRoc());
            const TracingAttackParams params = risk->tracingParams();
            QCOMPARE(params.mechanism.kind, kind);
            risk->tracingButton()->click();
            QTRY_VERIFY_WITH_TIMEOUT(risk->hasTracingRoc(), 30000);
            auto core = simulateTracingAttack(params);
            QVERIFY(core);
            QCOMPARE(core->mechanism, std::string(vectorMechanismName(kind)));
            const int g = graphIndex(risk->regionPlot(), QStringLiteral("tracing attack"));
            QVERIFY(g >= 0);
            const QString name = risk->regionPlot()->graph(g)->name();
            QVERIFY2(name.contains(QString::number(core->auc, 'f', 3)), qPrintable(name));
            const auto roc = graphData(risk->regionPlot()->graph(g));
            QCOMPARE(roc.size(), core->roc.size());
            for (std::size_t i = 0; i < roc.size(); ++i) {
                QCOMPARE(roc[i].first, core->roc[i].x);
                QCOMPARE(roc[i].second, core->roc[i].y);
            }
            const QString text = risk->tracingText();
            QVERIFY2(text.contains(QString::number(core->sigma, 'g', 4)), qPrintable(text));
            QVERIFY2(text.contains(mech->currentText().section(QLatin1Char(':'), 0, 0)),
                     qPrintable(text));
            if (kind == VectorMechanismKind::GaussianPrinted) {
                QVERIFY2(text.contains(QStringLiteral("(2ε, δ) = (8,")), qPrintable(text));
            }
            aucs.push_back(core->auc);
            if (const QByteArray shots = qgetenv("DPX_TEST_SCREENSHOTS"); !shots.isEmpty()) {
                QTest::qWait(200);
                w.grab().save(QString::fromLocal8Bit(shots) +
                              QStringLiteral("/risk_tracing_%1.png").arg(index));
            }
        }
        // Less noise, stronger attack: printed Gaussian (2ε) > analytic Gaussian > K-norm/Laplace.
        QVERIFY2(aucs[1] > aucs[0] + 0.01, qPrintable(QString::number(aucs[1] - aucs[0])));
        QVERIFY2(aucs[0] > aucs[2] + 0.01, qPrintable(QString::number(aucs[0] - aucs[2])));
        // Changing ε clears the ROC (it would no longer match the drawn region).
        s.mechanism.epsilon = 3;
        QVERIFY(applyAndWait(w, s));
        QVERIFY(!risk->hasTracingRoc());
    }
};

QTEST_MAIN(TestMoreMechanismsVector)
#include "tst_more_mechanisms_vector.moc"
