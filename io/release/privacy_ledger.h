// A per-dataset privacy-budget ledger file (issue #8): the total budget (ε, δ), the composition
// (basic or zCDP, core/choosing/budget.h, or the PLD accountant: version 3 below) and every release
// charged to it, as JSON. The arithmetic is BudgetLedger's: exact rationals for basic composition
// (ten charges of 0.1 fill a total of 1 exactly), exact ρ sums with a 1e-12 safety margin for zCDP.
//
// Integrity: the file carries "format": "dpx-privacy-ledger", "version": 2 and a SHA-256 of its
// own content (the compact JSON of the object without the "sha256" member, keys sorted). A file
// that is not JSON, of another format or version, whose checksum does not match, whose values
// do not parse exactly, or whose releases exceed its total is an error; it is never reset or
// repaired silently. The checksum catches corruption and hand edits, not a deliberate forger who
// recomputes it (that needs a signature or a write-once store, outside this program).
//
// Version 2 (issue #17) records each release's state: a release is charged *before* any of its
// files appears under its final name (release_files.h), so an entry may be "pending" (charged,
// publication under way or interrupted), "published" or "not published" (charged, the files
// never appeared: the budget stays spent). Version 1 files (every entry published) are read and
// rewritten as version 2.
//
// Version 3 (issue #22) is the ledger of composition "pld": version 2 plus a "pld" object (grid
// interval, target δ = the total δ, the ε found) and each release's "loss" (LedgerLoss), from
// which the PLD accountant (core/accounting/privacy_loss.h) recomposes the releases on every load
// and must find the recorded ε exactly — or, when it finds a smaller ε (a less pessimistic
// accountant), the recorded ε stays the authority with a warning (loadWarning) and every later
// composition is charged the difference on top; a recomputation LARGER than the recorded ε is
// refused (the file would under-report the loss). Basic and zCDP ledgers stay version 2.
//
// The file itself (resolveLedgerPath): a symbolic link is followed to the file it names (the lock
// and every write go to that file, so two links cannot make two ledgers); anything that is not a
// regular file (FIFO, device, directory, a link to nothing) is refused with a message, never
// opened for reading in a way that could block; a read-only ledger is read but never written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/mechanism_loss.h"
#include "core/base/expected.h"
#include "core/choosing/budget.h"
#include "core/release/exact_samplers.h"

namespace dpx::data {

// Where a charged release stands. Every state is charged in full.
enum class ReleaseState {
    Published,     // its files were written under their final names
    Pending,       // charged; publication under way (or interrupted: the next run resolves it)
    NotPublished,  // charged; the files never appeared ("charged, not published")
};
const char* releaseStateName(ReleaseState state);  // "published" / "pending" / "not published"

// What the PLD accountant composes for one release (version-3 ledgers of composition "pld"): the
// noise law and its parameter as exact text, so that every later run rebuilds the same
// mechanisms and recomputes the same ε(δ), bit for bit.
//  - "discrete-laplace": parameter = the scale t (exact rational); the release changes `count`
//    bins by `sensitivity` each: the geometric pair of core/accounting/mechanism_loss.h with
//    ε = sensitivity/t, used `count` times (one bin for add/remove with cap 1, two for replace).
//  - "discrete-gaussian": parameter = σ²; `count` bins shifted by `sensitivity` (cap 1 only).
//  - "pure-dp": parameter = ε; any ε-DP release is dominated by binary randomized response with
//    that ε (Kairouz, Oh & Viswanath 2015, Thm 2.4): the geometric-matrix mechanism and the
//    discrete Laplace with a contribution cap above 1 (whose worst bin pattern is not a single
//    pair) are composed as that.
struct LedgerLoss {
    std::string kind;       // empty: none recorded (basic and zCDP ledgers)
    std::string parameter;  // exact decimal or "p/q"
    std::int64_t sensitivity = 1;
    std::int64_t count = 1;
    Status validate() const;  // messages name the field
};
// The loss of a release from its metadata (mechanism, ε, noise parameter, neighbouring, cap).
// Errors: the discrete Gaussian with a contribution cap above 1 (its exact loss depends on how a
// person's rows spread over the bins; a basic or zCDP ledger accounts it through ρ).
Expected<LedgerLoss> ledgerLossFor(const std::string& mechanism, const std::string& epsilonExact,
                                   const std::string& sigma2, const std::string& neighbouring,
                                   std::int64_t contributionCap);

// The mechanism the PLD accountant composes for a recorded loss (every parameter rounded to the
// side of more privacy loss), as the ledger itself composes it; for a budget plan that starts
// from a PLD ledger (core/choosing/budget_plan.h). Errors: an invalid loss.
Expected<accounting::AccountedMechanism> ledgerAccountedMechanism(const LedgerLoss& loss);

// One release as the ledger records it. ε, δ as typed (decimal text); ρ an exact rational
// ("1/200"). files, sha256 (and, while pending, temps) pair up: the SHA-256 (hex) of each file
// and the temporary file its bytes are written to before they are moved into place.
struct LedgerRelease {
    std::string time;  // UTC "YYYY-MM-DDTHH:MM:SSZ"
    std::string mechanism;
    std::string epsilon;
    std::string delta = "0";
    std::string rho;
    std::vector<std::string> files;
    std::vector<std::string> sha256;
    ReleaseState state = ReleaseState::Published;
    std::vector<std::string> temps;  // Pending only: one per file
    bool overwrite = false;          // Pending only: the files may replace existing ones
    std::string note;                // why it is not published, or how it was recovered
    // PLD ledgers only (written there, ignored elsewhere). lossError: why no loss could be
    // derived (never written; a PLD ledger refuses such a release with it).
    LedgerLoss loss;
    std::string lossError;
    Status validate() const;
};

// A ledger path made safe to lock and write (see the header comment). `path` is the file that is
// read and written: the absolute path with every symbolic link resolved (of the file itself too,
// when it is a link to an existing file); `exists` whether it exists; `readOnly` whether it must
// not be written (no write permission bit set, or not writable by this user). Errors: the
// directory does not exist; the path names a FIFO, device, socket, directory or a link to
// nothing (messages start with the path as given).
struct LedgerLocation {
    std::string path;
    bool exists = false;
    bool readOnly = false;
};
Expected<LedgerLocation> resolveLedgerPath(const std::string& path);

// The directory of a file path ("." for a bare name, "/" at the root) and its last component;
// shared by the ledger and the release files.
std::string directoryOf(const std::string& path);
std::string baseNameOf(const std::string& path);

// The largest decimal with at most `digits` significant digits that is ≤ value (value ≥ 0), e.g.
// (0.7004267726446010000…, 6) → "0.700426": a remaining budget shown this way can always be spent.
std::string decimalAtMost(const Rational& value, int digits = 6);
// The nearest decimal with at most `digits` significant digits, for messages (never in metadata).
std::string decimalNear(const Rational& value, int digits = 6);

// The (ε, δ, ρ) of a release as a BudgetCharge. ε and δ must be decimals a double holds exactly
// in BudgetLedger's reading (the shortest decimal of the nearest double equals the text's value),
// else an error naming the field; ρ is rounded up to a double.
Expected<BudgetCharge> ledgerCharge(const LedgerRelease& release);

class PrivacyLedger {
public:
    // A new ledger for `dataset` (a description of the data, e.g. its path) with total
    // (ε, δ) given as decimal text; δ "0" or empty for pure budgets (zCDP needs δ > 0).
    // Composition::Pld: the releases are composed by the PLD accountant (pessimistic grid of
    // interval `pldInterval`, decimal text in [1e-6, 0.01]) at the total δ, which must be > 0.
    static Expected<PrivacyLedger> create(std::string dataset, const std::string& totalEpsilon,
                                          const std::string& totalDelta, Composition composition,
                                          const std::string& pldInterval = kDefaultPldInterval);
    static constexpr const char* kDefaultPldInterval = "0.0001";
    // Reads and checks a ledger file (see Integrity above); refuses anything that is not a regular
    // file without blocking on it. Messages start with the path.
    static Expected<PrivacyLedger> load(const std::string& path);
    // The JSON text of the file (indented, ends with a newline), checksum included.
    static Expected<PrivacyLedger> fromJson(const std::string& json, const std::string& origin);
    std::string toJson() const;

    const std::string& dataset() const { return dataset_; }
    const std::string& totalEpsilon() const { return totalEpsilon_; }
    const std::string& totalDelta() const { return totalDelta_; }
    Composition composition() const { return composition_; }
    const std::string& pldInterval() const { return pldInterval_; }  // PLD ledgers
    const std::vector<LedgerRelease>& releases() const { return releases_; }
    // Basic and zCDP: BudgetLedger's. PLD: epsilonSpent = the accountant's ε at the total δ
    // (an upper bound, rounded up), deltaSpent = the total δ once something is released,
    // epsilonRemaining = the largest ε (six digits, rounded down, checked by fits()) of a further
    // pure ε-DP release of any kind, deltaRemaining = the total δ (not divided under PLD).
    BudgetUsage usage() const;
    // PLD: the ε at the total δ of the recorded releases plus `extra` (if given): the smaller of
    // two valid upper bounds, the PLD accountant's (pessimistic grid, safe end of the search) and
    // basic composition's Σε_i when Σδ_i ≤ the total δ. Errors: a release without a loss, no
    // finite ε.
    Expected<double> pldEpsilon(const LedgerRelease* extra = nullptr) const;
    // The PLD accountant's bound alone.
    Expected<double> pldOnlyEpsilon(const LedgerRelease* extra = nullptr) const;
    // The exact ε and δ left under basic composition (total − Σ), ≥ 0; for zCDP the ε left at the
    // total δ, rounded down to a double's decimal.
    Rational epsilonRemainingExact() const;
    Rational deltaRemainingExact() const;
    // Releases that are pending (charged, publication interrupted).
    std::size_t pendingCount() const;
    // PLD ledgers: a warning when the file's recorded ε was larger than this run's recomputation
    // (kept as the authority; see Version 3 above); empty otherwise.
    const std::string& loadWarning() const { return loadWarning_; }
    // PLD ledgers: the ε charged on top of every later composition (the recorded ε's excess over
    // the recomputation, rounded up; 0 when they agreed).
    double pldExcess() const { return pldExcess_; }

    // OK if `release` fits what is left; otherwise an error that says what the release asks, what
    // has been spent and what is left.
    Status fits(const LedgerRelease& release) const;
    // fits(), then records it; unchanged on error.
    Status append(LedgerRelease release);
    // Changes the state (and note) of release i, which must be pending; the charge is unchanged.
    // A settled release drops its temps.
    Status settle(std::size_t index, ReleaseState state, std::string note);
    // Removes release i if it is pending: only for a release whose files provably never existed
    // outside this process (release_files.cpp's in-process failure before publication).
    Status withdrawPending(std::size_t index);

    // The ledger as it stood after its first `count` releases (count ≤ releases().size()): the
    // same dataset, total, composition and grid, for the budget before and after a past release
    // (the decision report rebuilt from the files, issue #22). A PLD ledger whose recorded ε is
    // the authority (pldExcess > 0) counts the excess as it does itself: every composition of a
    // non-empty prefix is charged it on top, and the whole ledger reports the recorded ε; the
    // empty prefix spent nothing. Errors: count too large, a basic or zCDP release that no longer
    // fits (a file that loaded cannot give one).
    Expected<PrivacyLedger> prefix(std::size_t count) const;

private:
    PrivacyLedger(std::string dataset, std::string eps, std::string delta, BudgetLedger budget,
                  Composition composition, std::string pldInterval)
        : dataset_(std::move(dataset)),
          totalEpsilon_(std::move(eps)),
          totalDelta_(std::move(delta)),
          budget_(std::move(budget)),
          composition_(composition),
          pldInterval_(std::move(pldInterval)) {}
    Status fitsPld(const LedgerRelease& release) const;
    BudgetUsage pldUsage() const;
    std::string dataset_;
    std::string totalEpsilon_;
    std::string totalDelta_;
    // Basic and zCDP: the arithmetic. PLD: a basic ledger of the total that only checks each
    // release's (ε, δ, ρ) text; its sums are not used.
    BudgetLedger budget_;
    Composition composition_ = Composition::Basic;
    std::string pldInterval_;
    std::vector<LedgerRelease> releases_;
    // PLD: the usage of the recorded releases (the accountant is costly; reset on every change).
    mutable std::optional<BudgetUsage> pldUsageCache_;
    // PLD: the recorded ε when it exceeded the recomputation at load (0: they agreed), and the
    // difference (rounded up) that every later composition is charged on top.
    double pldRecordedSpent_ = 0;
    std::size_t pldRecordedCount_ = 0;  // the releases it was recorded for
    double pldExcess_ = 0;
    std::string loadWarning_;
};

}  // namespace dpx::data
