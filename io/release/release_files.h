// Writing a histogram release (issues #8, #17): a CSV of (bin, released value) and a JSON metadata
// file, and the ledger entry that charges them.
//
// Atomic write: the bytes go to a new temporary file ".NAME.dpx-tmp-XXXXXX" in the target's
// directory (mkstemp), are fsync'ed, and the file is then moved into place — with link(2) +
// unlink when the target must not exist (link fails if it does, so a file created meanwhile is
// never replaced) or rename(2) when overwriting; finally the directory is fsync'ed. A failure at
// any step removes the temporary file, so the target is either absent/unchanged or complete.
//
// Crash consistency (writeRelease): the budget is charged durably before any released value can
// be seen under its final name.
//  1. the ledger is written (atomically, fsync of file and directory) with the release as
//     "pending": its files, their SHA-256 and the names of the temporary files about to hold them;
//  2. the CSV and metadata are written to those temporary files (".NAME.dpx-pending-RANDOM", mode
//     0600, created exclusively), fsync'ed with their directories;
//  3. each is moved to its final name (link, or rename when overwriting), directories fsync'ed;
//  4. the ledger is written again with the release "published".
// A process killed at any point leaves at most: a ledger temporary (no released value in it), or
// a pending release whose temporaries the ledger names. The next run on the ledger, under its
// lock, resolves every pending release (recoverPendingReleases): it completes the publication
// when every file is complete (its hash matches) and its final name is free, marks it published
// when its files are already in place, and otherwise removes what is left and marks it "not
// published" — charged all the same, never refunded. It also removes the ledger's own stale
// temporaries. In-process failures: before anything reached a final name the temporaries are
// removed and the charge is withdrawn (the error says so); after that, what was published is
// removed (an overwritten file gets its previous content back) and the charge stays, marked
// "not published".
//
// CSV injection (OWASP "CSV Injection"): a cell starting with =, +, -, @, tab, CR or the Unicode
// minus U+2212 is prefixed with a single quote so spreadsheets show it as text; cells with a
// comma, quote, CR or LF are quoted with doubled quotes (RFC 4180).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"
#include "core/release/release.h"
#include "io/release/privacy_ledger.h"

namespace dpx::data {

std::string neutraliseCsvCell(std::string_view cell);

// "bin,value" then one line per declared bin (labels neutralised), LF line ends. A table of k ≥ 2
// attributes (metadata.attributes): "NAME1,…,NAMEk,value" then one line per cell in C order, each
// with the cell's bin label on every attribute.
std::string releaseCsvText(const HistogramRelease& release);
// The metadata as indented JSON (see docs/security.md, "Releasing a histogram").
std::string releaseMetadataJson(const HistogramRelease& release);
// release.csv → release.json; any other name gets ".json" appended.
std::string metadataPathFor(const std::string& csvPath);
// The inverse, for a release read back (issue #22): release.json → release.csv when that file
// exists, else release (the name metadataPathFor appended ".json" to) when it exists, else
// release.csv (whose absence the reader then reports).
std::string csvPathForMetadata(const std::string& jsonPath);

// A release read back from its files (issue #22: the decision report of an existing release).
// The metadata JSON as ReleaseMetadata: every member releaseMetadataJson writes, read back; an
// Error naming the member that is missing or of the wrong type, or a format or version this
// program does not write. The caller checks that releaseMetadataJson gives the same bytes back
// (anything else was written by another version, or edited).
Expected<ReleaseMetadata> releaseMetadataFromJson(const std::string& json);
// The published values of a release CSV written for `metadata` (and, for a release declared a
// sample, metadata.sampling's per-value columns): an Error unless the text is exactly what
// releaseCsvText writes for them — the header, one line per bin with its label, and lower/upper
// equal to value ∓ the stated half-width (after resize / NoiseFirst with intervals around the
// noisy counts, which the files do not hold, only their form is checked).
Expected<HistogramRelease> releaseFromCsv(const std::string& csvText, ReleaseMetadata metadata);
// SHA-256 of bytes as lowercase hex.
std::string sha256Hex(std::string_view bytes);

// Fault-injection hook of the release path (tests): called with the name of each step as it
// completes ("ledger temp written", "charged", "temp written: r.csv", "published: r.csv", ...);
// a test may kill the process there.
using StepHook = std::function<void(const std::string& step)>;

struct AtomicWriteOptions {
    bool overwrite = false;  // false: refuse if the target exists
    // Test hook: called with the temporary file's path after its bytes are written and synced,
    // before it is moved into place; an Error aborts the write (simulated failure).
    std::function<Status(const std::string& tempPath)> beforeCommit;
    unsigned mode = 0644;  // permission bits of the file written
    StepHook onStep;       // "<name> temp written" before the move, "<name> written" after
};
Status writeFileAtomically(const std::string& path, std::string_view bytes,
                           const AtomicWriteOptions& options = {});

struct ReleaseWritePlan {
    std::string csvPath;
    std::string jsonPath;    // empty: metadataPathFor(csvPath)
    std::string ledgerPath;  // the ledger file; written (created or replaced) atomically
    bool overwrite = false;  // replace existing release files (the ledger is always updated)
    // Test hook, called before each file is moved into place (the ledger's writes and each
    // release file's publication); an Error simulates a failure there.
    std::function<Status(const std::string& tempPath)> beforeCommit;
    StepHook onStep;  // test hook: each completed step
};

// Charges `release` to `ledger` and writes the CSV, the metadata and the ledger in the order
// above; the caller holds the ledger's lock and `plan.ledgerPath` is the resolved ledger path.
// Refused (an Error, nothing written, `ledger` unchanged) if the release does not fit the
// remaining budget, if a release file exists and overwrite is false, or if the charge cannot be
// written. A later failure is an Error too; `ledger` then holds what the file holds (the charge
// withdrawn, or kept as "not published" — the message says which). Returns the entry recorded.
Expected<LedgerRelease> writeRelease(const HistogramRelease& release, PrivacyLedger& ledger,
                                     const ReleaseWritePlan& plan);

// What recoverPendingReleases did, one sentence per release or file, e.g. "release of
// 2026-…: charged, not published (its files never appeared); the budget stays spent".
struct RecoveryResult {
    std::vector<std::string> notes;
    bool ledgerChanged = false;
};
// Resolves the pending releases of `ledger` (loaded from the resolved `ledgerPath`, under its
// lock) as described above, removes the ledger's stale temporaries, and writes the ledger if it
// changed. Errors: the ledger cannot be written (then nothing was settled on disk).
Expected<RecoveryResult> recoverPendingReleases(PrivacyLedger& ledger,
                                                const std::string& ledgerPath,
                                                const StepHook& onStep = {});

// Removes the temporaries a killed run left while writing the ledger (".NAME.dpx-tmp-*" beside
// the resolved `ledgerPath`; the caller holds its lock). One note per file removed.
std::vector<std::string> removeStaleLedgerTemporaries(const std::string& ledgerPath);

// The ledger written atomically and durably, keeping the existing file's permission bits.
Status writeLedgerFile(const std::string& ledgerPath, const PrivacyLedger& ledger,
                       const std::function<Status(const std::string&)>& beforeCommit = {},
                       const StepHook& onStep = {});

// The ledger entry of a release before its files are written (files and hashes empty).
LedgerRelease ledgerEntryFor(const HistogramRelease& release);

}  // namespace dpx::data
