#include "ui/widgets/number_format.h"

#include <QLocale>
#include <algorithm>
#include <cmath>
#include <limits>

namespace dpx::ui {

namespace {

// Floor of log10|v| for v ≠ 0.
int decade(double v) {
    return static_cast<int>(std::floor(std::log10(std::fabs(v))));
}

QString stripZeros(QString s) {
    if (s.contains(QLatin1Char('.'))) {
        while (s.endsWith(QLatin1Char('0'))) {
            s.chop(1);
        }
        if (s.endsWith(QLatin1Char('.'))) {
            s.chop(1);
        }
    }
    return s;
}

QString groupDigits(long long n, QChar separator, const QString& minus) {
    QString digits = QString::number(n < 0 ? -n : n);
    for (qsizetype k = digits.size() - 3; k > 0; k -= 3) {
        digits.insert(k, separator);
    }
    return n < 0 ? minus + digits : digits;
}

}  // namespace

QString formatSignificant(double v, int digits) {
    return QString::number(v, 'g', digits);
}

QString formatSignificantOrSymbol(double v, int digits) {
    if (std::isnan(v)) {
        return QStringLiteral("—");
    }
    if (std::isinf(v)) {
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    }
    return formatSignificant(v, digits);
}

QString formatSigned(double v, int digits) {
    if (std::abs(v) < 5e-13) {
        return QStringLiteral("0");
    }
    return (v > 0 ? QStringLiteral("+") : QString()) + formatSignificantOrSymbol(v, digits);
}

QString formatProbability(double p, int digits) {
    if (p < 1 && p >= 1 - 0.5 * std::pow(10.0, -digits)) {
        return formatSignificant(p, 9);
    }
    return formatSignificantOrSymbol(p, digits);
}

QString formatRecords(double v, int digits) {
    if (std::abs(v) >= 1000) {
        return QStringLiteral("%L1").arg(v, 0, 'f', 0);
    }
    return formatSignificant(v, digits);
}

QString formatLocaleNumber(double v, int digits) {
    if (!std::isfinite(v)) {
        return QStringLiteral("—");
    }
    if (v == std::round(v) && std::abs(v) < 1e15) {
        return QLocale().toString(static_cast<qlonglong>(v));
    }
    return QLocale().toString(v, 'g', digits);
}

QString formatThinSpaceGrouped(long long n) {
    return groupDigits(n, QChar(0x2009), QStringLiteral("−"));
}

QString formatNarrowSpaceGrouped(long long n) {
    return groupDigits(n, QChar(0x202F), QStringLiteral("-"));
}

QString formatCellCount(CellCount cells) {
    if (cells <= std::numeric_limits<qulonglong>::max()) {
        return QLocale().toString(static_cast<qulonglong>(cells));
    }
    return QString::fromStdString(cellCountText(cells));
}

QString formatDistinguishing(double a, double b) {
    for (int d = 4; d <= 15; ++d) {
        if (formatSignificant(a, d) != formatSignificant(b, d)) {
            return formatSignificant(a, d);
        }
    }
    return formatSignificant(a, 17);
}

QString superscriptInteger(int n) {
    static const char16_t superscripts[] = u"⁰¹²³⁴⁵⁶⁷⁸⁹";
    QString out;
    for (QChar c : QString::number(n)) {
        if (c == QLatin1Char('-')) {
            out += QChar(0x207B);  // ⁻
        } else {
            out += QChar(superscripts[c.unicode() - u'0']);
        }
    }
    return out;
}

QString formatPowerOfTen(double v, int digits) {
    if (v == 0) {
        return QStringLiteral("0");
    }
    const int e = decade(v);
    if (e >= -3 && e <= 4) {
        return formatSignificant(v, digits);
    }
    return formatSignificant(v / std::pow(10.0, e), digits) + QStringLiteral("·10") +
           superscriptInteger(e);
}

QString formatPercent(double share) {
    const double v = 100 * share;
    if (v >= 100) {
        return QStringLiteral("100%");
    }
    for (int decimals = 1; decimals <= 8; ++decimals) {
        const QString s = QString::number(v, 'f', decimals);
        if (s != QString::number(100.0, 'f', decimals)) {
            return s + QLatin1Char('%');
        }
    }
    return QStringLiteral("≈100%");
}

QString formatParameter(double v) {
    return formatSignificant(v, 6);
}

QString formatErrorValue(double v, int digits) {
    digits = std::clamp(digits, 1, 15);
    if (!std::isfinite(v)) {
        return QStringLiteral("—");
    }
    if (v == 0) {
        return QStringLiteral("0");
    }
    int mag = decade(v);
    if (mag >= -3 && mag < 7) {
        return stripZeros(QString::number(v, 'f', std::max(0, digits - 1 - mag)));
    }
    double mantissa = v / std::pow(10.0, mag);
    const double unit = std::pow(10.0, digits - 1);
    if (std::fabs(std::round(mantissa * unit) / unit) >= 10) {  // 9.999996 rounds to 10
        mantissa /= 10;
        ++mag;
    }
    return stripZeros(QString::number(mantissa, 'f', digits - 1)) + QStringLiteral("×10") +
           superscriptInteger(mag);
}

QString formatWithHalfWidth(double v, double halfWidth) {
    if (!std::isfinite(v)) {
        return QStringLiteral("—");
    }
    if (!(halfWidth > 0) || !std::isfinite(halfWidth)) {
        return formatErrorValue(v);
    }
    const int vMag = v != 0 ? decade(v) : decade(halfWidth);
    const int shift = (vMag < -3 || vMag >= 7) ? vMag : 0;
    const double scale = std::pow(10.0, shift);
    const double vs = v / scale;
    const double hs = halfWidth / scale;
    const int hMag = decade(hs);
    const double lead = hs / std::pow(10.0, hMag);
    const int hSig = lead < 3 ? 2 : 1;  // 0.15 → "0.15", 0.05 → "0.05"
    int decimals = hSig - 1 - hMag;
    const int vsMag = vMag - shift;
    decimals = std::clamp(decimals, 3 - vsMag, 5 - vsMag);  // 4–6 significant digits
    decimals = std::max(decimals, 0);
    QString text = QString::number(vs, 'f', decimals) + QStringLiteral(" ± ") +
                   QString::number(hs, 'f', decimals);
    if (shift != 0) {
        text = QStringLiteral("(") + text + QStringLiteral(")×10") + superscriptInteger(shift);
    }
    return text;
}

}  // namespace dpx::ui
