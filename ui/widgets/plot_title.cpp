#include "ui/widgets/plot_title.h"

#include <QFontMetrics>
#include <algorithm>
#include <climits>

namespace dpx::ui {

PlotTitle::PlotTitle(QCustomPlot* plot, const QString& text, const QFont& font)
    : QCPTextElement(plot, text, font) {
    setTextFlags(Qt::AlignCenter | Qt::TextWordWrap);
}

PlotTitle::PlotTitle(QCustomPlot* plot, const QString& text) : QCPTextElement(plot, text) {
    setTextFlags(Qt::AlignCenter | Qt::TextWordWrap);
}

int PlotTitle::wrapWidth() const {
    const QMargins m = margins();
    int width = mParentPlot ? mParentPlot->viewport().width() : 0;
    const auto* grid = qobject_cast<const QCPLayoutGrid*>(layout());
    const bool wholeRow = grid && grid->columnCount() == 1;
    if (!wholeRow && outerRect().width() > 0) {
        width = outerRect().width();
    }
    return std::max(width - m.left() - m.right(), 40);
}

QSize PlotTitle::wrappedSize() const {
    if (mText.isEmpty()) {
        return {0, 0};
    }
    const QFontMetrics metrics(mainFont());
    return metrics.boundingRect(QRect(0, 0, wrapWidth(), INT_MAX / 4), mTextFlags, mText).size();
}

QSize PlotTitle::minimumOuterSizeHint() const {
    const QMargins m = margins();
    const QSize text = wrappedSize();
    // Not wider than the plot: a word longer than the width is the one thing that may be cut.
    return {std::min(text.width(), wrapWidth()) + m.left() + m.right(),
            text.height() + m.top() + m.bottom()};
}

QSize PlotTitle::maximumOuterSizeHint() const {
    const QMargins m = margins();
    return {QWIDGETSIZE_MAX, wrappedSize().height() + m.top() + m.bottom()};
}

void PlotTitle::draw(QCPPainter* painter) {
    painter->setFont(mainFont());
    painter->setPen(QPen(mainTextColor()));
    painter->drawText(mRect, mTextFlags, mText, &mTextBoundingRect);
}

bool titleFits(const QCPTextElement* title) {
    if (!title->visible() || title->text().isEmpty() || title->rect().isEmpty()) {
        return true;
    }
    const QRect r = title->rect();
    const QFontMetrics metrics(title->font());
    const QRect need = metrics.boundingRect(QRect(0, 0, r.width(), INT_MAX / 4), title->textFlags(),
                                            title->text());
    return need.width() <= r.width() + 2 && need.height() <= r.height() + 2;
}

}  // namespace dpx::ui
