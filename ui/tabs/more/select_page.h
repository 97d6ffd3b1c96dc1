// The "Selection" page of the More mechanisms tab: choosing one bin of the window's histogram —
// the mode, or the bin holding the q-quantile — by the exponential mechanism (McSherry & Talwar
// 2007; seed 003 §1.3.4) with the utility sensitivity of the window's neighbouring relation, and
// report-noisy-max (Laplace and exponential noise) for comparison
// (core/mechanisms/exponential_mechanism.h). The main plot is every candidate's selection
// probability as grouped bars with the true answer marked; below it, the same mechanism as a matrix
// (rows = outputs, columns = datasets along a path of neighbours from the mode towards the
// runner-up) as a heatmap, with the verified bound max over adjacent columns of |ln P ratio| ≤ ε as
// a badge.
#pragma once

#include <QString>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/mechanisms/exponential_mechanism.h"
#include "ui/tabs/more/more_mechanisms_tab.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QCPBars;
class QCPColorMap;
class QCPGraph;
class QCPColorScale;
class QCPTextElement;

namespace dpx::ui {

class EpsilonOverride;

class SelectionPage : public MechanismPage {
    Q_OBJECT
public:
    explicit SelectionPage(JobRunner* runner, QWidget* parent = nullptr);

    QCustomPlot* plot() const override { return plot_; }
    QCustomPlot* pathPlot() const { return pathPlot_; }
    QCustomPlot* plotToExport() const override { return exportPath_ ? pathPlot_ : plot_; }
    void setContext(const MechanismPageContext& context) override;

    struct Inputs {
        std::vector<std::int64_t> counts;
        std::vector<std::string> labels;
        SelectionParams params;
        bool operator==(const Inputs& o) const {
            return counts == o.counts && labels == o.labels && params.epsilon == o.params.epsilon &&
                   params.task == o.params.task && params.quantile == o.params.quantile &&
                   params.neighbouring == o.params.neighbouring &&
                   params.useMonotone == o.params.useMonotone;
        }
    };
    // Index into Outcome's per-mechanism arrays.
    enum Mech { Exponential = 0, NoisyMaxLaplace = 1, NoisyMaxExponential = 2 };
    struct Outcome {
        QString error;  // non-empty: nothing else is valid
        SelectionResult selection;
        // Per mechanism (empty probabilities: not computed, see selection.warnings).
        double exact[3] = {0, 0, 0};  // P(output is a true answer)
        double wrong[3] = {0, 0, 0};  // 1 − exact, summed directly (precise when tiny)
        double loss[3] = {0, 0, 0};   // E[max u − u(output)]
        bool available[3] = {false, false, false};
        QString pathError;  // non-empty: no path matrix (why)
        // The full path (core's default) has this many steps; the page draws at most
        // kMaxPathCells / bins columns of it (pathSteps < fullPathSteps: truncated).
        std::size_t fullPathSteps = 0, pathSteps = 0;
        SelectionPathMatrix path;
    };
    const Inputs& inputs() const { return shown_; }
    const Outcome& outcome() const { return outcome_; }
    QString messageText() const;
    QString summaryText() const;  // P(true answer), expected loss (plain text)
    QString guaranteeText() const;
    QString badgeText() const;
    QString titleText() const;
    EpsilonOverride* epsilonControl() const { return eps_; }
    QComboBox* taskControl() const { return task_; }
    QDoubleSpinBox* quantileControl() const { return quantile_; }
    QCheckBox* logControl() const { return log_; }
    // The probability drawn for mechanism m at bin j (bars), and the heatmap's cell (output i,
    // column t) as drawn (probability, not its logarithm). NaN if not drawn.
    double drawnProbability(Mech m, std::size_t j) const;
    double drawnPathCell(std::size_t output, std::size_t column) const;

    static Outcome compute(const Inputs& in);

protected:
    void restyle() override;

private:
    void recompute();
    void refreshPage() override { recompute(); }
    void showMessage(const QString& text);
    void draw();
    void drawBars();
    void drawPath();
    void styleTexts();

    JobRunner* runner_;
    MechanismPageContext context_;
    bool haveContext_ = false;
    Inputs pending_, shown_;
    Outcome outcome_;

    QLabel* data_;
    QComboBox* task_;
    QDoubleSpinBox* quantile_;
    EpsilonOverride* eps_;
    QLabel* relation_;
    QCheckBox* monotone_;
    QCheckBox* log_;
    QLabel* guarantee_;
    QLabel* summary_;
    QLabel* rationale_;
    QLabel* badge_;
    QLabel* pathHint_;
    QCustomPlot* plot_;
    QCPTextElement* title_;
    QCPTextElement* subtitle_;  // P(true answer) of each mechanism
    QCustomPlot* pathPlot_;
    bool exportPath_ = false;  // "Export matrix…" is being handled: export the path heatmap
    QCPTextElement* pathTitle_;
    QCPColorMap* colorMap_;
    QCPColorScale* colorScale_;
    std::vector<QCPBars*> bars_;    // per mechanism (nullptr: not drawn as bars)
    std::vector<QCPGraph*> lines_;  // per mechanism when there are many bins
};

}  // namespace dpx::ui
