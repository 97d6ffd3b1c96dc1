#include "ui/tabs/risk_tab.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/base/validation.h"
#include "core/choosing/risk.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QColor kPersonColour(66, 133, 244);
const QColor kGroupColour(230, 97, 0);
const QColor kGaussColour(52, 168, 83);
const QColor kTracingColour(171, 71, 188);
constexpr std::size_t kCurvePoints = 201;

void setCurve(QCPGraph* g, const std::vector<XYPoint>& pts) {
    QVector<double> x, y;
    x.reserve(static_cast<qsizetype>(pts.size()));
    y.reserve(static_cast<qsizetype>(pts.size()));
    for (const XYPoint& p : pts) {
        x << p.x;
        y << p.y;
    }
    g->setData(x, y, true);
}

QCPGraph* addGraph(QCustomPlot* plot, const QString& name, const QPen& pen) {
    QCPGraph* g = plot->addGraph();
    g->setName(name);
    g->setPen(pen);
    return g;
}

QCustomPlot* makePlot(const QString& objectName, QCPTextElement** title) {
    auto* plot = new QCustomPlot;
    plot->setObjectName(objectName);
    plot->plotLayout()->insertRow(0);
    *title = new PlotTitle(plot, QString());
    QFont tf = plot->font();
    tf.setBold(true);
    (*title)->setFont(tf);
    plot->plotLayout()->addElement(0, 0, *title);
    plot->legend->setVisible(true);
    QFont lf = plot->font();
    lf.setPointSizeF(lf.pointSizeF() * 0.9);
    plot->legend->setFont(lf);
    return plot;
}

// Group level (k ≥ 2), chaining bound (δ Σ_{j<k} e^{jε}).
std::optional<GroupPrivacy> groupOf(double epsilon, double delta, unsigned k) {
    auto g = groupPrivacy(PrivacyLevel{epsilon, delta}, k, GroupBound::Chain);
    if (!g) {
        return std::nullopt;
    }
    return *g;
}

}  // namespace

RiskTab::RiskTab(QWidget* parent) : QWidget(parent) {
    prior_ = new QDoubleSpinBox;
    prior_->setObjectName(QStringLiteral("riskPrior"));
    prior_->setRange(0.001, 0.999);
    prior_->setDecimals(3);
    prior_->setSingleStep(0.05);
    prior_->setValue(0.5);
    prior_->setToolTip(
        tr("The attacker's prior belief p that a given person is in the data (or "
           "has the trait), before seeing the release"));
    group_ = new QSpinBox;
    group_->setObjectName(QStringLiteral("riskGroup"));
    group_->setRange(1, 100);
    group_->setValue(1);
    group_->setToolTip(
        tr("Protect a group of k people (a family, a household): the guarantee "
           "for the group is (kε, δ_k), drawn as a second (orange) curve"));
    sentence_ = new QLabel;
    sentence_->setObjectName(QStringLiteral("riskSentence"));
    sentence_->setWordWrap(true);
    sentence_->setTextFormat(Qt::RichText);
    groupText_ = new QLabel;
    groupText_->setWordWrap(true);
    caption_ = new QLabel;
    caption_->setWordWrap(true);
    caption_->setTextFormat(Qt::RichText);

    QCPTextElement* t = nullptr;
    posterior_ = makePlot(QStringLiteral("riskPosterior"), &t);
    posteriorTitle_ = t;
    posterior_->setMinimumSize(340, 220);
    posterior_->xAxis->setLabel(tr("prior p (belief before the release)"));
    posterior_->yAxis->setLabel(tr("largest posterior"));
    posterior_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    posterior_->setToolTip(
        tr("How sure an attacker can become that a given person is in the data "
           "after seeing the release, for every prior belief p"));

    overEpsilon_ = makePlot(QStringLiteral("riskOverEpsilon"), &t);
    epsilonTitle_ = t;
    overEpsilon_->setMinimumSize(340, 160);
    overEpsilon_->xAxis->setLabel(tr("ε (log scale)"));
    overEpsilon_->yAxis->setLabel(tr("largest posterior"));
    overEpsilon_->xAxis->setScaleType(QCPAxis::stLogarithmic);
    overEpsilon_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    overEpsilon_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    overEpsilon_->setToolTip(
        tr("The largest posterior for the chosen prior p at every ε; the "
           "marker is the current ε"));

    region_ = makePlot(QStringLiteral("riskRegion"), &t);
    regionTitle_ = t;
    region_->setMinimumSize(340, 320);
    region_->xAxis->setLabel(tr("false-positive rate α (non-member accused)"));
    region_->yAxis->setLabel(tr("false-negative rate β (member missed)"));
    region_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    region_->setToolTip(
        tr("Every membership test an attacker can run has an error pair (α, β). Under (ε, δ)-DP "
           "no test reaches the shaded region: β ≥ max{0, 1 − δ − e^ε α, e^−ε (1 − δ − α)}."));

    auto* controls = new QHBoxLayout;
    auto* priorLabel = new QLabel(tr("&Prior p:"));
    priorLabel->setBuddy(prior_);
    auto* groupLabel = new QLabel(tr("&Group size k:"));
    groupLabel->setBuddy(group_);
    controls->addWidget(priorLabel);
    controls->addWidget(prior_);
    controls->addSpacing(16);
    controls->addWidget(groupLabel);
    controls->addWidget(group_);
    controls->addSpacing(16);
    controls->addWidget(groupText_, 1);

    tracingN_ = new QSpinBox;
    tracingN_->setObjectName(QStringLiteral("riskTracingN"));
    tracingN_->setRange(10, 1000);
    tracingN_->setValue(100);
    tracingN_->setToolTip(tr("Records n in the simulated dataset whose noisy mean is released"));
    tracingD_ = new QSpinBox;
    tracingD_->setObjectName(QStringLiteral("riskTracingD"));
    tracingD_->setRange(10, 5000);
    tracingD_->setSingleStep(100);
    tracingD_->setValue(1000);
    tracingD_->setToolTip(tr("Dimensions d of each ±1 record: more dimensions, stronger attack"));
    tracingButton_ = new QPushButton(tr("&Simulate tracing attack"));
    tracingButton_->setObjectName(QStringLiteral("riskTracingButton"));
    tracingButton_->setToolTip(
        tr("Simulate the tracing attack (Kamath & Ullman primer, §3.2) on the mean of n records in "
           "d dimensions "
           "released with the chosen noise at the current ε, and draw the attacker's ROC (purple) "
           "next to the theoretical boundary. A seeded demonstration, never a release."));
    tracingMech_ = new QComboBox;
    tracingMech_->setObjectName(QStringLiteral("riskTracingMechanism"));
    // Its longest choice would otherwise set the tab's width (too wide for 1024 × 768).
    tracingMech_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    tracingMech_->setMinimumContentsLength(24);
    tracingMech_->addItem(tr("Gaussian, analytic: (ε, δ)-DP"),
                          static_cast<int>(VectorMechanismKind::Gaussian));
    tracingMech_->addItem(tr("Gaussian as printed in the Kamath & Ullman primer: only (2ε, δ)-DP"),
                          static_cast<int>(VectorMechanismKind::GaussianPrinted));
    tracingMech_->addItem(tr("Laplace: ε-DP"), static_cast<int>(VectorMechanismKind::Laplace));
    tracingMech_->addItem(tr("K-norm (L2 ball): ε-DP"),
                          static_cast<int>(VectorMechanismKind::KNorm));
    tracingMech_->setToolTip(tr(
        "The noise added to the released mean (docs/mechanisms/vector-mean.md). The Kamath & "
        "Ullman "
        "primer's printed σ² = 2d ln(2/δ)/(ε²n²) is only (2ε, δ)-DP: its ROC may enter the region "
        "that (ε, δ) forbids."));
    tracingText_ = new QLabel;
    tracingText_->setWordWrap(true);
    // Two rows: in one (815 px) the tab had to be scrolled sideways beside the data panel on a
    // 1024 × 768 screen.
    auto* tracing = new QVBoxLayout;
    auto* sizes = new QHBoxLayout;
    auto* how = new QHBoxLayout;
    auto* nLabel = new QLabel(tr("Membership attack: records &n"));
    nLabel->setBuddy(tracingN_);
    auto* dLabel = new QLabel(tr("dimensions &d"));
    dLabel->setBuddy(tracingD_);
    sizes->addWidget(nLabel);
    sizes->addWidget(tracingN_);
    sizes->addWidget(dLabel);
    sizes->addWidget(tracingD_);
    sizes->addStretch(1);
    how->addWidget(tracingMech_);
    how->addWidget(tracingButton_);
    how->addStretch(1);
    tracing->addLayout(sizes);
    tracing->addLayout(how);

    auto* left = new QVBoxLayout;
    left->addWidget(posterior_, 3);
    left->addWidget(overEpsilon_, 2);
    auto* plots = new QHBoxLayout;
    plots->addLayout(left, 1);
    plots->addWidget(region_, 1);
    plots_ = plots;

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(sentence_);
    layout->addLayout(plots, 1);
    layout->addLayout(tracing);
    layout->addWidget(tracingText_);
    layout->addWidget(caption_);

    connect(prior_, &QDoubleSpinBox::valueChanged, this, [this] {
        drawPosterior();
        drawOverEpsilon();
    });
    connect(group_, &QSpinBox::valueChanged, this, [this] { rebuild(); });
    connect(tracingButton_, &QPushButton::clicked, this,
            [this] { Q_EMIT tracingRequested(tracingParams()); });
    connect(tracingMech_, &QComboBox::currentIndexChanged, this, [this] {
        if (!tracingRoc_.empty()) {
            tracingRoc_.clear();
            tracingText_->setText(tr("Mechanism changed: simulate again."));
            drawRegion();
        }
    });

    applyPalette(posterior_, posteriorTitle_);
    applyPalette(overEpsilon_, epsilonTitle_);
    applyPalette(region_, regionTitle_);
    rebuild();
}

void RiskTab::setLevel(const RiskLevel& level) {
    if (level == level_) {
        return;
    }
    level_ = level;
    if (!tracingRoc_.empty()) {
        tracingRoc_.clear();
        tracingText_->setText(tr("ε or δ changed: simulate again."));
    }
    rebuild();
}

dpx::TracingAttackParams RiskTab::tracingParams() const {
    TracingAttackParams p;
    p.n = static_cast<std::size_t>(tracingN_->value());
    p.d = static_cast<std::size_t>(tracingD_->value());
    p.epsilon = level_.epsilon;
    p.delta = std::max(level_.delta, kTracingMinDelta);
    p.mechanism.kind = static_cast<VectorMechanismKind>(tracingMech_->currentData().toInt());
    p.mechanism.calibration = GaussianCalibration::Analytic;
    return p;
}

void RiskTab::setTracingResult(const dpx::TracingAttackParams& params,
                               const dpx::TracingAttackResult& result) {
    const TracingAttackParams now = tracingParams();
    if (params.epsilon != now.epsilon || params.delta != now.delta ||
        params.mechanism.kind != now.mechanism.kind) {
        return;  // the level or the mechanism moved on while the simulation ran
    }
    tracingRoc_ = result.roc;
    tracingAuc_ = result.auc;
    const bool printed = params.mechanism.kind == VectorMechanismKind::GaussianPrinted;
    tracingLabel_ = tracingMech_->currentText().section(QLatin1Char(':'), 0, 0);
    tracingText_->setText(
        tr("%1, noise sd σ = %2 per coordinate; n = %3, d = %4: attack AUC %5 (purple)%6%7")
            .arg(tracingLabel_, formatSignificant(result.sigma, 4))
            .arg(static_cast<qulonglong>(params.n))
            .arg(static_cast<qulonglong>(params.d))
            .arg(QString::number(result.auc, 'f', 3),
                 printed ? tr("; only (2ε, δ) = (%1, %2)-DP, so the ROC may cross the region")
                               .arg(formatSignificant(2 * params.epsilon, 4),
                                    formatSignificant(params.delta, 4))
                         : QString(),
                 level_.delta > 0 || params.mechanism.kind == VectorMechanismKind::Laplace ||
                         params.mechanism.kind == VectorMechanismKind::KNorm
                     ? QString()
                     : tr("; simulated at δ = %1").arg(formatSignificant(params.delta, 4))));
    drawRegion();
}

void RiskTab::setTracingMessage(const QString& text) {
    tracingText_->setText(text);
}

QString RiskTab::tracingText() const {
    return tracingText_->text();
}

QString RiskTab::posteriorText() const {
    QString text = sentence_->text();  // rich text with <b> only
    return text.remove(QStringLiteral("<b>")).remove(QStringLiteral("</b>"));
}

void RiskTab::rebuild() {
    const unsigned k = static_cast<unsigned>(group_->value());
    const double eps = level_.epsilon;
    const double delta = level_.delta;
    if (k > 1) {
        if (auto g = groupOf(eps, delta, k)) {
            QString text =
                tr("Group of %1: (%2ε = %3, δ_%1 = %4)")
                    .arg(k)
                    .arg(k)
                    .arg(formatSignificant(g->epsilon, 4),
                         delta > 0 ? formatSignificant(g->delta, 4) : QStringLiteral("0"));
            if (g->vacuous()) {
                text += tr(" — δ_%1 ≥ 1: no guarantee for the group").arg(k);
            }
            groupText_->setText(text);
        } else {
            groupText_->clear();
        }
    } else {
        groupText_->setText(tr("(k = 1: one person)"));
    }
    QStringList cap;
    if (delta > 0) {
        const double fail = delta / (1 - std::exp(-kDefaultPosteriorSlack));
        cap << tr("With δ = %1 no bound holds for every output: the posterior bounds use ε′ = ε + "
                  "ln 2 and may fail on outputs of total probability ≤ 2δ = %2.")
                   .arg(formatSignificant(delta, 4), formatSignificant(fail, 4));
    } else {
        cap << tr("Pure ε-DP (δ = 0): the posterior bounds hold for every output.");
    }
    if (auto auc = maxAuc(PrivacyLevel{eps, delta})) {
        cap << tr("Best possible membership-attack AUC: %1 (0.5 = guessing).")
                   .arg(QString::number(*auc, 'g', 6));
    }
    if (level_.gaussianMu) {
        cap << tr("Gaussian mechanism: exact trade-off G_μ with μ = Δ2/σ = %1.")
                   .arg(formatSignificant(*level_.gaussianMu, 4));
    } else if (!level_.gaussianNote.isEmpty()) {
        cap << level_.gaussianNote;
    }
    if (k > 1) {
        cap << tr("Groups: (kε, δ Σ_{j<k} e^{jε}) by chaining k neighbours (Vadhan 2017 §2).");
    }
    caption_->setText(cap.join(QLatin1Char(' ')).toHtmlEscaped());
    drawPosterior();
    drawOverEpsilon();
    drawRegion();
}

void RiskTab::drawPosterior() {
    const double eps = level_.epsilon;
    const double delta = level_.delta;
    const unsigned k = static_cast<unsigned>(group_->value());
    const double p = prior_->value();
    const QColor text = palette().color(QPalette::WindowText);
    QColor faint = text;
    faint.setAlpha(120);
    posterior_->clearPlottables();
    posterior_->clearItems();
    posteriorTitle_->setText(
        delta > 0 ? tr("Largest posterior at ε = %1, δ = %2")
                        .arg(formatSignificant(eps, 4), formatSignificant(delta, 4))
                  : tr("Largest posterior at ε = %1").arg(formatSignificant(eps, 4)));
    QCPGraph* diag = addGraph(posterior_, tr("no information (posterior = prior)"),
                              QPen(faint, 1.5, Qt::DashLine));
    diag->setData(QVector<double>{0, 1}, QVector<double>{0, 1});
    const PrivacyLevel level{eps, delta};
    if (auto curve = posteriorOverPrior(level, kCurvePoints)) {
        std::vector<XYPoint> pts = *curve;
        pts.insert(pts.begin(), XYPoint{0, 0});
        pts.push_back(XYPoint{1, 1});
        setCurve(addGraph(posterior_, tr("one person"), QPen(kPersonColour, 2.5)), pts);
    }
    std::optional<GroupPrivacy> g;
    if (k > 1 && (g = groupOf(eps, delta, k))) {
        if (auto curve = posteriorOverPrior(g->level(), kCurvePoints)) {
            std::vector<XYPoint> pts = *curve;
            pts.insert(pts.begin(), XYPoint{0, g->vacuous() ? 1.0 : 0.0});
            pts.push_back(XYPoint{1, 1});
            setCurve(addGraph(posterior_, tr("group of %1 (%2ε)").arg(k).arg(k),
                              QPen(kGroupColour, 2, Qt::DashLine)),
                     pts);
        }
    }
    QStringList parts;
    posteriorAtPrior_ = 1;
    if (auto b = posteriorBound(p, level)) {
        posteriorAtPrior_ = b->posterior;
        QCPGraph* m = addGraph(posterior_, tr("chosen prior"), QPen(kPersonColour));
        m->setLineStyle(QCPGraph::lsNone);
        m->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kPersonColour, 9));
        m->setData(QVector<double>{p}, QVector<double>{b->posterior});
        m->removeFromLegend();
        const QString who = tr("Someone <b>%1</b> sure that a given person is in the data becomes "
                               "at most <b>%2</b> sure after seeing the release")
                                .arg(QString::number(100 * p, 'g', 4) + QLatin1Char('%'),
                                     formatPercent(b->posterior));
        parts << (delta > 0 ? who + tr(", except on outputs of total probability ≤ %1.")
                                        .arg(formatSignificant(b->failureProbability, 4))
                            : who + tr(", whatever the output."));
    }
    if (g) {
        if (auto b = posteriorBound(p, g->level())) {
            QCPGraph* m = addGraph(posterior_, QString(), QPen(kGroupColour));
            m->setLineStyle(QCPGraph::lsNone);
            m->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kGroupColour, 8));
            m->setData(QVector<double>{p}, QVector<double>{b->posterior});
            m->removeFromLegend();
            parts << tr("For a group of %1 people: at most <b>%2</b>.")
                         .arg(k)
                         .arg(formatPercent(b->posterior));
        }
    }
    sentence_->setText(parts.join(QLatin1Char(' ')));
    posterior_->xAxis->setRange(0, 1);
    posterior_->yAxis->setRange(0, 1.02);
    replotWhenVisible(posterior_);
}

void RiskTab::drawOverEpsilon() {
    const double eps = level_.epsilon;
    const double delta = level_.delta;
    const unsigned k = static_cast<unsigned>(group_->value());
    const double p = prior_->value();
    overEpsilon_->clearPlottables();
    epsilonTitle_->setText(
        tr("Largest posterior over ε for prior p = %1").arg(formatSignificant(p, 4)));
    auto grid = logSpaced(0.01, 20, 121);
    if (!grid) {
        return;
    }
    if (auto curve = posteriorOverEpsilon(p, delta, *grid)) {
        setCurve(addGraph(overEpsilon_, tr("one person"), QPen(kPersonColour, 2.5)), *curve);
    }
    if (k > 1) {
        std::vector<XYPoint> pts;
        for (double e : *grid) {
            if (auto g = groupOf(e, delta, k)) {
                if (auto b = posteriorBound(p, g->level())) {
                    pts.push_back({e, b->posterior});
                }
            }
        }
        setCurve(
            addGraph(overEpsilon_, tr("group of %1").arg(k), QPen(kGroupColour, 2, Qt::DashLine)),
            pts);
    }
    if (auto b = posteriorBound(p, PrivacyLevel{eps, delta})) {
        QCPGraph* m = addGraph(overEpsilon_, tr("current ε = %1").arg(formatSignificant(eps, 4)),
                               QPen(kPersonColour));
        m->setLineStyle(QCPGraph::lsNone);
        m->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kPersonColour, 9));
        m->setData(QVector<double>{eps}, QVector<double>{b->posterior});
    }
    overEpsilon_->xAxis->setRange(0.01, 20);
    overEpsilon_->yAxis->setRange(0, 1.02);
    replotWhenVisible(overEpsilon_);
}

void RiskTab::drawRegion() {
    const double eps = level_.epsilon;
    const double delta = level_.delta;
    const unsigned k = static_cast<unsigned>(group_->value());
    const QColor text = palette().color(QPalette::WindowText);
    QColor faint = text;
    faint.setAlpha(120);
    region_->clearPlottables();
    region_->clearItems();
    regionTitle_->setText(tr("Membership tests: no attack reaches the shaded region"));
    QCPGraph* guess =
        addGraph(region_, tr("random guessing (β = 1 − α)"), QPen(faint, 1.5, Qt::DashLine));
    guess->setData(QVector<double>{0, 1}, QVector<double>{1, 0});
    if (auto b = testRegionBoundary(PrivacyLevel{eps, delta}, kCurvePoints)) {
        QCPGraph* g = addGraph(region_,
                               delta > 0 ? tr("(ε, δ) boundary, impossible below")
                                         : tr("ε boundary, impossible below"),
                               QPen(kPersonColour, 2.5));
        QColor fill = kPersonColour;
        fill.setAlpha(70);
        g->setBrush(fill);
        setCurve(g, *b);
    }
    if (k > 1) {
        if (auto gp = groupOf(eps, delta, k)) {
            if (auto b = testRegionBoundary(gp->level(), kCurvePoints)) {
                QCPGraph* g = addGraph(region_, tr("group of %1 (%2ε)").arg(k).arg(k),
                                       QPen(kGroupColour, 2, Qt::DashLine));
                QColor fill = kGroupColour;
                fill.setAlpha(35);
                g->setBrush(fill);
                setCurve(g, *b);
            }
        }
    }
    if (level_.gaussianMu) {
        const double mu = *level_.gaussianMu;
        if (auto c = gaussianTradeoffCurve(mu, 401)) {
            setCurve(
                addGraph(region_,
                         tr("Gaussian mechanism, exact (μ = %1)").arg(formatSignificant(mu, 4)),
                         QPen(kGaussColour, 2)),
                *c);
        }
        if (k > 1) {
            if (auto c = gaussianTradeoffCurve(k * mu, 401)) {
                setCurve(addGraph(region_,
                                  tr("Gaussian, group of %1 (μ = %2)")
                                      .arg(k)
                                      .arg(formatSignificant(k * mu, 4)),
                                  QPen(kGaussColour, 2, Qt::DashLine)),
                         *c);
            }
        }
    }
    if (!tracingRoc_.empty()) {
        setCurve(addGraph(region_,
                          tr("tracing attack (%1), AUC %2")
                              .arg(tracingLabel_, QString::number(tracingAuc_, 'f', 3)),
                          QPen(kTracingColour, 2)),
                 tracingRoc_);
    }
    // Label the shaded region only where it is wide enough to hold the text.
    if (tradeoffEpsDelta(eps, delta, 0.25) > 0.1) {
        auto* label = new QCPItemText(region_);
        label->position->setType(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(0.06, 0.04);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setText(tr("impossible attacks"));
        label->setColor(text);
    }
    region_->xAxis->setRange(0, 1);
    region_->yAxis->setRange(0, 1);
    replotWhenVisible(region_);
}

void RiskTab::applyPalette(QCustomPlot* plot, QCPTextElement* title) {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    applyPlotPalette(plot, pal);
    title->setTextColor(text);
}

void RiskTab::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Side by side needs both plots' minimum widths and the margins; below that, stacked (the
    // window's tab scrolls vertically).
    const int sideBySide = posterior_->minimumWidth() + region_->minimumWidth() + 80;
    const auto direction = width() < sideBySide ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight;
    if (plots_->direction() != direction) {
        plots_->setDirection(direction);
    }
}

void RiskTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette(posterior_, posteriorTitle_);
        applyPalette(overEpsilon_, epsilonTitle_);
        applyPalette(region_, regionTitle_);
        rebuild();
    }
}

}  // namespace dpx::ui
