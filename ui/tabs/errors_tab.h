// The "Errors" tab: for the current release, every estimator side by side and every metric (SSE,
// L1, L∞, Wasserstein-1) — the realized error of the current simulated draw and the expected error
// (exact where a closed form or quadrature exists, otherwise a Monte Carlo mean with its 95%
// confidence half-width) on the counts or frequency scale — and below, the Monte Carlo distribution
// of one (estimator, metric) error as a histogram with the expected value and this draw marked.
// The widget only displays: the main window computes ErrorsData and listens to the signals.
#pragma once

#include <QString>
#include <QWidget>
#include <limits>
#include <vector>

#include "core/accuracy/metrics.h"
#include "core/estimators/estimator.h"
#include "ui/widgets/number_format.h"  // formatErrorValue, formatWithHalfWidth

class QButtonGroup;
class QCPItemText;
class QCPTextElement;
class QCustomPlot;
class QLabel;
class QRadioButton;
class QTableWidget;

namespace dpx::ui {

struct ErrorCellData {
    double realized = std::numeric_limits<double>::quiet_NaN();  // this draw
    double expected = std::numeric_limits<double>::quiet_NaN();  // NaN: not available (yet)
    double halfWidth = 0;                                        // 95% CI half-width; 0 for exact
    QString method;  // "exact (closed form)", "exact (quadrature)", "Monte Carlo"
    bool exact = false;
};

struct ErrorsData {
    std::vector<dpx::EstimatorKind> estimators;  // rows
    std::vector<dpx::Metric> metrics;            // column groups
    dpx::Scale scale = dpx::Scale::Counts;
    std::vector<std::vector<ErrorCellData>> cells;  // [estimator][metric]
    // Monte Carlo samples of each error, possibly empty (not computed yet):
    // [estimator][metric][trial]
    std::vector<std::vector<std::vector<double>>> samples;
    qint64 trials = 0;      // Monte Carlo trials so far (0: none)
    bool refining = false;  // more trials are being computed
    QString note;           // e.g. "NoiseFirst: Monte Carlo only"
};

class ErrorsTab : public QWidget {
    Q_OBJECT
public:
    explicit ErrorsTab(QWidget* parent = nullptr);

    // Shows `d` (also its scale, without emitting scaleToggled). The selected (estimator, metric)
    // is kept when both are still present, otherwise the first cell is selected (no signal).
    void setData(const ErrorsData& d);
    // Empty / error state: no numbers, `text` shown above the table and in the plot area.
    void setMessage(const QString& text);
    // Shows the toggle state without emitting scaleToggled.
    void setScale(dpx::Scale s);
    dpx::Scale scale() const;
    // Selects the histogram's (estimator, metric) and the matching table cell, without emitting.
    // Returns false if the pair is not in the current data.
    bool select(dpx::EstimatorKind e, dpx::Metric m);
    dpx::EstimatorKind selectedEstimator() const { return selEstimator_; }
    dpx::Metric selectedMetric() const { return selMetric_; }

    // The table as CSV: a header row, then one row per estimator with, per metric, the realized
    // and expected values, the 95% half-width (0 for exact) and the method; numbers with 10
    // significant digits, empty fields for unavailable values.
    QString toCsv() const;
    // The selected table cells as tab-separated text (rows on lines), what Ctrl+C copies.
    QString selectionAsText() const;
    void copySelection() const;

    QTableWidget* table() const { return table_; }
    QCustomPlot* histogramPlot() const { return plot_; }
    QLabel* statusLabel() const { return status_; }

Q_SIGNALS:
    void scaleToggled(dpx::Scale s);
    void selectionChanged(dpx::EstimatorKind e, dpx::Metric m);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuildTable();
    void rebuildHistogram();
    void showPlotMessage(const QString& title, const QString& text);
    void updateStatus();
    void applyPalette();
    void fitColumns();
    void fitTableHeight();
    void onCurrentCellChanged(int row, int column);
    int rowOf(dpx::EstimatorKind e) const;
    int metricIndexOf(dpx::Metric m) const;

    ErrorsData data_;
    QString message_;  // non-empty: error / empty state
    dpx::EstimatorKind selEstimator_ = dpx::EstimatorKind::Identity;
    dpx::Metric selMetric_ = dpx::Metric::SSE;
    dpx::Scale toggleScale_ = dpx::Scale::Counts;  // what the toggle shows
    bool updating_ = false;           // programmatic table changes: no selectionChanged
    std::vector<int> contentWidths_;  // per column, from the last rebuild
    // ... with each "value ± half-width" on two lines (the value over "± half-width"): the
    // table's narrow form, used when the one-line widths do not fit (1024 × 768 beside the data
    // panel); the cells' texts stay on one line (copies, tooltips, tests), the delegate draws them.
    std::vector<int> narrowWidths_;
    bool twoLines_ = false;

    QRadioButton* counts_;
    QRadioButton* frequencies_;
    QButtonGroup* scaleGroup_;
    QLabel* status_;
    QTableWidget* table_;
    QLabel* caption_;
    QCustomPlot* plot_;
    QCPTextElement* title_;
    QCPItemText* plotMessage_;
};

// Display names: "Clamp negatives to 0", … and the short "Clamp" used in titles.
QString estimatorDisplayName(dpx::EstimatorKind e);
QString estimatorShortName(dpx::EstimatorKind e);
// "SSE", "L1", "L∞", "Wasserstein-1".
QString metricDisplayName(dpx::Metric m);
// "counts²" / "frequency²" for SSE, "counts" / "frequency" for L1 and L∞; W1 is a distance along
// the bin axis: "counts × bin units" / "bin units".
QString metricUnit(dpx::Metric m, dpx::Scale s);

}  // namespace dpx::ui
