// The "Mechanism matrix" tab: the (n+1)×(n+1) table P[output i | true count j] of a count
// mechanism as a heatmap, the error profile of one selected true count, badges for the privacy
// level and the seven structural properties (RH, RM, CH, CM, F, WH, S), and the controls of the
// optimal-mechanism LP. For histogram mechanisms it shows the per-bin noise law instead, and any
// empty or error state as a centred message. The widget only displays: the main window hands
// over the data and listens to the signals (LP settings, log scale, selected input).
//
// One class, its parts in their own files: matrix_tab.cpp (layout, badges, pages, messages),
// matrix_heatmap.cpp (the count heatmap and its column profile), matrix_local_page.cpp (the report
// matrix of a local protocol), matrix_noise_plot.cpp (the per-bin noise law) and
// matrix_lp_panel.cpp (the optimal-mechanism LP's controls and report); matrix_support.h holds what
// they share.
#pragma once

#include <QColor>
#include <QPoint>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/base/noise_distribution.h"
#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"
#include "core/ldp/protocols.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QScrollArea;
class QSpinBox;
class QStackedWidget;
class QTimer;
class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;

namespace dpx::ui {

// What the main window hands over with a count mechanism.
struct MatrixInfo {
    QString title;  // e.g. "Truncated geometric (GM), n = 40"
    double epsilon = 1;
    // Set for (ε, δ) mechanisms (the discretized Gaussian): such a matrix is never labelled ε-DP;
    // its achievedEpsilon() is shown as the pure level of the finite matrix only.
    std::optional<double> delta;
};

// The state of the LP controls, in the string form of MatrixTab::lpSettingsEdited.
struct LpSettings {
    QString objective = QStringLiteral("l0");  // "l0", "l1", "l2", "l0d:D", optionally "minimax-…"
    QStringList constraints;                   // "rh", "rm", "ch", "cm", "f", "wh", "s"
    double binomialP = -1;                     // < 0: uniform weights
    double minDiagonal = 0;                    // 0: no floor
    bool operator==(const LpSettings&) const = default;
};

class MatrixTab : public QWidget {
    Q_OBJECT
public:
    enum class Page { Matrix, Noise, Message, Local };

    // Entries below this are drawn at this value on the log colour scale (exact zeros are drawn in
    // a separate grey, see logZeroColor()).
    static constexpr double kLogFloor = 1e-12;

    explicit MatrixTab(QWidget* parent = nullptr);
    ~MatrixTab() override;

    // Shows the matrix. With an LP result whose status is not optimal, the LP's message is shown
    // instead of the heatmap (m is ignored). The selected input is kept when n is unchanged,
    // otherwise it becomes the middle input n/2.
    void setCountMechanism(const dpx::CountMechanism& m, const MatrixInfo& info,
                           const dpx::CountLpResult* lp = nullptr);
    // Convenience for LP results: the repaired matrix if optimal, otherwise the status message.
    void setLpResult(const dpx::CountLpResult& lp, const MatrixInfo& info);
    // Histogram mechanisms: the law of the noise added to each bin (badges hidden).
    void setNoiseDistribution(const dpx::NoiseDistribution& noise, const QString& title);
    // Local protocols: the report matrix P[report | value] as a heatmap with its verified local ε
    // (core/ldp/protocols.h localEpsilonOf), or, when the report space is too large to enumerate
    // (`m` null), the protocol's constants and `why`. `valueLabels` name the columns (the bins).
    void setLocalMechanism(const dpx::ldp::ReportMatrix* m, const QString& title, double epsilon,
                           const QStringList& valueLabels, const QString& details,
                           const QString& why);
    // Empty or error state: a centred message replaces the plots.
    void setMessage(const QString& text);
    // A new result is being computed (`what`, e.g. "Solving the LP for n = 400 at ε = 0.01"). A
    // message on show (an error of the previous state) is replaced by `what` at once; a matrix,
    // noise law or report matrix on show stays, with a line above it saying that it is the
    // previous result, until the new one arrives (any of the setters above).
    void setPending(const QString& what);
    // The computation of the new result was cancelled (the status bar's Cancel): says so, and
    // that the plot on show, if any, is the previous result.
    void setCancelled(const QString& what);
    // The pending or cancelled note over a previous result ("" when the view is up to date or
    // shows the note as its message).
    QString pendingText() const;

    // Log colour scale (log10 P, entries below kLogFloor or the smallest positive entry drawn at
    // that floor, exact zeros in logZeroColor()). Does not emit logScaleToggled.
    void setLogScale(bool on);
    bool logScale() const { return log_; }

    void setLpControlsVisible(bool on);
    bool lpControlsVisible() const;
    // Shows the given LP settings in the controls without emitting lpSettingsEdited. Unknown
    // objective or constraint strings are ignored (the control keeps its value).
    void setLpSettings(const QString& objective, const QStringList& constraints, double binomialP,
                       double minDiagonal);
    LpSettings lpSettings() const;

    // The true count whose column is profiled (-1 without a matrix). selectInput() clamps to
    // 0..n and emits inputSelected when the selection changes, as does a click or the spin box.
    void selectInput(int j);
    int selectedInput() const { return selected_; }

    Page currentPage() const;
    QCustomPlot* heatmapPlot() const { return heatmap_; }
    QCustomPlot* profilePlot() const { return profile_; }
    QCustomPlot* noisePlot() const { return noise_; }
    // The plot on show (heatmap, noise) for export; nullptr on the message page.
    QCustomPlot* currentPlot() const;

    // ---- test hooks -------------------------------------------------------------------------
    // The colour map's data value of cell (j, i): P[i][j], or in log mode log10 of it clamped to
    // log10(logFloor()); NaN for exact zeros in log mode and outside the matrix.
    double cellValue(int j, int i) const;
    double logFloor() const { return logFloor_; }
    QColor logZeroColor() const;
    QString cellToolTip(int j, int i) const;
    // The bar heights of the profile plot (index i), and the summary line under it.
    std::vector<double> profileValues() const;
    QString summaryText() const;
    // The (x, y) points of the noise density / probability curve.
    QVector<QPointF> noiseCurve() const;
    QString titleText() const;
    QString privacyBadgeText() const;
    QString l0BadgeText() const;
    // Whether the badge of p shows ✓ (nullopt when the badges are hidden).
    std::optional<bool> propertyBadgeHolds(dpx::CountProperty p) const;
    QString propertyBadgeText(dpx::CountProperty p) const;
    QString propertyBadgeToolTip(dpx::CountProperty p) const;
    QString lpStatusText() const;
    QString lpWarningText() const;
    QString messageText() const;
    QCustomPlot* localPlot() const { return localPlot_; }
    QString localVerdictText() const;
    // The local heatmap's data value of cell (value j, report r) as drawn (log10 in log mode).
    double localCellValue(int j, int r) const;

Q_SIGNALS:
    void logScaleToggled(bool on);
    void lpSettingsEdited(const QString& objective, const QStringList& constraints,
                          double binomialP, double minDiagonal);
    void inputSelected(int j);

protected:
    void changeEvent(QEvent* event) override;

private:
    void buildUi();
    QWidget* buildLpPanel();
    void setupHeatmap();
    void setupProfile();
    void setupNoisePlot();
    void applyPalette();
    void showPage(Page page);
    void fillHeatmap();
    void resetHeatmapView();
    void updateSelection();
    void updateBadges(const MatrixInfo& info);
    void updateLpStatus(const dpx::CountLpResult* lp);
    void drawNoise();
    void lpControlEdited();
    void updateLpControlStates();
    void heatmapMouseMove(const QPointF& pos, const QPoint& globalPos);
    std::optional<std::pair<int, int>> cellAt(const QPointF& pos) const;

    // data
    std::optional<dpx::CountMechanism> mech_;
    std::optional<dpx::NoiseDistribution> noiseLaw_;
    std::optional<dpx::ldp::ReportMatrix> report_;
    double localEpsilon_ = 1;
    double logFloor_ = kLogFloor;
    double maxEntry_ = 1;
    int selected_ = -1;
    bool log_ = false;
    bool lpVisible_ = false;

    // header
    QLabel* title_ = nullptr;
    QLabel* inputLabel_ = nullptr;
    QSpinBox* input_ = nullptr;
    QCheckBox* logBox_ = nullptr;
    QWidget* badgeBar_ = nullptr;
    QLabel* privacyBadge_ = nullptr;
    QLabel* l0Badge_ = nullptr;
    std::vector<QLabel*> propertyBadges_;
    QLabel* lpStatus_ = nullptr;
    QLabel* lpWarning_ = nullptr;
    QLabel* pending_ = nullptr;  // "Solving …… Shown: the previous result."
    void clearPending();

    // pages
    QStackedWidget* stack_ = nullptr;
    QWidget* matrixPage_ = nullptr;
    QCustomPlot* heatmap_ = nullptr;
    QCPColorMap* colorMap_ = nullptr;
    QCPColorScale* colorScale_ = nullptr;
    QCPItemRect* selectionRect_ = nullptr;
    QLabel* heatmapHint_ = nullptr;
    QCustomPlot* profile_ = nullptr;
    QCPTextElement* profileTitle_ = nullptr;
    QCPBars* profileBars_ = nullptr;
    QCPBars* profileTruth_ = nullptr;
    QCPItemStraightLine* truthLine_ = nullptr;
    QCPItemText* truthText_ = nullptr;
    QLabel* summary_ = nullptr;
    QCustomPlot* noise_ = nullptr;
    QCPTextElement* noiseTitle_ = nullptr;
    QCPGraph* noiseCurve_ = nullptr;
    QLabel* message_ = nullptr;
    QPoint pressPos_;
    QWidget* localPage_ = nullptr;
    QCustomPlot* localPlot_ = nullptr;
    QCPColorMap* localMap_ = nullptr;
    QCPColorScale* localScale_ = nullptr;
    QLabel* localVerdict_ = nullptr;
    QLabel* localDetails_ = nullptr;
    void setupLocalPage();
    void fillLocalHeatmap();

    // LP panel
    QScrollArea* lpPanel_ = nullptr;
    QComboBox* objective_ = nullptr;
    QSpinBox* lossD_ = nullptr;
    QCheckBox* minimax_ = nullptr;
    std::vector<QCheckBox*> constraintBoxes_;
    QComboBox* weights_ = nullptr;
    QDoubleSpinBox* binomialP_ = nullptr;
    QDoubleSpinBox* minDiagonal_ = nullptr;
    QTimer* lpDebounce_ = nullptr;
};

// The summary line of one input, e.g. "true count 5: reported exactly with probability 0.27; …".
QString inputErrorSummary(const dpx::CountMechanism& m, std::size_t j);

}  // namespace dpx::ui
