#include "ui/widgets/theme_style.h"

#include <QAbstractSpinBox>
#include <QPainter>
#include <QPainterPath>
#include <QProxyStyle>
#include <QStyleFactory>
#include <QStyleOption>
#include <QWidget>
#include <algorithm>

namespace dpx::ui {

namespace {

// Fusion draws a spin box's arrows at most 8 px (dpi-scaled) in buttons 14 px wide, whatever the
// font: beside a lesson's 36 px presentation type they were specks. A spin box whose text is taller
// than this gets buttons as wide as a line of its text and arrows half that wide; below it Fusion's
// own geometry and drawing stay (the normal window is unchanged).
constexpr int kLargeSpinTextHeight = 22;

bool largeSpinBox(const QStyleOption* option) {
    return option->fontMetrics.height() > kLargeSpinTextHeight;
}

// Converts between a right-to-left spin box's screen rectangles and left-to-right ones (its own
// inverse).
QRect logical(const QStyleOption* option, const QRect& r) {
    return QStyle::visualRect(option->direction, option->rect, r);
}

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

    // Large type: the up and down buttons as wide as a line of text (Fusion's 14 px otherwise);
    // the edit field gives up the difference.
    QRect subControlRect(ComplexControl control, const QStyleOptionComplex* option, SubControl sc,
                         const QWidget* widget) const override {
        const QRect base = QProxyStyle::subControlRect(control, option, sc, widget);
        const auto* spin = qstyleoption_cast<const QStyleOptionSpinBox*>(option);
        if (control != CC_SpinBox || !spin || spin->buttonSymbols == QAbstractSpinBox::NoButtons ||
            !largeSpinBox(option)) {
            return base;
        }
        const QRect up =
            logical(option, QProxyStyle::subControlRect(CC_SpinBox, option, SC_SpinBoxUp, widget));
        const int extra = std::max(0, option->fontMetrics.height() - up.width());
        QRect r = logical(option, base);
        switch (sc) {
            case SC_SpinBoxUp:
            case SC_SpinBoxDown:
                r.setLeft(r.left() - extra);
                break;
            case SC_SpinBoxEditField:
                r.setRight(r.right() - extra);
                break;
            default:
                return base;
        }
        return logical(option, r);
    }

    // ... and the spin box that wide more, so that its text keeps its room.
    QSize sizeFromContents(ContentsType type, const QStyleOption* option, const QSize& size,
                           const QWidget* widget) const override {
        QSize s = QProxyStyle::sizeFromContents(type, option, size, widget);
        const auto* spin = qstyleoption_cast<const QStyleOptionSpinBox*>(option);
        if (type == CT_SpinBox && spin && spin->buttonSymbols != QAbstractSpinBox::NoButtons &&
            largeSpinBox(option)) {
            const QRect up = QProxyStyle::subControlRect(CC_SpinBox, spin, SC_SpinBoxUp, widget);
            s.rwidth() += std::max(0, option->fontMetrics.height() - up.width());
        }
        return s;
    }

    // Large type: Fusion draws the frame and the field; the buttons are drawn here, each with a
    // triangle half as wide as a line of text is tall (Fusion's stays at 8 px).
    void drawComplexControl(ComplexControl control, const QStyleOptionComplex* option,
                            QPainter* painter, const QWidget* widget) const override {
        const auto* spin = qstyleoption_cast<const QStyleOptionSpinBox*>(option);
        if (control != CC_SpinBox || !spin ||
            spin->buttonSymbols != QAbstractSpinBox::UpDownArrows || !largeSpinBox(option)) {
            QProxyStyle::drawComplexControl(control, option, painter, widget);
            return;
        }
        QStyleOptionSpinBox field = *spin;
        field.buttonSymbols = QAbstractSpinBox::NoButtons;
        QProxyStyle::drawComplexControl(control, &field, painter, widget);
        const QRect up = subControlRect(CC_SpinBox, spin, SC_SpinBoxUp, widget);
        const QRect down = subControlRect(CC_SpinBox, spin, SC_SpinBoxDown, widget);
        const QPalette& pal = spin->palette;
        const bool enabled = spin->state & State_Enabled;
        const bool sunken = spin->state & State_Sunken;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true);
        // A pressed button darkens, as Fusion's does.
        for (const auto& [rect, sub] :
             {std::pair{up, SC_SpinBoxUp}, std::pair{down, SC_SpinBoxDown}}) {
            if (enabled && sunken && spin->activeSubControls == sub) {
                painter->fillRect(rect, pal.color(QPalette::Button).darker(115));
            }
        }
        // The separators: the buttons from the field, and from each other.
        const QColor line = pal.color(QPalette::Window).darker(140);
        painter->setPen(QPen(line, 1));
        const int x = spin->direction == Qt::RightToLeft ? up.right() + 1 : up.left() - 1;
        painter->drawLine(QPointF(x + 0.5, up.top()), QPointF(x + 0.5, down.bottom()));
        painter->drawLine(QPointF(up.left() + 2, up.bottom() + 0.5),
                          QPointF(up.right() - 2, up.bottom() + 0.5));
        const double arrow = std::min<double>(option->fontMetrics.height() * 0.5,
                                              std::min(up.width(), up.height()) * 0.9);
        const auto triangle = [&](const QRect& r, bool pointsUp, bool stepEnabled) {
            const QPointF c = QRectF(r).center();
            const double half = arrow / 2;
            const double h = arrow / 2;  // as wide as twice its height, like Fusion's
            QPainterPath path;
            if (pointsUp) {
                path.moveTo(c.x() - half, c.y() + h / 2);
                path.lineTo(c.x() + half, c.y() + h / 2);
                path.lineTo(c.x(), c.y() - h / 2);
            } else {
                path.moveTo(c.x() - half, c.y() - h / 2);
                path.lineTo(c.x() + half, c.y() - h / 2);
                path.lineTo(c.x(), c.y() + h / 2);
            }
            path.closeSubpath();
            const bool on = enabled && stepEnabled;
            painter->fillPath(
                path, pal.color(on ? QPalette::Active : QPalette::Disabled, QPalette::ButtonText));
        };
        triangle(up, true, spin->stepEnabled & QAbstractSpinBox::StepUpEnabled);
        triangle(down, false, spin->stepEnabled & QAbstractSpinBox::StepDownEnabled);
        painter->restore();
    }
};

}  // namespace

QStyle* createApplicationStyle() {
    return new IndicatorStyle;
}

}  // namespace dpx::ui
