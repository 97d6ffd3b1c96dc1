#include "ui/widgets/what_line.h"

#include <QGridLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QToolButton>

namespace dpx::ui {

WhatLine::WhatLine(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("whatLine"));
    toggle_ = new QToolButton;
    toggle_->setObjectName(QStringLiteral("whatToggle"));
    toggle_->setAutoRaise(true);
    toggle_->setArrowType(Qt::RightArrow);
    toggle_->setToolTip(tr("Show or hide what this view shows and how to read it"));
    line_ = new QLabel;
    line_->setObjectName(QStringLiteral("whatText"));
    // The line wraps rather than being cut on a narrow window.
    line_->setWordWrap(true);
    line_->setTextFormat(Qt::PlainText);
    line_->setCursor(Qt::PointingHandCursor);
    paragraph_ = new QLabel;
    paragraph_->setObjectName(QStringLiteral("whatParagraph"));
    paragraph_->setWordWrap(true);
    paragraph_->setTextFormat(Qt::RichText);
    paragraph_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    paragraph_->hide();
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setHorizontalSpacing(4);
    layout->setVerticalSpacing(2);
    layout->addWidget(toggle_, 0, 0, Qt::AlignTop);
    layout->addWidget(line_, 0, 1);
    layout->addWidget(paragraph_, 1, 1);
    layout->setColumnStretch(1, 1);
    connect(toggle_, &QToolButton::clicked, this, [this] { setExpanded(!expanded_); });
}

void WhatLine::setTexts(const QString& line, const QString& paragraph) {
    line_->setText(line);
    paragraph_->setText(paragraph);
    toggle_->setVisible(!paragraph.isEmpty());
    setExpanded(expanded_ && !paragraph.isEmpty());
}

QString WhatLine::line() const {
    return line_->text();
}

QString WhatLine::paragraph() const {
    return paragraph_->text();
}

void WhatLine::mousePressEvent(QMouseEvent* event) {
    event->setAccepted(event->button() == Qt::LeftButton);  // the release comes here then
}

void WhatLine::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && !paragraph_->text().isEmpty() &&
        !paragraph_->geometry().contains(event->position().toPoint())) {
        setExpanded(!expanded_);
        event->accept();
        return;
    }
    QWidget::mouseReleaseEvent(event);
}

void WhatLine::setExpanded(bool expanded) {
    expanded_ = expanded;
    toggle_->setArrowType(expanded ? Qt::DownArrow : Qt::RightArrow);
    paragraph_->setVisible(expanded);
}

}  // namespace dpx::ui
