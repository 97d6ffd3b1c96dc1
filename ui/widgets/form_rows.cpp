#include "form_rows.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <algorithm>
#include <stdexcept>

namespace dpx::ui {

QWidget* fieldLine(std::initializer_list<QWidget*> widgets, int stretchFirst) {
    auto* w = new QWidget;
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    bool first = true;
    for (QWidget* x : widgets) {
        l->addWidget(x, first ? stretchFirst : 0);
        first = false;
    }
    return w;
}

QLabel* FormRows::addRow(const QString& label, QWidget* field) {
    QLabel* l = nullptr;
    if (!label.isEmpty()) {
        l = new QLabel(label);
        l->setBuddy(field);
    }
    add({l, field, nullptr, false, true});
    return l;
}

void FormRows::addRow(QLabel* label, QWidget* field) {
    add({label, field, nullptr, false, true});
}

void FormRows::addRow(QWidget* field) {
    add({nullptr, field, nullptr, true, true});
}

void FormRows::addRow(const QString& label, QLayout* field) {
    addRow(label.isEmpty() ? nullptr : new QLabel(label), field);
}

void FormRows::addRow(QLabel* label, QLayout* field) {
    add({label, nullptr, field, false, true});
}

void FormRows::add(const Row& row) {
    rows_.push_back(row);
    const int at = form_->rowCount();
    if (row.layout != nullptr) {
        form_->insertRow(at, row.label, row.layout);
    } else if (row.spans) {
        form_->insertRow(at, row.field);
    } else {
        form_->insertRow(at, row.label, row.field);
    }
}

FormRows::Row& FormRows::rowOf(const QWidget* field) {
    const auto it = std::find_if(rows_.begin(), rows_.end(),
                                 [field](const Row& r) { return r.field == field; });
    if (field == nullptr || it == rows_.end()) {
        throw std::logic_error("FormRows: the widget is not a field of this form");
    }
    return *it;
}

const FormRows::Row& FormRows::rowOf(const QWidget* field) const {
    return const_cast<FormRows*>(this)->rowOf(field);
}

bool FormRows::isRowShown(const QWidget* field) const {
    return rowOf(field).shown;
}

void FormRows::setRowShown(QWidget* field, bool shown) {
    Row& row = rowOf(field);
    if (row.shown == shown) {
        return;
    }
    if (shown) {
        // Its place: after the shown rows that come before it.
        const auto before = std::count_if(rows_.begin(), rows_.end(),
                                          [&row](const Row& r) { return &r < &row && r.shown; });
        const int at = static_cast<int>(before);
        if (row.spans) {
            form_->insertRow(at, row.field);
        } else {
            form_->insertRow(at, row.label, row.field);
        }
        if (row.label != nullptr) {
            row.label->show();
        }
        row.field->show();
    } else {
        QFormLayout::TakeRowResult taken = form_->takeRow(row.field);
        // The layout items are ours now; deleting them leaves the widgets alone.
        delete taken.labelItem;
        delete taken.fieldItem;
        if (row.label != nullptr) {
            row.label->hide();
        }
        row.field->hide();
    }
    row.shown = shown;
}

}  // namespace dpx::ui
