#include "ui/tabs/more/vector_mean_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/base/validation.h"
#include "ui/model/job_runner.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("vector-mean");
// Upper limit on Σ trials·d over all points and mechanisms (a few seconds on one core).
constexpr double kMaxWork = 1e8;
constexpr std::size_t kMaxN = 1'000'000'000;
constexpr int kSweepPoints = 10;

const QColor kColours[] = {QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44),
                           QColor(255, 127, 14)};

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// Log-spaced whole numbers from lo to hi (both included, duplicates removed).
std::vector<std::size_t> logGrid(std::size_t lo, std::size_t hi, int points) {
    std::vector<std::size_t> xs;
    if (lo == hi) {
        return {lo};
    }
    const double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi));
    for (int i = 0; i < points; ++i) {
        const double v = std::exp(a + (b - a) * i / (points - 1));
        auto x = static_cast<std::size_t>(std::llround(v));
        x = std::clamp(x, lo, hi);
        if (xs.empty() || x != xs.back()) {
            xs.push_back(x);
        }
    }
    return xs;
}

Expected<std::size_t> parseWhole(const QLineEdit* e, const QString& field, std::size_t lo,
                                 std::size_t hi) {
    bool ok = false;
    const double v = e->text().trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v) || v != std::floor(v) || v < static_cast<double>(lo) ||
        v > static_cast<double>(hi)) {
        return Error{QStringLiteral("%1: '%2' is not a whole number from %L3 to %L4")
                         .arg(field, e->text().trimmed())
                         .arg(static_cast<qulonglong>(lo))
                         .arg(static_cast<qulonglong>(hi))
                         .toStdString()};
    }
    return static_cast<std::size_t>(v);
}

Expected<double> parseReal(const QLineEdit* e, const QString& field) {
    bool ok = false;
    const double v = e->text().trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v)) {
        return Error{QStringLiteral("%1: '%2' is not a number")
                         .arg(field, e->text().trimmed())
                         .toStdString()};
    }
    return v;
}

bool isPrinted(const VectorMechanismSpec& s) {
    return s.kind == VectorMechanismKind::GaussianPrinted;
}

// The guarantee for the legend, in symbols (the title gives ε and δ; the table below the plot
// the numbers).
QString guaranteeShort(const VectorMechanismSpec& s) {
    switch (s.kind) {
        case VectorMechanismKind::Gaussian:
            return QStringLiteral("(ε, δ)-DP");
        case VectorMechanismKind::GaussianPrinted:
            return QStringLiteral("only (2ε, δ)-DP");
        default:
            return QStringLiteral("pure ε-DP");
    }
}

// The legend's names (the table below the plot uses vectorMechanismLabel).
QString shortLabel(const VectorMechanismSpec& s) {
    switch (s.kind) {
        case VectorMechanismKind::Gaussian:
            return QStringLiteral("Gaussian, %1")
                .arg(QString::fromLatin1(gaussianCalibrationName(s.calibration)));
        case VectorMechanismKind::GaussianPrinted:
            return QStringLiteral("Gaussian as printed");
        case VectorMechanismKind::Laplace:
            return QStringLiteral("Laplace");
        case VectorMechanismKind::KNorm:
            return QStringLiteral("K-norm");
    }
    return {};
}

QString scaleText(const VectorMeanMechanism& m) {
    switch (m.spec.kind) {
        case VectorMechanismKind::Laplace:
            return QStringLiteral("b = %1").arg(formatSignificant(m.scale, 4));
        case VectorMechanismKind::KNorm:
            return QStringLiteral("θ = %1 (radius ~ Gamma(d, θ))")
                .arg(formatSignificant(m.scale, 4));
        default:
            return QStringLiteral("σ = %1").arg(formatSignificant(m.scale, 4));
    }
}

}  // namespace

bool VectorMeanSweepSpec::operator==(const VectorMeanSweepSpec& o) const {
    auto sameMechanisms = [&] {
        if (mechanisms.size() != o.mechanisms.size()) {
            return false;
        }
        for (std::size_t i = 0; i < mechanisms.size(); ++i) {
            if (mechanisms[i].kind != o.mechanisms[i].kind ||
                mechanisms[i].calibration != o.mechanisms[i].calibration) {
                return false;
            }
        }
        return true;
    };
    return sameMechanisms() && overN == o.overN && xs == o.xs && n == o.n && d == o.d &&
           epsilon == o.epsilon && delta == o.delta && population == o.population &&
           bias == o.bias && trials == o.trials && seed == o.seed;
}

QString vectorMechanismLabel(const VectorMechanismSpec& spec) {
    switch (spec.kind) {
        case VectorMechanismKind::Gaussian:
            return QStringLiteral("Gaussian (%1 calibration)")
                .arg(QString::fromLatin1(gaussianCalibrationName(spec.calibration)));
        case VectorMechanismKind::GaussianPrinted:
            return QStringLiteral("Gaussian, Kamath & Ullman primer eq. (4) as printed");
        case VectorMechanismKind::Laplace:
            return QStringLiteral("Laplace (L1)");
        case VectorMechanismKind::KNorm:
            return QStringLiteral("K-norm (L2 ball)");
    }
    return {};
}

VectorMeanSweep computeVectorMeanSweep(const VectorMeanSweepSpec& spec, std::stop_token stop,
                                       JobProgress* progress) {
    VectorMeanSweep out;
    out.spec = spec;
    auto addWarning = [&out](const std::string& w) {
        if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end()) {
            out.warnings.push_back(w);
        }
    };
    for (std::size_t x : spec.xs) {
        const std::size_t n = spec.overN ? x : spec.n;
        const std::size_t d = spec.overN ? spec.d : x;
        out.upperPrinted.push_back(meanUpperBoundPrinted(n, d, spec.epsilon, spec.delta));
        out.upper.push_back(meanUpperBound(n, d, spec.epsilon, spec.delta));
        // Thm 5's value; whether it holds at δ (δ < 1/(96n)) is decided when drawing.
        auto lo = meanLowerBound(n, d, spec.epsilon, 0);
        out.lower.push_back(lo ? *lo : std::nan(""));
    }
    const double total = static_cast<double>(spec.mechanisms.size() * spec.xs.size());
    double done = 0;
    for (const auto& mech : spec.mechanisms) {
        VectorMeanCurve curve;
        curve.spec = mech;
        auto ref = calibrateVectorMean({spec.n, spec.d, spec.epsilon, spec.delta, mech});
        if (ref) {
            curve.reference = *ref;
            for (const auto& w : ref->warnings) {
                addWarning(w);
            }
        } else {
            curve.refused = ref.error().message;
        }
        for (std::size_t x : spec.xs) {
            if (stop.stop_requested()) {
                out.cancelled = true;
                return out;
            }
            MeanSimulationParams p;
            p.release = {spec.overN ? x : spec.n, spec.overN ? spec.d : x, spec.epsilon, spec.delta,
                         mech};
            p.population = spec.population;
            p.bias = spec.bias;
            p.trials = spec.trials;
            p.seed = spec.seed;
            auto r = simulateMeanError(p);
            if (r) {
                // (The points' own notes vary with n; the reference's are shown.)
                curve.points.push_back(
                    {static_cast<double>(x), p.release.n, p.release.d, r->total, r->expectedTotal});
            } else if (curve.refused.empty()) {
                curve.refused = r.error().message;
            }
            done += 1;
            if (progress) {
                progress->set(done / total);
            }
        }
        out.curves.push_back(std::move(curve));
    }
    return out;
}

VectorMeanPage::VectorMeanPage(JobRunner* runner, QWidget* parent)
    : MechanismPage(parent), runner_(runner) {
    // ---- mechanisms
    auto* mechs = new QGroupBox(tr("Mechanisms to compare"));
    auto* mechLayout = new QVBoxLayout(mechs);
    mechGaussian_ = new QCheckBox(tr("Gaussian, (ε, δ)-DP"));
    mechGaussian_->setObjectName(QStringLiteral("vmGaussian"));
    mechGaussian_->setChecked(true);
    calibration_ = new QComboBox;
    calibration_->setObjectName(QStringLiteral("vmCalibration"));
    calibration_->addItem(tr("analytic (Balle–Wang)"),
                          static_cast<int>(GaussianCalibration::Analytic));
    calibration_->addItem(tr("seed: σ = √(2 ln(2/δ))·Δ₂/ε"),
                          static_cast<int>(GaussianCalibration::Hall));
    calibration_->addItem(tr("classic: σ = √(2 ln(1.25/δ))·Δ₂/ε"),
                          static_cast<int>(GaussianCalibration::Classic));
    auto* gaussRow = new QHBoxLayout;
    gaussRow->addSpacing(24);
    gaussRow->addWidget(new QLabel(tr("calibration")));
    gaussRow->addWidget(calibration_, 1);
    // "&&": a single & would be read as a keyboard shortcut.
    mechPrinted_ = new QCheckBox(tr("Gaussian, Kamath && Ullman eq. (4) as printed"));
    mechPrinted_->setObjectName(QStringLiteral("vmPrinted"));
    mechPrinted_->setChecked(true);
    mechLaplace_ = new QCheckBox(tr("Laplace per coordinate (L1), ε-DP"));
    mechLaplace_->setObjectName(QStringLiteral("vmLaplace"));
    mechLaplace_->setChecked(true);
    mechKNorm_ = new QCheckBox(tr("K-norm for the L2 ball, ε-DP"));
    mechKNorm_->setObjectName(QStringLiteral("vmKNorm"));
    mechKNorm_->setChecked(true);
    mechGaussian_->setToolTip(
        tr("N(0, σ²) per coordinate, σ from the chosen calibration at Δ₂ = 2√d/n: (ε, δ)-DP"));
    mechPrinted_->setToolTip(
        tr("σ² = 2d ln(2/δ)/(ε²n²) as printed in the Kamath & Ullman primer, eq. (4): only (2ε, "
           "δ)-DP, because "
           "the true Δ₂ is 2√d/n"));
    mechLaplace_->setToolTip(tr("Laplace(b) per coordinate, b = Δ₁/ε = 2d/(nε): pure ε-DP"));
    mechKNorm_->setToolTip(
        tr("Density ∝ exp(−ε‖z‖₂/Δ₂) (the \"gamma\" mechanism of Hall 2012, §1.3): pure ε-DP"));
    mechLayout->addWidget(mechGaussian_);
    mechLayout->addLayout(gaussRow);
    mechLayout->addWidget(mechPrinted_);
    mechLayout->addWidget(mechLaplace_);
    mechLayout->addWidget(mechKNorm_);

    // ---- sweep and parameters
    auto line = [](const QString& name, const QString& text, const QString& tip) {
        auto* e = new QLineEdit(text);
        e->setObjectName(name);
        e->setToolTip(tip);
        return e;
    };
    axis_ = new QComboBox;
    axis_->setObjectName(QStringLiteral("vmAxis"));
    axis_->addItem(tr("records n (d fixed)"), 0);
    axis_->addItem(tr("dimension d (n fixed)"), 1);
    from_ = line(QStringLiteral("vmFrom"), QStringLiteral("10"),
                 tr("Smallest value of the swept variable"));
    to_ = line(QStringLiteral("vmTo"), QStringLiteral("100000"),
               tr("Largest value of the swept variable (10 log-spaced points)"));
    auto* range = new QHBoxLayout;
    range->addWidget(from_);
    range->addWidget(new QLabel(tr("to")));
    range->addWidget(to_);
    n_ = line(QStringLiteral("vmN"), QStringLiteral("1000"),
              tr("Records n: fixed when sweeping d; the σ table below is at this n"));
    d_ = line(QStringLiteral("vmD"), QStringLiteral("100"),
              tr("Dimension d: fixed when sweeping n; the σ table below is at this d"));
    followWindow_ = new QCheckBox(tr("use the window's ε and δ"));
    followWindow_->setObjectName(QStringLiteral("vmFollowWindow"));
    followWindow_->setChecked(true);
    epsilon_ = line(QStringLiteral("vmEpsilon"), QStringLiteral("1"), tr("ε > 0"));
    delta_ = line(QStringLiteral("vmDelta"), QStringLiteral("1e-06"),
                  tr("δ in (0, 1): the Gaussian mechanisms' δ and the δ of the Kamath & Ullman "
                     "primer's bounds"));
    population_ = new QComboBox;
    population_->setObjectName(QStringLiteral("vmPopulation"));
    population_->addItem(tr("every coordinate ±1 with mean b"),
                         static_cast<int>(MeanPopulation::FixedBias));
    population_->addItem(tr("Kamath & Ullman primer's prior: μ ~ U[−1, 1]^d"),
                         static_cast<int>(MeanPopulation::UniformPrior));
    bias_ = line(QStringLiteral("vmBias"), QStringLiteral("0"),
                 tr("b in [−1, 1]: the mean of every coordinate (b = 0 is the worst case d/n of "
                    "the sampling error)"));
    trials_ = line(QStringLiteral("vmTrials"), QStringLiteral("500"),
                   tr("Monte Carlo trials per point (fresh records and noise each)"));
    auto* form = new QFormLayout;
    form->addRow(tr("x axis"), axis_);
    form->addRow(tr("from"), range);
    form->addRow(tr("Records n"), n_);
    form->addRow(tr("Dimension d"), d_);
    form->addRow(QString(), followWindow_);
    form->addRow(tr("ε"), epsilon_);
    form->addRow(tr("δ"), delta_);
    form->addRow(tr("Population"), population_);
    form->addRow(tr("Bias b"), bias_);
    form->addRow(tr("Trials"), trials_);

    makeStatusLine(QStringLiteral("vmStatus"));
    statusLine()->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* dataNote = new QLabel(
        tr("Data: synthetic records in [−1, 1]^d with ±1 coordinates (the window's dataset is "
           "not used). Neighbours: one record replaced, n public, so Δ₂ = 2√d/n and Δ₁ = 2d/n. "
           "A seeded simulation for comparison and teaching, never a release."));
    dataNote->setWordWrap(true);
    auto* exportPlot = new QPushButton(tr("Export plot…"));

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addWidget(mechs);
    sideLayout->addLayout(form);
    sideLayout->addWidget(statusLine());
    sideLayout->addWidget(dataNote);
    sideLayout->addWidget(exportPlot);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, side->minimumSizeHint().width() + 24, 330);

    // ---- plot column: the printed-calibration warning, the plot, the σ / guarantee table
    printedWarning_ = new QLabel(
        tr("<b>The Kamath & Ullman primer's printed calibration σ² = 2d ln(2/δ)/(ε²n²) is only "
           "(2ε, δ)-DP</b>, "
           "not (ε, δ)-DP: it assumes ‖X̄ − X̄′‖₂ ≤ √d/n, but replacing one record of "
           "[−1, 1]^d moves the mean by up to Δ₂ = 2√d/n. Its curve reproduces the primer's "
           "numbers; it does not meet the ε asked for."));
    printedWarning_->setObjectName(QStringLiteral("vmPrintedWarning"));
    printedWarning_->setWordWrap(true);
    printedWarning_->setTextFormat(Qt::RichText);
    printedWarning_->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; border: 1px solid #d9a400; "
                       "border-radius: 3px; padding: 6px; }"));
    details_ = new QLabel;
    details_->setObjectName(QStringLiteral("vmDetails"));
    details_->setWordWrap(true);
    details_->setTextFormat(Qt::RichText);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("vectorMeanPlot"));
    plot_->setMinimumSize(460, 340);
    title_ = addPlotTitle(plot_);
    makeLogAxis(plot_->xAxis);
    makeLogAxis(plot_->yAxis);
    plot_->axisRect()->setupFullAxesBox(true);
    // The legend below the axes in two columns: eight entries would hide the curves.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->addElement(2, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(2, 0.001);
    // As many columns as fit the plot's width (at most 2): entries are never cut.
    wrapLegendToWidth(plot_, 2);
    plot_->legend->setVisible(true);
    plot_->legend->setMargins(QMargins(4, 2, 4, 2));
    plot_->legend->setRowSpacing(0);
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.9);
    plot_->legend->setFont(legendFont);

    auto* detailsScroll = new QScrollArea;
    detailsScroll->setWidget(details_);
    detailsScroll->setWidgetResizable(true);
    detailsScroll->setFrameShape(QFrame::NoFrame);
    detailsScroll->setMaximumHeight(230);
    auto* plotColumn = new QVBoxLayout;
    plotColumn->addWidget(printedWarning_);
    plotColumn->addWidget(plot_, 1);
    plotColumn->addWidget(detailsScroll);
    placeBesideSidePanel(plotColumn, scroll);

    for (QCheckBox* c : {mechGaussian_, mechPrinted_, mechLaplace_, mechKNorm_}) {
        connect(c, &QCheckBox::toggled, this, [this] { scheduleRecompute(); });
    }
    for (QComboBox* c : {calibration_, axis_, population_}) {
        connect(c, &QComboBox::currentIndexChanged, this, [this] { scheduleRecompute(); });
    }
    connect(axis_, &QComboBox::currentIndexChanged, this, [this](int i) {
        // Sensible ranges for the new variable.
        from_->setText(i == 0 ? QStringLiteral("10") : QStringLiteral("1"));
        to_->setText(i == 0 ? QStringLiteral("100000") : QStringLiteral("1000"));
    });
    for (QLineEdit* e : {from_, to_, n_, d_, epsilon_, delta_, bias_, trials_}) {
        connect(e, &QLineEdit::editingFinished, this, [this] { scheduleRecompute(); });
    }
    connect(followWindow_, &QCheckBox::toggled, this, [this] {
        updateEpsilonFields();
        scheduleRecompute();
    });
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    connect(runner_, &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot == kSlot && isRunning()) {
            setRunning(false);
            cancelledSpec_ = running_spec_;
            running_spec_.reset();
            drawn_ = true;
            setStatus(hasResult_ ? tr("Cancelled; the plot shows the previous result.")
                                 : tr("Cancelled; nothing computed yet (change a control to "
                                      "compute)."),
                      false);
            Q_EMIT finished();
        }
    });
    applyPlotPalette(plot_, palette());
    updateEpsilonFields();
    printedWarning_->setVisible(mechPrinted_->isChecked());
    draw();
}

void VectorMeanPage::updateEpsilonFields() {
    const bool follow = followWindow_->isChecked();
    epsilon_->setEnabled(!follow);
    delta_->setEnabled(!follow);
    if (follow && haveContext_) {
        epsilon_->setText(formatSignificant(context_.epsilon, 6));
        delta_->setText(formatSignificant(context_.delta, 6));
    }
}

void VectorMeanPage::setContext(const MechanismPageContext& context) {
    context_ = context;
    haveContext_ = true;
    updateEpsilonFields();
    auto s = spec();
    // Only what changes the result recomputes (the page is shown again, data changes); a run the
    // user cancelled is not restarted by a mere context update (a control edit restarts it).
    if (s && ((running_spec_ && *running_spec_ == *s) ||
              (!isRunning() && hasResult_ && result_.spec == *s) ||
              (!isRunning() && cancelledSpec_ && *cancelledSpec_ == *s))) {
        return;
    }
    recompute();
}

void VectorMeanPage::scheduleRecompute() {
    printedWarning_->setVisible(mechPrinted_->isChecked());
    bias_->setEnabled(population_->currentData().toInt() ==
                      static_cast<int>(MeanPopulation::FixedBias));
    if (pending_) {
        return;
    }
    pending_ = true;
    QTimer::singleShot(0, this, [this] {
        pending_ = false;
        recompute();
    });
}

Expected<VectorMeanSweepSpec> VectorMeanPage::spec() const {
    VectorMeanSweepSpec s;
    if (mechGaussian_->isChecked()) {
        s.mechanisms.push_back(
            {VectorMechanismKind::Gaussian,
             static_cast<GaussianCalibration>(calibration_->currentData().toInt())});
    }
    if (mechPrinted_->isChecked()) {
        s.mechanisms.push_back({VectorMechanismKind::GaussianPrinted, GaussianCalibration::Hall});
    }
    if (mechLaplace_->isChecked()) {
        s.mechanisms.push_back({VectorMechanismKind::Laplace, GaussianCalibration::Analytic});
    }
    if (mechKNorm_->isChecked()) {
        s.mechanisms.push_back({VectorMechanismKind::KNorm, GaussianCalibration::Analytic});
    }
    if (s.mechanisms.empty()) {
        return Error{tr("Choose at least one mechanism to compare.").toStdString()};
    }
    s.overN = axis_->currentData().toInt() == 0;
    auto n = parseWhole(n_, tr("Records n"), 1, kMaxN);
    if (!n) {
        return n.error();
    }
    s.n = *n;
    auto d = parseWhole(d_, tr("Dimension d"), 1, kMaxVectorDimension);
    if (!d) {
        return d.error();
    }
    s.d = *d;
    const std::size_t hi = s.overN ? kMaxN : kMaxVectorDimension;
    const QString var = s.overN ? tr("n") : tr("d");
    auto from = parseWhole(from_, tr("Sweep of %1, from").arg(var), 1, hi);
    if (!from) {
        return from.error();
    }
    auto to = parseWhole(to_, tr("Sweep of %1, to").arg(var), 1, hi);
    if (!to) {
        return to.error();
    }
    if (*to < *from) {
        return Error{tr("Sweep of %1: 'to' (%L2) is below 'from' (%L3)")
                         .arg(var)
                         .arg(static_cast<qulonglong>(*to))
                         .arg(static_cast<qulonglong>(*from))
                         .toStdString()};
    }
    s.xs = logGrid(*from, *to, kSweepPoints);
    auto eps = parseReal(epsilon_, tr("ε"));
    if (!eps) {
        return eps.error();
    }
    if (auto st = validateEpsilon(*eps); !st) {
        return Error{"ε: " + st.error().message};
    }
    s.epsilon = *eps;
    auto delta = parseReal(delta_, tr("δ"));
    if (!delta) {
        return delta.error();
    }
    if (auto st = validateDelta(*delta); !st) {
        return Error{"δ: " + st.error().message};
    }
    s.delta = *delta;
    s.population = static_cast<MeanPopulation>(population_->currentData().toInt());
    if (s.population == MeanPopulation::FixedBias) {
        auto b = parseReal(bias_, tr("Bias b"));
        if (!b) {
            return b.error();
        }
        if (*b < -1 || *b > 1) {
            return Error{tr("Bias b: the mean of every coordinate must lie in [−1, 1] (got %1)")
                             .arg(bias_->text().trimmed())
                             .toStdString()};
        }
        s.bias = *b;
    }
    auto trials = parseWhole(trials_, tr("Trials"), 2, 10'000'000);
    if (!trials) {
        return trials.error();
    }
    s.trials = *trials;
    double work = 0;
    for (std::size_t x : s.xs) {
        work += static_cast<double>(s.trials) * static_cast<double>(s.overN ? s.d : x);
    }
    work *= static_cast<double>(s.mechanisms.size());
    if (work > kMaxWork) {
        return Error{tr("Too much work for one view: trials × Σd × mechanisms = %1 (limit %2). "
                        "Use fewer trials, a smaller d or fewer mechanisms.")
                         .arg(formatSignificant(work, 3), formatSignificant(kMaxWork, 3))
                         .toStdString()};
    }
    s.seed = context_.seed;
    return s;
}

bool VectorMeanPage::recompute() {
    cancelledSpec_.reset();
    auto s = spec();
    if (!s) {
        runner_->cancel(kSlot);
        setRunning(false);
        running_spec_.reset();
        drawn_ = true;
        setStatus(QString::fromStdString(s.error().message), true);
        Q_EMIT finished();
        return false;
    }
    const VectorMeanSweepSpec sp = *s;
    running_spec_ = sp;
    setRunning(true);
    runner_->run<VectorMeanSweep>(
        kSlot,
        [sp](std::stop_token stop, JobProgress& progress) {
            return computeVectorMeanSweep(sp, stop, &progress);
        },
        [this](VectorMeanSweep r) {
            setRunning(false);
            running_spec_.reset();
            drawn_ = true;
            if (r.cancelled) {
                setStatus(tr("Cancelled; the plot shows the previous result."), false);
            } else {
                result_ = std::move(r);
                hasResult_ = true;
                std::size_t drawn = 0;
                for (const auto& c : result_.curves) {
                    drawn += c.points.size();
                }
                QString text = tr("%L1 points of %L2 trials each (seed %3).")
                                   .arg(drawn)
                                   .arg(result_.spec.trials)
                                   .arg(result_.spec.seed);
                bool refused = false;
                for (const auto& c : result_.curves) {
                    if (!c.refused.empty()) {
                        refused = true;
                        text += QLatin1Char(' ') + tr("%1 refused: %2")
                                                       .arg(vectorMechanismLabel(c.spec),
                                                            QString::fromStdString(c.refused));
                    }
                }
                setStatus(text, refused);
                draw();
            }
            Q_EMIT finished();
        },
        tr("Vector means"), JobRunner::Lane::Background);
    setStatus(tr("Computing…"), false);
    return true;
}

QString VectorMeanPage::detailsText() const {
    return plainTextOf(details_);
}

bool VectorMeanPage::printedWarningVisible() const {
    return !printedWarning_->isHidden();
}

void VectorMeanPage::draw() {
    plot_->clearPlottables();
    plot_->clearItems();
    const QColor text = palette().color(QPalette::WindowText);
    if (!hasResult_) {
        title_->setText(tr("Private mean of n records in [−1, 1]^d: expected squared error"));
        plot_->xAxis->setLabel(tr("records n (log scale)"));
        plot_->yAxis->setLabel(tr("E‖M(X) − μ‖² (log scale)"));
        plot_->xAxis->setRange(10, 1e5);
        plot_->yAxis->setRange(1e-4, 10);
        plot_->legend->setVisible(false);
        details_->setText(QString());
        replotWhenVisible(plot_);
        return;
    }
    const VectorMeanSweepSpec& s = result_.spec;
    title_->setText(s.overN
                        ? tr("Mean of n records in [−1, 1]^%1 at ε = %2, δ = %3")
                              .arg(s.d)
                              .arg(formatSignificant(s.epsilon, 4), formatSignificant(s.delta, 4))
                        : tr("Mean of %1 records in [−1, 1]^d at ε = %2, δ = %3")
                              .arg(s.n)
                              .arg(formatSignificant(s.epsilon, 4), formatSignificant(s.delta, 4)));
    plot_->xAxis->setLabel(s.overN ? tr("records n (log scale)") : tr("dimension d (log scale)"));
    plot_->yAxis->setLabel(tr("squared error E‖M(X) − μ‖² (log scale)"));
    double lo = HUGE_VAL, hi = 0;
    auto track = [&](double y) {
        if (y > 0 && std::isfinite(y)) {
            lo = std::min(lo, y);
            hi = std::max(hi, y);
        }
    };
    QVector<double> xs;
    for (std::size_t x : s.xs) {
        xs << static_cast<double>(x);
    }
    bool aboveTrivial = false;
    for (std::size_t i = 0; i < result_.curves.size(); ++i) {
        const VectorMeanCurve& c = result_.curves[i];
        const QColor colour = kColours[static_cast<std::size_t>(c.spec.kind) % std::size(kColours)];
        QVector<double> x, y, minus, plus, expected;
        for (const auto& p : c.points) {
            x << p.x;
            y << p.total.mean;
            plus << p.total.standardError;
            minus << std::min(p.total.standardError, 0.9 * p.total.mean);
            expected << p.expectedTotal;
            track(p.total.mean);
            track(p.expectedTotal);
            aboveTrivial = aboveTrivial || p.total.mean > static_cast<double>(p.d);
        }
        if (x.isEmpty()) {  // refused everywhere: say so in the legend, the reason below
            QCPGraph* r = plot_->addGraph();
            r->setName(tr("%1: refused (see below)").arg(shortLabel(c.spec)));
            r->setPen(QPen(colour, 1.6));
            continue;
        }
        QCPGraph* g = plot_->addGraph();
        g->setName(tr("%1: %2").arg(shortLabel(c.spec), guaranteeShort(c.spec)));
        g->setPen(QPen(colour, 1.6));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 6));
        g->setData(x, y, true);
        auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(g);
        bars->setData(minus, plus);
        bars->setPen(QPen(colour, 1));
        QCPGraph* e = plot_->addGraph();
        QColor light = colour;
        light.setAlpha(170);
        e->setPen(QPen(light, 1.2, Qt::DashLine));
        e->setData(x, expected, true);
        e->removeFromLegend();
    }
    QColor boundColour = text;
    auto boundGraph = [&](const QString& name, const std::vector<double>& ys, Qt::PenStyle style,
                          double width) {
        QVector<double> x, y;
        for (std::size_t k = 0; k < ys.size(); ++k) {
            if (std::isfinite(ys[k]) && ys[k] > 0) {
                x << xs[static_cast<qsizetype>(k)];
                y << ys[k];
                track(ys[k]);
            }
        }
        QCPGraph* g = plot_->addGraph();
        g->setName(name);
        g->setPen(QPen(boundColour, width, style));
        g->setData(x, y, true);
        return g;
    };
    boundGraph(tr("Thm 4: d/n + 2d²ln(2/δ)/(ε²n²)"), result_.upperPrinted, Qt::DashDotLine, 1.6);
    boundGraph(tr("true Δ₂: d/n + 8d²ln(2/δ)/(ε²n²)"), result_.upper, Qt::DashDotDotLine, 1.2);
    boundGraph(tr("Thm 5: min{d/6, d²/(2304ε²n²)}"), result_.lower, Qt::DotLine, 2.2);
    QCPGraph* key = plot_->addGraph();
    QColor keyColour = text;
    keyColour.setAlpha(170);
    key->setPen(QPen(keyColour, 1.2, Qt::DashLine));
    key->setName(tr("dashed: closed forms"));
    if (hi > 0) {
        plot_->yAxis->setRange(lo / 2, hi * 2);
    } else {
        plot_->yAxis->setRange(1e-4, 10);
    }
    const double xlo = xs.front(), xhi = xs.back();
    plot_->xAxis->setRange(xlo / 1.3, xlo == xhi ? xhi * 1.3 * 1.3 : xhi * 1.3);
    plot_->legend->setVisible(true);
    applyPlotPalette(plot_, palette());
    replotWhenVisible(plot_);
    updateDetails();
    if (aboveTrivial) {
        details_->setText(
            details_->text() +
            tr("<p>At some points the error exceeds d, the largest error of ignoring the data "
               "and releasing 0 (‖μ‖² ≤ d): there the noise drowns the mean (these mechanisms do "
               "not clip their output to [−1, 1]^d).</p>"));
    }
}

void VectorMeanPage::updateDetails() {
    const VectorMeanSweepSpec& s = result_.spec;
    QString html =
        tr("<p><b>At n = %L1, d = %L2</b> (the n and d fields): Δ₂ = 2√d/n = %3, "
           "Δ₁ = 2d/n = %4. Noise per coordinate:</p>")
            .arg(static_cast<qulonglong>(s.n))
            .arg(static_cast<qulonglong>(s.d))
            .arg(formatSignificant(
                     2 * std::sqrt(static_cast<double>(s.d)) / static_cast<double>(s.n), 4),
                 formatSignificant(2 * static_cast<double>(s.d) / static_cast<double>(s.n), 4));
    html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    html +=
        tr("<tr><th align='left'>mechanism</th><th align='left'>guarantee</th>"
           "<th align='left'>scale</th><th align='left'>sd per coordinate</th>"
           "<th align='left'>E‖Z‖²</th></tr>");
    for (const auto& c : result_.curves) {
        html += QStringLiteral("<tr><td>%1</td>").arg(vectorMechanismLabel(c.spec).toHtmlEscaped());
        if (c.reference) {
            const VectorMeanMechanism& m = *c.reference;
            const QString guarantee =
                m.delta > 0
                    ? tr("(%1, %2)-DP")
                          .arg(formatSignificant(m.epsilon, 4), formatSignificant(m.delta, 4))
                    : tr("pure %1-DP").arg(formatSignificant(m.epsilon, 4));
            html += QStringLiteral("<td>%1%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                        .arg(isPrinted(c.spec) ? QStringLiteral("<b>%1</b> (2ε)").arg(guarantee)
                                               : guarantee,
                             QString(), scaleText(m).toHtmlEscaped(),
                             formatSignificant(
                                 std::sqrt(m.expectedSquaredNoise / static_cast<double>(m.d)), 4),
                             formatSignificant(m.expectedSquaredNoise, 4));
        } else {
            html += QStringLiteral(
                        "<td colspan='4'><span style='color:#d62728'>refused: %1</span>"
                        "</td></tr>")
                        .arg(qs(c.refused).toHtmlEscaped());
        }
    }
    html += QStringLiteral("</table>");
    html += tr("<p>Points: Monte Carlo mean of ‖M(X) − μ‖² over %L1 trials, bars ± one "
               "standard error; dashed, same colour: the closed form. Lines without points: seed "
               "004's bounds — Thm 4's upper bound as printed (the error of the printed "
               "Gaussian, a (2ε, δ) mechanism), the same with the true Δ₂ (bounds the "
               "seed-calibrated (ε, δ) Gaussian), and Thm 5's lower bound for every "
               "ε-DP mechanism.</p>")
                .arg(static_cast<qulonglong>(s.trials));
    html +=
        tr("<p>Guarantees, for one record replaced: the Gaussian mechanism is (ε, δ)-DP with "
           "σ from its calibration at Δ₂ (checked against the exact privacy profile); seed "
           "004's printed σ² = 2d ln(2/δ)/(ε²n²) is only (2ε, δ)-DP; Laplace (b = Δ₁/ε) and "
           "K-norm (density ∝ exp(−ε‖z‖₂/Δ₂)) are pure ε-DP (Hall 2012, §1.3).");
    const double deltaLimitN = 1 / (96 * s.delta);
    bool lowerPartial = false;
    for (std::size_t x : s.xs) {
        const std::size_t n = s.overN ? x : s.n;
        lowerPartial = lowerPartial || !(s.delta < 1 / (96 * static_cast<double>(n)));
    }
    if (lowerPartial) {
        html +=
            tr(" The lower bound holds for (ε, δ)-DP mechanisms only where δ &lt; 1/(96n), i.e. "
               "n &lt; %1 at δ = %2; beyond, it still bounds the pure ε-DP mechanisms.")
                .arg(formatSignificant(deltaLimitN, 4), formatSignificant(s.delta, 4));
    }
    if (s.population == MeanPopulation::FixedBias) {
        html +=
            tr(" The lower bound is a worst case over populations (attained on average under "
               "the Kamath & Ullman primer's uniform prior); one fixed bias b may lie below it.");
    }
    html += QStringLiteral("</p>");
    for (const auto& c : result_.curves) {
        if (!c.refused.empty() && c.reference) {
            html += tr("<p style='color:#d62728'>%1 refused at some points: %2</p>")
                        .arg(vectorMechanismLabel(c.spec).toHtmlEscaped(),
                             qs(c.refused).toHtmlEscaped());
        }
    }
    for (const auto& w : result_.warnings) {
        if (w.rfind("seed 004 eq. (4) as printed", 0) == 0) {
            continue;  // the banner above the plot says it
        }
        html += QStringLiteral("<p>Note: %1</p>").arg(qs(w).toHtmlEscaped());
    }
    details_->setText(html);
}

void VectorMeanPage::restyle() {
    draw();
}

}  // namespace dpx::ui
