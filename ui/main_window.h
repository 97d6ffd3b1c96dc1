// The DP Explorer window: data and mechanism panels on the left; tabs "Histogram", "Mechanism
// matrix", "Errors", "Risk", "Trade-off", "Budget", "Local DP experiment", "More mechanisms" and
// "Table" in the centre; long computations with progress and a cancel button in the
// status bar. Every control changes the ExplorerDocument; the ExplorerEngine recomputes on worker
// threads; this class only routes results to the views and draws.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include "core/base/expected.h"
#include "ui/model/computations.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QCustomPlot;

namespace dpx::ui {

class BudgetTab;
class DataPanel;
class ErrorsTab;
class ExplorerDocument;
class ExplorerEngine;
class HistogramTab;
class LdpExperimentTab;
class LdpExperimentPage;
class MatrixTab;
class MechanismPanel;
class MoreMechanismsTab;
class ReleaseController;
class RiskTab;
class TableTab;
class TradeoffTab;
class StrategyTab;
class WorkbenchTab;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // The application's light or dark look (Fusion style and palette), for every window of the
    // application: the main window and the lessons opened on their own (--lesson).
    static void applyApplicationTheme(bool dark);
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ExplorerDocument* document() const { return doc_; }
    ExplorerEngine* engine() const { return engine_; }
    HistogramTab* histogramView() const { return histogram_; }
    MatrixTab* matrixView() const { return matrix_; }
    ErrorsTab* errorsView() const { return errors_; }
    RiskTab* riskView() const { return risk_; }
    TradeoffTab* tradeoffView() const { return tradeoff_; }
    LdpExperimentPage* ldpExperimentPage() const;
    LdpExperimentTab* ldpExperimentTab() const { return ldpTab_; }
    BudgetTab* budgetView() const { return budget_; }
    MoreMechanismsTab* moreMechanismsTab() const { return moreTab_; }
    // The Table tab; the window hands it a table and its release with TableTab::setInputs.
    TableTab* tableView() const { return table_; }
    // The Workbench tab (issue #20): the DPBench algorithms on the window's table.
    WorkbenchTab* workbenchView() const { return workbench_; }
    // The Strategy tab (issue #23): the strategy designer (HDMM).
    StrategyTab* strategyView() const { return strategy_; }
    MechanismPanel* mechanismPanel() const { return mechanismPanel_; }
    DataPanel* dataPanel() const { return dataPanel_; }
    // File → Release histogram…, its button and the status bar's ledger label.
    ReleaseController* releaseController() const { return releaseCtl_; }
    QTabWidget* tabs() const { return tabs_; }

    Status openCsv(const QString& path);
    Status openSqlite(const QString& path);
    Status openSession(const QString& path);
    // Shows the tab "histogram", "matrix", "errors", "risk", "tradeoff", "budget", "table" or
    // "workbench" or "strategy".
    bool showTab(const QString& name);
    // Saves the whole window as PNG once every computation (including the quick Monte Carlo
    // pass) has been drawn, then emits screenshotSaved.
    void saveScreenshotWhenReady(const QString& path);
    // The plot on the current tab (for export), or nullptr.
    QCustomPlot* currentPlot() const;

Q_SIGNALS:
    void screenshotSaved(const QString& path, bool ok);
    void releaseShown();

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void buildMenus();
    void buildStatusBar();
    void showComputing(const QString& what);
    void showRelease(const ReleaseResult& r);
    void showErrors();
    void redrawViews();
    void updateRisk();
    // Hands the Table tab the loaded table and the release of its cells (or clears it).
    void updateTableView(const ReleaseResult& r);
    void updateTradeoff();
    void updateBudgetDataset();
    void updateMoreMechanisms();
    void syncBudgetFromDocument();
    void applyTheme(bool dark);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void exportPlot();
    void exportTable();
    void chooseCsv();
    void chooseSqlite();
    void connectPostgres();
    void openSessionDialog();
    void saveSessionDialog();
    void showGlossary();
    void tryScreenshot();
    QString xTitle() const;

    ExplorerDocument* doc_;
    ExplorerEngine* engine_;
    DataPanel* dataPanel_;
    MechanismPanel* mechanismPanel_;
    HistogramTab* histogram_;
    MatrixTab* matrix_;
    ErrorsTab* errors_;
    RiskTab* risk_;
    TradeoffTab* tradeoff_;
    LdpExperimentTab* ldpTab_;
    MoreMechanismsTab* moreTab_;
    TableTab* table_;
    WorkbenchTab* workbench_;
    StrategyTab* strategy_;
    BudgetTab* budget_;
    ReleaseController* releaseCtl_ = nullptr;
    bool syncingBudget_ = false;  // the view is being set from the document or the data
    QTabWidget* tabs_;
    QLabel* statusText_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QMenu* recentMenu_ = nullptr;
    QAction* overlayAction_ = nullptr;
    QAction* logAction_ = nullptr;
    QAction* darkAction_ = nullptr;
    QString screenshotPath_;
    bool releaseDrawn_ = false;
    bool mcDrawn_ = false;
    bool appliedDark_ = false;
    // The histogram and errors views show an error of the last result, or (pending) the text of
    // the computation that replaced it; pendingWhat_: what is being computed.
    bool viewsShowError_ = false;
    bool viewsShowPending_ = false;
    QString pendingWhat_;
};

}  // namespace dpx::ui
