// A one-line label that ends in "…" when it is narrower than its text (the status line and the
// ledger line of the status bar), so a long text never widens the window past a small screen
// (a long ledger line made the window 1 097 px wide at 1024 × 768). text() stays the whole
// text; the tooltip shows it when it is cut (with the label's own tooltip under it).
#pragma once

#include <QLabel>

namespace dpx::ui {

class ElidedLabel : public QLabel {
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    // The narrowest the label asks to be (its whole text when shorter); 120 px by default.
    void setElidedMinimum(int pixels);
    QSize minimumSizeHint() const override;
    // True when the text does not fit its width and is drawn with "…".
    bool isElided() const;

protected:
    void paintEvent(QPaintEvent* e) override;
    bool event(QEvent* e) override;

private:
    int elidedMinimum_ = 120;
};

}  // namespace dpx::ui
