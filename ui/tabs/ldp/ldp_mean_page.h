// Means under local DP (Microsoft's 1BitMean, the mean mechanism of the telemetry study's telemetry
// study): the mean absolute error of the estimated mean (hours) against n for each ε, next to the
// normal approximation √(2/π)·σ of the exact variance (core/ldp/mean.h).
#pragma once

#include "core/ldp/mean.h"
#include "ui/widgets/page.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPTextElement;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace dpx::ui {

class JobRunner;

class LdpMeanPage : public Page {
    Q_OBJECT
public:
    explicit LdpMeanPage(JobRunner* runner, QWidget* parent = nullptr);
    // Computing, or no result yet (the preset runs when the page is first shown).
    bool busy() const override { return isRunning() || !hasResult_; }
    bool run();
    void cancel();
    const ldp::MeanStudyResult& result() const { return result_; }
    void setSpec(const ldp::MeanStudySpec& s);
    Expected<ldp::MeanStudySpec> spec() const;
    QCustomPlot* plot() const { return plot_; }
    QString toCsv() const;

protected:
    void showEvent(QShowEvent* event) override;
    void restyle() override;

private:
    void draw();
    JobRunner* runner_;
    QComboBox* shape_ = nullptr;
    QSpinBox* buckets_ = nullptr;
    QLineEdit* users_ = nullptr;
    QLineEdit* epsilons_ = nullptr;
    QSpinBox* repetitions_ = nullptr;
    QLineEdit* seed_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    ldp::MeanStudySpec ran_;
    ldp::MeanStudyResult result_;
    bool ranOnce_ = false;
};

}  // namespace dpx::ui
