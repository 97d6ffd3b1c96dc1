// The DP Explorer window: data and mechanism panels on the left; tabs "Histogram", "Mechanism
// matrix", "Errors", "Risk", "Trade-off", "Budget", "Local DP experiment", "More mechanisms" and
// "Table" in the centre; long computations with progress and a cancel button in the
// status bar. Every control changes the ExplorerDocument; the ExplorerEngine recomputes on worker
// threads; this class only routes results to the views and draws.
#pragma once

#include <QFont>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include "core/base/expected.h"
#include "ui/model/computations.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QScrollArea;
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
class PresentationView;
class WhatLine;
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
    // Keeps the window inside its screen's available geometry: smaller if it does not fit, moved
    // inside if it is partly off screen (the saved geometry of a larger screen, say).
    void fitToScreen();
    // The data and mechanism panel on the left (View ▸ Show data and mechanism panel).
    void setSidePanelShown(bool shown);
    bool sidePanelShown() const;
    // View ▸ Zoom: widget fonts and plot texts scaled together (1 = the system's size); kept in
    // the settings (not in sessions). zoomIn/zoomOut step through the levels.
    double zoom() const { return zoom_; }
    void setZoom(double zoom);
    void zoomIn();
    void zoomOut();
    // View ▸ Presentation mode (F5): the current tab's plot on a screen of its own (full screen,
    // or `size` when valid), or back.
    void setPresenting(bool on, QSize size = {});
    PresentationView* presentation() const;
    // "What am I looking at" over the tabs: its one line for the current tab.
    WhatLine* whatLine() const { return whatLine_; }

Q_SIGNALS:
    void screenshotSaved(const QString& path, bool ok);
    void releaseShown();

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;

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
    void updateWhatLine();
    // The presentation shows the current tab's plot: a tab shows its plot once computed (the
    // Mechanism matrix tab shows a message before), after the presentation opened.
    void syncPresentation();

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
    QAction* sideAction_ = nullptr;
    QAction* presentAction_ = nullptr;
    QAction* fullScreenAction_ = nullptr;
    WhatLine* whatLine_ = nullptr;
    QPointer<PresentationView> presentation_;
    double zoom_ = 1;
    QFont baseFont_;  // the application font at zoom 1
    QScrollArea* sidePanel_ = nullptr;
    // The side panel's width is chosen for the window's size on its first show (placeSidePanel).
    void placeSidePanel();
    bool splitRestored_ = false;
    bool sidePanelPlaced_ = false;
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
