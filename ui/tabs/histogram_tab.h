// The "Histogram" tab: the true histogram, one simulated noisy draw and the chosen estimator's
// estimate, overlaid or side by side, with the interval in which each noisy bin falls at the chosen
// level (90/95/99 %, issue #22; per bin, and for all bins at once in the caption, from
// core/intervals). Hovering a bin shows its exact numbers.
#pragma once

#include <QWidget>

#include <optional>

#include "core/estimators/estimator.h"
#include "core/intervals/intervals.h"
#include "ui/model/computations.h"

class QCustomPlot;
class QCPBars;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
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
    // The level of the intervals (issue #22), applied at the next setRelease.
    void setIntervalLevel(double level);
    // The caption's line on the intervals (tests).
    QString intervalText() const { return intervalText_; }
    // "Data are a sample of N" (issue #22; 0: not a sample): the caption adds the sampling, DP
    // noise and combined half-widths of the population estimate, and each bin's tooltip its own.
    // With design effect D ≥ 1 (a weighted survey's documented figure, Kish 1965: n_eff = n/D;
    // 1: a simple random sample). Saved in the session (view.sample_of, view.design_effect): the
    // tab emits samplingChanged when the user changes either box.
    void setSamplePopulation(double population);
    void setSampling(double population, double designEffect);
    double samplePopulation() const { return samplePopulation_; }
    double designEffect() const { return designEffect_; }
    QString samplingText() const { return samplingText_; }
    // Bin i's sampling / DP noise / combined half-widths (empty when not a sample or not
    // computable); computed on demand, one bin at a time (cheap enough for the GUI thread).
    std::optional<SamplingIntervals> binSampling(std::size_t i) const;

Q_SIGNALS:
    void overlayToggled(bool on);
    void intervalLevelChanged(double level);
    void samplingChanged(double population, double designEffect);

private:
    void hover(QMouseEvent* e);
    void updateSamplingText();

    QCustomPlot* plot_;
    QLabel* message_;
    QLabel* caption_;
    QCheckBox* overlay_;
    QComboBox* levelBox_;
    QStackedLayout* stack_;
    double level_ = 0.95;
    double bandLevel_ = 0.95;  // the level of bandLo_/bandHi_ (95 % for local protocols)
    std::vector<double> bandLo_, bandHi_;
    // After resize / NoiseFirst: the interval a release would state around each estimate.
    std::vector<double> estimateLo_, estimateHi_;
    QString intervalText_;
    ReleaseResult release_;
    EstimatorKind estimator_ = EstimatorKind::Identity;
    QString xTitle_;
    QDoubleSpinBox* sampleBox_ = nullptr;
    QDoubleSpinBox* designBox_ = nullptr;
    double samplePopulation_ = 0;
    double designEffect_ = 1;
    QString samplingText_;
    QCPBars* noisyBars_ = nullptr;
};

}  // namespace dpx::ui
