// NumPy .npy arrays of counts (issue #19), the format public benchmark histograms come in. The
// format is NumPy's NEP 1 ("A simple file format for NumPy arrays", R. Kern, 2007; versions 2.0
// and 3.0 added in NumPy 1.9 and 1.17): the magic "\x93NUMPY", a major and minor version byte, a
// little-endian header length (2 bytes in 1.0, 4 bytes in 2.0 and 3.0), a header that is a Python
// dict literal {'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), } (latin-1 in 1.0/2.0,
// UTF-8 in 3.0) padded with spaces and ended by '\n', then the raw elements.
//
// Read here: dtypes bool (|b1), int8…int64, uint8…uint64, float32 and float64, little- ('<') or
// big-endian ('>'; '|' and '=' for one byte, '=' as little-endian for wider types on the
// little-endian machines this runs on), C or Fortran order, 1 to 32 axes. Every element must be a
// whole number ≥ 0 — float counts too — and the total at most 2⁶³ − 1.
// Refused with a message that names the problem: another dtype (complex, object, strings like
// '<U5', float16 '<f2', datetimes, structured dtypes), a negative, fractional, NaN or infinite
// count with its position ("[3, 17]"), an unsigned count beyond 2⁶³ − 1, a shape whose cells
// exceed 2⁶⁴ (or whose data would exceed kMaxNpyElements), a truncated file or bytes after the
// data, a bad magic, version or header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/expected.h"
#include "core/table/table.h"

namespace dpx {

// Most elements read from one file (2²⁸: 2 GiB of int64).
inline constexpr std::uint64_t kMaxNpyElements = std::uint64_t{1} << 28;

struct NpyCounts {
    ContingencyTable table;     // attributes "axis 0", "axis 1", … with bins "0", "1", …
    std::string dtype;          // as in the header, e.g. "<i8"
    std::string dtypeName;      // "int64", "float32", "bool", …
    bool fortranOrder = false;  // the file's order (the table is always in C order)
    int majorVersion = 1, minorVersion = 0;
};

// Parses the bytes of a whole .npy file.
Expected<NpyCounts> parseNpyCounts(std::string_view bytes);

// True if the bytes start with the .npy magic "\x93NUMPY".
bool looksLikeNpy(std::string_view bytes);

}  // namespace dpx
