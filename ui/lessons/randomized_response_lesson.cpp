#include "ui/lessons/randomized_response_lesson.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "ui/widgets/number_format.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {
constexpr std::uint64_t kSeed = 2026;

QString yesNo(bool b) {
    return b ? QObject::tr("yes") : QObject::tr("no");
}
}  // namespace

RandomizedResponseLesson::RandomizedResponseLesson(LessonInfo info, QWidget* parent)
    : LessonPage(std::move(info), parent) {
    auto people = teaching::flipCoins(kClassSize, kTrueYesShare, 0.5, kSeed);
    if (people) {
        people_ = std::move(*people);
    }
    const double eps = *teaching::coinProtocolEpsilon(0.5);
    setSteps({
        {tr("The two coins"),
         tr("<p>The question is sensitive (“Have you ever cheated in an exam?”). Nobody answers "
            "it directly. Each person secretly flips a coin:</p>"
            "<ul><li><b>Heads:</b> answer truthfully.</li>"
            "<li><b>Tails:</b> flip a second coin and say “yes” on heads, “no” on tails.</li></ul>"
            "<p>Someone who truly answers yes says “yes” with probability ½ + ½·½ = ¾; someone "
            "who truly answers no says “yes” with probability ½·½ = ¼.</p>"
            "<p>A “yes” is therefore at most 3 times as likely from one answer as from the "
            "other: the protocol is ε-differentially private with <b>ε = ln 3 ≈ %1</b>. Every "
            "person can say “the coin made me say it” (Warner 1965).</p>")
             .arg(formatSignificant(eps, 3))},
        {tr("One person at a time"), {}},
        {tr("The estimate converges"), {}},
        {tr("Your class"), {}},
    });

    // Steps 2 and 3: add people one by one, or run with a speed control.
    simulationControls_ = new QWidget;
    auto* sim = new QVBoxLayout(simulationControls_);
    sim->setContentsMargins(0, 0, 0, 0);
    auto* buttons = new QHBoxLayout;
    add_ = new QPushButton(tr("Add a person"));
    add_->setObjectName(QStringLiteral("rrAddPerson"));
    run_ = new QPushButton(tr("Run"));
    run_->setObjectName(QStringLiteral("rrRun"));
    run_->setCheckable(true);
    auto* reset = new QPushButton(tr("Start again"));
    reset->setObjectName(QStringLiteral("rrReset"));
    buttons->addWidget(add_);
    buttons->addWidget(run_);
    buttons->addWidget(reset);
    sim->addLayout(buttons);
    auto* speedRow = new QHBoxLayout;
    speedRow->addWidget(new QLabel(tr("Speed (people per second):")));
    speed_ = new QSlider(Qt::Horizontal);
    speed_->setObjectName(QStringLiteral("rrSpeed"));
    speed_->setRange(1, 50);
    speed_->setValue(5);
    auto* speedValue = new QLabel(QString::number(speed_->value()));
    speedRow->addWidget(speed_, 1);
    speedRow->addWidget(speedValue);
    sim->addLayout(speedRow);
    peopleView_ = new QLabel;
    peopleView_->setObjectName(QStringLiteral("rrPeople"));
    peopleView_->setTextFormat(Qt::RichText);
    peopleView_->setWordWrap(true);
    sim->addWidget(peopleView_);
    controls()->addWidget(simulationControls_);

    timer_ = new QTimer(this);
    connect(timer_, &QTimer::timeout, this, &RandomizedResponseLesson::addPerson);
    connect(add_, &QPushButton::clicked, this, &RandomizedResponseLesson::addPerson);
    connect(run_, &QPushButton::toggled, this, &RandomizedResponseLesson::setRunning);
    connect(reset, &QPushButton::clicked, this, [this] {
        setRunning(false);
        setPeopleShown(0);
    });
    connect(speed_, &QSlider::valueChanged, this, [this, speedValue](int v) {
        speedValue->setText(QString::number(v));
        timer_->setInterval(1000 / v);
    });
    timer_->setInterval(1000 / speed_->value());

    // Step 4: the class's real tally.
    classControls_ = new QWidget;
    auto* form = new QFormLayout(classControls_);
    form->setContentsMargins(0, 0, 0, 0);
    classPeople_ = new QSpinBox;
    classPeople_->setObjectName(QStringLiteral("rrClassPeople"));
    classPeople_->setRange(1, 1000000);
    classPeople_->setValue(30);
    classYes_ = new QSpinBox;
    classYes_->setObjectName(QStringLiteral("rrClassYes"));
    classYes_->setRange(0, 1000000);
    classYes_->setValue(12);
    form->addRow(tr("People in the class (n):"), classPeople_);
    form->addRow(tr("“Yes” reports:"), classYes_);
    controls()->addWidget(classControls_);
    for (QSpinBox* s : {classPeople_, classYes_}) {
        connect(s, &QSpinBox::valueChanged, this, [this] { redraw(); });
    }
    setStep(0);
}

bool RandomizedResponseLesson::running() const {
    return timer_->isActive();
}

void RandomizedResponseLesson::setRunning(bool run) {
    if (run && shown_ >= static_cast<int>(people_.size())) {
        setPeopleShown(0);  // run again from the start
    }
    if (run) {
        timer_->start();
    } else {
        timer_->stop();
    }
    const QSignalBlocker b(run_);
    run_->setChecked(run);
    run_->setText(run ? tr("Pause") : tr("Run"));
}

void RandomizedResponseLesson::addPerson() {
    if (shown_ >= static_cast<int>(people_.size())) {
        setRunning(false);
        return;
    }
    setPeopleShown(shown_ + 1);
    if (shown_ >= static_cast<int>(people_.size())) {
        setRunning(false);
    }
}

void RandomizedResponseLesson::setPeopleShown(int n) {
    shown_ = std::clamp(n, 0, static_cast<int>(people_.size()));
    if (step() == 1 || step() == 2) {
        redraw();
    }
}

void RandomizedResponseLesson::setClassTally(int people, int yes) {
    classPeople_->setValue(people);
    classYes_->setValue(yes);
}

Expected<teaching::TallyEstimate> RandomizedResponseLesson::simulatedEstimate() const {
    std::uint64_t yes = 0;
    for (int i = 0; i < shown_; ++i) {
        yes += people_[static_cast<std::size_t>(i)].report ? 1 : 0;
    }
    return teaching::estimateTally(static_cast<std::uint64_t>(shown_), yes);
}

Expected<teaching::TallyEstimate> RandomizedResponseLesson::classEstimate() const {
    return teaching::estimateTally(static_cast<std::uint64_t>(classPeople_->value()),
                                   static_cast<std::uint64_t>(classYes_->value()));
}

void RandomizedResponseLesson::showStep(int step) {
    simulationControls_->setVisible(step == 1 || step == 2);
    const int previous = lastStep_;
    lastStep_ = step;
    classControls_->setVisible(step == 3);
    if (step != 1 && step != 2) {
        setRunning(false);
    }
    switch (step) {
        case 0:
            drawCoins();
            break;
        case 1:
        case 2:
            if (step == 2 && previous != 2 && !running()) {
                shown_ = static_cast<int>(people_.size());  // on arrival: the whole class flipped
            }
            drawConvergence();
            break;
        default:
            drawClass();
            break;
    }
}

void RandomizedResponseLesson::drawCoins() {
    QCustomPlot* p = plot();
    auto* yes = new QCPBars(p->xAxis, p->yAxis);
    auto* no = new QCPBars(p->xAxis, p->yAxis);
    yes->setName(tr("says “yes”"));
    no->setName(tr("says “no”"));
    yes->setData({1, 2}, {0.75, 0.25});
    no->setData({1, 2}, {0.25, 0.75});
    no->moveAbove(yes);
    yes->setBrush(seriesColor(0));
    no->setBrush(seriesColor(1));
    yes->setPen(Qt::NoPen);
    no->setPen(Qt::NoPen);
    yes->setWidth(0.6);
    no->setWidth(0.6);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTick(1, tr("truly yes"));
    ticker->addTick(2, tr("truly no"));
    p->xAxis->setTicker(ticker);
    p->xAxis->setRange(0.4, 2.6);
    p->xAxis->setLabel(tr("the person's true answer"));
    p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->yAxis->setRange(0, 1);
    p->yAxis->setLabel(tr("probability of the report"));
    for (const auto& [x, y, text] :
         {std::tuple{1.0, 0.375, QStringLiteral("¾")}, std::tuple{1.0, 0.875, QStringLiteral("¼")},
          std::tuple{2.0, 0.125, QStringLiteral("¼")},
          std::tuple{2.0, 0.625, QStringLiteral("¾")}}) {
        auto* t = new QCPItemText(p);
        t->position->setCoords(x, y);
        t->setText(text);
        t->setFont(plotFont(1.6, true));
        t->setColor(Qt::white);
    }
    p->legend->setVisible(true);
    p->legend->setBrush(palette().color(QPalette::Base));
    p->legend->setTextColor(textColor());
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignHCenter);
}

QString RandomizedResponseLesson::peopleTable() const {
    if (shown_ == 0) {
        return tr("<p><i>Nobody has flipped yet: press “Add a person” or “Run”.</i></p>");
    }
    QString rows;
    const int first = std::max(0, shown_ - 6);
    for (int i = shown_ - 1; i >= first; --i) {
        const teaching::Person& q = people_[static_cast<std::size_t>(i)];
        const QString coins = q.firstCoinHeads ? tr("heads → tells the truth")
                                               : tr("tails, then %1")
                                                     .arg(q.secondCoinHeads ? tr("heads → “yes”")
                                                                            : tr("tails → “no”"));
        rows += QStringLiteral("<tr><td>%1&nbsp;</td><td>%2&nbsp;</td><td><b>%3</b></td></tr>")
                    .arg(i + 1)
                    .arg(coins)
                    .arg(yesNo(q.report));
    }
    return tr("<table><tr><th align=left>#</th><th align=left>coins</th>"
              "<th align=left>report</th></tr>%1</table>")
        .arg(rows);
}

void RandomizedResponseLesson::drawConvergence() {
    peopleView_->setText(peopleTable());
    QCustomPlot* p = plot();
    p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->xAxis->setLabel(tr("people who have flipped"));
    p->yAxis->setLabel(tr("share of the class"));
    p->xAxis->setRange(0, static_cast<double>(people_.size()));
    p->yAxis->setRange(-0.2, 1.0);
    auto* low = p->addGraph();
    auto* high = p->addGraph();
    auto* est = p->addGraph();
    auto* reported = p->addGraph();
    auto* truth = p->addGraph();
    QColor band = seriesColor(0);
    band.setAlpha(60);
    low->setPen(Qt::NoPen);
    high->setPen(Qt::NoPen);
    high->setBrush(band);
    high->setChannelFillGraph(low);
    high->setName(tr("95% interval"));
    est->setPen(QPen(seriesColor(0), 2.5));
    est->setName(tr("estimate (Warner 1965)"));
    reported->setPen(QPen(seriesColor(1), 1.5, Qt::DotLine));
    reported->setName(tr("share of “yes” reports"));
    truth->setPen(QPen(seriesColor(2), 2, Qt::DashLine));
    truth->setName(tr("true share (only the simulation knows it)"));
    std::uint64_t yes = 0, truthYes = 0;
    double lastLow = 0, lastHigh = 0;
    for (int i = 0; i < shown_; ++i) {
        const teaching::Person& q = people_[static_cast<std::size_t>(i)];
        yes += q.report ? 1 : 0;
        truthYes += q.truth ? 1 : 0;
        const auto n = static_cast<std::uint64_t>(i + 1);
        auto t = teaching::estimateTally(n, yes);
        if (!t) {
            continue;
        }
        const double x = static_cast<double>(n);
        low->addData(x, t->low);
        high->addData(x, t->high);
        est->addData(x, t->estimate);
        reported->addData(x, static_cast<double>(yes) / x);
        truth->addData(x, static_cast<double>(truthYes) / x);
        lastLow = t->low;
        lastHigh = t->high;
    }
    p->legend->setVisible(true);
    p->legend->setBrush(palette().color(QPalette::Base));
    p->legend->setTextColor(textColor());
    p->legend->removeItem(p->legend->itemWithPlottable(low));
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    auto t = simulatedEstimate();
    QString numbers;
    if (t) {
        numbers =
            tr("<p><b>%1 people</b>, %2 said “yes” (%3). Estimate of the share who truly "
               "answer yes: <b>%4</b>, 95% interval %5 to %6.</p>")
                .arg(t->people)
                .arg(t->yes)
                .arg(percentText(static_cast<double>(t->yes) / static_cast<double>(t->people)))
                .arg(percentText(t->estimate))
                .arg(percentText(lastLow))
                .arg(percentText(lastHigh));
    }
    const QString why =
        tr("<p>Of all reports, a share λ = ¼ + ½·π is “yes” when a share π truly answers yes, so "
           "the estimate 2·(yes/n) − ½ is unbiased. Its standard error √(3/(4n)) shrinks as 1/√n: "
           "±%1 "
           "at n = 30, ±%2 at n = 200, ±%3 at n = 2000.</p>")
            .arg(percentText(teaching::kZ95 * std::sqrt(0.75 / 30)))
            .arg(percentText(teaching::kZ95 * std::sqrt(0.75 / 200)))
            .arg(percentText(teaching::kZ95 * std::sqrt(0.75 / 2000)));
    if (step() == 1) {
        setNarrative(tr("<p>Each person flips; the table shows the last ones, newest first. The "
                        "collector sees only the reports and turns the tally into an estimate "
                        "with an interval.</p>") +
                     numbers +
                     tr("<p>With few people the estimate jumps and can even fall below 0: it is "
                        "unbiased, not clipped.</p>"));
    } else {
        setNarrative(numbers + why);
    }
}

void RandomizedResponseLesson::drawClass() {
    QCustomPlot* p = plot();
    auto t = classEstimate();
    if (!t) {
        setNarrative(tr("<p><b>Cannot estimate:</b> %1.</p><p>Type the number of people in the "
                        "class and how many of them reported “yes”.</p>")
                         .arg(QString::fromStdString(t.error().message).toHtmlEscaped()));
        p->xAxis->setLabel({});
        p->yAxis->setLabel({});
        return;
    }
    const double share = static_cast<double>(t->yes) / static_cast<double>(t->people);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTick(2, tr("“yes” reports"));
    ticker->addTick(1, tr("truly yes\n(estimate)"));
    p->yAxis->setTicker(ticker);
    p->yAxis->setRange(0.4, 2.6);
    p->yAxis->setLabel({});
    p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->xAxis->setLabel(tr("share of the class"));
    p->xAxis->setRange(std::min(-0.05, t->low - 0.05), std::max(1.05, t->high + 0.05));
    auto* interval = new QCPItemLine(p);
    interval->start->setCoords(t->low, 1);
    interval->end->setCoords(t->high, 1);
    QPen band(seriesColor(0), basePointSize() * 1.2);
    band.setCapStyle(Qt::FlatCap);
    QColor light = seriesColor(0);
    light.setAlpha(170);
    band.setColor(light);
    interval->setPen(band);
    auto* dots = p->addGraph();
    dots->setLineStyle(QCPGraph::lsNone);
    dots->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, seriesColor(0), basePointSize() * 1.4));
    dots->setData({t->estimate}, {1});
    auto* rep = p->addGraph();
    rep->setLineStyle(QCPGraph::lsNone);
    rep->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, seriesColor(1), basePointSize() * 1.4));
    rep->setData({share}, {2});
    auto* label = new QCPItemText(p);
    label->position->setCoords(t->estimate, 1.3);
    label->setText(tr("%1 (95%: %2 to %3)")
                       .arg(percentText(t->estimate), percentText(t->low), percentText(t->high)));
    label->setFont(plotFont(1.0, true));
    label->setColor(textColor());
    setNarrative(
        tr("<p>Everyone flips a real coin and follows the rules; the teacher counts the “yes” "
           "hands. Type the class's numbers beside.</p>"
           "<p><b>n = %1</b>, %2 said “yes” (%3).</p>"
           "<p>Estimated share who truly answer yes: <b>%4</b> (about %5 people), 95% interval "
           "<b>%6 to %7</b> (±%8).</p>"
           "<p>The protocol gave every person <b>ε = ln 3 ≈ %9</b>: whatever they reported is at "
           "most 3 times as likely under one true answer as under the other.</p>")
            .arg(t->people)
            .arg(t->yes)
            .arg(percentText(share))
            .arg(percentText(t->estimate))
            .arg(formatSignificant(t->estimate * static_cast<double>(t->people), 3))
            .arg(percentText(t->low))
            .arg(percentText(t->high))
            .arg(percentText(teaching::kZ95 * t->standardError))
            .arg(formatSignificant(t->epsilon, 3)));
}

}  // namespace dpx::ui
