// Form rows that come and go (a CSV file's options only for a CSV source, a person-id row only
// for files and databases, …) without QFormLayout::setRowVisible.
//
// Why not setRowVisible (Qt 6.4, Debian 12): a form whose rows wrap (WrapLongRows, so the form
// answers heightForWidth) keeps, for a hidden row, the vertical slot the row had at the last
// layout; its height-for-width pass still writes that hidden row's zero size into the slot, which
// by then belongs to a visible row. A window opened on a session with a CSV source laid the CSV
// options out 0 px high (the hidden "Rows" row had their slot from the example shown at start),
// and hiding/showing rows later emptied other rows the same way (issue #21). Here a hidden row is
// taken out of the form and put back at its place when shown, so the form never holds a hidden
// row.
#pragma once

#include <QString>
#include <vector>

class QFormLayout;
class QLabel;
class QWidget;

namespace dpx::ui {

class FormRows {
public:
    // Rows are added to `form` (owned by its widget) in the order of the addRow calls.
    explicit FormRows(QFormLayout* form) : form_(form) {}

    // A labelled row; returns its label.
    QLabel* addRow(const QString& label, QWidget* field);
    // A row without a label: the field spans both columns.
    void addRow(QWidget* field);

    // Shows or hides the row of `field` (a field passed to addRow). Idempotent.
    void setRowShown(QWidget* field, bool shown);
    bool isRowShown(const QWidget* field) const;

private:
    struct Row {
        QLabel* label = nullptr;  // null: the field spans the row
        QWidget* field = nullptr;
        bool shown = true;
    };
    Row& rowOf(const QWidget* field);
    const Row& rowOf(const QWidget* field) const;

    QFormLayout* form_;
    std::vector<Row> rows_;
};

}  // namespace dpx::ui
