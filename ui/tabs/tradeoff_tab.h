// The "Trade-off" tab (issue #6): expected error against ε (or against the population size N at
// the current ε) for every selected configuration, mechanism × estimator, on log–log axes, with
// the frontier (the lower envelope across the configurations, as on DPComp.org) highlighted, and
// the accuracy-first inverse (the smallest ε meeting a target). Computation is
// core/choosing/tradeoff.h on the JobRunner's background lane, one job per curve so that curves
// appear as they finish: exact curves at once, Monte Carlo curves first from a quick pass and then
// refined with more trials. Curves are only computed while the tab is visible (a hidden tab
// remembers that it is stale). Clicking a point asks the main window to switch the document to that
// configuration and ε. The workload algorithms of issue #20 (core/algorithms; DPBench, Hay et al.
// 2016) are rows too ("algo:dawa"): one check box per algorithm that runs on the table's
// dimension; clicking one of their points cannot switch the document (it has no algorithm
// mechanism), so it says how to reproduce the point with dpx workload instead.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/choosing/tradeoff.h"
#include "core/histogram/histogram.h"
#include "ui/model/explorer_state.h"
#include "ui/tabs/plan_on_box.h"
#include "ui/widgets/form_rows.h"

class QCheckBox;
class QComboBox;
class QCPAbstractPlottable;
class QCPTextElement;
class QCustomPlot;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QMouseEvent;
class QPushButton;
class QSpinBox;

namespace dpx::ui {

class JobRunner;

// The trade-off mechanism of a window mechanism (nullopt: not in the trade-off set, e.g. UM) and
// back.
std::optional<TradeoffMechanism> tradeoffMechanismOf(MechanismChoice m);
MechanismChoice mechanismChoiceOf(TradeoffMechanism m);
// The window mechanism of a configuration (local ones by protocol).
MechanismChoice mechanismChoiceOf(const TradeoffConfig& c);
// The view's id of the document's configuration ("laplace:clamp", "oue:identity",
// "dbitflip2:resize"); nullopt for a mechanism the trade-off tab does not draw.
std::optional<QString> configIdOf(const ExplorerState& s);

// What the curves depend on: the document's state (mechanism parameters δ, calibration, n, LP
// settings, error scale; the current configuration and ε are highlighted) and the loaded
// histogram with its sensitivity.
struct TradeoffInputs {
    ExplorerState state;
    std::optional<Histogram> truth;  // nullopt: no data yet (`message` says why, if anything)
    Sensitivity sensitivity;
    QString message;
    // The table's shape when it has two or more attributes ({rows, columns}: the histogram is its
    // cells in C order); empty for one attribute. The workload algorithms see it.
    std::vector<std::size_t> cellShape;
};

class TradeoffTab : public QWidget {
    Q_OBJECT
public:
    enum class Axis { Epsilon, Population };
    enum class TargetKind { ErrorValue, ErrorPercentOfN, PerBin };

    // Monte Carlo trials per point of the quick pass and of the refinement.
    static constexpr std::uint64_t kQuickTrials = 1000;
    static constexpr std::uint64_t kRefineTrials = 20000;
    // LP-designed curves solve one LP per ε: refused above this group size (minutes per curve).
    static constexpr int kMaxLpPeople = 200;
    // Workload algorithms: runs per Monte Carlo point of the quick pass and of the refinement
    // (one run can be a data-dependent partition search).
    static constexpr std::uint64_t kAlgorithmQuickRuns = 20;
    static constexpr std::uint64_t kAlgorithmRefineRuns = 200;

    explicit TradeoffTab(JobRunner* runner, QWidget* parent = nullptr);

    // The document's state drives everything, including the tab's own settings (curves, metric,
    // axis, grids: the ExplorerState::tradeoff* fields, saved in sessions). The controls and the
    // setters below emit settingsEdited; the owner writes them into the document
    // (writeSettings) and passes the new state back through setInputs.
    void setInputs(const TradeoffInputs& inputs);
    void writeSettings(ExplorerState& s) const;

    // Configuration selection ("laplace:clamp" ids, TradeoffConfig::defaultLabel without LP
    // objective: "optimal:identity").
    QStringList selectedConfigs() const;
    void setSelectedConfigs(const QStringList& ids);
    QCheckBox* configCheckBox(TradeoffMechanism m, EstimatorKind e) const;
    // A workload algorithm's check box by registry id (any case); nullptr when unknown.
    QCheckBox* algorithmCheckBox(const QString& id) const;
    // The registry ids of the algorithms offered for the current table (its dimension).
    QStringList offeredAlgorithms() const;
    // What a click on an algorithm's point said (how to reproduce it); empty before.
    QLabel* algorithmNoteLabel() const { return algoNote_; }
    void setMetric(Metric m);
    Metric metric() const;
    void setAxis(Axis a);
    Axis axis() const;
    // ε grid (log-spaced) and population grid.
    void setEpsilonRange(double lo, double hi, int points);
    void setPopulationRange(double lo, double hi, int points);

    // The curves as drawn (one per selected configuration, in grid order), their frontier, and
    // whether any job still runs (including refinement).
    const std::vector<ErrorCurve>& curves() const { return curves_; }
    const Frontier& frontier() const { return frontier_; }
    QStringList curveIds() const { return curveIds_; }
    // Per curve: why it is not drawn (empty: drawn).
    const std::vector<QString>& curveErrors() const { return curveErrors_; }
    bool computing() const;
    // Every curve has arrived at least once (the quick pass; refinement may still run).
    bool firstPassDone() const;
    // The x values of the grid (ε or N).
    const std::vector<double>& grid() const { return grid_; }

    // Pixel position of point `index` of curve `curve` in the plot (tests: clicking it).
    QPoint pointPosition(std::size_t curve, std::size_t index) const;

    // Accuracy first.
    QComboBox* targetConfigCombo() const { return targetConfig_; }
    QComboBox* targetKindCombo() const { return targetKind_; }
    QDoubleSpinBox* targetValueSpin() const { return targetValue_; }
    QDoubleSpinBox* targetKSpin() const { return targetK_; }
    QDoubleSpinBox* targetQSpin() const { return targetQ_; }
    QPushButton* solveButton() const { return solve_; }
    QPushButton* useSolutionButton() const { return useSolution_; }
    QLabel* solutionLabel() const { return solution_; }
    std::optional<double> solvedEpsilon() const { return solved_; }

    QCustomPlot* plot() const { return plot_; }
    // Choosing ε without leaking (issue #22): what the curves are computed on — the box that
    // chooses it, the caption beside the plot that says it (also the plot's subtitle), and the
    // histogram the curves run on (the confidential one or the public proxy).
    PlanOnBox* planOnBox() const { return planOn_; }
    QLabel* basisLabel() const { return basis_; }
    QString basisSubtitleText() const;
    const PlannedHistogram& planned() const { return planned_; }
    QLabel* frontierLabel() const { return frontierText_; }
    QLabel* statusLabel() const { return status_; }
    // "configuration,epsilon|population,value,ci95_low,ci95_high,method,frontier" rows.
    QString toCsv() const;

Q_SIGNALS:
    // The user clicked a point (or used a solved ε): switch the document.
    // `bits`: dBitFlip's d of a local configuration (1 otherwise).
    void configurationChosen(dpx::ui::MechanismChoice mechanism, int bits,
                             dpx::EstimatorKind estimator, double epsilon);
    void scaleToggled(dpx::Scale scale);
    void settingsEdited();
    void exportPlotRequested();
    // A curve arrived (tests, screenshots).
    void curvesUpdated();

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct CurveResult;
    void buildControls();
    QGroupBox* buildConfigurationGrid();  // mechanism × estimator check boxes
    QGroupBox* buildAlgorithmBox();       // one check box per workload algorithm
    void updateAlgorithmRows();           // show those that run on the table's dimension
    std::size_t tableDimensions() const;
    TradeoffConfig algorithmConfigFor(const QString& id) const;
    QString curveDisplayName(std::size_t curve) const;  // legend: "DAWA", "UGrid †"
    void explainAlgorithmPoint(std::size_t curve, double x);
    QFormLayout* buildAxisControls();  // metric, scale, axis, ε and N ranges, points
    QGroupBox* buildTargetControls();  // accuracy first: the smallest ε meeting a target
    QHBoxLayout* buildExportButtons();
    void markStale();
    void startIfNeeded();
    void startCurve(std::size_t index, std::uint64_t trials);
    void deliver(std::size_t index, std::uint64_t generation, const CurveResult& r);
    // The status bar's Cancel stopped the job of `slot`: its curve no longer counts as computing.
    void jobCancelled(const QString& slot);
    TradeoffConfig configFor(TradeoffMechanism m, EstimatorKind e,
                             const ldp::ProtocolSpec& local = {}) const;
    Status gridFromControls(std::vector<double>& grid) const;
    void recomputeFrontier();
    QStringList statisticalTies(const FrontierSegment& segment) const;
    void draw();
    void drawMarkers();
    void updateTitle();
    void updateStatus();
    void updateTargetControls();
    void rebuildTargetConfigs();
    void solveTarget();
    void showSolution(const TradeoffConfig& cfg, TargetKind kind, double target, double k,
                      const QString& id, const QString& error, const EpsilonSolution& solution);
    void onPlottableClick(QCPAbstractPlottable* p, int dataIndex, QMouseEvent* event);
    void onMouseMove(QMouseEvent* event);
    bool curvesKeyChanged(const TradeoffInputs& next) const;
    // Sets the controls from the state (no signals); true if any changed.
    bool readSettings(const ExplorerState& s);
    QString valueUnit() const;
    void exportCsv();

    JobRunner* runner_;
    TradeoffInputs inputs_;
    bool haveInputs_ = false;
    bool stale_ = true;
    std::uint64_t generation_ = 0;

    // Controls.
    std::vector<std::vector<QCheckBox*>> checks_;  // [mechanism][estimator]
    std::vector<QCheckBox*> algoChecks_;           // in allAlgorithms() order
    QGroupBox* algoBox_ = nullptr;
    QLabel* algoNote_ = nullptr;
    QComboBox* metric_ = nullptr;
    QComboBox* scale_ = nullptr;
    QComboBox* axis_ = nullptr;
    QDoubleSpinBox* epsLo_ = nullptr;
    QDoubleSpinBox* epsHi_ = nullptr;
    QSpinBox* points_ = nullptr;
    QDoubleSpinBox* popLo_ = nullptr;
    QDoubleSpinBox* popHi_ = nullptr;
    QLabel* epsRangeLabel_ = nullptr;
    QLabel* popRangeLabel_ = nullptr;
    QComboBox* targetConfig_ = nullptr;
    QComboBox* targetKind_ = nullptr;
    QDoubleSpinBox* targetValue_ = nullptr;
    QLabel* targetUnit_ = nullptr;
    QDoubleSpinBox* targetK_ = nullptr;
    QDoubleSpinBox* targetQ_ = nullptr;
    QLabel* perBinLabel_ = nullptr;
    QPushButton* solve_ = nullptr;
    QPushButton* useSolution_ = nullptr;
    std::unique_ptr<FormRows> targetRows_;  // the "Accuracy first" rows (see form_rows.h)
    QLabel* solution_ = nullptr;
    QPushButton* exportCsv_ = nullptr;
    QPushButton* exportPlot_ = nullptr;
    PlanOnBox* planOn_ = nullptr;

    // Display.
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPTextElement* subtitle_ = nullptr;  // what the curves are computed on
    QLabel* basis_ = nullptr;
    PlannedHistogram planned_;
    void updateBasis();
    QLabel* frontierText_ = nullptr;
    QLabel* status_ = nullptr;

    // The curves of the current generation: configs in grid order.
    std::vector<TradeoffConfig> configs_;
    QStringList curveIds_;
    std::vector<ErrorCurve> curves_;
    std::vector<QString> curveErrors_;
    std::vector<std::uint64_t> curveTrials_;  // Monte Carlo trials of the drawn curve (0: exact)
    std::vector<bool> curveRunning_;
    std::vector<bool> curveCancelled_;  // stopped by the status bar's Cancel
    std::vector<bool> curveHasMc_;
    std::vector<double> grid_;
    Axis gridAxis_ = Axis::Epsilon;
    Frontier frontier_;
    // Graph → curve index (main lines, bands and frontier: SIZE_MAX).
    std::vector<std::pair<const QCPAbstractPlottable*, std::size_t>> graphCurve_;
    const QCPAbstractPlottable* frontierGraph_ = nullptr;

    std::optional<double> solved_;
    std::optional<double> solvedTarget_;  // the error target drawn as a line
    std::optional<TradeoffConfig> solvedConfig_;
};

}  // namespace dpx::ui
