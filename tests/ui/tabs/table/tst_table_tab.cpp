// The Table tab (ui/tabs/table, issue #19): the empty state and bad inputs; marginals summed by
// the tab against ContingencyTable::marginal and a brute-force sum over cell coordinates; the
// heatmaps draw those marginals (linear and log scale, zeros and negative noisy values on the log
// scale); the readout of a box — chosen programmatically and by a mouse drag — equals
// queryReadout (core/table/query.h) for the same box, its estimate a brute-force sum, and its dpx
// syntax parses back to the same box; the marginal list's expected L1 against the closed form for
// Gaussian cell noise; k = 1 (bar view and range), 2 and 3 attributes, and a table big enough to
// be summed off the GUI thread.
#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cmath>
#include <numbers>
#include <random>

#include "core/estimators/resize_estimator.h"
#include "core/table/query.h"
#include "ui/tabs/table/table_data.h"
#include "ui/tabs/table/table_tab.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using dpx::ui::TableTab;
using dpx::ui::TableViewInputs;
using Layer = TableTab::Layer;

namespace {

Attribute attr(const std::string& name, std::vector<std::string> labels) {
    Attribute a;
    a.name = name;
    a.labels = std::move(labels);
    return a;
}

Attribute numbered(const std::string& name, std::size_t n, const std::string& prefix) {
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < n; ++i) {
        labels.push_back(prefix + std::to_string(i));
    }
    return attr(name, labels);
}

// A dense table with skewed counts (zeros included) and noisy / estimated values drawn from a
// seeded generator (the noise need not follow the law: the tab sums whatever it is given).
TableViewInputs makeInputs(std::vector<Attribute> attrs, unsigned seed,
                           std::optional<NoiseDistribution> noise = NoiseDistribution::laplace(2)) {
    std::size_t cells = 1;
    for (const Attribute& a : attrs) {
        cells *= a.size();
    }
    std::mt19937_64 rng(seed);
    std::geometric_distribution<int> count(0.3);
    std::normal_distribution<double> gauss(0, 2);
    std::vector<std::int64_t> counts(cells);
    for (auto& c : counts) {
        c = (rng() % 5 == 0) ? 0 : count(rng);
    }
    auto table = ContingencyTable::dense(std::move(attrs), counts);
    if (!table) {
        qFatal("%s", table.error().message.c_str());
    }
    TableViewInputs in;
    in.truth = *table;
    for (std::size_t i = 0; i < cells; ++i) {
        const double z = static_cast<double>(counts[i]) + gauss(rng);
        in.noisy.push_back(z);
        in.estimate.push_back(std::max(0.0, z));
    }
    in.cellNoise = noise;
    in.epsilon = 1;
    in.mechanismName = QStringLiteral("Laplace");
    return in;
}

// Σ of `values` over the cells whose coordinates on `keep` are `at` (brute force).
double bruteSum(const ContingencyTable& t, const std::vector<double>& values,
                const std::vector<std::size_t>& keep, const std::vector<std::uint64_t>& at) {
    double s = 0;
    for (std::uint64_t i = 0; i < values.size(); ++i) {
        const auto c = t.coordinates(i);
        bool in = true;
        for (std::size_t j = 0; j < keep.size(); ++j) {
            in = in && c[keep[j]] == at[j];
        }
        if (in) {
            s += values[static_cast<std::size_t>(i)];
        }
    }
    return s;
}

// Σ of `values` over a box (brute force over coordinates).
double bruteBox(const ContingencyTable& t, const std::vector<double>& values,
                const std::vector<BinRange>& box) {
    double s = 0;
    for (std::uint64_t i = 0; i < values.size(); ++i) {
        const auto c = t.coordinates(i);
        bool in = true;
        for (std::size_t a = 0; a < box.size(); ++a) {
            in = in && c[a] >= box[a].lo && c[a] <= box[a].hi;
        }
        if (in) {
            s += values[static_cast<std::size_t>(i)];
        }
    }
    return s;
}

// The readout's answers and errors are computed on a worker: wait for them.
bool waitReadout(const TableTab& tab) {
    return QTest::qWaitFor([&] { return !tab.readoutBusy(); }, 60000);
}

std::vector<double> truthValues(const ContingencyTable& t) {
    return {t.denseCounts().begin(), t.denseCounts().end()};
}

}  // namespace

class TestTableTab : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void emptyStateAndBadInputs();
    void sumToMarginalMatchesCoreMarginal();
    void heatmapsDrawTheMarginal_k2();
    void heatmapsDrawTheChosenPair_k3();
    void logScaleHandlesZerosAndNegatives();
    void readoutEqualsQueryReadout();
    void readoutByMouseDrag();
    void readoutAfterResizeStatesThePivot();
    void newReleaseKeepsPairAndSelection();
    void oneAttributeBarsAndRange();
    void marginalListErrors();
    void noNoiseLawShowsNoExactError();
    void bigTableSummedOffThread();
    void boxTokens();
};

void TestTableTab::emptyStateAndBadInputs() {
    TableTab tab;
    QCOMPARE(tab.messageText(),
             QStringLiteral("Choose two or more columns in the data panel to see the table"));
    QVERIFY(tab.currentPlot() == nullptr);
    QVERIFY(!tab.hasInputs());

    TableViewInputs in = makeInputs({numbered("a", 3, "a"), numbered("b", 4, "b")}, 1);
    in.noisy.pop_back();
    tab.setInputs(in);
    QVERIFY(!tab.hasInputs());
    QVERIFY2(tab.messageText().contains(QStringLiteral("11 values for a table of 12 cells")),
             qPrintable(tab.messageText()));

    in = makeInputs({numbered("a", 3, "a"), numbered("b", 4, "b")}, 1);
    in.noisy[5] = std::nan("");
    tab.setInputs(in);
    QVERIFY2(tab.messageText().contains(QStringLiteral("a = a1, b = b1")) &&
                 tab.messageText().contains(QStringLiteral("not a finite number")),
             qPrintable(tab.messageText()));

    in = makeInputs({numbered("a", 3, "a"), numbered("b", 4, "b")}, 1);
    in.epsilon = 0;
    tab.setInputs(in);
    QVERIFY2(tab.messageText().contains(QStringLiteral("ε must be a positive")),
             qPrintable(tab.messageText()));

    // A sparse table (beyond the dense limit) is refused with its size.
    std::vector<Attribute> big = {numbered("x", 1 << 13, "x"), numbered("y", 1 << 13, "y")};
    auto sparse = ContingencyTable::fromCells(big, {TableCell{5, 3}});
    QVERIFY(sparse && !sparse->isDense());
    TableViewInputs s;
    s.truth = *sparse;
    s.epsilon = 1;
    tab.setInputs(s);
    QVERIFY2(tab.messageText().contains(QStringLiteral("67108864 cells")),
             qPrintable(tab.messageText()));

    // Good inputs show the view; clearInputs goes back to the empty state.
    tab.setInputs(makeInputs({numbered("a", 3, "a"), numbered("b", 4, "b")}, 1));
    QVERIFY(tab.hasInputs());
    QVERIFY(tab.messageText().isEmpty());
    QCOMPARE(tab.currentPlot(), tab.heatmapPlot());
    tab.clearInputs();
    QVERIFY(tab.currentPlot() == nullptr);
    QVERIFY(tab.messageText().startsWith(QStringLiteral("Choose two or more columns")));
}

void TestTableTab::sumToMarginalMatchesCoreMarginal() {
    const TableViewInputs in =
        makeInputs({numbered("a", 4, "a"), numbered("b", 3, "b"), numbered("c", 5, "c")}, 7);
    const ContingencyTable& t = in.truth;
    const auto shape = t.shape();
    const std::vector<double> values = truthValues(t);
    const std::vector<std::vector<std::size_t>> keeps = {
        {0}, {1}, {2}, {0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 2}, {2, 1}, {0, 1, 2}, {2, 0, 1}};
    for (const auto& keep : keeps) {
        const auto m = t.marginal(keep);
        QVERIFY(m);
        const auto summed = ui::sumToMarginal(shape, keep, values);
        QCOMPARE(summed.size(), m->denseCounts().size());
        for (std::size_t c = 0; c < summed.size(); ++c) {
            QCOMPARE(summed[c], static_cast<double>(m->denseCounts()[c]));
        }
        // The noisy values against a brute-force sum over coordinates.
        const auto noisy = ui::sumToMarginal(shape, keep, in.noisy);
        for (std::uint64_t c = 0; c < noisy.size(); ++c) {
            const auto at = m->coordinates(c);
            QVERIFY(std::abs(noisy[static_cast<std::size_t>(c)] - bruteSum(t, in.noisy, keep, at)) <
                    1e-9);
        }
    }
}

void TestTableTab::heatmapsDrawTheMarginal_k2() {
    TableTab tab;
    const TableViewInputs in = makeInputs({numbered("a", 6, "a"), numbered("b", 9, "b")}, 3);
    tab.setInputs(in);
    QVERIFY(tab.drawnMarginal());
    const ContingencyTable& t = in.truth;
    for (std::uint64_t i = 0; i < 6; ++i) {
        for (std::uint64_t j = 0; j < 9; ++j) {
            const auto c = static_cast<std::size_t>(i * 9 + j);
            QCOMPARE(tab.drawnCell(Layer::Truth, i, j), static_cast<double>(t.denseCounts()[c]));
            QCOMPARE(tab.drawnCell(Layer::Noisy, i, j), in.noisy[c]);
            QCOMPARE(tab.drawnCell(Layer::Estimate, i, j), in.estimate[c]);
            QCOMPARE(tab.drawnCell(Layer::Error, i, j),
                     in.estimate[c] - static_cast<double>(t.denseCounts()[c]));
        }
    }
    // One colour scale for the three count maps: from min(0, smallest) to the largest value.
    double lo = 0, hi = 0, err = 0;
    for (std::size_t c = 0; c < in.noisy.size(); ++c) {
        for (double v : {static_cast<double>(t.denseCounts()[c]), in.noisy[c], in.estimate[c]}) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        err = std::max(err, std::abs(in.estimate[c] - static_cast<double>(t.denseCounts()[c])));
    }
    QCOMPARE(tab.countRange().first, lo);
    QCOMPARE(tab.countRange().second, hi);
    QCOMPARE(tab.errorRange().first, -err);
    QCOMPARE(tab.errorRange().second, err);
    // The tooltip names the cell by its labels and gives its values.
    const QString tip = tab.cellToolTip(2, 5);
    QVERIFY2(tip.contains(QStringLiteral("a = a2, b = b5")), qPrintable(tip));
    QVERIFY(tab.marginalsTable()->isHidden());
}

void TestTableTab::heatmapsDrawTheChosenPair_k3() {
    TableTab tab;
    const TableViewInputs in =
        makeInputs({numbered("a", 4, "a"), numbered("b", 3, "b"), numbered("c", 5, "c")}, 11);
    tab.setInputs(in);
    tab.setPair(2, 0);
    QCOMPARE(tab.rowAttribute(), std::size_t{2});
    QCOMPARE(tab.columnAttribute(), std::size_t{0});
    const std::vector<std::size_t> keep{2, 0};
    const auto m = in.truth.marginal(keep);
    QVERIFY(m);
    for (std::uint64_t i = 0; i < 5; ++i) {
        for (std::uint64_t j = 0; j < 4; ++j) {
            QCOMPARE(tab.drawnCell(Layer::Truth, i, j),
                     static_cast<double>(m->denseCounts()[static_cast<std::size_t>(i * 4 + j)]));
            QVERIFY(std::abs(tab.drawnCell(Layer::Noisy, i, j) -
                             bruteSum(in.truth, in.noisy, keep, {i, j})) < 1e-9);
            QVERIFY(std::abs(tab.drawnCell(Layer::Estimate, i, j) -
                             bruteSum(in.truth, in.estimate, keep, {i, j})) < 1e-9);
        }
    }
    // Choosing the columns' attribute as rows swaps the two.
    tab.setPair(0, 0);
    QCOMPARE(tab.rowAttribute(), std::size_t{0});
    QCOMPARE(tab.columnAttribute(), std::size_t{2});
    // Clicking a 2-way marginal in the list draws it.
    QTableWidget* list = tab.marginalsTable();
    QVERIFY(!list->isHidden());
    QCOMPARE(list->rowCount(), 6);  // a, b, c, a×b, a×c, b×c
    QCOMPARE(list->item(4, 0)->text(), QStringLiteral("a × c"));
    Q_EMIT list->cellClicked(5, 0);
    QCOMPARE(tab.rowAttribute(), std::size_t{1});
    QCOMPARE(tab.columnAttribute(), std::size_t{2});
    QCOMPARE(tab.drawnMarginal()->shape, (std::vector<std::uint64_t>{3, 5}));
    QCOMPARE(tab.marginalList().size(), std::size_t{6});  // the list stays
}

void TestTableTab::logScaleHandlesZerosAndNegatives() {
    TableTab tab;
    TableViewInputs in = makeInputs({numbered("a", 5, "a"), numbered("b", 5, "b")}, 5);
    in.noisy[0] = -3;    // negative noisy value
    in.estimate[1] = 0;  // zero estimate
    tab.setInputs(in);
    tab.setLogScale(true);
    QVERIFY(tab.logScale());
    const auto [lo, hi] = tab.countRange();
    QVERIFY(std::isfinite(lo) && std::isfinite(hi) && hi > lo);
    for (std::uint64_t c = 0; c < 25; ++c) {
        const std::uint64_t i = c / 5, j = c % 5;
        const double truth = static_cast<double>(in.truth.denseCounts()[c]);
        const double drawn = tab.drawnCell(Layer::Truth, i, j);
        if (truth > 0) {
            QCOMPARE(drawn, std::max(std::log10(truth), lo));
        } else {
            QVERIFY(std::isnan(drawn));  // grey: no logarithm of 0
        }
    }
    QVERIFY(std::isnan(tab.drawnCell(Layer::Noisy, 0, 0)));
    QVERIFY(std::isnan(tab.drawnCell(Layer::Estimate, 0, 1)));
    // The error map stays linear.
    QCOMPARE(tab.drawnCell(Layer::Error, 0, 1),
             0.0 - static_cast<double>(in.truth.denseCounts()[1]));
    // An all-zero table on the log scale: every cell grey, a finite range, no crash.
    TableViewInputs zero = in;
    auto z = ContingencyTable::dense(in.truth.attributes(), std::vector<std::int64_t>(25, 0));
    QVERIFY(z);
    zero.truth = *z;
    std::fill(zero.noisy.begin(), zero.noisy.end(), -1.0);
    std::fill(zero.estimate.begin(), zero.estimate.end(), 0.0);
    tab.setInputs(zero);
    QVERIFY(std::isnan(tab.drawnCell(Layer::Truth, 2, 2)));
    QVERIFY(std::isfinite(tab.countRange().first) && std::isfinite(tab.countRange().second));
    tab.setLogScale(false);
    QCOMPARE(tab.drawnCell(Layer::Noisy, 2, 2), -1.0);
}

void TestTableTab::readoutEqualsQueryReadout() {
    TableTab tab;
    const TableViewInputs in =
        makeInputs({numbered("a", 4, "a"), numbered("b", 3, "b"), numbered("c", 5, "c")}, 13);
    tab.setInputs(in);
    tab.setPair(2, 0);  // rows c, columns a
    tab.selectBox(BinRange{1, 3}, BinRange{0, 2});
    QVERIFY(tab.readoutBusy());
    QVERIFY(waitReadout(tab));
    QVERIFY(tab.readout());
    const ui::TableBoxReadout& r = *tab.readout();
    const std::vector<BinRange> box = {{0, 2}, {0, 2}, {1, 3}};  // a, b (all), c
    QCOMPARE(r.query.box, box);
    const auto ref = queryReadout(in.truth, r.query, *in.cellNoise, 0.95, in.noisy);
    QVERIFY(ref);
    QVERIFY(r.exact);
    QCOMPARE(r.truth, ref->truth);
    QCOMPARE(r.noisy, *ref->noisy);
    QCOMPARE(r.exact->rmse, ref->rmse);
    QCOMPARE(r.exact->meanAbsError, ref->meanAbsError);
    QCOMPARE(r.exact->halfWidth, ref->halfWidth);
    QVERIFY(r.cells == ref->cells);
    // Independent sums over the box's cells.
    QCOMPARE(static_cast<double>(r.truth), bruteBox(in.truth, truthValues(in.truth), box));
    QVERIFY(std::abs(r.noisy - bruteBox(in.truth, in.noisy, box)) < 1e-9);
    QVERIFY(std::abs(r.estimate - bruteBox(in.truth, in.estimate, box)) < 1e-9);
    // The dpx syntax reads back as the same box.
    QCOMPARE(r.dpxBox, std::string("c=c1..c3,a=a0..a2"));
    const auto parsed = parseBoxQuery(in.truth, r.dpxBox);
    QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
    QCOMPARE(parsed->box, box);
    QCOMPARE(tab.findChild<QLineEdit*>(QStringLiteral("tableDpxBox"))->text(),
             QStringLiteral("c=c1..c3,a=a0..a2"));
    const QString text = tab.readoutText();
    QVERIFY2(text.contains(QStringLiteral("95 % interval")), qPrintable(text));
    // Another level: the interval of queryReadout at that level.
    tab.setLevel(0.99);
    QVERIFY(waitReadout(tab));
    const auto ref99 = queryReadout(in.truth, r.query, *in.cellNoise, 0.99, in.noisy);
    QVERIFY(ref99 && tab.readout() && tab.readout()->exact);
    QCOMPARE(tab.readout()->exact->halfWidth, ref99->halfWidth);
    QVERIFY(tab.readoutText().contains(QStringLiteral("99 % interval")));
    // Out-of-range boxes are ignored; clearing drops the readout.
    tab.selectBox(BinRange{0, 5}, BinRange{0, 0});
    QCOMPARE(tab.readout()->query.box, box);
    tab.clearSelection();
    QVERIFY(!tab.readout());
}

// Issue #22: with resize the readout adds the interval a release states after it — the box's
// noisy answer ± its half-width, widened to hold the estimate: [min(v, max(0, y − h)),
// max(v, max(0, y + h))], written out here from the readout's own noisy sum and queryReadout's h.
void TestTableTab::readoutAfterResizeStatesThePivot() {
    TableTab tab;
    TableViewInputs in = makeInputs({numbered("a", 4, "a"), numbered("b", 3, "b")}, 21);
    in.estimate = resizeEstimate(in.noisy);
    in.estimator = EstimatorKind::Resize;
    tab.setInputs(in);
    tab.selectBox(BinRange{0, 1}, BinRange{1, 2});
    QVERIFY(waitReadout(tab));
    QVERIFY(tab.readout() && tab.readout()->exact);
    const ui::TableBoxReadout& r = *tab.readout();
    const double h = r.exact->halfWidth;
    const double lo = std::min(r.estimate, std::max(0.0, r.noisy - h));
    const double hi = std::max(r.estimate, std::max(0.0, r.noisy + h));
    const QString text = tab.readoutText();
    QVERIFY2(text.contains(QStringLiteral("After resize")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("[%1, %2]")
                               .arg(ui::formatLocaleNumber(lo, 6), ui::formatLocaleNumber(hi, 6))),
             qPrintable(text));
    // Identity: no such row.
    in.estimator = EstimatorKind::Identity;
    in.estimate.clear();
    tab.setInputs(in);
    tab.selectBox(BinRange{0, 1}, BinRange{1, 2});
    QVERIFY(waitReadout(tab));
    QVERIFY(!tab.readoutText().contains(QStringLiteral("After resize")));
}

void TestTableTab::readoutByMouseDrag() {
    TableTab tab;
    tab.resize(1200, 800);
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    const TableViewInputs in = makeInputs({numbered("a", 8, "a"), numbered("b", 10, "b")}, 17);
    tab.setInputs(in);
    QCustomPlot* plot = tab.heatmapPlot();
    plot->replot();
    // The noisy map (top right): drag from cell (row 2, column 3) to cell (row 5, column 7).
    QCPAxisRect* rect = plot->axisRects().at(1);
    auto pixel = [&](double row, double col) {
        return QPoint(static_cast<int>(rect->axis(QCPAxis::atBottom)->coordToPixel(col)),
                      static_cast<int>(rect->axis(QCPAxis::atLeft)->coordToPixel(row)));
    };
    QTest::mousePress(plot, Qt::LeftButton, {}, pixel(2, 3));
    QTest::mouseMove(plot, pixel(4, 5));
    QTest::mouseRelease(plot, Qt::LeftButton, {}, pixel(5, 7));
    QVERIFY(waitReadout(tab));
    QVERIFY(tab.readout());
    const std::vector<BinRange> box = {{2, 5}, {3, 7}};
    QCOMPARE(tab.readout()->query.box, box);
    const auto ref = queryReadout(in.truth, tab.readout()->query, *in.cellNoise, 0.95, in.noisy);
    QVERIFY(ref);
    QCOMPARE(tab.readout()->truth, ref->truth);
    QCOMPARE(tab.readout()->noisy, *ref->noisy);
    QCOMPARE(tab.readout()->exact->halfWidth, ref->halfWidth);
}

void TestTableTab::newReleaseKeepsPairAndSelection() {
    TableTab tab;
    TableViewInputs in =
        makeInputs({numbered("a", 4, "a"), numbered("b", 3, "b"), numbered("c", 5, "c")}, 19);
    tab.setInputs(in);
    tab.setPair(1, 2);
    tab.selectBox(BinRange{0, 1}, BinRange{2, 4});
    // A new release of the same table at another ε (as an ε change brings).
    TableViewInputs next = makeInputs(in.truth.attributes(), 19);
    next.truth = in.truth;
    for (double& v : next.noisy) {
        v += 0.5;
    }
    next.epsilon = 0.1;
    next.cellNoise = NoiseDistribution::laplace(20);
    QSignalSpy drawn(&tab, &TableTab::drawn);
    tab.setInputs(next);
    QCOMPARE(drawn.count(), 1);
    QVERIFY(waitReadout(tab));
    QCOMPARE(tab.rowAttribute(), std::size_t{1});
    QCOMPARE(tab.columnAttribute(), std::size_t{2});
    QVERIFY(tab.readout());
    const auto ref =
        queryReadout(next.truth, tab.readout()->query, *next.cellNoise, 0.95, next.noisy);
    QVERIFY(ref);
    QCOMPARE(tab.readout()->noisy, *ref->noisy);
    QCOMPARE(tab.readout()->exact->rmse, ref->rmse);
    // A table with other attributes starts afresh.
    tab.setInputs(makeInputs({numbered("x", 2, "x"), numbered("y", 2, "y")}, 1));
    QCOMPARE(tab.rowAttribute(), std::size_t{0});
    QCOMPARE(tab.columnAttribute(), std::size_t{1});
    QVERIFY(!tab.readout());
}

void TestTableTab::oneAttributeBarsAndRange() {
    TableTab tab;
    tab.resize(900, 600);
    tab.show();
    const TableViewInputs in = makeInputs({attr("sex", {"Female", "Male", "Other, or not said"})},
                                          23, NoiseDistribution::discreteLaplace(0.5));
    tab.setInputs(in);
    QCOMPARE(tab.currentPlot(), tab.barPlot());
    tab.selectBox(BinRange{0, 1}, BinRange{0, 1});  // no boxes on a 1-D view
    QVERIFY(!tab.readout());
    tab.selectRange(BinRange{1, 2});
    QVERIFY(waitReadout(tab));
    QVERIFY(tab.readout());
    const auto ref = queryReadout(in.truth, tab.readout()->query, *in.cellNoise, 0.95, in.noisy);
    QVERIFY(ref);
    QCOMPARE(tab.readout()->truth, ref->truth);
    QCOMPARE(tab.readout()->noisy, *ref->noisy);
    QCOMPARE(tab.readout()->exact->meanAbsError, ref->meanAbsError);
    QCOMPARE(tab.readout()->estimate, in.estimate[1] + in.estimate[2]);
    // A label with a comma is written by position.
    QCOMPARE(tab.readout()->dpxBox, std::string("sex=Male..#2"));
    const auto parsed = parseBoxQuery(in.truth, tab.readout()->dpxBox);
    QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
    QCOMPARE(parsed->box, tab.readout()->query.box);
    tab.setLogScale(true);  // no crash with zeros on the log bar view
    QVERIFY(tab.readout());
}

void TestTableTab::marginalListErrors() {
    TableTab tab;
    const double sigma = 1.7;
    const TableViewInputs in =
        makeInputs({numbered("a", 4, "a"), numbered("b", 3, "b"), numbered("c", 5, "c")}, 29,
                   NoiseDistribution::gaussian(sigma));
    tab.setInputs(in);
    const auto& list = tab.marginalList();
    QCOMPARE(list.size(), std::size_t{6});
    for (const auto& e : list) {
        const auto m = in.truth.marginal(e.keep);
        QVERIFY(m);
        QCOMPARE(e.cells, static_cast<std::uint64_t>(m->cellCount()));
        double l1 = 0;
        for (std::uint64_t c = 0; c < e.cells; ++c) {
            l1 += std::abs(bruteSum(in.truth, in.noisy, e.keep, m->coordinates(c)) -
                           static_cast<double>(m->denseCounts()[static_cast<std::size_t>(c)]));
        }
        QVERIFY(std::abs(e.l1 - l1) < 1e-9);
        // Each marginal cell sums m = 60 / cells independent N(0, σ²): E|Σ| = σ √(2m/π).
        const double terms = 60.0 / static_cast<double>(e.cells);
        const double expected =
            static_cast<double>(e.cells) * sigma * std::sqrt(2 * terms / std::numbers::pi);
        QVERIFY(e.expectedL1);
        QVERIFY2(std::abs(*e.expectedL1 - expected) < 1e-9 * expected,
                 qPrintable(QStringLiteral("%1 vs %2").arg(*e.expectedL1).arg(expected)));
    }
}

void TestTableTab::noNoiseLawShowsNoExactError() {
    TableTab tab;
    TableViewInputs in =
        makeInputs({numbered("a", 4, "a"), numbered("b", 3, "b")}, 31, std::nullopt);
    in.mechanismName = QStringLiteral("Random DP");
    tab.setInputs(in);
    tab.selectBox(BinRange{1, 2}, BinRange{0, 1});
    QVERIFY(waitReadout(tab));
    QVERIFY(tab.readout());
    QVERIFY(!tab.readout()->exact);
    const auto truth = trueAnswer(in.truth, tab.readout()->query);
    QVERIFY(truth);
    QCOMPARE(tab.readout()->truth, *truth);
    QVERIFY(tab.readoutText().contains(QStringLiteral("no exact expected error")));
}

void TestTableTab::bigTableSummedOffThread() {
    TableTab tab;
    TableViewInputs in =
        makeInputs({numbered("a", 128, "a"), numbered("b", 64, "b"), numbered("c", 32, "c")}, 37);
    QSignalSpy drawn(&tab, &TableTab::drawn);
    tab.setInputs(in);
    QVERIFY(tab.busy());  // 262 144 cells × 7 marginals: on a worker
    QVERIFY(drawn.wait(60000));
    QVERIFY(!tab.busy());
    const std::vector<std::size_t> keep{0, 1};
    const auto m = in.truth.marginal(keep);
    QVERIFY(m);
    for (std::uint64_t c = 0; c < m->cellCount(); c += 97) {
        QCOMPARE(tab.drawnCell(Layer::Truth, c / 64, c % 64),
                 static_cast<double>(m->denseCounts()[static_cast<std::size_t>(c)]));
    }
    QCOMPARE(tab.marginalList().size(), std::size_t{6});
    // Inputs replaced while a sum runs: only the newest is drawn.
    tab.setInputs(in);
    tab.setInputs(makeInputs({numbered("x", 3, "x"), numbered("y", 2, "y")}, 1));
    QVERIFY(!tab.busy());
    QCOMPARE(tab.drawnMarginal()->shape, (std::vector<std::uint64_t>{3, 2}));
    QTest::qWait(200);
    QCOMPARE(tab.drawnMarginal()->shape, (std::vector<std::uint64_t>{3, 2}));
}

void TestTableTab::boxTokens() {
    const Attribute a = attr("x", {"1..2", "a=b", "#3", " pad", "", "dup", "dup", "ok"});
    for (std::uint64_t b = 0; b < 7; ++b) {
        QCOMPARE(ui::boxBinToken(a, b), "#" + std::to_string(b));
    }
    QCOMPARE(ui::boxBinToken(a, 7), std::string("ok"));
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestTableTab t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_table_tab.moc"
