#include "ui/tabs/matrix/matrix_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QMouseEvent>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

#include "core/count/count_analysis.h"
#include "core/count/lp_objective.h"
#include "ui/tabs/matrix/matrix_support.h"
#include "ui/widgets/plot_title.h"

namespace dpx::ui {

using namespace matrix;

void MatrixTab::setupNoisePlot() {
    noise_->setObjectName(QStringLiteral("noisePlot"));
    noise_->setMinimumSize(420, 300);
    noise_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    noise_->setToolTip(
        tr("The law of the noise added independently to every bin; the shaded "
           "band holds 95% of it. Wheel: zoom, drag: pan, double-click: reset."));
    noise_->xAxis->setLabel(tr("noise added to a bin (counts)"));
    noise_->plotLayout()->insertRow(0);
    noiseTitle_ = new PlotTitle(noise_, QString(), boldFont(font()));
    noise_->plotLayout()->addElement(0, 0, noiseTitle_);
    noise_->legend->setVisible(true);
    noise_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    connect(noise_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { drawNoise(); });
}

void MatrixTab::setNoiseDistribution(const dpx::NoiseDistribution& noise, const QString& title) {
    clearPending();
    mech_.reset();
    report_.reset();
    selected_ = -1;
    noiseLaw_ = noise;
    title_->setText(title);
    updateLpStatus(nullptr);
    showPage(Page::Noise);
    drawNoise();
}

void MatrixTab::drawNoise() {
    if (!noiseLaw_) {
        return;
    }
    const dpx::NoiseDistribution& law = *noiseLaw_;
    noise_->clearPlottables();
    noise_->clearItems();
    noiseCurve_ = nullptr;
    const double q95 = law.absQuantile(0.95);
    double reach = 1.15 * law.absQuantile(0.999);
    if (law.isDiscrete()) {
        reach = std::max(3.0, std::ceil(reach));
    } else if (!(reach > 0)) {
        reach = 1;
    }
    QColor band = kBarColor;
    band.setAlphaF(0.28f);
    QColor faint = kBarColor;
    faint.setAlphaF(0.45f);
    double maxValue = 0;
    double minValue = std::numeric_limits<double>::infinity();
    const QString q95Text = formatSignificantOrSymbol(q95, 4);

    if (law.isDiscrete()) {
        const int r = static_cast<int>(reach);
        QVector<double> keysIn, valuesIn, keysOut, valuesOut, allKeys, allValues;
        for (int z = -r; z <= r; ++z) {
            const double v = law.density(z);
            allKeys << z;
            allValues << v;
            (std::abs(z) <= q95 ? keysIn : keysOut) << z;
            (std::abs(z) <= q95 ? valuesIn : valuesOut) << v;
            maxValue = std::max(maxValue, v);
            if (v > 0) {
                minValue = std::min(minValue, v);
            }
        }
        // The pmf itself (hidden line, for the data and the legend), then the bars.
        noiseCurve_ = noise_->addGraph();
        noiseCurve_->setData(allKeys, allValues, true);
        noiseCurve_->setLineStyle(QCPGraph::lsNone);
        noiseCurve_->removeFromLegend();
        const double width = 2 * r + 1 > 300 ? 1.0 : 0.8;
        const double base = log_ ? minValue / 2 : 0;
        auto* inside = new QCPBars(noise_->xAxis, noise_->yAxis);
        inside->setName(tr("probability, central 95% (|z| ≤ %1)").arg(q95Text));
        inside->setData(keysIn, valuesIn, true);
        inside->setBrush(kBarColor);
        inside->setPen(2 * r + 1 > 150 ? QPen(Qt::NoPen) : QPen(kBarColor.darker(120)));
        inside->setWidth(width);
        inside->setBaseValue(base);
        auto* outside = new QCPBars(noise_->xAxis, noise_->yAxis);
        outside->setName(tr("probability, |z| > %1").arg(q95Text));
        outside->setData(keysOut, valuesOut, true);
        outside->setBrush(faint);
        outside->setPen(Qt::NoPen);
        outside->setWidth(width);
        outside->setBaseValue(base);
        noise_->yAxis->setLabel(log_ ? tr("probability (log scale)") : tr("probability"));
    } else {
        constexpr int kPoints = 801;  // odd: x = 0 is a sample
        QVector<double> keys(kPoints), values(kPoints);
        for (int k = 0; k < kPoints; ++k) {
            keys[k] = -reach + 2 * reach * k / (kPoints - 1);
            values[k] = law.density(keys[k]);
            maxValue = std::max(maxValue, values[k]);
            if (values[k] > 0) {
                minValue = std::min(minValue, values[k]);
            }
        }
        constexpr int kBandPoints = 401;
        QVector<double> bandKeys(kBandPoints), bandValues(kBandPoints);
        for (int k = 0; k < kBandPoints; ++k) {
            bandKeys[k] = -q95 + 2 * q95 * k / (kBandPoints - 1);
            bandValues[k] = law.density(bandKeys[k]);
        }
        auto* shade = noise_->addGraph();
        shade->setName(tr("central 95%: |noise| ≤ %1").arg(q95Text));
        shade->setData(bandKeys, bandValues, true);
        shade->setPen(Qt::NoPen);
        shade->setBrush(band);
        noiseCurve_ = noise_->addGraph();
        noiseCurve_->setName(tr("density"));
        noiseCurve_->setData(keys, values, true);
        noiseCurve_->setPen(QPen(kBarColor, 2));
        noise_->yAxis->setLabel(log_ ? tr("density (log scale)") : tr("density"));
        // density → legend entry first
        noise_->legend->clearItems();
        noiseCurve_->addToLegend();
        shade->addToLegend();
    }
    const double edgeAt = law.isDiscrete() ? q95 + 0.5 : q95;  // between bars
    for (double s : {-edgeAt, edgeAt}) {
        auto* edge = new QCPItemStraightLine(noise_);
        QColor c = palette().color(QPalette::WindowText);
        c.setAlphaF(0.5f);
        edge->setPen(QPen(c, 1, Qt::DashLine));
        edge->point1->setCoords(s, 0);
        edge->point2->setCoords(s, 1);
    }
    noise_->xAxis->setRange(-reach, reach);
    if (log_ && std::isfinite(minValue)) {
        noise_->yAxis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
        ticker->setSubTickCount(0);
        noise_->yAxis->setTicker(ticker);
        noise_->yAxis->setNumberFormat(QStringLiteral("eb"));
        noise_->yAxis->setNumberPrecision(0);
        noise_->yAxis->setRange(minValue / 2, maxValue * 3);
    } else {
        noise_->yAxis->setScaleType(QCPAxis::stLinear);
        noise_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        noise_->yAxis->setNumberFormat(QStringLiteral("gb"));
        noise_->yAxis->setNumberPrecision(6);
        noise_->yAxis->setRange(0, (maxValue > 0 ? maxValue : 1) * 1.12);
    }
    noiseTitle_->setText(tr("%1 — noise added to every bin\n95% of it lies within ±%2; "
                            "standard deviation %3; mean |noise| %4")
                             .arg(QString::fromStdString(law.describe()), q95Text,
                                  formatSignificantOrSymbol(std::sqrt(law.variance()), 4),
                                  formatSignificantOrSymbol(law.meanAbs(), 4)));
    replotWhenVisible(noise_, QCustomPlot::rpQueuedReplot);
}

QVector<QPointF> MatrixTab::noiseCurve() const {
    QVector<QPointF> points;
    if (!noiseCurve_ || currentPage() != Page::Noise) {
        return points;
    }
    for (auto it = noiseCurve_->data()->constBegin(); it != noiseCurve_->data()->constEnd(); ++it) {
        points << QPointF(it->key, it->value);
    }
    return points;
}

}  // namespace dpx::ui
