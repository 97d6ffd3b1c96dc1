// The Workbench tab (issue #20): what DPComp shows, live, on the user's table. The DPBench family
// of algorithms (core/algorithms) compared on the window's 1-D or 2-D table (or a built-in
// shape), coarsened to a domain size and resampled to scales m: DPBench's scaled L2 error against
// ε with the frontier (the lowest curve at each ε), against m, and against m·ε (DPBench's
// observation that for many algorithms the error depends on the product only). Exact expected
// errors of the data-independent algorithms appear first (hollow markers), the trials of every
// algorithm follow one algorithm at a time in the background. Clicking a point shows that
// algorithm's noisy output beside the input with the workload's worst queries. All computing
// runs as jobs in the slot "workbench" (workbench_data.h); the GUI thread only draws.
#pragma once

#include <QHash>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "ui/model/explorer_state.h"
#include "ui/tabs/workbench/workbench_data.h"
#include "ui/widgets/form_rows.h"
#include "ui/widgets/qcustomplot_include.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QShowEvent;
class QTimer;

namespace dpx::ui {

class JobRunner;

class WorkbenchTab : public QWidget {
    Q_OBJECT
public:
    explicit WorkbenchTab(JobRunner* runner, QWidget* parent = nullptr);
    ~WorkbenchTab() override;

    // The window's loaded table (null: none) and its name; restarts when the table is the one
    // in use.
    void setWindowTable(std::shared_ptr<const ContingencyTable> table, const QString& name);

    // The data list: 0 = the window's table, then the built-in shapes (1-D, then 2-D).
    void setDataChoice(int index);
    int dataChoice() const;
    QStringList dataChoices() const;
    // Inputs as the controls hold them (the domain as chosen in its list).
    WorkbenchSettings settings() const;
    // Sets every control (the domain must be one offered for the current data) and restarts.
    void setSettings(const WorkbenchSettings& s);
    std::vector<DomainShape> offeredDomains() const { return domains_; }
    // Every input and what is shown, as sessions store them (ExplorerState::workbench): the
    // domain empty when it is the data's own, the algorithms empty when they are the default
    // list of the data's dimension.
    WorkbenchChoices choices() const;
    // Sets the controls from a session. What depends on the data (the domain, the algorithms of
    // its dimension, the shown point) is applied when the data is there; what does not fit it
    // falls back (the data's own size, the default algorithms) and the status says so.
    void setChoices(const WorkbenchChoices& c);
    // Starts the comparison now (the controls restart it by themselves after an edit); while the
    // tab is hidden it only marks the results stale.
    void start();
    void cancel();

    // Computing, or about to (an edit's restart is pending).
    bool busy() const;
    QString message() const;  // the status line: progress, errors, "cancelled"
    const std::vector<WorkbenchCell>& cells() const { return cells_; }
    const WorkbenchPrepared* prepared() const { return prepared_ ? prepared_.get() : nullptr; }
    // The value a point of the ε plot shows (NaN: none), for tests.
    double shownValue(const QString& algorithm, std::size_t scaleIndex, double epsilon,
                      bool* exact = nullptr) const;
    QString csv() const;
    // The text under the ε plot that names the frontier's winners (and their ties).
    QString frontierText() const { return frontierText_; }

    // What a click on a point does: computes and shows that algorithm's output.
    void showDetail(const QString& algorithm, std::size_t scaleIndex, double epsilon,
                    bool showPage = true);
    bool detailBusy() const { return detailPending_; }
    const std::optional<WorkbenchDetail>& detail() const { return detail_; }

    QCustomPlot* currentPlot() const;
    QCustomPlot* epsilonPlot() const { return epsPlot_; }
    QCustomPlot* detailPlot() const { return detailPlot_; }
    QTableWidget* numbersTable() const { return table_; }

Q_SIGNALS:
    // A comparison finished (or failed, or was cancelled), or a detail was drawn.
    void drawn();
    // The user changed an input or what is shown (not setChoices/setSettings): choices() has it.
    void choicesEdited();

protected:
    void changeEvent(QEvent* event) override;
    // The comparison runs only while the tab is shown: a change made while it is hidden marks
    // it stale, and showing it starts it.
    void showEvent(QShowEvent* event) override;

private:
    void buildControls();
    void rebuildDomains();
    void scheduleRestart();
    void startAlgorithm(std::size_t index, std::uint64_t generation);
    void mergeCells(std::vector<WorkbenchCell> cells);
    void finish(const QString& text);
    void redraw();
    void drawEpsilonPlot();
    void drawScalePlot();
    void drawProductPlot();
    void drawDetail();
    void fillTable();
    void setStatus(const QString& text);
    void applyPalette();
    const WorkbenchData* currentData(QString* why) const;
    QString legendName(const QString& algorithm) const;
    void updateNoiseRows();
    void onPlotClick(QCPAbstractPlottable* plottable, int index);
    void edited();
    void applyPendingPoint();

    JobRunner* runner_;
    std::shared_ptr<const ContingencyTable> windowTable_;
    QString windowTableName_;
    std::optional<WorkbenchData> windowData_;
    QString windowDataError_;
    std::vector<WorkbenchData> builtins_;

    // Controls.
    QComboBox* data_;
    QLabel* dataNote_;
    QComboBox* domain_;
    QLineEdit* scales_;
    QLineEdit* epsilons_;
    QComboBox* workload_;
    QListWidget* algorithms_;
    QSpinBox* trials_;
    QSpinBox* seed_;
    // HDMM's measurement (the algorithms with AlgorithmInfo::gaussian): Laplace or Gaussian, and
    // δ; the rows are shown only while such an algorithm is ticked (δ only for Gaussian).
    QComboBox* noise_;
    QLineEdit* delta_;
    std::unique_ptr<FormRows> formRows_;  // the inputs' rows (null while they are built)
    QComboBox* metric_;
    QComboBox* shownScale_;
    QComboBox* shownEpsilon_;
    QPushButton* cancel_;
    QPushButton* export_;
    QLabel* status_;
    QLabel* note_;
    QTabWidget* views_;
    QCustomPlot* epsPlot_;
    QCustomPlot* scalePlot_;
    QCustomPlot* productPlot_;
    QCustomPlot* detailPlot_;
    QLabel* detailText_;
    QTableWidget* table_;
    QTimer* restart_;

    std::vector<DomainShape> domains_;
    WorkbenchSettings running_settings_;
    std::shared_ptr<const WorkbenchPrepared> prepared_;
    std::vector<WorkbenchCell> cells_;
    std::uint64_t generation_ = 0;
    bool running_ = false;
    std::size_t algorithmsDone_ = 0;
    std::optional<WorkbenchDetail> detail_;
    bool detailPending_ = false;
    struct PointRef {
        QString algorithm;
        std::size_t scaleIndex = 0;
        double epsilon = 0;
    };
    QHash<QCPAbstractPlottable*, std::vector<PointRef>> points_;
    std::vector<QString> builtinNames_;  // "sparse-1d", in the order of builtins_
    // From setChoices, applied when the data is there (rebuildDomains) or the run is done.
    std::optional<DomainShape> pendingDomain_;
    std::optional<QStringList> pendingAlgorithms_;
    // The point whose output the Output page shows (empty algorithm: none), by scale value; it
    // is shown again when a run that has it finishes (pointPending_).
    QString pointAlgorithm_;
    double pointScale_ = 0, pointEpsilon_ = 0;
    bool pointPending_ = false;
    QString fallbackNote_;
    // The last setChoices, until the next table arrives or the user edits.
    std::optional<WorkbenchChoices> sessionChoices_;  // what of the session did not fit the data
    // What the plots show: the m of the ε plot (0: data, -1: the first) and the ε of the scale
    // plot (-1: the middle one), kept by value across runs.
    double plotScale_ = -1;
    double plotEpsilon_ = -1;
    bool settingControls_ = false;
    bool stale_ = true;
    QString frontierText_;
};

}  // namespace dpx::ui
