// Tables of several attributes (core/table/table.h): the mixed-radix index against nested loops
// (C order, last attribute fastest), dense and sparse storage, domains of 2⁴⁰ and 2⁶⁴ cells, the
// refusals (a domain over 2⁶⁴ naming its attributes; duplicate, negative, outside cells),
// marginals against brute-force sums for every subset and order of kept attributes (dense and
// sparse), toHistogram's labels, and tableSensitivity against histogramSensitivity.
#include <QTest>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "core/table/table.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

Attribute attr(std::string name, std::size_t bins, std::string prefix = "v") {
    Attribute a;
    a.name = std::move(name);
    for (std::size_t i = 0; i < bins; ++i)
        a.labels.push_back(prefix + std::to_string(i));
    return a;
}

std::vector<Attribute> attrs(std::initializer_list<std::size_t> sizes) {
    std::vector<Attribute> out;
    std::size_t i = 0;
    for (std::size_t n : sizes)
        out.push_back(attr("a" + std::to_string(i++), n));
    return out;
}

// Every ordered selection of distinct attributes out of k (all subsets, all orders).
void orderedSelections(std::size_t k, std::vector<std::size_t>& cur,
                       std::vector<std::vector<std::size_t>>& out) {
    if (!cur.empty())
        out.push_back(cur);
    for (std::size_t a = 0; a < k; ++a) {
        if (std::find(cur.begin(), cur.end(), a) != cur.end())
            continue;
        cur.push_back(a);
        orderedSelections(k, cur, out);
        cur.pop_back();
    }
}

// Brute-force marginal: for each occupied cell, its kept coordinates (computed from the shape by
// repeated division, independently of the class) in the order of `keep`.
std::map<std::vector<std::uint64_t>, std::int64_t> bruteMarginal(
    const std::vector<std::uint64_t>& shape, const std::vector<TableCell>& cells,
    const std::vector<std::size_t>& keep) {
    std::map<std::vector<std::uint64_t>, std::int64_t> m;
    for (const TableCell& c : cells) {
        std::vector<std::uint64_t> coords(shape.size());
        std::uint64_t i = c.index;
        for (std::size_t a = shape.size(); a-- > 0;) {
            coords[a] = i % shape[a];
            i /= shape[a];
        }
        std::vector<std::uint64_t> key;
        for (std::size_t a : keep)
            key.push_back(coords[a]);
        m[key] += c.count;
    }
    return m;
}

}  // namespace

class TestTable : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mixedRadixAgainstNestedLoops();
    void denseStorage();
    void sparseBeyondDenseLimit();
    void domain2To40();
    void domain2To64();
    void domainOver2To64Refused();
    void badCellsRefused();
    void badDenseRefused();
    void badAttributesRefused();
    void marginalsDense();
    void marginalsSparse();
    void marginalErrors();
    void toHistogramLabels();
    void sensitivityAsHistogram();
};

void TestTable::mixedRadixAgainstNestedLoops() {
    auto t = ContingencyTable::fromCells(attrs({3, 4, 5}), {});
    DPX_VERIFY_OK(t);
    QCOMPARE(t->cellCount(), CellCount{60});
    QVERIFY(t->isDense());
    std::uint64_t expected = 0;
    for (std::uint64_t i = 0; i < 3; ++i) {
        for (std::uint64_t j = 0; j < 4; ++j) {
            for (std::uint64_t k = 0; k < 5; ++k) {
                const std::vector<std::uint64_t> c{i, j, k};
                QCOMPARE(t->cellIndex(c), expected);  // C order: the last attribute fastest
                QCOMPARE(t->coordinates(expected), c);
                QCOMPARE(t->cellLabel(expected), "a0 = v" + std::to_string(i) + ", a1 = v" +
                                                     std::to_string(j) + ", a2 = v" +
                                                     std::to_string(k));
                ++expected;
            }
        }
    }
    QCOMPARE(t->shape(), (std::vector<std::uint64_t>{3, 4, 5}));
}

void TestTable::denseStorage() {
    std::vector<std::int64_t> counts(24);
    std::iota(counts.begin(), counts.end(), 0);  // cell 0 empty
    auto t = ContingencyTable::dense(attrs({2, 3, 4}), counts);
    DPX_VERIFY_OK(t);
    QVERIFY(t->isDense());
    QCOMPARE(t->occupiedCount(), std::uint64_t{23});
    QCOMPARE(t->total(), std::int64_t{276});
    for (std::uint64_t i = 0; i < 24; ++i)
        QCOMPARE(t->count(i), static_cast<std::int64_t>(i));
    const auto occ = t->occupiedCells();
    QCOMPARE(occ.size(), std::size_t{23});
    QCOMPARE(occ.front(), (TableCell{1, 1}));
    // fromCells on a small domain stores densely and equals the dense table.
    std::vector<TableCell> cells;
    for (std::uint64_t i = 23; i >= 1; --i)
        cells.push_back({i, static_cast<std::int64_t>(i)});
    cells.push_back({0, 0});  // a zero count is dropped, not an error
    auto u = ContingencyTable::fromCells(attrs({2, 3, 4}), cells);
    DPX_VERIFY_OK(u);
    QVERIFY(u->isDense());
    QVERIFY(*u == *t);
    QVERIFY(t->toDense().hasValue());
}

void TestTable::sparseBeyondDenseLimit() {
    // 4097 × 4096 cells = 2²⁴ + 4096: one row more than the dense limit.
    auto attributes = attrs({4097, 4096});
    QVERIFY(CellCount{4097} * 4096 > CellCount{kMaxDenseCells});
    std::vector<TableCell> cells{{16781311, 7}, {0, 2}, {4096 * 17 + 5, 3}};
    auto t = ContingencyTable::fromCells(attributes, cells);
    DPX_VERIFY_OK(t);
    QVERIFY(!t->isDense());
    QCOMPARE(t->cellCount(), CellCount{4097} * 4096);
    QCOMPARE(t->occupiedCount(), std::uint64_t{3});
    QCOMPARE(t->total(), std::int64_t{12});
    QCOMPARE(t->count(16781311), std::int64_t{7});  // the last cell
    QCOMPARE(t->count(4096 * 17 + 5), std::int64_t{3});
    QCOMPARE(t->count(1), std::int64_t{0});
    QCOMPARE(t->coordinates(16781311), (std::vector<std::uint64_t>{4096, 4095}));
    const auto occ = t->occupiedCells();
    QVERIFY(std::is_sorted(occ.begin(), occ.end(), [](const TableCell& a, const TableCell& b) {
        return a.index < b.index;
    }));
    DPX_VERIFY_ERROR(t->toDense(), "densely|cells");
    DPX_VERIFY_ERROR(t->toHistogram(), "bins|cells");
    // Exactly 2²⁴ cells is still dense.
    auto d = ContingencyTable::fromCells(attrs({4096, 4096}), {{5, 1}});
    DPX_VERIFY_OK(d);
    QVERIFY(d->isDense());
    // A dense table beyond the limit is refused with the size.
    DPX_VERIFY_ERROR(ContingencyTable::dense(attributes, {}), "dense|16777216");
}

void TestTable::domain2To40() {
    auto t = ContingencyTable::fromCells(attrs({1024, 1024, 1024, 1024}),
                                         {{(std::uint64_t{1} << 40) - 1, 5}, {123456789, 1}});
    DPX_VERIFY_OK(t);
    QCOMPARE(t->cellCount(), CellCount{1} << 40);
    QCOMPARE(cellCountText(t->cellCount()), std::string("1099511627776"));
    QCOMPARE(t->coordinates((std::uint64_t{1} << 40) - 1),
             (std::vector<std::uint64_t>{1023, 1023, 1023, 1023}));
    const std::vector<std::uint64_t> c{1, 2, 3, 4};
    QCOMPARE(t->cellIndex(c), ((std::uint64_t{1} * 1024 + 2) * 1024 + 3) * 1024 + 4);
    QCOMPARE(t->count((std::uint64_t{1} << 40) - 1), std::int64_t{5});
}

void TestTable::domain2To64() {
    // 4 attributes of 65 536 bins: 2⁶⁴ cells, one more than std::uint64_t holds.
    const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
    auto t = ContingencyTable::fromCells(attrs({65536, 65536, 65536, 65536}),
                                         {{top, 9}, {0, 1}, {std::uint64_t{1} << 63, 4}});
    DPX_VERIFY_OK(t);
    QCOMPARE(t->cellCount(), CellCount{1} << 64);
    QCOMPARE(cellCountText(t->cellCount()), std::string("18446744073709551616"));
    QCOMPARE(cellCountDouble(t->cellCount()), 0x1.0p64);
    QCOMPARE(t->coordinates(top), (std::vector<std::uint64_t>{65535, 65535, 65535, 65535}));
    const std::vector<std::uint64_t> c{65535, 65535, 65535, 65535};
    QCOMPARE(t->cellIndex(c), top);
    QCOMPARE(t->coordinates(std::uint64_t{1} << 63), (std::vector<std::uint64_t>{32768, 0, 0, 0}));
    QCOMPARE(t->count(top), std::int64_t{9});
    QCOMPARE(t->cellLabel(top), std::string("a0 = v65535, a1 = v65535, a2 = v65535, a3 = v65535"));
    // A leading one-bin attribute keeps the domain at 2⁶⁴.
    auto ones = attrs({1, 65536, 65536, 65536, 65536});
    auto u = ContingencyTable::fromCells(ones, {{top, 1}});
    DPX_VERIFY_OK(u);
    QCOMPARE(u->coordinates(top), (std::vector<std::uint64_t>{0, 65535, 65535, 65535, 65535}));
    const std::uint64_t keep[] = {0, 4};
    auto m = u->marginal(keep);
    DPX_VERIFY_OK(m);
    QCOMPARE(m->count(65535), std::int64_t{1});
}

void TestTable::domainOver2To64Refused() {
    auto a = attrs({65536, 65536, 65536, 65536});
    a.push_back(attr("sex", 2));
    auto t = ContingencyTable::fromCells(a, {});
    DPX_VERIFY_ERROR(t, "2^64");
    QVERIFY(dpxtest::mentions(t.error().message, "sex"));
    QVERIFY(dpxtest::mentions(t.error().message, "a0"));
    // 33 attributes of 2 bins (2³³ cells) is refused for the count of attributes.
    std::vector<Attribute> many;
    for (int i = 0; i < 33; ++i)
        many.push_back(attr("b" + std::to_string(i), 2));
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(many, {}), "32");
}

void TestTable::badCellsRefused() {
    auto a = attrs({3, 3});
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(a, {{4, 1}, {4, 2}}), "twice");
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(a, {{4, -1}}), "negative");
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(a, {{9, 1}}), "outside");
    // The messages name the cell.
    auto dup = ContingencyTable::fromCells(a, {{4, 1}, {4, 1}});
    QVERIFY(dpxtest::mentions(dup.error().message, "a0 = v1, a1 = v1"));
    // Sparse domain too.
    auto big = attrs({65536, 65536, 65536});
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(big, {{7, 1}, {7, 1}}), "twice");
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(big, {{std::uint64_t{1} << 48, 1}}), "outside");
    DPX_VERIFY_ERROR(
        ContingencyTable::fromCells(big, {{1, std::numeric_limits<std::int64_t>::max()}, {2, 1}}),
        "2^63");
}

void TestTable::badDenseRefused() {
    DPX_VERIFY_ERROR(ContingencyTable::dense(attrs({2, 2}), {1, 2, 3}), "4 cells|3 counts");
    DPX_VERIFY_ERROR(ContingencyTable::dense(attrs({2, 2}), {1, 2, -3, 4}), "negative");
}

void TestTable::badAttributesRefused() {
    DPX_VERIFY_ERROR(ContingencyTable::fromCells({}, {}), "at least one attribute");
    auto twice = attrs({2, 2});
    twice[1].name = "a0";
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(twice, {}), "twice");
    auto noBins = attrs({2});
    noBins[0].labels.clear();
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(noBins, {}), "no bins");
    auto badEdges = attrs({2});
    badEdges[0].edges = {0, 1};
    DPX_VERIFY_ERROR(ContingencyTable::fromCells(badEdges, {}), "edges");
}

void TestTable::marginalsDense() {
    std::mt19937_64 gen(19);
    std::uniform_int_distribution<std::int64_t> cnt(0, 5);
    const std::vector<std::uint64_t> shape{3, 4, 2, 5};
    std::vector<std::int64_t> counts(120);
    for (auto& c : counts)
        c = cnt(gen) == 0 ? 0 : cnt(gen);
    auto t = ContingencyTable::dense(attrs({3, 4, 2, 5}), counts);
    DPX_VERIFY_OK(t);
    const auto occupied = t->occupiedCells();
    std::vector<std::vector<std::size_t>> selections;
    std::vector<std::size_t> cur;
    orderedSelections(4, cur, selections);
    QCOMPARE(selections.size(), std::size_t{64});  // 4 + 12 + 24 + 24 ordered selections
    for (const auto& keep : selections) {
        auto m = t->marginal(keep);
        DPX_VERIFY_OK(m);
        QCOMPARE(m->attributeCount(), keep.size());
        for (std::size_t i = 0; i < keep.size(); ++i)
            QCOMPARE(m->attribute(i).name, t->attribute(keep[i]).name);
        QCOMPARE(m->total(), t->total());
        const auto brute = bruteMarginal(shape, occupied, keep);
        std::uint64_t nonzero = 0;
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(m->cellCount()); ++i) {
            const auto key = m->coordinates(i);
            const auto it = brute.find(key);
            QCOMPARE(m->count(i), it == brute.end() ? 0 : it->second);
            nonzero += m->count(i) > 0;
        }
        QCOMPARE(m->occupiedCount(), nonzero);
    }
}

void TestTable::marginalsSparse() {
    // 300 × 200 × 400 × 3 = 7.2·10⁷ cells (sparse), 5000 random occupied cells.
    const std::vector<std::uint64_t> shape{300, 200, 400, 3};
    std::mt19937_64 gen(1919);
    std::uniform_int_distribution<std::uint64_t> cell(0, 300ULL * 200 * 400 * 3 - 1);
    std::uniform_int_distribution<std::int64_t> cnt(1, 9);
    std::map<std::uint64_t, std::int64_t> chosen;
    while (chosen.size() < 5000)
        chosen[cell(gen)] = cnt(gen);
    std::vector<TableCell> cells;
    for (const auto& [i, c] : chosen)
        cells.push_back({i, c});
    std::shuffle(cells.begin(), cells.end(), gen);  // any order in
    auto t = ContingencyTable::fromCells(attrs({300, 200, 400, 3}), cells);
    DPX_VERIFY_OK(t);
    QVERIFY(!t->isDense());
    std::vector<std::vector<std::size_t>> selections;
    std::vector<std::size_t> cur;
    orderedSelections(4, cur, selections);
    const auto occupied = t->occupiedCells();
    for (const auto& keep : selections) {
        auto m = t->marginal(keep);
        DPX_VERIFY_OK(m);
        QCOMPARE(m->total(), t->total());
        const auto brute = bruteMarginal(shape, occupied, keep);
        QCOMPARE(m->occupiedCount(), static_cast<std::uint64_t>(brute.size()));
        // Every brute-force cell has its count (dense or sparse marginal); the occupied counts
        // add up, so no other cell is non-zero.
        for (const auto& [key, c] : brute)
            QCOMPARE(m->count(m->cellIndex(key)), c);
        if (keep.size() >= 3)
            QVERIFY(!m->isDense() || m->cellCount() <= CellCount{kMaxDenseCells});
    }
}

void TestTable::marginalErrors() {
    auto t = ContingencyTable::fromCells(attrs({2, 3}), {{1, 1}});
    DPX_VERIFY_OK(t);
    DPX_VERIFY_ERROR(t->marginal({}), "at least one");
    const std::size_t twice[] = {1, 1};
    DPX_VERIFY_ERROR(t->marginal(twice), "twice");
    const std::size_t outside[] = {2};
    DPX_VERIFY_ERROR(t->marginal(outside), "does not exist");
    DPX_VERIFY_ERROR(t->attributeIndex("age"), "a0, a1");
    QCOMPARE(t->attributeIndex("a1").value(), std::size_t{1});
}

void TestTable::toHistogramLabels() {
    std::vector<Attribute> a{attr("sex", 2, "s"), attr("class", 3, "c")};
    auto t = ContingencyTable::dense(a, {1, 2, 3, 4, 5, 6});
    DPX_VERIFY_OK(t);
    auto h = t->toHistogram();
    DPX_VERIFY_OK(h);
    QCOMPARE(h->counts(), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
    QCOMPARE(h->labels()[0], std::string("sex = s0, class = c0"));
    QCOMPARE(h->labels()[4], std::string("sex = s1, class = c1"));
    // One attribute: its own labels and edges.
    Attribute age = attr("age", 3);
    age.labels = {"[0, 10)", "[10, 20)", "[20, 30]"};
    age.edges = {0, 10, 20, 30};
    auto one = ContingencyTable::dense({age}, {4, 0, 2});
    DPX_VERIFY_OK(one);
    auto h1 = one->toHistogram();
    DPX_VERIFY_OK(h1);
    QCOMPARE(h1->labels(), age.labels);
    QCOMPARE(h1->edges(), age.edges);
    // And back: fromHistogram keeps labels and edges.
    auto back = ContingencyTable::fromHistogram(*h1, "age");
    DPX_VERIFY_OK(back);
    QCOMPARE(back->attribute(0).labels, age.labels);
    QCOMPARE(back->attribute(0).edges, age.edges);
    QCOMPARE(back->denseCounts(), (std::vector<std::int64_t>{4, 0, 2}));
}

void TestTable::sensitivityAsHistogram() {
    auto small = ContingencyTable::fromCells(attrs({2, 3, 4}), {});
    auto huge = ContingencyTable::fromCells(attrs({65536, 65536, 65536, 65536}), {});
    DPX_VERIFY_OK(small);
    DPX_VERIFY_OK(huge);
    for (Neighbouring rel : {Neighbouring::AddRemove, Neighbouring::Replace}) {
        for (ContributionBound b :
             {ContributionBound{1, 1}, ContributionBound{3, 2}, ContributionBound{100, 1}}) {
            auto s = tableSensitivity(*small, rel, b);
            auto h = histogramSensitivity(24, rel, b);
            DPX_VERIFY_OK(s);
            QCOMPARE(s->l1, h->l1);
            QCOMPARE(s->l2, h->l2);
            auto sh = tableSensitivity(*huge, rel, b);
            auto hh = histogramSensitivity(std::numeric_limits<std::size_t>::max(), rel, b);
            DPX_VERIFY_OK(sh);
            QCOMPARE(sh->l1, hh->l1);
            QCOMPARE(sh->l2, hh->l2);
        }
    }
    // One record in one cell: replace-one moves one record, Δ1 = 2.
    QCOMPARE(tableSensitivity(*huge, Neighbouring::Replace, {1, 1})->l1, 2.0);
    QCOMPARE(tableSensitivity(*huge, Neighbouring::AddRemove, {1, 1})->l1, 1.0);
}

QTEST_APPLESS_MAIN(TestTable)
#include "tst_table.moc"
