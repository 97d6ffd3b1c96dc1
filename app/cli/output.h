// What every dpx subcommand shares on the way out: exit codes, the "dpx: error: ..." and
// "dpx: warning: ..." lines on stderr, JSON on stdout, and the small conversions into JSON.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/base/expected.h"

namespace dpx::cli {

// Exit codes (docs/cli.md): success, a runtime failure (or a refused release, or an audit that
// did not come out as expected), invalid arguments or parameters.
constexpr int kOk = 0;
constexpr int kFailure = 1;
constexpr int kInvalid = 2;
constexpr int kRefused = kFailure;  // dpx release: the ledger or the checks refused it

// Writes "dpx: error: MESSAGE" to `err` and returns `code`.
int fail(std::ostream& err, const std::string& message, int code = kInvalid);
int fail(std::ostream& err, const Error& e, int code = kInvalid);

// Writes "dpx: warning: MESSAGE" to `err` (the command goes on).
void warn(std::ostream& err, const std::string& message);

// The JSON document, indented, as every subcommand prints it.
void printJson(std::ostream& out, const QJsonObject& o);
void printJson(std::ostream& out, const QJsonArray& a);

QString qs(const std::string& s);
QJsonArray toArray(const std::vector<double>& v);
QJsonArray toArray(const std::vector<std::string>& v);

// `s` cut at every `sep` (n separators give n + 1 parts, empty ones included).
std::vector<std::string> split(const std::string& s, char sep);

}  // namespace dpx::cli
