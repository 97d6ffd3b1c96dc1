#include "ui/widgets/theme_style.h"

#include <QPainter>
#include <QProxyStyle>
#include <QStyleFactory>
#include <QStyleOption>
#include <QWidget>
#include <algorithm>

namespace dpx::ui {

namespace {

class IndicatorStyle : public QProxyStyle {
public:
    IndicatorStyle() : QProxyStyle(QStyleFactory::create(QStringLiteral("Fusion"))) {}

    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget) const override {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        const bool box =
            element == PE_IndicatorCheckBox || element == PE_IndicatorItemViewItemCheck;
        const bool radio = element == PE_IndicatorRadioButton;
        if (!box && !radio) {
            return;
        }
        const QColor window = option->palette.color(QPalette::Window);
        const QColor text = option->palette.color(QPalette::WindowText);
        const auto towards = [](int from, int to) { return from + (to - from) * 45 / 100; };
        const QColor outline(towards(window.red(), text.red()),
                             towards(window.green(), text.green()),
                             towards(window.blue(), text.blue()));
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(QPen(outline, 1.2));
        painter->setBrush(Qt::NoBrush);
        const QRectF r = QRectF(option->rect).adjusted(1, 1, -1, -1);
        if (radio) {
            painter->drawEllipse(r);
        } else {
            painter->drawRect(r);
        }
        painter->restore();
    }

    // Indicators grow with the text beside them (never below Fusion's size).
    int pixelMetric(PixelMetric metric, const QStyleOption* option,
                    const QWidget* widget) const override {
        const int base = QProxyStyle::pixelMetric(metric, option, widget);
        const bool indicator = metric == PM_IndicatorWidth || metric == PM_IndicatorHeight ||
                               metric == PM_ExclusiveIndicatorWidth ||
                               metric == PM_ExclusiveIndicatorHeight;
        if (!indicator || !widget) {
            return base;
        }
        return std::max(base, widget->fontMetrics().height() * 4 / 5);
    }
};

}  // namespace

QStyle* createApplicationStyle() {
    return new IndicatorStyle;
}

}  // namespace dpx::ui
