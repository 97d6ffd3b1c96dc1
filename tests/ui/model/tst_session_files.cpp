// Session files with fields of the wrong type or shape (issue #17): every one is refused with a
// message naming the whole key ("mechanism.epsilon", not "epsilon", which the budget has too),
// never ignored silently ("data": [1, 2] used to load as the defaults); the document is left
// unchanged. Keys a session has but this version does not read are reported, including inside
// arrays of objects. Sessions written before remembered column binnings still open.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <tuple>

#include "ui/model/computations.h"
#include "ui/model/document.h"

using namespace dpx;
using namespace dpx::ui;

namespace {

// A valid session with `patch` (a JSON object text) merged into it one level deep per section:
// {"data": {"bins": 3.5}} replaces data.bins, {"data": [1, 2]} replaces the whole data section.
QJsonObject patched(const QByteArray& patch) {
    QJsonObject root = ExplorerState{}.toJson();
    const QJsonObject p = QJsonDocument::fromJson(patch).object();
    for (auto it = p.begin(); it != p.end(); ++it) {
        const QJsonValue current = root.value(it.key());
        if (current.isObject() && it->isObject()) {
            QJsonObject merged = current.toObject();
            const QJsonObject inner = it->toObject();
            for (auto jt = inner.begin(); jt != inner.end(); ++jt) {
                merged.insert(jt.key(), *jt);
            }
            root.insert(it.key(), merged);
        } else {
            root.insert(it.key(), *it);
        }
    }
    return root;
}

}  // namespace

class TestSessionFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void badFieldsAreNamed_data() {
        QTest::addColumn<QByteArray>("patch");
        QTest::addColumn<QByteArray>("keyText");      // the key the message must name
        QTest::addColumn<QByteArray>("problemText");  // and what is wrong with it
        QTest::newRow("data is an array")
            << QByteArray(R"({"data": [1, 2]})") << QByteArray("'data'")
            << QByteArray("expected an object, got an array");
        QTest::newRow("mechanism is a string")
            << QByteArray(R"({"mechanism": "laplace"})") << QByteArray("'mechanism'")
            << QByteArray("expected an object, got a string");
        QTest::newRow("view is null") << QByteArray(R"({"view": null})") << QByteArray("'view'")
                                      << QByteArray("expected an object, got null");
        QTest::newRow("tradeoff is an array")
            << QByteArray(R"({"tradeoff": []})") << QByteArray("'tradeoff'")
            << QByteArray("expected an object");
        QTest::newRow("budget is a number")
            << QByteArray(R"({"budget": 1})") << QByteArray("'budget'")
            << QByteArray("expected an object");
        QTest::newRow("lp is a number")
            << QByteArray(R"({"mechanism": {"lp": 3}})") << QByteArray("'mechanism.lp'")
            << QByteArray("expected an object");
        QTest::newRow("csv options are a string")
            << QByteArray(R"({"data": {"csv_options": "comma"}})")
            << QByteArray("'data.csv_options'") << QByteArray("expected an object");
        QTest::newRow("postgresql is true")
            << QByteArray(R"({"data": {"postgresql": true}})") << QByteArray("'data.postgresql'")
            << QByteArray("expected an object");
        QTest::newRow("epsilon is a string")
            << QByteArray(R"({"mechanism": {"epsilon": "1"}})") << QByteArray("'mechanism.epsilon'")
            << QByteArray("expected a finite number, got a string");
        QTest::newRow("binomial p is a string")
            << QByteArray(R"({"mechanism": {"lp": {"binomial_p": "0.5"}}})")
            << QByteArray("'mechanism.lp.binomial_p'") << QByteArray("expected a finite number");
        QTest::newRow("bins not whole")
            << QByteArray(R"({"data": {"bins": 3.5}})") << QByteArray("'data.bins'")
            << QByteArray("expected an integer");
        QTest::newRow("an edge is text")
            << QByteArray(R"({"data": {"edges": [1, "a"]}})") << QByteArray("'data.edges'")
            << QByteArray("expected an array of numbers");
        QTest::newRow("categories are one string")
            << QByteArray(R"({"data": {"categories": "a,b"}})") << QByteArray("'data.categories'")
            << QByteArray("expected an array of strings, got a string");
        QTest::newRow("a delimiter is a number")
            << QByteArray(R"({"data": {"csv_options": {"delimiter": 44}}})")
            << QByteArray("'data.csv_options.delimiter'")
            << QByteArray("expected a string, got a number");
        QTest::newRow("dark is text")
            << QByteArray(R"({"view": {"dark": "yes"}})") << QByteArray("'view.dark'")
            << QByteArray("expected true or false, got a string");
        QTest::newRow("interval level is text")
            << QByteArray(R"({"view": {"interval_level": "95%"}})")
            << QByteArray("'view.interval_level'") << QByteArray("expected a finite number");
        QTest::newRow("points are text")
            << QByteArray(R"({"tradeoff": {"points": "25"}})") << QByteArray("'tradeoff.points'")
            << QByteArray("expected a finite number");
        QTest::newRow("range of one number")
            << QByteArray(R"({"tradeoff": {"epsilon_range": [1]}})")
            << QByteArray("'tradeoff.epsilon_range'") << QByteArray("expected [from, to]");
        QTest::newRow("seed is a number")
            << QByteArray(R"({"mechanism": {"seed": 5}})") << QByteArray("'mechanism.seed'")
            << QByteArray("as a string");
        QTest::newRow("other columns an object")
            << QByteArray(R"({"data": {"other_columns": {}}})")
            << QByteArray("'data.other_columns'")
            << QByteArray("expected an array of objects, got an object");
        QTest::newRow("other column not an object")
            << QByteArray(R"({"data": {"other_columns": [3]}})")
            << QByteArray("'data.other_columns[0]'")
            << QByteArray("expected an object, got a number");
        QTest::newRow("other column's bins are text")
            << QByteArray(R"({"data": {"other_columns": [{"source": "csv:/a.csv", "bins": "x"}]}})")
            << QByteArray("'data.other_columns[0].bins'") << QByteArray("expected a finite number");
        QTest::newRow("other column's binning unknown")
            << QByteArray(
                   R"({"data": {"other_columns": [{"source": "csv:/a.csv", "binning": "log"}]}})")
            << QByteArray("'data.other_columns[0].binning'") << QByteArray("unknown binning 'log'");
        QTest::newRow("other column's edges decrease")
            << QByteArray(R"({"data": {"other_columns": [{"source": "csv:/a.csv", "column": "age",
                   "binning": "edges", "edges": [2, 1]}]}})")
            << QByteArray("remembered binning of column 'age'")
            << QByteArray("strictly increasing");
    }

    void badFieldsAreNamed() {
        QFETCH(QByteArray, patch);
        QFETCH(QByteArray, keyText);
        QFETCH(QByteArray, problemText);
        const QString key = QString::fromUtf8(keyText);
        const QString problem = QString::fromUtf8(problemText);
        const auto s = ExplorerState::fromJson(patched(patch));
        QVERIFY2(!s.hasValue(), "a broken session was accepted");
        const QString message = QString::fromStdString(s.error().message);
        QVERIFY2(message.contains(key), qPrintable(message));
        QVERIFY2(message.contains(problem), qPrintable(message));

        // Through the document: refused with the file's name, nothing changes.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(patched(patch)).toJson());
        f.close();
        ExplorerDocument doc;
        const ExplorerState before = doc.state();
        const Status st = doc.loadSession(path);
        QVERIFY(!st.hasValue());
        QVERIFY(QString::fromStdString(st.error().message).contains(QStringLiteral("bad.json")));
        QVERIFY(QString::fromStdString(st.error().message).contains(key));
        QCOMPARE(doc.state(), before);
        QCOMPARE(doc.undoStack()->count(), 0);
    }

    // Keys this version does not read are reported (the window warns), also inside the arrays
    // of objects: a remembered binning's typo is not dropped in silence.
    void ignoredKeysAreReported() {
        ExplorerState s;
        ExplorerState::ColumnChoice c;
        c.source = QStringLiteral("csv:/data/a.csv");
        c.column = QStringLiteral("age");
        c.binning.kind = BinningChoice::Edges;
        c.binning.edges = {0, 18, 65};
        s.data.otherColumns.push_back(c);
        QJsonObject root = s.toJson();
        QJsonObject data = root.value(QStringLiteral("data")).toObject();
        QJsonArray others = data.value(QStringLiteral("other_columns")).toArray();
        QJsonObject first = others[0].toObject();
        first.insert(QStringLiteral("colour"), QStringLiteral("red"));
        others[0] = first;
        data.insert(QStringLiteral("other_columns"), others);
        data.insert(QStringLiteral("bogus"), 1);
        root.insert(QStringLiteral("data"), data);
        const auto loaded = ExplorerState::fromJson(root);
        QVERIFY2(loaded.hasValue(), loaded ? "" : loaded.error().message.c_str());
        QCOMPARE(loaded->data.otherColumns.size(), std::size_t{1});
        QCOMPARE(loaded->data.otherColumns[0], c);
        const QStringList unknown = ExplorerState::unknownKeys(root);
        QVERIFY2(unknown.contains(QStringLiteral("data.bogus")),
                 qPrintable(unknown.join(QLatin1Char(','))));
        QVERIFY2(unknown.contains(QStringLiteral("data.other_columns[0].colour")),
                 qPrintable(unknown.join(QLatin1Char(','))));
    }

    // A session written before the remembered binnings (no "other_columns") opens as before;
    // one with them round-trips.
    void olderSessionsStillOpen() {
        ExplorerState s;
        s.data.source = SourceKind::Csv;
        s.data.csvPath = QStringLiteral("/data/people.csv");
        s.data.column = QStringLiteral("age");
        s.data.binning.kind = BinningChoice::Edges;
        s.data.binning.edges = {0, 18, 65, 120};
        QJsonObject root = s.toJson();
        QJsonObject data = root.value(QStringLiteral("data")).toObject();
        data.remove(QStringLiteral("other_columns"));
        root.insert(QStringLiteral("data"), data);
        const auto old = ExplorerState::fromJson(root);
        QVERIFY2(old.hasValue(), old ? "" : old.error().message.c_str());
        QCOMPARE(*old, s);
        QVERIFY(ExplorerState::unknownKeys(root).isEmpty());

        ExplorerState::ColumnChoice c;
        c.source = QStringLiteral("csv:/data/people.csv");
        c.column = QStringLiteral("income");
        c.binning.kind = BinningChoice::EqualWidth;
        c.binning.bins = 12;
        c.binning.rangeLo = 0;
        c.binning.rangeHi = 1e6;
        c.binning.closedHi = false;
        s.data.otherColumns.push_back(c);
        const auto back = ExplorerState::fromJson(s.toJson());
        QVERIFY(back.hasValue());
        QCOMPARE(*back, s);
    }

    // The sessions in docs/sessions (written by hand, with only the keys they set) open, and
    // what they open to is saved and opened again unchanged.
    void docsSessionsOpenAndRoundTrip() {
        const QDir dir(QStringLiteral(QT_TESTCASE_SOURCEDIR "/../../../docs/sessions"));
        const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
        QVERIFY(files.size() >= 10);
        for (const QString& name : files) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto s = ExplorerState::fromJson(QJsonDocument::fromJson(f.readAll()).object());
            QVERIFY2(s.hasValue(), qPrintable(name));
            const QJsonObject saved = s->toJson();
            const auto again = ExplorerState::fromJson(saved);
            QVERIFY2(again.hasValue(), qPrintable(name));
            QCOMPARE(*again, *s);
            QCOMPARE(QJsonDocument(again->toJson()).toJson(), QJsonDocument(saved).toJson());
        }
    }

    // A state with every part away from its defaults survives the round trip unchanged.
    void everyPartRoundTrips() {
        ExplorerState s;
        s.data.source = SourceKind::Postgres;
        s.data.postgres.host = QStringLiteral("db.example");
        s.data.postgres.database = QStringLiteral("people");
        s.data.postgres.port = 6543;
        s.data.csvOptions.delimiter = QStringLiteral("tab");
        s.data.csvOptions.skipBadRows = true;
        s.data.binning.kind = BinningChoice::Edges;
        s.data.binning.edges = {0, 1, 5};
        s.data.cap = 3;
        s.mechanism.kind = MechanismChoice::CountOptimal;
        s.mechanism.epsilon = 0.3;
        s.mechanism.seed = 18446744073709551615ull;
        s.mechanism.lp.objective = QStringLiteral("minimax-l0d:2");
        s.mechanism.lp.constraints = {QStringLiteral("rh"), QStringLiteral("f")};
        s.view.tab = QStringLiteral("matrix");
        s.view.dark = true;
        s.view.intervalLevel = 0.99;
        s.tradeoff.againstPopulation = true;
        s.tradeoff.points = 40;
        s.budget.plan.epsilon = 2;
        s.budget.plan.rows.push_back(BudgetRow{QStringLiteral("age"), 4, QStringLiteral("gaussian"),
                                               2, QStringLiteral("none"), 0});
        QVERIFY(s.validate().hasValue());
        const auto back = ExplorerState::fromJson(s.toJson());
        QVERIFY(back.hasValue());
        QCOMPARE(*back, s);
        QVERIFY(ExplorerState::deprecations(s.toJson()).isEmpty());
    }

    // Issue #22: the interval level is written only when it is not the default 0.95 (older
    // sessions stay byte-identical), read back, and a level outside (0, 1) is refused by name.
    void intervalLevelIsWrittenOnlyWhenNotDefault() {
        ExplorerState s;
        QVERIFY(!s.toJson()
                     .value(QStringLiteral("view"))
                     .toObject()
                     .contains(QStringLiteral("interval_level")));
        s.view.intervalLevel = 0.9;
        const QJsonObject o = s.toJson();
        QCOMPARE(o.value(QStringLiteral("view")).toObject().value(QStringLiteral("interval_level")),
                 QJsonValue(0.9));
        const auto back = ExplorerState::fromJson(o);
        QVERIFY(back.hasValue());
        QCOMPARE(back->view.intervalLevel, 0.9);
        s.view.intervalLevel = 1.0;
        const auto bad = s.validate();
        QVERIFY(!bad.hasValue());
        QVERIFY2(bad.error().message.find("interval level") != std::string::npos,
                 bad.error().message.c_str());
    }

    // Issue #22: the Histogram tab's "sample of N" and design effect are saved only when N > 0
    // (an older session has neither and loads as not a sample; written, it stays byte-identical),
    // read back, and refused by name when out of range.
    void samplingIsSavedAndRestored() {
        ExplorerState s;
        const QJsonObject plain = s.toJson();
        QVERIFY(
            !plain.value(QStringLiteral("view")).toObject().contains(QStringLiteral("sample_of")));
        QVERIFY(!plain.value(QStringLiteral("view"))
                     .toObject()
                     .contains(QStringLiteral("design_effect")));
        const auto old = ExplorerState::fromJson(plain);
        QVERIFY(old.hasValue());
        QCOMPARE(old->view.samplePopulation, 0.0);
        QCOMPARE(old->view.designEffect, 1.0);
        s.view.samplePopulation = 250000;
        QJsonObject o = s.toJson();
        QCOMPARE(o.value(QStringLiteral("view")).toObject().value(QStringLiteral("sample_of")),
                 QJsonValue(250000.0));
        QVERIFY(
            !o.value(QStringLiteral("view")).toObject().contains(QStringLiteral("design_effect")));
        s.view.designEffect = 1.75;
        o = s.toJson();
        QCOMPARE(o.value(QStringLiteral("view")).toObject().value(QStringLiteral("design_effect")),
                 QJsonValue(1.75));
        const auto back = ExplorerState::fromJson(o);
        QVERIFY2(back.hasValue(), back.hasValue() ? "" : back.error().message.c_str());
        QCOMPARE(*back, s);
        QCOMPARE(back->view.samplePopulation, 250000.0);
        QCOMPARE(back->view.designEffect, 1.75);
        for (auto [n, d, part] :
             {std::tuple{1.0, 1.0, "[2, 1e10]"}, std::tuple{-5.0, 1.0, "[2, 1e10]"},
              std::tuple{1000.0, 0.5, "design effect"},
              std::tuple{3.0, 2.0, "N ≥ 2 × the design effect"}}) {
            ExplorerState bad;
            bad.view.samplePopulation = n;
            bad.view.designEffect = d;
            const auto v = bad.validate();
            QVERIFY(!v.hasValue());
            QVERIFY2(v.error().message.find(part) != std::string::npos, v.error().message.c_str());
        }
        QJsonObject text = s.toJson();
        QJsonObject view = text.value(QStringLiteral("view")).toObject();
        view[QStringLiteral("sample_of")] = QStringLiteral("lots");
        text[QStringLiteral("view")] = view;
        const auto refused = ExplorerState::fromJson(text);
        QVERIFY(!refused.hasValue());
        QVERIFY(refused.error().message.find("view.sample_of") != std::string::npos);
    }

    // The LP objective has one grammar (core/count/lp_objective.h): the old "l0d3" opens with a
    // deprecation the window shows and is saved as "l0d:3"; an unknown objective is refused
    // instead of becoming L0; D > n is an error instead of a clamp.
    void lpObjectiveUsesTheOneGrammar() {
        QJsonObject root = patched(R"({"mechanism": {"lp": {"objective": "l0d3"}}})");
        const auto old = ExplorerState::fromJson(root);
        QVERIFY(old.hasValue());
        QCOMPARE(old->mechanism.lp.objective, QStringLiteral("l0d:3"));
        const QStringList warnings = ExplorerState::deprecations(root);
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings[0].contains(QStringLiteral("mechanism.lp.objective")),
                 qPrintable(warnings[0]));
        QVERIFY2(warnings[0].contains(QStringLiteral("l0d:3")), qPrintable(warnings[0]));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(root).toJson());
        f.close();
        ExplorerDocument doc;
        QVERIFY(doc.loadSession(path).hasValue());
        QCOMPARE(doc.sessionDeprecations(), warnings);
        QCOMPARE(doc.state().mechanism.lp.objective, QStringLiteral("l0d:3"));

        const auto unknown =
            ExplorerState::fromJson(patched(R"({"mechanism": {"lp": {"objective": "l7"}}})"));
        QVERIFY(!unknown.hasValue());
        QVERIFY2(QString::fromStdString(unknown.error().message).contains(QStringLiteral("'l7'")),
                 unknown.error().message.c_str());

        ExplorerState s;
        s.mechanism.kind = MechanismChoice::CountOptimal;
        s.mechanism.lp.objective = QStringLiteral("l0d:5");
        QVERIFY(lpSpecOf(s, 5).hasValue());
        QCOMPARE(lpSpecOf(s, 5)->d, 5);
        const auto tooFar = lpSpecOf(s, 3);
        QVERIFY(!tooFar.hasValue());
        QVERIFY2(tooFar.error().message.find("[0, 3]") != std::string::npos,
                 tooFar.error().message.c_str());
    }
};

QTEST_MAIN(TestSessionFiles)
#include "tst_session_files.moc"
