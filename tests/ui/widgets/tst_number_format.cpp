// The window's one number formatter (ui/widgets/number_format.h): each function writes the digits
// its callers asked for before they shared it — 'g' with the given significant digits, the 6-digit
// parameter preset equal to core's formatNumber, symbols for undefined and infinite values,
// probabilities that never read a plain "1", grouped records, powers of ten with superscripts and
// the errors tab's ×10ⁿ and ± forms.
#include <QLocale>
#include <QTest>
#include <cmath>
#include <limits>

#include "core/base/validation.h"
#include "ui/widgets/number_format.h"

using namespace dpx::ui;

class TestNumberFormat : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void significantDigitsAreTheCallers() {
        QCOMPARE(formatSignificant(0.0123456, 3), QStringLiteral("0.0123"));
        QCOMPARE(formatSignificant(1.5, 4), QStringLiteral("1.5"));
        QCOMPARE(formatSignificant(2.0 / 3.0, 2), QStringLiteral("0.67"));
        QCOMPARE(formatSignificant(2.0 / 3.0, 4), QStringLiteral("0.6667"));
        QCOMPARE(formatSignificant(1234567, 4), QStringLiteral("1.235e+06"));
        QCOMPARE(formatSignificant(0.1, 17), QStringLiteral("0.10000000000000001"));
        QCOMPARE(formatSignificant(std::numeric_limits<double>::quiet_NaN(), 4),
                 QStringLiteral("nan"));
    }

    // The 6-digit preset writes what core's formatNumber writes (pages and core messages agree).
    void parameterPresetMatchesCore() {
        for (double v : {0.01, 1.0, 2.5, 1e-6, 1e6, 123456.7, 0.333333333, -42.125, 1e-12, 7e21}) {
            QCOMPARE(formatParameter(v), QString::fromStdString(dpx::formatNumber(v)));
            QCOMPARE(formatSignificant(v, 6), formatParameter(v));
        }
    }

    void symbolsForUndefinedAndInfinite() {
        const double inf = std::numeric_limits<double>::infinity();
        QCOMPARE(formatSignificantOrSymbol(std::numeric_limits<double>::quiet_NaN(), 3),
                 QStringLiteral("—"));
        QCOMPARE(formatSignificantOrSymbol(inf, 3), QStringLiteral("∞"));
        QCOMPARE(formatSignificantOrSymbol(-inf, 3), QStringLiteral("−∞"));
        QCOMPARE(formatSignificantOrSymbol(0.123456, 3), QStringLiteral("0.123"));
        QCOMPARE(formatSigned(0.25, 3), QStringLiteral("+0.25"));
        QCOMPARE(formatSigned(-0.25, 3), QStringLiteral("-0.25"));
        QCOMPARE(formatSigned(1e-14, 3), QStringLiteral("0"));
    }

    void probabilityNeverRoundsToOne() {
        QCOMPARE(formatProbability(0.5, 3), QStringLiteral("0.5"));
        QCOMPARE(formatProbability(0.9996, 3), QStringLiteral("0.9996"));
        QCOMPARE(formatProbability(0.99949, 3), QStringLiteral("0.999"));
        QCOMPARE(formatProbability(1.0, 3), QStringLiteral("1"));
    }

    void recordsAndLocaleNumbers() {
        QCOMPARE(formatRecords(12345.4, 4), QStringLiteral("12,345"));
        QCOMPARE(formatRecords(-1000, 4), QStringLiteral("-1,000"));
        QCOMPARE(formatRecords(12.34567, 4), QStringLiteral("12.35"));
        QCOMPARE(formatLocaleNumber(1234567, 6), QStringLiteral("1,234,567"));
        QCOMPARE(formatLocaleNumber(0.1234567, 6), QStringLiteral("0.123457"));
        QCOMPARE(formatLocaleNumber(std::numeric_limits<double>::infinity(), 6),
                 QStringLiteral("—"));
    }

    void powersOfTenAndSuperscripts() {
        QCOMPARE(superscriptInteger(-14), QStringLiteral("⁻¹⁴"));
        QCOMPARE(superscriptInteger(2), QStringLiteral("²"));
        QCOMPARE(formatPowerOfTen(1.1e-14, 3), QStringLiteral("1.1·10⁻¹⁴"));
        QCOMPARE(formatPowerOfTen(2.5e7, 3), QStringLiteral("2.5·10⁷"));
        QCOMPARE(formatPowerOfTen(0.0125, 3), QStringLiteral("0.0125"));
        QCOMPARE(formatPowerOfTen(12345, 3), QStringLiteral("1.23e+04"));
        QCOMPARE(formatPowerOfTen(0, 3), QStringLiteral("0"));
    }

    void groupedIntegersAndDistinguishingDigits() {
        QCOMPARE(formatThinSpaceGrouped(3701), QStringLiteral("3\u2009701"));
        QCOMPARE(formatThinSpaceGrouped(-1234567), QStringLiteral("−1\u2009234\u2009567"));
        QCOMPARE(formatThinSpaceGrouped(999), QStringLiteral("999"));
        QCOMPARE(formatNarrowSpaceGrouped(20000), QStringLiteral("20\u202F000"));
        QCOMPARE(formatNarrowSpaceGrouped(-5000), QStringLiteral("-5\u202F000"));
        QCOMPARE(formatDistinguishing(1.0000001, 1.0), QStringLiteral("1.0000001"));
        QCOMPARE(formatDistinguishing(0.51234, 0.5), QStringLiteral("0.5123"));
        QCOMPARE(formatDistinguishing(0.1, 0.1), QStringLiteral("0.10000000000000001"));
    }

    void percentKeepsAlmostAllFromHundred() {
        QCOMPARE(formatPercent(0.731), QStringLiteral("73.1%"));
        QCOMPARE(formatPercent(0.99996), QStringLiteral("99.996%"));
        QCOMPARE(formatPercent(1.0), QStringLiteral("100%"));
    }

    void errorValuesAndHalfWidths() {
        QCOMPARE(formatErrorValue(12.5, 6), QStringLiteral("12.5"));
        QCOMPARE(formatErrorValue(2.0 / 3.0, 5), QStringLiteral("0.66667"));
        QCOMPARE(formatErrorValue(1.5e-5, 6), QStringLiteral("1.5×10⁻⁵"));
        QCOMPARE(formatErrorValue(9.9999996e7, 6), QStringLiteral("1×10⁸"));
        QCOMPARE(formatWithHalfWidth(12.3456, 0.05), QStringLiteral("12.35 ± 0.05"));
        QCOMPARE(formatWithHalfWidth(4.0123e-4, 5e-7), QStringLiteral("(4.012 ± 0.005)×10⁻⁴"));
    }
};

QTEST_MAIN(TestNumberFormat)
#include "tst_number_format.moc"
