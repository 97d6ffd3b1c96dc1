// dpx release: a differentially private histogram written as CSV + JSON metadata and charged to a
// privacy-budget ledger (issue #8). See docs/cli.md, "dpx release", and docs/security.md,
// "Releasing a histogram".
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "release". Exit codes: 0 released; 2 bad input (nothing written); 1 refused (over
// budget, existing files, a foreign or damaged ledger, a failed matrix check or calibration, a
// randomness or write failure; nothing written). A JSON summary (files, ledger usage; no true
// counts) goes to `out`.
// --report FILE.pdf|FILE.html (issue #22) writes the decision report after the release; a
// report that cannot be written then leaves the release as it is, prints the summary with
// "report_error" and exits 1 saying the release was charged and published.
int cmdRelease(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// argv[1] == "report" (issue #22): `dpx report --release FILE.json [--csv FILE.csv] [--ledger
// LEDGER] --out report.pdf|report.html [--overwrite]` rebuilds the decision report of a release
// already on disk from its files (io/report, decisionReportInputFromFiles). Exit codes: 0 written;
// 2 bad arguments; 1 the files or the ledger refused (missing, malformed, another version, a CSV
// that is not the metadata's, files edited since the ledger charged them, a ledger without the
// release) — nothing written. A JSON summary (files and their SHA-256, the ledger entry) goes to
// `out`.
int cmdReport(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// Whether `argv` asks `dpx release --report FILE.pdf` or `dpx report --out FILE.pdf`: drawing a
// PDF needs a QGuiApplication (fonts; no display), which main() then creates instead of a
// QCoreApplication.
bool releaseNeedsGui(const std::vector<std::string>& argv);

// argv[1] == "ledger": `dpx ledger --ledger FILE` resolves the ledger's interrupted releases under
// its lock (completing or marking them "charged, not published", removing stale temporaries) and
// prints its state as JSON. Exit codes: 0; 2 bad arguments; 1 not a usable ledger.
int cmdLedger(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
