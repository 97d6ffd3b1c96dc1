// Seed 001's two local-DP studies in the Local DP experiment tab (issue #7), core/ldp/study.h:
//  * Range queries: the mean squared error of range answers against ε for the flat baseline,
//    hierarchical histograms HH_B (with and without consistency) and HaarHRR, each next to its
//    analytic prediction or bound (dashed);
//  * Marginals: the mean total-variation error of all k-way marginals of d binary attributes
//    against ε for INPHT and the one-hot baselines.
// One page class for both (mode chosen at construction); computed on the JobRunner's background
// lane, the preset run when the page is first shown.
#pragma once

#include <optional>

#include "core/ldp/study.h"
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

class LdpStudyPage : public Page {
    Q_OBJECT
public:
    enum class Mode { Range, Marginal };

    LdpStudyPage(Mode mode, JobRunner* runner, QWidget* parent = nullptr);

    Mode mode() const { return mode_; }
    // Computing, or no result yet (the preset runs when the page is first shown).
    bool busy() const override { return isRunning() || !hasResult_; }
    bool run();  // false (with the reason shown) when the controls are invalid
    void cancel();
    const ldp::RangeStudyResult& rangeResult() const { return range_; }
    const ldp::MarginalStudyResult& marginalResult() const { return marginal_; }
    void setRangeSpec(const ldp::RangeStudySpec& s);
    void setMarginalSpec(const ldp::MarginalStudySpec& s);
    QCustomPlot* plot() const { return plot_; }
    QString toCsv() const;

protected:
    void showEvent(QShowEvent* event) override;
    void restyle() override;

private:
    void buildUi();
    // Users, ε list, repetitions and seed from the controls both modes share.
    Status readCommon(std::uint64_t& users, std::vector<double>& epsilons, unsigned& repetitions,
                      std::uint64_t& seed) const;
    Expected<ldp::RangeStudySpec> rangeSpec() const;
    Expected<ldp::MarginalStudySpec> marginalSpec() const;
    void draw();
    void done(const QString& text, bool error);
    void exportCsv();

    Mode mode_;
    JobRunner* runner_;
    std::vector<QCheckBox*> methodBoxes_;
    std::vector<ldp::RangeMethodSpec> rangeMethods_;
    std::vector<ldp::MarginalMethodSpec> marginalMethods_;
    QSpinBox* size_ = nullptr;    // range: D; marginal: d
    QSpinBox* order_ = nullptr;   // marginal: k
    QComboBox* shape_ = nullptr;  // range: telemetry shape; marginal: uniform / skewed
    QLineEdit* users_ = nullptr;
    QLineEdit* epsilons_ = nullptr;
    QSpinBox* repetitions_ = nullptr;
    QSpinBox* samples_ = nullptr;     // range: sampled ranges (0 = all)
    QComboBox* negatives_ = nullptr;  // marginal: keep / project
    QLineEdit* seed_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QLabel* notes_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    ldp::RangeStudySpec rangeRun_;
    ldp::MarginalStudySpec marginalRun_;
    ldp::RangeStudyResult range_;
    ldp::MarginalStudyResult marginal_;
    bool ranOnce_ = false;
};

}  // namespace dpx::ui
