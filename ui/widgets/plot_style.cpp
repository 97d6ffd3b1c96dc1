#include "ui/widgets/plot_style.h"

#include <QSet>
#include <array>
#include <cmath>

#include "ui/widgets/axis_label.h"

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

QFont scaledFont(QFont font, double factor) {
    if (font.pointSizeF() > 0) {
        font.setPointSizeF(font.pointSizeF() * factor);
    } else if (font.pixelSize() > 0) {
        font.setPixelSize(std::max(1, static_cast<int>(std::lround(font.pixelSize() * factor))));
    }
    return font;
}

namespace {
void scaleAxisText(QCPAxis* axis, double factor) {
    axis->setLabelFont(scaledFont(axis->labelFont(), factor));
    axis->setTickLabelFont(scaledFont(axis->tickLabelFont(), factor));
    axis->setSelectedLabelFont(scaledFont(axis->selectedLabelFont(), factor));
    axis->setSelectedTickLabelFont(scaledFont(axis->selectedTickLabelFont(), factor));
}

void scaleLegendText(QCPLegend* legend, double factor) {
    // QCPLegend::setFont also sets every item's font: keep the items' own sizes first.
    std::vector<std::pair<QCPAbstractLegendItem*, QFont>> items;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (QCPAbstractLegendItem* item = legend->item(i)) {
            items.emplace_back(item, item->font());
        }
    }
    legend->setFont(scaledFont(legend->font(), factor));
    legend->setSelectedFont(scaledFont(legend->selectedFont(), factor));
    for (auto& [item, font] : items) {
        item->setFont(scaledFont(font, factor));
        item->setSelectedFont(scaledFont(item->selectedFont(), factor));
    }
}
}  // namespace

void scalePlotText(QCustomPlot* plot, double factor) {
    if (!plot || !(factor > 0) || factor == 1.0) {
        return;
    }
    QSet<QCPLegend*> legends;
    legends.insert(plot->legend);
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            scaleAxisText(axis, factor);
        }
    }
    for (QCPLayoutElement* el : plot->plotLayout()->elements(true)) {
        if (auto* scale = qobject_cast<QCPColorScale*>(el)) {
            scaleAxisText(scale->axis(), factor);
        } else if (auto* title = qobject_cast<QCPTextElement*>(el)) {
            title->setFont(scaledFont(title->font(), factor));
            title->setSelectedFont(scaledFont(title->selectedFont(), factor));
        } else if (auto* legend = qobject_cast<QCPLegend*>(el)) {
            legends.insert(legend);
        }
    }
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPLayoutElement* el : rect->insetLayout()->elements(false)) {
            if (auto* legend = qobject_cast<QCPLegend*>(el)) {
                legends.insert(legend);
            }
        }
    }
    for (QCPLegend* legend : legends) {
        if (legend) {
            scaleLegendText(legend, factor);
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) {
            text->setFont(scaledFont(text->font(), factor));
            text->setSelectedFont(scaledFont(text->selectedFont(), factor));
        }
    }
    plot->replot(QCustomPlot::rpQueuedReplot);
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
    fitAxisLabelsOnReplot(plot);
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
    fitAxisLabelsOnReplot(plot);
}

}  // namespace dpx::ui
