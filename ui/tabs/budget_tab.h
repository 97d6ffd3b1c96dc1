// The "Budget" tab (issues #6, #17): a release plan of several histograms sharing one total
// (ε, δ) (core/choosing/budget_plan.h, docs/risk-and-budget.md). The user sets the total and the
// composition (basic or zCDP), adds statistics (columns of the dataset), chooses each one's
// mechanism, bins and weight, and may hold a statistic's ε or its accuracy (PSI-style: type ±a and
// the statistic gets the smallest budget meeting it); the others re-split the rest by weight. The
// table shows each statistic's share and expected error, a bar chart the shares, and a summary
// line what the plan spends and what the same noise would cost under the other accountant.
// Below, the privacy profile δ(ε) of the whole plan's noise under the four accountants of
// core/accounting (basic, zCDP, Rényi DP, PLD with its upper and lower bound; issue #22) on a
// log δ axis, and a small table of each accountant's ε at the total δ and δ at the total ε. The
// profile is computed on the runner after the plan (slot of its own), so the table never waits.
//
// One truth for the budget: when the dataset has a privacy ledger (chosen here, in the Release
// dialog, or the last one used for the dataset), the plan starts from what that ledger has
// already spent — its total and composition are the ledger's, and "fits" means "fits what the
// ledger has left". Each statistic owns its bins (a new one never takes the main view's bin count
// of another column). The window keeps one plan per dataset (ui/model/explorer_state.h) and says
// when it swaps them.
//
// Invalid input shows an error and leaves the last valid plan in place. The allocation runs on
// the window's JobRunner, never on the GUI thread (a plan of 10 000 statistics must not freeze
// the window); edits made while it runs build on the newest request and stale results are
// dropped.
#pragma once

#include <QHash>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/accounting/plan_accounting.h"
#include "core/choosing/budget_plan.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QTableWidgetItem;
class QTimer;

namespace dpx::ui {

class JobRunner;

// The privacy ledger a plan starts from, as read from its file by the window (ReleaseController).
struct PlanLedger {
    QString path;        // "": no ledger for this dataset
    QString error;       // non-empty: not usable (unreadable, of another dataset); shown only
    bool found = false;  // found among the ledgers used before rather than chosen for the plan
    dpx::BudgetTotal total;
    dpx::Composition composition = dpx::Composition::Basic;
    QString totalEpsilon, totalDelta;  // as the ledger records them
    std::vector<dpx::BudgetCharge> charges;
    // PLD ledgers: each charge's privacy loss, the grid interval and the recorded excess ε
    // (io/release/privacy_ledger.h), with which a plan composes under PLD.
    std::vector<dpx::accounting::AccountedMechanism> losses;
    double pldInterval = 1e-4;
    double pldExcess = 0;
    dpx::BudgetUsage usage;
    bool usable() const { return !path.isEmpty() && error.isEmpty(); }
};

// Bins of a new statistic whose column the main view has not binned yet.
inline constexpr int kDefaultStatisticBins = 10;

class BudgetTab : public QWidget {
    Q_OBJECT
public:
    // Table columns.
    enum Column {
        ColStatistic,
        ColBins,
        ColMechanism,
        ColWeight,
        ColHold,
        ColEpsilon,
        ColDelta,
        ColRho,
        ColNoise,
        ColHalfWidth,
        ColL1,
        ColSamplingRate,  // Poisson sampling rate q (issue #22), used by the accountants
        ColumnCount
    };

    // Plans are computed on `runner` (the window's).
    explicit BudgetTab(JobRunner* runner, QWidget* parent = nullptr);
    ~BudgetTab() override;

    // The current dataset: its columns (for "Add statistic"), the column and bin count shown in the
    // main view, the number of records N (≤ 0: unknown) and the sensitivities Δ1, Δ2 of one
    // record. An empty plan starts with one row for `currentColumn` with its bins. Rows are kept
    // when the same columns come again (each keeps its own bins); rows whose column vanished are
    // dropped. The bin count is remembered for the column: a statistic added later for it starts
    // there, one for a column never shown starts at kDefaultStatisticBins.
    void setDataset(const QStringList& columns, const QString& currentColumn, int currentBins,
                    double totalRecords, double l1Sensitivity, double l2Sensitivity);
    // The total budget (from the document); also shown in the editable total fields.
    void setTotal(double epsilon, double delta);
    void setComposition(dpx::Composition composition);
    // Shows `plan` (the document's, after an undo, a loaded session or a change of dataset) with
    // the dataset's sensitivities and N filled in; if it does not compute, its rows are shown with
    // the error. `datasetKey` (ui/model/explorer_state.h budgetDatasetKey) names the dataset the
    // plan belongs to: when it differs from the previous one, a line above the table says that the
    // plan of `datasetTitle` is shown (restored, or new and empty) until the next edit.
    void setPlan(const dpx::BudgetPlan& plan, const QString& datasetKey = {},
                 const QString& datasetTitle = {});
    QString planDataset() const { return planDataset_; }
    // The dataset's ledger (or none): a usable one fixes the total and composition and the plan
    // starts from its releases.
    void setLedger(const PlanLedger& ledger);
    const PlanLedger& ledger() const { return ledger_; }
    // Adds a row for `column` (its own bins, see setDataset) as the "Add statistic" button does,
    // and removes row `row` as "Remove" does.
    void addStatistic(const QString& column);
    void removeStatistic(int row);

    // The plan as shown (the last valid one) and its allocation (nullopt: no statistics).
    const dpx::BudgetPlan& plan() const { return plan_; }
    const std::optional<dpx::PlanResult>& result() const { return result_; }
    // True while a plan is being computed (what is shown is the previous one).
    bool busy() const { return pending_.has_value(); }
    QString summaryText() const;
    QString errorText() const;  // empty when the last input was valid
    QString noteText() const;
    QString ledgerText() const;

    // The plan table as CSV (header row, one row per statistic, full precision).
    QString toCsv() const;
    QCustomPlot* plot() const { return chart_; }
    QTableWidget* table() const { return table_; }
    // The privacy profile of the plan shown (nullopt while computing, with no plan, or when it
    // failed: profileText() says why) and its plot and table.
    const std::optional<dpx::accounting::PlanProfile>& profile() const { return profile_; }
    QString profileText() const;
    QCustomPlot* profilePlot() const { return profilePlot_; }
    // True while the profile of the plan shown is being computed.
    bool profileBusy() const { return profilePending_; }
    QTableWidget* accountantTable() const { return accountants_; }
    // Plans with more statistics than this get no profile (a note says so).
    static constexpr std::size_t kMaxProfileStatistics = 5000;

public Q_SLOTS:
    // As the "Ledger…" button after a file was picked: asks the window to use that ledger.
    void chooseLedger(const QString& path);

Q_SIGNALS:
    // A new valid plan is shown after the user's edit (not after setPlan, setDataset, setLedger).
    void planChanged();
    // The user chose a ledger file for the plan.
    void ledgerChosen(const QString& path);
    // A plan computation finished (shown or refused).
    void planComputed();
    // The privacy profile of the plan shown finished (shown or failed).
    void profileComputed();

protected:
    void changeEvent(QEvent* event) override;
    // Rows as tall as two lines of the current font (the expected L1 and noise cells).
    void fitRowHeight();

private:
    // Where a candidate plan comes from: a user edit (refused: the previous plan stays), the
    // total fields (refused: the typed text stays, marked), or the document/data/ledger (refused:
    // its rows are shown with the error).
    enum class Origin { Edit, Totals, Sync };
    // Starts computing `candidate` (with the ledger's total, composition and releases when a
    // usable ledger is set); on success it becomes the plan, else the error is shown.
    void apply(dpx::BudgetPlan candidate, Origin origin, bool epsChanged = false,
               bool deltaChanged = false);
    void finish(const dpx::BudgetPlan& candidate, const std::optional<dpx::PlanResult>& result,
                const QString& error, Origin origin, bool epsChanged, bool deltaChanged);
    // The plan the next edit builds on: the one being computed, else the one shown.
    const dpx::BudgetPlan& base() const { return pending_ ? *pending_ : plan_; }
    void showError(const QString& message);
    void rebuildRows();
    void refresh();
    void refreshLedgerLine();
    void drawChart();
    void computeProfile();
    void drawProfile();
    void fitAccountantsWidth();
    void applyTotalFields();
    void onItemChanged(QTableWidgetItem* item);
    void setFieldInvalid(QLineEdit* field, bool invalid);
    void browseLedger();

    QPointer<JobRunner> runner_;
    QString slot_;
    dpx::BudgetPlan plan_;
    std::optional<dpx::PlanResult> result_;
    std::optional<dpx::BudgetPlan> pending_;
    PlanLedger ledger_;
    QString planDataset_;
    QStringList columns_;
    QString currentColumn_;
    QHash<QString, int> binsByColumn_;
    std::optional<double> records_;
    double l1_ = 1;
    double l2_ = 1;
    bool updating_ = false;

    QLineEdit* totalEpsilon_;
    QLineEdit* totalDelta_;
    QComboBox* composition_;
    QComboBox* addColumn_;
    QPushButton* add_;
    QPushButton* remove_;
    QTableWidget* table_;
    QLabel* note_;
    QLabel* ledgerLine_;
    QPushButton* chooseLedger_;
    QLabel* summary_;
    QLabel* error_;
    QTimer* busyTimer_;
    QCustomPlot* chart_;
    QString profileSlot_;
    std::optional<dpx::accounting::PlanProfile> profile_;
    bool profilePending_ = false;
    QCustomPlot* profilePlot_;
    QTableWidget* accountants_;
    QLabel* profileNote_;
};

}  // namespace dpx::ui
