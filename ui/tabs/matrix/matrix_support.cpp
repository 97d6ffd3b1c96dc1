#include "ui/tabs/matrix/matrix_support.h"

#include <QCoreApplication>
#include <QLabel>
#include <cmath>

#include "ui/tabs/matrix/matrix_tab.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/integer_ticker.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui::matrix {

QString trView(const char* text) {
    return QCoreApplication::translate("dpx::ui::MatrixTab", text);
}

QString achievedText(double achieved) {
    if (std::isinf(achieved)) {
        return MatrixTab::tr("∞ (a zero faces a non-zero entry)");
    }
    return formatSignificantOrSymbol(achieved, 4);
}

void setupCountAxis(QCPAxis* axis, const QString& label) {
    axis->setLabel(label);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new IntegerTicker));
    axis->setTickLength(0, 4);
    axis->setNumberFormat(QStringLiteral("f"));
    axis->setNumberPrecision(0);
}

QFont boldFont(const QFont& base, double scale) {
    QFont f = base;
    f.setBold(true);
    if (scale != 1.0 && f.pointSizeF() > 0) {
        f.setPointSizeF(f.pointSizeF() * scale);
    }
    return f;
}

void styleChip(QLabel* chip, ChipStyle style, const QPalette& pal) {
    QString css;
    switch (style) {
        case ChipStyle::Good:
            css = QStringLiteral("background:#2e7d32; color:#ffffff;");
            break;
        case ChipStyle::Neutral:
            css = QStringLiteral("background:#7b7f86; color:#ffffff;");
            break;
        case ChipStyle::Bad:
            css = QStringLiteral("background:#c62828; color:#ffffff;");
            break;
        case ChipStyle::Warning:
            css = QStringLiteral("background:#f2b01e; color:#1b1b1b;");
            break;
        case ChipStyle::Plain:
            css = QStringLiteral("background:transparent; color:%1; border:1px solid %2;")
                      .arg(pal.color(QPalette::WindowText).name(), pal.color(QPalette::Mid).name());
            break;
    }
    chip->setStyleSheet(QStringLiteral("QLabel { %1 border-radius: 9px; padding: 2px 7px; "
                                       "font-weight: 600; }")
                            .arg(css));
}

QLabel* makeChip(const QString& objectName) {
    auto* chip = new QLabel;
    chip->setObjectName(objectName);
    chip->setTextFormat(Qt::PlainText);
    chip->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return chip;
}

std::pair<QCPColorMap*, QCPColorScale*> setupMatrixHeatmap(QCustomPlot* plot,
                                                           const QColor& nanColour) {
    auto* map = addHeatmap(plot->axisRect(), nanColour);
    const QCPColorGradient gradient = map->gradient();
    auto* scale = makeColorScale(plot);
    plot->plotLayout()->addElement(0, 1, scale);
    map->setColorScale(scale);
    map->setGradient(gradient);  // attaching took the scale's default gradient
    auto* margins = new QCPMarginGroup(plot);
    plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    scale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    return {map, scale};
}

}  // namespace dpx::ui::matrix
