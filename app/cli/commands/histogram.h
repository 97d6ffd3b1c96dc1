// dpx histogram: one-pass histograms of columns of a data source (issue #5), JSON on `out`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "io/sources/csv_reader.h"
#include "io/sources/data_source.h"
#include "io/sources/sql_source.h"

namespace dpx::cli {

// What `dpx histogram` asks of a source.
struct HistogramQuery {
    std::string data;   // --data: a CSV/TSV path, sqlite:PATH or postgresql://...
    std::string table;  // --table: database sources only
    std::vector<data::ColumnRequest> requests;
    data::ContributionCap cap;
    data::CsvOptions csv;  // --delimiter, --no-header, --on-error, --type, --threads
    // --sql-dialect: the SQL of a database source (auto: the driver's or the database's own).
    data::SqlDialect dialect = data::SqlDialect::Auto;
    bool dialectGiven = false;
};

// The one place that picks the source from --data: "sqlite:" → SQLite file, "postgresql://" or
// "postgres://" → PostgreSQL server, anything else → a CSV/TSV file.
Expected<data::SourceHistograms> histogramsFromSource(const HistogramQuery& query);

// The joint table of the requested columns (issue #19), from the same sources in one pass:
// csvJointTable for a file, jointTableFromUri (one GROUP BY) for a database.
Expected<data::SourceTable> jointTableFromSource(const HistogramQuery& query);

// argv[1] == "histogram". Exit codes as the other subcommands (0, 2 bad input, 1 failure).
int cmdHistogram(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
