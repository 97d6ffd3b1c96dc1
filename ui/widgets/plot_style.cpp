#include "ui/widgets/plot_style.h"

#include <array>

namespace dpx::ui {

namespace {

// The grid's alpha: faint by default, stronger on the matrix tab's heatmaps.
constexpr int kGridAlpha = 40;
constexpr int kStrongGridAlpha = 64;

void styleAxes(const QList<QCPAxis*>& axes, const QPalette& pal, int gridAlpha = kGridAlpha) {
    const QColor text = pal.color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlpha(gridAlpha);
    for (QCPAxis* axis : axes) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        axis->grid()->setSubGridPen(Qt::NoPen);
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
}

}  // namespace

QCPColorGradient viridisGradient() {
    static constexpr std::array<QRgb, 11> stops = {0x440154, 0x482475, 0x414487, 0x355f8d,
                                                   0x2a788e, 0x21918c, 0x22a884, 0x44bf70,
                                                   0x7ad151, 0xbddf26, 0xfde725};
    QCPColorGradient g;
    g.clearColorStops();
    for (std::size_t k = 0; k < stops.size(); ++k) {
        g.setColorStopAt(static_cast<double>(k) / 10.0, QColor(stops[k]));
    }
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(512);
    g.setPeriodic(false);
    return g;
}

bool isDarkPalette(const QPalette& pal) {
    return pal.color(QPalette::Base).lightness() < 128;
}

void makeLogAxis(QCPAxis* axis) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("gb"));
    axis->setNumberPrecision(3);
}

void applyAxisRectPalette(QCPAxisRect* rect, const QPalette& pal) {
    styleAxes(rect->axes(), pal);
}

void applyPlotPalette(QCustomPlot* plot, const QPalette& pal) {
    const QColor text = pal.color(QPalette::WindowText);
    const QColor base = pal.color(QPalette::Base);
    plot->setBackground(base);
    styleAxes({plot->xAxis, plot->yAxis, plot->xAxis2, plot->yAxis2}, pal);
    QColor legendBack = base;
    legendBack.setAlpha(220);
    plot->legend->setBrush(legendBack);
    plot->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
    plot->legend->setTextColor(text);
}

void applyAllAxesPalette(QCustomPlot* plot, const QPalette& pal) {
    const QColor text = pal.color(QPalette::WindowText);
    const QColor base = pal.color(QPalette::Base);
    QColor grid = text;
    grid.setAlpha(kStrongGridAlpha);
    plot->setBackground(base);
    for (QCPAxisRect* rect : plot->axisRects()) {
        styleAxes(rect->axes(), pal, kStrongGridAlpha);
    }
    for (int k = 0; k < plot->plotLayout()->elementCount(); ++k) {
        QCPLayoutElement* el = plot->plotLayout()->elementAt(k);
        if (auto* scale = qobject_cast<QCPColorScale*>(el)) {
            styleAxes({scale->axis()}, pal, kStrongGridAlpha);
        } else if (auto* title = qobject_cast<QCPTextElement*>(el)) {
            title->setTextColor(text);
        }
    }
    plot->legend->setBrush(base);
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(grid));
}

}  // namespace dpx::ui
