#include "ui/tabs/ldp/study_pages.h"

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
#include <QScrollArea>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <cmath>

#include "ui/model/job_runner.h"
#include "ui/tabs/ldp/ldp_tab.h"
#include "ui/widgets/file_export.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QColor kColours[] = {QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),
                           QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};

QString num(double v, int digits = 4) {
    return QString::number(v, 'g', digits);
}

}  // namespace

LdpStudyView::LdpStudyView(Mode mode, JobRunner* runner, QWidget* parent)
    : QWidget(parent), mode_(mode), runner_(runner) {
    buildUi();
    if (mode_ == Mode::Range) {
        setRangeSpec(ldp::rangeStudyPreset());
    } else {
        setMarginalSpec(ldp::marginalStudyPreset());
    }
    draw();
}

void LdpStudyView::buildUi() {
    const bool range = mode_ == Mode::Range;
    setObjectName(range ? QStringLiteral("ldpRangeStudy") : QStringLiteral("ldpMarginalStudy"));
    auto* methods = new QGroupBox(tr("Methods"));
    auto* grid = new QGridLayout(methods);
    if (range) {
        using ldp::Protocol;
        using ldp::RangeMethod;
        rangeMethods_ = {{RangeMethod::Flat, Protocol::OUE, 2},
                         {RangeMethod::Hierarchical, Protocol::OUE, 2},
                         {RangeMethod::HierarchicalConsistent, Protocol::OUE, 2},
                         {RangeMethod::HierarchicalConsistent, Protocol::OUE, 4},
                         {RangeMethod::HierarchicalConsistent, Protocol::OUE, 8},
                         {RangeMethod::HierarchicalConsistent, Protocol::OLH, 8},
                         {RangeMethod::Haar, Protocol::OUE, 2}};
        for (std::size_t i = 0; i < rangeMethods_.size(); ++i) {
            auto* box = new QCheckBox(QString::fromStdString(rangeMethods_[i].label()));
            methodBoxes_.push_back(box);
            grid->addWidget(box, static_cast<int>(i), 0);
        }
    } else {
        using ldp::MarginalMethod;
        using ldp::Protocol;
        marginalMethods_ = {{MarginalMethod::Inpht, Protocol::OUE},
                            {MarginalMethod::OneHot, Protocol::OUE},
                            {MarginalMethod::OneHot, Protocol::OLH},
                            {MarginalMethod::OneHot, Protocol::GRR}};
        for (std::size_t i = 0; i < marginalMethods_.size(); ++i) {
            auto* box = new QCheckBox(QString::fromStdString(marginalMethods_[i].label()));
            methodBoxes_.push_back(box);
            grid->addWidget(box, static_cast<int>(i / 2), static_cast<int>(i % 2));
        }
    }
    size_ = new QSpinBox;
    shape_ = new QComboBox;
    users_ = new QLineEdit;
    users_->setObjectName(QStringLiteral("studyUsers"));
    epsilons_ = new QLineEdit;
    epsilons_->setObjectName(QStringLiteral("studyEpsilons"));
    epsilons_->setToolTip(tr("Values of ε, separated by commas."));
    repetitions_ = new QSpinBox;
    repetitions_->setRange(1, 1000);
    seed_ = new QLineEdit;
    auto* form = new QFormLayout;
    if (range) {
        size_->setRange(2, 65536);
        size_->setToolTip(tr("D: the ordered domain (equal buckets on [0, 24] h)."));
        form->addRow(tr("Domain D"), size_);
        shape_->addItem(tr("truncated normal"),
                        static_cast<int>(ldp::TelemetryShape::TruncatedNormal));
        shape_->addItem(tr("uniform"), static_cast<int>(ldp::TelemetryShape::Uniform));
        shape_->addItem(tr("constant"), static_cast<int>(ldp::TelemetryShape::Constant));
        form->addRow(tr("Data"), shape_);
        samples_ = new QSpinBox;
        samples_->setRange(0, 1 << 20);
        samples_->setSpecialValueText(tr("all ranges"));
        samples_->setToolTip(
            tr("Ranges drawn uniformly from all D(D+1)/2 (0: all of them, for "
               "D ≤ 2048)."));
        form->addRow(tr("Users N"), users_);
        form->addRow(tr("Ranges"), samples_);
    } else {
        size_->setRange(2, 16);
        size_->setToolTip(tr("d binary attributes (2^d possible records)."));
        order_ = new QSpinBox;
        order_->setRange(1, 16);
        order_->setToolTip(tr("k: every k-way marginal is estimated and scored."));
        form->addRow(tr("Attributes d"), size_);
        form->addRow(tr("Marginal order k"), order_);
        shape_->addItem(tr("skewed: P(attribute i) = (i+1)/(d+2)"), 1);
        shape_->addItem(tr("uniform"), 0);
        form->addRow(tr("Data"), shape_);
        form->addRow(tr("Users N"), users_);
        negatives_ = new QComboBox;
        negatives_->addItem(tr("kept (unbiased)"), 0);
        negatives_->addItem(tr("projected onto the simplex"), 1);
        form->addRow(tr("Negative estimates"), negatives_);
    }
    form->addRow(tr("ε values"), epsilons_);
    form->addRow(tr("Repetitions"), repetitions_);
    form->addRow(tr("Seed"), seed_);
    auto* preset = new QPushButton(tr("Seed 001 preset"));
    run_ = new QPushButton(tr("Run"));
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(preset);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    status_ = new QLabel;
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_ = new QLabel;
    notes_->setWordWrap(true);
    notes_->setTextFormat(Qt::RichText);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->setText(
        range ? tr("Range answers are fractions of the population. Dashed: the analytic "
                   "prediction (flat) or bound (HH_B, HaarHRR) of seed 001 §5.4, with the "
                   "corrections in docs/mechanisms/local-range-queries.md.")
              : tr("Total variation ½·Σ|Ĉ − C| of each k-way marginal, averaged over all C(d, k) "
                   "marginals (seed 001 Definition 15)."));
    auto* exportCsv = new QPushButton(tr("Export CSV…"));
    auto* exportPlot = new QPushButton(tr("Export plot…"));
    auto* exportRow = new QHBoxLayout;
    exportRow->addWidget(exportCsv);
    exportRow->addWidget(exportPlot);

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addWidget(methods);
    sideLayout->addLayout(form);
    sideLayout->addLayout(buttons);
    sideLayout->addWidget(status_);
    sideLayout->addWidget(notes_);
    sideLayout->addLayout(exportRow);
    sideLayout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(side->minimumSizeHint().width() + 24);
    scroll->setMaximumWidth(380);

    plot_ = new QCustomPlot;
    plot_->setObjectName(range ? QStringLiteral("ldpRangePlot")
                               : QStringLiteral("ldpMarginalPlot"));
    plot_->setMinimumSize(420, 360);
    plot_->plotLayout()->insertRow(0);
    title_ = new QCPTextElement(plot_, QString(),
                                QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, title_);
    makeLogAxis(plot_->xAxis);
    makeLogAxis(plot_->yAxis);
    plot_->axisRect()->setupFullAxesBox(true);
    plot_->xAxis->setLabel(tr("ε (log scale)"));
    plot_->yAxis->setLabel(range ? tr("mean squared error of a range (fraction², log)")
                                 : tr("mean total variation (log)"));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(plot_, 1);
    layout->addWidget(scroll);

    connect(preset, &QPushButton::clicked, this, [this] {
        if (mode_ == Mode::Range) {
            setRangeSpec(ldp::rangeStudyPreset());
        } else {
            setMarginalSpec(ldp::marginalStudyPreset());
        }
    });
    connect(run_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
    connect(exportCsv, &QPushButton::clicked, this, &LdpStudyView::exportCsv);
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    applyPlotPalette(plot_, palette());
}

void LdpStudyView::setRangeSpec(const ldp::RangeStudySpec& s) {
    for (std::size_t i = 0; i < rangeMethods_.size(); ++i) {
        const auto& c = rangeMethods_[i];
        bool on = false;
        for (const auto& m : s.methods) {
            on = on || (m.method == c.method &&
                        (m.method == ldp::RangeMethod::Haar ||
                         (m.oracle == c.oracle &&
                          (m.method == ldp::RangeMethod::Flat || m.branching == c.branching))));
        }
        methodBoxes_[i]->setChecked(on);
    }
    size_->setValue(static_cast<int>(s.domain));
    shape_->setCurrentIndex(shape_->findData(static_cast<int>(s.shape)));
    users_->setText(QString::number(s.users));
    samples_->setValue(static_cast<int>(s.rangeSamples));
    epsilons_->setText(numberListText(s.epsilons));
    repetitions_->setValue(static_cast<int>(s.repetitions));
    seed_->setText(QString::number(s.seed));
}

void LdpStudyView::setMarginalSpec(const ldp::MarginalStudySpec& s) {
    for (std::size_t i = 0; i < marginalMethods_.size(); ++i) {
        const auto& c = marginalMethods_[i];
        bool on = false;
        for (const auto& m : s.methods) {
            on = on || (m.method == c.method &&
                        (m.method == ldp::MarginalMethod::Inpht || m.oracle == c.oracle));
        }
        methodBoxes_[i]->setChecked(on);
    }
    size_->setValue(static_cast<int>(s.attributes));
    order_->setValue(static_cast<int>(s.order));
    shape_->setCurrentIndex(s.skewed ? 0 : 1);
    users_->setText(QString::number(s.users));
    negatives_->setCurrentIndex(s.negatives == ldp::NegativeEstimates::Keep ? 0 : 1);
    epsilons_->setText(numberListText(s.epsilons));
    repetitions_->setValue(static_cast<int>(s.repetitions));
    seed_->setText(QString::number(s.seed));
}

namespace {

Expected<std::uint64_t> parseUsers(const QString& text) {
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok || !(v >= 1) || v != std::floor(v) || v > 1e15) {
        return Error{"Users N: '" + text.toStdString() + "' is not a whole number ≥ 1"};
    }
    return static_cast<std::uint64_t>(v);
}

Expected<std::uint64_t> parseSeed(const QString& text) {
    bool ok = false;
    const std::uint64_t v = text.trimmed().toULongLong(&ok);
    if (!ok) {
        return Error{"Seed: a whole number from 0 to 2^64 − 1"};
    }
    return v;
}

}  // namespace

Status LdpStudyView::readCommon(std::uint64_t& users, std::vector<double>& epsilons,
                                unsigned& repetitions, std::uint64_t& seed) const {
    auto n = parseUsers(users_->text());
    if (!n) {
        return n.error();
    }
    users = *n;
    auto eps = parseNumberList(epsilons_->text(), tr("ε values"));
    if (!eps) {
        return eps.error();
    }
    epsilons = *eps;
    repetitions = static_cast<unsigned>(repetitions_->value());
    auto sd = parseSeed(seed_->text());
    if (!sd) {
        return sd.error();
    }
    seed = *sd;
    return okStatus();
}

Expected<ldp::RangeStudySpec> LdpStudyView::rangeSpec() const {
    ldp::RangeStudySpec s;
    for (std::size_t i = 0; i < rangeMethods_.size(); ++i) {
        if (methodBoxes_[i]->isChecked()) {
            s.methods.push_back(rangeMethods_[i]);
        }
    }
    s.domain = static_cast<std::size_t>(size_->value());
    s.shape = static_cast<ldp::TelemetryShape>(shape_->currentData().toInt());
    s.rangeSamples = static_cast<std::size_t>(samples_->value());
    if (auto st = readCommon(s.users, s.epsilons, s.repetitions, s.seed); !st) {
        return st.error();
    }
    if (auto st = s.validate(); !st) {
        return st.error();
    }
    return s;
}

Expected<ldp::MarginalStudySpec> LdpStudyView::marginalSpec() const {
    ldp::MarginalStudySpec s;
    for (std::size_t i = 0; i < marginalMethods_.size(); ++i) {
        if (methodBoxes_[i]->isChecked()) {
            s.methods.push_back(marginalMethods_[i]);
        }
    }
    s.attributes = static_cast<unsigned>(size_->value());
    s.order = static_cast<unsigned>(order_->value());
    s.skewed = shape_->currentData().toInt() == 1;
    s.negatives = negatives_->currentData().toInt() == 0 ? ldp::NegativeEstimates::Keep
                                                         : ldp::NegativeEstimates::ProjectToSimplex;
    if (auto st = readCommon(s.users, s.epsilons, s.repetitions, s.seed); !st) {
        return st.error();
    }
    if (auto st = s.validate(); !st) {
        return st.error();
    }
    return s;
}

bool LdpStudyView::run() {
    const QString slot =
        mode_ == Mode::Range ? QStringLiteral("ldp-ranges") : QStringLiteral("ldp-marginals");
    ranOnce_ = true;
    if (mode_ == Mode::Range) {
        auto s = rangeSpec();
        if (!s) {
            setStatus(QString::fromStdString(s.error().message), true);
            return false;
        }
        const ldp::RangeStudySpec spec = *s;
        using Result = Expected<ldp::RangeStudyResult>;
        runner_->run<Result>(
            slot,
            [spec](std::stop_token stop, JobProgress& progress) -> Result {
                return ldp::runRangeStudy(spec, stop, [&progress](double f) { progress.set(f); });
            },
            [this, spec](Result r) {
                if (!r) {
                    done(QString::fromStdString(r.error().message), true);
                    return;
                }
                rangeRun_ = spec;
                range_ = std::move(r).value();
                hasResult_ = true;
                done(tr("%L1 points, %2 repetitions each, %L3 ranges per workload.")
                         .arg(range_.points.size())
                         .arg(spec.repetitions)
                         .arg(spec.rangeSamples == 0 ? spec.domain * (spec.domain + 1) / 2
                                                     : spec.rangeSamples),
                     false);
            },
            tr("Range-query study"), JobRunner::Lane::Background);
    } else {
        auto s = marginalSpec();
        if (!s) {
            setStatus(QString::fromStdString(s.error().message), true);
            return false;
        }
        const ldp::MarginalStudySpec spec = *s;
        using Result = Expected<ldp::MarginalStudyResult>;
        runner_->run<Result>(
            slot,
            [spec](std::stop_token stop, JobProgress& progress) -> Result {
                return ldp::runMarginalStudy(spec, stop,
                                             [&progress](double f) { progress.set(f); });
            },
            [this, spec](Result r) {
                if (!r) {
                    done(QString::fromStdString(r.error().message), true);
                    return;
                }
                marginalRun_ = spec;
                marginal_ = std::move(r).value();
                hasResult_ = true;
                done(tr("%L1 points, %2 repetitions each.")
                         .arg(marginal_.points.size())
                         .arg(spec.repetitions),
                     false);
            },
            tr("Marginal study"), JobRunner::Lane::Background);
    }
    running_ = true;
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    setStatus(tr("Running…"));
    return true;
}

void LdpStudyView::done(const QString& text, bool error) {
    running_ = false;
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    setStatus(text, error);
    draw();
    Q_EMIT finished();
}

void LdpStudyView::cancel() {
    if (!running_) {
        return;
    }
    runner_->cancel(mode_ == Mode::Range ? QStringLiteral("ldp-ranges")
                                         : QStringLiteral("ldp-marginals"));
    running_ = false;
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    setStatus(tr("Cancelled; the plot shows the previous run."));
    Q_EMIT finished();
}

void LdpStudyView::setStatus(const QString& text, bool error) {
    status_->setText(text);
    status_->setStyleSheet(error ? QStringLiteral("color: #d62728;") : QString());
}

QString LdpStudyView::statusText() const {
    return status_->text();
}

void LdpStudyView::draw() {
    plot_->clearPlottables();
    const bool range = mode_ == Mode::Range;
    title_->setText(range ? tr("Range queries under local DP: mean squared error against ε")
                          : tr("k-way marginals under local DP: mean total variation against ε"));
    double lo = HUGE_VAL, hi = 0, xlo = HUGE_VAL, xhi = 0;
    auto track = [&](double x, double y) {
        if (y > 0 && std::isfinite(y)) {
            lo = std::min(lo, y);
            hi = std::max(hi, y);
        }
        xlo = std::min(xlo, x);
        xhi = std::max(xhi, x);
    };
    const std::size_t methods = range ? rangeRun_.methods.size() : marginalRun_.methods.size();
    for (std::size_t m = 0; hasResult_ && m < methods; ++m) {
        const QColor colour = kColours[m % std::size(kColours)];
        QVector<double> x, y, ci, analytic;
        if (range) {
            for (const auto& p : range_.points) {
                if (p.method == m) {
                    x << p.epsilon;
                    y << p.mse;
                    ci << p.mseCi95;
                    analytic << p.analytic;
                    track(p.epsilon, p.mse);
                    track(p.epsilon, p.analytic);
                }
            }
        } else {
            for (const auto& p : marginal_.points) {
                if (p.method == m) {
                    x << p.epsilon;
                    y << p.meanTv;
                    ci << p.meanTvCi95;
                    track(p.epsilon, p.meanTv);
                }
            }
        }
        QCPGraph* g = plot_->addGraph();
        g->setName(QString::fromStdString(range ? rangeRun_.methods[m].label()
                                                : marginalRun_.methods[m].label()));
        g->setPen(QPen(colour, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 5));
        g->setData(x, y, true);
        auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(g);
        bars->setData(ci);
        bars->setPen(QPen(colour, 1));
        if (range) {
            QCPGraph* a = plot_->addGraph();
            QColor light = colour;
            light.setAlpha(170);
            a->setPen(QPen(light, 1.2, Qt::DashLine));
            a->setData(x, analytic, true);
            a->removeFromLegend();
        }
    }
    if (range && hasResult_) {
        QCPGraph* key = plot_->addGraph();
        key->setPen(QPen(palette().color(QPalette::WindowText), 1.2, Qt::DashLine));
        key->setName(tr("analytic prediction / bound"));
    }
    if (hi > 0) {
        plot_->yAxis->setRange(lo / 1.6, hi * 1.6);
        plot_->xAxis->setRange(xlo / 1.3, xhi * 1.3);
    } else {
        plot_->yAxis->setRange(1e-6, 1);
        plot_->xAxis->setRange(0.1, 10);
        if (!running_ && !ranOnce_) {
            setStatus(tr("Press Run (the preset runs when the study is first shown)."));
        }
    }
    plot_->legend->setVisible(plot_->legend->itemCount() > 0);
    replotWhenVisible(plot_);
}

QString LdpStudyView::toCsv() const {
    QString out;
    if (mode_ == Mode::Range) {
        out = QStringLiteral(
            "method,epsilon,domain,users,repetitions,mse,mse_ci95,analytic,"
            "analytic_kind\n");
        for (const auto& p : range_.points) {
            out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                       .arg(QString::fromStdString(rangeRun_.methods[p.method].label()),
                            num(p.epsilon, 12))
                       .arg(rangeRun_.domain)
                       .arg(rangeRun_.users)
                       .arg(rangeRun_.repetitions)
                       .arg(num(p.mse, 10), num(p.mseCi95, 10), num(p.analytic, 10),
                            QString::fromStdString(p.analyticKind));
        }
    } else {
        out = QStringLiteral(
            "method,epsilon,attributes,order,users,repetitions,mean_tv,"
            "mean_tv_ci95,max_tv\n");
        for (const auto& p : marginal_.points) {
            out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                       .arg(QString::fromStdString(marginalRun_.methods[p.method].label()),
                            num(p.epsilon, 12))
                       .arg(marginalRun_.attributes)
                       .arg(marginalRun_.order)
                       .arg(marginalRun_.users)
                       .arg(marginalRun_.repetitions)
                       .arg(num(p.meanTv, 10), num(p.meanTvCi95, 10), num(p.maxTv, 10));
        }
    }
    return out;
}

void LdpStudyView::exportCsv() {
    saveTextWithDialog(this, tr("Export the study"),
                       mode_ == Mode::Range ? QStringLiteral("ldp-ranges.csv")
                                            : QStringLiteral("ldp-marginals.csv"),
                       toCsv());
}

void LdpStudyView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!ranOnce_ && !running_) {
        run();
    }
}

void LdpStudyView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && plot_) {
        applyPlotPalette(plot_, palette());
        title_->setTextColor(palette().color(QPalette::WindowText));
        draw();
    }
}

// ---- means (1BitMean) -------------------------------------------------------------------------

LdpMeanView::LdpMeanView(JobRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
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
    auto* preset = new QPushButton(tr("Seed 002 preset"));
    run_ = new QPushButton(tr("Run"));
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(preset);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    status_ = new QLabel;
    status_->setWordWrap(true);
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
    sideLayout->addWidget(status_);
    sideLayout->addWidget(notes);
    sideLayout->addLayout(exportRow);
    sideLayout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(side->minimumSizeHint().width() + 24);
    scroll->setMaximumWidth(380);
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("ldpMeanPlot"));
    plot_->setMinimumSize(420, 360);
    plot_->plotLayout()->insertRow(0);
    title_ = new QCPTextElement(plot_, tr("Means under local DP (1BitMean): |μ̂ − μ| against n"),
                                QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, title_);
    makeLogAxis(plot_->xAxis);
    makeLogAxis(plot_->yAxis);
    plot_->axisRect()->setupFullAxesBox(true);
    plot_->xAxis->setLabel(tr("users n (log scale)"));
    plot_->yAxis->setLabel(tr("mean absolute error of the mean (hours, log)"));
    plot_->legend->setVisible(true);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(plot_, 1);
    layout->addWidget(scroll);
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

void LdpMeanView::setSpec(const ldp::MeanStudySpec& s) {
    shape_->setCurrentIndex(shape_->findData(static_cast<int>(s.shape)));
    buckets_->setValue(static_cast<int>(s.buckets));
    std::vector<double> n(s.populations.begin(), s.populations.end());
    users_->setText(numberListText(n));
    epsilons_->setText(numberListText(s.epsilons));
    repetitions_->setValue(static_cast<int>(s.repetitions));
    seed_->setText(QString::number(s.seed));
}

Expected<ldp::MeanStudySpec> LdpMeanView::spec() const {
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

bool LdpMeanView::run() {
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
            running_ = false;
            run_->setEnabled(true);
            cancel_->setEnabled(false);
            if (!r) {
                setStatus(QString::fromStdString(r.error().message), true);
            } else {
                ran_ = sp;
                result_ = std::move(r).value();
                hasResult_ = true;
                setStatus(tr("%L1 points, %2 repetitions each; true mean %3 h.")
                              .arg(result_.points.size())
                              .arg(sp.repetitions)
                              .arg(num(result_.trueMean, 5)));
            }
            draw();
            Q_EMIT finished();
        },
        tr("Mean study"), JobRunner::Lane::Background);
    running_ = true;
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    setStatus(tr("Running…"));
    return true;
}

void LdpMeanView::cancel() {
    if (!running_) {
        return;
    }
    runner_->cancel(QStringLiteral("ldp-means"));
    running_ = false;
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    setStatus(tr("Cancelled; the plot shows the previous run."));
    Q_EMIT finished();
}

void LdpMeanView::setStatus(const QString& text, bool error) {
    status_->setText(text);
    status_->setStyleSheet(error ? QStringLiteral("color: #d62728;") : QString());
}

QString LdpMeanView::statusText() const {
    return status_->text();
}

void LdpMeanView::draw() {
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
        g->setName(QStringLiteral("ε = %1").arg(num(eps, 6)));
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
    if (hasResult_) {
        QCPGraph* key = plot_->addGraph();
        key->setPen(QPen(palette().color(QPalette::WindowText), 1.2, Qt::DashLine));
        key->setName(tr("√(2/π)·σ (exact variance)"));
    }
    if (hi > 0) {
        plot_->yAxis->setRange(lo / 1.6, hi * 1.6);
        plot_->xAxis->setRange(xlo / 1.3, xhi * 1.3);
    } else {
        plot_->yAxis->setRange(1e-3, 10);
        plot_->xAxis->setRange(1e3, 3e5);
        if (!running_ && !ranOnce_) {
            setStatus(tr("Press Run (the preset runs when the study is first shown)."));
        }
    }
    plot_->legend->setVisible(plot_->legend->itemCount() > 0);
    replotWhenVisible(plot_);
}

QString LdpMeanView::toCsv() const {
    QString out = QStringLiteral(
        "shape,buckets,users,epsilon,repetitions,abs_error_hours,abs_error_ci95,"
        "expected_abs_error,true_mean\n");
    for (const auto& p : result_.points) {
        out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                   .arg(QString::fromLatin1(ldp::telemetryShapeName(ran_.shape)))
                   .arg(ran_.buckets)
                   .arg(p.users)
                   .arg(num(p.epsilon, 12))
                   .arg(ran_.repetitions)
                   .arg(num(p.absError, 10), num(p.absErrorCi95, 10), num(p.expectedAbsError, 10),
                        num(result_.trueMean, 10));
    }
    return out;
}

void LdpMeanView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!ranOnce_ && !running_) {
        run();
    }
}

void LdpMeanView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && plot_) {
        applyPlotPalette(plot_, palette());
        title_->setTextColor(palette().color(QPalette::WindowText));
        draw();
    }
}

// ---- the tab ----------------------------------------------------------------------------------

LdpExperimentTab::LdpExperimentTab(JobRunner* runner, QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("ldpExperimentTab"));
    chooser_ = new QComboBox;
    chooser_->setObjectName(QStringLiteral("ldpStudyChooser"));
    chooser_->addItem(tr("Telemetry histograms (seed 002): dBitFlip and other oracles"));
    chooser_->addItem(tr("Range queries (seed 001, ch. 5): flat, hierarchical, Haar"));
    chooser_->addItem(tr("Marginals (seed 001, ch. 4): INPHT and one-hot"));
    chooser_->addItem(tr("Means (seed 002): 1BitMean"));
    telemetry_ = new LdpExperimentView(runner);
    ranges_ = new LdpStudyView(LdpStudyView::Mode::Range, runner);
    marginals_ = new LdpStudyView(LdpStudyView::Mode::Marginal, runner);
    means_ = new LdpMeanView(runner);
    stack_ = new QStackedWidget;
    stack_->addWidget(telemetry_);
    stack_->addWidget(ranges_);
    stack_->addWidget(marginals_);
    stack_->addWidget(means_);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Study:")));
    top->addWidget(chooser_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(top);
    layout->addWidget(stack_, 1);
    connect(chooser_, &QComboBox::currentIndexChanged, this,
            [this](int i) { stack_->setCurrentIndex(i); });
    for (QObject* v : {static_cast<QObject*>(telemetry_), static_cast<QObject*>(ranges_),
                       static_cast<QObject*>(marginals_)}) {
        if (auto* t = qobject_cast<LdpExperimentView*>(v)) {
            connect(t, &LdpExperimentView::exportPlotRequested, this,
                    &LdpExperimentTab::exportPlotRequested);
            connect(t, &LdpExperimentView::finished, this, &LdpExperimentTab::finished);
        } else if (auto* s = qobject_cast<LdpStudyView*>(v)) {
            connect(s, &LdpStudyView::exportPlotRequested, this,
                    &LdpExperimentTab::exportPlotRequested);
            connect(s, &LdpStudyView::finished, this, &LdpExperimentTab::finished);
        }
    }
    connect(means_, &LdpMeanView::exportPlotRequested, this,
            &LdpExperimentTab::exportPlotRequested);
    connect(means_, &LdpMeanView::finished, this, &LdpExperimentTab::finished);
}

void LdpExperimentTab::showStudy(int index) {
    chooser_->setCurrentIndex(index);
}

int LdpExperimentTab::currentStudy() const {
    return chooser_->currentIndex();
}

QCustomPlot* LdpExperimentTab::currentPlot() const {
    switch (currentStudy()) {
        case 1:
            return ranges_->plot();
        case 2:
            return marginals_->plot();
        case 3:
            return means_->plot();
        default:
            return telemetry_->plot();
    }
}

bool LdpExperimentTab::busy() const {
    switch (currentStudy()) {
        case 1:
            return ranges_->isRunning() || !ranges_->hasResult();
        case 2:
            return marginals_->isRunning() || !marginals_->hasResult();
        case 3:
            return means_->isRunning() || !means_->hasResult();
        default:
            return telemetry_->isRunning() || telemetry_->points().empty();
    }
}

}  // namespace dpx::ui
