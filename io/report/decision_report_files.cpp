#include "io/report/decision_report_files.h"

#include <QBuffer>
#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QGuiApplication>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextObjectInterface>

#include <algorithm>
#include <cctype>
#include <optional>

#include "io/release/release_files.h"

namespace dpx::data {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool haveGuiApplication() {
    return qobject_cast<QGuiApplication*>(QCoreApplication::instance()) != nullptr;
}

// The plot in the text: an inline object whose format carries the SVG; drawn by QSvgRenderer onto
// whatever painter lays out the page (vector paths on a QPdfWriter).
constexpr int kPlotObjectType = QTextFormat::UserObject + 22;
constexpr int kSvgProperty = QTextFormat::UserProperty + 1;
constexpr int kSizeProperty = QTextFormat::UserProperty + 2;

class SvgTextObject : public QObject, public QTextObjectInterface {
    Q_OBJECT
    Q_INTERFACES(QTextObjectInterface)
public:
    using QObject::QObject;
    QSizeF intrinsicSize(QTextDocument*, int, const QTextFormat& format) override {
        return format.property(kSizeProperty).toSizeF();
    }
    void drawObject(QPainter* painter, const QRectF& rect, QTextDocument*, int,
                    const QTextFormat& format) override {
        QSvgRenderer renderer(format.property(kSvgProperty).toByteArray());
        renderer.render(painter, rect);
    }
};

}  // namespace

Expected<ReportFormat> reportFormatFor(const std::string& path) {
    const std::string p = lower(path);
    if (endsWith(p, ".html") || endsWith(p, ".htm")) {
        return ReportFormat::Html;
    }
    if (endsWith(p, ".pdf")) {
        return ReportFormat::Pdf;
    }
    return Error{"report: '" + path +
                 "' must end in .pdf, .html or .htm (the format is chosen by "
                 "the extension)"};
}

Status checkReportPath(const std::string& path, bool overwrite,
                       const std::vector<std::string>& releasePaths) {
    auto format = reportFormatFor(path);
    if (!format) {
        return format.error();
    }
    const QFileInfo info(q(path));
    if (!info.absoluteDir().exists()) {
        return Error{"report: the folder of '" + path + "' does not exist"};
    }
    for (const std::string& other : releasePaths) {
        if (!other.empty() && QFileInfo(q(other)).absoluteFilePath() == info.absoluteFilePath()) {
            return Error{"report: '" + path +
                         "' is also a file of the release; choose another name"};
        }
    }
    if (info.isDir()) {
        return Error{"report: '" + path + "' is a folder"};
    }
    if (info.exists() && !overwrite) {
        return Error{"report: '" + path + "' exists"};
    }
    if (*format == ReportFormat::Pdf && !haveGuiApplication()) {
        return Error{
            "report: drawing a PDF needs Qt's GUI module, which this process did not start "
            "(write .html instead)"};
    }
    return okStatus();
}

Expected<DecisionReportInput> decisionReportInputFor(const ReleaseOutcome& outcome,
                                                     const ReleaseSpec& spec,
                                                     const std::string& dataset) {
    DecisionReportInput in;
    in.spec = spec;
    in.spec.source = outcome.release.metadata.source;
    in.spec.binsDeclared = true;
    in.metadata = outcome.release.metadata;
    // The declared table's cells (a release of the workload's marginals through an OPT_M
    // strategy publishes other values than the cells; issue #23).
    const auto& st = outcome.release.metadata.strategy;
    in.bins = st && !st->publishedMarginals.empty() ? outcome.release.metadata.binLabels.size()
                                                    : outcome.release.values.size();
    DecisionReportBudget& b = in.budget;
    b.ledgerPath = outcome.ledgerPath;
    b.dataset = dataset;
    b.composition = compositionName(outcome.usage.composition);
    b.totalEpsilon = outcome.totalEpsilon;
    b.totalDelta = outcome.totalDelta;
    b.before = budgetUsageText(outcome.usageBefore, outcome.totalEpsilon, outcome.totalDelta);
    b.after = budgetUsageText(outcome.usage, outcome.totalEpsilon, outcome.totalDelta);
    b.epsilonSpentBefore = outcome.usageBefore.epsilonSpent;
    b.epsilonSpentAfter = outcome.usage.epsilonSpent;
    b.deltaSpentBefore = outcome.usageBefore.deltaSpent;
    b.deltaSpentAfter = outcome.usage.deltaSpent;
    b.releasesInLedger = outcome.releasesInLedger;
    b.ledgerCreated = outcome.ledgerCreated;
    const LedgerRelease& e = outcome.entry;
    if (e.files.empty() || e.files.size() != e.sha256.size()) {
        return Error{"the ledger entry of the release lists no files and hashes"};
    }
    for (std::size_t i = 0; i < e.files.size(); ++i) {
        const std::string& path = e.files[i];
        QFile f(q(path));
        if (!f.open(QIODevice::ReadOnly)) {
            return Error{"release file " + path + " cannot be read back to check its SHA-256: " +
                         f.errorString().toStdString()};
        }
        const QByteArray bytes = f.readAll();
        const std::string hash = sha256Hex(std::string_view(bytes.constData(), bytes.size()));
        if (hash != e.sha256[i]) {
            return Error{"release file " + path +
                         " changed since it was released: its SHA-256 is " + hash +
                         ", the ledger recorded " + e.sha256[i]};
        }
        const std::string p = lower(path);
        const std::string role = endsWith(p, ".json")  ? "metadata (JSON)"
                                 : endsWith(p, ".csv") ? "released values (CSV)"
                                                       : "release file";
        in.files.push_back({role, path, hash});
    }
    return in;
}

namespace {

Expected<std::string> readWholeFile(const std::string& path, const std::string& what) {
    const QFileInfo info(q(path));
    if (!info.exists()) {
        return Error{what + " " + path + " does not exist"};
    }
    if (!info.isFile()) {
        return Error{what + " " + path + " is not a regular file"};
    }
    // A release of at most 100 000 cells (with a strategy's measurements) is far below this.
    constexpr qint64 kMostBytes = qint64{1} << 30;
    if (info.size() > kMostBytes) {
        return Error{what + " " + path + " is larger than 1 GiB: not a release file"};
    }
    QFile f(q(path));
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{what + " " + path + " cannot be read: " + f.errorString().toStdString()};
    }
    return f.readAll().toStdString();
}

// "GM, n = 50, epsilon per unit change = …" → 50.
Expected<std::int64_t> groupSizeOf(const std::string& noiseParameter) {
    const std::string prefix = "GM, n = ";
    if (noiseParameter.rfind(prefix, 0) != 0) {
        return Error{"the noise parameter '" + noiseParameter + "' does not state GM's n"};
    }
    std::int64_t n = 0;
    std::size_t i = prefix.size();
    for (; i < noiseParameter.size() && std::isdigit(static_cast<unsigned char>(noiseParameter[i]));
         ++i) {
        n = n * 10 + (noiseParameter[i] - '0');
        if (n > kMaxReleaseGroupSize) {
            break;
        }
    }
    if (n < 1 || n > kMaxReleaseGroupSize) {
        return Error{"the noise parameter '" + noiseParameter + "' does not state a valid n"};
    }
    return n;
}

}  // namespace

Expected<ReleaseSpec> releaseSpecFromMetadata(const ReleaseMetadata& md) {
    ReleaseSpec spec;
    auto mechanism = releaseMechanismFromName(md.mechanism);
    if (!mechanism) {
        return Error{"metadata: " + mechanism.error().message};
    }
    spec.mechanism = *mechanism;
    spec.epsilon = md.epsilon;
    spec.delta = md.delta == "0" ? std::string() : md.delta;
    if (spec.mechanism == ReleaseMechanism::GeometricMatrix) {
        auto n = groupSizeOf(md.noiseParameter);
        if (!n) {
            return Error{"metadata: " + n.error().message};
        }
        spec.groupSize = *n;
    }
    auto relation = neighbouringFromName(md.neighbouring);
    if (!relation) {
        return Error{"metadata: neighbouring: " + relation.error().message};
    }
    spec.relation = *relation;
    spec.contributionCap = md.contributionCap;
    // The metadata calls the identity "none" (dpx release --postprocess none); a release through
    // a strategy describes its least-squares inference there, and was released with none
    // (checkStrategyReleaseSpec).
    if (md.strategy) {
        spec.postProcessing = EstimatorKind::Identity;
    } else {
        auto post = estimatorFromName(md.postProcessing == "none" ? std::string("identity")
                                                                  : md.postProcessing);
        if (!post) {
            return Error{"metadata: post_processing: " + post.error().message};
        }
        spec.postProcessing = *post;
    }
    spec.binsDeclared = true;
    spec.source = md.source;
    spec.appVersion = md.appVersion;
    spec.timestamp = md.timestamp;
    spec.epsilonChosenOn = md.epsilonChosenOn;
    if (md.intervals) {
        spec.confidenceLevel = md.intervals->level;
        spec.postProcessedIntervals = md.intervals->aroundNoisy;
    }
    if (md.sampling) {
        spec.confidenceLevel = md.sampling->level;
        spec.samplePopulation = md.sampling->populationSize;
        spec.designEffect = md.sampling->designEffect;
    }
    if (auto v = spec.validate(); !v) {
        return Error{"metadata: the release it describes is not valid: " + v.error().message};
    }
    return spec;
}

Expected<DecisionReportInput> decisionReportInputFromFiles(const ReleaseFilesForReport& files) {
    if (files.metadataPath.empty()) {
        return Error{"the release's metadata file (.json) is not given"};
    }
    const std::string csvPath =
        files.csvPath.empty() ? csvPathForMetadata(files.metadataPath) : files.csvPath;
    const QString jsonAbs = QFileInfo(q(files.metadataPath)).absoluteFilePath();
    if (QFileInfo(q(csvPath)).absoluteFilePath() == jsonAbs) {
        return Error{"the CSV and the metadata are the same file " + csvPath};
    }
    auto json = readWholeFile(files.metadataPath, "metadata");
    if (!json) {
        return json.error();
    }
    auto csv = readWholeFile(csvPath, "released values (CSV)");
    if (!csv) {
        return Error{csv.error().message + " (the CSV beside the metadata " + files.metadataPath +
                     "; give it if it has another name)"};
    }
    auto metadata = releaseMetadataFromJson(*json);
    if (!metadata) {
        return Error{files.metadataPath + ": " + metadata.error().message};
    }
    {
        // Nothing but what this version writes: another version's file or an edit is refused.
        HistogramRelease echo;
        echo.metadata = *metadata;
        if (releaseMetadataJson(echo) != *json) {
            return Error{files.metadataPath +
                         ": not in the exact form this version of DP Explorer writes (written "
                         "by another version, or edited since): the report cannot vouch for it"};
        }
    }
    auto release = releaseFromCsv(*csv, *metadata);
    if (!release) {
        return Error{csvPath + ": " + release.error().message};
    }
    auto spec = releaseSpecFromMetadata(release->metadata);
    if (!spec) {
        return Error{files.metadataPath + ": " + spec.error().message};
    }
    const std::string csvHash = sha256Hex(*csv);
    const std::string jsonHash = sha256Hex(*json);

    DecisionReportInput in;
    in.spec = *spec;
    in.metadata = release->metadata;
    in.bins = release->values.size();
    in.generatedAt = files.generatedAt;
    in.rebuiltFromFiles = true;
    in.reportToolVersion = files.toolVersion;
    in.ledgerGiven = !files.ledgerPath.empty();
    in.files = {{"released values (CSV)", csvPath, csvHash},
                {"metadata (JSON)", files.metadataPath, jsonHash}};
    if (!in.ledgerGiven) {
        return in;
    }
    auto ledger = PrivacyLedger::load(files.ledgerPath);
    if (!ledger) {
        return Error{"ledger: " + ledger.error().message};
    }
    const auto& releases = ledger->releases();
    std::optional<std::size_t> index;
    for (std::size_t i = 0; i < releases.size(); ++i) {
        const auto& h = releases[i].sha256;
        if (h.size() == 2 && h[0] == csvHash && h[1] == jsonHash) {
            index = i;
            break;
        }
    }
    if (!index) {
        // Why: an entry of the same file names (files edited or replaced since), or none: the
        // ledger is another dataset's.
        for (const LedgerRelease& r : releases) {
            bool sameName = false;
            for (const std::string& f : r.files) {
                const QString abs = QFileInfo(q(f)).absoluteFilePath();
                sameName =
                    sameName || abs == jsonAbs || abs == QFileInfo(q(csvPath)).absoluteFilePath();
            }
            if (sameName) {
                const bool jsonMatches = r.sha256.size() == 2 && r.sha256[1] == jsonHash;
                std::string recorded;
                for (std::size_t k = 0; k < r.sha256.size(); ++k) {
                    if (!jsonMatches || k == 0) {
                        recorded += (recorded.empty() ? "" : ", ") + r.sha256[k];
                    }
                }
                return Error{"the release files differ from those the ledger " + files.ledgerPath +
                             " charged on " + r.time + ": " +
                             (jsonMatches ? "the CSV's SHA-256 " + csvHash
                                          : "their SHA-256 " + csvHash + ", " + jsonHash) +
                             " is not the one recorded (" + recorded +
                             "); the files were edited or replaced since the release. No report "
                             "was written"};
            }
        }
        return Error{"the ledger " + files.ledgerPath + " (of '" + ledger->dataset() + "', " +
                     std::to_string(releases.size()) +
                     " releases) does not contain this release: no entry records these files' "
                     "SHA-256 (" +
                     csvHash + ", " + jsonHash +
                     "). It is the ledger of another dataset, or the release was charged to "
                     "another ledger. No report was written"};
    }
    const LedgerRelease& entry = releases[*index];
    if (entry.state != ReleaseState::Published) {
        return Error{"the ledger " + files.ledgerPath + " records this release as '" +
                     releaseStateName(entry.state) +
                     "' (run dpx ledger on it to settle an interrupted release); no report was "
                     "written"};
    }
    // The ledger as it stood before and after this release: its releases up to it, composed as
    // the ledger composes them (PrivacyLedger::prefix: a PLD ledger's recorded excess included,
    // as the live ledger and the Budget tab count it).
    auto beforeLedger = ledger->prefix(*index);
    if (!beforeLedger) {
        return beforeLedger.error();
    }
    auto afterLedger = ledger->prefix(*index + 1);
    if (!afterLedger) {
        return afterLedger.error();
    }
    const BudgetUsage before = beforeLedger->usage();
    const BudgetUsage after = afterLedger->usage();
    DecisionReportBudget& b = in.budget;
    b.ledgerPath = files.ledgerPath;
    b.dataset = ledger->dataset();
    b.composition = compositionName(ledger->composition());
    b.totalEpsilon = ledger->totalEpsilon();
    b.totalDelta = ledger->totalDelta();
    b.before = budgetUsageText(before, b.totalEpsilon, b.totalDelta);
    b.after = budgetUsageText(after, b.totalEpsilon, b.totalDelta);
    b.epsilonSpentBefore = before.epsilonSpent;
    b.epsilonSpentAfter = after.epsilonSpent;
    b.deltaSpentBefore = before.deltaSpent;
    b.deltaSpentAfter = after.deltaSpent;
    b.releasesInLedger = *index + 1;
    // A ledger file is written only by charging a release (release_job's ledgerFor creates it
    // with the first one): its first entry is the release that created it, as the report made
    // at release time says.
    b.ledgerCreated = *index == 0;
    return in;
}

Expected<std::string> decisionReportPdf(const DecisionReport& report) {
    if (!haveGuiApplication()) {
        return Error{
            "drawing a PDF needs Qt's GUI module (a QGuiApplication), which this process "
            "did not start"};
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::WriteOnly)) {
        return Error{"cannot open a buffer for the PDF"};
    }
    {
        QPdfWriter writer(&buffer);
        writer.setResolution(300);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                         QMarginsF(18, 15, 18, 12), QPageLayout::Millimeter));
        writer.setTitle(q(report.title));
        writer.setCreator(QStringLiteral("DP Explorer ") + q(report.appVersion));

        const QRectF paint = writer.pageLayout().paintRectPixels(writer.resolution());
        const double footer = writer.resolution() * 0.35;  // about 9 mm for "page i of n"
        QTextDocument doc;
        doc.documentLayout()->setPaintDevice(&writer);
        QFont font(QStringLiteral("DejaVu Sans"));
        font.setPointSizeF(9.5);
        doc.setDefaultFont(font);
        doc.setDefaultStyleSheet(QStringLiteral(
            "h1 { font-size: 16pt; } h2 { font-size: 12pt; color: #1f3a5f; } "
            "p.subtitle { color: #555555; } .notes { color: #555555; font-size: 8.5pt; } "
            "th { background-color: #f2f4f7; }"));
        doc.setHtml(q(decisionReportHtml(report, ReportHtmlFlavour::QtRichText)));

        auto* handler = new SvgTextObject(&doc);
        doc.documentLayout()->registerHandler(kPlotObjectType, handler);
        QTextCursor at = doc.find(QString::fromLatin1(kReportPlotPlaceholder));
        if (!at.isNull()) {
            QTextCharFormat plot;
            plot.setObjectType(kPlotObjectType);
            plot.setProperty(kSvgProperty, QByteArray::fromStdString(
                                               decisionReportPlotSvg(report.plot, 640, 400)));
            const double w = paint.width() * 0.92;
            plot.setProperty(kSizeProperty, QSizeF(w, w * 400.0 / 640.0));
            at.insertText(QString(QChar::ObjectReplacementCharacter), plot);
        }
        // The page size last: it lays the whole document out again (after an edit such as the
        // plot's insertion, the layout is incremental and may leave later blocks unlaid).
        doc.setPageSize(QSizeF(paint.width(), paint.height() - footer));

        QPainter painter;
        if (!painter.begin(&writer)) {
            return Error{"cannot start drawing the PDF"};
        }
        const int pages = doc.pageCount();
        const double pageHeight = doc.pageSize().height();
        QFont small = font;
        small.setPointSizeF(7.5);
        for (int i = 0; i < pages; ++i) {
            if (i > 0 && !writer.newPage()) {
                return Error{"cannot start page " + std::to_string(i + 1) + " of the PDF"};
            }
            painter.save();
            painter.translate(0, -i * pageHeight);
            doc.drawContents(&painter, QRectF(0, i * pageHeight, paint.width(), pageHeight));
            painter.restore();
            painter.setFont(small);
            painter.setPen(QColor(0x55, 0x55, 0x55));
            const QRectF foot(0, paint.height() - footer * 0.6, paint.width(), footer * 0.6);
            painter.drawText(foot, Qt::AlignLeft | Qt::AlignVCenter,
                             QStringLiteral("DP Explorer %1 · decision report · %2")
                                 .arg(q(report.appVersion), q(report.generatedAt)));
            painter.drawText(foot, Qt::AlignRight | Qt::AlignVCenter,
                             QStringLiteral("page %1 of %2").arg(i + 1).arg(pages));
        }
        painter.end();
    }
    if (bytes.isEmpty()) {
        return Error{"the PDF came out empty"};
    }
    return bytes.toStdString();
}

Status writeDecisionReport(const DecisionReport& report, const std::string& path, bool overwrite) {
    auto format = reportFormatFor(path);
    if (!format) {
        return format.error();
    }
    std::string bytes;
    if (*format == ReportFormat::Html) {
        bytes = decisionReportHtml(report, ReportHtmlFlavour::Standalone);
    } else {
        auto pdf = decisionReportPdf(report);
        if (!pdf) {
            return pdf.error();
        }
        bytes = std::move(pdf).value();
    }
    AtomicWriteOptions options;
    options.overwrite = overwrite;
    return writeFileAtomically(path, bytes, options);
}

Expected<DecisionReport> writeDecisionReportOf(const DecisionReportInput& input,
                                               const std::string& path, bool overwrite) {
    auto report = buildDecisionReport(input);
    if (!report) {
        return Error{"the decision report: " + report.error().message};
    }
    if (auto written = writeDecisionReport(*report, path, overwrite); !written) {
        return written.error();
    }
    return report;
}

}  // namespace dpx::data

#include "decision_report_files.moc"
