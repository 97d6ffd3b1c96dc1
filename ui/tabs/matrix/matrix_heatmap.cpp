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
#include <tuple>
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

void MatrixTab::setupHeatmap() {
    heatmap_->setObjectName(QStringLiteral("heatmapPlot"));
    heatmap_->setMinimumSize(420, 260);
    heatmap_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    heatmap_->setMouseTracking(true);
    setupCountAxis(heatmap_->xAxis, tr("true count j (input)"));
    setupCountAxis(heatmap_->yAxis, tr("output i"));
    std::tie(colorMap_, colorScale_) = setupMatrixHeatmap(heatmap_, logZeroColor());
    colorScale_->axis()->setLabel(tr("P[output i | true count j]"));

    selectionRect_ = new QCPItemRect(heatmap_);
    selectionRect_->setPen(QPen(kAccent, 2));
    selectionRect_->setBrush(Qt::NoBrush);
    selectionRect_->setClipToAxisRect(true);
    selectionRect_->setVisible(false);

    connect(heatmap_, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { pressPos_ = e->position().toPoint(); });
    connect(heatmap_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton ||
            (e->position().toPoint() - pressPos_).manhattanLength() > 4) {
            return;  // a drag, not a click
        }
        if (auto cell = cellAt(e->position())) {
            selectInput(cell->first);
        }
    });
    connect(heatmap_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
        resetHeatmapView();
        heatmap_->replot();
    });
    connect(heatmap_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        heatmapMouseMove(e->position(), e->globalPosition().toPoint());
    });
}

void MatrixTab::setupProfile() {
    profile_->setObjectName(QStringLiteral("profilePlot"));
    profile_->setMinimumSize(420, 170);
    profile_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    profile_->axisRect()->setRangeDrag(Qt::Horizontal);
    profile_->axisRect()->setRangeZoom(Qt::Horizontal);
    profile_->setToolTip(
        tr("P[output i | true count j] for the selected true count j (the "
           "highlighted bar): one column of the matrix. Wheel: zoom, drag: "
           "pan, double-click: reset."));
    setupCountAxis(profile_->xAxis, tr("output i"));
    profile_->yAxis->setLabel(tr("probability"));
    profile_->xAxis->grid()->setVisible(false);
    profile_->plotLayout()->insertRow(0);
    profileTitle_ = new PlotTitle(profile_, QString(), boldFont(font()));
    profile_->plotLayout()->addElement(0, 0, profileTitle_);

    profileBars_ = new QCPBars(profile_->xAxis, profile_->yAxis);
    profileBars_->setName(tr("P[i | j]"));
    profileBars_->setBrush(kBarColor);
    profileBars_->setPen(QPen(kBarColor.darker(120)));
    profileBars_->setWidth(0.8);
    profileTruth_ = new QCPBars(profile_->xAxis, profile_->yAxis);
    profileTruth_->setName(tr("correct output i = j"));
    profileTruth_->setBrush(kAccent);
    profileTruth_->setPen(QPen(kAccent.darker(120)));
    profileTruth_->setWidth(0.8);

    truthLine_ = new QCPItemStraightLine(profile_);
    QColor line = kAccent;
    line.setAlphaF(0.6f);
    truthLine_->setPen(QPen(line, 1, Qt::DashLine));
    truthText_ = new QCPItemText(profile_);
    truthText_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    truthText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    truthText_->setColor(kAccent);
    truthText_->setFont(boldFont(font()));
    truthText_->setPadding(QMargins(4, 2, 4, 2));
    truthText_->setClipToAxisRect(true);

    connect(profile_, &QCustomPlot::mouseDoubleClick, this,
            [this](QMouseEvent*) { updateSelection(); });
}

void MatrixTab::fillHeatmap() {
    if (!mech_) {
        return;
    }
    const int size = static_cast<int>(mech_->size());
    const auto& p = mech_->rowMajor();
    QCPColorMapData* mapData = colorMap_->data();
    mapData->setSize(size, size);
    mapData->setRange(QCPRange(0, size - 1), QCPRange(0, size - 1));
    // One pass in storage order: cell (key j, value i) = P[i][j].
    if (!log_) {
        for (int i = 0; i < size; ++i) {
            const double* row = p.data() + static_cast<std::size_t>(i) * size;
            for (int j = 0; j < size; ++j) {
                mapData->setCell(j, i, row[j]);
            }
        }
        colorMap_->setDataRange(QCPRange(0, maxEntry_ > 0 ? maxEntry_ : 1));
        colorScale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        colorScale_->axis()->setNumberFormat(QStringLiteral("gb"));
        colorScale_->axis()->setLabel(tr("P[output i | true count j]"));
        heatmapHint_->setText(
            tr("Click a column (or set the true count above) to see its "
               "profile below. Wheel: zoom, drag: pan, double-click: reset."));
    } else {
        const double lf = std::log10(logFloor_);
        for (int i = 0; i < size; ++i) {
            const double* row = p.data() + static_cast<std::size_t>(i) * size;
            for (int j = 0; j < size; ++j) {
                const double v = row[j];
                mapData->setCell(j, i, v > 0 ? std::max(std::log10(v), lf) : kNaN);
            }
        }
        double hi = std::log10(std::max(maxEntry_, logFloor_));
        double lo = lf;
        if (hi - lo < 1) {
            lo = hi - 1;
        }
        colorMap_->setDataRange(QCPRange(lo, hi));
        // Decade ticks labelled as probabilities.
        colorScale_->axis()->setTicker(decadeTicker(lo, hi));
        colorScale_->axis()->setNumberFormat(QStringLiteral("g"));  // labels as given
        colorScale_->axis()->setLabel(tr("P[output i | true count j] (log scale)"));
        const bool hasZero = std::any_of(p.begin(), p.end(), [](double v) { return v == 0; });
        QString hint = tr("Log colour scale.");
        if (hasZero) {
            hint += QLatin1Char(' ') + tr("Grey cells are exact zeros.");
        }
        if (logFloor_ <= kLogFloor) {
            hint += QLatin1Char(' ') + tr("Entries below %1 take the colour of %1.")
                                           .arg(formatSignificantOrSymbol(kLogFloor, 3));
        }
        hint += QLatin1Char(' ') + tr("Click a column to see its profile below.");
        heatmapHint_->setText(hint);
    }
}

void MatrixTab::resetHeatmapView() {
    if (!mech_) {
        return;
    }
    const double n = static_cast<double>(mech_->people());
    heatmap_->xAxis->setRange(-0.5, n + 0.5);
    heatmap_->yAxis->setRange(-0.5, n + 0.5);
}

void MatrixTab::setLogScale(bool on) {
    if (on != logBox_->isChecked()) {
        const QSignalBlocker block(logBox_);
        logBox_->setChecked(on);
    }
    if (on == log_) {
        return;
    }
    log_ = on;
    if (mech_) {
        fillHeatmap();
        updateSelection();
    } else if (noiseLaw_) {
        drawNoise();
    } else if (report_) {
        fillLocalHeatmap();
    }
}

void MatrixTab::selectInput(int j) {
    if (!mech_) {
        return;
    }
    j = std::clamp(j, 0, static_cast<int>(mech_->people()));
    if (j == selected_) {
        return;
    }
    selected_ = j;
    {
        const QSignalBlocker block(input_);
        input_->setValue(j);
    }
    updateSelection();
    Q_EMIT inputSelected(j);
}

void MatrixTab::updateSelection() {
    if (!mech_ || selected_ < 0) {
        return;
    }
    const int size = static_cast<int>(mech_->size());
    const int n = size - 1;
    const int j = selected_;
    selectionRect_->topLeft->setCoords(j - 0.5, -0.5);
    selectionRect_->bottomRight->setCoords(j + 0.5, n + 0.5);
    selectionRect_->setVisible(true);
    replotWhenVisible(heatmap_, QCustomPlot::rpQueuedReplot);

    QVector<double> keys(size), values(size);
    double maxValue = 0;
    double minPositive = 1;
    for (int i = 0; i < size; ++i) {
        keys[i] = i;
        values[i] = mech_->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
        maxValue = std::max(maxValue, values[i]);
        if (values[i] > 0) {
            minPositive = std::min(minPositive, values[i]);
        }
    }
    const QPen barPen = size > 150 ? QPen(Qt::NoPen) : QPen(kBarColor.darker(120));
    profileBars_->setPen(barPen);
    profileBars_->setWidth(size > 150 ? 1.0 : 0.8);  // no hairline gaps between thin bars
    profileTruth_->setWidth(size > 150 ? 1.0 : 0.8);
    profileTruth_->setPen(size > 150 ? QPen(Qt::NoPen) : QPen(kAccent.darker(120)));
    if (log_) {
        const double lower = std::max(minPositive, logFloor_) / 2;
        for (double& v : values) {
            v = std::max(v, lower);
        }
        profileBars_->setBaseValue(lower);
        profileTruth_->setBaseValue(lower);
        profile_->yAxis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
        ticker->setSubTickCount(0);
        profile_->yAxis->setTicker(ticker);
        profile_->yAxis->setNumberFormat(QStringLiteral("eb"));
        profile_->yAxis->setNumberPrecision(0);
        profile_->yAxis->setRange(lower, std::max(maxValue, lower * 10) * 3);
        profile_->yAxis->setLabel(tr("probability (log scale)"));
    } else {
        profileBars_->setBaseValue(0);
        profileTruth_->setBaseValue(0);
        profile_->yAxis->setScaleType(QCPAxis::stLinear);
        profile_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        profile_->yAxis->setNumberFormat(QStringLiteral("gb"));
        profile_->yAxis->setNumberPrecision(6);
        profile_->yAxis->setRange(0, (maxValue > 0 ? maxValue : 1) * 1.2);
        profile_->yAxis->setLabel(tr("probability"));
    }
    profileBars_->setData(keys, values, true);
    profileTruth_->setData(QVector<double>{static_cast<double>(j)}, QVector<double>{values[j]},
                           true);
    profile_->xAxis->setRange(-0.5, n + 0.5);
    truthLine_->point1->setCoords(j, 0);
    truthLine_->point2->setCoords(j, 1);
    truthText_->setText(tr("true count %1").arg(j));
    const bool right = j > n / 2;
    truthText_->setPositionAlignment(Qt::AlignTop | (right ? Qt::AlignRight : Qt::AlignLeft));
    truthText_->setPadding(right ? QMargins(4, 2, 8, 2) : QMargins(8, 2, 4, 2));
    truthText_->position->setCoords(right ? j - 0.5 : j + 0.5, 0.0);
    profileTitle_->setText(tr("Column j = %1: P[output i | true count %1]").arg(j));
    replotWhenVisible(profile_, QCustomPlot::rpQueuedReplot);

    summary_->setText(inputErrorSummary(*mech_, static_cast<std::size_t>(j)));
}

std::optional<std::pair<int, int>> MatrixTab::cellAt(const QPointF& pos) const {
    if (!mech_ || !heatmap_->axisRect()->rect().contains(pos.toPoint())) {
        return std::nullopt;
    }
    const int j = static_cast<int>(std::lround(heatmap_->xAxis->pixelToCoord(pos.x())));
    const int i = static_cast<int>(std::lround(heatmap_->yAxis->pixelToCoord(pos.y())));
    const int n = static_cast<int>(mech_->people());
    if (i < 0 || j < 0 || i > n || j > n) {
        return std::nullopt;
    }
    return std::make_pair(j, i);
}

void MatrixTab::heatmapMouseMove(const QPointF& pos, const QPoint& globalPos) {
    if (auto cell = cellAt(pos)) {
        QToolTip::showText(globalPos, cellToolTip(cell->first, cell->second), heatmap_);
    } else {
        QToolTip::hideText();
    }
}

QString MatrixTab::cellToolTip(int j, int i) const {
    if (!mech_ || i < 0 || j < 0 || i >= static_cast<int>(mech_->size()) ||
        j >= static_cast<int>(mech_->size())) {
        return {};
    }
    const double v = mech_->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
    QString text = tr("P[output i | true count j] = %1 (j = %2, i = %3)")
                       .arg(v == 0 ? QStringLiteral("0") : formatSignificantOrSymbol(v, 4))
                       .arg(j)
                       .arg(i);
    if (v == 0) {
        text += tr(" — exactly zero: output %1 is never reported for true count %2").arg(i).arg(j);
    }
    return text;
}

}  // namespace dpx::ui
