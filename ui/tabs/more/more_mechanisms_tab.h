// The "More mechanisms" tab: one page per mechanism of seeds 003 and 004 that is not per-bin noise
// on the window's histogram — sparse histograms (thresholded Laplace), random DP, selection by the
// exponential mechanism, vector means, and the functional KDE release. A chooser at the top picks
// the page; each page has its own controls, computes on the window's JobRunner and draws one
// main plot (exported by File ▸ Export plot).
//
// Pages that use the data receive the window's current dataset (histogram, table, column) and the
// document's ε, δ and neighbouring relation through setContext(); they recompute when it changes
// and they are visible (or when first shown).
#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "core/histogram/histogram.h"
#include "ui/model/computations.h"
#include "ui/widgets/page.h"

class QComboBox;
class QLabel;
class QStackedWidget;
class QCustomPlot;

namespace dpx::ui {

class JobRunner;

// What a page may use of the window's state.
struct MechanismPageContext {
    std::shared_ptr<const DatasetResult> dataset;  // null or with error: no data loaded
    double epsilon = 1;
    double delta = 1e-6;
    Neighbouring neighbouring = Neighbouring::AddRemove;
    std::uint64_t seed = 1;
    // CSV sources: the file (the dataset keeps only counts; pages that need raw values read it).
    QString csvPath;
};

class MechanismPage : public Page {
    Q_OBJECT
public:
    using Page::Page;
    // The page's main plot (for export and tests); never null after construction.
    virtual QCustomPlot* plot() const = 0;
    // The window's data and parameters changed (or the page is shown for the first time).
    virtual void setContext(const MechanismPageContext& context) = 0;
    // The plot File ▸ Export plot (and the page's export buttons) writes: plot() unless the page
    // has several and one of its buttons asked for another.
    virtual QCustomPlot* plotToExport() const { return plot(); }

protected:
    // The page's inputs changed (e.g. in setContext): refreshPage() now if the page is shown, else
    // when it is next shown, so hidden pages cost nothing.
    void recomputeWhenShown();
    // Called by recomputeWhenShown (pages that use it implement it).
    virtual void refreshPage() {}
    void showEvent(QShowEvent* event) override;

private:
    bool stale_ = false;  // recompute() is due when the page is next shown

Q_SIGNALS:
    // A message for the window's status bar (e.g. why a choice was refused).
    void statusMessage(const QString& text);
};

class MoreMechanismsTab : public QWidget {
    Q_OBJECT
public:
    explicit MoreMechanismsTab(JobRunner* runner, QWidget* parent = nullptr);

    // Page ids, in chooser order: "sparse", "rdp", "select", "vector-mean", "kde".
    const std::vector<QString>& pageIds() const { return ids_; }
    bool showPage(const QString& id);
    QString currentPageId() const;
    MechanismPage* page(const QString& id) const;  // nullptr for an unknown id
    QCustomPlot* currentPlot() const;
    bool busy() const;
    void setContext(const MechanismPageContext& context);

Q_SIGNALS:
    void exportPlotRequested();
    void finished();
    void statusMessage(const QString& text);

private:
    void addPage(const QString& id, const QString& title, MechanismPage* page);

    QComboBox* chooser_;
    QStackedWidget* stack_;
    std::vector<QString> ids_;
    std::vector<MechanismPage*> pages_;
    MechanismPageContext context_;
};

}  // namespace dpx::ui
