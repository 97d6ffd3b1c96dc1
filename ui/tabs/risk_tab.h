// The "Risk" tab (issue #6): what the document's (ε, δ) means for one person in the data
// (core/choosing/risk.h, docs/risk-and-budget.md). Three plots: the largest posterior belief over
// the prior p at the current ε (with the "no information" diagonal), the same over ε for the chosen
// p, and the hypothesis-testing region (false-positive α, false-negative β) with the (ε, δ)
// boundary and, for the Gaussian mechanism, its exact Gaussian-DP curve. A group of k people is
// drawn as a second curve in every plot. The widget only displays: the main window passes the
// level.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/choosing/risk.h"

class QCPTextElement;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QBoxLayout;
class QLabel;
class QPushButton;
class QSpinBox;

namespace dpx::ui {

struct RiskLevel {
    double epsilon = 1;
    double delta = 0;  // 0 for pure-DP mechanisms
    // μ = Δ2/σ of the Gaussian mechanism of the current release; nullopt: not Gaussian, or not
    // available (then gaussianNote says why, if non-empty).
    std::optional<double> gaussianMu;
    QString gaussianNote;
    bool operator==(const RiskLevel&) const = default;
};

class RiskTab : public QWidget {
    Q_OBJECT
public:
    explicit RiskTab(QWidget* parent = nullptr);

    void setLevel(const RiskLevel& level);
    const RiskLevel& level() const { return level_; }

    QDoubleSpinBox* priorSpin() const { return prior_; }
    QSpinBox* groupSpin() const { return group_; }
    // The plain-language sentence for the chosen prior ("someone 50% sure becomes at most 73.1%
    // sure…") as plain text, and the bound it prints.
    QString posteriorText() const;
    double posteriorAtPrior() const { return posteriorAtPrior_; }

    QCustomPlot* posteriorPlot() const { return posterior_; }
    QCustomPlot* epsilonPlot() const { return overEpsilon_; }
    QCustomPlot* regionPlot() const { return region_; }

    // Membership-inference demonstration: the parameters the button asks for (the current ε;
    // δ = max(δ, kTracingMinDelta), the noisy mean released with the chosen mechanism).
    static constexpr double kTracingMinDelta = 1e-6;
    QSpinBox* tracingRecordsSpin() const { return tracingN_; }
    QSpinBox* tracingDimensionsSpin() const { return tracingD_; }
    QPushButton* tracingButton() const { return tracingButton_; }
    // The release's noise (issue #9): Gaussian analytic (default), Gaussian as printed in seed 004
    // (only (2ε, δ)-DP), Laplace, K-norm (pure ε-DP), passed on in tracingParams().mechanism.
    QComboBox* tracingMechanismCombo() const { return tracingMech_; }
    QString tracingText() const;
    dpx::TracingAttackParams tracingParams() const;
    // The simulation's result for `params` (drawn only while they match the current level), or
    // an error / "running" text. clearTracing() removes the ROC.
    void setTracingResult(const dpx::TracingAttackParams& params,
                          const dpx::TracingAttackResult& result);
    void setTracingMessage(const QString& text);
    bool hasTracingRoc() const { return !tracingRoc_.empty(); }

Q_SIGNALS:
    void tracingRequested(const dpx::TracingAttackParams& params);

protected:
    void changeEvent(QEvent* event) override;
    // Narrow (a 1024 × 768 screen): the membership-test plot goes under the posterior plots.
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void drawPosterior();
    void drawOverEpsilon();
    void drawRegion();
    void applyPalette(QCustomPlot* plot, QCPTextElement* title);

    RiskLevel level_;
    QDoubleSpinBox* prior_;
    QSpinBox* group_;
    QBoxLayout* plots_ = nullptr;
    QLabel* sentence_;
    QLabel* groupText_;
    QLabel* caption_;
    QCustomPlot* posterior_;
    QCustomPlot* overEpsilon_;
    QCustomPlot* region_;
    QCPTextElement* posteriorTitle_;
    QCPTextElement* epsilonTitle_;
    QCPTextElement* regionTitle_;
    double posteriorAtPrior_ = 0;
    QSpinBox* tracingN_;
    QSpinBox* tracingD_;
    QPushButton* tracingButton_;
    QComboBox* tracingMech_;
    QString tracingLabel_;  // the simulated mechanism, for the ROC's legend
    QLabel* tracingText_;
    std::vector<dpx::XYPoint> tracingRoc_;  // x = FPR, y = FNR
    double tracingAuc_ = 0.5;
};

}  // namespace dpx::ui
