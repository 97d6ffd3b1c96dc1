// The .npy reader (core/table/npy). References: files written byte by byte here from the format
// description (NEP 1: magic, version, header length, header dict, raw elements), with known values
// v(i, j, …) = a formula of the C index, so every cell is checked; and, when python3-numpy is
// installed, files written by numpy.save itself (that case skips otherwise).
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/table/npy.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

// The header dict as numpy writes it, padded so that the data starts at a multiple of 64.
std::string npyBytes(const std::string& descr, bool fortran, const std::string& shape,
                     const std::string& data, int major = 1) {
    std::string dict = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
    const std::size_t pre = major == 1 ? 10 : 12;
    std::size_t len = dict.size() + 1;
    while ((pre + len) % 64 != 0) {
        ++len;
    }
    dict.resize(len - 1, ' ');
    dict += '\n';
    std::string s = "\x93NUMPY";
    s += static_cast<char>(major);
    s += '\0';
    for (std::size_t b = 0; b < (major == 1 ? 2u : 4u); ++b) {
        s += static_cast<char>((len >> (8 * b)) & 0xFF);
    }
    return s + dict + data;
}

// n elements of `size` bytes from the integer values, in the given byte order.
template <class T>
std::string elements(const std::vector<T>& values, bool bigEndian) {
    std::string s;
    for (T v : values) {
        char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        if (bigEndian) {
            std::reverse(b, b + sizeof(T));
        }
        s.append(b, sizeof(T));
    }
    return s;
}

// Values of a 2 × 3 × 4 array: v = (7·c + 3) mod 11 for C index c.
std::vector<std::int64_t> expected24() {
    std::vector<std::int64_t> v;
    for (int c = 0; c < 24; ++c) {
        v.push_back((7 * c + 3) % 11);
    }
    return v;
}

// The same values in Fortran order (axis 0 fastest).
template <class T>
std::vector<T> fortran24() {
    const std::vector<std::int64_t> c = expected24();
    std::vector<T> f;
    for (int k = 0; k < 4; ++k) {
        for (int j = 0; j < 3; ++j) {
            for (int i = 0; i < 2; ++i) {
                f.push_back(static_cast<T>(c[static_cast<std::size_t>((i * 3 + j) * 4 + k)]));
            }
        }
    }
    return f;
}

template <class T>
std::vector<T> c24() {
    std::vector<T> out;
    for (std::int64_t v : expected24()) {
        out.push_back(static_cast<T>(v));
    }
    return out;
}

template <class T>
void checkType(const char* code) {
    for (const bool big : {false, true}) {
        for (const bool fortran : {false, true}) {
            const std::string descr =
                (sizeof(T) == 1 ? std::string("|") : std::string(big ? ">" : "<")) + code;
            const std::string data =
                elements(fortran ? fortran24<T>() : c24<T>(), big && sizeof(T) > 1);
            auto r = parseNpyCounts(npyBytes(descr, fortran, "(2, 3, 4)", data));
            QVERIFY2(r, r ? descr.c_str() : (descr + ": " + r.error().message).c_str());
            QCOMPARE(r->table.shape(), (std::vector<std::uint64_t>{2, 3, 4}));
            QCOMPARE(r->table.denseCounts(), expected24());
            QCOMPARE(r->fortranOrder, fortran);
            QCOMPARE(r->table.attribute(1).name, std::string("axis 1"));
            QCOMPARE(r->table.attribute(2).labels, (std::vector<std::string>{"0", "1", "2", "3"}));
        }
    }
}

std::string errorOf(const std::string& bytes) {
    auto r = parseNpyCounts(bytes);
    return r ? std::string("(no error)") : r.error().message;
}

#define EXPECT_NPY_ERROR(bytes, needle)                                                        \
    do {                                                                                       \
        const std::string m_ = errorOf(bytes);                                                 \
        QVERIFY2(m_.find(needle) != std::string::npos, (m_ + " | wanted: " + needle).c_str()); \
    } while (false)

}  // namespace

class TestNpy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyDtypeOrderAndByteOrder() {
        checkType<std::int8_t>("i1");
        checkType<std::uint8_t>("u1");
        checkType<std::int16_t>("i2");
        checkType<std::uint16_t>("u2");
        checkType<std::int32_t>("i4");
        checkType<std::uint32_t>("u4");
        checkType<std::int64_t>("i8");
        checkType<std::uint64_t>("u8");
        checkType<float>("f4");
        checkType<double>("f8");
    }

    void boolAndVersions() {
        const std::vector<std::uint8_t> bits = {1, 0, 1, 1};
        for (int major : {1, 2, 3}) {
            auto r = parseNpyCounts(npyBytes("|b1", false, "(4,)", elements(bits, false), major));
            QVERIFY2(r, r ? "" : r.error().message.c_str());
            QCOMPARE(r->majorVersion, major);
            QCOMPARE(r->table.denseCounts(), (std::vector<std::int64_t>{1, 0, 1, 1}));
            QCOMPARE(r->dtypeName, std::string("bool"));
        }
        EXPECT_NPY_ERROR(npyBytes("|b1", false, "(1,)", std::string(1, '\x02')), "not 0 or 1");
    }

    // 32 axes (the most a table has), 2 of them of length 2; and a domain past 2²⁴ cells read
    // sparsely: 2²⁵ int8 zeros with three counts.
    void manyAxesAndSparse() {
        std::string shape = "(";
        for (int a = 0; a < 32; ++a) {
            shape += (a == 5 || a == 31) ? "2, " : "1, ";
        }
        shape += ")";
        const std::vector<std::int16_t> v = {4, 0, 0, 9};
        auto r = parseNpyCounts(npyBytes("<i2", false, shape, elements(v, false)));
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->table.attributeCount(), std::size_t{32});
        QCOMPARE(r->table.denseCounts(), (std::vector<std::int64_t>{4, 0, 0, 9}));
        std::string big(std::size_t{1} << 25, '\0');
        big[5] = 3;
        big[(std::size_t{1} << 24) + 1] = 1;
        big.back() = 7;
        auto s = parseNpyCounts(npyBytes("|u1", false, "(32, 1048576)", big));
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        QVERIFY(!s->table.isDense());
        QCOMPARE(s->table.total(), std::int64_t{11});
        QCOMPARE(s->table.occupiedCount(), std::uint64_t{3});
        QCOMPARE(s->table.count((std::uint64_t{1} << 25) - 1), std::int64_t{7});
        QCOMPARE(s->table.count(5), std::int64_t{3});
    }

    void refusedDtypesNameTheType() {
        EXPECT_NPY_ERROR(npyBytes("<c16", false, "(1,)", std::string(16, '\0')), "complex");
        EXPECT_NPY_ERROR(npyBytes("|O", false, "(1,)", std::string(8, '\0')), "objects");
        EXPECT_NPY_ERROR(npyBytes("<f2", false, "(1,)", std::string(2, '\0')), "float16");
        EXPECT_NPY_ERROR(npyBytes("<f2", false, "(1,)", std::string(2, '\0')), "'<f2'");
        EXPECT_NPY_ERROR(npyBytes("<U5", false, "(1,)", std::string(20, '\0')), "'<U5'");
        EXPECT_NPY_ERROR(npyBytes("<U5", false, "(1,)", std::string(20, '\0')), "Unicode");
        EXPECT_NPY_ERROR(npyBytes("<M8[D]", false, "(1,)", std::string(8, '\0')), "dates");
        // A structured dtype: descr is a list of fields.
        std::string dict = "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }";
        dict.resize(117, ' ');
        dict += '\n';
        std::string file = std::string("\x93NUMPY\x01\x00", 8);
        file += static_cast<char>(dict.size());
        file += '\0';
        file += dict + std::string(4, '\0');
        EXPECT_NPY_ERROR(file, "structured");
    }

    void badCountsWithTheirPosition() {
        // C order, 3 × 4: element [1, 2] is C index 6.
        std::vector<std::int32_t> v(12, 1);
        v[6] = -5;
        EXPECT_NPY_ERROR(npyBytes("<i4", false, "(3, 4)", elements(v, false)), "[1, 2]");
        EXPECT_NPY_ERROR(npyBytes("<i4", false, "(3, 4)", elements(v, false)), "negative");
        // Fortran order: file position 7 of a 3 × 4 array is [1, 2] (7 = 1 + 3·2).
        std::vector<double> f(12, 2.0);
        f[7] = 2.5;
        EXPECT_NPY_ERROR(npyBytes("<f8", true, "(3, 4)", elements(f, false)), "[1, 2]");
        EXPECT_NPY_ERROR(npyBytes("<f8", true, "(3, 4)", elements(f, false)), "fractional");
        f[7] = std::numeric_limits<double>::quiet_NaN();
        EXPECT_NPY_ERROR(npyBytes("<f8", true, "(3, 4)", elements(f, false)), "NaN");
        f[7] = std::numeric_limits<double>::infinity();
        EXPECT_NPY_ERROR(npyBytes("<f8", true, "(3, 4)", elements(f, false)), "+inf");
        f[7] = -1;
        EXPECT_NPY_ERROR(npyBytes("<f8", true, "(3, 4)", elements(f, false)), "negative");
        const std::vector<float> g = {1.0f, 0.5f};
        EXPECT_NPY_ERROR(npyBytes("<f4", false, "(2,)", elements(g, false)), "[1]");
        // uint64 beyond int64, and a sum beyond int64.
        const std::vector<std::uint64_t> huge = {1, std::uint64_t{1} << 63};
        EXPECT_NPY_ERROR(npyBytes("<u8", false, "(2,)", elements(huge, false)), "2^63");
        const std::vector<std::int64_t> sum = {std::numeric_limits<std::int64_t>::max(), 1};
        EXPECT_NPY_ERROR(npyBytes("<i8", false, "(2,)", elements(sum, false)), "add up");
        const std::vector<double> big = {9223372036854775808.0};
        EXPECT_NPY_ERROR(npyBytes("<f8", false, "(1,)", elements(big, false)), "2^63");
    }

    void badFiles() {
        const std::vector<std::int64_t> v = {1, 2, 3, 4};
        const std::string good = npyBytes("<i8", false, "(4,)", elements(v, false));
        QVERIFY(parseNpyCounts(good));
        EXPECT_NPY_ERROR("PK\x03\x04 not npy", "magic");
        EXPECT_NPY_ERROR(good.substr(0, good.size() - 3), "truncated");
        EXPECT_NPY_ERROR(good.substr(0, 30), "truncated inside its header");
        EXPECT_NPY_ERROR(good.substr(0, 8), "preamble");
        EXPECT_NPY_ERROR(good + "xx", "after the data");
        std::string v9 = good;
        v9[6] = 9;
        EXPECT_NPY_ERROR(v9, "version 9.0");
        EXPECT_NPY_ERROR(npyBytes("<i8", false, "(4", elements(v, false)), "header");
        EXPECT_NPY_ERROR(npyBytes("<i8", false, "()", ""), "no axis");
        EXPECT_NPY_ERROR(npyBytes("<i8", false, "(0, 3)", ""), "length 0");
        // 2³² × 2³² × 2 cells: past the 2⁶⁴ cells a table can address, said before any data.
        EXPECT_NPY_ERROR(npyBytes("<i8", false, "(4294967296, 4294967296, 2)", ""), "2^64");
        // Exactly 2⁶⁴ cells is a valid domain, but far beyond what a file of counts can hold.
        EXPECT_NPY_ERROR(npyBytes("<i8", false, "(4294967296, 4294967296)", ""), "elements");
        std::string axes = "(";
        for (int a = 0; a < 33; ++a) {
            axes += "1, ";
        }
        EXPECT_NPY_ERROR(
            npyBytes("<i8", false, axes + ")", elements(std::vector<std::int64_t>{1}, false)),
            "33 axes");
        std::string extraKey = good;
        const auto at = extraKey.find("'shape'");
        extraKey.replace(at, 7, "'shapf'");
        EXPECT_NPY_ERROR(extraKey, "'shapf'");
    }

    // Files written by numpy.save itself, when numpy is there.
    void crossCheckWithNumpy() {
        // Debian's interpreter first (python3-numpy installs there), then the one on PATH.
        QString python;
        for (const QString& candidate :
             {QStringLiteral("/usr/bin/python3"), QStringLiteral("python3")}) {
            QProcess probe;
            probe.start(candidate, {QStringLiteral("-c"), QStringLiteral("import numpy")});
            if (probe.waitForFinished(30000) && probe.exitStatus() == QProcess::NormalExit &&
                probe.exitCode() == 0) {
                python = candidate;
                break;
            }
        }
        if (python.isEmpty()) {
            QSKIP("python3 with numpy is not installed (Debian python3-numpy)");
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString script = QStringLiteral(
            "import numpy as np, sys\n"
            "d = sys.argv[1]\n"
            "c = np.array([(7 * i + 3) % 11 for i in range(24)]).reshape(2, 3, 4)\n"
            "for t in ['<i2', '>i4', '<u8', '>f4', '<f8', '|u1']:\n"
            "    np.save(d + '/c_' + t.replace('<', 'l').replace('>', 'b').replace('|', 'n') + "
            "'.npy', c.astype(t))\n"
            "    np.save(d + '/f_' + t.replace('<', 'l').replace('>', 'b').replace('|', 'n') + "
            "'.npy', np.asfortranarray(c.astype(t)))\n"
            "np.save(d + '/bool.npy', c > 5)\n");
        QProcess py;
        py.start(python, {QStringLiteral("-c"), script, dir.path()});
        QVERIFY(py.waitForFinished(60000));
        QCOMPARE(py.exitCode(), 0);
        int files = 0;
        for (const QString& name : QDir(dir.path()).entryList({QStringLiteral("*.npy")})) {
            std::ifstream in((dir.path() + QLatin1Char('/') + name).toStdString(),
                             std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            auto r = parseNpyCounts(ss.str());
            QVERIFY2(r, r ? "" : (name.toStdString() + ": " + r.error().message).c_str());
            std::vector<std::int64_t> want = expected24();
            if (name == QStringLiteral("bool.npy")) {
                for (auto& x : want) {
                    x = x > 5 ? 1 : 0;
                }
            }
            QCOMPARE(r->table.denseCounts(), want);
            QCOMPARE(r->fortranOrder, name.startsWith(QStringLiteral("f_")));
            ++files;
        }
        QCOMPARE(files, 13);
    }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "tst_npy.moc"
