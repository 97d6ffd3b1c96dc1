#include "ui/widgets/plot_refresh.h"

#include <QEvent>
#include <QObject>

namespace dpx::ui {

namespace {

// One per plot (a child of it, found by object name): replots on the next Show if marked stale.
class DeferredReplot : public QObject {
public:
    explicit DeferredReplot(QCustomPlot* plot) : QObject(plot), plot_(plot) {
        setObjectName(QStringLiteral("dpxDeferredReplot"));
        plot->installEventFilter(this);
    }
    bool pending = false;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == plot_ && event->type() == QEvent::Show && pending) {
            pending = false;
            // Render the layers now and paint with the widget's first paint event.
            plot_->replot(QCustomPlot::rpQueuedRefresh);
        }
        return false;
    }

private:
    QCustomPlot* plot_;
};

DeferredReplot* deferredFor(const QCustomPlot* plot) {
    return plot->findChild<DeferredReplot*>(QStringLiteral("dpxDeferredReplot"),
                                            Qt::FindDirectChildrenOnly);
}

}  // namespace

void replotWhenVisible(QCustomPlot* plot, QCustomPlot::RefreshPriority priority) {
    DeferredReplot* d = deferredFor(plot);
    if (plot->isVisible()) {
        if (d) {
            d->pending = false;
        }
        plot->replot(priority);
        return;
    }
    if (!d) {
        d = new DeferredReplot(plot);
    }
    d->pending = true;
}

bool replotPending(const QCustomPlot* plot) {
    const DeferredReplot* d = deferredFor(plot);
    return d && d->pending;
}

}  // namespace dpx::ui
