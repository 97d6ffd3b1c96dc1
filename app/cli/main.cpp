// dpx: command-line front end of DP Explorer. The command table is app/cli/cli.cpp, the commands
// are app/cli/commands/, the logic is the core.
#include <QCoreApplication>
#include <iostream>

#include "app/cli/cli.h"

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    std::vector<std::string> args(argv, argv + argc);
    return dpx::cli::run(args, std::cout, std::cerr);
}
