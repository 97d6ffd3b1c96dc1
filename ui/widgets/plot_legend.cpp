#include "ui/widgets/plot_legend.h"

#include <QVariant>
#include <algorithm>
#include <vector>

namespace dpx::ui {

namespace {

constexpr const char* kMaxColumns = "dpxLegendMaxColumns";

// The width the legend's parent layouts leave it: the plot's viewport less the margins of every
// layout around it (a legend under the axis rect sits in a grid of its own with margins).
int roomFor(const QCPLegend* legend) {
    int width = legend->parentPlot()->viewport().width();
    for (const QCPLayout* p = legend->layout(); p; p = p->layout()) {
        width -= p->margins().left() + p->margins().right();
    }
    return width;
}

}  // namespace

int legendColumnsThatFit(const QCPLegend* legend, int width, int maxColumns) {
    std::vector<int> need;  // each visible entry's minimum width, in fill order
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (const QCPAbstractLegendItem* it = legend->item(i); it && it->visible()) {
            need.push_back(it->minimumOuterSizeHint().width());
        }
    }
    const int n = static_cast<int>(need.size());
    const QMargins m = legend->margins();
    for (int cols = std::min(maxColumns, std::max(n, 1)); cols > 1; --cols) {
        // Columns first: entry i is in column i mod cols; a column is as wide as its widest.
        std::vector<int> column(static_cast<std::size_t>(cols), 0);
        for (int i = 0; i < n; ++i) {
            auto& c = column[static_cast<std::size_t>(i % cols)];
            c = std::max(c, need[static_cast<std::size_t>(i)]);
        }
        int total = m.left() + m.right() + legend->columnSpacing() * (cols - 1);
        for (int c : column) {
            total += c;
        }
        if (total <= width) {
            return cols;
        }
    }
    return 1;
}

void wrapLegendToWidth(QCustomPlot* plot, int maxColumns) {
    QCPLegend* legend = plot->legend;
    const bool hooked = legend->property(kMaxColumns).isValid();
    legend->setProperty(kMaxColumns, std::max(maxColumns, 1));
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    if (hooked) {
        return;
    }
    // Before the replot lays the plot out: the columns for the width it has now (and for the
    // entries it has now: series come and go).
    QObject::connect(plot, &QCustomPlot::beforeReplot, legend, [legend] {
        const int max = legend->property(kMaxColumns).toInt();
        const int cols = legendColumnsThatFit(legend, roomFor(legend), max);
        if (legend->wrap() != cols || legend->fillOrder() != QCPLayoutGrid::foColumnsFirst) {
            legend->setWrap(cols);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // places the entries anew
        }
    });
}

bool legendFits(const QCPLegend* legend) {
    if (!legend->visible()) {
        return true;
    }
    for (int i = 0; i < legend->itemCount(); ++i) {
        const QCPAbstractLegendItem* it = legend->item(i);
        if (it && it->visible() && !it->outerRect().isEmpty() &&
            it->outerRect().width() + 1 < it->minimumOuterSizeHint().width()) {
            return false;
        }
    }
    return true;
}

}  // namespace dpx::ui
