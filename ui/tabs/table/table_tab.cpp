#include "ui/tabs/table/table_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTextDocument>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/intervals/intervals.h"
#include "core/intervals/release_intervals.h"
#include "ui/widgets/file_export.h"
#include "ui/widgets/flow_layout.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Tables up to this many cell visits (cells × marginals summed) are summed on the GUI thread
// (a 256 × 256 table: one visit per cell); bigger ones on a worker.
constexpr double kSyncCellVisits = 1 << 20;
// The lowest decade a log colour scale shows below its largest value.
constexpr double kLogDecades = 6;
// The readout panel: beside the plots, or under them when the tab is narrower than kNarrowWidth.
constexpr int kSideMinWidth = 260;
constexpr int kSideMaxWidth = 360;
constexpr int kNarrowWidth = 900;
constexpr int kSideNarrowHeight = 230;
// The selected box: visible on every viridis and red–blue colour.
const QColor kBoxColor(230, 85, 13);
const QColor kTrueColor(150, 150, 150);
const QColor kNoisyColor(230, 85, 13);
const QColor kEstimateColor(42, 120, 142);

// Diverging red–blue (ColorBrewer RdBu, 5 classes) for errors: blue below 0, red above.
// On a dark theme the middle (no error) is a dark grey instead of near-white.
QCPColorGradient divergingGradient(const QColor& nan, bool dark) {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x21, 0x66, 0xac));
    g.setColorStopAt(0.25, QColor(0x67, 0xa9, 0xcf));
    g.setColorStopAt(0.5, dark ? QColor(0x3c, 0x3c, 0x3c) : QColor(0xf7, 0xf7, 0xf7));
    g.setColorStopAt(0.75, QColor(0xef, 0x8a, 0x62));
    g.setColorStopAt(1.0, QColor(0xb2, 0x18, 0x2b));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(nan);
    return g;
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// A count or a noisy sum: whole numbers with digit groups, others with 6 significant digits.
QString valueText(double v) {
    return formatLocaleNumber(v, 6);
}

QString attributeTitle(const Attribute& a) {
    return qs(a.name);
}

// A tick label: the bin's label, shortened to `maxChars` with an ellipsis.
QString tickText(const std::string& label, int maxChars) {
    QString t = qs(label);
    if (t.size() > maxChars) {
        t = t.left(maxChars - 1) + QChar(0x2026);
    }
    return t;
}

// Text ticks at every `step`-th bin of an attribute.
QSharedPointer<QCPAxisTickerText> binTicker(const Attribute& a, std::uint64_t step, int maxChars) {
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (std::uint64_t b = 0; b < a.size(); b += step) {
        ticker->addTick(static_cast<double>(b), tickText(a.labels[b], maxChars));
    }
    ticker->setSubTickCount(0);
    return ticker;
}

// Bins between two labels so that at most `fit` labels show: 1, 2, 5, 10, 20, 50, …
std::uint64_t labelStep(std::uint64_t n, std::uint64_t fit) {
    if (n <= fit) {
        return 1;
    }
    std::uint64_t s = 1;
    for (;;) {
        for (const std::uint64_t m : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{5}}) {
            if ((n + s * m - 1) / (s * m) <= fit) {
                return s * m;
            }
        }
        s *= 10;
    }
}

}  // namespace

TableTab::TableTab(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tableTab"));
    stack_ = new QStackedWidget(this);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(stack_);

    message_ = new QLabel;
    message_->setObjectName(QStringLiteral("tableMessage"));
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    message_->setMargin(24);
    stack_->addWidget(message_);

    auto* content = new QWidget;
    auto* vbox = new QVBoxLayout(content);
    vbox->setContentsMargins(6, 6, 6, 6);
    header_ = new QLabel;
    header_->setObjectName(QStringLiteral("tableHeader"));
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    vbox->addWidget(header_);

    auto* controls = new QWidget;
    auto* flow = new FlowLayout(controls, 8);
    auto* rowsLabel = new QLabel(tr("Rows:"));
    rowsBox_ = new QComboBox;
    rowsBox_->setObjectName(QStringLiteral("tableRows"));
    rowsBox_->setToolTip(tr("The attribute drawn down the heatmaps (the others are summed)"));
    columnsLabel_ = new QLabel(tr("Columns:"));
    columnsBox_ = new QComboBox;
    columnsBox_->setObjectName(QStringLiteral("tableColumns"));
    columnsBox_->setToolTip(tr("The attribute drawn across the heatmaps (the others are summed)"));
    logBox_ = new QCheckBox(tr("Log colour scale"));
    logBox_->setObjectName(QStringLiteral("tableLog"));
    logBox_->setToolTip(tr("Counts on a log scale (values ≤ 0 grey); the error map stays linear"));
    auto* levelLabel = new QLabel(tr("Interval:"));
    levelBox_ = new QComboBox;
    levelBox_->setObjectName(QStringLiteral("tableLevel"));
    for (double l : {0.90, 0.95, 0.99}) {
        levelBox_->addItem(tr("%1 %").arg(l * 100, 0, 'f', 0), l);
    }
    levelBox_->setCurrentIndex(1);
    levelBox_->setToolTip(tr("Level of the interval noisy answer ± half-width in the readout"));
    exportButton_ = new QPushButton(tr("Export CSV…"));
    exportButton_->setObjectName(QStringLiteral("tableExport"));
    exportButton_->setToolTip(tr("The drawn marginal: labels, true, noisy, estimate, error"));
    // A label and its box wrap together.
    auto pair = [](QWidget* label, QWidget* box) {
        auto* w = new QWidget;
        auto* h = new QHBoxLayout(w);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(4);
        h->addWidget(label);
        h->addWidget(box);
        return w;
    };
    columnsGroup_ = pair(columnsLabel_, columnsBox_);
    for (QWidget* w :
         std::initializer_list<QWidget*>{pair(rowsLabel, rowsBox_), columnsGroup_, logBox_,
                                         pair(levelLabel, levelBox_), exportButton_}) {
        flow->addWidget(w);
    }
    vbox->addWidget(controls);

    auto* body = new QBoxLayout(QBoxLayout::LeftToRight);
    body_ = body;
    plotStack_ = new QStackedWidget;
    heat_ = new QCustomPlot;
    bars_ = new QCustomPlot;
    plotStack_->addWidget(heat_);
    plotStack_->addWidget(bars_);
    buildHeatmaps();
    buildBars();
    auto* left = new QVBoxLayout;
    left->addWidget(plotStack_, 1);
    hint_ = new QLabel;
    hint_->setObjectName(QStringLiteral("tableHint"));
    hint_->setWordWrap(true);
    left->addWidget(hint_);
    body->addLayout(left, 1);

    auto* side = new QWidget;
    auto* sideBox = new QVBoxLayout(side);
    sideBox->setContentsMargins(4, 0, 4, 0);
    auto* readoutTitle = new QLabel(tr("<b>Selected box</b>"));
    sideBox->addWidget(readoutTitle);
    readoutLabel_ = new QLabel;
    readoutLabel_->setObjectName(QStringLiteral("tableReadout"));
    readoutLabel_->setWordWrap(true);
    readoutLabel_->setTextFormat(Qt::RichText);
    readoutLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readoutLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    sideBox->addWidget(readoutLabel_);
    auto* dpxLabel = new QLabel(tr("The same box for <code>dpx query --box</code>:"));
    sideBox->addWidget(dpxLabel);
    dpxBox_ = new QLineEdit;
    dpxBox_->setObjectName(QStringLiteral("tableDpxBox"));
    dpxBox_->setReadOnly(true);
    dpxBox_->setPlaceholderText(tr("drag a rectangle on a heatmap"));
    sideBox->addWidget(dpxBox_);
    marginalsTitle_ = new QLabel(tr("<b>Marginals</b> (click a pair to draw it)"));
    sideBox->addSpacing(8);
    sideBox->addWidget(marginalsTitle_);
    marginals_ = new QTableWidget(0, 4);
    marginals_->setObjectName(QStringLiteral("tableMarginals"));
    marginals_->setHorizontalHeaderLabels(
        {tr("Marginal"), tr("Cells"), tr("L1 error"), tr("Expected L1")});
    marginals_->horizontalHeaderItem(2)->setToolTip(
        tr("Σ over the marginal's cells of |noisy − true| (this release)"));
    marginals_->horizontalHeaderItem(3)->setToolTip(
        tr("Σ over the marginal's cells of E|sum of its cells' noises| (exact)"));
    marginals_->verticalHeader()->setVisible(false);
    marginals_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    marginals_->setSelectionBehavior(QAbstractItemView::SelectRows);
    marginals_->setSelectionMode(QAbstractItemView::SingleSelection);
    marginals_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    marginals_->setMinimumHeight(160);
    sideBox->addWidget(marginals_, 1);
    sideBox->addStretch(0);
    auto* scroll = new QScrollArea;
    side_ = scroll;
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(kSideMinWidth);
    scroll->setMaximumWidth(kSideMaxWidth);
    body->addWidget(scroll);
    vbox->addLayout(body, 1);
    stack_->addWidget(content);

    watcher_ = new QFutureWatcher<Computed>(this);
    connect(watcher_, &QFutureWatcher<Computed>::finished, this, [this] {
        Computed c = watcher_->result();
        if (c.generation != generation_) {
            return;  // something newer was asked for meanwhile
        }
        pending_ = false;
        apply(std::move(c));
    });
    readoutWatcher_ = new QFutureWatcher<ReadoutJob>(this);
    connect(readoutWatcher_, &QFutureWatcher<ReadoutJob>::finished, this,
            [this] { showReadout(readoutWatcher_->result()); });
    connect(rowsBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!filling_ && i >= 0) {
            setPair(static_cast<std::size_t>(i), columns_);
        }
    });
    connect(columnsBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!filling_ && i >= 0) {
            setPair(rows_, static_cast<std::size_t>(i));
        }
    });
    connect(logBox_, &QCheckBox::toggled, this, &TableTab::setLogScale);
    connect(levelBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) {
            setLevel(levelBox_->itemData(i).toDouble());
            Q_EMIT levelChanged(level_);
        }
    });
    connect(exportButton_, &QPushButton::clicked, this, &TableTab::exportCsv);
    connect(marginals_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (row < 0 || static_cast<std::size_t>(row) >= errors_.size()) {
            return;
        }
        const auto& keep = errors_[static_cast<std::size_t>(row)].keep;
        if (keep.size() == 2) {
            setPair(keep[0], keep[1]);
        }
    });
    clearInputs();
    applyPalette();
}

TableTab::~TableTab() {
    watcher_->waitForFinished();
    readoutWatcher_->waitForFinished();
}

void TableTab::buildHeatmaps() {
    heat_->setObjectName(QStringLiteral("tableHeatmaps"));
    heat_->setMinimumSize(380, 300);
    heat_->setMouseTracking(true);
    // Nothing on the maps needs antialiasing; without it the scaled map images take the fast path.
    heat_->setNotAntialiasedElements(QCP::aeAll);
    // The plot's own axis rect is the true map (the legend lives in it); a row above for titles.
    auto* grid = heat_->plotLayout();
    grid->insertRow(0);
    const std::array<QString, 4> names = {tr("True"), tr("Noisy"), tr("Estimate"),
                                          tr("Error: estimate − true")};
    QFont titleFont = font();
    titleFont.setBold(true);
    std::array<QCPMarginGroup*, 2> rowGroups = {new QCPMarginGroup(heat_),
                                                new QCPMarginGroup(heat_)};
    std::array<QCPMarginGroup*, 2> colGroups = {new QCPMarginGroup(heat_),
                                                new QCPMarginGroup(heat_)};
    for (int r = 0; r < 4; ++r) {
        const int gridRow = (r / 2) * 2;
        const int gridCol = r % 2;
        auto* title = new PlotTitle(heat_, names[static_cast<std::size_t>(r)], titleFont);
        grid->addElement(gridRow, gridCol, title);
        QCPAxisRect* rect = heat_->axisRect();
        if (r > 0) {
            rect = new QCPAxisRect(heat_);
            grid->addElement(gridRow + 1, gridCol, rect);
        }
        rect->setMarginGroup(QCP::msTop | QCP::msBottom,
                             rowGroups[static_cast<std::size_t>(r / 2)]);
        rect->setMarginGroup(QCP::msLeft | QCP::msRight,
                             colGroups[static_cast<std::size_t>(r % 2)]);
        auto* map = addHeatmap(rect, QColor(0xc8, 0xc8, 0xc8));
        auto* box = new QCPItemRect(heat_);
        box->setPen(QPen(kBoxColor, 2));
        box->setBrush(Qt::NoBrush);
        box->setClipAxisRect(rect);
        box->setClipToAxisRect(true);
        for (QCPItemPosition* p : {box->topLeft, box->bottomRight}) {
            p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            p->setAxisRect(rect);
        }
        box->setVisible(false);
        rects_[static_cast<std::size_t>(r)] = rect;
        maps_[static_cast<std::size_t>(r)] = map;
        titles_[static_cast<std::size_t>(r)] = title;
        boxes_[static_cast<std::size_t>(r)] = box;
    }
    countScale_ = makeColorScale(heat_);
    errorScale_ = makeColorScale(heat_);
    grid->addElement(1, 2, countScale_);
    grid->addElement(3, 2, errorScale_);
    countScale_->setMarginGroup(QCP::msTop | QCP::msBottom, rowGroups[0]);
    errorScale_->setMarginGroup(QCP::msTop | QCP::msBottom, rowGroups[1]);
    for (int r = 0; r < 3; ++r) {
        maps_[static_cast<std::size_t>(r)]->setColorScale(countScale_);
    }
    maps_[3]->setColorScale(errorScale_);
    countScale_->axis()->setLabel(tr("count"));
    errorScale_->axis()->setLabel(tr("error (count)"));
    grid->setColumnStretchFactor(2, 0.01);
    grid->setRowStretchFactor(0, 0.01);
    grid->setRowStretchFactor(2, 0.01);
    grid->setRowSpacing(2);
    grid->setColumnSpacing(8);

    connect(heat_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (e->button() == Qt::LeftButton) {
            heatPress(e->position());
        }
    });
    connect(heat_, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent* e) { heatMove(e->position(), e->globalPosition().toPoint()); });
    connect(heat_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() == Qt::LeftButton) {
            heatRelease(e->position());
        }
    });
    connect(heat_, &QCustomPlot::mouseDoubleClick, this,
            [this](QMouseEvent*) { clearSelection(); });
}

void TableTab::buildBars() {
    bars_->setObjectName(QStringLiteral("tableBars"));
    bars_->setMinimumSize(380, 260);
    bars_->setMouseTracking(true);
    bars_->plotLayout()->insertRow(0);
    QFont titleFont = font();
    titleFont.setBold(true);
    barsTitle_ = new PlotTitle(bars_, QString(), titleFont);
    bars_->plotLayout()->addElement(0, 0, barsTitle_);
    trueBars_ = new QCPBars(bars_->xAxis, bars_->yAxis);
    trueBars_->setName(tr("true"));
    trueBars_->setBrush(kTrueColor);
    trueBars_->setPen(Qt::NoPen);
    trueBars_->setWidth(0.9);
    estimateGraph_ = new QCPGraph(bars_->xAxis, bars_->yAxis);
    estimateGraph_->setName(tr("estimate"));
    estimateGraph_->setLineStyle(QCPGraph::lsStepCenter);
    estimateGraph_->setPen(QPen(kEstimateColor, 2));
    noisyGraph_ = new QCPGraph(bars_->xAxis, bars_->yAxis);
    noisyGraph_->setName(tr("noisy"));
    noisyGraph_->setLineStyle(QCPGraph::lsNone);
    noisyGraph_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kNoisyColor, 5));
    bars_->legend->setVisible(true);
    bars_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    bars_->xAxis->grid()->setVisible(false);
    range_ = new QCPItemRect(bars_);
    QColor fill = kBoxColor;
    fill.setAlpha(40);
    range_->setPen(QPen(kBoxColor, 1.5));
    range_->setBrush(fill);
    range_->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    range_->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    range_->setClipToAxisRect(true);
    range_->setVisible(false);

    connect(bars_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (e->button() == Qt::LeftButton) {
            if (auto b = binAt(e->position())) {
                dragRect_ = 0;
                dragStart_ = {*b, *b};
            }
        }
    });
    connect(bars_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const auto b = binAt(e->position());
        if (dragRect_ >= 0 && b) {
            selColumns_ = BinRange{std::min(dragStart_.first, *b), std::max(dragStart_.first, *b)};
            updateSelectionItems();
            replotWhenVisible(bars_, QCustomPlot::rpQueuedReplot);
        }
        if (b && layers_) {
            const Attribute& a = inputs_->truth.attribute(rows_);
            const std::size_t i = static_cast<std::size_t>(*b);
            QToolTip::showText(
                e->globalPosition().toPoint(),
                tr("%1 = %2\ntrue %3, noisy %4, estimate %5")
                    .arg(qs(a.name), qs(a.labels[i]), valueText(layers_->truth[i]),
                         valueText(layers_->noisy[i]), valueText(layers_->estimate[i])),
                bars_);
        } else {
            QToolTip::hideText();
        }
    });
    connect(bars_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (dragRect_ < 0 || e->button() != Qt::LeftButton) {
            return;
        }
        dragRect_ = -1;
        const auto b = binAt(e->position());
        const std::uint64_t end = b ? *b : dragStart_.first;
        selectRange(BinRange{std::min(dragStart_.first, end), std::max(dragStart_.first, end)});
    });
    connect(bars_, &QCustomPlot::mouseDoubleClick, this,
            [this](QMouseEvent*) { clearSelection(); });
}

// ---- inputs

void TableTab::setInputs(const TableViewInputs& inputs) {
    setInputs(TableViewInputs(inputs));
}

void TableTab::setInputs(TableViewInputs&& inputs) {
    if (Status st = validateTableInputs(inputs); !st) {
        ++generation_;
        pending_ = false;
        inputs_.reset();
        ++readoutGeneration_;
        readoutPending_ = false;
        layers_.reset();
        errors_.clear();
        readout_.reset();
        showMessage(tr("The table cannot be drawn: %1.").arg(qs(st.error().message)));
        Q_EMIT drawn();
        return;
    }
    adopt(std::make_shared<const TableViewInputs>(std::move(inputs)));
}

void TableTab::clearInputs() {
    ++generation_;
    ++readoutGeneration_;
    readoutPending_ = false;
    inputs_.reset();
    layers_.reset();
    errors_.clear();
    readout_.reset();
    selRows_.reset();
    selColumns_.reset();
    pending_ = false;
    showMessage(tr("Choose two or more columns in the data panel to see the table"));
}

QString TableTab::messageText() const {
    return stack_->currentWidget() == message_ ? message_->text() : QString();
}

void TableTab::showMessage(const QString& text) {
    message_->setText(text);
    stack_->setCurrentWidget(message_);
}

void TableTab::adopt(std::shared_ptr<const TableViewInputs> inputs) {
    const bool sameAttributes =
        inputs_ && inputs_->truth.attributes() == inputs->truth.attributes();
    inputs_ = std::move(inputs);
    const ContingencyTable& t = inputs_->truth;
    const std::size_t k = t.attributeCount();
    if (!sameAttributes) {
        rows_ = 0;
        columns_ = k > 1 ? 1 : 0;
        selRows_.reset();
        selColumns_.reset();
        readout_.reset();
        filling_ = true;
        rowsBox_->clear();
        columnsBox_->clear();
        for (const Attribute& a : t.attributes()) {
            rowsBox_->addItem(attributeTitle(a));
            columnsBox_->addItem(attributeTitle(a));
        }
        rowsBox_->setCurrentIndex(static_cast<int>(rows_));
        columnsBox_->setCurrentIndex(static_cast<int>(columns_));
        filling_ = false;
    }
    const bool two = k > 1;
    columnsGroup_->setVisible(two);
    rowsBox_->setToolTip(two ? tr("The attribute drawn down the heatmaps (the others are summed)")
                             : tr("The table's one attribute"));
    marginalsTitle_->setVisible(k > 2);
    marginals_->setVisible(k > 2);
    recompute(k > 2);
}

TableTab::Computed TableTab::compute(std::shared_ptr<const TableViewInputs> inputs,
                                     std::size_t rows, std::size_t columns, bool withList) {
    Computed c;
    c.withList = withList;
    c.rows = rows;
    c.columns = columns;
    std::vector<std::size_t> keep{rows};
    if (columns != rows) {
        keep.push_back(columns);
    }
    c.layers = marginalLayers(*inputs, keep);
    if (withList) {
        c.errors = marginalErrors(*inputs);
    }
    c.inputs = std::move(inputs);
    return c;
}

void TableTab::recompute(bool withList) {
    if (!inputs_) {
        return;
    }
    const quint64 gen = ++generation_;
    const std::size_t k = inputs_->truth.attributeCount();
    const double marginalsSummed = 1.0 + (withList ? static_cast<double>(k * (k + 1) / 2) : 0.0);
    const double visits = cellCountDouble(inputs_->truth.cellCount()) * marginalsSummed;
    if (visits <= kSyncCellVisits) {
        pending_ = false;
        apply(compute(inputs_, rows_, columns_, withList));
        return;
    }
    // Off the GUI thread: the result is applied only if nothing newer was asked for meanwhile.
    pending_ = true;
    hint_->setText(tr("Summing the marginals of %1 cells…")
                       .arg(qs(cellCountText(inputs_->truth.cellCount()))));
    auto in = inputs_;
    const std::size_t r = rows_, cl = columns_;
    // A computation still running for older inputs finishes unseen (its generation is old).
    watcher_->setFuture(QtConcurrent::run([in, r, cl, withList, gen] {
        Computed c = compute(in, r, cl, withList);
        c.generation = gen;
        return c;
    }));
}

void TableTab::apply(Computed c) {
    if (!c.inputs || c.inputs != inputs_) {
        return;
    }
    if (!c.layers) {
        layers_.reset();
        showMessage(tr("The table cannot be drawn: %1.").arg(qs(c.layers.error().message)));
        Q_EMIT drawn();
        return;
    }
    layers_ = std::move(*c.layers);
    if (c.withList) {
        errors_ = std::move(c.errors);
        fillMarginalsTable();
    } else if (inputs_->truth.attributeCount() <= 2) {
        errors_.clear();
    }
    stack_->setCurrentIndex(1);
    updateHeader();
    if (oneD()) {
        plotStack_->setCurrentWidget(bars_);
        fillBars();
    } else {
        plotStack_->setCurrentWidget(heat_);
        fillHeatmaps();
    }
    // Keep a selection that still fits the drawn attributes.
    auto fits = [](const std::optional<BinRange>& r, std::uint64_t n) { return r && r->hi < n; };
    const auto& shape = layers_->shape;
    const bool keepSel = oneD() ? fits(selColumns_, shape[0])
                                : fits(selRows_, shape[0]) && fits(selColumns_, shape[1]);
    if (!keepSel) {
        selRows_.reset();
        selColumns_.reset();
    }
    updateSelectionItems();
    updateReadout();
    replot();
    Q_EMIT drawn();
}

bool TableTab::oneD() const {
    return layers_ && layers_->keep.size() == 1;
}

std::vector<std::size_t> TableTab::keep() const {
    if (columns_ == rows_) {
        return {rows_};
    }
    return {rows_, columns_};
}

void TableTab::setPair(std::size_t rows, std::size_t columns) {
    if (!inputs_) {
        return;
    }
    const std::size_t k = inputs_->truth.attributeCount();
    if (rows >= k || columns >= k) {
        return;
    }
    if (k > 1 && rows == columns) {
        // Choosing in one box the attribute of the other swaps the two.
        if (rows != rows_) {
            columns = rows_;
        } else {
            rows = columns_;
        }
    }
    if (rows == rows_ && columns == columns_ && layers_) {
        return;
    }
    const bool swapped = rows == columns_ && columns == rows_;
    rows_ = rows;
    columns_ = columns;
    if (swapped) {
        std::swap(selRows_, selColumns_);
    } else {
        selRows_.reset();
        selColumns_.reset();
    }
    {
        filling_ = true;
        rowsBox_->setCurrentIndex(static_cast<int>(rows_));
        columnsBox_->setCurrentIndex(static_cast<int>(columns_));
        filling_ = false;
    }
    // The marginal list does not depend on the pair.
    recompute(false);
    for (int i = 0; i < marginals_->rowCount(); ++i) {
        const auto& kp = errors_.size() > static_cast<std::size_t>(i)
                             ? errors_[static_cast<std::size_t>(i)].keep
                             : std::vector<std::size_t>{};
        if (kp.size() == 2 &&
            ((kp[0] == rows_ && kp[1] == columns_) || (kp[0] == columns_ && kp[1] == rows_))) {
            const QSignalBlocker block(marginals_);
            marginals_->selectRow(i);
        }
    }
}

void TableTab::setLogScale(bool on) {
    if (logBox_->isChecked() != on) {
        const QSignalBlocker block(logBox_);
        logBox_->setChecked(on);
    }
    if (on == log_) {
        return;
    }
    log_ = on;
    if (layers_) {
        oneD() ? fillBars() : fillHeatmaps();
        replot();
    }
}

void TableTab::setLevel(double level) {
    const int i = levelBox_->findData(level);
    if (i < 0 || level == level_) {
        return;
    }
    level_ = level;
    {
        const QSignalBlocker block(levelBox_);
        levelBox_->setCurrentIndex(i);
    }
    if (inputs_) {
        updateHeader();
    }
    updateReadout();
}

// ---- drawing

void TableTab::updateHeader() {
    const ContingencyTable& t = inputs_->truth;
    QStringList names;
    for (const Attribute& a : t.attributes()) {
        names << QStringLiteral("%1 (%2)").arg(qs(a.name)).arg(a.size());
    }
    QString text =
        tr("<b>%1</b> — %2 cells, %3 occupied, %4 records. %5, ε = %6.")
            .arg(names.join(QStringLiteral(" × ")).toHtmlEscaped(),
                 qs(cellCountText(t.cellCount())),
                 formatLocaleNumber(static_cast<double>(t.occupiedCount()), 6),
                 formatLocaleNumber(static_cast<double>(t.total()), 6),
                 inputs_->mechanismName.toHtmlEscaped(), formatParameter(inputs_->epsilon));
    if (t.attributeCount() > 2) {
        QStringList summed;
        for (std::size_t a = 0; a < t.attributeCount(); ++a) {
            if (a != rows_ && a != columns_) {
                summed << qs(t.attribute(a).name).toHtmlEscaped();
            }
        }
        text += QLatin1Char(' ') + tr("Drawn: the marginal over %1 and %2 (summed over %3).")
                                       .arg(qs(t.attribute(rows_).name).toHtmlEscaped(),
                                            qs(t.attribute(columns_).name).toHtmlEscaped(),
                                            summed.join(QStringLiteral(", ")));
    }
    if (inputs_->cellNoise) {
        // Issue #22: one cell, and every cell of the table at once, at the chosen level.
        auto all = tableIntervals(CellNoise::of(*inputs_->cellNoise),
                                  static_cast<std::uint64_t>(t.cellCount()), level_);
        if (all) {
            text +=
                QLatin1Char(' ') +
                tr("%1 intervals of noisy − true: each cell ±%2; all %3 cells at once ±%4 "
                   "(exact for independent noise).")
                    .arg(qs(levelPercentText(level_)), formatErrorValue(all->perBin.halfWidth, 4),
                         qs(cellCountText(t.cellCount())),
                         formatErrorValue(all->exactMax.halfWidth, 4));
        }
    }
    if (header_->text() != text) {
        header_->setText(text);  // (a rich-text layout costs a millisecond)
    }
}

void TableTab::fillHeatmaps() {
    const MarginalLayers& L = *layers_;
    const int nr = static_cast<int>(L.shape[0]);
    const int nc = static_cast<int>(L.shape[1]);
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    double minPositive = lo;
    double errMax = 0;
    const std::array<const std::vector<double>*, 3> layer = {&L.truth, &L.noisy, &L.estimate};
    for (const auto* v : layer) {
        for (double x : *v) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
            if (x > 0) {
                minPositive = std::min(minPositive, x);
            }
        }
    }
    for (std::size_t i = 0; i < L.truth.size(); ++i) {
        errMax = std::max(errMax, std::abs(L.estimate[i] - L.truth[i]));
    }
    double floor = 0;
    if (log_) {
        const bool anyPositive = std::isfinite(minPositive);
        const double top = anyPositive ? std::log10(hi) : 1;
        floor = anyPositive ? std::max(std::log10(minPositive), top - kLogDecades) : 0;
        countRange_ = {floor, top - floor < 1 ? floor + 1 : top};
    } else {
        countRange_ = {std::min(0.0, lo), hi > std::min(0.0, lo) ? hi : std::min(0.0, lo) + 1};
    }
    const double em = errMax > 0 ? errMax : 1;
    errorRange_ = {-em, em};
    // A colour map needs two cells along each axis to know a cell's width: an attribute of one
    // bin is drawn as two half-width cells of the same value.
    const int mc = std::max(nc, 2);
    const int mr = std::max(nr, 2);
    const QCPRange keys = nc == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, nc - 1);
    const QCPRange values = nr == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, nr - 1);
    for (QCPColorMap* map : maps_) {
        map->data()->setSize(mc, mr);
        map->data()->setRange(keys, values);
    }
    auto setCell = [&](QCPColorMap* map, int j, int i, double v) {
        QCPColorMapData* d = map->data();
        d->setCell(j, i, v);
        if (nc == 1) {
            d->setCell(1, i, v);
        }
        if (nr == 1) {
            d->setCell(j, 1, v);
            if (nc == 1) {
                d->setCell(1, 1, v);
            }
        }
    };
    for (int i = 0; i < nr; ++i) {
        for (int j = 0; j < nc; ++j) {
            const auto c = static_cast<std::size_t>(i) * static_cast<std::size_t>(nc) +
                           static_cast<std::size_t>(j);
            for (int r = 0; r < 3; ++r) {
                double v = (*layer[static_cast<std::size_t>(r)])[c];
                if (log_) {
                    v = v > 0 ? std::max(std::log10(v), floor) : kNaN;
                }
                setCell(maps_[static_cast<std::size_t>(r)], j, i, v);
            }
            setCell(maps_[3], j, i, L.estimate[c] - L.truth[c]);
        }
    }
    for (int r = 0; r < 3; ++r) {
        maps_[static_cast<std::size_t>(r)]->setDataRange(
            QCPRange(countRange_.first, countRange_.second));
    }
    maps_[3]->setDataRange(QCPRange(errorRange_.first, errorRange_.second));
    if (log_) {
        countScale_->axis()->setTicker(decadeTicker(countRange_.first, countRange_.second));
        countScale_->axis()->setLabel(tr("count (log scale)"));
    } else {
        countScale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        countScale_->axis()->setNumberFormat(QStringLiteral("gb"));
        countScale_->axis()->setLabel(tr("count"));
    }
    errorScale_->axis()->setLabel(tr("error (count)"));
    const ContingencyTable& t = inputs_->truth;
    for (int r = 0; r < 4; ++r) {
        QCPAxisRect* rect = rects_[static_cast<std::size_t>(r)];
        rect->axis(QCPAxis::atBottom)->setRange(-0.5, nc - 0.5);
        rect->axis(QCPAxis::atLeft)->setRange(-0.5, nr - 0.5);
        rect->axis(QCPAxis::atBottom)
            ->setLabel(r >= 2 ? attributeTitle(t.attribute(columns_)) : QString());
        rect->axis(QCPAxis::atLeft)
            ->setLabel(r % 2 == 0 ? attributeTitle(t.attribute(rows_)) : QString());
    }
    updateAxisTicks();
    QString hint =
        tr("Drag a rectangle on any map to query that box; double-click clears it. "
           "Hover a cell for its values.");
    if (log_) {
        const bool nonPositive = std::any_of(layer.begin(), layer.end(), [](const auto* v) {
            return std::any_of(v->begin(), v->end(), [](double x) { return x <= 0; });
        });
        if (nonPositive) {
            hint += QLatin1Char(' ') + tr("Grey cells are ≤ 0 (no logarithm).");
        }
        hint +=
            QLatin1Char(' ') + tr("Values below %1 take its colour.")
                                   .arg(formatSignificant(std::pow(10.0, countRange_.first), 3));
    }
    if (hint_->text() != hint) {
        hint_->setText(hint);
    }
}

void TableTab::updateAxisTicks() {
    if (!layers_ || oneD() || !inputs_) {
        return;
    }
    const ContingencyTable& t = inputs_->truth;
    const QFontMetrics fm(rects_[0]->axis(QCPAxis::atBottom)->tickLabelFont());
    const int w = std::max(rects_[0]->width(), 120);
    const int h = std::max(rects_[0]->height(), 100);
    const Attribute& ra = t.attribute(rows_);
    const Attribute& ca = t.attribute(columns_);
    constexpr int kMaxChars = 12;
    int colLabelWidth = 0;
    for (const std::string& l : ca.labels) {
        colLabelWidth = std::max(colLabelWidth, fm.horizontalAdvance(tickText(l, kMaxChars)));
        if (ca.size() > 512) {
            break;  // long attributes: the first label as the measure
        }
    }
    const std::uint64_t colFit = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(
               w / (colLabelWidth + fm.horizontalAdvance(QLatin1Char(' ')) * 4)));
    const std::uint64_t rowFit =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(h / (fm.height() + 4)));
    const auto colTicks = binTicker(ca, labelStep(ca.size(), colFit), kMaxChars);
    const auto rowTicks = binTicker(ra, labelStep(ra.size(), rowFit), kMaxChars);
    for (int r = 0; r < 4; ++r) {
        QCPAxisRect* rect = rects_[static_cast<std::size_t>(r)];
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        x->setTicker(colTicks);
        y->setTicker(rowTicks);
        x->setTickLabels(r >= 2);
        y->setTickLabels(r % 2 == 0);
        x->setTickLength(0, 3);
        y->setTickLength(0, 3);
    }
}

void TableTab::fillBars() {
    const MarginalLayers& L = *layers_;
    const Attribute& a = inputs_->truth.attribute(L.keep[0]);
    const auto n = static_cast<int>(L.shape[0]);
    QVector<double> keys(n), t(n), z(n), e(n);
    double lo = 0, hi = 0, minPositive = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) {
        const auto c = static_cast<std::size_t>(i);
        keys[i] = i;
        t[i] = L.truth[c];
        z[i] = L.noisy[c];
        e[i] = L.estimate[c];
        for (double v : {t[i], z[i], e[i]}) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            if (v > 0) {
                minPositive = std::min(minPositive, v);
            }
        }
    }
    QCPAxis* y = bars_->yAxis;
    if (log_) {
        const double floor = std::isfinite(minPositive)
                                 ? std::max(minPositive, hi / std::pow(10.0, kLogDecades)) / 2
                                 : 0.5;
        for (QVector<double>* v : {&t, &z, &e}) {
            for (double& x : *v) {
                if (x <= 0) {
                    x = v == &t ? floor : kNaN;  // a true 0 is an empty bar
                }
            }
        }
        trueBars_->setBaseValue(floor);
        makeLogAxis(y);
        y->setScaleType(QCPAxis::stLogarithmic);
        y->setRange(floor, std::max(hi, floor * 10) * 2);
        y->setLabel(tr("count (log scale)"));
        hint_->setText(
            tr("Log scale: noisy and estimated values ≤ 0 are not drawn. Drag across "
               "the bars to query a range; double-click clears it."));
    } else {
        trueBars_->setBaseValue(0);
        y->setScaleType(QCPAxis::stLinear);
        y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        y->setNumberFormat(QStringLiteral("gb"));
        y->setNumberPrecision(6);
        // Room above the bars for the legend.
        const double pad = (hi - lo) * 0.05 + (hi == lo ? 1 : 0);
        y->setRange(lo < 0 ? lo - pad : 0, hi + pad + (hi - lo) * 0.15);
        y->setLabel(tr("count"));
        hint_->setText(tr("Drag across the bars to query a range of %1; double-click clears it. "
                          "Hover a bar for its values.")
                           .arg(qs(a.name)));
    }
    trueBars_->setData(keys, t, true);
    noisyGraph_->setData(keys, z, true);
    estimateGraph_->setData(keys, e, true);
    trueBars_->setWidth(n > 150 ? 1.0 : 0.9);
    const QFontMetrics fm(bars_->xAxis->tickLabelFont());
    int labelWidth = 0;
    for (const std::string& l : a.labels) {
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(tickText(l, 12)));
        if (a.size() > 512) {
            break;
        }
    }
    const int fit = std::max(1, std::max(bars_->axisRect()->width(), 200) / (labelWidth + 12));
    bars_->xAxis->setTicker(binTicker(a, labelStep(a.size(), static_cast<std::uint64_t>(fit)), 12));
    bars_->xAxis->setRange(-0.5, n - 0.5);
    bars_->xAxis->setLabel(attributeTitle(a));
    barsTitle_->setText(tr("%1: true (bars), noisy (dots), estimate (line)").arg(qs(a.name)));
}

void TableTab::fillMarginalsTable() {
    const ContingencyTable& t = inputs_->truth;
    const QSignalBlocker block(marginals_);
    marginals_->setRowCount(static_cast<int>(errors_.size()));
    for (std::size_t i = 0; i < errors_.size(); ++i) {
        const MarginalError& e = errors_[i];
        QStringList names;
        for (std::size_t a : e.keep) {
            names << qs(t.attribute(a).name);
        }
        const auto row = static_cast<int>(i);
        auto set = [&](int col, const QString& text, Qt::Alignment align) {
            auto* item = marginals_->item(row, col);
            if (!item) {
                item = new QTableWidgetItem;
                marginals_->setItem(row, col, item);
            }
            item->setText(text);
            item->setTextAlignment(align | Qt::AlignVCenter);
        };
        set(0, names.join(QStringLiteral(" × ")), Qt::AlignLeft);
        set(1, formatLocaleNumber(static_cast<double>(e.cells), 6), Qt::AlignRight);
        set(2, formatErrorValue(e.l1, 5), Qt::AlignRight);
        set(3, e.expectedL1 ? formatErrorValue(*e.expectedL1, 6) : QStringLiteral("—"),
            Qt::AlignRight);
        if (e.keep.size() == 2 && ((e.keep[0] == rows_ && e.keep[1] == columns_) ||
                                   (e.keep[0] == columns_ && e.keep[1] == rows_))) {
            marginals_->selectRow(row);
        }
    }
    marginals_->resizeColumnsToContents();
    marginals_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
}

// ---- selection

void TableTab::selectBox(BinRange rows, BinRange columns) {
    if (!layers_ || oneD()) {
        return;
    }
    if (rows.lo > rows.hi) {
        std::swap(rows.lo, rows.hi);
    }
    if (columns.lo > columns.hi) {
        std::swap(columns.lo, columns.hi);
    }
    if (rows.hi >= layers_->shape[0] || columns.hi >= layers_->shape[1]) {
        return;
    }
    selRows_ = rows;
    selColumns_ = columns;
    updateSelectionItems();
    updateReadout();
    replot();
}

void TableTab::selectRange(BinRange bins) {
    if (!layers_ || !oneD()) {
        return;
    }
    if (bins.lo > bins.hi) {
        std::swap(bins.lo, bins.hi);
    }
    if (bins.hi >= layers_->shape[0]) {
        return;
    }
    selRows_.reset();
    selColumns_ = bins;
    updateSelectionItems();
    updateReadout();
    replot();
}

void TableTab::clearSelection() {
    selRows_.reset();
    selColumns_.reset();
    updateSelectionItems();
    updateReadout();
    replot();
}

void TableTab::updateSelectionItems() {
    const bool two = layers_ && !oneD() && selRows_ && selColumns_;
    for (QCPItemRect* box : boxes_) {
        box->setVisible(two);
        if (two) {
            box->topLeft->setCoords(static_cast<double>(selColumns_->lo) - 0.5,
                                    static_cast<double>(selRows_->lo) - 0.5);
            box->bottomRight->setCoords(static_cast<double>(selColumns_->hi) + 0.5,
                                        static_cast<double>(selRows_->hi) + 0.5);
        }
    }
    const bool one = layers_ && oneD() && selColumns_;
    range_->setVisible(one);
    if (one) {
        range_->topLeft->setCoords(static_cast<double>(selColumns_->lo) - 0.5, 0.0);
        range_->bottomRight->setCoords(static_cast<double>(selColumns_->hi) + 0.5, 1.0);
    }
}

void TableTab::updateReadout() {
    readout_.reset();
    ++readoutGeneration_;
    readoutPending_ = false;
    if (!layers_ || !selColumns_ || (!oneD() && !selRows_)) {
        readoutLabel_->setText(oneD() ? tr("Drag across the bars to select a range of bins.")
                                      : tr("Drag a rectangle on any heatmap to select a box."));
        dpxBox_->clear();
        return;
    }
    const ContingencyTable& t = inputs_->truth;
    std::vector<std::size_t> attrs = layers_->keep;
    std::vector<BinRange> ranges;
    if (oneD()) {
        ranges = {*selColumns_};
    } else {
        ranges = {*selRows_, *selColumns_};
    }
    TableBoxReadout r;
    r.query = boxOver(t, attrs, ranges);
    r.dpxBox = boxQueryText(t, attrs, ranges);
    r.cells = r.query.cellCount(t);
    // The estimate over the box: Σ of the drawn marginal's cells inside it (the marginal sums the
    // same table cells).
    const std::uint64_t nc = oneD() ? 1 : layers_->shape[1];
    const BinRange rr = oneD() ? *selColumns_ : *selRows_;
    const BinRange cc = oneD() ? BinRange{0, 0} : *selColumns_;
    for (std::uint64_t i = rr.lo; i <= rr.hi; ++i) {
        for (std::uint64_t j = cc.lo; j <= cc.hi; ++j) {
            r.estimate += layers_->estimate[static_cast<std::size_t>(i * nc + j)];
        }
    }
    dpxBox_->setText(qs(r.dpxBox));
    readoutLabel_->setText(
        QStringLiteral("<p>%1</p><p>%2</p>")
            .arg(qs(r.query.describe(t)).toHtmlEscaped(),
                 tr("Computing the answers and their exact errors over %1 cells…")
                     .arg(qs(cellCountText(r.cells)))));
    // The exact error of a sum of thousands of cell noises takes a quadrature (tens of
    // milliseconds): on a worker, so that an ε change only waits for the drawing.
    readoutPending_ = true;
    const quint64 gen = readoutGeneration_;
    auto in = inputs_;
    const double level = level_;
    readoutWatcher_->setFuture(QtConcurrent::run([in, r, level, gen]() mutable {
        ReadoutJob job;
        job.generation = gen;
        const ContingencyTable& tt = in->truth;
        if (in->cellNoise) {
            auto q = queryReadout(tt, r.query, *in->cellNoise, level, in->noisy);
            if (q) {
                r.truth = q->truth;
                r.noisy = q->noisy.value_or(0);
                r.exact = *q;
            } else {
                job.error = q.error().message;
            }
        } else {
            auto truth = trueAnswer(tt, r.query);
            auto noisy = noisyAnswer(tt, r.query, in->noisy);
            if (truth && noisy) {
                r.truth = *truth;
                r.noisy = *noisy;
            } else {
                job.error = (truth ? noisy.error() : truth.error()).message;
            }
        }
        job.readout = std::move(r);
        return job;
    }));
}

void TableTab::showReadout(ReadoutJob job) {
    if (job.generation != readoutGeneration_ || !inputs_) {
        return;  // a newer box, level or release was asked for meanwhile
    }
    readoutPending_ = false;
    TableBoxReadout r = std::move(job.readout);
    if (!job.error.empty()) {
        readoutLabel_->setText(
            tr("<span style='color:#c62828'>%1</span>").arg(qs(job.error).toHtmlEscaped()));
        Q_EMIT drawn();
        return;
    }
    const ContingencyTable& t = inputs_->truth;
    QString html = QStringLiteral("<p>%1</p><table cellspacing='2'>")
                       .arg(qs(r.query.describe(t)).toHtmlEscaped());
    auto row = [&](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td></tr>").arg(name, value);
    };
    row(tr("Cells"), qs(cellCountText(r.cells)));
    row(tr("True answer"), valueText(static_cast<double>(r.truth)));
    row(tr("Noisy answer"), valueText(r.noisy));
    row(tr("Estimate"), valueText(r.estimate));
    row(tr("Noisy − true"), formatSigned(r.noisy - static_cast<double>(r.truth), 5));
    if (r.exact) {
        const QueryReadout& q = *r.exact;
        row(tr("Expected RMSE"), formatErrorValue(q.rmse));
        row(tr("Expected |error|"), formatErrorValue(q.meanAbsError));
        row(tr("%1 % interval").arg(q.level * 100, 0, 'f', 0),
            tr("noisy ± %1").arg(formatErrorValue(q.halfWidth, 4)));
        row(QString(),
            tr("[%1, %2]").arg(valueText(r.noisy - q.halfWidth), valueText(r.noisy + q.halfWidth)));
        // Issue #22: after resize or NoiseFirst, the interval a release states with its option:
        // around the noisy answer (a pivot: valid for every true count), widened to hold the
        // estimate — the sum over the box obeys the same argument as one cell.
        const EstimatorKind est = inputs_->estimator;
        const bool moving = est == EstimatorKind::Resize || est == EstimatorKind::NoiseFirst;
        if (moving && !inputs_->estimate.empty()) {
            if (auto b = postProcessedBounds(r.estimate, r.noisy, q.halfWidth)) {
                row(tr("After %1")
                        .arg(est == EstimatorKind::Resize ? tr("resize") : tr("NoiseFirst")),
                    tr("[%1, %2]").arg(valueText(b->lower), valueText(b->upper)));
            }
        }
        const auto cellCount = static_cast<std::uint64_t>(t.cellCount());
        auto all = tableIntervals(CellNoise::of(*inputs_->cellNoise), cellCount, q.level);
        if (all) {
            row(tr("Each cell"), tr("noisy ± %1").arg(formatErrorValue(all->perBin.halfWidth, 4)));
            row(tr("All %1 cells at once").arg(qs(cellCountText(t.cellCount()))),
                tr("noisy ± %1 (Bonferroni ± %2)")
                    .arg(formatErrorValue(all->exactMax.halfWidth, 4),
                         formatErrorValue(all->bonferroni.halfWidth, 4)));
        }
        html += QStringLiteral("</table>");
        html += QStringLiteral("<p>%1</p>")
                    .arg(tr("Errors of the noisy answer, %1.").arg(qs(q.method).toHtmlEscaped()));
        if (moving && !inputs_->estimate.empty()) {
            html += QStringLiteral("<p>%1</p>")
                        .arg(tr("After the post-processing: the noisy answer's interval, widened "
                                "to hold the estimate — what a release states with \"intervals "
                                "after resize / NoiseFirst\" (it covers the true answer whatever "
                                "the counts are)."));
        }
        if (all) {
            html += QStringLiteral("<p>%1</p>")
                        .arg(tr("All cells at once: each cell at level^(1/m), exact for "
                                "independent identical noise; Bonferroni: each at 1 − (1 − "
                                "level)/m, for any dependence."));
        }
    } else {
        html += QStringLiteral("</table>");
        html += QStringLiteral("<p>%1</p>")
                    .arg(tr("%1 adds no single per-cell noise law: no exact expected error.")
                             .arg(inputs_->mechanismName.toHtmlEscaped()));
    }
    readoutLabel_->setText(html);
    readout_ = std::move(r);
    Q_EMIT readoutReady();
    Q_EMIT drawn();
}

QString TableTab::readoutText() const {
    QTextDocument doc;
    doc.setHtml(readoutLabel_->text());
    return doc.toPlainText();
}

// ---- mouse

int TableTab::rectAt(const QPointF& pos) const {
    for (int r = 0; r < 4; ++r) {
        if (rects_[static_cast<std::size_t>(r)]->rect().contains(pos.toPoint())) {
            return r;
        }
    }
    return -1;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> TableTab::cellAt(int rect,
                                                                        const QPointF& pos) const {
    if (!layers_ || oneD() || rect < 0) {
        return std::nullopt;
    }
    QCPAxisRect* r = rects_[static_cast<std::size_t>(rect)];
    const auto j = std::lround(r->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()));
    const auto i = std::lround(r->axis(QCPAxis::atLeft)->pixelToCoord(pos.y()));
    const auto nr = static_cast<long>(layers_->shape[0]);
    const auto nc = static_cast<long>(layers_->shape[1]);
    return std::make_pair(static_cast<std::uint64_t>(std::clamp(i, 0L, nr - 1)),
                          static_cast<std::uint64_t>(std::clamp(j, 0L, nc - 1)));
}

std::optional<std::uint64_t> TableTab::binAt(const QPointF& pos) const {
    if (!layers_ || !oneD() || !bars_->axisRect()->rect().contains(pos.toPoint())) {
        return std::nullopt;
    }
    const auto b = std::lround(bars_->xAxis->pixelToCoord(pos.x()));
    const auto n = static_cast<long>(layers_->shape[0]);
    return static_cast<std::uint64_t>(std::clamp(b, 0L, n - 1));
}

void TableTab::heatPress(const QPointF& pos) {
    const int r = rectAt(pos);
    if (auto cell = cellAt(r, pos)) {
        dragRect_ = r;
        dragStart_ = *cell;
    }
}

void TableTab::heatMove(const QPointF& pos, const QPoint& globalPos) {
    if (dragRect_ >= 0) {
        if (auto cell = cellAt(dragRect_, pos)) {
            selRows_ = BinRange{std::min(dragStart_.first, cell->first),
                                std::max(dragStart_.first, cell->first)};
            selColumns_ = BinRange{std::min(dragStart_.second, cell->second),
                                   std::max(dragStart_.second, cell->second)};
            updateSelectionItems();
            replotWhenVisible(heat_, QCustomPlot::rpQueuedReplot);
        }
        return;
    }
    const int r = rectAt(pos);
    if (auto cell = cellAt(r, pos)) {
        QToolTip::showText(globalPos, cellToolTip(cell->first, cell->second), heat_);
    } else {
        QToolTip::hideText();
    }
}

void TableTab::heatRelease(const QPointF& pos) {
    if (dragRect_ < 0) {
        return;
    }
    const auto cell = cellAt(dragRect_, pos);
    const auto end = cell ? *cell : dragStart_;
    dragRect_ = -1;
    selectBox(BinRange{dragStart_.first, end.first}, BinRange{dragStart_.second, end.second});
}

QString TableTab::cellToolTip(std::uint64_t row, std::uint64_t column) const {
    if (!layers_ || oneD() || row >= layers_->shape[0] || column >= layers_->shape[1]) {
        return {};
    }
    const ContingencyTable& t = inputs_->truth;
    const auto c = static_cast<std::size_t>(row * layers_->shape[1] + column);
    const Attribute& ra = t.attribute(rows_);
    const Attribute& ca = t.attribute(columns_);
    QString text = tr("%1 = %2, %3 = %4")
                       .arg(qs(ra.name), qs(ra.labels[static_cast<std::size_t>(row)]), qs(ca.name),
                            qs(ca.labels[static_cast<std::size_t>(column)]));
    if (t.attributeCount() > 2) {
        text += tr(" (summed over the other attributes: %1 cells)")
                    .arg(qs(cellCountText(layers_->termsPerCell)));
    }
    text += QLatin1Char('\n') + tr("true %1, noisy %2, estimate %3, error %4")
                                    .arg(valueText(layers_->truth[c]), valueText(layers_->noisy[c]),
                                         valueText(layers_->estimate[c]),
                                         formatSigned(layers_->estimate[c] - layers_->truth[c], 5));
    return text;
}

double TableTab::drawnCell(Layer layer, std::uint64_t row, std::uint64_t column) const {
    if (!layers_ || oneD()) {
        return kNaN;
    }
    return maps_[static_cast<std::size_t>(layer)]->data()->cell(static_cast<int>(column),
                                                                static_cast<int>(row));
}

std::pair<double, double> TableTab::countRange() const {
    return countRange_;
}

std::pair<double, double> TableTab::errorRange() const {
    return errorRange_;
}

QCustomPlot* TableTab::currentPlot() const {
    if (stack_->currentWidget() == message_) {
        return nullptr;
    }
    return static_cast<QCustomPlot*>(plotStack_->currentWidget());
}

QString TableTab::csvText() const {
    if (!layers_) {
        return {};
    }
    const ContingencyTable& t = inputs_->truth;
    auto field = [](const std::string& s) {
        QString f = qs(s);
        if (f.contains(QLatin1Char(',')) || f.contains(QLatin1Char('"')) ||
            f.contains(QLatin1Char('\n'))) {
            f = QLatin1Char('"') + f.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
                QLatin1Char('"');
        }
        return f;
    };
    QString out;
    for (std::size_t a : layers_->keep) {
        out += field(t.attribute(a).name) + QLatin1Char(',');
    }
    out += QStringLiteral("true,noisy,estimate,error\n");
    const std::uint64_t nc = layers_->keep.size() == 2 ? layers_->shape[1] : 1;
    for (std::size_t c = 0; c < layers_->truth.size(); ++c) {
        const std::uint64_t i = c / nc, j = c % nc;
        out += field(t.attribute(layers_->keep[0]).labels[static_cast<std::size_t>(i)]) +
               QLatin1Char(',');
        if (layers_->keep.size() == 2) {
            out += field(t.attribute(layers_->keep[1]).labels[static_cast<std::size_t>(j)]) +
                   QLatin1Char(',');
        }
        out += QStringLiteral("%1,%2,%3,%4\n")
                   .arg(QString::number(layers_->truth[c], 'g', 17),
                        QString::number(layers_->noisy[c], 'g', 17),
                        QString::number(layers_->estimate[c], 'g', 17),
                        QString::number(layers_->estimate[c] - layers_->truth[c], 'g', 17));
    }
    return out;
}

void TableTab::exportCsv() {
    if (!layers_) {
        return;
    }
    saveTextWithDialog(this, tr("Export the drawn marginal"), QStringLiteral("table.csv"),
                       csvText());
}

// ---- look

void TableTab::replot() {
    if (oneD()) {
        replotWhenVisible(bars_);
    } else {
        replotWhenVisible(heat_);
    }
}

void TableTab::applyPalette() {
    const QPalette pal = palette();
    applyAllAxesPalette(heat_, pal);
    applyPlotPalette(bars_, pal);
    const QColor nan = isDarkPalette(pal) ? QColor(0x60, 0x60, 0x60) : QColor(0xc8, 0xc8, 0xc8);
    // (A map attached to a colour scale takes the scale's gradient: set it after attaching.)
    QCPColorGradient g = viridisGradient();
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(nan);
    for (int r = 0; r < 3; ++r) {
        maps_[static_cast<std::size_t>(r)]->setGradient(g);
    }
    maps_[3]->setGradient(divergingGradient(nan, isDarkPalette(pal)));
    barsTitle_->setTextColor(pal.color(QPalette::WindowText));
    QColor t = kTrueColor;
    if (isDarkPalette(pal)) {
        t = QColor(110, 110, 110);
    }
    trueBars_->setBrush(t);
}

void TableTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        if (layers_) {
            replot();
        }
    }
}

void TableTab::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Narrow (a small screen beside the data panel): the readout goes under the plots.
    const bool narrow = width() < kNarrowWidth;
    if (narrow != (body_->direction() == QBoxLayout::TopToBottom)) {
        body_->setDirection(narrow ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
        side_->setMaximumWidth(narrow ? QWIDGETSIZE_MAX : kSideMaxWidth);
        side_->setMinimumWidth(narrow ? 0 : kSideMinWidth);
        side_->setMaximumHeight(narrow ? kSideNarrowHeight : QWIDGETSIZE_MAX);
        side_->setMinimumHeight(narrow ? kSideNarrowHeight : 0);
    }
    if (layers_) {
        // Tick labels are thinned for the new size once the layout has placed the plots.
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (!layers_) {
                    return;
                }
                if (oneD()) {
                    fillBars();
                } else {
                    heat_->plotLayout()->update(QCPLayoutElement::upLayout);
                    updateAxisTicks();
                }
                replot();
            },
            Qt::QueuedConnection);
    }
}

}  // namespace dpx::ui
