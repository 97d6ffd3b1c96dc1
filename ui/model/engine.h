// Runs the computations of ui/model/computations.h for the document's current state on the
// JobRunner and publishes their results. What a change re-runs depends on what changed: the data
// only when the dataset, column or binning change (a loaded table is reused when only the column or
// binning differ); the release when the mechanism, its parameters, the seed or the error scale
// change; Monte Carlo after every release, first a quick pass then a long one that can be
// cancelled.
#pragma once

#include <QObject>
#include <memory>

#include "ui/model/computations.h"
#include "ui/model/explorer_state.h"
#include "ui/model/job_runner.h"

namespace dpx::ui {

class ExplorerDocument;

class ExplorerEngine : public QObject {
    Q_OBJECT
public:
    explicit ExplorerEngine(ExplorerDocument* doc, QObject* parent = nullptr);

    JobRunner* runner() { return &runner_; }
    const DatasetResult& dataset() const { return dataset_; }
    const ReleaseResult& release() const { return release_; }
    const MonteCarloErrors& monteCarlo() const { return mc_; }
    // Trials of the quick and the long Monte Carlo pass.
    static constexpr std::uint64_t kQuickTrials = 2000;
    static constexpr std::uint64_t kLongTrials = 50000;
    // Most noise draws (trials × bins) of the long pass.
    static constexpr std::uint64_t kMaxMonteCarloDraws = 200'000'000;
    void setLongTrials(std::uint64_t trials) { longTrials_ = trials; }

    // Re-runs everything (e.g. at start-up).
    void refreshAll();
    // True while any computation runs or is queued.
    bool busy() const { return runner_.anyRunning(); }

Q_SIGNALS:
    void datasetReady(const dpx::ui::DatasetResult& r);
    void releaseReady(const dpx::ui::ReleaseResult& r);
    // `final`: the long pass is complete (no more refinement coming).
    void monteCarloReady(const dpx::ui::MonteCarloErrors& r, bool final);
    void computing(const QString& what);  // a job started: "Loading data", "Solving LP", ...

private:
    void onChanged(unsigned flags, const ExplorerState& s);
    void startData();
    void startRelease();
    void startMonteCarlo(bool longPass);
    Scale loadedScale() const;

    ExplorerDocument* doc_;
    JobRunner runner_;
    ExplorerState loadedFrom_;  // the state the table in dataset_ came from
    DatasetResult dataset_;
    ReleaseResult release_;
    MonteCarloErrors mc_;
    std::uint64_t longTrials_ = kLongTrials;
    bool dataPending_ = false;
    Scale releaseScale_ = Scale::Counts;  // the error scale release_ was computed in
    std::uint64_t releaseSeed_ = 1;
};

}  // namespace dpx::ui
