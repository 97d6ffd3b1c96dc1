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
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

#include "core/count/count_analysis.h"
#include "core/count/lp_objective.h"
#include "ui/tabs/matrix/matrix_support.h"

namespace dpx::ui {

using namespace matrix;

namespace {

// The role of the objective chooser's items that holds their dpx::LpCostKind.
constexpr int kCostRole = Qt::UserRole + 1;

}  // namespace

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
    // Each item: an id (Qt::UserRole, the cost's name in the LP-objective grammar) and its cost
    // (kCostRole), which lpSettings and setLpSettings read.
    struct Item {
        QString text;
        const char* id;
        dpx::LpCostKind cost;
    };
    const Item items[] = {{tr("L0 — any error"), "l0", dpx::LpCostKind::L0},
                          {tr("L1 — |error|"), "l1", dpx::LpCostKind::L1},
                          {tr("L2 — squared error"), "l2", dpx::LpCostKind::L2},
                          {tr("L0,d — error larger than d"), "l0d", dpx::LpCostKind::L0d}};
    for (const Item& item : items) {
        objective_->addItem(item.text, QString::fromLatin1(item.id));
        objective_->setItemData(objective_->count() - 1, static_cast<int>(item.cost), kCostRole);
    }
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

void MatrixTab::setLpResult(const dpx::CountLpResult& lp, const MatrixInfo& info) {
    if (lp.status == dpx::LpStatus::Optimal && lp.mechanism) {
        setCountMechanism(*lp.mechanism, info, &lp);
        return;
    }
    // setCountMechanism ignores the matrix for a non-optimal result; any valid one will do.
    static const dpx::CountMechanism placeholder = *dpx::uniformMechanism(1);
    setCountMechanism(placeholder, info, &lp);
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
                       .arg(QString::fromLatin1(dpx::lpStatusName(lp->status)),
                            formatSignificantOrSymbol(lp->seconds, 2),
                            formatThinSpaceGrouped(lp->iterations), formulation);
    if (lp->warmStarted) {
        text += tr(", warm start");
    }
    if (lp->status == dpx::LpStatus::Optimal && lp->mechanism) {
        text += tr("; objective %1").arg(formatSignificantOrSymbol(lp->objective, 4));
        if (lp->normalised) {
            text += tr(" (normalised %1)").arg(formatSignificantOrSymbol(*lp->normalised, 4));
        }
        if (lp->repairUniformShare > 0) {
            text += tr("; exactness repair mixed in %1 of the uniform mechanism (cost %2)")
                        .arg(formatSignificantOrSymbol(lp->repairUniformShare, 2),
                             formatSignificantOrSymbol(lp->repairCost, 2));
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
    lossD_->setEnabled(objective_->currentData(kCostRole).toInt() ==
                       static_cast<int>(dpx::LpCostKind::L0d));
    weights_->setEnabled(!minimax_->isChecked());
    binomialP_->setEnabled(!minimax_->isChecked() && weights_->currentIndex() == 1);
}

LpSettings MatrixTab::lpSettings() const {
    LpSettings s;
    dpx::LpObjective objective;
    objective.cost = static_cast<dpx::LpCostKind>(objective_->currentData(kCostRole).toInt());
    objective.d = objective.cost == dpx::LpCostKind::L0d ? lossD_->value() : 0;
    objective.aggregate = minimax_->isChecked() ? dpx::LpAggregate::Max : dpx::LpAggregate::Sum;
    s.objective = QString::fromStdString(dpx::formatLpObjective(objective));
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
    // An objective the controls cannot show (unknown, custom:FILE, D out of the spin box's range)
    // leaves them as they are.
    const auto parsed = dpx::parseLpObjective(objective.trimmed().toLower().toStdString());
    const int index =
        parsed ? objective_->findData(static_cast<int>(parsed->objective.cost), kCostRole) : -1;
    const bool l0d = parsed && parsed->objective.cost == dpx::LpCostKind::L0d;
    if (index >= 0 && (!l0d || (parsed->objective.d >= lossD_->minimum() &&
                                parsed->objective.d <= lossD_->maximum()))) {
        if (l0d) {
            lossD_->setValue(parsed->objective.d);
        }
        objective_->setCurrentIndex(index);
        minimax_->setChecked(parsed->objective.aggregate == dpx::LpAggregate::Max);
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

}  // namespace dpx::ui
