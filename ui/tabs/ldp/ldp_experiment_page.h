// The telemetry page of the "Local DP experiment" tab (issue #7): the telemetry study's
// low-population experiment — frequency oracles run by n users over k equal buckets on [0, 24] h,
// for several data shapes, populations and ε, repeated — with the mean histogram error max_v |f̂(v)
// − f(v)| and the Wasserstein-1 distance (hours) plotted against n (or ε) on log–log axes, 95%
// intervals, the analytic expectation of the max error, and the figures the seed reports marked for
// comparison. Computation is core/ldp/experiment.h on the JobRunner's background lane, one job per
// protocol, so the curves appear protocol by protocol; the preset runs when the tab is first shown.
// The experiment's settings are the tab's own (not part of the document or of sessions).
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/ldp/experiment.h"
#include "ui/widgets/page.h"

class QCheckBox;
class QComboBox;
class QCPAxisRect;
class QCPTextElement;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace dpx::ui {

class JobRunner;

class LdpExperimentPage : public Page {
    Q_OBJECT
public:
    enum class Axis { Population, Epsilon };

    explicit LdpExperimentPage(JobRunner* runner, QWidget* parent = nullptr);

    // The experiment the controls describe (validated), or the first problem.
    Expected<ldp::ExperimentSpec> spec() const;
    // Shows `spec` in the controls (protocols outside the offered set are ignored).
    void setSpec(const ldp::ExperimentSpec& spec);
    // Starts the experiment of the controls (replacing any run); false with the reason shown
    // when the controls do not describe a valid experiment.
    bool run();
    void cancel();

    // The points computed so far (protocol indices refer to resultSpec().protocols).
    const std::vector<ldp::ExperimentPoint>& points() const { return points_; }
    const ldp::ExperimentSpec& resultSpec() const { return resultSpec_; }
    // Computing, or no point yet (the preset runs when the page is first shown).
    bool busy() const override { return isRunning() || points_.empty(); }
    void setAxis(Axis a);
    // The fixed value of the other axis: ε when plotting against n, n when plotting against ε.
    void setFixedValue(double v);
    QString toCsv() const;

    QCustomPlot* plot() const { return plot_; }
    int curveCount() const;  // graphs drawn (both panels, without reference marks)

protected:
    void showEvent(QShowEvent* event) override;
    void restyle() override;

private:
    void buildUi();
    void startNext();
    void draw();
    void refreshFixedChoices();
    void exportCsv();

    JobRunner* runner_;
    // Controls.
    std::vector<QCheckBox*> protocolBoxes_;
    std::vector<ldp::ProtocolSpec> protocolChoices_;
    std::vector<QCheckBox*> shapeBoxes_;
    QSpinBox* buckets_ = nullptr;
    QLineEdit* users_ = nullptr;
    QLineEdit* epsilons_ = nullptr;
    QSpinBox* repetitions_ = nullptr;
    QLineEdit* seed_ = nullptr;
    QComboBox* postProcess_ = nullptr;
    QPushButton* preset_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QComboBox* axis_ = nullptr;
    QComboBox* fixed_ = nullptr;
    QComboBox* shapeFilter_ = nullptr;
    QCheckBox* expected_ = nullptr;
    QLabel* comparison_ = nullptr;
    // Plot: the max error above, the Wasserstein distance below, one legend under both.
    QCustomPlot* plot_ = nullptr;
    QCPAxisRect* bottom_ = nullptr;
    QCPTextElement* topTitle_ = nullptr;
    QCPTextElement* bottomTitle_ = nullptr;
    // Run state.
    ldp::ExperimentSpec resultSpec_;
    std::vector<ldp::ExperimentPoint> points_;
    std::size_t nextProtocol_ = 0;
    bool ranOnce_ = false;
    qint64 startedMs_ = 0;
    int curves_ = 0;
};

}  // namespace dpx::ui
