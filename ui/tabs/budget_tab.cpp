#include "ui/tabs/budget_tab.h"

#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "io/release/release_job.h"
#include "ui/model/job_runner.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"
#include "ui/widgets/side_by_side.h"

namespace dpx::ui {

namespace {

const QColor kSplitColour(66, 133, 244);
const QColor kHeldColour(230, 97, 0);
const QColor kErrorColour(200, 30, 30);
// More bars than this: no share labels above them and no column names under them (unreadable).
constexpr int kMaxLabelledBars = 40;

// What a plan computation gives back (PlanResult has no empty state).
struct PlanRun {
    std::optional<PlanResult> result;
    QString error;
};

// What a privacy-profile computation gives back.
struct ProfileRun {
    std::optional<accounting::PlanProfile> profile;
    QString error;
};

// The accountants' colours (Okabe & Ito's palette, readable on light and dark backgrounds), in
// the order of accounting::kAllAccountants.
const QColor kAccountantColours[] = {QColor(230, 159, 0), QColor(0, 158, 115),
                                     QColor(204, 121, 167), QColor(86, 180, 233)};
// The profile's δ axis: values below are not drawn (a gap, as log scales cannot show 0).
constexpr double kProfileDeltaFloor = 1e-14;
constexpr int kProfilePoints = 61;

QString accountantLabel(accounting::Accountant a) {
    switch (a) {
        case accounting::Accountant::Basic:
            return BudgetTab::tr("Basic (Dwork & Roth 2014)");
        case accounting::Accountant::Zcdp:
            return BudgetTab::tr("zCDP (Bun & Steinke 2016)");
        case accounting::Accountant::Renyi:
            return BudgetTab::tr("Rényi DP (Mironov 2017)");
        case accounting::Accountant::Pld:
            return BudgetTab::tr("PLD (Koskela et al. 2020)");
    }
    return {};
}

// The legend's names (the table beside gives the sources).
QString shortName(accounting::Accountant a) {
    switch (a) {
        case accounting::Accountant::Basic:
            return BudgetTab::tr("basic");
        case accounting::Accountant::Zcdp:
            return BudgetTab::tr("zCDP");
        case accounting::Accountant::Renyi:
            return BudgetTab::tr("Rényi");
        case accounting::Accountant::Pld:
            return BudgetTab::tr("PLD");
    }
    return {};
}

// A number as typed, in the user's locale or the C locale.
std::optional<double> parseNumber(const QString& text) {
    const QString t = text.trimmed();
    bool ok = false;
    double v = QLocale().toDouble(t, &ok);
    if (!ok) {
        v = QLocale::c().toDouble(t, &ok);
    }
    if (!ok) {
        return std::nullopt;
    }
    return v;
}

QString csvField(const QString& s) {
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) ||
        s.contains(QLatin1Char('\n'))) {
        QString q = s;
        q.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + q + QLatin1Char('"');
    }
    return s;
}

QString noiseParameter(MechanismKind m) {
    switch (m) {
        case MechanismKind::Laplace:
            return QStringLiteral("b");
        case MechanismKind::Geometric:
            return QStringLiteral("α");
        case MechanismKind::Gaussian:
            return QStringLiteral("σ");
    }
    return QStringLiteral("b");
}

int mechanismIndex(MechanismKind m) {
    return static_cast<int>(m);
}

MechanismKind mechanismAt(int index) {
    return index == 1   ? MechanismKind::Geometric
           : index == 2 ? MechanismKind::Gaussian
                        : MechanismKind::Laplace;
}

QTableWidgetItem* readOnlyItem() {
    auto* it = new QTableWidgetItem;
    it->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

QTableWidgetItem* editableItem(const QString& tip) {
    auto* it = new QTableWidgetItem;
    it->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    it->setToolTip(tip);
    return it;
}

// A spin box as wide as its current value needs (at least three digits), not as wide as its
// largest value (10 000 000 bins): the Bins column took 84 px for "32" (issue #21, the table at
// 1024 × 768). Typing a longer number widens it (the column follows its size hint).
class CompactSpinBox : public QSpinBox {
public:
    using QSpinBox::QSpinBox;

    QSize sizeHint() const override {
        QSize s = QSpinBox::sizeHint();
        const QFontMetrics fm(font());
        const int widest = fm.horizontalAdvance(textFromValue(maximum()));
        const int shown = std::max(fm.horizontalAdvance(textFromValue(value())),
                                   fm.horizontalAdvance(QStringLiteral("000")));
        s.setWidth(s.width() - std::max(0, widest - shown));
        return s;
    }
};

// Draws (and measures) a read-only cell of the expected L1 and noise columns on two lines
// ("70.59" over "(0.706%)", "b =" over "3.125"):
// on one line the table needed about 830 px and scrolled sideways in the tab at 1024 × 768 beside
// the data panel ("E[L1]" cut, "Sampling rate" out of sight). The item's text stays on one line
// (copies, the CSV export, tooltips).
class DetailUnderValueDelegate : public QStyledItemDelegate {
public:
    // The break replaces the first space of the first `at` in the text (" (" for "70.59 (0.706%)";
    // " = " for the noise: "b =" over "3.125").
    DetailUnderValueDelegate(QString at, QObject* parent)
        : QStyledItemDelegate(parent), at_(std::move(at)) {}

    QString twoLines(const QString& text) const {
        qsizetype at = text.indexOf(at_);
        if (at <= 0) {
            return text;
        }
        if (at_.endsWith(QLatin1Char(' '))) {
            at += at_.size() - 1;  // " = ": the sign stays on the first line
        }
        // A line separator, not '\n': the style measures and draws it as a line break.
        return text.left(at) + QChar(QChar::LineSeparator) + text.mid(at + 1);
    }

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        opt.text = twoLines(opt.text);
        const QWidget* w = option.widget;
        (w ? w->style() : QApplication::style())
            ->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        opt.text = twoLines(opt.text);
        const QWidget* w = option.widget;
        return (w ? w->style() : QApplication::style())
            ->sizeFromContents(QStyle::CT_ItemViewItem, &opt, QSize(), w);
    }

private:
    QString at_;
};

}  // namespace

BudgetTab::BudgetTab(JobRunner* runner, QWidget* parent)
    : QWidget(parent),
      runner_(runner),
      slot_(QStringLiteral("budget-plan-%1").arg(reinterpret_cast<quintptr>(this), 0, 16)),
      profileSlot_(
          QStringLiteral("budget-profile-%1").arg(reinterpret_cast<quintptr>(this), 0, 16)) {
    plan_.total = {1, 0};

    totalEpsilon_ = new QLineEdit;
    totalEpsilon_->setObjectName(QStringLiteral("budgetTotalEpsilon"));
    totalEpsilon_->setMaximumWidth(110);
    totalEpsilon_->setToolTip(tr("The total ε of the whole release plan (finite, > 0)"));
    totalDelta_ = new QLineEdit;
    totalDelta_->setObjectName(QStringLiteral("budgetTotalDelta"));
    totalDelta_->setMaximumWidth(110);
    totalDelta_->setToolTip(
        tr("The total δ (in [0, 1)); needed by Gaussian statistics and by zCDP accounting"));
    composition_ = new QComboBox;
    composition_->setObjectName(QStringLiteral("budgetComposition"));
    composition_->addItem(tr("Basic (Σε, Σδ)"));
    composition_->addItem(tr("zCDP (ρ adds)"));
    composition_->addItem(tr("PLD (tight)"));
    composition_->setToolTip(
        tr("Basic composition adds the ε's and δ's (Dwork & Roth 2014 Thm 3.16). zCDP adds the "
           "ρ's and converts the sum with ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016 Prop 1.3): "
           "tighter for many Gaussian releases. PLD composes the privacy loss distributions "
           "(Koskela, Jälkö & Honkela 2020; pessimistic grid): the tightest; the weights share "
           "ρ as under zCDP and one common scale is searched so that the whole plan meets the "
           "total."));
    addColumn_ = new QComboBox;
    addColumn_->setObjectName(QStringLiteral("budgetAddColumn"));
    addColumn_->setToolTip(tr("The column whose histogram the new statistic releases"));
    add_ = new QPushButton(tr("&Add statistic"));
    add_->setObjectName(QStringLiteral("budgetAdd"));
    remove_ = new QPushButton(tr("&Remove"));
    remove_->setObjectName(QStringLiteral("budgetRemove"));
    remove_->setToolTip(tr("Remove the selected statistic from the plan"));

    table_ = new QTableWidget(0, ColumnCount);
    table_->setObjectName(QStringLiteral("budgetTable"));
    table_->setHorizontalHeaderLabels(
        {tr("Statistic"), tr("Bins"), tr("Mechanism"), tr("Weight"), tr("Hold"), tr("ε"), tr("δ"),
         tr("ρ"), tr("Noise"), tr("±95%\nper bin"), tr("E[L1]\n(% of N)"), tr("Sample\nrate")});
    // The long headers on two lines: on one they made the table scroll sideways in the tab at
    // 1024 × 768 (the sampling rate out of sight).
    table_->horizontalHeaderItem(ColSamplingRate)
        ->setToolTip(tr("Poisson sampling rate q ∈ (0, 1]: each record enters the statistic's "
                        "sample with probability q (1 = no sampling). Basic composition and PLD "
                        "calibrate with the amplification (less noise for the same share); zCDP "
                        "does not. The accountants below amplify it."));
    table_->horizontalHeaderItem(ColEpsilon)
        ->setToolTip(tr("The statistic's ε. Type a value to hold it; the others re-split."));
    table_->horizontalHeaderItem(ColHalfWidth)
        ->setToolTip(tr("Every bin within ± this of its true count with 95% probability. Type a "
                        "value to hold that accuracy; the statistic gets the smallest budget "
                        "meeting it."));
    table_->horizontalHeaderItem(ColRho)->setToolTip(
        tr("zCDP ρ of the statistic's noise: ε²/2 for pure DP, Δ2²/(2σ²) for Gaussian"));
    table_->horizontalHeaderItem(ColL1)->setToolTip(
        tr("Expected L1 error of the histogram, k·E|noise|, and as a percentage of the records N"));
    table_->verticalHeader()->setVisible(false);
    table_->setItemDelegateForColumn(ColNoise,
                                     new DetailUnderValueDelegate(QStringLiteral(" = "), table_));
    table_->setItemDelegateForColumn(ColL1,
                                     new DetailUnderValueDelegate(QStringLiteral(" ("), table_));
    fitRowHeight();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    // Every column as wide as its contents: a stretched first column pushed the numbers out of
    // sight in a narrow window (1024 px), a stretched last one parted the error from its label.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(false);
    // As tall as its rows (at least three), the rest of the height for the plots: stretched, a
    // one-row plan left the plots too short at 1024 × 768 for their axis labels.
    table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                             3 * table_->verticalHeader()->defaultSectionSize() +
                             2 * table_->frameWidth());

    note_ = new QLabel;
    note_->setObjectName(QStringLiteral("budgetNote"));
    note_->setWordWrap(true);
    note_->hide();
    ledgerLine_ = new QLabel;
    ledgerLine_->setObjectName(QStringLiteral("budgetLedger"));
    ledgerLine_->setWordWrap(true);
    ledgerLine_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    chooseLedger_ = new QPushButton(tr("&Ledger…"));
    chooseLedger_->setObjectName(QStringLiteral("budgetChooseLedger"));
    chooseLedger_->setToolTip(
        tr("Choose the dataset's privacy-budget ledger: the plan then starts from what its "
           "releases have already spent"));
    busyTimer_ = new QTimer(this);
    busyTimer_->setSingleShot(true);
    busyTimer_->setInterval(250);
    connect(busyTimer_, &QTimer::timeout, this, [this] {
        if (busy()) {
            summary_->setText(tr("Computing the plan…"));
        }
    });
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("budgetSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_ = new QLabel;
    error_->setObjectName(QStringLiteral("budgetError"));
    error_->setWordWrap(true);
    {
        QPalette p = error_->palette();
        p.setColor(QPalette::WindowText, kErrorColour);
        error_->setPalette(p);
    }
    error_->hide();

    chart_ = new QCustomPlot;
    chart_->setObjectName(QStringLiteral("budgetChart"));
    chart_->setMinimumHeight(200);
    // Fixed minimum widths, not the plots' own (their legends wrap to the width they get, so
    // their hints change with it): whether the profile goes under the chart must not depend on
    // where it was.
    chart_->setMinimumWidth(240);
    chart_->xAxis->setLabel(tr("statistic"));
    // The legend in a row of its own above the axis rect, so it never covers a bar's label.
    chart_->legend->setVisible(true);
    chart_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    wrapLegendToWidth(chart_, 2);  // two entries, one under the other when narrow
    chart_->plotLayout()->insertRow(0);
    chart_->plotLayout()->addElement(0, 0, chart_->legend);
    chart_->plotLayout()->setRowStretchFactor(0, 0.001);
    chart_->legend->setMargins(QMargins(6, 2, 6, 2));
    chart_->setToolTip(
        tr("Each statistic's share of the budget: blue split by weight, orange held"));

    profilePlot_ = new QCustomPlot;
    profilePlot_->setObjectName(QStringLiteral("budgetProfile"));
    profilePlot_->setMinimumHeight(200);
    profilePlot_->setMinimumWidth(300);
    profilePlot_->xAxis->setLabel(tr("ε"));
    profilePlot_->yAxis->setLabel(tr("δ(ε) of the whole plan"));
    makeLogAxis(profilePlot_->yAxis);
    // The legend in a row of its own above the axis rect (as the share chart's), so it never
    // covers a curve.
    profilePlot_->legend->setVisible(true);
    // As many columns as fit the plot's width (at most 5): entries are never cut.
    wrapLegendToWidth(profilePlot_, 5);
    profilePlot_->plotLayout()->insertRow(0);
    profilePlot_->plotLayout()->addElement(0, 0, profilePlot_->legend);
    profilePlot_->plotLayout()->setRowStretchFactor(0, 0.001);
    profilePlot_->legend->setMargins(QMargins(6, 2, 6, 2));
    profilePlot_->setToolTip(
        tr("The privacy profile δ(ε) of the same noise under each accountant: every curve is an "
           "upper bound on the plan's true δ at ε; the PLD's dashed curve is a lower bound, so "
           "the truth lies between the two PLD curves. Dotted lines: the total ε and δ."));
    profileNote_ = new QLabel;
    profileNote_->setObjectName(QStringLiteral("budgetProfileNote"));
    profileNote_->setWordWrap(true);
    accountants_ = new QTableWidget(4, 3);
    accountants_->setObjectName(QStringLiteral("budgetAccountants"));
    accountants_->setHorizontalHeaderLabels(
        {tr("Accountant"), tr("ε at the total δ"), tr("δ at the total ε")});
    accountants_->verticalHeader()->hide();
    accountants_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    accountants_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    accountants_->horizontalHeader()->setStretchLastSection(true);
    accountants_->setToolTip(
        tr("The same noise under each accountant. Basic: Σε, Σδ with δ split equally among the "
           "Gaussian statistics. zCDP: Bun & Steinke 2016 Prop 1.3. Rényi DP: Mironov 2017 with "
           "the conversion of Canonne, Kamath & Steinke 2020. PLD: the privacy loss "
           "distribution (Koskela, Jälkö & Honkela 2020) with pessimistic and optimistic "
           "rounding: [lower, upper]."));
    for (int r = 0; r < 4; ++r) {
        const auto a = accounting::kAllAccountants[r];
        auto* name = new QTableWidgetItem(accountantLabel(a));
        name->setForeground(kAccountantColours[r]);
        accountants_->setItem(r, 0, name);
        accountants_->setItem(r, 1, new QTableWidgetItem(QStringLiteral("—")));
        accountants_->setItem(r, 2, new QTableWidgetItem(QStringLiteral("—")));
    }
    accountants_->verticalHeader()->setDefaultSectionSize(accountants_->fontMetrics().height() + 6);
    accountants_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    accountants_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* top = new QHBoxLayout;
    auto* epsLabel = new QLabel(tr("Total &ε:"));
    epsLabel->setBuddy(totalEpsilon_);
    auto* deltaLabel = new QLabel(tr("&δ:"));
    deltaLabel->setBuddy(totalDelta_);
    auto* compLabel = new QLabel(tr("&Composition:"));
    compLabel->setBuddy(composition_);
    top->addWidget(epsLabel);
    top->addWidget(totalEpsilon_);
    top->addWidget(deltaLabel);
    top->addWidget(totalDelta_);
    top->addSpacing(16);
    top->addWidget(compLabel);
    top->addWidget(composition_);
    top->addStretch(1);
    // The statistics' controls on a row of their own, so that nothing is squeezed at 1024 px.
    auto* rows = new QHBoxLayout;
    auto* columnLabel = new QLabel(tr("C&olumn:"));
    columnLabel->setBuddy(addColumn_);
    rows->addWidget(columnLabel);
    rows->addWidget(addColumn_);
    rows->addWidget(add_);
    rows->addWidget(remove_);
    rows->addStretch(1);

    auto* ledgerRow = new QHBoxLayout;
    ledgerRow->addWidget(ledgerLine_, 1);
    ledgerRow->addWidget(chooseLedger_);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(ledgerRow);
    layout->addLayout(rows);
    layout->addWidget(note_);
    layout->addWidget(table_);
    layout->addWidget(summary_);
    layout->addWidget(error_);
    // The split chart and the privacy profile side by side, or the profile under the chart when
    // the tab is narrower than both (beside a CSV file's data panel at 1024 × 768 the
    // accountants' table scrolled sideways, issue #21): the table is never narrower than its
    // columns (fitAccountantsWidth).
    auto* bottomPart = new QWidget;
    auto* bottom = new QHBoxLayout(bottomPart);
    bottom->setContentsMargins(0, 0, 0, 0);
    bottom->addWidget(chart_, 2);
    auto* profilePart = new QWidget;
    auto* profileColumn = new QVBoxLayout(profilePart);
    profileColumn->setContentsMargins(0, 0, 0, 0);
    profileColumn->addWidget(profilePlot_, 1);
    profileColumn->addWidget(profileNote_);
    profileColumn->addWidget(accountants_);
    bottom->addWidget(profilePart, 3);
    layout->addWidget(bottomPart, 1);
    sideBySideOrStacked(bottomPart, bottom);

    connect(totalEpsilon_, &QLineEdit::editingFinished, this, [this] { applyTotalFields(); });
    connect(totalDelta_, &QLineEdit::editingFinished, this, [this] { applyTotalFields(); });
    connect(composition_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (updating_) {
            return;
        }
        BudgetPlan c = base();
        c.composition = index == 2   ? Composition::Pld
                        : index == 1 ? Composition::Zcdp
                                     : Composition::Basic;
        apply(c, Origin::Edit);
    });
    connect(add_, &QPushButton::clicked, this, [this] { addStatistic(addColumn_->currentText()); });
    connect(remove_, &QPushButton::clicked, this, [this] {
        const int row = table_->currentRow();
        removeStatistic(row >= 0 ? row : static_cast<int>(base().statistics.size()) - 1);
    });
    connect(chooseLedger_, &QPushButton::clicked, this, &BudgetTab::browseLedger);
    connect(table_, &QTableWidget::itemChanged, this,
            [this](QTableWidgetItem* item) { onItemChanged(item); });

    applyPlotPalette(chart_, palette());
    applyPlotPalette(profilePlot_, palette());
    refreshLedgerLine();
    setTotal(1, 0);
    drawProfile();
}

BudgetTab::~BudgetTab() {
    if (runner_) {
        runner_->cancel(profileSlot_);
        runner_->cancel(slot_);
    }
    // ~QWidget deletes the children after this object's members are gone; a line edit losing
    // focus then would emit editingFinished into a half-destroyed view.
    for (QObject* sender : std::initializer_list<QObject*>{totalEpsilon_, totalDelta_, composition_,
                                                           table_, add_, remove_, chooseLedger_}) {
        QObject::disconnect(sender, nullptr, this, nullptr);
    }
}

void BudgetTab::setDataset(const QStringList& columns, const QString& currentColumn,
                           int currentBins, double totalRecords, double l1Sensitivity,
                           double l2Sensitivity) {
    const bool sameColumns = columns == columns_;
    if (!sameColumns) {
        binsByColumn_.clear();  // another dataset: its columns' binnings are not known yet
    }
    columns_ = columns;
    currentColumn_ = currentColumn;
    if (!currentColumn.isEmpty()) {
        binsByColumn_.insert(currentColumn, std::max(1, currentBins));
    }
    records_ = std::isfinite(totalRecords) && totalRecords > 0 ? std::optional(totalRecords)
                                                               : std::nullopt;
    l1_ = std::isfinite(l1Sensitivity) && l1Sensitivity > 0 ? l1Sensitivity : 1.0;
    l2_ = std::isfinite(l2Sensitivity) && l2Sensitivity > 0 ? l2Sensitivity : 1.0;
    {
        const QSignalBlocker block(addColumn_);
        addColumn_->clear();
        addColumn_->addItems(columns);
        addColumn_->setCurrentIndex(std::max(0, static_cast<int>(columns.indexOf(currentColumn))));
    }
    BudgetPlan c = base();
    if (!sameColumns) {
        std::erase_if(c.statistics, [&](const PlanStatistic& s) {
            return !columns.contains(QString::fromStdString(s.label));
        });
    }
    for (PlanStatistic& s : c.statistics) {
        s.records = records_;
        s.l1Sensitivity = l1_;
        s.l2Sensitivity = l2_;
    }
    if (c.statistics.empty() && !currentColumn.isEmpty()) {
        PlanStatistic s;
        s.label = currentColumn.toStdString();
        s.bins = std::max(1, currentBins);
        s.records = records_;
        s.l1Sensitivity = l1_;
        s.l2Sensitivity = l2_;
        c.statistics.push_back(s);
    }
    add_->setEnabled(!columns.isEmpty());
    apply(c, Origin::Sync);
}

void BudgetTab::setTotal(double epsilon, double delta) {
    totalEpsilon_->setText(QString::number(epsilon, 'g', 15));
    totalDelta_->setText(QString::number(delta, 'g', 15));
    applyTotalFields();
}

void BudgetTab::setPlan(const dpx::BudgetPlan& plan, const QString& datasetKey,
                        const QString& datasetTitle) {
    BudgetPlan c = plan;
    for (PlanStatistic& st : c.statistics) {
        st.records = records_;
        st.l1Sensitivity = l1_;
        st.l2Sensitivity = l2_;
    }
    if (!datasetKey.isEmpty() && datasetKey != planDataset_) {
        if (!planDataset_.isEmpty()) {
            // Plans belong to datasets: say which one is shown now.
            const QString title = datasetTitle.isEmpty() ? datasetKey : datasetTitle;
            note_->setText(
                c.statistics.empty()
                    ? tr("The data changed to %1, which has no budget plan yet: a new plan starts "
                         "here. The previous dataset's plan is kept for when you return to it.")
                          .arg(title)
                    : tr("The data changed to %1: its own budget plan (%2) is shown again. The "
                         "previous dataset's plan is kept for when you return to it.")
                          .arg(title, c.statistics.size() == 1
                                          ? tr("1 statistic")
                                          : tr("%1 statistics").arg(c.statistics.size())));
            note_->show();
        }
        planDataset_ = datasetKey;
    } else if (c.statistics.empty() && !currentColumn_.isEmpty()) {
        // No rows: the plan starts with the current column, as setDataset makes it (for a new
        // dataset setDataset does when its columns are known).
        PlanStatistic st;
        st.label = currentColumn_.toStdString();
        st.bins = binsByColumn_.value(currentColumn_, kDefaultStatisticBins);
        st.records = records_;
        st.l1Sensitivity = l1_;
        st.l2Sensitivity = l2_;
        c.statistics.push_back(st);
    }
    apply(c, Origin::Sync);
}

void BudgetTab::setLedger(const PlanLedger& ledger) {
    ledger_ = ledger;
    refreshLedgerLine();
    apply(base(), Origin::Sync);
}

void BudgetTab::chooseLedger(const QString& path) {
    if (!path.isEmpty()) {
        Q_EMIT ledgerChosen(QFileInfo(path).absoluteFilePath());
    }
}

void BudgetTab::browseLedger() {
    const QString start = ledger_.path.isEmpty() ? QString() : ledger_.path;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("The dataset's privacy-budget ledger"), start, tr("Ledger files (*.json)"));
    chooseLedger(path);
}

void BudgetTab::setComposition(dpx::Composition composition) {
    composition_->setCurrentIndex(static_cast<int>(composition));
}

void BudgetTab::addStatistic(const QString& column) {
    if (column.isEmpty()) {
        return;
    }
    BudgetPlan c = base();
    PlanStatistic s;
    s.label = column.toStdString();
    // The statistic's own binning: the one the main view last showed for this column, never the
    // bin count of whichever column the main view shows now.
    s.bins = binsByColumn_.value(column, kDefaultStatisticBins);
    s.records = records_;
    s.l1Sensitivity = l1_;
    s.l2Sensitivity = l2_;
    c.statistics.push_back(s);
    apply(c, Origin::Edit);
}

void BudgetTab::removeStatistic(int row) {
    if (row < 0 || row >= static_cast<int>(base().statistics.size())) {
        return;
    }
    BudgetPlan c = base();
    c.statistics.erase(c.statistics.begin() + row);
    apply(c, Origin::Edit);
}

QString BudgetTab::summaryText() const {
    return summary_->text();
}

QString BudgetTab::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString BudgetTab::noteText() const {
    return note_->isHidden() ? QString() : note_->text();
}

QString BudgetTab::ledgerText() const {
    return ledgerLine_->text();
}

void BudgetTab::apply(dpx::BudgetPlan candidate, Origin origin, bool epsChanged,
                      bool deltaChanged) {
    if (ledger_.usable()) {
        // The ledger fixed its total and composition when it was created.
        candidate.total = ledger_.total;
        candidate.composition = ledger_.composition;
        candidate.spent = ledger_.charges;
        candidate.spentLosses = ledger_.losses;
        candidate.spentExcess = ledger_.pldExcess;
        if (ledger_.composition == Composition::Pld) {
            candidate.pldInterval = ledger_.pldInterval;
        }
    } else {
        candidate.spent.clear();
        candidate.spentLosses.clear();
        candidate.spentExcess = 0;
    }
    if (origin == Origin::Edit) {
        note_->hide();
    }
    if (candidate.statistics.empty()) {
        // Nothing to allocate: only the total to check (no job; any running one is stale).
        if (runner_) {
            runner_->cancel(slot_);
        }
        pending_.reset();
        const Status st = candidate.total.validate();
        finish(candidate, std::nullopt, st ? QString() : QString::fromStdString(st.error().message),
               origin, epsChanged, deltaChanged);
        return;
    }
    pending_ = candidate;
    if (!busyTimer_->isActive()) {
        busyTimer_->start();
    }
    QPointer<BudgetTab> self(this);
    runner_->run<PlanRun>(
        slot_,
        [candidate](std::stop_token, JobProgress&) {
            PlanRun out;
            auto r = allocatePlan(candidate);
            if (r) {
                out.result = std::move(r).value();
            } else {
                out.error = QString::fromStdString(r.error().message);
            }
            return out;
        },
        [self, candidate, origin, epsChanged, deltaChanged](PlanRun run) {
            if (!self) {
                return;
            }
            self->pending_.reset();
            self->finish(candidate, run.result, run.error, origin, epsChanged, deltaChanged);
        });
}

void BudgetTab::finish(const dpx::BudgetPlan& candidate,
                       const std::optional<dpx::PlanResult>& result, const QString& error,
                       Origin origin, bool epsChanged, bool deltaChanged) {
    busyTimer_->stop();
    if (!error.isEmpty()) {
        showError(error);
        if (origin == Origin::Sync) {
            // The document or the data changed under the plan: show its rows even though they do
            // not compute.
            plan_ = candidate;
            result_.reset();
            computeProfile();
        }
        refresh();
        if (origin == Origin::Totals) {
            // Keep what the user typed, marked, beside the unchanged plan.
            totalEpsilon_->setText(QString::number(candidate.total.epsilon, 'g', 15));
            totalDelta_->setText(QString::number(candidate.total.delta, 'g', 15));
            setFieldInvalid(totalEpsilon_, epsChanged && !deltaChanged);
            setFieldInvalid(totalDelta_, deltaChanged);
        }
        Q_EMIT planComputed();
        return;
    }
    plan_ = candidate;
    result_ = result;
    error_->clear();
    error_->hide();
    setFieldInvalid(totalEpsilon_, false);
    setFieldInvalid(totalDelta_, false);
    totalEpsilon_->setText(QString::number(plan_.total.epsilon, 'g', 15));
    totalDelta_->setText(QString::number(plan_.total.delta, 'g', 15));
    refresh();
    computeProfile();
    if (origin != Origin::Sync) {
        Q_EMIT planChanged();
    }
    Q_EMIT planComputed();
}

void BudgetTab::showError(const QString& message) {
    error_->setText(message);
    error_->show();
}

void BudgetTab::setFieldInvalid(QLineEdit* field, bool invalid) {
    field->setStyleSheet(invalid ? QStringLiteral("QLineEdit { background-color: #ffd6d6; "
                                                  "color: #000000; }")
                                 : QString());
    field->setProperty("invalid", invalid);
}

void BudgetTab::applyTotalFields() {
    const auto eps = parseNumber(totalEpsilon_->text());
    const auto delta = parseNumber(totalDelta_->text());
    const bool epsOk = eps && std::isfinite(*eps) && *eps > 0;
    const bool deltaOk = delta && std::isfinite(*delta) && *delta >= 0 && *delta < 1;
    setFieldInvalid(totalEpsilon_, !epsOk);
    setFieldInvalid(totalDelta_, !deltaOk);
    if (!epsOk || !deltaOk) {
        showError(!epsOk ? tr("Total ε must be a finite number > 0 (got '%1'); the plan below is "
                              "unchanged.")
                               .arg(totalEpsilon_->text())
                         : tr("Total δ must be a number in [0, 1) (got '%1'); the plan below is "
                              "unchanged.")
                               .arg(totalDelta_->text()));
        return;
    }
    const BudgetPlan& b = base();
    if (*eps == b.total.epsilon && *delta == b.total.delta && (result_ || busy())) {
        return;
    }
    BudgetPlan c = b;
    c.total = {*eps, *delta};
    apply(c, Origin::Totals, *eps != b.total.epsilon, *delta != b.total.delta);
}

void BudgetTab::onItemChanged(QTableWidgetItem* item) {
    if (updating_ || !item) {
        return;
    }
    const int row = item->row();
    const int col = item->column();
    if (row < 0 || row >= static_cast<int>(base().statistics.size())) {
        return;
    }
    const auto v = parseNumber(item->text());
    if (!v) {
        showError(tr("'%1' is not a number; the plan is unchanged.").arg(item->text()));
        refresh();
        return;
    }
    BudgetPlan c = base();
    PlanStatistic& s = c.statistics[static_cast<std::size_t>(row)];
    switch (col) {
        case ColWeight:
            s.weight = *v;
            break;
        case ColEpsilon:
            s.hold = {HoldKind::Epsilon, *v};
            break;
        case ColHalfWidth:
            s.hold = {HoldKind::Accuracy, *v};
            break;
        case ColSamplingRate:
            if (!(*v > 0 && *v <= 1)) {
                showError(tr("The sampling rate of '%1' must be in (0, 1] (1 = no sampling); "
                             "got %2. The plan is unchanged.")
                              .arg(QString::fromStdString(s.label), item->text()));
                refresh();
                return;
            }
            s.samplingRate = *v;
            break;
        default:
            return;
    }
    apply(c, Origin::Edit);
}

void BudgetTab::rebuildRows() {
    const QSignalBlocker block(table_);
    updating_ = true;
    const int n = static_cast<int>(plan_.statistics.size());
    // Rows are generic (refresh fills them from the plan by index): only the rows added are
    // built, and removing a statistic drops the last row, so that adding or removing one of
    // 10 000 statistics does not rebuild 30 000 cell widgets. Thousands of new rows: no column
    // measuring or painting until they are all there.
    const int old = table_->rowCount();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->setUpdatesEnabled(false);
    table_->setRowCount(n);
    for (int i = old; i < n; ++i) {
        auto* label = readOnlyItem();
        label->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        table_->setItem(i, ColStatistic, label);

        auto* bins = new CompactSpinBox;
        bins->setRange(1, 10'000'000);
        bins->setFrame(false);
        bins->setToolTip(tr("Number of bins k of this histogram"));
        connect(bins, &QSpinBox::valueChanged, bins, &QWidget::updateGeometry);
        connect(bins, &QSpinBox::valueChanged, this, [this, i](int value) {
            if (updating_ || i >= static_cast<int>(base().statistics.size())) {
                return;
            }
            BudgetPlan c = base();
            c.statistics[static_cast<std::size_t>(i)].bins = value;
            apply(c, Origin::Edit);
        });
        table_->setCellWidget(i, ColBins, bins);

        auto* mech = new QComboBox;
        mech->setFrame(false);
        mech->addItems({tr("Laplace"), tr("Geometric"), tr("Gaussian")});
        mech->setToolTip(tr("Laplace and geometric: pure ε-DP. Gaussian: (ε, δ), needs δ > 0."));
        connect(mech, &QComboBox::currentIndexChanged, this, [this, i](int index) {
            if (updating_ || i >= static_cast<int>(base().statistics.size())) {
                return;
            }
            BudgetPlan c = base();
            c.statistics[static_cast<std::size_t>(i)].mechanism = mechanismAt(index);
            apply(c, Origin::Edit);
        });
        table_->setCellWidget(i, ColMechanism, mech);

        table_->setItem(i, ColWeight, editableItem(tr("Share of what the held statistics leave")));

        auto* hold = new QComboBox;
        hold->setFrame(false);
        // "±95%" as the column it holds (the word "accuracy" made the column 20 px wider).
        hold->addItems({tr("none"), tr("ε"), tr("±95%")});
        hold->setToolTip(
            tr("Hold this statistic's ε or its ±95% accuracy while the others "
               "re-split; none: share by weight"));
        connect(hold, &QComboBox::currentIndexChanged, this, [this, i](int index) {
            if (updating_ || i >= static_cast<int>(base().statistics.size())) {
                return;
            }
            BudgetPlan c = base();
            PlanStatistic& s = c.statistics[static_cast<std::size_t>(i)];
            // Holding what is shown needs the allocation of the plan shown, not of one still
            // being computed.
            const StatisticAllocation* a =
                result_ && !busy() && i < static_cast<int>(result_->statistics.size())
                    ? &result_->statistics[static_cast<std::size_t>(i)]
                    : nullptr;
            if (index == 0) {
                s.hold = {};
            } else if (busy()) {
                showError(
                    tr("The plan is still being computed; choose the hold again when it is "
                       "shown."));
                refresh();
                return;
            } else if (!a) {
                showError(tr("Nothing to hold: the plan does not compute."));
                refresh();
                return;
            } else if (index == 1) {
                // Under zCDP a Gaussian row's ε is its conversion at the total δ, which a held ε
                // inverts; pure-DP rows hold their own ε.
                // The tiny step down keeps the conversion's rounding inside the ρ it had.
                const bool converted = plan_.composition == Composition::Zcdp &&
                                       s.mechanism == MechanismKind::Gaussian;
                s.hold = {HoldKind::Epsilon, converted ? a->epsilon * (1 - 1e-12) : a->epsilon};
            } else {
                // The inverse meets ±a to a relative 1e-10 from above; hold a hair more than the
                // current half-width so that holding what is shown never costs more than it had.
                s.hold = {HoldKind::Accuracy, s.mechanism == MechanismKind::Geometric
                                                  ? a->noise.halfWidth95
                                                  : a->noise.halfWidth95 * (1 + 1e-9)};
            }
            apply(c, Origin::Edit);
        });
        table_->setCellWidget(i, ColHold, hold);

        table_->setItem(i, ColEpsilon, editableItem(tr("Type an ε to hold it")));
        table_->setItem(i, ColDelta, readOnlyItem());
        table_->setItem(i, ColRho, readOnlyItem());
        table_->setItem(i, ColNoise, readOnlyItem());
        table_->setItem(i, ColHalfWidth, editableItem(tr("Type ±a to hold that accuracy")));
        table_->setItem(i, ColL1, readOnlyItem());
        table_->setItem(i, ColSamplingRate,
                        editableItem(tr("Type a Poisson sampling rate q in (0, 1]")));
    }
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setUpdatesEnabled(true);
    updating_ = false;
}

void BudgetTab::refresh() {
    if (table_->rowCount() != static_cast<int>(plan_.statistics.size())) {
        rebuildRows();
    }
    const QSignalBlocker block(table_);
    updating_ = true;
    {
        const QSignalBlocker b(composition_);
        composition_->setCurrentIndex(static_cast<int>(plan_.composition));
    }
    const bool zcdp = plan_.composition == Composition::Zcdp;
    const bool pld = plan_.composition == Composition::Pld;
    table_->horizontalHeaderItem(ColRho)->setText(zcdp ? tr("ρ (charged)") : tr("ρ"));
    table_->horizontalHeaderItem(ColEpsilon)->setText(zcdp || pld ? tr("ε (alone)") : tr("ε"));
    for (int i = 0; i < static_cast<int>(plan_.statistics.size()); ++i) {
        const PlanStatistic& s = plan_.statistics[static_cast<std::size_t>(i)];
        const StatisticAllocation* a =
            result_ ? &result_->statistics[static_cast<std::size_t>(i)] : nullptr;
        table_->item(i, ColStatistic)->setText(QString::fromStdString(s.label));
        if (auto* w = qobject_cast<QSpinBox*>(table_->cellWidget(i, ColBins))) {
            const QSignalBlocker b(w);
            w->setValue(static_cast<int>(std::min<std::int64_t>(s.bins, 10'000'000)));
        }
        if (auto* w = qobject_cast<QComboBox*>(table_->cellWidget(i, ColMechanism))) {
            const QSignalBlocker b(w);
            w->setCurrentIndex(mechanismIndex(s.mechanism));
        }
        if (auto* w = qobject_cast<QComboBox*>(table_->cellWidget(i, ColHold))) {
            const QSignalBlocker b(w);
            w->setCurrentIndex(static_cast<int>(s.hold.kind));
        }
        table_->item(i, ColWeight)->setText(formatSignificant(s.weight, 4));
        table_->item(i, ColSamplingRate)->setText(formatSignificant(s.samplingRate, 4));
        const QString none = QStringLiteral("—");
        QFont font = table_->font();
        QFont held = font;
        held.setBold(true);
        table_->item(i, ColEpsilon)->setFont(s.hold.kind == HoldKind::Epsilon ? held : font);
        table_->item(i, ColHalfWidth)->setFont(s.hold.kind == HoldKind::Accuracy ? held : font);
        if (!a) {
            for (int col : {ColEpsilon, ColDelta, ColRho, ColNoise, ColHalfWidth, ColL1}) {
                table_->item(i, col)->setText(none);
            }
            // What the user asked for stays visible next to the error.
            if (s.hold.kind == HoldKind::Epsilon) {
                table_->item(i, ColEpsilon)->setText(formatSignificant(s.hold.value, 4));
            } else if (s.hold.kind == HoldKind::Accuracy) {
                table_->item(i, ColHalfWidth)
                    ->setText(QStringLiteral("±") + formatSignificant(s.hold.value, 4));
            }
            continue;
        }
        table_->item(i, ColEpsilon)->setText(formatSignificant(a->epsilon, 4));
        table_->item(i, ColDelta)
            ->setText((zcdp || pld) && s.mechanism == MechanismKind::Gaussian
                          ? tr("(total)")
                          : (a->delta > 0 ? formatSignificant(a->delta, 4) : QStringLiteral("0")));
        table_->item(i, ColRho)->setText(formatSignificant(a->rho, 4));
        table_->item(i, ColNoise)
            ->setText(noiseParameter(s.mechanism) + QStringLiteral(" = ") +
                      formatSignificant(a->noise.scale, 4) +
                      (a->epsilonWithoutSampling ? tr(" (sampled)") : QString()));
        table_->item(i, ColNoise)
            ->setToolTip(a->epsilonWithoutSampling
                             ? tr("Calibrated with amplification by Poisson sampling at q = %1: "
                                  "without sampling this noise is ε = %2-DP; on the sample it "
                                  "costs ε = %3.")
                                   .arg(formatSignificant(s.samplingRate, 4),
                                        formatSignificant(*a->epsilonWithoutSampling, 4),
                                        formatSignificant(a->epsilon, 4))
                             : QString());
        table_->item(i, ColHalfWidth)
            ->setText(QStringLiteral("±") + formatSignificant(a->noise.halfWidth95, 4));
        table_->item(i, ColL1)->setText(
            a->expectedL1Percent ? tr("%1 (%2%)")
                                       .arg(formatSignificant(a->expectedL1, 4),
                                            QString::number(*a->expectedL1Percent, 'g', 3))
                                 : formatSignificant(a->expectedL1, 4));
    }
    updating_ = false;
    remove_->setEnabled(!plan_.statistics.empty());
    // A ledger fixed its total and composition when it was created.
    for (QWidget* w : std::initializer_list<QWidget*>{totalEpsilon_, totalDelta_, composition_}) {
        w->setEnabled(!ledger_.usable());
        w->setToolTip(ledger_.usable() ? tr("Fixed by the ledger %1 when it was created")
                                             .arg(QFileInfo(ledger_.path).fileName())
                                       : QString());
    }

    // Summary line.
    if (!result_) {
        summary_->setText(plan_.statistics.empty()
                              ? tr("Add a statistic (a histogram of a column) to plan a release.")
                              : tr("The plan does not compute; see the message below."));
    } else {
        const PlanResult& r = *result_;
        const BudgetUsage& u = r.usage;
        QString text;
        // With a ledger: what the plan itself spends, and that it fits what the ledger leaves.
        const bool fromLedger = r.spentCharges > 0;
        const QString fits =
            !fromLedger ? tr("fits the total")
            : r.spentCharges == 1
                ? tr("fits what the ledger's release leaves")
                : tr("fits what the ledger's %1 releases leave").arg(r.spentCharges);
        if (pld) {
            text = fromLedger
                       ? tr("PLD (Koskela, Jälkö & Honkela 2020; grid %1): with the ledger's "
                            "releases ε = %2 at δ = %3 (ledger before the plan: ε = %4) — %5")
                             .arg(formatSignificant(r.pldInterval, 3),
                                  formatSignificant(u.epsilonSpent, 4),
                                  formatSignificant(r.total.delta, 4),
                                  formatSignificant(r.start.epsilonSpent, 4), fits)
                       : tr("PLD (Koskela, Jälkö & Honkela 2020; grid %1): the whole plan "
                            "composed gives ε = %2 at δ = %3 — %4 (ε = %5)")
                             .arg(formatSignificant(r.pldInterval, 3),
                                  formatSignificant(u.epsilonSpent, 4),
                                  formatSignificant(r.total.delta, 4), fits,
                                  formatSignificant(r.total.epsilon, 4));
            if (r.other.available) {
                text += tr("; under zCDP the plan's noise alone would cost ε = %1")
                            .arg(formatSignificant(r.other.epsilon, 4));
            }
        } else if (fromLedger && !zcdp) {
            double own = 0, ownDelta = 0;
            for (const auto& a : r.statistics) {
                own += a.epsilon;
                ownDelta += a.delta;
            }
            text = tr("Basic composition: this plan Σε = %1, Σδ = %2 — %3; with them the ledger "
                      "will have spent ε = %4 of %5")
                       .arg(formatSignificant(own, 4),
                            ownDelta > 0 ? formatSignificant(ownDelta, 4) : QStringLiteral("0"),
                            fits, formatSignificant(u.epsilonSpent, 4),
                            formatSignificant(r.total.epsilon, 4));
            if (r.other.available) {
                text += tr("; under zCDP the plan's noise would cost ε = %1 at δ = %2")
                            .arg(formatSignificant(r.other.epsilon, 4),
                                 formatSignificant(r.other.delta, 4));
            }
        } else if (!zcdp) {
            // The exact sum as a fraction when it is short ("1", "3/10"), else what it leaves.
            const QString exact =
                u.epsilonSpentExact.size() <= 16
                    ? QString::fromStdString(u.epsilonSpentExact)
                    : tr("total − %1").arg(QString::number(u.epsilonRemaining, 'g', 3));
            text = tr("Basic composition: Σε = %1 (exact: %2), Σδ = %3 — %4 (ε = %5, δ = %6)")
                       .arg(formatSignificant(u.epsilonSpent, 4), exact,
                            u.deltaSpent > 0 ? formatSignificant(u.deltaSpent, 4)
                                             : QStringLiteral("0"),
                            fits, formatSignificant(r.total.epsilon, 4),
                            formatSignificant(r.total.delta, 4));
            if (r.other.available) {
                text += tr("; under zCDP the same noise would cost ε = %1 at δ = %2")
                            .arg(formatSignificant(r.other.epsilon, 4),
                                 formatSignificant(r.other.delta, 4));
                if (r.other.epsilon < u.epsilonSpent) {
                    text += tr(" — zCDP accounting is tighter here");
                }
            } else {
                text += tr("; zCDP: %1").arg(QString::fromStdString(r.other.note));
            }
        } else {
            text =
                fromLedger
                    ? tr("zCDP: with the ledger's releases Σρ = %1 of the ρ budget %2 (ledger "
                         "before the plan: %3), i.e. (ε = %4, δ = %5) — %6")
                          .arg(formatSignificant(u.rhoSpent, 4), formatSignificant(r.rhoBudget, 4),
                               formatSignificant(r.start.rhoSpent, 4),
                               formatSignificant(u.epsilonSpent, 4),
                               formatSignificant(r.total.delta, 4), fits)
                    : tr("zCDP: Σρ = %1 of the ρ budget %2, i.e. (ε = %3, δ = %4) — %5")
                          .arg(formatSignificant(u.rhoSpent, 4), formatSignificant(r.rhoBudget, 4),
                               formatSignificant(u.epsilonSpent, 4),
                               formatSignificant(r.total.delta, 4), fits);
            if (r.other.available) {
                text += tr("; under basic composition the same noise would cost ε = %1, δ = %2")
                            .arg(formatSignificant(r.other.epsilon, 4),
                                 r.other.delta > 0 ? formatSignificant(r.other.delta, 4)
                                                   : QStringLiteral("0"));
                if (r.other.epsilon < u.epsilonSpent) {
                    text += tr(" — basic composition is tighter here");
                }
            } else {
                text += tr("; basic composition: %1").arg(QString::fromStdString(r.other.note));
            }
        }
        text += QLatin1Char('.');
        if (!r.sampling.empty()) {
            text += QLatin1Char(' ') + QString::fromStdString(r.sampling);
        }
        for (const auto& w : r.warnings) {
            text += QLatin1Char(' ') + tr("Note: %1.").arg(QString::fromStdString(w));
        }
        summary_->setText(text);
    }
    refreshLedgerLine();
    drawChart();
}

void BudgetTab::refreshLedgerLine() {
    QPalette p = palette();
    if (ledger_.path.isEmpty()) {
        ledgerLine_->setText(
            tr("No ledger: the plan shares a fresh total. Choose the dataset's ledger to plan "
               "what is left of it."));
    } else if (!ledger_.usable()) {
        ledgerLine_->setText(
            tr("Ledger %1 not used: %2").arg(QFileInfo(ledger_.path).fileName(), ledger_.error));
        p.setColor(QPalette::WindowText, kErrorColour);
    } else {
        const QString left = QString::fromStdString(data::budgetUsageText(
            ledger_.usage, ledger_.totalEpsilon.toStdString(), ledger_.totalDelta.toStdString()));
        ledgerLine_->setText(
            (ledger_.composition == Composition::Pld
                 ? tr("Ledger %1 (%2 composition, %3): %4 — the plan is composed with its "
                      "releases by the PLD accountant and shares what is left%5.")
                 : tr("Ledger %1 (%2 composition, %3): %4 — the plan shares what is left%5."))
                .arg(QFileInfo(ledger_.path).fileName(),
                     QString::fromLatin1(compositionName(ledger_.composition)),
                     ledger_.charges.size() == 1 ? tr("1 release")
                                                 : tr("%1 releases").arg(ledger_.charges.size()),
                     left,
                     ledger_.found ? tr(" (the last ledger used for this dataset)") : QString()));
    }
    ledgerLine_->setToolTip(ledger_.path);
    ledgerLine_->setPalette(p);
}

void BudgetTab::drawChart() {
    chart_->clearPlottables();
    chart_->clearItems();
    chart_->legend->setBorderPen(Qt::NoPen);  // a caption row, not a box (after the palette)
    chart_->legend->setBrush(Qt::NoBrush);
    // zCDP and PLD share ρ: the bars show each statistic's ρ (of its noise).
    const bool zcdp = plan_.composition != Composition::Basic;
    chart_->yAxis->setLabel(zcdp ? tr("ρ of each statistic") : tr("ε of each statistic"));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int n = static_cast<int>(plan_.statistics.size());
    const bool labelled = n <= kMaxLabelledBars;
    for (int i = 0; labelled && i < n; ++i) {
        ticker->addTick(
            i + 1, QString::fromStdString(plan_.statistics[static_cast<std::size_t>(i)].label));
    }
    chart_->xAxis->setTicker(ticker);
    chart_->xAxis->setRange(0.4, std::max(n, 1) + 0.6);
    auto* split = new QCPBars(chart_->xAxis, chart_->yAxis);
    split->setName(tr("split by weight"));
    split->setPen(QPen(kSplitColour.darker(130)));
    split->setBrush(kSplitColour);
    split->setWidth(0.6);
    auto* held = new QCPBars(chart_->xAxis, chart_->yAxis);
    held->setName(tr("held (ε or accuracy)"));
    held->setPen(QPen(kHeldColour.darker(130)));
    held->setBrush(kHeldColour);
    held->setWidth(0.6);
    if (!result_) {
        // The bars stay, empty: a legend without entries would cap the width of the plot's
        // layout column (QCPLayoutGrid's maximum size is its children's).
        chart_->yAxis->setRange(0, 1);
        auto* why = new QCPItemText(chart_);
        why->position->setType(QCPItemPosition::ptAxisRectRatio);
        why->position->setCoords(0.5, 0.5);
        why->setText(n > 0 ? tr("No allocation: the plan does not compute (see the message "
                                "above).")
                           : tr("No statistics: add one above."));
        why->setColor(palette().color(QPalette::PlaceholderText));
        replotWhenVisible(chart_);
        return;
    }
    double top = 0;
    const QColor text = palette().color(QPalette::WindowText);
    bool anyHeld = false;
    for (int i = 0; i < n; ++i) {
        const StatisticAllocation& a = result_->statistics[static_cast<std::size_t>(i)];
        const double v = zcdp ? a.rho : a.epsilon;
        top = std::max(top, v);
        const bool isHeld = a.hold.kind != HoldKind::None;
        anyHeld = anyHeld || isHeld;
        (isHeld ? held : split)->addData(i + 1, v);
        if (!labelled) {
            continue;
        }
        auto* label = new QCPItemText(chart_);
        label->position->setType(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(i + 1, v);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setText(QString::number(100 * a.share, 'g', 3) + QLatin1Char('%'));
        label->setColor(text);
        label->setClipToAxisRect(false);
    }
    if (!anyHeld) {
        held->removeFromLegend();
    }
    chart_->yAxis->setRange(0, top > 0 ? top * 1.18 : 1);
    replotWhenVisible(chart_);
}

QString BudgetTab::toCsv() const {
    QStringList lines;
    lines << QStringLiteral(
        "statistic,bins,mechanism,weight,hold,hold_value,epsilon,delta,rho,share,noise_parameter,"
        "noise_scale,half_width_95,expected_l1,expected_l1_percent,per_bin_variance,"
        "sampling_rate,composition");
    for (std::size_t i = 0; i < plan_.statistics.size(); ++i) {
        const PlanStatistic& s = plan_.statistics[i];
        QStringList f;
        f << csvField(QString::fromStdString(s.label)) << QString::number(s.bins)
          << QString::fromLatin1(mechanismName(s.mechanism)) << formatSignificant(s.weight, 17)
          << QString::fromLatin1(holdKindName(s.hold.kind))
          << (s.hold.kind == HoldKind::None ? QString() : formatSignificant(s.hold.value, 17));
        if (result_) {
            const StatisticAllocation& a = result_->statistics[i];
            f << formatSignificant(a.epsilon, 17) << formatSignificant(a.delta, 17)
              << formatSignificant(a.rho, 17) << formatSignificant(a.share, 17)
              << noiseParameter(s.mechanism) << formatSignificant(a.noise.scale, 17)
              << formatSignificant(a.noise.halfWidth95, 17) << formatSignificant(a.expectedL1, 17)
              << (a.expectedL1Percent ? formatSignificant(*a.expectedL1Percent, 17) : QString())
              << formatSignificant(a.perBinVariance, 17);
        } else {
            for (int k = 0; k < 10; ++k) {
                f << QString();
            }
        }
        // The sampling rate the noise was calibrated for, and the accountant the plan used.
        f << formatSignificant(s.samplingRate, 17)
          << QString::fromLatin1(compositionName(plan_.composition));
        lines << f.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void BudgetTab::computeProfile() {
    profile_.reset();
    profilePending_ = false;
    if (!result_ || plan_.statistics.empty()) {
        if (runner_) {
            runner_->cancel(profileSlot_);
        }
        profileNote_->setText(plan_.statistics.empty()
                                  ? tr("Add a statistic to see the plan's privacy profile.")
                                  : tr("No privacy profile: the plan does not compute (see the "
                                       "message above)."));
        drawProfile();
        return;
    }
    // A PLD ledger's releases record their loss: the profile composes them with the plan.
    if (!plan_.spent.empty() && plan_.spentLosses.size() != plan_.spent.size()) {
        if (runner_) {
            runner_->cancel(profileSlot_);
        }
        profileNote_->setText(
            tr("No privacy profile: the plan starts from a ledger whose releases record no "
               "mechanism, and the tight accountants need every release's noise (basic "
               "composition and zCDP above still count them)."));
        drawProfile();
        return;
    }
    if (plan_.statistics.size() > kMaxProfileStatistics) {
        if (runner_) {
            runner_->cancel(profileSlot_);
        }
        profileNote_->setText(tr("No privacy profile for plans of more than %1 statistics.")
                                  .arg(kMaxProfileStatistics));
        drawProfile();
        return;
    }
    profileNote_->setText(tr("Computing the privacy profile…"));
    drawProfile();
    if (!runner_) {
        return;
    }
    profilePending_ = true;
    const BudgetPlan plan = plan_;
    const PlanResult result = *result_;
    const bool sampled = std::any_of(plan.statistics.begin(), plan.statistics.end(),
                                     [](const PlanStatistic& st) { return st.samplingRate < 1; });
    QPointer<BudgetTab> self(this);
    runner_->run<ProfileRun>(
        profileSlot_,
        [plan, result](std::stop_token, JobProgress&) {
            // ε from 0 to twice the total: where the accountants differ.
            std::vector<double> grid;
            const double top = 2 * result.total.epsilon;
            for (int i = 0; i < kProfilePoints; ++i) {
                grid.push_back(top * i / (kProfilePoints - 1));
            }
            ProfileRun out;
            auto p = accounting::planProfile(plan, result, grid);
            if (p) {
                out.profile = std::move(p).value();
            } else {
                out.error = QString::fromStdString(p.error().message);
            }
            return out;
        },
        [self, sampled](ProfileRun run) {
            if (!self) {
                return;
            }
            self->profile_ = run.profile;
            self->profilePending_ = false;
            if (run.profile) {
                self->profileNote_->setText(
                    tr("Privacy profile of the plan's noise; PLD grid h = %1, solid: upper bound, "
                       "dashed: lower bound.")
                        .arg(formatSignificant(run.profile->pldInterval, 3)) +
                    (sampled ? tr(" Poisson sampling amplified (PLD: add and remove composed "
                                  "separately, Zhu, Dong & Wang 2022; Rényi: Mironov, Talwar & "
                                  "Zhang 2019; basic: Li, Qardaji & Su 2012); zCDP does not "
                                  "amplify it.")
                             : QString()));
            } else {
                self->profileNote_->setText(tr("No privacy profile: %1").arg(run.error));
            }
            self->drawProfile();
            Q_EMIT self->profileComputed();
        },
        tr("Privacy profile"));
}

QString BudgetTab::profileText() const {
    return profileNote_->text();
}

void BudgetTab::drawProfile() {
    profilePlot_->clearGraphs();
    profilePlot_->clearItems();
    const double totalEps = plan_.total.epsilon > 0 ? plan_.total.epsilon : 1;
    profilePlot_->xAxis->setRange(0, 2 * totalEps);
    profilePlot_->yAxis->setRange(kProfileDeltaFloor, 1);
    const QColor text = palette().color(QPalette::WindowText);
    for (int r = 0; r < 4; ++r) {
        accountants_->item(r, 1)->setText(QStringLiteral("—"));
        accountants_->item(r, 2)->setText(QStringLiteral("—"));
    }
    accountants_->setHorizontalHeaderLabels(
        {tr("Accountant"),
         plan_.total.delta > 0 ? tr("ε at δ = %1").arg(formatSignificant(plan_.total.delta, 3))
                               : tr("ε at the total δ"),
         tr("δ at ε = %1").arg(formatSignificant(plan_.total.epsilon, 4))});
    if (!profile_) {
        auto* why = new QCPItemText(profilePlot_);
        why->position->setType(QCPItemPosition::ptAxisRectRatio);
        why->position->setCoords(0.5, 0.5);
        why->setText(profileNote_->text().isEmpty() ? tr("No privacy profile")
                                                    : profileNote_->text());
        why->setColor(text);
        why->setClipToAxisRect(false);
        fitAccountantsWidth();
        replotWhenVisible(profilePlot_);
        return;
    }
    QVector<double> x(profile_->epsilons.begin(), profile_->epsilons.end());
    auto visible = [](const std::vector<double>& v) {
        QVector<double> y;
        for (double d : v) {
            y.push_back(d >= kProfileDeltaFloor ? d : qQNaN());
        }
        return y;
    };
    // "upper" alone, or "lower – upper" when the PLD's bounds differ at the digits shown.
    auto bounds = [](const accounting::AccountantAnswer& a, const auto& fmt) {
        const QString up = fmt(a.value);
        if (!a.lower) {
            return up;
        }
        const QString low = fmt(*a.lower);
        return low == up ? up : low + QStringLiteral(" – ") + up;
    };
    auto fmtEps = [](double v) { return formatSignificant(v, 4); };
    auto fmtDelta = [](double v) { return formatProbability(v, 3); };
    for (std::size_t c = 0; c < profile_->curves.size(); ++c) {
        const auto& curve = profile_->curves[c];
        const QColor colour = kAccountantColours[c];
        auto* g = profilePlot_->addGraph();
        g->setName(curve.accountant == accounting::Accountant::Pld ? tr("PLD upper")
                                                                   : shortName(curve.accountant));
        g->setPen(QPen(colour, 2));
        g->setData(x, visible(curve.delta), true);
        if (!curve.deltaLower.empty()) {
            auto* low = profilePlot_->addGraph();
            low->setName(tr("PLD lower"));
            low->setPen(QPen(colour, 2, Qt::DashLine));
            low->setData(x, visible(curve.deltaLower), true);
        }
        const int r = static_cast<int>(c);
        if (curve.atTotal.epsilon) {
            accountants_->item(r, 1)->setText(bounds(*curve.atTotal.epsilon, fmtEps));
        } else {
            accountants_->item(r, 1)->setText(QStringLiteral("—"));
            accountants_->item(r, 1)->setToolTip(QString::fromStdString(curve.atTotal.note));
        }
        if (curve.atTotal.delta) {
            accountants_->item(r, 2)->setText(bounds(*curve.atTotal.delta, fmtDelta));
        }
    }
    // The total ε and δ, dotted.
    QPen marker(palette().color(QPalette::Mid), 1, Qt::DotLine);
    auto* vertical = new QCPItemStraightLine(profilePlot_);
    vertical->point1->setCoords(plan_.total.epsilon, kProfileDeltaFloor);
    vertical->point2->setCoords(plan_.total.epsilon, 1);
    vertical->setPen(marker);
    if (plan_.total.delta >= kProfileDeltaFloor) {
        auto* horizontal = new QCPItemStraightLine(profilePlot_);
        horizontal->point1->setCoords(0, plan_.total.delta);
        horizontal->point2->setCoords(1, plan_.total.delta);
        horizontal->setPen(marker);
    }
    accountants_->resizeColumnsToContents();
    fitAccountantsWidth();
    replotWhenVisible(profilePlot_);
}

void BudgetTab::fitAccountantsWidth() {
    // As wide as its columns: the tab stacks the profile under the chart rather than let the
    // table scroll sideways.
    accountants_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    QHeaderView* header = accountants_->horizontalHeader();
    header->setStretchLastSection(false);  // every column at its contents' width, to sum them
    accountants_->resizeColumnsToContents();
    int width = 2 * accountants_->frameWidth();
    for (int c = 0; c < accountants_->columnCount(); ++c) {
        width += accountants_->columnWidth(c);
    }
    header->setStretchLastSection(true);
    accountants_->setMinimumWidth(width);
}

void BudgetTab::fitRowHeight() {
    // Rows tall enough for two lines of text (DetailUnderValueDelegate) at the current font.
    const int twoLines = 2 * table_->fontMetrics().lineSpacing() + 6;
    QHeaderView* rows = table_->verticalHeader();
    if (rows->defaultSectionSize() < twoLines) {
        rows->setDefaultSectionSize(twoLines);
        for (int r = 0; r < table_->rowCount(); ++r) {
            rows->resizeSection(r, twoLines);
        }
    }
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                             3 * rows->defaultSectionSize() + 2 * table_->frameWidth());
}

void BudgetTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        fitRowHeight();  // zoom
    }
    if (event->type() == QEvent::PaletteChange) {
        applyPlotPalette(chart_, palette());
        applyPlotPalette(profilePlot_, palette());
        drawProfile();
        drawChart();
    }
}

}  // namespace dpx::ui
