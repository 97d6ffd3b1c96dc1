// The "Functional KDE" page of the More mechanisms tab (seed 003 ch. 3, §3.3.1; issue #9): a
// kernel density estimate of a numeric column released as a function, f̃ = f_D + (c(δ)Δ/ε)·G on
// a grid, G the Gaussian process with covariance exp(−(x − y)²/(2h²))
// (core/mechanisms/functional_kde.h). The plot shows the true KDE (thick), several sampled releases
// (thin) and the ±2·sd pointwise band; the text gives the pointwise sd, the factorisation (pivoted
// Cholesky, no jitter) and the guarantee. Data: a numeric column of the window's dataset, used as
// it is (no rescaling: Δ holds for any real values, so x and h are in the column's unit), or seed
// 003 Fig. 3.2's example. ε and δ follow the window unless overridden. Computed on the JobRunner
// (slot "kde"): every change supersedes and stops the previous run.
#pragma once

#include <QString>
#include <memory>
#include <optional>

#include "core/mechanisms/functional_kde.h"
#include "ui/tabs/more/more_mechanisms_tab.h"

class QCheckBox;
class QComboBox;
class QCPTextElement;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace dpx::ui {

class LogSliderField;

// What the page computed: the release and what it was computed from.
struct KdePageResult {
    QString error;  // non-empty: nothing else is valid (shown on the page)
    FunctionalKdeResult release;
    bool example = false;
    QString column;           // the column (empty for the example)
    QString unit;             // the column's unit ("" if none or unknown)
    std::size_t n = 0;        // values used (missing skipped)
    std::size_t missing = 0;  // missing values skipped
    double dataMin = 0, dataMax = 0;
    double silverman = 0;  // Silverman's rule on the data (0 if it failed)
    double bandwidth = 0;  // h used
    bool gridAuto = true;  // the grid range came from the data (± 3h) or the example
    // A CSV source's table, read by the worker (the window keeps only counts), for the page's
    // cache.
    std::shared_ptr<const DataTable> csvTable;
    QString csvKey;
    double epsilon = 1, delta = 0.1;
    GaussianCalibration calibration = GaussianCalibration::Analytic;
    std::uint64_t seed = 1;  // release seed
};

class KdePage : public MechanismPage {
    Q_OBJECT
public:
    enum class Source { Column, Example };
    enum class YRange { KeepTruthReadable, FitEverything };

    explicit KdePage(JobRunner* runner, QWidget* parent = nullptr);

    QCustomPlot* plot() const override { return plot_; }
    bool busy() const override;
    void setContext(const MechanismPageContext& context) override;

    // For tests and sessions: the shown result (valid when hasResult()), the page's texts.
    const KdePageResult& result() const { return result_; }
    QString infoText() const;     // the numbers and the guarantee (plain text)
    QString messageText() const;  // the error or note above the plot (plain text)
    // The Fig. 3.2 setting: example data, h = 0.1, ε = 1, δ = 0.1, 1000 points on [0, 1].
    void useFig32Setting();
    void setSource(Source s);
    void setColumn(const QString& name);
    void setBandwidthText(const QString& text);
    void setEpsilonOverride(std::optional<double> epsilon);  // nullopt: follow the window
    void setDeltaOverride(std::optional<double> delta);
    void setGridPoints(int m);
    void setReleases(int k);
    void setYRange(YRange r);
    void setCalibration(GaussianCalibration c);  // Analytic or Seed
    void drawAgain();
    // The y range shown and how many release values lie outside it.
    double yLo() const;
    double yHi() const;
    std::size_t clippedValues() const { return clipped_; }

protected:
    void restyle() override;

private:
    void buildUi();
    void refillColumns();
    void schedule();  // recompute soon (coalesces bursts of edits)
    void compute();
    void deliver(KdePageResult r);
    void draw();
    void showMessage(const QString& text, bool error);
    void updateBandwidthSlider();
    double effectiveEpsilon() const;
    double effectiveDelta() const;

    JobRunner* runner_;
    MechanismPageContext context_;
    bool haveContext_ = false;
    bool autoSource_ = true;  // the source follows the data until the user picks one
    QComboBox* source_ = nullptr;
    QComboBox* column_ = nullptr;
    QLabel* dataText_ = nullptr;
    QLineEdit* bandwidth_ = nullptr;
    QSlider* bandwidthSlider_ = nullptr;
    QPushButton* silverman_ = nullptr;
    QLabel* bandwidthHint_ = nullptr;
    QCheckBox* followEpsilon_ = nullptr;
    LogSliderField* epsilon_ = nullptr;
    QCheckBox* followDelta_ = nullptr;
    LogSliderField* delta_ = nullptr;
    QComboBox* calibration_ = nullptr;
    QSpinBox* gridPoints_ = nullptr;
    QLineEdit* gridLo_ = nullptr;
    QLineEdit* gridHi_ = nullptr;
    QSpinBox* releases_ = nullptr;
    QCheckBox* band_ = nullptr;
    QComboBox* yRange_ = nullptr;
    QPushButton* drawAgain_ = nullptr;
    QLabel* message_ = nullptr;
    QLabel* info_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QTimer* debounce_ = nullptr;

    double epsilonOverride_ = 1, deltaOverride_ = 0.1;
    bool bandwidthAuto_ = true;  // h follows the source's default until the user edits it
    double sliderLo_ = 1e-3, sliderHi_ = 1;  // the h slider's log range (from the data's spread)
    std::uint64_t draws_ = 0;  // "Draw again" presses: release seed = window seed + draws
    KdePageResult result_;
    std::shared_ptr<const DataTable> csvTable_;  // the last CSV file read, for csvKey_
    QString csvKey_;                             // its path, row count and time stamp
    std::size_t clipped_ = 0;
    bool updating_ = false;  // filling controls from code: no recompute
};

}  // namespace dpx::ui
