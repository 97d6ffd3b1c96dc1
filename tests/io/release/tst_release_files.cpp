// Release files (io/release/release_files.h): CSV cells neutralised against formula injection
// (OWASP), atomic writes that leave neither a partial target nor a temporary file behind on a
// simulated failure, no overwrite without the flag, and writeRelease's all-or-nothing contract
// with the ledger (a refused or failed release writes nothing and records nothing).
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/histogram/dataset.h"
#include "core/matrix_mechanism/strategy_release.h"
#include "io/release/release_files.h"

using namespace dpx;
using namespace dpx::data;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool fileExists(const std::string& path) {
    return QFileInfo::exists(QString::fromStdString(path));
}

// Entries of a directory (hidden included): a failed write must leave no temporary file.
QStringList entries(const QTemporaryDir& dir) {
    return QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

HistogramRelease sampleRelease() {
    ReleaseSpec spec;
    spec.epsilon = "0.1";
    spec.binsDeclared = true;
    spec.source = "test";
    spec.appVersion = "0.0-test";
    spec.timestamp = "2026-01-02T03:04:05Z";
    auto truth = Histogram::create({123456, 234567, 345678}, {"=cmd|'/c calc'!A1", "b,c", "ok"});
    ReleaseRandomness rng;
    return releaseHistogram(spec, *truth, rng).value();
}

}  // namespace

class TestReleaseFiles : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void neutralise_data() {
        QTest::addColumn<QByteArray>("cell");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("equals") << QByteArray("=1+2") << QByteArray("'=1+2");
        QTest::newRow("plus") << QByteArray("+1") << QByteArray("'+1");
        QTest::newRow("minus") << QByteArray("-1") << QByteArray("'-1");
        QTest::newRow("unicode minus") << QByteArray(
                                              "\xE2\x88\x92"
                                              "1")
                                       << QByteArray(
                                              "'\xE2\x88\x92"
                                              "1");
        QTest::newRow("at") << QByteArray("@SUM(A1)") << QByteArray("'@SUM(A1)");
        QTest::newRow("tab") << QByteArray("\tx") << QByteArray("'\tx");
        QTest::newRow("cr") << QByteArray("\rx") << QByteArray("\"'\rx\"");
        QTest::newRow("comma quoted") << QByteArray("a,b") << QByteArray("\"a,b\"");
        QTest::newRow("quote doubled")
            << QByteArray("say \"hi\"") << QByteArray("\"say \"\"hi\"\"\"");
        QTest::newRow("formula with comma") << QByteArray("=A1,B1") << QByteArray("\"'=A1,B1\"");
        QTest::newRow("plain") << QByteArray("30-39") << QByteArray("30-39");
        QTest::newRow("empty") << QByteArray("") << QByteArray("");
    }
    void neutralise() {
        QFETCH(QByteArray, cell);
        QFETCH(QByteArray, expected);
        QCOMPARE(neutraliseCsvCell(cell.toStdString()), expected.toStdString());
    }

    void csvAndMetadata() {
        const HistogramRelease r = sampleRelease();
        const std::string csv = releaseCsvText(r);
        QVERIFY(csv.rfind("bin,value\n'=cmd|'/c calc'!A1,", 0) == 0);
        QVERIFY(csv.find("\n\"b,c\",") != std::string::npos);
        const std::string json = releaseMetadataJson(r);
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
        for (const char* key : {"mechanism", "sampler", "privacy", "sensitivity", "bins",
                                "post_processing", "app_version", "timestamp", "source"}) {
            QVERIFY2(o.contains(QLatin1String(key)), key);
        }
        const QJsonObject privacy = o.value(QStringLiteral("privacy")).toObject();
        QCOMPARE(privacy.value(QStringLiteral("epsilon")).toString(), QStringLiteral("0.1"));
        QCOMPARE(privacy.value(QStringLiteral("epsilon_exact")).toString(), QStringLiteral("1/10"));
        QCOMPARE(privacy.value(QStringLiteral("rho")).toString(), QStringLiteral("1/200"));
        QVERIFY(!privacy.value(QStringLiteral("guarantee")).toString().isEmpty());
        for (const char* truth : {"123456", "234567", "345678"}) {
            QVERIFY(json.find(truth) == std::string::npos);
        }
        QCOMPARE(metadataPathFor("out/release.csv"), std::string("out/release.json"));
        QCOMPARE(metadataPathFor("release"), std::string("release.json"));
    }

    // Issue #19: a table release's CSV has one column per attribute (neutralised like every
    // cell), its cells in C order — checked against ContingencyTable::coordinates, an independent
    // mixed-radix conversion — and its metadata lists the attributes. A one-attribute table keeps
    // the one-column form.
    void tableCsvAndMetadata() {
        Attribute a{"=evil", {"x", "y,z"}, {}, "categories x, y,z", true};
        Attribute b{"hours", {"1-10", "11-20", "21-30"}, {1, 11, 21, 31}, "3 bins", true};
        auto table = ContingencyTable::dense({a, b}, {1, 2, 3, 4, 5, 6});
        QVERIFY(table);
        ReleaseSpec spec;
        spec.epsilon = "1";
        spec.source = "test";
        spec.appVersion = "0.0-test";
        spec.timestamp = "2026-01-02T03:04:05Z";
        ReleaseRandomness rng;
        const HistogramRelease r = releaseTable(spec, *table, rng).value();
        const std::string csv = releaseCsvText(r);
        std::istringstream in(csv);
        std::string line;
        std::getline(in, line);
        QCOMPARE(line, std::string("'=evil,hours,value"));
        for (std::uint64_t i = 0; i < 6; ++i) {
            QVERIFY(std::getline(in, line));
            const auto c = table->coordinates(i);
            const std::string expected =
                neutraliseCsvCell(a.labels[c[0]]) + "," + neutraliseCsvCell(b.labels[c[1]]) + ",";
            QVERIFY2(line.rfind(expected, 0) == 0, line.c_str());
        }
        QVERIFY(!std::getline(in, line));
        const QJsonObject o =
            QJsonDocument::fromJson(QByteArray::fromStdString(releaseMetadataJson(r))).object();
        const QJsonArray attrs = o.value(QStringLiteral("attributes")).toArray();
        QCOMPARE(attrs.size(), 2);
        const QJsonObject hours = attrs[1].toObject();
        QCOMPARE(hours.value(QStringLiteral("name")).toString(), QStringLiteral("hours"));
        QCOMPARE(hours.value(QStringLiteral("binning")).toString(), QStringLiteral("3 bins"));
        QCOMPARE(hours.value(QStringLiteral("bins")).toInt(), 3);
        QCOMPARE(hours.value(QStringLiteral("edges")).toArray().size(), 4);
        QCOMPARE(hours.value(QStringLiteral("declared")).toBool(), true);
        QCOMPARE(o.value(QStringLiteral("bins")).toObject().value(QStringLiteral("count")).toInt(),
                 6);

        auto one = ContingencyTable::dense({b}, {1, 2, 3});
        QVERIFY(one);
        const HistogramRelease r1 = releaseTable(spec, *one, rng).value();
        QVERIFY(releaseCsvText(r1).rfind("bin,value\n1-10,", 0) == 0);
        // The one-column histogram release has no attribute list (its metadata is unchanged).
        const QJsonObject h =
            QJsonDocument::fromJson(QByteArray::fromStdString(releaseMetadataJson(sampleRelease())))
                .object();
        QVERIFY(!h.contains(QStringLiteral("attributes")));
    }

    // Issue #23: a release through an OPT_M strategy without the full table publishes the
    // workload's marginals: "marginal,ATTR…,value,lower,upper", one line per marginal cell in the
    // workload's order, "(all)" for an attribute summed over (rows checked against an
    // independent mixed-radix count over the kept attributes), and the metadata lists them.
    void marginalsCsvAndMetadata() {
        Attribute a{"=sex", {"F", "M"}, {}, "categories F, M", true};
        Attribute b{"age", {"young", "mid", "old"}, {}, "categories", true};
        Attribute c{"class", {"<=50K", ">50K"}, {}, "categories", true};
        auto table = ContingencyTable::dense({a, b, c}, {5, 0, 12, 40, 3, 3, 8, 100, 0, 0, 7, 19});
        QVERIFY(table);
        const DomainShape shape{2, 3, 2};
        auto w = std::make_shared<const Workload>(
            Workload::make(*WorkloadSpec::parse("marginals:2"), shape).value());
        DesignedStrategy d;
        d.kind = DesignTemplate::Marginals;
        d.marginalWeights = {0, 0, 0, 1.0 / 3, 0, 1.0 / 3, 1.0 / 3, 0};
        auto k = roundStrategy(shape, d, 64);
        QVERIFY(k);
        auto plan = planFromIntegerStrategy(w, "hand-made OPT_M", std::move(k).value());
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        ReleaseSpec spec;
        spec.epsilon = "1";
        spec.source = "test";
        spec.appVersion = "0.0-test";
        spec.timestamp = "2026-01-02T03:04:05Z";
        ReleaseRandomness rng;
        auto r = releaseTableThroughStrategy(spec, *plan, *table, rng);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->values.size(), std::size_t{16});
        const std::string csv = releaseCsvText(*r);
        std::istringstream in(csv);
        std::string line;
        std::getline(in, line);
        QCOMPARE(line, std::string("marginal,'=sex,age,class,value,lower,upper"));
        // {sex, age}: 6 rows, {sex, class}: 4, {age, class}: 6.
        const std::vector<std::pair<std::size_t, std::size_t>> kept{{0, 1}, {0, 2}, {1, 2}};
        const std::vector<Attribute> attrs{a, b, c};
        std::size_t row = 0;
        for (const auto& [i, j] : kept) {
            const std::size_t ni = attrs[i].labels.size(), nj = attrs[j].labels.size();
            for (std::size_t v = 0; v < ni * nj; ++v, ++row) {
                QVERIFY(std::getline(in, line));
                std::vector<std::string> cells(3, "(all)");
                cells[i] = neutraliseCsvCell(attrs[i].labels[v / nj]);
                cells[j] = neutraliseCsvCell(attrs[j].labels[v % nj]);
                const std::string name = neutraliseCsvCell(attrs[i].name + " × " + attrs[j].name);
                const double h = r->metadata.intervals->halfWidths[row];
                const std::string expected = name + "," + cells[0] + "," + cells[1] + "," +
                                             cells[2] + "," + formatShortest(r->values[row]) + "," +
                                             formatShortest(r->values[row] - h) + "," +
                                             formatShortest(r->values[row] + h);
                QCOMPARE(line, expected);
            }
        }
        QVERIFY(!std::getline(in, line));
        const QJsonObject o =
            QJsonDocument::fromJson(QByteArray::fromStdString(releaseMetadataJson(*r))).object();
        const QJsonObject st = o.value(QStringLiteral("strategy")).toObject();
        QCOMPARE(st.value(QStringLiteral("published")).toString(),
                 QStringLiteral("workload answers"));
        const QJsonArray pm = st.value(QStringLiteral("published_marginals")).toArray();
        QCOMPARE(pm.size(), 3);
        QCOMPARE(pm[1].toObject().value(QStringLiteral("name")).toString(),
                 QStringLiteral("=sex × class"));
        QCOMPARE(pm[1].toObject().value(QStringLiteral("values")).toInt(), 4);
        QCOMPARE(pm[2].toObject().value(QStringLiteral("first_csv_row")).toInt(), 11);
        QCOMPARE(pm[2].toObject().value(QStringLiteral("attributes")).toArray().size(), 2);
        QVERIFY(st.value(QStringLiteral("published_values"))
                    .toString()
                    .contains(QStringLiteral("not the table's cells")));
        QCOMPARE(o.value(QStringLiteral("intervals"))
                     .toObject()
                     .value(QStringLiteral("half_widths"))
                     .toArray()
                     .size(),
                 16);
        QVERIFY(o.value(QStringLiteral("intervals"))
                    .toObject()
                    .value(QStringLiteral("sentence"))
                    .toString()
                    .contains(QStringLiteral("each published marginal count")));
        // The declared table is still described: its attributes and cells.
        QCOMPARE(o.value(QStringLiteral("attributes")).toArray().size(), 3);
        QCOMPARE(o.value(QStringLiteral("bins")).toObject().value(QStringLiteral("count")).toInt(),
                 12);
        // A release of the cells says so.
        auto cellsPlan = planStrategyRelease(
            std::make_shared<const Workload>(
                Workload::make(*WorkloadSpec::parse("identity"), shape).value()),
            DesignTemplate::PIdentity, {1, 1, 1});
        QVERIFY2(cellsPlan, cellsPlan ? "" : cellsPlan.error().message.c_str());
        auto rc = releaseTableThroughStrategy(spec, *cellsPlan, *table, rng);
        QVERIFY(rc);
        const QJsonObject oc =
            QJsonDocument::fromJson(QByteArray::fromStdString(releaseMetadataJson(*rc))).object();
        QCOMPARE(oc.value(QStringLiteral("strategy"))
                     .toObject()
                     .value(QStringLiteral("published"))
                     .toString(),
                 QStringLiteral("cells"));
        QVERIFY(releaseCsvText(*rc).rfind("'=sex,age,class,value,lower,upper\n", 0) == 0);
    }

    void atomicWriteNoOverwrite() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("a.csv")).toStdString();
        QVERIFY(writeFileAtomically(path, "first\n"));
        QCOMPARE(slurp(path), std::string("first\n"));
        auto again = writeFileAtomically(path, "second\n");
        QVERIFY(!again);
        QVERIFY(again.error().message.find("overwrite") != std::string::npos);
        QCOMPARE(slurp(path), std::string("first\n"));
        AtomicWriteOptions overwrite;
        overwrite.overwrite = true;
        QVERIFY(writeFileAtomically(path, "second\n", overwrite));
        QCOMPARE(slurp(path), std::string("second\n"));
        QCOMPARE(entries(dir), QStringList{QStringLiteral("a.csv")});
    }

    void atomicWriteFailureLeavesNothing() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("b.csv")).toStdString();
        std::string seenTemp;
        AtomicWriteOptions opt;
        opt.beforeCommit = [&](const std::string& temp) -> Status {
            seenTemp = temp;
            // The temporary file holds the complete bytes at this point.
            if (slurp(temp) != "payload") {
                return Error{"temporary file incomplete"};
            }
            return Error{"simulated failure"};
        };
        auto s = writeFileAtomically(path, "payload", opt);
        QVERIFY(!s);
        QVERIFY(s.error().message.find("simulated failure") != std::string::npos);
        QVERIFY(!seenTemp.empty());
        QVERIFY(!fileExists(path));
        QVERIFY(!fileExists(seenTemp));
        QVERIFY(entries(dir).isEmpty());
        // An overwrite that fails keeps the old content.
        QVERIFY(writeFileAtomically(path, "old"));
        opt.overwrite = true;
        QVERIFY(!writeFileAtomically(path, "payload", opt));
        QCOMPARE(slurp(path), std::string("old"));
        QCOMPARE(entries(dir), QStringList{QStringLiteral("b.csv")});
        // A directory that does not exist.
        QVERIFY(
            !writeFileAtomically(dir.filePath(QStringLiteral("no/such/c.csv")).toStdString(), "x"));
    }

    void writeReleaseAllOrNothing() {
        QTemporaryDir dir;
        ReleaseWritePlan plan;
        plan.csvPath = dir.filePath(QStringLiteral("r.csv")).toStdString();
        plan.ledgerPath = dir.filePath(QStringLiteral("ledger.json")).toStdString();
        auto ledger = PrivacyLedger::create("test", "0.25", "0", Composition::Basic);
        QVERIFY(ledger);

        // Commits happen in the order: ledger (the charge), CSV, metadata (issue #17: the budget
        // is on disk before any released value appears under its final name).
        // A failure writing the charge: nothing is written at all.
        int calls = 0;
        plan.beforeCommit = [&](const std::string&) -> Status {
            return ++calls == 1 ? Status(Error{"simulated failure"}) : okStatus();
        };
        auto failed = writeRelease(sampleRelease(), ledger.value(), plan);
        QVERIFY(!failed);
        QVERIFY2(failed.error().message.find("not charged") != std::string::npos,
                 failed.error().message.c_str());
        QVERIFY(entries(dir).isEmpty());
        QVERIFY(ledger->releases().empty());

        // A failure publishing the CSV (nothing visible yet): the temporaries are removed and the
        // charge is withdrawn; the ledger file is left with no release.
        calls = 0;
        plan.beforeCommit = [&](const std::string&) -> Status {
            return ++calls == 2 ? Status(Error{"simulated failure"}) : okStatus();
        };
        failed = writeRelease(sampleRelease(), ledger.value(), plan);
        QVERIFY(!failed);
        QVERIFY2(failed.error().message.find("charge was withdrawn") != std::string::npos,
                 failed.error().message.c_str());
        QCOMPARE(entries(dir), QStringList{QStringLiteral("ledger.json")});
        QVERIFY(ledger->releases().empty());
        QVERIFY(PrivacyLedger::load(plan.ledgerPath)->releases().empty());

        // A failure publishing the metadata after the CSV appeared: the CSV is removed, but the
        // charge stays ("charged, not published"), in memory and on disk.
        calls = 0;
        plan.beforeCommit = [&](const std::string&) -> Status {
            return ++calls == 3 ? Status(Error{"simulated failure"}) : okStatus();
        };
        failed = writeRelease(sampleRelease(), ledger.value(), plan);
        QVERIFY(!failed);
        QVERIFY2(failed.error().message.find("charged, not published") != std::string::npos,
                 failed.error().message.c_str());
        QCOMPARE(entries(dir), QStringList{QStringLiteral("ledger.json")});
        QCOMPARE(ledger->releases().size(), std::size_t{1});
        QCOMPARE(ledger->releases()[0].state, ReleaseState::NotPublished);
        auto kept = PrivacyLedger::load(plan.ledgerPath);
        QVERIFY(kept);
        QCOMPARE(kept->releases().size(), std::size_t{1});
        QCOMPARE(kept->releases()[0].state, ReleaseState::NotPublished);
        ledger = PrivacyLedger::create("test", "0.25", "0", Composition::Basic);
        QVERIFY(::unlink(plan.ledgerPath.c_str()) == 0);

        plan.beforeCommit = {};
        auto ok = writeRelease(sampleRelease(), ledger.value(), plan);
        QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
        const std::string jsonPath = metadataPathFor(plan.csvPath);
        QVERIFY(fileExists(plan.csvPath) && fileExists(jsonPath) && fileExists(plan.ledgerPath));
        QCOMPARE(ok->state, ReleaseState::Published);
        QCOMPARE(entries(dir).size(), 3);  // no temporaries left
        QCOMPARE(ok->sha256.at(0), sha256Hex(slurp(plan.csvPath)));
        QCOMPARE(ok->sha256.at(1), sha256Hex(slurp(jsonPath)));
        auto onDisk = PrivacyLedger::load(plan.ledgerPath);
        QVERIFY(onDisk);
        QCOMPARE(onDisk->releases().size(), std::size_t{1});

        // Files exist: refused without overwrite, nothing changes.
        const std::string before = slurp(plan.csvPath);
        const std::string ledgerBefore = slurp(plan.ledgerPath);
        auto exists = writeRelease(sampleRelease(), ledger.value(), plan);
        QVERIFY(!exists);
        QVERIFY(exists.error().message.find("overwrite") != std::string::npos);
        QCOMPARE(slurp(plan.csvPath), before);
        QCOMPARE(slurp(plan.ledgerPath), ledgerBefore);

        // Over budget (0.1 + 0.1 + 0.1 > 0.25): refused before anything is written, even with
        // overwrite.
        plan.overwrite = true;
        QVERIFY(writeRelease(sampleRelease(), ledger.value(), plan));
        auto over = writeRelease(sampleRelease(), ledger.value(), plan);
        QVERIFY(!over);
        QVERIFY2(over.error().message.find("refused") != std::string::npos,
                 over.error().message.c_str());
        QCOMPARE(ledger->releases().size(), std::size_t{2});
        QCOMPARE(PrivacyLedger::load(plan.ledgerPath)->releases().size(), std::size_t{2});
        QCOMPARE(entries(dir).size(), 3);
    }
};

QTEST_APPLESS_MAIN(TestReleaseFiles)
#include "tst_release_files.moc"
