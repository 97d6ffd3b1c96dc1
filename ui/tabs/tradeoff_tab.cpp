#include "ui/tabs/tradeoff_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/algorithms/algorithm.h"
#include "core/base/validation.h"
#include "ui/model/computations.h"
#include "ui/model/job_runner.h"
#include "ui/widgets/file_export.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"
#include "ui/widgets/side_by_side.h"

namespace dpx::ui {

namespace {

// The rows of the configuration grid: the central mechanisms (with the sparse, thresholded Laplace
// release of seed 003 §2.4.1, issue #9), then the local protocols (issue #7; dBitFlip with one bit
// per user, the telemetry study's d = 1).
struct Row {
    TradeoffMechanism mechanism;
    ldp::Protocol protocol = ldp::Protocol::GRR;  // Local rows
    std::size_t bits = 1;
};
constexpr Row kMechanisms[] = {
    {TradeoffMechanism::Laplace},
    {TradeoffMechanism::Geometric},
    {TradeoffMechanism::Gaussian},
    {TradeoffMechanism::SparseThreshold},
    {TradeoffMechanism::CountGeometric},
    {TradeoffMechanism::CountExplicitFair},
    {TradeoffMechanism::CountOptimal},
    {TradeoffMechanism::Local, ldp::Protocol::RR},
    {TradeoffMechanism::Local, ldp::Protocol::GRR},
    {TradeoffMechanism::Local, ldp::Protocol::OUE},
    {TradeoffMechanism::Local, ldp::Protocol::SUE},
    {TradeoffMechanism::Local, ldp::Protocol::OLH},
    {TradeoffMechanism::Local, ldp::Protocol::HRR},
    {TradeoffMechanism::Local, ldp::Protocol::DBitFlip, 1},
};

ldp::ProtocolSpec protocolOf(const Row& r) {
    ldp::ProtocolSpec p;
    p.protocol = r.protocol;
    p.bits = r.bits;
    return p;
}

// "laplace", …, "optimal", or the local protocol's configuration name ("oue", "dbitflip1").
QString rowName(const Row& r) {
    return r.mechanism == TradeoffMechanism::Local
               ? QString::fromStdString(localProtocolConfigName(protocolOf(r)))
               : QString::fromLatin1(tradeoffMechanismName(r.mechanism));
}

constexpr EstimatorKind kEstimators[] = {EstimatorKind::Identity, EstimatorKind::Clamp,
                                         EstimatorKind::Resize, EstimatorKind::NoiseFirst};
constexpr std::size_t kNoCurve = std::numeric_limits<std::size_t>::max();

QString mechanismTitle(TradeoffMechanism m) {
    switch (m) {
        case TradeoffMechanism::Laplace:
            return QObject::tr("Laplace");
        case TradeoffMechanism::Geometric:
            return QObject::tr("Geometric");
        case TradeoffMechanism::Gaussian:
            return QObject::tr("Gaussian");
        case TradeoffMechanism::CountGeometric:
            return QObject::tr("GM matrix");
        case TradeoffMechanism::CountExplicitFair:
            return QObject::tr("EM matrix");
        case TradeoffMechanism::CountOptimal:
            return QObject::tr("Optimal (LP)");
        case TradeoffMechanism::Local:
            return QObject::tr("Local");
        case TradeoffMechanism::SparseThreshold:
            return QObject::tr("Sparse Laplace");
        case TradeoffMechanism::Algorithm:
            return QObject::tr("Workload algorithm");
    }
    return {};
}

QString rowTitle(const Row& r) {
    if (r.mechanism != TradeoffMechanism::Local) {
        return mechanismTitle(r.mechanism);
    }
    switch (r.protocol) {
        case ldp::Protocol::RR:
            return QObject::tr("Local RR");
        case ldp::Protocol::GRR:
            return QObject::tr("Local GRR");
        case ldp::Protocol::OUE:
            return QObject::tr("Local OUE");
        case ldp::Protocol::SUE:
            return QObject::tr("Local SUE");
        case ldp::Protocol::OLH:
            return QObject::tr("Local OLH");
        case ldp::Protocol::HRR:
            return QObject::tr("Local HRR");
        case ldp::Protocol::DBitFlip:
            return QObject::tr("Local dBitFlip");
    }
    return {};
}

QString estimatorTitle(EstimatorKind e) {
    switch (e) {
        case EstimatorKind::Identity:
            return QObject::tr("Identity");
        case EstimatorKind::Clamp:
            return QObject::tr("Clamp");
        case EstimatorKind::Resize:
            return QObject::tr("Resize");
        case EstimatorKind::NoiseFirst:
            return QObject::tr("NoiseFirst");
    }
    return {};
}

// The id of a configuration in the view ("laplace:clamp", "optimal:identity"): the LP objective
// comes from the document, so it is not part of the id.
QString configId(const Row& r, EstimatorKind e) {
    return rowName(r) + QLatin1Char(':') + QString::fromLatin1(estimatorName(e));
}

// The row of a configuration (its mechanism and, for local ones, protocol and bits).
Row rowOf(const TradeoffConfig& c) {
    Row r{c.mechanism};
    if (c.mechanism == TradeoffMechanism::Local) {
        r.protocol = c.local.protocol;
        r.bits = c.local.bits;
    }
    return r;
}

// Colour = mechanism, dash pattern = estimator.
QColor mechanismColour(TradeoffMechanism m) {
    switch (m) {
        case TradeoffMechanism::Laplace:
            return QColor(31, 119, 180);
        case TradeoffMechanism::Geometric:
            return QColor(44, 160, 44);
        case TradeoffMechanism::Gaussian:
            return QColor(148, 103, 189);
        case TradeoffMechanism::CountGeometric:
            return QColor(214, 39, 40);
        case TradeoffMechanism::CountExplicitFair:
            return QColor(255, 127, 14);
        case TradeoffMechanism::CountOptimal:
            return QColor(140, 86, 75);
        case TradeoffMechanism::Local:
            return QColor(23, 190, 207);
        case TradeoffMechanism::SparseThreshold:
            return QColor(230, 60, 130);
        case TradeoffMechanism::Algorithm:
            break;  // by algorithm: algorithmColour
    }
    return Qt::gray;
}

// The workload algorithms by their place in the registry: hues spread round the circle at
// mid lightness (readable on the light and the dark theme).
QColor algorithmColour(const QString& id) {
    const auto& all = allAlgorithms();
    std::size_t index = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (QString::fromStdString(all[i]->info().id).compare(id, Qt::CaseInsensitive) == 0) {
            index = i;
        }
    }
    return QColor::fromHsv(static_cast<int>((index * 137) % 360), 170, 205);
}

// The algorithm of a configuration id "algo:dawa" (nullptr for other ids).
const Algorithm* algorithmOfId(const QString& id) {
    if (!isAlgorithmConfigName(id.toStdString())) {
        return nullptr;
    }
    return findAlgorithm(id.mid(5).toStdString());
}

QString algorithmId(const Algorithm& a) {
    return QString::fromStdString(algorithmConfigName(a.info().id, {}));
}

// Central mechanisms by mechanism; local protocols by protocol.
QColor rowColour(const Row& r) {
    if (r.mechanism != TradeoffMechanism::Local) {
        return mechanismColour(r.mechanism);
    }
    // Mid-lightness colours, readable on the light and the dark theme.
    static const QColor shades[] = {
        QColor(23, 190, 207),  QColor(0, 150, 150),   QColor(188, 189, 34), QColor(227, 119, 194),
        QColor(140, 140, 140), QColor(158, 110, 220), QColor(60, 170, 90)};
    return shades[static_cast<int>(r.protocol) % 7];
}

Qt::PenStyle estimatorDash(EstimatorKind e) {
    switch (e) {
        case EstimatorKind::Identity:
            return Qt::SolidLine;
        case EstimatorKind::Clamp:
            return Qt::DashLine;
        case EstimatorKind::Resize:
            return Qt::DotLine;
        case EstimatorKind::NoiseFirst:
            return Qt::DashDotLine;
    }
    return Qt::SolidLine;
}

QCPScatterStyle::ScatterShape estimatorShape(EstimatorKind e) {
    switch (e) {
        case EstimatorKind::Identity:
            return QCPScatterStyle::ssDisc;
        case EstimatorKind::Clamp:
            return QCPScatterStyle::ssSquare;
        case EstimatorKind::Resize:
            return QCPScatterStyle::ssTriangle;
        case EstimatorKind::NoiseFirst:
            return QCPScatterStyle::ssDiamond;
    }
    return QCPScatterStyle::ssDisc;
}

QString num(double v) {
    return QString::fromStdString(formatNumber(v));
}

QString metricTitle(Metric m) {
    switch (m) {
        case Metric::SSE:
            return QObject::tr("SSE");
        case Metric::L1:
            return QObject::tr("L1");
        case Metric::LInf:
            return QObject::tr("L∞");
        case Metric::W1:
            return QObject::tr("Wasserstein-1");
    }
    return {};
}

bool positive(double v) {
    return std::isfinite(v) && v > 0;
}

}  // namespace

std::optional<TradeoffMechanism> tradeoffMechanismOf(MechanismChoice m) {
    switch (m) {
        case MechanismChoice::Laplace:
            return TradeoffMechanism::Laplace;
        case MechanismChoice::Geometric:
            return TradeoffMechanism::Geometric;
        case MechanismChoice::Gaussian:
            return TradeoffMechanism::Gaussian;
        case MechanismChoice::CountGeometric:
            return TradeoffMechanism::CountGeometric;
        case MechanismChoice::CountExplicitFair:
            return TradeoffMechanism::CountExplicitFair;
        case MechanismChoice::CountOptimal:
            return TradeoffMechanism::CountOptimal;
        default:
            return std::nullopt;
    }
}

MechanismChoice mechanismChoiceOf(TradeoffMechanism m) {
    switch (m) {
        case TradeoffMechanism::Laplace:
            return MechanismChoice::Laplace;
        case TradeoffMechanism::Geometric:
            return MechanismChoice::Geometric;
        case TradeoffMechanism::Gaussian:
            return MechanismChoice::Gaussian;
        case TradeoffMechanism::CountGeometric:
            return MechanismChoice::CountGeometric;
        case TradeoffMechanism::CountExplicitFair:
            return MechanismChoice::CountExplicitFair;
        case TradeoffMechanism::CountOptimal:
            return MechanismChoice::CountOptimal;
        case TradeoffMechanism::Local:
            return MechanismChoice::LocalGRR;  // the protocol decides: see configIdOf
        case TradeoffMechanism::SparseThreshold:
        case TradeoffMechanism::Algorithm:
            return MechanismChoice::Laplace;  // not a window mechanism: never chosen by a click
    }
    return MechanismChoice::Laplace;
}

std::optional<QString> configIdOf(const ExplorerState& s) {
    if (isLocalMechanism(s.mechanism.kind)) {
        const Row r{TradeoffMechanism::Local, localProtocolOf(s.mechanism.kind),
                    static_cast<std::size_t>(s.mechanism.ldpBits)};
        return configId(r, s.mechanism.estimator);
    }
    if (auto m = tradeoffMechanismOf(s.mechanism.kind)) {
        return configId(Row{*m}, s.mechanism.estimator);
    }
    return std::nullopt;
}

MechanismChoice mechanismChoiceOf(const TradeoffConfig& c) {
    if (c.mechanism != TradeoffMechanism::Local) {
        return mechanismChoiceOf(c.mechanism);
    }
    switch (c.local.protocol) {
        case ldp::Protocol::RR:
            return MechanismChoice::LocalRR;
        case ldp::Protocol::GRR:
            return MechanismChoice::LocalGRR;
        case ldp::Protocol::OUE:
            return MechanismChoice::LocalOUE;
        case ldp::Protocol::SUE:
            return MechanismChoice::LocalSUE;
        case ldp::Protocol::OLH:
            return MechanismChoice::LocalOLH;
        case ldp::Protocol::HRR:
            return MechanismChoice::LocalHRR;
        case ldp::Protocol::DBitFlip:
            return MechanismChoice::LocalDBitFlip;
    }
    return MechanismChoice::LocalGRR;
}

struct TradeoffTab::CurveResult {
    QString error;
    ErrorCurve curve;
    bool hasMonteCarlo = false;
    std::uint64_t trials = 0;
};

TradeoffTab::TradeoffTab(JobRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
    connect(runner_, &JobRunner::longJobCancelled, this, &TradeoffTab::jobCancelled);
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("tradeoffPlot"));
    plot_->setMinimumSize(300, 300);  // fits beside the side panel at 1024 × 768
    plot_->plotLayout()->insertRow(0);
    title_ = new PlotTitle(plot_, QString());
    QFont tf = plot_->font();
    tf.setBold(true);
    title_->setFont(tf);
    plot_->plotLayout()->addElement(0, 0, title_);
    // Issue #22: under the title, what the curves are computed on (exported plots carry it).
    subtitle_ = new QCPTextElement(plot_, QString());
    QFont sf = plot_->font();
    sf.setPointSizeF(sf.pointSizeF() * 0.9);
    sf.setItalic(true);
    subtitle_->setFont(sf);
    subtitle_->setMargins(QMargins(5, 0, 5, 2));
    title_->setMargins(QMargins(5, 5, 5, 0));
    auto* titleBlock = new QCPLayoutGrid;
    plot_->plotLayout()->take(title_);  // take, not remove: remove deletes it
    plot_->plotLayout()->addElement(0, 0, titleBlock);
    titleBlock->addElement(0, 0, title_);
    titleBlock->addElement(1, 0, subtitle_);
    titleBlock->setRowSpacing(0);
    for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
        a->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
        a->setTicker(ticker);
        a->setNumberFormat(QStringLiteral("gb"));
        a->setNumberPrecision(6);
    }
    plot_->legend->setVisible(true);
    QFont lf = plot_->font();
    lf.setPointSizeF(lf.pointSizeF() * 0.85);
    plot_->legend->setFont(lf);
    // The legend goes under the axis rect, three entries per row: inside the plot it would hide
    // curves wherever they run (flat curves against N lie along the bottom).
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(2, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot_->legend);
    // As many columns as fit the plot's width (at most 3): entries are never cut.
    wrapLegendToWidth(plot_, 3);
    plot_->plotLayout()->setRowStretchFactor(2, 0.001);
    plot_->setMouseTracking(true);
    plot_->setToolTip(QString());
    connect(plot_, &QCustomPlot::plottableClick, this, &TradeoffTab::onPlottableClick);
    connect(plot_, &QCustomPlot::mouseMove, this, &TradeoffTab::onMouseMove);

    frontierText_ = new QLabel;
    frontierText_->setObjectName(QStringLiteral("tradeoffFrontier"));
    frontierText_->setWordWrap(true);
    frontierText_->setTextFormat(Qt::RichText);
    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("tradeoffStatus"));
    status_->setWordWrap(true);
    basis_ = new QLabel;
    basis_->setObjectName(QStringLiteral("tradeoffBasis"));
    basis_->setWordWrap(true);
    basis_->setTextFormat(Qt::RichText);
    basis_->setMargin(4);

    buildControls();
    planned_.computedOn = tr("the confidential data");
    updateBasis();
    applyPlotPalette(plot_, palette());
    updateTitle();
    updateTargetControls();
    draw();
}

namespace {

QDoubleSpinBox* makeSpin(double lo, double hi, double value, int decimals, const QString& name) {
    auto* s = new QDoubleSpinBox;
    s->setObjectName(name);
    s->setRange(lo, hi);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    s->setKeyboardTracking(false);
    return s;
}

}  // namespace

QGroupBox* TradeoffTab::buildConfigurationGrid() {
    // A grid of mechanism × estimator check boxes.
    auto* configBox = new QGroupBox(tr("Configurations"));
    auto* grid = new QGridLayout(configBox);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(2);
    for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
        auto* l = new QLabel(estimatorTitle(kEstimators[j]));
        l->setToolTip(
            tr("Estimator (post-processing). Line style: solid identity, dashed clamp, "
               "dotted resize, dash-dot NoiseFirst"));
        grid->addWidget(l, 0, static_cast<int>(j) + 1, Qt::AlignHCenter);
    }
    checks_.assign(std::size(kMechanisms), {});
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        const Row& m = kMechanisms[i];
        auto* name = new QLabel(rowTitle(m));
        if (m.mechanism == TradeoffMechanism::SparseThreshold) {
            name->setToolTip(
                tr("Laplace + threshold: the sparse histogram of Hall 2012, §2.4.1 "
                   "(see More mechanisms ▸ Sparse histograms)"));
        }
        QPalette pal = name->palette();
        pal.setColor(QPalette::WindowText, rowColour(m));
        name->setPalette(pal);
        grid->addWidget(name, static_cast<int>(i) + 1, 0);
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            const EstimatorKind e = kEstimators[j];
            auto* c = new QCheckBox;
            c->setObjectName(QStringLiteral("tradeoff_") +
                             configId(m, e).replace(QLatin1Char(':'), QLatin1Char('_')));
            c->setToolTip(tr("%1 with the %2 estimator").arg(rowTitle(m), estimatorTitle(e)));
            if (m.mechanism == TradeoffMechanism::Local && e == EstimatorKind::NoiseFirst) {
                c->setEnabled(false);
                c->setToolTip(
                    tr("NoiseFirst is derived for Laplace noise: not for local "
                       "protocols"));
            }
            if (m.mechanism == TradeoffMechanism::SparseThreshold &&
                (e == EstimatorKind::Clamp || e == EstimatorKind::NoiseFirst)) {
                c->setEnabled(false);
                c->setToolTip(e == EstimatorKind::Clamp
                                  ? tr("The thresholded release is ≥ 0 already: clamp = "
                                       "identity. Laplace clamped at 0, Hall 2012's comparison, "
                                       "is the Laplace row's Clamp")
                                  : tr("NoiseFirst assumes untouched Laplace noise in every "
                                       "bin: not for the thresholded release"));
            } else if (m.mechanism == TradeoffMechanism::SparseThreshold) {
                c->setToolTip(tr("Laplace (Δ1/ε) in every bin, then 0 where the noisy count is "
                                 "≤ τ = (Δ1/ε)·ln p (Hall 2012, §2.4.1), with the %1 estimator")
                                  .arg(estimatorTitle(e)));
            }
            if (isCountTradeoffMechanism(m.mechanism) &&
                (e == EstimatorKind::Clamp || e == EstimatorKind::NoiseFirst)) {
                c->setEnabled(false);
                c->setToolTip(e == EstimatorKind::Clamp
                                  ? tr("Count mechanisms output 0…n already: clamp = identity")
                                  : tr("NoiseFirst needs the same noise in every bin: not for "
                                       "count mechanisms"));
            }
            checks_[i].push_back(c);
            grid->addWidget(c, static_cast<int>(i) + 1, static_cast<int>(j) + 1, Qt::AlignHCenter);
            connect(c, &QCheckBox::toggled, this, [this] { Q_EMIT settingsEdited(); });
        }
    }

    return configBox;
}

QGroupBox* TradeoffTab::buildAlgorithmBox() {
    // One check box per workload algorithm of the registry, three to a row; those that do not
    // run on the table's dimension are hidden (updateAlgorithmRows).
    algoBox_ = new QGroupBox(tr("Workload algorithms (Hay et al. 2016)"));
    algoBox_->setObjectName(QStringLiteral("tradeoffAlgorithms"));
    algoBox_->setToolTip(
        tr("The DPBench algorithms (Hay, Machanavajjhala, Miklau, Chen & Zhang, SIGMOD 2016) on "
           "the histogram's cells, judged by the metric on the right. Pure ε-DP, no δ. Exact "
           "with SSE for the data-independent least-squares ones; Monte Carlo otherwise "
           "(%1 runs per point, refined to %2). † treats the data size N as public.")
            .arg(kAlgorithmQuickRuns)
            .arg(kAlgorithmRefineRuns));
    auto* grid = new QGridLayout(algoBox_);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(2);
    for (const Algorithm* a : allAlgorithms()) {
        const AlgorithmInfo& info = a->info();
        auto* c = new QCheckBox(QString::fromStdString(info.id) +
                                (info.totalIsPublic ? QStringLiteral(" †") : QString()));
        c->setObjectName(QStringLiteral("tradeoff_algo_") +
                         QString::fromStdString(info.id).toLower());
        QString tip =
            tr("%1 — %2 (%3). %4")
                .arg(QString::fromStdString(info.id), QString::fromStdString(info.name),
                     QString::fromStdString(info.citation),
                     info.dataDependent ? tr("Data-dependent: Monte Carlo runs with 95% intervals.")
                                        : tr("Data-independent, least squares: exact with SSE "
                                             "(2b²·trace((AᵀA)⁻¹)), Monte Carlo for the other "
                                             "metrics."));
        if (info.totalIsPublic) {
            tip += QLatin1Char(' ') +
                   tr("† Uses the true total N as public, as its reference code does: ε-DP only "
                      "if N is public.");
        }
        c->setToolTip(tip);
        algoChecks_.push_back(c);
        connect(c, &QCheckBox::toggled, this, [this] { Q_EMIT settingsEdited(); });
    }
    updateAlgorithmRows();
    return algoBox_;
}

std::size_t TradeoffTab::tableDimensions() const {
    return haveInputs_ && inputs_.cellShape.size() >= 2 ? inputs_.cellShape.size() : 1;
}

void TradeoffTab::updateAlgorithmRows() {
    auto* grid = static_cast<QGridLayout*>(algoBox_->layout());
    const std::size_t dims = tableDimensions();
    const auto& all = allAlgorithms();
    for (QCheckBox* c : algoChecks_) {
        grid->removeWidget(c);
    }
    int k = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& d = all[i]->info().dimensions;
        const bool runs = std::find(d.begin(), d.end(), dims) != d.end();
        algoChecks_[i]->setVisible(runs);
        if (runs) {
            grid->addWidget(algoChecks_[i], k / 3, k % 3);
            ++k;
        }
    }
}

QStringList TradeoffTab::offeredAlgorithms() const {
    QStringList ids;
    const auto& all = allAlgorithms();
    const std::size_t dims = tableDimensions();
    for (const Algorithm* a : all) {
        const auto& d = a->info().dimensions;
        if (std::find(d.begin(), d.end(), dims) != d.end()) {
            ids << QString::fromStdString(a->info().id);
        }
    }
    return ids;
}

QCheckBox* TradeoffTab::algorithmCheckBox(const QString& id) const {
    const auto& all = allAlgorithms();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (QString::fromStdString(all[i]->info().id).compare(id, Qt::CaseInsensitive) == 0) {
            return algoChecks_[i];
        }
    }
    return nullptr;
}

TradeoffConfig TradeoffTab::algorithmConfigFor(const QString& id) const {
    TradeoffConfig c;
    c.mechanism = TradeoffMechanism::Algorithm;
    if (const Algorithm* a = algorithmOfId(id)) {
        c.algorithm = a->info().id;
    }
    c.sensitivity = inputs_.sensitivity;
    c.metric.metric = metric();
    c.metric.scale = inputs_.state.view.scale;
    if (inputs_.cellShape.size() >= 2) {
        c.cellShape = inputs_.cellShape;
    }
    return c;
}

QString TradeoffTab::curveDisplayName(std::size_t curve) const {
    const QString id = curveIds_[static_cast<qsizetype>(curve)];
    if (const Algorithm* a = algorithmOfId(id)) {
        return QString::fromStdString(a->info().id) +
               (a->info().totalIsPublic ? QStringLiteral(" †") : QString());
    }
    return id;
}

QFormLayout* TradeoffTab::buildAxisControls() {
    metric_ = new QComboBox;
    metric_->setObjectName(QStringLiteral("tradeoffMetric"));
    for (Metric m : {Metric::SSE, Metric::L1, Metric::LInf, Metric::W1}) {
        metric_->addItem(metricTitle(m), static_cast<int>(m));
    }
    metric_->setCurrentIndex(1);
    scale_ = new QComboBox;
    scale_->setObjectName(QStringLiteral("tradeoffScale"));
    scale_->addItem(tr("counts"), static_cast<int>(Scale::Counts));
    scale_->addItem(tr("frequencies (÷ N)"), static_cast<int>(Scale::Frequencies));
    axis_ = new QComboBox;
    axis_->setObjectName(QStringLiteral("tradeoffAxis"));
    axis_->addItem(tr("ε"), static_cast<int>(Axis::Epsilon));
    axis_->addItem(tr("population N (at the current ε)"), static_cast<int>(Axis::Population));
    axis_->setToolTip(
        tr("Against N, the histogram keeps its shape and is scaled to N records "
           "(largest remainders), at the document's ε"));

    epsLo_ = makeSpin(kMinEpsilon, kMaxEpsilon, 0.01, 3, QStringLiteral("tradeoffEpsLo"));
    epsHi_ = makeSpin(kMinEpsilon, kMaxEpsilon, 10, 3, QStringLiteral("tradeoffEpsHi"));
    popLo_ = makeSpin(1, 1e12, 100, 0, QStringLiteral("tradeoffPopLo"));
    popHi_ = makeSpin(1, 1e12, 1e7, 0, QStringLiteral("tradeoffPopHi"));
    points_ = new QSpinBox;
    points_->setObjectName(QStringLiteral("tradeoffPoints"));
    points_->setRange(2, 200);
    points_->setValue(25);
    points_->setKeyboardTracking(false);
    points_->setToolTip(tr("Points per curve, log-spaced"));

    auto* form = new QFormLayout;
    form->addRow(tr("&Metric:"), metric_);
    form->addRow(tr("&Scale:"), scale_);
    form->addRow(tr("&Against:"), axis_);
    auto* epsRow = new QHBoxLayout;
    epsRow->addWidget(epsLo_);
    epsRow->addWidget(new QLabel(tr("to")));
    epsRow->addWidget(epsHi_);
    epsRangeLabel_ = new QLabel(tr("ε from:"));
    form->addRow(epsRangeLabel_, epsRow);
    auto* popRow = new QHBoxLayout;
    popRow->addWidget(popLo_);
    popRow->addWidget(new QLabel(tr("to")));
    popRow->addWidget(popHi_);
    popRangeLabel_ = new QLabel(tr("N from:"));
    form->addRow(popRangeLabel_, popRow);
    form->addRow(tr("&Points:"), points_);

    for (QComboBox* c : {metric_, axis_}) {
        connect(c, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsEdited(); });
    }
    connect(scale_, &QComboBox::currentIndexChanged, this, [this] {
        const auto sc = static_cast<Scale>(scale_->currentData().toInt());
        if (haveInputs_ && sc != inputs_.state.view.scale) {
            Q_EMIT scaleToggled(sc);  // the document's scale; setInputs follows
        }
    });
    for (QDoubleSpinBox* s : {epsLo_, epsHi_, popLo_, popHi_}) {
        connect(s, &QDoubleSpinBox::valueChanged, this, [this] { Q_EMIT settingsEdited(); });
    }
    connect(points_, &QSpinBox::valueChanged, this, [this] { Q_EMIT settingsEdited(); });

    return form;
}

QGroupBox* TradeoffTab::buildTargetControls() {
    targetConfig_ = new QComboBox;
    targetConfig_->setObjectName(QStringLiteral("tradeoffTargetConfig"));
    targetKind_ = new QComboBox;
    targetKind_->setObjectName(QStringLiteral("tradeoffTargetKind"));
    targetKind_->addItem(tr("expected error ≤ value"), static_cast<int>(TargetKind::ErrorValue));
    targetKind_->addItem(tr("expected error ≤ % of N"),
                         static_cast<int>(TargetKind::ErrorPercentOfN));
    targetKind_->addItem(tr("each bin within ±k w.p. ≥ q"), static_cast<int>(TargetKind::PerBin));
    targetValue_ = makeSpin(1e-9, 1e15, 5, 6, QStringLiteral("tradeoffTargetValue"));
    targetUnit_ = new QLabel;
    targetK_ = makeSpin(0.001, 1e9, 10, 3, QStringLiteral("tradeoffTargetK"));
    targetQ_ = makeSpin(0.5, 0.999999, 0.95, 6, QStringLiteral("tradeoffTargetQ"));
    perBinLabel_ = new QLabel(tr("k, q:"));
    solve_ = new QPushButton(tr("Find smallest &ε"));
    solve_->setObjectName(QStringLiteral("tradeoffSolve"));
    solve_->setToolTip(tr("The smallest ε in [%1, %2] whose exact expected error (or per-bin "
                          "probability) meets the target, for the chosen configuration")
                           .arg(num(kMinEpsilon), num(kMaxEpsilon)));
    useSolution_ = new QPushButton;
    useSolution_->setObjectName(QStringLiteral("tradeoffUseSolution"));
    solution_ = new QLabel;
    solution_->setObjectName(QStringLiteral("tradeoffSolution"));
    solution_->setWordWrap(true);
    solution_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* targetBox = new QGroupBox(tr("Accuracy first"));
    auto* tform = new QFormLayout(targetBox);
    // Rows through FormRows: "Use this ε" comes and goes (see form_rows.h).
    targetRows_ = std::make_unique<FormRows>(tform);
    targetRows_->addRow(tr("&For:"), targetConfig_);
    targetRows_->addRow(tr("&Target:"), targetKind_);
    auto* valueRow = new QHBoxLayout;
    valueRow->addWidget(targetValue_, 1);
    valueRow->addWidget(targetUnit_);
    targetRows_->addRow(tr("Value:"), valueRow);
    auto* kqRow = new QHBoxLayout;
    kqRow->addWidget(targetK_);
    kqRow->addWidget(targetQ_);
    targetRows_->addRow(perBinLabel_, kqRow);
    targetRows_->addRow(solve_);
    targetRows_->addRow(solution_);
    targetRows_->addRow(useSolution_);
    targetRows_->setRowShown(useSolution_, false);
    connect(targetKind_, &QComboBox::currentIndexChanged, this, [this] { updateTargetControls(); });
    connect(targetConfig_, &QComboBox::currentIndexChanged, this,
            [this] { updateTargetControls(); });
    connect(solve_, &QPushButton::clicked, this, &TradeoffTab::solveTarget);
    connect(useSolution_, &QPushButton::clicked, this, [this] {
        if (solved_ && solvedConfig_ &&
            solvedConfig_->mechanism != TradeoffMechanism::SparseThreshold &&
            solvedConfig_->mechanism != TradeoffMechanism::Algorithm) {
            Q_EMIT configurationChosen(mechanismChoiceOf(*solvedConfig_),
                                       static_cast<int>(solvedConfig_->local.bits),
                                       solvedConfig_->estimator, *solved_);
        }
    });

    return targetBox;
}

QHBoxLayout* TradeoffTab::buildExportButtons() {
    exportCsv_ = new QPushButton(tr("Export curves (CSV)…"));
    exportCsv_->setObjectName(QStringLiteral("tradeoffExportCsv"));
    exportPlot_ = new QPushButton(tr("Export plot…"));
    exportPlot_->setToolTip(tr("PNG, SVG or PDF"));
    connect(exportCsv_, &QPushButton::clicked, this, &TradeoffTab::exportCsv);
    connect(exportPlot_, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    auto* exportRow = new QHBoxLayout;
    exportRow->addWidget(exportCsv_);
    exportRow->addWidget(exportPlot_);

    return exportRow;
}

void TradeoffTab::buildControls() {
    // The side panel: the configurations drawn, the metric, scale, axis and ranges, the
    // accuracy-first solver and the exports; the plot with the frontier and status on the left.
    QGroupBox* configBox = buildConfigurationGrid();
    QGroupBox* algoBox = buildAlgorithmBox();
    QFormLayout* form = buildAxisControls();
    QGroupBox* targetBox = buildTargetControls();
    QHBoxLayout* exportRow = buildExportButtons();
    auto* side = new QVBoxLayout;
    side->addWidget(configBox);
    side->addWidget(algoBox);
    side->addLayout(form);
    planOn_ = new PlanOnBox;
    connect(planOn_, &PlanOnBox::edited, this, [this] { Q_EMIT settingsEdited(); });
    side->addWidget(planOn_);
    side->addWidget(targetBox);
    side->addLayout(exportRow);
    side->addStretch(1);
    auto* sideWidget = new QWidget;
    sideWidget->setLayout(side);
    // With the workload algorithms the panel is taller than a small window: it scrolls
    // vertically rather than squeezing the configuration grid.
    auto* sideScroll = new QScrollArea;
    sideScroll->setObjectName(QStringLiteral("tradeoffSidePanel"));
    sideScroll->setWidget(sideWidget);
    sideScroll->setWidgetResizable(true);
    sideScroll->setFrameShape(QFrame::NoFrame);
    sideScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    sideScroll->setMaximumWidth(400);
    sideScroll->setMinimumWidth(sideWidget->sizeHint().width() + 20);

    auto* left = new QVBoxLayout;
    left->addWidget(basis_);
    left->addWidget(plot_, 1);
    left->addWidget(frontierText_);
    left->addWidget(status_);
    algoNote_ = new QLabel;
    algoNote_->setObjectName(QStringLiteral("tradeoffAlgorithmNote"));
    algoNote_->setWordWrap(true);
    algoNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    algoNote_->setVisible(false);
    left->addWidget(algoNote_);

    auto* layout = new QHBoxLayout(this);
    layout->addLayout(left, 1);
    layout->addWidget(sideScroll);
    // Beside a CSV file's data panel at 1024 × 768 the plot and the configuration grid did not
    // fit side by side (the tab scrolled sideways, "NoiseFirst" cut): the grid goes under the plot.
    sideBySideOrStacked(this, layout);
    rebuildTargetConfigs();
}

QStringList TradeoffTab::selectedConfigs() const {
    QStringList ids;
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            if (checks_[i][j]->isEnabled() && checks_[i][j]->isChecked()) {
                ids << configId(kMechanisms[i], kEstimators[j]);
            }
        }
    }
    // Checked algorithms, also those hidden for this table's dimension (the selection is the
    // document's; only the applicable ones are drawn).
    const auto& all = allAlgorithms();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (algoChecks_[i]->isChecked()) {
            ids << algorithmId(*all[i]);
        }
    }
    return ids;
}

void TradeoffTab::setSelectedConfigs(const QStringList& ids) {
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            const QSignalBlocker b(checks_[i][j]);
            checks_[i][j]->setChecked(checks_[i][j]->isEnabled() &&
                                      ids.contains(configId(kMechanisms[i], kEstimators[j])));
        }
    }
    const auto& all = allAlgorithms();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const QSignalBlocker b(algoChecks_[i]);
        algoChecks_[i]->setChecked(ids.contains(algorithmId(*all[i])));
    }
    Q_EMIT settingsEdited();
}

QCheckBox* TradeoffTab::configCheckBox(TradeoffMechanism m, EstimatorKind e) const {
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            if (kMechanisms[i].mechanism == m && m != TradeoffMechanism::Local &&
                kEstimators[j] == e) {
                return checks_[i][j];
            }
        }
    }
    return nullptr;
}

void TradeoffTab::setMetric(Metric m) {
    const QSignalBlocker b(metric_);
    metric_->setCurrentIndex(metric_->findData(static_cast<int>(m)));
    Q_EMIT settingsEdited();
}

Metric TradeoffTab::metric() const {
    return static_cast<Metric>(metric_->currentData().toInt());
}

void TradeoffTab::setAxis(Axis a) {
    const QSignalBlocker b(axis_);
    axis_->setCurrentIndex(axis_->findData(static_cast<int>(a)));
    Q_EMIT settingsEdited();
}

TradeoffTab::Axis TradeoffTab::axis() const {
    return static_cast<Axis>(axis_->currentData().toInt());
}

void TradeoffTab::setEpsilonRange(double lo, double hi, int points) {
    const QSignalBlocker b1(epsLo_), b2(epsHi_), b3(points_);
    epsLo_->setValue(lo);
    epsHi_->setValue(hi);
    points_->setValue(points);
    Q_EMIT settingsEdited();
}

void TradeoffTab::setPopulationRange(double lo, double hi, int points) {
    const QSignalBlocker b1(popLo_), b2(popHi_), b3(points_);
    popLo_->setValue(lo);
    popHi_->setValue(hi);
    points_->setValue(points);
    Q_EMIT settingsEdited();
}

void TradeoffTab::writeSettings(ExplorerState& s) const {
    s.tradeoff.configs = selectedConfigs();
    s.tradeoff.metric = metric();
    s.tradeoff.againstPopulation = axis() == Axis::Population;
    s.tradeoff.epsLo = epsLo_->value();
    s.tradeoff.epsHi = epsHi_->value();
    s.tradeoff.popLo = popLo_->value();
    s.tradeoff.popHi = popHi_->value();
    s.tradeoff.points = points_->value();
    s.tradeoff.planOn = planOn_->planOnText();
    s.tradeoff.planPopulation = planOn_->population();
}

bool TradeoffTab::readSettings(const ExplorerState& s) {
    ExplorerState now = s;
    writeSettings(now);
    if (changesBetween(now, s) == 0) {
        return false;
    }
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            const QSignalBlocker b(checks_[i][j]);
            checks_[i][j]->setChecked(
                checks_[i][j]->isEnabled() &&
                s.tradeoff.configs.contains(configId(kMechanisms[i], kEstimators[j])));
        }
    }
    const auto& all = allAlgorithms();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const QSignalBlocker b(algoChecks_[i]);
        algoChecks_[i]->setChecked(s.tradeoff.configs.contains(algorithmId(*all[i])));
    }
    const QSignalBlocker b1(metric_), b2(axis_), b3(epsLo_), b4(epsHi_), b5(popLo_), b6(popHi_),
        b7(points_);
    metric_->setCurrentIndex(metric_->findData(static_cast<int>(s.tradeoff.metric)));
    axis_->setCurrentIndex(axis_->findData(
        static_cast<int>(s.tradeoff.againstPopulation ? Axis::Population : Axis::Epsilon)));
    epsLo_->setValue(s.tradeoff.epsLo);
    epsHi_->setValue(s.tradeoff.epsHi);
    popLo_->setValue(s.tradeoff.popLo);
    popHi_->setValue(s.tradeoff.popHi);
    points_->setValue(s.tradeoff.points);
    planOn_->setPlan(s.tradeoff.planOn, s.tradeoff.planPopulation);
    rebuildTargetConfigs();
    return true;
}

bool TradeoffTab::computing() const {
    return std::any_of(curveRunning_.begin(), curveRunning_.end(), [](bool b) { return b; });
}

bool TradeoffTab::firstPassDone() const {
    if (stale_) {
        return false;
    }
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        if (curveRunning_[i] && curves_[i].points.empty()) {
            return false;
        }
    }
    return true;
}

// Only what changes the curves: the data, the sensitivity, δ, calibration, n, the LP settings, the
// error scale, the tab's own settings; and ε when the curves are drawn against N. The current
// mechanism and estimator are only highlighted.
bool TradeoffTab::curvesKeyChanged(const TradeoffInputs& next) const {
    if (!haveInputs_) {
        return true;
    }
    const ExplorerState& a = inputs_.state;
    const ExplorerState& b = next.state;
    const bool sameTruth = inputs_.truth.has_value() == next.truth.has_value() &&
                           (!next.truth || (inputs_.truth->counts() == next.truth->counts() &&
                                            inputs_.truth->labels() == next.truth->labels() &&
                                            inputs_.truth->edges() == next.truth->edges()));
    return !sameTruth || inputs_.message != next.message || inputs_.cellShape != next.cellShape ||
           inputs_.sensitivity.l1 != next.sensitivity.l1 ||
           inputs_.sensitivity.l2 != next.sensitivity.l2 ||
           inputs_.sensitivity.integral != next.sensitivity.integral ||
           a.mechanism.delta != b.mechanism.delta ||
           a.mechanism.calibration != b.mechanism.calibration ||
           a.mechanism.countN != b.mechanism.countN ||
           a.mechanism.lp.objective != b.mechanism.lp.objective ||
           a.mechanism.lp.constraints != b.mechanism.lp.constraints ||
           a.mechanism.lp.binomialP != b.mechanism.lp.binomialP ||
           a.mechanism.lp.minDiagonal != b.mechanism.lp.minDiagonal ||
           a.view.scale != b.view.scale || (changesBetween(a, b) & TradeoffChanged) != 0 ||
           (axis() == Axis::Population && a.mechanism.epsilon != b.mechanism.epsilon);
}

void TradeoffTab::setInputs(const TradeoffInputs& inputs) {
    const bool settingsChanged = readSettings(inputs.state);
    const bool changed = curvesKeyChanged(inputs) || settingsChanged;
    const bool configChanged =
        !haveInputs_ || inputs_.state.mechanism.kind != inputs.state.mechanism.kind ||
        inputs_.state.mechanism.estimator != inputs.state.mechanism.estimator;
    const bool highlightChanged =
        configChanged || inputs_.state.mechanism.epsilon != inputs.state.mechanism.epsilon;
    const bool dimsChanged = !haveInputs_ || inputs_.cellShape.size() != inputs.cellShape.size();
    inputs_ = inputs;
    haveInputs_ = true;
    if (dimsChanged) {
        updateAlgorithmRows();
    }
    {
        const QSignalBlocker b(scale_);
        scale_->setCurrentIndex(scale_->findData(static_cast<int>(inputs.state.view.scale)));
    }
    if (changed) {
        planned_ = plannedHistogram(inputs_.state.tradeoff, inputs_.truth);
        updateBasis();
        markStale();
        // A smallest-ε search still running was asked for the previous inputs: its answer
        // would describe curves no longer shown.
        runner_->cancel(QStringLiteral("tradeoff-solve"));
        rebuildTargetConfigs();
        solved_.reset();
        solvedTarget_.reset();
        solution_->clear();
        targetRows_->setRowShown(useSolution_, false);
        updateTitle();
        updateTargetControls();
        startIfNeeded();
    } else if (highlightChanged) {
        updateTitle();
        drawMarkers();
        replotWhenVisible(plot_);
    }
    // The accuracy-first target follows the document's configuration when that changes.
    if (configChanged) {
        if (auto id = configIdOf(inputs.state)) {
            const int idx = targetConfig_->findData(*id);
            if (idx >= 0) {
                targetConfig_->setCurrentIndex(idx);
            }
        }
    }
}

void TradeoffTab::markStale() {
    stale_ = true;
}

void TradeoffTab::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    startIfNeeded();
}

TradeoffConfig TradeoffTab::configFor(TradeoffMechanism m, EstimatorKind e,
                                      const ldp::ProtocolSpec& local) const {
    TradeoffConfig c;
    c.mechanism = m;
    if (m == TradeoffMechanism::Local) {
        c.local = local;
    }
    c.estimator = e;
    c.delta = inputs_.state.mechanism.delta;
    c.calibration = inputs_.state.mechanism.calibration;
    c.sensitivity = inputs_.sensitivity;
    c.countPeople = inputs_.state.mechanism.countN;
    c.metric.metric = metric();
    c.metric.scale = inputs_.state.view.scale;
    if (m == TradeoffMechanism::CountOptimal) {
        // n and ε are set per point by the sweep; the objective and constraints are the document's.
        if (auto spec = lpSpecOf(inputs_.state, std::max(1, inputs_.state.mechanism.countN))) {
            c.lp = *spec;
        }
    }
    return c;
}

Status TradeoffTab::gridFromControls(std::vector<double>& grid) const {
    const auto count = static_cast<std::size_t>(points_->value());
    if (axis() == Axis::Epsilon) {
        if (!(epsLo_->value() < epsHi_->value())) {
            return Error{"the ε range needs from < to"};
        }
        auto g = logSpacedEpsilons(epsLo_->value(), epsHi_->value(), count);
        if (!g) {
            return g.error();
        }
        grid = *g;
        return okStatus();
    }
    if (!(popLo_->value() < popHi_->value())) {
        return Error{"the population range needs from < to"};
    }
    auto g = logSpaced(popLo_->value(), popHi_->value(), count);
    if (!g) {
        return g.error();
    }
    grid.clear();
    for (double n : *g) {
        const double r = std::round(n);
        if (grid.empty() || r > grid.back()) {
            grid.push_back(r);  // whole people; duplicates after rounding dropped
        }
    }
    return okStatus();
}

void TradeoffTab::startIfNeeded() {
    if (!stale_ || !isVisible() || !haveInputs_ || checks_.empty()) {
        return;
    }
    stale_ = false;
    ++generation_;
    // Stop what the previous generation still runs.
    for (const QString& id : curveIds_) {
        runner_->cancel(QStringLiteral("tradeoff:") + id);
    }
    configs_.clear();
    curveIds_.clear();
    curves_.clear();
    curveErrors_.clear();
    curveTrials_.clear();
    curveRunning_.clear();
    curveCancelled_.clear();
    curveHasMc_.clear();
    frontier_ = {};
    grid_.clear();
    gridAxis_ = axis();
    QString problem;
    if (!inputs_.truth) {
        problem = inputs_.message.isEmpty() ? tr("No data loaded yet.") : inputs_.message;
    } else if (!planned_.histogram) {
        problem = planned_.error;  // a public proxy that cannot be built, and why
    } else if (const Status st = gridFromControls(grid_); !st) {
        problem = QString::fromStdString(st.error().message);
    } else if (gridAxis_ == Axis::Population && planned_.histogram->total() <= 0) {
        problem = tr("The histogram is empty: there is no shape to scale to a population.");
    }
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            if (checks_[i][j]->isEnabled() && checks_[i][j]->isChecked()) {
                configs_.push_back(configFor(kMechanisms[i].mechanism, kEstimators[j],
                                             protocolOf(kMechanisms[i])));
                curveIds_ << configId(kMechanisms[i], kEstimators[j]);
            }
        }
    }
    const auto& all = allAlgorithms();
    const std::size_t dims = tableDimensions();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& d = all[i]->info().dimensions;
        if (algoChecks_[i]->isChecked() && std::find(d.begin(), d.end(), dims) != d.end()) {
            const QString id = algorithmId(*all[i]);
            configs_.push_back(algorithmConfigFor(id));
            curveIds_ << id;
        }
    }
    algoNote_->clear();
    algoNote_->setVisible(false);
    const std::size_t n = configs_.size();
    curves_.resize(n);
    curveErrors_.assign(n, QString());
    curveTrials_.assign(n, 0);
    curveRunning_.assign(n, false);
    curveCancelled_.assign(n, false);
    curveHasMc_.assign(n, false);
    for (std::size_t i = 0; i < n; ++i) {
        curves_[i].label = curveIds_[static_cast<qsizetype>(i)].toStdString();
    }
    if (!problem.isEmpty()) {
        status_->setText(problem);
        draw();
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        startCurve(i, kQuickTrials);
    }
    updateStatus();
    draw();
}

void TradeoffTab::startCurve(std::size_t index, std::uint64_t trials) {
    TradeoffConfig config = configs_[index];
    const Histogram truth = *planned_.histogram;  // the confidential data or the public proxy
    const std::vector<double> grid = grid_;
    const Axis axis = gridAxis_;
    const double epsilon = inputs_.state.mechanism.epsilon;
    const std::uint64_t generation = generation_;
    const QString id = curveIds_[static_cast<qsizetype>(index)];
    curveRunning_[index] = true;
    runner_->run<CurveResult>(
        QStringLiteral("tradeoff:") + id,
        [config, truth, grid, axis, epsilon, trials](std::stop_token stop, JobProgress& progress) {
            CurveResult r;
            r.trials = trials;
            if (config.mechanism == TradeoffMechanism::CountOptimal) {
                std::int64_t largest = 1;
                for (std::int64_t c : truth.counts()) {
                    largest = std::max(largest, c);
                }
                const std::int64_t n = config.countPeople > 0 ? config.countPeople : largest;
                if (axis == Axis::Population || n > kMaxLpPeople) {
                    r.error = axis == Axis::Population
                                  ? QObject::tr(
                                        "one LP per population size and point: not drawn "
                                        "against N")
                                  : QObject::tr(
                                        "n = %1 people: one LP per point is too slow "
                                        "above n = %2 (set a smaller group size n)")
                                        .arg(n)
                                        .arg(kMaxLpPeople);
                    return r;
                }
            }
            CurveOptions options;
            options.trials = trials;
            options.algorithmTrials =
                trials >= kRefineTrials ? kAlgorithmRefineRuns : kAlgorithmQuickRuns;
            options.seed = 1;
            options.stop = stop;
            options.progress = [&progress](double f) { progress.set(f); };
            if (axis == Axis::Epsilon) {
                auto c = errorCurve(truth, config, grid, options);
                if (!c) {
                    r.error = QString::fromStdString(c.error().message);
                    return r;
                }
                r.curve = std::move(*c);
            } else {
                std::vector<std::int64_t> pops;
                pops.reserve(grid.size());
                for (double x : grid) {
                    pops.push_back(static_cast<std::int64_t>(x));
                }
                auto pts = errorVsPopulation(truth, config, epsilon, pops, options);
                if (!pts) {
                    r.error = QString::fromStdString(pts.error().message);
                    return r;
                }
                // Drawn and compared like an ε curve, with N in the x slot (the frontier code only
                // needs an increasing positive x).
                r.curve.label = config.name();
                for (const PopulationPoint& p : *pts) {
                    CurvePoint cp = p.point;
                    cp.epsilon = static_cast<double>(p.population);
                    r.curve.points.push_back(cp);
                }
                r.curve.cancelled = stop.stop_requested();
            }
            for (const CurvePoint& p : r.curve.points) {
                if (p.valid() && !p.exact) {
                    r.hasMonteCarlo = true;
                }
            }
            return r;
        },
        [self = QPointer<TradeoffTab>(this), index, generation](CurveResult r) {
            if (self) {
                self->deliver(index, generation, r);
            }
        },
        tr("Trade-off curves"), JobRunner::Lane::Background);
}

void TradeoffTab::deliver(std::size_t index, std::uint64_t generation, const CurveResult& r) {
    if (generation != generation_ || index >= curves_.size()) {
        return;
    }
    curveRunning_[index] = false;
    curveErrors_[index] = r.error;
    if (r.error.isEmpty()) {
        curves_[index] = r.curve;
        curves_[index].label = curveIds_[static_cast<qsizetype>(index)].toStdString();
        curveHasMc_[index] = r.hasMonteCarlo;
        curveTrials_[index] = r.hasMonteCarlo ? r.trials : 0;
        if (r.hasMonteCarlo && r.trials < kRefineTrials && !r.curve.cancelled) {
            startCurve(index, kRefineTrials);  // the quick curve stays drawn meanwhile
        }
    }
    recomputeFrontier();
    updateStatus();
    draw();
    Q_EMIT curvesUpdated();
}

void TradeoffTab::jobCancelled(const QString& slot) {
    const QString prefix = QStringLiteral("tradeoff:");
    if (!slot.startsWith(prefix)) {
        return;
    }
    const qsizetype index = curveIds_.indexOf(slot.mid(prefix.size()));
    if (index < 0 || !curveRunning_[static_cast<std::size_t>(index)]) {
        return;
    }
    curveRunning_[static_cast<std::size_t>(index)] = false;
    curveCancelled_[static_cast<std::size_t>(index)] = true;
    updateStatus();
    draw();
    Q_EMIT curvesUpdated();
}

void TradeoffTab::recomputeFrontier() {
    std::vector<ErrorCurve> drawn;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        if (curveErrors_[i].isEmpty() &&
            std::any_of(curves_[i].points.begin(), curves_[i].points.end(),
                        [](const CurvePoint& p) { return p.valid(); })) {
            drawn.push_back(curves_[i]);
            index.push_back(i);
        }
    }
    // LP designs carry a ~1e-8 relative repair error: treat curves that close as tied.
    frontier_ = lowerEnvelope(drawn, 1e-7);
    for (FrontierPoint& p : frontier_.points) {
        p.curve = index[p.curve];
    }
    for (FrontierSegment& s : frontier_.segments) {
        s.curve = index[s.curve];
    }

    // Monte Carlo noise must not pick the winner (GM with identity and with resize would split
    // the frontier into a dozen segments that only reflect sampling noise).
    frontier_ = resolveStatisticalTies(curves_, frontier_);
}

// Curves whose value at some grid point of the segment lies within the combined 95% Monte Carlo
// half-widths of the winner's (an exact point has half-width 0): the frontier's choice there is
// not significant, which the frontier text says.
QStringList TradeoffTab::statisticalTies(const FrontierSegment& segment) const {
    QStringList out;
    const std::size_t w = segment.curve;
    if (w >= curves_.size()) {
        return out;
    }
    auto half = [](const CurvePoint& p) {
        return p.exact ? 0.0 : std::max(p.ciHigh - p.value, p.value - p.ciLow);
    };
    for (std::size_t j = 0; j < curves_.size(); ++j) {
        if (j == w || !curveErrors_[j].isEmpty()) {
            continue;
        }
        bool tie = false;
        for (const CurvePoint& pw : curves_[w].points) {
            if (tie || !pw.valid() || pw.epsilon < segment.epsilonFrom ||
                pw.epsilon > segment.epsilonTo) {
                continue;
            }
            for (const CurvePoint& pj : curves_[j].points) {
                if (pj.epsilon == pw.epsilon && pj.valid() && (!pw.exact || !pj.exact) &&
                    std::abs(pj.value - pw.value) <= half(pw) + half(pj)) {
                    tie = true;
                }
            }
        }
        if (tie) {
            out << curveDisplayName(j);
        }
    }
    return out;
}

QString TradeoffTab::valueUnit() const {
    const bool freq = inputs_.state.view.scale == Scale::Frequencies;
    switch (metric()) {
        case Metric::SSE:
            return freq ? tr("fraction²") : tr("records²");
        case Metric::L1:
        case Metric::LInf:
            return freq ? tr("fraction") : tr("records");
        case Metric::W1:
            return freq ? tr("bin units") : tr("records × bin units");
    }
    return {};
}

void TradeoffTab::updateTitle() {
    const QString m = metricTitle(metric());
    if (axis() == Axis::Epsilon) {
        title_->setText(tr("Expected %1 error against ε").arg(m));
        plot_->xAxis->setLabel(tr("privacy loss ε (log scale)"));
    } else {
        title_->setText(tr("Expected %1 error against population N at ε = %2")
                            .arg(m, num(inputs_.state.mechanism.epsilon)));
        plot_->xAxis->setLabel(tr("population N (records, log scale)"));
    }
    plot_->yAxis->setLabel(tr("expected %1 (%2, log scale)").arg(m, valueUnit()));
    const bool eps = axis() == Axis::Epsilon;
    epsLo_->setEnabled(eps);
    epsHi_->setEnabled(eps);
    epsRangeLabel_->setEnabled(eps);
    popLo_->setEnabled(!eps);
    popHi_->setEnabled(!eps);
    popRangeLabel_->setEnabled(!eps);
}

void TradeoffTab::updateStatus() {
    QStringList lines;
    std::size_t running = 0;
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        const QString& id = curveIds_[static_cast<qsizetype>(i)];
        if (!curveErrors_[i].isEmpty()) {
            lines << tr("%1: not drawn — %2").arg(id, curveErrors_[i]);
            continue;
        }
        if (curveRunning_[i]) {
            ++running;
        }
        std::size_t missing = 0;
        QString why;
        for (const CurvePoint& p : curves_[i].points) {
            if (!p.valid()) {
                ++missing;
                why = QString::fromStdString(p.method);
            }
        }
        if (missing > 0 && !curveRunning_[i]) {
            lines << tr("%1: %2 of %3 points missing (%4)")
                         .arg(id)
                         .arg(missing)
                         .arg(curves_[i].points.size())
                         .arg(why);
        }
    }
    QStringList mc;
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        if (curveHasMc_[i] && configs_[i].mechanism == TradeoffMechanism::Algorithm) {
            mc << tr("%1 (%2 runs)")
                      .arg(curveDisplayName(i))
                      .arg(curveTrials_[i] >= kRefineTrials ? kAlgorithmRefineRuns
                                                            : kAlgorithmQuickRuns);
        } else if (curveHasMc_[i]) {
            mc << tr("%1 (%2 trials)")
                      .arg(curveIds_[static_cast<qsizetype>(i)],
                           QString::fromStdString(groupThousands(curveTrials_[i])));
        }
    }
    // Curves the status bar's Cancel stopped: not computed at all, or kept at their quick pass.
    QStringList notComputed, notRefined;
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        if (curveCancelled_[i] && !curveRunning_[i]) {
            (curves_[i].points.empty() ? notComputed : notRefined)
                << curveIds_[static_cast<qsizetype>(i)];
        }
    }
    QString head;
    if (curves_.empty()) {
        head = tr("Tick at least one configuration on the right.");
    } else if (running > 0) {
        head = tr("Computing %1 of %2 curves in the background…").arg(running).arg(curves_.size());
    } else {
        head = tr("Solid lines without band: exact. Bands: Monte Carlo means with 95% intervals.");
    }
    if (!notComputed.isEmpty()) {
        head = tr("Cancelled: %1 of %2 curves not computed (%3); change a setting to compute "
                  "them.")
                   .arg(notComputed.size())
                   .arg(curves_.size())
                   .arg(notComputed.join(QStringLiteral(", "))) +
               (running > 0 ? QLatin1Char(' ') + head : QString());
    }
    if (!notRefined.isEmpty()) {
        head += QLatin1Char(' ') + tr("Refinement cancelled for %1: the quick pass is shown.")
                                       .arg(notRefined.join(QStringLiteral(", ")));
    }
    if (!mc.isEmpty()) {
        head +=
            QLatin1Char(' ') +
            tr("Monte Carlo: %1%2.")
                .arg(mc.join(QStringLiteral(", ")),
                     running > 0 ? tr(", refining to %1")
                                       .arg(QString::fromStdString(groupThousands(kRefineTrials)))
                                 : QString());
    }
    // Algorithms that use the true total as public: said next to their curves.
    QStringList publicTotal;
    for (std::size_t i = 0; i < configs_.size(); ++i) {
        const Algorithm* a = configs_[i].mechanism == TradeoffMechanism::Algorithm
                                 ? findAlgorithm(configs_[i].algorithm)
                                 : nullptr;
        if (a && a->info().totalIsPublic) {
            publicTotal << QString::fromStdString(a->info().id);
        }
    }
    if (!publicTotal.isEmpty()) {
        head += QLatin1Char(' ') +
                tr("† %1 use the true total N as public (as their reference code does): ε-DP "
                   "only if N is public.")
                    .arg(publicTotal.join(QStringLiteral(", ")));
    }
    lines.prepend(head + QLatin1Char(' ') +
                  tr("Click a point to use that configuration%1.")
                      .arg(gridAxis_ == Axis::Epsilon ? tr(" and ε") : QString()));
    status_->setText(lines.join(QLatin1Char('\n')));
}

void TradeoffTab::draw() {
    plot_->clearGraphs();
    plot_->clearItems();
    graphCurve_.clear();
    frontierGraph_ = nullptr;
    double xmin = std::numeric_limits<double>::infinity(), xmax = 0;
    double ymin = std::numeric_limits<double>::infinity(), ymax = 0;
    auto extend = [&](double x, double y) {
        if (positive(x) && positive(y)) {
            xmin = std::min(xmin, x);
            xmax = std::max(xmax, x);
            ymin = std::min(ymin, y);
            ymax = std::max(ymax, y);
        }
    };

    // The frontier first, underneath: a wide translucent band along the lowest curve.
    if (!frontier_.points.empty()) {
        QCPGraph* g = plot_->addGraph();
        QColor c(255, 193, 7);
        c.setAlpha(150);
        g->setPen(QPen(c, 9, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        g->setName(tr("frontier (lowest error)"));
        QVector<double> x, y;
        for (const FrontierPoint& p : frontier_.points) {
            if (positive(p.value)) {
                x << p.epsilon;
                y << p.value;
            }
        }
        g->setData(x, y, true);
        frontierGraph_ = g;
        graphCurve_.push_back({g, kNoCurve});
    }

    for (std::size_t i = 0; i < curves_.size(); ++i) {
        if (!curveErrors_[i].isEmpty()) {
            continue;
        }
        const TradeoffConfig& cfg = configs_[i];
        const bool isAlgorithm = cfg.mechanism == TradeoffMechanism::Algorithm;
        const QColor colour = isAlgorithm
                                  ? algorithmColour(curveIds_[static_cast<qsizetype>(i)].mid(5))
                                  : rowColour(rowOf(cfg));
        QVector<double> x, y, lo, hi;
        bool anyMc = false;
        for (const CurvePoint& p : curves_[i].points) {
            if (!p.valid() || !positive(p.epsilon) || !positive(p.value)) {
                continue;
            }
            x << p.epsilon;
            y << p.value;
            lo << std::max(p.ciLow, p.value * 1e-6);
            hi << std::max(p.ciHigh, p.value);
            anyMc = anyMc || !p.exact;
            extend(p.epsilon, p.value);
            extend(p.epsilon, hi.back());
        }
        if (x.isEmpty()) {
            continue;
        }
        if (anyMc) {
            QColor fill = colour;
            fill.setAlpha(55);
            QCPGraph* gl = plot_->addGraph();
            QCPGraph* gh = plot_->addGraph();
            gl->setData(x, lo, true);
            gh->setData(x, hi, true);
            gl->setPen(Qt::NoPen);
            gh->setPen(Qt::NoPen);
            gh->setBrush(fill);
            gh->setChannelFillGraph(gl);
            gl->removeFromLegend();
            gh->removeFromLegend();
            graphCurve_.push_back({gl, i});
            graphCurve_.push_back({gh, i});
        }
        QCPGraph* g = plot_->addGraph();
        // Algorithms: dash-dot-dot with crosses for data-dependent ones, solid with stars for
        // the data-independent ones (the estimators' patterns are the mechanisms').
        const Algorithm* algorithm = isAlgorithm ? findAlgorithm(cfg.algorithm) : nullptr;
        const bool dependent = algorithm && algorithm->info().dataDependent;
        QPen pen(colour, 2,
                 algorithm ? (dependent ? Qt::DashDotDotLine : Qt::SolidLine)
                           : estimatorDash(cfg.estimator));
        g->setPen(pen);
        g->setScatterStyle(QCPScatterStyle(
            algorithm ? (dependent ? QCPScatterStyle::ssCross : QCPScatterStyle::ssStar)
                      : estimatorShape(cfg.estimator),
            colour, colour, algorithm ? 7 : 5));
        g->setData(x, y, true);
        QString name = curveDisplayName(i);
        if (cfg.mechanism == TradeoffMechanism::Gaussian) {
            name += tr(" (δ = %1)").arg(num(cfg.delta));
        }
        if (anyMc) {
            name += tr(" · MC");
        }
        g->setName(name);
        graphCurve_.push_back({g, i});
    }

    if (positive(xmax)) {
        const double pad = std::pow(xmax / xmin, 0.03);
        plot_->xAxis->setRange(xmin / pad, xmax * pad);
        const double ypad = std::pow(std::max(ymax / ymin, 10.0), 0.05);
        plot_->yAxis->setRange(ymin / ypad, ymax * ypad);
    } else {
        plot_->xAxis->setRange(gridAxis_ == Axis::Epsilon ? 0.01 : 100,
                               gridAxis_ == Axis::Epsilon ? 10 : 1e7);
        plot_->yAxis->setRange(0.1, 1000);
    }
    plot_->legend->setVisible(plot_->graphCount() > 0);

    // Frontier text.
    if (frontier_.segments.empty()) {
        frontierText_->clear();
    } else {
        QStringList parts;
        const bool eps = gridAxis_ == Axis::Epsilon;
        for (const FrontierSegment& s : frontier_.segments) {
            auto x = [eps](double v) {
                return eps ? num(v)
                           : QString::fromStdString(
                                 groupThousands(static_cast<std::int64_t>(std::llround(v))));
            };
            QString part = tr("<b>%1</b> for %2 %3–%4")
                               .arg((s.curve < curves_.size() ? curveDisplayName(s.curve)
                                                              : QString::fromStdString(s.label))
                                        .toHtmlEscaped(),
                                    eps ? tr("ε") : tr("N"), x(s.epsilonFrom), x(s.epsilonTo));
            QStringList absent;
            for (std::size_t j = 0; j < curves_.size(); ++j) {
                if (j == s.curve || !curveErrors_[j].isEmpty()) {
                    continue;
                }
                for (const CurvePoint& p : curves_[j].points) {
                    if (!p.valid() && p.epsilon > s.epsilonFrom && p.epsilon <= s.epsilonTo) {
                        absent << curveIds_[static_cast<qsizetype>(j)];
                        break;
                    }
                }
            }
            if (!absent.isEmpty()) {
                part += tr(" (%1 missing here)").arg(absent.join(QStringLiteral(", ")));
            }
            const QStringList ties = statisticalTies(s);
            if (!ties.isEmpty()) {
                part += tr(" (≈ %1 within the Monte Carlo 95% intervals at some %2)")
                            .arg(ties.join(QStringLiteral(", ")), eps ? tr("ε") : tr("N"));
            }
            parts << part;
        }
        frontierText_->setText(tr("Frontier (lowest expected %1): %2.")
                                   .arg(metricTitle(metric()), parts.join(QStringLiteral("; "))));
    }
    drawMarkers();
    replotWhenVisible(plot_);
}

// The document's ε (a vertical line), its configuration's point, and a solved target.
void TradeoffTab::drawMarkers() {
    plot_->clearItems();
    if (!haveInputs_) {
        return;
    }
    QColor text = palette().color(QPalette::WindowText);
    const double eps = inputs_.state.mechanism.epsilon;
    if (gridAxis_ == Axis::Epsilon) {
        auto* line = new QCPItemStraightLine(plot_);
        QColor c = text;
        c.setAlpha(140);
        line->setPen(QPen(c, 1, Qt::DashLine));
        line->point1->setCoords(eps, 1);
        line->point2->setCoords(eps, 2);
        auto* label = new QCPItemText(plot_);
        // Right of the line, or left of it when the line is in the right fifth of the axis
        // (the label would be cut off at the plot's edge).
        const QCPRange xr = plot_->xAxis->range();
        const bool nearRight =
            positive(xr.lower) && std::log(eps / xr.lower) > 0.8 * std::log(xr.upper / xr.lower);
        label->setPositionAlignment((nearRight ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(eps, 0.01);
        label->setText(nearRight ? tr("current ε = %1 ").arg(num(eps))
                                 : tr(" current ε = %1").arg(num(eps)));
        label->setColor(c);
    }
    // The document's configuration at its ε (or its N, against population).
    const auto docId = configIdOf(inputs_.state);
    for (std::size_t i = 0; docId && i < curves_.size(); ++i) {
        if (configs_[i].mechanism == TradeoffMechanism::Algorithm ||
            configId(rowOf(configs_[i]), configs_[i].estimator) != *docId ||
            !curveErrors_[i].isEmpty()) {
            continue;
        }
        const double x =
            gridAxis_ == Axis::Epsilon
                ? eps
                : (planned_.histogram ? static_cast<double>(planned_.histogram->total()) : 0);
        const double y = curveValueAt(curves_[i], x);
        if (positive(x) && positive(y)) {
            auto* dot = new QCPItemTracer(plot_);
            dot->position->setCoords(x, y);
            dot->setStyle(QCPItemTracer::tsCircle);
            dot->setSize(14);
            dot->setPen(QPen(text, 2));
            dot->setBrush(Qt::NoBrush);
        }
    }
    if (solvedTarget_ && gridAxis_ == Axis::Epsilon && positive(*solvedTarget_)) {
        auto* line = new QCPItemStraightLine(plot_);
        line->setPen(QPen(QColor(0, 150, 136), 1.5, Qt::DotLine));
        line->point1->setCoords(1, *solvedTarget_);
        line->point2->setCoords(2, *solvedTarget_);
        auto* label = new QCPItemText(plot_);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setTypeY(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(0.99, *solvedTarget_);
        label->setText(tr("target %1").arg(num(*solvedTarget_)));
        label->setColor(QColor(0, 150, 136));
        if (solved_) {
            auto* dot = new QCPItemTracer(plot_);
            dot->position->setCoords(*solved_, *solvedTarget_);
            dot->setStyle(QCPItemTracer::tsCrosshair);
            dot->setSize(12);
            dot->setPen(QPen(QColor(0, 150, 136), 1.5));
        }
    }
}

QPoint TradeoffTab::pointPosition(std::size_t curve, std::size_t index) const {
    if (curve >= curves_.size() || index >= curves_[curve].points.size()) {
        return {};
    }
    const CurvePoint& p = curves_[curve].points[index];
    return QPoint(static_cast<int>(std::lround(plot_->xAxis->coordToPixel(p.epsilon))),
                  static_cast<int>(std::lround(plot_->yAxis->coordToPixel(p.value))));
}

void TradeoffTab::onPlottableClick(QCPAbstractPlottable* p, int dataIndex, QMouseEvent*) {
    auto* g = qobject_cast<QCPGraph*>(p);
    if (!g || dataIndex < 0 || dataIndex >= g->dataCount()) {
        return;
    }
    const double x = g->data()->at(dataIndex)->key;
    std::size_t curve = kNoCurve;
    for (const auto& [graph, index] : graphCurve_) {
        if (graph == p) {
            curve = index;
        }
    }
    if (p == frontierGraph_) {
        for (const FrontierPoint& fp : frontier_.points) {
            if (fp.epsilon == x) {
                curve = fp.curve;
            }
        }
    }
    if (curve < configs_.size() && configs_[curve].mechanism == TradeoffMechanism::Algorithm) {
        explainAlgorithmPoint(curve, x);  // the document has no algorithm mechanism
        return;
    }
    if (curve == kNoCurve || curve >= configs_.size() ||
        configs_[curve].mechanism == TradeoffMechanism::SparseThreshold) {
        return;  // the sparse release has its page under More mechanisms, not a window mechanism
    }
    const double epsilon = gridAxis_ == Axis::Epsilon ? x : inputs_.state.mechanism.epsilon;
    Q_EMIT configurationChosen(mechanismChoiceOf(configs_[curve]),
                               static_cast<int>(configs_[curve].local.bits),
                               configs_[curve].estimator, epsilon);
}

// A click on an algorithm's point: the window's release has no algorithm mechanism, so the
// document stays as it is; the note says so and gives the dpx workload call that reproduces the
// algorithm's run at that ε (and the Workbench tab that compares it on range workloads).
void TradeoffTab::explainAlgorithmPoint(std::size_t curve, double x) {
    const Algorithm* a = findAlgorithm(configs_[curve].algorithm);
    if (!a || !planned_.histogram) {
        return;
    }
    const double epsilon = gridAxis_ == Axis::Epsilon ? x : inputs_.state.mechanism.epsilon;
    QString dataArgs;
    if (inputs_.cellShape.size() >= 2) {
        dataArgs = tr("--counts-file TABLE.csv --counts-layout matrix");
    } else if (planned_.histogram->size() <= 40) {
        QStringList counts;
        for (std::int64_t c : planned_.histogram->counts()) {
            counts << QString::number(c);
        }
        dataArgs = QStringLiteral("--counts ") + counts.join(QLatin1Char(','));
    } else {
        dataArgs = tr("--data FILE --column C --bins SPEC");
    }
    const QString id = QString::fromStdString(a->info().id);
    QString text =
        tr("<b>%1</b> at %2 = %3: the window's release has no algorithm mechanism, so the "
           "document is unchanged. To run it: <code>dpx workload %4 --algorithm %1 --epsilon %5 "
           "--workload identity</code>, or compare it on range workloads in the Workbench tab.")
            .arg(id, gridAxis_ == Axis::Epsilon ? tr("ε") : tr("N"), num(x),
                 dataArgs.toHtmlEscaped(), num(epsilon));
    if (a->info().totalIsPublic) {
        text += QLatin1Char(' ') + tr("† %1 uses the true total N as public.").arg(id);
    }
    algoNote_->setText(text);
    algoNote_->setVisible(true);
}

void TradeoffTab::onMouseMove(QMouseEvent* event) {
    const QPointF pos = event->position();
    double best = 8;  // pixels
    std::size_t bestCurve = kNoCurve;
    int bestIndex = -1;
    for (const auto& [graph, curve] : graphCurve_) {
        if (curve == kNoCurve) {
            continue;
        }
        auto* g = qobject_cast<const QCPGraph*>(graph);
        if (!g || g->pen().style() == Qt::NoPen) {
            continue;
        }
        for (int k = 0; k < g->dataCount(); ++k) {
            const auto it = g->data()->at(k);
            const QPointF px(plot_->xAxis->coordToPixel(it->key),
                             plot_->yAxis->coordToPixel(it->value));
            const double d = std::hypot(px.x() - pos.x(), px.y() - pos.y());
            if (d < best) {
                best = d;
                bestCurve = curve;
                bestIndex = k;
            }
        }
    }
    if (bestCurve == kNoCurve) {
        QToolTip::hideText();
        return;
    }
    const QCPGraph* g = nullptr;
    for (const auto& [graph, curve] : graphCurve_) {
        auto* gg = qobject_cast<const QCPGraph*>(graph);
        if (curve == bestCurve && gg && gg->pen().style() != Qt::NoPen) {
            g = gg;
        }
    }
    if (!g) {
        return;
    }
    const double x = g->data()->at(bestIndex)->key;
    const CurvePoint* point = nullptr;
    for (const CurvePoint& p : curves_[bestCurve].points) {
        if (p.epsilon == x) {
            point = &p;
        }
    }
    if (!point) {
        return;
    }
    QString text =
        QStringLiteral("<b>%1</b><br>%2 = %3<br>expected %4 = %5 %6")
            .arg(curveDisplayName(bestCurve), gridAxis_ == Axis::Epsilon ? tr("ε") : tr("N"),
                 num(x), metricTitle(metric()), num(point->value), valueUnit());
    if (!point->exact) {
        text += (configs_[bestCurve].mechanism == TradeoffMechanism::Algorithm
                     ? tr("<br>95%: [%1, %2], %3 runs")
                     : tr("<br>95%: [%1, %2], %3 trials"))
                    .arg(num(point->ciLow), num(point->ciHigh),
                         QString::fromStdString(groupThousands(point->trials)));
    } else {
        text += tr("<br>exact");
    }
    if (configs_[bestCurve].mechanism == TradeoffMechanism::SparseThreshold) {
        text += tr("<br><i>the sparse release: see More mechanisms ▸ Sparse histograms</i>");
    } else if (configs_[bestCurve].mechanism == TradeoffMechanism::Algorithm) {
        text +=
            tr("<br><i>click for how to reproduce it (the window has no algorithm "
               "mechanism)</i>");
    } else {
        text += tr("<br><i>click to use this configuration%1</i>")
                    .arg(gridAxis_ == Axis::Epsilon ? tr(" at this ε") : QString());
    }
    QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

void TradeoffTab::rebuildTargetConfigs() {
    const QString previous = targetConfig_->currentData().toString();
    const QSignalBlocker b(targetConfig_);
    targetConfig_->clear();
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            if (checks_[i][j]->isEnabled() && checks_[i][j]->isChecked()) {
                const QString id = configId(kMechanisms[i], kEstimators[j]);
                targetConfig_->addItem(id, id);
            }
        }
    }
    const auto& all = allAlgorithms();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& d = all[i]->info().dimensions;
        if (algoChecks_[i]->isChecked() &&
            std::find(d.begin(), d.end(), tableDimensions()) != d.end()) {
            targetConfig_->addItem(QString::fromStdString(all[i]->info().id), algorithmId(*all[i]));
        }
    }
    int idx = targetConfig_->findData(previous);
    if (idx < 0 && haveInputs_) {
        if (auto id = configIdOf(inputs_.state)) {
            idx = targetConfig_->findData(*id);
        }
    }
    targetConfig_->setCurrentIndex(std::max(idx, 0));
    updateTargetControls();
}

void TradeoffTab::updateTargetControls() {
    const auto kind = static_cast<TargetKind>(targetKind_->currentData().toInt());
    const bool perBin = kind == TargetKind::PerBin;
    targetValue_->setEnabled(!perBin);
    targetK_->setEnabled(perBin);
    targetQ_->setEnabled(perBin);
    perBinLabel_->setEnabled(perBin);
    targetK_->setToolTip(tr("k: the largest acceptable error of one bin, in records"));
    targetQ_->setToolTip(tr("q: the probability that a bin is within ±k"));
    if (kind == TargetKind::ErrorPercentOfN) {
        targetUnit_->setText(tr("% of N"));
    } else if (kind == TargetKind::ErrorValue) {
        targetUnit_->setText(metricTitle(metric()) + QStringLiteral(", ") + valueUnit());
    } else {
        targetUnit_->clear();
    }
    solve_->setEnabled(targetConfig_->count() > 0);
}

void TradeoffTab::solveTarget() {
    solved_.reset();
    solvedTarget_.reset();
    targetRows_->setRowShown(useSolution_, false);
    if (!haveInputs_ || !inputs_.truth) {
        solution_->setText(tr("No data loaded yet."));
        return;
    }
    if (!planned_.histogram) {
        solution_->setText(planned_.error);
        return;
    }
    const QString id = targetConfig_->currentData().toString();
    std::optional<TradeoffConfig> config;
    for (std::size_t i = 0; i < std::size(kMechanisms); ++i) {
        for (std::size_t j = 0; j < std::size(kEstimators); ++j) {
            if (configId(kMechanisms[i], kEstimators[j]) == id) {
                config =
                    configFor(kMechanisms[i].mechanism, kEstimators[j], protocolOf(kMechanisms[i]));
            }
        }
    }
    if (!config && algorithmOfId(id)) {
        config = algorithmConfigFor(id);
    }
    if (!config) {
        solution_->setText(tr("Tick a configuration first."));
        return;
    }
    const auto kind = static_cast<TargetKind>(targetKind_->currentData().toInt());
    double target = targetValue_->value();
    const double total = static_cast<double>(planned_.histogram->total());
    if (kind == TargetKind::ErrorPercentOfN) {
        if (metric() != Metric::L1 && metric() != Metric::LInf) {
            solution_->setText(
                tr("A percentage of N is a target for L1 or L∞ (records); choose "
                   "one of those metrics, or a plain value."));
            return;
        }
        if (inputs_.state.view.scale == Scale::Frequencies) {
            target = target / 100;  // L1/N already
        } else {
            if (total <= 0) {
                solution_->setText(tr("The histogram is empty: N = 0."));
                return;
            }
            target = target / 100 * total;
        }
    }
    const Histogram truth = *planned_.histogram;  // the confidential data or the public proxy
    const double k = targetK_->value();
    const double q = targetQ_->value();
    const TradeoffConfig cfg = *config;
    solution_->setText(tr("Solving…"));
    targetRows_->setRowShown(useSolution_, false);
    struct Solved {
        QString error;
        EpsilonSolution solution;
    };
    runner_->run<Solved>(
        QStringLiteral("tradeoff-solve"),
        [cfg, truth, kind, target, k, q](std::stop_token, JobProgress&) {
            Solved s;
            auto r = kind == TargetKind::PerBin
                         ? smallestEpsilonPerBin(k, q, cfg, kMinEpsilon, kMaxEpsilon)
                         : smallestEpsilonFor(target, cfg, truth, kMinEpsilon, kMaxEpsilon);
            if (!r) {
                s.error = QString::fromStdString(r.error().message);
            } else {
                s.solution = *r;
            }
            return s;
        },
        [self = QPointer<TradeoffTab>(this), cfg, kind, target, k, id](Solved s) {
            if (self) {
                self->showSolution(cfg, kind, target, k, id, s.error, s.solution);
            }
        });
}

void TradeoffTab::showSolution(const TradeoffConfig& cfg, TargetKind kind, double target, double k,
                               const QString& id, const QString& error,
                               const EpsilonSolution& solution) {
    if (!error.isEmpty()) {
        solved_.reset();
        solvedTarget_.reset();
        solution_->setText(tr("%1: %2").arg(id, error));
        targetRows_->setRowShown(useSolution_, false);
    } else {
        solved_ = solution.epsilon;
        solvedConfig_ = cfg;
        if (kind == TargetKind::PerBin) {
            solvedTarget_.reset();
            solution_->setText(tr("%1: smallest ε = <b>%2</b>; each bin is then within ±%3 with "
                                  "probability %4 (separately for each bin, not all at once).")
                                   .arg(id, num(solution.epsilon), num(k),
                                        QString::number(solution.value, 'g', 6)));
        } else {
            solvedTarget_ = target;
            solution_->setText(tr("%1: smallest ε = <b>%2</b>, expected %3 = %4 ≤ %5 "
                                  "(%6).")
                                   .arg(id, num(solution.epsilon), metricTitle(cfg.metric.metric),
                                        num(solution.value), num(target),
                                        QString::fromStdString(solution.method)));
        }
        useSolution_->setText(tr("&Use %1 at ε = %2").arg(id, num(solution.epsilon)));
        // The sparse release is not a window mechanism (its page is under More mechanisms).
        // Nor is a workload algorithm (the document has no algorithm mechanism).
        targetRows_->setRowShown(useSolution_,
                                 cfg.mechanism != TradeoffMechanism::SparseThreshold &&
                                     cfg.mechanism != TradeoffMechanism::Algorithm);
    }
    drawMarkers();
    replotWhenVisible(plot_);
}

QString TradeoffTab::toCsv() const {
    QString out = QStringLiteral(
                      "configuration,%1,metric,scale,value,ci95_low,ci95_high,method,"
                      "frontier\n")
                      .arg(gridAxis_ == Axis::Epsilon ? QStringLiteral("epsilon")
                                                      : QStringLiteral("population"));
    const QString metricName = QString::fromLatin1(dpx::metricName(metric()));
    const QString scaleName = QString::fromLatin1(dpx::scaleName(inputs_.state.view.scale));
    auto onFrontier = [this](std::size_t curve, double x) {
        for (const FrontierPoint& p : frontier_.points) {
            if (p.epsilon == x && p.curve == curve) {
                return true;
            }
        }
        return false;
    };
    auto csvText = [](QString s) {
        if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"'))) {
            s.replace(QLatin1Char('"'), QStringLiteral("\"\""));
            return QLatin1Char('"') + s + QLatin1Char('"');
        }
        return s;
    };
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        for (const CurvePoint& p : curves_[i].points) {
            out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                       .arg(curveIds_[static_cast<qsizetype>(i)],
                            QString::number(p.epsilon, 'g', 17), metricName, scaleName,
                            p.valid() ? QString::number(p.value, 'g', 17) : QString(),
                            p.valid() ? QString::number(p.ciLow, 'g', 17) : QString(),
                            p.valid() ? QString::number(p.ciHigh, 'g', 17) : QString(),
                            csvText(QString::fromStdString(p.method)),
                            onFrontier(i, p.epsilon) ? QStringLiteral("1") : QStringLiteral("0"));
        }
    }
    return out;
}

void TradeoffTab::exportCsv() {
    saveTextWithDialog(this, tr("Export trade-off curves"), QStringLiteral("tradeoff.csv"),
                       toCsv());
}

void TradeoffTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && plot_) {
        applyPlotPalette(plot_, palette());
        title_->setTextColor(palette().color(QPalette::WindowText));
        updateBasis();
        draw();
    }
}

// Issue #22: the caption above the plot and the plot's subtitle say what the curves are computed
// on; the confidential data in an amber badge (a data-dependent choice), a proxy in a blue one.
// Translucent fills read on the light and the dark palette alike.
void TradeoffTab::updateBasis() {
    basis_->setText(basisCaption(planned_));
    basis_->setStyleSheet(planned_.proxy
                              ? QStringLiteral("QLabel { background: rgba(30, 136, 229, 0.16); "
                                               "border: 1px solid rgba(30, 136, 229, 0.6); "
                                               "border-radius: 3px; }")
                              : QStringLiteral("QLabel { background: rgba(255, 179, 0, 0.22); "
                                               "border: 1px solid rgba(255, 143, 0, 0.75); "
                                               "border-radius: 3px; }"));
    subtitle_->setText(basisSubtitleText());
    subtitle_->setTextColor(palette().color(QPalette::WindowText));
}

QString TradeoffTab::basisSubtitleText() const {
    return basisSubtitle(planned_);
}

}  // namespace dpx::ui
