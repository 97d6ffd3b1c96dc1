// Background computations for the window. Every job runs on one of the runner's own thread
// pools, never on the GUI thread: the interactive lane (data, release, LP: what the user waits
// for) and the background lane (Monte Carlo refinement), so that a refinement still running, or
// still finishing its current step after being cancelled, never delays what the user waits for.
// Jobs live in named slots ("histogram", "errors", "matrix", ...): starting a job in a slot asks
// the previous job of that slot to stop (std::stop_token) and guarantees that its result is never
// delivered. Results come back on the GUI thread, through the event loop. Long jobs report progress
// through JobProgress, which the GUI polls: workers never touch widgets and never emit signals at
// the rate of their inner loops.
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <utility>

namespace dpx::ui {

// Written by the worker, read by the GUI thread.
class JobProgress {
public:
    void set(double fraction) { fraction_.store(fraction, std::memory_order_relaxed); }
    double get() const { return fraction_.load(std::memory_order_relaxed); }
    // The job cannot tell how far it is (one LP solve: the simplex does not know how many
    // iterations remain). The progress bar then shows a busy indicator instead of a frozen 0 %.
    void setIndeterminate() { indeterminate_.store(true, std::memory_order_relaxed); }
    bool indeterminate() const { return indeterminate_.load(std::memory_order_relaxed); }
    // A short status text (e.g. "20 000 trials"); set before or between phases only.
    void setText(const QString& text);
    QString text() const;

private:
    std::atomic<double> fraction_{0};
    std::atomic<bool> indeterminate_{false};
    mutable std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
    QString text_;
};

class JobRunner : public QObject {
    Q_OBJECT
public:
    enum class Lane { Interactive, Background };

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;  // stops every job and waits for the workers

    // Starts `work` in `slot`, superseding (stopping and discarding) the slot's previous job.
    // `deliver` runs later on the GUI thread with the result, unless the job was superseded or
    // cancelled first. `label` non-empty: the job is "long" and shows in progressChanged while it
    // runs (e.g. "Monte Carlo", "Solving LP"). A slot should always use the same lane.
    template <class R>
    void run(const QString& slot, std::function<R(std::stop_token, JobProgress&)> work,
             std::function<void(R)> deliver, const QString& label = {},
             Lane lane = Lane::Interactive) {
        Slot& s = slots_[slot];
        if (s.stop) {
            s.stop->request_stop();
        }
        const std::uint64_t generation = ++s.generation;
        auto stop = std::make_shared<std::stop_source>();
        auto progress = std::make_shared<JobProgress>();
        s.stop = stop;
        s.progress = progress;
        s.label = label;
        s.running = true;
        ++started_;
        QPointer<JobRunner> self(this);
        (void)QtConcurrent::run(
            lane == Lane::Background ? &backgroundPool_ : &pool_,
            [self, slot, generation, stop, progress, work = std::move(work),
             deliver = std::move(deliver)] {
                auto result = std::make_shared<R>(work(stop->get_token(), *progress));
                if (!self) {
                    return;
                }
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, slot, generation, stop, result, deliver] {
                        if (!self || !self->finish(slot, generation) || stop->stop_requested()) {
                            return;
                        }
                        deliver(std::move(*result));
                    },
                    Qt::QueuedConnection);
            });
        updateProgress();
    }

    // Stops the job in `slot` (its result is dropped). No-op if none runs.
    void cancel(const QString& slot);
    // Stops every long job (those started with a label): the status bar's cancel button.
    void cancelLong();
    void cancelAll();

    bool isRunning(const QString& slot) const;
    bool anyRunning() const;
    // Jobs started / results delivered / results dropped as stale or cancelled (for tests).
    std::uint64_t started() const { return started_; }
    std::uint64_t dropped() const { return dropped_; }
    // Blocks (processing events) until no job runs or `timeoutMs` passes. Tests and shutdown.
    bool waitForIdle(int timeoutMs);

Q_SIGNALS:
    // The long jobs currently running: their labels joined, and the mean progress in [0, 1] of
    // those that report one; -1 when none does (JobProgress::setIndeterminate: show a busy
    // indicator). active false: no long job runs (hide the progress bar).
    void progressChanged(const QString& label, double fraction, bool active);
    void idle();
    // cancelLong() stopped the long job of `slot` (the user pressed Cancel): its result never
    // comes, so whoever waits for it can say so.
    void longJobCancelled(const QString& slot);

private:
    struct Slot {
        std::uint64_t generation = 0;
        std::shared_ptr<std::stop_source> stop;
        std::shared_ptr<JobProgress> progress;
        QString label;
        bool running = false;
    };
    // Called on the GUI thread when a job of `slot` ends; true if it is the slot's current job.
    bool finish(const QString& slot, std::uint64_t generation);
    void updateProgress();

    QThreadPool pool_;
    QThreadPool backgroundPool_;
    QHash<QString, Slot> slots_;
    QTimer poll_;
    std::uint64_t started_ = 0;
    std::uint64_t dropped_ = 0;
};

}  // namespace dpx::ui
