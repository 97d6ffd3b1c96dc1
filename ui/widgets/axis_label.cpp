#include "ui/widgets/axis_label.h"

#include <QFontMetrics>
#include <QStringList>
#include <QVariant>
#include <algorithm>

namespace dpx::ui {

namespace {

constexpr const char* kFull = "dpxFullAxisLabel";
constexpr const char* kShown = "dpxShownAxisLabel";
constexpr const char* kHooked = "dpxFitAxisLabels";
constexpr const char* kRequeued = "dpxFitAxisLabelsRequeued";

// The pixels the axis offers its label: the axis rect's height for a vertical axis, its width
// for a horizontal one.
int axisLength(const QCPAxis* axis) {
    const QRect r = axis->axisRect()->rect();
    return axis->orientation() == Qt::Vertical ? r.height() : r.width();
}

int widestLine(const QString& text, const QFontMetrics& metrics) {
    int widest = 0;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        widest = std::max(widest, metrics.horizontalAdvance(line));
    }
    return widest;
}

// Every axis whose label is fitted: those of the axis rects and of the colour scales.
QList<QCPAxis*> labelledAxes(QCustomPlot* plot) {
    QList<QCPAxis*> axes;
    for (QCPAxisRect* rect : plot->axisRects()) {
        axes << rect->axes();
    }
    for (QCPLayoutElement* el : plot->plotLayout()->elements(true)) {
        if (auto* scale = qobject_cast<QCPColorScale*>(el)) {
            axes << scale->axis();
        }
    }
    return axes;
}

// Fits every label once at the layout as it is; true when some label changed.
bool fitOnce(QCustomPlot* plot) {
    bool changed = false;
    for (QCPAxis* axis : labelledAxes(plot)) {
        const int length = axisLength(axis);
        if (!axis->visible() || axis->label().isEmpty() || length <= 0) {
            continue;
        }
        const QString full = fullAxisLabel(axis);
        const QFontMetrics metrics(axis->labelFont());
        // An axis shorter than four lines of its label's type belongs to a plot too small to
        // read (a heatmap squeezed to 160 px in a test): more lines would only take the little
        // room its data has, so its label stays on one line.
        const bool tiny = length < 4 * metrics.height();
        const QString shown = tiny ? full : wrapAxisLabel(full, metrics, length);
        axis->setProperty(kFull, full);
        axis->setProperty(kShown, shown);
        if (axis->label() != shown) {
            axis->setLabel(shown);
            changed = true;
        }
    }
    return changed;
}

void relayout(QCustomPlot* plot) {
    // What QCustomPlot::updateLayout does (protected), without its afterLayout signal; twice,
    // because a wrapping title (PlotTitle) sizes itself from the rectangle of the layout before:
    // once the label's lines have moved the columns, the second pass gives the title its height
    // for its new width.
    for (int k = 0; k < 2; ++k) {
        plot->plotLayout()->update(QCPLayoutElement::upPreparation);
        plot->plotLayout()->update(QCPLayoutElement::upMargins);
        plot->plotLayout()->update(QCPLayoutElement::upLayout);
    }
}

// After a layout: fit, and lay out again when a label changed (its lines change the margins,
// and so the other axes' lengths: at most twice more).
void fitAfterLayout(QCustomPlot* plot) {
    bool changed = false;
    for (int pass = 0; pass < 2 && fitOnce(plot); ++pass) {
        relayout(plot);
        changed = true;
    }
    // Other afterLayout listeners (a title that re-wraps, the ticks of a narrow plot) may have
    // looked at the layout before the labels changed it: one more (queued) replot shows them the
    // final one. At most three in a row, should two labels ever keep undoing each other.
    const int requeued = plot->property(kRequeued).toInt();
    if (changed && requeued < 3) {
        plot->setProperty(kRequeued, requeued + 1);
        plot->replot(QCustomPlot::rpQueuedReplot);
    } else if (!changed) {
        plot->setProperty(kRequeued, 0);
    }
}

}  // namespace

QString fullAxisLabel(const QCPAxis* axis) {
    const QVariant shown = axis->property(kShown);
    // A label other than the one last fitted was set by the view: it is the full one.
    if (!shown.isValid() || shown.toString() != axis->label()) {
        return axis->label();
    }
    return axis->property(kFull).toString();
}

QString wrapAxisLabel(const QString& text, const QFontMetrics& metrics, int length) {
    if (metrics.horizontalAdvance(text) <= length) {
        return text;
    }
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const int n = static_cast<int>(words.size());
    if (n < 2) {
        return text;
    }
    const auto join = [&](int from, int to) {  // words [from, to)
        return words.mid(from, to - from).join(QLatin1Char(' '));
    };
    // Two lines: the break that makes the wider line narrowest.
    QString best = text;
    int bestWidth = metrics.horizontalAdvance(text);
    for (int k = 1; k < n; ++k) {
        const QString two = join(0, k) + QLatin1Char('\n') + join(k, n);
        const int w = widestLine(two, metrics);
        if (w < bestWidth) {
            best = two;
            bestWidth = w;
        }
    }
    if (bestWidth <= length || n < 3) {
        return best;
    }
    // Three lines when two are still too wide (large presentation type on a short plot).
    for (int a = 1; a < n - 1; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const QString three =
                join(0, a) + QLatin1Char('\n') + join(a, b) + QLatin1Char('\n') + join(b, n);
            const int w = widestLine(three, metrics);
            if (w < bestWidth) {
                best = three;
                bestWidth = w;
            }
        }
    }
    return best;
}

void fitAxisLabels(QCustomPlot* plot) {
    if (!plot) {
        return;
    }
    relayout(plot);
    fitAfterLayout(plot);
}

void fitAxisLabelsOnReplot(QCustomPlot* plot) {
    if (!plot || plot->property(kHooked).isValid()) {
        return;
    }
    plot->setProperty(kHooked, true);
    // Every layout (a replot, and the drawing of toPixmap / toPainter for slides and exports)
    // emits afterLayout with the axis rects at the size drawn.
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] { fitAfterLayout(plot); });
}

bool axisLabelFits(const QCPAxis* axis) {
    const int length = axisLength(axis);
    if (!axis->visible() || axis->label().isEmpty() || length <= 0) {
        return true;
    }
    return widestLine(axis->label(), QFontMetrics(axis->labelFont())) <= length + 1;
}

}  // namespace dpx::ui
