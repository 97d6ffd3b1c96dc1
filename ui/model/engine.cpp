#include "ui/model/engine.h"

#include <QFileInfo>
#include <algorithm>

#include "ui/model/document.h"

namespace dpx::ui {

ExplorerEngine::ExplorerEngine(ExplorerDocument* doc, QObject* parent)
    : QObject(parent), doc_(doc) {
    connect(doc_, &ExplorerDocument::changed, this, &ExplorerEngine::onChanged);
    connect(&runner_, &JobRunner::longJobCancelled, this, [this](const QString& slot) {
        if (slot != QLatin1String("data") || !dataPending_) {
            return;
        }
        // The same as any failed load: the panel and the views say so; nothing of the document
        // is lost (Reload, or any change, loads again).
        dataPending_ = false;
        dataset_ = DatasetResult{};
        dataset_.source = doc_->state().data.source;
        dataset_.error = tr("Loading was cancelled. Press Reload in the data panel to load again.");
        loadedFrom_ = doc_->state();
        doc_->setTable(nullptr);
        Q_EMIT datasetReady(dataset_);
        startRelease();
    });
}

void ExplorerEngine::refreshAll() {
    startData();
}

void ExplorerEngine::onChanged(unsigned flags, const ExplorerState& s) {
    if (flags & DataChanged) {
        startData();
        return;
    }
    const bool scaleChanged = (flags & ViewChanged) && release_.error.isEmpty() &&
                              !release_.expected.empty() && s.view.scale != loadedScale();
    if ((flags & (MechanismChanged | SeedChanged)) || scaleChanged) {
        startRelease();
    }
}

Scale ExplorerEngine::loadedScale() const {
    return releaseScale_;
}

void ExplorerEngine::startData() {
    const ExplorerState s = doc_->state();
    std::shared_ptr<const DataTable> cached;
    if (dataset_.table && sameSource(loadedFrom_, s)) {
        cached = dataset_.table;
    }
    runner_.cancel(QStringLiteral("release"));
    runner_.cancel(QStringLiteral("mc"));
    dataPending_ = true;
    Q_EMIT computing(tr("Loading data"));
    QString label;
    if (isExternalSource(s.data.source)) {
        // Streamed or counted by a database on every load: long, with progress and Cancel.
        label = s.data.source == SourceKind::Csv
                    ? tr("Reading %1").arg(QFileInfo(s.data.csvPath).fileName())
                    : tr("Querying the database");
    } else if (!cached) {
        label = tr("Loading data");
    }
    runner_.run<DatasetResult>(
        QStringLiteral("data"),
        [s, cached](std::stop_token stop, JobProgress& p) {
            return loadDataset(s, cached, stop, [&p](double f) { p.set(f); });
        },
        [this, s](DatasetResult r) {
            dataPending_ = false;
            dataset_ = std::move(r);
            loadedFrom_ = s;
            doc_->setTable(dataset_.error.isEmpty() ? dataset_.jointTable : nullptr);
            Q_EMIT datasetReady(dataset_);
            startRelease();
        },
        label);
}

void ExplorerEngine::startRelease() {
    if (dataPending_) {
        return;  // the data job starts the release when it ends
    }
    const ExplorerState s = doc_->state();
    const DatasetResult data = dataset_;
    runner_.cancel(QStringLiteral("mc"));
    const bool lp = s.mechanism.kind == MechanismChoice::CountOptimal;
    Q_EMIT computing(lp ? tr("Solving LP") : tr("Computing release"));
    runner_.run<ReleaseResult>(
        QStringLiteral("release"),
        [data, s, lp](std::stop_token stop, JobProgress& p) {
            p.setText(QString());
            if (lp) {
                p.setIndeterminate();  // CLP reports no fraction done: a busy bar, not 0 %
            }
            return computeRelease(data, s, stop);
        },
        [this, s](ReleaseResult r) {
            release_ = std::move(r);
            releaseScale_ = s.view.scale;
            releaseSeed_ = s.mechanism.seed;
            mc_ = MonteCarloErrors{};
            Q_EMIT releaseReady(release_);
            if (release_.error.isEmpty()) {
                startMonteCarlo(false);
            }
        },
        lp ? tr("Solving LP") : QString());
}

void ExplorerEngine::startMonteCarlo(bool longPass) {
    const ReleaseResult release = release_;
    const Scale scale = releaseScale_;
    // Its own seed stream: independent of the displayed draw.
    const std::uint64_t seed = releaseSeed_ ^ 0x5bd1e9955bd1e995ULL;
    // The long pass draws trials × bins noise values: for a large table (65 536 cells and more)
    // it is cut to about 2·10⁸ draws, never below the quick pass.
    const std::uint64_t bins = std::max<std::uint64_t>(1, release.truth.size());
    const std::uint64_t trials =
        longPass ? std::max(kQuickTrials, std::min(longTrials_, kMaxMonteCarloDraws / bins))
                 : kQuickTrials;
    runner_.run<MonteCarloErrors>(
        QStringLiteral("mc"),
        [release, scale, trials, seed](std::stop_token stop, JobProgress& p) {
            p.setText(QObject::tr("%L1 trials").arg(trials));
            return computeMonteCarlo(release, scale, trials, seed, stop,
                                     [&p](double f) { p.set(f); });
        },
        [this, longPass](MonteCarloErrors r) {
            mc_ = std::move(r);
            Q_EMIT monteCarloReady(mc_, longPass);
            if (!longPass && mc_.error.isEmpty()) {
                startMonteCarlo(true);
            }
        },
        longPass ? tr("Monte Carlo") : QString(), JobRunner::Lane::Background);
}

}  // namespace dpx::ui
