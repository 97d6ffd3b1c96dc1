// The document (ui/model/document.h) and its state (ui/model/explorer_state.h): changes propagate
// with the right flags, invalid values are refused without any change, undo/redo restore states
// exactly, slider drags merge into one step, and sessions round-trip while broken files are
// refused.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <limits>

#include "ui/model/document.h"

using namespace dpx;
using namespace dpx::ui;

class TestDocument : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void changesPropagateWithFlags() {
        ExplorerDocument doc;
        QSignalSpy spy(&doc, &ExplorerDocument::changed);
        QVERIFY(doc.setEpsilon(0.5).hasValue());
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.last().at(0).toUInt(), unsigned(MechanismChanged));
        QCOMPARE(doc.state().mechanism.epsilon, 0.5);
        QVERIFY(doc.setSeed(99).hasValue());
        QCOMPARE(spy.last().at(0).toUInt(), unsigned(SeedChanged));
        QVERIFY(doc.setExample(QStringLiteral("ages")).hasValue());
        QCOMPARE(spy.last().at(0).toUInt() & DataChanged, unsigned(DataChanged));
        QVERIFY(doc.setEpsilon(0.5).hasValue());  // same value: no change, no signal
        QCOMPARE(spy.size(), 3);
    }

    void invalidValuesAreRefused() {
        ExplorerDocument doc;
        QSignalSpy spy(&doc, &ExplorerDocument::changed);
        for (double bad : {0.0, -1.0, 0.001, 25.0, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
            const Status st = doc.setEpsilon(bad);
            QVERIFY(!st.hasValue());
            QVERIFY(QString::fromStdString(st.error().message).contains(QStringLiteral("ε")));
        }
        QVERIFY(doc.setMechanism(MechanismChoice::Gaussian).hasValue());
        QVERIFY(!doc.setDelta(0.5).hasValue());
        QVERIFY(!doc.setDelta(0).hasValue());
        QCOMPARE(spy.size(), 1);  // only the mechanism change
        QCOMPARE(doc.state().mechanism.epsilon, 1.0);
        QCOMPARE(doc.undoStack()->count(), 1);
    }

    void undoRedoRestoreStates() {
        ExplorerDocument doc;
        const ExplorerState s0 = doc.state();
        QVERIFY(doc.setMechanism(MechanismChoice::CountGeometric).hasValue());
        const ExplorerState s1 = doc.state();
        QVERIFY(doc.setSeed(7).hasValue());
        QSignalSpy spy(&doc, &ExplorerDocument::changed);
        doc.undoStack()->undo();
        QCOMPARE(doc.state(), s1);
        QCOMPARE(spy.last().at(0).toUInt(), unsigned(SeedChanged));
        doc.undoStack()->undo();
        QCOMPARE(doc.state(), s0);
        doc.undoStack()->redo();
        QCOMPARE(doc.state(), s1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("choose Truncated geometric (GM)"));
    }

    void sliderDragIsOneStep() {
        ExplorerDocument doc;
        for (double e : {1.5, 2.0, 3.0, 4.0}) {
            QVERIFY(doc.setEpsilon(e).hasValue());
        }
        QCOMPARE(doc.undoStack()->count(), 1);
        doc.undoStack()->undo();
        QCOMPARE(doc.state().mechanism.epsilon, 1.0);
        doc.undoStack()->redo();
        QCOMPARE(doc.state().mechanism.epsilon, 4.0);
        // A different kind of change in between starts a new step.
        QVERIFY(doc.setSeed(3).hasValue());
        QVERIFY(doc.setEpsilon(5).hasValue());
        QCOMPARE(doc.undoStack()->count(), 3);
    }

    void sessionRoundTrip() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        ExplorerDocument doc;
        ExplorerState s = doc.state();
        s.data.exampleId = QStringLiteral("ages");
        s.mechanism.kind = MechanismChoice::CountOptimal;
        s.mechanism.epsilon = 0.37;
        s.mechanism.delta = 1e-9;
        s.mechanism.seed =
            std::numeric_limits<std::uint64_t>::max();  // not representable as a double
        s.mechanism.lp.constraints = {QStringLiteral("wh"), QStringLiteral("cm")};
        s.mechanism.lp.objective = QStringLiteral("minimax-l1");
        s.data.neighbouring = Neighbouring::Replace;
        s.data.binning.rangeLo = -2.5;
        s.data.binning.rangeHi = 7;
        s.data.binning.kind = BinningChoice::EqualWidth;
        s.view.dark = true;
        s.view.tab = QStringLiteral("matrix");
        s.tradeoff.configs = {QStringLiteral("em:resize"), QStringLiteral("gaussian:noisefirst")};
        s.tradeoff.metric = Metric::W1;
        s.tradeoff.againstPopulation = true;
        s.tradeoff.epsLo = 0.05;
        s.tradeoff.epsHi = 3;
        s.tradeoff.popLo = 10;
        s.tradeoff.popHi = 5e8;
        s.tradeoff.points = 9;
        s.budget.plan.epsilon = 2.5;
        s.budget.plan.delta = 1e-7;
        s.budget.plan.composition = dpx::Composition::Zcdp;
        s.budget.plan.rows = {{QStringLiteral("age"), 10, QStringLiteral("gaussian"), 2,
                               QStringLiteral("accuracy"), 8.5},
                              {QStringLiteral("age"), 100, QStringLiteral("geometric"), 0,
                               QStringLiteral("epsilon"), 0.25}};
        QVERIFY(doc.apply(s, QStringLiteral("test")).hasValue());
        QVERIFY(doc.saveSession(path).hasValue());
        ExplorerDocument other;
        QVERIFY(other.loadSession(path).hasValue());
        QCOMPARE(other.state(), s);
        other.undoStack()->undo();  // loading is one undoable step
        QCOMPARE(other.state(), ExplorerState());
    }

    // The data sources of issue #5 round-trip, the PostgreSQL password never reaches the file
    // (it stays in memory and in the undo stack only), and older sessions without "source" open
    // their CSV file as a CSV source.
    // A session the app wrote has no key it does not understand; misspelt or newer keys are
    // listed (the window warns about them) and the rest of the session still loads.
    void unknownSessionKeysAreReported() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        ExplorerDocument doc;
        ExplorerState s = doc.state();
        s.data.source = SourceKind::Csv;
        s.data.csvPath = QStringLiteral("/tmp/x.csv");
        s.data.idColumn = QStringLiteral("id");
        s.data.cap = 2;
        QVERIFY(doc.apply(s, QStringLiteral("test")).hasValue());
        QVERIFY(doc.saveSession(path).hasValue());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        QCOMPARE(ExplorerState::unknownKeys(root), QStringList());
        QJsonObject data = root.value(QStringLiteral("data")).toObject();
        data.insert(QStringLiteral("bisn"), 12);
        root.insert(QStringLiteral("data"), data);
        root.insert(QStringLiteral("future"), true);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(root).toJson());
        f.close();
        ExplorerDocument other;
        QVERIFY(other.loadSession(path).hasValue());
        QStringList keys = other.ignoredSessionKeys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("data.bisn"), QStringLiteral("future")}));
        QCOMPARE(other.state().data.cap, 2);
    }

    void sourcesRoundTripWithoutPassword() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("pg.json"));
        ExplorerDocument doc;
        ExplorerState s = doc.state();
        s.data.source = SourceKind::Postgres;
        s.data.postgres.host = QStringLiteral("db.example");
        s.data.postgres.port = 6543;
        s.data.postgres.database = QStringLiteral("census");
        s.data.postgres.user = QStringLiteral("analyst");
        s.data.postgres.password = QStringLiteral("s3cret-p@ss");
        s.data.postgres.connectTimeout = 7;
        s.data.postgres.statementTimeout = 1234;
        s.data.sqlTable = QStringLiteral("public_use.persons");
        s.data.column = QStringLiteral("income");
        s.data.binning.kind = BinningChoice::Edges;
        s.data.binning.edges = {0, 10000, 25000, 1e6};
        s.data.binning.closedHi = false;
        s.data.binning.categories = {QStringLiteral("CA"), QStringLiteral("NY")};
        s.data.binning.unknownCategory = UnknownCategory::Other;
        s.data.idColumn = QStringLiteral("person");
        s.data.cap = 3;
        s.data.csvOptions.delimiter = QStringLiteral("semicolon");
        s.data.csvOptions.header = false;
        s.data.csvOptions.skipBadRows = true;
        s.data.csvOptions.types = {QStringLiteral("zip=categorical")};
        s.data.sqlitePath = QStringLiteral("/tmp/x.db");
        QVERIFY(doc.apply(s, QStringLiteral("test")).hasValue());
        QVERIFY(doc.saveSession(path).hasValue());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray json = f.readAll();
        QVERIFY(!json.contains("s3cret"));
        QVERIFY(!json.contains("password"));
        QVERIFY(json.contains("db.example"));
        ExplorerDocument other;
        QVERIFY(other.loadSession(path).hasValue());
        ExplorerState expected = s;
        expected.data.postgres.password.clear();
        QCOMPARE(other.state(), expected);
        // The amend hook completes it (the window fills in a remembered password there).
        ExplorerDocument third;
        QVERIFY(
            third
                .loadSession(
                    path, [](ExplorerState& x) { x.data.postgres.password = QStringLiteral("p"); })
                .hasValue());
        QCOMPARE(third.state().data.postgres.password, QStringLiteral("p"));
        // A session from before issue #5: "csv" without "source".
        const QString old = dir.filePath(QStringLiteral("old.json"));
        QFile o(old);
        QVERIFY(o.open(QIODevice::WriteOnly));
        o.write(
            "{\"format\":\"dpexplorer-session\",\"version\":1,\"data\":{\"csv\":\"/d/a.csv\"}}");
        o.close();
        ExplorerDocument fourth;
        QVERIFY(fourth.loadSession(old).hasValue());
        QCOMPARE(fourth.state().data.source, SourceKind::Csv);
        QCOMPARE(fourth.state().data.csvPath, QStringLiteral("/d/a.csv"));
        // Changing the source is one undoable step.
        fourth.undoStack()->undo();
        QCOMPARE(fourth.state().data.source, SourceKind::Example);
    }

    void brokenSessionsAreRefused_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expect");  // part of the message
        QTest::newRow("not json") << QByteArray("{oops") << "not valid JSON";
        QTest::newRow("array") << QByteArray("[1]") << "not an object";
        QTest::newRow("no format") << QByteArray("{\"version\":1}") << "not a DP Explorer session";
        QTest::newRow("future version")
            << QByteArray("{\"format\":\"dpexplorer-session\",\"version\":2}") << "version";
        QTest::newRow("epsilon text") << QByteArray(
                                             "{\"format\":\"dpexplorer-session\",\"version\":1,"
                                             "\"mechanism\":{\"epsilon\":\"x\"}}")
                                      << "epsilon";
        QTest::newRow("epsilon zero") << QByteArray(
                                             "{\"format\":\"dpexplorer-session\",\"version\":1,"
                                             "\"mechanism\":{\"epsilon\":0}}")
                                      << "ε must be";
        QTest::newRow("bad mechanism") << QByteArray(
                                              "{\"format\":\"dpexplorer-session\",\"version\":1,"
                                              "\"mechanism\":{\"name\":\"magic\"}}")
                                       << "unknown mechanism";
        QTest::newRow("bad seed")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"mechanism\":{\"seed\":-4}}")
            << "seed";
        QTest::newRow("bad source") << QByteArray(
                                           "{\"format\":\"dpexplorer-session\",\"version\":1,"
                                           "\"data\":{\"source\":\"ftp\"}}")
                                    << "unknown source";
        QTest::newRow("csv without file") << QByteArray(
                                                 "{\"format\":\"dpexplorer-session\",\"version\":1,"
                                                 "\"data\":{\"source\":\"csv\"}}")
                                          << "needs a file";
        QTest::newRow("bad cap")
            << QByteArray("{\"format\":\"dpexplorer-session\",\"version\":1,\"data\":{\"cap\":0}}")
            << "cap";
        QTest::newRow("bad bins")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"data\":{\"bins\":2.5}}")
            << "bins";
        QTest::newRow("bad constraint")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"mechanism\":{\"lp\":"
                   "{\"constraints\":[\"zz\"]}}}")
            << "constraint";
        QTest::newRow("bad trade-off config")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"tradeoff\":"
                   "{\"configs\":[\"gm:clamp\"]}}")
            << "trade-off configuration 'gm:clamp'";
        QTest::newRow("bad trade-off range")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"tradeoff\":"
                   "{\"epsilon_range\":[2,1]}}")
            << "trade-off ε range";
        QTest::newRow("bad trade-off axis")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"tradeoff\":"
                   "{\"against\":\"time\"}}")
            << "against";
        QTest::newRow("bad budget mechanism")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"budget\":"
                   "{\"statistics\":[{\"column\":\"a\",\"mechanism\":\"magic\"}]}}")
            << "budget statistic 'a': unknown mechanism";
        QTest::newRow("bad budget hold")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"budget\":"
                   "{\"statistics\":[{\"column\":\"a\",\"hold\":\"epsilon\",\"hold_value\":0}]}}")
            << "held value";
        QTest::newRow("bad budget sampling rate")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"budget\":"
                   "{\"statistics\":[{\"column\":\"a\",\"sampling_rate\":1.5}]}}")
            << "sampling rate must be in (0, 1]";
        QTest::newRow("bad budget total")
            << QByteArray(
                   "{\"format\":\"dpexplorer-session\",\"version\":1,\"budget\":{\"delta\":1}}")
            << "budget total";
    }
    void brokenSessionsAreRefused() {
        QFETCH(QByteArray, content);
        QFETCH(QString, expect);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        ExplorerDocument doc;
        QSignalSpy spy(&doc, &ExplorerDocument::changed);
        const Status st = doc.loadSession(path);
        QVERIFY(!st.hasValue());
        QVERIFY2(QString::fromStdString(st.error().message).contains(expect),
                 st.error().message.c_str());
        QCOMPARE(spy.size(), 0);
        QCOMPARE(doc.state(), ExplorerState());
    }

    // Issue #19: the data are one or more attributes (columns), each with its own binning. Adding,
    // removing and re-choosing columns remembers each column's binning; several columns survive
    // undo/redo and a session round-trip; a session of one column has no new key; duplicates and
    // unnamed attributes are refused with a message naming the problem.
    void severalAttributes() {
        QTemporaryDir dir;
        ExplorerDocument doc;
        ExplorerState s = doc.state();
        s.data.source = SourceKind::Csv;
        s.data.csvPath = QStringLiteral("/data/adult.csv");
        s.data.column = QStringLiteral("sex");
        s.data.binning.kind = BinningChoice::Categories;
        s.data.binning.categories = {QStringLiteral("Female"), QStringLiteral("Male")};
        QVERIFY(doc.apply(s, QStringLiteral("one")).hasValue());
        QVERIFY(!doc.state()
                     .toJson()
                     .value(QStringLiteral("data"))
                     .toObject()
                     .contains(QStringLiteral("more_columns")));

        s.data.addAttribute(QStringLiteral("class"));
        QCOMPARE(s.data.attributeCount(), std::size_t(2));
        QCOMPARE(s.data.binningOf(1).kind, BinningChoice::Auto);
        s.data.binningOf(1).kind = BinningChoice::Categories;
        s.data.binningOf(1).categories = {QStringLiteral("<=50K"), QStringLiteral(">50K")};
        s.data.addAttribute(QStringLiteral("age"));
        s.data.binningOf(2).kind = BinningChoice::Edges;
        s.data.binningOf(2).edges = {17, 30, 50, 91};
        QVERIFY(doc.apply(s, QStringLiteral("three")).hasValue());
        QCOMPARE(changesBetween(ExplorerState(), s) & DataChanged, unsigned(DataChanged));

        // Undo and redo restore the attributes exactly.
        doc.undoStack()->undo();
        QCOMPARE(doc.state().data.attributeCount(), std::size_t(1));
        doc.undoStack()->redo();
        QCOMPARE(doc.state(), s);

        // Session round-trip: the attributes with their binnings.
        const QString path = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(doc.saveSession(path).hasValue());
        ExplorerDocument other;
        QVERIFY(other.loadSession(path).hasValue());
        QCOMPARE(other.state(), s);
        QCOMPARE(other.state().data.columnOf(2), QStringLiteral("age"));
        QCOMPARE(other.state().data.binningOf(2).edges, (std::vector<double>{17, 30, 50, 91}));

        // Removing an attribute remembers its binning: adding the column again brings it back.
        ExplorerState t = s;
        QVERIFY(t.data.removeAttribute(1));
        QCOMPARE(t.data.attributeCount(), std::size_t(2));
        QCOMPARE(t.data.columnOf(1), QStringLiteral("age"));
        t.data.addAttribute(QStringLiteral("class"));
        QCOMPARE(t.data.binningOf(2), s.data.binningOf(1));
        // Removing the first makes the second the first; the only one cannot be removed.
        QVERIFY(t.data.removeAttribute(0));
        QCOMPARE(t.data.column, QStringLiteral("age"));
        QCOMPARE(t.data.binning, s.data.binningOf(2));
        QVERIFY(t.data.removeAttribute(0));
        QVERIFY(!t.data.removeAttribute(0));
        QCOMPARE(t.data.column, QStringLiteral("class"));

        // Choosing another column for an attribute remembers the one it leaves.
        ExplorerState u = s;
        u.data.rememberColumnChoice({}, 2);
        QVERIFY(!u.data.recallColumnChoice(QStringLiteral("hours"), 2));
        QCOMPARE(u.data.binningOf(2).kind, BinningChoice::Auto);
        u.data.rememberColumnChoice({}, 2);
        QVERIFY(u.data.recallColumnChoice(QStringLiteral("age"), 2));
        QCOMPARE(u.data.binningOf(2), s.data.binningOf(2));

        // Another source: the attributes are remembered with their columns; coming back to the
        // same source and table keeps them all.
        ExplorerState v = s;
        v.data.csvPath = QStringLiteral("/data/other.csv");
        v.data.enterSource(s.data);
        QCOMPARE(v.data.attributeCount(), std::size_t(1));
        ExplorerState back = v;
        back.data.csvPath = s.data.csvPath;
        back.data.enterSource(v.data);
        QCOMPARE(back.data.column, QStringLiteral("sex"));
        QCOMPARE(back.data.binning, s.data.binning);
        ExplorerState same = s;
        same.data.enterSource(s.data);
        QCOMPARE(same.data.moreColumns, s.data.moreColumns);

        // Refused with the reason.
        ExplorerState twice = s;
        twice.data.columnOf(2) = QStringLiteral("sex");
        auto st = doc.apply(twice, QStringLiteral("twice"));
        QVERIFY(!st.hasValue());
        QVERIFY2(st.error().message.find("'sex' is chosen twice") != std::string::npos,
                 st.error().message.c_str());
        ExplorerState unnamed = s;
        unnamed.data.columnOf(1).clear();
        st = doc.apply(unnamed, QStringLiteral("unnamed"));
        QVERIFY(!st.hasValue());
        QVERIFY2(st.error().message.find("attribute 2 names no column") != std::string::npos,
                 st.error().message.c_str());
        ExplorerState tooMany = s;
        for (int i = 0; i < 40; ++i) {
            tooMany.data.addAttribute(QStringLiteral("c%1").arg(i));
        }
        st = doc.apply(tooMany, QStringLiteral("too many"));
        QVERIFY(!st.hasValue());
        QVERIFY2(st.error().message.find("at most 32 attributes") != std::string::npos,
                 st.error().message.c_str());
        QCOMPARE(doc.state(), s);

        // A session whose attribute has a bad binning names it.
        QJsonObject root = s.toJson();
        QJsonObject data = root.value(QStringLiteral("data")).toObject();
        QJsonArray more = data.value(QStringLiteral("more_columns")).toArray();
        QJsonObject first = more[0].toObject();
        first.insert(QStringLiteral("bins"), 0);
        more[0] = first;
        data.insert(QStringLiteral("more_columns"), more);
        root.insert(QStringLiteral("data"), data);
        auto bad = ExplorerState::fromJson(root);
        QVERIFY(!bad.hasValue());
        QVERIFY2(bad.error().message.find("more_columns") != std::string::npos,
                 bad.error().message.c_str());
    }

    void unreadablePaths() {
        QTemporaryDir dir;
        ExplorerDocument doc;
        QVERIFY(!doc.loadSession(dir.path()).hasValue());
        QVERIFY(!doc.loadSession(dir.filePath(QStringLiteral("missing.json"))).hasValue());
        QVERIFY(!doc.saveSession(dir.filePath(QStringLiteral("no/such/dir/s.json"))).hasValue());
    }
};

QTEST_MAIN(TestDocument)
#include "tst_document.moc"
