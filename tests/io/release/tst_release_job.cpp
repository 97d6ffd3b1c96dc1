// The shared release orchestration (io/release/release_job.h) that `dpx release` and the window's
// Release dialog both call: the order of refusals (nothing that needs the data is read before the
// budget and the files are checked), the outcome, all-or-nothing writes, the preview's before and
// after budgets, and the budget line.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <thread>

#include "core/histogram/dataset.h"
#include "core/intervals/release_intervals.h"
#include "io/release/privacy_ledger.h"
#include "io/release/release_job.h"

using namespace dpx;
using namespace dpx::data;

namespace {

QStringList entries(const QTemporaryDir& dir) {
    return QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A request for counts {5, 0, 7} (declared) with ε, a new total `budget`, files in `dir`;
// `loads` counts the calls of loadTruth.
ReleaseRequest requestIn(const QTemporaryDir& dir, const std::string& eps, int* loads,
                         const std::string& name = "r") {
    ReleaseRequest r;
    r.spec.mechanism = ReleaseMechanism::DiscreteLaplace;
    r.spec.epsilon = eps;
    r.spec.appVersion = "0.0-test";
    r.dataset = "test data";
    r.csvPath = dir.filePath(QString::fromStdString(name + ".csv")).toStdString();
    r.ledgerPath = dir.filePath(QStringLiteral("ledger.json")).toStdString();
    r.newBudget = LedgerBudgetText{"1", "0"};
    r.loadTruth = [loads]() -> Expected<ReleaseTruth> {
        if (loads) {
            ++*loads;
        }
        return ReleaseTruth{*Histogram::create({5, 0, 7}), true, "three counts"};
    };
    return r;
}

}  // namespace

class TestReleaseJob : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A first release creates the ledger and writes the CSV and its metadata; the outcome says
    // what was written and what is left.
    void firstReleaseCreatesLedger() {
        QTemporaryDir dir;
        int loads = 0;
        ReleaseFailure failure;
        auto o = runRelease(requestIn(dir, "0.25", &loads), &failure);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        QCOMPARE(loads, 1);
        QVERIFY(o->ledgerCreated);
        QCOMPARE(o->releasesInLedger, std::size_t(1));
        QCOMPARE(o->jsonPath, dir.filePath(QStringLiteral("r.json")).toStdString());
        QCOMPARE(o->release.values.size(), std::size_t(3));
        QCOMPARE(o->usage.epsilonRemaining, 0.75);
        QCOMPARE(o->totalEpsilon, std::string("1"));
        QCOMPARE(entries(dir), QStringList({QStringLiteral("ledger.json"), QStringLiteral("r.csv"),
                                            QStringLiteral("r.json")}));
        const QJsonObject md =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("r.json")))).object();
        QCOMPARE(md.value(QStringLiteral("source")).toString(), QStringLiteral("three counts"));
        QCOMPARE(md.value(QStringLiteral("mechanism")).toString(),
                 QStringLiteral("discrete-laplace"));
        auto ledger = PrivacyLedger::load(o->ledgerPath);
        QVERIFY(ledger);
        QCOMPARE(ledger->dataset(), std::string("test data"));
        QCOMPARE(ledger->releases().size(), std::size_t(1));
        QCOMPARE(budgetUsageText(o->usage, o->totalEpsilon, o->totalDelta),
                 std::string("ε 0.75 of 1 left"));
    }

    // Issue #22: the CSV gets lower/upper = value ∓ h and the JSON the level, method, half-width
    // and sentence; h is the smallest integer with Pr[|Z| ≤ h] ≥ level for Z ~ DLap(t = 1/ε),
    // Pr[|Z| > k] = 2α^(k+1)/(1 + α), α = e^(−ε), computed here from that formula. The preview
    // states the same before the release; resize states none.
    void releaseStatesIntervals() {
        QTemporaryDir dir;
        ReleaseRequest r = requestIn(dir, "0.25", nullptr);
        r.spec.confidenceLevel = 0.9;
        r.previewBins = 3;
        const double alpha = std::exp(-0.25);
        int h = 0;
        while (2 * std::pow(alpha, h + 1) / (1 + alpha) > 0.1)
            ++h;
        auto preview = previewRelease(r);
        QVERIFY(preview && preview->intervals);
        QCOMPARE(preview->intervals->halfWidth, double(h));
        auto o = runRelease(r);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        QVERIFY(o->release.metadata.intervals);
        QCOMPARE(*o->release.metadata.intervals, *preview->intervals);
        const QList<QByteArray> lines = readFile(dir.filePath(QStringLiteral("r.csv"))).split('\n');
        QCOMPARE(lines[0], QByteArray("bin,value,lower,upper"));
        for (int i = 1; i <= 3; ++i) {
            const QList<QByteArray> cells = lines[i].split(',');
            QCOMPARE(cells.size(), 4);
            const double v = cells[1].toDouble();
            QCOMPARE(cells[2].toDouble(), v - h);
            QCOMPARE(cells[3].toDouble(), v + h);
        }
        const QJsonObject iv =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("r.json"))))
                .object()
                .value(QStringLiteral("intervals"))
                .toObject();
        QCOMPARE(iv.value(QStringLiteral("level")).toDouble(), 0.9);
        QCOMPARE(iv.value(QStringLiteral("half_width")).toDouble(), double(h));
        QCOMPARE(iv.value(QStringLiteral("sentence")).toString(),
                 QStringLiteral("With 90 % confidence each published count is within ±%1 of the "
                                "count before noise.")
                     .arg(h));
        QVERIFY(iv.value(QStringLiteral("method"))
                    .toString()
                    .contains(QStringLiteral("discrete Laplace")));
        QVERIFY(iv.value(QStringLiteral("all_bins_at_once"))
                    .toObject()
                    .value(QStringLiteral("half_width"))
                    .toDouble() >= h);
        // Resize: no columns, the JSON says why.
        ReleaseRequest rs = requestIn(dir, "0.25", nullptr, "rs");
        rs.newBudget.reset();
        rs.spec.postProcessing = EstimatorKind::Resize;
        QVERIFY(runRelease(rs));
        QVERIFY(readFile(dir.filePath(QStringLiteral("rs.csv"))).startsWith("bin,value\n"));
        QVERIFY(QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("rs.json"))))
                    .object()
                    .value(QStringLiteral("intervals"))
                    .toString()
                    .startsWith(QStringLiteral("not stated")));
        // Resize with postProcessedIntervals: bounds around the noisy counts before resize, the
        // same in the preview, the CSV and the JSON.
        ReleaseRequest rp = requestIn(dir, "0.25", nullptr, "rp");
        rp.newBudget.reset();
        rp.spec.postProcessing = EstimatorKind::Resize;
        rp.spec.postProcessedIntervals = true;
        rp.spec.confidenceLevel = 0.9;
        rp.previewBins = 3;
        auto pp = previewRelease(rp);
        QVERIFY(pp && pp->intervals && pp->intervals->aroundNoisy);
        auto op = runRelease(rp);
        QVERIFY2(op, op ? "" : op.error().message.c_str());
        QCOMPARE(*op->release.metadata.intervals, *pp->intervals);
        const std::vector<double>& noisy = op->release.noisyBeforePostProcessing;
        QCOMPARE(noisy.size(), std::size_t{3});
        const QList<QByteArray> rows = readFile(dir.filePath(QStringLiteral("rp.csv"))).split('\n');
        QCOMPARE(rows[0], QByteArray("bin,value,lower,upper"));
        for (int i = 1; i <= 3; ++i) {
            const QList<QByteArray> cells = rows[i].split(',');
            QCOMPARE(cells.size(), 4);
            const double v = cells[1].toDouble();
            const double y = noisy[static_cast<std::size_t>(i - 1)];
            QCOMPARE(cells[2].toDouble(), std::min(v, std::max(0.0, y - h)));
            QCOMPARE(cells[3].toDouble(), std::max(v, std::max(0.0, y + h)));
            QVERIFY(cells[2].toDouble() <= v && v <= cells[3].toDouble());
        }
        const QJsonObject ip =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("rp.json"))))
                .object()
                .value(QStringLiteral("intervals"))
                .toObject();
        QCOMPARE(ip.value(QStringLiteral("half_width")).toDouble(), double(h));
        QVERIFY(ip.value(QStringLiteral("columns")).toString().contains(QStringLiteral("noisy")));
        QVERIFY(ip.value(QStringLiteral("sentence"))
                    .toString()
                    .startsWith(QStringLiteral("With 90 % confidence each count before noise lies "
                                               "between its lower and upper bound")));
        // A bad level is refused before any data are read.
        ReleaseRequest bad = requestIn(dir, "0.25", nullptr, "bad");
        bad.spec.confidenceLevel = 1;
        auto refused = runRelease(bad);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("confidence") != std::string::npos,
                 refused.error().message.c_str());
    }

    // Issue #22, --sample-of: four more CSV columns and a "sampling" object, equal to
    // releaseSamplingIntervals of the PUBLISHED values (n̂ = their sum; the true counts 5, 0, 7 are
    // never used); a strategy with a sample is refused before the data are read.
    void releaseStatesSamplingIntervals() {
        QTemporaryDir dir;
        int loads = 0;
        ReleaseRequest r = requestIn(dir, "0.5", &loads);
        r.spec.samplePopulation = 1000;
        r.spec.postProcessing = EstimatorKind::Clamp;
        auto o = runRelease(r);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        const auto& sm = o->release.metadata.sampling;
        QVERIFY(sm);
        auto expected = releaseSamplingIntervals(r.spec, o->release.values);
        QVERIFY2(expected, expected ? "" : expected.error().message.c_str());
        QCOMPARE(*sm, *expected);
        double sum = 0;
        for (double v : o->release.values) {
            sum += v;
        }
        QCOMPARE(sm->sampleSize, std::clamp(sum, 2.0, 1000.0));
        const QList<QByteArray> lines = readFile(dir.filePath(QStringLiteral("r.csv"))).split('\n');
        QCOMPARE(lines[0], QByteArray("bin,value,lower,upper,population_estimate,sampling_half_"
                                      "width,noise_half_width,combined_half_width"));
        for (int i = 0; i < 3; ++i) {
            const QList<QByteArray> cells = lines[i + 1].split(',');
            QCOMPARE(cells.size(), qsizetype{8});
            const auto k = static_cast<std::size_t>(i);
            QCOMPARE(cells[4].toDouble(), sm->estimates[k]);
            QCOMPARE(cells[5].toDouble(), sm->sampling[k]);
            QCOMPARE(cells[6].toDouble(), sm->noise[k]);
            QCOMPARE(cells[7].toDouble(), sm->combined[k]);
        }
        const QJsonObject so =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("r.json"))))
                .object()
                .value(QStringLiteral("sampling"))
                .toObject();
        QCOMPARE(so.value(QStringLiteral("population")).toDouble(), 1000.0);
        QCOMPARE(so.value(QStringLiteral("sample_size_from_published")).toDouble(), sm->sampleSize);
        QVERIFY(
            so.value(QStringLiteral("sentence")).toString().contains(QStringLiteral("N = 1000")));
        // Without a sample the files are as before.
        ReleaseRequest plain = requestIn(dir, "0.25", nullptr, "p");
        plain.newBudget.reset();
        QVERIFY(runRelease(plain));
        QVERIFY(
            readFile(dir.filePath(QStringLiteral("p.csv"))).startsWith("bin,value,lower,upper\n"));
        QVERIFY(!QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("p.json"))))
                     .object()
                     .contains(QStringLiteral("sampling")));
        // A strategy with a sample: refused before the data.
        ReleaseRequest st = requestIn(dir, "0.25", &loads, "st");
        st.newBudget.reset();
        st.spec.samplePopulation = 1000;
        st.planStrategy =
            [](const DomainShape&) -> Expected<std::shared_ptr<const StrategyReleasePlan>> {
            return Error{"not reached"};
        };
        ReleaseFailure failure;
        auto refused = runRelease(st, &failure);
        QVERIFY(!refused);
        QVERIFY(failure.invalidInput);
        QVERIFY2(refused.error().message.find("sample of:") == 0, refused.error().message.c_str());
        QCOMPARE(loads, 1);
    }

    // Issue #22: a PLD grid interval given again for an existing PLD ledger must be the recorded
    // one (dpx release --pld-interval): a different one is refused before the data, naming both;
    // the same one, or none, is accepted.
    void pldIntervalMustMatchTheLedger() {
        QTemporaryDir dir;
        int loads = 0;
        ReleaseRequest r = requestIn(dir, "0.25", &loads, "a");
        r.newBudget = LedgerBudgetText{"1", "1e-6"};
        r.composition = Composition::Pld;
        r.pldInterval = "0.001";
        r.pldIntervalGiven = true;
        QVERIFY(runRelease(r));
        ReleaseRequest other = requestIn(dir, "0.25", &loads, "b");
        other.newBudget.reset();
        other.pldInterval = "0.0001";
        other.pldIntervalGiven = true;
        ReleaseFailure failure;
        auto refused = runRelease(other, &failure);
        QVERIFY(!refused);
        QCOMPARE(failure.field, std::string("ledger"));
        QVERIFY2(refused.error().message.find("0.001") != std::string::npos &&
                     refused.error().message.find("0.0001") != std::string::npos,
                 refused.error().message.c_str());
        QCOMPARE(loads, 1);
        other.pldInterval = "0.0010";  // the same number
        QVERIFY(runRelease(other));
        ReleaseRequest none = requestIn(dir, "0.25", &loads, "c");
        none.newBudget.reset();
        QVERIFY(runRelease(none));
    }

    // Over budget: refused before the data are read, nothing written, ledger unchanged.
    void overBudgetIsRefusedBeforeTheData() {
        QTemporaryDir dir;
        int loads = 0;
        QVERIFY(runRelease(requestIn(dir, "0.75", &loads, "a")));
        const QByteArray ledgerBefore = readFile(dir.filePath(QStringLiteral("ledger.json")));
        const QStringList before = entries(dir);
        ReleaseFailure failure;
        auto o = runRelease(requestIn(dir, "0.5", &loads, "b"), &failure);
        QVERIFY(!o);
        QCOMPARE(loads, 1);  // only the first release read the data
        QVERIFY(!failure.invalidInput);
        QVERIFY2(o.error().message.find("left") != std::string::npos, o.error().message.c_str());
        QCOMPARE(entries(dir), before);
        QCOMPARE(readFile(dir.filePath(QStringLiteral("ledger.json"))), ledgerBefore);
    }

    // Issue #23: a release through a designed strategy spreads one person's change over many rows
    // of K·x, so a PLD ledger composes it as a generic ε-DP mechanism (randomized response, which
    // dominates every one; Kairouz, Oh & Viswanath 2015), never as one discrete Laplace bin; the
    // files carry per-cell intervals and the strategy block.
    void strategyReleaseInAPldLedgerIsPureDp() {
        QTemporaryDir dir;
        int loads = 0;
        ReleaseRequest r = requestIn(dir, "0.5", &loads, "s");
        r.newBudget = LedgerBudgetText{"1", "1e-6"};
        r.composition = Composition::Pld;
        r.planStrategy =
            strategyPlanner(*WorkloadSpec::parse("allrange"), DesignTemplate::PIdentity);
        auto o = runRelease(r);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        QCOMPARE(loads, 1);
        QVERIFY(o->release.metadata.strategy.has_value());
        QCOMPARE(o->release.metadata.intervals->halfWidths.size(), std::size_t{3});
        auto ledger = PrivacyLedger::load(r.ledgerPath);
        QVERIFY2(ledger, ledger ? "" : ledger.error().message.c_str());
        QCOMPARE(ledger->releases().size(), std::size_t{1});
        QCOMPARE(ledger->releases()[0].loss.kind, std::string("pure-dp"));
        QCOMPARE(ledger->releases()[0].loss.parameter, std::string("1/2"));
        const QByteArray csv = readFile(dir.filePath(QStringLiteral("s.csv")));
        QVERIFY(csv.startsWith("bin,value,lower,upper\n"));
        // A histogram release of cap 1 stays one discrete Laplace bin.
        ReleaseRequest histogram = requestIn(dir, "0.1", &loads, "h");
        histogram.newBudget.reset();
        auto h = runRelease(histogram);
        QVERIFY2(h, h ? "" : h.error().message.c_str());
        ledger = PrivacyLedger::load(r.ledgerPath);
        QCOMPARE(ledger->releases()[1].loss.kind, std::string("discrete-laplace"));
    }

    // Issue #23: a discrete Gaussian through a strategy is charged the ρ calibrated on the
    // strategy's Δ2 (zCDP ledger: the entry's ρ is the plan's, the preview shows the same before
    // the data); a PLD ledger refuses it before the data are read (its discrete Gaussian is a
    // one-bin law), and nothing is written.
    void gaussianStrategyRelease() {
        QTemporaryDir dir;
        int loads = 0;
        auto gaussian = [&](const std::string& name, Composition c) {
            ReleaseRequest r = requestIn(dir, "0.5", &loads, name);
            r.spec.mechanism = ReleaseMechanism::DiscreteGaussian;
            r.spec.delta = "1e-7";
            r.newBudget = LedgerBudgetText{"1", "1e-6"};
            r.composition = c;
            r.ledgerPath =
                dir.filePath(QString::fromStdString(name + "-ledger.json")).toStdString();
            return r;
        };
        ReleaseRequest z = gaussian("z", Composition::Zcdp);
        auto planner = strategyPlanner(*WorkloadSpec::parse("allrange"), DesignTemplate::PIdentity);
        auto plan = planner(DomainShape{3});
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        z.strategy = *plan;
        z.previewBins = 3;
        auto preview = previewRelease(z);
        QVERIFY2(preview, preview ? "" : preview.error().message.c_str());
        auto law = strategyReleaseLaw(
            [&] {
                ReleaseSpec s = z.spec;
                s.binsDeclared = true;
                return s;
            }(),
            **plan);
        QVERIFY(law && law->gaussian);
        QCOMPARE(preview->cost.rho, law->gaussian->rho.toString());
        QCOMPARE(preview->gaussian->sigma2.toString(), law->gaussian->sigma2.toString());
        auto o = runRelease(z);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        QCOMPARE(o->release.metadata.mechanism, std::string("discrete-gaussian"));
        QCOMPARE(o->release.metadata.rho, law->gaussian->rho.toString());
        auto ledger = PrivacyLedger::load(z.ledgerPath);
        QVERIFY(ledger);
        QCOMPARE(ledger->releases()[0].rho, law->gaussian->rho.toString());
        QCOMPARE(ledger->releases()[0].delta, std::string("1e-7"));

        // Planned from the data's declared shape: the same charge.
        ReleaseRequest z2 = gaussian("z2", Composition::Zcdp);
        z2.planStrategy = planner;
        auto o2 = runRelease(z2);
        QVERIFY2(o2, o2 ? "" : o2.error().message.c_str());
        QCOMPARE(o2->release.metadata.rho, law->gaussian->rho.toString());

        loads = 0;
        ReleaseRequest pld = gaussian("p", Composition::Pld);
        pld.planStrategy = planner;
        ReleaseFailure failure;
        auto refused = runRelease(pld, &failure);
        QVERIFY(!refused);
        QCOMPARE(loads, 0);
        QVERIFY2(refused.error().message.find("does not account a discrete Gaussian measured "
                                              "through a designed strategy") != std::string::npos,
                 refused.error().message.c_str());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("p.csv"))));
        QVERIFY(!QFile::exists(QString::fromStdString(pld.ledgerPath)));
    }

    // Issue #23: an OPT₊ (stacked) strategy's metadata lists every part's integer entries and
    // rows, which add up to the measurements.
    void unionStrategyListsItsParts() {
        QTemporaryDir dir;
        ReleaseRequest r = requestIn(dir, "1", nullptr, "u");
        r.newBudget = LedgerBudgetText{"2", "0"};
        r.loadTruth = []() -> Expected<ReleaseTruth> {
            return ReleaseTruth{*Histogram::create({4, 0, 9, 1, 30, 2, 5, 5, 0, 7, 3, 1}), true,
                                "twelve counts"};
        };
        StrategyOptimizeOptions o;
        o.restarts = 1;
        r.planStrategy = strategyPlanner(*WorkloadSpec::parse("prefix + 0.5*identity"),
                                         DesignTemplate::Union, {}, o);
        auto out = runRelease(r);
        QVERIFY2(out, out ? "" : out.error().message.c_str());
        const QJsonObject st =
            QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("u.json"))))
                .object()
                .value(QStringLiteral("strategy"))
                .toObject();
        const QJsonArray parts = st.value(QStringLiteral("parts")).toArray();
        QVERIFY(parts.size() >= 2);
        qint64 rows = 0;
        for (const auto& part : parts) {
            const QJsonObject po = part.toObject();
            rows += po.value(QStringLiteral("rows")).toInteger();
            QVERIFY(!po.value(QStringLiteral("factors")).toArray().isEmpty());
        }
        QCOMPARE(rows, st.value(QStringLiteral("measurements")).toArray().size());
        QVERIFY(st.value(QStringLiteral("matrix")).toString().contains(QStringLiteral("stacked")));
    }

    // Issue #22: a ledger of the PLD accountant. Discrete-Gaussian releases that basic composition
    // would refuse after two fit; the one that would exceed the accountant's total is refused
    // before the data are read, and nothing is written.
    void pldLedgerRefusesBeforeTheData() {
        QTemporaryDir dir;
        int loads = 0;
        auto gaussian = [&](const std::string& name) {
            ReleaseRequest r = requestIn(dir, "0.5", &loads, name);
            r.spec.mechanism = ReleaseMechanism::DiscreteGaussian;
            r.spec.delta = "1e-7";
            r.newBudget = LedgerBudgetText{"1", "1e-6"};
            r.composition = Composition::Pld;
            return r;
        };
        int released = 0;
        for (const char* name : {"a", "b", "c", "d"}) {
            auto o = runRelease(gaussian(name));
            QVERIFY2(o, o ? "" : o.error().message.c_str());
            QCOMPARE(o->usage.composition, Composition::Pld);
            QVERIFY(o->usage.epsilonSpent <= 1.0);
            ++released;
        }
        QCOMPARE(released, 4);  // basic composition: 2 (ε 0.5 + 0.5 = 1)
        QCOMPARE(loads, 4);
        const QByteArray ledgerBefore = readFile(dir.filePath(QStringLiteral("ledger.json")));
        QVERIFY(ledgerBefore.contains("\"composition\": \"pld\""));
        const QStringList before = entries(dir);
        ReleaseFailure failure;
        auto o = runRelease(gaussian("e"), &failure);
        QVERIFY(!o);
        QCOMPARE(loads, 4);
        QVERIFY(!failure.invalidInput);
        QVERIFY2(o.error().message.find("PLD accountant") != std::string::npos,
                 o.error().message.c_str());
        QCOMPARE(entries(dir), before);
        QCOMPARE(readFile(dir.filePath(QStringLiteral("ledger.json"))), ledgerBefore);
        // The preview says the same, and what is left is spendable.
        auto p = previewRelease(gaussian("e"));
        QVERIFY(p);
        QVERIFY(!p->after);
        QVERIFY(p->refusal.find("PLD accountant") != std::string::npos);
        QVERIFY(budgetUsageText(p->before, "1", "1e-6").find("PLD") != std::string::npos);
        ReleaseRequest rest = requestIn(dir, "0.1", &loads, "f");
        rest.newBudget.reset();
        auto eps = spendableEpsilon(rest);
        QVERIFY2(eps, eps ? "" : eps.error().message.c_str());
        rest.spec.epsilon = *eps;
        QVERIFY2(runRelease(rest), eps->c_str());
        QCOMPARE(loads, 5);
        // A basic request on the PLD ledger is refused as another composition.
        ReleaseRequest basic = requestIn(dir, "0.001", &loads, "g");
        basic.composition = Composition::Basic;
        basic.newBudget.reset();
        auto wrong = runRelease(basic, &failure);
        QVERIFY(!wrong);
        QCOMPARE(failure.field, std::string("composition"));
    }

    // Existing release files: refused (field "out") without reading the data unless overwrite;
    // with overwrite they are replaced and the ledger records a second release.
    void existingFilesNeedOverwrite() {
        QTemporaryDir dir;
        int loads = 0;
        QVERIFY(runRelease(requestIn(dir, "0.25", &loads)));
        const QByteArray csv = readFile(dir.filePath(QStringLiteral("r.csv")));
        ReleaseFailure failure;
        auto again = runRelease(requestIn(dir, "0.25", &loads), &failure);
        QVERIFY(!again);
        QCOMPARE(failure.field, std::string("out"));
        QCOMPARE(loads, 1);
        QCOMPARE(readFile(dir.filePath(QStringLiteral("r.csv"))), csv);
        ReleaseRequest r = requestIn(dir, "0.25", &loads);
        r.overwrite = true;
        auto o = runRelease(r);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        QCOMPARE(o->releasesInLedger, std::size_t(2));
        QVERIFY(!o->ledgerCreated);
    }

    // Data-dependent bins are refused after loading, with nothing written.
    void undeclaredBinsAreRefused() {
        QTemporaryDir dir;
        ReleaseRequest r = requestIn(dir, "0.25", nullptr);
        r.loadTruth = []() -> Expected<ReleaseTruth> {
            return ReleaseTruth{*Histogram::create({1, 2}), false, "found"};
        };
        ReleaseFailure failure;
        auto o = runRelease(r, &failure);
        QVERIFY(!o);
        QCOMPARE(failure.field, std::string("bins"));
        QVERIFY(failure.invalidInput);
        QVERIFY(o.error().message.find("declared") != std::string::npos);
        QVERIFY(entries(dir).isEmpty());
    }

    // Issue #19: a table of two attributes is released through the same job: one CSV column per
    // attribute, the metadata lists the attributes, the ledger is charged as for a histogram of
    // its cells; an attribute with bins found in the data is refused by name, nothing written.
    void tableRelease() {
        QTemporaryDir dir;
        ReleaseRequest r = requestIn(dir, "0.25", nullptr);
        Attribute sex{"sex", {"F", "M"}, {}, "categories F, M", true};
        Attribute cls{"class", {"<=50K", ">50K"}, {}, "categories <=50K, >50K", true};
        auto table = ContingencyTable::dense({sex, cls}, {3, 1, 4, 1});
        QVERIFY(table);
        r.loadTruth = [table]() -> Expected<ReleaseTruth> {
            return ReleaseTruth{*table->toHistogram(), false, "columns 'sex', 'class' of adult.csv",
                                *table};
        };
        ReleaseFailure failure;
        auto o = runRelease(r, &failure);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        QCOMPARE(o->release.values.size(), std::size_t(4));
        QCOMPARE(o->usage.epsilonRemaining, 0.75);
        const QList<QByteArray> lines = readFile(QString::fromStdString(o->csvPath)).split('\n');
        QCOMPARE(lines.size(), 6);  // header, 4 cells, the empty piece after the last LF
        QCOMPARE(lines[0], QByteArray("sex,class,value,lower,upper"));  // intervals: issue #22
        QVERIFY(lines[1].startsWith("F,<=50K,"));
        QVERIFY(lines[2].startsWith("F,>50K,"));
        QVERIFY(lines[3].startsWith("M,<=50K,"));
        QVERIFY(lines[4].startsWith("M,>50K,"));
        const QJsonObject md =
            QJsonDocument::fromJson(readFile(QString::fromStdString(o->jsonPath))).object();
        const QJsonArray attrs = md.value(QStringLiteral("attributes")).toArray();
        QCOMPARE(attrs.size(), 2);
        QCOMPARE(attrs[1].toObject().value(QStringLiteral("name")).toString(),
                 QStringLiteral("class"));
        QCOMPARE(attrs[1].toObject().value(QStringLiteral("bins")).toInt(), 2);
        QCOMPARE(md.value(QStringLiteral("source")).toString(),
                 QStringLiteral("columns 'sex', 'class' of adult.csv"));

        QTemporaryDir dir2;
        ReleaseRequest r2 = requestIn(dir2, "0.25", nullptr);
        Attribute found{"class", {"<=50K", ">50K"}, {}, "categories found in the data", false};
        auto t2 = ContingencyTable::dense({sex, found}, {3, 1, 4, 1});
        QVERIFY(t2);
        r2.loadTruth = [t2]() -> Expected<ReleaseTruth> {
            return ReleaseTruth{*t2->toHistogram(), true, "found", *t2};
        };
        auto refused = runRelease(r2, &failure);
        QVERIFY(!refused);
        QCOMPARE(failure.field, std::string("bins"));
        QVERIFY(failure.invalidInput);
        QVERIFY(refused.error().message.find("attribute 'class'") != std::string::npos);
        QVERIFY(entries(dir2).isEmpty());
    }

    // Refusals of the request itself, each naming its field, each writing nothing.
    void badRequests_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("field");
        QTest::addColumn<bool>("invalid");
        QTest::newRow("no budget for a new ledger")
            << QStringLiteral("nobudget") << QStringLiteral("budget") << true;
        QTest::newRow("budget 0") << QStringLiteral("budget0") << QStringLiteral("budget") << true;
        QTest::newRow("epsilon 0") << QStringLiteral("eps0") << QStringLiteral("") << true;
        QTest::newRow("no output") << QStringLiteral("noout") << QStringLiteral("out") << true;
        QTest::newRow("ledger is the output")
            << QStringLiteral("same") << QStringLiteral("out") << true;
        QTest::newRow("no data") << QStringLiteral("nodata") << QStringLiteral("data") << true;
        QTest::newRow("data fails")
            << QStringLiteral("datafails") << QStringLiteral("data") << true;
        QTest::newRow("ledger of other data")
            << QStringLiteral("otherdata") << QStringLiteral("ledger") << false;
        QTest::newRow("another total")
            << QStringLiteral("othertotal") << QStringLiteral("budget") << false;
        QTest::newRow("another composition")
            << QStringLiteral("othercomp") << QStringLiteral("composition") << false;
        QTest::newRow("tampered ledger")
            << QStringLiteral("tampered") << QStringLiteral("ledger") << false;
    }
    void badRequests() {
        QFETCH(QString, what);
        QFETCH(QString, field);
        QFETCH(bool, invalid);
        QTemporaryDir dir;
        const bool needsLedger =
            what == QLatin1String("otherdata") || what == QLatin1String("othertotal") ||
            what == QLatin1String("othercomp") || what == QLatin1String("tampered");
        if (needsLedger) {
            QVERIFY(runRelease(requestIn(dir, "0.1", nullptr, "first")));
        }
        if (what == QLatin1String("tampered")) {
            QByteArray l = readFile(dir.filePath(QStringLiteral("ledger.json")));
            l.replace("\"0.1\"", "\"0.01\"");
            QFile f(dir.filePath(QStringLiteral("ledger.json")));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(l);
        }
        const QStringList before = entries(dir);
        int loads = 0;
        ReleaseRequest r = requestIn(dir, "0.1", &loads);
        if (what == QLatin1String("nobudget")) {
            r.newBudget.reset();
        } else if (what == QLatin1String("budget0")) {
            r.newBudget = LedgerBudgetText{"0", "0"};
        } else if (what == QLatin1String("eps0")) {
            r.spec.epsilon = "0";
        } else if (what == QLatin1String("noout")) {
            r.csvPath.clear();
        } else if (what == QLatin1String("same")) {
            r.csvPath = r.ledgerPath;
        } else if (what == QLatin1String("nodata")) {
            r.loadTruth = nullptr;
        } else if (what == QLatin1String("datafails")) {
            r.loadTruth = []() -> Expected<ReleaseTruth> { return Error{"cannot read"}; };
        } else if (what == QLatin1String("otherdata")) {
            r.dataset = "other data";
        } else if (what == QLatin1String("othertotal")) {
            r.newBudget = LedgerBudgetText{"2", "0"};
        } else if (what == QLatin1String("othercomp")) {
            r.newBudget.reset();
            r.composition = Composition::Zcdp;
        } else if (what == QLatin1String("tampered")) {
            r.newBudget.reset();
        }
        ReleaseFailure failure;
        auto o = runRelease(r, &failure);
        QVERIFY(!o);
        QCOMPARE(QString::fromStdString(failure.field), field);
        QCOMPARE(failure.invalidInput, invalid);
        QVERIFY(!o.error().message.empty());
        QCOMPARE(entries(dir), before);
        if (what != QLatin1String("datafails")) {
            QCOMPARE(loads, 0);  // refused before the data were read
        }
        // The preview refuses the same requests (except those that need the data).
        if (what != QLatin1String("nodata") && what != QLatin1String("datafails")) {
            QVERIFY(!previewRelease(r));
        }
    }

    // The preview: what is left now and after, the cost, existing files; a release that would
    // not fit is reported with the ledger's explanation and no "after".
    void previewShowsBeforeAndAfter() {
        QTemporaryDir dir;
        ReleaseRequest r = requestIn(dir, "0.4", nullptr);
        auto fresh = previewRelease(r);
        QVERIFY2(fresh, fresh ? "" : fresh.error().message.c_str());
        QVERIFY(!fresh->ledgerExists);
        QCOMPARE(fresh->before.epsilonRemaining, 1.0);
        QVERIFY(fresh->after);
        QCOMPARE(fresh->after->epsilonRemaining, 0.6);
        QVERIFY(entries(dir).isEmpty());  // a preview writes nothing
        QVERIFY(runRelease(r));
        r.newBudget.reset();
        auto second = previewRelease(r);
        QVERIFY(second);
        QVERIFY(second->ledgerExists);
        QCOMPARE(second->releasesInLedger, std::size_t(1));
        QCOMPARE(second->before.epsilonRemaining, 0.6);
        QCOMPARE(second->after->epsilonRemaining, 0.2);
        QCOMPARE(second->existingFiles.size(), std::size_t(2));
        QVERIFY(runRelease([&] {
            ReleaseRequest x = r;
            x.csvPath = dir.filePath(QStringLiteral("s.csv")).toStdString();
            return x;
        }()));
        auto over = previewRelease(r);
        QVERIFY(over);
        QVERIFY(!over->after);
        QVERIFY2(over->refusal.find("left") != std::string::npos, over->refusal.c_str());
    }

    // The Gaussian preview carries σ², ρ and δ; zCDP budgets are shown in ρ.
    void gaussianPreviewInZcdp() {
        QTemporaryDir dir;
        ReleaseRequest r = requestIn(dir, "0.5", nullptr);
        r.spec.mechanism = ReleaseMechanism::DiscreteGaussian;
        r.spec.delta = "1e-6";
        r.spec.relation = Neighbouring::Replace;
        r.spec.contributionCap = 3;
        r.newBudget = LedgerBudgetText{"2", "1e-5"};
        r.composition = Composition::Zcdp;
        auto p = previewRelease(r);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        QVERIFY(p->gaussian);
        QCOMPARE(p->gaussian->l2Squared, std::int64_t(18));
        QVERIFY(p->gaussian->delta <= 1e-6);
        QCOMPARE(p->cost.rho, p->gaussian->rho.toString());
        QVERIFY(p->after);
        QVERIFY(p->after->rhoRemaining < p->before.rhoRemaining);
        const std::string line = budgetUsageText(p->before, p->totalEpsilon, p->totalDelta);
        QVERIFY2(line.rfind("ρ ", 0) == 0 && line.find("at δ 1e-5") != std::string::npos,
                 line.c_str());
    }

    // Issue #17 item 4: the data are read and the noise drawn before the ledger's lock is taken,
    // so a slow data source or calibration never blocks other releases. The test holds the lock
    // (flock on the ledger's directory) while a release runs on another thread: its data are
    // loaded while the lock is held elsewhere; it completes once the lock is released.
    void dataReadBeforeTheLock() {
        QTemporaryDir dir;
        QVERIFY(runRelease(requestIn(dir, "0.25", nullptr)));
        const int fd = ::open(dir.path().toLocal8Bit().constData(), O_RDONLY | O_DIRECTORY);
        QVERIFY(fd >= 0);
        QCOMPARE(::flock(fd, LOCK_EX), 0);
        std::atomic<bool> loaded{false};
        ReleaseRequest r = requestIn(dir, "0.25", nullptr, "second");
        r.loadTruth = [&loaded]() -> Expected<ReleaseTruth> {
            loaded = true;
            return ReleaseTruth{*Histogram::create({5, 0, 7}), true, "three counts"};
        };
        std::optional<Expected<ReleaseOutcome>> outcome;
        std::thread worker([&] { outcome.emplace(runRelease(r)); });
        QTRY_VERIFY_WITH_TIMEOUT(loaded.load(), 20000);
        QTest::qWait(100);
        QVERIFY(!outcome);  // waiting for the lock, nothing written yet
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("second.csv"))));
        ::close(fd);  // releases the lock
        worker.join();
        QVERIFY(outcome && *outcome);
        QCOMPARE((*outcome)->releasesInLedger, std::size_t(2));
    }

    // Issue #17 item 6: what is left is shown rounded down, so the figure shown can be spent;
    // spendableEpsilon finds it and the ledger accepts it; messages carry decimals.
    void remainingIsSpendable() {
        QTemporaryDir dir;
        ReleaseRequest first = requestIn(dir, "0.299573227355399", nullptr, "a");
        auto o = runRelease(first);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        const std::string line = budgetUsageText(o->usage, o->totalEpsilon, o->totalDelta);
        QCOMPARE(line, std::string("ε 0.700426 of 1 left"));  // 0.700426772644601, not 0.700427
        ReleaseRequest next = requestIn(dir, "0.700427", nullptr, "b");
        auto refused = runRelease(next);
        QVERIFY(!refused);
        const std::string& m = refused.error().message;
        QVERIFY2(m.find("left ε = 0.700426") != std::string::npos, m.c_str());
        QVERIFY2(m.find('/') == std::string::npos ||
                     m.find(dir.path().toStdString()) != std::string::npos,
                 m.c_str());  // no fractions
        auto rest = spendableEpsilon(next);
        QVERIFY2(rest, rest ? "" : rest.error().message.c_str());
        QCOMPARE(*rest, std::string("0.700426"));
        next.spec.epsilon = *rest;
        auto spent = runRelease(next);
        QVERIFY2(spent, spent ? "" : spent.error().message.c_str());
        // 1 − 0.299573227355399 − 0.700426 = 7.72644601e-7 is left: shown and offered rounded
        // down.
        auto tiny = spendableEpsilon(requestIn(dir, "0.1", nullptr, "c"));
        QVERIFY2(tiny, tiny ? "" : tiny.error().message.c_str());
        QCOMPARE(*tiny, std::string("7.72644e-07"));
        // A ledger with nothing left offers nothing.
        QTemporaryDir full;
        QVERIFY(runRelease(requestIn(full, "1", nullptr, "all")));
        auto none = spendableEpsilon(requestIn(full, "0.1", nullptr, "c"));
        QVERIFY(!none);
        QVERIFY2(none.error().message.find("no budget is left") != std::string::npos,
                 none.error().message.c_str());
    }

    // zCDP: "use the rest" for a pure and a Gaussian release, each accepted by the ledger, and
    // one digit more is refused.
    void spendableUnderZcdp() {
        for (auto mech : {ReleaseMechanism::DiscreteLaplace, ReleaseMechanism::DiscreteGaussian}) {
            QTemporaryDir dir;
            ReleaseRequest r = requestIn(dir, "0.3", nullptr, "a");
            r.newBudget = LedgerBudgetText{"4", "1e-5"};  // ρ = 0.298; the first takes 0.045
            r.composition = Composition::Zcdp;
            QVERIFY(runRelease(r));
            r.csvPath = dir.filePath(QStringLiteral("b.csv")).toStdString();
            r.spec.mechanism = mech;
            if (mech == ReleaseMechanism::DiscreteGaussian) {
                r.spec.delta = "1e-6";
            }
            auto rest = spendableEpsilon(r, 4);
            QVERIFY2(rest, rest ? "" : rest.error().message.c_str());
            auto bigger = parseDecimal(*rest).value();
            // The next 4-digit decimal up does not fit.
            ReleaseRequest up = r;
            const double step = std::pow(10.0, std::floor(std::log10(bigger.toDouble())) - 3);
            up.spec.epsilon = formatShortest(bigger.toDouble() + step);
            auto preview = previewRelease(up);
            QVERIFY(preview);
            QVERIFY2(!preview->refusal.empty(), up.spec.epsilon.c_str());
            r.spec.epsilon = *rest;
            auto done = runRelease(r);
            QVERIFY2(done, done ? "" : done.error().message.c_str());
        }
    }

    void budgetLines() {
        BudgetUsage u;
        u.epsilonRemaining = 0.5;
        u.deltaRemaining = 5e-7;
        QCOMPARE(budgetUsageText(u, "1", "1e-6"),
                 std::string("ε 0.5 of 1 and δ 5e-07 of 1e-6 left"));
        QCOMPARE(budgetUsageText(u, "1", "0"), std::string("ε 0.5 of 1 left"));
        // With the exact sums (as the ledger gives them) the figure is exact: 0.6 of 1 spent
        // leaves 0.4, not 0.399999 (the binary double of the remainder is below 0.4).
        u.epsilonRemaining = 0.39999999999999997;
        u.epsilonSpentExact = "3/5";
        u.deltaSpentExact = "1/2500000";
        u.deltaRemaining = 5.9999999999999995e-07;
        QCOMPARE(budgetUsageText(u, "1", "1e-6"),
                 std::string("ε 0.4 of 1 and δ 6e-07 of 1e-6 left"));
        u.epsilonSpentExact = "9996/10000";
        QCOMPARE(budgetUsageText(u, "1", "0"), std::string("ε 0.0004 of 1 left"));
    }
};

QTEST_GUILESS_MAIN(TestReleaseJob)
#include "tst_release_job.moc"
