// The "Budget" tab (issue #6): a release plan of several histograms sharing one total (ε, δ)
// (core/budget_plan.h, docs/risk-and-budget.md). The user sets the total and the composition
// (basic or zCDP), adds statistics (columns of the dataset), chooses each one's mechanism, bins and
// weight, and may hold a statistic's ε or its accuracy (PSI-style: type ±a and the statistic gets
// the smallest budget meeting it); the others re-split the rest by weight. The table shows each
// statistic's share and expected error, a bar chart the shares, and a summary line what the plan
// spends and what the same noise would cost under the other accountant. Invalid input shows an
// error and leaves the last valid plan in place. Closed forms: computed on the GUI thread.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>

#include "core/budget_plan.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QTableWidgetItem;

namespace dpx::ui {

class BudgetView : public QWidget {
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
        ColumnCount
    };

    explicit BudgetView(QWidget* parent = nullptr);
    ~BudgetView() override;

    // The current dataset: its columns (for "Add statistic"), the column and bin count shown in the
    // main view, the number of records N (≤ 0: unknown) and the sensitivities Δ1, Δ2 of one
    // record. An empty plan starts with one row for `currentColumn`. Rows are kept when the same
    // columns come again; rows whose column vanished are dropped.
    void setDataset(const QStringList& columns, const QString& currentColumn, int currentBins,
                    double totalRecords, double l1Sensitivity, double l2Sensitivity);
    // The total budget (from the document); also shown in the editable total fields.
    void setTotal(double epsilon, double delta);
    void setComposition(dpx::Composition composition);
    // Shows `plan` (the document's, after an undo or a loaded session) with the dataset's
    // sensitivities and N filled in; if it does not compute, its rows are shown with the error.
    void setPlan(const dpx::BudgetPlan& plan);
    // Adds a row for `column` (bins = the current bins) as the "Add statistic" button does, and
    // removes row `row` as "Remove" does.
    void addStatistic(const QString& column);
    void removeStatistic(int row);

    // The plan as shown (the last valid one) and its allocation (nullopt: no statistics).
    const dpx::BudgetPlan& plan() const { return plan_; }
    const std::optional<dpx::PlanResult>& result() const { return result_; }
    QString summaryText() const;
    QString errorText() const;  // empty when the last input was valid

    // The plan table as CSV (header row, one row per statistic, full precision).
    QString toCsv() const;
    QCustomPlot* plot() const { return chart_; }
    QTableWidget* table() const { return table_; }

Q_SIGNALS:
    // A new valid plan is shown.
    void planChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    // Computes `candidate`; on success it becomes the plan, else the error is shown and the
    // previous plan stays. The widgets are refreshed from the plan either way.
    bool apply(const dpx::BudgetPlan& candidate);
    void showError(const QString& message);
    void rebuildRows();
    void refresh();
    void drawChart();
    void applyTotalFields();
    void onItemChanged(QTableWidgetItem* item);
    void setFieldInvalid(QLineEdit* field, bool invalid);

    dpx::BudgetPlan plan_;
    std::optional<dpx::PlanResult> result_;
    QStringList columns_;
    int currentBins_ = 10;
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
    QLabel* summary_;
    QLabel* error_;
    QCustomPlot* chart_;
};

}  // namespace dpx::ui
