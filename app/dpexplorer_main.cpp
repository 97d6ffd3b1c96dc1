// dpexplorer: the DP Explorer GUI.
//
//   dpexplorer [--example ID] [--mechanism NAME] [--epsilon E] [--session FILE.json]
//              [--tab NAME] [--dark] [--screenshot OUT.png]
//
// --screenshot renders the window (offscreen works: QT_QPA_PLATFORM=offscreen) once everything
// is computed, saves it and exits: for the docs and tests.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "app/version.h"
#include "core/example_datasets.h"
#include "ui/document.h"
#include "ui/main_window.h"

namespace {
int fail(const QString& message) {
    std::fprintf(stderr, "dpexplorer: %s\n", qPrintable(message));
    return 2;
}
}  // namespace

int main(int argc, char** argv) {
    // QGuiApplication takes "-session ID" / "--session ID" for X11 session management and removes
    // it from argv, so our --session FILE must be read before the application object exists.
    QString sessionFile;
    bool sessionGiven = false;
    for (int i = 1; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        if ((a == QLatin1String("--session") || a == QLatin1String("-session")) && i + 1 < argc) {
            sessionFile = QString::fromLocal8Bit(argv[i + 1]);
            sessionGiven = true;
        } else if (a.startsWith(QLatin1String("--session="))) {
            sessionFile = a.mid(10);
            sessionGiven = true;
        }
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("DP Explorer"));
    QApplication::setOrganizationName(QStringLiteral("DP Explorer"));
    QApplication::setApplicationVersion(QStringLiteral(DPX_VERSION_STRING));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Explore differential-privacy trade-offs"));
    parser.addHelpOption();
    parser.addVersionOption();
    QString examples;
    for (const auto& e : dpx::exampleDatasets()) {
        examples += (examples.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(e.id);
    }
    QCommandLineOption example(QStringLiteral("example"),
                               QStringLiteral("Open a built-in example dataset (%1).").arg(examples),
                               QStringLiteral("id"));
    QCommandLineOption mechanism(
        QStringLiteral("mechanism"),
        QStringLiteral("Start with this mechanism (laplace, geometric, gaussian, count-geometric, "
                       "count-explicit-fair, count-uniform, count-laplace, count-optimal)."),
        QStringLiteral("name"));
    QCommandLineOption epsilon(QStringLiteral("epsilon"),
                               QStringLiteral("Start with this ε (0.01 to 20)."),
                               QStringLiteral("value"));
    QCommandLineOption session(QStringLiteral("session"),
                               QStringLiteral("Open a saved session (JSON)."), QStringLiteral("file"));
    QCommandLineOption tab(QStringLiteral("tab"),
                           QStringLiteral("Show this tab: histogram, matrix, errors, risk, "
                                          "tradeoff, budget, ldp-experiment (seed 002's "
                                          "telemetry study), ldp-ranges or ldp-marginals."),
                           QStringLiteral("name"));
    QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark theme."));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save the window as PNG once computed, then quit."), QStringLiteral("file"));
    for (const auto& o : {example, mechanism, epsilon, session, tab, dark, screenshot}) {
        parser.addOption(o);
    }
    parser.process(app);

    dpx::ui::MainWindow window;
    dpx::ui::ExplorerDocument* doc = window.document();
    if (sessionGiven || parser.isSet(session)) {
        if (auto st = window.openSession(sessionGiven ? sessionFile : parser.value(session)); !st) {
            return fail(QString::fromStdString(st.error().message));
        }
    }
    dpx::ui::ExplorerState s = doc->state();
    if (parser.isSet(example)) {
        if (!dpx::findExample(parser.value(example).toStdString())) {
            return fail(QStringLiteral("unknown example '%1' (use %2)").arg(parser.value(example), examples));
        }
        s.exampleId = parser.value(example);
        s.source = dpx::ui::SourceKind::Example;
    }
    if (parser.isSet(mechanism)) {
        auto m = dpx::ui::mechanismChoiceFromId(parser.value(mechanism));
        if (!m) {
            return fail(QString::fromStdString(m.error().message));
        }
        s.mechanism = *m;
    }
    if (parser.isSet(epsilon)) {
        bool ok = false;
        s.epsilon = parser.value(epsilon).toDouble(&ok);
        if (!ok) {
            return fail(QStringLiteral("--epsilon must be a number from 0.01 to 20"));
        }
    }
    if (parser.isSet(tab)) {
        s.tab = parser.value(tab);
    }
    if (parser.isSet(dark)) {
        s.dark = true;
    }
    if (auto st = doc->apply(s, QStringLiteral("command line")); !st) {
        return fail(QString::fromStdString(st.error().message));
    }
    doc->undoStack()->clear();
    if (parser.isSet(screenshot)) {
        QObject::connect(&window, &dpx::ui::MainWindow::screenshotSaved, &app,
                         [](const QString& path, bool ok) {
                             if (!ok) {
                                 std::fprintf(stderr, "dpexplorer: could not write %s\n",
                                              qPrintable(path));
                             }
                             QApplication::exit(ok ? 0 : 1);
                         });
        window.saveScreenshotWhenReady(parser.value(screenshot));
        // Never hang in scripts: give up after two minutes.
        QTimer::singleShot(120000, &app, [] {
            std::fprintf(stderr, "dpexplorer: the computation did not finish in 2 minutes\n");
            QApplication::exit(1);
        });
    }
    window.show();
    return app.exec();
}
