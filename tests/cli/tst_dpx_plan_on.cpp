// dpx tradeoff --plan-on and dpx release --plan-on (issue #22, "choosing ε without leaking";
// docs/cli.md): the curves on a public proxy equal the curves on that proxy histogram given
// directly with --counts; they do not depend on the confidential counts at all (two different
// data sets with the same bins give the same output); the JSON states what the numbers were
// computed on; a release records what ε was chosen on; bad plans are refused with messages that
// name the problem.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "dpx_process.h"

namespace {

using dpxtest::describe;
using dpxtest::Run;
using dpxtest::words;

Run dpx(const QString& args) {
    return dpxtest::runDpx(words(args));
}

// The points array of a curves run: the top-level array (without --plan-on) or "points".
QJsonArray pointsOf(const Run& r) {
    const QJsonDocument doc = QJsonDocument::fromJson(r.out);
    return doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("points")).toArray();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

const QString kCurves = QStringLiteral(
    "tradeoff --metric l1 --configs laplace:clamp,gm:identity,geometric:resize "
    "--epsilons 0.2,1,3 --trials 300 --seed 5 --threads 1 ");

}  // namespace

class TestDpxPlanOn : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void proxyEqualsTheHistogramGivenDirectly() {
        // weights 1,0,3 scaled to N = 8 is exactly 2,0,6.
        const Run proxy =
            dpx(kCurves + QStringLiteral("--counts 5,9,1 --plan-on weights:1,0,3 --population 8"));
        const Run direct = dpx(kCurves + QStringLiteral("--counts 2,0,6"));
        QVERIFY2(proxy.exitCode == 0 && proxy.jsonOk, describe(proxy));
        QVERIFY2(direct.exitCode == 0, describe(direct));
        QCOMPARE(pointsOf(proxy).size(), 9);
        QCOMPARE(pointsOf(proxy), pointsOf(direct));
        QCOMPARE(proxy.json.value(QStringLiteral("computed_on")).toString(),
                 QStringLiteral("public proxy: weights 1,0,3, N = 8"));
        const QJsonObject plan = proxy.json.value(QStringLiteral("plan_on")).toObject();
        QCOMPARE(plan.value(QStringLiteral("kind")).toString(), QStringLiteral("weights"));
        QCOMPARE(plan.value(QStringLiteral("population")).toInteger(), 8);
    }

    void proxyDoesNotReadTheConfidentialCounts() {
        // Same bins, very different counts and totals: identical output on a proxy.
        for (const char* plan : {"uniform", "normal:1,0.8", "normal:50%,25%"}) {
            const QString tail = QStringLiteral("--plan-on %1 --population 500 --frontier")
                                     .arg(QString::fromLatin1(plan));
            const Run a = dpx(kCurves + QStringLiteral("--counts 3,8,12 ") + tail);
            const Run b = dpx(kCurves + QStringLiteral("--counts 400,0,77777 ") + tail);
            QVERIFY2(a.exitCode == 0 && a.jsonOk, describe(a));
            QCOMPARE(a.out, b.out);
        }
        // While on the confidential data they differ, and the JSON says what they were on.
        const Run c = dpx(kCurves + QStringLiteral("--counts 3,8,12 --plan-on confidential"));
        const Run d = dpx(kCurves + QStringLiteral("--counts 400,0,77777 --plan-on confidential"));
        QVERIFY2(c.exitCode == 0 && c.jsonOk, describe(c));
        QVERIFY(pointsOf(c) != pointsOf(d));
        QCOMPARE(c.json.value(QStringLiteral("computed_on")).toString(),
                 QStringLiteral("confidential data"));
        // Without --plan-on the output keeps its old form (an array).
        const Run old = dpx(kCurves + QStringLiteral("--counts 3,8,12"));
        QVERIFY(QJsonDocument::fromJson(old.out).isArray());
        QCOMPARE(pointsOf(old), pointsOf(c));
    }

    void previousReleaseAndShapeFile() {
        QTemporaryDir dir;
        // A previous release: its released values (a negative one counts as 0), not its truth.
        const QString rel = dir.filePath(QStringLiteral("r.csv"));
        writeFile(rel, "bin,value,lower,upper\na,-2,-5,1\nb,10,7,13\nc,30,27,33\n");
        const Run proxy = dpx(kCurves + QStringLiteral("--counts 1,1,1 --plan-on release:") + rel +
                              QStringLiteral(" --population 40"));
        const Run direct = dpx(kCurves + QStringLiteral("--counts 0,10,30"));
        QVERIFY2(proxy.exitCode == 0 && proxy.jsonOk, describe(proxy));
        QCOMPARE(pointsOf(proxy), pointsOf(direct));
        QVERIFY(proxy.json.value(QStringLiteral("computed_on"))
                    .toString()
                    .contains(QStringLiteral("previous release")));
        // A shape file of weights with a header.
        const QString shape = dir.filePath(QStringLiteral("s.csv"));
        writeFile(shape, "weight\n0.5\n1.5\n2\n");
        const Run s = dpx(kCurves + QStringLiteral("--counts 1,1,1 --plan-on shape:") + shape +
                          QStringLiteral(" --population 8"));
        QVERIFY2(s.exitCode == 0, describe(s));
        QCOMPARE(pointsOf(s), pointsOf(dpx(kCurves + QStringLiteral("--counts 1,3,4"))));
        // The accuracy-first solver on a proxy states it too.
        const Run t =
            dpx(QStringLiteral("tradeoff --counts 3,8,12 --metric sse --configs "
                               "laplace:clamp --target 10 --plan-on uniform "
                               "--population 300"));
        QVERIFY2(t.exitCode == 0 && t.jsonOk, describe(t));
        QCOMPARE(t.json.value(QStringLiteral("computed_on")).toString(),
                 QStringLiteral("public proxy: uniform, N = 300"));
    }

    void releaseRecordsWhatEpsilonWasChosenOn() {
        QTemporaryDir dir;
        const auto release = [&](const QString& name, const QString& extra) {
            return dpx(QStringLiteral("release --counts 5,10,20 --mechanism discrete-laplace "
                                      "--epsilon 0.5 --budget 5 --ledger ") +
                       dir.filePath(QStringLiteral("l.json")) + QStringLiteral(" --out ") +
                       dir.filePath(name + QStringLiteral(".csv")) + QLatin1Char(' ') + extra);
        };
        const auto metadata = [&](const QString& name) {
            QFile f(dir.filePath(name + QStringLiteral(".json")));
            return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                               : QJsonObject();
        };
        QVERIFY(release(QStringLiteral("a"), QStringLiteral("--plan-on uniform --population 30000"))
                    .exitCode == 0);
        QCOMPARE(
            metadata(QStringLiteral("a")).value(QStringLiteral("epsilon_chosen_on")).toString(),
            QStringLiteral("public proxy: uniform, N = 30000"));
        QVERIFY(release(QStringLiteral("b"), QStringLiteral("--plan-on confidential")).exitCode ==
                0);
        QCOMPARE(
            metadata(QStringLiteral("b")).value(QStringLiteral("epsilon_chosen_on")).toString(),
            QStringLiteral("confidential data"));
        QVERIFY(release(QStringLiteral("c"), QString()).exitCode == 0);
        QVERIFY(!metadata(QStringLiteral("c")).contains(QStringLiteral("epsilon_chosen_on")));
        const Run bad = release(QStringLiteral("d"), QStringLiteral("--plan-on uniform"));
        QVERIFY(bad.exitCode != 0);
        QVERIFY(bad.err.contains("--population"));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("d.csv"))));
    }

    void badPlansAreRefused() {
        const QString base = QStringLiteral(
            "tradeoff --counts 3,8,12 --metric sse --configs laplace:clamp --epsilons 1 ");
        struct Case {
            const char* args;
            const char* needle;
        };
        for (const Case& c : {
                 Case{"--plan-on uniform", "needs --population N, the declared population"},
                 Case{"--plan-on uniform --population 0", "1 ≤ N"},
                 Case{"--plan-on uniform --population -3", "1 ≤ N"},
                 Case{"--plan-on uniform --population x", "not an integer"},
                 Case{"--population 10", "applies with --plan-on"},
                 Case{"--plan-on confidential --population 10", "not to the confidential"},
                 Case{"--plan-on gaussian:1,2 --population 10", "unknown 'gaussian'"},
                 Case{"--plan-on normal:1 --population 10", "normal:MEAN,SD"},
                 Case{"--plan-on normal:1,0 --population 10", "SD > 0"},
                 Case{"--plan-on weights:1,2 --population 10", "same bins"},
                 Case{"--plan-on weights:1,-1,2 --population 10", "negative weight"},
                 Case{"--plan-on weights:0,0,0 --population 10", "sum to 0"},
                 Case{"--plan-on shape:/nonexistent/w.csv --population 10", "w.csv"},
                 Case{"--plan-on release:/nonexistent/r.csv --population 10", "r.csv"},
             }) {
            const Run r = dpx(base + QString::fromUtf8(c.args));
            QVERIFY2(r.exitCode != 0, c.args);
            QVERIFY2(r.out.isEmpty(), c.args);
            QVERIFY2(QString::fromUtf8(r.err).contains(QString::fromUtf8(c.needle)),
                     qPrintable(QString::fromUtf8(c.args) + QStringLiteral(": ") +
                                QString::fromUtf8(r.err)));
        }
    }
};

QTEST_GUILESS_MAIN(TestDpxPlanOn)
#include "tst_dpx_plan_on.moc"
