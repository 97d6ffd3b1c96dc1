#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTimer>
#include <QToolTip>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <utility>

#include "ui/lessons/glossary.h"
#include "ui/lessons/lessons.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/panels/data_panel.h"
#include "ui/panels/mechanism_panel.h"
#include "ui/panels/pg_dialog.h"
#include "ui/release/decision_report_exporter.h"
#include "ui/release/known_ledgers.h"
#include "ui/release/release_dialog.h"
#include "ui/tabs/budget_tab.h"
#include "ui/tabs/errors_tab.h"
#include "ui/tabs/histogram_tab.h"
#include "ui/tabs/ldp/ldp_experiment_page.h"
#include "ui/tabs/ldp/ldp_experiment_tab.h"
#include "ui/tabs/matrix/matrix_tab.h"
#include "ui/tabs/more/more_mechanisms_tab.h"
#include "ui/tabs/risk_tab.h"
#include "ui/tabs/strategy/strategy_tab.h"
#include "ui/tabs/table/table_tab.h"
#include "ui/tabs/tradeoff_tab.h"
#include "ui/tabs/workbench/workbench_tab.h"
#include "ui/widgets/elided_label.h"
#include "ui/widgets/page.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/presentation_view.h"
#include "ui/widgets/qcustomplot_include.h"
#include "ui/widgets/side_panel_width.h"
#include "ui/widgets/theme_style.h"
#include "ui/widgets/what_line.h"

void dpxInitResources();  // resources/dpx_resources.cpp

namespace dpx::ui {

namespace {
const QString kTabIds[] = {
    QStringLiteral("histogram"),      QStringLiteral("matrix"),     QStringLiteral("errors"),
    QStringLiteral("risk"),           QStringLiteral("tradeoff"),   QStringLiteral("budget"),
    QStringLiteral("ldp-experiment"), QStringLiteral("mechanisms"), QStringLiteral("table"),
    QStringLiteral("workbench"),      QStringLiteral("strategy")};
constexpr int kTabCount = static_cast<int>(std::size(kTabIds));
constexpr int kMaxRecent = 8;
// The narrowest the data and mechanism panel can be dragged (it scrolls below its own width).
constexpr int kSideMinimum = 160;
// The narrowest a tab's plot is allowed to be (makeScrollable).
constexpr int kPlotMinimumWidth = 320;

// "What am I looking at", per tab (kTabIds' order): one plain line, then a short paragraph.
struct WhatText {
    const char* line;
    const char* paragraph;
};
const WhatText kWhatTexts[] = {
    {QT_TRANSLATE_NOOP("MainWindow",
                       "The true histogram of your data and one simulated noisy release of it, "
                       "with the range that holds each noisy bin at the chosen level."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "The bars are the true counts per bin. The noisy values are one seeded draw of the "
         "mechanism chosen on the left (a simulation to explore, not a release), post-processed by "
         "the chosen estimator. The Laplace mechanism (Dwork, McSherry, Nissim &amp; Smith 2006) "
         "adds noise of scale Δ₁/ε to every bin: halve ε and the noise doubles. A release is made "
         "only with File ▸ Release histogram.")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "The mechanism itself: for a count, the probability of each output given "
                       "each true count; for a histogram, the law of the noise added to a bin."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "A count mechanism over n people is a matrix P[i][j] = Pr[output i | true count j]; it is "
         "ε-DP exactly when neighbouring columns differ by at most a factor e<sup>ε</sup> row by "
         "row. The truncated geometric mechanism is that of Ghosh, Roughgarden &amp; Sundararajan "
         "2009; the optimal mechanism solves a linear program for the chosen objective. For "
         "histogram mechanisms the tab draws the noise distribution instead (Laplace, geometric "
         "or Gaussian; Dwork &amp; Roth 2014).")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "How far the noisy histogram is from the truth, realized in this draw and "
                       "expected over all draws, for every estimator and error measure."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "Rows are the estimators (identity, clamp, resize, NoiseFirst), columns the errors (SSE, "
         "L1, L∞, Wasserstein-1). Expected errors are exact where a closed form or numerical "
         "integration exists, otherwise Monte Carlo with a 95% interval. On Kerrigan's (2019) two "
         "bins [0, 16] at ε = 0.1 clamping beats the raw counts: post-processing changes accuracy, "
         "never privacy.")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "What ε and δ mean for one person: how sure an attacker can become that "
                       "they are in the data, and which membership tests are possible."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "Left: the largest posterior belief an attacker can reach from any prior p (the Bayesian "
         "reading of Kasiviswanathan &amp; Smith 2014), and the same against ε. Right: every "
         "membership test has a false-positive rate α and a false-negative rate β; under (ε, "
         "δ)-DP no test reaches the shaded region (Kairouz, Oh &amp; Viswanath 2015).")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "Expected error against ε (or the population size) for several mechanisms "
                       "and estimators: the price of privacy, and the smallest ε that meets a "
                       "target."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "Each curve is one mechanism with one estimator; lower is better. The frontier marks the "
         "best choice at each ε. Set an accuracy target to read off the smallest ε that meets it. "
         "Errors are exact where a closed form exists (Kerrigan 2019 for clamp and resize on "
         "small histograms), otherwise Monte Carlo.")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "One total privacy budget (ε, δ) split across several histograms, and the "
                       "expected error each one gets."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "Budgets add up: basic composition sums the ε's (Dwork &amp; Roth 2014); "
         "zero-concentrated "
         "DP adds ρ's and converts back, which is tighter for many Gaussian releases (Bun &amp; "
         "Steinke 2016). The plot shows each histogram's share and its expected error.")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "Local DP: each user randomizes their own answer before sending it; the "
                       "error of the collected histogram against the number of users and ε."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "The telemetry study of Ding, Kulkarni &amp; Yekhanin 2017: n users each report through a "
         "local protocol (randomized response goes back to Warner 1965); the server estimates the "
         "histogram from the reports. Local noise is far larger than central noise: the error "
         "falls only as 1/√n.")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "More mechanisms on your data: sparse histograms, random DP, the "
                       "exponential mechanism, vector means and a private density estimate."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "The pages follow Hall 2012 and the primer of Kamath &amp; Ullman: each draws what the "
         "mechanism releases next to the truth, with its guarantee and expected error, at the "
         "window's ε and δ.")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "A table of several attributes: true, noisy, estimated and error heatmaps "
                       "of two attributes, box queries and the errors of every marginal."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "Each cell of the joint table gets its own noise; a box query sums cells, so its noise "
         "grows with the box. The exact expected error of a box follows from the cells' noise law "
         "(Dwork &amp; Roth 2014).")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "The DPBench algorithms compared on your 1-D or 2-D table: error against "
                       "ε, against the data's scale, and each algorithm's output."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "The benchmark of Hay et al. 2016: data-independent algorithms (Identity, hierarchies, "
         "Privelet) against data-dependent ones (DAWA, AHP, MWEM, …) that spend part of ε "
         "learning the data's shape. Which is best depends on ε and on the scale m.")},
    {QT_TRANSLATE_NOOP("MainWindow",
                       "A measurement strategy designed for a workload of queries, with its exact "
                       "error against ε before any data is used."),
     QT_TRANSLATE_NOOP(
         "MainWindow",
         "The matrix mechanism (Li, Miklau, Hay, McGregor &amp; Rastogi 2015) measures other "
         "queries A·x with noise and answers the workload by least squares; its error depends on "
         "the workload and A only. HDMM (McKenna, Miklau, Hay &amp; Machanavajjhala 2018) chooses "
         "A by optimisation. The curves compare it with Identity, HB and Privelet; the "
         "simulation on your table is not a release.")},
};
static_assert(std::size(kWhatTexts) == std::size(kTabIds));

// The tab's contents in a scroll area inside the tab: on a small screen a tab scrolls rather than
// being squeezed below its minimum size (widgets drawn over each other, cut text). The tab stays
// the page (tabs()->widget(i) is the view); its layout and child widgets move into the scrolled
// widget (QWidget::setLayout takes a layout from its widget together with the widgets it manages).
void makeScrollable(QWidget* tab, const QString& name) {
    QLayout* contentsLayout = tab->layout();
    if (!contentsLayout) {
        return;
    }
    auto* contents = new QWidget;
    contents->setObjectName(name + QStringLiteral("TabContents"));
    contents->setLayout(contentsLayout);
    // Widgets placed by hand (not in the layout) move too; the window is not shown yet, so each
    // shows with its new parent unless it was hidden on purpose (setParent keeps that).
    for (QWidget* child : tab->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
        if (!child->isWindow()) {
            child->setParent(contents);
        }
    }
    // Plots narrower than their pages asked still read at 320 px, and then a page fits beside
    // its controls on a 1024 × 768 screen. A plot that does not read that narrow (four small
    // panels side by side: the Random DP page's ticks ran into each other and its titles were
    // cut at 330 px, session 33) keeps its width, and its page puts the controls under it.
    for (QCustomPlot* plot : contents->findChildren<QCustomPlot*>()) {
        if (plot->minimumWidth() > kPlotMinimumWidth &&
            !plot->property(kKeepsMinimumWidth).toBool()) {
            plot->setMinimumWidth(kPlotMinimumWidth);
        }
    }
    // A box whose longest choice is a sentence would set the page's width: it shows what fits
    // (all of it when opened).
    for (QComboBox* box : contents->findChildren<QComboBox*>()) {
        if (box->minimumSizeHint().width() > 280) {
            box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
            box->setMinimumContentsLength(20);
        }
    }
    // A panel of the tab that scrolls vertically only is as wide as its controls need (at any
    // zoom), not the width chosen for one font: else it cuts them with no scroll bar to reach them.
    for (QScrollArea* panel : contents->findChildren<QScrollArea*>()) {
        if (panel->horizontalScrollBarPolicy() == Qt::ScrollBarAlwaysOff &&
            panel->widgetResizable()) {
            followContentsWidth(panel);
        }
    }
    auto* scroll = new QScrollArea;
    scroll->setObjectName(name + QStringLiteral("TabScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(contents);
    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
}

// The zoom levels of View ▸ Zoom in / Zoom out.
constexpr std::array<double, 11> kZoomLevels = {0.7, 0.8, 0.9, 1.0, 1.1, 1.25,
                                                1.4, 1.6, 1.8, 2.0, 2.5};

// SVG through Qt Svg: QCustomPlot draws into any QPaintDevice with its own painter.
bool exportPlotSvg(QCustomPlot* plot, const QString& path) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(plot->size());
    svg.setViewBox(QRect(QPoint(0, 0), plot->size()));
    svg.setTitle(QStringLiteral("DP Explorer plot"));
    QCPPainter painter;
    if (!painter.begin(&svg)) {
        return false;
    }
    plot->toPainter(&painter, plot->width(), plot->height());
    return painter.end();
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    dpxInitResources();
    setWindowTitle(tr("DP Explorer"));
    setWindowIcon(QIcon(QStringLiteral(":/dpx/icons/dpexplorer.svg")));
    doc_ = new ExplorerDocument(this);
    engine_ = new ExplorerEngine(doc_, this);

    dataPanel_ = new DataPanel(doc_);
    mechanismPanel_ = new MechanismPanel(doc_);
    auto* dataBox = new QGroupBox(tr("Data"));
    (new QVBoxLayout(dataBox))->addWidget(dataPanel_);
    auto* mechBox = new QGroupBox(tr("Mechanism"));
    (new QVBoxLayout(mechBox))->addWidget(mechanismPanel_);
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addWidget(dataBox);
    sideLayout->addWidget(mechBox);
    releaseCtl_ = new ReleaseController(
        [this] { return releaseContextOf(doc_->state(), engine_->dataset()); }, engine_->runner(),
        this);
    auto* releaseButton = new QPushButton(tr("Release…"));
    releaseButton->setObjectName(QStringLiteral("releaseButtonSide"));
    releaseButton->setToolTip(releaseCtl_->action()->toolTip());
    connect(releaseButton, &QPushButton::clicked, releaseCtl_->action(), &QAction::trigger);
    sideLayout->addWidget(releaseButton);
    sideLayout->addStretch(1);
    // Long choices (dataset titles, calibrations) do not set the panel's width: the boxes show
    // what fits and the full text when opened.
    // A box that asked to be as wide as its contents (short choices: the CSV options, the
    // column's type) keeps that: at ten characters "Stop at a bad row" lost its last letter.
    for (QComboBox* box : side->findChildren<QComboBox*>()) {
        if (box->sizeAdjustPolicy() == QComboBox::AdjustToContents) {
            continue;
        }
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(10);
    }
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("sidePanel"));
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    // The panels scroll vertically rather than force their height on a small screen; the splitter
    // can narrow the side panel to what its controls need (or collapse it), and View ▸ Show data
    // and mechanism panel hides it.
    scroll->setMinimumWidth(kSideMinimum);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    // Never narrower than its controls need (a field that does not fit beside its label goes
    // under it): narrower, it scrolled sideways and cut them at its right edge.
    followContentsWidth(scroll);
    sidePanel_ = scroll;

    histogram_ = new HistogramTab;
    matrix_ = new MatrixTab;
    errors_ = new ErrorsTab;
    risk_ = new RiskTab;
    tradeoff_ = new TradeoffTab(engine_->runner());
    budget_ = new BudgetTab(engine_->runner());
    ldpTab_ = new LdpExperimentTab(engine_->runner());
    moreTab_ = new MoreMechanismsTab(engine_->runner());
    table_ = new TableTab;
    workbench_ = new WorkbenchTab(engine_->runner());
    strategy_ = new StrategyTab(engine_->runner());
    {
        int i = 0;
        for (QWidget* tab : std::initializer_list<QWidget*>{histogram_, matrix_, errors_, risk_,
                                                            tradeoff_, budget_, ldpTab_, moreTab_,
                                                            table_, workbench_, strategy_}) {
            makeScrollable(tab, kTabIds[i++]);
        }
    }
    tabs_ = new QTabWidget;
    tabs_->setObjectName(QStringLiteral("tabs"));
    tabs_->addTab(histogram_, tr("&Histogram"));
    tabs_->addTab(matrix_, tr("Mechanism &matrix"));
    tabs_->addTab(errors_, tr("&Errors"));
    tabs_->addTab(risk_, tr("&Risk"));
    tabs_->addTab(tradeoff_, tr("&Trade-off"));
    tabs_->addTab(budget_, tr("&Budget"));
    tabs_->addTab(ldpTab_, tr("&Local DP experiment"));
    tabs_->addTab(moreTab_, tr("More mechan&isms"));
    tabs_->addTab(table_, tr("Ta&ble"));
    tabs_->addTab(workbench_, tr("&Workbench"));
    tabs_->addTab(strategy_, tr("Strate&gy"));
    tabs_->setTabToolTip(0, tr("True and noisy histograms with the 95% range of each noisy bin"));
    tabs_->setTabToolTip(1, tr("The mechanism as a table of probabilities (count mechanisms), or "
                               "the noise added to each bin"));
    tabs_->setTabToolTip(2, tr("Realized and expected errors of every estimator"));
    tabs_->setTabToolTip(3, tr("What ε and δ mean for a person in the data: how sure an attacker "
                               "can become, and which membership tests are possible"));
    tabs_->setTabToolTip(4, tr("Expected error against ε (or population size) for several "
                               "mechanisms and estimators, the frontier, and the smallest ε "
                               "meeting an accuracy target"));
    tabs_->setTabToolTip(5, tr("Split one total (ε, δ) across several histograms, with basic or "
                               "zCDP composition, and see each one's expected error"));
    tabs_->setTabToolTip(6, tr("Local protocols run by n users, as in the telemetry study of Ding, "
                               "Kulkarni & Yekhanin 2017: histogram error and Wasserstein "
                               "distance against n and ε"));
    tabs_->setTabToolTip(7, tr("From Hall 2012 and the Kamath & Ullman primer: sparse histograms, "
                               "random DP, the exponential mechanism, vector means and a private "
                               "density estimate (KDE)"));
    tabs_->setTabToolTip(8, tr("A table of several attributes: true, noisy, estimate and error "
                               "heatmaps of two attributes, box queries with their exact expected "
                               "error, and the errors of every 1- and 2-way marginal"));
    tabs_->setTabToolTip(9, tr("The DPBench algorithms (Hay et al. 2016) compared on your 1-D or "
                               "2-D table or a built-in shape: error against ε with the frontier, "
                               "against the scale m, and against m·ε; each algorithm's output"));
    tabs_->setTabToolTip(10, tr("The strategy designer (matrix mechanism, HDMM: McKenna, Miklau, "
                                "Hay & Machanavajjhala 2018): optimise a measurement strategy for "
                                "a workload and see its exact error against ε before any data"));

    // Over the tabs, the one line saying what the current tab shows (unfolds to a paragraph).
    whatLine_ = new WhatLine;
    auto* centre = new QWidget;
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(2);
    centreLayout->addWidget(whatLine_);
    centreLayout->addWidget(tabs_, 1);

    auto* split = new QSplitter;
    split->setObjectName(QStringLiteral("mainSplitter"));
    split->addWidget(scroll);
    split->addWidget(centre);
    split->setStretchFactor(1, 1);
    // The side panel collapses when dragged to the edge; the tabs never do.
    split->setCollapsible(0, true);
    split->setCollapsible(1, false);
    setCentralWidget(split);

    buildMenus();
    buildStatusBar();

    connect(engine_, &ExplorerEngine::datasetReady, this, [this](const DatasetResult& r) {
        dataPanel_->showDataset(r);
        if (!r.error.isEmpty()) {
            histogram_->setMessage(r.error);
            matrix_->setMessage(r.error);
            errors_->setMessage(r.error);
            viewsShowError_ = true;
            viewsShowPending_ = false;
        }
        updateTradeoff();
        updateBudgetDataset();
        updateMoreMechanisms();
        workbench_->setWindowTable(
            r.error.isEmpty() ? r.jointTable : nullptr,
            r.attributeColumns.size() > 1
                ? tr("columns %1").arg(r.attributeColumns.join(QStringLiteral(" × ")))
                : tr("column '%1'").arg(r.column));
        strategy_->setWindowTable(
            r.error.isEmpty() ? r.jointTable : nullptr,
            r.attributeColumns.size() > 1
                ? tr("columns %1").arg(r.attributeColumns.join(QStringLiteral(" × ")))
                : tr("column '%1'").arg(r.column));
    });
    connect(engine_, &ExplorerEngine::releaseReady, this, &MainWindow::showRelease);
    connect(doc_, &ExplorerDocument::tableChanged, this, [this] {
        if (!doc_->table())
            table_->clearInputs();
    });
    connect(engine_, &ExplorerEngine::monteCarloReady, this, [this](const MonteCarloErrors&, bool) {
        showErrors();
        mcDrawn_ = true;
        tryScreenshot();
    });
    connect(engine_, &ExplorerEngine::computing, this, &MainWindow::showComputing);
    connect(doc_, &ExplorerDocument::changed, this, [this](unsigned flags, const ExplorerState& s) {
        if (flags & ViewChanged) {
            if (s.view.dark != appliedDark_) {
                applyTheme(s.view.dark);
            }
            const QSignalBlocker b1(overlayAction_), b2(logAction_), b3(darkAction_);
            overlayAction_->setChecked(s.view.overlay);
            logAction_->setChecked(s.view.matrixLog);
            darkAction_->setChecked(s.view.dark);
            matrix_->setLogScale(s.view.matrixLog);
            errors_->setScale(s.view.scale);
            histogram_->setIntervalLevel(s.view.intervalLevel);
            histogram_->setSampling(s.view.samplePopulation, s.view.designEffect);
            table_->setLevel(s.view.intervalLevel);
        }
        if (flags & TabChanged) {
            // A hidden view that missed changes replots when shown (replotWhenVisible).
            showTab(s.view.tab);
        }
        if ((flags & MechanismChanged) && presentation_) {
            presentation_->setEpsilon(s.mechanism.epsilon);
        }
        if (flags & (EstimatorChanged | ViewChanged)) {
            redrawViews();
        }
        if (flags & (DataChanged | MechanismChanged | SeedChanged)) {
            releaseDrawn_ = mcDrawn_ = false;
        }
        if (flags & MechanismChanged) {
            updateRisk();
            // The LP panel shows the settings being solved at once (not those of the last
            // result, which may take minutes to replace), and appears with Optimal (LP).
            matrix_->setLpControlsVisible(s.mechanism.kind == MechanismChoice::CountOptimal);
            matrix_->setLpSettings(s.mechanism.lp.objective, s.mechanism.lp.constraints,
                                   s.mechanism.lp.binomialP, s.mechanism.lp.minDiagonal);
        }
        if (flags & (MechanismChanged | SeedChanged)) {
            updateMoreMechanisms();
        }
        if (flags & (MechanismChanged | EstimatorChanged | ViewChanged | TradeoffChanged)) {
            updateTradeoff();
        }
        if (flags & (BudgetChanged | DataChanged)) {
            syncBudgetFromDocument();
        }
        if ((flags & WorkbenchChanged) && workbench_->choices() != s.workbench) {
            workbench_->setChoices(s.workbench);
        }
        if ((flags & StrategyChanged) && strategy_->choices() != s.strategy) {
            strategy_->setChoices(s.strategy);
        }
    });
    connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::updateWhatLine);
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
        if (i < 0 || i >= kTabCount || doc_->state().view.tab == kTabIds[i]) {
            return;
        }
        ExplorerState s = doc_->state();
        s.view.tab = kTabIds[i];
        // Switching tabs is not worth an undo step: set it directly via a merged command.
        (void)doc_->apply(s, tr("switch tab"), QStringLiteral("tab"));
    });
    connect(matrix_, &MatrixTab::logScaleToggled, this, [this](bool on) {
        ExplorerState s = doc_->state();
        s.view.matrixLog = on;
        (void)doc_->apply(s, tr("log colour scale"));
    });
    connect(
        matrix_, &MatrixTab::lpSettingsEdited, this,
        [this](const QString& objective, const QStringList& constraints, double p, double floor) {
            ExplorerState s = doc_->state();
            s.mechanism.lp.objective = objective;
            s.mechanism.lp.constraints = constraints;
            s.mechanism.lp.binomialP = p;
            s.mechanism.lp.minDiagonal = floor;
            const Status st = doc_->apply(s, tr("change LP settings"));
            if (!st) {
                statusBar()->showMessage(QString::fromStdString(st.error().message), 8000);
            }
        });
    connect(errors_, &ErrorsTab::scaleToggled, this, [this](Scale sc) {
        ExplorerState s = doc_->state();
        s.view.scale = sc;
        (void)doc_->apply(s, tr("error scale"));
    });
    connect(risk_, &RiskTab::tracingRequested, this, [this](const TracingAttackParams& params) {
        risk_->setTracingMessage(tr("Simulating…"));
        engine_->runner()->run<Expected<TracingAttackResult>>(
            QStringLiteral("risk"),
            [params](std::stop_token, JobProgress&) { return simulateTracingAttack(params); },
            [this, params](Expected<TracingAttackResult> r) {
                if (r) {
                    risk_->setTracingResult(params, *r);
                } else {
                    risk_->setTracingMessage(QString::fromStdString(r.error().message));
                }
            },
            tr("Tracing attack"), JobRunner::Lane::Background);
    });
    connect(engine_->runner(), &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot == QLatin1String("risk")) {
            risk_->setTracingMessage(tr("Simulation cancelled."));
        }
        if (slot == QLatin1String("mc")) {
            showErrors();  // the Errors tab no longer says "refining…"
        }
        if (slot == QLatin1String("release")) {
            // No result comes: the views must not go on saying that one is being computed.
            const QString what =
                pendingWhat_.isEmpty() ? tr("Computing the release") : pendingWhat_;
            matrix_->setCancelled(what);
            statusText_->setText(tr("%1: cancelled.").arg(what));
            if (viewsShowPending_) {
                const QString text =
                    tr("%1: cancelled. Change a setting to compute again.").arg(what);
                histogram_->setMessage(text);
                errors_->setMessage(text);
            }
        }
    });
    connect(tradeoff_, &TradeoffTab::configurationChosen, this,
            [this](MechanismChoice m, int bits, EstimatorKind e, double epsilon) {
                ExplorerState s = doc_->state();
                s.mechanism.kind = m;
                if (m == MechanismChoice::LocalDBitFlip) {
                    s.mechanism.ldpBits = bits;
                }
                s.mechanism.estimator = e;
                s.mechanism.epsilon = epsilon;
                const Status st = doc_->apply(s, tr("use %1:%2 at ε = %3")
                                                     .arg(configIdOf(s)
                                                              .value_or(mechanismChoiceTitle(m))
                                                              .section(QLatin1Char(':'), 0, 0),
                                                          QString::fromLatin1(estimatorName(e)),
                                                          QString::number(epsilon, 'g', 6)));
                statusBar()->showMessage(
                    st ? tr("Switched to %1 with the %2 estimator at ε = %3 (Ctrl+Z undoes).")
                             .arg(mechanismChoiceTitle(s.mechanism.kind),
                                  QString::fromLatin1(estimatorName(e)),
                                  QString::number(epsilon, 'g', 6))
                       : QString::fromStdString(st.error().message),
                    8000);
            });
    connect(tradeoff_, &TradeoffTab::scaleToggled, this, [this](Scale sc) {
        ExplorerState s = doc_->state();
        s.view.scale = sc;
        (void)doc_->apply(s, tr("error scale"));
    });
    connect(tradeoff_, &TradeoffTab::exportPlotRequested, this, &MainWindow::exportPlot);
    connect(ldpTab_, &LdpExperimentTab::exportPlotRequested, this, &MainWindow::exportPlot);
    connect(tradeoff_, &TradeoffTab::curvesUpdated, this, &MainWindow::tryScreenshot);
    connect(ldpTab_, &LdpExperimentTab::finished, this, &MainWindow::tryScreenshot);
    connect(moreTab_, &MoreMechanismsTab::exportPlotRequested, this, &MainWindow::exportPlot);
    connect(moreTab_, &MoreMechanismsTab::finished, this, &MainWindow::tryScreenshot);
    connect(table_, &TableTab::drawn, this, &MainWindow::tryScreenshot);
    connect(workbench_, &WorkbenchTab::drawn, this, &MainWindow::tryScreenshot);
    // The Workbench's inputs go into the document (saved in sessions; one undo step per burst).
    connect(workbench_, &WorkbenchTab::choicesEdited, this, [this] {
        ExplorerState s = doc_->state();
        s.workbench = workbench_->choices();
        if (const Status st = doc_->apply(s, tr("workbench settings"), QStringLiteral("workbench"));
            !st) {
            statusBar()->showMessage(QString::fromStdString(st.error().message), 8000);
        }
    });
    connect(strategy_, &StrategyTab::drawn, this, &MainWindow::tryScreenshot);
    // Issue #23: a release through the tab's strategy (workload and template), planned on the
    // release's declared shape by the dialog.
    connect(strategy_, &StrategyTab::releaseRequested, this, [this] {
        const StrategyChoices& c = doc_->state().strategy;
        releaseCtl_->open([&c](ReleaseContext& ctx) {
            ctx.strategyWorkload = c.workload;
            const auto templ = designTemplateFromName(c.templ.toStdString());
            ctx.strategyTemplate = templ ? *templ : DesignTemplate::Automatic;
            for (double v : c.p) {
                ctx.strategyP.push_back(static_cast<std::size_t>(v));
            }
            ctx.strategyRestarts = static_cast<std::size_t>(std::max(1, c.restarts));
            ctx.strategySeed = static_cast<std::uint64_t>(std::max<qint64>(0, c.seed));
        });
    });
    // The Strategy tab's inputs go into the document like the Workbench's.
    connect(strategy_, &StrategyTab::choicesEdited, this, [this] {
        ExplorerState s = doc_->state();
        s.strategy = strategy_->choices();
        if (const Status st = doc_->apply(s, tr("strategy settings"), QStringLiteral("strategy"));
            !st) {
            statusBar()->showMessage(QString::fromStdString(st.error().message), 8000);
        }
    });
    connect(moreTab_, &MoreMechanismsTab::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(tradeoff_, &TradeoffTab::settingsEdited, this, [this] {
        ExplorerState s = doc_->state();
        tradeoff_->writeSettings(s);
        // One undo step per burst of edits (merged like tab switches).
        if (const Status st = doc_->apply(s, tr("trade-off settings"), QStringLiteral("tradeoff"));
            !st) {
            statusBar()->showMessage(QString::fromStdString(st.error().message), 8000);
            updateTradeoff();  // back to the document's settings
        }
    });
    // The user's edits of the plan go into the document (one undo step per burst, saved in
    // sessions); the view's own updates from the document or the data do not.
    connect(budget_, &BudgetTab::planChanged, this, [this] {
        if (syncingBudget_) {
            return;
        }
        ExplorerState s = doc_->state();
        setBudgetPlan(s, budget_->plan());
        if (const Status st = doc_->apply(s, tr("budget plan"), QStringLiteral("budget")); !st) {
            statusBar()->showMessage(QString::fromStdString(st.error().message), 8000);
        }
    });
    // One truth for the budget: the current dataset's ledger (chosen for its plan, else the last
    // one used for it) is read by the release controller for the status bar and the Budget tab
    // alike; a ledger chosen in the Release dialog or the Budget tab becomes the plan's.
    connect(releaseCtl_, &ReleaseController::ledgerLoaded, budget_, &BudgetTab::setLedger);
    auto useLedger = [this](const QString& path) {
        ExplorerState s = doc_->state();
        const QString chosen = currentBudget(s).ledger;
        const QString abs = QFileInfo(path).absoluteFilePath();
        // The ledger found for the dataset (none chosen) stays found: no undo step for it.
        const bool found = chosen.isEmpty() && releaseCtl_->chosenLedger().isEmpty() &&
                           releaseCtl_->ledgerPath() == abs;
        if (chosen == abs || found) {
            return;
        }
        setBudgetLedger(s, abs);
        if (const Status st = doc_->apply(s, tr("use ledger %1").arg(QFileInfo(abs).fileName()),
                                          QStringLiteral("budget-ledger"));
            !st) {
            statusBar()->showMessage(QString::fromStdString(st.error().message), 8000);
        }
    };
    connect(releaseCtl_, &ReleaseController::ledgerAccepted, this, useLedger);
    connect(budget_, &BudgetTab::ledgerChosen, this, useLedger);
    connect(budget_, &BudgetTab::profileComputed, this, [this] { tryScreenshot(); });
    connect(dataPanel_, &DataPanel::openCsvRequested, this, &MainWindow::chooseCsv);
    connect(dataPanel_, &DataPanel::openSqliteRequested, this, &MainWindow::chooseSqlite);
    connect(dataPanel_, &DataPanel::openPostgresRequested, this, &MainWindow::connectPostgres);
    connect(dataPanel_, &DataPanel::reloadRequested, this, [this] {
        releaseDrawn_ = mcDrawn_ = false;
        engine_->refreshAll();
    });
    // Issue #22: the interval level of the Histogram and Table tabs, saved in the session.
    auto setIntervalLevel = [this](double level) {
        ExplorerState s = doc_->state();
        if (s.view.intervalLevel != level) {
            s.view.intervalLevel = level;
            (void)doc_->apply(s, tr("interval level"));
        }
    };
    connect(histogram_, &HistogramTab::intervalLevelChanged, this, setIntervalLevel);
    // Issue #22: the Histogram tab's "sample of N" and design effect, saved in the session. A
    // pair the session refuses (N < 2·D, N = 1) stays in the tab, which says why in its caption.
    connect(histogram_, &HistogramTab::samplingChanged, this, [this](double n, double d) {
        ExplorerState s = doc_->state();
        if (s.view.samplePopulation != n || s.view.designEffect != d) {
            s.view.samplePopulation = n;
            s.view.designEffect = d;
            if (s.view.validate()) {
                (void)doc_->apply(s, tr("sample of N"));
            }
        }
    });
    connect(table_, &TableTab::levelChanged, this, setIntervalLevel);
    connect(histogram_, &HistogramTab::overlayToggled, this, [this](bool on) {
        ExplorerState s = doc_->state();
        s.view.overlay = on;
        (void)doc_->apply(s, tr("overlay"));
    });

    QSettings settings;
    const bool restored =
        restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    if (!restored) {
        resize(1520, 900);
    }
    fitToScreen();
    splitRestored_ =
        split->restoreState(settings.value(QStringLiteral("window/split")).toByteArray());
    if (!splitRestored_) {
        // The panels' natural width, but never more than a third of the window (a quarter below
        // 1280 px: the tabs need the room more).
        const int sideWidth =
            std::min(side->sizeHint().width() + 24, width() < 1280 ? width() / 4 : width() / 3);
        split->setSizes({sideWidth, std::max(width() - sideWidth, 1)});
    }
    sideAction_->setChecked(settings.value(QStringLiteral("window/sidePanel"), true).toBool());
    connect(split, &QSplitter::splitterMoved, this, [this, split] {
        // Dragged to the edge: the panel is collapsed, the menu says so.
        const QSignalBlocker block(sideAction_);
        sideAction_->setChecked(sidePanel_->isVisible() && split->sizes().value(0) > 0);
    });
    rebuildRecentMenu();
    updateWhatLine();
    baseFont_ = QApplication::font();
    if (const double z = settings.value(QStringLiteral("view/zoom"), 1.0).toDouble(); z != 1.0) {
        setZoom(z);
    }
    updateRisk();
    updateTradeoff();
    syncBudgetFromDocument();
    if (workbench_->choices() != doc_->state().workbench) {
        workbench_->setChoices(doc_->state().workbench);
    }
    if (strategy_->choices() != doc_->state().strategy) {
        strategy_->setChoices(doc_->state().strategy);
    }
    engine_->refreshAll();
}

MainWindow::~MainWindow() = default;

void MainWindow::updateWhatLine() {
    const int i = tabs_->currentIndex();
    if (i < 0 || i >= kTabCount) {
        return;
    }
    whatLine_->setTexts(tr(kWhatTexts[i].line), tr(kWhatTexts[i].paragraph));
    if (presentation_) {
        presentation_->setSource(currentPlot(), tabs_->tabText(i).remove(QLatin1Char('&')),
                                 whatLine_->line());
    }
}

void MainWindow::setZoom(double zoom) {
    zoom = std::clamp(zoom, kZoomLevels.front(), kZoomLevels.back());
    if (zoom == zoom_) {
        return;
    }
    const double factor = zoom / zoom_;
    // Fonts set on a widget do not follow the application font: scale them by the same factor
    // (all read before any is set, so that a child inheriting a scaled parent is scaled once).
    std::vector<std::pair<QWidget*, QFont>> own;
    for (QWidget* w : findChildren<QWidget*>()) {
        if (w->testAttribute(Qt::WA_SetFont)) {
            own.emplace_back(w, w->font());
        }
    }
    QApplication::setFont(scaledFont(baseFont_, zoom));
    for (auto& [w, f] : own) {
        w->setFont(scaledFont(f, factor));
    }
    // Plot texts were made from the fonts of their time: scale them; later ones follow the
    // application font.
    for (QCustomPlot* plot : findChildren<QCustomPlot*>()) {
        scalePlotText(plot, factor);
    }
    zoom_ = zoom;
    QSettings().setValue(QStringLiteral("view/zoom"), zoom);
    statusBar()->showMessage(tr("Zoom %1%").arg(std::lround(zoom * 100)), 3000);
}

void MainWindow::zoomIn() {
    const auto* it = std::upper_bound(kZoomLevels.begin(), kZoomLevels.end(), zoom_ + 1e-9);
    setZoom(it == kZoomLevels.end() ? kZoomLevels.back() : *it);
}

void MainWindow::zoomOut() {
    const auto* it = std::lower_bound(kZoomLevels.begin(), kZoomLevels.end(), zoom_ - 1e-9);
    setZoom(it == kZoomLevels.begin() ? kZoomLevels.front() : *(it - 1));
}

PresentationView* MainWindow::presentation() const {
    return presentation_;
}

void MainWindow::setPresenting(bool on, QSize size) {
    if (on == bool(presentation_)) {
        return;
    }
    if (on) {
        presentation_ = new PresentationView(kMinEpsilon, kMaxEpsilon, this);
        presentation_->setWindowFlag(Qt::Window);
        presentation_->setAttribute(Qt::WA_DeleteOnClose);
        presentation_->setEpsilon(doc_->state().mechanism.epsilon);
        connect(presentation_, &PresentationView::epsilonEdited, this, [this](double v) {
            if (const Status st = doc_->setEpsilon(v); !st && presentation_) {
                presentation_->setEpsilonError(QString::fromStdString(st.error().message));
            }
        });
        connect(presentation_, &PresentationView::closeRequested, this,
                [this] { setPresenting(false); });
        updateWhatLine();
        if (size.isValid()) {
            presentation_->resize(size);
            presentation_->show();
        } else {
            showOnWholeScreen(presentation_);
        }
        presentation_->activateWindow();
    } else {
        QCustomPlot* shown = presentation_->source();
        presentation_->close();
        presentation_ = nullptr;
        if (shown) {
            shown->replot();  // its layout again at its own size
        }
        activateWindow();
    }
    const QSignalBlocker block(presentAction_);
    presentAction_->setChecked(on);
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    if (!sidePanelPlaced_) {
        sidePanelPlaced_ = true;
        placeSidePanel();
    }
}

// The widths set in the constructor are for the window's size then (1520 × 900, or what fits the
// screen), not for the size it is shown at (--size, a test's resize): the splitter keeps the
// side panel's width when the window is resized. On the first show the panel gets its natural
// width, at most a quarter of the window (a third from 1280 px), but never less than its
// controls need (else it scrolls sideways and cuts them at its right edge); a splitter saved on a
// wider screen is narrowed to at most a third (or what the controls need). A panel the user
// collapsed or narrowed stays so.
void MainWindow::placeSidePanel() {
    auto* split = qobject_cast<QSplitter*>(centralWidget());
    if (!split || !sidePanel_->isVisibleTo(this)) {
        return;
    }
    const int total = split->width();
    const QList<int> sizes = split->sizes();
    if (total <= 0 || sizes.size() != 2 || (splitRestored_ && sizes[0] == 0)) {
        return;
    }
    // A few pixels over the minimum: QFormLayout's minimum width with WrapLongRows is 4 px less
    // than its fields get when they stay beside their labels (the boxes were cut by 4 px).
    const int need = contentsWidthNeeded(sidePanel_) + 8;
    const QWidget* side = sidePanel_->widget();
    const int natural = need + side->sizeHint().width() - side->minimumSizeHint().width();
    const int share = total < 1280 ? total / 4 : total / 3;
    int width = std::max(need, std::min(natural, share));
    if (splitRestored_) {
        width = std::min(sizes[0], std::max(need, total / 3));
    }
    width = std::min(width, total / 2);  // the tabs keep at least half of the window
    if (width != sizes[0]) {
        split->setSizes({width, std::max(total - width - split->handleWidth(), 1)});
    }
}

void MainWindow::setSidePanelShown(bool shown) {
    auto* split = qobject_cast<QSplitter*>(centralWidget());
    sidePanel_->setVisible(shown);
    if (shown && split && split->sizes().value(0) == 0) {
        // Collapsed by the splitter: open it again at its natural width (at most a third).
        const int sideWidth =
            std::min(sidePanel_->widget()->sizeHint().width() + 24, split->width() / 3);
        split->setSizes({sideWidth, std::max(split->width() - sideWidth, 1)});
    }
    if (sideAction_->isChecked() != shown) {
        const QSignalBlocker block(sideAction_);
        sideAction_->setChecked(shown);
    }
}

bool MainWindow::sidePanelShown() const {
    auto* split = qobject_cast<QSplitter*>(centralWidget());
    return sidePanel_->isVisibleTo(this) && (!split || split->sizes().value(0) > 0);
}

void MainWindow::fitToScreen() {
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    if (!s) {
        return;
    }
    const QRect avail = s->availableGeometry();
    // The window frame (title bar, borders) is not part of size(): leave room for it.
    const QSize frame = frameGeometry().size() - size();
    const QSize room(std::max(avail.width() - frame.width(), 200),
                     std::max(avail.height() - frame.height(), 150));
    if (isMaximized() || isFullScreen()) {
        return;
    }
    resize(size().boundedTo(room));
    QRect g = frameGeometry();
    if (!avail.contains(g)) {
        // Move it inside: the top-left corner wins when the window is still larger.
        const int x =
            std::clamp(g.x(), avail.left(), std::max(avail.left(), avail.right() - g.width() + 1));
        const int y =
            std::clamp(g.y(), avail.top(), std::max(avail.top(), avail.bottom() - g.height() + 1));
        move(x, y);
    }
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    if (auto* split = qobject_cast<QSplitter*>(centralWidget())) {
        settings.setValue(QStringLiteral("window/split"), split->saveState());
    }
    settings.setValue(QStringLiteral("window/sidePanel"), sideAction_->isChecked());
    engine_->runner()->cancelAll();
    e->accept();
}

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open CSV…"), this, &MainWindow::chooseCsv);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open S&QLite database…"), this, &MainWindow::chooseSqlite);
    file->addAction(tr("Connect to &PostgreSQL…"), this, &MainWindow::connectPostgres);
    recentMenu_ = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    file->addAction(tr("Open &session…"), this, &MainWindow::openSessionDialog)
        ->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+O")));
    file->addAction(tr("&Save session…"), this, &MainWindow::saveSessionDialog)
        ->setShortcut(QKeySequence::Save);
    file->addSeparator();
    file->addAction(tr("&Export plot (PNG, SVG, PDF)…"), this, &MainWindow::exportPlot)
        ->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
    file->addAction(tr("Export error &table as CSV…"), this, &MainWindow::exportTable);
    // The Budget tab's plan, one row per statistic (its share, noise, expected errors, sampling
    // rate and the composition), for a spreadsheet or the release board's minutes.
    file->addAction(tr("Export budget &plan as CSV…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export budget plan"), QStringLiteral("dpexplorer-budget-plan.csv"),
            tr("CSV (*.csv)"));
        if (path.isEmpty()) {
            return;
        }
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(budget_->toCsv().toUtf8()) < 0 ||
            !f.commit()) {
            QMessageBox::warning(this, tr("Export budget plan"),
                                 tr("Could not write %1.").arg(path));
        }
    });
    file->addSeparator();
    file->addAction(releaseCtl_->action());
    file->addAction(releaseCtl_->reportExporter()->action());      // issue #22: after a release
    file->addAction(releaseCtl_->reportExporter()->fileAction());  // of a release on disk
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    auto* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("Copy &plot"), this, [this] {
        if (QCustomPlot* p = currentPlot()) {
            QApplication::clipboard()->setPixmap(p->toPixmap());
        }
    });
    edit->addAction(tr("Copy error &table"), this,
                    [this] { QApplication::clipboard()->setText(errors_->toCsv()); });

    auto* view = menuBar()->addMenu(tr("&View"));
    overlayAction_ = view->addAction(tr("&Overlay true and noisy bars"));
    overlayAction_->setCheckable(true);
    overlayAction_->setChecked(doc_->state().view.overlay);
    connect(overlayAction_, &QAction::toggled, this, [this](bool on) {
        ExplorerState s = doc_->state();
        s.view.overlay = on;
        (void)doc_->apply(s, tr("overlay"));
    });
    logAction_ = view->addAction(tr("&Log colour scale for the matrix"));
    logAction_->setCheckable(true);
    connect(logAction_, &QAction::toggled, this, [this](bool on) {
        ExplorerState s = doc_->state();
        s.view.matrixLog = on;
        (void)doc_->apply(s, tr("log colour scale"));
    });
    darkAction_ = view->addAction(tr("&Dark theme"));
    darkAction_->setCheckable(true);
    connect(darkAction_, &QAction::toggled, this, [this](bool on) {
        ExplorerState s = doc_->state();
        s.view.dark = on;
        (void)doc_->apply(s, tr("theme"));
    });
    view->addSeparator();
    sideAction_ = view->addAction(tr("Show data and &mechanism panel"));
    sideAction_->setObjectName(QStringLiteral("showSidePanel"));
    sideAction_->setCheckable(true);
    sideAction_->setChecked(true);
    sideAction_->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+L")));
    connect(sideAction_, &QAction::toggled, this, &MainWindow::setSidePanelShown);
    view->addSeparator();
    auto* zoomInAction = view->addAction(tr("Zoom &in"), this, &MainWindow::zoomIn);
    // Ctrl++ (and Ctrl+= on keyboards where + needs Shift), Ctrl+−, Ctrl+0.
    zoomInAction->setShortcuts({QKeySequence::ZoomIn, QKeySequence(QStringLiteral("Ctrl+="))});
    view->addAction(tr("Zoom &out"), this, &MainWindow::zoomOut)
        ->setShortcut(QKeySequence::ZoomOut);
    view->addAction(tr("Reset &zoom"), this, [this] { setZoom(1.0); })
        ->setShortcut(QKeySequence(QStringLiteral("Ctrl+0")));
    fullScreenAction_ = view->addAction(tr("&Full screen"));
    fullScreenAction_->setCheckable(true);
    fullScreenAction_->setShortcut(QKeySequence(Qt::Key_F11));
    connect(fullScreenAction_, &QAction::toggled, this, [this](bool on) {
        if (on) {
            showFullScreen();
        } else {
            showNormal();
        }
    });
    presentAction_ = view->addAction(tr("&Presentation mode"));
    presentAction_->setCheckable(true);
    presentAction_->setShortcut(QKeySequence(Qt::Key_F5));
    presentAction_->setToolTip(
        tr("The current tab's plot on the whole screen, in large type and "
           "high contrast for a projector (Esc returns)"));
    connect(presentAction_, &QAction::toggled, this, [this](bool on) { setPresenting(on); });
    view->addSeparator();
    for (int i = 0; i < kTabCount; ++i) {
        auto* a = view->addAction(tabs_->tabText(i).remove(QLatin1Char('&')), this,
                                  [this, i] { tabs_->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
    }

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Glossary"), this, &MainWindow::showGlossary)
        ->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Lessons…"), this, [this] {
        auto* d = new LessonsDialog(this);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->show();
    });
    help->addAction(tr("&About DP Explorer"), this, [this] {
        QMessageBox::about(this, tr("About DP Explorer"),
                           tr("<h3>DP Explorer %1</h3><p>Explore differential-privacy trade-offs: "
                              "mechanisms, noise, errors and count-query mechanism matrices.</p>"
                              "<p>Noisy draws shown here are seeded simulations for exploration, "
                              "not releases.</p>")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::buildStatusBar() {
    statusText_ = new ElidedLabel;
    statusText_->setObjectName(QStringLiteral("statusText"));
    // On a narrow window the line ends in "…" (the whole text in its tooltip) rather than
    // widening the window or being cut mid-word.
    statusText_->setMinimumWidth(120);
    statusText_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("jobProgress"));
    progress_->setRange(0, 1000);
    progress_->setMinimumWidth(320);
    progress_->setTextVisible(true);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setToolTip(tr("Stop the long computation (the last complete results stay)."));
    cancel_->hide();
    statusBar()->addWidget(statusText_, 1);
    // The ledger line keeps its whole text when there is room and ends in "…" (the whole text in
    // its tooltip) when there is not, rather than widening the window past the screen.
    releaseCtl_->ledgerLabel()->setElidedMinimum(160);
    statusBar()->addPermanentWidget(releaseCtl_->ledgerLabel());
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, this, [this] {
        const QString what = progress_->toolTip();  // the long jobs running, by name
        engine_->runner()->cancelLong();
        statusText_->setText(what.isEmpty() ? tr("Cancelled.") : tr("Cancelled: %1.").arg(what));
    });
    connect(engine_->runner(), &JobRunner::progressChanged, this,
            [this](const QString& label, double fraction, bool active) {
                progress_->setVisible(active);
                cancel_->setVisible(active);
                if (active && fraction < 0) {
                    // Nothing running can say how far it is (an LP solve): a busy bar, with
                    // what runs in its tooltip and in the status text, never a frozen 0 %.
                    progress_->setRange(0, 0);
                    progress_->setToolTip(label);
                } else if (active) {
                    progress_->setRange(0, 1000);
                    progress_->setValue(static_cast<int>(fraction * 1000));
                    progress_->setFormat(label + QStringLiteral(" %p%"));
                    progress_->setToolTip(label);
                }
            });
}

QString MainWindow::xTitle() const {
    const DatasetResult& d = engine_->dataset();
    if (d.column.isEmpty()) {
        return {};
    }
    if (d.attributeColumns.size() > 1) {  // a table flattened: one bin per cell
        return tr("cell of %1").arg(d.attributeColumns.join(QStringLiteral(" × ")));
    }
    return d.unit.isEmpty() ? d.column : QStringLiteral("%1 (%2)").arg(d.column, d.unit);
}

// A computation for the document's new state started (engine: "Loading data", "Solving LP",
// "Computing release"). The status text says so; views that show an error of the previous state
// say so too at once (the error no longer describes what is being computed), and the matrix tab
// marks its plot as the previous result while an LP is solved (seconds to minutes).
void MainWindow::showComputing(const QString& what) {
    const ExplorerState& s = doc_->state();
    QString text = what;
    const bool lp = what == ExplorerEngine::tr("Solving LP") &&
                    s.mechanism.kind == MechanismChoice::CountOptimal;
    if (lp) {
        text = s.mechanism.countN > 0 ? tr("Solving the LP for n = %L1 at ε = %2")
                                            .arg(s.mechanism.countN)
                                            .arg(QString::number(s.mechanism.epsilon, 'g', 6))
                                      : tr("Solving the LP at ε = %1 (n = the largest count)")
                                            .arg(QString::number(s.mechanism.epsilon, 'g', 6));
    }
    statusText_->setText(text + QStringLiteral("…"));
    pendingWhat_ = text;
    if (viewsShowError_) {
        histogram_->setMessage(text + QStringLiteral("…"));
        errors_->setMessage(text + QStringLiteral("…"));
        viewsShowError_ = false;
        viewsShowPending_ = true;
    }
    if (lp || matrix_->currentPage() == MatrixTab::Page::Message) {
        matrix_->setPending(text);
    }
}

void MainWindow::showRelease(const ReleaseResult& r) {
    const ExplorerState& s = doc_->state();
    viewsShowError_ = !r.error.isEmpty();
    viewsShowPending_ = false;
    pendingWhat_.clear();
    updateRisk();
    histogram_->setRelease(r, s.mechanism.estimator, s.view.overlay, xTitle());
    updateTableView(r);
    if (!r.error.isEmpty()) {
        if (r.lp && r.lp->status != LpStatus::Optimal) {
            MatrixInfo info{mechanismChoiceTitle(s.mechanism.kind), s.mechanism.epsilon,
                            std::nullopt};
            matrix_->setLpResult(*r.lp, info);
        } else {
            matrix_->setMessage(r.error);
        }
        errors_->setMessage(r.error);
        statusText_->setText(r.error);
    } else {
        if (r.local) {
            QStringList labels;
            for (const QString& l : r.labels) {
                labels << l;
            }
            matrix_->setLocalMechanism(r.reportMatrix ? &*r.reportMatrix : nullptr,
                                       r.mechanismTitle, s.mechanism.epsilon, labels,
                                       r.localDetails, r.reportMatrixWhy);
        } else if (r.matrix) {
            MatrixInfo info{r.mechanismTitle, s.mechanism.epsilon,
                            usesDelta(s.mechanism.kind) ? std::optional<double>(s.mechanism.delta)
                                                        : std::nullopt};
            matrix_->setCountMechanism(*r.matrix, info, r.lp ? &*r.lp : nullptr);
        } else if (r.calibrated) {
            matrix_->setNoiseDistribution(r.calibrated->noise, r.mechanismTitle);
        }
        showErrors();
        statusText_->setText(r.mechanismTitle + QStringLiteral(" · ") + r.guarantee);
    }
    matrix_->setLpControlsVisible(s.mechanism.kind == MechanismChoice::CountOptimal);
    matrix_->setLpSettings(s.mechanism.lp.objective, s.mechanism.lp.constraints,
                           s.mechanism.lp.binomialP, s.mechanism.lp.minDiagonal);
    matrix_->setLogScale(s.view.matrixLog);
    releaseDrawn_ = true;
    syncPresentation();
    Q_EMIT releaseShown();
    tryScreenshot();
}

void MainWindow::syncPresentation() {
    if (presentation_ && presentation_->source() != currentPlot()) {
        updateWhatLine();  // sets the presentation's source
    }
}

void MainWindow::showErrors() {
    const ReleaseResult& r = engine_->release();
    if (!r.error.isEmpty() || r.truth.empty()) {
        return;
    }
    const MonteCarloErrors& mc = engine_->monteCarlo();
    ErrorsData d;
    d.estimators = allEstimators();
    d.metrics = allMetrics();
    d.scale = doc_->state().view.scale;
    d.cells.assign(d.estimators.size(), std::vector<ErrorCellData>(d.metrics.size()));
    const bool mcReady =
        mc.error.isEmpty() && mc.trials > 0 && mc.expected.size() == d.estimators.size();
    for (std::size_t e = 0; e < d.estimators.size(); ++e) {
        for (std::size_t m = 0; m < d.metrics.size(); ++m) {
            ErrorCellData& c = d.cells[e][m];
            c.realized = r.realized[e][m];
            const ExpectedCell& x = r.expected[e][m];
            if (x.available) {
                c.expected = x.value;
                c.method = x.method;
                c.exact = true;
            } else if (mcReady && mc.expected[e][m].available) {
                c.expected = mc.expected[e][m].value;
                c.halfWidth = mc.expected[e][m].halfWidth;
                c.method = mc.expected[e][m].method;
            } else {
                c.method = x.why;
            }
        }
    }
    if (mcReady) {
        d.samples = mc.samples;
        d.trials = static_cast<qint64>(mc.trials);
    }
    d.refining = engine_->runner()->isRunning(QStringLiteral("mc"));
    if (r.count) {
        d.note =
            tr("Count mechanisms: outputs already lie in 0…n, so Clamp equals Identity; "
               "NoiseFirst does not apply.");
    } else if (r.local) {
        d.note =
            tr("Local protocol: Resize projects the estimate onto the known total N (the "
               "number of reports); NoiseFirst does not apply. Monte Carlo repeats the "
               "whole collection.");
    }
    errors_->setData(d);
}

void MainWindow::redrawViews() {
    const ReleaseResult& r = engine_->release();
    if (r.truth.empty() && r.error.isEmpty()) {
        return;
    }
    const ExplorerState& s = doc_->state();
    histogram_->setRelease(r, s.mechanism.estimator, s.view.overlay, xTitle());
    updateTableView(r);
    showErrors();
}

// The release's bins are the loaded table's cells in C order (the engine releases the table
// flattened by ContingencyTable::toHistogram), so its noisy values and estimates are the tab's.
void MainWindow::updateTableView(const ReleaseResult& r) {
    const auto& table = doc_->table();
    if (!table || !r.error.isEmpty() || !table->isDense() ||
        r.truth.size() != table->denseCounts().size() || r.noisy.size() != r.truth.size()) {
        table_->clearInputs();
        return;
    }
    const ExplorerState& s = doc_->state();
    TableViewInputs in;
    in.truth = *table;
    in.noisy = r.noisy;
    const auto& all = allEstimators();
    const auto e = static_cast<std::size_t>(
        std::find(all.begin(), all.end(), s.mechanism.estimator) - all.begin());
    if (e < r.estimates.size() && e < r.estimatorApplies.size() && r.estimatorApplies[e] &&
        r.estimates[e].size() == r.noisy.size()) {
        in.estimate = r.estimates[e];
        in.estimator = s.mechanism.estimator;
    }
    // Exact expected errors need one independent noise law per cell: the central histogram
    // mechanisms; count matrices and local protocols have none.
    if (r.calibrated && !r.count && !r.local)
        in.cellNoise = r.calibrated->noise;
    in.epsilon = s.mechanism.epsilon;
    in.mechanismName = r.mechanismTitle;
    table_->setInputs(std::move(in));
}

// The Risk tab follows the document's ε and δ (δ = 0 for pure-DP mechanisms); μ = Δ2/σ comes from
// the release, used only once the release matches the document's level (it lags a change).
void MainWindow::updateRisk() {
    const ExplorerState& s = doc_->state();
    RiskLevel level;
    level.epsilon = s.mechanism.epsilon;
    level.delta = usesDelta(s.mechanism.kind) ? s.mechanism.delta : 0;
    if (s.mechanism.kind == MechanismChoice::Gaussian) {
        const ReleaseResult& r = engine_->release();
        const auto& c = r.calibrated;
        if (r.error.isEmpty() && c && c->noise.kind() == NoiseKind::Gaussian &&
            c->guarantee.epsilon == s.mechanism.epsilon &&
            c->guarantee.delta == s.mechanism.delta && c->noise.parameter() > 0) {
            level.gaussianMu = c->l2Sensitivity / c->noise.parameter();
        } else {
            level.gaussianNote =
                tr("The exact Gaussian curve appears once the release is computed.");
        }
    } else if (s.mechanism.kind == MechanismChoice::CountGaussian) {
        level.gaussianNote =
            tr("Rounded and clamped Gaussian counts: the exact Gaussian-DP curve "
               "does not apply and is omitted.");
    }
    risk_->setLevel(level);
}

// The Trade-off tab follows the loaded histogram and the document's mechanism parameters; it
// computes its curves only while it is shown.
void MainWindow::updateTradeoff() {
    const DatasetResult& d = engine_->dataset();
    TradeoffInputs in;
    in.state = doc_->state();
    if (d.error.isEmpty() && d.histogram) {
        in.truth = d.histogram;
        in.sensitivity = d.sensitivity;
        // A table of several attributes: the histogram is its cells in C order.
        if (d.jointTable && d.jointTable->attributeCount() >= 2) {
            for (std::uint64_t size : d.jointTable->shape()) {
                in.cellShape.push_back(static_cast<std::size_t>(size));
            }
        }
    } else {
        in.message = d.error.isEmpty() ? d.histogramWhy : d.error;
    }
    tradeoff_->setInputs(in);
}

// The budget plan's rows take the dataset's columns, bins, N and sensitivities; the status bar
// and the plan take the loaded dataset's ledger.
void MainWindow::updateBudgetDataset() {
    const DatasetResult& d = engine_->dataset();
    const QSignalBlocker block(budget_);  // a plan completed from the data is not a user edit
    const bool was = std::exchange(syncingBudget_, true);
    if (d.error.isEmpty() && d.histogram) {
        budget_->setDataset(d.columns, d.column, static_cast<int>(d.histogram->size()),
                            static_cast<double>(d.histogram->total()), d.sensitivity.l1,
                            d.sensitivity.l2);
        releaseCtl_->setDataset(releaseContextOf(doc_->state(), d).dataset,
                                currentBudget(doc_->state()).ledger);
    } else {
        releaseCtl_->setDataset({}, {});  // no data: no ledger
    }
    syncingBudget_ = was;
}

namespace {
// The data a budget plan is for, in a few words ("telemetry", "ages.csv", "db.sqlite, table t").
QString budgetDatasetTitle(const ExplorerState& s) {
    switch (s.data.source) {
        case SourceKind::Example:
            return QObject::tr("the example %1").arg(s.data.exampleId);
        case SourceKind::Csv:
            return QFileInfo(s.data.csvPath).fileName();
        case SourceKind::Sqlite:
            return s.data.sqlTable.isEmpty()
                       ? QFileInfo(s.data.sqlitePath).fileName()
                       : QObject::tr("%1, table %2")
                             .arg(QFileInfo(s.data.sqlitePath).fileName(), s.data.sqlTable);
        case SourceKind::Postgres:
            return s.data.sqlTable.isEmpty()
                       ? s.data.postgres.database
                       : QObject::tr("%1, table %2").arg(s.data.postgres.database, s.data.sqlTable);
    }
    return {};
}
}  // namespace

// After an undo, a loaded session or a change of dataset: the view shows the document's plan of
// the current dataset, and the status bar that dataset's ledger.
void MainWindow::syncBudgetFromDocument() {
    const ExplorerState& state = doc_->state();
    const QString key = budgetDatasetKey(state.data);
    const bool otherDataset = key != budget_->planDataset();
    if (otherDataset) {
        // Until the new data are loaded (updateBudgetDataset), no ledger: never the previous
        // dataset's.
        releaseCtl_->setDataset({}, {});
    } else if (currentBudget(state).ledger != releaseCtl_->chosenLedger()) {
        releaseCtl_->setLedgerPath(currentBudget(state).ledger);
    }
    ExplorerState shown = state;
    setBudgetPlan(shown, budget_->plan());
    if (!otherDataset && (changesBetween(shown, state) & BudgetChanged) == 0) {
        return;  // the view already shows it (the edit came from the view)
    }
    const bool was = std::exchange(syncingBudget_, true);
    budget_->setPlan(budgetPlanOf(state), key, budgetDatasetTitle(state));
    syncingBudget_ = was;
}

// The pages of "More mechanisms" use the current dataset and the document's ε, δ, relation and
// seed.
void MainWindow::updateMoreMechanisms() {
    const ExplorerState& s = doc_->state();
    MechanismPageContext c;
    c.dataset = std::make_shared<const DatasetResult>(engine_->dataset());
    c.epsilon = s.mechanism.epsilon;
    c.delta = s.mechanism.delta;
    c.neighbouring = s.data.neighbouring;
    c.seed = s.mechanism.seed;
    if (s.data.source == SourceKind::Csv) {
        c.csvPath = s.data.csvPath;
    }
    moreTab_->setContext(c);
}

LdpExperimentPage* MainWindow::ldpExperimentPage() const {
    return ldpTab_->telemetry();
}

bool MainWindow::showTab(const QString& name) {
    // The experiment tab's studies can be asked for by name (start options, sessions).
    if (name == QLatin1String("ldp-ranges") || name == QLatin1String("ldp-marginals") ||
        name == QLatin1String("ldp-means")) {
        ldpTab_->showStudy(name == QLatin1String("ldp-ranges")      ? 1
                           : name == QLatin1String("ldp-marginals") ? 2
                                                                    : 3);
        tabs_->setCurrentWidget(ldpTab_);
        return true;
    }
    // So can the pages of "More mechanisms".
    if (moreTab_->showPage(name)) {
        tabs_->setCurrentWidget(moreTab_);
        return true;
    }
    for (int i = 0; i < kTabCount; ++i) {
        if (kTabIds[i] == name) {
            tabs_->setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

QCustomPlot* MainWindow::currentPlot() const {
    switch (tabs_->currentIndex()) {
        case 0:
            return histogram_->plot();
        case 1:
            return matrix_->currentPlot();
        case 2:
            return errors_->histogramPlot();
        case 3:
            return risk_->posteriorPlot();
        case 4:
            return tradeoff_->plot();
        case 5:
            return budget_->plot();
        case 6:
            return ldpTab_->currentPlot();
        case 7:
            return moreTab_->currentPlot();
        case 8:
            return table_->currentPlot();
        case 9:
            return workbench_->currentPlot();
        case 10:
            return strategy_->currentPlot();
    }
    return nullptr;
}

Status MainWindow::openCsv(const QString& path) {
    QFileInfo info(path);
    if (!info.exists()) {
        return Error{"'" + path.toStdString() + "' does not exist"};
    }
    ExplorerState s = doc_->state();
    s.data.source = SourceKind::Csv;
    s.data.csvPath = info.absoluteFilePath();
    s.data.sqlTable.clear();
    // The column and binning last used with this file come back (the same file again keeps them).
    s.data.enterSource(doc_->state().data, dataPanel_->columnInForce());
    const bool same = s == doc_->state();
    auto st = doc_->apply(s, tr("open %1").arg(info.fileName()));
    if (st) {
        addRecentFile(s.data.csvPath);
        if (same) {
            releaseDrawn_ = mcDrawn_ = false;
            engine_->refreshAll();  // the same file again: read it again
        }
    }
    return st;
}

Status MainWindow::openSqlite(const QString& path) {
    QFileInfo info(path);
    if (!info.isFile()) {
        return Error{"'" + path.toStdString() + "' is not a file"};
    }
    ExplorerState s = doc_->state();
    s.data.source = SourceKind::Sqlite;
    s.data.sqlitePath = info.absoluteFilePath();
    s.data.sqlTable.clear();
    s.data.enterSource(doc_->state().data, dataPanel_->columnInForce());
    const bool same = s == doc_->state();
    auto st = doc_->apply(s, tr("open %1").arg(info.fileName()));
    if (st && same) {
        releaseDrawn_ = mcDrawn_ = false;
        engine_->refreshAll();  // the same database again: read it again
    }
    return st;
}

Status MainWindow::openSession(const QString& path) {
    // Sessions hold no password: use the one remembered for that connection, if the user asked.
    const Status st = doc_->loadSession(path, [](ExplorerState& s) {
        if (s.data.source == SourceKind::Postgres && s.data.postgres.password.isEmpty()) {
            s.data.postgres.password = rememberedPgPassword(s);
        }
    });
    if (st && !doc_->ignoredSessionKeys().isEmpty()) {
        const QStringList& keys = doc_->ignoredSessionKeys();
        const QString text = tr("%1: ignored settings this version does not know (%2): written "
                                "by a newer version, or misspelt?")
                                 .arg(QFileInfo(path).fileName(), keys.join(QStringLiteral(", ")));
        statusBar()->showMessage(text, 15000);
        qWarning("%s", qPrintable(text));
    }
    if (st && !doc_->sessionDeprecations().isEmpty()) {
        // After the ignored keys: the older spelling is the one the user should fix first.
        const QString text = tr("%1: %2").arg(
            QFileInfo(path).fileName(), doc_->sessionDeprecations().join(QStringLiteral("; ")));
        statusBar()->showMessage(text, 15000);
        qWarning("%s", qPrintable(text));
    }
    return st;
}

void MainWindow::chooseSqlite() {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a SQLite database"), settings.value(QStringLiteral("dir/sqlite")).toString(),
        tr("SQLite databases (*.db *.sqlite *.sqlite3 *.db3);;All files (*)"));
    if (path.isEmpty()) {
        return;
    }
    settings.setValue(QStringLiteral("dir/sqlite"), QFileInfo(path).absolutePath());
    if (auto st = openSqlite(path); !st) {
        QMessageBox::warning(this, tr("Cannot open"), QString::fromStdString(st.error().message));
    }
}

void MainWindow::connectPostgres() {
    PgConnectionDialog dialog(doc_->state(), this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    ExplorerState s = doc_->state();
    const bool same = s.data.source == SourceKind::Postgres;
    const ExplorerState before = s;
    dialog.applyTo(s);
    storePgPassword(s, dialog.rememberPassword());
    if (!same || s.data.postgres.host != before.data.postgres.host ||
        s.data.postgres.port != before.data.postgres.port ||
        s.data.postgres.database != before.data.postgres.database) {
        s.data.sqlTable.clear();
        s.data.enterSource(before.data, dataPanel_->columnInForce());
    }
    if (auto st = doc_->apply(s, tr("connect to %1").arg(s.data.postgres.database)); !st) {
        QMessageBox::warning(this, tr("Cannot connect"),
                             QString::fromStdString(st.error().message));
    } else if (s == before) {
        engine_->refreshAll();  // the same connection again: load again
    }
}

void MainWindow::chooseCsv() {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a CSV or TSV file"), settings.value(QStringLiteral("dir/csv")).toString(),
        tr("Tables (*.csv *.tsv *.txt);;All files (*)"));
    if (path.isEmpty()) {
        return;
    }
    settings.setValue(QStringLiteral("dir/csv"), QFileInfo(path).absolutePath());
    if (auto st = openCsv(path); !st) {
        QMessageBox::warning(this, tr("Cannot open"), QString::fromStdString(st.error().message));
    }
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) {
        recent.removeLast();
    }
    settings.setValue(QStringLiteral("recentFiles"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& path : recent) {
        recentMenu_
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (auto st = openCsv(path); !st) {
                                QMessageBox::warning(this, tr("Cannot open"),
                                                     QString::fromStdString(st.error().message));
                            }
                        })
            ->setToolTip(path);
    }
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::openSessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), {},
                                                      tr("DP Explorer sessions (*.json)"));
    if (path.isEmpty()) {
        return;
    }
    if (auto st = openSession(path); !st) {
        QMessageBox::warning(this, tr("Cannot open session"),
                             QString::fromStdString(st.error().message));
    }
}

void MainWindow::saveSessionDialog() {
    QString path =
        QFileDialog::getSaveFileName(this, tr("Save session"), QStringLiteral("session.json"),
                                     tr("DP Explorer sessions (*.json)"));
    if (path.isEmpty()) {
        return;
    }
    if (!path.endsWith(QLatin1String(".json"))) {
        path += QLatin1String(".json");
    }
    if (auto st = doc_->saveSession(path); !st) {
        QMessageBox::warning(this, tr("Cannot save session"),
                             QString::fromStdString(st.error().message));
    } else {
        statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000);
    }
}

void MainWindow::exportPlot() {
    QCustomPlot* p = currentPlot();
    if (!p) {
        QMessageBox::information(this, tr("Export plot"), tr("There is no plot on this tab yet."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export plot"), QStringLiteral("dpexplorer-plot.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) {
        return;
    }
    bool ok = false;
    if (path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)) {
        ok = p->savePdf(path);
    } else if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        ok = exportPlotSvg(p, path);
    } else {
        ok = p->savePng(path, 0, 0, 2.0);
    }
    if (!ok) {
        QMessageBox::warning(this, tr("Export plot"), tr("Could not write %1.").arg(path));
    }
}

void MainWindow::exportTable() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export error table"), QStringLiteral("dpexplorer-errors.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) {
        return;
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(errors_->toCsv().toUtf8()) < 0 || !f.commit()) {
        QMessageBox::warning(this, tr("Export error table"), tr("Could not write %1.").arg(path));
    }
}

void MainWindow::showGlossary() {
    // The entries: ui/lessons/glossary (plain sentence, formula, where to see it).
    auto* d = new GlossaryDialog(this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->show();
}

void MainWindow::applyApplicationTheme(bool dark) {
    qApp->setStyle(createApplicationStyle());  // Fusion, indicators visible on the dark theme
    QPalette p;
    if (dark) {
        p.setColor(QPalette::Window, QColor(37, 37, 38));
        p.setColor(QPalette::WindowText, QColor(230, 230, 230));
        p.setColor(QPalette::Base, QColor(30, 30, 30));
        p.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
        p.setColor(QPalette::Text, QColor(230, 230, 230));
        p.setColor(QPalette::Button, QColor(51, 51, 55));
        p.setColor(QPalette::ButtonText, QColor(230, 230, 230));
        p.setColor(QPalette::Highlight, QColor(38, 79, 120));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::ToolTipBase, QColor(45, 45, 48));
        p.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
        p.setColor(QPalette::Mid, QColor(90, 90, 90));
        p.setColor(QPalette::Midlight, QColor(70, 70, 70));
        p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
        p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 120));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    } else {
        p = qApp->style()->standardPalette();
    }
    qApp->setPalette(p);
}

void MainWindow::applyTheme(bool dark) {
    appliedDark_ = dark;
    applyApplicationTheme(dark);
    redrawViews();
}

void MainWindow::saveScreenshotWhenReady(const QString& path) {
    screenshotPath_ = path;
    tryScreenshot();
}

void MainWindow::tryScreenshot() {
    // Every view's "drawn" or "finished" comes here: its plot may be new (a page of the tab, the
    // Table tab's plot once summed).
    syncPresentation();
    if (screenshotPath_.isEmpty() || !releaseDrawn_ ||
        engine_->runner()->isRunning(QStringLiteral("data")) ||
        engine_->runner()->isRunning(QStringLiteral("release"))) {
        return;
    }
    const bool failed = !engine_->release().error.isEmpty();
    if (!failed && !mcDrawn_) {
        return;  // wait for the quick Monte Carlo pass
    }
    if (tabs_->currentWidget() == tradeoff_ &&
        (!tradeoff_->firstPassDone() || tradeoff_->computing())) {
        return;  // wait for every curve, refined (curvesUpdated calls again)
    }
    if (tabs_->currentWidget() == ldpTab_ && ldpTab_->busy()) {
        return;  // wait for the whole experiment (finished calls again)
    }
    if (tabs_->currentWidget() == moreTab_ && moreTab_->busy()) {
        return;  // wait for the page's result (finished calls again)
    }
    if (tabs_->currentWidget() == table_ && table_->busy()) {
        return;  // wait for the marginals summed off the GUI thread (drawn calls again)
    }
    if (tabs_->currentWidget() == workbench_ && (workbench_->busy() || workbench_->detailBusy())) {
        return;  // wait for every algorithm's trials (drawn calls again)
    }
    if (tabs_->currentWidget() == strategy_ && strategy_->busy()) {
        return;  // wait for the design (drawn calls again)
    }
    if (tabs_->currentWidget() == budget_ && (budget_->busy() || budget_->profileBusy())) {
        return;  // wait for the plan's privacy profile (profileComputed calls again)
    }
    const QString path = screenshotPath_;
    screenshotPath_.clear();
    // Let layouts and plots settle, then grab (the presentation screen when presenting).
    QTimer::singleShot(300, this, [this, path] {
        const bool ok = presentation_ ? presentation_->savePng(path).isEmpty() : grab().save(path);
        Q_EMIT screenshotSaved(path, ok);
    });
}

}  // namespace dpx::ui
