#include "ui/tabs/ldp/ldp_experiment_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/base/validation.h"
#include "ui/model/job_runner.h"
#include "ui/tabs/ldp/ldp_fields.h"
#include "ui/widgets/file_export.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

constexpr const char* kSlot = "ldp-experiment";

// Seed 002's reported figures (dBitFlip d = 1, truncated-normal data, k = 32 buckets on [0, 24]):
// the histogram error at ε = 1 and the Wasserstein distance at ε = 3, read off its text.
struct SeedFigure {
    bool wasserstein;
    double epsilon;
    double users;
    double value;
};
constexpr SeedFigure kSeedFigures[] = {
    {false, 1, 1e4, 0.3}, {false, 1, 3e5, 0.045}, {true, 3, 1e4, 2}, {true, 3, 1e5, 1}};

// Protocol colours (Tableau 10) and data-shape line styles.
const QColor kColours[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                           QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                           QColor(227, 119, 194), QColor(127, 127, 127)};
const Qt::PenStyle kShapeStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine};
const QCPScatterStyle::ScatterShape kShapeMarks[] = {
    QCPScatterStyle::ssDisc, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle};

QString shapeTitle(ldp::TelemetryShape s) {
    switch (s) {
        case ldp::TelemetryShape::TruncatedNormal:
            return QObject::tr("truncated normal");
        case ldp::TelemetryShape::Uniform:
            return QObject::tr("uniform");
        case ldp::TelemetryShape::Constant:
            return QObject::tr("constant");
    }
    return {};
}

}  // namespace

LdpExperimentPage::LdpExperimentPage(JobRunner* runner, QWidget* parent)
    : Page(parent), runner_(runner) {
    buildUi();
    setSpec(ldp::telemetryExperimentPreset());
    draw();
}

void LdpExperimentPage::buildUi() {
    setObjectName(QStringLiteral("ldpExperimentView"));
    // Protocol choices: the telemetry study's dBitFlip d = 1, 2, 4 and the other frequency oracles.
    auto protocol = [](ldp::Protocol p, std::size_t bits = 1) {
        ldp::ProtocolSpec s;
        s.protocol = p;
        s.bits = bits;
        return s;
    };
    protocolChoices_ = {protocol(ldp::Protocol::DBitFlip, 1), protocol(ldp::Protocol::DBitFlip, 2),
                        protocol(ldp::Protocol::DBitFlip, 4), protocol(ldp::Protocol::OUE),
                        protocol(ldp::Protocol::SUE),         protocol(ldp::Protocol::GRR),
                        protocol(ldp::Protocol::OLH),         protocol(ldp::Protocol::HRR)};
    auto* protocols = new QGroupBox(tr("Protocols"));
    auto* protocolGrid = new QGridLayout(protocols);
    for (std::size_t i = 0; i < protocolChoices_.size(); ++i) {
        auto* box = new QCheckBox(QString::fromStdString(ldp::protocolLabel(protocolChoices_[i])));
        box->setObjectName(QStringLiteral("ldpProtocol%1").arg(i));
        protocolBoxes_.push_back(box);
        protocolGrid->addWidget(box, static_cast<int>(i / 2), static_cast<int>(i % 2));
    }
    auto* shapes = new QGroupBox(tr("Data (shape on [0, 24] h)"));
    auto* shapeRow = new QHBoxLayout(shapes);
    for (auto s : {ldp::TelemetryShape::TruncatedNormal, ldp::TelemetryShape::Uniform,
                   ldp::TelemetryShape::Constant}) {
        auto* box = new QCheckBox(shapeTitle(s));
        shapeBoxes_.push_back(box);
        shapeRow->addWidget(box);
    }
    buckets_ = new QSpinBox;
    buckets_->setRange(2, 4096);
    buckets_->setToolTip(tr("k equal buckets on [0, 24] hours (the telemetry thesis: 32)."));
    users_ = new QLineEdit;
    users_->setObjectName(QStringLiteral("ldpUsers"));
    users_->setToolTip(tr("Population sizes n, separated by commas (e.g. 1000, 1e4, 3e5)."));
    epsilons_ = new QLineEdit;
    epsilons_->setObjectName(QStringLiteral("ldpEpsilons"));
    epsilons_->setToolTip(tr("Values of ε, separated by commas."));
    repetitions_ = new QSpinBox;
    repetitions_->setRange(1, 10000);
    repetitions_->setToolTip(tr("Simulated collections per point (the telemetry thesis: 10)."));
    seed_ = new QLineEdit;
    seed_->setToolTip(tr("Seed of the simulation: the same seed gives the same figures."));
    postProcess_ = new QComboBox;
    postProcess_->addItem(tr("none (unbiased estimate)"), QStringLiteral("none"));
    postProcess_->addItem(tr("clamp negatives to 0"), QStringLiteral("clamp"));
    postProcess_->addItem(tr("project onto the simplex"), QStringLiteral("simplex"));
    postProcess_->setToolTip(
        tr("Applied to the estimate before both metrics (the Wasserstein "
           "distance clamps negative estimates to 0 in any case, as seed "
           "002 does)."));
    auto* form = new QFormLayout;
    form->addRow(tr("Buckets k"), buckets_);
    form->addRow(tr("Users n"), users_);
    form->addRow(tr("ε values"), epsilons_);
    form->addRow(tr("Repetitions"), repetitions_);
    form->addRow(tr("Seed"), seed_);
    form->addRow(tr("Post-processing"), postProcess_);

    preset_ = new QPushButton(tr("Telemetry thesis preset"));
    preset_->setToolTip(
        tr("k = 32 buckets on [0, 24] h; truncated-normal, uniform and constant "
           "data; dBitFlip with d = 1, 2, 4; n from 1 000 to 300 000; ε from "
           "0.1 to 10; 10 repetitions."));
    run_ = new QPushButton(tr("Run"));
    run_->setObjectName(QStringLiteral("ldpRun"));
    cancel_ = new QPushButton(tr("Cancel"));
    setRunButtons(run_, cancel_);
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(preset_);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);

    axis_ = new QComboBox;
    axis_->addItem(tr("users n"));
    axis_->addItem(tr("ε"));
    fixed_ = new QComboBox;
    fixed_->setObjectName(QStringLiteral("ldpFixed"));
    shapeFilter_ = new QComboBox;
    shapeFilter_->addItem(tr("all shapes"), -1);
    for (auto s : {ldp::TelemetryShape::TruncatedNormal, ldp::TelemetryShape::Uniform,
                   ldp::TelemetryShape::Constant}) {
        shapeFilter_->addItem(shapeTitle(s), static_cast<int>(s));
    }
    shapeFilter_->setCurrentIndex(1);
    expected_ = new QCheckBox(tr("Analytic expected max error (dashed)"));
    expected_->setChecked(true);
    auto* viewForm = new QFormLayout;
    viewForm->addRow(tr("Against"), axis_);
    viewForm->addRow(tr("At"), fixed_);
    viewForm->addRow(tr("Data"), shapeFilter_);
    viewForm->addRow(expected_);
    auto* viewBox = new QGroupBox(tr("View"));
    viewBox->setLayout(viewForm);

    makeStatusLine(QStringLiteral("ldpStatus"));
    statusLine()->setTextInteractionFlags(Qt::TextSelectableByMouse);
    comparison_ = new QLabel;
    comparison_->setObjectName(QStringLiteral("ldpComparison"));
    comparison_->setWordWrap(true);
    comparison_->setTextFormat(Qt::RichText);
    comparison_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* exportCsv = new QPushButton(tr("Export CSV…"));
    auto* exportPlot = new QPushButton(tr("Export plot…"));
    exportPlot->setToolTip(tr("PNG, SVG or PDF"));
    auto* exportRow = new QHBoxLayout;
    exportRow->addWidget(exportCsv);
    exportRow->addWidget(exportPlot);

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addWidget(protocols);
    sideLayout->addWidget(shapes);
    sideLayout->addLayout(form);
    sideLayout->addLayout(buttons);
    sideLayout->addWidget(statusLine());
    sideLayout->addWidget(viewBox);
    sideLayout->addWidget(comparison_);
    sideLayout->addLayout(exportRow);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, side->minimumSizeHint().width() + 24, 380);

    // Two stacked axis rects sharing one legend underneath.
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("ldpExperimentPlot"));
    plot_->setMinimumSize(420, 420);
    topTitle_ = addPlotTitle(plot_, tr("Histogram error max |f̂(v) − f(v)|"));
    bottomTitle_ = new PlotTitle(plot_, tr("Wasserstein-1 distance (hours)"), titleFont());
    plot_->plotLayout()->addElement(2, 0, bottomTitle_);
    bottom_ = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(3, 0, bottom_);
    auto* margins = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    bottom_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    for (QCPAxisRect* rect : {plot_->axisRect(), bottom_}) {
        makeLogAxis(rect->axis(QCPAxis::atBottom));
        makeLogAxis(rect->axis(QCPAxis::atLeft));
        rect->setupFullAxesBox(true);
    }
    plot_->axisRect()->axis(QCPAxis::atLeft)->setLabel(tr("max error (frequency, log)"));
    bottom_->axis(QCPAxis::atLeft)->setLabel(tr("W1 (hours, log)"));
    plot_->legend->setVisible(true);
    QFont lf = font();
    lf.setPointSizeF(lf.pointSizeF() * 0.9);
    plot_->legend->setFont(lf);
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(4, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot_->legend);
    // As many columns as fit the plot's width (at most 2): entries are never cut.
    wrapLegendToWidth(plot_, 2);
    plot_->plotLayout()->setRowStretchFactor(0, 0.01);
    plot_->plotLayout()->setRowStretchFactor(2, 0.01);
    plot_->plotLayout()->setRowStretchFactor(4, 0.01);

    placeBesideSidePanel(plot_, scroll);

    connect(preset_, &QPushButton::clicked, this,
            [this] { setSpec(ldp::telemetryExperimentPreset()); });
    connect(run_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
    connect(axis_, &QComboBox::activated, this, [this] {
        refreshFixedChoices();
        draw();
    });
    connect(fixed_, &QComboBox::activated, this, [this] { draw(); });
    connect(shapeFilter_, &QComboBox::activated, this, [this] { draw(); });
    connect(expected_, &QCheckBox::toggled, this, [this] { draw(); });
    connect(exportCsv, &QPushButton::clicked, this, &LdpExperimentPage::exportCsv);
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    applyPlotPalette(plot_, palette());
    applyAxisRectPalette(bottom_, palette());
}

void LdpExperimentPage::setSpec(const ldp::ExperimentSpec& spec) {
    for (std::size_t i = 0; i < protocolChoices_.size(); ++i) {
        const ldp::ProtocolSpec& c = protocolChoices_[i];
        const bool on = std::any_of(
            spec.protocols.begin(), spec.protocols.end(), [&](const ldp::ProtocolSpec& p) {
                return p.protocol == c.protocol &&
                       (p.protocol != ldp::Protocol::DBitFlip || p.bits == c.bits);
            });
        protocolBoxes_[i]->setChecked(on);
    }
    const ldp::TelemetryShape all[] = {ldp::TelemetryShape::TruncatedNormal,
                                       ldp::TelemetryShape::Uniform, ldp::TelemetryShape::Constant};
    for (std::size_t i = 0; i < shapeBoxes_.size(); ++i) {
        shapeBoxes_[i]->setChecked(std::find(spec.shapes.begin(), spec.shapes.end(), all[i]) !=
                                   spec.shapes.end());
    }
    buckets_->setValue(static_cast<int>(spec.buckets));
    std::vector<double> n(spec.populations.begin(), spec.populations.end());
    users_->setText(numberListText(n));
    epsilons_->setText(numberListText(spec.epsilons));
    // A list longer than its field shows its start (setText leaves the cursor at the end: the
    // field read "000, 50000, 100000…" at 1024 × 768).
    users_->setCursorPosition(0);
    epsilons_->setCursorPosition(0);
    repetitions_->setValue(static_cast<int>(spec.repetitions));
    seed_->setText(QString::number(spec.seed));
    postProcess_->setCurrentIndex(static_cast<int>(spec.postProcess));
}

Expected<ldp::ExperimentSpec> LdpExperimentPage::spec() const {
    ldp::ExperimentSpec s;
    for (std::size_t i = 0; i < protocolChoices_.size(); ++i) {
        if (protocolBoxes_[i]->isChecked()) {
            s.protocols.push_back(protocolChoices_[i]);
        }
    }
    const ldp::TelemetryShape all[] = {ldp::TelemetryShape::TruncatedNormal,
                                       ldp::TelemetryShape::Uniform, ldp::TelemetryShape::Constant};
    for (std::size_t i = 0; i < shapeBoxes_.size(); ++i) {
        if (shapeBoxes_[i]->isChecked()) {
            s.shapes.push_back(all[i]);
        }
    }
    if (s.protocols.empty()) {
        return Error{"choose at least one protocol"};
    }
    if (s.shapes.empty()) {
        return Error{"choose at least one data shape"};
    }
    s.buckets = static_cast<std::size_t>(buckets_->value());
    auto n = parseNumberList(users_->text(), tr("Users n"));
    if (!n) {
        return n.error();
    }
    for (double v : *n) {
        if (v < 1 || v > 1e15 || v != std::floor(v)) {
            return Error{"Users n: " + formatNumber(v) + " is not a whole number from 1 to 10^15"};
        }
        s.populations.push_back(static_cast<std::uint64_t>(v));
    }
    auto eps = parseNumberList(epsilons_->text(), tr("ε values"));
    if (!eps) {
        return eps.error();
    }
    s.epsilons = *eps;
    s.repetitions = static_cast<unsigned>(repetitions_->value());
    bool ok = false;
    s.seed = seed_->text().trimmed().toULongLong(&ok);
    if (!ok) {
        return Error{"Seed: a whole number from 0 to 2^64 − 1"};
    }
    s.postProcess = static_cast<ldp::FrequencyPostProcess>(postProcess_->currentIndex());
    if (auto st = s.validate(); !st) {
        return st.error();
    }
    return s;
}

bool LdpExperimentPage::run() {
    auto s = spec();
    if (!s) {
        setStatus(QString::fromStdString(s.error().message), true);
        return false;
    }
    runner_->cancel(QString::fromLatin1(kSlot));
    ranOnce_ = true;
    resultSpec_ = *s;
    points_.clear();
    nextProtocol_ = 0;
    setRunning(true);
    startedMs_ = QDateTime::currentMSecsSinceEpoch();
    refreshFixedChoices();
    draw();
    startNext();
    return true;
}

void LdpExperimentPage::startNext() {
    if (nextProtocol_ >= resultSpec_.protocols.size()) {
        setRunning(false);
        const double seconds =
            static_cast<double>(QDateTime::currentMSecsSinceEpoch() - startedMs_) / 1000;
        setStatus(tr("%L1 points (%2 protocols × %3 shapes × %4 n × %5 ε, %6 repetitions each) "
                     "in %7 s.")
                      .arg(points_.size())
                      .arg(resultSpec_.protocols.size())
                      .arg(resultSpec_.shapes.size())
                      .arg(resultSpec_.populations.size())
                      .arg(resultSpec_.epsilons.size())
                      .arg(resultSpec_.repetitions)
                      .arg(formatSignificant(seconds, 3)));
        Q_EMIT finished();
        return;
    }
    const std::size_t index = nextProtocol_++;
    ldp::ExperimentSpec one = resultSpec_;
    one.protocols = {resultSpec_.protocols[index]};
    setStatus(tr("Running %1 (%2 of %3)…")
                  .arg(QString::fromStdString(ldp::protocolLabel(one.protocols.front())))
                  .arg(index + 1)
                  .arg(resultSpec_.protocols.size()));
    using Result = Expected<ldp::ExperimentResult>;
    runner_->run<Result>(
        QString::fromLatin1(kSlot),
        [one](std::stop_token stop, JobProgress& progress) -> Result {
            return ldp::runExperiment(one, stop, [&progress](double f) { progress.set(f); });
        },
        [this, index](Result r) {
            if (!r) {
                setRunning(false);
                setStatus(QString::fromStdString(r.error().message), true);
                Q_EMIT finished();
                return;
            }
            for (ldp::ExperimentPoint p : r->points) {
                p.protocol = index;  // the job ran this protocol alone
                points_.push_back(p);
            }
            draw();
            startNext();
        },
        tr("Local DP experiment"), JobRunner::Lane::Background);
}

void LdpExperimentPage::cancel() {
    if (!isRunning()) {
        return;
    }
    runner_->cancel(QString::fromLatin1(kSlot));
    setRunning(false);
    setStatus(tr("Cancelled after %1 of %2 protocols; the curves shown are complete.")
                  .arg(nextProtocol_ > 0 ? nextProtocol_ - 1 : 0)
                  .arg(resultSpec_.protocols.size()));
    Q_EMIT finished();
}

int LdpExperimentPage::curveCount() const {
    return curves_;
}

void LdpExperimentPage::setAxis(Axis a) {
    axis_->setCurrentIndex(a == Axis::Population ? 0 : 1);
    refreshFixedChoices();
    draw();
}

void LdpExperimentPage::setFixedValue(double v) {
    for (int i = 0; i < fixed_->count(); ++i) {
        if (fixed_->itemData(i).toDouble() == v) {
            fixed_->setCurrentIndex(i);
        }
    }
    draw();
}

void LdpExperimentPage::refreshFixedChoices() {
    const bool againstN = axis_->currentIndex() == 0;
    const double previous = fixed_->currentData().toDouble();
    fixed_->clear();
    if (againstN) {
        for (double e : resultSpec_.epsilons) {
            fixed_->addItem(QStringLiteral("ε = %1").arg(formatSignificant(e, 6)), e);
        }
    } else {
        for (std::uint64_t n : resultSpec_.populations) {
            fixed_->addItem(tr("n = %L1").arg(n), static_cast<double>(n));
        }
    }
    int index = fixed_->findData(previous);
    if (index < 0 && againstN) {
        index =
            fixed_->findData(1.0);  // the telemetry study's histogram-error figures are at ε = 1
    }
    if (index < 0 && !againstN) {
        index = fixed_->findData(1e4);
    }
    fixed_->setCurrentIndex(index >= 0 ? index : 0);
}

void LdpExperimentPage::draw() {
    plot_->clearPlottables();
    plot_->clearItems();
    curves_ = 0;
    const bool againstN = axis_->currentIndex() == 0;
    const double fixed = fixed_->currentData().toDouble();
    const int shapeWanted = shapeFilter_->currentData().toInt();
    QCPAxisRect* top = plot_->axisRect();
    const QString xLabel = againstN ? tr("users n (log scale)") : tr("ε (log scale)");
    top->axis(QCPAxis::atBottom)->setLabel(xLabel);
    bottom_->axis(QCPAxis::atBottom)->setLabel(xLabel);
    const QString at = againstN ? QStringLiteral("ε = %1").arg(formatSignificant(fixed, 6))
                                : tr("n = %L1").arg(static_cast<qulonglong>(fixed));
    topTitle_->setText(tr("Histogram error max |f̂(v) − f(v)| at %1").arg(at));
    bottomTitle_->setText(tr("Wasserstein-1 distance (hours) at %1").arg(at));

    // Curves: protocol × shape, points at the fixed value of the other axis, in axis order.
    std::map<std::pair<std::size_t, int>, std::vector<const ldp::ExperimentPoint*>> curves;
    for (const ldp::ExperimentPoint& p : points_) {
        const int shape = static_cast<int>(p.shape);
        if (shapeWanted >= 0 && shape != shapeWanted) {
            continue;
        }
        if ((againstN && p.epsilon != fixed) ||
            (!againstN && static_cast<double>(p.users) != fixed)) {
            continue;
        }
        curves[{p.protocol, shape}].push_back(&p);
    }
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {0, 0}, xlo = HUGE_VAL, xhi = 0;
    auto track = [&](int panel, double y, double x) {
        if (y > 0 && std::isfinite(y)) {
            lo[panel] = std::min(lo[panel], y);
            hi[panel] = std::max(hi[panel], y);
        }
        xlo = std::min(xlo, x);
        xhi = std::max(xhi, x);
    };
    for (auto& [key, pts] : curves) {
        std::sort(pts.begin(), pts.end(), [&](const auto* a, const auto* b) {
            return againstN ? a->users < b->users : a->epsilon < b->epsilon;
        });
        const QColor colour = kColours[key.first % std::size(kColours)];
        const Qt::PenStyle style = kShapeStyles[key.second % 3];
        const QString name =
            QString::fromStdString(ldp::protocolLabel(resultSpec_.protocols[key.first])) +
            (shapeWanted >= 0
                 ? QString()
                 : QStringLiteral(", ") + shapeTitle(static_cast<ldp::TelemetryShape>(key.second)));
        QVector<double> x, maxErr, maxCi, w1, w1Ci, expected;
        for (const auto* p : pts) {
            const double xv = againstN ? static_cast<double>(p->users) : p->epsilon;
            x << xv;
            maxErr << p->maxError;
            maxCi << p->maxErrorCi95;
            w1 << p->wasserstein;
            w1Ci << p->wassersteinCi95;
            expected << p->expectedMaxError;
            track(0, p->maxError, xv);
            track(0, p->expectedMaxError, xv);
            track(1, p->wasserstein, xv);
        }
        for (int panel = 0; panel < 2; ++panel) {
            QCPAxisRect* rect = panel == 0 ? top : bottom_;
            QCPGraph* g =
                plot_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            g->setName(name);
            g->setPen(QPen(colour, 2, style));
            g->setScatterStyle(QCPScatterStyle(kShapeMarks[key.second % 3], colour, colour, 5));
            g->setData(x, panel == 0 ? maxErr : w1, true);
            if (panel == 1) {
                g->removeFromLegend();
            }
            auto* bars =
                new QCPErrorBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            bars->removeFromLegend();
            bars->setDataPlottable(g);
            bars->setData(panel == 0 ? maxCi : w1Ci);
            bars->setPen(QPen(colour, 1));
            ++curves_;
        }
        if (expected_->isChecked()) {
            QCPGraph* e = plot_->addGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
            QColor light = colour;
            light.setAlpha(170);
            e->setPen(QPen(light, 1.2, Qt::DashDotLine));
            e->setData(x, expected, true);
            e->removeFromLegend();
        }
    }
    if (expected_->isChecked() && curves_ > 0) {
        // One legend entry explaining the dashed lines.
        QCPGraph* key = plot_->addGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
        key->setPen(QPen(palette().color(QPalette::WindowText), 1.2, Qt::DashDotLine));
        key->setName(tr("analytic expectation (normal approx.)"));
    }
    // The seed's reported figures at this ε (against n, truncated normal shown).
    QStringList compare;
    const bool normalShown =
        shapeWanted < 0 || shapeWanted == static_cast<int>(ldp::TelemetryShape::TruncatedNormal);
    QCPGraph* seedMarks[2] = {nullptr, nullptr};
    for (const SeedFigure& f : kSeedFigures) {
        // Our measured value at the same point (dBitFlip d = 1, normal), if computed.
        const ldp::ExperimentPoint* ours = nullptr;
        for (const ldp::ExperimentPoint& p : points_) {
            const ldp::ProtocolSpec& ps = resultSpec_.protocols[p.protocol];
            if (ps.protocol == ldp::Protocol::DBitFlip && ps.bits == 1 &&
                p.shape == ldp::TelemetryShape::TruncatedNormal && p.epsilon == f.epsilon &&
                static_cast<double>(p.users) == f.users) {
                ours = &p;
            }
        }
        compare << tr("%1 at ε = %2, n = %L3: telemetry thesis ≈ %4, here %5")
                       .arg(f.wasserstein ? tr("W1") : tr("max error"),
                            formatSignificant(f.epsilon, 4))
                       .arg(static_cast<qulonglong>(f.users))
                       .arg(formatSignificant(f.value, 4))
                       .arg(ours ? QStringLiteral("%1 ± %2").arg(
                                       formatSignificant(
                                           f.wasserstein ? ours->wasserstein : ours->maxError, 3),
                                       formatSignificant(f.wasserstein ? ours->wassersteinCi95
                                                                       : ours->maxErrorCi95,
                                                         2))
                                 : tr("not computed"));
        if (!againstN || f.epsilon != fixed || !normalShown) {
            continue;
        }
        const int panel = f.wasserstein ? 1 : 0;
        QCPAxisRect* rect = panel == 0 ? top : bottom_;
        if (!seedMarks[panel]) {
            seedMarks[panel] =
                plot_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            seedMarks[panel]->setLineStyle(QCPGraph::lsNone);
            seedMarks[panel]->setScatterStyle(QCPScatterStyle(
                QCPScatterStyle::ssCross, palette().color(QPalette::WindowText), 12));
            seedMarks[panel]->setPen(QPen(palette().color(QPalette::WindowText), 2.5));
            // Short enough for one legend column beside the controls at 1024 × 768 (the longer
            // "telemetry thesis, reported (dBitFlip d = 1, normal)" was cut).
            seedMarks[panel]->setName(tr("thesis values (dBitFlip d = 1, normal)"));
            if (panel == 1 && seedMarks[0]) {
                seedMarks[panel]->removeFromLegend();
            }
        }
        seedMarks[panel]->addData(f.users, f.value);
        track(panel, f.value, f.users);
    }
    comparison_->setText(QStringLiteral("<b>%1</b><br>%2")
                             .arg(tr("Against the figures the telemetry thesis reports:"),
                                  compare.join(QStringLiteral("<br>"))));
    for (int panel = 0; panel < 2; ++panel) {
        QCPAxisRect* rect = panel == 0 ? top : bottom_;
        if (hi[panel] > 0) {
            rect->axis(QCPAxis::atLeft)->setRange(lo[panel] / 1.6, hi[panel] * 1.6);
        } else {
            rect->axis(QCPAxis::atLeft)->setRange(panel == 0 ? 1e-3 : 0.1, panel == 0 ? 1 : 10);
        }
        if (xhi > 0) {
            rect->axis(QCPAxis::atBottom)->setRange(xlo / 1.3, xhi * 1.3);
        } else {
            rect->axis(QCPAxis::atBottom)->setRange(againstN ? 1e3 : 0.1, againstN ? 3e5 : 10);
        }
    }
    plot_->legend->setVisible(plot_->legend->itemCount() > 0);
    if (points_.empty() && !isRunning()) {
        setStatus(ranOnce_ ? statusText()
                           : tr("Press Run (the preset runs when the tab is first shown)."));
    }
    replotWhenVisible(plot_);
}

QString LdpExperimentPage::toCsv() const {
    QString out = QStringLiteral(
        "protocol,shape,buckets,users,epsilon,repetitions,postprocess,max_error,max_error_ci95,"
        "wasserstein_hours,wasserstein_ci95,expected_max_error,expected_mse\n");
    for (const ldp::ExperimentPoint& p : points_) {
        out +=
            QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13\n")
                .arg(QString::fromStdString(ldp::protocolLabel(resultSpec_.protocols[p.protocol])),
                     QString::fromLatin1(ldp::telemetryShapeName(p.shape)))
                .arg(resultSpec_.buckets)
                .arg(p.users)
                .arg(formatSignificant(p.epsilon, 12))
                .arg(resultSpec_.repetitions)
                .arg(QString::fromLatin1(ldp::frequencyPostProcessName(resultSpec_.postProcess)))
                .arg(formatSignificant(p.maxError, 10), formatSignificant(p.maxErrorCi95, 10),
                     formatSignificant(p.wasserstein, 10), formatSignificant(p.wassersteinCi95, 10),
                     formatSignificant(p.expectedMaxError, 10),
                     formatSignificant(p.expectedMse, 10));
    }
    return out;
}

void LdpExperimentPage::exportCsv() {
    saveTextWithDialog(this, tr("Export the experiment"), QStringLiteral("ldp-experiment.csv"),
                       toCsv());
}

void LdpExperimentPage::showEvent(QShowEvent* event) {
    Page::showEvent(event);
    if (!ranOnce_ && !isRunning()) {
        run();
    }
}

void LdpExperimentPage::restyle() {
    applyAxisRectPalette(bottom_, palette());
    bottomTitle_->setTextColor(palette().color(QPalette::WindowText));
    draw();
}

}  // namespace dpx::ui
