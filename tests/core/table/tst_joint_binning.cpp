// Joint binning (core/table/joint_binning): a row's values → its cell. References: small tables
// counted by hand (in the comments), and a brute-force count for random tables where every bin is
// computed here by its own formula (integer values in equal-width bins of width 10 are ⌊x/10⌋, a
// category's bin is its rank in a std::map or its first appearance) — not through Binner.
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/histogram/dataset.h"
#include "core/table/joint_binning.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

DataTable table3(std::vector<double> age, std::vector<std::string> sex, std::vector<double> hours) {
    std::vector<DataColumn> cols;
    cols.push_back(DataColumn::numeric("age", std::move(age)));
    cols.push_back(DataColumn::text("sex", std::move(sex)));
    cols.push_back(DataColumn::numeric("hours", std::move(hours)));
    return DataTable::create(std::move(cols)).value();
}

}  // namespace

class TestJointBinning : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Six rows, worked by hand:
    //   age   sex  hours   age bin ([0,50),[50,100])  sex (fixed F,M)  hours (integers 0..1)
    //   20    F    0       0                          0                0  → cell (0,0,0) = 0
    //   70    M    1       1                          1                1  → cell (1,1,1) = 7
    //   NaN   F    0       missing: dropped by age (report 0 only)
    //   20    X    1       unknown category: dropped by sex (report 1)
    //   20    F    5       above the range: dropped by hours (report 2)
    //   20    F    0       cell 0 again
    // Cells: index = (a·2 + s)·2 + h; counts cell 0 = 2, cell 7 = 1.
    void handCounted() {
        const DataTable t =
            table3({20, 70, kNaN, 20, 20, 20}, {"F", "M", "F", "X", "F", "F"}, {0, 1, 0, 1, 5, 0});
        auto j = binJoint(t, {{"age", Binning::equalWidth(2, 0, 100)},
                              {"sex", Binning::fixedCategories({"F", "M"})},
                              {"hours", Binning::integers(0, 1)}});
        QVERIFY2(j, j ? "" : j.error().message.c_str());
        const ContingencyTable& c = j->table;
        QCOMPARE(c.attributeCount(), std::size_t{3});
        QCOMPARE(static_cast<std::uint64_t>(c.cellCount()), std::uint64_t{8});
        QCOMPARE(c.count(0), std::int64_t{2});
        QCOMPARE(c.count(7), std::int64_t{1});
        QCOMPARE(c.total(), std::int64_t{3});
        QCOMPARE(c.occupiedCount(), std::uint64_t{2});
        QCOMPARE(c.attribute(0).labels, (std::vector<std::string>{"[0, 50)", "[50, 100]"}));
        QCOMPARE(c.attribute(1).labels, (std::vector<std::string>{"F", "M"}));
        QCOMPARE(c.attribute(2).labels, (std::vector<std::string>{"0", "1"}));
        QCOMPARE(c.attribute(0).edges, (std::vector<double>{0, 50, 100}));
        QVERIFY(c.allDeclared());
        QCOMPARE(c.attribute(0).binning, Binning::equalWidth(2, 0, 100).describe());
        // The reports: each dropped row once, in the first column that dropped it; the rows of a
        // report are the rows that reached its column.
        const auto& r = j->reports;
        QCOMPARE(r.size(), std::size_t{3});
        QCOMPARE(r[0].rows, std::int64_t{6});
        QCOMPARE(r[0].missing, std::int64_t{1});
        QCOMPARE(r[0].used, std::int64_t{5});
        QCOMPARE(r[1].rows, std::int64_t{5});
        QCOMPARE(r[1].unknownCategories, std::int64_t{1});
        QCOMPARE(r[1].used, std::int64_t{4});
        QCOMPARE(r[2].rows, std::int64_t{4});
        QCOMPARE(r[2].droppedHigh, std::int64_t{1});
        QCOMPARE(r[2].used, std::int64_t{3});
        QCOMPARE(r[2].missing + r[1].missing, std::int64_t{0});
    }

    // Categories from the data: first-seen and sorted order, not declared; a value seen only in a
    // row that an earlier column dropped makes no bin (that column never saw the row).
    void categoriesFromTheData() {
        const DataTable t = table3({1, 2, 3, 4, kNaN}, {"b", "a", "b", "c", "z"}, {0, 0, 0, 0, 0});
        for (const CategoryOrder order : {CategoryOrder::FirstSeen, CategoryOrder::Sorted}) {
            auto j = binJoint(
                t, {{"age", Binning::integers(1, 4)}, {"sex", Binning::distinctValues(order)}});
            QVERIFY2(j, j ? "" : j.error().message.c_str());
            const Attribute& sex = j->table.attribute(1);
            QVERIFY(!sex.declared);
            QVERIFY(!j->table.allDeclared());
            // Bins: first seen b, a, c; sorted a, b, c ("z" only in the row age dropped).
            const std::vector<std::string> want = order == CategoryOrder::FirstSeen
                                                      ? std::vector<std::string>{"b", "a", "c"}
                                                      : std::vector<std::string>{"a", "b", "c"};
            QCOMPARE(sex.labels, want);
            auto bin = [&](const std::string& s) {
                return static_cast<std::uint64_t>(std::find(want.begin(), want.end(), s) -
                                                  want.begin());
            };
            // age 1..4 → bins 0..3; cell = age_bin·3 + sex_bin.
            QCOMPARE(j->table.count(0 * 3 + bin("b")), std::int64_t{1});
            QCOMPARE(j->table.count(1 * 3 + bin("a")), std::int64_t{1});
            QCOMPARE(j->table.count(2 * 3 + bin("b")), std::int64_t{1});
            QCOMPARE(j->table.count(3 * 3 + bin("c")), std::int64_t{1});
            QCOMPARE(j->table.total(), std::int64_t{4});
        }
    }

    // Random tables against a brute-force count; both the dense (small provisional domain) and
    // the hash-map path (three attributes of 1 000 bins: 10⁹ provisional cells), and merging
    // binners of consecutive row ranges (as the CSV reader's threads do) gives the same table.
    void bruteForce_data() {
        QTest::addColumn<int>("bins");
        QTest::newRow("dense 10×cat×10") << 10;
        QTest::newRow("hash 1000×cat×1000") << 1000;
    }
    void bruteForce() {
        QFETCH(int, bins);
        std::mt19937_64 rng(19);
        const std::size_t n = 5000;
        const int range = bins * 10;  // values 0 … range + 9: some above the range
        std::uniform_int_distribution<int> value(-5, range + 9);
        std::uniform_int_distribution<int> letter(0, 6);
        std::vector<double> x(n), y(n);
        std::vector<std::string> s(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = i % 97 == 0 ? kNaN : value(rng);
            y[i] = value(rng);
            const int l = letter(rng);
            s[i] = l == 6 ? std::string() : std::string(1, static_cast<char>('a' + l));
        }
        const DataTable t = table3(x, s, y);
        const std::vector<ColumnRequest> rq = {
            {"age", Binning::equalWidth(bins, 0, range, OutOfRange::Drop)},
            {"sex", Binning::distinctValues(CategoryOrder::Sorted)},
            {"hours", Binning::equalWidth(bins, 0, range, OutOfRange::Clamp)}};
        auto j = binJoint(t, rq);
        QVERIFY2(j, j ? "" : j.error().message.c_str());
        // Brute force. Sorted categories: the letters that reach the sex column, by rank.
        std::map<std::string, std::int64_t> letters;
        auto ageBin = [&](double v) -> int {
            if (std::isnan(v) || v < 0 || v > range) {
                return -1;
            }
            return std::min(static_cast<int>(v) / 10, bins - 1);  // the last bin closed
        };
        for (std::size_t i = 0; i < n; ++i) {
            if (ageBin(x[i]) >= 0 && !s[i].empty()) {
                letters[s[i]] = 0;
            }
        }
        std::int64_t rank = 0;
        for (auto& [k, v] : letters) {
            v = rank++;
        }
        const auto nl = static_cast<std::uint64_t>(letters.size());
        std::map<std::uint64_t, std::int64_t> want;
        std::int64_t missingSex = 0, clamped = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const int a = ageBin(x[i]);
            if (a < 0) {
                continue;
            }
            if (s[i].empty()) {
                ++missingSex;
                continue;
            }
            int h = static_cast<int>(y[i]) / 10;
            if (y[i] < 0 || y[i] > range) {
                ++clamped;
                h = y[i] < 0 ? 0 : bins - 1;
            }
            h = std::min(h, bins - 1);
            const std::uint64_t cell =
                (static_cast<std::uint64_t>(a) * nl + static_cast<std::uint64_t>(letters[s[i]])) *
                    static_cast<std::uint64_t>(bins) +
                static_cast<std::uint64_t>(h);
            ++want[cell];
        }
        std::map<std::uint64_t, std::int64_t> got;
        j->table.forEachOccupied([&](std::uint64_t i, std::int64_t c) { got[i] = c; });
        QCOMPARE(got, want);
        QCOMPARE(j->reports[1].missing, missingSex);
        QCOMPARE(j->reports[2].clamped(), clamped);
        QCOMPARE(j->reports[2].used, j->table.total());

        // Three binners over consecutive row ranges, merged in order.
        std::vector<JointBinner> parts;
        for (int p = 0; p < 3; ++p) {
            std::vector<Binner> bs;
            for (std::size_t a = 0; a < 3; ++a) {
                bs.push_back(Binner::create(rq[a].binning, t.column(a).kind()).value());
            }
            parts.push_back(JointBinner::create({"age", "sex", "hours"}, std::move(bs)).value());
        }
        for (std::size_t i = 0; i < n; ++i) {
            JointBinner& jb = parts[i * 3 / n];
            using O = JointBinner::Outcome;
            JointBinner::Key key = 0;
            O in = jb.number(0, x[i], 1, key);
            QVERIFY(in != O::Failed);
            if (in == O::NotCounted) {
                continue;
            }
            in = jb.text(1, s[i], 1, key);
            QVERIFY(in != O::Failed);
            if (in == O::NotCounted) {
                continue;
            }
            QCOMPARE(jb.number(2, y[i], 1, key), O::Binned);
            jb.count(key);
        }
        QVERIFY(parts[0].merge(parts[1]));
        QVERIFY(parts[0].merge(parts[2]));
        auto merged = parts[0].finish();
        QVERIFY(merged);
        QVERIFY(merged->table == j->table);
        for (std::size_t a = 0; a < 3; ++a) {
            QCOMPARE(merged->reports[a].used, j->reports[a].used);
            QCOMPARE(merged->reports[a].rows, j->reports[a].rows);
        }
    }

    // First-seen categories merged across binners keep the order of the rows.
    void mergeFirstSeen() {
        auto make = [] {
            std::vector<Binner> bs;
            bs.push_back(Binner::create(Binning::distinctValues(), ColumnKind::Text).value());
            bs.push_back(Binner::create(Binning::integers(0, 1), ColumnKind::Numeric).value());
            return JointBinner::create({"t", "b"}, std::move(bs)).value();
        };
        JointBinner first = make(), second = make();
        auto add = [](JointBinner& jb, const char* s, double b) {
            JointBinner::Key key = 0;
            QCOMPARE(jb.text(0, s, 1, key), JointBinner::Outcome::Binned);
            QCOMPARE(jb.number(1, b, 1, key), JointBinner::Outcome::Binned);
            jb.count(key);
        };
        add(first, "x", 0);
        add(second, "y", 1);  // provisional bin 0 in the second binner
        add(second, "x", 1);
        QVERIFY(first.merge(second));
        auto out = first.finish();
        QVERIFY(out);
        QCOMPARE(out->table.attribute(0).labels, (std::vector<std::string>{"x", "y"}));
        // cells: (x,0)=0 → 1, (x,1)=1 → 1, (y,1)=3 → 1
        QCOMPARE(out->table.count(0), std::int64_t{1});
        QCOMPARE(out->table.count(1), std::int64_t{1});
        QCOMPARE(out->table.count(2), std::int64_t{0});
        QCOMPARE(out->table.count(3), std::int64_t{1});
    }

    void errorsNameTheProblem() {
        const DataTable t = table3({1}, {"a"}, {1});
        // A domain beyond 2⁶⁴ cells, before any value is read: 100 000³ × … — here five integer
        // attributes of 100 000 bins each need 10²⁵ cells.
        std::vector<std::string> names;
        std::vector<Binner> bs;
        for (int a = 0; a < 5; ++a) {
            names.push_back("c" + std::to_string(a));
            bs.push_back(Binner::create(Binning::integers(0, 99999), ColumnKind::Numeric).value());
        }
        auto big = JointBinner::create(names, bs);
        DPX_VERIFY_ERROR(big, "2^64");
        QVERIFY(dpxtest::mentions(big.error().message, "'c0'"));
        // The same column twice.
        DPX_VERIFY_ERROR(
            binJoint(t, {{"age", Binning::integers(0, 1)}, {"age", Binning::integers(0, 2)}}),
            "twice");
        // No such column: the available names are listed.
        DPX_VERIFY_ERROR(binJoint(t, {{"weight", Binning::integers(0, 1)}}), "age");
        // No column at all.
        DPX_VERIFY_ERROR(binJoint(t, {}), "at least one");
        // A category outside a fixed list under UnknownCategory::Error names value and row.
        auto e = binJoint(t, {{"sex", Binning::fixedCategories({"b"}, UnknownCategory::Error)}});
        DPX_VERIFY_ERROR(e, "'a'");
        QVERIFY(dpxtest::mentions(e.error().message, "row 1"));
        // Eight columns with categories from the data: the provisional keys would not fit.
        std::vector<std::string> n8;
        std::vector<Binner> b8;
        for (int a = 0; a < 8; ++a) {
            n8.push_back("t" + std::to_string(a));
            b8.push_back(Binner::create(Binning::distinctValues(), ColumnKind::Text).value());
        }
        DPX_VERIFY_ERROR(JointBinner::create(n8, b8), "declare the categories");
        // A data-category column that saw only missing values has no bins.
        const DataTable empty = table3({1}, {""}, {1});
        DPX_VERIFY_ERROR(binJoint(empty, {{"sex", Binning::distinctValues()}}), "only missing");
    }

    // One attribute: the joint table is the histogram of binColumn, cell for cell.
    void oneColumnIsTheHistogram() {
        std::vector<double> v;
        for (int i = 0; i < 300; ++i) {
            v.push_back(i % 13 == 0 ? kNaN : std::fmod(i * 7.31, 120.0) - 10);
        }
        const DataTable t = table3(v, std::vector<std::string>(v.size(), "a"), v);
        const Binning b = Binning::equalWidth(7, 0, 100);
        auto j = binJoint(t, {{"age", b}});
        auto h = binColumn(t, "age", b);
        QVERIFY(j && h);
        QCOMPARE(j->table.denseCounts(), h->histogram.counts());
        QCOMPARE(j->reports[0].used, h->report.used);
        QCOMPARE(j->reports[0].droppedLow, h->report.droppedLow);
        QCOMPARE(j->reports[0].droppedHigh, h->report.droppedHigh);
        QCOMPARE(j->reports[0].missing, h->report.missing);
    }
};

QTEST_APPLESS_MAIN(TestJointBinning)
#include "tst_joint_binning.moc"
