#include "ui/tabs/more/sparse_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/validation.h"
#include "core/histogram/example_datasets.h"
#include "ui/model/job_runner.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("sparse");
// The seed's colours (Figs. 2.3–2.4): sparse method blue, Laplace clamped red.
const QColor kThresholded(31, 119, 180);
const QColor kClamped(214, 39, 40);
// The per-cell plot shows every cell up to this many; above, the cells that are occupied or
// released non-zero, in cell order, in a window of kCellWindow cells that can be dragged/zoomed.
constexpr std::size_t kAllCellsUpTo = 128;
constexpr double kCellWindow = 48;

const char* exampleId(SparsePage::Data d) {
    return d == SparsePage::Data::EdwardsLike ? "edwards-like" : "nltcs-like";
}

// Integer ticks labelled with the shown cells' labels (the per-cell plot's x axis).
class CellTicker : public QCPAxisTicker {
public:
    explicit CellTicker(std::vector<QString> labels) : labels_(std::move(labels)) {}

protected:
    double getTickStep(const QCPRange& range) override {
        return std::max(1.0, std::round(QCPAxisTicker::getTickStep(range)));
    }
    int getSubTickCount(double) override { return 0; }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        const double i = std::round(tick);
        if (i < 0 || i >= static_cast<double>(labels_.size())) {
            return {};
        }
        return labels_[static_cast<std::size_t>(i)];
    }

private:
    std::vector<QString> labels_;
};

bool sameInputs(const SparsePage::Spec& a, const SparsePage::Spec& b) {
    return a.data == b.data && a.counts == b.counts && a.table == b.table &&
           a.params.epsilon == b.params.epsilon && a.params.threshold == b.params.threshold &&
           a.trials == b.trials && a.seed == b.seed;
}

// The page on a table above kMaxBins cells: the Monte Carlo on the whole domain without visiting
// its empty cells, and for the per-cell plot the occupied cells and those trial 0 released.
SparsePage::Result runOnTable(const SparsePage::Spec& s, std::stop_token stop,
                              JobProgress& progress) {
    SparsePage::Result r;
    r.spec = s;
    const ContingencyTable& table = *s.table;
    MonteCarloOptions mo;
    mo.trials = s.trials;
    mo.seed = s.seed;
    mo.stop = stop;
    mo.progress = [&progress](double f) { progress.set(f); };
    auto mc = sparseDomainMonteCarlo(table, s.params, mo);
    if (!mc) {
        r.error = QString::fromStdString(mc.error().message);
        return r;
    }
    r.mc = std::move(mc->mc);
    r.domain = mc->exact;
    // Occupied cells and released cells, merged in index order.
    const auto& released = mc->firstRelease.cells;
    std::size_t k = 0;
    auto addReleasedBefore = [&](std::uint64_t limit) {
        for (; k < released.size() && released[k].first < limit; ++k) {
            r.cellIndices.push_back(released[k].first);
            r.counts.push_back(0);
            r.release.push_back(released[k].second);
        }
    };
    table.forEachOccupied([&](std::uint64_t i, std::int64_t c) {
        addReleasedBefore(i);
        r.cellIndices.push_back(i);
        r.counts.push_back(c);
        const bool out = k < released.size() && released[k].first == i;
        r.release.push_back(out ? released[k].second : 0.0);
        k += out ? 1 : 0;
    });
    for (; k < released.size(); ++k) {  // released cells after the last occupied one
        r.cellIndices.push_back(released[k].first);
        r.counts.push_back(0);
        r.release.push_back(released[k].second);
    }
    r.labels.reserve(r.cellIndices.size());
    for (std::uint64_t i : r.cellIndices) {
        r.labels.push_back(table.cellLabel(i));
    }
    return r;
}

}  // namespace

SparsePage::SparsePage(JobRunner* runner, QWidget* parent)
    : MechanismPage(parent), runner_(runner) {
    data_ = new QComboBox;
    data_->setObjectName(QStringLiteral("sparseData"));
    data_->addItem(tr("The window's data (its histogram or table)"),
                   static_cast<int>(Data::Window));
    data_->addItem(tr("Edwards-like: 64 cells, 22 occupied, n = 70 (Hall 2012, Fig. 2.3)"),
                   static_cast<int>(Data::EdwardsLike));
    data_->addItem(tr("NLTCS-like: 2^16 cells, 3 152 occupied, n = 21 574 (Fig. 2.4)"),
                   static_cast<int>(Data::NltcsLike));
    data_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    data_->setMinimumContentsLength(16);
    data_->setToolTip(
        tr("The two tables are synthetic, generated with the shapes of the "
           "tables in Hall 2012 (core/histogram/example_datasets.h)."));
    dataInfo_ = new QLabel;
    dataInfo_->setObjectName(QStringLiteral("sparseDataInfo"));
    dataInfo_->setWordWrap(true);
    ownEpsilon_ = new QCheckBox(tr("own ε"));
    ownEpsilon_->setObjectName(QStringLiteral("sparseOwnEpsilon"));
    ownEpsilon_->setToolTip(tr("Unchecked: the window's ε (mechanism panel)."));
    epsilon_ = new QLineEdit;
    epsilon_->setObjectName(QStringLiteral("sparseEpsilon"));
    ownThreshold_ = new QCheckBox(tr("own τ"));
    ownThreshold_->setObjectName(QStringLiteral("sparseOwnThreshold"));
    ownThreshold_->setToolTip(
        tr("Unchecked: τ = (2/ε)·ln p (Hall 2012, eq. (2.4)). A τ of your own must be fixed before "
           "looking at the data, or the release is no longer ε-DP."));
    threshold_ = new QLineEdit;
    threshold_->setObjectName(QStringLiteral("sparseThreshold"));
    trials_ = new QSpinBox;
    trials_->setObjectName(QStringLiteral("sparseTrials"));
    trials_->setRange(2, 1'000'000);
    trials_->setValue(1000);
    trials_->setGroupSeparatorShown(true);
    trials_->setToolTip(
        tr("Monte Carlo trials. The seed used 15 000 (Edwards) and 1 000 (NLTCS)."));
    seed_ = new QLineEdit(QStringLiteral("1"));
    seed_->setObjectName(QStringLiteral("sparseSeed"));
    seed_->setToolTip(tr("Seed of the simulation generator (not a release: simulations only)."));

    auto* epsRow = new QHBoxLayout;
    epsRow->addWidget(epsilon_, 1);
    epsRow->addWidget(ownEpsilon_);
    auto* tauRow = new QHBoxLayout;
    tauRow->addWidget(threshold_, 1);
    tauRow->addWidget(ownThreshold_);
    auto* form = new QFormLayout;
    form->addRow(tr("Data"), data_);
    form->addRow(dataInfo_);
    form->addRow(tr("ε"), epsRow);
    form->addRow(tr("Threshold τ"), tauRow);
    form->addRow(tr("Trials"), trials_);
    form->addRow(tr("Seed"), seed_);
    run_ = new QPushButton(tr("Run"));
    run_->setObjectName(QStringLiteral("sparseRun"));
    cancel_ = new QPushButton(tr("Cancel"));
    setRunButtons(run_, cancel_);
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    makeStatusLine(QStringLiteral("sparseStatus"));
    statusLine()->setTextInteractionFlags(Qt::TextSelectableByMouse);
    numbers_ = new QLabel;
    numbers_->setObjectName(QStringLiteral("sparseNumbers"));
    numbers_->setWordWrap(true);
    numbers_->setTextFormat(Qt::RichText);
    numbers_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    zoom_ = new QComboBox;
    zoom_->setObjectName(QStringLiteral("sparseZoom"));
    zoom_->addItem(tr("both, from 0 to the bound"));
    zoom_->addItem(tr("the thresholded errors"));
    zoom_->addItem(tr("the clamped errors"));
    zoom_->setToolTip(
        tr("The x range of the L1 plot (or drag and scroll the x axis). On large "
           "sparse tables the two distributions lie far apart and are narrow."));
    auto* zoomRow = new QHBoxLayout;
    zoomRow->addWidget(new QLabel(tr("Show")));
    zoomRow->addWidget(zoom_, 1);
    auto* exportPlot = new QPushButton(tr("Export plot…"));
    exportPlot->setToolTip(tr("The L1 error distribution (PNG, SVG or PDF)"));

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addLayout(form);
    sideLayout->addLayout(buttons);
    sideLayout->addWidget(statusLine());
    sideLayout->addWidget(numbers_);
    sideLayout->addLayout(zoomRow);
    sideLayout->addWidget(exportPlot);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, 340, 340);

    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("sparsePlot"));
    plot_->setMinimumSize(420, 340);
    title_ = addPlotTitle(plot_);
    plot_->xAxis->setLabel(tr("L1 error ‖h̃ − h‖₁ of one release (records)"));
    plot_->yAxis->setLabel(tr("share of trials per bar (%)"));
    plot_->legend->setVisible(true);
    // The legend goes under the axis rect: inside, it would hide a distribution or the bound.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->addElement(2, 0, plot_->legend);
    // As many columns as fit the plot's width (at most 2): entries are never cut.
    wrapLegendToWidth(plot_, 2);
    plot_->legend->setMargins(QMargins(5, 3, 5, 3));
    plot_->plotLayout()->setRowStretchFactor(2, 0.001);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);

    cellsPlot_ = new QCustomPlot;
    cellsPlot_->setObjectName(QStringLiteral("sparseCellsPlot"));
    cellsPlot_->setMinimumSize(420, 340);
    cellsTitle_ = addPlotTitle(cellsPlot_);
    cellsPlot_->yAxis->setLabel(tr("count (records)"));
    cellsPlot_->legend->setVisible(true);
    cellsPlot_->axisRect()->insetLayout()->take(cellsPlot_->legend);
    cellsPlot_->plotLayout()->addElement(2, 0, cellsPlot_->legend);
    // As many columns as fit the plot's width (at most 3): entries are never cut.
    wrapLegendToWidth(cellsPlot_, 3);
    cellsPlot_->legend->setMargins(QMargins(5, 3, 5, 3));
    cellsPlot_->plotLayout()->setRowStretchFactor(2, 0.001);
    cellsPlot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    cellsPlot_->axisRect()->setRangeDrag(Qt::Horizontal);
    cellsPlot_->axisRect()->setRangeZoom(Qt::Horizontal);
    connect(cellsPlot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this] { fitCellsY(); });

    plots_ = new QTabWidget;
    plots_->addTab(plot_, tr("L1 error over trials"));
    plots_->addTab(cellsPlot_, tr("One release, cell by cell"));

    placeBesideSidePanel(plots_, scroll, true);

    connect(data_, &QComboBox::currentIndexChanged, this, [this] {
        // The seed's trial counts for its two tables.
        const auto d = static_cast<Data>(data_->currentData().toInt());
        if (d != Data::Window) {
            const QSignalBlocker b(trials_);
            trials_->setValue(d == Data::EdwardsLike ? 15000 : 1000);
        }
        updateControls();
        edited();
    });
    connect(ownEpsilon_, &QCheckBox::toggled, this, [this] {
        updateControls();
        edited();
    });
    connect(ownThreshold_, &QCheckBox::toggled, this, [this] {
        updateControls();
        edited();
    });
    for (QLineEdit* e : {epsilon_, threshold_, seed_}) {
        connect(e, &QLineEdit::editingFinished, this, [this] {
            updateControls();
            edited();
        });
    }
    connect(trials_, &QSpinBox::editingFinished, this, [this] { edited(); });
    connect(zoom_, &QComboBox::currentIndexChanged, this, [this] { applyZoom(); });
    connect(run_, &QPushButton::clicked, this, [this] { run(true); });
    connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    connect(runner_, &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot == kSlot && isRunning()) {
            setRunning(false);
            failed_ = !result_;
            setStatus(result_ ? tr("Cancelled; the plots show the previous run.")
                              : tr("Cancelled. Press Run to start again."));
            Q_EMIT finished();
        }
    });

    applyPlotPalette(plot_, palette());
    applyPlotPalette(cellsPlot_, palette());
    updateControls();
    draw();
}

bool SparsePage::busy() const {
    return isRunning() || (!result_ && !failed_);
}

void SparsePage::setContext(const MechanismPageContext& context) {
    context_ = context;
    // The tab's context before the window's first update has no dataset (and a default ε).
    haveContext_ = context.dataset != nullptr;
    updateControls();
    run(false);
}

void SparsePage::setData(Data d) {
    data_->setCurrentIndex(data_->findData(static_cast<int>(d)));
}

void SparsePage::setOwnEpsilon(std::optional<double> epsilon) {
    const QSignalBlocker b(ownEpsilon_);
    ownEpsilon_->setChecked(epsilon.has_value());
    if (epsilon) {
        epsilon_->setText(QString::number(*epsilon, 'g', 12));
    }
    updateControls();
}

void SparsePage::setThreshold(std::optional<double> tau) {
    const QSignalBlocker b(ownThreshold_);
    ownThreshold_->setChecked(tau.has_value());
    if (tau) {
        threshold_->setText(QString::number(*tau, 'g', 12));
    }
    updateControls();
}

void SparsePage::setTrials(int trials) {
    trials_->setValue(trials);
}

void SparsePage::setSeed(std::uint64_t seed) {
    seed_->setText(QString::number(seed));
}

// The ε and τ fields show the values in use when they are not the page's own.
void SparsePage::updateControls() {
    const auto d = static_cast<Data>(data_->currentData().toInt());
    epsilon_->setEnabled(ownEpsilon_->isChecked());
    threshold_->setEnabled(ownThreshold_->isChecked());
    if (!ownEpsilon_->isChecked()) {
        epsilon_->setText(haveContext_ ? QString::number(context_.epsilon, 'g', 6) : QString());
    }
    CellCount cells = 0;
    QString info;
    if (d == Data::Window) {
        const auto& ds = context_.dataset;
        if (ds && ds->error.isEmpty() && !ds->histogram && ds->jointTable) {
            // Too many cells for a histogram: the page runs on the table itself.
            cells = ds->jointTable->cellCount();
            info = tr("%1, table %2: %3 cells (%L4 occupied), %L5 records. Above %L6 cells the "
                      "empty cells are not drawn one by one: their releases follow their exact "
                      "law (a binomial count at uniform positions).")
                       .arg(ds->sourceTitle, ds->attributeColumns.join(QStringLiteral(" × ")),
                            formatCellCount(cells))
                       .arg(static_cast<qulonglong>(ds->jointTable->occupiedCount()))
                       .arg(ds->jointTable->total())
                       .arg(static_cast<qulonglong>(kMaxBins));
        } else if (!ds || !ds->error.isEmpty() || !ds->histogram) {
            info = ds && ds->error.isEmpty() && !ds->histogramWhy.isEmpty()
                       ? ds->histogramWhy
                       : tr("No histogram in the window yet.");
        } else if (ds->attributeColumns.size() > 1) {
            // A table of several attributes: its cells are the bins (labels "a = x, b = y").
            cells = ds->histogram->size();
            info =
                tr("%1, table %2: %L3 cells (%L4 occupied), %L5 records.")
                    .arg(ds->sourceTitle, ds->attributeColumns.join(QStringLiteral(" × ")))
                    .arg(static_cast<qulonglong>(cells))
                    .arg(ds->jointTable ? static_cast<qulonglong>(ds->jointTable->occupiedCount())
                                        : 0ULL)
                    .arg(ds->histogram->total());
        } else {
            cells = ds->histogram->size();
            info = tr("%1, column “%2”: %L3 bins, %L4 records.")
                       .arg(ds->sourceTitle, ds->column)
                       .arg(static_cast<qulonglong>(cells))
                       .arg(ds->histogram->total());
        }
    } else {
        cells = d == Data::EdwardsLike ? 64 : 65536;
        info =
            tr("Synthetic, generated by the app with the shape of Hall 2012's table (the "
               "tables themselves are not available).");
    }
    dataInfo_->setText(info);
    if (!ownThreshold_->isChecked()) {
        bool ok = false;
        const double eps = epsilon_->text().toDouble(&ok);
        if (ok && cells > 0 && validateEpsilon(eps)) {
            threshold_->setText(formatSignificant(defaultSparseDomainThreshold(eps, cells), 6) +
                                tr(" = (2/ε)·ln p"));
        } else {
            threshold_->setText(tr("(2/ε)·ln p"));
        }
    }
}

Expected<SparsePage::Spec> SparsePage::specFromControls() const {
    Spec s;
    s.data = static_cast<Data>(data_->currentData().toInt());
    if (s.data == Data::Window) {
        const auto& ds = context_.dataset;
        if (!ds) {
            return Error{"No data in the window yet."};
        }
        if (ds->error.isEmpty() && !ds->histogram && ds->jointTable) {
            // Too many cells for a histogram: the page runs on the table itself.
            s.table = ds->jointTable;
            s.dataTitle =
                tr("the window's table (%1, %2)")
                    .arg(ds->sourceTitle, ds->attributeColumns.join(QStringLiteral(" × ")));
        } else {
            if (!ds->error.isEmpty() || !ds->histogram) {
                const std::string why = !ds->error.isEmpty() ? ds->error.toStdString()
                                        : !ds->histogramWhy.isEmpty()
                                            ? ds->histogramWhy.toStdString()
                                            : std::string("nothing loaded");
                return Error{"The window has no histogram (" + why +
                             "). Choose one of the example tables under Data."};
            }
            s.counts = ds->histogram->counts();
            s.labels = ds->histogram->labels();
            s.dataTitle =
                ds->attributeColumns.size() > 1
                    ? tr("the window's table (%1, %2)")
                          .arg(ds->sourceTitle, ds->attributeColumns.join(QStringLiteral(" × ")))
                    : tr("the window's histogram (%1, “%2”)").arg(ds->sourceTitle, ds->column);
            s.unit = ds->unit;
            if (auto st = validateSparseCounts(s.counts); !st) {
                return Error{"The window's histogram cannot be used: " + st.error().message};
            }
        }
    } else {
        s.dataTitle = s.data == Data::EdwardsLike ? tr("the Edwards-like table (synthetic)")
                                                  : tr("the NLTCS-like table (synthetic)");
    }
    s.ownEpsilon = ownEpsilon_->isChecked();
    if (s.ownEpsilon) {
        bool ok = false;
        const QString text = epsilon_->text().trimmed();
        const double eps = text.toDouble(&ok);
        if (!ok) {
            return Error{"ε: '" + text.toStdString() + "' is not a number"};
        }
        if (auto st = validateEpsilon(eps); !st) {
            return Error{"ε: " + st.error().message};
        }
        s.params.epsilon = eps;
    } else {
        if (!haveContext_) {
            return Error{"Waiting for the window's ε."};
        }
        s.params.epsilon = context_.epsilon;
    }
    if (ownThreshold_->isChecked()) {
        bool ok = false;
        const QString text = threshold_->text().trimmed();
        const double tau = text.toDouble(&ok);
        if (!ok) {
            return Error{"τ: '" + text.toStdString() + "' is not a number"};
        }
        s.params.threshold = tau;
    }
    if (auto st = s.params.validate(); !st) {
        return Error{(ownThreshold_->isChecked() ? "τ: " : "ε: ") + st.error().message};
    }
    s.trials = static_cast<std::uint64_t>(trials_->value());
    bool ok = false;
    s.seed = seed_->text().trimmed().toULongLong(&ok);
    if (!ok) {
        return Error{"Seed: a whole number from 0 to 2^64 − 1"};
    }
    return s;
}

// A control changed: compute unless the plots already show these inputs or they are computing
// (so inputs whose run was cancelled compute again when asked, unlike a mere context update).
void SparsePage::edited() {
    auto spec = specFromControls();
    if (spec && isRunning() && lastRun_ && sameInputs(*lastRun_, *spec)) {
        return;
    }
    if (spec && !isRunning() && result_ && sameInputs(result_->spec, *spec)) {
        lastRun_ = *spec;
        setStatus(resultStatus_);
        return;
    }
    run(true);
}

bool SparsePage::run(bool force) {
    // Waiting for the window (its first context, or its data still loading): not an error, and
    // the page stays busy so that a screenshot waits for the result.
    const auto d = static_cast<Data>(data_->currentData().toInt());
    const auto& ds = context_.dataset;
    const bool loading = !ds || (ds->error.isEmpty() && !ds->histogram && !ds->jointTable);
    if ((!haveContext_ && (d == Data::Window || !ownEpsilon_->isChecked())) ||
        (d == Data::Window && loading)) {
        if (!isRunning()) {
            failed_ = false;
            setStatus(tr("Waiting for the window's data…"));
        }
        return false;
    }
    auto spec = specFromControls();
    if (!spec) {
        if (isRunning()) {
            runner_->cancel(kSlot);
            setRunning(false);
        }
        lastRun_.reset();
        result_.reset();
        hasResult_ = false;
        failed_ = true;
        draw();
        setStatus(QString::fromStdString(spec.error().message), true);
        Q_EMIT finished();
        return false;
    }
    if (!force && lastRun_ && sameInputs(*lastRun_, *spec) && (isRunning() || result_ || failed_)) {
        return true;
    }
    lastRun_ = *spec;
    failed_ = false;
    const Spec s = std::move(*spec);
    runner_->run<Result>(
        kSlot,
        [s](std::stop_token stop, JobProgress& progress) -> Result {
            Result r;
            r.spec = s;
            if (s.table) {
                return runOnTable(s, stop, progress);
            }
            if (s.data == Data::Window) {
                r.counts = s.counts;
                r.labels = s.labels;
            } else {
                auto h = makeExample(exampleId(s.data));
                if (!h) {
                    r.error = QString::fromStdString(h.error().message);
                    return r;
                }
                r.counts = h->counts();
                r.labels = h->labels();
            }
            MonteCarloOptions mo;
            mo.trials = s.trials;
            mo.seed = s.seed;
            mo.stop = stop;
            mo.progress = [&progress](double f) { progress.set(f); };
            auto mc = sparseMonteCarlo(r.counts, s.params, mo);
            if (!mc) {
                r.error = QString::fromStdString(mc.error().message);
                return r;
            }
            r.mc = std::move(*mc);
            SimulationRng rng(s.seed, 0);
            auto rel = simulateSparseHistogram(r.counts, s.params, SparseMethod::Thresholded, rng);
            if (!rel) {
                r.error = QString::fromStdString(rel.error().message);
                return r;
            }
            r.release = std::move(*rel);
            return r;
        },
        [this](Result r) {
            if (!r.error.isEmpty()) {
                result_.reset();
                hasResult_ = false;
                failed_ = true;
                draw();
                done(r.error, true);
                return;
            }
            result_ = std::move(r);
            hasResult_ = true;
            const auto& mc = result_->mc;
            resultStatus_ = mc.cancelled ? tr("Cancelled after %L1 trials.").arg(mc.trials)
                                         : tr("%L1 trials.").arg(mc.trials);
            done(resultStatus_, false);
        },
        tr("Sparse histogram Monte Carlo"), JobRunner::Lane::Background);
    setRunning(true);
    setStatus(tr("Computing %L1 trials on %2…").arg(s.trials).arg(s.dataTitle));
    return true;
}

void SparsePage::done(const QString& text, bool error) {
    setRunning(false);
    setStatus(text, error);
    draw();
    Q_EMIT finished();
}

void SparsePage::cancel() {
    if (!isRunning()) {
        return;
    }
    runner_->cancel(kSlot);
    setRunning(false);
    failed_ = !result_;
    setStatus(result_ ? tr("Cancelled; the plots show the previous run.")
                      : tr("Cancelled. Press Run to start again."));
    Q_EMIT finished();
}

QString SparsePage::numbersText() const {
    return plainTextOf(numbers_);
}

void SparsePage::draw() {
    plot_->clearPlottables();
    plot_->clearItems();
    if (!result_) {
        title_->setText(tr("Sparse histogram (Hall 2012, §2.4.1): thresholded vs clamped Laplace"));
        numbers_->setText(QString());
        plot_->xAxis->setRange(0, 1);
        plot_->yAxis->setRange(0, 1);
        plot_->legend->setVisible(false);
        replotWhenVisible(plot_);
        drawCells();
        return;
    }
    const Result& r = *result_;
    const SparseMonteCarloResult& mc = r.mc;
    const SparseExpectedError& ex = mc.expected;
    const double eps = r.spec.params.epsilon;
    const bool defaultTau = !r.spec.params.threshold.has_value();
    const double bound = ex.seedBound.value_or(ex.boundAtThreshold);
    title_->setText(tr("ε-DP with ε = %1 (replace-one neighbours): Laplace b = 2/ε per cell,\n"
                       "then threshold at τ = %2 or clamp at 0 — L1 error of %L3 simulated "
                       "releases")
                        .arg(formatSignificant(eps, 6), formatRecords(ex.threshold, 4))
                        .arg(mc.trials));

    // Histograms of the per-trial errors, each method on its own 30 bars over its own range (the
    // two distributions can be orders of magnitude apart); y: the share of trials per bar.
    double ymax = 0;
    double xmax = bound;
    auto histogram = [&](const std::vector<double>& v, const QColor& colour, const QString& name) {
        if (v.empty()) {
            return;
        }
        const auto [mnIt, mxIt] = std::minmax_element(v.begin(), v.end());
        double lo = *mnIt, hi = *mxIt;
        if (!(hi > lo)) {
            lo -= 0.5;
            hi += 0.5;
        }
        constexpr int kBars = 30;
        const double w = (hi - lo) / kBars;
        const int which = &v == &mc.thresholdedL1 ? 0 : 1;
        zoomLo_[which] = lo - 2 * w;
        zoomHi_[which] = hi + 2 * w;
        std::vector<double> share(kBars, 0.0);
        for (double x : v) {
            const int i = std::clamp(static_cast<int>((x - lo) / w), 0, kBars - 1);
            share[static_cast<std::size_t>(i)] += 100.0 / static_cast<double>(v.size());
        }
        QVector<double> xs, ys;
        xs << lo;
        ys << 0;
        for (int i = 0; i < kBars; ++i) {
            xs << lo + i * w << lo + (i + 1) * w;
            ys << share[static_cast<std::size_t>(i)] << share[static_cast<std::size_t>(i)];
            ymax = std::max(ymax, share[static_cast<std::size_t>(i)]);
        }
        xs << hi;
        ys << 0;
        xmax = std::max(xmax, hi);
        QCPGraph* g = plot_->addGraph();
        g->setName(name);
        QColor fill = colour;
        fill.setAlpha(90);
        g->setPen(QPen(colour, 1.5));
        g->setBrush(fill);
        g->setData(xs, ys, true);
    };
    // Clamped first, so that the thresholded distribution (the page's subject) is drawn on top.
    histogram(mc.clampedL1, kClamped,
              tr("clamped at 0: mean %1 ± %2")
                  .arg(formatRecords(mc.meanClamped, 4), formatSignificant(mc.seClamped, 2)));
    histogram(mc.thresholdedL1, kThresholded,
              tr("thresholded (τ = %1): mean %2 ± %3")
                  .arg(formatRecords(ex.threshold, 4), formatRecords(mc.meanThresholded, 4),
                       formatSignificant(mc.seThresholded, 2)));
    const double top = std::max(1.0, ymax * 1.25);
    auto vline = [&](double x, const QPen& pen, const QString& name) {
        QCPGraph* g = plot_->addGraph();
        g->setName(name);
        g->setPen(pen);
        g->setData(QVector<double>{x, x}, QVector<double>{0, top}, true);
    };
    vline(ex.thresholdedL1, QPen(kThresholded, 1.5, Qt::DashLine),
          tr("thresholded: exact E‖h̃ − h‖₁ = %1").arg(formatRecords(ex.thresholdedL1, 4)));
    vline(ex.clampedL1, QPen(kClamped, 1.5, Qt::DashLine),
          tr("clamped: exact E‖h̃ − h‖₁ = %1").arg(formatRecords(ex.clampedL1, 4)));
    vline(bound, QPen(palette().color(QPalette::WindowText), 2),
          ex.seedBound
              ? tr("bound ((2q+1)/ε)(ln p + 1) = %1").arg(formatRecords(bound, 4))
              : tr("bound at τ: (p−q)·½e^(−τ/b)(τ+b) + q(τ+b) = %1").arg(formatRecords(bound, 4)));
    fullUpper_ = xmax * 1.06;
    applyZoom();
    plot_->yAxis->setRange(0, top);
    plot_->legend->setVisible(true);
    replotWhenVisible(plot_);

    // The text panel.
    const std::int64_t n = [&] {
        std::int64_t t = 0;
        for (auto c : r.counts) {
            t += c;
        }
        return t;
    }();
    std::size_t releasedShown = 0;
    for (double v : r.release) {
        releasedShown += v != 0 ? 1 : 0;
    }
    QString html;
    const QString cellsText =
        r.domain ? formatCellCount(r.domain->cells) : QLocale().toString(qulonglong{ex.cells});
    html += tr("<b>Data:</b> %1 — p = %2 cells, q = %L3 occupied, n = %L4 records.<br>")
                .arg(r.spec.dataTitle.toHtmlEscaped(), cellsText)
                .arg(ex.occupied)
                .arg(n);
    html += tr("<b>Mechanism:</b> ε = %1 (%2); Laplace b = 2/ε = %3 per cell; τ = %4 (%5).<br>")
                .arg(formatSignificant(eps, 6),
                     r.spec.ownEpsilon ? tr("set on this page") : tr("the window's ε"),
                     formatSignificant(ex.scale, 6), formatSignificant(ex.threshold, 6),
                     defaultTau ? tr("default (2/ε)·ln p") : tr("set on this page"));
    html += tr("<b>Expected L1 (exact):</b> thresholded %1, clamped %2 (plain Laplace p·b = "
               "%3).<br>")
                .arg(formatRecords(ex.thresholdedL1, 4), formatRecords(ex.clampedL1, 4),
                     formatRecords(ex.plainLaplaceL1, 4));
    html += tr("<b>Monte Carlo</b> (%L1 trials, seed %2): thresholded %3 ± %4, clamped %5 ± %6 "
               "(mean ± standard error).<br>")
                .arg(mc.trials)
                .arg(r.spec.seed)
                .arg(formatRecords(mc.meanThresholded, 4), formatSignificant(mc.seThresholded, 2),
                     formatRecords(mc.meanClamped, 4), formatSignificant(mc.seClamped, 2));
    if (ex.seedBound) {
        html += tr("<b>Bound</b> ((2q+1)/ε)(ln p + 1) = %1 (Hall 2012, Prop. 2.4.3); at τ: %2.<br>")
                    .arg(formatRecords(*ex.seedBound, 4), formatRecords(ex.boundAtThreshold, 4));
    } else {
        html += tr("<b>Bound</b> at τ: (p−q)·½e^(−τ/b)(τ+b) + q(τ+b) = %1 (Hall's "
                   "((2q+1)/ε)(ln p + 1) is for the default τ only).<br>")
                    .arg(formatRecords(ex.boundAtThreshold, 4));
    }
    html += tr("<b>Cells released non-zero</b> (mean over trials): thresholded %1, clamped %2 of "
               "%3; in the release shown: %L4.")
                .arg(formatRecords(mc.meanReleasedThresholded, 4),
                     formatRecords(mc.meanReleasedClamped, 4), cellsText)
                .arg(releasedShown);
    if (r.domain) {
        html += tr("<br><i>A table of %1 cells: its empty cells are not drawn one by one. "
                   "Thresholded: the number released is Binomial(p − q, ½e<sup>−τ/b</sup>), at "
                   "uniform positions, each τ + Exp(b); clamped: their total is Gamma(K, b) with "
                   "K ~ Binomial(p − q, ½). Both exact in distribution; the two methods draw "
                   "independently (not on common random numbers).</i>")
                    .arg(cellsText);
    }
    if (context_.neighbouring == Neighbouring::AddRemove) {
        html +=
            tr("<br><i>The window uses add/remove neighbours; this page uses Hall's "
               "replace-one calibration (Δ1 = 2). The release is ε-DP under add/remove too, "
               "where scale 2/ε is twice what is needed.</i>");
    }
    for (const auto& w : mc.warnings) {
        html += QStringLiteral("<br><span style=\"color:#d62728\">") +
                QString::fromStdString(w).toHtmlEscaped() + QStringLiteral("</span>");
    }
    numbers_->setText(html);
    drawCells();
}

void SparsePage::applyZoom() {
    const int z = zoom_->currentIndex();
    if (!result_ || z <= 0) {
        plot_->xAxis->setRange(0, result_ ? fullUpper_ : 1);
    } else {
        const auto i = static_cast<std::size_t>(z - 1);
        plot_->xAxis->setRange(zoomLo_[i], zoomHi_[i]);
    }
    replotWhenVisible(plot_);
}

void SparsePage::drawCells() {
    cellsPlot_->clearPlottables();
    cellsPlot_->clearItems();
    cellIndex_.clear();
    if (!result_) {
        cellsTitle_->setText(tr("One thresholded release against the truth"));
        cellsPlot_->legend->setVisible(false);
        replotWhenVisible(cellsPlot_);
        return;
    }
    const Result& r = *result_;
    const std::size_t p = r.counts.size();  // the cells drawable one by one
    const bool all = !r.domain && p <= kAllCellsUpTo;
    for (std::size_t i = 0; i < p; ++i) {
        if (all || r.counts[i] > 0 || r.release[i] != 0) {
            cellIndex_.push_back(i);
        }
    }
    std::vector<QString> labels;
    QVector<double> x, truth, rel;
    for (std::size_t k = 0; k < cellIndex_.size(); ++k) {
        const std::size_t i = cellIndex_[k];
        labels.push_back(i < r.labels.size() ? QString::fromStdString(r.labels[i])
                         : r.domain          ? QString::number(r.cellIndices[i])
                                             : QString::number(i));
        x << static_cast<double>(k);
        truth << static_cast<double>(r.counts[i]);
        rel << r.release[i];
    }
    const double tau = r.mc.expected.threshold;
    std::size_t released = 0;
    double highest = tau;
    for (std::size_t i = 0; i < p; ++i) {
        released += r.release[i] != 0 ? 1 : 0;
        highest = std::max({highest, static_cast<double>(r.counts[i]), r.release[i]});
    }
    const QString line1 = tr("One simulated thresholded release (τ = %1; the first trial's noise) "
                             "against the truth")
                              .arg(formatRecords(tau, 4));
    cellsTitle_->setText(
        all ? tr("%1\nall %L2 cells; %L3 released non-zero").arg(line1).arg(p).arg(released)
            : tr("%1\n%L2 of %3 cells: those occupied or released non-zero (%L4) — drag or "
                 "scroll to move and zoom")
                  .arg(line1)
                  .arg(cellIndex_.size())
                  .arg(r.domain ? formatCellCount(r.domain->cells)
                                : QLocale().toString(qulonglong{p}))
                  .arg(released));
    // A log count axis when counts span orders of magnitude (the NLTCS-like table's dominant
    // cell holds 10 800 records, the others 1–3); released zeros then have no bar.
    logCounts_ = highest > 200;
    if (logCounts_) {
        makeLogAxis(cellsPlot_->yAxis);
        cellsPlot_->yAxis->setLabel(tr("count (records, log scale; a zero has no bar)"));
    } else {
        cellsPlot_->yAxis->setScaleType(QCPAxis::stLinear);
        cellsPlot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        cellsPlot_->yAxis->setNumberFormat(QStringLiteral("g"));
        cellsPlot_->yAxis->setNumberPrecision(6);
        cellsPlot_->yAxis->setLabel(tr("count (records)"));
    }
    auto* truthBars = new QCPBars(cellsPlot_->xAxis, cellsPlot_->yAxis);
    truthBars->setName(tr("true count h"));
    truthBars->setWidth(0.4);
    truthBars->setPen(QPen(QColor(127, 127, 127)));
    truthBars->setBrush(QColor(127, 127, 127, 110));
    QVector<double> xl, xr;
    for (double v : x) {
        xl << v - 0.2;
        xr << v + 0.2;
    }
    truthBars->setData(xl, truth, true);
    auto* relBars = new QCPBars(cellsPlot_->xAxis, cellsPlot_->yAxis);
    relBars->setName(tr("released h̃ (0 where h + L ≤ τ)"));
    relBars->setWidth(0.4);
    relBars->setPen(QPen(kThresholded));
    relBars->setBrush(QColor(kThresholded.red(), kThresholded.green(), kThresholded.blue(), 170));
    relBars->setData(xr, rel, true);
    auto* tauLine = new QCPItemStraightLine(cellsPlot_);
    tauLine->point1->setCoords(0, tau);
    tauLine->point2->setCoords(1, tau);
    tauLine->setPen(QPen(palette().color(QPalette::WindowText), 1.2, Qt::DashLine));
    QCPGraph* tauKey = cellsPlot_->addGraph();
    tauKey->setPen(tauLine->pen());
    tauKey->setName(tr("threshold τ = %1").arg(formatRecords(tau, 4)));
    cellsPlot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new CellTicker(labels)));
    cellsPlot_->xAxis->setTickLabelRotation(cellIndex_.size() > 16 ? 90 : 0);
    const QString cell = r.spec.unit.isEmpty() ? tr("cell") : tr("bin (%1)").arg(r.spec.unit);
    cellsPlot_->xAxis->setLabel(all ? cell
                                    : tr("%1, occupied or released non-zero only").arg(cell));
    cellsPlot_->legend->setVisible(true);
    const double shown = all ? static_cast<double>(cellIndex_.size()) : kCellWindow;
    {
        const QSignalBlocker b(cellsPlot_->xAxis);
        cellsPlot_->xAxis->setRange(-0.7,
                                    std::min(shown, static_cast<double>(cellIndex_.size())) - 0.3);
    }
    fitCellsY();
}

// The y range follows the cells in view (the dominant cell of the NLTCS-like table would flatten
// every other bar).
void SparsePage::fitCellsY() {
    if (!result_ || cellIndex_.empty()) {
        return;
    }
    const QCPRange xr = cellsPlot_->xAxis->range();
    double hi = result_->mc.expected.threshold;
    const auto from = static_cast<std::size_t>(std::max(0.0, std::floor(xr.lower)));
    const auto to = static_cast<std::size_t>(
        std::clamp(std::ceil(xr.upper), 0.0, static_cast<double>(cellIndex_.size() - 1)));
    for (std::size_t k = from; k <= to && k < cellIndex_.size(); ++k) {
        const std::size_t i = cellIndex_[k];
        hi = std::max({hi, static_cast<double>(result_->counts[i]), result_->release[i]});
    }
    if (logCounts_) {
        cellsPlot_->yAxis->setRange(0.5, hi * 2);
    } else {
        cellsPlot_->yAxis->setRange(0, hi * 1.25 + 0.5);
    }
    replotWhenVisible(cellsPlot_);
}

void SparsePage::restyle() {
    draw();
}

}  // namespace dpx::ui
