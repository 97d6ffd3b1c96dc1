#include "ui/tabs/matrix/matrix_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QMouseEvent>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

#include "core/count/count_analysis.h"

namespace dpx::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Accent for the selected input (heatmap outline, true-count bar): visible on every viridis colour.
const QColor kAccent(230, 85, 13);
// Bars of the column profile and the noise curve: a mid viridis tone.
const QColor kBarColor(42, 120, 142);

// ---- property texts ------------------------------------------------------------------------

struct PropertyText {
    dpx::CountProperty property;
    const char* id;     // lower-case id used in the LP settings strings
    const char* name;   // full name
    const char* words;  // what it means, in words
};

constexpr std::array<PropertyText, 7> kPropertyTexts{{
    {dpx::CountProperty::RowHonest, "rh", QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Row honest"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "each output i is most likely when i is the true count: "
                       "P[i | i] ≥ P[i | j] for every j.")},
    {dpx::CountProperty::RowMonotone, "rm",
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Row monotone"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "the probability of output i never grows as the true count moves away "
                       "from i (along each row, on both sides of the diagonal).")},
    {dpx::CountProperty::ColumnHonest, "ch",
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Column honest"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "for every true count j the correct output is the most likely one: "
                       "P[j | j] ≥ P[i | j] for every i.")},
    {dpx::CountProperty::ColumnMonotone, "cm",
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Column monotone"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "for every true count, an output further from the truth is never more "
                       "likely than a nearer one on the same side.")},
    {dpx::CountProperty::Fair, "f", QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Fair"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "every true count is reported correctly with the same probability "
                       "(constant diagonal).")},
    {dpx::CountProperty::WeaklyHonest, "wh",
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Weakly honest"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "every true count is reported correctly with probability at least "
                       "1/(n+1), i.e. never worse than a uniformly random guess.")},
    {dpx::CountProperty::Symmetric, "s", QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Symmetric"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "P[i | j] = P[n−i | n−j]: counting the people without the attribute gives "
                       "the mirror-image mechanism.")},
}};

QString trView(const char* text) {
    return QCoreApplication::translate("dpx::ui::MatrixTab", text);
}

// ---- number formatting ----------------------------------------------------------------------

QString num(double v, int digits = 3) {
    if (std::isnan(v)) {
        return QStringLiteral("—");
    }
    if (std::isinf(v)) {
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    }
    return QString::number(v, 'g', digits);
}

// A probability with `digits` significant digits, but never rounded up to a plain "1".
QString prob(double p, int digits = 3) {
    if (p < 1 && p >= 1 - 0.5 * std::pow(10.0, -digits)) {
        return QString::number(p, 'g', 9);
    }
    return num(p, digits);
}

QString signedNum(double v, int digits = 3) {
    if (std::abs(v) < 5e-13) {
        return QStringLiteral("0");
    }
    return (v > 0 ? QStringLiteral("+") : QString()) + num(v, digits);
}

// 3701 → "3 701" (thin spaces), as in the report lines of the LP.
QString groupedInt(long long v) {
    QString digits = QString::number(v < 0 ? -v : v);
    for (qsizetype k = digits.size() - 3; k > 0; k -= 3) {
        digits.insert(k, QChar(0x2009));
    }
    return v < 0 ? QStringLiteral("−") + digits : digits;
}

QString achievedText(double achieved) {
    if (std::isinf(achieved)) {
        return MatrixTab::tr("∞ (a zero faces a non-zero entry)");
    }
    return num(achieved, 4);
}

// Enough digits to show that a > b (up to 15 significant digits).
QString distinguishing(double a, double b) {
    for (int d = 4; d <= 15; ++d) {
        if (QString::number(a, 'g', d) != QString::number(b, 'g', d)) {
            return QString::number(a, 'g', d);
        }
    }
    return QString::number(a, 'g', 17);
}

// "1", "0.1", "0.01", "1e-3", … for the decades of the log colour scale.
QString decadeLabel(int k) {
    if (k >= -2 && k <= 2) {
        return QString::number(std::pow(10.0, k), 'g', 3);
    }
    static const char16_t* superscripts[] = {u"⁰", u"¹", u"²", u"³", u"⁴",
                                             u"⁵", u"⁶", u"⁷", u"⁸", u"⁹"};
    QString exponent;
    for (const QChar c : QString::number(std::abs(k))) {
        exponent += QString::fromUtf16(superscripts[c.digitValue()]);
    }
    return QStringLiteral("10") + (k < 0 ? QStringLiteral("⁻") : QString()) + exponent;
}

// ---- plot helpers ---------------------------------------------------------------------------

// Integer ticks only (steps 1, 2, 5, 10, 20, …), for axes that count people.
class IntegerTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override {
        const double exact = range.size() / std::max(1, tickCount());
        if (exact <= 1) {
            return 1;
        }
        const double mag = std::pow(10.0, std::floor(std::log10(exact)));
        const double m = exact / mag;
        const double nice = m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10;
        return std::max(1.0, nice * mag);
    }
    int getSubTickCount(double) override { return 0; }
};

void styleAxis(QCPAxis* a, const QColor& fg, const QColor& grid) {
    a->setBasePen(QPen(fg, 1));
    a->setTickPen(QPen(fg, 1));
    a->setSubTickPen(QPen(fg, 1));
    a->setTickLabelColor(fg);
    a->setLabelColor(fg);
    a->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    a->grid()->setSubGridPen(Qt::NoPen);
    a->grid()->setZeroLinePen(Qt::NoPen);
}

// Axis, text and background colours from the widget palette (light and dark themes).
void stylePlot(QCustomPlot* plot, const QPalette& pal) {
    const QColor fg = pal.color(QPalette::WindowText);
    const QColor bg = pal.color(QPalette::Base);
    QColor grid = fg;
    grid.setAlphaF(0.25f);
    plot->setBackground(bg);
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* a : rect->axes()) {
            styleAxis(a, fg, grid);
        }
    }
    for (int k = 0; k < plot->plotLayout()->elementCount(); ++k) {
        QCPLayoutElement* el = plot->plotLayout()->elementAt(k);
        if (auto* scale = qobject_cast<QCPColorScale*>(el)) {
            styleAxis(scale->axis(), fg, grid);
        } else if (auto* text = qobject_cast<QCPTextElement*>(el)) {
            text->setTextColor(fg);
        }
    }
    plot->legend->setBrush(bg);
    plot->legend->setTextColor(fg);
    plot->legend->setBorderPen(QPen(grid));
}

void setupCountAxis(QCPAxis* axis, const QString& label) {
    axis->setLabel(label);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new IntegerTicker));
    axis->setTickLength(0, 4);
    axis->setNumberFormat(QStringLiteral("f"));
    axis->setNumberPrecision(0);
}

QFont boldFont(const QFont& base, double scale = 1.0) {
    QFont f = base;
    f.setBold(true);
    if (scale != 1.0 && f.pointSizeF() > 0) {
        f.setPointSizeF(f.pointSizeF() * scale);
    }
    return f;
}

// ---- a flow layout for the badges (wraps onto the next line when narrow) ---------------------

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent, int gap) : QLayout(parent), gap_(gap) {
        setContentsMargins(0, 0, 0, 0);
    }
    ~FlowLayout() override {
        while (QLayoutItem* item = takeAt(0)) {
            delete item;
        }
    }
    void addItem(QLayoutItem* item) override { items_.append(item); }
    int count() const override { return static_cast<int>(items_.size()); }
    QLayoutItem* itemAt(int index) const override { return items_.value(index); }
    QLayoutItem* takeAt(int index) override {
        return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
    }
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return doLayout(QRect(0, 0, width, 0), true); }
    void setGeometry(const QRect& rect) override {
        QLayout::setGeometry(rect);
        doLayout(rect, false);
    }
    QSize sizeHint() const override { return minimumSize(); }
    QSize minimumSize() const override {
        QSize size;
        for (QLayoutItem* item : items_) {
            if (!item->isEmpty()) {
                size = size.expandedTo(item->minimumSize());
            }
        }
        return size;
    }

private:
    int doLayout(const QRect& rect, bool testOnly) const {
        int x = rect.x();
        int y = rect.y();
        int lineHeight = 0;
        for (QLayoutItem* item : items_) {
            if (item->isEmpty()) {
                continue;
            }
            const QSize hint = item->sizeHint();
            if (x > rect.x() && x + hint.width() > rect.right() + 1) {
                x = rect.x();
                y += lineHeight + gap_;
                lineHeight = 0;
            }
            if (!testOnly) {
                item->setGeometry(QRect(QPoint(x, y), hint));
            }
            x += hint.width() + gap_;
            lineHeight = std::max(lineHeight, hint.height());
        }
        return y + lineHeight - rect.y();
    }
    QList<QLayoutItem*> items_;
    int gap_;
};

enum class ChipStyle { Good, Neutral, Bad, Warning, Plain };

void styleChip(QLabel* chip, ChipStyle style, const QPalette& pal = QPalette()) {
    QString css;
    switch (style) {
        case ChipStyle::Good:
            css = QStringLiteral("background:#2e7d32; color:#ffffff;");
            break;
        case ChipStyle::Neutral:
            css = QStringLiteral("background:#7b7f86; color:#ffffff;");
            break;
        case ChipStyle::Bad:
            css = QStringLiteral("background:#c62828; color:#ffffff;");
            break;
        case ChipStyle::Warning:
            css = QStringLiteral("background:#f2b01e; color:#1b1b1b;");
            break;
        case ChipStyle::Plain:
            css = QStringLiteral("background:transparent; color:%1; border:1px solid %2;")
                      .arg(pal.color(QPalette::WindowText).name(), pal.color(QPalette::Mid).name());
            break;
    }
    chip->setStyleSheet(QStringLiteral("QLabel { %1 border-radius: 9px; padding: 2px 7px; "
                                       "font-weight: 600; }")
                            .arg(css));
}

QLabel* makeChip(const QString& objectName) {
    auto* chip = new QLabel;
    chip->setObjectName(objectName);
    chip->setTextFormat(Qt::PlainText);
    chip->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return chip;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

QString inputErrorSummary(const dpx::CountMechanism& m, std::size_t j) {
    const auto e = dpx::inputErrorDistribution(m, j);
    if (!e) {
        return QString::fromStdString(e.error().message);
    }
    return MatrixTab::tr(
               "true count %1: reported exactly with probability %2; mean |error| %3; "
               "bias %4; off by more than 1 with probability %5; RMS error %6")
        .arg(j)
        .arg(prob(e->pCorrect), num(e->meanAbs), signedNum(e->bias), prob(e->pOffByMoreThan(1)),
             num(std::sqrt(e->meanSquare)));
}

MatrixTab::MatrixTab(QWidget* parent) : QWidget(parent) {
    buildUi();
    applyPalette();
    setMessage(tr("No mechanism yet."));
}

MatrixTab::~MatrixTab() = default;

void MatrixTab::buildUi() {
    setObjectName(QStringLiteral("matrixView"));
    setMinimumSize(640, 520);

    // Header: title, input selector, log scale.
    title_ = new QLabel;
    title_->setObjectName(QStringLiteral("matrixTitle"));
    title_->setFont(boldFont(font(), 1.15));
    title_->setTextFormat(Qt::PlainText);
    title_->setWordWrap(true);
    title_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    inputLabel_ = new QLabel(tr("True count j"));
    input_ = new QSpinBox;
    input_->setObjectName(QStringLiteral("inputSpin"));
    input_->setRange(0, 0);
    input_->setMinimumWidth(72);
    input_->setToolTip(
        tr("The true count whose column is profiled below the heatmap. You can "
           "also click a column of the heatmap."));
    inputLabel_->setToolTip(input_->toolTip());
    inputLabel_->setBuddy(input_);
    logBox_ = new QCheckBox(tr("Log colour scale"));
    logBox_->setObjectName(QStringLiteral("logScaleCheck"));
    logBox_->setToolTip(
        tr("Colour by log10 of the probability, so that tiny entries (the tails "
           "of the mechanism) become visible. Exact zeros are drawn grey."));
    auto* header = new QHBoxLayout;
    header->addWidget(title_, 1);
    header->addWidget(inputLabel_);
    header->addWidget(input_);
    header->addSpacing(12);
    header->addWidget(logBox_);

    // Badges.
    badgeBar_ = new QWidget;
    badgeBar_->setObjectName(QStringLiteral("badgeBar"));
    auto* flow = new FlowLayout(badgeBar_, 6);
    privacyBadge_ = makeChip(QStringLiteral("privacyBadge"));
    l0Badge_ = makeChip(QStringLiteral("l0Badge"));
    styleChip(l0Badge_, ChipStyle::Plain, palette());
    flow->addWidget(privacyBadge_);
    flow->addWidget(l0Badge_);
    for (const PropertyText& p : kPropertyTexts) {
        auto* chip = makeChip(QStringLiteral("badge_") + QString::fromLatin1(p.id).toUpper());
        propertyBadges_.push_back(chip);
        flow->addWidget(chip);
    }

    lpStatus_ = new QLabel;
    lpStatus_->setObjectName(QStringLiteral("lpStatus"));
    lpStatus_->setWordWrap(true);
    lpStatus_->setTextFormat(Qt::PlainText);
    lpStatus_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lpStatus_->setToolTip(
        tr("How the optimal mechanism was computed: solver status, time and "
           "simplex iterations, and how much of the uniform mechanism had to "
           "be mixed in so that the stored matrix verifies as ε-DP exactly."));
    pending_ = new QLabel;
    pending_->setObjectName(QStringLiteral("matrixPending"));
    pending_->setWordWrap(true);
    pending_->setTextFormat(Qt::PlainText);
    pending_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pending_->hide();
    lpWarning_ = new QLabel;
    lpWarning_->setObjectName(QStringLiteral("lpWarning"));
    lpWarning_->setWordWrap(true);
    lpWarning_->setTextFormat(Qt::PlainText);
    lpWarning_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lpWarning_->setToolTip(
        tr("Gaps are outputs the mechanism never reports; spikes are outputs "
           "reported with probability above 1/(n+1) whatever the true count. "
           "Both are typical of optimal designs without required properties "
           "at small ε; requiring WH rules out gaps."));

    // Matrix page: heatmap over the column profile.
    heatmap_ = new QCustomPlot;
    setupHeatmap();
    heatmapHint_ = new QLabel;
    heatmapHint_->setObjectName(QStringLiteral("heatmapHint"));
    heatmapHint_->setWordWrap(true);
    heatmapHint_->setForegroundRole(QPalette::PlaceholderText);
    profile_ = new QCustomPlot;
    setupProfile();
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("profileSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setToolTip(tr("The error law of the selected true count j: error = output − j."));

    auto* top = new QWidget;
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->setSpacing(2);
    topLayout->addWidget(heatmap_, 1);
    topLayout->addWidget(heatmapHint_);
    auto* bottom = new QWidget;
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->setSpacing(2);
    bottomLayout->addWidget(profile_, 1);
    bottomLayout->addWidget(summary_);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(top);
    splitter->addWidget(bottom);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    matrixPage_ = new QWidget;
    auto* matrixLayout = new QVBoxLayout(matrixPage_);
    matrixLayout->setContentsMargins(0, 0, 0, 0);
    matrixLayout->addWidget(splitter);

    // Noise page.
    noise_ = new QCustomPlot;
    setupNoisePlot();

    // Message page.
    auto* messagePage = new QWidget;
    message_ = new QLabel;
    message_->setObjectName(QStringLiteral("matrixMessage"));
    message_->setWordWrap(true);
    message_->setAlignment(Qt::AlignCenter);
    message_->setTextFormat(Qt::PlainText);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_->setMaximumWidth(620);
    QFont mf = font();
    if (mf.pointSizeF() > 0) {
        mf.setPointSizeF(mf.pointSizeF() * 1.2);
    }
    message_->setFont(mf);
    // Centred, at most 620 px wide; the stretches keep the word-wrapped label at its full width.
    auto* messageRow = new QHBoxLayout;
    messageRow->addStretch(1);
    messageRow->addWidget(message_, 10);
    messageRow->addStretch(1);
    auto* messageLayout = new QVBoxLayout(messagePage);
    messageLayout->addStretch(1);
    messageLayout->addLayout(messageRow);
    messageLayout->addStretch(2);

    stack_ = new QStackedWidget;
    stack_->addWidget(matrixPage_);
    stack_->addWidget(noise_);
    stack_->addWidget(messagePage);
    setupLocalPage();
    stack_->addWidget(localPage_);

    auto* mainColumn = new QVBoxLayout;
    mainColumn->addLayout(header);
    mainColumn->addWidget(pending_);
    mainColumn->addWidget(badgeBar_);
    mainColumn->addWidget(lpStatus_);
    mainColumn->addWidget(lpWarning_);
    mainColumn->addWidget(stack_, 1);

    lpPanel_ = new QScrollArea;
    lpPanel_->setObjectName(QStringLiteral("lpPanel"));
    lpPanel_->setWidget(buildLpPanel());
    lpPanel_->setWidgetResizable(true);
    lpPanel_->setFrameShape(QFrame::NoFrame);
    lpPanel_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    lpPanel_->setMinimumWidth(290);
    lpPanel_->setMaximumWidth(360);
    lpPanel_->hide();

    auto* layout = new QHBoxLayout(this);
    layout->addLayout(mainColumn, 1);
    layout->addWidget(lpPanel_);

    connect(input_, &QSpinBox::valueChanged, this, [this](int j) { selectInput(j); });
    connect(logBox_, &QCheckBox::toggled, this, [this](bool on) {
        setLogScale(on);
        Q_EMIT logScaleToggled(on);
    });
}

void MatrixTab::setupHeatmap() {
    heatmap_->setObjectName(QStringLiteral("heatmapPlot"));
    heatmap_->setMinimumSize(420, 260);
    heatmap_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    heatmap_->setMouseTracking(true);
    setupCountAxis(heatmap_->xAxis, tr("true count j (input)"));
    setupCountAxis(heatmap_->yAxis, tr("output i"));
    heatmap_->yAxis->setRangeReversed(true);
    heatmap_->xAxis->grid()->setVisible(false);
    heatmap_->yAxis->grid()->setVisible(false);
    heatmap_->axisRect()->setupFullAxesBox(false);
    heatmap_->xAxis2->setTicks(false);
    heatmap_->yAxis2->setTicks(false);

    colorMap_ = new QCPColorMap(heatmap_->xAxis, heatmap_->yAxis);
    colorMap_->setInterpolate(false);
    colorMap_->setTightBoundary(false);
    colorScale_ = new QCPColorScale(heatmap_);
    colorScale_->setType(QCPAxis::atRight);
    colorScale_->setBarWidth(14);
    colorScale_->setRangeDrag(false);
    colorScale_->setRangeZoom(false);
    colorScale_->axis()->setLabel(tr("P[output i | true count j]"));
    heatmap_->plotLayout()->addElement(0, 1, colorScale_);
    colorMap_->setColorScale(colorScale_);
    QCPColorGradient g = viridisGradient();
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(logZeroColor());
    colorMap_->setGradient(g);
    auto* margins = new QCPMarginGroup(heatmap_);
    heatmap_->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    colorScale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    selectionRect_ = new QCPItemRect(heatmap_);
    selectionRect_->setPen(QPen(kAccent, 2));
    selectionRect_->setBrush(Qt::NoBrush);
    selectionRect_->setClipToAxisRect(true);
    selectionRect_->setVisible(false);

    connect(heatmap_, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { pressPos_ = e->position().toPoint(); });
    connect(heatmap_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton ||
            (e->position().toPoint() - pressPos_).manhattanLength() > 4) {
            return;  // a drag, not a click
        }
        if (auto cell = cellAt(e->position())) {
            selectInput(cell->first);
        }
    });
    connect(heatmap_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
        resetHeatmapView();
        heatmap_->replot();
    });
    connect(heatmap_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        heatmapMouseMove(e->position(), e->globalPosition().toPoint());
    });
}

void MatrixTab::setupProfile() {
    profile_->setObjectName(QStringLiteral("profilePlot"));
    profile_->setMinimumSize(420, 170);
    profile_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    profile_->axisRect()->setRangeDrag(Qt::Horizontal);
    profile_->axisRect()->setRangeZoom(Qt::Horizontal);
    profile_->setToolTip(
        tr("P[output i | true count j] for the selected true count j (the "
           "highlighted bar): one column of the matrix. Wheel: zoom, drag: "
           "pan, double-click: reset."));
    setupCountAxis(profile_->xAxis, tr("output i"));
    profile_->yAxis->setLabel(tr("probability"));
    profile_->xAxis->grid()->setVisible(false);
    profile_->plotLayout()->insertRow(0);
    profileTitle_ = new QCPTextElement(profile_, QString(), boldFont(font()));
    profile_->plotLayout()->addElement(0, 0, profileTitle_);

    profileBars_ = new QCPBars(profile_->xAxis, profile_->yAxis);
    profileBars_->setName(tr("P[i | j]"));
    profileBars_->setBrush(kBarColor);
    profileBars_->setPen(QPen(kBarColor.darker(120)));
    profileBars_->setWidth(0.8);
    profileTruth_ = new QCPBars(profile_->xAxis, profile_->yAxis);
    profileTruth_->setName(tr("correct output i = j"));
    profileTruth_->setBrush(kAccent);
    profileTruth_->setPen(QPen(kAccent.darker(120)));
    profileTruth_->setWidth(0.8);

    truthLine_ = new QCPItemStraightLine(profile_);
    QColor line = kAccent;
    line.setAlphaF(0.6f);
    truthLine_->setPen(QPen(line, 1, Qt::DashLine));
    truthText_ = new QCPItemText(profile_);
    truthText_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    truthText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    truthText_->setColor(kAccent);
    truthText_->setFont(boldFont(font()));
    truthText_->setPadding(QMargins(4, 2, 4, 2));
    truthText_->setClipToAxisRect(true);

    connect(profile_, &QCustomPlot::mouseDoubleClick, this,
            [this](QMouseEvent*) { updateSelection(); });
}

void MatrixTab::setupNoisePlot() {
    noise_->setObjectName(QStringLiteral("noisePlot"));
    noise_->setMinimumSize(420, 300);
    noise_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    noise_->setToolTip(
        tr("The law of the noise added independently to every bin; the shaded "
           "band holds 95% of it. Wheel: zoom, drag: pan, double-click: reset."));
    noise_->xAxis->setLabel(tr("noise added to a bin (counts)"));
    noise_->plotLayout()->insertRow(0);
    noiseTitle_ = new QCPTextElement(noise_, QString(), boldFont(font()));
    noise_->plotLayout()->addElement(0, 0, noiseTitle_);
    noise_->legend->setVisible(true);
    noise_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    connect(noise_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { drawNoise(); });
}

QWidget* MatrixTab::buildLpPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(8, 0, 4, 0);
    auto* heading = new QLabel(tr("Optimal mechanism (LP)"));
    heading->setFont(boldFont(font(), 1.1));
    auto* intro =
        new QLabel(tr("The matrix is solved by linear programming: the ε-DP mechanism "
                      "with the smallest expected error under the constraints below. "
                      "Every change re-solves."));
    intro->setWordWrap(true);
    intro->setForegroundRole(QPalette::PlaceholderText);

    objective_ = new QComboBox;
    objective_->setObjectName(QStringLiteral("lpObjective"));
    objective_->addItem(tr("L0 — any error"), QStringLiteral("l0"));
    objective_->addItem(tr("L1 — |error|"), QStringLiteral("l1"));
    objective_->addItem(tr("L2 — squared error"), QStringLiteral("l2"));
    objective_->addItem(tr("L0,d — error larger than d"), QStringLiteral("l0d"));
    objective_->setToolTip(
        tr("What the LP minimises: the probability of any error (L0), the "
           "expected absolute error (L1), the expected squared error (L2), "
           "or the probability of an error larger than d (L0,d)."));
    lossD_ = new QSpinBox;
    lossD_->setObjectName(QStringLiteral("lpLossD"));
    lossD_->setRange(1, dpx::kMaxCountPeople);
    lossD_->setValue(1);
    lossD_->setPrefix(QStringLiteral("d = "));
    lossD_->setKeyboardTracking(false);
    lossD_->setToolTip(tr("L0,d only: errors of at most d count as correct."));

    minimax_ = new QCheckBox(tr("Minimise the worst input (minimax)"));
    minimax_->setObjectName(QStringLiteral("lpMinimax"));
    minimax_->setToolTip(
        tr("Minimise the largest expected error over all true counts instead "
           "of the weighted average (the weights are then not used)."));

    weights_ = new QComboBox;
    weights_->setObjectName(QStringLiteral("lpWeights"));
    weights_->addItem(tr("uniform"));
    weights_->addItem(tr("Binomial(n, p)"));
    weights_->setToolTip(
        tr("How likely each true count is taken to be when averaging the "
           "error: uniform over 0…n, or Binomial(n, p) — as if each of the n "
           "people had the attribute independently with probability p."));
    binomialP_ = new QDoubleSpinBox;
    binomialP_->setObjectName(QStringLiteral("lpBinomialP"));
    binomialP_->setRange(0.0, 1.0);
    binomialP_->setDecimals(3);
    binomialP_->setSingleStep(0.05);
    binomialP_->setValue(0.5);
    binomialP_->setKeyboardTracking(false);
    binomialP_->setToolTip(
        tr("p of the Binomial(n, p) weights: the expected share of people "
           "with the attribute."));

    minDiagonal_ = new QDoubleSpinBox;
    minDiagonal_->setObjectName(QStringLiteral("lpMinDiagonal"));
    minDiagonal_->setRange(0.0, 1.0);
    minDiagonal_->setDecimals(3);
    minDiagonal_->setSingleStep(0.05);
    minDiagonal_->setSpecialValueText(tr("off"));
    minDiagonal_->setKeyboardTracking(false);
    minDiagonal_->setToolTip(
        tr("Accuracy floor: every true count must be reported exactly with "
           "at least this probability (0 = off). A high floor at a small ε "
           "makes the LP infeasible."));

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto addRow = [form](const QString& label, QWidget* field) {
        auto* l = new QLabel(label);
        l->setToolTip(field->toolTip());
        l->setBuddy(field);
        form->addRow(l, field);
    };
    addRow(tr("Objective"), objective_);
    addRow(tr("Tolerance"), lossD_);
    form->addRow(minimax_);
    addRow(tr("Weights"), weights_);
    addRow(tr("Binomial p"), binomialP_);
    addRow(tr("Min. diagonal"), minDiagonal_);
    for (QComboBox* box : {objective_, weights_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(12);
    }

    auto* constraints = new QGroupBox(tr("Required properties"));
    constraints->setToolTip(
        tr("Structural properties the optimal matrix must have (linear "
           "constraints of the LP)."));
    auto* grid = new QVBoxLayout(constraints);
    grid->setSpacing(2);
    for (const PropertyText& p : kPropertyTexts) {
        auto* box = new QCheckBox(QStringLiteral("%1 — %2").arg(
            QString::fromLatin1(dpx::countPropertyName(p.property)), trView(p.name).toLower()));
        box->setObjectName(QStringLiteral("lpConstraint_") + QString::fromLatin1(p.id));
        box->setToolTip(tr("Require %1: %2").arg(trView(p.name).toLower(), trView(p.words)));
        constraintBoxes_.push_back(box);
        grid->addWidget(box);
        connect(box, &QCheckBox::toggled, this, [this] { lpControlEdited(); });
    }

    layout->addWidget(heading);
    layout->addWidget(intro);
    layout->addSpacing(4);
    layout->addLayout(form);
    layout->addWidget(constraints);
    layout->addStretch(1);

    lpDebounce_ = new QTimer(this);
    lpDebounce_->setSingleShot(true);
    lpDebounce_->setInterval(200);
    connect(lpDebounce_, &QTimer::timeout, this, [this] {
        const LpSettings s = lpSettings();
        Q_EMIT lpSettingsEdited(s.objective, s.constraints, s.binomialP, s.minDiagonal);
    });
    connect(objective_, &QComboBox::currentIndexChanged, this, [this] { lpControlEdited(); });
    connect(lossD_, &QSpinBox::valueChanged, this, [this] { lpControlEdited(); });
    connect(minimax_, &QCheckBox::toggled, this, [this] { lpControlEdited(); });
    connect(weights_, &QComboBox::currentIndexChanged, this, [this] { lpControlEdited(); });
    connect(binomialP_, &QDoubleSpinBox::valueChanged, this, [this] { lpControlEdited(); });
    connect(minDiagonal_, &QDoubleSpinBox::valueChanged, this, [this] { lpControlEdited(); });
    updateLpControlStates();
    return panel;
}

// ---- palette ----------------------------------------------------------------------------------

QColor MatrixTab::logZeroColor() const {
    return isDarkPalette(palette()) ? QColor(0x60, 0x60, 0x60) : QColor(0xc8, 0xc8, 0xc8);
}

void MatrixTab::applyPalette() {
    for (QCustomPlot* plot : {heatmap_, profile_, noise_, localPlot_}) {
        stylePlot(plot, palette());
    }
    QCPColorGradient g = colorMap_->gradient();
    g.setNanColor(logZeroColor());
    colorMap_->setGradient(g);
    localMap_->setGradient(g);
    const QColor fg = palette().color(QPalette::WindowText);
    noiseTitle_->setTextColor(fg);
    profileTitle_->setTextColor(fg);
    lpWarning_->setStyleSheet(isDarkPalette(palette()) ? QStringLiteral("color:#ffb74d;")
                                                       : QStringLiteral("color:#a15c00;"));
    pending_->setStyleSheet(isDarkPalette(palette()) ? QStringLiteral("color:#ffb74d;")
                                                     : QStringLiteral("color:#a15c00;"));
    styleChip(l0Badge_, ChipStyle::Plain, palette());
    for (QCustomPlot* plot : {heatmap_, profile_, noise_, localPlot_}) {
        replotWhenVisible(plot, QCustomPlot::rpQueuedReplot);
    }
}

void MatrixTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        if (heatmap_) {
            applyPalette();
        }
    }
}

// ---- pages ------------------------------------------------------------------------------------

void MatrixTab::showPage(Page page) {
    stack_->setCurrentIndex(static_cast<int>(page));
    const bool matrix = page == Page::Matrix;
    inputLabel_->setVisible(matrix);
    input_->setVisible(matrix);
    logBox_->setVisible(page != Page::Message && (page != Page::Local || report_.has_value()));
    if (page == Page::Noise) {
        logBox_->setText(tr("Log y axis"));
        logBox_->setToolTip(
            tr("Logarithmic probability axis: the tails of the noise become "
               "visible (a Laplace tail is a straight line)."));
    } else {
        logBox_->setText(tr("Log colour scale"));
        logBox_->setToolTip(tr("Colour by log10 of the probability, so that tiny entries (the "
                               "tails of the mechanism) become visible. Exact zeros are drawn "
                               "grey; entries below %1 take the colour of %1.")
                                .arg(num(kLogFloor)));
    }
    badgeBar_->setVisible(matrix);
}

MatrixTab::Page MatrixTab::currentPage() const {
    return static_cast<Page>(stack_->currentIndex());
}

QCustomPlot* MatrixTab::currentPlot() const {
    switch (currentPage()) {
        case Page::Matrix:
            return heatmap_;
        case Page::Noise:
            return noise_;
        case Page::Local:
            return report_ ? localPlot_ : nullptr;
        case Page::Message:
            break;
    }
    return nullptr;
}

void MatrixTab::clearPending() {
    pending_->clear();
    pending_->hide();
}

void MatrixTab::setPending(const QString& what) {
    if (currentPage() == Page::Message) {
        // The message described the previous state (an error, "No mechanism yet."): it goes at
        // once, as does the LP status of the previous solve.
        setMessage(what + QStringLiteral("…"));
        return;
    }
    // One short line: the title above still names the result on show.
    pending_->setText(tr("%1… Shown: the previous result.").arg(what));
    pending_->show();
}

void MatrixTab::setCancelled(const QString& what) {
    if (currentPage() == Page::Message) {
        setMessage(
            tr("%1: cancelled. Nothing to show; change a setting to compute again.").arg(what));
        return;
    }
    pending_->setText(
        tr("%1: cancelled. Shown: the previous result; change a setting to compute again.")
            .arg(what));
    pending_->show();
}

QString MatrixTab::pendingText() const {
    return pending_->isVisibleTo(this) ? pending_->text() : QString();
}

void MatrixTab::setMessage(const QString& text) {
    clearPending();
    mech_.reset();
    noiseLaw_.reset();
    report_.reset();
    selected_ = -1;
    message_->setText(text.isEmpty() ? tr("Nothing to show.") : text);
    title_->clear();
    updateLpStatus(nullptr);
    showPage(Page::Message);
}

// ---- count mechanisms ---------------------------------------------------------------------------

void MatrixTab::setLpResult(const dpx::CountLpResult& lp, const MatrixInfo& info) {
    if (lp.status == dpx::LpStatus::Optimal && lp.mechanism) {
        setCountMechanism(*lp.mechanism, info, &lp);
        return;
    }
    // setCountMechanism ignores the matrix for a non-optimal result; any valid one will do.
    static const dpx::CountMechanism placeholder = *dpx::uniformMechanism(1);
    setCountMechanism(placeholder, info, &lp);
}

void MatrixTab::setCountMechanism(const dpx::CountMechanism& m, const MatrixInfo& info,
                                   const dpx::CountLpResult* lp) {
    clearPending();
    noiseLaw_.reset();
    report_.reset();
    title_->setText(info.title);
    if (lp && (lp->status != dpx::LpStatus::Optimal || !lp->mechanism)) {
        mech_.reset();
        selected_ = -1;
        updateLpStatus(lp);
        QString text;
        switch (lp->status) {
            case dpx::LpStatus::Infeasible:
                text = tr("No ε-DP mechanism at ε = %1 satisfies all the required properties "
                          "and the minimum diagonal: the LP is infeasible.\n\nRemove a "
                          "property, lower the minimum diagonal, or raise ε.")
                           .arg(num(info.epsilon, 6));
                break;
            case dpx::LpStatus::TimeLimit:
                text = tr("The solver reached its time limit after %1 s (%2 iterations) "
                          "without an optimal mechanism.\n\nTry a smaller n or fewer required "
                          "properties.")
                           .arg(num(lp->seconds, 3), groupedInt(lp->iterations));
                break;
            case dpx::LpStatus::Cancelled:
                text = tr("The LP solve was cancelled; no mechanism to show.");
                break;
            case dpx::LpStatus::Failed:
            case dpx::LpStatus::Optimal:
                text = tr("The LP solver failed; no mechanism to show.");
                break;
        }
        message_->setText(text);
        showPage(Page::Message);
        return;
    }

    const bool sameSize = mech_ && mech_->size() == m.size();
    mech_ = m;
    const int n = static_cast<int>(m.people());
    const auto& p = m.rowMajor();
    double minPositive = 1;
    maxEntry_ = 0;
    for (double v : p) {
        maxEntry_ = std::max(maxEntry_, v);
        if (v > 0) {
            minPositive = std::min(minPositive, v);
        }
    }
    logFloor_ = std::max(minPositive, kLogFloor);

    if (!sameSize || selected_ < 0 || selected_ > n) {
        selected_ = n / 2;
    }
    {
        const QSignalBlocker block(input_);
        input_->setRange(0, n);
        input_->setValue(selected_);
    }
    input_->setToolTip(tr("The true count whose column is profiled below the heatmap (0…%1). "
                          "You can also click a column of the heatmap.")
                           .arg(n));

    updateBadges(info);
    updateLpStatus(lp);
    fillHeatmap();
    resetHeatmapView();
    showPage(Page::Matrix);
    updateSelection();
}

void MatrixTab::fillHeatmap() {
    if (!mech_) {
        return;
    }
    const int size = static_cast<int>(mech_->size());
    const auto& p = mech_->rowMajor();
    QCPColorMapData* mapData = colorMap_->data();
    mapData->setSize(size, size);
    mapData->setRange(QCPRange(0, size - 1), QCPRange(0, size - 1));
    // One pass in storage order: cell (key j, value i) = P[i][j].
    if (!log_) {
        for (int i = 0; i < size; ++i) {
            const double* row = p.data() + static_cast<std::size_t>(i) * size;
            for (int j = 0; j < size; ++j) {
                mapData->setCell(j, i, row[j]);
            }
        }
        colorMap_->setDataRange(QCPRange(0, maxEntry_ > 0 ? maxEntry_ : 1));
        colorScale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        colorScale_->axis()->setNumberFormat(QStringLiteral("gb"));
        colorScale_->axis()->setLabel(tr("P[output i | true count j]"));
        heatmapHint_->setText(
            tr("Click a column (or set the true count above) to see its "
               "profile below. Wheel: zoom, drag: pan, double-click: reset."));
    } else {
        const double lf = std::log10(logFloor_);
        for (int i = 0; i < size; ++i) {
            const double* row = p.data() + static_cast<std::size_t>(i) * size;
            for (int j = 0; j < size; ++j) {
                const double v = row[j];
                mapData->setCell(j, i, v > 0 ? std::max(std::log10(v), lf) : kNaN);
            }
        }
        double hi = std::log10(std::max(maxEntry_, logFloor_));
        double lo = lf;
        if (hi - lo < 1) {
            lo = hi - 1;
        }
        colorMap_->setDataRange(QCPRange(lo, hi));
        // Decade ticks labelled as probabilities.
        auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
        const int first = static_cast<int>(std::ceil(lo - 1e-9));
        const int last = static_cast<int>(std::floor(hi + 1e-9));
        const int step = std::max(1, static_cast<int>(std::ceil((last - first) / 6.0)));
        for (int k = last; k >= first; k -= step) {
            ticker->addTick(k, decadeLabel(k));
        }
        ticker->setSubTickCount(0);
        colorScale_->axis()->setTicker(ticker);
        colorScale_->axis()->setNumberFormat(QStringLiteral("g"));  // labels as given
        colorScale_->axis()->setLabel(tr("P[output i | true count j] (log scale)"));
        const bool hasZero = std::any_of(p.begin(), p.end(), [](double v) { return v == 0; });
        QString hint = tr("Log colour scale.");
        if (hasZero) {
            hint += QLatin1Char(' ') + tr("Grey cells are exact zeros.");
        }
        if (logFloor_ <= kLogFloor) {
            hint += QLatin1Char(' ') +
                    tr("Entries below %1 take the colour of %1.").arg(num(kLogFloor));
        }
        hint += QLatin1Char(' ') + tr("Click a column to see its profile below.");
        heatmapHint_->setText(hint);
    }
}

void MatrixTab::resetHeatmapView() {
    if (!mech_) {
        return;
    }
    const double n = static_cast<double>(mech_->people());
    heatmap_->xAxis->setRange(-0.5, n + 0.5);
    heatmap_->yAxis->setRange(-0.5, n + 0.5);
}

void MatrixTab::setLogScale(bool on) {
    if (on != logBox_->isChecked()) {
        const QSignalBlocker block(logBox_);
        logBox_->setChecked(on);
    }
    if (on == log_) {
        return;
    }
    log_ = on;
    if (mech_) {
        fillHeatmap();
        updateSelection();
    } else if (noiseLaw_) {
        drawNoise();
    } else if (report_) {
        fillLocalHeatmap();
    }
}

void MatrixTab::selectInput(int j) {
    if (!mech_) {
        return;
    }
    j = std::clamp(j, 0, static_cast<int>(mech_->people()));
    if (j == selected_) {
        return;
    }
    selected_ = j;
    {
        const QSignalBlocker block(input_);
        input_->setValue(j);
    }
    updateSelection();
    Q_EMIT inputSelected(j);
}

void MatrixTab::updateSelection() {
    if (!mech_ || selected_ < 0) {
        return;
    }
    const int size = static_cast<int>(mech_->size());
    const int n = size - 1;
    const int j = selected_;
    selectionRect_->topLeft->setCoords(j - 0.5, -0.5);
    selectionRect_->bottomRight->setCoords(j + 0.5, n + 0.5);
    selectionRect_->setVisible(true);
    replotWhenVisible(heatmap_, QCustomPlot::rpQueuedReplot);

    QVector<double> keys(size), values(size);
    double maxValue = 0;
    double minPositive = 1;
    for (int i = 0; i < size; ++i) {
        keys[i] = i;
        values[i] = mech_->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
        maxValue = std::max(maxValue, values[i]);
        if (values[i] > 0) {
            minPositive = std::min(minPositive, values[i]);
        }
    }
    const QPen barPen = size > 150 ? QPen(Qt::NoPen) : QPen(kBarColor.darker(120));
    profileBars_->setPen(barPen);
    profileBars_->setWidth(size > 150 ? 1.0 : 0.8);  // no hairline gaps between thin bars
    profileTruth_->setWidth(size > 150 ? 1.0 : 0.8);
    profileTruth_->setPen(size > 150 ? QPen(Qt::NoPen) : QPen(kAccent.darker(120)));
    if (log_) {
        const double lower = std::max(minPositive, logFloor_) / 2;
        for (double& v : values) {
            v = std::max(v, lower);
        }
        profileBars_->setBaseValue(lower);
        profileTruth_->setBaseValue(lower);
        profile_->yAxis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
        ticker->setSubTickCount(0);
        profile_->yAxis->setTicker(ticker);
        profile_->yAxis->setNumberFormat(QStringLiteral("eb"));
        profile_->yAxis->setNumberPrecision(0);
        profile_->yAxis->setRange(lower, std::max(maxValue, lower * 10) * 3);
        profile_->yAxis->setLabel(tr("probability (log scale)"));
    } else {
        profileBars_->setBaseValue(0);
        profileTruth_->setBaseValue(0);
        profile_->yAxis->setScaleType(QCPAxis::stLinear);
        profile_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        profile_->yAxis->setNumberFormat(QStringLiteral("gb"));
        profile_->yAxis->setNumberPrecision(6);
        profile_->yAxis->setRange(0, (maxValue > 0 ? maxValue : 1) * 1.2);
        profile_->yAxis->setLabel(tr("probability"));
    }
    profileBars_->setData(keys, values, true);
    profileTruth_->setData(QVector<double>{static_cast<double>(j)}, QVector<double>{values[j]},
                           true);
    profile_->xAxis->setRange(-0.5, n + 0.5);
    truthLine_->point1->setCoords(j, 0);
    truthLine_->point2->setCoords(j, 1);
    truthText_->setText(tr("true count %1").arg(j));
    const bool right = j > n / 2;
    truthText_->setPositionAlignment(Qt::AlignTop | (right ? Qt::AlignRight : Qt::AlignLeft));
    truthText_->setPadding(right ? QMargins(4, 2, 8, 2) : QMargins(8, 2, 4, 2));
    truthText_->position->setCoords(right ? j - 0.5 : j + 0.5, 0.0);
    profileTitle_->setText(tr("Column j = %1: P[output i | true count %1]").arg(j));
    replotWhenVisible(profile_, QCustomPlot::rpQueuedReplot);

    summary_->setText(inputErrorSummary(*mech_, static_cast<std::size_t>(j)));
}

std::optional<std::pair<int, int>> MatrixTab::cellAt(const QPointF& pos) const {
    if (!mech_ || !heatmap_->axisRect()->rect().contains(pos.toPoint())) {
        return std::nullopt;
    }
    const int j = static_cast<int>(std::lround(heatmap_->xAxis->pixelToCoord(pos.x())));
    const int i = static_cast<int>(std::lround(heatmap_->yAxis->pixelToCoord(pos.y())));
    const int n = static_cast<int>(mech_->people());
    if (i < 0 || j < 0 || i > n || j > n) {
        return std::nullopt;
    }
    return std::make_pair(j, i);
}

void MatrixTab::heatmapMouseMove(const QPointF& pos, const QPoint& globalPos) {
    if (auto cell = cellAt(pos)) {
        QToolTip::showText(globalPos, cellToolTip(cell->first, cell->second), heatmap_);
    } else {
        QToolTip::hideText();
    }
}

QString MatrixTab::cellToolTip(int j, int i) const {
    if (!mech_ || i < 0 || j < 0 || i >= static_cast<int>(mech_->size()) ||
        j >= static_cast<int>(mech_->size())) {
        return {};
    }
    const double v = mech_->at(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
    QString text = tr("P[output i | true count j] = %1 (j = %2, i = %3)")
                       .arg(v == 0 ? QStringLiteral("0") : num(v, 4))
                       .arg(j)
                       .arg(i);
    if (v == 0) {
        text += tr(" — exactly zero: output %1 is never reported for true count %2").arg(i).arg(j);
    }
    return text;
}

void MatrixTab::updateBadges(const MatrixInfo& info) {
    const dpx::CountMechanism& m = *mech_;
    const double achieved = m.achievedEpsilon();
    const double eps = info.epsilon;
    const QString mechanismMeaning =
        tr("Achieved ε is the largest |ln P[i | j] − ln P[i | j+1]| over all outputs i and "
           "neighbouring true counts j, j+1: the smallest ε with P[i | j] ≤ e^ε · P[i | j±1] "
           "everywhere in this matrix as stored.");
    if (info.delta) {
        privacyBadge_->setText(
            tr("(ε, δ)-DP mechanism — pure level of this matrix: %1").arg(achievedText(achieved)));
        privacyBadge_->setToolTip(
            tr("This mechanism is calibrated for (ε, δ) = (%1, %2) and is not ε-DP in general: "
               "Gaussian tail ratios grow without bound, so the pure level of the clamped "
               "matrix (%3) grows with n. It describes this finite matrix only and is not the "
               "guarantee of the mechanism.\n\n%4")
                .arg(num(eps, 6), num(*info.delta, 6), achievedText(achieved), mechanismMeaning));
        styleChip(privacyBadge_, ChipStyle::Warning);
    } else if (achieved <= eps * (1 + 1e-12)) {
        privacyBadge_->setText(tr("ε-DP ✓ (achieved ε = %1)").arg(num(achieved, 4)));
        privacyBadge_->setToolTip(tr("The matrix is ε-DP for the requested ε = %1 (achieved "
                                     "ε = %2).\n\n%3")
                                      .arg(num(eps, 6), num(achieved, 12), mechanismMeaning));
        styleChip(privacyBadge_, ChipStyle::Good);
    } else {
        privacyBadge_->setText(std::isinf(achieved)
                                   ? tr("NOT ε-DP: achieved ε = %1").arg(achievedText(achieved))
                                   : tr("NOT ε-DP: achieved ε = %1 > %2")
                                         .arg(distinguishing(achieved, eps), num(eps, 6)));
        privacyBadge_->setToolTip(
            tr("The matrix does not satisfy the requested ε = %1.\n\n%2%3")
                .arg(num(eps, 6), mechanismMeaning,
                     std::isinf(achieved)
                         ? tr("\n\nHere a zero entry faces a non-zero one in a neighbouring "
                              "column, so no finite ε holds.")
                         : QString()));
        styleChip(privacyBadge_, ChipStyle::Bad);
    }

    l0Badge_->setText(tr("L0 = %1").arg(num(m.l0(), 4)));
    l0Badge_->setToolTip(
        tr("Probability of a wrong report, averaged over uniformly distributed true counts and "
           "scaled by (n+1)/n: 0 is an exact (non-private) release, 1 the uniform mechanism "
           "that ignores the data."));

    const dpx::CountProperties props = m.properties();
    for (std::size_t k = 0; k < kPropertyTexts.size(); ++k) {
        const PropertyText& t = kPropertyTexts[k];
        const dpx::PropertyCheck& check = props.get(t.property);
        QLabel* chip = propertyBadges_[k];
        const QString shortName = QString::fromLatin1(dpx::countPropertyName(t.property));
        chip->setText((check.holds ? QStringLiteral("✓ ") : QStringLiteral("✗ ")) + shortName);
        chip->setProperty("holds", check.holds);
        QString tip = QStringLiteral("%1 (%2): %3").arg(trView(t.name), shortName, trView(t.words));
        tip += QStringLiteral("\n\n");
        tip += check.holds ? tr("Holds for this matrix.")
                           : tr("Does not hold. First violation: %1")
                                 .arg(QString::fromStdString(check.reason));
        chip->setToolTip(tip);
        styleChip(chip, check.holds ? ChipStyle::Good : ChipStyle::Neutral);
    }
}

void MatrixTab::updateLpStatus(const dpx::CountLpResult* lp) {
    if (!lp) {
        lpStatus_->clear();
        lpStatus_->hide();
        lpWarning_->clear();
        lpWarning_->hide();
        return;
    }
    const QString formulation = lp->symmetryReduced ? tr(" (symmetric formulation)") : QString();
    QString text = tr("LP %1 in %2 s, %3 iterations%4")
                       .arg(QString::fromLatin1(dpx::lpStatusName(lp->status)), num(lp->seconds, 2),
                            groupedInt(lp->iterations), formulation);
    if (lp->warmStarted) {
        text += tr(", warm start");
    }
    if (lp->status == dpx::LpStatus::Optimal && lp->mechanism) {
        text += tr("; objective %1").arg(num(lp->objective, 4));
        if (lp->normalised) {
            text += tr(" (normalised %1)").arg(num(*lp->normalised, 4));
        }
        if (lp->repairUniformShare > 0) {
            text += tr("; exactness repair mixed in %1 of the uniform mechanism (cost %2)")
                        .arg(num(lp->repairUniformShare, 2), num(lp->repairCost, 2));
        } else {
            text += tr("; verified ε-DP exactly without repair");
        }
    }
    lpStatus_->setText(text);
    lpStatus_->show();

    QStringList warnings;
    auto list = [](const std::vector<std::size_t>& v) {
        QStringList items;
        const std::size_t shown = std::min<std::size_t>(v.size(), 12);
        for (std::size_t k = 0; k < shown; ++k) {
            items << QString::number(v[k]);
        }
        QString s = items.join(QStringLiteral(", "));
        if (v.size() > shown) {
            s += MatrixTab::tr(", … (%1 in all)").arg(v.size());
        }
        return s;
    };
    if (!lp->gaps.empty()) {
        warnings << tr("⚠ Gaps — outputs never reported: %1").arg(list(lp->gaps));
    }
    if (!lp->spikes.empty()) {
        warnings << tr("⚠ Spikes — outputs reported with probability > 1/(n+1) whatever the "
                       "true count: %1")
                        .arg(list(lp->spikes));
    }
    lpWarning_->setText(warnings.join(QLatin1Char('\n')));
    lpWarning_->setVisible(!warnings.isEmpty());
}

// ---- noise distributions ----------------------------------------------------------------------

// ---- local protocols -------------------------------------------------------------------------

void MatrixTab::setupLocalPage() {
    localPage_ = new QWidget;
    localVerdict_ = makeChip(QStringLiteral("localPrivacyBadge"));
    localPlot_ = new QCustomPlot;
    localPlot_->setObjectName(QStringLiteral("localReportPlot"));
    localPlot_->setMinimumSize(420, 260);
    localPlot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    localPlot_->yAxis->setRangeReversed(true);
    localPlot_->xAxis->grid()->setVisible(false);
    localPlot_->yAxis->grid()->setVisible(false);
    localPlot_->axisRect()->setupFullAxesBox(false);
    localPlot_->xAxis2->setTicks(false);
    localPlot_->yAxis2->setTicks(false);
    localMap_ = new QCPColorMap(localPlot_->xAxis, localPlot_->yAxis);
    localMap_->setInterpolate(false);
    localMap_->setTightBoundary(false);
    localScale_ = new QCPColorScale(localPlot_);
    localScale_->setType(QCPAxis::atRight);
    localScale_->setBarWidth(14);
    localScale_->setRangeDrag(false);
    localScale_->setRangeZoom(false);
    localPlot_->plotLayout()->addElement(0, 1, localScale_);
    localMap_->setColorScale(localScale_);
    QCPColorGradient g = viridisGradient();
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(logZeroColor());
    localMap_->setGradient(g);
    auto* margins = new QCPMarginGroup(localPlot_);
    localPlot_->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    localScale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    localDetails_ = new QLabel;
    localDetails_->setObjectName(QStringLiteral("localDetails"));
    localDetails_->setWordWrap(true);
    localDetails_->setTextFormat(Qt::PlainText);
    localDetails_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* badgeRow = new QHBoxLayout;
    badgeRow->addWidget(localVerdict_);
    badgeRow->addStretch(1);
    auto* layout = new QVBoxLayout(localPage_);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(badgeRow);
    layout->addWidget(localPlot_, 1);
    layout->addWidget(localDetails_);
}

void MatrixTab::setLocalMechanism(const dpx::ldp::ReportMatrix* m, const QString& title,
                                   double epsilon, const QStringList& valueLabels,
                                   const QString& details, const QString& why) {
    clearPending();
    mech_.reset();
    noiseLaw_.reset();
    selected_ = -1;
    updateLpStatus(nullptr);
    title_->setText(title);
    localEpsilon_ = epsilon;
    QString text = details;
    if (!m) {
        report_.reset();
        localPlot_->setVisible(false);
        localVerdict_->setText(tr("ε-local DP by construction (report matrix not enumerated)"));
        styleChip(localVerdict_, ChipStyle::Neutral);
        localVerdict_->setToolTip(
            tr("The report space of this protocol is too large to list as a matrix here (%1); "
               "its privacy follows from the report probabilities below.")
                .arg(why));
        localDetails_->setText(text + QStringLiteral("\n\n") +
                               tr("No report matrix to show: %1.").arg(why));
        showPage(Page::Local);
        return;
    }
    report_ = *m;
    localPlot_->setVisible(true);
    const double achieved = dpx::ldp::localEpsilonOf(*m);
    const QString meaning =
        tr("Achieved local ε is the largest ln(P[r | v] / P[r | v′]) over all reports r and "
           "all pairs of values v, v′: every report is at most e^ε times more likely for one "
           "person's value than for any other value.");
    if (achieved <= epsilon * (1 + 1e-12)) {
        localVerdict_->setText(tr("ε-local DP ✓ (achieved ε = %1)").arg(num(achieved, 4)));
        styleChip(localVerdict_, ChipStyle::Good);
    } else {
        localVerdict_->setText(std::isinf(achieved) ? tr("NOT ε-local DP: achieved ε = ∞")
                                                    : tr("NOT ε-local DP: achieved ε = %1 > %2")
                                                          .arg(num(achieved, 6), num(epsilon, 6)));
        styleChip(localVerdict_, ChipStyle::Bad);
    }
    localVerdict_->setToolTip(meaning);
    // Axes: values (the bins) across, reports down; labelled when few enough to read.
    const int values = m->p.empty() ? 0 : static_cast<int>(m->p.front().size());
    const int reports = static_cast<int>(m->p.size());
    auto xt = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const int xStep = std::max(1, values / 16);
    for (int j = 0; j < values; j += xStep) {
        xt->addTick(j, j < valueLabels.size() ? valueLabels[j] : QString::number(j));
    }
    localPlot_->xAxis->setTicker(xt);
    localPlot_->xAxis->setLabel(tr("person's true value (bin)"));
    auto yt = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const int yStep = std::max(1, reports / 24);
    for (int r = 0; r < reports; r += yStep) {
        yt->addTick(r, QString::fromStdString(m->reportLabels[static_cast<std::size_t>(r)]));
    }
    localPlot_->yAxis->setTicker(yt);
    localPlot_->yAxis->setLabel(tr("report sent to the collector"));
    localPlot_->xAxis->setRange(-0.5, values - 0.5);
    localPlot_->yAxis->setRange(-0.5, reports - 0.5);
    localDetails_->setText(text);
    fillLocalHeatmap();
    showPage(Page::Local);
}

void MatrixTab::fillLocalHeatmap() {
    if (!report_ || report_->p.empty()) {
        return;
    }
    const auto& p = report_->p;
    const int reports = static_cast<int>(p.size());
    const int values = static_cast<int>(p.front().size());
    QCPColorMapData* cells = localMap_->data();
    cells->setSize(values, reports);
    cells->setRange(QCPRange(0, std::max(values - 1, 1)), QCPRange(0, std::max(reports - 1, 1)));
    double hi = 0, minPositive = 1;
    for (const auto& row : p) {
        for (double v : row) {
            hi = std::max(hi, v);
            if (v > 0) {
                minPositive = std::min(minPositive, v);
            }
        }
    }
    if (!log_) {
        for (int r = 0; r < reports; ++r) {
            for (int j = 0; j < values; ++j) {
                cells->setCell(j, r, p[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)]);
            }
        }
        localMap_->setDataRange(QCPRange(0, hi > 0 ? hi : 1));
        localScale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        localScale_->axis()->setLabel(tr("P[report | value]"));
    } else {
        const double lf = std::log10(std::max(minPositive, kLogFloor));
        for (int r = 0; r < reports; ++r) {
            for (int j = 0; j < values; ++j) {
                const double v = p[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)];
                cells->setCell(j, r, v > 0 ? std::max(std::log10(v), lf) : kNaN);
            }
        }
        double top = std::log10(std::max(hi, kLogFloor));
        double lo = lf;
        if (top - lo < 1) {
            lo = top - 1;
        }
        localMap_->setDataRange(QCPRange(lo, top));
        auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
        for (int k = static_cast<int>(std::floor(top + 1e-9));
             k >= static_cast<int>(std::ceil(lo - 1e-9)); --k) {
            ticker->addTick(k, decadeLabel(k));
        }
        ticker->setSubTickCount(0);
        localScale_->axis()->setTicker(ticker);
        localScale_->axis()->setLabel(tr("P[report | value] (log scale)"));
    }
    replotWhenVisible(localPlot_);
}

QString MatrixTab::localVerdictText() const {
    return localVerdict_->text();
}

double MatrixTab::localCellValue(int j, int r) const {
    if (!report_ || r < 0 || j < 0 || r >= static_cast<int>(report_->p.size()) ||
        j >= static_cast<int>(report_->p.front().size())) {
        return kNaN;
    }
    return localMap_->data()->cell(j, r);
}

void MatrixTab::setNoiseDistribution(const dpx::NoiseDistribution& noise, const QString& title) {
    clearPending();
    mech_.reset();
    report_.reset();
    selected_ = -1;
    noiseLaw_ = noise;
    title_->setText(title);
    updateLpStatus(nullptr);
    showPage(Page::Noise);
    drawNoise();
}

void MatrixTab::drawNoise() {
    if (!noiseLaw_) {
        return;
    }
    const dpx::NoiseDistribution& law = *noiseLaw_;
    noise_->clearPlottables();
    noise_->clearItems();
    noiseCurve_ = nullptr;
    const double q95 = law.absQuantile(0.95);
    double reach = 1.15 * law.absQuantile(0.999);
    if (law.isDiscrete()) {
        reach = std::max(3.0, std::ceil(reach));
    } else if (!(reach > 0)) {
        reach = 1;
    }
    QColor band = kBarColor;
    band.setAlphaF(0.28f);
    QColor faint = kBarColor;
    faint.setAlphaF(0.45f);
    double maxValue = 0;
    double minValue = std::numeric_limits<double>::infinity();
    const QString q95Text = num(q95, 4);

    if (law.isDiscrete()) {
        const int r = static_cast<int>(reach);
        QVector<double> keysIn, valuesIn, keysOut, valuesOut, allKeys, allValues;
        for (int z = -r; z <= r; ++z) {
            const double v = law.density(z);
            allKeys << z;
            allValues << v;
            (std::abs(z) <= q95 ? keysIn : keysOut) << z;
            (std::abs(z) <= q95 ? valuesIn : valuesOut) << v;
            maxValue = std::max(maxValue, v);
            if (v > 0) {
                minValue = std::min(minValue, v);
            }
        }
        // The pmf itself (hidden line, for the data and the legend), then the bars.
        noiseCurve_ = noise_->addGraph();
        noiseCurve_->setData(allKeys, allValues, true);
        noiseCurve_->setLineStyle(QCPGraph::lsNone);
        noiseCurve_->removeFromLegend();
        const double width = 2 * r + 1 > 300 ? 1.0 : 0.8;
        const double base = log_ ? minValue / 2 : 0;
        auto* inside = new QCPBars(noise_->xAxis, noise_->yAxis);
        inside->setName(tr("probability, central 95% (|z| ≤ %1)").arg(q95Text));
        inside->setData(keysIn, valuesIn, true);
        inside->setBrush(kBarColor);
        inside->setPen(2 * r + 1 > 150 ? QPen(Qt::NoPen) : QPen(kBarColor.darker(120)));
        inside->setWidth(width);
        inside->setBaseValue(base);
        auto* outside = new QCPBars(noise_->xAxis, noise_->yAxis);
        outside->setName(tr("probability, |z| > %1").arg(q95Text));
        outside->setData(keysOut, valuesOut, true);
        outside->setBrush(faint);
        outside->setPen(Qt::NoPen);
        outside->setWidth(width);
        outside->setBaseValue(base);
        noise_->yAxis->setLabel(log_ ? tr("probability (log scale)") : tr("probability"));
    } else {
        constexpr int kPoints = 801;  // odd: x = 0 is a sample
        QVector<double> keys(kPoints), values(kPoints);
        for (int k = 0; k < kPoints; ++k) {
            keys[k] = -reach + 2 * reach * k / (kPoints - 1);
            values[k] = law.density(keys[k]);
            maxValue = std::max(maxValue, values[k]);
            if (values[k] > 0) {
                minValue = std::min(minValue, values[k]);
            }
        }
        constexpr int kBandPoints = 401;
        QVector<double> bandKeys(kBandPoints), bandValues(kBandPoints);
        for (int k = 0; k < kBandPoints; ++k) {
            bandKeys[k] = -q95 + 2 * q95 * k / (kBandPoints - 1);
            bandValues[k] = law.density(bandKeys[k]);
        }
        auto* shade = noise_->addGraph();
        shade->setName(tr("central 95%: |noise| ≤ %1").arg(q95Text));
        shade->setData(bandKeys, bandValues, true);
        shade->setPen(Qt::NoPen);
        shade->setBrush(band);
        noiseCurve_ = noise_->addGraph();
        noiseCurve_->setName(tr("density"));
        noiseCurve_->setData(keys, values, true);
        noiseCurve_->setPen(QPen(kBarColor, 2));
        noise_->yAxis->setLabel(log_ ? tr("density (log scale)") : tr("density"));
        // density → legend entry first
        noise_->legend->clearItems();
        noiseCurve_->addToLegend();
        shade->addToLegend();
    }
    const double edgeAt = law.isDiscrete() ? q95 + 0.5 : q95;  // between bars
    for (double s : {-edgeAt, edgeAt}) {
        auto* edge = new QCPItemStraightLine(noise_);
        QColor c = palette().color(QPalette::WindowText);
        c.setAlphaF(0.5f);
        edge->setPen(QPen(c, 1, Qt::DashLine));
        edge->point1->setCoords(s, 0);
        edge->point2->setCoords(s, 1);
    }
    noise_->xAxis->setRange(-reach, reach);
    if (log_ && std::isfinite(minValue)) {
        noise_->yAxis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
        ticker->setSubTickCount(0);
        noise_->yAxis->setTicker(ticker);
        noise_->yAxis->setNumberFormat(QStringLiteral("eb"));
        noise_->yAxis->setNumberPrecision(0);
        noise_->yAxis->setRange(minValue / 2, maxValue * 3);
    } else {
        noise_->yAxis->setScaleType(QCPAxis::stLinear);
        noise_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        noise_->yAxis->setNumberFormat(QStringLiteral("gb"));
        noise_->yAxis->setNumberPrecision(6);
        noise_->yAxis->setRange(0, (maxValue > 0 ? maxValue : 1) * 1.12);
    }
    noiseTitle_->setText(tr("%1 — noise added to every bin\n95% of it lies within ±%2; "
                            "standard deviation %3; mean |noise| %4")
                             .arg(QString::fromStdString(law.describe()), q95Text,
                                  num(std::sqrt(law.variance()), 4), num(law.meanAbs(), 4)));
    replotWhenVisible(noise_, QCustomPlot::rpQueuedReplot);
}

QVector<QPointF> MatrixTab::noiseCurve() const {
    QVector<QPointF> points;
    if (!noiseCurve_ || currentPage() != Page::Noise) {
        return points;
    }
    for (auto it = noiseCurve_->data()->constBegin(); it != noiseCurve_->data()->constEnd(); ++it) {
        points << QPointF(it->key, it->value);
    }
    return points;
}

// ---- LP controls --------------------------------------------------------------------------------

void MatrixTab::setLpControlsVisible(bool on) {
    lpVisible_ = on;
    lpPanel_->setVisible(on);
}

bool MatrixTab::lpControlsVisible() const {
    return lpVisible_;
}

void MatrixTab::lpControlEdited() {
    updateLpControlStates();
    lpDebounce_->start();
}

void MatrixTab::updateLpControlStates() {
    lossD_->setEnabled(objective_->currentData().toString() == QStringLiteral("l0d"));
    weights_->setEnabled(!minimax_->isChecked());
    binomialP_->setEnabled(!minimax_->isChecked() && weights_->currentIndex() == 1);
}

LpSettings MatrixTab::lpSettings() const {
    LpSettings s;
    QString objective = objective_->currentData().toString();
    if (objective == QStringLiteral("l0d")) {
        objective += QStringLiteral(":%1").arg(lossD_->value());
    }
    s.objective = (minimax_->isChecked() ? QStringLiteral("minimax-") : QString()) + objective;
    for (std::size_t k = 0; k < kPropertyTexts.size(); ++k) {
        if (constraintBoxes_[k]->isChecked()) {
            s.constraints << QString::fromLatin1(kPropertyTexts[k].id);
        }
    }
    s.binomialP = weights_->currentIndex() == 1 ? binomialP_->value() : -1;
    s.minDiagonal = minDiagonal_->value();
    return s;
}

void MatrixTab::setLpSettings(const QString& objective, const QStringList& constraints,
                               double binomialP, double minDiagonal) {
    const QSignalBlocker b1(objective_), b2(lossD_), b3(minimax_), b4(weights_), b5(binomialP_),
        b6(minDiagonal_);
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QCheckBox* box : constraintBoxes_) {
        blockers.push_back(std::make_unique<QSignalBlocker>(box));
    }
    QString obj = objective.trimmed().toLower();
    const QString prefix = QStringLiteral("minimax-");
    const bool minimax = obj.startsWith(prefix);
    if (minimax) {
        obj = obj.mid(prefix.size());
    }
    int index = -1;
    if (obj.startsWith(QStringLiteral("l0d:"))) {
        bool ok = false;
        const int d = obj.mid(4).toInt(&ok);
        if (ok && d >= lossD_->minimum() && d <= lossD_->maximum()) {
            lossD_->setValue(d);
            index = objective_->findData(QStringLiteral("l0d"));
        }
    } else if (obj != QStringLiteral("l0d")) {
        index = objective_->findData(obj);
    }
    if (index >= 0) {
        objective_->setCurrentIndex(index);
        minimax_->setChecked(minimax);
    }
    for (std::size_t k = 0; k < kPropertyTexts.size(); ++k) {
        constraintBoxes_[k]->setChecked(
            constraints.contains(QString::fromLatin1(kPropertyTexts[k].id), Qt::CaseInsensitive));
    }
    if (binomialP < 0) {
        weights_->setCurrentIndex(0);
    } else if (binomialP <= 1) {
        weights_->setCurrentIndex(1);
        binomialP_->setValue(binomialP);
    }
    if (minDiagonal >= 0 && minDiagonal <= 1) {
        minDiagonal_->setValue(minDiagonal);
    }
    updateLpControlStates();
    lpDebounce_->stop();
}

// ---- test hooks ---------------------------------------------------------------------------------

double MatrixTab::cellValue(int j, int i) const {
    if (!mech_ || i < 0 || j < 0 || i >= colorMap_->data()->valueSize() ||
        j >= colorMap_->data()->keySize()) {
        return kNaN;
    }
    return colorMap_->data()->cell(j, i);
}

std::vector<double> MatrixTab::profileValues() const {
    std::vector<double> v;
    if (!mech_) {
        return v;
    }
    for (auto it = profileBars_->data()->constBegin(); it != profileBars_->data()->constEnd();
         ++it) {
        v.push_back(it->value);
    }
    return v;
}

QString MatrixTab::summaryText() const {
    return mech_ ? summary_->text() : QString();
}

QString MatrixTab::titleText() const {
    return title_->text();
}

QString MatrixTab::privacyBadgeText() const {
    return badgeBar_->isVisibleTo(this) ? privacyBadge_->text() : QString();
}

QString MatrixTab::l0BadgeText() const {
    return badgeBar_->isVisibleTo(this) ? l0Badge_->text() : QString();
}

std::optional<bool> MatrixTab::propertyBadgeHolds(dpx::CountProperty p) const {
    if (!badgeBar_->isVisibleTo(this)) {
        return std::nullopt;
    }
    for (std::size_t k = 0; k < kPropertyTexts.size(); ++k) {
        if (kPropertyTexts[k].property == p) {
            return propertyBadges_[k]->property("holds").toBool();
        }
    }
    return std::nullopt;
}

QString MatrixTab::propertyBadgeText(dpx::CountProperty p) const {
    for (std::size_t k = 0; k < kPropertyTexts.size(); ++k) {
        if (kPropertyTexts[k].property == p) {
            return propertyBadges_[k]->text();
        }
    }
    return {};
}

QString MatrixTab::propertyBadgeToolTip(dpx::CountProperty p) const {
    for (std::size_t k = 0; k < kPropertyTexts.size(); ++k) {
        if (kPropertyTexts[k].property == p) {
            return propertyBadges_[k]->toolTip();
        }
    }
    return {};
}

QString MatrixTab::lpStatusText() const {
    return lpStatus_->isVisibleTo(this) ? lpStatus_->text() : QString();
}

QString MatrixTab::lpWarningText() const {
    return lpWarning_->isVisibleTo(this) ? lpWarning_->text() : QString();
}

QString MatrixTab::messageText() const {
    return currentPage() == Page::Message ? message_->text() : QString();
}

}  // namespace dpx::ui
