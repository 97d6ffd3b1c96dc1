// dpx release (issue #8) against its contract (docs/cli.md "dpx release"): the release CSV, its
// JSON metadata and the ledger exist with the documented fields; the CSV holds one value per
// declared bin and no true counts; a refused release (over budget, existing files, tampered
// ledger, bad option, undeclared bins) exits non-zero and writes nothing; --overwrite replaces.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "dpx_process.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace {

using dpxtest::describe;
using dpxtest::Run;

Run dpx(const QStringList& args) {
    return dpxtest::runDpx(args);
}

using dpxtest::words;

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList entries(const QTemporaryDir& dir) {
    return QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

// The sections of a decision report's HTML by their id: the text from <h2 id="ID"> to the next.
QMap<QString, QByteArray> reportSections(const QByteArray& html) {
    QMap<QString, QByteArray> out;
    const QByteArray mark = "<h2 id=\"";
    qsizetype at = html.indexOf(mark);
    while (at >= 0) {
        const qsizetype idEnd = html.indexOf('"', at + mark.size());
        const qsizetype next = html.indexOf(mark, at + 1);
        const QString id = QString::fromUtf8(html.mid(at + mark.size(), idEnd - at - mark.size()));
        out[id] = html.mid(at, (next < 0 ? html.indexOf("<hr>", at) : next) - at);
        at = next;
    }
    return out;
}

}  // namespace

class TestDpxRelease : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Issue #22: dpx report --release rebuilds, from the files of a release and its ledger, the
    // report dpx release --report wrote at release time: every section the same (HTML text)
    // except the files' paragraph, the provenance and the budget's note on the rebuild; for a
    // plain release, one declared a sample and one through a strategy. The PDF is written too.
    void reportFromReleaseFiles_data() {
        QTest::addColumn<QString>("extra");
        QTest::newRow("discrete-laplace") << QString();
        QTest::newRow("sample") << QStringLiteral("--sample-of 100000 --design-effect 2");
        QTest::newRow("strategy") << QStringLiteral("--strategy allrange --restarts 1");
        QTest::newRow("gaussian") << QStringLiteral(
            "--mechanism discrete-gaussian --delta 1e-6 --composition zcdp --budget 4,1e-5");
    }
    void reportFromReleaseFiles() {
        QFETCH(QString, extra);
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("l.json"));
        auto args = [&](const QString& name) {
            QStringList a = words("release --counts 5,10,20,40 --epsilon 1");
            a << QStringLiteral("--out") << dir.filePath(name + QStringLiteral(".csv"))
              << QStringLiteral("--ledger") << ledger;
            QStringList e = words(extra);
            if (!e.contains(QStringLiteral("--mechanism"))) {
                a << words("--mechanism discrete-laplace");
            }
            if (!e.contains(QStringLiteral("--budget"))) {
                a << words("--budget 4");
            }
            return a + e;
        };
        const Run first = dpx(args(QStringLiteral("r1")));
        QVERIFY2(first.exitCode == 0, describe(first));
        const Run second =
            dpx(args(QStringLiteral("r2"))
                << QStringLiteral("--report") << dir.filePath(QStringLiteral("at-release.html")));
        QVERIFY2(second.exitCode == 0, describe(second));
        QVERIFY(dpx(args(QStringLiteral("r3"))).exitCode == 0);  // after it: not counted
        const Run rebuilt =
            dpx({QStringLiteral("report"), QStringLiteral("--release"),
                 dir.filePath(QStringLiteral("r2.json")), QStringLiteral("--ledger"), ledger,
                 QStringLiteral("--out"), dir.filePath(QStringLiteral("rebuilt.html"))});
        QVERIFY2(rebuilt.exitCode == 0 && rebuilt.jsonOk, describe(rebuilt));
        QCOMPARE(rebuilt.json[QStringLiteral("ledger_release")].toInt(), 2);
        QCOMPARE(rebuilt.json[QStringLiteral("csv_sha256")].toString().toLatin1(),
                 QCryptographicHash::hash(readFile(dir.filePath(QStringLiteral("r2.csv"))),
                                          QCryptographicHash::Sha256)
                     .toHex());
        const auto a = reportSections(readFile(dir.filePath(QStringLiteral("at-release.html"))));
        const auto b = reportSections(readFile(dir.filePath(QStringLiteral("rebuilt.html"))));
        QVERIFY(a.size() >= 9);
        QCOMPARE(a.keys(), b.keys());
        QCOMPARE(a.contains(QStringLiteral("sampling")), extra.contains(QStringLiteral("sample")));
        QCOMPARE(a.contains(QStringLiteral("strategy")),
                 extra.contains(QStringLiteral("strategy")));
        for (const QString& id : a.keys()) {
            if (id == QStringLiteral("files") || id == QStringLiteral("provenance")) {
                continue;
            }
            if (id == QStringLiteral("budget")) {
                // The same rows; the rebuild adds one note.
                const QByteArray rows = a[id].left(a[id].indexOf("</table>"));
                QVERIFY2(b[id].startsWith(rows), b[id].constData());
                QVERIFY(b[id].contains("release 2 of the ledger"));
                continue;
            }
            QVERIFY2(a[id] == b[id],
                     qPrintable(id + QStringLiteral(":\n") + QString::fromUtf8(a[id]) +
                                QStringLiteral("\n---\n") + QString::fromUtf8(b[id])));
        }
        QVERIFY(readFile(dir.filePath(QStringLiteral("rebuilt.html"))).contains("Rebuilt on "));
        const Run pdf =
            dpx({QStringLiteral("report"), QStringLiteral("--release"),
                 dir.filePath(QStringLiteral("r2.json")), QStringLiteral("--ledger"), ledger,
                 QStringLiteral("--out"), dir.filePath(QStringLiteral("rebuilt.pdf"))});
        QVERIFY2(pdf.exitCode == 0, describe(pdf));
        QVERIFY(readFile(dir.filePath(QStringLiteral("rebuilt.pdf"))).startsWith("%PDF-"));
    }

    // dpx report refuses every bad input with a message and writes nothing.
    void reportFromReleaseFilesRefused() {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("l.json"));
        const QString csv = dir.filePath(QStringLiteral("r.csv"));
        const QString json = dir.filePath(QStringLiteral("r.json"));
        QVERIFY(dpx(words("release --counts 5,10,20 --mechanism discrete-laplace --epsilon 1 "
                          "--budget 2")
                    << QStringLiteral("--out") << csv << QStringLiteral("--ledger") << ledger)
                    .exitCode == 0);
        const QString out = dir.filePath(QStringLiteral("report.html"));
        auto report = [&](QStringList a) { return dpx(QStringList{QStringLiteral("report")} + a); };
        struct Case {
            QStringList args;
            int code;
            const char* message;
        };
        const QString missing = dir.filePath(QStringLiteral("missing.json"));
        const QString otherLedger = dir.filePath(QStringLiteral("other.json"));
        QVERIFY(dpx(words("release --counts 1,2,3 --mechanism discrete-laplace --epsilon 1 "
                          "--budget 2")
                    << QStringLiteral("--out") << dir.filePath(QStringLiteral("o.csv"))
                    << QStringLiteral("--ledger") << otherLedger)
                    .exitCode == 0);
        const std::vector<Case> cases = {
            {{QStringLiteral("--out"), out}, 2, "--release is required"},
            {{QStringLiteral("--release"), json}, 2, "--out is required"},
            {{QStringLiteral("--release"), json, QStringLiteral("--out"),
              dir.filePath(QStringLiteral("report.txt"))},
             2,
             "must end in .pdf, .html or .htm"},
            {{QStringLiteral("--release"), missing, QStringLiteral("--out"), out},
             1,
             "does not exist"},
            {{QStringLiteral("--release"), json, QStringLiteral("--ledger"), otherLedger,
              QStringLiteral("--out"), out},
             1,
             "does not contain this release"},
            {{QStringLiteral("--release"), json, QStringLiteral("--csv"), json,
              QStringLiteral("--out"), out},
             1,
             "the CSV and the metadata are the same file"},
        };
        for (const Case& c : cases) {
            const Run r = report(c.args);
            QVERIFY2(r.exitCode == c.code && r.err.contains(c.message),
                     describe(r) + "\nexpected: " + c.message);
            QVERIFY(!QFile::exists(out));
        }
        // An existing report is not replaced without --overwrite.
        const QString existing = dir.filePath(QStringLiteral("existing.html"));
        {
            QFile f(existing);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("keep");
        }
        const Run kept =
            report({QStringLiteral("--release"), json, QStringLiteral("--out"), existing});
        QVERIFY2(kept.exitCode == 2 && kept.err.contains("exists"), describe(kept));
        QCOMPARE(readFile(existing), QByteArray("keep"));
        // The CSV edited after the release: refused with the ledger.
        QByteArray bytes = readFile(csv);
        bytes.append("4,1,0,2\n");
        {
            QFile f(csv);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(bytes);
        }
        const Run edited = report({QStringLiteral("--release"), json, QStringLiteral("--ledger"),
                                   ledger, QStringLiteral("--out"), out});
        QVERIFY2(edited.exitCode == 1 && edited.err.contains("not the CSV of this metadata"),
                 describe(edited));
        QVERIFY(!QFile::exists(out));
    }

    void releaseFromDataWritesDocumentedFiles() {
        QTemporaryDir dir;
        const QString data = dir.filePath(QStringLiteral("people.csv"));
        {
            QFile f(data);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QByteArray csv = "id,age\n";
            for (int i = 0; i < 300; ++i) {
                csv += QByteArray::number(i) + "," + QByteArray::number(20 + (i * 7) % 50) + "\n";
            }
            f.write(csv);
        }
        const QString out = dir.filePath(QStringLiteral("release.csv"));
        const QString ledger = dir.filePath(QStringLiteral("ledger.json"));
        const Run r = dpx(QStringList{
            QStringLiteral("release"), QStringLiteral("--data"), data, QStringLiteral("--column"),
            QStringLiteral("age"), QStringLiteral("--bins"), QStringLiteral("0:100:10"),
            QStringLiteral("--mechanism"), QStringLiteral("discrete-laplace"),
            QStringLiteral("--epsilon"), QStringLiteral("0.5"), QStringLiteral("--postprocess"),
            QStringLiteral("clamp"), QStringLiteral("--out"), out, QStringLiteral("--ledger"),
            ledger, QStringLiteral("--budget"), QStringLiteral("1")});
        QVERIFY2(r.exitCode == 0, describe(r));
        QCOMPARE(r.json.value(QStringLiteral("epsilon_spent")).toDouble(), 0.5);
        QCOMPARE(r.json.value(QStringLiteral("epsilon_remaining")).toDouble(), 0.5);

        const QList<QByteArray> lines = readFile(out).trimmed().split('\n');
        QCOMPARE(lines.size(), 11);  // header + every declared bin, empty ones included
        QCOMPARE(lines[0], QByteArray("bin,value,lower,upper"));  // intervals: issue #22
        // ε = 0.5: DLap(t = 2), α = e^(−1/2); the 95 % half-width is the smallest h with
        // 2α^(h+1)/(1 + α) ≤ 0.05 (h = 6), still valid after clamp.
        const double h = 6;
        QVERIFY(2 * std::exp(-0.5 * (h + 1)) / (1 + std::exp(-0.5)) <= 0.05);
        QVERIFY(2 * std::exp(-0.5 * h) / (1 + std::exp(-0.5)) > 0.05);
        QCOMPARE(r.json.value(QStringLiteral("half_width")).toDouble(), h);
        for (int i = 1; i < lines.size(); ++i) {
            bool ok = false;
            const QList<QByteArray> cells = lines[i].split(',');
            // The label is quoted and may hold commas: value, lower, upper are the last three.
            QVERIFY(cells.size() >= 4);
            const auto n = cells.size();
            const double v = cells[n - 3].toDouble(&ok);
            QVERIFY(ok && v >= 0);  // clamp applied
            QCOMPARE(cells[n - 2].toDouble(), v - h);
            QCOMPARE(cells[n - 1].toDouble(), v + h);
        }

        const QJsonObject md =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("release.json"))))
                .object();
        for (const char* key :
             {"mechanism", "sampler", "privacy", "sensitivity", "bins", "post_processing",
              "app_version", "timestamp", "source", "intervals"}) {
            QVERIFY2(md.contains(QLatin1String(key)), key);
        }
        QCOMPARE(md.value(QStringLiteral("post_processing")).toString(), QStringLiteral("clamp"));
        QCOMPARE(md.value(QStringLiteral("app_version")).toString(),
                 QStringLiteral(DPX_EXPECTED_VERSION));
        const QJsonObject bins = md.value(QStringLiteral("bins")).toObject();
        QCOMPARE(bins.value(QStringLiteral("labels")).toArray().size(), 10);
        QCOMPARE(bins.value(QStringLiteral("edges")).toArray().size(), 11);
        QCOMPARE(
            md.value(QStringLiteral("sensitivity")).toObject().value(QStringLiteral("l1")).toInt(),
            1);
        QVERIFY(!md.value(QStringLiteral("privacy"))
                     .toObject()
                     .value(QStringLiteral("guarantee"))
                     .toString()
                     .isEmpty());

        const QJsonObject l = QJsonDocument::fromJson(readFile(ledger)).object();
        QCOMPARE(l.value(QStringLiteral("format")).toString(),
                 QStringLiteral("dpx-privacy-ledger"));
        const QJsonArray rel = l.value(QStringLiteral("releases")).toArray();
        QCOMPARE(rel.size(), 1);
        QCOMPARE(rel[0].toObject().value(QStringLiteral("files")).toArray().size(), 2);
        QCOMPARE(
            l.value(QStringLiteral("total")).toObject().value(QStringLiteral("epsilon")).toString(),
            QStringLiteral("1"));
    }

    void budgetEdgeAndRefusalWritesNothing() {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("l.json"));
        auto release = [&](const QString& name, const QString& extra) {
            return dpx(QStringList{QStringLiteral("release"), QStringLiteral("--counts"),
                                   QStringLiteral("5,0,12"), QStringLiteral("--mechanism"),
                                   QStringLiteral("discrete-laplace"), QStringLiteral("--epsilon"),
                                   QStringLiteral("0.1"), QStringLiteral("--out"),
                                   dir.filePath(name), QStringLiteral("--ledger"), ledger} +
                       words(extra));
        };
        for (int i = 0; i < 10; ++i) {
            const Run r = release(QStringLiteral("r%1.csv").arg(i),
                                  i == 0 ? QStringLiteral("--budget 1") : QString());
            QVERIFY2(r.exitCode == 0, describe(r));
        }
        const QByteArray ledgerBefore = readFile(ledger);
        const QStringList before = entries(dir);
        const Run over = release(QStringLiteral("r10.csv"), QString());
        QVERIFY2(over.exitCode == 1, describe(over));
        QVERIFY2(over.err.contains("refused") && over.err.contains("left"), describe(over));
        QVERIFY(over.out.isEmpty());
        QCOMPARE(entries(dir), before);  // no r10.csv, no r10.json, no temporary file
        QCOMPARE(readFile(ledger), ledgerBefore);

        // A different total for an existing ledger is refused.
        const Run other = release(QStringLiteral("x.csv"), QStringLiteral("--budget 2"));
        QVERIFY2(other.exitCode != 0 && other.err.contains("--budget"), describe(other));
        QCOMPARE(entries(dir), before);
    }

    void tamperedLedgerRefused() {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("l.json"));
        const QStringList base{QStringLiteral("release"),
                               QStringLiteral("--counts"),
                               QStringLiteral("1,2"),
                               QStringLiteral("--mechanism"),
                               QStringLiteral("discrete-laplace"),
                               QStringLiteral("--epsilon"),
                               QStringLiteral("0.5"),
                               QStringLiteral("--ledger"),
                               ledger};
        Run r =
            dpx(base + QStringList{QStringLiteral("--out"), dir.filePath(QStringLiteral("a.csv")),
                                   QStringLiteral("--budget"), QStringLiteral("1")});
        QVERIFY2(r.exitCode == 0, describe(r));
        QByteArray text = readFile(ledger);
        text.replace("\"epsilon\": \"0.5\"", "\"epsilon\": \"0.05\"");
        {
            QFile f(ledger);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(text);
        }
        const QStringList before = entries(dir);
        r = dpx(base + QStringList{QStringLiteral("--out"), dir.filePath(QStringLiteral("b.csv"))});
        QVERIFY2(r.exitCode == 1 && r.err.contains("checksum"), describe(r));
        QCOMPARE(entries(dir), before);
        QCOMPARE(readFile(ledger), text);  // never reset
    }

    void overwrite() {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("r.csv"));
        const QStringList base{QStringLiteral("release"),
                               QStringLiteral("--counts"),
                               QStringLiteral("1,2,3"),
                               QStringLiteral("--mechanism"),
                               QStringLiteral("geometric-matrix"),
                               QStringLiteral("--n"),
                               QStringLiteral("10"),
                               QStringLiteral("--epsilon"),
                               QStringLiteral("0.25"),
                               QStringLiteral("--out"),
                               out,
                               QStringLiteral("--ledger"),
                               dir.filePath(QStringLiteral("l.json")),
                               QStringLiteral("--budget"),
                               QStringLiteral("1")};
        Run r = dpx(base);
        QVERIFY2(r.exitCode == 0, describe(r));
        const QByteArray ledgerAfterFirst = readFile(dir.filePath(QStringLiteral("l.json")));
        r = dpx(base);
        QVERIFY2(r.exitCode == 1 && r.err.contains("--overwrite"), describe(r));
        QCOMPARE(readFile(dir.filePath(QStringLiteral("l.json"))), ledgerAfterFirst);
        r = dpx(base + QStringList{QStringLiteral("--overwrite")});
        QVERIFY2(r.exitCode == 0, describe(r));
        QCOMPARE(r.json.value(QStringLiteral("releases_in_ledger")).toInt(), 2);
        QCOMPARE(entries(dir).size(), 3);
    }

    void concurrentReleasesAreSerialised() {
        // Four processes each ask 0.4 of a total of 1 at once: with the ledger's directory locked
        // for the whole release exactly two succeed and the ledger records both. (Without the lock
        // several could read the same ledger, all fit, and the last write would drop entries.)
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("l.json"));
        Run first = dpx(QStringList{
            QStringLiteral("release"), QStringLiteral("--counts"), QStringLiteral("1,2"),
            QStringLiteral("--mechanism"), QStringLiteral("discrete-laplace"),
            QStringLiteral("--epsilon"), QStringLiteral("0.2"), QStringLiteral("--out"),
            dir.filePath(QStringLiteral("first.csv")), QStringLiteral("--ledger"), ledger,
            QStringLiteral("--budget"), QStringLiteral("1")});
        QVERIFY2(first.exitCode == 0, describe(first));
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int i = 0; i < 4; ++i) {
            auto p = std::make_unique<QProcess>();
            p->setProgram(QStringLiteral(DPX_EXECUTABLE));
            p->setArguments(QStringList{
                QStringLiteral("release"), QStringLiteral("--counts"), QStringLiteral("1,2"),
                QStringLiteral("--mechanism"), QStringLiteral("discrete-laplace"),
                QStringLiteral("--epsilon"), QStringLiteral("0.4"), QStringLiteral("--out"),
                dir.filePath(QStringLiteral("c%1.csv").arg(i)), QStringLiteral("--ledger"),
                ledger});
            procs.push_back(std::move(p));
        }
        for (auto& p : procs) {
            p->start();
        }
        int ok = 0;
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(120000));
            ok += p->exitCode() == 0 ? 1 : 0;
        }
        QCOMPARE(ok, 2);  // 0.2 + 0.4 + 0.4 = 1
        const QJsonObject l = QJsonDocument::fromJson(readFile(ledger)).object();
        QCOMPARE(l.value(QStringLiteral("releases")).toArray().size(), 3);
        QCOMPARE(entries(dir).size(), 1 + 2 + 2 * 2);  // ledger, first.*, two releases
    }

    void zcdpGaussian() {
        QTemporaryDir dir;
        const Run r = dpx(
            words(QStringLiteral("release --counts 10,20,30 --mechanism discrete-gaussian "
                                 "--epsilon 0.5 --delta 1e-6 --composition zcdp --budget 1,1e-5 "
                                 "--out %1 --ledger %2"))
                .replaceInStrings(QStringLiteral("%1"), dir.filePath(QStringLiteral("g.csv")))
                .replaceInStrings(QStringLiteral("%2"), dir.filePath(QStringLiteral("l.json"))));
        QVERIFY2(r.exitCode == 0, describe(r));
        QCOMPARE(r.json.value(QStringLiteral("composition")).toString(), QStringLiteral("zcdp"));
        QVERIFY(r.json.value(QStringLiteral("rho_spent")).toDouble() > 0);
        const QJsonObject md =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("g.json")))).object();
        const QJsonObject privacy = md.value(QStringLiteral("privacy")).toObject();
        QVERIFY(privacy.value(QStringLiteral("delta_achieved")).toString().toDouble() <= 1e-6);
    }

    // The discrete Gaussian for replace-one neighbours and a cap of 3 rows per person: accepted,
    // with Δ2² = 2·3² = 18 recorded, ρ = 18/(2σ²) exactly at the recorded σ², δ achieved ≤ δ,
    // and the ledger charged that ρ (zCDP).
    void gaussianReplaceWithCap() {
        QTemporaryDir dir;
        const QString data = dir.filePath(QStringLiteral("visits.csv"));
        {
            QFile f(data);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QByteArray csv = "person,kind\n";
            for (int i = 0; i < 200; ++i) {
                csv += QByteArray::number(i % 60) + "," + (i % 3 == 0 ? "x" : "y") + "\n";
            }
            f.write(csv);
        }
        const Run r =
            dpx(words(QStringLiteral("release --data %3 --column kind --bins categories:x,y "
                                     "--id-column person --cap 3 --neighbouring replace "
                                     "--mechanism discrete-gaussian --epsilon 0.5 --delta 1e-5 "
                                     "--composition zcdp --budget 2,1e-5 --out %1 --ledger %2"))
                    .replaceInStrings(QStringLiteral("%1"), dir.filePath(QStringLiteral("g.csv")))
                    .replaceInStrings(QStringLiteral("%2"), dir.filePath(QStringLiteral("l.json")))
                    .replaceInStrings(QStringLiteral("%3"), data));
        QVERIFY2(r.exitCode == 0, describe(r));
        const QJsonObject md =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("g.json")))).object();
        const QJsonObject sens = md.value(QStringLiteral("sensitivity")).toObject();
        QCOMPARE(sens.value(QStringLiteral("l2_squared")).toInt(), 18);
        QCOMPARE(sens.value(QStringLiteral("contribution_cap")).toInt(), 3);
        QCOMPARE(sens.value(QStringLiteral("neighbouring")).toString(), QStringLiteral("replace"));
        const QJsonObject privacy = md.value(QStringLiteral("privacy")).toObject();
        QVERIFY(privacy.value(QStringLiteral("delta_achieved")).toString().toDouble() <= 1e-5);
        // σ² = a/b as recorded: ρ must be 18·b/(2a) in lowest terms.
        const QString param = md.value(QStringLiteral("sampler"))
                                  .toObject()
                                  .value(QStringLiteral("noise_parameter"))
                                  .toString();
        QVERIFY2(param.startsWith(QStringLiteral("sigma^2 = ")), qPrintable(param));
        const QStringList ab = param.mid(10).split(QLatin1Char('/'));
        const qint64 a = ab[0].toLongLong();
        const qint64 b = ab.size() > 1 ? ab[1].toLongLong() : 1;
        QVERIFY(a > 0 && b > 0);
        const QStringList rho =
            privacy.value(QStringLiteral("rho")).toString().split(QLatin1Char('/'));
        QCOMPARE(rho.size(), 2);
        // ρ = p/q with p·2a = 18·b·q.
        QCOMPARE(rho[0].toLongLong() * 2 * a, 18 * b * rho[1].toLongLong());
        // ρ ≤ what (ε, δ) = (0.5, 1e-5) allows: the (ε, δ) of ρ-zCDP by CKS 2020 Cor. 13,
        // δ = min over α > 1 of e^((α−1)(αρ−ε))/(α−1)·(1−1/α)^α, here on a grid of α, is ≤ 1e-5.
        const double rhoValue = rho[0].toDouble() / rho[1].toDouble();
        double best = 1;
        for (int i = 1; i < 100000; ++i) {
            const double alpha = 1 + i * 0.01;
            best = std::min(best, std::exp((alpha - 1) * (alpha * rhoValue - 0.5)) / (alpha - 1) *
                                      std::pow(1 - 1 / alpha, alpha));
        }
        QVERIFY2(best <= 1e-5, qPrintable(QString::number(best)));
        QVERIFY(rhoValue > 0);
        QCOMPARE(r.json.value(QStringLiteral("rho_spent")).toDouble(), rhoValue);
    }

    void badInputExitsTwoAndWritesNothing_data() {
        QTest::addColumn<QString>("args");
        QTest::addColumn<QByteArray>("needle");
        const QString tail = QStringLiteral(" --out OUT/r.csv --ledger OUT/l.json --budget 1");
        QTest::newRow("no mechanism") << QStringLiteral("release --counts 1,2 --epsilon 1") + tail
                                      << QByteArray("--mechanism");
        QTest::newRow("bad mechanism")
            << QStringLiteral("release --counts 1,2 --mechanism laplace --epsilon 1") + tail
            << QByteArray("mechanism");
        QTest::newRow("epsilon 0")
            << QStringLiteral("release --counts 1,2 --mechanism discrete-laplace --epsilon 0") +
                   tail
            << QByteArray("epsilon");
        QTest::newRow("epsilon nan")
            << QStringLiteral("release --counts 1,2 --mechanism discrete-laplace --epsilon nan") +
                   tail
            << QByteArray("epsilon");
        QTest::newRow("gaussian without delta")
            << QStringLiteral("release --counts 1,2 --mechanism discrete-gaussian --epsilon 1") +
                   tail
            << QByteArray("delta");
        QTest::newRow("matrix without n")
            << QStringLiteral("release --counts 1,2 --mechanism geometric-matrix --epsilon 1") +
                   tail
            << QByteArray("--n");
        QTest::newRow("n negative")
            << QStringLiteral(
                   "release --counts 1,2 --mechanism geometric-matrix --n -3 --epsilon 1") +
                   tail
            << QByteArray("--n");
        QTest::newRow("bad postprocess")
            << QStringLiteral(
                   "release --counts 1,2 --mechanism discrete-laplace --epsilon 1 "
                   "--postprocess smooth") +
                   tail
            << QByteArray("--postprocess");
        QTest::newRow("new ledger without budget")
            << QStringLiteral(
                   "release --counts 1,2 --mechanism discrete-laplace --epsilon 1 "
                   "--out OUT/r.csv --ledger OUT/l.json")
            << QByteArray("--budget");
        QTest::newRow("budget 0")
            << QStringLiteral(
                   "release --counts 1,2 --mechanism discrete-laplace --epsilon 1 "
                   "--out OUT/r.csv --ledger OUT/l.json --budget 0")
            << QByteArray("budget");
        QTest::newRow("negative count")
            << QStringLiteral("release --counts 1,-2 --mechanism discrete-laplace --epsilon 1") +
                   tail
            << QByteArray("--counts");
        QTest::newRow("undeclared categories")
            << QStringLiteral(
                   "release --data OUT/none.csv --column a --bins categories "
                   "--mechanism discrete-laplace --epsilon 1") +
                   tail
            << QByteArray("--bins");
        QTest::newRow("n with laplace")
            << QStringLiteral(
                   "release --counts 1,2 --mechanism discrete-laplace --epsilon 1 --n 5") +
                   tail
            << QByteArray("--n:");
        QTest::newRow("noisefirst with matrix")
            << QStringLiteral(
                   "release --counts 1,2 --mechanism geometric-matrix --n 5 --epsilon 1 "
                   "--postprocess noisefirst") +
                   tail
            << QByteArray("--postprocess:");
        QTest::newRow("gaussian cap 0")
            << QStringLiteral(
                   "release --data OUT/none.csv --column a --bins categories:x,y "
                   "--id-column a --cap 0 --mechanism discrete-gaussian --epsilon 1 "
                   "--delta 1e-6") +
                   tail
            << QByteArray("--cap");
        QTest::newRow("bad composition")
            << QStringLiteral(
                   "release --counts 1,2 --mechanism discrete-laplace --epsilon 1 "
                   "--composition rdp") +
                   tail
            << QByteArray("--composition");
    }
    void badInputExitsTwoAndWritesNothing() {
        QFETCH(QString, args);
        QFETCH(QByteArray, needle);
        QTemporaryDir dir;
        {
            QFile f(dir.filePath(QStringLiteral("none.csv")));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("a\nx\ny\n");
        }
        const QStringList before = entries(dir);
        const Run r = dpx(words(args).replaceInStrings(QStringLiteral("OUT"), dir.path()));
        QVERIFY2(r.exitCode == 2, describe(r));
        QVERIFY2(r.err.startsWith("dpx: error: ") && r.err.contains(needle), describe(r));
        QCOMPARE(entries(dir), before);
    }
};

QTEST_GUILESS_MAIN(TestDpxRelease)
#include "tst_dpx_release.moc"
