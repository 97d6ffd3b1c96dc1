#include "ui/tabs/ldp/ldp_study_page.h"

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

LdpStudyPage::LdpStudyPage(Mode mode, JobRunner* runner, QWidget* parent)
    : Page(parent), mode_(mode), runner_(runner) {
    buildUi();
    if (mode_ == Mode::Range) {
        setRangeSpec(ldp::rangeStudyPreset());
    } else {
        setMarginalSpec(ldp::marginalStudyPreset());
    }
    draw();
}

void LdpStudyPage::buildUi() {
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
    auto* preset = new QPushButton(tr("Kulkarni thesis preset"));
    run_ = new QPushButton(tr("Run"));
    cancel_ = new QPushButton(tr("Cancel"));
    setRunButtons(run_, cancel_);
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(preset);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    makeStatusLine();
    statusLine()->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_ = new QLabel;
    notes_->setWordWrap(true);
    notes_->setTextFormat(Qt::RichText);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->setText(
        range ? tr("Range answers are fractions of the population. Dashed: the analytic "
                   "prediction (flat) or bound (HH_B, HaarHRR) of Kulkarni's thesis §5.4, with the "
                   "corrections in docs/mechanisms/local-range-queries.md.")
              : tr("Total variation ½·Σ|Ĉ − C| of each k-way marginal, averaged over all C(d, k) "
                   "marginals (Kulkarni thesis, Definition 15)."));
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
    sideLayout->addWidget(statusLine());
    sideLayout->addWidget(notes_);
    sideLayout->addLayout(exportRow);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, side->minimumSizeHint().width() + 24, 380);

    plot_ = new QCustomPlot;
    plot_->setObjectName(range ? QStringLiteral("ldpRangePlot")
                               : QStringLiteral("ldpMarginalPlot"));
    plot_->setMinimumSize(420, 360);
    title_ = addPlotTitle(plot_);
    makeLogAxis(plot_->xAxis);
    makeLogAxis(plot_->yAxis);
    plot_->axisRect()->setupFullAxesBox(true);
    plot_->xAxis->setLabel(tr("ε (log scale)"));
    plot_->yAxis->setLabel(range ? tr("mean squared error of a range (fraction², log)")
                                 : tr("mean total variation (log)"));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    placeBesideSidePanel(plot_, scroll);

    connect(preset, &QPushButton::clicked, this, [this] {
        if (mode_ == Mode::Range) {
            setRangeSpec(ldp::rangeStudyPreset());
        } else {
            setMarginalSpec(ldp::marginalStudyPreset());
        }
    });
    connect(run_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
    connect(exportCsv, &QPushButton::clicked, this, &LdpStudyPage::exportCsv);
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    applyPlotPalette(plot_, palette());
}

void LdpStudyPage::setRangeSpec(const ldp::RangeStudySpec& s) {
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
    epsilons_->setCursorPosition(0);  // a long list shows its start
    repetitions_->setValue(static_cast<int>(s.repetitions));
    seed_->setText(QString::number(s.seed));
}

void LdpStudyPage::setMarginalSpec(const ldp::MarginalStudySpec& s) {
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
    epsilons_->setCursorPosition(0);  // a long list shows its start
    repetitions_->setValue(static_cast<int>(s.repetitions));
    seed_->setText(QString::number(s.seed));
}

Status LdpStudyPage::readCommon(std::uint64_t& users, std::vector<double>& epsilons,
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

Expected<ldp::RangeStudySpec> LdpStudyPage::rangeSpec() const {
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

Expected<ldp::MarginalStudySpec> LdpStudyPage::marginalSpec() const {
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

bool LdpStudyPage::run() {
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
    setRunning(true);
    setStatus(tr("Running…"));
    return true;
}

void LdpStudyPage::done(const QString& text, bool error) {
    setRunning(false);
    setStatus(text, error);
    draw();
    Q_EMIT finished();
}

void LdpStudyPage::cancel() {
    if (!isRunning()) {
        return;
    }
    runner_->cancel(mode_ == Mode::Range ? QStringLiteral("ldp-ranges")
                                         : QStringLiteral("ldp-marginals"));
    setRunning(false);
    setStatus(tr("Cancelled; the plot shows the previous run."));
    Q_EMIT finished();
}

void LdpStudyPage::draw() {
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
    finishCurvePlot(plot_, range && hasResult_ ? tr("analytic prediction / bound") : QString(),
                    {lo, hi, xlo, xhi}, {1e-6, 1, 0.1, 10},
                    !isRunning() && !ranOnce_
                        ? tr("Press Run (the preset runs when the study is first shown).")
                        : QString());
}

QString LdpStudyPage::toCsv() const {
    QString out;
    if (mode_ == Mode::Range) {
        out = QStringLiteral(
            "method,epsilon,domain,users,repetitions,mse,mse_ci95,analytic,"
            "analytic_kind\n");
        for (const auto& p : range_.points) {
            out +=
                QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                    .arg(QString::fromStdString(rangeRun_.methods[p.method].label()),
                         formatSignificant(p.epsilon, 12))
                    .arg(rangeRun_.domain)
                    .arg(rangeRun_.users)
                    .arg(rangeRun_.repetitions)
                    .arg(formatSignificant(p.mse, 10), formatSignificant(p.mseCi95, 10),
                         formatSignificant(p.analytic, 10), QString::fromStdString(p.analyticKind));
        }
    } else {
        out = QStringLiteral(
            "method,epsilon,attributes,order,users,repetitions,mean_tv,"
            "mean_tv_ci95,max_tv\n");
        for (const auto& p : marginal_.points) {
            out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                       .arg(QString::fromStdString(marginalRun_.methods[p.method].label()),
                            formatSignificant(p.epsilon, 12))
                       .arg(marginalRun_.attributes)
                       .arg(marginalRun_.order)
                       .arg(marginalRun_.users)
                       .arg(marginalRun_.repetitions)
                       .arg(formatSignificant(p.meanTv, 10), formatSignificant(p.meanTvCi95, 10),
                            formatSignificant(p.maxTv, 10));
        }
    }
    return out;
}

void LdpStudyPage::exportCsv() {
    saveTextWithDialog(this, tr("Export the study"),
                       mode_ == Mode::Range ? QStringLiteral("ldp-ranges.csv")
                                            : QStringLiteral("ldp-marginals.csv"),
                       toCsv());
}

void LdpStudyPage::showEvent(QShowEvent* event) {
    Page::showEvent(event);
    if (!ranOnce_ && !isRunning()) {
        run();
    }
}

void LdpStudyPage::restyle() {
    draw();
}

}  // namespace dpx::ui
