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
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <vector>

#include "core/accuracy/metrics.h"
#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"
#include "core/count/lp_objective.h"
#include "core/estimators/estimator.h"
#include "core/histogram/dataset.h"
#include "core/histogram/histogram.h"
#include "core/ldp/protocols.h"
#include "core/mechanisms/privacy_guarantee.h"
#include "core/table/table.h"
#include "io/sources/sql_source.h"
#include "ui/model/explorer_state.h"

namespace dpx::ui {

struct DatasetResult {
    QString error;  // non-empty: nothing else is valid
    std::shared_ptr<const DataTable> table;
    QString sourceTitle;             // the example's title or the file name
    QString description;             // one or two sentences
    QStringList columns;             // all column names
    QString column;                  // the column binned
    QString unit;                    // unit of the column ("" if none)
    QString binningText;             // Binning::describe()
    std::optional<Binning> binning;  // the binning in force (automatic bins resolved)
    QString reportText;  // BinningReport::describe(): rows used, missing, clamped, dropped
    std::optional<Histogram> histogram;
    Sensitivity sensitivity;
    // The table of the attributes (issue #19): for one column its bins, for several the joint
    // table over the product of their bins. The histogram above is this table flattened (one bin
    // per cell, labels "a = x, b = y"); a table of more than kMaxBins cells (or a sparse one) has
    // no histogram and `histogramWhy` says so, for the views that need one.
    std::shared_ptr<const ContingencyTable> jointTable;
    QStringList attributeColumns;  // the columns binned, in attribute order (`column` is the first)
    std::vector<Binning> binnings;  // the binning in force of each attribute
    QString histogramWhy;
    qint64 rows = 0;

    // External sources (CSV, SQLite, PostgreSQL).
    SourceKind source = SourceKind::Example;
    QStringList tables;                // SQL sources: the tables of the database
    QString sqlTable;                  // the table counted
    QStringList columnTypes;           // one per column: "integer", "float", "categorical", "date"
    std::vector<bool> typeOverridden;  // CSV: the type comes from the user's override
    // The bins (range or categories) were taken from the data: fine for exploring, but a release
    // must declare them (a data-dependent range leaks information). The text says what was taken.
    bool dataDependent = false;
    QString dataDependentText;
    std::vector<std::pair<QString, qint64>> skipped;  // rows not counted, by reason
    qint64 cappedRows = 0;                            // rows over the contribution cap
    int cap = 0;  // rows per person (0: no contribution bounding)
    QString idColumn;
    QString skippedText;  // skipped rows by reason and capped rows, for the panel
};

// What loadDataset reports while it reads a file or waits for a database: the fraction done.
using LoadProgress = std::function<void(double)>;

// The sensitivity of a histogram of `bins` bins when every person owns at most `cap` rows (cap 1:
// one row per person). A person's rows sum to at most cap over all bins, so add/remove changes
// the counts by at most cap in L1 and in L2 (all rows in one bin); replace by 2·cap in L1 and
// √2·cap in L2 (cap in one bin removed, cap added to another; cap with a single bin). This is
// core's histogramSensitivity with the bound {maxBins 1, maxPerBin cap}.
Expected<Sensitivity> cappedSensitivity(std::size_t bins, Neighbouring relation, int cap);

// The connection of a SQLite or PostgreSQL state (with its in-memory password).
data::SqlConnectionSpec sqlSpecOf(const ExplorerState& s);

// The LP of the CountOptimal mechanism for the state's objective, constraints, weights and
// accuracy floor, at group size n and the state's ε. An objective the grammar of
// core/count/lp_objective.h refuses (or l0d:D with D > n) is an error.
Expected<CountLpSpec> lpSpecOf(const ExplorerState& s, int n);

// `cached`: the table of the previous load if it came from the same source (example id + rows or
// CSV path); reused instead of loading again when only the column or binning changed.
DatasetResult loadDataset(const ExplorerState& s, std::shared_ptr<const DataTable> cached,
                          const std::stop_token& stop, const LoadProgress& progress = {});
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
    QString error;           // non-empty: nothing else is valid (shown instead of the plots)
    bool count = false;      // a count mechanism (matrix) rather than noise per bin
    QString mechanismTitle;  // "Laplace (b = 2)", "Truncated geometric (GM), n = 40"
    QString guarantee;       // "ε-DP, ε = 1" / "(ε, δ)-DP, ε = 1, δ = 1e-06" / plain sentence
    QStringList warnings;
    std::optional<CalibratedMechanism> calibrated;  // histogram mechanisms
    std::optional<CountMechanism> matrix;           // count mechanisms
    std::optional<CountLpResult> lp;                // CountOptimal
    std::vector<QString> labels;
    std::vector<double> positions;
    std::vector<double> truth, noisy;
    std::vector<std::vector<double>> estimates;       // [allEstimators() index]
    std::vector<double> bandLo, bandHi;               // 95% interval of each noisy bin
    std::vector<std::vector<double>> realized;        // [estimator][metric] for this draw
    std::vector<std::vector<ExpectedCell>> expected;  // [estimator][metric], exact where possible
    std::vector<bool> estimatorApplies;               // e.g. NoiseFirst: not for count mechanisms
    double noiseVariance = 0;                         // per bin (histogram mechanisms)

    // Local protocols: the protocol (ε and domain = bins set), the number of reports N (the
    // histogram total), the variance of every estimated count N·f̂_j (exact, core/ldp/protocols.h),
    // and the report matrix P[report | value] where the report space is small enough to enumerate
    // (else the reason). `noisy` holds N·f̂, the collector's unbiased estimate of the counts.
    std::optional<ldp::ProtocolSpec> local;
    std::uint64_t localUsers = 0;
    bool localPerUser = false;  // every report was simulated (else the aggregate simulator)
    std::vector<double> localVariance;
    std::optional<ldp::ReportMatrix> reportMatrix;
    QString reportMatrixWhy;
    QString bandText;      // what bandLo/bandHi are, for the histogram's legend
    QString localDetails;  // how the protocol works, its constants and its variance
};

// The window's post-processing of a local estimate N·f̂ of the counts (free of privacy cost):
// identity; clamp (negatives → 0); resize = Euclidean projection onto {x ≥ 0, Σx = N}, the known
// total (core/ldp/metrics.h, Simplex). NoiseFirst does not apply (error).
Expected<std::vector<double>> localEstimate(EstimatorKind e, std::span<const double> noisy,
                                            double users);

// Largest number of bins for which the window evaluates NoiseFirst (estimate and errors).
inline constexpr std::size_t kMaxNoiseFirstBins = 8192;

// Most people the window simulates report by report (one 32-bit value each in memory).
inline constexpr std::uint64_t kMaxPerUserReports = 20'000'000;

// The lower (upper = false: smallest i with Σ_{k ≤ i} P[k][j] ≥ p) or upper (largest i with
// Σ_{k ≥ i} P[k][j] ≥ p) p-quantile of column j of a count mechanism: with p = (1 − L)/2 on both
// sides, the central L range of the noisy count when the true count is j.
double quantileOfColumn(const CountMechanism& m, std::size_t j, double p, bool upper);

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
MonteCarloErrors computeMonteCarlo(const ReleaseResult& release, Scale scale, std::uint64_t trials,
                                   std::uint64_t seed, const std::stop_token& stop,
                                   const std::function<void(double)>& progress);

}  // namespace dpx::ui
