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

}  // namespace dpx::data

#include "decision_report_files.moc"
