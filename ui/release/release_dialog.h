// The window's "Release…" action (issue #8): a dialog that publishes the current histogram with
// one of the exact release mechanisms through io/release/release_job.h — the same code as
// `dpx release` — and a status-bar label with what is left of the current dataset's ledger.
//
// One truth for the budget (issue #17): what is left is shown rounded down (a figure shown can be
// typed and spent), "Use the rest" fills in the largest ε the ledger accepts, the ledgers used
// are remembered (ui/release/known_ledgers.h), and a release that would create a new ledger for a
// dataset a known ledger has already charged is warned about and needs explicit confirmation. The
// status bar shows the ledger of the dataset shown (chosen for its plan, else the last one used for
// it), re-read whenever its file changes (a `dpx release` from a terminal included).
//
// The dialog is pre-filled from the document (data, column, bins, relation, cap, ε, δ, the budget
// tab's total) and shows, before the user clicks, what the release costs, what the ledger has left
// and what would remain, or why the release would be refused. Previews and the release itself run
// on the window's JobRunner (never on the GUI thread); the release draws its noise from
// ReleaseRandomness (getrandom), never from the document's simulation seed.
#pragma once

#include <QDialog>
#include <QObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/histogram/histogram.h"
#include "core/table/table.h"
#include "io/release/release_job.h"
#include "ui/model/computations.h"
#include "ui/model/explorer_state.h"
#include "ui/tabs/budget_tab.h"
#include "ui/widgets/elided_label.h"
#include "ui/widgets/form_rows.h"

class QAction;
class QCheckBox;
class QFileSystemWatcher;
class QCloseEvent;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;
class QShowEvent;
class QSpinBox;
class QTimer;

namespace dpx::ui {

class JobRunner;
class DecisionReportExporter;

// What the dialog releases, captured from the window when it opens.
struct ReleaseContext {
    QString error;    // non-empty: no data to release (the reason)
    QString refusal;  // non-empty: the bins depend on the data (the explanation)
    std::optional<Histogram> histogram;
    // A table of several attributes: released cell by cell (`histogram` is it flattened), its
    // metadata listing every attribute with its bins (core/release releaseTable).
    std::optional<ContingencyTable> table;
    QString dataset;  // the ledger's description of the data (a file path, "example …")
    QString source;   // for the metadata: "column 'hours' of …"
    QString column;
    QString binsText;
    QString defaultDir;   // where the output and ledger go by default
    QString defaultBase;  // file name stem of the release, e.g. "telemetry-hours"
    QString ledgerBase;   // file name stem of the ledger, e.g. "telemetry"
    Neighbouring relation = Neighbouring::AddRemove;
    int cap = 1;
    double epsilon = 1, delta = 1e-6;
    ReleaseMechanism mechanism = ReleaseMechanism::DiscreteLaplace;
    EstimatorKind postProcessing = EstimatorKind::Identity;
    qint64 groupSize = 100;  // n of geometric-matrix: declared, never the data's largest count
    double budgetEpsilon = 1, budgetDelta = 0;
    Composition budgetComposition = Composition::Basic;
    double confidenceLevel = 0.95;  // the level of the intervals stated (issue #22)
    // The Histogram tab's "sample of N" and design effect (issue #22; 0: not a sample): the
    // dialog's sample box starts with them, unticked (a release declares it explicitly).
    double samplePopulation = 0;
    double designEffect = 1;
    // What ε was chosen on (issue #22): the Trade-off tab's plan, "confidential data" or
    // "public proxy: uniform, N = 30000"; recorded as the metadata's "epsilon_chosen_on".
    QString epsilonChosenOn = QStringLiteral("confidential data");
    // A release through a designed strategy (issue #23, from the Strategy tab): the workload the
    // strategy is designed for (WorkloadSpec text; empty: every bin noised on its own), the
    // template and the design's options. Planned on the declared shape, never on the counts.
    QString strategyWorkload;
    DesignTemplate strategyTemplate = DesignTemplate::Automatic;
    std::vector<std::size_t> strategyP;
    std::size_t strategyRestarts = 3;
    std::uint64_t strategySeed = 0;
};
// The context of the document's state and the dataset the engine loaded from it. Refuses bins
// taken from the data: DatasetResult::dataDependent, and for the built-in examples any binning
// other than the example's own on its default column, or declared bins, edges or categories.
ReleaseContext releaseContextOf(const ExplorerState& state, const DatasetResult& dataset);

class ReleaseDialog : public QDialog {
    Q_OBJECT
public:
    ReleaseDialog(ReleaseContext context, JobRunner* runner, QWidget* parent = nullptr);

    // Asked before existing release files are replaced (default: a QMessageBox); false keeps
    // them and cancels the release.
    void setConfirmOverwrite(std::function<bool(const QStringList& existing)> confirm) {
        confirmOverwrite_ = std::move(confirm);
    }
    // Shows the result of a release (default: a QMessageBox). `ok` false: the error.
    void setReport(std::function<void(bool ok, const QString& text)> report) {
        report_ = std::move(report);
    }
    // Asked before a release creates a new ledger for a dataset that known ledgers (`others`,
    // one line each) have already charged (default: a QMessageBox); false releases nothing.
    // Called after a release was charged and published, with what it wrote and the request
    // (File ▸ Export decision report…, issue #22).
    void setOnReleased(
        std::function<void(const data::ReleaseOutcome&, const data::ReleaseRequest&)> done) {
        onReleased_ = std::move(done);
    }
    void setConfirmNewLedger(std::function<bool(const QStringList& others)> confirm) {
        confirmNewLedger_ = std::move(confirm);
    }
    // Uses the ledger at `path` (e.g. the one the window showed last).
    void setLedgerPath(const QString& path);
    void setOutputPath(const QString& path);

    // The request the dialog would run now (without loadTruth), or an error for a bad field.
    Expected<data::ReleaseRequest> request() const;
    bool previewPending() const;
    QString budgetText() const;    // the remaining-budget line
    QString gaussianText() const;  // σ², ρ and δ achieved (discrete Gaussian)
    // The intervals the release will state (issue #22): the sentences, or why none is stated.
    QString intervalText() const;
    // "ε chosen on: public proxy (uniform, N = 30 000)" or "… the confidential data …".
    QString chosenOnText() const;
    // A release through a strategy: the plan previewed (template, rounding, expected RMSE).
    QString strategyText() const;
    // The data declared a sample (issue #22): the sampling, DP-noise and combined half-widths the
    // release will state, previewed for a bin of half the sample (shown after the intervals'
    // sentences); or why none is stated; empty when not ticked.
    QString samplingText() const;
    // The sample box (tests fill it): ticked, N and D.
    void setSample(bool on, double population, double designEffect);
    QString statusText() const;  // the refusal, error or result line
    // The warning shown when the ledger would be new although known ledgers charged this dataset
    // (empty when there is none), and those ledgers' paths.
    QString newLedgerWarning() const;
    QStringList otherLedgers() const { return otherLedgers_; }
    bool canRelease() const;

public Q_SLOTS:
    // Checks the output files (asking before overwriting) and starts the release on the runner.
    void startRelease();
    void schedulePreview();
    // "Use the rest": fills ε with the largest decimal (6 significant digits, rounded down) the
    // ledger accepts for this release (data::spendableEpsilon, on the runner).
    void useTheRest();

Q_SIGNALS:
    void previewUpdated();
    // After a release: the ledger used, and whether the release succeeded.
    void releaseFinished(bool ok, const QString& ledgerPath);
    // A preview read an existing ledger file (intact or not): the one the user chose.
    void ledgerChosen(const QString& ledgerPath);
    // The ledger the dialog uses is an intact ledger of this dataset (a preview read it, or a
    // release charged it): the dataset's plan starts from it.
    void ledgerAccepted(const QString& ledgerPath);

protected:
    // While a release is being written the dialog stays open (its result is shown in it).
    void closeEvent(QCloseEvent* e) override;
    // Fits the height to the contents, now that they have their widths.
    void showEvent(QShowEvent* e) override;
    void reject() override;

private:
    void buildUi();
    void runPreview();
    // `otherPaths`: the known ledgers that charged this dataset although `ledgerPath` is new;
    // `otherLines` one line each ("a.json (3 releases): ε 0.2 of 1 left").
    void showPreview(const std::optional<data::ReleasePreview>& preview, const QString& error,
                     const QString& ledgerPath = {}, const QStringList& otherPaths = {},
                     const QStringList& otherLines = {});
    void updateEnabled();
    void showSampling(const std::optional<ReleaseSamplingStatement>& sampling,
                      const QString& error);
    void fitHeight();
    void browseOutput();
    void browseLedger();
    ReleaseMechanism mechanism() const;

    ReleaseContext ctx_;
    JobRunner* runner_;
    std::function<bool(const QStringList&)> confirmOverwrite_;
    std::function<void(bool, const QString&)> report_;
    std::function<bool(const QStringList&)> confirmNewLedger_;
    std::function<void(const data::ReleaseOutcome&, const data::ReleaseRequest&)> onReleased_;
    QComboBox* mechanism_ = nullptr;
    QLineEdit* epsilon_ = nullptr;
    QPushButton* useRest_ = nullptr;
    QLineEdit* delta_ = nullptr;
    QLabel* deltaLabel_ = nullptr;
    QSpinBox* groupSize_ = nullptr;
    QLabel* groupSizeLabel_ = nullptr;
    std::unique_ptr<FormRows> mechRows_;  // the Mechanism box's rows (see form_rows.h)
    QLabel* gaussian_ = nullptr;
    QComboBox* post_ = nullptr;
    QComboBox* confidence_ = nullptr;
    QCheckBox* postIntervals_ = nullptr;  // issue #22: intervals after resize / NoiseFirst
    QLabel* intervals_ = nullptr;
    QCheckBox* sample_ = nullptr;  // issue #22: the data are a sample of a population
    QDoubleSpinBox* sampleN_ = nullptr;
    QDoubleSpinBox* sampleD_ = nullptr;
    QString samplingSentence_, samplingTip_;  // shown after the intervals' sentences
    QLabel* chosenOn_ = nullptr;
    QLabel* strategy_ = nullptr;
    QScrollArea* scroll_ = nullptr;  // everything above the status line and the buttons
    // The plan of the last preview (its design does not depend on ε or the data, so the release
    // reuses it instead of designing again).
    std::shared_ptr<const StrategyReleasePlan> plan_;
    QLineEdit* output_ = nullptr;
    QLabel* metadataPath_ = nullptr;
    QLineEdit* ledger_ = nullptr;
    QLineEdit* budgetEpsilon_ = nullptr;
    QLineEdit* budgetDelta_ = nullptr;
    QComboBox* composition_ = nullptr;
    QLabel* budgetNote_ = nullptr;
    QLabel* budget_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* newLedgerWarning_ = nullptr;
    QPushButton* useOtherLedger_ = nullptr;
    QPushButton* release_ = nullptr;
    QTimer* previewTimer_ = nullptr;
    bool previewOk_ = false;
    bool previewPending_ = false;
    bool releasing_ = false;
    bool ledgerExists_ = false;
    QStringList existing_;
    // The ledger path the last preview ran with, and the known ledgers that charged this dataset
    // although that path is new.
    QString checkedLedger_;
    QStringList otherLedgers_;
    QStringList otherLedgerLines_;
};

// The File menu's "Release…" action, the button beside the panels and the status bar's ledger
// label: opens the dialog on the window's current data and shows what is left of the current
// dataset's ledger, re-read after every release and whenever the file changes.
class ReleaseController : public QObject {
    Q_OBJECT
public:
    // `context` gives the current ReleaseContext when the dialog opens.
    ReleaseController(std::function<ReleaseContext()> context, JobRunner* runner, QWidget* window);

    QAction* action() const { return action_; }
    ElidedLabel* ledgerLabel() const { return label_; }
    // The ledger shown: the one chosen, else the one found for the dataset ("" none).
    QString ledgerPath() const { return shownPath_.isEmpty() ? ledgerPath_ : shownPath_; }
    // The ledger chosen for the dataset's plan ("" : the ledger shown is found, or none).
    QString chosenLedger() const { return ledgerPath_; }
    // The dialog while it is open (tests fill it), else nullptr.
    ReleaseDialog* dialog() const { return dialog_; }
    // File ▸ Export decision report… of the last release made in this window (issue #22).
    DecisionReportExporter* reportExporter() const { return exporter_; }

    // Opens the dialog (non-modal) and returns it; `adjust` edits the context first (a release
    // through the Strategy tab's strategy). An open dialog is raised as it is.
    ReleaseDialog* open(const std::function<void(ReleaseContext&)>& adjust = {});
    // The dataset the window shows (its ledger description, ReleaseContext::dataset) and the
    // ledger chosen for its plan: "" shows the last known ledger that recorded this dataset, if
    // any. Re-reads the ledger.
    void setDataset(const QString& dataset, const QString& chosenLedger);
    // Shows the ledger at `path` (read on the runner).
    void setLedgerPath(const QString& path);
    void refreshLedger();

Q_SIGNALS:
    void ledgerShown(const QString& text);
    // After every read: the current dataset's ledger as the Budget tab uses it (path "" : none).
    void ledgerLoaded(const dpx::ui::PlanLedger& ledger);
    // The dialog used an intact ledger of the dataset (previewed or charged).
    void ledgerAccepted(const QString& path);

private:
    void watch(const QString& path);

    std::function<ReleaseContext()> context_;
    JobRunner* runner_;
    QWidget* window_;
    QAction* action_;
    ElidedLabel* label_;
    QString dataset_;
    QString ledgerPath_;  // chosen ("" : find one for the dataset)
    QString shownPath_;   // read last (chosen or found)
    QFileSystemWatcher* watcher_;
    QTimer* changed_;
    ReleaseDialog* dialog_ = nullptr;
    DecisionReportExporter* exporter_ = nullptr;
};

}  // namespace dpx::ui
