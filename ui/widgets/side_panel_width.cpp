#include "ui/widgets/side_panel_width.h"

#include <QEvent>
#include <QLayout>
#include <QPointer>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <algorithm>

namespace dpx::ui {

namespace {

constexpr const char* kFollowerName = "dpxContentsWidthFollower";

// Watches the area's widget: every layout request (a control added or hidden, a font changed by
// zoom) may change the width the controls need.
class ContentsWidthFollower : public QObject {
public:
    explicit ContentsWidthFollower(QScrollArea* area) : QObject(area), area_(area) {
        setObjectName(QString::fromLatin1(kFollowerName));
        area->widget()->installEventFilter(this);
        update();
    }

    bool eventFilter(QObject* watched, QEvent* event) override {
        if (area_ && watched == area_->widget() &&
            (event->type() == QEvent::LayoutRequest || event->type() == QEvent::FontChange ||
             event->type() == QEvent::Show)) {
            update();
        }
        if (area_ && watched == area_->widget() &&
            (event->type() == QEvent::LayoutRequest || event->type() == QEvent::Resize ||
             event->type() == QEvent::Show)) {
            keepHeightForWidth();
        }
        return QObject::eventFilter(watched, event);
    }

private:
    // Raise the minimum (and the maximum, if it is below) to what the contents need; when they
    // need less again, fall back to what the panel had before, unless its owner set another
    // width since (the Table tab changes its panel's widths when it goes narrow).
    void update() {
        const int need = contentsWidthNeeded(area_);
        if (area_->minimumWidth() != setMin_) {
            ownMin_ = area_->minimumWidth();  // the owner's value (or the first one seen)
        }
        if (area_->maximumWidth() != setMax_) {
            ownMax_ = area_->maximumWidth();
        }
        setMin_ = std::max(ownMin_, need);
        setMax_ = std::max(ownMax_, setMin_);
        if (area_->minimumWidth() != setMin_) {
            area_->setMinimumWidth(setMin_);
        }
        if (area_->maximumWidth() != setMax_) {
            area_->setMaximumWidth(setMax_);
        }
    }

    // The contents are never lower than their layout needs at their width. Wrapped labels make
    // that height depend on the width; the scroll area sized its widget by a height computed for
    // another width at times (the side panel opened on the Random DP page at 1024 × 768,
    // session 33: the Data box's buttons, spin box and list squashed to a few pixels while its
    // wrapped description kept its lines). A minimum height at the current width makes the area
    // scroll instead.
    void keepHeightForWidth() {
        QWidget* w = area_->widget();
        QLayout* l = w->layout();
        if (!l || !l->hasHeightForWidth() || w->width() <= 0) {
            return;
        }
        // Only when the contents are taller than the view: a minimum as tall as the view itself
        // made the vertical scroll bar appear with nothing to scroll, and the contents stayed as
        // wide as the view without it, cut by the bar's width (the Strategy tab's controls beside
        // a CSV file's data panel, 371 px in a 357 px view in about one run in three, issue #21).
        const int need = l->totalHeightForWidth(w->width());
        const int view = area_->maximumViewportSize().height();
        const int minimum = need > view ? need : 0;
        if (w->minimumHeight() != minimum) {
            w->setMinimumHeight(minimum);
        }
    }

    QPointer<QScrollArea> area_;
    int ownMin_ = 0, ownMax_ = 0;
    int setMin_ = -1, setMax_ = -1;  // what this follower set last
};

}  // namespace

int contentsWidthNeeded(const QScrollArea* area) {
    const QWidget* w = area->widget();
    if (!w) {
        return 0;
    }
    const int bar =
        area->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, area->verticalScrollBar());
    const QMargins m = area->contentsMargins();
    return w->minimumSizeHint().width() + bar + m.left() + m.right();
}

void followContentsWidth(QScrollArea* area) {
    if (!area || !area->widget() ||
        area->findChild<QObject*>(QString::fromLatin1(kFollowerName), Qt::FindDirectChildrenOnly)) {
        return;
    }
    new ContentsWidthFollower(area);
}

}  // namespace dpx::ui
