#include "ui/release/release_dialog.h"

#include <QAction>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QFormLayout>
#include <QFrame>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/base/validation.h"
#include "core/choosing/public_proxy.h"
#include "core/histogram/dataset.h"
#include "core/histogram/example_datasets.h"
#include "core/intervals/intervals.h"
#include "core/intervals/release_intervals.h"
#include "io/release/release_files.h"
#include "ui/model/job_runner.h"
#include "ui/release/decision_report_exporter.h"
#include "ui/release/known_ledgers.h"
#include "ui/widgets/elided_label.h"

namespace dpx::ui {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

const QString kPreviewSlot = QStringLiteral("release-preview");
const QString kReleaseSlot = QStringLiteral("release");
const QString kLedgerSlot = QStringLiteral("release-ledger");
const QString kRestSlot = QStringLiteral("release-rest");

// Results of the runner's jobs (Expected has no default state, so these carry an error text).
struct PreviewRun {
    std::optional<data::ReleasePreview> preview;
    QString error;
    QString ledgerPath;  // the path the preview ran with
    // A new ledger: the known ledgers that already charged this dataset (path, one line each).
    QStringList otherPaths, otherLines;
    // The data declared a sample (issue #22): the statement for a bin of half the sample.
    std::optional<ReleaseSamplingStatement> sampling;
    QString samplingError;
};
struct RestRun {
    QString epsilon;  // the largest ε the ledger accepts, as decimal text
    QString error;
};
struct ReleaseRun {
    std::optional<data::ReleaseOutcome> outcome;
    QString error;
};
struct LedgerRun {
    QString path;  // the ledger read ("" : none chosen and none found)
    QString text;
    QString datasetOfLedger;  // set when the ledger is of another dataset
    bool ok = false;
    bool missing = false;
    PlanLedger ledger;
};

QString fileStem(const QString& s) {
    QString out;
    for (const QChar c : s) {
        out += c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_')
                   ? c
                   : QLatin1Char('-');
    }
    return out.isEmpty() ? QStringLiteral("data") : out;
}

// A path in `dir` named stem + suffix that does not exist yet (stem-2…, stem-3… otherwise).
QString freePath(const QString& dir, const QString& stem, const QString& suffix) {
    QString path = QDir(dir).filePath(stem + suffix);
    for (int i = 2; QFileInfo::exists(path) && i < 1000; ++i) {
        path = QDir(dir).filePath(QStringLiteral("%1-%2%3").arg(stem).arg(i).arg(suffix));
    }
    return path;
}

QString documentsDir() {
    QString d = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return d.isEmpty() ? QDir::homePath() : d;
}

// "1/200" → "0.005" (display only).
QString fractionText(const std::string& fraction) {
    const auto slash = fraction.find('/');
    auto num = parseDecimal(fraction.substr(0, slash));
    auto den = parseDecimal(slash == std::string::npos ? "1" : fraction.substr(slash + 1));
    if (!num || !den || den->sign() == 0) {
        return q(fraction);
    }
    return q(formatNumber(num->toDouble() / den->toDouble()));
}

// An exact rational as a decimal when its denominator divides a power of ten (σ² = 17.8995),
// else empty: messages show decimals, the exact fractions are in the metadata only.
QString exactDecimalText(const Rational& r) {
    BigInt den = r.denominator();
    int twos = 0, fives = 0;
    while (den % 2 == 0) {
        den /= 2;
        ++twos;
    }
    while (den % 5 == 0) {
        den /= 5;
        ++fives;
    }
    if (den != 1) {
        return {};
    }
    const int digits = std::max(twos, fives);
    BigInt scaled = r.numerator();
    for (int i = 0; i < digits; ++i) {
        scaled *= 10;
    }
    scaled /= r.denominator();
    std::string s = scaled.str();
    if (digits == 0) {
        return q(s);
    }
    if (static_cast<int>(s.size()) <= digits) {
        s.insert(0, static_cast<std::size_t>(digits) + 1 - s.size(), '0');
    }
    s.insert(s.size() - static_cast<std::size_t>(digits), 1, '.');
    return q(s);
}

// σ² for a message: its exact decimal when that is short ("= 17.8995 (exact"), else a rounded
// decimal ("≈ 17.8995 ("); never a 30-digit fraction.
QString sigma2Text(const Rational& r) {
    const QString exact = exactDecimalText(r);
    const qsizetype digits =
        std::count_if(exact.begin(), exact.end(), [](QChar c) { return c.isDigit(); });
    if (!exact.isEmpty() && digits <= 12) {
        return QObject::tr("σ² = %1 (exact, ").arg(exact);
    }
    return QObject::tr("σ² ≈ %1 (").arg(q(formatNumber(r.toDouble())));
}

// The style of a refusal or warning: dark red, or a light red on a dark theme (readable on both).
QString errorStyle(const QWidget* w) {
    return w->palette().color(QPalette::Window).lightness() < 128
               ? QStringLiteral("color: #ff8a80;")
               : QStringLiteral("color: #b00020;");
}

QString releasesText(std::size_t n) {
    return n == 1 ? QObject::tr("1 release") : QObject::tr("%1 releases").arg(n);
}

QString ledgerLine(const data::PrivacyLedger& l) {
    return q(data::budgetUsageText(l.usage(), l.totalEpsilon(), l.totalDelta()));
}

// Issue #22: what the Trade-off tab planned on, in PlanOn::computedOn's words; an incomplete
// proxy (a parameter still being typed) is said as such, never as the confidential data.
QString epsilonChosenOnOf(const ExplorerState& s) {
    auto plan = parsePlanOn(s.tradeoff.planOn.toStdString());
    if (!plan) {
        return QStringLiteral("public proxy (incomplete: ") + q(plan.error().message) +
               QLatin1Char(')');
    }
    plan->population = s.tradeoff.planPopulation;
    if (plan->isProxy() && plan->population < 1) {
        return QStringLiteral("public proxy (incomplete: no declared N)");
    }
    return q(plan->computedOn());
}

}  // namespace

ReleaseContext releaseContextOf(const ExplorerState& s, const DatasetResult& r) {
    ReleaseContext c;
    if (!r.error.isEmpty() || !r.histogram) {
        c.error = !r.error.isEmpty()          ? r.error
                  : !r.histogramWhy.isEmpty() ? r.histogramWhy
                                              : QObject::tr(
                                                    "The data are still loading; try again when "
                                                    "the histogram is shown.");
    } else {
        c.histogram = r.histogram;
        if (r.jointTable && r.jointTable->attributeCount() > 1)
            c.table = *r.jointTable;
    }
    // A table of several attributes is released cell by cell (its histogram is the table
    // flattened, one bin per cell "a = x, b = y"): the metadata name every attribute and its bins.
    const QStringList attributes =
        r.attributeColumns.isEmpty() ? QStringList{r.column} : r.attributeColumns;
    c.column = attributes.join(QStringLiteral(" × "));
    c.binsText = r.binningText;
    c.relation = s.data.neighbouring;
    c.cap = r.idColumn.isEmpty() ? 1 : std::max(1, r.cap);
    c.epsilon = s.mechanism.epsilon;
    c.delta = s.mechanism.delta;
    c.budgetEpsilon = s.budget.plan.epsilon;
    c.budgetDelta = s.budget.plan.delta;
    c.budgetComposition = s.budget.plan.composition;
    switch (s.mechanism.kind) {
        case MechanismChoice::Gaussian:
        case MechanismChoice::CountGaussian:
            c.mechanism = ReleaseMechanism::DiscreteGaussian;
            break;
        case MechanismChoice::CountGeometric:
            c.mechanism = ReleaseMechanism::GeometricMatrix;
            break;
        default:
            c.mechanism = ReleaseMechanism::DiscreteLaplace;
    }
    c.postProcessing = s.mechanism.estimator;
    c.confidenceLevel = s.view.intervalLevel;      // issue #22: the window's interval level
    c.samplePopulation = s.view.samplePopulation;  // issue #22: the Histogram tab's sample
    c.designEffect = s.view.designEffect;
    c.epsilonChosenOn = epsilonChosenOnOf(s);  // issue #22: the Trade-off tab's plan
    // n is published in the metadata, so it is never taken from the data (the window's automatic
    // n is the largest count): the document's declared n, else a fixed default to be edited.
    c.groupSize = std::clamp<qint64>(s.mechanism.countN > 0 ? s.mechanism.countN : 100, 1,
                                     kMaxReleaseGroupSize);

    // Bins taken from the data are refused (they reveal which values occur).
    if (r.dataDependent) {
        c.refusal = r.dataDependentText;
    } else if (s.data.source == SourceKind::Example) {
        // Every attribute's bins must be declared (named by column when there are several).
        const ExampleDataset* ex = findExample(s.data.exampleId.toStdString());
        for (std::size_t a = 0; a < s.data.attributeCount() && c.refusal.isEmpty(); ++a) {
            const QString& column = s.data.columnOf(a);
            const ColumnBinning& b = s.data.binningOf(a);
            const bool defaultColumn =
                ex && (column.isEmpty() || column.toStdString() == ex->defaultColumn);
            const bool rangeFromData =
                (b.kind == BinningChoice::EqualWidth || b.kind == BinningChoice::Integer) &&
                b.rangeLo == b.rangeHi;
            if (b.kind == BinningChoice::Auto && !defaultColumn) {
                c.refusal = QObject::tr(
                    "Automatic bins for this column are chosen from its values: "
                    "declare the bins (a range, edges or categories).");
            } else if (rangeFromData) {
                c.refusal = QObject::tr(
                    "The range of the bins is the data's min and max: declare "
                    "it.");
            } else if (b.kind == BinningChoice::Categories && b.categories.isEmpty()) {
                c.refusal = QObject::tr(
                    "The categories are the values found in the data: declare "
                    "the list.");
            }
            if (!c.refusal.isEmpty() && s.data.attributeCount() > 1) {
                c.refusal = QStringLiteral("'%1': %2")
                                .arg(a < static_cast<std::size_t>(attributes.size())
                                         ? attributes[static_cast<qsizetype>(a)]
                                         : column,
                                     c.refusal);
            }
        }
    }
    if (!c.refusal.isEmpty()) {
        c.refusal = QObject::tr(
                        "Refused: the bins depend on the data. %1 Which bins exist would "
                        "itself reveal values, so a release needs bins fixed before the "
                        "data are read.")
                        .arg(c.refusal);
    }

    const QString stem = attributes.join(QLatin1Char('-'));
    switch (s.data.source) {
        case SourceKind::Example: {
            const ExampleDataset* ex = findExample(s.data.exampleId.toStdString());
            const qint64 rows = s.data.exampleRows > 0 ? s.data.exampleRows
                                : ex                   ? ex->defaultRows
                                                       : r.rows;
            c.dataset =
                QStringLiteral("built-in example %1 (%2 rows)").arg(s.data.exampleId).arg(rows);
            c.defaultDir = documentsDir();
            c.ledgerBase = fileStem(s.data.exampleId);
            c.defaultBase = fileStem(s.data.exampleId + QLatin1Char('-') + stem);
            break;
        }
        case SourceKind::Csv:
            c.dataset = QFileInfo(s.data.csvPath).absoluteFilePath();
            c.defaultDir = QFileInfo(s.data.csvPath).absolutePath();
            c.ledgerBase = fileStem(QFileInfo(s.data.csvPath).completeBaseName());
            c.defaultBase =
                fileStem(QFileInfo(s.data.csvPath).completeBaseName() + QLatin1Char('-') + stem);
            break;
        case SourceKind::Sqlite:
            c.dataset = QFileInfo(s.data.sqlitePath).absoluteFilePath() +
                        QStringLiteral(" table ") + r.sqlTable;
            c.defaultDir = QFileInfo(s.data.sqlitePath).absolutePath();
            c.ledgerBase = fileStem(QFileInfo(s.data.sqlitePath).completeBaseName() +
                                    QLatin1Char('-') + r.sqlTable);
            c.defaultBase =
                fileStem(QFileInfo(s.data.sqlitePath).completeBaseName() + QLatin1Char('-') + stem);
            break;
        case SourceKind::Postgres:
            c.dataset = QStringLiteral("postgresql://%1@%2:%3/%4 table %5")
                            .arg(s.data.postgres.user, s.data.postgres.host)
                            .arg(s.data.postgres.port)
                            .arg(s.data.postgres.database, r.sqlTable);
            c.defaultDir = documentsDir();
            c.ledgerBase = fileStem(s.data.postgres.database + QLatin1Char('-') + r.sqlTable);
            c.defaultBase = fileStem(s.data.postgres.database + QLatin1Char('-') + stem);
            break;
    }
    if (attributes.size() <= 1) {
        c.source = QStringLiteral("column '%1' of %2").arg(r.column, c.dataset);
    } else {
        // The metadata's attribute list (releaseTable) holds the bins in full; the source text
        // names them too, for a reader of the ledger: "table of 2 attributes of …: 'sex' (…); …".
        QStringList parts;
        for (qsizetype a = 0; a < attributes.size(); ++a) {
            const auto i = static_cast<std::size_t>(a);
            parts << (i < r.binnings.size() ? QStringLiteral("'%1' (%2)")
                                                  .arg(attributes[a], q(r.binnings[i].describe()))
                                            : QStringLiteral("'%1'").arg(attributes[a]));
        }
        c.source = QStringLiteral(
                       "table of %1 attributes of %2, one cell per combination of "
                       "their bins: %3")
                       .arg(attributes.size())
                       .arg(c.dataset, parts.join(QStringLiteral("; ")));
    }
    return c;
}

// ---------------------------------------------------------------------------------------------

ReleaseDialog::ReleaseDialog(ReleaseContext context, JobRunner* runner, QWidget* parent)
    : QDialog(parent), ctx_(std::move(context)), runner_(runner) {
    setWindowTitle(tr("Release histogram"));
    setObjectName(QStringLiteral("releaseDialog"));
    confirmOverwrite_ = [this](const QStringList& existing) {
        return QMessageBox::question(
                   this, tr("Replace release files?"),
                   tr("These files exist and would be replaced:\n%1\n\nThe ledger keeps the "
                      "entry of the release that wrote them. Replace them?")
                       .arg(existing.join(QLatin1Char('\n'))),
                   QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Yes;
    };
    confirmNewLedger_ = [this](const QStringList& others) {
        return QMessageBox::warning(
                   this, tr("Start a new budget for this dataset?"),
                   tr("The ledger %1 does not exist: releasing creates it with a fresh budget.\n\n"
                      "But this dataset has already been charged to:\n%2\n\nPrivacy loss adds "
                      "up over every release of the same data, whichever ledger records it: a "
                      "second ledger lets the total exceed either budget without any refusal. "
                      "Use the existing ledger unless you know the data are new.\n\nCreate a new "
                      "ledger anyway?")
                       .arg(ledger_->text().trimmed(), others.join(QLatin1Char('\n'))),
                   QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
    };
    report_ = [this](bool ok, const QString& text) {
        if (ok) {
            QMessageBox::information(this, tr("Released"), text);
        } else {
            QMessageBox::warning(this, tr("Release refused"), text);
        }
    };
    previewTimer_ = new QTimer(this);
    previewTimer_->setSingleShot(true);
    previewTimer_->setInterval(150);
    connect(previewTimer_, &QTimer::timeout, this, &ReleaseDialog::runPreview);
    buildUi();
    schedulePreview();
}

void ReleaseDialog::buildUi() {
    // Everything but the status line and the buttons scrolls: with the discrete Gaussian's σ²
    // line, a strategy's lines and a refusal the dialog needs more than a 768-pixel screen.
    auto* outer = new QVBoxLayout(this);
    scroll_ = new QScrollArea;
    scroll_->setObjectName(QStringLiteral("releaseScroll"));
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* intro = new QLabel(
        tr("Publishes the histogram of <b>%1</b> (%2 declared bins; %3) with exact integer noise "
           "drawn from the operating system's random generator, writes it as CSV with a JSON "
           "metadata file, and charges the privacy budget to a ledger. Floating-point Laplace "
           "and Gaussian noise are not offered here: the doubles they produce can give the true "
           "counts away (Mironov 2012), so releases use exact discrete samplers. The window's "
           "seed is not used.")
            .arg(ctx_.column.toHtmlEscaped())
            .arg(ctx_.histogram ? static_cast<qlonglong>(ctx_.histogram->size()) : 0)
            .arg(ctx_.binsText.toHtmlEscaped()));
    if (!ctx_.strategyWorkload.isEmpty()) {
        intro->setText(
            tr("Publishes the histogram of <b>%1</b> (%2 declared bins; %3) through a strategy "
               "designed for the workload <b>%4</b> (the matrix mechanism; HDMM, McKenna, "
               "Miklau, Hay &amp; Machanavajjhala 2018): the strategy is designed from the "
               "declared bins alone and rounded to integer queries, which are measured with "
               "exact discrete Laplace or discrete Gaussian noise (the mechanism below) from the "
               "operating system's random generator; the "
               "published counts are their least-squares inference (the cells, or the "
               "workload's marginals when the strategy does not measure the full table), each "
               "with its own interval. "
               "Written as CSV with a JSON metadata file (the strategy and its noisy "
               "measurements included) and charged to a ledger.")
                .arg(ctx_.column.toHtmlEscaped())
                .arg(ctx_.histogram ? static_cast<qlonglong>(ctx_.histogram->size()) : 0)
                .arg(ctx_.binsText.toHtmlEscaped(), ctx_.strategyWorkload.toHtmlEscaped()));
    }
    intro->setWordWrap(true);
    intro->setObjectName(QStringLiteral("releaseIntro"));
    layout->addWidget(intro);

    auto* refusal = new QLabel;
    refusal->setObjectName(QStringLiteral("releaseRefusal"));
    refusal->setWordWrap(true);
    refusal->setStyleSheet(errorStyle(this));
    refusal->setText(!ctx_.error.isEmpty() ? ctx_.error : ctx_.refusal);
    refusal->setVisible(!refusal->text().isEmpty());
    layout->addWidget(refusal);

    auto* mechBox = new QGroupBox(tr("Mechanism"));
    // The form, then its sentences the whole width under it: a box layout gives a wrapped label
    // the height its width needs (the form's rows overlapped the intervals' sentence with "ε
    // chosen on").
    auto* mechColumn = new QVBoxLayout(mechBox);
    auto* form = new QFormLayout;
    mechColumn->addLayout(form);
    // Rows come and go through FormRows (see form_rows.h).
    mechRows_ = std::make_unique<FormRows>(form);
    mechanism_ = new QComboBox;
    mechanism_->setObjectName(QStringLiteral("releaseMechanism"));
    mechanism_->addItem(tr("Discrete Laplace — ε-DP"), QStringLiteral("discrete-laplace"));
    mechanism_->addItem(tr("Discrete Gaussian — (ε, δ)-DP and ρ-zCDP"),
                        QStringLiteral("discrete-gaussian"));
    mechanism_->addItem(tr("Geometric matrix GM on 0…n — ε-DP"),
                        QStringLiteral("geometric-matrix"));
    mechanism_->setCurrentIndex(mechanism_->findData(q(releaseMechanismName(ctx_.mechanism))));
    mechRows_->addRow(tr("Mechanism:"), mechanism_);
    epsilon_ = new QLineEdit(q(formatShortest(ctx_.epsilon)));
    epsilon_->setObjectName(QStringLiteral("releaseEpsilon"));
    epsilon_->setToolTip(tr("Read exactly as a decimal: 0.1 is 1/10."));
    useRest_ = new QPushButton(tr("Use the rest"));
    useRest_->setObjectName(QStringLiteral("releaseUseRest"));
    useRest_->setToolTip(
        tr("Fill in the largest ε (6 significant digits, rounded down) that the ledger still "
           "accepts for this release: the same mechanism, δ and neighbours"));
    connect(useRest_, &QPushButton::clicked, this, &ReleaseDialog::useTheRest);
    auto* epsilonRow = new QHBoxLayout;
    epsilonRow->addWidget(epsilon_, 1);
    epsilonRow->addWidget(useRest_);
    mechRows_->addRow(tr("ε:"), epsilonRow);
    delta_ = new QLineEdit(q(formatShortest(ctx_.delta)));
    delta_->setObjectName(QStringLiteral("releaseDelta"));
    deltaLabel_ = new QLabel(tr("δ:"));
    mechRows_->addRow(deltaLabel_, delta_);
    groupSize_ = new QSpinBox;
    groupSize_->setObjectName(QStringLiteral("releaseGroupSize"));
    groupSize_->setRange(1, static_cast<int>(kMaxReleaseGroupSize));
    groupSize_->setValue(static_cast<int>(ctx_.groupSize));
    groupSize_->setToolTip(
        tr("Outputs 0…n; true counts above n are released as n. n is "
           "written to the metadata: choose it without looking at the counts "
           "(the window's automatic n, the largest count, is not used)."));
    groupSizeLabel_ = new QLabel(tr("Group size n:"));
    mechRows_->addRow(groupSizeLabel_, groupSize_);
    const QString l2 =
        ctx_.relation == Neighbouring::AddRemove
            ? QString::number(ctx_.cap)
            : (ctx_.cap == 1 ? QStringLiteral("√2") : QStringLiteral("√2·%1").arg(ctx_.cap));
    auto* neighbours = new QLabel(
        tr("Neighbours: %1 (%2): Δ1 = %3, Δ2 = %4.")
            .arg(ctx_.relation == Neighbouring::AddRemove ? tr("Add or remove one person")
                                                          : tr("Replace one person"))
            .arg(ctx_.cap == 1 ? tr("one row per person")
                               : tr("at most %1 rows per person").arg(ctx_.cap))
            .arg(ctx_.relation == Neighbouring::AddRemove ? ctx_.cap : 2 * ctx_.cap)
            .arg(l2));
    neighbours->setObjectName(QStringLiteral("releaseNeighbours"));
    neighbours->setWordWrap(true);
    gaussian_ = new QLabel;
    gaussian_->setObjectName(QStringLiteral("releaseGaussian"));
    gaussian_->setWordWrap(true);
    post_ = new QComboBox;
    post_->setObjectName(QStringLiteral("releasePost"));
    post_->addItem(tr("None (the noisy counts)"), QStringLiteral("identity"));
    post_->addItem(tr("Clamp negatives to 0"), QStringLiteral("clamp"));
    post_->addItem(tr("Resize (project onto the noisy total)"), QStringLiteral("resize"));
    post_->addItem(tr("NoiseFirst (merge bins)"), QStringLiteral("noisefirst"));
    post_->setCurrentIndex(std::max(0, post_->findData(q(estimatorName(ctx_.postProcessing)))));
    post_->setToolTip(
        tr("Applied to the noisy counts only, after the noise: free of privacy "
           "cost."));
    mechRows_->addRow(tr("Post-processing:"), post_);
    confidence_ = new QComboBox;
    confidence_->setObjectName(QStringLiteral("releaseConfidence"));
    for (double level : {0.9, 0.95, 0.99}) {
        confidence_->addItem(q(levelPercentText(level)), level);
    }
    if (confidence_->findData(ctx_.confidenceLevel) < 0) {
        confidence_->addItem(q(levelPercentText(ctx_.confidenceLevel)), ctx_.confidenceLevel);
    }
    confidence_->setCurrentIndex(confidence_->findData(ctx_.confidenceLevel));
    confidence_->setToolTip(
        tr("The level of the intervals the release states: the CSV's lower/upper columns and the "
           "metadata's sentence cover each count before noise with at least this probability."));
    // The level and, on the same row (the dialog must fit a 768-pixel screen), the sample.
    auto* levelRow = new QHBoxLayout;
    levelRow->addWidget(confidence_);
    mechRows_->addRow(tr("Intervals at:"), levelRow);
    // Issue #22: after resize / NoiseFirst, intervals around the noisy counts (they reveal them).
    postIntervals_ = new QCheckBox(tr("State intervals after resize / NoiseFirst"));
    postIntervals_->setObjectName(QStringLiteral("releasePostIntervals"));
    postIntervals_->setToolTip(
        tr("Each bin's interval is then its noisy count before the post-processing ± the noise's "
           "half-width, widened to hold the published value: valid whatever the true counts are, "
           "but the lower/upper columns reveal the noisy counts the post-processing replaces "
           "(no further privacy cost)."));
    mechRows_->addRow(QString(), postIntervals_);
    intervals_ = new QLabel;
    intervals_->setObjectName(QStringLiteral("releaseIntervals"));
    intervals_->setWordWrap(true);
    // σ² and δ achieved of the Gaussian: a sentence under the form like the intervals' (in the
    // form, Qt 6.4 gave the wrapped label the height of another width: two blank lines below).
    // The sentences under the form, the neighbours' first: a wrapped label in the form makes it
    // a height-for-width layout, whose row heights Qt 6.4 keeps from another width (σ² had two
    // blank lines below it there).
    mechColumn->addWidget(neighbours);
    mechColumn->addWidget(gaussian_);
    mechColumn->addWidget(intervals_);
    // Issue #22: the data are a sample of a population (`dpx release --sample-of N
    // --design-effect D`): four more CSV columns and the JSON's "sampling".
    sample_ = new QCheckBox(tr("Sample of"));
    sample_->setObjectName(QStringLiteral("releaseSample"));
    sample_->setToolTip(
        tr("The data are a sample of a population of N people: the release adds, per bin, the "
           "population estimate and the half-widths of its sampling error (Cochran 1977), of "
           "its DP noise and of both, computed from the published values and the declared N and "
           "D only. Not for the truncated geometric matrix, resize, NoiseFirst or a release "
           "through a strategy."));
    sampleN_ = new QDoubleSpinBox;
    sampleN_->setObjectName(QStringLiteral("releaseSampleOf"));
    sampleN_->setDecimals(0);
    sampleN_->setRange(2, 1e15);
    sampleN_->setSingleStep(1000);
    sampleN_->setGroupSeparatorShown(true);
    sampleN_->setSuffix(tr(" people"));
    sampleN_->setValue(ctx_.samplePopulation >= 2 ? ctx_.samplePopulation : 100000);
    sampleD_ = new QDoubleSpinBox;
    sampleD_->setObjectName(QStringLiteral("releaseDesignEffect"));
    sampleD_->setDecimals(2);
    sampleD_->setRange(1, 1e6);
    sampleD_->setSingleStep(0.1);
    sampleD_->setPrefix(tr("design effect "));
    sampleD_->setValue(std::max(1.0, ctx_.designEffect));
    sampleD_->setToolTip(
        tr("1 for a simple random sample; for a weighted survey its documented design effect: "
           "the sampling error uses the effective sample n/D (Kish 1965)."));
    // A row of its own: beside the level it made the form wider than the dialog (it scrolled
    // sideways on a 1024 × 768 screen).
    auto* sampleRow = new QHBoxLayout;
    sampleRow->addWidget(sample_);
    sampleRow->addWidget(sampleN_, 1);
    sampleRow->addWidget(sampleD_, 1);
    mechRows_->addRow(tr("Sampling:"), sampleRow);
    chosenOn_ = new QLabel(chosenOnText());
    chosenOn_->setObjectName(QStringLiteral("releaseChosenOn"));
    chosenOn_->setWordWrap(true);
    chosenOn_->setToolTip(
        tr("Recorded in the metadata as \"epsilon_chosen_on\". Set by the "
           "Trade-off tab's \"Plan on\"."));
    mechColumn->addWidget(chosenOn_);
    strategy_ = new QLabel;
    strategy_->setObjectName(QStringLiteral("releaseStrategy"));
    strategy_->setWordWrap(true);
    strategy_->setVisible(!ctx_.strategyWorkload.isEmpty());
    mechColumn->addWidget(strategy_);
    if (!ctx_.strategyWorkload.isEmpty()) {
        // The strategy's noise is discrete Laplace (on Δ1(K)) or discrete Gaussian (on Δ2(K)) on
        // its integer queries and its inference least squares: the geometric matrix and
        // post-processing do not apply.
        const int gm = mechanism_->findData(QStringLiteral("geometric-matrix"));
        if (mechanism_->currentIndex() == gm) {
            mechanism_->setCurrentIndex(mechanism_->findData(QStringLiteral("discrete-laplace")));
        }
        mechanism_->removeItem(gm);
        mechanism_->setToolTip(
            tr("Noise on the strategy's integer queries: discrete Laplace calibrated on the "
               "strategy's largest column L1 norm, or discrete Gaussian on its largest column L2 "
               "norm (Canonne, Kamath & Steinke 2020)."));
        post_->setCurrentIndex(post_->findData(QStringLiteral("identity")));
        post_->setEnabled(false);
        post_->setToolTip(
            tr("The published counts are the least-squares inference from the "
               "strategy's measurements."));
        strategy_->setText(tr("Designing the strategy…"));
    }
    layout->addWidget(mechBox);

    auto* filesBox = new QGroupBox(tr("Files"));
    auto* files = new QFormLayout(filesBox);
    output_ = new QLineEdit(freePath(ctx_.defaultDir, ctx_.defaultBase + QStringLiteral("-release"),
                                     QStringLiteral(".csv")));
    output_->setObjectName(QStringLiteral("releaseOutput"));
    auto* browseOut = new QPushButton(tr("Browse…"));
    auto* outRow = new QHBoxLayout;
    outRow->addWidget(output_, 1);
    outRow->addWidget(browseOut);
    files->addRow(tr("Release CSV:"), outRow);
    metadataPath_ = new QLabel;
    metadataPath_->setObjectName(QStringLiteral("releaseMetadataPath"));
    metadataPath_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    files->addRow(tr("Metadata:"), metadataPath_);
    ledger_ = new QLineEdit(
        QDir(ctx_.defaultDir).filePath(ctx_.ledgerBase + QStringLiteral("-ledger.json")));
    ledger_->setObjectName(QStringLiteral("releaseLedger"));
    auto* browseLedger = new QPushButton(tr("Browse…"));
    auto* ledgerRow = new QHBoxLayout;
    ledgerRow->addWidget(ledger_, 1);
    ledgerRow->addWidget(browseLedger);
    files->addRow(tr("Ledger:"), ledgerRow);
    layout->addWidget(filesBox);

    auto* budgetBox = new QGroupBox(tr("Privacy budget"));
    // Its sentences above and below the form, in a box layout (as the Mechanism box's): in the form
    // the wrapped ledger line got the height of another width and was cut.
    auto* budgetColumn = new QVBoxLayout(budgetBox);
    budgetNote_ = new QLabel;
    budgetNote_->setWordWrap(true);
    budgetColumn->addWidget(budgetNote_);
    auto* budget = new QFormLayout;
    budgetColumn->addLayout(budget);
    budgetEpsilon_ = new QLineEdit(q(formatShortest(ctx_.budgetEpsilon)));
    budgetEpsilon_->setObjectName(QStringLiteral("releaseBudgetEpsilon"));
    budgetDelta_ = new QLineEdit(q(formatShortest(ctx_.budgetDelta)));
    budgetDelta_->setObjectName(QStringLiteral("releaseBudgetDelta"));
    composition_ = new QComboBox;
    composition_->setObjectName(QStringLiteral("releaseComposition"));
    composition_->addItem(tr("Basic (ε and δ add up)"), QStringLiteral("basic"));
    composition_->addItem(tr("zCDP (ρ adds up; needs δ > 0)"), QStringLiteral("zcdp"));
    composition_->addItem(tr("PLD accountant (Koskela et al. 2020; tight, needs δ > 0)"),
                          QStringLiteral("pld"));
    composition_->setCurrentIndex(std::max(
        0, composition_->findData(QString::fromLatin1(compositionName(ctx_.budgetComposition)))));
    budget->addRow(tr("Total ε:"), budgetEpsilon_);
    budget->addRow(tr("Total δ:"), budgetDelta_);
    budget->addRow(tr("Composition:"), composition_);
    budget_ = new QLabel;
    budget_->setObjectName(QStringLiteral("releaseBudget"));
    budget_->setWordWrap(true);
    budgetColumn->addWidget(budget_);
    newLedgerWarning_ = new QLabel;
    newLedgerWarning_->setObjectName(QStringLiteral("releaseNewLedgerWarning"));
    newLedgerWarning_->setWordWrap(true);
    newLedgerWarning_->setStyleSheet(errorStyle(this));
    newLedgerWarning_->hide();
    useOtherLedger_ = new QPushButton;
    useOtherLedger_->setObjectName(QStringLiteral("releaseUseOtherLedger"));
    useOtherLedger_->hide();
    connect(useOtherLedger_, &QPushButton::clicked, this, [this] {
        if (!otherLedgers_.isEmpty()) {
            ledger_->setText(otherLedgers_.first());
        }
    });
    // Below the box, like the status line: a word-wrapped label in the form gets too little
    // height when it appears.
    auto* useRow = new QHBoxLayout;
    useRow->addWidget(useOtherLedger_);
    useRow->addStretch(1);
    layout->addWidget(budgetBox);
    layout->addWidget(newLedgerWarning_);
    layout->addLayout(useRow);
    layout->addStretch(1);
    scroll_->setWidget(body);
    outer->addWidget(scroll_, 1);

    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("releaseStatus"));
    status_->setWordWrap(true);
    outer->addWidget(status_);

    auto* buttons = new QDialogButtonBox;
    release_ = buttons->addButton(tr("Release"), QDialogButtonBox::AcceptRole);
    release_->setObjectName(QStringLiteral("releaseButton"));
    release_->setDefault(true);
    buttons->addButton(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(release_, &QPushButton::clicked, this, &ReleaseDialog::startRelease);
    outer->addWidget(buttons);

    connect(browseOut, &QPushButton::clicked, this, &ReleaseDialog::browseOutput);
    connect(browseLedger, &QPushButton::clicked, this, &ReleaseDialog::browseLedger);
    connect(mechanism_, &QComboBox::currentIndexChanged, this, &ReleaseDialog::schedulePreview);
    connect(post_, &QComboBox::currentIndexChanged, this, &ReleaseDialog::schedulePreview);
    connect(confidence_, &QComboBox::currentIndexChanged, this, &ReleaseDialog::schedulePreview);
    connect(postIntervals_, &QCheckBox::toggled, this, &ReleaseDialog::schedulePreview);
    connect(sample_, &QCheckBox::toggled, this, [this](bool on) {
        sampleN_->setEnabled(on);
        sampleD_->setEnabled(on);
        schedulePreview();
    });
    connect(sampleN_, &QDoubleSpinBox::valueChanged, this, &ReleaseDialog::schedulePreview);
    connect(sampleD_, &QDoubleSpinBox::valueChanged, this, &ReleaseDialog::schedulePreview);
    const auto enablePostIntervals = [this] {
        const QString p = post_->currentData().toString();
        postIntervals_->setEnabled(p == QStringLiteral("resize") ||
                                   p == QStringLiteral("noisefirst"));
    };
    connect(post_, &QComboBox::currentIndexChanged, this, enablePostIntervals);
    enablePostIntervals();
    connect(composition_, &QComboBox::currentIndexChanged, this, &ReleaseDialog::schedulePreview);
    connect(groupSize_, &QSpinBox::valueChanged, this, &ReleaseDialog::schedulePreview);
    for (QLineEdit* e : {epsilon_, delta_, output_, ledger_, budgetEpsilon_, budgetDelta_}) {
        connect(e, &QLineEdit::textChanged, this, &ReleaseDialog::schedulePreview);
    }
    showSampling(std::nullopt, {});
    setMinimumWidth(680);
    resize(680, 400);  // showEvent fits the height to the contents, up to the screen's
}

void ReleaseDialog::showEvent(QShowEvent* e) {
    QDialog::showEvent(e);
    fitHeight();
}

ReleaseMechanism ReleaseDialog::mechanism() const {
    return releaseMechanismFromName(mechanism_->currentData().toString().toStdString()).value();
}

void ReleaseDialog::setLedgerPath(const QString& path) {
    ledger_->setText(path);
}

void ReleaseDialog::setOutputPath(const QString& path) {
    output_->setText(path);
}

Expected<data::ReleaseRequest> ReleaseDialog::request() const {
    data::ReleaseRequest r;
    const ReleaseMechanism m = mechanism();
    r.spec.mechanism = m;
    r.spec.epsilon = epsilon_->text().trimmed().toStdString();
    r.spec.delta =
        m == ReleaseMechanism::DiscreteGaussian ? delta_->text().trimmed().toStdString() : "";
    r.spec.groupSize = m == ReleaseMechanism::GeometricMatrix ? groupSize_->value() : 0;
    r.spec.relation = ctx_.relation;
    r.spec.contributionCap = ctx_.cap;
    auto post = estimatorFromName(post_->currentData().toString().toStdString());
    if (!post) {
        return post.error();
    }
    r.spec.postProcessing = *post;
    r.spec.confidenceLevel = confidence_->currentData().toDouble();
    r.spec.postProcessedIntervals = postIntervals_->isEnabled() && postIntervals_->isChecked();
    r.spec.epsilonChosenOn = ctx_.epsilonChosenOn.toStdString();
    if (sample_->isChecked()) {
        if (!ctx_.strategyWorkload.isEmpty()) {
            return Error{
                "sample of: sampling intervals are not stated for a release through a strategy "
                "(its cells are least-squares estimates); untick \"Sample of\""};
        }
        r.spec.samplePopulation = sampleN_->value();
        r.spec.designEffect = sampleD_->value();
    }
    r.previewBins = ctx_.histogram ? ctx_.histogram->size() : 0;
    if (!ctx_.strategyWorkload.isEmpty()) {
        auto workload = WorkloadSpec::parse(ctx_.strategyWorkload.toStdString());
        if (!workload) {
            return Error{"strategy workload: " + workload.error().message};
        }
        StrategyOptimizeOptions options;
        options.restarts = ctx_.strategyRestarts;
        options.seed = ctx_.strategySeed;
        options.measurement = strategyMeasurementFor(m);
        r.planStrategy = strategyPlanner(*workload, ctx_.strategyTemplate, ctx_.strategyP, options);
        if (ctx_.table) {
            for (auto n : ctx_.table->shape()) {
                r.previewShape.push_back(static_cast<std::size_t>(n));
            }
        }
        // Designed by the last preview (empty before the first); a plan designed for the other
        // noise law (the mechanism changed since) is planned again.
        if (plan_ && plan_->measurement == options.measurement) {
            r.strategy = plan_;
        }
    }
    const QString version = QCoreApplication::applicationVersion();
    r.spec.appVersion = "dpexplorer " + (version.isEmpty() ? std::string("(version unknown)")
                                                           : version.toStdString());
    r.spec.source = ctx_.source.toStdString();
    r.dataset = ctx_.dataset.toStdString();
    r.csvPath = output_->text().trimmed().toStdString();
    r.jsonPath = data::metadataPathFor(r.csvPath);
    r.ledgerPath = ledger_->text().trimmed().toStdString();
    if (!r.csvPath.empty() && !QFileInfo(output_->text().trimmed()).isAbsolute()) {
        return Error{"the release CSV needs a full path (use Browse…)"};
    }
    if (!r.ledgerPath.empty() && !QFileInfo(ledger_->text().trimmed()).isAbsolute()) {
        return Error{"the ledger needs a full path (use Browse…)"};
    }
    if (budgetEpsilon_->isEnabled()) {
        data::LedgerBudgetText total;
        total.epsilon = budgetEpsilon_->text().trimmed().toStdString();
        total.delta = budgetDelta_->text().trimmed().toStdString();
        r.newBudget = total;
        auto chosen = compositionFromName(composition_->currentData().toString().toStdString());
        r.composition = chosen ? *chosen : Composition::Basic;
    }
    return r;
}

void ReleaseDialog::schedulePreview() {
    const ReleaseMechanism m = mechanism();
    const bool gaussian = m == ReleaseMechanism::DiscreteGaussian;
    delta_->setEnabled(gaussian);
    deltaLabel_->setEnabled(gaussian);
    delta_->setToolTip(gaussian ? tr("Read exactly as a decimal.")
                                : tr("Discrete Laplace and GM are pure ε-DP: no δ."));
    mechRows_->setRowShown(groupSize_, m == ReleaseMechanism::GeometricMatrix);
    gaussian_->setVisible(gaussian);
    const std::string csv = output_->text().trimmed().toStdString();
    metadataPath_->setText(csv.empty() ? QString() : q(data::metadataPathFor(csv)));
    // The budget fields apply only while the ledger does not exist; enable them at once when the
    // path changes to a new file (the preview confirms).
    const bool exists = QFileInfo::exists(ledger_->text().trimmed());
    ledgerExists_ = exists;
    for (QWidget* w : std::initializer_list<QWidget*>{budgetEpsilon_, budgetDelta_, composition_}) {
        w->setEnabled(!exists);
    }
    budgetNote_->setText(exists ? tr("The ledger exists: its total and composition were fixed "
                                     "when it was created.")
                                : tr("The ledger does not exist yet: it will be created with "
                                     "this total."));
    previewPending_ = true;
    previewOk_ = false;
    updateEnabled();
    previewTimer_->start();
}

void ReleaseDialog::runPreview() {
    if (!ctx_.error.isEmpty()) {
        previewPending_ = false;
        showPreview(std::nullopt, ctx_.error);
        return;
    }
    auto req = request();
    if (!req) {
        previewPending_ = false;
        showSampling(std::nullopt, {});
        showPreview(std::nullopt, q(req.error().message));
        return;
    }
    data::ReleaseRequest r = std::move(req).value();
    QPointer<ReleaseDialog> self(this);
    const QStringList known = knownLedgers();  // settings: read on the GUI thread
    // The sampling preview (issue #22) for a bin of half a sample of the data's size: the widest
    // sampling error. Shown to the data holder only, before anything is released; the release
    // itself takes n from the sum of its published values.
    double rows = 0;
    if (ctx_.histogram) {
        for (std::size_t i = 0; i < ctx_.histogram->size(); ++i) {
            rows += static_cast<double>(ctx_.histogram->counts()[i]);
        }
    }
    runner_->run<PreviewRun>(
        kPreviewSlot,
        [r, known, rows](std::stop_token, JobProgress&) {
            PreviewRun out;
            out.ledgerPath = q(r.ledgerPath);
            auto p = data::previewRelease(r);
            if (p) {
                out.preview = std::move(p).value();
            } else {
                out.error = q(p.error().message);
            }
            if (out.preview && r.spec.samplePopulation > 0) {
                const std::vector<double> halves{rows / 2, rows / 2};
                auto sm = releaseSamplingIntervals(r.spec, halves);
                if (sm) {
                    out.sampling = std::move(sm).value();
                } else {
                    out.samplingError = q(sm.error().message);
                }
            }
            if (out.preview && !out.preview->ledgerExists) {
                // A new ledger: has another one already charged this dataset?
                for (const KnownLedger& k : ledgersOfDataset(known, r.dataset, out.ledgerPath)) {
                    if (k.ledger.releases().empty()) {
                        continue;
                    }
                    out.otherPaths << k.path;
                    out.otherLines << QObject::tr("%1 (%2): %3")
                                          .arg(k.path, releasesText(k.ledger.releases().size()),
                                               ledgerLine(k.ledger));
                }
            }
            return out;
        },
        [self](PreviewRun run) {
            if (!self || self->previewTimer_->isActive()) {
                return;  // a newer preview is scheduled
            }
            self->previewPending_ = false;
            self->showSampling(run.sampling, run.samplingError);
            self->showPreview(run.preview, run.error, run.ledgerPath, run.otherPaths,
                              run.otherLines);
        });
}

void ReleaseDialog::showPreview(const std::optional<data::ReleasePreview>& p, const QString& error,
                                const QString& ledgerPath, const QStringList& otherPaths,
                                const QStringList& otherLines) {
    existing_.clear();
    previewOk_ = false;
    gaussian_->clear();
    intervals_->clear();
    intervals_->setToolTip(QString());
    checkedLedger_ = ledgerPath;
    otherLedgers_ = otherPaths;
    otherLedgerLines_ = otherLines;
    newLedgerWarning_->setVisible(!otherPaths.isEmpty());
    useOtherLedger_->setVisible(!otherPaths.isEmpty());
    if (!otherPaths.isEmpty()) {
        newLedgerWarning_->setText(
            tr("Warning: this dataset has already been charged to %1 — %2. The ledger above is "
               "new: releasing would start a fresh budget, and the privacy loss of both ledgers "
               "adds up. You will be asked to confirm.")
                .arg(otherPaths.size() == 1 ? tr("another ledger") : tr("other ledgers"),
                     otherLines.join(QStringLiteral("; "))));
        useOtherLedger_->setText(tr("Use %1").arg(QFileInfo(otherPaths.first()).fileName()));
    }
    if (!p) {
        budget_->clear();
        status_->setStyleSheet(errorStyle(this));
        status_->setText(tr("Cannot release: %1").arg(error));
        if (!ctx_.strategyWorkload.isEmpty()) {
            strategy_->setText(tr("No strategy: %1").arg(error));
        }
    } else {
        if (p->strategy) {
            plan_ = p->strategy;
            const IntegerStrategy& k = *p->strategy->strategy;
            strategy_->setText(
                tr("Strategy: %1, measured as %2 (its error %3 % above the designed one); "
                   "expected RMSE on the %4 queries of %5: %6 at this ε.")
                    .arg(q(p->strategy->templateName), q(k.describe()))
                    .arg(q(formatNumber(
                        100 * std::max(0.0, k.designObjective > 0
                                                ? k.roundedObjective / k.designObjective - 1
                                                : 0.0))))
                    .arg(static_cast<qlonglong>(p->strategy->workload->queryCount()))
                    .arg(q(p->strategy->workload->describe()))
                    .arg(q(formatNumber(p->strategyRmse))));
            // What the release will publish: the cells, or the workload's marginals when the
            // strategy does not determine the cells (an OPT_M design without the full table).
            std::vector<std::string> names;
            if (ctx_.table) {
                for (const Attribute& a : ctx_.table->attributes()) {
                    names.push_back(a.name);
                }
            }
            strategy_->setText(
                strategy_->text() + QLatin1Char(' ') +
                tr("Publishes %1.").arg(q(strategyPublishedText(*p->strategy, names))));
        }
        if (p->intervals) {
            // Issue #22: the sentences the release will state, before it is made.
            intervals_->setText(
                tr("%1 %2").arg(q(p->intervals->sentence), q(p->intervals->simultaneousSentence)));
            intervals_->setToolTip(
                tr("Per bin: %1\nAll bins at once: %2")
                    .arg(q(p->intervals->method), q(p->intervals->simultaneousMethod)));
            if (!samplingSentence_.isEmpty()) {  // issue #22: the data declared a sample
                intervals_->setText(intervals_->text() + QLatin1Char(' ') + samplingSentence_);
                if (!samplingTip_.isEmpty()) {
                    intervals_->setToolTip(intervals_->toolTip() + QLatin1Char('\n') +
                                           samplingTip_);
                }
            }
        } else if (ctx_.histogram) {
            intervals_->setText(
                tr("No interval is stated after resize or NoiseFirst: they change each value by "
                   "an amount that depends on every bin, which the noise law alone does not "
                   "bound. Choose none or clamp for lower/upper columns, or state intervals "
                   "around the noisy counts (the box above)."));
        }
        if (p->gaussian) {
            const auto& g = *p->gaussian;
            gaussian_->setText(
                tr("%1noise sd %2), ρ = Δ2²/(2σ²) = %3, δ achieved = %4 at ε = %5 (%6)")
                    .arg(sigma2Text(g.sigma2))
                    .arg(q(formatNumber(std::sqrt(g.sigma2.toDouble()))))
                    .arg(q(formatNumber(g.rho.toDouble())))
                    .arg(q(formatNumber(g.delta)))
                    .arg(epsilon_->text().trimmed())
                    .arg(ctx_.relation == Neighbouring::AddRemove && ctx_.cap == 1 &&
                                 ctx_.strategyWorkload.isEmpty()  // a strategy: many rows change
                             ? tr("exact, CKS 2020 Thm 7")
                             : tr("from ρ-zCDP, CKS 2020 Cor. 13")));
        }
        const QString cost =
            p->composition == Composition::Zcdp ? tr("costs ρ = %1").arg(fractionText(p->cost.rho))
            : p->composition == Composition::Pld
                ? tr("(ε = %1, δ = %2 alone) is composed with the others by the PLD accountant")
                      .arg(q(p->cost.epsilon), q(p->cost.delta))
                : (p->cost.delta == "0"
                       ? tr("costs ε = %1").arg(q(p->cost.epsilon))
                       : tr("costs ε = %1, δ = %2").arg(q(p->cost.epsilon), q(p->cost.delta)));
        QString now;
        if (p->ledgerExists) {
            now = tr("Ledger (%1 composition, %2): %3 now.")
                      .arg(q(compositionName(p->composition)), releasesText(p->releasesInLedger),
                           q(data::budgetUsageText(p->before, p->totalEpsilon, p->totalDelta)));
        } else {
            now =
                tr("New ledger (%1 composition), total ε = %2, δ = %3.")
                    .arg(q(compositionName(p->composition)), q(p->totalEpsilon), q(p->totalDelta));
        }
        if (p->after) {
            budget_->setText(
                tr("%1 This release %2; after it: %3.")
                    .arg(now, cost,
                         q(data::budgetUsageText(*p->after, p->totalEpsilon, p->totalDelta))));
            previewOk_ = true;
            for (const std::string& f : p->existingFiles) {
                existing_ << q(f);
            }
            status_->setStyleSheet(QString());
            status_->setText(existing_.isEmpty()
                                 ? tr("Ready to release.")
                                 : tr("%1 exists: you will be asked before it is replaced.")
                                       .arg(existing_.join(tr(" and "))));
        } else {
            budget_->setText(tr("%1 This release %2.").arg(now, cost));
            status_->setStyleSheet(errorStyle(this));
            std::string why = p->refusal;
            const std::string prefix = "release refused: ";
            if (why.rfind(prefix, 0) == 0) {
                why = why.substr(prefix.size());
            }
            status_->setText(tr("Refused by the ledger: %1").arg(q(why)));
        }
        if (p->ledgerExists) {
            // Show the ledger's own total (the fields are disabled: it was fixed at creation).
            const QSignalBlocker b1(budgetEpsilon_), b2(budgetDelta_), b3(composition_);
            budgetEpsilon_->setText(q(p->totalEpsilon));
            budgetDelta_->setText(q(p->totalDelta));
            composition_->setCurrentIndex(std::max(
                0, composition_->findData(QLatin1String(compositionName(p->composition)))));
        }
    }
    updateEnabled();
    fitHeight();
    if (ledgerExists_) {
        Q_EMIT ledgerChosen(ledger_->text().trimmed());
    }
    if (p && p->ledgerExists && !ledgerPath.isEmpty()) {
        rememberLedger(ledgerPath);
        Q_EMIT ledgerAccepted(ledgerPath);  // intact and of this dataset (previewRelease checks)
    }
    Q_EMIT previewUpdated();
}

void ReleaseDialog::useTheRest() {
    auto req = request();
    if (!req) {
        status_->setStyleSheet(errorStyle(this));
        status_->setText(tr("Cannot compute the rest: %1").arg(q(req.error().message)));
        return;
    }
    data::ReleaseRequest r = std::move(req).value();
    useRest_->setEnabled(false);
    status_->setStyleSheet(QString());
    status_->setText(tr("Computing the largest ε the ledger accepts…"));
    QPointer<ReleaseDialog> self(this);
    // A bisection over calibrations for the discrete Gaussian under zCDP: on the runner.
    runner_->run<RestRun>(
        kRestSlot,
        [r](std::stop_token, JobProgress&) {
            RestRun out;
            auto e = data::spendableEpsilon(r);
            if (e) {
                out.epsilon = q(*e);
            } else {
                out.error = q(e.error().message);
            }
            return out;
        },
        [self](RestRun run) {
            if (!self) {
                return;
            }
            self->useRest_->setEnabled(true);
            if (!run.error.isEmpty()) {
                self->status_->setStyleSheet(errorStyle(self));
                self->status_->setText(tr("No ε left to use: %1").arg(run.error));
                return;
            }
            self->epsilon_->setText(run.epsilon);  // previews again
        });
}

void ReleaseDialog::closeEvent(QCloseEvent* e) {
    if (releasing_) {
        status_->setText(tr("Releasing… the dialog can be closed when the files are written."));
        e->ignore();
        return;
    }
    QDialog::closeEvent(e);
}

void ReleaseDialog::reject() {
    if (releasing_) {
        status_->setText(tr("Releasing… the dialog can be closed when the files are written."));
        return;
    }
    QDialog::reject();
}

void ReleaseDialog::fitHeight() {
    // Word-wrapped lines grow with their text: never cut them off. The form layout underestimates
    // wrapped lines under one another (σ², the intervals, what ε was chosen on, the strategy): once
    // laid out at their final width, each gets its height for that width as a minimum.
    // Twice: a label that just appeared (σ² when the mechanism becomes the discrete Gaussian) only
    // has its final width after the first pass, and the others' widths can change with it. The
    // scrolled contents have a layout of their own, activated too: with the dialog's alone the
    // labels kept the width of an earlier pass (narrower, beside a scroll bar), and σ² kept the
    // height of four lines for its two, a blank line above it and one below.
    // The labels' new minimum heights reach the group boxes around them through posted layout
    // requests: delivered first, or the contents' height for width is the one before them (the
    // refused dialog came out one line short, its last ledger line behind a scroll bar).
    const auto fitLabels = [this] {
        for (int pass = 0; pass < 2; ++pass) {
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            layout()->activate();
            scroll_->widget()->layout()->activate();
            for (QLabel* l : {gaussian_, intervals_, chosenOn_, strategy_, budgetNote_, budget_}) {
                const bool shown = l->isVisibleTo(this) && !l->text().isEmpty() && l->width() > 200;
                l->setMinimumHeight(shown ? l->heightForWidth(l->width()) : 0);
            }
        }
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        layout()->activate();
        scroll_->widget()->layout()->activate();
    };
    fitLabels();
    if (!isVisible()) {
        return;  // the scroll area's viewport has its size once shown (showEvent)
    }
    // As tall as the contents need, up to the screen's height (less its title bar); beyond that
    // the contents scroll. Growing can take the scroll bar away and widen the labels (fewer
    // lines): fit them again at that width.
    for (int round = 0; round < 2; ++round) {
        const int needed =
            height() - scroll_->viewport()->height() +
            scroll_->widget()->layout()->totalHeightForWidth(scroll_->viewport()->width());
        const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
        const int frame = std::max(frameGeometry().height() - height(), 0);
        const int most = s ? s->availableGeometry().height() - frame : needed;
        const int target = std::min(needed, most);
        if (target > height()) {
            resize(width(), target);
        } else if (height() > most) {
            resize(width(), most);
        } else {
            break;
        }
        fitLabels();
    }
}

void ReleaseDialog::updateEnabled() {
    release_->setEnabled(canRelease());
    release_->setText(releasing_ ? tr("Releasing…") : tr("Release"));
}

bool ReleaseDialog::canRelease() const {
    return ctx_.error.isEmpty() && ctx_.refusal.isEmpty() && ctx_.histogram && previewOk_ &&
           !previewPending_ && !releasing_;
}

bool ReleaseDialog::previewPending() const {
    return previewPending_;
}
QString ReleaseDialog::budgetText() const {
    return budget_->text();
}
QString ReleaseDialog::gaussianText() const {
    return gaussian_->text();
}
QString ReleaseDialog::chosenOnText() const {
    const QString on = ctx_.epsilonChosenOn;
    if (on == QLatin1String("confidential data")) {
        return tr(
            "ε chosen on: the confidential data (the Trade-off tab's curves were computed on "
            "it, so the choice of ε depends on the data).");
    }
    const QString prefix = QStringLiteral("public proxy: ");
    if (on.startsWith(prefix)) {
        return tr("ε chosen on: public proxy (%1).").arg(on.mid(prefix.size()));
    }
    return tr("ε chosen on: %1.").arg(on);
}

QString ReleaseDialog::strategyText() const {
    return strategy_->text();
}

QString ReleaseDialog::intervalText() const {
    return intervals_->text();
}

QString ReleaseDialog::samplingText() const {
    return samplingSentence_;
}

void ReleaseDialog::setSample(bool on, double population, double designEffect) {
    sampleN_->setValue(population);
    sampleD_->setValue(designEffect);
    sample_->setChecked(on);
    schedulePreview();
}

void ReleaseDialog::showSampling(const std::optional<ReleaseSamplingStatement>& sampling,
                                 const QString& error) {
    // The sentence goes after the intervals' (showPreview, which runs next): one label less.
    sampleN_->setEnabled(sample_->isChecked());
    sampleD_->setEnabled(sample_->isChecked());
    samplingSentence_.clear();
    samplingTip_.clear();
    if (!sample_->isChecked()) {
        return;
    }
    if (sampling && !sampling->sampling.empty()) {
        const ReleaseSamplingStatement& sm = *sampling;
        samplingSentence_ =
            tr("Sample of N = %1%2: a bin of half a sample of %3 rows is within ±%4 from "
               "sampling, ±%5 from DP noise, ±%6 from both (%7; each bin's in the CSV).")
                .arg(QLocale().toString(sm.populationSize, 'f', 0))
                .arg(sm.designEffect != 1
                         ? tr(", design effect %1").arg(q(formatShortest(sm.designEffect)))
                         : QString())
                .arg(QLocale().toString(sm.sampleSize, 'f', 0))
                .arg(q(halfWidthText(sm.sampling[0])), q(halfWidthText(sm.noise[0])),
                     q(halfWidthText(sm.combined[0])), q(levelPercentText(sm.level)));
        samplingTip_ =
            tr("Sampling (previewed for a bin holding half of a sample of the data's size, the "
               "widest sampling error; the release takes n from the sum of its published "
               "values): %1")
                .arg(q(sm.method));
    } else if (!error.isEmpty()) {
        samplingSentence_ = tr("No sampling interval: %1").arg(error);
    }
}
QString ReleaseDialog::statusText() const {
    return status_->text();
}
QString ReleaseDialog::newLedgerWarning() const {
    return newLedgerWarning_->isHidden() ? QString() : newLedgerWarning_->text();
}

void ReleaseDialog::startRelease() {
    if (!ctx_.refusal.isEmpty() || !ctx_.error.isEmpty() || !ctx_.histogram) {
        report_(false, !ctx_.error.isEmpty() ? ctx_.error : ctx_.refusal);
        return;
    }
    if (releasing_) {
        return;
    }
    auto req = request();
    if (!req) {
        report_(false, q(req.error().message));
        return;
    }
    data::ReleaseRequest r = std::move(req).value();
    if (!QFileInfo::exists(q(r.ledgerPath))) {
        // A new ledger: only once the preview has looked for ledgers that already charged this
        // dataset, and with the user's confirmation if it found any.
        if (checkedLedger_ != q(r.ledgerPath) || previewPending_) {
            status_->setText(
                tr("Checking the ledgers used before for this dataset… click Release again when "
                   "the preview is shown."));
            schedulePreview();
            return;
        }
        if (!otherLedgerLines_.isEmpty() && !confirmNewLedger_(otherLedgerLines_)) {
            status_->setText(
                tr("Not released: no new ledger was created (use the existing one above)."));
            return;
        }
    }
    QStringList existing;
    for (const std::string& f : {r.csvPath, r.jsonPath}) {
        if (QFileInfo::exists(q(f))) {
            existing << q(f);
        }
    }
    if (!existing.isEmpty()) {
        if (!confirmOverwrite_(existing)) {
            status_->setText(tr("Not released: the existing files were kept."));
            return;
        }
        r.overwrite = true;
    }
    // The truth is a copy of the histogram shown when the dialog opened, with its declared bins.
    data::ReleaseTruth truth{*ctx_.histogram, true, ctx_.source.toStdString(), ctx_.table};
    r.loadTruth = [truth]() -> Expected<data::ReleaseTruth> { return truth; };
    releasing_ = true;
    updateEnabled();
    status_->setStyleSheet(QString());
    status_->setText(tr("Releasing…"));
    QPointer<ReleaseDialog> self(this);
    const QString ledger = q(r.ledgerPath);
    // No label: the status bar's Cancel must not drop a release whose files are being written.
    runner_->run<ReleaseRun>(
        kReleaseSlot,
        [r](std::stop_token, JobProgress&) {
            ReleaseRun out;
            auto o = data::runRelease(r);
            if (o) {
                out.outcome = std::move(o).value();
            } else {
                out.error = q(o.error().message);
            }
            return out;
        },
        [self, ledger, r](ReleaseRun run) {
            if (!self) {
                return;
            }
            self->releasing_ = false;
            if (run.outcome) {
                const auto& o = *run.outcome;
                const bool marginals = o.release.metadata.strategy &&
                                       !o.release.metadata.strategy->publishedMarginals.empty();
                QString text =
                    (marginals ? tr("Released %1 marginal counts (the workload's marginals) with "
                                    "%2 (%3).\n\nWritten:\n%4\n%5\n\nLedger %6%7:\n%8")
                               : tr("Released %1 bins with %2 (%3).\n\nWritten:\n%4\n%5\n\n"
                                    "Ledger %6%7:\n%8"))
                        .arg(o.release.values.size())
                        .arg(q(o.release.metadata.mechanism), q(o.release.metadata.noiseParameter),
                             q(o.csvPath), q(o.jsonPath), q(o.ledgerPath),
                             o.ledgerCreated ? tr(" (created)") : QString(),
                             q(data::budgetUsageText(o.usage, o.totalEpsilon, o.totalDelta)));
                // What this run resolved of an earlier, interrupted release (issue #17).
                if (!o.recoveryNotes.empty()) {
                    text += tr("\n\nAn earlier release on this ledger had been interrupted:");
                    for (const std::string& note : o.recoveryNotes) {
                        text += QStringLiteral("\n• ") + q(note);
                    }
                }
                self->status_->setText(tr("Released to %1.").arg(q(o.csvPath)));
                rememberLedger(ledger);
                if (self->onReleased_) {
                    self->onReleased_(o, r);
                }
                Q_EMIT self->releaseFinished(true, ledger);
                Q_EMIT self->ledgerAccepted(ledger);
                self->report_(true, text);
            } else {
                self->status_->setStyleSheet(errorStyle(self));
                // A failure after the budget was charged says what became of the charge (withdrawn,
                // or kept as "charged, not published"); anything else wrote nothing.
                const bool afterCharge =
                    run.error.contains(QStringLiteral("charge was withdrawn")) ||
                    run.error.contains(QStringLiteral("stays charged"));
                if (afterCharge) {
                    self->status_->setText(tr("Failed: %1").arg(run.error));
                    self->report_(false, tr("The release failed:\n\n%1").arg(run.error));
                } else {
                    self->status_->setText(tr("Refused: %1 Nothing was written.").arg(run.error));
                    self->report_(false, tr("The release was refused and nothing was "
                                            "written:\n\n%1")
                                             .arg(run.error));
                }
                Q_EMIT self->releaseFinished(false, ledger);
            }
            self->schedulePreview();
        });
}

void ReleaseDialog::browseOutput() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Release CSV"), output_->text(), tr("CSV files (*.csv)"), nullptr,
        QFileDialog::DontConfirmOverwrite);  // the dialog asks before replacing, once
    if (!path.isEmpty()) {
        output_->setText(path);
    }
}

void ReleaseDialog::browseLedger() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Privacy-budget ledger (new or existing)"), ledger_->text(),
        tr("Ledger files (*.json)"), nullptr, QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty()) {
        ledger_->setText(path);
    }
}

// ---------------------------------------------------------------------------------------------

ReleaseController::ReleaseController(std::function<ReleaseContext()> context, JobRunner* runner,
                                     QWidget* window)
    : QObject(window), context_(std::move(context)), runner_(runner), window_(window) {
    action_ = new QAction(tr("&Release histogram…"), this);
    action_->setObjectName(QStringLiteral("releaseAction"));
    action_->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+R")));
    action_->setToolTip(
        tr("Publish the current histogram with exact noise from the OS random "
           "generator, and charge it to a privacy-budget ledger"));
    connect(action_, &QAction::triggered, this, [this] { (void)open(); });
    exporter_ = new DecisionReportExporter(runner, window);
    label_ = new ElidedLabel;
    label_->setObjectName(QStringLiteral("ledgerStatus"));
    label_->setText(tr("No ledger"));
    label_->setToolTip(
        tr("The privacy-budget ledger of the dataset shown (File → Release "
           "histogram…)"));
    // A release from a terminal (`dpx release`) rewrites the ledger: show it again. The ledger is
    // replaced by a rename, so its directory is watched too.
    watcher_ = new QFileSystemWatcher(this);
    changed_ = new QTimer(this);
    changed_->setSingleShot(true);
    changed_->setInterval(200);
    connect(changed_, &QTimer::timeout, this, &ReleaseController::refreshLedger);
    connect(watcher_, &QFileSystemWatcher::fileChanged, changed_, qOverload<>(&QTimer::start));
    connect(watcher_, &QFileSystemWatcher::directoryChanged, changed_, qOverload<>(&QTimer::start));
}

ReleaseDialog* ReleaseController::open(const std::function<void(ReleaseContext&)>& adjust) {
    if (dialog_) {
        dialog_->raise();
        dialog_->activateWindow();
        return dialog_;
    }
    ReleaseContext context = context_();
    if (adjust) {
        adjust(context);
    }
    dialog_ = new ReleaseDialog(std::move(context), runner_, window_);
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    if (!ledgerPath().isEmpty()) {
        dialog_->setLedgerPath(ledgerPath());
    }
    connect(dialog_, &ReleaseDialog::releaseFinished, this,
            [this](bool, const QString& ledger) { setLedgerPath(ledger); });
    connect(dialog_, &ReleaseDialog::ledgerChosen, this, [this](const QString& ledger) {
        if (ledger != ledgerPath()) {
            setLedgerPath(ledger);
        }
    });
    connect(dialog_, &ReleaseDialog::ledgerAccepted, this, &ReleaseController::ledgerAccepted);
    dialog_->setOnReleased([this](const data::ReleaseOutcome& o, const data::ReleaseRequest& r) {
        exporter_->setLastRelease(o, r.spec, r.dataset);
    });
    connect(dialog_, &QObject::destroyed, this, [this] { dialog_ = nullptr; });
    dialog_->show();
    return dialog_;
}

void ReleaseController::setDataset(const QString& dataset, const QString& chosenLedger) {
    if (dataset == dataset_ && chosenLedger == ledgerPath_ && !shownPath_.isEmpty()) {
        return;
    }
    dataset_ = dataset;
    ledgerPath_ = chosenLedger;
    refreshLedger();
}

void ReleaseController::setLedgerPath(const QString& path) {
    ledgerPath_ = path;
    refreshLedger();
}

void ReleaseController::watch(const QString& path) {
    if (!watcher_->files().isEmpty()) {
        watcher_->removePaths(watcher_->files());
    }
    if (!watcher_->directories().isEmpty()) {
        watcher_->removePaths(watcher_->directories());
    }
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo::exists(path)) {
        watcher_->addPath(path);
    }
    const QString dir = QFileInfo(path).absolutePath();
    if (QFileInfo(dir).isDir()) {
        watcher_->addPath(dir);
    }
}

void ReleaseController::refreshLedger() {
    const QString chosen = ledgerPath_;
    const QString dataset = dataset_;
    // The ledgers used before, to find this dataset's when none is chosen (settings: GUI thread).
    const QStringList known = chosen.isEmpty() ? knownLedgers() : QStringList();
    QPointer<ReleaseController> self(this);
    runner_->run<LedgerRun>(
        kLedgerSlot,
        [chosen, dataset, known](std::stop_token, JobProgress&) {
            LedgerRun out;
            out.path = chosen;
            if (chosen.isEmpty()) {
                if (dataset.isEmpty()) {
                    return out;
                }
                auto found = ledgersOfDataset(known, dataset.toStdString());
                if (found.empty()) {
                    return out;
                }
                out.path = found.front().path;
                out.ledger.found = true;
            }
            out.ledger.path = out.path;
            if (!QFileInfo::exists(out.path)) {
                out.missing = true;
                out.text = QObject::tr("%1 does not exist yet").arg(out.path);
                out.ledger.error = out.text;
                return out;
            }
            auto l = data::PrivacyLedger::load(out.path.toStdString());
            if (!l) {
                out.text = q(l.error().message);
                out.ledger.error = out.text;
                return out;
            }
            if (!dataset.isEmpty() && q(l->dataset()) != dataset) {
                out.datasetOfLedger = q(l->dataset());
                out.text = QObject::tr("%1 is the ledger of %2, not of the dataset shown (%3)")
                               .arg(out.path, out.datasetOfLedger, dataset);
                out.ledger.error = QObject::tr("it is the ledger of another dataset (%1)")
                                       .arg(out.datasetOfLedger);
                return out;
            }
            out.ok = true;
            out.text = ledgerLine(*l);
            PlanLedger& p = out.ledger;
            // The totals load only if a double holds them exactly (PrivacyLedger::create).
            p.total = BudgetTotal{parseDecimal(l->totalEpsilon()).value().toDouble(),
                                  parseDecimal(l->totalDelta()).value().toDouble()};
            p.composition = l->composition();
            p.totalEpsilon = q(l->totalEpsilon());
            p.totalDelta = q(l->totalDelta());
            p.usage = l->usage();
            const bool pld = l->composition() == Composition::Pld;
            if (pld) {
                // A plan composes the ledger's releases with its statistics by the PLD
                // accountant on the ledger's grid (issue #22), on top of its recorded excess.
                p.pldInterval = parseDecimal(l->pldInterval()).value().toDouble();
                p.pldExcess = l->pldExcess();
            }
            for (const data::LedgerRelease& r : l->releases()) {
                auto c = data::ledgerCharge(r);
                if (!c) {
                    p.error = q(c.error().message);
                    return out;
                }
                p.charges.push_back(*c);
                if (pld) {
                    auto m = data::ledgerAccountedMechanism(r.loss);
                    if (!m) {
                        p.error = q(m.error().message);
                        return out;
                    }
                    p.losses.push_back(*m);
                }
            }
            return out;
        },
        [self](LedgerRun run) {
            if (!self) {
                return;
            }
            self->shownPath_ = run.path;
            const QString name = QFileInfo(run.path).fileName();
            QString text;
            bool bad = false;
            if (run.path.isEmpty()) {
                text = tr("No ledger");
                self->label_->setToolTip(
                    tr("No ledger has charged this dataset yet (File → Release histogram…)"));
            } else if (run.ok) {
                text = tr("Ledger %1: %2").arg(name, run.text);
                self->label_->setToolTip(
                    run.ledger.found
                        ? tr("%1 — the last ledger used for this dataset").arg(run.path)
                        : run.path);
                rememberLedger(run.path);
            } else if (run.missing) {
                text = tr("Ledger %1: not created yet").arg(name);
                self->label_->setToolTip(run.text);
            } else if (!run.datasetOfLedger.isEmpty()) {
                text = tr("Ledger %1: of another dataset").arg(name);
                self->label_->setToolTip(run.text);
                bad = true;
            } else {
                text = tr("Ledger %1: unreadable").arg(name);
                self->label_->setToolTip(run.text);
                bad = true;
            }
            self->label_->setText(text);
            self->label_->setStyleSheet(bad ? errorStyle(self->label_) : QString());
            self->watch(run.path);
            Q_EMIT self->ledgerLoaded(run.ledger);
            Q_EMIT self->ledgerShown(text);
        });
}

}  // namespace dpx::ui
