// The "Random DP" page of the More mechanisms tab (seed 003, Hall's thesis, ch. 5, eq. (5.3) and
// Fig. 5.1): the (ε, γ)-random-DP histogram — cells with 2k(c_j + 1) ≤ γn released exactly, the
// others with Laplace 2/(nε) on the proportions — side by side with the ε-DP version (Laplace
// 2/(nε) on every cell), on the window's histogram. Labelled WEAKER THAN DP in the title, the
// legend and a visible explanation. Shows one release of each against the truth (proportions),
// which cells went un-noised, and the L1/L2 errors of both (exact expectations and a seeded Monte
// Carlo with mean ± standard error, whose L1 distributions are the figure's right column).
#pragma once

#include <QString>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/mechanisms/random_dp.h"
#include "ui/tabs/more/more_mechanisms_tab.h"

class QLabel;
class QSpinBox;
class QCPTextElement;
class QCPAxisRect;

namespace dpx::ui {

class EpsilonOverride;
class LogSliderField;

class RandomDpPage : public MechanismPage {
    Q_OBJECT
public:
    explicit RandomDpPage(JobRunner* runner, QWidget* parent = nullptr);

    QCustomPlot* plot() const override { return plot_; }
    void setContext(const MechanismPageContext& context) override;

    // What one computation used and gave (tests read the drawn numbers from here).
    struct Inputs {
        std::vector<std::int64_t> counts;
        std::vector<std::string> labels;
        double epsilon = 1, gamma = 0.1;
        std::uint64_t trials = 2000, seed = 1;
        bool operator==(const Inputs&) const = default;
    };
    struct Outcome {
        QString error;  // non-empty: nothing else is valid
        RandomDpPlan plan;
        std::vector<double> rdp, dp;  // one simulated release of each (proportions)
        RandomDpMonteCarloResult mc;
    };
    const Inputs& inputs() const { return shown_; }
    const Outcome& outcome() const { return outcome_; }
    QString messageText() const;  // the status line (errors, empty data)
    QString cellsText() const;    // which cells went un-noised
    QString errorsText() const;   // the error table (plain text)
    QString titleText() const;    // the plot's title
    EpsilonOverride* epsilonControl() const { return eps_; }
    LogSliderField* gammaControl() const { return gamma_; }
    QSpinBox* trialsControl() const { return trials_; }

    // Core only: the computation the page runs on a worker (tests call it to compare).
    static Outcome compute(const Inputs& in, std::stop_token stop = {},
                           const std::function<void(double)>& progress = {});

protected:
    void restyle() override;

private:
    void recompute();
    void refreshPage() override { recompute(); }
    void showResultStatus();
    void showMessage(const QString& text);
    void draw();
    void styleTexts();

    JobRunner* runner_;
    MechanismPageContext context_;
    bool haveContext_ = false;
    Inputs pending_, shown_;
    Outcome outcome_;
    double gammaValue_ = 0.1;

    QLabel* banner_;
    QLabel* data_;
    EpsilonOverride* eps_;
    LogSliderField* gamma_;
    QSpinBox* trials_;
    QLabel* explain_;
    QLabel* cells_;
    QLabel* errors_;
    QLabel* guarantee_;
    QCustomPlot* plot_;
    QCPTextElement* title_;
    std::vector<QCPTextElement*> panelTitles_;
    QCPAxisRect *dpRect_, *rdpRect_, *dpErrRect_, *rdpErrRect_;
};

}  // namespace dpx::ui
