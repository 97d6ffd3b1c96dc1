#include "ui/tabs/errors_tab.h"

#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QClipboard>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollBar>
#include <QStyleOptionHeader>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QString kDash = QStringLiteral("—");
const QString kPending = QStringLiteral("…");
const QString kEmptyHistogram =
    QStringLiteral("Monte Carlo samples appear here as they are computed");

QString csvNumber(double v) {
    return std::isfinite(v) ? formatSignificant(v, 10) : QString();
}

QString csvField(const QString& s) {
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) ||
        s.contains(QLatin1Char('\n'))) {
        QString q = s;
        q.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        return QStringLiteral("\"") + q + QStringLiteral("\"");
    }
    return s;
}

QString estimatorDescription(EstimatorKind e) {
    switch (e) {
        case EstimatorKind::Identity:
            return QStringLiteral("The noisy counts as released (unbiased; can be negative).");
        case EstimatorKind::Clamp:
            return QStringLiteral("Negative noisy counts set to 0, the others kept.");
        case EstimatorKind::Resize:
            return QStringLiteral(
                "The closest non-negative histogram with the same total as the noisy release "
                "(x = max(0, noisy − τ)).");
        case EstimatorKind::NoiseFirst:
            return QStringLiteral(
                "NoiseFirst: neighbouring bins merged into buckets set to their mean when that "
                "lowers the error expected from the noise.");
    }
    return {};
}

// Percent tick labels for the "share of trials" axis.
class PercentTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return QString::number(tick * 100, 'g', 3) + QStringLiteral("%");
    }
};

double quantileSorted(const std::vector<double>& v, double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(std::floor(pos));
    const std::size_t j = std::min(i + 1, v.size() - 1);
    return v[i] + (pos - static_cast<double>(i)) * (v[j] - v[i]);
}

// Header data roles of the two-level horizontal header: the metric group (spanning its two
// columns) and the column's own label ("this draw" / "expected").
constexpr int kGroupRole = Qt::UserRole + 1;
constexpr int kSubRole = Qt::UserRole + 2;
// Cell data role: the text Ctrl+C copies (the displayed text without the group's 10^p scaling).
constexpr int kCopyRole = Qt::UserRole + 3;

// A horizontal header with two levels: columns 2k and 2k + 1 share a group label on the top half
// (each section draws its part of the group cell, clipped to itself), the bottom half shows the
// column's own label.
class GroupHeader : public QHeaderView {
public:
    explicit GroupHeader(QWidget* parent) : QHeaderView(Qt::Horizontal, parent) {}

protected:
    void paintSection(QPainter* painter, const QRect& rect, int logical) const override {
        const QString group = model()->headerData(logical, orientation(), kGroupRole).toString();
        if (!rect.isValid() || group.isEmpty()) {
            QHeaderView::paintSection(painter, rect, logical);
            return;
        }
        const QString sub = model()->headerData(logical, orientation(), kSubRole).toString();
        const int half = rect.height() / 2;
        const QRect top(rect.left(), rect.top(), rect.width(), half);
        const QRect bottom(rect.left(), rect.top() + half, rect.width(), rect.height() - half);
        const int first = logical - logical % 2;
        const int last = std::min(first + 1, count() - 1);
        const int x0 = sectionViewportPosition(first);
        const int width = sectionViewportPosition(last) + sectionSize(last) - x0;

        QStyleOptionHeader opt;
        initStyleOption(&opt);
        opt.section = logical;
        opt.rect = bottom;
        opt.text = sub;
        opt.textAlignment = Qt::AlignRight | Qt::AlignVCenter;
        opt.position = QStyleOptionHeader::Middle;
        painter->save();
        style()->drawControl(QStyle::CE_Header, &opt, painter, this);
        painter->restore();

        QStyleOptionHeader g;
        initStyleOption(&g);
        g.section = first;
        g.rect = QRect(x0, rect.top(), width, half);
        g.text = group;
        g.textAlignment = Qt::AlignCenter;
        g.position = QStyleOptionHeader::Middle;
        painter->save();
        painter->setClipRect(top);
        QFont bold = font();
        bold.setBold(true);
        painter->setFont(bold);
        style()->drawControl(QStyle::CE_Header, &g, painter, this);
        painter->restore();
    }

    QSize sectionSizeFromContents(int logical) const override {
        const QString group = model()->headerData(logical, orientation(), kGroupRole).toString();
        if (group.isEmpty()) {
            return QHeaderView::sectionSizeFromContents(logical);
        }
        const QString sub = model()->headerData(logical, orientation(), kSubRole).toString();
        QFont bold = font();
        bold.setBold(true);
        const QFontMetrics fm(font());
        const QFontMetrics bm(bold);
        const int margin = style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, this);
        const int w = std::max(fm.horizontalAdvance(sub) + 2 * margin,
                               (bm.horizontalAdvance(group) + 4 * margin + 1) / 2);
        return {w + 2 * margin, 2 * (std::max(fm.height(), bm.height()) + 2 * margin)};
    }
};

// A "value ± half-width" text as two lines, the half-width under the value; empty for any other
// text (an exact value, a dash, a value in units of 10^p, which stays whole on one line).
QString onTwoLines(const QString& text) {
    const QString pm = QStringLiteral(" ± ");
    const qsizetype at = text.indexOf(pm);
    if (at <= 0 || text.contains(QLatin1Char('(')) || text.indexOf(pm, at + 1) >= 0) {
        return {};
    }
    // A line separator, not '\n': the style measures and draws it as a line break.
    return text.left(at) + QChar(QChar::LineSeparator) + text.mid(at + 1);
}

// Draws a vertical rule before each metric group so the pairs read as groups in the body too;
// while `*twoLines` holds, a "value ± half-width" cell is drawn (and measured) on two lines.
class GroupRuleDelegate : public QStyledItemDelegate {
public:
    GroupRuleDelegate(const bool* twoLines, QObject* parent)
        : QStyledItemDelegate(parent), twoLines_(twoLines) {}

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        const QStyleOptionViewItem opt = shown(option, index);
        const QWidget* w = option.widget;
        QStyle* style = w ? w->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
        if (index.column() > 0 && index.column() % 2 == 0) {
            painter->save();
            painter->setPen(QPen(option.palette.color(QPalette::Mid), 1));
            painter->drawLine(option.rect.topLeft(), option.rect.bottomLeft());
            painter->restore();
        }
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        const QStyleOptionViewItem opt = shown(option, index);
        const QWidget* w = option.widget;
        QStyle* style = w ? w->style() : QApplication::style();
        return style->sizeFromContents(QStyle::CT_ItemViewItem, &opt, QSize(), w);
    }

private:
    // The cell as drawn and measured: its text on two lines while they are asked for.
    QStyleOptionViewItem shown(const QStyleOptionViewItem& option, const QModelIndex& index) const {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        if (const QString two = *twoLines_ ? onTwoLines(opt.text) : QString(); !two.isEmpty()) {
            opt.text = two;
        }
        return opt;
    }

    const bool* twoLines_;
};

}  // namespace

QString estimatorDisplayName(EstimatorKind e) {
    switch (e) {
        case EstimatorKind::Identity:
            return QStringLiteral("Identity (raw noisy counts)");
        case EstimatorKind::Clamp:
            return QStringLiteral("Clamp negatives to 0");
        case EstimatorKind::Resize:
            return QStringLiteral("Resize to the noisy total");
        case EstimatorKind::NoiseFirst:
            return QStringLiteral("NoiseFirst (merge bins)");
    }
    return QString::fromLatin1(estimatorName(e));
}

QString estimatorShortName(EstimatorKind e) {
    switch (e) {
        case EstimatorKind::Identity:
            return QStringLiteral("Identity");
        case EstimatorKind::Clamp:
            return QStringLiteral("Clamp");
        case EstimatorKind::Resize:
            return QStringLiteral("Resize");
        case EstimatorKind::NoiseFirst:
            return QStringLiteral("NoiseFirst");
    }
    return QString::fromLatin1(estimatorName(e));
}

QString metricDisplayName(Metric m) {
    switch (m) {
        case Metric::SSE:
            return QStringLiteral("SSE");
        case Metric::L1:
            return QStringLiteral("L1");
        case Metric::LInf:
            return QStringLiteral("L∞");
        case Metric::W1:
            return QStringLiteral("W1");
    }
    return QString::fromLatin1(metricName(m));
}

QString metricUnit(Metric m, Scale s) {
    const bool counts = s == Scale::Counts;
    switch (m) {
        case Metric::SSE:
            return counts ? QStringLiteral("counts²") : QStringLiteral("frequency²");
        case Metric::L1:
        case Metric::LInf:
            return counts ? QStringLiteral("counts") : QStringLiteral("frequency");
        case Metric::W1:
            return counts ? QStringLiteral("counts × bin") : QStringLiteral("bin");
    }
    return {};
}

ErrorsTab::ErrorsTab(QWidget* parent) : QWidget(parent) {
    data_.estimators = {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize,
                        EstimatorKind::NoiseFirst};
    data_.metrics = {Metric::SSE, Metric::L1, Metric::LInf, Metric::W1};

    auto* scaleLabel = new QLabel(tr("Errors in"));
    counts_ = new QRadioButton(tr("counts"));
    counts_->setObjectName(QStringLiteral("countsRadio"));
    counts_->setToolTip(tr("Errors of the estimated counts against the true counts (records)."));
    frequencies_ = new QRadioButton(tr("frequencies"));
    frequencies_->setObjectName(QStringLiteral("frequenciesRadio"));
    frequencies_->setToolTip(
        tr("Errors of the estimated frequencies: both histograms divided by the true total N "
           "(SSE / N², L1 / N, L∞ / N; Wasserstein-1 between the normalised distributions)."));
    scaleGroup_ = new QButtonGroup(this);
    scaleGroup_->addButton(counts_, 0);
    scaleGroup_->addButton(frequencies_, 1);
    counts_->setChecked(true);
    connect(scaleGroup_, &QButtonGroup::idClicked, this, [this](int id) {
        const Scale s = id == 1 ? Scale::Frequencies : Scale::Counts;
        if (s != toggleScale_) {
            toggleScale_ = s;
            Q_EMIT scaleToggled(s);
        }
    });

    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("errorsStatus"));
    status_->setWordWrap(true);
    status_->setToolTip(tr("Monte Carlo progress and notes about this release."));

    auto* copyButton = new QPushButton(tr("Copy table"));
    copyButton->setObjectName(QStringLiteral("copyCsvButton"));
    copyButton->setToolTip(
        tr("Copy the whole table as CSV (10 significant digits, with the 95% half-widths and "
           "methods) to paste into a spreadsheet."));
    connect(copyButton, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(toCsv()); });

    auto* top = new QHBoxLayout;
    top->addWidget(scaleLabel);
    top->addWidget(counts_);
    top->addWidget(frequencies_);
    top->addSpacing(16);
    top->addWidget(status_, 1);
    top->addWidget(copyButton);

    table_ = new QTableWidget;
    table_->setHorizontalHeader(new GroupHeader(table_));
    table_->setItemDelegate(new GroupRuleDelegate(&twoLines_, table_));
    table_->setObjectName(QStringLiteral("errorsTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setSelectionBehavior(QAbstractItemView::SelectItems);
    table_->setWordWrap(false);
    table_->setCornerButtonEnabled(true);
    table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    table_->horizontalHeader()->setHighlightSections(false);
    table_->verticalHeader()->setHighlightSections(false);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->setToolTip(
        tr("Select a cell to show the Monte Carlo distribution of that error below; "
           "Ctrl+C copies the selected cells as tab-separated text."));
    table_->installEventFilter(this);
    table_->viewport()->installEventFilter(this);
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copyAction = new QAction(tr("Copy\tCtrl+C"), table_);
    copyAction->setToolTip(tr("Copy the selected cells as tab-separated text"));
    connect(copyAction, &QAction::triggered, this, [this] { copySelection(); });
    auto* csvAction = new QAction(tr("Copy table as CSV"), table_);
    connect(csvAction, &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(toCsv()); });
    table_->addAction(copyAction);
    table_->addAction(csvAction);
    connect(table_, &QTableWidget::currentCellChanged, this,
            [this](int row, int column, int, int) { onCurrentCellChanged(row, column); });

    caption_ = new QLabel(
        tr("<b>this draw</b>: error of the current simulated release (after the estimator). "
           "<b>expected</b>: mean over the noise — exact (closed form or quadrature) where "
           "available, otherwise Monte Carlo ± 95% confidence half-width. "
           "<b>Bold</b>: lowest expected error for that metric. "
           "<i>Computed on the confidential data</i>: an ε chosen from these numbers depends on "
           "the data (to choose without leaking, plan on a public proxy in the Trade-off tab)."));
    caption_->setObjectName(QStringLiteral("errorsCaption"));
    caption_->setWordWrap(true);
    caption_->setToolTip(tr("How to read the table above."));

    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("errorsHistogram"));
    plot_->setMinimumSize(400, 240);
    plot_->setToolTip(
        tr("Distribution of the selected error over the Monte Carlo trials: the share of trials "
           "in each bin, with the expected value (solid) and this draw's error (dashed)."));
    plot_->plotLayout()->insertRow(0);
    title_ = new PlotTitle(plot_, QString());
    QFont tf = plot_->font();
    tf.setBold(true);
    title_->setFont(tf);
    plot_->plotLayout()->addElement(0, 0, title_);
    plot_->xAxis->setPadding(4);
    plot_->yAxis->setLabel(tr("share of trials"));
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PercentTicker));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plotMessage_ = new QCPItemText(plot_);
    plotMessage_->position->setType(QCPItemPosition::ptAxisRectRatio);
    plotMessage_->position->setCoords(0.5, 0.45);
    plotMessage_->setPositionAlignment(Qt::AlignCenter);
    plotMessage_->setClipToAxisRect(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(table_);
    layout->addWidget(caption_);
    layout->addWidget(plot_, 1);

    applyPalette();
    rebuildTable();
    rebuildHistogram();
    updateStatus();
}

namespace {
const ErrorCellData& cellAt(const ErrorsData& d, std::size_t e, std::size_t m) {
    static const ErrorCellData empty;
    if (e < d.cells.size() && m < d.cells[e].size()) {
        return d.cells[e][m];
    }
    return empty;
}
}  // namespace

void ErrorsTab::setData(const ErrorsData& d) {
    data_ = d;
    message_.clear();
    setScale(d.scale);
    if (rowOf(selEstimator_) < 0 || metricIndexOf(selMetric_) < 0) {
        if (!data_.estimators.empty()) {
            selEstimator_ = data_.estimators.front();
        }
        if (!data_.metrics.empty()) {
            selMetric_ = data_.metrics.front();
        }
    }
    rebuildTable();
    rebuildHistogram();
    updateStatus();
}

void ErrorsTab::setMessage(const QString& text) {
    message_ = text.isEmpty() ? tr("Nothing to show.") : text;
    data_.cells.clear();
    data_.samples.clear();
    data_.trials = 0;
    data_.refining = false;
    data_.note.clear();
    rebuildTable();
    rebuildHistogram();
    updateStatus();
}

void ErrorsTab::setScale(Scale s) {
    toggleScale_ = s;
    (s == Scale::Counts ? counts_ : frequencies_)->setChecked(true);
}

Scale ErrorsTab::scale() const {
    return toggleScale_;
}

bool ErrorsTab::select(EstimatorKind e, Metric m) {
    const int row = rowOf(e);
    const int k = metricIndexOf(m);
    if (row < 0 || k < 0) {
        return false;
    }
    selEstimator_ = e;
    selMetric_ = m;
    updating_ = true;
    table_->setCurrentCell(row, 2 * k + 1, QItemSelectionModel::ClearAndSelect);
    updating_ = false;
    rebuildHistogram();
    return true;
}

int ErrorsTab::rowOf(EstimatorKind e) const {
    const auto it = std::find(data_.estimators.begin(), data_.estimators.end(), e);
    return it == data_.estimators.end() ? -1 : static_cast<int>(it - data_.estimators.begin());
}

int ErrorsTab::metricIndexOf(Metric m) const {
    const auto it = std::find(data_.metrics.begin(), data_.metrics.end(), m);
    return it == data_.metrics.end() ? -1 : static_cast<int>(it - data_.metrics.begin());
}

void ErrorsTab::onCurrentCellChanged(int row, int column) {
    if (updating_ || row < 0 || column < 0 || row >= static_cast<int>(data_.estimators.size()) ||
        column / 2 >= static_cast<int>(data_.metrics.size())) {
        return;
    }
    const EstimatorKind e = data_.estimators[static_cast<std::size_t>(row)];
    const Metric m = data_.metrics[static_cast<std::size_t>(column / 2)];
    if (e == selEstimator_ && m == selMetric_) {
        return;
    }
    selEstimator_ = e;
    selMetric_ = m;
    rebuildHistogram();
    Q_EMIT selectionChanged(e, m);
}

void ErrorsTab::rebuildTable() {
    updating_ = true;
    const auto nE = data_.estimators.size();
    const auto nM = data_.metrics.size();
    table_->clear();
    table_->setRowCount(static_cast<int>(nE));
    table_->setColumnCount(static_cast<int>(2 * nM));
    const Scale s = data_.scale;
    const QString scaleWord = s == Scale::Counts ? tr("counts") : tr("frequencies");
    const QColor band = palette().color(QPalette::AlternateBase);
    const QString trialsText = formatNarrowSpaceGrouped(data_.trials);

    for (std::size_t e = 0; e < nE; ++e) {
        // Short names keep four metric groups visible next to the side panels; the full name
        // and what the estimator does are in the tooltip.
        auto* item = new QTableWidgetItem(estimatorShortName(data_.estimators[e]));
        item->setToolTip(estimatorDisplayName(data_.estimators[e]) + QStringLiteral(": ") +
                         estimatorDescription(data_.estimators[e]));
        item->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        table_->setVerticalHeaderItem(static_cast<int>(e), item);
    }

    for (std::size_t k = 0; k < nM; ++k) {
        const Metric m = data_.metrics[k];
        const QString mName = metricDisplayName(m);
        const QString unit = metricUnit(m, s);

        // Group scale: small or large numbers (frequency SSE ~1e-4, L∞ ~0.03; count SSE ~1e7) are
        // shown in units of 10^p (p a multiple of 3) so the cells stay short; tooltips and copies
        // carry the unscaled values.
        double ref = 0;
        double best = std::numeric_limits<double>::infinity();
        bool allExpected = nE > 0;
        for (std::size_t e = 0; e < nE; ++e) {
            const ErrorCellData& c = cellAt(data_, e, k);
            for (double v : {c.realized, c.expected}) {
                if (std::isfinite(v)) {
                    ref = std::max(ref, std::fabs(v));
                }
            }
            if (std::isfinite(c.expected)) {
                best = std::min(best, c.expected);
            } else {
                allExpected = false;
            }
        }
        int p = 0;
        if (message_.isEmpty() && ref > 0 && (ref < 0.1 || ref >= 1e6)) {
            p = 3 * static_cast<int>(std::floor(std::log10(ref) / 3));
        }
        const double f = std::pow(10.0, -p);
        const QString shownUnit =
            p == 0 ? unit
                   : QStringLiteral("10") + superscriptInteger(p) + QStringLiteral(" ") + unit;

        const QString head = mName + QStringLiteral(" (") + shownUnit + QStringLiteral(")");
        auto* rh = new QTableWidgetItem(head + QStringLiteral(" ") + tr("this draw"));
        rh->setData(kGroupRole, head);
        rh->setData(kSubRole, tr("this draw"));
        rh->setToolTip(tr("%1 of the current simulated release after the estimator, against the "
                          "true histogram (%2, in %3).")
                           .arg(mName, scaleWord, shownUnit));
        auto* xh = new QTableWidgetItem(head + QStringLiteral(" ") + tr("expected"));
        xh->setData(kGroupRole, head);
        xh->setData(kSubRole, tr("expected"));
        xh->setToolTip(tr("Expected %1 over the noise (%2, in %3): exact where a closed form or "
                          "quadrature exists, otherwise the Monte Carlo mean ± its 95% "
                          "confidence half-width.")
                           .arg(mName, scaleWord, shownUnit));
        table_->setHorizontalHeaderItem(static_cast<int>(2 * k), rh);
        table_->setHorizontalHeaderItem(static_cast<int>(2 * k + 1), xh);

        for (std::size_t e = 0; e < nE; ++e) {
            const ErrorCellData& c = cellAt(data_, e, k);
            auto* r = new QTableWidgetItem;
            auto* x = new QTableWidgetItem;
            r->setData(Qt::UserRole, c.realized);
            x->setData(Qt::UserRole, c.expected);
            QString rText, rCopy, xText, xCopy, rTip, xTip;
            if (!message_.isEmpty()) {
                rText = rCopy = xText = xCopy = kDash;
                rTip = xTip = message_;
            } else {
                rText = formatErrorValue(c.realized * f, 5);
                rCopy = formatErrorValue(c.realized, 5);
                rTip = std::isfinite(c.realized)
                           ? tr("%1 of this draw: %2 %3")
                                 .arg(mName, QString::number(c.realized, 'g', 10), unit)
                           : tr("Not available: no simulated draw for this estimator.");
                if (std::isfinite(c.expected)) {
                    if (c.exact) {
                        xText = formatErrorValue(c.expected * f);
                        xCopy = formatErrorValue(c.expected);
                        xTip = tr("Expected %1 = %2 %3\nMethod: %4")
                                   .arg(mName, QString::number(c.expected, 'g', 10), unit,
                                        c.method.isEmpty() ? tr("exact") : c.method);
                    } else {
                        xText = formatWithHalfWidth(c.expected * f, c.halfWidth * f);
                        xCopy = formatWithHalfWidth(c.expected, c.halfWidth);
                        xTip =
                            tr("Expected %1 ≈ %2 %3\nMethod: %4 from %5 trials; 95% "
                               "confidence interval %6 … %7")
                                .arg(mName, QString::number(c.expected, 'g', 10), unit,
                                     c.method.isEmpty() ? tr("Monte Carlo") : c.method, trialsText,
                                     QString::number(c.expected - c.halfWidth, 'g', 6),
                                     QString::number(c.expected + c.halfWidth, 'g', 6));
                        if (data_.refining) {
                            xTip += tr("\nRefining: more trials are being computed.");
                        }
                    }
                    // "Best" only once every estimator has a value to compare with.
                    if (allExpected && c.expected == best) {
                        QFont font = x->font();
                        font.setBold(true);
                        x->setFont(font);
                        xTip += tr("\nLowest expected %1 among the estimators.").arg(mName);
                    }
                } else if (data_.refining) {
                    xText = xCopy = kPending;
                    xTip = tr("Being estimated: no exact method for this combination, Monte "
                              "Carlo trials are running (%1 so far).")
                               .arg(trialsText);
                } else {
                    xText = xCopy = kDash;
                    QString why = c.method.isEmpty()
                                      ? tr("no exact method for this combination and no Monte "
                                           "Carlo estimate")
                                      : c.method;
                    if (!data_.note.isEmpty()) {
                        why += QStringLiteral(" (") + data_.note + QStringLiteral(")");
                    }
                    xTip = tr("Not available: %1.").arg(why);
                }
            }
            r->setText(rText);
            r->setData(kCopyRole, rCopy);
            r->setToolTip(rTip);
            x->setText(xText);
            x->setData(kCopyRole, xCopy);
            x->setToolTip(xTip);
            for (auto* item : {r, x}) {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                if (k % 2 == 1) {
                    item->setBackground(band);
                }
            }
            table_->setItem(static_cast<int>(e), static_cast<int>(2 * k), r);
            table_->setItem(static_cast<int>(e), static_cast<int>(2 * k + 1), x);
        }
    }
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // The widths each column needs on one line and with its "± half-width" under the value.
    for (const bool two : {true, false}) {
        twoLines_ = two;
        table_->resizeColumnsToContents();
        std::vector<int>& widths = two ? narrowWidths_ : contentWidths_;
        widths.clear();
        // Some air between the groups on one line; in the narrow form every pixel counts.
        for (int c = 0; c < table_->columnCount(); ++c) {
            widths.push_back(table_->columnWidth(c) + (two ? 2 : 8));
        }
    }
    table_->resizeRowsToContents();
    const int row = rowOf(selEstimator_);
    const int k = metricIndexOf(selMetric_);
    if (row >= 0 && k >= 0) {
        table_->setCurrentCell(row, 2 * k + 1, QItemSelectionModel::ClearAndSelect);
    }
    updating_ = false;
    fitColumns();
}

void ErrorsTab::fitColumns() {
    const int avail = table_->viewport()->width();
    const auto sum = [](const std::vector<int>& v) {
        int total = 0;
        for (int w : v) {
            total += w;
        }
        return total;
    };
    // On one line when that fits; else each "value ± half-width" on two lines (the table at
    // 1024 × 768 beside the data panel, which had to be scrolled sideways to see W1).
    const bool two = sum(contentWidths_) > avail && sum(narrowWidths_) < sum(contentWidths_);
    if (two != twoLines_) {
        twoLines_ = two;
        table_->resizeRowsToContents();
        table_->viewport()->update();
    }
    const std::vector<int>& widths = twoLines_ ? narrowWidths_ : contentWidths_;
    // Content widths, spread proportionally over the width available (never below content).
    const int total = sum(widths);
    const double grow = total > 0 && avail > total ? double(avail) / total : 1.0;
    int used = 0;
    for (int c = 0; c < static_cast<int>(widths.size()); ++c) {
        int w = static_cast<int>(widths[static_cast<std::size_t>(c)] * grow);
        if (c + 1 == static_cast<int>(widths.size()) && grow > 1) {
            w = avail - used;  // no rounding gap at the right edge
        }
        table_->setColumnWidth(c, w);
        used += w;
    }
    fitTableHeight();
}

void ErrorsTab::fitTableHeight() {
    int h = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth();
    for (int r = 0; r < table_->rowCount(); ++r) {
        h += table_->rowHeight(r);
    }
    int total = 0;
    for (int w : twoLines_ ? narrowWidths_ : contentWidths_) {
        total += w;
    }
    if (total > table_->viewport()->width()) {
        h += table_->horizontalScrollBar()->sizeHint().height();
    }
    table_->setFixedHeight(h);
}

void ErrorsTab::showPlotMessage(const QString& title, const QString& text) {
    plot_->clearPlottables();
    title_->setText(title);
    plotMessage_->setText(text);
    plotMessage_->setVisible(true);
    plot_->xAxis->setVisible(false);
    plot_->yAxis->setVisible(false);
    plot_->legend->setVisible(false);
    replotWhenVisible(plot_);
}

void ErrorsTab::rebuildHistogram() {
    const int row = rowOf(selEstimator_);
    const int k = metricIndexOf(selMetric_);
    const QString mName = metricDisplayName(selMetric_);
    const QString unit = metricUnit(selMetric_, data_.scale);
    QString title =
        tr("Monte Carlo distribution of %1 for %2").arg(mName, estimatorShortName(selEstimator_));
    if (!message_.isEmpty() || row < 0 || k < 0) {
        showPlotMessage(tr("Monte Carlo distribution"),
                        message_.isEmpty() ? kEmptyHistogram : message_);
        return;
    }
    const auto e = static_cast<std::size_t>(row);
    const auto m = static_cast<std::size_t>(k);
    std::vector<double> v;
    if (e < data_.samples.size() && m < data_.samples[e].size()) {
        const auto& src = data_.samples[e][m];
        v.reserve(src.size());
        std::copy_if(src.begin(), src.end(), std::back_inserter(v),
                     [](double x) { return std::isfinite(x); });
    }
    if (v.empty()) {
        if (data_.refining) {
            title += tr(" — refining…");
        }
        showPlotMessage(title, kEmptyHistogram);
        return;
    }
    std::sort(v.begin(), v.end());
    const auto n = static_cast<qint64>(v.size());
    title += QStringLiteral(" — ");
    if (data_.trials > n) {
        title += tr("%1 of %2 trials")
                     .arg(formatNarrowSpaceGrouped(n), formatNarrowSpaceGrouped(data_.trials));
    } else {
        title += tr("%1 trials").arg(formatNarrowSpaceGrouped(n));
    }
    if (data_.refining) {
        title += tr(", refining…");
    }

    // Freedman–Diaconis bin width, 10..80 bins.
    double lo = v.front();
    double hi = v.back();
    if (!(hi > lo)) {
        const double pad = std::max(std::fabs(lo) * 0.05, 1e-12);
        lo -= pad;
        hi += pad;
    }
    const double iqr = quantileSorted(v, 0.75) - quantileSorted(v, 0.25);
    double bins = std::sqrt(static_cast<double>(n));
    if (iqr > 0) {
        bins = std::ceil((hi - lo) / (2 * iqr / std::cbrt(static_cast<double>(n))));
    }
    const int nb = static_cast<int>(std::clamp(bins, 10.0, 80.0));
    const double w = (hi - lo) / nb;
    QVector<double> counts(nb, 0.0);
    for (double x : v) {
        const int i = std::clamp(static_cast<int>((x - lo) / w), 0, nb - 1);
        counts[i] += 1;
    }
    QVector<double> keys(nb);
    double top = 0;
    for (int i = 0; i < nb; ++i) {
        keys[i] = lo + (i + 0.5) * w;
        counts[i] /= static_cast<double>(n);
        top = std::max(top, counts[i]);
    }

    plot_->clearPlottables();
    plotMessage_->setVisible(false);
    plot_->xAxis->setVisible(true);
    plot_->yAxis->setVisible(true);
    plot_->legend->setVisible(true);
    title_->setText(title);

    const QColor text = palette().color(QPalette::WindowText);
    auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars->setObjectName(QStringLiteral("histogramBars"));
    bars->setName(tr("share of trials per bin"));
    bars->setWidthType(QCPBars::wtPlotCoords);
    bars->setWidth(w);
    bars->setData(keys, counts, true);
    bars->setBrush(QColor(66, 133, 244, 150));
    bars->setPen(QPen(QColor(66, 133, 244), 1));

    // y headroom for the legend in the top-right corner.
    const double yTop = top * 1.32;
    const ErrorCellData& c = cellAt(data_, e, m);
    double xmin = v.front();
    double xmax = v.back();
    auto addLine = [&](const QString& name, const QString& id, double x, const QPen& pen) {
        auto* g = plot_->addGraph();
        g->setObjectName(id);
        g->setName(name);
        g->setPen(pen);
        g->setData({x, x}, {0.0, yTop}, true);
        xmin = std::min(xmin, x);
        xmax = std::max(xmax, x);
    };
    if (std::isfinite(c.expected)) {
        const QString val =
            c.exact ? formatErrorValue(c.expected) : formatWithHalfWidth(c.expected, c.halfWidth);
        addLine(tr("expected: %1 (%2)").arg(val, c.exact ? tr("exact") : tr("Monte Carlo")),
                QStringLiteral("expectedLine"), c.expected, QPen(QColor(230, 97, 0), 2.5));
    }
    if (std::isfinite(c.realized)) {
        QPen pen(text, 2, Qt::DashLine);
        addLine(tr("this draw: %1").arg(formatErrorValue(c.realized, 5)),
                QStringLiteral("realizedLine"), c.realized, pen);
    }
    const double span = std::max(xmax - xmin, w);
    plot_->xAxis->setRange(std::min(xmin, lo) - 0.03 * span, std::max(xmax, hi) + 0.03 * span);
    plot_->yAxis->setRange(0, yTop);
    plot_->xAxis->setLabel(mName + QStringLiteral(" (") + unit + QStringLiteral(")"));
    replotWhenVisible(plot_);
}

void ErrorsTab::updateStatus() {
    if (!message_.isEmpty()) {
        status_->setText(QStringLiteral("⚠ ") + message_);
        return;
    }
    QStringList parts;
    if (data_.trials > 0) {
        parts << tr("Monte Carlo: %1 trials").arg(formatNarrowSpaceGrouped(data_.trials));
    }
    if (data_.refining) {
        parts << (data_.trials > 0 ? tr("refining…") : tr("Monte Carlo: starting…"));
    }
    if (!data_.note.isEmpty()) {
        parts << data_.note;
    }
    status_->setText(parts.join(QStringLiteral(" · ")));
}

void ErrorsTab::applyPalette() {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    applyPlotPalette(plot_, pal);
    title_->setTextColor(text);
    plotMessage_->setColor(pal.color(QPalette::PlaceholderText));
    QFont mf = plot_->font();
    mf.setPointSizeF(mf.pointSizeF() * 1.15);
    plotMessage_->setFont(mf);
}

void ErrorsTab::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        rebuildTable();
        rebuildHistogram();
    }
}

bool ErrorsTab::eventFilter(QObject* watched, QEvent* event) {
    if (watched == table_->viewport() && event->type() == QEvent::Resize) {
        fitColumns();
    }
    if (watched == table_) {
        if (event->type() == QEvent::ShortcutOverride &&
            static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
            event->accept();
            return true;
        }
        if (event->type() == QEvent::KeyPress &&
            static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
            copySelection();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

QString ErrorsTab::selectionAsText() const {
    const auto ranges = table_->selectedRanges();
    if (ranges.isEmpty()) {
        return {};
    }
    int top = ranges.front().topRow();
    int bottom = ranges.front().bottomRow();
    int left = ranges.front().leftColumn();
    int right = ranges.front().rightColumn();
    for (const auto& r : ranges) {
        top = std::min(top, r.topRow());
        bottom = std::max(bottom, r.bottomRow());
        left = std::min(left, r.leftColumn());
        right = std::max(right, r.rightColumn());
    }
    QStringList lines;
    for (int r = top; r <= bottom; ++r) {
        QStringList fields;
        for (int c = left; c <= right; ++c) {
            const QTableWidgetItem* item = table_->item(r, c);
            fields << (item && item->isSelected() ? item->data(kCopyRole).toString() : QString());
        }
        lines << fields.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n'));
}

void ErrorsTab::copySelection() const {
    const QString text = selectionAsText();
    if (!text.isEmpty()) {
        QApplication::clipboard()->setText(text);
    }
}

QString ErrorsTab::toCsv() const {
    const Scale s = data_.scale;
    QStringList header{QStringLiteral("estimator"), QStringLiteral("scale"),
                       QStringLiteral("trials")};
    for (Metric m : data_.metrics) {
        const QString name = metricDisplayName(m);
        const QString unit = QStringLiteral(" (") + metricUnit(m, s) + QStringLiteral(")");
        header << name + QStringLiteral(" realized") + unit
               << name + QStringLiteral(" expected") + unit
               << name + QStringLiteral(" 95% half-width") << name + QStringLiteral(" method");
    }
    QStringList lines;
    QStringList quoted;
    for (const QString& h : header) {
        quoted << csvField(h);
    }
    lines << quoted.join(QLatin1Char(','));
    const bool blank = !message_.isEmpty();
    for (std::size_t e = 0; e < data_.estimators.size(); ++e) {
        QStringList f{csvField(estimatorDisplayName(data_.estimators[e])),
                      QString::fromLatin1(scaleName(s)), QString::number(data_.trials)};
        for (std::size_t k = 0; k < data_.metrics.size(); ++k) {
            const ErrorCellData& c = cellAt(data_, e, k);
            if (blank) {
                f << QString() << QString() << QString() << QString();
                continue;
            }
            const bool hasExpected = std::isfinite(c.expected);
            f << csvNumber(c.realized) << csvNumber(c.expected)
              << (hasExpected ? csvNumber(c.exact ? 0.0 : c.halfWidth) : QString())
              << csvField(hasExpected ? c.method : QString());
        }
        lines << f.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace dpx::ui
