// "Sparse histograms" page of the More mechanisms tab (issue #9; seed 003 §2.4.1, Figs. 2.3–2.4):
// Laplace noise of scale 2/ε per cell (replace-one neighbours, Δ1 = 2) followed by thresholding
// at τ (default (2/ε)·ln p), against the same Laplace noise with negatives clamped to 0. Shows the
// distribution of the L1 error over Monte Carlo trials for both (core/mechanisms/sparse_histogram.h
// sparseMonteCarlo, on common random numbers) with the exact expected L1 of each and the seed's
// bound ((2q+1)/ε)(ln p + 1), and one thresholded release against the truth, cell by cell.
//
// Data: the window's current histogram, or one of the two built-in tables with the seed's shapes
// (edwards-like, nltcs-like). A table of several attributes above 100 000 cells (up to 2⁶⁴) runs
// without visiting its empty cells (sparseDomainMonteCarlo: exact in distribution). ε: the
// window's, unless the page's own ε is set. The Monte Carlo runs on the JobRunner's background lane
// (slot "sparse"), cancellable, with progress.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <memory>

#include "core/mechanisms/sparse_domain.h"
#include "core/mechanisms/sparse_histogram.h"
#include "ui/tabs/more/more_mechanisms_tab.h"

class QCheckBox;
class QComboBox;
class QCPTextElement;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace dpx::ui {

class JobRunner;

class SparsePage : public MechanismPage {
    Q_OBJECT
public:
    enum class Data { Window, EdwardsLike, NltcsLike };

    explicit SparsePage(JobRunner* runner, QWidget* parent = nullptr);

    QCustomPlot* plot() const override { return plot_; }
    bool busy() const override;
    void setContext(const MechanismPageContext& context) override;

    // What a run uses, read from the controls (errors: the message shown on the page).
    struct Spec {
        Data data = Data::Window;
        QString dataTitle;                 // said on the page
        QString unit;                      // the window column's unit ("" if none)
        std::vector<std::int64_t> counts;  // empty for the examples (made on the worker)
        std::vector<std::string> labels;   // cell labels (window data; examples: on the worker)
        // The window's table when it is too large for a histogram (more than kMaxBins cells):
        // the page then runs on the table itself (core/mechanisms/sparse_domain.h) and `counts`
        // is empty.
        std::shared_ptr<const ContingencyTable> table;
        SparseHistogramParams params;  // ε and τ (nullopt: the default (2/ε)·ln p)
        bool ownEpsilon = false;
        std::uint64_t trials = 1000;
        std::uint64_t seed = 1;
    };
    struct Result {
        QString error;  // non-empty: nothing else is valid
        Spec spec;
        // The cells drawn one by one: every cell (a histogram), or for a table (spec.table) the
        // occupied cells and those released non-zero, in index order, with their indices.
        std::vector<std::int64_t> counts;
        std::vector<std::string> labels;
        std::vector<std::uint64_t> cellIndices;  // a table only: the cell of counts[i]
        SparseMonteCarloResult mc;
        // A table: the exact values on its whole domain (p up to 2⁶⁴; mc.expected.cells
        // saturates).
        std::optional<SparseDomainExpectedError> domain;
        // One thresholded release: trial 0's draws (SimulationRng(seed, 0), cells in order), so
        // its L1 error is mc.thresholdedL1[0].
        std::vector<double> release;
    };

    // Controls (tests, sessions): the data choice, the page's own ε and τ (nullopt: the window's ε
    // / the default τ), trials and seed. Each setter only sets the control; run() recomputes.
    void setData(Data d);
    void setOwnEpsilon(std::optional<double> epsilon);
    void setThreshold(std::optional<double> tau);
    void setTrials(int trials);
    void setSeed(std::uint64_t seed);
    QLineEdit* epsilonEdit() const { return epsilon_; }
    QLineEdit* thresholdEdit() const { return threshold_; }

    // Starts the computation from the controls; false (and the reason on the page) if invalid.
    // force false: nothing happens when the inputs equal those of the last run.
    bool run(bool force = true);
    void cancel();
    const Result& result() const { return *result_; }
    QString numbersText() const;  // the text panel, as plain text
    QCustomPlot* cellsPlot() const { return cellsPlot_; }

protected:
    void restyle() override;

private:
    Expected<Spec> specFromControls() const;
    void updateControls();
    void draw();
    void drawCells();
    void fitCellsY();
    void applyZoom();  // the L1 plot's x range: both distributions and the bound, or one of them
    void done(const QString& text, bool error);
    void edited();  // a control changed (see the .cpp)

    JobRunner* runner_;
    MechanismPageContext context_;
    bool haveContext_ = false;
    QComboBox* data_ = nullptr;
    QLabel* dataInfo_ = nullptr;
    QCheckBox* ownEpsilon_ = nullptr;
    QLineEdit* epsilon_ = nullptr;
    QCheckBox* ownThreshold_ = nullptr;
    QLineEdit* threshold_ = nullptr;
    QSpinBox* trials_ = nullptr;
    QLineEdit* seed_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QLabel* numbers_ = nullptr;
    QComboBox* zoom_ = nullptr;
    QTabWidget* plots_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCustomPlot* cellsPlot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPTextElement* cellsTitle_ = nullptr;
    std::optional<Result> result_;
    QString resultStatus_;  // the status line of the result drawn
    // The inputs of the last run started (to skip a context change that changes nothing here).
    std::optional<Spec> lastRun_;
    bool failed_ = false;  // the last attempt ended in a message (nothing more will come)
    std::vector<std::size_t> cellIndex_;  // cells shown in the per-cell plot
    bool logCounts_ = false;              // the per-cell plot's count axis is logarithmic
    double fullUpper_ = 1;                // the L1 plot's x range with everything in view
    double zoomLo_[2] = {0, 0}, zoomHi_[2] = {1, 1};  // thresholded, clamped: their bars' range
};

}  // namespace dpx::ui
