// The palette-dependent look shared by every plot of the window (light and dark themes): the
// background, axes, dotted grid and legend in the widget palette's colours.
#pragma once

#include <QPalette>

#include "ui/qcustomplot_include.h"

namespace dpx::ui {

void applyPlotPalette(QCustomPlot* plot, const QPalette& pal);
// The same axis and grid styling for the axes of a further axis rect (stacked plots).
void applyAxisRectPalette(QCPAxisRect* rect, const QPalette& pal);

}  // namespace dpx::ui
