// Seed 001's two local-DP studies in the Local DP experiment tab (issue #7), core/ldp/study.h:
//  * Range queries: the mean squared error of range answers against ε for the flat baseline,
//    hierarchical histograms HH_B (with and without consistency) and HaarHRR, each next to its
//    analytic prediction or bound (dashed);
//  * Marginals: the mean total-variation error of all k-way marginals of d binary attributes
//    against ε for INPHT and the one-hot baselines.
// One view class for both (mode chosen at construction); computed on the JobRunner's background
// lane, the preset run when the view is first shown. Also: LdpExperimentTab, the tab itself,
// which switches between seed 002's telemetry experiment and these two studies.
#pragma once

#include <QWidget>
#include <optional>

#include "core/ldp/mean.h"
#include "core/ldp/study.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPTextElement;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace dpx::ui {

class JobRunner;
class LdpExperimentView;

class LdpStudyView : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Range, Marginal };

    LdpStudyView(Mode mode, JobRunner* runner, QWidget* parent = nullptr);

    Mode mode() const { return mode_; }
    bool run();  // false (with the reason shown) when the controls are invalid
    void cancel();
    bool isRunning() const { return running_; }
    bool hasResult() const { return hasResult_; }
    const ldp::RangeStudyResult& rangeResult() const { return range_; }
    const ldp::MarginalStudyResult& marginalResult() const { return marginal_; }
    void setRangeSpec(const ldp::RangeStudySpec& s);
    void setMarginalSpec(const ldp::MarginalStudySpec& s);
    QCustomPlot* plot() const { return plot_; }
    QString statusText() const;
    QString toCsv() const;

Q_SIGNALS:
    void finished();
    void exportPlotRequested();

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void buildUi();
    // Users, ε list, repetitions and seed from the controls both modes share.
    Status readCommon(std::uint64_t& users, std::vector<double>& epsilons, unsigned& repetitions,
                      std::uint64_t& seed) const;
    Expected<ldp::RangeStudySpec> rangeSpec() const;
    Expected<ldp::MarginalStudySpec> marginalSpec() const;
    void draw();
    void setStatus(const QString& text, bool error = false);
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
    QLabel* status_ = nullptr;
    QLabel* notes_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    ldp::RangeStudySpec rangeRun_;
    ldp::MarginalStudySpec marginalRun_;
    ldp::RangeStudyResult range_;
    ldp::MarginalStudyResult marginal_;
    bool running_ = false;
    bool hasResult_ = false;
    bool ranOnce_ = false;
};

// Means under local DP (Microsoft's 1BitMean, the mean mechanism of seed 002's telemetry study):
// the mean absolute error of the estimated mean (hours) against n for each ε, next to the normal
// approximation √(2/π)·σ of the exact variance (core/ldp/mean.h).
class LdpMeanView : public QWidget {
    Q_OBJECT
public:
    explicit LdpMeanView(JobRunner* runner, QWidget* parent = nullptr);
    bool run();
    void cancel();
    bool isRunning() const { return running_; }
    bool hasResult() const { return hasResult_; }
    const ldp::MeanStudyResult& result() const { return result_; }
    void setSpec(const ldp::MeanStudySpec& s);
    Expected<ldp::MeanStudySpec> spec() const;
    QCustomPlot* plot() const { return plot_; }
    QString statusText() const;
    QString toCsv() const;

Q_SIGNALS:
    void finished();
    void exportPlotRequested();

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void draw();
    void setStatus(const QString& text, bool error = false);
    JobRunner* runner_;
    QComboBox* shape_ = nullptr;
    QSpinBox* buckets_ = nullptr;
    QLineEdit* users_ = nullptr;
    QLineEdit* epsilons_ = nullptr;
    QSpinBox* repetitions_ = nullptr;
    QLineEdit* seed_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QLabel* status_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    ldp::MeanStudySpec ran_;
    ldp::MeanStudyResult result_;
    bool running_ = false;
    bool hasResult_ = false;
    bool ranOnce_ = false;
};

// The "Local DP experiment" tab: a study chooser over seed 002's telemetry experiment and seed
// 001's range-query and marginal studies.
class LdpExperimentTab : public QWidget {
    Q_OBJECT
public:
    explicit LdpExperimentTab(JobRunner* runner, QWidget* parent = nullptr);

    LdpExperimentView* telemetry() const { return telemetry_; }
    LdpStudyView* ranges() const { return ranges_; }
    LdpStudyView* marginals() const { return marginals_; }
    LdpMeanView* means() const { return means_; }
    void showStudy(int index);  // 0 telemetry, 1 ranges, 2 marginals, 3 means
    int currentStudy() const;
    QCustomPlot* currentPlot() const;
    // True while the shown study computes or has nothing to show yet (screenshots wait).
    bool busy() const;

Q_SIGNALS:
    void exportPlotRequested();
    void finished();

private:
    QComboBox* chooser_;
    QStackedWidget* stack_;
    LdpExperimentView* telemetry_;
    LdpStudyView* ranges_;
    LdpStudyView* marginals_;
    LdpMeanView* means_;
};

}  // namespace dpx::ui
