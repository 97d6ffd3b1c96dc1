#include "ui/tabs/workbench/workbench_tab.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/base/validation.h"
#include "core/choosing/tradeoff.h"
#include "core/table/table.h"
#include "core/workload/builtin_shapes.h"
#include "ui/model/job_runner.h"
#include "ui/widgets/file_export.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("workbench");
const QString kDetailSlot = QStringLiteral("workbench-detail");
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kWorst = 10;

// Colours by the algorithm's place in the registry, so that an algorithm keeps its colour
// whatever else is chosen (Tableau 10, then five more).
QColor algorithmColour(const QString& id) {
    static const QColor colours[] = {
        QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
        QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
        QColor(188, 189, 34),  QColor(23, 190, 207), QColor(255, 180, 0),   QColor(128, 128, 0),
        QColor(0, 128, 128),   QColor(170, 110, 40), QColor(230, 60, 130)};
    const auto& all = allAlgorithms();
    std::size_t i = 0;
    for (; i < all.size(); ++i) {
        if (QString::fromStdString(all[i]->info().id) == id) {
            break;
        }
    }
    return colours[i % std::size(colours)];
}

const QStringList kDefault1d = {QStringLiteral("Identity"), QStringLiteral("HB"),
                                QStringLiteral("Privelet"), QStringLiteral("Uniform"),
                                QStringLiteral("DAWA"),     QStringLiteral("AHP")};
const QStringList kDefault2d = {QStringLiteral("Identity"),   QStringLiteral("HB2D"),
                                QStringLiteral("Privelet2D"), QStringLiteral("UGrid"),
                                QStringLiteral("AGrid"),      QStringLiteral("DAWA2D"),
                                QStringLiteral("AHP")};

QCPScatterStyle::ScatterShape scaleShape(std::size_t i) {
    static const QCPScatterStyle::ScatterShape shapes[] = {
        QCPScatterStyle::ssDisc,    QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
        QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross,  QCPScatterStyle::ssPlus};
    return shapes[i % std::size(shapes)];
}

QString fmt(double v) {
    return formatSignificant(v, 3);
}

// Square cells on every heatmap of `p` whose data is `rows` × `cols`: the axis with room to spare
// shows more than the data, centred, so that one cell is as many pixels wide as it is tall (a
// 64 × 256 domain is drawn four times as wide as tall, whatever the window's shape). Called after
// each layout, when the axis rects have their sizes.
void squareHeatmapCells(QCustomPlot* p, int rows, int cols) {
    if (rows <= 0 || cols <= 0) {
        return;
    }
    for (QCPAxisRect* rect : p->axisRects()) {
        if (rect->plottables().isEmpty() ||
            qobject_cast<QCPColorMap*>(rect->plottables().front()) == nullptr) {
            continue;
        }
        const double w = rect->width(), h = rect->height();
        if (!(w > 0 && h > 0)) {
            continue;
        }
        const double perCell = std::min(w / cols, h / rows);
        const double halfX = w / perCell / 2, halfY = h / perCell / 2;
        const double cx = (cols - 1) / 2.0, cy = (rows - 1) / 2.0;
        rect->axis(QCPAxis::atBottom)->setRange(cx - halfX, cx + halfX);
        rect->axis(QCPAxis::atLeft)->setRange(cy - halfY, cy + halfY);
    }
}

}  // namespace

WorkbenchTab::WorkbenchTab(JobRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
    setObjectName(QStringLiteral("workbenchTab"));
    for (std::size_t dim : {std::size_t{1}, std::size_t{2}}) {
        for (const std::string& name : builtinShapeNames()) {
            if (auto d = builtinWorkbenchData(QString::fromStdString(name), dim)) {
                builtins_.push_back(std::move(*d));
                builtinNames_.push_back(QString::fromStdString(name) +
                                        (dim == 1 ? QStringLiteral("-1d") : QStringLiteral("-2d")));
            }
        }
    }
    restart_ = new QTimer(this);
    restart_->setSingleShot(true);
    restart_->setInterval(350);
    connect(restart_, &QTimer::timeout, this, &WorkbenchTab::start);
    buildControls();
    connect(runner_, &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot == kSlot && running_) {
            finish(tr("Cancelled after %1 of %2 algorithms. Change an input or press Run to "
                      "compute again.")
                       .arg(algorithmsDone_)
                       .arg(prepared_ ? prepared_->algorithms.size() : 0));
        }
    });
    rebuildDomains();
    applyPalette();
    redraw();
}

WorkbenchTab::~WorkbenchTab() = default;

void WorkbenchTab::buildControls() {
    data_ = new QComboBox;
    data_->setObjectName(QStringLiteral("workbenchData"));
    data_->addItem(tr("The window's table"));
    for (const WorkbenchData& d : builtins_) {
        data_->addItem(tr("Built-in: %1")
                           .arg(d.source.section(QLatin1Char('\''), 1, 1) + QStringLiteral(" (") +
                                domainText(d.shape) + QStringLiteral(")")));
    }
    data_->setToolTip(
        tr("The data compared on: the window's table (one or two columns), or a "
           "built-in shape at DPBench's domain sizes (4 096 and 256 × 256)"));
    dataNote_ = new QLabel;
    dataNote_->setWordWrap(true);
    dataNote_->setObjectName(QStringLiteral("workbenchDataNote"));
    domain_ = new QComboBox;
    domain_->setToolTip(tr("Coarsen by merging adjacent bins (the sizes that divide the data's)"));
    scales_ = new QLineEdit(QStringLiteral("data, 1000, 100000, 10000000"));
    scales_->setToolTip(
        tr("Scales m: m records resampled from the data's shape (seeded, as "
           "DPBench — Hay et al. 2016); 'data' is the data as it is"));
    epsilons_ = new QLineEdit(QStringLiteral("0.01, 0.1, 1, 10"));
    epsilons_->setToolTip(tr("The ε values compared, separated by commas"));
    workload_ = new QComboBox;
    workload_->setEditable(true);
    workload_->addItems({QStringLiteral("range:2000"), QStringLiteral("identity"),
                         QStringLiteral("prefix"), QStringLiteral("allrange"),
                         QStringLiteral("marginals:1"), QStringLiteral("total")});
    workload_->setToolTip(
        tr("The queries the estimates are judged on: 'range:2000' is DPBench's "
           "2 000 random ranges; identity, prefix, allrange, marginals:1,2, "
           "total, rectangles:4x4, boxes:0..3;5..9 (see docs/workloads.md)"));
    algorithms_ = new QListWidget;
    algorithms_->setObjectName(QStringLiteral("workbenchAlgorithms"));
    algorithms_->setMinimumHeight(150);
    trials_ = new QSpinBox;
    trials_->setRange(1, 1000);
    trials_->setValue(5);
    trials_->setToolTip(tr("Independent runs per point; error bars are ± one standard error"));
    seed_ = new QSpinBox;
    seed_->setRange(0, 1000000000);
    seed_->setValue(1);
    seed_->setToolTip(tr("Seed of the runs (trial t uses stream t), the same as dpx bench --seed"));
    noise_ = new QComboBox;
    noise_->setObjectName(QStringLiteral("workbenchNoise"));
    noise_->addItem(tr("Laplace — ε-DP"), QStringLiteral("laplace"));
    noise_->addItem(tr("Gaussian — (ε, δ)-DP"), QStringLiteral("gaussian"));
    noise_->setToolTip(
        tr("How HDMM measures its strategy: Laplace noise on the L1 column norm (ε-DP, HDMM's "
           "own design), or Gaussian noise (the analytic calibration of Balle & Wang 2018) on "
           "the L2 column norm with the strategy designed for it ((ε, δ)-DP). The other "
           "algorithms always use their own ε-DP noise."));
    delta_ = new QLineEdit(QStringLiteral("1e-6"));
    delta_->setObjectName(QStringLiteral("workbenchDelta"));
    delta_->setToolTip(tr("δ of HDMM's Gaussian measurement, 0 < δ < 1"));
    metric_ = new QComboBox;
    metric_->addItem(tr("scaled L2 error (DPBench)"));
    metric_->addItem(tr("RMSE per query"));
    metric_->setToolTip(
        tr("Scaled L2 = ‖W·est − W·x‖₂ / (q·m), DPBench's headline metric (est: the "
           "algorithm's output, x: the data, q queries, m records); RMSE = "
           "√(‖W·est − W·x‖₂² / q), in records"));
    shownScale_ = new QComboBox;
    shownScale_->setToolTip(tr("The scale m whose error the ε plot shows"));
    shownEpsilon_ = new QComboBox;
    shownEpsilon_->setToolTip(tr("The ε whose error the scale plot shows"));
    auto* run = new QPushButton(tr("Run"));
    run->setToolTip(tr("Compute again (every input change restarts by itself)"));
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setObjectName(QStringLiteral("workbenchCancel"));
    export_ = new QPushButton(tr("Export CSV…"));
    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("workbenchStatus"));
    status_->setWordWrap(true);
    note_ = new QLabel;
    note_->setWordWrap(true);
    note_->setTextFormat(Qt::RichText);

    auto* form = new QFormLayout;
    // Rows through FormRows: the HDMM noise rows come and go (see form_rows.h).
    auto rows = std::make_unique<FormRows>(form);
    rows->addRow(tr("Data"), data_);
    rows->addRow(dataNote_);
    rows->addRow(tr("Domain size"), domain_);
    rows->addRow(tr("Scales m"), scales_);
    rows->addRow(tr("ε values"), epsilons_);
    rows->addRow(tr("Workload"), workload_);
    rows->addRow(tr("Trials"), trials_);
    rows->addRow(tr("Seed"), seed_);
    auto* algLabel =
        new QLabel(tr("Algorithms (hover for the source; † uses the true total as "
                      "public):"));
    algLabel->setWordWrap(true);
    rows->addRow(algLabel);
    rows->addRow(algorithms_);
    rows->addRow(tr("HDMM noise"), noise_);
    rows->addRow(tr("HDMM δ"), delta_);
    rows->addRow(tr("Plot"), metric_);
    rows->addRow(tr("ε plot at m"), shownScale_);
    rows->addRow(tr("m plot at ε"), shownEpsilon_);
    rows->addRow(fieldLine({run, cancel_, export_}));
    rows->addRow(status_);
    formRows_ = std::move(rows);
    auto* inputs = new QWidget;
    inputs->setLayout(form);
    auto* scroll = new QScrollArea;
    scroll->setWidget(inputs);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Narrow enough to fit beside the window's side panel at 1024 × 768.
    scroll->setMinimumWidth(210);
    scroll->setMaximumWidth(340);

    const auto makePlot = [this](const QString& name) {
        auto* p = new QCustomPlot;
        p->setObjectName(name);
        p->setMinimumSize(220, 200);
        p->legend->setVisible(true);
        p->legend->setFont(font());
        connect(p, &QCustomPlot::plottableClick, this,
                [this](QCPAbstractPlottable* pl, int i, QMouseEvent*) { onPlotClick(pl, i); });
        return p;
    };
    epsPlot_ = makePlot(QStringLiteral("workbenchEpsilonPlot"));
    scalePlot_ = makePlot(QStringLiteral("workbenchScalePlot"));
    productPlot_ = makePlot(QStringLiteral("workbenchProductPlot"));
    detailPlot_ = new QCustomPlot;
    detailPlot_->setObjectName(QStringLiteral("workbenchDetailPlot"));
    detailPlot_->setMinimumSize(220, 200);
    connect(detailPlot_, &QCustomPlot::afterLayout, this, [this] {
        if (detail_ && detail_->shape.size() == 2) {
            squareHeatmapCells(detailPlot_, static_cast<int>(detail_->shape[0]),
                               static_cast<int>(detail_->shape[1]));
        }
    });
    detailText_ =
        new QLabel(tr("Click a point in a plot to see that algorithm's noisy output "
                      "beside the input."));
    detailText_->setWordWrap(true);
    auto* detailPage = new QWidget;
    auto* dl = new QVBoxLayout(detailPage);
    dl->addWidget(detailText_);
    dl->addWidget(detailPlot_, 1);
    table_ = new QTableWidget;
    table_->setObjectName(QStringLiteral("workbenchTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);

    views_ = new QTabWidget;
    views_->addTab(epsPlot_, tr("Error vs ε"));
    views_->addTab(scalePlot_, tr("Error vs scale"));
    views_->addTab(productPlot_, tr("Scale × ε"));
    views_->addTab(detailPage, tr("Output"));
    views_->addTab(table_, tr("Numbers"));
    auto* right = new QWidget;
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(views_, 1);
    rl->addWidget(note_);
    auto* split = new QSplitter;
    split->addWidget(scroll);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    (new QVBoxLayout(this))->addWidget(split);

    connect(data_, &QComboBox::currentIndexChanged, this, [this] {
        if (!settingControls_) {
            fallbackNote_.clear();
            rebuildDomains();
            scheduleRestart();
            edited();
        }
    });
    const auto restartAndSave = [this] {
        scheduleRestart();
        edited();
    };
    for (QLineEdit* e : {scales_, epsilons_}) {
        connect(e, &QLineEdit::editingFinished, this, restartAndSave);
    }
    connect(domain_, &QComboBox::currentIndexChanged, this, restartAndSave);
    connect(workload_, &QComboBox::currentTextChanged, this, restartAndSave);
    connect(trials_, &QSpinBox::valueChanged, this, restartAndSave);
    connect(seed_, &QSpinBox::valueChanged, this, restartAndSave);
    connect(algorithms_, &QListWidget::itemChanged, this, [this, restartAndSave] {
        updateNoiseRows();
        restartAndSave();
    });
    connect(noise_, &QComboBox::currentIndexChanged, this, [this, restartAndSave] {
        updateNoiseRows();
        restartAndSave();
    });
    connect(delta_, &QLineEdit::editingFinished, this, restartAndSave);
    connect(metric_, &QComboBox::currentIndexChanged, this, [this] {
        if (!settingControls_) {
            redraw();
            edited();
        }
    });
    connect(shownScale_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!settingControls_ && prepared_ && i >= 0 &&
            static_cast<std::size_t>(i) < prepared_->scales.size()) {
            plotScale_ = prepared_->scales[static_cast<std::size_t>(i)];
            redraw();
            edited();
        }
    });
    connect(shownEpsilon_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!settingControls_ && i >= 0 &&
            static_cast<std::size_t>(i) < running_settings_.epsilons.size()) {
            plotEpsilon_ = running_settings_.epsilons[static_cast<std::size_t>(i)];
            redraw();
            edited();
        }
    });
    connect(views_, &QTabWidget::currentChanged, this, [this] { edited(); });
    connect(run, &QPushButton::clicked, this, &WorkbenchTab::start);
    connect(cancel_, &QPushButton::clicked, this, &WorkbenchTab::cancel);
    connect(export_, &QPushButton::clicked, this, [this] {
        saveTextWithDialog(this, tr("Export the Workbench numbers"),
                           QStringLiteral("workbench.csv"), csv());
    });
}

void WorkbenchTab::setWindowTable(std::shared_ptr<const ContingencyTable> table,
                                  const QString& name) {
    windowTable_ = std::move(table);
    windowTableName_ = name;
    // A session's domain and algorithms were first tried on the table loaded before it; the
    // session's own table is the next one: try them again on it.
    if (sessionChoices_ && sessionChoices_->data == QLatin1String("table")) {
        pendingDomain_.emplace();
        for (double n : sessionChoices_->domain) {
            pendingDomain_->push_back(static_cast<std::size_t>(n));
        }
        pendingAlgorithms_ = sessionChoices_->algorithms;
        fallbackNote_.clear();
        sessionChoices_.reset();
    }
    auto d = workbenchDataFromTable(windowTable_.get(), name);
    if (d) {
        windowData_ = std::move(*d);
        windowDataError_.clear();
    } else {
        windowData_.reset();
        windowDataError_ = QString::fromStdString(d.error().message);
    }
    if (data_->currentIndex() == 0) {
        rebuildDomains();
        scheduleRestart();
    }
}

void WorkbenchTab::setDataChoice(int index) {
    data_->setCurrentIndex(index);
}

int WorkbenchTab::dataChoice() const {
    return data_->currentIndex();
}

QStringList WorkbenchTab::dataChoices() const {
    QStringList out;
    for (int i = 0; i < data_->count(); ++i) {
        out << data_->itemText(i);
    }
    return out;
}

const WorkbenchData* WorkbenchTab::currentData(QString* why) const {
    const int i = data_->currentIndex();
    if (i <= 0) {
        if (!windowData_ && why != nullptr) {
            *why = windowDataError_.isEmpty() ? tr("No data is loaded.") : windowDataError_;
        }
        return windowData_ ? &*windowData_ : nullptr;
    }
    return &builtins_.at(static_cast<std::size_t>(i - 1));
}

// The domain list and the algorithm list follow the data's shape; check marks are kept by id.
void WorkbenchTab::rebuildDomains() {
    const bool wasSetting = settingControls_;
    settingControls_ = true;
    const WorkbenchData* d = currentData(nullptr);
    // A session's domain waits for the data; an empty one is the data's own size.
    const DomainShape previous =
        pendingDomain_ ? (pendingDomain_->empty() && d != nullptr ? d->shape : *pendingDomain_)
        : domain_->currentIndex() >= 0 &&
                static_cast<std::size_t>(domain_->currentIndex()) < domains_.size()
            ? domains_[static_cast<std::size_t>(domain_->currentIndex())]
            : DomainShape{};
    domains_ = d != nullptr ? domainChoices(d->shape) : std::vector<DomainShape>{};
    domain_->clear();
    int keep = 0;
    bool found = false;
    for (std::size_t i = 0; i < domains_.size(); ++i) {
        domain_->addItem(domainText(domains_[i]));
        if (domains_[i] == previous) {
            keep = static_cast<int>(i);
            found = true;
        }
    }
    domain_->setCurrentIndex(keep);
    dataNote_->setText(d != nullptr ? d->source : QString());
    if (d != nullptr && pendingDomain_) {
        if (!found) {
            fallbackNote_ += tr("The session's domain size %1 does not divide this data's %2: "
                                "the data's own size is used. ")
                                 .arg(domainText(previous), domainText(d->shape));
        }
        pendingDomain_.reset();
    }

    const std::size_t dim = d != nullptr ? d->shape.size() : 1;
    std::set<QString> checked;
    const bool first =
        algorithms_->count() == 0 || algorithms_->property("dim").toULongLong() != dim;
    for (int i = 0; i < algorithms_->count(); ++i) {
        if (algorithms_->item(i)->checkState() == Qt::Checked) {
            checked.insert(algorithms_->item(i)->data(Qt::UserRole).toString());
        }
    }
    if (first) {
        checked.clear();
        for (const QString& id : dim == 2 ? kDefault2d : kDefault1d) {
            checked.insert(id);
        }
    }
    // A session's list (empty: the defaults), applied once the data says the dimension.
    QStringList notRunning;
    if (pendingAlgorithms_ && d != nullptr) {
        checked.clear();
        if (!pendingAlgorithms_->isEmpty()) {
            for (const QString& id : *pendingAlgorithms_) {
                const Algorithm* a = findAlgorithm(id.toStdString());
                const auto& dims = a != nullptr ? a->info().dimensions : std::vector<std::size_t>{};
                if (std::find(dims.begin(), dims.end(), dim) != dims.end()) {
                    checked.insert(QString::fromStdString(a->info().id));
                } else {
                    notRunning << id;
                }
            }
        }
        if (checked.empty()) {
            for (const QString& id : dim == 2 ? kDefault2d : kDefault1d) {
                checked.insert(id);
            }
        }
        pendingAlgorithms_.reset();
    }
    if (!notRunning.isEmpty()) {
        fallbackNote_ += tr("Not run on %1-D data, left out: %2. ")
                             .arg(dim)
                             .arg(notRunning.join(QStringLiteral(", ")));
    }
    algorithms_->clear();
    algorithms_->setProperty("dim", QVariant::fromValue<qulonglong>(dim));
    for (const Algorithm* a : allAlgorithms()) {
        const AlgorithmInfo& info = a->info();
        if (std::find(info.dimensions.begin(), info.dimensions.end(), dim) ==
            info.dimensions.end()) {
            continue;
        }
        const QString id = QString::fromStdString(info.id);
        auto* item = new QListWidgetItem(info.totalIsPublic ? id + QStringLiteral(" †") : id);
        item->setData(Qt::UserRole, id);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.count(id) != 0 ? Qt::Checked : Qt::Unchecked);
        QString tip = QStringLiteral("<b>%1</b> — %2<br>%3<br>%4%5")
                          .arg(id, QString::fromStdString(info.name).toHtmlEscaped(),
                               QString::fromStdString(info.citation).toHtmlEscaped(),
                               info.dataDependent ? tr("data-dependent") : tr("data-independent"),
                               info.usesWorkload ? tr(", workload-aware") : QString());
        if (info.totalIsPublic) {
            tip +=
                tr("<br>† uses the true total as public, as its reference code does: its "
                   "output is ε-DP only when the number of records is already public");
        }
        item->setToolTip(tip);
        item->setForeground(algorithmColour(id));
        algorithms_->addItem(item);
    }
    updateNoiseRows();
    settingControls_ = wasSetting;
}

WorkbenchSettings WorkbenchTab::settings() const {
    WorkbenchSettings s;
    const int di = domain_->currentIndex();
    if (di >= 0 && static_cast<std::size_t>(di) < domains_.size()) {
        s.domain = domains_[static_cast<std::size_t>(di)];
    }
    if (auto v = parseScaleList(scales_->text())) {
        s.scales = *v;
    } else {
        s.scales.clear();
    }
    if (auto v = parseEpsilonList(epsilons_->text())) {
        s.epsilons = *v;
    } else {
        s.epsilons.clear();
    }
    s.workload = workload_->currentText().trimmed();
    s.algorithms.clear();
    for (int i = 0; i < algorithms_->count(); ++i) {
        if (algorithms_->item(i)->checkState() == Qt::Checked) {
            s.algorithms << algorithms_->item(i)->data(Qt::UserRole).toString();
        }
    }
    s.trials = static_cast<std::uint64_t>(trials_->value());
    s.seed = static_cast<std::uint64_t>(seed_->value());
    s.gaussian = noise_->currentIndex() == 1;
    bool ok = false;
    const double delta = delta_->text().trimmed().toDouble(&ok);
    s.delta = ok ? delta : kNaN;
    return s;
}

void WorkbenchTab::setSettings(const WorkbenchSettings& s) {
    settingControls_ = true;
    const auto it = std::find(domains_.begin(), domains_.end(), s.domain);
    if (it != domains_.end()) {
        domain_->setCurrentIndex(static_cast<int>(it - domains_.begin()));
    }
    QStringList sc, ep;
    for (double m : s.scales) {
        sc << (m == 0 ? QStringLiteral("data") : QString::number(m, 'g', 15));
    }
    for (double e : s.epsilons) {
        ep << QString::number(e, 'g', 15);
    }
    scales_->setText(sc.join(QStringLiteral(", ")));
    epsilons_->setText(ep.join(QStringLiteral(", ")));
    workload_->setCurrentText(s.workload);
    for (int i = 0; i < algorithms_->count(); ++i) {
        QListWidgetItem* item = algorithms_->item(i);
        item->setCheckState(s.algorithms.contains(item->data(Qt::UserRole).toString())
                                ? Qt::Checked
                                : Qt::Unchecked);
    }
    trials_->setValue(static_cast<int>(s.trials));
    seed_->setValue(static_cast<int>(s.seed));
    noise_->setCurrentIndex(s.gaussian ? 1 : 0);
    delta_->setText(QString::number(s.delta, 'g', 15));
    updateNoiseRows();
    settingControls_ = false;
    scheduleRestart();
}

namespace {

const QStringList kPages = {QStringLiteral("epsilon"), QStringLiteral("scale"),
                            QStringLiteral("product"), QStringLiteral("output"),
                            QStringLiteral("numbers")};

}  // namespace

WorkbenchChoices WorkbenchTab::choices() const {
    WorkbenchChoices c;
    const int di = data_->currentIndex();
    if (di > 0 && static_cast<std::size_t>(di) <= builtinNames_.size()) {
        c.data = builtinNames_[static_cast<std::size_t>(di - 1)];
    }
    const WorkbenchSettings s = settings();
    const WorkbenchData* d = currentData(nullptr);
    const DomainShape domain = pendingDomain_ ? *pendingDomain_ : s.domain;
    if (d == nullptr ? pendingDomain_.has_value() : domain != d->shape) {
        for (std::size_t n : domain) {
            c.domain.push_back(static_cast<double>(n));
        }
    }
    if (!s.scales.empty()) {
        c.scales = s.scales;
    }
    if (!s.epsilons.empty()) {
        c.epsilons = s.epsilons;
    }
    c.workload = s.workload;
    if (pendingAlgorithms_) {
        c.algorithms = *pendingAlgorithms_;
    } else {
        const std::size_t dim = d != nullptr ? d->shape.size() : 1;
        const QStringList& defaults = dim == 2 ? kDefault2d : kDefault1d;
        const bool isDefault =
            s.algorithms.size() == defaults.size() &&
            std::all_of(s.algorithms.begin(), s.algorithms.end(),
                        [&](const QString& id) { return defaults.contains(id); });
        if (!isDefault) {
            c.algorithms = s.algorithms;
        }
    }
    c.trials = static_cast<int>(s.trials);
    c.seed = static_cast<qint64>(s.seed);
    c.gaussian = s.gaussian;
    if (std::isfinite(s.delta)) {
        c.delta = s.delta;
    }
    c.rmse = metric_->currentIndex() == 1;
    c.page = kPages.value(views_->currentIndex(), kPages.front());
    c.plotScale = plotScale_;
    c.plotEpsilon = plotEpsilon_;
    c.pointAlgorithm = pointAlgorithm_;
    if (!pointAlgorithm_.isEmpty()) {
        c.pointScale = pointScale_;
        c.pointEpsilon = pointEpsilon_;
    }
    return c;
}

void WorkbenchTab::setChoices(const WorkbenchChoices& c) {
    settingControls_ = true;
    fallbackNote_.clear();
    sessionChoices_ = c;
    int di = 0;
    for (std::size_t i = 0; i < builtinNames_.size(); ++i) {
        if (builtinNames_[i] == c.data) {
            di = static_cast<int>(i) + 1;
        }
    }
    data_->setCurrentIndex(di);
    DomainShape domain;
    for (double n : c.domain) {
        domain.push_back(static_cast<std::size_t>(n));
    }
    pendingDomain_ = domain;
    pendingAlgorithms_ = c.algorithms;
    rebuildDomains();
    QStringList sc, ep;
    for (double m : c.scales) {
        sc << (m == 0 ? QStringLiteral("data") : QString::number(m, 'g', 15));
    }
    for (double e : c.epsilons) {
        ep << QString::number(e, 'g', 15);
    }
    scales_->setText(sc.join(QStringLiteral(", ")));
    epsilons_->setText(ep.join(QStringLiteral(", ")));
    workload_->setCurrentText(c.workload);
    trials_->setValue(c.trials);
    seed_->setValue(static_cast<int>(c.seed));
    noise_->setCurrentIndex(c.gaussian ? 1 : 0);
    delta_->setText(QString::number(c.delta, 'g', 15));
    updateNoiseRows();
    metric_->setCurrentIndex(c.rmse ? 1 : 0);
    plotScale_ = c.plotScale;
    plotEpsilon_ = c.plotEpsilon;
    views_->setCurrentIndex(std::max(0, static_cast<int>(kPages.indexOf(c.page))));
    pointAlgorithm_ = c.pointAlgorithm;
    pointScale_ = c.pointScale;
    pointEpsilon_ = c.pointEpsilon;
    pointPending_ = !pointAlgorithm_.isEmpty();
    settingControls_ = false;
    if (!fallbackNote_.isEmpty()) {
        setStatus(QString());
    }
    scheduleRestart();
}

// A user's edit: saved in the document (ExplorerState::workbench) when the inputs can be saved;
// a list that does not parse, or no algorithm, stays an error in the status line (start()) and
// the document keeps the last good inputs.
void WorkbenchTab::edited() {
    const WorkbenchSettings s = settings();
    if (settingControls_ || !parseScaleList(scales_->text()) ||
        !parseEpsilonList(epsilons_->text()) || s.algorithms.isEmpty() ||
        (s.gaussian && !(s.delta > 0 && s.delta < 1))) {
        return;
    }
    sessionChoices_.reset();  // the user's choices from now on
    Q_EMIT choicesEdited();
}

// The point of a session (or the one shown before a restart) once the run has it.
void WorkbenchTab::applyPendingPoint() {
    if (!pointPending_ || !prepared_) {
        return;
    }
    pointPending_ = false;
    const auto& scales = prepared_->scales;
    const auto si = static_cast<std::size_t>(std::find(scales.begin(), scales.end(), pointScale_) -
                                             scales.begin());
    const bool has = si < scales.size() &&
                     std::find(running_settings_.epsilons.begin(), running_settings_.epsilons.end(),
                               pointEpsilon_) != running_settings_.epsilons.end() &&
                     std::any_of(prepared_->algorithms.begin(), prepared_->algorithms.end(),
                                 [&](const Algorithm* a) {
                                     return QString::fromStdString(a->info().id) == pointAlgorithm_;
                                 });
    if (!has) {
        detailText_->setText(tr("The point %1 at m = %2, ε = %3 is not among those computed "
                                "now. Click a point in a plot to see that algorithm's output.")
                                 .arg(pointAlgorithm_, scaleText(pointScale_),
                                      QString::number(pointEpsilon_, 'g', 6)));
        pointAlgorithm_.clear();
        return;
    }
    showDetail(pointAlgorithm_, si, pointEpsilon_, false);
}

void WorkbenchTab::scheduleRestart() {
    if (settingControls_) {
        return;
    }
    restart_->start();
}

void WorkbenchTab::setStatus(const QString& text) {
    status_->setText(fallbackNote_ + text);
}

bool WorkbenchTab::busy() const {
    return running_ || restart_->isActive();
}

QString WorkbenchTab::message() const {
    return status_->text();
}

void WorkbenchTab::cancel() {
    restart_->stop();
    if (!running_) {
        return;
    }
    ++generation_;
    runner_->cancel(kSlot);
    finish(tr("Cancelled after %1 of %2 algorithms. Change an input or press Run to compute "
              "again.")
               .arg(algorithmsDone_)
               .arg(prepared_ ? prepared_->algorithms.size() : 0));
}

void WorkbenchTab::finish(const QString& text) {
    running_ = false;
    cancel_->setEnabled(false);
    setStatus(text);
    redraw();
    Q_EMIT drawn();
}

void WorkbenchTab::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) {
        start();
    }
}

void WorkbenchTab::start() {
    restart_->stop();
    if (!isVisible()) {
        if (running_) {
            ++generation_;
            runner_->cancel(kSlot);
            running_ = false;
        }
        stale_ = true;
        return;
    }
    stale_ = false;
    pointPending_ = !pointAlgorithm_.isEmpty();
    const std::uint64_t generation = ++generation_;
    runner_->cancel(kSlot);
    runner_->cancel(kDetailSlot);
    detailPending_ = false;
    prepared_.reset();
    cells_.clear();
    detail_.reset();
    algorithmsDone_ = 0;
    QString why;
    const WorkbenchData* d = currentData(&why);
    WorkbenchSettings s = settings();
    QString inputError;
    if (d == nullptr) {
        inputError = why;
    } else if (auto sc = parseScaleList(scales_->text()); !sc) {
        inputError = QString::fromStdString(sc.error().message);
    } else if (auto ep = parseEpsilonList(epsilons_->text()); !ep) {
        inputError = QString::fromStdString(ep.error().message);
    } else if (s.gaussian) {
        // A bad δ is refused before any run, with the algorithms' own message; an algorithm
        // without a Gaussian form is not affected (it keeps its Laplace noise).
        for (const QString& id : s.algorithms) {
            const Algorithm* a = findAlgorithm(id.toStdString());
            if (a == nullptr || !a->info().gaussian) {
                continue;
            }
            if (auto m = checkAlgorithmMeasurement(a->info(), MeasurementNoise::Gaussian, s.delta);
                !m) {
                inputError = tr("HDMM δ: %1").arg(QString::fromStdString(m.error().message));
                break;
            }
        }
    }
    if (!inputError.isEmpty()) {
        running_ = false;
        cancel_->setEnabled(false);
        setStatus(inputError);
        redraw();
        Q_EMIT drawn();
        return;
    }
    running_ = true;
    cancel_->setEnabled(true);
    running_settings_ = s;
    setStatus(tr("Preparing the data…"));
    struct Prep {
        QString error;
        std::shared_ptr<const WorkbenchPrepared> prepared;
        std::vector<WorkbenchCell> exact;
    };
    auto input = std::make_shared<const WorkbenchData>(*d);
    runner_->run<Prep>(
        kSlot,
        [input, s](std::stop_token stop, JobProgress& progress) {
            progress.setIndeterminate();
            Prep out;
            auto p = prepareWorkbench(*input, s);
            if (!p) {
                out.error = QString::fromStdString(p.error().message);
                return out;
            }
            out.exact = exactCells(*p, s, stop);
            out.prepared = std::make_shared<const WorkbenchPrepared>(std::move(*p));
            return out;
        },
        [this, generation](Prep r) {
            if (generation != generation_) {
                return;
            }
            if (!r.error.isEmpty()) {
                finish(r.error);
                return;
            }
            prepared_ = r.prepared;
            cells_ = std::move(r.exact);
            redraw();
            startAlgorithm(0, generation);
        },
        tr("Workbench: preparing"), JobRunner::Lane::Background);
}

void WorkbenchTab::startAlgorithm(std::size_t index, std::uint64_t generation) {
    if (!prepared_ || index >= prepared_->algorithms.size()) {
        finish(tr("Done: %1 algorithms × %2 scales × %3 ε values, %4 trials each. Click a point "
                  "to see that algorithm's output.")
                   .arg(prepared_ ? prepared_->algorithms.size() : 0)
                   .arg(prepared_ ? prepared_->scales.size() : 0)
                   .arg(running_settings_.epsilons.size())
                   .arg(running_settings_.trials));
        applyPendingPoint();
        return;
    }
    const Algorithm* a = prepared_->algorithms[index];
    const QString id = QString::fromStdString(a->info().id);
    setStatus(tr("Running %1 (%2 of %3)… exact errors (hollow markers) are shown already.")
                  .arg(id)
                  .arg(index + 1)
                  .arg(prepared_->algorithms.size()));
    auto prepared = prepared_;
    const WorkbenchSettings s = running_settings_;
    runner_->run<std::vector<WorkbenchCell>>(
        kSlot,
        [prepared, s, a](std::stop_token stop, JobProgress& progress) {
            return runAlgorithm(
                *prepared, s, *a, [&progress](double f) { progress.set(f); }, stop);
        },
        [this, generation, index](std::vector<WorkbenchCell> cells) {
            if (generation != generation_) {
                return;
            }
            mergeCells(std::move(cells));
            algorithmsDone_ = index + 1;
            redraw();
            startAlgorithm(index + 1, generation);
        },
        tr("Workbench: %1").arg(id), JobRunner::Lane::Background);
}

void WorkbenchTab::mergeCells(std::vector<WorkbenchCell> cells) {
    for (WorkbenchCell& c : cells) {
        auto it = std::find_if(cells_.begin(), cells_.end(), [&](const WorkbenchCell& o) {
            return o.algorithm == c.algorithm && o.scaleIndex == c.scaleIndex &&
                   o.epsilon == c.epsilon;
        });
        if (it != cells_.end()) {
            if (!c.exactRmse) {
                c.exactRmse = it->exactRmse;
            }
            *it = std::move(c);
        } else {
            cells_.push_back(std::move(c));
        }
    }
}

QString WorkbenchTab::legendName(const QString& algorithm) const {
    const Algorithm* a = findAlgorithm(algorithm.toStdString());
    if (a != nullptr && a->info().totalIsPublic) {
        return tr("%1 † (true total public)").arg(algorithm);
    }
    if (a != nullptr && measuresGaussian(*a, running_settings_)) {
        return tr("%1 (Gaussian, δ = %2)")
            .arg(algorithm, QString::fromStdString(formatNumber(running_settings_.delta)));
    }
    return algorithm;
}

// The HDMM noise row only while an algorithm with a Gaussian form is ticked, δ only for Gaussian.
void WorkbenchTab::updateNoiseRows() {
    if (formRows_ == nullptr) {
        return;  // the controls are being built
    }
    bool offered = false;
    for (int i = 0; i < algorithms_->count(); ++i) {
        const QListWidgetItem* item = algorithms_->item(i);
        const Algorithm* a = findAlgorithm(item->data(Qt::UserRole).toString().toStdString());
        offered =
            offered || (item->checkState() == Qt::Checked && a != nullptr && a->info().gaussian);
    }
    formRows_->setRowShown(noise_, offered);
    formRows_->setRowShown(delta_, offered && noise_->currentIndex() == 1);
}

double WorkbenchTab::shownValue(const QString& algorithm, std::size_t scaleIndex, double epsilon,
                                bool* exact) const {
    if (!prepared_) {
        return kNaN;
    }
    for (const WorkbenchCell& c : cells_) {
        if (c.algorithm == algorithm && c.scaleIndex == scaleIndex && c.epsilon == epsilon) {
            const WorkbenchValue v =
                cellValue(c, static_cast<WorkbenchMetric>(metric_->currentIndex()),
                          prepared_->scaleTotal[scaleIndex], prepared_->workload->queryCount());
            if (exact != nullptr) {
                *exact = v.exact;
            }
            return v.valid ? v.mean : kNaN;
        }
    }
    return kNaN;
}

QString WorkbenchTab::csv() const {
    return prepared_ ? workbenchCsv(*prepared_, running_settings_, cells_) : QString();
}

void WorkbenchTab::redraw() {
    // The selectors of the shown scale and ε follow the prepared data.
    settingControls_ = true;
    shownScale_->clear();
    shownEpsilon_->clear();
    if (prepared_) {
        for (std::size_t i = 0; i < prepared_->scales.size(); ++i) {
            shownScale_->addItem(prepared_->scales[i] == 0
                                     ? tr("data (m = %1)").arg(scaleText(prepared_->scaleTotal[i]))
                                     : scaleText(prepared_->scales[i]));
        }
        for (double e : running_settings_.epsilons) {
            shownEpsilon_->addItem(QString::number(e, 'g', 6));
        }
        // By value, so that the choice survives a restart (and a session); unchosen, the ε plot
        // shows the first scale.
        const auto& sc = prepared_->scales;
        const auto& ep = running_settings_.epsilons;
        const auto si = std::find(sc.begin(), sc.end(), plotScale_) - sc.begin();
        const auto ei = std::find(ep.begin(), ep.end(), plotEpsilon_) - ep.begin();
        shownScale_->setCurrentIndex(si < shownScale_->count() ? static_cast<int>(si) : 0);
        // Unchosen: DPBench's ε = 0.1 when it is in the list — there the data-dependent
        // algorithms' lead at small m and the data-independent ones' catching up at large m are
        // plain; at ε = 1 the lead at m = 1 000 is mostly gone — else the middle one.
        const auto dpbench = std::find(ep.begin(), ep.end(), 0.1) - ep.begin();
        shownEpsilon_->setCurrentIndex(ei < shownEpsilon_->count() ? static_cast<int>(ei)
                                       : dpbench < shownEpsilon_->count()
                                           ? static_cast<int>(dpbench)
                                           : std::max(0, static_cast<int>(ep.size()) / 2));
    }
    settingControls_ = false;
    points_.clear();
    drawEpsilonPlot();
    drawScalePlot();
    drawProductPlot();
    fillTable();
    export_->setEnabled(prepared_ != nullptr && !cells_.empty());
    QStringList notes;
    if (prepared_) {
        notes << tr("%1; workload: %2; %3.")
                     .arg(dataNote_->text(),
                          QString::fromStdString(prepared_->workload->describe()),
                          tr("domain %1").arg(domainText(prepared_->shape)));
        for (const auto& [id, why] : prepared_->refused) {
            notes << tr("%1 is not run: %2.").arg(id, why);
        }
        if (!frontierText_.isEmpty()) {
            notes << frontierText_.toHtmlEscaped();
        }
        std::set<QString> failed;
        for (const WorkbenchCell& c : cells_) {
            if (!c.error.isEmpty() && failed.insert(c.algorithm).second) {
                notes << tr("%1 refused: %2").arg(c.algorithm, c.error.toHtmlEscaped());
            }
        }
        for (const Algorithm* a : prepared_->algorithms) {
            if (measuresGaussian(*a, running_settings_)) {
                notes << tr("%1 measures with Gaussian noise: (ε, δ)-DP with δ = %2, a weaker "
                            "guarantee than the ε-DP of the others at the same ε.")
                             .arg(QString::fromStdString(a->info().id),
                                  QString::fromStdString(formatNumber(running_settings_.delta)));
            }
        }
        notes << tr(
            "Error bars: ± one standard error. Hollow markers, dashed lines: exact expected "
            "values (hover here).");
        note_->setToolTip(
            tr("Exact expected values are known for the data-independent algorithms answered by "
               "least squares, from their strategy alone; for the scaled L2 error the value shown "
               "is √E‖W·est − W·x‖² / (q·m), the root of the expected square (at least the mean of "
               "the norm, by Jensen's inequality, and close to it for many queries). The trials "
               "replace them with filled markers as they finish."));
    }
    if (!prepared_ && !running_) {
        // Nothing to plot: say why under the empty plot too (no data, a table the algorithms do
        // not run on, a bad list), not only in the status line on the left.
        notes << status_->text().toHtmlEscaped();
    }
    note_->setText(notes.join(QStringLiteral("<br>")));
}

namespace {

void resetPlot(QCustomPlot* p) {
    p->clearItems();
    p->clearPlottables();
    p->clearGraphs();
}

void logAxes(QCustomPlot* p) {
    makeLogAxis(p->xAxis);
    makeLogAxis(p->yAxis);
}

// A legend in `rect`'s top right corner as the plot's legend (the plot's own one went with the
// layout it was in; the palette code styles plot->legend).
void attachLegend(QCustomPlot* p, QCPAxisRect* rect, bool visible) {
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    legend->setLayer(QStringLiteral("legend"));
    legend->setVisible(visible);
    p->legend = legend;
}

// The detail plot's single axis rect as the plot's default axes.
QCPAxisRect* singleRect(QCustomPlot* p) {
    auto* rect = new QCPAxisRect(p);
    p->plotLayout()->addElement(0, 0, rect);
    p->xAxis = rect->axis(QCPAxis::atBottom);
    p->yAxis = rect->axis(QCPAxis::atLeft);
    p->xAxis2 = rect->axis(QCPAxis::atTop);
    p->yAxis2 = rect->axis(QCPAxis::atRight);
    return rect;
}

void fitLog(QCPAxis* axis, double lo, double hi) {
    if (!(lo > 0) || !std::isfinite(hi)) {
        axis->setRange(0.1, 10);
        return;
    }
    axis->setRange(lo / 1.6, hi * 1.6);
}

const WorkbenchCell* findCell(const std::vector<WorkbenchCell>& cells, const QString& algorithm,
                              std::size_t scaleIndex, double epsilon) {
    const auto it = std::find_if(cells.begin(), cells.end(), [&](const WorkbenchCell& c) {
        return c.algorithm == algorithm && c.scaleIndex == scaleIndex && c.epsilon == epsilon;
    });
    return it == cells.end() ? nullptr : &*it;
}

// The value a log plot can draw for (algorithm, scale, ε): the cell's value when it has one and
// it is > 0, else nothing.
std::optional<WorkbenchValue> plottableValue(const std::vector<WorkbenchCell>& cells,
                                             const QString& algorithm, std::size_t scaleIndex,
                                             double epsilon, WorkbenchMetric metric,
                                             double scaleTotal, std::uint64_t queries) {
    const WorkbenchCell* c = findCell(cells, algorithm, scaleIndex, epsilon);
    if (c == nullptr) {
        return std::nullopt;
    }
    const WorkbenchValue v = cellValue(*c, metric, scaleTotal, queries);
    if (!v.valid || !(v.mean > 0)) {
        return std::nullopt;
    }
    return v;
}

// ± one standard error on `g`'s points (on a log axis a bar cannot reach 0: it stops above).
void addErrorBars(QCustomPlot* p, QCPGraph* g, const QVector<double>& y, const QVector<double>& se,
                  const QColor& colour) {
    auto* bars = new QCPErrorBars(p->xAxis, p->yAxis);
    bars->removeFromLegend();
    bars->setDataPlottable(g);
    bars->setPen(QPen(colour, 1));
    QVector<double> minus(se.size());
    for (int i = 0; i < se.size(); ++i) {
        minus[i] = std::min(se[i], y[i] * 0.999);
    }
    bars->setData(minus, se);
}

// Clears `p` for a log–log plot of the metric against `xLabel`; false: nothing to draw.
bool beginPlot(QCustomPlot* p, const QString& xLabel, WorkbenchMetric metric, bool hasData) {
    resetPlot(p);
    logAxes(p);
    p->xAxis->setLabel(xLabel);
    p->yAxis->setLabel(
        metric == WorkbenchMetric::Rmse
            ? QCoreApplication::translate("WorkbenchTab", "RMSE per query (records)")
            : QCoreApplication::translate("WorkbenchTab", "scaled L2 error (DPBench)"));
    if (!hasData) {
        p->legend->setVisible(false);
        p->replot();
    }
    return hasData;
}

void endPlot(QCustomPlot* p) {
    p->legend->setVisible(p->graphCount() > 0);
    // Error falls with ε and m: the bottom left corner is the emptiest.
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignLeft);
    p->replot();
}

}  // namespace

void WorkbenchTab::drawEpsilonPlot() {
    QCustomPlot* p = epsPlot_;
    const auto metric = static_cast<WorkbenchMetric>(metric_->currentIndex());
    if (!beginPlot(p, tr("ε"), metric, prepared_ != nullptr)) {
        return;
    }
    p->legend->setVisible(true);
    const std::size_t si = static_cast<std::size_t>(std::max(0, shownScale_->currentIndex())) %
                           std::max<std::size_t>(1, prepared_->scales.size());
    const double m = prepared_->scaleTotal[si];
    const std::uint64_t q = prepared_->workload->queryCount();
    frontierText_.clear();
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    std::vector<ErrorCurve> curves;
    std::vector<QString> curveIds;
    for (const Algorithm* a : prepared_->algorithms) {
        const QString id = QString::fromStdString(a->info().id);
        const QColor colour = algorithmColour(id);
        QVector<double> mx, my, ex, ey;
        QVector<double> se;
        std::vector<PointRef> mRefs, eRefs;
        ErrorCurve curve;
        curve.label = id.toStdString();
        for (double eps : running_settings_.epsilons) {
            const WorkbenchCell* it = findCell(cells_, id, si, eps);
            CurvePoint cp;
            cp.epsilon = eps;
            cp.value = kNaN;
            if (it != nullptr) {
                const WorkbenchValue v = cellValue(*it, metric, m, q);
                if (v.valid && v.mean > 0) {
                    cp.value = v.mean;
                    cp.ciLow = v.mean - 1.96 * v.standardError;
                    cp.ciHigh = v.mean + 1.96 * v.standardError;
                    cp.exact = v.exact;
                    if (!v.exact) {
                        mx << eps;
                        my << v.mean;
                        se << v.standardError;
                        mRefs.push_back({id, si, eps});
                    }
                    lo = std::min(lo, v.mean);
                    hi = std::max(hi, v.mean);
                }
                const double exact = exactValue(*it, metric, m, q);
                if (std::isfinite(exact) && exact > 0) {
                    ex << eps;
                    ey << exact;
                    eRefs.push_back({id, si, eps});
                    lo = std::min(lo, exact);
                    hi = std::max(hi, exact);
                }
            }
            curve.points.push_back(cp);
        }
        curves.push_back(std::move(curve));
        curveIds.push_back(id);
        if (!mx.isEmpty()) {
            QCPGraph* g = p->addGraph();
            g->setName(legendName(id));
            g->setPen(QPen(colour, 2));
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 6));
            g->setData(mx, my, true);
            addErrorBars(p, g, my, se, colour);
            points_[g] = mRefs;
        }
        if (!ex.isEmpty()) {
            QCPGraph* g = p->addGraph();
            g->setName(mx.isEmpty() ? legendName(id) + tr(" (exact)") : QString());
            QPen pen(colour, 1.5, Qt::DashLine);
            g->setPen(pen);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colour, 1.5),
                                               QBrush(palette().color(QPalette::Base)), 9));
            g->setData(ex, ey, true);
            if (!mx.isEmpty()) {
                g->removeFromLegend();
            }
            points_[g] = eRefs;
        }
    }
    // The frontier: the lowest curve at every ε (core/choosing's lower envelope, as on the
    // Trade-off tab). The Trade-off tab's rule for ties within Monte Carlo noise (the lower index
    // wins) is not applied: here the order of the algorithms says nothing about preference.
    // Instead the text names, with each winner, the curves it does not significantly beat: with
    // a few trials the lowest mean is often luck (the trials of every ε share their random
    // numbers, so one lucky draw wins at every ε).
    const Frontier f = lowerEnvelope(curves);
    if (f.points.size() >= 1) {
        QVector<double> fx, fy;
        for (const FrontierPoint& fp : f.points) {
            fx << fp.epsilon;
            fy << fp.value;
        }
        const QString winners = frontierWinners(curves, f);
        QCPGraph* g = p->addGraph();
        g->setName(tr("frontier (lowest error)"));
        QColor c = palette().color(QPalette::Text);
        c.setAlpha(60);
        g->setPen(QPen(c, 9, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        g->setData(fx, fy, true);
        g->setSelectable(QCP::stNone);
        // Under the curves: a layer of its own just below the main one.
        if (p->layer(QStringLiteral("frontier")) == nullptr) {
            p->addLayer(QStringLiteral("frontier"), p->layer(QStringLiteral("main")),
                        QCustomPlot::limBelow);
        }
        g->setLayer(QStringLiteral("frontier"));
        frontierText_ = tr("Frontier at m = %1: %2.").arg(scaleText(m), winners);
    }
    double eLo = running_settings_.epsilons.front(), eHi = running_settings_.epsilons.back();
    p->xAxis->setRange(eLo / 2, eHi * 2);
    fitLog(p->yAxis, lo, hi);
    endPlot(p);
}

void WorkbenchTab::drawScalePlot() {
    QCustomPlot* p = scalePlot_;
    const auto metric = static_cast<WorkbenchMetric>(metric_->currentIndex());
    if (!beginPlot(p, tr("scale m (records)"), metric,
                   prepared_ != nullptr && !running_settings_.epsilons.empty())) {
        return;
    }
    const std::size_t ei = static_cast<std::size_t>(std::max(0, shownEpsilon_->currentIndex())) %
                           running_settings_.epsilons.size();
    const double eps = running_settings_.epsilons[ei];
    const std::uint64_t q = prepared_->workload->queryCount();
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    double mLo = std::numeric_limits<double>::infinity(), mHi = 0;
    for (const Algorithm* a : prepared_->algorithms) {
        const QString id = QString::fromStdString(a->info().id);
        const QColor colour = algorithmColour(id);
        // Points sorted by m (the data's own m sits among the resampled ones).
        std::vector<std::pair<double, std::size_t>> order;
        for (std::size_t si = 0; si < prepared_->scales.size(); ++si) {
            order.emplace_back(prepared_->scaleTotal[si], si);
        }
        std::sort(order.begin(), order.end());
        QVector<double> x, y, se;
        std::vector<PointRef> refs;
        bool allExact = true;
        for (const auto& [m, si] : order) {
            const auto pv = plottableValue(cells_, id, si, eps, metric, m, q);
            if (!pv) {
                continue;
            }
            const WorkbenchValue& v = *pv;
            allExact = allExact && v.exact;
            x << m;
            y << v.mean;
            se << v.standardError;
            refs.push_back({id, si, eps});
            lo = std::min(lo, v.mean);
            hi = std::max(hi, v.mean);
            mLo = std::min(mLo, m);
            mHi = std::max(mHi, m);
        }
        if (x.isEmpty()) {
            continue;
        }
        QCPGraph* g = p->addGraph();
        g->setName(legendName(id) + (allExact ? tr(" (exact)") : QString()));
        g->setPen(QPen(colour, allExact ? 1.5 : 2, allExact ? Qt::DashLine : Qt::SolidLine));
        g->setScatterStyle(allExact ? QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colour, 1.5),
                                                      QBrush(palette().color(QPalette::Base)), 9)
                                    : QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 6));
        g->setData(x, y, true);
        if (!allExact) {
            addErrorBars(p, g, y, se, colour);
        }
        points_[g] = refs;
    }
    fitLog(p->xAxis, mLo, mHi);
    fitLog(p->yAxis, lo, hi);
    endPlot(p);
}

// DPBench's scale–ε exchangeability (Hay et al. 2016, §6): for many algorithms the scaled error
// depends on m·ε only, so the curves of the different scales fall on one line. One colour per
// algorithm, one marker per scale, a line per (algorithm, scale) through the ε values.
void WorkbenchTab::drawProductPlot() {
    QCustomPlot* p = productPlot_;
    const auto metric = static_cast<WorkbenchMetric>(metric_->currentIndex());
    if (!beginPlot(p, tr("m · ε (scale × privacy budget)"), metric, prepared_ != nullptr)) {
        return;
    }
    const std::uint64_t q = prepared_->workload->queryCount();
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    double xLo = std::numeric_limits<double>::infinity(), xHi = 0;
    for (const Algorithm* a : prepared_->algorithms) {
        const QString id = QString::fromStdString(a->info().id);
        const QColor colour = algorithmColour(id);
        bool named = false;
        for (std::size_t si = 0; si < prepared_->scales.size(); ++si) {
            const double m = prepared_->scaleTotal[si];
            QVector<double> x, y;
            std::vector<PointRef> refs;
            bool allExact = true;
            for (double eps : running_settings_.epsilons) {
                const auto pv = plottableValue(cells_, id, si, eps, metric, m, q);
                if (!pv) {
                    continue;
                }
                const WorkbenchValue& v = *pv;
                allExact = allExact && v.exact;
                x << m * eps;
                y << v.mean;
                refs.push_back({id, si, eps});
                lo = std::min(lo, v.mean);
                hi = std::max(hi, v.mean);
                xLo = std::min(xLo, m * eps);
                xHi = std::max(xHi, m * eps);
            }
            if (x.isEmpty()) {
                continue;
            }
            QCPGraph* g = p->addGraph();
            g->setName(legendName(id));
            if (named) {
                g->removeFromLegend();
            }
            named = true;
            g->setPen(QPen(colour, 1.5, allExact ? Qt::DashLine : Qt::SolidLine));
            const auto shape = scaleShape(si);
            g->setScatterStyle(allExact
                                   ? QCPScatterStyle(shape, QPen(colour, 1.5),
                                                     QBrush(palette().color(QPalette::Base)), 8)
                                   : QCPScatterStyle(shape, colour, colour, 7));
            g->setData(x, y, true);
            points_[g] = refs;
        }
    }
    // A legend entry per scale for the marker shapes (grey, no line).
    for (std::size_t si = 0; si < prepared_->scales.size(); ++si) {
        QCPGraph* g = p->addGraph();
        g->setName(tr("m = %1").arg(scaleText(prepared_->scaleTotal[si])));
        g->setPen(Qt::NoPen);
        g->setScatterStyle(QCPScatterStyle(scaleShape(si), palette().color(QPalette::Text),
                                           palette().color(QPalette::Text), 7));
        g->setSelectable(QCP::stNone);
    }
    fitLog(p->xAxis, xLo, xHi);
    fitLog(p->yAxis, lo, hi);
    endPlot(p);
}

void WorkbenchTab::fillTable() {
    const QStringList headers = {
        tr("Algorithm"),        tr("m"),          tr("ε"),         tr("scaled L2 (mean ± se)"),
        tr("RMSE (mean ± se)"), tr("exact RMSE"), tr("s per run"), tr("note")};
    table_->clear();
    table_->setColumnCount(static_cast<int>(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    if (!prepared_) {
        table_->setRowCount(0);
        return;
    }
    std::vector<const WorkbenchCell*> rows;
    for (const WorkbenchCell& c : cells_) {
        rows.push_back(&c);
    }
    // Registry order, then scale, then ε.
    const auto rank = [](const QString& id) {
        const auto& all = allAlgorithms();
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (QString::fromStdString(all[i]->info().id) == id) {
                return i;
            }
        }
        return all.size();
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const WorkbenchCell* a, const WorkbenchCell* b) {
        return std::tuple(rank(a->algorithm), a->scaleIndex, a->epsilon) <
               std::tuple(rank(b->algorithm), b->scaleIndex, b->epsilon);
    });
    table_->setRowCount(static_cast<int>(rows.size() + prepared_->refused.size()));
    int r = 0;
    for (const WorkbenchCell* c : rows) {
        const auto set = [&](int col, const QString& text) {
            table_->setItem(r, col, new QTableWidgetItem(text));
        };
        set(0, legendName(c->algorithm));
        set(1, scaleText(prepared_->scaleTotal[c->scaleIndex]));
        set(2, QString::number(c->epsilon, 'g', 6));
        if (c->result) {
            set(3, QStringLiteral("%1 ± %2").arg(fmt(c->result->scaledL2.mean),
                                                 fmt(c->result->scaledL2.standardError)));
            set(4, QStringLiteral("%1 ± %2").arg(fmt(c->result->rmse.mean),
                                                 fmt(c->result->rmse.standardError)));
            set(6, fmt(c->result->secondsMedian));
        }
        if (c->exactRmse) {
            set(5, fmt(*c->exactRmse));
        }
        set(7, !c->error.isEmpty() ? c->error
               : !c->result        ? tr("trials running…")
                                   : QString::fromStdString(c->result->summary));
        ++r;
    }
    for (const auto& [id, why] : prepared_->refused) {
        table_->setItem(r, 0, new QTableWidgetItem(id));
        table_->setItem(r, 7, new QTableWidgetItem(tr("not run: %1").arg(why)));
        ++r;
    }
    table_->resizeColumnsToContents();
}

void WorkbenchTab::onPlotClick(QCPAbstractPlottable* plottable, int index) {
    // A click on a point's error bar is a click on the point.
    if (auto* bars = qobject_cast<QCPErrorBars*>(plottable)) {
        plottable = bars->dataPlottable();
    }
    const auto it = points_.constFind(plottable);
    if (it == points_.constEnd() || index < 0 || static_cast<std::size_t>(index) >= it->size()) {
        return;
    }
    const PointRef& ref = (*it)[static_cast<std::size_t>(index)];
    showDetail(ref.algorithm, ref.scaleIndex, ref.epsilon);
}

void WorkbenchTab::showDetail(const QString& algorithm, std::size_t scaleIndex, double epsilon,
                              bool showPage) {
    if (showPage) {
        const bool was = settingControls_;
        settingControls_ = true;  // one edit for the page and the point
        views_->setCurrentIndex(3);
        settingControls_ = was;
    }
    if (!prepared_ || scaleIndex >= prepared_->scales.size()) {
        return;
    }
    pointAlgorithm_ = algorithm;
    pointScale_ = prepared_->scales[scaleIndex];
    pointEpsilon_ = epsilon;
    pointPending_ = false;
    if (showPage) {
        edited();
    }
    const auto it = std::find_if(cells_.begin(), cells_.end(), [&](const WorkbenchCell& c) {
        return c.algorithm == algorithm && c.scaleIndex == scaleIndex && c.epsilon == epsilon;
    });
    if (it == cells_.end() || !it->result) {
        detail_.reset();
        detailText_->setText(
            it != cells_.end() && !it->error.isEmpty()
                ? tr("%1 refused: %2").arg(algorithm, it->error)
                : tr("%1 at ε = %2: its trials are still running (only the exact error is known "
                     "so far). Click again when its solid marker appears.")
                      .arg(algorithm, QString::number(epsilon, 'g', 6)));
        drawDetail();
        return;
    }
    detailPending_ = true;
    detailText_->setText(tr("Computing the worst queries…"));
    auto prepared = prepared_;
    std::vector<double> estimate = it->result->firstEstimate;
    const double m = prepared_->scaleTotal[scaleIndex];
    runner_->run<Expected<WorkbenchDetail>>(
        kDetailSlot,
        [prepared, scaleIndex, estimate = std::move(estimate)](std::stop_token,
                                                               JobProgress&) mutable {
            return workbenchDetail(*prepared->workload, prepared->x[scaleIndex],
                                   std::move(estimate), kWorst);
        },
        [this, algorithm, epsilon, m](Expected<WorkbenchDetail> d) {
            detailPending_ = false;
            if (!d) {
                detail_.reset();
                detailText_->setText(QString::fromStdString(d.error().message));
            } else {
                detail_ = std::move(*d);
                detail_->algorithm = algorithm;
                detail_->epsilon = epsilon;
                detail_->scale = m;
                QString text = tr("<b>%1</b> at ε = %2, m = %3: its output (trial 0) beside "
                                  "the input x.")
                                   .arg(legendName(algorithm).toHtmlEscaped(),
                                        QString::number(epsilon, 'g', 6), scaleText(m));
                QStringList worst;  // the list itself in the tooltip: it is long
                for (const WorkbenchDetail::Worst& w : detail_->worst) {
                    QStringList dims;
                    for (const BinRange& b : w.query.box) {
                        dims << (b.lo == b.hi ? QString::number(b.lo)
                                              : QStringLiteral("%1..%2").arg(b.lo).arg(b.hi));
                    }
                    worst << tr("%1: error %2")
                                 .arg(dims.join(QStringLiteral(" × ")), formatSigned(w.error, 3));
                }
                if (!worst.isEmpty()) {
                    text += tr(" Red: the workload's %1 queries with the largest |error| (hover "
                               "here for the list).")
                                .arg(worst.size());
                }
                detailText_->setToolTip(worst.join(QLatin1Char('\n')));
                if (!detail_->cellErrorMeaning.isEmpty()) {
                    text += tr(" Right: %1.").arg(detail_->cellErrorMeaning);
                }
                detailText_->setText(text);
            }
            drawDetail();
            Q_EMIT drawn();
        });
}

void WorkbenchTab::drawDetail() {
    QCustomPlot* p = detailPlot_;
    resetPlot(p);
    p->plotLayout()->clear();
    if (!detail_) {
        attachLegend(p, singleRect(p), false);
        applyAllAxesPalette(p, palette());
        p->replot();
        return;
    }
    const WorkbenchDetail& d = *detail_;
    const QColor colour = algorithmColour(d.algorithm);
    if (d.shape.size() == 1) {
        QCPAxisRect* rect = singleRect(p);
        attachLegend(p, rect, true);
        // The worst queries' bands take the top of the plot: the legend sits below them.
        rect->insetLayout()->setInsetAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
        QVector<double> keys, xs, es;
        double lo = 0, hi = 0;
        for (std::size_t i = 0; i < d.x.size(); ++i) {
            keys << static_cast<double>(i);
            xs << d.x[i];
            es << d.estimate[i];
            lo = std::min({lo, d.x[i], d.estimate[i]});
            hi = std::max({hi, d.x[i], d.estimate[i]});
        }
        QCPGraph* truth = p->addGraph();
        truth->setName(tr("input x"));
        truth->setLineStyle(QCPGraph::lsStepCenter);
        const QColor t = palette().color(QPalette::Text);
        truth->setPen(QPen(t, 1));
        QColor fill = t;
        fill.setAlpha(40);
        truth->setBrush(fill);
        truth->setData(keys, xs, true);
        QCPGraph* est = p->addGraph();
        est->setName(tr("%1 output").arg(legendName(d.algorithm)));
        est->setLineStyle(QCPGraph::lsStepCenter);
        est->setPen(QPen(colour, 1.5));
        est->setData(keys, es, true);
        const double pad = (hi - lo) * 0.08 + 1e-9;
        p->yAxis->setRange(lo - pad, hi + pad * 2.5);
        p->xAxis->setRange(-0.5, static_cast<double>(d.x.size()) - 0.5);
        p->xAxis->setLabel(tr("bin (domain %1)").arg(domainText(d.shape)));
        p->yAxis->setLabel(tr("count"));
        int rank = 1;
        for (const WorkbenchDetail::Worst& w : d.worst) {
            auto* span = new QCPItemRect(p);
            span->setClipAxisRect(rect);
            span->setClipToAxisRect(true);
            for (QCPItemPosition* pos : {span->topLeft, span->bottomRight}) {
                pos->setAxes(p->xAxis, p->yAxis);
                pos->setAxisRect(rect);
            }
            span->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
            span->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
            span->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
            span->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
            const double a = static_cast<double>(w.query.box[0].lo) - 0.5;
            const double b = static_cast<double>(w.query.box[0].hi) + 0.5;
            // Stacked in thin bands at the top so that overlapping ranges stay apart.
            const double y0 = 0.02 + 0.012 * (rank - 1);
            span->topLeft->setCoords(a, y0);
            span->bottomRight->setCoords(b, y0 + 0.01);
            span->setPen(QPen(QColor(214, 39, 40), 1));
            span->setBrush(QColor(214, 39, 40, 150));

            ++rank;
        }
        applyAllAxesPalette(p, palette());
        p->replot();
        return;
    }
    // 2-D: input and output on one colour scale, then the per-cell query error.
    const int rows = static_cast<int>(d.shape[0]), cols = static_cast<int>(d.shape[1]);
    const QColor nan =
        isDarkPalette(palette()) ? QColor(0x60, 0x60, 0x60) : QColor(0xc8, 0xc8, 0xc8);
    auto* group = new QCPMarginGroup(p);
    QCPColorScale* countScale = makeColorScale(p);
    QCPColorScale* errorScale = makeColorScale(p);
    const QStringList titles = {tr("input x"), tr("%1 output").arg(d.algorithm),
                                tr("query error per cell")};
    std::array<QCPAxisRect*, 3> rects{};
    std::array<QCPColorMap*, 3> maps{};
    double lo = 0, hi = 0, eHi = 0;
    for (std::size_t i = 0; i < d.x.size(); ++i) {
        lo = std::min({lo, d.x[i], d.estimate[i]});
        hi = std::max({hi, d.x[i], d.estimate[i]});
        if (std::isfinite(d.cellError[i])) {
            eHi = std::max(eHi, d.cellError[i]);
        }
    }
    // Side by side, one above the other, or two by two (the colour scales on the right):
    // whichever gives the largest square cells. A wide domain such as 64 × 256 is stacked, a
    // square one two by two unless the plot is very wide.
    const double pw = std::max(1, p->width()) * 0.85, ph = std::max(1, p->height()) - 60.0;
    const double side = std::min(pw / 3 / cols, ph / rows);
    const double above = std::min(pw / cols, (ph - 60.0) / 3 / rows);
    const double grid2 = std::min(pw / 2 / cols, (ph - 30.0) / 2 / rows);
    const bool stacked = above > side && above >= grid2;
    const bool square = !stacked && grid2 > side;
    // (row of the title, column) of map k; its axis rect is the row below.
    const auto place = [&](int k) -> std::pair<int, int> {
        if (stacked) {
            return {2 * k, 0};
        }
        if (square) {
            return {2 * (k / 2), k % 2};
        }
        return {0, k};
    };
    for (int k = 0; k < 3; ++k) {
        const auto [row, col] = place(k);
        auto* title = new PlotTitle(p, titles[k]);
        p->plotLayout()->addElement(row, col, title);
        auto* rect = new QCPAxisRect(p);
        p->plotLayout()->addElement(row + 1, col, rect);
        rect->setMarginGroup(stacked  ? QCP::msLeft | QCP::msRight
                             : square ? QCP::msAll
                                      : QCP::msTop | QCP::msBottom,
                             group);
        auto* map = addHeatmap(rect, nan);
        map->data()->setSize(cols, rows);
        map->data()->setRange(QCPRange(0, cols - 1), QCPRange(0, rows - 1));
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols; ++c) {
                const auto i = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) +
                               static_cast<std::size_t>(c);
                const double v = k == 0 ? d.x[i] : k == 1 ? d.estimate[i] : d.cellError[i];
                map->data()->setCell(c, r, v);
            }
        }
        map->setColorScale(k < 2 ? countScale : errorScale);
        map->setGradient(viridisGradient());
        map->setDataRange(k < 2 ? QCPRange(lo, hi > lo ? hi : lo + 1)
                                : QCPRange(0, eHi > 0 ? eHi : 1));
        rect->axis(QCPAxis::atBottom)->setRange(-0.5, cols - 0.5);
        rect->axis(QCPAxis::atLeft)->setRange(-0.5, rows - 0.5);
        if (!stacked || k == 2) {
            rect->axis(QCPAxis::atBottom)->setLabel(tr("column"));
        }
        if (square && k == 2) {
            rect->axis(QCPAxis::atLeft)->setLabel(tr("row"));
        }
        // Narrow maps side by side: few column ticks, so that "0 50 100 …" do not run together.
        rect->axis(QCPAxis::atBottom)->ticker()->setTickCount(stacked ? 5 : 3);
        if (stacked || k == 0) {
            rect->axis(QCPAxis::atLeft)->setLabel(tr("row"));
        }
        rects[static_cast<std::size_t>(k)] = rect;
        maps[static_cast<std::size_t>(k)] = map;
    }
    auto* scales = new QCPLayoutGrid;
    // (The scales' narrow maximum width would narrow any column they share with a map.)
    p->plotLayout()->addElement(1, stacked ? 1 : square ? 2 : 3, scales);
    scales->addElement(0, 0, countScale);
    scales->addElement(0, 1, errorScale);
    if (!stacked) {
        countScale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
        errorScale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    }
    countScale->axis()->setLabel(tr("count"));
    errorScale->axis()->setLabel(tr("|error|"));
    countScale->setGradient(viridisGradient());
    errorScale->setGradient(viridisGradient());
    for (QCPColorMap* map : maps) {
        map->setGradient(viridisGradient());
    }
    p->plotLayout()->setColumnStretchFactor(stacked ? 1 : square ? 2 : 3, stacked ? 0.18 : 0.25);
    // The worst queries as boxes on the error map.
    QCPAxisRect* er = rects[2];
    int rank = 1;
    for (const WorkbenchDetail::Worst& w : d.worst) {
        auto* box = new QCPItemRect(p);
        box->setClipAxisRect(er);
        box->setClipToAxisRect(true);
        for (QCPItemPosition* pos : {box->topLeft, box->bottomRight}) {
            pos->setAxes(er->axis(QCPAxis::atBottom), er->axis(QCPAxis::atLeft));
            pos->setAxisRect(er);
        }
        box->topLeft->setCoords(static_cast<double>(w.query.box[1].lo) - 0.5,
                                static_cast<double>(w.query.box[0].lo) - 0.5);
        box->bottomRight->setCoords(static_cast<double>(w.query.box[1].hi) + 0.5,
                                    static_cast<double>(w.query.box[0].hi) + 0.5);
        box->setPen(QPen(QColor(214, 39, 40), rank == 1 ? 2.5 : 1.2));
        box->setBrush(Qt::NoBrush);
        ++rank;
    }
    attachLegend(p, rects[0], false);
    applyAllAxesPalette(p, palette());
    p->replot();
}

QCustomPlot* WorkbenchTab::currentPlot() const {
    switch (views_->currentIndex()) {
        case 0:
            return epsPlot_;
        case 1:
            return scalePlot_;
        case 2:
            return productPlot_;
        case 3:
            return detailPlot_;
        default:
            return nullptr;
    }
}

void WorkbenchTab::applyPalette() {
    for (QCustomPlot* p : {epsPlot_, scalePlot_, productPlot_}) {
        applyPlotPalette(p, palette());
    }
}

void WorkbenchTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        redraw();
        drawDetail();
    }
}

}  // namespace dpx::ui
