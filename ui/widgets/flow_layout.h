// A layout that places its items in a row and wraps onto the next line when the width runs out
// (the Mechanism matrix tab's badges). Items keep their size hints; `gap` pixels between items and
// between lines.
#pragma once

#include <QLayout>
#include <QList>

namespace dpx::ui {

class FlowLayout : public QLayout {
public:
    FlowLayout(QWidget* parent, int gap);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override { items_.append(item); }
    int count() const override { return static_cast<int>(items_.size()); }
    QLayoutItem* itemAt(int index) const override { return items_.value(index); }
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return doLayout(QRect(0, 0, width, 0), true); }
    void setGeometry(const QRect& rect) override;
    QSize sizeHint() const override { return minimumSize(); }
    QSize minimumSize() const override;

private:
    // Places the items in `rect` (or only measures, testOnly); returns the height used.
    int doLayout(const QRect& rect, bool testOnly) const;

    QList<QLayoutItem*> items_;
    int gap_;
};

}  // namespace dpx::ui
