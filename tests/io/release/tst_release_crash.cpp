// Crash consistency of the release path (issue #17, item 1): the process is killed (SIGKILL, no
// clean-up of any kind) at every step of a release, in a forked child; after each kill
//  - no release file exists under its final name unless the ledger on disk charges it (an entry
//    listing that file with the same SHA-256);
//  - the next run on the ledger (checkLedger, or the next release) leaves no pending release and
//    no temporary file behind, completes a release whose files were complete or reports it as
//    "charged, not published" — never refunded: every charge made before the kill is still there;
//  - a release after that works and is charged on top.
// Steps are discovered by a first, uninterrupted run (the onStep hook names each completed step),
// so a step added to the release path is covered without editing this test.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/release/privacy_ledger.h"
#include "io/release/release_files.h"
#include "io/release/release_job.h"

using namespace dpx;
using namespace dpx::data;

namespace {

std::string slurp(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

ReleaseRequest request(const QString& dir, const std::string& name, bool overwrite = false) {
    ReleaseRequest r;
    r.spec.mechanism = ReleaseMechanism::DiscreteLaplace;
    r.spec.epsilon = "0.5";
    r.spec.appVersion = "0.0-test";
    r.dataset = "crash test data";
    r.csvPath = (dir + QLatin1Char('/') + QString::fromStdString(name) + QStringLiteral(".csv"))
                    .toStdString();
    r.ledgerPath = (dir + QStringLiteral("/ledger.json")).toStdString();
    r.newBudget = LedgerBudgetText{"10", "0"};
    r.overwrite = overwrite;
    r.loadTruth = []() -> Expected<ReleaseTruth> {
        return ReleaseTruth{*Histogram::create({5, 10, 20}), true, "three counts"};
    };
    return r;
}

// The steps of one uninterrupted release into a fresh directory whose ledger has `prior`
// releases.
std::vector<std::string> stepsOfOneRelease(bool overwrite) {
    QTemporaryDir dir;
    const QString d = dir.path();
    if (overwrite) {
        auto first = runRelease(request(d, "r"));
        if (!first) {
            qFatal("first release failed: %s", first.error().message.c_str());
        }
    }
    std::vector<std::string> steps;
    ReleaseRequest r = request(d, "r", overwrite);
    r.onStep = [&](const std::string& s) { steps.push_back(s); };
    auto o = runRelease(r);
    if (!o) {
        qFatal("release failed: %s", o.error().message.c_str());
    }
    return steps;
}

// Runs the release in a child killed right after step `killAt` (0-based index into the steps).
// Returns true if the child died of SIGKILL.
bool releaseKilledAt(const ReleaseRequest& base, std::size_t killAt) {
    const pid_t pid = ::fork();
    if (pid < 0) {
        qFatal("fork failed");
    }
    if (pid == 0) {
        ReleaseRequest r = base;
        std::size_t seen = 0;
        r.onStep = [&](const std::string&) {
            if (seen++ == killAt) {
                ::raise(SIGKILL);
            }
        };
        (void)runRelease(r);
        ::_exit(0);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// Every release file present under its final name is charged by the ledger on disk.
void checkNothingUncharged(const QString& dir) {
    auto ledger = PrivacyLedger::load((dir + QStringLiteral("/ledger.json")).toStdString());
    std::set<std::pair<std::string, std::string>> charged;  // (path, sha256) of every entry
    if (ledger) {
        for (const auto& r : ledger->releases()) {
            for (std::size_t i = 0; i < r.files.size(); ++i) {
                charged.insert({r.files[i], r.sha256[i]});
            }
        }
    }
    for (const QString& name : entries(dir)) {
        if (name == QStringLiteral("ledger.json") || name.startsWith(QLatin1Char('.'))) {
            continue;
        }
        const std::string path = (dir + QLatin1Char('/') + name).toStdString();
        QVERIFY2(ledger, ("a release file exists but the ledger cannot be read: " + path).c_str());
        const std::string sha = sha256Hex(slurp(dir + QLatin1Char('/') + name));
        QVERIFY2(charged.count({path, sha}) == 1,
                 ("published but not charged (no ledger entry with its content): " + path).c_str());
    }
}

}  // namespace

class TestReleaseCrash : public QObject {
    Q_OBJECT

private:
    // One kill point: the ledger already holds `prior` releases (overwrite: of the same files).
    void killAndRecover(bool overwrite, std::size_t killAt, bool recoverByRelease) {
        QTemporaryDir dir;
        const QString d = dir.path();
        std::size_t prior = 0;
        if (overwrite) {
            QVERIFY(runRelease(request(d, "r")));
            prior = 1;
        }
        const std::string ledgerBefore = slurp(d + QStringLiteral("/ledger.json"));
        QVERIFY(releaseKilledAt(request(d, "r", overwrite), killAt));
        checkNothingUncharged(d);
        if (QTest::currentTestFailed()) {
            return;
        }
        const bool csvThere = QFile::exists(d + QStringLiteral("/r.csv"));

        // The next run.
        std::vector<std::string> notes;
        if (recoverByRelease) {
            auto next = runRelease(request(d, "next"));
            QVERIFY2(next, next ? "" : next.error().message.c_str());
            notes = next->recoveryNotes;
        } else {
            auto check = checkLedger((d + QStringLiteral("/ledger.json")).toStdString());
            if (!check) {
                // Killed before the first ledger existed: there is nothing to check.
                QVERIFY2(ledgerBefore.empty(), check.error().message.c_str());
            } else {
                notes = check->recoveryNotes;
            }
        }
        // Nothing left over: no temporary of the ledger or of a release.
        for (const QString& name : entries(d)) {
            QVERIFY2(!name.startsWith(QLatin1Char('.')),
                     qPrintable(QStringLiteral("left over: ") + name));
        }
        checkNothingUncharged(d);
        auto ledger = PrivacyLedger::load((d + QStringLiteral("/ledger.json")).toStdString());
        if (!ledger) {
            QVERIFY(!recoverByRelease && ledgerBefore.empty());
            QVERIFY(entries(d).isEmpty());
            return;
        }
        QCOMPARE(ledger->pendingCount(), std::size_t{0});
        // Never refunded: the prior releases are there, and the killed one is either absent
        // (killed before its charge reached the disk) or charged in full.
        const std::size_t expectedMin = prior + (recoverByRelease ? 1 : 0);
        QVERIFY(ledger->releases().size() >= expectedMin);
        QVERIFY(ledger->releases().size() <= expectedMin + 1);
        bool killedCharged = ledger->releases().size() == expectedMin + 1;
        if (killedCharged) {
            const LedgerRelease& k = ledger->releases()[prior];
            if (k.state == ReleaseState::Published) {
                // Its files are in place and match.
                for (std::size_t i = 0; i < k.files.size(); ++i) {
                    QCOMPARE(sha256Hex(slurp(QString::fromStdString(k.files[i]))), k.sha256[i]);
                }
            } else {
                QCOMPARE(k.state, ReleaseState::NotPublished);
                bool reported = false;
                for (const auto& n : notes) {
                    reported = reported || n.find("charged, not published") != std::string::npos;
                }
                QVERIFY2(reported, "a charged release whose files never appeared is reported");
            }
        } else if (!overwrite) {
            QVERIFY2(!csvThere, "a file appeared for a release that was not charged");
        }
        // ε adds up: 0.5 per release in the ledger.
        QCOMPARE(
            ledger->usage().epsilonSpentExact,
            Rational::fraction(static_cast<long>(ledger->releases().size()), 2).value().toString());
        // And the ledger goes on working.
        auto after = runRelease(request(d, "after"));
        QVERIFY2(after, after ? "" : after.error().message.c_str());
        QVERIFY(after->recoveryNotes.empty());
    }

    void killEverywhere(bool overwrite, bool recoverByRelease) {
        const std::vector<std::string> steps = stepsOfOneRelease(overwrite);
        QVERIFY2(steps.size() >= 6, "the release path names its steps");
        for (std::size_t k = 0; k < steps.size(); ++k) {
            killAndRecover(overwrite, k, recoverByRelease);
            if (QTest::currentTestFailed()) {
                qWarning("failed after a kill at step %zu (%s)", k, steps[k].c_str());
                return;
            }
        }
    }

private Q_SLOTS:
    // The steps named by the release path, in order: the charge is durable before any release
    // file is published.
    void stepsChargeBeforePublishing() {
        const std::vector<std::string> steps = stepsOfOneRelease(false);
        std::size_t charged = steps.size(), firstPublished = steps.size();
        for (std::size_t i = 0; i < steps.size(); ++i) {
            if (steps[i] == "charged" && charged == steps.size()) {
                charged = i;
            }
            if (steps[i].rfind("published: ", 0) == 0 && firstPublished == steps.size()) {
                firstPublished = i;
            }
        }
        QVERIFY(charged < steps.size());
        QVERIFY(firstPublished < steps.size());
        QVERIFY(charged < firstPublished);
        QCOMPARE(steps.back(), std::string("done"));
    }

    void killAtEveryStepNewFiles() { killEverywhere(false, false); }
    void killAtEveryStepOverwrite() { killEverywhere(true, false); }
    void killAtEveryStepNextRunIsARelease() { killEverywhere(false, true); }

    // A pending release whose temporaries are complete is published by the next run; one whose
    // temporaries are gone is "charged, not published".
    void pendingReleaseIsCompletedOrReported() {
        for (bool removeTemps : {false, true}) {
            QTemporaryDir dir;
            const QString d = dir.path();
            QVERIFY(runRelease(request(d, "first")));
            // Kill right after the second temporary was written (before publication).
            std::vector<std::string> steps = stepsOfOneRelease(false);
            std::size_t k = 0;
            for (std::size_t i = 0; i < steps.size(); ++i) {
                if (steps[i] == "temp written: r.json") {
                    k = i;
                }
            }
            QVERIFY(k > 0);
            QVERIFY(releaseKilledAt(request(d, "r"), k));
            QVERIFY(!QFile::exists(d + QStringLiteral("/r.csv")));
            if (removeTemps) {
                for (const QString& name : entries(d)) {
                    if (name.contains(QStringLiteral(".dpx-pending-"))) {
                        QVERIFY(QFile::remove(d + QLatin1Char('/') + name));
                    }
                }
            }
            auto check = checkLedger((d + QStringLiteral("/ledger.json")).toStdString());
            QVERIFY2(check, check ? "" : check.error().message.c_str());
            QCOMPARE(check->releases, std::size_t{2});
            QCOMPARE(check->recoveryNotes.size(), std::size_t{1});
            const std::string& note = check->recoveryNotes[0];
            if (removeTemps) {
                QVERIFY2(note.find("charged, not published") != std::string::npos, note.c_str());
                QCOMPARE(check->notPublished, std::size_t{1});
                QVERIFY(!QFile::exists(d + QStringLiteral("/r.csv")));
            } else {
                QVERIFY2(note.find("has now been published") != std::string::npos, note.c_str());
                QCOMPARE(check->notPublished, std::size_t{0});
                QVERIFY(QFile::exists(d + QStringLiteral("/r.csv")));
                QVERIFY(QFile::exists(d + QStringLiteral("/r.json")));
                QCOMPARE(QFile::permissions(d + QStringLiteral("/r.csv")) & QFile::ReadOther,
                         QFile::ReadOther);
            }
            QCOMPARE(check->usage.epsilonSpentExact, std::string("1"));
            checkNothingUncharged(d);
        }
    }
};

QTEST_GUILESS_MAIN(TestReleaseCrash)
#include "tst_release_crash.moc"
