// Streaming CSV/TSV reader (issue #5): histograms of one or more columns in one pass over a file
// that is never held in memory, with type inference, hard limits, a bad-row policy, progress,
// cancellation and several threads.
//
// Dialect: RFC 4180 with the usual real-world deviations.
// - Delimiter ',', ';', TAB or '|', detected from the first records (the candidate that occurs
//   the same non-zero number of times outside quotes on every sampled line, the most frequent
//   of those; ',' when none does), or given.
// - A field that starts with '"' is quoted: it may hold delimiters, line breaks and doubled
//   quotes (""), and is kept verbatim. A quote inside an unquoted field is an ordinary character.
//   Unquoted fields are trimmed of spaces (and tabs, unless TAB is the delimiter).
// - Line ends LF, CRLF or CR (one file may mix them); a UTF-8 byte-order mark is skipped; blank
//   lines are not records (they are counted as lines only).
// - The first record is the header unless `header` is false; then the columns are named
//   "column 1", "column 2", ... An empty header name becomes "column N"; duplicates are an error.
// - Empty fields are missing values (counted as missing by the bins, never as zero).
//
// Errors and bad rows. Every message names the 1-based line (physical line of the file, where
// the record starts, or where the problem is) and the 1-based column (the field number):
//   fatal whatever the policy (the record boundaries after them are unknown, or the file is not
//   CSV at all): file not found or unreadable, empty file, UTF-16 or binary file (NUL bytes in
//   the first 64 KiB), unterminated quote, a record over maxRecordBytes, more than maxFields
//   fields, a file over maxFileBytes;
//   bad rows, under the caller's policy (Stop: the first one is the error; Skip: the row is not
//   counted, and SourceHistograms::skipped counts it by reason): "ragged row" (field count ≠
//   header), "invalid UTF-8", "NUL byte", "text after closing quote", "not a number",
//   "not a whole number", "not a date", "missing id" (contribution cap without an id value).
// Only the requested columns (and the id column) are converted, so a bad number in a column
// that is not binned does not make its row bad.
//
// Types. A column's type is inferred from the first `sampleRows` records: every non-empty value
// an integer → Integer; every one a number → Float; every one a date yyyy-mm-dd → Date
// (binned as days since 1970-01-01); otherwise (or with no values) Categorical. `types`
// overrides it per column. Integer columns must hold whole numbers, so a value like 2.5 in a
// column declared or inferred integer is a bad row ("not a whole number").
//
// Speed and memory. The file is read in blocks of `blockBytes`; memory is O(threads × (block +
// longest record) + bins + columns). With several threads the data is split into byte ranges
// parsed at once; a range after the first starts speculatively after the first line feed in it
// and is verified against where the previous range really ended (a quoted line break can fool
// the guess) and parsed again from the right place when the guess was wrong — so the result,
// including every message and line number, is the same as with one thread. A contribution cap
// needs the rows in file order, so it runs on one thread and keeps one counter per person
// (memory O(persons)).
#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "io/sources/data_source.h"

namespace dpx::data {

struct CsvLimits {
    std::uint64_t maxFileBytes = std::uint64_t{1} << 40;  // 1 TiB
    std::size_t maxRecordBytes = std::size_t{1} << 20;    // 1 MiB, quoted line breaks included
    std::size_t maxFields = 10000;
};

struct CsvOptions {
    char delimiter = 0;  // 0: detect among ',', ';', TAB, '|'
    bool header = true;
    BadRowPolicy onBadRow = BadRowPolicy::Stop;
    std::size_t sampleRows = 1000;  // records read for type inference (≥ 1)
    // Per-column type overrides, by column name.
    std::vector<std::pair<std::string, ValueType>> types;
    CsvLimits limits;
    unsigned threads = 0;                           // 0: one per core, fewer for small files
    std::size_t blockBytes = std::size_t{1} << 20;  // read size (≥ 1; tests use tiny blocks)

    Status validate() const;
};

// What the first records of a file say.
struct CsvSchema {
    char delimiter = ',';
    bool header = true;
    std::vector<ColumnInfo> columns;  // names and (inferred or overridden) types
    // Non-empty values per column in the sample. A column without any (and without an override)
    // is typed by its request: numeric bins read it as Float, categories as Categorical.
    std::vector<std::int64_t> sampleValues;
    std::vector<bool> overridden;
    std::uint64_t fileBytes = 0;
    std::uint64_t dataOffset = 0;  // byte offset of the first data record
    std::int64_t dataLine = 1;     // its 1-based line
};

// Detects the delimiter, reads the header and infers the column types.
Expected<CsvSchema> inspectCsv(const std::string& path, const CsvOptions& options);

// Histograms of the requested columns in one pass. Progress is reported with the fraction of
// bytes read (from worker threads, so the callback must be thread-safe); a stop request ends the
// pass with the error "cancelled".
Expected<SourceHistograms> csvHistograms(const std::string& path, const CsvOptions& options,
                                         const std::vector<ColumnRequest>& requests,
                                         const ContributionCap& cap = {}, std::stop_token stop = {},
                                         const ProgressCallback& progress = {});

// The joint table of the requested columns (k = 1…32) in the same single pass, with the same
// limits, policies, messages, threads and contribution cap as csvHistograms (data_source.h,
// SourceTable, says which rows count). The domain is the product of the declared bins; an
// overflow beyond 2⁶⁴ cells is an error naming the columns before any byte is read.
Expected<SourceTable> csvJointTable(const std::string& path, const CsvOptions& options,
                                    const std::vector<ColumnRequest>& requests,
                                    const ContributionCap& cap = {}, std::stop_token stop = {},
                                    const ProgressCallback& progress = {});

// Every data record of a file in order, on one thread: its 1-based line (where the record starts)
// and its fields (quotes removed, unquoted fields trimmed), with the dialect, limits and fatal
// errors of csvHistograms. A ragged record and a bad row (invalid UTF-8, a NUL byte, text after a
// closing quote) are errors with line and column — there is no skip policy here. For files read
// as a whole, such as counts files (counts_file.h); the callback's error ends the pass and is
// returned. Returns the schema (delimiter, header names) on success.
using CsvRecordCallback =
    std::function<Status(std::int64_t line, const std::vector<std::string_view>& fields)>;
Expected<CsvSchema> csvForEachRecord(const std::string& path, const CsvOptions& options,
                                     const CsvRecordCallback& record);

// yyyy-mm-dd (a real calendar date, years 0001–9999) as days since 1970-01-01.
bool parseIsoDate(std::string_view text, std::int64_t& days);

}  // namespace dpx::data
