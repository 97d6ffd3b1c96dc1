#include "ui/widgets/heatmap.h"

#include <algorithm>
#include <cmath>

#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"

namespace dpx::ui {

QCPColorMap* addHeatmap(QCPAxisRect* rect, const QColor& nanColour) {
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setRangeReversed(true);
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    rect->setupFullAxesBox(false);
    rect->axis(QCPAxis::atTop)->setTicks(false);
    rect->axis(QCPAxis::atRight)->setTicks(false);
    auto* map = new QCPColorMap(x, y);
    map->setInterpolate(false);
    map->setTightBoundary(false);
    QCPColorGradient g = viridisGradient();
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(nanColour);
    map->setGradient(g);
    return map;
}

QCPColorScale* makeColorScale(QCustomPlot* plot) {
    auto* scale = new QCPColorScale(plot);
    scale->setType(QCPAxis::atRight);
    scale->setBarWidth(14);
    scale->setRangeDrag(false);
    scale->setRangeZoom(false);
    return scale;
}

QString decadeLabel(int k) {
    if (k >= -2 && k <= 2) {
        return QString::number(std::pow(10.0, k), 'g', 3);
    }
    return QStringLiteral("10") + superscriptInteger(k);
}

QSharedPointer<QCPAxisTickerText> decadeTicker(double lo, double hi) {
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const int first = static_cast<int>(std::ceil(lo - 1e-9));
    const int last = static_cast<int>(std::floor(hi + 1e-9));
    const int step = std::max(1, static_cast<int>(std::ceil((last - first) / 6.0)));
    for (int k = last; k >= first; k -= step) {
        ticker->addTick(k, decadeLabel(k));
    }
    ticker->setSubTickCount(0);
    return ticker;
}

}  // namespace dpx::ui
