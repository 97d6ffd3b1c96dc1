// The one LP-objective grammar (core/count/lp_objective.h): every accepted spelling, the canonical
// printer as its inverse, the old "l0dD" spelling with its deprecation, and errors where the
// window used to clamp silently (D > n) or fall back to L0 (unknown names).
#include <QTest>

#include "core/count/lp_objective.h"

using namespace dpx;

class TestLpObjective : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void acceptedSpellings_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("cost");
        QTest::addColumn<int>("d");
        QTest::addColumn<bool>("minimax");
        QTest::newRow("l0") << "l0" << int(LpCostKind::L0) << 0 << false;
        QTest::newRow("l1") << "l1" << int(LpCostKind::L1) << 0 << false;
        QTest::newRow("l2") << "l2" << int(LpCostKind::L2) << 0 << false;
        QTest::newRow("l0d:3") << "l0d:3" << int(LpCostKind::L0d) << 3 << false;
        QTest::newRow("l0d:0") << "l0d:0" << int(LpCostKind::L0d) << 0 << false;
        QTest::newRow("minimax-l1") << "minimax-l1" << int(LpCostKind::L1) << 0 << true;
        QTest::newRow("minimax-l0d:12") << "minimax-l0d:12" << int(LpCostKind::L0d) << 12 << true;
    }
    void acceptedSpellings() {
        QFETCH(QString, text);
        QFETCH(int, cost);
        QFETCH(int, d);
        QFETCH(bool, minimax);
        auto p = parseLpObjective(text.toStdString());
        QVERIFY2(p.hasValue(), p ? "" : p.error().message.c_str());
        QCOMPARE(int(p->objective.cost), cost);
        QCOMPARE(p->objective.d, d);
        QCOMPARE(p->objective.aggregate == LpAggregate::Max, minimax);
        QVERIFY(!p->deprecation);
        // The printer is the parser's inverse on canonical text.
        QCOMPARE(QString::fromStdString(formatLpObjective(p->objective)), text);
        CountLpSpec spec;
        applyLpObjective(p->objective, spec);
        QCOMPARE(int(spec.cost), cost);
        QCOMPARE(spec.d, d);
        QCOMPARE(spec.aggregate == LpAggregate::Max, minimax);
    }
    void oldSpellingIsReadWithADeprecation() {
        auto p = parseLpObjective("minimax-l0d7");
        QVERIFY(p.hasValue());
        QCOMPARE(int(p->objective.cost), int(LpCostKind::L0d));
        QCOMPARE(p->objective.d, 7);
        QVERIFY(p->deprecation.has_value());
        QVERIFY(p->deprecation->find("minimax-l0d:7") != std::string::npos);
        QCOMPARE(formatLpObjective(p->objective), std::string("minimax-l0d:7"));
    }
    void customOnlyWhereAllowed() {
        QVERIFY(!parseLpObjective("custom:costs.csv").hasValue());
        auto p = parseLpObjective("custom:costs.csv", {.allowCustom = true, .n = std::nullopt});
        QVERIFY(p.hasValue());
        QCOMPARE(int(p->objective.cost), int(LpCostKind::Custom));
        QCOMPARE(p->objective.customPath, std::string("costs.csv"));
        QCOMPARE(formatLpObjective(p->objective), std::string("custom:costs.csv"));
        QVERIFY(!parseLpObjective("custom:", {.allowCustom = true, .n = std::nullopt}).hasValue());
    }
    void errorsInsteadOfClampsAndFallbacks_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("n");  // -1: n unknown
        QTest::addColumn<QString>("needle");
        QTest::newRow("D > n") << "l0d:9" << 3 << "[0, 3], got 9";
        QTest::newRow("negative D") << "l0d:-1" << -1 << "whole number";
        QTest::newRow("D not a number") << "l0d:x" << -1 << "whole number";
        QTest::newRow("D fractional") << "l0d:1.5" << -1 << "whole number";
        QTest::newRow("D empty") << "l0d:" << -1 << "whole number";
        QTest::newRow("bare l0d") << "l0d" << -1 << "unknown LP objective";
        QTest::newRow("unknown") << "l3" << -1 << "unknown LP objective 'l3'";
        QTest::newRow("capitals") << "L1" << -1 << "unknown LP objective";
        QTest::newRow("empty") << "" << -1 << "unknown LP objective";
        QTest::newRow("minimax only") << "minimax-" << -1 << "unknown LP objective";
    }
    void errorsInsteadOfClampsAndFallbacks() {
        QFETCH(QString, text);
        QFETCH(int, n);
        QFETCH(QString, needle);
        LpObjectiveRules rules;
        if (n >= 0) {
            rules.n = n;
        }
        auto p = parseLpObjective(text.toStdString(), rules);
        QVERIFY(!p.hasValue());
        QVERIFY2(p.error().message.find(needle.toStdString()) != std::string::npos,
                 p.error().message.c_str());
    }
    void dUpToNIsAccepted() {
        auto p = parseLpObjective("l0d:3", {.allowCustom = false, .n = 3});
        QVERIFY(p.hasValue());
        QCOMPARE(p->objective.d, 3);
    }
};

QTEST_APPLESS_MAIN(TestLpObjective)
#include "tst_lp_objective.moc"
