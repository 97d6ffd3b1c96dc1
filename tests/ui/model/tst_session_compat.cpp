// Sessions saved before issue #18 still open, and open to the same state (issue #18: the state was
// regrouped without changing the file format). Every session of the corpus — the documentation's
// sessions (docs/sessions) and the hand-written ones in tests/ui/model/sessions, which set fields
// of every section — is read with ExplorerState::fromJson and written back with toJson; the result
// must equal, byte for byte, what the code before the regrouping wrote for it
// (tests/ui/model/sessions/expected/<name>.json, made with the ExplorerState of commit 76ad697 with
// DPX_SESSION_UPDATE=1). Unknown keys stay reported as before (none in this corpus).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "ui/model/explorer_state.h"

using namespace dpx::ui;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return f.readAll();
}

}  // namespace

class TestSessionCompat : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oldSessionsOpenToTheSameState_data() {
        QTest::addColumn<QString>("path");
        int rows = 0;
        for (const QString& dir :
             {QStringLiteral(DPX_DOC_SESSIONS_DIR), QStringLiteral(DPX_TEST_SESSIONS_DIR)}) {
            const QStringList names =
                QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
            for (const QString& name : names) {
                QTest::newRow(qPrintable(name)) << QDir(dir).filePath(name);
                ++rows;
            }
        }
        QVERIFY2(rows >= 20, "the session corpus went missing");
    }
    void oldSessionsOpenToTheSameState() {
        QFETCH(QString, path);
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(readAll(path), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const auto state = ExplorerState::fromJson(doc.object());
        QVERIFY2(state.hasValue(), state ? "" : state.error().message.c_str());
        QCOMPARE(ExplorerState::unknownKeys(doc.object()), QStringList());
        const QByteArray written = QJsonDocument(state->toJson()).toJson(QJsonDocument::Indented);
        const QString expectedPath =
            QStringLiteral(DPX_TEST_SESSIONS_DIR "/expected/") + QFileInfo(path).fileName();
        if (qEnvironmentVariableIsSet("DPX_SESSION_UPDATE")) {
            QFile out(expectedPath);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(written);
            return;
        }
        const QByteArray expected = readAll(expectedPath);
        QVERIFY2(!expected.isEmpty(), qPrintable(expectedPath + QStringLiteral(" is missing")));
        QCOMPARE(written, expected);
        // And the state read back from what it writes is the same state.
        const auto again = ExplorerState::fromJson(QJsonDocument::fromJson(written).object());
        QVERIFY(again.hasValue());
        QCOMPARE(*again, *state);
    }
};

QTEST_APPLESS_MAIN(TestSessionCompat)
#include "tst_session_compat.moc"
