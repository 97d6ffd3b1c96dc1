#include "app/cli/commands/table_input.h"

#include <limits>
#include <ostream>

#include "app/cli/commands/histogram.h"
#include "core/histogram/dataset.h"
#include "io/sources/counts_file.h"

namespace dpx::cli {

namespace {

Expected<LoadedTable> fromCountsFile(const Args& a) {
    for (const char* opt : {"data", "column", "bins", "table", "joint", "id-column", "cap"}) {
        if (a.has(opt)) {
            return Error{std::string("--") + opt + " goes with --data, not --counts-file"};
        }
    }
    data::CountsFileOptions options;
    if (a.has("counts-layout")) {
        auto layout = data::countsLayoutFromName(*a.get("counts-layout"));
        if (!layout) {
            return Error{"--counts-layout: " + layout.error().message};
        }
        options.layout = *layout;
    }
    const std::string path = *a.get("counts-file");
    auto file = data::readCountsFile(path, options);
    if (!file) {
        return Error{"--counts-file: " + file.error().message};
    }
    LoadedTable t;
    t.table = std::move(file->table);
    t.source = file->description;
    t.dataset = path;
    return t;
}

Expected<LoadedTable> fromJointData(const Args& a, const data::ContributionCap& cap) {
    if (!a.has("data")) {
        return Error{
            "--joint needs --data FILE|sqlite:PATH|postgresql://... with --column A "
            "--bins SPEC --column B --bins SPEC ..."};
    }
    const std::vector<std::string> columns = a.all("column");
    const std::vector<std::string> bins = a.all("bins");
    if (columns.empty()) {
        return Error{"--joint needs at least one --column"};
    }
    if (bins.size() != columns.size()) {
        return Error{"--joint needs one --bins per --column, in the same order (" +
                     std::to_string(columns.size()) + " columns, " + std::to_string(bins.size()) +
                     " --bins)"};
    }
    HistogramQuery q;
    q.data = *a.get("data");
    q.table = a.text("table", "");
    q.cap = cap;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        auto b = parseBinSpec(bins[c]);
        if (!b) {
            return Error{"--bins (column '" + columns[c] + "'): " + b.error().message};
        }
        q.requests.push_back({columns[c], std::move(b).value()});
    }
    auto joint = jointTableFromSource(q);
    if (!joint) {
        return joint.error();
    }
    LoadedTable t;
    t.table = joint->table;
    t.source = "columns ";
    for (std::size_t c = 0; c < columns.size(); ++c) {
        t.source += (c ? ", '" : "'") + columns[c] + "'";
    }
    t.dataset = q.data + (q.table.empty() ? "" : " table " + q.table);
    t.source += " of " + t.dataset;
    t.summary = std::move(joint).value();
    return t;
}

}  // namespace

bool asksForTable(const Args& a) {
    return a.has("counts-file") || a.has("joint");
}

Status checkCountsExclusive(const Args& a) {
    if (a.has("counts") && a.has("counts-file")) {
        return Error{
            "--counts and --counts-file cannot be combined: give the counts one way "
            "(a list on the command line or a file)"};
    }
    if (a.has("counts-layout") && !a.has("counts-file")) {
        return Error{"--counts-layout goes with --counts-file"};
    }
    return okStatus();
}

Expected<LoadedTable> tableFromArgs(const Args& a, const data::ContributionCap& cap) {
    if (auto st = checkCountsExclusive(a); !st) {
        return st.error();
    }
    if (a.has("counts-file")) {
        return fromCountsFile(a);
    }
    if (a.has("joint")) {
        if (a.has("counts")) {
            return Error{"--joint goes with --data, not --counts"};
        }
        return fromJointData(a, cap);
    }
    return Error{
        "give the table as --counts-file PATH or --data FILE --joint --column A --bins "
        "SPEC --column B --bins SPEC ..."};
}

std::string tableShapeText(const ContingencyTable& t) {
    std::string names;
    for (const Attribute& at : t.attributes()) {
        names += (names.empty() ? "" : " × ") + at.name + " (" + std::to_string(at.size()) + ")";
    }
    return std::to_string(t.attributeCount()) +
           (t.attributeCount() == 1 ? " attribute (" : " attributes (") + names + "), " +
           cellCountText(t.cellCount()) + " cells";
}

Expected<Histogram> tableAsHistogram(const LoadedTable& t, const std::string& command,
                                     std::ostream* err) {
    if (!t.table.isDense() || t.table.cellCount() > CellCount{std::uint64_t(kMaxBins)}) {
        return Error{command + " takes a vector of at most " + std::to_string(kMaxBins) +
                     " counts; the table has " + tableShapeText(t.table) +
                     " (use fewer bins or fewer attributes)"};
    }
    auto h = t.table.toHistogram();
    if (!h) {
        return h.error();
    }
    if (t.table.attributeCount() >= 2) {
        note(err, "the table of " + tableShapeText(t.table) + " is taken as one vector of " +
                      cellCountText(t.table.cellCount()) +
                      " counts, its cells in C order (the last attribute varies fastest)");
    }
    return h;
}

std::vector<std::string> undeclaredDomainWarnings(const ContingencyTable& t) {
    std::string names;
    for (const Attribute& a : t.attributes()) {
        if (!a.declared) {
            names += (names.empty() ? "'" : ", '") + a.name + "'";
        }
    }
    if (names.empty()) {
        return {};
    }
    return {"the bins of " + names +
            " were found in the data: the domain (and the default threshold) then depend on the "
            "data, which the guarantee, stated for bins fixed in advance, does not cover; a "
            "release needs them declared"};
}

Status refuseSeveralAttributes(const LoadedTable& t, const std::string& what) {
    if (t.table.attributeCount() >= 2) {
        return Error{what + " is not meaningful on a table of several attributes (" +
                     tableShapeText(t.table) + "); give one attribute"};
    }
    return okStatus();
}

Expected<std::vector<double>> countsListFromArgs(const Args& a, std::ostream* err) {
    if (auto st = checkCountsExclusive(a); !st) {
        return st.error();
    }
    if (a.has("counts-file")) {
        auto t = tableFromArgs(a);
        if (!t) {
            return t.error();
        }
        auto h = tableAsHistogram(*t, "--counts-file", err);
        if (!h) {
            return h.error();
        }
        std::vector<double> v;
        v.reserve(h->size());
        for (std::int64_t c : h->counts()) {
            v.push_back(static_cast<double>(c));
        }
        return v;
    }
    return a.numberList("counts");  // its own error when missing
}

QJsonValue cellCountJson(CellCount n) {
    if (n <= CellCount{static_cast<std::uint64_t>(std::numeric_limits<qint64>::max())}) {
        return static_cast<qint64>(n);
    }
    return QString::fromStdString(cellCountText(n));
}

void note(std::ostream* err, const std::string& message) {
    if (err) {
        *err << "dpx: note: " << message << '\n';
    }
}

}  // namespace dpx::cli
