#include "ui/widgets/elided_label.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace dpx::ui {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {}

void ElidedLabel::setElidedMinimum(int pixels) {
    elidedMinimum_ = std::max(0, pixels);
    updateGeometry();
}

QSize ElidedLabel::minimumSizeHint() const {
    const QSize whole = QLabel::minimumSizeHint();
    return {std::min(whole.width(), elidedMinimum_), whole.height()};
}

bool ElidedLabel::isElided() const {
    return fontMetrics().horizontalAdvance(text()) > contentsRect().width();
}

void ElidedLabel::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setPen(palette().color(foregroundRole()));
    const QRect r = contentsRect();
    painter.drawText(r, Qt::AlignVCenter | Qt::AlignLeft,
                     fontMetrics().elidedText(text(), Qt::ElideRight, r.width()));
}

bool ElidedLabel::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip && (toolTip().isEmpty() || isElided())) {
        const QString tip =
            toolTip().isEmpty() ? text() : text() + QStringLiteral("\n\n") + toolTip();
        QToolTip::showText(static_cast<QHelpEvent*>(e)->globalPos(), tip, this);
        return true;
    }
    return QLabel::event(e);
}

}  // namespace dpx::ui
