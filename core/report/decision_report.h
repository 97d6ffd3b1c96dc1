// The decision report of a release (issue #22): what a release board reads to sign off a
// published table — the table released (attributes and binning, never a count), the mechanism,
// ε/δ and the accountant, the intervals the release states and its expected errors, what an
// attacker can learn (core/choosing/risk), alternatives compared over ε with their frontier
// (core/choosing/tradeoff), the budget before and after (the ledger), the exact samplers and the
// randomness, the date, the tool version and the SHA-256 of every release file.
//
// No Qt: buildDecisionReport assembles a structured report (sections of key/value rows,
// sentences and tables, and one plot as series) from plain inputs; decisionReportHtml and
// decisionReportPlotSvg turn it into text. The PDF is drawn from the same HTML and SVG by
// io/report (Qt Gui). Every string of the input is escaped in the HTML and the SVG.
//
// Privacy: everything in the report is computed from the release's spec, its metadata, the number
// of bins and the ledger — never from the true counts — so publishing the report spends nothing.
// The alternatives' expected errors are those of the identity estimator with additive noise,
// which do not depend on the counts (E|Z| per bin); they are computed on a placeholder histogram
// of ones with the release's number of bins, which holds no data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/release/release.h"

namespace dpx {

// One release file and its SHA-256 (lowercase hex), as the ledger recorded it.
struct DecisionReportFile {
    std::string role;  // "released values (CSV)", "metadata (JSON)"
    std::string path;
    std::string sha256;
};

// The ledger around the release: its totals and what was left before and after the charge, as
// text (io/release's budgetUsageText) and as numbers.
struct DecisionReportBudget {
    std::string ledgerPath;
    std::string dataset;      // the ledger's description of the data
    std::string composition;  // compositionName: "basic", "zcdp", …
    std::string totalEpsilon, totalDelta;
    std::string before;  // "ε 2 of 2 left"
    std::string after;   // "ε 1 of 2 left"
    double epsilonSpentBefore = 0, epsilonSpentAfter = 0;
    double deltaSpentBefore = 0, deltaSpentAfter = 0;
    std::size_t releasesInLedger = 0;  // after this release
    bool ledgerCreated = false;
};

struct DecisionReportInput {
    ReleaseSpec spec;          // as released (ε, δ as typed, mechanism, relation, cap, level)
    ReleaseMetadata metadata;  // the metadata written beside the release
    std::uint64_t bins = 0;    // released bins (cells)
    DecisionReportBudget budget;
    std::vector<DecisionReportFile> files;
    // When the report was made, UTC "YYYY-MM-DDTHH:MM:SSZ"; empty: now. Tests inject it.
    std::string generatedAt;
    // The attacker's belief before the release that a given person is in the data (the Risk
    // tab's prior), in (0, 1).
    double prior = 0.5;
    // The alternatives' ε grid: `points` log-spaced values from ε/10 to 10ε (ε the release's).
    std::size_t points = 25;
    // The report was rebuilt later from the release files on disk (dpx report --release, File ▸
    // Export decision report of a release file…), not made at release time: the report says so
    // ("rebuilt on DATE from the release files of DATE") and how the files were checked.
    bool rebuiltFromFiles = false;
    // With rebuiltFromFiles: whether a ledger was given and holds the release (its entry's hashes
    // equal the files' and the budget is the ledger's before and after that entry). Without one
    // the budget is not stated and the hashes were not compared with any record.
    bool ledgerGiven = true;
    // The version of the tool writing the report (the footer's); empty: the release's
    // (metadata.appVersion), as at release time.
    std::string reportToolVersion;
};

struct ReportRow {
    std::string key;
    std::string value;
};

struct ReportTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

struct ReportSection {
    std::string id;  // "table", "mechanism", "errors", "risk", "alternatives", "budget", …
    std::string heading;
    std::vector<std::string> paragraphs;  // plain text, escaped on output
    std::vector<ReportRow> rows;
    std::vector<ReportTable> tables;
    bool hasPlot = false;  // the report's plot goes after the paragraphs
    std::vector<std::string> notes;
};

struct ReportPoint {
    double x = 0;
    double y = 0;
};

struct ReportSeries {
    std::string label;
    std::vector<ReportPoint> points;
    std::string colour;  // "#RRGGBB"
    bool dashed = false;
};

// The alternatives compared: expected error over ε, log–log, and the release's own point.
struct ReportPlot {
    std::string title;
    std::string xLabel;
    std::string yLabel;
    std::vector<ReportSeries> series;
    std::optional<ReportPoint> marker;  // the release
    std::string markerLabel;
};

struct DecisionReport {
    std::string title;
    std::string subtitle;
    std::string generatedAt;
    std::string appVersion;
    // Empty for a report made at release time; else "Rebuilt on DATE from the release files of
    // DATE …" (DecisionReportInput::rebuiltFromFiles), shown under the subtitle.
    std::string rebuiltNote;
    std::vector<ReportSection> sections;
    ReportPlot plot;
    const ReportSection* section(const std::string& id) const;
};

// Errors: an invalid spec, bins = 0, a prior outside (0, 1), points < 2, or a core computation
// that refuses (the message says which).
Expected<DecisionReport> buildDecisionReport(const DecisionReportInput& input);

// The plot as a standalone SVG document (width × height user units, default 640 × 400), every
// text escaped. Log–log axes with decade ticks.
std::string decisionReportPlotSvg(const ReportPlot& plot, int width = 640, int height = 400);

enum class ReportHtmlFlavour {
    Standalone,  // a complete HTML5 page with CSS and the plot as inline SVG
    QtRichText,  // the subset Qt's QTextDocument lays out; the plot is the paragraph
                 // kReportPlotPlaceholder, replaced by the PDF writer with the drawn SVG
};
inline constexpr const char* kReportPlotPlaceholder = "[[dpx-decision-report-plot]]";

std::string decisionReportHtml(const DecisionReport& report,
                               ReportHtmlFlavour flavour = ReportHtmlFlavour::Standalone);

// &, <, >, " and ' as entities (text and attribute values).
std::string htmlEscape(const std::string& text);

}  // namespace dpx
