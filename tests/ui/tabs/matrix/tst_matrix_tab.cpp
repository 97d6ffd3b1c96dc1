// The "Mechanism matrix" tab (ui/tabs/matrix/matrix_tab.h), offscreen: the heatmap holds exactly
// the core's matrix (linear and log), the badges agree with the core's property checks and never
// call an (ε, δ) mechanism ε-DP, the column profile and its summary follow the selected input, the
// LP controls emit their settings as strings, and histogram mechanisms show the noise law. Set
// DPX_MATRIX_VIEW_SCREENSHOTS=<dir> to also save the rendered tab as PNG files there.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLocale>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <cmath>

#include "core/base/noise_distribution.h"
#include "core/count/count_analysis.h"
#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"
#include "ui/tabs/matrix/matrix_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using dpx::CountMechanism;
using dpx::CountProperty;
using dpx::ui::MatrixInfo;
using dpx::ui::MatrixTab;

namespace {

CountMechanism gm(int n, double epsilon) {
    auto m = dpx::truncatedGeometric(n, epsilon);
    if (!m) {
        qFatal("truncatedGeometric failed: %s", m.error().message.c_str());
    }
    return *m;
}

MatrixInfo info(const QString& title, double epsilon) {
    MatrixInfo i;
    i.title = title;
    i.epsilon = epsilon;
    return i;
}

// Every visible text and tooltip of the widget tree.
QStringList allTexts(const QWidget& root) {
    QStringList texts;
    texts << root.toolTip();
    for (const QWidget* w : root.findChildren<QWidget*>()) {
        texts << w->toolTip();
        if (auto* l = qobject_cast<const QLabel*>(w)) {
            texts << l->text();
        } else if (auto* b = qobject_cast<const QAbstractButton*>(w)) {
            texts << b->text();
        }
    }
    return texts;
}

void renderAndMaybeSave(MatrixTab& v, const QString& name) {
    v.resize(1100, 800);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QCoreApplication::processEvents();
    for (QCustomPlot* p : {v.heatmapPlot(), v.profilePlot(), v.noisePlot()}) {
        p->replot();
    }
    const QPixmap image = v.grab();
    QCOMPARE(image.size(), QSize(1100, 800));
    const QString dir = qEnvironmentVariable("DPX_MATRIX_VIEW_SCREENSHOTS");
    if (!dir.isEmpty()) {
        QVERIFY(image.save(QDir(dir).filePath(QStringLiteral("matrix_view_%1.png").arg(name))));
    }
}

}  // namespace

class TestMatrixView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    // GM n = 3, α = 1/2: every cell of the colour map is P[i][j], in linear and in log mode.
    void heatmapEqualsMatrix() {
        MatrixTab v;
        const CountMechanism m = gm(3, std::log(2.0));
        v.setCountMechanism(m, info(QStringLiteral("GM"), std::log(2.0)));
        QCOMPARE(v.currentPage(), MatrixTab::Page::Matrix);
        QCOMPARE(v.heatmapPlot()->plottableCount(), 1);
        auto* map = qobject_cast<QCPColorMap*>(v.heatmapPlot()->plottable(0));
        QVERIFY(map);
        QVERIFY(!map->interpolate());
        QCOMPARE(map->data()->keySize(), 4);
        QCOMPARE(map->data()->valueSize(), 4);
        QVERIFY(v.heatmapPlot()->yAxis->rangeReversed());  // row 0 at the top
        double minEntry = 1;
        for (int i = 0; i <= 3; ++i) {
            for (int j = 0; j <= 3; ++j) {
                QCOMPARE(v.cellValue(j, i), m.at(i, j));
                minEntry = std::min(minEntry, m.at(i, j));
            }
        }
        // P[1][0] = (1−α)/(1+α)·α = 1/6 and P[0][1] = α/(1+α) = 1/3: the map is not transposed.
        QVERIFY(std::abs(v.cellValue(0, 1) - 1.0 / 6) < 1e-15);
        QVERIFY(std::abs(v.cellValue(1, 0) - 1.0 / 3) < 1e-15);
        v.setLogScale(true);
        QVERIFY(v.logScale());
        QCOMPARE(v.logFloor(), minEntry);  // all entries ≥ 1e-12: the floor is the smallest one
        for (int i = 0; i <= 3; ++i) {
            for (int j = 0; j <= 3; ++j) {
                QCOMPARE(v.cellValue(j, i), std::log10(m.at(i, j)));
            }
        }
        // The colour range covers the entries (widened to at least one decade).
        QVERIFY(map->dataRange().lower <= std::log10(minEntry));
        QCOMPARE(map->dataRange().upper,
                 std::log10(m.at(0, 0) > m.at(1, 1) ? m.at(0, 0) : m.at(1, 1)));
        v.setLogScale(false);
        QCOMPARE(v.cellValue(2, 1), m.at(1, 2));
        QCOMPARE(v.cellToolTip(1, 2),
                 QStringLiteral("P[output i | true count j] = %1 (j = 1, i = 2)")
                     .arg(QString::number(m.at(2, 1), 'g', 4)));
    }

    // An LP-sized matrix: a few cells, and in log mode the floor 1e-12 for the far tail.
    void largeMatrixCells() {
        MatrixTab v;
        const CountMechanism m = gm(60, 1.0);
        v.setCountMechanism(m, info(QStringLiteral("GM n = 60"), 1.0));
        QCOMPARE(v.heatmapPlot()->plottableCount(), 1);
        for (auto [j, i] : {std::pair{0, 0}, {30, 30}, {59, 3}, {60, 0}, {0, 60}, {17, 41}}) {
            QCOMPARE(v.cellValue(j, i), m.at(i, j));
        }
        QVERIFY(std::isnan(v.cellValue(61, 0)));
        v.setLogScale(true);
        QCOMPARE(v.logFloor(), MatrixTab::kLogFloor);  // e^−60 < 1e-12
        QCOMPARE(v.cellValue(30, 30), std::log10(m.at(30, 30)));
        QCOMPARE(v.cellValue(17, 41), std::log10(m.at(41, 17)));
        QVERIFY(m.at(60, 0) < 1e-12);
        QCOMPARE(v.cellValue(0, 60), -12.0);
        QCOMPARE(v.cellValue(60, 0), -12.0);
    }

    // Exact zeros: 0 in linear mode, NaN (drawn in the zero colour) in log mode.
    void zerosInLogMode() {
        MatrixTab v;
        auto m = CountMechanism::fromRows({{1.0, 0.5}, {0.0, 0.5}});
        QVERIFY(m.hasValue());
        v.setCountMechanism(*m, info(QStringLiteral("custom"), 1.0));
        QCOMPARE(v.cellValue(0, 1), 0.0);
        v.setLogScale(true);
        QVERIFY(std::isnan(v.cellValue(0, 1)));
        QCOMPARE(v.cellValue(0, 0), 0.0);
        QCOMPARE(v.cellValue(1, 1), std::log10(0.5));
        auto* map = qobject_cast<QCPColorMap*>(v.heatmapPlot()->plottable(0));
        QCOMPARE(map->gradient().nanHandling(), QCPColorGradient::nhNanColor);
        QCOMPARE(map->gradient().nanColor(), v.logZeroColor());
        QVERIFY(v.cellToolTip(0, 1).contains(QStringLiteral("= 0 ")));
    }

    // GM n = 2, α = 0.9: RH, RM and S hold, CM does not (GM has CM iff α ≤ ½ for n ≥ 2).
    void badgesOfGeometric() {
        MatrixTab v;
        const double eps = -std::log(0.9);
        const CountMechanism m = gm(2, eps);
        v.setCountMechanism(m, info(QStringLiteral("GM"), eps));
        QCOMPARE(v.propertyBadgeHolds(CountProperty::RowHonest), std::optional<bool>(true));
        QCOMPARE(v.propertyBadgeHolds(CountProperty::RowMonotone), std::optional<bool>(true));
        QCOMPARE(v.propertyBadgeHolds(CountProperty::Symmetric), std::optional<bool>(true));
        QCOMPARE(v.propertyBadgeHolds(CountProperty::ColumnMonotone), std::optional<bool>(false));
        QCOMPARE(v.propertyBadgeText(CountProperty::ColumnMonotone), QStringLiteral("✗ CM"));
        QCOMPARE(v.propertyBadgeText(CountProperty::RowHonest), QStringLiteral("✓ RH"));
        const auto props = m.properties();
        QVERIFY(!props.columnMonotone.reason.empty());
        QVERIFY(v.propertyBadgeToolTip(CountProperty::ColumnMonotone)
                    .contains(QString::fromStdString(props.columnMonotone.reason)));
        QVERIFY(v.propertyBadgeToolTip(CountProperty::ColumnMonotone)
                    .startsWith(QStringLiteral("Column monotone")));
        for (CountProperty p : dpx::kAllCountProperties) {
            QCOMPARE(v.propertyBadgeHolds(p), std::optional<bool>(props.get(p).holds));
        }
        QVERIFY(v.privacyBadgeText().startsWith(QStringLiteral("ε-DP ✓ (achieved ε = ")));
        QCOMPARE(v.l0BadgeText(), QStringLiteral("L0 = %1").arg(QString::number(m.l0(), 'g', 4)));

        // With α = ½ the same matrix shape has CM.
        v.setCountMechanism(gm(2, std::log(2.0)), info(QStringLiteral("GM"), std::log(2.0)));
        QCOMPARE(v.propertyBadgeHolds(CountProperty::ColumnMonotone), std::optional<bool>(true));
    }

    // EM (explicitFair) has all seven properties.
    void badgesOfExplicitFair() {
        MatrixTab v;
        for (int n : {4, 7}) {
            auto m = dpx::explicitFair(n, 0.8);
            QVERIFY(m.hasValue());
            v.setCountMechanism(*m, info(QStringLiteral("EM"), 0.8));
            for (CountProperty p : dpx::kAllCountProperties) {
                QCOMPARE(v.propertyBadgeHolds(p), std::optional<bool>(true));
            }
            QVERIFY(v.privacyBadgeText().startsWith(QStringLiteral("ε-DP ✓")));
        }
    }

    // Hand-made matrices that are not ε-DP for the requested ε.
    void notDpBadge() {
        MatrixTab v;
        auto rr = CountMechanism::fromRows({{0.9, 0.1}, {0.1, 0.9}});  // ε = ln 9 ≈ 2.197
        QVERIFY(rr.hasValue());
        v.setCountMechanism(*rr, info(QStringLiteral("custom"), 1.0));
        QVERIFY(v.privacyBadgeText().startsWith(QStringLiteral("NOT ε-DP: achieved ε = 2.197")));
        QVERIFY(v.privacyBadgeText().endsWith(QStringLiteral("> 1")));
        auto identity = CountMechanism::fromRows({{1.0, 0.0}, {0.0, 1.0}});
        QVERIFY(identity.hasValue());
        v.setCountMechanism(*identity, info(QStringLiteral("identity"), 1.0));
        QCOMPARE(v.privacyBadgeText(),
                 QStringLiteral("NOT ε-DP: achieved ε = ∞ (a zero faces a non-zero entry)"));
        // Barely above ε is still NOT ε-DP, with enough digits to see why.
        v.setCountMechanism(*rr, info(QStringLiteral("custom"), std::log(9.0) * (1 - 1e-9)));
        QVERIFY(v.privacyBadgeText().startsWith(QStringLiteral("NOT ε-DP")));
        v.setCountMechanism(*rr, info(QStringLiteral("custom"), std::log(9.0)));
        QVERIFY(v.privacyBadgeText().startsWith(QStringLiteral("ε-DP ✓")));
    }

    // (ε, δ) mechanisms are never labelled ε-DP, even when the matrix's pure level is below ε.
    void deltaMechanismIsNeverEpsDp() {
        MatrixTab v;
        auto g = dpx::discretizedGaussian(5, 1.0, 1e-6);
        QVERIFY(g.hasValue());
        QVERIFY(g->achievedEpsilon() < 1.0);  // small n: below ε, still not ε-DP
        MatrixInfo i = info(QStringLiteral("Gaussian"), 1.0);
        i.delta = 1e-6;
        v.setCountMechanism(*g, i);
        QVERIFY(v.privacyBadgeText().startsWith(
            QStringLiteral("(ε, δ)-DP mechanism — pure level of this matrix: ")));
        for (const QString& t : allTexts(v)) {
            QVERIFY2(!t.contains(QStringLiteral("ε-DP ✓")), qPrintable(t));
            QVERIFY2(!t.contains(QStringLiteral("is ε-DP")), qPrintable(t));
        }
    }

    // The profile shows column j and the summary the core's error law of j.
    void selectionUpdatesProfile() {
        MatrixTab v;
        QSignalSpy selected(&v, &MatrixTab::inputSelected);
        const CountMechanism m = gm(10, 0.5);
        v.setCountMechanism(m, info(QStringLiteral("GM"), 0.5));
        QCOMPARE(v.selectedInput(), 5);  // the middle input
        auto checkColumn = [&](int j) {
            const std::vector<double> profile = v.profileValues();
            QCOMPARE(profile.size(), std::size_t(11));
            for (std::size_t i = 0; i < profile.size(); ++i) {
                QCOMPARE(profile[i], m.at(i, static_cast<std::size_t>(j)));
            }
            const auto e = dpx::inputErrorDistribution(m, static_cast<std::size_t>(j));
            QVERIFY(e.hasValue());
            const QString s = v.summaryText();
            QVERIFY2(s.startsWith(QStringLiteral("true count %1: reported exactly with "
                                                 "probability %2;")
                                      .arg(j)
                                      .arg(QString::number(e->pCorrect, 'g', 3))),
                     qPrintable(s));
            QVERIFY2(
                s.contains(
                    QStringLiteral("mean |error| %1;").arg(QString::number(e->meanAbs, 'g', 3))),
                qPrintable(s));
            QVERIFY2(s.contains(QStringLiteral("off by more than 1 with probability %1")
                                    .arg(QString::number(e->pOffByMoreThan(1), 'g', 3))),
                     qPrintable(s));
            if (std::abs(e->bias) > 1e-9) {
                QVERIFY2(s.contains(QStringLiteral("bias %1%2;")
                                        .arg(e->bias > 0 ? QStringLiteral("+") : QString())
                                        .arg(QString::number(e->bias, 'g', 3))),
                         qPrintable(s));
            }
        };
        checkColumn(5);
        QVERIFY(v.summaryText().contains(QStringLiteral("bias 0;")));  // symmetric middle
        QVERIFY(selected.isEmpty());
        v.selectInput(2);
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.last().at(0).toInt(), 2);
        checkColumn(2);
        QVERIFY(v.summaryText().contains(QStringLiteral("bias +")));  // clamped at 0: biased up
        auto* spin = v.findChild<QSpinBox*>(QStringLiteral("inputSpin"));
        QVERIFY(spin);
        QCOMPARE(spin->value(), 2);
        spin->setValue(9);
        QCOMPARE(v.selectedInput(), 9);
        QCOMPARE(selected.last().at(0).toInt(), 9);
        checkColumn(9);
        v.selectInput(99);  // clamped to n
        QCOMPARE(v.selectedInput(), 10);
        checkColumn(10);

        // Same n again keeps the selection; another n resets it to the middle.
        v.setCountMechanism(gm(10, 1.0), info(QStringLiteral("GM"), 1.0));
        QCOMPARE(v.selectedInput(), 10);
        v.setCountMechanism(gm(7, 1.0), info(QStringLiteral("GM"), 1.0));
        QCOMPARE(v.selectedInput(), 3);

        // A click on a column of the heatmap selects it.
        v.setCountMechanism(m, info(QStringLiteral("GM"), 0.5));
        v.resize(1100, 800);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QCustomPlot* plot = v.heatmapPlot();
        plot->replot();
        const QPoint pos(static_cast<int>(plot->xAxis->coordToPixel(8)),
                         static_cast<int>(plot->yAxis->coordToPixel(3)));
        QTest::mouseClick(plot, Qt::LeftButton, {}, pos);
        QCOMPARE(v.selectedInput(), 8);
        QCOMPARE(selected.last().at(0).toInt(), 8);
        checkColumn(8);
    }

    // Toggling LP controls emits the settings as strings (debounced); setLpSettings does not.
    void lpControlsEmitSettings() {
        MatrixTab v;
        v.setLpControlsVisible(true);
        QVERIFY(v.lpControlsVisible());
        QSignalSpy spy(&v, &MatrixTab::lpSettingsEdited);
        auto* wh = v.findChild<QCheckBox*>(QStringLiteral("lpConstraint_wh"));
        auto* cm = v.findChild<QCheckBox*>(QStringLiteral("lpConstraint_cm"));
        auto* objective = v.findChild<QComboBox*>(QStringLiteral("lpObjective"));
        auto* d = v.findChild<QSpinBox*>(QStringLiteral("lpLossD"));
        auto* minimax = v.findChild<QCheckBox*>(QStringLiteral("lpMinimax"));
        auto* weights = v.findChild<QComboBox*>(QStringLiteral("lpWeights"));
        auto* p = v.findChild<QDoubleSpinBox*>(QStringLiteral("lpBinomialP"));
        auto* diag = v.findChild<QDoubleSpinBox*>(QStringLiteral("lpMinDiagonal"));
        QVERIFY(wh && cm && objective && d && minimax && weights && p && diag);
        for (QWidget* w :
             std::initializer_list<QWidget*>{wh, cm, objective, d, minimax, weights, p, diag}) {
            QVERIFY2(!w->toolTip().isEmpty(), qPrintable(w->objectName()));
        }

        wh->click();
        QVERIFY(spy.wait(2000));
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.last().at(0).toString(), QStringLiteral("l0"));
        QCOMPARE(spy.last().at(1).toStringList(), QStringList{QStringLiteral("wh")});
        QCOMPARE(spy.last().at(2).toDouble(), -1.0);
        QCOMPARE(spy.last().at(3).toDouble(), 0.0);

        // Several edits in a row: one emission with the final state.
        cm->click();
        objective->setCurrentIndex(objective->findData(QStringLiteral("l0d")));
        QVERIFY(d->isEnabled());
        d->setValue(3);
        minimax->click();
        QVERIFY(!weights->isEnabled());  // minimax does not use weights
        QVERIFY(spy.wait(2000));
        QCOMPARE(spy.size(), 2);
        QCOMPARE(spy.last().at(0).toString(), QStringLiteral("minimax-l0d:3"));
        QCOMPARE(spy.last().at(1).toStringList(),
                 (QStringList{QStringLiteral("cm"), QStringLiteral("wh")}));

        minimax->click();
        objective->setCurrentIndex(objective->findData(QStringLiteral("l2")));
        QVERIFY(!d->isEnabled());
        weights->setCurrentIndex(1);
        p->setValue(0.3);
        diag->setValue(0.25);
        QVERIFY(spy.wait(2000));
        QCOMPARE(spy.size(), 3);
        QCOMPARE(spy.last().at(0).toString(), QStringLiteral("l2"));
        QCOMPARE(spy.last().at(2).toDouble(), 0.3);
        QCOMPARE(spy.last().at(3).toDouble(), 0.25);

        // Programmatic settings are shown, not emitted.
        v.setLpSettings(QStringLiteral("minimax-l1"),
                        {QStringLiteral("rh"), QStringLiteral("s"), QStringLiteral("f")}, -1, 0);
        QVERIFY(!spy.wait(600));
        QCOMPARE(spy.size(), 3);
        const dpx::ui::LpSettings s = v.lpSettings();
        QCOMPARE(s.objective, QStringLiteral("minimax-l1"));
        QCOMPARE(s.constraints,
                 (QStringList{QStringLiteral("rh"), QStringLiteral("f"), QStringLiteral("s")}));
        QCOMPARE(s.binomialP, -1.0);
        QCOMPARE(s.minDiagonal, 0.0);
        QVERIFY(!wh->isChecked() && !cm->isChecked());
        v.setLpSettings(QStringLiteral("l0d:7"), {}, 0.4, 0.5);
        QVERIFY(!spy.wait(600));
        QCOMPARE(v.lpSettings().objective, QStringLiteral("l0d:7"));
        QCOMPARE(v.lpSettings().binomialP, 0.4);
        QCOMPARE(v.lpSettings().minDiagonal, 0.5);
        QCOMPARE(d->value(), 7);
    }

    // An LP design: status line, the repaired matrix on the heatmap; infeasible → message.
    void lpResult() {
        dpx::CountLpSpec spec;
        spec.n = 30;
        spec.epsilon = 1;
        spec.constraints = {CountProperty::WeaklyHonest, CountProperty::ColumnMonotone};
        const auto r = dpx::designCountMechanism(spec);
        QVERIFY(r.hasValue());
        QCOMPARE(r->status, dpx::LpStatus::Optimal);
        MatrixTab v;
        v.setLpResult(*r, info(QStringLiteral("LP"), 1.0));
        QCOMPARE(v.currentPage(), MatrixTab::Page::Matrix);
        QVERIFY2(v.lpStatusText().startsWith(QStringLiteral("LP optimal in ")),
                 qPrintable(v.lpStatusText()));
        QCOMPARE(v.cellValue(4, 7), r->mechanism->at(7, 4));
        QCOMPARE(v.propertyBadgeHolds(CountProperty::WeaklyHonest), std::optional<bool>(true));
        QCOMPARE(v.propertyBadgeHolds(CountProperty::ColumnMonotone), std::optional<bool>(true));
        QVERIFY(v.privacyBadgeText().startsWith(QStringLiteral("ε-DP ✓")));

        // Without constraints the L1 optimum at a small ε has gaps and spikes: both are listed.
        dpx::CountLpSpec plain;
        plain.n = 20;
        plain.epsilon = 0.1;
        plain.cost = dpx::LpCostKind::L1;
        const auto p = dpx::designCountMechanism(plain);
        QVERIFY(p.hasValue());
        QCOMPARE(p->status, dpx::LpStatus::Optimal);
        v.setLpResult(*p, info(QStringLiteral("LP"), 0.1));
        QCOMPARE(p->gaps.empty(), v.lpWarningText().indexOf(QStringLiteral("Gaps")) < 0);
        QCOMPARE(p->spikes.empty(), v.lpWarningText().indexOf(QStringLiteral("Spikes")) < 0);
        QVERIFY(!p->gaps.empty() && !p->spikes.empty());
        for (std::size_t g : p->gaps) {
            QVERIFY(v.lpWarningText().contains(QString::number(g)));
        }

        spec.constraints.clear();
        spec.minDiagonal = 0.9;
        spec.epsilon = 0.1;
        spec.n = 10;
        const auto bad = dpx::designCountMechanism(spec);
        QVERIFY(bad.hasValue());
        QCOMPARE(bad->status, dpx::LpStatus::Infeasible);
        v.setLpResult(*bad, info(QStringLiteral("LP"), 0.1));
        QCOMPARE(v.currentPage(), MatrixTab::Page::Message);
        QVERIFY(v.messageText().contains(QStringLiteral("infeasible")));
        QVERIFY(v.lpStatusText().startsWith(QStringLiteral("LP infeasible")));
        QCOMPARE(v.privacyBadgeText(), QString());
        QCOMPARE(v.selectedInput(), -1);
    }

    // Histogram mechanisms: the density of Laplace(b = 1) is ½e^{−|x|}, the pmf of the discrete
    // Laplace (1−α)/(1+α)·α^|z|; badges are hidden.
    void noiseDistribution() {
        MatrixTab v;
        v.setCountMechanism(gm(4, 1.0), info(QStringLiteral("GM"), 1.0));
        v.setNoiseDistribution(dpx::NoiseDistribution::laplace(1.0), QStringLiteral("Laplace"));
        QCOMPARE(v.currentPage(), MatrixTab::Page::Noise);
        QCOMPARE(v.currentPlot(), v.noisePlot());
        QVERIFY(!v.propertyBadgeHolds(CountProperty::RowHonest).has_value());
        QCOMPARE(v.privacyBadgeText(), QString());
        QCOMPARE(v.titleText(), QStringLiteral("Laplace"));
        const QVector<QPointF> curve = v.noiseCurve();
        QVERIFY(curve.size() > 100);
        bool sawZero = false;
        for (const QPointF& p : curve) {
            QVERIFY(std::abs(p.y() - 0.5 * std::exp(-std::abs(p.x()))) < 1e-14);
            sawZero = sawZero || p.x() == 0;
        }
        QVERIFY(sawZero);
        QVERIFY(curve.front().x() < -6.9 && curve.back().x() > 6.9);  // beyond the 99.9% width
        QCOMPARE(v.noisePlot()->yAxis->label(), QStringLiteral("density"));

        const double alpha = 0.6;
        v.setNoiseDistribution(dpx::NoiseDistribution::discreteLaplace(alpha),
                               QStringLiteral("Geometric"));
        const QVector<QPointF> pmf = v.noiseCurve();
        QVERIFY(!pmf.isEmpty());
        for (const QPointF& p : pmf) {
            QCOMPARE(p.x(), std::round(p.x()));
            QVERIFY(std::abs(p.y() - (1 - alpha) / (1 + alpha) * std::pow(alpha, std::abs(p.x()))) <
                    1e-14);
        }
        QCOMPARE(v.noisePlot()->yAxis->label(), QStringLiteral("probability"));
    }

    void messageState() {
        MatrixTab v;
        v.setCountMechanism(gm(4, 1.0), info(QStringLiteral("GM"), 1.0));
        v.setMessage(QStringLiteral("Count mechanisms need every bin count ≤ 2000."));
        QCOMPARE(v.currentPage(), MatrixTab::Page::Message);
        QCOMPARE(v.messageText(), QStringLiteral("Count mechanisms need every bin count ≤ 2000."));
        QCOMPARE(v.currentPlot(), nullptr);
        QVERIFY(!v.propertyBadgeHolds(CountProperty::Fair).has_value());
    }

    void logToggleEmits() {
        MatrixTab v;
        v.setCountMechanism(gm(5, 1.0), info(QStringLiteral("GM"), 1.0));
        QSignalSpy spy(&v, &MatrixTab::logScaleToggled);
        auto* box = v.findChild<QCheckBox*>(QStringLiteral("logScaleCheck"));
        QVERIFY(box);
        box->click();
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.last().at(0).toBool(), true);
        QVERIFY(v.logScale());
        QCOMPARE(v.cellValue(2, 2), std::log10(gm(5, 1.0).at(2, 2)));
        box->click();
        QCOMPARE(spy.size(), 2);
        QCOMPARE(spy.last().at(0).toBool(), false);
        v.setLogScale(true);  // programmatic: shown, not emitted
        QVERIFY(box->isChecked());
        QCOMPARE(spy.size(), 2);
    }

    // Responsiveness: n = 2000 fills the map (4 million cells) without per-cell items.
    void largestMatrix() {
        MatrixTab v;
        auto m = dpx::explicitFair(2000, 0.5);
        QVERIFY(m.hasValue());
        QElapsedTimer t;
        t.start();
        v.setCountMechanism(*m, info(QStringLiteral("EM n = 2000"), 0.5));
        v.setLogScale(true);
        v.selectInput(1234);
        QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(v.heatmapPlot()->itemCount(), 1);  // the selection outline only
        QCOMPARE(v.cellValue(1234, 1234), std::max(std::log10(m->at(1234, 1234)), -12.0));
        QCOMPARE(v.profileValues().size(), std::size_t(2001));
    }

    // Renders the tab at 1100×800 (saved as PNG when DPX_MATRIX_VIEW_SCREENSHOTS is set).
    void screenshots() {
        {
            MatrixTab v;
            v.setCountMechanism(gm(20, 0.5),
                                info(QStringLiteral("Truncated geometric (GM), n = 20"), 0.5));
            renderAndMaybeSave(v, QStringLiteral("gm20"));
            v.setLogScale(true);
            renderAndMaybeSave(v, QStringLiteral("gm20_log"));
        }
        {
            dpx::CountLpSpec spec;
            spec.n = 30;
            spec.epsilon = 0.5;
            spec.constraints = {CountProperty::WeaklyHonest, CountProperty::ColumnMonotone};
            const auto r = dpx::designCountMechanism(spec);
            QVERIFY(r.hasValue());
            MatrixTab v;
            v.setLpControlsVisible(true);
            v.setLpSettings(QStringLiteral("l0"), {QStringLiteral("wh"), QStringLiteral("cm")}, -1,
                            0);
            v.setLpResult(*r,
                          info(QStringLiteral("Optimal L0 mechanism (LP, WH + CM), n = 30"), 0.5));
            renderAndMaybeSave(v, QStringLiteral("lp30"));
            QPalette dark;
            dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
            dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
            dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
            dark.setColor(QPalette::AlternateBase, QColor(0x33, 0x33, 0x33));
            dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
            dark.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
            dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
            dark.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
            dark.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
            for (auto role : {QPalette::Text, QPalette::ButtonText, QPalette::WindowText}) {
                dark.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
            }
            v.setPalette(dark);
            v.setLogScale(true);
            renderAndMaybeSave(v, QStringLiteral("lp30_dark_log"));
        }
        {
            MatrixTab v;
            v.setNoiseDistribution(dpx::NoiseDistribution::laplace(2.0),
                                   QStringLiteral("Laplace mechanism, ε = 0.5 (per-bin noise)"));
            renderAndMaybeSave(v, QStringLiteral("laplace"));
            v.setNoiseDistribution(dpx::NoiseDistribution::discreteLaplace(std::exp(-0.5)),
                                   QStringLiteral("Geometric mechanism, ε = 0.5 (per-bin noise)"));
            renderAndMaybeSave(v, QStringLiteral("geometric"));
        }
        {
            dpx::CountLpSpec plain;
            plain.n = 20;
            plain.epsilon = 0.1;
            plain.cost = dpx::LpCostKind::L1;
            const auto r = dpx::designCountMechanism(plain);
            QVERIFY(r.hasValue());
            MatrixTab v;
            v.setLpControlsVisible(true);
            v.setLpSettings(QStringLiteral("l1"), {}, -1, 0);
            v.setLpResult(*r, info(QStringLiteral("Optimal L1 mechanism (LP), n = 20"), 0.1));
            renderAndMaybeSave(v, QStringLiteral("lp20_gaps"));
        }
        {
            MatrixTab v;
            auto m = dpx::explicitFair(2000, 0.05);
            QVERIFY(m.hasValue());
            v.setCountMechanism(*m, info(QStringLiteral("Explicit fair (EM), n = 2000"), 0.05));
            v.setLogScale(true);
            renderAndMaybeSave(v, QStringLiteral("em2000_log"));
            v.setNoiseDistribution(dpx::NoiseDistribution::gaussian(4.2),
                                   QStringLiteral("Gaussian mechanism (per-bin noise)"));
            renderAndMaybeSave(v, QStringLiteral("gaussian_log"));
        }
        {
            MatrixTab v;
            v.setMessage(
                QStringLiteral("Count mechanisms need every bin count ≤ 2000; the "
                               "largest count of this dataset is 48 213."));
            renderAndMaybeSave(v, QStringLiteral("message"));
        }
    }
};

QTEST_MAIN(TestMatrixView)
#include "tst_matrix_tab.moc"
