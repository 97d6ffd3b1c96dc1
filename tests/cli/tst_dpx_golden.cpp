// The dpx golden corpus (issue #18): every subcommand, successful runs and refusals, run from a
// temporary directory and compared with the stored exit code, standard output and standard error
// (tests/cli/golden/). It pins what dpx prints while the source tree is reorganised: a change of
// output must be deliberate — regenerate with DPX_GOLDEN_UPDATE=1 and list the changed labels in
// the commit. Normalised before comparing: the temporary directory ({out}), the corpus folder
// ({data}) and the "seconds" a run took (dpx bench: "sec_median").
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kGolden = QStringLiteral(DPX_GOLDEN_DIR);

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Splits a command line on spaces (the corpus has no quoted arguments).
QStringList argumentsOf(const QString& line) {
    return line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

QString normalise(QString text, const QString& out) {
    text.replace(out, QStringLiteral("{out}"));
    text.replace(kGolden, QStringLiteral("{data}"));
    static const QRegularExpression seconds(QStringLiteral(R"("seconds": [0-9.eE+-]+)"));
    text.replace(seconds, QStringLiteral("\"seconds\": \"<varies>\""));
    // dpx bench's JSON lines (compact): the median seconds of one run.
    static const QRegularExpression secMedian(QStringLiteral(R"("sec_median":[0-9.eE+-]+)"));
    text.replace(secMedian, QStringLiteral("\"sec_median\":\"<varies>\""));
    return text;
}

}  // namespace

class TestDpxGolden : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Every subcommand `dpx --help` lists (the command table) has at least one corpus line.
    void corpusCoversEverySubcommand() {
        QProcess p;
        p.start(QStringLiteral(DPX_EXECUTABLE), {QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString usage = QString::fromUtf8(p.readAllStandardOutput());
        QSet<QString> covered;
        for (const QString& raw : readText(kGolden + QStringLiteral("/commands.txt"))
                                      .split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (!raw.startsWith(QLatin1Char('#'))) {
                covered.insert(raw.trimmed().section(QLatin1Char(' '), 0, 0));
            }
        }
        static const QRegularExpression command(QStringLiteral(R"(^  dpx ([a-z-]+) )"),
                                                QRegularExpression::MultilineOption);
        int listed = 0;
        for (auto it = command.globalMatch(usage); it.hasNext();) {
            const QString name = it.next().captured(1);
            ++listed;
            QVERIFY2(covered.contains(name), qPrintable(name + QStringLiteral(" has no command")));
        }
        QVERIFY(listed >= 19);
    }

    void corpus_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expectedFile");
        const QStringList lines = readText(kGolden + QStringLiteral("/commands.txt"))
                                      .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        int index = 0;
        for (const QString& raw : lines) {
            const QString line = raw.trimmed();
            if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) {
                continue;
            }
            ++index;
            const QString name = QStringLiteral("%1").arg(index, 3, 10, QLatin1Char('0'));
            QTest::newRow(
                qPrintable(name + QLatin1Char(' ') + line.section(QLatin1Char(' '), 0, 0)))
                << line << kGolden + QStringLiteral("/expected/") + name + QStringLiteral(".txt");
        }
        QVERIFY2(index >= 60, "the corpus covers at least 60 commands");
    }

    void corpus() {
        QFETCH(QString, line);
        QFETCH(QString, expectedFile);
        QTemporaryDir dir;
        const QString out = dir.path();
        QString command = line;
        command.replace(QStringLiteral("{data}"), kGolden).replace(QStringLiteral("{out}"), out);
        QProcess p;
        p.setWorkingDirectory(out);
        p.start(QStringLiteral(DPX_EXECUTABLE), argumentsOf(command));
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        const QString got = QStringLiteral("$ dpx ") + line + QStringLiteral("\nexit: ") +
                            QString::number(p.exitCode()) + QStringLiteral("\n--- stdout\n") +
                            normalise(QString::fromUtf8(p.readAllStandardOutput()), out) +
                            QStringLiteral("--- stderr\n") +
                            normalise(QString::fromUtf8(p.readAllStandardError()), out);
        if (qEnvironmentVariableIsSet("DPX_GOLDEN_UPDATE")) {
            QDir().mkpath(kGolden + QStringLiteral("/expected"));
            QFile f(expectedFile);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(got.toUtf8());
            return;
        }
        const QString expected = readText(expectedFile);
        QVERIFY2(!expected.isEmpty(),
                 qPrintable(QStringLiteral("missing ") + expectedFile +
                            QStringLiteral(" (DPX_GOLDEN_UPDATE=1 makes it)")));
        if (got != expected) {
            // Show the first differing line.
            const QStringList a = got.split(QLatin1Char('\n'));
            const QStringList b = expected.split(QLatin1Char('\n'));
            for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i) {
                const QString x = i < a.size() ? a[i] : QStringLiteral("<end>");
                const QString y = i < b.size() ? b[i] : QStringLiteral("<end>");
                if (x != y) {
                    QFAIL(
                        qPrintable(QStringLiteral("line %1 differs\n  got:      %2\n  expected: %3")
                                       .arg(i + 1)
                                       .arg(x, y)));
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestDpxGolden)
#include "tst_dpx_golden.moc"
