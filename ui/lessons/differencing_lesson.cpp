#include "ui/lessons/differencing_lesson.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QRadioButton>
#include <algorithm>
#include <cmath>

#include "core/base/validation.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

DifferencingLesson::DifferencingLesson(LessonInfo info, QWidget* parent)
    : LessonPage(std::move(info), parent) {
    setSteps({
        {tr("Two exact counts"),
         tr("<p>A database answers counting questions exactly.</p>"
            "<p>“How many people in the data have the condition?” <b>%1</b>.<br>"
            "“How many people <i>other than Alice</i> have it?” <b>%2</b>.</p>"
            "<p>Neither answer is about Alice alone, yet their difference is exactly her record: "
            "<b>Alice has the condition</b>. Rules such as “only answer questions about many "
            "people” do not stop this <i>differencing attack</i> (Dwork & Roth 2014, §1).</p>")
             .arg(kCountWith)
             .arg(kCountWith - 1)},
        {tr("The same questions with noise"), {}},
        {tr("How much can any attacker learn?"), {}},
    });
    levelControls_ = new QWidget;
    auto* row = new QHBoxLayout(levelControls_);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("ε of each answer:")));
    levels_ = new QButtonGroup(this);
    for (int i = 0; i < 3; ++i) {
        auto* b = new QRadioButton(formatParameter(kLevels[i]));
        b->setObjectName(QStringLiteral("diffLevel%1").arg(i));
        levels_->addButton(b, i);
        row->addWidget(b);
    }
    row->addStretch(1);
    levels_->button(1)->setChecked(true);
    connect(levels_, &QButtonGroup::idClicked, this, [this] { redraw(); });
    controls()->addWidget(levelControls_);
    setStep(0);
}

double DifferencingLesson::chosenEpsilon() const {
    return kLevels[std::clamp(levels_->checkedId(), 0, 2)];
}

void DifferencingLesson::chooseEpsilon(int index) {
    if (QAbstractButton* b = levels_->button(index)) {
        b->setChecked(true);
        redraw();
    }
}

Expected<teaching::DifferencingAttack> DifferencingLesson::attack() const {
    return teaching::differencingAttack(chosenEpsilon());
}

void DifferencingLesson::showStep(int step) {
    levelControls_->setVisible(step == 1);
    if (step == 0) {
        drawExact();
    } else if (step == 1) {
        drawNoisy();
    } else {
        drawOverEpsilon();
    }
}

void DifferencingLesson::drawExact() {
    QCustomPlot* p = plot();
    auto* bars = new QCPBars(p->xAxis, p->yAxis);
    bars->setData({1, 2}, {kCountWith, kCountWith - 1});
    bars->setBrush(seriesColor(0));
    bars->setPen(Qt::NoPen);
    bars->setWidth(0.55);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTick(1, tr("everyone"));
    ticker->addTick(2, tr("everyone but Alice"));
    p->xAxis->setTicker(ticker);
    p->xAxis->setRange(0.4, 2.6);
    p->xAxis->setLabel(tr("question"));
    p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->yAxis->setRange(0, kCountWith * 1.2);
    p->yAxis->setLabel(tr("people with the condition (exact answer)"));
    for (int i = 0; i < 2; ++i) {
        auto* t = new QCPItemText(p);
        t->position->setCoords(1 + i, kCountWith - i + kCountWith * 0.06);
        t->setText(QString::number(kCountWith - i));
        t->setFont(plotFont(1.6, true));
        t->setColor(textColor());
    }
}

void DifferencingLesson::drawNoisy() {
    QCustomPlot* p = plot();
    auto a = attack();
    if (!a) {
        setNarrative(QString::fromStdString(a.error().message).toHtmlEscaped());
        return;
    }
    const double b = a->scale;
    const double half = std::max(2.0, 6 * b);
    const double lo = 0.5 - half, hi = 0.5 + half;
    auto* out = addFilledGraph(tr("Alice does not have it (difference = noise)"), 1);
    auto* in = addFilledGraph(tr("Alice has it (difference = 1 + noise)"), 0);
    double top = 0;
    const int n = 801;
    for (int i = 0; i < n; ++i) {
        const double x = lo + (hi - lo) * i / (n - 1);
        const double f0 = teaching::laplaceDifferenceDensity(b, x);
        const double f1 = teaching::laplaceDifferenceDensity(b, x - 1);
        out->addData(x, f0);
        in->addData(x, f1);
        top = std::max({top, f0, f1});
    }
    addDecisionLine(0.5, top * 1.08, tr("guess “has it” to the right of ½"));
    p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->xAxis->setRange(lo, hi);
    p->yAxis->setRange(0, top * 1.18);
    p->xAxis->setLabel(tr("difference of the two noisy answers"));
    p->yAxis->setLabel(tr("probability density"));
    showLegend(Qt::AlignBottom | Qt::AlignRight);
    setNarrative(
        tr("<p>Now each answer gets Laplace noise of scale b = 1/ε = %1 (the Laplace mechanism, "
           "Dwork, McSherry, Nissim & Smith 2006), so each is ε-DP and the pair is ε-DP for "
           "Alice: only the first answer depends on her.</p>"
           "<p>The attacker's best rule is to say “Alice has it” when the difference is above "
           "½. At <b>ε = %2</b> that rule is right with probability <b>%3</b> (a coin toss is "
           "right 50% of the time).</p>"
           "<p>No attacker who starts at 50/50 can do better than <b>%4</b>: the posterior bound "
           "e<sup>ε</sup>/(e<sup>ε</sup> + 1) of the Risk tab.</p>")
            .arg(formatParameter(b), formatParameter(a->epsilon),
                 percentText(a->successProbability), percentText(a->posteriorBound)));
}

void DifferencingLesson::drawOverEpsilon() {
    QCustomPlot* p = plot();
    auto grid = logSpaced(0.01, 20, 200);
    if (!grid) {
        return;
    }
    auto* success = p->addGraph();
    auto* bound = p->addGraph();
    auto* guess = p->addGraph();
    auto* marks = p->addGraph();
    success->setName(tr("this attack (exact)"));
    bound->setName(tr("any attacker: posterior bound e^ε/(e^ε + 1)"));
    guess->setName(tr("guessing"));
    success->setPen(QPen(seriesColor(0), 3));
    bound->setPen(QPen(seriesColor(1), 2.5, Qt::DashLine));
    guess->setPen(QPen(textColor(), 1.5, Qt::DotLine));
    marks->setLineStyle(QCPGraph::lsNone);
    marks->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, seriesColor(0), basePointSize() * 1.2));
    p->legend->setVisible(true);
    for (double e : *grid) {
        auto a = teaching::differencingAttack(e);
        if (a) {
            success->addData(e, a->successProbability);
            bound->addData(e, a->posteriorBound);
            guess->addData(e, 0.5);
        }
    }
    QString rows;
    for (double e : kLevels) {
        auto a = teaching::differencingAttack(e);
        if (!a) {
            continue;
        }
        marks->addData(e, a->successProbability);
        auto* t = new QCPItemText(p);
        t->position->setCoords(e, a->successProbability);
        t->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        t->setText(percentText(a->successProbability) + QStringLiteral("  "));
        t->setFont(plotFont(1.0, true));
        t->setColor(textColor());
        rows += tr("<tr><td>%1&nbsp;&nbsp;</td><td align=right>%2&nbsp;&nbsp;</td>"
                   "<td align=right>%3</td></tr>")
                    .arg(formatParameter(e), percentText(a->successProbability),
                         percentText(a->posteriorBound));
    }
    p->legend->removeItem(p->legend->itemWithPlottable(marks));
    p->legend->setBrush(palette().color(QPalette::Base));
    p->legend->setTextColor(textColor());
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    makeLogAxis(p->xAxis);
    p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->xAxis->setRange(0.01, 20);
    p->yAxis->setRange(0.45, 1.02);
    p->xAxis->setLabel(tr("ε of each answer"));
    p->yAxis->setLabel(tr("probability the attacker is right about Alice"));
    setNarrative(tr("<p>The attacker's success against ε, exact, and the bound that holds for "
                    "every attack on an ε-DP release:</p>"
                    "<table><tr><th align=left>ε</th><th align=right>this attack</th>"
                    "<th align=right>bound</th></tr>%1</table>"
                    "<p>At ε = 0.1 Alice's record barely moves the odds; at ε = 10 the noise "
                    "hides almost nothing. ε is a dial between the two.</p>")
                     .arg(rows));
}

}  // namespace dpx::ui
