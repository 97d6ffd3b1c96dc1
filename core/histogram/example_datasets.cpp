#include "core/histogram/example_datasets.h"
#include "core/base/validation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "core/base/random_variates.h"
#include "core/base/simulation_rng.h"

namespace dpx {

namespace {

// Fixed seeds of the generators (changing one changes the example).
constexpr std::uint64_t kTelemetrySeed = 2;  // seed 002
constexpr std::uint64_t kAgesSeed = 1000;
constexpr std::uint64_t kEdwardsSeed = 3;    // seed 003
constexpr std::uint64_t kNltcsSeed = 30003;  // seed 003, second table

constexpr double kTelemetryMean = 12;
constexpr double kTelemetrySd = 4;
constexpr double kTelemetryLo = 0;
constexpr double kTelemetryHi = 24;

constexpr int kEdwardsVariables = 6;
constexpr std::size_t kEdwardsCells = std::size_t{1} << kEdwardsVariables;  // p = 64
// The counts of the q = 22 occupied cells, n = 70 in all: mostly small, a few larger.
constexpr std::array<std::int64_t, 22> kEdwardsCounts = {10, 8, 6, 5, 5, 4, 4, 3, 3, 3, 3,
                                                         2,  2, 2, 2, 2, 1, 1, 1, 1, 1, 1};

// NLTCS-like: p = 2^16 cells (16 yes/no items), q = 3152 occupied, n = 21574, one dominant cell
// (seed 003 Fig. 2.4: "one cell in particular contains the majority of the counts").
constexpr int kNltcsVariables = 16;
constexpr std::size_t kNltcsCells = std::size_t{1} << kNltcsVariables;
constexpr std::size_t kNltcsOccupied = 3152;
constexpr std::int64_t kNltcsRows = 21574;
constexpr std::int64_t kNltcsDominant = 10800;  // 50.06% of the records, in cell 0 (all "no")

// Uniform integer in [0, n) (n ≥ 1).
std::size_t below(SimulationRng& rng, std::size_t n) {
    const auto i = static_cast<std::size_t>(rng.uniform() * static_cast<double>(n));
    return std::min(i, n - 1);
}

template <class T>
void shuffle(std::vector<T>& v, SimulationRng& rng) {
    for (std::size_t i = v.size(); i > 1; --i) {
        std::swap(v[i - 1], v[below(rng, i)]);
    }
}

std::string cellPattern(std::size_t cell) {
    std::string s(kEdwardsVariables, '0');
    for (int b = 0; b < kEdwardsVariables; ++b) {
        if ((cell >> (kEdwardsVariables - 1 - b)) & 1U) {
            s[static_cast<std::size_t>(b)] = '1';
        }
    }
    return s;
}

std::vector<std::string> allCellPatterns() {
    std::vector<std::string> out;
    for (std::size_t c = 0; c < kEdwardsCells; ++c) {
        out.push_back(cellPattern(c));
    }
    return out;
}

// The population-pyramid curve of the ages example at age x.
double agesCurve(double x) {
    return std::exp(-std::pow(x / 78.0, 4)) * (1 + 0.35 * std::exp(-std::pow((x - 40) / 18, 2)));
}

// 10-year group counts of the ages example: 5000·w_i/Σw rounded, w_i the curve at the group's
// midpoint — the histogram of the earlier built-in example (total 5000).
std::array<std::int64_t, 10> agesGroupCounts() {
    std::array<double, 10> w{};
    double sum = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        w[i] = agesCurve(10.0 * static_cast<double>(i) + 5);
        sum += w[i];
    }
    std::array<std::int64_t, 10> counts{};
    for (std::size_t i = 0; i < w.size(); ++i) {
        counts[i] = std::llround(5000 * w[i] / sum);
    }
    return counts;
}

Expected<DataTable> makeTelemetry(std::int64_t rows) {
    std::vector<double> hours(static_cast<std::size_t>(rows));
    SimulationRng rng(kTelemetrySeed, 0);
    for (double& h : hours) {
        double x = 0;
        do {  // rejection: accepts 99.7% of the draws (±3 sd)
            x = kTelemetryMean + kTelemetrySd * rng.normal();
        } while (x < kTelemetryLo || x > kTelemetryHi);
        h = x;
    }
    std::vector<DataColumn> cols;
    cols.push_back(DataColumn::numeric("hour", std::move(hours)));
    return DataTable::create(std::move(cols));
}

Expected<DataTable> makeAges() {
    // Within each 10-year group the ages follow the same curve (largest-remainder apportionment
    // of the group's count over its 10 ages), so the group counts are exactly those of
    // agesGroupCounts(). The rows are then shuffled.
    const auto groups = agesGroupCounts();
    std::vector<double> ages;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        std::array<double, 10> w{};
        double sum = 0;
        for (std::size_t a = 0; a < 10; ++a) {
            w[a] = agesCurve(10.0 * static_cast<double>(g) + static_cast<double>(a) + 0.5);
            sum += w[a];
        }
        std::array<std::int64_t, 10> n{};
        std::array<std::pair<double, std::size_t>, 10> remainder{};
        std::int64_t given = 0;
        for (std::size_t a = 0; a < 10; ++a) {
            const double share = static_cast<double>(groups[g]) * w[a] / sum;
            n[a] = static_cast<std::int64_t>(std::floor(share));
            given += n[a];
            remainder[a] = {share - std::floor(share), a};
        }
        std::stable_sort(remainder.begin(), remainder.end(),
                         [](const auto& x, const auto& y) { return x.first > y.first; });
        for (std::size_t i = 0; given < groups[g]; ++i, ++given) {
            ++n[remainder[i % 10].second];
        }
        for (std::size_t a = 0; a < 10; ++a) {
            ages.insert(ages.end(), static_cast<std::size_t>(n[a]),
                        static_cast<double>(10 * g + a));
        }
    }
    SimulationRng rng(kAgesSeed, 0);
    shuffle(ages, rng);
    std::vector<DataColumn> cols;
    cols.push_back(DataColumn::numeric("age", std::move(ages)));
    return DataTable::create(std::move(cols));
}

Expected<DataTable> makeEdwardsLike() {
    // Choose the 22 occupied cells by a partial Fisher–Yates shuffle of the 64; the i-th chosen
    // cell gets kEdwardsCounts[i] records. Then shuffle the records.
    SimulationRng rng(kEdwardsSeed, 0);
    std::vector<std::size_t> cells(kEdwardsCells);
    for (std::size_t c = 0; c < cells.size(); ++c) {
        cells[c] = c;
    }
    std::vector<std::size_t> records;
    for (std::size_t i = 0; i < kEdwardsCounts.size(); ++i) {
        std::swap(cells[i], cells[i + below(rng, cells.size() - i)]);
        records.insert(records.end(), static_cast<std::size_t>(kEdwardsCounts[i]), cells[i]);
    }
    shuffle(records, rng);
    std::vector<std::vector<double>> bits(kEdwardsVariables);
    std::vector<std::string> pattern;
    for (std::size_t cell : records) {
        const std::string p = cellPattern(cell);
        for (std::size_t b = 0; b < bits.size(); ++b) {
            bits[b].push_back(p[b] == '1' ? 1.0 : 0.0);
        }
        pattern.push_back(p);
    }
    std::vector<DataColumn> cols;
    for (std::size_t b = 0; b < bits.size(); ++b) {
        cols.push_back(
            DataColumn::numeric(std::string(1, static_cast<char>('A' + b)), std::move(bits[b])));
    }
    cols.push_back(DataColumn::text("cell", std::move(pattern)));
    return DataTable::create(std::move(cols));
}

// The NLTCS-like cell counts, indexed by cell (sum kNltcsRows, exactly kNltcsOccupied non-zero).
// Cell 0 (all items "no") holds kNltcsDominant records; the other 3151 occupied cells are a
// uniform random choice among cells 1..2^16−1 (partial Fisher–Yates); each gets 1 record plus a
// share of the remaining 21574 − 10800 − 3151 = 7623 records, multinomial with Zipf weights
// 1/r (r = 1, 2, … the cell's rank in the choice), so a few cells are large and most hold 1–3.
std::vector<std::int64_t> nltcsCellCounts() {
    SimulationRng rng(kNltcsSeed, 0);
    std::vector<std::size_t> cells(kNltcsCells - 1);
    for (std::size_t c = 0; c < cells.size(); ++c) {
        cells[c] = c + 1;
    }
    const std::size_t others = kNltcsOccupied - 1;
    for (std::size_t i = 0; i < others; ++i) {
        std::swap(cells[i], cells[i + below(rng, cells.size() - i)]);
    }
    std::vector<double> weights(others);
    for (std::size_t r = 0; r < others; ++r) {
        weights[r] = 1.0 / static_cast<double>(r + 1);
    }
    std::vector<std::uint64_t> extra(others);
    const auto spare = static_cast<std::uint64_t>(kNltcsRows - kNltcsDominant) - others;
    multinomial(rng, spare, weights, extra);
    std::vector<std::int64_t> counts(kNltcsCells, 0);
    counts[0] = kNltcsDominant;
    for (std::size_t r = 0; r < others; ++r) {
        counts[cells[r]] = 1 + static_cast<std::int64_t>(extra[r]);
    }
    return counts;
}

Expected<DataTable> makeNltcsLike() {
    // One row per record, in shuffled order: the 16 items D1–D16 (D1 is the cell's highest bit)
    // and the cell index 0–65535.
    const auto counts = nltcsCellCounts();
    std::vector<double> records;
    records.reserve(static_cast<std::size_t>(kNltcsRows));
    for (std::size_t c = 0; c < counts.size(); ++c) {
        records.insert(records.end(), static_cast<std::size_t>(counts[c]), static_cast<double>(c));
    }
    SimulationRng rng(kNltcsSeed, 1);
    shuffle(records, rng);
    std::vector<DataColumn> cols;
    for (int b = 0; b < kNltcsVariables; ++b) {
        std::vector<double> bit(records.size());
        for (std::size_t i = 0; i < records.size(); ++i) {
            const auto cell = static_cast<std::size_t>(records[i]);
            bit[i] = ((cell >> (kNltcsVariables - 1 - b)) & 1U) ? 1.0 : 0.0;
        }
        cols.push_back(DataColumn::numeric("D" + std::to_string(b + 1), std::move(bit)));
    }
    cols.push_back(DataColumn::numeric("cell", std::move(records)));
    return DataTable::create(std::move(cols));
}

Expected<DataTable> makeTwoBins() {
    std::vector<DataColumn> cols;
    cols.push_back(DataColumn::text("bin", std::vector<std::string>(16, "bin 2")));
    return DataTable::create(std::move(cols));
}

Error unknownExample(const std::string& id) {
    std::string known;
    for (const auto& e : exampleDatasets()) {
        known += (known.empty() ? "" : ", ") + e.id;
    }
    return Error{"unknown example dataset '" + id + "' (available: " + known + ")"};
}

}  // namespace

const std::vector<ExampleDataset>& exampleDatasets() {
    static const std::vector<ExampleDataset> list = {
        {"telemetry", "Device report times (synthetic telemetry)",
         "The hour of the day at which each device sends its report, as in the telemetry "
         "setting of Ding, Kulkarni & Yekhanin 2017. Synthetic: drawn with a fixed seed from a "
         "normal distribution "
         "with mean 12 h and standard deviation 4 h, cut off at 0 h and 24 h.",
         "hours", "hour", Binning::equalWidth(32, kTelemetryLo, kTelemetryHi), 10000, 1000,
         1000000},
        {"ages", "Ages of 5,000 people (synthetic)",
         "Ages 0–99 of 5,000 people with a smooth population-pyramid shape, shown in 10-year "
         "groups. Synthetic: generated by a fixed formula.",
         "years", "age", Binning::integers(0, 99, 10), 5000, 5000, 5000},
        {"edwards-like", "Sparse 64-cell table (synthetic, Edwards-like)",
         "70 records classified by 6 yes/no variables into 64 cells, of which only 22 are "
         "occupied, mostly with small counts. Synthetic: it has the size and sparsity of the "
         "“Edwards” table in Hall 2012 (whose counts are not available here), not its counts.",
         "", "cell", Binning::fixedCategories(allCellPatterns()), 70, 70, 70},
        {"nltcs-like", "Very sparse 65,536-cell table (synthetic, NLTCS-like)",
         "21,574 records classified by 16 yes/no items into 65,536 cells, of which only 3,152 "
         "are occupied and one (all items “no”) holds just over half of the records. Synthetic: "
         "it has the size and sparsity of the National Long Term Care Survey table in Hall 2012 "
         "(Fig. 2.4), not its counts; generated with a fixed seed.",
         "", "cell", Binning::integers(0, static_cast<double>(kNltcsCells - 1)), kNltcsRows,
         kNltcsRows, kNltcsRows},
        {"two-bins", "Two bins [0, 16] (Kerrigan 2019, §3.3)",
         "The two-bin histogram H = [0, 16] of Kerrigan 2019 §3.3: 16 records, all in the second "
         "bin. Here resizing is worse than clamping at ε = 0.1.",
         "", "bin", Binning::fixedCategories({"bin 1", "bin 2"}), 16, 16, 16},
    };
    return list;
}

std::string_view currentExampleId(std::string_view id) {
    for (const auto& [old, current] : kExampleIdAliases) {
        if (id == old) {
            return current;
        }
    }
    return id;
}

const ExampleDataset* findExample(std::string_view id) {
    id = currentExampleId(id);
    for (const auto& e : exampleDatasets()) {
        if (e.id == id) {
            return &e;
        }
    }
    return nullptr;
}

Expected<DataTable> makeExampleTable(const std::string& id, std::int64_t rows) {
    const ExampleDataset* ex = findExample(id);
    if (!ex) {
        return unknownExample(id);
    }
    if (rows == 0) {
        rows = ex->defaultRows;
    }
    if (rows < ex->minRows || rows > ex->maxRows) {
        if (ex->minRows == ex->maxRows) {
            return Error{"the '" + id + "' example has a fixed size of " +
                         groupThousands(ex->minRows) + " rows; " + groupThousands(rows) +
                         " rows were asked for"};
        }
        return Error{"the '" + id + "' example can have " + groupThousands(ex->minRows) + " to " +
                     groupThousands(ex->maxRows) + " rows, not " + groupThousands(rows)};
    }
    const std::string_view current = ex->id;
    if (current == "telemetry") {
        return makeTelemetry(rows);
    }
    if (current == "ages") {
        return makeAges();
    }
    if (current == "edwards-like") {
        return makeEdwardsLike();
    }
    if (current == "nltcs-like") {
        return makeNltcsLike();
    }
    if (current == "two-bins") {
        return makeTwoBins();
    }
    return unknownExample(id);
}

Expected<Histogram> makeExample(const std::string& id) {
    const ExampleDataset* ex = findExample(id);
    if (!ex) {
        return unknownExample(id);
    }
    auto table = makeExampleTable(id);
    if (!table) {
        return table.error();
    }
    auto binned = binColumn(*table, ex->defaultColumn, ex->defaultBinning);
    if (!binned) {
        return binned.error();
    }
    return std::move(binned).value().histogram;
}

}  // namespace dpx
