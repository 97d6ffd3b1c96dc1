// The decision report written from a real release (runRelease in a temporary folder): the input
// carries the ledger before and after and every release file's SHA-256, checked here against
// QCryptographicHash (an implementation independent of the ledger's); a file changed after the
// release is refused; the PDF is A4 pages (starts %PDF, ends %%EOF, at least two "/Type /Page"
// objects, each with an A4 MediaBox); the HTML holds no count; the report's path is checked.
#include <QCryptographicHash>
#include <QFile>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <optional>

#include "io/release/release_files.h"
#include "io/report/decision_report_files.h"
#include "tests/testing/test_support.h"

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
    void fromFilesEqualsReleaseTime_data();
    void fromFilesEqualsReleaseTime();
    void fromFilesPldRecordedExcess();
    void fromFilesWithoutLedger();
    void fromFilesRefusesBadInput();
    void metadataReadBack();
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

namespace {

std::string writeText(const QTemporaryDir& dir, const char* name, const QByteArray& bytes) {
    QFile f(dir.filePath(QString::fromLatin1(name)));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return {};
    }
    f.write(bytes);
    return f.fileName().toStdString();
}

bool sameRows(const std::vector<ReportRow>& a, const std::vector<ReportRow>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].key != b[i].key || a[i].value != b[i].value) {
            qWarning("row %zu: '%s' = '%s' vs '%s' = '%s'", i, a[i].key.c_str(), a[i].value.c_str(),
                     b[i].key.c_str(), b[i].value.c_str());
            return false;
        }
    }
    return true;
}

bool sameTables(const std::vector<ReportTable>& a, const std::vector<ReportTable>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].header != b[i].header || a[i].rows != b[i].rows) {
            return false;
        }
    }
    return true;
}

// A release (second on its ledger, so that "before" is not the full budget) for the variants of
// fromFilesEqualsReleaseTime.
ReleaseRequest variant(const QTemporaryDir& dir, const QString& name) {
    ReleaseRequest r = requestIn(dir);
    r.newBudget = LedgerBudgetText{"10", "0.001"};
    if (name == QLatin1String("gaussian-replace-cap")) {
        r.spec.mechanism = ReleaseMechanism::DiscreteGaussian;
        r.spec.epsilon = "1";
        r.spec.delta = "1e-6";
        r.spec.relation = Neighbouring::Replace;
        r.spec.contributionCap = 2;
        r.composition = Composition::Zcdp;
    } else if (name == QLatin1String("geometric-matrix")) {
        r.spec.mechanism = ReleaseMechanism::GeometricMatrix;
        r.spec.groupSize = 40;
        r.loadTruth = []() -> Expected<ReleaseTruth> {
            return ReleaseTruth{*Histogram::create(std::vector<std::int64_t>{3, 40, 17}), true,
                                "three counts"};
        };
    } else if (name == QLatin1String("sample-clamp")) {
        r.spec.postProcessing = EstimatorKind::Clamp;
        r.spec.samplePopulation = 2e6;
        r.spec.designEffect = 1.5;
        r.spec.confidenceLevel = 0.9;
    } else if (name == QLatin1String("resize-intervals")) {
        r.spec.postProcessing = EstimatorKind::Resize;
        r.spec.postProcessedIntervals = true;
    } else if (name == QLatin1String("pld")) {
        r.composition = Composition::Pld;
    } else if (name == QLatin1String("joint-table")) {
        // A joint table of three attributes (issue #19): sex × class × race, 12 cells.
        r.loadTruth = []() -> Expected<ReleaseTruth> {
            Attribute sex{"sex", {"F", "M"}, {}, "categories F, M", true};
            Attribute cls{"class", {"<=50K", ">50K"}, {}, "categories <=50K, >50K", true};
            Attribute race{"race", {"A", "B", "C"}, {}, "categories A, B, C", true};
            auto table = ContingencyTable::dense(
                {sex, cls, race}, {3107, 412, 98, 1203, 77, 45, 2904, 351, 101, 2480, 230, 64});
            if (!table) {
                return table.error();
            }
            return ReleaseTruth{*table->toHistogram(), true, "columns 'sex', 'class', 'race'",
                                *table};
        };
    }
    return r;
}

// The report rebuilt from the files against the one made at release time, section by section —
// every row, paragraph, table and note, and the plot — except what the rebuild states about
// itself: the note under the title, the provenance's "rebuilt" row, the files' paragraph and the
// budget's note on the ledger's prefix (release `inLedger` of it).
void compareSections(const DecisionReport& before, const DecisionReport& after,
                     std::size_t inLedger) {
    QVERIFY(before.rebuiltNote.empty());
    QCOMPARE(after.title, before.title);
    QCOMPARE(after.subtitle, before.subtitle);
    QCOMPARE(after.sections.size(), before.sections.size());
    for (std::size_t i = 0; i < before.sections.size(); ++i) {
        const ReportSection& b = before.sections[i];
        const ReportSection& a = after.sections[i];
        QCOMPARE(a.id, b.id);
        QCOMPARE(a.heading, b.heading);
        QCOMPARE(a.hasPlot, b.hasPlot);
        QVERIFY2(sameTables(a.tables, b.tables), b.id.c_str());
        if (b.id == "provenance") {
            QCOMPARE(a.rows.size(), b.rows.size());
            QCOMPARE(a.rows[0].value, b.rows[0].value);  // released
            QCOMPARE(a.rows[1].key, std::string("Report rebuilt from the release files"));
            continue;
        }
        if (b.id == "files") {
            QVERIFY(a.paragraphs.at(0).find("computed again") != std::string::npos);
            continue;
        }
        QVERIFY2(sameRows(a.rows, b.rows), b.id.c_str());
        QCOMPARE(a.paragraphs, b.paragraphs);
        if (b.id == "budget") {
            QCOMPARE(a.notes.size(), b.notes.size() + 1);
            QVERIFY(a.notes.back().find("release " + std::to_string(inLedger) + " of the ledger") !=
                    std::string::npos);
        } else {
            QCOMPARE(a.notes, b.notes);
        }
    }
    QCOMPARE(after.plot.series.size(), before.plot.series.size());
    for (std::size_t i = 0; i < before.plot.series.size(); ++i) {
        QCOMPARE(after.plot.series[i].points.size(), before.plot.series[i].points.size());
        for (std::size_t k = 0; k < before.plot.series[i].points.size(); ++k) {
            QCOMPARE(after.plot.series[i].points[k].y, before.plot.series[i].points[k].y);
        }
    }
}

// The report of release `o` made at release time and rebuilt from its files with its ledger.
struct BothReports {
    DecisionReportInput atRelease, fromFiles;
    DecisionReport before, after;
};
std::optional<BothReports> bothReports(const ReleaseOutcome& o, const ReleaseRequest& req) {
    BothReports r;
    auto atRelease = decisionReportInputFor(o, req.spec, req.dataset);
    if (!atRelease) {
        qWarning("%s", atRelease.error().message.c_str());
        return std::nullopt;
    }
    r.atRelease = *atRelease;
    r.atRelease.generatedAt = "2026-02-03T04:05:06Z";
    ReleaseFilesForReport files;
    files.metadataPath = o.jsonPath;
    files.ledgerPath = o.ledgerPath;
    files.generatedAt = "2026-02-03T04:05:06Z";
    auto fromFiles = decisionReportInputFromFiles(files);
    if (!fromFiles) {
        qWarning("%s", fromFiles.error().message.c_str());
        return std::nullopt;
    }
    r.fromFiles = *fromFiles;
    auto before = buildDecisionReport(r.atRelease);
    auto after = buildDecisionReport(r.fromFiles);
    if (!before || !after) {
        qWarning("%s", (!before ? before : after).error().message.c_str());
        return std::nullopt;
    }
    r.before = *before;
    r.after = *after;
    return r;
}

const ReportRow* rowOf(const DecisionReport& report, const std::string& section,
                       const std::string& key) {
    const ReportSection* s = report.section(section);
    if (s == nullptr) {
        return nullptr;
    }
    for (const ReportRow& row : s->rows) {
        if (row.key == key) {
            return &row;
        }
    }
    return nullptr;
}

}  // namespace

// Issue #22: the report rebuilt from the files on disk (decisionReportInputFromFiles) says the
// same as the report made at release time, section by section — every row, paragraph, table and
// note, and the plot — except what the rebuild states about itself: the note under the title, the
// provenance's "rebuilt" row, the files' paragraph and the budget's note on the ledger's prefix.
void TestDecisionReportFiles::fromFilesEqualsReleaseTime_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"laplace", "gaussian-replace-cap", "geometric-matrix", "sample-clamp",
                          "resize-intervals", "pld", "joint-table"}) {
        QTest::newRow(n) << QString::fromLatin1(n);
    }
}

void TestDecisionReportFiles::fromFilesEqualsReleaseTime() {
    QFETCH(QString, name);
    QTemporaryDir dir;
    ReleaseRequest first = variant(dir, name);
    first.csvPath = dir.filePath(QStringLiteral("r0.csv")).toStdString();
    auto o1 = runRelease(first);
    QVERIFY2(o1, o1 ? "" : o1.error().message.c_str());
    ReleaseRequest req = variant(dir, name);
    req.newBudget.reset();
    auto o = runRelease(req);
    QVERIFY2(o, o ? "" : o.error().message.c_str());
    // And one after it, which the report of the second must not count.
    ReleaseRequest third = variant(dir, name);
    third.newBudget.reset();
    third.csvPath = dir.filePath(QStringLiteral("r3.csv")).toStdString();
    QVERIFY(runRelease(third));

    const auto r = bothReports(*o, req);
    QVERIFY(r);
    const DecisionReportInput& atRelease = r->atRelease;
    const DecisionReportInput& fromFiles = r->fromFiles;
    QVERIFY(fromFiles.rebuiltFromFiles && fromFiles.ledgerGiven);
    QCOMPARE(fromFiles.budget.releasesInLedger, std::size_t(2));
    QCOMPARE(fromFiles.budget.before, atRelease.budget.before);
    QCOMPARE(fromFiles.budget.after, atRelease.budget.after);
    QCOMPARE(fromFiles.budget.ledgerCreated, false);
    QCOMPARE(fromFiles.bins, atRelease.bins);
    QCOMPARE(fromFiles.files.size(), atRelease.files.size());
    for (std::size_t i = 0; i < fromFiles.files.size(); ++i) {
        QCOMPARE(fromFiles.files[i].sha256, atRelease.files[i].sha256);
        QCOMPARE(fromFiles.files[i].path, atRelease.files[i].path);
    }
    QVERIFY(r->after.rebuiltNote.find("Rebuilt on 2026-02-03T04:05:06Z from the release files of " +
                                      o->release.metadata.timestamp) == 0);
    QCOMPARE(r->before.section("sampling") != nullptr, name == QLatin1String("sample-clamp"));
    compareSections(r->before, r->after, 2);
    if (QTest::currentTestFailed()) {
        return;
    }
    // The HTML says it was rebuilt; nothing else of it differs in kind.
    const std::string html = decisionReportHtml(r->after);
    QVERIFY(html.find("Rebuilt on 2026-02-03T04:05:06Z") != std::string::npos);

    // The first release created the ledger: its report says so at release time, and the one
    // rebuilt from its files says the same (the ledger's first entry), section by section.
    const auto r1 = bothReports(*o1, first);
    QVERIFY(r1);
    QVERIFY(r1->atRelease.budget.ledgerCreated);
    QVERIFY(r1->fromFiles.budget.ledgerCreated);
    const ReportRow* ledgerRow = rowOf(r1->after, "budget", "Ledger");
    QVERIFY(ledgerRow);
    QCOMPARE(ledgerRow->value, o1->ledgerPath + " (created by this release)");
    compareSections(r1->before, r1->after, 1);
    if (QTest::currentTestFailed()) {
        return;
    }
    QCOMPARE(rowOf(r->after, "budget", "Ledger")->value, o->ledgerPath);

    if (name == QLatin1String("joint-table")) {
        // The joint table: 12 cells, every attribute named in the report, no count in it.
        QCOMPARE(fromFiles.bins, std::uint64_t(12));
        QCOMPARE(fromFiles.metadata.attributes.size(), std::size_t(3));
        for (const char* attribute : {"sex", "class", "race"}) {
            QVERIFY2(html.find(attribute) != std::string::npos, attribute);
        }
        for (const char* count : {"3107", "1203", "2904", "2480"}) {
            QVERIFY2(html.find(count) == std::string::npos, count);
        }
    }
}

namespace {

// The ledger file with its PLD "epsilon_spent" raised by `more` and its checksum recomputed (as a
// more pessimistic accountant of another version would have recorded it); the recorded value.
double raiseRecordedPldEpsilon(const std::string& path, double more) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly)) {
        return -1;
    }
    QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    QJsonObject pld = doc.value(QStringLiteral("pld")).toObject();
    const double recorded = pld.value(QStringLiteral("epsilon_spent")).toString().toDouble() + more;
    pld[QStringLiteral("epsilon_spent")] = QString::number(recorded, 'g', 17);
    doc[QStringLiteral("pld")] = pld;
    doc.remove(QStringLiteral("sha256"));
    const QByteArray h = QCryptographicHash::hash(QJsonDocument(doc).toJson(QJsonDocument::Compact),
                                                  QCryptographicHash::Sha256)
                             .toHex();
    doc[QStringLiteral("sha256")] = QString::fromLatin1(h);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return -1;
    }
    f.write(QJsonDocument(doc).toJson());
    return recorded;
}

}  // namespace

// Issue #22: a PLD ledger whose recorded ε exceeds its recomputation keeps the recorded ε as the
// authority and charges every later composition the difference (PrivacyLedger::pldExcess). The
// report rebuilt from the files counts it as the live ledger did when the release was made: the
// budget before and after equal the release-time report's, and "after" is at least the plain
// recomposition plus the excess.
void TestDecisionReportFiles::fromFilesPldRecordedExcess() {
    QTemporaryDir dir;
    ReleaseRequest first = variant(dir, QStringLiteral("pld"));
    first.csvPath = dir.filePath(QStringLiteral("r0.csv")).toStdString();
    auto o1 = runRelease(first);
    QVERIFY2(o1, o1 ? "" : o1.error().message.c_str());
    const double excess = 0.05;
    const double recorded = raiseRecordedPldEpsilon(o1->ledgerPath, excess);
    QVERIFY(recorded > excess);
    ReleaseRequest req = variant(dir, QStringLiteral("pld"));
    req.newBudget.reset();
    auto o = runRelease(req);
    QVERIFY2(o, o ? "" : o.error().message.c_str());
    QVERIFY2(o->ledgerWarning.find("authority") != std::string::npos, o->ledgerWarning.c_str());
    QCOMPARE(o->usageBefore.epsilonSpent, recorded);
    ReleaseRequest third = variant(dir, QStringLiteral("pld"));
    third.newBudget.reset();
    third.csvPath = dir.filePath(QStringLiteral("r3.csv")).toStdString();
    QVERIFY(runRelease(third));

    const auto r = bothReports(*o, req);
    QVERIFY(r);
    QCOMPARE(r->fromFiles.budget.before, r->atRelease.budget.before);
    QCOMPARE(r->fromFiles.budget.after, r->atRelease.budget.after);
    DPX_VERIFY_REL(r->fromFiles.budget.epsilonSpentBefore, recorded, 1e-12);
    DPX_VERIFY_REL(r->fromFiles.budget.epsilonSpentAfter, r->atRelease.budget.epsilonSpentAfter,
                   1e-12);
    // Against the same two releases composed by a ledger without the excess.
    auto ledger = PrivacyLedger::load(o->ledgerPath);
    QVERIFY2(ledger, ledger ? "" : ledger.error().message.c_str());
    QVERIFY(ledger->pldExcess() >= excess - 1e-12);
    auto plain = PrivacyLedger::create(ledger->dataset(), ledger->totalEpsilon(),
                                       ledger->totalDelta(), Composition::Pld);
    QVERIFY(plain);
    QVERIFY(plain->append(ledger->releases()[0]));
    QVERIFY(plain->append(ledger->releases()[1]));
    QVERIFY(r->fromFiles.budget.epsilonSpentAfter >= plain->usage().epsilonSpent + excess - 1e-12);
    compareSections(r->before, r->after, 2);
}

void TestDecisionReportFiles::fromFilesWithoutLedger() {
    QTemporaryDir dir;
    ReleaseRequest req = variant(dir, QStringLiteral("sample-clamp"));
    auto o = runRelease(req);
    QVERIFY2(o, o ? "" : o.error().message.c_str());
    ReleaseFilesForReport files;
    files.metadataPath = o->jsonPath;
    files.toolVersion = "9.9-rebuild";
    auto in = decisionReportInputFromFiles(files);
    QVERIFY2(in, in ? "" : in.error().message.c_str());
    QVERIFY(in->rebuiltFromFiles && !in->ledgerGiven);
    // The sampling columns read back from the CSV are the release's own.
    QVERIFY(in->metadata.sampling.has_value());
    QVERIFY(*in->metadata.sampling == *o->release.metadata.sampling);
    auto report = buildDecisionReport(*in);
    QVERIFY2(report, report ? "" : report.error().message.c_str());
    QVERIFY(report->rebuiltNote.find("no ledger was given") != std::string::npos);
    const ReportSection* budget = report->section("budget");
    QVERIFY(budget && budget->paragraphs.at(0).rfind("Not stated", 0) == 0);
    const ReportSection* provenance = report->section("provenance");
    QVERIFY(provenance && provenance->rows.back().value == "DP Explorer 9.9-rebuild");
    QCOMPARE(report->appVersion, std::string("9.9-rebuild"));
    const ReportSection* sampling = report->section("sampling");
    QVERIFY(sampling);
    // One row per bin and the largest, each half-width as the CSV states it.
    QCOMPARE(sampling->tables.at(0).rows.size(), kCounts.size() + 1);
    const std::string html = decisionReportHtml(*report);
    for (std::int64_t c : kCounts) {
        QVERIFY(html.find(std::to_string(c)) == std::string::npos);
    }
}

// Every bad input: a clear message, nothing to report.
void TestDecisionReportFiles::fromFilesRefusesBadInput() {
    QTemporaryDir dir;
    const ReleaseRequest req = requestIn(dir);
    auto o = runRelease(req);
    QVERIFY2(o, o ? "" : o.error().message.c_str());
    const QByteArray json = readAll(o->jsonPath);
    const QByteArray csv = readAll(o->csvPath);
    auto refused = [](const ReleaseFilesForReport& f, const std::string& part) -> bool {
        auto in = decisionReportInputFromFiles(f);
        if (in) {
            qWarning("accepted, expected a refusal with '%s'", part.c_str());
            return false;
        }
        if (in.error().message.find(part) == std::string::npos) {
            qWarning("message: %s\nexpected: %s", in.error().message.c_str(), part.c_str());
            return false;
        }
        return true;
    };
    ReleaseFilesForReport f;
    f.metadataPath = dir.filePath(QStringLiteral("none.json")).toStdString();
    QVERIFY(refused(f, "does not exist"));
    // The metadata without its CSV.
    f.metadataPath = writeText(dir, "alone.json", json);
    QVERIFY(refused(f, "alone.csv does not exist"));
    // Not JSON; another format; another version; a member missing.
    writeText(dir, "bad.csv", csv);
    f.metadataPath = writeText(dir, "bad.json", "{ not json");
    QVERIFY(refused(f, "not JSON"));
    f.metadataPath = writeText(dir, "bad.json", "{\"format\": \"something\"}");
    QVERIFY(refused(f, "not the metadata of a DP Explorer release"));
    QByteArray v2 = json;
    v2.replace("\"version\": 1", "\"version\": 2");
    f.metadataPath = writeText(dir, "bad.json", v2);
    QVERIFY(refused(f, "metadata version 2 is not"));
    QByteArray noRho = json;
    noRho.replace("\"rho\":", "\"rhox\":");
    f.metadataPath = writeText(dir, "bad.json", noRho);
    QVERIFY(refused(f, "\"privacy.rho\" is missing"));
    // An older writer's form (a member it did not write, here "sampler.noise_parameter" absent
    // is caught above; an extra member, or a different layout, here the compact form).
    f.metadataPath =
        writeText(dir, "bad.json", QJsonDocument::fromJson(json).toJson(QJsonDocument::Compact));
    QVERIFY(refused(f, "not in the exact form this version"));
    // A CSV edited by hand: a value changed (its bounds no longer around it), a line removed.
    f.metadataPath = writeText(dir, "bad.json", json);
    QList<QByteArray> lines = csv.split('\n');
    QList<QByteArray> cells = lines[1].split(',');
    cells[1] = QByteArray::number(cells[1].toLongLong() + 1);
    lines[1] = cells.join(',');
    writeText(dir, "bad.csv", lines.join('\n'));
    QVERIFY(refused(f, "CSV line 2, column 3"));
    QList<QByteArray> shorter = csv.split('\n');
    shorter.removeAt(2);
    writeText(dir, "bad.csv", shorter.join('\n'));
    QVERIFY(refused(f, "lines of values, but the metadata lists 3 bins"));
    // The ledger: files whose bytes are not the ones charged (the same names), a CSV given
    // that is another release's, and a ledger of another dataset.
    f.metadataPath = o->jsonPath;
    f.ledgerPath = o->ledgerPath;
    QVERIFY(decisionReportInputFromFiles(f));
    ReleaseRequest other = requestIn(dir);
    other.csvPath = dir.filePath(QStringLiteral("o.csv")).toStdString();
    other.ledgerPath = dir.filePath(QStringLiteral("other-ledger.json")).toStdString();
    other.dataset = "another dataset";
    // Other counts: with the same ones both CSVs were byte-identical about one run in 450 (three
    // bins of discrete Laplace noise at ε = 0.5 drawn alike), and the SHA-256 check had nothing
    // to refuse.
    other.loadTruth = []() -> Expected<ReleaseTruth> {
        std::vector<std::int64_t> counts = kCounts;
        for (std::int64_t& c : counts) {
            c += 1000;
        }
        return ReleaseTruth{*Histogram::create(counts), true, "three other counts"};
    };
    auto o2 = runRelease(other);
    QVERIFY(o2);
    f.csvPath = o2->csvPath;
    QVERIFY(refused(f, "the CSV's SHA-256"));
    f.csvPath.clear();
    f.ledgerPath = o2->ledgerPath;
    QVERIFY(refused(f, "of 'another dataset', 1 releases) does not contain this release"));
    f.ledgerPath = dir.filePath(QStringLiteral("missing-ledger.json")).toStdString();
    QVERIFY(refused(f, "ledger:"));
    // A released value edited so that the CSV stays consistent (bounds moved too): only the
    // ledger's record can tell, and it does.
    QList<QByteArray> edited = csv.split('\n');
    QList<QByteArray> c1 = edited[1].split(',');
    for (int k = 1; k < c1.size(); ++k) {
        c1[k] = QByteArray::number(c1[k].toLongLong() + 5);
    }
    edited[1] = c1.join(',');
    QFile w(QString::fromStdString(o->csvPath));
    QVERIFY(w.open(QIODevice::WriteOnly | QIODevice::Truncate));
    w.write(edited.join('\n'));
    w.close();
    f.ledgerPath.clear();
    QVERIFY(decisionReportInputFromFiles(f));  // consistent files, no record to compare with
    f.ledgerPath = o->ledgerPath;
    QVERIFY(refused(f, "edited or replaced since the release"));
}

// The metadata read back gives the same bytes for every kind of release (the check the rebuild
// makes), and the spec it states is the one released with.
void TestDecisionReportFiles::metadataReadBack() {
    for (const char* name : {"laplace", "gaussian-replace-cap", "geometric-matrix", "sample-clamp",
                             "resize-intervals"}) {
        QTemporaryDir dir;
        ReleaseRequest req = variant(dir, QString::fromLatin1(name));
        auto o = runRelease(req);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        const std::string json = readAll(o->jsonPath).toStdString();
        auto md = releaseMetadataFromJson(json);
        QVERIFY2(md, md ? "" : md.error().message.c_str());
        HistogramRelease echo;
        echo.metadata = *md;
        QCOMPARE(releaseMetadataJson(echo), json);
        auto spec = releaseSpecFromMetadata(*md);
        QVERIFY2(spec, spec ? "" : spec.error().message.c_str());
        QCOMPARE(spec->mechanism, req.spec.mechanism);
        QCOMPARE(spec->epsilon, req.spec.epsilon);
        QCOMPARE(spec->delta, req.spec.delta);
        QCOMPARE(spec->groupSize, req.spec.groupSize);
        QCOMPARE(spec->relation, req.spec.relation);
        QCOMPARE(spec->contributionCap, req.spec.contributionCap);
        QCOMPARE(spec->postProcessing, req.spec.postProcessing);
        QCOMPARE(spec->confidenceLevel, req.spec.confidenceLevel);
        QCOMPARE(spec->samplePopulation, req.spec.samplePopulation);
        QCOMPARE(spec->designEffect, req.spec.designEffect);
        QCOMPARE(spec->postProcessedIntervals, req.spec.postProcessedIntervals);
        auto back = releaseFromCsv(readAll(o->csvPath).toStdString(), *md);
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(back->values, o->release.values);
    }
}

QTEST_MAIN(TestDecisionReportFiles)
#include "tst_decision_report_files.moc"
