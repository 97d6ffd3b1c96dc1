#include "ui/model/job_runner.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QStringList>
#include <QThread>
#include <algorithm>

namespace dpx::ui {

void JobProgress::setText(const QString& text) {
    while (lock_.test_and_set(std::memory_order_acquire)) {
    }
    text_ = text;
    lock_.clear(std::memory_order_release);
}

QString JobProgress::text() const {
    while (lock_.test_and_set(std::memory_order_acquire)) {
    }
    QString copy = text_;
    lock_.clear(std::memory_order_release);
    return copy;
}

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
    // All cores for each lane; the GUI thread only draws. A background job that is cancelled
    // stops at its next check (core Monte Carlo checks per estimator pass and per row), so the
    // lanes share the cores only briefly.
    pool_.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
    backgroundPool_.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
    poll_.setInterval(100);
    connect(&poll_, &QTimer::timeout, this, &JobRunner::updateProgress);
}

JobRunner::~JobRunner() {
    for (Slot& s : slots_) {
        if (s.stop) {
            s.stop->request_stop();
        }
    }
    pool_.waitForDone();
    backgroundPool_.waitForDone();
}

bool JobRunner::finish(const QString& slot, std::uint64_t generation) {
    auto it = slots_.find(slot);
    if (it == slots_.end() || it->generation != generation) {
        ++dropped_;
        return false;
    }
    it->running = false;
    const bool cancelled = it->stop && it->stop->stop_requested();
    if (cancelled) {
        ++dropped_;
    }
    updateProgress();
    if (!anyRunning()) {
        Q_EMIT idle();
    }
    return !cancelled;
}

void JobRunner::cancel(const QString& slot) {
    auto it = slots_.find(slot);
    if (it == slots_.end() || !it->running) {
        return;
    }
    if (it->stop) {
        it->stop->request_stop();
    }
    // Its result will be dropped by finish(); the slot no longer counts as running now.
    it->running = false;
    ++it->generation;
    updateProgress();
    if (!anyRunning()) {
        Q_EMIT idle();
    }
}

void JobRunner::cancelLong() {
    const QStringList keys = slots_.keys();
    for (const QString& k : keys) {
        if (!slots_[k].label.isEmpty() && slots_[k].running) {
            cancel(k);
            Q_EMIT longJobCancelled(k);
        }
    }
}

void JobRunner::cancelAll() {
    const QStringList keys = slots_.keys();
    for (const QString& k : keys) {
        cancel(k);
    }
}

bool JobRunner::isRunning(const QString& slot) const {
    auto it = slots_.find(slot);
    return it != slots_.end() && it->running;
}

bool JobRunner::anyRunning() const {
    return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.running; });
}

bool JobRunner::waitForIdle(int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (anyRunning() && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    QCoreApplication::processEvents();
    return !anyRunning();
}

void JobRunner::updateProgress() {
    QStringList labels;
    double sum = 0;
    int count = 0;
    int measured = 0;  // jobs that report a fraction
    for (const Slot& s : slots_) {
        if (s.running && !s.label.isEmpty()) {
            const QString text = s.progress ? s.progress->text() : QString();
            labels << (text.isEmpty() ? s.label
                                      : s.label + QStringLiteral(" (") + text + QLatin1Char(')'));
            if (!s.progress || !s.progress->indeterminate()) {
                sum += s.progress ? std::clamp(s.progress->get(), 0.0, 1.0) : 0.0;
                ++measured;
            }
            ++count;
        }
    }
    if (count > 0 && !poll_.isActive()) {
        poll_.start();
    } else if (count == 0) {
        poll_.stop();
    }
    labels.removeDuplicates();  // e.g. several curves of the trade-off tab
    Q_EMIT progressChanged(labels.join(QStringLiteral(", ")),
                           measured > 0 ? sum / measured
                           : count > 0  ? -1.0
                                        : 0.0,
                           count > 0);
}

}  // namespace dpx::ui
