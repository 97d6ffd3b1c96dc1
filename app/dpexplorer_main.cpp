// dpexplorer: the DP Explorer GUI.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "app/version.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("DP Explorer"));
    QApplication::setApplicationVersion(QStringLiteral(DPX_VERSION_STRING));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Explore differential-privacy trade-offs"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption example(QStringLiteral("example"),
                               QStringLiteral("Open a built-in example dataset (seed000, ages)."),
                               QStringLiteral("id"), QStringLiteral("seed000"));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save the window as PNG once computed, then quit."), QStringLiteral("file"));
    QCommandLineOption mechanism(
        QStringLiteral("mechanism"),
        QStringLiteral("Start with this mechanism (laplace, geometric, gaussian)."),
        QStringLiteral("name"), QStringLiteral("laplace"));
    QCommandLineOption epsilon(QStringLiteral("epsilon"),
                               QStringLiteral("Start with this ε (0.01 to 20)."),
                               QStringLiteral("value"), QStringLiteral("0.1"));
    parser.addOption(example);
    parser.addOption(mechanism);
    parser.addOption(epsilon);
    parser.addOption(screenshot);
    parser.process(app);

    dpx::ui::MainWindow window;
    if (!window.selectExample(parser.value(example))) {
        std::fprintf(stderr, "dpexplorer: unknown example '%s' (use seed000 or ages)\n",
                     qPrintable(parser.value(example)));
        return 2;
    }
    if (!window.selectMechanism(parser.value(mechanism))) {
        std::fprintf(stderr,
                     "dpexplorer: unknown mechanism '%s' (use laplace, geometric or gaussian)\n",
                     qPrintable(parser.value(mechanism)));
        return 2;
    }
    bool ok = false;
    const double eps = parser.value(epsilon).toDouble(&ok);
    if (!ok || !(eps >= 0.01 && eps <= 20)) {
        std::fprintf(stderr, "dpexplorer: --epsilon must be a number from 0.01 to 20\n");
        return 2;
    }
    window.setEpsilon(eps);
    if (parser.isSet(screenshot)) {
        window.saveScreenshotWhenReady(parser.value(screenshot));
    }
    window.show();
    return app.exec();
}
