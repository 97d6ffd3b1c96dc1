// What the Workbench tab computes, without widgets (so that it runs on a worker and is tested on
// its own): the data (the window's 1-D or 2-D table, or a built-in shape), coarsened to the
// chosen domain size and resampled to each scale m as DPBench does (Hay et al., SIGMOD 2016, §5;
// core/workload/data_scale.h), then every chosen algorithm's error over trials at every
// (m, ε) by core/algorithms/algorithm_error.h — the same call, with the same seeds, as dpx bench.
// Also the exact expected errors of the data-independent algorithms (least squares, computed
// first: they need no trials) and, for one clicked point, the algorithm's noisy output beside the
// input with the workload's worst queries and a per-cell map of the query errors.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <utility>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/algorithm_error.h"
#include "core/base/expected.h"
#include "core/base/stop_token.h"
#include "core/choosing/tradeoff.h"
#include "core/workload/workload.h"

namespace dpx {
class ContingencyTable;
}

namespace dpx::ui {

// DPBench's full domains for the built-in shapes.
inline constexpr std::size_t kWorkbenchBuiltin1d = 4096;
inline constexpr std::size_t kWorkbenchBuiltin2d = 256;

// A data vector over a 1-D or 2-D domain (cells in C order) and where it came from.
struct WorkbenchData {
    DomainShape shape;
    std::vector<double> x;
    QString source;  // "column 'age' (64 bins)", "built-in shape 'step' (4 096 cells)"
};

// The window's table as Workbench data: a dense table of one or two attributes with a positive
// total. Otherwise a message that says why (no data, three or more attributes, sparse, empty)
// and suggests a built-in shape.
Expected<WorkbenchData> workbenchDataFromTable(const ContingencyTable* table, const QString& name);
// Built-in shape `name` (core/workload/builtin_shapes.h) at 4 096 (1-D) or 256 × 256 (2-D).
Expected<WorkbenchData> builtinWorkbenchData(const QString& name, std::size_t dimensions);

// The domain sizes offered for `shape`: the shape divided by every common divisor k of its sizes
// (each dimension shrinks by the same factor, keeping the aspect ratio), largest first, at most
// `limit` of them (the full shape always first, the smallest sizes last).
std::vector<DomainShape> domainChoices(const DomainShape& shape, std::size_t limit = 12);
QString domainText(const DomainShape& shape);  // "4096", "256 × 256"

// The inputs of one comparison.
struct WorkbenchSettings {
    DomainShape domain;  // the coarsened shape (empty: the data's own)
    // Scales m: records resampled from the data's shape; 0 stands for the data as it is (no
    // resampling, m = Σx).
    std::vector<double> scales{0, 1000, 100000, 10000000};
    std::vector<double> epsilons{0.01, 0.1, 1, 10};
    QString workload = QStringLiteral("range:2000");  // WorkloadSpec text
    QStringList algorithms;                           // ids
    std::uint64_t trials = 5;
    std::uint64_t seed = 1;      // algorithmError's seed (trial t: stream t)
    std::uint64_t dataSeed = 0;  // resampling: SimulationRng(dataSeed, 0) for every scale
    unsigned threads = 0;        // 0: all cores
    // Gaussian measurement at (ε, delta) for the algorithms that offer it (AlgorithmInfo::gaussian:
    // HDMM, its strategy designed for ‖A‖₂), (ε, δ)-DP; every other algorithm stays ε-DP with
    // Laplace noise. The legend names the law of such an algorithm.
    bool gaussian = false;
    double delta = 1e-6;  // in (0, 1) when gaussian

    bool operator==(const WorkbenchSettings&) const = default;
};

// "0.01, 0.1, 1, 10" → numbers, each > 0 and finite (the message names the bad entry); the scale
// list also accepts "data" (0). Sorted, duplicates removed.
Expected<std::vector<double>> parseEpsilonList(const QString& text);
Expected<std::vector<double>> parseScaleList(const QString& text);
QString scaleText(double m);  // "data", "1 000", "10⁷"…

// The data prepared for one comparison: the workload, and per scale the coarsened, resampled
// vector (in the order of settings.scales).
struct WorkbenchPrepared {
    DomainShape shape;
    std::shared_ptr<const Workload> workload;
    std::vector<double> scales;      // as given (0: data as is)
    std::vector<double> scaleTotal;  // m used for the scaled errors (Σx for 0)
    std::vector<std::vector<double>> x;
    std::vector<const Algorithm*> algorithms;  // those chosen that run on this dimension
    // Chosen algorithms that do not run on the shape, with the reason.
    std::vector<std::pair<QString, QString>> refused;
};
// Coarsens (DPBench's order: resample on the data's domain first, then coarsen), builds the
// workload; messages name the bad input (domain not dividing the data, workload text, no
// algorithm chosen, empty data).
Expected<WorkbenchPrepared> prepareWorkbench(const WorkbenchData& data,
                                             const WorkbenchSettings& settings);

// One (algorithm, m, ε) point.
struct WorkbenchCell {
    QString algorithm;
    std::size_t scaleIndex = 0;
    double epsilon = 0;
    std::optional<double> exactRmse;             // known before the trials (data-independent)
    std::optional<AlgorithmErrorResult> result;  // after the trials
    QString error;                               // the algorithm refused (its message)
};

// How `algorithm` measures under `settings`: Gaussian only when the settings ask for it and the
// algorithm offers it.
bool measuresGaussian(const Algorithm& algorithm, const WorkbenchSettings& settings);

// The exact expected RMSE √(E‖Wx̂ − Wx‖²/q) of every data-independent least-squares algorithm
// at every ε of the settings, under the law it measures with (measuresGaussian; the same
// computation as algorithmError's exactRmse): cells without results.
std::vector<WorkbenchCell> exactCells(const WorkbenchPrepared& prepared,
                                      const WorkbenchSettings& settings, std::stop_token stop = {});

// algorithmError for one algorithm at every (m, ε), in the order scales × ε. An algorithm that
// refuses a shape or fails gets its message in every cell; `progress` gets the fraction done.
std::vector<WorkbenchCell> runAlgorithm(const WorkbenchPrepared& prepared,
                                        const WorkbenchSettings& settings,
                                        const Algorithm& algorithm,
                                        const ProgressCallback& progress, std::stop_token stop);

// The metric plotted. DPBench's scaled L2 error ‖Wx̂ − Wx‖₂ / (q·m); its exact counterpart for
// least-squares algorithms is √(E‖Wx̂ − Wx‖²)/(q·m) = exactRmse/(√q·m), the root of the expected
// square, which is ≥ the mean by Jensen and equal to it when ‖Wx̂ − Wx‖ concentrates (many
// queries). Or the per-query root mean squared error, for which exactRmse is exact.
enum class WorkbenchMetric { ScaledL2, Rmse };
struct WorkbenchValue {
    double mean = 0, standardError = 0;
    bool exact = false;  // only the exact value is known (trials still running)
    bool valid = false;
};
WorkbenchValue cellValue(const WorkbenchCell& cell, WorkbenchMetric metric, double scaleTotal,
                         std::uint64_t queries);
// The exact value of the metric from exactRmse (NaN when absent).
double exactValue(const WorkbenchCell& cell, WorkbenchMetric metric, double scaleTotal,
                  std::uint64_t queries);

// One clicked point: the input x and the algorithm's x̂ (trial 0), each query's error, the worst
// queries, and per cell the mean |error| of the queries covering it (2-D).
struct WorkbenchDetail {
    QString algorithm;
    double epsilon = 0, scale = 0;
    DomainShape shape;
    std::vector<double> x, estimate;
    struct Worst {
        RangeQuery query;
        double error = 0;  // Wx̂ − Wx for that query
    };
    std::vector<Worst> worst;  // largest |error| first
    // 2-D: per cell, the mean |Wx̂ − Wx| over the workload queries whose box contains the cell
    // (NaN where no query covers it); for workloads too large to list, the cell errors x̂ − x.
    std::vector<double> cellError;
    QString cellErrorMeaning;
};
Expected<WorkbenchDetail> workbenchDetail(const Workload& workload, std::vector<double> x,
                                          std::vector<double> estimate, std::size_t worstCount);

// The frontier's honest attribution: for each point of `frontier` (lowerEnvelope(curves)), the
// other curves whose value there is within noise of the winner's — |v_j − v_w| ≤ h_w + h_j, h the
// 95% half-width (0 for an exact point), the rule of resolveStatisticalTies — in curve order. A
// winner by a few trials' luck is thus named with those it does not significantly beat.
std::vector<std::vector<std::size_t>> frontierTies(std::span<const ErrorCurve> curves,
                                                   const Frontier& frontier);
// "Privelet from ε = 0.01 (not significantly below Identity, HB: add trials); …"
QString frontierWinners(std::span<const ErrorCurve> curves, const Frontier& frontier);

// The numbers as CSV: one line per (algorithm, m, ε) with mean ± se of the scaled L2 error and
// the RMSE, the exact RMSE, seconds and any error message.
QString workbenchCsv(const WorkbenchPrepared& prepared, const WorkbenchSettings& settings,
                     const std::vector<WorkbenchCell>& cells);

}  // namespace dpx::ui
