#include "ui/lessons/what_epsilon_lesson.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/teaching/teaching.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

WhatEpsilonLesson::WhatEpsilonLesson(LessonInfo info, QWidget* parent)
    : LessonPage(std::move(info), parent) {
    setSteps({
        {tr("One release, many possible outputs"), {}},
        {tr("With and without one person"), {}},
        {tr("At most e^ε times more likely"), {}},
        {tr("The attacker's best error rates"), {}},
    });
    addEpsilonControl(0.05, 10, 1);
    setStep(0);
}

void WhatEpsilonLesson::showStep(int step) {
    switch (step) {
        case 0:
            drawDots(false);
            break;
        case 1:
            drawDots(true);
            break;
        case 2:
            drawRatio();
            break;
        default:
            drawRegion();
            break;
    }
}

void WhatEpsilonLesson::drawDots(bool both) {
    QCustomPlot* p = plot();
    const double b = 1 / epsilon();
    // Columns of width b/2 (about a dozen dots in the tallest); dots stack upwards for the data
    // with the person and downwards for the data without.
    const double width = b / 2;
    const double lo = kCountWithout + 0.5 - 4.5 * b, hi = kCountWithout + 0.5 + 4.5 * b;
    int tallest = 1;
    for (int side = 0; side < (both ? 2 : 1); ++side) {
        const double center = side == 0 ? kCountWithout + 1 : kCountWithout;
        auto q = teaching::laplaceQuantiles(center, b, kDots);
        if (!q) {
            setNarrative(QString::fromStdString(q.error().message).toHtmlEscaped());
            return;
        }
        auto* dots = p->addGraph();
        dots->setLineStyle(QCPGraph::lsNone);
        dots->setName(side == 0 ? tr("with the person (true count %1)").arg(kCountWithout + 1)
                                : tr("without (true count %1)").arg(kCountWithout));
        std::map<long, int> stacks;
        for (double v : *q) {
            const long column = std::lround(std::floor((v - lo) / width));
            const int k = ++stacks[column];
            tallest = std::max(tallest, k);
            dots->addData(lo + (static_cast<double>(column) + 0.5) * width,
                          side == 0 ? k - 0.5 : -(k - 0.5));
        }
        dots->setProperty("side", side);
    }
    // Dots as large as a column is wide, on screen: the axis rect is about 80% of the plot.
    const double pxPerColumn = p->width() * 0.8 / ((hi - lo) / width);
    const double pxPerRow = p->height() * 0.75 / (both ? 2.0 * tallest + 2 : tallest + 1.0);
    const double size = std::max(4.0, 0.9 * std::min(pxPerColumn, pxPerRow));
    for (int i = 0; i < p->graphCount(); ++i) {
        p->graph(i)->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, seriesColor(i), size));
    }
    p->xAxis->setRange(lo, hi);
    p->yAxis->setRange(both ? -tallest - 1.0 : 0.0, tallest + 1.0);
    p->yAxis->setTickLabels(false);
    p->yAxis->setTicks(false);
    p->xAxis->setLabel(
        tr("released count (true count + Laplace noise, b = 1/ε = %1)").arg(formatParameter(b)));
    p->yAxis->setLabel(both ? tr("without (below)  ·  with (above)")
                            : tr("each dot: 1 in %1").arg(kDots));
    auto* truth = new QCPItemStraightLine(p);
    truth->point1->setCoords(kCountWithout + 1, 0);
    truth->point2->setCoords(kCountWithout + 1, 1);
    truth->setPen(QPen(seriesColor(0), 1.5, Qt::DashLine));
    if (both) {
        auto* truth0 = new QCPItemStraightLine(p);
        truth0->point1->setCoords(kCountWithout, 0);
        truth0->point2->setCoords(kCountWithout, 1);
        truth0->setPen(QPen(seriesColor(1), 1.5, Qt::DashLine));
        p->legend->setVisible(true);
        p->legend->setBrush(palette().color(QPalette::Base));
        p->legend->setTextColor(textColor());
        // Top left: the tallest stacks of dots are in the middle, and at the right they would
        // run under the legend (the dots above 41 were hidden at 1024 × 768).
        p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    }
    const double halfWithin = b * std::log(2.0);  // half the dots lie within ± b ln 2
    if (!both) {
        setNarrative(tr("<p>A count of %1 people is released with the Laplace mechanism at "
                        "<b>ε = %2</b>. The release is random: each of the %3 dots is one equally "
                        "likely outcome, a <i>quantile dot plot</i> (Kay, Kola, Hullman & Munson "
                        "2016).</p><p>Half the dots lie within ±%4 of the true count (b·ln 2); a "
                        "smaller ε spreads them wider. Move ε and watch.</p>")
                         .arg(kCountWithout + 1)
                         .arg(formatParameter(epsilon()))
                         .arg(kDots)
                         .arg(formatSignificant(halfWithin, 3)));
    } else {
        setNarrative(tr("<p>The same release for the data with one more person (count %1, up) "
                        "and without them (count %2, down).</p><p>At ε = %3 the two clouds of "
                        "dots %4. Seeing one output, an observer cannot tell well which data it "
                        "came from — that is what protects the person.</p>")
                         .arg(kCountWithout + 1)
                         .arg(kCountWithout)
                         .arg(formatParameter(epsilon()))
                         .arg(epsilon() < 2 ? tr("overlap almost completely")
                                            : tr("are clearly apart: the person is exposed")));
    }
}

void WhatEpsilonLesson::drawRatio() {
    QCustomPlot* p = plot();
    const double eps = epsilon();
    const double b = 1 / eps;
    const double lo = kCountWithout - 3 - 2 * b, hi = kCountWithout + 4 + 2 * b;
    auto* ratio = p->addGraph();
    ratio->setName(tr("likelihood ratio P(output | with) / P(output | without)"));
    ratio->setPen(QPen(seriesColor(0), 3));
    const int n = 600;
    for (int i = 0; i < n; ++i) {
        const double o = lo + (hi - lo) * i / (n - 1);
        ratio->addData(o, std::exp(teaching::laplaceLogLikelihoodRatio(b, kCountWithout, o)));
    }
    for (const double level : {std::exp(eps), std::exp(-eps)}) {
        auto* line = new QCPItemStraightLine(p);
        line->point1->setCoords(lo, level);
        line->point2->setCoords(hi, level);
        line->setPen(QPen(seriesColor(1), 2, Qt::DashLine));
        auto* t = new QCPItemText(p);
        t->position->setCoords(lo, level);
        t->setPositionAlignment(Qt::AlignLeft | (level > 1 ? Qt::AlignBottom : Qt::AlignTop));
        t->setText(level > 1 ? tr(" e^ε = %1").arg(formatSignificant(level, 4))
                             : tr(" e^−ε = %1").arg(formatSignificant(level, 4)));
        t->setFont(plotFont(1.0, true));
        t->setColor(seriesColor(1));
    }
    makeLogAxis(p->yAxis);
    // Ticks at powers of 2 (½, 1, 2, 4 at ε = 1): powers of 10 would label only "1".
    if (eps < 3) {
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(2);
        ticker->setSubTickCount(0);
        p->yAxis->setTicker(ticker);
    }
    p->yAxis->setRange(std::exp(-eps) / 2.5, std::exp(eps) * 2.5);
    p->xAxis->setRange(lo, hi);
    p->xAxis->setLabel(tr("released count"));
    p->yAxis->setLabel(tr("how much more likely with the person"));
    setNarrative(
        tr("<p>For every possible output, divide its probability with the person by its "
           "probability without. For the Laplace mechanism the ratio climbs from e^−ε "
           "to e^ε between the two true counts and stays there.</p>"
           "<p><b>Whatever is released, it is at most e<sup>ε</sup> = %1 times more likely with "
           "the person in the data than without — and at least %2 times as likely.</b> "
           "That is the definition of ε-differential privacy (Dwork, McSherry, Nissim & "
           "Smith 2006).</p>")
            .arg(formatSignificant(std::exp(eps), 4), formatSignificant(std::exp(-eps), 4)));
}

void WhatEpsilonLesson::drawRegion() {
    QCustomPlot* p = plot();
    const double eps = epsilon();
    auto region = testRegionBoundary(PrivacyLevel{eps, 0}, 401);
    auto curve = teaching::laplaceTradeoffCurve(eps, 401);
    if (!region || !curve) {
        setNarrative(
            QString::fromStdString((!region ? region : curve).error().message).toHtmlEscaped());
        return;
    }
    region_ = *region;
    laplace_ = *curve;
    auto* impossible = p->addGraph();
    impossible->setName(tr("no ε-DP attack can be here (Kairouz, Oh & Viswanath 2015)"));
    QColor shade = textColor();
    shade.setAlpha(45);
    impossible->setPen(QPen(textColor(), 2));
    impossible->setBrush(shade);
    for (const XYPoint& pt : region_) {
        impossible->addData(pt.x, pt.y);
    }
    auto* lap = p->addGraph();
    lap->setName(tr("best tests against the Laplace mechanism (exact)"));
    lap->setPen(QPen(seriesColor(0), 3.5));
    for (const XYPoint& pt : laplace_) {
        lap->addData(pt.x, pt.y);
    }
    auto* guess = p->addGraph();
    guess->setName(tr("guessing"));
    guess->setPen(QPen(textColor(), 1.5, Qt::DotLine));
    guess->setData({0, 1}, {1, 0});
    p->xAxis->setRange(0, 1);
    p->yAxis->setRange(0, 1);
    p->xAxis->setLabel(tr("false-positive rate (accuses someone not in the data)"));
    p->yAxis->setLabel(tr("false-negative rate (misses someone in the data)"));
    p->legend->setVisible(true);
    p->legend->setBrush(palette().color(QPalette::Base));
    p->legend->setTextColor(textColor());
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    // The Laplace curve's most balanced test, α = e^{−ε/2}/2 (where α + β is smallest), lies
    // where the curve is strictly inside the region.
    const double alpha = std::exp(-eps / 2) / 2;
    setNarrative(
        tr("<p>An attacker tests “the person is in the data”. Under ε-DP every test has "
           "FPR + e<sup>ε</sup>·FNR ≥ 1 and e<sup>ε</sup>·FPR + FNR ≥ 1: its error rates lie on or "
           "above the shaded region's edge (Kairouz, Oh & Viswanath 2015).</p>"
           "<p>The Laplace mechanism's best tests (blue) follow that edge at the extremes and lie "
           "strictly inside it in the middle. At ε = %1, an attacker who wrongly accuses %2 of "
           "outsiders misses <b>%3</b> of insiders; ε-DP alone would allow as few as %4.</p>")
            .arg(formatParameter(eps))
            .arg(percentText(alpha))
            .arg(percentText(teaching::laplaceTradeoff(eps, alpha)))
            .arg(percentText(tradeoffEpsDelta(eps, 0, alpha))));
}

}  // namespace dpx::ui
