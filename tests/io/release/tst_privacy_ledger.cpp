// The privacy-budget ledger file (io/release/privacy_ledger.h): exact basic composition at the
// edge (ten releases of ε = 0.1 fill a total of 1 exactly, the eleventh is refused with what it
// asks and what is left), zCDP accounting, a JSON round trip, and every kind of bad file refused
// (not JSON, foreign format, wrong version, edited content, releases over the total).
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <string>

#include "io/release/privacy_ledger.h"

using namespace dpx;
using namespace dpx::data;

namespace {

LedgerRelease pure(const std::string& eps, const std::string& rho) {
    LedgerRelease r;
    r.time = "2026-01-02T03:04:05Z";
    r.mechanism = "discrete-laplace";
    r.epsilon = eps;
    r.delta = "0";
    r.rho = rho;
    r.files = {"out.csv", "out.json"};
    r.sha256 = {std::string(64, 'a'), std::string(64, 'b')};
    return r;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

class TestPrivacyLedger : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tenTenthsFillOneExactly() {
        auto ledger = PrivacyLedger::create("data.csv", "1", "0", Composition::Basic);
        QVERIFY(ledger);
        for (int i = 0; i < 10; ++i) {
            auto s = ledger->append(pure("0.1", "1/200"));
            QVERIFY2(s, s ? "" : s.error().message.c_str());
        }
        QCOMPARE(ledger->usage().epsilonSpentExact, std::string("1"));
        auto refused = ledger->append(pure("0.1", "1/200"));
        QVERIFY(!refused);
        const std::string& m = refused.error().message;
        QVERIFY2(contains(m, "refused") && contains(m, "asks ε = 0.1") && contains(m, "left ε = 0"),
                 m.c_str());
        QCOMPARE(ledger->releases().size(), std::size_t{10});
        // Even the smallest decimal the ledger holds does not fit.
        QVERIFY(!ledger->fits(pure("1e-300", "0")));
        // The round trip keeps the exact state: the reloaded ledger refuses too.
        auto back = PrivacyLedger::fromJson(ledger->toJson(), "ledger.json");
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(back->releases().size(), std::size_t{10});
        QVERIFY(!back->fits(pure("0.1", "1/200")));
        QCOMPARE(back->toJson(), ledger->toJson());
    }

    void basicWithDelta() {
        auto ledger = PrivacyLedger::create("d", "1", "1e-6", Composition::Basic);
        QVERIFY(ledger);
        LedgerRelease g = pure("0.5", "1/10");
        g.mechanism = "discrete-gaussian";
        g.delta = "5e-7";
        QVERIFY(ledger->append(g));
        QVERIFY(ledger->append(g));
        auto third = ledger->fits(pure("1e-9", "0"));
        QVERIFY(!third);  // ε is exhausted (0.5 + 0.5 = 1)
        auto l2 = PrivacyLedger::create("d", "2", "1e-6", Composition::Basic);
        QVERIFY(l2->append(g) && l2->append(g));
        auto overDelta = l2->fits(g);
        QVERIFY(!overDelta);
        QVERIFY2(contains(overDelta.error().message, "δ"), overDelta.error().message.c_str());
    }

    void zcdpComposition() {
        // Total (1, 1e-6): ρ_budget = (√(1 + L) − √L)², L = ln 1e6 = 13.8155…, ρ_budget =
        // 0.0174689048 (Python math) (Bun & Steinke Prop 1.3 inverted; core/choosing/budget.h). ε =
        // 0.1 pure costs ρ = 0.005 each: three fit (0.015), a fourth (0.020) does not, although
        // basic composition would allow 10.
        auto ledger = PrivacyLedger::create("d", "1", "1e-6", Composition::Zcdp);
        QVERIFY(ledger);
        QVERIFY(ledger->append(pure("0.1", "1/200")));
        QVERIFY(ledger->append(pure("0.1", "1/200")));
        QVERIFY(ledger->append(pure("0.1", "1/200")));
        auto fourth = ledger->fits(pure("0.1", "1/200"));
        QVERIFY(!fourth);
        QVERIFY2(contains(fourth.error().message, "ρ"), fourth.error().message.c_str());
        QVERIFY(std::fabs(ledger->usage().rhoBudget - 0.0174689048) < 1e-9);
        auto back = PrivacyLedger::fromJson(ledger->toJson(), "l");
        QVERIFY(back);
        QCOMPARE(back->composition(), Composition::Zcdp);
        // zCDP needs a total δ > 0.
        QVERIFY(!PrivacyLedger::create("d", "1", "0", Composition::Zcdp));
    }

    void badFilesRefused_data() {
        QTest::addColumn<QByteArray>("edit");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("not json") << QByteArray("{not json") << QByteArray("not a JSON");
        QTest::newRow("array") << QByteArray("[]") << QByteArray("not a JSON");
        QTest::newRow("foreign") << QByteArray("foreign") << QByteArray("not a dpx privacy ledger");
        QTest::newRow("version") << QByteArray("version") << QByteArray("version");
        QTest::newRow("tampered epsilon") << QByteArray("tamper") << QByteArray("checksum");
        QTest::newRow("release removed") << QByteArray("drop") << QByteArray("checksum");
        QTest::newRow("over total, rehashed") << QByteArray("over") << QByteArray("release 2");
    }
    void badFilesRefused() {
        QFETCH(QByteArray, edit);
        QFETCH(QByteArray, mentions);
        auto ledger = PrivacyLedger::create("d", "1", "0", Composition::Basic);
        QVERIFY(ledger->append(pure("0.5", "1/8")));
        QVERIFY(ledger->append(pure("0.5", "1/8")));
        std::string json = ledger->toJson();
        auto replace = [&](const std::string& from, const std::string& to) {
            const auto at = json.find(from);
            QVERIFY2(at != std::string::npos, from.c_str());
            json.replace(at, from.size(), to);
        };
        if (edit == "foreign") {
            replace("dpx-privacy-ledger", "something-else");
        } else if (edit == "version") {
            replace("\"version\": 2", "\"version\": 3");
        } else if (edit == "tamper") {
            replace("\"epsilon\": \"0.5\"", "\"epsilon\": \"0.05\"");
        } else if (edit == "drop") {
            // Drop the first release and keep the old checksum (a naive rollback of spending).
            auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
            auto rel = doc.value(QStringLiteral("releases")).toArray();
            rel.removeFirst();
            doc[QStringLiteral("releases")] = rel;
            json = QJsonDocument(doc).toJson().toStdString();
        } else if (edit == "over") {
            // A forger who recomputes the checksum is not stopped by it, but the budget check on
            // load still refuses releases beyond the total.
            auto l = PrivacyLedger::create("d", "1", "0", Composition::Basic);
            QVERIFY(l->append(pure("0.5", "1/8")));
            QVERIFY(l->append(pure("0.5", "1/8")));
            json = l->toJson();
            replace("\"epsilon\": \"1\"", "\"epsilon\": \"0.6\"");
            // Recompute the checksum as a forger would: parse, drop sha256, hash, put back.
            auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
            doc.remove(QStringLiteral("sha256"));
            const QByteArray h =
                QCryptographicHash::hash(QJsonDocument(doc).toJson(QJsonDocument::Compact),
                                         QCryptographicHash::Sha256)
                    .toHex();
            doc[QStringLiteral("sha256")] = QString::fromLatin1(h);
            json = QJsonDocument(doc).toJson().toStdString();
        } else {
            json = edit.toStdString();
        }
        auto loaded = PrivacyLedger::fromJson(json, "ledger.json");
        QVERIFY(!loaded);
        QVERIFY2(contains(loaded.error().message, mentions.toStdString()),
                 loaded.error().message.c_str());
        QVERIFY(contains(loaded.error().message, "ledger.json"));
    }

    void loadMissingFile() {
        auto l = PrivacyLedger::load("/nonexistent-dir/ledger.json");
        QVERIFY(!l);
        QVERIFY(contains(l.error().message, "/nonexistent-dir/ledger.json"));
    }

    void rejections_data() {
        QTest::addColumn<QByteArray>("eps");
        QTest::addColumn<QByteArray>("delta");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("eps 0") << QByteArray("0") << QByteArray("0") << QByteArray("ε|epsilon");
        QTest::newRow("eps negative")
            << QByteArray("-1") << QByteArray("0") << QByteArray("ε|epsilon");
        QTest::newRow("eps nan") << QByteArray("nan") << QByteArray("0") << QByteArray("ε|epsilon");
        QTest::newRow("eps inf") << QByteArray("inf") << QByteArray("0") << QByteArray("ε|epsilon");
        QTest::newRow("eps 20 digits")
            << QByteArray("0.10000000000000000001") << QByteArray("0") << QByteArray("ε|epsilon");
        QTest::newRow("delta 1") << QByteArray("1") << QByteArray("1") << QByteArray("δ|delta");
        QTest::newRow("delta negative")
            << QByteArray("1") << QByteArray("-0.1") << QByteArray("δ|delta");
    }
    void rejections() {
        QFETCH(QByteArray, eps);
        QFETCH(QByteArray, delta);
        QFETCH(QByteArray, mentions);
        auto l =
            PrivacyLedger::create("d", eps.toStdString(), delta.toStdString(), Composition::Basic);
        QVERIFY(!l);
        bool named = false;
        for (const QByteArray& alt : mentions.split('|')) {
            named = named || contains(l.error().message, alt.toStdString());
        }
        QVERIFY2(named, l.error().message.c_str());
        // The same values on a release are refused by the release's validation.
        auto ok = PrivacyLedger::create("d", "1", "0.5", Composition::Basic);
        LedgerRelease r = pure(eps.toStdString(), "0");
        r.delta = delta.toStdString();
        if (eps == "1") {
            QVERIFY(!ok->append(r));
        }
        QVERIFY(!PrivacyLedger::create("", "1", "0", Composition::Basic));
    }
};

QTEST_APPLESS_MAIN(TestPrivacyLedger)
#include "tst_privacy_ledger.moc"
