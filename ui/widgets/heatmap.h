// Heatmaps (QCustomPlot colour maps) as the window draws them: the matrix tab's probability
// matrix and the Table tab's count maps share the look set here.
#pragma once

#include <QColor>
#include <QString>

#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

// A heatmap in `rect`: y reversed (row 0 on top), no grid, a framing box without ticks, a colour
// map without interpolation in viridis (NaN cells in `nanColour`).
QCPColorMap* addHeatmap(QCPAxisRect* rect, const QColor& nanColour);
// A colour scale for `plot` on the right of a heatmap that neither drags nor zooms (the caller
// places it in the plot's layout and attaches the maps). A map attached to a colour scale takes
// the scale's gradient: set the map's gradient again after QCPColorMap::setColorScale.
QCPColorScale* makeColorScale(QCustomPlot* plot);
// "1", "0.1", "0.01", "10⁻³", … for the decades of a log colour scale.
QString decadeLabel(int k);
// Ticks at the decades of [lo, hi] (log10 values), every decade or every few so that at most 7
// show, counted down from the top one, labelled with decadeLabel; no sub-ticks.
QSharedPointer<QCPAxisTickerText> decadeTicker(double lo, double hi);

}  // namespace dpx::ui
