// One histogram release from start to finish (issue #8), shared by `dpx release` and the window's
// "Release…" dialog so that both refuse the same things in the same order:
//  1. the spec (ε, δ, n, cap, post-processing; core/release.h), without the data;
//  2. an exclusive flock(2) on the ledger's directory, held until the ledger is written, so
//     concurrent releases on one ledger cannot both pass the budget check;
//  3. the ledger: an existing one must load intact, be of this dataset and agree with a total or
//     composition given again; a missing one needs a new total;
//  4. the output files must not exist unless `overwrite`;
//  5. the budget: the release's cost (releaseCost, no data, no randomness) must fit;
//  6. only then the data are loaded (ReleaseRequest::loadTruth) and must have declared bins;
//  7. noise from ReleaseRandomness (getrandom) — there is no way to pass a seed —, post-processing,
//     and the CSV, metadata and ledger written all or nothing (writeRelease).
// previewRelease runs steps 1, 3 (without the lock), 4 and 5 read-only for the dialog.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/budget.h"
#include "core/data/privacy_ledger.h"
#include "core/expected.h"
#include "core/histogram.h"
#include "core/release.h"

namespace dpx::data {

// The true histogram to release and where it came from.
struct ReleaseTruth {
    Histogram histogram;
    // False when the bins were taken from the data (the categories found, the data's range):
    // refused, since which bins exist reveals values.
    bool binsDeclared = false;
    std::string source;  // recorded in the metadata, e.g. "column 'age' of data.csv"
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
    bool overwrite = false;  // replace existing release files (the caller asked the user)
    // Called once every check that needs no data has passed; an Error refuses the release.
    std::function<Expected<ReleaseTruth>()> loadTruth;
    // Test hook, passed to writeRelease (simulated write failures).
    std::function<Status(const std::string& tempPath)> beforeCommit;
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
    std::string totalEpsilon, totalDelta;
    std::size_t releasesInLedger = 0;
    bool ledgerCreated = false;
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
};
// An Error when the preview cannot be computed (bad spec, unreadable or tampered ledger, a new
// ledger without a total): the message says why.
Expected<ReleasePreview> previewRelease(const ReleaseRequest& request);

// What is left of a budget, for display: "ε 2.3 of 5 left" (basic, pure), "ε 0.5 of 1 and
// δ 5e-07 of 1e-06 left" (basic), "ρ 0.0012 of 0.0049 left (ε 0.6 of 1 at δ 1e-06)" (zCDP).
std::string budgetUsageText(const BudgetUsage& usage, const std::string& totalEpsilon,
                            const std::string& totalDelta);

}  // namespace dpx::data
