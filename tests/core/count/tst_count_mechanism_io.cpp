// CSV and JSON text forms of count-query mechanism matrices (core/count/count_mechanism_io.h):
// bit-exact round trips, the accepted variants (CRLF, ';', spaces, no final newline) and every
// rejection, whose message must say where in the text the problem is.
#include <QTest>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/count/count_mechanism.h"
#include "core/count/count_mechanism_io.h"
#include "tests/testing/test_support.h"

using namespace dpx;

Q_DECLARE_METATYPE(std::string)

namespace {

// Bit-for-bit equality of two matrices (memcmp, so −0 ≠ +0 would be caught too).
bool sameBits(const CountMechanism& a, const CountMechanism& b) {
    return a.size() == b.size() && std::memcmp(a.rowMajor().data(), b.rowMajor().data(),
                                               a.rowMajor().size() * sizeof(double)) == 0;
}

// Random column-stochastic matrix with awkward values: each column is random numbers divided by
// their sum (so 17 digits are needed), and one column holds a subnormal entry.
CountMechanism randomMatrix(std::size_t size, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::vector<double>> rows(size, std::vector<double>(size));
    for (std::size_t j = 0; j < size; ++j) {
        double sum = 0;
        for (std::size_t i = 0; i < size; ++i) {
            rows[i][j] = u(rng);
            sum += rows[i][j];
        }
        for (std::size_t i = 0; i < size; ++i) {
            rows[i][j] /= sum;
        }
    }
    rows[1][0] += rows[0][0];
    rows[0][0] = 4.9406564584124654e-324;
    auto m = CountMechanism::fromRows(rows);
    return m.value();
}

std::vector<CountMechanism> samples() {
    return {truncatedGeometric(5, 0.3).value(),
            truncatedGeometric(40, 2.0).value(),
            explicitFair(7, 0.1).value(),
            uniformMechanism(3).value(),
            randomizedResponse(std::log(3.0)).value(),
            generalizedRandomizedResponse(4, 1.0).value(),
            randomMatrix(6, 1),
            randomMatrix(13, 2)};
}

}  // namespace

class TestCountMechanismIo : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void csvRoundTrip();
    void jsonRoundTrip();
    void csvFormat();
    void jsonFormat();
    void csvVariants();
    void jsonWhitespace();
    void csvRejects_data();
    void csvRejects();
    void jsonRejects_data();
    void jsonRejects();
    void sizeLimit();
};

void TestCountMechanismIo::csvRoundTrip() {
    for (const CountMechanism& m : samples()) {
        const auto back = fromCsv(toCsv(m));
        DPX_VERIFY_OK(back);
        QVERIFY2(sameBits(m, *back), m.name().c_str());
    }
}

void TestCountMechanismIo::jsonRoundTrip() {
    for (const CountMechanism& m : samples()) {
        const auto back = fromJson(toJson(m));
        DPX_VERIFY_OK(back);
        QVERIFY2(sameBits(m, *back), m.name().c_str());
    }
}

void TestCountMechanismIo::csvFormat() {
    // Randomized response at α = 1/3: 1/(1+α) = 0.75, α/(1+α) = 0.25, exact in binary.
    const auto rr = randomizedResponse(std::log(3.0));
    DPX_VERIFY_OK(rr);
    QCOMPARE(toCsv(*rr), std::string("0.75,0.25\n0.25,0.75\n"));
    // 17 significant digits: 1/3 is written as 0.33333333333333331.
    const auto um = uniformMechanism(2);
    DPX_VERIFY_OK(um);
    const std::string third = "0.33333333333333331";
    const std::string line = third + "," + third + "," + third + "\n";
    QCOMPARE(toCsv(*um), line + line + line);
}

void TestCountMechanismIo::jsonFormat() {
    const auto rr = randomizedResponse(std::log(3.0));
    DPX_VERIFY_OK(rr);
    QCOMPARE(toJson(*rr), std::string("{\"matrix\": [\n  [0.75, 0.25],\n  [0.25, 0.75]\n]}\n"));
}

void TestCountMechanismIo::csvVariants() {
    const auto expected = CountMechanism::fromRows({{0.75, 0.5}, {0.25, 0.5}});
    DPX_VERIFY_OK(expected);
    for (const char* text : {
             "0.75,0.5\n0.25,0.5\n",          // canonical
             "0.75,0.5\n0.25,0.5",            // no final newline
             "0.75,0.5\r\n0.25,0.5\r\n",      // CRLF
             "0.75,0.5\r\n0.25,0.5",          // CRLF, no final line end
             "0.75;0.5\n0.25;0.5\n",          // semicolons
             "0.75;0.5\r\n0.25;0.5\r\n",      // semicolons and CRLF
             " 0.75 ,\t0.5 \n+0.25, 5e-1\n",  // blanks, '+', exponent
             "7.5e-1,0.50\n2.5E-1,.5\n",      // from_chars forms
         }) {
        const auto m = fromCsv(text);
        DPX_VERIFY_OK(m);
        QVERIFY2(sameBits(*m, *expected), text);
    }
}

void TestCountMechanismIo::jsonWhitespace() {
    const auto expected = CountMechanism::fromRows({{0.75, 0.5}, {0.25, 0.5}});
    DPX_VERIFY_OK(expected);
    for (const char* text : {
             "{\"matrix\":[[0.75,0.5],[0.25,0.5]]}",
             " \r\n{ \"matrix\" :\n [ [ 0.75 , 0.5 ] ,\r\n\t[ 2.5e-1 , 5E-1 ] ] }\n\n",
             "{\"matrix\":[[7.5e-1,0.5],[0.25,0.50]]}",
         }) {
        const auto m = fromJson(text);
        DPX_VERIFY_OK(m);
        QVERIFY2(sameBits(*m, *expected), text);
    }
}

void TestCountMechanismIo::csvRejects_data() {
    QTest::addColumn<std::string>("text");
    QTest::addColumn<std::string>("needles");  // '|'-separated, one must appear
    QTest::newRow("empty") << std::string() << std::string("empty");
    QTest::newRow("blanks only") << std::string(" \r\n\n") << std::string("empty");
    QTest::newRow("ragged") << std::string("0.5,0.5\n0.5\n") << std::string("line 2");
    QTest::newRow("ragged longer") << std::string("1,0\n0,1,0\n") << std::string("line 2");
    QTest::newRow("non-number") << std::string("0.5,0.5\n0.5,abc\n")
                                << std::string("line 2, column 2");
    QTest::newRow("trailing junk")
        << std::string("0.5,0.5x\n0.5,0.5\n") << std::string("line 1, column 2");
    QTest::newRow("empty field") << std::string("0.5,,0\n") << std::string("line 1, column 2");
    QTest::newRow("trailing separator")
        << std::string("1,0,\n0,1,\n") << std::string("line 1, column 3");
    QTest::newRow("blank line inside") << std::string("1,0\n\n0,1\n") << std::string("line 2");
    QTest::newRow("two final newlines") << std::string("1,0\n0,1\n\n") << std::string("line 3");
    QTest::newRow("nan") << std::string("1,0\n0,nan\n") << std::string("line 2, column 2");
    QTest::newRow("inf") << std::string("inf,0\n0,1\n") << std::string("line 1, column 1");
    QTest::newRow("out of range") << std::string("1e400,0\n0,1\n")
                                  << std::string("line 1, column 1");
    QTest::newRow("negative") << std::string("1.5,0\n-0.5,1\n") << std::string("line 2, column 1");
    QTest::newRow("not square") << std::string("1,0,0\n0,1,1\n") << std::string("square");
    QTest::newRow("one row") << std::string("1\n") << std::string("between 2");
    QTest::newRow("column sum") << std::string("0.5,0.5\n0.4,0.5\n") << std::string("column 0");
    QTest::newRow("decimal comma with semicolons")
        << std::string("0,5;0,5\n0,5;0,5\n") << std::string("line 1, column 1");
    QTest::newRow("mixed separators")
        << std::string("1;0\n0,1\n") << std::string("line 2, column 1");
}

void TestCountMechanismIo::csvRejects() {
    QFETCH(std::string, text);
    QFETCH(std::string, needles);
    DPX_VERIFY_ERROR(fromCsv(text), needles.c_str());
}

void TestCountMechanismIo::jsonRejects_data() {
    QTest::addColumn<std::string>("text");
    QTest::addColumn<std::string>("needles");
    QTest::newRow("empty") << std::string() << std::string("empty");
    QTest::newRow("blanks") << std::string(" \n ") << std::string("empty");
    QTest::newRow("bare array") << std::string("[[1,0],[0,1]]") << std::string("line 1, column 1");
    QTest::newRow("empty object") << std::string("{}") << std::string("matrix");
    QTest::newRow("other key") << std::string("{\"m\":[[1,0],[0,1]]}") << std::string("\"m\"");
    QTest::newRow("extra key") << std::string("{\"matrix\":[[1,0],[0,1]],\"n\":1}")
                               << std::string("line 1, column 24");
    QTest::newRow("extra key first")
        << std::string("{\"n\":1,\"matrix\":[[1,0],[0,1]]}") << std::string("\"n\"");
    QTest::newRow("empty matrix") << std::string("{\"matrix\":[]}") << std::string("empty");
    QTest::newRow("empty row") << std::string("{\"matrix\":[[]]}") << std::string("empty");
    QTest::newRow("flat array") << std::string("{\"matrix\":[1,0]}") << std::string("row 0");
    QTest::newRow("matrix not array") << std::string("{\"matrix\":1}") << std::string("array");
    QTest::newRow("string entry") << std::string("{\"matrix\":[[\"1\",0],[0,1]]}")
                                  << std::string("line 1, column 13");
    QTest::newRow("null entry") << std::string("{\"matrix\":[[1,0],[0,null]]}")
                                << std::string("null");
    QTest::newRow("NaN") << std::string("{\"matrix\":[[NaN,0],[0,1]]}") << std::string("NaN");
    QTest::newRow("Infinity") << std::string("{\"matrix\":[[1,0],[0,Infinity]]}")
                              << std::string("Infinity");
    QTest::newRow("leading zero") << std::string("{\"matrix\":[[01,0],[0,1]]}")
                                  << std::string("01");
    QTest::newRow("bare dot") << std::string("{\"matrix\":[[1.,0],[0,1]]}") << std::string("1.");
    QTest::newRow("leading dot") << std::string("{\"matrix\":[[.5,.5],[.5,.5]]}")
                                 << std::string(".5");
    QTest::newRow("plus sign") << std::string("{\"matrix\":[[+1,0],[0,1]]}") << std::string("+1");
    QTest::newRow("1e400") << std::string("{\"matrix\":[[1e400,0],[0,1]]}") << std::string("range");
    QTest::newRow("negative") << std::string("{\"matrix\":[[1.5,0],\n[-0.5,1]]}")
                              << std::string("line 2, column 2");
    QTest::newRow("ragged") << std::string("{\"matrix\":[[1,0],\n  [0]]}")
                            << std::string("line 2, column 3");
    QTest::newRow("not square") << std::string("{\"matrix\":[[1,0,0],[0,1,1]]}")
                                << std::string("square");
    QTest::newRow("column sum") << std::string("{\"matrix\":[[0.5,0.5],[0.4,0.5]]}")
                                << std::string("column 0");
    QTest::newRow("trailing comma")
        << std::string("{\"matrix\":[[1,0],[0,1],]}") << std::string("column 24");
    QTest::newRow("trailing text")
        << std::string("{\"matrix\":[[1,0],[0,1]]} x") << std::string("after");
    QTest::newRow("unterminated") << std::string("{\"matrix\":[[1,0],[0,1]")
                                  << std::string("end of input");
    QTest::newRow("nested object")
        << std::string("{\"matrix\":[{\"a\":1}]}") << std::string("row 0");
    QTest::newRow("escaped key") << std::string("{\"ma\\u0074rix\":[[1,0],[0,1]]}")
                                 << std::string("key");
}

void TestCountMechanismIo::jsonRejects() {
    QFETCH(std::string, text);
    QFETCH(std::string, needles);
    DPX_VERIFY_ERROR(fromJson(text), needles.c_str());
}

void TestCountMechanismIo::sizeLimit() {
    // kMaxCountPeople + 2 rows of a single value each: refused on the row count (the reader stops
    // early rather than reading the rest).
    std::string text;
    for (int i = 0; i < kMaxCountPeople + 2; ++i) {
        text += "0\n";
    }
    DPX_VERIFY_ERROR(fromCsv(text), "between 2");
}

QTEST_GUILESS_MAIN(TestCountMechanismIo)
#include "tst_count_mechanism_io.moc"
