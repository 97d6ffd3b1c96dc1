// The DPBench family of algorithms for histograms and range workloads (issue #20): one
// interface, one file per algorithm in this folder, a registry.
//
// Every algorithm takes the true data vector x (counts per cell, C order over a 1-D or 2-D
// shape), the workload it will be judged on, ε and a simulation generator, and returns an
// estimate x̂ of x plus what each of its steps spent. These runs are for comparison and
// planning (benchmarks, the Workbench tab, dpx workload / bench): they draw from SimulationRng,
// never from the release randomness.
//
// Privacy: pure ε-DP under add/remove-one-record neighbours (one cell changes by one), unless
// info().totalIsPublic says the algorithm, like its reference code, uses the true total m as if
// it were public — the window and docs say so wherever such an algorithm is shown.
// Gaussian measurement (issue #23, session 33): an algorithm whose info().gaussian is true may
// also be run with AlgorithmContext::measurement = Gaussian and a δ in (0, 1); it is then
// (ε, δ)-DP. Every other algorithm refuses a Gaussian context (checkAlgorithmContext), so a δ is
// never silently ignored.
//
// CONTRACT (issue #20, written by the lead). Helpers "workload", "dd1" and "dd2" implement the
// algorithms; each adds its own line(s) to registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpx {

class SimulationRng;

// One step's spending (for the budget-split test: the steps of a run sum to ε exactly, up to
// rounding of the split fractions).
struct BudgetStep {
    std::string what;  // "partition (L1 cost, noisy)", "measure buckets", "round 3 selection"
    double epsilon = 0;
};

struct AlgorithmParameter {
    std::string name;         // "rho", "rounds", "eta", ...
    double defaultValue = 0;  // the paper's / DPBench's default
    double minValue = 0, maxValue = 0;
    bool integer = false;
    std::string description;  // "fraction of ε spent on the partition (DAWA's ρ)"
};

struct AlgorithmInfo {
    std::string id;        // DPBench's name: "Identity", "HB", "DAWA", "UGrid", "Privelet2D", ...
    std::string name;      // "Hierarchical with optimal branching"
    std::string citation;  // "Qardaji, Yang & Li, PVLDB 2013"
    std::vector<std::size_t> dimensions;  // data dimensions it runs on: {1}, {2} or {1, 2}
    bool dataDependent = false;
    bool usesWorkload = false;   // its choices depend on the workload (MWEM, GreedyH, DAWA)
    bool totalIsPublic = false;  // uses the true m as public (UGrid, AGrid, MWEM as in DPBench)
    std::vector<AlgorithmParameter> parameters;
    std::string docPage;  // "docs/algorithms/dawa.md"
    // Also runs with Gaussian measurement at (ε, δ) (HDMM): its strategy designed for ‖A‖₂ and
    // the rows measured with the analytic Gaussian mechanism (Balle & Wang 2018) on Δ₂(A).
    bool gaussian = false;
};

struct AlgorithmContext {
    DomainShape shape;
    std::span<const double> x;  // true counts, non-negative integers, shapeCells(shape) of them
    const Workload* workload = nullptr;  // never null; its shape == shape
    double epsilon = 1;                  // > 0, finite
    // Laplace: ε-DP, delta must be 0. Gaussian: only for info().gaussian algorithms, δ in (0, 1).
    MeasurementNoise measurement = MeasurementNoise::Laplace;
    double delta = 0;
    std::map<std::string, double> parameters;  // overrides of info().parameters by name
    SimulationRng* rng = nullptr;              // never null
    std::stop_token stop;
};

struct AlgorithmRun {
    std::vector<double> estimate;   // x̂, shapeCells(shape) values
    std::vector<BudgetStep> spent;  // Σ spent[i].epsilon == ε
    std::string summary;  // what it chose: "DAWA: 37 buckets", "MWEM: 10 rounds", "" if nothing
};

class Algorithm {
public:
    virtual ~Algorithm() = default;
    virtual const AlgorithmInfo& info() const = 0;
    // Errors: shape not supported (names the dimensions it runs on), x of the wrong size or not
    // non-negative integers, ε not > 0 finite, an unknown or out-of-range parameter (names it
    // and its range), cancelled.
    virtual Expected<AlgorithmRun> run(const AlgorithmContext& context) const = 0;
    // Data-independent algorithms answered by least squares: their strategy for this shape and
    // workload (for exact expected errors); nullptr for data-dependent ones.
    virtual Expected<std::unique_ptr<LinearStrategy>> strategy(const DomainShape& shape,
                                                               const Workload& w) const;
    // The strategy the algorithm measures under `noise` (for exact expected errors): strategy()
    // under Laplace; under Gaussian the one designed for it (info().gaussian algorithms; the
    // others refuse).
    virtual Expected<std::unique_ptr<LinearStrategy>> strategyFor(const DomainShape& shape,
                                                                  const Workload& w,
                                                                  MeasurementNoise noise) const;
};

// The measurement of a run: Laplace at ε, or Gaussian at (ε, δ) with the analytic calibration.
MeasurementSpec algorithmMeasurement(const AlgorithmContext& context);

// Every parameter's value: info's defaults with `overrides` applied. Errors name an unknown
// parameter (and list the known ones) or a value outside its range. checkAlgorithmContext uses
// it; so does a trade-off configuration (core/choosing/tradeoff.h) before any run.
Expected<std::map<std::string, double>> algorithmParameterValues(
    const AlgorithmInfo& info, const std::map<std::string, double>& overrides);

// The measurement checks of checkAlgorithmContext: Gaussian only for info.gaussian algorithms
// and with 0 < δ < 1 (δ = 0 named: no finite Gaussian noise), Laplace with δ = 0. The message
// starts with the algorithm's id.
Status checkAlgorithmMeasurement(const AlgorithmInfo& info, MeasurementNoise measurement,
                                 double delta);

// Checks the common preconditions of run() (shape supported, x, ε, workload shape, parameters
// known and in range; a Gaussian measurement only for info().gaussian algorithms and with
// 0 < δ < 1; no δ under Laplace) and returns every parameter's value (defaults filled in).
Expected<std::map<std::string, double>> checkAlgorithmContext(const AlgorithmInfo& info,
                                                              const AlgorithmContext& context);

// Every algorithm, in a fixed order (data-independent first, then data-dependent; 1-D, then 2-D).
const std::vector<const Algorithm*>& allAlgorithms();
// By id, case-insensitive; nullptr when unknown.
const Algorithm* findAlgorithm(std::string_view id);

}  // namespace dpx
