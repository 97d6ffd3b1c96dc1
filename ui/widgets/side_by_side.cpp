#include "ui/widgets/side_by_side.h"

#include <QAbstractScrollArea>
#include <QBoxLayout>
#include <QEvent>
#include <QPointer>
#include <QScrollArea>
#include <QTimer>
#include <QWidget>
#include <algorithm>

namespace dpx::ui {

namespace {

// The page's (or tab's) two parts side by side or stacked (see the header): the Sparse,
// Selection and Vector means pages, then the Trade-off and Strategy tabs beside a CSV file's data
// panel, had to be scrolled sideways at 1024 × 768 (issue #21). The room is the nearest enclosing
// scroll area's (the page itself is never narrower than its layout's minimum); both parts' minimum
// widths do not depend on the direction, so the choice does not flip back and forth.
class SideBySideOrStacked : public QObject {
public:
    SideBySideOrStacked(QWidget* page, QBoxLayout* layout)
        : QObject(page), owner_(page), page_(page), layout_(layout) {
        page->installEventFilter(this);
        // Once the window is built (the tab's contents are moved into their scroll area): a page
        // not shown yet gets no event of its own, yet its minimum counts in its tab's.
        QTimer::singleShot(0, this, [this] {
            attach();
            update();
        });
    }

    bool eventFilter(QObject* watched, QEvent* event) override {
        const auto t = event->type();
        if (t == QEvent::Hide && watched == page_) {
            // Later, not now: a page is hidden while it is destroyed, after its layout is gone;
            // the timer dies with this object (a child of the page).
            QTimer::singleShot(0, this, [this] { update(); });
        } else if (t == QEvent::Resize || t == QEvent::Show || t == QEvent::LayoutRequest ||
                   t == QEvent::ParentChange) {
            if (watched == page_ || watched == owner_) {
                attach();
            }
            update();
        }
        return QObject::eventFilter(watched, event);
    }

private:
    void attach() {
        // The window moves a tab's layout into a widget inside the tab's scroll area
        // (makeScrollable): the widget the layout lays out is the one to watch and size, not the
        // tab (sizing the tab, outside the area, grew it without end).
        if (QWidget* host = layout_ ? layout_->parentWidget() : nullptr; host && host != page_) {
            if (page_) {
                page_->removeEventFilter(this);
            }
            page_ = host;
            host->installEventFilter(this);
        }
        if (!page_) {
            return;
        }
        for (QWidget* p = page_->parentWidget(); p; p = p->parentWidget()) {
            if (auto* area = qobject_cast<QAbstractScrollArea*>(p);
                area && area->viewport() && area->viewport()->isAncestorOf(page_)) {
                if (area != area_) {
                    area_ = area;
                    area->installEventFilter(this);
                }
                return;
            }
        }
    }

    void update() {
        if (!page_ || !layout_) {
            return;
        }
        int room = page_->width();
        if (area_ && area_->viewport()->isAncestorOf(page_)) {
            // The area's width without scroll bars, less the margins around the page in it.
            const int inset = page_->mapTo(area_->viewport(), QPoint(0, 0)).x();
            room = area_->maximumViewportSize().width() - 2 * std::max(inset, 0);
        }
        const QMargins m = layout_->contentsMargins();
        int need = m.left() + m.right();
        for (int i = 0; i < layout_->count(); ++i) {
            need += layout_->itemAt(i)->minimumSize().width() + (i > 0 ? layout_->spacing() : 0);
        }
        const auto direction = room < need ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight;
        if (layout_->direction() != direction) {
            layout_->setDirection(direction);
        }
        // Under the plot the side panel shows its controls whole (the tab scrolls down), not in a
        // strip of its own that scrolls.
        QLayoutItem* last = layout_->count() > 0 ? layout_->itemAt(layout_->count() - 1) : nullptr;
        if (auto* side = last ? qobject_cast<QScrollArea*>(last->widget()) : nullptr;
            side && side->widget()) {
            const QWidget* controls = side->widget();
            int contentsHeight =
                std::max(controls->sizeHint().height(), controls->minimumSizeHint().height());
            if (controls->hasHeightForWidth()) {  // wrapped text: its height at this width
                contentsHeight =
                    std::max(contentsHeight, controls->heightForWidth(side->viewport()->width()));
            }
            // Only while the page is shown: a hidden page of a stack (More mechanisms) would
            // otherwise make every page of its tab as tall as its own stacked height.
            const bool stacked = direction == QBoxLayout::TopToBottom && page_->isVisible();
            const int height = stacked ? contentsHeight + 2 * side->frameWidth() : 0;
            if (side->minimumHeight() != height) {
                side->setMinimumHeight(height);
            }
            // ... and the plot above keeps the height of the view (not squeezed to its minimum
            // because the page, taller than the view, gets only its minimum height).
            // Outside a scroll area (a view shown on its own) nothing scrolls: the page's own
            // height would grow with every minimum set from it.
            const int viewHeight = area_ ? area_->maximumViewportSize().height() : 0;
            const int pageHeight = stacked && area_ ? viewHeight + height + layout_->spacing() : 0;
            if (page_->minimumHeight() != pageHeight) {
                page_->setMinimumHeight(pageHeight);
            }
        }
    }

    QPointer<QWidget> owner_;  // the widget given; it keeps the layout unless the window moves it
    QPointer<QWidget> page_;   // the widget the layout lays out
    QPointer<QBoxLayout> layout_;
    QPointer<QAbstractScrollArea> area_;
};

}  // namespace

void sideBySideOrStacked(QWidget* owner, QBoxLayout* layout) {
    new SideBySideOrStacked(owner, layout);
}

}  // namespace dpx::ui
