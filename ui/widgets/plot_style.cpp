#include "ui/widgets/plot_style.h"

#include <array>

namespace dpx::ui {

namespace {

void styleAxes(const QList<QCPAxis*>& axes, const QPalette& pal) {
    const QColor text = pal.color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlpha(40);
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

}  // namespace dpx::ui
