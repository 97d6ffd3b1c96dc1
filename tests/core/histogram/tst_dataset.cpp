// Data tables, binning, the simple CSV loader and the built-in examples. References: bin counts,
// labels and reports of small inputs worked out by hand (in the comments); the truncated-normal
// moments of the telemetry example by Gauss–Kronrod quadrature of the density written out here;
// the ages counts from the formula of the earlier example, restated here.
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/histogram/dataset.h"
#include "core/histogram/example_datasets.h"
#include "tests/testing/quadrature.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

DataTable numericTable(std::vector<double> v, const std::string& name = "x") {
    std::vector<DataColumn> cols;
    cols.push_back(DataColumn::numeric(name, std::move(v)));
    return DataTable::create(std::move(cols)).value();
}

DataTable textTable(std::vector<std::string> v, const std::string& name = "t") {
    std::vector<DataColumn> cols;
    cols.push_back(DataColumn::text(name, std::move(v)));
    return DataTable::create(std::move(cols)).value();
}

std::vector<std::string> strings(std::initializer_list<const char*> list) {
    return {list.begin(), list.end()};
}

// NaN-aware equality of numeric columns.
bool sameNumbers(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) {
            return false;
        }
    }
    return true;
}

QByteArray show(const std::vector<std::string>& v) {
    QByteArray out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        out += (i ? ", \"" : "\"") + QByteArray::fromStdString(v[i]) + "\"";
    }
    return out + "]";
}

}  // namespace

class TestDataset : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Tables
    void tableBasics();
    void tableErrors();
    void profile();
    // Binning
    void equalWidthByHand();
    void equalWidthExactEdges();
    void equalWidthEdgeConsistency();
    void equalWidthLabels();
    void integerBins();
    void wholeNumberTest();
    void categories();
    void numericCategories();
    void binningErrors();
    void reportText();
    void suggest();
    void edgesByHand();
    void openUpperEnd();
    void unknownCategoryPolicy();
    void binLayoutByHand();
    void binnerStreamingAndMerge();
    void binnerTracksTheRange();
    void binSpecs();
    void binSpecErrors();
    // CSV
    void csvTricky();
    void csvSeparators();
    void csvDetails();
    void csvErrors();
    void csvHostile();
    void csvFuzz();
    void csvFile();
    // Examples
    void examplesList();
    void exampleTwoBins();
    void exampleAges();
    void exampleTelemetry();
    void exampleTelemetryLarge();
    void exampleEdwardsLike();
    void exampleErrors();
};

// ---------------------------------------------------------------------------------------------
// Tables

// isWholeNumber (the integer bins' and the CSV reader's test of a whole number) against its
// definition std::floor(x) == x: special values, the neighbours of 2⁵², 2⁵³ and 2⁶³, and random
// doubles of every magnitude and sign (random bit patterns, NaNs included).
void TestDataset::wholeNumberTest() {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> xs = {0.0,
                              -0.0,
                              0.5,
                              -0.5,
                              1.0,
                              -1.0,
                              1.5,
                              -2.5,
                              std::numeric_limits<double>::denorm_min(),
                              -std::numeric_limits<double>::denorm_min(),
                              std::numeric_limits<double>::min(),
                              std::numeric_limits<double>::max(),
                              std::numeric_limits<double>::lowest(),
                              inf,
                              -inf,
                              std::numeric_limits<double>::quiet_NaN(),
                              1e15,
                              1e15 + 0.5,
                              9.2233720368547758e18,
                              -9.2233720368547758e18,
                              1e300,
                              -1e300};
    for (const double base : {0x1p52, 0x1p53, 0x1p63, 0x1p64}) {
        for (const double sign : {1.0, -1.0}) {
            double x = sign * base;
            for (int k = 0; k < 4; ++k) {
                xs.push_back(x);
                x = std::nextafter(x, 0.0);
            }
            x = sign * base;
            for (int k = 0; k < 4; ++k) {
                xs.push_back(x);
                x = std::nextafter(x, sign * inf);
            }
        }
    }
    std::mt19937_64 rng(20261128);
    std::uniform_real_distribution<double> mag(-60.0, 60.0);
    for (int i = 0; i < 200000; ++i) {
        std::uint64_t bits = rng();
        double x = 0;
        std::memcpy(&x, &bits, sizeof x);
        xs.push_back(x);
        const double y = std::exp2(mag(rng));
        xs.push_back(i % 2 ? y : -y);
        xs.push_back(std::round(y * 8) / 8);  // many whole numbers and halves, quarters, eighths
    }
    for (const double x : xs) {
        if (isWholeNumber(x) != (std::floor(x) == x)) {
            QFAIL(qPrintable(
                QStringLiteral("isWholeNumber(%1) differs from floor").arg(x, 0, 'g', 17)));
        }
    }
}

void TestDataset::tableBasics() {
    std::vector<DataColumn> cols;
    cols.push_back(DataColumn::numeric("age", {34, kNaN, 20}));
    cols.push_back(DataColumn::text("city", strings({"Paris", "", "Rome"})));
    auto t = DataTable::create(std::move(cols));
    DPX_VERIFY_OK(t);
    QCOMPARE(t->rowCount(), std::size_t(3));
    QCOMPARE(t->columnCount(), std::size_t(2));
    QCOMPARE(t->columnNames(), strings({"age", "city"}));
    QVERIFY(t->find("city") != nullptr);
    QVERIFY(!t->find("city")->isNumeric());
    QVERIFY(t->find("City") == nullptr);  // case-sensitive
    QCOMPARE(*t->indexOf("city"), std::size_t(1));
    DPX_VERIFY_ERROR(t->indexOf("town"), "'town'");
    DPX_VERIFY_ERROR(t->indexOf("town"), "'age', 'city'");  // lists the names
    const DataColumn& age = t->column(0);
    QVERIFY(age.isMissing(1));
    QVERIFY(!age.isMissing(0));
    QCOMPARE(age.missingCount(), std::size_t(1));
    QCOMPARE(t->column(1).missingCount(), std::size_t(1));
    QCOMPARE(age.displayValue(0), std::string("34"));
    QCOMPARE(age.displayValue(1), std::string());
    QCOMPARE(t->column(1).displayValue(2), std::string("Rome"));
    QCOMPARE(formatShortest(1e6), std::string("1000000"));
    QCOMPARE(formatShortest(0.1), std::string("0.1"));
    QCOMPARE(formatShortest(-0.0), std::string("0"));
    QCOMPARE(formatShortest(1e300), std::string("1e+300"));
}

void TestDataset::tableErrors() {
    DPX_VERIFY_ERROR(DataTable::create({}), "at least one column");
    {
        std::vector<DataColumn> c;
        c.push_back(DataColumn::numeric("a", {1, 2}));
        c.push_back(DataColumn::numeric("b", {1}));
        DPX_VERIFY_ERROR(DataTable::create(std::move(c)), "'b' has 1 rows");
    }
    {
        std::vector<DataColumn> c;
        c.push_back(DataColumn::numeric("a", {1}));
        c.push_back(DataColumn::text("a", strings({"x"})));
        DPX_VERIFY_ERROR(DataTable::create(std::move(c)), "twice");
    }
    {
        std::vector<DataColumn> c;
        c.push_back(DataColumn::numeric("", {1}));
        DPX_VERIFY_ERROR(DataTable::create(std::move(c)), "no name");
    }
    {
        std::vector<DataColumn> c;
        c.push_back(DataColumn::numeric("a", {1, -std::numeric_limits<double>::infinity()}));
        DPX_VERIFY_ERROR(DataTable::create(std::move(c)), "infinite value in row 2");
    }
}

void TestDataset::profile() {
    auto p = profileColumn(DataColumn::numeric("x", {3, kNaN, -2, 3, 0, -0.0}));
    QCOMPARE(p.role, ColumnRole::Integer);
    QCOMPARE(p.missing, std::size_t(1));
    QCOMPARE(p.distinct, std::size_t(3));  // 3, −2, 0 (−0 = 0)
    QCOMPARE(p.min, -2.0);
    QCOMPARE(p.max, 3.0);
    QCOMPARE(profileColumn(DataColumn::numeric("x", {0.5, 1})).role, ColumnRole::Continuous);
    QCOMPARE(profileColumn(DataColumn::numeric("x", {1e16})).role, ColumnRole::Continuous);
    QCOMPARE(profileColumn(DataColumn::numeric("x", {kNaN, kNaN})).role, ColumnRole::Empty);
    auto t = profileColumn(DataColumn::text("t", strings({"a", "b", "", "a"})));
    QCOMPARE(t.role, ColumnRole::Categorical);
    QCOMPARE(t.kind, ColumnKind::Text);
    QCOMPARE(t.distinct, std::size_t(2));
    QCOMPARE(profileColumn(DataColumn::text("t", strings({"", ""}))).role, ColumnRole::Empty);
    QCOMPARE(std::string(columnRoleName(ColumnRole::Integer)), std::string("integer"));
}

// ---------------------------------------------------------------------------------------------
// Binning

void TestDataset::equalWidthByHand() {
    // 4 bins on [0, 3], width 0.75: [0, 0.75) [0.75, 1.5) [1.5, 2.25) [2.25, 3].
    // 0 → 1st, 0.75 → 2nd (an edge opens its bin), 1.5 → 3rd, 2.25 → 4th, 3 → 4th (closed end);
    // −0.1 below, 3.1 above, NaN missing.
    const auto t = numericTable({0, 0.75, 1.5, 2.25, 3, -0.1, 3.1, kNaN});
    auto drop = binColumn(t, "x", Binning::equalWidth(4, 0, 3, OutOfRange::Drop));
    DPX_VERIFY_OK(drop);
    QCOMPARE(drop->histogram.counts(), (std::vector<std::int64_t>{1, 1, 1, 2}));
    QCOMPARE(drop->histogram.labels(),
             strings({"[0, 0.75)", "[0.75, 1.5)", "[1.5, 2.25)", "[2.25, 3]"}));
    QCOMPARE(drop->histogram.edges(), (std::vector<double>{0, 0.75, 1.5, 2.25, 3}));
    QCOMPARE(drop->report.rows, std::int64_t(8));
    QCOMPARE(drop->report.used, std::int64_t(5));
    QCOMPARE(drop->report.missing, std::int64_t(1));
    QCOMPARE(drop->report.droppedLow, std::int64_t(1));
    QCOMPARE(drop->report.droppedHigh, std::int64_t(1));
    QCOMPARE(drop->report.clamped(), std::int64_t(0));
    QCOMPARE(drop->report.dropped(), std::int64_t(2));

    // Clamp: −0.1 joins the first bin, 3.1 the last.
    auto clamp = binColumn(t, "x", Binning::equalWidth(4, 0, 3, OutOfRange::Clamp));
    DPX_VERIFY_OK(clamp);
    QCOMPARE(clamp->histogram.counts(), (std::vector<std::int64_t>{2, 1, 1, 3}));
    QCOMPARE(clamp->report.used, std::int64_t(7));
    QCOMPARE(clamp->report.clampedLow, std::int64_t(1));
    QCOMPARE(clamp->report.clampedHigh, std::int64_t(1));
    QCOMPARE(clamp->report.dropped(), std::int64_t(0));
    QCOMPARE(clamp->histogram.total(), clamp->report.used);

    // One bin: everything in [lo, hi] is in it, both ends included.
    auto one = binColumn(t, "x", Binning::equalWidth(1, 0, 3));
    DPX_VERIFY_OK(one);
    QCOMPARE(one->histogram.counts(), (std::vector<std::int64_t>{5}));
    QCOMPARE(one->histogram.labels(), strings({"[0, 3]"}));
}

void TestDataset::equalWidthExactEdges() {
    // 32 bins on [0, 24]: the edges are the multiples of 0.75 (exact in binary). The value 0.75·i
    // is in bin i, the largest double below it in bin i − 1, and 24 in the last bin.
    std::vector<double> v;
    for (int i = 0; i <= 32; ++i) {
        v.push_back(0.75 * i);
    }
    for (int i = 1; i <= 32; ++i) {
        v.push_back(std::nextafter(0.75 * i, -1.0));
    }
    auto b = binColumn(numericTable(v), "x", Binning::equalWidth(32, 0, 24));
    DPX_VERIFY_OK(b);
    std::vector<std::int64_t> expected(32, 2);  // 0.75·i and the double just below 0.75·(i+1)
    expected[31] = 3;                           // ... and 24 itself
    QCOMPARE(b->histogram.counts(), expected);
    QCOMPARE(b->histogram.labels().front(), std::string("[0, 0.75)"));
    QCOMPARE(b->histogram.labels().back(), std::string("[23.25, 24]"));

    // 10 bins on [0, 1]: i/10 (the double nearest) is in bin i although 0.1·3 ≠ 0.3 in binary:
    // the bin of an edge value follows the edge, not the arithmetic.
    for (int i = 0; i < 10; ++i) {
        auto one = binColumn(numericTable({i / 10.0}), "x", Binning::equalWidth(10, 0, 1));
        DPX_VERIFY_OK(one);
        QVERIFY2(one->histogram.counts()[static_cast<std::size_t>(i)] == 1,
                 qPrintable(QStringLiteral("%1/10 not in bin %1").arg(i)));
    }
    // 0.1·3 = 0.30000000000000004 > 0.3: bin 3 as well; 0.7 − 1 ulp: bin 6.
    auto c = binColumn(numericTable({0.1 * 3, std::nextafter(0.7, 0.0)}), "x",
                       Binning::equalWidth(10, 0, 1));
    DPX_VERIFY_OK(c);
    QCOMPARE(c->histogram.counts()[3], std::int64_t(1));
    QCOMPARE(c->histogram.counts()[6], std::int64_t(1));
}

void TestDataset::equalWidthEdgeConsistency() {
    // Random ranges and bin counts; values at every edge, one ulp either side, the ends and random
    // points. Each value must be in the bin whose [edge_i, edge_i+1) holds it (the last bin
    // closed), and the edges must be lo + i·(hi − lo)/k to 1e-12 relative to the span.
    std::mt19937_64 gen(20240611);
    std::uniform_real_distribution<double> u(-1000, 1000);
    for (int trial = 0; trial < 300; ++trial) {
        double lo = u(gen);
        double hi = u(gen);
        if (lo > hi) {
            std::swap(lo, hi);
        }
        if (trial % 3 == 0) {
            lo *= 1e-7;
            hi = lo + std::abs(u(gen)) * 1e-9 + 1e-12;
        }
        const auto k = static_cast<std::int64_t>(1 + gen() % 200);
        std::vector<double> v;
        for (std::int64_t i = 0; i <= k; ++i) {
            const double e = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(k);
            v.push_back(e);
            v.push_back(std::nextafter(e, -1e300));
            v.push_back(std::nextafter(e, 1e300));
        }
        for (int i = 0; i < 50; ++i) {
            v.push_back(lo + (hi - lo) * std::generate_canonical<double, 53>(gen));
        }
        v.push_back(lo);
        v.push_back(hi);
        auto b = binColumn(numericTable(v), "x", Binning::equalWidth(k, lo, hi));
        DPX_VERIFY_OK(b);
        const auto& e = b->histogram.edges();
        QCOMPARE(e.size(), static_cast<std::size_t>(k) + 1);
        QCOMPARE(e.front(), lo);
        QCOMPARE(e.back(), hi);
        for (std::int64_t i = 0; i <= k; ++i) {
            DPX_VERIFY_NEAR(e[static_cast<std::size_t>(i)],
                            lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(k),
                            1e-12 * (hi - lo));
        }
        std::vector<std::int64_t> ref(static_cast<std::size_t>(k), 0);
        std::int64_t outside = 0;
        for (double x : v) {
            if (x < lo || x > hi) {
                ++outside;
                continue;
            }
            std::size_t i = 0;
            while (i + 1 < static_cast<std::size_t>(k) && x >= e[i + 1]) {
                ++i;
            }
            ++ref[i];
        }
        QCOMPARE(b->histogram.counts(), ref);
        QCOMPARE(b->report.dropped(), outside);
        // Labels are distinct.
        auto labels = b->histogram.labels();
        std::sort(labels.begin(), labels.end());
        QVERIFY2(std::adjacent_find(labels.begin(), labels.end()) == labels.end(),
                 show(b->histogram.labels()).constData());
    }
}

void TestDataset::equalWidthLabels() {
    auto thirds = binColumn(numericTable({0.5}), "x", Binning::equalWidth(3, 0, 1));
    DPX_VERIFY_OK(thirds);
    QCOMPARE(thirds->histogram.labels(),
             strings({"[0, 0.333333)", "[0.333333, 0.666667)", "[0.666667, 1]"}));
    auto big = binColumn(numericTable({1.5e6}), "x", Binning::equalWidth(2, 1e6, 3e6));
    DPX_VERIFY_OK(big);
    QCOMPARE(big->histogram.labels(), strings({"[1000000, 2000000)", "[2000000, 3000000]"}));
    auto neg = binColumn(numericTable({0}), "x", Binning::equalWidth(2, -1.5, 1.5));
    DPX_VERIFY_OK(neg);
    QCOMPARE(neg->histogram.labels(), strings({"[-1.5, 0)", "[0, 1.5]"}));
    // Edges 1, 1.00000025, 1.0000005, 1.00000075, 1.000001 are equal at 6 digits: more are used.
    auto close = binColumn(numericTable({1}), "x", Binning::equalWidth(4, 1, 1.000001));
    DPX_VERIFY_OK(close);
    const auto& l = close->histogram.labels();
    // (1.00000025 in binary decides between ...2 and ...3 at 8 digits.)
    QVERIFY2(l[0] == "[1, 1.0000002)" || l[0] == "[1, 1.0000003)", l[0].c_str());
    QVERIFY2(l[3].find("1.000001]") != std::string::npos, l[3].c_str());
    for (std::size_t i = 1; i < l.size(); ++i) {
        QVERIFY2(l[i] != l[i - 1], show(l).constData());
    }
}

void TestDataset::integerBins() {
    const auto t = numericTable({0, 1, 1, 2, 5, -1, 6, kNaN});
    // One bin per value 0..5: 0:1, 1:2, 2:1, 3:0, 4:0, 5:1; −1 below, 6 above.
    auto b = binColumn(t, "x", Binning::integers(0, 5));
    DPX_VERIFY_OK(b);
    QCOMPARE(b->histogram.counts(), (std::vector<std::int64_t>{1, 2, 1, 0, 0, 1}));
    QCOMPARE(b->histogram.labels(), strings({"0", "1", "2", "3", "4", "5"}));
    QCOMPARE(b->histogram.edges(), (std::vector<double>{0, 1, 2, 3, 4, 5, 6}));
    QCOMPARE(b->report.droppedLow, std::int64_t(1));
    QCOMPARE(b->report.droppedHigh, std::int64_t(1));
    QCOMPARE(b->report.missing, std::int64_t(1));
    QCOMPARE(b->report.used, std::int64_t(5));
    // Width 2: 0–1: 3, 2–3: 1, 4–5: 1; edges 0, 2, 4, 6.
    auto w2 = binColumn(t, "x", Binning::integers(0, 5, 2));
    DPX_VERIFY_OK(w2);
    QCOMPARE(w2->histogram.counts(), (std::vector<std::int64_t>{3, 1, 1}));
    QCOMPARE(w2->histogram.labels(), strings({"0–1", "2–3", "4–5"}));
    QCOMPARE(w2->histogram.edges(), (std::vector<double>{0, 2, 4, 6}));
    // Width 4: the last group is cut at hi: 0–3: 4, 4–5: 1; edges 0, 4, 6. Clamp adds −1 to the
    // first bin and 6 to the last.
    auto w4 = binColumn(t, "x", Binning::integers(0, 5, 4, OutOfRange::Clamp));
    DPX_VERIFY_OK(w4);
    QCOMPARE(w4->histogram.counts(), (std::vector<std::int64_t>{5, 2}));
    QCOMPARE(w4->histogram.labels(), strings({"0–3", "4–5"}));
    QCOMPARE(w4->histogram.edges(), (std::vector<double>{0, 4, 6}));
    QCOMPARE(w4->report.clampedLow, std::int64_t(1));
    QCOMPARE(w4->report.clampedHigh, std::int64_t(1));
    // Width 5 on [0, 5]: 0–4, then the single value 5.
    auto w5 = binColumn(t, "x", Binning::integers(0, 5, 5));
    DPX_VERIFY_OK(w5);
    QCOMPARE(w5->histogram.labels(), strings({"0–4", "5"}));
    // Negative ranges read "a to b".
    auto neg = binColumn(numericTable({-3, -1}), "x", Binning::integers(-3, -1, 3));
    DPX_VERIFY_OK(neg);
    QCOMPARE(neg->histogram.labels(), strings({"-3 to -1"}));
    QCOMPARE(neg->histogram.counts(), (std::vector<std::int64_t>{2}));
    // A value that is not whole (even outside the range) is an error naming it and its row.
    DPX_VERIFY_ERROR(binColumn(numericTable({1, 2.5}), "x", Binning::integers(0, 5)),
                     "2.5 in row 2");
    DPX_VERIFY_ERROR(binColumn(numericTable({1, 2.5}), "x", Binning::integers(0, 5)), "whole");
}

void TestDataset::categories() {
    const auto t = textTable(strings({"b", "a", "", "c", "a", "b", "b"}));
    auto first = binColumn(t, "t", Binning::distinctValues(CategoryOrder::FirstSeen));
    DPX_VERIFY_OK(first);
    QCOMPARE(first->histogram.labels(), strings({"b", "a", "c"}));
    QCOMPARE(first->histogram.counts(), (std::vector<std::int64_t>{3, 2, 1}));
    QVERIFY(!first->histogram.hasEdges());
    QCOMPARE(first->report.missing, std::int64_t(1));
    QCOMPARE(first->report.used, std::int64_t(6));
    auto sorted = binColumn(t, "t", Binning::distinctValues(CategoryOrder::Sorted));
    DPX_VERIFY_OK(sorted);
    QCOMPARE(sorted->histogram.labels(), strings({"a", "b", "c"}));
    QCOMPARE(sorted->histogram.counts(), (std::vector<std::int64_t>{2, 3, 1}));
    // Fixed list: its order, empty categories kept, values not in it (the three "b") dropped.
    auto fixed = binColumn(t, "t", Binning::fixedCategories(strings({"c", "a", "z"})));
    DPX_VERIFY_OK(fixed);
    QCOMPARE(fixed->histogram.labels(), strings({"c", "a", "z"}));
    QCOMPARE(fixed->histogram.counts(), (std::vector<std::int64_t>{1, 2, 0}));
    QCOMPARE(fixed->report.unknownCategories, std::int64_t(3));
    QCOMPARE(fixed->report.used, std::int64_t(3));
    // Byte order: upper case before lower case, "10" before "9".
    auto bytes = binColumn(textTable(strings({"b", "B", "9", "10"})), "t",
                           Binning::distinctValues(CategoryOrder::Sorted));
    DPX_VERIFY_OK(bytes);
    QCOMPARE(bytes->histogram.labels(), strings({"10", "9", "B", "b"}));
}

void TestDataset::numericCategories() {
    const auto t = numericTable({3, 1, 3, -0.0, 0, 2.5, kNaN});
    auto first = binColumn(t, "x", Binning::distinctValues());
    DPX_VERIFY_OK(first);
    QCOMPARE(first->histogram.labels(), strings({"3", "1", "0", "2.5"}));  // −0 and 0: one value
    QCOMPARE(first->histogram.counts(), (std::vector<std::int64_t>{2, 1, 2, 1}));
    auto sorted = binColumn(t, "x", Binning::distinctValues(CategoryOrder::Sorted));
    DPX_VERIFY_OK(sorted);
    QCOMPARE(sorted->histogram.labels(), strings({"0", "1", "2.5", "3"}));
    QCOMPARE(sorted->histogram.counts(), (std::vector<std::int64_t>{2, 1, 1, 2}));
    // A fixed list of numbers matches by value ("3.0" is 3); its texts are the labels.
    auto fixed = binColumn(t, "x", Binning::fixedCategories(strings({"1", "3.0"})));
    DPX_VERIFY_OK(fixed);
    QCOMPARE(fixed->histogram.labels(), strings({"1", "3.0"}));
    QCOMPARE(fixed->histogram.counts(), (std::vector<std::int64_t>{1, 2}));
    QCOMPARE(fixed->report.unknownCategories, std::int64_t(3));
    QCOMPARE(fixed->report.missing, std::int64_t(1));
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::fixedCategories(strings({"1", "x"}))),
                     "'x' is not a number");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::fixedCategories(strings({"1", "1.0"}))), "twice");
}

void TestDataset::binningErrors() {
    const auto t = numericTable({1, 2});
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::equalWidth(0, 0, 1)), "between 1 and 100,000");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::equalWidth(100001, 0, 1)), "100,000");
    DPX_VERIFY_OK(binColumn(t, "x", Binning::equalWidth(100000, 0, 1)));
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::equalWidth(3, 1, 1)), "lower end");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::equalWidth(3, 2, 1)), "lower end");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::equalWidth(3, kNaN, 1)), "finite");
    DPX_VERIFY_ERROR(
        binColumn(t, "x", Binning::equalWidth(3, 0, std::numeric_limits<double>::infinity())),
        "finite");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::equalWidth(1000, 1, std::nextafter(1.0, 2.0))),
                     "too narrow");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::integers(0.5, 3)), "whole");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::integers(3, 0)), "lower end");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::integers(0, 3, 0)), "width");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::integers(0, 1e6)), "1,000,001 bins");
    DPX_VERIFY_OK(binColumn(t, "x", Binning::integers(0, 1e6, 100)));
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::integers(0, 1e16)), "1e15");
    DPX_VERIFY_ERROR(binColumn(t, "y", Binning::equalWidth(3, 0, 1)), "no column 'y'");
    const auto text = textTable(strings({"a", ""}));
    DPX_VERIFY_ERROR(binColumn(text, "t", Binning::equalWidth(3, 0, 1)), "holds text");
    DPX_VERIFY_ERROR(binColumn(text, "t", Binning::integers(0, 3)), "holds text");
    DPX_VERIFY_ERROR(binColumn(text, "t", Binning::fixedCategories(strings({"a", ""}))), "entry 2");
    DPX_VERIFY_ERROR(binColumn(text, "t", Binning::fixedCategories(strings({"a", "a"}))),
                     "'a' twice");
    // No bins at all: only missing values.
    DPX_VERIFY_ERROR(binColumn(textTable(strings({"", ""})), "t", Binning::distinctValues()),
                     "only missing");
    DPX_VERIFY_ERROR(binColumn(numericTable({kNaN}), "x", Binning::distinctValues()),
                     "only missing");
    // Too many distinct values for categories.
    std::vector<double> many(100001);
    std::iota(many.begin(), many.end(), 0.0);
    DPX_VERIFY_ERROR(binColumn(numericTable(many), "x", Binning::distinctValues()),
                     "more than 100,000 distinct");
    // All values outside the range is not an error: an all-zero histogram, reported.
    auto none = binColumn(t, "x", Binning::equalWidth(2, 10, 20));
    DPX_VERIFY_OK(none);
    QCOMPARE(none->histogram.total(), std::int64_t(0));
    QCOMPARE(none->report.droppedLow, std::int64_t(2));
}

void TestDataset::reportText() {
    BinningReport r;
    r.rows = 5000;
    r.used = 4987;
    r.missing = 10;
    r.droppedHigh = 1;
    r.clampedLow = 2;
    QCOMPARE(r.describe(), std::string("4,987 of 5,000 rows counted; 10 missing values skipped; "
                                       "2 values below the range counted in the first bin; "
                                       "1 value above the range dropped."));
    BinningReport one;
    one.rows = 1;
    one.used = 1;
    QCOMPARE(one.describe(), std::string("1 of 1 row counted."));
    QCOMPARE(Binning::equalWidth(32, 0, 24).describe(),
             std::string("32 equal-width bins on [0, 24], values outside dropped"));
    QCOMPARE(Binning::integers(0, 99, 10).describe(),
             std::string("whole numbers from 0 to 99 in groups of 10, values outside dropped"));
}

void TestDataset::suggest() {
    // Whole numbers 18..90 (range < 200): one bin per value on [min, max].
    std::vector<double> ages;
    for (int a = 90; a >= 18; --a) {
        ages.push_back(a);
    }
    ages.push_back(kNaN);
    auto s = suggestBinning(DataColumn::numeric("age", ages));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::Integer);
    QCOMPARE(s->lo, 18.0);
    QCOMPARE(s->hi, 90.0);
    QCOMPARE(s->width, std::int64_t(1));
    // Whole numbers 0..999 (n = 1000): IQR (type 7) = 749.25 − 249.75 = 499.5, Freedman–Diaconis
    // h = 2·499.5/1000^(1/3) = 99.9 → integer bins of width 100 on [0, 999].
    std::vector<double> wide(1000);
    std::iota(wide.begin(), wide.end(), 0.0);
    s = suggestBinning(DataColumn::numeric("n", wide));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::Integer);
    QCOMPARE(s->width, std::int64_t(100));
    QCOMPARE(s->lo, 0.0);
    QCOMPARE(s->hi, 999.0);
    // 0.5, 1.5, …, 63.5 and 100.5 (n = 65): q1 = x(17) = 16.5, q3 = x(49) = 48.5 (h = 64·p is
    // whole), IQR = 32, h = 64/65^(1/3) = 15.918, k = ⌈100/15.918⌉ = ⌈6.28⌉ = 7 on [0.5, 100.5].
    std::vector<double> halves;
    for (int i = 0; i < 64; ++i) {
        halves.push_back(i + 0.5);
    }
    halves.push_back(100.5);
    s = suggestBinning(DataColumn::numeric("h", halves));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::EqualWidth);
    QCOMPARE(s->bins, std::int64_t(7));
    QCOMPARE(s->lo, 0.5);
    QCOMPARE(s->hi, 100.5);
    // IQR 0 (all but one value equal): √n rule, ⌈√101⌉ = 11 bins.
    std::vector<double> spike(100, 0.25);
    spike.push_back(7.5);
    s = suggestBinning(DataColumn::numeric("s", spike));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::EqualWidth);
    QCOMPARE(s->bins, std::int64_t(11));
    // At most 4096 bins: 10,000 points spread evenly with one far outlier.
    std::vector<double> outlier;
    for (int i = 0; i < 10000; ++i) {
        outlier.push_back(i * 1e-4 + 0.5e-4);
    }
    outlier.push_back(1e6);
    s = suggestBinning(DataColumn::numeric("o", outlier));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->bins, std::int64_t(4096));
    // A constant non-whole column: one bin around it.
    s = suggestBinning(DataColumn::numeric("c", {2.5, 2.5}));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::EqualWidth);
    QCOMPARE(s->bins, std::int64_t(1));
    QVERIFY(s->lo < 2.5 && s->hi > 2.5);
    DPX_VERIFY_OK(binColumn(DataColumn::numeric("c", {2.5, 2.5}), *s));
    // Constant whole column: a single integer bin.
    s = suggestBinning(DataColumn::numeric("c", {7, 7}));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::Integer);
    QCOMPARE(s->lo, 7.0);
    QCOMPARE(s->hi, 7.0);
    // Text: sorted categories.
    s = suggestBinning(DataColumn::text("t", strings({"b", "a"})));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::Categories);
    QCOMPARE(s->order, CategoryOrder::Sorted);
    QVERIFY(s->categories.empty());
    DPX_VERIFY_ERROR(suggestBinning(DataColumn::text("t", strings({"", ""}))), "only missing");
    DPX_VERIFY_ERROR(suggestBinning(DataColumn::numeric("x", {kNaN})), "only missing");
    // Every suggestion bins its own column without error and counts every value.
    for (const auto& col : {DataColumn::numeric("a", ages), DataColumn::numeric("n", wide),
                            DataColumn::numeric("h", halves), DataColumn::numeric("o", outlier)}) {
        auto sb = suggestBinning(col);
        DPX_VERIFY_OK(sb);
        auto b = binColumn(col, *sb);
        DPX_VERIFY_OK(b);
        QCOMPARE(b->report.used, static_cast<std::int64_t>(col.size() - col.missingCount()));
    }
}

// ---------------------------------------------------------------------------------------------
// CSV

void TestDataset::edgesByHand() {
    // Edges 0, 1, 10, 100: bins [0, 1) [1, 10) [10, 100]. 0 → 1st, 0.5 → 1st, 1 → 2nd (an edge
    // opens its bin), 9.99 → 2nd, 10 → 3rd, 100 → 3rd (closed end); −1 below, 101 above, NaN.
    const auto t = numericTable({0, 0.5, 1, 9.99, 10, 100, -1, 101, kNaN});
    auto drop = binColumn(t, "x", Binning::fromEdges({0, 1, 10, 100}));
    DPX_VERIFY_OK(drop);
    QCOMPARE(drop->histogram.counts(), (std::vector<std::int64_t>{2, 2, 2}));
    QCOMPARE(drop->histogram.labels(), strings({"[0, 1)", "[1, 10)", "[10, 100]"}));
    QCOMPARE(drop->histogram.edges(), (std::vector<double>{0, 1, 10, 100}));
    QCOMPARE(drop->report.rows, std::int64_t(9));
    QCOMPARE(drop->report.used, std::int64_t(6));
    QCOMPARE(drop->report.missing, std::int64_t(1));
    QCOMPARE(drop->report.droppedLow, std::int64_t(1));
    QCOMPARE(drop->report.droppedHigh, std::int64_t(1));
    // Half-open: 100 is above the range too; clamped: −1 joins the 1st bin, 100 and 101 the last.
    auto open = binColumn(t, "x", Binning::fromEdges({0, 1, 10, 100}, OutOfRange::Clamp, false));
    DPX_VERIFY_OK(open);
    QCOMPARE(open->histogram.counts(), (std::vector<std::int64_t>{3, 2, 3}));
    QCOMPARE(open->histogram.labels(), strings({"[0, 1)", "[1, 10)", "[10, 100)"}));
    QCOMPARE(open->report.clampedLow, std::int64_t(1));
    QCOMPARE(open->report.clampedHigh, std::int64_t(2));
    // Edges must be finite and strictly increasing, at least two.
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::fromEdges({1})), "at least two");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::fromEdges({})), "at least two");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::fromEdges({0, 1, 1})), "strictly increasing");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::fromEdges({0, 2, 1})), "strictly increasing");
    DPX_VERIFY_ERROR(binColumn(t, "x", Binning::fromEdges({0, kNaN})), "finite");
    DPX_VERIFY_ERROR(
        binColumn(t, "x", Binning::fromEdges({0, std::numeric_limits<double>::infinity()})),
        "finite");
    DPX_VERIFY_ERROR(binColumn(textTable({"a"}), "t", Binning::fromEdges({0, 1})), "holds text");
}

void TestDataset::openUpperEnd() {
    // 4 bins on [0, 3) (closedHi false): 3 is above the range, 2.999 in the last bin.
    const auto t = numericTable({0, 2.999, 3});
    Binning b = Binning::equalWidth(4, 0, 3);
    b.closedHi = false;
    auto r = binColumn(t, "x", b);
    DPX_VERIFY_OK(r);
    QCOMPARE(r->histogram.counts(), (std::vector<std::int64_t>{1, 0, 0, 1}));
    QCOMPARE(r->histogram.labels().back(), std::string("[2.25, 3)"));
    QCOMPARE(r->report.droppedHigh, std::int64_t(1));
    QCOMPARE(b.describe(), std::string("4 equal-width bins on [0, 3), values outside dropped"));
    b.outOfRange = OutOfRange::Clamp;
    auto c = binColumn(t, "x", b);
    DPX_VERIFY_OK(c);
    QCOMPARE(c->histogram.counts(), (std::vector<std::int64_t>{1, 0, 0, 2}));
    QCOMPARE(c->report.clampedHigh, std::int64_t(1));
}

void TestDataset::unknownCategoryPolicy() {
    // List {a, b}; data a, c, b, "", c, a: c twice unknown, one missing.
    const auto t = textTable({"a", "c", "b", "", "c", "a"});
    auto drop = binColumn(t, "t", Binning::fixedCategories(strings({"a", "b"})));
    DPX_VERIFY_OK(drop);
    QCOMPARE(drop->histogram.counts(), (std::vector<std::int64_t>{2, 1}));
    QCOMPARE(drop->report.unknownCategories, std::int64_t(2));
    auto other =
        binColumn(t, "t", Binning::fixedCategories(strings({"a", "b"}), UnknownCategory::Other));
    DPX_VERIFY_OK(other);
    QCOMPARE(other->histogram.counts(), (std::vector<std::int64_t>{2, 1, 2}));
    QCOMPARE(other->histogram.labels(), strings({"a", "b", "other"}));
    QCOMPARE(other->report.otherCategories, std::int64_t(2));
    QCOMPARE(other->report.unknownCategories, std::int64_t(0));
    QCOMPARE(other->report.used, std::int64_t(5));
    QCOMPARE(other->report.dropped(), std::int64_t(0));
    // Error: names the first unknown value and its row (row 2).
    DPX_VERIFY_ERROR(
        binColumn(t, "t", Binning::fixedCategories(strings({"a", "b"}), UnknownCategory::Error)),
        "'c' in row 2");
    // Numeric column: unknown 7 in row 3.
    const auto n = numericTable({1, 2, 7});
    DPX_VERIFY_ERROR(
        binColumn(n, "x", Binning::fixedCategories(strings({"1", "2"}), UnknownCategory::Error)),
        "'7' in row 3");
    auto nOther =
        binColumn(n, "x", Binning::fixedCategories(strings({"1", "2"}), UnknownCategory::Other));
    DPX_VERIFY_OK(nOther);
    QCOMPARE(nOther->histogram.counts(), (std::vector<std::int64_t>{1, 1, 1}));
    // 'other' needs a list, and cannot clash with an entry.
    Binning noList = Binning::distinctValues();
    noList.unknown = UnknownCategory::Other;
    DPX_VERIFY_ERROR(binColumn(t, "t", noList), "fixed category list");
    DPX_VERIFY_ERROR(
        binColumn(t, "t",
                  Binning::fixedCategories(strings({"a", "other"}), UnknownCategory::Other)),
        "already has an entry 'other'");
}

void TestDataset::binLayoutByHand() {
    // Equal-width 4 on [0, 3): edges 0, 0.75, 1.5, 2.25, 3.
    auto ew = binLayout(parseBinSpec("0:3:4").value());
    DPX_VERIFY_OK(ew);
    QCOMPARE(ew->bins, std::size_t(4));
    QCOMPARE(ew->edges, (std::vector<double>{0, 0.75, 1.5, 2.25, 3}));
    QCOMPARE(ew->labels.back(), std::string("[2.25, 3)"));
    QVERIFY(!ew->closedHi);
    // Integers 0..9 in groups of 4: 0–3, 4–7, 8–9; edges 0, 4, 8, 10.
    auto in = binLayout(Binning::integers(0, 9, 4));
    DPX_VERIFY_OK(in);
    QCOMPARE(in->edges, (std::vector<double>{0, 4, 8, 10}));
    QCOMPARE(in->labels, strings({"0–3", "4–7", "8–9"}));
    // Fixed categories with 'other'; categories from the data have no bins yet.
    auto cat = binLayout(Binning::fixedCategories(strings({"x", "y"}), UnknownCategory::Other));
    DPX_VERIFY_OK(cat);
    QCOMPARE(cat->labels, strings({"x", "y", "other"}));
    QVERIFY(cat->otherBin);
    QVERIFY(cat->edges.empty());
    auto data = binLayout(Binning::distinctValues());
    DPX_VERIFY_OK(data);
    QCOMPARE(data->bins, std::size_t(0));
    // The layout is what binColumn uses.
    auto h = binColumn(numericTable({0.1, 2.9}), "x", parseBinSpec("0:3:4").value());
    DPX_VERIFY_OK(h);
    QCOMPARE(h->histogram.edges(), ew->edges);
    QCOMPARE(h->histogram.labels(), ew->labels);
    DPX_VERIFY_ERROR(binLayout(Binning::equalWidth(0, 0, 1)), "number of bins");
}

void TestDataset::binnerTracksTheRange() {
    // Every non-missing number counts towards numbers/min/max, in range or not, counted or not;
    // merging keeps the extremes of both halves; an empty half changes nothing.
    auto a = Binner::create(Binning::equalWidth(2, 0, 1), ColumnKind::Numeric);
    auto b = Binner::create(Binning::equalWidth(2, 0, 1), ColumnKind::Numeric);
    auto empty = Binner::create(Binning::equalWidth(2, 0, 1), ColumnKind::Numeric);
    DPX_VERIFY_OK(a);
    DPX_VERIFY_OK(b);
    DPX_VERIFY_OK(empty);
    QCOMPARE(a->report().numbers, std::int64_t{0});
    DPX_VERIFY_OK(a->addNumber(0.5, 1));
    DPX_VERIFY_OK(a->addNumber(-7, 2));  // below the range: dropped, still the minimum
    DPX_VERIFY_OK(a->addNumber(kNaN, 3));
    DPX_VERIFY_OK(b->addNumber(42, 4));
    DPX_VERIFY_OK(b->addNumber(3, 5));
    QCOMPARE(a->report().numbers, std::int64_t{2});
    QCOMPARE(a->report().min, -7.0);
    QCOMPARE(a->report().max, 0.5);
    DPX_VERIFY_OK(empty->merge(*a));
    QCOMPARE(empty->report().min, -7.0);
    DPX_VERIFY_OK(a->merge(*b));
    auto done = a->finish();
    DPX_VERIFY_OK(done);
    QCOMPARE(done->report.numbers, std::int64_t{4});
    QCOMPARE(done->report.min, -7.0);
    QCOMPARE(done->report.max, 42.0);
    QCOMPARE(done->report.missing, std::int64_t{1});
    // binColumn reports the same; a text column has no numbers.
    auto col = binColumn(DataColumn::numeric("x", {3, kNaN, -1, 2}), Binning::integers(0, 1));
    DPX_VERIFY_OK(col);
    QCOMPARE(col->report.numbers, std::int64_t{3});
    QCOMPARE(col->report.min, -1.0);
    QCOMPARE(col->report.max, 3.0);
    auto text = binColumn(DataColumn::text("t", {"a", "b"}), Binning::distinctValues());
    DPX_VERIFY_OK(text);
    QCOMPARE(text->report.numbers, std::int64_t{0});
}

void TestDataset::binnerStreamingAndMerge() {
    // Split a column in two halves, count each with its own Binner, merge in order: the result
    // equals binColumn over the whole column, for every binning kind (first-seen order too).
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> d(-3, 12);
    std::vector<double> v(1000);
    std::vector<std::string> s(1000);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const int x = d(rng);
        v[i] = x == 12 ? kNaN : x;
        s[i] = x == 12 ? std::string() : "c" + std::to_string(x);
    }
    const auto nt = numericTable(v);
    const auto tt = textTable(s);
    const std::vector<std::pair<Binning, bool>> cases = {
        {Binning::equalWidth(4, 0, 8), true},
        {Binning::equalWidth(4, 0, 8, OutOfRange::Clamp), true},
        {Binning::integers(0, 9, 2), true},
        {Binning::fromEdges({-1, 0, 5, 9}), true},
        {Binning::distinctValues(), true},
        {Binning::distinctValues(CategoryOrder::Sorted), true},
        {Binning::fixedCategories(strings({"1", "3"}), UnknownCategory::Other), true},
        {Binning::distinctValues(), false},
        {Binning::distinctValues(CategoryOrder::Sorted), false},
        {Binning::fixedCategories(strings({"c1", "c3"}), UnknownCategory::Other), false},
    };
    for (const auto& [b, numeric] : cases) {
        const ColumnKind kind = numeric ? ColumnKind::Numeric : ColumnKind::Text;
        auto whole = binColumn(numeric ? nt : tt, numeric ? "x" : "t", b);
        DPX_VERIFY_OK(whole);
        auto first = Binner::create(b, kind);
        auto second = Binner::create(b, kind);
        DPX_VERIFY_OK(first);
        DPX_VERIFY_OK(second);
        for (std::size_t i = 0; i < v.size(); ++i) {
            Binner& into = i < 400 ? first.value() : second.value();
            const auto row = static_cast<std::int64_t>(i + 1);
            DPX_VERIFY_OK(numeric ? into.addNumber(v[i], row) : into.addText(s[i], row));
        }
        DPX_VERIFY_OK(first->merge(*second));
        auto merged = first->finish();
        DPX_VERIFY_OK(merged);
        QCOMPARE(merged->histogram.counts(), whole->histogram.counts());
        QCOMPARE(merged->histogram.labels(), whole->histogram.labels());
        QCOMPARE(merged->report.rows, whole->report.rows);
        QCOMPARE(merged->report.used, whole->report.used);
        QCOMPARE(merged->report.missing, whole->report.missing);
        QCOMPARE(merged->report.dropped(), whole->report.dropped());
        QCOMPARE(merged->report.clamped(), whole->report.clamped());
    }
    // A text value to a numeric binner (and the reverse) is refused, not miscounted.
    auto nb = Binner::create(Binning::distinctValues(), ColumnKind::Numeric);
    DPX_VERIFY_OK(nb);
    DPX_VERIFY_ERROR(nb->addText("a", 1), "numeric");
    auto tb = Binner::create(Binning::distinctValues(), ColumnKind::Text);
    DPX_VERIFY_OK(tb);
    DPX_VERIFY_ERROR(tb->addNumber(1, 1), "text");
    // Row numbers in messages are the caller's (a CSV reader passes lines).
    auto ib = Binner::create(Binning::integers(0, 5), ColumnKind::Numeric, "column 'n'", "line");
    DPX_VERIFY_OK(ib);
    DPX_VERIFY_ERROR(ib->addNumber(1.5, 17), "column 'n' holds 1.5 in line 17");
}

void TestDataset::binSpecs() {
    auto ew = parseBinSpec("0:100:32");
    DPX_VERIFY_OK(ew);
    QCOMPARE(ew->kind, BinningKind::EqualWidth);
    QCOMPARE(ew->bins, std::int64_t(32));
    QCOMPARE(ew->lo, 0.0);
    QCOMPARE(ew->hi, 100.0);
    QVERIFY(!ew->closedHi);
    QCOMPARE(ew->outOfRange, OutOfRange::Drop);
    auto ewc = parseBinSpec(" -1.5 : 2e3 : 4 ;closed;clamp");
    DPX_VERIFY_OK(ewc);
    QCOMPARE(ewc->lo, -1.5);
    QCOMPARE(ewc->hi, 2000.0);
    QVERIFY(ewc->closedHi);
    QCOMPARE(ewc->outOfRange, OutOfRange::Clamp);
    auto ed = parseBinSpec("edges:0,18,65,120");
    DPX_VERIFY_OK(ed);
    QCOMPARE(ed->kind, BinningKind::Edges);
    QCOMPARE(ed->edges, (std::vector<double>{0, 18, 65, 120}));
    QVERIFY(!ed->closedHi);
    auto in = parseBinSpec("integers:0:99");
    DPX_VERIFY_OK(in);
    QCOMPARE(in->kind, BinningKind::Integer);
    QCOMPARE(in->lo, 0.0);
    QCOMPARE(in->hi, 99.0);
    QCOMPARE(in->width, std::int64_t(1));
    auto in10 = parseBinSpec("integers:-10:99:10;clamp");
    DPX_VERIFY_OK(in10);
    QCOMPARE(in10->lo, -10.0);
    QCOMPARE(in10->width, std::int64_t(10));
    QCOMPARE(in10->outOfRange, OutOfRange::Clamp);
    auto cat = parseBinSpec("categories:CA, NY,TX");
    DPX_VERIFY_OK(cat);
    QCOMPARE(cat->kind, BinningKind::Categories);
    QCOMPARE(cat->categories, strings({"CA", "NY", "TX"}));
    QCOMPARE(cat->unknown, UnknownCategory::Drop);
    auto other = parseBinSpec("categories:CA,NY;other");
    DPX_VERIFY_OK(other);
    QCOMPARE(other->unknown, UnknownCategory::Other);
    auto err = parseBinSpec("categories:CA,NY;error");
    DPX_VERIFY_OK(err);
    QCOMPARE(err->unknown, UnknownCategory::Error);
    auto all = parseBinSpec("categories");
    DPX_VERIFY_OK(all);
    QVERIFY(all->categories.empty());
    QCOMPARE(all->order, CategoryOrder::Sorted);
}

void TestDataset::binSpecErrors() {
    DPX_VERIFY_ERROR(parseBinSpec(""), "empty");
    DPX_VERIFY_ERROR(parseBinSpec("0:1"), "not understood");
    DPX_VERIFY_ERROR(parseBinSpec("0:1:2:3"), "not understood");
    DPX_VERIFY_ERROR(parseBinSpec("a:1:2"), "'a' as LO");
    DPX_VERIFY_ERROR(parseBinSpec("0:nan:2"), "as HI");
    DPX_VERIFY_ERROR(parseBinSpec("0:inf:2"), "as HI");
    DPX_VERIFY_ERROR(parseBinSpec("0:1:2.5"), "not a whole number");
    DPX_VERIFY_ERROR(parseBinSpec("0:1:0"), "number of bins");
    DPX_VERIFY_ERROR(parseBinSpec("0:1:-3"), "number of bins");
    DPX_VERIFY_ERROR(parseBinSpec("1:0:3"), "empty");
    DPX_VERIFY_ERROR(parseBinSpec("0:1:200000"), "between 1 and");
    DPX_VERIFY_ERROR(parseBinSpec("edges:1"), "at least two");
    DPX_VERIFY_ERROR(parseBinSpec("edges:1,x"), "'x' as edge 2");
    DPX_VERIFY_ERROR(parseBinSpec("edges:2,1"), "strictly increasing");
    DPX_VERIFY_ERROR(parseBinSpec("integers:0"), "integers:LO:HI");
    DPX_VERIFY_ERROR(parseBinSpec("integers:0:1.5"), "not a whole number");
    DPX_VERIFY_ERROR(parseBinSpec("integers:0:9:0"), "width");
    DPX_VERIFY_ERROR(parseBinSpec("categories:a,,b"), "entry 2");
    DPX_VERIFY_ERROR(parseBinSpec("categories:"), "entry 1");
    DPX_VERIFY_ERROR(parseBinSpec("categories;other"), "fixed category list");
    DPX_VERIFY_ERROR(parseBinSpec("0:1:2;other"), "modifier 'other'");
    DPX_VERIFY_ERROR(parseBinSpec("categories:a;clamp"), "modifier 'clamp'");
    DPX_VERIFY_ERROR(parseBinSpec("integers:0:9;closed"), "modifier 'closed'");
    DPX_VERIFY_ERROR(parseBinSpec("0:1:2;bogus"), "modifier 'bogus'");
    DPX_VERIFY_ERROR(parseBinSpec("bins:1,2"), "not understood");
}

void TestDataset::csvTricky() {
    // BOM, CRLF, a quoted separator, doubled quotes, a line break inside quotes, an empty field
    // (missing), no trailing line break.
    const std::string text =
        "\xEF\xBB\xBFname,age,city\r\n"
        "\"Smith, J\",34,\"He said \"\"hi\"\"\"\r\n"
        "\"multi\r\nline\",,Paris\r\n"
        "plain , 7 ,\"  kept  \"";
    auto t = readCsvTable(text);
    DPX_VERIFY_OK(t);
    QCOMPARE(t->columnNames(), strings({"name", "age", "city"}));
    QCOMPARE(t->rowCount(), std::size_t(3));
    QCOMPARE(t->column(0).kind(), ColumnKind::Text);
    QCOMPARE(t->column(0).texts(), strings({"Smith, J", "multi\r\nline", "plain"}));
    QCOMPARE(t->column(1).kind(), ColumnKind::Numeric);
    QVERIFY(sameNumbers(t->column(1).numbers(), {34, kNaN, 7}));
    QCOMPARE(t->column(2).texts(), strings({"He said \"hi\"", "Paris", "  kept  "}));
}

void TestDataset::csvSeparators() {
    // Semicolons (detected): "1,5" is then text, not a number.
    auto semi = readCsvTable("a;b\n1,5;2\n3;4\n");
    DPX_VERIFY_OK(semi);
    QCOMPARE(semi->columnNames(), strings({"a", "b"}));
    QCOMPARE(semi->column(0).kind(), ColumnKind::Text);
    QCOMPARE(semi->column(0).texts(), strings({"1,5", "3"}));
    QVERIFY(sameNumbers(semi->column(1).numbers(), {2, 4}));
    // Tabs (detected), with spaces inside fields kept and trimmed at the ends.
    auto tabs = readCsvTable("x\ty\tlabel\n1\t2\t a b \n3\t-4.5e1\tc\n");
    DPX_VERIFY_OK(tabs);
    QVERIFY(sameNumbers(tabs->column(0).numbers(), {1, 3}));
    QVERIFY(sameNumbers(tabs->column(1).numbers(), {2, -45}));
    QCOMPARE(tabs->column(2).texts(), strings({"a b", "c"}));
    // A comma inside quotes in the header does not count for detection.
    auto quotedHeader = readCsvTable("\"a,b,c\";d\n1;2\n");
    DPX_VERIFY_OK(quotedHeader);
    QCOMPARE(quotedHeader->columnNames(), strings({"a,b,c", "d"}));
    // An explicit separator.
    auto pipe = readCsvTable("a|b\n1|x,y\n", '|');
    DPX_VERIFY_OK(pipe);
    QCOMPARE(pipe->column(1).texts(), strings({"x,y"}));
    // One column, no separator at all.
    auto single = readCsvTable("v\n1\n2\n");
    DPX_VERIFY_OK(single);
    QVERIFY(sameNumbers(single->column(0).numbers(), {1, 2}));
    DPX_VERIFY_ERROR(readCsvTable("a\n1\n", '"'), "separator");
}

void TestDataset::csvDetails() {
    // Numbers: from_chars forms, '+', spaces; "inf", "nan", "0x10", "1e999" make a column text.
    auto n = readCsvTable("a,b,c,d,e,f\n+3,1e3,inf,nan,0x10,1e999\n-0.5, .5 ,1,2,3,4\n");
    DPX_VERIFY_OK(n);
    QVERIFY(sameNumbers(n->column(0).numbers(), {3, -0.5}));
    QVERIFY(sameNumbers(n->column(1).numbers(), {1000, 0.5}));
    for (std::size_t j = 2; j < 6; ++j) {
        QVERIFY2(n->column(j).kind() == ColumnKind::Text, n->column(j).name().c_str());
    }
    QCOMPARE(n->column(2).texts(), strings({"inf", "1"}));
    double v = 0;
    QVERIFY(!parseNumber("++1", v));
    QVERIFY(!parseNumber("+-1", v));
    QVERIFY(!parseNumber("", v));
    QVERIFY(!parseNumber("1,5", v));
    QVERIFY(parseNumber(" 2.5\t", v) && v == 2.5);
    // Blank lines (also with spaces) are skipped; CR-only line ends; an empty header name is
    // "column N"; a quoted empty field and a separator at the very end are missing values.
    auto b = readCsvTable("a,,c\r\r1,2,3\r   \r\"\",5,\r\n\n");
    DPX_VERIFY_OK(b);
    QCOMPARE(b->columnNames(), strings({"a", "column 2", "c"}));
    QCOMPARE(b->rowCount(), std::size_t(2));
    QVERIFY(sameNumbers(b->column(0).numbers(), {1, kNaN}));
    QVERIFY(sameNumbers(b->column(2).numbers(), {3, kNaN}));
    auto endSep = readCsvTable("a,b\n1,");
    DPX_VERIFY_OK(endSep);
    QVERIFY(sameNumbers(endSep->column(1).numbers(), {kNaN}));
    // A column with only empty fields is numeric and all missing; a quote inside an unquoted field
    // is an ordinary character.
    auto e = readCsvTable("a,b\n,5'10\"\n,6'\n");
    DPX_VERIFY_OK(e);
    QCOMPARE(e->column(0).kind(), ColumnKind::Numeric);
    QCOMPARE(e->column(0).missingCount(), std::size_t(1 + 1));
    QCOMPARE(e->column(1).texts(), strings({"5'10\"", "6'"}));
    // Quoted numbers are numbers; spaces after a closing quote are allowed.
    auto q = readCsvTable("a,b\n\"1.5\"  ,\"x\"\n");
    DPX_VERIFY_OK(q);
    QVERIFY(sameNumbers(q->column(0).numbers(), {1.5}));
}

void TestDataset::csvErrors() {
    // Ragged row: the line number counts physical lines (the quoted field spans lines 2–3).
    // Lines: 1 header, 2–3 the quoted record, 4 a record, 5–6 blank, 7 the ragged record.
    DPX_VERIFY_ERROR(readCsvTable("a,b,c\n\"x\ny\",1,2\n1,2,3\n\n\n1,2,3,4\n"),
                     "line 7 has 4 fields, the header has 3");
    DPX_VERIFY_ERROR(readCsvTable("a,b,c\n1,2\n"), "line 2 has 2 fields, the header has 3");
    DPX_VERIFY_ERROR(readCsvTable("a;b\n1,2\n"), "line 2 has 1 field, the header has 2");
    // Unterminated quote: the line where the field starts, and the column.
    DPX_VERIFY_ERROR(readCsvTable("a,b\n1,2\n3,\"open\n4,5\n"), "line 3, column 2 ('b')");
    DPX_VERIFY_ERROR(readCsvTable("a,b\n1,2\n3,\"open\n4,5\n"), "closing quote");
    // Text after a closing quote.
    DPX_VERIFY_ERROR(readCsvTable("a,b\n\"x\"y,1\n"), "line 2, column 1 ('a')");
    DPX_VERIFY_ERROR(readCsvTable("a,b\n\"x\"y,1\n"), "after the closing quote");
    // Header problems.
    DPX_VERIFY_ERROR(readCsvTable("a,b,a\n1,2,3\n"), "line 1, column 3: the column name 'a'");
    DPX_VERIFY_ERROR(readCsvTable("a,b,a\n1,2,3\n"), "twice");
    DPX_VERIFY_ERROR(readCsvTable("\n\nx, ,\"column 2\"\n1,2,3\n"), "line 3, column 3");
    // No data.
    DPX_VERIFY_ERROR(readCsvTable("a,b\n"), "no data rows");
    DPX_VERIFY_ERROR(readCsvTable("a,b\n\n\r\n"), "no data rows");
    DPX_VERIFY_ERROR(readCsvTable(""), "empty");
    DPX_VERIFY_ERROR(readCsvTable("\xEF\xBB\xBF"), "empty");
    DPX_VERIFY_ERROR(readCsvTable("\n \n\t\n"), "empty");
    // Not text.
    DPX_VERIFY_ERROR(readCsvTable(std::string("a,b\n1,\0\n", 7)), "line 2 contains a NUL byte");
    DPX_VERIFY_ERROR(readCsvTable(std::string{'\xFF', '\xFE', 'a', '\0'}), "UTF-16");
}

void TestDataset::csvHostile() {
    // A lone quote.
    DPX_VERIFY_ERROR(readCsvTable("\""), "closing quote");
    DPX_VERIFY_ERROR(readCsvTable("a\n\""), "line 2");
    // 10,000 columns: fine with a matching data row; a ragged error against a 1-column header.
    std::string header;
    std::string row;
    for (int j = 0; j < 10000; ++j) {
        header += (j ? ",c" : "c") + std::to_string(j);
        row += (j ? "," : "") + std::to_string(j);
    }
    auto wide = readCsvTable(header + "\n" + row + "\n");
    DPX_VERIFY_OK(wide);
    QCOMPARE(wide->columnCount(), std::size_t(10000));
    QCOMPARE(wide->column(9999).numbers().at(0), 9999.0);
    DPX_VERIFY_ERROR(readCsvTable("x\n" + row + "\n"), "line 2 has 10000 fields");
    // More columns than the loader takes.
    DPX_VERIFY_ERROR(readCsvTable(std::string(kCsvMaxColumns + 5, ',')),
                     "more than 100,000 fields");
    // Binary junk without NUL bytes: any outcome but a crash; with a NUL: an error.
    std::mt19937_64 gen(7);
    for (int trial = 0; trial < 200; ++trial) {
        std::string junk(1 + gen() % 3000, ' ');
        for (char& c : junk) {
            c = static_cast<char>(1 + gen() % 255);
        }
        const auto t = readCsvTable(junk);
        if (t) {
            QVERIFY(t->rowCount() >= 1);
        } else {
            QVERIFY(!t.error().message.empty());
        }
        junk[gen() % junk.size()] = '\0';
        QVERIFY(!readCsvTable(junk).hasValue());
    }
    // Only separators and line breaks.
    DPX_VERIFY_OK(readCsvTable(",,\n,,\n"));  // three empty header names, one all-missing row
}

void TestDataset::csvFuzz() {
    // Random texts over the characters that matter to the parser. Whatever comes back must be a
    // consistent table (at least one row, every column as long as the table) or an error with a
    // message.
    const char alphabet[] = {',', '"', '\n', '\r', 'a', '1', ' ', ';', '\t', '.'};
    std::mt19937_64 gen(99);
    int ok = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        std::string s(gen() % 40, ' ');
        for (char& c : s) {
            c = alphabet[gen() % sizeof alphabet];
        }
        const auto t = readCsvTable(s, ',');
        if (!t) {
            QVERIFY(!t.error().message.empty());
            continue;
        }
        ++ok;
        QVERIFY(t->rowCount() >= 1);
        for (const auto& c : t->columns()) {
            QCOMPARE(c.size(), t->rowCount());
        }
    }
    QVERIFY2(ok > 100, qPrintable(QString::number(ok)));  // the generator does make valid files
}

void TestDataset::csvFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string base = dir.path().toStdString();
    const std::string good = base + "/good.csv";
    {
        std::ofstream f(good, std::ios::binary);
        f << "a,b\n1,x\n2,y\n";
    }
    auto t = readCsvFile(good);
    DPX_VERIFY_OK(t);
    QCOMPARE(t->rowCount(), std::size_t(2));
    DPX_VERIFY_ERROR(readCsvFile(base + "/missing.csv"), "no such file");
    DPX_VERIFY_ERROR(readCsvFile(base), "folder");
    DPX_VERIFY_ERROR(readCsvFile(""), "no file name");
    const std::string bad = base + "/bad.csv";
    {
        std::ofstream f(bad, std::ios::binary);
        f << "a,b\n1,2,3\n";
    }
    DPX_VERIFY_ERROR(readCsvFile(bad), "bad.csv: line 2 has 3 fields");
    if (geteuid() != 0) {  // root reads anything
        const std::string locked = base + "/locked.csv";
        {
            std::ofstream f(locked, std::ios::binary);
            f << "a\n1\n";
        }
        QFile::setPermissions(QString::fromStdString(locked), QFileDevice::Permissions());
        DPX_VERIFY_ERROR(readCsvFile(locked), "permission");
    }
}

// ---------------------------------------------------------------------------------------------
// Examples

void TestDataset::examplesList() {
    const auto& list = exampleDatasets();
    std::vector<std::string> ids;
    for (const auto& e : list) {
        ids.push_back(e.id);
        QVERIFY(!e.title.empty());
        QVERIFY2(e.description.size() > 40 && e.description.back() == '.', e.id.c_str());
        QVERIFY(e.minRows <= e.defaultRows && e.defaultRows <= e.maxRows);
        QVERIFY(findExample(e.id) == &e);
        auto t = makeExampleTable(e.id);
        DPX_VERIFY_OK(t);
        QCOMPARE(static_cast<std::int64_t>(t->rowCount()), e.defaultRows);
        QVERIFY2(t->find(e.defaultColumn) != nullptr, e.id.c_str());
        auto h = makeExample(e.id);
        DPX_VERIFY_OK(h);
        auto b = binColumn(*t, e.defaultColumn, e.defaultBinning);
        DPX_VERIFY_OK(b);
        QCOMPARE(h->counts(), b->histogram.counts());
        QCOMPARE(b->report.used, e.defaultRows);  // nothing missing or dropped
        // Deterministic: a second build is identical.
        auto again = makeExampleTable(e.id);
        DPX_VERIFY_OK(again);
        for (std::size_t j = 0; j < t->columnCount(); ++j) {
            QVERIFY(t->column(j).numbers() == again->column(j).numbers());
            QVERIFY(t->column(j).texts() == again->column(j).texts());
        }
    }
    std::sort(ids.begin(), ids.end());
    QCOMPARE(ids, strings({"ages", "edwards-like", "nltcs-like", "telemetry", "two-bins"}));
    QVERIFY(findExample("nope") == nullptr);
}

void TestDataset::exampleTwoBins() {
    // Kerrigan 2019 §3.3 (seed 000): H = [0, 16]. Its former id "seed000" (saved sessions,
    // scripts) still gives the same example.
    for (const char* id : {"two-bins", "seed000"}) {
        auto h = makeExample(id);
        DPX_VERIFY_OK(h);
        QCOMPARE(h->counts(), (std::vector<std::int64_t>{0, 16}));
        QCOMPARE(h->labels(), strings({"bin 1", "bin 2"}));
        QVERIFY(!h->hasEdges());
        auto t = makeExampleTable(id);
        DPX_VERIFY_OK(t);
        QCOMPARE(t->rowCount(), std::size_t(16));
        QVERIFY(findExample(id) == findExample("two-bins"));
    }
    QVERIFY(currentExampleId("seed000") == "two-bins");
    QVERIFY(currentExampleId("ages") == "ages");
    QVERIFY(currentExampleId("nope") == "nope");
    // Every alias leads to an example that exists, and no current id is also an alias.
    for (const auto& [old, current] : kExampleIdAliases) {
        QVERIFY(findExample(current) != nullptr);
        QVERIFY(findExample(old) == findExample(current));
        for (const auto& e : exampleDatasets()) {
            QVERIFY(e.id != old);
        }
    }
    // No "seed 00N" reaches the user: titles and descriptions cite the work instead.
    for (const auto& e : exampleDatasets()) {
        QVERIFY2(e.title.find("seed") == std::string::npos, e.title.c_str());
        QVERIFY2(e.description.find("seed 00") == std::string::npos, e.description.c_str());
    }
}

void TestDataset::exampleAges() {
    // The counts of the earlier built-in example: 10-year groups, count_i = round(5000·w_i/Σw)
    // with w_i = exp(−(m/78)^4)·(1 + 0.35·exp(−((m − 40)/18)²)) at the midpoint m = 10i + 5.
    std::vector<double> w;
    double sum = 0;
    for (int i = 0; i < 10; ++i) {
        const double m = 10.0 * i + 5;
        w.push_back(std::exp(-std::pow(m / 78.0, 4)) *
                    (1 + 0.35 * std::exp(-((m - 40) / 18) * ((m - 40) / 18))));
        sum += w.back();
    }
    std::vector<std::int64_t> expected;
    for (double wi : w) {
        expected.push_back(std::llround(5000 * wi / sum));
    }
    // The values those formulas give (printed by the earlier version): a fixed anchor.
    QCOMPARE(expected,
             (std::vector<std::int64_t>{628, 654, 724, 792, 738, 572, 404, 267, 152, 69}));
    auto h = makeExample("ages");
    DPX_VERIFY_OK(h);
    QCOMPARE(h->counts(), expected);
    QCOMPARE(h->total(), std::int64_t(5000));
    QCOMPARE(h->labels(), strings({"0–9", "10–19", "20–29", "30–39", "40–49", "50–59", "60–69",
                                   "70–79", "80–89", "90–99"}));
    QCOMPARE(h->edges(), (std::vector<double>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
    // The table: 5000 whole ages in 0..99, not sorted.
    auto t = makeExampleTable("ages");
    DPX_VERIFY_OK(t);
    const auto& ages = t->find("age")->numbers();
    QCOMPARE(ages.size(), std::size_t(5000));
    for (double a : ages) {
        QVERIFY(a >= 0 && a <= 99 && std::floor(a) == a);
    }
    QVERIFY(!std::is_sorted(ages.begin(), ages.end()));
    // One-year bins are smooth: no single age is empty or holds over a quarter of its decade.
    auto yearly = binColumn(*t, "age", Binning::integers(0, 99));
    DPX_VERIFY_OK(yearly);
    for (std::size_t a = 0; a < 100; ++a) {
        const auto c = yearly->histogram.counts()[a];
        QVERIFY2(c > 0 && 4 * c < expected[a / 10], qPrintable(QString::number(a)));
    }
}

namespace {
// Truncated normal N(12, 4²) on [0, 24]: density and moments by quadrature.
double normalPdf(double x) {
    const double z = (x - 12) / 4;
    return std::exp(-0.5 * z * z) / (4 * std::sqrt(2 * std::numbers::pi));
}
double truncatedMass() {
    return dpxtest::integrateFinite(normalPdf, 0, 24);
}
}  // namespace

void TestDataset::exampleTelemetry() {
    auto h = makeExample("telemetry");
    DPX_VERIFY_OK(h);
    QCOMPARE(h->size(), std::size_t(32));
    QCOMPARE(h->total(), std::int64_t(10000));
    QCOMPARE(h->labels().front(), std::string("[0, 0.75)"));
    QCOMPARE(h->labels().back(), std::string("[23.25, 24]"));
    QCOMPARE(h->edges().back(), 24.0);
    // Sizes 1,000 … 1,000,000; the first rows do not depend on the size.
    auto small = makeExampleTable("telemetry", 1000);
    auto def = makeExampleTable("telemetry");
    DPX_VERIFY_OK(small);
    DPX_VERIFY_OK(def);
    QCOMPARE(small->rowCount(), std::size_t(1000));
    QCOMPARE(def->rowCount(), std::size_t(10000));
    QVERIFY(std::equal(small->column(0).numbers().begin(), small->column(0).numbers().end(),
                       def->column(0).numbers().begin()));
    DPX_VERIFY_ERROR(makeExampleTable("telemetry", 999), "1,000 to 1,000,000");
    DPX_VERIFY_ERROR(makeExampleTable("telemetry", 1000001), "1,000 to 1,000,000");
    DPX_VERIFY_ERROR(makeExampleTable("telemetry", -1), "1,000 to 1,000,000");
    // Its suggested binning is equal-width on the data's range.
    auto s = suggestBinning(def->column(0));
    DPX_VERIFY_OK(s);
    QCOMPARE(s->kind, BinningKind::EqualWidth);
}

void TestDataset::exampleTelemetryLarge() {
    QElapsedTimer timer;
    timer.start();
    auto t = makeExampleTable("telemetry", 1000000);
    const qint64 generateMs = timer.elapsed();
    DPX_VERIFY_OK(t);
    timer.restart();
    auto b = binColumn(*t, "hour", Binning::equalWidth(32, 0, 24));
    const qint64 binMs = timer.elapsed();
    DPX_VERIFY_OK(b);
    qInfo("telemetry 1e6 rows: generated in %lld ms, binned (32 bins) in %lld ms", generateMs,
          binMs);
    const auto& x = t->column(0).numbers();
    QCOMPARE(x.size(), std::size_t(1000000));
    double s1 = 0;
    double s2 = 0;
    for (double v : x) {
        QVERIFY(v >= 0 && v <= 24);
        s1 += v;
        s2 += v * v;
    }
    const double n = static_cast<double>(x.size());
    const double mean = s1 / n;
    const double var = s2 / n - mean * mean;
    // Reference moments of N(12, 4²) truncated to [0, 24], by quadrature of the density.
    const double mass = truncatedMass();
    const double refMean =
        dpxtest::integrateFinite([](double v) { return v * normalPdf(v); }, 0, 24) / mass;
    const double refVar =
        dpxtest::integrateFinite(
            [&](double v) { return (v - refMean) * (v - refMean) * normalPdf(v); }, 0, 24) /
        mass;
    DPX_VERIFY_NEAR(mean, refMean, 0.05);  // sd of the mean ≈ 0.004
    // Truncation at ±3 sd shrinks the sd from 4 to ≈ 3.946; the sd of the estimate is ≈ 0.003.
    DPX_VERIFY_NEAR(std::sqrt(var), std::sqrt(refVar), 0.02);
    QVERIFY(std::sqrt(refVar) < 3.96);  // the reference itself sees the truncation
    // Each of the 32 bins against its probability (quadrature), within 5 standard deviations.
    QCOMPARE(b->report.used, std::int64_t(1000000));
    for (std::size_t i = 0; i < 32; ++i) {
        const double p = dpxtest::integrateFinite(normalPdf, 0.75 * static_cast<double>(i),
                                                  0.75 * static_cast<double>(i + 1)) /
                         mass;
        const double expectedCount = n * p;
        DPX_VERIFY_NEAR(static_cast<double>(b->histogram.counts()[i]), expectedCount,
                        5 * std::sqrt(expectedCount * (1 - p)) + 1);
    }
}

void TestDataset::exampleEdwardsLike() {
    auto h = makeExample("edwards-like");
    DPX_VERIFY_OK(h);
    QCOMPARE(h->size(), std::size_t(64));    // p = 64 cells
    QCOMPARE(h->total(), std::int64_t(70));  // n = 70
    const auto& c = h->counts();
    QCOMPARE(std::count_if(c.begin(), c.end(), [](std::int64_t v) { return v > 0; }),
             std::ptrdiff_t(22));  // q = 22 occupied
    // Mostly low counts: at least half of the occupied cells hold at most 2, none more than 10.
    QVERIFY(std::count_if(c.begin(), c.end(), [](std::int64_t v) { return v > 0 && v <= 2; }) >=
            11);
    QVERIFY(*std::max_element(c.begin(), c.end()) <= 10);
    // Labels: the 6-bit patterns in binary order.
    QCOMPARE(h->labels().front(), std::string("000000"));
    QCOMPARE(h->labels()[19], std::string("010011"));  // 19 = 0b010011
    QCOMPARE(h->labels().back(), std::string("111111"));
    // The table: 70 rows; the six 0/1 columns A–F spell the cell.
    auto t = makeExampleTable("edwards-like");
    DPX_VERIFY_OK(t);
    QCOMPARE(t->rowCount(), std::size_t(70));
    QCOMPARE(t->columnNames(), strings({"A", "B", "C", "D", "E", "F", "cell"}));
    for (std::size_t r = 0; r < 70; ++r) {
        std::string cell;
        for (std::size_t j = 0; j < 6; ++j) {
            const double bit = t->column(j).numbers()[r];
            QVERIFY(bit == 0 || bit == 1);
            cell += bit == 1 ? '1' : '0';
        }
        QCOMPARE(t->column(6).texts()[r], cell);
    }
}

void TestDataset::exampleErrors() {
    DPX_VERIFY_ERROR(makeExample("nope"), "unknown example dataset 'nope'");
    DPX_VERIFY_ERROR(makeExampleTable("nope"), "available: ");
    DPX_VERIFY_ERROR(makeExampleTable("ages", 10), "fixed size of 5,000 rows");
    DPX_VERIFY_OK(makeExampleTable("ages", 5000));
    DPX_VERIFY_ERROR(makeExampleTable("seed000", 17), "fixed size of 16 rows");
    DPX_VERIFY_ERROR(makeExampleTable("two-bins", 17), "fixed size of 16 rows");
}

QTEST_APPLESS_MAIN(TestDataset)
#include "tst_dataset.moc"
