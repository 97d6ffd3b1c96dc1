#include "core/data/release_job.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/data/release_files.h"
#include "core/dataset.h"
#include "core/validation.h"

namespace dpx::data {

namespace {

bool fileExists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

std::string directoryOf(const std::string& filePath) {
    const auto slash = filePath.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : filePath.substr(0, slash);
}

// An exclusive flock(2) on the directory of the ledger for the whole release, so that concurrent
// releases on one ledger are serialised (the ledger file itself is replaced by rename, so it
// cannot carry the lock; a directory can, and no lock file is left behind). Advisory, local only.
class DirectoryLock {
public:
    static Expected<DirectoryLock> acquire(const std::string& filePath) {
        const std::string dir = directoryOf(filePath);
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

bool sameDecimal(const std::string& x, const std::string& y) {
    auto rx = parseDecimal(x.empty() ? "0" : x), ry = parseDecimal(y.empty() ? "0" : y);
    return rx && ry && *rx == *ry;
}

// The ledger of a request: loaded (and checked against the request) or created from the new
// total. `exists` says which.
Expected<PrivacyLedger> ledgerFor(const ReleaseRequest& r, bool& exists, ReleaseFailure* failure) {
    exists = fileExists(r.ledgerPath);
    const Composition composition = r.composition.value_or(Composition::Basic);
    if (!exists) {
        if (!r.newBudget) {
            return failWith(failure, true, "budget",
                            "the ledger " + r.ledgerPath +
                                " does not exist; give the total budget (ε, or ε and δ) to "
                                "create it");
        }
        auto created =
            PrivacyLedger::create(r.dataset, r.newBudget->epsilon, r.newBudget->delta, composition);
        if (!created) {
            return failWith(failure, true, "budget", created.error().message);
        }
        return created;
    }
    auto ledger = PrivacyLedger::load(r.ledgerPath);
    if (!ledger) {
        return failWith(failure, false, "ledger", ledger.error().message);
    }
    if (r.newBudget) {
        auto given =
            PrivacyLedger::create("x", r.newBudget->epsilon, r.newBudget->delta, composition);
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

LedgerRelease probeEntry(const ReleaseSpec& spec, const ReleaseCost& cost) {
    HistogramRelease probe;
    probe.metadata.timestamp = spec.timestamp.empty() ? utcTimestampNow() : spec.timestamp;
    probe.metadata.mechanism = releaseMechanismName(spec.mechanism);
    probe.metadata.epsilon = cost.epsilon;
    probe.metadata.delta = cost.delta;
    probe.metadata.rho = cost.rho;
    return ledgerEntryFor(probe);
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
    if (!request.loadTruth) {
        return failWith(failure, true, "data", "no data to release");
    }
    const std::string jsonPath = jsonPathOf(request);

    auto lock = DirectoryLock::acquire(request.ledgerPath);
    if (!lock) {
        return failWith(failure, false, "ledger", lock.error().message);
    }
    bool exists = false;
    auto ledger = ledgerFor(request, exists, failure);
    if (!ledger) {
        return ledger.error();
    }
    for (const auto& p : {request.csvPath, jsonPath}) {
        if (!request.overwrite && fileExists(p)) {
            return failWith(failure, false, "out", p + ": exists; refusing to overwrite it");
        }
    }
    // The budget is checked before the data are read and before any noise is drawn (the
    // discrete Gaussian's ρ comes from its calibration).
    auto cost = releaseCost(spec);
    if (!cost) {
        return failWith(failure, false, "", cost.error().message);
    }
    if (auto f = ledger->fits(probeEntry(spec, *cost)); !f) {
        return failWith(failure, false, "", f.error().message);
    }

    auto truth = request.loadTruth();
    if (!truth) {
        return failWith(failure, true, "data", truth.error().message);
    }
    if (!truth->binsDeclared) {
        return failWith(failure, true, "bins",
                        "bins: a release needs bins declared before the data are read (fixed "
                        "edges, integer ranges or a category list); bins found in the data reveal "
                        "which values occur");
    }
    spec.source = truth->source;

    ReleaseRandomness randomness;
    auto release = releaseHistogram(spec, truth->histogram, randomness);
    if (!release) {
        return failWith(failure, false, "", release.error().message);
    }
    ReleaseWritePlan plan;
    plan.csvPath = request.csvPath;
    plan.jsonPath = jsonPath;
    plan.ledgerPath = request.ledgerPath;
    plan.overwrite = request.overwrite;
    plan.beforeCommit = request.beforeCommit;
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
    out.totalEpsilon = ledger->totalEpsilon();
    out.totalDelta = ledger->totalDelta();
    out.releasesInLedger = ledger->releases().size();
    out.ledgerCreated = !exists;
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
    bool exists = false;
    auto ledger = ledgerFor(request, exists, nullptr);
    if (!ledger) {
        return ledger.error();
    }
    auto cost = releaseCost(spec);
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
    if (auto a = copy.append(probeEntry(spec, *cost)); !a) {
        p.refusal = a.error().message;
    } else {
        p.after = copy.usage();
    }
    return p;
}

std::string budgetUsageText(const BudgetUsage& u, const std::string& totalEpsilon,
                            const std::string& totalDelta) {
    const bool pure = sameDecimal(totalDelta, "0");
    const std::string eps = "ε " + formatNumber(u.epsilonRemaining) + " of " + totalEpsilon;
    if (u.composition == Composition::Zcdp) {
        return "ρ " + formatNumber(u.rhoRemaining) + " of " + formatNumber(u.rhoBudget) +
               " left (" + eps + " at δ " + totalDelta + ")";
    }
    if (pure) {
        return eps + " left";
    }
    return eps + " and δ " + formatNumber(u.deltaRemaining) + " of " + totalDelta + " left";
}

}  // namespace dpx::data
