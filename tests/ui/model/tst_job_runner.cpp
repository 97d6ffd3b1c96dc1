// JobRunner (ui/model/job_runner.h): work runs off the GUI thread, results come back on it,
// superseded and cancelled jobs never deliver, stop requests reach the worker, progress is reported
// for long jobs only, and destroying the runner waits for its workers.
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "ui/model/job_runner.h"

using dpx::ui::JobProgress;
using dpx::ui::JobRunner;

namespace {
// Spins until stopped or `ms` elapse; returns how it ended.
int slowWork(std::stop_token stop, JobProgress& p, int ms, std::atomic<bool>* sawStop) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < end) {
        if (stop.stop_requested()) {
            if (sawStop) {
                *sawStop = true;
            }
            return -1;
        }
        p.set(0.5);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return ms;
}
}  // namespace

class TestJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsOffTheGuiThreadDeliversOnIt() {
        JobRunner runner;
        QThread* gui = QThread::currentThread();
        std::atomic<QThread*> worker{nullptr};
        QThread* deliveredOn = nullptr;
        int value = 0;
        runner.run<int>(
            QStringLiteral("a"),
            [&](std::stop_token, JobProgress&) {
                worker = QThread::currentThread();
                return 42;
            },
            [&](int v) {
                deliveredOn = QThread::currentThread();
                value = v;
            });
        QVERIFY(runner.isRunning(QStringLiteral("a")));
        QVERIFY(runner.waitForIdle(5000));
        QCOMPARE(value, 42);
        QVERIFY(worker.load() != nullptr);
        QVERIFY(worker.load() != gui);
        QCOMPARE(deliveredOn, gui);
    }

    void supersededJobIsStoppedAndDropped() {
        JobRunner runner;
        std::atomic<bool> firstSawStop{false};
        QList<int> delivered;
        runner.run<int>(
            QStringLiteral("slot"),
            [&](std::stop_token st, JobProgress& p) {
                return slowWork(st, p, 3000, &firstSawStop);
            },
            [&](int v) { delivered << v; });
        QTest::qWait(20);
        runner.run<int>(
            QStringLiteral("slot"), [](std::stop_token, JobProgress&) { return 7; },
            [&](int v) { delivered << v; });
        QVERIFY(runner.waitForIdle(5000));
        // Let the first worker's queued result arrive too: it must be dropped.
        QTRY_VERIFY_WITH_TIMEOUT(firstSawStop.load(), 5000);
        QTest::qWait(50);
        QCOMPARE(delivered, QList<int>{7});
        QVERIFY(runner.dropped() >= 1);
        QCOMPARE(runner.started(), std::uint64_t{2});
    }

    void otherSlotsAreIndependent() {
        JobRunner runner;
        QList<int> delivered;
        runner.run<int>(
            QStringLiteral("x"),
            [](std::stop_token st, JobProgress& p) { return slowWork(st, p, 100, nullptr); },
            [&](int v) { delivered << v; });
        runner.run<int>(
            QStringLiteral("y"), [](std::stop_token, JobProgress&) { return 1; },
            [&](int v) { delivered << v; });
        QVERIFY(runner.waitForIdle(5000));
        QTest::qWait(20);
        std::sort(delivered.begin(), delivered.end());
        QCOMPARE(delivered, (QList<int>{1, 100}));
    }

    void cancelStopsTheWorkerAndDropsTheResult() {
        JobRunner runner;
        std::atomic<bool> sawStop{false};
        bool delivered = false;
        QSignalSpy progress(&runner, &JobRunner::progressChanged);
        runner.run<int>(
            QStringLiteral("mc"),
            [&](std::stop_token st, JobProgress& p) { return slowWork(st, p, 5000, &sawStop); },
            [&](int) { delivered = true; }, QStringLiteral("Monte Carlo"));
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toString(), QStringLiteral("Monte Carlo"));
        QCOMPARE(progress.last().at(2).toBool(), true);
        const auto start = std::chrono::steady_clock::now();
        runner.cancelLong();
        QVERIFY(!runner.anyRunning());  // at once, from the GUI's point of view
        QCOMPARE(progress.last().at(2).toBool(), false);
        QTRY_VERIFY_WITH_TIMEOUT(sawStop.load(), 2000);
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
        QTest::qWait(50);
        QVERIFY(!delivered);
    }

    // The background lane (Monte Carlo) never holds up the interactive lane (the release the
    // user waits for), even with every background thread busy and not checking its stop token.
    void backgroundLaneDoesNotDelayInteractiveJobs() {
        JobRunner runner;
        std::atomic<bool> release{false};
        std::atomic<int> busy{0};
        const int threads = std::max(1, QThread::idealThreadCount());
        for (int i = 0; i < threads; ++i) {
            runner.run<int>(
                QStringLiteral("mc%1").arg(i),
                [&](std::stop_token, JobProgress&) {
                    ++busy;
                    while (!release.load()) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    }
                    return 0;
                },
                [](int) {}, QStringLiteral("Monte Carlo"), JobRunner::Lane::Background);
        }
        QTRY_COMPARE_WITH_TIMEOUT(busy.load(), threads, 5000);
        int delivered = 0;
        runner.run<int>(
            QStringLiteral("release"), [](std::stop_token, JobProgress&) { return 42; },
            [&](int v) { delivered = v; });
        QTRY_COMPARE_WITH_TIMEOUT(delivered, 42, 5000);
        QCOMPARE(busy.load(), threads);  // the background jobs were still running
        release = true;
        QVERIFY(runner.waitForIdle(5000));
    }

    void unlabelledJobsDoNotShowProgress() {
        JobRunner runner;
        QSignalSpy progress(&runner, &JobRunner::progressChanged);
        runner.run<int>(
            QStringLiteral("quick"), [](std::stop_token, JobProgress&) { return 0; }, [](int) {});
        QVERIFY(runner.waitForIdle(5000));
        for (const auto& args : progress) {
            QCOMPARE(args.at(2).toBool(), false);
        }
    }

    void destructorWaitsForWorkers() {
        auto finished = std::make_shared<std::atomic<bool>>(false);
        {
            JobRunner runner;
            runner.run<int>(
                QStringLiteral("s"),
                [finished](std::stop_token st, JobProgress& p) {
                    const int r = slowWork(st, p, 3000, nullptr);
                    *finished = true;
                    return r;
                },
                [](int) { QFAIL("a destroyed runner must not deliver"); });
        }
        QVERIFY(finished->load());  // stopped early and joined before the destructor returned
        QTest::qWait(20);
    }
};

QTEST_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
