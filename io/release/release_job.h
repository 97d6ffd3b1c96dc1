// One histogram release from start to finish (issues #8, #17), shared by `dpx release` and the
// window's "Release…" dialog so that both refuse the same things in the same order:
//  1. the spec (ε, δ, n, cap, post-processing; core/release/release.h) and the paths, without the
//  data;
//     the ledger path resolved (resolveLedgerPath: links followed, FIFOs, devices, directories
//     refused, a read-only ledger refused for writing);
//  2. the release's cost (releaseCost: the discrete Gaussian's calibration), before any lock;
//  3. a first look at the ledger without the lock: it must load intact, be of this dataset and
//     agree with a total or composition given again (a missing one needs a new total), the
//     output files must not exist unless `overwrite`, and the cost must fit — so a refused
//     release never reads the data;
//  4. the data are loaded (ReleaseRequest::loadTruth), must have declared bins, and the noise is
//     drawn from ReleaseRandomness (getrandom; there is no way to pass a seed), post-processed;
//  5. an exclusive flock(2) on the directory of the resolved ledger, held while the ledger is
//     read and written, so concurrent releases on one ledger cannot both pass the budget check
//     (links to one ledger share its lock): the ledger is read again, interrupted releases are
//     resolved (recoverPendingReleases), step 3's checks are repeated, and the release is charged
//     durably, then published (writeRelease: the budget is on disk before any released value
//     appears under its final name).
// previewRelease runs steps 1–3 read-only for the dialog.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/expected.h"
#include "core/choosing/budget.h"
#include "core/histogram/histogram.h"
#include "core/matrix_mechanism/strategy_release.h"
#include "core/release/release.h"
#include "core/table/table.h"
#include "io/release/privacy_ledger.h"
#include "io/release/release_files.h"

namespace dpx::data {

// The true histogram to release and where it came from.
struct ReleaseTruth {
    ReleaseTruth(Histogram h, bool declared, std::string from,
                 std::optional<ContingencyTable> t = std::nullopt)
        : histogram(std::move(h)),
          binsDeclared(declared),
          source(std::move(from)),
          table(std::move(t)) {}
    Histogram histogram;
    // False when the bins were taken from the data (the categories found, the data's range):
    // refused, since which bins exist reveals values.
    bool binsDeclared = false;
    std::string source;  // recorded in the metadata, e.g. "column 'age' of data.csv"
    // A table of several attributes (issue #19): released by releaseTable (every attribute's bins
    // must be declared; the metadata lists the attributes) instead of `histogram` (then its cells,
    // unused). binsDeclared is ignored for a table: the attributes' declared flags decide.
    std::optional<ContingencyTable> table;
};

// A total budget for a new ledger, as decimal text; δ "0" or empty for a pure budget.
struct LedgerBudgetText {
    std::string epsilon;
    std::string delta = "0";
};

struct ReleaseRequest {
    // Mechanism, ε, δ as typed, n, relation, cap, post-processing, app version, timestamp.
    // `source` and `binsDeclared` are filled from the truth.
    ReleaseSpec spec;
    std::string dataset;  // the ledger's description of the data (its path, the example's name)
    std::string csvPath;
    std::string jsonPath;  // empty: metadataPathFor(csvPath)
    std::string ledgerPath;
    // The total of a new ledger; given for an existing one it must equal the recorded total.
    std::optional<LedgerBudgetText> newBudget;
    // The composition of a new ledger (basic if not given); given for an existing ledger it must
    // be the recorded one.
    std::optional<Composition> composition;
    // The PLD grid interval of a new ledger of composition pld (decimal text).
    std::string pldInterval = PrivacyLedger::kDefaultPldInterval;
    // Whether pldInterval was given (dpx release --pld-interval): then an existing PLD ledger's
    // interval must equal it (a clear refusal, never silently ignored).
    bool pldIntervalGiven = false;
    bool overwrite = false;  // replace existing release files (the caller asked the user)
    // The number of declared bins (cells), for the intervals of previewRelease; 0: not shown.
    std::uint64_t previewBins = 0;
    // The declared shape of a table for previewRelease's strategy plan (empty: previewBins
    // cells in one dimension).
    std::vector<std::size_t> previewShape;
    // A release through a designed strategy (issue #23; planned without the data): the truth's
    // cells are measured through the plan's integer strategy instead of noised one by one.
    std::shared_ptr<const StrategyReleasePlan> strategy;
    // Or the plan made once the declared shape is known (the histogram's bins or the table's
    // attributes, declared before the data were read: the design never sees a count). Used when
    // `strategy` is empty.
    StrategyPlanner planStrategy;
    // Called once every check that needs no data has passed; an Error refuses the release.
    std::function<Expected<ReleaseTruth>()> loadTruth;
    // Test hooks, passed to writeRelease (simulated write failures; each completed step, where a
    // test may kill the process).
    std::function<Status(const std::string& tempPath)> beforeCommit;
    StepHook onStep;
};

// Why a release failed: bad input (the request itself; `dpx release` exits 2) or a refusal
// (budget, ledger, existing files, write or randomness failure; exit 1). `field` names the input
// at fault where there is one: "budget", "composition", "ledger", "out", "data", or "" (the
// spec, whose messages start with the parameter's name).
struct ReleaseFailure {
    bool invalidInput = false;
    std::string field;
};

struct ReleaseOutcome {
    std::string csvPath, jsonPath, ledgerPath;
    HistogramRelease release;  // the released values and the metadata written
    BudgetUsage usage;         // of the ledger after this release
    // Of the ledger just before this release was charged (after recovering interrupted ones), and
    // the entry that charged it (its files and their SHA-256): the decision report's (issue #22).
    BudgetUsage usageBefore;
    LedgerRelease entry;
    std::string totalEpsilon, totalDelta;
    std::size_t releasesInLedger = 0;
    bool ledgerCreated = false;
    // Interrupted earlier releases this run resolved (recoverPendingReleases), one sentence each.
    std::vector<std::string> recoveryNotes;
    // A PLD ledger whose recorded ε is kept as the authority (PrivacyLedger::loadWarning).
    std::string ledgerWarning;
};

// Runs the release. On error nothing was written and the ledger is unchanged; `failure` (if not
// null) says what kind of error it was.
Expected<ReleaseOutcome> runRelease(const ReleaseRequest& request,
                                    ReleaseFailure* failure = nullptr);

// What a release would cost and leave, without the data, the lock or randomness.
struct ReleasePreview {
    ReleaseCost cost;
    std::optional<ReleaseGaussianCalibration> gaussian;  // discrete-gaussian: σ², ρ, δ achieved
    bool ledgerExists = false;
    std::string totalEpsilon, totalDelta;  // the ledger's (or the new total's)
    Composition composition = Composition::Basic;
    std::size_t releasesInLedger = 0;
    BudgetUsage before;                      // what is left now (an empty ledger if new)
    std::optional<BudgetUsage> after;        // what would be left; empty if refused
    std::string refusal;                     // why the release would be refused (budget, files)
    std::vector<std::string> existingFiles;  // release files that exist (need overwrite)
    // The intervals the release will state (request.previewBins > 0; issue #22); empty when not
    // stated (resize, NoiseFirst).
    std::optional<ReleaseIntervalStatement> intervals;
    // A release through a strategy: the plan previewed (its rounding and expected error).
    std::shared_ptr<const StrategyReleasePlan> strategy;
    double strategyRmse = 0;  // its exact expected RMSE on the workload at this ε
};
// An Error when the preview cannot be computed (bad spec, unreadable or tampered ledger, a new
// ledger without a total): the message says why.
Expected<ReleasePreview> previewRelease(const ReleaseRequest& request);

// What is left of a budget, for display: "ε 2.3 of 5 left" (basic, pure), "ε 0.5 of 1 and
// δ 5e-07 of 1e-06 left" (basic), "ρ 0.0012 of 0.0049 left (ε 0.6 of 1 at δ 1e-06)" (zCDP).
// What is left is rounded DOWN to six significant digits, so a figure shown can be spent.
std::string budgetUsageText(const BudgetUsage& usage, const std::string& totalEpsilon,
                            const std::string& totalDelta);

// "Use the rest": the largest ε (a decimal of at most `digits` significant digits) at which the
// previewed release — same mechanism, δ, relation, cap, n — still fits the ledger of `request`,
// or an Error saying why none does (no budget left; δ alone does not fit). The figure returned is
// checked with the ledger's own exact fits(), so typing it is never refused for the budget.
// Cost: one calibration per step of a bisection (discrete Gaussian under zCDP); cheap otherwise.
Expected<std::string> spendableEpsilon(const ReleaseRequest& request, int digits = 6);

// A ledger's state after resolving its interrupted releases under its lock (`dpx ledger`).
struct LedgerCheck {
    std::string path;  // the resolved file
    std::string dataset, totalEpsilon, totalDelta;
    Composition composition = Composition::Basic;
    std::size_t releases = 0, notPublished = 0;
    BudgetUsage usage;
    bool readOnly = false;
    std::vector<std::string> recoveryNotes;
    std::string warning;  // PrivacyLedger::loadWarning
};
// Errors: the path is not a usable ledger (missing, not a regular file, corrupted, ...); a
// read-only ledger with interrupted releases is reported, not modified.
Expected<LedgerCheck> checkLedger(const std::string& path, const StepHook& onStep = {});

}  // namespace dpx::data
