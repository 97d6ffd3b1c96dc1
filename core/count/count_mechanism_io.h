// Reading and writing count-query mechanism matrices (core/count/count_mechanism.h) as text: CSV
// and a minimal JSON form. Row i of the file is output i, so P[i][j] is line i+1, field j+1 of the
// CSV and matrix[i][j] of the JSON. No library: the JSON reader is a small strict parser for
// exactly the shape {"matrix": [[...], [...], ...]}.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"
#include "core/count/count_mechanism.h"

namespace dpx {

// One line per output row i: P[i][0], ..., P[i][n], comma-separated, each with 17 significant
// digits (round-trips every double exactly), "\n" after every line, no header.
std::string toCsv(const CountMechanism& m);

// Reads what toCsv writes, and a little more: fields separated by ',' or ';' (one kind per file:
// ';' if the text contains any ';', else ','; decimal commas are not supported), spaces and tabs
// around fields, CRLF or LF line ends, an optional final line end, a leading '+'. Rejected, with
// the line and column (1-based) in the message: empty input, blank lines, empty fields, text that
// is not a number, non-finite or negative values, ragged rows, a non-square matrix, and anything
// else CountMechanism::fromRows rejects (size, column sums).
Expected<CountMechanism> fromCsv(std::string_view text, std::string name = "custom");

// The grid of numbers under fromCsv's rules (separators, blanks, line ends, finite and ≥ 0, no
// ragged rows, errors with line and column), without the matrix rules: e.g. an LP cost matrix.
// Reading stops after kMaxCountPeople + 2 lines (the caller checks the shape).
Expected<std::vector<std::vector<double>>> readNumberGridCsv(std::string_view text);

// {"matrix": [[P[0][0], ..., P[0][n]], ..., [P[n][0], ..., P[n][n]]]} with one row per line and
// 17 significant digits, followed by "\n".
std::string toJson(const CountMechanism& m);

// Reads exactly one JSON object whose only key is "matrix", an array of rows, each an array of
// JSON numbers; whitespace is free. Anything else (other keys, strings, null, nested objects,
// trailing text, NaN/Infinity, numbers outside the JSON grammar) is rejected with the line and
// column (1-based) of the offending character; the matrix itself must pass
// CountMechanism::fromRows.
Expected<CountMechanism> fromJson(std::string_view text, std::string name = "custom");

}  // namespace dpx
