// The computations behind the window, as pure functions of their inputs (no Qt widgets, no
// shared state), so that they run on worker threads and can be tested directly:
//  1. loadDataset:  the dataset, its column and binning → the histogram to release;
//  2. computeRelease: histogram + mechanism → calibrated noise or count matrix, one simulated
//     noisy draw, every estimator's estimate, per-bin 95% bands, and the exact expected errors;
//  3. computeMonteCarlo: the expected errors that have no exact method, with per-trial samples.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include "core/count_lp.h"
#include "core/count_mechanism.h"
#include "core/dataset.h"
#include "core/estimator.h"
#include "core/histogram.h"
#include "core/metrics.h"
#include "core/privacy_guarantee.h"
#include "ui/explorer_state.h"

namespace dpx::ui {

struct DatasetResult {
    QString error;  // non-empty: nothing else is valid
    std::shared_ptr<const DataTable> table;
    QString sourceTitle;    // "Telemetry hours (synthetic, seed 002)" or the file name
    QString description;    // one or two sentences
    QStringList columns;    // all column names
    QString column;         // the column binned
    QString unit;           // unit of the column ("" if none)
    QString binningText;    // Binning::describe()
    QString reportText;     // BinningReport::describe(): rows used, missing, clamped, dropped
    std::optional<Histogram> histogram;
    Sensitivity sensitivity;
    qint64 rows = 0;
};

// `cached`: the table of the previous load if it came from the same source (example id + rows or
// CSV path); reused instead of loading again when only the column or binning changed.
DatasetResult loadDataset(const ExplorerState& s, std::shared_ptr<const DataTable> cached,
                          const std::stop_token& stop);
// True if two states load the same table (only column/binning/neighbouring may differ).
bool sameSource(const ExplorerState& a, const ExplorerState& b);

// The estimators and metrics of the Errors tab, in display order.
const std::vector<EstimatorKind>& allEstimators();
const std::vector<Metric>& allMetrics();

struct ExpectedCell {
    double value = std::numeric_limits<double>::quiet_NaN();
    double halfWidth = 0;  // 95% CI half-width, 0 if exact
    QString method;
    bool exact = false;
    bool available = false;  // false: Monte Carlo pending or not applicable (see `why`)
    QString why;
};

struct ReleaseResult {
    QString error;  // non-empty: nothing else is valid (shown instead of the plots)
    bool count = false;  // a count mechanism (matrix) rather than noise per bin
    QString mechanismTitle;  // "Laplace (b = 2)", "Truncated geometric (GM), n = 40"
    QString guarantee;       // "ε-DP, ε = 1" / "(ε, δ)-DP, ε = 1, δ = 1e-06" / plain sentence
    QStringList warnings;
    std::optional<CalibratedMechanism> calibrated;  // histogram mechanisms
    std::optional<CountMechanism> matrix;           // count mechanisms
    std::optional<CountLpResult> lp;                // CountOptimal
    std::vector<QString> labels;
    std::vector<double> positions;
    std::vector<double> truth, noisy;
    std::vector<std::vector<double>> estimates;  // [allEstimators() index]
    std::vector<double> bandLo, bandHi;          // 95% interval of each noisy bin
    std::vector<std::vector<double>> realized;   // [estimator][metric] for this draw
    std::vector<std::vector<ExpectedCell>> expected;  // [estimator][metric], exact where possible
    std::vector<bool> estimatorApplies;               // e.g. NoiseFirst: not for count mechanisms
    double noiseVariance = 0;                         // per bin (histogram mechanisms)
};

ReleaseResult computeRelease(const DatasetResult& data, const ExplorerState& s,
                             const std::stop_token& stop);

struct MonteCarloErrors {
    QString error;
    std::uint64_t trials = 0;
    bool cancelled = false;
    // [estimator][metric]: mean with 95% half-width, and the first samples for the histogram.
    std::vector<std::vector<ExpectedCell>> expected;
    std::vector<std::vector<std::vector<double>>> samples;
};

// `progress` receives fractions in [0, 1] (from worker threads).
MonteCarloErrors computeMonteCarlo(const ReleaseResult& release, Scale scale,
                                   std::uint64_t trials, std::uint64_t seed,
                                   const std::stop_token& stop,
                                   const std::function<void(double)>& progress);

}  // namespace dpx::ui
