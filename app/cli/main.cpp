// dpx: command-line front end of DP Explorer. The command table is app/cli/cli.cpp, the commands
// are app/cli/commands/, the logic is the core.
#include <QCoreApplication>
#include <QGuiApplication>
#include <iostream>
#include <memory>

#include "app/cli/cli.h"
#include "app/cli/commands/release.h"

namespace {

// Qt's note that XDG_RUNTIME_DIR is unset (common on servers and in CI) says nothing about the
// release; every other message goes to the default handler.
QtMessageHandler defaultHandler = nullptr;
void quietHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.startsWith(QStringLiteral("QStandardPaths: XDG_RUNTIME_DIR not set"))) {
        return;
    }
    defaultHandler(type, context, message);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv, argv + argc);
    // `dpx release --report FILE.pdf` draws text, which needs Qt Gui's fonts but no display: the
    // offscreen platform unless the user chose one (issue #22).
    std::unique_ptr<QCoreApplication> app;
    if (dpx::cli::releaseNeedsGui(args)) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
        }
        defaultHandler = qInstallMessageHandler(quietHandler);
        app = std::make_unique<QGuiApplication>(argc, argv);
    } else {
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    return dpx::cli::run(args, std::cout, std::cerr);
}
