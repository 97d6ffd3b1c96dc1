#include "ui/widgets/page.h"

#include "ui/widgets/plot_refresh.h"

#include <QAbstractScrollArea>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QTextDocument>
#include <QTimer>
#include <algorithm>

#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"
#include "ui/widgets/side_panel_width.h"

namespace dpx::ui {

QString Page::statusText() const {
    return status_ ? status_->text() : QString();
}

QLabel* Page::makeStatusLine(const QString& objectName) {
    status_ = new QLabel;
    if (!objectName.isEmpty()) {
        status_->setObjectName(objectName);
    }
    status_->setWordWrap(true);
    return status_;
}

QScrollArea* Page::scrollingSidePanel(QWidget* side, int minWidth, int maxWidth) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    if (minWidth == maxWidth) {
        scroll->setFixedWidth(minWidth);
    } else {
        scroll->setMinimumWidth(minWidth);
        scroll->setMaximumWidth(maxWidth);
    }
    followContentsWidth(scroll);  // never narrower than the controls need (zoom, fonts)
    return scroll;
}

namespace {

// A page's plot and side panel side by side, or the panel under the plot when the room the page
// is shown in (the window's tab, which scrolls) is narrower than both need side by side: on a
// 1024 × 768 screen with the data panel open, or at a large zoom, the Sparse, Selection and
// Vector means pages had to be scrolled sideways (issue #21); stacked, the tab scrolls down. The
// room is the nearest enclosing scroll area's (the page itself is never narrower than its
// layout's minimum); both parts' minimum widths do not depend on the direction, so the choice
// does not flip back and forth.
class SideBySideOrStacked : public QObject {
public:
    SideBySideOrStacked(QWidget* page, QBoxLayout* layout)
        : QObject(page), page_(page), layout_(layout) {
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
            if (watched == page_) {
                attach();
            }
            update();
        }
        return QObject::eventFilter(watched, event);
    }

private:
    void attach() {
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
            const int viewHeight = area_ ? area_->maximumViewportSize().height() : page_->height();
            const int pageHeight = stacked ? viewHeight + height + layout_->spacing() : 0;
            if (page_->minimumHeight() != pageHeight) {
                page_->setMinimumHeight(pageHeight);
            }
        }
    }

    QWidget* page_;
    QBoxLayout* layout_;
    QPointer<QAbstractScrollArea> area_;
};

}  // namespace

void Page::placeBesideSidePanel(QWidget* main, QWidget* side, bool flush) {
    auto* layout = new QHBoxLayout(this);
    if (flush) {
        layout->setContentsMargins(0, 0, 0, 0);
    }
    layout->addWidget(main, 1);
    layout->addWidget(side);
    new SideBySideOrStacked(this, layout);
}

void Page::placeBesideSidePanel(QLayout* main, QWidget* side, bool flush) {
    auto* layout = new QHBoxLayout(this);
    if (flush) {
        layout->setContentsMargins(0, 0, 0, 0);
    }
    layout->addLayout(main, 1);
    layout->addWidget(side);
    new SideBySideOrStacked(this, layout);
}

QFont Page::titleFont() const {
    return QFont(font().family(), font().pointSize() + 1, QFont::Bold);
}

QCPTextElement* Page::addPlotTitle(QCustomPlot* plot, const QString& text) {
    plot->plotLayout()->insertRow(0);
    auto* title = new PlotTitle(plot, text, titleFont());
    plot->plotLayout()->addElement(0, 0, title);
    addStyledPlot(plot);
    titles_.push_back(title);
    return title;
}

void Page::addStyledPlot(QCustomPlot* plot) {
    if (std::find(plots_.begin(), plots_.end(), plot) == plots_.end()) {
        plots_.push_back(plot);
    }
}

void Page::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !plots_.empty()) {
        for (QCustomPlot* plot : plots_) {
            applyPlotPalette(plot, palette());
        }
        for (QCPTextElement* title : titles_) {
            title->setTextColor(palette().color(QPalette::WindowText));
        }
        restyle();
    }
}

void Page::setRunButtons(QPushButton* run, QPushButton* cancel) {
    run_ = run;
    cancel_ = cancel;
}

void Page::setRunning(bool running) {
    running_ = running;
    if (run_) {
        run_->setEnabled(!running);
    }
    if (cancel_) {
        cancel_->setEnabled(running);
    }
}

void Page::endWithMessage(const QString& text, const std::function<void()>& forgetResult) {
    setRunning(false);
    hasResult_ = false;
    drawn_ = true;
    setStatus(text, true);
    forgetResult();
    Q_EMIT finished();
}

void Page::finishCurvePlot(QCustomPlot* plot, const QString& dashedKey, PlotExtent fitted,
                           PlotExtent whenEmpty, const QString& emptyHint) {
    if (!dashedKey.isEmpty()) {
        QCPGraph* key = plot->addGraph();
        key->setPen(QPen(palette().color(QPalette::WindowText), 1.2, Qt::DashLine));
        key->setName(dashedKey);
    }
    if (fitted.hi > 0) {
        plot->yAxis->setRange(fitted.lo / 1.6, fitted.hi * 1.6);
        plot->xAxis->setRange(fitted.xlo / 1.3, fitted.xhi * 1.3);
    } else {
        plot->yAxis->setRange(whenEmpty.lo, whenEmpty.hi);
        plot->xAxis->setRange(whenEmpty.xlo, whenEmpty.xhi);
        if (!emptyHint.isEmpty()) {
            setStatus(emptyHint);
        }
    }
    plot->legend->setVisible(plot->legend->itemCount() > 0);
    replotWhenVisible(plot);
}

void Page::setStatus(const QString& text, bool error) {
    setMessageText(status_, text, error);
}

void Page::setMessageText(QLabel* label, const QString& text, bool error) {
    label->setStyleSheet(error ? QStringLiteral("color: #d62728; font-weight: bold;") : QString());
    if (text.isEmpty()) {
        label->clear();
    } else {
        label->setText(text);
    }
}

QString Page::plainTextOf(const QLabel* label) {
    QTextDocument doc;
    doc.setHtml(label->text());
    return doc.toPlainText();
}

}  // namespace dpx::ui
