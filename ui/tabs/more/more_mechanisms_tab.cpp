#include "ui/tabs/more/more_mechanisms_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "ui/tabs/more/kde_page.h"
#include "ui/tabs/more/rdp_page.h"
#include "ui/tabs/more/select_page.h"
#include "ui/tabs/more/sparse_page.h"
#include "ui/tabs/more/vector_mean_page.h"

namespace dpx::ui {

void MechanismPage::recomputeWhenShown() {
    stale_ = !isVisible();
    if (!stale_) {
        refreshPage();
    }
}

void MechanismPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) {
        stale_ = false;
        refreshPage();
    }
}

MoreMechanismsTab::MoreMechanismsTab(JobRunner* runner, QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("moreMechanismsTab"));
    chooser_ = new QComboBox;
    chooser_->setObjectName(QStringLiteral("mechanismPageChooser"));
    // The pages' titles are sentences: the box shows what fits (all of them when opened) rather
    // than set the tab's width (552 px made the tab scroll sideways beside a CSV file's data
    // panel at 1024 × 768).
    chooser_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    chooser_->setMinimumContentsLength(24);
    stack_ = new QStackedWidget;
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Mechanism:")));
    top->addWidget(chooser_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(top);
    layout->addWidget(stack_, 1);

    // One line per page (seed 003 §2.4.1 and ch. 5, the exponential mechanism, seed 003 §1.3 /
    // seed 004, seed 003 ch. 3).
    (void)runner;
    addPage(QStringLiteral("sparse"),
            tr("Sparse histograms (Hall 2012, §2.4.1): thresholded Laplace"),
            new SparsePage(runner));
    addPage(QStringLiteral("rdp"),
            tr("Random DP (Hall 2012, ch. 5): exact rare cells — WEAKER than DP"),
            new RandomDpPage(runner));
    addPage(QStringLiteral("select"),
            tr("Selection (exponential mechanism): the mode or a quantile bin"),
            new SelectionPage(runner));
    addPage(
        QStringLiteral("vector-mean"),
        tr("Vector means (Kamath & Ullman primer §3, Hall 2012 §1.3): Gaussian, Laplace, K-norm"),
        new VectorMeanPage(runner));
    addPage(QStringLiteral("kde"),
            tr("Functional KDE (Hall 2012, ch. 3): a density released as a whole curve"),
            new KdePage(runner));

    connect(chooser_, &QComboBox::currentIndexChanged, this, [this](int i) {
        stack_->setCurrentIndex(i);
        if (i >= 0 && i < static_cast<int>(pages_.size())) {
            pages_[static_cast<std::size_t>(i)]->setContext(context_);
        }
    });
}

void MoreMechanismsTab::addPage(const QString& id, const QString& title, MechanismPage* page) {
    page->setObjectName(id + QStringLiteral("Page"));
    ids_.push_back(id);
    pages_.push_back(page);
    stack_->addWidget(page);
    chooser_->addItem(title, id);
    connect(page, &MechanismPage::exportPlotRequested, this,
            &MoreMechanismsTab::exportPlotRequested);
    connect(page, &MechanismPage::finished, this, &MoreMechanismsTab::finished);
    connect(page, &MechanismPage::statusMessage, this, &MoreMechanismsTab::statusMessage);
}

bool MoreMechanismsTab::showPage(const QString& id) {
    for (std::size_t i = 0; i < ids_.size(); ++i) {
        if (ids_[i] == id) {
            chooser_->setCurrentIndex(static_cast<int>(i));
            return true;
        }
    }
    return false;
}

QString MoreMechanismsTab::currentPageId() const {
    const int i = chooser_->currentIndex();
    return i >= 0 ? ids_[static_cast<std::size_t>(i)] : QString();
}

MechanismPage* MoreMechanismsTab::page(const QString& id) const {
    for (std::size_t i = 0; i < ids_.size(); ++i) {
        if (ids_[i] == id) {
            return pages_[i];
        }
    }
    return nullptr;
}

QCustomPlot* MoreMechanismsTab::currentPlot() const {
    const int i = chooser_->currentIndex();
    return i >= 0 ? pages_[static_cast<std::size_t>(i)]->plotToExport() : nullptr;
}

bool MoreMechanismsTab::busy() const {
    const int i = chooser_->currentIndex();
    return i >= 0 && pages_[static_cast<std::size_t>(i)]->busy();
}

// Only the shown page recomputes now; the others when they are shown (currentIndexChanged).
void MoreMechanismsTab::setContext(const MechanismPageContext& context) {
    context_ = context;
    const int i = chooser_->currentIndex();
    if (i >= 0) {
        pages_[static_cast<std::size_t>(i)]->setContext(context_);
    }
}

}  // namespace dpx::ui
