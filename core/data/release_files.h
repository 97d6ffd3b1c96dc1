// Writing a histogram release (issue #8): a CSV of (bin, released value) and a JSON metadata file,
// each written atomically, and the ledger entry charged in the same step.
//
// Atomic write: the bytes go to a new temporary file in the target's directory (mkstemp), are
// fsync'ed, and the file is then moved into place — with link(2) + unlink when the target must
// not exist (link fails if it does, so a file created meanwhile is never replaced) or rename(2)
// when overwriting; finally the directory is fsync'ed. A failure at any step removes the
// temporary file, so the target is either absent/unchanged or complete.
//
// CSV injection (OWASP "CSV Injection"): a cell starting with =, +, -, @, tab, CR or the Unicode
// minus U+2212 is prefixed with a single quote so spreadsheets show it as text; cells with a
// comma, quote, CR or LF are quoted with doubled quotes (RFC 4180).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/data/privacy_ledger.h"
#include "core/expected.h"
#include "core/release.h"

namespace dpx::data {

std::string neutraliseCsvCell(std::string_view cell);

// "bin,value" then one line per declared bin (labels neutralised), LF line ends.
std::string releaseCsvText(const HistogramRelease& release);
// The metadata as indented JSON (see docs/security.md, "Releasing a histogram").
std::string releaseMetadataJson(const HistogramRelease& release);
// release.csv → release.json; any other name gets ".json" appended.
std::string metadataPathFor(const std::string& csvPath);
// SHA-256 of bytes as lowercase hex.
std::string sha256Hex(std::string_view bytes);

struct AtomicWriteOptions {
    bool overwrite = false;  // false: refuse if the target exists
    // Test hook: called with the temporary file's path after its bytes are written and synced,
    // before it is moved into place; an Error aborts the write (simulated failure).
    std::function<Status(const std::string& tempPath)> beforeCommit;
};
Status writeFileAtomically(const std::string& path, std::string_view bytes,
                           const AtomicWriteOptions& options = {});

struct ReleaseWritePlan {
    std::string csvPath;
    std::string jsonPath;    // empty: metadataPathFor(csvPath)
    std::string ledgerPath;  // the ledger file; written (created or replaced) atomically
    bool overwrite = false;  // replace existing release files (the ledger is always updated)
    std::function<Status(const std::string& tempPath)> beforeCommit;  // test hook, every file
};

// Charges `release` to `ledger` and writes the CSV, the metadata and the ledger. Refused (an
// Error, nothing written, `ledger` unchanged) if the release does not fit the remaining budget,
// if a release file exists and overwrite is false, or if any write fails — files already written
// by this call are then removed (or, when overwriting, their previous content is put back).
// Returns the ledger entry recorded.
Expected<LedgerRelease> writeRelease(const HistogramRelease& release, PrivacyLedger& ledger,
                                     const ReleaseWritePlan& plan);

// The ledger entry of a release before its files are written (files and hashes empty).
LedgerRelease ledgerEntryFor(const HistogramRelease& release);

}  // namespace dpx::data
