// app/cli/output.h (exit codes, error and warning lines, JSON printing, conversions) and the
// command table of app/cli/cli.h (dispatch and the --help text generated from it), called in
// process rather than through the dpx executable.
#include <QTest>
#include <cmath>
#include <set>
#include <sstream>

#include "app/cli/cli.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"

using namespace dpx;
using namespace dpx::cli;

class TestCliOutput : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exitCodesAreTheDocumentedOnes() {
        QCOMPARE(kOk, 0);
        QCOMPARE(kFailure, 1);
        QCOMPARE(kInvalid, 2);
        QCOMPARE(kRefused, kFailure);
    }

    void failWritesOneErrorLineAndReturnsTheCode() {
        std::ostringstream err;
        QCOMPARE(fail(err, std::string("bad --epsilon")), kInvalid);
        QCOMPARE(err.str(), std::string("dpx: error: bad --epsilon\n"));
        std::ostringstream err2;
        QCOMPARE(fail(err2, Error{"the solver gave up"}, kFailure), kFailure);
        QCOMPARE(err2.str(), std::string("dpx: error: the solver gave up\n"));
    }

    void warnWritesAWarningLine() {
        std::ostringstream err;
        warn(err, "old spelling");
        QCOMPARE(err.str(), std::string("dpx: warning: old spelling\n"));
    }

    void printJsonIsIndentedWithATrailingNewline() {
        std::ostringstream out;
        QJsonObject o;
        o[QStringLiteral("a")] = toArray(std::vector<double>{1.5, -2});
        o[QStringLiteral("b")] = toArray(std::vector<std::string>{"x", "ε"});
        printJson(out, o);
        QCOMPARE(out.str(), std::string("{\n    \"a\": [\n        1.5,\n        -2\n    ],\n"
                                        "    \"b\": [\n        \"x\",\n        \"ε\"\n    ]\n}\n"));
        std::ostringstream arr;
        printJson(arr, QJsonArray{1, 2});
        QCOMPARE(arr.str(), std::string("[\n    1,\n    2\n]\n"));
    }

    void splitKeepsEmptyParts() {
        QCOMPARE(split("a:b", ':'), (std::vector<std::string>{"a", "b"}));
        QCOMPARE(split("a::", ':'), (std::vector<std::string>{"a", "", ""}));
        QCOMPARE(split("", ':'), (std::vector<std::string>{""}));
        QCOMPARE(split("abc", ','), (std::vector<std::string>{"abc"}));
    }

    void wholeCountsAcceptsWholeNumbersOnly() {
        // commands/truth.h: shared by --counts of the truth options and of dpx release.
        const auto message = [](std::size_t i, double c) {
            return "count " + std::to_string(i) + " is " + std::to_string(c);
        };
        QCOMPARE(*wholeCounts({0, 3, 9e15}, message),
                 (std::vector<std::int64_t>{0, 3, 9'000'000'000'000'000}));
        QCOMPARE(wholeCounts({}, message)->size(), std::size_t{0});
        for (const double bad : {-1.0, 2.5, 9.1e15, std::nan(""), HUGE_VAL}) {
            const auto r = wholeCounts({1, bad}, message);
            QVERIFY(!r.hasValue());
            QVERIFY2(r.error().message.rfind("count 2 is ", 0) == 0, r.error().message.c_str());
        }
    }

    void tableNamesAreUniqueAndFound() {
        std::set<std::string> names;
        for (const Command& c : commands()) {
            QVERIFY2(names.insert(c.name).second, c.name);
            QCOMPARE(findCommand(c.name), &c);
            QVERIFY(c.run != nullptr);
        }
        // dpx query (issue #19) is the 20th; workload, algorithms and bench (issue #20) make 23,
        // strategy (issue #23) 24, interval (issue #22) 25, report (issue #22) 26.
        QCOMPARE(names.size(), std::size_t{26});
        QVERIFY(findCommand("nosuchcommand") == nullptr);
    }

    void usageListsEverySynopsisInTableOrder() {
        const std::string text = usage();
        const std::string head = "dpx — DP Explorer command-line tool (JSON on stdout)\n\nUsage:";
        QVERIFY(text.rfind(head, 0) == 0);
        // The synopses follow one another in table order, nothing between them.
        std::size_t at = head.size();
        for (const Command& c : commands()) {
            const std::string synopsis = c.synopsis;
            QVERIFY2(synopsis.rfind(std::string("\n  dpx ") + c.name + " ", 0) == 0, c.name);
            QVERIFY2(synopsis.back() != '\n', c.name);
            QVERIFY2(text.compare(at, synopsis.size(), synopsis) == 0, c.name);
            at += synopsis.size();
        }
        QVERIFY(text.compare(at, 26, "\n  dpx --help | --version\n") == 0);
        QVERIFY(text.back() == '\n');
    }

    void runDispatchesThroughTheTable() {
        std::ostringstream out, err;
        QCOMPARE(run({"dpx", "sigma", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1"},
                     out, err),
                 kOk);
        QVERIFY(out.str().find("\"sigma\"") != std::string::npos);
        QVERIFY(err.str().empty());
        std::ostringstream out2, err2;
        QCOMPARE(run({"dpx", "nosuchcommand"}, out2, err2), kInvalid);
        QVERIFY(err2.str().rfind("dpx: error: unknown command 'nosuchcommand'\n", 0) == 0);
        QVERIFY(err2.str().find(usage()) != std::string::npos);
        std::ostringstream out3, err3;
        QCOMPARE(run({"dpx", "--help"}, out3, err3), kOk);
        QCOMPARE(out3.str(), usage());
    }
};

QTEST_GUILESS_MAIN(TestCliOutput)
#include "tst_cli_output.moc"
