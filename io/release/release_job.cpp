#include "io/release/release_job.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <utility>

#include "core/base/validation.h"
#include "core/histogram/dataset.h"
#include "core/intervals/release_intervals.h"
#include "io/release/release_files.h"

namespace dpx::data {

namespace {

bool fileExists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

// An exclusive flock(2) on the directory of the resolved ledger while it is read and written, so
// that concurrent releases on one ledger are serialised (the ledger file itself is replaced by
// rename, so it cannot carry the lock; a directory can, and no lock file is left behind). The
// path is the resolved one (resolveLedgerPath), so every link to a ledger takes the same lock.
// Advisory, local only.
class DirectoryLock {
public:
    static Expected<DirectoryLock> acquire(const std::string& resolvedPath) {
        const std::string dir = directoryOf(resolvedPath);
        const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            return Error{"cannot open the directory " + dir + " of the ledger"};
        }
        int rc = 0;
        while ((rc = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
        }
        if (rc != 0) {
            ::close(fd);
            return Error{"cannot lock the directory " + dir + " of the ledger"};
        }
        return DirectoryLock(fd);
    }
    DirectoryLock(DirectoryLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;
    DirectoryLock& operator=(DirectoryLock&&) = delete;
    ~DirectoryLock() {
        if (fd_ >= 0) {
            ::close(fd_);  // releases the lock
        }
    }

private:
    explicit DirectoryLock(int fd) : fd_(fd) {}
    int fd_;
};

Error failWith(ReleaseFailure* failure, bool invalid, std::string field, std::string message) {
    if (failure) {
        failure->invalidInput = invalid;
        failure->field = std::move(field);
    }
    return Error{std::move(message)};
}

double doubleOf(const std::string& decimal) {
    auto r = parseDecimal(decimal.empty() ? "0" : decimal);
    return r ? r->toDouble() : 0.0;
}

bool sameDecimal(const std::string& x, const std::string& y) {
    auto rx = parseDecimal(x.empty() ? "0" : x), ry = parseDecimal(y.empty() ? "0" : y);
    return rx && ry && *rx == *ry;
}

// The ledger of a request: loaded from the resolved `where` (and checked against the request)
// or created from the new total. `exists` says which.
Expected<PrivacyLedger> ledgerFor(const ReleaseRequest& r, const LedgerLocation& where,
                                  bool& exists, ReleaseFailure* failure) {
    exists = where.exists;
    const Composition composition = r.composition.value_or(Composition::Basic);
    if (!exists) {
        if (!r.newBudget) {
            return failWith(failure, true, "budget",
                            "the ledger " + r.ledgerPath +
                                " does not exist; give the total budget (ε, or ε and δ) to "
                                "create it");
        }
        auto created = PrivacyLedger::create(r.dataset, r.newBudget->epsilon, r.newBudget->delta,
                                             composition, r.pldInterval);
        if (!created) {
            return failWith(failure, true, "budget", created.error().message);
        }
        return created;
    }
    auto ledger = PrivacyLedger::load(where.path);
    if (!ledger) {
        return failWith(failure, false, "ledger", ledger.error().message);
    }
    if (r.newBudget) {
        auto given = PrivacyLedger::create("x", r.newBudget->epsilon, r.newBudget->delta,
                                           composition, r.pldInterval);
        if (!given) {
            return failWith(failure, true, "budget", given.error().message);
        }
        if (!sameDecimal(r.newBudget->epsilon, ledger->totalEpsilon()) ||
            !sameDecimal(r.newBudget->delta, ledger->totalDelta())) {
            return failWith(failure, false, "budget",
                            "the ledger " + r.ledgerPath + " already has the total (" +
                                ledger->totalEpsilon() + ", " + ledger->totalDelta() +
                                "); a total is set once, when the ledger is created");
        }
    }
    if (r.pldIntervalGiven && ledger->composition() == Composition::Pld &&
        !sameDecimal(r.pldInterval, ledger->pldInterval())) {
        return failWith(failure, false, "ledger",
                        "the ledger " + r.ledgerPath + " composes on a PLD grid of interval " +
                            ledger->pldInterval() + ", fixed when it was created; the interval " +
                            r.pldInterval + " given differs (leave it out, or give " +
                            ledger->pldInterval() + ")");
    }
    if (r.composition && *r.composition != ledger->composition()) {
        return failWith(failure, false, "composition",
                        "the ledger " + r.ledgerPath + " uses " +
                            compositionName(ledger->composition()) + " composition");
    }
    if (ledger->dataset() != r.dataset) {
        return failWith(failure, false, "ledger",
                        r.ledgerPath + " is the ledger of '" + ledger->dataset() + "', not of '" +
                            r.dataset + "'");
    }
    return ledger;
}

// The resolved ledger path of a request, refused (field "ledger") when it is not a regular file
// or, for a release (`forWriting`), read-only.
Expected<LedgerLocation> locate(const ReleaseRequest& r, bool forWriting, ReleaseFailure* failure) {
    auto where = resolveLedgerPath(r.ledgerPath);
    if (!where) {
        return failWith(failure, false, "ledger", where.error().message);
    }
    if (forWriting && where->readOnly) {
        return failWith(failure, false, "ledger",
                        r.ledgerPath +
                            ": the ledger is read-only; refusing to write it (a read-only "
                            "ledger closes the budget: make it writable to spend more)");
    }
    return where;
}

// The request's ledger read without the lock (the preview, "use the rest"): resolved, then
// loaded or created from the new total; `exists` and `readOnly` say what the file is.
Expected<PrivacyLedger> ledgerWithoutLock(const ReleaseRequest& r, bool& exists, bool& readOnly) {
    auto where = locate(r, false, nullptr);
    if (!where) {
        return where.error();
    }
    readOnly = where->readOnly;
    return ledgerFor(r, *where, exists, nullptr);
}

// The checks of steps 3 and 5 (see the header): the ledger, existing files, the budget.
Expected<PrivacyLedger> checkedLedger(const ReleaseRequest& r, const LedgerLocation& where,
                                      const std::string& jsonPath, const LedgerRelease& probe,
                                      bool& exists, ReleaseFailure* failure) {
    auto ledger = ledgerFor(r, where, exists, failure);
    if (!ledger) {
        return ledger.error();
    }
    for (const auto& p : {r.csvPath, jsonPath}) {
        if (!r.overwrite && fileExists(p)) {
            return failWith(failure, false, "out", p + ": exists; refusing to overwrite it");
        }
    }
    if (auto f = ledger->fits(probe); !f) {
        return failWith(failure, false, "", f.error().message);
    }
    return ledger;
}

LedgerRelease probeEntry(const ReleaseSpec& spec, const ReleaseCost& cost,
                         bool throughStrategy = false) {
    HistogramRelease probe;
    if (throughStrategy) {
        probe.metadata.strategy = StrategyReleaseStatement{};  // composed as the release will be
    }
    probe.metadata.timestamp = spec.timestamp.empty() ? utcTimestampNow() : spec.timestamp;
    probe.metadata.mechanism = releaseMechanismName(spec.mechanism);
    probe.metadata.epsilon = cost.epsilon;
    probe.metadata.delta = cost.delta;
    probe.metadata.rho = cost.rho;
    // For a PLD ledger's loss (ledgerLossFor).
    probe.metadata.neighbouring = neighbouringName(spec.relation);
    probe.metadata.contributionCap = spec.contributionCap;
    if (!cost.sigma2.empty()) {
        probe.metadata.noiseParameter = "sigma^2 = " + cost.sigma2;
    }
    return ledgerEntryFor(probe);
}

// The cost of the request's release: through a strategy whose plan is known, a discrete
// Gaussian's ρ is the one calibrated on the strategy's Δ2 (strategyReleaseCost); otherwise the
// histogram's (a strategy planned from the data's declared shape is charged exactly after its
// release is computed: runRelease checks the ledger again with the release's own entry).
Expected<ReleaseCost> requestCost(const ReleaseRequest& r, const ReleaseSpec& spec) {
    if (r.strategy && spec.mechanism == ReleaseMechanism::DiscreteGaussian) {
        return strategyReleaseCost(spec, *r.strategy);
    }
    return releaseCost(spec);
}

std::string jsonPathOf(const ReleaseRequest& r) {
    return r.jsonPath.empty() ? metadataPathFor(r.csvPath) : r.jsonPath;
}

Status checkPaths(const ReleaseRequest& r, ReleaseFailure* failure) {
    if (r.csvPath.empty()) {
        return failWith(failure, true, "out", "no output file given");
    }
    if (r.ledgerPath.empty()) {
        return failWith(failure, true, "ledger", "no ledger file given");
    }
    const std::string json = jsonPathOf(r);
    if (r.csvPath == r.ledgerPath || json == r.ledgerPath || json == r.csvPath) {
        return failWith(failure, true, "out",
                        "the release CSV, its metadata and the ledger must be three different "
                        "files");
    }
    return okStatus();
}

}  // namespace

Expected<ReleaseOutcome> runRelease(const ReleaseRequest& request, ReleaseFailure* failure) {
    ReleaseSpec spec = request.spec;
    spec.binsDeclared = true;  // checked on the truth below
    if (spec.timestamp.empty()) {
        spec.timestamp = utcTimestampNow();
    }
    if (auto v = spec.validate(); !v) {
        return failWith(failure, true, "", v.error().message);
    }
    if (auto p = checkPaths(request, failure); !p) {
        return p.error();
    }
    if (request.strategy || request.planStrategy) {
        if (auto c = checkStrategyReleaseSpec(spec); !c) {
            return failWith(failure, true, "", c.error().message);
        }
        if (spec.samplePopulation != 0) {
            return failWith(failure, true, "",
                            "sample of: sampling intervals are not stated for a release through "
                            "a strategy (its cells are least-squares estimates)");
        }
    }
    if (!request.loadTruth) {
        return failWith(failure, true, "data", "no data to release");
    }
    const std::string jsonPath = jsonPathOf(request);
    auto where = locate(request, true, failure);
    if (!where) {
        return where.error();
    }
    // The cost (the discrete Gaussian's calibration) before any lock is taken.
    auto cost = requestCost(request, spec);
    if (!cost) {
        // Only the parameters can fail here (e.g. σ² would exceed 10^12): invalid input.
        return failWith(failure, true, "", cost.error().message);
    }
    LedgerRelease probe =
        probeEntry(spec, *cost, request.strategy != nullptr || bool(request.planStrategy));
    bool exists = false;
    // A first look without the lock, so that a refused release never reads the data.
    if (auto first = checkedLedger(request, *where, jsonPath, probe, exists, failure); !first) {
        return first.error();
    }

    auto truth = request.loadTruth();
    if (!truth) {
        return failWith(failure, true, "data", truth.error().message);
    }
    if (!truth->table && !truth->binsDeclared) {
        return failWith(failure, true, "bins",
                        "bins: a release needs bins declared before the data are read (fixed "
                        "edges, integer ranges or a category list); bins found in the data reveal "
                        "which values occur");
    }
    spec.source = truth->source;
    ReleaseRandomness randomness;
    if (truth->table) {
        for (const Attribute& a : truth->table->attributes()) {
            if (!a.declared) {
                return failWith(failure, true, "bins",
                                "bins: attribute '" + a.name +
                                    "' has bins found in the data, which reveal which values "
                                    "occur; a release needs bins declared before the data are "
                                    "read (fixed edges, integer ranges or a category list)");
            }
        }
    }
    std::shared_ptr<const StrategyReleasePlan> strategy = request.strategy;
    if (!strategy && request.planStrategy) {
        DomainShape shape;
        if (truth->table) {
            for (auto n : truth->table->shape()) {
                shape.push_back(static_cast<std::size_t>(n));
            }
        } else {
            shape.push_back(truth->histogram.size());
        }
        auto planned = request.planStrategy(shape);
        if (!planned) {
            return failWith(failure, true, "strategy", planned.error().message);
        }
        strategy = std::move(planned).value();
    }
    auto release =
        strategy       ? (truth->table
                              ? releaseTableThroughStrategy(spec, *strategy, *truth->table, randomness)
                              : releaseThroughStrategy(spec, *strategy, truth->histogram, randomness))
        : truth->table ? releaseTable(spec, *truth->table, randomness)
                       : releaseHistogram(spec, truth->histogram, randomness);
    if (!release) {
        // A table too large to release is bad input, like undeclared bins.
        const bool tooLarge = (truth->table && release.error().message.rfind("table:", 0) == 0) ||
                              release.error().message.rfind("strategy release:", 0) == 0;
        return failWith(failure, tooLarge, tooLarge ? "data" : "", release.error().message);
    }
    if (strategy) {
        // What the release itself charges (its ρ depends on the strategy's Δ2), for the checks
        // under the lock.
        probe = ledgerEntryFor(*release);
    }
    // The intervals the files state (issue #22): from the spec and the number of declared bins
    // alone, never from the data (a strategy release states its own, from K alone).
    if (!strategy) {
        auto intervals = releaseIntervals(spec, release->values.size());
        if (!intervals) {
            return failWith(failure, true, "", intervals.error().message);
        }
        if (*intervals && (*intervals)->aroundNoisy) {
            // The bounds after resize / NoiseFirst are around the noisy counts before them.
            for (std::size_t i = 0; i < release->values.size(); ++i) {
                const bool ok =
                    i < release->noisyBeforePostProcessing.size() &&
                    postProcessedBounds(release->values[i], release->noisyBeforePostProcessing[i],
                                        (*intervals)->simultaneousHalfWidth);
                if (!ok) {
                    return failWith(failure, false, "",
                                    "intervals: the noisy count before post-processing of bin " +
                                        std::to_string(i + 1) + " is missing or not finite");
                }
            }
        }
        release->metadata.intervals = *intervals;
        if (spec.samplePopulation != 0) {
            // Issue #22: from the published values and the declared N alone. Total for finite
            // values (a refusal now would depend on noise not yet charged).
            auto sampling = releaseSamplingIntervals(spec, release->values);
            if (!sampling) {
                return failWith(failure, false, "", sampling.error().message);
            }
            release->metadata.sampling = std::move(sampling).value();
        }
    }

    // Under the lock: the ledger as it is now, interrupted releases resolved, the checks again,
    // then the charge and the files.
    auto lock = DirectoryLock::acquire(where->path);
    if (!lock) {
        return failWith(failure, false, "ledger", lock.error().message);
    }
    where = locate(request, true, failure);  // it may have been created or changed meanwhile
    if (!where) {
        return where.error();
    }
    auto ledger = ledgerFor(request, *where, exists, failure);
    if (!ledger) {
        return ledger.error();
    }
    std::vector<std::string> notes;
    if (exists) {
        auto recovered = recoverPendingReleases(ledger.value(), where->path, request.onStep);
        if (!recovered) {
            return failWith(failure, false, "ledger", recovered.error().message);
        }
        notes = recovered->notes;
    } else {
        notes = removeStaleLedgerTemporaries(where->path);
    }
    // The checks again on the ledger as it is now (read back after any recovery).
    ledger = checkedLedger(request, *where, jsonPath, probe, exists, failure);
    if (!ledger) {
        return ledger.error();
    }
    ReleaseWritePlan plan;
    plan.csvPath = request.csvPath;
    plan.jsonPath = jsonPath;
    plan.ledgerPath = where->path;
    plan.overwrite = request.overwrite;
    plan.beforeCommit = request.beforeCommit;
    plan.onStep = request.onStep;
    const BudgetUsage before = ledger->usage();
    auto written = writeRelease(*release, ledger.value(), plan);
    if (!written) {
        return failWith(failure, false, "", written.error().message);
    }
    ReleaseOutcome out;
    out.csvPath = request.csvPath;
    out.jsonPath = jsonPath;
    out.ledgerPath = request.ledgerPath;
    out.release = std::move(release).value();
    out.usage = ledger->usage();
    out.usageBefore = before;
    out.entry = std::move(written).value();
    out.totalEpsilon = ledger->totalEpsilon();
    out.totalDelta = ledger->totalDelta();
    out.releasesInLedger = ledger->releases().size();
    out.ledgerCreated = !exists;
    out.recoveryNotes = std::move(notes);
    out.ledgerWarning = ledger->loadWarning();
    return out;
}

Expected<ReleasePreview> previewRelease(const ReleaseRequest& request) {
    ReleaseSpec spec = request.spec;
    spec.binsDeclared = true;
    if (auto v = spec.validate(); !v) {
        return v.error();
    }
    if (auto p = checkPaths(request, nullptr); !p) {
        return p.error();
    }
    bool exists = false, readOnly = false;
    auto ledger = ledgerWithoutLock(request, exists, readOnly);
    if (!ledger) {
        return ledger.error();
    }
    auto cost = requestCost(request, spec);
    if (!cost) {
        return cost.error();
    }
    ReleasePreview p;
    p.cost = *cost;
    if (spec.mechanism == ReleaseMechanism::DiscreteGaussian) {
        auto g = calibrateReleaseGaussian(parseDecimal(spec.epsilon).value(),
                                          parseDecimal(spec.delta).value(), spec.relation,
                                          spec.contributionCap);
        if (!g) {
            return g.error();
        }
        p.gaussian = *g;
    }
    std::shared_ptr<const StrategyReleasePlan> strategy = request.strategy;
    if (!strategy && request.planStrategy &&
        (request.previewBins > 0 || !request.previewShape.empty())) {
        auto planned = request.planStrategy(request.previewShape.empty()
                                                ? std::vector<std::size_t>{request.previewBins}
                                                : request.previewShape);
        if (!planned) {
            return planned.error();
        }
        strategy = std::move(planned).value();
    }
    if (strategy) {
        auto law = strategyReleaseLaw(spec, *strategy);
        if (!law) {
            return law.error();
        }
        p.intervals = law->intervals;
        p.strategy = strategy;
        p.strategyRmse = law->expectedRmse;
        if (law->gaussian) {  // calibrated on the strategy's Δ2, not on one bin's
            p.gaussian = law->gaussian;
            cost->rho = law->gaussian->rho.toString();
            cost->sigma2 = law->gaussian->sigma2.toString();
            p.cost = *cost;
        }
    } else if (request.previewBins > 0) {
        auto intervals = releaseIntervals(spec, request.previewBins);
        if (!intervals) {
            return intervals.error();
        }
        p.intervals = *intervals;
    }
    p.ledgerExists = exists;
    p.totalEpsilon = ledger->totalEpsilon();
    p.totalDelta = ledger->totalDelta();
    p.composition = ledger->composition();
    p.releasesInLedger = ledger->releases().size();
    p.before = ledger->usage();
    for (const auto& f : {request.csvPath, jsonPathOf(request)}) {
        if (fileExists(f)) {
            p.existingFiles.push_back(f);
        }
    }
    PrivacyLedger copy = *ledger;
    if (readOnly) {
        p.refusal = request.ledgerPath +
                    ": the ledger is read-only; refusing to write it (a read-only ledger closes "
                    "the budget: make it writable to spend more)";
    } else if (auto a = copy.append(probeEntry(
                   spec, *cost, request.strategy != nullptr || bool(request.planStrategy)));
               !a) {
        p.refusal = a.error().message;
    } else {
        p.after = copy.usage();
    }
    return p;
}

Expected<std::string> spendableEpsilon(const ReleaseRequest& request, int digits) {
    bool exists = false, readOnly = false;
    auto ledger = ledgerWithoutLock(request, exists, readOnly);
    if (!ledger) {
        return ledger.error();
    }
    ReleaseSpec spec = request.spec;
    spec.binsDeclared = true;
    if (spec.timestamp.empty()) {
        spec.timestamp = utcTimestampNow();
    }
    auto fitsAt = [&](const std::string& eps) -> bool {
        spec.epsilon = eps;
        if (!spec.validate()) {
            return false;
        }
        auto cost = requestCost(request, spec);
        return cost && ledger->fits(probeEntry(
                           spec, *cost, request.strategy != nullptr || bool(request.planStrategy)));
    };
    // Basic composition: ε adds, so the rest is total − Σε, rounded down. zCDP: a pure mechanism
    // spends ρ = ε²/2, so ε = √(2ρ left); a discrete Gaussian spends less ρ at the same ε, so its
    // ε is searched below the largest ε a release accepts.
    Rational upper = ledger->epsilonRemainingExact();
    if (ledger->composition() == Composition::Zcdp) {
        const double rhoLeft = std::max(0.0, ledger->usage().rhoRemaining);
        upper = spec.mechanism == ReleaseMechanism::DiscreteGaussian
                    ? Rational::integer(100)
                    : *Rational::fromDouble(std::min(100.0, std::sqrt(2 * rhoLeft)));
        if (rhoLeft <= 0) {
            upper = Rational{};
        }
    }
    if (ledger->composition() == Composition::Pld) {
        // The accountant's ε is not a sum: searched below the largest ε a release accepts (a
        // discrete Laplace spends less than the pure-DP figure of usage(), a discrete Gaussian
        // depends on its δ).
        upper = ledger->usage().epsilonSpent < doubleOf(ledger->totalEpsilon())
                    ? std::min(Rational::integer(100),
                               *Rational::fromDouble(2 * doubleOf(ledger->totalEpsilon()) + 1))
                    : Rational{};
    }
    if (upper.sign() <= 0) {
        return Error{"no budget is left in the ledger " + request.ledgerPath};
    }
    std::string candidate = decimalAtMost(upper, digits);
    if (fitsAt(candidate)) {
        return candidate;
    }
    // Bisection on the exact decimal values between 0 and the candidate, then rounded down to
    // `digits` digits and checked again; fits() is monotone in ε for every mechanism here.
    Rational lo, hi = parseDecimal(candidate).value();
    for (int i = 0; i < 80; ++i) {
        Rational mid = Rational::fraction(
                           lo.numerator() * hi.denominator() + hi.numerator() * lo.denominator(),
                           lo.denominator() * hi.denominator() * 2)
                           .value();
        const std::string m = decimalAtMost(mid, digits + 2);
        if (m == "0") {
            lo = mid;
            continue;
        }
        if (fitsAt(m)) {
            lo = parseDecimal(m).value();
        } else {
            hi = mid;
        }
        if (decimalAtMost(lo, digits) == decimalAtMost(hi, digits)) {
            break;
        }
    }
    const std::string best = decimalAtMost(lo, digits);
    if (best != "0" && fitsAt(best)) {
        return best;
    }
    return Error{"no ε fits what is left of the ledger " + request.ledgerPath +
                 (ledger->composition() == Composition::Basic &&
                          spec.mechanism == ReleaseMechanism::DiscreteGaussian
                      ? " (its δ alone may exceed the δ left)"
                      : "")};
}

Expected<LedgerCheck> checkLedger(const std::string& path, const StepHook& onStep) {
    auto where = resolveLedgerPath(path);
    if (!where) {
        return where.error();
    }
    auto lock = DirectoryLock::acquire(where->path);
    if (!lock) {
        return lock.error();
    }
    if (!where->exists) {
        removeStaleLedgerTemporaries(where->path);
        return Error{path + ": no such ledger"};
    }
    auto ledger = PrivacyLedger::load(where->path);
    if (!ledger) {
        return ledger.error();
    }
    LedgerCheck c;
    c.path = where->path;
    c.readOnly = where->readOnly;
    if (ledger->pendingCount() > 0 && where->readOnly) {
        c.recoveryNotes.push_back(std::to_string(ledger->pendingCount()) +
                                  " interrupted release(s) pending; the ledger is read-only, so "
                                  "they were not resolved (each is charged in full)");
    } else {
        auto recovered = recoverPendingReleases(ledger.value(), where->path, onStep);
        if (!recovered) {
            return recovered.error();
        }
        c.recoveryNotes = recovered->notes;
    }
    c.dataset = ledger->dataset();
    c.totalEpsilon = ledger->totalEpsilon();
    c.totalDelta = ledger->totalDelta();
    c.composition = ledger->composition();
    c.releases = ledger->releases().size();
    for (const auto& r : ledger->releases()) {
        c.notPublished += r.state == ReleaseState::NotPublished ? 1 : 0;
    }
    c.usage = ledger->usage();
    c.warning = ledger->loadWarning();
    return c;
}

std::string budgetUsageText(const BudgetUsage& u, const std::string& totalEpsilon,
                            const std::string& totalDelta) {
    // Basic composition: total − the exact sum ("p/q"), rounded down to six digits — exactly what
    // can still be spent (0.6 of 1 spent leaves "0.4"). Where no exact sum is known (zCDP, or a
    // usage built by hand) the double, which the ledger rounds down, read as its decimal.
    auto exactLeft = [](const std::string& total, const std::string& spentFraction,
                        double fallback) -> std::string {
        const auto slash = spentFraction.find('/');
        auto t = parseDecimal(total.empty() ? "0" : total);
        auto p = parseDecimal(spentFraction.substr(0, slash));
        auto q = slash == std::string::npos ? parseDecimal("1")
                                            : parseDecimal(spentFraction.substr(slash + 1));
        if (!spentFraction.empty() && t && p && q && p->isInteger() && q->isInteger() &&
            q->sign() > 0) {
            const BigInt num = t->numerator() * q->numerator() - p->numerator() * t->denominator();
            auto left = Rational::fraction(num, t->denominator() * q->numerator());
            if (left) {
                return left->sign() > 0 ? decimalAtMost(*left) : std::string("0");
            }
        }
        auto exact = parseDecimal(formatShortest(std::max(0.0, fallback)));
        return exact ? decimalAtMost(*exact) : std::string("0");
    };
    const bool pure = sameDecimal(totalDelta, "0");
    const bool basic = u.composition == Composition::Basic;
    if (u.composition == Composition::Pld) {
        return "ε " + exactLeft("0", "", u.epsilonRemaining) + " left for a pure ε-DP release (ε " +
               formatNumber(u.epsilonSpent) + " of " + totalEpsilon + " spent at δ " + totalDelta +
               ", PLD accountant)";
    }
    const std::string eps =
        "ε " + exactLeft(totalEpsilon, basic ? u.epsilonSpentExact : "", u.epsilonRemaining) +
        " of " + totalEpsilon;
    if (!basic) {
        return "ρ " + exactLeft("0", "", u.rhoRemaining) + " of " + formatNumber(u.rhoBudget) +
               " left (" + eps + " at δ " + totalDelta + ")";
    }
    if (pure) {
        return eps + " left";
    }
    return eps + " and δ " + exactLeft(totalDelta, u.deltaSpentExact, u.deltaRemaining) + " of " +
           totalDelta + " left";
}

}  // namespace dpx::data
