#include "ui/lessons/lesson_page.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QPixmap>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QTextDocument>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/presentation_view.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

LessonPage::LessonPage(LessonInfo info, QWidget* parent) : QWidget(parent), info_(std::move(info)) {
    setObjectName(QStringLiteral("lesson-") + info_.name);
    setWindowTitle(tr("Lesson: %1 — DP Explorer").arg(info_.title));
    title_ = new QLabel(info_.title);
    title_->setObjectName(QStringLiteral("lessonTitle"));
    title_->setWordWrap(true);
    goal_ = new QLabel(tr("Learning goal: %1").arg(info_.goal));
    goal_->setObjectName(QStringLiteral("lessonGoal"));
    goal_->setWordWrap(true);
    stepLine_ = new QLabel;
    stepLine_->setObjectName(QStringLiteral("lessonStep"));
    stepLine_->setWordWrap(true);
    narrative_ = new QLabel;
    narrative_->setObjectName(QStringLiteral("lessonNarrative"));
    narrative_->setWordWrap(true);
    narrative_->setTextFormat(Qt::RichText);
    narrative_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    narrative_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("lessonPlot"));
    plot_->setMinimumSize(320, 240);
    applyPlotPalette(plot_, palette());

    // The narrative and the controls scroll when they do not fit (a small screen, large type).
    auto* sideWidget = new QWidget;
    auto* side = new QVBoxLayout(sideWidget);
    side->setContentsMargins(0, 0, 0, 0);
    side->addWidget(narrative_);
    controls_ = new QVBoxLayout;
    side->addLayout(controls_);
    side->addStretch(1);
    auto* sideScroll = new QScrollArea;
    sideScroll->setObjectName(QStringLiteral("lessonSide"));
    sideScroll->setWidget(sideWidget);
    sideScroll->setWidgetResizable(true);
    sideScroll->setFrameShape(QFrame::NoFrame);
    sideScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* body = new QHBoxLayout;
    body->addWidget(plot_, 3);
    body->addWidget(sideScroll, 2);

    prev_ = new QPushButton(tr("← Previous"));
    prev_->setObjectName(QStringLiteral("lessonPrevious"));
    next_ = new QPushButton(tr("Next →"));
    next_->setObjectName(QStringLiteral("lessonNext"));
    export_ = new QPushButton(tr("Export slides…"));
    export_->setObjectName(QStringLiteral("lessonExport"));
    export_->setToolTip(tr("Save every step as one page of a PDF and as one PNG per step"));
    for (QPushButton* b : {prev_, next_, export_}) {
        b->setFocusPolicy(Qt::NoFocus);  // ← / → always step
    }
    connect(prev_, &QPushButton::clicked, this, &LessonPage::previous);
    connect(next_, &QPushButton::clicked, this, &LessonPage::next);
    connect(export_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export slides"), info_.name + QStringLiteral(".pdf"), tr("PDF (*.pdf)"));
        if (path.isEmpty()) {
            return;
        }
        const SlideExport r = exportSlides(path);
        if (!r.error.isEmpty()) {
            QMessageBox::warning(this, tr("Export slides"), r.error);
        }
    });
    auto* footer = new QHBoxLayout;
    footer->addWidget(prev_);
    footer->addWidget(next_);
    footer->addStretch(1);
    footer->addWidget(export_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(goal_);
    layout->addWidget(stepLine_);
    layout->addLayout(body, 1);
    layout->addLayout(footer);

    // ← / → and Page Up / Page Down (a presenter's remote) step, unless a text field has the
    // focus and wants the key (QLineEdit claims Left/Right through ShortcutOverride).
    const std::array<std::pair<QKeySequence, bool>, 4> keys = {
        {{QKeySequence(Qt::Key_Right), true},
         {QKeySequence(Qt::Key_PageDown), true},
         {QKeySequence(Qt::Key_Left), false},
         {QKeySequence(Qt::Key_PageUp), false}}};
    for (const auto& [key, forward] : keys) {
        auto* s = new QShortcut(key, this);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this,
                forward ? &LessonPage::next : &LessonPage::previous);
    }
    // F5: presentation mode (full screen, high contrast) for a lesson in a window of its own;
    // Esc leaves it.
    auto* present = new QShortcut(QKeySequence(Qt::Key_F5), this);
    present->setContext(Qt::WidgetWithChildrenShortcut);
    connect(present, &QShortcut::activated, this, [this] {
        if (isWindow()) {
            presentWindow(this, !isPresenting(this));
        }
    });
    auto* leave = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    leave->setContext(Qt::WidgetWithChildrenShortcut);
    connect(leave, &QShortcut::activated, this, [this] {
        if (isPresenting(this)) {
            presentWindow(this, false);
        }
    });
    setFocusPolicy(Qt::StrongFocus);
    applyFonts();
}

QString LessonPage::stepTitle(int step) const {
    return step >= 0 && step < stepCount() ? steps_[static_cast<std::size_t>(step)].title
                                           : QString();
}

QString LessonPage::narrativeText() const {
    QTextDocument d;
    d.setHtml(narrative_->text());
    return d.toPlainText();
}

void LessonPage::setSteps(std::vector<Step> steps) {
    steps_ = std::move(steps);
    step_ = 0;
}

void LessonPage::setStep(int step) {
    if (steps_.empty()) {
        return;
    }
    step = std::clamp(step, 0, stepCount() - 1);
    const bool changed = step != step_;
    step_ = step;
    redraw();
    if (changed) {
        Q_EMIT stepChanged(step_);
    }
}

void LessonPage::next() {
    setStep(step_ + 1);
}

void LessonPage::previous() {
    setStep(step_ - 1);
}

void LessonPage::addEpsilonControl(double min, double max, double initial) {
    epsilonMin_ = min;
    epsilonMax_ = max;
    epsilon_ = initial;
    auto* row = new QHBoxLayout;
    auto* label = new QLabel(tr("ε:"));
    epsilonField_ = new LogSliderField(min, max);
    epsilonField_->setObjectName(QStringLiteral("lessonEpsilon"));
    epsilonField_->setValue(initial);
    label->setBuddy(epsilonField_->lineEdit());
    row->addWidget(label);
    row->addWidget(epsilonField_, 1);
    controls()->addLayout(row);
    connect(epsilonField_, &LogSliderField::valueEdited, this,
            [this](double v, bool) { setEpsilon(v); });
    connect(epsilonField_, &LogSliderField::textRejected, this, [this](const QString& text) {
        epsilonField_->setError(
            tr("“%1” is not a number; ε must be a number from %2 to %3")
                .arg(text, formatParameter(epsilonMin_), formatParameter(epsilonMax_)));
    });
}

void LessonPage::setEpsilon(double epsilon) {
    if (!epsilonField_) {
        return;
    }
    if (!(epsilon >= epsilonMin_ && epsilon <= epsilonMax_)) {
        epsilonField_->setError(tr("ε must be a number from %1 to %2 (got %3)")
                                    .arg(formatParameter(epsilonMin_), formatParameter(epsilonMax_),
                                         formatParameter(epsilon)));
        return;
    }
    epsilonField_->setError({});
    if (epsilonField_->value() != epsilon) {
        epsilonField_->setValue(epsilon);
    }
    epsilon_ = epsilon;
    redraw();
}

void LessonPage::setNarrative(const QString& html) {
    narrative_->setText(html);
}

void LessonPage::redraw() {
    if (steps_.empty() || drawing_) {
        return;
    }
    drawing_ = true;
    updateHeader();
    narrative_->setText(steps_[static_cast<std::size_t>(step_)].text);
    plot_->clearPlottables();
    plot_->clearItems();
    plot_->legend->setVisible(false);
    // Every step starts from plain linear axes; the step sets what it needs.
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        axis->setNumberFormat(QStringLiteral("gb"));
        axis->setNumberPrecision(6);
        axis->setLabel({});
        axis->setTicks(true);
        axis->setTickLabels(true);
    }
    showStep(step_);
    if (presenting()) {
        thickenForPresentation();
    }
    applyFonts();
    plot_->replot();
    drawing_ = false;
}

void LessonPage::updateHeader() {
    stepLine_->setText(
        tr("Step %1 of %2: %3").arg(step_ + 1).arg(stepCount()).arg(stepTitle(step_)));
    prev_->setEnabled(step_ > 0);
    next_->setEnabled(step_ + 1 < stepCount());
}

QFont LessonPage::plotFont(double scale, bool bold) const {
    QFont f = font();
    f.setPointSizeF(basePoint_ * scale);
    f.setBold(bold);
    return f;
}

QColor LessonPage::seriesColor(int index) {
    // Okabe & Ito 2008's colour-blind-safe palette: blue, vermillion, bluish green, orange, sky.
    static const std::array<QColor, 5> colors = {QColor(0, 114, 178), QColor(213, 94, 0),
                                                 QColor(0, 158, 115), QColor(230, 159, 0),
                                                 QColor(86, 180, 233)};
    return colors[static_cast<std::size_t>(index) % colors.size()];
}

QCPGraph* LessonPage::addFilledGraph(const QString& name, int colorIndex) {
    auto* g = plot_->addGraph();
    g->setName(name);
    QColor c = seriesColor(colorIndex);
    g->setPen(QPen(c, 2.5));
    c.setAlpha(50);
    g->setBrush(c);
    return g;
}

void LessonPage::addDecisionLine(double x, double labelY, const QString& label) {
    auto* cut = new QCPItemStraightLine(plot_);
    cut->point1->setCoords(x, 0);
    cut->point2->setCoords(x, 1);
    cut->setPen(QPen(textColor(), 1.5, Qt::DashLine));
    auto* text = new QCPItemText(plot_);
    text->position->setCoords(x, labelY);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    text->setText(QStringLiteral(" ") + label);
    text->setFont(plotFont(0.9));
    text->setColor(textColor());
}

void LessonPage::showLegend(Qt::Alignment alignment) {
    plot_->legend->setVisible(true);
    plot_->legend->setBrush(palette().color(QPalette::Base));
    plot_->legend->setTextColor(textColor());
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, alignment);
}

QString LessonPage::percentText(double share) {
    if (share >= 0 && share <= 1) {
        return formatPercent(share);
    }
    return QStringLiteral("%1%").arg(
        QString::number(100 * share, 'f', 1).replace(QLatin1Char('-'), QChar(0x2212)));
}

QColor LessonPage::textColor() const {
    return palette().color(QPalette::WindowText);
}

bool LessonPage::presenting() const {
    return isPresenting(window());
}

void LessonPage::updateBasePoint() {
    // Type grows with the window: 11 pt at 1024 × 768, about 17 pt at 1600 × 1000, 32 pt at most.
    // Presenting, it is read from the back of a room: a third larger (22.5 pt, 30 px, on 1080
    // lines, as the presentation screen's axis labels).
    const double byWidth = width() / (presenting() ? 70.0 : 90.0);
    const double byHeight = height() / (presenting() ? 48.0 : 64.0);
    const double point = std::clamp(std::min(byWidth, byHeight), 9.0, 40.0);
    if (std::abs(point - basePoint_) > 0.25) {
        basePoint_ = point;
        applyFonts();
        plot_->replot();
    }
}

void LessonPage::thickenForPresentation() {
    // A projector washes thin lines out: lines at least 1/270 of the height (4 px on 1080 lines,
    // as the presentation screen draws a tab's plot), markers half as large again.
    const double line = std::max(3.0, height() / 270.0);
    for (int i = 0; i < plot_->plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot_->plottable(i);
        QPen pen = p->pen();
        if (pen.style() != Qt::NoPen) {
            pen.setWidthF(std::max(pen.widthF() * 1.5, line));
            p->setPen(pen);
        }
        if (auto* g = qobject_cast<QCPGraph*>(p);
            g && g->scatterStyle().shape() != QCPScatterStyle::ssNone) {
            QCPScatterStyle style = g->scatterStyle();
            style.setSize(style.size() * 1.5);
            g->setScatterStyle(style);
        }
    }
    for (int i = 0; i < plot_->itemCount(); ++i) {
        if (auto* l = qobject_cast<QCPItemStraightLine*>(plot_->item(i))) {
            QPen pen = l->pen();
            pen.setWidthF(std::max(pen.widthF() * 1.5, line * 0.75));
            l->setPen(pen);
        }
    }
}

void LessonPage::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateBasePoint();
}

void LessonPage::keyPressEvent(QKeyEvent* event) {
    // The same keys as the shortcuts, for key presses that reach the page itself.
    switch (event->key()) {
        case Qt::Key_Right:
        case Qt::Key_PageDown:
            next();
            return;
        case Qt::Key_Left:
        case Qt::Key_PageUp:
            previous();
            return;
        default:
            QWidget::keyPressEvent(event);
    }
}

void LessonPage::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        // presentWindow sets the presentation palette (and "presenting") on entering and the
        // application's on leaving: the type size and the lines follow.
        applyPlotPalette(plot_, palette());
        updateBasePoint();
        redraw();
    }
}

void LessonPage::applyFonts() {
    QFont base = font();
    base.setPointSizeF(basePoint_);
    for (QWidget* w : findChildren<QWidget*>()) {
        if (w != title_ && w != plot_) {
            w->setFont(base);
        }
    }
    QFont title = base;
    title.setPointSizeF(basePoint_ * 1.6);
    title.setBold(true);
    title_->setFont(title);
    QFont stepFont = base;
    stepFont.setBold(true);
    stepLine_->setFont(stepFont);
    for (QCPAxis* axis : plot_->axisRect()->axes()) {
        axis->setLabelFont(base);
        axis->setTickLabelFont(plotFont(0.85));
    }
    plot_->legend->setFont(plotFont(0.85));
}

bool LessonPage::waitUntilReady(int timeoutMs) {
    QElapsedTimer clock;
    clock.start();
    while (busy()) {
        if (clock.elapsed() > timeoutMs) {
            return false;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(5);
    }
    return true;
}

LessonPage::SlideExport LessonPage::exportSlides(const QString& pdfPath) {
    SlideExport r;
    if (steps_.empty()) {
        r.error = tr("The lesson has no steps to export.");
        return r;
    }
    if (!waitUntilReady()) {
        r.error = tr("The lesson is still computing; try the export again in a moment.");
        return r;
    }
    const int keep = step_;
    const QSize size = this->size();
    QPdfWriter writer(pdfPath);
    writer.setResolution(96);
    // One page per step, the size of the page in points (96 px = 72 pt), no margins.
    writer.setPageSize(
        QPageSize(QSizeF(size.width() * 0.75, size.height() * 0.75), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setTitle(info_.title);
    writer.setCreator(QStringLiteral("DP Explorer"));
    QPainter painter;
    if (!painter.begin(&writer)) {
        r.error = tr("Could not write %1.").arg(pdfPath);
        return r;
    }
    QString base = pdfPath;
    if (base.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
        base.chop(4);
    }
    for (int i = 0; i < stepCount(); ++i) {
        setStep(i);
        // Let the layouts take the new texts' sizes before the picture (posted layout requests
        // travel one level per round).
        for (int round = 0; round < 4; ++round) {
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        }
        if (layout()) {
            layout()->activate();  // also when the page is not shown (--slides, tests)
        }
        const QPixmap shot = grab();
        if (i > 0 && !writer.newPage()) {
            r.error = tr("Could not add page %1 to %2.").arg(i + 1).arg(pdfPath);
            break;
        }
        painter.drawPixmap(QRect(0, 0, writer.width(), writer.height()), shot);
        ++r.pages;
        const QString png = QStringLiteral("%1-step%2.png").arg(base).arg(i + 1);
        if (!shot.save(png, "PNG")) {
            r.error = tr("Could not write %1.").arg(png);
            break;
        }
        r.pngFiles << png;
    }
    painter.end();
    setStep(keep);
    return r;
}

}  // namespace dpx::ui
