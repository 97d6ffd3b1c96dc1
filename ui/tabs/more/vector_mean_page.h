// "Vector means" page of the More mechanisms tab (issue #9; seed 004 §3, seed 003 §1.3): the mean
// of n records in [−1, 1]^d released with the Gaussian mechanism (analytic calibration, or seed
// 004's eq. (4) as printed, which is only (2ε, δ)-DP), Laplace noise (L1) or the K-norm mechanism
// for the L2 ball (core/mechanisms/vector_mechanisms.h). The plot: the expected squared error
// E‖M(X) − μ‖² against n or d (Monte Carlo mean ± standard error, closed forms dashed) next to seed
// 004's upper bound (Thm 4, as printed and with the true Δ₂) and lower bound (Thm 5).
//
// The records are synthetic (±1 coordinates with a common mean, or seed 004's uniform prior); the
// window's dataset is not used. ε and δ follow the window unless overridden on the page.
#pragma once

#include <QString>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/mechanisms/vector_mechanisms.h"
#include "ui/tabs/more/more_mechanisms_tab.h"

class QCheckBox;
class QComboBox;
class QCPTextElement;
class QLabel;
class QLineEdit;

namespace dpx::ui {

class JobRunner;
class JobProgress;

// What the page computes: one Monte Carlo per mechanism and point of the sweep.
struct VectorMeanSweepSpec {
    std::vector<VectorMechanismSpec> mechanisms;
    bool overN = true;            // x axis: n (d fixed) or d (n fixed)
    std::vector<std::size_t> xs;  // the swept values of n or d
    std::size_t n = 1000;         // fixed n (sweep over d)
    std::size_t d = 10;           // fixed d (sweep over n)
    double epsilon = 1;
    double delta = 1e-6;
    MeanPopulation population = MeanPopulation::FixedBias;
    double bias = 0;
    std::size_t trials = 400;
    std::uint64_t seed = 1;
    bool operator==(const VectorMeanSweepSpec& o) const;
};

struct VectorMeanPoint {
    double x = 0;
    std::size_t n = 0, d = 0;
    McEstimate total;          // Monte Carlo E‖M(X) − μ‖²
    double expectedTotal = 0;  // closed form
};

struct VectorMeanCurve {
    VectorMechanismSpec spec;
    std::vector<VectorMeanPoint> points;
    // The mechanism at the page's reference (n, d) (the n and d fields), for the σ / guarantee
    // text; nullopt when refused there.
    std::optional<VectorMeanMechanism> reference;
    std::string refused;  // non-empty: the first refusal of core (reference or a sweep point)
};

struct VectorMeanSweep {
    VectorMeanSweepSpec spec;
    std::vector<VectorMeanCurve> curves;
    std::vector<double> upperPrinted, upper, lower;  // seed 004 bounds at every x
    std::vector<std::string> warnings;               // distinct warnings of core, in order
    bool cancelled = false;
};

// The computation (core only; runs on a worker). Points of the sweep are independent
// simulateMeanError calls with seed spec.seed; a stop request ends it between points.
VectorMeanSweep computeVectorMeanSweep(const VectorMeanSweepSpec& spec, std::stop_token stop,
                                       JobProgress* progress);

// "Gaussian (analytic)", "Gaussian, seed 004 eq. 4 as printed", "Laplace (L1)", "K-norm (L2 ball)".
QString vectorMechanismLabel(const VectorMechanismSpec& spec);

class VectorMeanPage : public MechanismPage {
    Q_OBJECT
public:
    explicit VectorMeanPage(JobRunner* runner, QWidget* parent = nullptr);

    QCustomPlot* plot() const override { return plot_; }
    void setContext(const MechanismPageContext& context) override;

    // The controls' parameters, or why they are invalid.
    Expected<VectorMeanSweepSpec> spec() const;
    // Starts the computation for the controls (false, with the reason shown, when invalid).
    bool recompute();
    const VectorMeanSweep& result() const { return result_; }
    QString detailsText() const;         // the σ / guarantee table as plain text
    bool printedWarningVisible() const;  // the (2ε, δ) warning of the printed calibration

protected:
    void restyle() override;

private:
    void scheduleRecompute();
    void draw();
    void updateDetails();
    void updateEpsilonFields();

    JobRunner* runner_;
    MechanismPageContext context_;
    bool haveContext_ = false;
    QCheckBox* mechGaussian_;
    QComboBox* calibration_;
    QCheckBox* mechPrinted_;
    QCheckBox* mechLaplace_;
    QCheckBox* mechKNorm_;
    QComboBox* axis_;
    QLineEdit* from_;
    QLineEdit* to_;
    QLineEdit* n_;
    QLineEdit* d_;
    QCheckBox* followWindow_;
    QLineEdit* epsilon_;
    QLineEdit* delta_;
    QComboBox* population_;
    QLineEdit* bias_;
    QLineEdit* trials_;
    QLabel* printedWarning_;
    QLabel* details_;
    QCustomPlot* plot_;
    QCPTextElement* title_;
    VectorMeanSweep result_;
    std::optional<VectorMeanSweepSpec> running_spec_;
    std::optional<VectorMeanSweepSpec> cancelledSpec_;  // cancelled by the user (status bar)
    bool pending_ = false;                              // a recompute is scheduled
};

}  // namespace dpx::ui
