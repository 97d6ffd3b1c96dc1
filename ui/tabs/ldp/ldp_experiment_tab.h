// The "Local DP experiment" tab: a study chooser over the low-population telemetry experiment and
// seed 001's range-query and marginal studies.
#pragma once

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QStackedWidget;

namespace dpx::ui {

class JobRunner;
class LdpExperimentPage;
class LdpStudyPage;
class LdpMeanPage;

class LdpExperimentTab : public QWidget {
    Q_OBJECT
public:
    explicit LdpExperimentTab(JobRunner* runner, QWidget* parent = nullptr);

    LdpExperimentPage* telemetry() const { return telemetry_; }
    LdpStudyPage* ranges() const { return ranges_; }
    LdpStudyPage* marginals() const { return marginals_; }
    LdpMeanPage* means() const { return means_; }
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
    LdpExperimentPage* telemetry_;
    LdpStudyPage* ranges_;
    LdpStudyPage* marginals_;
    LdpMeanPage* means_;
};

}  // namespace dpx::ui
