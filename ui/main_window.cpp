#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include "ui/qcustomplot_include.h"

#include "core/estimator.h"
#include "core/example_datasets.h"
#include "core/metrics.h"

void dpxInitResources();  // resources/dpx_resources.cpp

namespace dpx::ui {

namespace {
QString fromStd(const std::string& s) {
    return QString::fromStdString(s);
}

QString formatNumber(double v) {
    if (!std::isfinite(v)) {
        return QStringLiteral("—");
    }
    return QString::number(v, 'g', 6);
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    dpxInitResources();
    setWindowTitle(tr("DP Explorer"));
    setWindowIcon(QIcon(QStringLiteral(":/dpx/icons/dpexplorer.svg")));
    buildUi();
    connect(&watcher_, &QFutureWatcher<PreviewResult>::finished, this, [this] {
        const PreviewResult r = watcher_.result();
        if (pending_) {  // inputs changed while computing: this result is stale
            pending_ = false;
            recompute();
            return;
        }
        if (r.generation == generation_) {
            showResult(r);
        }
    });
    recompute();
}

MainWindow::~MainWindow() {
    watcher_.waitForFinished();
}

void MainWindow::buildUi() {
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    auto* savePlot = fileMenu->addAction(tr("Save plot as PNG…"));
    connect(savePlot, &QAction::triggered, this, &MainWindow::savePlot);
    fileMenu->addSeparator();
    auto* quit = fileMenu->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, qApp, &QApplication::quit);
    auto* help = menuBar()->addMenu(tr("&Help"));
    connect(help->addAction(tr("About DP Explorer")), &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About DP Explorer"),
                           tr("DP Explorer explores differential-privacy trade-offs for "
                              "histograms.\nThis first window previews one release; the full "
                              "explorer is under construction."));
    });

    auto* controls = new QGroupBox(tr("Release"));
    auto* form = new QFormLayout(controls);
    dataset_ = new QComboBox;
    dataset_->setObjectName(QStringLiteral("datasetCombo"));
    for (const auto& e : exampleDatasets()) {
        dataset_->addItem(fromStd(e.title), fromStd(e.id));
    }
    form->addRow(tr("Dataset"), dataset_);
    datasetInfo_ = new QLabel;
    datasetInfo_->setWordWrap(true);
    form->addRow(datasetInfo_);
    neighbouring_ = new QComboBox;
    neighbouring_->setObjectName(QStringLiteral("neighbouringCombo"));
    neighbouring_->addItem(tr("add/remove one record"), QStringLiteral("add-remove"));
    neighbouring_->addItem(tr("replace one record"), QStringLiteral("replace"));
    form->addRow(tr("Neighbours"), neighbouring_);
    mechanism_ = new QComboBox;
    mechanism_->setObjectName(QStringLiteral("mechanismCombo"));
    mechanism_->addItem(tr("Laplace"), QStringLiteral("laplace"));
    mechanism_->addItem(tr("Geometric (discrete Laplace)"), QStringLiteral("geometric"));
    mechanism_->addItem(tr("Gaussian"), QStringLiteral("gaussian"));
    form->addRow(tr("Mechanism"), mechanism_);
    epsilon_ = new QDoubleSpinBox;
    epsilon_->setObjectName(QStringLiteral("epsilonSpin"));
    epsilon_->setRange(0.01, 20);
    epsilon_->setDecimals(3);
    epsilon_->setSingleStep(0.05);
    epsilon_->setValue(0.1);
    form->addRow(tr("ε"), epsilon_);
    delta_ = new QLineEdit(QStringLiteral("1e-6"));
    delta_->setObjectName(QStringLiteral("deltaEdit"));
    form->addRow(tr("δ"), delta_);
    calibration_ = new QComboBox;
    calibration_->setObjectName(QStringLiteral("calibrationCombo"));
    calibration_->addItem(tr("analytic (Balle & Wang)"), QStringLiteral("analytic"));
    calibration_->addItem(tr("classic √(2 ln(1.25/δ))"), QStringLiteral("classic"));
    calibration_->addItem(tr("seed √(2 ln(2/δ))"), QStringLiteral("seed"));
    form->addRow(tr("Calibration"), calibration_);
    seed_ = new QSpinBox;
    seed_->setObjectName(QStringLiteral("seedSpin"));
    seed_->setRange(1, 1000000);
    auto* newDraw = new QPushButton(tr("New draw"));
    auto* seedRow = new QHBoxLayout;
    seedRow->addWidget(seed_, 1);
    seedRow->addWidget(newDraw);
    form->addRow(tr("Seed"), seedRow);
    reading_ = new QLabel;
    reading_->setObjectName(QStringLiteral("guaranteeLabel"));
    reading_->setWordWrap(true);
    // Word-wrapped labels in a splitter get one line's height unless told otherwise.
    reading_->setMinimumHeight(110);
    reading_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    message_ = new QLabel;
    message_->setObjectName(QStringLiteral("messageLabel"));
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: #b00020;"));
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addWidget(controls);
    auto* guaranteeTitle = new QLabel(tr("<b>Guarantee</b>"));
    leftLayout->addWidget(guaranteeTitle);
    leftLayout->addWidget(reading_);
    leftLayout->addWidget(message_);
    leftLayout->addStretch(1);
    left->setMinimumWidth(360);

    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("histogramPlot"));
    plot_->setMinimumSize(600, 380);
    plot_->legend->setVisible(true);
    // Legend in its own row above the axes, so it never hides a bar.
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    table_ = new QTableWidget;
    table_->setObjectName(QStringLiteral("errorTable"));
    table_->setColumnCount(static_cast<int>(previewMetrics().size()));
    QStringList headers;
    for (Metric m : previewMetrics()) {
        headers << (m == Metric::SSE ? tr("E[SSE]") : m == Metric::L1 ? tr("E[L1]") : tr("E[L∞]"));
    }
    table_->setHorizontalHeaderLabels(headers);
    table_->setRowCount(static_cast<int>(previewEstimators().size()));
    QStringList rows;
    for (EstimatorKind k : previewEstimators()) {
        rows << QString::fromLatin1(estimatorName(k));
    }
    table_->setVerticalHeaderLabels(rows);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setMaximumHeight(170);

    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->addWidget(plot_, 1);
    auto* tableTitle =
        new QLabel(tr("Expected error of each estimator (counts); exact unless "
                      "marked ≈ (Monte Carlo, ± 95% interval)"));
    rightLayout->addWidget(tableTitle);
    rightLayout->addWidget(table_);

    auto* splitter = new QSplitter;
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);
    statusBar()->showMessage(tr("Ready"));

    auto changed = [this] { recompute(); };
    connect(dataset_, &QComboBox::currentIndexChanged, this, changed);
    connect(mechanism_, &QComboBox::currentIndexChanged, this, changed);
    connect(neighbouring_, &QComboBox::currentIndexChanged, this, changed);
    connect(calibration_, &QComboBox::currentIndexChanged, this, changed);
    connect(epsilon_, &QDoubleSpinBox::valueChanged, this, changed);
    connect(delta_, &QLineEdit::editingFinished, this, changed);
    connect(seed_, &QSpinBox::valueChanged, this, changed);
    connect(newDraw, &QPushButton::clicked, this,
            [this] { seed_->setValue(seed_->value() % 1000000 + 1); });
    resize(1280, 760);
}

bool MainWindow::selectExample(const QString& id) {
    const int i = dataset_->findData(id);
    if (i < 0) {
        return false;
    }
    dataset_->setCurrentIndex(i);
    return true;
}

bool MainWindow::selectMechanism(const QString& name) {
    const int i = mechanism_->findData(name);
    if (i < 0) {
        return false;
    }
    mechanism_->setCurrentIndex(i);
    return true;
}

void MainWindow::setEpsilon(double epsilon) {
    epsilon_->setValue(epsilon);
}

void MainWindow::recompute() {
    const bool gaussian = mechanism_->currentData().toString() == QStringLiteral("gaussian");
    delta_->setEnabled(gaussian);
    calibration_->setEnabled(gaussian);
    const std::string id = dataset_->currentData().toString().toStdString();
    for (const auto& e : exampleDatasets()) {
        if (e.id == id) {
            datasetInfo_->setText(fromStd(e.description));
        }
    }
    auto hist = makeExample(id);
    PreviewRequest req{
        *hist, {}, Neighbouring::AddRemove, static_cast<std::uint64_t>(seed_->value()), 0};
    req.mechanism.kind = *mechanismFromName(mechanism_->currentData().toString().toStdString());
    req.mechanism.epsilon = epsilon_->value();
    req.neighbouring = *neighbouringFromName(neighbouring_->currentData().toString().toStdString());
    if (gaussian) {
        bool ok = false;
        req.mechanism.delta = delta_->text().trimmed().toDouble(&ok);
        if (!ok) {
            message_->setText(tr("δ “%1” is not a number; enter e.g. 1e-6.").arg(delta_->text()));
            return;
        }
        req.mechanism.calibration =
            *gaussianCalibrationFromName(calibration_->currentData().toString().toStdString());
    }
    req.generation = ++generation_;
    if (watcher_.isRunning()) {
        pending_ = true;  // recompute once the running job is done; its result is dropped
        return;
    }
    statusBar()->showMessage(tr("Computing…"));
    watcher_.setFuture(QtConcurrent::run(computePreview, req));
}

void MainWindow::showResult(const PreviewResult& r) {
    if (!r.error.isEmpty()) {
        message_->setText(r.error);
        reading_->clear();
        statusBar()->showMessage(tr("Invalid parameters: nothing computed"));
        plot_->clearPlottables();
        plot_->replot();
        for (int row = 0; row < table_->rowCount(); ++row) {
            for (int col = 0; col < table_->columnCount(); ++col) {
                table_->setItem(row, col, new QTableWidgetItem(QStringLiteral("—")));
            }
        }
        Q_EMIT resultShown();
        return;
    }
    QString warn;
    for (const auto& w : r.mechanism.warnings) {
        warn += QStringLiteral("⚠ ") + fromStd(w) + QLatin1Char('\n');
    }
    message_->setText(warn.trimmed());
    reading_->setText(fromStd(r.mechanism.guarantee.sentence) + QStringLiteral("\nNoise: ") +
                      fromStd(r.mechanism.noise.describe()) +
                      tr(", per-bin 95% interval ± %1").arg(formatNumber(r.band95)));

    plot_->clearPlottables();
    const auto hist = makeExample(dataset_->currentData().toString().toStdString());
    QVector<double> ticks;
    QVector<QString> labels;
    for (std::size_t i = 0; i < r.truth.size(); ++i) {
        ticks << static_cast<double>(i + 1);
        labels << fromStd(hist->labels().empty() ? std::to_string(i + 1) : hist->labels()[i]);
    }
    auto* group = new QCPBarsGroup(plot_);
    auto addBars = [&](const QString& name, const std::vector<double>& v, const QColor& c) {
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(name);
        bars->setData(ticks, QVector<double>(v.begin(), v.end()));
        bars->setBrush(c);
        bars->setPen(c.darker(130));
        bars->setWidth(0.25);
        bars->setBarsGroup(group);
        return bars;
    };
    addBars(tr("true counts"), r.truth, QColor(150, 150, 150));
    auto* noisyBars = addBars(tr("noisy release (simulated)"), r.noisy, QColor(66, 133, 244));
    addBars(tr("clamp estimate"), r.estimates[1], QColor(242, 165, 65));
    auto* band = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    band->setName(tr("95% noise interval"));
    band->setDataPlottable(noisyBars);
    band->setData(QVector<double>(static_cast<int>(r.noisy.size()), r.band95));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->addTicks(ticks, labels);
    plot_->xAxis->setTicker(ticker);
    const auto* ex = &exampleDatasets().front();
    for (const auto& e : exampleDatasets()) {
        if (QString::fromStdString(e.id) == dataset_->currentData().toString()) {
            ex = &e;
        }
    }
    plot_->xAxis->setLabel(ex->unit.empty() ? tr("bin") : tr("bin (%1)").arg(fromStd(ex->unit)));
    plot_->yAxis->setLabel(tr("count (records)"));
    plot_->xAxis->setRange(0.4, static_cast<double>(r.truth.size()) + 0.6);
    double lo = 0;
    double hi = 1;
    for (std::size_t i = 0; i < r.truth.size(); ++i) {
        for (double v : {r.truth[i], r.noisy[i] - r.band95, r.noisy[i] + r.band95}) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    plot_->yAxis->setRange(lo - 0.05 * (hi - lo), hi + 0.08 * (hi - lo));
    plot_->replot();

    for (std::size_t e = 0; e < r.errors.size(); ++e) {
        for (std::size_t m = 0; m < r.errors[e].size(); ++m) {
            const ErrorCell& c = r.errors[e][m];
            const QString text = c.exact
                                     ? formatNumber(c.value)
                                     : QStringLiteral("≈ %1 ± %2")
                                           .arg(formatNumber(c.value), formatNumber(c.halfWidth));
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(c.method);
            table_->setItem(static_cast<int>(e), static_cast<int>(m), item);
        }
    }
    statusBar()->showMessage(tr("Done: %1").arg(fromStd(r.mechanism.noise.describe())));
    Q_EMIT resultShown();
}

void MainWindow::savePlot() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save plot"), QStringLiteral("plot.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty() && !plot_->savePng(path)) {
        QMessageBox::warning(this, tr("Save plot"), tr("Could not write %1").arg(path));
    }
}

void MainWindow::saveScreenshotWhenReady(const QString& path) {
    connect(this, &MainWindow::resultShown, this, [this, path] {
        if (watcher_.isRunning() || pending_) {
            return;
        }
        grab().save(path);
        qApp->quit();
    });
}

}  // namespace dpx::ui
