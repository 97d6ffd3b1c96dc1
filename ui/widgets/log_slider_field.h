// A number on a logarithmic scale: a slider spanning [min, max] in log10 steps next to a text
// field for typing exact values. Typed values are parsed completely (no silent clamping or
// truncation); the owner decides whether a value is acceptable and shows the reason with
// setError(). Used for ε (0.01 … 20) and δ (1e-12 … 0.1).
#pragma once

#include <QWidget>

#include "ui/widgets/number_format.h"  // formatParameter, the value shown in the field

class QLabel;
class QLineEdit;
class QSlider;

namespace dpx::ui {

class LogSliderField : public QWidget {
    Q_OBJECT
public:
    LogSliderField(double min, double max, QWidget* parent = nullptr);

    // Shows `v` (no signal). The slider goes to the nearest step, the field shows v exactly.
    // When the field's text is replaced by v, a rejection shown on it is cleared: the field then
    // shows an accepted value, which the message no longer describes.
    void setValue(double v);
    double value() const { return value_; }
    // Non-empty: the field is marked invalid and the message is shown as its tooltip.
    void setError(const QString& message);
    QString error() const { return error_; }
    QLineEdit* lineEdit() const { return edit_; }
    QSlider* slider() const { return slider_; }

Q_SIGNALS:
    // The user moved the slider (dragging true while the handle is held) or typed a value
    // (parsed: ok false with the text if it is not a number). Typing the value already shown
    // emits too while the field is marked invalid, so that the owner can clear the mark (typing
    // 25, refused, then 1 again must not leave "got 25" on the field).
    void valueEdited(double value, bool dragging);
    void textRejected(const QString& text);

private:
    int toSlider(double v) const;
    double fromSlider(int pos) const;

    double min_, max_;
    double value_ = 0;
    QString error_;
    QSlider* slider_;
    QLineEdit* edit_;
};

}  // namespace dpx::ui
