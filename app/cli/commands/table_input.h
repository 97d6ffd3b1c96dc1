// Tables of several attributes on the command line (issue #19): where a subcommand gets a
// ContingencyTable — `--counts-file PATH [--counts-layout auto|long|vector|matrix|npy]` (a .npy
// array or a CSV of counts, io/sources/counts_file.h) or `--data FILE|URI --joint --column A
// --bins SPEC --column B --bins SPEC …` (one pass over the data, csvJointTable / jointTableFromUri)
// — and how a table becomes the vector of counts a one-column command needs (its cells in C order,
// with a note).
#pragma once

#include <QJsonValue>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/base/expected.h"
#include "core/histogram/histogram.h"
#include "core/table/table.h"
#include "io/sources/data_source.h"

namespace dpx::cli {

// Options of every subcommand that reads counts from a file.
inline constexpr const char* kCountsFileOptions[] = {"counts-file", "counts-layout"};
// Args::parse flags and repeatable options of the subcommands that take --joint columns.
inline const std::set<std::string> kJointFlags{"joint"};
inline const std::set<std::string> kJointRepeatable{"column", "bins"};

// A table and where it came from.
struct LoadedTable {
    ContingencyTable table;
    std::string source;   // "columns 'sex', 'class' of adult.csv", "counts file h.npy (…)"
    std::string dataset;  // the data's name for a ledger: the path (and table), or the file
    // --data --joint: the pass's summary (rows read, counted, dropped per column, skipped, capped).
    std::optional<data::SourceTable> summary;
};

// Whether the arguments ask for a table: --counts-file, or --joint.
bool asksForTable(const Args& a);

// --counts and --counts-file together: the error (a clear one naming both); OK otherwise.
Status checkCountsExclusive(const Args& a);

// The table of --counts-file (with --counts-layout) or of --data --joint --column … --bins …
// (--table T for a database, `cap` the contribution cap). Every error names the option.
Expected<LoadedTable> tableFromArgs(const Args& a, const data::ContributionCap& cap = {});

// "2 attributes (sex × class), 4 cells".
std::string tableShapeText(const ContingencyTable& t);

// The table as the vector of counts of a one-column command: its cells in C order (labels "a = x,
// b = y"). A table of k ≥ 2 attributes gets a note on `err` ("dpx: note: ..."); a sparse table or
// one beyond kMaxBins cells is an error naming `command`.
Expected<Histogram> tableAsHistogram(const LoadedTable& t, const std::string& command,
                                     std::ostream* err);

// The warning of a table some of whose attributes have bins found in the data (a long counts CSV,
// categories without a list): the domain then depends on the data, which a guarantee stated for a
// domain fixed in advance does not cover. Empty when every attribute is declared.
std::vector<std::string> undeclaredDomainWarnings(const ContingencyTable& t);

// A subcommand where a table of several attributes is not meaningful: an error naming it when
// the table has k ≥ 2 attributes, OK otherwise.
Status refuseSeveralAttributes(const LoadedTable& t, const std::string& what);

// The counts of --counts (a list of numbers) or --counts-file (its cells in C order, with a note
// on `err` for k ≥ 2), at most one of the two (--counts's own error when neither is given).
Expected<std::vector<double>> countsListFromArgs(const Args& a, std::ostream* err);

// A number of cells (or a cell index) in JSON: an integer up to 2⁶³ − 1 (exact in Qt's JSON),
// beyond that (domains of up to 2⁶⁴ cells) its decimal text.
QJsonValue cellCountJson(CellCount n);

// "dpx: note: MESSAGE" on `err` (if not null).
void note(std::ostream* err, const std::string& message);

}  // namespace dpx::cli
