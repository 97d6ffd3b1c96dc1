#include "ui/tabs/ldp/ldp_mean_page.h"

#include <QCheckBox>
#include <QComboBox>
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
#include <QStackedWidget>
#include <QVBoxLayout>
#include <cmath>

#include "ui/model/job_runner.h"
#include "ui/tabs/ldp/ldp_fields.h"
#include "ui/widgets/file_export.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QColor kColours[] = {QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),
                           QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};

}  // namespace

LdpMeanPage::LdpMeanPage(JobRunner* runner, QWidget* parent) : Page(parent), runner_(runner) {
    setObjectName(QStringLiteral("ldpMeanStudy"));
    shape_ = new QComboBox;
    shape_->addItem(tr("truncated normal"), static_cast<int>(ldp::TelemetryShape::TruncatedNormal));
    shape_->addItem(tr("uniform"), static_cast<int>(ldp::TelemetryShape::Uniform));
    shape_->addItem(tr("constant"), static_cast<int>(ldp::TelemetryShape::Constant));
    buckets_ = new QSpinBox;
    buckets_->setRange(1, 4096);
    buckets_->setToolTip(tr("Values are the centres of k equal buckets on [0, 24] h."));
    users_ = new QLineEdit;
    users_->setObjectName(QStringLiteral("meanUsers"));
    users_->setToolTip(tr("Population sizes n, separated by commas."));
    epsilons_ = new QLineEdit;
    epsilons_->setObjectName(QStringLiteral("meanEpsilons"));
    repetitions_ = new QSpinBox;
    repetitions_->setRange(1, 100000);
    seed_ = new QLineEdit;
    auto* form = new QFormLayout;
    form->addRow(tr("Data"), shape_);
    form->addRow(tr("Buckets k"), buckets_);
    form->addRow(tr("Users n"), users_);
    form->addRow(tr("ε values"), epsilons_);
    form->addRow(tr("Repetitions"), repetitions_);
    form->addRow(tr("Seed"), seed_);
    auto* preset = new QPushButton(tr("Telemetry thesis preset"));
    run_ = new QPushButton(tr("Run"));
    cancel_ = new QPushButton(tr("Cancel"));
    setRunButtons(run_, cancel_);
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(preset);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    makeStatusLine();
    auto* notes = new QLabel(
        tr("1BitMean (Ding, Kulkarni & Yekhanin 2017): each device holding x ∈ [0, 24] h sends one "
           "bit, 1 with probability 1/(e^ε+1) + (x/24)·(e^ε−1)/(e^ε+1); the collector's unbiased "
           "mean is (24/n)·Σ(b·(e^ε+1) − 1)/(e^ε−1). Dashed: √(2/π)·σ from the exact variance."));
    notes->setWordWrap(true);
    auto* exportCsv = new QPushButton(tr("Export CSV…"));
    auto* exportPlot = new QPushButton(tr("Export plot…"));
    auto* exportRow = new QHBoxLayout;
    exportRow->addWidget(exportCsv);
    exportRow->addWidget(exportPlot);
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addLayout(form);
    sideLayout->addLayout(buttons);
    sideLayout->addWidget(statusLine());
    sideLayout->addWidget(notes);
    sideLayout->addLayout(exportRow);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, side->minimumSizeHint().width() + 24, 380);
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("ldpMeanPlot"));
    plot_->setMinimumSize(420, 360);
    title_ = addPlotTitle(plot_, tr("Means under local DP (1BitMean): |μ̂ − μ| against n"));
    makeLogAxis(plot_->xAxis);
    makeLogAxis(plot_->yAxis);
    plot_->axisRect()->setupFullAxesBox(true);
    plot_->xAxis->setLabel(tr("users n (log scale)"));
    plot_->yAxis->setLabel(tr("mean absolute error of the mean (hours, log)"));
    plot_->legend->setVisible(true);
    placeBesideSidePanel(plot_, scroll);
    connect(preset, &QPushButton::clicked, this, [this] { setSpec(ldp::telemetryMeanPreset()); });
    connect(run_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
    connect(exportCsv, &QPushButton::clicked, this, [this] {
        saveTextWithDialog(this, tr("Export the mean study"), QStringLiteral("ldp-means.csv"),
                           toCsv());
    });
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    applyPlotPalette(plot_, palette());
    setSpec(ldp::telemetryMeanPreset());
    draw();
}

void LdpMeanPage::setSpec(const ldp::MeanStudySpec& s) {
    shape_->setCurrentIndex(shape_->findData(static_cast<int>(s.shape)));
    buckets_->setValue(static_cast<int>(s.buckets));
    std::vector<double> n(s.populations.begin(), s.populations.end());
    users_->setText(numberListText(n));
    epsilons_->setText(numberListText(s.epsilons));
    // A list longer than its field shows its start (setText leaves the cursor at the end: the
    // field read "000, 50000, 100000…" at 1024 × 768).
    users_->setCursorPosition(0);
    epsilons_->setCursorPosition(0);
    repetitions_->setValue(static_cast<int>(s.repetitions));
    seed_->setText(QString::number(s.seed));
}

Expected<ldp::MeanStudySpec> LdpMeanPage::spec() const {
    ldp::MeanStudySpec s;
    s.shape = static_cast<ldp::TelemetryShape>(shape_->currentData().toInt());
    s.buckets = static_cast<std::size_t>(buckets_->value());
    auto n = parseNumberList(users_->text(), tr("Users n"));
    if (!n) {
        return n.error();
    }
    for (double v : *n) {
        if (!(v >= 1) || v != std::floor(v) || v > 1e12) {
            return Error{"Users n: " + QString::number(v).toStdString() +
                         " is not a whole number from 1 to 10^12"};
        }
        s.populations.push_back(static_cast<std::uint64_t>(v));
    }
    auto eps = parseNumberList(epsilons_->text(), tr("ε values"));
    if (!eps) {
        return eps.error();
    }
    s.epsilons = *eps;
    s.repetitions = static_cast<unsigned>(repetitions_->value());
    auto sd = parseSeed(seed_->text());
    if (!sd) {
        return sd.error();
    }
    s.seed = *sd;
    if (auto st = s.validate(); !st) {
        return st.error();
    }
    return s;
}

bool LdpMeanPage::run() {
    ranOnce_ = true;
    auto s = spec();
    if (!s) {
        setStatus(QString::fromStdString(s.error().message), true);
        return false;
    }
    const ldp::MeanStudySpec sp = *s;
    using Result = Expected<ldp::MeanStudyResult>;
    runner_->run<Result>(
        QStringLiteral("ldp-means"),
        [sp](std::stop_token stop, JobProgress& progress) -> Result {
            return ldp::runMeanStudy(sp, stop, [&progress](double f) { progress.set(f); });
        },
        [this, sp](Result r) {
            setRunning(false);
            if (!r) {
                setStatus(QString::fromStdString(r.error().message), true);
            } else {
                ran_ = sp;
                result_ = std::move(r).value();
                hasResult_ = true;
                setStatus(tr("%L1 points, %2 repetitions each; true mean %3 h.")
                              .arg(result_.points.size())
                              .arg(sp.repetitions)
                              .arg(formatSignificant(result_.trueMean, 5)));
            }
            draw();
            Q_EMIT finished();
        },
        tr("Mean study"), JobRunner::Lane::Background);
    setRunning(true);
    setStatus(tr("Running…"));
    return true;
}

void LdpMeanPage::cancel() {
    if (!isRunning()) {
        return;
    }
    runner_->cancel(QStringLiteral("ldp-means"));
    setRunning(false);
    setStatus(tr("Cancelled; the plot shows the previous run."));
    Q_EMIT finished();
}

void LdpMeanPage::draw() {
    plot_->clearPlottables();
    double lo = HUGE_VAL, hi = 0, xlo = HUGE_VAL, xhi = 0;
    for (std::size_t k = 0; hasResult_ && k < ran_.epsilons.size(); ++k) {
        const double eps = ran_.epsilons[k];
        const QColor colour = kColours[k % std::size(kColours)];
        QVector<double> x, y, ci, expected;
        for (const auto& p : result_.points) {
            if (p.epsilon == eps) {
                x << static_cast<double>(p.users);
                y << p.absError;
                ci << p.absErrorCi95;
                expected << p.expectedAbsError;
                for (double v : {p.absError, p.expectedAbsError}) {
                    if (v > 0) {
                        lo = std::min(lo, v);
                        hi = std::max(hi, v);
                    }
                }
                xlo = std::min(xlo, x.back());
                xhi = std::max(xhi, x.back());
            }
        }
        QCPGraph* g = plot_->addGraph();
        g->setName(QStringLiteral("ε = %1").arg(formatSignificant(eps, 6)));
        g->setPen(QPen(colour, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 5));
        g->setData(x, y, true);
        auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(g);
        bars->setData(ci);
        bars->setPen(QPen(colour, 1));
        QCPGraph* e = plot_->addGraph();
        QColor light = colour;
        light.setAlpha(170);
        e->setPen(QPen(light, 1.2, Qt::DashLine));
        e->setData(x, expected, true);
        e->removeFromLegend();
    }
    finishCurvePlot(plot_, hasResult_ ? tr("√(2/π)·σ (exact variance)") : QString(),
                    {lo, hi, xlo, xhi}, {1e-3, 10, 1e3, 3e5},
                    !isRunning() && !ranOnce_
                        ? tr("Press Run (the preset runs when the study is first shown).")
                        : QString());
}

QString LdpMeanPage::toCsv() const {
    QString out = QStringLiteral(
        "shape,buckets,users,epsilon,repetitions,abs_error_hours,abs_error_ci95,"
        "expected_abs_error,true_mean\n");
    for (const auto& p : result_.points) {
        out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                   .arg(QString::fromLatin1(ldp::telemetryShapeName(ran_.shape)))
                   .arg(ran_.buckets)
                   .arg(p.users)
                   .arg(formatSignificant(p.epsilon, 12))
                   .arg(ran_.repetitions)
                   .arg(formatSignificant(p.absError, 10), formatSignificant(p.absErrorCi95, 10),
                        formatSignificant(p.expectedAbsError, 10),
                        formatSignificant(result_.trueMean, 10));
    }
    return out;
}

void LdpMeanPage::showEvent(QShowEvent* event) {
    Page::showEvent(event);
    if (!ranOnce_ && !isRunning()) {
        run();
    }
}

void LdpMeanPage::restyle() {
    draw();
}

}  // namespace dpx::ui
