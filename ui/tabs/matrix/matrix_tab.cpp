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
#include "ui/widgets/flow_layout.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

#include "core/count/count_analysis.h"
#include "core/count/lp_objective.h"
#include "ui/tabs/matrix/matrix_support.h"

namespace dpx::ui {

using namespace matrix;

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
        .arg(formatProbability(e->pCorrect, 3), formatSignificantOrSymbol(e->meanAbs, 3),
             formatSigned(e->bias, 3), formatProbability(e->pOffByMoreThan(1), 3),
             formatSignificantOrSymbol(std::sqrt(e->meanSquare), 3));
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

// ---- palette ----------------------------------------------------------------------------------

QColor MatrixTab::logZeroColor() const {
    return isDarkPalette(palette()) ? QColor(0x60, 0x60, 0x60) : QColor(0xc8, 0xc8, 0xc8);
}

void MatrixTab::applyPalette() {
    for (QCustomPlot* plot : {heatmap_, profile_, noise_, localPlot_}) {
        applyAllAxesPalette(plot, palette());
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
                                .arg(formatSignificantOrSymbol(kLogFloor, 3)));
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
                           .arg(formatSignificantOrSymbol(info.epsilon, 6));
                break;
            case dpx::LpStatus::TimeLimit:
                text = tr("The solver reached its time limit after %1 s (%2 iterations) "
                          "without an optimal mechanism.\n\nTry a smaller n or fewer required "
                          "properties.")
                           .arg(formatSignificantOrSymbol(lp->seconds, 3),
                                formatThinSpaceGrouped(lp->iterations));
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
                .arg(formatSignificantOrSymbol(eps, 6), formatSignificantOrSymbol(*info.delta, 6),
                     achievedText(achieved), mechanismMeaning));
        styleChip(privacyBadge_, ChipStyle::Warning);
    } else if (achieved <= eps * (1 + 1e-12)) {
        privacyBadge_->setText(
            tr("ε-DP ✓ (achieved ε = %1)").arg(formatSignificantOrSymbol(achieved, 4)));
        privacyBadge_->setToolTip(tr("The matrix is ε-DP for the requested ε = %1 (achieved "
                                     "ε = %2).\n\n%3")
                                      .arg(formatSignificantOrSymbol(eps, 6),
                                           formatSignificantOrSymbol(achieved, 12),
                                           mechanismMeaning));
        styleChip(privacyBadge_, ChipStyle::Good);
    } else {
        privacyBadge_->setText(
            std::isinf(achieved)
                ? tr("NOT ε-DP: achieved ε = %1").arg(achievedText(achieved))
                : tr("NOT ε-DP: achieved ε = %1 > %2")
                      .arg(formatDistinguishing(achieved, eps), formatSignificantOrSymbol(eps, 6)));
        privacyBadge_->setToolTip(
            tr("The matrix does not satisfy the requested ε = %1.\n\n%2%3")
                .arg(formatSignificantOrSymbol(eps, 6), mechanismMeaning,
                     std::isinf(achieved)
                         ? tr("\n\nHere a zero entry faces a non-zero one in a neighbouring "
                              "column, so no finite ε holds.")
                         : QString()));
        styleChip(privacyBadge_, ChipStyle::Bad);
    }

    l0Badge_->setText(tr("L0 = %1").arg(formatSignificantOrSymbol(m.l0(), 4)));
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

// ---- local protocols -------------------------------------------------------------------------

// ---- LP controls --------------------------------------------------------------------------------

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
