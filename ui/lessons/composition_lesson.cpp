#include "ui/lessons/composition_lesson.h"

#include <algorithm>
#include <cmath>

#include "core/base/validation.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

using teaching::QueryBudget;

CompositionLesson::CompositionLesson(LessonInfo info, QWidget* parent)
    : LessonPage(std::move(info), parent) {
    std::vector<Step> steps;
    for (std::size_t k : kSteps) {
        steps.push_back(
            {k == 1 ? tr("One question") : tr("The same question %1 times").arg(k), {}});
    }
    steps.push_back({tr("Without a budget the attack wins; with one it does not"), {}});
    steps.push_back({tr("The privacy loss adds up"), {}});
    setSteps(std::move(steps));
    addEpsilonControl(0.05, 5, 0.5);
    setStep(0);
}

std::size_t CompositionLesson::questionsAtStep(int step) {
    constexpr int n = static_cast<int>(std::size(kSteps));
    return kSteps[static_cast<std::size_t>(std::clamp(step, 0, n - 1))];
}

Expected<teaching::RepeatedQueryAttack> CompositionLesson::attack(std::size_t k,
                                                                  QueryBudget b) const {
    return teaching::repeatedQueryAttack(epsilon(), k, b);
}

void CompositionLesson::showStep(int step) {
    if (step < static_cast<int>(std::size(kSteps))) {
        drawAverages(questionsAtStep(step));
    } else if (step == static_cast<int>(std::size(kSteps))) {
        drawSuccessOverK();
    } else {
        drawLossOverK();
    }
}

std::vector<std::size_t> CompositionLesson::questionGrid() {
    std::vector<std::size_t> ks(std::begin(kSteps), std::end(kSteps));
    ks.push_back(kMaxK);
    if (auto g = logSpaced(1, static_cast<double>(kMaxK), 40)) {
        for (double v : *g) {
            ks.push_back(static_cast<std::size_t>(std::llround(v)));
        }
    }
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    return ks;
}

Expected<std::vector<CompositionLesson::GridRow>> CompositionLesson::overGrid() const {
    std::vector<GridRow> rows;
    for (std::size_t k : questionGrid()) {
        auto f = attack(k, QueryBudget::FreshEachAnswer);
        if (!f) {
            return f.error();
        }
        auto t = attack(k, QueryBudget::OneTotal);
        if (!t) {
            return t.error();
        }
        const bool listed =
            std::find(std::begin(kSteps), std::end(kSteps), k) != std::end(kSteps) || k == kMaxK;
        rows.push_back({k, *f, *t, listed});
    }
    return rows;
}

void CompositionLesson::drawAverages(std::size_t k) {
    QCustomPlot* p = plot();
    auto fresh = attack(k, QueryBudget::FreshEachAnswer);
    auto total = attack(k, QueryBudget::OneTotal);
    auto once = attack(1, QueryBudget::FreshEachAnswer);
    if (!fresh || !total || !once) {
        const auto& e = !fresh ? fresh.error() : (!total ? total.error() : once.error());
        setNarrative(QString::fromStdString(e.message).toHtmlEscaped());
        return;
    }
    // The average of the k differences is bit + S_{2k}/k: density k·f_{2k}(k·x) around 0 (Alice
    // does not have it) and around 1 (she has it). Its standard deviation is 2b/√k.
    const double b = fresh->scale;
    const double kk = static_cast<double>(k);
    const double sd = 2 * b / std::sqrt(kk);
    const double half = std::max(1.5, 4 * sd);
    const double lo = 0.5 - half, hi = 0.5 + half;
    auto* out = addFilledGraph(tr("Alice does not have it"), 1);
    auto* in = addFilledGraph(tr("Alice has it"), 0);
    double top = 0;
    const int n = 241;
    for (int i = 0; i < n; ++i) {
        // One grid shared by both curves: the "has it" curve is the other shifted by 1.
        const double x = lo - 1 + (hi - lo + 1) * i / (n - 1);
        const double f = kk * teaching::laplaceSumDensity(2 * k, b, kk * x);
        if (x <= hi) {
            out->addData(x, f);
        }
        if (x + 1 >= lo) {
            in->addData(x + 1, f);
        }
        top = std::max(top, f);
    }
    addDecisionLine(0.5, top * 1.1, tr("guess “has it” to the right of ½"));
    p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->xAxis->setRange(lo, hi);
    p->yAxis->setRange(0, top * 1.2);
    p->xAxis->setLabel(k == 1 ? tr("difference of the two noisy answers")
                              : tr("average of the %1 differences").arg(k));
    p->yAxis->setLabel(tr("probability density"));
    showLegend(Qt::AlignTop | Qt::AlignLeft);
    const QString eps = formatParameter(epsilon());
    QString text;
    if (k == 1) {
        text = tr("<p>Lesson 2's attacker asks “how many have the condition?” and “how many "
                  "other than Alice?” once. Each answer gets Laplace noise at <b>ε = %1</b> "
                  "(scale b = %2), and the rule “has it when the difference is above ½” is right "
                  "with probability <b>%3</b>.</p>"
                  "<p>But nothing stops the attacker from asking again…</p>")
                   .arg(eps, formatParameter(b), percentText(fresh->successProbability));
    } else {
        text = tr("<p>The attacker asks the same pair <b>%1 times</b>. Without a budget each "
                  "answer gets <i>fresh</i> noise at ε = %2, and the average of the %1 "
                  "differences wobbles only 1/√%1 as much (standard deviation %3).</p>"
                  "<p>The attack is now right with probability <b>%4</b> (one question: %5).</p>")
                   .arg(k)
                   .arg(eps, formatParameter(sd), percentText(fresh->successProbability),
                        percentText(once->successProbability));
    }
    text += tr("<p>Privacy loss so far: <b>kε = %1</b> by basic composition (Dwork & Roth 2014, "
               "Thm 3.16); zCDP (Bun & Steinke 2016) gives ε = %2 at δ = 10<sup>−6</sup>.</p>")
                .arg(formatSignificant(fresh->basicEpsilon, 3),
                     formatSignificant(fresh->zcdpEpsilon, 3));
    if (k > 1) {
        text +=
            tr("<p>With <b>one total budget</b> ε = %1 split over the %2 answers (ε/k = %3 "
               "each), the same attack is right with probability <b>%4</b>, never above "
               "%5.</p>")
                .arg(eps)
                .arg(k)
                .arg(formatSignificant(total->epsilonPerAnswer, 3),
                     percentText(total->successProbability), percentText(total->posteriorBound));
    } else {
        text += tr("<p>No attacker who starts at 50/50 can be right with probability above "
                   "<b>%1</b> after one question: the posterior bound e<sup>ε</sup>/(e<sup>ε</sup> "
                   "+ 1).</p>")
                    .arg(percentText(total->posteriorBound));
    }
    setNarrative(text);
}

void CompositionLesson::drawSuccessOverK() {
    QCustomPlot* p = plot();
    auto* fresh = p->addGraph();
    auto* total = p->addGraph();
    auto* bound = p->addGraph();
    auto* guess = p->addGraph();
    auto* marks = p->addGraph();
    fresh->setName(tr("no budget: fresh noise at ε for every answer"));
    total->setName(tr("one total budget ε, split over the k answers"));
    bound->setName(tr("any attacker under the total budget: e^ε/(e^ε + 1)"));
    guess->setName(tr("guessing"));
    fresh->setPen(QPen(seriesColor(0), 3));
    total->setPen(QPen(seriesColor(1), 3));
    bound->setPen(QPen(seriesColor(1), 2, Qt::DashLine));
    guess->setPen(QPen(textColor(), 1.5, Qt::DotLine));
    marks->setLineStyle(QCPGraph::lsNone);
    marks->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, seriesColor(0), basePointSize() * 1.2));
    auto grid = overGrid();
    if (!grid) {
        setNarrative(QString::fromStdString(grid.error().message).toHtmlEscaped());
        return;
    }
    QString rows;
    for (const GridRow& row : *grid) {
        const auto& f = row.fresh;
        const auto& t = row.total;
        const double kk = static_cast<double>(row.k);
        fresh->addData(kk, f.successProbability);
        total->addData(kk, t.successProbability);
        bound->addData(kk, t.posteriorBound);
        guess->addData(kk, 0.5);
        if (row.listed) {
            marks->addData(kk, f.successProbability);
            rows += tr("<tr><td>%1&nbsp;&nbsp;</td><td align=right>%2&nbsp;&nbsp;</td>"
                       "<td align=right>%3</td></tr>")
                        .arg(row.k)
                        .arg(percentText(f.successProbability), percentText(t.successProbability));
        }
    }
    showLegend(Qt::AlignTop | Qt::AlignLeft);
    p->legend->removeItem(p->legend->itemWithPlottable(marks));
    makeLogAxis(p->xAxis);
    p->xAxis->setNumberPrecision(5);  // 1000, not 10³ beside 1, 10, 100
    // Probabilities up to 100% only; the room above is the legend's.
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 5; i <= 10; ++i) {
        ticker->addTick(i / 10.0, QStringLiteral("%1%").arg(i * 10));
    }
    p->yAxis->setTicker(ticker);
    p->xAxis->setRange(0.8, static_cast<double>(kMaxK) * 1.25);
    p->yAxis->setRange(0.45, 1.25);
    p->xAxis->setLabel(tr("number of times the question is asked (k)"));
    p->yAxis->setLabel(tr("probability the attacker is right about Alice"));
    setNarrative(tr("<p>The attack's success against k, exact, at ε = %1:</p>"
                    "<table><tr><th align=left>k</th><th "
                    "align=right>no budget&nbsp;&nbsp;</th>"
                    "<th align=right>one budget</th></tr>%2</table>"
                    "<p>Without a budget enough questions reveal Alice. With one total budget "
                    "the answers get noisier as k grows and the attack never beats the bound "
                    "of a single ε-DP release.</p>")
                     .arg(formatParameter(epsilon()), rows));
}

void CompositionLesson::drawLossOverK() {
    QCustomPlot* p = plot();
    auto* basic = p->addGraph();
    auto* zcdp = p->addGraph();
    auto* total = p->addGraph();
    basic->setName(tr("no budget, basic composition: kε"));
    zcdp->setName(tr("no budget, zCDP: ε at δ = 10⁻⁶"));
    total->setName(tr("one total budget: ε, whatever k"));
    basic->setPen(QPen(seriesColor(0), 3));
    zcdp->setPen(QPen(seriesColor(0), 2.5, Qt::DashLine));
    total->setPen(QPen(seriesColor(1), 3));
    double top = epsilon(), bottom = epsilon();
    auto grid = overGrid();
    if (!grid) {
        setNarrative(QString::fromStdString(grid.error().message).toHtmlEscaped());
        return;
    }
    QString rows;
    for (const GridRow& row : *grid) {
        const auto& f = row.fresh;
        const auto& t = row.total;
        const double kk = static_cast<double>(row.k);
        basic->addData(kk, f.basicEpsilon);
        zcdp->addData(kk, f.zcdpEpsilon);
        total->addData(kk, t.basicEpsilon);
        top = std::max({top, f.basicEpsilon, f.zcdpEpsilon});
        bottom = std::min({bottom, f.zcdpEpsilon, t.basicEpsilon});
        if (row.listed) {
            rows +=
                tr("<tr><td>%1&nbsp;&nbsp;</td><td align=right>%2&nbsp;&nbsp;</td>"
                   "<td align=right>%3</td></tr>")
                    .arg(row.k)
                    .arg(formatSignificant(f.basicEpsilon, 3), formatSignificant(f.zcdpEpsilon, 3));
        }
    }
    showLegend(Qt::AlignTop | Qt::AlignLeft);
    makeLogAxis(p->xAxis);
    p->xAxis->setNumberPrecision(5);  // 1000, not 10³ beside 1, 10, 100
    makeLogAxis(p->yAxis);
    p->yAxis->setNumberPrecision(5);
    p->xAxis->setRange(0.8, static_cast<double>(kMaxK) * 1.25);
    p->yAxis->setRange(bottom / 2, top * 3);
    p->xAxis->setLabel(tr("number of times the question is asked (k)"));
    p->yAxis->setLabel(tr("total privacy loss ε (log scale)"));
    setNarrative(
        tr("<p>Every answer spends privacy. Without a budget the loss after k questions at "
           "ε = %1 each:</p>"
           "<table><tr><th align=left>k</th><th align=right>basic "
           "kε&nbsp;&nbsp;</th>"
           "<th align=right>zCDP</th></tr>%2</table>"
           "<p>zCDP (Bun & Steinke 2016) adds ρ = ε²/2 per answer and turns kε²/2 into "
           "kε²/2 + 2√(kε²/2 · ln(1/δ)): less than kε for many questions, at the price of a "
           "small δ, but it still grows without end. A <b>budget</b> fixes the total in "
           "advance and refuses the question that would overrun it: the Budget tab and the "
           "release ledger do this.</p>")
            .arg(formatParameter(epsilon()), rows));
}

}  // namespace dpx::ui
