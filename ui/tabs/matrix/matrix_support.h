// What the files of the Mechanism matrix tab share (matrix_tab.cpp and its heatmap, local page,
// noise plot and LP panel): colours, the texts of the structural properties, badge chips and the
// integer count axes. Internal to ui/tabs/matrix.
#pragma once

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QString>
#include <array>
#include <limits>
#include <utility>

#include "core/count/count_analysis.h"
#include "ui/widgets/heatmap.h"

class QCPAxis;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QLabel;

namespace dpx::ui::matrix {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Accent for the selected input (heatmap outline, true-count bar): visible on every viridis colour.
inline const QColor kAccent(230, 85, 13);
// Bars of the column profile and the noise curve: a mid viridis tone.
inline const QColor kBarColor(42, 120, 142);

struct PropertyText {
    dpx::CountProperty property;
    const char* id;     // lower-case id used in the LP settings strings
    const char* name;   // full name
    const char* words;  // what it means, in words
};

inline constexpr std::array<PropertyText, 7> kPropertyTexts{{
    {dpx::CountProperty::RowHonest, "rh", QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Row honest"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "each output i is most likely when i is the true count: "
                       "P[i | i] ≥ P[i | j] for every j.")},
    {dpx::CountProperty::RowMonotone, "rm", QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Row monotone"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "the probability of output i never grows as the true count moves away "
                       "from i (along each row, on both sides of the diagonal).")},
    {dpx::CountProperty::ColumnHonest, "ch",
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Column honest"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "for every true count j the correct output is the most likely one: "
                       "P[j | j] ≥ P[i | j] for every i.")},
    {dpx::CountProperty::ColumnMonotone, "cm",
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Column monotone"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "for every true count, an output further from the truth is never more "
                       "likely than a nearer one on the same side.")},
    {dpx::CountProperty::Fair, "f", QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Fair"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "every true count is reported correctly with the same probability "
                       "(constant diagonal).")},
    {dpx::CountProperty::WeaklyHonest, "wh",
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Weakly honest"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "every true count is reported correctly with probability at least "
                       "1/(n+1), i.e. never worse than a uniformly random guess.")},
    {dpx::CountProperty::Symmetric, "s", QT_TRANSLATE_NOOP("dpx::ui::MatrixTab", "Symmetric"),
     QT_TRANSLATE_NOOP("dpx::ui::MatrixTab",
                       "P[i | j] = P[n−i | n−j]: counting the people without the attribute gives "
                       "the mirror-image mechanism.")},
}};

// A property text translated in the tab's context.
QString trView(const char* text);
// The achieved privacy level of a matrix: "∞ (…)" when a zero faces a non-zero entry.
QString achievedText(double achieved);
// An axis of counts: integer ticks, no decimals.
void setupCountAxis(QCPAxis* axis, const QString& label);
// A matrix heatmap on `plot` (addHeatmap in ui/widgets/heatmap.h) with its colour scale
// (makeColorScale) on the right, aligned with the axis rect.
std::pair<QCPColorMap*, QCPColorScale*> setupMatrixHeatmap(QCustomPlot* plot,
                                                           const QColor& nanColour);
// `base` in bold, scaled by `scale`.
QFont boldFont(const QFont& base, double scale = 1.0);

// The badges' chips.
enum class ChipStyle { Good, Neutral, Bad, Warning, Plain };
void styleChip(QLabel* chip, ChipStyle style, const QPalette& pal = QPalette());
QLabel* makeChip(const QString& objectName);

}  // namespace dpx::ui::matrix
