#include "ui/widgets/log_slider_field.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QSlider>
#include <cmath>

namespace dpx::ui {

namespace {
constexpr int kSteps = 1000;
}

LogSliderField::LogSliderField(double min, double max, QWidget* parent)
    : QWidget(parent), min_(min), max_(max) {
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setRange(0, kSteps);
    slider_->setMinimumWidth(120);
    edit_ = new QLineEdit;
    edit_->setMaximumWidth(90);
    edit_->setAlignment(Qt::AlignRight);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(slider_, 1);
    layout->addWidget(edit_);
    connect(slider_, &QSlider::valueChanged, this, [this](int pos) {
        // Round to 3 significant digits so that slider values read well (0.0123, 1.57, 12.3).
        double v = fromSlider(pos);
        const double scale = std::pow(10.0, std::floor(std::log10(v)) - 2);
        v = std::clamp(std::round(v / scale) * scale, min_, max_);
        value_ = v;
        edit_->setText(formatParameter(v));
        Q_EMIT valueEdited(v, slider_->isSliderDown());
    });
    connect(slider_, &QSlider::sliderReleased, this, [this] { Q_EMIT valueEdited(value_, false); });
    connect(edit_, &QLineEdit::editingFinished, this, [this] {
        bool ok = false;
        const double v = edit_->text().trimmed().toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            Q_EMIT textRejected(edit_->text());
            return;
        }
        if (v == value_ && error_.isEmpty()) {
            return;
        }
        Q_EMIT valueEdited(v, false);
    });
}

int LogSliderField::toSlider(double v) const {
    if (!(v > 0)) {
        return 0;
    }
    const double t = (std::log(v) - std::log(min_)) / (std::log(max_) - std::log(min_));
    return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSteps));
}

double LogSliderField::fromSlider(int pos) const {
    const double t = static_cast<double>(pos) / kSteps;
    return std::exp(std::log(min_) + t * (std::log(max_) - std::log(min_)));
}

void LogSliderField::setValue(double v) {
    value_ = v;
    const QSignalBlocker block(slider_);
    slider_->setValue(toSlider(v));
    if (!edit_->hasFocus() || edit_->text().toDouble() != v) {
        edit_->setText(formatParameter(v));
    }
    bool ok = false;
    if (!error_.isEmpty() && edit_->text().trimmed().toDouble(&ok) == v && ok) {
        setError({});
    }
}

void LogSliderField::setError(const QString& message) {
    error_ = message;
    edit_->setProperty("invalid", !message.isEmpty());
    edit_->setStyleSheet(
        message.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 2px solid #d62728; }"));
    edit_->setToolTip(message);
}

}  // namespace dpx::ui
