#include "ui/lessons/post_processing_lesson.h"

#include <QPushButton>
#include <algorithm>
#include <cmath>

#include "core/accuracy/expected_error.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/histogram/example_datasets.h"
#include "core/mechanisms/laplace_mechanism.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

// Three significant digits with a true minus sign.
QString num(double v) {
    return formatSignificant(v, 3).replace(QLatin1Char('-'), QChar(0x2212));
}

QString estimatorTitle(EstimatorKind kind) {
    switch (kind) {
        case EstimatorKind::Identity:
            return QObject::tr("identity (publish as is)");
        case EstimatorKind::Clamp:
            return QObject::tr("clamp (negatives to 0)");
        case EstimatorKind::Resize:
            return QObject::tr("resize (non-negative, same total)");
        default:
            return QString::fromLatin1(estimatorName(kind));
    }
}

// The Laplace noise of the histogram at ε (add/remove one record: Δ1 = 1).
Expected<NoiseDistribution> laplaceNoise(double epsilon) {
    auto m = calibrateLaplace({epsilon, 1});
    if (!m) {
        return m.error();
    }
    return m->noise;
}

Expected<double> exactSse(const std::vector<double>& truth, double epsilon, EstimatorKind kind) {
    auto noise = laplaceNoise(epsilon);
    if (!noise) {
        return noise.error();
    }
    TruthModel model;
    model.counts = truth;
    model.positions = {0, 1};
    auto e =
        exactExpectedError(model, *noise, {kind, noise->variance()}, {Metric::SSE, Scale::Counts});
    if (!e) {
        return e.error();
    }
    return e->value;
}

}  // namespace

PostProcessingLesson::PostProcessingLesson(LessonInfo info, QWidget* parent)
    : LessonPage(std::move(info), parent) {
    if (auto h = makeExample("two-bins")) {
        truth_ = h->countsAsDouble();
    }
    setSteps({
        {tr("One noisy release, three answers"), {}},
        {tr("Which answer is closer on average?"), {}},
        {tr("Post-processing is free"), {}},
    });
    addEpsilonControl(0.02, 10, 0.1);
    // Start on a draw where the empty bin comes out negative, so that the three answers differ
    // (a seeded simulation for the picture, not a release).
    while (seed_ < 100 && noisyRelease()[0] >= 0) {
        ++seed_;
    }
    again_ = new QPushButton(tr("Draw another release"));
    again_->setObjectName(QStringLiteral("ppDrawAgain"));
    connect(again_, &QPushButton::clicked, this, &PostProcessingLesson::drawAgain);
    controls()->addWidget(again_);
    // The whole curve is ε-independent, so it is computed once: 40 values of ε, three exact
    // two-bin integrals each.
    if (auto grid = logSpaced(0.02, 10, 40)) {
        curveEpsilons_ = *grid;
        for (std::size_t k = 0; k < kEstimators.size(); ++k) {
            for (double e : curveEpsilons_) {
                auto v = exactSse(truth_, e, kEstimators[k]);
                curves_[k].push_back(v ? *v : std::nan(""));
            }
        }
    }
    setStep(0);
}

Expected<double> PostProcessingLesson::expectedSse(EstimatorKind kind) const {
    return exactSse(truth_, epsilon(), kind);
}

std::vector<double> PostProcessingLesson::noisyRelease() const {
    std::vector<double> noisy = truth_;
    auto noise = laplaceNoise(epsilon());
    if (!noise) {
        return noisy;
    }
    SimulationRng rng(seed_, 0);
    for (double& v : noisy) {
        v += sampleNoise(*noise, rng);
    }
    return noisy;
}

Expected<std::vector<double>> PostProcessingLesson::answer(EstimatorKind kind) const {
    const std::vector<double> noisy = noisyRelease();
    auto noise = laplaceNoise(epsilon());
    if (!noise) {
        return noise.error();
    }
    return estimate({kind, noise->variance()}, noisy);
}

void PostProcessingLesson::drawAgain() {
    ++seed_;
    redraw();
}

void PostProcessingLesson::showStep(int step) {
    again_->setVisible(step == 0);
    if (truth_.size() != 2) {
        setNarrative(tr("The built-in two-bin example could not be loaded."));
        return;
    }
    if (step == 0) {
        drawRelease();
    } else if (step == 1) {
        drawErrors();
    } else {
        drawOverEpsilon();
    }
}

void PostProcessingLesson::drawRelease() {
    QCustomPlot* p = plot();
    const std::vector<double> noisy = noisyRelease();
    std::vector<std::vector<double>> series = {truth_};
    QStringList names = {tr("true counts")};
    for (EstimatorKind k : kEstimators) {
        auto a = answer(k);
        if (!a) {
            setNarrative(QString::fromStdString(a.error().message).toHtmlEscaped());
            return;
        }
        series.push_back(*a);
        names << estimatorTitle(k);
    }
    auto* group = new QCPBarsGroup(p);
    double lo = 0, hi = 0;
    for (std::size_t s = 0; s < series.size(); ++s) {
        auto* bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setName(names[static_cast<int>(s)]);
        bars->setData({1, 2}, {series[s][0], series[s][1]});
        bars->setWidth(0.18);
        bars->setBarsGroup(group);
        const QColor c = s == 0 ? textColor() : seriesColor(static_cast<int>(s) - 1);
        bars->setBrush(s == 0 ? QBrush(c, Qt::BDiagPattern) : QBrush(c));
        bars->setPen(QPen(c));
        lo = std::min({lo, series[s][0], series[s][1]});
        hi = std::max({hi, series[s][0], series[s][1]});
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTick(1, tr("bin 1"));
    ticker->addTick(2, tr("bin 2"));
    p->xAxis->setTicker(ticker);
    p->xAxis->setRange(0.4, 2.6);
    const double pad = 0.15 * (hi - lo + 1);
    p->yAxis->setRange(lo - pad, hi + 3 * pad);
    p->yAxis->setLabel(tr("count"));
    p->legend->setVisible(true);
    p->legend->setBrush(palette().color(QPalette::Base));
    p->legend->setTextColor(textColor());
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    auto clamp = answer(EstimatorKind::Clamp);
    auto resize = answer(EstimatorKind::Resize);
    setNarrative(
        tr("<p>The histogram [%1, %2] (Kerrigan 2019 §3.3) is released with the Laplace "
           "mechanism at <b>ε = %3</b> (noise scale b = 1/ε = %4 per bin).</p>"
           "<p>This simulated draw: noisy counts <b>[%5, %6]</b>. Clamp sets negatives to 0: [%7, "
           "%8]. "
           "Resize finds the closest non-negative histogram with the same total: [%9, %10].</p>"
           "<p>None of them looked at the true data again: they only transform the release.</p>")
            .arg(truth_[0])
            .arg(truth_[1])
            .arg(formatParameter(epsilon()), formatParameter(1 / epsilon()))
            .arg(num(noisy[0]), num(noisy[1]))
            .arg(num((*clamp)[0]), num((*clamp)[1]))
            .arg(num((*resize)[0]), num((*resize)[1])));
}

void PostProcessingLesson::drawErrors() {
    QCustomPlot* p = plot();
    std::array<double, 3> v{};
    for (std::size_t k = 0; k < kEstimators.size(); ++k) {
        auto e = expectedSse(kEstimators[k]);
        if (!e) {
            setNarrative(QString::fromStdString(e.error().message).toHtmlEscaped());
            return;
        }
        v[k] = *e;
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (std::size_t k = 0; k < kEstimators.size(); ++k) {
        const double x = static_cast<double>(k) + 1;
        auto* bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setData({x}, {v[k]});
        bars->setWidth(0.6);
        bars->setBrush(seriesColor(static_cast<int>(k)));
        bars->setPen(Qt::NoPen);
        ticker->addTick(x, QString::fromLatin1(estimatorName(kEstimators[k])));
        auto* t = new QCPItemText(p);
        t->position->setCoords(x, v[k]);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        t->setText(formatSignificant(v[k], 6));
        t->setFont(plotFont(1.2, true));
        t->setColor(textColor());
    }
    p->xAxis->setTicker(ticker);
    p->xAxis->setRange(0.4, 3.6);
    p->yAxis->setRange(0, *std::max_element(v.begin(), v.end()) * 1.2);
    p->yAxis->setLabel(tr("expected sum of squared errors (exact)"));
    const bool resizeWorse = v[2] > v[1];
    setNarrative(
        tr("<p>Averaged over all releases at ε = %1 (computed exactly, not simulated):</p>"
           "<p>identity %2, clamp <b>%3</b>, resize <b>%4</b>.</p>"
           "<p>%5</p>")
            .arg(formatParameter(epsilon()), formatSignificant(v[0], 6), formatSignificant(v[1], 6),
                 formatSignificant(v[2], 6))
            .arg(resizeWorse
                     ? tr("Here resizing is <b>worse</b> than clamping (Kerrigan 2019 §3.3): when "
                          "the empty bin's noise is negative, keeping the total moves that noise "
                          "onto the bin of 16, where clamping would simply have dropped it.")
                     : tr("At this ε resizing is better than clamping; at ε = 0.1 it is worse "
                          "(Kerrigan 2019 §3.3). Which estimator helps depends on the data and "
                          "on ε.")));
}

void PostProcessingLesson::drawOverEpsilon() {
    QCustomPlot* p = plot();
    for (std::size_t k = 0; k < kEstimators.size(); ++k) {
        auto* g = p->addGraph();
        g->setName(estimatorTitle(kEstimators[k]));
        g->setPen(QPen(seriesColor(static_cast<int>(k)), 3, k == 2 ? Qt::DashLine : Qt::SolidLine));
        for (std::size_t i = 0; i < curveEpsilons_.size(); ++i) {
            if (std::isfinite(curves_[k][i])) {
                g->addData(curveEpsilons_[i], curves_[k][i]);
            }
        }
    }
    auto* now = new QCPItemStraightLine(p);
    now->point1->setCoords(epsilon(), 1);
    now->point2->setCoords(epsilon(), 2);
    now->setPen(QPen(textColor(), 1.5, Qt::DotLine));
    makeLogAxis(p->xAxis);
    makeLogAxis(p->yAxis);
    p->yAxis->setNumberPrecision(6);  // 10000, 1000, 100: not 10⁴ and 10³ beside 100
    p->xAxis->setRange(0.02, 10);
    double top = 1, bottom = 1e300;
    for (const auto& c : curves_) {
        for (double v : c) {
            if (std::isfinite(v) && v > 0) {
                top = std::max(top, v);
                bottom = std::min(bottom, v);
            }
        }
    }
    p->yAxis->setRange(bottom / 2, top * 2);
    p->xAxis->setLabel(tr("ε"));
    p->yAxis->setLabel(tr("expected sum of squared errors (exact)"));
    p->legend->setVisible(true);
    p->legend->setBrush(palette().color(QPalette::Base));
    p->legend->setTextColor(textColor());
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    setNarrative(
        tr("<p>Clamp and resize only transform the noisy release; they never look at the data "
           "again. So all three answers are ε-DP with the <b>same ε</b>: post-processing cannot "
           "weaken differential privacy (Dwork & Roth 2014, Prop. 2.1).</p>"
           "<p>What changes is the error, and which estimator wins depends on ε and on the "
           "data (the dotted line marks ε = %1). Post-processing is free for privacy, not for "
           "accuracy: compare before publishing, as the Errors tab does for your own "
           "histogram.</p>")
            .arg(formatParameter(epsilon())));
}

}  // namespace dpx::ui
