// The Strategy tab (issue #23): the strategy designer of the matrix mechanism, HDMM (McKenna,
// Miklau, Hay & Machanavajjhala, VLDB 2018). Build a workload on a domain (1-D, 2-D or the
// current table's shape), optimise a strategy with HDMM's templates on a worker (progress,
// Cancel), and see — before any data is used — the exact RMSE per query against ε for the
// optimised strategy and the baselines (Identity, HB, Privelet, the best hierarchy) under Laplace
// and Gaussian measurement, with a one-line verdict; the matrices W and A and the per-query
// expected error as heatmaps. Then a simulation on the current table: measure A·x with noise,
// infer by least squares (or non-negative least squares), and compare the workload's answers with
// the true ones — a simulation, never a release. What is computed lives in strategy_data.h; the
// jobs run in the slots "strategy" and "strategy-apply"; the GUI thread only draws.
#pragma once

#include <QPointer>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ui/model/explorer_state.h"
#include "ui/tabs/strategy/strategy_data.h"
#include "ui/widgets/form_rows.h"
#include "ui/widgets/qcustomplot_include.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QShowEvent;
class QSpinBox;
class QTabWidget;
class QTimer;

namespace dpx {
class ContingencyTable;
}

namespace dpx::ui {

class JobRunner;

class StrategyTab : public QWidget {
    Q_OBJECT
public:
    explicit StrategyTab(JobRunner* runner, QWidget* parent = nullptr);
    ~StrategyTab() override;

    // The window's table (null: none) and its name: the domain "the current table's shape" and
    // the simulation use it.
    void setWindowTable(std::shared_ptr<const ContingencyTable> table, const QString& name);

    // The inputs as the controls hold them, and back (restarts the design when they change what
    // is optimised).
    StrategyChoices choices() const;
    void setChoices(const StrategyChoices& c);
    // The design's inputs from the controls, or why they do not make one.
    Expected<DesignerInputs> inputs() const;
    // The measurement the error map and the simulation use (ε, noise, δ from the controls).
    Expected<MeasurementSpec> measurement() const;
    // The noise law chosen (whether or not its δ is valid): which design A and the per-query
    // errors show.
    MeasurementNoise noiseLaw() const;

    void optimise();  // starts the design now (edits restart it by themselves)
    void cancel();
    void simulate();  // the optimised strategy on the current table

    bool busy() const;  // designing, simulating, or about to
    QString message() const;
    const DesignerResult* result() const { return result_ ? result_.get() : nullptr; }
    const std::optional<DesignerApplied>& applied() const { return applied_; }
    QString verdict() const;
    QString applyMessage() const;
    // The RMSE the ε plot shows for strategy `index` of the result at `epsilon` (a point of the
    // grid), Laplace (dashed = false) or Gaussian; NaN when not drawn. For tests.
    double shownRmse(std::size_t index, bool gaussian, double epsilon) const;

    QCustomPlot* errorPlot() const { return errorPlot_; }
    // The per-marginal heatmaps (marginal workloads over three or more attributes): one axis
    // rect per marginal, every map on one colour scale. For tests.
    QCustomPlot* marginalPlot() const { return margPlot_; }
    QCustomPlot* currentPlot() const;
    QTabWidget* pages() const { return pages_; }

Q_SIGNALS:
    // "Release through this strategy…": the window opens its release dialog on the current
    // data with the tab's workload and template (issue #23).
    void releaseRequested();
    // A design or a simulation finished, failed or was cancelled, and is drawn.
    void drawn();
    // The user changed an input (not setChoices): choices() has it.
    void choicesEdited();

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildControls();
    void updateVisibility();
    void edited(bool redesign);
    void finish(const QString& text);
    void redraw();
    void drawErrorPlot();
    void drawMatrices();
    void drawApplied();
    void drawMarginalPanels(const DesignerResult& r, const MarginalPanels& panels, double variance,
                            const QString& what);
    QString attributeName(const DesignerResult& r, std::size_t a) const;
    void applyPalette();
    void setStatus(const QString& text);

    QPointer<JobRunner> runner_;  // the window's runner may go first at shutdown
    std::shared_ptr<const ContingencyTable> table_;
    QString tableName_;

    QComboBox* domain_;
    QSpinBox* n_;
    QSpinBox* rows_;
    QSpinBox* cols_;
    QLabel* tableNote_;
    QComboBox* kind_;
    QLabel* paramLabel_;
    QLineEdit* param_;
    QComboBox* template_;
    QLineEdit* p_;
    QSpinBox* restarts_;
    QSpinBox* seed_;
    QDoubleSpinBox* epsilon_;
    QComboBox* noise_;
    QLineEdit* delta_;
    QPushButton* optimise_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    std::unique_ptr<FormRows> workloadRows_;  // see form_rows.h
    std::unique_ptr<FormRows> templateRows_;
    QLabel* status_;
    QTabWidget* pages_;
    QCustomPlot* errorPlot_;
    QLabel* verdict_;
    QLabel* atEpsilon_;
    QCustomPlot* wPlot_;
    QCustomPlot* aPlot_;
    QCustomPlot* qPlot_;     // per-query error by range ends (1-D all ranges)
    QCustomPlot* qLine_;     // per-query error over the query index (other workloads)
    QScrollArea* margArea_;  // holds margPlot_: scrolls when the marginals need more height
    QCustomPlot* margPlot_;  // per-marginal heatmaps (marginals over ≥ 3 attributes)
    int margPerRow_ = 0;     // heatmaps per row as last drawn (a resize that changes it redraws)
    QLabel* wNote_;
    QLabel* aNote_;
    QLabel* qNote_;
    QLabel* banner_;
    QPushButton* simulate_;
    QPushButton* release_;
    QCheckBox* nnls_;
    QSpinBox* applySeed_;
    QCustomPlot* applyPlot_;
    QLabel* applyText_;
    QWidget* applySpacer_;
    QTimer* restart_;
    QTimer* poll_;

    std::vector<std::pair<QCPGraph*, QCPGraph*>> graphs_;  // per strategy: Laplace, Gaussian
    std::shared_ptr<std::atomic<double>> progressValue_;
    std::shared_ptr<const DesignerResult> result_;
    std::optional<DesignerApplied> applied_;
    QString applyMessage_;
    QString message_;
    QString paramText_[9];  // each kind's parameter text, kept while another kind is shown
    int shownKind_ = 0;
    bool running_ = false;
    bool applying_ = false;
    bool stale_ = true;
    bool settingControls_ = false;
};

}  // namespace dpx::ui
