// Form rows that come and go (a CSV file's options only for a CSV source, a person-id row only
// for files and databases, …) without QFormLayout::setRowVisible.
//
// Why not setRowVisible, nor hiding a row's widgets (Qt 6.4, Debian 12): a form that answers
// heightForWidth (rows that wrap, or any word-wrapped label in it) keeps, for a hidden row, the
// vertical slot the row had at its last layout; its height-for-width pass still writes the hidden
// row's zero size into that slot, which by then belongs to a visible row. A window opened on a
// session with a CSV source laid the row after the CSV options out 0 px high, and rows hidden
// and shown later emptied others the same way (issue #21; tst_form_rows shows it). Here a hidden
// row is taken out of the form and put back at its place when shown, so the form never holds a
// hidden row. Every row of the form must be added through its FormRows.
#pragma once

#include <QString>
#include <initializer_list>
#include <vector>

class QFormLayout;
class QLabel;
class QLayout;
class QWidget;

namespace dpx::ui {

// A form field of several widgets on one line (no margins), the first one taking
// `stretchFirst` of the room left: e.g. a value and its button.
QWidget* fieldLine(std::initializer_list<QWidget*> widgets, int stretchFirst = 0);

class FormRows {
public:
    // Rows are added to `form` (owned by its widget) in the order of the addRow calls.
    explicit FormRows(QFormLayout* form) : form_(form) {}

    // A labelled row; returns its label (null for an empty text: the field alone in its column,
    // as QFormLayout::addRow does).
    QLabel* addRow(const QString& label, QWidget* field);
    // A row with the caller's label (kept for its text, tool tip or enabled state).
    void addRow(QLabel* label, QWidget* field);
    // A row without a label: the field spans both columns.
    void addRow(QWidget* field);
    // A labelled row of several widgets laid out together; always shown.
    void addRow(const QString& label, QLayout* field);
    void addRow(QLabel* label, QLayout* field);

    // Shows or hides the row of `field` (a widget passed to addRow). Idempotent.
    void setRowShown(QWidget* field, bool shown);
    bool isRowShown(const QWidget* field) const;

private:
    struct Row {
        QLabel* label = nullptr;  // null: no label
        QWidget* field = nullptr;
        QLayout* layout = nullptr;  // instead of `field`
        bool spans = false;         // the field spans both columns
        bool shown = true;
    };
    void add(const Row& row);
    Row& rowOf(const QWidget* field);
    const Row& rowOf(const QWidget* field) const;

    QFormLayout* form_;
    std::vector<Row> rows_;
};

}  // namespace dpx::ui
