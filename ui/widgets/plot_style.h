// The palette-dependent look shared by every plot of the window (light and dark themes): the
// background, axes, dotted grid and legend in the widget palette's colours.
#pragma once

#include <QPalette>

#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

void applyPlotPalette(QCustomPlot* plot, const QPalette& pal);
// The variant for plots with several axis rects and colour scales (the Mechanism matrix tab): the
// axes of every axis rect and colour scale with a stronger grid, the plot's text elements in the
// text colour, and an opaque legend framed in the grid colour.
void applyAllAxesPalette(QCustomPlot* plot, const QPalette& pal);
// The same axis and grid styling for the axes of a further axis rect (stacked plots).
void applyAxisRectPalette(QCPAxisRect* rect, const QPalette& pal);
// The standard viridis colour map (matplotlib's, sampled at 0, 0.1, …, 1) for heatmaps.
QCPColorGradient viridisGradient();
// True for a dark theme (the palette's base colour is dark).
bool isDarkPalette(const QPalette& pal);
// Multiplies the size of every text `plot` draws by `factor` (View ▸ Zoom: new zoom / old zoom):
// the labels and tick labels of every axis (colour scales' too), the legends and their items, the
// text elements (titles) and the text items. Texts made later from the widget font follow the
// application font, which the zoom scales too.
void scalePlotText(QCustomPlot* plot, double factor);
// A font `factor` times as large (point size, or pixel size for fonts set in pixels).
QFont scaledFont(QFont font, double factor);
// A logarithmic axis with decade ticks, 8 sub-ticks and "1·10⁴"-style labels (3 digits).
void makeLogAxis(QCPAxis* axis);

}  // namespace dpx::ui
