#include "ui/tabs/more/select_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ui/model/job_runner.h"
#include "ui/widgets/epsilon_override.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("more-select");
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Probabilities below this are drawn at it on the log scales (they are exact zeros or underflow).
constexpr double kLogFloor = 1e-16;
// More bins than this: the probabilities are drawn as step lines instead of grouped bars.
constexpr std::size_t kMaxBarBins = 60;
// The path heatmap has at most this many cells (bins × columns).
constexpr std::size_t kMaxPathCells = 2'000'000;

const QColor kMechColours[3] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44)};
const QColor kTruthColour(148, 103, 189);

// P(the output is a true answer), written as 1 − P(wrong) when that is the informative part.
QString probabilityText(const SelectionPage::Outcome& o, int m) {
    if (!o.available[m]) {
        return QObject::tr("not computed");
    }
    if (o.selection.utility.best.size() == o.selection.exponential.size()) {
        return QStringLiteral("= 1");  // every bin is a true answer
    }
    if (o.exact[m] > 0.9999) {
        // Report-noisy-max's quadrature is accurate to ~1e-12 absolute (core): say no more.
        if (m != 0 && o.wrong[m] < 1e-12) {
            return QStringLiteral("> 1 − 1e-12");
        }
        if (o.wrong[m] == 0 && o.selection.utility.best.size() < o.selection.exponential.size()) {
            return QStringLiteral("> 1 − 1e-300");  // the others underflow
        }
        return QStringLiteral("= 1 − %1").arg(formatSignificant(o.wrong[m], 3));
    }
    return QStringLiteral("= %1").arg(formatSignificant(o.exact[m], 4));
}

QString relationWords(Neighbouring n) {
    return n == Neighbouring::Replace ? QObject::tr("replace-one") : QObject::tr("add/remove-one");
}

QString binName(const std::vector<std::string>& labels, std::size_t j) {
    return j < labels.size() ? QStringLiteral("“%1”").arg(QString::fromStdString(labels[j]))
                             : QString::number(j);
}

// Bin-axis ticks: the labels when there are few bins, else bin indices.
void setBinTicks(QCPAxis* axis, const std::vector<std::string>& labels, const QString& what) {
    const std::size_t k = labels.size();
    if (k > 0 && k <= 24) {
        auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
        std::size_t longest = 0;
        for (std::size_t j = 0; j < k; ++j) {
            ticker->addTick(static_cast<double>(j), QString::fromStdString(labels[j]));
            longest = std::max(longest, labels[j].size());
        }
        axis->setTicker(ticker);
        const bool vertical = axis->orientation() == Qt::Vertical;
        axis->setTickLabelRotation(!vertical && k * longest > 60 ? 60 : 0);
        axis->setLabel(what);
    } else {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        ticker->setTickStep(1);
        axis->setTicker(ticker);
        axis->setTickLabelRotation(0);
        axis->setLabel(what);
    }
}

}  // namespace

SelectionPage::SelectionPage(JobRunner* runner, QWidget* parent)
    : MechanismPage(parent), runner_(runner) {
    guarantee_ = new QLabel;
    guarantee_->setObjectName(QStringLiteral("selectGuarantee"));
    guarantee_->setWordWrap(true);
    guarantee_->setStyleSheet(QStringLiteral("font-weight: 600;"));
    data_ = new QLabel;
    data_->setObjectName(QStringLiteral("selectData"));
    data_->setWordWrap(true);
    task_ = new QComboBox;
    task_->setObjectName(QStringLiteral("selectTask"));
    task_->addItem(tr("the mode (largest count)"), static_cast<int>(SelectionTask::Mode));
    task_->addItem(tr("the bin holding the q-quantile"), static_cast<int>(SelectionTask::Quantile));
    quantile_ = new QDoubleSpinBox;
    quantile_->setObjectName(QStringLiteral("selectQuantile"));
    quantile_->setRange(0, 1);
    quantile_->setDecimals(3);
    quantile_->setSingleStep(0.05);
    quantile_->setValue(0.5);
    quantile_->setEnabled(false);
    quantile_->setToolTip(tr("q ∈ [0, 1]: the target rank is q·n (0.5: the median)."));
    eps_ = new EpsilonOverride;
    relation_ = new QLabel;
    relation_->setWordWrap(true);
    monotone_ = new QCheckBox(tr("Use ε/Δu where the utility is monotone"));
    monotone_->setObjectName(QStringLiteral("selectMonotone"));
    monotone_->setChecked(true);
    monotone_->setToolTip(
        tr("A monotone utility (every neighbour moves all utilities the same way) is ε-DP with "
           "P ∝ exp(ε·u/Δu) instead of exp(ε·u/(2Δu)) (Dwork & Roth 2014, §3.4). Untick to "
           "compare with the general factor."));
    log_ = new QCheckBox(tr("Log scale for the probabilities"));
    log_->setObjectName(QStringLiteral("selectLog"));
    log_->setToolTip(
        tr("At large ε the other bins' probabilities are tiny: a log scale shows "
           "them (values below 1e-16 are drawn at 1e-16)."));
    auto* form = new QFormLayout;
    form->addRow(tr("Select"), task_);
    form->addRow(tr("Quantile q"), quantile_);
    form->addRow(tr("ε"), eps_);
    form->addRow(tr("Neighbours"), relation_);
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("selectSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rationale_ = new QLabel;
    rationale_->setObjectName(QStringLiteral("selectRationale"));
    rationale_->setWordWrap(true);
    makeStatusLine(QStringLiteral("selectStatus"));
    auto* exportPlot = new QPushButton(tr("Export plot…"));
    auto* exportMatrix = new QPushButton(tr("Export matrix…"));
    exportMatrix->setObjectName(QStringLiteral("selectExportMatrix"));
    exportMatrix->setToolTip(tr("Save the path matrix (heatmap) as PNG, SVG or PDF"));
    auto* exportRow = new QHBoxLayout;
    exportRow->addWidget(exportPlot);
    exportRow->addWidget(exportMatrix);

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addWidget(guarantee_);
    sideLayout->addWidget(data_);
    sideLayout->addLayout(form);
    sideLayout->addWidget(monotone_);
    sideLayout->addWidget(log_);
    sideLayout->addWidget(statusLine());
    sideLayout->addWidget(summary_);
    sideLayout->addWidget(rationale_);
    sideLayout->addLayout(exportRow);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, 320, 390);

    // The bar chart.
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("selectPlot"));
    plot_->setMinimumSize(480, 260);
    title_ = addPlotTitle(plot_);
    plot_->yAxis->setLabel(tr("probability of being selected"));
    plot_->yAxis2->setLabel(tr("records in the bin (grey steps)"));
    plot_->yAxis2->setVisible(true);
    // The legend in a row of its own under the axes: it never hides a bar.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->addElement(2, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(2, 0.001);
    // As many columns as fit the plot's width (at most 2): entries are never cut.
    wrapLegendToWidth(plot_, 2);
    plot_->legend->setVisible(true);
    plot_->plotLayout()->insertRow(1);
    subtitle_ = new PlotTitle(plot_, QString(), QFont(font().family(), font().pointSize()));
    plot_->plotLayout()->addElement(1, 0, subtitle_);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);

    // The path matrix.
    pathPlot_ = new QCustomPlot;
    pathPlot_->setObjectName(QStringLiteral("selectPathPlot"));
    addStyledPlot(pathPlot_);
    pathPlot_->setMinimumSize(480, 180);  // 220 overflowed its pane at 1024 × 768
    pathPlot_->plotLayout()->insertRow(0);
    pathTitle_ = new PlotTitle(pathPlot_, QString(), QFont(font().family(), font().pointSize()));
    pathPlot_->plotLayout()->addElement(0, 0, pathTitle_);
    pathPlot_->xAxis->grid()->setVisible(false);
    pathPlot_->yAxis->grid()->setVisible(false);
    pathPlot_->yAxis->setRangeReversed(true);
    colorMap_ = new QCPColorMap(pathPlot_->xAxis, pathPlot_->yAxis);
    colorMap_->setInterpolate(false);
    colorMap_->setTightBoundary(false);
    colorScale_ = new QCPColorScale(pathPlot_);
    colorScale_->setType(QCPAxis::atRight);
    colorScale_->setBarWidth(12);
    colorScale_->setRangeDrag(false);
    colorScale_->setRangeZoom(false);
    pathPlot_->plotLayout()->addElement(1, 1, colorScale_);
    colorMap_->setColorScale(colorScale_);
    QCPColorGradient g = viridisGradient();
    g.setNanHandling(QCPColorGradient::nhNanColor);
    colorMap_->setGradient(g);
    auto* margins = new QCPMarginGroup(pathPlot_);
    pathPlot_->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    colorScale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    badge_ = new QLabel;
    badge_->setObjectName(QStringLiteral("selectPathBadge"));
    badge_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    badge_->setWordWrap(false);
    pathHint_ = new QLabel;
    pathHint_->setWordWrap(true);
    auto* pathBox = new QWidget;
    auto* pathLayout = new QVBoxLayout(pathBox);
    pathLayout->setContentsMargins(0, 0, 0, 0);
    auto* badgeRow = new QHBoxLayout;
    badgeRow->addWidget(badge_);
    badgeRow->addStretch(1);
    badge_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    pathLayout->addLayout(badgeRow);
    pathLayout->addWidget(pathHint_);
    pathLayout->addWidget(pathPlot_, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(plot_);
    split->addWidget(pathBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({540, 460});
    split->setChildrenCollapsible(false);

    placeBesideSidePanel(split, scroll);

    connect(task_, &QComboBox::currentIndexChanged, this, [this] {
        quantile_->setEnabled(task_->currentData().toInt() ==
                              static_cast<int>(SelectionTask::Quantile));
        recompute();
    });
    connect(quantile_, &QDoubleSpinBox::editingFinished, this, [this] { recompute(); });
    connect(eps_, &EpsilonOverride::changed, this, [this] { recompute(); });
    connect(monotone_, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(log_, &QCheckBox::toggled, this, [this] {
        draw();
        Q_EMIT finished();
    });
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    // The window exports synchronously (direct connection): the heatmap only for this click.
    connect(exportMatrix, &QPushButton::clicked, this, [this] {
        exportPath_ = true;
        Q_EMIT exportPlotRequested();
        exportPath_ = false;
    });
    connect(runner_, &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot == kSlot && isRunning()) {
            setRunning(false);
            drawn_ = true;
            pending_ = shown_;  // the same inputs as the drawn result are not computed again
            setStatus(hasResult_ ? tr("Cancelled; the plots show the previous result. "
                                      "Change a control to compute again.")
                                 : tr("Cancelled; change a control to compute again."));
            Q_EMIT finished();
        }
    });
    applyPlotPalette(plot_, palette());
    applyPlotPalette(pathPlot_, palette());
    styleTexts();
    draw();
}

void SelectionPage::setContext(const MechanismPageContext& context) {
    context_ = context;
    haveContext_ = true;
    eps_->setWindowEpsilon(context.epsilon);
    relation_->setText(tr("%1 (the window's relation)").arg(relationWords(context.neighbouring)));
    recomputeWhenShown();
}

void SelectionPage::showMessage(const QString& text) {
    runner_->cancel(kSlot);
    endWithMessage(text, [this] {
        outcome_ = Outcome{};
        summary_->clear();
        rationale_->clear();
        draw();
    });
}

QString SelectionPage::messageText() const {
    return statusText();
}

QString SelectionPage::summaryText() const {
    return plainTextOf(summary_);
}

QString SelectionPage::guaranteeText() const {
    return guarantee_->text();
}

QString SelectionPage::badgeText() const {
    return badge_->text();
}

QString SelectionPage::titleText() const {
    return title_->text();
}

double SelectionPage::drawnProbability(Mech m, std::size_t j) const {
    const auto i = static_cast<std::size_t>(m);
    const int at = static_cast<int>(j);
    if (i < bars_.size() && bars_[i] && at < bars_[i]->data()->size()) {
        return bars_[i]->data()->at(at)->value;
    }
    if (i < lines_.size() && lines_[i] && at < lines_[i]->data()->size()) {
        return lines_[i]->data()->at(at)->value;
    }
    return kNaN;
}

double SelectionPage::drawnPathCell(std::size_t output, std::size_t column) const {
    QCPColorMapData* d = colorMap_->data();
    if (!hasResult_ || !outcome_.pathError.isEmpty() || static_cast<int>(column) >= d->keySize() ||
        static_cast<int>(output) >= d->valueSize()) {
        return kNaN;
    }
    const double v = d->cell(static_cast<int>(column), static_cast<int>(output));
    return log_->isChecked() ? (std::isnan(v) ? 0.0 : std::pow(10.0, v)) : v;
}

void SelectionPage::recompute() {
    if (!haveContext_) {
        return;
    }
    const auto& d = context_.dataset;
    if (!d) {
        showMessage(
            tr("No data: load a dataset in the Data panel. This page selects a bin of "
               "the window's histogram."));
        return;
    }
    if (!d->error.isEmpty() || !d->histogram) {
        showMessage(tr("The window's data could not be loaded: %1")
                        .arg(d->error.isEmpty() ? tr("no histogram") : d->error));
        return;
    }
    const Histogram& h = *d->histogram;
    data_->setText((h.size() == 1 ? tr("Data: the window's histogram — %1, column “%2”: %L3 bin, "
                                       "n = %L4 records.")
                                  : tr("Data: the window's histogram — %1, column “%2”: %L3 "
                                       "bins, n = %L4 records."))
                       .arg(d->sourceTitle, d->column)
                       .arg(h.size())
                       .arg(h.total()));
    if (h.size() == 0) {
        showMessage(tr("The histogram has no bins: there is nothing to select."));
        return;
    }
    Inputs in;
    in.counts = h.counts();
    in.labels = h.labels();
    if (in.labels.size() != in.counts.size()) {  // a histogram without labels: bin indices
        in.labels.clear();
        for (std::size_t j = 0; j < in.counts.size(); ++j) {
            in.labels.push_back(std::to_string(j));
        }
    }
    in.params.epsilon = eps_->epsilon();
    in.params.task = static_cast<SelectionTask>(task_->currentData().toInt());
    in.params.quantile = quantile_->value();
    in.params.neighbouring = context_.neighbouring;
    in.params.useMonotone = monotone_->isChecked();
    if (in.params.task == SelectionTask::Quantile && h.total() <= 0) {
        showMessage(
            tr("The histogram is empty (n = 0 records): a quantile of no records is "
               "undefined. Choose a column, range or dataset with data, or select the "
               "mode."));
        return;
    }
    if ((hasResult_ || isRunning()) && in == pending_) {
        if (!isRunning()) {
            setStatus(QString());  // the drawn result stands
            Q_EMIT finished();
        }
        return;
    }
    pending_ = in;
    setRunning(true);
    setStatus(tr("Computing the selection probabilities…"));
    runner_->run<Outcome>(
        kSlot, [in](std::stop_token, JobProgress&) { return compute(in); },
        [this, in](Outcome o) {
            setRunning(false);
            drawn_ = true;
            if (!o.error.isEmpty()) {
                showMessage(o.error);
                return;
            }
            shown_ = in;
            outcome_ = std::move(o);
            hasResult_ = true;
            setStatus(QString());
            draw();
            Q_EMIT finished();
        },
        tr("Selection probabilities"));
}

SelectionPage::Outcome SelectionPage::compute(const Inputs& in) {
    Outcome o;
    auto r = selectBin(in.counts, in.params);
    if (!r) {
        o.error = QString::fromStdString(r.error().message);
        return o;
    }
    o.selection = std::move(r).value();
    const auto& u = o.selection.utility.utility;
    const double top = *std::max_element(u.begin(), u.end());
    const std::vector<double>* probs[3] = {&o.selection.exponential, &o.selection.noisyMaxLaplace,
                                           &o.selection.noisyMaxExponential};
    for (int m = 0; m < 3; ++m) {
        const auto& p = *probs[m];
        if (p.size() != u.size()) {
            continue;
        }
        o.available[m] = true;
        std::vector<char> isBest(u.size(), 0);
        for (std::size_t j : o.selection.utility.best) {
            isBest[j] = 1;
        }
        for (std::size_t j = 0; j < u.size(); ++j) {
            (isBest[j] ? o.exact[m] : o.wrong[m]) += p[j];
        }
        for (std::size_t j = 0; j < u.size(); ++j) {
            o.loss[m] += p[j] * (top - u[j]);
        }
    }
    // The path of core's default length (until the runner-up leads by 2), cut to at most
    // kMaxPathCells heatmap cells so that a 65 536-bin histogram still gets its first columns.
    const std::size_t k = in.counts.size();
    std::size_t steps = 0;
    if (k >= 2) {
        std::size_t a = 0;
        for (std::size_t j = 1; j < k; ++j) {
            if (in.counts[j] > in.counts[a]) {
                a = j;
            }
        }
        std::size_t b = a == 0 ? 1 : 0;
        for (std::size_t j = 0; j < k; ++j) {
            if (j != a && in.counts[j] > in.counts[b]) {
                b = j;
            }
        }
        const std::int64_t ca = in.counts[a], cb = in.counts[b];
        const std::int64_t full = in.params.neighbouring == Neighbouring::Replace
                                      ? std::min(ca, (ca - cb) / 2 + 2)
                                      : ca - cb + 2;
        o.fullPathSteps = static_cast<std::size_t>(std::max<std::int64_t>(full, 0));
        const std::size_t fit = std::max<std::size_t>(kMaxPathCells / k, 2) - 1;
        steps = std::min(o.fullPathSteps, fit);
    }
    auto path = steps > 0 ? selectionPathMatrix(in.counts, in.params, steps)
                          : selectionPathMatrix(in.counts, in.params);
    if (!path) {
        o.pathError = QString::fromStdString(path.error().message);
    } else {
        o.path = std::move(path).value();
        o.pathSteps = o.path.datasets.size() - 1;
    }
    return o;
}

void SelectionPage::draw() {
    drawBars();
    drawPath();
}

void SelectionPage::drawBars() {
    plot_->clearPlottables();
    plot_->clearItems();
    bars_.assign(3, nullptr);
    lines_.assign(3, nullptr);
    const QColor fg = palette().color(QPalette::WindowText);
    const bool logScale = log_->isChecked();
    if (logScale) {
        makeLogAxis(plot_->yAxis);
    } else {
        plot_->yAxis->setScaleType(QCPAxis::stLinear);
        plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        plot_->yAxis->setNumberFormat(QStringLiteral("gb"));
        plot_->yAxis->setNumberPrecision(6);
    }
    plot_->yAxis->setLabel(logScale ? tr("probability of being selected (log scale)")
                                    : tr("probability of being selected"));
    if (!hasResult_) {
        guarantee_->setText(tr("Exponential mechanism: ε-DP selection of one bin."));
        title_->setText(statusText().isEmpty() ? tr("Selecting a bin by the exponential mechanism")
                                               : tr("Selection: no result — %1").arg(statusText()));
        plot_->legend->setVisible(false);
        subtitle_->setText(QString());
        replotWhenVisible(plot_);
        return;
    }
    const SelectionResult& s = outcome_.selection;
    const SelectionUtility& u = s.utility;
    const std::size_t k = u.utility.size();
    const bool mode = shown_.params.task == SelectionTask::Mode;
    const QString eps = formatSignificant(shown_.params.epsilon, 6);
    const QString relation = relationWords(shown_.params.neighbouring);
    const bool tight = u.monotone && shown_.params.useMonotone;
    const QString factor =
        tight ? tr("c = ε/Δu = %1 (monotone utility)").arg(formatSignificant(u.factor, 5))
              : tr("c = ε/(2Δu) = %1").arg(formatSignificant(u.factor, 5));
    const QString task = mode ? tr("the mode")
                              : tr("the bin holding the %1-quantile")
                                    .arg(formatSignificant(shown_.params.quantile, 4));
    guarantee_->setText(
        tr("ε = %1-differential privacy under %2 neighbours, for every dataset: the exponential "
           "mechanism with utility sensitivity Δu = %3 and %4. Report-noisy-max with noise scale "
           "1/c has the same guarantee.")
            .arg(eps, relation, formatSignificant(u.sensitivity, 6), factor));
    title_->setText(tr("Selecting %1, ε = %2-DP\n(%3 neighbours, Δu = %4, c = %5)")
                        .arg(task, eps, relation, formatSignificant(u.sensitivity, 4),
                             formatSignificant(u.factor, 5)));
    subtitle_->setText(tr("P(true answer): exponential %1 · noisy-max Laplace %2\n"
                          "noisy-max exponential %3")
                           .arg(probabilityText(outcome_, 0), probabilityText(outcome_, 1),
                                probabilityText(outcome_, 2)));

    const std::vector<double>* probs[3] = {&s.exponential, &s.noisyMaxLaplace,
                                           &s.noisyMaxExponential};
    double lo = 1, hi = 0;
    for (const auto* p : probs) {
        for (double v : *p) {
            hi = std::max(hi, v);
            if (v > 0) {
                lo = std::min(lo, v);
            }
        }
    }
    const double floor = std::max(kLogFloor, lo / 3);
    const double yLo = logScale ? floor : 0;
    const double yHi = logScale ? std::min(1.0, hi) * 3 : std::max(hi, 1e-300) * 1.12;

    // The true answers, shaded behind the bars.
    QVector<double> bx, by;
    for (std::size_t j : u.best) {
        bx << static_cast<double>(j);
        by << yHi;
    }
    QColor truthFill = kTruthColour;
    truthFill.setAlpha(isDarkPalette(palette()) ? 110 : 80);
    auto* truth = new QCPBars(plot_->xAxis, plot_->yAxis);
    truth->setName(mode ? tr("true answer (the mode)") : tr("true answer (holds rank q·n)"));
    truth->setData(bx, by, true);
    truth->setBaseValue(yLo);
    truth->setWidth(1);
    truth->setPen(Qt::NoPen);
    truth->setBrush(truthFill);

    // The data, on the right axis.
    QVector<double> x(static_cast<int>(k)), counts(static_cast<int>(k));
    double cmax = 0;
    for (std::size_t j = 0; j < k; ++j) {
        x[static_cast<int>(j)] = static_cast<double>(j);
        counts[static_cast<int>(j)] = static_cast<double>(shown_.counts[j]);
        cmax = std::max(cmax, counts[static_cast<int>(j)]);
    }
    auto* countsGraph = new QCPGraph(plot_->xAxis, plot_->yAxis2);
    countsGraph->setName(tr("counts (right axis)"));
    countsGraph->setLineStyle(QCPGraph::lsStepCenter);
    QColor dataColour = fg;
    dataColour.setAlpha(110);
    countsGraph->setPen(QPen(dataColour, 1.2));
    countsGraph->setData(x, counts, true);

    const bool asBars = k <= kMaxBarBins;
    auto* group = asBars ? new QCPBarsGroup(plot_) : nullptr;
    if (group) {
        group->setSpacingType(QCPBarsGroup::stAbsolute);
        group->setSpacing(0);
    }
    for (int m = 0; m < 3; ++m) {
        const auto& p = *probs[m];
        if (p.size() != k) {
            continue;  // not computed (see the warnings)
        }
        QVector<double> y(static_cast<int>(k));
        for (std::size_t j = 0; j < k; ++j) {
            y[static_cast<int>(j)] = logScale ? std::max(p[j], floor) : p[j];
        }
        const QString shortName = m == 0   ? tr("exponential mechanism")
                                  : m == 1 ? tr("noisy-max, Laplace noise")
                                           : tr("noisy-max, exponential noise");
        const QString& name = shortName;
        if (asBars) {
            auto* b = new QCPBars(plot_->xAxis, plot_->yAxis);
            b->setName(name);
            b->setData(x, y, true);
            b->setWidth(0.27);
            b->setBaseValue(yLo);
            QColor fill = kMechColours[m];
            fill.setAlpha(210);
            b->setBrush(fill);
            b->setPen(QPen(kMechColours[m].darker(130), 0.8));
            b->setBarsGroup(group);
            bars_[static_cast<std::size_t>(m)] = b;
        } else {
            auto* g = new QCPGraph(plot_->xAxis, plot_->yAxis);
            g->setName(name);
            g->setLineStyle(QCPGraph::lsStepCenter);
            // Overlapping lines stay apart: solid, dashed, dotted.
            const Qt::PenStyle styles[3] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine};
            g->setPen(QPen(kMechColours[m], m == 0 ? 2.2 : 1.6, styles[m]));
            g->setData(x, y, true);
            lines_[static_cast<std::size_t>(m)] = g;
        }
    }
    plot_->xAxis->setRange(-0.6, static_cast<double>(k) - 0.4);
    plot_->yAxis->setRange(yLo, yHi);
    plot_->yAxis2->setRange(0, std::max(cmax, 1.0) * 1.12);
    setBinTicks(plot_->xAxis, shown_.labels,
                k > 24 ? tr("bin index j (candidate output; j = 0 is %1)")
                             .arg(QString::fromStdString(shown_.labels.front()))
                       : tr("bin (candidate output)"));
    plot_->legend->setVisible(true);
    replotWhenVisible(plot_);

    // The side panel's numbers.
    const auto row = [](const QString& what, const QString& a, const QString& b) {
        return QStringLiteral(
                   "<tr><td>%1</td><td align='right'>%2</td>"
                   "<td align='right'>%3</td></tr>")
            .arg(what, a, b);
    };
    QString answer;
    QStringList bestNames;
    for (std::size_t j : u.best) {
        if (bestNames.size() == 6) {
            bestNames << tr("…");
            break;
        }
        bestNames << binName(shown_.labels, j);
    }
    if (mode) {
        answer = tr("True answer: %1 (count %L2).")
                     .arg(bestNames.join(QStringLiteral(", ")).toHtmlEscaped())
                     .arg(shown_.counts[u.best.front()]);
    } else {
        double n = 0;
        for (auto c : shown_.counts) {
            n += static_cast<double>(c);
        }
        answer = tr("True answer: %1 (target rank q·n = %2).")
                     .arg(bestNames.join(QStringLiteral(", ")).toHtmlEscaped(),
                          formatSignificant(shown_.params.quantile * n, 8));
    }
    QString table = answer + QStringLiteral("<table cellspacing='3' width='100%'>") +
                    row(QString(), tr("<b>P(true)</b>"), tr("<b>E[loss]</b>"));
    const QString shortNames[3] = {tr("exponential"), tr("noisy-max, Laplace"),
                                   tr("noisy-max, exponential")};
    for (int m = 0; m < 3; ++m) {
        QString loss;
        if (outcome_.available[m]) {
            const bool allBest = u.best.size() == k;
            loss = !allBest && ((m != 0 && outcome_.loss[m] < 1e-9) || outcome_.loss[m] == 0)
                       ? tr("≈ 0")
                       : formatSignificant(outcome_.loss[m], 4);
        }
        QString pt = probabilityText(outcome_, m);
        if (pt.startsWith(QStringLiteral("= "))) {
            pt = pt.mid(2);
        }
        table += row(shortNames[m], pt, loss);
    }
    table += QStringLiteral("</table>");
    table +=
        tr("Exact for the exponential mechanism; report-noisy-max by quadrature "
           "(absolute error about 1e-12). ");
    table += mode ? tr("Utility loss = count of the true mode − count of the selected bin "
                       "(records).")
                  : tr("Utility loss = distance in records from the target rank q·n to the "
                       "selected bin's rank interval.");
    if (shown_.counts.size() == 1) {
        table += QStringLiteral("<br>") +
                 tr("<b>One bin:</b> there is no choice to make; every mechanism outputs it "
                    "with probability 1 and reveals nothing.");
    } else if (std::all_of(shown_.counts.begin(), shown_.counts.end(),
                           [](std::int64_t c) { return c == 0; })) {
        table += QStringLiteral("<br>") +
                 tr("<b>The histogram is empty (n = 0):</b> every bin is a mode, so every "
                    "mechanism picks a bin uniformly at random.");
    }
    for (const auto& w : s.warnings) {
        table += QStringLiteral("<br><i>%1</i>").arg(QString::fromStdString(w).toHtmlEscaped());
    }
    summary_->setText(table);
    rationale_->setText(tr("Why Δu and c: %1").arg(QString::fromStdString(u.rationale)));
}

void SelectionPage::drawPath() {
    const bool logScale = log_->isChecked();
    QCPColorMapData* map = colorMap_->data();
    const auto styleBadge = [this](const QString& text, const QString& css) {
        badge_->setText(text);
        badge_->setStyleSheet(QStringLiteral("QLabel { %1 border-radius: 9px; padding: 2px 7px; "
                                             "font-weight: 600; }")
                                  .arg(css));
    };
    const QString neutral = QStringLiteral("background:#7b7f86; color:#ffffff;");
    if (!hasResult_ || !outcome_.pathError.isEmpty()) {
        map->setSize(1, 1);
        map->setCell(0, 0, kNaN);
        colorMap_->setVisible(false);
        colorScale_->setVisible(false);
        QString why;
        if (!hasResult_) {
            why = tr("no result");
        } else if (shown_.counts.size() < 2) {
            why = tr("with one bin there is no choice to make (every output has probability 1)");
        } else if (std::all_of(shown_.counts.begin(), shown_.counts.end(),
                               [](std::int64_t c) { return c == 0; })) {
            why = tr("the histogram is empty, so there is no record to move along a path");
        } else {
            why = outcome_.pathError;
        }
        pathTitle_->setText(tr("No path matrix: %1.").arg(why));
        styleBadge(tr("no path matrix"), neutral);
        pathHint_->clear();
        pathPlot_->xAxis->setVisible(false);
        pathPlot_->yAxis->setVisible(false);
        replotWhenVisible(pathPlot_);
        return;
    }
    colorMap_->setVisible(true);
    colorScale_->setVisible(true);
    pathPlot_->xAxis->setVisible(true);
    pathPlot_->yAxis->setVisible(true);
    const SelectionPathMatrix& p = outcome_.path;
    const int rows = static_cast<int>(p.probability.size());
    const int cols = rows > 0 ? static_cast<int>(p.probability.front().size()) : 0;
    map->setSize(cols, rows);
    map->setRange(QCPRange(0, std::max(cols - 1, 1)), QCPRange(0, std::max(rows - 1, 1)));
    double lo = 1, hi = 0;
    for (int i = 0; i < rows; ++i) {
        for (int t = 0; t < cols; ++t) {
            const double v =
                p.probability[static_cast<std::size_t>(i)][static_cast<std::size_t>(t)];
            hi = std::max(hi, v);
            if (v > 0) {
                lo = std::min(lo, v);
            }
        }
    }
    const double floor = std::max(kLogFloor, lo);
    QStringList hints;
    for (int i = 0; i < rows; ++i) {
        for (int t = 0; t < cols; ++t) {
            const double v =
                p.probability[static_cast<std::size_t>(i)][static_cast<std::size_t>(t)];
            map->setCell(t, i, logScale ? (v > 0 ? std::log10(std::max(v, floor)) : kNaN) : v);
        }
    }
    if (logScale) {
        double l = std::log10(floor), h = std::log10(std::max(hi, floor));
        if (h - l < 1) {
            l = h - 1;
        }
        colorMap_->setDataRange(QCPRange(l, h));
        colorScale_->axis()->setLabel(tr("log₁₀ P[output | dataset]"));
        hints << (tr("Log colours: values below %1 take its colour; grey cells are "
                     "below about 1e-308 (they underflow to 0).")
                      .arg(formatSignificant(floor, 3)));
    } else {
        colorMap_->setDataRange(QCPRange(0, hi > 0 ? hi : 1));
        colorScale_->axis()->setLabel(tr("P[output | dataset]"));
    }
    const QString from = binName(shown_.labels, p.from), to = binName(shown_.labels, p.to);
    const bool replace = shown_.params.neighbouring == Neighbouring::Replace;
    pathTitle_->setText(
        tr("Exponential mechanism as a matrix: rows = outputs,\ncolumns = neighbouring "
           "datasets along a path"));
    pathPlot_->xAxis->setLabel(
        replace ? tr("dataset t: t records moved from %1 to %2 (replace-one steps)").arg(from, to)
                : tr("dataset t: t records added to %1 (add/remove steps)").arg(to));
    // Column ticks: t, with the two counts when there are few columns.
    if (cols <= 14) {
        auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
        for (int t = 0; t < cols; ++t) {
            const auto& d = p.datasets[static_cast<std::size_t>(t)];
            ticker->addTick(t, QStringLiteral("%1\n%2 | %3").arg(t).arg(d[p.from]).arg(d[p.to]));
        }
        pathPlot_->xAxis->setTicker(ticker);
        hints.prepend(tr("Under each column: t, then the counts of %1 | %2.").arg(from, to));
    } else {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        ticker->setTickStep(1);
        pathPlot_->xAxis->setTicker(ticker);
        hints.prepend(replace ? tr("Column t: %1 has %L2 − t records, %3 has %L4 + t.")
                                    .arg(from)
                                    .arg(p.datasets.front()[p.from])
                                    .arg(to)
                                    .arg(p.datasets.front()[p.to])
                              : tr("Column t: %1 has %L2 + t records; the other bins as "
                                   "in the data.")
                                    .arg(to)
                                    .arg(p.datasets.front()[p.to]));
    }
    setBinTicks(pathPlot_->yAxis, shown_.labels, tr("output bin"));
    pathPlot_->xAxis->setRange(-0.5, cols - 0.5);
    pathPlot_->yAxis->setRange(-0.5, rows - 0.5);
    const QString text =
        tr("%4: max |ln P ratio| of adjacent columns = %1 %2 ε = %3")
            .arg(formatSignificant(p.achievedEpsilon, 5),
                 p.verified ? QStringLiteral("≤") : QStringLiteral(">"),
                 formatSignificant(p.epsilon, 6), p.verified ? tr("✓ verified") : tr("✗ NOT ε-DP"));
    hints << (tr(
        "The badge checks every output row: ln P[i | t] − ln P[i | t+1] "
        "within ±ε."));
    if (outcome_.pathSteps < outcome_.fullPathSteps) {
        hints << (tr("Only the first %L1 of the path's %L2 steps are drawn (%L3 bins × "
                     "%L4 columns would exceed %L5 cells).")
                      .arg(outcome_.pathSteps)
                      .arg(outcome_.fullPathSteps)
                      .arg(rows)
                      .arg(outcome_.fullPathSteps + 1)
                      .arg(kMaxPathCells));
    }
    pathHint_->setText(hints.join(QLatin1Char(' ')));
    styleBadge(text, p.verified ? QStringLiteral("background:#2e7d32; color:#ffffff;")
                                : QStringLiteral("background:#c62828; color:#ffffff;"));
    replotWhenVisible(pathPlot_);
}

void SelectionPage::styleTexts() {
    const QColor fg = palette().color(QPalette::WindowText);
    title_->setTextColor(fg);
    subtitle_->setTextColor(fg);
    pathTitle_->setTextColor(fg);
    QCPAxis* a = colorScale_->axis();
    a->setBasePen(QPen(fg));
    a->setTickPen(QPen(fg));
    a->setSubTickPen(QPen(fg));
    a->setTickLabelColor(fg);
    a->setLabelColor(fg);
    QCPColorGradient g = colorMap_->gradient();
    g.setNanColor(isDarkPalette(palette()) ? QColor(0x60, 0x60, 0x60) : QColor(0xc8, 0xc8, 0xc8));
    colorMap_->setGradient(g);
}

void SelectionPage::restyle() {
    styleTexts();
    draw();
}

}  // namespace dpx::ui
