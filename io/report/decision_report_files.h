// The decision report of a release as a file (issue #22): HTML (core/report's text) or PDF (Qt
// Gui: QTextDocument laid out on A4 by QPdfWriter, the plot drawn from its SVG by QSvgRenderer, so
// it stays vector), shared by `dpx release --report` and the window's File ▸ Export decision
// report…. A room of its own (io/report, target dpx_report): it is the only part of io/ that links
// Qt Gui — dpx_io stays Qt Core + Sql — and it links no widgets, so dpx can write a PDF without a
// display (QT_QPA_PLATFORM=offscreen).
//
// Order: the report describes a release that was charged and published; it is built from the
// release's outcome afterwards and never changes the release. Its failure leaves the release as
// it is (the caller says so).
#pragma once

#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/report/decision_report.h"
#include "io/release/release_job.h"

namespace dpx::data {

enum class ReportFormat { Html, Pdf };
// By the file name's extension, any case: .html / .htm → HTML, .pdf → PDF; else an Error naming
// the accepted ones.
Expected<ReportFormat> reportFormatFor(const std::string& path);

// Before a release: the report's path has a known extension, its directory exists, the file does
// not exist unless `overwrite`, it is none of `releasePaths` (the CSV, metadata, ledger), and a PDF
// can be drawn (a QGuiApplication exists). The message names the problem.
Status checkReportPath(const std::string& path, bool overwrite,
                       const std::vector<std::string>& releasePaths);

// The report's input from a finished release: the spec it was made with, the metadata, the ledger
// before and after, and every release file with its SHA-256 as the ledger recorded it — each file
// read back and hashed again (sha256Hex, the ledger's own function); an Error if one changed or
// disappeared since. `dataset` is the ledger's description of the data (ReleaseRequest::dataset).
Expected<DecisionReportInput> decisionReportInputFor(const ReleaseOutcome& outcome,
                                                     const ReleaseSpec& spec,
                                                     const std::string& dataset);

// The decision report of a release already on disk (issue #22: `dpx report --release`, File ▸
// Export decision report of a release file…), rebuilt from what the files hold: the metadata JSON
// (releaseMetadataFromJson, which must give back the same bytes: anything else was written by
// another version of DP Explorer or edited), the CSV paired with it (csvPathForMetadata, or
// given), which must be exactly the CSV of that metadata (releaseFromCsv), and the ledger if
// given. Both files are hashed (SHA-256); with a ledger, its entry for the release is the one
// whose recorded hashes are the files' — none: the files were edited since they were charged
// (when an entry lists the same file names or the metadata's time) or the ledger is another
// dataset's; an Error either way, never a report that claims a budget it cannot show. The budget
// before and after are the ledger's releases up to that entry (PrivacyLedger::prefix: a PLD
// ledger's recorded excess counted as the ledger counts it), and the ledger is "created by this
// release" when that entry is its first (a ledger file is written only by charging a release). The
// spec is the one the metadata states (mechanism, ε, δ, n, neighbours, cap, post-processing, level,
// sample). Only the published values are read, never shown: the report holds what the release-time
// report holds.
struct ReleaseFilesForReport {
    std::string metadataPath;
    std::string csvPath;      // empty: csvPathForMetadata(metadataPath)
    std::string ledgerPath;   // empty: none (the report says the budget is not stated)
    std::string generatedAt;  // empty: now
    std::string toolVersion;  // the version rebuilding the report
};
Expected<DecisionReportInput> decisionReportInputFromFiles(const ReleaseFilesForReport& files);

// The spec a release's metadata states (for the report's computations: the noise law, the
// alternatives' sensitivity, the level): an Error naming what cannot be read back.
Expected<ReleaseSpec> releaseSpecFromMetadata(const ReleaseMetadata& metadata);

// The PDF's bytes: A4, the report's HTML laid out by QTextDocument, the plot as vector graphics,
// "page i of n" at the foot of each page. Needs a QGuiApplication (an Error otherwise).
Expected<std::string> decisionReportPdf(const DecisionReport& report);

// Writes the report as HTML (ReportHtmlFlavour::Standalone) or PDF by the path's extension,
// atomically (writeFileAtomically: a complete file or none).
Status writeDecisionReport(const DecisionReport& report, const std::string& path, bool overwrite);

// The one path from a report's input to its file (dpx release --report, dpx report, File ▸ Export
// decision report… and … of a release file…): buildDecisionReport, then writeDecisionReport. The
// report written, or the Error of the step that failed (building it: "the decision report: …").
Expected<DecisionReport> writeDecisionReportOf(const DecisionReportInput& input,
                                               const std::string& path, bool overwrite);

}  // namespace dpx::data
