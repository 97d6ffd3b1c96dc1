// A per-dataset privacy-budget ledger file (issue #8): the total budget (ε, δ), the composition
// (basic or zCDP, core/budget.h) and every release charged to it, as JSON. The arithmetic is
// BudgetLedger's: exact rationals for basic composition (ten charges of 0.1 fill a total of 1
// exactly), exact ρ sums with a 1e-12 safety margin for zCDP.
//
// Integrity: the file carries "format": "dpx-privacy-ledger", "version": 1 and a SHA-256 of its
// own content (the compact JSON of the object without the "sha256" member, keys sorted). A file
// that is not JSON, of another format or version, whose checksum does not match, whose values
// do not parse exactly, or whose releases exceed its total is an error; it is never reset or
// repaired silently. The checksum catches corruption and hand edits, not a deliberate forger who
// recomputes it (that needs a signature or a write-once store, outside this program).
#pragma once

#include <string>
#include <vector>

#include "core/budget.h"
#include "core/expected.h"

namespace dpx::data {

// One release as the ledger records it. ε, δ as typed (decimal text); ρ an exact rational
// ("1/200"). files and sha256 pair up: the SHA-256 (hex) of each file written.
struct LedgerRelease {
    std::string time;  // UTC "YYYY-MM-DDTHH:MM:SSZ"
    std::string mechanism;
    std::string epsilon;
    std::string delta = "0";
    std::string rho;
    std::vector<std::string> files;
    std::vector<std::string> sha256;
    Status validate() const;
};

// The (ε, δ, ρ) of a release as a BudgetCharge. ε and δ must be decimals a double holds exactly
// in BudgetLedger's reading (the shortest decimal of the nearest double equals the text's value),
// else an error naming the field; ρ is rounded up to a double.
Expected<BudgetCharge> ledgerCharge(const LedgerRelease& release);

class PrivacyLedger {
public:
    // A new ledger for `dataset` (a description of the data, e.g. its path) with total
    // (ε, δ) given as decimal text; δ "0" or empty for pure budgets (zCDP needs δ > 0).
    static Expected<PrivacyLedger> create(std::string dataset, const std::string& totalEpsilon,
                                          const std::string& totalDelta, Composition composition);
    // Reads and checks a ledger file (see Integrity above). Messages start with the path.
    static Expected<PrivacyLedger> load(const std::string& path);
    // The JSON text of the file (indented, ends with a newline), checksum included.
    static Expected<PrivacyLedger> fromJson(const std::string& json, const std::string& origin);
    std::string toJson() const;

    const std::string& dataset() const { return dataset_; }
    const std::string& totalEpsilon() const { return totalEpsilon_; }
    const std::string& totalDelta() const { return totalDelta_; }
    Composition composition() const { return budget_.composition(); }
    const std::vector<LedgerRelease>& releases() const { return releases_; }
    BudgetUsage usage() const { return budget_.usage(); }

    // OK if `release` fits what is left; otherwise an error that says what the release asks, what
    // has been spent and what is left.
    Status fits(const LedgerRelease& release) const;
    // fits(), then records it; unchanged on error.
    Status append(LedgerRelease release);

private:
    PrivacyLedger(std::string dataset, std::string eps, std::string delta, BudgetLedger budget)
        : dataset_(std::move(dataset)),
          totalEpsilon_(std::move(eps)),
          totalDelta_(std::move(delta)),
          budget_(std::move(budget)) {}
    std::string dataset_;
    std::string totalEpsilon_;
    std::string totalDelta_;
    BudgetLedger budget_;
    std::vector<LedgerRelease> releases_;
};

}  // namespace dpx::data
