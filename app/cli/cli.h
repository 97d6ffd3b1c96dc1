// The dpx command-line tool: subcommands over the core, JSON on `out`, errors on `err`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[0] is the program name. Returns the process exit code: 0 success, 2 invalid arguments or
// parameters (including an exact method that does not exist), 1 runtime failure.
int run(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
