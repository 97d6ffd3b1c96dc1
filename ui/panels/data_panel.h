// The data panel: which source (a built-in example, a CSV/TSV file with its import options, a
// SQLite file or a PostgreSQL server with their table), which columns — the attributes of the
// table, one or more, each binned its own way; the column and binning controls edit the attribute
// selected in the list (automatic, equal-width, whole numbers, categories, user edges) — the
// contribution cap per person and the neighbouring relation; below, what was loaded (rows,
// attributes, cells, occupied cells, sensitivity, what the binning and the reader did not count,
// and whether the bins came from the data).
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "ui/model/computations.h"
#include "ui/widgets/form_rows.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
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
    QLabel* messageLabel() const { return message_; }
    QLabel* dataRangeLabel() const { return dataRange_; }
    QComboBox* tableBox() const { return table_; }
    QComboBox* columnBox() const { return column_; }
    QComboBox* idColumnBox() const { return idColumn_; }
    QSpinBox* capBox() const { return cap_; }
    QComboBox* neighbouringBox() const { return neighbouring_; }
    QComboBox* binningBox() const { return binning_; }
    QSpinBox* binsBox() const { return bins_; }
    QLineEdit* rangeLowEdit() const { return rangeLo_; }
    QLineEdit* rangeHighEdit() const { return rangeHi_; }
    QLineEdit* edgesEdit() const { return edges_; }
    QListWidget* attributeList() const { return attributes_; }
    QPushButton* addAttributeButton() const { return addAttribute_; }
    QPushButton* removeAttributeButton() const { return removeAttribute_; }
    // The attribute the column and binning controls edit (0 … attributeCount − 1).
    std::size_t selectedAttribute() const;
    void selectAttribute(std::size_t a);
    // The column the last load binned, when it was loaded from the document's current source
    // and table ("" otherwise): the default column's name while the document names none.
    QString columnInForce() const;

Q_SIGNALS:
    void openCsvRequested();
    void openSqliteRequested();
    void openPostgresRequested();
    void reloadRequested();

private:
    void showState(const ExplorerState& s);
    void apply(ExplorerState s, const QString& what);
    void showError(const QString& text);
    // The document's state for a binning edit: the column named even when it is the default one,
    // so that the binning is remembered under its name.
    ExplorerState binningEditState() const;
    // The binning of the last load for the selected attribute, if it was loaded for the binning
    // `s` asks for.
    const Binning* binningInForce(const ExplorerState& s) const;
    // Edges that reproduce the binning in force (the start of "Bins with my edges").
    std::vector<double> edgesInForce(const ExplorerState& s) const;
    void showAttributes(const ExplorerState& s);

    ExplorerDocument* doc_;
    QFormLayout* form_;
    std::unique_ptr<FormRows> formRows_;  // shows and hides form_'s rows (see form_rows.h)
    QComboBox* example_;
    QPushButton* openCsv_;
    QPushButton* openSqlite_;
    QPushButton* openPg_;
    QPushButton* reload_;
    QWidget* csvRow_;
    QComboBox* delimiter_;
    QCheckBox* header_;
    QComboBox* badRows_;
    QComboBox* sqlBadValues_;  // the same policy for SQL sources
    QWidget* tableRow_;
    QComboBox* table_;
    QSpinBox* rows_;
    QListWidget* attributes_;
    QPushButton* addAttribute_;
    QPushButton* removeAttribute_;
    std::size_t selected_ = 0;
    QComboBox* column_;
    QComboBox* type_;
    QComboBox* binning_;
    QSpinBox* bins_;
    QWidget* rangeRow_;
    QLineEdit* rangeLo_;
    QLineEdit* rangeHi_;
    QCheckBox* closed_;
    QLineEdit* edges_;
    QWidget* categoriesRow_;
    QLineEdit* categories_;
    QComboBox* unknown_;
    QWidget* capRow_;
    QComboBox* idColumn_;
    QSpinBox* cap_;
    QComboBox* neighbouring_;
    QLabel* dataRange_;
    QLabel* summary_;
    QLabel* message_;
    QStringList typesOfColumns_;  // detected types of the loaded columns (CSV)
    // The last load: the state it was shown for, the column it binned, its bins and histogram
    // edges; an edit error shown in message_ (a rejected range or edge list) and the load error.
    // One entry per attribute of the load.
    ExplorerState loadedFor_;
    QStringList loadedColumns_;
    std::vector<Binning> loadedBinnings_;
    std::vector<std::vector<double>> loadedEdges_;
    std::vector<std::size_t> loadedBins_;
    bool editError_ = false;
    QString loadError_;
};

}  // namespace dpx::ui
