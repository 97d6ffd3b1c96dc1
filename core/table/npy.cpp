#include "core/table/npy.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "core/base/validation.h"
#include "core/histogram/dataset.h"  // formatShortest

namespace dpx {

namespace {

constexpr CellCount kMaxCells = CellCount{1} << 64;
constexpr std::string_view kMagic = "\x93NUMPY";

// --- the header: a Python dict literal ---------------------------------------------------------

struct HeaderValue {
    enum class Kind { String, Bool, Tuple, List } kind = Kind::String;
    std::string text;                    // String
    bool flag = false;                   // Bool
    std::vector<std::uint64_t> numbers;  // Tuple
};

class HeaderParser {
public:
    explicit HeaderParser(std::string_view s) : s_(s) {}

    Expected<std::vector<std::pair<std::string, HeaderValue>>> dict() {
        std::vector<std::pair<std::string, HeaderValue>> out;
        skip();
        if (!eat('{')) {
            return fail("it does not start with '{'");
        }
        while (true) {
            skip();
            if (eat('}')) {
                break;
            }
            auto key = string();
            if (!key) {
                return key.error();
            }
            skip();
            if (!eat(':')) {
                return fail("':' expected after the key '" + *key + "'");
            }
            skip();
            auto v = value();
            if (!v) {
                return v.error();
            }
            out.emplace_back(std::move(key).value(), std::move(v).value());
            skip();
            if (eat(',')) {
                continue;
            }
            skip();
            if (eat('}')) {
                break;
            }
            return fail("',' or '}' expected");
        }
        skip();
        if (i_ != s_.size()) {
            return fail("text after the closing '}'");
        }
        return out;
    }

private:
    Error fail(const std::string& what) const {
        return Error{"the .npy header is not a valid header dict (" + what + " at character " +
                     std::to_string(i_ + 1) + ")"};
    }
    void skip() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n')) {
            ++i_;
        }
    }
    bool eat(char c) {
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    Expected<std::string> string() {
        if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) {
            return fail("a quoted string expected");
        }
        const char q = s_[i_++];
        std::string out;
        while (i_ < s_.size() && s_[i_] != q) {
            if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
                ++i_;
            }
            out += s_[i_++];
        }
        if (!eat(q)) {
            return fail("an unterminated string");
        }
        return out;
    }
    Expected<HeaderValue> value() {
        HeaderValue v;
        if (i_ < s_.size() && (s_[i_] == '\'' || s_[i_] == '"')) {
            auto t = string();
            if (!t) {
                return t.error();
            }
            v.text = std::move(t).value();
            return v;
        }
        if (s_.substr(i_, 4) == "True") {
            i_ += 4;
            v.kind = HeaderValue::Kind::Bool;
            v.flag = true;
            return v;
        }
        if (s_.substr(i_, 5) == "False") {
            i_ += 5;
            v.kind = HeaderValue::Kind::Bool;
            return v;
        }
        if (eat('[')) {
            // A list descr: a structured dtype. Skip to the matching ']'.
            v.kind = HeaderValue::Kind::List;
            int depth = 1;
            while (i_ < s_.size() && depth > 0) {
                depth += s_[i_] == '[' ? 1 : s_[i_] == ']' ? -1 : 0;
                ++i_;
            }
            if (depth > 0) {
                return fail("an unterminated list");
            }
            return v;
        }
        if (eat('(')) {
            v.kind = HeaderValue::Kind::Tuple;
            while (true) {
                skip();
                if (eat(')')) {
                    return v;
                }
                if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') {
                    return fail("a non-negative whole number expected in the shape");
                }
                std::uint64_t n = 0;
                while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
                    const auto d = static_cast<std::uint64_t>(s_[i_] - '0');
                    if (n > (std::numeric_limits<std::uint64_t>::max() - d) / 10) {
                        return Error{"the .npy shape has an axis longer than 2^64 − 1"};
                    }
                    n = n * 10 + d;
                    ++i_;
                }
                eat('L');  // Python 2 longs
                v.numbers.push_back(n);
                skip();
                if (eat(',')) {
                    continue;
                }
                skip();
                if (eat(')')) {
                    return v;
                }
                return fail("',' or ')' expected in the shape");
            }
        }
        return fail("a string, True, False or a tuple expected");
    }

    std::string_view s_;
    std::size_t i_ = 0;
};

// --- dtypes ------------------------------------------------------------------------------------

enum class Kind { Bool, Signed, Unsigned, Float };

struct Dtype {
    Kind kind = Kind::Signed;
    std::size_t size = 8;
    bool bigEndian = false;
    std::string name;  // "int64"
};

Expected<Dtype> parseDtype(const std::string& descr) {
    auto refuse = [&](const std::string& why) {
        return Error{"the .npy dtype '" + descr + "' is not supported (" + why +
                     "); counts must be bool, int8…int64, uint8…uint64, float32 or float64"};
    };
    if (descr.size() < 2) {
        return refuse("not a NumPy type string");
    }
    const char order = descr[0];
    const char code = descr[1];
    const std::string sizeText = descr.substr(2);
    if (order != '<' && order != '>' && order != '|' && order != '=') {
        return refuse("not a NumPy type string");
    }
    switch (code) {
        case 'c':
            return refuse("complex numbers");
        case 'O':
            return refuse("Python objects");
        case 'U':
            return refuse("Unicode strings");
        case 'S':
        case 'a':
            return refuse("byte strings");
        case 'V':
            return refuse("raw or structured records");
        case 'M':
        case 'm':
            return refuse("dates and times");
        default:
            break;
    }
    std::size_t size = 0;
    for (char c : sizeText) {
        if (c < '0' || c > '9' || size > 64) {
            return refuse("not a NumPy type string");
        }
        size = size * 10 + static_cast<std::size_t>(c - '0');
    }
    Dtype d;
    d.size = size;
    d.bigEndian = order == '>';
    switch (code) {
        case 'b':
            if (size != 1) {
                return refuse("not a NumPy type string");
            }
            d.kind = Kind::Bool;
            d.name = "bool";
            break;
        case 'i':
        case 'u':
            if (size != 1 && size != 2 && size != 4 && size != 8) {
                return refuse(std::to_string(size * 8) + "-bit integers");
            }
            d.kind = code == 'i' ? Kind::Signed : Kind::Unsigned;
            d.name = std::string(code == 'i' ? "int" : "uint") + std::to_string(size * 8);
            break;
        case 'f':
            if (size == 2) {
                return refuse("float16, half precision");
            }
            if (size != 4 && size != 8) {
                return refuse(std::to_string(size * 8) + "-bit floats");
            }
            d.kind = Kind::Float;
            d.name = size == 4 ? "float32" : "float64";
            break;
        default:
            return refuse("not a NumPy type string");
    }
    if (size > 1 && order == '|') {
        return refuse("no byte order for a multi-byte type");
    }
    return d;
}

// Element i of the data as an unsigned integer of the dtype's size, in native byte order.
std::uint64_t rawElement(const unsigned char* p, std::size_t size, bool swap) {
    std::uint64_t v = 0;
    if (!swap) {
        for (std::size_t b = size; b-- > 0;) {
            v = (v << 8) | p[b];  // little-endian bytes
        }
    } else {
        for (std::size_t b = 0; b < size; ++b) {
            v = (v << 8) | p[b];  // big-endian bytes
        }
    }
    return v;
}

std::string positionText(const std::vector<std::uint64_t>& coords) {
    std::string s = "[";
    for (std::size_t a = 0; a < coords.size(); ++a) {
        s += (a ? ", " : "") + std::to_string(coords[a]);
    }
    return s + "]";
}

std::string shapeText(const std::vector<std::uint64_t>& shape) {
    std::string s = "(";
    for (std::size_t a = 0; a < shape.size(); ++a) {
        s += (a ? ", " : "") + std::to_string(shape[a]);
    }
    return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

bool looksLikeNpy(std::string_view bytes) {
    return bytes.substr(0, kMagic.size()) == kMagic;
}

Expected<NpyCounts> parseNpyCounts(std::string_view bytes) {
    static_assert(std::endian::native == std::endian::little,
                  "the .npy reader assumes a little-endian machine");
    if (!looksLikeNpy(bytes)) {
        return Error{"not a .npy file: it does not start with the magic bytes \\x93NUMPY"};
    }
    if (bytes.size() < 10) {
        return Error{"the .npy file is truncated inside its preamble (" +
                     std::to_string(bytes.size()) + " bytes)"};
    }
    NpyCounts out;
    out.majorVersion = static_cast<unsigned char>(bytes[6]);
    out.minorVersion = static_cast<unsigned char>(bytes[7]);
    if ((out.majorVersion < 1 || out.majorVersion > 3) || out.minorVersion != 0) {
        return Error{"the .npy format version " + std::to_string(out.majorVersion) + "." +
                     std::to_string(out.minorVersion) +
                     " is not supported (versions 1.0, 2.0 and 3.0 are)"};
    }
    std::size_t headerLen = 0, headerStart = 0;
    const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
    if (out.majorVersion == 1) {
        headerLen = std::size_t{u[8]} | (std::size_t{u[9]} << 8);
        headerStart = 10;
    } else {
        if (bytes.size() < 12) {
            return Error{"the .npy file is truncated inside its preamble (" +
                         std::to_string(bytes.size()) + " bytes)"};
        }
        headerLen = std::size_t{u[8]} | (std::size_t{u[9]} << 8) | (std::size_t{u[10]} << 16) |
                    (std::size_t{u[11]} << 24);
        headerStart = 12;
    }
    if (bytes.size() - headerStart < headerLen) {
        return Error{"the .npy file is truncated inside its header (the header should have " +
                     std::to_string(headerLen) + " bytes, the file has " +
                     std::to_string(bytes.size() - headerStart) + " after the preamble)"};
    }
    const std::string_view header = bytes.substr(headerStart, headerLen);
    auto dict = HeaderParser(header).dict();
    if (!dict) {
        return dict.error();
    }
    const HeaderValue* descr = nullptr;
    const HeaderValue* fortran = nullptr;
    const HeaderValue* shapeValue = nullptr;
    for (const auto& [key, v] : *dict) {
        if (key == "descr") {
            descr = &v;
        } else if (key == "fortran_order") {
            fortran = &v;
        } else if (key == "shape") {
            shapeValue = &v;
        } else {
            return Error{"the .npy header has an unknown key '" + key +
                         "' (expected descr, fortran_order and shape)"};
        }
    }
    if (!descr || !fortran || !shapeValue) {
        return Error{"the .npy header lacks " + std::string(!descr     ? "'descr'"
                                                            : !fortran ? "'fortran_order'"
                                                                       : "'shape'")};
    }
    if (descr->kind == HeaderValue::Kind::List) {
        return Error{
            "the .npy dtype is structured (a record of named fields) and not supported; "
            "counts must be bool, int8…int64, uint8…uint64, float32 or float64"};
    }
    if (descr->kind != HeaderValue::Kind::String || fortran->kind != HeaderValue::Kind::Bool ||
        shapeValue->kind != HeaderValue::Kind::Tuple) {
        return Error{
            "the .npy header is malformed (descr must be a string, fortran_order True "
            "or False, shape a tuple)"};
    }
    auto dtype = parseDtype(descr->text);
    if (!dtype) {
        return dtype.error();
    }
    out.dtype = descr->text;
    out.dtypeName = dtype->name;
    out.fortranOrder = fortran->flag;
    const std::vector<std::uint64_t>& shape = shapeValue->numbers;
    if (shape.empty()) {
        return Error{
            "the .npy array has no axis (a single number, shape ()); a table of counts "
            "needs 1 to " +
            std::to_string(kMaxAttributes) + " axes"};
    }
    if (shape.size() > kMaxAttributes) {
        return Error{"the .npy array has " + std::to_string(shape.size()) +
                     " axes; a table has at most " + std::to_string(kMaxAttributes)};
    }
    CellCount cells = 1;
    for (std::size_t a = 0; a < shape.size(); ++a) {
        if (shape[a] == 0) {
            return Error{"axis " + std::to_string(a) + " of the .npy array has length 0 (shape " +
                         shapeText(shape) + "): a table needs at least one cell"};
        }
        if (shape[a] > kMaxAttributeBins) {
            return Error{"axis " + std::to_string(a) + " of the .npy array has " +
                         std::to_string(shape[a]) + " positions; an attribute has at most " +
                         std::to_string(kMaxAttributeBins) + " bins"};
        }
        cells *= shape[a];  // ≤ 2⁶⁴ · 2³² < 2¹²⁸ before the check
        if (cells > kMaxCells) {
            return Error{"the .npy shape " + shapeText(shape) +
                         " has more than 2^64 cells, more than a table can address"};
        }
    }
    if (cells > kMaxNpyElements) {
        return Error{"the .npy array has " + cellCountText(cells) + " elements, more than the " +
                     std::to_string(kMaxNpyElements) +
                     " this reader loads (a sparse table belongs in a long counts CSV)"};
    }
    const auto n = static_cast<std::uint64_t>(cells);
    const std::size_t dataStart = headerStart + headerLen;
    const std::uint64_t need = n * dtype->size;
    const std::uint64_t have = bytes.size() - dataStart;
    if (have < need) {
        return Error{"the .npy file is truncated: shape " + shapeText(shape) + " of " +
                     dtype->name + " needs " + std::to_string(need) +
                     " bytes of data, the file has " + std::to_string(have)};
    }
    if (have > need) {
        return Error{"the .npy file has " + std::to_string(have - need) +
                     " bytes after the data of shape " + shapeText(shape) + " of " + dtype->name +
                     " (several arrays in one file? an .npz archive must be unpacked first)"};
    }

    // C-order strides, and the walk over the file's elements (Fortran order: axis 0 fastest).
    const std::size_t k = shape.size();
    std::vector<std::uint64_t> stride(k, 1);
    for (std::size_t a = k - 1; a-- > 0;) {
        stride[a] = stride[a + 1] * shape[a + 1];
    }
    std::vector<std::uint64_t> coords(k, 0);
    auto coordsOfC = [&](std::uint64_t index) {
        std::vector<std::uint64_t> c(k);
        for (std::size_t a = 0; a < k; ++a) {
            c[a] = index / stride[a];
            index %= stride[a];
        }
        return c;
    };
    const bool dense = n <= kMaxDenseCells;
    std::vector<std::int64_t> denseCounts;
    std::vector<TableCell> sparse;
    if (dense) {
        denseCounts.assign(static_cast<std::size_t>(n), 0);
    }
    std::int64_t total = 0;
    const bool swap = dtype->bigEndian && dtype->size > 1;
    const unsigned char* data = u + dataStart;
    std::uint64_t cIndex = 0;  // C index of element p
    for (std::uint64_t p = 0; p < n; ++p) {
        if (out.fortranOrder && p > 0) {
            // Next Fortran position: increment axis 0, carrying into the later axes.
            for (std::size_t a = 0; a < k; ++a) {
                if (++coords[a] < shape[a]) {
                    cIndex += stride[a];
                    break;
                }
                cIndex -= (shape[a] - 1) * stride[a];
                coords[a] = 0;
            }
        } else if (!out.fortranOrder) {
            cIndex = p;
        }
        auto where = [&] { return positionText(out.fortranOrder ? coords : coordsOfC(cIndex)); };
        const std::uint64_t raw = rawElement(data + p * dtype->size, dtype->size, swap);
        std::int64_t count = 0;
        switch (dtype->kind) {
            case Kind::Bool:
                if (raw > 1) {
                    return Error{"the .npy bool at " + where() + " holds the byte " +
                                 std::to_string(raw) + ", not 0 or 1"};
                }
                count = static_cast<std::int64_t>(raw);
                break;
            case Kind::Signed: {
                const unsigned bits = static_cast<unsigned>(dtype->size * 8);
                // Sign-extend the raw bits of the element.
                const std::uint64_t signBit = std::uint64_t{1} << (bits - 1);
                const std::int64_t v = bits == 64 ? static_cast<std::int64_t>(raw)
                                                  : static_cast<std::int64_t>(raw ^ signBit) -
                                                        static_cast<std::int64_t>(signBit);
                if (v < 0) {
                    return Error{"the .npy count at " + where() + " is negative (" +
                                 std::to_string(v) + "); counts must be ≥ 0"};
                }
                count = v;
                break;
            }
            case Kind::Unsigned:
                if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                    return Error{"the .npy count at " + where() + " is " + std::to_string(raw) +
                                 ", beyond the largest count 2^63 − 1"};
                }
                count = static_cast<std::int64_t>(raw);
                break;
            case Kind::Float: {
                double v = 0;
                if (dtype->size == 4) {
                    v = static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(raw)));
                } else {
                    v = std::bit_cast<double>(raw);
                }
                if (std::isnan(v) || std::isinf(v)) {
                    return Error{"the .npy count at " + where() + " is " +
                                 (std::isnan(v) ? std::string("NaN")
                                                : std::string(v > 0 ? "+inf" : "-inf")) +
                                 "; counts must be finite whole numbers ≥ 0"};
                }
                if (v < 0) {
                    return Error{"the .npy count at " + where() + " is negative (" +
                                 formatShortest(v) + "); counts must be ≥ 0"};
                }
                if (std::floor(v) != v) {
                    return Error{"the .npy count at " + where() + " is fractional (" +
                                 formatShortest(v) + "); counts must be whole numbers"};
                }
                // 2⁶³ is the first double beyond the int64 range.
                if (v >= 9223372036854775808.0) {
                    return Error{"the .npy count at " + where() + " is " + formatShortest(v) +
                                 ", beyond the largest count 2^63 − 1"};
                }
                count = static_cast<std::int64_t>(v);
                break;
            }
        }
        if (__builtin_add_overflow(total, count, &total)) {
            return Error{"the .npy counts add up to more than 2^63 − 1 (at " + where() + ")"};
        }
        if (dense) {
            denseCounts[static_cast<std::size_t>(cIndex)] = count;
        } else if (count != 0) {
            sparse.push_back({cIndex, count});
        }
    }
    std::vector<Attribute> attributes;
    for (std::size_t a = 0; a < k; ++a) {
        attributes.push_back(indexAttribute("axis " + std::to_string(a), shape[a]));
    }
    auto table = dense ? ContingencyTable::dense(std::move(attributes), std::move(denseCounts))
                       : ContingencyTable::fromCells(std::move(attributes), std::move(sparse));
    if (!table) {
        return table.error();
    }
    out.table = std::move(table).value();
    return out;
}

}  // namespace dpx
