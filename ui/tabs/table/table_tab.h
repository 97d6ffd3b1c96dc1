// The Table tab (issue #19): a table of several attributes and one release of it. For two chosen
// attributes (the others summed: a marginal) the true, noisy, estimated and error heatmaps side by
// side — the first three on one colour scale (linear or log), the error on its own diverging
// scale; for one attribute a bar view. Dragging a rectangle (a range in 1-D) shows that box's true
// answer, noisy answer, estimate, exact expected error and interval (core/table/query.h) and the
// same box in the syntax `dpx` reads. For more than two attributes a list of every 1- and 2-way
// marginal with its L1 error and that error's exact expected value chooses the pair drawn.
//
// The window hands the tab its inputs (setInputs); without them the tab shows what to do.
// Marginals of big tables are summed on a worker thread; drawing stays on the GUI thread.
#pragma once

#include <QFutureWatcher>
#include <QPoint>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "ui/tabs/table/table_data.h"

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QCPAxisRect;
class QCPBars;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPItemRect;
class QCPTextElement;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableWidget;

namespace dpx::ui {

// What the readout shows for the selected box.
struct TableBoxReadout {
    TableQuery query;                   // the box over the whole table
    std::string dpxBox;                 // the same in dpx's box syntax (parseBoxQuery)
    std::int64_t truth = 0;             // true answer
    double noisy = 0;                   // noisy answer
    double estimate = 0;                // Σ of the estimate over the box
    CellCount cells = 0;                // cells of the table covered
    std::optional<QueryReadout> exact;  // expected error and interval (with a cell noise law)
};

class TableTab : public QWidget {
    Q_OBJECT
public:
    enum class Layer { Truth = 0, Noisy = 1, Estimate = 2, Error = 3 };

    explicit TableTab(QWidget* parent = nullptr);
    ~TableTab() override;

    // New inputs (a new table, or a new release of the same table: then the chosen attributes,
    // the scale and the selection stay). Invalid inputs show their message instead of the view.
    void setInputs(const TableViewInputs& inputs);
    void setInputs(TableViewInputs&& inputs);
    // Back to the empty state (no table chosen).
    void clearInputs();
    bool hasInputs() const { return inputs_ != nullptr; }
    // The text on show instead of the view (empty state or a message), empty when the view shows.
    QString messageText() const;

    // The attributes drawn: rows and columns (2-D), or the one attribute (k = 1: both the same).
    void setPair(std::size_t rows, std::size_t columns);
    std::size_t rowAttribute() const { return rows_; }
    std::size_t columnAttribute() const { return columns_; }
    void setLogScale(bool on);
    bool logScale() const { return log_; }
    // Interval level: 0.9, 0.95 or 0.99.
    void setLevel(double level);
    double level() const { return level_; }

    // Selects a box of bins (rows × columns of the 2-D view) or a range of the 1-D view, as a
    // drag does, and updates the readout.
    void selectBox(BinRange rows, BinRange columns);
    void selectRange(BinRange bins);
    void clearSelection();
    // The readout of the selected box, once computed: the answers and exact errors are computed on
    // a worker (readoutBusy() meanwhile; readoutReady() when shown).
    const std::optional<TableBoxReadout>& readout() const { return readout_; }
    bool readoutBusy() const { return readoutPending_; }
    QString readoutText() const;  // the readout as shown, without markup

    // The marginal drawn (the three layers), the marginals listed (k > 2).
    const std::optional<MarginalLayers>& drawnMarginal() const { return layers_; }
    const std::vector<MarginalError>& marginalList() const { return errors_; }
    // The value of a heatmap cell as drawn: the count (linear scale), its log10 (log scale; NaN
    // for values ≤ 0), the error estimate − true on the error map.
    double drawnCell(Layer layer, std::uint64_t row, std::uint64_t column) const;
    // The tooltip of a cell of the 2-D view.
    QString cellToolTip(std::uint64_t row, std::uint64_t column) const;
    // The colour scale ranges (counts; error).
    std::pair<double, double> countRange() const;
    std::pair<double, double> errorRange() const;
    // The plot on show (2-D heatmaps or 1-D bars), nullptr on the message page.
    QCustomPlot* currentPlot() const;
    QCustomPlot* heatmapPlot() const { return heat_; }
    QCustomPlot* barPlot() const { return bars_; }
    QTableWidget* marginalsTable() const { return marginals_; }
    // Waiting for marginals summed, or a readout computed, off the GUI thread.
    bool busy() const { return pending_ || readoutPending_; }
    // The drawn marginal as CSV (labels, true, noisy, estimate, error), as exported.
    QString csvText() const;

Q_SIGNALS:
    // The view has been drawn for the current inputs (again when a readout arrives).
    void drawn();
    // The selected box's readout is shown.
    void readoutReady();
    // The user chose another interval level (issue #22: the window saves it in the session).
    void levelChanged(double level);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Computed {
        std::shared_ptr<const TableViewInputs> inputs;
        std::size_t rows = 0, columns = 0;
        Expected<MarginalLayers> layers = Error{"not computed"};
        std::vector<MarginalError> errors;
        bool withList = false;  // errors computed (else the listed ones stay)
        quint64 generation = 0;
    };
    struct ReadoutJob {
        quint64 generation = 0;
        TableBoxReadout readout;
        std::string error;
    };
    void showReadout(ReadoutJob job);
    static Computed compute(std::shared_ptr<const TableViewInputs> inputs, std::size_t rows,
                            std::size_t columns, bool withList);

    void buildHeatmaps();
    void buildBars();
    void adopt(std::shared_ptr<const TableViewInputs> inputs);
    void recompute(bool withList);
    void apply(Computed c);
    void showMessage(const QString& text);
    void fillHeatmaps();
    void fillBars();
    void fillMarginalsTable();
    void updateAxisTicks();
    void updateSelectionItems();
    void updateReadout();
    void updateHeader();
    void applyPalette();
    void replot();
    std::vector<std::size_t> keep() const;
    bool oneD() const;
    // The heatmap (0…3) under a position, or −1; the cell (row, column) at a position in it.
    int rectAt(const QPointF& pos) const;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> cellAt(int rect,
                                                                  const QPointF& pos) const;
    std::optional<std::uint64_t> binAt(const QPointF& pos) const;
    void heatPress(const QPointF& pos);
    void heatMove(const QPointF& pos, const QPoint& globalPos);
    void heatRelease(const QPointF& pos);
    void exportCsv();

    std::shared_ptr<const TableViewInputs> inputs_;
    std::optional<MarginalLayers> layers_;
    std::vector<MarginalError> errors_;
    std::size_t rows_ = 0, columns_ = 1;
    bool log_ = false;
    double level_ = 0.95;
    std::optional<BinRange> selRows_, selColumns_;  // 1-D: selColumns_ is the range
    std::optional<TableBoxReadout> readout_;
    QFutureWatcher<Computed>* watcher_ = nullptr;
    quint64 generation_ = 0;
    QFutureWatcher<ReadoutJob>* readoutWatcher_ = nullptr;
    quint64 readoutGeneration_ = 0;
    bool readoutPending_ = false;
    bool pending_ = false;
    bool filling_ = false;  // combo boxes being set from the state
    // Drag state.
    int dragRect_ = -1;
    std::pair<std::uint64_t, std::uint64_t> dragStart_{0, 0};
    std::pair<double, double> countRange_{0, 1}, errorRange_{-1, 1};

    QStackedWidget* stack_ = nullptr;
    QLabel* message_ = nullptr;
    QLabel* header_ = nullptr;
    QComboBox* rowsBox_ = nullptr;
    QComboBox* columnsBox_ = nullptr;
    QLabel* columnsLabel_ = nullptr;
    QWidget* columnsGroup_ = nullptr;
    QBoxLayout* body_ = nullptr;
    QWidget* side_ = nullptr;
    QCheckBox* logBox_ = nullptr;
    QComboBox* levelBox_ = nullptr;
    QPushButton* exportButton_ = nullptr;
    QStackedWidget* plotStack_ = nullptr;
    QCustomPlot* heat_ = nullptr;
    std::array<QCPAxisRect*, 4> rects_{};
    std::array<QCPColorMap*, 4> maps_{};
    std::array<QCPTextElement*, 4> titles_{};
    std::array<QCPItemRect*, 4> boxes_{};
    QCPColorScale* countScale_ = nullptr;
    QCPColorScale* errorScale_ = nullptr;
    QCustomPlot* bars_ = nullptr;
    QCPTextElement* barsTitle_ = nullptr;
    QCPBars* trueBars_ = nullptr;
    QCPGraph* noisyGraph_ = nullptr;
    QCPGraph* estimateGraph_ = nullptr;
    QCPItemRect* range_ = nullptr;
    QLabel* hint_ = nullptr;
    QLabel* readoutLabel_ = nullptr;
    QLineEdit* dpxBox_ = nullptr;
    QLabel* marginalsTitle_ = nullptr;
    QTableWidget* marginals_ = nullptr;
};

}  // namespace dpx::ui
