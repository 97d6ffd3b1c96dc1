#include "ui/tabs/ldp/ldp_fields.h"

#include <QRegularExpression>
#include <QStringList>
#include <cmath>

#include "ui/widgets/number_format.h"

namespace dpx::ui {

QString numberListText(const std::vector<double>& xs) {
    QStringList parts;
    for (double x : xs) {
        parts << formatSignificant(x, 6);
    }
    return parts.join(QStringLiteral(", "));
}

Expected<std::vector<double>> parseNumberList(const QString& text, const QString& field) {
    std::vector<double> out;
    const QStringList parts =
        text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    if (parts.isEmpty()) {
        return Error{field.toStdString() + ": give at least one number"};
    }
    for (const QString& p : parts) {
        bool ok = false;
        const double v = p.toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            return Error{field.toStdString() + ": '" + p.toStdString() + "' is not a number"};
        }
        out.push_back(v);
    }
    return out;
}

Expected<std::uint64_t> parseUsers(const QString& text) {
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok || !(v >= 1) || v != std::floor(v) || v > 1e15) {
        return Error{"Users N: '" + text.toStdString() + "' is not a whole number ≥ 1"};
    }
    return static_cast<std::uint64_t>(v);
}

Expected<std::uint64_t> parseSeed(const QString& text) {
    bool ok = false;
    const std::uint64_t v = text.trimmed().toULongLong(&ok);
    if (!ok) {
        return Error{"Seed: a whole number from 0 to 2^64 − 1"};
    }
    return v;
}

}  // namespace dpx::ui
