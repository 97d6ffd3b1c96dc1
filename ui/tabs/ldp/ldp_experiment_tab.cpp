#include "ui/tabs/ldp/ldp_experiment_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "ui/tabs/ldp/ldp_experiment_page.h"
#include "ui/tabs/ldp/ldp_mean_page.h"
#include "ui/tabs/ldp/ldp_study_page.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

LdpExperimentTab::LdpExperimentTab(JobRunner* runner, QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("ldpExperimentTab"));
    chooser_ = new QComboBox;
    chooser_->setObjectName(QStringLiteral("ldpStudyChooser"));
    chooser_->addItem(
        tr("Telemetry histograms (Ding, Kulkarni & Yekhanin 2017): dBitFlip and other oracles"));
    chooser_->addItem(tr("Range queries (Kulkarni thesis, ch. 5): flat, hierarchical, Haar"));
    chooser_->addItem(tr("Marginals (Kulkarni thesis, ch. 4): INPHT and one-hot"));
    chooser_->addItem(tr("Means (Ding, Kulkarni & Yekhanin 2017): 1BitMean"));
    telemetry_ = new LdpExperimentPage(runner);
    ranges_ = new LdpStudyPage(LdpStudyPage::Mode::Range, runner);
    marginals_ = new LdpStudyPage(LdpStudyPage::Mode::Marginal, runner);
    means_ = new LdpMeanPage(runner);
    stack_ = new QStackedWidget;
    stack_->addWidget(telemetry_);
    stack_->addWidget(ranges_);
    stack_->addWidget(marginals_);
    stack_->addWidget(means_);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Study:")));
    top->addWidget(chooser_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(top);
    layout->addWidget(stack_, 1);
    connect(chooser_, &QComboBox::currentIndexChanged, this,
            [this](int i) { stack_->setCurrentIndex(i); });
    for (QObject* v : {static_cast<QObject*>(telemetry_), static_cast<QObject*>(ranges_),
                       static_cast<QObject*>(marginals_)}) {
        if (auto* t = qobject_cast<LdpExperimentPage*>(v)) {
            connect(t, &LdpExperimentPage::exportPlotRequested, this,
                    &LdpExperimentTab::exportPlotRequested);
            connect(t, &LdpExperimentPage::finished, this, &LdpExperimentTab::finished);
        } else if (auto* s = qobject_cast<LdpStudyPage*>(v)) {
            connect(s, &LdpStudyPage::exportPlotRequested, this,
                    &LdpExperimentTab::exportPlotRequested);
            connect(s, &LdpStudyPage::finished, this, &LdpExperimentTab::finished);
        }
    }
    connect(means_, &LdpMeanPage::exportPlotRequested, this,
            &LdpExperimentTab::exportPlotRequested);
    connect(means_, &LdpMeanPage::finished, this, &LdpExperimentTab::finished);
}

void LdpExperimentTab::showStudy(int index) {
    chooser_->setCurrentIndex(index);
}

int LdpExperimentTab::currentStudy() const {
    return chooser_->currentIndex();
}

QCustomPlot* LdpExperimentTab::currentPlot() const {
    switch (currentStudy()) {
        case 1:
            return ranges_->plot();
        case 2:
            return marginals_->plot();
        case 3:
            return means_->plot();
        default:
            return telemetry_->plot();
    }
}

bool LdpExperimentTab::busy() const {
    switch (currentStudy()) {
        case 1:
            return ranges_->busy();
        case 2:
            return marginals_->busy();
        case 3:
            return means_->busy();
        default:
            return telemetry_->busy();
    }
}

}  // namespace dpx::ui
