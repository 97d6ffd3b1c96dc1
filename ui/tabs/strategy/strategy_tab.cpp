#include "ui/tabs/strategy/strategy_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>

#include "core/table/table.h"
#include "ui/model/job_runner.h"
#include "ui/tabs/workbench/workbench_data.h"
#include "ui/widgets/flow_layout.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/integer_ticker.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/side_by_side.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("strategy");
const QString kApplySlot = QStringLiteral("strategy-apply");

// The workload kinds of the builder: the grammar's head, the parameter's label and default.
struct KindRow {
    const char* head;
    const char* title;
    const char* param;  // nullptr: none
    const char* defaultParam;
};
constexpr std::array<KindRow, 9> kKinds{{
    {"identity", "Identity (every cell)", nullptr, ""},
    {"prefix", "Prefixes", nullptr, ""},
    {"allrange", "All ranges", nullptr, ""},
    {"range", "Random ranges (DPBench)", "Count[:seed=S]", "2000:seed=9001"},
    {"rectangles", "Rectangles of one extent", "Extent (e.g. 4x4)", "4x4"},
    {"marginals", "Marginals", "Ways (e.g. 2 or 1,2)", "2"},
    {"boxes", "Your own boxes", "Boxes (0..3;5..9 or 0..3x2..2;…)", "0..3;5..9"},
    {"total", "Total", nullptr, ""},
    // The whole workload as text: weighted unions ("prefix + 0.5*marginals:1") and any kind.
    {"text", "Any workload as text", "Workload", "prefix + 0.5*marginals:1"},
}};
constexpr int kTextKind = 8;

// Strategy colours: the optimised one first.
const std::array<QColor, 6> kColours{QColor(0xd6, 0x27, 0x28), QColor(0x7f, 0x7f, 0x7f),
                                     QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                     QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};

QString fmt(double v) {
    return formatSignificant(v, 3);
}

// A plot title's font: the plot's, bold (as the other tabs' titles).
QFont boldFont(const QCustomPlot* plot) {
    QFont f = plot->font();
    f.setBold(true);
    return f;
}

// A title beside a colour scale wraps to its column, whose width the layout knows only after the
// first pass: when the height it reserved is not the height its text needs at that width, one
// more (queued) pass settles it (a narrow plot at 1024 × 768 cut a three-line title otherwise).
void relayoutWhenTitleWraps(QCustomPlot* plot, PlotTitle* title) {
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot, title] {
        const QRect r = title->rect();
        if (title->text().isEmpty() || r.width() <= 0) {
            return;
        }
        const QFontMetrics metrics(title->font());
        const int need = metrics
                             .boundingRect(QRect(0, 0, r.width(), INT_MAX / 4), title->textFlags(),
                                           title->text())
                             .height();
        if (need != r.height()) {
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
    });
}

// A heatmap plot: one colour map and its scale, a title on top.
struct MatrixPlot {
    QCPColorMap* map;
    QCPColorScale* scale;
    QCPTextElement* title;
};

MatrixPlot setUpMatrixPlot(QCustomPlot* plot, const QString& scaleLabel) {
    plot->plotLayout()->insertRow(0);
    auto* title = new PlotTitle(plot, QString(), boldFont(plot));
    relayoutWhenTitleWraps(plot, title);
    // Fewer ticks on a narrow plot (side by side at 1024 × 768): about one per 50 pixels.
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
        const int want = std::clamp(plot->axisRect()->width() / 50, 2, 5);
        if (plot->xAxis->ticker()->tickCount() != want) {
            plot->xAxis->ticker()->setTickCount(want);
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
    });
    plot->plotLayout()->addElement(0, 0, title);
    QCPColorMap* map = addHeatmap(plot->axisRect(), QColor(0xc8, 0xc8, 0xc8));
    QCPColorScale* scale = makeColorScale(plot);
    plot->plotLayout()->addElement(1, 1, scale);
    auto* group = new QCPMarginGroup(plot);
    plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    map->setColorScale(scale);
    map->setGradient([] {
        QCPColorGradient g = viridisGradient();
        g.setNanHandling(QCPColorGradient::nhNanColor);
        g.setNanColor(QColor(0xc8, 0xc8, 0xc8));
        return g;
    }());
    scale->axis()->setLabel(scaleLabel);
    // Rows, columns, queries and cells are whole numbers: no ticks at 2.5.
    plot->xAxis->setTicker(QSharedPointer<IntegerTicker>::create());
    plot->yAxis->setTicker(QSharedPointer<IntegerTicker>::create());
    return {map, scale, title};
}

MatrixPlot matrixPlotOf(QCustomPlot* plot) {
    return {qobject_cast<QCPColorMap*>(plot->plottable(0)),
            qobject_cast<QCPColorScale*>(plot->plotLayout()->element(1, 1)),
            qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0))};
}

// Fills the plot's map with a rows × cols matrix (row 0 on top).
void fillMatrix(QCustomPlot* plot, const std::vector<double>& m, std::size_t rows, std::size_t cols,
                const QString& title, const QString& xLabel, const QString& yLabel) {
    const MatrixPlot mp = matrixPlotOf(plot);
    const int nc = static_cast<int>(std::max<std::size_t>(cols, 2));
    const int nr = static_cast<int>(std::max<std::size_t>(rows, 2));
    mp.map->data()->setSize(nc, nr);
    mp.map->data()->setRange(QCPRange(0, nc - 1), QCPRange(0, nr - 1));
    for (int i = 0; i < nr; ++i) {
        for (int j = 0; j < nc; ++j) {
            const std::size_t si = std::min(static_cast<std::size_t>(i), rows - 1);
            const std::size_t sj = std::min(static_cast<std::size_t>(j), cols - 1);
            mp.map->data()->setCell(j, i, m[si * cols + sj]);
        }
    }
    mp.map->rescaleDataRange(true);
    // A constant matrix (the same error for every query): QCustomPlot keeps the previous range
    // then; a range around the value lets the scale read it.
    double lo = INFINITY, hi = -INFINITY;
    for (double v : m) {
        if (!std::isnan(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (hi >= lo && hi - lo <= 1e-9 * std::abs(hi)) {
        mp.map->setDataRange(hi == 0 ? QCPRange(-1, 1)
                                     : QCPRange(hi - 0.1 * std::abs(hi), hi + 0.1 * std::abs(hi)));
    }
    mp.title->setText(title);
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(yLabel);
    plot->rescaleAxes();
    plot->replot();
}

}  // namespace

StrategyTab::StrategyTab(JobRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
    restart_ = new QTimer(this);
    restart_->setSingleShot(true);
    restart_->setInterval(400);
    connect(restart_, &QTimer::timeout, this, &StrategyTab::optimise);
    poll_ = new QTimer(this);
    poll_->setInterval(100);
    connect(poll_, &QTimer::timeout, this, [this] {
        if (progressValue_) {
            progress_->setValue(static_cast<int>(std::lround(1000 * progressValue_->load())));
        }
    });
    for (std::size_t i = 0; i < kKinds.size(); ++i) {
        paramText_[i] = QString::fromUtf8(kKinds[i].defaultParam);
    }
    buildControls();
    setChoices(StrategyChoices{});
}

StrategyTab::~StrategyTab() {
    // A result must not be delivered to a deleted tab.
    if (runner_) {
        runner_->cancel(kSlot);
        runner_->cancel(kApplySlot);
    }
}

void StrategyTab::buildControls() {
    auto* controls = new QWidget;
    auto* cl = new QVBoxLayout(controls);

    auto* wbox = new QGroupBox(tr("Workload"));
    // The workload's and the template's rows come and go through FormRows (see form_rows.h).
    workloadRows_ = std::make_unique<FormRows>(new QFormLayout(wbox));
    domain_ = new QComboBox;
    domain_->addItem(tr("1-D: n cells"), QStringLiteral("1d"));
    domain_->addItem(tr("2-D: rows × columns"), QStringLiteral("2d"));
    domain_->addItem(tr("The current table's shape"), QStringLiteral("table"));
    domain_->setObjectName(QStringLiteral("strategyDomain"));
    workloadRows_->addRow(tr("Domain"), domain_);
    n_ = new QSpinBox;
    n_->setRange(1, kMaxStrategySize);
    workloadRows_->addRow(tr("Cells n"), n_);
    auto* rc = new QWidget;
    auto* rcl = new QHBoxLayout(rc);
    rcl->setContentsMargins(0, 0, 0, 0);
    rows_ = new QSpinBox;
    cols_ = new QSpinBox;
    rows_->setRange(1, 8192);
    cols_->setRange(1, 8192);
    rcl->addWidget(rows_);
    rcl->addWidget(new QLabel(QStringLiteral("×")));
    rcl->addWidget(cols_);
    workloadRows_->addRow(tr("Rows × cols"), rc);
    tableNote_ = new QLabel;
    tableNote_->setWordWrap(true);
    workloadRows_->addRow(tableNote_);
    kind_ = new QComboBox;
    for (const KindRow& k : kKinds) {
        kind_->addItem(tr(k.title), QString::fromLatin1(k.head));
    }
    kind_->setObjectName(QStringLiteral("strategyKind"));
    workloadRows_->addRow(tr("Queries"), kind_);
    paramLabel_ = new QLabel;
    param_ = new QLineEdit;
    param_->setObjectName(QStringLiteral("strategyParam"));
    workloadRows_->addRow(paramLabel_, param_);
    auto* unionNote =
        new QLabel(tr("Unions with weights: choose “Any workload as text” and join parts with +, "
                      "each optionally weighted, e.g. prefix + 0.5*marginals:1."));
    unionNote->setWordWrap(true);
    unionNote->setEnabled(false);
    workloadRows_->addRow(unionNote);
    cl->addWidget(wbox);

    auto* tbox = new QGroupBox(tr("Template (HDMM, McKenna et al. 2018)"));
    templateRows_ = std::make_unique<FormRows>(new QFormLayout(tbox));
    template_ = new QComboBox;
    template_->setObjectName(QStringLiteral("strategyTemplate"));
    template_->addItem(tr("Automatic"), QStringLiteral("auto"));
    template_->addItem(tr("p-Identity: OPT₀ / OPT⊗"), QStringLiteral("pidentity"));
    template_->addItem(tr("Weighted marginals: OPT_M"), QStringLiteral("marginals"));
    template_->addItem(tr("Per part of a union: OPT₊"), QStringLiteral("union"));
    template_->setToolTip(
        tr("Automatic: OPT₀ p-Identity in 1-D; OPT_M for marginal workloads over several "
           "attributes; OPT⊗ (a Kronecker product of p-Identities) otherwise, factor by factor "
           "for unions of Kronecker products such as random boxes. OPT₊ designs each part of a "
           "union separately and stacks them (its error is HDMM's upper bound)."));
    templateRows_->addRow(tr("Template"), template_);
    // Long choices shrink rather than widen the column (1024-pixel windows, issue #21).
    for (QComboBox* box : {template_, kind_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(14);
    }
    p_ = new QLineEdit;
    p_->setPlaceholderText(tr("default: n/16 per dimension"));
    p_->setToolTip(
        tr("The p of each dimension's p-Identity, comma-separated (one value for "
           "every dimension, or one per dimension)"));
    templateRows_->addRow(tr("p"), p_);
    restarts_ = new QSpinBox;
    restarts_->setRange(1, 100);
    templateRows_->addRow(tr("Restarts"), restarts_);
    seed_ = new QSpinBox;
    seed_->setRange(0, static_cast<int>(kMaxStrategySeed));
    templateRows_->addRow(tr("Seed"), seed_);
    auto* buttons = new QWidget;
    auto* bl = new QHBoxLayout(buttons);
    bl->setContentsMargins(0, 0, 0, 0);
    optimise_ = new QPushButton(tr("Optimise"));
    cancel_ = new QPushButton(tr("Cancel"));
    bl->addWidget(optimise_);
    bl->addWidget(cancel_);
    templateRows_->addRow(buttons);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    templateRows_->addRow(progress_);
    cl->addWidget(tbox);

    auto* mbox = new QGroupBox(tr("Measurement"));
    auto* mf = new QFormLayout(mbox);
    epsilon_ = new QDoubleSpinBox;
    epsilon_->setDecimals(3);
    epsilon_->setRange(0.001, 100);
    epsilon_->setSingleStep(0.1);
    epsilon_->setToolTip(
        tr("The ε of the error map and the simulation (the curves cover "
           "0.01 … 10)"));
    mf->addRow(tr("ε"), epsilon_);
    noise_ = new QComboBox;
    noise_->addItem(tr("Laplace (ε-DP)"), QStringLiteral("laplace"));
    noise_->addItem(tr("Gaussian ((ε, δ)-DP, Balle & Wang 2018)"), QStringLiteral("gaussian"));
    mf->addRow(tr("Noise"), noise_);
    delta_ = new QLineEdit;
    delta_->setToolTip(tr("δ of the Gaussian measurement (the dashed curves)"));
    mf->addRow(tr("δ"), delta_);
    cl->addWidget(mbox);
    status_ = new QLabel;
    status_->setWordWrap(true);
    status_->setObjectName(QStringLiteral("strategyStatus"));
    cl->addWidget(status_);
    cl->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(controls);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(controls->minimumSizeHint().width() + 20);
    scroll->setMaximumWidth(360);

    // Page: error against ε.
    auto* errorPage = new QWidget;
    auto* el = new QVBoxLayout(errorPage);
    errorPlot_ = new QCustomPlot;
    errorPlot_->setMinimumHeight(220);
    errorPlot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
    errorPlot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    makeLogAxis(errorPlot_->xAxis);
    makeLogAxis(errorPlot_->yAxis);
    errorPlot_->legend->setVisible(true);
    // The legend under the plot, in columns: inside it covered the curves on a narrow plot
    // (1024 × 768: six names of up to 40 characters), whichever corner it sat in.
    {
        auto* below = new QCPLayoutGrid;
        errorPlot_->plotLayout()->addElement(1, 0, below);
        errorPlot_->plotLayout()->setRowStretchFactor(1, 0.001);
        below->addElement(0, 0, errorPlot_->legend);
        errorPlot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
        errorPlot_->legend->setWrap(2);
        connect(errorPlot_, &QCustomPlot::afterLayout, this, [this] {
            const int wrap = std::clamp(errorPlot_->axisRect()->width() / 200, 1, 3);
            if (errorPlot_->legend->wrap() != wrap) {
                errorPlot_->legend->setWrap(wrap);
                errorPlot_->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
                errorPlot_->replot(QCustomPlot::rpQueuedReplot);
            }
        });
    }
    el->addWidget(errorPlot_, 1);
    verdict_ = new QLabel;
    verdict_->setWordWrap(true);
    verdict_->setObjectName(QStringLiteral("strategyVerdict"));
    QFont vf = verdict_->font();
    vf.setBold(true);
    verdict_->setFont(vf);
    el->addWidget(verdict_);
    atEpsilon_ = new QLabel;
    atEpsilon_->setWordWrap(true);
    atEpsilon_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    el->addWidget(atEpsilon_);

    // Page: matrices.
    auto* matPage = new QWidget;
    auto* ml = new QGridLayout(matPage);
    wPlot_ = new QCustomPlot;
    aPlot_ = new QCustomPlot;
    qPlot_ = new QCustomPlot;
    setUpMatrixPlot(wPlot_, tr("weight"));
    setUpMatrixPlot(aPlot_, tr("entry"));
    setUpMatrixPlot(qPlot_, tr("RMSE"));
    // W and A sit side by side: narrow enough for a 1024-pixel window (issue #21).
    for (QCustomPlot* plot : {wPlot_, aPlot_, qPlot_}) {
        plot->setMinimumWidth(160);
    }
    qLine_ = new QCustomPlot;
    qLine_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    makeLogAxis(qLine_->yAxis);
    qLine_->plotLayout()->insertRow(0);
    qLine_->plotLayout()->addElement(0, 0, new PlotTitle(qLine_, QString(), boldFont(qLine_)));
    qLine_->addGraph();
    wNote_ = new QLabel;
    aNote_ = new QLabel;
    qNote_ = new QLabel;
    int col = 0;
    // Each matrix over its note; a matrix too large to draw leaves its note in its place.
    for (auto [plot, note] : {std::pair{wPlot_, wNote_}, std::pair{aPlot_, aNote_}}) {
        note->setWordWrap(true);
        auto* box = new QWidget;
        auto* vbox = new QVBoxLayout(box);
        vbox->setContentsMargins(0, 0, 0, 0);
        vbox->addWidget(plot, 1);
        vbox->addWidget(note);
        ml->addWidget(box, 0, col);
        ++col;
    }
    qNote_->setWordWrap(true);
    margPlot_ = new QCustomPlot;
    margPlot_->setObjectName(QStringLiteral("strategyMarginalPlot"));
    margArea_ = new QScrollArea;
    margArea_->setWidget(margPlot_);
    margArea_->setWidgetResizable(true);
    margArea_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    margArea_->setFrameShape(QFrame::NoFrame);
    margArea_->setVisible(false);
    margArea_->viewport()->installEventFilter(this);
    ml->addWidget(qPlot_, 1, 0, 1, 2);
    ml->addWidget(qLine_, 1, 0, 1, 2);
    ml->addWidget(margArea_, 1, 0, 1, 2);
    ml->addWidget(qNote_, 2, 0, 1, 2);
    ml->setRowStretch(0, 1);
    ml->setRowStretch(1, 1);

    // Page: the simulation on the current table.
    auto* applyPage = new QWidget;
    auto* al = new QVBoxLayout(applyPage);
    banner_ =
        new QLabel(tr("SIMULATION — not a release. The noise here comes from a simulation "
                      "generator and nothing is spent from a privacy budget; “Release "
                      "through this strategy…” makes a real release through the ledger."));
    banner_->setWordWrap(true);
    banner_->setObjectName(QStringLiteral("strategySimulationBanner"));
    banner_->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; color: #664d03; "
                       "border: 1px solid #e0c36c; padding: 6px; "
                       "font-weight: bold; }"));
    al->addWidget(banner_);
    auto* ar = new QWidget;
    // Wraps on a narrow window (issue #21: 1024 × 768).
    auto* arl = new FlowLayout(ar, 6);
    arl->setContentsMargins(0, 0, 0, 0);
    simulate_ = new QPushButton(tr("Simulate on the current table"));
    nnls_ = new QCheckBox(tr("Non-negative least squares"));
    applySeed_ = new QSpinBox;
    applySeed_->setRange(0, static_cast<int>(kMaxStrategySeed));
    arl->addWidget(simulate_);
    arl->addWidget(nnls_);
    arl->addWidget(new QLabel(tr("Noise seed")));
    arl->addWidget(applySeed_);
    release_ = new QPushButton(tr("Release through this strategy…"));
    release_->setObjectName(QStringLiteral("strategyRelease"));
    release_->setToolTip(
        tr("Publish the current table through a strategy designed for this workload and "
           "template: the strategy is rounded to integer queries, measured with exact discrete "
           "Laplace noise from the operating system's generator and charged to a ledger (the "
           "release dialog shows the cost and the intervals first)."));
    connect(release_, &QPushButton::clicked, this, &StrategyTab::releaseRequested);
    arl->addWidget(release_);
    al->addWidget(ar);
    applyPlot_ = new QCustomPlot;
    applyPlot_->legend->setVisible(true);
    // Top right, like the error plot's: short names keep it inside a narrow plot.
    applyPlot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    al->addWidget(applyPlot_, 1);
    applyText_ = new QLabel;
    applyText_->setWordWrap(true);
    applyText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    al->addWidget(applyText_);
    // Takes the plot's place while there is none, so that the rest stays at the top.
    applySpacer_ = new QWidget;
    applySpacer_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
    al->addWidget(applySpacer_, 1);
    for (QWidget* wgt : {static_cast<QWidget*>(banner_), ar, static_cast<QWidget*>(applyText_)}) {
        wgt->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    }

    pages_ = new QTabWidget;
    pages_->addTab(errorPage, tr("RMSE against ε"));
    pages_->addTab(matPage, tr("W, A and per-query error"));
    pages_->addTab(applyPage, tr("Simulate on the table"));

    // The pages on the left, the design's controls on the right (as in the Trade-off tab and the
    // More mechanisms pages), or under the pages when the tab's room is narrower than both need:
    // beside a CSV file's data panel at 1024 × 768 the controls left the W / A / per-query
    // heatmaps and their colour scales cut at the right (issue #21).
    auto* top = new QHBoxLayout(this);
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(pages_, 1);
    top->addWidget(scroll);
    sideBySideOrStacked(this, top);

    const auto redesign = [this] { edited(true); };
    const auto redrawOnly = [this] { edited(false); };
    connect(domain_, &QComboBox::currentIndexChanged, this, redesign);
    connect(template_, &QComboBox::currentIndexChanged, this, redesign);
    for (QSpinBox* s : {n_, rows_, cols_, restarts_, seed_}) {
        connect(s, &QSpinBox::valueChanged, this, redesign);
    }
    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        if (!settingControls_) {
            paramText_[shownKind_] = param_->text();
            shownKind_ = kind_->currentIndex();
            const QSignalBlocker b(param_);
            param_->setText(paramText_[shownKind_]);
        }
        edited(true);
    });
    connect(param_, &QLineEdit::editingFinished, this, redesign);
    connect(p_, &QLineEdit::editingFinished, this, redesign);
    connect(epsilon_, &QDoubleSpinBox::valueChanged, this, redrawOnly);
    connect(noise_, &QComboBox::currentIndexChanged, this, redrawOnly);
    connect(delta_, &QLineEdit::editingFinished, this, redrawOnly);
    connect(nnls_, &QCheckBox::toggled, this, redrawOnly);
    connect(applySeed_, &QSpinBox::valueChanged, this, redrawOnly);
    connect(pages_, &QTabWidget::currentChanged, this, [this] {
        if (!settingControls_) {
            Q_EMIT choicesEdited();
        }
    });
    connect(optimise_, &QPushButton::clicked, this, &StrategyTab::optimise);
    connect(cancel_, &QPushButton::clicked, this, &StrategyTab::cancel);
    connect(simulate_, &QPushButton::clicked, this, &StrategyTab::simulate);
    applyPalette();
}

void StrategyTab::updateVisibility() {
    const QString mode = domain_->currentData().toString();
    n_->setEnabled(mode == QLatin1String("1d"));
    rows_->setEnabled(mode == QLatin1String("2d"));
    cols_->setEnabled(mode == QLatin1String("2d"));
    if (mode == QLatin1String("table")) {
        DomainShape shape;
        auto x = designerTableVector(table_.get(), &shape);
        tableNote_->setText(
            x ? tr("%1: %2 cells (%3)")
                    .arg(tableName_.isEmpty() ? tr("the table") : tableName_,
                         formatThinSpaceGrouped(static_cast<long long>(shapeCells(shape))),
                         domainText(shape))
              : QString::fromStdString(x.error().message));
        workloadRows_->setRowShown(tableNote_, true);
    } else {
        workloadRows_->setRowShown(tableNote_, false);
    }
    const KindRow& k = kKinds[static_cast<std::size_t>(std::max(0, kind_->currentIndex()))];
    paramLabel_->setText(k.param ? tr(k.param) : QString());
    workloadRows_->setRowShown(param_, k.param != nullptr);
    delta_->setEnabled(true);
    cancel_->setEnabled(running_ || applying_);
    simulate_->setEnabled(result_ != nullptr && !applying_);
    release_->setEnabled(table_ != nullptr);
    templateRows_->setRowShown(progress_, running_);
}

StrategyChoices StrategyTab::choices() const {
    StrategyChoices c;
    c.domain = domain_->currentData().toString();
    c.n = n_->value();
    c.rows = rows_->value();
    c.cols = cols_->value();
    const KindRow& k = kKinds[static_cast<std::size_t>(std::max(0, kind_->currentIndex()))];
    c.workload = QString::fromLatin1(k.head);
    if (kind_->currentIndex() == kTextKind) {
        c.workload = param_->text().trimmed();
    } else if (k.param && !param_->text().trimmed().isEmpty()) {
        c.workload += QLatin1Char(':') + param_->text().trimmed();
    }
    c.templ = template_->currentData().toString();
    c.p.clear();
    for (const QString& part : p_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const double v = part.trimmed().toDouble(&ok);
        c.p.push_back(ok ? v : -1);  // -1: validate() names it
    }
    c.restarts = restarts_->value();
    c.seed = seed_->value();
    c.epsilon = epsilon_->value();
    c.noise = noise_->currentData().toString();
    bool ok = false;
    const double d = delta_->text().trimmed().toDouble(&ok);
    c.delta = ok ? d : -1;
    static const QString kPages[] = {QStringLiteral("error"), QStringLiteral("matrices"),
                                     QStringLiteral("apply")};
    c.page = kPages[std::clamp(pages_->currentIndex(), 0, 2)];
    c.nnls = nnls_->isChecked();
    c.applySeed = applySeed_->value();
    return c;
}

void StrategyTab::setChoices(const StrategyChoices& c) {
    const StrategyChoices before = choices();
    settingControls_ = true;
    domain_->setCurrentIndex(std::max(0, domain_->findData(c.domain)));
    n_->setValue(c.n);
    rows_->setValue(c.rows);
    cols_->setValue(c.cols);
    QString head = c.workload.section(QLatin1Char(':'), 0, 0).trimmed();
    QString param = c.workload.section(QLatin1Char(':'), 1);
    const bool weightedPart = c.workload.contains(QLatin1Char('*')) &&
                              !c.workload.trimmed().startsWith(QLatin1String("boxes"));
    if (c.workload.contains(QLatin1Char('+')) || weightedPart) {
        head = QStringLiteral("text");  // a union (or a weighted part): shown as text
        param = c.workload;
    }
    int k = kind_->findData(head);
    if (k < 0) {
        k = 2;
        message_ = tr("Unknown workload '%1' in the session: all ranges instead.").arg(c.workload);
    }
    shownKind_ = k;
    if (kKinds[static_cast<std::size_t>(k)].param) {
        paramText_[k] = param;
    }
    kind_->setCurrentIndex(k);
    param_->setText(paramText_[k]);
    QStringList ps;
    for (double v : c.p) {
        ps << QString::number(v, 'g', 10);
    }
    p_->setText(ps.join(QStringLiteral(", ")));
    restarts_->setValue(c.restarts);
    seed_->setValue(static_cast<int>(c.seed));
    template_->setCurrentIndex(std::max(0, template_->findData(c.templ)));
    epsilon_->setValue(c.epsilon);
    noise_->setCurrentIndex(std::max(0, noise_->findData(c.noise)));
    delta_->setText(QString::number(c.delta, 'g', 6));
    pages_->setCurrentIndex(c.page == QLatin1String("matrices") ? 1
                            : c.page == QLatin1String("apply")  ? 2
                                                                : 0);
    nnls_->setChecked(c.nnls);
    applySeed_->setValue(static_cast<int>(c.applySeed));
    settingControls_ = false;
    updateVisibility();
    StrategyChoices a = before, b = choices();
    a.epsilon = b.epsilon;
    a.noise = b.noise;
    a.delta = b.delta;
    a.page = b.page;
    a.nnls = b.nnls;
    a.applySeed = b.applySeed;
    if (a != b || !result_) {
        stale_ = true;
        if (isVisible()) {
            restart_->start();
        }
    } else {
        applied_.reset();
        redraw();
    }
}

Expected<DesignerInputs> StrategyTab::inputs() const {
    const StrategyChoices c = choices();
    DesignerInputs in;
    if (c.domain == QLatin1String("1d")) {
        in.shape = {static_cast<std::size_t>(c.n)};
    } else if (c.domain == QLatin1String("2d")) {
        in.shape = {static_cast<std::size_t>(c.rows), static_cast<std::size_t>(c.cols)};
    } else {
        auto x = designerTableVector(table_.get(), &in.shape);
        if (!x) {
            return Error{"domain: " + x.error().message};
        }
    }
    in.workload = c.workload;
    for (double v : c.p) {
        if (!(v >= 1 && v <= 1e6 && v == std::floor(v))) {
            return Error{"p: every value must be a whole number from 1 to 10^6 (got '" +
                         p_->text().toStdString() + "')"};
        }
        in.p.push_back(static_cast<std::size_t>(v));
    }
    if (in.p.size() == 1 && in.shape.size() > 1) {
        in.p.assign(in.shape.size(), in.p[0]);
    }
    in.restarts = static_cast<std::size_t>(c.restarts);
    in.seed = static_cast<std::uint64_t>(c.seed);
    auto t = designTemplateFromName(c.templ.toStdString());
    if (!t) {
        return t.error();
    }
    in.templ = *t;
    return in;
}

Expected<MeasurementSpec> StrategyTab::measurement() const {
    const StrategyChoices c = choices();
    MeasurementSpec spec = c.noise == QLatin1String("gaussian")
                               ? MeasurementSpec::gaussian(c.epsilon, c.delta)
                               : MeasurementSpec::laplace(c.epsilon);
    if (auto st = spec.validate(); !st) {
        return st.error();
    }
    return spec;
}

MeasurementNoise StrategyTab::noiseLaw() const {
    return choices().noise == QLatin1String("gaussian") ? MeasurementNoise::Gaussian
                                                        : MeasurementNoise::Laplace;
}

void StrategyTab::setWindowTable(std::shared_ptr<const ContingencyTable> table,
                                 const QString& name) {
    table_ = std::move(table);
    tableName_ = name;
    applied_.reset();
    applyMessage_.clear();
    updateVisibility();
    if (domain_->currentData().toString() == QLatin1String("table")) {
        stale_ = true;
        if (isVisible()) {
            restart_->start();
        }
    } else {
        drawApplied();
    }
}

void StrategyTab::edited(bool redesign) {
    if (settingControls_) {
        return;
    }
    updateVisibility();
    Q_EMIT choicesEdited();
    if (redesign) {
        stale_ = true;
        if (isVisible()) {
            restart_->start();
        }
        return;
    }
    applied_.reset();
    applyMessage_.clear();
    redraw();
}

void StrategyTab::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_ && !running_) {
        restart_->start(0);
    }
}

void StrategyTab::optimise() {
    restart_->stop();
    stale_ = false;
    applied_.reset();
    applyMessage_.clear();
    auto in = inputs();
    if (!in) {
        runner_->cancel(kSlot);
        running_ = false;
        result_.reset();
        finish(QString::fromStdString(in.error().message));
        return;
    }
    running_ = true;
    progressValue_ = std::make_shared<std::atomic<double>>(0.0);
    progress_->setValue(0);
    poll_->start();
    setStatus(tr("Optimising the strategy for %1 on %2…").arg(in->workload, domainText(in->shape)));
    updateVisibility();
    auto value = progressValue_;
    runner_->run<Expected<DesignerResult>>(
        kSlot,
        [inputs = *in, value](std::stop_token stop, JobProgress& progress) {
            return designForWindow(inputs, stop, [&](double f) {
                value->store(f);
                progress.set(f);
            });
        },
        [this](Expected<DesignerResult> r) {
            running_ = false;
            poll_->stop();
            if (!r) {
                result_.reset();
                finish(QString::fromStdString(r.error().message));
                return;
            }
            result_ = std::make_shared<const DesignerResult>(std::move(r).value());
            const DesignerResult& g = designerFor(*result_, MeasurementNoise::Gaussian);
            finish(tr("%1: for Laplace measurement %2, %3 iterations of L-BFGS-B; for Gaussian "
                      "measurement (‖A‖₂²·trace) %4, %5 iterations.")
                       .arg(result_->workloadDescription, result_->templateName)
                       .arg(result_->iterations)
                       .arg(g.templateName)
                       .arg(g.iterations));
            // On the simulation page with the table's shape, the simulation follows at once
            // (it spends nothing: the noise is simulated).
            if (pages_->currentIndex() == 2 &&
                domain_->currentData().toString() == QLatin1String("table") && table_) {
                simulate();
            }
        },
        tr("Optimising strategy"));
}

void StrategyTab::cancel() {
    restart_->stop();
    if (running_) {
        runner_->cancel(kSlot);
        running_ = false;
        poll_->stop();
        finish(tr("Optimisation cancelled: press Optimise to run it again."));
        return;
    }
    if (applying_) {
        runner_->cancel(kApplySlot);
        applying_ = false;
        applyMessage_ = tr("Simulation cancelled.");
        updateVisibility();
        drawApplied();
        Q_EMIT drawn();
    }
}

void StrategyTab::simulate() {
    if (!result_) {
        applyMessage_ = tr("Optimise a strategy first.");
        drawApplied();
        return;
    }
    DomainShape shape;
    auto x = designerTableVector(table_.get(), &shape);
    auto spec = measurement();
    if (!x || !spec) {
        applyMessage_ = QString::fromStdString(!x ? x.error().message : spec.error().message);
        drawApplied();
        Q_EMIT drawn();
        return;
    }
    applying_ = true;
    applyMessage_ = tr("Simulating…");
    updateVisibility();
    drawApplied();
    runner_->run<Expected<DesignerApplied>>(
        kApplySlot,
        [r = result_, x = std::move(x).value(), spec = *spec, seed = applySeed_->value(),
         nnls = nnls_->isChecked()](std::stop_token stop, JobProgress& progress) {
            progress.setIndeterminate();
            return applyDesign(*r, x, spec, static_cast<std::uint64_t>(seed), nnls, stop);
        },
        [this](Expected<DesignerApplied> a) {
            applying_ = false;
            if (a) {
                applied_ = std::move(a).value();
                applyMessage_.clear();
            } else {
                applied_.reset();
                applyMessage_ = QString::fromStdString(a.error().message);
            }
            updateVisibility();
            drawApplied();
            Q_EMIT drawn();
        },
        tr("Simulating the strategy"));
}

bool StrategyTab::busy() const {
    return running_ || applying_ || restart_->isActive() || (stale_ && isVisible());
}

QString StrategyTab::message() const {
    return message_;
}
QString StrategyTab::verdict() const {
    return verdict_->text();
}
QString StrategyTab::applyMessage() const {
    return applyText_->text();
}

void StrategyTab::setStatus(const QString& text) {
    message_ = text;
    status_->setText(text);
}

void StrategyTab::finish(const QString& text) {
    setStatus(text);
    updateVisibility();
    redraw();
    Q_EMIT drawn();
}

void StrategyTab::redraw() {
    drawErrorPlot();
    drawMatrices();
    drawApplied();
}

double StrategyTab::shownRmse(std::size_t index, bool gaussian, double epsilon) const {
    if (index >= graphs_.size()) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    QCPGraph* g = gaussian ? graphs_[index].second : graphs_[index].first;
    if (!g) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
        if (std::abs(it->key / epsilon - 1) < 1e-9) {
            return it->value;
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

void StrategyTab::drawErrorPlot() {
    QCustomPlot* p = errorPlot_;
    p->clearGraphs();
    p->clearItems();
    graphs_.clear();
    const StrategyChoices c = choices();
    const bool deltaOk = c.delta > 0 && c.delta < 1;
    p->xAxis->setLabel(tr("ε   (solid: Laplace; dashed: Gaussian, δ = %1)")
                           .arg(deltaOk ? fmt(c.delta) : QStringLiteral("?")));
    p->yAxis->setLabel(tr("RMSE per query (exact, least squares)"));
    p->legend->setVisible(result_ != nullptr);
    if (!result_) {
        verdict_->setText(message_.isEmpty() ? tr("Optimise a strategy to see its error.")
                                             : message_);
        atEpsilon_->clear();
        p->xAxis->setRange(0.01, 10);
        p->yAxis->setRange(1, 1000);
        auto* t = new QCPItemText(p);
        t->position->setType(QCPItemPosition::ptAxisRectRatio);
        t->position->setCoords(0.5, 0.5);
        t->setText(running_ ? tr("Optimising…")
                            : tr("No strategy designed: see the message below."));
        t->setColor(palette().color(QPalette::WindowText));
        p->replot();
        return;
    }
    const DesignerResult& r = *result_;
    const std::vector<double> grid = designerEpsilonGrid();
    const QColor text = palette().color(QPalette::WindowText);
    double lo = INFINITY, hi = 0;
    QStringList at;
    const auto spec = measurement();
    for (std::size_t i = 0; i < r.strategies.size(); ++i) {
        const DesignerStrategy& s = r.strategies[i];
        std::pair<QCPGraph*, QCPGraph*> pair{nullptr, nullptr};
        if (!s.unavailable.isEmpty()) {
            at << tr("%1: unavailable (%2)").arg(s.name, s.unavailable);
            graphs_.push_back(pair);
            continue;
        }
        for (int gaussian = 0; gaussian < 2; ++gaussian) {
            if ((gaussian && !deltaOk) ||
                !s.drawnFor(gaussian ? MeasurementNoise::Gaussian : MeasurementNoise::Laplace)) {
                continue;
            }
            QVector<double> xs, ys;
            for (double eps : grid) {
                auto e = designerRmse(r, s,
                                      gaussian ? MeasurementSpec::gaussian(eps, c.delta)
                                               : MeasurementSpec::laplace(eps));
                if (e && std::isfinite(*e) && *e > 0) {
                    xs << eps;
                    ys << *e;
                    lo = std::min(lo, *e);
                    hi = std::max(hi, *e);
                }
            }
            QCPGraph* g = p->addGraph();
            g->setData(xs, ys, true);
            // The designs (for Laplace, solid; for Gaussian, dashed) share the first colour.
            QPen pen(s.optimised ? kColours[0] : kColours[i % kColours.size()],
                     s.optimised ? 3.0 : 1.8);
            if (gaussian) {
                pen.setStyle(Qt::DashLine);
            }
            // One legend entry per strategy: its solid curve, or its dashed one when it is
            // drawn for Gaussian measurement only (the best hierarchy by Δ₂²·trace).
            if (gaussian && s.law != DesignerLaw::Gaussian) {
                g->removeFromLegend();
            } else {
                g->setName(s.name);
            }
            g->setPen(pen);
            (gaussian ? pair.second : pair.first) = g;
        }
        graphs_.push_back(pair);
        if (spec && s.drawnFor(spec->noise)) {
            if (auto e = designerRmse(r, s, *spec)) {
                at << tr("%1: %2").arg(s.name.section(QStringLiteral(" ("), 0, 0), fmt(*e));
            }
        }
    }
    if (spec) {
        auto* line = new QCPItemStraightLine(p);
        line->point1->setCoords(c.epsilon, 1);
        line->point2->setCoords(c.epsilon, 2);
        QColor lc = text;
        lc.setAlpha(110);
        line->setPen(QPen(lc, 1, Qt::DotLine));
        atEpsilon_->setText(tr("At ε = %1 (%2), RMSE per query — %3.")
                                .arg(fmt(c.epsilon),
                                     c.noise == QLatin1String("gaussian")
                                         ? tr("Gaussian, δ = %1").arg(fmt(c.delta))
                                         : tr("Laplace"),
                                     at.join(QStringLiteral(" · "))));
    } else {
        atEpsilon_->setText(QString::fromStdString(spec.error().message));
    }
    p->xAxis->setRange(0.01, 10);
    if (hi > 0) {
        p->yAxis->setRange(lo / 1.5, hi * 1.5);
    }
    verdict_->setText(designerVerdict(r,
                                      c.noise == QLatin1String("gaussian") && deltaOk
                                          ? MeasurementNoise::Gaussian
                                          : MeasurementNoise::Laplace,
                                      c.delta));
    p->replot();
}

void StrategyTab::drawMatrices() {
    if (!result_) {
        for (QCustomPlot* plot : {wPlot_, aPlot_, qPlot_, qLine_}) {
            plot->setVisible(false);
        }
        margArea_->setVisible(false);
        wNote_->setText(message_.isEmpty() ? tr("Optimise a strategy to see its matrices.")
                                           : message_);
        aNote_->clear();
        qNote_->clear();
        return;
    }
    // W from the result; A and the per-query errors from the design for the chosen noise law.
    const DesignerResult& r = designerFor(*result_, noiseLaw());
    const DomainShape& shape = r.inputs.shape;
    const std::size_t cells = shapeCells(shape);
    const QString cellsLabel = shape.size() == 1 ? tr("cell") : tr("cell (C order)");
    const DesignerResult& wr = *result_;
    wPlot_->setVisible(!wr.w.empty());
    wNote_->setAlignment(wr.w.empty() ? Qt::AlignCenter : Qt::AlignLeft | Qt::AlignTop);
    wNote_->setSizePolicy(QSizePolicy::Preferred,
                          wr.w.empty() ? QSizePolicy::Expanding : QSizePolicy::Minimum);
    if (!wr.w.empty()) {
        fillMatrix(wPlot_, wr.w, wr.wRows, cells, tr("W: %1").arg(wr.workloadDescription),
                   cellsLabel, tr("query"));
        wNote_->setText(tr("W, the workload: %1 queries × %2 cells.").arg(wr.wRows).arg(cells));
    } else {
        wNote_->setText(wr.wNote + tr(" Its per-query error is drawn below."));
    }
    aPlot_->setVisible(!r.a.empty());
    aNote_->setAlignment(r.a.empty() ? Qt::AlignCenter : Qt::AlignLeft | Qt::AlignTop);
    aNote_->setSizePolicy(QSizePolicy::Preferred,
                          r.a.empty() ? QSizePolicy::Expanding : QSizePolicy::Minimum);
    const QString aName = r.strategies[0].description;
    if (!r.a.empty()) {
        fillMatrix(aPlot_, r.a, r.aRows, cells, tr("A: %1").arg(r.templateName), cellsLabel,
                   tr("measured row"));
        const bool l2 = r.measurement == MeasurementNoise::Gaussian;
        aNote_->setText((l2 ? tr("A, optimised for Gaussian (‖A‖₂²·trace): %1 rows × %2 cells, "
                                 "column L2 norm ≤ %3.")
                            : tr("A, optimised for Laplace (‖A‖₁²·trace): %1 rows × %2 cells, "
                                 "column L1 norm ≤ %3."))
                            .arg(r.aRows)
                            .arg(cells)
                            .arg(fmt(l2 ? r.strategies[0].strategy->sensitivityL2()
                                        : r.strategies[0].strategy->sensitivityL1())));
    } else {
        aNote_->setText(r.aNote);
    }
    auto spec = measurement();
    margArea_->setVisible(false);
    if (r.perQueryForm.empty() || !spec) {
        qPlot_->setVisible(false);
        qLine_->setVisible(false);
        qNote_->setText(!spec ? QString::fromStdString(spec.error().message) : r.perQueryNote);
        return;
    }
    auto v = measurementVariance(*r.strategies[0].strategy, *spec);
    if (!v) {
        qNote_->setText(QString::fromStdString(v.error().message));
        return;
    }
    const QString what = tr("Expected error per query of the strategy optimised for it, %1")
                             .arg(QString::fromStdString(spec->describe()));
    // Marginals over three or more attributes: one heatmap per marginal, one colour scale.
    if (const MarginalPanels panels = marginalPanels(r); !panels.panels.empty()) {
        qPlot_->setVisible(false);
        qLine_->setVisible(false);
        margArea_->setVisible(true);
        drawMarginalPanels(r, panels, *v, what);
        return;
    }
    const PerQueryGrid grid = perQueryGrid(r);
    const bool onGrid = grid.rows > 0;
    qPlot_->setVisible(onGrid);
    qLine_->setVisible(!onGrid);
    if (onGrid) {
        std::vector<double> m(grid.form.size(), std::numeric_limits<double>::quiet_NaN());
        double lo = INFINITY, hi = 0;
        std::size_t loAt = 0, hiAt = 0;
        for (std::size_t c = 0; c < grid.form.size(); ++c) {
            if (std::isnan(grid.form[c])) {
                continue;
            }
            const double e = std::sqrt(*v * grid.form[c]);
            m[c] = e;
            if (e < lo) {
                lo = e;
                loAt = c;
            }
            if (e > hi) {
                hi = e;
                hiAt = c;
            }
        }
        fillMatrix(qPlot_, m, grid.rows, grid.cols, what, tr(qPrintable(grid.xLabel)),
                   tr(qPrintable(grid.yLabel)));
        if (hi - lo <= 1e-9 * hi) {
            qNote_->setText(tr("Heatmap of the per-query RMSE (exact: σ·√(wᵀ(AᵀA)⁻¹w)): %1. "
                               "Every query has the same RMSE, %2.")
                                .arg(grid.layout, fmt(hi)));
            return;
        }
        qNote_->setText(tr("Heatmap of the per-query RMSE (exact: σ·√(wᵀ(AᵀA)⁻¹w)): %1. From "
                           "%2 for %3 to %4 for %5.")
                            .arg(grid.layout, fmt(lo),
                                 queryText(r.workload->query(grid.query[loAt])), fmt(hi),
                                 queryText(r.workload->query(grid.query[hiAt]))));
        return;
    }
    QVector<double> xs, ys;
    const std::size_t q = r.perQueryForm.size();
    const std::size_t step = std::max<std::size_t>(1, q / 20000);
    for (std::size_t i = 0; i < q; i += step) {
        xs << static_cast<double>(i);
        ys << std::sqrt(*v * r.perQueryForm[i]);
    }
    qLine_->graph(0)->setData(xs, ys, true);
    qLine_->graph(0)->setPen(QPen(kColours[0], 1.5));
    qLine_->graph(0)->setLineStyle(q > 400 ? QCPGraph::lsLine : QCPGraph::lsNone);
    qLine_->graph(0)->setScatterStyle(
        QCPScatterStyle(q > 400 ? QCPScatterStyle::ssNone : QCPScatterStyle::ssDisc, 4));
    qobject_cast<QCPTextElement*>(qLine_->plotLayout()->element(0, 0))->setText(what);
    qLine_->xAxis->setLabel(tr("query (in the workload's order)"));
    qLine_->yAxis->setLabel(tr("RMSE of the query"));
    qLine_->rescaleAxes();
    const QCPRange yr = qLine_->yAxis->range();
    qLine_->yAxis->setRange(yr.lower / 1.3, yr.upper * 1.3);
    qLine_->replot();
    qNote_->setText(tr("%1 queries%2; exact per-query RMSE σ·√(wᵀ(AᵀA)⁻¹w). Drawn along the "
                       "query index, not as a heatmap, because %3.")
                        .arg(formatThinSpaceGrouped(static_cast<long long>(q)),
                             step > 1 ? tr(" (every %1th drawn)").arg(step) : QString(), grid.why));
}

QString StrategyTab::attributeName(const DesignerResult& r, std::size_t a) const {
    // The table's attribute names when the design is on the table's shape, else A1, A2, …
    if (table_ && table_->attributeCount() == r.inputs.shape.size() &&
        domain_->currentData().toString() == QLatin1String("table")) {
        bool same = true;
        for (std::size_t i = 0; i < r.inputs.shape.size(); ++i) {
            same = same && table_->attribute(i).size() == r.inputs.shape[i];
        }
        if (same) {
            return QString::fromStdString(table_->attribute(a).name);
        }
    }
    return QStringLiteral("A%1").arg(a + 1);
}

void StrategyTab::drawMarginalPanels(const DesignerResult& r, const MarginalPanels& panels,
                                     double variance, const QString& what) {
    QCustomPlot* p = margPlot_;
    p->clearPlottables();
    p->plotLayout()->clear();  // also the default axis rect and its legend (p->legend is null)
    const QColor text = palette().color(QPalette::WindowText);
    p->setBackground(palette().color(QPalette::Base));
    const QColor nanColour(0xc8, 0xc8, 0xc8);
    auto* heading = new PlotTitle(p, what, boldFont(p));
    heading->setTextColor(text);  // the palette's (dark theme too)
    p->plotLayout()->addElement(0, 0, heading);
    auto* grid = new QCPLayoutGrid;
    p->plotLayout()->addElement(1, 0, grid);
    QCPColorScale* scale = makeColorScale(p);
    p->plotLayout()->addElement(1, 1, scale);
    p->plotLayout()->setRowStretchFactor(0, 0.001);
    scale->axis()->setLabel(tr("RMSE"));
    // As many columns as fit about 220 pixels each (four at most), rows scroll.
    const int width = std::max(margArea_->viewport()->width(), 240);
    const int perRow = std::clamp((width - 90) / 220, 1, 4);
    margPerRow_ = perRow;
    const int rows =
        static_cast<int>((panels.panels.size() + static_cast<std::size_t>(perRow) - 1) /
                         static_cast<std::size_t>(perRow));
    QFont small = p->font();
    small.setBold(true);
    double lo = INFINITY, hi = 0;
    std::size_t loPanel = 0, hiPanel = 0, loCell = 0, hiCell = 0;
    std::vector<QCPColorMap*> maps;
    for (std::size_t i = 0; i < panels.panels.size(); ++i) {
        const MarginalPanel& panel = panels.panels[i];
        QStringList names;
        for (std::size_t a : panel.attributes) {
            names << attributeName(r, a);
        }
        auto* cell = new QCPLayoutGrid;
        grid->addElement(static_cast<int>(i) / perRow, static_cast<int>(i) % perRow, cell);
        auto* title = new QCPTextElement(p, names.join(QStringLiteral(" × ")), small);
        title->setTextColor(text);
        cell->addElement(0, 0, title);
        auto* rect = new QCPAxisRect(p, true);
        cell->addElement(1, 0, rect);
        cell->setRowStretchFactor(0, 0.001);
        QCPColorMap* map = addHeatmap(rect, nanColour);
        map->setColorScale(scale);
        map->setGradient([&] {
            QCPColorGradient g = viridisGradient();
            g.setNanHandling(QCPColorGradient::nhNanColor);
            g.setNanColor(nanColour);
            return g;
        }());
        const int nc = static_cast<int>(std::max<std::size_t>(panel.cols, 2));
        const int nr = static_cast<int>(std::max<std::size_t>(panel.rows, 2));
        map->data()->setSize(nc, nr);
        map->data()->setRange(QCPRange(0, nc - 1), QCPRange(0, nr - 1));
        for (int y = 0; y < nr; ++y) {
            for (int x = 0; x < nc; ++x) {
                const std::size_t sy = std::min(static_cast<std::size_t>(y), panel.rows - 1);
                const std::size_t sx = std::min(static_cast<std::size_t>(x), panel.cols - 1);
                map->data()->setCell(x, y, std::sqrt(variance * panel.form[sy * panel.cols + sx]));
            }
        }
        for (std::size_t c = 0; c < panel.form.size(); ++c) {
            const double e = std::sqrt(variance * panel.form[c]);
            if (e < lo) {
                lo = e;
                loPanel = i;
                loCell = c;
            }
            if (e > hi) {
                hi = e;
                hiPanel = i;
                hiCell = c;
            }
        }
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        x->setTicker(QSharedPointer<IntegerTicker>::create());
        y->setTicker(QSharedPointer<IntegerTicker>::create());
        if (panel.attributes.size() == 1) {
            x->setLabel(names[0]);
            y->setTicks(false);  // a strip: one row
            y->setTickLabels(false);
        } else {
            y->setLabel(names[0]);
            QStringList rest = names.mid(1);
            x->setLabel(rest.size() == 1
                            ? rest[0]
                            : tr("%1 (C order)").arg(rest.join(QStringLiteral(" × "))));
        }
        for (QCPAxis* axis : {x, y}) {
            axis->setLabelColor(text);
            axis->setTickLabelColor(text);
            axis->setBasePen(QPen(text));
            axis->setTickPen(QPen(text));
        }
        x->setRange(-0.5, nc - 0.5);
        y->setRange(-0.5, nr - 0.5);
        maps.push_back(map);
    }
    if (hi >= lo && hi - lo <= 1e-9 * hi) {
        scale->setDataRange(QCPRange(hi - 0.1 * hi, hi + 0.1 * hi));
    } else if (hi > lo) {
        scale->setDataRange(QCPRange(lo, hi));
    }
    for (QCPColorMap* m : maps) {
        m->setDataRange(scale->dataRange());
    }
    scale->axis()->setLabelColor(text);
    scale->axis()->setTickLabelColor(text);
    // Each heatmap about 170 pixels tall, plus the title; the area scrolls beyond its height.
    p->setMinimumHeight(rows * 190 + 40);
    p->replot();
    const auto cellText = [&](std::size_t panel, std::size_t c) {
        return queryText(r.workload->query(panels.panels[panel].query[c]));
    };
    if (hi - lo <= 1e-9 * hi) {
        qNote_->setText(tr("One heatmap per marginal (%1), on one colour scale: each cell shows "
                           "the exact RMSE σ·√(wᵀ(AᵀA)⁻¹w) of that marginal cell. Every query has "
                           "the same RMSE, %2.")
                            .arg(panels.panels.size())
                            .arg(fmt(hi)));
        return;
    }
    qNote_->setText(
        tr("One heatmap per marginal (%1), on one colour scale: each cell shows the "
           "exact RMSE σ·√(wᵀ(AᵀA)⁻¹w) of that marginal cell; from %2 for %3 to %4 "
           "for %5.")
            .arg(panels.panels.size())
            .arg(fmt(lo), cellText(loPanel, loCell), fmt(hi), cellText(hiPanel, hiCell)));
}

void StrategyTab::drawApplied() {
    QCustomPlot* p = applyPlot_;
    p->clearPlottables();
    const bool tableShape = domain_->currentData().toString() == QLatin1String("table");
    if (!applied_) {
        QString text = applyMessage_;
        if (text.isEmpty()) {
            text = !table_ ? tr("No table is loaded: open data in the Data panel.")
                   : !tableShape
                       ? tr("Choose the domain \"The current table's shape\" to simulate the "
                            "strategy on the table.")
                       : tr("Press \"Simulate on the current table\" to measure A·x with noise "
                            "at ε = %1 and infer the workload's answers.")
                             .arg(fmt(epsilon_->value()));
        }
        applyText_->setText(text);
        p->setVisible(false);
        applySpacer_->setVisible(true);
        return;
    }
    const DesignerApplied& a = *applied_;
    p->setVisible(true);
    applySpacer_->setVisible(false);
    const std::size_t shown = std::min<std::size_t>(a.truth.size(), 300);
    // The realised error of each query (estimate − true answer) against the band of ± 2
    // expected standard deviations around 0: readable at any count.
    QVector<double> xs, zero, diff, err;
    for (std::size_t i = 0; i < shown; ++i) {
        xs << static_cast<double>(i);
        zero << 0.0;
        diff << a.estimate[i] - a.truth[i];
        err << (a.sd.empty() ? 0.0 : 2 * a.sd[i]);
    }
    if (!a.sd.empty()) {
        QCPGraph* band = p->addGraph();
        band->setData(xs, zero, true);
        band->setLineStyle(QCPGraph::lsNone);
        band->removeFromLegend();
        auto* bars = new QCPErrorBars(p->xAxis, p->yAxis);
        bars->setDataPlottable(band);
        bars->setData(err);
        bars->setName(tr("± 2 expected sd (exact)"));
        QColor bc = palette().color(QPalette::WindowText);
        bc.setAlpha(90);
        bars->setPen(QPen(bc));
    }
    QCPGraph* ge = p->addGraph();
    ge->setName(a.nnls ? tr("realised error (NNLS)") : tr("realised error (LS)"));
    ge->setData(xs, diff, true);
    ge->setLineStyle(QCPGraph::lsNone);
    ge->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kColours[0], 5));
    p->xAxis->setLabel(tr("query (the first %1 of %2)")
                           .arg(shown)
                           .arg(formatThinSpaceGrouped(static_cast<long long>(a.truth.size()))));
    p->yAxis->setLabel(tr("estimate − true answer (count)"));
    p->rescaleAxes();
    const QCPRange yr = p->yAxis->range();
    p->yAxis->setRange(yr.lower * 1.15, yr.upper * 1.15);
    p->replot();
    applyText_->setText(
        tr("Simulation — not a release. %1, noise seed %2: realised RMSE %3 over %4 queries; "
           "exact expected RMSE of least squares %5.%6")
            .arg(QString::fromStdString(measurement() ? measurement()->describe() : ""))
            .arg(applySeed_->value())
            .arg(fmt(a.realisedRmse),
                 formatThinSpaceGrouped(static_cast<long long>(a.truth.size())),
                 fmt(a.expectedRmse),
                 a.nnls ? tr(" Non-negative least squares has no closed-form error; the bars "
                             "are least squares'.")
                        : QString()));
}

QCustomPlot* StrategyTab::currentPlot() const {
    switch (pages_->currentIndex()) {
        case 0:
            return errorPlot_;
        case 1:
            return margArea_->isVisible() ? margPlot_ : qLine_->isVisible() ? qLine_ : qPlot_;
        default:
            return applyPlot_;
    }
}

void StrategyTab::applyPalette() {
    // margPlot_ is styled when drawn (its layout is rebuilt then, without the default axis rect
    // and legend that applyAllAxesPalette styles).
    for (QCustomPlot* p : {errorPlot_, wPlot_, aPlot_, qPlot_, qLine_, applyPlot_}) {
        applyAllAxesPalette(p, palette());
    }
    for (QCustomPlot* p : {wPlot_, aPlot_, qPlot_, qLine_}) {
        if (auto* t = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0))) {
            t->setTextColor(palette().color(QPalette::WindowText));
        }
    }
}

bool StrategyTab::eventFilter(QObject* watched, QEvent* event) {
    // The per-marginal grid is laid out for the width it had: a resize that changes how many
    // heatmaps fit in a row lays it out again (queued: not inside the resize).
    if (watched == margArea_->viewport() && event->type() == QEvent::Resize &&
        margArea_->isVisible()) {
        const int perRow = std::clamp((margArea_->viewport()->width() - 90) / 220, 1, 4);
        if (perRow != margPerRow_) {
            QTimer::singleShot(0, this, [this] { drawMatrices(); });
        }
    }
    return QWidget::eventFilter(watched, event);
}

void StrategyTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        redraw();
    }
}

}  // namespace dpx::ui
