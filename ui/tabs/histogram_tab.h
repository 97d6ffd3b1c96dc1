// The "Histogram" tab: the true histogram, one simulated noisy draw and the chosen estimator's
// estimate, overlaid or side by side, with the interval in which each noisy bin falls with
// probability 95%. Hovering a bin shows its exact numbers.
#pragma once

#include <QWidget>

#include "core/estimators/estimator.h"
#include "ui/model/computations.h"

class QCustomPlot;
class QCPBars;
class QCheckBox;
class QLabel;
class QStackedLayout;

namespace dpx::ui {

class HistogramTab : public QWidget {
    Q_OBJECT
public:
    explicit HistogramTab(QWidget* parent = nullptr);

    // `xTitle`: the column and its unit, e.g. "hour (h)".
    void setRelease(const ReleaseResult& r, EstimatorKind estimator, bool overlay,
                    const QString& xTitle);
    void setMessage(const QString& text);
    QCustomPlot* plot() const { return plot_; }
    // The tooltip text for bin i of the current release (also used by tests).
    QString binText(int i) const;
    // Plotted values (tests): truth, noisy, estimate.
    QVector<double> plottedNoisy() const;
    QCheckBox* overlayBox() const { return overlay_; }

Q_SIGNALS:
    void overlayToggled(bool on);

private:
    void hover(QMouseEvent* e);

    QCustomPlot* plot_;
    QLabel* message_;
    QLabel* caption_;
    QCheckBox* overlay_;
    QStackedLayout* stack_;
    ReleaseResult release_;
    EstimatorKind estimator_ = EstimatorKind::Identity;
    QCPBars* noisyBars_ = nullptr;
};

}  // namespace dpx::ui
