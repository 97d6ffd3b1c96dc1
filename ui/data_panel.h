// The data panel: which dataset (a built-in example or a CSV file), how many rows for the
// examples that are generated at any size, which column, how it is binned, and the neighbouring
// relation; below, what was loaded (rows, bins, sensitivity, what the binning dropped).
#pragma once

#include <QWidget>

#include "ui/computations.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace dpx::ui {

class ExplorerDocument;

class DataPanel : public QWidget {
    Q_OBJECT
public:
    explicit DataPanel(ExplorerDocument* doc, QWidget* parent = nullptr);

    // What the last load produced (columns for the column box, the summary, or the error).
    void showDataset(const DatasetResult& r);
    QComboBox* exampleBox() const { return example_; }
    QLabel* summaryLabel() const { return summary_; }

Q_SIGNALS:
    void openCsvRequested();

private:
    void showState(const ExplorerState& s);
    void apply(ExplorerState s, const QString& what);

    ExplorerDocument* doc_;
    QComboBox* example_;
    QPushButton* openCsv_;
    QSpinBox* rows_;
    QComboBox* column_;
    QComboBox* binning_;
    QSpinBox* bins_;
    QLineEdit* rangeLo_;
    QLineEdit* rangeHi_;
    QComboBox* neighbouring_;
    QLabel* summary_;
    QLabel* message_;
};

}  // namespace dpx::ui
