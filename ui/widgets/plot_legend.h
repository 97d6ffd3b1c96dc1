// A legend laid out in columns under a plot (issue #21): QCustomPlot keeps the number of columns it
// was given (setWrap), so three entries side by side on a 1024 × 768 screen get less than their
// text needs and are drawn cut ("frontier (lowes", "gm:iden"). wrapLegendToWidth chooses, each time
// the plot lays itself out, the most columns (up to a maximum) whose entries fit the plot's width,
// and more rows when they do not.
#pragma once

#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

// The most columns, from 1 to `maxColumns`, in which `legend`'s entries (filled columns first)
// fit `width` pixels (the legend's own margins included); 1 when even one column does not fit.
int legendColumnsThatFit(const QCPLegend* legend, int width, int maxColumns);

// Keeps `plot`'s legend (filled columns first) at legendColumnsThatFit of the room its layout
// gives it, before every replot. Idempotent in effect; the maximum is the last one set.
void wrapLegendToWidth(QCustomPlot* plot, int maxColumns);

// For tests: whether every visible entry of `legend` is at least as wide as its text and icon
// need, as last laid out.
bool legendFits(const QCPLegend* legend);

}  // namespace dpx::ui
