// Replotting only what the user can see. QCustomPlot::replot() renders every layer into the
// plot's paint buffers even when the widget is hidden (on a tab in the background), which made a
// single ε change cost the histogram's full redraw on whatever tab was showing. Views call
// replotWhenVisible() instead: a visible plot replots now; a hidden one remembers that it is stale
// and replots when it is next shown (before its first paint, so it never shows old content).
#pragma once

#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

// `priority` applies when the plot is visible (rpRefreshHint: render and paint now, as replot()).
void replotWhenVisible(QCustomPlot* plot,
                       QCustomPlot::RefreshPriority priority = QCustomPlot::rpRefreshHint);

// True while `plot` waits for a deferred replot (tests and benchmarks).
bool replotPending(const QCustomPlot* plot);

}  // namespace dpx::ui
