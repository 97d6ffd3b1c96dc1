#include "ui/widgets/epsilon_override.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QSlider>
#include <QVBoxLayout>
#include <cmath>

#include "ui/widgets/log_slider_field.h"

namespace dpx::ui {

EpsilonOverride::EpsilonOverride(QWidget* parent) : QWidget(parent) {
    follow_ = new QCheckBox(tr("Use the window's ε"));
    follow_->setObjectName(QStringLiteral("followWindowEpsilon"));
    follow_->setChecked(true);
    field_ = new LogSliderField(0.01, 20);
    field_->setObjectName(QStringLiteral("pageEpsilon"));
    field_->setValue(window_);
    field_->setEnabled(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(follow_);
    layout->addWidget(field_);
    connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
        field_->setEnabled(!on);
        if (!on) {
            own_ = window_;  // start from the window's value
            field_->setValue(own_);
        } else {
            field_->setValue(window_);
        }
        field_->setError({});
        Q_EMIT changed();
    });
    connect(field_, &LogSliderField::valueEdited, this, [this](double v, bool dragging) {
        // ε must be a finite positive number; the slider stays in [0.01, 20] but typed values may
        // be any ε > 0 (validateEpsilon in core decides the rest).
        if (!(v > 0) || !std::isfinite(v)) {
            field_->setError(tr("ε must be a finite number > 0"));
            return;
        }
        field_->setError({});
        if (dragging || v == own_) {
            own_ = v;
            return;  // recompute when the handle is released
        }
        own_ = v;
        field_->setValue(v);
        Q_EMIT changed();
    });
    connect(field_, &LogSliderField::textRejected, this,
            [this](const QString& t) { field_->setError(tr("'%1' is not a number").arg(t)); });
    connect(field_->slider(), &QAbstractSlider::sliderReleased, this, [this] { Q_EMIT changed(); });
}

void EpsilonOverride::setWindowEpsilon(double epsilon) {
    window_ = epsilon;
    if (follow_->isChecked()) {
        field_->setValue(epsilon);
    }
    follow_->setText(tr("Use the window's ε (%1)").arg(QString::number(epsilon, 'g', 6)));
}

void EpsilonOverride::setOverride(double epsilon) {
    const QSignalBlocker block(follow_);
    follow_->setChecked(false);
    field_->setEnabled(true);
    own_ = epsilon;
    field_->setValue(epsilon);
    field_->setError({});
}

void EpsilonOverride::setFollowWindow(bool follow) {
    const QSignalBlocker block(follow_);
    follow_->setChecked(follow);
    field_->setEnabled(!follow);
    field_->setValue(follow ? window_ : own_);
}

bool EpsilonOverride::followsWindow() const {
    return follow_->isChecked();
}

double EpsilonOverride::epsilon() const {
    return follow_->isChecked() ? window_ : own_;
}

QString EpsilonOverride::sourceText() const {
    return follow_->isChecked() ? tr("the window's ε") : tr("this page's ε");
}

}  // namespace dpx::ui
