// "What am I looking at" (issue #21): one plain line over a view saying what it shows, with a ▸
// that unfolds a short paragraph (what is drawn, how to read it, whose method it is).
#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QToolButton;

namespace dpx::ui {

class WhatLine : public QWidget {
    Q_OBJECT
public:
    explicit WhatLine(QWidget* parent = nullptr);

    // The line (plain text) and the paragraph shown when unfolded (rich text; none: no ▸).
    void setTexts(const QString& line, const QString& paragraph);
    QString line() const;
    QString paragraph() const;
    bool isExpanded() const { return expanded_; }
    void setExpanded(bool expanded);

protected:
    // A click anywhere on the line unfolds or folds the paragraph, as the ▸ does.
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QToolButton* toggle_ = nullptr;
    QLabel* line_ = nullptr;
    QLabel* paragraph_ = nullptr;
    bool expanded_ = false;
};

}  // namespace dpx::ui
