#include "ui/tabs/histogram_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QStackedLayout>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/intervals/intervals.h"
#include "core/intervals/release_intervals.h"
#include "ui/widgets/axis_label.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

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

// `fg` at opacity `alpha` (0…255) over `bg`, as one opaque colour. Translucent fills send every
// bar through the raster engine's blending path (50 ms for 256 bars and their whiskers in the
// offscreen window, 3 ms opaque); the pre-mixed colour looks the same over the background.
QColor over(const QColor& fg, int alpha, const QColor& bg) {
    const double a = alpha / 255.0;
    return QColor::fromRgbF(static_cast<float>(a * fg.redF() + (1 - a) * bg.redF()),
                            static_cast<float>(a * fg.greenF() + (1 - a) * bg.greenF()),
                            static_cast<float>(a * fg.blueF() + (1 - a) * bg.blueF()));
}

}  // namespace

HistogramTab::HistogramTab(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot;
    fitAxisLabelsOnReplot(plot_);
    plot_->setObjectName(QStringLiteral("histogramPlot"));
    plot_->setMinimumSize(420, 300);
    plot_->setMouseTracking(true);
    plot_->legend->setVisible(true);
    plot_->legend->setBrush(QColor(255, 255, 255, 200));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot_->yAxis->setLabel(tr("count (records)"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    message_ = new QLabel;
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    message_->setObjectName(QStringLiteral("histogramMessage"));
    caption_ = new QLabel;
    caption_->setWordWrap(true);
    caption_->setObjectName(QStringLiteral("histogramCaption"));
    auto* holder = new QWidget;
    stack_ = new QStackedLayout(holder);
    stack_->addWidget(plot_);
    stack_->addWidget(message_);
    overlay_ = new QCheckBox(tr("Overlay"));
    overlay_->setToolTip(
        tr("Draw the noisy bars over the true ones (else side by side). "
           "Also View → Overlay."));
    connect(overlay_, &QCheckBox::toggled, this, &HistogramTab::overlayToggled);
    levelBox_ = new QComboBox;
    levelBox_->setObjectName(QStringLiteral("histogramLevel"));
    for (double l : {0.90, 0.95, 0.99}) {
        levelBox_->addItem(QString::fromStdString(levelPercentText(l)), l);
    }
    levelBox_->setCurrentIndex(1);
    levelBox_->setToolTip(
        tr("Level of the intervals: each bar's whisker and the caption's ± cover the noise with "
           "at least this probability (also saved in the session)"));
    connect(levelBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) {
            Q_EMIT intervalLevelChanged(levelBox_->itemData(i).toDouble());
        }
    });
    // Issue #22: the data are a sample of a population of N (DP Wizard #267): sampling error
    // next to the DP noise, beside the level it is stated at.
    sampleBox_ = new QDoubleSpinBox;
    sampleBox_->setObjectName(QStringLiteral("histogramSampleOf"));
    sampleBox_->setDecimals(0);
    sampleBox_->setRange(0, 1e10);
    sampleBox_->setSingleStep(1000);
    sampleBox_->setGroupSeparatorShown(true);
    sampleBox_->setPrefix(tr("sample of N = "));
    sampleBox_->setSpecialValueText(tr("not a sample"));
    sampleBox_->setToolTip(
        tr("The data are a simple random sample of a population of N rows: the caption and each "
           "bin's tooltip add the population estimate's sampling error (normal approximation "
           "with the finite-population correction, Cochran 1977), its DP noise and both "
           "together, from the noisy counts. 0: the data are the whole population."));
    // As wide as a population of a billion needs, not the whole range: the caption keeps the room.
    sampleBox_->setMaximumWidth(
        sampleBox_->fontMetrics().horizontalAdvance(tr("sample of N = 1,000,000,000")) + 40);
    connect(sampleBox_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        setSampling(v, designEffect_);
        Q_EMIT samplingChanged(samplePopulation_, designEffect_);
    });
    designBox_ = new QDoubleSpinBox;
    designBox_->setObjectName(QStringLiteral("histogramDesignEffect"));
    designBox_->setDecimals(2);
    designBox_->setRange(1, 1e6);
    designBox_->setSingleStep(0.1);
    designBox_->setValue(1);
    designBox_->setPrefix(tr("D = "));
    designBox_->setVisible(false);  // shown once N is set: "not a sample" keeps the room
    designBox_->setToolTip(
        tr("Design effect of the sample: 1 for a simple random sample; for a weighted survey "
           "its documented design effect, so that the sampling error uses the effective sample "
           "size n/D (Kish 1965). Saved in the session with N."));
    // As narrow as a design effect needs (a survey's is rarely above 10): the caption keeps the
    // room.
    designBox_->setMaximumWidth(designBox_->fontMetrics().horizontalAdvance(tr("D = 100.00")) + 40);
    connect(designBox_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        setSampling(samplePopulation_, v);
        Q_EMIT samplingChanged(samplePopulation_, designEffect_);
    });
    auto* top = new QHBoxLayout;
    top->addWidget(caption_, 1);
    top->addWidget(sampleBox_, 0, Qt::AlignTop);
    top->addWidget(designBox_, 0, Qt::AlignTop);
    top->addWidget(levelBox_, 0, Qt::AlignTop);
    top->addWidget(overlay_, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(holder, 1);
    connect(plot_, &QCustomPlot::mouseMove, this, &HistogramTab::hover);
    setMessage(tr("Computing…"));
}

void HistogramTab::setMessage(const QString& text) {
    message_->setText(text);
    stack_->setCurrentWidget(message_);
    caption_->clear();
}

QVector<double> HistogramTab::plottedNoisy() const {
    QVector<double> out;
    if (!noisyBars_) {
        return out;
    }
    for (auto it = noisyBars_->data()->constBegin(); it != noisyBars_->data()->constEnd(); ++it) {
        out << it->value;
    }
    return out;
}

void HistogramTab::setIntervalLevel(double level) {
    level_ = level;
    const QSignalBlocker block(levelBox_);
    int i = levelBox_->findData(level);
    if (i < 0) {
        levelBox_->addItem(QString::fromStdString(levelPercentText(level)), level);
        i = levelBox_->count() - 1;
    }
    levelBox_->setCurrentIndex(i);
}

void HistogramTab::setRelease(const ReleaseResult& r, EstimatorKind estimator, bool overlay,
                              const QString& xTitle) {
    release_ = r;
    estimator_ = estimator;
    xTitle_ = xTitle;
    {
        const QSignalBlocker block(overlay_);
        overlay_->setChecked(overlay);
    }
    if (!r.error.isEmpty()) {
        setMessage(r.error);
        return;
    }
    stack_->setCurrentWidget(plot_);
    // Intervals (issue #22): for a noise-per-bin mechanism at the chosen level, per bin and for
    // all bins at once; for a count mechanism the central range of each noisy bin at the level
    // (from the matrix's column) and the worst case over the true counts 0…n.
    bandLo_ = r.bandLo;
    bandHi_ = r.bandHi;
    bandLevel_ = 0.95;
    intervalText_.clear();
    estimateLo_.clear();
    estimateHi_.clear();
    std::optional<double> perBinHalfWidth;  // the h a release would state, for the estimate
    const QString pct = QString::fromStdString(levelPercentText(level_));
    if (r.calibrated && !r.truth.empty()) {
        auto t = tableIntervals(CellNoise::of(r.calibrated->noise), r.truth.size(), level_);
        if (t) {
            bandLevel_ = level_;
            perBinHalfWidth = t->perBin.halfWidth;
            for (std::size_t i = 0; i < r.truth.size(); ++i) {
                bandLo_[i] = r.truth[i] - t->perBin.halfWidth;
                bandHi_[i] = r.truth[i] + t->perBin.halfWidth;
            }
            intervalText_ =
                tr("%1 intervals of noisy − true: each bin ±%2; all %3 bins at once ±%4 (exact "
                   "for independent noise; Bonferroni ±%5).")
                    .arg(pct, formatErrorValue(t->perBin.halfWidth, 4))
                    .arg(r.truth.size())
                    .arg(formatErrorValue(t->exactMax.halfWidth, 4),
                         formatErrorValue(t->bonferroni.halfWidth, 4));
        }
    } else if (r.matrix && !r.truth.empty() && !r.local) {
        // Issue #22: count mechanisms follow the level too. Whiskers: the central level range of
        // the noisy count at the bin's true count j, quantiles (1 − L)/2 of column j (exact).
        const CountMechanism& m = *r.matrix;
        const double tail = (1 - level_) / 2;
        bool ok = true;
        for (std::size_t i = 0; i < r.truth.size() && ok; ++i) {
            const double c = r.truth[i];
            ok = c >= 0 && c < static_cast<double>(m.size());
            if (ok) {
                const auto j = static_cast<std::size_t>(c);
                bandLo_[i] = quantileOfColumn(m, j, tail, false);
                bandHi_[i] = quantileOfColumn(m, j, tail, true);
            }
        }
        auto t = countMechanismIntervals(m, r.truth.size(), level_);
        if (ok && t) {
            bandLevel_ = level_;
            perBinHalfWidth = t->perBin.halfWidth;
            intervalText_ =
                tr("Whiskers: the central %1 range of each noisy bin (exact, from the matrix). "
                   "Intervals a release states, valid for every true count 0…%2: each bin ±%3; "
                   "all %4 bins at once ±%5 (the worst true count, by exact enumeration).")
                    .arg(pct)
                    .arg(m.size() - 1)
                    .arg(formatErrorValue(t->perBin.halfWidth, 4))
                    .arg(r.truth.size())
                    .arg(formatErrorValue(t->exactMax.halfWidth, 4));
        } else {
            bandLo_ = r.bandLo;
            bandHi_ = r.bandHi;
        }
    }
    if (intervalText_.isEmpty() && !r.bandLo.empty()) {
        intervalText_ = r.bandText.isEmpty()
                            ? tr("Whiskers: the 95 % range of each noisy bin.")
                            : tr("Whiskers: the %1 (the level setting applies to central "
                                 "mechanisms).")
                                  .arg(r.bandText);
    }
    // After resize or NoiseFirst (issue #22): the interval a release states with its "intervals
    // after post-processing" option — a pivot on the noisy count y, widened to hold the estimate
    // v: [min(v, max(0, y − h)), max(v, max(0, y + h))] (core/intervals/release_intervals.h).
    const auto ei = static_cast<std::size_t>(
        std::find(allEstimators().begin(), allEstimators().end(), estimator) -
        allEstimators().begin());
    const bool moving =
        estimator == EstimatorKind::Resize || estimator == EstimatorKind::NoiseFirst;
    if (moving && perBinHalfWidth && ei < r.estimates.size() &&
        r.estimates[ei].size() == r.truth.size()) {
        std::size_t covered = 0;
        for (std::size_t i = 0; i < r.truth.size(); ++i) {
            auto b = postProcessedBounds(r.estimates[ei][i], r.noisy[i], *perBinHalfWidth);
            if (!b) {
                estimateLo_.clear();
                estimateHi_.clear();
                break;
            }
            estimateLo_.push_back(b->lower);
            estimateHi_.push_back(b->upper);
            covered += b->lower <= r.truth[i] && r.truth[i] <= b->upper ? 1 : 0;
        }
        if (estimateLo_.empty()) {
            intervalText_ += tr(" They are for the noisy draw, not the %1 estimate.")
                                 .arg(estimatorTitle(estimator));
        } else {
            intervalText_ +=
                QLatin1Char(' ') +
                tr("After %1 a release states each bin's interval around its noisy count, "
                   "widened to hold the estimate (drawn on the estimate's markers): here %2 of %3 "
                   "cover the true count.")
                    .arg(estimatorTitle(estimator))
                    .arg(covered)
                    .arg(r.truth.size());
        }
    }
    updateSamplingText();
    caption_->setText(
        QStringLiteral("<b>%1</b> — %2")
            .arg(r.mechanismTitle.toHtmlEscaped(), r.guarantee.toHtmlEscaped()) +
        (intervalText_.isEmpty() ? QString()
                                 : QStringLiteral("<br>%1").arg(intervalText_.toHtmlEscaped())) +
        (samplingText_.isEmpty() ? QString()
                                 : QStringLiteral("<br>%1").arg(samplingText_.toHtmlEscaped())));
    plot_->clearPlottables();
    plot_->clearItems();
    noisyBars_ = nullptr;
    const int bins = static_cast<int>(r.truth.size());
    QVector<double> x(bins), truth(bins), noisy(bins), lo(bins), hi(bins);
    for (int i = 0; i < bins; ++i) {
        x[i] = i;
        truth[i] = r.truth[static_cast<std::size_t>(i)];
        noisy[i] = r.noisy[static_cast<std::size_t>(i)];
        lo[i] = truth[i] - bandLo_[static_cast<std::size_t>(i)];
        hi[i] = bandHi_[static_cast<std::size_t>(i)] - truth[i];
    }
    const QPalette pal = palette();
    const QColor truthColour(150, 150, 150);
    const QColor noisyColour(31, 119, 180);
    const QColor estimateColour(255, 127, 14);
    auto* trueBars = new QCPBars(plot_->xAxis, plot_->yAxis);
    trueBars->setName(tr("true counts"));
    const QColor base = pal.color(QPalette::Base);
    trueBars->setPen(Qt::NoPen);
    trueBars->setBrush(over(truthColour, 170, base));
    noisyBars_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    noisyBars_->setName(r.local ? tr("collector's estimate from the simulated reports")
                                : tr("noisy draw (seeded simulation)"));
    noisyBars_->setPen(QPen(noisyColour.darker(130)));
    // Overlay: lighter, and narrower than the true bars so their tops stay visible beside it.
    noisyBars_->setBrush(over(noisyColour, overlay ? 140 : 200, base));
    // Axis-aligned rectangles and vertical whiskers: antialiasing only blurs their edges (and
    // costs the raster engine's slow path).
    trueBars->setAntialiased(false);
    trueBars->setAntialiasedFill(false);
    noisyBars_->setAntialiased(false);
    noisyBars_->setAntialiasedFill(false);
    if (overlay) {
        trueBars->setWidth(0.8);
        noisyBars_->setWidth(0.5);
    } else {
        auto* group = new QCPBarsGroup(plot_);
        trueBars->setWidth(0.4);
        noisyBars_->setWidth(0.4);
        trueBars->setBarsGroup(group);
        noisyBars_->setBarsGroup(group);
    }
    trueBars->setData(x, truth, true);
    noisyBars_->setData(x, noisy, true);
    // The interval of the noisy value at the level, around the truth.
    auto* band = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    band->setName(r.calibrated || r.bandText.isEmpty()
                      ? tr("%1 range of a noisy bin")
                            .arg(QString::fromStdString(levelPercentText(bandLevel_)))
                      : r.bandText);
    band->setDataPlottable(trueBars);
    band->setData(lo, hi);
    band->setPen(QPen(pal.color(QPalette::WindowText), 1));
    band->setWhiskerWidth(overlay ? 6 : 4);
    band->setAntialiased(false);
    double yMin = 0;
    double yMax = 1;
    for (int i = 0; i < bins; ++i) {
        yMin = std::min({yMin, noisy[i], truth[i] - lo[i]});
        yMax = std::max({yMax, noisy[i], truth[i] + hi[i]});
    }
    const auto e = static_cast<std::size_t>(
        std::find(allEstimators().begin(), allEstimators().end(), estimator) -
        allEstimators().begin());
    if (estimator != EstimatorKind::Identity && e < r.estimates.size() && !r.estimates[e].empty()) {
        auto* g = plot_->addGraph();
        g->setName(tr("estimate: %1").arg(estimatorTitle(estimator)));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, estimateColour,
                                           estimateColour, bins > 64 ? 5 : 8));
        QVector<double> y(bins);
        for (int i = 0; i < bins; ++i) {
            y[i] = r.estimates[e][static_cast<std::size_t>(i)];
            yMin = std::min(yMin, y[i]);
            yMax = std::max(yMax, y[i]);
        }
        g->setData(x, y, true);
        if (estimateLo_.size() == static_cast<std::size_t>(bins)) {
            QVector<double> below(bins), above(bins);
            for (int i = 0; i < bins; ++i) {
                const auto k = static_cast<std::size_t>(i);
                below[i] = y[i] - estimateLo_[k];
                above[i] = estimateHi_[k] - y[i];
                yMin = std::min(yMin, estimateLo_[k]);
                yMax = std::max(yMax, estimateHi_[k]);
            }
            auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
            bars->setName(tr("%1 interval stated after %2")
                              .arg(QString::fromStdString(levelPercentText(bandLevel_)),
                                   estimatorTitle(estimator)));
            bars->setDataPlottable(g);
            bars->setData(below, above);
            bars->setPen(QPen(estimateColour.darker(120), 1));
            bars->setWhiskerWidth(overlay ? 6 : 4);
            bars->setAntialiased(false);
        }
    }
    // x axis: bin labels (thinned when there are many), else positions.
    // Long labels (the cells of a table of many attributes, "q0 = 1, q1 = 0, …") would cover the
    // plot: the ticks then show the cell's index and hovering a bar shows its label.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int step = std::max(1, bins / 16);
    constexpr qsizetype kMaxTickLabel = 32;
    const bool indexTicks =
        bins > 8 && std::any_of(r.labels.begin(), r.labels.end(),
                                [](const QString& l) { return l.size() > kMaxTickLabel; });
    for (int i = 0; i < bins; i += step) {
        ticker->addTick(i,
                        indexTicks ? QLocale().toString(i) : r.labels[static_cast<std::size_t>(i)]);
    }
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setTickLabelRotation(bins > 8 && !indexTicks ? 35 : 0);
    const QString title = xTitle.isEmpty() ? tr("bin") : xTitle;
    plot_->xAxis->setLabel(
        indexTicks ? tr("%1 — index of the cell (hover a bar for its values)").arg(title) : title);
    plot_->xAxis->setRange(-0.7, bins - 0.3);
    const double pad = 0.06 * (yMax - yMin);
    plot_->yAxis->setRange(yMin < 0 ? yMin - pad : 0, yMax + 3 * pad);
    // Zero line when the noisy draw goes negative.
    if (yMin < 0) {
        auto* zero = new QCPItemStraightLine(plot_);
        zero->point1->setCoords(0, 0);
        zero->point2->setCoords(1, 0);
        zero->setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DashLine));
    }
    for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
        a->setBasePen(QPen(pal.color(QPalette::WindowText)));
        a->setTickPen(QPen(pal.color(QPalette::WindowText)));
        a->setSubTickPen(QPen(pal.color(QPalette::WindowText)));
        a->setTickLabelColor(pal.color(QPalette::WindowText));
        a->setLabelColor(pal.color(QPalette::WindowText));
        a->grid()->setPen(QPen(pal.color(QPalette::Midlight), 0, Qt::DotLine));
    }
    // Bins sit at x = 0, 1, ...: QCustomPlot's zero line would draw a solid line through bin 0.
    plot_->xAxis->grid()->setZeroLinePen(Qt::NoPen);
    plot_->yAxis->grid()->setZeroLinePen(QPen(pal.color(QPalette::Mid), 1));
    plot_->setBackground(pal.color(QPalette::Base));
    plot_->legend->setBrush(pal.color(QPalette::Base));
    plot_->legend->setTextColor(pal.color(QPalette::WindowText));
    plot_->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
    replotWhenVisible(plot_);
}

void HistogramTab::setSamplePopulation(double population) {
    setSampling(population, designEffect_);
}

void HistogramTab::setSampling(double population, double designEffect) {
    designBox_->setVisible(population > 0);
    if (population == samplePopulation_ && designEffect == designEffect_) {
        return;
    }
    samplePopulation_ = population;
    designEffect_ = designEffect;
    {
        const QSignalBlocker block(sampleBox_), blockDesign(designBox_);
        sampleBox_->setValue(population);
        designBox_->setValue(designEffect);
    }
    if (release_.error.isEmpty() && !release_.truth.empty()) {
        setRelease(release_, estimator_, overlay_->isChecked(), xTitle_);
    }
}

std::optional<SamplingIntervals> HistogramTab::binSampling(std::size_t i) const {
    const ReleaseResult& r = release_;
    if (!(samplePopulation_ > 0) || !r.calibrated || i >= r.noisy.size() || r.local) {
        return std::nullopt;
    }
    // As a release states it (core/intervals/release_intervals.h): from the noisy counts only,
    // n̂ = their sum clamped to [2·D, N], the effective sample n̂/D when D ≠ 1.
    double sum = 0;
    for (double v : r.noisy) {
        sum += v;
    }
    const double lo = 2 * designEffect_;
    const double n = std::clamp(sum, lo, std::max(lo, samplePopulation_));
    auto s = samplingIntervals(r.noisy[i], n, samplePopulation_, CellNoise::of(r.calibrated->noise),
                               level_, designEffect_ == 1 ? 0.0 : n / designEffect_);
    if (!s) {
        return std::nullopt;
    }
    return *s;
}

void HistogramTab::updateSamplingText() {
    samplingText_.clear();
    const ReleaseResult& r = release_;
    if (!(samplePopulation_ > 0) || r.truth.empty()) {
        return;
    }
    if (!r.calibrated || r.local) {
        samplingText_ = tr("Sample of N: sampling intervals are shown for the central noise "
                           "mechanisms (Laplace, geometric, Gaussian), not for %1.")
                            .arg(r.mechanismTitle);
        return;
    }
    if (samplePopulation_ < 2 * designEffect_) {
        samplingText_ = tr("Sample of N: the population must have at least 2 × D rows.");
        return;
    }
    double rows = 0;
    for (double v : r.truth) {
        rows += v;
    }
    if (samplePopulation_ < rows) {
        samplingText_ =
            tr("Sample of N = %1: the population cannot be smaller than the %2 rows "
               "of the data.")
                .arg(formatLocaleNumber(samplePopulation_, 15), formatLocaleNumber(rows, 15));
        return;
    }
    // The caption states the largest bin's (the widest sampling error); each tooltip its own.
    const auto k = static_cast<std::size_t>(std::max_element(r.noisy.begin(), r.noisy.end()) -
                                            r.noisy.begin());
    auto s = binSampling(k);
    if (!s) {
        samplingText_ = tr("Sample of N = %1: the DP noise at this ε cannot be combined with the "
                           "sampling error (too wide for the numerical integration).")
                            .arg(formatLocaleNumber(samplePopulation_, 15));
        return;
    }
    samplingText_ =
        tr("A sample of N = %1: %2 intervals of the population estimate N·noisy/n (n = the sum of "
           "the noisy counts) for the largest bin (%3): sampling ±%4 (Cochran 1977), DP noise ±%5, "
           "both together ±%6. Hover a bin for its own.")
            .arg(formatLocaleNumber(samplePopulation_, 15) +
                     (designEffect_ != 1
                          ? tr(" (design effect %1)").arg(formatLocaleNumber(designEffect_, 4))
                          : QString()),
                 QString::fromStdString(levelPercentText(level_)), r.labels[k],
                 formatErrorValue(s->sampling, 4), formatErrorValue(s->noise, 4),
                 formatErrorValue(s->combined, 4));
}

QString HistogramTab::binText(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= release_.truth.size()) {
        return {};
    }
    const auto k = static_cast<std::size_t>(i);
    QString text =
        tr("<b>%1</b><br>true: %2<br>noisy draw: %3<br>%4 range of the noisy value: "
           "%5 … %6")
            .arg(release_.labels[k].toHtmlEscaped(), formatLocaleNumber(release_.truth[k], 6),
                 formatLocaleNumber(release_.noisy[k], 6),
                 QString::fromStdString(levelPercentText(bandLevel_)),
                 formatLocaleNumber(k < bandLo_.size() ? bandLo_[k] : 0, 6),
                 formatLocaleNumber(k < bandHi_.size() ? bandHi_[k] : 0, 6));
    const auto e = static_cast<std::size_t>(
        std::find(allEstimators().begin(), allEstimators().end(), estimator_) -
        allEstimators().begin());
    if (estimator_ != EstimatorKind::Identity && e < release_.estimates.size() &&
        !release_.estimates[e].empty()) {
        text +=
            tr("<br>%1 estimate: %2")
                .arg(estimatorTitle(estimator_), formatLocaleNumber(release_.estimates[e][k], 6));
        if (k < estimateLo_.size()) {
            text += tr("<br>%1 interval a release states: %2 … %3")
                        .arg(QString::fromStdString(levelPercentText(bandLevel_)),
                             formatLocaleNumber(estimateLo_[k], 6),
                             formatLocaleNumber(estimateHi_[k], 6));
        }
    }
    if (auto sm = binSampling(k)) {
        text += tr("<br>population estimate: %1<br>%2 half-widths: sampling ±%3, DP noise ±%4, "
                   "combined ±%5")
                    .arg(formatLocaleNumber(sm->estimate, 6),
                         QString::fromStdString(levelPercentText(level_)),
                         formatErrorValue(sm->sampling, 4), formatErrorValue(sm->noise, 4),
                         formatErrorValue(sm->combined, 4));
    }
    return text;
}

void HistogramTab::hover(QMouseEvent* e) {
    const double x = plot_->xAxis->pixelToCoord(e->position().x());
    const int i = static_cast<int>(std::lround(x));
    const QString text = binText(i);
    if (text.isEmpty() || std::abs(x - i) > 0.45) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(e->globalPosition().toPoint(), text, plot_);
}

}  // namespace dpx::ui
