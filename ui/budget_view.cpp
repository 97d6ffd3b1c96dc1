#include "ui/budget_view.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/plot_refresh.h"
#include "ui/plot_style.h"
#include "ui/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QColor kSplitColour(66, 133, 244);
const QColor kHeldColour(230, 97, 0);
const QColor kErrorColour(200, 30, 30);

QString num(double v) {
    return QString::number(v, 'g', 4);
}

QString full(double v) {
    return QString::number(v, 'g', 17);
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

QString noiseParameter(PlanMechanism m) {
    switch (m) {
        case PlanMechanism::Laplace:
            return QStringLiteral("b");
        case PlanMechanism::Geometric:
            return QStringLiteral("α");
        case PlanMechanism::Gaussian:
            return QStringLiteral("σ");
    }
    return QStringLiteral("b");
}

int mechanismIndex(PlanMechanism m) {
    return static_cast<int>(m);
}

PlanMechanism mechanismAt(int index) {
    return index == 1   ? PlanMechanism::Geometric
           : index == 2 ? PlanMechanism::Gaussian
                        : PlanMechanism::Laplace;
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

}  // namespace

BudgetView::BudgetView(QWidget* parent) : QWidget(parent) {
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
    composition_->setToolTip(
        tr("Basic composition adds the ε's and δ's (Dwork & Roth 2014 Thm 3.16). zCDP adds the "
           "ρ's and converts the sum with ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016 Prop 1.3): "
           "tighter for many Gaussian releases."));
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
    table_->setHorizontalHeaderLabels({tr("Statistic"), tr("Bins"), tr("Mechanism"), tr("Weight"),
                                       tr("Hold"), tr("ε"), tr("δ"), tr("ρ"), tr("Noise"),
                                       tr("±95% per bin"), tr("E[L1] (% of N)")});
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
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(ColStatistic, QHeaderView::Stretch);
    table_->horizontalHeader()->setStretchLastSection(false);

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
    chart_->xAxis->setLabel(tr("statistic"));
    // The legend in a row of its own above the axis rect, so it never covers a bar's label.
    chart_->legend->setVisible(true);
    chart_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    chart_->plotLayout()->insertRow(0);
    chart_->plotLayout()->addElement(0, 0, chart_->legend);
    chart_->plotLayout()->setRowStretchFactor(0, 0.001);
    chart_->legend->setMargins(QMargins(6, 2, 6, 2));
    chart_->setToolTip(
        tr("Each statistic's share of the budget: blue split by weight, orange held"));

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
    auto* columnLabel = new QLabel(tr("C&olumn:"));
    columnLabel->setBuddy(addColumn_);
    top->addWidget(columnLabel);
    top->addWidget(addColumn_);
    top->addWidget(add_);
    top->addWidget(remove_);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(table_, 1);
    layout->addWidget(summary_);
    layout->addWidget(error_);
    layout->addWidget(chart_, 1);

    connect(totalEpsilon_, &QLineEdit::editingFinished, this, [this] { applyTotalFields(); });
    connect(totalDelta_, &QLineEdit::editingFinished, this, [this] { applyTotalFields(); });
    connect(composition_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (updating_) {
            return;
        }
        BudgetPlan c = plan_;
        c.composition = index == 1 ? Composition::Zcdp : Composition::Basic;
        apply(c);
    });
    connect(add_, &QPushButton::clicked, this, [this] { addStatistic(addColumn_->currentText()); });
    connect(remove_, &QPushButton::clicked, this, [this] {
        const int row = table_->currentRow();
        removeStatistic(row >= 0 ? row : static_cast<int>(plan_.statistics.size()) - 1);
    });
    connect(table_, &QTableWidget::itemChanged, this,
            [this](QTableWidgetItem* item) { onItemChanged(item); });

    applyPlotPalette(chart_, palette());
    setTotal(1, 0);
}

BudgetView::~BudgetView() {
    // ~QWidget deletes the children after this object's members are gone; a line edit losing
    // focus then would emit editingFinished into a half-destroyed view.
    for (QObject* sender : std::initializer_list<QObject*>{totalEpsilon_, totalDelta_, composition_,
                                                           table_, add_, remove_}) {
        QObject::disconnect(sender, nullptr, this, nullptr);
    }
}

void BudgetView::setDataset(const QStringList& columns, const QString& currentColumn,
                            int currentBins, double totalRecords, double l1Sensitivity,
                            double l2Sensitivity) {
    const bool sameColumns = columns == columns_;
    columns_ = columns;
    currentBins_ = std::max(1, currentBins);
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
    BudgetPlan c = plan_;
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
        s.bins = currentBins_;
        s.records = records_;
        s.l1Sensitivity = l1_;
        s.l2Sensitivity = l2_;
        c.statistics.push_back(s);
    }
    add_->setEnabled(!columns.isEmpty());
    if (!apply(c)) {
        // The dataset changed under the plan: show the new rows even though they do not compute.
        plan_ = c;
        result_.reset();
        refresh();
    }
}

void BudgetView::setTotal(double epsilon, double delta) {
    totalEpsilon_->setText(QString::number(epsilon, 'g', 15));
    totalDelta_->setText(QString::number(delta, 'g', 15));
    applyTotalFields();
}

void BudgetView::setPlan(const dpx::BudgetPlan& plan) {
    BudgetPlan c = plan;
    for (PlanStatistic& st : c.statistics) {
        st.records = records_;
        st.l1Sensitivity = l1_;
        st.l2Sensitivity = l2_;
    }
    if (!apply(c)) {
        plan_ = c;
        result_.reset();
        refresh();
    }
}

void BudgetView::setComposition(dpx::Composition composition) {
    composition_->setCurrentIndex(composition == Composition::Zcdp ? 1 : 0);
}

void BudgetView::addStatistic(const QString& column) {
    if (column.isEmpty()) {
        return;
    }
    BudgetPlan c = plan_;
    PlanStatistic s;
    s.label = column.toStdString();
    s.bins = currentBins_;
    s.records = records_;
    s.l1Sensitivity = l1_;
    s.l2Sensitivity = l2_;
    c.statistics.push_back(s);
    apply(c);
}

void BudgetView::removeStatistic(int row) {
    if (row < 0 || row >= static_cast<int>(plan_.statistics.size())) {
        return;
    }
    BudgetPlan c = plan_;
    c.statistics.erase(c.statistics.begin() + row);
    apply(c);
}

QString BudgetView::summaryText() const {
    return summary_->text();
}

QString BudgetView::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

bool BudgetView::apply(const dpx::BudgetPlan& candidate) {
    if (candidate.statistics.empty()) {
        if (auto s = candidate.total.validate(); !s) {
            showError(QString::fromStdString(s.error().message));
            refresh();
            return false;
        }
        plan_ = candidate;
        result_.reset();
    } else {
        auto r = allocatePlan(candidate);
        if (!r) {
            showError(QString::fromStdString(r.error().message));
            refresh();
            return false;
        }
        plan_ = candidate;
        result_ = *r;
    }
    error_->clear();
    error_->hide();
    setFieldInvalid(totalEpsilon_, false);
    setFieldInvalid(totalDelta_, false);
    totalEpsilon_->setText(QString::number(plan_.total.epsilon, 'g', 15));
    totalDelta_->setText(QString::number(plan_.total.delta, 'g', 15));
    refresh();
    Q_EMIT planChanged();
    return true;
}

void BudgetView::showError(const QString& message) {
    error_->setText(message);
    error_->show();
}

void BudgetView::setFieldInvalid(QLineEdit* field, bool invalid) {
    field->setStyleSheet(invalid ? QStringLiteral("QLineEdit { background-color: #ffd6d6; "
                                                  "color: #000000; }")
                                 : QString());
    field->setProperty("invalid", invalid);
}

void BudgetView::applyTotalFields() {
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
    if (*eps == plan_.total.epsilon && *delta == plan_.total.delta && result_) {
        return;
    }
    BudgetPlan c = plan_;
    c.total = {*eps, *delta};
    const bool epsChanged = *eps != plan_.total.epsilon;
    const bool deltaChanged = *delta != plan_.total.delta;
    if (!apply(c)) {
        // Keep what the user typed, marked, beside the unchanged plan.
        totalEpsilon_->setText(QString::number(*eps, 'g', 15));
        totalDelta_->setText(QString::number(*delta, 'g', 15));
        setFieldInvalid(totalEpsilon_, epsChanged && !deltaChanged);
        setFieldInvalid(totalDelta_, deltaChanged);
    }
}

void BudgetView::onItemChanged(QTableWidgetItem* item) {
    if (updating_ || !item) {
        return;
    }
    const int row = item->row();
    const int col = item->column();
    if (row < 0 || row >= static_cast<int>(plan_.statistics.size())) {
        return;
    }
    const auto v = parseNumber(item->text());
    if (!v) {
        showError(tr("'%1' is not a number; the plan is unchanged.").arg(item->text()));
        refresh();
        return;
    }
    BudgetPlan c = plan_;
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
        default:
            return;
    }
    apply(c);
}

void BudgetView::rebuildRows() {
    const QSignalBlocker block(table_);
    updating_ = true;
    const int n = static_cast<int>(plan_.statistics.size());
    table_->clearContents();
    table_->setRowCount(n);
    for (int i = 0; i < n; ++i) {
        auto* label = readOnlyItem();
        label->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        table_->setItem(i, ColStatistic, label);

        auto* bins = new QSpinBox;
        bins->setRange(1, 10'000'000);
        bins->setFrame(false);
        bins->setToolTip(tr("Number of bins k of this histogram"));
        connect(bins, &QSpinBox::valueChanged, this, [this, i](int value) {
            if (updating_ || i >= static_cast<int>(plan_.statistics.size())) {
                return;
            }
            BudgetPlan c = plan_;
            c.statistics[static_cast<std::size_t>(i)].bins = value;
            apply(c);
        });
        table_->setCellWidget(i, ColBins, bins);

        auto* mech = new QComboBox;
        mech->setFrame(false);
        mech->addItems({tr("Laplace"), tr("Geometric"), tr("Gaussian")});
        mech->setToolTip(tr("Laplace and geometric: pure ε-DP. Gaussian: (ε, δ), needs δ > 0."));
        connect(mech, &QComboBox::currentIndexChanged, this, [this, i](int index) {
            if (updating_ || i >= static_cast<int>(plan_.statistics.size())) {
                return;
            }
            BudgetPlan c = plan_;
            c.statistics[static_cast<std::size_t>(i)].mechanism = mechanismAt(index);
            apply(c);
        });
        table_->setCellWidget(i, ColMechanism, mech);

        table_->setItem(i, ColWeight, editableItem(tr("Share of what the held statistics leave")));

        auto* hold = new QComboBox;
        hold->setFrame(false);
        hold->addItems({tr("none"), tr("ε"), tr("accuracy")});
        hold->setToolTip(
            tr("Hold this statistic's ε or its ±95% accuracy while the others "
               "re-split; none: share by weight"));
        connect(hold, &QComboBox::currentIndexChanged, this, [this, i](int index) {
            if (updating_ || i >= static_cast<int>(plan_.statistics.size())) {
                return;
            }
            BudgetPlan c = plan_;
            PlanStatistic& s = c.statistics[static_cast<std::size_t>(i)];
            const StatisticAllocation* a =
                result_ ? &result_->statistics[static_cast<std::size_t>(i)] : nullptr;
            if (index == 0) {
                s.hold = {};
            } else if (!a) {
                showError(tr("Nothing to hold: the plan does not compute."));
                refresh();
                return;
            } else if (index == 1) {
                // Under zCDP a Gaussian row's ε is its conversion at the total δ, which a held ε
                // inverts; pure-DP rows hold their own ε.
                // The tiny step down keeps the conversion's rounding inside the ρ it had.
                const bool converted = plan_.composition == Composition::Zcdp &&
                                       s.mechanism == PlanMechanism::Gaussian;
                s.hold = {HoldKind::Epsilon, converted ? a->epsilon * (1 - 1e-12) : a->epsilon};
            } else {
                // The inverse meets ±a to a relative 1e-10 from above; hold a hair more than the
                // current half-width so that holding what is shown never costs more than it had.
                s.hold = {HoldKind::Accuracy, s.mechanism == PlanMechanism::Geometric
                                                  ? a->noise.halfWidth95
                                                  : a->noise.halfWidth95 * (1 + 1e-9)};
            }
            apply(c);
        });
        table_->setCellWidget(i, ColHold, hold);

        table_->setItem(i, ColEpsilon, editableItem(tr("Type an ε to hold it")));
        table_->setItem(i, ColDelta, readOnlyItem());
        table_->setItem(i, ColRho, readOnlyItem());
        table_->setItem(i, ColNoise, readOnlyItem());
        table_->setItem(i, ColHalfWidth, editableItem(tr("Type ±a to hold that accuracy")));
        table_->setItem(i, ColL1, readOnlyItem());
    }
    updating_ = false;
}

void BudgetView::refresh() {
    if (table_->rowCount() != static_cast<int>(plan_.statistics.size())) {
        rebuildRows();
    }
    const QSignalBlocker block(table_);
    updating_ = true;
    {
        const QSignalBlocker b(composition_);
        composition_->setCurrentIndex(plan_.composition == Composition::Zcdp ? 1 : 0);
    }
    const bool zcdp = plan_.composition == Composition::Zcdp;
    table_->horizontalHeaderItem(ColRho)->setText(zcdp ? tr("ρ (charged)") : tr("ρ"));
    table_->horizontalHeaderItem(ColEpsilon)->setText(zcdp ? tr("ε (alone)") : tr("ε"));
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
        table_->item(i, ColWeight)->setText(num(s.weight));
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
                table_->item(i, ColEpsilon)->setText(num(s.hold.value));
            } else if (s.hold.kind == HoldKind::Accuracy) {
                table_->item(i, ColHalfWidth)->setText(QStringLiteral("±") + num(s.hold.value));
            }
            continue;
        }
        table_->item(i, ColEpsilon)->setText(num(a->epsilon));
        table_->item(i, ColDelta)
            ->setText(zcdp && s.mechanism == PlanMechanism::Gaussian
                          ? tr("(total)")
                          : (a->delta > 0 ? num(a->delta) : QStringLiteral("0")));
        table_->item(i, ColRho)->setText(num(a->rho));
        table_->item(i, ColNoise)
            ->setText(noiseParameter(s.mechanism) + QStringLiteral(" = ") + num(a->noise.scale));
        table_->item(i, ColHalfWidth)->setText(QStringLiteral("±") + num(a->noise.halfWidth95));
        table_->item(i, ColL1)->setText(
            a->expectedL1Percent
                ? tr("%1 (%2%)")
                      .arg(num(a->expectedL1), QString::number(*a->expectedL1Percent, 'g', 3))
                : num(a->expectedL1));
    }
    updating_ = false;
    remove_->setEnabled(!plan_.statistics.empty());

    // Summary line.
    if (!result_) {
        summary_->setText(plan_.statistics.empty()
                              ? tr("Add a statistic (a histogram of a column) to plan a release.")
                              : tr("The plan does not compute; see the message below."));
    } else {
        const PlanResult& r = *result_;
        const BudgetUsage& u = r.usage;
        QString text;
        if (!zcdp) {
            // The exact sum as a fraction when it is short ("1", "3/10"), else what it leaves.
            const QString exact =
                u.epsilonSpentExact.size() <= 16
                    ? QString::fromStdString(u.epsilonSpentExact)
                    : tr("total − %1").arg(QString::number(u.epsilonRemaining, 'g', 3));
            text = tr("Basic composition: Σε = %1 (exact: %2), Σδ = %3 — fits the total (ε = %4, "
                      "δ = %5)")
                       .arg(num(u.epsilonSpent), exact,
                            u.deltaSpent > 0 ? num(u.deltaSpent) : QStringLiteral("0"),
                            num(r.total.epsilon), num(r.total.delta));
            if (r.other.available) {
                text += tr("; under zCDP the same noise would cost ε = %1 at δ = %2")
                            .arg(num(r.other.epsilon), num(r.other.delta));
                if (r.other.epsilon < u.epsilonSpent) {
                    text += tr(" — zCDP accounting is tighter here");
                }
            } else {
                text += tr("; zCDP: %1").arg(QString::fromStdString(r.other.note));
            }
        } else {
            text = tr("zCDP: Σρ = %1 of the ρ budget %2, i.e. (ε = %3, δ = %4) — fits the total")
                       .arg(num(u.rhoSpent), num(r.rhoBudget), num(u.epsilonSpent),
                            num(r.total.delta));
            if (r.other.available) {
                text += tr("; under basic composition the same noise would cost ε = %1, δ = %2")
                            .arg(num(r.other.epsilon),
                                 r.other.delta > 0 ? num(r.other.delta) : QStringLiteral("0"));
                if (r.other.epsilon < u.epsilonSpent) {
                    text += tr(" — basic composition is tighter here");
                }
            } else {
                text += tr("; basic composition: %1").arg(QString::fromStdString(r.other.note));
            }
        }
        text += QLatin1Char('.');
        for (const auto& w : r.warnings) {
            text += QLatin1Char(' ') + tr("Note: %1.").arg(QString::fromStdString(w));
        }
        summary_->setText(text);
    }
    drawChart();
}

void BudgetView::drawChart() {
    chart_->clearPlottables();
    chart_->clearItems();
    chart_->legend->setBorderPen(Qt::NoPen);  // a caption row, not a box (after the palette)
    chart_->legend->setBrush(Qt::NoBrush);
    const bool zcdp = plan_.composition == Composition::Zcdp;
    chart_->yAxis->setLabel(zcdp ? tr("ρ of each statistic") : tr("ε of each statistic"));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int n = static_cast<int>(plan_.statistics.size());
    for (int i = 0; i < n; ++i) {
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

QString BudgetView::toCsv() const {
    QStringList lines;
    lines << QStringLiteral(
        "statistic,bins,mechanism,weight,hold,hold_value,epsilon,delta,rho,share,noise_parameter,"
        "noise_scale,half_width_95,expected_l1,expected_l1_percent,per_bin_variance");
    for (std::size_t i = 0; i < plan_.statistics.size(); ++i) {
        const PlanStatistic& s = plan_.statistics[i];
        QStringList f;
        f << csvField(QString::fromStdString(s.label)) << QString::number(s.bins)
          << QString::fromLatin1(planMechanismName(s.mechanism)) << full(s.weight)
          << QString::fromLatin1(holdKindName(s.hold.kind))
          << (s.hold.kind == HoldKind::None ? QString() : full(s.hold.value));
        if (result_) {
            const StatisticAllocation& a = result_->statistics[i];
            f << full(a.epsilon) << full(a.delta) << full(a.rho) << full(a.share)
              << noiseParameter(s.mechanism) << full(a.noise.scale) << full(a.noise.halfWidth95)
              << full(a.expectedL1)
              << (a.expectedL1Percent ? full(*a.expectedL1Percent) : QString())
              << full(a.perBinVariance);
        } else {
            for (int k = 0; k < 10; ++k) {
                f << QString();
            }
        }
        lines << f.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void BudgetView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotPalette(chart_, palette());
        drawChart();
    }
}

}  // namespace dpx::ui
