#include "ui/tabs/matrix/matrix_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QMouseEvent>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>
#include "ui/widgets/axis_label.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

#include "core/count/count_analysis.h"
#include "core/count/lp_objective.h"
#include "ui/tabs/matrix/matrix_support.h"

namespace dpx::ui {

using namespace matrix;

void MatrixTab::setupLocalPage() {
    localPage_ = new QWidget;
    localVerdict_ = makeChip(QStringLiteral("localPrivacyBadge"));
    localPlot_ = new QCustomPlot;
    fitAxisLabelsOnReplot(localPlot_);
    localPlot_->setObjectName(QStringLiteral("localReportPlot"));
    localPlot_->setMinimumSize(420, 260);
    localPlot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    std::tie(localMap_, localScale_) = setupMatrixHeatmap(localPlot_, logZeroColor());
    localDetails_ = new QLabel;
    localDetails_->setObjectName(QStringLiteral("localDetails"));
    localDetails_->setWordWrap(true);
    localDetails_->setTextFormat(Qt::PlainText);
    localDetails_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* badgeRow = new QHBoxLayout;
    badgeRow->addWidget(localVerdict_);
    badgeRow->addStretch(1);
    auto* layout = new QVBoxLayout(localPage_);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(badgeRow);
    layout->addWidget(localPlot_, 1);
    layout->addWidget(localDetails_);
}

void MatrixTab::setLocalMechanism(const dpx::ldp::ReportMatrix* m, const QString& title,
                                  double epsilon, const QStringList& valueLabels,
                                  const QString& details, const QString& why) {
    clearPending();
    mech_.reset();
    noiseLaw_.reset();
    selected_ = -1;
    updateLpStatus(nullptr);
    title_->setText(title);
    localEpsilon_ = epsilon;
    QString text = details;
    if (!m) {
        report_.reset();
        localPlot_->setVisible(false);
        localVerdict_->setText(tr("ε-local DP by construction (report matrix not enumerated)"));
        styleChip(localVerdict_, ChipStyle::Neutral);
        localVerdict_->setToolTip(
            tr("The report space of this protocol is too large to list as a matrix here (%1); "
               "its privacy follows from the report probabilities below.")
                .arg(why));
        localDetails_->setText(text + QStringLiteral("\n\n") +
                               tr("No report matrix to show: %1.").arg(why));
        showPage(Page::Local);
        return;
    }
    report_ = *m;
    localPlot_->setVisible(true);
    const double achieved = dpx::ldp::localEpsilonOf(*m);
    const QString meaning =
        tr("Achieved local ε is the largest ln(P[r | v] / P[r | v′]) over all reports r and "
           "all pairs of values v, v′: every report is at most e^ε times more likely for one "
           "person's value than for any other value.");
    if (achieved <= epsilon * (1 + 1e-12)) {
        localVerdict_->setText(
            tr("ε-local DP ✓ (achieved ε = %1)").arg(formatSignificantOrSymbol(achieved, 4)));
        styleChip(localVerdict_, ChipStyle::Good);
    } else {
        localVerdict_->setText(std::isinf(achieved)
                                   ? tr("NOT ε-local DP: achieved ε = ∞")
                                   : tr("NOT ε-local DP: achieved ε = %1 > %2")
                                         .arg(formatSignificantOrSymbol(achieved, 6),
                                              formatSignificantOrSymbol(epsilon, 6)));
        styleChip(localVerdict_, ChipStyle::Bad);
    }
    localVerdict_->setToolTip(meaning);
    // Axes: values (the bins) across, reports down; labelled when few enough to read.
    const int values = m->p.empty() ? 0 : static_cast<int>(m->p.front().size());
    const int reports = static_cast<int>(m->p.size());
    auto xt = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const int xStep = std::max(1, values / 16);
    for (int j = 0; j < values; j += xStep) {
        xt->addTick(j, j < valueLabels.size() ? valueLabels[j] : QString::number(j));
    }
    localPlot_->xAxis->setTicker(xt);
    localPlot_->xAxis->setLabel(tr("person's true value (bin)"));
    auto yt = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const int yStep = std::max(1, reports / 24);
    for (int r = 0; r < reports; r += yStep) {
        yt->addTick(r, QString::fromStdString(m->reportLabels[static_cast<std::size_t>(r)]));
    }
    localPlot_->yAxis->setTicker(yt);
    localPlot_->yAxis->setLabel(tr("report sent to the collector"));
    localPlot_->xAxis->setRange(-0.5, values - 0.5);
    localPlot_->yAxis->setRange(-0.5, reports - 0.5);
    localDetails_->setText(text);
    fillLocalHeatmap();
    showPage(Page::Local);
}

void MatrixTab::fillLocalHeatmap() {
    if (!report_ || report_->p.empty()) {
        return;
    }
    const auto& p = report_->p;
    const int reports = static_cast<int>(p.size());
    const int values = static_cast<int>(p.front().size());
    QCPColorMapData* cells = localMap_->data();
    cells->setSize(values, reports);
    cells->setRange(QCPRange(0, std::max(values - 1, 1)), QCPRange(0, std::max(reports - 1, 1)));
    double hi = 0, minPositive = 1;
    for (const auto& row : p) {
        for (double v : row) {
            hi = std::max(hi, v);
            if (v > 0) {
                minPositive = std::min(minPositive, v);
            }
        }
    }
    if (!log_) {
        for (int r = 0; r < reports; ++r) {
            for (int j = 0; j < values; ++j) {
                cells->setCell(j, r, p[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)]);
            }
        }
        localMap_->setDataRange(QCPRange(0, hi > 0 ? hi : 1));
        localScale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        localScale_->axis()->setLabel(tr("P[report | value]"));
    } else {
        const double lf = std::log10(std::max(minPositive, kLogFloor));
        for (int r = 0; r < reports; ++r) {
            for (int j = 0; j < values; ++j) {
                const double v = p[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)];
                cells->setCell(j, r, v > 0 ? std::max(std::log10(v), lf) : kNaN);
            }
        }
        double top = std::log10(std::max(hi, kLogFloor));
        double lo = lf;
        if (top - lo < 1) {
            lo = top - 1;
        }
        localMap_->setDataRange(QCPRange(lo, top));
        auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
        for (int k = static_cast<int>(std::floor(top + 1e-9));
             k >= static_cast<int>(std::ceil(lo - 1e-9)); --k) {
            ticker->addTick(k, decadeLabel(k));
        }
        ticker->setSubTickCount(0);
        localScale_->axis()->setTicker(ticker);
        localScale_->axis()->setLabel(tr("P[report | value] (log scale)"));
    }
    replotWhenVisible(localPlot_);
}

QString MatrixTab::localVerdictText() const {
    return localVerdict_->text();
}

double MatrixTab::localCellValue(int j, int r) const {
    if (!report_ || r < 0 || j < 0 || r >= static_cast<int>(report_->p.size()) ||
        j >= static_cast<int>(report_->p.front().size())) {
        return kNaN;
    }
    return localMap_->data()->cell(j, r);
}

}  // namespace dpx::ui
