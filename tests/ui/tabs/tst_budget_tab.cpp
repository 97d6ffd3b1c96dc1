// The Budget tab (ui/tabs/budget_tab.h, issues #6 and #17): the table shows core's allocation
// (core/choosing/budget_plan.h), editing a row's ε holds it and re-splits the others within the
// total, an invalid total shows an error and keeps the plan, zCDP fills the ρ column and names
// itself in the summary; the view renders, and a plan that does not compute keeps a full-width
// chart. Issue #17: the plan starts from a ledger's releases, each statistic owns its bins, plans
// belong to datasets (and old sessions still open), and the allocation runs on the JobRunner, never
// on the GUI thread. Set DPX_BUDGET_VIEW_PNG=/path.png to keep the 1100×700 rendering (light
// palette).
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "core/accounting/plan_accounting.h"
#include "core/choosing/budget_plan.h"
#include "ui/model/explorer_state.h"
#include "ui/model/job_runner.h"
#include "ui/tabs/budget_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using dpx::ui::BudgetTab;
using dpx::ui::JobRunner;

namespace {

QString num(double v) {
    return QString::number(v, 'g', 4);
}

const QStringList kColumns{QStringLiteral("age"), QStringLiteral("income"), QStringLiteral("zip")};

// Waits until the view has shown the plan it computes on its runner.
bool settle(const BudgetTab& v) {
    return QTest::qWaitFor([&] { return !v.busy(); }, 30000);
}
#define SETTLE(v) QVERIFY(settle(v))

// A view with the dataset (age, income, zip), 1000 records, current column age with 10 bins.
bool setUp(BudgetTab& v, double eps = 1, double delta = 1e-6) {
    v.setDataset(kColumns, QStringLiteral("age"), 10, 1000, 1, 1);
    v.setTotal(eps, delta);
    return settle(v);
}

void typeInto(QLineEdit* field, const QString& text) {
    field->selectAll();
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Return);
}

// The state of a ledger that has charged pure-DP releases of these ε against a basic total.
ui::PlanLedger ledgerOf(double total, const std::vector<double>& spent) {
    ui::PlanLedger l;
    l.path = QStringLiteral("/data/ages-ledger.json");
    l.total = {total, 0};
    l.composition = Composition::Basic;
    l.totalEpsilon = QString::number(total);
    l.totalDelta = QStringLiteral("0");
    auto ledger = BudgetLedger::create(l.total, l.composition);
    for (double e : spent) {
        l.charges.push_back(*pureDpCharge("release", e));
        (void)ledger->charge(l.charges.back());
    }
    l.usage = ledger->usage();
    return l;
}

}  // namespace

class TestBudgetView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void initialRowMatchesCore();
    void editEpsilonResplits();
    void editAccuracyHolds();
    void invalidTotalKeepsPlan();
    void invalidEditKeepsPlan();
    void zcdpFillsRho();
    void datasetChangeKeepsAndDropsRows();
    void csvAndChart();
    void screenshot();
    void startsFromLedger();
    void eachStatisticOwnsItsBins();
    void planComputedOffTheGuiThread();
    void plansBelongToDatasets();
    void privacyProfileUnderEachAccountant();
    void samplingRateAmplifiesTheProfile();
    void planUnderPld();
    void startsFromPldLedger();
};

void TestBudgetView::initTestCase() {
    QLocale::setDefault(QLocale::c());
}

void TestBudgetView::initialRowMatchesCore() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v));
    QCOMPARE(v.table()->rowCount(), 1);
    QCOMPARE(v.table()->objectName(), QStringLiteral("budgetTable"));
    QCOMPARE(v.table()->item(0, BudgetTab::ColStatistic)->text(), QStringLiteral("age"));
    const auto* bins = qobject_cast<QSpinBox*>(v.table()->cellWidget(0, BudgetTab::ColBins));
    QVERIFY(bins);
    QCOMPARE(bins->value(), 10);
    QVERIFY(v.result().has_value());
    // The table against core: one Laplace statistic with the whole ε = 1: b = 1, ±ln 20,
    // E[L1] = k/ε = 10 = 1% of N.
    PlanStatistic s;
    s.label = "age";
    s.bins = 10;
    s.records = 1000;
    auto r = allocatePlan(BudgetPlan{{1, 1e-6}, Composition::Basic, {s}, {}, {}, 0, 1e-4});
    QVERIFY(r.hasValue());
    const StatisticAllocation& a = r->statistics[0];
    QCOMPARE(v.table()->item(0, BudgetTab::ColEpsilon)->text(), num(a.epsilon));
    QCOMPARE(v.table()->item(0, BudgetTab::ColRho)->text(), num(a.rho));
    QCOMPARE(v.table()->item(0, BudgetTab::ColHalfWidth)->text(),
             QStringLiteral("±") + num(std::log(20.0)));
    QCOMPARE(v.table()->item(0, BudgetTab::ColL1)->text(), QStringLiteral("10 (1%)"));
    QVERIFY(v.summaryText().contains(QStringLiteral("Basic composition")));
    QVERIFY(v.errorText().isEmpty());
}

void TestBudgetView::editEpsilonResplits() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v));
    auto* column = v.findChild<QComboBox*>(QStringLiteral("budgetAddColumn"));
    auto* add = v.findChild<QPushButton*>(QStringLiteral("budgetAdd"));
    QVERIFY(column && add);
    column->setCurrentIndex(1);
    QTest::mouseClick(add, Qt::LeftButton);
    SETTLE(v);
    column->setCurrentIndex(2);
    QTest::mouseClick(add, Qt::LeftButton);
    SETTLE(v);
    QCOMPARE(v.table()->rowCount(), 3);
    QCOMPARE(v.result()->statistics[1].epsilon, 1.0 / 3);
    // Hold the first row's ε at 0.5: the two others get 0.25 each; Σε = 1 exactly.
    QSignalSpy changed(&v, &BudgetTab::planChanged);
    v.table()->item(0, BudgetTab::ColEpsilon)->setText(QStringLiteral("0.5"));
    SETTLE(v);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(v.plan().statistics[0].hold.kind, HoldKind::Epsilon);
    const auto* hold = qobject_cast<QComboBox*>(v.table()->cellWidget(0, BudgetTab::ColHold));
    QCOMPARE(hold->currentIndex(), 1);
    QCOMPARE(v.result()->statistics[0].epsilon, 0.5);
    QCOMPARE(v.result()->statistics[1].epsilon, 0.25);
    QCOMPARE(v.result()->statistics[2].epsilon, 0.25);
    QCOMPARE(v.table()->item(1, BudgetTab::ColEpsilon)->text(), QStringLiteral("0.25"));
    QCOMPARE(v.result()->usage.epsilonSpentExact, std::string("1"));
    QVERIFY(v.summaryText().contains(QStringLiteral("exact: 1")));
    // Weight 3 on row 2: 0.5 left in 1 : 3.
    v.table()->item(2, BudgetTab::ColWeight)->setText(QStringLiteral("3"));
    SETTLE(v);
    QCOMPARE(v.result()->statistics[1].epsilon, 0.125);
    QCOMPARE(v.result()->statistics[2].epsilon, 0.375);
    // Release the hold: back to equal thirds.
    auto* holdBox = qobject_cast<QComboBox*>(v.table()->cellWidget(0, BudgetTab::ColHold));
    holdBox->setCurrentIndex(0);
    SETTLE(v);
    QCOMPARE(v.plan().statistics[0].hold.kind, HoldKind::None);
    QVERIFY(v.result()->usage.epsilonRemaining >= 0);
    // Remove the selected row.
    v.table()->selectRow(1);
    QTest::mouseClick(v.findChild<QPushButton*>(QStringLiteral("budgetRemove")), Qt::LeftButton);
    SETTLE(v);
    QCOMPARE(v.table()->rowCount(), 2);
    QCOMPARE(v.table()->item(1, BudgetTab::ColStatistic)->text(), QStringLiteral("zip"));
}

void TestBudgetView::editAccuracyHolds() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v, 2));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    // PSI-style: ±10 for age (Laplace: ε = ln 20/10), income takes the rest.
    v.table()->item(0, BudgetTab::ColHalfWidth)->setText(QStringLiteral("10"));
    SETTLE(v);
    QCOMPARE(v.plan().statistics[0].hold.kind, HoldKind::Accuracy);
    QVERIFY(v.result()->statistics[0].noise.halfWidth95 <= 10);
    QCOMPARE(v.result()->statistics[0].epsilon, std::log(20.0) / 10);
    QVERIFY(v.result()->usage.epsilonRemaining >= 0);
    QVERIFY(std::abs(v.result()->statistics[1].epsilon - (2 - std::log(20.0) / 10)) < 1e-14);
    // Holding what is shown through the Hold combo keeps the allocation (one statistic alone).
    JobRunner runnerW;
    BudgetTab w(&runnerW);
    QVERIFY(setUp(w));
    auto* hold = qobject_cast<QComboBox*>(w.table()->cellWidget(0, BudgetTab::ColHold));
    auto* mech = qobject_cast<QComboBox*>(w.table()->cellWidget(0, BudgetTab::ColMechanism));
    mech->setCurrentIndex(2);  // Gaussian
    SETTLE(w);
    QCOMPARE(w.plan().statistics[0].mechanism, MechanismKind::Gaussian);
    hold->setCurrentIndex(2);
    SETTLE(w);
    QVERIFY2(w.errorText().isEmpty(), qPrintable(w.errorText()));
    QCOMPARE(w.plan().statistics[0].hold.kind, HoldKind::Accuracy);
}

void TestBudgetView::invalidTotalKeepsPlan() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v));
    v.addStatistic(QStringLiteral("zip"));
    SETTLE(v);
    const QString before = v.toCsv();
    auto* eps = v.findChild<QLineEdit*>(QStringLiteral("budgetTotalEpsilon"));
    auto* delta = v.findChild<QLineEdit*>(QStringLiteral("budgetTotalDelta"));
    QVERIFY(eps && delta);
    for (const char* bad : {"-1", "0", "abc", "nan", "inf"}) {
        typeInto(eps, QString::fromLatin1(bad));
        SETTLE(v);
        QVERIFY2(!v.errorText().isEmpty(), bad);
        QVERIFY(eps->property("invalid").toBool());
        QCOMPARE(v.toCsv(), before);
        QCOMPARE(v.plan().total.epsilon, 1.0);
    }
    typeInto(eps, QStringLiteral("2"));
    SETTLE(v);
    QVERIFY(v.errorText().isEmpty());
    QVERIFY(!eps->property("invalid").toBool());
    QCOMPARE(v.result()->statistics[0].epsilon, 1.0);
    const QString two = v.toCsv();
    for (const char* bad : {"1", "-0.1", "2"}) {
        typeInto(delta, QString::fromLatin1(bad));
        SETTLE(v);
        QVERIFY2(!v.errorText().isEmpty(), bad);
        QVERIFY(delta->property("invalid").toBool());
        QCOMPARE(v.toCsv(), two);
    }
    // δ = 0 is a valid total, but not with a Gaussian statistic.
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(0, BudgetTab::ColMechanism));
    mech->setCurrentIndex(2);
    SETTLE(v);
    QCOMPARE(v.plan().statistics[0].mechanism, MechanismKind::Gaussian);
    const QString gauss = v.toCsv();
    typeInto(delta, QStringLiteral("0"));
    SETTLE(v);
    QVERIFY(v.errorText().contains(QStringLiteral("age")));
    QCOMPARE(v.toCsv(), gauss);
    QCOMPARE(v.plan().total.delta, 1e-6);
}

void TestBudgetView::invalidEditKeepsPlan() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    const QString before = v.toCsv();
    // A held ε above the total, a negative weight, a non-number: error, plan and table unchanged.
    v.table()->item(0, BudgetTab::ColEpsilon)->setText(QStringLiteral("1.5"));
    SETTLE(v);
    QVERIFY(v.errorText().contains(QStringLiteral("exceed")));
    QCOMPARE(v.toCsv(), before);
    QCOMPARE(v.table()->item(0, BudgetTab::ColEpsilon)->text(), QStringLiteral("0.5"));
    v.table()->item(1, BudgetTab::ColWeight)->setText(QStringLiteral("-1"));
    SETTLE(v);
    QVERIFY(v.errorText().contains(QStringLiteral("income")));
    QCOMPARE(v.toCsv(), before);
    v.table()->item(1, BudgetTab::ColHalfWidth)->setText(QStringLiteral("x"));
    SETTLE(v);
    QVERIFY(v.errorText().contains(QStringLiteral("not a number")));
    QCOMPARE(v.toCsv(), before);
    // Geometric with zCDP at δ = 0 is refused by the composition switch.
    JobRunner runnerP;
    BudgetTab p(&runnerP);
    QVERIFY(setUp(p, 1, 0));
    p.setComposition(Composition::Zcdp);
    SETTLE(p);
    QVERIFY(p.errorText().contains(QStringLiteral("δ > 0")));
    QCOMPARE(p.plan().composition, Composition::Basic);
    QCOMPARE(p.findChild<QComboBox*>(QStringLiteral("budgetComposition"))->currentIndex(), 0);
}

void TestBudgetView::zcdpFillsRho() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(1, BudgetTab::ColMechanism));
    mech->setCurrentIndex(2);
    SETTLE(v);
    auto* comp = v.findChild<QComboBox*>(QStringLiteral("budgetComposition"));
    comp->setCurrentIndex(1);
    SETTLE(v);
    QCOMPARE(v.plan().composition, Composition::Zcdp);
    QVERIFY(v.result().has_value());
    const double budget = v.result()->rhoBudget;
    double rho = 0;
    for (int i = 0; i < 2; ++i) {
        const auto& a = v.result()->statistics[static_cast<std::size_t>(i)];
        rho += a.rho;
        QCOMPARE(v.table()->item(i, BudgetTab::ColRho)->text(), num(a.rho));
        QVERIFY(a.rho > 0);
    }
    QVERIFY(rho <= budget);
    QVERIFY(v.result()->usage.epsilonSpent <= 1);
    QVERIFY(v.summaryText().startsWith(QStringLiteral("zCDP")));
    QVERIFY(v.summaryText().contains(QStringLiteral("basic composition")));
    QCOMPARE(v.plot()->yAxis->label(), QStringLiteral("ρ of each statistic"));
}

void TestBudgetView::datasetChangeKeepsAndDropsRows() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v));
    v.addStatistic(QStringLiteral("zip"));
    SETTLE(v);
    auto* bins = qobject_cast<QSpinBox*>(v.table()->cellWidget(1, BudgetTab::ColBins));
    bins->setValue(40);
    SETTLE(v);
    QCOMPARE(v.plan().statistics[1].bins, 40);
    // Same columns again (another bin count in the main view): rows kept.
    v.setDataset(kColumns, QStringLiteral("income"), 7, 1000, 1, 1);
    SETTLE(v);
    QCOMPARE(v.table()->rowCount(), 2);
    QCOMPARE(v.plan().statistics[1].bins, 40);
    // "zip" vanishes: its row goes; "age" stays.
    v.setDataset({QStringLiteral("age"), QStringLiteral("income")}, QStringLiteral("age"), 10, 500,
                 1, 1);
    SETTLE(v);
    QCOMPARE(v.table()->rowCount(), 1);
    QCOMPARE(v.plan().statistics[0].label, std::string("age"));
    QCOMPARE(*v.plan().statistics[0].records, 500.0);
    // Every column gone: a fresh row for the new current column.
    v.setDataset({QStringLiteral("x")}, QStringLiteral("x"), 5, 0, 1, 1);
    SETTLE(v);
    QCOMPARE(v.table()->rowCount(), 1);
    QCOMPARE(v.plan().statistics[0].label, std::string("x"));
    QCOMPARE(v.plan().statistics[0].bins, 5);
    QVERIFY(!v.plan().statistics[0].records.has_value());
}

void TestBudgetView::csvAndChart() {
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    QVERIFY(setUp(v));
    v.addStatistic(QStringLiteral("a,b"));  // a label that needs quoting
    SETTLE(v);
    const QStringList lines = v.toCsv().trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith(QStringLiteral("statistic,bins,mechanism,weight,hold")));
    // Issue #22: the sampling rate and the accountant of the plan, as the last two columns.
    QVERIFY2(lines[0].endsWith(QStringLiteral(",per_bin_variance,sampling_rate,composition")),
             qPrintable(lines[0]));
    QVERIFY(lines[1].startsWith(QStringLiteral("age,10,laplace,1,none,,0.5,0,")));
    QVERIFY2(lines[1].endsWith(QStringLiteral(",1,basic")), qPrintable(lines[1]));
    QVERIFY(lines[2].startsWith(QStringLiteral("\"a,b\",10,laplace")));
    // The chart: one bar per statistic at its ε, named ticks, labelled axes.
    QCustomPlot* plot = v.plot();
    QCOMPARE(plot->plottableCount(), 2);
    auto* bars = qobject_cast<QCPBars*>(plot->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->data()->size(), 2);
    QCOMPARE(bars->data()->at(0)->value, 0.5);
    auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().value(1), QStringLiteral("age"));
    QCOMPARE(ticker->ticks().value(2), QStringLiteral("a,b"));
    QVERIFY(!plot->xAxis->label().isEmpty());
    QCOMPARE(plot->yAxis->label(), QStringLiteral("ε of each statistic"));
}

// Renders the view with three statistics (to DPX_BUDGET_VIEW_PNG if set, else a temporary file)
// and checks the picture; then a plan that does not compute keeps a full-width chart (an empty
// legend used to collapse the plot's layout column).
void TestBudgetView::screenshot() {
    QTemporaryDir dir;
    QByteArray path = qgetenv("DPX_BUDGET_VIEW_PNG");
    if (path.isEmpty()) {
        path = dir.filePath(QStringLiteral("budget.png")).toLocal8Bit();
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(QApplication::style()->standardPalette());
    JobRunner runnerV;
    BudgetTab v(&runnerV);
    v.resize(1100, 700);
    QVERIFY(setUp(v, 1, 1e-6));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    v.addStatistic(QStringLiteral("zip"));
    SETTLE(v);
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(1, BudgetTab::ColMechanism));
    mech->setCurrentIndex(2);
    SETTLE(v);
    qobject_cast<QSpinBox*>(v.table()->cellWidget(2, BudgetTab::ColBins))->setValue(50);
    SETTLE(v);
    v.table()->item(0, BudgetTab::ColHalfWidth)->setText(QStringLiteral("8"));
    SETTLE(v);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    const QPixmap shot = v.grab();
    QCOMPARE(shot.size(), QSize(1100, 700));
    QVERIFY(shot.save(QString::fromLocal8Bit(path)));
    QVERIFY(QImage(QString::fromLocal8Bit(path)).width() == 1100);

    BudgetPlan bad = v.plan();  // as from a session: a held ε of 5 > the total 1
    bad.statistics[1].hold = {HoldKind::Epsilon, 5};
    v.setPlan(bad);
    SETTLE(v);
    QVERIFY(!v.result().has_value());
    QVERIFY(!v.errorText().isEmpty());
    v.plot()->replot();
    QVERIFY2(v.plot()->axisRect()->width() > v.plot()->width() / 2,
             qPrintable(QString::number(v.plot()->axisRect()->width())));
}

// Issue #17 item 8: with a ledger that has spent 0.9996 of ε = 1, the plan shares the 0.0004 left
// (it used to say a plan of the whole total "fits"); the total and composition are the ledger's
// and cannot be edited; a hold beyond what is left is refused; without the ledger the plan gets
// the whole total again.
void TestBudgetView::startsFromLedger() {
    JobRunner runner;
    BudgetTab v(&runner);
    QVERIFY(setUp(v, 5, 0));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    QCOMPARE(v.result()->statistics[0].epsilon, 2.5);
    QVERIFY(v.ledgerText().startsWith(QStringLiteral("No ledger")));
    QSignalSpy changed(&v, &BudgetTab::planChanged);
    v.setLedger(ledgerOf(1, {0.5, 0.4996}));
    SETTLE(v);
    QCOMPARE(changed.count(), 0);  // the ledger is not a user edit of the plan
    QVERIFY2(v.errorText().isEmpty(), qPrintable(v.errorText()));
    QCOMPARE(v.plan().total.epsilon, 1.0);
    QCOMPARE(v.result()->spentCharges, std::size_t(2));
    QCOMPARE(v.result()->statistics[0].epsilon, 0.0002);
    QCOMPARE(v.result()->statistics[1].epsilon, 0.0002);
    QCOMPARE(v.result()->usage.epsilonSpentExact, std::string("1"));
    QVERIFY2(v.summaryText().contains(QStringLiteral("fits what the ledger's 2 releases leave")),
             qPrintable(v.summaryText()));
    QVERIFY2(v.ledgerText().contains(QStringLiteral("ages-ledger.json")) &&
                 v.ledgerText().contains(QStringLiteral("2 releases")) &&
                 v.ledgerText().contains(QStringLiteral(" of 1 left")),
             qPrintable(v.ledgerText()));
    auto* eps = v.findChild<QLineEdit*>(QStringLiteral("budgetTotalEpsilon"));
    QVERIFY(!eps->isEnabled());
    QVERIFY(!v.findChild<QComboBox*>(QStringLiteral("budgetComposition"))->isEnabled());
    QCOMPARE(eps->text(), QStringLiteral("1"));
    // A held ε of 0.001 is more than the ledger has left.
    const QString before = v.toCsv();
    v.table()->item(0, BudgetTab::ColEpsilon)->setText(QStringLiteral("0.001"));
    SETTLE(v);
    QVERIFY2(v.errorText().contains(QStringLiteral("already charged")), qPrintable(v.errorText()));
    QCOMPARE(v.toCsv(), before);
    // No ledger: a fresh total again (the ledger's, kept as the plan's total).
    v.setLedger({});
    SETTLE(v);
    QVERIFY(eps->isEnabled());
    QCOMPARE(v.result()->spentCharges, std::size_t(0));
    QCOMPARE(v.result()->statistics[0].epsilon, 0.5);
    // An unusable ledger (another dataset's) is shown, not used.
    ui::PlanLedger other = ledgerOf(1, {0.9});
    other.error = QStringLiteral("it is the ledger of another dataset (x.csv)");
    v.setLedger(other);
    SETTLE(v);
    QCOMPARE(v.result()->statistics[0].epsilon, 0.5);
    QVERIFY(v.ledgerText().contains(QStringLiteral("not used")));
}

// Issue #17 item 8: a new statistic takes its own column's binning, never the bin count the main
// view shows for another column; rows keep their bins when the main view's change.
void TestBudgetView::eachStatisticOwnsItsBins() {
    JobRunner runner;
    BudgetTab v(&runner);
    v.setDataset(kColumns, QStringLiteral("age"), 32, 1000, 1, 1);
    SETTLE(v);
    QCOMPARE(v.plan().statistics[0].bins, 32);
    v.addStatistic(QStringLiteral("income"));  // never binned in the main view
    SETTLE(v);
    QCOMPARE(v.plan().statistics[1].bins, ui::kDefaultStatisticBins);
    // The main view shows income with 7 bins: the rows keep theirs, a new income row takes 7 and
    // a new age row age's 32.
    v.setDataset(kColumns, QStringLiteral("income"), 7, 1000, 1, 1);
    SETTLE(v);
    QCOMPARE(v.plan().statistics[0].bins, 32);
    QCOMPARE(v.plan().statistics[1].bins, ui::kDefaultStatisticBins);
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    v.addStatistic(QStringLiteral("age"));
    SETTLE(v);
    QCOMPARE(v.plan().statistics[2].bins, 7);
    QCOMPARE(v.plan().statistics[3].bins, 32);
    auto* bins = qobject_cast<QSpinBox*>(v.table()->cellWidget(2, BudgetTab::ColBins));
    QCOMPARE(bins->value(), 7);
}

// Issue #17 item 5: a plan of 10 000 statistics is allocated on the runner: setPlan returns at
// once with the view busy, the result arrives later; a newer plan supersedes one still computing,
// whose result is never shown; edits made meanwhile build on the newest plan.
void TestBudgetView::planComputedOffTheGuiThread() {
    JobRunner runner;
    BudgetTab v(&runner);
    QVERIFY(setUp(v));
    BudgetPlan big = v.plan();
    big.statistics.assign(10000, big.statistics[0]);
    QSignalSpy computed(&v, &BudgetTab::planComputed);
    QElapsedTimer clock;
    clock.start();
    v.setPlan(big);
    qInfo("setPlan returned after %lld ms", static_cast<long long>(clock.elapsed()));
    QVERIFY(v.busy());
    QCOMPARE(v.result()->statistics.size(), std::size_t(1));  // not computed on this thread
    SETTLE(v);
    qInfo("shown after %lld ms", static_cast<long long>(clock.elapsed()));
    QCOMPARE(computed.count(), 1);
    QCOMPARE(v.result()->statistics.size(), std::size_t(10000));
    QCOMPARE(v.table()->rowCount(), 10000);
    QCOMPARE(v.result()->statistics[9999].epsilon, 1e-4);
    // One more statistic adds one row: the 10 000 rows' widgets are not built again.
    QWidget* first = v.table()->cellWidget(0, BudgetTab::ColBins);
    QVERIFY(first);
    v.addStatistic(QStringLiteral("zip"));
    SETTLE(v);
    QCOMPARE(v.table()->rowCount(), 10001);
    QCOMPARE(v.table()->cellWidget(0, BudgetTab::ColBins), first);
    QCOMPARE(v.table()->item(10000, BudgetTab::ColStatistic)->text(), QStringLiteral("zip"));

    // Superseded: only the last plan is shown, its result delivered once.
    computed.clear();
    BudgetPlan small = v.plan();
    small.statistics.resize(2);
    v.setPlan(big);
    v.setPlan(small);
    v.addStatistic(QStringLiteral("zip"));  // builds on `small`, not on the plan shown
    SETTLE(v);
    QCOMPARE(computed.count(), 1);
    QCOMPARE(v.plan().statistics.size(), std::size_t(3));
    QCOMPARE(v.result()->statistics.size(), std::size_t(3));
    QCOMPARE(v.table()->rowCount(), 3);
}

// Issue #17 item 8: plans belong to datasets. In the state: a plan set for one dataset stays with
// it when the data change, the other dataset gets its own (empty) plan, and going back restores
// the first; the plans round-trip through sessions, and a session written before plans had a
// dataset opens with its plan attached to its own data. In the view: a line says which plan is
// shown after a change of data.
void TestBudgetView::plansBelongToDatasets() {
    using dpx::ui::ExplorerState;
    ExplorerState s;
    s.data.exampleId = QStringLiteral("ages");
    BudgetPlan p = ui::budgetPlanOf(s);
    PlanStatistic st;
    st.label = "age";
    st.bins = 12;
    p.statistics = {st, st};
    p.total = {2, 0};
    ui::setBudgetPlan(s, p);
    ui::setBudgetLedger(s, QStringLiteral("/data/ages-ledger.json"));
    QCOMPARE(s.budget.plan.dataset, ui::budgetDatasetKey(s.data));
    QVERIFY(s.budget.plan.dataset.startsWith(QStringLiteral("example:ages:")));
    // Another dataset: its own empty plan with the default total and no ledger.
    ExplorerState t = s;
    t.data.exampleId = QStringLiteral("telemetry");
    QVERIFY(ui::changesBetween(s, t) & ui::BudgetChanged);
    QVERIFY(ui::budgetPlanOf(t).statistics.empty());
    QCOMPARE(ui::budgetPlanOf(t).total.epsilon, 1.0);
    QVERIFY(ui::currentBudget(t).ledger.isEmpty());
    BudgetPlan q = ui::budgetPlanOf(t);
    q.statistics = {st};
    ui::setBudgetPlan(t, q);
    QCOMPARE(t.budget.plan.rows.size(), std::size_t(1));
    QCOMPARE(t.budget.otherPlans.size(), std::size_t(1));
    QCOMPARE(t.budget.otherPlans[0].ledger, QStringLiteral("/data/ages-ledger.json"));
    // Back to ages: its plan and ledger again.
    t.data.exampleId = QStringLiteral("ages");
    QCOMPARE(ui::budgetPlanOf(t).statistics.size(), std::size_t(2));
    QCOMPARE(ui::budgetPlanOf(t).total.epsilon, 2.0);
    QCOMPARE(ui::currentBudget(t).ledger, QStringLiteral("/data/ages-ledger.json"));
    // Sessions keep every plan.
    QVERIFY(t.validate());
    auto back = ExplorerState::fromJson(t.toJson());
    QVERIFY2(back, back ? "" : back.error().message.c_str());
    QCOMPARE(*back, t);
    QVERIFY(ExplorerState::unknownKeys(t.toJson()).isEmpty());
    // A session from before: "budget" without "dataset" — the plan is its own data's.
    QJsonObject old = s.toJson();
    QJsonObject budget = old.value(QStringLiteral("budget")).toObject();
    budget.remove(QStringLiteral("dataset"));
    budget.remove(QStringLiteral("ledger"));
    budget.remove(QStringLiteral("other_datasets"));
    old[QStringLiteral("budget")] = budget;
    auto opened = ExplorerState::fromJson(old);
    QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
    QCOMPARE(opened->budget.plan.dataset, ui::budgetDatasetKey(opened->data));
    QCOMPARE(ui::budgetPlanOf(*opened).statistics.size(), std::size_t(2));
    ExplorerState moved = *opened;
    moved.data.exampleId = QStringLiteral("telemetry");
    QVERIFY(ui::budgetPlanOf(moved).statistics.empty());

    // The view says which plan it shows.
    JobRunner runner;
    BudgetTab v(&runner);
    QVERIFY(setUp(v));
    v.setPlan(ui::budgetPlanOf(s), ui::budgetDatasetKey(s.data), QStringLiteral("ages"));
    SETTLE(v);
    QVERIFY(v.noteText().isEmpty());  // the first plan shown: nothing changed
    v.setPlan(ui::budgetPlanOf(moved), ui::budgetDatasetKey(moved.data),
              QStringLiteral("telemetry"));
    SETTLE(v);
    QVERIFY2(v.noteText().contains(QStringLiteral("telemetry")) &&
                 v.noteText().contains(QStringLiteral("no budget plan yet")),
             qPrintable(v.noteText()));
    v.setPlan(ui::budgetPlanOf(s), ui::budgetDatasetKey(s.data), QStringLiteral("ages"));
    SETTLE(v);
    QVERIFY2(v.noteText().contains(QStringLiteral("ages")) &&
                 v.noteText().contains(QStringLiteral("2 statistics")),
             qPrintable(v.noteText()));
    v.addStatistic(QStringLiteral("zip"));  // an edit: the note has been read
    SETTLE(v);
    QVERIFY(v.noteText().isEmpty());
}

// Issue #22: the plan's privacy profile under the four accountants, computed off the GUI thread
// after the plan; the table shows what core/accounting computes for the same plan.
void TestBudgetView::privacyProfileUnderEachAccountant() {
    JobRunner runner;
    BudgetTab v(&runner);
    QVERIFY(setUp(v, 1, 1e-6));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(1, BudgetTab::ColMechanism));
    mech->setCurrentIndex(2);  // Gaussian
    SETTLE(v);
    QVERIFY(QTest::qWaitFor([&] { return !v.profileBusy(); }, 30000));
    QVERIFY2(v.profile().has_value(), qPrintable(v.profileText()));
    QCOMPARE(v.profile()->curves.size(), std::size_t(4));
    QCOMPARE(v.profilePlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(v.profilePlot()->graphCount(), 5);  // four upper bounds and the PLD's lower bound
    auto expected = accounting::accountPlan(v.plan(), *v.result(), accounting::Accountant::Pld);
    QVERIFY(expected.hasValue());
    const auto& pld = v.profile()->curves[3].atTotal;
    QCOMPARE(pld.epsilon->value, expected->epsilon->value);
    QVERIFY(pld.epsilon->value <= 1);  // a valid basic plan: the exact ε is within the total
    QVERIFY(v.accountantTable()->item(3, 1)->text().contains(
        QString::number(expected->epsilon->value, 'g', 4)));
    // A plan that starts from a ledger (pure ε, so both statistics Laplace): no profile, and
    // the reason.
    mech->setCurrentIndex(0);
    SETTLE(v);
    v.setLedger(ledgerOf(5, {0.5}));
    SETTLE(v);
    QVERIFY(!v.profileBusy());
    QVERIFY(!v.profile().has_value());
    QVERIFY2(v.profileText().contains(QStringLiteral("ledger")), qPrintable(v.profileText()));
}

void TestBudgetView::samplingRateAmplifiesTheProfile() {
    JobRunner runner;
    BudgetTab v(&runner);
    QVERIFY(setUp(v, 1, 1e-6));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(1, BudgetTab::ColMechanism));
    mech->setCurrentIndex(2);  // Gaussian
    SETTLE(v);
    QVERIFY(QTest::qWaitFor([&] { return !v.profileBusy(); }, 30000));
    QVERIFY(v.profile().has_value());
    const double before = v.profile()->curves[3].atTotal.epsilon->value;
    QCOMPARE(v.table()->item(1, BudgetTab::ColSamplingRate)->text(), QStringLiteral("1"));
    const QString csv = v.toCsv();
    // Out of (0, 1]: refused with a message naming the statistic, the plan unchanged.
    v.table()->item(1, BudgetTab::ColSamplingRate)->setText(QStringLiteral("1.5"));
    SETTLE(v);
    QVERIFY2(v.errorText().contains(QStringLiteral("sampling rate")), qPrintable(v.errorText()));
    QCOMPARE(v.plan().statistics[1].samplingRate, 1.0);
    QCOMPARE(v.table()->item(1, BudgetTab::ColSamplingRate)->text(), QStringLiteral("1"));
    // q = 0.01: basic composition calibrates with the amplification (Li, Qardaji & Su 2012):
    // the same ε share, much less noise; the noise cell and the summary say so; the CSV has the
    // rate; the plan composed by the PLD (the profile) meets the total.
    const double sigmaBefore = v.result()->statistics[1].noise.scale;
    v.table()->item(1, BudgetTab::ColSamplingRate)->setText(QStringLiteral("0.01"));
    SETTLE(v);
    QCOMPARE(v.plan().statistics[1].samplingRate, 0.01);
    QVERIFY(v.toCsv() != csv);
    QVERIFY2(v.toCsv().contains(QStringLiteral(",0.01,basic")), qPrintable(v.toCsv()));
    QCOMPARE(v.result()->statistics[1].epsilon, 0.5);
    QVERIFY(v.result()->statistics[1].noise.scale < sigmaBefore);
    QVERIFY(v.table()->item(1, BudgetTab::ColNoise)->text().contains(QStringLiteral("sampled")));
    QVERIFY(v.table()->item(1, BudgetTab::ColNoise)->toolTip().contains(QStringLiteral("Poisson")));
    QVERIFY2(v.summaryText().contains(QStringLiteral("Amplification by Poisson sampling")) &&
                 v.summaryText().contains(QStringLiteral("Li, Qardaji & Su 2012")),
             qPrintable(v.summaryText()));
    QVERIFY(QTest::qWaitFor([&] { return !v.profileBusy() && v.profile().has_value(); }, 30000));
    auto expected = accounting::accountPlan(v.plan(), *v.result(), accounting::Accountant::Pld);
    QVERIFY(expected.hasValue());
    const double after = v.profile()->curves[3].atTotal.epsilon->value;
    QCOMPARE(after, expected->epsilon->value);
    QVERIFY2(after <= 1 && before <= 1,
             qPrintable(QString::number(after) + QStringLiteral(" vs ") + QString::number(before)));
    QVERIFY2(v.profileText().contains(QStringLiteral("Poisson")), qPrintable(v.profileText()));
}

// Issue #22: the composition "PLD (tight)": one common scale so that the whole plan composed by
// the PLD accountant meets the total; less noise than zCDP for the same plan.
void TestBudgetView::planUnderPld() {
    JobRunner runner;
    BudgetTab v(&runner);
    QVERIFY(setUp(v, 1, 1e-6));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(1, BudgetTab::ColMechanism));
    mech->setCurrentIndex(2);  // Gaussian
    SETTLE(v);
    auto* comp = v.findChild<QComboBox*>(QStringLiteral("budgetComposition"));
    comp->setCurrentIndex(1);  // zCDP
    SETTLE(v);
    const double zcdpSigma = v.result()->statistics[1].noise.scale;
    comp->setCurrentIndex(2);  // PLD
    SETTLE(v);
    QVERIFY2(v.errorText().isEmpty(), qPrintable(v.errorText()));
    QCOMPARE(v.plan().composition, Composition::Pld);
    QCOMPARE(v.result()->composition, Composition::Pld);
    QVERIFY(v.result()->statistics[1].noise.scale < zcdpSigma);
    QVERIFY(v.result()->usage.epsilonSpent <= 1);
    QVERIFY2(v.summaryText().startsWith(QStringLiteral("PLD (Koskela, Jälkö & Honkela 2020")),
             qPrintable(v.summaryText()));
    QCOMPARE(v.table()->horizontalHeaderItem(BudgetTab::ColEpsilon)->text(),
             QStringLiteral("ε (alone)"));
    QVERIFY(v.toCsv().trimmed().split(QLatin1Char('\n'))[1].endsWith(QStringLiteral(",1,pld")));
    // Checked independently: the reported noise composed by the PLD accountant meets the total.
    auto acc = accounting::accountPlan(v.plan(), *v.result(), accounting::Accountant::Pld);
    QVERIFY(acc.hasValue());
    QVERIFY(acc->epsilon->value <= 1);
    // δ = 0 is refused with a message (PLD answers ε at δ > 0); the plan stays.
    auto* delta = v.findChild<QLineEdit*>(QStringLiteral("budgetTotalDelta"));
    typeInto(delta, QStringLiteral("0"));
    SETTLE(v);
    QVERIFY2(v.errorText().contains(QStringLiteral("δ > 0")), qPrintable(v.errorText()));
    QCOMPARE(v.result()->composition, Composition::Pld);
}

// Issue #22: a ledger of composition "pld" is no longer refused: the plan composes its releases'
// losses with the statistics and shares exactly what they leave; the ledger line says so and the
// privacy profile includes the releases.
void TestBudgetView::startsFromPldLedger() {
    JobRunner runner;
    BudgetTab v(&runner);
    QVERIFY(setUp(v, 1, 1e-6));
    v.addStatistic(QStringLiteral("income"));
    SETTLE(v);
    ui::PlanLedger l;
    l.path = QStringLiteral("/data/ages-pld-ledger.json");
    l.total = {1, 1e-6};
    l.composition = Composition::Pld;
    l.totalEpsilon = QStringLiteral("1");
    l.totalDelta = QStringLiteral("1e-6");
    l.charges = {*pureDpCharge("release", 0.4)};
    l.losses = {accounting::geometricLoss(0.4)};
    l.usage.composition = Composition::Pld;
    l.usage.epsilonSpent = 0.4;
    l.usage.deltaSpent = 1e-6;
    l.usage.epsilonRemaining = 0.6;
    l.usage.deltaRemaining = 1e-6;
    v.setLedger(l);
    SETTLE(v);
    QVERIFY2(v.errorText().isEmpty(), qPrintable(v.errorText()));
    QCOMPARE(v.result()->composition, Composition::Pld);
    QCOMPARE(v.result()->spentCharges, std::size_t(1));
    QCOMPARE(v.findChild<QComboBox*>(QStringLiteral("budgetComposition"))->currentIndex(), 2);
    QVERIFY2(v.ledgerText().contains(QStringLiteral("PLD accountant")), qPrintable(v.ledgerText()));
    QVERIFY2(v.summaryText().contains(QStringLiteral("with the ledger's releases")),
             qPrintable(v.summaryText()));
    // The release and the plan composed separately meet the total.
    auto acc = accounting::accountPlan(v.plan(), *v.result(), accounting::Accountant::Pld);
    QVERIFY2(acc.hasValue(), acc.hasValue() ? "" : acc.error().message.c_str());
    QVERIFY(acc->epsilon->value <= 1);
    QVERIFY(acc->epsilon->value >= 0.99);
    QVERIFY(QTest::qWaitFor([&] { return !v.profileBusy(); }, 30000));
    QVERIFY2(v.profile().has_value(), qPrintable(v.profileText()));
}

QTEST_MAIN(TestBudgetView)
#include "tst_budget_tab.moc"
