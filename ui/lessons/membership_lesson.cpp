#include "ui/lessons/membership_lesson.h"

#include <algorithm>
#include <cmath>
#include <stop_token>

#include "ui/model/job_runner.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("membership");

// The largest share of members found at a false-accusation rate of at most `fpr` (the ROC's
// points are x = FPR, y = FNR).
double detectedAt(const TracingAttackResult& r, double fpr) {
    double best = 0;
    for (const XYPoint& pt : r.roc) {
        if (pt.x <= fpr) {
            best = std::max(best, 1 - pt.y);
        }
    }
    return best;
}

}  // namespace

MembershipLesson::MembershipLesson(LessonInfo info, QWidget* parent)
    : LessonPage(std::move(info), parent) {
    runner_ = new JobRunner(this);
    setSteps({
        {tr("Was this person in the data?"), {}},
        {tr("Without noise the attack finds almost everyone"), {}},
        {tr("The same release with calibrated noise"), {}},
        {tr("Inside the region ε allows"), {}},
    });
    addEpsilonControl(0.1, 10, 1);
    setStep(0);
}

TracingAttackParams MembershipLesson::paramsAt(double epsilon) {
    TracingAttackParams p;
    p.n = 100;
    p.d = 1000;
    p.epsilon = epsilon;
    p.delta = 1e-6;
    p.trials = 10;
    p.candidatesPerTrial = 50;
    p.seed = 5;
    return p;
}

bool MembershipLesson::busy() const {
    return runner_->isRunning(kSlot);
}

void MembershipLesson::start() {
    requested_ = epsilon();
    const TracingAttackParams params = paramsAt(requested_);
    runner_->run<Expected<teaching::MembershipDemo>>(
        kSlot, [params](std::stop_token, JobProgress&) { return teaching::membershipDemo(params); },
        [this](Expected<teaching::MembershipDemo> r) {
            if (r) {
                demo_ = std::move(*r);
                error_.clear();
            } else {
                demo_.reset();
                error_ = QString::fromStdString(r.error().message);
            }
            redraw();
        });
}

void MembershipLesson::showStep(int step) {
    const bool current = demo_ && demo_->params.epsilon == epsilon();
    if (!current && (requested_ != epsilon() || (!busy() && error_.isEmpty()))) {
        start();
    }
    if (!error_.isEmpty() && requested_ == epsilon() && !busy()) {
        setNarrative(error_.toHtmlEscaped());
        return;
    }
    if (!current) {
        setNarrative(tr("<p>Simulating the attack at ε = %1…</p>").arg(formatParameter(epsilon())));
        return;
    }
    switch (step) {
        case 0:
            drawScores(demo_->noNoise, false);
            break;
        case 1:
            drawRoc(false);
            break;
        case 2:
            drawScores(demo_->noisy, true);
            break;
        default:
            drawRoc(true);
            break;
    }
}

void MembershipLesson::drawScores(const TracingAttackResult& r, bool noisy) {
    QCustomPlot* p = plot();
    double lo = std::min(*std::min_element(r.memberScores.begin(), r.memberScores.end()),
                         *std::min_element(r.nonMemberScores.begin(), r.nonMemberScores.end()));
    double hi = std::max(*std::max_element(r.memberScores.begin(), r.memberScores.end()),
                         *std::max_element(r.nonMemberScores.begin(), r.nonMemberScores.end()));
    if (!(hi > lo)) {
        hi = lo + 1;
    }
    const int bins = 40;
    const double width = (hi - lo) / bins;
    double top = 0;
    const std::vector<double>* groups[2] = {&r.nonMemberScores, &r.memberScores};
    for (int g = 0; g < 2; ++g) {
        std::vector<double> counts(bins, 0.0);
        for (double z : *groups[g]) {
            const int b = std::clamp(static_cast<int>((z - lo) / width), 0, bins - 1);
            counts[static_cast<std::size_t>(b)] += 1;
        }
        auto* graph =
            addFilledGraph(g == 0 ? tr("not in the data (%1 people)").arg(groups[g]->size())
                                  : tr("in the data (%1 people)").arg(groups[g]->size()),
                           g == 0 ? 1 : 0);
        graph->setLineStyle(QCPGraph::lsStepCenter);
        const double total = static_cast<double>(groups[g]->size());
        for (int b = 0; b < bins; ++b) {
            const double share = counts[static_cast<std::size_t>(b)] / total;
            graph->addData(lo + (b + 0.5) * width, share);
            top = std::max(top, share);
        }
    }
    showLegend(Qt::AlignTop | Qt::AlignLeft);
    p->xAxis->setRange(lo - width, hi + width);
    p->yAxis->setRange(0, top * 1.35);
    p->xAxis->setLabel(tr("the attacker's score Z (higher: “was in the data”)"));
    p->yAxis->setLabel(tr("share of the people in each group"));
    const TracingAttackParams& pa = demo_->params;
    if (!noisy) {
        setNarrative(
            tr("<p>A study publishes the average of <b>%1</b> yes/no answers of its <b>%2</b> "
               "participants. An attacker knows how common each answer is in the population "
               "and one person's answers, and asks: <i>was this person in the study?</i></p>"
               "<p>The tracing attack (Homer et al. 2008; Dwork, Smith, Steinke, Ullman & Vadhan "
               "2015) scores the person by how well their answers line up with the published "
               "average's deviations from the population: "
               "Z = ⟨average − population, person − population⟩.</p>"
               "<p>Every participant pulled the average towards themselves, so people in the "
               "data score higher. Here the average is published <b>exactly</b>, and the two "
               "groups hardly overlap.</p>")
                .arg(pa.d)
                .arg(pa.n));
    } else {
        setNarrative(
            tr("<p>Now the average is released with Gaussian noise calibrated to "
               "<b>ε = %1</b>, δ = 10<sup>−6</sup> (the analytic Gaussian mechanism, Balle & Wang "
               "2018): σ = %2 on each of the %3 averages.</p>"
               "<p>The noise drowns each person's pull on the average: the scores of people in "
               "and out of the data now overlap (and spread far wider: mind the axis).</p>")
                .arg(formatParameter(pa.epsilon), formatSignificant(r.sigma, 3))
                .arg(pa.d));
    }
}

void MembershipLesson::drawRoc(bool noisy) {
    QCustomPlot* p = plot();
    const auto& base = demo_->noNoise;
    const auto& withNoise = demo_->noisy;
    if (noisy) {
        // The (ε, δ)-DP region: f(1 − α) ≤ TPR ≤ 1 − f(α) (the test and its complement), drawn
        // as one closed polygon from the exact boundary of core/choosing/risk.
        auto* region = new QCPCurve(p->xAxis, p->yAxis);
        region->setName(tr("possible for any attack at ε = %1, δ = 10⁻⁶")
                            .arg(formatParameter(demo_->params.epsilon)));
        QVector<double> t, x, y;
        int i = 0;
        for (const XYPoint& pt : demo_->testRegion) {
            t << i++;
            x << pt.x;
            y << 1 - pt.y;
        }
        for (auto it = demo_->testRegion.rbegin(); it != demo_->testRegion.rend(); ++it) {
            t << i++;
            x << 1 - it->x;
            y << it->y;
        }
        region->setData(t, x, y);
        QColor fill = seriesColor(2);
        fill.setAlpha(45);
        region->setBrush(fill);
        region->setPen(QPen(seriesColor(2), 2, Qt::DashLine));
    }
    auto* guess = p->addGraph();
    guess->setName(tr("guessing"));
    guess->setPen(QPen(textColor(), 1.5, Qt::DotLine));
    guess->setData({0, 1}, {0, 1});
    auto addRoc = [&](const TracingAttackResult& r, const QString& name, QColor color, double width,
                      Qt::PenStyle style = Qt::SolidLine) {
        auto* g = p->addGraph();
        g->setName(name);
        g->setPen(QPen(color, width, style));
        for (const XYPoint& pt : r.roc) {
            g->addData(pt.x, 1 - pt.y);
        }
    };
    // Beside the noisy curve the baseline is thinner and dashed (not faded: a faded line
    // vanishes on the dark theme and on a projector).
    addRoc(base, tr("no noise (AUC %1)").arg(formatSignificant(base.auc, 3)), seriesColor(0),
           noisy ? 2.0 : 3.0, noisy ? Qt::DashLine : Qt::SolidLine);
    if (noisy) {
        addRoc(
            withNoise,
            tr("noise at ε = %1 (AUC %2)")
                .arg(formatParameter(demo_->params.epsilon), formatSignificant(withNoise.auc, 3)),
            seriesColor(1), 3.0);
    }
    showLegend(Qt::AlignBottom | Qt::AlignRight);
    auto percent = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i <= 5; ++i) {
        percent->addTick(i / 5.0, QStringLiteral("%1%").arg(i * 20));
    }
    p->xAxis->setTicker(percent);
    p->yAxis->setTicker(percent);
    p->xAxis->setRange(-0.01, 1.04);  // room for the "100%" label at the right end
    p->yAxis->setRange(-0.01, 1.01);
    p->xAxis->setLabel(tr("people not in the data accused (false-positive rate)"));
    p->yAxis->setLabel(tr("people in the data found (true-positive rate)"));
    if (!noisy) {
        setNarrative(
            tr("<p>Accusing everyone whose score is above a threshold trades false accusations "
               "(x) against people found (y); every threshold is one point of the "
               "<b>ROC curve</b>.</p>"
               "<p>Without noise, accusing only <b>5%</b> of the people not in the data finds "
               "<b>%1</b> of those in it. The area under the curve is <b>AUC = %2</b> "
               "(1 = perfect, 0.5 = guessing).</p>"
               "<p>Few people and many attributes make an exact average a fingerprint of "
               "everyone in it — without ever publishing a single record.</p>")
                .arg(percentText(detectedAt(base, 0.05)), formatSignificant(base.auc, 3)));
    } else {
        setNarrative(
            tr("<p>With noise at ε = %1 the attack finds <b>%2</b> of the people in the data at "
               "5% false accusations (without noise %3); AUC <b>%4</b> (without noise %5).</p>"
               "<p>The shaded region holds every attack on an (ε, δ)-DP release, whatever it "
               "does (Kairouz, Oh & Viswanath 2015): its AUC is at most <b>%6</b>. The curve "
               "stays inside, up to the simulation's sampling error.</p>"
               "<p>Move ε: the region and the curve open up together. The Risk tab runs this "
               "simulation for your own number of people and attributes.</p>")
                .arg(formatParameter(demo_->params.epsilon),
                     percentText(detectedAt(withNoise, 0.05)), percentText(detectedAt(base, 0.05)),
                     formatSignificant(withNoise.auc, 3), formatSignificant(base.auc, 3),
                     formatSignificant(demo_->maxAuc, 3)));
    }
}

}  // namespace dpx::ui
