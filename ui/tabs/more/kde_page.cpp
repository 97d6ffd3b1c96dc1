#include "ui/tabs/more/kde_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/model/job_runner.h"
#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/plot_refresh.h"
#include "ui/widgets/plot_style.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

const QString kSlot = QStringLiteral("kde");
constexpr std::size_t kFig32N = 100;
constexpr int kSliderSteps = 1000;
// "Keep the true KDE readable": the y axis spans at most −1 … 2.5 times the KDE's peak.
constexpr double kClipBelow = 1.0;
constexpr double kClipAbove = 2.5;

const QColor kReleaseColours[] = {QColor(255, 127, 14),  QColor(44, 160, 44),  QColor(214, 39, 40),
                                  QColor(148, 103, 189), QColor(31, 119, 180), QColor(140, 86, 75),
                                  QColor(227, 119, 194), QColor(188, 189, 34), QColor(23, 190, 207),
                                  QColor(127, 127, 127)};

struct KdeInput {
    bool example = false;
    std::shared_ptr<const DataTable> table;
    QString csvPath;  // no table: read the column from this CSV file (as dpx kde does)
    QString csvKey;
    QString column;
    QString unit;
    std::uint64_t dataSeed = 1;
    bool bandwidthAuto = true;
    double bandwidth = 0.1;
    std::optional<double> gridLo, gridHi;
    std::size_t gridPoints = 1000;
    double epsilon = 1, delta = 0.1;
    GaussianCalibration calibration = GaussianCalibration::Analytic;
    std::size_t samples = 5;
    std::uint64_t seed = 1;
};

// Runs on a worker: the data, Silverman's hint, the grid and the release.
KdePageResult computeKde(const KdeInput& in, const std::stop_token& stop, JobProgress& progress) {
    KdePageResult r;
    r.example = in.example;
    r.column = in.column;
    r.unit = in.unit;
    r.epsilon = in.epsilon;
    r.delta = in.delta;
    r.calibration = in.calibration;
    r.seed = in.seed;
    std::vector<double> data;
    if (in.example) {
        auto x = twoClusterSample(kFig32N, in.dataSeed);
        if (!x) {
            r.error = QString::fromStdString(x.error().message);
            return r;
        }
        data = std::move(*x);
    } else {
        std::shared_ptr<const DataTable> table = in.table;
        if (!table && !in.csvPath.isEmpty()) {
            progress.setText(QObject::tr("reading %1").arg(in.csvPath));
            auto t = readCsvFile(in.csvPath.toStdString());
            if (!t) {
                r.error = QObject::tr("Reading %1 for its raw values: %2")
                              .arg(in.csvPath, QString::fromStdString(t.error().message));
                return r;
            }
            table = std::make_shared<const DataTable>(std::move(*t));
            r.csvTable = table;
            r.csvKey = in.csvKey;
        }
        if (!table) {  // compute() refuses sources without raw values first
            r.error = QObject::tr("The window's data source keeps no raw values.");
            return r;
        }
        const DataColumn* c = table->find(in.column.toStdString());
        if (!c || !c->isNumeric()) {
            r.error = QObject::tr(
                          "The current dataset has no numeric column '%1': a kernel "
                          "density estimate needs numbers. Choose a numeric column or "
                          "the Fig. 3.2 example data.")
                          .arg(in.column);
            return r;
        }
        data.reserve(c->size());
        for (double v : c->numbers()) {
            if (std::isnan(v)) {
                ++r.missing;
            } else {
                data.push_back(v);
            }
        }
    }
    r.n = data.size();
    if (data.size() < 2) {
        r.error = QObject::tr(
                      "'%1' has %2 non-missing value(s): a kernel density estimate "
                      "needs at least n = 2 (and its noise sd grows like 1/n).")
                      .arg(in.column)
                      .arg(data.size());
        return r;
    }
    const auto [mn, mx] = std::minmax_element(data.begin(), data.end());
    r.dataMin = *mn;
    r.dataMax = *mx;
    if (r.dataMin == r.dataMax) {
        r.error = QObject::tr(
                      "Every value of '%1' equals %2: a constant column has no density "
                      "to estimate (the KDE would only show the kernel's own shape). "
                      "Choose another column.")
                      .arg(in.column, formatSignificant(r.dataMin, 6));
        return r;
    }
    if (stop.stop_requested()) {
        r.error = QStringLiteral("cancelled");
        return r;
    }
    if (auto s = silvermanBandwidth(data)) {
        r.silverman = *s;
    }
    r.bandwidth =
        in.bandwidthAuto ? (in.example || r.silverman <= 0 ? 0.1 : r.silverman) : in.bandwidth;
    if (in.bandwidthAuto && !in.example && r.silverman > 0) {
        // Two significant digits: a value a user can read and retype.
        const double scale = std::pow(10.0, std::floor(std::log10(r.silverman)) - 1);
        r.bandwidth = std::round(r.silverman / scale) * scale;
    }
    double lo = in.example ? 0.0 : r.dataMin - 3 * r.bandwidth;
    double hi = in.example ? 1.0 : r.dataMax + 3 * r.bandwidth;
    r.gridAuto = !in.gridLo && !in.gridHi;
    lo = in.gridLo.value_or(lo);
    hi = in.gridHi.value_or(hi);
    FunctionalKdeParams p;
    p.bandwidth = r.bandwidth;
    p.gridLo = lo;
    p.gridHi = hi;
    p.gridPoints = in.gridPoints;
    p.epsilon = in.epsilon;
    p.delta = in.delta;
    p.samples = in.samples;
    p.seed = in.seed;
    p.calibration = in.calibration;
    auto release = releaseFunctionalKde(data, p, stop, [&progress](double f) { progress.set(f); });
    if (!release) {
        r.error = QString::fromStdString(release.error().message);
        if (!r.error.isEmpty()) {
            r.error[0] = r.error[0].toUpper();
        }
        return r;
    }
    r.release = std::move(*release);
    return r;
}

Expected<std::optional<double>> parseOptional(const QString& text, const QString& what) {
    const QString t = text.trimmed();
    if (t.isEmpty() || t.compare(QStringLiteral("auto"), Qt::CaseInsensitive) == 0) {
        return std::optional<double>{};
    }
    bool ok = false;
    const double v = t.toDouble(&ok);
    if (!ok || !std::isfinite(v)) {
        return Error{what.toStdString() + ": '" + t.toStdString() +
                     "' is not a finite number (leave it empty for auto)"};
    }
    return std::optional<double>{v};
}

}  // namespace

KdePage::KdePage(JobRunner* runner, QWidget* parent) : MechanismPage(parent), runner_(runner) {
    buildUi();
    draw();
}

void KdePage::buildUi() {
    // Data.
    source_ = new QComboBox;
    source_->setObjectName(QStringLiteral("kdeSource"));
    source_->addItem(tr("A numeric column of the window's dataset"),
                     static_cast<int>(Source::Column));
    source_->addItem(tr("Hall 2012, Fig. 3.2 example (n = 100)"),
                     static_cast<int>(Source::Example));
    column_ = new QComboBox;
    column_->setObjectName(QStringLiteral("kdeColumn"));
    dataText_ = new QLabel;
    dataText_->setObjectName(QStringLiteral("kdeDataText"));
    dataText_->setWordWrap(true);
    dataText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* dataBox = new QGroupBox(tr("Data"));
    auto* dataForm = new QFormLayout(dataBox);
    dataForm->addRow(tr("Source"), source_);
    dataForm->addRow(tr("Column"), column_);
    dataForm->addRow(dataText_);

    // Parameters.
    bandwidth_ = new QLineEdit;
    bandwidth_->setObjectName(QStringLiteral("kdeBandwidth"));
    bandwidth_->setMaximumWidth(90);
    bandwidth_->setAlignment(Qt::AlignRight);
    bandwidth_->setToolTip(
        tr("The kernel's bandwidth h, in the column's unit (> 0). The noise "
           "sd scales like 1/(n·h·ε); the KDE's bias grows with h."));
    bandwidthSlider_ = new QSlider(Qt::Horizontal);
    bandwidthSlider_->setRange(0, kSliderSteps);
    bandwidthSlider_->setToolTip(
        tr("h on a log scale from 1/2000 of the data's range to the "
           "range."));
    auto* hRow = new QHBoxLayout;
    hRow->addWidget(bandwidthSlider_, 1);
    hRow->addWidget(bandwidth_);
    silverman_ = new QPushButton(tr("Silverman"));
    silverman_->setToolTip(tr("Set h to Silverman's rule of thumb 0.9·min(s, IQR/1.34)·n^(−1/5)."));
    hRow->addWidget(silverman_);
    bandwidthHint_ = new QLabel;
    bandwidthHint_->setWordWrap(true);

    followEpsilon_ = new QCheckBox;
    followEpsilon_->setObjectName(QStringLiteral("kdeFollowEpsilon"));
    followEpsilon_->setChecked(true);
    epsilon_ = new LogSliderField(0.01, 20);
    epsilon_->setObjectName(QStringLiteral("kdeEpsilon"));
    epsilon_->setValue(epsilonOverride_);
    followDelta_ = new QCheckBox;
    followDelta_->setObjectName(QStringLiteral("kdeFollowDelta"));
    followDelta_->setChecked(true);
    delta_ = new LogSliderField(1e-12, 0.5);
    delta_->setObjectName(QStringLiteral("kdeDelta"));
    delta_->setValue(deltaOverride_);

    calibration_ = new QComboBox;
    calibration_->setObjectName(QStringLiteral("kdeCalibration"));
    calibration_->addItem(tr("Analytic (Balle & Wang): smallest σ, any ε"),
                          static_cast<int>(GaussianCalibration::Analytic));
    calibration_->addItem(tr("Hall 2012: σ = c(δ)·Δ/ε (Prop 1.3.3)"),
                          static_cast<int>(GaussianCalibration::Hall));
    calibration_->setToolTip(
        tr("The scale σ of the Gaussian-process noise. Both are checked against the exact "
           "privacy profile of the Gaussian mechanism with sensitivity Δ. Hall's c(δ)Δ/ε is "
           "proven for ε ≤ 1 and refused where it falls short (e.g. ε = 10); the analytic σ is "
           "the smallest that is (ε, δ)-DP, at any ε."));
    gridPoints_ = new QSpinBox;
    gridPoints_->setObjectName(QStringLiteral("kdeGridPoints"));
    gridPoints_->setRange(static_cast<int>(kMinKdeGridPoints), static_cast<int>(kMaxKdeGridPoints));
    gridPoints_->setValue(1000);
    gridPoints_->setToolTip(
        tr("Evenly spaced points from the grid's start to its end. The "
           "guarantee covers every grid, so more points cost no privacy."));
    gridLo_ = new QLineEdit;
    gridLo_->setObjectName(QStringLiteral("kdeGridLo"));
    gridLo_->setPlaceholderText(tr("auto"));
    gridHi_ = new QLineEdit;
    gridHi_->setObjectName(QStringLiteral("kdeGridHi"));
    gridHi_->setPlaceholderText(tr("auto"));
    const QString rangeTip =
        tr("Empty: the data's range widened by 3h on each side (the example: "
           "[0, 1] as in the seed).");
    gridLo_->setToolTip(rangeTip);
    gridHi_->setToolTip(rangeTip);
    auto* gridRow = new QHBoxLayout;
    gridRow->addWidget(gridPoints_);
    gridRow->addWidget(new QLabel(tr("points on")));
    gridRow->addWidget(gridLo_);
    gridRow->addWidget(new QLabel(tr("to")));
    gridRow->addWidget(gridHi_);

    releases_ = new QSpinBox;
    releases_->setObjectName(QStringLiteral("kdeReleases"));
    releases_->setRange(1, 20);
    releases_->setValue(5);
    drawAgain_ = new QPushButton(tr("Draw again"));
    drawAgain_->setObjectName(QStringLiteral("kdeDrawAgain"));
    drawAgain_->setToolTip(tr("New releases from the next seed (the data stay the same)."));
    auto* releaseRow = new QHBoxLayout;
    releaseRow->addWidget(releases_);
    releaseRow->addWidget(drawAgain_);
    releaseRow->addStretch(1);

    band_ = new QCheckBox(tr("±2·sd pointwise band"));
    band_->setObjectName(QStringLiteral("kdeBand"));
    band_->setChecked(true);
    yRange_ = new QComboBox;
    yRange_->setObjectName(QStringLiteral("kdeYRange"));
    yRange_->addItem(tr("Keep the true KDE readable"), static_cast<int>(YRange::KeepTruthReadable));
    yRange_->addItem(tr("Fit every release"), static_cast<int>(YRange::FitEverything));
    yRange_->setToolTip(
        tr("Keep the true KDE readable: the y axis spans at most −1 to 2.5 "
           "times the KDE's peak and releases that leave it are cut off (the "
           "page says how many values). Fit every release: the whole noise, "
           "which at small ε flattens the true curve."));

    auto* paramBox = new QGroupBox(tr("Release"));
    auto* form = new QFormLayout(paramBox);
    form->addRow(tr("Bandwidth h"), hRow);
    form->addRow(bandwidthHint_);
    form->addRow(followEpsilon_);
    form->addRow(tr("ε"), epsilon_);
    form->addRow(followDelta_);
    form->addRow(tr("δ"), delta_);
    form->addRow(tr("Noise σ"), calibration_);
    form->addRow(tr("Grid"), gridRow);
    form->addRow(tr("Releases"), releaseRow);
    form->addRow(tr("Y axis"), yRange_);
    form->addRow(band_);
    auto* fig32 = new QPushButton(tr("Hall 2012, Fig. 3.2 setting"));
    fig32->setObjectName(QStringLiteral("kdeFig32"));
    fig32->setToolTip(
        tr("The example data with h = 0.1, ε = 1, δ = 0.1 and 1000 points on "
           "[0, 1] (noise sd 0.138099)."));
    auto* exportPlot = new QPushButton(tr("Export plot…"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(fig32);
    buttons->addWidget(exportPlot);

    info_ = new QLabel;
    info_->setObjectName(QStringLiteral("kdeInfo"));
    info_->setWordWrap(true);
    info_->setTextFormat(Qt::RichText);
    info_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->addWidget(dataBox);
    sideLayout->addWidget(paramBox);
    sideLayout->addLayout(buttons);
    sideLayout->addWidget(info_);
    sideLayout->addStretch(1);
    auto* scroll = scrollingSidePanel(side, 380, 440);

    message_ = new QLabel;
    message_->setObjectName(QStringLiteral("kdeMessage"));
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("kdePlot"));
    plot_->setMinimumSize(420, 360);
    title_ = addPlotTitle(plot_);
    plot_->axisRect()->setupFullAxesBox(true);
    // The legend below the axes: inside, it would hide the releases' peaks.
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(2, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    plot_->plotLayout()->setRowStretchFactor(0, 0.01);
    plot_->plotLayout()->setRowStretchFactor(2, 0.01);
    auto* left = new QVBoxLayout;
    left->addWidget(message_);
    left->addWidget(plot_, 1);
    placeBesideSidePanel(left, scroll);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(80);
    connect(debounce_, &QTimer::timeout, this, &KdePage::compute);

    connect(source_, &QComboBox::currentIndexChanged, this, [this] {
        autoSource_ = false;
        column_->setEnabled(source_->currentData().toInt() == static_cast<int>(Source::Column) &&
                            column_->count() > 0);
        bandwidthAuto_ = true;
        schedule();
    });
    connect(column_, &QComboBox::currentIndexChanged, this, [this] {
        bandwidthAuto_ = true;
        schedule();
    });
    connect(bandwidth_, &QLineEdit::editingFinished, this, [this] {
        if (bandwidth_->isModified()) {
            bandwidth_->setModified(false);
            bandwidthAuto_ = false;
            updateBandwidthSlider();
            schedule();
        }
    });
    connect(bandwidthSlider_, &QSlider::valueChanged, this, [this](int pos) {
        if (updating_) {
            return;
        }
        const double t = static_cast<double>(pos) / kSliderSteps;
        double h = std::exp(std::log(sliderLo_) + t * (std::log(sliderHi_) - std::log(sliderLo_)));
        const double scale = std::pow(10.0, std::floor(std::log10(h)) - 2);
        h = std::round(h / scale) * scale;
        bandwidth_->setText(formatParameter(h));
        bandwidthAuto_ = false;
        schedule();
    });
    connect(silverman_, &QPushButton::clicked, this, [this] {
        if (hasResult_ && result_.silverman > 0) {
            setBandwidthText(formatParameter(result_.silverman));
        }
    });
    connect(followEpsilon_, &QCheckBox::toggled, this, [this](bool follow) {
        epsilon_->setEnabled(!follow);
        if (!follow && !updating_) {
            epsilonOverride_ = context_.epsilon;  // start from the window's value
        }
        epsilon_->setValue(follow ? context_.epsilon : epsilonOverride_);
        schedule();
    });
    connect(epsilon_, &LogSliderField::valueEdited, this, [this](double v, bool) {
        epsilonOverride_ = v;
        epsilon_->setValue(v);
        schedule();
    });
    connect(epsilon_, &LogSliderField::textRejected, this,
            [this](const QString& t) { showMessage(tr("ε: '%1' is not a number.").arg(t), true); });
    connect(followDelta_, &QCheckBox::toggled, this, [this](bool follow) {
        delta_->setEnabled(!follow);
        if (!follow && !updating_) {
            deltaOverride_ = context_.delta;
        }
        delta_->setValue(follow ? context_.delta : deltaOverride_);
        schedule();
    });
    connect(delta_, &LogSliderField::valueEdited, this, [this](double v, bool) {
        deltaOverride_ = v;
        delta_->setValue(v);
        schedule();
    });
    connect(delta_, &LogSliderField::textRejected, this,
            [this](const QString& t) { showMessage(tr("δ: '%1' is not a number.").arg(t), true); });
    connect(gridPoints_, &QSpinBox::valueChanged, this, [this] { schedule(); });
    connect(calibration_, &QComboBox::currentIndexChanged, this, [this] { schedule(); });
    connect(gridLo_, &QLineEdit::editingFinished, this, [this] { schedule(); });
    connect(gridHi_, &QLineEdit::editingFinished, this, [this] { schedule(); });
    connect(releases_, &QSpinBox::valueChanged, this, [this] { schedule(); });
    connect(drawAgain_, &QPushButton::clicked, this, [this] { drawAgain(); });
    connect(band_, &QCheckBox::toggled, this, [this] { draw(); });
    connect(yRange_, &QComboBox::currentIndexChanged, this, [this] { draw(); });
    connect(fig32, &QPushButton::clicked, this, [this] { useFig32Setting(); });
    connect(exportPlot, &QPushButton::clicked, this, [this] { Q_EMIT exportPlotRequested(); });
    connect(runner_, &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot == kSlot && isRunning()) {
            setRunning(false);
            drawn_ = true;
            showMessage(tr("Cancelled; change a setting or press Draw again to compute."), false);
            Q_EMIT finished();
        }
    });
    epsilon_->setEnabled(false);
    delta_->setEnabled(false);
    applyPlotPalette(plot_, palette());
}

// ---- context and controls ---------------------------------------------------------------------

// Recomputes only when something the page uses changed (the table or file, the window's ε or δ
// while followed, the seed), so that e.g. the window's bins changing neither redraws the releases
// nor restarts a run the user cancelled.
void KdePage::setContext(const MechanismPageContext& context) {
    const bool hadContext = haveContext_;
    const MechanismPageContext old = context_;
    const bool newTable = !haveContext_ || !context.dataset || !context_.dataset ||
                          context.dataset->table != context_.dataset->table ||
                          context.dataset->error != context_.dataset->error ||
                          context.csvPath != context_.csvPath ||
                          context.dataset->columns != context_.dataset->columns ||
                          context.dataset->rows != context_.dataset->rows;
    context_ = context;
    haveContext_ = true;
    {
        const QSignalBlocker b(followEpsilon_), b2(followDelta_);
        followEpsilon_->setText(
            tr("Use the window's ε (%1)").arg(formatParameter(context.epsilon)));
        followDelta_->setText(tr("Use the window's δ (%1)").arg(formatParameter(context.delta)));
    }
    if (followEpsilon_->isChecked()) {
        epsilon_->setValue(context.epsilon);
    }
    if (followDelta_->isChecked()) {
        delta_->setValue(context.delta);
    }
    if (newTable) {
        refillColumns();
        bandwidthAuto_ = true;
    }
    if (autoSource_) {
        // Until the user picks a source: the window's column when it has a numeric one, else the
        // seed's example.
        const QSignalBlocker b(source_);
        source_->setCurrentIndex(column_->count() > 0 ? 0 : 1);
        column_->setEnabled(column_->count() > 0 && source_->currentIndex() == 0);
    }
    const bool relevant = !hadContext || newTable || context.seed != old.seed ||
                          (followEpsilon_->isChecked() && context.epsilon != old.epsilon) ||
                          (followDelta_->isChecked() && context.delta != old.delta);
    if (relevant || (!drawn_ && !isRunning())) {
        schedule();
    } else if (context.neighbouring != old.neighbouring) {
        draw();  // only the texts mention the relation
    }
}

// The numeric columns of the window's table; the window's column first choice.
void KdePage::refillColumns() {
    const QString previous = column_->currentText();
    const QSignalBlocker b(column_);
    column_->clear();
    const auto& d = context_.dataset;
    if (d && d->error.isEmpty() && d->table) {
        for (const auto& c : d->table->columns()) {
            if (c.isNumeric()) {
                column_->addItem(QString::fromStdString(c.name()));
            }
        }
    } else if (d && d->error.isEmpty() && !context_.csvPath.isEmpty()) {
        // A CSV file: the window's inspection says which columns are numbers.
        for (qsizetype i = 0; i < d->columns.size() && i < d->columnTypes.size(); ++i) {
            if (d->columnTypes[i] == QLatin1String("integer") ||
                d->columnTypes[i] == QLatin1String("float")) {
                column_->addItem(d->columns[i]);
            }
        }
    }
    int index = d ? column_->findText(d->column) : -1;
    if (index < 0) {
        index = column_->findText(previous);
    }
    column_->setCurrentIndex(index >= 0 ? index : 0);
    column_->setEnabled(column_->count() > 0 &&
                        source_->currentData().toInt() == static_cast<int>(Source::Column));
    if (column_->count() == 0) {
        column_->setPlaceholderText(tr("(no numeric column)"));
    }
}

void KdePage::useFig32Setting() {
    updating_ = true;
    source_->setCurrentIndex(1);
    bandwidth_->setText(QStringLiteral("0.1"));
    bandwidthAuto_ = false;
    epsilonOverride_ = 1;
    followEpsilon_->setChecked(false);
    deltaOverride_ = 0.1;
    followDelta_->setChecked(false);
    gridPoints_->setValue(1000);
    setCalibration(GaussianCalibration::Hall);
    gridLo_->clear();
    gridHi_->clear();
    updating_ = false;
    updateBandwidthSlider();
    schedule();
}

void KdePage::setSource(Source s) {
    autoSource_ = false;
    source_->setCurrentIndex(source_->findData(static_cast<int>(s)));
}

void KdePage::setColumn(const QString& name) {
    column_->setCurrentIndex(column_->findText(name));
}

void KdePage::setBandwidthText(const QString& text) {
    bandwidth_->setText(text);
    bandwidthAuto_ = false;
    updateBandwidthSlider();
    schedule();
}

void KdePage::setEpsilonOverride(std::optional<double> epsilon) {
    if (epsilon) {
        epsilonOverride_ = *epsilon;
    }
    updating_ = true;
    followEpsilon_->setChecked(!epsilon);
    epsilon_->setEnabled(!followEpsilon_->isChecked());
    epsilon_->setValue(epsilon ? *epsilon : context_.epsilon);
    updating_ = false;
    schedule();
}

void KdePage::setDeltaOverride(std::optional<double> delta) {
    if (delta) {
        deltaOverride_ = *delta;
    }
    updating_ = true;
    followDelta_->setChecked(!delta);
    delta_->setEnabled(!followDelta_->isChecked());
    delta_->setValue(delta ? *delta : context_.delta);
    updating_ = false;
    schedule();
}

void KdePage::setGridPoints(int m) {
    gridPoints_->setValue(m);
}

void KdePage::setReleases(int k) {
    releases_->setValue(k);
}

void KdePage::setYRange(YRange r) {
    yRange_->setCurrentIndex(yRange_->findData(static_cast<int>(r)));
}

void KdePage::setCalibration(GaussianCalibration c) {
    calibration_->setCurrentIndex(calibration_->findData(static_cast<int>(c)));
}

void KdePage::drawAgain() {
    ++draws_;
    schedule();
}

double KdePage::effectiveEpsilon() const {
    return followEpsilon_->isChecked() ? context_.epsilon : epsilonOverride_;
}

double KdePage::effectiveDelta() const {
    return followDelta_->isChecked() ? context_.delta : deltaOverride_;
}

void KdePage::updateBandwidthSlider() {
    bool ok = false;
    const double h = bandwidth_->text().trimmed().toDouble(&ok);
    updating_ = true;
    if (ok && h > 0) {
        const double t =
            (std::log(h) - std::log(sliderLo_)) / (std::log(sliderHi_) - std::log(sliderLo_));
        bandwidthSlider_->setValue(
            static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSliderSteps)));
    }
    updating_ = false;
}

bool KdePage::busy() const {
    return debounce_->isActive() || isRunning() || !drawn_;
}

void KdePage::schedule() {
    if (updating_ || !haveContext_) {
        return;
    }
    debounce_->start();
}

// ---- computing --------------------------------------------------------------------------------

void KdePage::compute() {
    KdeInput in;
    in.example = source_->currentData().toInt() == static_cast<int>(Source::Example);
    in.dataSeed = context_.seed;
    in.seed = context_.seed + draws_;
    in.epsilon = effectiveEpsilon();
    in.delta = effectiveDelta();
    in.gridPoints = static_cast<std::size_t>(gridPoints_->value());
    in.samples = static_cast<std::size_t>(releases_->value());
    in.calibration = static_cast<GaussianCalibration>(calibration_->currentData().toInt());
    in.bandwidthAuto = bandwidthAuto_;
    QString error;
    if (!in.example) {
        const auto& d = context_.dataset;
        if (!d || !d->error.isEmpty()) {
            error = d ? tr("The window has no data: %1").arg(d->error)
                      : tr("The window has no data loaded yet.");
        } else if (column_->count() == 0) {
            error = d->table || !context_.csvPath.isEmpty()
                        ? tr("The current dataset (%1) has no numeric column: a kernel density "
                             "estimate needs numbers. Choose the Fig. 3.2 example data, or open "
                             "a dataset with a numeric column.")
                              .arg(d->sourceTitle)
                        : tr("The window's database source computes the histogram in the "
                             "database and sends only counts, not the raw values a kernel "
                             "density estimate needs. Use `dpx kde --data FILE --column C` on an "
                             "export, or choose an example dataset or the Fig. 3.2 example data.");
        } else {
            in.table = d->table;
            if (!d->table) {
                in.csvPath = context_.csvPath;
                // The cache holds until the file changes (its time stamp) or the window counts
                // another number of rows.
                in.csvKey =
                    context_.csvPath + QLatin1Char('#') + QString::number(d->rows) +
                    QLatin1Char('#') +
                    QString::number(QFileInfo(context_.csvPath).lastModified().toMSecsSinceEpoch());
                if (csvKey_ == in.csvKey) {
                    in.table = csvTable_;
                }
            }
            in.column = column_->currentText();
            in.unit = in.column == d->column ? d->unit : QString();
        }
    }
    if (error.isEmpty() && !bandwidthAuto_) {
        bool ok = false;
        in.bandwidth = bandwidth_->text().trimmed().toDouble(&ok);
        if (!ok || !std::isfinite(in.bandwidth) || !(in.bandwidth > 0)) {
            error = tr("The bandwidth h must be a number > 0 (got '%1').")
                        .arg(bandwidth_->text().trimmed());
        }
    }
    std::optional<double> lo, hi;
    if (error.isEmpty()) {
        auto l = parseOptional(gridLo_->text(), tr("Grid start"));
        auto h = parseOptional(gridHi_->text(), tr("Grid end"));
        if (!l) {
            error = QString::fromStdString(l.error().message);
        } else if (!h) {
            error = QString::fromStdString(h.error().message);
        } else {
            in.gridLo = *l;
            in.gridHi = *h;
        }
    }
    if (!error.isEmpty()) {
        runner_->cancel(kSlot);
        KdePageResult r;
        r.error = error;
        r.example = in.example;
        setRunning(true);  // deliver() ends it
        deliver(std::move(r));
        return;
    }
    setRunning(true);
    showMessage(tr("Computing…"), false);
    runner_->run<KdePageResult>(
        kSlot,
        [in](std::stop_token stop, JobProgress& progress) {
            return computeKde(in, stop, progress);
        },
        [this](KdePageResult r) { deliver(std::move(r)); }, tr("KDE release"));
}

void KdePage::deliver(KdePageResult r) {
    setRunning(false);
    drawn_ = true;
    result_ = std::move(r);
    if (result_.csvTable) {
        csvTable_ = std::move(result_.csvTable);
        csvKey_ = result_.csvKey;
    }
    hasResult_ = result_.error.isEmpty();
    if (result_.dataMax > result_.dataMin || result_.example) {
        const double range = result_.example ? 1.0 : result_.dataMax - result_.dataMin;
        sliderLo_ = range / 2000;
        sliderHi_ = range;
    }
    if (hasResult_ && bandwidthAuto_) {
        updating_ = true;
        bandwidth_->setText(formatParameter(result_.bandwidth));
        updating_ = false;
    }
    updateBandwidthSlider();
    draw();
    Q_EMIT finished();
}

// ---- drawing ----------------------------------------------------------------------------------

void KdePage::showMessage(const QString& text, bool error) {
    setMessageText(message_, text, error);
    message_->setVisible(!text.isEmpty());
}

QString KdePage::messageText() const {
    return message_->text();
}

QString KdePage::infoText() const {
    return plainTextOf(info_);
}

double KdePage::yLo() const {
    return plot_->yAxis->range().lower;
}

double KdePage::yHi() const {
    return plot_->yAxis->range().upper;
}

void KdePage::draw() {
    plot_->clearPlottables();
    clipped_ = 0;
    const KdePageResult& r = result_;
    const QString unit = r.example ? QString() : r.unit;
    const QString xName = r.example            ? tr("x (Fig. 3.2 example data, no unit)")
                          : r.column.isEmpty() ? tr("x")
                          : unit.isEmpty()     ? r.column
                                               : tr("%1 (%2)").arg(r.column, unit);
    plot_->xAxis->setLabel(xName);
    plot_->yAxis->setLabel(unit.isEmpty() ? tr("density") : tr("density (1/%1)").arg(unit));
    const QString unitSuffix = unit.isEmpty() ? QString() : QStringLiteral(" ") + unit;

    // The data text: what is used and how it maps to the x axis.
    if (r.example) {
        dataText_->setText(
            tr("Hall 2012, Fig. 3.2's example: n = 100 points from an equal mixture of "
               "N(0.3, 0.1²) and N(0.7, 0.1²) (the seed does not state the spread; 0.1 "
               "assumed), drawn with the window's seed %1. Grid: [0, 1] as in the seed unless "
               "set.")
                .arg(context_.seed));
    } else if (hasResult_ || r.dataMax > r.dataMin) {
        const QString source = context_.dataset ? context_.dataset->sourceTitle : QString();
        QString text =
            tr("Column '%1' of %2: n = %L3 values%4, from %5 to %6%7, used as they are (no "
               "rescaling: Δ holds for any real values, so x and h are in the column's unit).")
                .arg(r.column, source)
                .arg(static_cast<qulonglong>(r.n))
                .arg(r.missing > 0 ? tr(" (%L1 missing skipped)").arg(r.missing) : QString())
                .arg(formatSignificant(r.dataMin, 4), formatSignificant(r.dataMax, 4), unitSuffix);
        if (!context_.csvPath.isEmpty()) {
            text +=
                tr(" The values are read from the file as `dpx kde --data` reads them (the "
                   "window itself keeps only the counts).");
        }
        if (hasResult_ && r.gridAuto) {
            text +=
                tr(" The grid [min − 3h, max + 3h] comes from the data, so it reveals the "
                   "extremes: fine for exploring; a real release would declare it.");
        }
        if (context_.dataset && context_.dataset->cap > 1) {
            text += tr(" The guarantee is per row: the window's cap of %1 rows per person is not "
                       "applied here.")
                        .arg(context_.dataset->cap);
        }
        dataText_->setText(text);
    } else {
        dataText_->setText(QString());
    }
    bandwidthHint_->setText(
        r.silverman > 0
            ? tr("Silverman's rule: h ≈ %1%2 (a hint computed from the data, so not itself "
                 "private).")
                  .arg(formatSignificant(r.silverman, 3), unitSuffix)
            : QString());
    silverman_->setEnabled(r.silverman > 0);

    if (!hasResult_) {
        if (!r.error.isEmpty()) {
            showMessage(r.error, true);
        }
        title_->setText(tr("Private KDE released as a function: no result"));
        info_->setText(QString());
        plot_->xAxis->setRange(0, 1);
        plot_->yAxis->setRange(0, 1);
        plot_->legend->setVisible(false);
        replotWhenVisible(plot_);
        return;
    }

    const FunctionalKdeResult& rel = r.release;
    const std::size_t m = rel.grid.size();
    QVector<double> x(rel.grid.begin(), rel.grid.end());
    QVector<double> truth(rel.trueKde.begin(), rel.trueKde.end());
    const double peak = *std::max_element(rel.trueKde.begin(), rel.trueKde.end());
    const double sd = rel.noiseScale;
    const QColor text = palette().color(QPalette::WindowText);

    double allLo = 0, allHi = peak;
    for (const auto& v : rel.releases) {
        const auto [a, b] = std::minmax_element(v.begin(), v.end());
        allLo = std::min(allLo, *a);
        allHi = std::max(allHi, *b);
    }
    if (band_->isChecked()) {
        allLo = std::min(allLo, -2 * sd);
        allHi = std::max(allHi, peak + 2 * sd);
    }
    // The true KDE is (numerically) 0 on a grid far from the data: nothing to keep readable.
    const bool flat = !(peak > 1e-12 * sd);
    const bool keep =
        !flat && yRange_->currentData().toInt() == static_cast<int>(YRange::KeepTruthReadable);
    double lo = allLo, hi = allHi;
    if (keep) {
        lo = std::max(lo, -kClipBelow * peak);
        hi = std::min(hi, kClipAbove * peak);
    }
    const double pad = 0.04 * (hi - lo);
    lo -= pad;
    hi += pad;
    for (const auto& v : rel.releases) {
        for (double y : v) {
            clipped_ += (y < lo || y > hi) ? 1 : 0;
        }
    }

    if (band_->isChecked()) {
        QVector<double> below(static_cast<qsizetype>(m)), above(static_cast<qsizetype>(m));
        for (std::size_t j = 0; j < m; ++j) {
            below[static_cast<qsizetype>(j)] = rel.trueKde[j] - 2 * sd;
            above[static_cast<qsizetype>(j)] = rel.trueKde[j] + 2 * sd;
        }
        QColor fill = text;
        fill.setAlpha(35);
        QColor edge = text;
        edge.setAlpha(90);
        QCPGraph* gLo = plot_->addGraph();
        gLo->setData(x, below, true);
        gLo->setPen(QPen(edge, 1, Qt::DotLine));
        gLo->removeFromLegend();
        QCPGraph* gHi = plot_->addGraph();
        gHi->setData(x, above, true);
        gHi->setPen(QPen(edge, 1, Qt::DotLine));
        gHi->setBrush(fill);
        gHi->setChannelFillGraph(gLo);
        gHi->setName(tr("f_D ± 2σ (pointwise sd σ = %1)").arg(formatPowerOfTen(sd, 3)));
    }
    for (std::size_t k = 0; k < rel.releases.size(); ++k) {
        QColor c = kReleaseColours[k % std::size(kReleaseColours)];
        c.setAlpha(150);
        QCPGraph* g = plot_->addGraph();
        const auto& v = rel.releases[k];
        g->setData(x, QVector<double>(v.begin(), v.end()), true);
        g->setPen(QPen(c, 1.2));
        if (k == 0) {
            g->setName(rel.releases.size() == 1
                           ? tr("a sampled release f_D + σ·G")
                           : tr("%1 sampled releases f_D + σ·G").arg(rel.releases.size()));
        } else {
            g->removeFromLegend();
        }
    }
    QCPGraph* g = plot_->addGraph();
    g->setData(x, truth, true);
    g->setPen(QPen(text, 3));
    g->setName(tr("true KDE f_D (n = %L1, h = %2%3)")
                   .arg(static_cast<qulonglong>(rel.n))
                   .arg(formatParameter(r.bandwidth), unitSuffix));
    plot_->xAxis->setRange(rel.grid.front(), rel.grid.back());
    plot_->yAxis->setRange(lo, hi);
    plot_->legend->setVisible(true);
    title_->setText(tr("Private KDE released as a function\n(ε, δ)-DP for the whole curve, "
                       "ε = %1, δ = %2")
                        .arg(formatParameter(r.epsilon), formatParameter(r.delta)));

    // The note above the plot: what the y axis shows.
    const std::size_t total = m * rel.releases.size();
    const double ratio = flat ? HUGE_VAL : sd / peak;
    if (flat) {
        showMessage(
            tr("The true KDE is 0 on this grid (%1 to %2): the data lie outside it. The y "
               "axis fits the releases, which are pure noise here.")
                .arg(formatSignificant(rel.grid.front(), 6), formatSignificant(rel.grid.back(), 6)),
            false);
    } else if (keep && clipped_ > 0) {
        showMessage(tr("The noise (sd %1) is %2× the KDE's peak %3: %4 % of the release values "
                       "lie off the scale. The y axis is kept within −1 to 2.5 × the peak so the "
                       "true KDE stays readable; choose “Fit every release” to see the releases "
                       "whole.")
                        .arg(formatSignificant(sd, 3), formatSignificant(ratio, 2),
                             formatSignificant(peak, 3))
                        .arg(formatSignificant(
                            100.0 * static_cast<double>(clipped_) / static_cast<double>(total), 3)),
                    false);
    } else if (!keep && ratio > 0.5) {
        showMessage(tr("The y axis fits every release: the noise sd %1 is %2× the KDE's peak "
                       "%3, so the true curve looks flat. Choose “Keep the true KDE readable” to "
                       "see its shape.")
                        .arg(formatSignificant(sd, 3), formatSignificant(ratio, 2),
                             formatSignificant(peak, 3)),
                    false);
    } else {
        showMessage(QString(), false);
    }

    // The numbers and the guarantee.
    QString info;
    info +=
        tr("<p><b>Guarantee: (ε, δ)-DP for the whole function</b> (every grid point and any "
           "finer grid), ε = %1, δ = %2, for one record replaced with n = %L3 known (Hall 2012, "
           "§3.3.1). The noise is also checked against the exact Gaussian privacy profile.")
            .arg(formatParameter(r.epsilon), formatParameter(r.delta))
            .arg(static_cast<qulonglong>(rel.n));
    if (context_.neighbouring == Neighbouring::AddRemove) {
        info +=
            tr(" (The window's add/remove relation does not apply: this Δ is for one "
               "record replaced.)");
    }
    info += QStringLiteral("</p>");
    const double seedSd = rel.cDelta * rel.sensitivity / r.epsilon;
    if (r.calibration == GaussianCalibration::Hall) {
        info += tr("<p><b>Pointwise standard deviation</b> σ = c(δ)·Δ/ε = %1 × %2 / %3 = "
                   "<b>%4</b> (%5 % of the KDE's peak %6), the same at every x because "
                   "K(x, x) = 1.<br>Δ = √2/(n·√(2π)·h) = %2 (one record replaced), c(δ) = "
                   "√(2 ln(2/δ)) = %1 (Hall 2012, Prop 1.3.3).</p>")
                    .arg(formatSignificant(rel.cDelta, 6), formatPowerOfTen(rel.sensitivity, 6),
                         formatParameter(r.epsilon), formatPowerOfTen(sd, 6),
                         formatSignificant(100 * ratio, 3), formatPowerOfTen(peak, 4));
    } else {
        info += tr("<p><b>Pointwise standard deviation</b> σ = <b>%1</b> (%2 % of the KDE's "
                   "peak %3), the same at every x because K(x, x) = 1: the smallest σ whose "
                   "exact privacy profile reaches (ε, δ) for sensitivity Δ = √2/(n·√(2π)·h) = "
                   "%4 (analytic Gaussian, Balle & Wang 2018). Hall's c(δ)·Δ/ε would be "
                   "%5.</p>")
                    .arg(formatPowerOfTen(sd, 6), formatSignificant(100 * ratio, 3),
                         formatPowerOfTen(peak, 4), formatPowerOfTen(rel.sensitivity, 6),
                         formatPowerOfTen(seedSd, 6));
    }
    info += tr("<p><b>Factorisation:</b> G is sampled through a pivoted Cholesky factor of K on "
               "the %L1-point grid, rank %L2. <b>No jitter was needed</b> (none is added): every "
               "entry of the sampled covariance is within %3 of σ²·K.</p>")
                .arg(static_cast<qulonglong>(m))
                .arg(static_cast<qulonglong>(rel.factorRank))
                .arg(formatPowerOfTen(rel.covarianceError, 3));
    for (const auto& w : rel.warnings) {
        info += QStringLiteral("<p>") + QString::fromStdString(w).toHtmlEscaped() +
                QStringLiteral("</p>");
    }
    info += tr("<p>ε: %1; δ: %2. Releases from seed %3 (simulated with a seeded generator, for "
               "exploring; not an exported release).</p>")
                .arg(followEpsilon_->isChecked() ? tr("the window's") : tr("set here"),
                     followDelta_->isChecked() ? tr("the window's") : tr("set here"))
                .arg(r.seed);
    info_->setText(info);
    replotWhenVisible(plot_);
}

void KdePage::restyle() {
    draw();
}

}  // namespace dpx::ui
