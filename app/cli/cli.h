// The dpx command-line tool: subcommands over the core, JSON on `out`, errors on `err`.
// The command table below is the one list of subcommands: run() dispatches through it and the
// --help text is generated from it.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace dpx::cli {

using CommandHandler = int (*)(const std::vector<std::string>& argv, std::ostream& out,
                               std::ostream& err);

struct Command {
    const char* name;    // argv[1]
    CommandHandler run;  // returns the exit code (app/cli/output.h)
    // Its lines of the usage text, "  dpx NAME ..." and the continuation lines, each preceded by
    // a newline (so that the table's raw strings show the lines as printed).
    const char* synopsis;
};

// Every subcommand, in the order of the usage text.
const std::vector<Command>& commands();
// The command called `name`, or nullptr.
const Command* findCommand(std::string_view name);
// The text of `dpx --help`: a header, every command's synopsis, --help/--version and the exit
// codes.
std::string usage();

// argv[0] is the program name. Returns the process exit code: 0 success, 2 invalid arguments or
// parameters (including an exact method that does not exist), 1 runtime failure.
int run(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
