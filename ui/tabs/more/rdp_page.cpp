#include "ui/tabs/more/rdp_page.h"

#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/base/simulation_rng.h"
#include "ui/model/job_runner.h"
#include "ui/widgets/epsilon_override.h"
#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("more-rdp");
// The shown releases use streams far above the Monte Carlo's (trial t uses stream t of the seed).
constexpr std::uint64_t kDrawStream = std::uint64_t{1} << 40;

const QColor kDpColour(31, 119, 180);
const QColor kDpColourDark(110, 175, 235);  // readable on the dark theme's grey bars
const QColor kRdpColour(230, 85, 13);
const QColor kFreeColour(214, 39, 40);

QString meanSe(double mean, double se) {
    return QStringLiteral("%1 ± %2").arg(formatSignificant(mean, 5), formatSignificant(se, 2));
}

// Cell-axis ticks: the bin labels when there are few cells, else cell indices.
void setCellTicks(QCPAxis* axis, const std::vector<std::string>& labels) {
    const std::size_t k = labels.size();
    if (k > 0 && k <= 24) {
        auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
        std::size_t longest = 0;
        for (std::size_t j = 0; j < k; ++j) {
            ticker->addTick(static_cast<double>(j), QString::fromStdString(labels[j]));
            longest = std::max(longest, labels[j].size());
        }
        axis->setTicker(ticker);
        axis->setTickLabelRotation(k * longest > 60 ? 60 : 0);
        axis->setLabel(QObject::tr("cell (bin of the window's histogram)"));
    } else {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        ticker->setTickStep(1);
        axis->setTicker(ticker);
        axis->setTickLabelRotation(0);
        axis->setLabel(k > 0 ? QObject::tr("cell j (bins in order; j = 0 is %1)")
                                   .arg(QString::fromStdString(labels.front()))
                             : QObject::tr("cell j"));
    }
}

}  // namespace

RandomDpPage::RandomDpPage(JobRunner* runner, QWidget* parent)
    : MechanismPage(parent), runner_(runner) {
    banner_ =
        new QLabel(tr("⚠ (ε, γ)-random differential privacy is WEAKER than differential privacy"));
    banner_->setObjectName(QStringLiteral("rdpWeakerBanner"));
    banner_->setWordWrap(true);
    banner_->setStyleSheet(
        QStringLiteral("QLabel { background:#f2b01e; color:#1b1b1b; "
                       "border-radius: 6px; padding: 4px 8px; "
                       "font-weight: 700; }"));
    explain_ = new QLabel(
        tr("<b>What random DP protects, and what it does not.</b> It assumes the n records are a "
           "random sample from some population and promises the ε-DP bound only with probability "
           "at least 1 − γ over that sample (and the record that replaces one of them); with "
           "probability up to γ it promises nothing. Cells with 2k(c<sub>j</sub> + 1) ≤ γn are "
           "published <b>exactly, without noise</b> (shaded in the plot): their counts leak "
           "exactly, and a person alone in such a rare cell is exposed. Every ε-DP mechanism is "
           "(ε, γ)-RDP, not conversely. The DP version adds Laplace 2/(nε) to every cell: ε-DP "
           "under replace-one neighbours (the proportions' L1 sensitivity is 2/n). Both use "
           "replace-one neighbours, as in Hall 2012, ch. 5, whatever the window's relation."));
    explain_->setObjectName(QStringLiteral("rdpExplanation"));
    explain_->setWordWrap(true);
    explain_->setTextFormat(Qt::RichText);
    data_ = new QLabel;
    data_->setObjectName(QStringLiteral("rdpData"));
    data_->setWordWrap(true);
    eps_ = new EpsilonOverride;
    gamma_ = new LogSliderField(0.001, 0.9);
    gamma_->setObjectName(QStringLiteral("rdpGamma"));
    gamma_->setValue(gammaValue_);
    gamma_->setToolTip(
        tr("γ ∈ (0, 1): the probability, over the sample, that the DP bound may "
           "fail. Larger γ: more cells published exactly."));
    trials_ = new QSpinBox;
    trials_->setObjectName(QStringLiteral("rdpTrials"));
    trials_->setRange(100, 1'000'000);
    trials_->setSingleStep(1000);
    trials_->setValue(2000);
    trials_->setToolTip(
        tr("Monte Carlo trials for the error distributions (seeded by the "
           "window's seed)."));
    auto* form = new QFormLayout;
    form->addRow(tr("ε"), eps_);
    form->addRow(tr("γ"), gamma_);
    form->addRow(tr("Trials"), trials_);
    guarantee_ = new QLabel;
    guarantee_->setObjectName(QStringLiteral("rdpGuarantee"));
    guarantee_->setWordWrap(true);
    cells_ = new QLabel;
    cells_->setObjectName(QStringLiteral("rdpCells"));
    cells_->setWordWrap(true);
    cells_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errors_ = new QLabel;
    errors_->setObjectName(QStringLiteral("rdpErrors"));
    errors_->setWordWrap(true);
    errors_->setTextFormat(Qt::RichText);
    errors_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    makeStatusLine(QStringLiteral("rdpStatus"));
    auto* exportPlot = new QPushButton(tr("Export plot…"));

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addWidget(banner_);
    sideLayout->addWidget(explain_);
    sideLayout->addWidget(data_);
    sideLayout->addLayout(form);
    sideLayout->addWidget(statusLine());
    sideLayout->addWidget(guarantee_);
    sideLayout->addWidget(cells_);
    sideLayout->addWidget(errors_);
    sideLayout->addWidget(exportPlot);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, 340, 400);

    // The plot: Fig. 5.1's layout — releases against the truth on the left (DP above, RDP below),
    // the distribution of the L1 error over the Monte Carlo's trials on the right.
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("rdpPlot"));
    plot_->setMinimumSize(520, 420);
    // Four panels side by side do not read at 320 px (ticks ran into each other, titles cut at
    // 1024 × 768): the controls go under the plot instead.
    plot_->setProperty(kKeepsMinimumWidth, true);
    dpRect_ = plot_->axisRect();
    dpRect_->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->take(dpRect_);
    plot_->plotLayout()->simplify();
    title_ = addPlotTitle(plot_);
    auto* grid = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, grid);
    plot_->plotLayout()->addElement(2, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.01);
    plot_->plotLayout()->setRowStretchFactor(2, 0.01);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    // Two columns where they fit, else one (at 1024 × 768 two cut "cell published exac").
    wrapLegendToWidth(plot_, 2);
    rdpRect_ = new QCPAxisRect(plot_);
    dpErrRect_ = new QCPAxisRect(plot_);
    rdpErrRect_ = new QCPAxisRect(plot_);
    const QFont panelFont(font().family(), font().pointSize());
    for (int k = 0; k < 4; ++k) {
        panelTitles_.push_back(new PlotTitle(plot_, QString(), panelFont));
    }
    grid->addElement(0, 0, panelTitles_[0]);
    grid->addElement(0, 1, panelTitles_[1]);
    grid->addElement(1, 0, dpRect_);
    grid->addElement(1, 1, dpErrRect_);
    grid->addElement(2, 0, panelTitles_[2]);
    grid->addElement(2, 1, panelTitles_[3]);
    grid->addElement(3, 0, rdpRect_);
    grid->addElement(3, 1, rdpErrRect_);
    grid->setRowStretchFactor(0, 0.01);
    grid->setRowStretchFactor(2, 0.01);
    // The error plots a little wider than 1 : 1.6, so that their axis reads at 1024 × 768.
    grid->setColumnStretchFactor(0, 1.3);
    grid->setColumnStretchFactor(1, 1);
    auto* cellsMargin = new QCPMarginGroup(plot_);
    dpRect_->setMarginGroup(QCP::msLeft | QCP::msRight, cellsMargin);
    rdpRect_->setMarginGroup(QCP::msLeft | QCP::msRight, cellsMargin);
    auto* errMargin = new QCPMarginGroup(plot_);
    dpErrRect_->setMarginGroup(QCP::msLeft | QCP::msRight, errMargin);
    rdpErrRect_->setMarginGroup(QCP::msLeft | QCP::msRight, errMargin);
    for (QCPAxisRect* r : {dpRect_, rdpRect_}) {
        r->axis(QCPAxis::atLeft)->setLabel(tr("proportion of records"));
        r->axis(QCPAxis::atBottom)->setLabel(tr("cell"));
    }
    for (QCPAxisRect* r : {dpErrRect_, rdpErrRect_}) {
        r->axis(QCPAxis::atLeft)->setLabel(tr("trials"));
        // Proportions have no unit: "(proportions)" alone was wider than these narrow plots'
        // axes at 1024 × 768.
        r->axis(QCPAxis::atBottom)->setLabel(tr("L1 error ‖p̃ − p̂‖₁"));
    }

    placeBesideSidePanel(plot_, scroll);

    connect(eps_, &EpsilonOverride::changed, this, [this] { recompute(); });
    connect(gamma_, &LogSliderField::valueEdited, this, [this](double v, bool dragging) {
        if (!(v > 0 && v < 1)) {
            gamma_->setError(tr("γ must be in (0, 1)"));
            return;
        }
        gamma_->setError({});
        gammaValue_ = v;
        if (!dragging) {
            gamma_->setValue(v);
            recompute();
        }
    });
    connect(gamma_, &LogSliderField::textRejected, this,
            [this](const QString& t) { gamma_->setError(tr("'%1' is not a number").arg(t)); });
    connect(gamma_->slider(), &QAbstractSlider::sliderReleased, this, [this] { recompute(); });
    connect(trials_, &QSpinBox::editingFinished, this, [this] { recompute(); });
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    connect(runner_, &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot == kSlot && isRunning()) {
            setRunning(false);
            drawn_ = true;
            pending_ = shown_;  // the same inputs as the drawn result are not computed again
            setStatus(hasResult_ ? tr("Cancelled; the plot shows the previous result. "
                                      "Change a control to compute again.")
                                 : tr("Cancelled; change a control to compute again."));
            Q_EMIT finished();
        }
    });
    applyPlotPalette(plot_, palette());
    styleTexts();
    draw();
}

void RandomDpPage::setContext(const MechanismPageContext& context) {
    context_ = context;
    haveContext_ = true;
    eps_->setWindowEpsilon(context.epsilon);
    recomputeWhenShown();
}

void RandomDpPage::showMessage(const QString& text) {
    runner_->cancel(kSlot);
    endWithMessage(text, [this] {
        outcome_ = Outcome{};
        guarantee_->clear();
        cells_->clear();
        errors_->clear();
        draw();
    });
}

QString RandomDpPage::messageText() const {
    return statusText();
}

QString RandomDpPage::cellsText() const {
    return cells_->text();
}

QString RandomDpPage::errorsText() const {
    return plainTextOf(errors_);
}

QString RandomDpPage::titleText() const {
    return title_->text();
}

void RandomDpPage::showResultStatus() {
    setStatus(
        tr("%L1 trials, seed %2 (the window's seed).").arg(outcome_.mc.trials).arg(shown_.seed));
}

void RandomDpPage::recompute() {
    if (!haveContext_) {
        return;
    }
    const auto& d = context_.dataset;
    if (!d) {
        showMessage(
            tr("No data: load a dataset in the Data panel. This page uses the window's "
               "histogram."));
        return;
    }
    if (!d->error.isEmpty() || !d->histogram) {
        showMessage(tr("The window's data could not be loaded: %1")
                        .arg(d->error.isEmpty() ? tr("no histogram") : d->error));
        return;
    }
    const Histogram& h = *d->histogram;
    data_->setText(tr("Data: the window's histogram — %1, column “%2”: k = %L3 cells, "
                      "n = %L4 records.")
                       .arg(d->sourceTitle, d->column)
                       .arg(h.size())
                       .arg(h.total()));
    if (h.size() == 0) {
        showMessage(tr("The histogram has no cells: there is nothing to release."));
        return;
    }
    if (h.total() <= 0) {
        showMessage(
            tr("The histogram is empty (n = 0 records): random DP releases proportions "
               "c_j/n, which do not exist without records. Choose a column, range or "
               "dataset with data."));
        return;
    }
    const double eps = eps_->epsilon();
    if (!(eps > 0) || !std::isfinite(eps)) {
        showMessage(tr("ε must be a finite number > 0 (got %1).").arg(eps));
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
    in.epsilon = eps;
    in.gamma = gammaValue_;
    in.trials = static_cast<std::uint64_t>(trials_->value());
    in.seed = context_.seed;
    if ((hasResult_ || isRunning()) && in == pending_) {
        if (!isRunning()) {
            showResultStatus();
            Q_EMIT finished();  // nothing changed; the drawn result stands
        }
        return;
    }
    pending_ = in;
    setRunning(true);
    setStatus(tr("Computing %L1 Monte Carlo trials…").arg(in.trials));
    runner_->run<Outcome>(
        kSlot,
        [in](std::stop_token stop, JobProgress& progress) {
            return compute(in, stop, [&progress](double f) { progress.set(f); });
        },
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
            showResultStatus();
            draw();
            Q_EMIT finished();
        },
        tr("Random DP Monte Carlo"), JobRunner::Lane::Background);
}

RandomDpPage::Outcome RandomDpPage::compute(const Inputs& in, std::stop_token stop,
                                            const std::function<void(double)>& progress) {
    Outcome o;
    const RandomDpParams params{in.epsilon, in.gamma};
    if (auto s = params.validate(); !s) {
        o.error = QString::fromStdString(s.error().message);
        return o;
    }
    auto plan = planRandomDp(in.counts, params);
    if (!plan) {
        o.error = QString::fromStdString(plan.error().message);
        return o;
    }
    o.plan = std::move(plan).value();
    SimulationRng rdpRng(in.seed, kDrawStream), dpRng(in.seed, kDrawStream + 1);
    auto rdp = simulateRandomDp(in.counts, params, rdpRng);
    auto dp = simulateDpProportions(in.counts, in.epsilon, dpRng);
    if (!rdp || !dp) {
        o.error = QString::fromStdString(!rdp ? rdp.error().message : dp.error().message);
        return o;
    }
    o.rdp = std::move(rdp).value();
    o.dp = std::move(dp).value();
    MonteCarloOptions mc;
    mc.trials = in.trials;
    mc.seed = in.seed;
    mc.threads = 0;
    mc.stop = std::move(stop);
    mc.progress = progress;
    auto r = randomDpMonteCarlo(in.counts, params, mc);
    if (!r) {
        o.error = QString::fromStdString(r.error().message);
        return o;
    }
    o.mc = std::move(r).value();
    return o;
}

void RandomDpPage::draw() {
    plot_->clearPlottables();
    plot_->clearItems();
    const QColor fg = palette().color(QPalette::WindowText);
    const QColor dpColour = isDarkPalette(palette()) ? kDpColourDark : kDpColour;
    if (!hasResult_) {
        title_->setText(statusText().isEmpty()
                            ? tr("(ε, γ)-random DP (WEAKER than DP) against ε-DP")
                            : tr("(ε, γ)-random DP: no result — %1").arg(statusText()));
        for (auto* t : panelTitles_) {
            t->setText(QString());
        }
        plot_->legend->setVisible(false);
        replotWhenVisible(plot_);
        return;
    }
    const RandomDpPlan& pl = outcome_.plan;
    const auto& mc = outcome_.mc;
    const std::size_t k = pl.cells;
    const bool many = k > 150;
    QVector<double> x(static_cast<int>(k)), truth(x.size()), dp(x.size()), rdp(x.size());
    QVector<double> freeX, freeTop;
    double lo = 0, hi = 0;
    for (std::size_t j = 0; j < k; ++j) {
        const int i = static_cast<int>(j);
        x[i] = static_cast<double>(j);
        truth[i] = pl.proportions[j];
        dp[i] = outcome_.dp[j];
        rdp[i] = outcome_.rdp[j];
        lo = std::min({lo, dp[i], rdp[i]});
        hi = std::max({hi, truth[i], dp[i], rdp[i]});
    }
    const double pad = 0.06 * (hi - lo > 0 ? hi - lo : 1);
    const double yLo = lo < 0 ? lo - pad : 0, yHi = hi + pad;
    for (std::size_t j = 0; j < k; ++j) {
        if (pl.noiseFree[j]) {
            freeX << static_cast<double>(j);
            freeTop << yHi;
        }
    }
    const QString eps = formatSignificant(shown_.epsilon, 6),
                  gamma = formatSignificant(shown_.gamma, 6);
    title_->setText(tr("(ε = %1, γ = %2)-random DP — WEAKER than differential privacy —\n"
                       "against the ε-DP Laplace histogram (k = %L3 cells, n = %L4)")
                        .arg(eps, gamma)
                        .arg(k)
                        .arg(pl.records));
    panelTitles_[0]->setText(tr("ε-DP: Laplace 2/(nε) = %1\non all %L2 cells (one release)")
                                 .arg(formatSignificant(pl.scale, 3))
                                 .arg(k));
    panelTitles_[2]->setText(
        tr("(ε, γ)-RDP (WEAKER than DP):\n%L1 of %L2 cells published exactly (shaded)")
            .arg(pl.noiseFreeCells)
            .arg(k));
    panelTitles_[1]->setText(tr("ε-DP: L1 error, %L1 trials\nmean %2")
                                 .arg(mc.trials)
                                 .arg(meanSe(mc.meanDpL1, mc.seDpL1)));
    panelTitles_[3]->setText(tr("(ε, γ)-RDP: L1 error, %L1 trials\nmean %2")
                                 .arg(mc.trials)
                                 .arg(meanSe(mc.meanRdpL1, mc.seRdpL1)));

    QColor truthColour = fg;
    truthColour.setAlpha(70);
    QColor freeColour = kFreeColour;
    freeColour.setAlpha(80);
    // Left column: truth (bars), the noise-free cells (shaded), each release (points).
    for (QCPAxisRect* r : {dpRect_, rdpRect_}) {
        QCPAxis* xa = r->axis(QCPAxis::atBottom);
        QCPAxis* ya = r->axis(QCPAxis::atLeft);
        const bool isRdp = r == rdpRect_;
        if (isRdp && !freeX.isEmpty()) {
            auto* shade = new QCPBars(xa, ya);
            shade->setName(tr("cell published exactly, no noise (leaks)"));
            shade->setData(freeX, freeTop, true);
            shade->setBaseValue(yLo);
            shade->setWidth(1);
            shade->setPen(Qt::NoPen);
            shade->setBrush(freeColour);
        }
        auto* t = new QCPBars(xa, ya);
        t->setName(tr("truth p̂ⱼ = cⱼ/n"));
        t->setData(x, truth, true);
        t->setWidth(many ? 1 : 0.8);
        t->setPen(Qt::NoPen);
        t->setBrush(truthColour);
        if (isRdp) {
            t->removeFromLegend();
        }
        auto* g = new QCPGraph(xa, ya);
        const QColor c = isRdp ? kRdpColour : dpColour;
        g->setName(isRdp ? tr("(ε, γ)-RDP release (WEAKER than DP)") : tr("ε-DP release"));
        g->setData(x, isRdp ? rdp : dp, true);
        if (many) {
            g->setLineStyle(QCPGraph::lsStepCenter);
            g->setPen(QPen(c, 1));
        } else {
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(
                isRdp ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCross, c, c, 7));
            g->setPen(QPen(c, 2));
        }
        auto* zero = new QCPItemStraightLine(plot_);
        zero->setClipAxisRect(r);
        for (auto* p : {zero->point1, zero->point2}) {
            p->setAxes(xa, ya);
            p->setAxisRect(r);
        }
        zero->point1->setCoords(0, 0);
        zero->point2->setCoords(1, 0);
        QColor zc = fg;
        zc.setAlpha(120);
        zero->setPen(QPen(zc, 1));
        xa->setRange(-0.6, static_cast<double>(k) - 0.4);
        ya->setRange(yLo, yHi);
        setCellTicks(xa, shown_.labels);
    }

    // Right column: the L1 error distributions on one x range, so that they compare.
    // The x range spans both samples (and both expectations), padded: when no cell is un-noised
    // the two distributions coincide and are not squeezed against 0.
    double emin = std::min(pl.expectedL1Rdp, pl.expectedL1Dp);
    double emax = std::max(pl.expectedL1Rdp, pl.expectedL1Dp);
    for (const auto* v : {&mc.dpL1, &mc.rdpL1}) {
        for (double e : *v) {
            emin = std::min(emin, e);
            emax = std::max(emax, e);
        }
    }
    if (!(emax > emin)) {
        emax = emin + (emin > 0 ? emin : 1);
    }
    const double span = emax - emin;
    emin = std::max(0.0, emin - 0.04 * span);
    emax += 0.04 * span;
    constexpr int kBins = 60;
    const double width = (emax - emin) / kBins;
    double countMax = 0;
    for (QCPAxisRect* r : {dpErrRect_, rdpErrRect_}) {
        const bool isRdp = r == rdpErrRect_;
        const auto& samples = isRdp ? mc.rdpL1 : mc.dpL1;
        QVector<double> centres(kBins), counts(kBins, 0);
        for (int b = 0; b < kBins; ++b) {
            centres[b] = emin + (b + 0.5) * width;
        }
        for (double e : samples) {
            const int b = std::clamp(static_cast<int>((e - emin) / width), 0, kBins - 1);
            counts[b] += 1;
        }
        countMax = std::max(countMax, *std::max_element(counts.begin(), counts.end()));
        QCPAxis* xa = r->axis(QCPAxis::atBottom);
        QCPAxis* ya = r->axis(QCPAxis::atLeft);
        auto* bars = new QCPBars(xa, ya);
        const QColor c = isRdp ? kRdpColour : dpColour;
        QColor fill = c;
        fill.setAlpha(150);
        bars->setData(centres, counts, true);
        bars->setWidth(width);
        bars->setPen(QPen(c, 1));
        bars->setBrush(fill);
        bars->removeFromLegend();
        // The exact expectation E‖p̃ − p̂‖₁ = m·b (dashed) and the trials' mean (solid).
        const double exact = isRdp ? pl.expectedL1Rdp : pl.expectedL1Dp;
        const double mean = isRdp ? mc.meanRdpL1 : mc.meanDpL1;
        for (int which = 0; which < 2; ++which) {
            auto* line = new QCPItemStraightLine(plot_);
            line->setClipAxisRect(r);
            for (auto* p : {line->point1, line->point2}) {
                p->setAxes(xa, ya);
                p->setAxisRect(r);
            }
            const double v = which == 0 ? mean : exact;
            line->point1->setCoords(v, 0);
            line->point2->setCoords(v, 1);
            line->setPen(which == 0 ? QPen(fg, 1.5) : QPen(fg, 1.5, Qt::DashLine));
        }
        xa->setRange(emin, emax);
        xa->ticker()->setTickCount(2);
    }
    for (QCPAxisRect* r : {dpErrRect_, rdpErrRect_}) {
        r->axis(QCPAxis::atLeft)->setRange(0, countMax * 1.1 + 1);
    }
    // Legend keys for the two lines of the right column.
    auto* meanKey =
        plot_->addGraph(dpErrRect_->axis(QCPAxis::atBottom), dpErrRect_->axis(QCPAxis::atLeft));
    meanKey->setName(tr("mean error of the trials"));
    meanKey->setPen(QPen(fg, 1.5));
    auto* exactKey =
        plot_->addGraph(dpErrRect_->axis(QCPAxis::atBottom), dpErrRect_->axis(QCPAxis::atLeft));
    exactKey->setName(tr("exact expected error m·2/(nε)"));
    exactKey->setPen(QPen(fg, 1.5, Qt::DashLine));
    plot_->legend->setVisible(true);

    // The side panel's texts.
    guarantee_->setText(QString::fromStdString(pl.guarantee) + QLatin1Char(' ') +
                        tr("The DP version: ε = %1-differential privacy under replace-one "
                           "neighbours.")
                            .arg(eps));
    QString cellText;
    if (pl.noiseFreeCells == 0) {
        cellText = tr("<b>No cell is published without noise.</b> The rule needs 2k(cⱼ + 1) ≤ γn, "
                      "i.e. n ≥ 2k/γ = %L1 even for an empty cell (here n = %L2): the RDP "
                      "release is the DP release.")
                       .arg(formatSignificant(2.0 * static_cast<double>(k) / shown_.gamma, 6))
                       .arg(pl.records);
    } else {
        QStringList names;
        for (std::size_t j = 0; j < k && names.size() < 12; ++j) {
            if (pl.noiseFree[j]) {
                names << QString::fromStdString(shown_.labels[j]);
            }
        }
        QString list = names.join(QStringLiteral(", "));
        if (pl.noiseFreeCells > static_cast<std::size_t>(names.size())) {
            list += tr(" … and %L1 more")
                        .arg(pl.noiseFreeCells - static_cast<std::size_t>(names.size()));
        }
        cellText = tr("<b>Un-noised cells (published exactly): %L1 of %L2</b> — those with count "
                      "≤ γn/(2k) − 1 = %3: %4.")
                       .arg(pl.noiseFreeCells)
                       .arg(k)
                       .arg(formatSignificant(pl.maxNoiseFreeCount, 6), list.toHtmlEscaped());
    }
    if (k == 1) {
        cellText += QLatin1Char(' ') +
                    tr("With a single cell the proportion is 1 for every dataset: there is "
                       "nothing to protect and nothing to estimate.");
    }
    cells_->setText(cellText);
    const auto row = [](const QString& what, const QString& a, const QString& b) {
        return QStringLiteral(
                   "<tr><td>%1</td><td align='right'>%2</td>"
                   "<td align='right'>%3</td></tr>")
            .arg(what, a, b);
    };
    const auto mcCell = [](double mean, double se) {
        return QStringLiteral("%1<br>± %2")
            .arg(formatSignificant(mean, 4), formatSignificant(se, 2));
    };
    QString table =
        tr("<b>Errors on the proportions</b> (L1 = ‖p̃ − p̂‖₁, L2 = ‖p̃ − p̂‖₂; RDP is WEAKER "
           "than DP)") +
        QStringLiteral("<table cellspacing='3' width='100%'>") +
        row(QString(), tr("<b>RDP</b>"), tr("<b>DP</b>")) +
        row(tr("E[L1], exact"), formatSignificant(pl.expectedL1Rdp, 4),
            formatSignificant(pl.expectedL1Dp, 4)) +
        row(tr("L1, Monte Carlo"), mcCell(mc.meanRdpL1, mc.seRdpL1),
            mcCell(mc.meanDpL1, mc.seDpL1)) +
        row(tr("E[L2²], exact"), formatSignificant(pl.expectedSquaredL2Rdp, 4),
            formatSignificant(pl.expectedSquaredL2Dp, 4)) +
        row(tr("L2, Monte Carlo"), mcCell(mc.meanRdpL2, mc.seRdpL2),
            mcCell(mc.meanDpL2, mc.seDpL2)) +
        QStringLiteral("</table>") +
        tr("Monte Carlo: mean ± standard error over %L1 trials (seed %2); in each trial both "
           "versions share the noisy cells' Laplace draws. Noisy cells m = %L3 (RDP), %L4 (DP).")
            .arg(mc.trials)
            .arg(shown_.seed)
            .arg(k - pl.noiseFreeCells)
            .arg(k);
    errors_->setText(table);
    replotWhenVisible(plot_);
}

void RandomDpPage::styleTexts() {
    const QColor fg = palette().color(QPalette::WindowText);
    title_->setTextColor(fg);
    for (auto* t : panelTitles_) {
        t->setTextColor(fg);
    }
    for (QCPAxisRect* r : {rdpRect_, dpErrRect_, rdpErrRect_}) {
        applyAxisRectPalette(r, palette());
    }
}

void RandomDpPage::restyle() {
    styleTexts();
    draw();
}

}  // namespace dpx::ui
