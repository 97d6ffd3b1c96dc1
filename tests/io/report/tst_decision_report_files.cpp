// The decision report written from a real release (runRelease in a temporary folder): the input
// carries the ledger before and after and every release file's SHA-256, checked here against
// QCryptographicHash (an implementation independent of the ledger's); a file changed after the
// release is refused; the PDF is A4 pages (starts %PDF, ends %%EOF, at least two "/Type /Page"
// objects, each with an A4 MediaBox); the HTML holds no count; the report's path is checked.
#include <QCryptographicHash>
#include <QFile>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <optional>

#include "io/report/decision_report_files.h"

using namespace dpx;
using namespace dpx::data;

namespace {

const std::vector<std::int64_t> kCounts = {314159, 271828, 161803};

ReleaseRequest requestIn(const QTemporaryDir& dir) {
    ReleaseRequest r;
    r.spec.mechanism = ReleaseMechanism::DiscreteLaplace;
    r.spec.epsilon = "0.5";
    r.spec.appVersion = "0.0-test";
    r.spec.timestamp = "2026-01-02T03:04:05Z";
    r.dataset = "test data";
    r.csvPath = dir.filePath(QStringLiteral("r.csv")).toStdString();
    r.ledgerPath = dir.filePath(QStringLiteral("ledger.json")).toStdString();
    r.newBudget = LedgerBudgetText{"2", "0"};
    r.loadTruth = []() -> Expected<ReleaseTruth> {
        return ReleaseTruth{*Histogram::create(kCounts), true, "three counts"};
    };
    return r;
}

QByteArray readAll(const std::string& path) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return f.readAll();
}

// A release in `dir` and its report.
struct Released {
    ReleaseOutcome outcome;
    DecisionReportInput input;
    DecisionReport report;
};
std::optional<Released> releaseWithReport(const QTemporaryDir& dir) {
    const ReleaseRequest req = requestIn(dir);
    auto o = runRelease(req);
    if (!o) {
        return std::nullopt;
    }
    auto in = decisionReportInputFor(*o, req.spec, req.dataset);
    if (!in) {
        return std::nullopt;
    }
    auto report = buildDecisionReport(*in);
    if (!report) {
        return std::nullopt;
    }
    return Released{*o, *in, *report};
}

}  // namespace

class TestDecisionReportFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inputFromRelease();
    void changedFileRefused();
    void writesPdf();
    void writesHtml();
    void checksPath();
};

void TestDecisionReportFiles::inputFromRelease() {
    QTemporaryDir dir;
    const ReleaseRequest req = requestIn(dir);
    auto o = runRelease(req);
    QVERIFY2(o, o ? "" : o.error().message.c_str());
    // A second release on the same ledger: "before" is what the first left.
    ReleaseRequest second = req;
    second.csvPath = dir.filePath(QStringLiteral("r2.csv")).toStdString();
    second.newBudget.reset();
    auto o2 = runRelease(second);
    QVERIFY2(o2, o2 ? "" : o2.error().message.c_str());
    QCOMPARE(o2->usageBefore.epsilonSpent, 0.5);
    QCOMPARE(o2->usage.epsilonSpent, 1.0);
    auto in = decisionReportInputFor(*o2, second.spec, second.dataset);
    QVERIFY2(in, in ? "" : in.error().message.c_str());
    QCOMPARE(in->budget.before, std::string("ε 1.5 of 2 left"));
    QCOMPARE(in->budget.after, std::string("ε 1 of 2 left"));
    QCOMPARE(in->budget.releasesInLedger, std::size_t(2));
    QCOMPARE(in->bins, std::uint64_t(3));
    QCOMPARE(in->files.size(), std::size_t(2));
    for (const DecisionReportFile& f : in->files) {
        const QByteArray want =
            QCryptographicHash::hash(readAll(f.path), QCryptographicHash::Sha256).toHex();
        QCOMPARE(QByteArray::fromStdString(f.sha256), want);
    }
    QCOMPARE(in->files[0].role, std::string("released values (CSV)"));
    QCOMPARE(in->files[1].role, std::string("metadata (JSON)"));
    QCOMPARE(in->metadata.epsilon, std::string("0.5"));
    QVERIFY(in->metadata.intervals.has_value());
}

void TestDecisionReportFiles::changedFileRefused() {
    QTemporaryDir dir;
    const ReleaseRequest req = requestIn(dir);
    auto o = runRelease(req);
    QVERIFY(o);
    QFile f(QString::fromStdString(o->csvPath));
    QVERIFY(f.open(QIODevice::Append));
    f.write("x\n");
    f.close();
    auto in = decisionReportInputFor(*o, req.spec, req.dataset);
    QVERIFY(!in);
    QVERIFY(in.error().message.find("changed since it was released") != std::string::npos);
    QVERIFY(QFile::remove(QString::fromStdString(o->csvPath)));
    auto gone = decisionReportInputFor(*o, req.spec, req.dataset);
    QVERIFY(!gone);
    QVERIFY(gone.error().message.find("cannot be read back") != std::string::npos);
}

void TestDecisionReportFiles::writesPdf() {
    QTemporaryDir dir;
    const auto r = releaseWithReport(dir);
    QVERIFY(r);
    const DecisionReport* report = &r->report;
    const ReleaseOutcome* o = &r->outcome;
    const std::string path = dir.filePath(QStringLiteral("report.pdf")).toStdString();
    QVERIFY(checkReportPath(path, false, {o->csvPath, o->jsonPath, o->ledgerPath}));
    auto st = writeDecisionReport(*report, path, false);
    QVERIFY2(st, st ? "" : st.error().message.c_str());
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));
    // Page objects ("/Type /Page" not followed by "s") and their A4 MediaBox (595 × 842 pt).
    const auto pages = QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)"))
                           .globalMatch(QString::fromLatin1(pdf));
    int n = 0;
    for (auto it = pages; it.hasNext(); it.next()) {
        ++n;
    }
    QVERIFY2(n >= 2, qPrintable(QString::number(n)));
    QVERIFY(pdf.contains("/MediaBox [0 0 595"));
    // Written once: a second write without overwrite is refused, and the file is unchanged.
    QVERIFY(!writeDecisionReport(*report, path, false));
    QCOMPARE(readAll(path), pdf);
    QVERIFY(writeDecisionReport(*report, path, true));
}

void TestDecisionReportFiles::writesHtml() {
    QTemporaryDir dir;
    const auto r = releaseWithReport(dir);
    QVERIFY(r);
    const DecisionReport* report = &r->report;
    const DecisionReportInput* in = &r->input;
    const std::string path = dir.filePath(QStringLiteral("Report.HTML")).toStdString();
    QVERIFY(writeDecisionReport(*report, path, false));
    const QByteArray html = readAll(path);
    QVERIFY(html.startsWith("<!DOCTYPE html>"));
    for (std::int64_t c : kCounts) {
        QVERIFY(!html.contains(QByteArray::number(static_cast<qlonglong>(c))));
    }
    for (const DecisionReportFile& f : in->files) {
        QVERIFY(html.contains(QByteArray::fromStdString(f.sha256)));
    }
}

void TestDecisionReportFiles::checksPath() {
    QTemporaryDir dir;
    const std::string csv = dir.filePath(QStringLiteral("r.csv")).toStdString();
    auto bad = checkReportPath(dir.filePath(QStringLiteral("r.txt")).toStdString(), false, {});
    QVERIFY(!bad);
    QVERIFY(bad.error().message.find(".pdf, .html or .htm") != std::string::npos);
    auto nodir = checkReportPath(dir.filePath(QStringLiteral("no/r.pdf")).toStdString(), false, {});
    QVERIFY(!nodir);
    QVERIFY(nodir.error().message.find("does not exist") != std::string::npos);
    const std::string same = dir.filePath(QStringLiteral("r.html")).toStdString();
    auto clash = checkReportPath(same, false, {csv, same});
    QVERIFY(!clash);
    QVERIFY(clash.error().message.find("also a file of the release") != std::string::npos);
    QFile existing(QString::fromStdString(same));
    QVERIFY(existing.open(QIODevice::WriteOnly));
    existing.close();
    auto exists = checkReportPath(same, false, {csv});
    QVERIFY(!exists);
    QVERIFY(exists.error().message.find("exists") != std::string::npos);
    QVERIFY(checkReportPath(same, true, {csv}));
    QCOMPARE(*reportFormatFor("a/B.PDF"), ReportFormat::Pdf);
    QCOMPARE(*reportFormatFor("x.htm"), ReportFormat::Html);
}

QTEST_MAIN(TestDecisionReportFiles)
#include "tst_decision_report_files.moc"
