// The Budget tab (ui/budget_view.h, issue #6): the table shows core's allocation
// (core/budget_plan.h), editing a row's ε holds it and re-splits the others within the total, an
// invalid total shows an error and keeps the plan, zCDP fills the ρ column and names itself in the
// summary; the view renders, and a plan that does not compute keeps a full-width chart. Set
// DPX_BUDGET_VIEW_PNG=/path.png to keep the 1100×700 rendering (light palette).
#include <QApplication>
#include <QComboBox>
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

#include "core/budget_plan.h"
#include "ui/budget_view.h"
#include "ui/qcustomplot_include.h"

using namespace dpx;
using dpx::ui::BudgetView;

namespace {

QString num(double v) {
    return QString::number(v, 'g', 4);
}

const QStringList kColumns{QStringLiteral("age"), QStringLiteral("income"), QStringLiteral("zip")};

// A view with the dataset (age, income, zip), 1000 records, current column age with 10 bins.
void setUp(BudgetView& v, double eps = 1, double delta = 1e-6) {
    v.setDataset(kColumns, QStringLiteral("age"), 10, 1000, 1, 1);
    v.setTotal(eps, delta);
}

void typeInto(QLineEdit* field, const QString& text) {
    field->selectAll();
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Return);
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
};

void TestBudgetView::initTestCase() {
    QLocale::setDefault(QLocale::c());
}

void TestBudgetView::initialRowMatchesCore() {
    BudgetView v;
    setUp(v);
    QCOMPARE(v.table()->rowCount(), 1);
    QCOMPARE(v.table()->objectName(), QStringLiteral("budgetTable"));
    QCOMPARE(v.table()->item(0, BudgetView::ColStatistic)->text(), QStringLiteral("age"));
    const auto* bins = qobject_cast<QSpinBox*>(v.table()->cellWidget(0, BudgetView::ColBins));
    QVERIFY(bins);
    QCOMPARE(bins->value(), 10);
    QVERIFY(v.result().has_value());
    // The table against core: one Laplace statistic with the whole ε = 1: b = 1, ±ln 20,
    // E[L1] = k/ε = 10 = 1% of N.
    PlanStatistic s;
    s.label = "age";
    s.bins = 10;
    s.records = 1000;
    auto r = allocatePlan(BudgetPlan{{1, 1e-6}, Composition::Basic, {s}});
    QVERIFY(r.hasValue());
    const StatisticAllocation& a = r->statistics[0];
    QCOMPARE(v.table()->item(0, BudgetView::ColEpsilon)->text(), num(a.epsilon));
    QCOMPARE(v.table()->item(0, BudgetView::ColRho)->text(), num(a.rho));
    QCOMPARE(v.table()->item(0, BudgetView::ColHalfWidth)->text(),
             QStringLiteral("±") + num(std::log(20.0)));
    QCOMPARE(v.table()->item(0, BudgetView::ColL1)->text(), QStringLiteral("10 (1%)"));
    QVERIFY(v.summaryText().contains(QStringLiteral("Basic composition")));
    QVERIFY(v.errorText().isEmpty());
}

void TestBudgetView::editEpsilonResplits() {
    BudgetView v;
    setUp(v);
    auto* column = v.findChild<QComboBox*>(QStringLiteral("budgetAddColumn"));
    auto* add = v.findChild<QPushButton*>(QStringLiteral("budgetAdd"));
    QVERIFY(column && add);
    column->setCurrentIndex(1);
    QTest::mouseClick(add, Qt::LeftButton);
    column->setCurrentIndex(2);
    QTest::mouseClick(add, Qt::LeftButton);
    QCOMPARE(v.table()->rowCount(), 3);
    QCOMPARE(v.result()->statistics[1].epsilon, 1.0 / 3);
    // Hold the first row's ε at 0.5: the two others get 0.25 each; Σε = 1 exactly.
    QSignalSpy changed(&v, &BudgetView::planChanged);
    v.table()->item(0, BudgetView::ColEpsilon)->setText(QStringLiteral("0.5"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(v.plan().statistics[0].hold.kind, HoldKind::Epsilon);
    const auto* hold = qobject_cast<QComboBox*>(v.table()->cellWidget(0, BudgetView::ColHold));
    QCOMPARE(hold->currentIndex(), 1);
    QCOMPARE(v.result()->statistics[0].epsilon, 0.5);
    QCOMPARE(v.result()->statistics[1].epsilon, 0.25);
    QCOMPARE(v.result()->statistics[2].epsilon, 0.25);
    QCOMPARE(v.table()->item(1, BudgetView::ColEpsilon)->text(), QStringLiteral("0.25"));
    QCOMPARE(v.result()->usage.epsilonSpentExact, std::string("1"));
    QVERIFY(v.summaryText().contains(QStringLiteral("exact: 1")));
    // Weight 3 on row 2: 0.5 left in 1 : 3.
    v.table()->item(2, BudgetView::ColWeight)->setText(QStringLiteral("3"));
    QCOMPARE(v.result()->statistics[1].epsilon, 0.125);
    QCOMPARE(v.result()->statistics[2].epsilon, 0.375);
    // Release the hold: back to equal thirds.
    auto* holdBox = qobject_cast<QComboBox*>(v.table()->cellWidget(0, BudgetView::ColHold));
    holdBox->setCurrentIndex(0);
    QCOMPARE(v.plan().statistics[0].hold.kind, HoldKind::None);
    QVERIFY(v.result()->usage.epsilonRemaining >= 0);
    // Remove the selected row.
    v.table()->selectRow(1);
    QTest::mouseClick(v.findChild<QPushButton*>(QStringLiteral("budgetRemove")), Qt::LeftButton);
    QCOMPARE(v.table()->rowCount(), 2);
    QCOMPARE(v.table()->item(1, BudgetView::ColStatistic)->text(), QStringLiteral("zip"));
}

void TestBudgetView::editAccuracyHolds() {
    BudgetView v;
    setUp(v, 2);
    v.addStatistic(QStringLiteral("income"));
    // PSI-style: ±10 for age (Laplace: ε = ln 20/10), income takes the rest.
    v.table()->item(0, BudgetView::ColHalfWidth)->setText(QStringLiteral("10"));
    QCOMPARE(v.plan().statistics[0].hold.kind, HoldKind::Accuracy);
    QVERIFY(v.result()->statistics[0].noise.halfWidth95 <= 10);
    QCOMPARE(v.result()->statistics[0].epsilon, std::log(20.0) / 10);
    QVERIFY(v.result()->usage.epsilonRemaining >= 0);
    QVERIFY(std::abs(v.result()->statistics[1].epsilon - (2 - std::log(20.0) / 10)) < 1e-14);
    // Holding what is shown through the Hold combo keeps the allocation (one statistic alone).
    BudgetView w;
    setUp(w);
    auto* hold = qobject_cast<QComboBox*>(w.table()->cellWidget(0, BudgetView::ColHold));
    auto* mech = qobject_cast<QComboBox*>(w.table()->cellWidget(0, BudgetView::ColMechanism));
    mech->setCurrentIndex(2);  // Gaussian
    QCOMPARE(w.plan().statistics[0].mechanism, PlanMechanism::Gaussian);
    hold->setCurrentIndex(2);
    QVERIFY2(w.errorText().isEmpty(), qPrintable(w.errorText()));
    QCOMPARE(w.plan().statistics[0].hold.kind, HoldKind::Accuracy);
}

void TestBudgetView::invalidTotalKeepsPlan() {
    BudgetView v;
    setUp(v);
    v.addStatistic(QStringLiteral("zip"));
    const QString before = v.toCsv();
    auto* eps = v.findChild<QLineEdit*>(QStringLiteral("budgetTotalEpsilon"));
    auto* delta = v.findChild<QLineEdit*>(QStringLiteral("budgetTotalDelta"));
    QVERIFY(eps && delta);
    for (const char* bad : {"-1", "0", "abc", "nan", "inf"}) {
        typeInto(eps, QString::fromLatin1(bad));
        QVERIFY2(!v.errorText().isEmpty(), bad);
        QVERIFY(eps->property("invalid").toBool());
        QCOMPARE(v.toCsv(), before);
        QCOMPARE(v.plan().total.epsilon, 1.0);
    }
    typeInto(eps, QStringLiteral("2"));
    QVERIFY(v.errorText().isEmpty());
    QVERIFY(!eps->property("invalid").toBool());
    QCOMPARE(v.result()->statistics[0].epsilon, 1.0);
    const QString two = v.toCsv();
    for (const char* bad : {"1", "-0.1", "2"}) {
        typeInto(delta, QString::fromLatin1(bad));
        QVERIFY2(!v.errorText().isEmpty(), bad);
        QVERIFY(delta->property("invalid").toBool());
        QCOMPARE(v.toCsv(), two);
    }
    // δ = 0 is a valid total, but not with a Gaussian statistic.
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(0, BudgetView::ColMechanism));
    mech->setCurrentIndex(2);
    QCOMPARE(v.plan().statistics[0].mechanism, PlanMechanism::Gaussian);
    const QString gauss = v.toCsv();
    typeInto(delta, QStringLiteral("0"));
    QVERIFY(v.errorText().contains(QStringLiteral("age")));
    QCOMPARE(v.toCsv(), gauss);
    QCOMPARE(v.plan().total.delta, 1e-6);
}

void TestBudgetView::invalidEditKeepsPlan() {
    BudgetView v;
    setUp(v);
    v.addStatistic(QStringLiteral("income"));
    const QString before = v.toCsv();
    // A held ε above the total, a negative weight, a non-number: error, plan and table unchanged.
    v.table()->item(0, BudgetView::ColEpsilon)->setText(QStringLiteral("1.5"));
    QVERIFY(v.errorText().contains(QStringLiteral("exceed")));
    QCOMPARE(v.toCsv(), before);
    QCOMPARE(v.table()->item(0, BudgetView::ColEpsilon)->text(), QStringLiteral("0.5"));
    v.table()->item(1, BudgetView::ColWeight)->setText(QStringLiteral("-1"));
    QVERIFY(v.errorText().contains(QStringLiteral("income")));
    QCOMPARE(v.toCsv(), before);
    v.table()->item(1, BudgetView::ColHalfWidth)->setText(QStringLiteral("x"));
    QVERIFY(v.errorText().contains(QStringLiteral("not a number")));
    QCOMPARE(v.toCsv(), before);
    // Geometric with zCDP at δ = 0 is refused by the composition switch.
    BudgetView p;
    setUp(p, 1, 0);
    p.setComposition(Composition::Zcdp);
    QVERIFY(p.errorText().contains(QStringLiteral("δ > 0")));
    QCOMPARE(p.plan().composition, Composition::Basic);
    QCOMPARE(p.findChild<QComboBox*>(QStringLiteral("budgetComposition"))->currentIndex(), 0);
}

void TestBudgetView::zcdpFillsRho() {
    BudgetView v;
    setUp(v);
    v.addStatistic(QStringLiteral("income"));
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(1, BudgetView::ColMechanism));
    mech->setCurrentIndex(2);
    auto* comp = v.findChild<QComboBox*>(QStringLiteral("budgetComposition"));
    comp->setCurrentIndex(1);
    QCOMPARE(v.plan().composition, Composition::Zcdp);
    QVERIFY(v.result().has_value());
    const double budget = v.result()->rhoBudget;
    double rho = 0;
    for (int i = 0; i < 2; ++i) {
        const auto& a = v.result()->statistics[static_cast<std::size_t>(i)];
        rho += a.rho;
        QCOMPARE(v.table()->item(i, BudgetView::ColRho)->text(), num(a.rho));
        QVERIFY(a.rho > 0);
    }
    QVERIFY(rho <= budget);
    QVERIFY(v.result()->usage.epsilonSpent <= 1);
    QVERIFY(v.summaryText().startsWith(QStringLiteral("zCDP")));
    QVERIFY(v.summaryText().contains(QStringLiteral("basic composition")));
    QCOMPARE(v.plot()->yAxis->label(), QStringLiteral("ρ of each statistic"));
}

void TestBudgetView::datasetChangeKeepsAndDropsRows() {
    BudgetView v;
    setUp(v);
    v.addStatistic(QStringLiteral("zip"));
    auto* bins = qobject_cast<QSpinBox*>(v.table()->cellWidget(1, BudgetView::ColBins));
    bins->setValue(40);
    QCOMPARE(v.plan().statistics[1].bins, 40);
    // Same columns again (another bin count in the main view): rows kept.
    v.setDataset(kColumns, QStringLiteral("income"), 7, 1000, 1, 1);
    QCOMPARE(v.table()->rowCount(), 2);
    QCOMPARE(v.plan().statistics[1].bins, 40);
    // "zip" vanishes: its row goes; "age" stays.
    v.setDataset({QStringLiteral("age"), QStringLiteral("income")}, QStringLiteral("age"), 10, 500,
                 1, 1);
    QCOMPARE(v.table()->rowCount(), 1);
    QCOMPARE(v.plan().statistics[0].label, std::string("age"));
    QCOMPARE(*v.plan().statistics[0].records, 500.0);
    // Every column gone: a fresh row for the new current column.
    v.setDataset({QStringLiteral("x")}, QStringLiteral("x"), 5, 0, 1, 1);
    QCOMPARE(v.table()->rowCount(), 1);
    QCOMPARE(v.plan().statistics[0].label, std::string("x"));
    QCOMPARE(v.plan().statistics[0].bins, 5);
    QVERIFY(!v.plan().statistics[0].records.has_value());
}

void TestBudgetView::csvAndChart() {
    BudgetView v;
    setUp(v);
    v.addStatistic(QStringLiteral("a,b"));  // a label that needs quoting
    const QStringList lines = v.toCsv().trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith(QStringLiteral("statistic,bins,mechanism,weight,hold")));
    QVERIFY(lines[1].startsWith(QStringLiteral("age,10,laplace,1,none,,0.5,0,")));
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
    BudgetView v;
    v.resize(1100, 700);
    setUp(v, 1, 1e-6);
    v.addStatistic(QStringLiteral("income"));
    v.addStatistic(QStringLiteral("zip"));
    auto* mech = qobject_cast<QComboBox*>(v.table()->cellWidget(1, BudgetView::ColMechanism));
    mech->setCurrentIndex(2);
    qobject_cast<QSpinBox*>(v.table()->cellWidget(2, BudgetView::ColBins))->setValue(50);
    v.table()->item(0, BudgetView::ColHalfWidth)->setText(QStringLiteral("8"));
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    const QPixmap shot = v.grab();
    QCOMPARE(shot.size(), QSize(1100, 700));
    QVERIFY(shot.save(QString::fromLocal8Bit(path)));
    QVERIFY(QImage(QString::fromLocal8Bit(path)).width() == 1100);

    BudgetPlan bad = v.plan();  // as from a session: a held ε of 5 > the total 1
    bad.statistics[1].hold = {HoldKind::Epsilon, 5};
    v.setPlan(bad);
    QVERIFY(!v.result().has_value());
    QVERIFY(!v.errorText().isEmpty());
    v.plot()->replot();
    QVERIFY2(v.plot()->axisRect()->width() > v.plot()->width() / 2,
             qPrintable(QString::number(v.plot()->axisRect()->width())));
}

QTEST_MAIN(TestBudgetView)
#include "tst_budget_view.moc"
