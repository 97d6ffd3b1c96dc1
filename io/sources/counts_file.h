// Pre-aggregated counts (issue #19): a table someone already has as counts, from a file.
//  - NumPy .npy (format 1.0–3.0): 1-D … 32-D arrays of integer (int8…int64, uint8…uint64, bool)
//    or float (float32, float64) counts, little- or big-endian, C or Fortran order; every value
//    must be a whole number ≥ 0 (floats too). Axes are attributes "axis 0", "axis 1", … with bins
//    "0", "1", …; an unsupported dtype (complex, object, string, float16, structured), a negative
//    or fractional count (with its position, e.g. "[3, 17]"), a truncated file or a bad header is
//    an error that names the problem.
//  - CSV/TSV of counts, read with the one CSV reader, in one of three layouts:
//      long:   one column per attribute and a column of counts (named by `countColumn`, default
//              "count"); the attributes' bins are the values found, sorted (numbers ascending),
//              unless declared;
//      vector: one column of counts (optionally with a header), a 1-attribute table;
//      matrix: a rectangle of counts without attribute columns, a 2-attribute table (rows × cols).
//    Negative, fractional or non-numeric counts are refused with line and column.
#pragma once

#include <string>

#include "core/base/expected.h"
#include "core/table/table.h"

namespace dpx::data {

enum class CountsLayout { Auto, Long, Vector, Matrix, Npy };
const char* countsLayoutName(CountsLayout layout);  // "auto", "long", "vector", "matrix", "npy"
Expected<CountsLayout> countsLayoutFromName(const std::string& name);

struct CountsFileOptions {
    // Auto: .npy by its magic bytes; a CSV with a column named `countColumn` is long; one column
    // is a vector; otherwise a matrix of numbers.
    CountsLayout layout = CountsLayout::Auto;
    std::string countColumn = "count";
};

struct CountsFile {
    ContingencyTable table;
    CountsLayout layout = CountsLayout::Auto;  // the layout that was read
    std::string description;                   // "4096 counts from hist.npy (int64, C order)"
};

Expected<CountsFile> readCountsFile(const std::string& path, const CountsFileOptions& options = {});

}  // namespace dpx::data
