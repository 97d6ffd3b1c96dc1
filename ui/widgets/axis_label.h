// Axis labels that fit their axis (issue #21): QCustomPlot draws an axis label on one line centred
// on its axis and clips nothing, so a label longer than its axis runs past the plot's edge and is
// cut ("δ(ε) of the whole pla" beside a short profile plot at 1024 × 768, the local-DP pages'
// y-labels in presentation type). fitAxisLabels breaks such a label onto two lines (at the space
// nearest its middle, or three when two are still too long) and gives a label that fits again its
// one line back. The label as the view set it is kept on the axis: a view that sets a new label
// is followed.
#pragma once

#include <QString>

#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

// Lays `plot` out at its current viewport and fits the label of every visible axis of every axis
// rect (and colour scale) to the axis's length (an axis shorter than four lines of its label's
// type keeps its label on one line: its plot is too small to read).
void fitAxisLabels(QCustomPlot* plot);

// Calls fitAxisLabels before every replot of `plot` (idempotent). applyPlotPalette and
// applyAllAxesPalette do it for every plot of the window.
void fitAxisLabelsOnReplot(QCustomPlot* plot);

// The label a view gave `axis` (its text before any line break fitAxisLabels put in).
QString fullAxisLabel(const QCPAxis* axis);

// `text` on as few lines (1 to 3, broken at spaces) as make every line at most `length` pixels
// wide in `metrics`; the text as given when it fits or has no space to break at.
QString wrapAxisLabel(const QString& text, const QFontMetrics& metrics, int length);

// For tests: whether `axis`'s label, as last laid out, is no longer than its axis (a hidden
// axis, an empty label or an axis not laid out yet fits).
bool axisLabelFits(const QCPAxis* axis);

}  // namespace dpx::ui
